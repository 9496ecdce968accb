#!/bin/sh
# Runner self-test: a test that never ends. The runner must time it out.
echo "KTAP version 1"
echo "1..1"
echo "# sleeping forever"
while :; do sleep 1; done
