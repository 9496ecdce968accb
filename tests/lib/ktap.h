/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one KTAP harness of the C tests, in the guest (through guest.h) and
 * on the host (tests/host/). Only the format and the verdicts live here.
 *
 * A test is a table of cases, each a function that returns true when the
 * behaviour holds. EXPECT() prints what failed and marks the running case
 * failed (the case goes on, so that the log shows what else differs).
 * run_cases() prints the plan and one result line per case; a program that
 * drives its cases itself prints with ktap_plan(), ktap_case_end() or
 * ktap_result(), and says "nothing to run" with ktap_skip_all().
 *
 * The state below is defined weak, so that a test of several files (the
 * host tests, the fault campaign) has one copy of it.
 */
#ifndef KTAP_H
#define KTAP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#define ktap_attribute(x)	__attribute__((x))
#ifndef __printf
#define __printf(a, b)		ktap_attribute(__format__(printf, a, b))
#endif
#ifndef __weak
#define __weak			ktap_attribute(__weak__)
#endif

struct ktap_case {
	const char *name;
	bool (*fn)(void);
};

#define KTAP_CASE(fn)	{ #fn, fn }

/* The running case has failed an EXPECT(). */
__weak bool case_failed;
/*
 * Set by a case that found stock doing what docs/differences.md says it
 * does (the row and its words): reported as an expected difference.
 */
__weak const char *case_differs;
/* Cases failed so far; the exit status is ktap_exit_status(). */
__weak int ktap_failed;
/*
 * Where diagnostics go; NULL is stdout. The host tests point it at their
 * own copy of stdout, as a case may capture fd 1 while it runs.
 */
__weak FILE *ktap_diag;

static inline const char *ename(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "E?";
}

/* Prints a KTAP diagnostic line. */
static inline __printf(1, 2) void say(const char *fmt, ...)
{
	FILE *out = ktap_diag ? ktap_diag : stdout;
	va_list ap;

	fputs("# ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
}

static inline void ktap_expect(bool ok, const char *what, const char *file,
			       int line)
{
	int err = errno;

	if (ok)
		return;
	say("%s:%d: %s fails (errno %s)", file, line, what, ename(err));
	case_failed = true;
}

#define EXPECT(cond) ktap_expect((cond), #cond, __FILE__, __LINE__)

/* The call failed, with exactly this errno. */
#define FAILS_WITH(call, err) ((call) < 0 && errno == (err))

static inline void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

/* A run with nothing to do: an empty plan that says why. */
static inline void ktap_skip_all(const char *why)
{
	printf("KTAP version 1\n1..0 # SKIP %s\n", why);
	fflush(stdout);
}

/*
 * Case @n's result line; @note, when not NULL, follows a passing case's
 * line after "# " (a "SKIP reason", or "stock behaves the same"). Counts
 * a failure; returns @ok.
 */
static inline bool ktap_result(int n, const char *name, bool ok,
			       const char *note)
{
	printf("%sok %d %s", ok ? "" : "not ", n, name);
	if (ok && note)
		printf(" # %s", note);
	printf("\n");
	fflush(stdout);
	if (!ok)
		ktap_failed++;
	return ok;
}

/*
 * Ends case @n, run inline by its program: the verdict is what EXPECT()
 * found since the case before. Returns whether it passed.
 */
static inline bool ktap_case_end(int n, const char *name)
{
	bool ok = !case_failed;

	case_failed = false;
	return ktap_result(n, name, ok, NULL);
}

/* Runs one case of a table: its result line, as number @n. */
static inline bool ktap_run_case(int n, const struct ktap_case *c)
{
	char why[256] = "";
	bool ok;

	case_failed = false;
	case_differs = NULL;
	ok = c->fn() && !case_failed;
	if (case_differs)
		snprintf(why, sizeof(why),
			 "SKIP expected to differ on stock: %s",
			 case_differs);
	return ktap_result(n, c->name, ok, why[0] ? why : NULL);
}

static inline void run_cases(const struct ktap_case *cases, int n)
{
	int i;

	ktap_plan(n);
	for (i = 0; i < n; i++)
		ktap_run_case(i + 1, &cases[i]);
}

static inline int ktap_exit_status(void)
{
	return ktap_failed ? 1 : 0;
}

#endif /* KTAP_H */
