// SPDX-License-Identifier: GPL-2.0
/*
 * The backing tree: nodes for directories and symlinks, their linkage,
 * their references and active references, and the item-to-node table.
 *
 * The tree, not the dcache, is the truth of what exists. Dentries and
 * inodes are built from it on lookup and may be reclaimed at any time.
 */
#include <linux/atomic.h>
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/idr.h>
#include <linux/rhashtable.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/*
 * Protects the shape of the tree: every node's @state, @children, @sib,
 * counters, @own_name, @ext and what it holds, and the item-to-node table. Third in the
 * lock order; holders may sleep and allocate, but never call a client
 * and never wait for active references.
 */
DEFINE_MUTEX(cng_tree_mutex);

/*
 * The root group's su_mutex: serialises subsystem registration in the
 * root group's item hierarchy (cg_children of cng_root_group). Second in
 * the lock order, at the level of a subsystem's su_mutex.
 */
DEFINE_MUTEX(cng_subsys_mutex);

/* Woken when a node's active count drains or its state changes. */
static DECLARE_WAIT_QUEUE_HEAD(cng_node_wq);

/* Every node but the root; objects sized to the struct, no rounding. */
static struct kmem_cache *cng_node_cache;

/* Nodes allocated and not yet freed: must be 0 when the module goes. */
static atomic_long_t cng_nodes_live = ATOMIC_LONG_INIT(0);

/*
 * Node ids, the high bits of inode numbers; 0 is the root's. An id is
 * freed with its node, so after the last inode using it is gone: no two
 * live inodes share a number, and numbers stay small enough for 32-bit
 * stat() and getdents().
 */
static DEFINE_IDA(cng_node_ida);

/* Item to directory node, for the exported calls that name an item. */
static struct rhashtable cng_item_table;

static const struct rhashtable_params cng_item_params = {
	.key_len		= sizeof(struct config_item *),
	.key_offset		= offsetof(struct cng_node, item),
	.head_offset		= offsetof(struct cng_node, hash),
	.automatic_shrinking	= true,
};

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
	.children	= RB_ROOT,
	.item		= &cng_root_group.cg_item,
	.name		= "",
	.rm_entry	= LIST_HEAD_INIT(cng_root_node.rm_entry),
};

bool cng_is_root_item(const struct config_item *item)
{
	return item == &cng_root_group.cg_item;
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
	kfree(ext->body);
	kfree(ext);
}

