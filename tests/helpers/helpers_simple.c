// SPDX-License-Identifier: GPL-2.0
/*
 * helpers_simple: samples/cng_simple (seven lines of configfs-ng.h's
 * helpers) behaves as stock's sample 02-simple-children does, on both
 * modules; its refusals give their reason (ours: the error record;
 * stock: the kernel log).
 *
 *   /sys/kernel/config/cng_simple/
 *     description
 *     a/
 *       storeme
 */
#include "helpers_lib.h"

#define S	CFS "/cng_simple"
#define INT_RANGE	"is not in -2147483648..2147483647"

static bool t_description(void)
{
	EXPECT(is(S "/description",
		  "[cng_simple]\n\nmkdir makes children with storeme.\n"));
	EXPECT(FAILS_WITH(open(S "/description", O_WRONLY), EACCES));
	return true;
}

static bool t_mkdir(void)
{
	EXPECT(!mkdir(S "/a", 0755));
	EXPECT(!access(S "/a/storeme", R_OK | W_OK));
	EXPECT(is(S "/a/storeme", "0\n"));
	return true;
}

static bool t_store(void)
{
	EXPECT(!put(S "/a/storeme", "42"));
	EXPECT(is(S "/a/storeme", "42\n"));
	EXPECT(!put(S "/a/storeme", "-7\n"));
	EXPECT(is(S "/a/storeme", "-7\n"));
	EXPECT(!put(S "/a/storeme", "+2147483647"));
	EXPECT(is(S "/a/storeme", "2147483647\n"));
	return true;
}

static bool t_refused(void)
{
	EXPECT(refused(S "/a/storeme", "abc", EINVAL,
		       "storeme: 'abc' " INT_RANGE));
	EXPECT(logged("/cng_simple/a", "storeme: 'abc' " INT_RANGE));
	EXPECT(refused(S "/a/storeme", "0x10", EINVAL,
		       "storeme: '0x10' " INT_RANGE));
	/* Beyond an int: ERANGE, as kstrtoint() gives stock's sample. */
	EXPECT(refused(S "/a/storeme", "2147483648", ERANGE,
		       "storeme: '2147483648' " INT_RANGE));
	EXPECT(is(S "/a/storeme", "2147483647\n"));
	return true;
}

static bool t_children(void)
{
	EXPECT(!mkdir(S "/b", 0755));
	EXPECT(is(S "/b/storeme", "0\n"));
	EXPECT(FAILS_WITH(mkdir(S "/b/c", 0755), EPERM));
	EXPECT(!rmdir(S "/b"));
	return true;
}

static bool t_rmdir(void)
{
	EXPECT(!rmdir(S "/a"));
	EXPECT(FAILS_WITH(access(S "/a", F_OK), ENOENT));
	return true;
}

static const struct ktap_case cases[] = {
	{ "description_reads_its_text_and_is_read_only", t_description },
	{ "mkdir_makes_a_child_whose_storeme_is_0", t_mkdir },
	{ "storeme_takes_and_shows_integers", t_store },
	{ "bad_value_refused_with_a_reason_naming_it", t_refused },
	{ "children_are_items_without_children", t_children },
	{ "rmdir_removes_the_child", t_rmdir },
};

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (helpers_load("cng_simple")) {
		ktap_skip_all("setup failed");
		return 1;
	}
	run_cases(cases, ARRAY_SIZE(cases));
	sh("rmdir " S "/* 2>/dev/null");
	if (helpers_unload("cng_simple"))
		ktap_failed++;
	return ktap_exit_status();
}
