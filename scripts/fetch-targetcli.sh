#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch targetcli-fb and python3-rtslib-fb into DIR (unpacked with
# dpkg-deb, never installed: their units would load LIO at the host's
# boot) and install their pure Python libraries. A stamp in DIR makes a
# second run cheap. For scripts/check-targetcli.sh and
# scripts/bench-clients.sh.
#
# Usage: fetch-targetcli.sh DIR
# Environment: CNG_CACHE (the temporary download goes there).
set -eu
tcli=$1
: "${CNG_CACHE:?}"
DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-gi \
	python3-urwid python3-pyudev python3-pyparsing python3-six \
	python3-configshell-fb
[ -f "$tcli/.stamp" ] && exit 0
d=$(mktemp -d "$CNG_CACHE/dl.XXXXXX")
trap 'rm -rf "$d"' EXIT
(cd "$d" && apt-get download -q targetcli-fb python3-rtslib-fb)
rm -rf "$tcli"
mkdir -p "$tcli"
for deb in "$d"/*.deb; do
	dpkg-deb -x "$deb" "$tcli"
done
touch "$tcli/.stamp"
