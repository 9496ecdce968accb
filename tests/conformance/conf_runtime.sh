#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Groups the kernel registers and unregisters while configfs is mounted:
# configfs_register_group() / configfs_unregister_group() (with a default
# group, dropped by configfs_remove_default_groups() at release) and
# configfs_register_default_group() / configfs_unregister_default_group(),
# including with a cwd inside the part removed.
#
#   cng_test/
#   |-- rt1/          ctl "register rt1": name, data
#   |   `-- inner/    its default group
#   |-- rd1/          ctl "register_default rd1": name
#   `-- n1/           user-made; "register n1" then clashes: EEXIST
set -eu
. ./conf_lib.sh

cleanup() {
	set +e
	cd /tests
	echo "unregister rt1" > "$T/ctl" 2>/dev/null
	echo "unregister_default rd1" > "$T/ctl" 2>/dev/null
	rmdir "$T/n1" 2>/dev/null
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

refused_quietly() {
	clear_events
	sys_is "$@" && events_are ""
}

# In a subshell whose cwd is inside rt1/inner, unregister rt1, then check
# what the cwd offers.
cwd_in_unregistered() {
	(
		cd "$T/rt1/inner" || exit 1
		echo "unregister rt1" > "$T/ctl" || exit 1
		sys_is ENOENT open name r || exit 1
		sys_is ENOENT mkdir x || exit 1
		! ls . >/dev/null 2>&1 || exit 1
		test -d . || exit 1
	)
}

# links NAME: the link count stat() gives NAME.
links() {
	stat -c %h "$1"
}

ktap_plan 28

root_links=$(links "$CFS")
cng_load
check "registered_subsystem_counts_in_root_links" \
	test "$(links "$CFS")" -eq $((root_links + 1))
base=$(live)
group_links=$(links "$T")
check "lookup_before_register_finds_nothing" test ! -e "$T/rt1"
check "register_group_succeeds" sys_is "OK 12" write "$T/ctl" "register rt1"
check "registered_group_found_after_a_failed_lookup" test -d "$T/rt1"
check "registered_group_counts_in_parent_links" \
	test "$(links "$T")" -eq $((group_links + 1))
check "registered_group_links_count_its_default_group" \
	test "$(links "$T/rt1")" -eq 3
check "registered_group_appears_with_default_group" test -d "$T/rt1/inner"
check "registered_group_attrs_work" sh -c "echo hi > $T/rt1/data &&
	[ \"\$(cat $T/rt1/data)\" = hi ] && [ \"\$(cat $T/rt1/name)\" = rt1 ]"
check "register_group_twice_fails_eexist" sys_is EEXIST write "$T/ctl" \
	"register rt1"
check "mkdir_over_registered_group_fails_eexist" \
	refused_quietly EEXIST mkdir "$T/rt1"
check "rmdir_registered_group_fails_eperm" refused_quietly EPERM rmdir "$T/rt1"
check "rmdir_registered_default_group_fails_eperm" \
	refused_quietly EPERM rmdir "$T/rt1/inner"
check "mkdir_in_registered_group_without_make_op_fails_eperm" \
	refused_quietly EPERM mkdir "$T/rt1/x"
clear_events
ctl unregister rt1
check "unregister_group_removes_it" test ! -e "$T/rt1"
check "unregistered_group_leaves_parent_links" \
	test "$(links "$T")" -eq "$group_links"
check "unregister_then_release_drops_default_groups" \
	events_are "release rt1" "release rt1/inner"
run mkdir "$T/n1"
check "register_over_user_group_fails_eexist" sys_is EEXIST write "$T/ctl" \
	"register n1"
check "user_group_intact_after_clash" test -d "$T/n1/sub/deep"
run rmdir "$T/n1"
ctl register n1
check "register_of_a_name_just_removed_by_rmdir_appears" test -d "$T/n1/inner"
ctl unregister n1
check "register_default_group_succeeds" sys_is "OK 20" write "$T/ctl" \
	"register_default rd1"
check "default_group_registered_appears" test "$(cat "$T/rd1/name")" = rd1
check "rmdir_registered_default_group_eperm" refused_quietly EPERM rmdir "$T/rd1"
ctl unregister_default rd1
check "unregister_default_group_removes_it" test ! -e "$T/rd1"
ctl register rt1
check "unregister_with_cwd_inside_leaves_dead_cwd_enoent" cwd_in_unregistered
check "unregistered_group_gone" test ! -e "$T/rt1"
ctl register rt1
check "name_reusable_after_unregister" test -d "$T/rt1/inner"
ctl unregister rt1
check "every_object_released" test "$(live)" = "$base"
cng_unload
check "unregistered_subsystem_leaves_root_links" \
	test "$(links "$CFS")" -eq "$root_links"
ktap_done
