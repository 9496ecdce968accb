#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-fakenbd`: one guest boot measures fakenbd's disk against the
# kernel's own NBD client (nbd.ko with Debian's nbd-client), both on one
# export of nbd-server on loopback, with fio (bench/fakenbd-in-guest.sh),
# then turns the rows into build/bench-fakenbd/results.csv and summary.md
# (ratios fakenbd/nbd.ko, printed at the end). See bench/README.md.
#
# Environment: TOP, BUILD, KIMG, KVER (from make). Overrides:
# FNBD_BENCH_ROUNDS (3), FNBD_BENCH_RUNTIME (seconds of fio per case and
# client, after one of ramp: 5), FNBD_BENCH_SIZE_MB (the export: 256),
# FNBD_BENCH_CASES (NAME-RW-BS-qDEPTH words), FNBD_BENCH_CONNECTIONS
# (the connection counts each case runs at, a pair of disks each: "1
# 4"), FNBD_BENCH_MAX_SECTORS_KB (every disk's queue/max_sectors_kb:
# the request size, the same for both clients; 128 by default, nbd.ko's
# own; empty: each driver's default, 1 MiB for fakenbd),
# FNBD_BENCH_SCHEDULER (every disk's: mq-deadline), FNBD_BENCH_AA=1 (an
# A/A run: a second nbd.ko disk in fakenbd's place, to see how far two
# equal disks differ here), BENCH_OUT (where the results go:
# build/bench-fakenbd).
set -eu
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"

out=${BENCH_OUT:-$BUILD/bench-fakenbd}
export BENCH_OUT=$out	# bench/fakenbd.list takes the config from there
mkdir -p "$out"
rm -f "$out"/results.csv "$out"/summary.md

for prog in /usr/bin/fio /usr/sbin/nbd-client /usr/bin/nbd-server; do
	if [ ! -x "$prog" ]; then
		echo "bench-fakenbd: $prog is missing (make prereqs)" >&2
		exit 1
	fi
done
if [ ! -f "$BUILD/drivers/fakenbd.ko" ]; then
	echo "bench-fakenbd: $BUILD/drivers/fakenbd.ko is missing (make)" >&2
	exit 1
fi

rounds=${FNBD_BENCH_ROUNDS:-3}
runtime=${FNBD_BENCH_RUNTIME:-5}
size_mb=${FNBD_BENCH_SIZE_MB:-256}
cases=${FNBD_BENCH_CASES:-"seqread-read-1M-q1 seqwrite-write-1M-q1
	randread-randread-4k-q1 randwrite-randwrite-4k-q1
	randread-randread-4k-q16 randwrite-randwrite-4k-q16"}
cases=$(echo "$cases" | tr -s ' \t\n' ' ')
conns=${FNBD_BENCH_CONNECTIONS:-1 4}
ncases=$(( $(echo "$cases" | wc -w) * $(echo "$conns" | wc -w) ))
# Each run: fio's start, a second of ramp, the runtime; then the margin
# of a loaded host.
tmo=$(( (rounds * ncases * 2 * (runtime + 4)) * 2 + 120 ))

cat > "$out/config" <<EOF
ROUNDS=$rounds
RUNTIME=$runtime
SIZE_MB=$size_mb
CASES="$cases"
CONNS="$conns"
MAX_SECTORS_KB=${FNBD_BENCH_MAX_SECTORS_KB-128}
SCHEDULER=${FNBD_BENCH_SCHEDULER:-mq-deadline}
AA=${FNBD_BENCH_AA:-0}
EOF
echo "bench/fakenbd-in-guest.sh $tmo" > "$out/bench.list"

echo "bench-fakenbd: building the initramfs" >&2
LIST=$out/bench.list EXTRA_LIST=$TOP/bench/fakenbd.list \
	"$TOP/tests/harness/mkinitramfs.sh" "$out/initramfs.cpio.gz"

# The export lives in the guest's memory, next to an initramfs that
# carries fio's libraries: more than the test suite's 1 GiB.
t0=$(date +%s)
echo "bench-fakenbd: booting (rounds=$rounds, runtime=${runtime}s," \
	"export ${size_mb} MiB)" >&2
rm -rf "$out/run"
QEMU_MEM=${QEMU_MEM:-$((size_mb + 1280))} \
"$TOP/tests/harness/run.sh" --kernel "$KIMG/boot/vmlinuz-$KVER" \
	--initrd "$out/initramfs.cpio.gz" --list "$out/bench.list" \
	--configfs ours --out "$out/run" --label "bench-fakenbd:" \
	--append "slub_debug=- page_poison=0 init_on_free=0" |
	tee "$out/run.tap" | grep --line-buffered -v ' ;$' || true
echo "bench-fakenbd: guest run took $(( $(date +%s) - t0 )) s" >&2

# Rows are "# csv: ROW ;" lines, indented by init; a row that init's
# forwarding cut in two is joined again.
{
	echo "client,round,case,kib_s,iops"
	awk '{ sub(/^ +/, "") }
	pending != "" { $0 = pending $0; pending = "" }
	/^# csv: / && !/ ;$/ { pending = $0; next }
	/^# csv: .* ;$/ { sub(/^# csv: /, ""); sub(/ ;$/, ""); print }' \
		"$out/run.tap"
} > "$out/results.csv"
if [ "$(wc -l < "$out/results.csv")" -le 1 ]; then
	echo "bench-fakenbd: the guest reported no figures; see $out/run" >&2
	exit 1
fi

awk -F, -f "$TOP/bench/fakenbd-summarize.awk" \
	-v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v rounds="$rounds" \
	-v runtime="$runtime" -v size_mb="$size_mb" \
	-v max_kb="${FNBD_BENCH_MAX_SECTORS_KB-128}" -v aa="${FNBD_BENCH_AA:-0}" \
	"$out/results.csv" > "$out/summary.md"
grep '^    # [a-z0-9]*: [0-9]* queues' "$out/run.tap" | sed 's/^    # /- /' \
	>> "$out/summary.md" || true

cat "$out/summary.md"
echo
echo "bench-fakenbd: $out/results.csv, $out/summary.md"
grep -q '^not ok' "$out/run.tap" && exit 1
exit 0
