// SPDX-License-Identifier: GPL-2.0
/*
 * Change notification: cfgng_notify() says an attribute's value changed,
 * as sysfs_notify() does for sysfs. Pollers of the open file wake with
 * POLLPRI | POLLERR, and inotify watchers of the file and of its
 * directory get IN_MODIFY. The events are delivered from a work item,
 * never from the caller's context, and notifications that arrive before
 * the work runs are merged into one.
 *
 * A file's change count lives in its inode: an open file pins its inode,
 * and a file nobody has open has nobody polling it. So does its wait
 * queue: a change wakes the pollers of that file only, as kernfs does. A
 * removal, which may take many files at once, wakes the pollers of each
 * directory it takes through one of a few shared queues, chosen by the
 * directory (cng_gone_wq_of()); each poller woken sees whether its own
 * item went.
 */
#include <linux/configfs.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/hash.h>
#include <linux/list.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

/*
 * For the modversion CRCs of this file's exports only, frozen: the
 * types <linux/inet.h> defines were visible to them when configfs-ng.h
 * held the helpers, and clients built then carry those CRCs.
 */
#include <linux/inet.h>

#include <configfs-ng.h>

#include "internal.h"

/**
 * struct cng_notice - a change waiting for the work item
 * @entry: in cng_notices
 * @node: the item's directory (counted)
 * @attr: the attribute; only compared, and read under an active
 *	  reference on @node
 */
struct cng_notice {
	struct list_head			entry;
	struct cng_node				*node;
	const struct configfs_attribute		*attr;
};

/* Changes not yet delivered, one per node and attribute; the lock's. */
static LIST_HEAD(cng_notices);
static DEFINE_SPINLOCK(cng_notices_lock);

/*
 * Pollers waiting for their item to go, hashed by the item's node: a
 * removal wakes one bucket, and each poller there checks its own item.
 * One queue for every poller woke them all at each rmdir: a thousand
 * pollers, a thousand items removed, half a million wake-ups.
 */
#define CNG_GONE_WQ_BITS	6
static wait_queue_head_t cng_gone_wq[1 << CNG_GONE_WQ_BITS];

static wait_queue_head_t *cng_gone_wq_of(const struct cng_node *node)
{
	return &cng_gone_wq[hash_ptr(node, CNG_GONE_WQ_BITS)];
}

static void cng_notify_workfn(struct work_struct *work);
static DECLARE_WORK(cng_notify_work, cng_notify_workfn);

/* The slot of @attr in @node's item, or 0. Under an active reference. */
static unsigned int cng_attr_slot(struct cng_node *node,
				  const struct configfs_attribute *attr)
{
	const struct config_item_type *type = node->item->ci_type;
	struct configfs_attribute **ca;
	unsigned int slot = 1;

	if (!type || !type->ct_attrs)
		return 0;
	for (ca = type->ct_attrs; *ca && slot <= CNG_MAX_SLOT; ca++, slot++)
		if (*ca == attr)
			return slot;
	return 0;
}

static void cng_notice_deliver(struct super_block *sb,
			       struct cng_notice *notice)
{
	struct cng_node *node = notice->node;
	struct inode *inode, *dir;
	unsigned int slot;
	struct qstr name;

	if (!cng_node_get_active(node))
		return;
	slot = cng_attr_slot(node, notice->attr);
	if (!slot)
		goto out_put_active;
	inode = ilookup(sb, cng_node_ino(node, slot));
	dir = ilookup(sb, cng_node_ino(node, 0));
	/* The directory's watchers are told with the file's inode. */
	if (dir && !inode) {
		inode = cng_inode_get(sb, node, CNG_FILE_ATTR, slot,
				      notice->attr);
		if (IS_ERR(inode))
			inode = NULL;
	}
	if (inode) {
		atomic_inc(&CNG_I(inode)->event);
		wake_up_interruptible_all(&CNG_I(inode)->poll_wq);
		if (dir) {
			name = (struct qstr)QSTR_INIT(notice->attr->ca_name,
						      strlen(notice->attr->ca_name));
			fsnotify(FS_MODIFY | FS_EVENT_ON_CHILD, inode,
				 FSNOTIFY_EVENT_INODE, dir, &name, inode, 0);
		} else {
			fsnotify_inode(inode, FS_MODIFY);
		}
	}
	iput(dir);
	iput(inode);
out_put_active:
	cng_node_put_active(node);
}

