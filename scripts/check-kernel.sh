#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check's second kernel (issue 19): the module, the samples and
# fakenbd built from the same source against another kernel's headers, in
# copies of their directories so that the first kernel's build in place is
# left alone; their exports checked against that kernel's stock configfs
# (scripts/abi-check.sh); then the lists that prove that kernel (below) on
# each module of CONFIGFS, one guest per module at once, the second
# kernel's stock configfs.ko being the oracle. TAP with a plan on stdout.
#
# Usage: check-kernel.sh [KVER]   (default: the newest 6.12 of Debian 12
# that apt knows, asked once a day)
# Environment: TOP, BUILD, CNG_CACHE, CONFIGFS; KERNEL_LISTS (default:
# the lists below; a name is tests/AREA/NAME.list, a path is from the top).
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}"
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"
lists=${KERNEL_LISTS:-"00-smoke 05-abi 10-conformance 12-better
	13-differences 17-extensions 17-helpers 18-fakenbd 20-clients"}

kver=${1:-$("$TOP/scripts/newest-612.sh")}
[ -n "$kver" ] || { echo "no 6.12 kernel known to apt" > "$BUILD/kver.log"
	tap_fail kernel:a_second_kernel_is_known "$BUILD/kver.log"; }
out=${CHECK_OUT:-$BUILD/check}/kernel-$kver
kbuild=$out/build
mkdir -p "$out" "$kbuild"
label=$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*/k\1/p')	# k6.12

tap_prefix=$label
# shellcheck disable=SC2086
tap_lists "$out/check.list" $lists

# Headers and image, once (the kernel's source is not needed here).
env_mk=$CNG_CACHE/env-$kver.mk
if [ ! -f "$env_mk" ]; then
	KVER=$kver NO_SOURCE=1 "$TOP/scripts/prereqs.sh" > "$out/prereqs.log" 2>&1 ||
		tap_fail "$label:headers_and_image_are_installed" "$out/prereqs.log"
fi
eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/K2_\1=\2/p' "$env_mk")"
: "${K2_KDIR:?}" "${K2_KIMG:?}"
tap_ok "$label:headers_and_image_are_installed"

"$TOP/scripts/build-copy.sh" "$K2_KDIR" "$kbuild" > "$out/build.log" 2>&1 ||
	tap_fail "$label:module_samples_and_fakenbd_build_with_w1_werror" \
		"$out/build.log"
tap_ok "$label:module_samples_and_fakenbd_build_with_w1_werror"

abi=$TOP/scripts/abi-check.sh	# reads TOP/module/Module.symvers
if KDIR=$K2_KDIR TOP=$kbuild "$abi" > "$out/abi.log" 2>&1; then
	tap_ok "$label:exports_and_crcs_match_stock"
else
	sed 's/^/    # /' "$out/abi.log"
	tap_n=$((tap_n + 1))
	echo "not ok $tap_n $label:exports_and_crcs_match_stock"
fi

export KERNEL=$K2_KIMG/boot/vmlinuz-$kver KIMG=$K2_KIMG KVER=$kver
export MODULE_KO=$kbuild/module/configfs.ko SAMPLES_DIR=$kbuild/samples.ko
export TESTMODS_DIR=$kbuild/testmods.ko
export DRIVERS_DIR=$kbuild/drivers.ko
export HELPERS_KO=$kbuild/helpers/configfs_helpers.ko

ntests=$(grep -cv '^[[:space:]]*\(#\|$\)' "$out/check.list")
ncf=0
echo "# $label suites on $CONFIGFS configfs, at once"
for cf in ${CONFIGFS:-ours stock}; do
	tap_start "$out/guest-$cf.tap" env LABEL="$label-$cf:" \
		"$TOP/tests/harness/guest-suite.sh" "$cf" "$out/check.list" \
		"$out/guest-$cf"
done
wait
for cf in ${CONFIGFS:-ours stock}; do
	echo "# $label suite on $cf configfs"
	tap_stream "${label}_suite_on_$cf" tap_replay "$out/guest-$cf.tap"
	ncf=$((ncf + 1))
done

# Each suite's tests and its final check, and this script's own results.
echo "1..$((tap_n + ncf * (ntests + 1)))"
