#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak: tests/soak/soak.sh for MINUTES minutes (default 30), one boot
# per module of $CONFIGFS (ours and stock, at once, as the guest suites),
# so that a leak of stock's shows as stock's. TAP on stdout: each guest's
# stream, then a summary line per module from its "# soak-summary:" line
# (rounds, Slab and live slab objects at the start and the end, the
# objects in configfs' caches, configfs' references).
#
# Usage: soak.sh [MINUTES]
# Environment: the top Makefile's (TOP, BUILD, KIMG, KVER, CONFIGFS);
# SOAK_OUT (default $BUILD/soak).
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"
minutes=${1:-30}
out=${SOAK_OUT:-$BUILD/soak}
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"
case $minutes in
''|*[!0-9]*|0)
	echo "soak.sh: MINUTES must be a whole number above 0" >&2
	exit 2
	;;
esac
rm -rf "$out"
mkdir -p "$out"
# The rounds, then setup, the last round and cleanup: 10 minutes more.
printf 'soak.sh %d\n' $((minutes * 60 + 600)) > "$out/soak.list"

echo "TAP version 13"
echo "# soak for $minutes min on $CONFIGFS configfs, at once"
for cf in $CONFIGFS; do
	APPEND="cng.soak_secs=$((minutes * 60))" tap_start "$out/$cf.tap" \
		"$TOP/tests/harness/guest-suite.sh" "$cf" "$out/soak.list" "$out/$cf"
done
wait
for cf in $CONFIGFS; do
	echo "# soak on $cf configfs"
	tap_stream "soak_on_$cf" tap_replay "$out/$cf.tap"
done > "$out/all.tap"
# Renumber: each guest's stream counts from 1.
awk '/^(not )?ok [0-9]+/ { n++; sub(/ok [0-9]+/, "ok " n) } { print }
	END { print "1.." n }' "$out/all.tap"
failed=$(grep -c '^not ok' "$out/all.tap")
for cf in $CONFIGFS; do
	line=$(grep -h '# soak-summary:' "$out/$cf.tap" | tail -n 1)
	echo "# summary $cf: ${line#*soak-summary: }"
done
[ "$failed" -eq 0 ]
