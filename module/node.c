// SPDX-License-Identifier: GPL-2.0
/*
 * The backing tree: nodes for directories and symlinks, their linkage,
 * their references and active references, and the item-to-node table.
 *
 * The tree, not the dcache, is the truth of what exists. Dentries and
 * inodes are built from it on lookup and may be reclaimed at any time.
 */
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>

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

/*
 * Node ids, the high bits of inode numbers; 0 is the root's. An id is
 * freed with its node, so after the last inode using it is gone: no two
 * live inodes share a number, and numbers stay small enough for 32-bit
 * stat() and getdents().
 *
 * A bitmap of the ids in use, grown by doubling, and a hint below which
 * no id is free: an allocation mostly reads one word, a free clears one
 * bit. Cheaper than an IDA, whose search of its tree of bitmaps under an
 * irq-safe lock was the largest cost of a mkdir that tmpfs does not pay;
 * as small (a bit or two per id, at the most ids ever live at once).
 *
 * cng_id_lock (taken with bottom halves off: ids are freed in softirq,
 * from the RCU callback) protects the three; the map is replaced, never
 * shrunk, and only by cng_id_alloc().
 */
static DEFINE_SPINLOCK(cng_id_lock);
static unsigned long *cng_id_map;	/* bit n set: id n is in use */
static unsigned int cng_id_bits;	/* bits in cng_id_map */
static unsigned int cng_id_hint;	/* no free id below it */

static int cng_id_alloc(void)
{
	unsigned long *map, *old;
	unsigned int bits, id;

	for (;;) {
		spin_lock_bh(&cng_id_lock);
		id = cng_id_map ? find_next_zero_bit(cng_id_map, cng_id_bits,
						     cng_id_hint) : 0;
		if (cng_id_map && id < cng_id_bits) {
			__set_bit(id, cng_id_map);
			cng_id_hint = id + 1;
			spin_unlock_bh(&cng_id_lock);
			return id;
		}
		bits = cng_id_bits;
		spin_unlock_bh(&cng_id_lock);

		if (bits >= INT_MAX / 2)
			return -ENOSPC;
		bits = max(2 * bits, 4096U);
		map = kvcalloc(BITS_TO_LONGS(bits), sizeof(long), GFP_KERNEL);
		if (!map)
			return -ENOMEM;
		spin_lock_bh(&cng_id_lock);
		old = map;
		if (bits > cng_id_bits) {
			if (cng_id_map)
				bitmap_copy(map, cng_id_map, cng_id_bits);
			else
				__set_bit(0, map);	/* the root's */
			old = cng_id_map;
			cng_id_map = map;
			cng_id_bits = bits;
		}
		spin_unlock_bh(&cng_id_lock);
		kvfree(old);
	}
}

/* Context: any but hard irq. */
static void cng_id_free(unsigned int id)
{
	spin_lock_bh(&cng_id_lock);
	__clear_bit(id, cng_id_map);
	cng_id_hint = min(cng_id_hint, id);
	spin_unlock_bh(&cng_id_lock);
}

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

/* The salt of cng_name_hash(): random, drawn at load. */
static unsigned long cng_name_salt __ro_after_init;

/**
 * cng_name_hash() - the hash of a name for the name table
 * @name: the name
 * @len: its length
 *
 * The dcache's hash, salted once per load so that nobody can choose names
 * that fall in one chain of the name table.
 *
 * Context: any.
 * Return: the hash.
 */
u32 cng_name_hash(const char *name, unsigned int len)
{
	return full_name_hash((void *)cng_name_salt, name, len);
}

/*
 * The namespace of a directory's children: the directory itself, but for
 * pending/ and live/ of a committable group, whose children share one
 * (the group's address plus one, which no node has): a name is taken in
 * both at once, and a commit moves a node without rehashing it. A stage
 * directory's parent is set before it has children and stays while it
 * has any, so either of the pair gives the same answer to a reader
 * without the tree mutex.
 */
static const void *cng_name_space(const struct cng_node *dir)
{
	if (dir->flags & CNG_NODE_STAGE)
		return (const char *)dir->parent + 1;
	return dir;
}

/* A commit changes @parent, between two directories of one namespace. */
static const void *cng_node_name_space(const struct cng_node *node)
{
	return cng_name_space(READ_ONCE(node->parent));
}

