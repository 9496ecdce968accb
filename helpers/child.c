// SPDX-License-Identifier: GPL-2.0
/*
 * Simple groups: the children that mkdir makes in a CFGNG_GROUP(), their
 * struct allocated zeroed and freed by their release.
 */
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/slab.h>

#include <configfs-ng-helpers.h>

#include "internal.h"

/**
 * cfgng_child_make() - makes a child (the group's make_item or make_group)
 * @child: what to make
 * @type: its item type
 * @group: the group it is made in
 * @name: its name
 *
 * Allocates the client's struct zeroed, initialises its item (or group)
 * with @name and @type, and calls @child->init. When that refuses, the
 * item is put: its release (cfgng_child_release()) frees the struct.
 *
 * Context: process context; may sleep.
 * Return: the child's item, or an ERR_PTR().
 */
struct config_item *cfgng_child_make(const struct cfgng_child *child,
				     const struct config_item_type *type,
				     struct config_group *group,
				     const char *name)
{
	struct config_item *item;
	char *obj;
	int ret;

	obj = kzalloc(child->size, GFP_KERNEL);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	item = (struct config_item *)(obj + child->offset);
	if (child->is_group)
		config_group_init_type_name(to_config_group(item), name, type);
	else
		config_item_init_type_name(item, name, type);
	if (child->init) {
		ret = child->init(group, item);
		if (ret) {
			config_item_put(item);
			return ERR_PTR(ret);
		}
	}
	return item;
}
EXPORT_SYMBOL_GPL(cfgng_child_make);

/**
 * cfgng_child_release() - releases a child (its type's release)
 * @child: what it was made as
 * @item: its item
 *
 * Calls @child->release, then frees the client's struct.
 *
 * Context: that of the last config_item_put().
 */
void cfgng_child_release(const struct cfgng_child *child,
			 struct config_item *item)
{
	if (child->release)
		child->release(item);
	kfree((char *)item - child->offset);
}
EXPORT_SYMBOL_GPL(cfgng_child_release);
