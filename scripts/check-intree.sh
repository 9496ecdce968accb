#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-intree`: configfs-ng as the kernel's own configfs. The patch
# series (scripts/series.sh) applied to Debian's linux-source-6.12, built
# with CONFIG_CONFIGFS_FS=y and the real clients as modules
# (scripts/intree-kernel.config over scripts/debug-kernel.config), booted
# in QEMU with no configfs module loaded (cng.configfs=builtin), and the
# test lists run there. TAP with a plan on stdout, for
# tests/harness/check.sh.
#
# INTREE_MODE=quick (make check's form): without the debug kernel's
# costly checkers (scripts/nodebug-kernel.config), the conformance list
# one real client and the kernel selftest. INTREE_MODE=full (the default of make
# check-intree): KASAN, lockdep and kmemleak on, the conformance,
# differences and extensions lists, the four real clients and the
# kernel selftest.
#
# Environment: TOP, BUILD, CNG_CACHE; INTREE_MODE; INTREE_LISTS (in place
# of the mode's lists).
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}"
mode=${INTREE_MODE:-full}
out=${CHECK_OUT:-$BUILD/check}/intree-$mode
kbuild=$out/build
mkdir -p "$out" "$kbuild"
fragments="$TOP/scripts/debug-kernel.config"
case $mode in
quick)
	kname=intree
	fragments="$fragments $TOP/scripts/nodebug-kernel.config"
	lists="10-conformance tests/clients/intree-clients.list
		tests/kselftest/intree-kselftest.list" ;;
full)
	kname=intree-debug
	lists="10-conformance 13-differences 17-extensions 20-clients
		tests/kselftest/intree-kselftest.list" ;;
*)
	echo "check-intree: INTREE_MODE is quick or full, not '$mode'" >&2
	exit 2 ;;
esac
fragments="$fragments $TOP/scripts/intree-kernel.config"
lists=${INTREE_LISTS:-$lists}
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"

tap_prefix=intree
# shellcheck disable=SC2086
tap_lists "$out/check.list" $lists

# One run at a time from here to the built kernel: series.sh rewrites the
# tree that the build reads (its own lock covers only the rewrite).
exec 8> "$CNG_CACHE/intree-tree.lock"
flock 8
"$TOP/scripts/series.sh" "$out/series" > "$out/series.out" 2> "$out/series.log" ||
	tap_fail intree:series_applies_to_linux_source_6_12 "$out/series.log"
tap_ok intree:series_applies_to_linux_source_6_12
tree=$(tail -n 1 "$out/series.out")

KTREE=$tree KNAME=$kname DKCONFIG=$fragments \
	"$TOP/scripts/debug-kernel.sh" > "$out/kernel.env" 2> "$out/kernel.log" ||
	tap_fail intree:kernel_builds_with_configfs_built_in "$out/kernel.log"
flock -u 8
eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/\1=\2/p' "$out/kernel.env")"
: "${DKVER:?}" "${DKDIR:?}" "${DKIMG:?}" "${DKMODS:?}"
if grep -qx 'CONFIG_CONFIGFS_FS=y' "$DKDIR/.config" &&
   grep -q ' cng_init$' "$DKDIR/System.map"; then
	tap_ok intree:kernel_builds_with_configfs_built_in
else
	echo "configfs-ng is not built into $DKDIR" > "$out/builtin.log"
	tap_fail intree:kernel_builds_with_configfs_built_in "$out/builtin.log"
fi

INTREE=1 "$TOP/scripts/build-copy.sh" "$DKDIR" "$kbuild" > "$out/build.log" 2>&1 ||
	tap_fail intree:samples_build_against_it "$out/build.log"
tap_ok intree:samples_build_against_it

# The selftest as the tree builds and installs it (static, for the
# guest's busybox root), and the in-tree samples it loads by modprobe.
rm -rf "$out/kselftest"
make -C "$tree/tools/testing/selftests" TARGETS=filesystems/configfs \
	LDFLAGS=-static INSTALL_PATH="$out/kselftest" install \
	> "$out/kselftest.log" 2>&1 &&
	[ -x "$out/kselftest/filesystems/configfs/configfs_ext_util" ] ||
	tap_fail intree:kselftest_builds_and_installs "$out/kselftest.log"
tap_ok intree:kselftest_builds_and_installs
# The kselftest runner calls "timeout --foreground", which busybox's
# timeout refuses: coreutils' takes its place.
printf '%s\n' "tree /kselftest $out/kselftest" \
	"bin /usr/bin/timeout /usr/bin/timeout" > "$out/kselftest.initramfs"
export EXTRA_LIST=$out/kselftest.initramfs
export EXTRA_KMODS="configfs_sample configfs_sample_ext configfs_sample_commit
	configfs_sample_helpers"

export KERNEL=$DKIMG KIMG=$DKMODS KVER=$DKVER
# No configfs.ko: the kernel has it built in, and init loads none
# (cng.configfs=builtin); the initramfs's place for it stays empty.
: > "$out/no-configfs.ko"
export MODULE_KO=$out/no-configfs.ko SAMPLES_DIR=$kbuild/samples.ko
export TESTMODS_DIR=$kbuild/testmods.ko DRIVERS_DIR=$kbuild/drivers.ko
export HELPERS_KO=$DKMODS/lib/modules/$DKVER/kernel/fs/configfs/helpers/configfs_helpers.ko
if [ "$mode" = full ]; then
	export TIMEOUT_SCALE=${TIMEOUT_SCALE:-4} QEMU_MEM=${QEMU_MEM:-1536}
	export APPEND="kmemleak=on ${APPEND:-}"
fi

ntests=$(grep -cv '^[[:space:]]*\(#\|$\)' "$out/check.list")
tap_stream intree_suite_on_builtin env LABEL="intree-$mode:" \
	"$TOP/tests/harness/guest-suite.sh" builtin "$out/check.list" "$out/guest"
echo "1..$((tap_n + ntests + 1))"
