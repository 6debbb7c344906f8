/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SOFTCX_KMOD_H
#define SOFTCX_KMOD_H

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#endif
