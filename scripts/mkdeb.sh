#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages (debian/) from a copy of the tree, so that
# nothing is written into the sources: configfs-ng-dkms and
# configfs-ng-tools land in $BUILD/deb, then lintian judges them.
#
# Usage: mkdeb.sh   (through make deb; needs TOP and BUILD; DEB_OUT, the
#                   output directory, defaults to $BUILD/deb)
# DEB_ARCH, another architecture than this machine's (make deb-arm64:
# arm64): the packages cross-built (dpkg-buildpackage -a) into
# $BUILD/deb-DEB_ARCH by default, with the cross compiler and its libc
# (gcc-aarch64-linux-gnu, libc6-dev-arm64-cross); this machine's dpkg
# gets no foreign architecture (debian/rules, CROSS_LIBC).
# Installs what it needs first (dpkg-dev, debhelper, dh-dkms, lintian,
# and the cross compiler).
# Exit status: 0 when the packages were built and lintian found nothing
# that debian/*.lintian-overrides does not explain.
set -eu

: "${TOP:?run me through make}" "${BUILD:?}"
export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

host_arch=$(dpkg --print-architecture)
arch=${DEB_ARCH:-$host_arch}
need="dpkg-dev debhelper dh-dkms lintian"
cross=
if [ "$arch" != "$host_arch" ]; then
	triplet=$(dpkg-architecture -a"$arch" -qDEB_HOST_GNU_TYPE 2> /dev/null) || {
		echo "mkdeb: $arch is no architecture dpkg knows" >&2
		exit 1
	}
	need="$need gcc-$triplet libc6-dev-$arch-cross"
	cross=-a$arch
fi
miss=
for p in $need; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || miss="$miss $p"
done
if [ -n "$miss" ]; then
	echo "mkdeb: installing:$miss" >&2
	$SUDO apt-get update -qq >&2
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $miss >&2
fi

version=$(cat "$TOP/module/VERSION")
changelog=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
if [ "$changelog" != "$version" ]; then
	echo "mkdeb: debian/changelog says $changelog, module/VERSION $version" >&2
	exit 1
fi

out=${DEB_OUT:-$BUILD/deb${cross:+-$arch}}
src=$out/configfs-ng-$version
rm -rf "$out"
mkdir -p "$src"
# The tracked and new files, not what a build left in the tree.
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
	tar --null -T - -cf -) | tar -C "$src" -xf -
(cd "$src" && dpkg-buildpackage -us -uc -b ${cross:+"$cross"}) > "$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
rm -rf "$src"
lintian --pedantic -I -E --fail-on error,warning,info,pedantic \
	"$out/configfs-ng_${version}_$arch.changes" 2>&1 |
	grep -v 'running with root privileges' | tee "$out/lintian.log" >&2
[ "${PIPESTATUS[0]}" -eq 0 ] || {
	echo "mkdeb: lintian has tags (log: $out/lintian.log)" >&2
	exit 1
}
ls "$out"/*.deb
