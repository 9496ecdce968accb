#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Judge the guest suites' TAP against the results that are expected not
# to pass (tests/harness/expected.list, which says how). A filter: TAP in,
# the same TAP out, line for line, with only these verdicts rewritten:
#
#   ok N L:T # SKIP R     not listed: "not ok N L:T # unexpected SKIP: R"
#   ok N L:T              a case inside it skipped other than as an
#                         expected difference on stock: "not ok N L:T #
#                         a case skipped: CASE"; listed as xfail:
#                         "not ok N L:T # expected failure did not
#                         happen: WHY"
#   not ok N L:T # R      listed as xfail, and it is that failure:
#                         "not ok N L:T # TODO expected failure: WHY";
#                         another failure keeps its line, WHY appended
#
# L is the run's label (ours, stock, debug-ours, debug-stock, k6.12-ours,
# k6.12-stock, arm64-6.1-ours, arm64-6.1-stock), T the test.
# A test's lines are those between run.sh's "# L:T" header and its
# verdict.
#
# Usage: tap-judge.sh [EXPECTED_LIST]
set -u

here=$(cd "$(dirname "$0")" && pwd)
list=${1:-$here/expected.list}

# The entries, in parallel arrays.
kinds=() tests=() ons=() reports=() involves=() traces=() whys=()

load() {
	local key val e=-1
	while IFS= read -r line; do
		case $line in
		''|'#'*) continue ;;
		skip' '*|xfail' '*)
			e=$((e + 1))
			kinds[e]=${line%% *}
			tests[e]=${line#* }
			ons[e]='' reports[e]='' involves[e]=''
			traces[e]=1 whys[e]=''
			continue
			;;
		[[:space:]]*) ;;
		*) echo "tap-judge: $list: bad line: $line" >&2; return 1 ;;
		esac
		[ "$e" -ge 0 ] ||
			{ echo "tap-judge: $list: no entry for: $line" >&2; return 1; }
		line=${line#"${line%%[![:space:]]*}"}
		key=${line%% *}
		val=${line#* }
		case $key in
		on) ons[e]+=" $val " ;;
		report) reports[e]=$val ;;
		involves) involves[e]+="$val"$'\n' ;;
		traces) traces[e]=$val ;;
		why) whys[e]+="${whys[e]:+ }$val" ;;
		*) echo "tap-judge: $list: unknown key: $key" >&2; return 1 ;;
		esac
	done < "$list"
}

# entry LABEL TEST KIND: the index of the matching entry, or nothing.
entry() {
	local i
	for i in "${!kinds[@]}"; do
		[ "${kinds[i]}" = "$3" ] && [ "${tests[i]}" = "$2" ] &&
			[[ ${ons[i]} == *" $1 "* ]] && { echo "$i"; return; }
	done
}

# The running test's lines: all of them, the marked ones, its failing
# cases and its first case skipped in a way no list allows.
body='' marked='' failing=0 badskip=''

reset() {
	body='' marked='' failing=0 badskip=''
}

# is_xfail E REASON: the test's failure is exactly the one entry E says.
is_xfail() {
	local e=$1 line re seen='' stacks=0
	[ "$2" = "kernel log reports a bug" ] || return 1
	[ "$failing" -eq 0 ] || return 1
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		if [[ $line =~ ${reports[e]} ]]; then
			seen=1
		elif [[ $line == 'Call Trace:' || $line == 'Call trace:' ]]; then
			# x86's and arm64's spelling
			stacks=$((stacks + 1))
		elif ! [[ $line =~ ^RIP:\  ]]; then
			return 1
		fi
	done <<< "$marked"
	[ -n "$seen" ] && [ "$stacks" -eq "${traces[e]}" ] || return 1
	while IFS= read -r re; do
		[ -n "$re" ] || continue
		grep -Eq -- "$re" <<< "$body" || return 1
	done <<< "${involves[e]}"
}

judge() {
	local line rest stock
	while IFS= read -r line; do
		if [[ $line =~ ^#\ ([a-z0-9.-]+):[^\ ]+$ ]]; then
			# run.sh names the test that starts.
			reset
			label_now=${BASH_REMATCH[1]}
		elif [[ $line == ' '* ]]; then
			body+="$line"$'\n'
			if [[ $line =~ ^\ +#\ \>\>\>\ (.*)$ ]]; then
				marked+="${BASH_REMATCH[1]}"$'\n'
			elif [[ $line =~ ^\ +not\ ok\ [0-9]+ ]] &&
			     [[ $line != *'# TODO'* ]]; then
				failing=$((failing + 1))
			elif [[ $line =~ ^\ +ok\ [0-9]+\ .*\#\ SKIP(.*)$ ]] &&
			     [ -z "$badskip" ]; then
				rest=${BASH_REMATCH[1]# }
				stock=
				[[ $line == '    ok '* ]] &&
					[[ $label_now == stock || $label_now == *-stock ]] &&
					[[ $rest == 'expected to differ on stock'* ]] &&
					stock=1
				[ -n "$stock" ] || badskip=${line#"${line%%[! ]*}"}
			fi
		elif [[ $line =~ ^(not\ )?ok\ [0-9]+\ ([a-z0-9.-]+):([^\ ]+)(\ \#\ (.*))?$ ]]; then
			line=$(verdict "$line" "${BASH_REMATCH[2]}" \
				"${BASH_REMATCH[3]}" "${BASH_REMATCH[5]}")
			reset
		fi
		printf '%s\n' "$line"
	done
}

# verdict LINE LABEL TEST REASON: LINE as judged.
verdict() {
	local line=$1 label=$2 test=$3 reason=$4 e head
	head=${line%% # *}
	if [[ $line == 'ok '* ]]; then
		if [[ $reason == SKIP* ]]; then
			e=$(entry "$label" "$test" skip)
			[ -n "$e" ] && { echo "$line"; return; }
			echo "not $head # unexpected SKIP:${reason#SKIP}"
			return
		fi
		e=$(entry "$label" "$test" xfail)
		if [ -n "$e" ]; then
			echo "not $head # expected failure did not happen: ${whys[e]}"
		elif [ -n "$badskip" ]; then
			echo "not $head # a case skipped: $badskip"
		else
			echo "$line"
		fi
		return
	fi
	e=$(entry "$label" "$test" xfail)
	if [ -z "$e" ] || [[ $reason == TODO* ]]; then
		echo "$line"
	elif is_xfail "$e" "$reason"; then
		echo "$head # TODO expected failure: ${whys[e]}"
	else
		echo "$line (not the expected failure: ${whys[e]})"
	fi
}

label_now=
if ! load; then
	# Unjudged, but not unseen: the run fails.
	echo "not ok 1 expected_list_reads # see tests/harness/expected.list"
	exec cat
fi
judge
