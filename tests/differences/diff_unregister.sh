#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Differences from stock in kernel-side removal (docs/differences.md #4,
# #10):
#   #4 configfs_unregister_group() of a part holding user-made items,
#      links in, out and within it, and a cwd: ours drops the links, then
#      the items bottom up (disconnect_notify, drop_item), and leaks
#      nothing. Stock orphans them with their module pins, so cng_test
#      and configfs could never be unloaded: not run there.
#   #10 configfs_undepend_item() of an item the kernel side removed is
#      ignored. Stock reads the freed dirent (BUG_ON): not run there.
#
#   cng_test/
#   |-- items/x/in -> rtm/a/b      link into the part
#   |-- rtm/                       ctl "register_make rtm"
#   |   |-- inner/                 its default group
#   |   `-- a/                     user-made NODE
#   |       |-- out -> items/x     link out of the part
#   |       |-- b/                 user-made NODE
#   |       |   |-- l -> rtm/a/sub/i   link within
#   |       |   `-- sub/deep/      cwd of the unregistering shell
#   |       `-- sub/i/             user-made item (no drop_item: final put)
#   |-- rtd/d/                     ctl "register_make rtd", depended on
#   |-- rtn/n/n/.../n/             ctl "register_make rtn", 1,500 deep
#   `-- rt1/inner/                 ctl "register rt1", inner depended on
set -eu
. ./conf_lib.sh
. ./diff_lib.sh

R=$T/rtm

cleanup() {
	set +e
	cd /tests
	cng_loaded || return 0
	for c in "undepend rtd/d" "undepend rt1/inner" "unregister rtm" \
		"unregister rtd" "unregister rt1" "unregister rtn"; do
		echo "$c" > "$T/ctl" 2>/dev/null
	done
	rm -f "$T/items/x/in" 2>/dev/null
	rmdir "$T/items/x" 2>/dev/null
	rmmod cng_test
}
trap cleanup EXIT

build_part() {
	run sh -c "echo 'register_make rtm' > $T/ctl" &&
	run mkdir "$T/items/x" "$R/a" "$R/a/b" "$R/a/sub/i" &&
	run ln -s "$T/items/x" "$R/a/out" &&
	run ln -s "$R/a/b" "$T/items/x/in" &&
	run ln -s "$R/a/sub/i" "$R/a/b/l"
}

# From a cwd inside the part, unregister it; the cwd then offers nothing.
unregister_from_inside() {
	(
		cd "$R/a/b/sub/deep" || exit 1
		echo "unregister rtm" > "$T/ctl" || exit 1
		sys_is ENOENT open name r || exit 1
		sys_is ENOENT mkdir x || exit 1
	)
}

# The log holds exactly these lines, in any order.
event_set_is() {
	es_want=$(printf '%s\n' "$@" | sort)
	es_got=$(sort "$T/events")
	if [ "$es_got" != "$es_want" ]; then
		echo "# events differ; want (sorted):"
		printf '%s\n' "$es_want" | sed 's/^/#   /'
		echo "# got:"
		sed 's/^/#   /' "$T/events"
		return 1
	fi
}

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
		return 1
	fi
}

all_removed_events() {
	event_set_is \
		"drop_link rtm/a items/x" \
		"drop_link items/x rtm/a/b" \
		"drop_link rtm/a/b rtm/a/sub/i" \
		"release rtm/a/sub/i" \
		"disconnect_notify rtm/a/b" "drop_item rtm/a/b" \
		"release rtm/a/b" "release rtm/a/b/sub" "release rtm/a/b/sub/deep" \
		"disconnect_notify rtm/a" "drop_item rtm/a" \
		"release rtm/a" "release rtm/a/sub" "release rtm/a/sub/deep" \
		"release rtm" "release rtm/inner"
}

