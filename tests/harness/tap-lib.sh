# SPDX-License-Identifier: GPL-2.0
#
# TAP plumbing of tests/harness/check.sh and scripts/check-debug.sh (bash;
# source it).
#
#   tap_stream NAME CMD...   run CMD, whose stdout is a TAP stream with one
#                            plan (at its start or at its end), and copy it
#                            to stdout with the plan made a comment; then
#                            add a failing result "NAME" if the stream does
#                            not add up:
#                              - no plan, or more than one;
#                              - more or fewer results than planned (a
#                                verdict lost, cut or doubled);
#                              - CMD exited nonzero and no result of its
#                                own failed (a script that broke down).
#   tap_adds_up < TAP        true when TAP has one plan and as many results
#   tap_ok NAME              a passing result of the script's own (tap_n
#                            counts them)
#   tap_fail NAME LOG        a failing one with LOG's tail shown; then the
#                            plan, and exit 1
#   tap_lists OUT LIST...    concatenate test lists into OUT (a name is
#                            tests/AREA/NAME.list, a path is from TOP);
#                            a list named and missing fails (tap_fail
#                            PREFIX:every_list_exists, PREFIX=$tap_prefix)
#   tap_start FILE CMD...    run CMD in the background, its stdout to FILE
#                            and its exit status to FILE.rc: streams that
#                            run at once (then `wait`)
#   tap_replay FILE          as tap_stream's CMD: FILE's stream, ending with
#                            the exit status tap_start saved (none saved:
#                            a failure)
#   kernel_reports [FILE...] the lines of FILE (or stdin), a kernel log,
#                            that hold a kernel report: a marker of
#                            kernel-reports.h, the guests' own list; true
#                            when there is one
#   tap_console_clean NAME FILE
#                            a result of the script's own: ok when FILE, a
#                            Debian guest's console (scripts/debian-guest.sh
#                            boots with loglevel=5: every kernel message of
#                            warning level and worse), is there and shows
#                            no kernel report; else not ok, the reports
#                            shown, and tap_failed counts it
#
# Only top-level lines count: indented ones are subtests, comments are
# comments. A failing result with "# TODO" is an expected failure.
# shellcheck shell=bash

tap_stream() {
	local name=$1 status
	shift
	status=$(mktemp "${TMPDIR:-/tmp}/tap-stream.XXXXXX")
	# The status is written before CMD's end of output reaches the reader.
	{ "$@"; echo $? > "$status"; } | tap_account "$name" "$status"
	rm -f "$status"
}

# tap_account NAME STATUS_FILE: the reading side of tap_stream.
tap_account() {
	local name=$1 line plans=0 planned=0 results=0 failing=0 rc
	while IFS= read -r line; do
		case $line in
		'ok '[0-9]*)
			results=$((results + 1))
			;;
		'not ok '[0-9]*)
			results=$((results + 1))
			[[ $line == *'# TODO'* ]] || failing=$((failing + 1))
			;;
		1..[0-9]*)
			plans=$((plans + 1))
			planned=${line#1..}
			planned=${planned%%[!0-9]*}
			line="# $name: plan $line"
			;;
		esac
		printf '%s\n' "$line"
	done
	rc=$(cat "$2")
	if [ "$plans" -ne 1 ]; then
		echo "not ok 1 $name # $plans plans in its output"
	elif [ "$results" -ne "$planned" ]; then
		echo "not ok 1 $name # plan 1..$planned but $results results:" \
			"a verdict was lost, cut or doubled"
	fi
	if [ "${rc:-1}" -ne 0 ] && [ "$failing" -eq 0 ]; then
		echo "not ok 1 $name # exit status ${rc:-unknown} with no failing result"
	fi
}

tap_adds_up() {
	local line plans=0 planned=-1 results=0
	while IFS= read -r line; do
		case $line in
		'ok '[0-9]*|'not ok '[0-9]*) results=$((results + 1)) ;;
		1..[0-9]*)
			plans=$((plans + 1))
			planned=${line#1..}
			planned=${planned%%[!0-9]*}
			;;
		esac
	done
	[ "$plans" -eq 1 ] && [ "$results" -eq "$planned" ]
}

