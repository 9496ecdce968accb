#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# configfs as user space sees it, through the kernel's sample clients:
# directories made and removed, attributes read and written, what is
# refused; then configfs-ng's extensions: the reason of a failed call,
# a change that wakes a poller, an item committed by rename(2), and the
# helper library's typed attributes. KTAP on stdout; exit 0 when every
# test passed or was skipped, 1 otherwise, 4 when none could run.
#
# In the kernel tree: tools/testing/selftests/filesystems/configfs/
# (make -C tools/testing/selftests TARGETS=filesystems/configfs
# run_tests), with samples/configfs/ built as modules. In configfs-ng's
# own guests (tests/kselftest/), the same file with its samples loaded
# from SAMPLE_DIR by their out-of-tree names.
#
# Usage: configfs.sh [TEST...]   only the tests named (all by default)
# Environment: SAMPLE_DIR, a directory of sample .ko files to insmod when
# modprobe does not know a sample.

CFS=/sys/kernel/config
HERE=$(dirname "$0")
UTIL=$HERE/configfs_ext_util
[ -x "$UTIL" ] || UTIL=$HERE/bin/configfs_ext_util	# configfs-ng's guests
LOG=$(mktemp)
trap 'rm -f "$LOG" "$LOG.run" "$LOG.poll"' EXIT
ntest=0
npass=0
nfail=0
nskip=0
loaded=

ktap_result() {	# RESULT NAME [DIRECTIVE]
	ntest=$((ntest + 1))
	echo "$1 $ntest $2${3:+ # $3}"
}

# check NAME FUNCTION: FUNCTION's status is NAME's result; a status of 4
# skips it (the function says why, as its last line of output).
check() {
	"$2" > "$LOG" 2>&1
	rc=$?
	sed '/^$/d; s/^/# /' "$LOG"
	case $rc in
	0)	npass=$((npass + 1)); ktap_result ok "$1" ;;
	4)	nskip=$((nskip + 1))
		ktap_result ok "$1" "SKIP $(tail -n 1 "$LOG")" ;;
	*)	nfail=$((nfail + 1)); ktap_result "not ok" "$1" ;;
	esac
}

# fails CMD...: CMD must fail.
fails() {
	if "$@" 2>/dev/null; then
		echo "succeeded, should have failed: $*"
		return 1
	fi
}

# load NAME OLDNAME [OLDDEP]: the sample module NAME, or OLDNAME.ko of
# SAMPLE_DIR after OLDDEP.ko there; what it loads is unloaded at the end.
load() {
	grep -q "^$1 \|^$2 " /proc/modules && return 0
	if modprobe -q "$1" 2>/dev/null; then
		loaded="$1 $loaded"
		return 0
	fi
	[ -n "${SAMPLE_DIR:-}" ] && [ -f "$SAMPLE_DIR/$2.ko" ] || return 1
	if [ -n "${3:-}" ] && ! grep -q "^$3 " /proc/modules; then
		insmod "$SAMPLE_DIR/$3.ko" || return 1
		loaded="$3 $loaded"
	fi
	insmod "$SAMPLE_DIR/$2.ko" || return 1
	loaded="$2 $loaded"
}

# has_record PATH TEXT: PATH's failure record holds TEXT.
has_record() {
	rec=$("$UTIL" why "$1") || return 1
	printf '%s\n' "$rec" | grep -q -- "$2" || {
		echo "$1: no '$2' in its record:"
		printf '%s\n' "$rec"
		return 1
	}
}

t_mounted() {
	awk -v d="$CFS" '$2 == d && $3 == "configfs" { f = 1 } END { exit !f }' \
		/proc/mounts
}

# The kernel's own sample (samples/configfs/configfs_sample.c).
sample() {
	load configfs_sample configfs_sample || {
		echo "no configfs_sample module (CONFIG_SAMPLE_CONFIGFS)"
		return 4
	}
}

t_childless() {
	sample || return
	d=$CFS/01-childless
	grep -q . "$d/description" &&
	a=$(cat "$d/showme") && b=$(cat "$d/showme") &&
	[ "$b" -eq $((a + 1)) ] &&
	echo 42 > "$d/storeme" && [ "$(cat "$d/storeme")" = 42 ] &&
	fails sh -c "echo x > $d/description"
}

t_mkdir_rmdir() {
	sample || return
	d=$CFS/02-simple-children
	mkdir "$d/one" && [ -f "$d/one/storeme" ] &&
	echo 7 > "$d/one/storeme" && [ "$(cat "$d/one/storeme")" = 7 ] &&
	fails mkdir "$d/one" &&
	fails touch "$d/file" && fails mv "$d/one" "$d/two" &&
	rmdir "$d/one" && [ ! -e "$d/one" ] && fails rmdir "$d/one"
}

t_groups() {
	sample || return
	d=$CFS/03-group-children
	mkdir "$d/g" && mkdir "$d/g/c" && fails rmdir "$d/g" &&
	rmdir "$d/g/c" && rmdir "$d/g" && [ ! -e "$d/g" ]
}

