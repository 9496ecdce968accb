#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fuzz_trinity.sh for ten minutes: the long form (make fuzz-syscalls).
TRINITY_SECS=600 exec sh ./fuzz_trinity.sh
