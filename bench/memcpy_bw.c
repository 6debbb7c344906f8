// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's memcpy bandwidth: the ceiling for a software HCA, which moves
 * every payload byte with one copy. Copies a 64 MiB buffer repeatedly for
 * about a second per block size and prints "memcpy SIZE MB/s".
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	const size_t total = 64u << 20;
	const size_t sizes[] = {64, 4096, 65536};
	char *src = malloc(total), *dst = malloc(total);

	if (!src || !dst)
		return 1;
	memset(src, 0x5a, total);
	memset(dst, 0, total);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t bs = sizes[s], bytes = 0;
		double t0 = now(), t;

		do {
			for (size_t off = 0; off + bs <= total; off += bs)
				memcpy(dst + off, src + off, bs);
			bytes += total;
			t = now() - t0;
		} while (t < 1.0);
		/* Keep the copies observable. */
		if (dst[total - 1] != 0x5a)
			return 1;
		printf("memcpy %zu %.0f\n", bs, bytes / t / 1e6);
	}
	free(src);
	free(dst);
	return 0;
}
