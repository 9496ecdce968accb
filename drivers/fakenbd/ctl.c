// SPDX-License-Identifier: GPL-2.0
/*
 * TEMPORARY control face, until fakenbd's configfs face exists (issue 18;
 * it needs the committable items of issue 17). Delete this file, its line
 * in Kbuild and its two calls in main.c then.
 *
 * /sys/kernel/debug/fakenbd/ctl takes one command a write:
 *   start target=ADDR[:PORT] [export=NAME] [rw=0|1] [timeout=S] [name=DISK]
 *   stop DISK
 * A refused write returns the errno; reading ctl gives the last command's
 * result, "ok DISK" or "error: REASON". /sys/kernel/debug/fakenbd/status
 * lists the disks started here, one a line.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "internal.h"

#define FAKENBD_CTL_MAX		16

/**
 * struct fakenbd_ctl_disk - a disk started through the control file
 * @dev: the device, or NULL for a free slot; under fakenbd_ctl_mutex
 * @notified: how many times its status hook ran
 */
struct fakenbd_ctl_disk {
	struct fakenbd_dev *dev;
	atomic_t notified;
};

/*
 * Protects fakenbd_ctl_disks[].dev and fakenbd_ctl_result; outside every
 * other fakenbd lock; sleeps, held across fakenbd_start() and
 * fakenbd_stop().
 */
static DEFINE_MUTEX(fakenbd_ctl_mutex);
static struct fakenbd_ctl_disk fakenbd_ctl_disks[FAKENBD_CTL_MAX];
static char fakenbd_ctl_result[256];
static struct dentry *fakenbd_ctl_dir;

static void fakenbd_ctl_status_changed(void *data)
{
	struct fakenbd_ctl_disk *disk = data;

	atomic_inc(&disk->notified);
}

static int fakenbd_ctl_start_locked(char *args, char *why, size_t why_len)
{
	struct fakenbd_config config = { .export = "", .name = "", .rw = true };
	struct fakenbd_ctl_disk *disk = NULL;
	struct fakenbd_dev *dev;
	char *arg, *value;
	int i, ret;

	lockdep_assert_held(&fakenbd_ctl_mutex);
	for (i = 0; i < FAKENBD_CTL_MAX && !disk; i++)
		if (!fakenbd_ctl_disks[i].dev)
			disk = &fakenbd_ctl_disks[i];
	if (!disk) {
		snprintf(why, why_len, "too many disks");
		return -ENOSPC;
	}
	while ((arg = strsep(&args, " \t\n"))) {
		if (!*arg)
			continue;
		value = strchr(arg, '=');
		if (!value) {
			snprintf(why, why_len, "bad argument '%s'", arg);
			return -EINVAL;
		}
		*value++ = '\0';
		if (!strcmp(arg, "target")) {
			ret = fakenbd_parse_target(value, &config.addr, why,
						   why_len);
		} else if (!strcmp(arg, "export")) {
			config.export = value;
			ret = 0;
		} else if (!strcmp(arg, "name")) {
			config.name = value;
			ret = 0;
		} else if (!strcmp(arg, "rw")) {
			ret = kstrtobool(value, &config.rw);
		} else if (!strcmp(arg, "timeout")) {
			ret = kstrtouint(value, 10, &config.timeout);
		} else {
			ret = -EINVAL;
		}
		if (ret) {
			if (ret != -EINVAL || !*why)
				snprintf(why, why_len, "bad argument '%s'",
					 arg);
			return ret;
		}
	}
	atomic_set(&disk->notified, 0);
	config.status_changed = fakenbd_ctl_status_changed;
	config.data = disk;
	dev = fakenbd_start(&config, why, why_len);
	if (IS_ERR(dev))
		return PTR_ERR(dev);
	disk->dev = dev;
	snprintf(fakenbd_ctl_result, sizeof(fakenbd_ctl_result), "ok %s",
		 fakenbd_disk_name(dev));
	return 0;
}

static int fakenbd_ctl_stop_locked(char *name, char *why, size_t why_len)
{
	struct fakenbd_ctl_disk *disk;
	int i, ret;

	lockdep_assert_held(&fakenbd_ctl_mutex);
	name = strim(name);
	for (i = 0; i < FAKENBD_CTL_MAX; i++) {
		disk = &fakenbd_ctl_disks[i];
		if (!disk->dev || strcmp(fakenbd_disk_name(disk->dev), name))
			continue;
		ret = fakenbd_stop(disk->dev, why, why_len);
		if (ret)
			return ret;
		disk->dev = NULL;
		snprintf(fakenbd_ctl_result, sizeof(fakenbd_ctl_result),
			 "ok %s", name);
		return 0;
	}
	snprintf(why, why_len, "no disk '%s'", name);
	return -ENOENT;
}

