// SPDX-License-Identifier: GPL-2.0
/*
 * Directories: lookup, mkdir, rmdir and readdir, the attach path shared
 * with the kernel-side calls, and the item hierarchy.
 *
 * An item joins the item hierarchy (ci_parent, ci_group, cg_children)
 * under the subsystem's su_mutex exactly as stock's link_obj() makes it
 * join; the backing tree under cng_tree_mutex mirrors it for what user
 * space sees.
 */
#include <linux/configfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/**
 * struct cng_dir_cursor - where readdir of one open directory stands
 * @hnode: entry in cng_cursor_table, by @last, unless @last is NULL;
 *	   tree mutex
 * @last: the child returned last, or NULL before the first child; tree
 *	  mutex. While it stays among its directory's children the next
 *	  getdents goes on after it; when it leaves them, the cursor moves
 *	  back to its predecessor (cng_dir_cursors_leave_locked()).
 * @end_hnode: entry in cng_cursor_end_table, by @end, unless @end is
 *	       NULL; tree mutex
 * @end: the last child the listing may return: the directory's last when
 *	 the listing began (from its start, or from a seek), or NULL for
 *	 none; tree mutex. Children made later join after it and are not
 *	 returned, so a name removed and made again during a listing is
 *	 returned once. When it leaves the children, it moves back to its
 *	 predecessor, as @last does.
 * @pos: the f_pos just after @last was returned
 * @valid: @last, @end and @pos say where a readdir stands
 * @hashed: the cursor may be in either table, so its release takes the
 *	    tree mutex; set by the owner before the first hashing (every
 *	    cursor is hashed first by a listing that begins), read by it
 * @next: scratch copy of the name being returned
 *
 * Owned by the open file; f_pos_lock serialises its users. A readdir
 * resumes in O(1), and one interrupted by creations and removals neither
 * repeats nor skips a child that stays. Cursors are not among the
 * children, so no number of open directories slows a walk of them.
 */
struct cng_dir_cursor {
	struct hlist_node	hnode;
	struct cng_node		*last;
	struct hlist_node	end_hnode;
	struct cng_node		*end;
	loff_t			pos;
	bool			valid;
	bool			hashed;
	char			next[NAME_MAX + 1];
};

/*
 * Every cursor that stands after a child, by that child, and every one
 * whose listing ends at a child, by that child: a node leaving the tree
 * finds the cursors that name it without a walk. Under cng_tree_mutex.
 */
#define CNG_CURSOR_HASH_BITS	6
static struct hlist_head cng_cursor_table[1 << CNG_CURSOR_HASH_BITS];
static struct hlist_head cng_cursor_end_table[1 << CNG_CURSOR_HASH_BITS];

static struct hlist_head *cng_cursor_bucket(struct hlist_head *table,
					    const struct cng_node *node)
{
	return &table[hash_ptr(node, CNG_CURSOR_HASH_BITS)];
}

/*
 * Files a cursor's @hnode in @table under @node, or in none for NULL (a
 * cursor before the first child, or a listing with no child to return,
 * needs no moving).
 */
static void cng_dir_cursor_rehash_locked(struct hlist_node *hnode,
					 struct hlist_head *table,
					 const struct cng_node *node)
{
	lockdep_assert_held(&cng_tree_mutex);
	if (!hlist_unhashed(hnode))
		hlist_del_init(hnode);
	if (node)
		hlist_add_head(hnode, cng_cursor_bucket(table, node));
}

static void cng_dir_cursor_set_locked(struct cng_dir_cursor *cur,
				      struct cng_node *last)
{
	cng_dir_cursor_rehash_locked(&cur->hnode, cng_cursor_table, last);
	cur->last = last;
	cur->valid = true;
}

static void cng_dir_cursor_set_end_locked(struct cng_dir_cursor *cur,
					  struct cng_node *end)
{
	cng_dir_cursor_rehash_locked(&cur->end_hnode, cng_cursor_end_table,
				     end);
	cur->end = end;
}

