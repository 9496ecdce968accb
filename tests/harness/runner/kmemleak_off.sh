#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test on the debug kernel: kmemleak turned off, as it turns
# itself off when it cannot allocate its own bookkeeping. From then on no
# leak can be seen: the runner must fail this test (kmemleak says it is
# disabled, and its scan is refused).
set -eu
echo "KTAP version 1"
echo "1..1"
echo "# + echo off > /sys/kernel/debug/kmemleak"
echo off > /sys/kernel/debug/kmemleak
echo "ok 1 kmemleak_was_turned_off"
