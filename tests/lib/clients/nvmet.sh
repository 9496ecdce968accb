# SPDX-License-Identifier: GPL-2.0
# nvmet (NVMe over Fabrics target) over loopback TCP: the tree, a host
# connection through /dev/nvme-fabrics, and the teardown. Source it.
#
# The tree nvmet_build_tree makes (the namespace is a loop device on a file
# in /tmp; only HOSTNQN may connect):
#
#   /sys/kernel/config/nvmet/
#   |-- hosts/
#   |   `-- $NVMET_HOSTNQN/
#   |-- subsystems/
#   |   `-- $NVMET_NQN/
#   |       |-- attr_allow_any_host            0
#   |       |-- allowed_hosts/
#   |       |   `-- $NVMET_HOSTNQN -> ../../../hosts/$NVMET_HOSTNQN
#   |       `-- namespaces/
#   |           `-- 1/
#   |               |-- device_path            /dev/loopN
#   |               `-- enable                 1
#   `-- ports/
#       `-- 1/
#           |-- addr_trtype   tcp      addr_adrfam   ipv4
#           |-- addr_traddr   127.0.0.1  addr_trsvcid 4420
#           `-- subsystems/
#               `-- $NVMET_NQN -> ../../../subsystems/$NVMET_NQN
#
# Functions: nvmet_setup (modules, backing file, loop device),
# nvmet_build_tree, nvmet_verify_works (connect, I/O, disconnect),
# nvmet_teardown (the tree, in order), nvmet_cleanup (everything,
# best effort, idempotent: for traps).
. "${CLIENTS_DIR:-/tests/clients}/common.sh"

NVMET_NQN=nqn.2024-01.org.configfs-ng:subsys1
NVMET_HOSTNQN=nqn.2024-01.org.configfs-ng:host1
NVMET_PORT=4420
NVMET_IMG=/tmp/nvmet.img
NVMET_SIZE_MB=16
# In unload order: 6.12's nvmet uses nvme_core, so the target goes first.
NVMET_MODULES="nvme_tcp nvme_fabrics nvmet_tcp nvmet nvme_core loop"
N=$CFS/nvmet

nvmet_setup() {
	NVMET_MODS_BEFORE=$(modules_loaded)
	x modprobe nvmet_tcp || return
	x modprobe nvme_tcp || return
	x modprobe loop || return
	x dd if=/dev/zero of=$NVMET_IMG bs=1M count=$NVMET_SIZE_MB \
		2>/dev/null || return
	NVMET_LOOP=$(losetup -f) || return
	x losetup "$NVMET_LOOP" $NVMET_IMG || return
	echo "# loop device: $NVMET_LOOP"
}

nvmet_build_tree() {
	: "${NVMET_LOOP:?nvmet_setup first}"
	x mkdir $N/hosts/$NVMET_HOSTNQN || return
	x mkdir $N/subsystems/$NVMET_NQN || return
	x put $N/subsystems/$NVMET_NQN/attr_allow_any_host 0 || return
	x ln -s $N/hosts/$NVMET_HOSTNQN \
		$N/subsystems/$NVMET_NQN/allowed_hosts/$NVMET_HOSTNQN || return
	x mkdir $N/subsystems/$NVMET_NQN/namespaces/1 || return
	x put $N/subsystems/$NVMET_NQN/namespaces/1/device_path \
		"$NVMET_LOOP" || return
	x put $N/subsystems/$NVMET_NQN/namespaces/1/enable 1 || return
	x mkdir $N/ports/1 || return
	# The transport first: linking a port without one is EINVAL.
	x put $N/ports/1/addr_trtype tcp || return
	x put $N/ports/1/addr_adrfam ipv4 || return
	x put $N/ports/1/addr_traddr 127.0.0.1 || return
	x put $N/ports/1/addr_trsvcid $NVMET_PORT || return
	# The link enables the port: nvmet-tcp starts listening here.
	x ln -s $N/subsystems/$NVMET_NQN \
		$N/ports/1/subsystems/$NVMET_NQN || return
}