/**
 * cng_dir_cursors_leave_locked() - cursors at a node move to its predecessor
 * @node: a node about to leave its parent's children
 *
 * Context: cng_tree_mutex held.
 */
void cng_dir_cursors_leave_locked(struct cng_node *node)
{
	struct cng_dir_cursor *cur;
	struct hlist_node *tmp;
	struct cng_node *prev = NULL;

	lockdep_assert_held(&cng_tree_mutex);
	if (!list_is_first(&node->sib, &node->parent->children))
		prev = list_prev_entry(node, sib);
	hlist_for_each_entry_safe(cur, tmp,
				  cng_cursor_bucket(cng_cursor_table, node), hnode)
		if (cur->last == node)
			cng_dir_cursor_set_locked(cur, prev);
	hlist_for_each_entry_safe(cur, tmp,
				  cng_cursor_bucket(cng_cursor_end_table, node),
				  end_hnode)
		if (cur->end == node)
			cng_dir_cursor_set_end_locked(cur, prev);
}

/**
 * cng_attr_find() - an attribute of a directory's item, by name or slot
 * @dir: the directory
 * @name: the attribute's name, or NULL to find it by @want
 * @want: the slot (1-based: text attributes, then binary), or 0
 * @attr: set to the attribute's descriptor
 * @kind: set to CNG_FILE_ATTR or CNG_FILE_BIN_ATTR
 *
 * By slot, the attribute whether the item hides it or not; by name, only
 * one the item does not hide.
 *
 * Context: the caller keeps @dir's item alive (an active reference).
 * Return: the slot, or 0 when there is no such attribute.
 */
