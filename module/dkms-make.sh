#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# DKMS's MAKE (dkms.conf): build configfs.ko for KVER into DIR. Where
# configfs-ng cannot be built (not amd64 or arm64, not a Debian 12 6.1
# or 6.12 kernel, or the build fails, as it may on a future kernel of
# either line), put the kernel's own configfs.ko in DIR instead and say why:
# DKMS then installs stock under updates/dkms and the kernel's
# installation goes on. DKMS 3.0.10 (Debian 12) has no gentler way: its
# autoinstall, which the kernel's postinst runs, fails (status 11, and
# with it the kernel's installation) for any module that fails to build
# or that a BUILD_EXCLUSIVE_* directive excludes.
#
# Usage: dkms-make.sh KVER KERNEL_SOURCE_DIR DIR ARCH   (ARCH: DKMS's,
# uname -m's name: x86_64, aarch64)
set -u

kver=$1 ksrc=$2 dir=$3 arch=$4
why=
case $arch in
x86_64|aarch64)	;;
*)	why="$arch is not amd64 (x86_64) or arm64 (aarch64), the architectures configfs-ng is built and tested on" ;;
esac
case $kver in
6.1.*|6.12.*) ;;
*)	why=${why:-"$kver is not a Debian 12 kernel of the 6.1 or 6.12 line"} ;;
esac
if [ -z "$why" ]; then
	# DKMS adds -j only to a MAKE that starts with "make".
	make -j "$(nproc)" -C "$ksrc" M="$dir" modules && exit 0
	why="its build failed (see above)"
fi
stock=$(ls "/lib/modules/$kver/kernel/fs/configfs/configfs.ko"* 2>/dev/null |
	head -n 1)
if [ -z "$stock" ]; then
	echo "configfs-ng: not built for $kver: $why; and $kver has no configfs.ko of its own"
	exit 1
fi
case $stock in
*.xz)	xz -dc "$stock" ;;
*.zst)	zstd -qdc "$stock" ;;
*)	cat "$stock" ;;
esac > "$dir/configfs.ko" || exit 1
msg="configfs-ng: not built for $kver: $why; DKMS installs the kernel's own configfs.ko ($stock) in its place"
echo "$msg"
logger -t configfs-ng "$msg" 2> /dev/null || true
