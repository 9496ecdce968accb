// SPDX-License-Identifier: GPL-2.0
/*
 * Directories: lookup, mkdir, rmdir and readdir, the attach and removal
 * paths shared with the kernel-side calls, and the item hierarchy links.
 *
 * An item hierarchy link (ci_parent, ci_group, cg_children) is made under
 * the subsystem's su_mutex exactly as stock makes it; the backing tree
 * under cng_tree_mutex mirrors it for what user space sees.
 */
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/**
 * struct cng_dir_cursor - where readdir of one open directory stands
 * @mark: a node of type CNG_NODE_CURSOR in the directory's children:
 *	  just before the child being returned, then just after it; tree
 *	  mutex
 * @pos: the f_pos just after that child was returned
 * @valid: @mark is among the children and @pos is set
 * @next: scratch copy of the entry being returned
 *
 * Owned by the open file; f_pos_lock serialises its users. The mark
 * makes a readdir resume in O(1), and one interrupted by creations and
 * removals neither repeats nor skips a child that stays.
 */
struct cng_dir_cursor {
	struct cng_node	mark;
	loff_t		pos;
	bool		valid;
	char		next[NAME_MAX + 1];
};

static bool cng_node_visible(const struct cng_node *node)
{
	u8 state = READ_ONCE(node->state);

	return state == CNG_STATE_LIVE || state == CNG_STATE_DROPPING;
}

/*
 * The attribute of slot @slot (1-based: text attributes, then binary) or
 * the one named @name. Sets *attr and *kind and returns the slot, or 0.
 * The caller keeps the item alive.
 */
static unsigned int cng_attr_find(const struct config_item_type *type,
				  const char *name, unsigned int want,
				  const void **attr, unsigned int *kind)
{
	unsigned int slot = 1;
	int i;

	if (!type)
		return 0;
	for (i = 0; type->ct_attrs && type->ct_attrs[i]; i++, slot++) {
		const struct configfs_attribute *ca = type->ct_attrs[i];

		if (slot > CNG_MAX_SLOT)
			return 0;
		if (want ? slot == want : !strcmp(ca->ca_name, name)) {
			*attr = ca;
			*kind = CNG_FILE_ATTR;
			return slot;
		}
	}
	for (i = 0; type->ct_bin_attrs && type->ct_bin_attrs[i]; i++, slot++) {
		const struct configfs_bin_attribute *cb = type->ct_bin_attrs[i];

		if (slot > CNG_MAX_SLOT)
			return 0;
		if (want ? slot == want : !strcmp(cb->cb_attr.ca_name, name)) {
			*attr = cb;
			*kind = CNG_FILE_BIN_ATTR;
			return slot;
		}
	}
	return 0;
}

static const char *cng_attr_name(const void *attr, unsigned int kind)
{
	const struct configfs_bin_attribute *cb = attr;
	const struct configfs_attribute *ca = attr;

	return kind == CNG_FILE_BIN_ATTR ? cb->cb_attr.ca_name : ca->ca_name;
}

/* Item hierarchy links, as stock makes them. Under su_mutex. */

static void cng_unlink_obj(struct config_item *item)
{
	struct config_group *group = item->ci_group;

	if (group) {
		list_del_init(&item->ci_entry);
		item->ci_group = NULL;
		item->ci_parent = NULL;
		/* The references link taken for ci_entry and ci_parent. */
		config_item_put(item);
		config_group_put(group);
	}
}

static void cng_link_obj(struct config_item *parent_item,
			 struct config_item *item)
{
	item->ci_parent = parent_item;
	item->ci_group = config_group_get(to_config_group(parent_item));
	list_add_tail(&item->ci_entry, &item->ci_group->cg_children);
	config_item_get(item);
}

/**
 * cng_unlink_group() - undo cng_link_group()
 * @group: the group; its default groups are unlinked too
 *
 * Context: the subsystem's su_mutex (cng_subsys_mutex for a subsystem).
 */
