#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The benchmark, in the guest: the only test of the list scripts/bench.sh
# boots. Rounds are interleaved (stock, ours, tmpfs, then again), so that
# a slow spell of the host weighs on the three alike. Between two systems
# the configfs module is swapped:
#
#   rmmod cng_bench; umount /sys/kernel/config; rmmod configfs
#   insmod <stock or ours>/configfs.ko; mount; insmod cng_bench.ko
#
#   /sys/kernel/config/cng_bench/items/i000000 .. i<N-1>  (a0 .. a<A-1>)
#   /sys/kernel/config/cng_bench/trees/i000000 .. (c0 .. c<C-1>)
#   /run/cng-bench/items, /run/cng-bench/trees   the same, on tmpfs
#   /run/cng-pair/items    bare directories made in step with ours's items
#   /sys/kernel/cng_bench_twin/cng_bench/items/i000000 .. i<TWIN_N-1>
#                          the sysfs twin of the items (made at client load)
#
# Prints KTAP, one case per system; each figure is a "# csv: ROW ;" line
# (see bench/README.md): the end mark lets scripts/bench.sh mend a line
# that init's forwarding split. A system that fails to load is skipped.
set -u
. /tests/bench/config
. /tests/bench/lib.sh

DRV=/tests/bin/cng_bench_driver
PARAMS=/sys/module/cng_bench/parameters
TMPFS=/run/cng-bench
PAIR=/run/cng-pair
TWIN=/sys/kernel/cng_bench_twin/cng_bench/items
OUT=/tmp/cng-bench.out
ERR=/tmp/cng-bench.err

failed_stock=0 failed_ours=0 failed_tmpfs=0
skip_ours=

csv() { echo "# csv: $* ;"; }

# drive SYSTEM ROUND ARGS...: one driver run, its rows as csv lines.
drive() {
	local sys="$1" round="$2" plain='' rc
	shift 2
	[ "$sys" = tmpfs ] && plain=-t
	if "$DRV" -s "$sys" -r "$round" $plain "$@" > "$OUT" 2> "$ERR"; then
		rc=0
	else
		rc=1
		eval "failed_$sys=\$((failed_$sys + 1))"
	fi
	sed 's/^/# csv: /; s/$/ ;/' "$OUT"
	sed 's/^/# /' "$ERR"
	return $rc
}

# where SYSTEM: where the items and the trees go.
where() {
	if [ "$1" = tmpfs ]; then
		items=$TMPFS/items trees=$TMPFS/trees
	else
		items=$CFS/cng_bench/items trees=$CFS/cng_bench/trees
	fi
}

set_attrs() {
	[ "$1" = tmpfs ] || echo "$2" > "$PARAMS/attrs"
}

