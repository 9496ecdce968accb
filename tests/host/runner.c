// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every host test case and reports in KTAP version 1.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configfs.h"
#include "ktap.h"

static bool ktap_failed;
static int ktap_err = -1;	/* the case's captured stderr, O_APPEND */
static char ktap_err_text[65536];
static int ktap_real_stderr;

void ktap_note(const char *label, const char *text)
{
	const char *p = text ? text : "(null)";

	dprintf(ktap_real_stderr, "# %s:\n", label);
	while (*p) {
		const char *nl = strchrnul(p, '\n');

		dprintf(ktap_real_stderr, "#   %.*s\n", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
}

void ktap_fail(const char *file, int line, const char *what)
{
	ktap_failed = true;
	fflush(stdout);
	dprintf(ktap_real_stderr, "# %s:%d: expected %s\n", file, line, what);
}

/* What the code under test wrote to stderr since the case began. */
const char *ktap_stderr(void)
{
	off_t len;
	ssize_t got;

	fflush(stderr);
	len = lseek(ktap_err, 0, SEEK_END);
	if (len < 0)
		len = 0;
	if ((size_t)len >= sizeof(ktap_err_text))
		len = sizeof(ktap_err_text) - 1;
	got = pread(ktap_err, ktap_err_text, len, 0);
	ktap_err_text[got > 0 ? got : 0] = '\0';
	return ktap_err_text;
}

void ktap_stderr_reset(void)
{
	fflush(stderr);
	if (ftruncate(ktap_err, 0))
		abort();
}

struct ktap_suite {
	const struct ktap_case *cases;
	const size_t *nr;
};

int main(void)
{
	static const struct ktap_suite suites[] = {
		{ format_cases, &nr_format_cases },
		{ plan_cases, &nr_plan_cases },
		{ restore_cases, &nr_restore_cases },
		{ rm_cases, &nr_rm_cases },
		{ record_cases, &nr_record_cases },
		{ watch_cases, &nr_watch_cases },
		{ sys_cases, &nr_sys_cases },
	};
	size_t nr_suites = ARRAY_SIZE(suites);
	char name[] = "/tmp/ktap-stderr-XXXXXX";
	size_t total = 0;
	size_t n = 0;
	int nr_failed = 0;
	size_t i;
	size_t k;

	setvbuf(stdout, NULL, _IOLBF, 0);

	ktap_real_stderr = dup(2);
	ktap_err = mkstemp(name);
	if (ktap_real_stderr < 0 || ktap_err < 0)
		return 2;
	unlink(name);
	fcntl(ktap_err, F_SETFL, O_APPEND);
	for (i = 0; i < nr_suites; i++)
		total += *suites[i].nr;
	printf("KTAP version 1\n1..%zu\n", total);
	for (i = 0; i < nr_suites; i++) {
		for (k = 0; k < *suites[i].nr; k++) {
			const struct ktap_case *c = &suites[i].cases[k];

			ktap_failed = false;
			fflush(stderr);
			dup2(ktap_err, 2);
			ktap_stderr_reset();
			c->fn();
			fflush(stderr);
			dup2(ktap_real_stderr, 2);
			if (ktap_failed) {
				ktap_note("stderr", ktap_stderr());
				nr_failed++;
			}
			printf("%sok %zu %s\n", ktap_failed ? "not " : "", ++n,
			       c->name);
		}
	}
	printf("# Totals: pass:%zu fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       total - nr_failed, nr_failed);
	return nr_failed ? 1 : 0;
}
