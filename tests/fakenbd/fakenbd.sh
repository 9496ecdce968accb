#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fakenbd against a real NBD server (Debian's nbd-server) on loopback,
# through its configfs face: settings refused with their reasons, commit
# (mv pending/X live/) over IPv4 and IPv6, ext4 on the disk, data checked
# against the server's file, settings and un-commit refused while live or
# mounted, read-only exports and rw=0, two disks at once, refused commits
# with their messages, the server killed under I/O (connected turns 0 and
# notifies), several connections to one export (each connection lost
# and made again on its own, the refusal of a server that does not allow
# them), and the module unloading afterwards. Ours only: fakenbd
# needs configfs-ng's committable items.
#
#   nbd-server :10809 --+-- export "disk" = /tmp/fnbd/disk.img (64 MiB)
#                       |-- export "two"  = /tmp/fnbd/two.img  (8 MiB)
#                       |-- export "ro"   = /tmp/fnbd/ro.img   (8 MiB, ro)
#                       `-- export "cow"  = two.img, copy-on-write: the
#                           one that does not allow several connections
#   /sys/kernel/config/fakenbd/
#     pending/NAME/   target, device, rw, timeout, dead_timeout,
#                     connections; status attributes
#     live/NAME/      committed: /dev/NAME, a client of the server
set -eu
. ./fakenbd_lib.sh

if fnbd_on_stock; then
	echo "1..0 # SKIP fakenbd needs configfs-ng's committable items"
	exit 4
fi

D=/tmp/fnbd
M=/tmp/fnbd/mnt
W=/tmp/fnbd/watch.out
before=$(modules_loaded)
watch_pid=

cleanup() {
	[ -z "$watch_pid" ] || kill "$watch_pid" 2>/dev/null || true
	umount $M 2>/dev/null || true
	killall -9 nbd-server 2>/dev/null || true
	fnbd_remove_all
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
[cow]
	exportname = $D/two.img
	copyonwrite = true
CONF
	run nbd-server -C $D/config &&
	WAIT_FOR_S=120 wait_for listening 10809
}

setup() {
	fnbd_load && server_start
}

layout_is_committable() {
	test "$(ls $FNBD | tr '\n' ' ')" = "live pending " &&
	run mkdir $FNBD/pending/disk1 &&
	test "$(ls $FNBD/pending/disk1 | tr '\n' ' ')" = \
		"connect connected connections dead_timeout device disconnect disk errors last_error rw size sysfs target timeout " &&
	test "$(stat -c %a $FNBD/pending/disk1/connect)" = 200 &&
	test "$(stat -c %a $FNBD/pending/disk1/disconnect)" = 200 &&
	test "$(cat $FNBD/pending/disk1/rw)" = 1 &&
	test "$(cat $FNBD/pending/disk1/timeout)" = 30 &&
	test "$(cat $FNBD/pending/disk1/dead_timeout)" = 0 &&
	test "$(cat $FNBD/pending/disk1/connections)" = 1 &&
	test "$(cat $FNBD/pending/disk1/connected)" = 0 &&
	test -z "$(cat $FNBD/pending/disk1/target)"
}

# setting_refused NAME KEY VALUE ERRNO REASON
setting_refused() {
	sr_got=$(conf_sys write "$(fnbd_dir "$1")/$2" "$3")
	echo "# + echo '$3' > $1/$2: $sr_got"
	case $sr_got in
	"$4" | E[0-9]*) ;;
	*) echo "# want $4"; return 1 ;;
	esac
	sr_why=$(fnbd_reason "$1")
	echo "# reason: $sr_why"
	[ "$sr_why" = "$5" ] || { echo "# want: $5"; return 1; }
}

