// SPDX-License-Identifier: GPL-2.0
/*
 * Commits and un-commits raced with everything else, through cng_commit
 * (samples/cng_commit.c), for a few seconds; run on the debug kernel too,
 * where lockdep, KASAN and kmemleak watch.
 *
 *   movers     rename disks/pending/sN to live/ and back, N = 0..3; and
 *              dyn/pending/x to live/ and back while dyn/ comes and goes
 *   checker    while no rename is in flight (the changers hold still for
 *              30 ms in every 100), sN is in exactly one of
 *              pending/ and live/ (lookups), never both, never neither
 *   reader     readdir of both stages: no name twice in one listing
 *              while nothing changed in disks/ (else it may be new);
 *              open and read sN's state wherever it is found
 *   linker     a link to s0 where it is, its text, unlink
 *   churner    mkdir and rmdir of other disks in pending/
 *   kernel     register dyn/, fill it, unregister it with live disks
 *
 * At the end every disk is un-committed and removed, the client's counts
 * add up (commits - uncommits - dropped = live = 0) and the module
 * unloads. Ours only.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "guest.h"

#define CC	CFS "/cng_commit"
#define DISKS	CC "/disks"
#define DYN	CC "/dyn"
#define SECONDS	8
#define NDISKS	4

static atomic_bool stop;
/* Set for a while now and then: disks/ holds still, to be judged. */
static atomic_bool quiet;

static void hold_still(void)
{
	while (atomic_load(&quiet) && !atomic_load(&stop))
		usleep(1000);
}

/* Changes to disks/ begun and ended: renames, mkdirs and rmdirs. */
static atomic_long started, done;
static atomic_long checks, listings, anomalies, moves, dyn_moves, dyn_rounds;

static void anomaly(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	say("%s", line);
	atomic_fetch_add(&anomalies, 1);
}

static bool exists(const char *path)
{
	struct stat st;

	return !lstat(path, &st);
}

static void disk_paths(int i, char *pending, char *live, size_t size)
{
	snprintf(pending, size, DISKS "/pending/s%d", i);
	snprintf(live, size, DISKS "/live/s%d", i);
}

static void *mover(void *arg)
{
	char pending[128], live[128];
	unsigned int seed = 1;
	int i, err;

	while (!atomic_load(&stop)) {
		hold_still();
		i = rand_r(&seed) % NDISKS;
		disk_paths(i, pending, live, sizeof(pending));
		atomic_fetch_add(&started, 1);
		if (rename(pending, live) < 0 && rename(live, pending) < 0) {
			err = errno;
			anomaly("move %s: %s", pending, ename(err));
		} else {
			atomic_fetch_add(&moves, 1);
		}
		atomic_fetch_add(&done, 1);
	}
	return arg;
}

static void *checker(void *arg)
{
	char pending[128], live[128];
	unsigned int seed = 2;
	long s1, d1;
	bool in_p, in_l;
	int i;

	while (!atomic_load(&stop)) {
		i = rand_r(&seed) % NDISKS;
		disk_paths(i, pending, live, sizeof(pending));
		d1 = atomic_load(&done);
		s1 = atomic_load(&started);
		in_p = exists(pending);
		in_l = exists(live);
		/* Only a window with no rename in flight is judged. */
		if (s1 != d1 || atomic_load(&started) != s1 ||
		    atomic_load(&done) != d1)
			continue;
		atomic_fetch_add(&checks, 1);
		if (in_p == in_l)
			anomaly("check: s%d is in %s", i,
				in_p ? "both stages" : "neither stage");
	}
	return arg;
}

/*
 * The names of one listing, " s0  s2 ". A name twice is an anomaly if
 * nothing changed in disks/ meanwhile; else it may be one that left and
 * came back, a new entry, which a listing in progress meets at its end.
 */
