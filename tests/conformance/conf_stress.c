// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrency: tasks race mkdir, rmdir, lookup, readdir, read, write,
 * symlink, unlink, depend and kernel-side group registration for a bounded
 * time. Every call must succeed or fail with an errno that the race
 * explains; afterwards the tree is taken down and must be as it was, every
 * object released, and no callback may have reached a dropped item. The
 * runner checks the kernel log.
 *
 *   cng_test/
 *   |-- items/s0..s7/         mkdir/rmdir; links lJ -> items/sJ; data, blob
 *   |-- items/from/, to/      on stock only: links from/lJ -> to
 *   |-- s0..s7/               user groups, with sN/sub/x items
 *   |-- rt0..rt3/inner/       ctl register / unregister
 *   `-- rd0..rd3/             ctl register_default / unregister_default
 *
 * Usage: conf_stress [SECONDS]   (default 20)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <time.h>

#include "guest.h"

#define SLOTS	8
#define RTS	4

static int stop;
/*
 * Stock's symlink unlocks the link's directory while it resolves the
 * target, and a racing rmdir of either end then gets allow_link called on
 * an item already dropped, or freed (docs/differences.md row 25). There
 * the links go from items/from to items/to, which no task removes, so that
 * the race checks what stock does promise; on ours both ends are raced.
 */
static bool pinned_links;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static int unexpected;
static long done_ok[16], done_err[16];

enum op { OP_MKDIR, OP_RMDIR, OP_SYMLINK, OP_UNLINK, OP_OPEN, OP_READ,
	  OP_WRITE, OP_READDIR, OP_STAT, OP_CTL, OP_BIN, OP_COUNT };

static const char *const op_names[] = {
	"mkdir", "rmdir", "symlink", "unlink", "open", "read", "write",
	"readdir", "stat", "ctl", "bin",
};

/* The errnos each kind of call may meet while others race it. */
static bool allowed(enum op op, int err)
{
	switch (op) {
	case OP_MKDIR:
		return err == EEXIST || err == ENOENT;
	case OP_RMDIR:
		return err == ENOENT || err == ENOTEMPTY || err == EBUSY;
	case OP_SYMLINK:
		return err == EEXIST || err == ENOENT;
	case OP_CTL:
		/* ENOSPC: cng_test's table of dependencies is full */
		return err == EEXIST || err == ENOENT || err == ENOSPC;
	default:
		return err == ENOENT || err == ENODEV;
	}
}

static void note(enum op op, long ret, const char *path)
{
	int err = errno;

	if (ret >= 0) {
		__atomic_add_fetch(&done_ok[op], 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&done_err[op], 1, __ATOMIC_RELAXED);
	if (allowed(op, err))
		return;
	pthread_mutex_lock(&report_lock);
	if (unexpected++ < 20)
		say("unexpected: %s %s: %s", op_names[op], path, ename(err));
	pthread_mutex_unlock(&report_lock);
}

static void rand_dir(unsigned int *seed, char *path, size_t size)
{
	int k = rand_r(seed) % SLOTS;

	switch (rand_r(seed) % 3) {
	case 0:
		snprintf(path, size, T "/items/s%d", k);
		break;
	case 1:
		snprintf(path, size, T "/s%d", k);
		break;
	default:
		snprintf(path, size, T "/s%d/sub/x", k);
		break;
	}
}

static void *mkdir_rmdir(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[256];

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		rand_dir(&seed, path, sizeof(path));
		if (rand_r(&seed) % 2)
			note(OP_MKDIR, mkdir(path, 0755), path);
		else
			note(OP_RMDIR, rmdir(path), path);
	}
	return NULL;
}

static void *links(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char target[256], link[256];

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int i = rand_r(&seed) % SLOTS, j = rand_r(&seed) % SLOTS;

		if (pinned_links) {
			snprintf(target, sizeof(target), T "/items/to");
			snprintf(link, sizeof(link), T "/items/from/l%d", j);
		} else {
			snprintf(target, sizeof(target), T "/items/s%d", j);
			snprintf(link, sizeof(link), T "/items/s%d/l%d", i, j);
		}
		if (rand_r(&seed) % 2)
			note(OP_SYMLINK, symlink(target, link), link);
		else
			note(OP_UNLINK, unlink(link), link);
	}
	return NULL;
}

static void *io(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char dir[256], path[300], buf[256];

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		bool bin = rand_r(&seed) % 4 == 0;
		int fd, how = rand_r(&seed) % 2 ? O_RDONLY : O_WRONLY;

		/* items/sK and sK have data and blob; sK/sub/x has neither */
		snprintf(dir, sizeof(dir), rand_r(&seed) % 2 ? T "/items/s%d" :
			 T "/s%d", rand_r(&seed) % SLOTS);
		snprintf(path, sizeof(path), "%s/%s", dir, bin ? "blob" : "data");
		fd = open(path, how);
		note(OP_OPEN, fd, path);
		if (fd < 0)
			continue;
		if (bin && how == O_WRONLY)
			note(OP_BIN, write(fd, "blobdata", 8), path);
		else if (bin)
			note(OP_BIN, read(fd, buf, sizeof(buf)), path);
		else if (how == O_WRONLY)
			note(OP_WRITE, write(fd, "value\n", 6), path);
		else
			note(OP_READ, read(fd, buf, sizeof(buf)), path);
		close(fd);
	}
	return NULL;
}

static void *walk(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[256];
	struct stat st = { 0 };

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		DIR *d;

		if (rand_r(&seed) % 3 == 0)
			snprintf(path, sizeof(path), "%s",
				 rand_r(&seed) % 2 ? T : T "/items");
		else
			rand_dir(&seed, path, sizeof(path));
		note(OP_STAT, stat(path, &st), path);
		d = opendir(path);
		note(OP_READDIR, d ? 0 : -1, path);
		if (!d)
			continue;
		errno = 0;
		while (readdir(d))
			;
		if (errno)
			note(OP_READDIR, -1, path);
		closedir(d);
	}
	return NULL;
}

static void *kernel_side(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char cmd[64], path[128], buf[64];

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		int k = rand_r(&seed) % RTS;
		int fd, ret;

		switch (rand_r(&seed) % 7) {
		case 0:
			snprintf(cmd, sizeof(cmd), "register rt%d", k);
			break;
		case 1:
			snprintf(cmd, sizeof(cmd), "unregister rt%d", k);
			break;
		case 2:
			snprintf(cmd, sizeof(cmd), "register_default rd%d", k);
			break;
		case 3:
			snprintf(cmd, sizeof(cmd), "unregister_default rd%d",
				 k);
			break;
		case 4:
			snprintf(cmd, sizeof(cmd), "depend items/s%d", k);
			break;
		case 5:
			snprintf(cmd, sizeof(cmd), "undepend items/s%d", k);
			break;
		default:
			snprintf(path, sizeof(path), T "/rt%d/data", k);
			fd = open(path, O_RDWR);
			note(OP_OPEN, fd, path);
			if (fd >= 0) {
				note(OP_WRITE, write(fd, "rt", 2), path);
				note(OP_READ, pread(fd, buf, 64, 0), path);
				close(fd);
			}
			continue;
		}
		ret = put(T "/ctl", cmd);
		errno = -ret;
		note(OP_CTL, ret, cmd);
		usleep(rand_r(&seed) % 2000);
	}
	return NULL;
}

static char tree_before[4096];
static int live_before;
static long seconds = 20;

static bool listing(const char *dir, char *out, size_t size)
{
	return sh("ls %s > /tmp/conf_stress.ls", dir) == 0 &&
	       slurp("/tmp/conf_stress.ls", out, size) >= 0;
}

static bool t_race(void)
{
	static void *(*const workers[])(void *) = {
		mkdir_rmdir, mkdir_rmdir, links, io, io, walk, kernel_side,
	};
	pthread_t tid[ARRAY_SIZE(workers)];
	unsigned int i;
	int op;

	pinned_links = on_stock();
	if (pinned_links) {
		say("row 25: on stock the links go from items/from to items/to");
		EXPECT(!mkdir(T "/items/from", 0755));
		EXPECT(!mkdir(T "/items/to", 0755));
	}
	say("%zu tasks race for %ld s", ARRAY_SIZE(tid), seconds);
	for (i = 0; i < ARRAY_SIZE(tid); i++)
		EXPECT(!pthread_create(&tid[i], NULL, workers[i],
				       (void *)(unsigned long)(i * 7919 + 1)));
	sleep(seconds);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < ARRAY_SIZE(tid); i++)
		pthread_join(tid[i], NULL);
	for (op = 0; op < OP_COUNT; op++)
		say("%-8s ok %6ld  failed %6ld", op_names[op], done_ok[op],
		    done_err[op]);
	EXPECT(unexpected == 0);
	return true;
}

static bool t_progress(void)
{
	EXPECT(done_ok[OP_MKDIR] > 0 && done_ok[OP_RMDIR] > 0);
	EXPECT(done_ok[OP_SYMLINK] > 0 && done_ok[OP_UNLINK] > 0);
	EXPECT(done_ok[OP_CTL] > 0 && done_ok[OP_READ] > 0);
	EXPECT(done_ok[OP_WRITE] > 0 && done_ok[OP_READDIR] > 0);
	return true;
}

/* Takes down whatever the race left; true when every step succeeded. */
static bool t_teardown(void)
{
	char path[256], cmd[64], after[4096];
	int i, j, n;

	for (i = 0; i < SLOTS; i++) {
		snprintf(cmd, sizeof(cmd), "undepend items/s%d", i);
		for (n = 0; n < 64 && !put(T "/ctl", cmd); n++)
			;
	}
	for (i = 0; i < RTS; i++) {
		snprintf(cmd, sizeof(cmd), "unregister rt%d", i);
		put(T "/ctl", cmd);
		snprintf(cmd, sizeof(cmd), "unregister_default rd%d", i);
		put(T "/ctl", cmd);
	}
	for (i = 0; i < SLOTS; i++) {
		for (j = 0; j < SLOTS; j++) {
			snprintf(path, sizeof(path), T "/items/s%d/l%d", i, j);
			EXPECT(!unlink(path) || errno == ENOENT);
		}
	}
	for (i = 0; i < SLOTS; i++) {
		snprintf(path, sizeof(path), T "/s%d/sub/x", i);
		EXPECT(!rmdir(path) || errno == ENOENT);
		snprintf(path, sizeof(path), T "/s%d", i);
		EXPECT(!rmdir(path) || errno == ENOENT);
		snprintf(path, sizeof(path), T "/items/s%d", i);
		EXPECT(!rmdir(path) || errno == ENOENT);
	}
	for (j = 0; pinned_links && j < SLOTS; j++) {
		snprintf(path, sizeof(path), T "/items/from/l%d", j);
		EXPECT(!unlink(path) || errno == ENOENT);
	}
	if (pinned_links) {
		EXPECT(!rmdir(T "/items/from"));
		EXPECT(!rmdir(T "/items/to"));
	}
	EXPECT(listing(T, after, sizeof(after)));
	EXPECT(!strcmp(after, tree_before));
	EXPECT(listing(T "/items", after, sizeof(after)));
	EXPECT(!strcmp(after, ""));
	return true;
}

static bool t_released(void)
{
	EXPECT(read_int(T "/live") == live_before);
	return true;
}

static bool t_no_late(void)
{
	int late = read_int(T "/late");

	EXPECT(late == 0);
	/* Which callbacks, on what: the event log names them. */
	if (late)
		sh("grep '^late ' " T "/events | head -20 | sed 's/^/# /'");
	return true;
}

static const struct ktap_case cases[] = {
	{ "racing_calls_fail_only_with_explained_errnos", t_race },
	{ "every_kind_of_call_made_progress", t_progress },
	{ "tree_consistent_and_removable_after_race", t_teardown },
	{ "every_object_released_after_race", t_released },
	{ "no_callback_on_dropped_item_during_race", t_no_late },
};

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atol(argv[1]);
	if (cng_load() ||
	    !listing(T, tree_before, sizeof(tree_before))) {
		ktap_skip_all("setup failed");
		return 1;
	}
	live_before = read_int(T "/live");
	run_cases(cases, ARRAY_SIZE(cases));
	if (sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_exit_status();
}
