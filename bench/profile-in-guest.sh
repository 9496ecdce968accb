#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Where the time of one mkdir goes, ours against stock and tmpfs: the
# function_graph tracer on do_mkdirat, a few levels deep, while user space
# makes PROFILE_OPS more directories in a group that already holds
# PROFILE_N. The only test of the list scripts/bench-profile.sh boots.
#
#   /sys/kernel/config/cng_bench/items/i<n>   (a0 .. a7), ours and stock
#   /run/cng-profile/items/i<n>               tmpfs, bare directories
#
# Prints, per system, the mean time per mkdir of every function at each
# traced depth (tracer overhead included: compare systems, not absolutes).
set -u
. /tests/bench/config
. /tests/bench/lib.sh

TR=/sys/kernel/tracing
TMPFS=/run/cng-profile
# What may show in the graph: the syscall's steps, both file systems, the
# allocators and locks they call.
PROFILE_FUNCS='do_mkdirat filename_create done_path_create vfs_mkdir
lookup_one_qstr_excl d_alloc d_instantiate d_splice_alias d_add dput
cng_* configfs_* config_* shmem_* simple_* new_inode iget_locked
unlock_new_inode inode_init_* security_* kmem_cache_alloc* kmem_cache_free
__kmalloc* kmalloc_trace kfree kstrdup kmemdup_nul mutex_lock mutex_unlock
ida_alloc_range rhashtable_insert_slow try_module_get module_put
generic_permission inode_permission may_create_in_sticky fsnotify*
ktime_get_coarse_real_ts64 current_time'

# profile SYSTEM DIR: fill DIR with PROFILE_N, trace PROFILE_OPS more.
profile() {
	local sys="$1" dir="$2"

	(cd "$dir" && names 100000 "$PROFILE_N" | xargs mkdir) || return 1
	echo 3 > /proc/sys/vm/drop_caches
	echo 0 > $TR/tracing_on
	echo nop > $TR/current_tracer
	echo > $TR/trace
	# Only these are patched: all of the kernel takes minutes under TCG.
	echo > $TR/set_ftrace_filter
	set -f
	for f in $PROFILE_FUNCS; do
		echo "$f" >> $TR/set_ftrace_filter 2>/dev/null
	done
	set +f
	say "$sys: $(wc -l < $TR/set_ftrace_filter) functions traced"
	echo do_mkdirat > $TR/set_graph_function
	echo "$PROFILE_DEPTH" > $TR/max_graph_depth
	echo 0 > $TR/options/funcgraph-irqs
	echo 1 > $TR/options/funcgraph-tail
	echo 0 > $TR/options/funcgraph-proc
	echo 16384 > $TR/buffer_size_kb
	echo function_graph > $TR/current_tracer
	echo 1 > $TR/tracing_on
	(cd "$dir" && names $((100000 + PROFILE_N)) "$PROFILE_OPS" |
		xargs mkdir) || return 1
	echo 0 > $TR/tracing_on
	say "$sys: mean per mkdir at N=$PROFILE_N, $PROFILE_OPS traced:" \
		"time, calls, depth, function"
	awk -v sys="$sys" '
	# " 0) + 12.34 us   |    } /* name */" or " 0)   1.2 us |  name();"
	{
		bar = index($0, "|")
		if (!bar) next
		left = substr($0, 1, bar - 1)
		right = substr($0, bar + 1)
		if (!match(left, /[0-9.]+ us/)) next
		us = substr(left, RSTART, RLENGTH - 3) + 0
		match(right, /^ */)
		depth = int((RLENGTH - 1) / 2)
		name = right
		sub(/^ *} \/\* /, "", name); sub(/ \*\/.*$/, "", name)
		sub(/^ */, "", name); sub(/\(\);.*$/, "", name)
		key = depth " " name
		total[key] += us; calls[key]++
		if (depth == 0 && name == "do_mkdirat") ops++
	}
	END {
		for (k in total)
			printf "# %s %6.2f us %6.2f calls %s\n", sys,
				total[k] / ops, calls[k] / ops, k
	}' $TR/trace | sort -k7,7n -k3,3nr | head -60
	# A change of tracer empties the buffer: only once it has been read.
	echo nop > $TR/current_tracer
}

echo "KTAP version 1"
echo "1..1"
mount -t tracefs none $TR 2>/dev/null
[ -e $TR/trace ] || { echo "not ok 1 profile # no tracefs"; exit 1; }
ok=1
for sys in $PROFILE_SYSTEMS; do
	case $sys in
	tmpfs)
		mkdir -p $TMPFS && mount -t tmpfs -o nr_inodes=0 none $TMPFS &&
		mkdir $TMPFS/items && profile tmpfs $TMPFS/items || ok=0
		umount $TMPFS
		;;
	*)
		load "$sys" && profile "$sys" $CFS/cng_bench/items || ok=0
		# shellcheck disable=SC2011 # the names are i<n>
		(cd $CFS/cng_bench/items && ls | xargs rmdir)
		;;
	esac
done
rmmod cng_bench
[ $ok = 1 ] && echo "ok 1 profile" || echo "not ok 1 profile"
