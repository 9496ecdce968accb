#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The configfs tool on a USB HID gadget, whose report descriptor is binary
# (NUL bytes): save keeps it escaped, byte for byte; rm -r
# and restore bring it back identical and the gadget bound to dummy_hcd's
# UDC; a second save is byte-identical; save --portable writes the UDC as
# "udc PATH", which restore binds to the free controller. The tree:
#
#   /sys/kernel/config/usb_gadget/cnghid/
#   |-- idVendor 0x1d6b, idProduct 0x0105
#   |-- functions/hid.usb0/  protocol 1, subclass 1, report_length 8,
#   |                        report_desc (63 bytes: a boot keyboard's)
#   |-- configs/c.1/hid.usb0 -> ../../../../usb_gadget/cnghid/functions/hid.usb0
#   `-- UDC  dummy_udc.0
set -eu
. ./lib.sh
. ./clients/common.sh
. ./cli_lib.sh

# shellcheck disable=SC2034 # read by tree_left_as_found's eval
before=$(cfs_snapshot)
HID=usb_gadget/cnghid
H=$CFS/$HID
UDC=dummy_udc.0
DESC=/tmp/hid.desc
# Each byte as printf(1) octal: the boot keyboard of the kernel's
# Documentation/usb/gadget_hid.rst, with NUL bytes in it.
DESC_OCTAL='\005\001\011\006\241\001\005\007\031\340\051\347\025\000\045\001'\
'\165\001\225\010\201\002\225\001\165\010\201\003\225\005\165\001\005\010'\
'\031\001\051\005\221\002\225\001\165\003\221\003\225\006\165\010\025\000'\
'\045\145\005\007\031\000\051\145\201\000\300'

hid_setup() {
	HID_MODS_BEFORE=$(modules_loaded)
	x modprobe dummy_hcd || return
	x modprobe libcomposite || return
	x modprobe usb_f_hid || return
	x wait_for 10 test -e /sys/class/udc/$UDC || return
	# shellcheck disable=SC2059
	printf "$DESC_OCTAL" > $DESC
}

hid_build() {
	x mkdir $H || return
	x put $H/idVendor 0x1d6b || return
	x put $H/idProduct 0x0105 || return
	x mkdir $H/functions/hid.usb0 || return
	x put $H/functions/hid.usb0/protocol 1 || return
	x put $H/functions/hid.usb0/subclass 1 || return
	x put $H/functions/hid.usb0/report_length 8 || return
	echo "# + cat $DESC > $H/functions/hid.usb0/report_desc"
	cat $DESC > $H/functions/hid.usb0/report_desc || return
	x mkdir $H/configs/c.1 || return
	x ln -s $H/functions/hid.usb0 $H/configs/c.1/hid.usb0 || return
	x put $H/UDC $UDC || return
	x wait_for 10 enumerated
}

# dummy_hcd's host has enumerated the bound gadget: composite set the
# values that enumeration sets (bMaxPacketSize0 0x00 -> 0x40), so that a
# save made now is the one a later save must equal.
enumerated() {
	[ "$(cat $H/bMaxPacketSize0)" != 0x00 ]
}

desc_intact() {
	x cmp $H/functions/hid.usb0/report_desc $DESC
}

bound() {
	x expect $H/UDC $UDC
}

saved_escaped() {
	x grep -qF 'set usb_gadget/cnghid/functions/hid.usb0/report_desc "\x05\x01\t\x06\xa1\x01' \
		/tmp/hid.1 || return
	! grep -q 'not saved' /tmp/hid.1
}

back_and_bound() {
	desc_intact && bound && x wait_for 10 enumerated
}

same_again() {
	cli_save /tmp/hid.2 usb_gadget && cli_same_saves /tmp/hid.1 /tmp/hid.2
}

portable() {
	cfg save --portable -o /tmp/hid.p usb_gadget || return
	x grep -qx "udc $HID/UDC" /tmp/hid.p || return
	! grep -q "$UDC" /tmp/hid.p || return
	cfg rm -r $HID || return
	cfg restore -v /tmp/hid.p || return
	back_and_bound
}

hid_cleanup() {
	c_rc=0
	if [ -d $H ]; then
		if [ -n "$(cat $H/UDC)" ]; then
			put $H/UDC "" || c_rc=1
		fi
		rm_if $H/configs/c.1/hid.usb0 || c_rc=1
		rmdir_if $H/configs/c.1 || c_rc=1
		rmdir_if $H/functions/hid.usb0 || c_rc=1
		rmdir_if $H || c_rc=1
	fi
	rm -f $DESC /tmp/hid.1 /tmp/hid.2 /tmp/hid.p
	if [ "${HID_MODS_BEFORE+set}" = set ]; then
		unload_since "$HID_MODS_BEFORE" || c_rc=1
	fi
	return $c_rc
}
trap 'hid_cleanup || echo "# cleanup could not undo everything"' EXIT

ktap_plan 11
critical setup_loads_modules hid_setup
empty=$(cli_snap usb_gadget)
critical tree_builds hid_build
critical report_desc_as_written desc_intact
critical save cli_save /tmp/hid.1 usb_gadget
check report_desc_saved_escaped_not_dropped saved_escaped
critical rm_r_removes_the_gadget cli_rm_gone usb_gadget "$empty"
critical restore_succeeds cfg restore -v /tmp/hid.1
check report_desc_back_byte_for_byte_and_bound back_and_bound
check second_save_is_identical same_again
check portable_save_binds_to_the_free_udc portable
check tree_left_as_found eval 'hid_cleanup && tree_as_found "$before"'
ktap_done
