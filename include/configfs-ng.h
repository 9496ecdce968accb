/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configfs-ng.h - what configfs-ng offers its clients beyond stock configfs
 *
 * A client that includes this header and calls these functions needs
 * configfs-ng's configfs.ko; one that does not sees no difference from
 * stock. The names start with cfgng_, never configfs_, so that no future
 * function of upstream configfs can collide with them.
 *
 * See docs/extensions.md for the user's side of each call.
 */
#ifndef _CONFIGFS_NG_H
#define _CONFIGFS_NG_H

#include <linux/compiler_attributes.h>

struct config_item;
struct configfs_attribute;

/* Defined for clients that want to build against both configfs modules. */
#define CONFIGFS_NG_API	1

__printf(2, 3)
int cfgng_report(struct config_item *item, const char *fmt, ...);

void cfgng_notify(struct config_item *item,
		  const struct configfs_attribute *attr);

#endif /* _CONFIGFS_NG_H */
