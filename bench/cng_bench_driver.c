// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark driver, run in the guest: times directory and attribute
 * operations one system call at a time and prints one CSV row per figure.
 *
 * Usage: cng_bench_driver [options] TEST DIR
 *   TEST   items     mkdir N items in DIR, getdents, stat warm and cold,
 *                    open+read+close of one attribute cold and warm,
 *                    open+write+close, rmdir
 *          trees     mkdir and rmdir of N groups with default groups
 *          memory    kernel memory per item after mkdir, after drop_caches
 *          treemem   the same for trees, per group (the tree and children)
 *          sysfs     open+read+close of the file DIR, N times
 *          cursors   mkdir of N items in DIR, then readdir of DIR with K
 *                    (-k) other open directories of DIR stopped part way
 *                    through their listing, and with none: a whole
 *                    listing, and the next getdents of a stopped one
 *          paired    mkdir of N items in DIR, each followed at once by a
 *                    bare directory in REF (-p), then rmdir of both the
 *                    same way (with -f, attribute reads and writes in
 *                    between): ratios and growth taken between operations
 *                    a few microseconds apart, so that the host's slow
 *                    and fast minutes weigh on both sides alike
 *   -n N        objects (default 1000)
 *   -s SYSTEM   label of the rows: stock, ours or tmpfs (default stock)
 *   -r ROUND    label of the rows (default 1)
 *   -a NAME     the attribute read and written in each item (default a0)
 *   -A COUNT    attributes per item, for the rows; with -t, files made
 *   -c COUNT    children per tree, for the rows; with -t, directories made
 *   -t          DIR is a plain file system: make the attribute files and
 *               the children ourselves, outside the timed operations
 *   -b SECONDS  stop mkdir after this long (default: never); the rows
 *               then report how many items were made
 *   -p REF      the reference directory of paired (on tmpfs)
 *   -f FILE     with paired: also open+read+close (cold, warm) and
 *               open+write+close of attribute -a in every item, each
 *               followed at once by open+read+close of FILE (sysfs)
 *   -g FILE     with paired and -f: the reads again (cold, warm), each
 *               followed by one of FILE, a sysfs attribute whose path is
 *               as long as an item's attribute's (read_cold_deep,
 *               read_warm_deep)
 *   -w DIR      with paired and -f: the reads and the write again
 *               (read_cold_twin, read_warm_twin, write_twin), item i's
 *               each followed by one of the same attribute of
 *               DIR/i<i mod M>, the sysfs twin of the items (cng_bench's
 *               sysfs_items): the same tree and depth on sysfs
 *   -m M        the twin's items (default 1000)
 *   -k K        with cursors: the directories left open (default 10000)
 *
 * Rows: system,round,test,n,attrs,metric,x,value. Times are nanoseconds
 * per operation; "growth" is the median of the last W operations over the
 * median of the first W, W = min(1000, n / 2). Memory figures are bytes
 * per object, read once the slab counts have settled (cng_bench_mem_settle).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CNG_BENCH_WINDOW	1000
#define CNG_BENCH_PROFILE_POINTS	50
#define CNG_BENCH_MAX_CACHES	512
#define CNG_BENCH_PATH_MAX	512
#define CNG_BENCH_SETTLE_PASSES	12
#define CNG_BENCH_SETTLE_STABLE	2
#define CNG_BENCH_SETTLE_WAIT_MS	300
#define CNG_BENCH_PAIR_WINDOW	100
#define CNG_BENCH_LISTINGS	21
/* What a stopped listing read: ".", "..", about a hundred items. */
#define CNG_BENCH_PARK_BYTES	(100 * 32)

struct cng_bench_opts {
	const char *test;
	const char *dir;
	const char *system;
	const char *attr;
	const char *ref;
	const char *ref_file;
	const char *deep_file;
	const char *twin_dir;
	unsigned int twins;
	unsigned int cursors;
	unsigned int n;
	unsigned int round;
	unsigned int attrs;
	unsigned int children;
	bool plain;
	double budget;
};

struct cng_bench_slab {
	char name[64];
	double bytes;
};

/*
 * One reading. slab_kb (meminfo's Slab) counts the pages of every slab
 * and those of kmalloc()s too large for a slab, which slabinfo does not
 * list (a big kvmalloc(), as a hash table's buckets): large is their
 * bytes, Slab less the pages of the slabs slabinfo lists. vmalloc is
 * meminfo's VmallocUsed (where a kvmalloc() that kmalloc refused goes).
 */
struct cng_bench_mem {
	unsigned int nr;
	struct cng_bench_slab caches[CNG_BENCH_MAX_CACHES];
	double slab_kb;
	double slab_pages;
	double large;
	double vmalloc;
	unsigned int passes;
	bool settled;
};

static struct cng_bench_opts opts = {
	.system = "stock",
	.attr = "a0",
	.n = 1000,
	.round = 1,
	.twins = 1000,
	.cursors = 10000,
};

/* Objects made so far, for the cleanup after a failure. */
static unsigned int made;