ADDR_FORMS="a.b.c.d, a.b.c.d:port, an IPv6 address or [IPv6]:port"
ADDR_FORMS="$ADDR_FORMS, with port in 1..65535"
bad_settings_are_explained() {
	setting_refused disk1 target nbd.example EINVAL \
		"target: 'nbd.example' is not $ADDR_FORMS" &&
	setting_refused disk1 target 127.0.0.1:0 EINVAL \
		"target: '127.0.0.1:0' is not $ADDR_FORMS" &&
	setting_refused disk1 rw yes EINVAL "rw: 'yes' is not one of 0, 1" &&
	setting_refused disk1 timeout 3601 EINVAL \
		"timeout: '3601' is not in 0..3600" &&
	setting_refused disk1 connections 0 EINVAL \
		"connections: '0' is not in 1..16" &&
	setting_refused disk1 connections 17 EINVAL \
		"connections: '17' is not in 1..16"
}

no_target_is_explained() {
	fnbd_commit_fails EDESTADDRREQ "no target address" disk1
}

# nbd-server greets its first client slowly under TCG (15 to 30 s and
# more on a loaded host), and the timeout bounds the connection and the
# whole handshake: 120 s for this first one.
disk=disk1
ipv4_commit_adds_sized_disk() {
	fnbd_set $disk target 127.0.0.1 &&
	fnbd_set $disk device disk &&
	fnbd_set $disk timeout 120 &&
	test "$(fnbd_status $disk target)" = 127.0.0.1 &&
	fnbd_commit $disk &&
	test -b /dev/$disk &&
	test "$(cat /sys/block/$disk/size)" -eq $((64 * 2048)) &&
	test "$(cat /sys/block/$disk/ro)" -eq 0 &&
	test "$(fnbd_status $disk connected)" = 1 &&
	test "$(fnbd_status $disk size)" = $((64 << 20)) &&
	test "$(fnbd_status $disk disk)" = $disk &&
	test "$(fnbd_status $disk errors)" = 0 &&
	test -z "$(fnbd_status $disk last_error)"
}

sysfs_names_the_disk_directory() {
	s=$(fnbd_status $disk sysfs) &&
	echo "# sysfs: $s" &&
	test -d "$s" &&
	test "$s" -ef /sys/block/$disk &&
	test "$(cat "$s/size")" -eq $((64 * 2048))
}

settings_refused_while_live() {
	sl_why="is refused while live: disconnect first (mv live/$disk pending/)"
	for sl_kv in target=127.0.0.2 device=two rw=0 timeout=5 connections=2
	do
		sl_k=${sl_kv%%=*} sl_v=${sl_kv#*=}
		setting_refused $disk "$sl_k" "$sl_v" EBUSY \
			"$sl_k: '$sl_v' $sl_why" || return 1
	done
	test "$(fnbd_status $disk device)" = disk
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

uncommit_while_mounted_is_ebusy() {
	fr_got=$(conf_sys rename $FNBD/live/$disk $FNBD/pending/$disk)
	echo "# + mv live/$disk pending/: $fr_got"
	case $fr_got in
	EBUSY | E16) ;;
	*) return 1 ;;
	esac
	fu_why=$(fnbd_reason $disk)
	echo "# reason: $fu_why"
	[ "$fu_why" = "$disk is open or mounted: unmount or close it first" ] &&
	test -d $FNBD/live/$disk && test -b /dev/$disk &&
	test "$(fnbd_status $disk connected)" = 1
}

rmdir_live_is_ebusy() {
	sys_got=$(conf_sys rmdir $FNBD/live/$disk)
	echo "# + rmdir live/$disk: $sys_got"
	case $sys_got in
	EBUSY | E16) test -d $FNBD/live/$disk ;;
	*) return 1 ;;
	esac
}

uncommit_after_umount_removes_disk() {
	run umount $M &&
	fnbd_uncommit $disk &&
	test ! -e /sys/block/$disk &&
	test "$(fnbd_status $disk connected)" = 0 &&
	test -z "$(fnbd_status $disk disk)" &&
	run rmdir $FNBD/pending/$disk
}

ro_export_rw1_refused() {
	fnbd_make ro target=127.0.0.1:10809 device=ro rw=1 &&
	fnbd_commit_fails EROFS "^export is read-only, rw=1 refused$" ro &&
	run rmdir $FNBD/pending/ro
}

