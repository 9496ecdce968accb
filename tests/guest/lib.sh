# SPDX-License-Identifier: GPL-2.0
# KTAP helpers for the guest's shell tests. Source it, then:
#   ktap_plan N          print the header and the plan
#   check NAME CMD...    run CMD, print "ok"/"not ok" for case NAME
#   ktap_done            exit 0 when every case passed, 1 otherwise
# Commands are echoed (as KTAP diagnostics) before they run, so the last
# lines of a failing test name what failed.
CFS=/sys/kernel/config
ktap_n=0
ktap_failed=0

ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}

check() {
	ktap_name=$1
	shift
	ktap_n=$((ktap_n + 1))
	echo "# + $*"
	if "$@"; then
		echo "ok $ktap_n $ktap_name"
	else
		echo "not ok $ktap_n $ktap_name"
		ktap_failed=$((ktap_failed + 1))
	fi
}

ktap_done() {
	[ "$ktap_failed" -eq 0 ] || exit 1
	exit 0
}
