// SPDX-License-Identifier: GPL-2.0
/*
 * configfs-ng module init and exit: each part's init, in order.
 */
#include <linux/module.h>

#include "internal.h"

static int __init cng_init(void)
{
	return cng_mount_init();
}

static void __exit cng_exit(void)
{
	cng_mount_exit();
}

module_init(cng_init);
module_exit(cng_exit);

MODULE_AUTHOR("configfs-ng developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(CNG_VERSION);
MODULE_DESCRIPTION("Drop-in replacement for configfs, the user-space-driven kernel object configuration filesystem");
