#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The configfs tool on a real LIO tree (clients/lio.sh: a fileio backstore
# exported through tcm_loop as a SCSI disk): tree and --json show it; save
# rebuilds the write-only `control` from the backstore's info, with no hand
# edit; restoring onto the same tree writes nothing; rm -r removes it
# so that the target modules unload; restore after reloading; a second
# save is byte-identical (a unit serial, which reads back labelled, too)
# and the disk reappears and carries data, with the non-default
# attrib/block_size and queue_depth it was built with (enable resets both
# to the backing file's: restore writes them again before the LUN link);
# a tree without its fabric gets it back; rm -r again.
set -eu
. ./lib.sh
. ./clients/lio.sh
. ./cli_lib.sh

before=$(cfs_snapshot)
trap 'lio_cleanup || echo "# cleanup could not undo everything"' EXIT

# Set after enable, as targetcli does (clients/lio.sh).
# shellcheck disable=SC2034 # read by lio_build in clients/lio.sh
LIO_ATTRIBS="block_size=4096 queue_depth=64"

CTL=target/core/fileio_0/cng_disk/control
CTL_VALUE="fd_dev_name=$LIO_IMG,fd_dev_size=$((LIO_SIZE_MB << 20))"

SERIAL="T10 VPD Unit Serial Number: 5001405c-0f1e-cng0-0001-000000000001"
VPD=$LIO_DEV/wwn/vpd_unit_serial

no_disk() { ! lio_find_disk; }

# The tree was built with no unit serial; the file now gives one, as a
# save of a backstore with a serial would (the kernel shows it labelled).
file_gets_a_serial() {
	x grep -q '^set target/core/fileio_0/cng_disk/wwn/vpd_unit_serial ' \
		/tmp/lio.1 || return
	x sed -i "s|^\(set [^ ]*/vpd_unit_serial\) .*|\1 \"$SERIAL\"|" \
		/tmp/lio.1
}

# The write-only control, rebuilt from info as rtslib does: no hand edit.
save_rebuilds_control() {
	cli_save /tmp/lio.1 target || return
	x grep -q "^# write-only, rebuilt from info: $CTL\$" /tmp/lio.1 &&
	x grep -qxF "set $CTL $CTL_VALUE" /tmp/lio.1
}

reload() {
	x wait_for 10 no_disk || return
	x rmmod tcm_loop target_core_file target_core_mod || return
	x modprobe target_core_file || return
	x modprobe tcm_loop
}

same_again() {	# same_again N: save as .N, the same as .1
	cfg save -o /tmp/lio.$1 target &&
	cli_same_saves /tmp/lio.1 /tmp/lio.$1
}

restore_and_check() {
	cfg restore -v /tmp/lio.1 && same_again 3 && lio_verify_works
}

attribs_survive() {
	x expect $LIO_DEV/attrib/block_size 4096 || return
	x expect $LIO_DEV/attrib/queue_depth 64
}

ktap_plan 21
critical setup_loads_modules lio_setup
empty=$(cli_snap target)
critical tree_builds lio_build_tree
critical works_as_built lio_verify_works
check tree_shows_values_and_links cli_tree_shows target \
	"control [write-only]" "enable = 1" \
	"cng_port -> target/core/fileio_0/cng_disk"
check json_lists_the_link cli_json_has target \
	"\"path\":\"target/loopback/$LIO_WWN/tpgt_1/lun/lun_0/cng_port\",\"type\":\"link\""
critical save_rebuilds_control_from_info save_rebuilds_control
check restore_onto_matching_tree_writes_nothing cli_no_writes /tmp/lio.1
critical rm_r_removes_the_tree cli_rm_gone target "$empty"
critical target_modules_unload_and_reload reload
critical file_gets_a_serial file_gets_a_serial
critical restore_succeeds cfg restore -v /tmp/lio.1
check second_save_is_identical same_again 2
check serial_stored_without_its_label expect $VPD "$SERIAL"
check block_size_and_queue_depth_survive attribs_survive
check disk_reappears_with_data lio_verify_works
critical fabric_removed eval 'cfg rm -r target/loopback && wait_for 10 no_disk'
check diff_shows_what_is_missing cli_diff_shows /tmp/lio.1 \
	"+mkdir target/loopback/$LIO_WWN/tpgt_1/lun/lun_0" \
	"+link target/loopback/$LIO_WWN/tpgt_1/lun/lun_0/cng_port target/core/fileio_0/cng_disk"
check partial_restore_adds_the_rest restore_and_check
check rm_r_again cli_rm_gone target "$empty"
check modules_unload lio_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