void cng_unlink_group(struct config_group *group)
{
	struct config_group *child;

	list_for_each_entry(child, &group->default_groups, group_entry)
		cng_unlink_group(child);
	group->cg_subsys = NULL;
	cng_unlink_obj(&group->cg_item);
}

/**
 * cng_link_group() - link a group and its default groups under a parent
 * @parent_group: the parent; the root group for a subsystem
 * @group: the group
 *
 * Sets cg_subsys throughout, as stock does: a subsystem is its own.
 *
 * Context: the subsystem's su_mutex (cng_subsys_mutex for a subsystem).
 */
void cng_link_group(struct config_group *parent_group,
		    struct config_group *group)
{
	struct config_group *child;

	cng_link_obj(&parent_group->cg_item, &group->cg_item);
	if (parent_group->cg_subsys)
		group->cg_subsys = parent_group->cg_subsys;
	else
		group->cg_subsys = to_configfs_subsystem(group);
	list_for_each_entry(child, &group->default_groups, group_entry)
		cng_link_group(group, child);
}

/* Attach: build nodes NEW, then activate them all at once. */

static void cng_detach_new_locked(struct cng_node *node)
{
	struct cng_node *child, *next;

	list_for_each_entry_safe(child, next, &node->children, sib)
		if (!cng_node_is_cursor(child))
			cng_detach_new_locked(child);
	cng_node_unlink_locked(node);
	node->item = NULL;
	cng_node_put(node);
}

static int cng_attach_locked(struct cng_node *parent, struct config_item *item,
			     const char *name, unsigned int flags,
			     struct cng_node **out)
{
	struct config_group *child;
	struct cng_node *node, *sub;
	unsigned int kind;
	const void *attr;
	int ret;

	lockdep_assert_held(&cng_tree_mutex);
	/* A name may not shadow an attribute of the parent, as in stock. */
	if (parent->item &&
	    cng_attr_find(parent->item->ci_type, name, 0, &attr, &kind))
		return -EEXIST;
	node = cng_node_alloc(name, item, CNG_NODE_DIR, flags);
	if (IS_ERR(node))
		return PTR_ERR(node);
	ret = cng_node_link_locked(parent, node);
	if (ret) {
		node->item = NULL;
		cng_node_put(node);
		return ret;
	}
	if (flags & CNG_NODE_GROUP) {
		list_for_each_entry(child, &to_config_group(item)->default_groups,
				    group_entry) {
			struct config_item *ci = &child->cg_item;

			if (!ci->ci_name)
				ci->ci_name = ci->ci_namebuf;
			ret = cng_attach_locked(node, ci, ci->ci_name,
						CNG_NODE_DEFAULT |
						CNG_NODE_GROUP, &sub);
			if (ret) {
				cng_detach_new_locked(node);
				return ret;
			}
		}
	}
	*out = node;
	return 0;
}

static void cng_activate_locked(struct cng_node *node)
{
	struct cng_node *child;

	cng_node_activate_locked(node);
	list_for_each_entry(child, &node->children, sib)
		if (!cng_node_is_cursor(child) &&
		    child->state == CNG_STATE_NEW)
			cng_activate_locked(child);
}

struct cng_node *cng_attach(struct cng_node *parent,
			    struct config_item *item, const char *name,
			    unsigned int flags)
{
	struct cng_node *node;
	int ret;

	mutex_lock(&cng_tree_mutex);
	ret = cng_attach_locked(parent, item, name, flags, &node);
	if (!ret) {
		/* All at once: nobody sees a part of the subtree. */
		cng_activate_locked(node);
		/* Before a remover of the parent can take the tree's. */
		cng_node_get(node);
	}
	mutex_unlock(&cng_tree_mutex);
	return ret ? ERR_PTR(ret) : node;
}

/* Removal. */

struct cng_rm {
	struct list_head	dirs;	/* post-order: children first */
	struct list_head	links;
};

