// SPDX-License-Identifier: GPL-2.0
/*
 * Test fixture, never shipped: deliberately commits kernel bugs on request,
 * so that the test runner can prove it notices them.
 *
 *   echo 1 > /sys/module/cng_fault/parameters/warn    a WARN with a trace
 *   echo 1 > /sys/module/cng_fault/parameters/oops    a NULL dereference
 *   echo 1 > /sys/module/cng_fault/parameters/uaf     a read after kfree()
 *   echo 1 > /sys/module/cng_fault/parameters/abba    two mutexes taken in
 *                                                     both orders
 *   echo 1 > /sys/module/cng_fault/parameters/leak    memory allocated and
 *                                                     forgotten
 *
 * uaf, abba and leak are only caught by a debug kernel (KASAN, lockdep,
 * kmemleak); on Debian's kernel they pass silently, so only the debug
 * self-test uses them.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>

/* Never set: the oops parameter reads through it. */
static int *cng_fault_nowhere;

static DEFINE_MUTEX(cng_fault_lock_a);
static DEFINE_MUTEX(cng_fault_lock_b);

static int cng_fault_warn_set(const char *val, const struct kernel_param *kp)
{
	WARN(1, "cng_fault: WARN requested through the warn parameter\n");
	return 0;
}

static int cng_fault_oops_set(const char *val, const struct kernel_param *kp)
{
	pr_info("dereferencing NULL as requested\n");
	return *READ_ONCE(cng_fault_nowhere);
}

static int cng_fault_uaf_set(const char *val, const struct kernel_param *kp)
{
	int *freed = kmalloc(sizeof(*freed), GFP_KERNEL);
	int seen;

	if (!freed)
		return -ENOMEM;
	*freed = 1;
	kfree(freed);
	seen = READ_ONCE(*freed);
	pr_info("read %d after kfree as requested\n", seen);
	return 0;
}

/*
 * A few objects of different sizes, filled so that kmemleak's report of
 * them is recognisable, and no pointer to any of them kept anywhere.
 */
static int cng_fault_leak_set(const char *val, const struct kernel_param *kp)
{
	static const size_t sizes[] = { 32, 96, 200, 1000 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		char *lost = kmalloc(sizes[i], GFP_KERNEL);

		if (!lost)
			return -ENOMEM;
		memset(lost, 'L', sizes[i]);
	}
	pr_info("leaked %zu objects as requested\n", ARRAY_SIZE(sizes));
	return 0;
}

/* Sequential, so it never deadlocks, but lockdep sees the cycle. */
static int cng_fault_abba_set(const char *val, const struct kernel_param *kp)
{
	mutex_lock(&cng_fault_lock_a);
	mutex_lock(&cng_fault_lock_b);
	mutex_unlock(&cng_fault_lock_b);
	mutex_unlock(&cng_fault_lock_a);

	mutex_lock(&cng_fault_lock_b);
	mutex_lock(&cng_fault_lock_a);
	mutex_unlock(&cng_fault_lock_a);
	mutex_unlock(&cng_fault_lock_b);
	pr_info("took two mutexes in both orders as requested\n");
	return 0;
}

static const struct kernel_param_ops cng_fault_warn_ops = {
	.set = cng_fault_warn_set,
};

static const struct kernel_param_ops cng_fault_oops_ops = {
	.set = cng_fault_oops_set,
};

static const struct kernel_param_ops cng_fault_uaf_ops = {
	.set = cng_fault_uaf_set,
};

static const struct kernel_param_ops cng_fault_abba_ops = {
	.set = cng_fault_abba_set,
};

static const struct kernel_param_ops cng_fault_leak_ops = {
	.set = cng_fault_leak_set,
};

module_param_cb(warn, &cng_fault_warn_ops, NULL, 0200);
MODULE_PARM_DESC(warn, "Write anything to trigger a WARN");
module_param_cb(oops, &cng_fault_oops_ops, NULL, 0200);
MODULE_PARM_DESC(oops, "Write anything to dereference NULL");
module_param_cb(uaf, &cng_fault_uaf_ops, NULL, 0200);
MODULE_PARM_DESC(uaf, "Write anything to read freed memory");
module_param_cb(abba, &cng_fault_abba_ops, NULL, 0200);
MODULE_PARM_DESC(abba, "Write anything to take two mutexes in both orders");
module_param_cb(leak, &cng_fault_leak_ops, NULL, 0200);
MODULE_PARM_DESC(leak, "Write anything to leak a few allocations");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng test fixture that triggers kernel bugs on request");
