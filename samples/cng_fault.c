// SPDX-License-Identifier: GPL-2.0
/*
 * Test fixture, never shipped: deliberately commits kernel bugs on request,
 * so that the test runner can prove it notices them.
 *
 *   echo 1 > /sys/module/cng_fault/parameters/warn    a WARN with a trace
 *   echo 1 > /sys/module/cng_fault/parameters/oops    a NULL dereference
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

/* Never set: the oops parameter reads through it. */
static int *cng_fault_nowhere;

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

static const struct kernel_param_ops cng_fault_warn_ops = {
	.set = cng_fault_warn_set,
};

static const struct kernel_param_ops cng_fault_oops_ops = {
	.set = cng_fault_oops_set,
};

module_param_cb(warn, &cng_fault_warn_ops, NULL, 0200);
MODULE_PARM_DESC(warn, "Write anything to trigger a WARN");
module_param_cb(oops, &cng_fault_oops_ops, NULL, 0200);
MODULE_PARM_DESC(oops, "Write anything to dereference NULL");

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("configfs-ng test fixture that triggers kernel bugs on request");
