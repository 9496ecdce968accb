// SPDX-License-Identifier: GPL-2.0
/*
 * The config_item and config_group model: names, initialisation, reference
 * counts, and the search of a group's children. Exports half of the API.
 *
 * The includes below are frozen: they are exactly those of the item.c
 * of the kernel's own configfs. Each exported symbol's modversion CRC is
 * computed from the types this file can see, so a different list would
 * give CRCs that differ from the distribution's, and its prebuilt
 * clients would refuse to load. For the same reason the only header of
 * ours is unshare.h, which declares one function and no type.
 */
#include <linux/string.h>
#include <linux/module.h>
#include <linux/stat.h>
#include <linux/slab.h>

#include <linux/configfs.h>

#include "unshare.h"

/* ci_dentry: the item's directory node once linked (node.c); none yet. */
static void cng_item_init(struct config_item *item)
{
	kref_init(&item->ci_kref);
	INIT_LIST_HEAD(&item->ci_entry);
	item->ci_dentry = NULL;
}

/* Give the node its own copy of the name before the item's changes. */
static void cng_item_unshare_name(struct config_item *item)
{
	if (item->ci_parent)
		cng_node_unshare_name(item);
}

/* Replace the item's name with @name, kept in the item or allocated. */
static void cng_item_replace_name(struct config_item *item, char *name)
{
	if (item->ci_name && item->ci_name != item->ci_namebuf)
		kfree(item->ci_name);
	item->ci_name = name;
}

/**
 * config_item_set_name() - set the name of an item
 * @item: the item
 * @fmt: a printf format for the name, and its arguments after it
 *
 * A name shorter than CONFIGFS_ITEM_NAME_LEN is kept in the item itself,
 * a longer one is allocated. The previous name, if allocated, is freed.
 * The directory keeps the name it was made with, as in stock: an item
 * already linked under a group may have a directory that shares its
 * name, which then takes a copy first (stock's directory has its own).
 *
 * Context: process; may sleep, even for a short name when @item is in the
 * tree (stock sleeps only for a long one).
 * Return: 0, or -EFAULT if a long name could not be allocated (stock's
 * errno).
 */
int config_item_set_name(struct config_item *item, const char *fmt, ...)
{
	va_list args;
	char *name;
	int need;

	/* Before ci_namebuf is written over or ci_name freed. */
	cng_item_unshare_name(item);
	va_start(args, fmt);
	need = vsnprintf(item->ci_namebuf, CONFIGFS_ITEM_NAME_LEN, fmt, args);
	va_end(args);
	if (need < CONFIGFS_ITEM_NAME_LEN) {
		name = item->ci_namebuf;
	} else {
		va_start(args, fmt);
		name = kvasprintf(GFP_KERNEL, fmt, args);
		va_end(args);
		if (!name)
			return -EFAULT;
	}
	cng_item_replace_name(item, name);
	return 0;
}
EXPORT_SYMBOL(config_item_set_name);

/**
 * config_item_init_type_name() - initialise an item with a name and type
 * @item: the item
 * @name: its name
 * @type: its type
 *
 * The item starts with one reference, which its creator owns.
 *
 * Context: process; may sleep.
 */
void config_item_init_type_name(struct config_item *item, const char *name,
				const struct config_item_type *type)
{
	config_item_set_name(item, "%s", name);
	item->ci_type = type;
	cng_item_init(item);
}
EXPORT_SYMBOL(config_item_init_type_name);

/**
 * config_group_init_type_name() - initialise a group with a name and type
 * @group: the group
 * @name: its name
 * @type: its type
 *
 * Context: process; may sleep.
 */
void config_group_init_type_name(struct config_group *group, const char *name,
				 const struct config_item_type *type)
{
	config_item_set_name(&group->cg_item, "%s", name);
	group->cg_item.ci_type = type;
	config_group_init(group);
}
EXPORT_SYMBOL(config_group_init_type_name);

/**
 * config_item_get() - take a reference on an item
 * @item: the item, or NULL
 *
 * Context: any.
 * Return: @item.
 */
struct config_item *config_item_get(struct config_item *item)
{
	if (item)
		kref_get(&item->ci_kref);
	return item;
}
EXPORT_SYMBOL(config_item_get);

/**
 * config_item_get_unless_zero() - take a reference unless it is the last
 * @item: the item, or NULL
 *
 * Context: any.
 * Return: @item, or NULL if its count had already fallen to zero.
 */
struct config_item *config_item_get_unless_zero(struct config_item *item)
{
	if (item && kref_get_unless_zero(&item->ci_kref))
		return item;
	return NULL;
}
EXPORT_SYMBOL(config_item_get_unless_zero);

/*
 * The last reference is gone: free an allocated name, let the client
 * release the item, then drop the references it held on its group and
 * parent, in stock's order.
 */
static void cng_item_release(struct kref *kref)
{
	struct config_item *item = container_of(kref, struct config_item,
						ci_kref);
	const struct config_item_type *type = item->ci_type;
	struct config_group *group = item->ci_group;
	struct config_item *parent = item->ci_parent;

	pr_debug("config_item %s: cleaning up\n", config_item_name(item));
	if (item->ci_name != item->ci_namebuf)
		kfree(item->ci_name);
	item->ci_name = NULL;
	if (type && type->ct_item_ops && type->ct_item_ops->release)
		type->ct_item_ops->release(item);
	if (group)
		config_group_put(group);
	if (parent)
		config_item_put(parent);
}

/**
 * config_item_put() - drop a reference on an item
 * @item: the item, or NULL
 *
 * The last put calls the type's release, then puts the item's group and
 * parent.
 *
 * Context: process when the put may be the last one.
 */
void config_item_put(struct config_item *item)
{
	if (item)
		kref_put(&item->ci_kref, cng_item_release);
}
EXPORT_SYMBOL(config_item_put);

/**
 * config_group_init() - initialise a group
 * @group: the group
 *
 * Context: any.
 */
void config_group_init(struct config_group *group)
{
	cng_item_init(&group->cg_item);
	INIT_LIST_HEAD(&group->cg_children);
	INIT_LIST_HEAD(&group->default_groups);
}
EXPORT_SYMBOL(config_group_init);

/**
 * config_group_find_item() - find a child of a group by its item name
 * @group: the group
 * @name: the item's name (ci_name)
 *
 * Context: the caller holds the subsystem's su_mutex.
 * Return: the item with a reference taken, or NULL.
 */
struct config_item *config_group_find_item(struct config_group *group,
					   const char *name)
{
	struct config_item *item;

	list_for_each_entry(item, &group->cg_children, ci_entry) {
		if (config_item_name(item) &&
		    !strcmp(config_item_name(item), name))
			return config_item_get(item);
	}
	return NULL;
}
EXPORT_SYMBOL(config_group_find_item);
