#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The configfs tool on a real USB gadget tree (clients/usb_gadget.sh: an
# ACM gadget bound to dummy_hcd's UDC): tree and --json show it; save;
# restoring onto the same bound gadget writes nothing (UDC rewritten would
# be EBUSY); rm -r removes it, unbinding first, so that libcomposite
# unloads; restore after reloading (UDC must come after the function
# link); a second save is byte-identical and the gadget enumerates again
# with its ids and strings, and data crosses; an unbound gadget without
# its function link gets both back; rm -r again.
set -eu
. ./lib.sh
. ./clients/usb_gadget.sh
. ./cli_lib.sh

before=$(cfs_snapshot)
trap 'usb_cleanup || echo "# cleanup could not undo everything"' EXIT

GP=usb_gadget/$USB_GADGET

reload() {
	x wait_for 20 no_usb_device || return
	x rmmod usb_f_acm u_serial libcomposite || return
	x modprobe libcomposite || return
	x modprobe usb_f_acm
}

same_again() {	# same_again N: save as .N, identical to .1
	cli_save /tmp/usb.$1 usb_gadget &&
	cli_same_saves /tmp/usb.1 /tmp/usb.$1
}

unbind_unlink() {
	usb_unbind && cfg rm $GP/configs/c.1/acm.usb0
}

restore_and_check() {
	cfg restore -v /tmp/usb.1 && same_again 3 && usb_verify_works
}

ktap_plan 18
critical setup_loads_modules usb_setup
empty=$(cli_snap usb_gadget)
critical tree_builds usb_build_tree
critical works_as_built usb_verify_works
check tree_shows_values_and_links cli_tree_shows usb_gadget \
	"idVendor = 0x$USB_VID" "UDC = $USB_UDC" \
	"acm.usb0 -> $GP/functions/acm.usb0"
check json_lists_the_link cli_json_has usb_gadget \
	"\"path\":\"$GP/configs/c.1/acm.usb0\",\"type\":\"link\""
critical save cli_save /tmp/usb.1 usb_gadget
check restore_onto_matching_tree_writes_nothing cli_no_writes /tmp/usb.1
critical rm_r_removes_the_tree cli_rm_gone usb_gadget "$empty"
critical libcomposite_unloads_and_reloads reload
critical restore_succeeds cfg restore -v /tmp/usb.1
check second_save_is_identical same_again 2
check enumerates_again_and_data_crosses usb_verify_works
critical unbound_and_unlinked unbind_unlink
check diff_shows_what_is_missing cli_diff_shows /tmp/usb.1 \
	"+link $GP/configs/c.1/acm.usb0 $GP/functions/acm.usb0" \
	"+set $GP/UDC $USB_UDC"
check partial_restore_adds_the_rest restore_and_check
check rm_r_again cli_rm_gone usb_gadget "$empty"
check modules_unload usb_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
