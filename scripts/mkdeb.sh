#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages (debian/) from a copy of the tree, so that
# nothing is written into the sources: configfs-ng-dkms and
# configfs-ng-tools land in $BUILD/deb, then lintian judges them.
#
# Usage: mkdeb.sh   (through make deb; needs TOP and BUILD; DEB_OUT, the
#                   output directory, defaults to $BUILD/deb)
# Installs what it needs first (dpkg-dev, debhelper, dh-dkms, lintian).
# Exit status: 0 when the packages were built and lintian found nothing
# that debian/*.lintian-overrides does not explain.
set -eu

: "${TOP:?run me through make}" "${BUILD:?}"
export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

need="dpkg-dev debhelper dh-dkms lintian"
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

out=${DEB_OUT:-$BUILD/deb}
src=$out/configfs-ng-$version
rm -rf "$out"
mkdir -p "$src"
# The tracked and new files, not what a build left in the tree.
(cd "$TOP" && git ls-files -z --cached --others --exclude-standard |
	tar --null -T - -cf -) | tar -C "$src" -xf -
(cd "$src" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
}
rm -rf "$src"
lintian --pedantic -I -E --fail-on error,warning,info,pedantic \
	"$out/configfs-ng_${version}_amd64.changes" 2>&1 |
	grep -v 'running with root privileges' | tee "$out/lintian.log" >&2
[ "${PIPESTATUS[0]}" -eq 0 ] || {
	echo "mkdeb: lintian has tags (log: $out/lintian.log)" >&2
	exit 1
}
ls "$out"/*.deb
