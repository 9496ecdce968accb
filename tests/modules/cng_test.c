// SPDX-License-Identifier: GPL-2.0
/*
 * cng_test: the conformance suite's client module.
 *
 * It uses nothing but <linux/configfs.h>, so it loads on the kernel's own
 * configfs and on ours, and it walks every path of that API: items and
 * groups made by mkdir, default groups nested two deep, a group with no make
 * op, text and binary attributes of every mode, links, dependencies, and
 * groups registered and unregistered by the kernel while user space watches.
 *
 * Every callback appends one line to an event log, so a test can check the
 * order in which configfs calls its client, on stock and on ours alike.
 *
 *   /sys/kernel/config/cng_test/   the subsystem; mkdir makes a node
 *   |-- events       RW  the event log; any write clears it
 *   |-- ctl          WO  one command per write, see cng_commands[]
 *   |-- gate         RW  "block POINT": the next callback at POINT (show,
 *   |                    allow_link, drop_link, disconnect_notify,
 *   |                    drop_item) logs "wait POINT" and waits; "go" lets
 *   |                    every waiting one go on. Reads "waiting N". Takes
 *   |                    no lock ctl holds, so it opens a gate that a ctl
 *   |                    command waits behind.
 *   |-- live         RO  objects allocated and not yet released
 *   |-- late         RO  callbacks that reached an item already dropped
 *   |-- items/           default group; mkdir makes an item
 *   |-- fixed/           default group with no make op
 *   |   `-- inner/       nested default group
 *   |       `-- deep/    nested two levels down
 *   |-- narrow/          default group; mkdir makes an item of 1 attribute
 *   |-- wide/            default group; mkdir makes an item of 64
 *   `-- NODE/            made by mkdir (make_group); the attributes of an
 *       |                item, and links; mkdir makes a nested NODE
 *       `-- sub/         default group; mkdir makes an item; it has no
 *           |            drop_item, so rmdir ends with the final put
 *           `-- deep/    nested default group
 *
 *   ITEM/ (in items/ or NODE/sub/) and NODE/ hold:
 *   |-- data         RW  keeps the bytes written; shows them back
 *   |-- store_ret    RW  what data's store returns: 0 the count, N > 0 N
 *   |                    (at most the count), N < 0 the error N
 *   |-- show_ret     RW  0, or what data's show returns instead of the
 *   |                    value: an error, or N > 0 after writing N bytes
 *   |                    of 'x', or a page of them if N is more (N > 4096
 *   |                    is a client bug configfs catches; on a 64K-page
 *   |                    kernel those bytes fit the page and are written)
 *   |-- name         RO  config_item_name() of the item
 *   |-- big          RO  a full page: 4095 letters a..z repeated, newline
 *   |-- wo           WO  store only; logged
 *   |-- blob         RW  binary, at most 10000 bytes
 *   |-- blob_small   RO  binary, the same bytes, at most 16
 *   |-- blob_wo      WO  binary, write only, at most 64; stored as blob
 *   |-- bin_ret      RW  0, or the error blob's read and write return
 *   `-- link_ret     RW  0, or the error allow_link returns
 *
 * Links may point to items, nodes and NODE/sub; allow_link refuses every
 * other target with -EPERM (a link to a group the kernel may unregister
 * would outlive its target).
 *
 * Log lines, with paths relative to cng_test/:
 *   make_item PATH, make_group PATH, disconnect_notify PATH,
 *   drop_item PATH, release PATH, allow_link SRC TARGET,
 *   drop_link SRC TARGET, show PATH/data, store PATH/ATTR COUNT,
 *   bin_read PATH/ATTR NULL|SIZE, bin_write PATH/ATTR SIZE,
 *   late CALLBACK PATH   (a callback on an item already dropped: a bug)
 *   wait POINT           (a callback held at a gate, see gate above)
 */
#include <linux/configfs.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait.h>

#define CNG_DATA_MAX		4096
#define CNG_BLOB_MAX		10000
#define CNG_BLOB_SMALL_MAX	16
#define CNG_BLOB_WO_MAX		64
#define CNG_WIDE_ATTRS		64
#define CNG_MAX_DEPENDS		16
#define CNG_MAX_DEFAULTS	8

/*
 * Every group and item this module makes. Items use only group.cg_item;
 * is_group tells which.
 */
struct cng_obj {
	struct config_group group;
	bool is_group;
	bool dropped;		/* set by disconnect_notify and drop_item */
	char *path;		/* relative to cng_test/, for the log */
	struct list_head rt_entry;	/* on cng_rt_list, if registered */
	struct mutex lock;	/* data and blob */
	char *data;
	size_t data_len;
	void *blob;
	size_t blob_len;
	int store_ret;
	int show_ret;
	int bin_ret;
	int link_ret;
};

static inline struct cng_obj *to_cng(struct config_item *item)
{
	return container_of(to_config_group(item), struct cng_obj, group);
}

static atomic_t cng_live = ATOMIC_INIT(0);
static atomic_t cng_late = ATOMIC_INIT(0);

/* The event log. It stops growing when full and says so at its end. */
static DEFINE_SPINLOCK(cng_log_lock);
static char cng_log[CNG_DATA_MAX - 16];
static size_t cng_log_len;
static bool cng_log_full;

