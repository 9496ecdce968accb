# SPDX-License-Identifier: GPL-2.0
# netconsole: a dynamic target on lo sending the kernel log to a UDP
# listener in the guest. Source it.
#
# The tree netconsole_build_tree makes:
#
#   /sys/kernel/config/netconsole/
#   `-- $NETCON_TARGET/
#       |-- dev_name       lo
#       |-- local_ip       127.0.0.1
#       |-- local_port     6665
#       |-- remote_ip      127.0.0.1
#       |-- remote_port    6666
#       `-- enabled        1        (written last: everything else is
#                                    EINVAL while enabled)
#
# Functions: netconsole_setup (module, sysctls lo needs),
# netconsole_build_tree, netconsole_verify_works (a /dev/kmsg line arrives),
# netconsole_teardown (the tree), netconsole_cleanup (everything, best
# effort, idempotent: for traps).
. "${CLIENTS_DIR:-/tests/clients}/common.sh"

NETCON_TARGET=cng1
NETCON_PORT=6666
NC=$CFS/netconsole
NETCON_SYS=/proc/sys/net/ipv4/conf/lo

netconsole_setup() {
	NETCON_MODS_BEFORE=$(modules_loaded)
	NETCON_OLD_RL=$(cat $NETCON_SYS/route_localnet)
	NETCON_OLD_AL=$(cat $NETCON_SYS/accept_local)
	x put $NETCON_SYS/route_localnet 1 || return
	x put $NETCON_SYS/accept_local 1 || return
	x modprobe netconsole || return
}

netconsole_build_tree() {
	t=$NC/$NETCON_TARGET
	x mkdir $t || return
	x put $t/dev_name lo || return
	x put $t/local_ip 127.0.0.1 || return
	x put $t/local_port 6665 || return
	x put $t/remote_ip 127.0.0.1 || return
	x put $t/remote_port $NETCON_PORT || return
	x put $t/enabled 1 || return
}

# netconsole_send TEXT WAIT: log TEXT at KERN_NOTICE through /dev/kmsg
# while a UDP listener waits up to WAIT s for it. Status: 0 it arrived,
# 1 it did not within WAIT s, 2 nothing was tried (the listener did not
# start or failed, or the line could not be logged).
netconsole_send() {
	rm -f /tmp/netcon.ready
	client_udp_listen /tmp/netcon.ready 127.0.0.1 $NETCON_PORT "$1" "$2" \
		> /tmp/netcon.out 2>&1 &
	ns_pid=$!
	ns_rc=0
	if ! x wait_for 10 test -e /tmp/netcon.ready; then
		kill $ns_pid 2>/dev/null
		ns_rc=2
	# With its newline: a /dev/kmsg record without one stays open, and
	# no console (so no netconsole) sees it until the next message.
	elif ! x put /dev/kmsg "<5>$1"; then
		kill $ns_pid 2>/dev/null
		ns_rc=2
	fi
	# Else the listener's own: 0, 1, or 2 on an error of its own.
	ns_wait=0
	wait $ns_pid || ns_wait=$?
	[ $ns_rc -ne 0 ] || ns_rc=$ns_wait
	sed 's/^/# listener: /' /tmp/netcon.out
	rm -f /tmp/netcon.ready /tmp/netcon.out
	[ $ns_rc -le 2 ] || ns_rc=2
	return $ns_rc
}

netconsole_verify_works() {
	x netconsole_send "cng-netconsole probe $$ $(date +%s)" 10
}

netconsole_teardown() {
	x put $NC/$NETCON_TARGET/enabled 0 || return
	x rmdir $NC/$NETCON_TARGET || return
}

netconsole_cleanup() {
	c_rc=0
	[ -d $NC ] && { rmdir_if $NC/$NETCON_TARGET || c_rc=1; }
	unload netconsole || c_rc=1
	if [ "${NETCON_MODS_BEFORE+set}" = set ]; then
		unload_since "$NETCON_MODS_BEFORE" || c_rc=1
	fi
	[ -n "${NETCON_OLD_RL:-}" ] && put $NETCON_SYS/route_localnet \
		"$NETCON_OLD_RL"
	[ -n "${NETCON_OLD_AL:-}" ] && put $NETCON_SYS/accept_local \
		"$NETCON_OLD_AL"
	return $c_rc
}
