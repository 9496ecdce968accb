#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Mode, owner, group and times set on attributes and directories stick
# across dentry/inode eviction and across umount/mount, and inode numbers
# are stable; a delegated attribute stays writable by its new owner only.
#
#   /sys/kernel/config/nullb/persist/      chmod 0750, chown 1000
#                                 size     chown 1000:1000, chmod 0600
#                                 blocksize touch -d 2020-01-02
. ./lib.sh
. ./mod_lib.sh
set -eu
nullb_setup
P=$NB/persist
cleanup() { rmdir "$P" 2>/dev/null || true; rmmod null_blk 2>/dev/null || true; }
trap cleanup EXIT

# refused_as UID GID FILE VALUE: opening P/FILE to write as UID:GID fails
# with EACCES (not the helper's own setup failure, status 2).
refused_as() {
	ra_out=$($asuser "$1" "$2" "$P" "$3" "$4" 2>&1) && {
		echo "# written as $1"
		return 1
	}
	ra_rc=$?
	echo "$ra_out"
	[ $ra_rc -eq 1 ] && [ "$ra_out" = "# open $3 as $1: Permission denied" ]
}

asuser=/tests/bin/mod_asuser
ktap_plan 9
check "mkdir_item" mkdir "$P"
check "chmod_chown_touch" sh -c "chmod 0750 $P && chown 1000 $P &&
	chown 1000:1000 $P/size && chmod 0600 $P/size &&
	touch -d '2020-01-02 03:04:05' $P/blocksize"
before="$(stat_of "$P") $(stat_of "$P/size") $(stat_of "$P/blocksize")"
echo "# before: $before"
echo 3 > /proc/sys/vm/drop_caches
after="$(stat_of "$P") $(stat_of "$P/size") $(stat_of "$P/blocksize")"
echo "# after drop_caches: $after"
better "settings_survive_drop_caches" test "$before" = "$after"
umount "$CFS"
mount -t configfs none "$CFS"
after="$(stat_of "$P") $(stat_of "$P/size") $(stat_of "$P/blocksize")"
echo "# after remount: $after"
better "settings_survive_remount" test "$before" = "$after"
check "owner_can_write_delegated_attribute" $asuser 1000 1000 "$P" size 2048
check "value_written_by_owner" test "$(cat "$P/size")" = 2048
check "other_user_cannot_write" refused_as 1001 1000 size 4096
echo 3 > /proc/sys/vm/drop_caches
check "owner_can_write_after_eviction" $asuser 1000 1000 "$P" size 1024
check "rmdir_item" rmdir "$P"
ktap_done
