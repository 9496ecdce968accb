#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the module, the helpers, the samples, the test modules and
# fakenbd against another kernel tree,
# in copies of their directories (and of include/, which they use), so
# that the build in place for the Makefile's kernel is left alone. Used by
# scripts/check-debug.sh (the debug kernel) and scripts/check-kernel.sh
# (the second kernel). Leaves DEST/module/configfs.ko,
# DEST/helpers/configfs_helpers.ko, and what the kernel built of the
# others in DEST/samples.ko/, DEST/testmods.ko/ and DEST/drivers.ko/.
#
# Usage: build-copy.sh KDIR DEST   (environment: TOP; INTREE=1 for a
# kernel with configfs and its helpers in the tree, scripts/check-intree.sh:
# neither the module nor the helpers are built here, and the others link
# to the kernel's own exports)
set -eu
: "${TOP:?run me through make}"
kdir=$1 dest=$2

mkdir -p "$dest"
for d in module helpers samples include drivers tests/modules; do
	rm -rf "${dest:?}/$d"
	mkdir -p "$(dirname "$dest/$d")"
	cp -a "$TOP/$d" "$dest/$d"
	find "$dest/$d" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' \
		-o -name '*.mod*' -o -name '*.symvers' -o -name modules.order \) \
		-delete
done
syms="KBUILD_EXTRA_SYMBOLS=$dest/module/Module.symvers $dest/helpers/Module.symvers"
if [ "${INTREE:-0}" = 1 ]; then
	syms=KBUILD_EXTRA_SYMBOLS=
else
	make -C "$kdir" M="$dest/module" W=1 KCFLAGS=-Werror modules
	make -C "$kdir" M="$dest/helpers" W=1 KCFLAGS=-Werror modules
fi
make -C "$kdir" M="$dest/samples" W=1 KCFLAGS=-Werror "$syms" modules
make -C "$kdir" M="$dest/tests/modules" W=1 KCFLAGS=-Werror "$syms" modules
make -C "$kdir" M="$dest/drivers/fakenbd" W=1 KCFLAGS=-Werror "$syms" modules
# What this kernel built (cng_slot is 6.1's, cng_visible 6.12's).
for d in samples:samples tests/modules:testmods drivers/fakenbd:drivers; do
	out=$dest/${d#*:}.ko
	d=${d%%:*}
	rm -rf "$out"
	mkdir -p "$out"
	sed "s|.*/||; s|^|$dest/$d/|; s/\.o\$/.ko/" "$dest/$d/modules.order" |
		xargs -r cp -t "$out"
done
