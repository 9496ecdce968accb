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
# Each patch of the series is built too, with the quick form's config,
# as a bisection would build it.
#
# INTREE_MODE=quick (make check's form): without the debug kernel's
# costly checkers (scripts/nodebug-kernel.config), the conformance list
# one real client and the kernel selftest. INTREE_MODE=full (the default of make
# check-intree): KASAN, lockdep and kmemleak on, the conformance,
# differences and extensions lists, the four real clients and the
# kernel selftest.
#
# INTREE_MODULAR=1: the whole series with CONFIG_CONFIGFS_FS=m
# (scripts/intree-modular.config), built in the built-in kernel's
# directory (one setting apart); the tree's configfs.ko loaded as ours is, the conformance list
# and the nvmet client.
#
# INTREE_AT=N: the kernel at the series' patch N in place of the whole
# series (the switch is patch 7), the patches before it built one by
# one; the conformance list by default, the samples that need a later
# patch built but not loadable.
#
# INTREE_EACH=0: the patches before the last are not built one by one
# (make check's form: make check-intree builds them).
#
# INTREE_PHASE=build: stop once the kernel, the samples and the selftest
# are built; INTREE_PHASE=boot: boot what that phase left in the output
# folder and run the lists; with INTREE_WAIT_FOR=FILE, once FILE exists
# (make check's record of the build phase's exit status). make check
# runs the build at the lowest priority on the cycles its guests leave,
# and the boot beside the debug suites' last part. Unset: both, one
# after the other.
#
# Environment: TOP, BUILD, CNG_CACHE; INTREE_MODE; INTREE_LISTS (in place
# of the mode's lists); INTREE_MODULAR; INTREE_AT; INTREE_EACH;
# INTREE_PHASE; INTREE_WAIT_FOR.
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}"
mode=${INTREE_MODE:-full}
out=${CHECK_OUT:-$BUILD/check}/intree-$mode
kbuild=$out/build
mkdir -p "$out" "$kbuild"
fragments="$TOP/scripts/debug-kernel.config"
small="$fragments $TOP/scripts/nodebug-kernel.config $TOP/scripts/intree-kernel.config"
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
modular=${INTREE_MODULAR:-}
how=built_in
if [ -n "$modular" ]; then
	how=as_a_module
	fragments="$fragments $TOP/scripts/intree-modular.config"
	kname=$kname-m
	out=$out-modular
	kbuild=$out/build
	mkdir -p "$out" "$kbuild"
	lists="10-conformance tests/clients/intree-clients.list"
	# One setting from the built-in kernel: built in its directory.
	export DK_DIR_OF=${kname%-m}
fi
at=${INTREE_AT:-}
if [ -n "$at" ]; then
	out=$out-at-$at
	kbuild=$out/build
	mkdir -p "$out" "$kbuild"
	lists=10-conformance
fi
lists=${INTREE_LISTS:-$lists}
phase=${INTREE_PHASE:-}
case $phase in
''|build|boot) ;;
*)	echo "check-intree: INTREE_PHASE is build or boot, not '$phase'" >&2
	exit 2 ;;
esac
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"

tap_prefix=intree
# shellcheck disable=SC2086
tap_lists "$out/check.list" $lists

# kernel_env: the built kernel's settings (kernel.env, debug-kernel.sh's
# output), and where the tree's own configfs.ko is when it has one.
kernel_env() {
	eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/\1=\2/p' "$out/kernel.env")"
	: "${DKVER:?}" "${DKDIR:?}" "${DKIMG:?}" "${DKMODS:?}"
	in_tree_ko=$DKMODS/lib/modules/$DKVER/kernel/fs/configfs/configfs.ko
}

