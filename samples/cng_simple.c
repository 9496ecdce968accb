// SPDX-License-Identifier: GPL-2.0
/*
 * The helper layer (configfs-ng-helpers.h) at its simplest: a subsystem
 * with a read-only description, in which mkdir makes children with one
 * read-write integer, storeme. Stock's sample "02-simple-children" does
 * the same in some ninety lines; this is seven (docs/extensions.md,
 * "Helpers: a client in seven lines"). It needs configfs_helpers.ko, and
 * loads on stock configfs.ko too.
 *
 *   /sys/kernel/config/cng_simple/
 *     description     what this is
 *     NAME/           mkdir makes a child
 *       storeme       an integer, 0 at first
 */
#include <configfs-ng-helpers.h>

struct cng_simple_item {
	struct config_item	item;
	int			storeme;
};

CFGNG_ATTR_INT(cng_simple_item, item, storeme);
CFGNG_CHILD(cng_simple_item, item, CFGNG_ATTRS(&cng_simple_item_attr_storeme));
CFGNG_ATTR_CONST(cng_simple, description, "[cng_simple]\n\nmkdir makes children with storeme.\n");
CFGNG_SIMPLE_SUBSYSTEM(cng_simple, cng_simple_item, &cng_simple_attr_description);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng sample: 02-simple-children with the helpers");
