// SPDX-License-Identifier: GPL-2.0
/*
 * Inodes: built from a node on lookup, reclaimable, and numbered stably.
 *
 * An inode's mode, owner and times come from the node's saved settings
 * (struct cng_meta) when the user changed them, else from defaults; a
 * setattr writes them back, so they survive eviction and remounts.
 */
#include <linux/configfs.h>
#include <linux/dcache.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/pagemap.h>
#include <linux/slab.h>

#include "internal.h"

static struct kmem_cache *cng_inode_cache;

static const struct inode_operations cng_attr_inode_ops = {
	.setattr	= cng_inode_setattr,
	.getattr	= cng_inode_getattr,
	.update_time	= cng_inode_update_time,
};

static umode_t cng_inode_default_mode(unsigned int kind, const void *attr)
{
	const struct configfs_attribute *ca = attr;
	const struct configfs_bin_attribute *cb = attr;

	switch (kind) {
	case CNG_FILE_LINK:
		return S_IFLNK | 0777;
	case CNG_FILE_ATTR:
		return S_IFREG | (ca->ca_mode & S_IALLUGO);
	case CNG_FILE_BIN_ATTR:
		return S_IFREG | (cb->cb_attr.ca_mode & S_IALLUGO);
	default:
		return S_IFDIR | 0755;
	}
}

/* Mode and times of a file nobody has changed. */
static void cng_inode_set_defaults(struct inode *inode, struct cng_node *node,
				   unsigned int kind, const void *attr)
{
	struct timespec64 btime = { .tv_sec = node->btime };

	inode->i_mode = cng_inode_default_mode(kind, attr);
	inode_set_atime_to_ts(inode, btime);
	inode_set_mtime_to_ts(inode, btime);
	inode_set_ctime_to_ts(inode, btime);
}

/**
 * cng_inode_nlink_locked() - a directory inode's link count, from its node
 * @inode: the inode of a directory or of the root
 *
 * Two, and one more for each subdirectory; none once the directory is
 * gone. The count lives in the inode so that stat() reads no node (a
 * page of its own, for every directory stat'ed): each change of either
 * is followed by this call on the inode, if it is cached. Every writer
 * holds the tree mutex and writes what the node says then, so the last
 * one leaves the current count.
 *
 * Context: cng_tree_mutex held.
 */
void cng_inode_nlink_locked(struct inode *inode)
{
	struct cng_node *node = CNG_I(inode)->node;

	lockdep_assert_held(&cng_tree_mutex);
	if (cng_node_gone(node))
		clear_nlink(inode);
	else
		set_nlink(inode, 2 + node->nr_subdirs);
}

/**
 * cng_inode_nlink_update() - cng_inode_nlink_locked() on one or two inodes
 * @inode: a directory's inode
 * @other: another, or NULL
 *
 * Context: process; takes cng_tree_mutex.
 */
void cng_inode_nlink_update(struct inode *inode, struct inode *other)
{
	mutex_lock(&cng_tree_mutex);
	cng_inode_nlink_locked(inode);
	if (other)
		cng_inode_nlink_locked(other);
	mutex_unlock(&cng_tree_mutex);
}

/* The cached inode of a directory node, counted, or NULL. */
static struct inode *cng_dir_inode_find(struct super_block *sb,
					struct cng_node *dir)
{
	return ilookup(sb, dir->type == CNG_NODE_ROOT ? 1 :
		       cng_node_ino(dir, 0));
}

/* Mode, owner and times saved in the node, or the defaults. */
static void cng_inode_set_saved(struct inode *inode, struct cng_node *node,
				unsigned int kind, unsigned int slot,
				const void *attr)
{
	struct cng_meta *meta;

	mutex_lock(&cng_tree_mutex);
	meta = cng_node_meta_locked(node, slot);
	if (meta) {
		inode->i_mode = meta->mode;
		inode->i_uid = meta->uid;
		inode->i_gid = meta->gid;
		inode_set_atime_to_ts(inode, meta->atime);
		inode_set_mtime_to_ts(inode, meta->mtime);
		inode_set_ctime_to_ts(inode, meta->ctime);
	} else {
		cng_inode_set_defaults(inode, node, kind, attr);
	}
	if (kind == CNG_FILE_DIR)
		cng_inode_nlink_locked(inode);
	mutex_unlock(&cng_tree_mutex);
}

