#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The selftest as the kernel tree builds and installs it (make -C
# tools/testing/selftests TARGETS=filesystems/configfs install, by
# scripts/check-intree.sh into /kselftest), run by the kselftest runner
# on the in-tree kernel, with the samples of samples/configfs loaded by
# modprobe. Every one of its tests must pass: a sample not built would
# be a skip, and fails here.
set -u
KS=/kselftest
[ -x "$KS/run_kselftest.sh" ] || { echo "1..0 # SKIP no $KS (make check-intree)"; exit 4; }
echo "1..2"
# Appended to, not truncated: the runner writes the test's own output
# through a second descriptor it opens on /dev/stdout (init makes that
# link, as udev does), in append mode.
: > /tmp/kselftest.out
"$KS/run_kselftest.sh" -c filesystems/configfs >> /tmp/kselftest.out 2>&1
rc=$?
sed 's/^/# /' /tmp/kselftest.out
if [ $rc -eq 0 ] && grep -q "^ok 1 selftests: filesystems/configfs: configfs.sh" /tmp/kselftest.out; then
	echo "ok 1 run_kselftest_passes"
else
	echo "not ok 1 run_kselftest_passes # exit $rc"
fi
if grep -q "Totals: pass:[1-9][0-9]* fail:0 xfail:0 xpass:0 skip:0" /tmp/kselftest.out; then
	echo "ok 2 every_test_ran_none_skipped"
else
	echo "not ok 2 every_test_ran_none_skipped"
fi
