# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the client tree files in this directory. Source it (the
# client files do). Every step echoes itself as a KTAP diagnostic first, so
# the last line of a failing test names the failing step.
#
# Functions that build or tear down trees run each step as `x CMD || return`
# so that they stop at the first failure even when called from an `if`,
# `&&` or `check` (where `set -e` does not apply).
CFS=${CFS:-/sys/kernel/config}

# x CMD...: echo, then run CMD; on failure say so and return its status.
x() {
	echo "# + $*"
	"$@" || {
		x_rc=$?
		echo "# ! failed with status $x_rc: $*"
		return $x_rc
	}
}

# put FILE VALUE: write VALUE and a newline to an attribute in one write(),
# with the errno on stderr when it fails (client_put.c).
put() {
	client_put "$1" "$2"
}

# put_raw FILE VALUE: the same without the newline.
put_raw() {
	client_put -n "$1" "$2"
}

# expect FILE VALUE: the attribute reads back exactly VALUE.
expect() {
	expect_got=$(cat "$1") || return
	[ "$expect_got" = "$2" ] && return 0
	echo "# $1 reads '$expect_got', expected '$2'"
	return 1
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	wait_left=$(($1 * 10))
	shift
	while ! "$@"; do
		wait_left=$((wait_left - 1))
		if [ "$wait_left" -le 0 ]; then
			echo "# timed out waiting for: $*"
			return 1
		fi
		usleep 100000
	done
}

# fails_with WORDS CMD...: CMD fails and its stderr contains WORDS
# (busybox prints strerror: "Device or resource busy", ...).
fails_with() {
	fails_words=$1
	shift
	if fails_out=$("$@" 2>&1); then
		echo "# unexpectedly succeeded: $*"
		return 1
	fi
	case $fails_out in
	*"$fails_words"*) return 0 ;;
	esac
	echo "# failed, but not with '$fails_words': $fails_out"
	return 1
}

# gone PATH: PATH no longer exists (not even as a dangling link).
gone() {
	! [ -e "$1" ] && ! [ -L "$1" ]
}

# rmdir_if / rm_if / unload: best-effort cleanup steps for traps. They
# echo what they do and report (status 1) what they could not undo.
rmdir_if() {
	[ -d "$1" ] || return 0
	echo "# + rmdir $1"
	rmdir "$1"
}

rm_if() {
	[ -L "$1" ] || [ -e "$1" ] || return 0
	echo "# + rm $1"
	rm "$1"
}

# unload MODULE...: rmmod each loaded one, in the order given.
unload() {
	unload_rc=0
	for unload_m in "$@"; do
		grep -q "^$unload_m " /proc/modules || continue
		echo "# + rmmod $unload_m"
		rmmod "$unload_m" || unload_rc=1
	done
	return $unload_rc
}

# loaded MODULE: MODULE is in /proc/modules.
loaded() {
	grep -q "^$1 " /proc/modules
}

# cfs_snapshot: the names at the top of configfs and one level down, to
# prove a test left the tree as it found it.
cfs_snapshot() {
	(cd "$CFS" && find . -maxdepth 2 | sort)
}

# same_data A B SIZE [SKIP_A SKIP_B]: the first SIZE bytes of A (from
# offset SKIP_A) and of B (from SKIP_B), both in 4 KiB blocks, are equal.
same_data() {
	sd_a=$(dd if="$1" bs=4096 count=$(($3 / 4096)) skip="${4:-0}" \
		2>/dev/null | md5sum) || return
	sd_b=$(dd if="$2" bs=4096 count=$(($3 / 4096)) skip="${5:-0}" \
		2>/dev/null | md5sum) || return
	[ "$sd_a" = "$sd_b" ] && return 0
	echo "# data differ: $1 ${sd_a%% *} vs $2 ${sd_b%% *}"
	return 1
}

# disk_file_cross DEV FILE BLOCKS AT1 AT2: BLOCKS random 4 KiB blocks
# written to the disk DEV at block AT1 land in its backing FILE there;
# BLOCKS more written to FILE at AT2 read back through DEV.
disk_file_cross() {
	dfc_pat=/tmp/cross.pat
	x dd if=/dev/urandom of=$dfc_pat bs=4096 count="$3" \
		2>/dev/null || return
	x dd if=$dfc_pat of="$1" bs=4096 seek="$4" conv=fsync \
		2>/dev/null || return
	x same_data $dfc_pat "$2" $(($3 * 4096)) 0 "$4" || return
	x dd if=/dev/urandom of=$dfc_pat bs=4096 count="$3" \
		2>/dev/null || return
	x dd if=$dfc_pat of="$2" bs=4096 seek="$5" conv=notrunc,fsync \
		2>/dev/null || return
	x blockdev --flushbufs "$1" || return
	x same_data $dfc_pat "$1" $(($3 * 4096)) 0 "$5" || return
	rm -f $dfc_pat
}

# critical NAME CMD...: a `check` (from ../lib.sh) that the rest of the
# test depends on; when it fails, bail out (the EXIT trap cleans up).
critical() {
	# shellcheck disable=SC2154 # ktap_failed is ../lib.sh's
	crit_failed=$ktap_failed
	check "$@"
	[ "$ktap_failed" -eq "$crit_failed" ] && return 0
	echo "Bail out! $1 failed"
	exit 1
}

# tree_as_found BEFORE: configfs looks as it did in the snapshot BEFORE.
tree_as_found() {
	taf_now=$(cfs_snapshot)
	[ "$taf_now" = "$1" ] && return 0
	echo "# configfs before:"
	echo "$1" | sed 's/^/#   /'
	echo "# configfs now:"
	echo "$taf_now" | sed 's/^/#   /'
	return 1
}
