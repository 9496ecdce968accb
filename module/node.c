// SPDX-License-Identifier: GPL-2.0
/*
 * The backing tree: nodes for directories and symlinks, their linkage
 * into the tree (the name table is names.c's, ids are ids.c's), their
 * references and active references, and the item-to-node table.
 *
 * The tree, not the dcache, is the truth of what exists. Dentries and
 * inodes are built from it on lookup and may be reclaimed at any time.
 */
#include <linux/atomic.h>
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/*
 * Protects the shape of the tree: every node's @state, @children, @sib,
 * counters, @own_name, @ext and what it holds, the name table's content,
 * each linked item's ci_dentry (its node, see
 * cng_node_from_item_locked()) and readdir cursors (dir.c). Last in the
 * lock order; holders may sleep and allocate, but never call a client
 * and never wait for active references.
 */
DEFINE_MUTEX(cng_tree_mutex);

/*
 * The root group's su_mutex: serialises subsystem registration in the
 * root group's item hierarchy (cg_children of cng_root_group). At the
 * level of a subsystem's su_mutex in the lock order, never nested with
 * one.
 */
DEFINE_MUTEX(cng_subsys_mutex);

/*
 * Bumped each time a node leaves the namespace (turns UNLINKED), after
 * its state is written: an attribute's dentry validated at the current
 * generation needs no look at its node (cng_attr_d_revalidate()). Starts
 * at 1 so that a new dentry (d_fsdata 0) is checked once. Written under
 * cng_tree_mutex, read locklessly.
 */
unsigned long cng_gone_gen = 1;

/* Woken when a node's active count drains or its state changes. */
static DECLARE_WAIT_QUEUE_HEAD(cng_node_wq);

/* Every node but the root; objects sized to the struct, no rounding. */
static struct kmem_cache *cng_node_cache;

/* Nodes allocated and not yet freed: must be 0 when the module goes. */
static atomic_long_t cng_nodes_live = ATOMIC_LONG_INIT(0);

/* The parent of every subsystem, as in stock; never released. */
struct config_group cng_root_group = {
	.cg_item = {
		.ci_namebuf	= "root",
		.ci_name	= cng_root_group.cg_item.ci_namebuf,
	},
};

struct cng_node cng_root_node = {
	.ref		= REFCOUNT_INIT(1),
	.active		= ATOMIC_INIT(0),
	.type		= CNG_NODE_ROOT,
	.state		= CNG_STATE_LIVE,
	.flags		= CNG_NODE_GROUP | CNG_NODE_DEFAULT,
	.children	= LIST_HEAD_INIT(cng_root_node.children),
	.sib		= LIST_HEAD_INIT(cng_root_node.sib),
	.item		= &cng_root_group.cg_item,
	.name		= "",
};

bool cng_is_root_item(const struct config_item *item)
{
	return item == &cng_root_group.cg_item;
}

/*
 * Lockdep classes of active references, by depth in the tree (the root
 * is 0; every node deeper than the last class shares it). Waits nest as
 * the tree does: a callback may remove what lies below its item, or
 * elsewhere, but waiting for its own item or an ancestor deadlocks, and
 * per-depth classes let lockdep tell the two apart. A callback that
 * removes a group at the depth of its own item is reported too (stock's
 * one class of fragment semaphores reports every such removal).
 */
#define CNG_LOCKDEP_DEPTHS	16
static struct lock_class_key cng_active_keys[CNG_LOCKDEP_DEPTHS];

static void cng_node_lockdep_init(struct cng_node *node,
				  const struct cng_node *parent)
{
	unsigned int depth = 0;

	if (!IS_ENABLED(CONFIG_LOCKDEP))
		return;
	for (; parent; parent = parent->parent)
		depth++;
	lockdep_init_map(&node->dep_map, "cng_node->active",
			 &cng_active_keys[min(depth, CNG_LOCKDEP_DEPTHS - 1)],
			 0);
}

/*
 * A linked item's directory node lives in its ci_dentry, the field
 * configfs.h reserves for configfs itself (stock keeps the item's dentry
 * there; no client of 6.1 reads it). Set and cleared under the tree mutex
 * with the node's link into the tree.
 */
static void cng_item_set_node(struct config_item *item, struct cng_node *node)
{
	/* Read locklessly, under RCU, by cfgng_notify(). */
	WRITE_ONCE(item->ci_dentry, (struct dentry *)node);
}

