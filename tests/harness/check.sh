#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every check of `make check`, as one TAP stream ending in
# "N passed, N failed". With "lint", the static checks alone; with "guest",
# the guest suites alone (every tests/*/NN-*.list, or $LIST); with
# "debug", the suites on the debug kernel alone (scripts/check-debug.sh);
# with "kernel", the second kernel alone (scripts/check-kernel.sh); with
# "arm64", the arm64 cross-builds alone, booted with ARM64_BOOT=1, then
# the arm64 packages (scripts/deb-arm64.sh), and with "ppc64el" the
# 64K-page ppc64el ones, booted (both scripts/check-cross.sh); with
# "short", the fuzzer, the benchmark's quick set, the demo, the
# runner's self-test and the real clients' benchmark alone.
#
# Steps: static checks (W=1 build, sparse, checkpatch, shellcheck, ABI),
# host tests (beside them, the arm64 quick form), the guest suite once
# per module named in $CONFIGFS
# ("ours", "stock"), the second kernel's build, ABI and suites
# (scripts/check-kernel.sh),
# 300 seeds of the differential fuzzer (ours against stock, one boot)
# and 20 concurrent seeds of 4 processes,
# one round of the benchmark's quick set, the demo of `make run`, the
# runner's self-test, the real clients' benchmark on 20 LUNs, the
# debug kernel suites, and the kernel patch series built in and booted
# (make check-intree's quick form, its build beside the rest at the
# lowest priority). Expects the environment of the top Makefile
# (TOP, BUILD, KDIR, KIMG, KVER, KSRC, CONFIGFS).
#
# Each script's TAP is counted against its plan, and a script that fails
# without a failing result fails the run (tests/harness/tap-lib.sh); then
# tests/harness/tap-judge.sh fails any skip and any kernel report that
# tests/harness/expected.list does not expect. Expected failures count apart.
set -u

: "${TOP:?run me through make}" "${BUILD:?}" "${KDIR:?}" "${KIMG:?}"
only=${1:-all}
t0=$(date +%s)
out=${CHECK_OUT:-$BUILD/check}	# two runs at once need two of these
# A second run in the same folder would empty it under the first (seen:
# make check-targetcli beside make check-intree): it is refused instead.
mkdir -p "$(dirname "$out")"
exec {check_lock}> "$out.lock"
flock -n "$check_lock" || {
	echo "check.sh: another run is using $out; give this one" \
		"CHECK_OUT=DIR" >&2
	exit 2
}
rm -rf "$out"
mkdir -p "$out"
counter=$out/counter
echo "0 0 0 0 0" > "$counter"
# The failing results again, so that the end of a long run names them.
failures=$out/failures
: > "$failures"
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"

# Renumber a TAP stream into ours and count its top-level results. Every
# stream with a plan went through tap_stream, which made the plan a
# comment: a plan that arrives here was counted by nothing, and fails.
tap() {
	local line n p f s x
	while IFS= read -r line; do
		read -r n p f s x < "$counter"
		case $line in
		[0-9]*..[0-9]*)
			line="not ok 1 plan_of_an_unaccounted_stream # $line"
			;;
		esac
		case $line in
		'ok '*|'not ok '*)
			n=$((n + 1))
			case $line in
			'not ok '*'# TODO'*)
				x=$((x + 1)); line="not ok $n ${line#not ok * }" ;;
			'not ok '*) f=$((f + 1)); line="not ok $n ${line#not ok * }"
				printf '%s\n' "$line" >> "$failures" ;;
			*'# SKIP'*) s=$((s + 1)); line="ok $n ${line#ok * }" ;;
			*) p=$((p + 1)); line="ok $n ${line#ok * }" ;;
			esac
			echo "$n $p $f $s $x" > "$counter"
			;;
		esac
		printf '%s\n' "$line"
	done
}

# step NAME CMD...: run CMD as one test; its output becomes diagnostics.
step() {
	local name=$1 log=$out/$1.log
	shift
	if "$@" > "$log" 2>&1; then
		echo "ok 1 $name"
	else
		sed 's/^/    # /' "$log" | tail -n 60
		echo "not ok 1 $name"
	fi
}

# What a client links to: our module's exports and the helpers'.
client_syms="$TOP/module/Module.symvers $TOP/helpers/Module.symvers"