# intree_build: the series applied, the kernel (and the patches before
# the last, one by one) built, the samples and the selftest built
# against it; a result each.
intree_build() {
	# One run at a time from here to the built kernel: series.sh rewrites the
	# tree that the build reads (its own lock covers only the rewrite).
	exec 8> "$CNG_CACHE/intree-tree.lock"
	flock 8
	"$TOP/scripts/series.sh" "$out/series" > "$out/series.out" 2> "$out/series.log" ||
		tap_fail intree:series_applies_to_linux_source_6_12 "$out/series.log"
	tap_ok intree:series_applies_to_linux_source_6_12
	tree=$(tail -n 1 "$out/series.out")

	# Every patch builds, as a bisection would build it: each commit of the
	# series before the last with the small config (the quick kernel's);
	# the last is the kernel built below. In the full mode, the small build
	# of the last comes first, on its own.
	mapfile -t commits < <(git -C "$tree" rev-list --reverse base..series)
	if [ -n "$at" ]; then
		[ "$at" -ge 1 ] && [ "$at" -le "${#commits[@]}" ] || {
			echo "check-intree: INTREE_AT is 1 to ${#commits[@]}, not '$at'" >&2
			exit 2
		}
		commits=("${commits[@]:0:$at}")
		git -C "$tree" checkout -q -f "${commits[$at - 1]}"
		# What the fragments ask of later patches (the helpers, samples).
		export DK_NO_CHECK=1
		echo "# at patch $at: $(git -C "$tree" log -1 --format=%s HEAD)"
	fi
	steps=("${commits[@]:0:${#commits[@]}-1}")
	[ "$mode" = quick ] || steps=("${commits[@]}")
	[ "${INTREE_EACH:-1}" != 0 ] || steps=()
	# The modular kernel is one boot of the whole series: its steps are the
	# built-in run's.
	[ -z "$modular" ] || steps=()
	export DK_STEPS="${steps[*]}" DK_STEPS_OUT=$out/steps
	if [ "$mode" != quick ] && [ ${#steps[@]} -gt 0 ]; then
		KTREE=$tree KNAME=intree DKCONFIG=$small \
			"$TOP/scripts/debug-kernel.sh" > /dev/null 2> "$out/steps.log" ||
			tap_fail intree:series_builds_patch_by_patch "$out/steps.log"
		unset DK_STEPS
	fi
	KTREE=$tree KNAME=$kname DKCONFIG=$fragments \
		"$TOP/scripts/debug-kernel.sh" > "$out/kernel.env" 2> "$out/kernel.log" ||
		tap_fail "intree:kernel_builds_with_configfs_$how" "$out/kernel.log"
	flock -u 8
	i=0
	for c in "${steps[@]}"; do
		i=$((i + 1))
		name=$(printf 'intree:patch_%02d_builds' "$i")
		echo "# patch $i: $(git -C "$tree" log -1 --format=%s "$c")"
		if grep -qx "ok $c" "$out/steps"; then
			tap_ok "$name"
		else
			tail -n 30 "$out/steps.$c" | sed 's/^/    # /'
			tap_n=$((tap_n + 1))
			echo "not ok $tap_n $name"
		fi
	done
	kernel_env
	if [ -n "$modular" ]; then
		if grep -qx 'CONFIG_CONFIGFS_FS=m' "$DKDIR/.config" &&
		   ! grep -q ' cng_init$' "$DKDIR/System.map" &&
		   modinfo -F version "$in_tree_ko" | grep -qx "$(cat "$TOP/module/VERSION")"; then
			tap_ok "intree:kernel_builds_with_configfs_$how"
		else
			echo "configfs-ng is not $in_tree_ko of $DKDIR" > "$out/builtin.log"
			tap_fail "intree:kernel_builds_with_configfs_$how" "$out/builtin.log"
		fi
	elif grep -qx 'CONFIG_CONFIGFS_FS=y' "$DKDIR/.config" &&
	   grep -q ' cng_init$' "$DKDIR/System.map"; then
		tap_ok intree:kernel_builds_with_configfs_built_in
	else
		echo "configfs-ng is not built into $DKDIR" > "$out/builtin.log"
		tap_fail intree:kernel_builds_with_configfs_built_in "$out/builtin.log"
	fi

	# Before the whole series, what calls a later patch's exports builds
	# but will not load (modpost only warns).
	[ -z "$at" ] || export KBUILD_MODPOST_WARN=1
	INTREE=1 "$TOP/scripts/build-copy.sh" "$DKDIR" "$kbuild" > "$out/build.log" 2>&1 ||
		tap_fail intree:samples_build_against_it "$out/build.log"
	tap_ok intree:samples_build_against_it

	# The selftest as the tree builds and installs it (static, for the
	# guest's busybox root), and the in-tree samples it loads by modprobe.
	# Before patch 14, at INTREE_AT, there is none.
	rm -f "$out/kselftest.initramfs"
	if [ -z "$at" ] || [ -d "$tree/tools/testing/selftests/filesystems/configfs" ]; then
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
	fi
}

# The boot needs the build phase's mark that it ended well, made last.
if [ "$phase" = boot ]; then
	# Unbounded: make check's tap_start writes the file however the
	# build ends; only a kill of make check itself leaves it missing.
	while [ -n "${INTREE_WAIT_FOR:-}" ] && [ ! -e "$INTREE_WAIT_FOR" ]; do
		sleep 5
	done
	[ -f "$out/built" ] || {
		echo "no kernel built by INTREE_PHASE=build in $out" > "$out/boot.log"
		tap_fail intree:kernel_was_built "$out/boot.log"
	}
	kernel_env
else
	rm -f "$out/built"
	intree_build
	touch "$out/built"
	if [ "$phase" = build ]; then
		echo "1..$tap_n"
		exit 0
	fi
fi

export KERNEL=$DKIMG KIMG=$DKMODS KVER=$DKVER
if [ -f "$out/kselftest.initramfs" ]; then
	export EXTRA_LIST=$out/kselftest.initramfs
	export EXTRA_KMODS="configfs_sample configfs_sample_ext configfs_sample_commit
		configfs_sample_helpers"
fi
# No configfs.ko: the kernel has it built in, and init loads none
# (cng.configfs=builtin); the initramfs's place for it stays empty.
: > "$out/no-configfs.ko"
export MODULE_KO=$out/no-configfs.ko SAMPLES_DIR=$kbuild/samples.ko
export TESTMODS_DIR=$kbuild/testmods.ko DRIVERS_DIR=$kbuild/drivers.ko
export HELPERS_KO=$DKMODS/lib/modules/$DKVER/kernel/fs/configfs/helpers/configfs_helpers.ko
# Before patch 12, at INTREE_AT, there is no helper library either.
[ -z "$at" ] || [ -f "$HELPERS_KO" ] || HELPERS_KO=$out/no-configfs.ko
if [ "$mode" = full ]; then
	export TIMEOUT_SCALE=${TIMEOUT_SCALE:-4} QEMU_MEM=${QEMU_MEM:-1536}
	export APPEND="kmemleak=on ${APPEND:-}"
fi

# Modular: the tree's own configfs.ko, loaded by init as ours is.
which=builtin
if [ -n "$modular" ]; then
	which=ours
	MODULE_KO=$in_tree_ko
fi

ntests=$(grep -cv '^[[:space:]]*\(#\|$\)' "$out/check.list")
tap_stream "intree_suite_on_$which" env LABEL="intree-$mode${modular:+-modular}:" \
	"$TOP/tests/harness/guest-suite.sh" "$which" "$out/check.list" "$out/guest"
echo "1..$((tap_n + ntests + 1))"
