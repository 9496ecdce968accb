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
#include <linux/list.h>

struct config_item;
struct config_item_type;
struct configfs_attribute;

/* Defined for clients that want to build against both configfs modules. */
#define CONFIGFS_NG_API	1

__printf(2, 3)
int cfgng_report(struct config_item *item, const char *fmt, ...);

void cfgng_notify(struct config_item *item,
		  const struct configfs_attribute *attr);

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

/*
 * The helper layer: typed attributes backed by a field of the client's
 * struct, simple groups of mkdir-made children, and reasons that reach
 * the user on either configfs module. Everything below is a macro or a
 * static inline function: a client that uses only this part references
 * no symbol of configfs-ng, and loads and works on stock configfs.ko too
 * (cfgng_refuse() finds cfgng_report() at run time). docs/extensions.md,
 * "Helpers: a client in six lines", shows them at work.
 */
#include <linux/build_bug.h>
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/stddef.h>
#include <linux/string.h>

/* The helpers find an item at offset 0 of each of these. */
static_assert(offsetof(struct config_group, cg_item) == 0);
static_assert(offsetof(struct configfs_subsystem, su_group) == 0);

/* Longest value a reason quotes; longer ones end in "...". */
#define CFGNG_VALUE_QUOTED	64

/*
 * cfgng_item_path() - @item's path below the configfs root, into @buf
 * (cut at the front when too long). Returns a pointer into @buf.
 */
static inline const char *cfgng_item_path(struct config_item *item,
					  char *buf, size_t size)
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
 * cfgng_refuse() - give the reason a call on an item is refused, on either
 *		    configfs module
 * @item: as for cfgng_report(): the item whose attribute is stored, the
 *	  group a mkdir is made in, the item a link is made in
 * @fmt: printf-style format of the reason, without a trailing newline
 * @...: its arguments
 *
 * On configfs-ng's module the reason goes to cfgng_report(), which is
 * looked up at run time (symbol_get()), so that the client has no link to
 * it: the user reads it in the item's error record. On stock configfs,
 * which has no records, it goes to the kernel log, rate-limited, after
 * the item's path ("/cng_simple/a: storeme: 'x' is not in ..."). The
 * callback then returns its errno as always.
 *
 * Context: a configfs callback's (process context); does not sleep.
 */
static inline __printf(2, 3)
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
				    cfgng_item_path(item, path, sizeof(path)),
				    &vaf);
	}
	va_end(args);
}

/* How an address attribute takes a port: never, optionally, always. */
#define CFGNG_PORT_NONE		0
#define CFGNG_PORT_OPTIONAL	1
#define CFGNG_PORT_REQUIRED	2

struct cfgng_attr;

/**
 * struct cfgng_attr - a typed attribute, as the CFGNG_ATTR_*() macros make
 *		       it (clients fill in only the options below)
 * @attr: the configfs attribute
 * @parse: the kind's parser (NULL for read-only attributes)
 * @format: the kind's formatter
 * @ranged: @min and @max are set: CFGNG_RANGE()
 * @min: the lowest value an integer may take (as s64 for a signed field)
 * @max: the highest value an integer may take (likewise)
 * @names: an enum's names, by value, ending in NULL (CFGNG_ATTR_ENUM())
 * @port: an address's port, CFGNG_PORT_NONE, _OPTIONAL or _REQUIRED
 * @check: option: called with the parsed value (a pointer to a value of
 *	   the field's type; for strings, NUL-terminated) before it is
 *	   stored. Returns 0 to accept it, or a negative errno to refuse it,
 *	   with *@why set to what is accepted ("is not a multiple of 512");
 *	   the user's reason is then "NAME: 'VALUE' WHY". Runs under @lock,
 *	   in one step with the store: it must not sleep, and whatever it
 *	   reads of the client's state is seen by the store too (a client
 *	   that freezes its settings sets its flag, then takes and drops each
 *	   attribute's @lock: every store is then in the field or refused)
 * @changed: option: called after a store that changed the field's value,
 *	     with no lock held, in the store's context (which may sleep)
 * @lock: serialises the helpers' reads and writes of the field, and
 *	  @check with the write
 *
 * Options are given to the macros as designated initialisers
 * (``.check = my_check``).
 */
struct cfgng_attr {
	struct configfs_attribute	*attr;
	int (*parse)(struct config_item *item, const struct cfgng_attr *a,
		     const char *page, size_t count, void *val, size_t size);
	ssize_t (*format)(const struct cfgng_attr *a, const void *val,
			  size_t size, char *page);
	bool				ranged;
	u64				min;
	u64				max;
	const char * const		*names;
	int				port;
	int (*check)(struct config_item *item,
		     const struct configfs_attribute *attr, const void *val,
		     const char **why);
	void (*changed)(struct config_item *item,
			const struct configfs_attribute *attr);
	spinlock_t			lock;	/* the field */
};