static void cng_bench_fail(const char *fmt, ...)
{
	va_list ap;
	int err = errno;

	fprintf(stderr, "cng_bench_driver: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(err));
}

static unsigned long long cng_bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void cng_bench_row(const char *metric, const char *x, double value)
{
	printf("%s,%u,%s,%u,%u,%s,%s,%.0f\n", opts.system, opts.round,
	       opts.test, opts.n, opts.attrs, metric, x ? x : "", value);
}

/* DIR/i<i>, or DIR/i<i>/LEAF. */
static void cng_bench_path(char *buf, const char *dir, unsigned int i,
			   const char *leaf)
{
	if (leaf)
		snprintf(buf, CNG_BENCH_PATH_MAX, "%s/i%06u/%s", dir, i, leaf);
	else
		snprintf(buf, CNG_BENCH_PATH_MAX, "%s/i%06u", dir, i);
}

static void cng_bench_item_path(char *buf, unsigned int i, const char *leaf)
{
	cng_bench_path(buf, opts.dir, i, leaf);
}

static int cng_bench_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of t[0..n), which it sorts a copy of. */
static double cng_bench_median(const unsigned long long *t, unsigned int n)
{
	unsigned long long *s;
	double ret;

	if (!n)
		return 0;
	s = malloc(sizeof(*s) * n);
	if (!s)
		return 0;
	memcpy(s, t, sizeof(*s) * n);
	qsort(s, n, sizeof(*s), cng_bench_cmp);
	ret = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
	free(s);
	return ret;
}

/*
 * Median, first and last window, growth of the per-operation times. Growth
 * is the median of the last window over the median of the first: a few
 * operations stalled by the host (TCG on shared cores) move a sum, not a
 * median.
 */
static void cng_bench_report_ops(const char *op, const unsigned long long *t,
				 unsigned int n)
{
	unsigned int w = n / 2 < CNG_BENCH_WINDOW ? n / 2 : CNG_BENCH_WINDOW;
	char metric[64];
	double first, last;

	if (!w)
		w = n;
	snprintf(metric, sizeof(metric), "%s_ns", op);
	cng_bench_row(metric, NULL, cng_bench_median(t, n));
	first = cng_bench_median(t, w);
	last = cng_bench_median(t + n - w, w);
	snprintf(metric, sizeof(metric), "%s_first_ns", op);
	cng_bench_row(metric, NULL, first);
	snprintf(metric, sizeof(metric), "%s_last_ns", op);
	cng_bench_row(metric, NULL, last);
	snprintf(metric, sizeof(metric), "%s_growth_x1000", op);
	cng_bench_row(metric, NULL, first ? 1000 * last / first : 0);
}

/* The per-operation cost against the number of siblings, for the plot. */
static void cng_bench_report_profile(const char *op, const unsigned long long *t,
				     unsigned int n)
{
	unsigned int step = n / CNG_BENCH_PROFILE_POINTS;
	char metric[64], x[32];
	unsigned int i;

	if (!step)
		step = 1;
	snprintf(metric, sizeof(metric), "%s_profile_ns", op);
	for (i = 0; i + step <= n; i += step) {
		snprintf(x, sizeof(x), "%u", i + step);
		cng_bench_row(metric, x, cng_bench_median(t + i, step));
	}
}

/*
 * The files the memory runs read and write, kept open from the start: to
 * open them at each reading would allocate the very objects measured (a
 * struct file, freed an RCU grace period after the close).
 */
static struct {
	int drop;
	int slabinfo;
	int meminfo;
	unsigned int nr_shrink;
	int shrink[CNG_BENCH_MAX_CACHES];
} mfd = { .drop = -1, .slabinfo = -1, .meminfo = -1 };

static int cng_bench_drop_caches(void)
{
	int fd = mfd.drop;
	int ret = 0;

	if (fd < 0)
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0) {
		cng_bench_fail("open /proc/sys/vm/drop_caches");
		return -1;
	}
	sync();
	if (pwrite(fd, "3\n", 2, 0) != 2) {
		cng_bench_fail("write /proc/sys/vm/drop_caches");
		ret = -1;
	}
	if (fd != mfd.drop)
		close(fd);
	return ret;
}

static int cng_bench_write_file(const char *path, const char *val, int flags)
{
	int fd = open(path, O_WRONLY | flags, 0644);
	size_t len = strlen(val);
	int ret = 0;

	if (fd < 0)
		return -1;
	if (write(fd, val, len) != (ssize_t)len)
		ret = -1;
	if (close(fd))
		ret = -1;
	return ret;
}

/*
 * Make the files and directories configfs would make, for plain mode. Only
 * the items test reads the files; elsewhere they stay empty, so that tens
 * of thousands of them hold no page each in a guest of 1 GiB.
 */
static int cng_bench_fill(const char *path, unsigned int files,
			  unsigned int dirs)
{
	const char *data = strcmp(opts.test, "items") ? "" : "0\n";
	char sub[CNG_BENCH_PATH_MAX];
	unsigned int i;

	for (i = 0; i < files; i++) {
		snprintf(sub, sizeof(sub), "%s/a%u", path, i);
		if (cng_bench_write_file(sub, data, O_CREAT | O_TRUNC)) {
			cng_bench_fail("create %s", sub);
			return -1;
		}
	}
	for (i = 0; i < dirs; i++) {
		snprintf(sub, sizeof(sub), "%s/c%u", path, i);
		if (mkdir(sub, 0755)) {
			cng_bench_fail("mkdir %s", sub);
			return -1;
		}
	}
	return 0;
}

static int cng_bench_unfill(const char *path, unsigned int files,
			    unsigned int dirs)
{
	char sub[CNG_BENCH_PATH_MAX];
	unsigned int i;

	for (i = 0; i < files; i++) {
		snprintf(sub, sizeof(sub), "%s/a%u", path, i);
		if (unlink(sub) && errno != ENOENT) {
			cng_bench_fail("unlink %s", sub);
			return -1;
		}
	}
	for (i = dirs; i-- > 0;) {
		snprintf(sub, sizeof(sub), "%s/c%u", path, i);
		if (rmdir(sub) && errno != ENOENT) {
			cng_bench_fail("rmdir %s", sub);
			return -1;
		}
	}
	return 0;
}

/*
 * mkdir of n objects, timed one by one into t. In plain mode each object
 * is then given its files and, with trees, its children: timed as part of
 * the operation for trees (configfs makes default groups inside mkdir),
 * untimed for items (configfs makes no attribute file at mkdir).
 */
