// SPDX-License-Identifier: GPL-2.0
/*
 * Committable items with the helper layer: a light is made and set in
 * pending/, and switched on by its move into live/. Needs our configfs.ko
 * (committable items are not stock's) and configfs_helpers.ko.
 *
 *   /sys/kernel/config/cng_lights/
 *     pending/NAME/   a light that is off:
 *       color         red, green or blue
 *       level         0..100; a light at 0 cannot go live
 *     live/NAME/      a light that is on; its level may still change
 */
#include <configfs-ng-helpers.h>
#include <configfs-ng.h>

struct cng_light {
	struct config_item	item;
	unsigned int		color;
	unsigned int		level;
};

static const char * const cng_light_colors[] = { "red", "green", "blue", NULL };

CFGNG_ATTR_ENUM(cng_light, item, color, cng_light_colors);
CFGNG_ATTR_UINT(cng_light, item, level, CFGNG_RANGE(0, 100));
CFGNG_CHILD(cng_light, item,
	    CFGNG_ATTRS(&cng_light_attr_color, &cng_light_attr_level));
CFGNG_GROUP(cng_lights, cng_light, NULL);
CFGNG_SUBSYSTEM(cng_lights, "cng_lights", &cng_lights_type);

static int cng_light_on(struct config_item *item)
{
	struct cng_light *light = to_cng_light(item);

	if (!light->level) {
		cfgng_report(item, "level is 0: write 1..100 to level first");
		return -EINVAL;
	}
	pr_info("%s is on: %s at %u%%\n", config_item_name(item),
		cng_light_colors[light->color], light->level);
	return 0;
}

static int cng_light_off(struct config_item *item)
{
	pr_info("%s is off\n", config_item_name(item));
	return 0;
}

static struct cfgng_committable cng_lights_committable = {
	.group_type	= &cng_lights_type,
	.commit_item	= cng_light_on,
	.uncommit_item	= cng_light_off,
};

static int __init cng_lights_init(void)
{
	int ret;

	cfgng_committable_register(&cng_lights_committable);
	ret = cfgng_subsystem_register(&cng_lights_subsys);
	if (ret)
		cfgng_committable_unregister(&cng_lights_committable);
	return ret;
}

static void __exit cng_lights_exit(void)
{
	configfs_unregister_subsystem(&cng_lights_subsys);
	cfgng_committable_unregister(&cng_lights_committable);
}

module_init(cng_lights_init);
module_exit(cng_lights_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng sample: committable items with the helpers");
