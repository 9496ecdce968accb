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
#              bookworm-security. A release of another architecture
#              (ending in -arm64, -powerpc64le or -powerpc64le-64k) is
#              built for: its headers are fetched, with the cross
#              compiler (see foreign_headers below); and booted with
#              FOREIGN_BOOT=1
#   FOREIGN_HOST_ONLY 1: for such a KVER, only the host's packages that
#              build (and with FOREIGN_BOOT=1 boot) for it, through the
#              host's apt, and nothing written: the rest goes through apt
#              lists of its own in the cache, which take none of the
#              host's apt locks (make check fetches it in the background)
#   FOREIGN_BOOT 1: for such a KVER, also its image, a busybox and the
#              tests' "bin" programs with their libraries (foreign_bins)
#              of its architecture, unpacked into the cache, and the QEMU
#              that boots it (foreign_boot)
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

# A release built for another architecture than the host's: Debian's
# name for it, the kernel's, the cross compiler's prefix, and the
# packages that compile and boot for it. Set by foreign_arch.
debarch='' karch='' cross='' cross_pkgs='' qemu_pkg=''

# foreign_arch KVER: set the above for KVER's flavour, or fail.
foreign_arch() {
	case $1 in
	*-arm64)
		debarch=arm64 karch=arm64 cross=aarch64-linux-gnu-
		cross_pkgs="gcc-aarch64-linux-gnu libc6-dev-arm64-cross"
		qemu_pkg=qemu-system-arm ;;
	*-powerpc64le|*-powerpc64le-64k)
		debarch=ppc64el karch=powerpc cross=powerpc64le-linux-gnu-
		cross_pkgs="gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross"
		qemu_pkg=qemu-system-ppc ;;
	*)	return 1 ;;
	esac
}

# apt and apt-cache options for $debarch's packages. Their lists are
# kept in the cache, so that the host's apt and dpkg stay amd64 alone.
foreign_apt() {
	local dir=$CNG_CACHE/apt-$debarch
	printf '%s\n' -q -o "APT::Architecture=$debarch" \
		-o "APT::Architectures::=$debarch" \
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache" \
		-o "Dir::State::status=$dir/status" \
		-o "APT::Sandbox::User=$(id -un)"
}

# foreign_lists PKG: $debarch's lists, updated when they do not know PKG.
foreign_lists() {
	local dir=$CNG_CACHE/apt-$debarch
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	touch "$dir/status"
	apt-cache "${fapt[@]}" show "$1" > /dev/null 2>&1 && return 0
	say "apt-get update ($debarch lists, in $dir)"
	apt-get "${fapt[@]}" update >&2
}