# A host ID of each host NQN's own: since 6.x nvme-fabrics refuses a second
# host NQN with the default host ID ("found same hostid ... but different
# hostnqn", EINVAL), which the intruder's refused connect has taken.
nvmet_opts() {	# nvmet_opts HOSTNQN
	nv_hostid=$(printf '%s' "$1" | md5sum | cut -c1-32 |
		sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/')
	echo "transport=tcp,traddr=127.0.0.1,trsvcid=$NVMET_PORT,nqn=$NVMET_NQN,hostnqn=$1,hostid=$nv_hostid"
}

nvmet_ns_ready() {
	[ -b "/dev/nvme${NVMET_INST}n1" ] &&
	[ "$(cat "/sys/block/nvme${NVMET_INST}n1/size")" -gt 0 ]
}

# nvmet_connect: connect as the allowed host; sets NVMET_INST.
nvmet_connect() {
	echo "# + client_nvmf $(nvmet_opts $NVMET_HOSTNQN)"
	NVMET_INST=$(client_nvmf "$(nvmet_opts $NVMET_HOSTNQN)") || return
	echo "# controller: nvme$NVMET_INST"
	x wait_for 30 nvmet_ns_ready || return
}

nvmet_disconnect() {
	[ -n "${NVMET_INST:-}" ] || return 0
	[ -e /sys/class/nvme/nvme$NVMET_INST ] || return 0
	x put /sys/class/nvme/nvme$NVMET_INST/delete_controller 1 || return
	x wait_for 20 gone /sys/class/nvme/nvme$NVMET_INST || return
	x wait_for 20 gone /dev/nvme${NVMET_INST}n1 || return
	NVMET_INST=
}

# nvmet_io: write 1 MiB at 4 MiB through the host's namespace, read it
# back through the namespace and from the backing file, then write the
# file behind the target's back and read that through the namespace.
nvmet_io() {
	dev=/dev/nvme${NVMET_INST}n1
	x dd if=/dev/urandom of=/tmp/nvmet.pat bs=4096 count=256 \
		2>/dev/null || return
	x dd if=/tmp/nvmet.pat of="$dev" bs=4096 seek=1024 conv=fsync \
		2>/dev/null || return
	x blockdev --flushbufs "$dev" || return
	x same_data /tmp/nvmet.pat "$dev" 1048576 0 1024 || return
	x blockdev --flushbufs "$NVMET_LOOP" || return
	x same_data /tmp/nvmet.pat $NVMET_IMG 1048576 0 1024 || return
	x dd if=/dev/urandom of=/tmp/nvmet.pat bs=4096 count=256 \
		2>/dev/null || return
	x dd if=/tmp/nvmet.pat of=$NVMET_IMG bs=4096 seek=2048 \
		conv=notrunc,fsync 2>/dev/null || return
	x blockdev --flushbufs "$NVMET_LOOP" || return
	x blockdev --flushbufs "$dev" || return
	x same_data /tmp/nvmet.pat "$dev" 1048576 0 2048 || return
	rm -f /tmp/nvmet.pat
}

nvmet_verify_works() {
	x nvmet_connect || return
	x nvmet_io || return
	x nvmet_disconnect || return
}

nvmet_teardown() {
	x rm $N/ports/1/subsystems/$NVMET_NQN || return
	x rmdir $N/ports/1 || return
	x put $N/subsystems/$NVMET_NQN/namespaces/1/enable 0 || return
	x rmdir $N/subsystems/$NVMET_NQN/namespaces/1 || return
	x rm $N/subsystems/$NVMET_NQN/allowed_hosts/$NVMET_HOSTNQN || return
	x rmdir $N/subsystems/$NVMET_NQN || return
	x rmdir $N/hosts/$NVMET_HOSTNQN || return
}

nvmet_cleanup() {
	c_rc=0
	nvmet_disconnect || c_rc=1
	if [ -d $N ]; then
		rm_if $N/ports/1/subsystems/$NVMET_NQN || c_rc=1
		rmdir_if $N/ports/1 || c_rc=1
		rmdir_if $N/subsystems/$NVMET_NQN/namespaces/1 || c_rc=1
		rm_if $N/subsystems/$NVMET_NQN/allowed_hosts/$NVMET_HOSTNQN ||
			c_rc=1
		rmdir_if $N/subsystems/$NVMET_NQN || c_rc=1
		rmdir_if $N/hosts/$NVMET_HOSTNQN || c_rc=1
	fi
	if [ -n "${NVMET_LOOP:-}" ] && losetup "$NVMET_LOOP" >/dev/null 2>&1
	then
		x losetup -d "$NVMET_LOOP" || c_rc=1
	fi
	rm -f $NVMET_IMG /tmp/nvmet.pat
	# shellcheck disable=SC2086
	unload $NVMET_MODULES || c_rc=1
	if [ "${NVMET_MODS_BEFORE+set}" = set ]; then
		unload_since "$NVMET_MODS_BEFORE" || c_rc=1
	fi
	return $c_rc
}
