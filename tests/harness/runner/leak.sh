#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test on the debug kernel: cng_fault's leak parameter leaks a
# few allocations filled with 'L', which only kmemleak sees. kmemleak
# reports an object on the second scan that finds it unreferenced and
# unchanged, once it is 5 s old; so that the runner's scan after this test
# is that second scan, the test scans once itself and waits 6 s.
set -eu
echo "KTAP version 1"
echo "1..1"
echo "# + insmod /lib/modules/cng/cng_fault.ko"
insmod /lib/modules/cng/cng_fault.ko
echo "# + echo 1 > /sys/module/cng_fault/parameters/leak"
echo 1 > /sys/module/cng_fault/parameters/leak
echo "# + rmmod cng_fault"
rmmod cng_fault
echo "# + echo scan > /sys/kernel/debug/kmemleak"
echo scan > /sys/kernel/debug/kmemleak
echo "# + sleep 6"
sleep 6
echo "ok 1 leak_was_committed"