/*
 * cfgng_attr_refuse() - refuses @page (@count bytes) for the attribute @a
 * with "NAME: 'VALUE' " and the rest, the value without its newline and
 * cut at CFGNG_VALUE_QUOTED bytes.
 */
static inline __printf(5, 6)
void cfgng_attr_refuse(struct config_item *item, const struct cfgng_attr *a,
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

/* Integer fields of 1, 2, 4 or 8 bytes, read and written by size. */
static inline s64 cfgng_get_s64(const void *val, size_t size)
{
	switch (size) {
	case 1:
		return *(const s8 *)val;
	case 2:
		return *(const s16 *)val;
	case 4:
		return *(const s32 *)val;
	default:
		return *(const s64 *)val;
	}
}

static inline u64 cfgng_get_u64(const void *val, size_t size)
{
	switch (size) {
	case 1:
		return *(const u8 *)val;
	case 2:
		return *(const u16 *)val;
	case 4:
		return *(const u32 *)val;
	default:
		return *(const u64 *)val;
	}
}

static inline void cfgng_set_u64(void *val, size_t size, u64 v)
{
	switch (size) {
	case 1:
		*(u8 *)val = v;
		break;
	case 2:
		*(u16 *)val = v;
		break;
	case 4:
		*(u32 *)val = v;
		break;
	default:
		*(u64 *)val = v;
	}
}

/* Decimal, as kstrtoint() takes it; out of the type: ERANGE, as there. */
static inline int cfgng_parse_int(struct config_item *item,
				  const struct cfgng_attr *a,
				  const char *page, size_t count, void *val,
				  size_t size)
{
	s64 tmax = (s64)(U64_MAX >> (65 - 8 * size));
	s64 lo = a->ranged ? max_t(s64, a->min, -tmax - 1) : -tmax - 1;
	s64 hi = a->ranged ? min_t(s64, a->max, tmax) : tmax;
	s64 v;
	int ret;

	ret = kstrtos64(page, 10, &v);
	if (!ret && (v < -tmax - 1 || v > tmax))
		ret = -ERANGE;
	if (!ret && (v < lo || v > hi))
		ret = -EINVAL;
	if (ret) {
		cfgng_attr_refuse(item, a, page, count, "is not in %lld..%lld",
				  lo, hi);
		return ret;
	}
	cfgng_set_u64(val, size, v);
	return 0;
}

static inline ssize_t cfgng_format_int(const struct cfgng_attr *a,
				       const void *val, size_t size,
				       char *page)
{
	return sprintf(page, "%lld\n", cfgng_get_s64(val, size));
}

static inline int cfgng_parse_uint(struct config_item *item,
				   const struct cfgng_attr *a,
				   const char *page, size_t count, void *val,
				   size_t size)
{
	u64 tmax = U64_MAX >> (64 - 8 * size);
	u64 lo = a->ranged ? a->min : 0;
	u64 hi = a->ranged ? min(a->max, tmax) : tmax;
	u64 v;
	int ret;

	ret = kstrtou64(page, 10, &v);
	if (!ret && v > tmax)
		ret = -ERANGE;
	if (!ret && (v < lo || v > hi))
		ret = -EINVAL;
	if (ret) {
		cfgng_attr_refuse(item, a, page, count, "is not in %llu..%llu",
				  lo, hi);
		return ret;
	}
	cfgng_set_u64(val, size, v);
	return 0;
}

static inline ssize_t cfgng_format_uint(const struct cfgng_attr *a,
					const void *val, size_t size,
					char *page)
{
	return sprintf(page, "%llu\n", cfgng_get_u64(val, size));
}

/* The user's value without its newline is exactly @s. */
static inline bool cfgng_value_is(const char *page, size_t count,
				  const char *s)
{
	if (count && page[count - 1] == '\n')
		count--;
	return strlen(s) == count && !memcmp(page, s, count);
}

static inline int cfgng_parse_bool(struct config_item *item,
				   const struct cfgng_attr *a,
				   const char *page, size_t count, void *val,
				   size_t size)
{
	if (cfgng_value_is(page, count, "0") ||
	    cfgng_value_is(page, count, "1")) {
		*(bool *)val = page[0] == '1';
		return 0;
	}
	cfgng_attr_refuse(item, a, page, count, "is not one of 0, 1");
	return -EINVAL;
}

static inline ssize_t cfgng_format_bool(const struct cfgng_attr *a,
					const void *val, size_t size,
					char *page)
{
	return sprintf(page, "%d\n", *(const bool *)val);
}

static inline int cfgng_parse_enum(struct config_item *item,
				   const struct cfgng_attr *a,
				   const char *page, size_t count, void *val,
				   size_t size)
{
	size_t len = 0;
	char *list;
	int i;

	for (i = 0; a->names[i]; i++) {
		if (cfgng_value_is(page, count, a->names[i])) {
			cfgng_set_u64(val, size, i);
			return 0;
		}
		len += strlen(a->names[i]) + 2;
	}
	list = kmalloc(len + 1, GFP_KERNEL);
	if (list) {
		list[0] = 0;
		for (i = 0; a->names[i]; i++) {
			if (i)
				strcat(list, ", ");
			strcat(list, a->names[i]);
		}
	}
	cfgng_attr_refuse(item, a, page, count, "is not one of %s",
			  list ?: "its names");
	kfree(list);
	return -EINVAL;
}

static inline ssize_t cfgng_format_enum(const struct cfgng_attr *a,
					const void *val, size_t size,
					char *page)
{
	u64 v = cfgng_get_u64(val, size);
	u64 i;

	for (i = 0; a->names[i]; i++)
		if (i == v)
			return sprintf(page, "%s\n", a->names[i]);
	return sprintf(page, "%llu\n", v);
}

/* One line (no newline or NUL inside) that fits the array, NUL included. */
static inline int cfgng_parse_str(struct config_item *item,
				  const struct cfgng_attr *a,
				  const char *page, size_t count, void *val,
				  size_t size)
{
	size_t len = count;

	if (len && page[len - 1] == '\n')
		len--;
	if (len >= size || memchr(page, '\n', len) || memchr(page, 0, len)) {
		cfgng_attr_refuse(item, a, page, count,
				  "is not one line of at most %zu bytes",
				  size - 1);
		return -EINVAL;
	}
	memcpy(val, page, len);
	return 0;
}

static inline ssize_t cfgng_format_str(const struct cfgng_attr *a,
				       const void *val, size_t size,
				       char *page)
{
	return scnprintf(page, PAGE_SIZE, "%.*s\n", (int)size,
			 (const char *)val);
}

/*
 * cfgng_parse_port() - ":PORT" (1..65535) or nothing at @s, as @a allows;
 * 0 for none, -1 when refused.
 */
static inline int cfgng_parse_port(const struct cfgng_attr *a, const char *s)
{
	u16 port;

	if (!*s)
		return a->port == CFGNG_PORT_REQUIRED ? -1 : 0;
	if (a->port == CFGNG_PORT_NONE || *s != ':' ||
	    kstrtou16(s + 1, 10, &port) || !port || s[1] == '+')
		return -1;
	return port;
}

/*
 * An address: a.b.c.d, or an IPv6 address, bare or in brackets; with
 * ":PORT" after a.b.c.d or the brackets, as @a->port says.
 */
static inline int cfgng_parse_addr(struct config_item *item,
				   const struct cfgng_attr *a,
				   const char *page, size_t count, void *val,
				   size_t size)
{
	struct sockaddr_in6 *sin6 = val;
	struct sockaddr_in *sin = val;
	char buf[CFGNG_VALUE_QUOTED];
	const char *end, *close;
	size_t len = count;
	int port = -1;

	if (len && page[len - 1] == '\n')
		len--;
	if (len >= sizeof(buf))
		goto refuse;
	memcpy(buf, page, len);
	buf[len] = 0;
	if (buf[0] == '[') {
		close = strchr(buf, ']');
		if (close && in6_pton(buf + 1, close - buf - 1,
				      sin6->sin6_addr.s6_addr, -1, &end) &&
		    end == close)
			port = cfgng_parse_port(a, close + 1);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else if (in4_pton(buf, len, (u8 *)&sin->sin_addr.s_addr, -1,
			    &end) && (!*end || *end == ':')) {
		port = cfgng_parse_port(a, end);
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else if (a->port != CFGNG_PORT_REQUIRED &&
		   in6_pton(buf, len, sin6->sin6_addr.s6_addr, -1, &end) &&
		   !*end) {
		port = 0;
		sin6->sin6_family = AF_INET6;
	}
	if (port >= 0)
		return 0;
refuse:
	if (a->port == CFGNG_PORT_NONE)
		cfgng_attr_refuse(item, a, page, count,
				  "is not an IPv4 or IPv6 address");
	else if (a->port == CFGNG_PORT_OPTIONAL)
		cfgng_attr_refuse(item, a, page, count,
				  "is not a.b.c.d, a.b.c.d:port, an IPv6 address or [IPv6]:port, with port in 1..65535");
	else
		cfgng_attr_refuse(item, a, page, count,
				  "is not a.b.c.d:port or [IPv6]:port, with port in 1..65535");
	return -EINVAL;
}

/* As it is written, port after a colon; an address never set: empty. */
static inline ssize_t cfgng_format_addr(const struct cfgng_attr *a,
					const void *val, size_t size,
					char *page)
{
	const struct sockaddr_in6 *sin6 = val;
	const struct sockaddr_in *sin = val;

	if (sin->sin_family == AF_INET && sin->sin_port)
		return sprintf(page, "%pI4:%u\n", &sin->sin_addr,
			       ntohs(sin->sin_port));
	if (sin->sin_family == AF_INET)
		return sprintf(page, "%pI4\n", &sin->sin_addr);
	if (sin6->sin6_family == AF_INET6 && sin6->sin6_port)
		return sprintf(page, "[%pI6c]:%u\n", &sin6->sin6_addr,
			       ntohs(sin6->sin6_port));
	if (sin6->sin6_family == AF_INET6)
		return sprintf(page, "%pI6c\n", &sin6->sin6_addr);
	return sprintf(page, "\n");
}

/**
 * cfgng_attr_show() - a typed attribute's show (the macros call it)
 * @a: the attribute
 * @field: the field in the client's struct
 * @val: room for a copy of it
 * @size: the field's size
 * @page: configfs's page
 *
 * Context: process context; takes @a->lock.
 * Return: the bytes written to @page.
 */
static inline ssize_t cfgng_attr_show(struct cfgng_attr *a, const void *field,
				      void *val, size_t size, char *page)
{
	spin_lock(&a->lock);
	memcpy(val, field, size);
	spin_unlock(&a->lock);
	return a->format(a, val, size, page);
}

/**
 * cfgng_attr_store() - a typed attribute's store (the macros call it)
 * @item: the item
 * @a: the attribute
 * @page: the user's value, NUL-terminated
 * @count: its length
 * @field: the field in the client's struct
 * @val: room for the new value
 * @size: the field's size
 *
 * Parses the value (or refuses it, with the reason, and the parser's
 * errno), asks @a->check and stores it in one step under @a->lock, and
 * calls @a->changed if the value changed.
 *
 * Context: process context; takes @a->lock.
 * Return: @count, or a negative errno.
 */
static inline ssize_t cfgng_attr_store(struct config_item *item,
				       struct cfgng_attr *a, const char *page,
				       size_t count, void *field, void *val,
				       size_t size)
{
	const char *why = NULL;
	bool changed;
	int ret;

	memset(val, 0, size);
	ret = a->parse(item, a, page, count, val, size);
	if (ret)
		return ret;
	spin_lock(&a->lock);
	ret = a->check ? a->check(item, a->attr, val, &why) : 0;
	changed = !ret && memcmp(field, val, size);
	if (changed)
		memcpy(field, val, size);
	spin_unlock(&a->lock);
	if (ret) {
		cfgng_attr_refuse(item, a, page, count, "%s",
				  why ?: "is refused");
		return ret < 0 ? ret : -EINVAL;
	}
	if (changed && a->changed)
		a->changed(item, a->attr);
	return count;
}

/*
 * What each kind takes as a field, checked when it is compiled.
 *
 * In the macros below, as checkpatch --strict asks, each argument but a
 * type is used once (or pasted, or made a string), and never next to an
 * operator: hence (*obj).f.
 */
#define __CFGNG_INT_TYPE(type)						\
	(BIT_ULL(sizeof(type)) & (BIT_ULL(1) | BIT_ULL(2) | BIT_ULL(4) | \
				  BIT_ULL(8)))
#define __cfgng_check_bool(type)					\
	BUILD_BUG_ON(!__builtin_types_compatible_p(type, bool))
#define __cfgng_check_int(type)						\
	BUILD_BUG_ON(!is_signed_type(type) || !__CFGNG_INT_TYPE(type))
#define __cfgng_check_uint(type)					\
	BUILD_BUG_ON(is_signed_type(type) || !__CFGNG_INT_TYPE(type) ||	\
		     __builtin_types_compatible_p(type, bool))
#define __cfgng_check_enum(type)					\
	BUILD_BUG_ON(!__CFGNG_INT_TYPE(type) ||				\
		     __builtin_types_compatible_p(type, bool))
#define __cfgng_check_str(type)						\
	BUILD_BUG_ON(!__builtin_types_compatible_p(type,		\
						   char [sizeof(type)]) || \
		     sizeof(type) < 2)
#define __cfgng_check_addr(type)					\
	BUILD_BUG_ON(!__builtin_types_compatible_p(type,		\
						   struct sockaddr_storage))

/*
 * A typed attribute: its configfs attribute, its struct cfgng_attr, and
 * one function that shows (@page) or stores (@value) the field; show and
 * store call it. @m is the path to the struct's config_item.
 */
#define __CFGNG_ATTR(type, m, f, kind, mode_, store_fn, parse_fn, ...)	\
static ssize_t type##_##f##_io(struct config_item *item, char *page,	\
			       const char *value, size_t count);	\
static ssize_t type##_##f##_show(struct config_item *item, char *page)	\
{									\
	return type##_##f##_io(item, page, NULL, 0);			\
}									\
static struct configfs_attribute type##_attr_##f = {			\
	.ca_name	= #f,						\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= mode_,					\
	.show		= type##_##f##_show,				\
	.store		= store_fn,					\
};									\
static struct cfgng_attr type##_##f##_cfgng = {				\
	.attr		= &type##_attr_##f,				\
	.parse		= parse_fn,					\
	.format		= cfgng_format_##kind,				\
	.lock		= __SPIN_LOCK_UNLOCKED(type##_##f##_cfgng.lock), \
	__VA_ARGS__							\
};									\
static ssize_t type##_##f##_io(struct config_item *item, char *page,	\
			       const char *value, size_t count)		\
{									\
	struct type *obj = container_of(item, struct type, m);		\
	__auto_type field = &(*obj).f;					\
	typeof(*field) val;						\
									\
	__cfgng_check_##kind(typeof(val));				\
	if (page)							\
		return cfgng_attr_show(&type##_##f##_cfgng, field, &val, \
				       sizeof(val), page);		\
	return cfgng_attr_store(item, &type##_##f##_cfgng, value, count, \
				field, &val, sizeof(val));		\
}

