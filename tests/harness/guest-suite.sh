#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build an initramfs holding the test list LIST and run it in QEMU with the
# configfs module WHICH (ours or stock). TAP on stdout.
#
# Usage: guest-suite.sh WHICH LIST OUTDIR
# Environment: KERNEL (default: the image's vmlinuz), LABEL (default:
# "WHICH:"), APPEND (more kernel command line), and what mkinitramfs.sh
# takes.
set -u
which=$1 list=$2 out=$3
: "${TOP:?}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"
mkdir -p "$out"
if ! LIST=$list "$TOP/tests/harness/mkinitramfs.sh" "$out/initramfs.cpio.gz" \
		> "$out/mkinitramfs.log" 2>&1; then
	sed 's/^/    # /' "$out/mkinitramfs.log"
	echo "1..1"
	echo "not ok 1 ${LABEL:-$which:}build_initramfs"
	exit 1
fi
exec "$TOP/tests/harness/run.sh" --kernel "${KERNEL:-$KIMG/boot/vmlinuz-$KVER}" \
	--initrd "$out/initramfs.cpio.gz" --list "$list" \
	--configfs "$which" --out "$out" --label "${LABEL:-$which:}" \
	--append "${APPEND:-}"
