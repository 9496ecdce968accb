// SPDX-License-Identifier: GPL-2.0
/*
 * The fault campaign's table of the extension's allocations
 * (configfs-ng.h), run as ext_faults: the error record, the node's
 * extension that holds it, the kernel log's path, a reason given in the
 * callback (under a spinlock too), and a change notice. Each operation is a call of the
 * sample client cng_ext on an item made fresh for each round (so that
 * the first record's allocations are reached every time), run with its
 * 1st, 2nd, ... allocation failed (fault_lib.h) until a round injects
 * nothing.
 *
 * A refused call must still fail, with its own errno or with ENOMEM
 * (configfs's own allocations before the client runs), leave the item's
 * files as they were, and leave a record that is either this round's,
 * whole, or none: never an older one, never a cut one. The plain round
 * must leave this round's record. Some round must end refused with no
 * record (proof that the record's allocations were failed and survived).
 * The change notice's allocation is atomic and its loss is silent: the
 * tick call must succeed or fail with ENOMEM, count once when it
 * succeeds, and be told to inotify unless an injection took the notice;
 * some round must lose it (proof that its allocation was failed). The
 * runner's kmemleak scan and log checks do the rest.
 *
 * Allocations made from work items (a reason given later, the notice's
 * delivery) are another task's and out of fail-nth's reach.
 *
 * Ours only: stock has no extension.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/inotify.h>
#include <sys/xattr.h>

#include "campaign.h"
#include "ext_lib.h"

#define ITEM	ITEMS "/ff"
#define XA	"user.configfs.error"
#define MAX_N	500
#define LOST	"\nreason: (not kept: out of memory)\n"

static char rec[16384];
static int round_no;

struct ext_op {
	const char *name;
	int (*call)(void);
	int refused;		/* the errno a plain call fails with; 0: none */
	const char *record;	/* the file whose record is checked */
	/*
	 * printf formats of round_no: in the record's first line, and the
	 * reason line a refusal by the client adds
	 */
	const char *token;
	const char *want;
};

static int sys(int ret)
{
	return ret < 0 ? -errno : 0;
}

static char value[64];

static int write_value(const char *file, const char *fmt)
{
	snprintf(value, sizeof(value), fmt, round_no);
	return put(file, value);
}

static int refused_write(void)
{
	return write_value(ITEM "/rw", "maybe%d\n");
}

static int refused_mkdir(void)
{
	snprintf(value, sizeof(value), ITEMS "/bad%d", round_no);
	return sys(mkdir(value, 0755));
}

static int atomic_reason(void)
{
	return put(ITEM "/trap", "atomic\n");
}

static int add_one(void)
{
	return put(ITEM "/tick", "1\n");
}

static const struct ext_op ops[] = {
	{
		.name = "refused_write",
		.call = refused_write,
		.refused = EINVAL,
		.record = ITEM "/rw",
		.token = "'maybe%d'",
		.want = "reason: rw: 'maybe%d' is not one of 0, 1\n",
	},
	{
		.name = "refused_mkdir",
		.call = refused_mkdir,
		.refused = EINVAL,
		.record = ITEMS,
		.token = " bad%d: ",
		.want = "reason: name 'bad%d' is refused: names starting with 'bad' are reserved\n",
	},
	{
		.name = "reason_under_a_spinlock",
		.call = atomic_reason,
		.refused = EBUSY,
		.record = ITEM "/trap",
		.token = " trap 'atomic': ",
		.want = "reason: atomic: given under a spinlock\n",
	},
	{
		.name = "notify",
		.call = add_one,
	},
};

/* The item's files that can be read, one line each. */
static void item_values(char *out, size_t size)
{
	static const char * const files[] = { "rw", "port", "counter" };
	char path[128], buf[64];
	size_t pos = 0;
	unsigned int i;
	ssize_t n;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), ITEM "/%s", files[i]);
		n = slurp(path, buf, sizeof(buf));
		pos += snprintf(out + pos, size - pos, "%s=%.*s", files[i],
				n < 0 ? 0 : (int)n, buf);
	}
}