ro_export_rw0_is_read_only() {
	fnbd_start fnbd-ro target=127.0.0.1 device=ro rw=0 &&
	test "$(cat /sys/block/fnbd-ro/ro)" -eq 1 &&
	run cmp /dev/fnbd-ro $D/ro.img &&
	! dd if=/dev/zero of=/dev/fnbd-ro bs=4K count=1 oflag=direct \
		2>/dev/null &&
	fnbd_stop fnbd-ro
}

rw0_on_writable_export_is_read_only() {
	fnbd_start two target=127.0.0.1 device=two rw=0 &&
	test "$(cat /sys/block/two/ro)" -eq 1 &&
	! dd if=/dev/zero of=/dev/two bs=4K count=1 oflag=direct 2>/dev/null &&
	fnbd_stop two
}

two_disks_at_once_ipv4_and_ipv6() {
	a=fnbd-a b=fnbd-b
	fnbd_start $a target=127.0.0.1 device=disk &&
	fnbd_start $b target=[::1]:10809 device=two &&
	test "$(fnbd_status $b target)" = "[::1]:10809" &&
	dd if=/dev/urandom of=$D/pa bs=64K count=8 2>/dev/null &&
	dd if=/dev/urandom of=$D/pb bs=64K count=8 2>/dev/null &&
	dd if=$D/pa of=/dev/$a bs=64K oflag=direct 2>/dev/null &&
	dd if=$D/pb of=/dev/$b bs=64K oflag=direct 2>/dev/null &&
	dd if=/dev/$a of=$D/ra bs=64K count=8 iflag=direct 2>/dev/null &&
	dd if=/dev/$b of=$D/rb bs=64K count=8 iflag=direct 2>/dev/null &&
	run cmp $D/pa $D/ra && run cmp $D/pb $D/rb &&
	fnbd_stop $a && fnbd_stop $b
}

# The pids of nbd-server's processes serving a client (nbd-server forks
# one per connection), newest last: all but the listener, the oldest.
server_children() {
	pidof nbd-server | tr ' ' '\n' | sort -n | sed 1d
}

log_says() {
	dmesg | grep -q -- "$1"
}

no_server_children() {
	[ -z "$(server_children)" ]
}

# cpu_io CPU dd-args...: dd pinned to one vCPU, so to the hardware queue,
# and so the connection, that vCPU maps to.
cpu_io() {
	ci_cpu=$1
	shift
	taskset -c "$ci_cpu" dd "$@" 2>/dev/null
}

# rx_threads_at_high_priority PATTERN: each receive thread whose name
# matches runs at nice -20, as nbd.ko's receive work (WQ_HIGHPRI).
rx_threads_at_high_priority() {
	for rt_pid in $(ps | sed -n "s|^ *\([0-9]*\) .*\[$1\]\$|\1|p"); do
		rt_nice=$(cut -d' ' -f19 "/proc/$rt_pid/stat")
		echo "# receive thread $rt_pid: nice $rt_nice"
		[ "$rt_nice" = -20 ] || return 1
	done
}

