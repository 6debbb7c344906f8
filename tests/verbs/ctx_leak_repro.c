// SPDX-License-Identifier: GPL-2.0
/*
 * ctx_leak_repro: the Linux 6.1 RDMA core leaks a task_struct reference
 * whenever GET_CONTEXT fails through the ioctl interface, with any driver.
 * ib_alloc_ucontext() attaches the calling task to the new context's
 * restrack entry (get_task_struct); when ib_init_ucontext() then fails, the
 * ioctl handler (uverbs_std_types_device.c, UVERBS_METHOD_GET_CONTEXT)
 * frees the context without rdma_restrack_put(), so the reference is never
 * dropped (the write() path's handler does drop it). The process's
 * task_struct, signal_struct and cred then stay allocated after it exits,
 * and kmemleak reports them, from copy_process.
 *
 * libmlx5 always asks for a DevX context first and retries without it;
 * softcx (like a ConnectX whose mlx5_ib cannot do DevX) refuses the first
 * request, so every process that opens softcx leaks this way. This program
 * shows the same without softcx: a second GET_CONTEXT on one file fails
 * in the core itself (the file has a context already).
 *
 *   ctx_leak_repro DEV rxe|mlx5
 * Exits 0 when the first call worked and the second failed with EINVAL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "vt.h"

static int get_context(int fd, unsigned int driver_id)
{
	struct ib_uverbs_ioctl_hdr h = {
		.length = sizeof(h),
		.object_id = UVERBS_OBJECT_DEVICE,
		.method_id = UVERBS_METHOD_GET_CONTEXT,
		.driver_id = driver_id,
	};

	return ioctl(fd, RDMA_VERBS_IOCTL, &h) ? errno : 0;
}

int main(int argc, char **argv)
{
	char path[64];
	int fd, first, second;

	if (argc != 3 || !vt_uverbs_path(argv[1], path, sizeof(path)))
		return 2;
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 2;
	first = get_context(fd, strcmp(argv[2], "rxe") ? RDMA_DRIVER_MLX5 : RDMA_DRIVER_RXE);
	second = get_context(fd, strcmp(argv[2], "rxe") ? RDMA_DRIVER_MLX5 : RDMA_DRIVER_RXE);
	printf("GET_CONTEXT: first %s, second %s\n", first ? strerror(first) : "ok",
	       second ? strerror(second) : "ok");
	close(fd);
	return !first && second == EINVAL ? 0 : 1;
}
