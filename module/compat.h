/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernels the module builds for (Debian 12's
 * 6.1 and 6.12 lines), and nothing else. The module is written against
 * 6.12's names; this header gives an older kernel what it lacks, from the
 * CNG_HAVE_* features Kbuild finds in the target's headers. No kernel
 * version is tested anywhere. Included by internal.h only: item.c and
 * subsys.c keep stock's include lists for their modversion CRCs.
 */
#ifndef _CNG_COMPAT_H
#define _CNG_COMPAT_H

#include <linux/configfs.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/time64.h>
#include <linux/types.h>

/* 6.3: inode operations take the mount's idmap, not its user namespace. */
#ifdef CNG_HAVE_MNT_IDMAP
#include <linux/mnt_idmapping.h>
#else
#define mnt_idmap	user_namespace
#define nop_mnt_idmap	init_user_ns
#endif

/* 6.6: generic_fillattr() is told what the caller asked for. */
static inline void cng_generic_fillattr(struct mnt_idmap *idmap,
					u32 request_mask, struct inode *inode,
					struct kstat *stat)
{
#ifdef CNG_HAVE_FILLATTR_MASK
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/*
 * 6.6 and 6.7: an inode's times are reached only through accessors. The
 * ctime ones came first, and Debian's 6.1 has those.
 */
#ifndef CNG_HAVE_INODE_CTIME_ACCESSORS
static inline struct timespec64 inode_get_ctime(const struct inode *inode)
{
	return inode->i_ctime;
}

static inline struct timespec64 inode_set_ctime_to_ts(struct inode *inode,
						      struct timespec64 ts)
{
	inode->i_ctime = ts;
	return ts;
}
#endif /* !CNG_HAVE_INODE_CTIME_ACCESSORS */

#ifndef CNG_HAVE_INODE_TIME_ACCESSORS
static inline struct timespec64 inode_get_atime(const struct inode *inode)
{
	return inode->i_atime;
}

static inline struct timespec64 inode_get_mtime(const struct inode *inode)
{
	return inode->i_mtime;
}

static inline struct timespec64 inode_set_atime_to_ts(struct inode *inode,
						      struct timespec64 ts)
{
	inode->i_atime = ts;
	return ts;
}

static inline struct timespec64 inode_set_mtime_to_ts(struct inode *inode,
						      struct timespec64 ts)
{
	inode->i_mtime = ts;
	return ts;
}
#endif /* !CNG_HAVE_INODE_TIME_ACCESSORS */

/*
 * cng_inode_update_time() - update_time of every inode of ours: set the
 * times in memory and do not dirty the inode. The default marks it
 * dirty, and a dirty inode is never reclaimed on a file system with no
 * writeback: a directory once listed would stay in memory for good.
 * Before 6.6 the VFS passed the time to set; since, the callee takes it.
 */
#ifdef CNG_HAVE_UPDATE_TIMESTAMPS
static inline int cng_inode_update_time(struct inode *inode, int flags)
{
	inode_update_timestamps(inode, flags);
	return 0;
}
#else
static inline int cng_inode_update_time(struct inode *inode,
					struct timespec64 *time, int flags)
{
	if (flags & S_ATIME)
		inode->i_atime = *time;
	if (flags & S_MTIME)
		inode->i_mtime = *time;
	if (flags & S_CTIME)
		inode_set_ctime_to_ts(inode, *time);
	return 0;
}
#endif /* CNG_HAVE_UPDATE_TIMESTAMPS */

/*
 * 6.12: a group type may hide attributes of an item when its directory is
 * made (visible.c). Before, every attribute is shown.
 */
#ifdef CNG_HAVE_IS_VISIBLE
static inline bool cng_type_may_hide(const struct config_item_type *type)
{
	const struct configfs_group_operations *ops = type->ct_group_ops;

	return ops && (ops->is_visible || ops->is_bin_visible);
}

static inline bool cng_attr_is_visible(struct config_item *item,
				       struct configfs_attribute *attr, int n)
{
	const struct configfs_group_operations *ops =
		item->ci_type->ct_group_ops;

	return !ops->is_visible || ops->is_visible(item, attr, n);
}

static inline bool
cng_bin_attr_is_visible(struct config_item *item,
			struct configfs_bin_attribute *attr, int n)
{
	const struct configfs_group_operations *ops =
		item->ci_type->ct_group_ops;

	return !ops->is_bin_visible || ops->is_bin_visible(item, attr, n);
}
#else
static inline bool cng_type_may_hide(const struct config_item_type *type)
{
	return false;
}

static inline bool cng_attr_is_visible(struct config_item *item,
				       struct configfs_attribute *attr, int n)
{
	return true;
}

static inline bool
cng_bin_attr_is_visible(struct config_item *item,
			struct configfs_bin_attribute *attr, int n)
{
	return true;
}
#endif /* CNG_HAVE_IS_VISIBLE */

/* 6.9 (about): a no-op flag that was dropped. */
#ifndef SLAB_MEM_SPREAD
#define SLAB_MEM_SPREAD	0
#endif

#endif /* _CNG_COMPAT_H */
