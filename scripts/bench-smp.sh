#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-smp`: how configfs scales from one process to two on a
# guest of QEMU_SMP vCPUs (2), in one boot (bench/smp-in-guest.sh): stock,
# ours and tmpfs, the two processes in one directory, in two directories
# of one subsystem and in two subsystems. Writes build/bench-smp/
# results.csv and summary.md: per phase, the throughput of two processes
# over one's, the median over the rounds and their spread.
#
# TCG runs each vCPU on a host thread: a host with fewer free cores than
# vCPUs measures the host. Run it on a quiet host.
#
# Environment: TOP, BUILD, KIMG, KVER (from make). Overrides: SMP_N
# (items per process, 2000), SMP_CYCLES (the phases repeated, 5: one
# cycle of 2,000 stats lasts tens of milliseconds), SMP_ROUNDS (5),
# QEMU_SMP (2), BENCH_OUT.
set -eu
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"

out=${BENCH_OUT:-$BUILD/bench-smp}
mkdir -p "$out"
rm -f "$out/results.csv" "$out/summary.md"
export QEMU_SMP=${QEMU_SMP:-2}
: "${MODULE_KO:=$TOP/module/configfs.ko}" "${TESTMODS_DIR:=$BUILD/testmods}"
export MODULE_KO TESTMODS_DIR

gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$out/cng_bench_smp" "$TOP/bench/cng_bench_smp.c"
cat > "$out/config" <<CFG
ROUNDS=${SMP_ROUNDS:-5}
SMP_N=${SMP_N:-2000}
SMP_CYCLES=${SMP_CYCLES:-5}
CFG
cat > "$out/initramfs.list" <<LIST
dir /tests/bench
file /tests/bench/config $out/config 0644
file /tests/bench/smp-in-guest.sh $TOP/bench/smp-in-guest.sh 0755
file /tests/bench/lib.sh $TOP/bench/lib.sh 0644
file /tests/bin/cng_bench_smp $out/cng_bench_smp 0755
LIST
echo "bench/smp-in-guest.sh 7200" > "$out/smp.list"

LIST=$out/smp.list EXTRA_LIST=$out/initramfs.list \
	"$TOP/tests/harness/mkinitramfs.sh" "$out/initramfs.cpio.gz"
# shellcheck source=scripts/host-load.sh
. "$TOP/scripts/host-load.sh"
host_load_mark
t0=$(date +%s)
rm -rf "$out/run"
"$TOP/tests/harness/run.sh" --kernel "$KIMG/boot/vmlinuz-$KVER" \
	--initrd "$out/initramfs.cpio.gz" --list "$out/smp.list" \
	--configfs stock --out "$out/run" --label "smp:" \
	--append "slub_debug=- page_poison=0 init_on_free=0" |
	tee "$out/run.tap" | grep --line-buffered -v 'csv' || true
echo "bench-smp: guest run took $(( $(date +%s) - t0 )) s" >&2

{
	echo "system,round,test,n,attrs,metric,x,value"
	sed -n 's/^ *# csv: \(.*\) ;$/\1/p' "$out/run.tap"
} > "$out/results.csv"
if [ "$(wc -l < "$out/results.csv")" -le 1 ]; then
	echo "bench-smp: the guest reported no figures; see $out/run" >&2
	exit 1
fi

