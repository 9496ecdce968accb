/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations of configfs-ng, one section per defining file.
 *
 * Lock order, outermost first:
 *
 *   1. VFS inode locks (i_rwsem), taken by the VFS around our inode
 *      operations. The module takes one itself: a kernel-side removal
 *      locks a link's directory around its drop_link, as unlink(2) and
 *      symlink(2) have it locked around drop_link and allow_link. And
 *      symlink drops and retakes its directory's, as stock does.
 *   2. cng_subsys_mutex (node.c), the root group's su_mutex, or one
 *      subsystem's su_mutex: never two of them. Client callbacks that
 *      stock runs under su_mutex (make_item, make_group,
 *      disconnect_notify, drop_item) run under it here too.
 *   3. cng_tree_mutex (node.c): the backing tree. Never held across a
 *      client callback, nor while waiting for active references.
 *
 * cng_sb_mutex (mount.c) nests in none of these and is held across no
 * other lock.
 *
 * Active references (cng_node_get_active()) are not locks, but removal
 * waits for them to drain, so lockdep sees them as a read lock per node
 * and each drain, and each wait for another remover's node, as taking
 * it for write (remove.c). A drain happens with no lock of ours held and
 * no su_mutex, since a client's show or store may take it.
 */
#ifndef _CNG_INTERNAL_H
#define _CNG_INTERNAL_H

#include <linux/atomic.h>
#include <linux/fs.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>

#include "compat.h"
#include "unshare.h"

#ifndef CNG_INTREE
/*
 * CNG_INTREE_NO_ERRORS, CNG_INTREE_NO_NOTIFY and CNG_INTREE_NO_COMMIT:
 * nothing that builds this module defines them. scripts/intree.sh does,
 * with unifdef, to cut the kernel patch series (docs/upstream.md): its
 * first patch is configfs without the three extensions, and each of the
 * next three adds one. The stubs under them are what that first patch
 * calls in place of report.c, notify.c and commit.c. CNG_INTREE, defined
 * there too, cuts this comment.
 */
#endif

struct cng_capture;
struct cng_error;
struct cng_hidden;
struct config_group;
struct config_item;
struct configfs_subsystem;
struct module;

/* Kinds of node. Attributes have no node. */
enum cng_node_type {
	CNG_NODE_ROOT,
	CNG_NODE_DIR,
	CNG_NODE_LINK,
};

/*
 * Life of a node, under cng_tree_mutex (remove.c tells who moves it):
 *
 * NEW: being built, in the tree but invisible; its builder owns it.
 * LIVE: visible; active references may be taken.
 * DROPPING: deactivated by a kernel-side removal, still visible, owned
 *	by nobody yet: the first remover to reach it claims it.
 * REMOVING: claimed by one remover, still visible; deactivated. Its
 *	remover drains it, then unlinks it.
 * UNLINKED: out of the name table, invisible; still in its parent's
 *	children (and a link in its target's incoming links), so neither
 *	can be removed before it, while its remover tells the client.
 * DEAD: out of the tree; only memory remains, for inodes that still
 *	point at it.
 *
 * Waiting for another remover's node is waiting for it to be DEAD.
 */
enum cng_node_state {
	CNG_STATE_NEW,
	CNG_STATE_LIVE,
	CNG_STATE_DROPPING,
	CNG_STATE_REMOVING,
	CNG_STATE_UNLINKED,
	CNG_STATE_DEAD,
};

#define CNG_NODE_GROUP		BIT(0)	/* item is a config_group */
#define CNG_NODE_DEFAULT	BIT(1)	/* made by the kernel: rmdir is EPERM */
#define CNG_NODE_USER		BIT(2)	/* made by mkdir or symlink */
/*
 * A kernel-side removal wants the node gone: an rmdir that gives up
 * leaves it DROPPING rather than LIVE. The only flag that changes, once,
 * under cng_tree_mutex.
 */
#define CNG_NODE_DOOMED		BIT(3)
/*
 * pending/ or live/ of a committable group (commit.c): made by configfs,
 * with the group's item (whose directory is the parent, not this one),
 * no attributes, and a namespace shared by the two (names.c).
 */
