#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Issue 22's comparison with targetcli, run in a Debian guest
# (scripts/debian-guest.sh) by scripts/check-targetcli.sh: targetcli makes
# a LIO tree (a fileio backstore with a 4096-byte block size, an iSCSI
# target with a LUN, an ACL with CHAP credentials, authentication on) and
# saves it as JSON; our tool saves the tree, targetcli's clearconfig
# removes it all, our tool restores it, and targetcli's saveconfig of the
# restored tree must equal the first. Then the same round trip with
# attrib/emulate_tpu 1, which oopses LIO 6.1 when written before the
# backstore's enable (docs/client-notes.md, LIO; configfs(8), "Restore
# order"). TAP on stdout. The guest panics on an oops (oops=panic) and
# reboots, which runs this script again: it then fails at once.
#
# Usage: targetcli.sh TOP WHICH TCLI
#   TOP    the project's checkout (read through the host's root), or
#          the copy of what is used of it (scripts/guest-top.sh)
#   WHICH  ours or stock: the configfs module under the tree
#   TCLI   where targetcli-fb and python3-rtslib-fb were unpacked
set -u
TOP=$1 WHICH=$2 TCLI=$3
CFG=/sys/kernel/config
W=/tmp/tcli
IQN=iqn.2003-01.org.example.cng:t1
INIT=iqn.1994-05.org.example.cng:client
IMG=$W/disk0.img
export PYTHONPATH="$TCLI/usr/lib/python3/dist-packages"
n=0 failed=0
mkdir -p "$W" /etc/rtslib-fb-target	# targetcli's dbroot

say() { echo "# $*"; }
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
# check NAME CMD...: one result; CMD's output as diagnostics.
check() {
	name=$1
	shift
	if "$@" > "$W/out" 2>&1; then
		ok "$name"
	else
		sed 's/^/#   /' "$W/out" | tail -n 30
		nok "$name"
	fi
}
tcli() {
	echo "+ targetcli $*"
	/usr/bin/python3 "$TCLI/usr/bin/targetcli" "$@"
}
cfs() {
	echo "+ configfs $*"
	"$TOP/tools/configfs/configfs" "$@"
}

# The module under test: systemd mounted the kernel's at boot, if any.
load_configfs() {
	for try in 1 2 3 4 5; do
		umount "$CFG" 2>/dev/null
		rmmod configfs 2>/dev/null
		grep -q "^configfs " /proc/modules || break
		echo "try $try: $(grep "^configfs " /proc/modules)"
		grep configfs /proc/mounts
		sleep 2
	done
	if [ "$WHICH" = ours ]; then
		insmod "$TOP/module/configfs.ko" || return 1
	else
		modprobe configfs || return 1
	fi
	mount -t configfs configfs "$CFG" || return 1
	# Ours is the build's module; stock is any other.
	loaded=$(cat /sys/module/configfs/srcversion 2>/dev/null)
	built=$(modinfo -F srcversion "$TOP/module/configfs.ko")
	echo "srcversion loaded $loaded, built $built"
	if [ "$WHICH" = ours ]; then
		[ "$loaded" = "$built" ] || return 1
	else
		[ "$loaded" != "$built" ] || return 1
	fi
	modprobe target_core_mod && modprobe target_core_file &&
		modprobe iscsi_target_mod
}

make_tree() {
	truncate -s 64M "$IMG" &&
	tcli /backstores/fileio create name=disk0 file_or_dev="$IMG" \
		size=64M write_back=false &&
	tcli /backstores/fileio/disk0 set attribute block_size=4096 &&
	tcli /iscsi create "$IQN" &&
	tcli "/iscsi/$IQN/tpg1/luns" create /backstores/fileio/disk0 &&
	tcli "/iscsi/$IQN/tpg1/acls" create "$INIT" &&
	tcli "/iscsi/$IQN/tpg1/acls/$INIT" set auth userid=cnguser \
		password=cngsecret12 &&
	tcli "/iscsi/$IQN/tpg1" set attribute authentication=1 &&
	tcli saveconfig savefile="$W/before.json"
}

# Our save: the backstore's write-only control rebuilt from its info, as
# rtslib does, with no hand edit.
our_save() {
	cfs save -o "$W/t.cfs" target || return 1
	grep -q '^# write-only, rebuilt from info: target/core/fileio_[0-9]*/disk0/control$' \
		"$W/t.cfs" &&
	grep -qF "control fd_dev_name=$IMG,fd_dev_size=$((64 << 20))" "$W/t.cfs" &&
	grep -q "cngsecret12" "$W/t.cfs" &&
	[ "$(stat -c %a "$W/t.cfs")" = 600 ]
}

cleared() {
	tcli clearconfig confirm=True &&
	! [ -e "$CFG/target/iscsi/$IQN" ] &&
	! ls -d "$CFG"/target/core/fileio_*/disk0 2>/dev/null
}

# Both JSONs, keys sorted, must be equal.
same_json() {
	/usr/bin/python3 - "$W/before.json" "$W/after.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
if a != b:
    sa = json.dumps(a, indent=1, sort_keys=True).splitlines()
    sb = json.dumps(b, indent=1, sort_keys=True).splitlines()
    import difflib
    print("\n".join(difflib.unified_diff(sa, sb, "before", "after", lineterm="")))
    sys.exit(1)
print("equal: %d storage objects, %d targets" % (len(a.get("storage_objects", [])), len(a.get("targets", []))))
PY
}

block_size_kept() {
	f=$(ls -d "$CFG"/target/core/fileio_*/disk0/attrib/block_size)
	echo "block_size: $(cat "$f")"
	[ "$(cat "$f")" = 4096 ]
}

echo "TAP version 13"
if [ "${CNG_BOOT:-1}" -gt 1 ]; then
	echo "1..1"
	echo "not ok 1 the_guest_did_not_reboot # boot $CNG_BOOT: a panic?"
	exit 1
fi
echo "1..8"
check "${WHICH}_configfs_and_lio_load" load_configfs
check "targetcli_makes_the_tree_and_saves_json" make_tree
check "configfs_save_rebuilds_control_keeps_secrets_0600" our_save
check "targetcli_clearconfig_empties_the_tree" cleared
check "configfs_restore_brings_the_tree_back" cfs restore "$W/t.cfs"
check "block_size_4096_survives" block_size_kept
tcli saveconfig savefile="$W/after.json" > "$W/out" 2>&1 ||
	sed 's/^/#   /' "$W/out"
check "targetcli_json_after_restore_equals_before" same_json

tpu_round_trip() {
	tcli /backstores/fileio/disk0 set attribute emulate_tpu=1 &&
	our_save &&
	grep -q "attrib/emulate_tpu 1" "$W/t.cfs" &&
	tcli clearconfig confirm=True &&
	cfs restore "$W/t.cfs" &&
	f=$(ls -d "$CFG"/target/core/fileio_*/disk0/attrib/emulate_tpu) &&
	[ "$(cat "$f")" = 1 ]
}
check "restore_of_emulate_tpu_1_does_not_crash_lio" tpu_round_trip
tcli clearconfig confirm=True > /dev/null 2>&1
[ "$failed" -eq 0 ]
