// SPDX-License-Identifier: GPL-2.0
/*
 * fakenbd's configfs face: the committable group /sys/kernel/config/fakenbd
 * (configfs-ng.h), whose items are disks, with the helpers' attributes
 * (configfs-ng-helpers.h, configfs_helpers.ko).
 *
 *   fakenbd/
 *     pending/NAME/   mkdir makes a disk's settings; rmdir drops them
 *       target        the server: a.b.c.d[:port] or [IPv6][:port], an
 *                     IPv6 address alone; port 10809 when none is given
 *       device        the export's name on the server (empty: its default)
 *       rw            1 (default) writable, 0 read-only
 *       timeout       seconds, 0..3600 (default 30): the connection and
 *                     handshake together, and each request; 0 waits
 *       dead_timeout  seconds, 0..3600 (default 0): how long a lost
 *                     connection is made again for, the requests out
 *                     kept and sent again; 0 fails them at once
 *       connections   1..16 (default 1): connections to the server, a
 *                     hardware queue each, one per CPU at most; more
 *                     than 1 needs a server that allows it
 *                     (NBD_FLAG_CAN_MULTI_CONN)
 *       connect       write-only: 1 connects and runs the handshake now,
 *                     0 closes that connection; see below
 *       disconnect    write-only: 1 ends a live disk's connection, as
 *                     nbd-client -d: its I/O fails, the disk stays
 *       size, connected, errors, disk, last_error, sysfs
 *                     read-only status: 0 or empty while pending
 *                     (connected: 1 once connect made a connection)
 *     live/NAME/      rename(2) from pending/ adds the disk /dev/NAME
 *                     (commit), connecting first unless connect did; back
 *                     to pending/ removes it
 *
 * A commit runs inside rename(2), under the VFS's locks of pending/ and
 * live/: while it waits on a server, no mkdir, lookup or other commit in
 * either goes on. Writing 1 to connect does that waiting before the
 * commit, in the writer alone, killable; the commit then only adds the
 * disk (whose partitions its first opener reads). A commit without it
 * connects itself, as a restore does.
 *
 * The settings are refused (EBUSY, with a reason) while live or while
 * connect holds a connection: the driver cannot change a running one.
 * connected and errors notify (cfgng_notify()) when the driver's status
 * hook says they changed.
 */

#include <linux/blkdev.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include <configfs-ng-helpers.h>
#include <configfs-ng.h>

#include "internal.h"

/* Longest export name taken; the NBD protocol allows 4096 bytes. */
#define FAKENBD_EXPORT_MAX	255

/**
 * struct fakenbd_item - a disk's configfs item
 * @item: its item, in pending/ or live/
 * @target: the server; port 0 means FAKENBD_DEFAULT_PORT
 * @device: the export's name
 * @rw: writable
 * @timeout: seconds
 * @dead_timeout: seconds
 * @connections: how many
 * @lock: serialises commit, un-commit, connect, disconnect and the status
 *	reads against each other; sleeps, held across fakenbd_start(),
 *	never across a wait for the server (connect) nor across
 *	fakenbd_stop(), which may wait for an attempt to connect again
 * @dev: the running disk while live, else NULL; written under @lock, read
 *	without it by the status hook (which cannot run once
 *	fakenbd_stop() returned). Freed only under @lock, after it is
 *	cleared: whoever holds @lock and finds it may use it.
 * @stopping: an un-commit is in fakenbd_stop() on @dev; under @lock. The
 *	status reads and disconnect go on meanwhile.
 * @session: the connection a write of 1 to connect made, which the next
 *	commit takes over; under @lock
 * @connecting: a write to connect is waiting for the server; under @lock
 * @frozen: a commit or connect began, a session is held, or the item is
 *	live: the settings are refused
 * @seen_connected: fakenbd_connected() when the hook last looked
 * @seen_errors: fakenbd_errors() likewise
 * @busy_why: the reason a setting is refused while live
 *
 * The settings (@target to @connections) are the helpers' (CFGNG_ATTR_*()),
 * under the item's lock (cfgng_item_lock()). The item is freed by its release,
 * which stops a disk still live (only the module's exit can get there).
 */
