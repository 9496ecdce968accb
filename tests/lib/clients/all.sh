# SPDX-License-Identifier: GPL-2.0
# The four client tree files at once, for the tests that run every client
# together (hostile_clients.sh, soak.sh). Source it.
#
# Functions: nvmet_up, lio_up, usb_up, netconsole_up (the client's setup,
# then its tree); clients_cleanup (each client's cleanup, in the reverse
# order of the setups: each unloads what was loaded since its own began).
. "${CLIENTS_DIR:-/tests/clients}/nvmet.sh"
. "${CLIENTS_DIR:-/tests/clients}/lio.sh"
. "${CLIENTS_DIR:-/tests/clients}/usb_gadget.sh"
. "${CLIENTS_DIR:-/tests/clients}/netconsole.sh"

nvmet_up() { nvmet_setup && nvmet_build_tree; }
lio_up() { lio_setup && lio_build_tree; }
usb_up() { usb_setup && usb_build_tree; }
netconsole_up() { netconsole_setup && netconsole_build_tree; }

clients_cleanup() {
	cl_rc=0
	netconsole_cleanup || cl_rc=1
	usb_cleanup || cl_rc=1
	lio_cleanup || cl_rc=1
	nvmet_cleanup || cl_rc=1
	return $cl_rc
}
