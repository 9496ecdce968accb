#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: a test that loads a module and leaves it in use (an
# item of its tree made, as a test killed halfway through building a tree
# does). The module cannot be unloaded, so the next test would start from
# another state: this test fails, and the next one gets a new boot.
set -eu
echo "KTAP version 1"
echo "1..1"
echo "# + insmod /lib/modules/cng/cng_test.ko"
insmod /lib/modules/cng/cng_test.ko
mkdir /sys/kernel/config/cng_test/items/held
echo "ok 1 module_left_in_use"
