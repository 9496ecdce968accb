#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: kernel log lines that must fail a test although they
# are no WARN or Oops: inodes still busy at unmount, and kmemleak turning
# itself off. Written through /dev/kmsg (at debug level, so that the
# console is spared), each must be marked as a report.
set -eu
echo "KTAP version 1"
echo "1..1"
for line in \
	"VFS: Busy inodes after unmount of configfs (runner self-test)" \
	"kmemleak: Cannot allocate a kmemleak_object structure (runner self-test)" \
	"kmemleak: Kernel memory leak detector disabled (runner self-test)"; do
	echo "# + echo '<7>$line' > /dev/kmsg"
	echo "<7>$line" > /dev/kmsg
done
echo "ok 1 markers_were_logged"
