#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# configfs why and configfs watch (issue 16). On both modules, with
# cng_test (no extension): why tells "no error recorded" (ours) from "this
# configfs keeps no records" (stock, exit 4), and watch shows a user's
# mkdir, write and rmdir. On ours only, with the extension's sample
# cng_ext (it cannot load on stock): the client's reasons for a refused
# value, mkdir and restore statement, shown by why and under restore's
# errors, cleared by the next success; watch shows the kernel's own
# change of a value (tick makes counter change) and ends with status 0
# on SIGINT.
#
#   cng_ext/items/
#   |-- a/      rw (0/1), port (1..65535), counter (RO), tick (WO)
#   |-- b/      made by restore, which a bad port and bad2 then fail
#   |-- bad1    refused by mkdir: names starting with "bad"
#   `-- c/      made and removed while watch runs
set -eu
. ./conf_lib.sh
. ./diff_lib.sh
. ./clients/common.sh
. ./cli_lib.sh

E=$CFS/cng_ext
EXT_KO=/lib/modules/cng/cng_ext.ko
WATCH_OUT=/tmp/watch.out
WATCH_ERR=/tmp/watch.err
watch_pid=

ext_cleanup() {
	[ -z "$watch_pid" ] || kill "$watch_pid" 2>/dev/null || true
	for d in a b c; do
		rmdir_if "$E/items/$d" || true
	done
	rmdir_if "$T/items/w" || true
	unload cng_ext cng_test
}
trap 'ext_cleanup || echo "# cleanup could not undo everything"' EXIT

# why_is STATUS PATH [LINE...]: configfs why PATH exits STATUS, and
# prints every LINE (a fixed string, anywhere in a line).
why_is() {
	wi_want=$1 wi_path=$2
	shift 2
	exits_with "$wi_want" cfg why "$wi_path" || return
	for wi_line in "$@"; do
		grep -qF -- "$wi_line" $CLI_OUT && continue
		echo "# why $wi_path does not show: $wi_line"
		return 1
	done
}

why_without_records() {
	if on_stock; then
		why_is 4 cng_test/items/w "keeps no error records"
	else
		why_is 1 cng_test/items/w "cng_test/items/w: no error recorded"
	fi
}

# watch_start PATH: configfs watch --json PATH in the background, once
# its watches are in place.
watch_start() {
	: > $WATCH_OUT
	: > $WATCH_ERR
	echo "# + configfs watch --json $1 &"
	configfs watch --json "$1" > $WATCH_OUT 2> $WATCH_ERR &
	watch_pid=$!
	wait_for 10 grep -q watching $WATCH_ERR
}

# watch_shows LINE...: each LINE (a fixed string) is a line of the
# watch's output, within 10 s.
watch_has() {
	grep -qxF -- "$1" $WATCH_OUT
}

watch_shows() {
	for ws_line in "$@"; do
		wait_for 10 watch_has "$ws_line" && continue
		echo "# watch did not print: $ws_line; it printed:"
		sed 's/^/#   /' $WATCH_OUT
		return 1
	done
}

# watch_ends: SIGINT ends the watch with status 0.
watch_ends() {
	echo "# + kill -INT $watch_pid"
	kill -INT "$watch_pid" || return
	we_rc=0
	wait "$watch_pid" || we_rc=$?
	watch_pid=
	sed 's/^/# err: /' $WATCH_ERR
	[ "$we_rc" -eq 0 ] && return 0
	echo "# watch exited $we_rc, not 0"
	return 1
}

# Each change waits for the watch to show the one before: a directory's
# values are read when its creation is seen, so a write before that would
# be its first value, not a change.
user_changes() {
	x mkdir $T/items/w || return
	watch_shows '{"event":"create","path":"cng_test/items/w","type":"dir"}' ||
		return
	x put $T/items/w/data changed || return
	watch_shows '{"event":"change","path":"cng_test/items/w/data","old":"","new":"changed"}' ||
		return
	x rmdir $T/items/w || return
	watch_shows '{"event":"remove","path":"cng_test/items/w","type":"dir"}'
}

# json_change PATH OLD NEW: the line watch --json prints for a change.
json_change() {
	printf '{"event":"change","path":"%s","old":"%s","new":"%s"}' \
		"$1" "$2" "$3"
}