unsigned int cng_attr_find(const struct cng_node *dir, const char *name,
			   unsigned int want, const void **attr,
			   unsigned int *kind)
{
	const struct config_item_type *type = dir->item->ci_type;
	unsigned int slot = 1;
	int i;

	if (!type)
		return 0;
	for (i = 0; type->ct_attrs && type->ct_attrs[i]; i++, slot++) {
		const struct configfs_attribute *ca = type->ct_attrs[i];

		if (slot > CNG_MAX_SLOT)
			return 0;
		if (want ? slot == want : !strcmp(ca->ca_name, name) &&
		    !cng_attr_hidden(dir, slot)) {
			*attr = ca;
			*kind = CNG_FILE_ATTR;
			return slot;
		}
	}
	for (i = 0; type->ct_bin_attrs && type->ct_bin_attrs[i]; i++, slot++) {
		const struct configfs_bin_attribute *cb = type->ct_bin_attrs[i];

		if (slot > CNG_MAX_SLOT)
			return 0;
		if (want ? slot == want : !strcmp(cb->cb_attr.ca_name, name) &&
		    !cng_attr_hidden(dir, slot)) {
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

/*
 * The item hierarchy, as stock's link_obj(), link_group(), unlink_obj()
 * and unlink_group() keep it. Under su_mutex.
 */

void cng_hier_del_item(struct config_item *item)
{
	struct config_group *group = item->ci_group;

	if (group) {
		list_del_init(&item->ci_entry);
		item->ci_group = NULL;
		item->ci_parent = NULL;
		/* The references added for ci_entry and ci_parent. */
		config_item_put(item);
		config_group_put(group);
	}
}

static void cng_hier_add_item(struct config_item *parent_item,
			      struct config_item *item)
{
	item->ci_parent = parent_item;
	item->ci_group = config_group_get(to_config_group(parent_item));
	list_add_tail(&item->ci_entry, &item->ci_group->cg_children);
	config_item_get(item);
}

/**
 * cng_hier_del_group() - undo cng_hier_add_group()
 * @group: the group; its default groups leave the hierarchy too
 *
 * Context: the subsystem's su_mutex (cng_subsys_mutex for a subsystem).
 */
void cng_hier_del_group(struct config_group *group)
{
	struct config_group *child;

	list_for_each_entry(child, &group->default_groups, group_entry)
		cng_hier_del_group(child);
	group->cg_subsys = NULL;
	cng_hier_del_item(&group->cg_item);
}

/**
 * cng_hier_add_group() - add a group and its default groups to a parent
 * @parent_group: the parent; the root group for a subsystem
 * @group: the group
 *
 * Sets cg_subsys throughout, as stock does: a subsystem is its own.
 *
 * Context: the subsystem's su_mutex (cng_subsys_mutex for a subsystem).
 */
void cng_hier_add_group(struct config_group *parent_group,
			struct config_group *group)
{
	struct config_group *child;

	cng_hier_add_item(&parent_group->cg_item, &group->cg_item);
	if (parent_group->cg_subsys)
		group->cg_subsys = parent_group->cg_subsys;
	else
		group->cg_subsys = to_configfs_subsystem(group);
	list_for_each_entry(child, &group->default_groups, group_entry)
		cng_hier_add_group(group, child);
}

/* Attach: build nodes NEW, then activate them all at once. */

/* Undo cng_attach_locked() before anyone could see the subtree. */
static void cng_detach_new_locked(struct cng_node *node)
{
	struct cng_node *child, *next;

	list_for_each_entry_safe(child, next, &node->children, sib)
		cng_detach_new_locked(child);
	cng_node_hide_locked(node);
	cng_node_unlink_locked(node);
	cng_node_put(node);
}

static int cng_attach_locked(struct cng_node *parent, struct config_item *item,
			     const char *name, unsigned int flags,
			     struct list_head *hidden, struct cng_node **out)
{
	struct config_group *child;
	struct cng_node *node, *sub;
	unsigned int kind;
	const void *attr;
	int ret;

	lockdep_assert_held(&cng_tree_mutex);
	/* Only while it is built or LIVE is its item sure to be there. */
	if (parent->state != CNG_STATE_LIVE && parent->state != CNG_STATE_NEW)
		return -ENOENT;
	/* A name may not shadow an attribute of the parent, as in stock. */
	if (parent->item && !(parent->flags & CNG_NODE_STAGE) &&
	    cng_attr_find(parent, name, 0, &attr, &kind))
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
	ret = cng_visible_give_locked(node, hidden);
	if (ret) {
		cng_detach_new_locked(node);
		return ret;
	}
	if (flags & CNG_NODE_GROUP) {
		ret = cng_commit_attach_stages_locked(node);
		if (ret) {
			cng_detach_new_locked(node);
			return ret;
		}
		list_for_each_entry(child, &to_config_group(item)->default_groups,
				    group_entry) {
			struct config_item *ci = &child->cg_item;

			if (!ci->ci_name)
				ci->ci_name = ci->ci_namebuf;
			ret = cng_attach_locked(node, ci, ci->ci_name,
						CNG_NODE_DEFAULT |
						CNG_NODE_GROUP, hidden, &sub);
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
		if (child->state == CNG_STATE_NEW)
			cng_activate_locked(child);
}

struct cng_node *cng_attach(struct cng_node *parent,
			    struct config_item *item, const char *name,
			    unsigned int flags)
{
	LIST_HEAD(hidden);
	struct cng_node *node;
	int ret;

	/* Client callbacks, so before the tree mutex, as stock asks them. */
	ret = cng_visible_ask(item, flags & CNG_NODE_GROUP, &hidden);
	if (ret)
		goto out_free_hidden;
	mutex_lock(&cng_tree_mutex);
	ret = cng_attach_locked(parent, item, name, flags, &hidden, &node);
	if (!ret) {
		/* All at once: nobody sees a part of the subtree. */
		cng_activate_locked(node);
		/* Before a remover of the parent can take the tree's. */
		cng_node_get(node);
	}
	mutex_unlock(&cng_tree_mutex);
out_free_hidden:
	cng_visible_free(&hidden);
	return ret ? ERR_PTR(ret) : node;
}

/*
 * Dentry operations: the dcache is a cache of the tree.
 *
 * A directory's or a link's dentry needs no check on each walk: the
 * kernel side takes it out of the dcache when it removes the node
 * (cng_inode_forget()), rmdir and unlink do so for what user space
 * removes, and every path that hashes one looks at the node again after
 * hashing (cng_dentry_recheck()). No negative dentry is hashed, since the
 * kernel side may add a name at any time: a name that is not there costs
 * a lookup each time, as it did when negative dentries failed their
 * revalidation. An attribute's dentry stays hashed below a directory
 * that went, where a walk from an open directory still finds it: it
 * alone is checked.
 */

/*
 * An attribute's dentry stays valid while its item's node is in the
 * namespace. Its d_fsdata holds, as an integer, the cng_gone_gen at which
 * that was last seen (0, as the dcache sets it: never); while no node has
 * gone since, the walk need not reach the node.
 */
static int cng_attr_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	unsigned long gen = cng_gone_gen_read();
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
	if (cng_node_gone(node))
		return 0;
	/* Racing writers store generations that were all current once. */
	WRITE_ONCE(dentry->d_fsdata, (void *)gen);
	return 1;
}

static const struct dentry_operations cng_attr_dentry_ops = {
	.d_revalidate	= cng_attr_d_revalidate,
};

/**
 * cng_dentry_recheck() - unhash a dentry just hashed for a node that went
 * @dentry: the directory's or link's dentry, hashed by the caller
 * @node: its node, counted by the caller
 *
 * A remover turns the node UNLINKED under the tree mutex, then drops the
 * dentries it finds on the inode (cng_inode_forget()); a caller that
 * found the node visible may hash its dentry after that search. Both take
 * the inode's i_lock to hash and to search: either the search finds the
 * dentry, or this look, after the hashing, sees the node gone.
 *
 * Context: process.
 */
void cng_dentry_recheck(struct dentry *dentry, struct cng_node *node)
{
	if (cng_node_gone(node))
		d_drop(dentry);
}

/**
 * cng_dentry_add() - make the dentry mkdir or symlink was given positive
 * @dentry: the new name's dentry, negative
 * @inode: the new node's inode; the dentry takes its reference
 *
 * Lookup leaves a missing name's dentry unhashed, so it is hashed here;
 * one hashed by someone else (a caller of ours that did not look up
 * through us) is only made positive.
 *
 * Context: process; the parent directory locked by the VFS.
 */
void cng_dentry_add(struct dentry *dentry, struct inode *inode)
{
	if (d_unhashed(dentry))
		d_add(dentry, inode);
	else
		d_instantiate(dentry, inode);
}

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
	struct dentry *res;
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
	} else if (cng_node_is_item_dir(parent)) {
		slot = cng_attr_find(parent, name, 0, &attr, &kind);
		if (slot)
			inode = cng_inode_get(dir->i_sb, parent, kind, slot,
					      attr);
	}
	cng_node_put_active(parent);
	/* Not there: the dentry is returned negative and not hashed. */
	if (IS_ERR_OR_NULL(inode)) {
		cng_node_put(node);
		return ERR_CAST(inode);
	}
	if (!node) {
		d_set_d_op(dentry, &cng_attr_dentry_ops);
		return d_splice_alias(inode, dentry);
	}
	res = d_splice_alias(inode, dentry);
	if (!IS_ERR(res))
		cng_dentry_recheck(res ?: dentry, node);
	cng_node_put(node);
	return res;
}

static int cng_dir_make(struct inode *dir, struct dentry *dentry)
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

	/* In a committable group, only pending/ takes mkdir. */
	ret = -EPERM;
	if (!(parent->flags & (CNG_NODE_GROUP | CNG_NODE_STAGE)) ||
	    (parent->flags & (CNG_NODE_STAGE_LIVE | CNG_NODE_COMMITTABLE)))
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
	/* Before the client is asked: once it is visible, nothing can fail. */
	ret = -ENOMEM;
	inode = cng_inode_new(dir->i_sb);
	if (!inode)
		goto out_put_subsys;

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
			cng_hier_add_group(to_config_group(parent_item), group);
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
			cng_hier_add_item(parent_item, item);
	}
	mutex_unlock(&subsys->su_mutex);
	if (ret)
		goto out_put_inode;

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
	cng_inode_bind_new(inode, node);
	cng_inode_nlink_update(inode, dir);
	cng_dentry_add(dentry, inode);
	cng_dentry_recheck(dentry, node);
	cng_node_put(node);
	cng_node_put_active(parent);
	return 0;

out_put_item_owner:
	cng_drop_user_item(parent_item, item, group, item_owner, subsys_owner);
	iput(inode);
	cng_node_put_active(parent);
	return ret;
out_unlink:
	cng_drop_user_item(parent_item, item, group, NULL, NULL);
out_put_inode:
	iput(inode);
out_put_subsys:
	module_put(subsys_owner);
out_put_active:
	cng_node_put_active(parent);
	return ret;
}

