#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential fuzzing, ours against stock: tests/guest/fuzz_diff runs the
# same seeds in two guests, one per module (a module is chosen per boot),
# and this script compares the digests of their outcome lines. A seed whose
# digests differ is shrunk by delta debugging on its operation list, every
# candidate run on both modules, to a minimal sequence printed as shell
# commands with the lines that differ. TAP on stdout.
#
# Usage: fuzz-diff.sh [SEEDS [FIRST [NOPS]]]   (default 200 0 60)
# Environment: the top Makefile's (TOP, BUILD, KIMG, KVER); SHRINK=N
# shrinks at most N mismatching seeds (default 3); FUZZ_OUT the work dir.
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"
seeds=${1:-200} first=${2:-0} nops=${3:-60}
shrink_max=${SHRINK:-3}
out=${FUZZ_OUT:-$BUILD/fuzz}
rm -rf "$out"
mkdir -p "$out"
list=$TOP/tests/qemu/zz-fuzz-$$.list
trap 'rm -f "$list"' EXIT
export QEMU_SMP=1	# one process: one CPU each, both guests at once

tests=0 failed=0
result() {	# result ok|fail NAME [REASON]
	tests=$((tests + 1))
	if [ "$1" = ok ]; then
		echo "ok $tests $2${3:+ # $3}"
	else
		failed=$((failed + 1))
		echo "not ok $tests $2${3:+ # $3}"
	fi
}

# guests NAME TIMEOUT: runs $out/NAME.job on both modules at once; each
# one's "fz" lines in $out/NAME-WHICH.fz. Fails when a guest did not
# finish the job cleanly (its TAP is then shown).
guests() {
	local name=$1 tmo=$2 which rc=0 pids=()
	echo "fuzz_diff $tmo" > "$list"
	echo "file /tests/fuzz.job $out/$name.job 0644" > "$out/$name.initramfs"
	for which in stock ours; do
		EXTRA_LIST=$out/$name.initramfs LABEL="$which:" \
			"$TOP/scripts/guest-suite.sh" "$which" "$list" \
			"$out/$name-$which" > "$out/$name-$which.tap" 2>&1 &
		pids+=($!)
	done
	for which in 0 1; do
		wait "${pids[$which]}" || rc=1
	done
	for which in stock ours; do
		sed -n 's/^ *# fz //p' "$out/$name-$which.tap" \
			> "$out/$name-$which.fz"
		if [ "$rc" -ne 0 ]; then
			echo "# $which guest of $name:"
			grep -v '# fz [LC] ' "$out/$name-$which.tap" |
				tail -n 40 | sed 's/^/#   /'
		fi
	done
	return "$rc"
}

# digest WHICH NAME KEY: the digest on a "S KEY" or "R KEY" line
digest() {
	awk -v k="$3" '($1 == "S" || $1 == "R") && $2 == k { print $NF }' \
		"$out/$2-$1.fz"
}