static void cng_notify_workfn(struct work_struct *work)
{
	struct cng_notice *notice, *next;
	struct super_block *sb;
	LIST_HEAD(batch);

	spin_lock_irq(&cng_notices_lock);
	list_splice_init(&cng_notices, &batch);
	spin_unlock_irq(&cng_notices_lock);

	sb = cng_sb_hold();
	list_for_each_entry_safe(notice, next, &batch, entry) {
		if (sb)
			cng_notice_deliver(sb, notice);
		cng_node_put(notice->node);
		kfree(notice);
	}
	cng_sb_release(sb);
}

/**
 * cfgng_notify() - tell user space that an attribute's value changed
 * @item: the item, in configfs
 * @attr: one of its type's attributes (ct_attrs)
 *
 * A poll() on the attribute's open file returns POLLPRI | POLLERR once,
 * after which lseek() to 0 and read() show the new value; inotify
 * watchers of the file and of the item's directory get IN_MODIFY. Both
 * happen soon after, from a work item; changes notified before it runs
 * are told once. An item not in configfs, or being removed, is ignored.
 *
 * Context: any, even hard interrupt.
 */
void cfgng_notify(struct config_item *item,
		  const struct configfs_attribute *attr)
{
	struct cng_notice *notice;
	struct cng_node *node;
	unsigned long flags;

	if (!item || !attr || cng_is_root_item(item))
		return;
	rcu_read_lock();
	/* A node's memory outlives its link to the item by a grace period. */
	node = (struct cng_node *)READ_ONCE(item->ci_dentry);
	if (node && !refcount_inc_not_zero(&node->ref))
		node = NULL;
	rcu_read_unlock();
	if (!node)
		return;
	if (!cng_node_visible(node))
		goto out_put;

	spin_lock_irqsave(&cng_notices_lock, flags);
	list_for_each_entry(notice, &cng_notices, entry) {
		if (notice->node == node && notice->attr == attr) {
			spin_unlock_irqrestore(&cng_notices_lock, flags);
			goto out_put;
		}
	}
	notice = kmalloc(sizeof(*notice), GFP_ATOMIC | __GFP_NOWARN);
	if (notice) {
		notice->node = node;
		notice->attr = attr;
		list_add_tail(&notice->entry, &cng_notices);
		node = NULL;
	}
	spin_unlock_irqrestore(&cng_notices_lock, flags);
	if (notice)
		schedule_work(&cng_notify_work);
out_put:
	if (node)
		cng_node_put(node);
}
EXPORT_SYMBOL_GPL(cfgng_notify);

/**
 * cng_poll_event() - the change count of an attribute file
 * @file: the open file
 *
 * Context: any; lockless.
 * Return: the count; it grows with each change told.
 */
int cng_poll_event(struct file *file)
{
	return atomic_read(&CNG_I(file_inode(file))->event);
}

/**
 * cng_poll_wait() - poll_wait() on an attribute's queues
 * @file: the open attribute
 * @node: its item's directory
 * @wait: the poll table
 *
 * The file's own queue, for its changes, and its item's removal queue.
 *
 * Context: process.
 */
void cng_poll_wait(struct file *file, struct cng_node *node, poll_table *wait)
{
	poll_wait(file, &CNG_I(file_inode(file))->poll_wq, wait);
	poll_wait(file, cng_gone_wq_of(node), wait);
}

/**
 * cng_poll_wake() - wake pollers to see that an item went
 * @node: the item's directory, gone (cng_node_gone())
 *
 * Context: any.
 */
void cng_poll_wake(struct cng_node *node)
{
	wake_up_interruptible_all(cng_gone_wq_of(node));
}

/**
 * cng_notify_init() - make the removal queues ready
 *
 * Context: module init.
 */
void cng_notify_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cng_gone_wq); i++)
		init_waitqueue_head(&cng_gone_wq[i]);
}

/**
 * cng_notify_exit() - deliver what is pending before the module goes
 *
 * Context: process; sleeps.
 */
void cng_notify_exit(void)
{
	flush_work(&cng_notify_work);
}
