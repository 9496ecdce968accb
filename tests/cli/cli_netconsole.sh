#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The configfs tool on a real netconsole tree (clients/netconsole.sh: one
# enabled target on lo): tree and --json show it; save; restoring onto the
# same tree writes nothing (rewriting `enabled` would be EINVAL); rm -r
# removes the enabled target so that netconsole unloads; restore after
# reloading (enabled must come after the addresses); a second save is
# byte-identical and a message arrives; a fresh target with only its
# device set gets the rest; rm -r again.
set -eu
. ./lib.sh
. ./clients/netconsole.sh
. ./cli_lib.sh

before=$(cfs_snapshot)
trap 'netconsole_cleanup || echo "# cleanup could not undo everything"' EXIT

TGT=netconsole/$NETCON_TARGET

reload() {
	x rmmod netconsole || return
	x modprobe netconsole
}

same_again() {	# same_again N: save as .N, identical to .1
	cli_save /tmp/netcon.$1 netconsole &&
	cli_same_saves /tmp/netcon.1 /tmp/netcon.$1
}

fresh_target() {
	cfg rm -r $TGT || return
	x mkdir $NC/$NETCON_TARGET || return
	x put $NC/$NETCON_TARGET/dev_name lo
}

restore_and_check() {
	cfg restore -v /tmp/netcon.1 && same_again 3 && netconsole_verify_works
}

ktap_plan 19
critical setup_loads_module netconsole_setup
empty=$(cli_snap netconsole)
critical tree_builds netconsole_build_tree
critical works_as_built netconsole_verify_works
check tree_shows_values cli_tree_shows netconsole \
	"dev_name = lo" "enabled = 1" "remote_port = $NETCON_PORT"
check json_lists_enabled cli_json_has netconsole \
	"\"path\":\"$TGT/enabled\",\"type\":\"attr\""
critical save cli_save /tmp/netcon.1 netconsole
check save_has_the_values grep -qxF "set $TGT/remote_ip 127.0.0.1" \
	/tmp/netcon.1
check restore_onto_matching_tree_writes_nothing cli_no_writes /tmp/netcon.1
critical rm_r_removes_the_tree cli_rm_gone netconsole "$empty"
critical netconsole_unloads_and_reloads reload
critical restore_succeeds cfg restore -v /tmp/netcon.1
check second_save_is_identical same_again 2
check message_arrives_after_restore netconsole_verify_works
critical target_remade_with_only_dev_name fresh_target
check diff_shows_what_is_missing cli_diff_shows /tmp/netcon.1 \
	"+set $TGT/enabled 1" "+set $TGT/remote_ip 127.0.0.1"
check partial_restore_adds_the_rest restore_and_check
check rm_r_again cli_rm_gone netconsole "$empty"
check modules_unload netconsole_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
