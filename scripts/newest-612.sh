#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the newest 6.12 of Debian 12 that apt offers
# (linux-headers-6.12.*+deb12-amd64), asked once in 12 hours: the second
# kernel of make check (scripts/check-kernel.sh) and, as its arm64 twin,
# of make check-arm64 (scripts/check-cross.sh). Prints nothing when apt
# knows none.
#
# Environment: CNG_CACHE.
set -u
: "${CNG_CACHE:?run me through make}"

f=$CNG_CACHE/kver-6.12
if [ -f "$f" ] && [ -n "$(find "$f" -mmin -720 2>/dev/null)" ]; then
	cat "$f"
	exit 0
fi
apt-cache search --names-only '^linux-headers-6\.12\..*\+deb12-amd64$' |
	sed -n 's/^linux-headers-\([^ ]*\) .*/\1/p' | sort -V | tail -n1 |
	tee "$f"