struct fakenbd_item {
	struct config_item	item;
	struct sockaddr_storage	target;
	char			device[FAKENBD_EXPORT_MAX + 1];
	bool			rw;
	unsigned int		timeout;
	unsigned int		dead_timeout;
	unsigned int		connections;
	struct mutex		lock;	/* @dev; commit against un-commit */
	struct fakenbd_dev	*dev;
	bool			stopping;
	struct fakenbd_session	*session;
	bool			connecting;
	bool			frozen;
	int			seen_connected;
	atomic_long_t		seen_errors;
	char			busy_why[96];
};

static int fakenbd_item_settable(struct config_item *item,
				 const struct configfs_attribute *attr,
				 const void *val, const char **why);

CFGNG_ATTR_ADDR(fakenbd_item, item, target, CFGNG_PORT_OPTIONAL,
		.check = fakenbd_item_settable);
CFGNG_ATTR_STR(fakenbd_item, item, device, .check = fakenbd_item_settable);
CFGNG_ATTR_BOOL(fakenbd_item, item, rw, .check = fakenbd_item_settable);
CFGNG_ATTR_UINT(fakenbd_item, item, timeout,
		CFGNG_RANGE(0, FAKENBD_MAX_TIMEOUT),
		.check = fakenbd_item_settable);
CFGNG_ATTR_UINT(fakenbd_item, item, dead_timeout,
		CFGNG_RANGE(0, FAKENBD_MAX_TIMEOUT),
		.check = fakenbd_item_settable);
CFGNG_ATTR_UINT(fakenbd_item, item, connections,
		CFGNG_RANGE(1, FAKENBD_MAX_CONNECTIONS),
		.check = fakenbd_item_settable);

static ssize_t fakenbd_item_connect_store(struct config_item *item,
					  const char *page, size_t len);
static ssize_t fakenbd_item_disconnect_store(struct config_item *item,
					     const char *page, size_t len);
static ssize_t fakenbd_item_size_show(struct config_item *item, char *page);
static ssize_t fakenbd_item_connected_show(struct config_item *item,
					   char *page);
static ssize_t fakenbd_item_errors_show(struct config_item *item, char *page);
static ssize_t fakenbd_item_disk_show(struct config_item *item, char *page);
static ssize_t fakenbd_item_last_error_show(struct config_item *item,
					    char *page);
static ssize_t fakenbd_item_sysfs_show(struct config_item *item, char *page);

CONFIGFS_ATTR_WO(fakenbd_item_, connect);
CONFIGFS_ATTR_WO(fakenbd_item_, disconnect);
CONFIGFS_ATTR_RO(fakenbd_item_, size);
CONFIGFS_ATTR_RO(fakenbd_item_, connected);
CONFIGFS_ATTR_RO(fakenbd_item_, errors);
CONFIGFS_ATTR_RO(fakenbd_item_, disk);
CONFIGFS_ATTR_RO(fakenbd_item_, last_error);
CONFIGFS_ATTR_RO(fakenbd_item_, sysfs);

static int fakenbd_item_init(struct config_group *group,
			     struct config_item *item);
static void fakenbd_item_release(struct config_item *item);

CFGNG_CHILD(fakenbd_item, item,
	    CFGNG_ATTRS(&fakenbd_item_attr_target,
			&fakenbd_item_attr_device,
			&fakenbd_item_attr_rw,
			&fakenbd_item_attr_timeout,
			&fakenbd_item_attr_dead_timeout,
			&fakenbd_item_attr_connections,
			&fakenbd_item_attr_connect,
			&fakenbd_item_attr_disconnect,
			&fakenbd_item_attr_size,
			&fakenbd_item_attr_connected,
			&fakenbd_item_attr_errors,
			&fakenbd_item_attr_disk,
			&fakenbd_item_attr_last_error,
			&fakenbd_item_attr_sysfs),
	    .init = fakenbd_item_init,
	    .release = fakenbd_item_release);

static int fakenbd_item_settable(struct config_item *item,
				 const struct configfs_attribute *attr,
				 const void *val, const char **why)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);

	if (!READ_ONCE(fi->frozen))
		return 0;
	*why = READ_ONCE(fi->dev) ? fi->busy_why :
	       "is refused while connect holds a connection: write 0 to connect first";
	return -EBUSY;
}

