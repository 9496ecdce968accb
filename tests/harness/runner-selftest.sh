#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The runner's own test. On the host, the accounting of tap-lib.sh and
# the verdicts of tap-judge.sh (both beside it) on made-up streams: a plan
# not met, a script that fails without saying so, an unexpected skip, an
# expected failure that does not happen or is another one. In the guest,
# tests/harness/selftest.list, whose tests fail, hang, WARN, Oops, log other
# reports, flood the kernel log, skip, stop short, leave a module loaded,
# cut the guest off before a verdict, time out leaving processes in
# sessions of their own and report late, on purpose, between
# passing tests: each failure mode must give a failing verdict with the
# evidence shown while the suite goes on. TAP on stdout.
#
# Usage: runner-selftest.sh WHICH OUTDIR
set -u
which=$1 out=$2
: "${TOP:?}"
mkdir -p "$out"
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"
n=0

# result NAME CMD...: one result, "ok" when CMD succeeds.
result() {
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n runner_$name"
	else
		echo "not ok $n runner_$name"
	fi
}

# has FILE PATTERN: a line of FILE matches PATTERN (extended regex).
has() {
	grep -Eq -- "$2" "$1" && return 0
	echo "    # no line of $1 matches: $2"
	return 1
}

# Made-up TAP through tap_stream: a plan not met, no plan, two plans, a
# script that breaks down, and one that adds up.
host=$out/host
mkdir -p "$host"
{
	tap_stream short printf '1..3\nok 1 a\nok 2 b\n'
	tap_stream planless printf 'ok 1 a\n'
	tap_stream twice printf '1..1\nok 1 a\n1..1\nok 1 b\n'
	tap_stream broken sh -c 'echo 1..1; echo ok 1 a; exit 3'
	tap_stream failing sh -c 'echo 1..1; echo not ok 1 a; exit 1'
	tap_stream sound printf 'ok 1 a\nok 2 b\n1..2\n'
} > "$host/streams" 2>&1
sed 's/^/    # /' "$host/streams"
result counts_results_against_the_plan \
	has "$host/streams" '^not ok 1 short # plan 1..3 but 2 results'
result fails_a_stream_without_a_plan \
	has "$host/streams" '^not ok 1 planless # 0 plans'
result fails_a_stream_with_two_plans \
	has "$host/streams" '^not ok 1 twice # 2 plans'
result fails_a_script_that_fails_without_a_failing_result \
	has "$host/streams" '^not ok 1 broken # exit status 3 with no failing'
result adds_nothing_to_streams_that_add_up \
	test "$(grep -c '^not ok' "$host/streams")" -eq 5

# An initramfs asked for a module the kernel does not have: built, with
# the module named absent (a test that needs it skips); a module the kernel
# has always resolves (else the build fails, tested by every build).
LIST=$TOP/tests/harness/selftest.list EXTRA_KMODS=cng_no_such_module \
	"$TOP/tests/harness/mkinitramfs.sh" "$host/absent.cpio.gz" \
	> "$host/absent.log" 2>&1
result builds_an_initramfs_without_a_module_the_kernel_lacks \
	has "$host/absent.log" '^mkinitramfs: cng_no_such_module is not a module of '
zcat "$host/absent.cpio.gz" | cpio -i --quiet --to-stdout tests/kmods-absent \
	> "$host/absent.list" 2>&1
result names_the_module_absent \
	has "$host/absent.list" '^cng_no_such_module$'

# The debug suites asked for a list that does not exist: a failure, before
# anything is built.
CHECK_OUT=$host/debug DEBUG_LISTS="10-conformance cng-no-such-list" \
	CONFIGFS=ours "$TOP/scripts/check-debug.sh" > "$host/debug.tap" 2>&1
debug_status=$?
sed 's/^/    # /' "$host/debug.tap"
result fails_the_debug_suites_for_a_missing_list \
	has "$host/debug.tap" '^not ok 1 debug:every_list_exists$'
result stops_the_debug_suites_for_a_missing_list \
	test "$debug_status" -ne 0

# Made-up guest TAP through tap-judge.sh, with made-up expectations.
cat > "$host/guest.tap" <<'EOT'
# ours:skipper.sh
ok 1 ours:skipper.sh # SKIP listed
# ours:other.sh
ok 2 ours:other.sh # SKIP not listed
# ours:inner.sh
    ok 1 a_case # SKIP expected to differ on stock: but this is ours
ok 3 ours:inner.sh # 0.1 s
# stock:inner.sh
    ok 1 a_case # SKIP missing something
