// SPDX-License-Identifier: GPL-2.0
/*
 * The name table: every node linked in the tree, by its directory's
 * namespace and its name's hash, so that a lookup or a mkdir costs the
 * same with ten siblings or a million.
 */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/stringhash.h>

#include "internal.h"

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
/**
 * cng_names_find_locked() - a child of a directory's namespace, by name
 * @dir: the directory; pending/ and live/ share one namespace
 * @name: the name
 * @hash: cng_name_hash() of @name
 *
 * Context: cng_tree_mutex held.
 * Return: the node, uncounted, or NULL.
 */
struct cng_node *cng_names_find_locked(const struct cng_node *dir,
				       const char *name, u32 hash)
{
	const void *space = cng_name_space(dir);
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
void cng_names_insert_locked(struct cng_node *node)
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
void cng_names_remove_locked(struct cng_node *node)
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

int cng_names_init(void)
{
	cng_name_salt = get_random_long();
	cng_names_seed = get_random_u32();
	/* Published before any reader can run: the module is not live. */
	RCU_INIT_POINTER(cng_names, cng_names_alloc(CNG_NAMES_MIN_SHIFT,
						    GFP_KERNEL));
	return rcu_access_pointer(cng_names) ? 0 : -ENOMEM;
}

void cng_names_exit(void)
{
	/* Empty, and no resize callback left after cng_node_exit(). */
	cng_names_free(rcu_dereference_protected(cng_names, true));
	RCU_INIT_POINTER(cng_names, NULL);
	cng_names_count = 0;
}