lint_build() {
	make -C "$KDIR" M="$TOP/module" W=1 KCFLAGS=-Werror modules &&
	make -C "$KDIR" M="$TOP/helpers" W=1 KCFLAGS=-Werror modules &&
	make -C "$KDIR" M="$TOP/drivers/fakenbd" W=1 KCFLAGS=-Werror \
		KBUILD_EXTRA_SYMBOLS="$client_syms" modules
}

lint_sparse() {
	local log=$out/sparse.out
	{ make -C "$KDIR" M="$TOP/module" C=2 modules &&
	  make -C "$KDIR" M="$TOP/helpers" C=2 modules &&
	  make -C "$KDIR" M="$TOP/samples" C=2 \
		KBUILD_EXTRA_SYMBOLS="$client_syms" modules &&
	  make -C "$KDIR" M="$TOP/tests/modules" C=2 \
		KBUILD_EXTRA_SYMBOLS="$client_syms" modules &&
	  make -C "$KDIR" M="$TOP/drivers/fakenbd" C=2 \
		KBUILD_EXTRA_SYMBOLS="$client_syms" modules; } \
		> "$log" 2>&1 || {
		cat "$log"; return 1; }
	if grep -E 'warning:|error:' "$log"; then return 1; fi
}

lint_checkpatch() {
	local cp=$KSRC/scripts/checkpatch.pl files spelling
	files=$(cd "$TOP" && git ls-files '*.c' '*.h' 2>/dev/null)
	[ -n "$files" ] || files=$(cd "$TOP" && find module helpers samples drivers tools \
		tests bench -name '*.[ch]' 2>/dev/null)
	spelling=$(/usr/bin/python3 -c 'import codespell_lib, os; print(os.path.join(os.path.dirname(codespell_lib.__file__), "data", "dictionary.txt"))' 2>/dev/null)
	# Kernel names codespell takes for typos (iput, the VFS's inode put).
	if [ -n "$spelling" ]; then
		grep -v -E '^(iput)->' "$spelling" > "$out/codespell.txt"
		spelling=$out/codespell.txt
	fi
	# Two at a time, in batches: checkpatch is slow and single-threaded.
	# shellcheck disable=SC2086
	(cd "$TOP" && printf '%s\n' $files | xargs -P 2 -n 10 \
		perl "$cp" --strict --no-tree --quiet --show-types \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG \
		${spelling:+--codespell --codespellfile "$spelling"} -f)
}

# The tree's shell scripts, by name or by shebang: of the tracked files,
# or outside a checkout of every file but build/'s.
lint_shell_scripts() {
	local f
	{ git -C "$TOP" ls-files 2>/dev/null ||
	  (cd "$TOP" && find . -path ./build -prune -o -type f -print |
		sed 's|^\./||'); } |
	while IFS= read -r f; do
		[ -f "$TOP/$f" ] || continue	# deleted, not yet committed
		case $f in
		*.sh)	echo "$f" ;;
		*)	head -n 1 "$TOP/$f" 2>/dev/null |
				grep -qE '^#! *(/usr)?/bin/(env +)?(ba|da)?sh\b' &&
				echo "$f" ;;
		esac
	done
}

