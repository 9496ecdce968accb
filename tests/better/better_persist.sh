#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Better than stock: mode, owner, group and times set on an attribute, a
# directory or a symlink stick across cache eviction (drop_caches) and
# across umount/mount.
#
#   cng_test/items/
#   |-- p/            chmod 700, chown 1000:1000, touched
#   |   |-- data      chmod 600, chown 1000:1000, touched
#   |   |-- blob      chmod 640
#   |   `-- l -> q    chown -h 1000:1000, touched -h
#   `-- q/
set -eu
. ./conf_lib.sh

P=$T/items/p

cleanup() {
	set +e
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs none "$CFS"
	rm -f "$P/l"
	rmdir "$P" "$T/items/q" 2>/dev/null
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# stat_is PATH FORMAT WANT: stat -c FORMAT (no dereference) gives WANT
stat_is() {
	si_got=$(stat -c "$2" "$1") || return 1
	[ "$si_got" = "$3" ] || {
		echo "# stat -c '$2' $1: '$si_got', want '$3'"
		return 1
	}
}

# Everything set below, as it must read back. The directory comes first:
# on stock, instantiating an attribute's inode sets its directory's mtime.
all_kept() {
	stat_is "$P" '%a %u %g %Y' "700 1000 1000 $STAMP" &&
	stat_is "$P/l" '%u %g %Y' "1000 1000 $STAMP" &&
	stat_is "$P/data" '%a %u %g %Y' "600 1000 1000 $STAMP" &&
	stat_is "$P/blob" %a 640
}

# Looking up an attribute after eviction leaves its directory's times.
# Without the lookup (a stat that fails) the case would prove nothing.
dir_time_kept_by_lookup() {
	drop_caches
	stat "$P/data" > /dev/null || return 1
	stat_is "$P" %Y "$STAMP"
}

remount() {
	umount "$CFS" && mount -t configfs none "$CFS"
}

ktap_plan 12

cng_load
run mkdir "$P" "$T/items/q"
run ln -s "$T/items/q" "$P/l"
run chmod 600 "$P/data"
run chown 1000:1000 "$P/data"
run chmod 640 "$P/blob"
run chmod 700 "$P"
run chown 1000:1000 "$P"
run chown -h 1000:1000 "$P/l"
run touch -h -d '2001-02-03 04:05:06' "$P/data" "$P" "$P/l"
# from the symlink: stat of an attribute may move the directory's mtime
STAMP=$(stat -c %Y "$P/l")
check "times_were_set" test "$STAMP" -lt 1000000000
check "all_set_before_eviction" all_kept
drop_caches
better "dir_mode_owner_time_stick_after_drop_caches" \
	"directory attributes lost" \
	stat_is "$P" '%a %u %g %Y' "700 1000 1000 $STAMP"
better "attr_mode_owner_time_stick_after_drop_caches" \
	"attribute inodes are rebuilt from the type's mode" \
	stat_is "$P/data" '%a %u %g %Y' "600 1000 1000 $STAMP"
better "bin_attr_mode_sticks_after_drop_caches" \
	"binary attribute mode reverts" stat_is "$P/blob" %a 640
better "symlink_owner_time_stick_after_drop_caches" \
	"symlink attributes lost" stat_is "$P/l" '%u %g %Y' "1000 1000 $STAMP"
better "dir_mtime_kept_when_attribute_inode_is_rebuilt" \
	"a lookup of an evicted attribute sets its directory's mtime to now" \
	dir_time_kept_by_lookup
run touch -h -d '2001-02-03 04:05:06' "$P"
check "umount_and_mount_again" remount
better "attr_mode_owner_time_stick_after_remount" \
	"attribute attributes lost on remount" \
	stat_is "$P/data" '%a %u %g %Y' "600 1000 1000 $STAMP"
better "dir_and_symlink_attrs_stick_after_remount" \
	"directory or symlink attributes lost on remount" all_kept
drop_caches
better "all_kept_after_remount_and_drop_caches" \
	"attributes lost after remount and eviction" all_kept
run rm "$P/l"
run rmdir "$P" "$T/items/q"
check "module_unloads" cng_unload
ktap_done