# One connection per hardware queue, and no more queues than CPUs (as
# blk-mq gives nbd.ko): connections=4 on two vCPUs gives two queues, two
# receive threads and two connections at the server. Data written from
# each vCPU lands in the server's file, and reads back through the other.
four_connections_carry_data() {
	d=quad
	wait_for no_server_children &&
	fc_cpus=$(nproc)
	fc_n=$((fc_cpus < 4 ? fc_cpus : 4))
	echo "# $fc_cpus vCPUs: $fc_n connections"
	fnbd_start $d target=127.0.0.1 device=disk connections=4 &&
	test "$(ls /sys/block/$d/mq | wc -l)" = $fc_n &&
	test "$(ps | grep -c "\[fakenbd-$d/[0-3]\]")" = $fc_n &&
	rx_threads_at_high_priority "fakenbd-$d/[0-3]" &&
	test "$(server_children | wc -l)" = $fc_n &&
	log_has "fakenbd: $d: export 'disk' on 127.0.0.1:10809, 67108864 bytes, $fc_n connections" ||
		return 1
	dd if=/dev/urandom of=$D/q0 bs=64K count=32 2>/dev/null &&
	dd if=/dev/urandom of=$D/q1 bs=64K count=32 2>/dev/null &&
	cpu_io 0 if=$D/q0 of=/dev/$d bs=64K oflag=direct &&
	cpu_io $((fc_cpus - 1)) if=$D/q1 of=/dev/$d bs=64K seek=32 \
		oflag=direct &&
	dd if=$D/disk.img of=$D/b0 bs=64K count=32 2>/dev/null &&
	dd if=$D/disk.img of=$D/b1 bs=64K skip=32 count=32 2>/dev/null &&
	run cmp $D/q0 $D/b0 && run cmp $D/q1 $D/b1 &&
	cpu_io $((fc_cpus - 1)) if=/dev/$d of=$D/r0 bs=64K count=32 \
		iflag=direct &&
	cpu_io 0 if=/dev/$d of=$D/r1 bs=64K skip=32 count=32 iflag=direct &&
	run cmp $D/q0 $D/r0 && run cmp $D/q1 $D/r1 &&
	test "$(fnbd_status $d errors)" = 0 || return 1
	# Each connection carried its vCPU's share: every server process
	# read (the writes' data) and wrote (the reads') a MiB at least.
	for fc_pid in $(server_children); do
		fc_r=$(sed -n 's/^rchar: //p' /proc/$fc_pid/io)
		fc_w=$(sed -n 's/^wchar: //p' /proc/$fc_pid/io)
		echo "# server process $fc_pid: rchar $fc_r, wchar $fc_w"
		[ "$fc_r" -gt 1048576 ] && [ "$fc_w" -gt 1048576 ] || return 1
	done
	fnbd_stop $d && wait_for no_server_children
}

# A server that does not say NBD_FLAG_CAN_MULTI_CONN (nbd-server's
# copy-on-write export) gets one connection or none: the commit of two
# is refused with the reason, and nothing stays connected.
multi_conn_refused_without_server_consent() {
	fnbd_make cowd target=127.0.0.1 device=cow connections=2 &&
	fnbd_commit_fails EOPNOTSUPP \
		"^server does not allow 2 connections to one export (no NBD_FLAG_CAN_MULTI_CONN): use 1$" \
		cowd &&
	wait_for no_server_children &&
	fnbd_set cowd connections 1 && fnbd_commit cowd &&
	test "$(fnbd_status cowd connected)" = 1 &&
	fnbd_stop cowd
}

# The server process of one connection of two killed (nbd-server serves
# each in a process of its own), under reads and writes from both vCPUs
# with a dead_timeout: that connection alone is made again, the requests
# on it are sent again, the other connection serves on, nothing fails.
# Then, with no dead_timeout, the same loss makes the whole device dead:
# I/O through either queue fails.
one_connection_lost_is_made_again() {
	d=pair
	wait_for no_server_children &&
	fnbd_start $d target=127.0.0.1 device=disk connections=2 \
		dead_timeout=120 &&
	test "$(server_children | wc -l)" = 2 || return 1
	dd if=/dev/urandom of=$D/pp bs=64K count=64 2>/dev/null
	(
		i=0
		while [ $i -lt 6 ]; do
			cpu_io $((i % $(nproc))) if=$D/pp of=/dev/$d bs=64K \
				oflag=direct &&
			cpu_io $(((i + 1) % $(nproc))) if=/dev/$d of=$D/pr.$i \
				bs=64K count=64 iflag=direct &&
			cmp $D/pp $D/pr.$i || exit 1
			i=$((i + 1))
		done
	) &
	ol_io=$!
	sleep 1
	ol_victim=$(server_children | tail -n 1)
	run kill -9 "$ol_victim"
	WAIT_FOR_S=120 wait_for log_says "fakenbd: $d/[01]: lost 127.0.0.1:10809" &&
	WAIT_FOR_S=120 wait_for log_says \
		"fakenbd: $d/[01]: connected again to 127.0.0.1:10809" || return 1
	wait $ol_io || { echo "# the I/O failed"; return 1; }
	dmesg | grep "fakenbd: $d/" | sed 's/^/# /'
	test "$(fnbd_status $d connected)" = 1 &&
	test "$(fnbd_status $d errors)" = 0 &&
	test "$(server_children | wc -l)" = 2 &&
	fnbd_stop $d || return 1

	d=pair0
	wait_for no_server_children &&
	fnbd_start $d target=127.0.0.1 device=disk connections=2 &&
	run kill -9 "$(server_children | tail -n 1)" &&
	wait_for sh -c "[ \"\$(cat $FNBD/live/$d/connected)\" = 0 ]" ||
		return 1
	echo "# last_error: $(fnbd_status $d last_error)"
	ol_cpu=0
	while [ $ol_cpu -lt "$(nproc)" ]; do
		if cpu_io $ol_cpu if=/dev/$d of=/dev/null bs=4K count=1 \
				iflag=direct; then
			echo "# a read on vCPU $ol_cpu succeeded"
			return 1
		fi
		ol_cpu=$((ol_cpu + 1))
	done
	fnbd_stop $d &&
	wait_for no_server_children
}