static int fakenbd_item_init(struct config_group *group,
			     struct config_item *item)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);

	fi->rw = true;
	fi->timeout = FAKENBD_DEFAULT_TIMEOUT;
	fi->connections = 1;
	mutex_init(&fi->lock);
	snprintf(fi->busy_why, sizeof(fi->busy_why),
		 "is refused while live: disconnect first (mv live/%s pending/)",
		 config_item_name(item));
	return 0;
}

/*
 * The module's exit is the only way here with a disk: mkdir pins the
 * module, rmdir of a live item is EBUSY, and an open disk pins the module
 * too, so the stop cannot find it open.
 */
static void fakenbd_item_release(struct config_item *item)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	char why[FAKENBD_REASON_LEN];

	if (fi->dev) {
		if (WARN_ON_ONCE(fakenbd_stop(fi->dev, why, sizeof(why))))
			pr_err("%s: %s\n", config_item_name(item), why);
		else
			fakenbd_free(fi->dev);
	}
	fakenbd_session_close(fi->session);
	mutex_destroy(&fi->lock);
}

/*
 * The driver's hook: may run in atomic context and in several threads at
 * once. It says that something changed, not what; the last values seen
 * tell. Before fakenbd_start() returned there is no device to ask yet:
 * both attributes notify then.
 */
static void fakenbd_item_status_changed(void *data)
{
	struct fakenbd_item *fi = data;
	struct fakenbd_dev *dev = READ_ONCE(fi->dev);
	unsigned long errors = dev ? fakenbd_errors(dev) : 0;
	int connected = dev ? fakenbd_connected(dev) : 1;

	if (xchg(&fi->seen_connected, connected) != connected || !dev)
		cfgng_notify(&fi->item, &fakenbd_item_attr_connected);
	if (atomic_long_xchg(&fi->seen_errors, errors) != errors || !dev)
		cfgng_notify(&fi->item, &fakenbd_item_attr_errors);
}

/*
 * The settings, as fakenbd_start() takes them. @export is the caller's
 * buffer of FAKENBD_EXPORT_MAX + 1 bytes.
 */
static void fakenbd_item_config(struct fakenbd_item *fi,
				struct fakenbd_config *config, char *export)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&config->addr;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&config->addr;

	/*
	 * The settings under the item's lock, which each store holds
	 * across its check: a store either is in the field now or sees
	 * @frozen.
	 */
	cfgng_item_lock(&fi->item);
	config->addr = fi->target;
	strscpy(export, fi->device, FAKENBD_EXPORT_MAX + 1);
	config->rw = fi->rw;
	config->timeout = fi->timeout;
	config->dead_timeout = fi->dead_timeout;
	config->connections = fi->connections;
	cfgng_item_unlock(&fi->item);
	if (config->addr.ss_family == AF_INET && !sin->sin_port)
		sin->sin_port = htons(FAKENBD_DEFAULT_PORT);
	if (config->addr.ss_family == AF_INET6 && !sin6->sin6_port)
		sin6->sin6_port = htons(FAKENBD_DEFAULT_PORT);
	config->export = export;
	config->name = config_item_name(&fi->item);
	config->status_changed = fakenbd_item_status_changed;
	config->data = fi;
}

/*
 * connect: 1 connects to the server and runs the handshake, here, in the
 * writer, without the item's lock, so that a commit of this item, or
 * anything else in the tree, never waits on the server; the settings are
 * refused from the start of it. 0 closes that connection. Equal values
 * succeed: 1 with a connection held, 0 with none.
 */
