#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest's initramfs from initramfs.list.
#
# Usage: mkinitramfs.sh OUT.cpio.gz
# Environment: TOP (repository), BUILD (build output), KIMG (unpacked
# linux-image package, or any root holding lib/modules/$KVER), KVER, LIST
# (the test list), MODULE_KO (our configfs.ko), SAMPLES_DIR (built
# samples), EXTRA_KMODS (more in-tree modules to include), EXTRA_LIST
# (more list files, read after ours).
# Every tests/qemu/initramfs.d/*.list is read after initramfs.list, so that
# each test area declares what it needs in a file of its own.
set -eu

out=$1
here=$(cd "$(dirname "$0")" && pwd)
: "${TOP:=$(cd "$here/../.." && pwd)}"
: "${BUILD:?}" "${KIMG:?}" "${KVER:?}" "${LIST:?}"
: "${MODULE_KO:=$TOP/module/configfs.ko}" "${SAMPLES_DIR:=$BUILD/samples}"
export TOP BUILD KIMG KVER LIST MODULE_KO SAMPLES_DIR

stage=$(mktemp -d "${TMPDIR:-/tmp}/cng-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"	# the guest's /: mktemp made it 0700
modroot=$KIMG/lib/modules/$KVER
kmods=""

expand() { eval "printf '%s' \"$1\""; }

add_busybox() {
	local app
	install -D -m 0755 /bin/busybox "$stage/bin/busybox"
	for app in $(/bin/busybox --list-full); do
		[ -e "$stage/$app" ] || ln -s /bin/busybox "$stage/$app"
	done
}

add_line() {
	local kind=$1; shift
	case $kind in
	dir)	mkdir -p "$stage/$1" ;;
	file)	install -D -m "$3" "$(expand "$2")" "$stage/$1" ;;
	slink)	mkdir -p "$stage/$(dirname "$1")"; ln -sfn "$2" "$stage/$1" ;;
	tree)	local src; src=$(expand "$2")
		mkdir -p "$stage/$1"
		if [ -d "$src" ]; then cp -a "$src/." "$stage/$1/"; fi ;;
	kmod)	kmods="$kmods $*" ;;
	busybox) add_busybox ;;
	*)	echo "mkinitramfs: unknown line: $kind $*" >&2; exit 1 ;;
	esac
}

for list in "$here/initramfs.list" "$here"/initramfs.d/*.list ${EXTRA_LIST:-}; do
	[ -f "$list" ] || continue
	while read -r kind rest; do
		case $kind in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086
		add_line "$kind" $rest
	done < "$list"
done

# In-tree modules with their dependency closure, resolved against the image.
for m in $kmods ${EXTRA_KMODS:-}; do
	modprobe -d "$KIMG" -S "$KVER" --show-depends "$m" |
		sed -n 's/^insmod \([^ ]*\).*/\1/p'
done | sort -u | while read -r ko; do
	rel=${ko#"$KIMG"}
	install -D -m 0644 "$ko" "$stage/$rel"
done
mkdir -p "$stage/lib/modules/$KVER"
cp "$modroot"/modules.order "$modroot"/modules.builtin* \
	"$stage/lib/modules/$KVER/" 2>/dev/null || true
depmod -b "$stage" "$KVER"

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