# The other value of rw, 0 or 1.
other_rw() {
	[ "$(cat "$1")" = 1 ] && echo 0 || echo 1
}

kernel_changes() {
	x mkdir $E/items/c || return
	watch_shows '{"event":"create","path":"cng_ext/items/c","type":"dir"}' ||
		return
	kc_old=$(cat $E/items/c/rw) kc_new=$(other_rw $E/items/c/rw)
	kc_count=$(cat $E/items/c/counter) || return
	x put $E/items/c/rw "$kc_new" || return
	watch_shows "$(json_change cng_ext/items/c/rw "$kc_old" "$kc_new")" ||
		return
	x put $E/items/c/tick 1 || return
	kc_count_new=$(cat $E/items/c/counter) || return
	[ "$kc_count_new" != "$kc_count" ] || {
		echo "# counter did not change: $kc_count"
		return 1
	}
	watch_shows '{"event":"write","path":"cng_ext/items/c/tick"}' \
		"$(json_change cng_ext/items/c/counter "$kc_count" \
			"$kc_count_new")" || return
	x rmdir $E/items/c || return
	watch_shows '{"event":"remove","path":"cng_ext/items/c","type":"dir"}'
}

refused_write() {
	fails_with "Invalid argument" put $E/items/a/rw maybe
}

refused_mkdir() {
	fails_with "Invalid argument" mkdir $E/items/bad1
}

# restore FILE fails (exit 1), and each LINE is in its errors.
restore_explains() {
	re_file=$1
	shift
	exits_with 1 cfg restore "$re_file" || return
	for re_line in "$@"; do
		grep -qF -- "$re_line" $CLI_OUT && continue
		echo "# restore's errors do not show: $re_line"
		return 1
	done
}

rw_clears() {
	x put $E/items/a/rw 1 &&
		why_is 1 cng_ext/items/a "cng_ext/items/a: no error recorded"
}

mkdir_explained() {
	refused_mkdir && why_is 0 cng_ext/items/bad1 "mkdir bad1: -EINVAL" \
		"reason: name 'bad1' is refused: names starting with 'bad' are reserved"
}

ext_watch() {
	watch_start cng_ext && kernel_changes && watch_ends
}

ext_unload() {
	x rmdir $E/items/a && x rmdir $E/items/b && x rmmod cng_ext
}

printf '%s\n' "mkdir cng_ext/items/b" "set cng_ext/items/b/port 70000" \
	"mkdir cng_ext/items/bad2" > /tmp/ext.save

ktap_plan 19
critical cng_test_loads cng_load
critical item_made x mkdir $T/items/w
check why_tells_no_record_from_no_records why_without_records
critical item_removed x rmdir $T/items/w
critical watch_starts watch_start cng_test
check watch_shows_a_users_mkdir_write_and_rmdir user_changes
check watch_ends_with_0_on_sigint watch_ends
critical cng_test_unloads cng_unload
# The extension's sample: ours only.
not_on_stock cng_ext_loads "cng_ext needs configfs-ng's extension" \
	x insmod $EXT_KO
not_on_stock item_made_ext "cng_ext did not load" x mkdir $E/items/a
not_on_stock refused_value_fails_einval "cng_ext did not load" refused_write
not_on_stock why_shows_the_reason_on_the_file "no records on stock" \
	why_is 0 cng_ext/items/a/rw "write rw 'maybe': -EINVAL" \
	"reason: rw: 'maybe' is not one of 0, 1"
not_on_stock why_shows_it_on_the_item "no records on stock" \
	why_is 0 cng_ext/items/a "reason: rw: 'maybe' is not one of 0, 1"
not_on_stock another_file_has_none "no records on stock" \
	why_is 1 cng_ext/items/a/port "cng_ext/items/a/port: no error recorded"
not_on_stock success_clears_the_record "no records on stock" rw_clears
not_on_stock refused_mkdir_is_explained "no records on stock" \
	mkdir_explained
not_on_stock restore_shows_the_reasons "no records on stock" \
	restore_explains /tmp/ext.save \
	"  reason: port: '70000' is not in 1..65535" \
	"  reason: name 'bad2' is refused: names starting with 'bad' are reserved"
not_on_stock watch_shows_kernel_made_changes "cng_ext did not load" \
	ext_watch
not_on_stock cng_ext_unloads "cng_ext did not load" ext_unload
ktap_done
