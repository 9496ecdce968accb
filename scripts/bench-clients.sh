#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-clients` (issue 37): real clients on big trees, timed, ours
# against stock. One Debian guest boot (scripts/debian-guest.sh) runs
# tests/debian/bench-clients.sh: targetcli restoreconfig / saveconfig /
# clearconfig of N LUNs, nvmetcli restore / save / clear of M subsystems,
# and our tool's save, rm --all and restore of the same trees, with whole
# walks (configfs tree, ls -lR) cold and warm, on each configfs module in
# alternating rounds. Writes results.csv and summary.md (bench/README.md);
# TAP with a plan on stdout, and a nonzero exit when a step failed, a
# figure is missing, a client's save after our restore differs from its
# save before, or the guest's console shows a kernel report.
#
# targetcli-fb and python3-rtslib-fb are unpacked into the cache, as
# scripts/check-targetcli.sh does (the same folder). nvmetcli: NVMETCLI, a
# folder holding either an unpacked nvmetcli package (usr/sbin/nvmetcli)
# or its source (nvmetcli beside nvmet/); else $CNG_CACHE/nvmetcli, filled
# by `apt-get download nvmetcli` where the distribution has it (Debian 12
# has not: put a copy of its source there, or BENCH_CLIENTS_M=0).
#
# Environment: TOP, BUILD, CNG_CACHE, KVER (from make). Overrides:
# BENCH_CLIENTS_QUICK=1 (20 LUNs, 20 subsystems, 1 round: the pipeline
# end to end), BENCH_CLIENTS_N (LIO sizes, "1000 4000"; empty: no LIO),
# BENCH_CLIENTS_M (nvmet subsystems, 1000; 0: no nvmet),
# BENCH_CLIENTS_LIO_RESTORE (targetcli: its restoreconfig; memo:
# bench/clients-restore.py, the same restore without rtslib's quadratic
# lookup), BENCH_CLIENTS_ROUNDS (3), BENCH_CLIENTS_SYSTEMS ("stock ours"),
# BENCH_CLIENTS_TIMEOUT (seconds of the whole guest),
# BENCH_CLIENTS_STEP_TIMEOUT (of one step), BENCH_OUT (build/bench-clients,
# QUICK: build/bench-clients-quick), QEMU_MEM, QEMU_SMP
# (scripts/debian-guest.sh).
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}" "${KVER:?}"
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"
# shellcheck source=scripts/guest-top.sh
. "$TOP/scripts/guest-top.sh"
# shellcheck source=scripts/host-load.sh
. "$TOP/scripts/host-load.sh"

if [ "${BENCH_CLIENTS_QUICK:-0}" = 1 ]; then
	luns=${BENCH_CLIENTS_N-20} subsys=${BENCH_CLIENTS_M:-20}
	rounds=${BENCH_CLIENTS_ROUNDS:-1}
	out=${BENCH_OUT:-$BUILD/bench-clients-quick}
else
	luns=${BENCH_CLIENTS_N-1000 4000} subsys=${BENCH_CLIENTS_M:-1000}
	rounds=${BENCH_CLIENTS_ROUNDS:-3}
	out=${BENCH_OUT:-$BUILD/bench-clients}
fi
systems=${BENCH_CLIENTS_SYSTEMS:-stock ours}
lio_restore=${BENCH_CLIENTS_LIO_RESTORE:-targetcli}
case $lio_restore in
targetcli|memo) ;;
*)	echo "bench-clients: BENCH_CLIENTS_LIO_RESTORE is targetcli or memo" >&2
	exit 2 ;;
esac
luns=$(echo "$luns" | tr -s ' \t\n' ' ' | sed 's/^ //; s/ $//')
if [ -z "$luns" ] && [ "$subsys" -eq 0 ]; then
	echo "bench-clients: no LIO size and no nvmet subsystem: nothing to run" >&2
	exit 2
fi
nsys=$(echo "$systems" | wc -w)
# What a run costs under TCG (measured on a loaded 2-core host): a python
# client takes 2-9 s to start; each step of the tool or a client costs up
# to ~0.2 s per LUN or subsystem; and targetcli restoreconfig grows with
# the square of the LUNs (rtslib looks up every backstore for each LUN):
# 25 s of work at 100 LUNs, still running after 17 minutes at 1000
# (not with memo). Each run is allowed twice that, the boot and the seeds
# 20 minutes.
square=400
[ "$lio_restore" = memo ] && square=0
run_cost=0 biggest=$subsys
for l in $luns; do
	run_cost=$((run_cost + 300 + 2 * (l * 3 + (square ? l * l / square : 0))))
	[ "$l" -gt "$biggest" ] && biggest=$l
done
[ "$subsys" -gt 0 ] && run_cost=$((run_cost + 300 + subsys * 3))
step_tmo=${BENCH_CLIENTS_STEP_TIMEOUT:-$((600 + (square ? biggest * biggest / 200 : biggest)))}
tmo=${BENCH_CLIENTS_TIMEOUT:-$((1200 + rounds * nsys * run_cost))}
tcli=$CNG_CACHE/targetcli
mkdir -p "$out"
rm -f "$out/results.csv" "$out/summary.md" "$out/guest.tap" \
	"$out/stream.tap"