#define __CFGNG_ATTR_RW(type, m, f, kind, ...)				\
static ssize_t type##_##f##_store(struct config_item *item,		\
				  const char *page, size_t count);	\
__CFGNG_ATTR(type, m, f, kind, 0644, type##_##f##_store,		\
	     cfgng_parse_##kind, __VA_ARGS__)				\
static ssize_t type##_##f##_store(struct config_item *item,		\
				  const char *page, size_t count)	\
{									\
	return type##_##f##_io(item, NULL, page, count);		\
}

#define __CFGNG_ATTR_RO(type, m, f, kind, ...)				\
__CFGNG_ATTR(type, m, f, kind, 0444, NULL, NULL, __VA_ARGS__)

/**
 * CFGNG_RANGE() - the option that bounds an integer attribute
 * @lo: the lowest value accepted
 * @hi: the highest value accepted
 *
 * Without it, an integer attribute takes its field type's range.
 */
#define CFGNG_RANGE(lo, hi)						\
	.ranged = true, .min = (u64)(lo), .max = (u64)(hi)

/**
 * CFGNG_ATTR_BOOL() - a read-write attribute backed by a bool field
 * @type: the tag of the client's struct (``struct type``)
 * @m: the path to its struct config_item: ``item``, ``group.cg_item``,
 *     ``subsys.su_group.cg_item``
 * @f: the field, a bool; also the attribute's name
 * @...: options of struct cfgng_attr (``.check``, ``.changed``)
 *
 * Defines the struct configfs_attribute ``type_attr_f`` (list it in a
 * type's attributes), its show and store (``type_f_show``,
 * ``type_f_store``) and its struct cfgng_attr ``type_f_cfgng``. Shows
 * ``0`` or ``1``; takes exactly those (and a newline), else refuses with
 * EINVAL and "f: 'VALUE' is not one of 0, 1".
 */