/* rmdir's refusals, in stock's order. */
static int cng_rm_check_locked(struct cng_node *node)
{
	struct cng_node *child;
	int ret;

	if (node->state != CNG_STATE_LIVE)
		return node->state == CNG_STATE_NEW ? -EBUSY : -ENOENT;
	if (cng_node_depend(node) || cng_node_links(node))
		return -EBUSY;
	if (node->nr_user)
		return -ENOTEMPTY;
	list_for_each_entry(child, &node->children, sib) {
		if (cng_node_is_cursor(child))
			continue;
		ret = cng_rm_check_locked(child);
		if (ret)
			return ret;
	}
	return 0;
}

/* A node of the subtree someone else is building or removing. */
static struct cng_node *cng_rm_busy_locked(struct cng_node *node)
{
	struct cng_node_ext *link;
	struct cng_node *busy, *child;

	if (node->ext)
		list_for_each_entry(link, &node->ext->incoming, in_link)
			if (link->node->state != CNG_STATE_LIVE)
				return link->node;
	list_for_each_entry(child, &node->children, sib) {
		if (cng_node_is_cursor(child))
			continue;
		if (child->state != CNG_STATE_LIVE)
			return child;
		if (child->type == CNG_NODE_DIR) {
			busy = cng_rm_busy_locked(child);
			if (busy)
				return busy;
		}
	}
	return NULL;
}

static void cng_rm_collect_locked(struct cng_node *node, struct cng_rm *rm)
{
	struct cng_node_ext *link;
	struct cng_node *child;

	cng_node_deactivate_locked(node);
	if (node->ext) {
		list_for_each_entry(link, &node->ext->incoming, in_link) {
			if (link->node->state != CNG_STATE_LIVE)
				continue;
			cng_node_deactivate_locked(link->node);
			list_add_tail(&link->node->rm_entry, &rm->links);
		}
	}
	list_for_each_entry(child, &node->children, sib) {
		if (child->type == CNG_NODE_DIR) {
			cng_rm_collect_locked(child, rm);
		} else if (child->type == CNG_NODE_LINK &&
			   child->state == CNG_STATE_LIVE) {
			cng_node_deactivate_locked(child);
			list_add_tail(&child->rm_entry, &rm->links);
		}
	}
	list_add_tail(&node->rm_entry, &rm->dirs);
}

static void cng_client_disconnect_notify(struct config_item *parent_item,
					 struct config_item *item)
{
	const struct config_item_type *type = parent_item->ci_type;

	if (type && type->ct_group_ops && type->ct_group_ops->disconnect_notify)
		type->ct_group_ops->disconnect_notify(to_config_group(parent_item),
						      item);
}

/* Drops the reference make_item/make_group returned, as stock. */
static void cng_client_drop_item(struct config_item *parent_item,
				 struct config_item *item)
{
	const struct config_item_type *type = parent_item->ci_type;

	if (type && type->ct_group_ops && type->ct_group_ops->drop_item)
		type->ct_group_ops->drop_item(to_config_group(parent_item),
					      item);
	else
		config_item_put(item);
}

/*
 * The modules mkdir pins, found again from the items at removal as stock
 * does, rather than kept in every node. Neither type changes meanwhile.
 */
static struct module *cng_item_owner(const struct config_item *item)
{
	return item->ci_type->ct_owner;
}

static struct module *cng_subsys_owner(struct config_item *parent_item)
{
	struct configfs_subsystem *subsys =
		to_config_group(parent_item)->cg_subsys;

	return subsys->su_group.cg_item.ci_type->ct_owner;
}

/*
 * Undo mkdir for an item that user space made: the order and the locking
 * are stock's. The working reference makes the client's release run after
 * su_mutex is dropped, as in stock. The module pins are those mkdir took,
 * or NULL before it took them.
 */
static void cng_drop_user_item(struct config_item *parent_item,
			       struct config_item *item, bool group,
			       struct module *item_owner,
			       struct module *subsys_owner)
{
	struct configfs_subsystem *subsys =
		to_config_group(parent_item)->cg_subsys;