/* Does @line end with errno @err, as "-22" or as "-EINVAL"? */
static bool ends_with_errno(const char *line, size_t len, int err)
{
	char end[2][32];
	size_t n;
	int i;

	snprintf(end[0], sizeof(end[0]), ": -%d", err);
	snprintf(end[1], sizeof(end[1]), ": -%s", ename(err));
	for (i = 0; i < 2; i++) {
		n = strlen(end[i]);
		if (len >= n && !memcmp(line + len - n, end[i], n))
			return true;
	}
	return false;
}

/*
 * The record of @op's file after a round that failed with @err: 1 this
 * round's (its first line names the round's value and ends with @err; a
 * refusal by the client has the whole reason, or, when @injected, says
 * that it was not kept), 0 none, -1 anything else.
 */
static int record_state(const struct ext_op *op, int err, bool injected)
{
	char token[64], want[256];
	const char *nl;
	ssize_t n;

	n = getxattr(op->record, XA, rec, sizeof(rec) - 1);
	if (n < 0 && errno == ENODATA)
		return 0;
	if (n < 0) {
		say("%s: n=%d: getxattr: %s", op->name, round_no,
		    ename(errno));
		return -1;
	}
	rec[n] = 0;
	snprintf(token, sizeof(token), op->token, round_no);
	snprintf(want, sizeof(want), op->want, round_no);
	nl = strchr(rec, '\n');
	if (nl && memmem(rec, nl - rec, token, strlen(token)) &&
	    ends_with_errno(rec, nl - rec, err) &&
	    (err != op->refused || strstr(nl + 1, want) ||
	     (injected && strstr(nl, LOST))))
		return 1;
	say("%s: n=%d: the record is not of this round's %s:", op->name,
	    round_no, ename(err));
	say("%s", rec);
	return -1;
}

/*
 * Was IN_MODIFY told on @ifd (a watch on counter: the write to tick is
 * told on tick) within a few seconds, by the work item?
 */
static bool modify_told(int ifd)
{
	struct pollfd pfd = { .fd = ifd, .events = POLLIN };
	struct inotify_event events[64];

	if (poll(&pfd, 1, 3000) != 1)
		return false;
	return read(ifd, events, sizeof(events)) > 0;
}

/* Tallies of one operation's campaign. */
struct tally {
	int points;	/* rounds that injected */
	int unrecorded;	/* refused as planned, with no record */
	int untold;	/* ticked, but no IN_MODIFY */
};

/* A refusal's round: its errno, its record, the values unchanged. */
static bool refusal_round(const struct ext_op *op, int ret, bool injected,
			  const char *before, const char *after,
			  struct tally *t)
{
	bool clean = true;
	int state;

	if (ret != -op->refused && (!injected || ret != -ENOMEM)) {
		say("%s: n=%d: fails with %s, not %s%s", op->name, round_no,
		    ename(-ret), ename(op->refused),
		    injected ? " or ENOMEM" : "");
		return false;
	}
	state = record_state(op, -ret, injected);
	say("%s: n=%d: %s, %s", op->name, round_no, ename(-ret),
	    state > 0 ? "recorded" : state ? "bad record" : "no record");
	if (state < 0) {
		clean = false;
	} else if (!injected && state != 1) {
		say("%s: the plain round leaves no record", op->name);
		clean = false;
	}
	t->unrecorded += injected && ret == -op->refused && !state;
	if (strcmp(before, after)) {
		say("%s: n=%d: values were %s, are %s", op->name, round_no,
		    before, after);
		clean = false;
	}
	return clean;
}

