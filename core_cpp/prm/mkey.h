// SPDX-License-Identifier: GPL-2.0
// Memory keys: the mkey context (mkc), CREATE/DESTROY/QUERY_MKEY and the
// translation entries that follow the command (MTT: page addresses; KLM:
// key/length/address triples). A key is (mkey_index << 8) | mkey_7_0.
#pragma once

#include "prm/field.h"

namespace scx::prm::mkc {
constexpr field<0x001, 1> free{};
constexpr field<0x003, 3> access_mode_4_2{};
constexpr field<0x00d, 1> relaxed_ordering_write{};
constexpr field<0x010, 1> umr_en{};
constexpr field<0x011, 1> a{};
constexpr field<0x012, 1> rw{};
constexpr field<0x013, 1> rr{};
constexpr field<0x014, 1> lw{};
constexpr field<0x015, 1> lr{};
constexpr field<0x016, 2> access_mode_1_0{};
constexpr field<0x01a, 2> ma_translation_mode{};
constexpr field<0x020, 24> qpn{};
constexpr field<0x038, 8> mkey_7_0{};
constexpr field<0x060, 1> length64{};
constexpr field<0x061, 1> bsf_en{};
constexpr field<0x062, 1> sync_umr{};
constexpr field<0x067, 1> en_rinval{};
constexpr field<0x068, 24> pd{};
constexpr field<0x080, 64> start_addr{};
constexpr field<0x0c0, 64> len{};
constexpr field<0x100, 32> bsf_octword_size{};
constexpr field<0x1a0, 32> translations_octword_size{};
constexpr field<0x1d9, 1> relaxed_ordering_read{};
constexpr field<0x1db, 5> log_page_size{};
constexpr u32 size_bytes = 64;
} // namespace scx::prm::mkc

// The key that ends a scatter list in receive WQEs (qp.h MLX5_INVALID_LKEY):
// no mkey may ever be created with this value.
namespace scx::prm::lkey {
constexpr u32 invalid = 0x100;
} // namespace scx::prm::lkey

// mkc access_mode_4_2:access_mode_1_0 (MLX5_MKC_ACCESS_MODE_*).
namespace scx::prm::mkc_access_mode {
constexpr u8 pa = 0x0;
constexpr u8 mtt = 0x1;
constexpr u8 klms = 0x2;
constexpr u8 ksm = 0x3;
} // namespace scx::prm::mkc_access_mode

namespace scx::prm::create_mkey_in {
constexpr field<0x000, 16> opcode{};
constexpr field<0x010, 16> uid{};
constexpr field<0x030, 16> op_mod{};
constexpr field<0x060, 1> pg_access{};
constexpr field<0x061, 1> mkey_umem_valid{};
constexpr block<0x080, 64> memory_key_mkey_entry{};
constexpr field<0x300, 32> translations_octword_actual_size{};
// The translation list, in 4-byte units as mlx5_ifc.h declares it; an MTT
// entry is 8 bytes, a KLM 16 (one octword).
constexpr block<0x880, 4> klm_pas_mtt{};
constexpr u32 size_bytes = 0x110;  // without the list
} // namespace scx::prm::create_mkey_in

namespace scx::prm::create_mkey_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr field<0x48, 24> mkey_index{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::create_mkey_out

namespace scx::prm::destroy_mkey_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x10, 16> uid{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> mkey_index{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_mkey_in

namespace scx::prm::destroy_mkey_out {
constexpr field<0x00, 8> status{};
constexpr field<0x20, 32> syndrome{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::destroy_mkey_out

namespace scx::prm::query_mkey_in {
constexpr field<0x00, 16> opcode{};
constexpr field<0x30, 16> op_mod{};
constexpr field<0x48, 24> mkey_index{};
constexpr field<0x60, 1> pg_access{};
constexpr u32 size_bytes = 0x10;
} // namespace scx::prm::query_mkey_in

namespace scx::prm::query_mkey_out {
constexpr field<0x000, 8> status{};
constexpr field<0x020, 32> syndrome{};
constexpr block<0x080, 64> memory_key_mkey_entry{};
constexpr block<0x880, 16> bsf0_klm0_pas_mtt0_1{};
constexpr block<0x900, 16> bsf1_klm1_pas_mtt2_3{};
constexpr u32 size_bytes = 0x130;
} // namespace scx::prm::query_mkey_out

// One MTT entry: a page address with its low bits as read/write enables
// (mlx5_ib writes address | 3 as one big-endian u64).
namespace scx::prm::mtt {
constexpr field<0x00, 32> ptag_63_32{};
constexpr field<0x20, 24> ptag_31_8{};
constexpr field<0x3e, 1> wr_en{};
constexpr field<0x3f, 1> rd_en{};
constexpr u32 size_bytes = 8;
} // namespace scx::prm::mtt

// One KLM entry (qp.h struct mlx5_klm).
namespace scx::prm::klm {
constexpr field<0x00, 32> bcount{};
constexpr field<0x20, 32> key{};
constexpr field<0x40, 64> va{};
constexpr u32 size_bytes = 16;
} // namespace scx::prm::klm

namespace scx::prm {
static_assert(create_mkey_in::memory_key_mkey_entry.size == mkc::size_bytes);
static_assert(create_mkey_in::klm_pas_mtt.byte_off == create_mkey_in::size_bytes);
static_assert(mkc::log_page_size.bit_off + 5 <= mkc::size_bytes * 8);
} // namespace scx::prm