static int cng_bench_mkdir_all(unsigned long long *t, unsigned int n, bool trees)
{
	char path[CNG_BENCH_PATH_MAX];
	unsigned long long start = cng_bench_now(), t0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		cng_bench_item_path(path, i, NULL);
		t0 = cng_bench_now();
		if (mkdir(path, 0755)) {
			cng_bench_fail("mkdir %s", path);
			return -1;
		}
		made = i + 1;
		if (opts.plain && trees &&
		    cng_bench_fill(path, 0, opts.children))
			return -1;
		t[i] = cng_bench_now() - t0;
		if (opts.plain && !trees &&
		    cng_bench_fill(path, opts.attrs, 0))
			return -1;
		if (opts.budget > 0 && i % 100 == 99 &&
		    (cng_bench_now() - start) / 1e9 > opts.budget)
			return i + 1;
	}
	return n;
}

/* rmdir of the objects made, timed into t when given; or cleanup. */
static int cng_bench_rmdir_all(unsigned long long *t, bool trees)
{
	char path[CNG_BENCH_PATH_MAX];
	unsigned int i, n = made;
	unsigned long long t0;
	int ret = 0;

	for (i = 0; i < n; i++) {
		cng_bench_item_path(path, i, NULL);
		if (opts.plain && !trees &&
		    cng_bench_unfill(path, opts.attrs, 0))
			ret = -1;
		t0 = cng_bench_now();
		if (opts.plain && trees &&
		    cng_bench_unfill(path, 0, opts.children))
			ret = -1;
		if (rmdir(path) && errno != ENOENT) {
			cng_bench_fail("rmdir %s", path);
			ret = -1;
		}
		if (t)
			t[i] = cng_bench_now() - t0;
	}
	made = 0;
	return ret;
}

static int cng_bench_stat_all(unsigned long long *t, unsigned int n)
{
	char path[CNG_BENCH_PATH_MAX];
	struct stat st;
	unsigned int i;
	unsigned long long t0;

	for (i = 0; i < n; i++) {
		cng_bench_item_path(path, i, NULL);
		t0 = cng_bench_now();
		if (stat(path, &st)) {
			cng_bench_fail("stat %s", path);
			return -1;
		}
		t[i] = cng_bench_now() - t0;
	}
	return 0;
}

/* open + read + close, or open + write + close, of one file. */
static int cng_bench_rw_one(const char *path, bool do_write)
{
	char buf[256];
	ssize_t len;
	int fd;

	fd = open(path, do_write ? O_WRONLY : O_RDONLY);
	if (fd < 0) {
		cng_bench_fail("open %s", path);
		return -1;
	}
	if (do_write)
		len = write(fd, "1\n", 2) == 2 ? 0 : -1;
	else
		len = read(fd, buf, sizeof(buf));
	if (len < 0) {
		cng_bench_fail("%s %s", do_write ? "write" : "read", path);
		close(fd);
		return -1;
	}
	if (close(fd)) {
		cng_bench_fail("close %s", path);
		return -1;
	}
	return 0;
}

/* cng_bench_rw_one(), its time in *ns. */
static int cng_bench_rw_timed(const char *path, bool do_write,
			      unsigned long long *ns)
{
	unsigned long long t0 = cng_bench_now();

	if (cng_bench_rw_one(path, do_write))
		return -1;
	*ns = cng_bench_now() - t0;
	return 0;
}

static int cng_bench_rw_all(unsigned long long *t, unsigned int n, bool do_write)
{
	char path[CNG_BENCH_PATH_MAX];
	unsigned int i;

	for (i = 0; i < n; i++) {
		cng_bench_item_path(path, i, opts.attr);
		if (cng_bench_rw_timed(path, do_write, &t[i]))
			return -1;
	}
	return 0;
}

/* getdents64 over DIR to its end; returns the entries seen, or -1. */
static long cng_bench_getdents(void)
{
	static char buf[1 << 16];
	long entries = 0;
	long len;
	int fd;

	fd = open(opts.dir, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		cng_bench_fail("open %s", opts.dir);
		return -1;
	}
	while ((len = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		long off = 0;

		while (off < len) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);

			entries++;
			off += d->d_reclen;
		}
	}
	if (len < 0)
		cng_bench_fail("getdents64 %s", opts.dir);
	close(fd);
	return len < 0 ? -1 : entries;
}

/*
 * With k directories of DIR open and stopped part way through their
 * listing (where a readdir cursor parks), the median of a whole listing
 * of DIR by another open, and of the next small getdents of each stopped
 * one. Each stopped directory costs its file system whatever it keeps for
 * a cursor; none of that should slow what others do.
 */
static int cng_bench_cursors_round(unsigned int k, unsigned long long *t)
{
	static char buf[CNG_BENCH_PARK_BYTES];
	unsigned long long t0;
	unsigned int i, opened;
	int *fds, ret = -1;
	long len;

	fds = calloc(k ? k : 1, sizeof(*fds));
	if (!fds) {
		cng_bench_fail("calloc");
		return -1;
	}
	for (opened = 0; opened < k; opened++) {
		fds[opened] = open(opts.dir, O_RDONLY | O_DIRECTORY);
		if (fds[opened] < 0 ||
		    syscall(SYS_getdents64, fds[opened], buf, sizeof(buf)) <= 0) {
			cng_bench_fail("open and getdents64 %s", opts.dir);
			goto out_close;
		}
	}
	for (i = 0; i < CNG_BENCH_LISTINGS; i++) {
		t0 = cng_bench_now();
		if (cng_bench_getdents() < 0)
			goto out_close;
		t[i] = cng_bench_now() - t0;
	}
	cng_bench_row(k ? "listing_parked_ns" : "listing_ns", NULL,
		      cng_bench_median(t, CNG_BENCH_LISTINGS));
	for (i = 0; i < k; i++) {
		t0 = cng_bench_now();
		len = syscall(SYS_getdents64, fds[i], buf, 64);
		if (len < 0) {
			cng_bench_fail("getdents64 %s", opts.dir);
			goto out_close;
		}
		t[i] = cng_bench_now() - t0;
	}
	if (k) {
		cng_bench_row("resume_parked_ns", NULL, cng_bench_median(t, k));
		cng_bench_row("parked", NULL, k);
	}
	ret = 0;
out_close:
	while (opened)
		close(fds[--opened]);
	free(fds);
	return ret;
}

