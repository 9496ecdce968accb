#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: a test that passes, run after each failure mode to show
# that the suite goes on, with configfs mounted and no other module loaded
# (the runner unloads what a test leaves behind).
echo "KTAP version 1"
echo "1..1"
grep -q ' /sys/kernel/config configfs ' /proc/mounts &&
	[ "$(cut -d' ' -f1 /proc/modules)" = configfs ] &&
	echo "ok 1 configfs_is_mounted_and_alone" && exit 0
cat /proc/modules
echo "not ok 1 configfs_is_mounted_and_alone"
exit 1
