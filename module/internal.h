/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations of configfs-ng, one section per defining file.
 *
 * Lock order, outermost first:
 *
 *   1. VFS inode locks (i_rwsem), taken by the VFS around our inode
 *      operations. The module itself never takes an inode lock, except
 *      to drop and retake a directory's in symlink, as stock does.
 *   2. cng_subsys_mutex (node.c), the root group's su_mutex, then a
 *      subsystem's su_mutex. Client callbacks that stock runs under
 *      su_mutex (make_item, make_group, disconnect_notify, drop_item)
 *      run under it here too.
 *   3. cng_tree_mutex (node.c): the backing tree. Never held across a
 *      client callback, nor while waiting for active references.
 *
 * Active references (cng_node_get_active()) are not locks but removal
 * waits for them to drain: that wait happens with no lock of ours held,
 * and with no su_mutex held, since a client's show or store may take it.
 */
#ifndef _CNG_INTERNAL_H
#define _CNG_INTERNAL_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rhashtable-types.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "unshare.h"

struct config_group;
struct config_item;
struct configfs_subsystem;
struct module;

/*
 * Kinds of node. Attributes have no node. A cursor is no file: it marks
 * where a readdir stands among its directory's children (dir.c), and
 * every walk of the children passes over it.
 */
enum cng_node_type {
	CNG_NODE_ROOT,
	CNG_NODE_DIR,
	CNG_NODE_LINK,
	CNG_NODE_CURSOR,
};

/*
 * Life of a node, under cng_tree_mutex. NEW: linked but invisible while
 * mkdir or registration builds it. LIVE: visible, active references may
 * be taken. DROPPING: a remover owns it and has deactivated it. DEAD:
 * unlinked from the tree; only memory remains, for inodes that still
 * point at it.
 */
enum cng_node_state {
	CNG_STATE_NEW,
	CNG_STATE_LIVE,
	CNG_STATE_DROPPING,
	CNG_STATE_DEAD,
};

#define CNG_NODE_GROUP		BIT(0)	/* item is a config_group */
#define CNG_NODE_DEFAULT	BIT(1)	/* made by the kernel: rmdir is EPERM */
#define CNG_NODE_USER		BIT(2)	/* made by mkdir or symlink */

/*
 * The first active count: a node is born deactivated and becomes active
 * when it turns LIVE; removal adds the bias back, and waits for the count
 * to fall to exactly the bias.
 */
#define CNG_DEACTIVATED_BIAS	INT_MIN

/* Inode numbers: the node's id above, the attribute slot below. */
#define CNG_INO_SLOT_BITS	10
#define CNG_MAX_SLOT		((1U << CNG_INO_SLOT_BITS) - 1)

/**
 * struct cng_meta - what the user set on one file, kept across eviction
 * @next: next entry of the owning node's list
 * @slot: 0 for the node itself, else 1 + the attribute's index
 * @mode: full mode, file type included
 * @uid: owner
 * @gid: group
 * @atime: access time
 * @mtime: modification time
 * @ctime: change time
 *
 * Allocated on the first setattr of that file only; freed with the node.
 * Under cng_tree_mutex.
 */
struct cng_meta {
	struct cng_meta		*next;
	unsigned int		slot;
	umode_t			mode;
	kuid_t			uid;
	kgid_t			gid;
	struct timespec64	atime;
	struct timespec64	mtime;
	struct timespec64	ctime;
};

/**
 * struct cng_node_ext - the rarely used part of a node
 * @node: the node this extends
 * @meta: settings the user made, sparse; tree mutex
 * @incoming: symlinks pointing here, by their @in_link; tree mutex
 * @links: symlinks pointing here, counted until their drop_link is done;
 *	   tree mutex
 * @depend: configfs_depend_item() count; tree mutex
 * @target: a symlink's target directory (counted); constant
 * @in_link: a symlink's entry in its target's @incoming; tree mutex
 * @body: a symlink's text, as readlink returns it; constant
 *
 * Allocated under cng_tree_mutex the first time one of these is needed
 * (chmod or touch, a symlink to or from the node, a dependency), and
 * freed with the node. A symlink's is allocated with it.
 */
struct cng_node_ext {
	struct cng_node		*node;
	struct cng_meta		*meta;
	struct list_head	incoming;
	unsigned int		links;
	unsigned int		depend;
	struct cng_node		*target;
	struct list_head	in_link;
	char			*body;
};