# Every shell script through shellcheck, at warning level. The guest's
# (tests/*, but for the harness's own, and bench) run under busybox's
# ash, whose dialect is dash's (local included); the others under their shebang's shell. A warning
# that must stay is disabled on its line, with the reason.
lint_shellcheck() {
	local f rc=0
	local -a guest=() host=()
	command -v shellcheck > /dev/null ||
		{ echo "shellcheck: not installed (scripts/prereqs.sh)"; return 1; }
	while IFS= read -r f; do
		case $f in
		tests/harness/runner/*)	guest+=("$f") ;;
		tests/harness/*|tests/host/*|tests/deb/*|tests/debian/*)
					host+=("$f") ;;
		tests/*|bench/*)	guest+=("$f") ;;
		*)			host+=("$f") ;;
		esac
	done < <(lint_shell_scripts)
	(cd "$TOP" && shellcheck -S warning -f gcc -s dash "${guest[@]}") ||
		rc=1
	(cd "$TOP" && shellcheck -S warning -f gcc "${host[@]}") || rc=1
	return $rc
}

lint_abi() {
	"$TOP/scripts/abi-check.sh"
}

# guest_suites [CMD]: the guest suites, ours and stock at once; CMD, if
# given, when the first of them ends.
# shellcheck disable=SC2120 # make check gives it, through timed
guest_suites() {
	local cf first
	local -a pids=() rest=()
	if [ -n "${LIST:-}" ]; then
		cp "$LIST" "$out/check.list"
	else
		# shellcheck disable=SC2046 # one path a line, none with a space
		cat $(tap_suite_lists) > "$out/check.list"
	fi
	# One guest per module at once: TCG runs a guest on one core.
	echo "# guest suite on $CONFIGFS configfs, at once"
	for cf in $CONFIGFS; do
		tap_start "$out/guest-$cf.tap" "$TOP/tests/harness/guest-suite.sh" \
			"$cf" "$out/check.list" "$out/guest-$cf"
		pids+=("$!")
	done
	# CMD, if given, once the first suite ends: a core is free from
	# then to the other's end (stock's ends about 170 s before ours's).
	if [ -n "${1:-}" ]; then
		wait -n -p first "${pids[@]}"
		"$1"
		for cf in "${pids[@]}"; do
			[ "$cf" = "$first" ] || rest+=("$cf")
		done
		pids=("${rest[@]}")
	fi
	# Not a bare wait: that would wait for CMD's job too.
	[ "${#pids[@]}" -eq 0 ] || wait "${pids[@]}"
	for cf in $CONFIGFS; do
		echo "# guest suite on $cf configfs"
		tap_stream "guest_suite_on_$cf" tap_replay "$out/guest-$cf.tap"
	done
}

# lint_steps [CMD]: the static checks; CMD, if given, once the steps
# that build in place are done.
# shellcheck disable=SC2120 # make check gives it, through timed
lint_steps() {
	step lint_module_builds_with_w1_werror lint_build
	step lint_sparse_reports_nothing lint_sparse
	[ -z "${1:-}" ] || "$1"
	step lint_checkpatch_strict_reports_nothing lint_checkpatch
	step lint_shellcheck_reports_nothing lint_shellcheck
	if [ -x "$TOP/scripts/abi-check.sh" ]; then
		step lint_exports_and_crcs_match_stock lint_abi
	fi
	step lint_series_applies_and_is_checkpatch_clean lint_series
}

# The kernel patch series cut from this source (scripts/series.sh, about
# 20 s once its pristine tree is made) applies to linux-source-6.12 and
# gives the tree it was cut from, and each patch is checkpatch clean:
# the one source and its in-tree form cannot drift apart. Whether each
# patch builds and boots is make check-intree's.
lint_series() {
	local cp=$KSRC/scripts/checkpatch.pl p

	# Not while a check-intree build reads the tree series.sh rewrites.
	# -o: what series.sh leaves running must not hold the lock.
	flock -o "$CNG_CACHE/intree-tree.lock" \
		"$TOP/scripts/series.sh" "$out/series" > /dev/null || return 1
	for p in "$out"/series/0*.patch; do
		case ${p##*/} in 0000-*) continue ;; esac
		perl "$cp" --strict --no-tree --quiet --show-types \
			--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG "$p" || return 1
	done
}

host_tests() {
	[ -f "$TOP/tests/host/Makefile" ] || return 0
	echo "# host tests"
	make -s -C "$TOP/tests/host" check 2>&1 | sed 's/^/    /'
	if [ "${PIPESTATUS[0]}" -eq 0 ]; then
		echo "ok 1 host_tests"
	else
		echo "not ok 1 host_tests"
	fi
}

# The benchmark's quick set, one round: the whole of `make bench QUICK=1`
# (stock, ours and tmpfs in one boot, then the summary and the plot)
# still works. Times are not judged: every target must have a figure.
bench_quick_set() {
	local b=$out/bench sys
	QUICK=1 BENCH_ROUNDS=1 BENCH_OUT=$b "$TOP/scripts/bench.sh" || return 1
	grep -q '^## Targets' "$b/summary.md" ||
		{ echo "bench: no targets table"; return 1; }
	if grep 'not measured' "$b/summary.md"; then
		echo "bench: a target has no figure"
		return 1
	fi
	for sys in stock ours tmpfs; do
		grep -q "^$sys,1,paired,\|^$sys,1,items," "$b/results.csv" ||
			{ echo "bench: no rows of $sys"; return 1; }
	done
	[ "$(head -c 4 "$b/mkdir.png" | tail -c 3)" = PNG ] ||
		{ echo "bench: no plot"; return 1; }
}