static __printf(1, 2) void cng_event(const char *fmt, ...)
{
	char line[160];
	va_list args;
	size_t n;

	va_start(args, fmt);
	n = vscnprintf(line, sizeof(line) - 1, fmt, args);
	va_end(args);
	line[n++] = '\n';
	pr_debug("%.*s", (int)n, line);

	spin_lock(&cng_log_lock);
	if (cng_log_len + n <= sizeof(cng_log)) {
		memcpy(cng_log + cng_log_len, line, n);
		cng_log_len += n;
	} else {
		cng_log_full = true;
	}
	spin_unlock(&cng_log_lock);
}

/*
 * Gates: one-shot holds of a callback, so that a test can line up a race
 * deterministically. A held callback sleeps killably until "go".
 */
enum cng_gate_point {
	CNG_GATE_SHOW,
	CNG_GATE_ALLOW_LINK,
	CNG_GATE_DROP_LINK,
	CNG_GATE_DISCONNECT,
	CNG_GATE_DROP_ITEM,
	CNG_GATE_POINTS,
};

static const char *const cng_gate_names[CNG_GATE_POINTS] = {
	[CNG_GATE_SHOW]		= "show",
	[CNG_GATE_ALLOW_LINK]	= "allow_link",
	[CNG_GATE_DROP_LINK]	= "drop_link",
	[CNG_GATE_DISCONNECT]	= "disconnect_notify",
	[CNG_GATE_DROP_ITEM]	= "drop_item",
};

static atomic_t cng_gate_armed[CNG_GATE_POINTS];
static atomic_t cng_gate_waiting = ATOMIC_INIT(0);
static atomic_t cng_gate_gen = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(cng_gate_wq);

static void cng_gate(enum cng_gate_point point)
{
	int gen;

	if (!atomic_xchg(&cng_gate_armed[point], 0))
		return;
	gen = atomic_read(&cng_gate_gen);
	cng_event("wait %s", cng_gate_names[point]);
	atomic_inc(&cng_gate_waiting);
	if (wait_event_killable(cng_gate_wq, atomic_read(&cng_gate_gen) != gen))
		cng_event("wait_killed %s", cng_gate_names[point]);
	atomic_dec(&cng_gate_waiting);
}

/* A callback reached an item its parent already let go of. */
static void cng_check_live(struct cng_obj *obj, const char *what)
{
	if (READ_ONCE(obj->dropped)) {
		atomic_inc(&cng_late);
		cng_event("late %s %s", what, obj->path);
		/* the event log may be full after a long race: say it here */
		pr_notice_ratelimited("cng_test: late %s %s\n", what, obj->path);
	}
}

static const struct config_item_type cng_item_type;
static const struct config_item_type cng_node_type;
static const struct config_item_type cng_sub_type;
static const struct config_item_type cng_fixed_type;
static const struct config_item_type cng_items_type;
static const struct config_item_type cng_narrow_type;
static const struct config_item_type cng_narrow_item_type;
static const struct config_item_type cng_wide_type;
static const struct config_item_type cng_wide_item_type;
static const struct config_item_type cng_rt_type;
static const struct config_item_type cng_rtd_type;
static struct configfs_subsystem cng_subsys;

static struct cng_obj *cng_obj_new(const char *parent_path, const char *name)
{
	struct cng_obj *obj = kzalloc(sizeof(*obj), GFP_KERNEL);

	if (!obj)
		return NULL;
	if (*parent_path)
		obj->path = kasprintf(GFP_KERNEL, "%s/%s", parent_path, name);
	else
		obj->path = kstrdup(name, GFP_KERNEL);
	if (!obj->path) {
		kfree(obj);
		return NULL;
	}
	mutex_init(&obj->lock);
	INIT_LIST_HEAD(&obj->rt_entry);
	atomic_inc(&cng_live);
	return obj;
}

static struct cng_obj *cng_group_new(const char *parent_path,
				     const char *name,
				     const struct config_item_type *type)
{
	struct cng_obj *obj = cng_obj_new(parent_path, name);

	if (!obj)
		return NULL;
	obj->is_group = true;
	config_group_init_type_name(&obj->group, name, type);
	return obj;
}

/* Adds a default group of @type named @name to @parent; NULL on failure. */
static struct cng_obj *cng_add_default(struct cng_obj *parent,
				       const char *name,
				       const struct config_item_type *type)
{
	struct cng_obj *child = cng_group_new(parent->path, name, type);

	if (child)
		configfs_add_default_group(&child->group, &parent->group);
	return child;
}

/* The path of a group that may be the parent in a make callback. */
static const char *cng_group_path(struct config_group *group)
{
	if (group == &cng_subsys.su_group)
		return "";
	return to_cng(&group->cg_item)->path;
}

/*
 * Release: the last reference is gone. A group drops its default groups
 * here with configfs_remove_default_groups(), which puts each of them in
 * turn; configfs unlinked them already.
 */
static void cng_release(struct config_item *item)
{
	struct cng_obj *obj = to_cng(item);

	cng_event("release %s", obj->path);
	if (obj->is_group)
		configfs_remove_default_groups(&obj->group);
	kfree(obj->data);
	kvfree(obj->blob);
	kfree(obj->path);
	kfree(obj);
	atomic_dec(&cng_live);
}

/* Error injection for the next make_item or make_group: -1 means none. */
static atomic_t cng_make_fail = ATOMIC_INIT(-1);

