#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# docs/differences.md row 7 where a page is more than 4096 bytes (64K on
# Debian's ppc64el kernels: make check-ppc64el runs this test there, and
# it fails on a kernel of 4K pages, where it proves nothing). A client's
# show really writes a whole page, as scnprintf(page, PAGE_SIZE, ...)
# may, and returns its length: more than the 4096 bytes a show may give.
# On both modules the read fails with EIO and the next show works; the
# bytes fit the buffer, so the kernel's SLUB checks (slub_debug=FZPU)
# see no overrun. Ours says so in a rate-limited message; stock WARNs,
# which the runner fails: an expected failure on stock
# (tests/harness/expected.list).
#
#   cng_test/items/p/
#   `-- data       show_ret N: its show writes N bytes (at most a page)
#                  and returns N
set -eu
. ./conf_lib.sh

S=$T/items/p
PAGE=$(page_size)
echo "# page size: $PAGE bytes"

cleanup() {
	set +e
	rmdir "$S" 2>/dev/null
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# Lines of the kernel log that name data's show of a whole page.
page_messages() {
	dmesg | grep -c "data: show returned $PAGE bytes, more than a page" ||
		true
}

# A read of data fails with EIO, on both modules; ours also logs it.
whole_page_show_fails_eio() {
	before=$(page_messages)
	sys_is EIO read "$S/data" || return 1
	after=$(page_messages)
	echo "# $((after - before)) messages"
	on_stock || [ "$after" -gt "$before" ]
}

ktap_plan 3

check "pages_are_over_4096_bytes" test "$PAGE" -gt 4096
cng_load
run mkdir "$S"
run sh -c "echo $PAGE > $S/show_ret"
check "show_writing_a_whole_page_fails_eio" whole_page_show_fails_eio
run sh -c "echo 0 > $S/show_ret"
run sh -c "echo 12345 > $S/data"
check "next_show_reads_the_value" sys_is "OK 6" read "$S/data"

run rmdir "$S"
cng_unload
trap - EXIT
ktap_done
