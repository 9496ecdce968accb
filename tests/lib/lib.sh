# SPDX-License-Identifier: GPL-2.0
# KTAP helpers for the guest's shell tests. Source it, then:
#   ktap_plan N          print the header and the plan
#   check NAME CMD...    run CMD, print "ok"/"not ok" for case NAME
#   ktap_done            exit 0 when every case passed, 1 otherwise
#   exits_with N CMD...  run CMD: true when it exits with exactly N (a
#                        negative case that any failure would pass proves
#                        little)
#   modules_loaded       the names of the loaded modules, one a line
#   unload_since BEFORE  unload every module that modules_loaded did not
#                        list in BEFORE (dependencies and modules the
#                        kernel loaded on its own, such as crypto, too)
# Commands are echoed (as KTAP diagnostics) before they run, so the last
# lines of a failing test name what failed.
#
# check runs CMD as an "if" condition, where "set -e" does not apply, not
# even inside the functions CMD calls: a helper of several steps chains
# them (STEP || return 1, or &&), or a failing step is ignored and only
# the last one counts.
# shellcheck disable=SC2034 # for the tests that source this file
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

exits_with() {
	ew_want=$1
	shift
	ew_rc=0
	"$@" || ew_rc=$?
	[ "$ew_rc" -eq "$ew_want" ] && return 0
	echo "# exit status $ew_rc, not $ew_want: $*"
	return 1
}

modules_loaded() {
	cut -d' ' -f1 /proc/modules
}

# The kernel's page size in bytes (busybox has no getconf): a text
# attribute's size and the most a show can write are one page, 64K on
# Debian's ppc64el kernels. Read from the auxiliary vector's AT_PAGESZ
# (type 6; pairs of 64-bit words), which every kernel with /proc has:
# /proc/self/smaps needs CONFIG_PROC_PAGE_MONITOR, which the debug and
# in-tree kernels (allnoconfig and a fragment) lack.
page_size() {
	od -An -tu8 -w16 /proc/self/auxv | awk '$1 == 6 { print $2; exit }'
}

# A test must leave loaded only what it found loaded: init fails it
# otherwise. Modules in use go in a later round, once their users have.
unload_since() {
	us_round=0
	while us_new=$(modules_loaded | grep -vxF "$1"); do
		if [ $us_round -ge 8 ]; then
			echo "# still loaded:" $us_new
			return 1
		fi
		for us_m in $us_new; do
			grep -q "^$us_m [0-9]* 0 " /proc/modules || continue
			echo "# + rmmod $us_m"
			rmmod "$us_m" || true
		done
		us_round=$((us_round + 1))
	done
}
