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
#              bookworm-security
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
