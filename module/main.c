// SPDX-License-Identifier: GPL-2.0
/*
 * configfs-ng module init and exit: each part's init, in order.
 */
#include <linux/module.h>

#include "internal.h"

static int __init cng_init(void)
{
	int ret;

	ret = cng_names_init();
	if (ret)
		return ret;
	ret = cng_node_init();
	if (ret)
		goto err_names_exit;
	ret = cng_inode_init();
	if (ret)
		goto err_node_exit;
	ret = cng_report_init();
	if (ret)
		goto err_inode_exit;
	cng_notify_init();
	ret = cng_mount_init();
	if (ret)
		goto err_report_exit;
	return 0;

err_report_exit:
	cng_report_exit();
err_inode_exit:
	cng_inode_exit();
err_node_exit:
	cng_node_exit();
	cng_ids_exit();
err_names_exit:
	cng_names_exit();
	return ret;
}

static void __exit cng_exit(void)
{
	cng_notify_exit();
	cng_mount_exit();
	cng_report_exit();
	cng_inode_exit();
	cng_node_exit();
	cng_ids_exit();
	cng_names_exit();
}

/*
 * As stock's: built in, configfs is ready before any client's initcall,
 * device_initcall or earlier, registers a subsystem.
 */
core_initcall(cng_init);
module_exit(cng_exit);

MODULE_AUTHOR("configfs-ng developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(CNG_VERSION);
MODULE_DESCRIPTION("Drop-in replacement for configfs, the user-space-driven kernel object configuration filesystem");