# The disk is named after the item: a name a disk may not have is refused
# at commit.
bad_disk_name_refused() {
	fnbd_make Disk target=127.0.0.1 device=two &&
	fnbd_commit_fails EINVAL "^bad disk name 'Disk'" Disk &&
	run rmdir $FNBD/pending/Disk
}

# A name another driver's disk has (brd's ram0) is refused at commit,
# before add_disk() could trip over it in sysfs.
other_drivers_disk_name_refused() {
	run modprobe brd rd_nr=1 rd_size=1024 &&
	test -e /sys/class/block/ram0 &&
	fnbd_make ram0 target=127.0.0.1 device=two &&
	fnbd_commit_fails EEXIST "^a disk named 'ram0' exists$" ram0 &&
	run rmdir $FNBD/pending/ram0 &&
	run rmmod brd
}

no_server_is_connection_refused() {
	fnbd_make nosrv target=127.0.0.1:10999 device=disk &&
	fnbd_commit_fails ECONNREFUSED \
		"^connect 127.0.0.1:10999: connection refused$" nosrv &&
	run rmdir $FNBD/pending/nosrv
}

missing_export_is_named() {
	fnbd_make foo target=127.0.0.1 device=foo &&
	fnbd_commit_fails ENOENT "^server has no export 'foo'" foo &&
	run rmdir $FNBD/pending/foo
}

watch_start() {
	: > $W
	echo "# + configfs watch --json $1 &"
	configfs watch --json "$1" > $W 2> $W.err &
	watch_pid=$!
	wait_for grep -q watching $W.err
}

watch_saw() {
	grep -q "\"path\":\"$1\".*\"new\":\"$2\"" $W
}

# dd runs under I/O when the server dies: it ends with an error within the
# timeout (5 s) plus margin, the disk says disconnected and why, connected
# and errors notify, and the disk un-commits.
server_killed_under_io_fails_with_eio() {
	d=killed
	fnbd_start $d target=127.0.0.1 device=disk timeout=5 &&
	watch_start $FNBD/live/$d || return 1
	(
		while dd if=/dev/$d of=/dev/null bs=1M count=64 iflag=direct \
				2>/dev/null &&
		      dd if=/dev/zero of=/dev/$d bs=1M count=64 oflag=direct \
				2>/dev/null; do :; done
		echo 'done' > $D/io.done
	) &
	sleep 2
	run killall -9 nbd-server
	wait_for test -e $D/io.done || return 1
	wait_for watch_saw "fakenbd/live/$d/connected" 0 || {
		sed 's/^/# watch: /' $W
		return 1
	}
	kill $watch_pid
	wait $watch_pid || true
	watch_pid=
	sed 's/^/# watch: /' $W
	test "$(fnbd_status $d connected)" = 0 &&
	echo "# last_error: $(fnbd_status $d last_error)" &&
	test -n "$(fnbd_status $d last_error)" &&
	test "$(fnbd_status $d errors)" -ge 1 &&
	grep -q "\"path\":\"fakenbd/live/$d/errors\"" $W &&
	! dd if=/dev/$d of=/dev/null bs=4K count=1 iflag=direct 2>/dev/null &&
	log_has "fakenbd: $d: disconnected from 127.0.0.1:10809" &&
	fnbd_stop $d
}

