#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: null_blk is in the image but does not load, as when
# configfs_register_subsystem is broken (here modprobe is a function that
# fails). mod_lib.sh's nullb_setup must fail the test, not skip it: the
# module's tests would otherwise vanish with the bug they test.
modprobe() {
	echo "modprobe: $*: made to fail"
	return 1
}
. ./lib.sh
. ./mod_lib.sh
set -eu
nullb_setup
ktap_plan 1
check "null_blk_loaded" test -d "$NB"
ktap_done
