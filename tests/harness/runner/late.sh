#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test, last of its list: a report that comes after the last
# test has ended, as a hung-task report does (hung_task_timeout_secs after
# the task blocked). A process of its own session, which outlives the test,
# logs one in the hung-task detector's words 8 s later; the final check
# (unload_all_modules) must wait for it and fail. The test waits until
# that process has left its session: the runner kills what is left of the
# test's process group when it ends.
set -eu
echo "KTAP version 1"
echo "1..1"
msg="<3>INFO: task cng-late:1 blocked for more than 20 seconds. (runner self-test)"
rm -f /tmp/late.detached
echo "# + setsid sh -c 'touch /tmp/late.detached; sleep 8; echo \"$msg\" > /dev/kmsg' &"
setsid sh -c "touch /tmp/late.detached; sleep 8; echo '$msg' > /dev/kmsg" \
	< /dev/null > /dev/null 2>&1 &
i=0
while [ ! -e /tmp/late.detached ]; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "not ok 1 late_report_is_on_its_way"; exit 1; }
	usleep 100000
done
echo "ok 1 late_report_is_on_its_way"