	config_item_get(item);
	mutex_lock(&subsys->su_mutex);
	cng_client_disconnect_notify(parent_item, item);
	if (group)
		cng_unlink_group(to_config_group(item));
	else
		cng_unlink_obj(item);
	cng_client_drop_item(parent_item, item);
	mutex_unlock(&subsys->su_mutex);
	config_item_put(item);
	module_put(item_owner);
	module_put(subsys_owner);
}

int cng_remove(struct cng_node *top, bool force)
{
	struct cng_rm rm = {
		.dirs = LIST_HEAD_INIT(rm.dirs),
		.links = LIST_HEAD_INIT(rm.links),
	};
	struct cng_node *node, *next, *busy;
	enum cng_node_state state;
	int ret;

again:
	mutex_lock(&cng_tree_mutex);
	if (!force) {
		ret = cng_rm_check_locked(top);
		if (ret) {
			mutex_unlock(&cng_tree_mutex);
			return ret;
		}
	} else {
		busy = top->state == CNG_STATE_LIVE ? cng_rm_busy_locked(top) :
						      top;
		if (busy == top && top->state == CNG_STATE_DEAD) {
			mutex_unlock(&cng_tree_mutex);
			return 0;
		}
		if (busy) {
			/* Wait for its owner: we hold nothing yet. */
			cng_node_get(busy);
			state = busy->state;
			mutex_unlock(&cng_tree_mutex);
			cng_node_wait_state(busy, state);
			cng_node_put(busy);
			goto again;
		}
	}
	cng_rm_collect_locked(top, &rm);
	mutex_unlock(&cng_tree_mutex);

	/* No lock held: a show or store in flight may take su_mutex. */
	list_for_each_entry(node, &rm.dirs, rm_entry)
		cng_node_drain(node);

	/* Links first, while every item they name is still there. */
	list_for_each_entry_safe(node, next, &rm.links, rm_entry) {
		list_del_init(&node->rm_entry);
		cng_link_drop(node);
	}

	list_for_each_entry_safe(node, next, &rm.dirs, rm_entry) {
		struct config_item *item = node->item;

		list_del_init(&node->rm_entry);
		mutex_lock(&cng_tree_mutex);
		cng_node_unlink_locked(node);
		mutex_unlock(&cng_tree_mutex);
		if (node->flags & CNG_NODE_USER)
			cng_drop_user_item(node->parent->item, item,
					   node->flags & CNG_NODE_GROUP,
					   cng_item_owner(item),
					   cng_subsys_owner(node->parent->item));
		WRITE_ONCE(node->item, NULL);
		cng_node_put(node);
	}
	return 0;
}

/* Dentry operations: the dcache is a cache of the tree. */

/*
 * A dentry stays valid while its node is not DEAD. Its d_fsdata holds,
 * as an integer, the cng_dead_gen at which that was last seen (0, as the
 * dcache sets it: never); while no node has died since, the walk need
 * not reach the node (a page of its own, for each component of a path).
 */
static int cng_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	unsigned long gen = cng_dead_gen_read();
	struct inode *inode;
	struct cng_node *node;

	/*
	 * Under RCU the inode and the node are not freed before a grace
	 * period (free_inode and call_rcu), so both may be read.
	 */
	inode = d_inode_rcu(dentry);
	if (!inode)
		return 0;
	if ((unsigned long)READ_ONCE(dentry->d_fsdata) == gen)
		return 1;
	node = READ_ONCE(CNG_I(inode)->node);
	if (!node)
		return flags & LOOKUP_RCU ? -ECHILD : 0;
	if (READ_ONCE(node->state) == CNG_STATE_DEAD)
		return 0;
	/* Racing writers store generations that were all current once. */
	WRITE_ONCE(dentry->d_fsdata, (void *)gen);
	return 1;
}

const struct dentry_operations cng_dentry_ops = {
	.d_revalidate	= cng_d_revalidate,
};

/* Directory inode operations. */