round() {
	local sys="$1" r="$2" n a deep
	where "$sys"
	if [ "$sys" = tmpfs ]; then
		mkdir -p "$TMPFS"
		mount -t tmpfs -o nr_inodes=0 none "$TMPFS" &&
			mkdir "$items" "$trees" ||
			return 1
	fi
	# Items have 8 attributes; on tmpfs one file, the one read and
	# written, so that 100,000 items fit the guest.
	set_attrs "$sys" 8
	a=8
	[ "$sys" = tmpfs ] && a=1
	for n in $NS; do
		[ -n "$PAIRED_ONLY" ] && break
		say "$sys round $r: items, n=$n"
		drive "$sys" "$r" -n "$n" -A "$a" -b "$BUDGET" items "$items"
	done
	# Each mkdir and rmdir followed at once by the same on tmpfs, each
	# attribute read or write by a read of a sysfs file: the targets'
	# ratios, free of the host's drift. Ours at every N; stock at the
	# first, for the write target (ours/sysfs over stock/sysfs).
	for n in $NS; do
		[ "$sys" = tmpfs ] && break
		say "$sys round $r: paired with tmpfs and sysfs, n=$n"
		mkdir -p "$PAIR"
		mount -t tmpfs -o nr_inodes=0 none "$PAIR" && mkdir "$PAIR/items" ||
			return 1
		deep=
		[ -r "$SYSFS_DEEP_FILE" ] && deep="-g $SYSFS_DEEP_FILE"
		[ -d "$TWIN" ] && deep="$deep -w $TWIN -m $TWIN_N"
		# shellcheck disable=SC2086
		drive "$sys" "$r" -n "$n" -A 8 -p "$PAIR/items" -f "$SYSFS_FILE" \
			$deep paired "$items"
		umount "$PAIR"
		[ "$sys" = stock ] && break
	done
	[ -n "$PAIRED_ONLY" ] && return 0
	say "$sys round $r: readdir with $CURSORS directories open, n=$CURSORS_N"
	drive "$sys" "$r" -n "$CURSORS_N" -A "$a" -k "$CURSORS" cursors "$items"
	say "$sys round $r: trees, n=$TREES_N"
	drive "$sys" "$r" -n "$TREES_N" -c "$CHILDREN" trees "$trees"
	for a in $MEM_ATTRS; do
		say "$sys round $r: memory, n=$MEM_N, attrs=$a"
		set_attrs "$sys" "$a"
		drive "$sys" "$r" -n "$MEM_N" -A "$a" memory "$items"
		[ "$sys" = tmpfs ] ||
			csv "$sys,$r,memory,$MEM_N,$a,client_bytes,,$(cat "$CFS/cng_bench/item_size")"
	done
	set_attrs "$sys" 8
	say "$sys round $r: tree memory, n=$TREES_N"
	drive "$sys" "$r" -n "$TREES_N" -c "$CHILDREN" treemem "$trees"
	[ "$sys" = tmpfs ] ||
		csv "$sys,$r,treemem,$TREES_N,0,client_bytes,,$(( $(cat "$CFS/cng_bench/tree_size") / (CHILDREN + 1) ))"
	if [ "$sys" = tmpfs ]; then
		umount "$TMPFS"
	else
		# The reference of attribute reads: a sysfs file, same boot.
		say "sysfs round $r"
		drive sysfs "$r" -n "$SYSFS_N" -A 0 sysfs "$SYSFS_FILE"
	fi
	return 0
}

echo "KTAP version 1"
echo "1..3"
# PAIRED_ONLY: only ours's paired runs, to try a change in minutes.
SYSTEMS="stock ours tmpfs"
[ -n "$PAIRED_ONLY" ] && SYSTEMS=ours
say "rounds=$ROUNDS items=$NS trees=$TREES_N children=$CHILDREN memory=$MEM_N attrs=$MEM_ATTRS budget=${BUDGET}s"
failed_sysfs=0
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for sys in $SYSTEMS; do
		if [ "$sys" = ours ] && [ -n "$skip_ours" ]; then
			continue
		fi
		if [ "$sys" != tmpfs ] && ! load "$sys" children="$CHILDREN" \
			sysfs_items="$TWIN_N"; then
			say "$sys configfs did not load; skipping it"
			if [ "$sys" = ours ]; then
				skip_ours=1
				continue
			fi
			failed_stock=$((failed_stock + 1))
			continue
		fi
		t0=$(date +%s)
		round "$sys" "$r" || eval "failed_$sys=\$((failed_$sys + 1))"
		say "$sys round $r took $(( $(date +%s) - t0 )) s"
	done
	r=$((r + 1))
done
load stock children="$CHILDREN" || say "could not reload stock configfs"
# A test leaves loaded only what it found loaded (the runner checks).
rmmod cng_bench || say "could not unload cng_bench"

n=0
for sys in stock ours tmpfs; do
	n=$((n + 1))
	if [ "$sys" = ours ] && [ -n "$skip_ours" ]; then
		echo "ok $n $sys # SKIP our configfs.ko is missing or did not load"
	elif eval "[ \$failed_$sys -eq 0 ]"; then
		echo "ok $n $sys"
	else
		echo "not ok $n $sys"
	fi
done
[ "$failed_stock$failed_ours$failed_tmpfs$failed_sysfs" = 0000 ]
