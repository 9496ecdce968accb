// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark client: the configfs objects that bench/ measures. It uses the
 * standard <linux/configfs.h> API only, so it loads on stock configfs too.
 *
 *   /sys/kernel/config/cng_bench/
 *     item_size, tree_size   bytes the client allocates per item and per tree
 *     items/                 mkdir makes an item with $attrs attributes a0..
 *     trees/                 mkdir makes a group with $children default
 *                            child groups c0.., each empty
 *     items_b/               a second items/: two processes in two
 *                            directories of one subsystem (make bench-smp)
 *   /sys/kernel/config/cng_bench_b/
 *     items/                 the same items, in a second subsystem
 *
 * Both parameters may change between two mkdirs: each item keeps the
 * attribute count it was made with, each tree its children.
 *
 * With sysfs_items=M, the load also makes the sysfs twin of the items
 * group, the reference of attribute reads: M kobjects with $attrs
 * attributes each, at the same depth as an item's attribute (the twin
 * stands where configfs is mounted) and with the same show and store:
 *
 *   /sys/kernel/cng_bench_twin/cng_bench/items/i000000 .. i<M-1>  (a0 ..)
 */
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#define CNG_BENCH_MAX_ATTRS	64
#define CNG_BENCH_MAX_CHILDREN	16

static unsigned int attrs = 8;
module_param(attrs, uint, 0644);
MODULE_PARM_DESC(attrs, "Attributes of each new item (0-64, default 8)");

static unsigned int children = 4;
module_param(children, uint, 0644);
MODULE_PARM_DESC(children, "Default child groups of each new tree (0-16, default 4)");

static unsigned int sysfs_items;
module_param(sysfs_items, uint, 0444);
MODULE_PARM_DESC(sysfs_items, "Items of the sysfs twin made at load (default 0: no twin)");

struct cng_bench_item {
	struct config_item item;
	unsigned long value;
};

struct cng_bench_tree {
	struct config_group group;
	unsigned int nr_children;
	struct config_group children[];
};

static struct cng_bench_item *to_cng_bench_item(struct config_item *item)
{
	return container_of(item, struct cng_bench_item, item);
}

static struct cng_bench_tree *to_cng_bench_tree(struct config_item *item)
{
	return container_of(to_config_group(item), struct cng_bench_tree, group);
}

/*
 * Every attribute of an item shows and stores the same value: the benchmark
 * measures the file system, not the client.
 */
static ssize_t cng_bench_item_show(struct config_item *item, char *page)
{
	return sprintf(page, "%lu\n", READ_ONCE(to_cng_bench_item(item)->value));
}

static ssize_t cng_bench_item_store(struct config_item *item, const char *page,
				    size_t count)
{
	unsigned long value;
	int ret;

	ret = kstrtoul(page, 0, &value);
	if (ret)
		return ret;
	WRITE_ONCE(to_cng_bench_item(item)->value, value);
	return count;
}

static char cng_bench_attr_names[CNG_BENCH_MAX_ATTRS][8];
static struct configfs_attribute cng_bench_attrs[CNG_BENCH_MAX_ATTRS];

/*
 * The attribute pointers, filled from the end: the item type with A
 * attributes lists the last A of them, so every type shares one array and
 * its NULL terminator.
 */
static struct configfs_attribute *cng_bench_attr_ptrs[CNG_BENCH_MAX_ATTRS + 1];

static void cng_bench_item_release(struct config_item *item)
{
	kfree(to_cng_bench_item(item));
}

static struct configfs_item_operations cng_bench_item_ops = {
	.release = cng_bench_item_release,
};

/* One item type per attribute count; ct_attrs is set at module init. */
static struct config_item_type cng_bench_item_types[CNG_BENCH_MAX_ATTRS + 1];