/* What the extension holds, and the extension; the root's too. */
static void cng_node_ext_free(struct cng_node_ext *ext)
{
	struct cng_meta *meta, *next;

	if (!ext)
		return;
	for (meta = ext->meta; meta; meta = next) {
		next = meta->next;
		kfree(meta);
	}
	/* No reader left: the node's last reference is gone. */
	cng_error_free(rcu_dereference_protected(ext->error, true));
	kfree(ext->hidden);
	kfree(ext);
}

static void cng_node_free_rcu(struct rcu_head *rcu)
{
	struct cng_node *node = container_of(rcu, struct cng_node, rcu);

	cng_node_ext_free(node->ext);
	if (node->own_name)
		kfree(node->name);
	cng_id_free(node->id);
	kmem_cache_free(cng_node_cache, node);
	atomic_long_dec(&cng_nodes_live);
}

/**
 * cng_node_alloc() - allocate a NEW, unlinked, deactivated node
 * @name: its name
 * @item: a directory's item, or NULL for a symlink
 * @type: CNG_NODE_DIR or CNG_NODE_LINK
 * @flags: CNG_NODE_* flags
 *
 * When @name is the item's ci_name, the node uses that string; else it
 * keeps a copy. A symlink gets its extension at once.
 *
 * Context: process; sleeps.
 * Return: the node with one reference, or ERR_PTR(-ENOMEM).
 */
struct cng_node *cng_node_alloc(const char *name, struct config_item *item,
				enum cng_node_type type, unsigned int flags)
{
	struct cng_node *node;
	int id;

	node = kmem_cache_zalloc(cng_node_cache, GFP_KERNEL);
	if (!node)
		return ERR_PTR(-ENOMEM);
	if (item && item->ci_name && !strcmp(item->ci_name, name)) {
		node->name = item->ci_name;
	} else {
		node->name = kstrdup(name, GFP_KERNEL);
		if (!node->name)
			goto err_free_node;
		node->own_name = true;
	}
	if (type == CNG_NODE_LINK) {
		node->ext = kzalloc(sizeof(*node->ext), GFP_KERNEL);
		if (!node->ext)
			goto err_free_name;
		node->ext->node = node;
		INIT_LIST_HEAD(&node->ext->incoming);
		INIT_LIST_HEAD(&node->ext->in_link);
	}
	node->name_hash = cng_name_hash(node->name, strlen(node->name));
	id = cng_id_alloc();
	if (id < 0)
		goto err_free_ext;
	refcount_set(&node->ref, 1);
	atomic_set(&node->active, CNG_DEACTIVATED_BIAS);
	node->type = type;
	node->state = CNG_STATE_NEW;
	node->flags = flags;
	INIT_LIST_HEAD(&node->children);
	INIT_LIST_HEAD(&node->sib);
	node->id = id;
	node->item = item;
	node->btime = ktime_get_real_seconds();
	atomic_long_inc(&cng_nodes_live);
	return node;

err_free_ext:
	kfree(node->ext);
err_free_name:
	if (node->own_name)
		kfree(node->name);
err_free_node:
	kmem_cache_free(cng_node_cache, node);
	return ERR_PTR(-ENOMEM);
}

/* The root node is static: references to it are not counted. */
struct cng_node *cng_node_get(struct cng_node *node)
{
	if (node != &cng_root_node)
		refcount_inc(&node->ref);
	return node;
}

/*
 * Any context, hard interrupt included (cfgng_notify() may drop the last
 * reference there): the node and its extension are freed from RCU, and a
 * link's target is only put.
 */
void cng_node_put(struct cng_node *node)
{
	while (node && node != &cng_root_node &&
	       refcount_dec_and_test(&node->ref)) {
		struct cng_node *parent = node->parent;

		if (node->type == CNG_NODE_LINK && node->ext->target)
			cng_node_put(node->ext->target);
		call_rcu(&node->rcu, cng_node_free_rcu);
		node = parent;
	}
}

void cng_node_put_active(struct cng_node *node)
{
	rwsem_release(&node->dep_map, _RET_IP_);
	if (atomic_dec_return(&node->active) == CNG_DEACTIVATED_BIAS)
		wake_up_all(&cng_node_wq);
}

