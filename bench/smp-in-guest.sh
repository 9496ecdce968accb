#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# More than one core, in the guest (scripts/bench-smp.sh boots it with
# QEMU_SMP vCPUs): cng_bench_smp's phases (mkdir, stat cold and warm,
# attribute read and write, rmdir) by one process, then by two at once,
# in three places:
#
#   dir     both in one directory          cng_bench/items
#   subsys  two directories, one subsystem cng_bench/items, items_b
#   two     two subsystems                 cng_bench/items, cng_bench_b/items
#
# on stock, ours and tmpfs (the same directories under /run/cng-smp), in
# interleaved rounds. Prints KTAP, one case per system; each figure is a
# "# csv: ROW ;" line, as bench/run-in-guest.sh's.
set -u
. /tests/bench/config
. /tests/bench/lib.sh

DRV=/tests/bin/cng_bench_smp
TMPFS=/run/cng-smp
OUT=/tmp/cng-smp.out
ERR=/tmp/cng-smp.err
failed_stock=0 failed_ours=0 failed_tmpfs=0

# places SYSTEM CASE: the two directories of CASE (a place name each).
places() {
	local base=$CFS/cng_bench other=$CFS/cng_bench_b
	if [ "$1" = tmpfs ]; then
		base=$TMPFS/cng_bench other=$TMPFS/cng_bench_b
	fi
	case $2 in
	dir)	echo "$base/items $base/items" ;;
	subsys)	echo "$base/items $base/items_b" ;;
	two)	echo "$base/items $other/items" ;;
	esac
}

# drive SYSTEM ROUND CASE DIR...: one run, its rows as csv lines.
drive() {
	local sys=$1 r=$2 c=$3 plain='' n
	shift 3
	[ "$sys" = tmpfs ] && plain=-t
	n=$SMP_N
	# One process alone in the directory two share makes as many items
	# as the two: each run ends with as many siblings (stock's lookups
	# and inserts walk them), and only the processes differ.
	[ "$c" = dir ] && [ $# -eq 1 ] && n=$((2 * SMP_N))
	if ! "$DRV" -s "$sys" -r "$r" -c "$c" -n "$n" -C "$SMP_CYCLES" \
		$plain "$@" > "$OUT" 2> "$ERR"; then
		eval "failed_$sys=\$((failed_$sys + 1))"
	fi
	sed 's/^/# csv: /; s/$/ ;/' "$OUT"
	sed 's/^/# /' "$ERR"
}

echo "KTAP version 1"
echo "1..3"
say "rounds=$ROUNDS n=$SMP_N per process, $SMP_CYCLES cycles, $(grep -c ^processor /proc/cpuinfo) cpus"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for sys in stock ours tmpfs; do
		if [ "$sys" = tmpfs ]; then
			unload
			mkdir -p "$TMPFS"
			mount -t tmpfs -o nr_inodes=0 none "$TMPFS" &&
				mkdir -p "$TMPFS/cng_bench/items" \
					"$TMPFS/cng_bench/items_b" \
					"$TMPFS/cng_bench_b/items" ||
				{ failed_tmpfs=$((failed_tmpfs + 1)); continue; }
		elif ! load "$sys" attrs=1; then
			say "$sys configfs did not load"
			eval "failed_$sys=\$((failed_$sys + 1))"
			continue
		fi
		for c in dir subsys two; do
			# shellcheck disable=SC2046 # two paths, no space in them
			set -- $(places "$sys" "$c")
			drive "$sys" "$r" "$c" "$1"
			drive "$sys" "$r" "$c" "$1" "$2"
		done
		[ "$sys" = tmpfs ] && umount "$TMPFS"
	done
	r=$((r + 1))
done
load stock || say "could not reload stock configfs"
rmmod cng_bench || say "could not unload cng_bench"

n=0
for sys in stock ours tmpfs; do
	n=$((n + 1))
	if eval "[ \$failed_$sys -eq 0 ]"; then
		echo "ok $n $sys"
	else
		echo "not ok $n $sys"
	fi
done
[ "$failed_stock$failed_ours$failed_tmpfs" = 000 ]
