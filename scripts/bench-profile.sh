#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-profile`: one guest boot traces where a mkdir's time goes
# (bench/profile-in-guest.sh) on ours, stock and tmpfs, and prints the mean
# time per mkdir of each function a few calls deep.
#
# Environment: TOP, BUILD, KIMG, KVER (from make). Overrides: PROFILE_N
# (directories already there, default 10000), PROFILE_OPS (traced mkdirs,
# default 1000), PROFILE_DEPTH (default 4), PROFILE_SYSTEMS (default
# "ours tmpfs stock").
set -eu
: "${TOP:?run me through make}" "${BUILD:?}" "${KIMG:?}" "${KVER:?}"

out=$BUILD/bench-profile
mkdir -p "$out"
cat > "$out/config" <<CFG
PROFILE_N=${PROFILE_N:-10000}
PROFILE_OPS=${PROFILE_OPS:-1000}
PROFILE_DEPTH=${PROFILE_DEPTH:-4}
PROFILE_SYSTEMS="${PROFILE_SYSTEMS:-ours tmpfs stock}"
CFG
cat > "$out/initramfs.list" <<LIST
dir /tests/bench
file /tests/bench/config $out/config 0644
file /tests/bench/profile-in-guest.sh $TOP/bench/profile-in-guest.sh 0755
file /tests/bench/lib.sh $TOP/bench/lib.sh 0644
LIST
echo "bench/profile-in-guest.sh 3600" > "$out/profile.list"

LIST=$out/profile.list EXTRA_LIST=$out/initramfs.list \
	"$TOP/tests/harness/mkinitramfs.sh" "$out/initramfs.cpio.gz"
"$TOP/tests/harness/run.sh" --kernel "$KIMG/boot/vmlinuz-$KVER" \
	--initrd "$out/initramfs.cpio.gz" --list "$out/profile.list" \
	--configfs ours --out "$out/run" --label "profile:" \
	--append "slub_debug=- page_poison=0 init_on_free=0" | tee "$out/run.tap"
