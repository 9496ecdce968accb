/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the tests of configfs-ng.h's helper layer (helpers_*.c), on top of
 * ktap.h. The helper samples load on both modules; a refusal's
 * reason goes to the error record on ours and to the kernel log on stock.
 *
 *   helpers_load(name)      insmod the helpers' configfs_helpers.ko, then
 *                           the sample NAME; 0 or the shell's status
 *   helpers_unload(name)    rmmod NAME, then configfs_helpers
 *   is(path, want)          PATH reads exactly WANT (prints both if not)
 *   refused(path, value, err, reason)
 *                           writing VALUE to PATH fails with ERR; on ours
 *                           the record of PATH gives REASON as its reason
 *   logged(reason)          on stock, the kernel log has "PATH: REASON"
 *                           (the helpers' form, rate-limited)
 */
#ifndef HELPERS_LIB_H
#define HELPERS_LIB_H

#define _GNU_SOURCE
#include <sys/xattr.h>

#include "guest.h"

static inline int helpers_load(const char *name)
{
	return sh("insmod /lib/modules/cng/configfs_helpers.ko") ?:
	       sh("insmod /lib/modules/cng/%s.ko", name);
}

static inline int helpers_unload(const char *name)
{
	return sh("rmmod %s && rmmod configfs_helpers", name);
}

static inline bool is(const char *path, const char *want)
{
	char got[4096];
	ssize_t n = slurp(path, got, sizeof(got));

	if (n >= 0 && !strcmp(got, want))
		return true;
	say("%s: read %s '%s', want '%s'", path, n < 0 ? ename(-n) : "",
	    n < 0 ? "" : got, want);
	return false;
}

/* On ours, the record of PATH has "reason: REASON\n". */
static inline bool reason_is(const char *path, const char *reason)
{
	char rec[8192], want[1024];
	ssize_t n;

	if (on_stock())
		return true;
	n = getxattr(path, "user.configfs.error", rec, sizeof(rec) - 1);
	if (n < 0) {
		say("%s: no record (%s)", path, ename(errno));
		return false;
	}
	rec[n] = 0;
	snprintf(want, sizeof(want), "\nreason: %s\n", reason);
	if (strstr(rec, want))
		return true;
	say("%s: record lacks 'reason: %s':", path, reason);
	printf("%s", rec);
	return false;
}

static inline bool refused(const char *path, const char *value, int err,
			   const char *reason)
{
	int ret = put(path, value);

	if (ret != -err) {
		say("write '%s' to %s: %s, want %s", value, path,
		    ret ? ename(-ret) : "done", ename(err));
		return false;
	}
	return reason_is(path, reason);
}

/* On stock, the kernel log has the line the helpers print there. */
static inline bool logged(const char *path, const char *reason)
{
	char line[1024];

	if (!on_stock())
		return true;
	snprintf(line, sizeof(line), "%s: %s", path, reason);
	return !sh("dmesg | grep -qF \"%s\"", line);
}

#endif /* HELPERS_LIB_H */
