# SPDX-License-Identifier: GPL-2.0
# Helpers for the tests of the configfs tool on real trees (cli_*.sh):
# each builds a client's tree with tests/lib/clients/*.sh, then saves,
# removes, restores and saves it again with /tests/bin/configfs. Source it
# after lib.sh and the client's file.
#
#   cfg ARGS...             run the tool, echoing the command and its output
#                           (lines cut at 160 bytes) as diagnostics; its
#                           status is the tool's; the output stays in
#                           $CLI_OUT
#   cli_snap PATH           the names under PATH (relative to configfs)
#   cli_same_tree PATH SNAP PATH holds exactly the names of SNAP again
#   cli_save FILE PATH      save PATH to FILE, showing the file
#   cli_same_saves A B      A and B are byte-identical; else the diff
#   cli_no_writes FILE      diff says nothing to do, and restore -v makes no
#                           change
#   cli_diff_shows FILE LINE... diff FILE exits 1 and prints every LINE
#   cli_rm_gone PATH SNAP   rm -r PATH succeeds and leaves what SNAP saw
#   cli_tree_shows PATH LINE...  tree PATH prints every LINE
#   cli_json_has PATH TEXT  tree --json PATH is a versioned array, one entry a
#                           line, and one entry contains TEXT
CLI_OUT=/tmp/cli.out

cfg() {
	echo "# + configfs $*"
	cfg_rc=0
	configfs "$@" > $CLI_OUT 2>&1 || cfg_rc=$?
	# Long values (cng_test's 4 KiB "big") would flood the log.
	cut -c 1-160 $CLI_OUT | sed 's/^/#   /'
	[ "$cfg_rc" -eq 0 ] || echo "# configfs exited $cfg_rc"
	return $cfg_rc
}

cli_snap() {
	(cd "$CFS" && find "$1" | sort)
}

cli_same_tree() {
	cst_now=$(cli_snap "$1")
	[ "$cst_now" = "$2" ] && return 0
	echo "# $1 was:"
	echo "$2" | sed 's/^/#   /'
	echo "# $1 is now:"
	echo "$cst_now" | sed 's/^/#   /'
	return 1
}

cli_save() {
	cfg save -o "$1" "$2" || return
	cut -c 1-160 "$1" | sed 's/^/# | /'
}

cli_same_saves() {
	cmp -s "$1" "$2" && return 0
	echo "# the saves differ:"
	diff -u "$1" "$2" | sed 's/^/#   /'
	return 1
}

cli_no_writes() {
	cfg diff "$1" || return
	cfg restore -v "$1" || return
	# -v prints each change as a statement; comments are not changes.
	if grep -qv '^#' $CLI_OUT; then
		echo "# restore of a matching tree changed something"
		return 1
	fi
}

cli_diff_shows() {
	cds_file=$1
	shift
	cds_rc=0
	cfg diff "$cds_file" || cds_rc=$?
	if [ "$cds_rc" -ne 1 ]; then
		echo "# diff exited $cds_rc, expected 1 (differences)"
		return 1
	fi
	for cds_line in "$@"; do
		grep -qxF -- "$cds_line" $CLI_OUT && continue
		echo "# diff does not show: $cds_line"
		return 1
	done
}

cli_rm_gone() {
	cfg rm -r "$1" || return
	cli_same_tree "$1" "$2"
}

cli_tree_shows() {
	cts_path=$1
	shift
	cfg tree "$cts_path" || return
	for cts_line in "$@"; do
		grep -qF -- "$cts_line" $CLI_OUT && continue
		echo "# tree does not show: $cts_line"
		return 1
	done
}

cli_json_has() {
	cfg tree --json "$1" || return
	if [ "$(head -n 1 $CLI_OUT)" != '{"version":1,"entries":[' ] ||
	   [ "$(tail -n 1 $CLI_OUT)" != "]}" ]; then
		echo "# not a versioned JSON object"
		return 1
	fi
	# Every entry but the last ends with "},", the last with "}".
	if sed '1d;$d' $CLI_OUT | sed '$d' | grep -qv '^{.*},$' ||
	   ! sed '1d;$d' $CLI_OUT | tail -n 1 | grep -q '^{.*}$'; then
		echo "# malformed JSON entries"
		return 1
	fi
	grep -qF -- "$2" $CLI_OUT && return 0
	echo "# no entry contains: $2"
	return 1
}
