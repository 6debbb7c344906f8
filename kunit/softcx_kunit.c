// SPDX-License-Identifier: GPL-2.0
/* KUnit suites for softcx, loaded as a module on the test kernel. */
#include <linux/module.h>

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("softcx KUnit suites");