#define CFGNG_ATTR_BOOL(type, m, f, ...)				\
	__CFGNG_ATTR_RW(type, m, f, bool, __VA_ARGS__)

/**
 * CFGNG_ATTR_INT() - a read-write attribute backed by a signed integer
 * @type: as for CFGNG_ATTR_BOOL()
 * @m: as for CFGNG_ATTR_BOOL()
 * @f: the field, a signed integer of 1, 2, 4 or 8 bytes
 * @...: options: CFGNG_RANGE(), ``.check``, ``.changed``
 *
 * Takes a decimal number as kstrtoint() does. Refuses with "f: 'VALUE' is
 * not in MIN..MAX": ERANGE for a number beyond the field's type, as
 * kstrtoint() would, EINVAL for anything else.
 */
#define CFGNG_ATTR_INT(type, m, f, ...)					\
	__CFGNG_ATTR_RW(type, m, f, int, __VA_ARGS__)

/**
 * CFGNG_ATTR_UINT() - a read-write attribute backed by an unsigned integer
 * @type: as for CFGNG_ATTR_BOOL()
 * @m: as for CFGNG_ATTR_BOOL()
 * @f: the field, an unsigned integer of 1, 2, 4 or 8 bytes
 * @...: options: CFGNG_RANGE(), ``.check``, ``.changed``
 *
 * As CFGNG_ATTR_INT(), for unsigned numbers.
 */