# foreign_headers KVER: Debian's headers of KVER, their -common package
# and the kbuild tools they use, unpacked into one root in the cache,
# where the headers' relative links to the tools hold; only their
# Makefile's absolute include is pointed there. The tools are the host's
# (linux-kbuild-* is Multi-Arch: foreign).
foreign_headers() {
	local kver=$1 root=$CNG_CACHE/headers-$1
	local deps common kbuild tmp mk deb
	[ -f "$root/.stamp" ] && return 0
	foreign_lists "linux-headers-$kver"
	deps=$(apt-cache "${fapt[@]}" show "linux-headers-$kver" |
	       sed -n 's/^Depends: //p' | head -n1 | tr ',' '\n')
	common=$(echo "$deps" | sed -n 's/^ *\(linux-headers-[^ ]*-common\).*/\1/p')
	kbuild=$(echo "$deps" | sed -n 's/^ *\(linux-kbuild-[^ ]*\).*/\1/p')
	if [ -z "$common" ] || [ -z "$kbuild" ]; then
		say "linux-headers-$kver: no -common or linux-kbuild-* in its Depends"
		exit 1
	fi
	tmp=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
	say "downloading linux-headers-$kver $common ($debarch), $kbuild (host)"
	(cd "$tmp" &&
	 apt-get "${fapt[@]}" download "linux-headers-$kver" "$common" >&2 &&
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

# foreign_deb PKG DIR: $debarch's package PKG (NAME or NAME=VERSION)
# unpacked into DIR, once.
foreign_deb() {
	local pkg=$1 dir=$2 tmp
	[ -f "$dir/.stamp" ] && return 0
	foreign_lists "${pkg%%=*}"
	tmp=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
	say "downloading $pkg ($debarch)"
	(cd "$tmp" && apt-get "${fapt[@]}" download "$pkg" >&2)
	rm -rf "$dir"
	mkdir -p "$dir"
	dpkg-deb -x "$tmp"/*.deb "$dir"
	rm -rf "$tmp"
	touch "$dir/.stamp"
}

# host_pkg PATTERN: the host's package that holds a file matching
# PATTERN (dpkg-query -S), without its architecture; nothing if none.
host_pkg() {
	dpkg-query -S "$1" 2>/dev/null | sed -n '1s/[:,] .*//p' |
		sed 's/:.*//'
}

# foreign_bins: the programs of the tests' "bin" lines
# (tests/*/initramfs.list; nbd-server, mkfs.ext4, ...) for $debarch, with
# the libraries and loader they need, unpacked from $debarch's packages
# into one root, $CNG_CACHE/bin-$debarch, from which
# tests/harness/mkinitramfs.sh installs them. What is needed is read from
# the binaries (DT_NEEDED, PT_INTERP: scripts/elf-closure.sh), round after
# round until nothing is missing; which package gives it is asked of the
# host's dpkg, which has the same programs (host_pkgs) and so the same
# libraries, in packages Debian names alike on every architecture
# (libglib2.0-0, libc6). Each package is fetched once (a stamp each, at
# $debarch's candidate version); a run with nothing missing fetches
# nothing.
foreign_bins() {
	local root=$CNG_CACHE/bin-$debarch top progs prog name pkg pkgs
	local tmp closure triplet lock
	top=$(cd "$(dirname "$0")/.." && pwd)
	triplet=$(gcc -print-multiarch)
	progs=$(awk '$1 == "bin" { print $3 }' "$top"/tests/*/initramfs.list |
		sort -u)
	mkdir -p "$root/.debs"
	exec {lock}> "$root.lock"
	flock "$lock"
	pkgs=
	for prog in $progs; do
		pkg=$(host_pkg "$prog")
		[ -n "$pkg" ] || pkg=$(host_pkg "$(readlink -f "$prog")")
		[ -n "$pkg" ] || pkg=$(host_pkg "${prog#/usr}")
		[ -n "$pkg" ] || { say "$prog: no package of the host's"; exit 1; }
		pkgs="$pkgs $pkg"
	done
	while :; do
		for pkg in $pkgs; do
			[ -f "$root/.debs/$pkg" ] && continue
			foreign_lists "$pkg"
			tmp=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
			say "downloading $pkg ($debarch, into $root)"
			(cd "$tmp" && apt-get "${fapt[@]}" download "$pkg" >&2)
			dpkg-deb -x "$tmp"/*.deb "$root"
			basename "$tmp"/*.deb > "$root/.debs/$pkg"
			rm -rf "$tmp"
		done
		# shellcheck disable=SC2086 # paths, none with a space
		closure=$("$top/scripts/elf-closure.sh" "$root" $progs) && break
		pkgs=
		for name in $(echo "$closure" | sed -n 's/^missing //p'); do
			case $name in
			*/*) continue ;;	# the loader: libc6's, fetched with libc.so.6
			esac
			pkg=$(host_pkg "*/$triplet/$name")
			[ -n "$pkg" ] && [ ! -f "$root/.debs/$pkg" ] &&
				pkgs="$pkgs $pkg"
		done
		if [ -z "$pkgs" ]; then
			say "$debarch programs in $root: no package gives:"
			echo "$closure" | sed -n 's/^missing /  /p' >&2
			exit 1
		fi
	done
	exec {lock}>&-
}

# Where $debarch's busybox of the host's version is unpacked (no epoch).
foreign_busybox_dir() {
	local bbver
	bbver=$(dpkg-query -W -f='${Version}' busybox-static)
	echo "$CNG_CACHE/busybox-$debarch-${bbver#*:}"
}

# foreign_boot KVER: what booting KVER under QEMU takes (tests/harness/
# run.sh with ARCH=$debarch): the kernel's image package, with its
# modules' index made (depmod reads any architecture's), and
# busybox-static for $debarch of the host's version, whose applets are
# then the host's busybox's (the same source and configuration): the
# guest's /bin links are made from the host's list
# (tests/harness/mkinitramfs.sh).
foreign_boot() {
	local kver=$1 img=$CNG_CACHE/image-$1 bbver
	install_pkgs "$qemu_pkg"
	foreign_deb "linux-image-$kver" "$img"
	if [ ! -f "$img/lib/modules/$kver/modules.dep" ] ||
	   [ ! -f "$img/.depmod" ]; then
		depmod -b "$img" "$kver"
		touch "$img/.depmod"
	fi
	bbver=$(dpkg-query -W -f='${Version}' busybox-static)
	foreign_deb "busybox-static=$bbver" "$(foreign_busybox_dir)"
	foreign_bins
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

if foreign_arch "$KVER"; then
	mapfile -t fapt < <(foreign_apt)
	# shellcheck disable=SC2086 # package names
	install_pkgs $cross_pkgs
	if [ "${FOREIGN_HOST_ONLY:-0}" = 1 ]; then
		[ "${FOREIGN_BOOT:-0}" = 1 ] && install_pkgs "$qemu_pkg"
		exit 0
	fi
	foreign_headers "$KVER"
	[ "${FOREIGN_BOOT:-0}" = 1 ] && foreign_boot "$KVER"
	# The image and busybox when fetched, by this run or an earlier one.
	img=$CNG_CACHE/image-$KVER
	[ -f "$img/.depmod" ] || img=
	bb=$(foreign_busybox_dir)/bin/busybox
	[ -f "$bb" ] || bb=
	env_tmp=$(mktemp "$ENV_MK.XXXXXX")
	cat > "$env_tmp" <<EOT
KVER := $KVER
KDIR := $CNG_CACHE/headers-$KVER/usr/src/linux-headers-$KVER
KIMG := $img
KSRC :=
CNG_CACHE := $CNG_CACHE
ARCH := $karch
DEBARCH := $debarch
CROSS_COMPILE := $cross
BUSYBOX := $bb
EOT
	chmod 644 "$env_tmp"
	mv "$env_tmp" "$ENV_MK"
	say "$debarch headers of $KVER ready${img:+, and its image}"
	exit 0
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
