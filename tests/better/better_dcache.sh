#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Better than stock: nothing pinned. After drop_caches the dentry and inode
# counts fall back to what open files and cwds hold, however many items,
# groups and links exist.
#
#   cng_test/
#   |-- items/i0..i199/     200 items; i0/data held open, i1 a cwd
#   |   `-- i<n>/l -> i<n+1>    links from the first 100
#   `-- g0..g49/sub/deep/   50 user groups, 150 directories
set -eu
. ./conf_lib.sh

N=200 L=100 G=50
HOLDER=

cleanup() {
	set +e
	exec 3<&- 2>/dev/null
	[ -n "$HOLDER" ] && kill "$HOLDER" 2>/dev/null && wait "$HOLDER"
	i=0
	while [ $i -lt $L ]; do rm -f "$T/items/i$i/l"; i=$((i + 1)); done
	i=0
	while [ $i -lt $N ]; do rmdir "$T/items/i$i" 2>/dev/null; i=$((i + 1)); done
	i=0
	while [ $i -lt $G ]; do rmdir "$T/g$i" 2>/dev/null; i=$((i + 1)); done
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# The first number of a /proc/sys/fs file, after eviction.
first_after_drop() {
	drop_caches
	awk '{ print $1 }' "$1"
}

dentries() {
	first_after_drop /proc/sys/fs/dentry-state
}

inodes() {
	first_after_drop /proc/sys/fs/inode-nr
}

# What the 550 nodes may keep after eviction: the open file's and the cwd's
# path (a handful) plus noise from the rest of the guest.
SLACK=40

ktap_plan 4

echo "# dentry-state: $(cat /proc/sys/fs/dentry-state)"

cng_load
d0=$(dentries)
i0=$(inodes)
echo "# baseline: $d0 dentries, $i0 inodes"
run mkdir "$T/items/i0"
echo "# + mkdir $N items, $G groups, $L links; stat every attribute"
i=1
while [ $i -lt $N ]; do mkdir "$T/items/i$i"; i=$((i + 1)); done
i=0
while [ $i -lt $G ]; do mkdir "$T/g$i"; i=$((i + 1)); done
i=0
while [ $i -lt $L ]; do ln -s "$T/items/i$((i + 1))" "$T/items/i$i/l"; i=$((i + 1)); done
ls -lR "$T" > /dev/null
echo "# + exec 3< $T/items/i0/data; cwd of a sleeper in items/i1"
exec 3< "$T/items/i0/data"
(cd "$T/items/i1" && exec sleep 1000) &
HOLDER=$!
d1=$(dentries)
i1=$(inodes)
echo "# after eviction: $d1 dentries (+$((d1 - d0))), $i1 inodes (+$((i1 - i0)))"
better "dentries_fall_after_drop_caches" \
	"$((d1 - d0)) dentries stay pinned for $((N + 3 * G + L)) nodes" \
	test $((d1 - d0)) -lt $SLACK
better "inodes_fall_after_drop_caches" \
	"$((i1 - i0)) inodes stay pinned for $((N + 3 * G + L)) nodes" \
	test $((i1 - i0)) -lt $SLACK
check "held_file_still_reads" sh -c 'cat <&3 >/dev/null'
exec 3<&-
kill "$HOLDER"
wait "$HOLDER" || true
HOLDER=
echo "# + remove everything"
i=0
while [ $i -lt $L ]; do rm "$T/items/i$i/l"; i=$((i + 1)); done
i=0
while [ $i -lt $N ]; do rmdir "$T/items/i$i"; i=$((i + 1)); done
i=0
while [ $i -lt $G ]; do rmdir "$T/g$i"; i=$((i + 1)); done
check "module_unloads" cng_unload
ktap_done
