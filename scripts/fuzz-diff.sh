#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Differential fuzzing, ours against stock: one guest boot runs
# tests/fuzz/fuzz_diff, which runs every seed on both modules (it swaps
# configfs under the mount), compares, and shrinks each differing seed to
# a minimal reproducer of shell commands. A third of the seeds mix
# operations as root and as uid 1000. Then CONC concurrent seeds, PROCS
# processes at once on one tree, each checked on both modules for what
# must hold whatever the interleaving. TAP on stdout, with the number of
# operations run and how often each rule of docs/differences.md fired.
#
# Usage: fuzz-diff.sh [SEEDS [FIRST [NOPS [SHRINK [OFF]]]]]  (200 0 60 3)
# OFF: "off=ROW,..." turns those rules off (to show a rule is needed).
# Environment: the top Makefile's (TOP, BUILD, KIMG, KVER); FUZZ_OUT the
# work directory; CONC (0) concurrent seeds from FIRST, PROCS (4)
# processes of NOPS operations each; KERNEL, APPEND, TIMEOUT_SCALE as
# guest-suite.sh takes.
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"
seeds=${1:-200} first=${2:-0} nops=${3:-60} shrink=${4:-3} off=${5:-}
conc=${CONC:-0} procs=${PROCS:-4}
out=${FUZZ_OUT:-$BUILD/fuzz}
rm -rf "$out"
mkdir -p "$out"
# The list must live in the tree (run.sh and init read it); removed after.
list=$TOP/tests/harness/zz-fuzz-$$.list
trap 'rm -f "$list"' EXIT
# One process runs the job; concurrent seeds run on two CPUs.
export QEMU_SMP=${QEMU_SMP:-$((conc > 0 ? 2 : 1))}

# One run of fuzz_diff per chunk of about 24,000 operations a module:
# ours logs a rate-limited line per failed call (docs/differences.md row
# 21), and the kernel log must hold a run's lines until init scans them.
chunk=$((24000 / nops))
[ "$chunk" -ge 1 ] || chunk=1
: > "$out/fuzz.job"
: > "$list"
for ((s = first; s < first + seeds; s += chunk)); do
	n=$((first + seeds - s < chunk ? first + seeds - s : chunk))
	echo "seeds $s $n $nops $shrink $off" >> "$out/fuzz.job"
	# Under TCG a seed of 60 operations takes about 0.4 s on each
	# module; shrinking a seed takes up to a few hundred runs of it.
	echo "fuzz_diff $((n * nops / 60 + shrink * nops * 4 + 120))" >> "$list"
done
chunk=$((24000 / (nops * procs)))
[ "$chunk" -ge 1 ] || chunk=1
for ((s = first; s < first + conc; s += chunk)); do
	n=$((first + conc - s < chunk ? first + conc - s : chunk))
	echo "conc $s $n $nops $procs" >> "$out/fuzz.job"
	# A concurrent seed takes about as long as its operations would
	# one after the other, plus a reload of configfs on each module.
	echo "fuzz_diff $((n * procs * nops / 30 + n * 4 + 120))" >> "$list"
done
echo "file /tests/fuzz.job $out/fuzz.job 0644" > "$out/initramfs.list"
EXTRA_LIST=$out/initramfs.list "$TOP/tests/harness/guest-suite.sh" ours "$list" \
	"$out/guest" | tee "$out/fuzz.tap"
rc=${PIPESTATUS[0]}
echo "# summary:"
sed -n 's/^ *# fz \(ops\|rule\|seeds that\|conc ops\|conc rule\|user ops\)/#   \1/p' \
	"$out/fuzz.tap" |
	awk '$2 == "ops" { ops[$3] += $4; next }
	     $2 == "user" { uops[$4] += $5; uden[$4] += $7; next }
	     $2 == "conc" && $3 == "rule" { $2 = "rule"; $3 = $4; $4 = $5
					   $5 = $6; $6 = $7 }
	     $2 == "conc" { cops[$4] += $5; cbad[$4] += $7; ct[$4] += $9
			    next }
	     $2 == "rule" { k = $3 " " $4 " " $5; if (!(k in r)) o[n++] = k
			    r[k] += $6; next }
	     $2 == "seeds" { d += $5; t += $7; next }
	     END { for (m in ops) print "#   operations on " m ": " ops[m]
		   for (m in uops) print "#   of them as uid 1000 on " m \
			": " uops[m] ", refused (EACCES, EPERM): " uden[m]
		   for (i = 0; i < n; i++) print "#   rule " o[i] ": " r[o[i]]
		   if (t) print "#   seeds that differ: " d " of " t
		   for (m in cops) print "#   concurrent operations on " m \
			": " cops[m] ", seeds that break a property: " \
			cbad[m] " of " ct[m] }'
exit "$rc"
