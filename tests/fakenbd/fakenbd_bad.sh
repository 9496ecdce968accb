#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fakenbd against a deliberately bad server (fakenbd_badserver.c): every
# misbehaviour in the handshake ends the start with a reason, every one in
# the transmission phase fails the I/O with EIO, marks the disk
# disconnected (a server error reply excepted: that fails one request) and
# logs a line; nothing hangs and the module unloads with nothing leaked.
#
# What runs: fakenbd_badserver MODE on 127.0.0.1:10900, one client each,
# as fakenbd/pending/MODE committed to live/ (configfs-ng only).
set -eu
. ./fakenbd_lib.sh

if fnbd_on_stock; then
	echo "1..0 # SKIP fakenbd needs configfs-ng's committable items"
	exit 4
fi

PORT=10900
before=$(modules_loaded)

cleanup() {
	killall -9 fakenbd_badserver 2>/dev/null || true
	fnbd_remove_all
	unload_since "$before" || true
}
trap cleanup EXIT

bad() {
	killall -9 fakenbd_badserver 2>/dev/null || true
	wait_for sh -c "! . ./fakenbd_lib.sh; ! listening $PORT" 2>/dev/null
	run ./bin/fakenbd_badserver "$1" $PORT && wait_for listening $PORT
}

# handshake MODE MESSAGE: the start is refused with MESSAGE.
handshake() {
	bad "$1" && fnbd_make "$1" target=127.0.0.1:$PORT timeout=3 &&
	fnbd_commit_fails any "$2" "$1" && run rmdir "$FNBD/pending/$1"
}

# transmission MODE CONNECTED: a read in the bad range fails with EIO, the
# disk is still connected or not (CONNECTED), and stops.
transmission() {
	bad "$1" || return 1
	d=$1
	fnbd_start $d target=127.0.0.1:$PORT timeout=3 || return 1
	if run dd if=/dev/$d of=/dev/null bs=4K skip=64 count=1 \
			iflag=direct; then
		echo "# the read succeeded"
		return 1
	fi
	echo "# connected $(fnbd_status $d connected)," \
		"errors $(fnbd_status $d errors): $(fnbd_status $d last_error)"
	test "$(fnbd_status $d connected)" = "$2" &&
	test "$(fnbd_status $d errors)" -ge 1 &&
	fnbd_stop $d
}

ktap_plan 14
check setup_loads_module fnbd_load
check bad_greeting_is_not_an_nbd_server \
	handshake badmagic "not an NBD server"
check silent_server_times_out handshake silent "no greeting.*timed out"
check absurd_size_is_refused handshake hugesize "absurd size"
check wrong_info_length_is_refused handshake shortinfo "NBD_INFO_EXPORT of"
check endless_replies_are_cut_short handshake replyflood "more than"
check wrong_handle_disconnects transmission wronghandle 0
check bad_reply_magic_disconnects transmission badmagic2 0
check short_reply_disconnects transmission shortreply 0
check stall_mid_reply_times_out transmission stallreply 0
check no_reply_times_out transmission stall 0
check error_reply_fails_one_request transmission ioerror 1
check reasons_are_logged sh -c ". ./fakenbd_lib.sh;
	log_has 'reply for unknown handle' &&
	log_has 'reply magic 0x12345678' &&
	log_has 'timed out after 3 s' &&
	log_has 'server failed a read'"
check module_unloads fnbd_unload
ktap_done
