/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configfs-ng.h - what configfs-ng offers its clients beyond stock configfs
 *
 * A client that includes this header and calls these functions needs
 * configfs-ng's configfs.ko; one that does not sees no difference from
 * stock. The names start with cfgng_, never configfs_, so that no future
 * function of upstream configfs can collide with them. The helper layer
 * (typed attributes, simple groups) is <configfs-ng-helpers.h>, whose
 * code is configfs_helpers.ko and loads on stock configfs.ko too.
 *
 * See docs/extensions.md for the user's side of each call.
 */
#ifndef CNG_INTREE
/*
 * No client defines CNG_INTREE or CNG_INTREE_NO_*: they cut the kernel
 * patch series, whose patches add these calls one extension at a time
 * (docs/upstream.md).
 */
#endif
#ifndef _CONFIGFS_NG_H
#define _CONFIGFS_NG_H

#include <linux/compiler_attributes.h>
#include <linux/list.h>

struct config_item;
struct config_item_type;
struct configfs_attribute;

/* Defined for clients that want to build against both configfs modules. */
#define CONFIGFS_NG_API	1

__printf(2, 3)
int cfgng_report(struct config_item *item, const char *fmt, ...);

#ifndef CNG_INTREE_NO_NOTIFY
void cfgng_notify(struct config_item *item,
		  const struct configfs_attribute *attr);
#endif

#ifndef CNG_INTREE_NO_COMMIT
/**
 * struct cfgng_committable - what makes a group committable
 * @group_type: the type of the committable groups: each group of this
 *		type that configfs shows gets ``pending/`` and ``live/``,
 *		and its make_item or make_group is asked for mkdir in
 *		``pending/``
 * @commit_item: rename(2) of pending/NAME to live/NAME; 0 moves the item,
 *		 an errno leaves it in ``pending/`` (give the reason with
 *		 cfgng_report()). Called with the item pinned as around a
 *		 store, no lock of configfs held; may sleep. NULL: the
 *		 group's ``ct_group_ops->commit_item`` where the kernel's
 *		 header still has it, else every commit is refused (EPERM)
 * @uncommit_item: rename(2) of live/NAME back to pending/NAME, as
 *		   @commit_item; NULL refuses with EPERM
 * @entry: configfs-ng's; zero it, or leave it to a static initialiser
 *
 * See docs/extensions.md, "Committable items".
 */
struct cfgng_committable {
	const struct config_item_type	*group_type;
	int (*commit_item)(struct config_item *item);
	int (*uncommit_item)(struct config_item *item);
	struct list_head		entry;
};

void cfgng_committable_register(struct cfgng_committable *committable);
void cfgng_committable_unregister(struct cfgng_committable *committable);
#endif

#endif /* _CONFIGFS_NG_H */
