#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-targetcli` (issue 22): tests/debian/targetcli.sh in a Debian
# guest (scripts/debian-guest.sh: this machine's userland over 9p, Debian's
# kernel), once on each module of CONFIGFS. targetcli-fb and
# python3-rtslib-fb are unpacked into the cache, never installed here (they
# carry units that would load LIO at boot); their pure libraries are
# installed. Each guest's console must show no kernel report. TAP with a
# plan on stdout.
#
# Environment: TOP, BUILD, CNG_CACHE, KVER, CONFIGFS.
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}" "${KVER:?}"
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"
# shellcheck source=scripts/guest-top.sh
. "$TOP/scripts/guest-top.sh"
out=${CHECK_OUT:-$BUILD/check}/targetcli
tcli=$CNG_CACHE/targetcli
mkdir -p "$out"

"$TOP/scripts/fetch-targetcli.sh" "$tcli" > "$out/fetch.log" 2>&1 ||
	tap_fail targetcli:fetch "$out/fetch.log"
tap_ok targetcli:fetch
gtop=$(guest_top targetcli module/configfs.ko tools/configfs/configfs) ||
	{ echo "check-targetcli: cannot copy the tree" >&2; exit 1; }

ncf=0
for cf in ${CONFIGFS:-ours stock}; do
	echo "# targetcli on $cf configfs"
	# Nothing may load configfs at boot: systemd's mount of it lives on
	# in services' private mount namespaces, pinning the stock module.
	# The test loads ours with insmod, stock with modprobe by name.
	tap_stream "targetcli_on_$cf" env \
		GUEST_APPEND="modprobe.blacklist=configfs oops=panic" \
		"$TOP/scripts/debian-guest.sh" \
		--kver "$KVER" --timeout 1500 --console "$out/console-$cf.log" \
		"$TOP/tests/debian/targetcli.sh" "$gtop" "$cf" "$tcli"
	tap_console_clean "targetcli_on_$cf:the_kernel_reported_nothing" \
		"$out/console-$cf.log"
	ncf=$((ncf + 1))
done
echo "1..$((tap_n + ncf * 8))"
