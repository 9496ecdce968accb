// SPDX-License-Identifier: GPL-2.0
/*
 * Typed attributes: the show and store that the CFGNG_ATTR_*() macros
 * generate call these, with the field they found in the client's struct.
 *
 * Each item's typed fields are read and written under a lock of the item,
 * which a store also holds across its .check, so that a check and the
 * write it allows are one step. The locks are hashed by the item's
 * address (an item has no room for one of ours, and may not be made by
 * the helpers): items that share a lock only wait for each other. A lock
 * is a spinlock, held for a copy, a format or a check, never across a
 * call that sleeps, and never with another item's lock (two items may
 * share one).
 */
#include <linux/cache.h>
#include <linux/configfs.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include <configfs-ng-helpers.h>

#include "internal.h"

#define CNG_ITEM_LOCK_BITS	8

/* The items' typed fields, and a store's check with its write; by hash. */
static spinlock_t cng_item_locks[1 << CNG_ITEM_LOCK_BITS] __cacheline_aligned;

/*
 * Where a store parses a value before it is checked and stored: fields up
 * to an address's size here, larger ones (strings) in a buffer of their
 * own, so that a field's size never becomes a stack frame's.
 */
union cng_attr_value {
	u64				n;
	struct sockaddr_storage		addr;
};

static spinlock_t *cng_item_lock_of(const struct config_item *item)
{
	return &cng_item_locks[hash_ptr(item, CNG_ITEM_LOCK_BITS)];
}

/**
 * cfgng_item_lock() - take the lock of an item's typed fields
 * @item: the item whose attributes the fields back (the ``m`` given to
 *	  CFGNG_ATTR_*())
 *
 * The helpers' show reads a field, and their store checks (.check) and
 * writes one, under this lock. A client takes it to read or write a
 * string or an address field itself, or to see every store either done or
 * refused (set a flag that .check reads, then take and drop it). Hold it
 * briefly: no sleeping, and no other item's lock, while it is held.
 *
 * Context: any but interrupt context; takes a spinlock.
 */
void cfgng_item_lock(struct config_item *item)
	__acquires(item)
{
	spin_lock(cng_item_lock_of(item));
}
EXPORT_SYMBOL_GPL(cfgng_item_lock);

/**
 * cfgng_item_unlock() - release the lock cfgng_item_lock() took
 * @item: the same item
 *
 * Context: holds the lock of @item's typed fields; releases it.
 */
void cfgng_item_unlock(struct config_item *item)
	__releases(item)
{
	spin_unlock(cng_item_lock_of(item));
}
EXPORT_SYMBOL_GPL(cfgng_item_unlock);

/**
 * cfgng_attr_show() - a typed attribute's show (the macros call it)
 * @a: the attribute
 * @item: the item it is shown for
 * @field: the field in the client's struct
 * @size: the field's size
 * @page: configfs's page
 *
 * Writes the field to @page in its kind's form, under @item's lock.
 *
 * Context: process context; takes @item's lock (cfgng_item_lock()).
 * Return: the bytes written to @page.
 */
ssize_t cfgng_attr_show(const struct cfgng_attr *a, struct config_item *item,
			const void *field, size_t size, char *page)
{
	const struct cng_kind *kind = cng_kind_get(a);
	ssize_t ret;

	if (!kind)
		return -EINVAL;
	cfgng_item_lock(item);
	ret = kind->format(a, field, size, page);
	cfgng_item_unlock(item);
	return ret;
}
EXPORT_SYMBOL_GPL(cfgng_attr_show);

/**
 * cfgng_attr_store() - a typed attribute's store (the macros call it)
 * @a: the attribute
 * @item: the item it is stored for
 * @field: the field in the client's struct
 * @size: the field's size
 * @page: the user's value, NUL-terminated
 * @count: its length
 *
 * Parses the value (or refuses it, with the reason, and the parser's
 * errno), asks @a->check and stores it in one step under @item's lock,
 * and calls @a->changed if the value changed.
 *
 * Context: process context; may sleep (a field larger than an address
 * is parsed into an allocated buffer); takes @item's lock.
 * Return: @count, or a negative errno.
 */
ssize_t cfgng_attr_store(const struct cfgng_attr *a, struct config_item *item,
			 void *field, size_t size, const char *page,
			 size_t count)
{
	const struct cng_kind *kind = cng_kind_get(a);
	union cng_attr_value small;
	const char *why = NULL;
	void *val = &small;
	bool changed;
	ssize_t ret;

	if (!kind || !kind->parse)
		return -EINVAL;
	if (size > sizeof(small)) {
		val = kzalloc(size, GFP_KERNEL);
		if (!val)
			return -ENOMEM;
	} else {
		memset(val, 0, size);
	}
	ret = kind->parse(item, a, page, count, val, size);
	if (ret)
		goto out_free;
	cfgng_item_lock(item);
	ret = a->check ? a->check(item, a->attr, val, &why) : 0;
	changed = !ret && memcmp(field, val, size);
	if (changed)
		memcpy(field, val, size);
	cfgng_item_unlock(item);
	if (ret) {
		cng_attr_refuse(item, a, page, count, "%s",
				why ?: "is refused");
		ret = ret < 0 ? ret : -EINVAL;
		goto out_free;
	}
	if (changed && a->changed)
		a->changed(item, a->attr);
	ret = count;
out_free:
	if (val != &small)
		kfree(val);
	return ret;
}
EXPORT_SYMBOL_GPL(cfgng_attr_store);

void cng_attr_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cng_item_locks); i++)
		spin_lock_init(&cng_item_locks[i]);
}
