// SPDX-License-Identifier: GPL-2.0
// Protection domains: ALLOC_PD / DEALLOC_PD.
#pragma once

#include "prm/field.h"

namespace scx::prm::alloc_pd_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_pd_in

namespace scx::prm::alloc_pd_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> pd{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_pd_out

namespace scx::prm::dealloc_pd_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> pd{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_pd_in

namespace scx::prm::dealloc_pd_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_pd_out

// Transport domains: ALLOC_TRANSPORT_DOMAIN / DEALLOC_TRANSPORT_DOMAIN.
// A number grouping a context's TIRs and TISes (Ethernet); nothing in
// softcx refers to one, but mlx5_ib allocates one per user context.
namespace scx::prm::alloc_transport_domain_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_transport_domain_in

namespace scx::prm::alloc_transport_domain_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> transport_domain{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::alloc_transport_domain_out

namespace scx::prm::dealloc_transport_domain_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> transport_domain{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_transport_domain_in

namespace scx::prm::dealloc_transport_domain_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::dealloc_transport_domain_out
