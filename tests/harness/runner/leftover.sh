#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: a test that loads a module and ends without unloading
# it. The module left loaded is a failure of this test, and the runner
# unloads it so that the next test starts clean.
set -eu
echo "KTAP version 1"
echo "1..1"
echo "# + insmod /lib/modules/cng/cng_fault.ko"
insmod /lib/modules/cng/cng_fault.ko
echo "ok 1 module_loaded_and_left"