/* Set by ctl "make_block": the next make callback waits for "make_go". */
static atomic_t cng_make_block = ATOMIC_INIT(0);
static bool cng_make_go;
static DECLARE_WAIT_QUEUE_HEAD(cng_make_wq);

/*
 * True when the test asked this make to fail; *ret is what to return. A
 * make the test asked to block waits here first, logged as make_wait,
 * and fails with -EINTR if its process is killed meanwhile.
 */
static bool cng_make_should_fail(void **ret)
{
	int err;

	if (atomic_xchg(&cng_make_block, 0)) {
		cng_event("make_wait");
		if (wait_event_killable(cng_make_wq, READ_ONCE(cng_make_go))) {
			*ret = ERR_PTR(-EINTR);
			return true;
		}
	}
	err = atomic_xchg(&cng_make_fail, -1);
	if (err < 0)
		return false;
	*ret = err ? ERR_PTR(-err) : NULL;
	return true;
}

static struct config_item *cng_make_item(struct config_group *group,
					 const char *name)
{
	const char *ppath = cng_group_path(group);
	const struct config_item_type *type = &cng_item_type;
	struct cng_obj *obj;
	void *fail;

	if (*ppath)
		cng_event("make_item %s/%s", ppath, name);
	else
		cng_event("make_item %s", name);
	if (cng_make_should_fail(&fail))
		return fail;

	obj = cng_obj_new(ppath, name);
	if (!obj)
		return ERR_PTR(-ENOMEM);
	if (group->cg_item.ci_type == &cng_narrow_type)
		type = &cng_narrow_item_type;
	else if (group->cg_item.ci_type == &cng_wide_type)
		type = &cng_wide_item_type;
	config_item_init_type_name(&obj->group.cg_item, name, type);
	return &obj->group.cg_item;
}

static struct config_group *cng_make_node(struct config_group *group,
					  const char *name)
{
	const char *ppath = cng_group_path(group);
	struct cng_obj *node, *sub;
	void *fail;

	if (*ppath)
		cng_event("make_group %s/%s", ppath, name);
	else
		cng_event("make_group %s", name);
	if (cng_make_should_fail(&fail))
		return fail;

	node = cng_group_new(ppath, name, &cng_node_type);
	if (!node)
		return ERR_PTR(-ENOMEM);
	sub = cng_add_default(node, "sub", &cng_sub_type);
	if (!sub || !cng_add_default(sub, "deep", &cng_fixed_type)) {
		config_group_put(&node->group);
		return ERR_PTR(-ENOMEM);
	}
	return &node->group;
}

static void cng_disconnect_notify(struct config_group *group,
				  struct config_item *item)
{
	struct cng_obj *obj = to_cng(item);

	cng_gate(CNG_GATE_DISCONNECT);
	cng_event("disconnect_notify %s", obj->path);
	WRITE_ONCE(obj->dropped, true);
}

static void cng_drop_item(struct config_group *group,
			  struct config_item *item)
{
	struct cng_obj *obj = to_cng(item);

	cng_gate(CNG_GATE_DROP_ITEM);
	cng_event("drop_item %s", obj->path);
	WRITE_ONCE(obj->dropped, true);
	config_item_put(item);
}

static bool cng_is_link_target(struct config_item *target)
{
	return target->ci_type == &cng_item_type ||
	       target->ci_type == &cng_node_type ||
	       target->ci_type == &cng_sub_type;
}

static int cng_allow_link(struct config_item *src, struct config_item *target)
{
	struct cng_obj *obj = to_cng(src);

	if (!cng_is_link_target(target)) {
		cng_event("allow_link %s (foreign %s)", obj->path,
			  config_item_name(target));
		return -EPERM;
	}
	cng_gate(CNG_GATE_ALLOW_LINK);
	cng_event("allow_link %s %s", obj->path, to_cng(target)->path);
	cng_check_live(obj, "allow_link");
	cng_check_live(to_cng(target), "allow_link_target");
	return READ_ONCE(obj->link_ret);
}

/* Both items must still be there: a late event says one was dropped. */
static void cng_drop_link(struct config_item *src, struct config_item *target)
{
	cng_gate(CNG_GATE_DROP_LINK);
	cng_event("drop_link %s %s", to_cng(src)->path, to_cng(target)->path);
	cng_check_live(to_cng(src), "drop_link");
	cng_check_live(to_cng(target), "drop_link_target");
}

/* Text attributes of items and nodes */

static ssize_t cng_data_show(struct config_item *item, char *page)
{
	struct cng_obj *obj = to_cng(item);
	ssize_t ret;

	cng_gate(CNG_GATE_SHOW);
	cng_event("show %s/data", obj->path);
	cng_check_live(obj, "show");
	mutex_lock(&obj->lock);
	ret = obj->show_ret;
	if (!ret) {
		memcpy(page, obj->data, obj->data_len);
		ret = obj->data_len;
	} else if (ret > 0) {
		memset(page, 'x', min_t(ssize_t, ret, PAGE_SIZE));
	}
	mutex_unlock(&obj->lock);
	return ret;
}

/*
 * ctl "abba" makes every data store take cng_abba_lock, which ctl
 * "unregister_locked" holds around an unregistration: an active
 * reference and a client lock taken in both orders, one after the
 * other, for the debug kernel's lockdep to report (the runner's
 * self-test). Nothing waits, so nothing hangs.
 */
static DEFINE_MUTEX(cng_abba_lock);
static bool cng_abba;

