#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# docs/differences.md row 24: a group whose type sets the 6.1 header's
# commit_item. Stock never calls the slot: the group is like any other and
# rename(2) is EPERM. Ours makes it committable: pending/ and live/, and a
# rename into live/ calls commit_item. The fixture cng_slot uses only
# <linux/configfs.h>, so it loads on both; it is built only where the
# header has the slot (6.1), and the test skips elsewhere.
#
#   cng_slot/
#   |-- ctl     "unregister" removes g/, live items too
#   `-- g/      commit_item logs "commit NAME", refuses names "no*"
set -eu
. ./conf_lib.sh
. ./diff_lib.sh
. ./clients/common.sh

S=$CFS/cng_slot
G=$S/g

slot_cleanup() {
	for d in "$G/a" "$G/no1" "$G/pending/a" "$G/pending/no1"; do
		rmdir_if "$d" || true
	done
	if [ -d "$G" ]; then
		echo unregister > "$S/ctl" || true
	fi
	unload cng_slot
}
trap 'slot_cleanup || echo "# cleanup could not undo everything"' EXIT

listing_is() {
	ls_got=$(ls "$1" | tr '\n' ' ')
	[ "$ls_got" = "$2" ] || {
		echo "# ls $1: '$ls_got', want '$2'"
		return 1
	}
}

ours_layout() {
	listing_is "$G" "live pending "
}

stock_layout() {
	listing_is "$G" ""
}

ours_commit() {
	run mkdir "$G/pending/a" &&
	sys_is OK rename "$G/pending/a" "$G/live/a" &&
	dmesg | grep -q "commit a\$" &&
	sys_is EPERM rename "$G/live/a" "$G/pending/a" &&
	sys_is EBUSY rmdir "$G/live/a"
}

stock_commit() {
	run mkdir "$G/a" &&
	sys_is EPERM rename "$G/a" "$G/b" &&
	! dmesg | grep -q "commit a\$" &&
	run rmdir "$G/a"
}

ours_refused() {
	run mkdir "$G/pending/no1" &&
	sys_is EINVAL rename "$G/pending/no1" "$G/live/no1" &&
	[ -d "$G/pending/no1" ] &&
	run rmdir "$G/pending/no1"
}

stock_refused() {
	run mkdir "$G/no1" &&
	sys_is EPERM rename "$G/no1" "$G/live" &&
	run rmdir "$G/no1"
}

if [ ! -f /lib/modules/cng/cng_slot.ko ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP this kernel's configfs.h has no commit_item (gone in 6.2)"
	exit 4
fi
ktap_plan 4

run insmod /lib/modules/cng/cng_slot.ko
differs "group_with_commit_item_has_pending_and_live" \
	"the group shows no pending/ or live/" ours_layout stock_layout
differs "rename_into_live_calls_commit_item" \
	"rename is EPERM and commit_item is never called" ours_commit stock_commit
differs "refused_commit_stays_pending" \
	"rename is EPERM" ours_refused stock_refused
check "unregister_removes_live_items_and_the_module_goes" \
	sh -c "echo unregister > '$S/ctl' && ! [ -e '$G' ] && rmmod cng_slot"

ktap_done