/* Everything of a new inode but its mode, owner and times. */
static void cng_inode_fill(struct inode *inode, struct cng_node *node,
			   unsigned int kind, unsigned int slot,
			   const void *attr)
{
	struct cng_inode *ci = CNG_I(inode);

	ci->node = cng_node_get(node);
	ci->attr = attr;
	ci->kind = kind;
	ci->slot = slot;
	atomic_set(&ci->event, 0);
	inode->i_mapping->a_ops = &ram_aops;

	switch (kind) {
	case CNG_FILE_DIR:
		if (node->type == CNG_NODE_ROOT)
			inode->i_op = &cng_root_inode_ops;
		else
			inode->i_op = &cng_dir_inode_ops;
		inode->i_fop = &cng_dir_file_ops;
		set_nlink(inode, 2);
		break;
	case CNG_FILE_LINK:
		inode->i_op = &cng_link_inode_ops;
		break;
	case CNG_FILE_ATTR:
		inode->i_op = &cng_attr_inode_ops;
		inode->i_fop = &cng_attr_file_ops;
		inode->i_size = PAGE_SIZE;
		break;
	case CNG_FILE_BIN_ATTR:
		inode->i_op = &cng_attr_inode_ops;
		inode->i_fop = &cng_bin_attr_file_ops;
		inode->i_size = 0;
		break;
	}
}

/**
 * cng_inode_get() - the inode of a node or of one of its attributes
 * @sb: the superblock
 * @node: the directory or symlink, or the attribute's directory
 * @kind: enum cng_file_kind
 * @slot: 0, or the attribute's slot
 * @attr: the attribute's descriptor, or NULL
 *
 * The inode number is @node's id shifted, plus @slot, so a file keeps its
 * number across eviction for as long as its node lives.
 *
 * Context: process; sleeps; takes cng_tree_mutex.
 * Return: a referenced inode, or ERR_PTR(-ENOMEM).
 */
