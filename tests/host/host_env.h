// SPDX-License-Identifier: GPL-2.0
// Host-only hooks of the test env (tests/host/host_env.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace host_env {

// Memory the "device" may reach besides scx_env_dma_alloc'd pages, e.g. a
// test's stand-in for pinned user pages. Unregistered addresses are refused by
// scx_env_dma_to_cpu, like an IOMMU fault.
void dma_register(const void *p, size_t len);
void dma_unregister(const void *p);
// Device accesses refused so far (the kernel env's IOMMU counter).
unsigned long dma_refused();

// Counts of broken-invariant reports (scx_env_bug) and of sleeps attempted
// while holding a spinlock; tests assert both stay zero.
unsigned bug_count();
unsigned sleep_in_atomic_count();
// The next n scx_env_spin_trylock calls fail as if another CPU held the
// lock (what a data path meets when a peer port is busy).
void fail_trylocks(unsigned n);
// Each spin unlock on the calling thread moves the clock (scx_env_now_ns)
// on by ns, as if the CPU went elsewhere whenever a lock was let go; 0
// stops it. The time added stays.
void clock_step_per_unlock(uint64_t ns);
// While on, every lock says someone waits for it (scx_env_spin_contended).
void force_contended(bool on);
// Unlocks of the class's spinlocks on the calling thread so far.
uint64_t unlocks(unsigned lock_class);
// Runs fn once, on the calling thread, right after the next unlock of a
// spinlock of the class there (what another CPU might do while the lock
// is free); null disarms it.
void after_unlock(unsigned lock_class, std::function<void()> fn);
// Live env allocations, for leak checks around a test.
long live_allocations();

// The tracepoint hooks (scx_env_trace_*): while recording is on, every call
// is kept; trace_take() returns them in call order and clears the list.
struct trace_event {
	enum kind_t { cmd_post, cmd_done, eqe } kind;
	std::string dev;
	uint16_t opcode;
	uint8_t slot, token, status, type;
	uint32_t syndrome, eqn, cons_index;
	uint64_t latency_ns;
};
void trace_record(bool on);
std::vector<trace_event> trace_take();

} // namespace host_env