#define CFGNG_ATTR_UINT(type, m, f, ...)				\
	__CFGNG_ATTR_RW(type, m, f, uint, __VA_ARGS__)

/**
 * CFGNG_ATTR_ENUM() - a read-write attribute that takes one of a list of
 *		       names, backed by an integer or enum field
 * @type: as for CFGNG_ATTR_BOOL()
 * @m: as for CFGNG_ATTR_BOOL()
 * @f: the field, an integer or enum: the index of the name
 * @table: the names, a ``const char * const`` array ending in NULL
 * @...: options: ``.check``, ``.changed``
 *
 * Shows the field's name (its number if it has none); refuses any other
 * text with EINVAL and "f: 'VALUE' is not one of NAME, NAME, ...".
 */
#define CFGNG_ATTR_ENUM(type, m, f, table, ...)				\
	__CFGNG_ATTR_RW(type, m, f, enum, .names = (table), __VA_ARGS__)

/**
 * CFGNG_ATTR_STR() - a read-write attribute backed by a char array
 * @type: as for CFGNG_ATTR_BOOL()
 * @m: as for CFGNG_ATTR_BOOL()
 * @f: the field, a char array: the string and its NUL
 * @...: options: ``.check``, ``.changed``
 *
 * Takes one line (the newline is dropped) that fits; refuses a longer
 * value, or one with a newline or NUL inside, with EINVAL and "f: 'VALUE'
 * is not one line of at most N bytes".
 */
