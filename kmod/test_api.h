/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_TEST_API_H
#define SOFTCX_TEST_API_H

#include <linux/types.h>

struct scx_atomic_probe;

struct scx_test_api {
	uint32_t (*be32)(uint32_t v, uint8_t out[4]);
	uint64_t (*be64)(uint64_t v, uint8_t out[8]);
	int (*alloc)(unsigned int count, unsigned int size);
	int (*virtual_area)(int kind, int a, int b);
	void (*atomic_add)(struct scx_atomic_probe *p, unsigned int n);
	unsigned int (*atomic_cas)(struct scx_atomic_probe *p, unsigned int n);
	unsigned int (*lock_nesting)(unsigned int n);
	int (*work_completion)(bool fire, unsigned int delay_us, unsigned int timeout_ms);
};

const struct scx_test_api *scx_test_api(void);

#endif
