#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: a test that skips as a test should (a "1..0 # SKIP"
# plan, exit status 4). The runner reports the skip with its reason; as no
# list of expected skips names it, the judge (tests/harness/tap-judge.sh) must
# turn it into a failure.
echo "KTAP version 1"
echo "1..0 # SKIP runner self-test: skips on purpose"
exit 4
