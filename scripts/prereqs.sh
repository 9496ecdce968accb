#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what a fresh Debian 12 lacks to build and test configfs-ng, and
# unpack the target kernel's image into a cache outside the repository.
# Idempotent: a second run only checks stamps and takes seconds.
#
# Prints the shell assignments the Makefile includes (KVER, KDIR, ...) to
# $CNG_CACHE/env.mk, or to $CNG_CACHE/env-$KVER.mk when KVER is given (the
# Makefile reads that one for make KVER=...), so one kernel's setup never
# rewrites another's.
#
# Environment:
#   KVER       target kernel release (default: what linux-image-amd64 depends
#              on, asked of apt); the 6.12 line is 6.12.*+deb12-amd64, in
#              bookworm-security. A release ending in -arm64 is built for:
#              its headers are fetched, with the cross compiler (see
#              arm64_headers below); and booted with ARM64_BOOT=1
#   ARM64_BOOT 1: for an -arm64 KVER, also its image and an arm64 busybox,
#              unpacked into the cache, and qemu-system-arm (arm64_boot)
#   NO_SOURCE  1: skip the kernel's source (KSRC left empty)
#   CNG_CACHE  cache directory (default: ${XDG_CACHE_HOME:-$HOME/.cache}/configfs-ng)
set -eu

CNG_CACHE=${CNG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/configfs-ng}
export DEBIAN_FRONTEND=noninteractive

say() { echo "prereqs: $*" >&2; }

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

host_pkgs="gcc make libc6-dev bc bison flex libelf-dev libssl-dev
	qemu-system-x86 busybox-static cpio kmod sparse xz-utils zstd
	gnuplot-nox perl codespell shellcheck
	nbd-server e2fsprogs nbd-client fio trinity unifdef rsync nvme-cli"

apt_updated=
apt_update() {
	[ -n "$apt_updated" ] && return 0
	say "apt-get update"
	$SUDO apt-get update -qq >&2
	apt_updated=1
}

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

install_pkgs() {
	local miss
	miss=$(missing_pkgs "$@")
	[ -z "$miss" ] && return 0
	apt_update
	say "installing:" $miss
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $miss >&2
}

discover_kver() {
	local dep
	dep=$(apt-cache depends linux-image-amd64 2>/dev/null |
	      sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1)
	if [ -z "$dep" ]; then
		apt_update
		dep=$(apt-cache depends linux-image-amd64 2>/dev/null |
		      sed -n 's/^ *Depends: linux-image-\([0-9].*-amd64\)$/\1/p' | head -n1)
	fi
	[ -n "$dep" ] || { say "cannot find the target kernel through apt"; exit 1; }
	echo "$dep"
}