static ssize_t fakenbd_item_connect_store(struct config_item *item,
					  const char *page, size_t len)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	struct fakenbd_session *session;
	struct fakenbd_config config = { };
	char export[FAKENBD_EXPORT_MAX + 1];
	char why[FAKENBD_REASON_LEN] = "";
	bool on;
	int ret;

	ret = kstrtobool(page, &on);
	if (ret) {
		cfgng_report(item, "connect: '%.*s' is not 1 or 0",
			     (int)min_t(size_t, len, 16), page);
		return ret;
	}
	mutex_lock(&fi->lock);
	if (fi->dev || fi->connecting) {
		const char *why_busy = fi->dev ? "the disk is live" :
						 "a connect is under way";

		mutex_unlock(&fi->lock);
		cfgng_report(item, "connect: %s", why_busy);
		return -EBUSY;
	}
	if (!on || fi->session) {
		session = on ? NULL : fi->session;
		if (!on) {
			fi->session = NULL;
			WRITE_ONCE(fi->frozen, false);
		}
		mutex_unlock(&fi->lock);
		if (session) {
			fakenbd_session_close(session);
			cfgng_notify(item, &fakenbd_item_attr_connected);
		}
		return len;
	}
	fi->connecting = true;
	WRITE_ONCE(fi->frozen, true);
	fakenbd_item_config(fi, &config, export);
	mutex_unlock(&fi->lock);

	session = fakenbd_session_open(&config, why, sizeof(why));

	mutex_lock(&fi->lock);
	fi->connecting = false;
	if (IS_ERR(session))
		WRITE_ONCE(fi->frozen, false);
	else
		fi->session = session;
	mutex_unlock(&fi->lock);
	if (IS_ERR(session)) {
		cfgng_report(item, "%s", why[0] ? why : "cannot connect");
		return PTR_ERR(session);
	}
	cfgng_notify(item, &fakenbd_item_attr_connected);
	return len;
}

/*
 * disconnect: 1 ends a live disk's connection (fakenbd_disconnect()); the
 * disk stays, failing its I/O, until the un-commit removes it.
 */
static ssize_t fakenbd_item_disconnect_store(struct config_item *item,
					     const char *page, size_t len)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	bool on;
	int ret;

	ret = kstrtobool(page, &on);
	if (ret || !on) {
		cfgng_report(item, "disconnect: only 1 is taken");
		return -EINVAL;
	}
	ret = mutex_lock_killable(&fi->lock);
	if (ret)
		return ret;
	if (!fi->dev) {
		mutex_unlock(&fi->lock);
		cfgng_report(item, "disconnect: the disk is not live");
		return -ENOTCONN;
	}
	fakenbd_disconnect(fi->dev);
	mutex_unlock(&fi->lock);
	return len;
}

/*
 * rename(2) of pending/NAME to live/NAME: add the disk, on the connection
 * connect made, or on one made here.
 */
static int fakenbd_item_commit(struct config_item *item)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	struct fakenbd_config config = { };
	char export[FAKENBD_EXPORT_MAX + 1];
	char why[FAKENBD_REASON_LEN] = "";
	struct fakenbd_session *session;
	struct fakenbd_dev *dev;

	mutex_lock(&fi->lock);
	if (WARN_ON_ONCE(fi->dev)) {
		mutex_unlock(&fi->lock);
		return -EALREADY;
	}
	if (fi->connecting) {
		mutex_unlock(&fi->lock);
		cfgng_report(item, "a connect is under way: commit when it is done");
		return -EBUSY;
	}
	/* Refuse settings from here on; the copy below sees every store. */
	WRITE_ONCE(fi->frozen, true);
	fakenbd_item_config(fi, &config, export);
	WRITE_ONCE(fi->seen_connected, 1);
	atomic_long_set(&fi->seen_errors, 0);
	session = fi->session;
	fi->session = NULL;
	dev = fakenbd_start(&config, session, why, sizeof(why));
	if (IS_ERR(dev)) {
		WRITE_ONCE(fi->frozen, false);
		mutex_unlock(&fi->lock);
		cfgng_report(item, "%s", why[0] ? why : "cannot start the disk");
		return PTR_ERR(dev);
	}
	WRITE_ONCE(fi->dev, dev);
	mutex_unlock(&fi->lock);
	cfgng_notify(item, &fakenbd_item_attr_connected);
	return 0;
}

/*
 * rename(2) of live/NAME to pending/NAME: remove the disk, disconnect. The
 * stop never waits on the server (it refuses while the disk is open or
 * being opened or closed), but may wait for an attempt to connect again:
 * it runs without the item's lock, so that the status reads go on. The
 * device is freed under the lock, once no one can be using it.
 */
