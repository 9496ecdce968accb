#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug`: the conformance, better, differences, module and
# fault suites and the nvmet client test on a debug kernel (KASAN, lockdep,
# kmemleak, DEBUG_OBJECTS, ...) built from Debian's linux-source by
# scripts/debug-kernel.sh, once per module named in $CONFIGFS (ours, and
# stock: the configfs.ko of the same debug tree), then the runner's debug
# self-test. TAP with a plan on stdout, for tests/harness/check.sh.
#
# Environment: TOP, BUILD, CNG_CACHE, CONFIGFS; DEBUG_LISTS (default: the
# lists below; a list named and missing fails); DEBUG_SELFTEST=0 (no
# self-test); DEBUG_SHARDS (parts each module's list is cut into, 3) and
# DEBUG_GUESTS (guests at once, the host's cores); DEBUG_ALSO (one more
# job for the same guests, below).
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}"
out=${CHECK_OUT:-$BUILD/check}/debug
dbuild=$out/build	# under CHECK_OUT, so parallel runs do not collide
mkdir -p "$out" "$dbuild"
# A name is tests/AREA/NAME.list; a path (with a /) is from the top.
lists=${DEBUG_LISTS:-"10-conformance 12-better 13-differences 15-module
	16-faults 17-extensions 17-helpers 19-hostile
	tests/clients/debug-clients.list tests/fuzz/debug-fuzz.list
	tests/fakenbd/debug-fakenbd.list"}
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"


# A list named and missing is a failure, not a smaller suite; checked
# first, as it costs nothing.
tap_prefix=debug
# shellcheck disable=SC2086
tap_lists "$out/check.list" $lists

# The build's settings come from its own output, not from the cache's
# debug-env.mk, which another checkout's run may rewrite meanwhile.
"$TOP/scripts/debug-kernel.sh" > "$out/kernel.env" 2> "$out/kernel.log" ||
	tap_fail debug:build_debug_kernel "$out/kernel.log"
tap_ok debug:build_debug_kernel
eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/\1=\2/p' "$out/kernel.env")"
: "${DKVER:?}" "${DKDIR:?}" "${DKIMG:?}" "${DKMODS:?}"

"$TOP/scripts/build-copy.sh" "$DKDIR" "$dbuild" > "$out/build.log" 2>&1 ||
	tap_fail debug:build_module_and_samples "$out/build.log"
tap_ok debug:build_module_and_samples

# guest_env: the debug guests' settings (the debug kernel, the builds
# for it, KASAN's longer timeouts and larger memory, kmemleak on), set in
# each of their jobs' own shell: DEBUG_ALSO runs with the caller's.
guest_env() {
	export KERNEL=$DKIMG KIMG=$DKMODS KVER=$DKVER
	export MODULE_KO=$dbuild/module/configfs.ko SAMPLES_DIR=$dbuild/samples.ko
	export TESTMODS_DIR=$dbuild/testmods.ko
	export DRIVERS_DIR=$dbuild/drivers.ko
	export HELPERS_KO=$dbuild/helpers/configfs_helpers.ko
	export TIMEOUT_SCALE=${TIMEOUT_SCALE:-4} QEMU_MEM=${QEMU_MEM:-1536}
	export APPEND="kmemleak=on ${APPEND:-}"
}

ntests=$(grep -cv '^[[:space:]]*\(#\|$\)' "$out/check.list")

# TCG runs a guest on about one core, and the debug suites are make
# check's longest part: each module's list is cut into DEBUG_SHARDS
# parts, dealt out test by test, and the parts (with the runner's debug
# self-test, its own guest) run DEBUG_GUESTS at a time, each taking the
# next part when its guest is done. Never more guests than cores: a
# guest slowed by a third one could meet its tests' timeouts.
shards=${DEBUG_SHARDS:-3}
[ "$shards" -gt "$ntests" ] && shards=$ntests
[ "$shards" -ge 1 ] || shards=1
guests=${DEBUG_GUESTS:-$(nproc)}
for ((s = 1; s <= shards; s++)); do
	grep -v '^[[:space:]]*\(#\|$\)' "$out/check.list" |
		awk -v n="$shards" -v s="$s" '(NR - 1) % n == s - 1' \
		> "$out/check-$s.list"
done

jobs=()
[ "${DEBUG_SELFTEST:-1}" != 0 ] && jobs+=(selftest)
ncf=0
for cf in ${CONFIGFS:-ours stock}; do
	for ((s = 1; s <= shards; s++)); do
		jobs+=("$cf:$s")
	done
	ncf=$((ncf + 1))
done
# DEBUG_ALSO: a command (words, without quoting) run as the queue's last
# job, so on the core the first worker to run out of parts would leave
# idle; its output goes to $out/also.tap, its status to also.tap.rc,
# its errors to also.log. make check's boot of the series built in (a
# guest of its own kernel).
[ -z "${DEBUG_ALSO:-}" ] || jobs+=(also)

# run_job JOB: the self-test, part S of module CF's list ("CF:S") or
# DEBUG_ALSO, its TAP to $out/JOB.tap (and .rc).
run_job() {
	local cf=${1%:*} s=${1#*:}
	if [ "$1" = also ]; then
		# shellcheck disable=SC2086 # words, as documented above
		tap_start "$out/also.tap" $DEBUG_ALSO 2> "$out/also.log"
		wait
		return
	fi
	(
	guest_env
	if [ "$1" = selftest ]; then
		LABEL="debug-selftest:" "$TOP/tests/harness/guest-suite.sh" \
			"${CONFIGFS%% *}" "$TOP/tests/harness/selftest-debug.list" \
			"$out/selftest" > "$out/selftest.tap" 2>&1
		exit
	fi
	tap_start "$out/guest-$cf-$s.tap" env LABEL="debug-$cf:" \
		"$TOP/tests/harness/guest-suite.sh" "$cf" "$out/check-$s.list" \
		"$out/guest-$cf-$s"
	wait
	)
}

# worker: take the next job of the queue until none is left.
worker() {
	local i
	while :; do
		# shellcheck disable=SC2016 # the inner shell expands them
		i=$(flock "$out/queue" sh -c 'read -r n < "$1"; echo $((n + 1)) > "$1"; echo "$n"' _ "$out/queue")
		[ "$i" -lt "${#jobs[@]}" ] || return 0
		run_job "${jobs[$i]}"
	done
}
echo 0 > "$out/queue"
for ((w = 0; w < guests; w++)); do
	worker &
done
wait

for cf in ${CONFIGFS:-ours stock}; do
	for ((s = 1; s <= shards; s++)); do
		echo "# debug kernel suite on $cf configfs, part $s of $shards"
		tap_stream "debug_suite_on_${cf}_part_$s" \
			tap_replay "$out/guest-$cf-$s.tap"
	done
done

# DEBUG_SELFTEST=0 (make fuzz-syscalls): a fuzzing run, no self-test.
if [ "${DEBUG_SELFTEST:-1}" = 0 ]; then
	echo "1..$((tap_n + ncf * (ntests + shards)))"
	exit 0
fi

echo "# the runner's debug self-test (run beside the suites)"
sed 's/^/    # /' "$out/selftest.tap"
expect() {	# expect NAME PATTERN
	tap_n=$((tap_n + 1))
	if grep -Eq -- "$2" "$out/selftest.tap"; then
		echo "ok $tap_n debug_runner_$1"
	else
		echo "not ok $tap_n debug_runner_$1 # no line matches: $2"
	fi
}
expect fails_a_lock_inversion \
	'^not ok 1 [^ ]*runner/abba.sh # kernel log reports a bug'
expect shows_the_lockdep_report \
	'# >>> .*WARNING: possible circular locking dependency'
expect checks_locks_again_after_a_lock_inversion \
	'^not ok 2 [^ ]*runner/abba.sh # kernel log reports a bug'
expect fails_a_use_after_free \
	'^not ok 3 [^ ]*runner/uaf.sh # kernel log reports a bug'
expect shows_the_kasan_report '# >>> .*BUG: KASAN: (slab-)?use-after-free'
expect goes_on_after_a_use_after_free '^ok 4 [^ ]*runner/pass.sh'
expect fails_a_leak \
	'^not ok 5 [^ ]*runner/leak.sh # .*kmemleak reports suspected leaks'
expect shows_the_kmemleak_report \
	'# >>>  +4c 4c 4c 4c 4c 4c 4c 4c 4c 4c 4c 4c 4c 4c 4c 4c  L{16}$'
expect goes_on_after_a_leak '^ok 6 [^ ]*runner/pass.sh'
expect fails_a_test_that_turns_kmemleak_off \
	'^not ok 7 [^ ]*runner/kmemleak_off.sh # kernel log reports a bug; kmemleak cannot scan'
expect shows_that_kmemleak_is_off \
	'# >>> kmemleak: Kernel memory leak detector disabled'
expect boots_again_with_kmemleak_on '^ok 8 [^ ]*runner/pass.sh'
if [ "${CONFIGFS%% *}" = stock ]; then
	expect skips_active_references_on_stock \
		'^ok 9 [^ ]*runner/active_abba.sh # SKIP'
	expect counts_the_verdicts ': 5 passed, 5 failed$'
else
	expect fails_a_cycle_through_an_active_reference \
		'^not ok 9 [^ ]*runner/active_abba.sh # kernel log reports a bug'
	expect shows_the_active_reference_in_the_report \
		'# .*cng_node->active'
	expect counts_the_verdicts ': 5 passed, 6 failed$'
fi
expect boots_again_after_an_active_reference_cycle \
	'^ok 10 [^ ]*runner/pass.sh'
tap_n=$((tap_n + 1))
if tap_adds_up < "$out/selftest.tap"; then
	echo "ok $tap_n debug_runner_gives_each_test_one_line"
else
	echo "not ok $tap_n debug_runner_gives_each_test_one_line"
fi

# Each part's tests and its final check, and this script's own results.
echo "1..$((tap_n + ncf * (ntests + shards)))"
