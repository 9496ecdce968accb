# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the conformance (conf_*) and better_* shell tests, on
# top of lib.sh. Source it after "set -eu". The client module is cng_test;
# see tests/modules/cng_test.c for the tree it serves.
#
#   run CMD...             echo CMD as a diagnostic, then run it
#   sys_is WANT OP ARGS... conf_sys OP ARGS... prints WANT (OK, EPERM...)
#   events_are LINE...     the event log holds exactly these lines
#   clear_events           empty the event log (a failure ends the test)
#   ctl CMD...             write one command to cng_test's ctl
#   cng_load / cng_unload  insmod / rmmod the client (load: fails if it is
#                          already loaded; unload: rmmod ok)
#   on_stock               true when the guest runs the kernel's configfs
#   skip_differs NAME WHAT on stock: "ok N NAME # SKIP expected to differ
#                          on stock: WHAT"
#   drop_caches            evict dentries and inodes (a failure ends the
#                          test)
#
# clear_events and drop_caches prepare the case that follows, which would
# prove nothing without them; their callers (many, as a first step of a
# helper run by check) ignore their status, so they end the test
# themselves.
. ./lib.sh

T=$CFS/cng_test
CNG_KO=/lib/modules/cng/cng_test.ko

run() {
	echo "# + $*"
	"$@"
}

sys_is() {
	sys_want=$1
	shift
	sys_got=$(conf_sys "$@")
	if [ "$sys_got" != "$sys_want" ]; then
		echo "# conf_sys $*: got '$sys_got', want '$sys_want'"
		return 1
	fi
}

events_are() {
	ev_want=$(printf '%s\n' "$@")
	ev_got=$(cat "$T/events") || return 1
	if [ "$ev_got" != "$ev_want" ]; then
		echo "# event log differs; want:"
		printf '%s\n' "$ev_want" | sed 's/^/#   /'
		echo "# got:"
		printf '%s\n' "$ev_got" | sed 's/^/#   /'
		return 1
	fi
}

# The log holds no callback on an item after its parent dropped it.
no_late_events() {
	! grep -q '^late ' "$T/events"
}

ctl() {
	echo "# + echo '$*' > ctl"
	echo "$*" > "$T/ctl"
}

# wait_for CMD...: polls CMD for up to 20 s.
wait_for() {
	wf_i=0
	until "$@"; do
		wf_i=$((wf_i + 1))
		[ $wf_i -lt 200 ] || { echo "# timed out: $*"; return 1; }
		sleep 0.1
	done
}

# gate_waiting N: N callbacks are held at cng_test's gate.
gate_waiting() {
	[ "$(cat "$T/gate")" = "waiting $1" ]
}

# in_d_state PID: PID sleeps uninterruptibly (a lock, a drain; killable
# or not).
in_d_state() {
	[ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = D ]
}

# bail_out WHAT: end the test, in the middle of a case.
bail_out() {
	echo "Bail out! $*"
	exit 1
}

clear_events() {
	echo clear > "$T/events" || bail_out "cannot clear the event log"
}

# A cng_test already loaded is an error: init unloads what a test leaves
# loaded (and fails that test), so this one left it there itself.
cng_load() {
	if cng_loaded; then
		echo "# cng_test is already loaded"
		return 1
	fi
	run insmod "$CNG_KO"
}

cng_unload() {
	run rmmod cng_test
}

cng_loaded() {
	grep -q '^cng_test ' /proc/modules
}

on_stock() {
	[ "${CNG_CONFIGFS:-ours}" = stock ]
}

# The case passed on stock too, so stock behaves as we want here.
skip_differs() {
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1 # SKIP expected to differ on stock: $2"
}

# Reads the number of objects cng_test holds (see its live attribute).
live() {
	cat "$T/live"
}

drop_caches() {
	sync && echo 3 > /proc/sys/vm/drop_caches ||
		bail_out "cannot drop caches"
}

# better NAME STOCK CMD...: a case of ours that stock may not meet. It
# passes when CMD does. On stock, a failing CMD is the expected difference
# and is reported as "# SKIP expected to differ on stock: STOCK".
better() {
	b_name=$1 b_stock=$2
	shift 2
	ktap_n=$((ktap_n + 1))
	echo "# + $*"
	if "$@"; then
		if on_stock; then
			echo "ok $ktap_n $b_name # stock behaves the same"
		else
			echo "ok $ktap_n $b_name"
		fi
	elif on_stock; then
		echo "ok $ktap_n $b_name # SKIP expected to differ on stock: $b_stock"
	else
		echo "not ok $ktap_n $b_name"
		ktap_failed=$((ktap_failed + 1))
	fi
}
