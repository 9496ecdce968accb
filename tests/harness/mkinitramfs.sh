#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest's initramfs from initramfs.list.
#
# Usage: mkinitramfs.sh OUT.cpio.gz
# Environment: TOP (repository), BUILD (build output), KIMG (unpacked
# linux-image package, or any root holding lib/modules/$KVER), KVER, LIST
# (the test list), MODULE_KO (our configfs.ko), HELPERS_KO (the helpers'
# configfs_helpers.ko), SAMPLES_DIR (built samples), TESTMODS_DIR (built
# test modules, tests/modules), DRIVERS_DIR (built drivers: fakenbd.ko),
# EXTRA_KMODS (more in-tree modules to include), EXTRA_LIST (more list
# files, read after ours); ARCH=arm64 or ppc64el for a guest of that
# architecture (tests/harness/run.sh): BUILD's init and programs then are
# its, busybox is $BUSYBOX (its busybox-static of the host's version,
# whose applets are the host's: scripts/prereqs.sh), and a "bin" line's
# program is its architecture's, from BIN_ROOT (that architecture's
# packages of the programs and their libraries, unpacked: prereqs.sh's
# foreign_bins), with the loader and libraries scripts/elf-closure.sh
# finds there.
# Every tests/AREA/initramfs.list is read after initramfs.list, so that
# each test area declares what it needs in a file of its own. The kmod
# names this kernel does not have go to /tests/kmods-absent (one a line,
# "-" written "_").
set -eu

out=$1
here=$(cd "$(dirname "$0")" && pwd)
: "${TOP:=$(cd "$here/../.." && pwd)}"
: "${BUILD:?}" "${KIMG:?}" "${KVER:?}" "${LIST:?}"
: "${MODULE_KO:=$TOP/module/configfs.ko}" "${SAMPLES_DIR:=$BUILD/samples}"
: "${DRIVERS_DIR:=$BUILD/drivers}" "${TESTMODS_DIR:=$BUILD/testmods}"
: "${HELPERS_KO:=$TOP/helpers/configfs_helpers.ko}"
export TOP BUILD KIMG KVER LIST MODULE_KO HELPERS_KO SAMPLES_DIR DRIVERS_DIR \
	TESTMODS_DIR

stage=$(mktemp -d "${TMPDIR:-/tmp}/cng-initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
chmod 0755 "$stage"	# the guest's /: mktemp made it 0700
modroot=$KIMG/lib/modules/$KVER
kmods=""

expand() { eval "printf '%s' \"$1\""; }

# foreign: the guest is not the host's architecture (ARCH set, not x86).
foreign() {
	case ${ARCH:-} in ''|x86|x86_64) return 1 ;; esac
}

add_busybox() {
	local app bb=/bin/busybox
	foreign && bb=${BUSYBOX:?ARCH=$ARCH takes BUSYBOX}
	install -D -m 0755 "$bb" "$stage/bin/busybox"
	for app in $(/bin/busybox --list-full); do
		[ -e "$stage/$app" ] || ln -s /bin/busybox "$stage/$app"
	done
}

# add_bin PATH SOURCE: a dynamic host program with the loader and the
# libraries it names, at the paths it looks for them.
add_bin() {
	local lib
	install -D -m 0755 "$2" "$stage/$1"
	ldd "$2" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
		$1 ~ /^\// { print $1 }' | while read -r lib; do
		[ -e "$stage/$lib" ] ||
			install -D -m 0755 "$(readlink -f "$lib")" "$stage/$lib"
	done
}

