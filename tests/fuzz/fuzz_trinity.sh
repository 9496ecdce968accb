#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# System-call fuzzing (issue 20): trinity, as the unprivileged user cng
# (uid 1000), on cng_test's tree for TRINITY_SECS seconds (default 90;
# fuzz_trinity_long.sh: 600). Only file system calls, its victim path the
# client's tree (trinity's file provider, named "pseudo", opens files of
# it), no sockets, pipes or other file kinds. It must have run
# (trinity counts its iterations) and reached the client (cng_test's event
# log, cleared before, shows callbacks). Then every process of the user is
# killed, the tree is torn down as root, and cng_test must unload; init
# checks the kernel log (on the debug kernel: KASAN, lockdep, kmemleak).
#
# Confinement: trinity runs as uid 1000 with no groups and no new
# privileges (fuzz_asuser), in its own 32 MB tmpfs (a file size limit
# would kill trinity's main process with SIGXFSZ), under limits on
# processes and memory; timeout's SIGINT ends it (trinity then
# prints what it ran), and a SIGKILL 30 s later if it has not. As
# that user it can signal only its own processes (init and this shell are
# root's) and write only /tmp, /dev/shm and what was given to it below.
#
#   cng_test/           root's: ctl, gate, events stay out of reach
#   |-- items/          chowned to 1000 (mkdir, rmdir, links)
#   |   `-- t0/         an item, chowned with its attributes
#   |-- narrow/, wide/  chowned
#   `-- n0/             a node, chowned with sub/ and their attributes
#       `-- l -> items/t0
set -eu
. ./conf_lib.sh

SECS=${TRINITY_SECS:-90}
FUZZ_UID=1000
WORK=/tmp/trinity
LOG=/tmp/trinity.out

# as_user CMD...: CMD as uid 1000, no groups
as_user() {
	fuzz_asuser "$FUZZ_UID" "$FUZZ_UID" "$@"
}

# The pids of the user's live processes (not zombies), one a line.
user_pids() {
	for st in /proc/[0-9]*/status; do
		awk -v u="$FUZZ_UID" '$1 == "State:" && $2 == "Z" { z = 1 }
			$1 == "Uid:" && $2 == u && !z { print FILENAME }' \
			"$st" 2>/dev/null
	done | sed 's|/proc/\([0-9]*\)/status|\1|'
}

kill_user() {
	as_user kill -9 -1 2>/dev/null || true
}

# Every process of the user gone within 30 s of SIGKILL.
user_gone() {
	i=0
	while [ -n "$(user_pids)" ]; do
		kill_user
		i=$((i + 1))
		if [ "$i" -ge 60 ]; then
			for p in $(user_pids); do
				echo "# still there: $p," \
					"$(cat "/proc/$p/wchan" 2>/dev/null)," \
					"$(tr '\0' ' ' < "/proc/$p/cmdline")"
			done
			return 1
		fi
		sleep 0.5
	done
}

teardown() {
	run configfs rm -r "$T/items" "$T/narrow" "$T/wide" "$T/n0" \
		"$T/fixed" >/dev/null
}

cleanup() {
	set +e
	kill_user
	user_gone >/dev/null
	teardown 2>/dev/null
	cng_loaded && rmmod cng_test
	umount "$WORK"
	rmdir "$WORK"
}
trap cleanup EXIT

# trinity_ran: its output shows children made system calls.
trinity_ran() {
	grep -i 'victim\|added\|filenames\|files' "$LOG" | head -n 10 |
		sed 's/^/# trinity: /'
	sed 's/^/# trinity: /' "$LOG" | grep -v 'Marking syscall\|AVOID' |
		tail -n 25
	grep -Eq '[0-9]+ iterations|Ran [0-9]+ syscalls' "$LOG"
}

# reached_client: cng_test logged callbacks (counted by kind) meanwhile.
reached_client() {
	sed 's/ .*//' "$T/events" | sort | uniq -c | sed 's/^/# events: /'
	grep -Eq '^(make_|store|show|bin_|allow_link|drop_)' "$T/events"
}

ktap_plan 7

if ! command -v trinity >/dev/null; then
	echo "# trinity is not in the initramfs"
	exit 1
fi
cng_load
run mkdir "$T/items/t0" "$T/n0"
run ln -s "$T/items/t0" "$T/n0/l"
run chown -R "$FUZZ_UID:$FUZZ_UID" "$T/items" "$T/narrow" "$T/wide" "$T/n0"
run mkdir -p "$WORK"
run mount -t tmpfs -o "size=32m,mode=0700,uid=$FUZZ_UID,gid=$FUZZ_UID" \
	trinity "$WORK"
before=$(cat "$T/live")
clear_events

echo "# + trinity for $SECS s as uid $FUZZ_UID"
rc=0
(
	cd "$WORK"
	# busybox ash has -u and -v, which POSIX sh lacks.
	# shellcheck disable=SC3045
	ulimit -u 256
	# shellcheck disable=SC3045
	ulimit -v 1048576
	exec timeout -s INT -k 30 "$SECS" fuzz_asuser "$FUZZ_UID" "$FUZZ_UID" \
		trinity -l off -a64 -C 4 -V "$T" \
		--disable-fds=sockets,pipes,perf,epoll,eventfd,timerfd,memfd,drm \
		-c open -c openat -c creat -c close -c read -c write \
		-c pread64 -c pwrite64 -c readv -c writev -c lseek \
		-c newstat -c newlstat -c newfstat -c fstatat64 -c statx \
		-c access -c faccessat -c mkdir -c mkdirat -c rmdir \
		-c unlink -c unlinkat -c symlink -c symlinkat -c readlink \
		-c readlinkat -c rename -c renameat -c renameat2 -c link \
		-c linkat -c chmod -c fchmod -c fchmodat -c chown -c fchown \
		-c lchown -c fchownat -c truncate -c ftruncate -c utimes \
		-c utimensat -c getdents -c getdents64 -c getxattr \
		-c lgetxattr -c fgetxattr -c setxattr -c lsetxattr \
		-c fsetxattr -c listxattr -c llistxattr -c removexattr \
		-c fsync -c fdatasync -c poll -c fcntl -c flock -c mknod \
		-c mknodat -c chdir -c fchdir -c getcwd -c statfs -c fstatfs \
		-c inotify_add_watch -c sendfile -c splice -c dup
) > "$LOG" 2>&1 || rc=$?
echo "# trinity ended with status $rc (137: SIGKILL, 30 s after SIGINT)"

check "trinity_made_system_calls" trinity_ran
check "trinity_reached_the_client" reached_client
check "every_user_process_dies" user_gone
check "tree_tears_down" teardown
check "only_root_made_objects_left" test "$(cat "$T/live")" -le "$before"
check "no_callback_on_a_dropped_item" test "$(cat "$T/late")" = 0
check "module_unloads" cng_unload
ktap_done
