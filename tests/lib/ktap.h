/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP and helpers for the C conformance tests (conf_*.c, better_*.c).
 * The helpers are static inline, as not every test uses each of them.
 *
 * A test is a table of cases, each a function that returns true when the
 * behaviour holds. EXPECT() prints what failed and marks the running case
 * failed (the case goes on, so the log shows what else differs). Run them
 * with run_cases(), which prints the plan and one result line per case.
 */
#ifndef CONF_KTAP_H
#define CONF_KTAP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

#define CFS	"/sys/kernel/config"
#define T	CFS "/cng_test"

struct tcase {
	const char *name;
	bool (*fn)(void);
};

static inline const char *ename(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "E?";
}

/* Prints a KTAP diagnostic line. */
static inline void say(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

static bool case_failed;
/*
 * Set by a case that found stock doing what docs/differences.md says it
 * does (the row and its words): reported as an expected difference.
 */
static const char *case_differs;

static inline void ktap_expect(bool ok, const char *what, int line)
{
	int err = errno;

	if (ok)
		return;
	say("line %d: %s fails (errno %s)", line, what, ename(err));
	case_failed = true;
}

#define EXPECT(cond) ktap_expect((cond), #cond, __LINE__)

/* The call failed, with exactly this errno. */
#define FAILS_WITH(call, err) ((call) < 0 && errno == (err))

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

static int ktap_failed;

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

static inline void run_cases(const struct tcase *cases, int n)
{
	int i;

	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		bool ok;

		case_failed = false;
		case_differs = NULL;
		ok = cases[i].fn() && !case_failed;

		printf("%sok %d %s", ok ? "" : "not ", i + 1, cases[i].name);
		if (ok && case_differs)
			printf(" # SKIP expected to differ on stock: %s",
			       case_differs);
		printf("\n");
		fflush(stdout);
		if (!ok)
			ktap_failed++;
	}
}

/*
 * A test's main, for cases on cng_test alone: loads it, runs @cases, and
 * fails the run if an object is left that was not there at load
 * (cng_test's live count), a callback came late, or cng_test does not
 * unload. Returns the exit status.
 */
static inline int run_cng_test_cases(const struct tcase *cases, int n)
{
	int live;

	if (cng_load()) {
		printf("KTAP version 1\n1..0 # SKIP insmod failed\n");
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
	return ktap_failed ? 1 : 0;
}

#endif /* CONF_KTAP_H */
