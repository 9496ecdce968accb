#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test, after runner/orphan.sh: none of the processes it left
# in sessions of their own is still there (the runner killed them when
# the test timed out).
echo "KTAP version 1"
echo "1..1"
# The pattern does not match its own command line.
left=$(grep -l 'cng-orpha[n]' /proc/[0-9]*/cmdline 2>/dev/null)
if [ -z "$left" ]; then
	echo "ok 1 no_process_of_the_timed_out_test_is_left"
	exit 0
fi
for f in $left; do
	echo "# left: ${f%/cmdline}: $(tr '\0' ' ' < "$f")"
done
echo "not ok 1 no_process_of_the_timed_out_test_is_left"
exit 1
