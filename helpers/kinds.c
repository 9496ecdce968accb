// SPDX-License-Identifier: GPL-2.0
/*
 * The kinds of typed attribute: how each parses the user's value into its
 * field and writes the field back, and the reasons it refuses values with.
 * Fields are read and written by size: integers of 1, 2, 4 or 8 bytes.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/string.h>

#include <configfs-ng-helpers.h>

#include "internal.h"

static s64 cng_get_s64(const void *val, size_t size)
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

static u64 cng_get_u64(const void *val, size_t size)
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

static void cng_set_u64(void *val, size_t size, u64 v)
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
static int cng_parse_int(struct config_item *item,
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
		cng_attr_refuse(item, a, page, count, "is not in %lld..%lld",
				lo, hi);
		return ret;
	}
	cng_set_u64(val, size, v);
	return 0;
}

static ssize_t cng_format_int(const struct cfgng_attr *a,
			      const void *val, size_t size,
			      char *page)
{
	return sprintf(page, "%lld\n", cng_get_s64(val, size));
}

static int cng_parse_uint(struct config_item *item,
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
		cng_attr_refuse(item, a, page, count, "is not in %llu..%llu",
				lo, hi);
		return ret;
	}
	cng_set_u64(val, size, v);
	return 0;
}

static ssize_t cng_format_uint(const struct cfgng_attr *a,
			       const void *val, size_t size,
			       char *page)
{
	return sprintf(page, "%llu\n", cng_get_u64(val, size));
}

/* The user's value without its newline is exactly @s. */
static bool cng_value_is(const char *page, size_t count,
			 const char *s)
{
	if (count && page[count - 1] == '\n')
		count--;
	return strlen(s) == count && !memcmp(page, s, count);
}

static int cng_parse_bool(struct config_item *item,
			  const struct cfgng_attr *a,
			  const char *page, size_t count, void *val,
			  size_t size)
{
	if (cng_value_is(page, count, "0") ||
	    cng_value_is(page, count, "1")) {
		*(bool *)val = page[0] == '1';
		return 0;
	}
	cng_attr_refuse(item, a, page, count, "is not one of 0, 1");
	return -EINVAL;
}

static ssize_t cng_format_bool(const struct cfgng_attr *a,
			       const void *val, size_t size,
			       char *page)
{
	return sprintf(page, "%d\n", *(const bool *)val);
}

static int cng_parse_enum(struct config_item *item,
			  const struct cfgng_attr *a,
			  const char *page, size_t count, void *val,
			  size_t size)
{
	size_t len = 0;
	char *list;
	int i;

	for (i = 0; a->names[i]; i++) {
		if (cng_value_is(page, count, a->names[i])) {
			cng_set_u64(val, size, i);
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
	cng_attr_refuse(item, a, page, count, "is not one of %s",
			list ?: "its names");
	kfree(list);
	return -EINVAL;
}

static ssize_t cng_format_enum(const struct cfgng_attr *a,
			       const void *val, size_t size,
			       char *page)
{
	u64 v = cng_get_u64(val, size);
	u64 i;

	for (i = 0; a->names[i]; i++)
		if (i == v)
			return sprintf(page, "%s\n", a->names[i]);
	return sprintf(page, "%llu\n", v);
}

/* One line (no newline or NUL inside) that fits the array, NUL included. */
static int cng_parse_str(struct config_item *item,
			 const struct cfgng_attr *a,
			 const char *page, size_t count, void *val,
			 size_t size)
{
	size_t len = count;

	if (len && page[len - 1] == '\n')
		len--;
	if (len >= size || memchr(page, '\n', len) || memchr(page, 0, len)) {
		cng_attr_refuse(item, a, page, count,
				"is not one line of at most %zu bytes",
				size - 1);
		return -EINVAL;
	}
	memcpy(val, page, len);
	return 0;
}

static ssize_t cng_format_str(const struct cfgng_attr *a,
			      const void *val, size_t size,
			      char *page)
{
	return scnprintf(page, PAGE_SIZE, "%.*s\n", (int)size,
			 (const char *)val);
}

/*
 * cng_parse_port() - ":PORT" (1..65535) or nothing at @s, as @a allows;
 * 0 for none, -1 when refused.
 */
static int cng_parse_port(const struct cfgng_attr *a, const char *s)
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
static int cng_parse_addr(struct config_item *item,
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
			port = cng_parse_port(a, close + 1);
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else if (in4_pton(buf, len, (u8 *)&sin->sin_addr.s_addr, -1,
			    &end) && (!*end || *end == ':')) {
		port = cng_parse_port(a, end);
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
		cng_attr_refuse(item, a, page, count,
				"is not an IPv4 or IPv6 address");
	else if (a->port == CFGNG_PORT_OPTIONAL)
		cng_attr_refuse(item, a, page, count,
				"is not a.b.c.d, a.b.c.d:port, an IPv6 address or [IPv6]:port, with port in 1..65535");
	else
		cng_attr_refuse(item, a, page, count,
				"is not a.b.c.d:port or [IPv6]:port, with port in 1..65535");
	return -EINVAL;
}

/* As it is written, port after a colon; an address never set: empty. */
static ssize_t cng_format_addr(const struct cfgng_attr *a,
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

static const struct cng_kind cng_kinds[] = {
	[CFGNG_KIND_BOOL] = { cng_parse_bool, cng_format_bool },
	[CFGNG_KIND_INT] = { cng_parse_int, cng_format_int },
	[CFGNG_KIND_UINT] = { cng_parse_uint, cng_format_uint },
	[CFGNG_KIND_ENUM] = { cng_parse_enum, cng_format_enum },
	[CFGNG_KIND_STR] = { cng_parse_str, cng_format_str },
	[CFGNG_KIND_ADDR] = { cng_parse_addr, cng_format_addr },
};

/**
 * cng_kind_get() - how the typed attribute @a reads and writes its field
 * @a: the attribute
 *
 * Return: its kind's parser and formatter; NULL for a kind this module
 * does not know (a client built for a later one).
 */
const struct cng_kind *cng_kind_get(const struct cfgng_attr *a)
{
	if (WARN_ON_ONCE((unsigned int)a->kind >= ARRAY_SIZE(cng_kinds)))
		return NULL;
	return &cng_kinds[a->kind];
}
