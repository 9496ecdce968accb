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
#include "conf_ktap.h"
#include "race_lib.h"

#define A	T "/items/a"
#define B	T "/items/b"
#define LINK	B "/l"
#define SECONDS	4

static bool symlink_racing_rmdir_of_target_uses_no_freed_item(void)
{
	struct timespec end;
	long linked = 0, refused = 0;
	int bad = 0, status;
	pid_t pid;

	if (on_stock()) {
		/* a general protection fault in cng_test's allow_link */
		case_differs = "row 25, not run: stock frees the target in use";
		return true;
	}
	EXPECT(!mkdir(B, 0755));
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += SECONDS;
	fflush(stdout);
	pid = fork();
	if (!pid)
		race_remover(A, &end);
	EXPECT(pid > 0);
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
	EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid);
	EXPECT(WIFEXITED(status) && !WEXITSTATUS(status));
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
	static const struct tcase cases[] = {
		{ "symlink_racing_rmdir_of_target_uses_no_freed_item",
		  symlink_racing_rmdir_of_target_uses_no_freed_item },
	};
	int live;

	if (cng_load()) {
		printf("KTAP version 1\n1..0 # SKIP insmod failed\n");
		return 1;
	}
	live = read_int(T "/live");
	run_cases(cases, ARRAY_SIZE(cases));
	if (read_int(T "/live") != live || read_int(T "/late")) {
		say("live %d (%d at load), late %d", read_int(T "/live"), live,
		    read_int(T "/late"));
		ktap_failed++;
	}
	if (sh("rmmod cng_test"))
		ktap_failed++;
	return ktap_failed ? 1 : 0;
}
