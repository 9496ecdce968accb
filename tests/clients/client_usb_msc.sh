#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# USB mass storage gadget end to end: a gadget made through configfs with
# one mass_storage function whose LUN is a file, bound to dummy_hcd's UDC,
# enumerates on this kernel's USB host side; usb-storage and sd make it a
# disk with the LUN's inquiry string; 64 KiB written to the disk land in
# the file, and 64 KiB written to the file read back through the disk;
# the function's rules hold while the medium is loaded (ro is EBUSY) and
# configfs' on the live gadget; unbinding removes the disk; teardown;
# modules unload.
#
#   usb_gadget/cngms/ {idVendor 0x1d6b, idProduct 0x0105, UDC}
#   |-- strings/0x409/ {manufacturer, product, serialnumber}
#   |-- functions/mass_storage.usb0/
#   |   `-- lun.0/ {file = /tmp/msc.img, inquiry_string}   (default group)
#   `-- configs/c.1/ {MaxPower}
#       `-- mass_storage.usb0 -> functions/mass_storage.usb0
set -eu
. ./conf_lib.sh
. ./clients/common.sh

G=$CFS/usb_gadget/cngms
F=$G/functions/mass_storage.usb0
IMG=/tmp/msc.img
IMG_KB=4096
UDC=dummy_udc.0
# vendor (8), product (16), revision (4), as SCSI INQUIRY has them
INQUIRY="CNG     cng msc gadget  0001"
MSC_SD=

msc_setup() {
	MSC_MODS_BEFORE=$(modules_loaded)
	x modprobe dummy_hcd || return
	x modprobe libcomposite || return
	x modprobe usb_f_mass_storage || return
	x modprobe usb-storage || return
	x modprobe sd_mod || return
	x wait_for 10 test -e /sys/class/udc/$UDC || return
	x dd if=/dev/zero of=$IMG bs=1024 count=$IMG_KB 2>/dev/null
}

msc_build_tree() {
	x mkdir $G || return
	x put $G/idVendor 0x1d6b || return
	x put $G/idProduct 0x0105 || return
	x mkdir $G/strings/0x409 || return
	x put $G/strings/0x409/manufacturer configfs-ng || return
	x put $G/strings/0x409/product "cng msc gadget" || return
	x put $G/strings/0x409/serialnumber CNG0002 || return
	x mkdir $F || return
	x put $F/lun.0/inquiry_string "$INQUIRY" || return
	x put $F/lun.0/file $IMG || return
	x mkdir $G/configs/c.1 || return
	x put $G/configs/c.1/MaxPower 100 || return
	x ln -s $F $G/configs/c.1/mass_storage.usb0 || return
	x put $G/UDC $UDC || return
}

# msc_find_disk: set MSC_SD to the sd disk with our vendor and model.
msc_find_disk() {
	MSC_SD=
	for d in /sys/block/sd*; do
		[ -e "$d/device/vendor" ] || continue
		# Both padded with blanks, as INQUIRY has them.
		case $(cat "$d/device/vendor"):$(cat "$d/device/model") in
		"CNG "*:"cng msc gadget"*) MSC_SD=${d##*/} ;;
		esac
	done
	[ -n "$MSC_SD" ] && [ -b "/dev/$MSC_SD" ] &&
	[ "$(cat "/sys/block/$MSC_SD/size")" -eq $((IMG_KB * 2)) ]
}

no_disk() { ! msc_find_disk; }


msc_verify_works() {
	x wait_for 30 msc_find_disk || return
	echo "# disk: /dev/$MSC_SD"
	disk_file_cross /dev/$MSC_SD $IMG 16 64 512
}

msc_unbind() {
	x put $G/UDC "" || return
	x wait_for 20 no_disk
}

msc_teardown() {
	x rm $G/configs/c.1/mass_storage.usb0 || return
	x rmdir $G/configs/c.1 || return
	x rmdir $F || return
	x rmdir $G/strings/0x409 || return
	x rmdir $G
}

msc_cleanup() {
	c_rc=0
	if [ -d $G ]; then
		if [ -n "$(cat $G/UDC)" ]; then
			put $G/UDC "" || c_rc=1
		fi
		rm_if $G/configs/c.1/mass_storage.usb0 || c_rc=1
		rmdir_if $G/configs/c.1 || c_rc=1
		rmdir_if $F || c_rc=1
		rmdir_if $G/strings/0x409 || c_rc=1
		rmdir_if $G || c_rc=1
	fi
	rm -f $IMG /tmp/cross.pat
	if [ "${MSC_MODS_BEFORE+set}" = set ]; then
		wait_for 20 no_disk || c_rc=1
		unload_since "$MSC_MODS_BEFORE" || c_rc=1
	fi
	return $c_rc
}

before=$(cfs_snapshot)
trap 'msc_cleanup || echo "# cleanup could not undo everything"' EXIT

ktap_plan 11
critical setup_loads_modules msc_setup
critical tree_builds msc_build_tree
check lun_file_reads_back expect $F/lun.0/file $IMG
critical enumerates_as_a_disk_and_data_crosses msc_verify_works
check ro_while_the_medium_is_loaded_is_ebusy \
	fails_with "busy" put $F/lun.0/ro 1
check linked_function_rmdir_is_ebusy fails_with "busy" rmdir $F
check default_lun_rmdir_is_refused \
	fails_with "not permitted" rmdir $F/lun.0
check unbind_removes_the_disk msc_unbind
check teardown_in_order msc_teardown
check modules_unload msc_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