/* mkdir, watched: a failure is recorded on the group (report.c). */
static int cng_dir_mkdir(struct mnt_idmap *idmap, struct inode *dir,
			 struct dentry *dentry, umode_t mode)
{
	struct cng_node *parent = CNG_I(dir)->node;
	struct cng_call call = {
		.node = parent,
		/* Only compared: the item is not used unless it is active. */
		.item = READ_ONCE(parent->item),
		.op = "mkdir",
		.file = dentry->d_name.name,
	};
	int ret;

	cng_call_begin(&call);
	ret = cng_dir_make(dir, dentry);
	cng_call_end(&call, ret);
	return ret;
}

static int cng_dir_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct cng_node *node = CNG_I(d_inode(dentry))->node;
	struct cng_node *parent = node->parent;
	int ret;

	if (node->flags & CNG_NODE_DEFAULT)
		return -EPERM;
	/* A live item is un-committed first (commit.c). */
	if (parent->flags & CNG_NODE_STAGE_LIVE)
		return -EBUSY;
	if (!cng_node_get_active(parent))
		return -ENOENT;
	ret = -EINVAL;
	if (parent->item->ci_type)
		ret = cng_remove_dir(node);
	cng_node_put_active(parent);
	if (ret)
		return ret;
	cng_inode_nlink_update(d_inode(dentry), dir);
	/* Not kept negative: the kernel side may register the name again. */
	d_drop(dentry);
	return 0;
}

