#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fakenbd against a real NBD server (Debian's nbd-server) on loopback:
# connect over IPv4 and IPv6, ext4 on the disk, data checked against the
# server's file, read-only exports and rw=0, two disks at once, refusals
# with their messages, the server killed under I/O, and the module
# unloading afterwards.
#
# What runs (no configfs tree yet; the TEMPORARY debugfs face):
#
#   nbd-server :10809 --+-- export "disk" = /tmp/fnbd/disk.img (64 MiB)
#                       |-- export "two"  = /tmp/fnbd/two.img  (8 MiB)
#                       `-- export "ro"   = /tmp/fnbd/ro.img   (8 MiB, ro)
#   /dev/fakenbdN, /dev/fnbd-a, /dev/fnbd-b   its clients
set -eu
. ./fakenbd_lib.sh

D=/tmp/fnbd
M=/tmp/fnbd/mnt
before=$(modules_loaded)

cleanup() {
	umount $M 2>/dev/null || true
	killall -9 nbd-server 2>/dev/null || true
	if [ -d $FNBD_DBG ]; then
		for cl_d in $(cut -d' ' -f1 $FNBD_DBG/status); do
			echo "stop $cl_d" > $FNBD_DBG/ctl || true
		done
	fi
	unload_since "$before" || true
	rm -rf $D
}
trap cleanup EXIT

server_start() {
	mkdir -p $D $M &&
	dd if=/dev/zero of=$D/disk.img bs=1M count=64 2>/dev/null &&
	dd if=/dev/zero of=$D/two.img bs=1M count=8 2>/dev/null &&
	dd if=/dev/urandom of=$D/ro.img bs=1M count=8 2>/dev/null &&
	cat > $D/config <<CONF &&
[generic]
	port = 10809
	allowlist = true
[disk]
	exportname = $D/disk.img
	flush = true
	trim = true
[two]
	exportname = $D/two.img
[ro]
	exportname = $D/ro.img
	readonly = true
CONF
	run nbd-server -C $D/config &&
	wait_for listening 10809
}

setup() {
	fnbd_load && server_start
}

# The default timeout (30 s): nbd-server may be slow to greet its first
# client under TCG.
disk=
ipv4_connect_adds_sized_disk() {
	disk=$(fnbd_start target=127.0.0.1 export=disk) &&
	echo "# disk $disk" &&
	test -b /dev/$disk &&
	test "$(cat /sys/block/$disk/size)" -eq $((64 * 2048)) &&
	test "$(cat /sys/block/$disk/ro)" -eq 0 &&
	test "$(fnbd_status $disk connected)" = 1
}

raw_write_reaches_server_file() {
	dd if=/dev/urandom of=$D/pattern bs=64K count=16 2>/dev/null &&
	run dd if=$D/pattern of=/dev/$disk bs=64K seek=16 oflag=direct \
		conv=fsync 2>/dev/null &&
	dd if=$D/disk.img of=$D/back bs=64K skip=16 count=16 2>/dev/null &&
	run cmp $D/pattern $D/back &&
	run dd if=/dev/$disk of=$D/back2 bs=64K skip=16 count=16 \
		iflag=direct 2>/dev/null &&
	run cmp $D/pattern $D/back2
}

ext4_file_round_trips() {
	run mkfs.ext4 -q -F /dev/$disk &&
	run mount -t ext4 /dev/$disk $M &&
	dd if=/dev/urandom of=$M/file bs=1M count=4 2>/dev/null &&
	sum=$(sha256sum < $M/file) &&
	run umount $M &&
	echo 3 > /proc/sys/vm/drop_caches &&
	run mount -t ext4 /dev/$disk $M &&
	test "$(sha256sum < $M/file)" = "$sum"
}

stop_while_mounted_is_ebusy() {
	if fnbd_ctl stop "$disk" 2>/dev/null; then
		echo "# stop succeeded while mounted"
		return 1
	fi
	echo "# $(fnbd_result)"
	fnbd_result | grep -q "$disk is open or mounted" &&
	test -b /dev/$disk
}

stop_after_umount_removes_disk() {
	run umount $M &&
	fnbd_stop "$disk" &&
	test ! -e /sys/block/$disk
}

ro_export_rw1_refused() {
	fnbd_start_fails "export is read-only, rw=1 refused" \
		target=127.0.0.1:10809 export=ro rw=1
}

ro_export_rw0_is_read_only() {
	d=$(fnbd_start target=127.0.0.1 export=ro rw=0 name=fnbd-ro) &&
	test "$(cat /sys/block/$d/ro)" -eq 1 &&
	run cmp /dev/$d $D/ro.img &&
	! dd if=/dev/zero of=/dev/$d bs=4K count=1 oflag=direct 2>/dev/null &&
	fnbd_stop $d
}