# nbd-server killed and started again under ext4 writes, with a
# dead_timeout: the disk connects again (connected turns 0, then 1), the
# writes that waited meanwhile go out on the new connection, no request
# fails, and every file reads back whole after a remount. nbd-server
# greets slowly under TCG, so the writers wait in D state for longer than
# the runner's hung-task timeout (20 s): the wait is by design (as on an
# NFS hard mount), and the test raises that timeout while it runs.
server_restart_loses_nothing() {
	srl_hung=$(cat /proc/sys/kernel/hung_task_timeout_secs)
	echo 300 > /proc/sys/kernel/hung_task_timeout_secs
	srl_ret=0
	server_restart || srl_ret=1
	echo "$srl_hung" > /proc/sys/kernel/hung_task_timeout_secs
	return $srl_ret
}

server_restart() {
	d=again
	rm -f $D/stop
	server_start &&
	fnbd_start $d target=127.0.0.1 device=disk timeout=120 \
		dead_timeout=300 &&
	run mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 \
		/dev/$d && run mount -t ext4 /dev/$d $M || return 1
	(
		i=0
		while [ ! -e $D/stop ] || [ $i -lt 8 ]; do
			dd if=/dev/urandom of=$D/src.$i bs=64K count=4 \
				2>/dev/null &&
			cp $D/src.$i $M/f.$i && sync || exit 1
			i=$((i + 1))
		done
		echo $i > $D/written
	) &
	srl_w=$!
	sleep 2
	run killall -9 nbd-server
	wait_for sh -c "[ \"\$(cat $FNBD/live/$d/connected)\" = 0 ]" || return 1
	echo "# last_error: $(fnbd_status $d last_error)"
	fnbd_status $d last_error | grep -q "^connecting again: " || return 1
	sleep 2
	kill -0 $srl_w || { echo "# the writer did not wait"; return 1; }
	run nbd-server -C $D/config && WAIT_FOR_S=120 wait_for listening 10809 ||
		return 1
	srl_i=0
	until [ "$(fnbd_status $d connected)" = 1 ]; do
		srl_i=$((srl_i + 1))
		[ $srl_i -lt 600 ] || { echo "# not connected again"; return 1; }
		sleep 0.5
	done
	touch $D/stop
	wait $srl_w || { echo "# a write failed"; return 1; }
	echo "# $(cat $D/written) files written; connected" \
		"$(fnbd_status $d connected), errors $(fnbd_status $d errors)"
	test "$(fnbd_status $d errors)" = 0 &&
	log_has "fakenbd: $d: connected again to 127.0.0.1:10809" &&
	run umount $M && run mount -t ext4 /dev/$d $M || return 1
	i=0
	while [ $i -lt "$(cat $D/written)" ]; do
		cmp $D/src.$i $M/f.$i || return 1
		i=$((i + 1))
	done
	run umount $M && fnbd_stop $d
}

# A dead_timeout that runs out with no server: connected stays 0, the
# reason says so, and I/O then fails with EIO.
dead_timeout_runs_out() {
	d=gone
	fnbd_start $d target=127.0.0.1 device=disk timeout=30 \
		dead_timeout=4 || return 1
	run killall -9 nbd-server
	wait_for sh -c "cat $FNBD/live/$d/last_error |
		grep -q '^not connected again within 4 s: '" || {
		echo "# last_error: $(fnbd_status $d last_error)"
		return 1
	}
	echo "# last_error: $(fnbd_status $d last_error)"
	test "$(fnbd_status $d connected)" = 0 || return 1
	if dd if=/dev/$d of=/dev/null bs=4K count=1 iflag=direct 2>/dev/null
	then
		echo "# a read succeeded"
		return 1
	fi
	fnbd_stop $d
}

