// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel side of the tree: subsystems, runtime groups and default
 * groups, and dependencies on items. Exports the other half of the API.
 *
 * The first block of includes is frozen: it is stock's fs/configfs/dir.c
 * list followed by what stock's configfs_internal.h pulls in. Each exported
 * symbol's modversion CRC is computed from the types visible here, so
 * changing the list would give CRCs that differ from the distribution's
 * and its prebuilt clients would not load. internal.h comes last and adds
 * no type that the exported prototypes reach.
 */
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/mount.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/err.h>

#include <linux/configfs.h>
#include <linux/slab.h>
#include <linux/list.h>
#include <linux/spinlock.h>

#include "internal.h"

/*
 * Attach a kernel-made group under a parent node and make it visible.
 * The group is already in the item hierarchy.
 */
static int cng_register_locked_group(struct cng_node *parent,
				     struct config_group *group)
{
	struct cng_node *node;

	node = cng_attach(parent, &group->cg_item, group->cg_item.ci_name,
			  CNG_NODE_DEFAULT | CNG_NODE_GROUP);
	if (IS_ERR(node))
		return PTR_ERR(node);
	cng_inode_created(node);
	cng_node_put(node);
	return 0;
}

/* The node of a registered group, counted, or NULL. */
static struct cng_node *cng_group_node(struct config_group *group)
{
	struct cng_node *node;

	mutex_lock(&cng_tree_mutex);
	node = cng_node_from_item_locked(&group->cg_item);
	if (node)
		cng_node_get(node);
	mutex_unlock(&cng_tree_mutex);
	return node;
}

/**
 * configfs_register_group() - add a group under a registered group
 * @parent_group: the parent, already in the tree
 * @group: the new group, initialised; its default groups come with it
 *
 * The group appears at once, and user space cannot remove it (rmdir is
 * EPERM), as for a default group.
 *
 * Context: process; sleeps; takes the subsystem's su_mutex, so not to be
 * called under it.
 * Return: 0, -ENOENT if @parent_group is not in the tree, -EEXIST if the
 * name is taken, -ENOMEM.
 */
int configfs_register_group(struct config_group *parent_group,
			    struct config_group *group)
{
	struct configfs_subsystem *subsys = parent_group->cg_subsys;
	struct cng_node *parent;
	int ret;

	if (!group->cg_item.ci_name)
		group->cg_item.ci_name = group->cg_item.ci_namebuf;

	mutex_lock(&subsys->su_mutex);
	cng_hier_add_group(parent_group, group);
	mutex_unlock(&subsys->su_mutex);

	ret = -ENOENT;
	parent = cng_group_node(parent_group);
	if (parent) {
		ret = cng_register_locked_group(parent, group);
		cng_node_put(parent);
	}
	if (ret) {
		mutex_lock(&subsys->su_mutex);
		cng_hier_del_group(group);
		mutex_unlock(&subsys->su_mutex);
	}
	return ret;
}
EXPORT_SYMBOL(configfs_register_group);

/**
 * configfs_unregister_group() - remove a group added at runtime
 * @group: the group
 *
 * Open files below it fail with -ENODEV from now on; callbacks already
 * running are waited for. Whatever user space made below the group, and
 * every link from elsewhere into it, is removed first, deepest first,
 * with drop_link, disconnect_notify and drop_item as unlink and rmdir
 * would call them (stock leaves them behind, see docs/differences.md):
 * those callbacks run here, in the caller's context, each with its
 * subsystem's su_mutex or, for drop_link, the link's directory locked,
 * as for unlink(2) and rmdir(2).
 *
 * Context: process; sleeps; takes the subsystem's su_mutex, and the inode
 * lock of the directory of each link it removes. The caller must hold no
 * lock those callbacks take, no su_mutex, and must not be in a callback
 * of @group or of an item below it.
 */
void configfs_unregister_group(struct config_group *group)
{
	struct configfs_subsystem *subsys = group->cg_subsys;
	struct cng_node *node;

	node = cng_group_node(group);
	if (node) {
		cng_remove_force(node);
		cng_node_put(node);
	}
	mutex_lock(&subsys->su_mutex);
	cng_hier_del_group(group);
	mutex_unlock(&subsys->su_mutex);
}
EXPORT_SYMBOL(configfs_unregister_group);

/**
 * configfs_register_default_group() - allocate and register a group
 * @parent_group: the parent, already in the tree
 * @name: the group's name
 * @item_type: the group's type
 *
 * Context: process; sleeps; as configfs_register_group().
 * Return: the new group, or an ERR_PTR().
 */
struct config_group *
configfs_register_default_group(struct config_group *parent_group,
				const char *name,
				const struct config_item_type *item_type)
{
	struct config_group *group;
	int ret;

	group = kzalloc(sizeof(*group), GFP_KERNEL);
	if (!group)
		return ERR_PTR(-ENOMEM);
	config_group_init_type_name(group, name, item_type);

	ret = configfs_register_group(parent_group, group);
	if (ret) {
		kfree(group);
		return ERR_PTR(ret);
	}
	return group;
}
EXPORT_SYMBOL(configfs_register_default_group);

/**
 * configfs_unregister_default_group() - unregister and free a group
 * @group: a group from configfs_register_default_group()
 *
 * Context: process; sleeps; as configfs_unregister_group().
 */
void configfs_unregister_default_group(struct config_group *group)
{
	configfs_unregister_group(group);
	kfree(group);
}
EXPORT_SYMBOL(configfs_unregister_default_group);

/**
 * configfs_remove_default_groups() - put a group's default groups
 * @group: the group
 *
 * Takes each default group off @group's list and drops the reference its
 * creator held. Clients call it from their release.
 *
 * Context: any where config_item_put() may be called.
 */
