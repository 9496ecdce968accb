#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test, last of its list: a report that comes after the last
# test has ended, as a hung-task report does (hung_task_timeout_secs after
# the task blocked). A process of its own session, which outlives the test,
# logs one in the hung-task detector's words 8 s later; the final check
# (unload_all_modules) must wait for it and fail.
set -eu
echo "KTAP version 1"
echo "1..1"
msg="<3>INFO: task cng-late:1 blocked for more than 20 seconds. (runner self-test)"
echo "# + setsid sh -c 'sleep 8; echo \"$msg\" > /dev/kmsg' &"
setsid sh -c "sleep 8; echo '$msg' > /dev/kmsg" \
	< /dev/null > /dev/null 2>&1 &
echo "ok 1 late_report_is_on_its_way"