# Elevator switches while reads run: the receive thread holds the queue's
# usage counter across each reply, so a switch (which frees the
# scheduler's requests) waits for it; KASAN, on the debug kernel, sees
# any lookup of a freed request.
elevator_switch_under_io() {
	d=elev
	fnbd_start $d target=127.0.0.1 device=disk || return 1
	(
		i=0
		while [ $i -lt 20 ]; do
			dd if=/dev/$d of=/dev/null bs=64K count=16 iflag=direct \
				2>/dev/null || exit 1
			i=$((i + 1))
		done
	) &
	esu_io=$!
	for esu_s in mq-deadline none mq-deadline none mq-deadline none; do
		echo $esu_s > /sys/block/$d/queue/scheduler || return 1
	done
	cat /sys/block/$d/queue/scheduler | sed 's/^/# scheduler: /'
	wait $esu_io && test "$(fnbd_status $d connected)" = 1 && fnbd_stop $d
}

# Swap on a fakenbd disk: a reader whose memory cgroup is held to 16 MiB
# (memory.high: reclaimed and throttled, never OOM-killed, which
# memory.max did once on a loaded host, swap being slow under TCG)
# fills a 40 MiB buffer twice, so that most of it goes out to the disk
# and comes back. Nothing hangs, no request fails, the disk stays
# connected. The buffer is random: 6.12 writes no zero-filled page to
# swap. (The socket is SOCK_MEMALLOC and its transfers run under
# memalloc_noreclaim_save(), as nbd.c's; this shows swap over it works
# under a cgroup's reclaim, not that it survives the whole machine
# running out: the server is in the same guest.)
swap_on_the_disk() {
	d=swapd
	fnbd_start $d target=127.0.0.1 device=disk timeout=60 &&
	run mkswap /dev/$d > /dev/null && run swapon /dev/$d || return 1
	sod_out=$(sed -n 's/^pswpout //p' /proc/vmstat)
	sod_in=$(sed -n 's/^pswpin //p' /proc/vmstat)
	sod_ok=0
	if mkdir -p $D/cg && run mount -t cgroup2 none $D/cg &&
	   echo +memory > $D/cg/cgroup.subtree_control &&
	   mkdir $D/cg/hog && echo 16M > $D/cg/hog/memory.high &&
	   run sh -c "echo \$\$ > $D/cg/hog/cgroup.procs &&
		exec dd if=/dev/urandom of=/dev/null bs=40M count=2" \
		> $D/swap.log 2>&1; then
		sod_ok=1
	fi
	sed 's/^/# /' $D/swap.log
	echo "# pages swapped out $(($(sed -n 's/^pswpout //p' /proc/vmstat) - sod_out))," \
		"in $(($(sed -n 's/^pswpin //p' /proc/vmstat) - sod_in))"
	run swapoff /dev/$d || sod_ok=0
	rmdir $D/cg/hog 2>/dev/null || true
	umount $D/cg 2>/dev/null || true
	if [ $sod_ok = 1 ] &&
	   [ "$(sed -n 's/^pswpout //p' /proc/vmstat)" -gt "$sod_out" ] &&
	   test "$(fnbd_status $d connected)" = 1 &&
	   test "$(fnbd_status $d errors)" = 0; then
		fnbd_stop $d
	else
		fnbd_stop $d
		return 1
	fi
}

# echo 1 > disconnect, as nbd-client -d: a mounted disk's I/O fails with
# EIO, connected turns 0 with the reason, nothing hangs; umount and the
# un-commit work; a pending item has nothing to disconnect.
disconnect_fails_io_and_keeps_the_disk() {
	d=severed
	fnbd_start $d target=127.0.0.1 device=disk timeout=30 &&
	run mkfs.ext4 -q -F /dev/$d && run mount -t ext4 /dev/$d $M &&
	dd if=/dev/urandom of=$M/f bs=64K count=4 2>/dev/null && sync &&
	run sh -c "echo 1 > $FNBD/live/$d/disconnect" &&
	test "$(fnbd_status $d connected)" = 0 &&
	test "$(fnbd_status $d last_error)" = "disconnected by the user" ||
		return 1
	if dd if=/dev/$d of=/dev/null bs=4K count=1 iflag=direct 2>/dev/null
	then
		echo "# a read succeeded"
		return 1
	fi
	if run timeout 60 dd if=/dev/zero of=$M/g bs=64K count=4 conv=fsync \
			2>/dev/null; then
		echo "# a write succeeded"
		return 1
	fi
	run timeout 60 umount $M && fnbd_uncommit $d || return 1
	if echo 1 2>/dev/null > $FNBD/pending/$d/disconnect; then
		echo "# a pending item took disconnect"
		return 1
	fi
	echo "# reason: $(fnbd_reason $d)" &&
	fnbd_reason $d | grep -q "the disk is not live" &&
	run rmdir $FNBD/pending/$d
}