# add_foreign_bin PATH SOURCE: SOURCE of BIN_ROOT, a dynamic program of
# the guest's architecture, as PATH, with its loader and libraries at the
# paths it looks for them.
add_foreign_bin() {
	local closure guest file first=1
	closure=$("$TOP/scripts/elf-closure.sh" \
		"${BIN_ROOT:?ARCH=$ARCH takes BIN_ROOT}" "$2") || {
		echo "mkinitramfs: $1: not in $BIN_ROOT, or it lacks:" >&2
		echo "$closure" | sed -n 's/^missing /  /p' >&2
		exit 1
	}
	while read -r guest file; do
		if [ "$first" = 1 ]; then
			install -D -m 0755 "$file" "$stage/$1"
			first=0
		elif [ ! -e "$stage/$guest" ]; then
			install -D -m 0755 "$file" "$stage/$guest"
		fi
	done <<< "$closure"
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
	bin)	if foreign; then
			add_foreign_bin "$1" "$(expand "$2")"
		else
			add_bin "$1" "$(expand "$2")"
		fi ;;
	kmod)	kmods="$kmods $*" ;;
	busybox) add_busybox ;;
	*)	echo "mkinitramfs: unknown line: $kind $*" >&2; exit 1 ;;
	esac
}

# The harness's list, then each area's, then the caller's.
areas=
for list in "$TOP"/tests/*/initramfs.list; do
	[ "$list" -ef "$here/initramfs.list" ] || areas="$areas $list"
done
for list in "$here/initramfs.list" $areas ${EXTRA_LIST:-}; do
	[ -f "$list" ] || continue
	while read -r kind rest; do
		case $kind in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086
		add_line "$kind" $rest
	done < "$list"
done

# in_image NAME: the kernel has a module NAME, loadable or built in.
in_image() {
	sed -e 's/:.*//' -e 's|.*/||' -e 's/\.ko.*$//' -e 's/-/_/g' \
		"$modroot/modules.dep" "$modroot/modules.builtin" 2>/dev/null |
		grep -qx -- "$(printf '%s' "$1" | tr - _)"
}

# In-tree modules with their dependency closure, resolved against the
# image. A module this kernel does not have at all (a debug kernel built
# without it) is left out and named in /tests/kmods-absent, so that a
# test needing it may skip; one it has that modprobe cannot resolve
# fails the build, since in the guest it would look absent too.
absent=
kos=
for m in $kmods ${EXTRA_KMODS:-}; do
	if ! deps=$(modprobe -d "$KIMG" -S "$KVER" --show-depends "$m" 2>&1)
	then
		if in_image "$m"; then
			echo "mkinitramfs: $m is a module of $KVER, but:" >&2
			echo "$deps" >&2
			exit 1
		fi
		echo "mkinitramfs: $m is not a module of $KVER; left out" >&2
		absent="$absent $m"
		continue
	fi
	kos="$kos $(printf '%s\n' "$deps" | sed -n 's/^insmod \([^ ]*\).*/\1/p')"
done
# Staged uncompressed (6.12's are .ko.xz): init and the tests load them by
# name, with no decompressor of their own.
for ko in $(printf '%s\n' $kos | sort -u); do
	rel=${ko#"$KIMG"}
	case $rel in
	*.ko.xz)  mkdir -p "$stage/$(dirname "$rel")"
		  xz -dc "$ko" > "$stage/${rel%.xz}" ;;
	*.ko.zst) mkdir -p "$stage/$(dirname "$rel")"
		  zstd -qdc "$ko" > "$stage/${rel%.zst}" ;;
	*)	  install -D -m 0644 "$ko" "$stage/$rel" ;;
	esac
done
mkdir -p "$stage/lib/modules/$KVER" "$stage/tests"
cp "$modroot"/modules.order "$modroot"/modules.builtin* \
	"$stage/lib/modules/$KVER/" 2>/dev/null || true
depmod -b "$stage" "$KVER"
printf '%s\n' $absent | tr - _ | sed '/^$/d' | sort -u > "$stage/tests/kmods-absent"
# What is not absent resolves in the guest as it did against the image.
for m in $kmods ${EXTRA_KMODS:-}; do
	case " $absent " in *" $m "*) continue ;; esac
	modprobe -d "$stage" -S "$KVER" --show-depends "$m" > /dev/null || {
		echo "mkinitramfs: $m does not resolve in the initramfs" >&2
		exit 1
	}
done

(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
