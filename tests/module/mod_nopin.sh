#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Nothing pinned: after drop_caches, our inode cache holds only what open
# files and cwds use, however many items and attributes exist.
#
#   /sys/kernel/config/nullb/np0 .. np39/   every attribute looked up
. ./lib.sh
. ./mod_lib.sh
set -eu
nullb_setup
cleanup() {
	for i in $(seq 0 39); do rmdir "$NB/np$i" 2>/dev/null || true; done
	rmmod null_blk 2>/dev/null || true
}
trap cleanup EXIT

# Shrinking the cache first empties KASAN's quarantine of it on a debug
# kernel, where freed objects still count as active until released.
inodes() {
	echo 1 > /sys/kernel/slab/cng_inode_cache/shrink 2>/dev/null
	awk '$1 == "cng_inode_cache" { print $2 }' /proc/slabinfo
}

ktap_plan 4
check "mkdir_40_items" sh -c "for i in \$(seq 0 39); do mkdir $NB/np\$i; done"
check "stat_every_file" sh -c "ls -lR $NB > /dev/null"
echo "# cng_inode_cache active objects: $(inodes)"
# Inodes are freed after an RCU grace period: give it time.
echo 3 > /proc/sys/vm/drop_caches
sleep 1
echo 3 > /proc/sys/vm/drop_caches
sleep 1
n=$(inodes)
echo "# after drop_caches: ${n:-none}"
better "inodes_reclaimed_by_drop_caches" test "${n:-9999}" -lt 20
check "tree_intact_after_eviction" \
	test "$(find $NB -maxdepth 1 -name 'np*' | grep -c .)" = 40
ktap_done