static struct config_item *cng_bench_items_make_item(struct config_group *group,
						     const char *name)
{
	unsigned int nr_attrs = min_t(unsigned int, READ_ONCE(attrs),
				      CNG_BENCH_MAX_ATTRS);
	struct cng_bench_item *bitem;

	bitem = kzalloc(sizeof(*bitem), GFP_KERNEL);
	if (!bitem)
		return ERR_PTR(-ENOMEM);
	config_item_init_type_name(&bitem->item, name,
				   &cng_bench_item_types[nr_attrs]);
	return &bitem->item;
}

static struct configfs_group_operations cng_bench_items_group_ops = {
	.make_item = cng_bench_items_make_item,
};

static const struct config_item_type cng_bench_items_type = {
	.ct_group_ops = &cng_bench_items_group_ops,
	.ct_owner = THIS_MODULE,
};

static const struct config_item_type cng_bench_child_type = {
	.ct_owner = THIS_MODULE,
};

/* The children are embedded: each holds a reference on the tree. */
static void cng_bench_tree_release(struct config_item *item)
{
	kfree(to_cng_bench_tree(item));
}

static struct configfs_item_operations cng_bench_tree_item_ops = {
	.release = cng_bench_tree_release,
};

static const struct config_item_type cng_bench_tree_type = {
	.ct_item_ops = &cng_bench_tree_item_ops,
	.ct_owner = THIS_MODULE,
};

static struct config_group *cng_bench_trees_make_group(struct config_group *group,
						       const char *name)
{
	unsigned int nr = min_t(unsigned int, READ_ONCE(children),
				CNG_BENCH_MAX_CHILDREN);
	struct cng_bench_tree *tree;
	char child_name[8];
	unsigned int i;

	tree = kzalloc(struct_size(tree, children, nr), GFP_KERNEL);
	if (!tree)
		return ERR_PTR(-ENOMEM);
	tree->nr_children = nr;
	config_group_init_type_name(&tree->group, name, &cng_bench_tree_type);
	for (i = 0; i < nr; i++) {
		snprintf(child_name, sizeof(child_name), "c%u", i);
		config_group_init_type_name(&tree->children[i], child_name,
					    &cng_bench_child_type);
		configfs_add_default_group(&tree->children[i], &tree->group);
	}
	return &tree->group;
}

static struct configfs_group_operations cng_bench_trees_group_ops = {
	.make_group = cng_bench_trees_make_group,
};

static const struct config_item_type cng_bench_trees_type = {
	.ct_group_ops = &cng_bench_trees_group_ops,
	.ct_owner = THIS_MODULE,
};

/* What the client itself allocates, for the benchmark to subtract. */
static ssize_t cng_bench_alloc_size(size_t size)
{
	void *p = kmalloc(size, GFP_KERNEL);
	ssize_t ret;

	if (!p)
		return -ENOMEM;
	ret = ksize(p);
	kfree(p);
	return ret;
}

static ssize_t cng_bench_item_size_show(struct config_item *item, char *page)
{
	ssize_t size = cng_bench_alloc_size(sizeof(struct cng_bench_item));

	return size < 0 ? size : sprintf(page, "%zd\n", size);
}

static ssize_t cng_bench_tree_size_show(struct config_item *item, char *page)
{
	struct cng_bench_tree *tree;
	ssize_t size;

	size = cng_bench_alloc_size(struct_size(tree, children,
						min_t(unsigned int, READ_ONCE(children),
						      CNG_BENCH_MAX_CHILDREN)));
	return size < 0 ? size : sprintf(page, "%zd\n", size);
}

CONFIGFS_ATTR_RO(cng_bench_, item_size);
CONFIGFS_ATTR_RO(cng_bench_, tree_size);

static struct configfs_attribute *cng_bench_root_attrs[] = {
	&cng_bench_attr_item_size,
	&cng_bench_attr_tree_size,
	NULL,
};

static const struct config_item_type cng_bench_root_type = {
	.ct_attrs = cng_bench_root_attrs,
	.ct_owner = THIS_MODULE,
};

static struct config_group cng_bench_items_group;
static struct config_group cng_bench_items_b_group;
static struct config_group cng_bench_trees_group;
static struct config_group cng_bench_b_items_group;

