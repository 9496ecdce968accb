#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel selftest of the in-tree form (configfs.sh, which becomes
# tools/testing/selftests/filesystems/configfs/configfs.sh) in
# configfs-ng's own guests: the samples come from /lib/modules/cng, by
# their out-of-tree names. Debian's kernels build no samples, so the
# tests on the kernel's configfs_sample are not run here, nor, on stock,
# those of the extensions; make check-intree runs them all.
. ./conf_lib.sh

run="configfs_is_mounted helper_attributes_check_their_values"
on_stock || run="$run failed_write_and_mkdir_keep_their_reason
	change_wakes_a_poller commit_by_rename_with_a_reason_when_refused"
# shellcheck disable=SC2086 # one word a test
SAMPLE_DIR=/lib/modules/cng exec ./configfs.sh $run
