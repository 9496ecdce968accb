// SPDX-License-Identifier: GPL-2.0
/*
 * The fault campaign's table of configfs's own operations (issue 6), run
 * as fault_campaign, on cng_test.
 *
 * For each operation class that allocates, fail its 1st, 2nd, ... fault
 * point with the per-task /proc/thread-self/fail-nth until a call runs
 * without an injection. After each injected failure the call must return
 * a clean errno and leave the tree (names, link targets, attribute values
 * of the part it touches, and cng_test's count of live objects) exactly as
 * before. A call that succeeds despite the injection (the failure was
 * absorbed, e.g. by kmemleak's own bookkeeping) must leave the tree a
 * plain successful call leaves, and is undone. An operation must reach
 * at least the number of injection points recorded beside it (fewer means
 * fault injection no longer reaches it), and not every injection may be
 * absorbed. At the end a plain retry must succeed. The runner scans
 * kmemleak after the test.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include "campaign.h"

#define MNT2		"/tmp/cfs2"
#define SNAP_MAX	(256 * 1024)
#define MAX_N		2000

static int round_no;		/* the n of the running call */

/* Appends a line to a snapshot. */
static void snap_add(char *snap, const char *fmt, ...)
{
	size_t len = strlen(snap);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(snap + len, SNAP_MAX - len, fmt, ap);
	va_end(ap);
}

static unsigned int fnv(const char *p, size_t len)
{
	unsigned int h = 2166136261u;

	while (len--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char * const *)a, *(char * const *)b);
}

/* The tree under @dir: names, link targets, readable attribute values. */
static void snap_walk(char *snap, const char *dir, int depth)
{
	static char val[16384];
	char *names[256];
	struct dirent *de;
	int i, n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		snap_add(snap, "%s: %s\n", dir, ename(errno));
		return;
	}
	while ((de = readdir(d)) && n < 256) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strcmp(de->d_name, "events") || !strcmp(de->d_name, "wide"))
			continue;
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (i = 0; i < n; i++) {
		char path[512];
		struct stat st;
		ssize_t got;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (lstat(path, &st) < 0) {
			snap_add(snap, "%s ?%s\n", path, ename(errno));
		} else if (S_ISLNK(st.st_mode)) {
			got = readlink(path, val, sizeof(val) - 1);
			val[got < 0 ? 0 : got] = '\0';
			snap_add(snap, "%s -> %s\n", path, val);
		} else if (S_ISDIR(st.st_mode)) {
			snap_add(snap, "%s/ %o\n", path, st.st_mode & 07777);
			if (depth > 0)
				snap_walk(snap, path, depth - 1);
		} else if (st.st_mode & 0444) {
			got = slurp(path, val, sizeof(val));
			if (got < 0)
				snap_add(snap, "%s ?%s\n", path, ename(-got));
			else
				snap_add(snap, "%s %zd %08x\n", path, got,
					 fnv(val, got));
			if (got > 0 && got < 64)
				snap_add(snap, "  %s", val);
		} else {
			snap_add(snap, "%s %o\n", path, st.st_mode & 07777);
		}
		free(names[i]);
	}
}

struct op {
	const char *name;
	const char *root;		/* the part of the tree snapshotted */
	int (*setup)(void);		/* untracked preparation */
	int (*call)(void);		/* 0 or -errno */
	int (*undo)(void);		/* undoes a call that succeeded */
	void (*cleanup)(void);
	bool restorable;		/* undo restores a tree a failure changed */
	const char *stock_skip;		/* set when stock is known to differ */
	/*
	 * The fewest injection points a run may reach: about four fifths
	 * of the fewer that ours and stock reached on the debug kernel when
	 * recorded (beside it; runs differ by one or two, as slab refills
	 * come and go). Fewer means fault injection stopped reaching the
	 * operation; more is fine. Record the new counts when a change
	 * moves them.
	 */
	int min_points;
};

static void snapshot(const struct op *op, char *snap)
{
	snap[0] = '\0';
	snap_add(snap, "live %d\n", read_int(T "/live"));
	snap_add(snap, "late %d\n", read_int(T "/late"));
	snap_walk(snap, op->root, 3);
}

