// SPDX-License-Identifier: GPL-2.0
// Placement new and the allocation entry points. The replaceable operators are
// defined in lib/cxxrt.cpp (kernel only) and route to the env; plain `new` may
// return null (built with -fcheck-new), so every caller checks.
#pragma once

#include "lib/types.h"

#if __has_include(<new>)
#include <new>
#else
inline void *operator new(size_t, void *p) noexcept { return p; }
inline void *operator new[](size_t, void *p) noexcept { return p; }
inline void operator delete(void *, void *) noexcept {}
#endif

namespace scx {

void *alloc_bytes(usize size, bool atomic = false);
void free_bytes(void *p);

// Allocate and construct; null on failure. Freed with destroy().
template <typename T, typename... A> T *make(A &&...args)
{
	void *p = alloc_bytes(sizeof(T));
	return p ? new (p) T(static_cast<A &&>(args)...) : nullptr;
}
template <typename T> void destroy(T *obj)
{
	if (obj) {
		obj->~T();
		free_bytes(obj);
	}
}

} // namespace scx