rw0_on_writable_export_is_read_only() {
	d=$(fnbd_start target=127.0.0.1 export=two rw=0) &&
	test "$(cat /sys/block/$d/ro)" -eq 1 &&
	test "$(fnbd_status $d ro)" = 1 &&
	! dd if=/dev/zero of=/dev/$d bs=4K count=1 oflag=direct 2>/dev/null &&
	fnbd_stop $d
}

two_disks_at_once_ipv4_and_ipv6() {
	a=$(fnbd_start target=127.0.0.1 export=disk name=fnbd-a) &&
	b=$(fnbd_start "target=[::1]:10809" export=two name=fnbd-b) &&
	dd if=/dev/urandom of=$D/pa bs=64K count=8 2>/dev/null &&
	dd if=/dev/urandom of=$D/pb bs=64K count=8 2>/dev/null &&
	dd if=$D/pa of=/dev/$a bs=64K oflag=direct 2>/dev/null &&
	dd if=$D/pb of=/dev/$b bs=64K oflag=direct 2>/dev/null &&
	dd if=/dev/$a of=$D/ra bs=64K count=8 iflag=direct 2>/dev/null &&
	dd if=/dev/$b of=$D/rb bs=64K count=8 iflag=direct 2>/dev/null &&
	run cmp $D/pa $D/ra && run cmp $D/pb $D/rb &&
	fnbd_stop $a && fnbd_stop $b
}

same_name_twice_refused() {
	a=$(fnbd_start target=127.0.0.1 export=two name=fnbd-a) &&
	fnbd_start_fails "a disk named 'fnbd-a' exists" \
		target=127.0.0.1 export=two name=fnbd-a &&
	fnbd_stop $a
}

no_server_is_connection_refused() {
	fnbd_start_fails "connect 127.0.0.1:10999: connection refused" \
		target=127.0.0.1:10999 export=disk
}

missing_export_is_named() {
	fnbd_start_fails "server has no export 'foo'" \
		target=127.0.0.1 export=foo
}

bad_target_is_explained() {
	fnbd_start_fails "not an IPv4 or IPv6 address" target=nbd.example
}

# dd runs under I/O when the server dies: it ends with an error within the
# timeout (5 s) plus margin, the disk says disconnected and why, the hook
# ran, and the disk stops.
server_killed_under_io_fails_with_eio() {
	d=$(fnbd_start target=127.0.0.1 export=disk timeout=5) || return 1
	(
		while dd if=/dev/$d of=/dev/null bs=1M count=64 iflag=direct \
				2>/dev/null &&
		      dd if=/dev/zero of=/dev/$d bs=1M count=64 oflag=direct \
				2>/dev/null; do :; done
		echo done > $D/io.done
	) &
	sleep 2
	run killall -9 nbd-server
	wait_for test -e $D/io.done || return 1
	wait
	test "$(fnbd_status $d connected)" = 0 &&
	echo "# $(grep "^$d " $FNBD_DBG/status)" &&
	test "$(fnbd_status $d errors)" -ge 1 &&
	test "$(fnbd_status $d notified)" -ge 1 &&
	! dd if=/dev/$d of=/dev/null bs=4K count=1 iflag=direct 2>/dev/null &&
	log_has "fakenbd: $d: disconnected from 127.0.0.1:10809" &&
	fnbd_stop $d
}

ktap_plan 16
check setup_loads_module_and_starts_nbd_server setup
check ipv4_connect_adds_sized_disk ipv4_connect_adds_sized_disk
check raw_write_reaches_server_file raw_write_reaches_server_file
check ext4_file_round_trips ext4_file_round_trips
check stop_while_mounted_is_ebusy stop_while_mounted_is_ebusy
check stop_after_umount_removes_disk stop_after_umount_removes_disk
check ro_export_rw1_refused ro_export_rw1_refused
check ro_export_rw0_is_read_only ro_export_rw0_is_read_only
check rw0_on_writable_export_is_read_only rw0_on_writable_export_is_read_only
check two_disks_at_once_ipv4_and_ipv6 two_disks_at_once_ipv4_and_ipv6
check same_name_twice_refused same_name_twice_refused
check no_server_is_connection_refused no_server_is_connection_refused
check missing_export_is_named missing_export_is_named
check bad_target_is_explained bad_target_is_explained
check server_killed_under_io_fails_with_eio \
	server_killed_under_io_fails_with_eio
check module_unloads fnbd_unload
ktap_done
