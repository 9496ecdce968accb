// SPDX-License-Identifier: GPL-2.0
/*
 * A client of configfs-ng's extension (configfs-ng.h): errors that say
 * why, and values that tell when they change. Needs our configfs.ko.
 *
 *   /sys/kernel/config/cng_ext/
 *     items/            mkdir makes an item, unless its name starts
 *                       with "bad" (refused, with the reason)
 *     items/NAME/
 *       rw              0 or 1; anything else is refused with a reason
 *       port            1..65535, likewise
 *       counter         read-only; grows at each write to tick, and says
 *                       so (poll, inotify)
 *       tick            write-only: N adds N to counter, one at a time
 *       trap            write-only test hooks, each failing with a
 *                       reason: "long" (a reason longer than a page),
 *                       "atomic" (given under a spinlock), "log" (the
 *                       store prints a line, and a work item prints one
 *                       meanwhile from another task), "later" (a reason
 *                       given outside the callback, from a work item,
 *                       after the store succeeded), "irq" (a timer's
 *                       interrupt reports on the item while the store
 *                       runs: its reasons are refused, the store's kept)
 */
#include <linux/configfs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <configfs-ng.h>

struct cng_ext_item {
	struct config_item	item;
	spinlock_t		lock;	/* the values below */
	bool			rw;
	u16			port;
	unsigned long		counter;
	struct work_struct	later;
};

static struct cng_ext_item *to_cng_ext_item(struct config_item *item)
{
	return container_of(item, struct cng_ext_item, item);
}

/* "maybe\n" shown as 'maybe': the user's value, without the newline. */
static int cng_ext_len(const char *page, size_t count)
{
	return count && page[count - 1] == '\n' ? count - 1 : count;
}

static ssize_t cng_ext_rw_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", to_cng_ext_item(item)->rw);
}

static ssize_t cng_ext_rw_store(struct config_item *item, const char *page,
				size_t count)
{
	bool rw;

	if (kstrtobool(page, &rw) || (page[0] != '0' && page[0] != '1')) {
		cfgng_report(item, "rw: '%.*s' is not one of 0, 1",
			     cng_ext_len(page, count), page);
		return -EINVAL;
	}
	to_cng_ext_item(item)->rw = rw;
	return count;
}

static ssize_t cng_ext_port_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", to_cng_ext_item(item)->port);
}

static ssize_t cng_ext_port_store(struct config_item *item, const char *page,
				  size_t count)
{
	u16 port;

	if (kstrtou16(page, 0, &port) || !port) {
		cfgng_report(item, "port: '%.*s' is not in 1..65535",
			     cng_ext_len(page, count), page);
		return -EINVAL;
	}
	to_cng_ext_item(item)->port = port;
	return count;
}

static ssize_t cng_ext_counter_show(struct config_item *item, char *page)
{
	return sprintf(page, "%lu\n", READ_ONCE(to_cng_ext_item(item)->counter));
}

CONFIGFS_ATTR(cng_ext_, rw);
CONFIGFS_ATTR(cng_ext_, port);
CONFIGFS_ATTR_RO(cng_ext_, counter);

static ssize_t cng_ext_tick_store(struct config_item *item, const char *page,
				  size_t count)
{
	struct cng_ext_item *ei = to_cng_ext_item(item);
	unsigned int n;

	if (kstrtouint(page, 0, &n) || n > 100000) {
		cfgng_report(item, "tick: '%.*s' is not a count of 0..100000",
			     cng_ext_len(page, count), page);
		return -EINVAL;
	}
	while (n--) {
		spin_lock(&ei->lock);
		ei->counter++;
		/* Any context will do: here, under a spinlock. */
		cfgng_notify(item, &cng_ext_attr_counter);
		spin_unlock(&ei->lock);
	}
	return count;
}

CONFIGFS_ATTR_WO(cng_ext_, tick);

/* A timer that reports on an item from its interrupt, every 50 us. */
struct cng_ext_irq {
	struct hrtimer		timer;
	struct config_item	*item;
	atomic_t		fired;
	atomic_t		refused;
};

static enum hrtimer_restart cng_ext_irq_fn(struct hrtimer *timer)
{
	struct cng_ext_irq *irq = container_of(timer, struct cng_ext_irq,
					       timer);

