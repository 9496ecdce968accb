#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Symlinks: allow_link and drop_link as stock calls them, only between
# configfs items, stock's relative link bodies, loops, unlink rules, and
# targets held against rmdir while links point at them.
#
#   cng_test/
#   |-- items/
#   |   |-- a/  lb -> b, self -> a, lsub -> n2/sub
#   |   `-- b/  la -> a                      (a loop)
#   `-- n1/
#       |-- lb -> items/b, lnk -> (items/a/lb, resolved to items/b)
#       `-- sub/x/  ln1 -> n1
#   `-- n2/sub/                              linked: rmdir n2 EBUSY
set -eu
. ./conf_lib.sh

A=$T/items/a
B=$T/items/b

cleanup() {
	set +e
	for l in $A/lb $A/lb2 $A/self $A/lsub $A/rel $B/la $T/n1/lb $T/n1/lnk \
	    $T/n1/sub/x/ln1; do
		[ -L "$l" ] && rm "$l"
	done
	for d in n1/sub/x n1 n2 items/a items/b; do
		rmdir "$T/$d" 2>/dev/null
	done
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# symlink TARGET LINK succeeds and the log then holds exactly LINE...
link_logs() {
	ll_target=$1 ll_link=$2
	shift 2
	clear_events
	ln -s "$ll_target" "$ll_link" && events_are "$@"
}

unlink_logs() {
	ul_link=$1
	shift
	clear_events
	rm "$ul_link" && events_are "$@"
}

refused_quietly() {
	clear_events
	sys_is "$@" && events_are ""
}

body_is() {
	[ "$(readlink "$1")" = "$2" ] || {
		echo "# readlink $1: '$(readlink "$1")', want '$2'"
		return 1
	}
}

ktap_plan 34

cng_load
base=$(live)
run mkdir "$A" "$B" "$T/n1" "$T/n1/sub/x" "$T/n2"
check "symlink_calls_allow_link" link_logs "$B" "$A/lb" \
	"allow_link items/a items/b"
check "link_body_is_relative_to_configfs_root" body_is "$A/lb" \
	"../../../cng_test/items/b"
check "link_from_user_group_body" sh -c \
	"ln -s $B $T/n1/lb && [ \"\$(readlink $T/n1/lb)\" = ../../cng_test/items/b ]"
check "link_from_item_in_default_group_body" sh -c \
	"ln -s $T/n1 $T/n1/sub/x/ln1 &&
	 [ \"\$(readlink $T/n1/sub/x/ln1)\" = ../../../../cng_test/n1 ]"
check "link_is_mode_0777_symlink" test "$(stat -c %A "$A/lb")" = lrwxrwxrwx
check "link_leads_to_target" test "$(cat "$A/lb/name")" = b
check "link_to_link_resolves_to_final_target" sh -c \
	"ln -s $A/lb $T/n1/lnk &&
	 [ \"\$(readlink $T/n1/lnk)\" = ../../cng_test/items/b ]"
check "relative_target_resolves_from_caller_cwd" sh -c \
	"cd $T/items && ln -s b a/rel &&
	 [ \"\$(readlink a/rel)\" = ../../../cng_test/items/b ]"
# from /, "../b" is /b, which does not exist
enoent_from_root() {
	(cd / && sys_is ENOENT symlink ../b "$A/rel2")
}
check "relative_target_not_from_link_dir_enoent" enoent_from_root
run rm "$A/rel"
check "second_link_to_same_target_allowed" link_logs "$B" "$A/lb2" \
	"allow_link items/a items/b"
check "link_name_taken_fails_eexist" refused_quietly EEXIST symlink "$B" "$A/lb"
check "link_over_attribute_fails_eexist" \
	refused_quietly EEXIST symlink "$B" "$A/data"
check "link_in_group_without_allow_link_fails_eperm" \
	refused_quietly EPERM symlink "$B" "$T/items/lb"
check "link_in_subsystem_root_fails_eperm" \
	refused_quietly EPERM symlink "$B" "$T/lb"
check "link_to_outside_configfs_fails_eperm" \
	refused_quietly EPERM symlink /tmp "$A/ltmp"
check "link_to_attribute_fails_enotdir" \
	refused_quietly ENOTDIR symlink "$B/data" "$A/ldata"
check "link_to_missing_fails_enoent" \
	refused_quietly ENOENT symlink "$T/items/zz" "$A/lzz"
check "link_to_mount_root_fails_enoent" \
	refused_quietly ENOENT symlink "$CFS" "$A/lroot"
clear_events
check "allow_link_refusal_returned_by_symlink" sh -c \
	". ./conf_lib.sh; echo -18 > $A/link_ret && sys_is EXDEV symlink $B $A/lx &&
	 echo 0 > $A/link_ret && events_are 'allow_link items/a items/b'"
check "refused_link_not_created" test ! -L "$A/lx"
check "allow_link_refusing_target_type_eperm" sh -c \
	". ./conf_lib.sh; sys_is EPERM symlink $T/fixed $A/lf"
check "link_loop_allowed" link_logs "$A" "$B/la" "allow_link items/b items/a"
check "link_loop_walkable" test "$(cat "$A/lb/la/lb/la/name")" = a
check "link_to_self_allowed" link_logs "$A" "$A/self" \
	"allow_link items/a items/a"
check "link_to_default_group_allowed" link_logs "$T/n2/sub" "$A/lsub" \
	"allow_link items/a n2/sub"
check "rmdir_link_target_fails_ebusy" refused_quietly EBUSY rmdir "$B"
check "rmdir_parent_of_linked_default_group_fails_ebusy" \
	refused_quietly EBUSY rmdir "$T/n2"
check "rmdir_item_holding_links_and_target_fails_ebusy" \
	refused_quietly EBUSY rmdir "$A"
check "link_survives_refused_rmdir_of_target" test "$(cat "$A/lb/name")" = b
check "rmdir_on_link_fails_enotdir" refused_quietly ENOTDIR rmdir "$A/lb"
check "unlink_calls_drop_link" unlink_logs "$A/lb" "drop_link items/a items/b"
run rm "$A/lb2" "$A/self" "$A/lsub" "$B/la" "$T/n1/lb" "$T/n1/lnk"
check "rmdir_item_holding_link_fails_enotempty" sh -c \
	". ./conf_lib.sh; ln -s $B $A/lb && sys_is ENOTEMPTY rmdir $A && rm $A/lb"
run rm "$T/n1/sub/x/ln1"
run rmdir "$T/n1/sub/x" "$T/n1" "$T/n2" "$A" "$B"
check "every_object_released" test "$(live)" = "$base"
check "no_callback_after_drop" test "$(cat "$T/late")" = 0
cng_unload
ktap_done
