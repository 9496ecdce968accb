// SPDX-License-Identifier: GPL-2.0
/*
 * cng_visible: attributes hidden per item, with is_visible and
 * is_bin_visible of configfs_group_operations (Linux 6.12). configfs asks
 * them once for each attribute when an item's directory is made; an
 * attribute refused then has no file there for the item's life.
 *
 * Here the subsystem's "hide" lists the attributes that items made from
 * now on leave out; "asked" logs the calls as "NAME INDEX" lines.
 *
 *   /sys/kernel/config/cng_visible/
 *     hide        RW  attribute names to hide, space-separated
 *     asked       RW  one line per call: the attribute and its index in
 *                     ct_attrs or ct_bin_attrs; any write clears it
 *     ITEM/           mkdir makes an item with, unless hidden:
 *       color     RW  text
 *       secret    RW  text
 *       blob      RO  binary, 4 bytes
 *       key       RO  binary, 4 bytes
 *
 * Built only against a configfs.h that has is_visible.
 */
#include <linux/configfs.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

#define CNG_VIS_TEXT_MAX	256

/* hide and asked; under cng_vis_lock */
static DEFINE_MUTEX(cng_vis_lock);
static char cng_vis_hide[CNG_VIS_TEXT_MAX];
static char cng_vis_asked[PAGE_SIZE];

struct cng_vis_item {
	struct config_item	item;
	char			color[CNG_VIS_TEXT_MAX];
};

static struct cng_vis_item *to_cng_vis_item(struct config_item *item)
{
	return container_of(item, struct cng_vis_item, item);
}

/* Log the call and answer from hide. */
static bool cng_vis_ask(const char *name, int n)
{
	size_t len = strlen(name);
	const char *p;
	bool hidden = false;

	mutex_lock(&cng_vis_lock);
	for (p = strstr(cng_vis_hide, name); p; p = strstr(p + 1, name)) {
		if ((p == cng_vis_hide || p[-1] == ' ') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n')) {
			hidden = true;
			break;
		}
	}
	len = strlen(cng_vis_asked);
	snprintf(cng_vis_asked + len, sizeof(cng_vis_asked) - len, "%s %d\n",
		 name, n);
	mutex_unlock(&cng_vis_lock);
	return !hidden;
}

static bool cng_vis_is_visible(struct config_item *item,
			       struct configfs_attribute *attr, int n)
{
	return cng_vis_ask(attr->ca_name, n);
}

static bool cng_vis_is_bin_visible(struct config_item *item,
				   struct configfs_bin_attribute *attr, int n)
{
	return cng_vis_ask(attr->cb_attr.ca_name, n);
}

static ssize_t cng_vis_text_show(char *page, const char *text)
{
	return sysfs_emit(page, "%s\n", text);
}

static ssize_t cng_vis_text_store(char *text, const char *page, size_t count)
{
	size_t len = min_t(size_t, count, CNG_VIS_TEXT_MAX - 1);

	memcpy(text, page, len);
	text[len] = '\0';
	strim(text);
	return count;
}

static ssize_t cng_vis_color_show(struct config_item *item, char *page)
{
	return cng_vis_text_show(page, to_cng_vis_item(item)->color);
}

static ssize_t cng_vis_color_store(struct config_item *item,
				   const char *page, size_t count)
{
	return cng_vis_text_store(to_cng_vis_item(item)->color, page, count);
}

static ssize_t cng_vis_secret_show(struct config_item *item, char *page)
{
	return sysfs_emit(page, "sesame\n");
}

static ssize_t cng_vis_secret_store(struct config_item *item,
				    const char *page, size_t count)
{
	return count;
}

CONFIGFS_ATTR(cng_vis_, color);
CONFIGFS_ATTR(cng_vis_, secret);

static struct configfs_attribute *cng_vis_item_attrs[] = {
	&cng_vis_attr_color,
	&cng_vis_attr_secret,
	NULL,
};

static ssize_t cng_vis_four(void *buf, size_t max, const char *bytes)
{
	if (buf)
		memcpy(buf, bytes, min_t(size_t, max, 4));
	return 4;
}