static int fakenbd_item_uncommit(struct config_item *item)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	char why[FAKENBD_REASON_LEN] = "";
	struct fakenbd_dev *dev;
	int ret;

	mutex_lock(&fi->lock);
	dev = fi->dev;
	if (WARN_ON_ONCE(!dev || fi->stopping)) {
		mutex_unlock(&fi->lock);
		return -ENXIO;
	}
	fi->stopping = true;
	mutex_unlock(&fi->lock);

	ret = fakenbd_stop(dev, why, sizeof(why));

	mutex_lock(&fi->lock);
	fi->stopping = false;
	if (!ret) {
		WRITE_ONCE(fi->dev, NULL);
		WRITE_ONCE(fi->frozen, false);
		fakenbd_free(dev);
	}
	mutex_unlock(&fi->lock);
	if (ret) {
		cfgng_report(item, "%s: unmount or close it first", why);
		return ret;
	}
	cfgng_notify(item, &fakenbd_item_attr_connected);
	return 0;
}

static ssize_t fakenbd_item_size_show(struct config_item *item, char *page)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	ssize_t len;

	mutex_lock(&fi->lock);
	len = sprintf(page, "%llu\n", fi->dev ? fakenbd_size(fi->dev) : 0);
	mutex_unlock(&fi->lock);
	return len;
}

static ssize_t fakenbd_item_connected_show(struct config_item *item,
					   char *page)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	ssize_t len;

	mutex_lock(&fi->lock);
	len = sprintf(page, "%d\n", fi->dev ? fakenbd_connected(fi->dev) :
		      !!fi->session);
	mutex_unlock(&fi->lock);
	return len;
}

static ssize_t fakenbd_item_errors_show(struct config_item *item, char *page)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	ssize_t len;

	mutex_lock(&fi->lock);
	len = sprintf(page, "%lu\n", fi->dev ? fakenbd_errors(fi->dev) : 0);
	mutex_unlock(&fi->lock);
	return len;
}

static ssize_t fakenbd_item_disk_show(struct config_item *item, char *page)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	ssize_t len;

	mutex_lock(&fi->lock);
	len = sprintf(page, "%s\n", fi->dev ? fakenbd_disk_name(fi->dev) : "");
	mutex_unlock(&fi->lock);
	return len;
}

static ssize_t fakenbd_item_last_error_show(struct config_item *item,
					    char *page)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	char reason[FAKENBD_REASON_LEN] = "";

	mutex_lock(&fi->lock);
	if (fi->dev)
		fakenbd_last_error(fi->dev, reason, sizeof(reason));
	mutex_unlock(&fi->lock);
	return sprintf(page, "%s\n", reason);
}

/*
 * The disk's directory in sysfs. configfs links only to configfs items,
 * so this is an attribute that names it, not a symlink.
 */
static ssize_t fakenbd_item_sysfs_show(struct config_item *item, char *page)
{
	struct fakenbd_item *fi = to_fakenbd_item(item);
	char *path = NULL;
	ssize_t len;

	mutex_lock(&fi->lock);
	/* While stopping, the disk may be gone from sysfs already. */
	if (fi->dev && !fi->stopping)
		path = kobject_get_path(&disk_to_dev(fakenbd_gendisk(fi->dev))->kobj,
					GFP_KERNEL);
	mutex_unlock(&fi->lock);
	if (path)
		len = scnprintf(page, PAGE_SIZE, "/sys%s\n", path);
	else
		len = sprintf(page, "\n");
	kfree(path);
	return len;
}

CFGNG_GROUP(fakenbd_group, fakenbd_item, NULL);
CFGNG_SUBSYSTEM(fakenbd, "fakenbd", &fakenbd_group_type);

static struct cfgng_committable fakenbd_committable = {
	.group_type	= &fakenbd_group_type,
	.commit_item	= fakenbd_item_commit,
	.uncommit_item	= fakenbd_item_uncommit,
};

/**
 * fakenbd_configfs_init() - register the committable subsystem "fakenbd"
 *
 * Context: module init.
 * Return: 0, or configfs_register_subsystem()'s errno.
 */
int fakenbd_configfs_init(void)
{
	int ret;

	cfgng_committable_register(&fakenbd_committable);
	ret = cfgng_subsystem_register(&fakenbd_subsys);
	if (ret)
		cfgng_committable_unregister(&fakenbd_committable);
	return ret;
}

/**
 * fakenbd_configfs_exit() - unregister it; live disks are stopped
 *
 * Context: module exit.
 */
void fakenbd_configfs_exit(void)
{
	configfs_unregister_subsystem(&fakenbd_subsys);
	cfgng_committable_unregister(&fakenbd_committable);
}
