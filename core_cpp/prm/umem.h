// SPDX-License-Identifier: GPL-2.0
// User memory (DevX UMEM): CREATE_UMEM hands the device the pages of a
// pinned user buffer as MTTs; objects then name the umem and an offset in
// it instead of carrying page addresses (cq_umem_*, dbr_umem_*, wq_umem_*).
#pragma once

#include "prm/field.h"
#include "prm/mkey.h" // mtt

namespace scx::prm::umem {
constexpr field<0x80, 1> ats{};
constexpr field<0x9b, 5> log_page_size{}; // pages of 4 KiB << log_page_size
constexpr field<0xa0, 32> page_offset{};  // where the buffer starts in its first page
constexpr field<0xc0, 64> num_of_mtt{};
constexpr u32 size_bytes = 0x20; // mtt[] follows
} // namespace scx::prm::umem

namespace scx::prm::create_umem_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr block<0x80, 0x20> umem{};
constexpr u32 size_bytes = 0x30; // the umem's mtt[] follows
} // namespace scx::prm::create_umem_in

namespace scx::prm::create_umem_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> umem_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_umem_out

namespace scx::prm::destroy_umem_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> umem_id{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_umem_in

namespace scx::prm::destroy_umem_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_umem_out
