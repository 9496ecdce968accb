#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: more kernel log records than the ring buffer holds
# (its descriptors number a few thousand), written before the runner reads
# any of them. A report could have been among those overwritten, so the
# runner must fail the test.
set -eu
echo "KTAP version 1"
echo "1..1"
echo "# + 12000 records to /dev/kmsg, at debug level"
exec 3> /dev/kmsg
i=0
while [ $i -lt 12000 ]; do
	echo "<7>cng runner self-test: log flood record $i" >&3
	i=$((i + 1))
done
exec 3>&-
echo "ok 1 log_was_flooded"
