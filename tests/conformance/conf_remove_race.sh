#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Removal as user space sees it while something else goes on: each case
# lines a race up with cng_test's gates (a callback held until "go") and
# checks what stock configfs does, on both modules. The cases are named
# after the findings of issue 15 they show (numbers in brackets):
#
#   cng_test/
#   |-- items/kr/          rmdir while a show of kr/data is held      [4]
#   |-- items/p5/l -> t5   symlink while its name is looked up        [5]
#   |-- items/blk/         mkdir held in make_item, holding items/
#   |-- items/n6/          opened (dir and data), then rmdir          [6]
#   `-- rt1/inner/         registered, watched, cwd, unregistered     [6, 7]
#                          (and [32.3] of issue 32)
set -eu
. ./conf_lib.sh

TMP=/tmp/conf_remove_race
BG=

cleanup() {
	set +e
	cd /tests
	exec 5<&- 6<&- 7<&-
	cng_loaded || { rm -rf "$TMP"; return 0; }
	echo go > "$T/gate"
	echo make_go > "$T/ctl"
	for p in $BG; do wait "$p"; done
	rm -f "$T/items/p5/l"
	rmdir "$T/items/kr" "$T/items/p5" "$T/items/t5" "$T/items/blk" \
		"$T/items/n6" 2>/dev/null
	echo "unregister rt1" > "$T/ctl" 2>/dev/null
	rm -rf "$TMP"
	rmmod cng_test
}
trap cleanup EXIT




# PID has exited (a zombie until waited for) or is not ours any more.
gone() {
	gn_state=$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null || true)
	[ -z "$gn_state" ] || [ "$gn_state" = Z ]
}

held_or_gone() {
	in_d_state "$1" || gone "$1"
}

make_waiting() {
	grep -q '^make_wait$' "$T/events"
}

nlink_of_fd() {
	stat -L -c %h "/proc/$$/fd/$1"
}

# Whatever a case left held goes on, and its background commands end.
release_all() {
	echo go > "$T/gate"
	echo make_go > "$T/ctl"
	for p in $BG; do wait "$p" || true; done
	BG=
}

# [4] A show held on the item keeps rmdir waiting, as in stock; killing
# the rmdir gives the item back untouched (stock: down_write_killable).
rmdir_held_by_show() {
	run mkdir "$T/items/kr" &&
	run sh -c "echo 'block show' > $T/gate" &&
	{ cat "$T/items/kr/data" > /dev/null & } &&
	BG="$BG $!" &&
	wait_for gate_waiting 1 &&
	{ conf_sys rmdir "$T/items/kr" > "$TMP/rmdir" & } &&
	rd_rm=$! && BG="$BG $rd_rm" &&
	wait_for in_d_state $rd_rm &&
	run kill -9 $rd_rm &&
	wait_for gone $rd_rm &&
	test -d "$T/items/kr" &&
	! grep -q 'drop_item items/kr' "$T/events"
}

rmdir_waiting_for_show_is_killable() {
	rmdir_held_by_show
	rd_ok=$?
	release_all
	[ $rd_ok = 0 ] &&
	test "$(conf_sys write "$T/items/kr/data" again)" = "OK 5" &&
	run rmdir "$T/items/kr"
}

# [5] ln -s resolves its target with the directory unlocked; a lookup of
# the link's name meanwhile must not make it fail with EEXIST. The
# target's lookup is held: its dentry was evicted, and a mkdir held in
# make_item keeps items/ locked. Stock pins dentries, so there the
# window cannot be held open and the symlink just succeeds.
symlink_held_while_its_name_is_looked_up() {
	run mkdir "$T/items/t5" "$T/items/p5" &&
	drop_caches &&
	ls -d "$T/items/p5" > /dev/null &&
	clear_events &&
	ctl make_block &&
	{ mkdir "$T/items/blk" & } &&
	BG="$BG $!" &&
	wait_for make_waiting &&
	{ conf_sys symlink "$T/items/t5" "$T/items/p5/l" > "$TMP/ln" & } &&
	sy_ln=$! && BG="$BG $sy_ln" &&
	wait_for held_or_gone $sy_ln &&
	sy_held=0 &&
	{ ! in_d_state $sy_ln || sy_held=1; } &&
	{ [ $sy_held = 1 ] || on_stock; } &&
	{ [ $sy_held = 0 ] || run test ! -e "$T/items/p5/l"; }
}

