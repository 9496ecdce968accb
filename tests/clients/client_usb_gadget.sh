#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# USB gadget end to end: a gadget made through configfs with one ACM
# function, bound to dummy_hcd's UDC, enumerates on this kernel's USB host
# side with our vendor and product ids and strings; cdc-acm binds to it and
# bytes cross the serial link both ways; configfs' rules hold on the live
# gadget; unbinding removes the device; teardown; modules unload.
#
# The tree (see clients/usb_gadget.sh):
#
#   usb_gadget/
#   `-- cng/ {idVendor = 0x1d6b, idProduct = 0x0104, bcdDevice = 0x0100,
#       |     bcdUSB = 0x0200, UDC = dummy_udc.0}
#       |-- strings/0x409/ {manufacturer, product, serialnumber}
#       |-- functions/acm.usb0/
#       `-- configs/c.1/ {MaxPower = 100}
#           |-- strings/0x409/ {configuration = acm}
#           `-- acm.usb0 -> ../../../../usb_gadget/cng/functions/acm.usb0
set -eu
. ./conf_lib.sh
. ./diff_lib.sh
. ./clients/usb_gadget.sh

# docs/differences.md row 21: what the gadget core printed while refusing a
# UDC write comes back to the user in the record: a gadget whose only
# configuration has no function fails to bind, and a UDC name that does
# not exist matches none. Gadget cng2 is made for it and removed.
G2=$CFS/usb_gadget/cng2
usb_reasons() {
	mkdir $G2 $G2/configs/c.1 || return 1
	ur_ok=0
	refused_with_log $G2/UDC $USB_UDC \
		"Config c/1 of cng2 needs at least one function\.$" &&
	refused_with_log $G2/UDC no_such_udc \
		"UDC core: cng2: couldn't find an available UDC or it's busy$" || ur_ok=1
	rmdir $G2/configs/c.1 $G2 && return $ur_ok
}

usb_no_reasons() {
	mkdir $G2 &&
	no_record $G2/UDC no_such_udc &&
	rmdir $G2
}

before=$(cfs_snapshot)
trap 'rmdir $G2/configs/c.1 $G2 2>/dev/null || :
      usb_cleanup || echo "# cleanup could not undo everything"' EXIT

ktap_plan 12
critical setup_loads_modules usb_setup
differs refused_udc_comes_back_with_the_gadget_cores_reason \
	"row 21, getxattr is EOPNOTSUPP" usb_reasons usb_no_reasons
critical tree_builds usb_build_tree
check udc_reads_back expect $G/UDC $USB_UDC
check enumerates_with_ids_and_data_crosses usb_verify_works
check udc_write_while_bound_is_ebusy fails_with "busy" put $G/UDC $USB_UDC
check linked_function_rmdir_is_ebusy \
	fails_with "busy" rmdir $G/functions/acm.usb0
check config_with_link_rmdir_is_enotempty \
	fails_with "not empty" rmdir $G/configs/c.1
check unbind_removes_device usb_unbind
check teardown_in_order usb_teardown
check modules_unload usb_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
