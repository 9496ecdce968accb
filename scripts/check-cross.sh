#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Another architecture (CROSS_ARCH: arm64, the default, issue 38; or
# ppc64el, whose kernels have 64K pages): for Debian 12's twin of each
# kernel make check proves, on that architecture, the module, the helpers,
# the samples, the test modules and fakenbd cross-built with W=1 from the
# same source against that kernel's headers (fetched into the cache by
# scripts/prereqs.sh), in copies of their directories
# (scripts/build-copy.sh), so that the amd64 build in place is left alone;
# every module checked to be an object of that machine with that kernel's
# vermagic; our exports checked against the stock configfs of that
# kernel's Module.symvers (scripts/abi-check.sh: the CRCs differ from
# amd64's, so a module built for amd64 fails it). Then the tool,
# cross-built static.
#
# The twins: 6.1.0-N-amd64 has 6.1.0-N-arm64 and 6.1.0-N-powerpc64le
# (64K pages on 6.1); 6.12.N+deb12-amd64 has 6.12.N+deb12-arm64 and
# 6.12.N+deb12-powerpc64le-64k (6.12's ppc64el flavour with 64K pages;
# the plain one has 4K).
#
# Booted too, on arm64 with ARM64_BOOT=1 and on ppc64el always: the
# guest's init and test programs cross-built static (once: user space is
# the same for both kernels); then, for each kernel, its image and a
# busybox of its architecture fetched into the cache (scripts/prereqs.sh),
# and the lists of ARM64_LISTS or PPC64EL_LISTS run in QEMU
# (qemu-system-aarch64's virt machine or qemu-system-ppc64's pseries, TCG;
# tests/harness/run.sh with ARCH=arm64 or ppc64el) on each module of
# CONFIGFS, that kernel's stock configfs.ko the oracle, one guest at a
# time; then, on the first kernel, the runner's self-test (that the
# harness fails what it must in such a guest too). On ppc64el each
# kernel's configuration is checked to have 64K pages first. TAP, its
# plan at the end, on stdout.
#
# The kernels' builds run at once (each make -j1: two jobs in all).
#
# With CROSS_QUICK=1 (arm64 only: make check's quick form), the twin of
# KVER alone, booted, the smoke list and the USB gadget tests (or
# ARM64_LISTS) on the first module of CONFIGFS alone (ours by default),
# and no runner self-test: about two and a half minutes of one core.
#
# Usage: check-cross.sh [KVER...]   (releases of CROSS_ARCH; default: the
# twins of KVER and of SECOND_KVER, or of the newest 6.12, as make check
# takes them)
# Environment: TOP, BUILD, CNG_CACHE, KVER, SECOND_KVER; CROSS_ARCH,
# ARM64_BOOT, CONFIGFS, ARM64_LISTS or PPC64EL_LISTS (default: the smoke,
# ABI, conformance, differences, extensions, helpers and fakenbd lists,
# and on arm64 tests/clients/arm64-clients.list, on ppc64el
# tests/differences/page-64k.list; a name is tests/AREA/NAME.list, a
# path is from the top), TIMEOUT_SCALE (tests/harness/run.sh; 2 for the
# suites here).
set -u
: "${TOP:?run me through make}" "${BUILD:?}" "${CNG_CACHE:?}"
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"
arch=${CROSS_ARCH:-arm64}
out=${CHECK_OUT:-$BUILD/check}/$arch

# What differs between the architectures: the cross compiler, the
# machine readelf names, the end of the vermagic (the kernel's
# MODULE_ARCH_VERMAGIC), the image's name, whether to boot and what.
# twin RELEASE: the release of this architecture paired with an amd64 one.
case $arch in
arm64)
	cross=aarch64-linux-gnu- machine=AArch64 magic_end=' aarch64'
	image=vmlinuz boot=${ARM64_BOOT:-0}
	default_lists="00-smoke 05-abi 10-conformance 13-differences
		17-extensions 17-helpers 18-fakenbd
		tests/clients/arm64-clients.list"
	if [ "${CROSS_QUICK:-0}" = 1 ]; then
		boot=1 default_lists="00-smoke tests/clients/arm64-clients.list"
		CONFIGFS=${CONFIGFS:-ours}
		CONFIGFS=${CONFIGFS%% *}
	fi
	lists=${ARM64_LISTS:-$default_lists}
	twin() {
		echo "${1%-amd64}-arm64"
	} ;;
