#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# What every client gets from configfs-ng.h's side of the filesystem,
# with cng_test, which knows nothing of the extension
# (docs/differences.md rows 21 to 23):
#   #21 a failed write or mkdir leaves a record, read as the xattr
#       user.configfs.error, with the lines the failing task printed,
#       and the kernel log names the path; stock: EOPNOTSUPP
#   #22 poll() of an attribute of a removed item: POLLPRI|POLLERR
#   #23 a group the kernel registers raises IN_CREATE in its parent
#
#   cng_test/items/e/      store_ret -28 makes data's store fail ENOSPC
set -eu
. ./conf_lib.sh
. ./diff_lib.sh

TMP=/tmp/diff_events
E=$T/items/e

cleanup() {
	set +e
	cng_loaded || { rm -rf "$TMP"; return 0; }
	rmdir "$E" 2>/dev/null
	echo "unregister rt1" > "$T/ctl" 2>/dev/null
	rm -rf "$TMP"
	rmmod cng_test
}
trap cleanup EXIT

failed_write() {
	run sh -c "echo -28 > $E/store_ret" &&
	sys_is "ENOSPC" write "$E/data" "full"
}

record_of_a_failed_write() {
	failed_write &&
	conf_sys getxattr "$E/data" user.configfs.error > "$TMP/rec" &&
	sed 's/^/# record: /' "$TMP/rec" &&
	grep -q ' write data .full.: -\(ENOSPC\|28\)$' "$TMP/rec" &&
	dmesg | grep -q "configfs: write /cng_test/items/e/data failed"
}

no_record_on_stock() {
	failed_write &&
	sys_is "EOPNOTSUPP" getxattr "$E/data" user.configfs.error
}

# ctl make_err makes the next make_item fail.
record_of_a_failed_mkdir() {
	ctl make_err 28 &&
	sys_is "ENOSPC" mkdir "$T/items/reject_me" &&
	conf_sys getxattr "$T/items" user.configfs.error > "$TMP/rec" &&
	sed 's/^/# record: /' "$TMP/rec" &&
	grep -q ' mkdir reject_me: -\(ENOSPC\|28\)$' "$TMP/rec"
}

no_mkdir_record_on_stock() {
	ctl make_err 28 &&
	sys_is "ENOSPC" mkdir "$T/items/reject_me" &&
	sys_is "EOPNOTSUPP" getxattr "$T/items" user.configfs.error
}

register_seen() {
	conf_watch "$T" "echo 'register rt1' > $T/ctl" > "$TMP/watch" &&
	sed 's/^/# event: /' "$TMP/watch"
}

register_raises_in_create() {
	register_seen && grep -qx 'IN_CREATE|IN_ISDIR rt1' "$TMP/watch" &&
	ctl unregister rt1
}

register_silent_on_stock() {
	register_seen && ! grep -q 'IN_CREATE' "$TMP/watch" &&
	ctl unregister rt1
}

mkdir -p "$TMP"
ktap_plan 3
cng_load
run mkdir "$E"
differs "failed_write_leaves_a_record_and_a_log_line" \
	"row 21, getxattr is EOPNOTSUPP" \
	record_of_a_failed_write no_record_on_stock
differs "failed_mkdir_leaves_a_record_in_the_group" \
	"row 21, getxattr is EOPNOTSUPP" \
	record_of_a_failed_mkdir no_mkdir_record_on_stock
differs "kernel_registered_group_raises_in_create" \
	"row 23, no event" register_raises_in_create register_silent_on_stock
run rmdir "$E"
cng_unload
ktap_done
