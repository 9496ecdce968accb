#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make run` without a terminal: a scripted tour of the demo VM.
set -x
grep configfs /proc/filesystems
grep configfs /proc/mounts
ls -la /sys/kernel/config
lsmod
