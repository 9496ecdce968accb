// SPDX-License-Identifier: GPL-2.0
/*
 * configfs_depend_item_unlocked() racing the rmdir of its item
 * (docs/differences.md #26): stock follows the item's ci_group, which
 * the rmdir has cleared, and oopses on a NULL pointer, so the case is not
 * run there. On ours the depend either fails with ENOENT (the item is
 * gone or on its way out) or succeeds first, and then holds the item
 * against rmdir (EBUSY) until the undepend; every object is released at
 * the end. Found by fuzz_diff's concurrent sequences on stock (seed 5198,
 * eight processes).
 *
 *   cng_test/items/a    made and removed over and over by one process,
 *                       depended on and undepended through cng_test's ctl
 *                       ("depend_unlocked items/a", "undepend items/a")
 *                       by another
 */
#define _GNU_SOURCE
#include "guest.h"
#include "race_lib.h"

#define A	T "/items/a"
#define CTL	T "/ctl"
#define SECONDS	4

static bool depend_racing_rmdir_of_item_does_not_oops(void)
{
	struct timespec end;
	long held = 0, refused = 0;
	int bad = 0, ret;
	pid_t pid;

	if (on_stock()) {
		/* a NULL pointer dereference in configfs_depend_item_unlocked */
		case_differs = "row 26, not run: stock oopses";
		return true;
	}
	pid = race_start(A, SECONDS, &end);
	while (pid > 0 && race_time_left(&end)) {
		ret = put(CTL, "depend_unlocked items/a");
		if (!ret) {
			held++;
			EXPECT(!put(CTL, "undepend items/a"));
		} else if (ret == -ENOENT) {
			refused++;
		} else if (bad++ < 5) {
			say("depend_unlocked items/a: %s", ename(-ret));
		}
	}
	say("a depended on %ld times, refused %ld", held, refused);
	EXPECT(race_remover_ok(pid));
	EXPECT(!bad);
	/* Both outcomes seen: the race was run, not one side alone. */
	EXPECT(held > 0 && refused > 0);
	rmdir(A);
	return true;
}

int main(void)
{
	static const struct ktap_case cases[] = {
		{ "depend_racing_rmdir_of_item_does_not_oops",
		  depend_racing_rmdir_of_item_does_not_oops },
	};

	return run_cng_test_cases(cases, ARRAY_SIZE(cases));
}
