// SPDX-License-Identifier: GPL-2.0
/*
 * A client of configfs-ng's committable items (configfs-ng.h): items
 * made in pending/, configured there, committed by a rename into live/.
 * Also the tests' fixture for them. Needs our configfs.ko.
 *
 *   /sys/kernel/config/cng_commit/
 *     stats           counts: commits, uncommits, live items, live items
 *                     the kernel side dropped
 *     ctl             "register NAME" or "unregister NAME": the kernel
 *                     side adds or removes one of the committable groups
 *                     dyn/ (not there at load), oneway/ and legacy/
 *     disks/          committable: commit and un-commit
 *       pending/NAME/ a disk, configured here:
 *         ready       0 or 1; a commit is refused while 0, with a reason
 *         fail        an errno the next commit or un-commit returns,
 *                     with a reason (once)
 *         delay_ms    commit and un-commit sleep this long first
 *         value       any integer, writable pending and live
 *         state       read-only: pending or live; says when it changes
 *         opts/       a default group, to move with the disk
 *       live/NAME/    a committed disk
 *     oneway/         committable without un-commit: its live disks
 *                     go only with the group (ctl unregister oneway)
 *     legacy/         committable through the 6.1 header's commit_item
 *                     slot alone (no un-commit), likewise
 *     hosts/NAME/     plain items that link to disks
 */
#include <linux/configfs.h>
#include <linux/delay.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <configfs-ng.h>

/**
 * struct cc_disk - one disk
 * @group: its group, a child of a committable group
 * @opts: its default group
 * @lock: serialises commit and un-commit with each other
 * @ready: commit allowed
 * @fail: errno for the next commit or un-commit, or 0
 * @delay_ms: sleep before committing or un-committing
 * @value: a setting
 * @live: committed
 */
struct cc_disk {
	struct config_group	group;
	struct config_group	opts;
	struct mutex		lock;	/* @live against commit races */
	bool			ready;
	int			fail;
	unsigned int		delay_ms;
	int			value;
	bool			live;
};

/* Counts for stats, under cc_stats_lock. */
static DEFINE_SPINLOCK(cc_stats_lock);
static unsigned long cc_commits, cc_uncommits, cc_live, cc_dropped_live;

static struct cc_disk *to_cc_disk(struct config_item *item)
{
	return container_of(to_config_group(item), struct cc_disk, group);
}

static ssize_t cc_disk_ready_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", to_cc_disk(item)->ready);
}

static ssize_t cc_disk_ready_store(struct config_item *item, const char *page,
				   size_t count)
{
	bool ready;

	if (kstrtobool(page, &ready))
		return -EINVAL;
	to_cc_disk(item)->ready = ready;
	return count;
}

static ssize_t cc_disk_fail_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", to_cc_disk(item)->fail);
}

static ssize_t cc_disk_fail_store(struct config_item *item, const char *page,
				  size_t count)
{
	int fail;

	if (kstrtoint(page, 0, &fail) || fail < 0 || fail > MAX_ERRNO)
		return -EINVAL;
	to_cc_disk(item)->fail = fail;
	return count;
}

static ssize_t cc_disk_delay_ms_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_cc_disk(item)->delay_ms);
}

static ssize_t cc_disk_delay_ms_store(struct config_item *item,
				      const char *page, size_t count)
{
	unsigned int ms;

	if (kstrtouint(page, 0, &ms) || ms > 60000)
		return -EINVAL;
	to_cc_disk(item)->delay_ms = ms;
	return count;
}

static ssize_t cc_disk_value_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", to_cc_disk(item)->value);
}

static ssize_t cc_disk_value_store(struct config_item *item, const char *page,
				   size_t count)
{
	int value;

	if (kstrtoint(page, 0, &value))
		return -EINVAL;
	to_cc_disk(item)->value = value;
	return count;
}

static ssize_t cc_disk_state_show(struct config_item *item, char *page)
{
	return sprintf(page, "%s\n", to_cc_disk(item)->live ? "live" :
		       "pending");
}

CONFIGFS_ATTR(cc_disk_, ready);
CONFIGFS_ATTR(cc_disk_, fail);
CONFIGFS_ATTR(cc_disk_, delay_ms);
CONFIGFS_ATTR(cc_disk_, value);
CONFIGFS_ATTR_RO(cc_disk_, state);

static struct configfs_attribute *cc_disk_attrs[] = {
	&cc_disk_attr_ready,
	&cc_disk_attr_fail,
	&cc_disk_attr_delay_ms,
	&cc_disk_attr_value,
	&cc_disk_attr_state,
	NULL,
};

static void cc_disk_release(struct config_item *item)
{
	kfree(to_cc_disk(item));
}

static struct configfs_item_operations cc_disk_item_ops = {
	.release	= cc_disk_release,
};

