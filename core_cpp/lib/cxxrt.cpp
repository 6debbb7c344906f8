// SPDX-License-Identifier: GPL-2.0
// The C++ runtime a freestanding kernel object needs: the replaceable
// allocation operators, routed to the env. Kernel build only; on the host the
// toolchain's runtime (and the sanitizers' interceptors) provide them.
#include "lib/new.h"

void *operator new(size_t n) { return scx::alloc_bytes(n); }
void *operator new[](size_t n) { return scx::alloc_bytes(n); }
void operator delete(void *p) noexcept { scx::free_bytes(p); }
void operator delete[](void *p) noexcept { scx::free_bytes(p); }
void operator delete(void *p, size_t) noexcept { scx::free_bytes(p); }
void operator delete[](void *p, size_t) noexcept { scx::free_bytes(p); }