# Bottom up, each directory after the links from and to it: every
# drop_link names two items still there. Each item is disconnected, then
# dropped, then released; the part itself goes last.
removed_bottom_up() {
	before "drop_link rtm/a/b rtm/a/sub/i" "release rtm/a/sub/i" &&
	before "drop_link rtm/a/b rtm/a/sub/i" "disconnect_notify rtm/a/b" &&
	before "drop_link items/x rtm/a/b" "disconnect_notify rtm/a/b" &&
	before "drop_link rtm/a items/x" "disconnect_notify rtm/a" &&
	before "disconnect_notify rtm/a/b" "drop_item rtm/a/b" &&
	before "drop_item rtm/a/b" "release rtm/a/b" &&
	before "disconnect_notify rtm/a" "drop_item rtm/a" &&
	before "drop_item rtm/a" "release rtm/a" &&
	before "release rtm/a/sub/i" "disconnect_notify rtm/a" &&
	before "release rtm/a/b" "disconnect_notify rtm/a" &&
	before "release rtm/a" "release rtm"
}

links_into_part_gone() {
	[ ! -L "$T/items/x/in" ] && rmdir "$T/items/x"
}

unregister_depended() {
	run sh -c "echo 'register_make rtd' > $T/ctl" &&
	run mkdir "$T/rtd/d" &&
	ctl depend rtd/d &&
	clear_events &&
	ctl unregister rtd &&
	events_are "disconnect_notify rtd/d" "drop_item rtd/d" "release rtd" \
		"release rtd/inner"
}

# The dependency's reference is the last: undepend releases the item.
undepend_removed_user_item() {
	clear_events &&
	ctl undepend rtd/d &&
	events_are "release rtd/d" "release rtd/d/sub" "release rtd/d/sub/deep"
}

undepend_removed_default_group() {
	ctl register rt1 &&
	ctl depend rt1/inner &&
	ctl unregister rt1 &&
	clear_events &&
	ctl undepend rt1/inner &&
	events_are "release rt1/inner"
}

# A part nested as deep as a user cares to make it: the removal walks it
# without recursion (a kernel stack holds a few hundred frames at most).
unregister_of_a_deep_part() {
	ud_base=$(live) &&
	ctl register_make rtn &&
	(
		cd "$T/rtn" || exit 1
		ud_i=0
		while [ $ud_i -lt 1500 ]; do
			mkdir n && cd n || exit 1
			ud_i=$((ud_i + 1))
		done
	) &&
	ctl unregister rtn &&
	[ ! -e "$T/rtn" ] &&
	[ "$(live)" = "$ud_base" ]
}

leak_text="orphans the items with their module pins (cng_test and configfs never unload) and leaves links dangling"
undep_text="configfs_undepend_item() reads the removed item's freed dirent (BUG_ON)"

ktap_plan 9

cng_load
base=$(live)
if ! on_stock; then
	build_part
	clear_events
fi
not_on_stock "unregister_with_cwd_inside_leaves_dead_cwd" "$leak_text" \
	unregister_from_inside
not_on_stock "unregister_removes_every_user_item_and_link" "$leak_text" \
	all_removed_events
not_on_stock "unregister_removes_items_bottom_up_after_their_links" \
	"$leak_text" removed_bottom_up
not_on_stock "unregister_leaves_no_link_into_part" "$leak_text" \
	links_into_part_gone
not_on_stock "unregister_of_depended_item_removes_it" "$undep_text" \
	unregister_depended
not_on_stock "undepend_of_user_item_removed_by_kernel_ignored" "$undep_text" \
	undepend_removed_user_item
not_on_stock "undepend_of_default_group_removed_by_kernel_ignored" \
	"$undep_text" undepend_removed_default_group
not_on_stock "unregister_of_a_part_1500_deep_removes_it" "$leak_text" \
	unregister_of_a_deep_part
check "every_object_released_no_late_callback" sh -c \
	". ./conf_lib.sh; [ \$(live) = $base ] && no_late_events"
cng_unload
ktap_done
