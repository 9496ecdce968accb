#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The runner's own test: run tests/qemu/selftest.list, whose tests fail,
# hang, WARN, Oops, log other reports, flood the kernel log and report late
# on purpose between passing tests, and check that each failure mode gives
# a failing verdict with the evidence shown while the suite goes on. TAP on
# stdout.
#
# Usage: runner-selftest.sh WHICH OUTDIR
set -u
which=$1 out=$2
: "${TOP:?}"
mkdir -p "$out"
"$TOP/scripts/guest-suite.sh" "$which" "$TOP/tests/qemu/selftest.list" \
	"$out" > "$out/tap" 2>&1
status=$?
sed 's/^/    # /' "$out/tap"

n=0
expect() {	# expect NAME PATTERN: PATTERN is a line of the runner's output
	n=$((n + 1))
	if grep -Eq -- "$2" "$out/tap"; then
		echo "ok $n runner_$1"
	else
		echo "not ok $n runner_$1 # no line matches: $2"
	fi
}

expect fails_a_failing_test '^not ok 1 [^ ]*runner/fail.sh # exit status 1$'
expect goes_on_after_a_failure '^ok 2 [^ ]*runner/pass.sh'
expect times_out_a_hung_test '^not ok 3 [^ ]*runner/hang.sh # timed out'
expect goes_on_after_a_hang '^ok 4 [^ ]*runner/pass.sh'
expect fails_a_test_whose_kernel_log_warns \
	'^not ok 5 [^ ]*runner/warn.sh # kernel log reports a bug'
expect shows_the_warning_in_the_log \
	'# >>> WARNING: .*cng_fault'
expect goes_on_after_a_warning '^ok 6 [^ ]*runner/pass.sh'
expect fails_a_test_that_kills_the_guest \
	'^not ok 7 [^ ]*runner/oops.sh # guest died'
expect shows_the_console_of_a_dead_guest \
	'# .*(BUG: kernel NULL pointer dereference|Oops)'
expect boots_again_after_a_dead_guest '^ok 8 [^ ]*runner/pass.sh'
expect fails_a_test_whose_log_has_other_reports \
	'^not ok 9 [^ ]*runner/markers.sh # kernel log reports a bug'
expect takes_busy_inodes_at_unmount_for_a_report \
	'# >>> VFS: Busy inodes after unmount'
expect takes_kmemleak_without_memory_for_a_report \
	'# >>> kmemleak: Cannot allocate a kmemleak_object'
expect takes_kmemleak_turned_off_for_a_report \
	'# >>> kmemleak: Kernel memory leak detector disabled'
expect goes_on_after_other_reports '^ok 10 [^ ]*runner/pass.sh'
expect fails_a_test_whose_log_records_were_lost \
	'^not ok 11 [^ ]*runner/flood.sh # kernel log lost [0-9]+ records'
expect goes_on_after_lost_records '^ok 12 [^ ]*runner/pass.sh'
expect skips_with_the_reason_of_the_skip_plan \
	'^ok 13 [^ ]*runner/skip.sh # SKIP runner self-test: skips on purpose$'
expect fails_exit_status_4_without_a_skip_plan \
	'^not ok 14 [^ ]*runner/exit4.sh # exit status 4 without a "1..0 # SKIP" plan$'
expect fails_a_test_with_fewer_results_than_planned \
	'^not ok 15 [^ ]*runner/short.sh # plan 1..2 but 1 results$'
expect goes_on_after_a_short_test '^ok 16 [^ ]*runner/pass.sh'
expect fails_a_test_that_leaves_a_module_loaded \
	'^not ok 17 [^ ]*runner/leftover.sh # left loaded: cng_fault$'
expect unloads_what_a_test_left_loaded '^ok 18 [^ ]*runner/pass.sh'
expect fails_a_test_whose_verdict_the_guest_lost \
	'^not ok 20 [^ ]*runner/pass.sh # guest aborted: init: fork: '
expect boots_again_after_a_lost_verdict '^ok 21 [^ ]*runner/pass.sh'
expect waits_for_a_late_report_before_the_last_scan \
	'^not ok 23 [^ ]*unload_all_modules # kernel log reports a bug'
expect shows_the_late_report '# >>> INFO: task cng-late:1 blocked'
expect counts_the_verdicts ': 12 passed, 11 failed$'
n=$((n + 1))
if [ "$status" -ne 0 ]; then
	echo "ok $n runner_exits_nonzero_on_failures"
else
	echo "not ok $n runner_exits_nonzero_on_failures"
fi
