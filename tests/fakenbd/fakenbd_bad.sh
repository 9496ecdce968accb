#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# fakenbd against a deliberately bad server (fakenbd_badserver.c): every
# misbehaviour in the handshake ends the start with a reason (a trickled
# greeting within the timeout of the whole handshake), a stalled one holds
# only the writer of connect, every one in
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

# The server goes to the background once it listens, so its start is
# the proof; looking for its listening socket after that would race a
# disk connecting again, whose connection closes it.
bad() {
	killall -9 fakenbd_badserver 2>/dev/null || true
	wait_for sh -c "! . ./fakenbd_lib.sh; ! listening $PORT" 2>/dev/null
	run ./bin/fakenbd_badserver "$1" $PORT
}

# handshake MODE MESSAGE: the start is refused with MESSAGE.
handshake() {
	bad "$1" && fnbd_make "$1" target=127.0.0.1:$PORT timeout=3 &&
	fnbd_commit_fails any "$2" "$1" && run rmdir "$FNBD/pending/$1"
}

# serve MODE PORT: one more bad server, beside those running.
serve() {
	run ./bin/fakenbd_badserver "$1" "$2"
}

# A server that stalls its greeting holds only the writer of connect=1:
# meanwhile a mkdir in pending/, a listing and a lookup in live/, and the
# connect and commit of another disk go on (each one's time is printed),
# the stalled item's own commit and settings are refused at once, and
# killing the writer ends its wait.
connect_waits_alone() {
	bad silent && serve ioerror $((PORT + 1)) &&
	fnbd_make slow target=127.0.0.1:$PORT timeout=600 || return 1
	echo 1 > "$FNBD/pending/slow/connect" &
	cwa_pid=$!
	sleep 1 && kill -0 $cwa_pid &&
	timed run timeout 20 mkdir "$FNBD/pending/other" &&
	timed run timeout 20 ls "$FNBD/live" &&
	timed run timeout 20 sh -c "! stat $FNBD/live/none 2>/dev/null" &&
	fnbd_make fast target=127.0.0.1:$((PORT + 1)) timeout=10 &&
	timed run timeout 20 sh -c "echo 1 > $FNBD/pending/fast/connect" &&
	test "$(fnbd_status fast connected)" = 1 &&
	timed run timeout 20 mv "$FNBD/pending/fast" "$FNBD/live/" &&
	test "$(fnbd_status fast connected)" = 1 &&
	! fnbd_set slow timeout 5 2>/dev/null &&
	fnbd_commit_fails EBUSY "a connect is under way" slow &&
	kill -0 $cwa_pid || return 1
	run kill $cwa_pid
	wait_for sh -c "! kill -0 $cwa_pid 2>/dev/null" &&
	fnbd_set slow timeout 5 &&
	fnbd_stop fast && run rmdir "$FNBD/pending/other" "$FNBD/pending/slow"
}

# connect=1 holds a connection for the commit: the settings are refused
# with a reason, connect=0 closes it, and a commit on it adds a disk
# without reading it: a server that never answers the partition table's
# read cannot hold the commit (the first opener reads it).
connect_then_commit() {
	bad stallscan && fnbd_make held target=127.0.0.1:$PORT timeout=600 &&
	echo 1 > "$FNBD/pending/held/connect" &&
	test "$(fnbd_status held connected)" = 1 || return 1
	if fnbd_set held rw 0 2>/dev/null; then
		echo "# a setting was taken while connected"
		return 1
	fi
	echo "# reason: $(fnbd_reason held)"
	fnbd_reason held | grep -q "write 0 to connect first" &&
	echo 0 > "$FNBD/pending/held/connect" &&
	test "$(fnbd_status held connected)" = 0 &&
	fnbd_set held rw 1 &&
	bad stallscan && echo 1 > "$FNBD/pending/held/connect" &&
	run timeout 60 mv "$FNBD/pending/held" "$FNBD/live/" &&
	test -b /dev/held &&
	test "$(fnbd_status held connected)" = 1 || return 1
	# The server goes; whatever the first opener asked for fails.
	killall -9 fakenbd_badserver 2>/dev/null || true
	wait_for sh -c "[ \"\$(cat $FNBD/live/held/connected)\" = 0 ]" &&
	wait_for fnbd_stop held
}