# fetch_deb PKG DIR: apt-get download PKG and unpack it into DIR, once.
fetch_deb() {
	local pkg=$1 dir=$2 tmp
	[ -f "$dir/.stamp" ] && return 0
	apt_update
	tmp=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
	say "downloading $pkg"
	(cd "$tmp" && apt-get download -q "$pkg" >&2)
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/*.deb "$dir"
	rm -rf "$tmp"
	touch "$dir/.stamp"
}

# apt and apt-cache options for arm64 packages. apt's arm64 lists are
# kept in the cache, so that the host's apt and dpkg stay amd64 alone.
arm64_aptdir=$CNG_CACHE/apt-arm64
arm64_apt=(-q -o APT::Architecture=arm64 -o APT::Architectures::=arm64
	   -o Dir::State::Lists="$arm64_aptdir/lists"
	   -o Dir::Cache="$arm64_aptdir/cache"
	   -o Dir::State::status="$arm64_aptdir/status"
	   -o APT::Sandbox::User="$(id -un)")

# arm64_lists PKG: the arm64 lists, updated when they do not know PKG.
arm64_lists() {
	mkdir -p "$arm64_aptdir/lists/partial" \
		"$arm64_aptdir/cache/archives/partial"
	touch "$arm64_aptdir/status"
	apt-cache "${arm64_apt[@]}" show "$1" > /dev/null 2>&1 && return 0
	say "apt-get update (arm64 lists, in $arm64_aptdir)"
	apt-get "${arm64_apt[@]}" update >&2
}

# arm64_headers KVER: Debian's arm64 headers of KVER, their -common
# package and the kbuild tools they use, unpacked into one root in the
# cache, where the headers' relative links to the tools hold; only their
# Makefile's absolute include is pointed there. The tools are the host's
# (linux-kbuild-* is Multi-Arch: foreign).
arm64_headers() {
	local kver=$1 root=$CNG_CACHE/headers-$1
	local -a apt=("${arm64_apt[@]}")
	local deps common kbuild tmp mk deb
	[ -f "$root/.stamp" ] && return 0
	arm64_lists "linux-headers-$kver"
	deps=$(apt-cache "${apt[@]}" show "linux-headers-$kver" |
	       sed -n 's/^Depends: //p' | head -n1 | tr ',' '\n')
	common=$(echo "$deps" | sed -n 's/^ *\(linux-headers-[^ ]*-common\).*/\1/p')
	kbuild=$(echo "$deps" | sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p')
	if [ -z "$common" ] || [ -z "$kbuild" ]; then
		say "linux-headers-$kver: no -common or linux-kbuild-* in its Depends"
		exit 1
	fi
	tmp=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
	say "downloading linux-headers-$kver $common (arm64), $kbuild (host)"
	(cd "$tmp" &&
	 apt-get "${apt[@]}" download "linux-headers-$kver" "$common" >&2 &&
	 apt-get -q -o APT::Sandbox::User="$(id -un)" download "$kbuild" >&2)
	rm -rf "$root"
	mkdir -p "$root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
	rm -rf "$tmp"
	mk=$root/usr/src/linux-headers-$kver/Makefile
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$mk"
	grep -q "^include $root/" "$mk" ||
		{ say "$mk: no include of the -common tree"; exit 1; }
	touch "$root/.stamp"
}

# arm64_deb PKG DIR: the arm64 package PKG (NAME or NAME=VERSION)
# unpacked into DIR, once.
arm64_deb() {
	local pkg=$1 dir=$2 tmp
	[ -f "$dir/.stamp" ] && return 0
	arm64_lists "${pkg%%=*}"
	tmp=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
	say "downloading $pkg (arm64)"
	(cd "$tmp" && apt-get "${arm64_apt[@]}" download "$pkg" >&2)
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/*.deb "$dir"
	rm -rf "$tmp"
	touch "$dir/.stamp"
}

# Where the arm64 busybox of the host's version is unpacked (no epoch).
arm64_busybox_dir() {
	local bbver
	bbver=$(dpkg-query -W -f='${Version}' busybox-static)
	echo "$CNG_CACHE/busybox-arm64-${bbver#*:}"
}

# arm64_boot KVER: what booting KVER under qemu-system-aarch64 takes
# (tests/harness/run.sh with ARCH=arm64): the kernel's image package,
# with its modules' index made (depmod reads any architecture's), and
# busybox-static for arm64 of the host's version, whose applets are then
# the host's busybox's (the same source and configuration): the guest's
# /bin links are made from the host's list (tests/harness/mkinitramfs.sh).
arm64_boot() {
	local kver=$1 img=$CNG_CACHE/image-$1 bbver
	install_pkgs qemu-system-arm
	arm64_deb "linux-image-$kver" "$img"
	if [ ! -f "$img/lib/modules/$kver/modules.dep" ] ||
	   [ ! -f "$img/.depmod" ]; then
		depmod -b "$img" "$kver"
		touch "$img/.depmod"
	fi
	bbver=$(dpkg-query -W -f='${Version}' busybox-static)
	arm64_deb "busybox-static=$bbver" "$(arm64_busybox_dir)"
}

mkdir -p "$CNG_CACHE"
install_pkgs $host_pkgs

KVER=${KVER:-}
ENV_MK=$CNG_CACHE/env.mk
[ -n "$KVER" ] && ENV_MK=$CNG_CACHE/env-$KVER.mk
if [ -z "$KVER" ]; then
	# Reuse today's answer when it is fresh, so a second run stays fast.
	if [ -f "$CNG_CACHE/kver" ] &&
	   [ -n "$(find "$CNG_CACHE/kver" -mmin -720 2>/dev/null)" ]; then
		KVER=$(cat "$CNG_CACHE/kver")
	else
		KVER=$(discover_kver)
		echo "$KVER" > "$CNG_CACHE/kver"
	fi
fi

case $KVER in
*-arm64)
	install_pkgs gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	arm64_headers "$KVER"
	[ "${ARM64_BOOT:-0}" = 1 ] && arm64_boot "$KVER"
	# The image and busybox when fetched, by this run or an earlier one.
	img=$CNG_CACHE/image-$KVER
	[ -f "$img/.depmod" ] || img=
	bb=$(arm64_busybox_dir)/bin/busybox
	[ -f "$bb" ] || bb=
	env_tmp=$(mktemp "$ENV_MK.XXXXXX")
	cat > "$env_tmp" <<EOT
KVER := $KVER
KDIR := $CNG_CACHE/headers-$KVER/usr/src/linux-headers-$KVER
KIMG := $img
KSRC :=
CNG_CACHE := $CNG_CACHE
ARCH := arm64
CROSS_COMPILE := aarch64-linux-gnu-
BUSYBOX := $bb
EOT
	chmod 644 "$env_tmp"
	mv "$env_tmp" "$ENV_MK"
	say "arm64 headers of $KVER ready${img:+, and its image}"
	exit 0
	;;
esac

install_pkgs "linux-headers-$KVER"

IMG=$CNG_CACHE/image-$KVER
fetch_deb "linux-image-$KVER" "$IMG"
if [ ! -f "$IMG/lib/modules/$KVER/modules.dep" ] ||
   [ ! -f "$IMG/.depmod" ]; then
	depmod -b "$IMG" "$KVER"
	touch "$IMG/.depmod"
fi

# The kernel source tree, for checkpatch.pl and the debug kernel; not
# with NO_SOURCE=1 (make check's second kernel builds and boots only).
srcver=$(echo "$KVER" | sed 's/^\([0-9]*\.[0-9]*\).*/\1/')
SRC=$CNG_CACHE/linux-source-$srcver
[ "${NO_SOURCE:-0}" = 1 ] && [ ! -f "$SRC/.stamp" ] && SRC=
if [ -n "$SRC" ]; then
	SRCPKG=$CNG_CACHE/linux-source-pkg-$srcver
	fetch_deb "linux-source-$srcver" "$SRCPKG"
	if [ ! -f "$SRC/.stamp" ]; then
		say "unpacking linux-source-$srcver"
		rm -rf "$SRC"
		mkdir -p "$SRC"
		tar -xaf "$SRCPKG"/usr/src/linux-source-"$srcver".tar.* \
			-C "$SRC" --strip-components=1
		touch "$SRC/.stamp"
	fi
fi

# A file of its own: two makes may run this at once.
env_tmp=$(mktemp "$ENV_MK.XXXXXX")
cat > "$env_tmp" <<EOT
KVER := $KVER
KDIR := /usr/src/linux-headers-$KVER
KIMG := $IMG
KSRC := $SRC
CNG_CACHE := $CNG_CACHE
EOT
chmod 644 "$env_tmp"
mv "$env_tmp" "$ENV_MK"
say "target kernel $KVER ready"
