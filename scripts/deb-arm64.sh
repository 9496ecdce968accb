#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The arm64 packages (make deb-arm64) judged on this machine (issue 38):
# configfs-ng-tools holds an AArch64 program that depends on the libc an
# arm64 system has, and configfs-ng-dkms builds configfs.ko for each of
# Debian 12's arm64 kernels as DKMS builds it there. That is Debian 12's
# own DKMS (3.0.10), run on the package's /usr/src tree with the
# package's dkms.conf, in a private DKMS tree, for the arm64 kernel
# against its headers in the cache (scripts/prereqs.sh), with the arch
# an arm64 machine's uname -m gives, aarch64. Only what an amd64 machine
# must lend to a build for arm64 differs: dpkg-architecture -aarm64
# exports what Debian's arm64 headers take to cross-build
# (.kernelvariables sets CROSS_COMPILE from DEB_HOST_GNU_TYPE), and
# DKMS's "strip" is aarch64-linux-gnu-strip. DKMS signs the module, as
# on Debian, with the headers' sign-file (linux-kbuild-*, the host's)
# and a key of its own making in the temporary directory (never
# /var/lib/dkms's). Then the same DKMS for an
# architecture configfs-ng is not built for (riscv64) must say so in its
# make.log (dkms-make.sh). A TAP stream with its plan.
#
# Usage: deb-arm64.sh DEBDIR [KVER...]   (arm64 releases; default: the
# -arm64 twins of KVER and of SECOND_KVER, or of the newest 6.12, as
# scripts/check-cross.sh takes them)
# Environment: TOP, CNG_CACHE, KVER, SECOND_KVER. Installs dkms if
# missing (as make check-deb does); fetches headers through
# scripts/prereqs.sh when the cache lacks them.
set -u

: "${TOP:?run me through make}" "${CNG_CACHE:?}"
dir=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"

t() {	# t NAME CMD...: one result (tests/harness/tap-lib.sh)
	tap_check "$@"
}

if [ $# -gt 0 ]; then
	kvers=$*
else
	: "${KVER:?run me through make}"
	kvers=${KVER%-amd64}-arm64
	case ${SECOND_KVER:-} in
	none)	;;
	'')	k2=$("$TOP/scripts/newest-612.sh")
		[ -z "$k2" ] || kvers="$kvers ${k2%-amd64}-arm64" ;;
	*)	kvers="$kvers ${SECOND_KVER%-amd64}-arm64" ;;
	esac
fi

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
dpkg-query -W -f='${Status}\n' dkms 2> /dev/null |
	grep -q '^install ok installed$' ||
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends dkms >&2

for p in tools dkms; do
	deb=$(ls "$dir"/configfs-ng-"$p"_*_arm64.deb 2> /dev/null | head -n 1)
	[ -n "$deb" ] || { echo "1..1"; echo "not ok 1 no arm64 configfs-ng-$p in $dir"; exit 1; }
	mkdir -p "$tmp/$p/ctl"
	dpkg-deb -e "$deb" "$tmp/$p/ctl" && dpkg-deb -x "$deb" "$tmp/$p/root" ||
		exit 1
done
tc=$tmp/tools/ctl tr=$tmp/tools/root dc=$tmp/dkms/ctl dr=$tmp/dkms/root
version=$(sed -n 's/^Version: //p' "$dc/control")

# The tool is an AArch64 program for arm64's dynamic linker, and the
# package depends on libc6 by the name an arm64 system knows (not the
# cross toolchain's libc6-arm64-cross, nor libc6:arm64).
tools_is_arm64() {
	local f=$tr/usr/sbin/configfs depends
	grep -x 'Architecture: arm64' "$tc/control" || return 1
	readelf -h "$f" | grep '^ *Machine: *AArch64$' || return 1
	readelf -l "$f" | grep -F '[Requesting program interpreter: /lib/ld-linux-aarch64.so.1]' ||
		return 1
	depends=$(sed -n 's/^Depends: //p' "$tc/control")
	echo "Depends: $depends"
	echo "$depends" | grep -q '^libc6 (>= [0-9.]*)' &&
	! echo "$depends" | grep -q ':\|-cross'
}