#define CFGNG_ATTR_STR(type, m, f, ...)					\
	__CFGNG_ATTR_RW(type, m, f, str, __VA_ARGS__)

/**
 * CFGNG_ATTR_ADDR() - a read-write attribute backed by an IP address
 *		       with or without a port
 * @type: as for CFGNG_ATTR_BOOL()
 * @m: as for CFGNG_ATTR_BOOL()
 * @f: the field, a struct sockaddr_storage; zero (never set) shows empty
 * @ports: CFGNG_PORT_NONE, CFGNG_PORT_OPTIONAL or CFGNG_PORT_REQUIRED
 * @...: options: ``.check``, ``.changed``
 *
 * Takes ``a.b.c.d`` and an IPv6 address, bare or in brackets, followed by
 * ``:PORT`` (1..65535) after ``a.b.c.d`` or the brackets as @ports allows;
 * stores it as a struct sockaddr_in or sockaddr_in6 (port 0: none). Shows
 * it in the same form (IPv6 compressed). Refuses anything else with EINVAL
 * and a reason that lists the forms @ports allows.
 */
#define CFGNG_ATTR_ADDR(type, m, f, ports, ...)				\
	__CFGNG_ATTR_RW(type, m, f, addr, .port = (ports), __VA_ARGS__)

/**
 * CFGNG_ATTR_BOOL_RO() - CFGNG_ATTR_BOOL(), read-only
 * @type: as for CFGNG_ATTR_BOOL()
 * @m: as for CFGNG_ATTR_BOOL()
 * @f: as for CFGNG_ATTR_BOOL()
 * @...: unused
 *
 * So are CFGNG_ATTR_INT_RO(), CFGNG_ATTR_UINT_RO(), CFGNG_ATTR_ENUM_RO(),
 * CFGNG_ATTR_STR_RO() and CFGNG_ATTR_ADDR_RO(), with the same arguments:
 * mode 0444, no store. The client sets the field; the show reads it
 * under ``type_f_cfgng.lock``, which the client takes to change a string
 * or an address (integers: WRITE_ONCE() will do).
 */
#define CFGNG_ATTR_BOOL_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, bool, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_INT_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, int, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_UINT_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, uint, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_ENUM_RO(type, m, f, table, ...)			\
	__CFGNG_ATTR_RO(type, m, f, enum, .names = (table), __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_STR_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, str, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_ADDR_RO(type, m, f, ports, ...)			\
	__CFGNG_ATTR_RO(type, m, f, addr, .port = (ports), __VA_ARGS__)

/**
 * CFGNG_ATTR_CONST() - a read-only attribute that shows a constant text
 * @P: a prefix: the attribute is ``P_attr_name``, its show ``P_name_show``
 * @name: the attribute's name
 * @text: what it shows, a string
 */
#define CFGNG_ATTR_CONST(P, name, text)					\
static ssize_t P##_##name##_show(struct config_item *item, char *page)	\
{									\
	return scnprintf(page, PAGE_SIZE, "%s", text);			\
}									\
static struct configfs_attribute P##_attr_##name = {			\
	.ca_name	= #name,					\
	.ca_owner	= THIS_MODULE,					\
	.ca_mode	= 0444,						\
	.show		= P##_##name##_show,				\
}

/**
 * CFGNG_ATTRS() - a type's list of attributes, as an expression
 * @...: the attributes' addresses (``&type_attr_f``, or those of any
 *	 other struct configfs_attribute); at least one
 *
 * Return: a NULL-terminated array of static storage, for ``ct_attrs``.
 */
#define CFGNG_ATTRS(...)						\
	((struct configfs_attribute *[]){ __VA_ARGS__, NULL })

/**
 * CFGNG_TYPE() - an item type with attributes only
 * @P: a prefix: the type is ``P_type``
 * @attrs: its attributes (CFGNG_ATTRS())
 *
 * For default groups and the like, which their owner frees.
 */
