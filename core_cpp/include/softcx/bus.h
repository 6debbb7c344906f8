/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one handle the kernel shim passes between the device side and the
 * driver side: BAR0 of a softcx function. The hca's C API hands it out, the
 * driver's C API takes it; the shim never looks inside. In C++ it is the
 * device's scx::bus::mmio (core_cpp/lib/bus.h), so no wrapper object exists
 * and nothing has to be allocated or freed for it.
 */
#ifndef SOFTCX_BUS_H
#define SOFTCX_BUS_H

#ifdef __cplusplus
extern "C" {
#endif

struct scx_bar;

#ifdef __cplusplus
}

#include "lib/bus.h"

namespace scx::bus {

inline scx_bar *to_bar(mmio *m) { return reinterpret_cast<scx_bar *>(m); }
inline mmio *from_bar(scx_bar *b) { return reinterpret_cast<mmio *>(b); }

} // namespace scx::bus
#endif

#endif
