// SPDX-License-Identifier: GPL-2.0
/*
 * Removal: the one path by which a directory or a link leaves the tree,
 * for rmdir(2), unlink(2) and the kernel side (unregistration).
 *
 * A node goes in four steps. One remover claims it (REMOVING); that
 * remover waits for its active references to drain; it takes the node
 * out of the namespace (UNLINKED) and tells the client; then it takes
 * the node out of the tree (DEAD). A node goes only after everything
 * below it and every link from or to it, so a client callback always
 * finds its parent item and both items of a link still there.
 *
 * rmdir claims its whole subtree at once, after stock's refusals, and
 * waits for all of it before removing any of it, so that when it is
 * killed while waiting it gives the subtree back as it was.
 *
 * The kernel side first deactivates its whole part (DROPPING, DOOMED),
 * so that nothing new starts there, then claims and removes one node at
 * a time, deepest first. A node another remover has claimed is waited
 * for, never taken over. A remover so waits for one node's drain and
 * callbacks at a time, and two removals of overlapping parts, or a
 * removal started from a client callback elsewhere, never wait for each
 * other in a circle.
 */
#include <linux/configfs.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/sched/mm.h>

#include "internal.h"

/*
 * The modules mkdir pins, found again from the items at removal as stock
 * does, rather than kept in every node. Neither type changes meanwhile.
 */
struct module *cng_item_owner(const struct config_item *item)
{
	return item->ci_type->ct_owner;
}

struct module *cng_subsys_owner(struct config_item *parent_item)
{
	struct configfs_subsystem *subsys =
		to_config_group(parent_item)->cg_subsys;

	return subsys->su_group.cg_item.ci_type->ct_owner;
}

static void cng_client_disconnect_notify(struct config_item *parent_item,
					 struct config_item *item)
{
	const struct config_item_type *type = parent_item->ci_type;

	if (type && type->ct_group_ops && type->ct_group_ops->disconnect_notify)
		type->ct_group_ops->disconnect_notify(to_config_group(parent_item),
						      item);
}

/* Drops the reference make_item/make_group returned, as stock. */
static void cng_client_drop_item(struct config_item *parent_item,
				 struct config_item *item)
{
	const struct config_item_type *type = parent_item->ci_type;

	if (type && type->ct_group_ops && type->ct_group_ops->drop_item)
		type->ct_group_ops->drop_item(to_config_group(parent_item),
					      item);
	else
		config_item_put(item);
}

/**
 * cng_drop_user_item() - undo mkdir for an item user space made
 * @parent_item: the parent group's item
 * @item: the item
 * @group: @item is a config_group
 * @item_owner: the module mkdir pinned for @item, or NULL if none yet
 * @subsys_owner: the subsystem's module mkdir pinned, or NULL
 *
 * The order and the locking are stock's. A working reference makes the
 * client's release run after su_mutex is dropped, as in stock.
 *
 * Context: process; sleeps; takes the subsystem's su_mutex.
 */
void cng_drop_user_item(struct config_item *parent_item,
			struct config_item *item, bool group,
			struct module *item_owner, struct module *subsys_owner)
{
	struct configfs_subsystem *subsys =
		to_config_group(parent_item)->cg_subsys;

	config_item_get(item);
	mutex_lock(&subsys->su_mutex);
	cng_client_disconnect_notify(parent_item, item);
	if (group)
		cng_hier_del_group(to_config_group(item));
	else
		cng_hier_del_item(item);
	cng_client_drop_item(parent_item, item);
	mutex_unlock(&subsys->su_mutex);
	config_item_put(item);
	module_put(item_owner);
	module_put(subsys_owner);
}

/*
 * A claimed, drained directory: out of the namespace, the client told
 * if user space made it, out of the tree. The caller then owns the
 * tree's reference. While the client is told, lockdep sees the remover
 * hold the node's active references for write: waiting for this node
 * is waiting for these callbacks too.
 */
static void cng_remove_dir_finish(struct cng_node *node)
{
	struct config_item *item, *parent_item;

	rwsem_acquire(&node->dep_map, 0, 0, _RET_IP_);
	mutex_lock(&cng_tree_mutex);
	item = node->item;
	/* The parent is not UNLINKED while it has a child. */
	parent_item = node->parent->item;
	cng_node_hide_locked(node);
	mutex_unlock(&cng_tree_mutex);

	if (node->flags & CNG_NODE_USER)
		cng_drop_user_item(parent_item, item,
				   node->flags & CNG_NODE_GROUP,
				   cng_item_owner(item),
				   cng_subsys_owner(parent_item));

	mutex_lock(&cng_tree_mutex);
	cng_node_unlink_locked(node);
	mutex_unlock(&cng_tree_mutex);
	rwsem_release(&node->dep_map, _RET_IP_);
}

/*
 * A claimed link: out of the namespace, drop_link, out of the tree. The
 * caller holds the link's directory locked, as symlink(2) does around
 * allow_link, and then owns the tree's reference.
 */