# Per system, place and phase: the round's two-process throughput over
# its one-process throughput; median and range over the rounds.
awk -F, -v smp="$QEMU_SMP" '
NR == 1 { next }
$6 ~ /_oncpu_x1000$|_cpu_ns$/ {
	# Where the time went: the medians of its own table, below.
	m = $6; sub(/_oncpu_x1000$|_cpu_ns$/, "", m)
	kind = $6 ~ /_cpu_ns$/ ? "cpu" : "oncpu"
	ck = $1 SUBSEP $3 SUBSEP m SUBSEP $7
	cv[ck, kind, ++cn[ck, kind]] = $8
	next
}
{
	key = $1 SUBSEP $3 SUBSEP $6
	v[key, $2, $7] = $8
	if (!(key in seen)) { seen[key] = 1; keys[++nk] = key }
	if ($2 > rounds) rounds = $2
}
function sort(a, n,    i, j, t) {
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) {
			t = a[j]; a[j] = a[j - 1]; a[j - 1] = t
		}
}
function median(a, n) {
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# cmedian(KEY, KIND): the median over the rounds of cv[KEY, KIND, *]
function cmedian(k, kind,    a, i, n) {
	n = cn[k, kind]
	if (!n) return -1
	for (i = 1; i <= n; i++) a[i] = cv[k, kind, i]
	sort(a, n)
	return median(a, n)
}
END {
	printf "# Two processes over one, %d vCPUs\n\n", smp
	print "Throughput of two processes at once over one alone (2.00:"
	print "twice the work in the same time); median of the rounds, then"
	print "the lowest and highest round. ops/s: one process, median.\n"
	print "| system | place | phase | 1 process, ops/s | 2 over 1 | range |"
	print "|---|---|---|---:|---:|---|"
	for (i = 1; i <= nk; i++) {
		split(keys[i], f, SUBSEP)
		sp = f[1] SUBSEP f[2] SUBSEP "spin"
		n = 0; m = 0; ns = 0
		for (r = 1; r <= rounds; r++) {
			one = v[keys[i], r, 1]; two = v[keys[i], r, 2]
			if (one == "" || two == "" || one == 0) continue
			ratio[++n] = two / one
			single[++m] = one
			# Over the spin phase of the same runs: what the host
			# gave the two vCPUs then, taken out.
			s1 = v[sp, r, 1]; s2 = v[sp, r, 2]
			if (s1 != "" && s2 != "" && s1 && s2)
				nratio[++ns] = (two / one) / (s2 / s1)
		}
		if (!n) continue
		sort(ratio, n); sort(single, m)
		med[keys[i]] = median(ratio, n)
		if (ns) {
			sort(nratio, ns)
			nmed[keys[i]] = median(nratio, ns)
		}
		printf "| %s | %s | %s | %.0f | %.2f | %.2f-%.2f |\n", f[1], \
			substr(f[2], 5), f[3], median(single, m), med[keys[i]], \
			ratio[1], ratio[n]
	}
	print "\n## Ours against stock\n"
	print "Ours'"'"'s scaling over stock'"'"'s (1.00: the same; below: ours"
	print "scales worse). over spin: each round'"'"'s 2/1 over the 2/1 of the"
	print "spin phase of the same run (user space only: what the host gave"
	print "the two vCPUs then), median of the rounds.\n"
	print "| place | phase | ours 2/1 | stock 2/1 | ours over stock | ours over spin | stock over spin | ours over stock, over spin |"
	print "|---|---|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nk; i++) {
		split(keys[i], f, SUBSEP)
		if (f[1] != "ours" || f[3] == "spin") continue
		sk = "stock" SUBSEP f[2] SUBSEP f[3]
		if (!(sk in med) || !(keys[i] in med)) continue
		printf "| %s | %s | %.2f | %.2f | %.2f |", substr(f[2], 5), \
			f[3], med[keys[i]], med[sk], med[keys[i]] / med[sk]
		if ((keys[i] in nmed) && (sk in nmed))
			printf " %.2f | %.2f | %.2f |\n", nmed[keys[i]], \
				nmed[sk], nmed[keys[i]] / nmed[sk]
		else
			printf " - | - | - |\n"
	}
	print "\n## Where the time went\n"
	print "On CPU: the processes'"'"' CPU time (user and system) over their"
	print "own wall time of the phase (1.00: never off the CPU: not"
	print "waiting for a lock, for I/O or for a vCPU); CPU us: CPU time"
	print "per operation. Medians of the rounds; P: processes.\n"
	print "| place | phase | P | ours on CPU | stock on CPU | ours CPU us | stock CPU us | ours over stock, CPU |"
	print "|---|---|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= nk; i++) {
		split(keys[i], f, SUBSEP)
		if (f[1] != "ours") continue
		for (p = 1; p <= 2; p++) {
			ok = "ours" SUBSEP f[2] SUBSEP f[3] SUBSEP p
			sk = "stock" SUBSEP f[2] SUBSEP f[3] SUBSEP p
			oo = cmedian(ok, "oncpu"); so = cmedian(sk, "oncpu")
			oc = cmedian(ok, "cpu"); sc = cmedian(sk, "cpu")
			if (oo < 0 || so < 0 || oc < 0 || sc <= 0) continue
			printf "| %s | %s | %d | %.2f | %.2f | %.1f | %.1f | %.2f |\n", \
				substr(f[2], 5), f[3], p, oo / 1000, so / 1000, \
				oc / 1000, sc / 1000, oc / sc
		}
	}
}' "$out/results.csv" > "$out/summary.md"
{ echo; host_load_line; } >> "$out/summary.md"

cat "$out/summary.md"
echo
echo "bench-smp: $out/results.csv, $out/summary.md"
grep -q '^not ok' "$out/run.tap" && exit 1
exit 0
