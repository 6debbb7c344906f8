// SPDX-License-Identifier: GPL-2.0
// Memory keys: CREATE/DESTROY/QUERY_MKEY. The hca keeps each key's context
// (access rights, PD, range, page size) in a firmware-page slot and its MTT
// list in firmware pages, for the data path to translate and check against.
// Key = index << 8 | mkey_7_0; indices 0 and 1 are never handed out, so no
// key can be 0x100 (MLX5_INVALID_LKEY, the scatter-list terminator).
#pragma once

#include "hca/cmd_ctx.h"
#include "hca/fw_pages.h"
#include "hca/objects.h"
#include "lib/sync.h"

namespace scx::hca {

struct mkey_ctx {
	u32 slot;
	u32 index;
	u8 key_7_0;
	u8 access_mode;  // prm::mkc_access_mode
	u8 access;       // mkey_access bits
	u8 free;         // created free: usable only after a UMR fills it
	u8 umr_en;
	u8 length64;
	u8 log_page_size;
	u8 en_rinval;    // a SEND_WITH_INV may free it (type 2 windows)
	u32 pd;
	u32 qpn;         // a bound type 2 window: the QP it serves
	u64 start;
	u64 len;
	u32 octwords;    // translations_octword_size: MTT capacity / 2
	fw_list mtt;     // capacity entries, as given (address | rd/wr bits)
	u32 mtt_given;   // entries the command filled in: translation ends there
	// A memory window (KLM mode, UMR-enabled): bound, it maps
	// [start, start+len) onto klm_key at klm_addr.
	u32 klm_key;
	u64 klm_addr;
	u16 uid;         // its creator's user context (uctx.h)
};
static_assert(sizeof(mkey_ctx) <= fw_pages::slot_size);

namespace mkey_access {
constexpr u8 local_read = 1u << 0;
constexpr u8 local_write = 1u << 1;
constexpr u8 remote_read = 1u << 2;
constexpr u8 remote_write = 1u << 3;
constexpr u8 atomic = 1u << 4;
} // namespace mkey_access

class mkey_table {
public:
	static constexpr u32 first_index = 2;

	mkey_table() = default;
	mkey_table(const mkey_table &) = delete;
	mkey_table &operator=(const mkey_table &) = delete;

	status init(fw_pages &pages, id_pool &pds, u32 max_mkeys);

	void create(cmd_ctx &c);
	void destroy(cmd_ctx &c);
	void query(cmd_ctx &c);
	void reset();
	// Whether some mkey was made by user context uid (uctx.h).
	bool any_owned_by(u16 uid);

	// For the data path: a copy of the context of `key` (index and
	// variant must match), or false.
	bool lookup(u32 key, mkey_ctx *out);
	// MTT entry i of `key` (as given: address | rd/wr enables).
	bool mtt(u32 key, u32 i, u64 *entry);
	// The live context of mkey index `index`, for a UMR or invalidation
	// to change (the data path's lock is held, as by every command).
	mkey_ctx *dp_find(u32 index);

private:
	// CREATE_MKEY's steps; false has failed the command.
	bool create_check(cmd_ctx &c, const u8 *mkc, u32 actual, u32 *cap);
	bool create_mtt(cmd_ctx &c, mkey_ctx *m, u32 entries, u32 log_page);
	void free_mkey(mkey_ctx *m);

	fw_pages *pages_ = nullptr;
	id_pool *pds_ = nullptr;
	spinlock lock_;
	obj_table<mkey_ctx> table_;
};

} // namespace scx::hca