struct inode *cng_inode_get(struct super_block *sb, struct cng_node *node,
			    unsigned int kind, unsigned int slot,
			    const void *attr)
{
	unsigned long ino;
	struct inode *inode;

	if (node->type == CNG_NODE_ROOT)
		ino = 1;
	else
		ino = cng_node_ino(node, slot);
	inode = iget_locked(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	if (inode->i_state & I_NEW) {
		cng_inode_fill(inode, node, kind, slot, attr);
		cng_inode_set_saved(inode, node, kind, slot, attr);
		unlock_new_inode(inode);
	}
	return inode;
}

/**
 * cng_inode_new() - an inode for the directory mkdir is about to make
 * @sb: the superblock
 *
 * Allocated before the client is asked, so that mkdir has nothing to
 * undo if it cannot be. If mkdir fails, iput() frees it.
 *
 * Context: process; sleeps.
 * Return: an inode of no node yet, or NULL.
 */
struct inode *cng_inode_new(struct super_block *sb)
{
	return new_inode(sb);
}

/**
 * cng_inode_bind_new() - make an inode from cng_inode_new() @node's
 * @inode: the inode
 * @node: the directory mkdir has just made
 *
 * No inode of @node can exist yet, nor be asked for meanwhile: the caller
 * holds the parent directory's i_rwsem, so no lookup can reach the name.
 * The inode is therefore made without the search of iget_locked() and
 * hashed for later lookups. An inode of an older node that had the same
 * id may still be in the hash while it is being evicted; the search of
 * iget_locked() waits for such an inode and skips it.
 *
 * Context: process.
 */
void cng_inode_bind_new(struct inode *inode, struct cng_node *node)
{
	inode->i_ino = cng_node_ino(node, 0);
	cng_inode_fill(inode, node, CNG_FILE_DIR, 0, NULL);
	/* Nobody can have named it yet, so nothing is saved for it. */
	cng_inode_set_defaults(inode, node, CNG_FILE_DIR, NULL);
	insert_inode_hash(inode);
}

/**
 * cng_inode_forget() - tell a gone node's cached inode and dentries
 * @sb: the superblock
 * @node: a node just turned DEAD
 * @notify: tell watchers of its parent directory that it was deleted
 *	    (the VFS does so for rmdir and unlink themselves)
 *
 * As stock does for what it removes: a directory's inode is S_DEAD (no
 * lookup or creation in it, and getcwd() calls it deleted), and its
 * dentries, and a link's, leave the dcache and may no longer be mounted
 * on; the unused dentries of a directory's attributes go too, so that
 * the directory's dentry dies now and its watchers hear IN_DELETE_SELF.
 * Nodes whose inode is not cached have nothing to tell. Attribute inodes
 * report no link from getattr once their item is gone. A directory's
 * parent, if cached, counts one link less.
 *
 * Context: process; sleeps; no lock of ours held. @sb is held active.
 */
void cng_inode_forget(struct super_block *sb, struct cng_node *node,
		      bool notify)
{
	bool is_dir = node->type == CNG_NODE_DIR;
	struct inode *inode, *dir = NULL;
	struct dentry *dentry;

	/* Pollers of its files see it gone. */
	if (is_dir)
		cng_poll_wake(node);
	inode = ilookup(sb, cng_node_ino(node, 0));
	if (inode) {
		if (is_dir)
			inode_set_flags(inode, S_DEAD, S_DEAD);
		clear_nlink(inode);
		/* Hashed aliases first; a directory has one alias at most. */
		dentry = d_find_alias(inode);
		while (dentry) {
			dont_mount(dentry);
			d_drop(dentry);
			/*
			 * Its attributes' dentries would keep it, and so its
			 * watchers' IN_DELETE_SELF, until reclaim: as rmdir
			 * does, let go of those nobody holds.
			 */
			if (is_dir)
				shrink_dcache_parent(dentry);
			dput(dentry);
			dentry = is_dir ? NULL : d_find_alias(inode);
		}
	}
	if (notify || is_dir)
		dir = cng_dir_inode_find(sb, node->parent);
	if (dir && is_dir)
		cng_inode_nlink_update(dir, NULL);
	if (!notify) {
		iput(dir);
		dir = NULL;
	}
	/* An event names the inode that went: build it if it was not cached. */
	if (dir && !inode) {
		inode = cng_inode_get(sb, node, is_dir ? CNG_FILE_DIR :
				      CNG_FILE_LINK, 0, NULL);
		if (IS_ERR(inode))
			inode = NULL;
	}
	if (dir && inode) {
		/* A group's name outlives its unregistration; a link's is its own. */
		struct qstr name = QSTR_INIT(node->name, strlen(node->name));

		fsnotify_name(FS_DELETE | (is_dir ? FS_ISDIR : 0), inode,
			      FSNOTIFY_EVENT_INODE, dir, &name, 0);
	}
	iput(dir);
	iput(inode);
}

/**
 * cng_inode_created() - tell watchers of a directory the kernel made
 * @node: a directory just registered, LIVE, counted by the caller
 *
 * The VFS tells watchers of what mkdir makes; a group or subsystem the
 * kernel registers gets the same IN_CREATE in its parent directory,
 * whose inode, if cached, counts one link more.
 *
 * Context: process; sleeps; no lock of ours held.
 */
void cng_inode_created(struct cng_node *node)
{
	struct super_block *sb = cng_sb_hold();
	struct inode *dir = NULL, *inode;
	const char *copy = NULL;
	struct qstr name;

	if (sb)
		dir = cng_dir_inode_find(sb, node->parent);
	if (dir) {
		mutex_lock(&cng_tree_mutex);
		cng_inode_nlink_locked(dir);
		if (cng_node_visible(node))
			copy = kstrdup(node->name, GFP_KERNEL);
		mutex_unlock(&cng_tree_mutex);
	}
	if (copy) {
		inode = cng_inode_get(sb, node, CNG_FILE_DIR, 0, NULL);
		if (!IS_ERR(inode)) {
			name = (struct qstr)QSTR_INIT(copy, strlen(copy));
			fsnotify_name(FS_CREATE | FS_ISDIR, inode,
				      FSNOTIFY_EVENT_INODE, dir, &name, 0);
			iput(inode);
		}
		kfree(copy);
	}
	iput(dir);
	cng_sb_release(sb);
}

/**
 * cng_inode_setattr() - chmod, chown, utimes and truncate on any file
 * @idmap: the mount's id mapping
 * @dentry: the file
 * @iattr: what to change
 *
 * Applies the change to the inode and saves mode, owner and times in the
 * node, so they outlive the inode. A size change (a shell's O_TRUNC) is
 * accepted and ignored: stock builds a fresh attribute inode on every
 * lookup, so its size never shows there either.
 *
 * Context: the inode's lock held by the VFS; sleeps.
 * Return: 0 or -errno.
 */
int cng_inode_setattr(struct mnt_idmap *idmap,
		      struct dentry *dentry, struct iattr *iattr)
{
	struct inode *inode = d_inode(dentry);
	struct cng_inode *ci = CNG_I(inode);
	struct cng_meta *meta, *fresh;
	struct cng_node_ext *ext;
	int ret;

	ret = setattr_prepare(idmap, dentry, iattr);
	if (ret)
		return ret;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;

	mutex_lock(&cng_tree_mutex);
	meta = cng_node_meta_locked(ci->node, ci->slot);
	if (!meta) {
		/* Before the inode changes: nothing to undo if this fails. */
		ext = cng_node_ext_locked(ci->node, GFP_KERNEL);
		if (!ext) {
			mutex_unlock(&cng_tree_mutex);
			kfree(fresh);
			return -ENOMEM;
		}
		meta = fresh;
		fresh = NULL;
		meta->slot = ci->slot;
		meta->next = ext->meta;
		ext->meta = meta;
	}
	setattr_copy(idmap, inode, iattr);
	meta->mode = inode->i_mode;
	meta->uid = inode->i_uid;
	meta->gid = inode->i_gid;
	meta->atime = inode_get_atime(inode);
	meta->mtime = inode_get_mtime(inode);
	meta->ctime = inode_get_ctime(inode);
	mutex_unlock(&cng_tree_mutex);

	kfree(fresh);
	return 0;
}

/**
 * cng_inode_update_time() - update_time of every inode of ours
 * @inode: the inode
 * @flags: S_ATIME, S_MTIME, S_CTIME: which times to set
 *
 * Sets the times in memory and does not dirty the inode. The default
 * marks it dirty, and a dirty inode is never reclaimed on a file system
 * with no writeback: a directory once listed would stay in memory for
 * good. Before 6.6 the VFS passed the time to set (@time); since, the
 * callee takes the current time.
 *
 * Context: process.
 * Return: 0.
 */
#ifdef CNG_HAVE_UPDATE_TIMESTAMPS
int cng_inode_update_time(struct inode *inode, int flags)
{
	inode_update_timestamps(inode, flags);
	return 0;
}
#else
int cng_inode_update_time(struct inode *inode, struct timespec64 *time,
			  int flags)
{
	if (flags & S_ATIME)
		inode_set_atime_to_ts(inode, *time);
	if (flags & S_MTIME)
		inode_set_mtime_to_ts(inode, *time);
	if (flags & S_CTIME)
		inode_set_ctime_to_ts(inode, *time);
	return 0;
}
#endif

/**
 * cng_inode_getattr() - stat of an attribute or a link
 * @idmap: the mount's id mapping
 * @path: the file
 * @stat: filled in
 * @request_mask: what is asked
 * @query_flags: AT_STATX_* flags
 *
 * A file of an item that is gone has no link left, as in stock.
 *
 * Context: process.
 * Return: 0.
 */
int cng_inode_getattr(struct mnt_idmap *idmap,
		      const struct path *path, struct kstat *stat,
		      u32 request_mask, unsigned int query_flags)
{
	struct inode *inode = d_inode(path->dentry);

	generic_fillattr(idmap, request_mask, inode, stat);
	if (cng_node_gone(CNG_I(inode)->node))
		stat->nlink = 0;
	return 0;
}

void cng_inode_evict(struct inode *inode)
{
	struct cng_inode *ci = CNG_I(inode);

	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
	if (ci->node)
		cng_node_put(ci->node);
	ci->node = NULL;
}

struct inode *cng_inode_alloc(struct super_block *sb)
{
	struct cng_inode *ci;

	ci = alloc_inode_sb(sb, cng_inode_cache, GFP_KERNEL);
	if (!ci)
		return NULL;
	ci->node = NULL;
	ci->attr = NULL;
	ci->kind = CNG_FILE_DIR;
	ci->slot = 0;
	return &ci->vfs;
}

void cng_inode_free(struct inode *inode)
{
	kmem_cache_free(cng_inode_cache, CNG_I(inode));
}

static void cng_inode_once(void *p)
{
	struct cng_inode *ci = p;

	inode_init_once(&ci->vfs);
	init_waitqueue_head(&ci->poll_wq);
}

int cng_inode_init(void)
{
	cng_inode_cache = kmem_cache_create("cng_inode_cache",
					    sizeof(struct cng_inode), 0,
					    SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					    cng_inode_once);
	return cng_inode_cache ? 0 : -ENOMEM;
}

void cng_inode_exit(void)
{
	/* free_inode callbacks run after an RCU grace period. */
	rcu_barrier();
	kmem_cache_destroy(cng_inode_cache);
}
