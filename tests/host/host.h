/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal KTAP harness: each case is a function; EXPECT() records a
 * failure and carries on. What the code under test writes to stderr is
 * captured per case and shown only when the case fails.
 */
#ifndef _KTAP_H
#define _KTAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct ktap_case {
	const char *name;
	void (*fn)(void);
};

#define KTAP_CASE(fn)	{ #fn, fn }

void ktap_fail(const char *file, int line, const char *what);
const char *ktap_stderr(void);
void ktap_stderr_reset(void);

#define EXPECT(cond)							\
	do {								\
		if (!(cond))						\
			ktap_fail(__FILE__, __LINE__, #cond);		\
	} while (0)

#define EXPECT_STR(a, b)						\
	do {								\
		const char *_a = (a);					\
		const char *_b = (b);					\
		if (!_a || !_b || strcmp(_a, _b)) {			\
			ktap_fail(__FILE__, __LINE__, #a " == " #b);	\
			ktap_note("got", _a);				\
			ktap_note("want", _b);				\
		}							\
	} while (0)

void ktap_note(const char *label, const char *text);

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

#endif /* _KTAP_H */
