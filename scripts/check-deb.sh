#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages proved in a Debian guest, on each kernel given: the
# released 0.1.0 installed with dpkg, its tree (nvmet, LIO, a USB gadget)
# live under its unit, upgraded to this version without a change to the
# tree, the initramfs regenerated, built by DKMS (and stock installed for
# a kernel it cannot build for), restored by the unit after a reboot,
# beside rtslib-fb-targetctl.service, removed and purged; a second guest
# booted with module.sig_enforce=1, where modprobe falls back to stock
# and says why; then, in a third guest, make install and make uninstall
# (tests/deb/in-guest.sh says the steps). A kernel report on a guest's
# console fails it too. One TAP stream ending in "N passed, N failed",
# like make check's.
#
# Usage: check-deb.sh KVER...   (through make check-deb, after make deb)
# Each kernel needs scripts/prereqs.sh's cache image and its headers
# installed on this machine (the guest shares its root); DKMS, gcc and
# nvme-cli, initramfs-tools are installed here if missing, never our
# packages; 0.1.0's packages are built from OLD_DEB_COMMIT, and
# python3-rtslib-fb (with the two packages it needs) is downloaded, for
# the guest to install.
# Environment: TOP, BUILD, CNG_CACHE (the Makefile's); CHECK_DEB_GUESTS,
# the guests to run of "deb sig install" (all by default), to rerun one.
set -u

: "${TOP:?run me through make}" "${BUILD:?}"
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"
[ $# -ge 1 ] || { echo "usage: check-deb.sh KVER..." >&2; exit 2; }
# The guest sees this machine's root, but its systemd empties /tmp at
# boot (tmpfiles' "D /tmp"): the packages and disk it is given cannot
# live there.
case $(realpath -m "$BUILD")/ in
/tmp/*)	echo "check-deb: BUILD ($BUILD) is under /tmp, which the guest" \
		"mounts over; use a tree elsewhere" >&2
	exit 2 ;;
esac
export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
t0=$(date +%s)

# What the guest uses from this machine's root; never configfs-ng-*.
need="dkms gcc make nvme-cli initramfs-tools"
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
mkdir -p "$out/extra/old" "$out/extra/rtslib"
n=0 passed=0 failed=0

# The packaging as released in 0.1.0, the version an upgrade starts from.
old=${OLD_DEB_COMMIT:-e0da6b152ad551f623d0e8b25f4154af0d9e65b0}
mkdir "$out/old-src"
if ! { git -C "$TOP" archive "$old" | tar -C "$out/old-src" -xf - &&
	(cd "$out/old-src" && dpkg-buildpackage -us -uc -b) \
		> "$out/old-build.log" 2>&1 &&
	mv "$out"/configfs-ng-dkms_*.deb "$out"/configfs-ng-tools_*.deb \
		"$out/extra/old/"; }; then
	tail -n 20 "$out/old-build.log" >&2
	echo "check-deb: cannot build 0.1.0's packages from $old" >&2
	exit 1
fi
rm -rf "$out/old-src"
(cd "$out/extra/rtslib" &&
 apt-get download -q python3-rtslib-fb python3-pyudev python3-six) \
	> "$out/rtslib-download.log" 2>&1 || {
	cat "$out/rtslib-download.log" >&2
	echo "check-deb: cannot download python3-rtslib-fb" >&2
	exit 1
}

# guest KVER MODE FROM RESULTS: tests/deb/in-guest.sh MODE FROM in a
# guest of KVER over a fresh disk; its results renumbered, a missing one
# failed.
guest() {
	local kver=$1 mode=$2 from=$3 want=$4 rc results=0 line t
	local disk=$out/disk.img log=$out/$mode-$kver.log
	rm -f "$disk"
	t=$(date +%s)
	QEMU_MEM=2048 nice "$TOP/scripts/debian-guest.sh" --kver "$kver" \
		--disk "$disk" --console "$out/console-$mode-$kver.log" \
		--timeout 7200 "$TOP/tests/deb/in-guest.sh" "$mode" "$from" \
		"$out/extra" > "$log" 2> "$out/$mode-$kver.err"
	rc=$?
	echo "# $mode guest: $(( $(date +%s) - t )) s"
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
	# Every boot of the guest (a reboot's too) is on its console.
	tap_n=$n tap_failed=0
	tap_console_clean "$kver: ${mode}_guest_kernel_reported_nothing" \
		"$out/console-$mode-$kver.log"
	n=$tap_n
	if [ "$tap_failed" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	rm -f "$disk"
}

guests=${CHECK_DEB_GUESTS:-deb sig install}
echo "TAP version 13"
for kver in "$@"; do
	[ -d "/usr/src/linux-headers-$kver" ] ||
		KVER=$kver "$TOP/scripts/prereqs.sh" >&2
	case " $guests " in *" deb "*)
		echo "# $kver: dpkg -i 0.1.0, a live tree, upgrade, reboot, remove, purge"
		guest "$kver" deb "$BUILD/deb" 32 ;;
	esac
	case " $guests " in *" sig "*)
		echo "# $kver: module.sig_enforce=1: dpkg -i, reboot, stock with a message"
		GUEST_APPEND=module.sig_enforce=1 guest "$kver" sig "$BUILD/deb" 8 ;;
	esac
	case " $guests " in *" install "*)
		echo "# $kver: make install, DKMS, make uninstall"
		guest "$kver" install "$TOP" 11 ;;
	esac
done
echo "1..$n"
echo "# wall time: $(( $(date +%s) - t0 )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$n" -gt 0 ]
