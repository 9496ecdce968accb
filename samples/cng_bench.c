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
 *
 * Both parameters may change between two mkdirs: each item keeps the
 * attribute count it was made with, each tree its children.
 */
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#define CNG_BENCH_MAX_ATTRS	64
#define CNG_BENCH_MAX_CHILDREN	16

static unsigned int attrs = 8;
module_param(attrs, uint, 0644);
MODULE_PARM_DESC(attrs, "Attributes of each new item (0-64, default 8)");

static unsigned int children = 4;
module_param(children, uint, 0644);
MODULE_PARM_DESC(children, "Default child groups of each new tree (0-16, default 4)");

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
static struct config_group cng_bench_trees_group;

static struct configfs_subsystem cng_bench_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "cng_bench",
			.ci_type = &cng_bench_root_type,
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

static int __init cng_bench_init(void)
{
	struct config_group *root = &cng_bench_subsys.su_group;

	cng_bench_init_types();
	config_group_init(root);
	mutex_init(&cng_bench_subsys.su_mutex);
	config_group_init_type_name(&cng_bench_items_group, "items",
				    &cng_bench_items_type);
	configfs_add_default_group(&cng_bench_items_group, root);
	config_group_init_type_name(&cng_bench_trees_group, "trees",
				    &cng_bench_trees_type);
	configfs_add_default_group(&cng_bench_trees_group, root);
	return configfs_register_subsystem(&cng_bench_subsys);
}

static void __exit cng_bench_exit(void)
{
	configfs_unregister_subsystem(&cng_bench_subsys);
}

module_init(cng_bench_init);
module_exit(cng_bench_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng benchmark client: items with N attributes, trees of default groups");
