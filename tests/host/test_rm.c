// SPDX-License-Identifier: GPL-2.0
/*
 * configfs rm: removal order, default groups, and stopping on refusals.
 */
#include <errno.h>
#include <string.h>

#include "configfs.h"
#include "host.h"
#include "models.h"

static int rm(struct fake *f, const char *path)
{
	return rm_paths(&f->fs, (char *[]){ (char *)path }, 1, true, false);
}

static bool rm_removes_links_into_the_subtree_first(void)
{
	struct fake f;

	model_nvmet(&f);
	user_mkdir(&f, "nvmet/subsystems/s1");
	user_mkdir(&f, "nvmet/subsystems/s1/namespaces/1");
	user_mkdir(&f, "nvmet/ports/1");
	user_set(&f, "nvmet/ports/1/addr_trtype", "loop");
	user_link(&f, "nvmet/ports/1/subsystems/s1", "nvmet/subsystems/s1");
	EXPECT(rm(&f, "nvmet/subsystems/s1") == 0);
	EXPECT(!fake_exists(&f, "nvmet/subsystems/s1"));
	EXPECT(!fake_exists(&f, "nvmet/ports/1/subsystems/s1"));
	EXPECT(fake_exists(&f, "nvmet/ports/1"));
	EXPECT(fake_log_pos(&f, "unlink nvmet/ports/1/subsystems/s1") <
	       fake_log_pos(&f, "rmdir nvmet/subsystems/s1/namespaces/1"));
	fake_free(&f);
	return true;
}

static bool rm_leaves_default_groups_to_their_parents(void)
{
	struct fake f;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	user_mkdir(&f, "sub/i/dg/inner");
	EXPECT(rm(&f, "sub/i") == 0);
	EXPECT(!fake_exists(&f, "sub/i"));
	EXPECT(fake_log_pos(&f, "rmdir sub/i/dg/inner") >= 0);
	EXPECT(fake_log_pos(&f, "rmdir sub/i/dg") < 0);
	EXPECT(!strstr(ktap_stderr(), "sub/i"));
	fake_free(&f);
	return true;
}

static bool rm_empties_a_subsystem_root_and_keeps_it(void)
{
	struct fake f;

	model_nvmet(&f);
	user_mkdir(&f, "nvmet/subsystems/s1");
	user_mkdir(&f, "nvmet/hosts/h1");
	user_link(&f, "nvmet/subsystems/s1/allowed_hosts/h1", "nvmet/hosts/h1");
	EXPECT(rm(&f, "nvmet") == 0);
	EXPECT(fake_exists(&f, "nvmet/subsystems"));
	EXPECT(!fake_exists(&f, "nvmet/subsystems/s1"));
	EXPECT(!fake_exists(&f, "nvmet/hosts/h1"));
	EXPECT(strstr(ktap_stderr(), "nvmet: a default group or subsystem root"));
	fake_free(&f);
	return true;
}

static int busy_rmdir(struct fake *fake, const char *path)
{
	(void)fake;
	return strcmp(path, "sub/b") ? 0 : -EBUSY;
}

static int generic_mkdir_dg(struct fake *fake, const char *path)
{
	(void)fake;
	(void)path;
	return 0;
}

static bool rm_stops_at_a_busy_item_and_says_so(void)
{
	static const struct fake_hooks hooks = {
		.mkdir = generic_mkdir_dg,
		.rmdir = busy_rmdir,
	};
	struct fake f;

	fake_init(&f, &hooks);
	fake_dir(&f, "sub", false);
	user_mkdir(&f, "sub/a");
	user_mkdir(&f, "sub/b");
	user_mkdir(&f, "sub/c");
	EXPECT(rm(&f, "sub") == -EBUSY);
	EXPECT(!fake_exists(&f, "sub/c"));
	EXPECT(fake_exists(&f, "sub/b") && fake_exists(&f, "sub/a"));
	EXPECT(strstr(ktap_stderr(), "sub/b: cannot remove: Device or resource"));
	EXPECT(strstr(ktap_stderr(), "busy; stopped here"));
	fake_free(&f);
	return true;
}

static bool rm_removes_users_of_a_link_before_the_link(void)
{
	struct fake f;

	model_lio(&f);
	user_mkdir(&f, "target/core/disk");
	user_mkdir(&f, "target/tpg/lun/lun_0");
	user_link(&f, "target/tpg/lun/lun_0/disk", "target/core/disk");
	user_mkdir(&f, "target/tpg/acls/iqn.x");
	user_mkdir(&f, "target/tpg/acls/iqn.x/mlun_0");
	user_link(&f, "target/tpg/acls/iqn.x/mlun_0/lun", "target/tpg/lun/lun_0");
	EXPECT(rm(&f, "target") == 0);
	EXPECT(!fake_exists(&f, "target/core/disk"));
	EXPECT(!fake_exists(&f, "target/tpg/lun/lun_0"));
	fake_free(&f);
	return true;
}

static bool rm_refuses_an_attribute(void)
{
	struct fake f;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	EXPECT(rm(&f, "sub/i/a") == -EISDIR);
	EXPECT(fake_exists(&f, "sub/i/a"));
	fake_free(&f);
	return true;
}

static bool rm_without_r_removes_only_empty_items(void)
{
	struct fake f;

	model_generic(&f);
	user_mkdir(&f, "sub/i");
	user_mkdir(&f, "sub/j");
	user_mkdir(&f, "sub/i/dg/inner");
	EXPECT(rm_paths(&f.fs, (char *[]){ "sub/i" }, 1, false, false) ==
	       -ENOTEMPTY);
	EXPECT(strstr(ktap_stderr(), "(use rm -r)"));
	EXPECT(rm_paths(&f.fs, (char *[]){ "sub/j" }, 1, false, false) == 0);
	EXPECT(!fake_exists(&f, "sub/j"));
	fake_free(&f);
	return true;
}

const struct ktap_case rm_cases[] = {
	KTAP_CASE(rm_removes_links_into_the_subtree_first),
	KTAP_CASE(rm_leaves_default_groups_to_their_parents),
	KTAP_CASE(rm_empties_a_subsystem_root_and_keeps_it),
	KTAP_CASE(rm_stops_at_a_busy_item_and_says_so),
	KTAP_CASE(rm_removes_users_of_a_link_before_the_link),
	KTAP_CASE(rm_refuses_an_attribute),
	KTAP_CASE(rm_without_r_removes_only_empty_items),
};

const size_t nr_rm_cases = ARRAY_SIZE(rm_cases);
