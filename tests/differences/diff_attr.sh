#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Differences from stock in attribute I/O (docs/differences.md #7, #8):
#   #7 a show returning more than 4096 bytes fails the read with EIO and a
#      rate-limited message, no WARN (stock WARNs: not run there);
#   #8 O_TRUNC and truncate on an attribute are accepted and change no
#      size: text a page (4096, or 65536 with 64K pages), binary 0. Stock
#      sets the size of the inode, seen while an open file keeps that
#      inode.
#
#   cng_test/items/s/
#   |-- data       show_ret N makes its show write N bytes (at most a page)
#   |              and return N: 5000, or with pages over 4K a whole page,
#   |              the most a client's scnprintf(page, PAGE_SIZE) writes
#   |-- big        4096 bytes, the most a show may give
#   `-- blob       binary
set -eu
. ./conf_lib.sh
. ./diff_lib.sh

S=$T/items/s
SHOWS=30
PAGE=$(page_size)
OVER=5000
[ "$PAGE" -gt 4096 ] && OVER=$PAGE
echo "# page size $PAGE: shows of $OVER bytes"

cleanup() {
	set +e
	exec 3<&- 2>/dev/null
	rmdir "$S" 2>/dev/null
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# Lines of the kernel log that name data's oversized show.
oversize_messages() {
	dmesg | grep -c "data: show returned $OVER bytes, more than a page" ||
		true
}

# Each of $SHOWS reads fails with EIO and calls show again (a failed show
# caches nothing); the kernel log gains at least one message and fewer
# than one per read.
oversized_show_fails_eio() {
	before=$(oversize_messages)
	clear_events
	i=0
	while [ $i -lt $SHOWS ]; do
		sys_is EIO read "$S/data" || return 1
		i=$((i + 1))
	done
	shows=$(grep -c '^show items/s/data$' "$T/events" || true)
	msgs=$(($(oversize_messages) - before))
	echo "# $shows shows, $msgs messages for $SHOWS reads"
	[ "$shows" -eq $SHOWS ] && [ "$msgs" -ge 1 ] && [ "$msgs" -lt $SHOWS ]
}

# sizes ATTR CMD...: runs CMD while fd 3 keeps ATTR's inode, then prints
# ATTR's st_size through fd 3 and, after closing it, through a lookup.
# Fails if any step does: a truncation refused proves nothing about sizes.
sizes() {
	sz_attr=$1
	shift
	exec 3< "$sz_attr" || return 1
	"$@" || { echo "# '$*' fails"; exec 3<&-; return 1; }
	sz_open=$(stat -L -c %s "/proc/$$/fd/3") || { exec 3<&-; return 1; }
	exec 3<&-
	sz_path=$(stat -c %s "$sz_attr") || return 1
	echo "# $sz_attr after '$*': size $sz_open while open, $sz_path after"
}

# Ours: the size does not move. Stock: while open, it is the truncated one.
text_o_trunc_ours() {
	sizes "$S/data" sh -c ": > $S/data" && [ "$sz_open $sz_path" = "$PAGE $PAGE" ]
}

text_o_trunc_stock() {
	sizes "$S/data" sh -c ": > $S/data" && [ "$sz_open $sz_path" = "0 $PAGE" ]
}

text_truncate_ours() {
	sizes "$S/data" truncate -s 0 "$S/data" &&
		[ "$sz_open $sz_path" = "$PAGE $PAGE" ]
}

text_truncate_stock() {
	sizes "$S/data" truncate -s 0 "$S/data" &&
		[ "$sz_open $sz_path" = "0 $PAGE" ]
}

bin_truncate_ours() {
	sizes "$S/blob" truncate -s 100 "$S/blob" && [ "$sz_open $sz_path" = "0 0" ]
}

bin_truncate_stock() {
	sizes "$S/blob" truncate -s 100 "$S/blob" &&
		[ "$sz_open $sz_path" = "100 0" ]
}

truncation_calls_nothing() {
	clear_events
	truncate -s 0 "$S/data" && : > "$S/data" && truncate -s 0 "$S/blob" &&
		events_are ""
}

ktap_plan 7

cng_load
run mkdir "$S"

check "show_of_exactly_a_page_reads_4096_bytes" sys_is "OK 4096" read "$S/big"
run sh -c "echo $OVER > $S/show_ret"
not_on_stock "show_over_a_page_fails_eio_ratelimited_no_warn" \
	"stock WARNs (WARN_ON_ONCE in fill_read_buffer)" \
	oversized_show_fails_eio
run sh -c "echo 0 > $S/show_ret"
check "value_readable_again_after_oversized_show" sys_is "OK 0" read "$S/data"

differs "o_trunc_on_text_attr_keeps_size_a_page" \
	"O_TRUNC sets the text attribute's size to 0 while an open file keeps its inode" \
	text_o_trunc_ours text_o_trunc_stock
differs "truncate_text_attr_to_0_keeps_size_a_page" \
	"truncate -s 0 sets the text attribute's size to 0 while an open file keeps its inode" \
	text_truncate_ours text_truncate_stock
differs "truncate_bin_attr_to_100_keeps_size_0" \
	"truncate -s 100 sets the binary attribute's size to 100 while an open file keeps its inode" \
	bin_truncate_ours bin_truncate_stock
check "truncation_is_accepted_and_calls_nothing" truncation_calls_nothing

run rmdir "$S"
cng_unload
ktap_done