symlink_survives_lookup_of_its_name() {
	symlink_held_while_its_name_is_looked_up
	sy_ok=$?
	release_all
	echo "# symlink held: ${sy_held:-?}, result: $(cat "$TMP/ln")"
	[ $sy_ok = 0 ] &&
	test "$(cat "$TMP/ln")" = OK &&
	test -L "$T/items/p5/l" &&
	run rm "$T/items/p5/l" &&
	run rmdir "$T/items/blk" "$T/items/p5" "$T/items/t5"
}

# [6] Removed, a directory and its attributes have no link left.
removed_dir_and_attr_fds_report_nlink_0() {
	run mkdir "$T/items/n6" &&
	exec 5< "$T/items/n6" 6< "$T/items/n6/data" &&
	echo "# before: $(nlink_of_fd 5) $(nlink_of_fd 6)" &&
	test "$(nlink_of_fd 5)" = 2 && test "$(nlink_of_fd 6)" = 1 &&
	run rmdir "$T/items/n6" &&
	echo "# after: $(nlink_of_fd 5) $(nlink_of_fd 6)" &&
	test "$(nlink_of_fd 5)" = 0 && test "$(nlink_of_fd 6)" = 0 &&
	exec 5<&- 6<&-
}

# [6] The same for a directory the kernel side removes.
unregistered_dir_fd_reports_nlink_0() {
	ctl register rt1 &&
	exec 7< "$T/rt1/inner" &&
	ctl unregister rt1 &&
	echo "# after: $(nlink_of_fd 7)" &&
	test "$(nlink_of_fd 7)" = 0 &&
	exec 7<&-
}

# [7] Watchers of the parent hear of a group the kernel side removes.
unregister_is_seen_by_inotify() {
	ctl register rt1 &&
	conf_watch "$T" "echo 'unregister rt1' > $T/ctl" > "$TMP/watch" &&
	sed 's/^/# event: /' "$TMP/watch" &&
	grep -qx 'IN_DELETE|IN_ISDIR rt1' "$TMP/watch"
}

# [32.3] Watchers of a group the kernel side removes hear at once that
# it went (IN_DELETE_SELF, IN_IGNORED), even after its attributes and
# its default group were looked up: their dentries must not keep it.
unregistered_dir_is_deleted_for_its_watchers() {
	ctl register rt1 &&
	ls -lR "$T/rt1" > /dev/null &&
	conf_watch "$T/rt1" "echo 'unregister rt1' > $T/ctl" > "$TMP/self" &&
	sed 's/^/# event: /' "$TMP/self" &&
	grep -qx 'IN_DELETE_SELF' "$TMP/self" &&
	grep -qx 'IN_IGNORED' "$TMP/self"
}

# [7] A shell inside a group the kernel side removes finds its cwd
# deleted (getcwd() fails, /proc says so), and nothing can be mounted
# there.
unregister_leaves_cwd_deleted() {
	ctl register rt1 &&
	(
		cd "$T/rt1/inner" &&
		echo "unregister rt1" > "$T/ctl" &&
		uc_cwd=$(readlink /proc/self/cwd) &&
		echo "# cwd: $uc_cwd" &&
		test "$uc_cwd" = "$T/rt1/inner (deleted)" &&
		sys_is ENOENT getcwd . &&
		! mount -t tmpfs none /proc/self/cwd 2> /dev/null
	)
}

ktap_plan 8

mkdir -p "$TMP"
cng_load
base=$(live)
check "rmdir_waiting_for_show_is_killable_and_keeps_the_item" \
	rmdir_waiting_for_show_is_killable
check "symlink_succeeds_while_its_name_is_looked_up" \
	symlink_survives_lookup_of_its_name
check "removed_dir_and_attr_fds_report_nlink_0" \
	removed_dir_and_attr_fds_report_nlink_0
check "unregistered_dir_fd_reports_nlink_0" \
	unregistered_dir_fd_reports_nlink_0
check "unregister_tells_inotify_watchers_of_the_parent" \
	unregister_is_seen_by_inotify
check "unregister_leaves_a_cwd_inside_deleted_and_unmountable" \
	unregister_leaves_cwd_deleted
check "unregister_tells_the_groups_own_watchers_at_once" \
	unregistered_dir_is_deleted_for_its_watchers
check "every_object_released_no_late_callback" sh -c \
	". ./conf_lib.sh; [ \$(live) = $base ] && no_late_events"
cng_unload
ktap_done
