// SPDX-License-Identifier: GPL-2.0
/*
 * configfs_helpers.ko: the library behind <configfs-ng-helpers.h>. Module
 * init and exit, and the module's tags.
 */
#include <linux/init.h>
#include <linux/module.h>

#include "internal.h"

static int __init cng_helpers_init(void)
{
	cng_attr_init();
	return 0;
}
module_init(cng_helpers_init);

/* Nothing to undo; without an exit the module could not be unloaded. */
static void __exit cng_helpers_exit(void)
{
}
module_exit(cng_helpers_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng helpers: typed attributes and simple groups for configfs clients");
