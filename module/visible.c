// SPDX-License-Identifier: GPL-2.0
/*
 * Attributes an item hides. A group type's is_visible and is_bin_visible
 * (configfs_group_operations, 6.12) are asked once for each attribute of
 * an item, when the item's directory is made, as stock asks them; an
 * attribute refused then has no file in that directory for the item's
 * life, whatever the callbacks say later.
 *
 * The callbacks are asked before the tree mutex is taken, and the answers
 * wait in a list until cng_attach() links the items' nodes. Only an item
 * that hides something keeps a bitmap, in its node's extension.
 */
#include <linux/bitmap.h>
#include <linux/configfs.h>
#include <linux/list.h>
#include <linux/slab.h>

#include "internal.h"

/**
 * struct cng_hidden - the attributes one item hides
 * @entry: entry in the list cng_visible_ask() fills, until a node takes it
 * @item: the item
 * @bits: bit (slot - 1) is set for each hidden attribute
 *
 * Owned by the list, then by the node's extension, freed with it.
 * Constant once the node is LIVE.
 */
struct cng_hidden {
	struct list_head		entry;
	const struct config_item	*item;
	unsigned long			bits[];
};

#ifdef CNG_HAVE_IS_VISIBLE
static bool cng_type_may_hide(const struct config_item_type *type)
{
	const struct configfs_group_operations *ops = type->ct_group_ops;

	return ops && (ops->is_visible || ops->is_bin_visible);
}

static bool cng_attr_is_visible(struct config_item *item,
				struct configfs_attribute *attr, int n)
{
	const struct configfs_group_operations *ops =
		item->ci_type->ct_group_ops;

	return !ops->is_visible || ops->is_visible(item, attr, n);
}

static bool cng_bin_attr_is_visible(struct config_item *item,
				    struct configfs_bin_attribute *attr, int n)
{
	const struct configfs_group_operations *ops =
		item->ci_type->ct_group_ops;

	return !ops->is_bin_visible || ops->is_bin_visible(item, attr, n);
}
#else
/* Before 6.12 a group type cannot hide attributes: every one is shown. */
static bool cng_type_may_hide(const struct config_item_type *type)
{
	return false;
}

static bool cng_attr_is_visible(struct config_item *item,
				struct configfs_attribute *attr, int n)
{
	return true;
}

static bool cng_bin_attr_is_visible(struct config_item *item,
				    struct configfs_bin_attribute *attr, int n)
{
	return true;
}
#endif /* CNG_HAVE_IS_VISIBLE */

/* Slots of an item's attributes: its text ones, then its binary ones. */
static unsigned int cng_visible_slots(const struct config_item_type *type)
{
	unsigned int n = 0;
	int i;

	for (i = 0; type->ct_attrs && type->ct_attrs[i]; i++)
		n++;
	for (i = 0; type->ct_bin_attrs && type->ct_bin_attrs[i]; i++)
		n++;
	return min(n, CNG_MAX_SLOT);
}

/* Ask about one item's attributes; add an entry if it hides any. */
static int cng_visible_ask_item(struct config_item *item,
				struct list_head *hidden)
{
	const struct config_item_type *type = item->ci_type;
	unsigned int slot = 0, nr;
	struct cng_hidden *h;
	bool any = false;
	int i;

	if (!type || !cng_type_may_hide(type))
		return 0;
	nr = cng_visible_slots(type);
	h = kzalloc(struct_size(h, bits, BITS_TO_LONGS(nr)), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	for (i = 0; type->ct_attrs && type->ct_attrs[i] && slot < nr;
	     i++, slot++) {
		if (!cng_attr_is_visible(item, type->ct_attrs[i], i)) {
			__set_bit(slot, h->bits);
			any = true;
		}
	}
	for (i = 0; type->ct_bin_attrs && type->ct_bin_attrs[i] && slot < nr;
	     i++, slot++) {
		if (!cng_bin_attr_is_visible(item, type->ct_bin_attrs[i], i)) {
			__set_bit(slot, h->bits);
			any = true;
		}
	}
	if (!any) {
		kfree(h);
		return 0;
	}
	h->item = item;
	list_add_tail(&h->entry, hidden);
	return 0;
}

/**
 * cng_visible_ask() - ask which attributes an item and its groups hide
 * @item: the item about to be attached
 * @group: @item is a config_group: ask for its default groups too
 * @hidden: an empty list, filled with an entry per item that hides some
 *
 * Context: process; sleeps; no lock of ours held (calls the client).
 * Return: 0 or -ENOMEM; either way cng_visible_free() empties @hidden.
 */
int cng_visible_ask(struct config_item *item, bool group,
		    struct list_head *hidden)
{
	struct config_group *child;
	int ret;

	ret = cng_visible_ask_item(item, hidden);
	if (ret || !group)
		return ret;
	list_for_each_entry(child, &to_config_group(item)->default_groups,
			    group_entry) {
		ret = cng_visible_ask(&child->cg_item, true, hidden);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * cng_visible_give_locked() - give a new node what its item hides
 * @node: a directory node, NEW
 * @hidden: the list cng_visible_ask() filled
 *
 * Context: cng_tree_mutex held; sleeps.
 * Return: 0, or -ENOMEM if the node's extension could not be allocated.
 */
int cng_visible_give_locked(struct cng_node *node, struct list_head *hidden)
{
	struct cng_node_ext *ext;
	struct cng_hidden *h;

	lockdep_assert_held(&cng_tree_mutex);
	list_for_each_entry(h, hidden, entry) {
		if (h->item != node->item)
			continue;
		ext = cng_node_ext_locked(node, GFP_KERNEL);
		if (!ext)
			return -ENOMEM;
		list_del(&h->entry);
		/* Read under active references, taken once the node is LIVE. */
		ext->hidden = h;
		return 0;
	}
	return 0;
}

/**
 * cng_visible_free() - free what no node took
 * @hidden: the list cng_visible_ask() filled
 */
void cng_visible_free(struct list_head *hidden)
{
	struct cng_hidden *h, *next;

	list_for_each_entry_safe(h, next, hidden, entry)
		kfree(h);
	INIT_LIST_HEAD(hidden);
}

/**
 * cng_attr_hidden() - whether a directory hides an attribute
 * @dir: the item's directory
 * @slot: the attribute's slot (1-based)
 *
 * Context: an active reference on @dir, or cng_tree_mutex held.
 * Return: true if the item's type refused the attribute when the
 * directory was made.
 */
bool cng_attr_hidden(const struct cng_node *dir, unsigned int slot)
{
	const struct cng_node_ext *ext;

	ext = cng_node_ext_peek(dir);
	return ext && ext->hidden && test_bit(slot - 1, ext->hidden->bits);
}
