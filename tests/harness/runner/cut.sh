#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: leaves init unable to fork, so that the next test's
# start is the last thing the guest says: init moves into a cgroup whose
# pids.max it already fills, fails to fork the next test and aborts. That
# test has no verdict of the guest's; the host must fail it, then boot
# again for the one after.
set -eu
echo "KTAP version 1"
echo "1..1"
G=/sys/fs/cgroup
run() { echo "# + $*"; "$@"; }
run mkdir -p $G
run mount -t cgroup2 none $G
run sh -c "echo +pids > $G/cgroup.subtree_control"
run mkdir $G/cut
run sh -c "echo 1 > $G/cut/pids.max"
run sh -c "echo 1 > $G/cut/cgroup.procs"
echo "ok 1 init_can_no_longer_fork"
