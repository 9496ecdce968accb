#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Differences from stock in rmdir (docs/differences.md #5, #6):
#   #5 rmdir of an item whose default group is depended on fails with
#      EBUSY. Stock removes it, and the later undepend reads the freed
#      dirent: not run there.
#   #6 rmdir of an item while a mkdir runs in one of its default groups:
#      ours fails the mkdir with ENOENT and removes the item. The make
#      callback is held (ctl make_block) until the rmdir sleeps, so the
#      race always meets. Stock does the same in that window: it waits for
#      the mkdir (then ENOTEMPTY) only if the rmdir comes after make_item
#      returned, while the mkdir attaches the item, and no callback can
#      hold that window.
#
#   cng_test/
#   |-- n1/sub/deep/   sub, then deep depended on
#   `-- n2/sub/x       mkdir x blocked in make_item while rmdir n2 runs
set -eu
. ./conf_lib.sh
. ./diff_lib.sh

TMP=/tmp/diff_rmdir
MK='' RM=''

cleanup() {
	set +e
	rm -rf "$TMP"
	cng_loaded || return 0
	echo make_go 2>/dev/null >&4
	exec 4>&-
	[ -n "$MK" ] && wait "$MK"
	[ -n "$RM" ] && wait "$RM"
	echo "undepend n1/sub" > "$T/ctl" 2>/dev/null
	echo "undepend n1/sub/deep" > "$T/ctl" 2>/dev/null
	rmdir "$T/n1" "$T/n2/sub/x" "$T/n2" 2>/dev/null
	rmmod cng_test
}
trap cleanup EXIT

refused_quietly() {
	clear_events
	sys_is "$@" && events_are ""
}

depended_default_group_blocks_rmdir() {
	ctl depend "$1" &&
	refused_quietly EBUSY rmdir "$T/n1" &&
	test -d "$T/n1/sub/deep" &&
	ctl undepend "$1"
}


make_waiting() {
	grep -q '^make_wait$' "$T/events"
}


# Starts mkdir n2/sub/x, held in make_item, then rmdir n2, and lets the
# mkdir go once the rmdir sleeps. Results in $TMP/mkdir and $TMP/rmdir.
# The rmdir holds cng_test/ locked, so make_go goes through fd 4, opened
# before: a lookup of ctl would wait for the rmdir.
race_mkdir_rmdir() {
	run mkdir "$T/n2"
	clear_events
	exec 4> "$T/ctl"
	ctl make_block
	conf_sys mkdir "$T/n2/sub/x" > "$TMP/mkdir" &
	MK=$!
	wait_for make_waiting || return 1
	conf_sys rmdir "$T/n2" > "$TMP/rmdir" &
	RM=$!
	slept=0
	wait_for in_d_state $RM || slept=1
	echo "# + echo make_go >&4"
	echo make_go >&4
	exec 4>&-
	wait $MK
	wait $RM
	MK='' RM=''
	[ $slept = 0 ] || return 1
	echo "# mkdir: $(cat "$TMP/mkdir"), rmdir: $(cat "$TMP/rmdir")"
}

race_during_make() {
	race_mkdir_rmdir &&
	[ "$(cat "$TMP/mkdir")" = ENOENT ] && [ "$(cat "$TMP/rmdir")" = OK ] &&
	[ ! -e "$T/n2" ] &&
	events_are "make_item n2/sub/x" "make_wait" "release n2/sub/x" \
		"disconnect_notify n2" "drop_item n2" "release n2" \
		"release n2/sub" "release n2/sub/deep"
}

ktap_plan 5

mkdir -p "$TMP"
cng_load
base=$(live)
run mkdir "$T/n1"
not_on_stock "rmdir_with_default_group_depended_fails_ebusy" \
	"stock removes it; the later undepend reads the freed dirent" \
	depended_default_group_blocks_rmdir n1/sub
not_on_stock "rmdir_with_nested_default_group_depended_fails_ebusy" \
	"stock removes it; the later undepend reads the freed dirent" \
	depended_default_group_blocks_rmdir n1/sub/deep
check "rmdir_after_undepend_of_default_group_succeeds" rmdir "$T/n1"
agrees "rmdir_during_make_item_in_default_group_wins_mkdir_enoent" \
	race_during_make
check "every_object_released" test "$(live)" = "$base"
cng_unload
ktap_done