# The connection is made in the writer's network namespace: a server on
# 127.0.0.1 of a namespace of its own is reached from there (the old
# driver connected in init_net, where nothing listens), and the disk
# keeps that connection after the writer's shell is gone.
connects_in_the_writers_namespace() {
	killall -9 fakenbd_badserver 2>/dev/null || true
	fnbd_make netns target=127.0.0.1:$PORT timeout=5 || return 1
	run unshare -n sh -c ". ./fakenbd_lib.sh; ip link set lo up &&
		./bin/fakenbd_badserver ioerror $PORT &&
		wait_for listening $PORT &&
		echo 1 > $FNBD/pending/netns/connect" &&
	! listening $PORT &&
	test "$(fnbd_status netns connected)" = 1 &&
	fnbd_commit netns &&
	run dd if=/dev/netns of=/dev/null bs=4K count=1 iflag=direct &&
	fnbd_stop netns
}

# A reply of NBD_ESHUTDOWN: the request fails, no other is sent, and
# once none is out the client says NBD_CMD_DISC (the server then exits)
# and the disk is disconnected with the reason: the soft disconnect the
# protocol asks for.
server_shutdown_is_a_soft_disconnect() {
	bad eshutdown && fnbd_start shut target=127.0.0.1:$PORT timeout=10 ||
		return 1
	if run dd if=/dev/shut of=/dev/null bs=4K skip=64 count=1 \
			iflag=direct 2>/dev/null; then
		echo "# the read succeeded"
		return 1
	fi
	wait_for sh -c "[ \"\$(cat $FNBD/live/shut/connected)\" = 0 ]" &&
	echo "# last_error: $(fnbd_status shut last_error)" &&
	test "$(fnbd_status shut last_error)" = "server is shutting down" &&
	wait_for sh -c "! pidof fakenbd_badserver" &&
	log_has "shut: server 127.0.0.1:$PORT is shutting down" &&
	fnbd_stop shut
}

# timeout 0 waits, as nbd.ko's: a read the server answers after 35 s
# succeeds and the disk stays connected; the wait is logged once the
# request has waited 30 s.
no_timeout_waits() {
	bad slowreply &&
	fnbd_start slow0 target=127.0.0.1:$PORT timeout=0 &&
	run dd if=/dev/slow0 of=/dev/null bs=4K skip=64 count=1 iflag=direct &&
	test "$(fnbd_status slow0 connected)" = 1 &&
	test "$(fnbd_status slow0 errors)" = 0 &&
	log_has "slow0: a request has waited 30 s or more" &&
	fnbd_stop slow0
}

# timeout 0 and a server that never answers the partition table's read:
# the disk's first opener waits in the scan, holding the disk's open
# mutex. The un-commit, inside rename(2) (which also locks the item's
# directory), does not wait behind it: EBUSY at once, with the reason.
# disconnect fails the read, the opener goes, and the un-commit works.
uncommit_never_waits_on_the_server() {
	bad stallscan && fnbd_start wedged target=127.0.0.1:$PORT timeout=0 ||
		return 1
	dd if=/dev/wedged of=/dev/null bs=4K count=1 2>/dev/null &
	unw_dd=$!
	sleep 2
	kill -0 $unw_dd || { echo "# the opener did not wait"; return 1; }
	timed timeout 20 sh -c "conf_sys rename $FNBD/live/wedged \
		$FNBD/pending/wedged > /tmp/wedged.mv"
	echo "# mv live/wedged pending/: $(cat /tmp/wedged.mv)"
	case $(cat /tmp/wedged.mv) in
	EBUSY | E16) ;;
	*) return 1 ;;
	esac
	echo "# reason: $(fnbd_reason wedged)"
	fnbd_reason wedged | grep -q "wedged is being opened or closed" &&
	timed run timeout 20 sh -c "echo 1 > $FNBD/live/wedged/disconnect" &&
	wait_for sh -c "! kill -0 $unw_dd 2>/dev/null" &&
	fnbd_uncommit wedged && ! [ -e /dev/wedged ] &&
	run rmdir "$FNBD/pending/wedged"
}

# A dead_timeout and a server killed and started again: connected turns
# 0 and says why, a read meanwhile waits, and once the server is back the
# disk connects again, the read succeeds, nothing failed.
reconnect_after_a_server_restart() {
	bad ioerror &&
	fnbd_start back target=127.0.0.1:$PORT timeout=10 dead_timeout=60 &&
	run dd if=/dev/back of=/dev/null bs=4K count=1 iflag=direct || return 1
	killall -9 fakenbd_badserver
	wait_for sh -c "[ \"\$(cat $FNBD/live/back/connected)\" = 0 ]" ||
		return 1
	echo "# last_error: $(fnbd_status back last_error)"
	fnbd_status back last_error | grep -q "^connecting again: " || return 1
	dd if=/dev/back of=/dev/null bs=4K count=1 iflag=direct 2>/dev/null &
	rasr_dd=$!
	sleep 2
	kill -0 $rasr_dd || { echo "# the read did not wait"; return 1; }
	bad ioerror && wait $rasr_dd || { echo "# the read failed"; return 1; }
	echo "# connected $(fnbd_status back connected)," \
		"errors $(fnbd_status back errors)"
	test "$(fnbd_status back connected)" = 1 &&
	test "$(fnbd_status back errors)" = 0 &&
	log_has "back: connected again to 127.0.0.1:$PORT" &&
	fnbd_stop back
}

