#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fakenbd's I/O against the kernel's own NBD client, in the guest: the
# only test of the list scripts/bench-fakenbd.sh boots (ours: fakenbd
# needs configfs-ng). Both clients are connected to the same export of
# one nbd-server for the whole run; every round runs each fio case on
# one disk and at once on the other, the first side alternating from
# round to round, so that a slow spell of the host weighs on both.
#
#   nbd-server 127.0.0.1:10809 -- export "disk" = /tmp/fnbd-bench/disk.img
#                                 (SIZE_MB, on the guest's tmpfs root)
#      |-- fakenbd: /sys/kernel/config/fakenbd/live/fnbdbench -> /dev/fnbdbench
#      `-- nbd.ko:  nbd-client -N disk -> /dev/nbd0
#
# Each figure is a "# csv: client,round,case,kib_s,iops ;" line
# (scripts/bench-fakenbd.sh mends a line that init's forwarding split).
set -u
. /tests/bench/fakenbd.conf
cd /tests || exit 1
. ./fakenbd_lib.sh

D=/tmp/fnbd-bench
FDISK=fnbdbench
NDEV=/dev/nbd0
before=$(modules_loaded)

cleanup() {
	nbd-client -d $NDEV > /dev/null 2>&1 || true
	fnbd_remove_all
	killall -9 nbd-server 2>/dev/null || true
	unload_since "$before" || true
	rm -rf $D
}
trap cleanup EXIT

server_start() {
	mkdir -p $D &&
	run dd if=/dev/zero of=$D/disk.img bs=1M count="$SIZE_MB" 2>/dev/null &&
	cat > $D/config <<CONF &&
[generic]
	port = 10809
[disk]
	exportname = $D/disk.img
	flush = true
CONF
	run nbd-server -C $D/config &&
	wait_for listening 10809
}

# A long timeout: a loaded host's guest may take seconds to greet.
fakenbd_connect() {
	fnbd_load &&
	fnbd_start $FDISK target=127.0.0.1 device=disk timeout=120 &&
	test "$(cat /sys/block/$FDISK/size)" -eq $((SIZE_MB * 2048))
}

# nbd-client's netlink setup returns once the disk is up; one connection
# and 512-byte blocks, as fakenbd has.
nbd_connect() {
	run modprobe nbd nbds_max=1 &&
	run nbd-client 127.0.0.1 10809 $NDEV -N disk -b 512 -C 1 &&
	wait_for test "$(cat /sys/block/nbd0/size)" -eq $((SIZE_MB * 2048))
}

# With MAX_SECTORS_KB set, both disks split requests at that size (by
# default fakenbd at 1 MiB, nbd.ko at 128 KiB).
limit() {
	[ -n "$MAX_SECTORS_KB" ] || return 0
	for lm_b in $FDISK nbd0; do
		echo "$MAX_SECTORS_KB" > /sys/block/$lm_b/queue/max_sectors_kb ||
			return 1
	done
}

describe() {
	for dq_b in $FDISK nbd0; do
		dq=/sys/block/$dq_b/queue
		echo "# $dq_b: scheduler $(cat "$dq"/scheduler)," \
			"max_sectors_kb $(cat "$dq"/max_sectors_kb)," \
			"nr_requests $(cat "$dq"/nr_requests)," \
			"logical_block_size $(cat "$dq"/logical_block_size)"
	done
}

# job CASE: fio's arguments for a case, NAME-RW-BS-qDEPTH.
job() {
	jb_ifs=$IFS
	IFS=-
	# shellcheck disable=SC2086
	set -- $1
	IFS=$jb_ifs
	echo "--rw=$2 --bs=$3 --iodepth=${4#q}"
}

# measure CLIENT DEV ROUND CASE: one fio run, one csv line.
measure() {
	ms_out=$D/fio.out
	# shellcheck disable=SC2046
	if ! fio --name="$4" --filename="$2" --direct=1 --ioengine=libaio \
		--time_based --runtime="$RUNTIME" --ramp_time=1 \
		--randrepeat=0 --norandommap --output-format=terse \
		--terse-version=3 $(job "$4") > $ms_out 2> $D/fio.err; then
		sed 's/^/# fio: /' $D/fio.err
		return 1
	fi
	# Terse version 3: fields 7 and 8 are the read KiB/s and IOPS, 48
	# and 49 the write ones.
	awk -F';' -v c="$1" -v r="$3" -v k="$4" '
		$1 == 3 {
			bw = $7 + $48; io = $8 + $49
			printf "# csv: %s,%s,%s,%d,%d ;\n", c, r, k, bw, io
			ok = 1
		}
		END { exit !ok }' $ms_out
}

rounds() {
	rr_fail=0
	rr_r=1
	while [ $rr_r -le "$ROUNDS" ]; do
		for rr_case in $CASES; do
			if [ $((rr_r % 2)) -eq 1 ]; then
				measure fakenbd /dev/$FDISK $rr_r "$rr_case" &&
				measure nbd $NDEV $rr_r "$rr_case"
			else
				measure nbd $NDEV $rr_r "$rr_case" &&
				measure fakenbd /dev/$FDISK $rr_r "$rr_case"
			fi || rr_fail=1
		done
		rr_r=$((rr_r + 1))
	done
	return $rr_fail
}

disconnect() {
	run nbd-client -d $NDEV > /dev/null &&
	fnbd_stop $FDISK &&
	killall nbd-server &&
	run rmmod nbd &&
	fnbd_unload
}

ktap_plan 6
check setup_starts_nbd_server server_start
check fakenbd_connects fakenbd_connect
check nbd_ko_connects nbd_connect
check limits_are_set limit
describe
check rounds_measure_both_clients rounds
check both_disconnect_and_unload disconnect
ktap_done