# shrink SEED: prints a minimal reproducer of the seed's mismatch.
shrink() {
	local seed=$1 cur n len i j k found cand round=0 start end
	local -a idx chunks
	echo "run full $seed $nops all verbose" > "$out/s$seed-0.job"
	guests "s$seed-0" $((nops / 2 + 120)) || return 1
	# The first differing line: later operations cannot matter.
	k=$(diff <(grep '^L full ' "$out/s$seed-0-stock.fz") \
		 <(grep '^L full ' "$out/s$seed-0-ours.fz") |
	    sed -n 's/^[<>] L full \([0-9]*\) .*/\1/p' | head -n 1)
	if [ -z "$k" ]; then
		echo "# seed $seed: the full logs agree; not reproducible"
		return 1
	fi
	cur=$(seq -s, 0 "$k")
	n=2
	while :; do
		IFS=, read -r -a idx <<< "$cur"
		len=${#idx[@]}
		[ "$len" -lt 2 ] && break
		[ "$n" -gt "$len" ] && n=$len
		round=$((round + 1))
		chunks=()
		for ((i = 0; i < n; i++)); do
			start=$((i * len / n)) end=$(((i + 1) * len / n))
			chunks+=("$(IFS=,; echo "${idx[*]:start:end-start}")")
		done
		: > "$out/s$seed-$round.job"
		for ((i = 0; i < n; i++)); do
			echo "run c$i $seed $nops ${chunks[i]}" \
				>> "$out/s$seed-$round.job"
			[ "$n" -gt 2 ] || continue
			cand=
			for ((j = 0; j < n; j++)); do
				[ "$j" -eq "$i" ] || cand=$cand${cand:+,}${chunks[j]}
			done
			echo "run x$i $seed $nops $cand" >> "$out/s$seed-$round.job"
		done
		guests "s$seed-$round" $((n * 2 * len / 2 + 120)) || return 1
		found=
		for ((i = 0; i < n; i++)); do
			if [ "$(digest stock "s$seed-$round" "c$i")" != \
			     "$(digest ours "s$seed-$round" "c$i")" ]; then
				cur=${chunks[i]} n=2 found=1
				break
			fi
		done
		if [ -z "$found" ] && [ "$n" -gt 2 ]; then
			for ((i = 0; i < n; i++)); do
				if [ "$(digest stock "s$seed-$round" "x$i")" != \
				     "$(digest ours "s$seed-$round" "x$i")" ]; then
					cand=$(grep "^run x$i " "$out/s$seed-$round.job" |
					       cut -d' ' -f5)
					cur=$cand n=$((n > 3 ? n - 1 : 2)) found=1
					break
				fi
			done
		fi
		if [ -z "$found" ]; then
			[ "$n" -ge "$len" ] && break
			n=$((n * 2))
		fi
	done
	echo "run min $seed $nops $cur verbose" > "$out/s$seed-min.job"
	guests "s$seed-min" 180 || return 1
	echo "# seed $seed: minimal sequence (ops $cur, $round rounds):"
	grep '^C min ' "$out/s$seed-min-ours.fz" | cut -d' ' -f4- |
		sed 's/^/#   /'
	echo "# lines that differ (stock <, ours >):"
	diff <(grep '^L min ' "$out/s$seed-min-stock.fz" | cut -d' ' -f3-) \
	     <(grep '^L min ' "$out/s$seed-min-ours.fz" | cut -d' ' -f3-) |
		grep '^[<>]' | sed 's/^/#   /'
}

echo "TAP version 13"
echo "# fuzz_diff: seeds $first..$((first + seeds - 1)), $nops operations each"
echo "seeds $first $seeds $nops" > "$out/campaign.job"
# Under TCG a seed of 60 operations takes well under a second.
if ! guests campaign $((seeds * nops / 40 + 120)); then
	result fail campaign_ran_on_both_modules
	echo "1..$tests"
	exit 1
fi
result ok campaign_ran_on_both_modules
ops=$(awk '$1 == "ops" { print $2 }' "$out/campaign-ours.fz")
echo "# operations run: $ops on each module"
echo "# rules fired (row name count), ours | stock:"
paste -d'|' <(awk '$1 == "rule" { print $2, $3, $4 }' "$out/campaign-ours.fz") \
	<(awk '$1 == "rule" { print " " $4 }' "$out/campaign-stock.fz") |
	sed 's/^/#   /'
mism=$(join <(awk '$1 == "S" { print $2, $4 }' "$out/campaign-stock.fz" | sort) \
	    <(awk '$1 == "S" { print $2, $4 }' "$out/campaign-ours.fz" | sort) |
       awk '$2 != $3 { print $1 }' | sort -n)
got=$(awk '$1 == "S"' "$out/campaign-ours.fz" | wc -l)
got_stock=$(awk '$1 == "S"' "$out/campaign-stock.fz" | wc -l)
if [ "$got" -ne "$seeds" ] || [ "$got_stock" -ne "$seeds" ]; then
	result fail every_seed_ran "ours $got, stock $got_stock of $seeds"
else
	result ok every_seed_ran
fi
nmism=$(printf '%s\n' $mism | sed '/^$/d' | wc -l)
echo "# seeds that differ: $nmism of $seeds${mism:+ ($(echo $mism | tr ' ' ,))}"
done_shrink=0
for seed in $mism; do
	[ "$done_shrink" -ge "$shrink_max" ] && break
	done_shrink=$((done_shrink + 1))
	if shrink "$seed"; then
		result fail "seed_${seed}_same_on_both_modules"
	else
		result fail "seed_${seed}_same_on_both_modules" "shrinking failed"
	fi
done
[ "$nmism" -gt "$done_shrink" ] &&
	result fail remaining_seeds_same_on_both_modules \
		"$((nmism - done_shrink)) more seeds differ, not shrunk"
[ "$nmism" -eq 0 ] && result ok every_seed_same_on_both_modules
echo "1..$tests"
[ "$failed" -eq 0 ]