/* A node not LIVE turns LIVE and accepts active references. */
void cng_node_activate_locked(struct cng_node *node)
{
	lockdep_assert_held(&cng_tree_mutex);
	atomic_sub(CNG_DEACTIVATED_BIAS, &node->active);
	cng_node_set_state_locked(node, CNG_STATE_LIVE);
}

/**
 * cng_node_deactivate_locked() - refuse new active references
 * @node: the node, LIVE or already deactivated
 * @state: CNG_STATE_DROPPING or CNG_STATE_REMOVING
 *
 * Context: cng_tree_mutex held.
 */
void cng_node_deactivate_locked(struct cng_node *node,
				enum cng_node_state state)
{
	lockdep_assert_held(&cng_tree_mutex);
	if (node->state == CNG_STATE_LIVE)
		atomic_add(CNG_DEACTIVATED_BIAS, &node->active);
	cng_node_set_state_locked(node, state);
}

/**
 * cng_node_wait() - wait until a deactivated node has no active user
 * @node: the node, deactivated by the caller
 * @killable: give up on a fatal signal (rmdir), else wait for good
 *
 * Lockdep sees the caller take the node's active references for write,
 * so a caller that holds one of its own (or waits, holding a lock, for
 * a callback that takes it) is reported.
 *
 * Context: process; sleeps. The caller must hold no lock that a client
 * callback might take: no su_mutex, no lock of ours.
 * Return: 0, or -EINTR if @killable and the task was killed.
 */
int cng_node_wait(struct cng_node *node, bool killable)
{
	int ret = 0;

	rwsem_acquire(&node->dep_map, 0, 0, _RET_IP_);
	if (killable)
		ret = wait_event_killable(cng_node_wq,
					  atomic_read(&node->active) ==
					  CNG_DEACTIVATED_BIAS);
	else
		wait_event(cng_node_wq,
			   atomic_read(&node->active) == CNG_DEACTIVATED_BIAS);
	rwsem_release(&node->dep_map, _RET_IP_);
	return ret ? -EINTR : 0;
}

void cng_node_set_state_locked(struct cng_node *node,
			       enum cng_node_state state)
{
	lockdep_assert_held(&cng_tree_mutex);
	WRITE_ONCE(node->state, state);
	/* Its barrier pairs with the one of wait_event()'s queueing. */
	if (wq_has_sleeper(&cng_node_wq))
		wake_up_all(&cng_node_wq);
}

/**
 * cng_node_wait_state() - wait for a node to leave a state
 * @node: the node; the caller holds a reference
 * @from: the state it was seen in
 *
 * Waiting for another remover's node is waiting for that node's drain
 * and its client callbacks: lockdep sees it as taking the node's active
 * references for write, as the remover does meanwhile.
 *
 * Context: process; sleeps; no lock of ours held.
 */
void cng_node_wait_state(struct cng_node *node, enum cng_node_state from)
{
	rwsem_acquire(&node->dep_map, 0, 0, _RET_IP_);
	wait_event(cng_node_wq, READ_ONCE(node->state) != from);
	rwsem_release(&node->dep_map, _RET_IP_);
}

/**
 * cng_node_find_locked() - look a child up by name
 * @parent: the directory
 * @name: the name
 * @hash: cng_name_hash() of @name
 *
 * Context: cng_tree_mutex held.
 * Return: the child in whatever state, uncounted, or NULL.
 */
struct cng_node *cng_node_find_locked(struct cng_node *parent,
				      const char *name, u32 hash)
{
	struct cng_node *node;

	lockdep_assert_held(&cng_tree_mutex);
	node = cng_names_find_locked(parent, name, hash);
	/* pending/NAME is not live/NAME, though the two share the name. */
	return node && node->parent == parent ? node : NULL;
}

/**
 * cng_node_link_locked() - link a NEW node under its parent
 * @parent: the directory, LIVE or NEW (a default group being built)
 * @node: the node; the tree takes over the caller's reference
 *
 * The node goes last in @parent's children, so readdir lists children
 * in the order they came.
 *
 * Context: cng_tree_mutex held.
 * Return: 0, -EEXIST if the name or the item is taken, or -ENOENT if
 * @parent is being removed.
 */