# `make run` without a terminal: the demo's tour runs to its end, each
# step does what the transcript in the README shows, and the kernel
# printed no report (the console shows warnings for this run).
demo_runs() {
	local log=$out/demo.log want
	DEMO_APPEND="loglevel=5" "$TOP/scripts/run-demo.sh" < /dev/null \
		> "$log" 2>&1 || { tail -20 "$log"; return 1; }
	for want in "reason: rw: 'maybe' is not one of 0, 1" \
		"fakenbd/live/disk1/connected:1" \
		"reason: connect 127.0.0.1:10999: connection refused" \
		"configured through configfs" \
		"reason: disk1 is open or mounted: unmount or close it first" \
		"Permission denied" \
		"mkdir fakenbd/live/disk1" \
		"fakenbd/live/disk1/disk:disk1" \
		"reboot: Power down"; do
		grep -qF -- "$want" "$log" ||
			{ echo "demo: no line with: $want"; tail -20 "$log"; return 1; }
	done
	kernel_reports "$log"
	case $? in
	0)	echo "demo: the kernel reported a problem"; return 1 ;;
	1)	;;
	*)	return 1 ;;
	esac
}

runner_selftest() {
	echo "# the runner's self-test"
	tap_stream runner_selftest "$TOP/tests/harness/runner-selftest.sh" \
		"${CONFIGFS%% *}" "$out/runner-selftest"
}

# The second kernel (scripts/check-kernel.sh): not when make was given a
# KVER (SECOND_KVER=none), which checks that kernel alone.
second_kernel() {
	[ "${SECOND_KVER:-}" = none ] && return 0
	echo "# the second kernel"
	tap_stream second_kernel "$TOP/scripts/check-kernel.sh" \
		${SECOND_KVER:+"$SECOND_KVER"}
}

# make check runs the debug suites on its first module only, and without
# 19-hostile and 13-differences (which the Debian kernels' suites run on
# both modules; the paths the differences take, conformance and the
# module and fault suites take too), to stay within its time budget:
# about 45 minutes on CI's two cores. make check-debug runs them all on
# every module of CONFIGFS.
# shellcheck disable=SC2120 # make check gives its module, through timed
debug_suites() {
	local lists="10-conformance 12-better 15-module
		16-faults 17-extensions 17-helpers
		tests/clients/debug-clients.list tests/fuzz/debug-fuzz.list"
	echo "# debug kernel suites"
	if [ -n "${1:-}" ]; then
		lists=${DEBUG_LISTS:-$lists}
	else
		lists=${DEBUG_LISTS:-}
	fi
	# An empty DEBUG_LISTS is check-debug.sh's default.
	tap_stream debug_suites env CONFIGFS="${1:-$CONFIGFS}" \
		DEBUG_LISTS="$lists" DEBUG_ALSO="$(intree_quick_boot_command)" \
		"$TOP/scripts/check-debug.sh"
}

# make deb: both packages build from a copy of the tree and lintian has
# nothing unexplained to say (about 30 s). Their life in a Debian guest
# is make check-deb's (scripts/check-deb.sh), too long for make check.
deb_packages() {
	DEB_OUT=$out/deb "$TOP/scripts/mkdeb.sh"
}

# What the built packages' maintainer scripts, unit and DKMS files do
# about upgrades, removal, the fallback to stock and the initramfs
# (issue 33), read from the .debs without installing them (about 1 s).
deb_contents() {
	echo "# the packages' scripts and files (scripts/deb-contents.sh)"
	tap_stream deb_contents "$TOP/scripts/deb-contents.sh" "$out/deb"
}

# The packages cross-built for arm64 (make deb-arm64) and lintian-judged
# (about 30 s), then read, and DKMS run on them for each arm64 kernel
# against its headers (scripts/deb-arm64.sh; about a minute a kernel).
deb_arm64() {
	step deb_arm64_packages_build_lintian_clean \
		env DEB_ARCH=arm64 DEB_OUT="$out/deb-arm64" "$TOP/scripts/mkdeb.sh"
	echo "# the arm64 packages, and DKMS's build from them (scripts/deb-arm64.sh)"
	tap_stream deb_arm64 "$TOP/scripts/deb-arm64.sh" "$out/deb-arm64"
}

