#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The demo of `make run` (setup-run.sh started nbd-server and loaded
# fakenbd; the cwd is /sys/kernel/config): the 2005 article's fakenbd
# example, typed as a person would, working for real.

# $ COMMAND: shown as typed, then run, its output as it comes.
t() {
	printf '$ %s\n' "$*"
	sh -c "$*" 2>&1
}

say() {
	printf '\n### %s\n' "$*"
}

say "fakenbd: a network block device configured through configfs"
t ls fakenbd
t mkdir fakenbd/pending/disk1
t ls fakenbd/pending/disk1
t "echo 127.0.0.1 > fakenbd/pending/disk1/target"
t "echo disk > fakenbd/pending/disk1/device"

say "A bad value is refused, and the reason is one step away"
t "echo maybe > fakenbd/pending/disk1/rw"
t configfs why fakenbd/pending/disk1/rw

say "Commit: the rename into live/ connects and adds the disk"
t mv fakenbd/pending/disk1 fakenbd/live/
t "grep . fakenbd/live/disk1/size fakenbd/live/disk1/connected fakenbd/live/disk1/sysfs"

say "A commit that cannot work stays pending, and says why"
t mkdir fakenbd/pending/disk2
t "echo 127.0.0.1:10999 > fakenbd/pending/disk2/target"
t mv fakenbd/pending/disk2 fakenbd/live/
t configfs why fakenbd/pending/disk2

say "The disk is real: format it, mount it, use it"
t mkfs.ext4 -q /dev/disk1
t mount -t ext4 /dev/disk1 /mnt/disk1
t "echo 'configured through configfs' > /mnt/disk1/hello && cat /mnt/disk1/hello"
t df -h /mnt/disk1
t mv fakenbd/live/disk1 fakenbd/pending/
t configfs why fakenbd/live/disk1
t umount /mnt/disk1

say "The whole tree, with its values"
t configfs tree fakenbd

say "A user given one item configures it, and only it"
t chown -R cng fakenbd/pending/disk2
t "su cng -c 'echo 127.0.0.1:10809 > /sys/kernel/config/fakenbd/pending/disk2/target && echo disk > /sys/kernel/config/fakenbd/pending/disk2/device'"
t "su cng -c 'echo 0 > /sys/kernel/config/fakenbd/live/disk1/rw'"
t ls -l fakenbd/pending/disk2

say "Memory: what an item costs after drop_caches"
t "sync; echo 3 > /proc/sys/vm/drop_caches; grep cng_node_cache /proc/slabinfo | awk '{print \$1\": \"\$2\" nodes of \"\$4\" bytes\"}'"
echo "stock configfs.ko keeps 1,112 / 1,816 / 3,928 bytes pinned per item of"
echo "0 / 8 / 32 attributes; ours, one 104-byte node (make bench, bench/README.md)"

say "Save the tree, then tear it down in the right order"
t configfs save -o /tmp/fakenbd.cfs fakenbd
t cat /tmp/fakenbd.cfs
t configfs rm -r fakenbd/live/disk1 fakenbd/pending/disk2
t ls fakenbd/pending fakenbd/live

say "And back: restore makes, configures and commits, in that order"
t configfs restore /tmp/fakenbd.cfs
t "ls fakenbd/live fakenbd/pending; grep . fakenbd/live/disk1/connected fakenbd/live/disk1/disk"
t configfs rm -r fakenbd/live/disk1 fakenbd/pending/disk2