ppc64el)
	[ "${CROSS_QUICK:-0}" = 1 ] &&
		{ echo "check-cross.sh: CROSS_QUICK is arm64's alone" >&2; exit 2; }
	cross=powerpc64le-linux-gnu- machine=PowerPC64
	magic_end=' mprofile-kernel relocatable '
	image=vmlinux boot=1
	default_lists="00-smoke 05-abi 10-conformance 13-differences
		17-extensions 17-helpers 18-fakenbd
		tests/differences/page-64k.list"
	lists=${PPC64EL_LISTS:-$default_lists}
	twin() {
		case $1 in
		6.1.*)	echo "${1%-amd64}-powerpc64le" ;;
		*)	echo "${1%-amd64}-powerpc64le-64k" ;;
		esac
	} ;;
*)	echo "check-cross.sh: CROSS_ARCH=$arch: neither arm64 nor ppc64el" >&2
	exit 2 ;;
esac

if [ $# -gt 0 ]; then
	kvers=$*
else
	: "${KVER:?run me through make}"
	kvers=$(twin "$KVER")
	[ "${CROSS_QUICK:-0}" = 1 ] && SECOND_KVER=none
	case ${SECOND_KVER:-} in
	none)	;;
	'')	k2=$("$TOP/scripts/newest-612.sh")
		kvers="$kvers${k2:+ $(twin "$k2")}" ;;
	*)	kvers="$kvers $(twin "$SECOND_KVER")" ;;
	esac
fi

rm -rf "$out"
mkdir -p "$out"

# result FILE NAME CMD...: run CMD, its output to FILE; a result line
# "ok NAME", or FILE's tail as diagnostics and "not ok NAME" (and false).
# Unnumbered: numbered() numbers them.
result() {
	local log=$1 name=$2
	shift 2
	if "$@" > "$log" 2>&1; then
		echo "ok $name"
	else
		sed 's/^/    # /' "$log" | tail -n 40
		echo "not ok $name"
		return 1
	fi
}

# numbered < LINES: result lines numbered on from tap_n.
numbered() {
	local line
	while IFS= read -r line; do
		case $line in
		'ok '*)
			tap_n=$((tap_n + 1))
			line="ok $tap_n ${line#ok }" ;;
		'not ok '*)
			tap_n=$((tap_n + 1))
			line="not ok $tap_n ${line#not ok }" ;;
		esac
		printf '%s\n' "$line"
	done
}