static void list_stage(const char *dir, char *names, size_t size)
{
	long s1 = atomic_load(&started), d1 = atomic_load(&done);
	bool twice = false;
	struct dirent *de;
	DIR *d;

	names[0] = 0;
	d = opendir(dir);
	if (!d) {
		anomaly("opendir %s: %s", dir, ename(errno));
		return;
	}
	while ((de = readdir(d))) {
		char word[NAME_MAX + 3];

		if (de->d_name[0] == '.')
			continue;
		snprintf(word, sizeof(word), " %s ", de->d_name);
		if (strstr(names, word))
			twice = true;
		if (strlen(names) + strlen(word) < size)
			strcat(names, word);
	}
	closedir(d);
	if (s1 != d1 || atomic_load(&started) != s1 ||
	    atomic_load(&done) != d1)
		return;
	atomic_fetch_add(&listings, 1);
	if (twice)
		anomaly("a name twice in %s", names);
}

static void *reader(void *arg)
{
	char p_names[4096], l_names[4096], path[256], buf[64];
	ssize_t ret;
	int i;

	while (!atomic_load(&stop)) {
		list_stage(DISKS "/pending", p_names, sizeof(p_names));
		list_stage(DISKS "/live", l_names, sizeof(l_names));
		for (i = 0; i < NDISKS; i++) {
			snprintf(path, sizeof(path), DISKS "/pending/s%d/state",
				 i);
			ret = slurp(path, buf, sizeof(buf));
			if (ret < 0 && ret != -ENOENT)
				anomaly("read %s: %s", path, ename(-ret));
			snprintf(path, sizeof(path), DISKS "/live/s%d/state", i);
			ret = slurp(path, buf, sizeof(buf));
			if (ret < 0 && ret != -ENOENT)
				anomaly("read %s: %s", path, ename(-ret));
		}
	}
	return arg;
}

static void *linker(void *arg)
{
	const char *link = CC "/hosts/h/lk";
	char text[256];
	ssize_t len;
	int i = 0;

	while (!atomic_load(&stop)) {
		const char *target = i++ % 2 ? DISKS "/live/s0" :
					       DISKS "/pending/s0";

		if (symlink(target, link) < 0) {
			if (errno != ENOENT)
				anomaly("symlink to %s: %s", target, ename(errno));
			continue;
		}
		len = readlink(link, text, sizeof(text) - 1);
		if (len < 0) {
			anomaly("readlink: %s", ename(errno));
		} else {
			text[len] = 0;
			if (strcmp(text, "../../../cng_commit/disks/pending/s0") &&
			    strcmp(text, "../../../cng_commit/disks/live/s0"))
				anomaly("link text %s", text);
		}
		if (unlink(link) < 0)
			anomaly("unlink of the link: %s", ename(errno));
	}
	return arg;
}

static void *churner(void *arg)
{
	char path[128];
	int i = 0;

	while (!atomic_load(&stop)) {
		hold_still();
		snprintf(path, sizeof(path), DISKS "/pending/c%d", i++ % 8);
		atomic_fetch_add(&started, 1);
		if (mkdir(path, 0755) < 0)
			anomaly("mkdir %s: %s", path, ename(errno));
		else if (rmdir(path) < 0)
			anomaly("rmdir %s: %s", path, ename(errno));
		atomic_fetch_add(&done, 1);
	}
	return arg;
}

/* dyn/pending/x and dyn/live/x vanish with dyn/: ENOENT is expected. */
static void *dyn_mover(void *arg)
{
	while (!atomic_load(&stop)) {
		if (!rename(DYN "/pending/x", DYN "/live/x") ||
		    !rename(DYN "/live/x", DYN "/pending/x"))
			atomic_fetch_add(&dyn_moves, 1);
		else if (errno != ENOENT)
			anomaly("move in dyn: %s", ename(errno));
	}
	return arg;
}

/*
 * After dyn/ is unregistered, x is found in neither stage, even through
 * a descriptor of the dead stage: a commit's move that the removal
 * overtook must not leave x's dentry hashed there (issue 32, item 4).
 */
static void dyn_gone(int stage, const char *name)
{
	struct stat st;

	if (stage >= 0 && !fstatat(stage, "x", &st, AT_SYMLINK_NOFOLLOW))
		anomaly("dyn/%s/x still found after unregister", name);
	if (stage >= 0)
		close(stage);
}

