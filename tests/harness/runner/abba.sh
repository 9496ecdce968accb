#!/bin/sh
# Runner self-test on the debug kernel: cng_fault's abba parameter commits a
# bug only a debug kernel sees. The kernel log scan must fail this test.
set -eu
echo "KTAP version 1"
echo "1..1"
insmod /lib/modules/cng/cng_fault.ko
echo 1 > /sys/module/cng_fault/parameters/abba
rmmod cng_fault
echo "ok 1 abba_was_committed"