ok 4 stock:inner.sh # 0.1 s
# stock:differs.sh
    ok 1 a_case # SKIP expected to differ on stock: as listed
ok 5 stock:differs.sh # 0.1 s
# debug-stock:cycle.sh
    # >>> WARNING: possible circular locking dependency detected
    # cng_selftest_lock
    # >>> Call Trace:
not ok 6 debug-stock:cycle.sh # kernel log reports a bug
# debug-stock:cycle.sh
    # >>> WARNING: possible circular locking dependency detected
    # cng_selftest_lock
    # >>> BUG: KASAN: use-after-free in something
not ok 7 debug-stock:cycle.sh # kernel log reports a bug
# debug-stock:cycle.sh
    # >>> WARNING: possible circular locking dependency detected
    # cng_selftest_lock
not ok 8 debug-stock:cycle.sh # kernel log reports a bug; exit status 1
# debug-stock:cycle.sh
    # >>> WARNING: possible circular locking dependency detected
    # another_lock
not ok 9 debug-stock:cycle.sh # kernel log reports a bug
# debug-stock:cycle.sh
ok 10 debug-stock:cycle.sh # 0.1 s
# debug-stock:cycle.sh
    # >>> WARNING: possible circular locking dependency detected
    # cng_selftest_lock
    # >>> Call Trace:
    # vmalloc error: size 1000
    # >>> Call Trace:
not ok 11 debug-stock:cycle.sh # kernel log reports a bug
# debug-stock:cycle.sh
    # >>> WARNING: possible circular locking dependency detected
    # cng_selftest_lock
    # >>> Call trace:
not ok 12 debug-stock:cycle.sh # kernel log reports a bug
EOT
"$TOP/tests/harness/tap-judge.sh" "$TOP/tests/harness/selftest-expected.list" \
	< "$host/guest.tap" > "$host/judged.tap" 2>&1
sed 's/^/    # /' "$host/judged.tap"
result keeps_an_expected_skip \
	has "$host/judged.tap" '^ok 1 ours:skipper.sh # SKIP listed$'
result fails_an_unexpected_skip \
	has "$host/judged.tap" '^not ok 2 ours:other.sh # unexpected SKIP: not listed$'
result fails_a_case_skipped_on_ours \
	has "$host/judged.tap" '^not ok 3 ours:inner.sh # a case skipped: '
result fails_a_case_skipped_on_stock_for_another_reason \
	has "$host/judged.tap" '^not ok 4 stock:inner.sh # a case skipped: '
result keeps_an_expected_difference_on_stock \
	has "$host/judged.tap" '^ok 5 stock:differs.sh # 0.1 s$'
result counts_apart_the_expected_failure \
	has "$host/judged.tap" '^not ok 6 debug-stock:cycle.sh # TODO expected failure: '
result fails_the_expected_failure_with_another_report \
	has "$host/judged.tap" \
	'^not ok 7 debug-stock:cycle.sh # kernel log reports a bug \(not the expected'
result fails_the_expected_failure_with_another_reason \
	has "$host/judged.tap" \
	'^not ok 8 debug-stock:cycle.sh # kernel log reports a bug; exit status 1 \(not'
result fails_the_expected_failure_about_something_else \
	has "$host/judged.tap" '^not ok 9 debug-stock:cycle.sh # kernel log reports a bug \(not'
result fails_an_expected_failure_that_does_not_happen \
	has "$host/judged.tap" '^not ok 10 debug-stock:cycle.sh # expected failure did not happen: '
result fails_the_expected_failure_with_another_stack_trace \
	has "$host/judged.tap" '^not ok 11 debug-stock:cycle.sh # kernel log reports a bug \(not'
result counts_apart_the_expected_failure_with_arm64s_stack_trace \
	has "$host/judged.tap" '^not ok 12 debug-stock:cycle.sh # TODO expected failure: '
judge=$TOP/tests/harness/tap-judge.sh
result judges_the_real_list_without_complaint \
	sh -c "echo 'ok 1 ours:x.sh' | '$judge' | grep -qx 'ok 1 ours:x.sh'"

# The guest.
"$TOP/tests/harness/guest-suite.sh" "$which" "$TOP/tests/harness/selftest.list" \
	"$out" > "$out/tap" 2>&1
status=$?
"$TOP/tests/harness/tap-judge.sh" < "$out/tap" > "$out/judged.tap" 2>&1
sed 's/^/    # /' "$out/judged.tap"