/*
 * The name table: every linked node but the root, by namespace and name
 * hash, so that a lookup or a mkdir costs the same with ten siblings or a
 * million. A bucket is one pointer, the head of a chain through the
 * nodes' @hnext. The table doubles when it holds more than two entries a
 * bucket and halves below one in two (never below CNG_NAMES_MIN_SHIFT),
 * so that past its first size it costs 4 to 8 bytes an entry after
 * growth, at most 16 before a shrink; the array has no header, so a
 * large one is exactly its power-of-two pages.
 *
 * Changed only under cng_tree_mutex, and read under it, or under RCU
 * alone by cng_node_absent(). An entry goes in at the head of its chain,
 * published by a release store once complete; it leaves by the pointer
 * to it being pointed past it, its own @hnext unchanged, so a reader
 * standing on it walks on; its memory outlives the removal by a grace
 * period (cng_node_put()). A resize relinks every entry into a new array
 * and publishes it inside a write section of cng_names_seq: a reader
 * that overlaps one may have been led into another chain, so it answers
 * "maybe", and its walk is bounded besides. The old array goes after a
 * grace period.
 */
struct cng_names {
	struct cng_node __rcu	**buckets;
	unsigned int		shift;	/* 1 << shift buckets */
	struct rcu_head		rcu;
};

/* 8 kB of buckets: the first two thousand mkdirs resize nothing. */
#define CNG_NAMES_MIN_SHIFT	10
/* A walk under RCU alone gives up ("maybe") after as many entries. */
#define CNG_NAMES_WALK_MAX	64

static struct cng_names __rcu *cng_names;
/* Entries in the table; under cng_tree_mutex. */
static unsigned long cng_names_count;
/*
 * Odd while a resize relinks the entries. Written under cng_tree_mutex
 * (which serialises writers); its readers never wait for it (they answer
 * "maybe" instead), so the writer may be preempted and may sleep.
 */
static seqcount_t cng_names_seq = SEQCNT_ZERO(cng_names_seq);
static u32 cng_names_seed __ro_after_init;

static unsigned int cng_names_index(const struct cng_names *tbl,
				    const void *space, u32 hash)
{
	return jhash_2words(hash, hash_ptr(space, 32), cng_names_seed) >>
	       (32 - tbl->shift);
}

/* Under RCU, the namespace of a node still linked a grace period ago. */
static bool cng_names_match(const struct cng_node *node, const void *space,
			    u32 hash)
{
	return node->name_hash == hash && cng_node_name_space(node) == space;
}

static struct cng_names *cng_names_locked(void)
{
	return rcu_dereference_protected(cng_names,
					 lockdep_is_held(&cng_tree_mutex));
}

static struct cng_names *cng_names_alloc(unsigned int shift, gfp_t gfp)
{
	struct cng_names *tbl;

	tbl = kmalloc(sizeof(*tbl), gfp);
	if (!tbl)
		return NULL;
	tbl->shift = shift;
	tbl->buckets = kvcalloc(1UL << shift, sizeof(*tbl->buckets), gfp);
	if (!tbl->buckets) {
		kfree(tbl);
		return NULL;
	}
	return tbl;
}

static void cng_names_free(struct cng_names *tbl)
{
	kvfree(tbl->buckets);
	kfree(tbl);
}

static void cng_names_free_rcu(struct rcu_head *rcu)
{
	cng_names_free(container_of(rcu, struct cng_names, rcu));
}

/*
 * Relink every entry into a table of 1 << @shift buckets. Without the
 * memory, the table stays as it is: longer chains, still correct.
 */
static void cng_names_resize_locked(unsigned int shift)
{
	struct cng_names *old = cng_names_locked(), *tbl;
	struct cng_node __rcu **bucket;
	struct cng_node *node, *next;
	unsigned int i;

	lockdep_assert_held(&cng_tree_mutex);
	tbl = cng_names_alloc(shift, GFP_KERNEL | __GFP_NOWARN);
	if (!tbl)
		return;
	raw_write_seqcount_begin(&cng_names_seq);
	for (i = 0; i < 1U << old->shift; i++) {
		node = rcu_dereference_protected(old->buckets[i], true);
		for (; node; node = next) {
			next = rcu_dereference_protected(node->hnext, true);
			bucket = &tbl->buckets[cng_names_index(tbl,
						cng_node_name_space(node),
						node->name_hash)];
			RCU_INIT_POINTER(node->hnext,
					 rcu_dereference_protected(*bucket,
								   true));
			/* Not yet published: no reader sees @tbl. */
			RCU_INIT_POINTER(*bucket, node);
		}
		if (!(i & 1023))
			cond_resched();
	}
	rcu_assign_pointer(cng_names, tbl);
	raw_write_seqcount_end(&cng_names_seq);
	call_rcu(&old->rcu, cng_names_free_rcu);
}

/* Context: cng_tree_mutex held. The name of an entry is read. */
static struct cng_node *cng_names_find_locked(const void *space,
					      const char *name, u32 hash)
{
	struct cng_names *tbl = cng_names_locked();
	unsigned int i = cng_names_index(tbl, space, hash);
	struct cng_node *node;

	node = rcu_dereference_protected(tbl->buckets[i], true);
	for (; node; node = rcu_dereference_protected(node->hnext, true))
		if (cng_names_match(node, space, hash) &&
		    !strcmp(node->name, name))
			return node;
	return NULL;
}

