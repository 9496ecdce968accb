/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private declarations of configfs_helpers.ko, by defining file.
 *
 * Locks: the item locks of attr.c only, one at a time, never nested and
 * never held across a call that sleeps. A store's .check runs under one.
 */
#ifndef _CNG_HELPERS_INTERNAL_H
#define _CNG_HELPERS_INTERNAL_H

#include <linux/types.h>

struct cfgng_attr;
struct config_item;

/* refuse.c */
__printf(5, 6)
void cng_attr_refuse(struct config_item *item, const struct cfgng_attr *a,
		     const char *page, size_t count, const char *fmt, ...);

/* kinds.c */

/**
 * struct cng_kind - how a kind of typed attribute reads and writes
 * @parse: parses the user's @page (@count bytes) into @val (@size bytes,
 *	   zeroed); 0, or refuses it with its reason and returns the errno
 * @format: writes the field @val (@size bytes) to @page, with a newline;
 *	    runs under the item's lock, so it must not sleep
 */
struct cng_kind {
	int (*parse)(struct config_item *item, const struct cfgng_attr *a,
		     const char *page, size_t count, void *val, size_t size);
	ssize_t (*format)(const struct cfgng_attr *a, const void *val,
			  size_t size, char *page);
};

const struct cng_kind *cng_kind_get(const struct cfgng_attr *a);

/* attr.c */
void cng_attr_init(void);

#endif /* _CNG_HELPERS_INTERNAL_H */
