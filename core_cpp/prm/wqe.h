// SPDX-License-Identifier: GPL-2.0
// Work queue entries as the driver (libmlx5) writes them into send, receive
// and shared receive queues: the segments of qp.h (struct mlx5_wqe_*_seg,
// struct mlx5_av), the send opcodes and the control-segment flags. The
// doorbell records are in qp.h and srq.h, completion syndromes in cq.h.
#pragma once

#include "prm/field.h"

// Every send WQE starts with it (struct mlx5_wqe_ctrl_seg).
namespace scx::prm::wqe_ctrl_seg {
constexpr field<0x00, 32> opmod_idx_opcode{};
constexpr field<0x20, 32> qpn_ds{};
constexpr field<0x40, 8> signature{};
constexpr field<0x58, 8> fm_ce_se{};
constexpr field<0x60, 32> imm{};
// Sub-fields (the kernel masks them out of the words above).
constexpr field<0x00, 8> opmod{};
constexpr field<0x08, 16> wqe_index{};
constexpr field<0x18, 8> opcode{};
constexpr field<0x20, 24> qpn{};
constexpr field<0x38, 8> ds{};           // WQE size in 16-byte units, this segment included
constexpr field<0x58, 3> fence{};        // fm_ce_se[7:5]
constexpr field<0x5c, 2> ce{};           // fm_ce_se[3:2]: completion request
constexpr field<0x5e, 1> se{};           // fm_ce_se[1]: solicited event
constexpr u32 size_bytes = 16;
} // namespace scx::prm::wqe_ctrl_seg

// ctrl.ce values.
namespace scx::prm::wqe_ce {
constexpr u8 cqe_on_error = 0;
constexpr u8 cqe_always = 2;  // MLX5_WQE_CTRL_CQ_UPDATE >> 2
} // namespace scx::prm::wqe_ce

// ctrl.opcode (qp.h MLX5_OPCODE_*).
namespace scx::prm::wqe_op {
constexpr u8 nop = 0x00;
constexpr u8 send_inval = 0x01;
constexpr u8 rdma_write = 0x08;
constexpr u8 rdma_write_imm = 0x09;
constexpr u8 send = 0x0a;
constexpr u8 send_imm = 0x0b;
constexpr u8 rdma_read = 0x10;
constexpr u8 atomic_cs = 0x11;
constexpr u8 atomic_fa = 0x12;
constexpr u8 umr = 0x25;  // libmlx5: memory window bind/unbind, local invalidate
} // namespace scx::prm::wqe_op

// The UMR control segment (mlx5_wqe_umr_ctrl_seg) after the ctrl segment
// of a UMR WQE; then the mkey context segment (the mkc layout, prm::mkc)
// and, for a bind, one KLM (prm::klm, in prm/mkey.h).
namespace scx::prm::wqe_umr_ctrl_seg {
constexpr field<0x00, 8> flags{};
constexpr field<0x20, 16> xlt_octowords{};  // translation entries that follow, in octowords
constexpr field<0x30, 16> xlt_offset{};
constexpr field<0x40, 64> mkey_mask{};
constexpr u32 size_bytes = 48;
} // namespace scx::prm::wqe_umr_ctrl_seg

namespace scx::prm::umr_flags {
constexpr u8 inline_data = 0x80;
constexpr u8 check_not_free = 0x20;  // fail unless the key is free (unbound)
constexpr u8 translation_offset = 0x10;
constexpr u8 check_qpn = 0x08;
} // namespace scx::prm::umr_flags

// wqe_umr_ctrl_seg::mkey_mask: which mkey segment fields the UMR sets.
namespace scx::prm::umr_mkey_mask {
constexpr u64 len = 1ull << 0;
constexpr u64 page_size = 1ull << 1;
constexpr u64 start_addr = 1ull << 6;
constexpr u64 en_rinval = 1ull << 8;
constexpr u64 key = 1ull << 13;
constexpr u64 qpn = 1ull << 14;
constexpr u64 lr = 1ull << 17;
constexpr u64 lw = 1ull << 18;
constexpr u64 rr = 1ull << 19;
constexpr u64 rw = 1ull << 20;
constexpr u64 a = 1ull << 21;
constexpr u64 free = 1ull << 29;
} // namespace scx::prm::umr_mkey_mask

namespace scx::prm::wqe_mkey_seg {
constexpr u32 size_bytes = 64;
} // namespace scx::prm::wqe_mkey_seg


namespace scx::prm::wqe_raddr_seg {
constexpr field<0x00, 64> raddr{};
constexpr field<0x40, 32> rkey{};
constexpr u32 size_bytes = 16;
} // namespace scx::prm::wqe_raddr_seg

namespace scx::prm::wqe_atomic_seg {
constexpr field<0x00, 64> swap_add{};
constexpr field<0x40, 64> compare{};
constexpr u32 size_bytes = 16;
} // namespace scx::prm::wqe_atomic_seg

// A scatter/gather entry. In receive WQEs, lkey invalid_lkey ends the list.
namespace scx::prm::wqe_data_seg {
constexpr field<0x00, 32> byte_count{};
constexpr field<0x20, 32> lkey{};
constexpr field<0x40, 64> addr{};
constexpr u32 size_bytes = 16;
constexpr u32 invalid_lkey = 0x100;  // MLX5_INVALID_LKEY
} // namespace scx::prm::wqe_data_seg

// Inline data: this header, then the bytes; told apart from a data segment
// by the top bit of its first dword (MLX5_INLINE_SEG).
namespace scx::prm::wqe_inline_seg {
constexpr field<0x00, 32> byte_count{};
constexpr field<0x00, 1> inline_flag{};
constexpr field<0x01, 31> length{};
constexpr u32 header_bytes = 4;
} // namespace scx::prm::wqe_inline_seg

// The UD address vector in a send WQE (struct mlx5_av), as libmlx5 fills it
// for RoCE; a DCI's WQEs carry it too, with the DC access key where UD has
// its Q_Key and the DCT number in dqpn.
namespace scx::prm::av {
constexpr field<0x000, 32> qkey{};
constexpr field<0x000, 64> dc_key{};
constexpr field<0x040, 32> dqp_dct{};
constexpr field<0x060, 8> stat_rate_sl{};
constexpr field<0x068, 8> fl_mlid{};
constexpr field<0x070, 16> rlid{};
constexpr field<0x0a0, 32> rmac_47_16{};
constexpr field<0x0c0, 16> rmac_15_0{};
constexpr field<0x0d0, 8> tclass{};
constexpr field<0x0d8, 8> hop_limit{};
constexpr field<0x0e0, 32> grh_gid_fl{};
constexpr block<0x100, 16> rgid{};
// Sub-fields.
constexpr field<0x040, 1> extended{};     // MLX5_EXTENDED_UD_AV
constexpr field<0x048, 24> dqpn{};
constexpr field<0x0e4, 8> sgid_index{};
constexpr field<0x0ec, 20> flow_label{};
constexpr u32 size_bytes = 48;
} // namespace scx::prm::av

// The first 16 bytes of every SRQ WQE: the free list the driver keeps.
namespace scx::prm::wqe_srq_next_seg {
constexpr field<0x10, 16> next_wqe_index{};
constexpr field<0x20, 8> signature{};
constexpr u32 size_bytes = 16;
} // namespace scx::prm::wqe_srq_next_seg

// Send queue geometry.
namespace scx::prm::sq_geom {
constexpr u32 wqebb = 64;      // MLX5_SEND_WQE_BB
constexpr u32 ds_unit = 16;    // MLX5_SEND_WQE_DS
} // namespace scx::prm::sq_geom
