// SPDX-License-Identifier: GPL-2.0
/*
 * The differential fuzzer's concurrent sequences (fuzz_diff.c has the
 * rest): PROCS processes at once on one tree, each its own stream of
 * operations (seed * 64 + its number), with no outcome compared.
 * What must hold whatever the interleaving is checked at the end: each
 * directory and link is there exactly when the successful creations of
 * its name outnumber the successful removals (by one), no listing holds
 * a name twice, every listed name is found by lstat with its type and
 * every name lstat finds is listed, a directory's link count is two plus
 * its subdirectories, and once the tree is taken down nothing of it is
 * left (cng_test's live count is back to what it was at load, no
 * callback came late), cng_test and configfs unload.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <signal.h>
#include <sys/mman.h>

#include "fuzz_diff.h"

/*
 * Concurrent sequences (conc_seq()): several processes at once, no
 * remount (it would pull the tree from under the others) and no rt1.
 */
bool conc_mode;

/* What the processes of a concurrent sequence count, in shared memory. */
struct conc_tally {
	long made[ARRAY_SIZE(dirs)];	/* mkdir succeeded */
	long removed[ARRAY_SIZE(dirs)];	/* rmdir did */
	long registered[ARRAY_SIZE(dirs)];	/* less unregistered */
	long linked[ARRAY_SIZE(link_dirs)][2];
	long unlinked[ARRAY_SIZE(link_dirs)][2];
	long ops, dups, renames;
	long links_not_run;	/* on stock (row 25) */
	long depends_not_run;	/* on stock (row 26) */
	char dup[512];		/* the first listing with a name twice */
};

static struct conc_tally *tally;
/*
 * A name twice in one listing: counted, the first one kept. Neither
 * module returns a child made after a listing began (row 9), so not
 * even a name removed and made again meanwhile is listed twice.
 */
void conc_dups(const char *path, char **names, int n)
{
	int i;

	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 1; i < n; i++) {
		if (strcmp(names[i - 1], names[i]))
			continue;
		if (__atomic_fetch_add(&tally->dups, 1, __ATOMIC_SEQ_CST) == 0)
			snprintf(tally->dup, sizeof(tally->dup), "%.200s: %.200s",
				 path, names[i]);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
}

static unsigned long long conc_seed;
static int conc_bad;		/* properties broken by this sequence */
static long conc_ops[2], conc_links_not_run, conc_depends_not_run;
int conc_broken[2];	/* sequences that broke a property */

static void conc_fail(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (conc_bad++ < 20)
		say("fz conc seed %llu on %s: %s", conc_seed, mod_names[cur],
		    msg);
}

/* After each operation of a process: what it made and removed. */
static void conc_count(const struct op *op)
{
	long *n = NULL;
	int k = op->b % ARRAY_SIZE(ctls);
	int s = op->b % ARRAY_SIZE(link_dirs);

	__atomic_add_fetch(&tally->ops, 1, __ATOMIC_RELAXED);
	if (op->kind == OP_SYMLINK && cur == STOCK)
		__atomic_add_fetch(&tally->links_not_run, 1, __ATOMIC_RELAXED);
	if (op->kind == OP_CTL && k == CTL_PATH_FIRST + 2 && cur == STOCK)
		__atomic_add_fetch(&tally->depends_not_run, 1,
				   __ATOMIC_RELAXED);
	if (last_ret)
		return;
	switch (op->kind) {
	case OP_MKDIR:
		n = &tally->made[op->a];
		break;
	case OP_RMDIR:
		n = &tally->removed[op->a];
		break;
	case OP_SYMLINK:
		n = &tally->linked[s][op->c % 2];
		break;
	case OP_UNLINK:
		if (op->b % 3)
			n = &tally->unlinked[s][op->c % 2];
		break;
	case OP_RENAME:
		/* a rename onto itself succeeds in the VFS */
		if (op->a != op->d)
			n = &tally->renames;
		break;
	case OP_CTL:
		if (k < 4)
			__atomic_add_fetch(&tally->registered[k < 2 ? D_RT0 :
							      D_D0],
					   k % 2 ? -1 : 1, __ATOMIC_SEQ_CST);
		break;
	default:
		break;
	}
	if (n)
		__atomic_add_fetch(n, 1, __ATOMIC_SEQ_CST);
}

static void conc_child(unsigned long long seed, int nops)
{
	int i;

	generate(seed, nops);
	fds_reset();
	for (i = 0; i < nops; i++) {
		run_op(&ops[i]);
		conc_count(&ops[i]);
	}
	_exit(0);
}

static bool is_present(const char *path, mode_t type)
{
	struct stat st;

	return !lstat(path, &st) && (st.st_mode & S_IFMT) == type;
}