	if (cfgng_report(irq->item, "from an interrupt") == -EWOULDBLOCK)
		atomic_inc(&irq->refused);
	atomic_inc(&irq->fired);
	hrtimer_forward_now(timer, ns_to_ktime(50 * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

/*
 * Gives its 8 reasons while the timer fires at least 20 times (for at
 * most a second).
 */
static ssize_t cng_ext_trap_irq(struct config_item *item)
{
	unsigned long end = jiffies + HZ;
	struct cng_ext_irq irq = { .item = item };
	int i = 0;

	hrtimer_init_on_stack(&irq.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	irq.timer.function = cng_ext_irq_fn;
	hrtimer_start(&irq.timer, ns_to_ktime(50 * NSEC_PER_USEC),
		      HRTIMER_MODE_REL);
	while ((i < 8 || atomic_read(&irq.fired) < 20) &&
	       time_before(jiffies, end)) {
		/* The store's own reasons, while the interrupts come. */
		if (i < 8) {
			i++;
			cfgng_report(item, "irq: the store's reason %d", i);
		}
		cpu_relax();
	}
	hrtimer_cancel(&irq.timer);
	destroy_hrtimer_on_stack(&irq.timer);
	cfgng_report(item, "irq: the timer fired %d times, %d refused",
		     atomic_read(&irq.fired), atomic_read(&irq.refused));
	return -EIO;
}

static void cng_ext_print_elsewhere(struct work_struct *work)
{
	pr_err("a line from another task\n");
}

static void cng_ext_report_later(struct work_struct *work)
{
	struct cng_ext_item *ei = container_of(work, struct cng_ext_item,
					       later);

	cfgng_report(&ei->item, "reported later, from a work item");
}

static ssize_t cng_ext_trap_store(struct config_item *item, const char *page,
				  size_t count)
{
	struct cng_ext_item *ei = to_cng_ext_item(item);
	struct work_struct elsewhere;
	char *text;
	int ret;

	if (sysfs_streq(page, "long")) {
		text = kmalloc(3 * PAGE_SIZE, GFP_KERNEL);
		if (!text)
			return -ENOMEM;
		memset(text, 'x', 3 * PAGE_SIZE - 1);
		text[3 * PAGE_SIZE - 1] = 0;
		cfgng_report(item, "long: %s", text);
		kfree(text);
		return -E2BIG;
	}
	if (sysfs_streq(page, "atomic")) {
		spin_lock(&ei->lock);
		ret = cfgng_report(item, "atomic: given under a spinlock");
		spin_unlock(&ei->lock);
		return ret ? ret : -EBUSY;
	}
	if (sysfs_streq(page, "log")) {
		INIT_WORK_ONSTACK(&elsewhere, cng_ext_print_elsewhere);
		schedule_work(&elsewhere);
		pr_err("log: the store's own line\n");
		flush_work(&elsewhere);
		destroy_work_on_stack(&elsewhere);
		return -EIO;
	}
	if (sysfs_streq(page, "irq"))
		return cng_ext_trap_irq(item);
	if (sysfs_streq(page, "later")) {
		schedule_work(&ei->later);
		return count;
	}
	return -EINVAL;
}

CONFIGFS_ATTR_WO(cng_ext_, trap);

static struct configfs_attribute *cng_ext_item_attrs[] = {
	&cng_ext_attr_rw,
	&cng_ext_attr_port,
	&cng_ext_attr_counter,
	&cng_ext_attr_tick,
	&cng_ext_attr_trap,
	NULL,
};

static void cng_ext_item_release(struct config_item *item)
{
	struct cng_ext_item *ei = to_cng_ext_item(item);

	cancel_work_sync(&ei->later);
	kfree(ei);
}

static struct configfs_item_operations cng_ext_item_ops = {
	.release	= cng_ext_item_release,
};

static const struct config_item_type cng_ext_item_type = {
	.ct_item_ops	= &cng_ext_item_ops,
	.ct_attrs	= cng_ext_item_attrs,
	.ct_owner	= THIS_MODULE,
};

static struct config_item *cng_ext_make_item(struct config_group *group,
					     const char *name)
{
	struct cng_ext_item *ei;

	if (!strncmp(name, "bad", 3)) {
		cfgng_report(&group->cg_item,
			     "name '%s' is refused: names starting with 'bad' are reserved",
			     name);
		return ERR_PTR(-EINVAL);
	}
	ei = kzalloc(sizeof(*ei), GFP_KERNEL);
	if (!ei)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&ei->lock);
	INIT_WORK(&ei->later, cng_ext_report_later);
	ei->port = 10809;
	config_item_init_type_name(&ei->item, name, &cng_ext_item_type);
	return &ei->item;
}

static struct configfs_group_operations cng_ext_items_ops = {
	.make_item	= cng_ext_make_item,
};

static const struct config_item_type cng_ext_items_type = {
	.ct_group_ops	= &cng_ext_items_ops,
	.ct_owner	= THIS_MODULE,
};

static const struct config_item_type cng_ext_root_type = {
	.ct_owner	= THIS_MODULE,
};

static struct config_group cng_ext_items;

static struct configfs_subsystem cng_ext_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf	= "cng_ext",
			.ci_type	= &cng_ext_root_type,
		},
	},
};

static int __init cng_ext_init(void)
{
	config_group_init(&cng_ext_subsys.su_group);
	mutex_init(&cng_ext_subsys.su_mutex);
	config_group_init_type_name(&cng_ext_items, "items",
				    &cng_ext_items_type);
	configfs_add_default_group(&cng_ext_items, &cng_ext_subsys.su_group);
	return configfs_register_subsystem(&cng_ext_subsys);
}

static void __exit cng_ext_exit(void)
{
	configfs_unregister_subsystem(&cng_ext_subsys);
}

module_init(cng_ext_init);
module_exit(cng_ext_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng sample: errors with reasons, change notification");