#define CFGNG_TYPE(P, attrs)						\
static const struct config_item_type P##_type = {			\
	.ct_attrs	= (attrs),					\
	.ct_owner	= THIS_MODULE,					\
}

/**
 * struct cfgng_child - the children of a CFGNG_CHILD() type
 * @ops: the child type's item operations. The helpers set ``release``;
 *	 the client may set ``.ops.allow_link`` and ``.ops.drop_link``
 * @size: the size of the client's struct
 * @offset: the offset of its config_item
 * @is_group: the item is a config_group's (CFGNG_CHILD_GROUP())
 * @init: option: called after the struct is allocated (zeroed) and its
 *	  item initialised with its name and type, with the group it is
 *	  made in, to set defaults and add default groups. An errno refuses
 *	  the mkdir (give the reason with cfgng_refuse() on the group's
 *	  item); the item is then put, and @release runs.
 * @release: option: called when the item's last reference goes, before
 *	     the struct is freed (kfree())
 *
 * Context: @init runs in the mkdir, and may sleep; @release in the last
 * config_item_put().
 */
struct cfgng_child {
	struct configfs_item_operations	ops;
	size_t				size;
	size_t				offset;
	bool				is_group;
	int (*init)(struct config_group *group, struct config_item *item);
	void (*release)(struct config_item *item);
};

/**
 * cfgng_child_make() - makes a child (the group's make_item or make_group)
 * @child: what to make
 * @type: its item type
 * @group: the group it is made in
 * @name: its name
 *
 * Context: process context; may sleep.
 * Return: the child's item, or an ERR_PTR().
 */
static inline struct config_item *
cfgng_child_make(const struct cfgng_child *child,
		 const struct config_item_type *type,
		 struct config_group *group, const char *name)
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

/**
 * cfgng_child_release() - releases a child (its type's release)
 * @child: what it was made as
 * @item: its item
 *
 * Context: that of the last config_item_put().
 */
static inline void cfgng_child_release(const struct cfgng_child *child,
				       struct config_item *item)
{
	if (child->release)
		child->release(item);
	kfree((char *)item - child->offset);
}

/*
 * The type of the children: @offset is where the struct's config_item
 * is, @grp whether it is a config_group's.
 */
