#!/bin/sh
# Runner self-test: a kernel WARN during a test that itself passes. The
# kernel log scan must fail it.
set -eu
echo "KTAP version 1"
echo "1..1"
insmod /lib/modules/cng/cng_fault.ko
echo 1 > /sys/module/cng_fault/parameters/warn
rmmod cng_fault
echo "ok 1 warn_was_triggered"
