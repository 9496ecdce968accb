// SPDX-License-Identifier: GPL-2.0
/*
 * Committable items: a committable group shows two directories of its
 * own, pending/ and live/; mkdir works in pending/, and rename(2) of
 * pending/NAME to live/NAME asks the client to commit the item, the
 * rename back to un-commit it (docs/extensions.md, "Committable items").
 *
 * The two directories are nodes with the group's item (CNG_NODE_STAGE)
 * and one namespace between them (names.c), so a commit moves the item's
 * node from one to the other under the tree mutex with nothing to
 * allocate: after the client said yes, nothing can fail.
 */
#include <linux/configfs.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/string.h>

/*
 * For the modversion CRCs of this file's exports only, frozen: the
 * types <linux/inet.h> defines were visible to them when configfs-ng.h
 * held the helpers, and clients built then carry those CRCs.
 */
#include <linux/inet.h>

#include <configfs-ng.h>

#include "internal.h"

/*
 * The registered committable group types, by struct cfgng_committable.
 * Read under RCU (an attach looks a group's type up under the tree
 * mutex); changed under cng_committables_mutex, which nests in no lock.
 */
static LIST_HEAD(cng_committables);
static DEFINE_MUTEX(cng_committables_mutex);

/**
 * cfgng_committable_register() - make a group type committable
 * @committable: the group type and its operations; the client's, kept
 *		 until cfgng_committable_unregister()
 *
 * Every group of @committable->group_type that configfs shows from now
 * on has pending/ and live/. Register before such a group is registered
 * or made, unregister after the last is gone.
 *
 * Context: process; sleeps.
 */
void cfgng_committable_register(struct cfgng_committable *committable)
{
	mutex_lock(&cng_committables_mutex);
	list_add_tail_rcu(&committable->entry, &cng_committables);
	mutex_unlock(&cng_committables_mutex);
}
EXPORT_SYMBOL_GPL(cfgng_committable_register);

/**
 * cfgng_committable_unregister() - undo cfgng_committable_register()
 * @committable: what was registered
 *
 * Context: process; sleeps (waits for an RCU grace period).
 */
void cfgng_committable_unregister(struct cfgng_committable *committable)
{
	mutex_lock(&cng_committables_mutex);
	list_del_rcu(&committable->entry);
	mutex_unlock(&cng_committables_mutex);
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(cfgng_committable_unregister);

/* The slot the 6.1 header still has, and later ones do not. */
static int (*cng_header_commit_item(const struct config_item_type *type))
	(struct config_item *)
{
#ifdef CNG_HAVE_COMMIT_ITEM_SLOT
	if (type->ct_group_ops)
		return type->ct_group_ops->commit_item;
#endif
	return NULL;
}

/**
 * struct cng_commit_ops - what a committable group's type does
 * @commit_item: commit, or NULL
 * @uncommit_item: un-commit, or NULL
 */
struct cng_commit_ops {
	int (*commit_item)(struct config_item *item);
	int (*uncommit_item)(struct config_item *item);
};

/*
 * Whether groups of @type are committable, and how. The functions stay
 * valid while an item of such a group exists: mkdir pins the module.
 */
static bool cng_commit_ops_find(const struct config_item_type *type,
				struct cng_commit_ops *ops)
{
	struct cfgng_committable *committable;
	bool registered = false;

	memset(ops, 0, sizeof(*ops));
	if (!type)
		return false;
	rcu_read_lock();
	list_for_each_entry_rcu(committable, &cng_committables, entry) {
		if (committable->group_type == type) {
			ops->commit_item = committable->commit_item;
			ops->uncommit_item = committable->uncommit_item;
			registered = true;
			break;
		}
	}
	rcu_read_unlock();
	if (!ops->commit_item)
		ops->commit_item = cng_header_commit_item(type);
	return registered || ops->commit_item;
}

/**
 * cng_commit_attach_stages_locked() - give a committable group its stages
 * @group: the group's node, NEW
 *
 * Adds pending/ and live/, NEW, to a group that is committable; nothing
 * to any other.
 *
 * Context: cng_tree_mutex held; sleeps. @group's item is alive.
 * Return: 0, -EEXIST if a default group takes one of the names, or
 * -ENOMEM; the caller undoes what was attached.
 */
int cng_commit_attach_stages_locked(struct cng_node *group)
{
	static const char *const names[] = { "pending", "live" };
	struct cng_commit_ops ops;
	struct cng_node *stage;
	unsigned int i;
	int ret;

	lockdep_assert_held(&cng_tree_mutex);
	if (!cng_commit_ops_find(group->item->ci_type, &ops))
		return 0;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		stage = cng_node_alloc(names[i], group->item, CNG_NODE_DIR,
				       CNG_NODE_DEFAULT | CNG_NODE_STAGE |
				       (i ? CNG_NODE_STAGE_LIVE : 0));
		if (IS_ERR(stage))
			return PTR_ERR(stage);
		ret = cng_node_link_locked(group, stage);
		if (ret) {
			stage->item = NULL;
			cng_node_put(stage);
			return ret;
		}
	}
	group->flags |= CNG_NODE_COMMITTABLE;
	return 0;
}

