#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# rmdir calls disconnect_notify, drop_item and the final put in stock's
# order, and refuses what stock refuses with stock's errno; so do rename,
# unlink, link, mknod and create, which configfs does not offer.
#
#   cng_test/
#   |-- items/a/ items/b/       rmdir: disconnect_notify, drop_item, release
#   |-- fixed/inner/deep/       default groups: rmdir EPERM
#   `-- n1/                     rmdir ENOTEMPTY while n2/ or sub/x/ exist
#       |-- n2/
#       `-- sub/x/              sub has no drop_item: rmdir is the final put
set -eu
. ./conf_lib.sh

cleanup() {
	set +e
	for d in n1/n2 n1/sub/x n1 items/a items/b; do
		rmdir "$T/$d" 2>/dev/null
	done
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# rmdir PATH succeeds and the event log then holds exactly LINE...
rmdir_logs() {
	rmdir_path=$1
	shift
	clear_events
	rmdir "$rmdir_path" && events_are "$@"
}

# The call fails with ERRNO and calls nothing in the client.
refused_quietly() {
	clear_events
	sys_is "$@" && events_are ""
}

ktap_plan 27

cng_load
base=$(live)
run mkdir "$T/items/a" "$T/items/b" "$T/n1" "$T/n1/n2" "$T/n1/sub/x"
check "rmdir_with_user_group_child_fails_enotempty" \
	refused_quietly ENOTEMPTY rmdir "$T/n1"
run rmdir "$T/n1/n2"
check "rmdir_with_item_in_default_group_fails_enotempty" \
	refused_quietly ENOTEMPTY rmdir "$T/n1"
check "rmdir_default_group_fails_eperm" refused_quietly EPERM rmdir "$T/items"
check "rmdir_nested_default_group_fails_eperm" \
	refused_quietly EPERM rmdir "$T/fixed/inner/deep"
check "rmdir_default_group_of_user_group_fails_eperm" \
	refused_quietly EPERM rmdir "$T/n1/sub"
check "rmdir_subsystem_root_fails_eperm" refused_quietly EPERM rmdir "$T"
check "rmdir_attribute_fails_enotdir" \
	refused_quietly ENOTDIR rmdir "$T/items/a/data"
check "rmdir_missing_fails_enoent" refused_quietly ENOENT rmdir "$T/items/zz"
check "rename_item_fails_eperm" \
	refused_quietly EPERM rename "$T/items/a" "$T/items/c"
check "rename_item_over_item_fails_eperm" \
	refused_quietly EPERM rename "$T/items/a" "$T/items/b"
check "rename_item_to_other_group_fails_eperm" \
	refused_quietly EPERM rename "$T/items/a" "$T/n1/sub/a"
check "rename_user_group_fails_eperm" refused_quietly EPERM rename "$T/n1" "$T/n9"
check "rename_attribute_fails_eperm" \
	refused_quietly EPERM rename "$T/items/a/data" "$T/items/a/d2"
check "rename_default_group_fails_eperm" \
	refused_quietly EPERM rename "$T/fixed" "$T/fixed2"
check "unlink_attribute_fails_eperm" refused_quietly EPERM unlink "$T/items/a/data"
check "unlink_directory_fails_eisdir" refused_quietly EISDIR unlink "$T/items/a"
check "hard_link_attribute_fails_eperm" \
	refused_quietly EPERM link "$T/items/a/data" "$T/items/a/d2"
check "create_file_fails_eacces" refused_quietly EACCES creat "$T/items/a/new"
check "mkfifo_fails_eperm" refused_quietly EPERM mknod "$T/items/a/new"
check "rmdir_item_disconnect_drop_release_in_order" rmdir_logs "$T/items/a" \
	"disconnect_notify items/a" "drop_item items/a" "release items/a"
check "rmdir_in_group_without_drop_item_is_final_put" \
	rmdir_logs "$T/n1/sub/x" "release n1/sub/x"
check "rmdir_user_group_releases_default_groups_after_it" rmdir_logs "$T/n1" \
	"disconnect_notify n1" "drop_item n1" "release n1" "release n1/sub" \
	"release n1/sub/deep"
check "removed_group_and_defaults_gone" test ! -e "$T/n1"
check "rmdir_removed_fails_enoent" refused_quietly ENOENT rmdir "$T/n1"
run mkdir "$T/items/a"
check "name_reusable_after_rmdir" test -d "$T/items/a"
run rmdir "$T/items/a" "$T/items/b"
check "every_object_released" test "$(live)" = "$base"
check "no_callback_after_drop" test "$(cat "$T/late")" = 0
cng_unload
ktap_done
