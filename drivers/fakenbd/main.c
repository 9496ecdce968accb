// SPDX-License-Identifier: GPL-2.0
/*
 * fakenbd: the 2005 configfs article's example network block device, made
 * real. Module init and exit only.
 */

#include <linux/module.h>

#include "internal.h"

static int __init fakenbd_init(void)
{
	int ret;

	ret = fakenbd_dev_init();
	if (ret)
		return ret;
	ret = fakenbd_configfs_init();
	if (ret)
		goto err_dev_exit;
	return 0;

err_dev_exit:
	fakenbd_dev_exit();
	return ret;
}

static void __exit fakenbd_exit(void)
{
	fakenbd_configfs_exit();
	fakenbd_dev_exit();
}

module_init(fakenbd_init);
module_exit(fakenbd_exit);
MODULE_DESCRIPTION("NBD client block device, configured through configfs");
MODULE_LICENSE("GPL");
