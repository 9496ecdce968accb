#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The benchmark still works: the client module loads on this configfs and
# every kind of driver run ends well and prints well-formed rows. Times are
# not checked. The tree it builds, and removes:
#
#   /sys/kernel/config/cng_bench/items/i000000 .. i000049   (a0 .. a7)
#   /sys/kernel/config/cng_bench/trees/i000000 .. i000019   (c0 .. c3)
#   /tmp/cng-bench-quick/items/i000000 .. i000049            (tmpfs)
#   /tmp/cng-bench-quick/pair/i000000 .. i000049   (paired with cng_bench/items)
#   /sys/kernel/cng_bench_twin/cng_bench/items/i000000 .. i000019   (a0 .. a7,
#                                        the sysfs twin, made at load)
set -u
. ./lib.sh

DRV=/tests/bin/bench_driver
ROOT=$CFS/cng_bench
TMPFS=/tmp/cng-bench-quick
OUT=/tmp/cng-bench-quick.csv
TWIN=/sys/kernel/cng_bench_twin/cng_bench/items

cleanup() {
	umount "$TMPFS" 2>/dev/null
	rmdir "$TMPFS" 2>/dev/null
	rmmod cng_bench 2>/dev/null
	rm -f "$OUT"
}
trap cleanup EXIT

# run ARGS...: the driver, then its rows are checked: eight fields, a
# numeric value, and the test named in ARGS on each row.
run() {
	echo "# + $DRV $*"
	"$DRV" "$@" > "$OUT" || return 1
	awk -F, -v test="$(echo "$@" | awk '{ print $(NF - 1) }')" '
		NF != 8 || $3 != test || $8 !~ /^-?[0-9]+$/ { bad++;
			print "# malformed: " $0 }
		{ rows++ }
		END { exit bad || !rows }' "$OUT"
}

# has METRIC...: each metric has a row in the last run's output.
has() {
	for m in "$@"; do
		grep -q "^[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,$m," "$OUT" ||
			{ echo "# missing: $m"; return 1; }
	done
}

items_run() {
	run -s "$CNG_CONFIGFS" -n 50 -A 8 items "$ROOT/items" &&
	has made mkdir_ns mkdir_last_ns mkdir_growth_x1000 mkdir_profile_ns \
		getdents_ns stat_warm_ns stat_cold_ns read_cold_ns \
		read_warm_ns write_ns rmdir_ns &&
	grep -q ',getdents_entries,,52$' "$OUT"
}

trees_run() {
	run -s "$CNG_CONFIGFS" -n 20 -c 4 trees "$ROOT/trees" &&
	has made tree_mkdir_ns tree_rmdir_ns &&
	run -s "$CNG_CONFIGFS" -n 20 -c 4 treemem "$ROOT/trees" &&
	has created_slab_objects_bytes dropped_slab_objects_bytes
}

memory_run() {
	echo 32 > /sys/module/cng_bench/parameters/attrs &&
	run -s "$CNG_CONFIGFS" -n 50 -A 32 memory "$ROOT/items" &&
	has created_slab_objects_bytes dropped_slab_objects_bytes \
		created_slab_meminfo_bytes dropped_cache_bytes \
		dropped_fs_cache_bytes dropped_fs_bytes dropped_other_bytes \
		dropped_settle_passes dropped_settled &&
	echo 8 > /sys/module/cng_bench/parameters/attrs
}

tmpfs_run() {
	mkdir -p "$TMPFS" && mount -t tmpfs none "$TMPFS" &&
	mkdir "$TMPFS/items" &&
	run -s tmpfs -t -n 50 -A 8 items "$TMPFS/items" &&
	has mkdir_ns read_warm_ns rmdir_ns
}

paired_run() {
	mkdir "$TMPFS/pair" &&
	run -s "$CNG_CONFIGFS" -n 50 -A 8 -p "$TMPFS/pair" \
		-f /sys/kernel/uevent_seqnum -w "$TWIN" -m 20 \
		paired "$ROOT/items" &&
	has made mkdir_ns mkdir_ref_ns mkdir_ratio_x1000 mkdir_growth_x1000 \
		mkdir_growth_vs_ref_x1000 rmdir_ns rmdir_ref_ns \
		rmdir_ratio_x1000 rmdir_growth_vs_ref_x1000 read_cold_ratio_x1000 \
		read_warm_ns read_warm_ref_ns read_warm_ratio_x1000 \
		read_warm_at_ratio_x1000 write_ratio_x1000 \
		read_cold_twin_ratio_x1000 read_warm_twin_ns \
		read_warm_twin_ref_ns read_warm_twin_ratio_x1000 \
		write_twin_ratio_x1000 &&
	grep -q ',made,,50$' "$OUT"
}

cursors_run() {
	run -s "$CNG_CONFIGFS" -n 150 -A 8 -k 20 cursors "$ROOT/items" &&
	has listing_ns listing_parked_ns resume_parked_ns parked &&
	grep -q ',parked,,20$' "$OUT"
}

# The twin: 20 items of 8 attributes, shown and stored as the items are;
# the paired run's writes of "1" reached it.
twin_made() {
	local n
	n=$(ls "$TWIN" | wc -l) && [ "$n" -eq 20 ] &&
	n=$(ls "$TWIN/i000019" | wc -l) && [ "$n" -eq 8 ] &&
	[ "$(cat "$TWIN/i000000/a0")" = 1 ] &&
	echo 7 > "$TWIN/i000019/a7" && [ "$(cat "$TWIN/i000019/a7")" = 7 ]
}

twin_gone_at_unload() {
	rmmod cng_bench && [ ! -e /sys/kernel/cng_bench_twin ]
}

tree_left_empty() {
	for d in "$ROOT"/items/i* "$ROOT"/trees/i* "$TMPFS"/pair/i*; do
		[ -e "$d" ] && { echo "# left: $d"; return 1; }
	done
	return 0
}

ktap_plan 12
check "client_module_loads" insmod /lib/modules/cng/cng_bench.ko children=4 \
	sysfs_items=20
check "client_reports_its_sizes" \
	sh -c "test \$(cat $ROOT/item_size) -gt 0 &&
		test \$(cat $ROOT/tree_size) -gt 0"
check "items_run_reports_every_figure" items_run
check "trees_run_reports_every_figure" trees_run
check "memory_run_reports_every_figure" memory_run
check "tmpfs_reference_run_reports_every_figure" tmpfs_run
check "paired_run_reports_every_figure" paired_run
check "cursors_run_reports_every_figure" cursors_run
check "sysfs_reference_run_reports" run -s sysfs -n 50 sysfs \
	/sys/kernel/uevent_seqnum
check "runs_leave_the_groups_empty" tree_left_empty
check "sysfs_twin_mirrors_the_items" twin_made
check "sysfs_twin_goes_with_the_client" twin_gone_at_unload
ktap_done
