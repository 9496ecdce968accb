#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Removal with users inside: open attribute files and a cwd on an item
# that rmdir removes fail cleanly, and the item's name is free again.
#
#   /sys/kernel/config/nullb/rm/   open size on fd 3; a shell's cwd
. ./lib.sh
. ./mod_lib.sh
set -eu
nullb_setup
P=$NB/rm
cleanup() { rmdir "$P" 2>/dev/null || true; rmmod null_blk 2>/dev/null || true; }
trap cleanup EXIT

enodev() { # enodev CMD: fails, with ENODEV on ours
	out=$("$@" 2>&1) && return 1
	echo "# $out"
	[ "${CNG_CONFIGFS:-ours}" != ours ] || echo "$out" | grep -q 'No such device'
}

ktap_plan 8
check "mkdir_item" mkdir "$P"
exec 3< "$P/size"
exec 4> "$P/blocksize"
check "rmdir_with_open_files" rmdir "$P"
check "read_open_file_of_removed_item_fails" enodev cat <&3
check "write_open_file_of_removed_item_fails" enodev sh -c 'echo 512 >&4'
exec 3<&- 4>&-
check "name_is_free_again" mkdir "$P"
check "cwd_in_removed_item" sh -c "cd $P && rmdir $P && ! cat size 2>/dev/null &&
	! ls size 2>/dev/null && ! mkdir x 2>/dev/null"
check "lookup_after_removal_is_enoent" sh -c "! stat $P 2>/dev/null"
check "module_unloads_when_empty" rmmod null_blk
ktap_done