# The pids of the multi server's processes serving a client, newest last.
multi_children() {
	pidof fakenbd_badserver | tr ' ' '\n' | sort -n | sed 1d
}

log_says() {
	dmesg | grep -q -- "$1"
}

# read_on CPU: one 4 KiB read of /dev/mpair from that vCPU, so through its
# hardware queue and connection.
read_on() {
	taskset -c "$1" dd if=/dev/mpair of=/dev/null bs=4K count=1 \
		iflag=direct 2>/dev/null
}

# Two connections (the multi server, which says NBD_FLAG_CAN_MULTI_CONN)
# under this kernel's checks: reads through each; the server's process of
# one killed, that connection alone is made again (dead_timeout) and both
# serve on; then both lost and the user's disconnect: every read fails.
# A server that does not say it gets its commit of two refused.
two_connections_lost_and_made_again() {
	[ "$(nproc)" -ge 2 ] || { echo "# needs 2 vCPUs"; return 1; }
	bad multi &&
	fnbd_start mpair target=127.0.0.1:$PORT timeout=10 dead_timeout=60 \
		connections=2 &&
	test "$(multi_children | wc -l)" = 2 &&
	read_on 0 && read_on 1 || return 1
	run kill -9 "$(multi_children | tail -n 1)"
	WAIT_FOR_S=60 wait_for log_says \
		"mpair/[01]: connected again to 127.0.0.1:$PORT" || return 1
	dmesg | grep "mpair/" | sed 's/^/# /'
	read_on 0 && read_on 1 &&
	test "$(fnbd_status mpair connected)" = 1 &&
	test "$(fnbd_status mpair errors)" = 0 || return 1
	killall -9 fakenbd_badserver
	wait_for sh -c "cat $FNBD/live/mpair/last_error |
		grep -q '^connecting again: '" &&
	run sh -c "echo 1 > $FNBD/live/mpair/disconnect" &&
	test "$(fnbd_status mpair last_error)" = "disconnected by the user" ||
		return 1
	if read_on 0 || read_on 1; then
		echo "# a read succeeded"
		return 1
	fi
	fnbd_stop mpair &&
	bad ioerror && fnbd_make one target=127.0.0.1:$PORT connections=2 &&
	fnbd_commit_fails EOPNOTSUPP "no NBD_FLAG_CAN_MULTI_CONN" one &&
	run rmdir "$FNBD/pending/one"
}

# The task waits for room in a socket, in a send.
in_send() {
	grep -q sk_stream_wait_memory "/proc/$1/stack"
}

# A signal to a writer while queue_rq, in the writer's own context, is
# writing a request to a socket the server has stopped reading (pause):
# the send ends with the signal, the rest of the request is left to the
# transmit work (the driver's debug line says so), and once the server
# reads on, the write completes whole and reads back identical; the disk
# stays connected, with no error. The write of 2 MiB is several requests
# of 128 KiB or more: the writer's plug issues the first itself when the
# next one joins it, and on two connections there is no I/O scheduler
# to hand it to kblockd.
signal_mid_send_leaves_the_rest_to_the_work() {
	[ "$(nproc)" -ge 2 ] || { echo "# needs 2 vCPUs"; return 1; }
	smid_paused=/tmp/fakenbd_badserver.$PORT.paused
	smid_go=/tmp/fakenbd_badserver.$PORT.go
	rm -f "$smid_paused" "$smid_go"
	bad pause &&
	fnbd_start msig target=127.0.0.1:$PORT timeout=300 connections=2 &&
	run sh -c "echo 'module fakenbd +p' > /proc/dynamic_debug/control" ||
		return 1
	./bin/fakenbd_sigwrite /dev/msig 2097152 &
	smid_pid=$!
	wait_for test -e "$smid_paused" && wait_for in_send $smid_pid || {
		sed 's/^/# /' "/proc/$smid_pid/stack"
		touch "$smid_go"
		return 1
	}
	run kill -USR1 $smid_pid
	wait_for log_says "msig/[01]: a signal cut a send short after" || {
		touch "$smid_go"; return 1; }
	dmesg | grep "msig/" | sed 's/^/# /'
	run touch "$smid_go"
	wait $smid_pid || { echo "# the writer failed"; return 1; }
	run sh -c "echo 'module fakenbd -p' > /proc/dynamic_debug/control"
	echo "# connected $(fnbd_status msig connected)," \
		"errors $(fnbd_status msig errors)"
	test "$(fnbd_status msig connected)" = 1 &&
	test "$(fnbd_status msig errors)" = 0 &&
	fnbd_stop msig && rm -f "$smid_paused" "$smid_go"
}