# make check's arm64 quick form (make check-arm64 is the whole): the
# modules cross-built and their CRCs checked for the first kernel's arm64
# twin, booted, the smoke list and the USB gadget tests on the first
# module of CONFIGFS (scripts/check-cross.sh, CROSS_QUICK=1); a failure
# of its host packages' install shows there. The host's packages it needs
# (cross compiler, QEMU) are installed first, in the foreground: the
# host's apt takes locks that the packages step and the series' fetch
# also take. Then it runs in the background, its arm64 downloads
# (through apt lists of their own in the cache) included, beside the lint
# steps that follow the builds in place (it copies the tree), the host
# tests and the packages, which leave a core idle; arm64_quick_result
# shows its stream.
arm64_quick_start() {
	local kver=${KVER%-amd64}-arm64
	KVER=$kver FOREIGN_HOST_ONLY=1 FOREIGN_BOOT=1 \
		"$TOP/scripts/prereqs.sh" > "$out/arm64-quick-prereqs.log" 2>&1
	tap_start "$out/arm64-quick.tap" env CROSS_QUICK=1 CROSS_ARCH=arm64 \
		CHECK_OUT="$out" "$TOP/scripts/check-cross.sh"
	arm64_quick_pid=$!
}

arm64_quick_result() {
	echo "# arm64 quick form (scripts/check-cross.sh, CROSS_QUICK=1)"
	wait "$arm64_quick_pid"
	tap_stream arm64_quick tap_replay "$out/arm64-quick.tap"
}

# make bench-clients' quick form (issue 37): in one Debian guest
# (scripts/debian-guest.sh), targetcli's restoreconfig, saveconfig and
# clearconfig of 20 LUNs, and our tool's save, rm --all and restore of the
# same tree with the walks, on stock and on ours (about 160 s). No time is
# judged: every step runs on both modules and leaves the tree it should,
# targetcli's save after our restore equals its save before, every step
# has a figure, and the console shows no kernel report. Debian packages
# no nvmetcli: its half runs when NVMETCLI names a copy (bench/README.md).
bench_clients_quick() {
	echo "# real clients' benchmark, quick form (scripts/bench-clients.sh)"
	tap_stream bench_clients_quick bench_clients_quick_stream
}

# make check runs it in the background from the end of the first guest
# suite, on the core that suite leaves idle (guest_suites); its result
# is shown after the second kernel's, as the arm64 quick form's is.
bench_clients_quick_start() {
	tap_start "$out/bench-clients-quick.tap" bench_clients_quick_stream
	bench_clients_quick_pid=$!
}

bench_clients_quick_result() {
	echo "# real clients' benchmark, quick form (scripts/bench-clients.sh)"
	wait "$bench_clients_quick_pid"
	tap_stream bench_clients_quick tap_replay "$out/bench-clients-quick.tap"
}

# bench_clients_quick_stream: its TAP, without the guest's figures (they
# are in $out/bench-clients/results.csv). One vCPU: it runs beside
# ours's guest suite, and with two its guest slowed that suite by about
# 90 s (585 s for the suites against 496).
bench_clients_quick_stream() {
	local subsys=0

	[ -n "${NVMETCLI:-}" ] && subsys=20
	QEMU_SMP=1 BENCH_CLIENTS_QUICK=1 BENCH_CLIENTS_M=$subsys \
		BENCH_OUT=$out/bench-clients "$TOP/scripts/bench-clients.sh" |
		grep -v '^# csv: '
	return "${PIPESTATUS[0]}"
}

# make check-intree's quick form (issue 35): the series applied to
# linux-source-6.12 and built with configfs built in, booted, the
# conformance list, the nvmet client and the kernel selftest. Its build
# (a whole kernel: 18 minutes at nice 19 beside the guests, cold) is
# started once lint has written the series, on the cycles the guests
# leave; the patches one by one are make check-intree's. Its boot is the
# debug suites' last job (check-debug.sh's DEBUG_ALSO), on the core the
# first of their guests to run out of parts leaves idle, and waits for
# the build if it has not ended. It is ours built in: not when CONFIGFS
# leaves ours out.
intree_quick_start() {
	intree_quick_pid=
	[[ " $CONFIGFS " == *" ours "* ]] || return 0
	tap_start "$out/intree-quick-build.tap" nice -n 19 env \
		INTREE_MODE=quick INTREE_EACH=0 INTREE_PHASE=build CHECK_OUT="$out" \
		"$TOP/scripts/check-intree.sh"
	intree_quick_pid=$!
}

