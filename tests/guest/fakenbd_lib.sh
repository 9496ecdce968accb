# SPDX-License-Identifier: GPL-2.0
# Helpers for the fakenbd tests (tests/guest/fakenbd*.sh), on top of
# lib.sh. Source it after "set -eu". fakenbd is driven through its
# TEMPORARY debugfs control file (drivers/fakenbd/ctl.c) until its
# configfs face exists.
#
#   fnbd_load / fnbd_unload   insmod / rmmod fakenbd
#   fnbd_start ARGS...        "start ARGS" to ctl; prints the disk's name
#   fnbd_start_fails MSG ARGS...  the start is refused and ctl's result
#                             holds MSG (a grep pattern)
#   fnbd_stop DISK            "stop DISK" to ctl
#   fnbd_status DISK KEY      a value of the disk's status line
#   listening PORT            something listens on TCP PORT
#   wait_for CMD...           poll CMD for up to 20 s
#   log_has PATTERN           the kernel log has a line matching PATTERN
. ./lib.sh

FNBD_KO=/lib/modules/cng/fakenbd.ko
FNBD_DBG=/sys/kernel/debug/fakenbd

run() {
	echo "# + $*"
	"$@"
}

fnbd_load() {
	run insmod $FNBD_KO
}

fnbd_unload() {
	run rmmod fakenbd
}

fnbd_ctl() {
	echo "# + echo '$*' > ctl"
	echo "$*" > $FNBD_DBG/ctl
}

fnbd_result() {
	cat $FNBD_DBG/ctl
}

# Diagnostics go to stderr: stdout is the name, for $(...).
fnbd_start() {
	fnbd_ctl start "$@" >&2 || { echo "# $(fnbd_result)" >&2; return 1; }
	fs_res=$(fnbd_result)
	case $fs_res in
	"ok "*) echo "${fs_res#ok }" ;;
	*) echo "# $fs_res" >&2; return 1 ;;
	esac
}

fnbd_start_fails() {
	fsf_want=$1
	shift
	if fnbd_ctl start "$@" 2>/dev/null; then
		echo "# start succeeded: $(fnbd_result)"
		return 1
	fi
	fsf_got=$(fnbd_result)
	echo "# $fsf_got"
	printf '%s\n' "$fsf_got" | grep -q -- "$fsf_want" || {
		echo "# want: $fsf_want"
		return 1
	}
}

fnbd_stop() {
	fnbd_ctl stop "$1" || { echo "# $(fnbd_result)"; return 1; }
}

fnbd_status() {
	grep "^$1 " $FNBD_DBG/status | tr ' ' '\n' | sed -n "s/^$2=//p"
}

listening() {
	lp_hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
		awk -v p=":$lp_hex" '$2 ~ p"$" && $4 == "0A" { f = 1 } END { exit !f }'
}

wait_for() {
	wf_i=0
	until "$@"; do
		wf_i=$((wf_i + 1))
		[ $wf_i -lt 200 ] || { echo "# timed out: $*"; return 1; }
		sleep 0.1
	done
}

log_has() {
	dmesg | grep -q -- "$1" || { echo "# no log line: $1"; return 1; }
}
