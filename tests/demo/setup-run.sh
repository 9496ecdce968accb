#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# `make run`: an NBD server on loopback and the fakenbd driver, then the
# tour (tour.sh); with a terminal (cng.mode=run) a shell follows, with a
# banner of things to try.
D=/tmp/nbd
mkdir -p $D /mnt/disk1
dd if=/dev/zero of=$D/disk.img bs=1M count=64 2>/dev/null
cat > $D/config <<CONF
[generic]
	port = 10809
	allowlist = true
[disk]
	exportname = $D/disk.img
	flush = true
	trim = true
CONF
nbd-server -C $D/config 2>/dev/null
insmod /lib/modules/cng/configfs_helpers.ko
insmod /lib/modules/cng/fakenbd.ko
# nbd-server takes a moment to listen under TCG.
i=0
while ! grep -q ':2A39 00000000:0000 0A' /proc/net/tcp 2>/dev/null &&
      [ $i -lt 100 ]; do
	usleep 100000
	i=$((i + 1))
done

grep -q 'cng.mode=run' /proc/cmdline || exit 0
cd /sys/kernel/config && sh /tests/tour.sh
cat <<'BANNER'

  configfs-ng demo VM: our configfs.ko is loaded and mounted at
  /sys/kernel/config; fakenbd is loaded, and nbd-server serves the
  export "disk" (64 MiB) on 127.0.0.1:10809. Try it again:

    mkdir fakenbd/pending/d1
    echo 127.0.0.1 > fakenbd/pending/d1/target
    echo disk > fakenbd/pending/d1/device
    mv fakenbd/pending/d1 fakenbd/live/      connect: /dev/d1
    echo 0 > fakenbd/live/d1/rw               refused while live: why?
    configfs why fakenbd/live/d1/rw
    configfs tree fakenbd
    configfs watch fakenbd &                  then: killall nbd-server
    mv fakenbd/live/d1 fakenbd/pending/ && rmdir fakenbd/pending/d1

  'exit' (or Ctrl-D) powers the VM off; Ctrl-A X kills it.

BANNER