static struct dentry *cng_dir_lookup(struct inode *dir, struct dentry *dentry,
				     unsigned int flags)
{
	struct cng_node *parent = CNG_I(dir)->node;
	const char *name = dentry->d_name.name;
	struct inode *inode = NULL;
	struct cng_node *node = NULL;
	unsigned int kind = 0, slot = 0;
	const void *attr = NULL;
	u32 hash;

	if (dentry->d_name.len > NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	/* Hides a directory still being built, as stock does. */
	if (!cng_node_get_active(parent))
		return ERR_PTR(-ENOENT);

	hash = cng_name_hash(name, dentry->d_name.len);
	if (!cng_node_absent(parent, hash)) {
		mutex_lock(&cng_tree_mutex);
		node = cng_node_find_locked(parent, name, hash);
		if (node && cng_node_visible(node))
			cng_node_get(node);
		else
			node = NULL;
		mutex_unlock(&cng_tree_mutex);
	}

	if (node) {
		inode = cng_inode_get(dir->i_sb, node,
				      node->type == CNG_NODE_LINK ?
				      CNG_FILE_LINK : CNG_FILE_DIR, 0, NULL);
		cng_node_put(node);
	} else if (parent->type != CNG_NODE_ROOT) {
		slot = cng_attr_find(parent->item->ci_type, name, 0, &attr,
				     &kind);
		if (slot)
			inode = cng_inode_get(dir->i_sb, parent, kind, slot,
					      attr);
	}
	cng_node_put_active(parent);
	if (IS_ERR(inode))
		return ERR_CAST(inode);
	return d_splice_alias(inode, dentry);
}

static int cng_dir_mkdir(struct user_namespace *mnt_userns, struct inode *dir,
			 struct dentry *dentry, umode_t mode)
{
	struct cng_node *parent = CNG_I(dir)->node;
	struct module *subsys_owner, *item_owner;
	const struct config_item_type *type;
	struct configfs_subsystem *subsys;
	struct config_group *group = NULL;
	struct config_item *parent_item;
	struct config_item *item = NULL;
	struct cng_node *node;
	struct inode *inode;
	const char *name;
	int ret;

	if (!cng_node_get_active(parent))
		return -ENOENT;

	ret = -EPERM;
	if (!(parent->flags & CNG_NODE_GROUP))
		goto out_put_active;
	parent_item = parent->item;
	type = parent_item->ci_type;
	subsys = to_config_group(parent_item)->cg_subsys;
	if (!type || !type->ct_group_ops ||
	    (!type->ct_group_ops->make_group && !type->ct_group_ops->make_item))
		goto out_put_active;

	/* Pin the subsystem's module as well as the new item's. */
	ret = -EINVAL;
	if (!subsys || !subsys->su_group.cg_item.ci_type)
		goto out_put_active;
	subsys_owner = cng_subsys_owner(parent_item);
	if (!try_module_get(subsys_owner))
		goto out_put_active;

	/*
	 * The dentry's name is NUL-terminated and cannot change while we hold
	 * the parent's i_rwsem: the client may read it in place. (Stock hands
	 * it a copy, freed on return, so no client can keep the pointer.)
	 */
	name = dentry->d_name.name;
	ret = 0;
	mutex_lock(&subsys->su_mutex);
	if (type->ct_group_ops->make_group) {
		group = type->ct_group_ops->make_group(to_config_group(parent_item),
						       name);
		if (!group)
			group = ERR_PTR(-ENOMEM);
		if (IS_ERR(group)) {
			ret = PTR_ERR(group);
		} else {
			cng_link_group(to_config_group(parent_item), group);
			item = &group->cg_item;
		}
	} else {
		item = type->ct_group_ops->make_item(to_config_group(parent_item),
						     name);
		if (!item)
			item = ERR_PTR(-ENOMEM);
		if (IS_ERR(item))
			ret = PTR_ERR(item);
		else
			cng_link_obj(parent_item, item);
	}
	mutex_unlock(&subsys->su_mutex);
	if (ret)
		goto out_put_subsys;

	ret = -EINVAL;
	type = item->ci_type;
	if (!type)
		goto out_unlink;
	item_owner = cng_item_owner(item);
	if (!try_module_get(item_owner))
		goto out_unlink;

	node = cng_attach(parent, item, name,
			  CNG_NODE_USER | (group ? CNG_NODE_GROUP : 0));
	if (IS_ERR(node)) {
		ret = PTR_ERR(node);
		goto out_put_item_owner;
	}
	inode = cng_inode_new(dir->i_sb, node);
	if (IS_ERR(inode)) {
		/* Visible already: undo it as rmdir would, drop_item included. */
		cng_remove(node, true);
		ret = PTR_ERR(inode);
	} else {
		d_instantiate(dentry, inode);
		ret = 0;
	}
	cng_node_put(node);
	cng_node_put_active(parent);
	return ret;

out_put_item_owner:
	cng_drop_user_item(parent_item, item, group, item_owner, subsys_owner);
	cng_node_put_active(parent);
	return ret;
out_unlink:
	cng_drop_user_item(parent_item, item, group, NULL, NULL);
out_put_subsys:
	module_put(subsys_owner);
out_put_active:
	cng_node_put_active(parent);
	return ret;
}

static int cng_dir_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct cng_node *node = CNG_I(d_inode(dentry))->node;
	struct cng_node *parent = node->parent;
	int ret;

	if (node->flags & CNG_NODE_DEFAULT)
		return -EPERM;
	if (!cng_node_get_active(parent))
		return -ENOENT;
	ret = -EINVAL;
	if (parent->item->ci_type)
		ret = cng_remove(node, false);
	cng_node_put_active(parent);
	if (!ret)
		clear_nlink(d_inode(dentry));
	return ret;
}