static struct configfs_subsystem cng_bench_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "cng_bench",
			.ci_type = &cng_bench_root_type,
		},
	},
};

static const struct config_item_type cng_bench_b_root_type = {
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem cng_bench_b_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "cng_bench_b",
			.ci_type = &cng_bench_b_root_type,
		},
	},
};

static void cng_bench_init_types(void)
{
	unsigned int i;

	for (i = 0; i < CNG_BENCH_MAX_ATTRS; i++) {
		snprintf(cng_bench_attr_names[i], sizeof(cng_bench_attr_names[i]),
			 "a%u", i);
		cng_bench_attrs[i].ca_name = cng_bench_attr_names[i];
		cng_bench_attrs[i].ca_owner = THIS_MODULE;
		cng_bench_attrs[i].ca_mode = 0644;
		cng_bench_attrs[i].show = cng_bench_item_show;
		cng_bench_attrs[i].store = cng_bench_item_store;
		cng_bench_attr_ptrs[CNG_BENCH_MAX_ATTRS - 1 - i] =
			&cng_bench_attrs[i];
	}
	for (i = 0; i <= CNG_BENCH_MAX_ATTRS; i++) {
		cng_bench_item_types[i].ct_item_ops = &cng_bench_item_ops;
		cng_bench_item_types[i].ct_attrs =
			&cng_bench_attr_ptrs[CNG_BENCH_MAX_ATTRS - i];
		cng_bench_item_types[i].ct_owner = THIS_MODULE;
	}
}

/*
 * The sysfs twin: what sysfs costs for the same tree, named and shown as
 * the configfs items are. Made at load, removed at unload; nothing else
 * changes it.
 */
struct cng_bench_twin {
	struct kobject kobj;
	unsigned long value;
};

static struct kobject *cng_bench_twin_dirs[3];	/* the path down to items */
static struct cng_bench_twin **cng_bench_twins;
static unsigned int cng_bench_nr_twins;

static ssize_t cng_bench_twin_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct cng_bench_twin *twin = container_of(kobj, struct cng_bench_twin,
						   kobj);

	return sprintf(buf, "%lu\n", READ_ONCE(twin->value));
}

static ssize_t cng_bench_twin_store(struct kobject *kobj,
				    struct kobj_attribute *attr,
				    const char *buf, size_t count)
{
	struct cng_bench_twin *twin = container_of(kobj, struct cng_bench_twin,
						   kobj);
	unsigned long value;
	int ret;

	ret = kstrtoul(buf, 0, &value);
	if (ret)
		return ret;
	WRITE_ONCE(twin->value, value);
	return count;
}

static struct kobj_attribute cng_bench_twin_attrs[CNG_BENCH_MAX_ATTRS];
static struct attribute *cng_bench_twin_attr_ptrs[CNG_BENCH_MAX_ATTRS + 1];
static struct attribute_group cng_bench_twin_group;
static const struct attribute_group *cng_bench_twin_groups[] = {
	&cng_bench_twin_group,
	NULL,
};

static void cng_bench_twin_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct cng_bench_twin, kobj));
}

static const struct kobj_type cng_bench_twin_ktype = {
	.release	= cng_bench_twin_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= cng_bench_twin_groups,
};

static void cng_bench_twin_remove(void)
{
	int i;

	while (cng_bench_nr_twins)
		kobject_put(&cng_bench_twins[--cng_bench_nr_twins]->kobj);
	kvfree(cng_bench_twins);
	cng_bench_twins = NULL;
	for (i = ARRAY_SIZE(cng_bench_twin_dirs) - 1; i >= 0; i--) {
		kobject_put(cng_bench_twin_dirs[i]);
		cng_bench_twin_dirs[i] = NULL;
	}
}

