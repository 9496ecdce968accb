#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: leaves two processes in sessions of their own, which
# the kill of the test's process group misses (as trinity's children did
# when fuzz_trinity.sh timed out), one of root and one of uid 1000 that
# ignore SIGTERM, then never ends. The runner must time it out and kill
# both; runner/alone.sh, next, looks for them.
echo "KTAP version 1"
echo "1..1"
echo "# + setsid sh -c 'trap \"\" HUP INT TERM; while :; do sleep 1; done' cng-orphan &"
setsid sh -c 'trap "" HUP INT TERM; while :; do sleep 1; done' cng-orphan \
	< /dev/null > /dev/null 2>&1 &
echo "# + the same as uid 1000"
setsid fuzz_asuser 1000 1000 sh -c \
	'trap "" HUP INT TERM; while :; do sleep 1; done' cng-orphan \
	< /dev/null > /dev/null 2>&1 &
while :; do sleep 1; done