static int cng_bench_test_cursors(unsigned long long *t)
{
	unsigned long long *lt;
	struct rlimit rl;
	int ret;

	rl.rlim_cur = opts.cursors + 64;
	rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		cng_bench_fail("setrlimit");
		return -1;
	}
	lt = calloc(opts.cursors + CNG_BENCH_LISTINGS, sizeof(*lt));
	if (!lt) {
		cng_bench_fail("calloc");
		return -1;
	}
	ret = cng_bench_mkdir_all(t, opts.n, false);
	if (ret >= 0)
		ret = cng_bench_cursors_round(0, lt);
	if (!ret)
		ret = cng_bench_cursors_round(opts.cursors, lt);
	if (cng_bench_rmdir_all(NULL, false))
		ret = -1;
	free(lt);
	return ret < 0 ? -1 : 0;
}

static int cng_bench_test_items(unsigned long long *t)
{
	unsigned int n;
	unsigned long long t0;
	long entries;
	int ret;

	ret = cng_bench_mkdir_all(t, opts.n, false);
	if (ret < 0)
		return -1;
	n = ret;
	cng_bench_row("made", NULL, n);
	cng_bench_report_ops("mkdir", t, n);
	cng_bench_report_profile("mkdir", t, n);

	t0 = cng_bench_now();
	entries = cng_bench_getdents();
	if (entries < 0)
		return -1;
	t0 = cng_bench_now() - t0;
	cng_bench_row("getdents_total_ns", NULL, t0);
	cng_bench_row("getdents_entries", NULL, entries);
	cng_bench_row("getdents_ns", NULL, entries ? (double)t0 / entries : 0);

	if (cng_bench_stat_all(t, n))
		return -1;
	cng_bench_report_ops("stat_warm", t, n);
	if (cng_bench_drop_caches() || cng_bench_stat_all(t, n))
		return -1;
	cng_bench_report_ops("stat_cold", t, n);

	if (cng_bench_drop_caches() || cng_bench_rw_all(t, n, false))
		return -1;
	cng_bench_report_ops("read_cold", t, n);
	if (cng_bench_rw_all(t, n, false))
		return -1;
	cng_bench_report_ops("read_warm", t, n);
	if (cng_bench_rw_all(t, n, true))
		return -1;
	cng_bench_report_ops("write", t, n);

	if (cng_bench_rmdir_all(t, false))
		return -1;
	cng_bench_report_ops("rmdir", t, n);
	return 0;
}

/* The median of a[i] / b[i] over windows of CNG_BENCH_PAIR_WINDOW. */
static double cng_bench_window_ratio(const unsigned long long *a,
				     const unsigned long long *b,
				     unsigned int n)
{
	unsigned int w = n < CNG_BENCH_PAIR_WINDOW ? n : CNG_BENCH_PAIR_WINDOW;
	unsigned int nr = n / w, i;
	unsigned long long *r;
	double ret, den;

	r = calloc(nr, sizeof(*r));
	if (!r)
		return 0;
	for (i = 0; i < nr; i++) {
		den = cng_bench_median(b + i * w, w);
		r[i] = den ? 1e6 * cng_bench_median(a + i * w, w) / den : 0;
	}
	ret = cng_bench_median(r, nr) / 1e6;
	free(r);
	return ret;
}

/*
 * One operation of a pair: ours, then the reference. Its rows: each
 * side's median, the windowed ratio, and growth, the cost with the group
 * full (the last window of mkdir, the first of rmdir) over the cost with
 * it nearly empty, for ours alone and over the reference's in the same
 * windows.
 */
static void cng_bench_report_pair(const char *op, const unsigned long long *t,
				  const unsigned long long *u, unsigned int n,
				  bool full_first)
{
	unsigned int w = n / 2 < CNG_BENCH_WINDOW ? n / 2 : CNG_BENCH_WINDOW;
	unsigned int full = full_first ? 0 : n - w;
	unsigned int empty = full_first ? n - w : 0;
	double ours_full, ours_empty, ref_full, ref_empty;
	char metric[64];

	if (!w)
		w = n;
	snprintf(metric, sizeof(metric), "%s_ns", op);
	cng_bench_row(metric, NULL, cng_bench_median(t, n));
	snprintf(metric, sizeof(metric), "%s_ref_ns", op);
	cng_bench_row(metric, NULL, cng_bench_median(u, n));
	snprintf(metric, sizeof(metric), "%s_ratio_x1000", op);
	cng_bench_row(metric, NULL, 1000 * cng_bench_window_ratio(t, u, n));
	ours_full = cng_bench_median(t + full, w);
	ours_empty = cng_bench_median(t + empty, w);
	ref_full = cng_bench_median(u + full, w);
	ref_empty = cng_bench_median(u + empty, w);
	snprintf(metric, sizeof(metric), "%s_growth_x1000", op);
	cng_bench_row(metric, NULL,
		      ours_empty ? 1000 * ours_full / ours_empty : 0);
	snprintf(metric, sizeof(metric), "%s_growth_vs_ref_x1000", op);
	cng_bench_row(metric, NULL, ours_empty && ref_full && ref_empty ?
		      1000 * (ours_full / ref_full) / (ours_empty / ref_empty) :
		      0);
}

