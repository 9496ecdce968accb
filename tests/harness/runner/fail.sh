#!/bin/sh
# Runner self-test: a test that fails. Its verdict must be "not ok".
echo "KTAP version 1"
echo "1..1"
echo "not ok 1 this_case_fails_on_purpose"
exit 1
