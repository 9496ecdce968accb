#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Where the time goes, by sampling: perf record (cpu-clock, all CPUs,
# call graphs) while user space makes PERF_OPS directories in a group
# that already holds PERF_N, on each of PERF_SYSTEMS (ours, stock,
# tmpfs); with PERF_READS=1 also while it reads a0 of PERF_N items
# (warm, 3 times each) on ours and the same count of reads of a sysfs
# file as deep (SYSFS_DEEP_FILE); with PERF_STATS=1 also while it
# stats each of PERF_N items, after drop_caches and then warm (3 times
# each), on ours and stock; with PERF_RMDIR=1 also while it removes
# PERF_N items whose attribute it read (so cached), on each system; with
# PERF_TWO=1 also while two processes at once, each in its own subsystem
# (cng_bench and cng_bench_b), stat PERF_N items after drop_caches, and
# then remove them. The only test of the list that
# scripts/bench-perf.sh boots; it prints "# LABEL SAMPLES SYMBOL" lines
# that the script turns into differences between systems.
#
# Unlike function_graph (bench-profile), sampling adds no cost to the
# calls it sees. Under TCG an interrupt lands between translated blocks,
# so a sample after a long instruction (rep stos) or an irq-off section
# is charged to what follows it: compare systems, not absolutes.
set -u
. /tests/bench/config
. /tests/bench/lib.sh

READER=/tests/bin/cng_bench_reader
TMPFS=/run/cng-perf
DATA=/tmp/perf.data

# record LABEL COMMAND...: sample COMMAND, print the symbols by samples.
record() {
	local label="$1"
	shift
	perf record -q -g -e cpu-clock -F 20000 -a -o "$DATA" -- "$@" \
		2>/dev/null || return 1
	perf report -i "$DATA" --stdio -n --no-children --sort sym -g none \
		2>/dev/null | awk -v l="$label" \
		'$1 ~ /%$/ && ($3 == "[k]" || $3 == "[.]") { print "#", l, $2, $4 }'
	for f in $PERF_CALLERS; do
		perf report -i "$DATA" --stdio --no-children --sort sym -S "$f" \
			-g caller,0.5,callee,function,percent 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -40 |
			sed "s/^/# callers $label $f /"
	done
}

# mkdirs SYSTEM DIR: fill DIR with PERF_N, sample PERF_OPS more.
mkdirs() {
	(cd "$2" && names 100000 "$PERF_N" | xargs mkdir) || return 1
	names 200000 "$PERF_OPS" > /tmp/names
	echo 3 > /proc/sys/vm/drop_caches
	(cd "$2" && record "$1-mkdir" xargs mkdir < /tmp/names) || return 1
}

# two_at_once SYSTEM DIR1 DIR2: PERF_N items made in each and their
# attribute read; then sampled while two processes at once, one a
# directory, stat every item after drop_caches, and then remove them.
two_at_once() {
	names 300000 "$PERF_N" > /tmp/names2 &&
	(cd "$2" && xargs mkdir < /tmp/names2) &&
	(cd "$3" && xargs mkdir < /tmp/names2) &&
	"$READER" "$2" 300000 "$PERF_N" 1 &&
	"$READER" "$3" 300000 "$PERF_N" 1 || return 1
	echo 3 > /proc/sys/vm/drop_caches
	record "$1-statcoldtwo" sh -c '"$0" -s "$1" 300000 "$3" 1 &
		"$0" -s "$2" 300000 "$3" 1 & wait' "$READER" "$2" "$3" \
		"$PERF_N" || return 1
	record "$1-rmdirtwo" sh -c '(cd "$0" && xargs rmdir < /tmp/names2) &
		(cd "$1" && xargs rmdir < /tmp/names2) & wait' "$2" "$3" ||
		return 1
	# Both removed every item.
	[ -z "$(ls "$2")" ] && [ -z "$(ls "$3")" ]
}

echo 0 > /proc/sys/kernel/kptr_restrict
echo -1 > /proc/sys/kernel/perf_event_paranoid
echo "KTAP version 1"
echo "1..1"
failed=0
for sys in $PERF_SYSTEMS; do
	case $sys in
	tmpfs)
		mkdir -p "$TMPFS" && mount -t tmpfs -o nr_inodes=0 none "$TMPFS" &&
			mkdir "$TMPFS/items" && mkdirs tmpfs "$TMPFS/items" ||
			failed=1
		umount "$TMPFS"
		;;
	*)
		items=$CFS/cng_bench/items
		load "$sys" && mkdirs "$sys" "$items" || failed=1
		if [ "$sys" = ours ] && [ -n "$PERF_READS" ]; then
			# Warm first: the profile is of warm reads.
			"$READER" "$items" 100000 "$PERF_N" 1 &&
			record ours-read "$READER" "$items" 100000 \
				"$PERF_N" 3 &&
			"$READER" "$items" 100000 "$PERF_N" 1 \
				"$SYSFS_DEEP_FILE" &&
			record sysfs-read "$READER" "$items" 100000 \
				"$PERF_N" 3 "$SYSFS_DEEP_FILE" || failed=1
		fi
		if [ -n "$PERF_STATS" ]; then
			echo 3 > /proc/sys/vm/drop_caches
			record "$sys-statcold" "$READER" -s "$items" 100000 \
				"$PERF_N" 1 &&
			record "$sys-statwarm" "$READER" -s "$items" 100000 \
				"$PERF_N" 3 || failed=1
		fi
		if [ -n "$PERF_RMDIR" ]; then
			names 100000 "$PERF_N" > /tmp/names &&
			"$READER" "$items" 100000 "$PERF_N" 1 &&
			(cd "$items" && record "$sys-rmdir" xargs rmdir \
				< /tmp/names) || failed=1
		else
			(cd "$items" && names 100000 "$PERF_N" | xargs rmdir) ||
				failed=1
		fi
		(cd "$items" && names 200000 "$PERF_OPS" | xargs rmdir) ||
			failed=1
		if [ -n "$PERF_TWO" ]; then
			two_at_once "$sys" "$items" "$CFS/cng_bench_b/items" ||
				failed=1
		fi
		;;
	esac
done
unload || failed=1
[ "$failed" = 0 ] && echo "ok 1 perf" || echo "not ok 1 perf"