#define __CFGNG_CHILD(type, offset_, grp, attrs, ...)			\
enum {									\
	type##_cfgng_offset = (offset_),				\
	type##_cfgng_is_group = (grp),					\
};									\
static void type##_cfgng_release(struct config_item *item);		\
static struct cfgng_child type##_cfgng = {				\
	.ops.release	= type##_cfgng_release,				\
	.size		= sizeof(struct type),				\
	.offset		= type##_cfgng_offset,				\
	.is_group	= type##_cfgng_is_group,			\
	__VA_ARGS__							\
};									\
static void type##_cfgng_release(struct config_item *item)		\
{									\
	cfgng_child_release(&type##_cfgng, item);			\
}									\
static const struct config_item_type type##_type = {			\
	.ct_item_ops	= &type##_cfgng.ops,				\
	.ct_attrs	= (attrs),					\
	.ct_owner	= THIS_MODULE,					\
};									\
static inline struct type *to_##type(struct config_item *item)		\
{									\
	return (struct type *)((char *)item - type##_cfgng_offset);	\
}

/**
 * CFGNG_CHILD() - the item type of the children of a simple group
 * @type: the tag of the client's struct, which mkdir allocates (zeroed)
 * @m: its member that is the item, a struct config_item
 * @attrs: the children's attributes (CFGNG_ATTRS(), or NULL)
 * @...: options of struct cfgng_child (``.init``, ``.release``,
 *	 ``.ops.allow_link``, ``.ops.drop_link``)
 *
 * Defines ``type_type`` (const struct config_item_type), ``type_cfgng``
 * (struct cfgng_child) and ``to_type()``, which gives the struct of an
 * item. The item's release frees the struct. CFGNG_GROUP() makes groups
 * of them.
 */
#define CFGNG_CHILD(type, m, attrs, ...)				\
	__CFGNG_CHILD(type, offsetof(struct type, m.ci_kref) -		\
		      offsetof(struct config_item, ci_kref), false,	\
		      attrs, __VA_ARGS__)

/**
 * CFGNG_CHILD_GROUP() - CFGNG_CHILD() for children that are groups
 * @type: as for CFGNG_CHILD()
 * @g: the struct's member that is the group, a struct config_group
 * @attrs: as for CFGNG_CHILD()
 * @...: as for CFGNG_CHILD()
 *
 * A group child can have default groups (add them in the ``.init`` hook,
 * with configfs_add_default_group()).
 */
#define CFGNG_CHILD_GROUP(type, g, attrs, ...)				\
	__CFGNG_CHILD(type, offsetof(struct type, g.cg_item.ci_kref) -	\
		      offsetof(struct config_item, ci_kref), true,	\
		      attrs, __VA_ARGS__)

/**
 * CFGNG_GROUP() - the type of a simple group: mkdir makes a child
 * @G: a prefix: the group's type is ``G_type``, its operations
 *     ``G_group_ops``
 * @type: the children's struct tag, as given to CFGNG_CHILD()
 * @attrs: the group's own attributes (CFGNG_ATTRS(), or NULL)
 * @...: options of its struct configfs_group_operations (``.drop_item``,
 *	 ``.disconnect_notify``); the helpers set ``make_item`` or
 *	 ``make_group``
 *
 * A group of this type is a subsystem (CFGNG_SUBSYSTEM()) or a default
 * group in a struct that frees it: the type has no release.
 */
#define CFGNG_GROUP(G, type, attrs, ...)				\
static struct config_item * __maybe_unused				\
G##_make_item(struct config_group *group, const char *name)		\
{									\
	return cfgng_child_make(&type##_cfgng, &type##_type, group, name); \
}									\
static struct config_group * __maybe_unused				\
G##_make_group(struct config_group *group, const char *name)		\
{									\
	struct config_item *item;					\
									\
	item = cfgng_child_make(&type##_cfgng, &type##_type, group, name); \
	return IS_ERR(item) ? ERR_CAST(item) : to_config_group(item);	\
}									\
static struct configfs_group_operations G##_group_ops = {		\
	.make_item	= __builtin_choose_expr(type##_cfgng_is_group,	\
				(typeof(G##_make_item) *)NULL,		\
				G##_make_item),				\
	.make_group	= __builtin_choose_expr(type##_cfgng_is_group,	\
				G##_make_group,				\
				(typeof(G##_make_group) *)NULL),	\
	__VA_ARGS__							\
};									\
static const struct config_item_type G##_type = {			\
	.ct_group_ops	= &G##_group_ops,				\
	.ct_attrs	= (attrs),					\
	.ct_owner	= THIS_MODULE,					\
}

/**
 * CFGNG_SUBSYSTEM() - a subsystem
 * @S: a prefix: the subsystem is ``S_subsys``
 * @name: its directory's name, a string literal
 * @type: its group's type (``&G_type``)
 */
#define CFGNG_SUBSYSTEM(S, name, type)					\
static struct configfs_subsystem S##_subsys = {			\
	.su_group.cg_item.ci_namebuf	= name,				\
	.su_group.cg_item.ci_type	= (type),			\
}

/**
 * cfgng_subsystem_register() - initialise a static subsystem and register it
 * @subsys: the subsystem, with its name and type set
 *
 * Context: process context; may sleep.
 * Return: 0, or configfs_register_subsystem()'s errno.
 */
static inline int cfgng_subsystem_register(struct configfs_subsystem *subsys)
{
	config_group_init(&subsys->su_group);
	mutex_init(&subsys->su_mutex);
	return configfs_register_subsystem(subsys);
}

/**
 * module_cfgng_subsystem() - a module's init and exit that register and
 *			      unregister a subsystem
 * @S: its prefix, as given to CFGNG_SUBSYSTEM()
 */
#define module_cfgng_subsystem(S)					\
static int __init S##_cfgng_init(void)					\
{									\
	return cfgng_subsystem_register(&S##_subsys);			\
}									\
module_init(S##_cfgng_init);						\
static void __exit S##_cfgng_exit(void)				\
{									\
	configfs_unregister_subsystem(&S##_subsys);			\
}									\
module_exit(S##_cfgng_exit)

/**
 * CFGNG_SIMPLE_SUBSYSTEM() - a module whose subsystem is a simple group
 * @S: the subsystem's name and prefix (``S_type``, ``S_subsys``)
 * @type: the children's struct tag, as given to CFGNG_CHILD()
 * @...: the subsystem's attributes (``&P_attr_name``); at least one
 *
 * CFGNG_GROUP(), CFGNG_SUBSYSTEM() and module_cfgng_subsystem() in one.
 */
#define CFGNG_SIMPLE_SUBSYSTEM(S, type, ...)				\
CFGNG_GROUP(S, type, CFGNG_ATTRS(__VA_ARGS__));				\
static struct configfs_subsystem S##_subsys = {			\
	.su_group.cg_item.ci_namebuf	= #S,				\
	.su_group.cg_item.ci_type	= &S##_type,			\
};									\
static int __init S##_cfgng_init(void)					\
{									\
	return cfgng_subsystem_register(&S##_subsys);			\
}									\
module_init(S##_cfgng_init);						\
static void __exit S##_cfgng_exit(void)				\
{									\
	configfs_unregister_subsystem(&S##_subsys);			\
}									\
module_exit(S##_cfgng_exit)

#endif /* _CONFIGFS_NG_H */