/*
 * mkdir (@make) or rmdir of pair i, ours then the reference; the times go
 * to t and u when given. For rmdir a side that is not there (ENOENT) is
 * no error: cleanup after a failed mkdir of either side goes through here.
 */
static int cng_bench_pair_dirop(unsigned int i, bool make,
				unsigned long long *t, unsigned long long *u)
{
	char path[CNG_BENCH_PATH_MAX];
	unsigned long long t0;
	int side, ret;

	for (side = 0; side < 2; side++) {
		cng_bench_path(path, side ? opts.ref : opts.dir, i, NULL);
		t0 = cng_bench_now();
		ret = make ? mkdir(path, 0755) : rmdir(path);
		if (ret && (make || errno != ENOENT)) {
			cng_bench_fail("%s %s", make ? "mkdir" : "rmdir", path);
			return -1;
		}
		if (t)
			(side ? u : t)[i] = cng_bench_now() - t0;
	}
	return 0;
}

/*
 * open+read+close (or write) of the attribute of every item, each followed
 * at once by the reference: open+read+close of the file @ref_file (a
 * sysfs attribute), or with @ref_file NULL the same operation on the same
 * attribute of the sysfs twin's item i mod M; cold: after drop_caches.
 */
static int cng_bench_pair_rw(unsigned long long *t, unsigned long long *u,
			     unsigned int n, const char *op, bool do_write,
			     bool cold, const char *ref_file)
{
	char path[CNG_BENCH_PATH_MAX], ref[CNG_BENCH_PATH_MAX];
	unsigned int i;

	/* Past the twin's M items, its files would be warm. */
	if (cold && !ref_file && n > opts.twins)
		n = opts.twins;
	if (cold && cng_bench_drop_caches())
		return -1;
	for (i = 0; i < n; i++) {
		cng_bench_item_path(path, i, opts.attr);
		if (!ref_file)
			cng_bench_path(ref, opts.twin_dir, i % opts.twins,
				       opts.attr);
		if (cng_bench_rw_timed(path, do_write, &t[i]) ||
		    cng_bench_rw_timed(ref_file ? ref_file : ref,
				       do_write && !ref_file, &u[i]))
			return -1;
	}
	cng_bench_report_pair(op, t, u, n, false);
	return 0;
}

/* stat of @path, timed into *@ns. */
static int cng_bench_stat_timed(const char *path, unsigned long long *ns)
{
	unsigned long long t0 = cng_bench_now();
	struct stat st;

	if (stat(path, &st)) {
		cng_bench_fail("stat %s", path);
		return -1;
	}
	*ns = cng_bench_now() - t0;
	return 0;
}

/*
 * stat of every item's directory, each followed at once by a stat of the
 * sysfs twin's item i mod M; cold: after drop_caches, and only the first
 * M items (past them the twin's would be warm). sysfs (kernfs) builds a
 * dentry and an inode on a cold lookup, as ours does.
 */
static int cng_bench_pair_stat(unsigned long long *t, unsigned long long *u,
			       unsigned int n, const char *op, bool cold)
{
	char path[CNG_BENCH_PATH_MAX], ref[CNG_BENCH_PATH_MAX];
	unsigned int i;

	if (cold && n > opts.twins)
		n = opts.twins;
	if (cold && cng_bench_drop_caches())
		return -1;
	for (i = 0; i < n; i++) {
		cng_bench_item_path(path, i, NULL);
		cng_bench_path(ref, opts.twin_dir, i % opts.twins, NULL);
		if (cng_bench_stat_timed(path, &t[i]) ||
		    cng_bench_stat_timed(ref, &u[i]))
			return -1;
	}
	cng_bench_report_pair(op, t, u, n, false);
	return 0;
}

/* openat(dfd, name) + read + close: one component looked up. */
static int cng_bench_read_at(int dfd, const char *name)
{
	char buf[256];
	ssize_t len;
	int fd;

	fd = openat(dfd, name, O_RDONLY);
	if (fd < 0) {
		cng_bench_fail("openat %s", name);
		return -1;
	}
	len = read(fd, buf, sizeof(buf));
	if (len < 0)
		cng_bench_fail("read %s", name);
	if (close(fd) && len >= 0) {
		cng_bench_fail("close %s", name);
		len = -1;
	}
	return len < 0 ? -1 : 0;
}

/*
 * Warm reads again, each side named relative to its directory (opened
 * untimed): the attribute's own cost, without the walk down a path that
 * is 7 components long for an item's attribute and 3 for the sysfs file.
 */
static int cng_bench_pair_read_at(unsigned long long *t,
				  unsigned long long *u, unsigned int n)
{
	char path[CNG_BENCH_PATH_MAX], ref_dir[CNG_BENCH_PATH_MAX];
	const char *ref_name = strrchr(opts.ref_file, '/');
	unsigned long long t0;
	int ref_dfd, dfd, ret = -1;
	unsigned int i;

	if (!ref_name || ref_name == opts.ref_file)
		return 0;
	snprintf(ref_dir, sizeof(ref_dir), "%.*s",
		 (int)(ref_name - opts.ref_file), opts.ref_file);
	ref_name++;
	ref_dfd = open(ref_dir, O_PATH | O_DIRECTORY);
	if (ref_dfd < 0) {
		cng_bench_fail("open %s", ref_dir);
		return -1;
	}
	for (i = 0; i < n; i++) {
		cng_bench_item_path(path, i, NULL);
		dfd = open(path, O_PATH | O_DIRECTORY);
		if (dfd < 0) {
			cng_bench_fail("open %s", path);
			goto out;
		}
		t0 = cng_bench_now();
		if (cng_bench_read_at(dfd, opts.attr)) {
			close(dfd);
			goto out;
		}
		t[i] = cng_bench_now() - t0;
		close(dfd);
		t0 = cng_bench_now();
		if (cng_bench_read_at(ref_dfd, ref_name))
			goto out;
		u[i] = cng_bench_now() - t0;
	}
	cng_bench_report_pair("read_warm_at", t, u, n, false);
	ret = 0;
out:
	close(ref_dfd);
	return ret;
}

