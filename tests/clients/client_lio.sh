#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# LIO end to end: a fileio backstore and a tcm_loop target with one LUN,
# made through configfs, give this kernel a SCSI disk (vendor LIO-ORG) of
# the backstore's size; data written to the disk lands in the backing file
# and data written to the file reads back through the disk; configfs'
# removal rules hold on the live tree; teardown in order; modules unload.
#
# The tree (see clients/lio.sh):
#
#   target/
#   |-- core/fileio_0/cng_disk/ {control = fd_dev_name=...,fd_dev_size=...,
#   |                            enable = 1}
#   `-- loopback/naa.5001405c0f1e0001/tpgt_1/
#       |-- nexus = naa.5001405c0f1e0002
#       `-- lun/lun_0/cng_port -> ../../../../../core/fileio_0/cng_disk
set -eu
. ./lib.sh
. ./clients/lio.sh

before=$(cfs_snapshot)
trap 'lio_cleanup || echo "# cleanup could not undo everything"' EXIT

no_disk() { ! lio_find_disk; }

ktap_plan 13
critical setup_loads_modules lio_setup
critical tree_builds lio_build_tree
check backstore_enable_reads_1 expect $LIO_DEV/enable 1
check control_is_write_only fails_with "Permission denied" cat $LIO_DEV/control
critical disk_appears_and_data_round_trips lio_verify_works
check disk_size_is_backstore_size \
	test "$(cat /sys/block/$LIO_SD/size)" -eq $((LIO_SIZE_MB * 2048))
check linked_backstore_rmdir_is_ebusy fails_with "busy" rmdir $LIO_DEV
check lun_with_link_rmdir_is_enotempty \
	fails_with "not empty" rmdir $LIO_TPG/lun/lun_0
check tpg_with_lun_rmdir_is_enotempty fails_with "not empty" rmdir $LIO_TPG
check teardown_in_order lio_teardown
check disk_goes_with_the_lun wait_for 10 no_disk
check modules_unload lio_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
