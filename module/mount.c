// SPDX-License-Identifier: GPL-2.0
/*
 * The configfs file system type, its superblock and its mount point under
 * /sys/kernel/config. Nothing pins the superblock: the backing tree lives
 * in the module, and a new mount builds its dentries and inodes afresh.
 * There is at most one superblock (get_tree_single()); removal finds it
 * here to tell cached inodes and dentries that their node is gone.
 */
#include <linux/fs.h>
#include <linux/fs_context.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/sysfs.h>

#include "internal.h"

/* The statfs f_type user space knows configfs by; the same as stock. */
#define CNG_MAGIC	0x62656570

/*
 * Protects cng_sb, the superblock while it is mounted (set at the end of
 * fill_super, cleared as kill_sb starts), and cng_sb_unmounted_holds,
 * the holders that found nothing mounted: until they are done, a new
 * superblock waits in fill_super (on cng_sb_wq) before it is published,
 * so no mount lets a VFS operation start. Not held across anything else;
 * taken under s_umount by fill_super and kill_sb, so never held while a
 * superblock is deactivated.
 */
static DEFINE_MUTEX(cng_sb_mutex);
static struct super_block *cng_sb;
static unsigned int cng_sb_unmounted_holds;
static DECLARE_WAIT_QUEUE_HEAD(cng_sb_wq);

struct super_block *cng_sb_hold(void)
{
	struct super_block *sb;

	mutex_lock(&cng_sb_mutex);
	sb = cng_sb;
	/* A superblock being killed has no mount left: none, then. */
	if (sb && !atomic_inc_not_zero(&sb->s_active))
		sb = NULL;
	if (!sb)
		cng_sb_unmounted_holds++;
	mutex_unlock(&cng_sb_mutex);
	return sb;
}

/**
 * cng_sb_release() - undo cng_sb_hold()
 * @sb: what cng_sb_hold() returned
 *
 * Context: process; sleeps; may end the superblock if its last mount
 * went meanwhile.
 */
void cng_sb_release(struct super_block *sb)
{
	if (sb) {
		deactivate_super(sb);
		return;
	}
	mutex_lock(&cng_sb_mutex);
	if (!--cng_sb_unmounted_holds)
		wake_up_all(&cng_sb_wq);
	mutex_unlock(&cng_sb_mutex);
}

/* A node's inode is worth caching only while the node is in the tree. */
static int cng_sb_drop_inode(struct inode *inode)
{
	struct cng_node *node = CNG_I(inode)->node;

	if (node && cng_node_gone(node))
		return 1;
	return generic_drop_inode(inode);
}

static const struct super_operations cng_sb_ops = {
	.statfs		= simple_statfs,
	.alloc_inode	= cng_inode_alloc,
	.free_inode	= cng_inode_free,
	.drop_inode	= cng_sb_drop_inode,
	.evict_inode	= cng_inode_evict,
};

static int cng_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct inode *inode;

	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	sb->s_magic = CNG_MAGIC;
	sb->s_op = &cng_sb_ops;
	sb->s_xattr = cng_xattr_handlers;
	sb->s_time_gran = 1;

	inode = cng_inode_get(sb, &cng_root_node, CNG_FILE_DIR, 0, NULL);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	sb->s_root = d_make_root(inode);
	if (!sb->s_root)
		return -ENOMEM;
	mutex_lock(&cng_sb_mutex);
	while (cng_sb_unmounted_holds) {
		mutex_unlock(&cng_sb_mutex);
		wait_event(cng_sb_wq, !READ_ONCE(cng_sb_unmounted_holds));
		mutex_lock(&cng_sb_mutex);
	}
	cng_sb = sb;
	mutex_unlock(&cng_sb_mutex);
	return 0;
}

static void cng_kill_sb(struct super_block *sb)
{
	mutex_lock(&cng_sb_mutex);
	if (cng_sb == sb)
		cng_sb = NULL;
	mutex_unlock(&cng_sb_mutex);
	kill_anon_super(sb);
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
	.kill_sb		= cng_kill_sb,
	/* A commit moves its dentry with its node, in one step (commit.c). */
	.fs_flags		= FS_RENAME_DOES_D_MOVE,
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