static int cng_bench_test_paired(unsigned long long *t)
{
	unsigned long long *u;
	unsigned int i, n;

	if (!opts.ref) {
		fprintf(stderr, "cng_bench_driver: paired needs -p REF\n");
		return -1;
	}
	u = calloc(opts.n, sizeof(*u));
	if (!u) {
		cng_bench_fail("calloc");
		return -1;
	}
	/*
	 * Both sides start with no dentry cached for the names made: the
	 * reference is a fresh tmpfs, while DIR keeps the negative dentries
	 * of the same names removed by earlier runs.
	 */
	n = 0;
	if (cng_bench_drop_caches())
		goto out_rmdir;
	for (n = 0; n < opts.n; n++)
		if (cng_bench_pair_dirop(n, true, t, u))
			goto out_rmdir;
	cng_bench_row("made", NULL, n);
	cng_bench_report_pair("mkdir", t, u, n, false);
	if (opts.ref_file &&
	    (cng_bench_pair_rw(t, u, n, "read_cold", false, true,
			       opts.ref_file) ||
	     cng_bench_pair_rw(t, u, n, "read_warm", false, false,
			       opts.ref_file) ||
	     cng_bench_pair_read_at(t, u, n) ||
	     cng_bench_pair_rw(t, u, n, "write", true, false, opts.ref_file)))
		goto out_rmdir;
	if (opts.ref_file && opts.deep_file &&
	    (cng_bench_pair_rw(t, u, n, "read_cold_deep", false, true,
			       opts.deep_file) ||
	     cng_bench_pair_rw(t, u, n, "read_warm_deep", false, false,
			       opts.deep_file)))
		goto out_rmdir;
	if (opts.ref_file && opts.twin_dir &&
	    (cng_bench_pair_rw(t, u, n, "read_cold_twin", false, true, NULL) ||
	     cng_bench_pair_rw(t, u, n, "read_warm_twin", false, false, NULL) ||
	     cng_bench_pair_rw(t, u, n, "write_twin", true, false, NULL) ||
	     cng_bench_pair_stat(t, u, n, "stat_cold_twin", true) ||
	     cng_bench_pair_stat(t, u, n, "stat_warm_twin", false)))
		goto out_rmdir;
	for (i = 0; i < n; i++)
		if (cng_bench_pair_dirop(i, false, t, u))
			goto out_rmdir;
	cng_bench_report_pair("rmdir", t, u, n, true);
	free(u);
	return 0;

out_rmdir:
	/* Pair n too: a failed mkdir may have made its first side. */
	for (i = 0; i <= n && i < opts.n; i++)
		cng_bench_pair_dirop(i, false, NULL, NULL);
	free(u);
	return -1;
}

static int cng_bench_test_trees(unsigned long long *t)
{
	unsigned int n;
	int ret;

	ret = cng_bench_mkdir_all(t, opts.n, true);
	if (ret < 0)
		return -1;
	n = ret;
	cng_bench_row("made", NULL, n);
	cng_bench_report_ops("tree_mkdir", t, n);
	if (cng_bench_rmdir_all(t, true))
		return -1;
	cng_bench_report_ops("tree_rmdir", t, n);
	return 0;
}

static int cng_bench_test_sysfs(unsigned long long *t)
{
	unsigned int i;

	for (i = 0; i < opts.n; i++)
		if (cng_bench_rw_timed(opts.dir, false, &t[i]))
			return -1;
	cng_bench_report_ops("sysfs_read", t, opts.n);
	return 0;
}

/*
 * Open once what the memory runs use: drop_caches, /proc/slabinfo,
 * /proc/meminfo and every cache's shrink file. Without them (no SLUB
 * sysfs, too few descriptors) the readings are only less exact.
 */
static int cng_bench_mem_open(void)
{
	char path[CNG_BENCH_PATH_MAX];
	struct rlimit rl;
	struct dirent *d;
	DIR *dir;
	int fd;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	mfd.drop = open("/proc/sys/vm/drop_caches", O_WRONLY);
	mfd.slabinfo = open("/proc/slabinfo", O_RDONLY);
	mfd.meminfo = open("/proc/meminfo", O_RDONLY);
	if (mfd.drop < 0 || mfd.slabinfo < 0 || mfd.meminfo < 0) {
		cng_bench_fail("open drop_caches, slabinfo or meminfo");
		return -1;
	}
	dir = opendir("/sys/kernel/slab");
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && mfd.nr_shrink < CNG_BENCH_MAX_CACHES) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 d->d_name);
		fd = open(path, O_WRONLY);
		if (fd >= 0)
			mfd.shrink[mfd.nr_shrink++] = fd;
	}
	closedir(dir);
	return 0;
}

/*
 * SLUB counts the free objects of per-cpu slabs as active in /proc/slabinfo;
 * shrinking every cache first flushes them, so that the counts are exact.
 */
static void cng_bench_shrink_slabs(void)
{
	unsigned int i;

	/* A cache that cannot shrink is only counted less exactly. */
	for (i = 0; i < mfd.nr_shrink; i++)
		(void)!pwrite(mfd.shrink[i], "1\n", 2, 0);
}

/* The whole of the already open fd, from its start, into buf. */
static int cng_bench_slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t got;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while (len < size - 1 && (got = read(fd, buf + len, size - 1 - len)) > 0)
		len += got;
	buf[len] = '\0';
	return got < 0 ? -1 : 0;
}