/* @child is a name right below @dir (dirs[] and link names) */
static bool is_child(const char *dir, const char *child)
{
	size_t n = strlen(dir);

	if (!n)
		return !strchr(child, '/');
	return !strncmp(child, dir, n) && child[n] == '/' &&
	       !strchr(child + n + 1, '/');
}

/* One directory's listing against lstat and its link count. */
static void conc_check_listing(int dir, const bool *present,
			       const bool (*lpresent)[2])
{
	char path[512], sub[1024], *names[300];
	struct dirent *de;
	struct stat st;
	int n = 0, subdirs = 0, i, j, l;
	DIR *d;

	path_of(path, sizeof(path), dir, NULL);
	d = opendir(path);
	if (!d) {
		conc_fail("opendir %s: %s", dirs[dir], ename(errno));
		return;
	}
	while ((de = readdir(d)) && n < 300) {
		mode_t type = de->d_type == DT_DIR ? S_IFDIR :
			      de->d_type == DT_LNK ? S_IFLNK : S_IFREG;

		names[n++] = strdup(de->d_name);
		if (de->d_type == DT_DIR)
			subdirs++;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		if (!is_present(sub, type))
			conc_fail("%s/%s listed (type %d), lstat: %s",
				  dirs[dir], de->d_name, de->d_type,
				  ename(errno));
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 1; i < n; i++)
		if (!strcmp(names[i - 1], names[i]))
			conc_fail("%s lists %s twice", dirs[dir], names[i]);
	if (!lstat(path, &st) && st.st_nlink != (nlink_t)subdirs)
		conc_fail("%s: nlink %lu, %d directories listed", dirs[dir],
			  (unsigned long)st.st_nlink, subdirs);
	for (j = 0; j < (int)ARRAY_SIZE(dirs); j++) {
		const char *base = strrchr(dirs[j], '/');
		char *key = (char *)(base ? base + 1 : dirs[j]);

		if (!*dirs[j] || !is_child(dirs[dir], dirs[j]))
			continue;
		if (!!bsearch(&key, names, n, sizeof(*names), name_cmp) !=
		    present[j])
			conc_fail("%s %s, lstat %s", dirs[j],
				  present[j] ? "not listed" : "listed",
				  present[j] ? "finds it" : "does not");
	}
	for (j = 0; j < (int)ARRAY_SIZE(link_dirs); j++) {
		for (l = 0; l < 2 && !strcmp(link_dirs[j], dirs[dir]); l++) {
			char name[8], *key = name;

			snprintf(name, sizeof(name), "l%d", l);
			if (!!bsearch(&key, names, n, sizeof(*names),
				      name_cmp) != lpresent[j][l])
				conc_fail("%s/%s %s", dirs[dir], name,
					  lpresent[j][l] ? "not listed" :
					  "listed, lstat does not find it");
		}
	}
	for (i = 0; i < n; i++)
		free(names[i]);
}

/* The end of a sequence: the tree against what the processes counted. */
static void conc_check(void)
{
	bool present[ARRAY_SIZE(dirs)], lpresent[ARRAY_SIZE(link_dirs)][2];
	char path[512];
	unsigned int i, l;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		path_of(path, sizeof(path), i, NULL);
		present[i] = is_present(path, S_IFDIR);
	}
	for (i = 0; i < ARRAY_SIZE(link_dirs); i++) {
		for (l = 0; l < 2; l++) {
			snprintf(path, sizeof(path), T "/%s/l%u",
				 link_dirs[i], l);
			lpresent[i][l] = is_present(path, S_IFLNK);
		}
	}
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		long want = tally->made[i] - tally->removed[i] +
			    tally->registered[i];

		/* default groups: there with their parent */
		if (i == D_ITEMS || i == D_FIXED_INNER || i == D_ROOT)
			want++;
		else if (i == D_N0_SUB || i == D_N0_DEEP)
			want += present[D_N0];
		else if (i == D_RT0_INNER)
			want += tally->registered[D_RT0];
		if (want != present[i])
			conc_fail("%s: made %ld, removed %ld, registered %ld, %s",
				  dirs[i], tally->made[i], tally->removed[i],
				  tally->registered[i],
				  present[i] ? "there" : "not there");
	}
	for (i = 0; i < ARRAY_SIZE(link_dirs); i++)
		for (l = 0; l < 2; l++)
			if (tally->linked[i][l] - tally->unlinked[i][l] !=
			    lpresent[i][l])
				conc_fail("%s/l%u: linked %ld, unlinked %ld, %s",
					  link_dirs[i], l, tally->linked[i][l],
					  tally->unlinked[i][l],
					  lpresent[i][l] ? "there" :
					  "not there");
	if (tally->renames)
		conc_fail("%ld renames succeeded", tally->renames);
	if (tally->dups)
		conc_fail("%ld listings held a name twice, first %s",
			  tally->dups, tally->dup);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		if (present[i])
			conc_check_listing(i, present, lpresent);
}