#define CNG_NODE_STAGE		BIT(4)
#define CNG_NODE_STAGE_LIVE	BIT(5)	/* live/, with CNG_NODE_STAGE */
#define CNG_NODE_COMMITTABLE	BIT(6)	/* has pending/ and live/ */

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
 * @links: symlinks pointing here, counted until their drop_link is done
 *	   (and listed in @incoming until then); tree mutex
 * @depend: configfs_depend_item() count; tree mutex
 * @target: a symlink's target directory (counted); constant
 * @in_link: a symlink's entry in its target's @incoming; tree mutex
 * @error: the last failure on the item (report.c); replaced with xchg(),
 *	   read under RCU
 * @hidden: the attributes the item hides (visible.c), or NULL; set while
 *	    the node is NEW, then constant: read without the tree mutex
 *	    under an active reference, as @node's item is
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
	struct cng_error __rcu	*error;
	struct cng_hidden	*hidden;
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
 * dropped. See cng_node_get_active(). @dep_map tells lockdep about them.
 *
 * @ref: reference count, see above
 * @active: active references, biased by CNG_DEACTIVATED_BIAS when off
 * @type: enum cng_node_type; constant
 * @state: enum cng_node_state; under cng_tree_mutex, read locklessly
 *	   with READ_ONCE() where a stale answer is harmless
 * @flags: CNG_NODE_*; constant once LIVE but for CNG_NODE_DOOMED (tree
 *	   mutex)
 * @own_name: @name is the node's own copy, freed with it; tree mutex
 * @nr_subdirs: visible child directories; tree mutex. The directory's
 *		cached inode keeps 2 + @nr_subdirs in i_nlink, set under the
 *		mutex after each change (cng_inode_nlink_locked())
 * @nr_user: user-made children (directories and links) not yet
 *	     UNLINKED; tree mutex
 * @id: inode number base, unique among nodes not yet freed; constant
 * @name_hash: hash of @name, for the name table; constant
 * @btime: creation time in seconds since the epoch, the default for every
 *	   time stamp; constant
 * @parent: the parent directory (counted); NULL for the root; set when
 *	    the node is linked, then constant but for a commit, which moves
 *	    a directory between pending/ and live/ under the tree mutex
 *	    (read with READ_ONCE() without it)
 * @sib: entry in @parent's @children, in order of creation, until the
 *	 node is DEAD; tree mutex
 * @children: child nodes; tree mutex. Read only under it, by holders of
 *	      a reference, and empty once the node is DEAD or was never
 *	      linked: so @rcu may share its bytes
 * @hnext: the next entry of its chain in the name table (names.c), from
 *	   link to UNLINKED; written under the tree mutex, read under RCU
 * @item: the directory's item (for pending/ and live/, their group's).
 *	  Set at allocation; cleared under the tree
 *	  mutex when the node is UNLINKED, before its remover drops the
 *	  item. Dereferenced only under an active reference, or under the
 *	  tree mutex while the node is NEW, LIVE, DROPPING or REMOVING.
 * @name: the name in the parent directory: the item's own ci_name when
 *	  it is the same string, else a copy (@own_name); read under the
 *	  tree mutex while the node is in the name table, when the item's
 *	  name is sure to exist. Constant, but config_item_set_name() on an
 *	  item in the tree first gives the node a copy
 *	  (cng_node_unshare_name())
 * @ext: the rarely used part, or NULL; set once, under the tree mutex,
 *	  and published with a release store: a reader without the mutex
 *	  (the error record, report.c) loads it with smp_load_acquire() and
 *	  touches only its @error there
 * @rcu: for freeing, after the last reference, when @children is empty
 *	 and unreachable (no reference left to read it by); readers under
 *	 RCU alone (the name table, an attribute's d_revalidate) never
 *	 read @children
 * @dep_map: lockdep's view of the active references; empty without
 *	     CONFIG_LOCKDEP
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
	union {
		struct list_head	children;
		struct rcu_head		rcu;
	};
	struct cng_node __rcu	*hnext;
	struct config_item	*item;
	const char		*name;
	struct cng_node_ext	*ext;
	struct lockdep_map	dep_map;
};

/* Inode number of a node's file: the node itself (slot 0) or an attribute. */
static inline unsigned long cng_node_ino(const struct cng_node *node,
					 unsigned int slot)
{
	return (unsigned long)node->id << CNG_INO_SLOT_BITS | slot;
}