static ssize_t cng_data_store(struct config_item *item, const char *page,
			      size_t count)
{
	struct cng_obj *obj = to_cng(item);
	ssize_t ret;

	cng_event("store %s/data %zu", obj->path, count);
	cng_check_live(obj, "store");
	if (READ_ONCE(cng_abba)) {
		mutex_lock(&cng_abba_lock);
		mutex_unlock(&cng_abba_lock);
	}
	if (count > CNG_DATA_MAX)
		return -EOVERFLOW;
	mutex_lock(&obj->lock);
	ret = obj->store_ret;
	if (ret >= 0) {
		if (!obj->data)
			obj->data = kmalloc(CNG_DATA_MAX, GFP_KERNEL);
		if (obj->data) {
			memcpy(obj->data, page, count);
			obj->data_len = count;
			ret = ret ? min_t(ssize_t, ret, count) : count;
		} else {
			ret = -ENOMEM;
		}
	}
	mutex_unlock(&obj->lock);
	return ret;
}

static ssize_t cng_int_show(int *val, char *page)
{
	return scnprintf(page, PAGE_SIZE, "%d\n", READ_ONCE(*val));
}

static ssize_t cng_int_store(int *val, const char *page, size_t count)
{
	int v, ret = kstrtoint(page, 0, &v);

	if (ret)
		return ret;
	WRITE_ONCE(*val, v);
	return count;
}

static ssize_t cng_store_ret_show(struct config_item *item, char *page)
{
	return cng_int_show(&to_cng(item)->store_ret, page);
}

static ssize_t cng_store_ret_store(struct config_item *item, const char *page,
				   size_t count)
{
	return cng_int_store(&to_cng(item)->store_ret, page, count);
}

static ssize_t cng_show_ret_show(struct config_item *item, char *page)
{
	return cng_int_show(&to_cng(item)->show_ret, page);
}

static ssize_t cng_show_ret_store(struct config_item *item, const char *page,
				  size_t count)
{
	return cng_int_store(&to_cng(item)->show_ret, page, count);
}

static ssize_t cng_bin_ret_show(struct config_item *item, char *page)
{
	return cng_int_show(&to_cng(item)->bin_ret, page);
}

static ssize_t cng_bin_ret_store(struct config_item *item, const char *page,
				 size_t count)
{
	return cng_int_store(&to_cng(item)->bin_ret, page, count);
}

static ssize_t cng_link_ret_show(struct config_item *item, char *page)
{
	return cng_int_show(&to_cng(item)->link_ret, page);
}

static ssize_t cng_link_ret_store(struct config_item *item, const char *page,
				  size_t count)
{
	return cng_int_store(&to_cng(item)->link_ret, page, count);
}

CONFIGFS_ATTR(cng_, store_ret);
CONFIGFS_ATTR(cng_, show_ret);
CONFIGFS_ATTR(cng_, bin_ret);
CONFIGFS_ATTR(cng_, link_ret);

/* Needs nothing but the item, so groups of every type may show it. */
static ssize_t cng_name_show(struct config_item *item, char *page)
{
	return scnprintf(page, PAGE_SIZE, "%s\n", config_item_name(item));
}

static ssize_t cng_big_show(struct config_item *item, char *page)
{
	int i;

	for (i = 0; i < CNG_DATA_MAX - 1; i++)
		page[i] = 'a' + i % 26;
	page[i] = '\n';
	return CNG_DATA_MAX;
}

static ssize_t cng_wo_store(struct config_item *item, const char *page,
			    size_t count)
{
	struct cng_obj *obj = to_cng(item);

	cng_event("store %s/wo %zu", obj->path, count);
	cng_check_live(obj, "store");
	return count;
}

CONFIGFS_ATTR(cng_, data);
CONFIGFS_ATTR_RO(cng_, name);
CONFIGFS_ATTR_RO(cng_, big);
CONFIGFS_ATTR_WO(cng_, wo);

static struct configfs_attribute *cng_item_attrs[] = {
	&cng_attr_data,
	&cng_attr_store_ret,
	&cng_attr_show_ret,
	&cng_attr_name,
	&cng_attr_big,
	&cng_attr_wo,
	&cng_attr_bin_ret,
	&cng_attr_link_ret,
	NULL,
};

/* Binary attributes of items and nodes */

static ssize_t cng_bin_read(struct config_item *item, const char *attr,
			    void *buf, size_t size)
{
	struct cng_obj *obj = to_cng(item);
	ssize_t ret;

	if (buf)
		cng_event("bin_read %s/%s %zu", obj->path, attr, size);
	else
		cng_event("bin_read %s/%s NULL", obj->path, attr);
	cng_check_live(obj, "bin_read");
	ret = READ_ONCE(obj->bin_ret);
	if (ret)
		return ret;
	mutex_lock(&obj->lock);
	ret = obj->blob_len;
	if (buf) {
		ret = min(size, obj->blob_len);
		memcpy(buf, obj->blob, ret);
	}
	mutex_unlock(&obj->lock);
	return ret;
}

static ssize_t cng_bin_write(struct config_item *item, const char *attr,
			     const void *buf, size_t size)
{
	struct cng_obj *obj = to_cng(item);
	void *copy = NULL;
	ssize_t ret;

	cng_event("bin_write %s/%s %zu", obj->path, attr, size);
	cng_check_live(obj, "bin_write");
	ret = READ_ONCE(obj->bin_ret);
	if (ret)
		return ret;
	if (size) {
		copy = kvmalloc(size, GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, buf, size);
	}
	mutex_lock(&obj->lock);
	kvfree(obj->blob);
	obj->blob = copy;
	obj->blob_len = size;
	mutex_unlock(&obj->lock);
	return size;
}

