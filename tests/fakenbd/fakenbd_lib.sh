# SPDX-License-Identifier: GPL-2.0
# Helpers for the fakenbd tests (tests/fakenbd/fakenbd*.sh), on top of
# lib.sh. Source it after "set -eu". fakenbd is driven through its
# configfs face, the committable group /sys/kernel/config/fakenbd
# (drivers/fakenbd/configfs.c), which needs configfs-ng's module.
#
#   fnbd_load / fnbd_unload   insmod / rmmod fakenbd and the helpers'
#                             configfs_helpers, which it needs
#   fnbd_make NAME KEY=VALUE...  mkdir pending/NAME and write each setting
#   fnbd_set NAME KEY VALUE   write a setting, wherever NAME is
#   fnbd_commit NAME          mv pending/NAME live/: the disk /dev/NAME
#   fnbd_commit_fails ERRNO MSG NAME  the commit is refused with ERRNO
#                             (conf_sys's name, or any "E<n>": the debug
#                             kernel has no errno names; "any": any
#                             errno), the item's
#                             reason holds MSG (a grep pattern), and the
#                             item stays in pending/
#   fnbd_uncommit NAME        mv live/NAME pending/
#   fnbd_start NAME KEY=VALUE...  make and commit; undone by fnbd_stop
#   fnbd_stop NAME            un-commit if live, then rmdir
#   fnbd_status NAME KEY      an attribute of NAME, pending or live
#   fnbd_reason NAME          the reason line of NAME's error record
#   fnbd_remove_all           un-commit and remove every item (cleanup)
#   listening PORT            something listens on TCP PORT
#   wait_for CMD...           poll CMD for up to 20 s (WAIT_FOR_S seconds)
#   log_has PATTERN           the kernel log has a line matching PATTERN
#   timed CMD...              run CMD and say how long it took (ms)
. ./lib.sh

FNBD_KO=/lib/modules/cng/fakenbd.ko
HELPERS_KO=/lib/modules/cng/configfs_helpers.ko
FNBD=$CFS/fakenbd

run() {
	echo "# + $*"
	"$@"
}

fnbd_load() {
	run insmod $HELPERS_KO && run insmod $FNBD_KO
}

fnbd_unload() {
	run rmmod fakenbd configfs_helpers
}

fnbd_dir() {
	if [ -d "$FNBD/live/$1" ]; then
		echo "$FNBD/live/$1"
	else
		echo "$FNBD/pending/$1"
	fi
}

fnbd_set() {
	echo "# + echo '$3' > $(fnbd_dir "$1")/$2"
	echo "$3" > "$(fnbd_dir "$1")/$2"
}

fnbd_make() {
	fm_name=$1
	shift
	run mkdir "$FNBD/pending/$fm_name" || return 1
	for fm_kv; do
		fnbd_set "$fm_name" "${fm_kv%%=*}" "${fm_kv#*=}" || return 1
	done
}

fnbd_reason() {
	conf_sys getxattr "$(fnbd_dir "$1")" user.configfs.error |
		sed -n 's/^reason: //p'
}

fnbd_rename() {
	fr_got=$(conf_sys rename "$FNBD/$2/$1" "$FNBD/$3/$1")
	echo "# + mv $2/$1 $3/: $fr_got"
	[ "$fr_got" = OK ] || { echo "# reason: $(fnbd_reason "$1")"; return 1; }
}

fnbd_commit() {
	fnbd_rename "$1" pending live
}

fnbd_uncommit() {
	fnbd_rename "$1" live pending
}

fnbd_commit_fails() {
	fcf_got=$(conf_sys rename "$FNBD/pending/$3" "$FNBD/live/$3")
	echo "# + mv pending/$3 live/: $fcf_got"
	case $fcf_got in
	"$1" | E[0-9]*) ;;
	E*) [ "$1" = any ] || { echo "# want $1"; return 1; } ;;
	*) echo "# want $1"; return 1 ;;
	esac
	fcf_why=$(fnbd_reason "$3")
	echo "# reason: $fcf_why"
	printf '%s\n' "$fcf_why" | grep -q -- "$2" || {
		echo "# want: $2"
		return 1
	}
	[ -d "$FNBD/pending/$3" ] && [ ! -e "$FNBD/live/$3" ] &&
	test "$(cat "$FNBD/pending/$3/connected")" = 0
}

fnbd_start() {
	fnbd_make "$@" && fnbd_commit "$1"
}

fnbd_stop() {
	if [ -d "$FNBD/live/$1" ]; then
		fnbd_uncommit "$1" || return 1
	fi
	run rmdir "$FNBD/pending/$1"
}

fnbd_status() {
	cat "$(fnbd_dir "$1")/$2"
}

fnbd_remove_all() {
	[ -d "$FNBD" ] || return 0
	for fra_d in "$FNBD"/live/* "$FNBD"/pending/*; do
		[ -d "$fra_d" ] || continue
		fnbd_stop "${fra_d##*/}" || true
	done
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
		[ $wf_i -lt $((${WAIT_FOR_S:-20} * 10)) ] ||
			{ echo "# timed out: $*"; return 1; }
		sleep 0.1
	done
}

log_has() {
	dmesg | grep -q -- "$1" || { echo "# no log line: $1"; return 1; }
}

fnbd_on_stock() {
	[ "${CNG_CONFIGFS:-ours}" = stock ]
}

timed() {
	tm_start=$(cut -d' ' -f1 /proc/uptime)
	tm_ret=0
	"$@" || tm_ret=$?
	echo "# took $(awk -v a="$tm_start" -v b="$(cut -d' ' -f1 /proc/uptime)" \
		'BEGIN { printf "%d", (b - a) * 1000 }') ms: $*"
	return $tm_ret
}
