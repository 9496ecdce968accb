#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Ours alone at a size stock cannot reach (BENCH_GUEST of scripts/bench.sh,
# with QEMU_MEM raised): one items run of N (mkdir, getdents, stat warm
# and cold, reads, write, rmdir) and one memory run of MEM_N with 8
# attributes, per round. Rows as run-in-guest.sh's.
set -u
. /tests/bench/config
. /tests/bench/lib.sh

DRV=/tests/bin/cng_bench_driver
CFS_ITEMS=$CFS/cng_bench/items
OUT=/tmp/cng-bench.out
failed=0

echo "KTAP version 1"
echo "1..1"
load ours || { echo "not ok 1 ours # could not load"; exit 1; }
echo 8 > /sys/module/cng_bench/parameters/attrs
r=1
while [ "$r" -le "$ROUNDS" ]; do
	for n in $NS; do
		say "ours round $r: items, n=$n"
		"$DRV" -s ours -r "$r" -n "$n" -A 8 -b "$BUDGET" items \
			"$CFS_ITEMS" > "$OUT" || failed=1
		sed 's/^/# csv: /; s/$/ ;/' "$OUT"
	done
	say "ours round $r: memory, n=$MEM_N, attrs=8"
	"$DRV" -s ours -r "$r" -n "$MEM_N" -A 8 memory "$CFS_ITEMS" > "$OUT" ||
		failed=1
	sed 's/^/# csv: /; s/$/ ;/' "$OUT"
	echo "# csv: ours,$r,memory,$MEM_N,8,client_bytes,,$(cat "$CFS/cng_bench/item_size") ;"
	r=$((r + 1))
done
load stock || say "could not reload stock configfs"
rmmod cng_bench || say "could not unload cng_bench"
[ "$failed" = 0 ] && echo "ok 1 ours" || echo "not ok 1 ours"
