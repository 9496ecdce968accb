#!/bin/sh
# Runner self-test: an Oops kills the guest (oops=panic). The runner must
# fail this test, show the console and boot again for the next test.
set -eu
echo "KTAP version 1"
echo "1..1"
insmod /lib/modules/cng/cng_fault.ko
echo 1 > /sys/module/cng_fault/parameters/oops
echo "ok 1 survived_the_oops"
