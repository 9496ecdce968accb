/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What an older kernel than 6.12 lacks, and nothing else. The module is
 * written against 6.12; this header gives Debian 12's 6.1 line the names
 * 6.12 has, from the CNG_HAVE_* features Kbuild finds in the target's
 * headers. Where a back-fill cannot do (a callback's signature changed),
 * the file itself holds both forms under #ifdef CNG_HAVE_*. The in-tree
 * form (scripts/intree.sh) drops this header and resolves those #ifdefs
 * for 6.12 with unifdef. No kernel version is tested anywhere. Included
 * by internal.h only: item.c and subsys.c keep stock's include lists for
 * their modversion CRCs.
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
#ifndef CNG_HAVE_FILLATTR_MASK
#define generic_fillattr(idmap, request_mask, inode, stat) \
	generic_fillattr(idmap, inode, stat)
#endif

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

#endif /* _CNG_COMPAT_H */
