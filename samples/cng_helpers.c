// SPDX-License-Identifier: GPL-2.0
/*
 * Every kind of typed attribute of the helper layer
 * (configfs-ng-helpers.h), with its options, in a simple group whose
 * children are groups: the fixture of tests/helpers/helpers_attrs.c. Uses
 * the helpers alone (configfs_helpers.ko), so it loads on stock
 * configfs.ko too.
 *
 *   /sys/kernel/config/cng_helpers/
 *     description     a constant text
 *     NAME/           mkdir makes an item, unless NAME starts with "bad"
 *       rw            bool
 *       count         int, -10..10
 *       big           s64
 *       level         u8
 *       port          u16, 1..65535, 10809 at first; a change counts
 *       mode          one of off, slow, fast
 *       label         a string of up to 15 bytes
 *       host          an IPv4 or IPv6 address
 *       peer          the same, with an optional port
 *       server        the same, with a port
 *       even          int, refused by a check when odd
 *       LINK -> ../OTHER   links to other items only
 *       stats/        a default group
 *         changes     read-only: how many writes changed port
 */
#include <linux/string.h>

#include <configfs-ng-helpers.h>

struct cng_helpers_item {
	struct config_group		group;
	struct config_group		stats;
	bool				rw;
	int				count;
	s64				big;
	u8				level;
	u16				port;
	unsigned int			mode;
	char				label[16];
	struct sockaddr_storage		host;
	struct sockaddr_storage		peer;
	struct sockaddr_storage		server;
	int				even;
	unsigned int			changes;
};

static const char * const cng_helpers_modes[] = { "off", "slow", "fast", NULL };

static int cng_helpers_even_check(struct config_item *item,
				  const struct configfs_attribute *attr,
				  const void *val, const char **why)
{
	if (*(const int *)val % 2) {
		*why = "is not even";
		return -EINVAL;
	}
	return 0;
}

static void cng_helpers_port_changed(struct config_item *item,
				     const struct configfs_attribute *attr);

CFGNG_ATTR_BOOL(cng_helpers_item, group.cg_item, rw);
CFGNG_ATTR_INT(cng_helpers_item, group.cg_item, count, CFGNG_RANGE(-10, 10));
CFGNG_ATTR_INT(cng_helpers_item, group.cg_item, big);
CFGNG_ATTR_UINT(cng_helpers_item, group.cg_item, level);
CFGNG_ATTR_UINT(cng_helpers_item, group.cg_item, port, CFGNG_RANGE(1, 65535),
		.changed = cng_helpers_port_changed);
CFGNG_ATTR_ENUM(cng_helpers_item, group.cg_item, mode, cng_helpers_modes);
CFGNG_ATTR_STR(cng_helpers_item, group.cg_item, label);
CFGNG_ATTR_ADDR(cng_helpers_item, group.cg_item, host, CFGNG_PORT_NONE);
CFGNG_ATTR_ADDR(cng_helpers_item, group.cg_item, peer, CFGNG_PORT_OPTIONAL);
CFGNG_ATTR_ADDR(cng_helpers_item, group.cg_item, server,
		CFGNG_PORT_REQUIRED);
CFGNG_ATTR_INT(cng_helpers_item, group.cg_item, even,
	       .check = cng_helpers_even_check);
/* The default group's attribute: a field of the item that holds it. */
CFGNG_ATTR_UINT_RO(cng_helpers_item, stats.cg_item, changes);
CFGNG_TYPE(cng_helpers_stats, CFGNG_ATTRS(&cng_helpers_item_attr_changes));

static int cng_helpers_init(struct config_group *group,
			    struct config_item *item);
static int cng_helpers_allow_link(struct config_item *src,
				  struct config_item *target);

CFGNG_CHILD_GROUP(cng_helpers_item, group,
		  CFGNG_ATTRS(&cng_helpers_item_attr_rw,
			      &cng_helpers_item_attr_count,
			      &cng_helpers_item_attr_big,
			      &cng_helpers_item_attr_level,
			      &cng_helpers_item_attr_port,
			      &cng_helpers_item_attr_mode,
			      &cng_helpers_item_attr_label,
			      &cng_helpers_item_attr_host,
			      &cng_helpers_item_attr_peer,
			      &cng_helpers_item_attr_server,
			      &cng_helpers_item_attr_even),
		  .init = cng_helpers_init,
		  .ops.allow_link = cng_helpers_allow_link);

static void cng_helpers_port_changed(struct config_item *item,
				     const struct configfs_attribute *attr)
{
	struct cng_helpers_item *hi = to_cng_helpers_item(item);

	WRITE_ONCE(hi->changes, hi->changes + 1);
}

static int cng_helpers_init(struct config_group *group,
			    struct config_item *item)
{
	struct cng_helpers_item *hi = to_cng_helpers_item(item);

	if (!strncmp(config_item_name(item), "bad", 3)) {
		cfgng_refuse(&group->cg_item,
			     "name '%s' is refused: names starting with 'bad' are reserved",
			     config_item_name(item));
		return -EINVAL;
	}
	hi->port = 10809;
	config_group_init_type_name(&hi->stats, "stats",
				    &cng_helpers_stats_type);
	configfs_add_default_group(&hi->stats, &hi->group);
	return 0;
}

static int cng_helpers_allow_link(struct config_item *src,
				  struct config_item *target)
{
	if (target->ci_type != &cng_helpers_item_type) {
		cfgng_refuse(src, "link to '%s': not an item of cng_helpers",
			     config_item_name(target));
		return -EINVAL;
	}
	return 0;
}

CFGNG_ATTR_CONST(cng_helpers, description,
		 "[cng_helpers]\n\nEvery kind of typed attribute of configfs-ng.h.\n");
CFGNG_SIMPLE_SUBSYSTEM(cng_helpers, cng_helpers_item,
		       &cng_helpers_attr_description);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng sample: every kind of helper attribute");