/* Context: cng_tree_mutex held; @node's parent and hash are set. */
static void cng_names_insert_locked(struct cng_node *node)
{
	struct cng_names *tbl = cng_names_locked();
	struct cng_node __rcu **bucket;

	bucket = &tbl->buckets[cng_names_index(tbl, cng_node_name_space(node),
					       node->name_hash)];
	RCU_INIT_POINTER(node->hnext, rcu_dereference_protected(*bucket, true));
	/* Pairs with cng_node_absent()'s rcu_dereference(). */
	rcu_assign_pointer(*bucket, node);
	if (++cng_names_count > 2UL << tbl->shift)
		cng_names_resize_locked(tbl->shift + 1);
}

/* Context: cng_tree_mutex held; @node is in the table. */
static void cng_names_remove_locked(struct cng_node *node)
{
	struct cng_names *tbl = cng_names_locked();
	struct cng_node __rcu **link;
	struct cng_node *cur;

	link = &tbl->buckets[cng_names_index(tbl, cng_node_name_space(node),
					     node->name_hash)];
	while ((cur = rcu_dereference_protected(*link, true)) != node) {
		if (WARN_ON_ONCE(!cur))
			return;
		link = &cur->hnext;
	}
	/* @node keeps its @hnext: a reader standing on it walks on. */
	RCU_INIT_POINTER(*link, rcu_dereference_protected(node->hnext, true));
	if (--cng_names_count < 1UL << (tbl->shift - 1) &&
	    tbl->shift > CNG_NAMES_MIN_SHIFT)
		cng_names_resize_locked(tbl->shift - 1);
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
 * cng_node_absent() - whether a directory surely has no child of a name
 * @parent: the directory
 * @hash: cng_name_hash() of the name
 *
 * Without the tree mutex: a lookup of a name that is not there (every
 * mkdir's) takes no lock of ours. The answer may be stale as soon as it
 * is given, as a locked one may be once the mutex is dropped.
 *
 * Context: any; lockless (RCU).
 * Return: true if no linked child's name has @hash; false if one may.
 */
bool cng_node_absent(const struct cng_node *parent, u32 hash)
{
	const void *space = cng_name_space(parent);
	const struct cng_names *tbl;
	const struct cng_node *node;
	unsigned int seq, steps = 0;
	bool absent = false;

	seq = raw_read_seqcount(&cng_names_seq);
	if (seq & 1)
		return false;
	rcu_read_lock();
	tbl = rcu_dereference(cng_names);
	node = rcu_dereference(tbl->buckets[cng_names_index(tbl, space, hash)]);
	for (; node; node = rcu_dereference(node->hnext))
		if (cng_names_match(node, space, hash) ||
		    ++steps > CNG_NAMES_WALK_MAX)
			goto out_unlock;
	absent = !read_seqcount_retry(&cng_names_seq, seq);
out_unlock:
	rcu_read_unlock();
	return absent;
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
	node = cng_names_find_locked(cng_name_space(parent), name, hash);
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
	if (cng_names_find_locked(cng_name_space(parent), node->name,
				  node->name_hash))
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
	cng_name_salt = get_random_long();
	config_group_init(&cng_root_group);
	cng_names_seed = get_random_u32();
	/* Published before any reader can run: the module is not live. */
	RCU_INIT_POINTER(cng_names, cng_names_alloc(CNG_NAMES_MIN_SHIFT,
						    GFP_KERNEL));
	if (!rcu_access_pointer(cng_names)) {
		kmem_cache_destroy(cng_node_cache);
		return -ENOMEM;
	}
	return 0;
}

void cng_node_exit(void)
{
	/* Nodes are freed by RCU callbacks that live in this module. */
	rcu_barrier();
	/* Every subsystem is gone and nothing is mounted: a node left leaked. */
	WARN(atomic_long_read(&cng_nodes_live), "configfs: %ld nodes leaked\n",
	     atomic_long_read(&cng_nodes_live));
	/* Empty, and no resize callback left after the barrier. */
	cng_names_free(rcu_dereference_protected(cng_names, true));
	RCU_INIT_POINTER(cng_names, NULL);
	cng_names_count = 0;
	kvfree(cng_id_map);
	cng_id_map = NULL;
	cng_id_bits = 0;
	cng_id_hint = 0;
	cng_node_ext_free(cng_root_node.ext);
	cng_root_node.ext = NULL;
	kmem_cache_destroy(cng_node_cache);
}
