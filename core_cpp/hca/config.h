// SPDX-License-Identifier: GPL-2.0
// What a softcx hca looks like from outside: its firmware version, interrupt
// vectors, how many firmware pages it wants, and its port identity. The
// defaults describe one Ethernet/RoCE port of a ConnectX-5-like function.
#pragma once

#include "lib/types.h"

namespace scx::hca {

struct device_config {
	u32 num_vectors = 8;          // MSI-X vectors; EQ intr must be below
	u16 fw_major = 16;
	u16 fw_minor = 35;
	u16 fw_subminor = 1000;
	// Firmware pages requested by QUERY_PAGES (boot, init) and, after
	// INIT_HCA, for regular operation. Contexts live in these pages.
	u32 boot_pages = 8;
	u32 init_pages = 16;
	u32 regular_pages = 64;
	u32 max_pages = 4096;         // pages the hca can hold at once
	u32 boot_delay_us = 0;        // "initializing" stays set this long
	u8 mac[6] = {0x02, 0x5c, 0x00, 0x00, 0x00, 0x01};
	u16 mtu = 1500;
	u64 node_guid = 0x025c00fffe000001ull;
	u64 system_image_guid = 0x025c00fffe000001ull;
	bool link_up = true;
	// General objects (RESERVED_QPN) in the caps and commands: only DevX
	// contexts can make them, so a device whose driver grants none shows
	// none (a ConnectX without DevX would not list them either).
	bool general_objects = true;
	// DC (the dct cap): the commands work either way; the cap tells the
	// driver (and mlx5_ib would refuse DC QPs without it).
	bool dc = true;
};

} // namespace scx::hca