/* Bytes in live slab objects per cache, and the Slab line of meminfo. */
static int cng_bench_mem_read(struct cng_bench_mem *mem)
{
	const double page_size = sysconf(_SC_PAGESIZE);
	static char buf[1 << 18];
	char *line, *save;

	cng_bench_shrink_slabs();
	mem->nr = 0;
	mem->slab_kb = -1;
	mem->slab_pages = 0;
	mem->large = 0;
	mem->vmalloc = 0;
	if (cng_bench_slurp(mfd.slabinfo, buf, sizeof(buf))) {
		cng_bench_fail("read /proc/slabinfo");
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save);
	     line && mem->nr < CNG_BENCH_MAX_CACHES;
	     line = strtok_r(NULL, "\n", &save)) {
		struct cng_bench_slab *c = &mem->caches[mem->nr];
		unsigned long active, total, size, per_slab, pages, slabs;
		const char *data;

		if (sscanf(line, "%63s %lu %lu %lu %lu %lu", c->name, &active,
			   &total, &size, &per_slab, &pages) != 6)
			continue;
		c->bytes = (double)active * size;
		data = strstr(line, ": slabdata");
		if (data && sscanf(data, ": slabdata %*u %lu", &slabs) == 1)
			mem->slab_pages += (double)slabs * pages * page_size;
		mem->nr++;
	}

	if (cng_bench_slurp(mfd.meminfo, buf, sizeof(buf))) {
		cng_bench_fail("read /proc/meminfo");
		return -1;
	}
	line = strstr(buf, "\nSlab:");
	if (line)
		sscanf(line, "\nSlab: %lf kB", &mem->slab_kb);
	line = strstr(buf, "\nVmallocUsed:");
	if (line && sscanf(line, "\nVmallocUsed: %lf kB", &mem->vmalloc) == 1)
		mem->vmalloc *= 1024;
	if (mem->slab_kb >= 0)
		mem->large = mem->slab_kb * 1024 - mem->slab_pages;
	return 0;
}

static double cng_bench_mem_cache(const struct cng_bench_mem *mem,
				  const char *name)
{
	unsigned int i;

	for (i = 0; i < mem->nr; i++)
		if (!strcmp(mem->caches[i].name, name))
			return mem->caches[i].bytes;
	return 0;
}

/* Bytes in live slab objects, large kmallocs and vmalloc areas. */
static double cng_bench_mem_total(const struct cng_bench_mem *mem)
{
	double total = mem->large + mem->vmalloc;
	unsigned int i;

	for (i = 0; i < mem->nr; i++)
		total += mem->caches[i].bytes;
	return total;
}

/*
 * The caches of the file system under test, those that grow with its
 * objects: dentries, inodes (and their LSM blobs), configfs' and our own
 * caches, kmalloc (the client's structures, stock's names). Not /proc's
 * inodes nor struct file: the driver's own reading moves those.
 */
static bool cng_bench_fs_cache(const char *name)
{
	static const char * const exact[] = {
		"dentry", "inode_cache", "lsm_inode_cache",
		"shmem_inode_cache", "configfs_dir_cache", NULL,
	};
	unsigned int i;

	for (i = 0; exact[i]; i++)
		if (!strcmp(name, exact[i]))
			return true;
	return !strncmp(name, "cng_", 4) || !strncmp(name, "kmalloc-", 8);
}

/*
 * A settled reading. Each pass drops the caches (when drop is set), waits
 * for the frees deferred by RCU and fput, shrinks every cache and reads;
 * the reading is settled once CNG_BENCH_SETTLE_STABLE passes in a row
 * moved the total, and every cache of the file system, by at most tol
 * bytes from the pass before. At most CNG_BENCH_SETTLE_PASSES passes;
 * mem->passes and mem->settled say how it went.
 */
static int cng_bench_mem_settle(struct cng_bench_mem *mem, bool drop,
				double tol)
{
	static struct cng_bench_mem prev;
	const struct timespec wait = {
		.tv_nsec = CNG_BENCH_SETTLE_WAIT_MS * 1000000L,
	};
	unsigned int pass, stable = 0, i;
	bool moved;
	double d;

	mem->settled = false;
	for (pass = 1; pass <= CNG_BENCH_SETTLE_PASSES; pass++) {
		if (drop && cng_bench_drop_caches())
			return -1;
		nanosleep(&wait, NULL);
		if (cng_bench_mem_read(mem))
			return -1;
		mem->passes = pass;
		if (pass > 1) {
			d = cng_bench_mem_total(mem) - cng_bench_mem_total(&prev);
			moved = d > tol || d < -tol;

			for (i = 0; i < mem->nr && !moved; i++) {
				if (!cng_bench_fs_cache(mem->caches[i].name))
					continue;
				d = mem->caches[i].bytes -
				    cng_bench_mem_cache(&prev,
							mem->caches[i].name);
				moved = d > tol || d < -tol;
			}
			stable = moved ? 0 : stable + 1;
			if (stable >= CNG_BENCH_SETTLE_STABLE) {
				mem->settled = true;
				return 0;
			}
		}
		prev = *mem;
	}
	return 0;
}

/*
 * Deltas per object from before to after: the total, every cache that
 * moved by 4 bytes per object or more, and the caches of the file system
 * (see cng_bench_fs_cache) that moved at all, their sum and the rest.
 */