/* After the teardown: nothing user-made left, every object released. */
static void conc_check_empty(int live)
{
	char path[512];
	int i, now = -1;

	for (i = 0; i < (int)ARRAY_SIZE(dirs); i++) {
		if (i == D_ITEMS || i == D_FIXED_INNER || i == D_ROOT)
			continue;
		path_of(path, sizeof(path), i, NULL);
		if (!access(path, F_OK))
			conc_fail("%s is left after the teardown", dirs[i]);
	}
	for (i = 0; i < 50; i++) {
		now = read_int(T "/live");
		if (now == live)
			break;
		put("/proc/sys/vm/drop_caches", "2");
		usleep(20000);
	}
	if (now != live)
		conc_fail("cng_test's live count %d after the teardown, %d at load",
			  now, live);
	if (read_int(T "/late"))
		conc_fail("callbacks came late: %d", read_int(T "/late"));
}

/* Waits for the processes, a few minutes at most; false if one hangs. */
static bool conc_wait(pid_t *pids, int procs)
{
	int left = procs, i, tries, status;

	for (tries = 0; left && tries < 30000; tries++) {
		for (i = 0; i < procs; i++) {
			if (pids[i] <= 0 || !waitpid(pids[i], &status, WNOHANG))
				continue;
			if (!WIFEXITED(status) || WEXITSTATUS(status))
				conc_fail("process %d ended with status %#x",
					  i, status);
			pids[i] = 0;
			left--;
		}
		if (left)
			usleep(10000);
	}
	if (!left)
		return true;
	say("fz conc seed %llu on %s: processes hang", conc_seed,
	    mod_names[cur]);
	for (i = 0; i < procs; i++) {
		if (pids[i] <= 0)
			continue;
		sh("cat /proc/%d/stack", pids[i]);
		kill(pids[i], SIGKILL);
		waitpid(pids[i], &status, 0);
	}
	return false;
}

/*
 * One concurrent sequence on module @which, configfs loaded fresh for it
 * and unloaded after it. false if the run broke (cng_test or configfs
 * stuck, a process hung); broken properties only count in conc_bad.
 */
static bool conc_seq(int which, unsigned long long seed, int nops,
		     int procs)
{
	pid_t pids[16];
	int i, live;

	conc_seed = seed;
	conc_bad = 0;
	say("fz conc seed %llu on %s", seed, mod_names[which]);
	cur = -1;
	if (!swap_to(which))
		return false;
	if (load_ko(CNG_KO)) {
		say("cannot load cng_test on %s: %s", mod_names[which],
		    ename(errno));
		return false;
	}
	live = read_int(T "/live");
	memset(tally, 0, sizeof(*tally));
	fds_reset();	/* the processes' own, not this one's */
	fflush(stdout);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (!pids[i])
			conc_child(seed * 64 + i, nops);
		if (pids[i] < 0)
			conc_fail("fork: %s", ename(errno));
	}
	if (!conc_wait(pids, procs))
		return false;
	conc_ops[which] += tally->ops;
	conc_links_not_run += tally->links_not_run;
	conc_depends_not_run += tally->depends_not_run;
	conc_check();
	teardown_tree();
	conc_check_empty(live);
	if (!unload_test())
		return false;
	if (conc_bad)
		conc_broken[which]++;
	return true;
}

/*
 * @count concurrent seeds from @first, on ours then on stock; false if a
 * run broke (a broken property only counts in conc_broken[]).
 */
bool conc_run(unsigned long long first, unsigned long long count, int nops,
	      int procs)
{
	unsigned long long s;
	int which;

	say("fz conc seeds %llu..%llu, %d processes of %d operations each",
	    first, first + count - 1, procs, nops);
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tally == MAP_FAILED)
		return false;
	conc_mode = true;
	/* Ours first: stock may crash (row 25) */
	for (which = OURS; which >= STOCK; which--) {
		for (s = 0; s < count; s++)
			if (!conc_seq(which, first + s, nops, procs))
				return false;
		say("fz conc ops %s %ld broken %d of %llu",
		    mod_names[which], conc_ops[which], conc_broken[which],
		    count);
	}
	say("fz conc rule stock 25 symlink_not_run %ld", conc_links_not_run);
	say("fz conc rule stock 26 depend_unlocked_not_run %ld",
	    conc_depends_not_run);
	return true;
}