/* Prints the first line where two snapshots differ. */
static void snap_diff(const char *a, const char *b)
{
	size_t i = 0, start = 0;
	int line = 1;

	while (a[i] && a[i] == b[i]) {
		if (a[i] == '\n') {
			line++;
			start = i + 1;
		}
		i++;
	}
	a += start;
	b += start;
	say("  tree differs at line %d: before '%.*s', after '%.*s'", line,
	    (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
}

static int sys(int ret)
{
	return ret < 0 ? -errno : 0;
}

/* mkdir of an item */
static int mkdir_item_call(void)
{
	return sys(mkdir(T "/items/fi", 0755));
}

static int mkdir_item_undo(void)
{
	return sys(rmdir(T "/items/fi"));
}

/* mkdir of a group with default groups: NODE/, NODE/sub/, NODE/sub/deep/ */
static int mkdir_group_call(void)
{
	return sys(mkdir(T "/fg", 0755));
}

static int mkdir_group_undo(void)
{
	return sys(rmdir(T "/fg"));
}

/* mkdir of a group in a group, by the parent's make_group */
static int nested_setup(void)
{
	return sys(mkdir(T "/fp", 0755));
}

static int nested_call(void)
{
	return sys(mkdir(T "/fp/child", 0755));
}

static int nested_undo(void)
{
	return sys(rmdir(T "/fp/child"));
}

static void nested_cleanup(void)
{
	rmdir(T "/fp");
}

/* rmdir of a group with default groups */
static int rmdir_setup(void)
{
	return sys(mkdir(T "/fr", 0755));
}

static int rmdir_call(void)
{
	return sys(rmdir(T "/fr"));
}

static int rmdir_undo(void)
{
	return sys(mkdir(T "/fr", 0755));
}

static void rmdir_cleanup(void)
{
	rmdir(T "/fr");
}

/* rmdir of an item */
static int rmdir_item_setup(void)
{
	return sys(mkdir(T "/items/fri", 0755));
}

static int rmdir_item_call(void)
{
	return sys(rmdir(T "/items/fri"));
}

static int rmdir_item_undo(void)
{
	return sys(mkdir(T "/items/fri", 0755));
}

static void rmdir_item_cleanup(void)
{
	rmdir(T "/items/fri");
}

/* symlink from a NODE to an item */
static int link_setup(void)
{
	return sys(mkdir(T "/items/lt", 0755)) ?: sys(mkdir(T "/fl", 0755));
}

static int link_call(void)
{
	return sys(symlink(T "/items/lt", T "/fl/lnk"));
}

static int link_undo(void)
{
	return sys(unlink(T "/fl/lnk"));
}

static void link_cleanup(void)
{
	unlink(T "/fl/lnk");
	rmdir(T "/fl");
	rmdir(T "/items/lt");
}

/* open of a text attribute, one write, close */
static int text_setup(void)
{
	return sys(mkdir(T "/items/ft", 0755)) ?:
		put(T "/items/ft/data", "before\n");
}

static int text_call(void)
{
	char buf[64];
	int fd, len, ret = 0;

	fd = open(T "/items/ft/data", O_WRONLY);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "value %d\n", round_no);
	if (write(fd, buf, len) != len)
		ret = -errno;
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

static int text_undo(void)
{
	return put(T "/items/ft/data", "before\n");
}

static void text_cleanup(void)
{
	rmdir(T "/items/ft");
}

/* open of a binary attribute, writes, close (which delivers) */
static char blob[6000];

static int bin_put(const char *what, size_t len)
{
	int fd, ret = 0;
	size_t off;

	fd = open(T "/items/fb/blob", O_WRONLY);
	if (fd < 0)
		return -errno;
	for (off = 0; off < len && !ret; off += 1000) {
		memset(blob, what[off / 1000 % strlen(what)], sizeof(blob));
		if (write(fd, blob, len - off < 1000 ? len - off : 1000) < 0)
			ret = -errno;
	}
	if (close(fd) < 0 && !ret)
		ret = -errno;
	return ret;
}

static int bin_setup(void)
{
	return sys(mkdir(T "/items/fb", 0755)) ?: bin_put("b", 100);
}

static int bin_call(void)
{
	return bin_put("xyz", 5000);
}

static int bin_undo(void)
{
	return bin_put("b", 100);
}

static void bin_cleanup(void)
{
	rmdir(T "/items/fb");
}

/* a second mount of configfs */
static int mount2_setup(void)
{
	return sys(mkdir(MNT2, 0755));
}

static int mount2_call(void)
{
	return sys(mount("none", MNT2, "configfs", 0, NULL));
}

static int mount2_undo(void)
{
	return sys(umount(MNT2));
}

static void mount2_cleanup(void)
{
	umount(MNT2); rmdir(MNT2);
}

/* umount of /sys/kernel/config, then mount again (the call) */
static int remount_setup(void)
{
	return sys(umount(CFS));
}

static int remount_call(void)
{
	return sys(mount("none", CFS, "configfs", 0, NULL));
}

static int remount_undo(void)
{
	return sys(umount(CFS));
}

static void remount_cleanup(void)
{
	if (access(T, F_OK))
		mount("none", CFS, "configfs", 0, NULL);
}

/* runtime registration: "register NAME" to cng_test's ctl */
static int register_call(void)
{
	return put(T "/ctl", "register frg");
}

static int register_undo(void)
{
	return put(T "/ctl", "unregister frg");
}

static const struct op ops[] = {
	{
		.name = "mkdir_item",
		.min_points = 10,	/* ours 13, stock 39 */
		.root = T "/items",
		.call = mkdir_item_call,
		.undo = mkdir_item_undo,
	},
	{
		.name = "mkdir_group_with_default_groups",
		.min_points = 19,	/* ours 24-25, stock 62-63 */
		.root = T,
		.call = mkdir_group_call,
		.undo = mkdir_group_undo,
	},
	{
		.name = "mkdir_nested_group",
		.min_points = 19,	/* ours 24-25, stock 62 */
		.root = T "/fp",
		.setup = nested_setup,
		.call = nested_call,
		.undo = nested_undo,
		.cleanup = nested_cleanup,
	},
	{
		.name = "rmdir_item",
		.min_points = 2,	/* ours 2, stock 2 */
		.root = T "/items",
		.setup = rmdir_item_setup,
		.call = rmdir_item_call,
		.undo = rmdir_item_undo,
		.cleanup = rmdir_item_cleanup,
	},
	{
		.name = "rmdir_group",
		.min_points = 2,	/* ours 2, stock 2 */
		.root = T,
		.setup = rmdir_setup,
		.call = rmdir_call,
		.undo = rmdir_undo,
		.cleanup = rmdir_cleanup,
	},
	{
		.name = "symlink",
		.min_points = 11,	/* ours 18, stock 14-15 */
		.root = T "/fl",
		.setup = link_setup,
		.call = link_call,
		.undo = link_undo,
		.cleanup = link_cleanup,
	},
	{
		.name = "text_attr_write",
		.min_points = 6,	/* ours 8-9, stock 10 */
		.root = T "/items/ft",
		.setup = text_setup,
		.call = text_call,
		.undo = text_undo,
		.cleanup = text_cleanup,
	},
	{
		.name = "bin_attr_write",
		.min_points = 39,	/* ours 49, stock 53 */
		.root = T "/items/fb",
		.setup = bin_setup,
		.call = bin_call,
		.undo = bin_undo,
		.cleanup = bin_cleanup,
		.restorable = true,
		/* docs/differences.md, row 15 */
		.stock_skip = "close delivers the buffer after an ENOMEM write",
	},
	{
		.name = "mount_second",
		.min_points = 16,	/* ours 20-21, stock 20 */
		.root = T,
		.setup = mount2_setup,
		.call = mount2_call,
		.undo = mount2_undo,
		.cleanup = mount2_cleanup,
	},
	{
		.name = "umount_mount",
		.min_points = 16,	/* ours 39-40, stock 20 */
		.root = T,
		.setup = remount_setup,
		.call = remount_call,
		.undo = remount_undo,
		.cleanup = remount_cleanup,
	},
	{
		.name = "register_group",
		.min_points = 17,	/* ours 22-23, stock 40 */
		.root = T,
		.call = register_call,
		.undo = register_undo,
	},
};

static char before[SNAP_MAX], after[SNAP_MAX], base[SNAP_MAX];
static char plain[SNAP_MAX];

/* The tree a call starts from: for umount_mount, the one before umount. */
static void snapshot_start(const struct op *op, char *snap)
{
	if (op->call == remount_call) {
		snap[0] = '\0';
		snap_add(snap, "mounted %d\n", !access(T, F_OK));
		return;
	}
	snapshot(op, snap);
}

/*
 * After a call that absorbed an injection left the tree @absorbed and was
 * undone: a plain call of the same round (the text attribute's value
 * depends on it) must leave the same tree. Undoes that call too.
 */
static bool same_as_plain_call(const struct op *op, const char *absorbed)
{
	int ret = op->call();

	if (ret < 0) {
		say("%s: n=%d: a plain call fails: %s", op->name, round_no,
		    ename(-ret));
		return false;
	}
	snapshot(op, plain);
	ret = op->undo();
	if (ret < 0) {
		say("%s: n=%d: undo of a plain call fails: %s", op->name,
		    round_no, ename(-ret));
		return false;
	}
	if (!strcmp(plain, absorbed))
		return true;
	say("%s: n=%d: absorbed, but leaves another tree than a plain call",
	    op->name, round_no);
	snap_diff(plain, absorbed);
	return false;
}

static bool campaign(const struct op *op)
{
	int n, ret, left, points = 0, absorbed = 0;
	bool clean = true;

	ret = op->setup ? op->setup() : 0;
	if (ret < 0) {
		say("%s: setup fails: %s", op->name, ename(-ret));
		return false;
	}
	if (op->call == remount_call) {
		/* setup unmounted it; the baseline comes from a mount */
		remount_call();
		snapshot(op, base);
		remount_undo();
	}
	for (n = 1; n <= MAX_N; n++) {
		snapshot_start(op, before);
		fault_arm(n);
		round_no = n;
		ret = op->call();
		left = fault_disarm();
		if (left != 0) {
			if (ret < 0) {
				say("%s: the call fails with no injection: %s",
				    op->name, ename(-ret));
				clean = false;
			}
			break;
		}
		points++;
		if (!ret) {
			absorbed++;
			snapshot(op, after);
			ret = op->undo();
			if (ret < 0) {
				say("%s: n=%d: undo fails: %s", op->name, n,
				    ename(-ret));
				clean = false;
				break;
			}
			if (!same_as_plain_call(op, after)) {
				clean = false;
				break;
			}
			continue;
		}
		if (ret != -ENOMEM) {
			say("%s: n=%d: fails with %s, not ENOMEM", op->name, n,
			    ename(-ret));
			clean = false;
		}
		snapshot_start(op, after);
		if (strcmp(before, after)) {
			say("%s: n=%d: the failed call changed the tree",
			    op->name, n);
			snap_diff(before, after);
			clean = false;
			if (!op->restorable || op->undo() < 0)
				break;
		}
	}
	if (n > MAX_N) {
		say("%s: still injecting after %d points", op->name, MAX_N);
		clean = false;
	}
	if (points < op->min_points) {
		say("%s: %d injection points, fewer than the %d recorded",
		    op->name, points, op->min_points);
		clean = false;
	}
	if (points && absorbed >= points) {
		say("%s: every one of %d injections absorbed", op->name,
		    points);
		clean = false;
	}
	/* The last call ran without an injection; undo it, retry plainly. */
	if (clean) {
		if (op->call == remount_call) {
			snapshot(op, after);
			if (strcmp(base, after)) {
				say("%s: mount shows another tree", op->name);
				snap_diff(base, after);
				clean = false;
			}
		}
		ret = op->undo();
		if (ret < 0) {
			say("%s: undo fails: %s", op->name, ename(-ret));
			clean = false;
		}
		snapshot_start(op, before);
		round_no = 0;
		ret = op->call();
		if (ret < 0) {
			say("%s: a plain retry fails: %s", op->name,
			    ename(-ret));
			clean = false;
		} else if (op->undo() < 0) {
			say("%s: undo after the plain retry fails", op->name);
			clean = false;
		}
		snapshot_start(op, after);
		if (strcmp(before, after)) {
			say("%s: call and undo do not restore the tree",
			    op->name);
			snap_diff(before, after);
			clean = false;
		}
	}
	if (op->cleanup)
		op->cleanup();
	say("%s: %d injection points (%d absorbed), %s", op->name, points,
	    absorbed, clean ? "all clean" : "NOT all clean");
	return clean;
}

static const char *tree_op_name(unsigned int i)
{
	return ops[i].name;
}

static bool tree_op_run(unsigned int i)
{
	return campaign(&ops[i]);
}

static const char *tree_op_stock_skip(unsigned int i)
{
	return ops[i].stock_skip;
}

static int tree_unload(void)
{
	if (access(T, F_OK))
		mount("none", CFS, "configfs", 0, NULL);
	sh("rmmod cng_test");
	return 0;
}

const struct fault_table fault_tree_table = {
	.prog = "fault_campaign",
	.n_ops = ARRAY_SIZE(ops),
	.op_name = tree_op_name,
	.op_run = tree_op_run,
	.op_stock_skip = tree_op_stock_skip,
	.load = cng_load,
	.unload = tree_unload,
};