int cng_node_link_locked(struct cng_node *parent, struct cng_node *node)
{
	bool item_dir = cng_node_is_item_dir(node);

	lockdep_assert_held(&cng_tree_mutex);
	if (parent->state != CNG_STATE_LIVE && parent->state != CNG_STATE_NEW)
		return -ENOENT;
	/* An item has one directory. */
	if (item_dir && node->item->ci_dentry)
		return -EEXIST;
	if (cng_names_find_locked(parent, node->name, node->name_hash))
		return -EEXIST;
	/* The table hashes the node by its parent's namespace. */
	node->parent = parent;
	cng_names_insert_locked(node);
	cng_node_get(parent);
	cng_node_lockdep_init(node, parent);
	if (item_dir)
		cng_item_set_node(node->item, node);
	list_add_tail(&node->sib, &parent->children);
	if (node->flags & CNG_NODE_USER)
		parent->nr_user++;
	if (node->type == CNG_NODE_DIR)
		parent->nr_subdirs++;
	return 0;
}

/**
 * cng_node_hide_locked() - take a node out of the namespace: UNLINKED
 * @node: the node, claimed by the caller (or NEW)
 *
 * Its name is free again, lookups and readdir no longer see it and its
 * dentries fail revalidation; a directory's item is no longer reachable
 * from it. It stays among its parent's children, and a link among its
 * target's incoming links, until cng_node_unlink_locked().
 *
 * Context: cng_tree_mutex held.
 */
void cng_node_hide_locked(struct cng_node *node)
{
	struct cng_node *parent = node->parent;

	lockdep_assert_held(&cng_tree_mutex);
	if (WARN_ON_ONCE(node->state >= CNG_STATE_UNLINKED))
		return;
	cng_names_remove_locked(node);
	if (node->flags & CNG_NODE_USER)
		parent->nr_user--;
	if (node->type == CNG_NODE_DIR) {
		parent->nr_subdirs--;
		if (cng_node_is_item_dir(node))
			cng_item_set_node(node->item, NULL);
		node->item = NULL;
	}
	cng_node_set_state_locked(node, CNG_STATE_UNLINKED);
	/* A reader that sees the new generation sees the node UNLINKED. */
	smp_store_release(&cng_gone_gen, cng_gone_gen + 1);
}

/**
 * cng_node_unlink_locked() - take an UNLINKED node out of the tree: DEAD
 * @node: the node; the tree's reference passes to the caller
 *
 * A link leaves its target's incoming links and count too. Readdir
 * cursors that stood at the node move back to its predecessor.
 *
 * Context: cng_tree_mutex held.
 */
void cng_node_unlink_locked(struct cng_node *node)
{
	struct cng_node_ext *target_ext;

	lockdep_assert_held(&cng_tree_mutex);
	if (WARN_ON_ONCE(node->state != CNG_STATE_UNLINKED))
		return;
	cng_dir_cursors_leave_locked(node);
	list_del_init(&node->sib);
	if (node->type == CNG_NODE_LINK && !list_empty(&node->ext->in_link)) {
		target_ext = node->ext->target->ext;
		list_del_init(&node->ext->in_link);
		target_ext->links--;
	}
	cng_node_set_state_locked(node, CNG_STATE_DEAD);
}

/**
 * cng_node_move_locked() - move a directory between pending/ and live/
 * @node: the directory, LIVE, a child of one of the two
 * @to: the other one, LIVE
 *
 * The two share a namespace, so the name table is not touched and
 * nothing can fail; every lookup under the tree mutex sees @node in
 * exactly one of them. Readdir cursors that stood at it move back to
 * its predecessor, as when it leaves.
 *
 * Context: cng_tree_mutex held.
 */
void cng_node_move_locked(struct cng_node *node, struct cng_node *to)
{
	struct cng_node *from = node->parent;

	lockdep_assert_held(&cng_tree_mutex);
	cng_dir_cursors_leave_locked(node);
	list_move_tail(&node->sib, &to->children);
	WRITE_ONCE(node->parent, cng_node_get(to));
	from->nr_user--;
	from->nr_subdirs--;
	to->nr_user++;
	to->nr_subdirs++;
	/* The pair's group holds the tree's reference on @from. */
	cng_node_put(from);
}

/**
 * cng_node_from_item_locked() - the directory node of an item
 * @item: the item
 *
 * Context: cng_tree_mutex held.
 * Return: the node, uncounted, or NULL if @item is not in the tree.
 */
struct cng_node *cng_node_from_item_locked(const struct config_item *item)
{
	lockdep_assert_held(&cng_tree_mutex);
	if (cng_is_root_item(item))
		return &cng_root_node;
	return (struct cng_node *)item->ci_dentry;
}

