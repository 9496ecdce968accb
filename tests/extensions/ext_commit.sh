#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Committable items (configfs-ng.h, docs/extensions.md): pending/ and
# live/, commit and un-commit by rename(2), the refusals and their errnos,
# the client's reason for a refused commit, a subtree, open files, a cwd
# and links that follow the item, and a kernel-side removal of live
# items. Ours only: the sample client cng_commit needs our module.
#
#   cng_commit/
#   |-- disks/{pending,live}/   commit and un-commit; d, e, f made here
#   |-- oneway/{pending,live}/  no un-commit
#   |-- legacy/{pending,live}/  the 6.1 header's commit_item slot alone;
#   |                           absent where configfs.h has no commit_item
#   |-- hosts/h/                links to disks
#   `-- dyn/                    registered and unregistered through ctl
#   cng_lights/{pending,live}/  the same with the helper layer
set -eu
. ./conf_lib.sh
. ./clients/common.sh

C=$CFS/cng_commit
D=$C/disks
CC_KO=/lib/modules/cng/cng_commit.ko

if on_stock; then
	echo "1..0 # SKIP committable items need configfs-ng's module"
	exit 4
fi

cc_cleanup() {
	set +e
	for g in disks oneway legacy dyn; do
		for d in "$C/$g"/live/*; do
			[ -d "$d" ] || continue
			conf_sys rename "$d" "$C/$g/pending/${d##*/}" >/dev/null
		done
	done
	rm_if "$C/hosts/h/ld"
	rmdir_if "$C/hosts/h"
	for d in "$C"/*/pending/*; do
		rmdir_if "$d"
	done
	for g in dyn oneway legacy; do
		[ -d "$C/$g" ] && cc_ctl unregister $g
	done
	rmdir_if "$CFS/cng_lights/pending/l1"
	unload cng_commit cng_lights
}
trap 'cc_cleanup || echo "# cleanup could not undo everything"' EXIT

cc_ctl() {
	echo "$*" > "$C/ctl"
}

# stat_is WHAT: a line of cng_commit's stats, "commits 1" and so on.
stat_is() {
	grep -qx "$1" "$C/stats" || {
		# shellcheck disable=SC2046 # its lines joined into one
		echo "# stats:" $(cat "$C/stats")
		return 1
	}
}

# record_has FILE LINE: the item's error record has exactly LINE.
record_has() {
	conf_sys getxattr "$1" user.configfs.error > /tmp/cc_rec &&
	sed 's/^/# record: /' /tmp/cc_rec &&
	grep -qx -- "$2" /tmp/cc_rec
}

# first_line_ends FILE REGEX: the record's first line ends with REGEX.
first_line_ends() {
	conf_sys getxattr "$1" user.configfs.error | sed -n 2p |
		grep -Eq -- "$2\$"
}

# refused_because FILE VALUE LINE: the write fails and the record has LINE.
refused_because() {
	! put "$1" "$2" 2>/dev/null && record_has "$1" "$3"
}

listing_is() {
	ls_got=$(ls "$1" | tr '\n' ' ')
	[ "$ls_got" = "$2" ] || {
		echo "# ls $1: '$ls_got', want '$2'"
		return 1
	}
}

ktap_plan 48

run insmod "$CC_KO"

# The layout.
check "committable_group_has_pending_and_live" listing_is "$D" "live pending "
check "stages_have_no_attributes" listing_is "$D/pending" ""
check "plain_group_has_no_stages" listing_is "$C/hosts" ""
check "mkdir_in_live_fails_eperm" sys_is EPERM mkdir "$D/live/x"
check "mkdir_in_the_group_itself_fails_eperm" sys_is EPERM mkdir "$D/x"
check "rmdir_of_a_stage_fails_eperm" sys_is EPERM rmdir "$D/pending"
check "symlink_in_a_stage_fails_eperm" \
	sys_is EPERM symlink "$C/hosts" "$D/pending/l"

# A disk made and configured in pending/.
run mkdir "$D/pending/d"
check "item_made_in_pending_with_its_subtree" \
	listing_is "$D/pending/d" "delay_ms fail opts ready state value "
check "name_is_taken_in_both_stages" sys_is EEXIST mkdir "$D/pending/d"

# A refused commit stays pending, with the client's reason. Its log
# line is rate-limited (10 in 5 s, report.c), and a test before this one
# in the boot may have used the window up: let it pass first.
run sleep 5
check "commit_refused_by_client" sys_is EAGAIN rename "$D/pending/d" "$D/live/d"
check "refused_commit_leaves_item_pending" \
	sh -c "[ -d '$D/pending/d' ] && ! [ -e '$D/live/d' ] &&
	       [ \"\$(cat '$D/pending/d/state')\" = pending ]"
check "refused_commit_record_has_reason" \
	record_has "$D/pending/d" "reason: d is not ready: write 1 to ready first"
check "refused_commit_record_names_the_call" \
	first_line_ends "$D/pending/d" "commit: -(EAGAIN|11)" # 11: no errnames
logged_path() {
	dmesg | grep -q 'commit /cng_commit/disks/pending/d failed' && return 0
	echo "# the log's last commit lines:"
	dmesg | grep 'commit' | tail -n 3 | sed 's/^/# /'
	return 1
}
check "refused_commit_logs_the_item_path" logged_path

# Links, an open file and a cwd inside the item follow the commit.
run mkdir "$C/hosts/h"
run ln -s "$D/pending/d" "$C/hosts/h/ld"
check "link_text_names_pending" \
	sys_is "OK ../../../cng_commit/disks/pending/d" readlink "$C/hosts/h/ld"
check "link_to_a_stage_fails_eperm" \
	sys_is EPERM symlink "$D/pending" "$C/hosts/h/lp"
run put "$D/pending/d/ready" 1
run put "$D/pending/d/value" 7
exec 3< "$D/pending/d/value"
exec 4<> "$D/pending/d/value"
(cd "$D/pending/d/opts" && sleep 3) &
cwd_pid=$!
sleep 0.5
check "commit_succeeds" sys_is OK rename "$D/pending/d" "$D/live/d"
check "committed_item_is_in_live_only" \
	sh -c "[ -d '$D/live/d/opts' ] && ! [ -e '$D/pending/d' ] &&
	       [ \"\$(ls '$D/pending')\" = '' ] && [ \"\$(ls '$D/live')\" = d ]"
check "commit_moves_a_link_from_pending_to_live" \
	sh -c "[ \$(stat -c %h '$D/pending') = 2 ] &&
	       [ \$(stat -c %h '$D/live') = 3 ]"
check "client_saw_the_commit" stat_is "commits 1"
check "state_reads_live" expect "$D/live/d/state" live
check "link_text_names_live" \
	sys_is "OK ../../../cng_commit/disks/live/d" readlink "$C/hosts/h/ld"
check "link_resolves_after_commit" expect "$C/hosts/h/ld/value" 7
check "file_opened_before_commit_reads" sh -c "[ \"\$(cat <&3)\" = 7 ]"
check "file_opened_before_commit_writes" sh -c "echo 9 >&4"
check "live_item_stays_writable" expect "$D/live/d/value" 9
check "cwd_follows_the_item" \
	sh -c "readlink /proc/$cwd_pid/cwd | grep -qx '$D/live/d/opts'"
exec 3<&- 4>&-
wait "$cwd_pid" || true

# What a live item refuses, and renames that are not a commit.
check "rmdir_in_live_fails_ebusy" sys_is EBUSY rmdir "$D/live/d"
check "rename_to_another_name_fails_einval" \
	sys_is EINVAL rename "$D/live/d" "$D/pending/e"
check "rename_out_of_the_group_fails_eperm" \
	sys_is EPERM rename "$D/live/d" "$C/hosts/d"
check "rename_to_another_groups_stage_fails_eperm" \
	sys_is EPERM rename "$D/live/d" "$C/oneway/pending/d"
run mkdir "$D/pending/e"
check "rename_exchange_fails_einval" \
	sys_is EINVAL renameat2 "$D/live/d" "$D/pending/e" exchange
run rmdir "$D/pending/e"
check "rename_of_a_stage_fails_eperm" sys_is EPERM rename "$D/live" "$D/live2"

# Un-commit: refused by the client, then done; then rmdir.
run put "$D/live/d/fail" 5
check "uncommit_refused_by_client_stays_live" \
	sh -c "[ \"\$(conf_sys rename '$D/live/d' '$D/pending/d')\" = EIO ] &&
	       [ -d '$D/live/d' ]"
check "uncommit_noreplace_succeeds" \
	sys_is OK renameat2 "$D/live/d" "$D/pending/d" noreplace
check "success_clears_the_record" \
	sys_is ENODATA getxattr "$D/pending/d" user.configfs.error
check "uncommitted_item_can_be_removed" \
	sh -c "rm '$C/hosts/h/ld' && rmdir '$D/pending/d' &&
	       grep -qx 'uncommits 1' '$C/stats'"

# Groups without un-commit. legacy/ exists where the kernel's configfs.h
# still has commit_item (6.1), and only there: cng_commit registers it
# under the same test as the module's.
legacy=0
[ -d "$C/legacy" ] && legacy=1
run mkdir "$C/oneway/pending/o"
[ $legacy = 0 ] || run mkdir "$C/legacy/pending/g"
run put "$C/oneway/pending/o/ready" 1
[ $legacy = 0 ] || run put "$C/legacy/pending/g/ready" 1
check "oneway_commit_succeeds" \
	sys_is OK rename "$C/oneway/pending/o" "$C/oneway/live/o"
check "oneway_uncommit_fails_eperm" \
	sys_is EPERM rename "$C/oneway/live/o" "$C/oneway/pending/o"
legacy_commits() {
	if [ $legacy = 0 ]; then
		echo "# no legacy/: this configfs.h has no commit_item slot"
		return 0
	fi
	sys_is OK rename "$C/legacy/pending/g" "$C/legacy/live/g"
}
check "legacy_slot_commits_where_the_header_has_it" legacy_commits

# The kernel side removes live items with their group: the only way
# for the live items of a group without un-commit.
run cc_ctl register dyn
run mkdir "$C/dyn/pending/x"
run put "$C/dyn/pending/x/ready" 1
run conf_sys rename "$C/dyn/pending/x" "$C/dyn/live/x"
run cc_ctl unregister dyn
check "unregister_drops_live_items" \
	sh -c "! [ -e '$C/dyn' ] && grep -qx 'dropped_live 1' '$C/stats'"
run cc_ctl unregister oneway
[ $legacy = 0 ] || run cc_ctl unregister legacy
check "oneway_live_items_go_with_their_group" \
	stat_is "dropped_live $((2 + legacy))"
check "module_unloads_afterwards" \
	sh -c "rmdir '$C/hosts/h' && rmmod cng_commit && ! [ -e '$C' ]"

# The same with the helper layer: cng_lights.
L=$CFS/cng_lights
run insmod /lib/modules/cng/configfs_helpers.ko
run insmod /lib/modules/cng/cng_lights.ko
run mkdir "$L/pending/l1"
check "helpers_refuse_a_value_with_a_reason" \
	refused_because "$L/pending/l1/color" purple \
	"reason: color: 'purple' is not one of red, green, blue"
check "helpers_client_refuses_a_commit" \
	sh -c "[ \"\$(conf_sys rename '$L/pending/l1' '$L/live/l1')\" = EINVAL ] &&
	       conf_sys getxattr '$L/pending/l1' user.configfs.error |
	       grep -qx 'reason: level is 0: write 1..100 to level first'"
run put "$L/pending/l1/color" blue
run put "$L/pending/l1/level" 40
check "helpers_item_commits" sys_is OK rename "$L/pending/l1" "$L/live/l1"
check "helpers_live_item_keeps_values_and_stays_writable" \
	sh -c "[ \"\$(cat '$L/live/l1/color')\" = blue ] &&
	       client_put '$L/live/l1/level' 80 &&
	       dmesg | grep -q 'l1 is on: blue at 40%'"
check "helpers_item_uncommits_and_goes" \
	sh -c "conf_sys rename '$L/live/l1' '$L/pending/l1' | grep -qx OK &&
	       rmdir '$L/pending/l1' && rmmod cng_lights configfs_helpers"

ktap_done
