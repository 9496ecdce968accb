// SPDX-License-Identifier: GPL-2.0
/*
 * The fault campaign's table of committable items, run as commit_faults:
 * a commit, an un-commit and a commit the client refuses, each run with
 * its 1st, 2nd, ... allocation failed (fault_lib.h) until a round
 * injects nothing, on a disk of cng_commit (samples/cng_commit.c) made
 * fresh for each round.
 *
 * Whatever fails, the item is where it was or where it was going, whole
 * (its attributes and its default group opts/), in exactly one of
 * pending/ and live/; the client's count of commits and un-commits moved
 * exactly when the item did; a failed call fails with its own errno or
 * ENOMEM; a refused commit leaves a record that is this round's whole,
 * or none. Some round of each must have had an allocation failed and
 * still succeeded or failed cleanly. The runner's kmemleak scan and log
 * checks do the rest.
 *
 * Ours only: stock has no committable items.
 */
#define _GNU_SOURCE
#include <sys/stat.h>
#include <sys/xattr.h>

#include "campaign.h"

#define CC	CFS "/cng_commit"
#define PENDING	CC "/disks/pending/f"
#define LIVE	CC "/disks/live/f"
#define XA	"user.configfs.error"
#define MAX_N	500

static char rec[16384];

struct commit_op {
	const char *name;
	bool from_live;		/* the round starts with the disk live */
	bool ready;		/* ready's value: 0 makes the client refuse */
	int refused;		/* the errno of a plain call; 0: succeeds */
};

static const struct commit_op ops[] = {
	{ "commit", false, true, 0 },
	{ "uncommit", true, true, 0 },
	{ "refused_commit", false, false, EAGAIN },
};

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* "commits N" and "uncommits N" of the client's stats, as one number. */
static long moves(void)
{
	char buf[256];
	long c = -1, u = -1;

	if (slurp(CC "/stats", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "commits %ld\nuncommits %ld", &c, &u) != 2)
		return -1;
	return c * 1000000 + u;
}

/* The disk is at @dir, whole, and nowhere else; its state says @state. */
static bool disk_at(const char *dir, const char *other, const char *state)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/state", dir);
	if (!is_dir(dir) || is_dir(other) || slurp(path, buf, sizeof(buf)) < 0)
		return false;
	buf[strcspn(buf, "\n")] = 0;
	snprintf(path, sizeof(path), "%s/opts", dir);
	return !strcmp(buf, state) && is_dir(path);
}

static int setup(const struct commit_op *op)
{
	if (mkdir(PENDING, 0755) < 0 ||
	    put(PENDING "/ready", op->ready ? "1" : "0") < 0)
		return -1;
	if (op->from_live && rename(PENDING, LIVE) < 0)
		return -1;
	return 0;
}

static int teardown(void)
{
	if (is_dir(LIVE) && rename(LIVE, PENDING) < 0)
		return -1;
	return rmdir(PENDING);
}

/* One round: the call made with its @n-th allocation failed. */
static bool round_clean(const struct commit_op *op, int n, bool *injected,
			int *ret_out)
{
	const char *from = op->from_live ? LIVE : PENDING;
	const char *to = op->from_live ? PENDING : LIVE;
	long before, after;
	bool moved, counted, ok = true;
	ssize_t len;
	int ret, left;

	before = moves();
	fault_arm(n);
	ret = rename(from, to) < 0 ? errno : 0;
	left = fault_disarm();
	*injected = !left;
	*ret_out = ret;
	after = moves();

	moved = !ret;
	if (ret && ret != ENOMEM && ret != op->refused) {
		say("%s n=%d: failed with %s", op->name, n, ename(ret));
		ok = false;
	}
	if (!ret && op->refused) {
		say("%s n=%d: succeeded, the client should refuse", op->name, n);
		ok = false;
	}
	if (!disk_at(moved ? to : from, moved ? from : to,
		     (moved ? !op->from_live : op->from_live) ? "live" :
		     "pending")) {
		say("%s n=%d: %s: the disk is not where it should be, whole",
		    op->name, n, ename(ret));
		ok = false;
	}
	counted = after != before;
	if (counted != moved) {
		say("%s n=%d: the client's count moved %ld -> %ld, the disk %s",
		    op->name, n, before, after, moved ? "did" : "did not");
		ok = false;
	}
	if (op->refused && ret) {
		len = getxattr(from, XA, rec, sizeof(rec) - 1);
		if (len >= 0) {
			rec[len] = 0;
			if (!strstr(rec, "commit: -") ||
			    (ret == op->refused &&
			     !strstr(rec, "reason: f is not ready") &&
			     !strstr(rec, "reason: (not kept: out of memory)")) ||
			    rec[len - 1] != '\n') {
				say("%s n=%d: record not whole:\n%s", op->name,
				    n, rec);
				ok = false;
			}
		}
	}
	return ok;
}

static bool campaign(const struct commit_op *op)
{
	int n, ret, points = 0, survived = 0;
	bool clean = true, injected;

	for (n = 1; n <= MAX_N && clean; n++) {
		if (setup(op) < 0) {
			say("%s n=%d: setup: %s", op->name, n, ename(errno));
			return false;
		}
		clean = round_clean(op, n, &injected, &ret);
		if (injected) {
			points++;
			if (ret != ENOMEM)
				survived++;
		}
		if (teardown() < 0) {
			say("%s n=%d: teardown: %s", op->name, n, ename(errno));
			return false;
		}
		if (!injected)
			break;
	}
	if (n > MAX_N) {
		say("%s: still injecting after %d points", op->name, MAX_N);
		clean = false;
	}
	say("%s: %d injection points, %d ended as without one: %s", op->name,
	    points, survived, clean ? "all clean" : "NOT all clean");
	if (clean && !points) {
		say("%s: no allocation was failed", op->name);
		clean = false;
	}
	return clean;
}

static const char *commit_op_name(unsigned int i)
{
	return ops[i].name;
}

static bool commit_op_run(unsigned int i)
{
	return campaign(&ops[i]);
}

static int commit_load(void)
{
	return sh("insmod /lib/modules/cng/cng_commit.ko");
}

static int commit_unload(void)
{
	teardown();
	return sh("rmmod cng_commit") ? 1 : 0;
}

const struct fault_table fault_commit_table = {
	.prog = "commit_faults",
	.stock_differs = "no committable items",
	.n_ops = ARRAY_SIZE(ops),
	.op_name = commit_op_name,
	.op_run = commit_op_run,
	.load = commit_load,
	.unload = commit_unload,
};