/**
 * cng_node_meta_locked() - find a file's saved settings
 * @node: the node
 * @slot: 0 for the node, else the attribute slot
 *
 * Context: cng_tree_mutex held.
 * Return: the entry, or NULL when the user never changed that file.
 */
struct cng_meta *cng_node_meta_locked(struct cng_node *node,
				      unsigned int slot)
{
	struct cng_meta *meta;

	lockdep_assert_held(&cng_tree_mutex);
	if (!node->ext)
		return NULL;
	for (meta = node->ext->meta; meta; meta = meta->next)
		if (meta->slot == slot)
			return meta;
	return NULL;
}

/**
 * cng_node_ext_locked() - a node's extension, allocated if need be
 * @node: the node
 * @gfp: GFP_KERNEL, or with __GFP_NOFAIL where stock cannot fail
 *
 * Context: cng_tree_mutex held; sleeps.
 * Return: the extension, or NULL if it could not be allocated.
 */
struct cng_node_ext *cng_node_ext_locked(struct cng_node *node, gfp_t gfp)
{
	struct cng_node_ext *ext;

	lockdep_assert_held(&cng_tree_mutex);
	if (node->ext)
		return node->ext;
	ext = kzalloc(sizeof(*ext), gfp);
	if (!ext)
		return NULL;
	ext->node = node;
	INIT_LIST_HEAD(&ext->incoming);
	INIT_LIST_HEAD(&ext->in_link);
	/* report.c reads it without the mutex: initialised before seen. */
	smp_store_release(&node->ext, ext);
	return ext;
}

/*
 * "/nvmet/ports/1", @node's path from the mount point, cut at the front
 * to fit @size. Context: process; takes cng_tree_mutex.
 */
void cng_node_path(struct cng_node *node, char *buf, size_t size)
{
	size_t pos = size - 1;
	size_t len;

	buf[pos] = 0;
	mutex_lock(&cng_tree_mutex);
	for (; node->parent && cng_node_visible(node); node = node->parent) {
		len = strlen(node->name);
		if (len + 1 > pos)
			break;
		pos -= len;
		memcpy(buf + pos, node->name, len);
		buf[--pos] = '/';
	}
	mutex_unlock(&cng_tree_mutex);
	if (pos == size - 1)
		buf[--pos] = '/';
	memmove(buf, buf + pos, size - pos);
}

/*
 * The node keeps its name when the client renames or frees the item's:
 * config_item_set_name() calls this on any item in the item hierarchy.
 * It cannot fail, as renaming an item cannot in stock for a short name:
 * a directory name is at most NAME_MAX bytes, which __GFP_NOFAIL may ask.
 */
void cng_node_unshare_name(const struct config_item *item)
{
	struct cng_node *node;

	if (!item->ci_name)
		return;
	mutex_lock(&cng_tree_mutex);
	node = cng_node_from_item_locked(item);
	if (node && node != &cng_root_node && node->name == item->ci_name) {
		node->name = kstrdup(node->name, GFP_KERNEL | __GFP_NOFAIL);
		node->own_name = true;
	}
	mutex_unlock(&cng_tree_mutex);
}

int cng_node_init(void)
{
	/* What a directory costs (docs/design.md, "Memory"). */
	BUILD_BUG_ON(!IS_ENABLED(CONFIG_LOCKDEP) &&
		     sizeof(struct cng_node) > 104);
	cng_node_cache = kmem_cache_create("cng_node_cache",
					   sizeof(struct cng_node), 0, 0, NULL);
	if (!cng_node_cache)
		return -ENOMEM;
	cng_node_lockdep_init(&cng_root_node, NULL);
	cng_root_node.btime = ktime_get_real_seconds();
	config_group_init(&cng_root_group);
	return 0;
}

void cng_node_exit(void)
{
	/* Nodes are freed by RCU callbacks that live in this module. */
	rcu_barrier();
	/* Every subsystem is gone and nothing is mounted: a node left leaked. */
	WARN(atomic_long_read(&cng_nodes_live), "configfs: %ld nodes leaked\n",
	     atomic_long_read(&cng_nodes_live));
	cng_node_ext_free(cng_root_node.ext);
	cng_root_node.ext = NULL;
	kmem_cache_destroy(cng_node_cache);
}
