/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection for the guest's C tests, on top of ktap.h: fail
 * the n-th allocation of the calling thread with the per-task
 * /proc/thread-self/fail-nth, GFP_KERNEL allocations included.
 *
 *   fault_setup()   opens this thread's fail-nth and sets failslab and
 *                   fail_page_alloc to fail sleeping allocations and to
 *                   print nothing (their report holds a stack dump with
 *                   "Call Trace:", which the runner takes for a bug);
 *                   1 when the kernel has no fault injection (Debian's)
 *   fault_absent()  the plan of a test skipped for that, and its exit
 *                   status (4: skip)
 *   fault_arm(n)    the n-th fault point of this thread fails
 *   fault_disarm()  what was left of the count: 0 if a fault was injected
 *   fault_end()     sleeping allocations no longer fail
 */
#ifndef FAULT_LIB_H
#define FAULT_LIB_H

#include <sys/mount.h>

#include "guest.h"

#define FAULT_DBG	"/sys/kernel/debug"

/* This thread's fail-nth; each program defines it once, as -1. */
extern int fault_nth_fd;

static inline int fault_set(const char *path, const char *val)
{
	int ret = put(path, val);

	if (ret < 0)
		say("%s: %s", path, ename(-ret));
	return ret;
}

static inline int fault_setup(void)
{
	fault_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fault_nth_fd < 0)
		return 1;
	if (access(FAULT_DBG "/failslab", F_OK))
		mount("none", FAULT_DBG, "debugfs", 0, NULL);
	if (fault_set(FAULT_DBG "/failslab/ignore-gfp-wait", "N") ||
	    fault_set(FAULT_DBG "/failslab/verbose", "0") ||
	    fault_set(FAULT_DBG "/fail_page_alloc/ignore-gfp-wait", "N") ||
	    fault_set(FAULT_DBG "/fail_page_alloc/verbose", "0"))
		return -1;
	return 0;
}

static inline int fault_absent(void)
{
	ktap_skip_all("no /proc/thread-self/fail-nth: no fault injection");
	return 4;
}

static inline void fault_arm(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (pwrite(fault_nth_fd, buf, len, 0) != len)
		say("arming fail-nth %d: %s", n, ename(errno));
}

static inline int fault_disarm(void)
{
	char buf[16] = "";
	int left;

	if (pread(fault_nth_fd, buf, sizeof(buf) - 1, 0) < 0)
		return -1;
	left = atoi(buf);
	if (pwrite(fault_nth_fd, "0", 1, 0) != 1)
		say("disarming fail-nth: %s", ename(errno));
	return left;
}

static inline void fault_end(void)
{
	fault_set(FAULT_DBG "/failslab/ignore-gfp-wait", "Y");
	fault_set(FAULT_DBG "/fail_page_alloc/ignore-gfp-wait", "Y");
}

#endif /* FAULT_LIB_H */
