#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The module loads, registers the configfs file system, and is mounted at
# /sys/kernel/config with stock's mount point, type and statfs magic.
. ./lib.sh

ktap_plan 5

check "filesystem_type_is_registered" grep -qw configfs /proc/filesystems
check "mounted_at_sys_kernel_config" \
	grep -q '^[^ ]* /sys/kernel/config configfs ' /proc/mounts
check "statfs_magic_is_configfs" \
	test "$(stat -f -c %t /sys/kernel/config)" = 62656570
check "root_is_a_directory" test -d /sys/kernel/config
check "umount_and_mount_again" sh -c \
	'umount /sys/kernel/config && mount -t configfs none /sys/kernel/config'
ktap_done
