// SPDX-License-Identifier: GPL-2.0
/*
 * cng_slot: a client that sets the 6.1 header's commit_item slot and uses
 * nothing but <linux/configfs.h>, so it loads on stock configfs too: the
 * fixture of docs/differences.md's row 24 (diff_commit_slot.sh). Stock
 * never calls the slot; ours makes the group committable.
 *
 *   /sys/kernel/config/cng_slot/
 *     ctl          WO  "unregister": the kernel side removes g/ (and
 *                      with it live items, which have no un-commit)
 *     g/           registered at load; its type sets commit_item.
 *                  mkdir makes an item; commit_item logs "commit NAME"
 *                  and refuses names starting with "no"
 */
#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static void cng_slot_item_release(struct config_item *item)
{
	kfree(item);
}

static struct configfs_item_operations cng_slot_item_ops = {
	.release	= cng_slot_item_release,
};

static const struct config_item_type cng_slot_item_type = {
	.ct_item_ops	= &cng_slot_item_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *cng_slot_make_item(struct config_group *group,
					      const char *name)
{
	struct config_item *item = kzalloc(sizeof(*item), GFP_KERNEL);

	if (!item)
		return ERR_PTR(-ENOMEM);
	config_item_init_type_name(item, name, &cng_slot_item_type);
	return item;
}

static int cng_slot_commit_item(struct config_item *item)
{
	if (!strncmp(config_item_name(item), "no", 2))
		return -EINVAL;
	pr_info("commit %s\n", config_item_name(item));
	return 0;
}

static struct configfs_group_operations cng_slot_group_ops = {
	.make_item	= cng_slot_make_item,
	.commit_item	= cng_slot_commit_item,
};

static const struct config_item_type cng_slot_group_type = {
	.ct_group_ops	= &cng_slot_group_ops,
	.ct_owner	= THIS_MODULE,
};

static struct config_group cng_slot_g;
static bool cng_slot_registered;	/* under cng_slot_lock */
static DEFINE_MUTEX(cng_slot_lock);

static ssize_t cng_slot_ctl_store(struct config_item *item, const char *page,
				  size_t count)
{
	int ret = -EINVAL;

	mutex_lock(&cng_slot_lock);
	if (sysfs_streq(page, "unregister") && cng_slot_registered) {
		configfs_unregister_group(&cng_slot_g);
		cng_slot_registered = false;
		ret = count;
	}
	mutex_unlock(&cng_slot_lock);
	return ret;
}

CONFIGFS_ATTR_WO(cng_slot_, ctl);

static struct configfs_attribute *cng_slot_root_attrs[] = {
	&cng_slot_attr_ctl,
	NULL,
};

static const struct config_item_type cng_slot_root_type = {
	.ct_attrs	= cng_slot_root_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem cng_slot_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "cng_slot",
			.ci_type	= &cng_slot_root_type,
		},
	},
};

static int __init cng_slot_init(void)
{
	int ret;

	config_group_init(&cng_slot_subsys.su_group);
	mutex_init(&cng_slot_subsys.su_mutex);
	ret = configfs_register_subsystem(&cng_slot_subsys);
	if (ret)
		return ret;
	config_group_init_type_name(&cng_slot_g, "g", &cng_slot_group_type);
	ret = configfs_register_group(&cng_slot_subsys.su_group, &cng_slot_g);
	if (ret) {
		configfs_unregister_subsystem(&cng_slot_subsys);
		return ret;
	}
	cng_slot_registered = true;
	return 0;
}

static void __exit cng_slot_exit(void)
{
	if (cng_slot_registered)
		configfs_unregister_group(&cng_slot_g);
	configfs_unregister_subsystem(&cng_slot_subsys);
}

module_init(cng_slot_init);
module_exit(cng_slot_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng fixture: a group that sets commit_item");