tap_start() {
	local file=$1
	shift
	rm -f "$file.rc"
	{ "$@" > "$file"; echo $? > "$file.rc"; } &
}

tap_replay() {
	local rc
	cat "$1"
	rc=$(cat "$1.rc" 2>/dev/null)
	return "${rc:-1}"
}

tap_n=0

tap_ok() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n $1"
}

# tap_check NAME CMD...: one result, numbered on from tap_n; on
# failure CMD's output (its last 30 lines) as comments before it, and
# tap_failed counts it.
tap_failed=0
tap_check() {
	local name=$1 log
	shift
	log=$(mktemp "${TMPDIR:-/tmp}/tap-check.XXXXXX")
	tap_n=$((tap_n + 1))
	if "$@" > "$log" 2>&1; then
		echo "ok $tap_n $name"
	else
		tap_failed=$((tap_failed + 1))
		sed 's/^/# /' "$log" | tail -n 30
		echo "not ok $tap_n $name"
	fi
	rm -f "$log"
}

tap_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

kernel_reports() {
	local markers

	# The string literals of the list, its comments left out.
	markers=$(sed -e 's,/\*.*\*/,,g' -e '/^[[:space:]]*\/\{0,1\}\*/d' \
		"$tap_lib_dir/kernel-reports.h" | grep -o '"[^"]*"' |
		sed 's/^"//; s/"$//')
	[ -n "$markers" ] || {
		echo "kernel_reports: no marker in $tap_lib_dir/kernel-reports.h" >&2
		return 2
	}
	grep -F -e "$markers" "$@"
}

tap_console_clean() {
	local reports

	tap_n=$((tap_n + 1))
	if [ ! -s "$2" ]; then
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $1 # no console: $2"
		return 1
	fi
	# The kernel's lines only, by their time stamp: the guest's services
	# write there too, sometimes on the same line.
	reports=$(grep -E '\[ *[0-9]+\.[0-9]+\] ' "$2" | kernel_reports -)
	if [ $? -gt 1 ]; then
		tap_failed=$((tap_failed + 1))
		echo "not ok $tap_n $1 # the list of kernel reports is unreadable"
		return 1
	fi
	if [ -n "$reports" ]; then
		tap_failed=$((tap_failed + 1))
		printf '%s\n' "$reports" | head -n 40 | sed 's/^/# /'
		echo "not ok $tap_n $1"
		return 1
	fi
	echo "ok $tap_n $1"
}

tap_fail() {
	sed 's/^/    # /' "$2" | tail -n 60
	tap_n=$((tap_n + 1))
	echo "not ok $tap_n $1"
	echo "1..$tap_n"
	exit 1
}

# tap_list_file NAME: the suite's list NAME (00-smoke), in its area's
# folder (tests/smoke/00-smoke.list); a path that does not exist when no
# area has it.
tap_list_file() {
	local f
	for f in "$TOP"/tests/*/"$1".list; do
		[ -f "$f" ] && break
	done
	printf '%s\n' "$f"
}

# tap_suite_lists: every area's list of the guest suite, in name order
# (00-smoke first), whatever the area's folder.
tap_suite_lists() {
	local f
	for f in "$TOP"/tests/*/[0-9][0-9]-*.list; do
		printf '%s %s\n' "${f##*/}" "$f"
	done | sort | cut -d' ' -f2-
}

tap_lists() {
	local out=$1 l f
	shift
	: > "$out"
	for l in "$@"; do
		case $l in
		*/*) f=$TOP/$l ;;
		*) f=$(tap_list_file "$l") ;;
		esac
		if [ ! -f "$f" ]; then
			echo "no list $f" > "$out.log"
			tap_fail "${tap_prefix:-}:every_list_exists" "$out.log"
		fi
		cat "$f" >> "$out"
	done
}