# configfs save of a live disk and a pending one, rm -r (which un-commits
# first), restore: the live disk comes back connected, with its data; the
# pending one stays pending.
save_rm_restore_brings_disk_back() {
	fnbd_start sr target=127.0.0.1 device=disk &&
	fnbd_make sp target=127.0.0.1:10999 device=disk &&
	run dd if=/dev/urandom of=$D/sr.data bs=64K count=4 2>/dev/null &&
	run dd if=$D/sr.data of=/dev/sr bs=64K oflag=direct 2>/dev/null &&
	run configfs save -o $D/sr.cfs fakenbd &&
	grep -qx "mkdir fakenbd/live/sr" $D/sr.cfs &&
	run configfs rm -r $FNBD/live/sr $FNBD/pending/sp &&
	! [ -e $FNBD/live/sr ] && ! [ -e /dev/sr ] &&
	run configfs restore $D/sr.cfs &&
	test "$(cat $FNBD/live/sr/connected)" = 1 &&
	test -d $FNBD/pending/sp &&
	run dd if=/dev/sr of=$D/sr.back bs=64K count=4 iflag=direct \
		2>/dev/null &&
	cmp $D/sr.data $D/sr.back &&
	run configfs rm -r $FNBD/live/sr $FNBD/pending/sp
}

ktap_plan 32
check setup_loads_module_and_starts_nbd_server setup
check layout_is_committable layout_is_committable
check bad_settings_are_explained bad_settings_are_explained
check no_target_is_explained no_target_is_explained
check ipv4_commit_adds_sized_disk ipv4_commit_adds_sized_disk
check sysfs_names_the_disk_directory sysfs_names_the_disk_directory
check settings_refused_while_live settings_refused_while_live
check raw_write_reaches_server_file raw_write_reaches_server_file
check ext4_file_round_trips ext4_file_round_trips
check uncommit_while_mounted_is_ebusy uncommit_while_mounted_is_ebusy
check rmdir_live_is_ebusy rmdir_live_is_ebusy
check uncommit_after_umount_removes_disk uncommit_after_umount_removes_disk
check ro_export_rw1_refused ro_export_rw1_refused
check ro_export_rw0_is_read_only ro_export_rw0_is_read_only
check rw0_on_writable_export_is_read_only rw0_on_writable_export_is_read_only
check two_disks_at_once_ipv4_and_ipv6 two_disks_at_once_ipv4_and_ipv6
check bad_disk_name_refused bad_disk_name_refused
check other_drivers_disk_name_refused other_drivers_disk_name_refused
check no_server_is_connection_refused no_server_is_connection_refused
check missing_export_is_named missing_export_is_named
check save_rm_restore_brings_disk_back save_rm_restore_brings_disk_back
check four_connections_carry_data four_connections_carry_data
check multi_conn_refused_without_server_consent \
	multi_conn_refused_without_server_consent
check one_connection_lost_is_made_again one_connection_lost_is_made_again
check elevator_switch_under_io elevator_switch_under_io
check swap_on_the_disk swap_on_the_disk
check disconnect_fails_io_and_keeps_the_disk \
	disconnect_fails_io_and_keeps_the_disk
check server_killed_under_io_fails_with_eio \
	server_killed_under_io_fails_with_eio
check server_restart_loses_nothing server_restart_loses_nothing
check dead_timeout_runs_out dead_timeout_runs_out
check nothing_left_in_configfs \
	test -z "$(ls $FNBD/pending)$(ls $FNBD/live)"
check module_unloads fnbd_unload
ktap_done
