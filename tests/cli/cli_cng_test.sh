#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The configfs tool on our test client's tree (tests/modules/cng_test.c): items
# and nested groups made by mkdir, values with spaces, newlines, tabs and
# UTF-8, an empty value, a binary attribute holding text and one holding
# 5000 bytes of any value (NUL bytes, longer than a page), an attribute
# whose show() fails, a changed mode and owner, and links. save, restore
# onto the same tree (no writes), rm -r (cng_test unloads), restore after
# reloading, a second save byte-identical; a partial tree gets what is
# missing; a depended item stops rm -r with a clear error, leaving a tree
# that restores cleanly.
#
# cng_test's events attribute is a log that every read of data extends and
# any write clears: it is cleared before each save, diff and restore so
# that the file and the tree agree on it (""); a restore still rewrites it
# when its own reads have logged something, which is not counted as a
# change.
set -eu
. ./conf_lib.sh
. ./clients/common.sh
. ./cli_lib.sh

cng_cleanup() {
	cng_loaded || return 0
	echo undepend items/b > $T/ctl 2>/dev/null || true
	configfs rm -r cng_test
	rmmod cng_test
}
trap 'cng_cleanup || echo "# cleanup could not undo everything"' EXIT

DATA_A="$(printf 'two words\nsecond line\twith a tab, h\303\251 \342\202\254')"

cng_build() {
	x mkdir $T/items/a || return
	x mkdir $T/items/b || return
	x put_raw $T/items/a/data "$DATA_A" || return
	x put_raw $T/items/a/blob "blob text" || return
	x put $T/items/b/data "" || return
	# Any bytes, more than a page: saved escaped, restored whole.
	x dd if=/dev/urandom of=/tmp/cng.blob bs=1000 count=5 2>/dev/null ||
		return
	printf '\000\n' >> /tmp/cng.blob
	echo "# + cat /tmp/cng.blob > $T/items/b/blob"
	cat /tmp/cng.blob > $T/items/b/blob || return
	x mkdir $T/n1 || return
	x put $T/n1/data "node one" || return
	x mkdir $T/n1/n2 || return
	x mkdir $T/n1/sub/i1 || return
	x put $T/n1/sub/i1/show_ret -5 || return
	x chmod 0600 $T/items/a/data || return
	x chown 1:2 $T/items/b || return
	x ln -s $T/items/a $T/n1/to_a || return
	x ln -s $T/n1/sub $T/items/b/to_sub || return
}

# cfg_clean ARGS...: cfg with cng_test's event log cleared first.
cfg_clean() {
	clear_events
	cfg "$@"
}

save_clean() {
	clear_events
	cli_save "$@"
}

# As cli_no_writes, with the log cleared before the diff and the restore.
no_writes_clean() {
	cfg_clean diff "$1" || return
	cfg_clean restore -v "$1" || return
	if grep -v '^#' $CLI_OUT | grep -qv '^set cng_test/events '; then
		echo "# restore of a matching tree changed something"
		return 1
	fi
}

# rm -r stops at the depended item with EBUSY, names it, exits 1.
rm_stops_at_depended() {
	rsd_rc=0
	cfg rm -r cng_test || rsd_rc=$?
	[ "$rsd_rc" -eq 1 ] || { echo "# rm exited $rsd_rc, expected 1"; return 1; }
	grep -q 'cng_test/items/b.*busy' $CLI_OUT && return 0
	echo "# no error naming cng_test/items/b and EBUSY"
	return 1
}

json_shows_attrs_and_links() {
	cli_json_has cng_test \
		'"path":"cng_test/n1/to_a","type":"link"' || return
	x grep -qF '"path":"cng_test/items/b/data","type":"attr","mode":"0644","uid":0,"gid":0,"access":"rw","value":""' \
		$CLI_OUT
}

save_notes_what_it_cannot_save() {
	x grep -q "^# write-only, not saved: cng_test/items/a/wo " \
		/tmp/cng.1 || return
	x grep -q "^# unreadable, not saved: cng_test/n1/sub/i1/data " \
		/tmp/cng.1 || return
	x grep -qxF "chown cng_test/items/b 1:2" /tmp/cng.1 || return
	x grep -qxF "chmod cng_test/items/a/data 0600" /tmp/cng.1
}

reload() {
	cng_unload && cng_load
}

# restore_same N: restore, then save as .N, identical to .1.
restore_same() {
	cfg_clean restore /tmp/cng.1 || return
	save_clean /tmp/cng.$1 cng_test || return
	cli_same_saves /tmp/cng.1 /tmp/cng.$1
}

same_again() {	# same_again N: save as .N, identical to .1
	save_clean /tmp/cng.$1 cng_test && cli_same_saves /tmp/cng.1 /tmp/cng.$1
}

# items/b/to_sub points into n1: rm -r takes it too.
remove_part() {
	cfg rm -r cng_test/n1 && x gone $T/items/b/to_sub
}

ktap_plan 23
critical cng_test_loads cng_load
empty=$(cli_snap cng_test)
critical tree_builds cng_build
check tree_shows_values_marks_and_links cli_tree_shows cng_test \
	'data = "two words\nsecond line\twith a tab, h' \
	'to_a -> cng_test/items/a' '[mode 0600]' '[owner 1:2]' \
	'[write-only]' '[unreadable:'
check json_lists_attrs_and_links json_shows_attrs_and_links
critical save save_clean /tmp/cng.1 cng_test
check save_names_what_it_cannot_save save_notes_what_it_cannot_save
check restore_onto_matching_tree_writes_nothing no_writes_clean /tmp/cng.1
critical rm_r_removes_the_tree cli_rm_gone cng_test "$empty"
critical cng_test_unloads_and_reloads reload
critical restore_succeeds cfg_clean restore /tmp/cng.1
check second_save_is_identical same_again 2
check values_read_back_exactly expect $T/items/a/data "$DATA_A"
check binary_value_reads_back_exactly x cmp $T/items/b/blob /tmp/cng.blob
critical part_removed remove_part
check diff_shows_what_is_missing cli_diff_shows /tmp/cng.1 \
	"+mkdir cng_test/n1/n2" "+link cng_test/items/b/to_sub cng_test/n1/sub" \
	"+set cng_test/n1/data \"node one\""
check partial_restore_adds_the_rest restore_same 3
critical depend_on_an_item ctl depend items/b
check rm_r_stops_at_a_depended_item rm_stops_at_depended
check depended_item_is_left expect $T/items/b/data ""
check what_is_left_restores_cleanly restore_same 4
critical undepend ctl undepend items/b
check rm_r_after_undepend cli_rm_gone cng_test "$empty"
check cng_test_unloads cng_unload
ktap_done