static ssize_t fakenbd_ctl_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char why[160] = "";
	char *buf, *args;
	int ret;

	if (count > 1024)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	args = strim(buf);
	mutex_lock(&fakenbd_ctl_mutex);
	if (!strncmp(args, "start ", 6)) {
		ret = fakenbd_ctl_start_locked(args + 6, why, sizeof(why));
	} else if (!strncmp(args, "stop ", 5)) {
		ret = fakenbd_ctl_stop_locked(args + 5, why, sizeof(why));
	} else {
		snprintf(why, sizeof(why), "unknown command");
		ret = -EINVAL;
	}
	if (ret) {
		snprintf(fakenbd_ctl_result, sizeof(fakenbd_ctl_result),
			 "error: %s", why[0] ? why : "failed");
		pr_info("ctl: %s\n", fakenbd_ctl_result);
	}
	mutex_unlock(&fakenbd_ctl_mutex);
	kfree(buf);
	return ret ? ret : count;
}

static int fakenbd_ctl_show(struct seq_file *m, void *v)
{
	mutex_lock(&fakenbd_ctl_mutex);
	seq_printf(m, "%s\n", fakenbd_ctl_result);
	mutex_unlock(&fakenbd_ctl_mutex);
	return 0;
}

static int fakenbd_ctl_open(struct inode *inode, struct file *file)
{
	return single_open(file, fakenbd_ctl_show, NULL);
}

static const struct file_operations fakenbd_ctl_fops = {
	.owner = THIS_MODULE,
	.open = fakenbd_ctl_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = fakenbd_ctl_write,
};

static int fakenbd_status_show(struct seq_file *m, void *v)
{
	struct fakenbd_ctl_disk *disk;
	char reason[FAKENBD_REASON_LEN];
	int i;

	mutex_lock(&fakenbd_ctl_mutex);
	for (i = 0; i < FAKENBD_CTL_MAX; i++) {
		disk = &fakenbd_ctl_disks[i];
		if (!disk->dev)
			continue;
		fakenbd_last_error(disk->dev, reason, sizeof(reason));
		seq_printf(m, "%s size=%llu ro=%d connected=%d errors=%lu notified=%d reason=%s\n",
			   fakenbd_disk_name(disk->dev),
			   fakenbd_size(disk->dev),
			   fakenbd_read_only(disk->dev),
			   fakenbd_connected(disk->dev),
			   fakenbd_errors(disk->dev),
			   atomic_read(&disk->notified), reason);
	}
	mutex_unlock(&fakenbd_ctl_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(fakenbd_status);

/**
 * fakenbd_ctl_init() - create the temporary debugfs control files
 *
 * Context: module init.
 * Return: 0; debugfs failures are not errors.
 */
int fakenbd_ctl_init(void)
{
	fakenbd_ctl_dir = debugfs_create_dir("fakenbd", NULL);
	debugfs_create_file("ctl", 0600, fakenbd_ctl_dir, NULL,
			    &fakenbd_ctl_fops);
	debugfs_create_file("status", 0400, fakenbd_ctl_dir, NULL,
			    &fakenbd_status_fops);
	return 0;
}

/**
 * fakenbd_ctl_exit() - remove the files and stop the disks started there
 *
 * Open disks pin the module (the block device's owner), so every stop
 * succeeds here.
 *
 * Context: module exit.
 */
void fakenbd_ctl_exit(void)
{
	char why[160];
	int i;

	debugfs_remove_recursive(fakenbd_ctl_dir);
	mutex_lock(&fakenbd_ctl_mutex);
	for (i = 0; i < FAKENBD_CTL_MAX; i++) {
		if (!fakenbd_ctl_disks[i].dev)
			continue;
		if (fakenbd_stop(fakenbd_ctl_disks[i].dev, why, sizeof(why)))
			pr_err("ctl: %s\n", why);
		fakenbd_ctl_disks[i].dev = NULL;
	}
	mutex_unlock(&fakenbd_ctl_mutex);
}
