#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runner self-test: "set -e" ends the test when a command returns 4, the
# status that means SKIP. Without a skip plan it is a failure.
set -eu
echo "KTAP version 1"
echo "1..1"
echo "# + sh -c 'exit 4'"
sh -c 'exit 4'
echo "ok 1 never_reached"