static void *kernel_side(void *arg)
{
	int live, pending;

	while (!atomic_load(&stop)) {
		if (put(CC "/ctl", "register dyn") < 0)
			anomaly("register dyn: %s", ename(errno));
		if (mkdir(DYN "/pending/x", 0755) < 0 ||
		    put(DYN "/pending/x/ready", "1") < 0)
			anomaly("filling dyn: %s", ename(errno));
		live = open(DYN "/live", O_RDONLY | O_DIRECTORY);
		pending = open(DYN "/pending", O_RDONLY | O_DIRECTORY);
		usleep(20000);
		if (put(CC "/ctl", "unregister dyn") < 0)
			anomaly("unregister dyn: %s", ename(errno));
		dyn_gone(live, "live");
		dyn_gone(pending, "pending");
		atomic_fetch_add(&dyn_rounds, 1);
	}
	return arg;
}

static long stat_of(const char *stats, const char *key)
{
	const char *p = strstr(stats, key);

	return p ? atol(p + strlen(key)) : -1;
}

int main(void)
{
	void *(*fns[])(void *) = { mover, checker, reader, linker, churner,
				   dyn_mover, kernel_side };
	pthread_t tid[ARRAY_SIZE(fns)];
	char path[128], live[160], stats[256];
	unsigned int i;
	long c, u, l, d;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (on_stock()) {
		ktap_skip_all("expected to differ on stock: no committable items");
		return 4;
	}
	if (sh("insmod /lib/modules/cng/cng_commit.ko"))
		return 1;
	ktap_plan(3);
	EXPECT(!mkdir(CC "/hosts/h", 0755));
	for (i = 0; i < NDISKS; i++) {
		disk_paths(i, path, live, sizeof(path));
		EXPECT(!mkdir(path, 0755));
		snprintf(live, sizeof(live), "%s/ready", path);
		EXPECT(put(live, "1") >= 0);
	}

	for (i = 0; i < ARRAY_SIZE(fns); i++)
		pthread_create(&tid[i], NULL, fns[i], NULL);
	for (i = 0; i < SECONDS * 10; i++) {
		usleep(70000);
		atomic_store(&quiet, true);
		usleep(30000);
		atomic_store(&quiet, false);
	}
	atomic_store(&stop, true);
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		pthread_join(tid[i], NULL);

	say("%ld moves, %ld checks, %ld listings, %ld dyn moves, %ld dyn rounds, %ld anomalies",
	    atomic_load(&moves), atomic_load(&checks), atomic_load(&listings),
	    atomic_load(&dyn_moves), atomic_load(&dyn_rounds),
	    atomic_load(&anomalies));
	EXPECT(!atomic_load(&anomalies));
	/* Proof that each racer ran: a quiet run proves nothing. */
	EXPECT(atomic_load(&moves) && atomic_load(&checks) &&
	       atomic_load(&listings) && atomic_load(&dyn_rounds));
	ktap_case_end(1, "renames_raced_without_anomaly");

	for (i = 0; i < NDISKS; i++) {
		disk_paths(i, path, live, sizeof(path));
		if (exists(live))
			EXPECT(!rename(live, path));
		EXPECT(!rmdir(path));
	}
	EXPECT(!rmdir(CC "/hosts/h"));
	if (exists(DYN))
		EXPECT(put(CC "/ctl", "unregister dyn") >= 0);
	EXPECT(slurp(CC "/stats", stats, sizeof(stats)) > 0);
	c = stat_of(stats, "commits ");
	u = stat_of(stats, "uncommits ");
	l = stat_of(stats, "live ");
	d = stat_of(stats, "dropped_live ");
	say("stats: commits %ld uncommits %ld live %ld dropped %ld", c, u, l, d);
	EXPECT(c > 0 && c - u - d == l && l == 0);
	ktap_case_end(2, "client_counts_add_up");

	EXPECT(!sh("rmmod cng_commit"));
	ktap_case_end(3, "module_unloads");
	return ktap_exit_status();
}