static ssize_t cng_blob_read(struct config_item *item, void *buf, size_t size)
{
	return cng_bin_read(item, "blob", buf, size);
}

static ssize_t cng_blob_write(struct config_item *item, const void *buf,
			      size_t size)
{
	return cng_bin_write(item, "blob", buf, size);
}

static ssize_t cng_blob_small_read(struct config_item *item, void *buf,
				   size_t size)
{
	return cng_bin_read(item, "blob_small", buf, size);
}

static ssize_t cng_blob_wo_write(struct config_item *item, const void *buf,
				 size_t size)
{
	return cng_bin_write(item, "blob_wo", buf, size);
}

CONFIGFS_BIN_ATTR(cng_, blob, NULL, CNG_BLOB_MAX);
CONFIGFS_BIN_ATTR_RO(cng_, blob_small, NULL, CNG_BLOB_SMALL_MAX);
CONFIGFS_BIN_ATTR_WO(cng_, blob_wo, NULL, CNG_BLOB_WO_MAX);

static struct configfs_bin_attribute *cng_item_bin_attrs[] = {
	&cng_attr_blob,
	&cng_attr_blob_small,
	&cng_attr_blob_wo,
	NULL,
};

static struct configfs_item_operations cng_obj_item_ops = {
	.release	= cng_release,
	.allow_link	= cng_allow_link,
	.drop_link	= cng_drop_link,
};

/* Groups that need a release but take no links. */
static struct configfs_item_operations cng_group_item_ops = {
	.release	= cng_release,
};

static struct configfs_group_operations cng_items_group_ops = {
	.make_item		= cng_make_item,
	.disconnect_notify	= cng_disconnect_notify,
	.drop_item		= cng_drop_item,
};

/* No drop_item and no disconnect_notify: rmdir ends in the final put. */
static struct configfs_group_operations cng_sub_group_ops = {
	.make_item	= cng_make_item,
};

static struct configfs_group_operations cng_node_group_ops = {
	.make_group		= cng_make_node,
	.disconnect_notify	= cng_disconnect_notify,
	.drop_item		= cng_drop_item,
};

static const struct config_item_type cng_item_type = {
	.ct_item_ops	= &cng_obj_item_ops,
	.ct_attrs	= cng_item_attrs,
	.ct_bin_attrs	= cng_item_bin_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cng_node_type = {
	.ct_item_ops	= &cng_obj_item_ops,
	.ct_group_ops	= &cng_node_group_ops,
	.ct_attrs	= cng_item_attrs,
	.ct_bin_attrs	= cng_item_bin_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct configfs_attribute *cng_name_attrs[] = {
	&cng_attr_name,
	NULL,
};

static const struct config_item_type cng_sub_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_group_ops	= &cng_sub_group_ops,
	.ct_attrs	= cng_name_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cng_fixed_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_attrs	= cng_name_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cng_items_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_group_ops	= &cng_items_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* narrow/ and wide/: the same items but for the number of attributes */

static const struct config_item_type cng_narrow_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_group_ops	= &cng_items_group_ops,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cng_narrow_item_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_attrs	= cng_name_attrs,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cng_wide_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_group_ops	= &cng_items_group_ops,
	.ct_owner	= THIS_MODULE,
};

/* w00 .. w63, all showing the item's name; filled in at load */
static char cng_wide_names[CNG_WIDE_ATTRS][4];
static struct configfs_attribute cng_wide_attr[CNG_WIDE_ATTRS];
static struct configfs_attribute *cng_wide_attrs[CNG_WIDE_ATTRS + 1];

static const struct config_item_type cng_wide_item_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_attrs	= cng_wide_attrs,
	.ct_owner	= THIS_MODULE,
};

static void cng_wide_init(void)
{
	int i;

	for (i = 0; i < CNG_WIDE_ATTRS; i++) {
		snprintf(cng_wide_names[i], sizeof(cng_wide_names[i]), "w%02d",
			 i);
		cng_wide_attr[i].ca_name = cng_wide_names[i];
		cng_wide_attr[i].ca_owner = THIS_MODULE;
		cng_wide_attr[i].ca_mode = 0444;
		cng_wide_attr[i].show = cng_name_show;
		cng_wide_attrs[i] = &cng_wide_attr[i];
	}
}

/* Runtime groups: registered and unregistered through ctl */

static struct configfs_attribute *cng_rt_attrs[] = {
	&cng_attr_name,
	&cng_attr_data,
	NULL,
};

static const struct config_item_type cng_rt_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_attrs	= cng_rt_attrs,
	.ct_owner	= THIS_MODULE,
};

/* register_make: mkdir in the group makes a NODE, as in cng_test/ */
static const struct config_item_type cng_rtm_type = {
	.ct_item_ops	= &cng_group_item_ops,
	.ct_group_ops	= &cng_node_group_ops,
	.ct_attrs	= cng_name_attrs,
	.ct_owner	= THIS_MODULE,
};

/* configfs_register_default_group() allocates these; no release of ours */
static const struct config_item_type cng_rtd_type = {
	.ct_attrs	= cng_name_attrs,
	.ct_owner	= THIS_MODULE,
};