static const struct config_item_type cc_disk_type = {
	.ct_item_ops	= &cc_disk_item_ops,
	.ct_attrs	= cc_disk_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cc_opts_type = {
	.ct_owner	= THIS_MODULE,
};

/* Commit and un-commit: the same checks, then the state flips. */
static int cc_disk_switch(struct config_item *item, bool live)
{
	struct cc_disk *disk = to_cc_disk(item);
	int ret = 0;

	if (disk->delay_ms)
		msleep(disk->delay_ms);
	mutex_lock(&disk->lock);
	if (live && !disk->ready) {
		cfgng_report(item, "%s is not ready: write 1 to ready first",
			     config_item_name(item));
		ret = -EAGAIN;
	} else if (disk->fail) {
		ret = -disk->fail;
		disk->fail = 0;
		cfgng_report(item, "%s refused, as fail asked: %pe",
			     live ? "commit" : "un-commit", ERR_PTR(ret));
	} else {
		disk->live = live;
	}
	mutex_unlock(&disk->lock);
	if (ret)
		return ret;
	spin_lock(&cc_stats_lock);
	if (live) {
		cc_commits++;
		cc_live++;
	} else {
		cc_uncommits++;
		cc_live--;
	}
	spin_unlock(&cc_stats_lock);
	cfgng_notify(item, &cc_disk_attr_state);
	return 0;
}

static int cc_commit_item(struct config_item *item)
{
	return cc_disk_switch(item, true);
}

static int cc_uncommit_item(struct config_item *item)
{
	return cc_disk_switch(item, false);
}

static struct config_group *cc_make_disk(struct config_group *group,
					 const char *name)
{
	struct cc_disk *disk;

	disk = kzalloc(sizeof(*disk), GFP_KERNEL);
	if (!disk)
		return ERR_PTR(-ENOMEM);
	mutex_init(&disk->lock);
	config_group_init_type_name(&disk->group, name, &cc_disk_type);
	config_group_init_type_name(&disk->opts, "opts", &cc_opts_type);
	configfs_add_default_group(&disk->opts, &disk->group);
	return &disk->group;
}

/* Only a kernel-side removal drops a live disk: rmdir needs un-commit. */
static void cc_drop_disk(struct config_group *group, struct config_item *item)
{
	if (to_cc_disk(item)->live) {
		spin_lock(&cc_stats_lock);
		cc_live--;
		cc_dropped_live++;
		spin_unlock(&cc_stats_lock);
	}
	config_item_put(item);
}

static struct configfs_group_operations cc_disks_ops = {
	.make_group	= cc_make_disk,
	.drop_item	= cc_drop_disk,
};

static const struct config_item_type cc_disks_type = {
	.ct_group_ops	= &cc_disks_ops,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cc_oneway_type = {
	.ct_group_ops	= &cc_disks_ops,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cc_dyn_type = {
	.ct_group_ops	= &cc_disks_ops,
	.ct_owner	= THIS_MODULE,
};

static struct cfgng_committable cc_disks_committable = {
	.group_type	= &cc_disks_type,
	.commit_item	= cc_commit_item,
	.uncommit_item	= cc_uncommit_item,
};

static struct cfgng_committable cc_oneway_committable = {
	.group_type	= &cc_oneway_type,
	.commit_item	= cc_commit_item,
};

static struct cfgng_committable cc_dyn_committable = {
	.group_type	= &cc_dyn_type,
	.commit_item	= cc_commit_item,
	.uncommit_item	= cc_uncommit_item,
};

#ifdef CNG_HAVE_COMMIT_ITEM_SLOT
/* No registration: the header's slot alone makes it committable. */
static struct configfs_group_operations cc_legacy_ops = {
	.make_group	= cc_make_disk,
	.drop_item	= cc_drop_disk,
	.commit_item	= cc_commit_item,
};

static const struct config_item_type cc_legacy_type = {
	.ct_group_ops	= &cc_legacy_ops,
	.ct_owner	= THIS_MODULE,
};
#endif

/* hosts/NAME: links to disks, pending or live. */
static int cc_host_allow_link(struct config_item *src,
			      struct config_item *target)
{
	if (target->ci_type != &cc_disk_type) {
		cfgng_report(src, "%s is not a disk", config_item_name(target));
		return -EINVAL;
	}
	return 0;
}

static void cc_host_release(struct config_item *item)
{
	kfree(item);
}

static struct configfs_item_operations cc_host_item_ops = {
	.allow_link	= cc_host_allow_link,
	.release	= cc_host_release,
};

static const struct config_item_type cc_host_type = {
	.ct_item_ops	= &cc_host_item_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *cc_make_host(struct config_group *group,
					const char *name)
{
	struct config_item *item;

	item = kzalloc(sizeof(*item), GFP_KERNEL);
	if (!item)
		return ERR_PTR(-ENOMEM);
	config_item_init_type_name(item, name, &cc_host_type);
	return item;
}

static struct configfs_group_operations cc_hosts_ops = {
	.make_item	= cc_make_host,
};

static const struct config_item_type cc_hosts_type = {
	.ct_group_ops	= &cc_hosts_ops,
	.ct_owner	= THIS_MODULE,
};

/* The root: stats and ctl. */

static ssize_t cc_stats_show(struct config_item *item, char *page)
{
	ssize_t len;

	spin_lock(&cc_stats_lock);
	len = sprintf(page, "commits %lu\nuncommits %lu\nlive %lu\ndropped_live %lu\n",
		      cc_commits, cc_uncommits, cc_live, cc_dropped_live);
	spin_unlock(&cc_stats_lock);
	return len;
}

/**
 * struct cc_runtime - a committable group the kernel side adds and removes
 * @name: its name
 * @type: its type
 * @group: the group
 * @registered: it is there; under cc_ctl_lock
 */
struct cc_runtime {
	const char			*name;
	const struct config_item_type	*type;
	struct config_group		group;
	bool				registered;
};

static struct cc_runtime cc_runtime[] = {
	{ .name = "dyn", .type = &cc_dyn_type },
	{ .name = "oneway", .type = &cc_oneway_type },
#ifdef CNG_HAVE_COMMIT_ITEM_SLOT
	{ .name = "legacy", .type = &cc_legacy_type },
#endif
};

static DEFINE_MUTEX(cc_ctl_lock);

static int cc_runtime_set(struct config_group *parent, const char *name,
			  bool registered)
{
	struct cc_runtime *rt;
	int ret = 0;

	for (rt = cc_runtime; rt < cc_runtime + ARRAY_SIZE(cc_runtime); rt++)
		if (sysfs_streq(name, rt->name))
			break;
	if (rt == cc_runtime + ARRAY_SIZE(cc_runtime))
		return -ENOENT;
	mutex_lock(&cc_ctl_lock);
	if (registered && !rt->registered) {
		config_group_init_type_name(&rt->group, rt->name, rt->type);
		ret = configfs_register_group(parent, &rt->group);
		rt->registered = !ret;
	} else if (!registered && rt->registered) {
		configfs_unregister_group(&rt->group);
		rt->registered = false;
	} else {
		ret = -EALREADY;
	}
	mutex_unlock(&cc_ctl_lock);
	return ret;
}

static ssize_t cc_ctl_store(struct config_item *item, const char *page,
			    size_t count)
{
	int ret = -EINVAL;

	if (!strncmp(page, "register ", 9))
		ret = cc_runtime_set(to_config_group(item), page + 9, true);
	else if (!strncmp(page, "unregister ", 11))
		ret = cc_runtime_set(to_config_group(item), page + 11, false);
	return ret ? ret : count;
}

CONFIGFS_ATTR_RO(cc_, stats);
CONFIGFS_ATTR_WO(cc_, ctl);

static struct configfs_attribute *cc_root_attrs[] = {
	&cc_attr_stats,
	&cc_attr_ctl,
	NULL,
};

static const struct config_item_type cc_root_type = {
	.ct_attrs	= cc_root_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_group cc_disks, cc_hosts;

static struct configfs_subsystem cc_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "cng_commit",
			.ci_type	= &cc_root_type,
		},
	},
};

static int __init cc_init(void)
{
	struct config_group *root = &cc_subsys.su_group;
	unsigned int i;
	int ret;

	config_group_init(root);
	mutex_init(&cc_subsys.su_mutex);
	config_group_init_type_name(&cc_disks, "disks", &cc_disks_type);
	configfs_add_default_group(&cc_disks, root);
	config_group_init_type_name(&cc_hosts, "hosts", &cc_hosts_type);
	configfs_add_default_group(&cc_hosts, root);

	cfgng_committable_register(&cc_disks_committable);
	cfgng_committable_register(&cc_oneway_committable);
	cfgng_committable_register(&cc_dyn_committable);
	ret = configfs_register_subsystem(&cc_subsys);
	if (ret) {
		cfgng_committable_unregister(&cc_dyn_committable);
		cfgng_committable_unregister(&cc_oneway_committable);
		cfgng_committable_unregister(&cc_disks_committable);
		return ret;
	}
	/* At load, all but dyn/; a failure leaves that group out. */
	for (i = 1; i < ARRAY_SIZE(cc_runtime); i++)
		cc_runtime_set(root, cc_runtime[i].name, true);
	return 0;
}

static void __exit cc_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cc_runtime); i++)
		cc_runtime_set(&cc_subsys.su_group, cc_runtime[i].name, false);
	configfs_unregister_subsystem(&cc_subsys);
	cfgng_committable_unregister(&cc_dyn_committable);
	cfgng_committable_unregister(&cc_oneway_committable);
	cfgng_committable_unregister(&cc_disks_committable);
}

module_init(cc_init);
module_exit(cc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng sample: committable items");