t=$out/judged.tap
result fails_a_failing_test has "$t" '^not ok 1 [^ ]*runner/fail.sh # exit status 1$'
result goes_on_after_a_failure has "$t" '^ok 2 [^ ]*runner/pass.sh'
result times_out_a_hung_test has "$t" '^not ok 3 [^ ]*runner/hang.sh # timed out'
result goes_on_after_a_hang has "$t" '^ok 4 [^ ]*runner/pass.sh'
result fails_a_test_whose_kernel_log_warns \
	has "$t" '^not ok 5 [^ ]*runner/warn.sh # kernel log reports a bug'
result shows_the_warning_in_the_log has "$t" '# >>> WARNING: .*cng_fault'
result goes_on_after_a_warning has "$t" '^ok 6 [^ ]*runner/pass.sh'
result fails_a_test_that_kills_the_guest \
	has "$t" '^not ok 7 [^ ]*runner/oops.sh # guest died'
result shows_the_console_of_a_dead_guest \
	has "$t" '# .*(BUG: kernel NULL pointer dereference|Oops)'
result boots_again_after_a_dead_guest has "$t" '^ok 8 [^ ]*runner/pass.sh'
result fails_a_test_whose_log_has_other_reports \
	has "$t" '^not ok 9 [^ ]*runner/markers.sh # kernel log reports a bug'
result takes_busy_inodes_at_unmount_for_a_report \
	has "$t" '# >>> VFS: Busy inodes after unmount'
result takes_kmemleak_without_memory_for_a_report \
	has "$t" '# >>> kmemleak: Cannot allocate a kmemleak_object'
result takes_kmemleak_turned_off_for_a_report \
	has "$t" '# >>> kmemleak: Kernel memory leak detector disabled'
result goes_on_after_other_reports has "$t" '^ok 10 [^ ]*runner/pass.sh'
result fails_a_test_whose_log_records_were_lost \
	has "$t" '^not ok 11 [^ ]*runner/flood.sh # kernel log lost [0-9]+ records'
result goes_on_after_lost_records has "$t" '^ok 12 [^ ]*runner/pass.sh'
result fails_a_skip_no_list_expects \
	has "$t" '^not ok 13 [^ ]*runner/skip.sh # unexpected SKIP: runner self-test: skips on purpose$'
result fails_exit_status_4_without_a_skip_plan \
	has "$t" '^not ok 14 [^ ]*runner/exit4.sh # exit status 4 without a "1..0 # SKIP" plan$'
result fails_a_test_with_fewer_results_than_planned \
	has "$t" '^not ok 15 [^ ]*runner/short.sh # plan 1..2 but 1 results$'
result goes_on_after_a_short_test has "$t" '^ok 16 [^ ]*runner/pass.sh'
result fails_a_test_that_leaves_a_module_loaded \
	has "$t" '^not ok 17 [^ ]*runner/leftover.sh # left loaded: cng_fault$'
result unloads_what_a_test_left_loaded has "$t" '^ok 18 [^ ]*runner/pass.sh'
result fails_a_test_that_leaves_a_module_in_use \
	has "$t" '^not ok 19 [^ ]*runner/inuse.sh # left loaded: cng_test$'
result boots_again_after_a_module_left_in_use \
	has "$t" '# guest aborted: test 19 left modules in use: a new boot for the next test'
result runs_the_next_test_on_the_new_boot has "$t" '^ok 20 [^ ]*runner/pass.sh'
result fails_a_module_test_whose_module_does_not_load \
	has "$t" '^not ok 21 [^ ]*runner/nullb_broken.sh # exit status 1$'
result fails_a_test_whose_verdict_the_guest_lost \
	has "$t" '^not ok 23 [^ ]*runner/pass.sh # guest aborted: init: fork: '
result boots_again_after_a_lost_verdict has "$t" '^ok 24 [^ ]*runner/pass.sh'
result times_out_a_test_that_left_processes \
	has "$t" '^not ok 25 [^ ]*runner/orphan.sh # timed out'
result shows_what_it_killed \
	has "$t" '# killed [0-9]+ \(sh, uid 1000\), left by the test'
result kills_what_a_timed_out_test_left has "$t" '^ok 26 [^ ]*runner/alone.sh'
result waits_for_a_late_report_before_the_last_scan \
	has "$t" '^not ok 28 [^ ]*unload_all_modules # kernel log reports a bug'
result shows_the_late_report has "$t" '# >>> INFO: task cng-late:1 blocked'
result counts_the_verdicts has "$out/tap" ': 14 passed, 14 failed$'
result gives_each_test_one_line tap_adds_up < "$out/tap"
result exits_nonzero_on_failures test "$status" -ne 0
echo "1..$n"
