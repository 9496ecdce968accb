#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# nvmet end to end: a subsystem with one namespace on a file-backed loop
# device, exported on a TCP port on 127.0.0.1 to one allowed host; the
# kernel's NVMe/TCP host connects over loopback through /dev/nvme-fabrics,
# data written to /dev/nvmeXn1 reads back from it and from the backing
# file; disconnect, teardown in order, modules unload.
#
# The tree (see clients/nvmet.sh):
#
#   nvmet/
#   |-- hosts/nqn...:host1/
#   |-- subsystems/nqn...:subsys1/
#   |   |-- attr_allow_any_host = 0
#   |   |-- allowed_hosts/nqn...:host1 -> ../../../hosts/nqn...:host1
#   |   `-- namespaces/1/ {device_path = /dev/loopN, enable = 1}
#   `-- ports/1/ {addr_trtype = tcp, addr_adrfam = ipv4,
#                 addr_traddr = 127.0.0.1, addr_trsvcid = 4420}
#       `-- subsystems/nqn...:subsys1 -> ../../../subsystems/nqn...:subsys1
set -eu
. ./conf_lib.sh
. ./diff_lib.sh
. ./clients/nvmet.sh

# docs/differences.md row 21: what nvmet printed while refusing a value
# comes back to the user in the record. Port 2 and namespace 2 are made for
# it and removed.
nvmet_reasons() {
	nr_ns=$N/subsystems/$NVMET_NQN/namespaces/2
	mkdir $N/ports/2 $nr_ns || return 1
	nr_ok=0
	refused_with_log $N/ports/2/addr_adrfam bogus \
		"nvmet: Invalid value 'bogus$" &&
	refused_with_log $N/ports/2/addr_trtype bogus \
		"nvmet: Invalid value 'bogus$" &&
	put $nr_ns/device_path /nonexistent &&
	refused_with_log $nr_ns/enable 1 "nvmet: failed to open .*/nonexistent" ||
		nr_ok=1
	rmdir $N/ports/2 $nr_ns && return $nr_ok
}

nvmet_no_reasons() {
	mkdir $N/ports/2 &&
	no_record $N/ports/2/addr_adrfam bogus &&
	rmdir $N/ports/2
}

before=$(cfs_snapshot)
trap 'nvmet_cleanup || echo "# cleanup could not undo everything"' EXIT

ktap_plan 14
critical setup_loads_modules_and_loop_device nvmet_setup
critical tree_builds nvmet_build_tree
check port_address_is_read_only_while_linked_eacces \
	fails_with "Permission denied" put $N/ports/1/addr_trsvcid 4421
check linked_subsystem_rmdir_is_ebusy \
	fails_with "busy" rmdir $N/subsystems/$NVMET_NQN
check port_with_link_rmdir_is_enotempty \
	fails_with "not empty" rmdir $N/ports/1
check host_not_allowed_is_refused \
	fails_with "connect:" client_nvmf \
	"$(nvmet_opts nqn.2024-01.org.configfs-ng:intruder)"
differs refused_values_come_back_with_nvmets_reason \
	"row 21, getxattr is EOPNOTSUPP" nvmet_reasons nvmet_no_reasons
critical allowed_host_connects_and_namespace_appears nvmet_connect
check namespace_size_is_backing_size \
	test "$(cat /sys/block/nvme${NVMET_INST}n1/size)" -eq \
	$((NVMET_SIZE_MB * 2048))
check data_round_trips_host_target_file nvmet_io
check disconnect_removes_controller nvmet_disconnect
check teardown_in_order nvmet_teardown
check modules_unload nvmet_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
