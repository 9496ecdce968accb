#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-perf`: one guest boot samples with perf where the time of
# mkdir goes on ours, tmpfs (and stock), and with PERF_READS=1 that of
# warm attribute reads on ours against a sysfs file as deep
# (bench/perf-in-guest.sh); prints, per pair of systems, the symbols by
# how many more samples ours took. perf comes from Debian's linux-perf
# (installed if missing), with its libraries copied into the initramfs.
#
# Environment: TOP, BUILD, KIMG, KVER (from make). Overrides: PERF_N
# (directories already there, default 10000), PERF_OPS (sampled mkdirs,
# default 10000), PERF_SYSTEMS (default "ours tmpfs"), PERF_READS,
# PERF_STATS (stats cold and warm: give PERF_SYSTEMS="ours stock"),
# PERF_RMDIR (the rmdir of PERF_N items whose attribute was read, so
# whose attribute dentries and inodes are cached: give
# PERF_SYSTEMS="ours stock"), PERF_TWO (two processes at once, each in
# its own subsystem, stat PERF_N items after drop_caches, then remove
# them: what the two spend on a lock they share, on the guest's 2
# vCPUs),
# PERF_TOP (rows per table, default 40), PERF_CALLERS (symbols whose
# callers to print).
set -eu
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"

out=$BUILD/bench-perf
mkdir -p "$out"
if ! command -v perf > /dev/null; then
	apt-get install -y -q linux-perf > /dev/null
fi
perf=$(command -v perf)

gcc -std=gnu11 -O2 -Wall -Wextra -Werror -static \
	-o "$out/cng_bench_reader" "$TOP/bench/cng_bench_reader.c"
cat > "$out/config" <<CFG
PERF_N=${PERF_N:-10000}
PERF_OPS=${PERF_OPS:-10000}
PERF_SYSTEMS="${PERF_SYSTEMS:-ours tmpfs}"
PERF_READS=${PERF_READS:-}
PERF_STATS=${PERF_STATS:-}
PERF_RMDIR=${PERF_RMDIR:-}
PERF_TWO=${PERF_TWO:-}
PERF_CALLERS="${PERF_CALLERS:-}"
SYSFS_DEEP_FILE=/sys/devices/system/cpu/cpu0/topology/core_id
CFG
{
	echo "dir /tests/bench"
	echo "file /tests/bench/config $out/config 0644"
	echo "file /tests/bench/perf-in-guest.sh $TOP/bench/perf-in-guest.sh 0755"
	echo "file /tests/bench/lib.sh $TOP/bench/lib.sh 0644"
	echo "file /tests/bin/cng_bench_reader $out/cng_bench_reader 0755"
	echo "file /usr/bin/perf $perf 0755"
	# perf is dynamic: its loader and libraries, where it looks for them.
	ldd "$perf" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' |
		while read -r lib; do
			echo "file $lib $(readlink -f "$lib") 0755"
		done
} > "$out/initramfs.list"
echo "bench/perf-in-guest.sh 3600" > "$out/perf.list"

LIST=$out/perf.list EXTRA_LIST=$out/initramfs.list \
	"$TOP/tests/harness/mkinitramfs.sh" "$out/initramfs.cpio.gz"
"$TOP/tests/harness/run.sh" --kernel "$KIMG/boot/vmlinuz-$KVER" \
	--initrd "$out/initramfs.cpio.gz" --list "$out/perf.list" \
	--configfs ours --out "$out/run" --label "perf:" \
	--append "slub_debug=- page_poison=0 init_on_free=0" > "$out/run.tap"

# "# LABEL SAMPLES SYMBOL" lines; the idle loop is no one's cost.
sed -n 's/^ *# \([a-z]*-[a-z]*\) \([0-9][0-9]*\) \(.*\)$/\1 \2 \3/p' \
	"$out/run.tap" | grep -v -e ' native_safe_halt$' -e ' default_idle' \
	> "$out/samples.txt" || true
# compare A B: the symbols by samples of A minus samples of B.
compare() {
	local totals
	totals=$(awk -v a="$1" -v b="$2" '$1 == a { ta += $2 } $1 == b { tb += $2 }
		END { if (ta && tb) printf "%d %d %.2f", ta, tb, ta / tb }' \
		"$out/samples.txt")
	[ -n "$totals" ] || return 0
	set -- "$1" "$2" $totals
	printf '\n%s against %s: %s samples against %s (%s)\n\n' "$@"
	printf '| %s | %s | more | symbol |\n|---:|---:|---:|---|\n' "$1" "$2"
	awk -v a="$1" -v b="$2" '$1 == a { s[$3] += $2 }
		$1 == b { r[$3] += $2; s[$3] += 0 }
		END { for (k in s) print s[k] - r[k], s[k], r[k] + 0, k }' \
		"$out/samples.txt" | sort -rn | head -"${PERF_TOP:-40}" |
		awk '{ printf "| %d | %d | %d | %s |\n", $2, $3, $1, $4 }'
}
{
	compare ours-mkdir tmpfs-mkdir
	compare ours-mkdir stock-mkdir
	compare ours-read sysfs-read
	compare ours-statcold stock-statcold
	compare ours-statwarm stock-statwarm
	compare ours-rmdir stock-rmdir
	compare ours-statcoldtwo stock-statcoldtwo
	compare ours-rmdirtwo stock-rmdirtwo
} | tee "$out/summary.md"
grep '# callers' "$out/run.tap" | sed 's/^ *//' || true
grep -q '^not ok' "$out/run.tap" && exit 1
exit 0
