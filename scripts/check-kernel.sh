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
# the lists below; a name is tests/guest/NAME.list, a path is from the top).
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}"
# shellcheck source=scripts/tap-lib.sh
. "$TOP/scripts/tap-lib.sh"
lists=${KERNEL_LISTS:-"00-smoke 05-abi 10-conformance 12-better
	13-differences 17-extensions 17-helpers 18-fakenbd 20-clients"}
n=0	# results of this script's own

fail() {	# fail NAME LOG: one failing test with LOG shown, and stop
	sed 's/^/    # /' "$2" | tail -n 60
	n=$((n + 1))
	echo "not ok $n $1"
	echo "1..$n"
	exit 1
}

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

# The newest linux-headers-6.12.*+deb12-amd64 apt offers.
newest_612() {
	local f=$CNG_CACHE/kver-6.12
	if [ -f "$f" ] && [ -n "$(find "$f" -mmin -720 2>/dev/null)" ]; then
		cat "$f"
		return
	fi
	apt-cache search --names-only '^linux-headers-6\.12\..*\+deb12-amd64$' |
		sed -n 's/^linux-headers-\([^ ]*\) .*/\1/p' | sort -V | tail -n1 |
		tee "$f"
}

kver=${1:-$(newest_612)}
[ -n "$kver" ] || { echo "no 6.12 kernel known to apt" > "$BUILD/kver.log"
	fail kernel:a_second_kernel_is_known "$BUILD/kver.log"; }
out=${CHECK_OUT:-$BUILD/check}/kernel-$kver
kbuild=$out/build
mkdir -p "$out" "$kbuild"
label=$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*/k\1/p')	# k6.12

: > "$out/check.list"
for l in $lists; do
	case $l in
	*/*) f=$TOP/$l ;;
	*) f=$TOP/tests/guest/$l.list ;;
	esac
	if [ ! -f "$f" ]; then
		echo "no list $f" > "$out/lists.log"
		fail "$label:every_list_exists" "$out/lists.log"
	fi
	cat "$f" >> "$out/check.list"
done

# Headers and image, once (the kernel's source is not needed here).
env_mk=$CNG_CACHE/env-$kver.mk
if [ ! -f "$env_mk" ]; then
	KVER=$kver NO_SOURCE=1 "$TOP/scripts/prereqs.sh" > "$out/prereqs.log" 2>&1 ||
		fail "$label:headers_and_image_are_installed" "$out/prereqs.log"
fi
eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/K2_\1=\2/p' "$env_mk")"
: "${K2_KDIR:?}" "${K2_KIMG:?}"
ok "$label:headers_and_image_are_installed"

build_against() {
	local d
	for d in module samples include drivers; do
		rm -rf "${kbuild:?}/$d"
		cp -a "$TOP/$d" "$kbuild/$d"
		find "$kbuild/$d" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
			-o -name '*.mod*' -o -name '*.symvers' \
			-o -name modules.order \) -delete
	done
	make -C "$K2_KDIR" M="$kbuild/module" W=1 KCFLAGS=-Werror modules &&
	make -C "$K2_KDIR" M="$kbuild/samples" W=1 KCFLAGS=-Werror \
		KBUILD_EXTRA_SYMBOLS="$kbuild/module/Module.symvers" modules &&
	make -C "$K2_KDIR" M="$kbuild/drivers/fakenbd" W=1 KCFLAGS=-Werror \
		KBUILD_EXTRA_SYMBOLS="$kbuild/module/Module.symvers" modules &&
	rm -rf "$kbuild/samples.ko" "$kbuild/drivers.ko" &&
	mkdir -p "$kbuild/samples.ko" "$kbuild/drivers.ko" &&
	sed "s|.*/||; s|^|$kbuild/samples/|; s/\.o\$/.ko/" \
		"$kbuild/samples/modules.order" | xargs cp -t "$kbuild/samples.ko" &&
	cp "$kbuild"/drivers/fakenbd/*.ko "$kbuild/drivers.ko/"
}
build_against > "$out/build.log" 2>&1 ||
	fail "$label:module_samples_and_fakenbd_build_with_w1_werror" \
		"$out/build.log"
ok "$label:module_samples_and_fakenbd_build_with_w1_werror"

abi=$TOP/scripts/abi-check.sh	# reads TOP/module/Module.symvers
if KDIR=$K2_KDIR TOP=$kbuild "$abi" > "$out/abi.log" 2>&1; then
	ok "$label:exports_and_crcs_match_stock"
else
	sed 's/^/    # /' "$out/abi.log"
	n=$((n + 1))
	echo "not ok $n $label:exports_and_crcs_match_stock"
fi

export KERNEL=$K2_KIMG/boot/vmlinuz-$kver KIMG=$K2_KIMG KVER=$kver
export MODULE_KO=$kbuild/module/configfs.ko SAMPLES_DIR=$kbuild/samples.ko
export DRIVERS_DIR=$kbuild/drivers.ko

ntests=$(grep -cv '^[[:space:]]*\(#\|$\)' "$out/check.list")
ncf=0
echo "# $label suites on $CONFIGFS configfs, at once"
for cf in ${CONFIGFS:-ours stock}; do
	tap_start "$out/guest-$cf.tap" env LABEL="$label-$cf:" \
		"$TOP/scripts/guest-suite.sh" "$cf" "$out/check.list" \
		"$out/guest-$cf"
done
wait
for cf in ${CONFIGFS:-ours stock}; do
	echo "# $label suite on $cf configfs"
	tap_stream "${label}_suite_on_$cf" tap_replay "$out/guest-$cf.tap"
	ncf=$((ncf + 1))
done

# Each suite's tests and its final check, and this script's own results.
echo "1..$((n + ncf * (ntests + 1)))"
