// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs file system type, its superblock and its mount point under
 * /sys/kernel/config.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "internal.h"

/* The statfs f_type user space knows configfs by; the same as stock. */
#define CNG_MAGIC	0x62656570

static const struct super_operations cng_sb_ops = {
	.statfs		= simple_statfs,
	.drop_inode	= generic_delete_inode,
};

static int cng_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *inode;

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = CNG_MAGIC;
	sb->s_op = &cng_sb_ops;
	sb->s_time_gran = 1;

	inode = new_inode(sb);
	if (!inode)
		return -ENOMEM;
	inode->i_ino = 1;
	inode->i_mode = S_IFDIR | 0755;
	inode->i_mtime = current_time(inode);
	inode->i_atime = inode->i_mtime;
	inode->i_ctime = inode->i_mtime;
	inode->i_op = &simple_dir_inode_operations;
	inode->i_fop = &simple_dir_operations;
	set_nlink(inode, 2);

	sb->s_root = d_make_root(inode);
	return sb->s_root ? 0 : -ENOMEM;
}

static int cng_get_tree(struct fs_context *fc)
{
	return get_tree_single(fc, cng_fill_super);
}

static const struct fs_context_operations cng_context_ops = {
	.get_tree	= cng_get_tree,
};

static int cng_init_fs_context(struct fs_context *fc)
{
	fc->ops = &cng_context_ops;
	return 0;
}

static struct file_system_type cng_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "configfs",
	.init_fs_context	= cng_init_fs_context,
	.kill_sb		= kill_litter_super,
};
MODULE_ALIAS_FS("configfs");

int cng_mount_init(void)
{
	int ret;

	ret = sysfs_create_mount_point(kernel_kobj, "config");
	if (ret)
		return ret;
	ret = register_filesystem(&cng_fs_type);
	if (ret)
		goto err_remove_mount_point;
	return 0;

err_remove_mount_point:
	sysfs_remove_mount_point(kernel_kobj, "config");
	return ret;
}

void cng_mount_exit(void)
{
	unregister_filesystem(&cng_fs_type);
	sysfs_remove_mount_point(kernel_kobj, "config");
}
