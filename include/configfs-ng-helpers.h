/* SPDX-License-Identifier: GPL-2.0 */
/*
 * configfs-ng-helpers.h - typed attributes and simple groups for configfs
 * clients, a library over the kernel's <linux/configfs.h>
 *
 * Typed attributes are backed by a field of the client's struct; simple
 * groups make that struct on mkdir; a refusal's reason reaches the user
 * on either configfs module. The macros below generate only the small
 * functions configfs calls (a show, a store, a make_item), each a call
 * into configfs_helpers.ko, which holds the parsing, the formatting and
 * the locking. That module needs only the exports of stock configfs.ko,
 * and finds cfgng_report() at run time: a client of the helpers alone
 * loads and works on stock configfs.ko too (load configfs_helpers.ko
 * first, or let modprobe do it). One that also calls <configfs-ng.h>
 * needs ours. docs/extensions.md, "Helpers: a client in seven lines",
 * shows them at work.
 */
#ifndef _CONFIGFS_NG_HELPERS_H
#define _CONFIGFS_NG_HELPERS_H

#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/stddef.h>
#include <linux/types.h>

/* Longest value a reason quotes; longer ones end in "...". */
#define CFGNG_VALUE_QUOTED	64

/*
 * The reason @item refuses a call: to cfgng_report() on configfs-ng's
 * module, else to the kernel log after @item's path.
 */
__printf(2, 3)
void cfgng_refuse(struct config_item *item, const char *fmt, ...);

/* How an address attribute takes a port: never, optionally, always. */
#define CFGNG_PORT_NONE		0
#define CFGNG_PORT_OPTIONAL	1
#define CFGNG_PORT_REQUIRED	2

/* What a typed attribute's field holds; the CFGNG_ATTR_*() macros set it. */
enum cfgng_kind {
	CFGNG_KIND_BOOL,
	CFGNG_KIND_INT,
	CFGNG_KIND_UINT,
	CFGNG_KIND_ENUM,
	CFGNG_KIND_STR,
	CFGNG_KIND_ADDR,
};

/**
 * struct cfgng_attr - a typed attribute, as the CFGNG_ATTR_*() macros make
 *		       it (clients fill in only the options below)
 * @attr: the configfs attribute
 * @kind: what its field holds
 * @ranged: @min and @max are set: CFGNG_RANGE()
 * @min: the lowest value an integer may take (as s64 for a signed field)
 * @max: the highest value an integer may take (likewise)
 * @names: an enum's names, by value, ending in NULL (CFGNG_ATTR_ENUM())
 * @port: an address's port, CFGNG_PORT_NONE, _OPTIONAL or _REQUIRED
 * @check: option: called with the parsed value (a pointer to a value of
 *	   the field's type; for strings, NUL-terminated) before it is
 *	   stored. Returns 0 to accept it, or a negative errno to refuse it,
 *	   with *@why set to what is accepted ("is not a multiple of 512");
 *	   the user's reason is then "NAME: 'VALUE' WHY". Runs under the
 *	   item's lock (cfgng_item_lock()), in one step with the store: it
 *	   must not sleep, nor take the lock of another item; whatever it
 *	   reads of the client's state under that lock is seen by the store
 *	   too (a client that freezes its settings sets its flag, then takes
 *	   and drops the item's lock: every store is then in the field or
 *	   refused)
 * @changed: option: called after a store that changed the field's value,
 *	     with no lock held, in the store's context (which may sleep)
 *
 * Options are given to the macros as designated initialisers
 * (``.check = my_check``).
 */
struct cfgng_attr {
	struct configfs_attribute	*attr;
	enum cfgng_kind			kind;
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
};

/*
 * The lock of @item's typed fields (a spinlock: brief, no sleeping, one
 * item's at a time): the helpers' show and store hold it, and a client
 * takes it to read or write a string or address field itself.
 */
void cfgng_item_lock(struct config_item *item) __acquires(item);
void cfgng_item_unlock(struct config_item *item) __releases(item);

/* A typed attribute's show and store; the macros call them. */
ssize_t cfgng_attr_show(const struct cfgng_attr *a, struct config_item *item,
			const void *field, size_t size, char *page);
ssize_t cfgng_attr_store(const struct cfgng_attr *a, struct config_item *item,
			 void *field, size_t size, const char *page,
			 size_t count);

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
#define __CFGNG_CHECK_BOOL(type)					\
	BUILD_BUG_ON(!__builtin_types_compatible_p(type, bool))
#define __CFGNG_CHECK_INT(type)						\
	BUILD_BUG_ON(!is_signed_type(type) || !__CFGNG_INT_TYPE(type))
