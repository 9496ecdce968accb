# SPDX-License-Identifier: GPL-2.0
# USB gadget: a composite gadget with one ACM (serial) function, bound to
# dummy_hcd's UDC, so that this kernel's USB host side enumerates it and
# cdc-acm drives it. Source it.
#
# The tree usb_build_tree makes:
#
#   /sys/kernel/config/usb_gadget/
#   `-- $USB_GADGET/
#       |-- idVendor    0x1d6b         |-- bcdDevice  0x0100
#       |-- idProduct   0x0104         |-- bcdUSB     0x0200
#       |-- strings/0x409/ {manufacturer, product, serialnumber}
#       |-- functions/
#       |   `-- acm.usb0/
#       |-- configs/
#       |   `-- c.1/
#       |       |-- MaxPower  100
#       |       |-- strings/0x409/configuration
#       |       `-- acm.usb0 -> ../../../../usb_gadget/$USB_GADGET/functions/acm.usb0
#       `-- UDC         dummy_udc.0    (written last: EBUSY before the links)
#
# Functions: usb_setup (modules), usb_build_tree, usb_verify_works
# (enumerated with our ids and strings; bytes both ways over the serial
# link), usb_unbind, usb_teardown (the tree, in order), usb_cleanup
# (everything, best effort, idempotent).
. "${CLIENTS_DIR:-/tests/clients}/common.sh"

USB_GADGET=cng
USB_VID=1d6b
USB_PID=0104
USB_MFR=configfs-ng
USB_PRODUCT="cng acm gadget"
USB_SERIAL=CNG0001
USB_UDC=dummy_udc.0
USB_MODULES="cdc_acm usb_f_acm u_serial libcomposite dummy_hcd udc_core usbcore usb_common"
G=$CFS/usb_gadget/$USB_GADGET

usb_setup() {
	USB_MODS_BEFORE=$(modules_loaded)
	x modprobe dummy_hcd || return
	x modprobe libcomposite || return
	x modprobe usb_f_acm || return
	x modprobe cdc_acm || return
	x wait_for 10 test -e /sys/class/udc/$USB_UDC || return
}

usb_build_tree() {
	x mkdir $G || return
	x put $G/idVendor 0x$USB_VID || return
	x put $G/idProduct 0x$USB_PID || return
	x put $G/bcdDevice 0x0100 || return
	x put $G/bcdUSB 0x0200 || return
	x mkdir $G/strings/0x409 || return
	x put $G/strings/0x409/manufacturer "$USB_MFR" || return
	x put $G/strings/0x409/product "$USB_PRODUCT" || return
	x put $G/strings/0x409/serialnumber "$USB_SERIAL" || return
	x mkdir $G/functions/acm.usb0 || return
	x mkdir $G/configs/c.1 || return
	x put $G/configs/c.1/MaxPower 100 || return
	x mkdir $G/configs/c.1/strings/0x409 || return
	x put $G/configs/c.1/strings/0x409/configuration acm || return
	x ln -s $G/functions/acm.usb0 $G/configs/c.1/acm.usb0 || return
	x put $G/UDC $USB_UDC || return
}

# usb_find_device: set USB_DEV to the host-side device with our ids
# (the root hubs are 1d6b:0002 and 1d6b:0003).
usb_find_device() {
	USB_DEV=
	for d in /sys/bus/usb/devices/*; do
		[ -e "$d/idVendor" ] || continue
		[ "$(cat "$d/idVendor")" = $USB_VID ] || continue
		[ "$(cat "$d/idProduct")" = $USB_PID ] || continue
		USB_DEV=$d
	done
	[ -n "$USB_DEV" ]
}

no_usb_device() { ! usb_find_device; }

# usb_tty_acm: the host's tty of our device's ACM interface (ttyACMn).
usb_tty_acm() {
	for t in "$USB_DEV":*/tty/ttyACM*; do
		[ -e "$t" ] && { echo "${t##*/}"; return 0; }
	done
	return 1
}

usb_acm_bound() {
	USB_ACM=$(usb_tty_acm) && [ -c "/dev/$USB_ACM" ]
}

# usb_holds PID FILE: process PID has FILE open.
usb_holds() {
	for uh_fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$uh_fd")" = "$2" ] && return 0
	done
	return 1
}

# usb_transfer FROM TO TEXT: TEXT written to tty FROM is read from tty TO.
# The reader holds TO open first: what arrives at a closed tty is lost
# (under load, a fixed wait was not always enough).
usb_transfer() {
	rm -f /tmp/usb.out
	timeout 15 head -c ${#3} "$2" > /tmp/usb.out &
	ut_pid=$!
	x wait_for 10 usb_holds $ut_pid "$2" || return
	x put_raw "$1" "$3" || return
	ut_rc=0
	wait $ut_pid || ut_rc=$?
	ut_got=$(cat /tmp/usb.out)
	rm -f /tmp/usb.out
	[ "$ut_rc" -eq 0 ] && [ "$ut_got" = "$3" ] && return 0
	echo "# read '$ut_got' (status $ut_rc), expected '$3'"
	return 1
}

usb_verify_works() {
	x wait_for 30 usb_find_device || return
	echo "# device: $USB_DEV"
	x expect "$USB_DEV/manufacturer" "$USB_MFR" || return
	x expect "$USB_DEV/product" "$USB_PRODUCT" || return
	x expect "$USB_DEV/serial" "$USB_SERIAL" || return
	x wait_for 20 usb_acm_bound || return
	gs=/dev/ttyGS$(cat $G/functions/acm.usb0/port_num)
	echo "# host tty /dev/$USB_ACM, gadget tty $gs"
	x stty -F "/dev/$USB_ACM" raw -echo || return
	x stty -F "$gs" raw -echo || return
	x usb_transfer "/dev/$USB_ACM" "$gs" "host-to-gadget-$$" || return
	x usb_transfer "$gs" "/dev/$USB_ACM" "gadget-to-host-$$" || return
}

usb_unbind() {
	x put $G/UDC "" || return
	x wait_for 20 no_usb_device || return
}

usb_teardown() {
	if [ -n "$(cat $G/UDC)" ]; then
		x usb_unbind || return
	fi
	x rm $G/configs/c.1/acm.usb0 || return
	x rmdir $G/configs/c.1/strings/0x409 || return
	x rmdir $G/configs/c.1 || return
	x rmdir $G/functions/acm.usb0 || return
	x rmdir $G/strings/0x409 || return
	x rmdir $G || return
}

usb_cleanup() {
	c_rc=0
	if [ -d $G ]; then
		if [ -n "$(cat $G/UDC)" ]; then
			put $G/UDC "" || c_rc=1
		fi
		rm_if $G/configs/c.1/acm.usb0 || c_rc=1
		rmdir_if $G/configs/c.1/strings/0x409 || c_rc=1
		rmdir_if $G/configs/c.1 || c_rc=1
		rmdir_if $G/functions/acm.usb0 || c_rc=1
		rmdir_if $G/strings/0x409 || c_rc=1
		rmdir_if $G || c_rc=1
	fi
	# shellcheck disable=SC2086
	unload $USB_MODULES || c_rc=1
	if [ "${USB_MODS_BEFORE+set}" = set ]; then
		unload_since "$USB_MODS_BEFORE" || c_rc=1
	fi
	return $c_rc
}