const struct inode_operations cng_dir_inode_ops = {
	.lookup		= cng_dir_lookup,
	.mkdir		= cng_dir_mkdir,
	.rmdir		= cng_dir_rmdir,
#ifndef CNG_INTREE_NO_COMMIT
	.rename		= cng_dir_rename,
#endif
	.symlink	= cng_symlink,
	.unlink		= cng_unlink,
	.setattr	= cng_inode_setattr,
	.update_time	= cng_inode_update_time,
};

/* The root takes no mkdir, rmdir, symlink or unlink: EPERM, as stock. */
const struct inode_operations cng_root_inode_ops = {
	.lookup		= cng_dir_lookup,
	.setattr	= cng_inode_setattr,
	.update_time	= cng_inode_update_time,
};

/* Directory file operations. */

/* A directory being removed or gone cannot be opened: stock's ENOENT. */
static bool cng_dir_gone(const struct cng_node *node)
{
	return READ_ONCE(node->state) >= CNG_STATE_DROPPING;
}

static int cng_dir_open(struct inode *inode, struct file *file)
{
	struct cng_dir_cursor *cur;

	if (cng_dir_gone(CNG_I(inode)->node))
		return -ENOENT;
	/* Charged to the opener: any user may open many directories. */
	cur = kzalloc(sizeof(*cur), GFP_KERNEL_ACCOUNT);
	if (!cur)
		return -ENOMEM;
	file->private_data = cur;
	return 0;
}