static ssize_t cng_vis_blob_read(struct config_item *item, void *buf,
				 size_t max)
{
	return cng_vis_four(buf, max, "blob");
}

static ssize_t cng_vis_key_read(struct config_item *item, void *buf,
				size_t max)
{
	return cng_vis_four(buf, max, "key!");
}

CONFIGFS_BIN_ATTR_RO(cng_vis_, blob, NULL, 4);
CONFIGFS_BIN_ATTR_RO(cng_vis_, key, NULL, 4);

static struct configfs_bin_attribute *cng_vis_item_bin_attrs[] = {
	&cng_vis_attr_blob,
	&cng_vis_attr_key,
	NULL,
};

static void cng_vis_item_release(struct config_item *item)
{
	kfree(to_cng_vis_item(item));
}

static struct configfs_item_operations cng_vis_item_ops = {
	.release	= cng_vis_item_release,
};

/* Group operations of the item's own type: all it has is the two asks. */
static struct configfs_group_operations cng_vis_item_group_ops = {
	.is_visible	= cng_vis_is_visible,
	.is_bin_visible	= cng_vis_is_bin_visible,
};

static const struct config_item_type cng_vis_item_type = {
	.ct_item_ops	= &cng_vis_item_ops,
	.ct_group_ops	= &cng_vis_item_group_ops,
	.ct_attrs	= cng_vis_item_attrs,
	.ct_bin_attrs	= cng_vis_item_bin_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *cng_vis_make_item(struct config_group *group,
					     const char *name)
{
	struct cng_vis_item *vis;

	vis = kzalloc(sizeof(*vis), GFP_KERNEL);
	if (!vis)
		return ERR_PTR(-ENOMEM);
	config_item_init_type_name(&vis->item, name, &cng_vis_item_type);
	return &vis->item;
}

static ssize_t cng_vis_hide_show(struct config_item *item, char *page)
{
	ssize_t ret;

	mutex_lock(&cng_vis_lock);
	ret = cng_vis_text_show(page, cng_vis_hide);
	mutex_unlock(&cng_vis_lock);
	return ret;
}

static ssize_t cng_vis_hide_store(struct config_item *item, const char *page,
				  size_t count)
{
	ssize_t ret;

	mutex_lock(&cng_vis_lock);
	ret = cng_vis_text_store(cng_vis_hide, page, count);
	mutex_unlock(&cng_vis_lock);
	return ret;
}

static ssize_t cng_vis_asked_show(struct config_item *item, char *page)
{
	ssize_t ret;

	mutex_lock(&cng_vis_lock);
	ret = sysfs_emit(page, "%s", cng_vis_asked);
	mutex_unlock(&cng_vis_lock);
	return ret;
}

static ssize_t cng_vis_asked_store(struct config_item *item,
				   const char *page, size_t count)
{
	mutex_lock(&cng_vis_lock);
	cng_vis_asked[0] = '\0';
	mutex_unlock(&cng_vis_lock);
	return count;
}

CONFIGFS_ATTR(cng_vis_, hide);
CONFIGFS_ATTR(cng_vis_, asked);

static struct configfs_attribute *cng_vis_subsys_attrs[] = {
	&cng_vis_attr_hide,
	&cng_vis_attr_asked,
	NULL,
};

static struct configfs_group_operations cng_vis_subsys_group_ops = {
	.make_item	= cng_vis_make_item,
};

static const struct config_item_type cng_vis_subsys_type = {
	.ct_group_ops	= &cng_vis_subsys_group_ops,
	.ct_attrs	= cng_vis_subsys_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_subsystem cng_vis_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "cng_visible",
			.ci_type	= &cng_vis_subsys_type,
		},
	},
};

static int __init cng_vis_init(void)
{
	config_group_init(&cng_vis_subsys.su_group);
	mutex_init(&cng_vis_subsys.su_mutex);
	return configfs_register_subsystem(&cng_vis_subsys);
}

static void __exit cng_vis_exit(void)
{
	configfs_unregister_subsystem(&cng_vis_subsys);
}

module_init(cng_vis_init);
module_exit(cng_vis_exit);
MODULE_DESCRIPTION("configfs attributes hidden per item (is_visible)");
MODULE_LICENSE("GPL");