# disconnect while the disk connects again: the attempts end, the reason
# says the user's, and a read fails with EIO at once.
disconnect_gives_up_connecting_again() {
	bad ioerror &&
	fnbd_start cut target=127.0.0.1:$PORT timeout=10 dead_timeout=600 ||
		return 1
	killall -9 fakenbd_badserver
	wait_for sh -c "cat $FNBD/live/cut/last_error |
		grep -q '^connecting again: '" || return 1
	run sh -c "echo 1 > $FNBD/live/cut/disconnect" &&
	wait_for sh -c "[ \"\$(cat $FNBD/live/cut/last_error)\" = \
		'disconnected by the user' ]" || {
		echo "# last_error: $(fnbd_status cut last_error)"
		return 1
	}
	if run timeout 20 dd if=/dev/cut of=/dev/null bs=4K count=1 \
			iflag=direct 2>/dev/null; then
		echo "# the read succeeded"
		return 1
	fi
	test "$(fnbd_status cut connected)" = 0 && fnbd_stop cut
}

# The export's block sizes (NBD_INFO_BLOCK_SIZE, asked for in NBD_OPT_GO)
# are the queue's: 4 KiB logical, 8 KiB physical, 64 KiB requests.
block_sizes_are_honoured() {
	bad blocksize && fnbd_start bs target=127.0.0.1:$PORT timeout=10 ||
		return 1
	q=/sys/block/bs/queue
	echo "# logical $(cat $q/logical_block_size)," \
		"physical $(cat $q/physical_block_size)," \
		"largest request $(cat $q/max_hw_sectors_kb) KiB"
	test "$(cat $q/logical_block_size)" = 4096 &&
	test "$(cat $q/physical_block_size)" = 8192 &&
	test "$(cat $q/max_hw_sectors_kb)" = 64 &&
	run dd if=/dev/bs of=/dev/null bs=64K count=2 iflag=direct &&
	fnbd_stop bs
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

ktap_plan 27
check setup_loads_module fnbd_load
check bad_greeting_is_not_an_nbd_server \
	handshake badmagic "not an NBD server"
check silent_server_times_out handshake silent "no greeting.*timed out"
check trickled_greeting_times_out_as_a_whole \
	handshake trickle "no greeting.*timed out"
check connect_waits_alone connect_waits_alone
check connect_then_commit_reads_nothing connect_then_commit
check connects_in_the_writers_namespace connects_in_the_writers_namespace
check absurd_size_is_refused handshake hugesize "absurd size"
check wrong_info_length_is_refused handshake shortinfo "NBD_INFO_EXPORT of"
check endless_replies_are_cut_short handshake replyflood "more than"
check bad_block_sizes_are_refused handshake badblock "block sizes 3/8192"
check block_sizes_are_honoured block_sizes_are_honoured
check wrong_handle_disconnects transmission wronghandle 0
check bad_reply_magic_disconnects transmission badmagic2 0
check short_reply_disconnects transmission shortreply 0
check stall_mid_reply_times_out transmission stallreply 0
check no_reply_times_out transmission stall 0
check error_reply_fails_one_request transmission ioerror 1
check no_timeout_waits_for_a_slow_reply no_timeout_waits
check reconnect_after_a_server_restart reconnect_after_a_server_restart
check two_connections_lost_and_made_again \
	two_connections_lost_and_made_again
check signal_mid_send_leaves_the_rest_to_the_work \
	signal_mid_send_leaves_the_rest_to_the_work
check disconnect_gives_up_connecting_again \
	disconnect_gives_up_connecting_again
check uncommit_never_waits_on_the_server \
	uncommit_never_waits_on_the_server
check server_shutdown_is_a_soft_disconnect \
	server_shutdown_is_a_soft_disconnect
check reasons_are_logged sh -c ". ./fakenbd_lib.sh;
	log_has 'reply for unknown handle' &&
	log_has 'reply magic 0x12345678' &&
	log_has 'timed out after 3 s' &&
	log_has 'server failed a read'"
check module_unloads fnbd_unload
ktap_done
