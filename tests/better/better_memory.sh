#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Better than stock: memory per item does not grow with the number of
# attributes its type declares. 1,000 items of 64 attributes (wide/) must
# cost about what 1,000 items of one attribute (narrow/) cost, in slab
# memory measured after cache eviction, once it has settled.
#
#   cng_test/
#   |-- narrow/n0..n999/    1 attribute each
#   `-- wide/w0..w999/      64 attributes each
set -eu
. ./conf_lib.sh

N=1000

cleanup() {
	set +e
	i=0
	while [ $i -lt $N ]; do
		rmdir "$T/narrow/n$i" "$T/wide/w$i" 2>/dev/null
		i=$((i + 1))
	done
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# Shrinking every cache gives back the slabs SLUB keeps empty or per-cpu,
# which would otherwise count in Slab after the objects are freed.
slab_kb_once() {
	drop_caches
	for f in /sys/kernel/slab/*/shrink; do echo 1 > "$f"; done 2>/dev/null
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}

# Slab kB once two readings in a row agree within 16 kB (frees deferred
# by RCU land between readings; a single one moved by 200 kB at 300 items).
slab_kb() {
	sk_last=$(slab_kb_once)
	sk_try=0
	while [ $sk_try -lt 8 ]; do
		sleep 0.3
		sk_now=$(slab_kb_once)
		sk_diff=$((sk_now - sk_last))
		[ $sk_diff -le 16 ] && [ $sk_diff -ge -16 ] && break
		sk_last=$sk_now
		sk_try=$((sk_try + 1))
	done
	echo "$sk_now"
}

# make_many GROUP PREFIX: mkdir N items; prints the slab growth in kB
make_many() {
	mm_before=$(slab_kb)
	i=0
	while [ $i -lt $N ]; do mkdir "$T/$1/$2$i"; i=$((i + 1)); done
	echo $(($(slab_kb) - mm_before))
}

remove_many() {
	i=0
	while [ $i -lt $N ]; do rmdir "$T/$1/$2$i"; i=$((i + 1)); done
}

# A debug kernel (KASAN, kmemleak, lockdep) adds its own per-object
# bookkeeping to Slab, so the figure means nothing there: there the memory
# per item is measured on Debian's kernel only (and by make bench).
if [ -e /sys/kernel/debug/kmemleak ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP slab accounting on a debug kernel is not per-item memory"
	exit 4
fi

ktap_plan 3

cng_load
echo "# + mkdir $N items in narrow/, then in wide/"
narrow=$(make_many narrow n)
remove_many narrow n
wide=$(make_many wide w)
remove_many wide w
per_attr=$(((wide - narrow) * 1024 / N / 63))
echo "# slab growth: narrow ${narrow} kB, wide ${wide} kB; ~${per_attr} bytes per item per extra attribute"
# A pointer's worth per attribute would already be a per-attribute cost;
# allow that much for noise.
better "item_memory_does_not_grow_with_attribute_count" \
	"about $per_attr bytes per attribute per item" \
	test "$per_attr" -lt 8
check "narrow_items_cost_something_measurable" test "$narrow" -gt 0
check "module_unloads" cng_unload
ktap_done