static void cng_remove_link_finish(struct cng_node *link)
{
	const struct config_item_type *type;
	struct config_item *item, *target_item;

	rwsem_acquire(&link->dep_map, 0, 0, _RET_IP_);
	mutex_lock(&cng_tree_mutex);
	/*
	 * Neither the directory nor the target can be UNLINKED while the
	 * link is among the one's children and the other's incoming links.
	 */
	item = link->parent->item;
	target_item = link->ext->target->item;
	cng_node_hide_locked(link);
	mutex_unlock(&cng_tree_mutex);

	type = item->ci_type;
	if (type && type->ct_item_ops && type->ct_item_ops->drop_link)
		type->ct_item_ops->drop_link(item, target_item);

	mutex_lock(&cng_tree_mutex);
	cng_node_unlink_locked(link);
	mutex_unlock(&cng_tree_mutex);
	rwsem_release(&link->dep_map, _RET_IP_);
}

/* After a node turned DEAD: its inodes and dentries, if cached, say so. */
static void cng_remove_forget(struct cng_node *node, bool notify)
{
	struct super_block *sb = cng_sb_hold();

	if (sb)
		cng_inode_forget(sb, node, notify);
	cng_sb_release(sb);
}

int cng_remove_link(struct cng_node *link)
{
	mutex_lock(&cng_tree_mutex);
	if (link->state != CNG_STATE_LIVE && link->state != CNG_STATE_DROPPING) {
		mutex_unlock(&cng_tree_mutex);
		return -ENOENT;
	}
	cng_node_deactivate_locked(link, CNG_STATE_REMOVING);
	mutex_unlock(&cng_tree_mutex);

	cng_remove_link_finish(link);
	cng_node_put(link);
	return 0;
}

/*
 * A link the kernel side removes: its directory is locked as the VFS
 * would lock it, so that drop_link never runs beside the directory's
 * allow_link or another drop_link, as on stock; when nothing is mounted,
 * cng_sb_hold() keeps a mount (and so a symlink(2) in that directory)
 * from completing meanwhile. The directory's inode may have to be built:
 * an allocation of that size fails only under fault injection (then
 * once) or for an OOM victim (which gets the reserves), so it is tried
 * again until it succeeds, rather than calling the client unserialised.
 */
static void cng_remove_link_force(struct cng_node *link, bool notify)
{
	struct super_block *sb = cng_sb_hold();
	struct inode *dir = NULL;

	if (sb) {
		for (;;) {
			dir = cng_inode_get(sb, link->parent, CNG_FILE_DIR, 0,
					    NULL);
			if (!IS_ERR(dir))
				break;
			memalloc_retry_wait(GFP_KERNEL);
		}
		inode_lock(dir);
	}
	cng_remove_link_finish(link);
	if (dir) {
		inode_unlock(dir);
		iput(dir);
	}
	if (sb)
		cng_inode_forget(sb, link, notify);
	cng_sb_release(sb);
	cng_node_put(link);
}

/* rmdir's refusals, in stock's order; every node must be LIVE. */
static int cng_remove_check_locked(struct cng_node *node, bool top)
{
	struct cng_node *child;
	int ret;

	if (node->state != CNG_STATE_LIVE)
		return top && node->state != CNG_STATE_NEW ? -ENOENT : -EBUSY;
	if (cng_node_depend(node) || cng_node_links(node))
		return -EBUSY;
	if (node->nr_user)
		return -ENOTEMPTY;
	list_for_each_entry(child, &node->children, sib) {
		ret = cng_remove_check_locked(child, false);
		if (ret)
			return ret;
	}
	return 0;
}

/* rmdir claims the subtree it checked: every directory, no link. */
static void cng_remove_claim_locked(struct cng_node *node)
{
	struct cng_node *child;

	cng_node_deactivate_locked(node, CNG_STATE_REMOVING);
	list_for_each_entry(child, &node->children, sib)
		cng_remove_claim_locked(child);
}

/* rmdir gives up: the subtree as it was, but what the kernel side wants. */
static void cng_remove_unclaim_locked(struct cng_node *node)
{
	struct cng_node *child;

	list_for_each_entry(child, &node->children, sib)
		cng_remove_unclaim_locked(child);
	if (node->flags & CNG_NODE_DOOMED)
		cng_node_set_state_locked(node, CNG_STATE_DROPPING);
	else
		cng_node_activate_locked(node);
}

/* The first directory of a subtree in post-order: its leftmost leaf. */
static struct cng_node *cng_remove_leftmost_locked(struct cng_node *node)
{
	while (!list_empty(&node->children))
		node = list_first_entry(&node->children, struct cng_node, sib);
	return node;
}

/* The directory after @node in post-order within @top's subtree. */
static struct cng_node *cng_remove_next_locked(struct cng_node *node,
					       struct cng_node *top)
{
	if (node == top)
		return NULL;
	if (!list_is_last(&node->sib, &node->parent->children))
		return cng_remove_leftmost_locked(list_next_entry(node, sib));
	return node->parent;
}

