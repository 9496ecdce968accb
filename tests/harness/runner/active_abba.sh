#!/bin/sh
# Runner self-test on the debug kernel: lockdep knows configfs's active
# references. A data store takes a client mutex while it holds its item
# active; then the client unregisters that item's group holding the same
# mutex, so the removal waits for the item's active references under it.
# Done one after the other nothing hangs, but lockdep sees the cycle, and
# the kernel log scan must fail this test.
set -eu
T=/sys/kernel/config/cng_test
echo "KTAP version 1"
if [ "${CNG_CONFIGFS:-ours}" = stock ]; then
	echo "1..0 # SKIP stock has no active references"
	exit 4
fi
echo "1..1"
insmod /lib/modules/cng/cng_test.ko
echo "register rt1" > $T/ctl
echo abba > $T/ctl
echo x > $T/rt1/data
echo "unregister_locked rt1" > $T/ctl
rmmod cng_test
echo "ok 1 active_reference_cycle_was_committed"