# Every module built for KVER is an object of this machine that carries
# KVER's vermagic, and none is missing: a build for the host, or against
# other headers, fails here.
modules_are_native() {
	local dest=$1 kver=$2 ko magic n=0
	for ko in "$dest/module/configfs.ko" \
		  "$dest/helpers/configfs_helpers.ko" \
		  "$dest/drivers.ko/fakenbd.ko" \
		  "$dest"/samples.ko/*.ko "$dest"/testmods.ko/*.ko; do
		[ -f "$ko" ] || { echo "$ko: missing"; return 1; }
		readelf -h "$ko" | grep -q "^ *Machine: *$machine\$" ||
			{ echo "$ko: not a $machine object"; return 1; }
		magic=$(modinfo -F vermagic "$ko")
		case $magic in
		"$kver SMP "*"$magic_end") ;;
		*)	echo "$ko: vermagic '$magic', not $kver's"; return 1 ;;
		esac
		n=$((n + 1))
	done
	echo "$n modules, each $machine with the vermagic of $kver"
}

build() {
	local karch=$arch
	[ "$arch" = ppc64el ] && karch=powerpc
	ARCH=$karch CROSS_COMPILE=$cross "$TOP/scripts/build-copy.sh" "$@"
}

# build_one KVER KDIR OUT LABEL: build and check one kernel; its result
# lines, unnumbered, go to OUT/results.
build_one() {
	local kver=$1 kdir=$2 o=$3 label=$4
	{
		if result "$o/build.log" \
			"$label:module_samples_testmods_fakenbd_build_with_w1_werror" \
			build "$kdir" "$o/build"; then
			result "$o/arch.log" \
				"$label:every_module_is_${arch}_with_its_vermagic" \
				modules_are_native "$o/build" "$kver"
			# abi-check.sh reads TOP/module/Module.symvers.
			result "$o/abi.log" \
				"$label:exports_and_crcs_match_${arch}_stock" \
				env KDIR="$kdir" TOP="$o/build" \
				"$TOP/scripts/abi-check.sh"
			# What W=1 KCFLAGS=-Werror does not make fatal.
			grep '^WARNING: ' "$o/build.log" | sed 's/^/# /'
		else
			echo "not ok $label:every_module_is_${arch}_with_its_vermagic # no build"
			echo "not ok $label:exports_and_crcs_match_${arch}_stock # no build"
		fi
	} > "$o/results"
}

# Headers first, one kernel after the other (apt takes a lock); then the
# builds at once.
for kver in $kvers; do
	o=$out/$kver
	label=$arch-$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	mkdir -p "$o"
	if KVER=$kver NO_SOURCE=1 FOREIGN_BOOT=$boot "$TOP/scripts/prereqs.sh" \
		> "$o/prereqs.log" 2>&1 &&
	   kdir=$(sed -n 's/^KDIR := //p' "$CNG_CACHE/env-$kver.mk") &&
	   [ -f "$kdir/Module.symvers" ]; then
		tap_ok "$label:headers_of_${kver}_are_fetched"
		build_one "$kver" "$kdir" "$o" "$label" &
	else
		sed 's/^/    # /' "$o/prereqs.log" | tail -n 40
		tap_n=$((tap_n + 1))
		echo "not ok $tap_n $label:headers_of_${kver}_are_fetched"
		for name in module_samples_testmods_fakenbd_build_with_w1_werror \
			"every_module_is_${arch}_with_its_vermagic" \
			"exports_and_crcs_match_${arch}_stock"; do
			echo "not ok $label:$name # no headers"
		done > "$o/results"
	fi
done
wait
for kver in $kvers; do
	numbered < "$out/$kver/results"
done

# The tool, static (as in the guest's initramfs), from a copy of its
# sources: the amd64 objects in place are left alone.
tool_is_native() {
	local t=$out/tool
	mkdir -p "$t"
	cp "$TOP"/tools/configfs/Makefile "$TOP"/tools/configfs/*.[ch] "$t/"
	make -C "$t" CC="${cross}gcc" configfs || return 1
	readelf -h "$t/configfs" | grep -q "^ *Machine: *$machine\$" ||
		{ echo "$t/configfs: not a $machine program"; return 1; }
	if readelf -l "$t/configfs" | grep -q INTERP; then
		echo "$t/configfs: dynamically linked"
		return 1
	fi
	echo "$t/configfs: $machine, static"
}
result "$out/tool.log" "$arch:tool_cross_builds_static_for_$arch" \
	tool_is_native > "$out/tool.results"
numbered < "$out/tool.results"

# The tests' "bin" programs of this architecture, with their libraries
# (prereqs.sh's foreign_bins; a path, not the env file's: a prereqs.sh of
# another checkout may rewrite that file meanwhile).
binroot=$CNG_CACHE/bin-$arch

# The results of the guests' suites, and the suites that failed.
nsuite=0
: > "$out/suites.failed"

# The guest's init and test programs (make guest-progs), cross-built
# static into OUT/guest, with the tool built above: each a program of
# this machine# program with no interpreter.
guest_progs_are_native() {
	local f n=0
	make -C "$TOP" guest-progs BUILD="$out/guest" CC="${cross}gcc" \
		GUEST_TOOL="$out/tool/configfs" || return 1
	[ -x "$out/guest/tests/bin/configfs" ] ||
		{ echo "the tool is not among the guest's programs"; return 1; }
	for f in "$out/guest/tests/init" "$out"/guest/tests/bin/*; do
		readelf -h "$f" | grep -q "^ *Machine: *$machine\$" ||
			{ echo "$f: not a $machine program"; return 1; }
		if readelf -l "$f" | grep -q INTERP; then
			echo "$f: dynamically linked"
			return 1
		fi
		n=$((n + 1))
	done
	echo "$n programs, each $machine and static"
}

# in_guest KVER LABEL KIMG BUSYBOX WHICH CMD...: CMD with the environment
# of tests/harness/guest-suite.sh for a guest of KVER on module
# WHICH; the "bin" programs from this architecture's root (prereqs.sh).
in_guest() {
	local kver=$1 label=$2 kimg=$3 bb=$4 cf=$5 o=$out/$1
	shift 5
	ARCH=$arch BUSYBOX="$bb" KERNEL="$kimg/boot/$image-$kver" \
		BIN_ROOT="$binroot" \
		KIMG="$kimg" KVER="$kver" BUILD="$out/guest" \
		LABEL="$label-$cf:" MODULE_KO="$o/build/module/configfs.ko" \
		HELPERS_KO="$o/build/helpers/configfs_helpers.ko" \
		SAMPLES_DIR="$o/build/samples.ko" \
		TESTMODS_DIR="$o/build/testmods.ko" \
		DRIVERS_DIR="$o/build/drivers.ko" "$@"
}

# guest_suite KVER LABEL KIMG BUSYBOX WHICH: OUT/KVER/boot.list on module
# WHICH in a guest; a failure is noted in OUT/suites.failed
# (tap_stream keeps no status).
guest_suite() {
	local rc
	# TCG emulating another architecture: about 1.5 times amd64's
	# guest time, more beside other guests (diff_unregister's 1,500-deep
	# part ran past its 60 s). The runner's self-test keeps its own
	# timeouts, which it checks.
	TIMEOUT_SCALE=${TIMEOUT_SCALE:-2} in_guest "$@" \
		"$TOP/tests/harness/guest-suite.sh" "$5" \
		"$out/$1/boot.list" "$out/$1/guest-$5"
	rc=$?
	[ "$rc" -eq 0 ] || echo "$2-$5: exit status $rc" >> "$out/suites.failed"
	return "$rc"
}

# runner_selftest KVER LABEL KIMG BUSYBOX: the runner's self-test
# (tests/harness/runner-selftest.sh) in a guest of KVER, on ours:
# that a failing, hanging, WARNing, crashing, skipping, cut-short or
# leaking test fails there too. Its results as subtests, and one of ours.
runner_selftest() {
	local o=$out/$1 label=$2
	in_guest "$@" ours "$TOP/tests/harness/runner-selftest.sh" ours \
		"$o/runner-selftest" > "$o/runner-selftest.tap" 2>&1
	sed 's/^/    /' "$o/runner-selftest.tap"
	if tap_adds_up < "$o/runner-selftest.tap" &&
	   ! grep -q '^not ok' "$o/runner-selftest.tap"; then
		tap_ok "$label:runner_selftest_fails_what_it_must"
	else
		tap_n=$((tap_n + 1))
		echo "not ok $tap_n $label:runner_selftest_fails_what_it_must"
		echo "$label: runner self-test" >> "$out/suites.failed"
	fi
}

# boot_one KVER LABEL: KVER's lists on each module of CONFIGFS, one guest
# after the other (TCG runs a guest on a core; the host has two).
boot_one() {
	local kver=$1 label=$2 o=$out/$1 kimg bb cf t ntests
	kimg=$(sed -n 's/^KIMG := //p' "$CNG_CACHE/env-$kver.mk" 2>/dev/null)
	bb=$(sed -n 's/^BUSYBOX := //p' "$CNG_CACHE/env-$kver.mk" 2>/dev/null)
	if [ -n "$kimg" ] && [ -f "$kimg/boot/$image-$kver" ] &&
	   [ -n "$bb" ] && [ -f "$bb" ] && [ -d "$binroot/.debs" ]; then
		tap_ok "$label:image_busybox_and_programs_are_fetched"
	else
		sed 's/^/    # /' "$o/prereqs.log" | tail -n 40
		tap_n=$((tap_n + 1))
		echo "not ok $tap_n $label:image_busybox_and_programs_are_fetched"
		echo "$label: no image" >> "$out/suites.failed"
		return
	fi
	if ! grep -qx "ok $label:module_samples_testmods_fakenbd_build_with_w1_werror" \
		"$o/results" || ! [ -x "$out/guest/tests/init" ]; then
		tap_n=$((tap_n + 1))
		echo "not ok $tap_n $label:boots # no build of the modules or programs"
		echo "$label: no build" >> "$out/suites.failed"
		return
	fi
	# What ppc64el is booted for: a kernel of 64K pages.
	if [ "$arch" = ppc64el ]; then
		if grep -qx 'CONFIG_PPC_64K_PAGES=y' "$kimg/boot/config-$kver"
		then
			tap_ok "$label:kernel_has_64k_pages"
		else
			tap_n=$((tap_n + 1))
			echo "not ok $tap_n $label:kernel_has_64k_pages"
			echo "$label: not 64K pages" >> "$out/suites.failed"
		fi
	fi
	tap_prefix=$label
	# shellcheck disable=SC2086 # names, none with a space
	tap_lists "$o/boot.list" $lists
	ntests=$(grep -cv '^[[:space:]]*\(#\|$\)' "$o/boot.list")
	for cf in ${CONFIGFS:-ours stock}; do
		echo "# $label suite on $cf configfs"
		t=$SECONDS
		tap_stream "${label}_suite_on_$cf" \
			guest_suite "$kver" "$label" "$kimg" "$bb" "$cf"
		echo "# time: $label on $cf took $((SECONDS - t)) s"
		nsuite=$((nsuite + ntests + 1))
	done
	# The first kernel's guest proves the runner; not again for the
	# second, whose harness is the same.
	[ "$kver" = "${kvers%% *}" ] && [ "${CROSS_QUICK:-0}" != 1 ] ||
		return 0
	echo "# $label: the runner's self-test"
	t=$SECONDS
	runner_selftest "$kver" "$label" "$kimg" "$bb"
	echo "# time: $label runner self-test took $((SECONDS - t)) s"
}

if [ "$boot" = 1 ]; then
	result "$out/guest.log" "$arch:guest_programs_cross_build_static" \
		guest_progs_are_native > "$out/guest.results"
	numbered < "$out/guest.results"
	for kver in $kvers; do
		boot_one "$kver" \
			"$arch-$(echo "$kver" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')"
	done
fi

echo "1..$((tap_n + nsuite))"
! grep -q '^not ok' "$out"/*/results "$out"/*.results &&
	[ ! -s "$out/suites.failed" ]
