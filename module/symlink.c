// SPDX-License-Identifier: GPL-2.0
/*
 * Symlinks between items: symlink(2) asks the source item's allow_link,
 * unlink(2) tells its drop_link (remove.c, as for every removal). The
 * link's text is stock's relative path, made when it is read.
 */
#include <linux/configfs.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "internal.h"

/*
 * Stock's text: one "../" per directory from @from up to the root, then
 * the names of the directories from below the root down to @target.
 * Computed when it is read, since a commit moves directories (commit.c).
 * With a NULL @buf, only measures. Returns the length, or -ENAMETOOLONG
 * when the text and its NUL pass @size.
 */
static int cng_link_text_locked(const struct cng_node *from,
				const struct cng_node *target, char *buf,
				size_t size)
{
	const struct cng_node *p;
	size_t len = 0, depth = 0, pos, n;

	lockdep_assert_held(&cng_tree_mutex);
	for (p = from; p->parent; p = p->parent)
		depth++;
	for (p = target; p->parent; p = p->parent)
		len += strlen(p->name) + 1;
	/* stock: ../ per level, the path, less the slash they share, a NUL */
	if (depth * 3 + len > size)
		return -ENAMETOOLONG;
	if (!buf)
		return 0;
	for (pos = 0; pos < depth * 3; pos += 3)
		memcpy(buf + pos, "../", 3);
	/* The path ends with the target's own name; fill it from the end. */
	pos = depth * 3 + len - 1;
	buf[len ? pos : depth * 3] = 0;
	for (p = target; p->parent; p = p->parent) {
		n = strlen(p->name);
		pos -= n;
		memcpy(buf + pos, p->name, n);
		if (pos)
			buf[--pos] = '/';
	}
	return depth * 3 + (len ? len - 1 : 0);
}

static const char *cng_link_get(struct dentry *dentry, struct inode *inode,
				struct delayed_call *done)
{
	struct cng_node *link = CNG_I(inode)->node;
	char *body;
	int ret;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	body = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!body)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&cng_tree_mutex);
	/* Visible, its directory and its target are too, with their names. */
	ret = -ENOENT;
	if (cng_node_visible(link))
		ret = cng_link_text_locked(link->parent, link->ext->target, body,
					   PATH_MAX);
	mutex_unlock(&cng_tree_mutex);
	if (ret < 0) {
		kfree(body);
		return ERR_PTR(ret);
	}
	set_delayed_call(done, kfree_link, body);
	return body;
}

/*
 * Make the link node, visible with its inode in one step: its inode is
 * made first, from the node not yet in the tree, so that nothing is left
 * to fail once it is seen.
 */
static int cng_link_create(struct cng_node *parent, struct cng_node *target,
			   struct dentry *dentry)
{
	struct cng_node_ext *target_ext;
	struct cng_node *link;
	struct inode *inode;
	int ret;

	link = cng_node_alloc(dentry->d_name.name, NULL, CNG_NODE_LINK,
			      CNG_NODE_USER);
	if (IS_ERR(link))
		return PTR_ERR(link);
	inode = cng_inode_get(dentry->d_sb, link, CNG_FILE_LINK, 0, NULL);
	if (IS_ERR(inode)) {
		cng_node_put(link);
		return PTR_ERR(inode);
	}

	mutex_lock(&cng_tree_mutex);
	ret = -ENOENT;
	if (target->state == CNG_STATE_LIVE)
		ret = cng_link_text_locked(parent, target, NULL, PATH_MAX);
	if (!ret) {
		ret = -ENOMEM;
		target_ext = cng_node_ext_locked(target, GFP_KERNEL);
		if (target_ext)
			ret = cng_node_link_locked(parent, link);
	}
	if (ret) {
		/* Never seen: DEAD, so that its inode is not kept. */
		cng_node_set_state_locked(link, CNG_STATE_DEAD);
		mutex_unlock(&cng_tree_mutex);
		iput(inode);
		cng_node_put(link);
		return ret;
	}
	link->ext->target = cng_node_get(target);
	list_add_tail(&link->ext->in_link, &target_ext->incoming);
	target_ext->links++;
	cng_node_activate_locked(link);
	mutex_unlock(&cng_tree_mutex);
	cng_dentry_add(dentry, inode);
	cng_dentry_recheck(dentry, link);
	return 0;
}

