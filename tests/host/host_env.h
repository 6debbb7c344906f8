// SPDX-License-Identifier: GPL-2.0
// Host-only hooks of the test env (tests/host/host_env.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace host_env {

// Memory the "device" may reach besides scx_env_dma_alloc'd pages, e.g. a
// test's stand-in for pinned user pages. Unregistered addresses are refused by
// scx_env_dma_to_cpu, like an IOMMU fault.
void dma_register(const void *p, size_t len);
void dma_unregister(const void *p);

// Counts of broken-invariant reports (scx_env_bug) and of sleeps attempted
// while holding a spinlock; tests assert both stay zero.
unsigned bug_count();
unsigned sleep_in_atomic_count();
// Live env allocations, for leak checks around a test.
long live_allocations();

} // namespace host_env
