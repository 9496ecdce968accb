// SPDX-License-Identifier: GPL-2.0
/*
 * A symlink racing the rmdir of its target (docs/differences.md #25):
 * stock takes its reference on the target's item after the rmdir has
 * released it and calls allow_link with freed memory, so the case is not
 * run there. On ours the symlink either fails with ENOENT or is made
 * first (and then holds the target against rmdir: EBUSY), and every
 * object is released at the end. Found by fuzz_diff's concurrent
 * sequences, on stock.
 *
 *   cng_test/items/
 *   |-- a/      made and removed over and over by one process
 *   `-- b/
 *       `-- l -> ../a   linked and unlinked over and over by another
 */
#define _GNU_SOURCE
#include "guest.h"
#include "race_lib.h"

#define A	T "/items/a"
#define B	T "/items/b"
#define LINK	B "/l"
#define SECONDS	4

static bool symlink_racing_rmdir_of_target_uses_no_freed_item(void)
{
	struct timespec end;
	long linked = 0, refused = 0;
	int bad = 0;
	pid_t pid;

	if (on_stock()) {
		/* a general protection fault in cng_test's allow_link */
		case_differs = "row 25, not run: stock frees the target in use";
		return true;
	}
	EXPECT(!mkdir(B, 0755));
	pid = race_start(A, SECONDS, &end);
	while (pid > 0 && race_time_left(&end)) {
		if (!symlink(A, LINK)) {
			linked++;
			EXPECT(!unlink(LINK));
		} else if (errno == ENOENT) {
			refused++;
		} else if (bad++ < 5) {
			say("symlink l -> a: %s", ename(errno));
		}
	}
	say("l linked %ld times, refused %ld", linked, refused);
	EXPECT(race_remover_ok(pid));
	EXPECT(!bad);
	/* Both outcomes seen: the race was run, not one side alone. */
	EXPECT(linked > 0 && refused > 0);
	unlink(LINK);
	rmdir(A);
	EXPECT(!rmdir(B));
	return true;
}

int main(void)
{
	static const struct ktap_case cases[] = {
		{ "symlink_racing_rmdir_of_target_uses_no_freed_item",
		  symlink_racing_rmdir_of_target_uses_no_freed_item },
	};

	return run_cng_test_cases(cases, ARRAY_SIZE(cases));
}
