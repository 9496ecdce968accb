#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make run`: boot a throwaway VM with our configfs and the sample clients
# loaded. With a terminal on stdin, the guest console is a shell; without
# one, a scripted tour runs and the VM powers off. DEMO_APPEND adds to the
# kernel's command line (make check shows warnings with it).
set -eu
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"
out=$BUILD/run
mkdir -p "$out"
: > "$out/empty.list"
LIST=$out/empty.list "$TOP/tests/harness/mkinitramfs.sh" "$out/initramfs.cpio.gz"
if [ -t 0 ]; then
	mode=run
	bound=
	echo "Booting the demo VM (TCG: about 10 s). Leave the shell with 'exit'."
else
	mode=tour
	bound="timeout 600"
fi
exec $bound qemu-system-x86_64 -accel tcg -cpu max -smp 2 -m 1024 \
	-nodefaults -display none -no-reboot -monitor none \
	-kernel "$KIMG/boot/vmlinuz-$KVER" -initrd "$out/initramfs.cpio.gz" \
	-append "console=ttyS0 quiet loglevel=3 panic=-1 cng.mode=$mode cng.configfs=${CONFIGFS_RUN:-ours} ${DEMO_APPEND:-}" \
	-serial mon:stdio
