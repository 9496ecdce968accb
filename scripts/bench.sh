#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: one guest boot measures stock configfs.ko, ours and tmpfs,
# in interleaved rounds (bench/run-in-guest.sh), then turns the rows into
# build/bench/results.csv, summary.md (ratios, printed at the end) and
# mkdir.png. See bench/README.md.
#
# Environment: TOP, BUILD, KIMG, KVER (from make); QUICK=1 for the reduced
# set. Overrides: BENCH_ROUNDS, BENCH_NS, BENCH_MEM_N, BENCH_TREES_N,
# BENCH_BUDGET (seconds of mkdir per items run before it stops early),
# BENCH_PAIRED_ONLY=1 (only ours's paired runs: a change tried in minutes),
# BENCH_TWIN_N (items of the sysfs twin), BENCH_OUT (where the results go:
# build/bench, or build/bench-quick with QUICK, so that a quick run keeps
# the last full one), MODULE_KO (our module; a missing one is skipped),
# SAMPLES_DIR, TESTMODS_DIR, BENCH_GUEST (the guest script:
# bench/million-in-guest.sh runs ours alone at a large N; give it
# QEMU_MEM).
set -eu
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"

out=${BENCH_OUT:-$BUILD/bench${QUICK:+-quick}}
export BENCH_OUT=$out	# bench/initramfs.list takes the config from there
mkdir -p "$out"
rm -f "$out"/results.csv "$out"/summary.md "$out"/mkdir.png "$out"/*.dat

if [ -n "${QUICK:-}" ]; then
	rounds=3 ns="1000 5000" mem_n=1000 trees_n=300 budget=60 tmo=1500
	twin_n=1000 cursors=1000
else
	rounds=3 ns="1000 10000 100000" mem_n=10000 trees_n=2000 budget=300
	tmo=21600 twin_n=10000 cursors=10000
fi
rounds=${BENCH_ROUNDS:-$rounds}
ns=${BENCH_NS:-$ns}
mem_n=${BENCH_MEM_N:-$mem_n}
trees_n=${BENCH_TREES_N:-$trees_n}
budget=${BENCH_BUDGET:-$budget}
twin_n=${BENCH_TWIN_N:-$twin_n}
cursors=${BENCH_CURSORS:-$cursors}

: "${MODULE_KO:=$TOP/module/configfs.ko}" "${SAMPLES_DIR:=$BUILD/samples}"
: "${TESTMODS_DIR:=$BUILD/testmods}"
if [ "$MODULE_KO" != /dev/null ] && [ ! -f "$MODULE_KO" ]; then
	echo "bench: $MODULE_KO is missing; ours will be skipped" >&2
	MODULE_KO=/dev/null
fi
if [ ! -f "$TESTMODS_DIR/cng_bench.ko" ]; then
	echo "bench: $TESTMODS_DIR/cng_bench.ko is missing (make testmods)" >&2
	exit 1
fi
export MODULE_KO SAMPLES_DIR TESTMODS_DIR

gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$out/cng_bench_driver" "$TOP/bench/cng_bench_driver.c"

cat > "$out/config" <<EOF
ROUNDS=$rounds
NS="$ns"
MEM_N=$mem_n
MEM_ATTRS="0 8 32"
TREES_N=$trees_n
CHILDREN=4
BUDGET=$budget
SYSFS_N=1000
SYSFS_FILE=/sys/kernel/uevent_seqnum
SYSFS_DEEP_FILE=/sys/devices/system/cpu/cpu0/topology/core_id
TWIN_N=$twin_n
CURSORS=$cursors
CURSORS_N=1000
PAIRED_ONLY=${BENCH_PAIRED_ONLY:-}
EOF
echo "${BENCH_GUEST:-bench/run-in-guest.sh} $tmo" > "$out/bench.list"

echo "bench: building the initramfs" >&2
LIST=$out/bench.list EXTRA_LIST=$TOP/bench/initramfs.list \
	"$TOP/tests/harness/mkinitramfs.sh" "$out/initramfs.cpio.gz"

# Benchmarks run without the debugging allocator of the test suite: it
# changes both the times and the sizes. slab_nomerge keeps each cache on
# its own line of /proc/slabinfo.
# shellcheck source=scripts/host-load.sh
. "$TOP/scripts/host-load.sh"
host_load_mark
t0=$(date +%s)
echo "bench: booting (rounds=$rounds, N=$ns)" >&2
rm -rf "$out/run"
"$TOP/tests/harness/run.sh" --kernel "$KIMG/boot/vmlinuz-$KVER" \
	--initrd "$out/initramfs.cpio.gz" --list "$out/bench.list" \
	--configfs stock --out "$out/run" --label "bench:" \
	--append "slub_debug=- page_poison=0 init_on_free=0 slab_nomerge" |
	tee "$out/run.tap" | grep --line-buffered -v -e 'csv' -e ' ;$' || true
echo "bench: guest run took $(( $(date +%s) - t0 )) s" >&2

# Rows are "# csv: ROW ;" lines, indented by init. init's forwarding may
# cut a long burst of output into two lines; join them again.
{
	echo "system,round,test,n,attrs,metric,x,value"
	awk '{ sub(/^    /, "") }
	pending != "" { $0 = pending $0; pending = "" }
	/^# csv: / && !/ ;$/ { pending = $0; next }
	length($0) < 7 && index("# csv: ", $0) == 1 { pending = $0; next }
	/^# csv: .* ;$/ { sub(/^# csv: /, ""); sub(/ ;$/, ""); print }' \
		"$out/run.tap"
} > "$out/results.csv"
if [ "$(wc -l < "$out/results.csv")" -le 1 ]; then
	echo "bench: the guest reported no figures; see $out/run" >&2
	exit 1
fi

awk -F, -f "$TOP/bench/summarize.awk" -v plotdir="$out" \
	"$out/results.csv" > "$out/summary.md"
{ echo; host_load_line; } >> "$out/summary.md"

if command -v gnuplot > /dev/null; then
	gnuplot -e "dir='$out'" "$TOP/bench/mkdir.gp" ||
		echo "bench: gnuplot failed; no plot" >&2
else
	echo "bench: no gnuplot (apt-get install gnuplot-nox); no plot" >&2
fi

cat "$out/summary.md"
echo
echo "bench: $out/results.csv, $out/summary.md, $out/mkdir.png"
grep -q '^not ok' "$out/run.tap" && exit 1
exit 0