static int cng_dir_getattr(struct user_namespace *mnt_userns,
			   const struct path *path, struct kstat *stat,
			   u32 request_mask, unsigned int query_flags)
{
	struct inode *inode = d_inode(path->dentry);

	generic_fillattr(mnt_userns, inode, stat);
	stat->nlink = 2 + READ_ONCE(CNG_I(inode)->node->nr_subdirs);
	return 0;
}

const struct inode_operations cng_dir_inode_ops = {
	.lookup		= cng_dir_lookup,
	.mkdir		= cng_dir_mkdir,
	.rmdir		= cng_dir_rmdir,
	.symlink	= cng_symlink,
	.unlink		= cng_unlink,
	.setattr	= cng_inode_setattr,
	.getattr	= cng_dir_getattr,
	.update_time	= cng_inode_update_time,
};

/* The root takes no mkdir, rmdir, symlink or unlink: EPERM, as stock. */
const struct inode_operations cng_root_inode_ops = {
	.lookup		= cng_dir_lookup,
	.setattr	= cng_inode_setattr,
	.getattr	= cng_dir_getattr,
	.update_time	= cng_inode_update_time,
};

/* Directory file operations. */

/* A directory being removed or gone cannot be opened: stock's ENOENT. */
static bool cng_dir_gone(const struct cng_node *node)
{
	u8 state = READ_ONCE(node->state);

	return state == CNG_STATE_DROPPING || state == CNG_STATE_DEAD;
}

static int cng_dir_open(struct inode *inode, struct file *file)
{
	struct cng_dir_cursor *cur;

	if (cng_dir_gone(CNG_I(inode)->node))
		return -ENOENT;
	cur = kzalloc(sizeof(*cur), GFP_KERNEL);
	if (!cur)
		return -ENOMEM;
	/* Never linked, looked up, counted or freed as a node. */
	cur->mark.type = CNG_NODE_CURSOR;
	INIT_LIST_HEAD(&cur->mark.sib);
	file->private_data = cur;
	return 0;
}

static int cng_dir_release(struct inode *inode, struct file *file)
{
	struct cng_dir_cursor *cur = file->private_data;

	if (cur->valid) {
		mutex_lock(&cng_tree_mutex);
		list_del(&cur->mark.sib);
		mutex_unlock(&cng_tree_mutex);
	}
	kfree(cur);
	return 0;
}

/* Emit the attributes from ctx->pos on; return how many the item has. */
static int cng_dir_iterate_attrs(struct file *file, struct dir_context *ctx,
				 struct cng_node *dir, unsigned int *nr)
{
	struct cng_dir_cursor *cur = file->private_data;
	unsigned int slot, kind;
	const void *attr;
	unsigned long ino;

