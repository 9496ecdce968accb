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
. ./lib.sh
. ./clients/usb_gadget.sh

before=$(cfs_snapshot)
trap 'usb_cleanup || echo "# cleanup could not undo everything"' EXIT

ktap_plan 11
critical setup_loads_modules usb_setup
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
