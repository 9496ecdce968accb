#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Allocation failures in the commit of a disk of two connections
# (connections=2), with the debug kernel's fault injection (fail-nth,
# fakenbd_nth): the commit of pending/f, with no connect before it, so
# that it connects twice, shakes hands twice, starts two receive threads
# and adds the disk, is run with its 1st, 2nd, ... fault point failed
# until a round fails none. A commit that fails is refused with a reason
# of the driver's own, and leaves f in pending/, not connected, with no
# disk, its settings writable; a commit right after it, with nothing
# failed, succeeds (so every round also starts from the same state: f
# committed and un-committed once more). A commit that succeeds
# despite a failure gives a disk that reads. Nothing is left behind (no
# connection to the server, no receive thread), the kernel log stays
# clean, kmemleak finds nothing (the runner's scan) and the module
# unloads. Debian's kernel has no fault injection: the test skips there
# (tests/harness/expected.list).
#
# Another disk, keep, stays live meanwhile: the block layer's bio slab
# that disks share then exists already, and a failure in its creation
# (which this kernel answers with a stack dump and a leak of its own)
# is not the driver's to test (and its stack dumps would overflow the
# kernel log, which must hold the whole campaign).
#
#   fakenbd/pending/f      target=127.0.0.1:10901 connections=2 timeout=20
#   fakenbd/live/f         after each commit that succeeded, un-committed
#   fakenbd/live/keep      target=127.0.0.1:10901 connections=2
#
# against fakenbd_badserver multi (NBD_FLAG_CAN_MULTI_CONN).
set -eu
. ./fakenbd_lib.sh

if fnbd_on_stock; then
	echo "1..0 # SKIP fakenbd needs configfs-ng's committable items"
	exit 4
fi
if ! [ -e /proc/self/fail-nth ]; then
	echo "1..0 # SKIP no /proc/self/fail-nth: no fault injection"
	exit 4
fi

PORT=10901
DBG=/sys/kernel/debug
MAX_N=3000
before=$(modules_loaded)

# Sleeping allocations fail too; the injections print nothing (their
# stack dump would read as a bug to the runner).
faults_on() {
	[ -d $DBG/failslab ] || run mount -t debugfs none $DBG
	for ff in failslab fail_page_alloc; do
		echo N > $DBG/$ff/ignore-gfp-wait &&
		echo 0 > $DBG/$ff/verbose || return 1
	done
}

faults_off() {
	for ff in failslab fail_page_alloc; do
		echo Y > $DBG/$ff/ignore-gfp-wait || true
	done
}

cleanup() {
	faults_off
	killall -9 fakenbd_badserver 2>/dev/null || true
	fnbd_remove_all
	unload_since "$before" || true
}
trap cleanup EXIT

# The disk f is live and reads, then is un-committed.
live_and_reads() {
	test -b /dev/f && test "$(fnbd_status f connected)" = 1 &&
	dd if=/dev/f of=/dev/null bs=4K count=1 iflag=direct 2>/dev/null &&
	fnbd_uncommit f >/dev/null
}

# Round N: the commit with its N-th fault point failed. Sets rnd_left to
# what was left of the count (0: a fault was injected).
round() {
	rnd_got=$(./bin/fakenbd_nth "$1" "$FNBD/pending/f" "$FNBD/live/f") &&
	[ -n "$rnd_got" ] || return 1
	rnd_res=${rnd_got% *}
	rnd_left=${rnd_got#* }
	if [ "$rnd_res" = OK ]; then
		echo "# n=$1: committed (left $rnd_left)"
		live_and_reads || { echo "# n=$1: the disk does not work"; return 1; }
		return 0
	fi
	rnd_why=$(fnbd_reason f)
	echo "# n=$1: $rnd_res: $rnd_why"
	# No record at all: configfs-ng's own allocation failed, before the
	# driver was asked. The driver's fallbacks say nothing of the cause.
	case $rnd_res:$rnd_why in
	ENOMEM: | E12:) ;;
	*: | *:"cannot start the disk" | *:"cannot connect")
		echo "# n=$1: refused without a reason of its own"
		return 1
		;;
	esac
	[ -n "$rnd_why" ] && echo "$rnd_why" >> /tmp/fnbd_faults.reasons
	if ! [ -d "$FNBD/pending/f" ] || [ -e "$FNBD/live/f" ] ||
	   [ "$(fnbd_status f connected)" != 0 ] || [ -e /sys/block/f ] ||
	   ! echo 20 > "$FNBD/pending/f/timeout"; then
		echo "# n=$1: the refused commit left f live, half made or frozen"
		return 1
	fi
	fnbd_commit f >/dev/null && live_and_reads ||
		{ echo "# n=$1: a commit after it failed"; return 1; }
}

each_allocation_of_the_commit_fails_cleanly() {
	run ./bin/fakenbd_badserver multi $PORT &&
	fnbd_start keep target=127.0.0.1:$PORT connections=2 timeout=20 &&
	fnbd_make f target=127.0.0.1:$PORT connections=2 timeout=20 &&
	faults_on || return 1
	rm -f /tmp/fnbd_faults.reasons
	n=1
	injected=0
	while [ $n -le $MAX_N ]; do
		round $n || return 1
		[ "$rnd_left" = 0 ] || break
		injected=$((injected + 1))
		n=$((n + 1))
	done
	faults_off
	echo "# $injected rounds failed an allocation; the reasons given:"
	sort /tmp/fnbd_faults.reasons | uniq -c | sed 's/^/# /'
	[ $n -le $MAX_N ] || { echo "# still failing at n=$MAX_N"; return 1; }
	[ "$rnd_res" = OK ] ||
		{ echo "# the commit with nothing failed was refused"; return 1; }
	[ $injected -ge 10 ] && fnbd_stop keep
}

# No TCP connection to or from PORT is established.
none_connected_to() {
	awk -v p=":$(printf '%04X' "$1")" \
		'($2 ~ p"$" || $3 ~ p"$") && $4 == "01" { f = 1 } END { exit f }' \
		/proc/net/tcp
}

# No connection to the server is left open, no receive thread of f runs.
nothing_is_left_behind() {
	run rmdir "$FNBD/pending/f" && wait_for none_connected_to $PORT ||
		return 1
	if grep -l '^fakenbd-f' /proc/[0-9]*/comm 2>/dev/null; then
		echo "# a receive thread of f is left"
		return 1
	fi
}

ktap_plan 4
check setup_loads_module fnbd_load
check each_allocation_of_the_commit_fails_cleanly \
	each_allocation_of_the_commit_fails_cleanly
check nothing_is_left_behind nothing_is_left_behind
check module_unloads fnbd_unload
ktap_done
