#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# fakenbd's I/O against the kernel's own NBD client, in the guest: the
# only test of the list scripts/bench-fakenbd.sh boots (ours: fakenbd
# needs configfs-ng). Both clients are connected to the same export of
# one nbd-server for the whole run, once for each connection count of
# CONNS; every round runs each fio case on one disk and then on the
# other, the first side alternating from round to round, so that a slow
# spell of the host weighs on both.
#
#   nbd-server 127.0.0.1:10809 -- export "disk" = /tmp/fnbd-bench/disk.img
#                                 (SIZE_MB, on the guest's tmpfs root)
#      |-- fakenbd: fakenbd/live/fnbdbenchN, connections=N -> /dev/fnbdbenchN
#      `-- nbd.ko:  nbd-client -N disk -C N -> /dev/nbdK
#
# The server says NBD_FLAG_CAN_MULTI_CONN (nbd-server does for every
# export but a copy-on-write one). Neither client uses more connections
# than the guest has vCPUs: blk-mq makes no more hardware queues, and
# each connection serves one.
#
# With AA=1 (an A/A run: how far two equal disks differ here), the
# "fakenbd" side is a second nbd.ko disk on the same export, connected as
# the first; its figures keep the client name fakenbd in the rows.
#
# Each figure is a "# csv: client,round,case,kib_s,iops ;" line
# (scripts/bench-fakenbd.sh mends a line that init's forwarding split).
set -u
. /tests/bench/fakenbd.conf
cd /tests || exit 1
. ./fakenbd_lib.sh

D=/tmp/fnbd-bench
before=$(modules_loaded)

# The disks of connection count N (the Kth of CONNS, from 0): fakenbd's,
# or in an A/A run nbd.ko's after the first set.
ncounts=$(echo $CONNS | wc -w)
ndisk() {
	nd_k=0
	for nd_n in $CONNS; do
		[ "$nd_n" = "$1" ] && { echo "nbd$((nd_k + ${2:-0}))"; return; }
		nd_k=$((nd_k + 1))
	done
}
fdisk() {
	if [ "${AA:-0}" = 1 ]; then
		ndisk "$1" "$ncounts"
	else
		echo "fnbdbench$1"
	fi
}
all_disks() {
	for ad_n in $CONNS; do
		echo "$(fdisk "$ad_n") $(ndisk "$ad_n")"
	done
}

cleanup() {
	for cl_n in $CONNS; do
		nbd-client -d "/dev/$(ndisk "$cl_n")" > /dev/null 2>&1 || true
		[ "${AA:-0}" = 1 ] &&
		nbd-client -d "/dev/$(fdisk "$cl_n")" > /dev/null 2>&1
	done
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
	if [ "${AA:-0}" = 1 ]; then
		nbd_connect_set 0 && nbd_connect_set "$ncounts"
		return
	fi
	fnbd_load || return 1
	for fc_n in $CONNS; do
		fnbd_start "$(fdisk "$fc_n")" target=127.0.0.1 device=disk \
			timeout=120 connections="$fc_n" &&
		test "$(cat "/sys/block/$(fdisk "$fc_n")/size")" -eq \
			$((SIZE_MB * 2048)) || return 1
	done
}

# nbd-client's netlink setup returns once the disk is up; the same
# connections and 512-byte blocks as fakenbd's.
nbd_connect() {
	[ "${AA:-0}" = 1 ] || nbd_connect_set 0
}

# nbd_connect_set FIRST: nbd.ko's disks from nbdFIRST, one for each
# connection count of CONNS. nbd.ko is loaded with room for two such
# sets (an A/A run uses both; otherwise the second stays unused).
nbd_connect_set() {
	run modprobe nbd nbds_max=$((ncounts * 2)) || return 1
	for nc_n in $CONNS; do
		nc_b=$(ndisk "$nc_n" "$1")
		run nbd-client 127.0.0.1 10809 "/dev/$nc_b" -N disk -b 512 \
			-C "$nc_n" &&
		wait_for test "$(cat "/sys/block/$nc_b/size")" -eq \
			$((SIZE_MB * 2048)) || return 1
	done
}

# Every disk gets the same scheduler, SCHEDULER: blk-mq gives a disk of
# several queues none, where nbd.ko, made with one queue and then given
# more, keeps mq-deadline. With MAX_SECTORS_KB set, every disk splits
# requests at that size (by default fakenbd at 1 MiB, nbd.ko at 128 KiB).
limit() {
	for lm_b in $(all_disks); do
		echo "$SCHEDULER" > /sys/block/$lm_b/queue/scheduler || return 1
		[ -z "$MAX_SECTORS_KB" ] ||
		echo "$MAX_SECTORS_KB" > /sys/block/$lm_b/queue/max_sectors_kb ||
			return 1
	done
}

describe() {
	for dq_b in $(all_disks); do
		dq=/sys/block/$dq_b/queue
		echo "# $dq_b: $(ls /sys/block/"$dq_b"/mq | wc -l) queues," \
			"scheduler $(cat "$dq"/scheduler)," \
			"max_sectors_kb $(cat "$dq"/max_sectors_kb)," \
			"nr_requests $(cat "$dq"/nr_requests)," \
			"logical_block_size $(cat "$dq"/logical_block_size)"
	done
}

# job CASE: fio's arguments for a case, NAME-RW-BS-qDEPTH-cN. With N
# connections, min(N, vCPUs) jobs, each pinned to a vCPU of its own, so
# that each connection in use gets its share (a job's requests go to its
# vCPU's queue), and each at DEPTH; their figures summed.
job() {
	jb_ifs=$IFS
	IFS=-
	# shellcheck disable=SC2086
	set -- $1
	IFS=$jb_ifs
	jb_n=${5#c}
	jb_cpus=$(nproc)
	[ "$jb_n" -le "$jb_cpus" ] || jb_n=$jb_cpus
	echo "--rw=$2 --bs=$3 --iodepth=${4#q} --numjobs=$jb_n" \
		"--cpus_allowed=0-$((jb_cpus - 1)) --cpus_allowed_policy=split" \
		"--group_reporting"
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

# Every case at every connection count: CASE-cN.
round_cases() {
	for rc_n in $CONNS; do
		for rc_case in $CASES; do
			echo "$rc_case-c$rc_n"
		done
	done
}

rounds() {
	rr_fail=0
	rr_r=1
	while [ $rr_r -le "$ROUNDS" ]; do
		for rr_k in $(round_cases); do
			rr_n=${rr_k##*-c}
			rr_f=/dev/$(fdisk "$rr_n") rr_nb=/dev/$(ndisk "$rr_n")
			if [ $((rr_r % 2)) -eq 1 ]; then
				measure fakenbd "$rr_f" $rr_r "$rr_k" &&
				measure nbd "$rr_nb" $rr_r "$rr_k"
			else
				measure nbd "$rr_nb" $rr_r "$rr_k" &&
				measure fakenbd "$rr_f" $rr_r "$rr_k"
			fi || rr_fail=1
		done
		rr_r=$((rr_r + 1))
	done
	return $rr_fail
}

disconnect() {
	for dc_n in $CONNS; do
		run nbd-client -d "/dev/$(ndisk "$dc_n")" > /dev/null || return 1
		if [ "${AA:-0}" = 1 ]; then
			run nbd-client -d "/dev/$(fdisk "$dc_n")" > /dev/null
		else
			fnbd_stop "$(fdisk "$dc_n")"
		fi || return 1
	done
	killall nbd-server &&
	run rmmod nbd || return 1
	[ "${AA:-0}" = 1 ] || fnbd_unload
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
