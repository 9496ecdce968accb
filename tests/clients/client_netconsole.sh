#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# netconsole end to end: a dynamic target made through configfs sends a
# line written to /dev/kmsg to a UDP listener on 127.0.0.1; attributes are
# locked while enabled; once disabled nothing more is sent; the target is
# removed and the module unloads.
#
# The tree (see clients/netconsole.sh):
#
#   netconsole/
#   `-- cng1/ {dev_name = lo, local_ip = 127.0.0.1, local_port = 6665,
#              remote_ip = 127.0.0.1, remote_port = 6666, enabled = 1}
set -eu
. ./lib.sh
. ./clients/netconsole.sh

before=$(cfs_snapshot)
trap 'netconsole_cleanup || echo "# cleanup could not undo everything"' EXIT
t=$NC/$NETCON_TARGET

ktap_plan 12
critical setup_loads_module netconsole_setup
critical tree_builds netconsole_build_tree
check enabled_reads_1 expect $t/enabled 1
check local_ip_reads_back expect $t/local_ip 127.0.0.1
check attribute_write_while_enabled_is_einval \
	fails_with "Invalid argument" put $t/remote_port 7777
check enabling_again_is_einval fails_with "Invalid argument" put $t/enabled 1
check kmsg_line_arrives_over_udp netconsole_verify_works
check disable_works put $t/enabled 0
check nothing_arrives_once_disabled \
	exits_with 1 netconsole_send "cng-netconsole after-disable $$" 3
check disabled_target_rmdir_works x rmdir $t
check module_unloads sh -c 'rmmod netconsole && ! grep -q "^netconsole " /proc/modules'
check tree_left_as_found tree_as_found "$before"
ktap_done
