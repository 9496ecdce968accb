// SPDX-License-Identifier: GPL-2.0
/*
 * Reasons for a refusal, on either configfs module: to cfgng_report() of
 * configfs-ng's module when it is loaded, found at run time so that this
 * module links to stock's exports only; else to the kernel log.
 */
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/string.h>

#include <configfs-ng.h>
#include <configfs-ng-helpers.h>

#include "internal.h"

/* @item's path below the configfs root, into @buf; cut at the front. */
static const char *cng_item_path(struct config_item *item, char *buf,
				 size_t size)
{
	char *p = buf + size - 1;
	size_t len;

	*p = 0;
	for (; item && item->ci_parent; item = item->ci_parent) {
		len = strlen(config_item_name(item) ?: "");
		if (len + 1 > (size_t)(p - buf))
			break;
		p -= len;
		memcpy(p, config_item_name(item), len);
		*--p = '/';
	}
	return p;
}

/**
 * cng_attr_refuse() - refuses a value of a typed attribute, with a reason
 * @item: the item whose attribute is stored
 * @a: the attribute
 * @page: the value the user wrote
 * @count: its length
 * @fmt: printf-style format of what is accepted ("is not in 1..10")
 * @...: its arguments
 *
 * The reason is "NAME: 'VALUE' " and @fmt's text, the value without its
 * newline, cut at CFGNG_VALUE_QUOTED bytes.
 *
 * Context: a store's (process context); does not sleep.
 */
void cng_attr_refuse(struct config_item *item, const struct cfgng_attr *a,
		     const char *page, size_t count, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (count && page[count - 1] == '\n')
		count--;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	cfgng_refuse(item, "%s: '%*pE%s' %pV", a->attr->ca_name,
		     (int)min_t(size_t, count, CFGNG_VALUE_QUOTED), page,
		     count > CFGNG_VALUE_QUOTED ? "..." : "", &vaf);
	va_end(args);
}

/**
 * cfgng_refuse() - give the reason a call on an item is refused, on either
 *		    configfs module
 * @item: as for cfgng_report(): the item whose attribute is stored, the
 *	  group a mkdir is made in, the item a link is made in
 * @fmt: printf-style format of the reason, without a trailing newline
 * @...: its arguments
 *
 * On configfs-ng's module the reason goes to cfgng_report(), which is
 * looked up at run time (symbol_get()), so that neither this module nor
 * the client links to it: the user reads it in the item's error record.
 * On stock configfs, which has no records, it goes to the kernel log,
 * rate-limited, after the item's path ("/cng_simple/a: storeme: 'x' is
 * not in ..."). The callback then returns its errno as always.
 *
 * Context: a configfs callback's (process context); does not sleep.
 */
void cfgng_refuse(struct config_item *item, const char *fmt, ...)
{
	typeof(cfgng_report) *report;
	struct va_format vaf;
	char path[128];
	va_list args;

	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	report = symbol_get(cfgng_report);
	if (report) {
		report(item, "%pV", &vaf);
		symbol_put(cfgng_report);
	} else {
		pr_warn_ratelimited("%s: %pV\n",
				    cng_item_path(item, path, sizeof(path)),
				    &vaf);
	}
	va_end(args);
}
EXPORT_SYMBOL_GPL(cfgng_refuse);
