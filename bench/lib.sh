# SPDX-License-Identifier: GPL-2.0
#
# What the benchmark's guest scripts share, sourced from
# /tests/bench/lib.sh: where the modules are, and swapping which configfs
# is mounted.

CFS=/sys/kernel/config
STOCK=/lib/modules/$(uname -r)/kernel/fs/configfs/configfs.ko
OURS=/lib/modules/cng/configfs.ko
CLIENT=/lib/modules/cng/cng_bench.ko

say() { echo "# $*"; }

# unload: no benchmark client, no configfs mounted or loaded.
unload() {
	rmmod cng_bench 2>/dev/null
	if grep -q " $CFS configfs " /proc/mounts; then
		umount "$CFS" || return 1
	fi
	if grep -q '^configfs ' /proc/modules; then
		rmmod configfs || return 1
	fi
	return 0
}

# load SYSTEM [PARAM=VALUE...]: SYSTEM's configfs (stock or ours) mounted,
# and the benchmark client loaded with the PARAMs.
load() {
	local sys="$1"

	shift
	unload || return 1
	case $sys in
	stock) insmod "$STOCK" || return 1 ;;
	ours) [ -f "$OURS" ] || { say "no $OURS"; return 1; }
		insmod "$OURS" || return 1 ;;
	esac
	mount -t configfs none "$CFS" && insmod "$CLIENT" "$@"
}

# names FIRST COUNT: i<FIRST> .. i<FIRST+COUNT-1>, one a line.
names() {
	seq "$1" $(($1 + $2 - 1)) | sed 's/^/i/'
}
