#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The configfs tool on committable items (configfs-ng.h; the sample client
# cng_commit): save writes a live item under live/; rm -r un-commits it
# (after the link into it) before removing it; restore makes it in
# pending/, configures it there and commits it last, then links to it; a
# second save is byte-identical; a commit the client refuses is reported
# with its reason and leaves the item pending, and diff then shows the
# commit still to do. Ours only.
#
#   cng_commit/
#   |-- disks/live/d/     ready 1, value 7 (committed)
#   |-- disks/pending/e/  value 3 (not committed)
#   `-- hosts/h/ld -> ../../../cng_commit/disks/live/d
set -eu
. ./conf_lib.sh
. ./clients/common.sh
. ./cli_lib.sh

C=$CFS/cng_commit
D=$C/disks
CC_KO=/lib/modules/cng/cng_commit.ko

if on_stock; then
	echo "1..0 # SKIP committable items need configfs-ng's module"
	exit 4
fi

# shellcheck disable=SC2034 # read by tree_left_as_found's eval
before=$(cfs_snapshot)
cc_cleanup() {
	set +e
	[ -d "$D/live/d" ] &&
		conf_sys rename "$D/live/d" "$D/pending/d" > /dev/null
	rm_if "$C/hosts/h/ld"
	rmdir_if "$C/hosts/h"
	rmdir_if "$D/pending/d"
	rmdir_if "$D/pending/e"
	rm -f /tmp/cc.1 /tmp/cc.2 /tmp/cc.0
	unload cng_commit
}
trap 'cc_cleanup || echo "# cleanup could not undo everything"' EXIT

cc_build() {
	x mkdir "$D/pending/d" || return
	x put "$D/pending/d/ready" 1 || return
	x put "$D/pending/d/value" 7 || return
	x mv "$D/pending/d" "$D/live/" || return
	x mkdir "$D/pending/e" || return
	x put "$D/pending/e/value" 3 || return
	x mkdir "$C/hosts/h" || return
	x ln -s "$D/live/d" "$C/hosts/h/ld"
}

# in_order WORD...: each line is in $CLI_OUT, after the one before it.
in_order() {
	io_after=0
	for io_line in "$@"; do
		io_at=$(grep -nxF -- "$io_line" $CLI_OUT | head -n 1 | cut -d: -f1)
		if [ -z "$io_at" ] || [ "$io_at" -le "$io_after" ]; then
			echo "# not in order: $io_line"
			return 1
		fi
		io_after=$io_at
	done
}

saved_as_live() {
	cli_save /tmp/cc.1 cng_commit || return
	for l in "mkdir cng_commit/disks/live/d" \
		 "set cng_commit/disks/live/d/value 7" \
		 "mkdir cng_commit/disks/pending/e" \
		 "link cng_commit/hosts/h/ld cng_commit/disks/live/d"; do
		x grep -qxF "$l" /tmp/cc.1 || return
	done
}

rm_uncommits() {
	cfg rm -r -v cng_commit/hosts cng_commit/disks || return
	in_order "unlink cng_commit/hosts/h/ld" \
		"uncommit cng_commit/disks/live/d" \
		"rmdir cng_commit/disks/pending/d" || return
	x sh -c "[ -z \"\$(ls $D/live)\" ] && [ -z \"\$(ls $D/pending)\" ]"
}

restore_commits_last() {
	cfg restore -v /tmp/cc.1 || return
	in_order "mkdir cng_commit/disks/pending/d" \
		"set cng_commit/disks/pending/d/ready 1" \
		"commit cng_commit/disks/live/d" \
		"link cng_commit/hosts/h/ld cng_commit/disks/live/d" || return
	x expect "$D/live/d/state" live || return
	x expect "$D/live/d/value" 7 || return
	x expect "$D/pending/e/state" pending || return
	x expect "$C/hosts/h/ld/value" 7
}

finish_commit() {
	cfg restore -v /tmp/cc.1 || return
	in_order "set cng_commit/disks/pending/d/ready 1" \
		"commit cng_commit/disks/live/d" \
		"link cng_commit/hosts/h/ld cng_commit/disks/live/d" || return
	x expect "$D/live/d/state" live
}

same_again() {
	cli_save /tmp/cc.2 cng_commit && cli_same_saves /tmp/cc.1 /tmp/cc.2
}

refused_commit_reported() {
	cfg rm -r cng_commit/hosts cng_commit/disks || return
	sed 's|^set cng_commit/disks/live/d/ready 1$|set cng_commit/disks/live/d/ready 0|' \
		/tmp/cc.1 > /tmp/cc.0
	exits_with 1 cfg restore /tmp/cc.0 || return
	x grep -qF "(/tmp/cc.0:" $CLI_OUT || return
	x grep -qF ": commit cng_commit/disks/live/d): Resource temporarily unavailable" \
		$CLI_OUT || return
	x grep -qF "reason: d is not ready" $CLI_OUT || return
	x grep -qF "cng_commit/hosts/h/ld: not attempted" $CLI_OUT || return
	x sh -c "[ -d $D/pending/d ] && ! [ -e $D/live/d ]"
}

diff_shows_the_commit() {
	exits_with 1 cfg diff /tmp/cc.1 || return
	x grep -qxF "+commit cng_commit/disks/live/d" $CLI_OUT || return
	x grep -qxF "+set cng_commit/disks/live/d/ready 1" $CLI_OUT || return
	# The pending item is the one to commit, not one to prune.
	! grep -q "^-mkdir" $CLI_OUT
}

ktap_plan 11
critical module_loads x insmod "$CC_KO"
critical tree_builds cc_build
critical save_writes_the_live_item_under_live saved_as_live
check restore_onto_matching_tree_writes_nothing cli_no_writes /tmp/cc.1
critical rm_r_uncommits_after_the_link rm_uncommits
critical restore_configures_in_pending_and_commits_last restore_commits_last
check second_save_is_identical same_again
check refused_commit_reported_with_its_reason refused_commit_reported
check diff_shows_the_commit_still_to_do diff_shows_the_commit
check restore_commits_what_was_left_pending finish_commit
check tree_left_as_found eval 'cc_cleanup && tree_as_found "$before"'
ktap_done
