/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a C test in the guest uses beside KTAP (ktap.h): the paths, a shell,
 * whole-file reads and writes, and the cng_test fixture
 * (tests/modules/cng_test.c) with its event log. The helpers are static
 * inline, as not every test uses each of them.
 */
#ifndef GUEST_H
#define GUEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"

#define CFS	"/sys/kernel/config"
#define T	CFS "/cng_test"

/* Runs a shell command, echoed first; returns its exit status. */
static inline int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	say("+ %s", cmd);
	fflush(stdout);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Reads a whole file into buf (NUL-terminated); bytes read or -errno. */
static inline ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t got = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	while (got < size - 1 && (n = read(fd, buf + got, size - 1 - got)) > 0)
		got += n;
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* One open and one write of the string; 0, or -errno. */
static inline int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : 0;
}

static inline void events_clear(void)
{
	put(T "/events", "clear");
}

/* The event log is exactly @want; prints both when not. */
static inline bool events_are(const char *want)
{
	static char got[8192];

	if (slurp(T "/events", got, sizeof(got)) < 0)
		return false;
	if (!strcmp(got, want))
		return true;
	say("event log differs; want:");
	printf("%s", want);
	say("got:");
	printf("%s", got);
	return false;
}

static inline int read_int(const char *path)
{
	char buf[64];

	if (slurp(path, buf, sizeof(buf)) < 0)
		return -1;
	return atoi(buf);
}

static inline bool on_stock(void)
{
	const char *which = getenv("CNG_CONFIGFS");

	return which && !strcmp(which, "stock");
}

/*
 * Loads cng_test. A copy already loaded is an error: init unloads what a
 * test leaves loaded (and fails that test), so this test loaded it itself.
 */
static inline int cng_load(void)
{
	if (!access(T, F_OK)) {
		say("cng_test is already loaded");
		return 1;
	}
	return sh("insmod /lib/modules/cng/cng_test.ko");
}

/*
 * A test's main, for cases on cng_test alone: loads it, runs @cases, and
 * fails the run if an object is left that was not there at load
 * (cng_test's live count), a callback came late, or cng_test does not
 * unload. Returns the exit status.
 */
static inline int run_cng_test_cases(const struct ktap_case *cases, int n)
{
	int live;

	if (cng_load()) {
		ktap_skip_all("insmod failed");
		return 1;
	}
	live = read_int(T "/live");
	run_cases(cases, n);
	if (read_int(T "/live") != live || read_int(T "/late")) {
		say("live %d (%d at load), late %d", read_int(T "/live"), live,
		    read_int(T "/late"));
		ktap_failed++;
	}
	if (sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_exit_status();
}

#endif /* GUEST_H */
