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
#              bookworm-security. A release ending in -arm64 is built for
#              and not booted: its headers alone are fetched, with the
#              cross compiler (see arm64_headers below)
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
	nbd-server e2fsprogs nbd-client fio trinity"

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

# arm64_headers KVER: Debian's arm64 headers of KVER, their -common
# package and the kbuild tools they use, unpacked into one root in the
# cache, where the headers' relative links to the tools hold; only their
# Makefile's absolute include is pointed there. The tools are the host's
# (linux-kbuild-* is Multi-Arch: foreign). apt's arm64 lists are kept in
# the cache, so that the host's apt and dpkg stay amd64 alone.
arm64_headers() {
	local kver=$1 root=$CNG_CACHE/headers-$1 aptdir=$CNG_CACHE/apt-arm64
	local -a apt
	local deps common kbuild tmp mk deb
	[ -f "$root/.stamp" ] && return 0
	apt=(-q -o APT::Architecture=arm64 -o APT::Architectures::=arm64
	     -o Dir::State::Lists="$aptdir/lists"
	     -o Dir::Cache="$aptdir/cache"
	     -o Dir::State::status="$aptdir/status"
	     -o APT::Sandbox::User="$(id -un)")
	mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial"
	touch "$aptdir/status"
	if ! apt-cache "${apt[@]}" show "linux-headers-$kver" > /dev/null 2>&1; then
		say "apt-get update (arm64 lists, in $aptdir)"
		apt-get "${apt[@]}" update >&2
	fi
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
	env_tmp=$(mktemp "$ENV_MK.XXXXXX")
	cat > "$env_tmp" <<EOT
KVER := $KVER
KDIR := $CNG_CACHE/headers-$KVER/usr/src/linux-headers-$KVER
KIMG :=
KSRC :=
CNG_CACHE := $CNG_CACHE
ARCH := arm64
CROSS_COMPILE := aarch64-linux-gnu-
EOT
	chmod 644 "$env_tmp"
	mv "$env_tmp" "$ENV_MK"
	say "arm64 headers of $KVER ready (built for, not booted)"
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
