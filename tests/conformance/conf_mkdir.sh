#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# mkdir calls make_item or make_group and passes their errors through;
# default groups come and go with their parent; groups nest; names.
#
#   cng_test/
#   |-- items/
#   |   |-- a/                  make_item
#   |   `-- <names>/            long, non-ASCII: made and removed
#   |-- fixed/inner/deep/       no make op: mkdir EPERM
#   `-- n1/                     make_group
#       |-- sub/deep/           its default groups, nested
#       |-- sub/x/              make_item in a default group of a user group
#       `-- n2/sub/deep/        a nested user group and its defaults
set -eu
. ./conf_lib.sh

cleanup() {
	set +e
	for d in n1/n2 n1/sub/x n1 items/a; do
		rmdir "$T/$d" 2>/dev/null
	done
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

LONG21=abcdefghijklmnopqrstu
N255=$(printf '%0255d' 0)
N256=$(printf '%0256d' 0)
UTF8=$(printf 'caf\303\251-\342\234\223')
BYTES=$(printf 'raw\377\001x')

# mkdir PATH succeeds and the event log then holds exactly LINE...
mkdir_logs() {
	mkdir_path=$1
	shift
	clear_events
	mkdir "$mkdir_path" && events_are "$@"
}

ktap_plan 27

cng_load
base=$(live)
check "mkdir_calls_make_item" mkdir_logs "$T/items/a" "make_item items/a"
check "item_has_declared_attributes" test "$(ls "$T/items/a" | tr '\n' ' ')" = \
	"big bin_ret blob blob_small blob_wo data link_ret name show_ret store_ret wo "
check "mkdir_calls_make_group" mkdir_logs "$T/n1" "make_group n1"
check "default_groups_appear_with_parent" test -d "$T/n1/sub/deep"
check "mkdir_nested_user_group" mkdir_logs "$T/n1/n2" "make_group n1/n2"
check "nested_group_has_its_default_groups" test -d "$T/n1/n2/sub/deep"
check "mkdir_in_default_group_of_user_group_calls_make_item" \
	mkdir_logs "$T/n1/sub/x" "make_item n1/sub/x"
ctl make_err 28
clear_events
check "make_item_error_returned_by_mkdir" sys_is ENOSPC mkdir "$T/items/e"
check "failed_make_item_leaves_nothing" test ! -e "$T/items/e"
check "failed_make_item_called_once" events_are "make_item items/e"
ctl make_err 71
check "make_group_error_returned_by_mkdir" sys_is EPROTO mkdir "$T/e"
ctl make_err 0
check "make_returning_null_fails_enomem" sys_is ENOMEM mkdir "$T/items/e"
check "mkdir_existing_fails_eexist" sys_is EEXIST mkdir "$T/items/a"
check "mkdir_over_attribute_fails_eexist" sys_is EEXIST mkdir "$T/n1/data"
check "mkdir_in_item_fails_eperm" sys_is EPERM mkdir "$T/items/a/x"
check "mkdir_in_group_without_make_op_fails_eperm" \
	sys_is EPERM mkdir "$T/fixed/x"
check "mkdir_in_nested_default_group_without_make_op_fails_eperm" \
	sys_is EPERM mkdir "$T/fixed/inner/deep/x"
check "mkdir_empty_name_fails_enoent" sys_is ENOENT mkdir ""
check "mkdir_dot_fails_eexist" sys_is EEXIST mkdir "$T/items/."
check "mkdir_dotdot_fails_eexist" sys_is EEXIST mkdir "$T/items/.."
check "mkdir_name_over_name_max_fails_enametoolong" \
	sys_is ENAMETOOLONG mkdir "$T/items/$N256"

# A name is handed to the client whole, whatever its length or bytes.
name_round_trips() {
	mkdir "$T/items/$1" || return 1
	got=$(cat "$T/items/$1/name")
	# busybox ls masks odd bytes; a glob shows readdir's names as they are
	listed=0
	for e in "$T"/items/*; do
		[ "$e" = "$T/items/$1" ] && listed=$((listed + 1))
	done
	rmdir "$T/items/$1" || return 1
	[ "$got" = "$1" ] && [ "$listed" = 1 ]
}
check "name_longer_than_item_name_len_kept_whole" name_round_trips "$LONG21"
check "name_of_name_max_bytes_kept_whole" name_round_trips "$N255"
check "utf8_name_kept_whole" name_round_trips "$UTF8"
check "non_utf8_bytes_name_kept_whole" name_round_trips "$BYTES"
run rmdir "$T/n1/n2" "$T/n1/sub/x" "$T/n1" "$T/items/a"
check "default_groups_go_with_parent" test ! -e "$T/n1"
check "every_object_released" test "$(live)" = "$base"
cng_unload
ktap_done