#define __CFGNG_CHECK_UINT(type)					\
	BUILD_BUG_ON(is_signed_type(type) || !__CFGNG_INT_TYPE(type) ||	\
		     __builtin_types_compatible_p(type, bool))
#define __CFGNG_CHECK_ENUM(type)					\
	BUILD_BUG_ON(!__CFGNG_INT_TYPE(type) ||				\
		     __builtin_types_compatible_p(type, bool))
#define __CFGNG_CHECK_STR(type)						\
	BUILD_BUG_ON(!__builtin_types_compatible_p(type,		\
						   char [sizeof(type)]) || \
		     sizeof(type) < 2)
#define __CFGNG_CHECK_ADDR(type)					\
	BUILD_BUG_ON(!__builtin_types_compatible_p(type,		\
						   struct sockaddr_storage))

/*
 * A typed attribute: its configfs attribute, its struct cfgng_attr, and
 * one function that finds the field and hands it to the library, to show
 * (@page) or to store (@value); show and store call it. @m is the path
 * to the struct's config_item.
 */
#define __CFGNG_ATTR(type, m, f, kind_, mode_, store_fn, ...)		\
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
static const struct cfgng_attr type##_##f##_cfgng = {			\
	.attr		= &type##_attr_##f,				\
	.kind		= CFGNG_KIND_##kind_,				\
	__VA_ARGS__							\
};									\
static ssize_t type##_##f##_io(struct config_item *item, char *page,	\
			       const char *value, size_t count)		\
{									\
	__auto_type field = &(*container_of(item, struct type, m)).f;	\
									\
	__CFGNG_CHECK_##kind_(typeof(*field));				\
	if (page)							\
		return cfgng_attr_show(&type##_##f##_cfgng, item, field, \
				       sizeof(*field), page);		\
	return cfgng_attr_store(&type##_##f##_cfgng, item, field,	\
				sizeof(*field), value, count);		\
}

#define __CFGNG_ATTR_RW(type, m, f, kind, ...)				\
static ssize_t type##_##f##_store(struct config_item *item,		\
				  const char *page, size_t count);	\
__CFGNG_ATTR(type, m, f, kind, 0644, type##_##f##_store, __VA_ARGS__)	\
static ssize_t type##_##f##_store(struct config_item *item,		\
				  const char *page, size_t count)	\
{									\
	return type##_##f##_io(item, NULL, page, count);		\
}

#define __CFGNG_ATTR_RO(type, m, f, kind, ...)				\
__CFGNG_ATTR(type, m, f, kind, 0444, NULL, __VA_ARGS__)

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
	__CFGNG_ATTR_RW(type, m, f, BOOL, __VA_ARGS__)

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
	__CFGNG_ATTR_RW(type, m, f, INT, __VA_ARGS__)

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
	__CFGNG_ATTR_RW(type, m, f, UINT, __VA_ARGS__)

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
	__CFGNG_ATTR_RW(type, m, f, ENUM, .names = (table), __VA_ARGS__)

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
	__CFGNG_ATTR_RW(type, m, f, STR, __VA_ARGS__)

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
	__CFGNG_ATTR_RW(type, m, f, ADDR, .port = (ports), __VA_ARGS__)

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
 * under the item's lock, which the client takes (cfgng_item_lock()) to
 * change a string or an address (integers: WRITE_ONCE() will do).
 */
#define CFGNG_ATTR_BOOL_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, BOOL, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_INT_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, INT, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_UINT_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, UINT, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_ENUM_RO(type, m, f, table, ...)			\
	__CFGNG_ATTR_RO(type, m, f, ENUM, .names = (table), __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_STR_RO(type, m, f, ...)				\
	__CFGNG_ATTR_RO(type, m, f, STR, __VA_ARGS__)
/* See CFGNG_ATTR_BOOL_RO(). */
#define CFGNG_ATTR_ADDR_RO(type, m, f, ports, ...)			\
	__CFGNG_ATTR_RO(type, m, f, ADDR, .port = (ports), __VA_ARGS__)

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

/* A simple group's make_item or make_group, and its children's release. */
struct config_item *cfgng_child_make(const struct cfgng_child *child,
				     const struct config_item_type *type,
				     struct config_group *group,
				     const char *name);
void cfgng_child_release(const struct cfgng_child *child,
			 struct config_item *item);

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
 * Inline, so that each client's su_mutex has a lockdep class of its own,
 * as a stock client's has.
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

#endif /* _CONFIGFS_NG_HELPERS_H */
