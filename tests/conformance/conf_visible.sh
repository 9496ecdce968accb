#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Attributes hidden per item (is_visible, is_bin_visible: configfs.h of
# 6.12), through the sample client cng_visible. The same on stock and ours:
# asked once per attribute, with its index, when the directory is made;
# a refused attribute has no file and no name in readdir, and it stays
# hidden (or shown) whatever "hide" says later. On a kernel whose
# configfs.h lacks is_visible the sample is not built, and the test
# skips.
#
#   cng_visible/
#     hide, asked
#     all/      color secret blob key     made with nothing hidden
#     some/     color blob                made with "secret key" hidden
set -eu
. ./conf_lib.sh

V=$CFS/cng_visible
KO=/lib/modules/cng/cng_visible.ko
if [ ! -f "$KO" ]; then
	echo "KTAP version 1"
	echo "1..0 # SKIP this kernel's configfs.h has no is_visible"
	exit 4
fi

cleanup() {
	rmdir "$V/all" "$V/some" 2>/dev/null || true
	rmmod cng_visible 2>/dev/null || true
}
trap cleanup EXIT

listing_is() {
	[ "$(ls "$1" | tr '\n' ' ')" = "$2" ] && return 0
	echo "# ls $1: '$(ls "$1" | tr '\n' ' ')', want '$2'"
	return 1
}

asked_is() {
	[ "$(cat "$V/asked" | tr '\n' ' ')" = "$1" ] && return 0
	echo "# asked: '$(cat "$V/asked" | tr '\n' ' ')', want '$1'"
	return 1
}

ktap_plan 10
run insmod "$KO"
run mkdir "$V/all"
check "nothing_hidden_shows_every_attribute" \
	listing_is "$V/all" "blob color key secret "
check "asked_once_per_attribute_with_its_index" \
	asked_is "color 0 secret 1 blob 0 key 1 "
run sh -c "echo x > $V/asked; echo 'secret key' > $V/hide"
run mkdir "$V/some"
check "refused_attributes_have_no_file" listing_is "$V/some" "blob color "
check "hidden_text_attribute_lookup_fails_enoent" \
	sys_is ENOENT read "$V/some/secret"
check "hidden_bin_attribute_lookup_fails_enoent" \
	sys_is ENOENT read "$V/some/key"
check "shown_attributes_still_work" sh -c \
	"echo red > $V/some/color && [ \"\$(cat $V/some/color)\" = red ] &&
	 [ \"\$(cat $V/some/blob)\" = blob ]"
run sh -c "echo x > $V/asked; echo '' > $V/hide"
check "later_answers_do_not_change_a_made_directory" sh -c \
	"! [ -e $V/some/secret ] && [ -e $V/all/secret ] && [ -z \"\$(cat $V/asked)\" ]"
check "readdir_again_after_eviction_still_hides" sh -c \
	"echo 3 > /proc/sys/vm/drop_caches && [ \"\$(ls $V/some | tr '\n' ' ')\" = 'blob color ' ]"
run rmdir "$V/all" "$V/some"
check "items_removable" sh -c "! [ -e $V/all ] && ! [ -e $V/some ]"
run rmmod cng_visible
check "client_unloads" sh -c "! grep -q '^cng_visible ' /proc/modules"
trap - EXIT
ktap_done