/* All ctl commands run under cng_ctl_lock, and so do these tables. */
static DEFINE_MUTEX(cng_ctl_lock);
static LIST_HEAD(cng_rt_list);
static struct config_group *cng_defaults[CNG_MAX_DEFAULTS];

/* A dependency taken through ctl: the item, referenced, and its path. */
static struct {
	struct config_item *item;
	char *path;
} cng_depends[CNG_MAX_DEPENDS];

static bool cng_is_our_group(struct config_item *item)
{
	const struct config_item_type *t = item->ci_type;

	return t && t->ct_item_ops && t->ct_item_ops->release == cng_release &&
	       to_cng(item)->is_group;
}

/*
 * Finds the item at @path (relative to cng_test/) and takes a reference,
 * walking the children under the subsystem mutex as configfs asks.
 */
static struct config_item *cng_find(char *path)
{
	struct config_group *group = &cng_subsys.su_group;
	struct config_item *item = NULL;
	char *comp;

	mutex_lock(&cng_subsys.su_mutex);
	while ((comp = strsep(&path, "/"))) {
		if (item) {
			if (!cng_is_our_group(item)) {
				config_item_put(item);
				item = NULL;
				break;
			}
			/* Linked, so alive while we hold su_mutex. */
			group = to_config_group(item);
			config_item_put(item);
		}
		item = config_group_find_item(group, comp);
		if (!item)
			break;
	}
	mutex_unlock(&cng_subsys.su_mutex);
	return item;
}

/* make_err N: the next make callback fails with -N, or returns NULL if 0 */
static int cng_cmd_make_err(char *arg)
{
	int err, ret = kstrtoint(arg, 0, &err);

	if (ret)
		return ret;
	if (err < 0 || err > MAX_ERRNO)
		return -EINVAL;
	atomic_set(&cng_make_fail, err);
	return 0;
}