int cng_remove_dir(struct cng_node *top)
{
	struct cng_node *node;
	int ret;

	mutex_lock(&cng_tree_mutex);
	ret = cng_remove_check_locked(top, true);
	if (ret) {
		mutex_unlock(&cng_tree_mutex);
		return ret;
	}
	/*
	 * Claimed, the subtree is ours alone: nothing is added to it, and
	 * other removers wait for its nodes, so it can be walked in steps.
	 */
	cng_remove_claim_locked(top);
	for (node = cng_remove_leftmost_locked(top); node;
	     node = cng_remove_next_locked(node, top)) {
		mutex_unlock(&cng_tree_mutex);
		ret = cng_node_wait(node, true);
		mutex_lock(&cng_tree_mutex);
		if (ret) {
			cng_remove_unclaim_locked(top);
			mutex_unlock(&cng_tree_mutex);
			return ret;
		}
	}
	mutex_unlock(&cng_tree_mutex);

	/* Bottom up; the VFS tells the top's dentry and watchers itself. */
	do {
		mutex_lock(&cng_tree_mutex);
		node = cng_remove_leftmost_locked(top);
		mutex_unlock(&cng_tree_mutex);
		cng_remove_dir_finish(node);
		if (node != top)
			cng_remove_forget(node, false);
		cng_node_put(node);
	} while (node != top);
	/* Pollers of the top's files see it gone, as for the nodes below. */
	cng_poll_wake(top);
	return 0;
}

/* One node the kernel side wants gone: see cng_remove_doom_locked(). */
static void cng_remove_doom_one_locked(struct cng_node *node)
{
	node->flags |= CNG_NODE_DOOMED;
	if (node->state == CNG_STATE_LIVE)
		cng_node_deactivate_locked(node, CNG_STATE_DROPPING);
}

/*
 * The kernel side wants the part gone: nothing new may start in it (its
 * nodes and the links into it turn DROPPING), and an rmdir in it that
 * gives up leaves its nodes to us. A walk in pre-order by the parent
 * pointers, not a recursion: users choose how deep the part nests.
 * Links are leaves, and never the target of a link.
 */
static void cng_remove_doom_locked(struct cng_node *top)
{
	struct cng_node *node = top;
	struct cng_node_ext *link;

	for (;;) {
		cng_remove_doom_one_locked(node);
		if (node->ext)
			list_for_each_entry(link, &node->ext->incoming, in_link)
				cng_remove_doom_one_locked(link->node);
		if (!list_empty(&node->children)) {
			node = list_first_entry(&node->children,
						struct cng_node, sib);
			continue;
		}
		while (node != top &&
		       list_is_last(&node->sib, &node->parent->children))
			node = node->parent;
		if (node == top)
			return;
		node = list_next_entry(node, sib);
	}
}

/*
 * What to remove next: the first link into the first directory met on
 * the way down, else the leftmost leaf; the top last of all.
 */
static struct cng_node *cng_remove_victim_locked(struct cng_node *node)
{
	struct cng_node_ext *link;

	for (;;) {
		if (node->ext && !list_empty(&node->ext->incoming)) {
			link = list_first_entry(&node->ext->incoming,
						struct cng_node_ext, in_link);
			return link->node;
		}
		if (list_empty(&node->children))
			return node;
		node = list_first_entry(&node->children, struct cng_node, sib);
	}
}

/* Remove one node the kernel side has claimed. */
static void cng_remove_one_force(struct cng_node *node, bool notify)
{
	if (node->type == CNG_NODE_LINK) {
		cng_remove_link_force(node, notify);
		return;
	}
	cng_node_wait(node, false);
	cng_remove_dir_finish(node);
	cng_remove_forget(node, notify);
	cng_node_put(node);
}

void cng_remove_force(struct cng_node *top)
{
	enum cng_node_state state;
	struct cng_node *node;
	bool notify;

	mutex_lock(&cng_tree_mutex);
	cng_remove_doom_locked(top);
	while (top->state != CNG_STATE_DEAD) {
		node = cng_remove_victim_locked(top);
		state = node->state;
		cng_node_get(node);
		if (state == CNG_STATE_DROPPING || state == CNG_STATE_LIVE) {
			cng_node_deactivate_locked(node, CNG_STATE_REMOVING);
			/* Watchers of a directory that stays hear of it. */
			notify = !(node->parent->flags & CNG_NODE_DOOMED);
			mutex_unlock(&cng_tree_mutex);
			cng_remove_one_force(node, notify);
		} else {
			/* Claimed by another remover, or still being built. */
			mutex_unlock(&cng_tree_mutex);
			cng_node_wait_state(node, state);
		}
		cng_node_put(node);
		mutex_lock(&cng_tree_mutex);
	}
	mutex_unlock(&cng_tree_mutex);
}