/*
 * Ask the client, then move the item's node, and its dentry with it: the
 * file system type has FS_RENAME_DOES_D_MOVE, so the VFS leaves d_move()
 * to us, and we make it under the tree mutex together with the node's
 * move. A kernel-side removal that claims the node after that finds the
 * dentry where the node is, and drops it there (cng_inode_forget()); one
 * that claimed it before makes the move fail. Were the dentry moved after
 * the mutex is dropped, as the VFS would, a removal in between would drop
 * it at the old name, and d_move() would hash it again at the new one,
 * for a dead node. The VFS holds both stages locked, so no mkdir, rmdir
 * or other rename runs in either meanwhile; only a kernel-side removal
 * can. It deactivates the item and waits for
 * our active references, so for the client's call to return (signals do
 * not cut it short: the client's call decides); then the item is no
 * longer LIVE, the move is not made and the rename fails with -ENOENT,
 * even though the client committed: its drop_item comes next and must
 * release a live item anyway (commit_stress's dyn/ races exactly this).
 * Nothing here allocates (commit_faults).
 */
static int cng_commit_move(struct cng_node *node, struct cng_node *from,
			   struct cng_node *to, struct dentry *old_dentry,
			   struct dentry *new_dentry)
{
	bool commit = to->flags & CNG_NODE_STAGE_LIVE;
	int (*client_op)(struct config_item *item);
	struct cng_commit_ops ops;
	int ret = -ENOENT;

	if (!cng_node_get_active(from))
		return -ENOENT;
	if (!cng_node_get_active(node))
		goto out_put_from;
	cng_commit_ops_find(from->item->ci_type, &ops);
	client_op = commit ? ops.commit_item : ops.uncommit_item;
	ret = client_op ? client_op(node->item) : -EPERM;
	cng_node_put_active(node);
	if (ret > 0)
		ret = 0;
	if (ret)
		goto out_put_from;

	mutex_lock(&cng_tree_mutex);
	if (node->state == CNG_STATE_LIVE && node->parent == from &&
	    to->state == CNG_STATE_LIVE) {
		cng_node_move_locked(node, to);
		d_move(old_dentry, new_dentry);
	} else {
		ret = -ENOENT;
	}
	mutex_unlock(&cng_tree_mutex);
out_put_from:
	cng_node_put_active(from);
	return ret;
}

/**
 * cng_dir_rename() - rename(2): commit and un-commit, nothing else
 * @idmap: the mount's id mapping
 * @old_dir: the directory the entry is in
 * @old_dentry: the entry
 * @new_dir: the directory it goes to
 * @new_dentry: its new name there, negative unless something is there
 * @flags: RENAME_* flags
 *
 * Context: process; sleeps; the VFS holds both directories locked.
 * Return: 0; -EPERM for anything but a move of an item between pending/
 * and live/ of one group (stock refuses every rename so), or for an
 * un-commit the client does not offer; -EINVAL for another name or a
 * flag but RENAME_NOREPLACE; -EEXIST; -ENOENT if the item is being
 * removed; or what the client's commit_item or uncommit_item returned.
 */
int cng_dir_rename(struct mnt_idmap *idmap, struct inode *old_dir,
		   struct dentry *old_dentry, struct inode *new_dir,
		   struct dentry *new_dentry, unsigned int flags)
{
	struct cng_inode *ci = CNG_I(d_inode(old_dentry));
	struct cng_node *from = CNG_I(old_dir)->node;
	struct cng_node *to = CNG_I(new_dir)->node;
	struct cng_call call;
	int ret;

	/* A stage's parent is its group's node for the stage's life. */
	if (ci->kind != CNG_FILE_DIR || !(from->flags & CNG_NODE_STAGE) ||
	    !(to->flags & CNG_NODE_STAGE) || from == to ||
	    from->parent != to->parent)
		return -EPERM;
	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	if (old_dentry->d_name.len != new_dentry->d_name.len ||
	    memcmp(old_dentry->d_name.name, new_dentry->d_name.name,
		   old_dentry->d_name.len))
		return -EINVAL;
	if (d_really_is_positive(new_dentry))
		return -EEXIST;

	/* The record is the item's: "commit: -EIO" and the client's why. */
	call = (struct cng_call) {
		.node = ci->node,
		/* Only compared: the item is not used unless it is active. */
		.item = READ_ONCE(ci->node->item),
		.op = to->flags & CNG_NODE_STAGE_LIVE ? "commit" : "uncommit",
		.file = "",
	};
	cng_call_begin(&call);
	ret = cng_commit_move(ci->node, from, to, old_dentry, new_dentry);
	cng_call_end(&call, ret);
	if (!ret)
		cng_inode_nlink_update(old_dir, new_dir);
	return ret;
}
