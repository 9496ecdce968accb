#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Kernel-side removal (docs/differences.md #4) racing user space: each case
# holds a callback at one of cng_test's gates while the other side runs,
# and is named after the finding of issue 15 it shows (in brackets). Not
# run on stock: its unregister leaves the user items behind, pinning
# cng_test and configfs for good.
#
#   cng_test/
#   |-- items/p/l -> rtm/a     a link into the part    [1a, 1b, 8]
#   |-- items/p/m -> items/y   made while unregistering          [8]
#   |-- items/y/
#   `-- rtm/a/                 ctl "register_make rtm", then mkdir a
set -eu
. ./conf_lib.sh
. ./diff_lib.sh

TMP=/tmp/diff_unregister_race
BG=

cleanup() {
	set +e
	cng_loaded || { rm -rf "$TMP"; return 0; }
	echo go > "$T/gate"
	for p in $BG; do wait "$p"; done
	rm -f "$T/items/p/l" "$T/items/p/m"
	rmdir "$T/items/p" "$T/items/y" 2>/dev/null
	echo "unregister rtm" > "$T/ctl" 2>/dev/null
	rm -rf "$TMP"
	rmmod cng_test
}
trap cleanup EXIT




# line EVENT: its line number in the log (0 if absent).
line() {
	grep -n -x -F "$1" "$T/events" | head -n 1 | cut -d: -f1 | grep . ||
		echo 0
}

# before A B: event A is logged, and before event B.
before() {
	b_a=$(line "$1") b_b=$(line "$2")
	if [ "$b_a" -eq 0 ] || [ "$b_b" -eq 0 ] || [ "$b_a" -ge "$b_b" ]; then
		echo "# '$1' (line $b_a) is not before '$2' (line $b_b)"
		sed 's/^/#   /' "$T/events"
		return 1
	fi
}

not_logged() {
	if grep -q -x -F "$1" "$T/events"; then
		echo "# logged too early: $1"
		sed 's/^/#   /' "$T/events"
		return 1
	fi
}

# The part: rtm/a, and items/p/l pointing at it from outside.
build() {
	ctl register_make rtm &&
	run mkdir "$T/rtm/a" "$T/items/p" &&
	run ln -s "$T/rtm/a" "$T/items/p/l" &&
	clear_events
}

# raced HOLD AFTER: HOLD lines a race up and checks it while a callback
# is held; whatever happens, the held callback then goes on and every
# background command ends; AFTER checks the outcome if HOLD passed.
raced() {
	"$1"
	rc_hold=$?
	echo "# + echo go > gate"
	echo go > "$T/gate"
	for p in $BG; do wait "$p" || rc_hold=1; done
	BG=
	[ $rc_hold = 0 ] && "$2"
}

# [1a] unlink of a link into the part, held in drop_link: unregister
# waits for it before it drops the link's target.
unlink_held_in_drop_link() {
	build &&
	run sh -c "echo 'block drop_link' > $T/gate" &&
	{ rm "$T/items/p/l" & } && BG=$! &&
	wait_for gate_waiting 1 &&
	{ echo "unregister rtm" > "$T/ctl" & } && BG="$BG $!" &&
	wait_for in_d_state $! &&
	not_logged "drop_item rtm/a"
}

unlink_dropped_link_first() {
	before "drop_link items/p rtm/a" "drop_item rtm/a" &&
	no_late_events &&
	run rmdir "$T/items/p"
}

# [1b] unregister removes the link into the part itself, held in
# drop_link: rmdir of the link's directory waits until drop_link is done.
unregister_held_in_drop_link() {
	build &&
	run sh -c "echo 'block drop_link' > $T/gate" &&
	{ echo "unregister rtm" > "$T/ctl" & } && BG=$! &&
	wait_for gate_waiting 1 &&
	{ conf_sys rmdir "$T/items/p" > "$TMP/rmdir" & } && BG="$BG $!" &&
	wait_for in_d_state $! &&
	not_logged "drop_item items/p"
}

rmdir_came_after_drop_link() {
	test "$(cat "$TMP/rmdir")" = OK &&
	before "drop_link items/p rtm/a" "drop_item items/p" &&
	no_late_events
}

# [8] The kernel side's drop_link waits for an allow_link in the same
# directory, as unlink(2) would: both run with the directory locked.
symlink_held_in_allow_link() {
	build &&
	run mkdir "$T/items/y" &&
	run sh -c "echo 'block allow_link' > $T/gate" &&
	{ ln -s "$T/items/y" "$T/items/p/m" & } && BG=$! &&
	wait_for gate_waiting 1 &&
	{ echo "unregister rtm" > "$T/ctl" & } && BG="$BG $!" &&
	wait_for in_d_state $! &&
	not_logged "drop_link items/p rtm/a"
}

drop_link_came_after_allow_link() {
	before "allow_link items/p items/y" "drop_link items/p rtm/a" &&
	no_late_events &&
	run rm "$T/items/p/m" &&
	run rmdir "$T/items/y" "$T/items/p"
}

why="stock leaves the part's user items behind, pinning cng_test"

ktap_plan 4

mkdir -p "$TMP"
cng_load
base=$(live)
not_on_stock "unregister_waits_for_a_racing_unlinks_drop_link" "$why" \
	raced unlink_held_in_drop_link unlink_dropped_link_first
not_on_stock "rmdir_of_a_links_directory_waits_for_unregisters_drop_link" \
	"$why" raced unregister_held_in_drop_link rmdir_came_after_drop_link
not_on_stock "unregisters_drop_link_waits_for_allow_link_in_its_directory" \
	"$why" raced symlink_held_in_allow_link drop_link_came_after_allow_link
check "every_object_released_no_late_callback" sh -c \
	". ./conf_lib.sh; [ \$(live) = $base ] && no_late_events"
cng_unload
ktap_done
