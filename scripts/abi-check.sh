#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compare our module's exports and their modversion CRCs with the stock
# configfs entries of the target kernel's Module.symvers. Any symbol missing,
# extra, exported differently, or with another CRC fails the check: a
# prebuilt client would refuse to load against us ("disagrees about
# version of symbol").
#
# Any architecture's headers: scripts/check-cross.sh runs it with KDIR an
# arm64 tree and TOP a copy built for it (TOP/module/Module.symvers).
#
# Environment (from the top Makefile): KDIR (kernel build tree), TOP.
set -u

: "${KDIR:?run me through make, or set KDIR}"
TOP=${TOP:-$(cd "$(dirname "$0")/.." && pwd)}
ours=$TOP/module/Module.symvers
stock=$KDIR/Module.symvers

for f in "$stock" "$ours"; do
	if [ ! -r "$f" ]; then
		echo "abi-check: $f: missing (build the module first)" >&2
		exit 2
	fi
done

# name crc export-type, sorted by name
stock_list=$(awk -F'\t' '$3 == "fs/configfs/configfs" {
	print $2, $1, $4 }' "$stock" | sort)
# Our extension's exports (configfs-ng.h) are ours alone: cfgng_*, GPL.
ours_list=$(awk -F'\t' '$2 !~ /^cfgng_/ { print $2, $1, $4 }' "$ours" | sort)
bad_ext=$(awk -F'\t' '$2 ~ /^cfgng_/ && $4 != "EXPORT_SYMBOL_GPL" {
	print $2 }' "$ours")
if [ -n "$bad_ext" ]; then
	echo "abi-check: extension exports not GPL-only: $bad_ext" >&2
	exit 1
fi

if [ -z "$stock_list" ]; then
	echo "abi-check: $stock lists no symbol of fs/configfs/configfs" >&2
	exit 2
fi

if [ "$stock_list" = "$ours_list" ]; then
	n=$(echo "$ours_list" | wc -l)
	echo "abi-check: $n exports; names, CRCs and export types equal stock's"
	exit 0
fi

echo "abi-check: our exports differ from stock's ($stock):" >&2
diff -u <(echo "$stock_list") <(echo "$ours_list") |
	sed -n 's/^-\([^-]\)/  stock only or different: \1/p;
		s/^+\([^+]\)/  ours only or different:  \1/p' >&2
exit 1
