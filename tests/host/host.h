/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host tests' own additions to the one KTAP harness (tests/lib/ktap.h):
 * what the code under test writes to stderr is captured per case and shown
 * only when the case fails (runner.c), and the suites the runner runs.
 */
#ifndef HOST_H
#define HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "ktap.h"

/* What the tool wrote to stderr since the case began. */
const char *ktap_stderr(void);
void ktap_stderr_reset(void);

/* Prints @text as diagnostics, each line indented under "# @label:". */
void ktap_note(const char *label, const char *text);

#define EXPECT_STR(a, b)						\
	do {								\
		const char *_a = (a);					\
		const char *_b = (b);					\
		if (!_a || !_b || strcmp(_a, _b)) {			\
			ktap_expect(false, #a " == " #b, __FILE__,	\
				    __LINE__);				\
			ktap_note("got", _a);				\
			ktap_note("want", _b);				\
		}							\
	} while (0)

/* The tool's write(2) calls, wrapped at link time (test_sys.c). */
ssize_t __real_write(int fd, const void *buf, size_t len);
ssize_t __wrap_write(int fd, const void *buf, size_t len);

extern const struct ktap_case format_cases[];
extern const size_t nr_format_cases;
extern const struct ktap_case plan_cases[];
extern const size_t nr_plan_cases;
extern const struct ktap_case restore_cases[];
extern const size_t nr_restore_cases;
extern const struct ktap_case rm_cases[];
extern const size_t nr_rm_cases;
extern const struct ktap_case record_cases[];
extern const size_t nr_record_cases;
extern const struct ktap_case watch_cases[];
extern const size_t nr_watch_cases;
extern const struct ktap_case sys_cases[];
extern const size_t nr_sys_cases;

#endif /* HOST_H */