/* Whether the directory's item takes links at all; EPERM if not. */
static int cng_symlink_allowed(struct cng_node *parent)
{
	const struct config_item_type *type;
	int ret = -EPERM;

	if (!cng_node_get_active(parent))
		return -ENOENT;
	type = parent->item->ci_type;
	/* pending/ and live/ hold only the group's items. */
	if (type && type->ct_item_ops && type->ct_item_ops->allow_link &&
	    cng_node_is_item_dir(parent))
		ret = 0;
	cng_node_put_active(parent);
	return ret;
}

static int cng_symlink_make(struct inode *dir, struct dentry *dentry,
			    const char *symname)
{
	struct cng_node *parent = CNG_I(dir)->node;
	const struct config_item_type *type;
	struct config_item *parent_item;
	struct cng_node *target;
	struct path path;
	int ret;

	ret = cng_symlink_allowed(parent);
	if (ret)
		return ret;

	/*
	 * The target must be resolved now, and the path walk may need the
	 * lock the VFS holds on this directory: drop it meanwhile, as stock.
	 * No active reference is held across: an rmdir of this directory
	 * may be draining them while it holds the lock we retake.
	 */
	inode_unlock(dir);
	ret = kern_path(symname, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &path);
	inode_lock(dir);
	if (ret)
		return ret;

	ret = -EPERM;
	if (path.dentry->d_sb != dentry->d_sb)
		goto out_put_path;
	ret = -ENOENT;
	if (!cng_node_get_active(parent))
		goto out_put_path;
	target = CNG_I(d_inode(path.dentry))->node;
	/* The mount's root is no client's item: stock's ENOENT. */
	ret = -ENOENT;
	if (target == &cng_root_node)
		goto out_put_active;
	/* A stage is not an item of its own: a link to it is refused. */
	ret = -EPERM;
	if (target->flags & CNG_NODE_STAGE)
		goto out_put_active;
	ret = -ENOENT;
	if (!cng_node_get_active(target))
		goto out_put_active;

	parent_item = parent->item;
	type = parent_item->ci_type;
	/*
	 * Stock also refuses a dentry unhashed meanwhile. Ours are unhashed
	 * by any lookup of the name, since negative dentries never
	 * revalidate: the name table says whether the name is taken.
	 */
	if (d_really_is_positive(dentry))
		ret = -EEXIST;
	else
		ret = inode_permission(&nop_mnt_idmap, dir, MAY_WRITE | MAY_EXEC);
	if (!ret)
		ret = type->ct_item_ops->allow_link(parent_item, target->item);
	if (!ret) {
		ret = cng_link_create(parent, target, dentry);
		if (ret && type->ct_item_ops->drop_link)
			type->ct_item_ops->drop_link(parent_item, target->item);
	}
	cng_node_put_active(target);
out_put_active:
	cng_node_put_active(parent);
out_put_path:
	path_put(&path);
	return ret;
}

/* symlink(2), watched: a failure is recorded on the directory's item. */
int cng_symlink(struct mnt_idmap *idmap, struct inode *dir,
		struct dentry *dentry, const char *symname)
{
	struct cng_node *parent = CNG_I(dir)->node;
	struct cng_call call = {
		.node = parent,
		/* Only compared: the item is not used unless it is active. */
		.item = READ_ONCE(parent->item),
		.op = "symlink",
		.file = dentry->d_name.name,
		.value = symname,
		.value_len = strlen(symname),
	};
	int ret;

	cng_call_begin(&call);
	ret = cng_symlink_make(dir, dentry, symname);
	cng_call_end(&call, ret);
	return ret;
}

int cng_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct cng_node *link = CNG_I(inode)->node;
	struct cng_node *parent;
	int ret;

	/* Attributes cannot be unlinked: stock's errno. */
	if (CNG_I(inode)->kind != CNG_FILE_LINK)
		return -EPERM;
	parent = link->parent;
	if (!cng_node_get_active(parent))
		return -ENOENT;
	ret = cng_remove_link(link);
	cng_node_put_active(parent);
	if (ret)
		return ret;
	clear_nlink(inode);
	/* Not kept negative: the name is free for the kernel side too. */
	d_drop(dentry);
	return 0;
}

const struct inode_operations cng_link_inode_ops = {
	.get_link	= cng_link_get,
	.setattr	= cng_inode_setattr,
	.getattr	= cng_inode_getattr,
	.update_time	= cng_inode_update_time,
};