static void cng_bench_mem_report(const char *when,
				 const struct cng_bench_mem *before,
				 const struct cng_bench_mem *after,
				 unsigned int objects)
{
	double total = 0, fs = 0, delta;
	const char *name;
	char metric[64];
	unsigned int i;

	for (i = 0; i < after->nr; i++) {
		name = after->caches[i].name;
		delta = after->caches[i].bytes -
			cng_bench_mem_cache(before, name);
		total += delta;
		if (delta / objects >= 4 || delta / objects <= -4) {
			snprintf(metric, sizeof(metric), "%s_cache_bytes",
				 when);
			cng_bench_row(metric, name, delta / objects);
		}
		if (!cng_bench_fs_cache(name))
			continue;
		fs += delta;
		if (delta / objects >= 0.5 || delta / objects <= -0.5) {
			snprintf(metric, sizeof(metric), "%s_fs_cache_bytes",
				 when);
			cng_bench_row(metric, name, delta / objects);
		}
	}
	snprintf(metric, sizeof(metric), "%s_slab_objects_bytes", when);
	cng_bench_row(metric, NULL, total / objects);
	snprintf(metric, sizeof(metric), "%s_fs_bytes", when);
	cng_bench_row(metric, NULL, fs / objects);
	snprintf(metric, sizeof(metric), "%s_other_bytes", when);
	cng_bench_row(metric, NULL, (total - fs) / objects);
	snprintf(metric, sizeof(metric), "%s_slab_meminfo_bytes", when);
	cng_bench_row(metric, NULL,
		      (after->slab_kb - before->slab_kb) * 1024 / objects);
	snprintf(metric, sizeof(metric), "%s_large_bytes", when);
	cng_bench_row(metric, NULL, (after->large - before->large) / objects);
	snprintf(metric, sizeof(metric), "%s_vmalloc_bytes", when);
	cng_bench_row(metric, NULL,
		      (after->vmalloc - before->vmalloc) / objects);
	snprintf(metric, sizeof(metric), "%s_total_bytes", when);
	cng_bench_row(metric, NULL, (cng_bench_mem_total(after) -
				     cng_bench_mem_total(before)) / objects);
	snprintf(metric, sizeof(metric), "%s_settle_passes", when);
	cng_bench_row(metric, NULL, after->passes);
	snprintf(metric, sizeof(metric), "%s_settled", when);
	cng_bench_row(metric, NULL, before->settled && after->settled);
}

static int cng_bench_test_memory(unsigned long long *t, bool trees)
{
	static struct cng_bench_mem before, created, dropped;
	unsigned int objects;
	double tol;
	int ret;

	objects = opts.n * (trees ? opts.children + 1 : 1);
	tol = objects < 256 ? 256 : objects;
	if (cng_bench_mem_open() ||
	    cng_bench_mem_settle(&before, true, tol))
		return -1;
	ret = cng_bench_mkdir_all(t, opts.n, trees);
	if (ret < 0)
		return -1;
	objects = ret;
	if (trees)
		objects *= opts.children + 1;
	if (cng_bench_mem_settle(&created, false, tol) ||
	    cng_bench_mem_settle(&dropped, true, tol))
		return -1;
	cng_bench_row("made", NULL, ret);
	cng_bench_mem_report("created", &before, &created, objects);
	cng_bench_mem_report("dropped", &before, &dropped, objects);
	return cng_bench_rmdir_all(NULL, trees);
}

static void cng_bench_usage(void)
{
	fprintf(stderr,
		"usage: cng_bench_driver [-n N] [-s SYSTEM] [-r ROUND] [-a NAME] [-A COUNT] [-c COUNT] [-t] [-b SECONDS] [-p REF] [-f FILE] [-g FILE] [-w DIR] [-m M] [-k K] items|trees|memory|treemem|sysfs|paired|cursors DIR\n");
	exit(2);
}

static void cng_bench_parse(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:s:r:a:A:c:tb:p:f:g:w:m:k:")) != -1) {
		switch (opt) {
		case 'n':
			opts.n = strtoul(optarg, NULL, 0);
			break;
		case 's':
			opts.system = optarg;
			break;
		case 'r':
			opts.round = strtoul(optarg, NULL, 0);
			break;
		case 'a':
			opts.attr = optarg;
			break;
		case 'A':
			opts.attrs = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			opts.children = strtoul(optarg, NULL, 0);
			break;
		case 't':
			opts.plain = true;
			break;
		case 'b':
			opts.budget = strtod(optarg, NULL);
			break;
		case 'p':
			opts.ref = optarg;
			break;
		case 'f':
			opts.ref_file = optarg;
			break;
		case 'g':
			opts.deep_file = optarg;
			break;
		case 'w':
			opts.twin_dir = optarg;
			break;
		case 'm':
			opts.twins = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			opts.cursors = strtoul(optarg, NULL, 0);
			break;
		default:
			cng_bench_usage();
		}
	}
	if (argc - optind != 2 || !opts.n || !opts.twins)
		cng_bench_usage();
	opts.test = argv[optind];
	opts.dir = argv[optind + 1];
}

int main(int argc, char **argv)
{
	unsigned long long *t;
	int ret = -1;

	cng_bench_parse(argc, argv);
	t = calloc(opts.n, sizeof(*t));
	if (!t) {
		cng_bench_fail("calloc");
		return 1;
	}
	if (!strcmp(opts.test, "items"))
		ret = cng_bench_test_items(t);
	else if (!strcmp(opts.test, "trees"))
		ret = cng_bench_test_trees(t);
	else if (!strcmp(opts.test, "memory"))
		ret = cng_bench_test_memory(t, false);
	else if (!strcmp(opts.test, "treemem"))
		ret = cng_bench_test_memory(t, true);
	else if (!strcmp(opts.test, "sysfs"))
		ret = cng_bench_test_sysfs(t);
	else if (!strcmp(opts.test, "paired"))
		ret = cng_bench_test_paired(t);
	else if (!strcmp(opts.test, "cursors"))
		ret = cng_bench_test_cursors(t);
	else
		cng_bench_usage();
	if (ret && made)
		cng_bench_rmdir_all(NULL, !strcmp(opts.test, "trees") ||
				    !strcmp(opts.test, "treemem"));
	free(t);
	fflush(stdout);
	return ret ? 1 : 0;
}
