// SPDX-License-Identifier: GPL-2.0
/*
 * Stress: tasks race mkdir, rmdir, lookup, readdir, read, write, chmod and
 * cache eviction on null_blk's items for a bounded time. Unexpected errnos
 * fail the test; the runner's scan of the kernel log catches the rest.
 *
 *   /sys/kernel/config/nullb/st0 .. st7/   made and removed at random
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "guest.h"

#define NB	"/sys/kernel/config/nullb"
#define NAMES	8
#define SECONDS	12
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static atomic_int stop;
static atomic_int unexpected;
static atomic_long ops;

static void bad(const char *what, const char *path, int err)
{
	say("unexpected: %s %s: %s", what, path, strerror(err));
	atomic_fetch_add(&unexpected, 1);
}

static void item_path(char *buf, size_t len, unsigned int *seed,
		      const char *attr)
{
	int n = rand_r(seed) % NAMES;

	if (attr)
		snprintf(buf, len, NB "/st%d/%s", n, attr);
	else
		snprintf(buf, len, NB "/st%d", n);
}

static void *mkdir_rmdir(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[256];

	while (!stop) {
		item_path(path, sizeof(path), &seed, NULL);
		if (rand_r(&seed) & 1) {
			if (mkdir(path, 0755) && errno != EEXIST)
				bad("mkdir", path, errno);
		} else {
			if (rmdir(path) && errno != ENOENT)
				bad("rmdir", path, errno);
		}
		ops++;
	}
	return NULL;
}

static void *readdirs(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[256];
	struct dirent *de;
	DIR *dir;

	while (!stop) {
		if (rand_r(&seed) & 1)
			snprintf(path, sizeof(path), NB);
		else
			item_path(path, sizeof(path), &seed, NULL);
		dir = opendir(path);
		if (!dir) {
			if (errno != ENOENT)
				bad("opendir", path, errno);
			continue;
		}
		while ((de = readdir(dir)))
			ops++;
		closedir(dir);
	}
	return NULL;
}

static void *readwrite(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	static const char *const attrs[] = { "size", "blocksize", "power",
					     "index", "submit_queues" };
	char path[256], buf[4096];
	ssize_t n;
	int fd;

	while (!stop) {
		item_path(path, sizeof(path), &seed, attrs[rand_r(&seed) % 5]);
		fd = open(path, O_RDWR);
		if (fd < 0)
			fd = open(path, O_RDONLY);
		if (fd < 0) {
			if (errno != ENOENT)
				bad("open", path, errno);
			continue;
		}
		/* Let rmdir overtake the open file now and then. */
		if (rand_r(&seed) % 4 == 0)
			usleep(2000);
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno != ENODEV && errno != ENOENT)
			bad("read", path, errno);
		if (strstr(path, "size") && !strstr(path, "block")) {
			n = write(fd, "64\n", 3);
			if (n < 0 && errno != ENODEV && errno != ENOENT &&
			    errno != EBADF && errno != EBUSY)
				bad("write", path, errno);
		}
		close(fd);
		ops++;
	}
	return NULL;
}

static void *chmods(void *arg)
{
	unsigned int seed = (unsigned long)arg;
	char path[256];
	struct stat st;

	while (!stop) {
		item_path(path, sizeof(path), &seed, "size");
		if (chmod(path, 0600 | (rand_r(&seed) & 044)) && errno != ENOENT)
			bad("chmod", path, errno);
		if (stat(path, &st) && errno != ENOENT)
			bad("stat", path, errno);
		ops++;
	}
	return NULL;
}

static void *evict(void *arg)
{
	int fd;

	while (!stop) {
		fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
		if (fd >= 0) {
			if (write(fd, "3\n", 2) < 0)
				bad("write", "drop_caches", errno);
			close(fd);
		}
		usleep(100000);
	}
	return arg;
}

int main(void)
{
	void *(*const fns[])(void *) = { mkdir_rmdir, mkdir_rmdir, readdirs,
					 readwrite, readwrite, chmods, evict };
	pthread_t tids[ARRAY_SIZE(fns)];
	unsigned int i, n = ARRAY_SIZE(fns);
	char path[256];
	DIR *dir;

	if (!system("grep -qx null_blk /tests/kmods-absent")) {
		ktap_skip_all("null_blk is not a module of this kernel");
		return 4;
	}
	ktap_plan(3);
	/* Present but failing: what a broken register_subsystem does. */
	if (system("modprobe null_blk nr_devices=0") || access(NB, F_OK)) {
		say("null_blk does not load, or " NB " is missing");
		return 1;
	}
	for (i = 0; i < n; i++)
		pthread_create(&tids[i], NULL, fns[i], (void *)(unsigned long)(i + 1));
	sleep(SECONDS);
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
	say("%ld operations", (long)ops);
	ktap_result(1, "racing_tasks_see_only_expected_errors", !unexpected,
		    NULL);

	for (i = 0; i < NAMES; i++) {
		snprintf(path, sizeof(path), NB "/st%u", i);
		if (rmdir(path) && errno != ENOENT)
			ktap_failed++;
	}
	dir = opendir(NB);
	i = 0;
	while (dir && readdir(dir))
		i++;
	if (dir)
		closedir(dir);
	/* ".", "..", and the subsystem's "features" attribute. */
	ktap_result(2, "tree_is_empty_after_cleanup", i == 3, NULL);
	ktap_result(3, "client_module_unloads", !system("rmmod null_blk"),
		    NULL);
	return ktap_exit_status();
}