# find_nvmetcli: sets nvbin and nvpy from NVMETCLI or the cache.
find_nvmetcli() {
	local dir=${NVMETCLI:-$CNG_CACHE/nvmetcli} d
	if [ -z "${NVMETCLI:-}" ] && [ ! -e "$dir/nvmetcli" ] &&
	   [ ! -e "$dir/usr/sbin/nvmetcli" ]; then
		d=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
		if (cd "$d" && apt-get download -q nvmetcli); then
			mkdir -p "$dir" && dpkg-deb -x "$d"/nvmetcli_*.deb "$dir"
		fi
		rm -rf "$d"
	fi
	if [ -f "$dir/usr/sbin/nvmetcli" ]; then
		nvbin=$dir/usr/sbin/nvmetcli
		nvpy=$dir/usr/lib/python3/dist-packages
	elif [ -f "$dir/nvmetcli" ] && [ -d "$dir/nvmet" ]; then
		nvbin=$dir/nvmetcli nvpy=$dir
	else
		echo "no nvmetcli in $dir: NVMETCLI=DIR (an unpacked package" \
			"or its source), or BENCH_CLIENTS_M=0"
		return 1
	fi
	echo "nvmetcli: $nvbin"
	[ -f "$nvpy/nvmet/nvme.py" ]
}

guest() {
	GUEST_APPEND="modprobe.blacklist=configfs oops=panic" \
	QEMU_MEM=${QEMU_MEM:-3072} \
	"$TOP/scripts/debian-guest.sh" --kver "$KVER" --timeout "$tmo" \
		--console "$out/console.log" \
		"$TOP/tests/debian/bench-clients.sh" "$gtop" "$tcli" "$nvbin" \
		"$nvpy" "$systems" "$rounds" "$luns" "$subsys" "$step_tmo" \
		"$lio_restore" |
		tee "$out/guest.tap"
	return "${PIPESTATUS[0]}"
}

for f in "$TOP/module/configfs.ko" "$TOP/tools/configfs/configfs"; do
	[ -f "$f" ] || { echo "bench-clients: no $f (make)" >&2; exit 1; }
done
"$TOP/scripts/fetch-targetcli.sh" "$tcli" > "$out/fetch.log" 2>&1 ||
	tap_fail bench_clients:targetcli_fetched "$out/fetch.log"
tap_ok bench_clients:targetcli_fetched
# What the guest reads of the checkout (a copy from one under /tmp).
gtop=$(guest_top bench-clients module/configfs.ko tools/configfs/configfs \
	'bench/clients-*.py') ||
	{ echo "bench-clients: cannot copy the tree" >&2; exit 1; }
nvbin='' nvpy=''
if [ "$subsys" -gt 0 ]; then
	find_nvmetcli > "$out/nvmetcli.log" 2>&1 ||
		tap_fail bench_clients:nvmetcli_found "$out/nvmetcli.log"
	tap_ok bench_clients:nvmetcli_found
fi

echo "# bench-clients: LUNs ${luns:-none} (restored by $lio_restore)," \
	"subsystems $subsys, $rounds round(s) of $systems;" \
	"guest timeout ${tmo}s, step ${step_tmo}s"
t0=$(date +%s)
host_load_mark
tap_stream bench_clients_guest guest | tee "$out/stream.tap"
echo "# bench-clients: the guest took $(( $(date +%s) - t0 )) s"

{
	echo "system,round,test,n,attrs,metric,x,value"
	sed -n 's/^# csv: //p' "$out/guest.tap"
} > "$out/results.csv"
/usr/bin/python3 "$TOP/bench/clients-summarize.py" "$out/results.csv" \
	"$systems" "$rounds" "$luns" "$subsys" \
	"$(date -u '+%Y-%m-%d %H:%M UTC')" > "$out/summary.md" \
	2> "$out/missing.log"
rc=$?
{ echo; host_load_line; } >> "$out/summary.md"
sed 's/^/# /' "$out/summary.md"
failed=0
if [ "$rc" -eq 0 ]; then
	tap_ok bench_clients:every_step_has_a_figure_on_each_module
else
	sed 's/^/# /' "$out/missing.log" | head -n 40
	tap_n=$((tap_n + 1)) failed=1
	echo "not ok $tap_n bench_clients:every_step_has_a_figure_on_each_module"
fi
tap_console_clean bench_clients:the_kernel_reported_nothing \
	"$out/console.log" || failed=1
# The guest's results, with tap_stream's own, and this script's.
guest_n=$(grep -cE '^(not )?ok [0-9]' "$out/stream.tap")
echo "1..$((tap_n + guest_n))"
echo "# bench-clients: $out/results.csv, $out/summary.md" >&2
if [ "$failed" -ne 0 ] || grep -q '^not ok' "$out/stream.tap"; then
	exit 1
fi
exit 0
