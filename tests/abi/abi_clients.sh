#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own configfs clients load against the configfs module that
# is loaded (ours or stock) with no symbol version complaint and no taint
# beyond an out-of-tree (O) or unsigned (E) module, bind to it, and unload.
# Builds no tree. A client this kernel does not build (Debian's ppc64el
# kernels have no USB gadget) is named and left out: the guest's
# /tests/kmods-absent lists it (tests/harness/mkinitramfs.sh).
. ./lib.sh
set -u

# present NAME...: the names this kernel has as modules.
present() {
	for m in "$@"; do
		if grep -qx "$m" /tests/kmods-absent 2>/dev/null; then
			echo "# $m: not a module of this kernel" >&2
		else
			echo "$m"
		fi
	done
}

clients=$(present nvmet nvmet_tcp target_core_mod tcm_loop libcomposite \
	usb_f_acm netconsole null_blk dlm ocfs2_nodemanager)
# The clients that hold configfs themselves (not through another).
holders=$(present nvmet target_core_mod libcomposite netconsole null_blk \
	dlm ocfs2_nodemanager 2>/dev/null)
TAINT_OE=$((4096 | 8192))

# Also what came with them: dependencies, crypto the kernel loaded.
cleanup() {
	for m in ocfs2_nodemanager dlm null_blk netconsole usb_f_acm \
		 libcomposite tcm_loop target_core_mod nvmet_tcp nvmet; do
		rmmod "$m" 2>/dev/null
	done
	unload_since "$mods_before"
}
mods_before=$(modules_loaded)
trap cleanup EXIT

ktap_plan 6

dmesg -c > /dev/null
loaded=0
for m in $clients; do
	echo "# + modprobe $m"
	modprobe "$m" && loaded=$((loaded + 1))
done
check "every_client_module_loads" test "$loaded" -eq "$(echo "$clients" | wc -l)"
check "no_symbol_version_complaint" \
	sh -c '! dmesg | grep -E "disagrees about version|Unknown symbol|no symbol version"'
taint=$(cat /proc/sys/kernel/tainted)
echo "# tainted=$taint"
check "no_taint_beyond_out_of_tree_or_unsigned" \
	test $((taint & ~TAINT_OE)) -eq 0
check "clients_hold_the_loaded_configfs" sh -c \
	'for m in $0; do
		[ -e /sys/module/configfs/holders/$m ] || { echo "# $m does not hold configfs"; exit 1; }
	done' "$(echo $holders)"
# Ours is out of tree (O); stock is the kernel's own and carries no taint.
cfs_taint=$(cat /sys/module/configfs/taint)
echo "# configfs taint flags: '$cfs_taint'"
if [ "$CNG_CONFIGFS" = ours ]; then
	check "loaded_configfs_is_ours" test "${cfs_taint#*O}" != "$cfs_taint"
else
	check "loaded_configfs_is_stock" test -z "$cfs_taint"
fi
cleanup
trap - EXIT
check "every_client_module_unloads" test "$(modules_loaded)" = "$mods_before"
ktap_done