/**
 * struct cng_node - a directory or a symlink of the backing tree
 *
 * Every directory has one, so it holds only what every directory needs:
 * what few nodes need is in @ext. Nodes come from their own slab cache.
 *
 * References (@ref): one held by the tree while the node is linked (from
 * link to unlink), one by each child (its @parent), one by each symlink
 * to it (its ext's @target), one by each inode built from it, and
 * short-lived ones by removers and waiters. The last put frees the node
 * after an RCU grace period; it never takes a lock, so it is safe from
 * reclaim.
 *
 * Active references (@active) are taken around every call into the
 * client for this node's item; removal drains them before the item is
 * dropped. See cng_node_get_active().
 *
 * @ref: reference count, see above
 * @active: active references, biased by CNG_DEACTIVATED_BIAS when off
 * @type: enum cng_node_type; constant
 * @state: enum cng_node_state; under cng_tree_mutex, read locklessly
 *	   with READ_ONCE() where a stale answer is harmless
 * @flags: CNG_NODE_*; constant
 * @own_name: @name is the node's own copy, freed with it; tree mutex
 * @nr_subdirs: child directories, for i_nlink; tree mutex
 * @nr_user: user-made children (directories and links); tree mutex
 * @id: inode number base, unique among nodes not yet freed; constant
 * @name_hash: hash of @name, for the name table; constant
 * @btime: creation time in seconds since the epoch, the default for every
 *	   time stamp; constant
 * @parent: the parent directory (counted); NULL for the root; constant
 * @sib: entry in @parent's @children, in order of creation; tree mutex
 * @children: child nodes, and the marks of readdir cursors (type
 *	      CNG_NODE_CURSOR) among them; tree mutex
 * @hnode: entry in the name table (node.c) while linked; tree mutex
 * @item: the directory's item; cleared when the item is dropped
 * @name: the name in the parent directory: the item's own ci_name when
 *	  it is the same string, else a copy (@own_name); read under the
 *	  tree mutex while the node is linked, the only time the item's
 *	  name is sure to exist. Constant, but config_item_set_name() on an
 *	  item in the tree first gives the node a copy
 *	  (cng_node_unshare_name())
 * @ext: the rarely used part, or NULL; set once, under the tree mutex
 * @rm_entry: entry in a remover's work list; owned by that remover,
 *	      which holds a reference meanwhile
 * @rcu: for freeing, after the last reference, so never with @rm_entry
 */
struct cng_node {
	refcount_t		ref;
	atomic_t		active;
	u8			type;
	u8			state;
	u8			flags;
	bool			own_name;
	u32			nr_subdirs;
	u32			nr_user;
	u32			id;
	u32			name_hash;
	u32			btime;
	struct cng_node		*parent;
	struct list_head	sib;
	struct list_head	children;
	struct rhash_head	hnode;
	struct config_item	*item;
	const char		*name;
	struct cng_node_ext	*ext;
	union {
		struct list_head	rm_entry;
		struct rcu_head		rcu;
	};
};

/* Inode number of a node's file: the node itself (slot 0) or an attribute. */
static inline unsigned long cng_node_ino(const struct cng_node *node,
					 unsigned int slot)
{
	return (unsigned long)node->id << CNG_INO_SLOT_BITS | slot;
}

static inline bool cng_node_is_cursor(const struct cng_node *node)
{
	return node->type == CNG_NODE_CURSOR;
}

static inline unsigned int cng_node_links(const struct cng_node *node)
{
	return node->ext ? node->ext->links : 0;
}

static inline unsigned int cng_node_depend(const struct cng_node *node)
{
	return node->ext ? node->ext->depend : 0;
}

/* Kinds of file an inode stands for. */
enum cng_file_kind {
	CNG_FILE_DIR,
	CNG_FILE_LINK,
	CNG_FILE_ATTR,
	CNG_FILE_BIN_ATTR,
};

/**
 * struct cng_inode - our inode
 * @vfs: the VFS inode
 * @node: the node (counted): the directory or symlink itself, or for an
 *	  attribute the directory of its item
 * @attr: an attribute's descriptor, a struct configfs_attribute or
 *	  struct configfs_bin_attribute; dereference only under an active
 *	  reference on @node, or with the attribute's module pinned
 * @kind: enum cng_file_kind
 * @slot: the slot of cng_meta for this file
 */
struct cng_inode {
	struct inode	vfs;
	struct cng_node	*node;
	const void	*attr;
	unsigned int	kind;
	unsigned int	slot;
};

static inline struct cng_inode *CNG_I(struct inode *inode)
{
	return container_of(inode, struct cng_inode, vfs);
}

/* node.c */
extern struct mutex cng_tree_mutex;
extern struct mutex cng_subsys_mutex;
extern struct cng_node cng_root_node;
extern struct config_group cng_root_group;

bool cng_is_root_item(const struct config_item *item);
struct cng_node *cng_node_alloc(const char *name, struct config_item *item,
				enum cng_node_type type, unsigned int flags);
struct cng_node *cng_node_get(struct cng_node *node);
void cng_node_put(struct cng_node *node);

/**
 * cng_node_get_active() - pin a node's item for a client call
 * @node: the node
 *
 * Context: any; does not sleep.
 * Return: true if @node is LIVE (or being dropped but not yet
 * deactivated); then cng_node_put_active() must follow.
 */