void configfs_remove_default_groups(struct config_group *group)
{
	struct config_group *child, *next;

	list_for_each_entry_safe(child, next, &group->default_groups,
				 group_entry) {
		list_del(&child->group_entry);
		config_item_put(&child->cg_item);
	}
}
EXPORT_SYMBOL(configfs_remove_default_groups);

/**
 * configfs_register_subsystem() - add a subsystem at the top of the tree
 * @subsys: the subsystem, with its group and su_mutex initialised
 *
 * Works whether or not configfs is mounted: the tree lives in the module.
 *
 * Context: process; sleeps.
 * Return: 0, -EEXIST if the name is taken, -ENOMEM.
 */
int configfs_register_subsystem(struct configfs_subsystem *subsys)
{
	struct config_group *group = &subsys->su_group;
	int ret;

	if (!group->cg_item.ci_name)
		group->cg_item.ci_name = group->cg_item.ci_namebuf;

	mutex_lock(&cng_subsys_mutex);
	cng_hier_add_group(&cng_root_group, group);
	mutex_unlock(&cng_subsys_mutex);

	ret = cng_register_locked_group(&cng_root_node, group);
	if (ret) {
		mutex_lock(&cng_subsys_mutex);
		cng_hier_del_group(group);
		mutex_unlock(&cng_subsys_mutex);
	}
	return ret;
}
EXPORT_SYMBOL(configfs_register_subsystem);

/**
 * configfs_unregister_subsystem() - remove a subsystem and all below it
 * @subsys: the subsystem
 *
 * As configfs_unregister_group(), for a subsystem: user-made items and
 * links below it are removed first, with their callbacks run here.
 *
 * Context: process; sleeps; as configfs_unregister_group(): no lock the
 * removal callbacks take, and not under @subsys's su_mutex.
 */
void configfs_unregister_subsystem(struct configfs_subsystem *subsys)
{
	struct config_group *group = &subsys->su_group;
	struct cng_node *node;

	node = cng_group_node(group);
	if (!node || node->parent != &cng_root_node) {
		pr_err("Tried to unregister non-subsystem!\n");
		cng_node_put(node);
		return;
	}
	cng_remove_force(node);
	cng_node_put(node);

	mutex_lock(&cng_subsys_mutex);
	cng_hier_del_group(group);
	mutex_unlock(&cng_subsys_mutex);
}
EXPORT_SYMBOL(configfs_unregister_subsystem);

/*
 * Count a dependency on @target if it is in the tree, LIVE with all its
 * ancestors, and (when @subsys is given) below that subsystem.
 */
static int cng_depend(struct configfs_subsystem *subsys,
		      struct config_item *target)
{
	struct cng_node *node, *top, *p;
	int ret = -ENOENT;

	mutex_lock(&cng_tree_mutex);
	top = NULL;
	if (subsys) {
		top = cng_node_from_item_locked(&subsys->su_group.cg_item);
		if (!top || top->parent != &cng_root_node)
			goto out_unlock;
	}
	node = cng_node_from_item_locked(target);
	/* Stock searches below a subsystem: the root is never found. */
	if (!node || node == &cng_root_node)
		goto out_unlock;
	for (p = node; p != &cng_root_node; p = p->parent) {
		if (p->state != CNG_STATE_LIVE)
			goto out_unlock;
		if (p->parent == &cng_root_node && top && p != top)
			goto out_unlock;
	}
	/* Stock's depend cannot run out of memory; nor may ours. */
	cng_node_ext_locked(node, GFP_KERNEL | __GFP_NOFAIL);
	node->ext->depend++;
	ret = 0;
out_unlock:
	mutex_unlock(&cng_tree_mutex);
	return ret;
}

/**
 * configfs_depend_item() - keep an item from being removed by rmdir
 * @subsys: the subsystem the item is in
 * @target: the item
 *
 * rmdir of @target fails with -EBUSY until configfs_undepend_item().
 *
 * Context: process; sleeps. Not from a configfs callback (use
 * configfs_depend_item_unlocked() there), as in stock.
 * Return: 0, or -ENOENT if @target is not in @subsys's tree or is being
 * created or removed.
 */
int configfs_depend_item(struct configfs_subsystem *subsys,
			 struct config_item *target)
{
	return cng_depend(subsys, target);
}
EXPORT_SYMBOL(configfs_depend_item);

/**
 * configfs_undepend_item() - undo configfs_depend_item()
 * @target: the item
 *
 * Context: process; sleeps.
 */
void configfs_undepend_item(struct config_item *target)
{
	struct cng_node *node;

	mutex_lock(&cng_tree_mutex);
	node = cng_node_from_item_locked(target);
	/* A kernel-side unregister may have removed it meanwhile. */
	if (node && !WARN_ON_ONCE(!cng_node_depend(node)))
		node->ext->depend--;
	mutex_unlock(&cng_tree_mutex);
}
EXPORT_SYMBOL(configfs_undepend_item);

/**
 * configfs_depend_item_unlocked() - configfs_depend_item() from a callback
 * @caller_subsys: the caller's subsystem (stock uses it only for locking)
 * @target: the item, in any subsystem
 *
 * Context: process; sleeps; may be called from configfs callbacks, since
 * it takes no lock a callback runs under.
 * Return: 0, -EINVAL for the root, or -ENOENT as configfs_depend_item().
 */
int configfs_depend_item_unlocked(struct configfs_subsystem *caller_subsys,
				  struct config_item *target)
{
	if (cng_is_root_item(target))
		return -EINVAL;
	return cng_depend(NULL, target);
}
EXPORT_SYMBOL(configfs_depend_item_unlocked);