# configfs-ng's extensions (samples/configfs/configfs_sample_ext.c).
ext() {
	[ -x "$UTIL" ] || { echo "no $UTIL"; return 4; }
	grep -qw cfgng_report /proc/kallsyms || {
		echo "this configfs has no extensions (no cfgng_report)"
		return 4
	}
	load configfs_sample_ext cng_ext || {
		echo "no configfs_sample_ext module (CONFIG_SAMPLE_CONFIGFS_NG)"
		return 4
	}
}

t_reason() {
	ext || return
	i=$CFS/cng_ext/items/i
	mkdir "$i" &&
	fails sh -c "echo maybe > $i/rw" &&
	has_record "$i/rw" "write rw 'maybe': -\(EINVAL\|22\)" &&
	has_record "$i/rw" "reason: rw: 'maybe' is not one of 0, 1" &&
	has_record "$i" "reason: rw:" &&
	echo 1 > "$i/rw" && fails "$UTIL" why "$i/rw" &&
	fails mkdir "$CFS/cng_ext/items/bad1" &&
	has_record "$CFS/cng_ext/items" "mkdir bad1" &&
	rmdir "$i"
}

t_poll() {
	ext || return
	i=$CFS/cng_ext/items/p
	mkdir "$i" || return
	"$UTIL" poll "$i/counter" 20000 > "$LOG.poll" &
	poller=$!
	sleep 1
	echo 3 > "$i/tick"
	wait "$poller"
	rc=$?
	cat "$LOG.poll"
	rm -f "$LOG.poll"
	rmdir "$i" && [ "$rc" -eq 0 ]
}

t_commit() {
	ext || return
	load configfs_sample_commit cng_commit || {
		echo "no configfs_sample_commit module (CONFIG_SAMPLE_CONFIGFS_NG)"
		return 4
	}
	d=$CFS/cng_commit/disks
	mkdir "$d/pending/d" &&
	fails mv "$d/pending/d" "$d/live/" &&
	has_record "$d/pending/d" "reason: d is not ready" &&
	fails mkdir "$d/live/e" &&
	echo 1 > "$d/pending/d/ready" &&
	mv "$d/pending/d" "$d/live/" && [ ! -e "$d/pending/d" ] &&
	[ "$(cat "$d/live/d/state")" = live ] &&
	fails rmdir "$d/live/d" &&
	mv "$d/live/d" "$d/pending/" &&
	[ "$(cat "$d/pending/d/state")" = pending ] &&
	rmdir "$d/pending/d"
}

t_helpers() {
	load configfs_sample_helpers cng_helpers configfs_helpers || {
		echo "no configfs_sample_helpers module (CONFIG_SAMPLE_CONFIGFS_NG)"
		return 4
	}
	h=$CFS/cng_helpers/h
	mkdir "$h" &&
	[ "$(cat "$h/port")" = 10809 ] &&
	fails sh -c "echo 0 > $h/port" &&
	fails sh -c "echo 11 > $h/count" &&
	echo -10 > "$h/count" && [ "$(cat "$h/count")" = -10 ] &&
	echo fast > "$h/mode" && [ "$(cat "$h/mode")" = fast ] &&
	fails sh -c "echo warp > $h/mode" &&
	echo 192.0.2.1 > "$h/host" && fails sh -c "echo 300.1.1.1 > $h/host" &&
	rmdir "$h"
}

[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root"; exit 4; }
grep -qw configfs /proc/filesystems || modprobe -q configfs
grep -qw configfs /proc/filesystems ||
	{ echo "1..0 # SKIP no configfs in this kernel"; exit 4; }
grep -q " $CFS configfs " /proc/mounts || mount -t configfs none "$CFS"

# NAME FUNCTION, a test a line.
tests="configfs_is_mounted t_mounted
sample_attributes_show_and_store t_childless
sample_mkdir_rmdir_and_refusals t_mkdir_rmdir
sample_groups_nest_and_rmdir_refuses_a_parent t_groups
failed_write_and_mkdir_keep_their_reason t_reason
change_wakes_a_poller t_poll
commit_by_rename_with_a_reason_when_refused t_commit
helper_attributes_check_their_values t_helpers"

# The tests named on the command line, or all.
selected() {
	printf '%s\n' "$tests" | while read -r name fn; do
		if [ $# -eq 0 ]; then
			echo "$name $fn"
			continue
		fi
		for want in "$@"; do
			[ "$want" = "$name" ] && echo "$name $fn"
		done
	done
}

run=$(selected "$@")
[ -n "$run" ] || { echo "1..0 # SKIP no test named $*"; exit 4; }
echo "TAP version 13"
echo "1..$(printf '%s\n' "$run" | wc -l)"
printf '%s\n' "$run" > "$LOG.run"
while read -r name fn; do
	check "$name" "$fn" < /dev/null
done < "$LOG.run"
rm -f "$LOG.run"
# modprobe -r also takes what modprobe loaded for it (the helper library).
for m in $loaded; do
	modprobe -r "$m" 2>/dev/null || rmmod "$m" ||
		{ nfail=$((nfail + 1)); echo "# cannot unload $m"; }
done
rm -f "$LOG"
echo "# Totals: pass:$npass fail:$nfail xfail:0 xpass:0 skip:$nskip error:0"
[ "$nfail" -eq 0 ] || exit 1
[ "$npass" -gt 0 ] || exit 4
exit 0
