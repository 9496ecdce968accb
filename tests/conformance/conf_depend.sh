#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# configfs_depend_item() and configfs_depend_item_unlocked(): a depended
# item can not be removed (EBUSY) until each dependency is undone.
#
#   cng_test/
#   |-- items/d/       depended on from the kernel (ctl "depend items/d")
#   `-- n1/            depended with depend_unlocked
set -eu
. ./conf_lib.sh

cleanup() {
	set +e
	echo "undepend items/d" > "$T/ctl" 2>/dev/null
	echo "undepend items/d" > "$T/ctl" 2>/dev/null
	echo "undepend n1" > "$T/ctl" 2>/dev/null
	rmdir "$T/items/d" "$T/n1" 2>/dev/null
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

refused_quietly() {
	clear_events
	sys_is "$@" && events_are ""
}

ktap_plan 11

cng_load
base=$(live)
run mkdir "$T/items/d" "$T/n1"
check "depend_item_on_user_item_succeeds" sys_is "OK 14" write "$T/ctl" \
	"depend items/d"
check "rmdir_depended_item_fails_ebusy" \
	refused_quietly EBUSY rmdir "$T/items/d"
check "depend_item_twice_succeeds" sys_is "OK 14" write "$T/ctl" \
	"depend items/d"
ctl undepend items/d
check "rmdir_still_ebusy_until_every_undepend" \
	refused_quietly EBUSY rmdir "$T/items/d"
ctl undepend items/d
check "rmdir_after_undepend_succeeds" rmdir "$T/items/d"
check "depend_unlocked_on_user_group_succeeds" sys_is "OK 18" write \
	"$T/ctl" "depend_unlocked n1"
check "rmdir_group_depended_unlocked_fails_ebusy" \
	refused_quietly EBUSY rmdir "$T/n1"
check "depended_item_still_usable" sh -c "echo v > $T/n1/data &&
	[ \"\$(cat $T/n1/data)\" = v ]"
ctl undepend n1
check "rmdir_after_undepend_unlocked_succeeds" rmdir "$T/n1"
check "depend_on_default_group_succeeds_rmdir_still_eperm" sh -c \
	". ./conf_lib.sh; echo 'depend items' > $T/ctl &&
	 sys_is EPERM rmdir $T/items && echo 'undepend items' > $T/ctl"
check "every_object_released" test "$(live)" = "$base"
cng_unload
ktap_done
