#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make run`: load the sample clients that exist, then show the banner.
for m in /lib/modules/cng/cng_sample.ko /lib/modules/cng/fakenbd.ko; do
	[ -f "$m" ] && insmod "$m"
done
cat <<'BANNER'

  configfs-ng demo VM: our configfs.ko is loaded and mounted.

    cat /proc/filesystems | grep configfs     the file system type
    grep configfs /proc/mounts                 mounted at /sys/kernel/config
    ls /sys/kernel/config                      subsystems of loaded clients
    lsmod                                      what is loaded

  'exit' (or Ctrl-D) powers the VM off; Ctrl-A X kills it.

BANNER
