#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages proved in a Debian guest, on each kernel given: both
# installed with dpkg, built by DKMS, loaded by modprobe, used by nvmet
# and nvme connect, restored by the unit after a reboot, purged; then, in
# a second guest, make install and dkms remove (tests/deb/in-guest.sh
# says the steps). One TAP stream ending in
# "N passed, N failed", like make check's.
#
# Usage: check-deb.sh KVER...   (through make check-deb, after make deb)
# Each kernel needs scripts/prereqs.sh's cache image and its headers
# installed on this machine (the guest shares its root); DKMS, gcc and
# nvme-cli are installed here if missing, never our packages.
# Environment: TOP, BUILD, CNG_CACHE (the Makefile's).
set -u

: "${TOP:?run me through make}" "${BUILD:?}"
[ $# -ge 1 ] || { echo "usage: check-deb.sh KVER..." >&2; exit 2; }
export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
t0=$(date +%s)

# What the guest uses from this machine's root; never configfs-ng-*.
need="dkms gcc make nvme-cli"
miss=
for p in $need; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || miss="$miss $p"
done
if [ -n "$miss" ]; then
	echo "# check-deb: installing:$miss" >&2
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $miss >&2
fi

out=$BUILD/check-deb
rm -rf "$out"
mkdir -p "$out"
n=0 passed=0 failed=0

# guest KVER MODE FROM RESULTS: tests/deb/in-guest.sh MODE FROM in a
# guest of KVER over a fresh disk; its results renumbered, a missing one
# failed.
guest() {
	local kver=$1 mode=$2 from=$3 want=$4 rc results=0 line
	local disk=$out/disk.img log=$out/$mode-$kver.log
	rm -f "$disk"
	QEMU_MEM=2048 "$TOP/scripts/debian-guest.sh" --kver "$kver" \
		--disk "$disk" --console "$out/console-$mode-$kver.log" \
		--timeout 3600 "$TOP/tests/deb/in-guest.sh" "$mode" "$from" \
		> "$log" 2> "$out/$mode-$kver.err"
	rc=$?
	while IFS= read -r line; do
		case $line in
		'ok '[0-9]*)
			n=$((n + 1)); passed=$((passed + 1))
			results=$((results + 1))
			echo "ok $n $kver: ${line#ok * }" ;;
		'not ok '[0-9]*)
			n=$((n + 1)); failed=$((failed + 1))
			results=$((results + 1))
			echo "not ok $n $kver: ${line#not ok * }" ;;
		*)	echo "    ${line}" ;;
		esac
	done < "$log"
	if [ "$rc" -ne 0 ] || [ "$results" -ne "$want" ]; then
		n=$((n + 1)); failed=$((failed + 1))
		echo "not ok $n $kver: ${mode}_guest_run_complete # exit $rc, $results of $want results"
		tail -n 40 "$out/$mode-$kver.err" | sed 's/^/    # /'
	fi
	rm -f "$disk"
}

echo "TAP version 13"
for kver in "$@"; do
	[ -d "/usr/src/linux-headers-$kver" ] ||
		KVER=$kver "$TOP/scripts/prereqs.sh" >&2
	echo "# $kver: dpkg -i, DKMS, nvmet, reboot, purge"
	guest "$kver" deb "$BUILD/deb" 20
	echo "# $kver: make install, DKMS, dkms remove"
	guest "$kver" install "$TOP" 9
done
echo "1..$n"
echo "# wall time: $(( $(date +%s) - t0 )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]