static int cng_dir_release(struct inode *inode, struct file *file)
{
	struct cng_dir_cursor *cur = file->private_data;

	/* Removals move a cursor between buckets: look under the mutex. */
	if (cur->hashed) {
		mutex_lock(&cng_tree_mutex);
		if (!hlist_unhashed(&cur->hnode))
			hlist_del(&cur->hnode);
		if (!hlist_unhashed(&cur->end_hnode))
			hlist_del(&cur->end_hnode);
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
		if (!cng_attr_find(dir, NULL, slot, &attr, &kind)) {
			cng_node_put_active(dir);
			break;
		}
		if (ctx->pos != slot + 1) {
			cng_node_put_active(dir);
			continue;
		}
		/* A hidden attribute keeps its position, with nothing in it. */
		if (cng_attr_hidden(dir, slot)) {
			cng_node_put_active(dir);
			ctx->pos++;
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
 * The first child to return: the one after the cursor's when the readdir
 * goes on from where it stopped, else the one @skip visible children in.
 * None once the cursor stands at the listing's end.
 */
static struct cng_node *cng_dir_next_locked(struct cng_node *dir,
					    struct cng_dir_cursor *cur,
					    bool resume, loff_t skip)
{
	struct cng_node *node = resume ? cur->last : NULL;

	if (resume && (!cur->end || node == cur->end))
		return NULL;
	node = list_prepare_entry(node, &dir->children, sib);
	list_for_each_entry_continue(node, &dir->children, sib) {
		if (cng_node_visible(node)) {
			if (!skip)
				return node;
			skip--;
		}
		/* The end may be one not (or no longer) visible. */
		if (node == cur->end)
			break;
	}
	return NULL;
}

/* The last of @dir's children, visible or not, or NULL. */
static struct cng_node *cng_dir_last_locked(struct cng_node *dir)
{
	return list_empty(&dir->children) ? NULL :
	       list_last_entry(&dir->children, struct cng_node, sib);
}

/* A child copied for readdir, to be returned without the tree mutex. */
struct cng_dir_entry {
	struct cng_node		*node;	/* counted */
	const char		*name;	/* in the batch's names */
	unsigned long		ino;
	unsigned int		len;
	unsigned int		dtype;
};

/*
 * Children copied per hold of the tree mutex, and room for their names:
 * up to CNG_DIR_SMALL on the stack, their names in the cursor's buffer;
 * beyond, a batch allocated for the call.
 */
#define CNG_DIR_SMALL		4
#define CNG_DIR_BATCH		32
#define CNG_DIR_BATCH_NAMES	1024

struct cng_dir_batch {
	struct cng_dir_entry	ent[CNG_DIR_BATCH];
	char			names[CNG_DIR_BATCH_NAMES];
};

/*
 * The next child readdir shows after @node, which is among @dir's, up to
 * @end, the listing's last, visible or not.
 */
static struct cng_node *cng_dir_after_locked(struct cng_node *dir,
					     struct cng_node *node,
					     const struct cng_node *end)
{
	if (node == end)
		return NULL;
	list_for_each_entry_continue(node, &dir->children, sib) {
		if (cng_node_visible(node))
			return node;
		if (node == end)
			break;
	}
	return NULL;
}

/*
 * Copy @node and the visible children after it up to @end, up to @max of
 * them or as many names as @size bytes hold (at least NAME_MAX + 1: the
 * first always fits), each with a reference. Returns how many.
 */
static unsigned int cng_dir_fill_locked(struct cng_node *dir,
					struct cng_node *node,
					const struct cng_node *end,
					struct cng_dir_entry *ent,
					unsigned int max, char *names,
					size_t size)
{
	unsigned int n = 0;
	size_t used = 0, len;

	lockdep_assert_held(&cng_tree_mutex);
	for (; node && n < max; node = cng_dir_after_locked(dir, node, end)) {
		len = strlen(node->name);
		if (used + len + 1 > size) {
			if (n)
				break;
			/* Only a client's name can be longer: cut it. */
			len = size - 1;
		}
		memcpy(names + used, node->name, len);
		names[used + len] = '\0';
		ent[n].node = cng_node_get(node);
		ent[n].name = names + used;
		ent[n].len = len;
		ent[n].ino = cng_node_ino(node, 0);
		ent[n].dtype = node->type == CNG_NODE_LINK ? DT_LNK : DT_DIR;
		used += len + 1;
		n++;
	}
	return n;
}

static int cng_dir_iterate(struct file *file, struct dir_context *ctx)
{
	struct cng_node *dir = CNG_I(file_inode(file))->node;
	struct cng_dir_cursor *cur = file->private_data;
	struct cng_dir_entry small[CNG_DIR_SMALL], *ent = small;
	struct cng_dir_batch *batch = NULL;
	unsigned int nr = 0, n, i, j, max = 1;
	char *names = cur->next;
	size_t size = sizeof(cur->next);
	bool resume, small_only = false;
	struct cng_node *node;
	int ret;

	/* Also what the VFS answers for a directory that rmdir removed. */
	if (cng_dir_gone(dir))
		return -ENOENT;
	if (!dir_emit_dots(file, ctx))
		return 0;
	if (cng_node_is_item_dir(dir)) {
		/* Stop at a full buffer, or when the item is gone. */
		ret = cng_dir_iterate_attrs(file, ctx, dir, &nr);
		if (ret)
			return 0;
	}
	/*
	 * The first child alone, then batches that double up to
	 * CNG_DIR_BATCH as long as the caller's buffer takes them all: the
	 * small ones on the stack, with their names in the cursor's buffer
	 * (a small getdents takes one or two children and allocates
	 * nothing), the larger in a batch allocated once. Without the
	 * memory for it, CNG_DIR_SMALL children per hold of the mutex.
	 */
	for (;;) {
		if (max > CNG_DIR_SMALL && !batch && !small_only) {
			batch = kmalloc(sizeof(*batch),
					GFP_KERNEL | __GFP_NOWARN);
			if (batch) {
				ent = batch->ent;
				names = batch->names;
				size = sizeof(batch->names);
			}
			/* Tried once a call. */
			small_only = !batch;
		}
		if (!batch)
			max = min_t(unsigned int, max, CNG_DIR_SMALL);
		mutex_lock(&cng_tree_mutex);
		/*
		 * A seek anywhere but where we stopped counts from the start,
		 * and lists at most the children there are now.
		 */
		resume = cur->valid && cur->pos == ctx->pos;
		if (!resume) {
			cur->hashed = true;
			cng_dir_cursor_set_end_locked(cur,
						      cng_dir_last_locked(dir));
		}
		node = cng_dir_next_locked(dir, cur, resume,
					   resume ? 0 : ctx->pos - 2 - nr);
		/* Where to go on if none can be returned: before the first. */
		if (node && !resume)
			cng_dir_cursor_set_locked(cur, node->sib.prev ==
						  &dir->children ? NULL :
						  list_prev_entry(node, sib));
		n = cng_dir_fill_locked(dir, node, cur->end, ent, max, names,
					size);
		cur->pos = ctx->pos;
		mutex_unlock(&cng_tree_mutex);
		if (!n)
			break;

		for (i = 0; i < n; i++) {
			if (!dir_emit(ctx, ent[i].name, ent[i].len, ent[i].ino,
				      ent[i].dtype))
				break;
			ctx->pos++;
		}

		/*
		 * Past the last returned that is still a child: those after
		 * it that left meanwhile are not among them any more, and
		 * children only ever join at the end. (A commit, which moves
		 * a child to another directory, waits for our shared hold of
		 * the directory's i_rwsem.)
		 */
		mutex_lock(&cng_tree_mutex);
		for (j = i; j-- > 0;) {
			if (ent[j].node->state != CNG_STATE_DEAD) {
				cng_dir_cursor_set_locked(cur, ent[j].node);
				break;
			}
		}
		cur->pos = ctx->pos;
		mutex_unlock(&cng_tree_mutex);
		for (j = 0; j < n; j++)
			cng_node_put(ent[j].node);
		if (i < n)
			break;
		max = min_t(unsigned int, 2 * max, CNG_DIR_BATCH);
	}
	kfree(batch);
	return 0;
}

const struct file_operations cng_dir_file_ops = {
	.open		= cng_dir_open,
	.release	= cng_dir_release,
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= cng_dir_iterate,
};