dkms_is_arm64() {
	grep -x 'Architecture: arm64' "$dc/control" &&
	[ -f "$dr/usr/src/configfs-ng-$version/dkms.conf" ]
}

# An arm64 machine's strip, where DKMS looks for "strip".
mkdir -p "$tmp/bin"
ln -s "$(command -v aarch64-linux-gnu-strip)" "$tmp/bin/strip"

# dkms_build KVER ARCH DKMSTREE: DKMS's build of the package's tree for
# KVER, whose headers are in the cache, as on a machine whose uname -m
# says ARCH.
dkms_build() {
	local kver=$1 arch=$2 tree=$3 kdir
	kdir=$(sed -n 's/^KDIR := //p' "$CNG_CACHE/env-$kver.mk" 2> /dev/null)
	if [ ! -f "$kdir/Makefile" ]; then
		KVER=$kver NO_SOURCE=1 "$TOP/scripts/prereqs.sh" >&2 || return 1
		kdir=$(sed -n 's/^KDIR := //p' "$CNG_CACHE/env-$kver.mk")
	fi
	mkdir -p "$tree" "$tmp/lib"
	PATH=$tmp/bin:$PATH CC=aarch64-linux-gnu-gcc \
	sign_file=$kdir/scripts/sign-file \
	mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub \
		dpkg-architecture -aarm64 -c \
		dkms build -m configfs-ng -v "$version" -k "$kver" -a "$arch" \
		--kernelsourcedir "$kdir" --dkmstree "$tree" \
		--sourcetree "$dr/usr/src" --installtree "$tmp/lib"
}

# DKMS builds ours, not the fallback: an AArch64 module of our version,
# with KVER's vermagic, signed by DKMS's key, and a make.log without
# dkms-make.sh's "not built".
dkms_builds_for() {
	local kver=$1 tree=$tmp/tree-$1 base ko magic
	if ! dkms_build "$kver" aarch64 "$tree"; then
		cat "$tree/configfs-ng/$version/build/make.log"
		return 1
	fi
	base=$tree/configfs-ng/$version/$kver/aarch64
	ko=$base/module/configfs.ko
	[ -f "$ko" ] || { echo "$ko: missing"; ls -R "$tree"; return 1; }
	if grep -n 'configfs-ng: not built' "$base/log/make.log"; then
		return 1
	fi
	readelf -h "$ko" | grep '^ *Machine: *AArch64$' || return 1
	magic=$(modinfo -F vermagic "$ko")
	case $magic in
	"$kver SMP "*" aarch64") echo "vermagic: $magic" ;;
	*)	echo "$ko: vermagic '$magic', not $kver's"; return 1 ;;
	esac
	[ "$(modinfo -F version "$ko")" = "$version" ] &&
	modinfo -F signer "$ko" | grep -x 'DKMS module signing key'
}

# Elsewhere dkms-make.sh names the architectures it is built for. This
# machine has no /lib/modules/KVER/kernel/fs/configfs/configfs.ko to put
# in ours's place, so the build fails here, as it would not on such a
# machine (make check-deb proves that part on amd64).
dkms_refuses() {
	local kver=$1 tree=$tmp/tree-refuse log why
	why="riscv64 is not amd64 (x86_64) or arm64 (aarch64),"
	why="$why the architectures configfs-ng is built and tested on"
	! dkms_build "$kver" riscv64 "$tree" || return 1
	log=$tree/configfs-ng/$version/build/make.log
	cat "$log" &&
	grep -qxF "configfs-ng: not built for $kver: $why; and $kver has no configfs.ko of its own" \
		"$log"
}

echo "TAP version 13"
t deb_arm64_tools_is_an_aarch64_program_depending_on_libc6 tools_is_arm64
t deb_arm64_dkms_is_arm64 dkms_is_arm64
for kver in $kvers; do
	t "deb_arm64_dkms_builds_ours_for_$kver" dkms_builds_for "$kver"
done
t deb_arm64_dkms_names_its_architectures_elsewhere dkms_refuses "${kvers%% *}"
echo "1..$tap_n"
[ "$tap_failed" -eq 0 ]