static int cng_depend(char *arg, bool unlocked)
{
	struct config_item *item;
	char *path;
	int i, ret;

	for (i = 0; i < CNG_MAX_DEPENDS && cng_depends[i].item; i++)
		;
	if (i == CNG_MAX_DEPENDS)
		return -ENOSPC;
	path = kstrdup(arg, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	item = cng_find(arg);
	if (!item) {
		kfree(path);
		return -ENOENT;
	}
	if (unlocked)
		ret = configfs_depend_item_unlocked(&cng_subsys, item);
	else
		ret = configfs_depend_item(&cng_subsys, item);
	if (ret) {
		config_item_put(item);
		kfree(path);
		return ret;
	}
	cng_depends[i].item = item;
	cng_depends[i].path = path;
	return 0;
}

/* depend PATH: configfs_depend_item() on the item; we keep a reference */
static int cng_cmd_depend(char *arg)
{
	return cng_depend(arg, false);
}

/* depend_unlocked PATH: the same through configfs_depend_item_unlocked() */
static int cng_cmd_depend_unlocked(char *arg)
{
	return cng_depend(arg, true);
}

static void cng_undepend_slot(int i)
{
	configfs_undepend_item(cng_depends[i].item);
	config_item_put(cng_depends[i].item);
	cng_depends[i].item = NULL;
	kfree(cng_depends[i].path);
	cng_depends[i].path = NULL;
}

/*
 * undepend PATH: undoes one depend on that item. PATH is the one given to
 * depend, so an item the kernel side removed meanwhile can still be named;
 * otherwise the item now at PATH.
 */
static int cng_cmd_undepend(char *arg)
{
	struct config_item *item;
	int i;

	for (i = 0; i < CNG_MAX_DEPENDS; i++) {
		if (cng_depends[i].item && !strcmp(cng_depends[i].path, arg)) {
			cng_undepend_slot(i);
			return 0;
		}
	}
	item = cng_find(arg);
	if (!item)
		return -ENOENT;
	for (i = 0; i < CNG_MAX_DEPENDS; i++)
		if (cng_depends[i].item == item)
			break;
	config_item_put(item);
	if (i == CNG_MAX_DEPENDS)
		return -ENOENT;
	cng_undepend_slot(i);
	return 0;
}

static int cng_register(char *arg, const struct config_item_type *type)
{
	struct cng_obj *obj;
	int ret;

	if (!*arg || strchr(arg, '/'))
		return -EINVAL;
	obj = cng_group_new("", arg, type);
	if (!obj)
		return -ENOMEM;
	if (!cng_add_default(obj, "inner", &cng_fixed_type)) {
		config_group_put(&obj->group);
		return -ENOMEM;
	}
	ret = configfs_register_group(&cng_subsys.su_group, &obj->group);
	if (ret) {
		config_group_put(&obj->group);
		return ret;
	}
	list_add_tail(&obj->rt_entry, &cng_rt_list);
	return 0;
}

/* register NAME: configfs_register_group() of NAME/ with NAME/inner/ */
static int cng_cmd_register(char *arg)
{
	return cng_register(arg, &cng_rt_type);
}

/*
 * register_under PATH NAME: configfs_register_group() of NAME/ under the
 * group at PATH (one of ours, made by mkdir or not), then at once
 * configfs_unregister_group() of it again: a kernel-side registration
 * racing user space's removal of PATH. Fails as the registration does.
 */
static int cng_cmd_register_under(char *arg)
{
	struct config_item *parent;
	struct cng_obj *obj;
	char *name;
	int ret;

	name = strrchr(arg, ' ');
	if (!name || !name[1] || strchr(name + 1, '/'))
		return -EINVAL;
	*name++ = '\0';
	parent = cng_find(arg);
	if (!parent)
		return -ENOENT;
	ret = -EINVAL;
	if (!cng_is_our_group(parent))
		goto out_put_parent;
	ret = -ENOMEM;
	obj = cng_group_new(to_cng(parent)->path, name, &cng_rt_type);
	if (!obj)
		goto out_put_parent;
	ret = configfs_register_group(to_config_group(parent), &obj->group);
	if (!ret)
		configfs_unregister_group(&obj->group);
	config_group_put(&obj->group);
out_put_parent:
	config_item_put(parent);
	return ret;
}

/* abba: data stores take cng_abba_lock from now on (see cng_abba_lock) */
static int cng_cmd_abba(char *arg)
{
	WRITE_ONCE(cng_abba, true);
	return 0;
}

static struct cng_obj *cng_rt_find(const char *name)
{
	struct cng_obj *obj;

	list_for_each_entry(obj, &cng_rt_list, rt_entry)
		if (!strcmp(obj->path, name))
			return obj;
	return NULL;
}

/* register_make NAME: the same, but mkdir in NAME/ makes a NODE */
static int cng_cmd_register_make(char *arg)
{
	return cng_register(arg, &cng_rtm_type);
}

static void cng_unregister(struct cng_obj *obj)
{
	list_del_init(&obj->rt_entry);
	configfs_unregister_group(&obj->group);
	/* The initial reference; release drops the default groups. */
	config_group_put(&obj->group);
}

/* make_block: the next make callback waits for make_go */
static int cng_cmd_make_block(char *arg)
{
	WRITE_ONCE(cng_make_go, false);
	atomic_set(&cng_make_block, 1);
	return 0;
}

/* make_go: lets a make callback blocked by make_block go on */
static int cng_cmd_make_go(char *arg)
{
	WRITE_ONCE(cng_make_go, true);
	wake_up_all(&cng_make_wq);
	return 0;
}

/* unregister NAME: configfs_unregister_group() of a registered group */
static int cng_cmd_unregister(char *arg)
{
	struct cng_obj *obj = cng_rt_find(arg);

	if (!obj)
		return -ENOENT;
	cng_unregister(obj);
	return 0;
}

/* unregister_locked NAME: the same under cng_abba_lock */
static int cng_cmd_unregister_locked(char *arg)
{
	struct cng_obj *obj = cng_rt_find(arg);

	if (!obj)
		return -ENOENT;
	mutex_lock(&cng_abba_lock);
	cng_unregister(obj);
	mutex_unlock(&cng_abba_lock);
	return 0;
}

/* register_default NAME: configfs_register_default_group() */
static int cng_cmd_register_default(char *arg)
{
	struct config_group *group;
	int i;

	if (!*arg || strchr(arg, '/'))
		return -EINVAL;
	for (i = 0; i < CNG_MAX_DEFAULTS && cng_defaults[i]; i++)
		;
	if (i == CNG_MAX_DEFAULTS)
		return -ENOSPC;
	group = configfs_register_default_group(&cng_subsys.su_group, arg,
						&cng_rtd_type);
	if (IS_ERR(group))
		return PTR_ERR(group);
	cng_defaults[i] = group;
	return 0;
}

/* unregister_default NAME: configfs_unregister_default_group() */
static int cng_cmd_unregister_default(char *arg)
{
	int i;

	for (i = 0; i < CNG_MAX_DEFAULTS; i++) {
		struct config_group *group = cng_defaults[i];

		if (group && !strcmp(config_item_name(&group->cg_item), arg)) {
			cng_defaults[i] = NULL;
			configfs_unregister_default_group(group);
			return 0;
		}
	}
	return -ENOENT;
}

static const struct {
	const char *name;
	int (*run)(char *arg);
} cng_commands[] = {
	{ "make_err",		cng_cmd_make_err },
	{ "make_block",		cng_cmd_make_block },
	{ "make_go",		cng_cmd_make_go },
	{ "depend",		cng_cmd_depend },
	{ "depend_unlocked",	cng_cmd_depend_unlocked },
	{ "undepend",		cng_cmd_undepend },
	{ "register",		cng_cmd_register },
	{ "register_make",	cng_cmd_register_make },
	{ "unregister",		cng_cmd_unregister },
	{ "unregister_locked",	cng_cmd_unregister_locked },
	{ "register_under",	cng_cmd_register_under },
	{ "abba",		cng_cmd_abba },
	{ "register_default",	cng_cmd_register_default },
	{ "unregister_default",	cng_cmd_unregister_default },
};

/* ctl: "COMMAND ARG", one per write; the write fails with its error. */
static ssize_t cng_ctl_store(struct config_item *item, const char *page,
			     size_t count)
{
	char *buf, *cmd, *arg;
	int i, ret = -EINVAL;

	buf = kmemdup_nul(page, count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	arg = strim(buf);
	cmd = strsep(&arg, " ");
	if (!arg)
		arg = "";
	mutex_lock(&cng_ctl_lock);
	for (i = 0; i < ARRAY_SIZE(cng_commands); i++) {
		if (!strcmp(cmd, cng_commands[i].name)) {
			ret = cng_commands[i].run(arg);
			break;
		}
	}
	mutex_unlock(&cng_ctl_lock);
	kfree(buf);
	return ret ? ret : count;
}

static ssize_t cng_events_show(struct config_item *item, char *page)
{
	size_t n;

	spin_lock(&cng_log_lock);
	n = cng_log_len;
	memcpy(page, cng_log, n);
	if (cng_log_full)
		n += scnprintf(page + n, PAGE_SIZE - n, "overflow\n");
	spin_unlock(&cng_log_lock);
	return n;
}

static ssize_t cng_events_store(struct config_item *item, const char *page,
				size_t count)
{
	spin_lock(&cng_log_lock);
	cng_log_len = 0;
	cng_log_full = false;
	spin_unlock(&cng_log_lock);
	return count;
}

/* gate: "block POINT" or "go"; reads how many callbacks wait */
static ssize_t cng_gate_show(struct config_item *item, char *page)
{
	return scnprintf(page, PAGE_SIZE, "waiting %d\n",
			 atomic_read(&cng_gate_waiting));
}

static ssize_t cng_gate_store(struct config_item *item, const char *page,
			      size_t count)
{
	char *buf, *cmd;
	int i, ret = -EINVAL;

	buf = kmemdup_nul(page, count, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cmd = strim(buf);
	if (!strcmp(cmd, "go")) {
		for (i = 0; i < CNG_GATE_POINTS; i++)
			atomic_set(&cng_gate_armed[i], 0);
		atomic_inc(&cng_gate_gen);
		wake_up_all(&cng_gate_wq);
		ret = 0;
	} else if (!strncmp(cmd, "block ", 6)) {
		i = match_string(cng_gate_names, CNG_GATE_POINTS, cmd + 6);
		if (i >= 0) {
			atomic_set(&cng_gate_armed[i], 1);
			ret = 0;
		}
	}
	kfree(buf);
	return ret ? ret : count;
}

static ssize_t cng_live_show(struct config_item *item, char *page)
{
	return scnprintf(page, PAGE_SIZE, "%d\n", atomic_read(&cng_live));
}

static ssize_t cng_late_show(struct config_item *item, char *page)
{
	return scnprintf(page, PAGE_SIZE, "%d\n", atomic_read(&cng_late));
}

CONFIGFS_ATTR(cng_, events);
CONFIGFS_ATTR_WO(cng_, ctl);
CONFIGFS_ATTR(cng_, gate);
CONFIGFS_ATTR_RO(cng_, live);
CONFIGFS_ATTR_RO(cng_, late);

static struct configfs_attribute *cng_root_attrs[] = {
	&cng_attr_events,
	&cng_attr_ctl,
	&cng_attr_gate,
	&cng_attr_live,
	&cng_attr_late,
	NULL,
};

static const struct config_item_type cng_root_type = {
	.ct_group_ops	= &cng_node_group_ops,
	.ct_attrs	= cng_root_attrs,
	.ct_owner	= THIS_MODULE,
};

static int cng_subsys_default(const char *name,
			      const struct config_item_type *type,
			      struct cng_obj **out)
{
	struct cng_obj *obj = cng_group_new("", name, type);

	if (!obj)
		return -ENOMEM;
	configfs_add_default_group(&obj->group, &cng_subsys.su_group);
	if (out)
		*out = obj;
	return 0;
}

/* The subsystem's default groups; on failure the caller removes them. */
static int cng_build_defaults(void)
{
	struct cng_obj *fixed, *inner;

	if (cng_subsys_default("items", &cng_items_type, NULL) ||
	    cng_subsys_default("fixed", &cng_fixed_type, &fixed) ||
	    cng_subsys_default("narrow", &cng_narrow_type, NULL) ||
	    cng_subsys_default("wide", &cng_wide_type, NULL))
		return -ENOMEM;
	inner = cng_add_default(fixed, "inner", &cng_fixed_type);
	if (!inner || !cng_add_default(inner, "deep", &cng_fixed_type))
		return -ENOMEM;
	return 0;
}

static int __init cng_init(void)
{
	int ret;

	cng_wide_init();
	config_group_init_type_name(&cng_subsys.su_group, "cng_test",
				    &cng_root_type);
	mutex_init(&cng_subsys.su_mutex);
	ret = cng_build_defaults();
	if (!ret)
		ret = configfs_register_subsystem(&cng_subsys);
	if (ret)
		configfs_remove_default_groups(&cng_subsys.su_group);
	return ret;
}

static void __exit cng_exit(void)
{
	struct cng_obj *obj, *tmp;
	int i;

	mutex_lock(&cng_ctl_lock);
	for (i = 0; i < CNG_MAX_DEPENDS; i++)
		if (cng_depends[i].item)
			cng_undepend_slot(i);
	list_for_each_entry_safe(obj, tmp, &cng_rt_list, rt_entry)
		cng_unregister(obj);
	for (i = 0; i < CNG_MAX_DEFAULTS; i++)
		if (cng_defaults[i])
			configfs_unregister_default_group(cng_defaults[i]);
	mutex_unlock(&cng_ctl_lock);

	configfs_unregister_subsystem(&cng_subsys);
	configfs_remove_default_groups(&cng_subsys.su_group);
	WARN(atomic_read(&cng_live), "cng_test: %d objects never released\n",
	     atomic_read(&cng_live));
}

module_init(cng_init);
module_exit(cng_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng conformance client: every path of the configfs API");
