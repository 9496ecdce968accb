#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Subsystems appear and vanish with their modules; a client module is held
# while user space made items in it or holds one of its files open; the
# configfs root refuses mkdir and rmdir; modes and sizes as stock sets them.
#
#   /sys/kernel/config/
#   `-- cng_test/          appears on insmod, gone after rmmod
#       |-- ctl events late live
#       |-- fixed/inner/deep/
#       |-- items/
#       |   `-- held/      user-made: rmmod fails while it exists
#       |-- narrow/
#       `-- wide/
set -eu
. ./conf_lib.sh

cleanup() {
	set +e
	exec 3<&- 2>/dev/null
	rmdir "$T/items/held" 2>/dev/null
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

ktap_plan 14

check "subsystem_absent_before_load" test ! -e "$T"
cng_load
check "subsystem_appears_on_load" test -d "$T"
check "subsystem_holds_attributes_and_default_groups" \
	test "$(ls "$T" | tr '\n' ' ')" = \
	"ctl events fixed gate items late live narrow wide "
check "nested_default_groups_appear_with_subsystem" test -d "$T/fixed/inner/deep"
check "directory_mode_is_0755" test "$(stat -c %a "$T/items")" = 755
check "dir_nlink_counts_subdirectories" \
	test "$(stat -c %h "$T")" -eq 6 -a "$(stat -c %h "$T/items")" -eq 2
check "mkdir_in_configfs_root_fails_eperm" sys_is EPERM mkdir "$CFS/cng_x"
check "rmdir_subsystem_root_fails_eperm" sys_is EPERM rmdir "$T"
run mkdir "$T/items/held"
check "dir_nlink_grows_with_user_dirs" test "$(stat -c %h "$T/items")" -eq 3
check "module_held_while_user_items_exist" sh -c \
	'! rmmod cng_test 2>/dev/null && grep -q "^cng_test " /proc/modules'
run rmdir "$T/items/held"
echo "# + exec 3< $T/fixed/name"
exec 3< "$T/fixed/name"
check "module_held_while_attribute_open" sh -c \
	'! rmmod cng_test 2>/dev/null && grep -q "^cng_test " /proc/modules'
echo "# + exec 3<&-"
exec 3<&-
check "module_unloads_when_released" cng_unload
check "subsystem_vanishes_on_unload" test ! -e "$T"
check "configfs_root_left_as_found" test -z "$(ls "$CFS")"
ktap_done