static void cng_node_free_rcu(struct rcu_head *rcu)
{
	struct cng_node *node = container_of(rcu, struct cng_node, rcu);

	cng_node_ext_free(node->ext);
	if (node->own_name)
		kfree(node->name);
	ida_free(&cng_node_ida, node->id);
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
	id = ida_alloc_min(&cng_node_ida, 1, GFP_KERNEL);
	if (id < 0)
		goto err_free_ext;
	refcount_set(&node->ref, 1);
	atomic_set(&node->active, CNG_DEACTIVATED_BIAS);
	node->type = type;
	node->state = CNG_STATE_NEW;
	node->flags = flags;
	node->children = RB_ROOT;
	RB_CLEAR_NODE(&node->sib);
	INIT_LIST_HEAD(&node->rm_entry);
	node->id = id;
	node->item = item;
	node->btime = ktime_get_coarse_real();
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

void cng_node_put(struct cng_node *node)
{
	while (node && node != &cng_root_node &&
	       refcount_dec_and_test(&node->ref)) {
		struct cng_node *parent = node->parent;

		if (node->type == CNG_NODE_LINK && node->ext->target)
			cng_node_put(node->ext->target);
		/* @rcu overlays @rm_entry: no remover holds the node now. */
		call_rcu(&node->rcu, cng_node_free_rcu);
		node = parent;
	}
}

bool cng_node_get_active(struct cng_node *node)
{
	return atomic_inc_unless_negative(&node->active);
}

void cng_node_put_active(struct cng_node *node)
{
	if (atomic_dec_return(&node->active) == CNG_DEACTIVATED_BIAS)
		wake_up_all(&cng_node_wq);
}

/* A NEW node turns LIVE and accepts active references. */
void cng_node_activate_locked(struct cng_node *node)
{
	lockdep_assert_held(&cng_tree_mutex);
	atomic_sub(CNG_DEACTIVATED_BIAS, &node->active);
	cng_node_set_state_locked(node, CNG_STATE_LIVE);
}

/* A LIVE node turns DROPPING and refuses new active references. */
void cng_node_deactivate_locked(struct cng_node *node)
{
	lockdep_assert_held(&cng_tree_mutex);
	if (node->state == CNG_STATE_LIVE)
		atomic_add(CNG_DEACTIVATED_BIAS, &node->active);
	cng_node_set_state_locked(node, CNG_STATE_DROPPING);
}

/**
 * cng_node_drain() - wait until a deactivated node has no active user
 * @node: the node, deactivated by the caller
 *
 * Context: process; sleeps. The caller must hold no lock that a client
 * callback might take: no su_mutex, no lock of ours.
 */
void cng_node_drain(struct cng_node *node)
{
	wait_event(cng_node_wq,
		   atomic_read(&node->active) == CNG_DEACTIVATED_BIAS);
}

void cng_node_set_state_locked(struct cng_node *node,
			       enum cng_node_state state)
{
	lockdep_assert_held(&cng_tree_mutex);
	WRITE_ONCE(node->state, state);
	wake_up_all(&cng_node_wq);
}

/**
 * cng_node_wait_state() - wait for a node to leave a state
 * @node: the node; the caller holds a reference
 * @from: the state it was seen in
 *
 * Context: process; sleeps; no lock of ours held.
 */
void cng_node_wait_state(struct cng_node *node, enum cng_node_state from)
{
	wait_event(cng_node_wq, READ_ONCE(node->state) != from);
}

/**
 * cng_node_find_locked() - look a child up by name
 * @parent: the directory
 * @name: the name
 *
 * Context: cng_tree_mutex held.
 * Return: the child in whatever state, uncounted, or NULL.
 */
struct cng_node *cng_node_find_locked(struct cng_node *parent,
				      const char *name)
{
	struct rb_node *rb = parent->children.rb_node;

	lockdep_assert_held(&cng_tree_mutex);
	while (rb) {
		struct cng_node *node = rb_entry(rb, struct cng_node, sib);
		int cmp = strcmp(name, node->name);

		if (cmp < 0)
			rb = rb->rb_left;
		else if (cmp > 0)
			rb = rb->rb_right;
		else
			return node;
	}
	return NULL;
}

/**
 * cng_node_next_locked() - the first child whose name sorts after a name
 * @parent: the directory
 * @after: the name, or NULL for the first child
 *
 * Readdir resumes from a name, so it neither repeats nor skips an entry
 * when others come and go meanwhile.
 *
 * Context: cng_tree_mutex held.
 * Return: the child, uncounted, or NULL.
 */
struct cng_node *cng_node_next_locked(struct cng_node *parent,
				      const char *after)
{
	struct rb_node *rb = parent->children.rb_node;
	struct cng_node *best = NULL;

	lockdep_assert_held(&cng_tree_mutex);
	if (!after) {
		rb = rb_first(&parent->children);
		return rb ? rb_entry(rb, struct cng_node, sib) : NULL;
	}
	while (rb) {
		struct cng_node *node = rb_entry(rb, struct cng_node, sib);

		if (strcmp(after, node->name) < 0) {
			best = node;
			rb = rb->rb_left;
		} else {
			rb = rb->rb_right;
		}
	}
	return best;
}

/**
 * cng_node_link_locked() - link a NEW node under its parent
 * @parent: the directory
 * @node: the node; the tree takes over the caller's reference
 *
 * Context: cng_tree_mutex held.
 * Return: 0, -EEXIST if the name or the item is taken, or -ENOENT if
 * @parent is being removed.
 */
int cng_node_link_locked(struct cng_node *parent, struct cng_node *node)
{
	struct rb_node **link = &parent->children.rb_node;
	struct rb_node *rb_parent = NULL;
	int ret;

	lockdep_assert_held(&cng_tree_mutex);
	if (parent->state == CNG_STATE_DROPPING ||
	    parent->state == CNG_STATE_DEAD)
		return -ENOENT;
	while (*link) {
		struct cng_node *pos = rb_entry(*link, struct cng_node, sib);
		int cmp = strcmp(node->name, pos->name);

		rb_parent = *link;
		if (cmp < 0)
			link = &(*link)->rb_left;
		else if (cmp > 0)
			link = &(*link)->rb_right;
		else
			return -EEXIST;
	}
	if (node->type == CNG_NODE_DIR) {
		ret = rhashtable_lookup_insert_fast(&cng_item_table,
						    &node->hash,
						    cng_item_params);
		if (ret)
			return ret == -EEXIST ? -EEXIST : ret;
	}
	rb_link_node(&node->sib, rb_parent, link);
	rb_insert_color(&node->sib, &parent->children);
	node->parent = cng_node_get(parent);
	if (node->flags & CNG_NODE_USER)
		parent->nr_user++;
	if (node->type == CNG_NODE_DIR)
		parent->nr_subdirs++;
	return 0;
}

/**
 * cng_node_unlink_locked() - take a node out of the tree, mark it DEAD
 * @node: the node; the tree's reference passes to the caller
 *
 * Context: cng_tree_mutex held.
 */
void cng_node_unlink_locked(struct cng_node *node)
{
	struct cng_node *parent = node->parent;

	lockdep_assert_held(&cng_tree_mutex);
	if (WARN_ON_ONCE(RB_EMPTY_NODE(&node->sib)))
		return;
	rb_erase(&node->sib, &parent->children);
	RB_CLEAR_NODE(&node->sib);
	if (node->flags & CNG_NODE_USER)
		parent->nr_user--;
	if (node->type == CNG_NODE_DIR) {
		parent->nr_subdirs--;
		rhashtable_remove_fast(&cng_item_table, &node->hash,
				       cng_item_params);
	}
	cng_node_set_state_locked(node, CNG_STATE_DEAD);
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
	return rhashtable_lookup_fast(&cng_item_table, &item,
				      cng_item_params);
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
 *
 * Context: cng_tree_mutex held; sleeps (GFP_KERNEL).
 * Return: the extension, or NULL if it could not be allocated.
 */
struct cng_node_ext *cng_node_ext_locked(struct cng_node *node)
{
	struct cng_node_ext *ext;

	lockdep_assert_held(&cng_tree_mutex);
	if (node->ext)
		return node->ext;
	ext = kzalloc(sizeof(*ext), GFP_KERNEL);
	if (!ext)
		return NULL;
	ext->node = node;
	INIT_LIST_HEAD(&ext->incoming);
	INIT_LIST_HEAD(&ext->in_link);
	node->ext = ext;
	return ext;
}

/*
 * The node keeps its name when the client renames or frees the item's:
 * config_item_set_name() calls this on any item linked in the hierarchy.
 */
int cng_node_unshare_name(const struct config_item *item)
{
	struct cng_node *node;
	const char *name;
	int ret = 0;

	if (!item->ci_name)
		return 0;
	mutex_lock(&cng_tree_mutex);
	node = cng_node_from_item_locked(item);
	if (node && node != &cng_root_node && node->name == item->ci_name) {
		name = kstrdup(node->name, GFP_KERNEL);
		if (name) {
			node->name = name;
			node->own_name = true;
		} else {
			ret = -ENOMEM;
		}
	}
	mutex_unlock(&cng_tree_mutex);
	return ret;
}

int cng_node_init(void)
{
	int ret;

	cng_node_cache = kmem_cache_create("cng_node_cache",
					   sizeof(struct cng_node), 0, 0, NULL);
	if (!cng_node_cache)
		return -ENOMEM;
	cng_root_node.btime = ktime_get_coarse_real();
	config_group_init(&cng_root_group);
	ret = rhashtable_init(&cng_item_table, &cng_item_params);
	if (ret)
		kmem_cache_destroy(cng_node_cache);
	return ret;
}

void cng_node_exit(void)
{
	/* Nodes are freed by RCU callbacks that live in this module. */
	rcu_barrier();
	/* Every subsystem is gone and nothing is mounted: a node left leaked. */
	WARN(atomic_long_read(&cng_nodes_live), "configfs: %ld nodes leaked\n",
	     atomic_long_read(&cng_nodes_live));
	rhashtable_destroy(&cng_item_table);
	ida_destroy(&cng_node_ida);
	cng_node_ext_free(cng_root_node.ext);
	cng_root_node.ext = NULL;
	kmem_cache_destroy(cng_node_cache);
}