# The boot phase, as words for DEBUG_ALSO (none when no build started).
intree_quick_boot_command() {
	[ -n "${intree_quick_pid:-}" ] || return 0
	echo env INTREE_MODE=quick INTREE_PHASE=boot CHECK_OUT="$out" \
		INTREE_WAIT_FOR="$out/intree-quick-build.tap.rc" \
		"$TOP/scripts/check-intree.sh"
}

intree_quick_result() {
	local boot=$out/debug/also.tap

	[ -n "${intree_quick_pid:-}" ] || return 0
	echo "# the series built in (scripts/check-intree.sh, quick form)"
	wait "$intree_quick_pid"
	tap_stream intree_quick_build tap_replay "$out/intree-quick-build.tap"
	# A build that failed has said so: there is nothing to boot.
	[ "$(cat "$out/intree-quick-build.tap.rc" 2> /dev/null)" = 0 ] || return 0
	if [ -f "$boot.rc" ]; then
		tap_stream intree_quick tap_replay "$boot"
	else
		# The debug suites ended before their pool ran it.
		# shellcheck disable=SC2046 # words, as for DEBUG_ALSO
		tap_stream intree_quick $(intree_quick_boot_command)
	fi
}

fuzz_steps() {
	echo "# differential fuzzing, ours against stock"
	FUZZ_OUT=$out/fuzz CONC=20 PROCS=4 tap_stream fuzz_ours_vs_stock \
		"$TOP/scripts/fuzz-diff.sh" 300 0 60
}

# The steps of one guest each: the fuzzer, the runner's self-test, the
# benchmark's quick set and the demo. A guest of shell tests keeps about
# one of the host's two cores busy, so they run two at a time, each pair
# of lines in the order below; their streams are shown once both are
# done. No time is judged in any of them. ("short" runs the real
# clients' benchmark after them.)
short_guests() {
	{
		timed fuzz_steps
		timed runner_selftest
	} > "$out/short-1.tap" 2>&1 &
	{
		timed step bench_quick_set_reports_every_target bench_quick_set
		timed step demo_of_make_run_runs_to_its_end demo_runs
	} > "$out/short-2.tap" 2>&1 &
	wait
	cat "$out/short-1.tap" "$out/short-2.tap"
}

# timed CMD...: run CMD, then say how long it took (where the budget goes).
timed() {
	local t=$SECONDS
	"$@"
	echo "# time: $* took $((SECONDS - t)) s"
}

{
	echo "TAP version 13"
	case $only in
	lint)	lint_steps ;;
	guest)	guest_suites ;;
	debug)	debug_suites ;;
	kernel)	second_kernel ;;
	arm64)	tap_stream arm64 env CROSS_ARCH=arm64 \
			"$TOP/scripts/check-cross.sh"
		timed deb_arm64 ;;
	ppc64el)
		tap_stream ppc64el env CROSS_ARCH=ppc64el \
			"$TOP/scripts/check-cross.sh" ;;
	targetcli)
		tap_stream targetcli "$TOP/scripts/check-targetcli.sh" ;;
	intree)
		tap_stream intree "$TOP/scripts/check-intree.sh" ;;
	short)	short_guests
		timed bench_clients_quick ;;
	*)	timed lint_steps arm64_quick_start
		intree_quick_start
		timed host_tests
		timed step deb_packages_build_lintian_clean deb_packages
		timed deb_contents
		timed arm64_quick_result
		timed guest_suites bench_clients_quick_start
		timed second_kernel
		timed bench_clients_quick_result
		timed short_guests
		timed debug_suites "${CONFIGFS%% *}"
		timed intree_quick_result ;;
	esac
} | "$TOP/tests/harness/tap-judge.sh" | tap

read -r n p f s x < "$counter"
echo "1..$n"
echo "# wall time: $(( $(date +%s) - t0 )) s"
sed 's/^/# failed: /' "$failures"
echo "$p passed, $f failed, $s skipped (as expected), $x expected failures"
[ "$f" -eq 0 ] && [ "$n" -gt 0 ]