	for (slot = 1;; slot++) {
		if (!cng_node_get_active(dir))
			return -ENOENT;
		if (!cng_attr_find(dir->item->ci_type, NULL, slot, &attr,
				   &kind)) {
			cng_node_put_active(dir);
			break;
		}
		if (ctx->pos != slot + 1) {
			cng_node_put_active(dir);
			continue;
		}
		/* Copied: the module owning the name may go once we let go. */
		strscpy(cur->next, cng_attr_name(attr, kind), sizeof(cur->next));
		cng_node_put_active(dir);
		ino = cng_node_ino(dir, slot);
		if (!dir_emit(ctx, cur->next, strlen(cur->next), ino, DT_REG))
			return 1;
		ctx->pos++;
	}
	*nr = slot - 1;
	return 0;
}

/*
 * The first child to return: after the mark when the readdir goes on
 * from where it stopped, else the one @skip visible children in.
 */
static struct cng_node *cng_dir_next_locked(struct cng_node *dir,
					    struct cng_dir_cursor *cur,
					    bool resume, loff_t skip)
{
	struct cng_node *node = NULL;

	if (resume)
		node = &cur->mark;
	node = list_prepare_entry(node, &dir->children, sib);
	list_for_each_entry_continue(node, &dir->children, sib) {
		if (cng_node_is_cursor(node) || !cng_node_visible(node))
			continue;
		if (!skip)
			return node;
		skip--;
	}
	return NULL;
}

static int cng_dir_iterate(struct file *file, struct dir_context *ctx)
{
	struct cng_node *dir = CNG_I(file_inode(file))->node;
	struct cng_dir_cursor *cur = file->private_data;
	unsigned int nr = 0, dtype;
	struct cng_node *node;
	unsigned long ino;
	bool resume;
	int ret;

	/* Also what the VFS answers for a directory that rmdir removed. */
	if (cng_dir_gone(dir))
		return -ENOENT;
	if (!dir_emit_dots(file, ctx))
		return 0;
	if (dir->type != CNG_NODE_ROOT) {
		/* Stop at a full buffer, or when the item is gone. */
		ret = cng_dir_iterate_attrs(file, ctx, dir, &nr);
		if (ret)
			return 0;
	}
	for (;;) {
		mutex_lock(&cng_tree_mutex);
		/* A seek anywhere but where we stopped counts from the start. */
		resume = cur->valid && cur->pos == ctx->pos;
		node = cng_dir_next_locked(dir, cur, resume,
					   resume ? 0 : ctx->pos - 2 - nr);
		if (!node) {
			mutex_unlock(&cng_tree_mutex);
			return 0;
		}
		strscpy(cur->next, node->name, sizeof(cur->next));
		ino = cng_node_ino(node, 0);
		dtype = node->type == CNG_NODE_LINK ? DT_LNK : DT_DIR;
		/* Just before it: where to go on if it cannot be returned. */
		if (cur->valid)
			list_move_tail(&cur->mark.sib, &node->sib);
		else
			list_add_tail(&cur->mark.sib, &node->sib);
		cur->valid = true;
		cur->pos = ctx->pos;
		cng_node_get(node);
		mutex_unlock(&cng_tree_mutex);

		if (!dir_emit(ctx, cur->next, strlen(cur->next), ino, dtype)) {
			cng_node_put(node);
			return 0;
		}
		ctx->pos++;

		/* Past it; if it went meanwhile, the mark is where it was. */
		mutex_lock(&cng_tree_mutex);
		if (node->state != CNG_STATE_DEAD)
			list_move(&cur->mark.sib, &node->sib);
		cur->pos = ctx->pos;
		mutex_unlock(&cng_tree_mutex);
		cng_node_put(node);
	}
}

const struct file_operations cng_dir_file_ops = {
	.open		= cng_dir_open,
	.release	= cng_dir_release,
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= cng_dir_iterate,
};
