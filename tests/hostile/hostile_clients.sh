#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Hostile users against the kernel's own clients (issue 20, part 2): root
# builds the trees of nvmet, LIO (tcm_loop), the USB gadget (dummy_hcd)
# and netconsole, each as its client test does; then uid 1000 tries every
# operation hostile.c knows on every directory, attribute and link under
# /sys/kernel/config (hostile walk). Nothing the modes refuse may succeed,
# each such refusal is EACCES or EPERM, the log stays clean (the runner's
# verdict), the trees' names, modes and owners are as root left them and
# LIO still moves data. (Not nvmet's connect: on the debug kernel it
# trips nvmet-tcp's own lockdep report, tests/harness/expected.list.) Then
# the clients tear down and unload as usual.
set -eu
. ./lib.sh
. ./clients/all.sh

# Names, modes, owners and link targets of the whole tree (no times: a
# read may change atime, and no sizes or values: a client's may move).
modes_snapshot() {
	ls -lnR "$CFS" | awk '{ s = $1 " " $3 " " $4
		for (i = 9; i <= NF; i++) s = s " " $i; print s }'
}

same_modes() {
	sm_now=$(modes_snapshot)
	[ "$sm_now" = "$1" ] && return 0
	echo "# the tree changed:"
	echo "$1" > /tmp/hostile-clients.before
	echo "$sm_now" | diff /tmp/hostile-clients.before - | sed 's/^/#   /'
	return 1
}

before=$(cfs_snapshot)
trap 'clients_cleanup || echo "# cleanup could not undo everything"' EXIT

ktap_plan 13
critical nvmet_tree_builds nvmet_up
critical lio_tree_builds lio_up
critical usb_gadget_tree_builds usb_up
critical netconsole_tree_builds netconsole_up
modes=$(modes_snapshot)
echo "# $(echo "$modes" | wc -l) lines of names and modes"
check user_gets_only_what_modes_allow hostile walk "$CFS"
check tree_unchanged_by_the_user same_modes "$modes"
check lio_still_works lio_verify_works
check nvmet_teardown nvmet_teardown
check lio_teardown lio_teardown
check usb_gadget_teardown usb_teardown
check netconsole_teardown netconsole_teardown
check modules_unload clients_cleanup
check tree_left_as_found tree_as_found "$before"
ktap_done
