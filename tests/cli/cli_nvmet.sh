#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The configfs tool on a real nvmet tree (clients/nvmet.sh: a subsystem
# with a namespace on a loop device, an allowed host, a TCP port on
# 127.0.0.1 linked to the subsystem): tree and --json show it; save;
# restoring onto the same tree writes nothing; rm -r removes it so that
# nvmet unloads; restore after reloading; a second save is byte-identical
# and a host connects over loopback TCP with working I/O; a partial tree
# (port and namespace gone) gets only what is missing; rm -r again.
set -eu
. ./lib.sh
. ./clients/nvmet.sh
. ./cli_lib.sh

before=$(cfs_snapshot)
trap 'nvmet_cleanup || echo "# cleanup could not undo everything"' EXIT

SUB=nvmet/subsystems/$NVMET_NQN

nvmet_reload() {
	x rmmod nvmet_tcp nvmet || return
	x modprobe nvmet_tcp
}

same_again() {	# same_again N: save as .N, identical to .1
	cli_save /tmp/nvmet.$1 nvmet &&
	cli_same_saves /tmp/nvmet.1 /tmp/nvmet.$1
}

remove_part() {
	cfg rm -r nvmet/ports/1 && cfg rm $SUB/namespaces/1
}

restore_and_check() {
	cfg restore -v /tmp/nvmet.1 && same_again 3 && nvmet_verify_works
}

ktap_plan 19
critical setup_loads_modules_and_loop_device nvmet_setup
empty=$(cli_snap nvmet)
critical tree_builds nvmet_build_tree
critical works_as_built nvmet_verify_works
check tree_shows_values_and_links cli_tree_shows nvmet \
	"device_path = $NVMET_LOOP" "addr_trtype = tcp" \
	"$NVMET_NQN -> $SUB" "$NVMET_HOSTNQN -> nvmet/hosts/$NVMET_HOSTNQN"
check json_lists_the_link cli_json_has nvmet \
	"\"path\":\"nvmet/ports/1/subsystems/$NVMET_NQN\",\"type\":\"link\""
critical save cli_save /tmp/nvmet.1 nvmet
check save_has_links_and_values grep -qxF \
	"link nvmet/ports/1/subsystems/$NVMET_NQN $SUB" /tmp/nvmet.1
check restore_onto_matching_tree_writes_nothing cli_no_writes /tmp/nvmet.1
critical rm_r_removes_the_tree cli_rm_gone nvmet "$empty"
critical nvmet_unloads_and_reloads nvmet_reload
critical restore_succeeds cfg restore /tmp/nvmet.1
check second_save_is_identical same_again 2
check host_connects_and_io_works_after_restore nvmet_verify_works
critical port_and_namespace_removed remove_part
check diff_shows_what_is_missing cli_diff_shows /tmp/nvmet.1 \
	"+mkdir nvmet/ports/1" "+link nvmet/ports/1/subsystems/$NVMET_NQN $SUB" \
	"+set $SUB/namespaces/1/enable 1"
check partial_restore_adds_the_rest restore_and_check
check rm_r_again cli_rm_gone nvmet "$empty"
check modules_unload nvmet_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