/* A tick's round: counted once and told, or ENOMEM and nothing. */
static bool tick_round(const struct ext_op *op, int ret, bool injected,
		       const char *after, bool told, struct tally *t)
{
	bool counted = strstr(after, "counter=1\n");

	if (ret && ret != -ENOMEM) {
		say("%s: n=%d: fails with %s", op->name, round_no,
		    ename(-ret));
		return false;
	}
	if (counted != !ret) {
		say("%s: n=%d: returns %d, then %s", op->name, round_no, ret,
		    after);
		return false;
	}
	if (injected && !ret)
		say("%s: n=%d: absorbed, %s", op->name, round_no,
		    told ? "told" : "untold");
	if (!ret && !told) {
		/* An injected failure may lose the notice; nothing else. */
		if (!injected) {
			say("%s: the plain round tells no change", op->name);
			return false;
		}
		t->untold++;
	}
	return true;
}

static bool sweep(const struct ext_op *op, struct tally *sum)
{
	char before[256], after[256];
	struct tally t = { 0 };
	bool clean = true, told;
	int n, ret, left, ifd;

	for (n = 1; n <= MAX_N && clean; n++) {
		round_no = n;
		ifd = -1;
		if (mkdir(ITEM, 0755) < 0) {
			say("%s: n=%d: mkdir: %s", op->name, n, ename(errno));
			return false;
		}
		if (!op->refused) {
			ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
			if (ifd < 0 ||
			    inotify_add_watch(ifd, ITEM "/counter", IN_MODIFY) < 0)
				say("%s: inotify: %s", op->name, ename(errno));
		}
		item_values(before, sizeof(before));
		fault_arm(n);
		ret = op->call();
		left = fault_disarm();
		item_values(after, sizeof(after));
		if (left)
			say("%s: the plain round (n=%d) returns %s", op->name,
			    n, ret ? ename(-ret) : "0");
		else
			t.points++;

		if (op->refused) {
			clean = refusal_round(op, ret, !left, before, after,
					      &t);
		} else {
			told = ifd >= 0 && modify_told(ifd);
			clean = tick_round(op, ret, !left, after, told, &t);
		}
		if (ifd >= 0)
			close(ifd);
		if (rmdir(ITEM) < 0) {
			say("%s: n=%d: rmdir: %s", op->name, n, ename(errno));
			clean = false;
		}
		if (left)
			break;
	}
	if (n > MAX_N) {
		say("%s: still injecting after %d points", op->name, MAX_N);
		clean = false;
	}
	say("%s: %d injection points, %d refused without a record, %d changes untold: %s",
	    op->name, t.points, t.unrecorded, t.untold,
	    clean ? "all clean" : "NOT all clean");
	sum->unrecorded += t.unrecorded;
	sum->untold += t.untold;
	return clean;
}

/*
 * Sweeps until one reaches the extension's own allocations: where the
 * n-th point falls moves a little from round to round (slab refills, the
 * rate-limited log line, kmemleak's pool), so one sweep may step over
 * them. Five sweeps must reach them.
 */
static bool campaign(const struct ext_op *op)
{
	struct tally sum = { 0 };
	int i;

	for (i = 0; i < 5; i++) {
		if (!sweep(op, &sum))
			return false;
		if (op->refused ? sum.unrecorded : sum.untold)
			return true;
	}
	say("%s: %s", op->name, op->refused ?
	    "no round lost its record: the record's allocations were not reached" :
	    "no change went untold: the notice's allocation was not reached");
	return false;
}

static const char *ext_op_name(unsigned int i)
{
	return ops[i].name;
}

static bool ext_op_run(unsigned int i)
{
	return campaign(&ops[i]);
}

static int ext_unload(void)
{
	rmdir(ITEM);
	return sh("rmmod cng_ext") ? 1 : 0;
}

const struct fault_table fault_ext_table = {
	.prog = "ext_faults",
	.stock_differs = "no extension",
	.n_ops = ARRAY_SIZE(ops),
	.op_name = ext_op_name,
	.op_run = ext_op_run,
	.load = ext_load,
	.unload = ext_unload,
};
