// SPDX-License-Identifier: GPL-2.0
/*
 * Runs every host test case and reports in KTAP version 1, through the
 * one harness (tests/lib/ktap.h). A case's stderr is captured, and shown
 * only when it fails.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "configfs.h"
#include "host.h"

static int ktap_err = -1;	/* the case's captured stderr, O_APPEND */
static char ktap_err_text[65536];
static int ktap_real_stderr;

void ktap_note(const char *label, const char *text)
{
	const char *p = text ? text : "(null)";

	say("%s:", label);
	while (*p) {
		const char *nl = strchrnul(p, '\n');

		say("  %.*s", (int)(nl - p), p);
		p = *nl ? nl + 1 : nl;
	}
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
	char name[] = "/tmp/ktap-stderr-XXXXXX";
	size_t total = 0;
	int n = 0;
	size_t i;
	size_t k;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* Diagnostics to our stdout, even while a case captures fd 1. */
	ktap_diag = fdopen(dup(1), "w");
	ktap_real_stderr = dup(2);
	ktap_err = mkstemp(name);
	if (!ktap_diag || ktap_real_stderr < 0 || ktap_err < 0)
		return 2;
	unlink(name);
	fcntl(ktap_err, F_SETFL, O_APPEND);
	for (i = 0; i < ARRAY_SIZE(suites); i++)
		total += *suites[i].nr;
	ktap_plan(total);
	for (i = 0; i < ARRAY_SIZE(suites); i++) {
		for (k = 0; k < *suites[i].nr; k++) {
			const struct ktap_case *c = &suites[i].cases[k];
			bool ok;

			case_failed = false;
			fflush(stderr);
			dup2(ktap_err, 2);
			ktap_stderr_reset();
			ok = c->fn() && !case_failed;
			fflush(stderr);
			dup2(ktap_real_stderr, 2);
			if (!ok)
				ktap_note("stderr", ktap_stderr());
			ktap_result(++n, c->name, ok, NULL);
		}
	}
	printf("# Totals: pass:%zu fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       total - ktap_failed, ktap_failed);
	return ktap_exit_status();
}