static inline bool cng_node_get_active(struct cng_node *node)
{
	return atomic_inc_unless_negative(&node->active);
}

void cng_node_put_active(struct cng_node *node);
void cng_node_activate_locked(struct cng_node *node);
void cng_node_deactivate_locked(struct cng_node *node);
void cng_node_drain(struct cng_node *node);
void cng_node_set_state_locked(struct cng_node *node,
			       enum cng_node_state state);
void cng_node_wait_state(struct cng_node *node, enum cng_node_state from);

extern unsigned long cng_dead_gen;

/**
 * cng_dead_gen_read() - how many times a node has turned DEAD, plus one
 *
 * Context: any; lockless.
 * Return: the generation; it changes after each node's state is DEAD.
 */
static inline unsigned long cng_dead_gen_read(void)
{
	/* Pairs with the release in cng_node_unlink_locked(). */
	return smp_load_acquire(&cng_dead_gen);
}

u32 cng_name_hash(const char *name, unsigned int len);
bool cng_node_absent(const struct cng_node *parent, u32 hash);
struct cng_node *cng_node_find_locked(struct cng_node *parent,
				      const char *name, u32 hash);
int cng_node_link_locked(struct cng_node *parent, struct cng_node *node);
void cng_node_unlink_locked(struct cng_node *node);
struct cng_node *cng_node_from_item_locked(const struct config_item *item);
struct cng_meta *cng_node_meta_locked(struct cng_node *node,
				      unsigned int slot);
struct cng_node_ext *cng_node_ext_locked(struct cng_node *node);
int cng_node_init(void);
void cng_node_exit(void);

/* inode.c */
struct inode *cng_inode_get(struct super_block *sb, struct cng_node *node,
			    unsigned int kind, unsigned int slot,
			    const void *attr);
struct inode *cng_inode_new(struct super_block *sb, struct cng_node *node);
int cng_inode_setattr(struct user_namespace *mnt_userns,
		      struct dentry *dentry, struct iattr *iattr);
int cng_inode_update_time(struct inode *inode, struct timespec64 *time,
			  int flags);
void cng_inode_evict(struct inode *inode);
struct inode *cng_inode_alloc(struct super_block *sb);
void cng_inode_free(struct inode *inode);
int cng_inode_init(void);
void cng_inode_exit(void);

/* dir.c */
extern const struct inode_operations cng_dir_inode_ops;
extern const struct inode_operations cng_root_inode_ops;
extern const struct file_operations cng_dir_file_ops;
extern const struct dentry_operations cng_dentry_ops;

void cng_link_group(struct config_group *parent_group,
		    struct config_group *group);
void cng_unlink_group(struct config_group *group);

/**
 * cng_attach() - build a group's or item's subtree and make it visible
 * @parent: the parent directory
 * @item: the item; its default groups get nodes too
 * @name: the name in @parent
 * @flags: CNG_NODE_DEFAULT or CNG_NODE_USER
 *
 * The subtree is built NEW and turned LIVE in one section of the tree
 * mutex, so a lookup sees all of it or nothing.
 *
 * Context: takes cng_tree_mutex; sleeps.
 * Return: the new node, LIVE, with a reference for the caller (a remover
 * of @parent may take the tree's at once), or an ERR_PTR(): -ENOENT if
 * @parent is going away, -EEXIST if a name is taken, -ENOMEM.
 */
struct cng_node *cng_attach(struct cng_node *parent,
			    struct config_item *item, const char *name,
			    unsigned int flags);

/**
 * cng_remove() - remove a node's subtree: deactivate, drain, unlink, tell
 * @node: the directory to remove
 * @force: false for rmdir, which may refuse; true for the kernel side,
 *	   which removes whatever is below @node, user items and links
 *	   included, and never fails
 *
 * The one removal path of the module: rmdir and unregistration share it.
 * Every node of the subtree is deactivated, its active references are
 * drained with no lock held, then symlinks are unlinked (drop_link), then
 * directories bottom up; a user-made directory gets disconnect_notify and
 * drop_item under its subsystem's su_mutex. A kernel-made top is left to
 * the caller to unlink from the item hierarchy.
 *
 * Context: process; sleeps. No lock of ours or su_mutex held.
 * Return: 0, or (rmdir only) -EBUSY, -ENOTEMPTY or -ENOENT.
 */
int cng_remove(struct cng_node *node, bool force);

/* file.c */
extern const struct file_operations cng_attr_file_ops;
extern const struct file_operations cng_bin_attr_file_ops;

/* symlink.c */
extern const struct inode_operations cng_link_inode_ops;

int cng_symlink(struct user_namespace *mnt_userns, struct inode *dir,
		struct dentry *dentry, const char *symname);
int cng_unlink(struct inode *dir, struct dentry *dentry);
void cng_link_drop(struct cng_node *link);

/* mount.c */
int cng_mount_init(void);
void cng_mount_exit(void);

#endif /* _CNG_INTERNAL_H */