/* A directory that is its item's: every one but pending/ and live/. */
static inline bool cng_node_is_item_dir(const struct cng_node *node)
{
	return node->type == CNG_NODE_DIR && !(node->flags & CNG_NODE_STAGE);
}

static inline unsigned int cng_node_links(const struct cng_node *node)
{
	return node->ext ? node->ext->links : 0;
}

static inline unsigned int cng_node_depend(const struct cng_node *node)
{
	return node->ext ? node->ext->depend : 0;
}

/* The node's extension, or NULL, read without the tree mutex. */
static inline struct cng_node_ext *
cng_node_ext_peek(const struct cng_node *node)
{
	/* Pairs with the release in cng_node_ext_locked(): set up in full. */
	return smp_load_acquire(&node->ext);
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
 * @event: an attribute's change count, for poll() (notify.c)
 * @poll_wq: the attribute's pollers, woken at each change (notify.c);
 *	     every open file, so every poller, pins the inode. In the inode
 *	     rather than allocated by the first poller, so that poll()
 *	     has no way to fail
 */
struct cng_inode {
	struct inode			vfs;
	struct cng_node			*node;
	const void			*attr;
	unsigned int			kind;
	unsigned int			slot;
	atomic_t			event;
	struct wait_queue_head		poll_wq;
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
 * Lockdep sees an active reference as a read lock that may be taken
 * without waiting; a drain takes it for write (remove.c).
 *
 * Context: process; does not sleep.
 * Return: true if @node is LIVE; then cng_node_put_active() must follow.
 */
static inline bool cng_node_get_active(struct cng_node *node)
{
	if (!atomic_inc_unless_negative(&node->active))
		return false;
	rwsem_acquire_read(&node->dep_map, 0, 1, _RET_IP_);
	return true;
}

void cng_node_put_active(struct cng_node *node);
void cng_node_activate_locked(struct cng_node *node);
void cng_node_deactivate_locked(struct cng_node *node,
				enum cng_node_state state);
void cng_node_set_state_locked(struct cng_node *node,
			       enum cng_node_state state);
int cng_node_wait(struct cng_node *node, bool killable);
void cng_node_wait_state(struct cng_node *node, enum cng_node_state from);

/* A node's state as lookups see it: in the name table and not yet gone. */
static inline bool cng_node_visible(const struct cng_node *node)
{
	u8 state = READ_ONCE(node->state);

	return state >= CNG_STATE_LIVE && state <= CNG_STATE_REMOVING;
}

/* Gone from user space's view: UNLINKED or DEAD. */
static inline bool cng_node_gone(const struct cng_node *node)
{
	return READ_ONCE(node->state) >= CNG_STATE_UNLINKED;
}

extern unsigned long cng_gone_gen;

/**
 * cng_gone_gen_read() - how many nodes have left the namespace, plus one
 *
 * Context: any; lockless.
 * Return: the generation; it changes after each node turns UNLINKED.
 */
static inline unsigned long cng_gone_gen_read(void)
{
	/* Pairs with the release in cng_node_hide_locked(). */
	return smp_load_acquire(&cng_gone_gen);
}

struct cng_node *cng_node_find_locked(struct cng_node *parent,
				      const char *name, u32 hash);
int cng_node_link_locked(struct cng_node *parent, struct cng_node *node);
void cng_node_hide_locked(struct cng_node *node);
void cng_node_unlink_locked(struct cng_node *node);
void cng_node_move_locked(struct cng_node *node, struct cng_node *to);
struct cng_node *cng_node_from_item_locked(const struct config_item *item);
struct cng_meta *cng_node_meta_locked(struct cng_node *node,
				      unsigned int slot);
struct cng_node_ext *cng_node_ext_locked(struct cng_node *node, gfp_t gfp);
void cng_node_path(struct cng_node *node, char *buf, size_t size);
int cng_node_init(void);
void cng_node_exit(void);

/* names.c */
u32 cng_name_hash(const char *name, unsigned int len);
struct cng_node *cng_names_find_locked(const struct cng_node *dir,
				       const char *name, u32 hash);
void cng_names_insert_locked(struct cng_node *node);
void cng_names_remove_locked(struct cng_node *node);
bool cng_node_absent(const struct cng_node *parent, u32 hash);
int cng_names_init(void);
void cng_names_exit(void);

/* ids.c */
int cng_id_alloc(void);
void cng_id_free(unsigned int id);
void cng_ids_exit(void);

/* inode.c */
struct inode *cng_inode_get(struct super_block *sb, struct cng_node *node,
			    unsigned int kind, unsigned int slot,
			    const void *attr);
struct inode *cng_inode_new(struct super_block *sb);
void cng_inode_bind_new(struct inode *inode, struct cng_node *node);
void cng_inode_nlink_locked(struct inode *inode);
void cng_inode_nlink_update(struct inode *inode, struct inode *other);
void cng_inode_forget(struct super_block *sb, struct cng_node *node,
		      bool notify);
void cng_inode_created(struct cng_node *node);
int cng_inode_setattr(struct mnt_idmap *idmap,
		      struct dentry *dentry, struct iattr *iattr);
int cng_inode_getattr(struct mnt_idmap *idmap,
		      const struct path *path, struct kstat *stat,
		      u32 request_mask, unsigned int query_flags);
#ifdef CNG_HAVE_UPDATE_TIMESTAMPS
int cng_inode_update_time(struct inode *inode, int flags);
#else
int cng_inode_update_time(struct inode *inode, struct timespec64 *time,
			  int flags);
#endif
void cng_inode_evict(struct inode *inode);
struct inode *cng_inode_alloc(struct super_block *sb);
void cng_inode_free(struct inode *inode);
int cng_inode_init(void);
void cng_inode_exit(void);

/* dir.c */
extern const struct inode_operations cng_dir_inode_ops;
extern const struct inode_operations cng_root_inode_ops;
extern const struct file_operations cng_dir_file_ops;

unsigned int cng_attr_find(const struct cng_node *dir, const char *name,
			   unsigned int want, const void **attr,
			   unsigned int *kind);
void cng_dentry_recheck(struct dentry *dentry, struct cng_node *node);
void cng_dentry_add(struct dentry *dentry, struct inode *inode);

void cng_hier_add_group(struct config_group *parent_group,
			struct config_group *group);
void cng_hier_del_group(struct config_group *group);
void cng_hier_del_item(struct config_item *item);
void cng_dir_cursors_leave_locked(struct cng_node *node);

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

/* remove.c */
struct module *cng_item_owner(const struct config_item *item);
struct module *cng_subsys_owner(struct config_item *parent_item);
void cng_drop_user_item(struct config_item *parent_item,
			struct config_item *item, bool group,
			struct module *item_owner, struct module *subsys_owner);

/**
 * cng_remove_dir() - rmdir: remove a directory nobody depends on
 * @node: the directory, whose parent the caller holds active
 *
 * Refuses as stock does, then claims the whole subtree (the directory
 * and the default and registered groups below it), waits for its active
 * references killably, and only then unlinks it bottom up and tells the
 * client (disconnect_notify, drop_item). Killed while waiting, it gives
 * the subtree back as it was.
 *
 * Context: process; sleeps; the VFS holds the directory's and its
 * parent's inode locks. No lock of ours or su_mutex held.
 * Return: 0, -EBUSY, -ENOTEMPTY, -ENOENT, or -EINTR if killed.
 */
int cng_remove_dir(struct cng_node *node);

/**
 * cng_remove_force() - kernel-side removal of a subtree
 * @node: the top: a registered group or a subsystem
 *
 * Removes everything below @node, user-made items and links included,
 * and links from elsewhere into it, then @node itself; never fails. Each
 * node goes in turn, deepest first, a directory after the links from and
 * to it: drained, unlinked, then drop_link, or disconnect_notify and
 * drop_item for a user-made directory. Nodes another remover has claimed
 * are waited for. The item hierarchy of @node itself is left to the
 * caller.
 *
 * Context: process; sleeps; takes cng_sb_mutex, and the inode lock of the
 * directory of each link it removes. No lock of ours or su_mutex held,
 * nor an active reference on a node below @node.
 */
void cng_remove_force(struct cng_node *node);

/**
 * cng_remove_link() - unlink(2) of a symlink
 * @link: the link
 *
 * Context: process; sleeps; the VFS holds the link's directory locked,
 * and the caller holds that directory active.
 * Return: 0, or -ENOENT if a kernel-side removal has claimed the link.
 */
int cng_remove_link(struct cng_node *link);

/* commit.c */
#ifndef CNG_INTREE_NO_COMMIT
int cng_commit_attach_stages_locked(struct cng_node *group);
int cng_dir_rename(struct mnt_idmap *idmap, struct inode *old_dir,
		   struct dentry *old_dentry, struct inode *new_dir,
		   struct dentry *new_dentry, unsigned int flags);
#else
static inline int cng_commit_attach_stages_locked(struct cng_node *group)
{
	return 0;
}
#endif

/* visible.c */
int cng_visible_ask(struct config_item *item, bool group,
		    struct list_head *hidden);
int cng_visible_give_locked(struct cng_node *node, struct list_head *hidden);
void cng_visible_free(struct list_head *hidden);
bool cng_attr_hidden(const struct cng_node *dir, unsigned int slot);

/* file.c */
extern const struct file_operations cng_attr_file_ops;
extern const struct file_operations cng_bin_attr_file_ops;

/* symlink.c */
extern const struct inode_operations cng_link_inode_ops;

int cng_symlink(struct mnt_idmap *idmap, struct inode *dir,
		struct dentry *dentry, const char *symname);
int cng_unlink(struct inode *dir, struct dentry *dentry);

/* mount.c */

/**
 * cng_sb_hold() - the mounted superblock, or no mount starting
 *
 * Context: process; sleeps; takes cng_sb_mutex briefly.
 * Return: the superblock, kept active until cng_sb_release(); or NULL
 * when configfs is not mounted, and then no mount completes until
 * cng_sb_release(NULL).
 */
struct super_block *cng_sb_hold(void);
void cng_sb_release(struct super_block *sb);
int cng_mount_init(void);
void cng_mount_exit(void);

/* report.c */

/**
 * struct cng_call - a user's call into the client that may fail
 * @node: the directory whose item keeps the record: the attribute's
 *	  item, or the group a directory or link is made in; counted by
 *	  the caller
 * @item: @node's item, which the client names in cfgng_report()
 * @op: "write", "mkdir", "symlink", "commit", "uncommit"
 * @file: the attribute's name, or the new directory's or link's; "" for
 *	  a call about @node itself (a commit)
 * @slot: the attribute's slot, for a write; else 0. Who may read the
 *	  record's value is who may read that file (report.c)
 * @value: what the user gave (bytes written, link target), or NULL
 * @value_len: bytes of @value
 * @capture: the capture slot, or NULL; report.c's
 * @since: the last record's number when the call began: a success
 *	   clears only a record older than the call; report.c's
 */
struct cng_call {
	struct cng_node		*node;
	const struct config_item *item;
	const char		*op;
	const char		*file;
	unsigned int		slot;
	const char		*value;
	size_t			value_len;
	struct cng_capture	*capture;
	u64			since;
};

#ifndef CNG_INTREE_NO_ERRORS
extern const struct xattr_handler *cng_xattr_handlers[];

void cng_call_begin(struct cng_call *call);
void cng_call_end(struct cng_call *call, int err);
void cng_error_free(struct cng_error *error);
int cng_report_init(void);
void cng_report_exit(void);
#else
#define cng_xattr_handlers	NULL
static inline void cng_call_begin(struct cng_call *call) { }
static inline void cng_call_end(struct cng_call *call, int err) { }
static inline void cng_error_free(struct cng_error *error) { }
static inline int cng_report_init(void)
{
	return 0;
}

static inline void cng_report_exit(void) { }
#endif

/* notify.c */
#ifndef CNG_INTREE_NO_NOTIFY
int cng_poll_event(struct file *file);
void cng_poll_wait(struct file *file, struct cng_node *node,
		   struct poll_table_struct *wait);
void cng_poll_wake(struct cng_node *node);
void cng_notify_init(void);
void cng_notify_exit(void);
#else
static inline int cng_poll_event(struct file *file)
{
	return 0;
}

static inline void cng_poll_wake(struct cng_node *node) { }
static inline void cng_notify_init(void) { }
static inline void cng_notify_exit(void) { }
#endif

#endif /* _CNG_INTERNAL_H */