/* The first @nr_attrs attributes, a0 first, as the item type of @nr_attrs. */
static int cng_bench_twin_make(unsigned int nr, unsigned int nr_attrs)
{
	static const char * const dirs[] = { "cng_bench_twin", "cng_bench",
					     "items" };
	struct kobject *parent = kernel_kobj;
	struct cng_bench_twin *twin;
	unsigned int i;
	int ret;

	for (i = 0; i < nr_attrs; i++) {
		sysfs_attr_init(&cng_bench_twin_attrs[i].attr);
		cng_bench_twin_attrs[i].attr.name = cng_bench_attr_names[i];
		cng_bench_twin_attrs[i].attr.mode = 0644;
		cng_bench_twin_attrs[i].show = cng_bench_twin_show;
		cng_bench_twin_attrs[i].store = cng_bench_twin_store;
		cng_bench_twin_attr_ptrs[i] = &cng_bench_twin_attrs[i].attr;
	}
	cng_bench_twin_group.attrs = cng_bench_twin_attr_ptrs;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		cng_bench_twin_dirs[i] = kobject_create_and_add(dirs[i], parent);
		if (!cng_bench_twin_dirs[i]) {
			ret = -ENOMEM;
			goto err_remove;
		}
		parent = cng_bench_twin_dirs[i];
	}
	cng_bench_twins = kvcalloc(nr, sizeof(*cng_bench_twins), GFP_KERNEL);
	if (!cng_bench_twins) {
		ret = -ENOMEM;
		goto err_remove;
	}
	for (i = 0; i < nr; i++) {
		twin = kzalloc(sizeof(*twin), GFP_KERNEL);
		if (!twin) {
			ret = -ENOMEM;
			goto err_remove;
		}
		ret = kobject_init_and_add(&twin->kobj, &cng_bench_twin_ktype,
					   parent, "i%06u", i);
		if (ret) {
			kobject_put(&twin->kobj);
			goto err_remove;
		}
		cng_bench_twins[cng_bench_nr_twins++] = twin;
		cond_resched();
	}
	return 0;

err_remove:
	cng_bench_twin_remove();
	return ret;
}

static int __init cng_bench_init(void)
{
	struct config_group *root = &cng_bench_subsys.su_group;
	struct config_group *root_b = &cng_bench_b_subsys.su_group;
	int ret;

	cng_bench_init_types();
	if (sysfs_items) {
		ret = cng_bench_twin_make(sysfs_items,
					  min_t(unsigned int, attrs,
						CNG_BENCH_MAX_ATTRS));
		if (ret)
			return ret;
	}
	config_group_init(root);
	mutex_init(&cng_bench_subsys.su_mutex);
	config_group_init_type_name(&cng_bench_items_group, "items",
				    &cng_bench_items_type);
	configfs_add_default_group(&cng_bench_items_group, root);
	config_group_init_type_name(&cng_bench_trees_group, "trees",
				    &cng_bench_trees_type);
	configfs_add_default_group(&cng_bench_trees_group, root);
	config_group_init_type_name(&cng_bench_items_b_group, "items_b",
				    &cng_bench_items_type);
	configfs_add_default_group(&cng_bench_items_b_group, root);
	config_group_init(root_b);
	mutex_init(&cng_bench_b_subsys.su_mutex);
	config_group_init_type_name(&cng_bench_b_items_group, "items",
				    &cng_bench_items_type);
	configfs_add_default_group(&cng_bench_b_items_group, root_b);

	ret = configfs_register_subsystem(&cng_bench_subsys);
	if (ret)
		goto err_twin;
	ret = configfs_register_subsystem(&cng_bench_b_subsys);
	if (ret)
		goto err_unregister;
	return 0;

err_unregister:
	configfs_unregister_subsystem(&cng_bench_subsys);
err_twin:
	cng_bench_twin_remove();
	return ret;
}

static void __exit cng_bench_exit(void)
{
	configfs_unregister_subsystem(&cng_bench_b_subsys);
	configfs_unregister_subsystem(&cng_bench_subsys);
	cng_bench_twin_remove();
}

module_init(cng_bench_init);
module_exit(cng_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng benchmark client: items with N attributes, trees of default groups");
