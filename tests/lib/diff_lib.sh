# SPDX-License-Identifier: GPL-2.0
# Helpers of the diff_* tests, which check the intentional differences
# from stock (docs/differences.md). Source after conf_lib.sh.
#
#   differs NAME STOCK OURS_CMD STOCK_CMD
#       ours: the case passes when OURS_CMD does. Stock: STOCK_CMD checks
#       that stock does what the table's stock column says; if it does,
#       "ok N NAME # SKIP expected to differ on stock: STOCK", else the
#       case fails (stock is not what the table says).
#   agrees NAME CMD...
#       a case where the table's difference does not show: checked on both,
#       and on stock reported "# stock behaves the same".
#   not_on_stock NAME WHY CMD...
#       ours: check NAME CMD. Stock: CMD is not run (it would WARN, BUG
#       or leak); "ok N NAME # SKIP expected to differ on stock: WHY".
#   refused_with_log FILE VALUE PATTERN
#       (row 21) writing VALUE to FILE fails, and the error record
#       (user.configfs.error) has a "log:" line matching PATTERN: what the
#       unmodified client printed while refusing comes back to the user.
#   no_record FILE VALUE
#       the stock side of it: the write fails and the record's name is
#       not supported (EOPNOTSUPP).

differs() {
	if ! on_stock; then
		check "$1" "$3"
		return
	fi
	ktap_n=$((ktap_n + 1))
	echo "# + $4"
	if "$4"; then
		echo "ok $ktap_n $1 # SKIP expected to differ on stock: $2"
	else
		echo "# stock does not do what docs/differences.md says"
		echo "not ok $ktap_n $1"
		ktap_failed=$((ktap_failed + 1))
	fi
}

not_on_stock() {
	if ! on_stock; then
		ns_name=$1
		shift 2
		check "$ns_name" "$@"
		return
	fi
	ktap_n=$((ktap_n + 1))
	echo "ok $ktap_n $1 # SKIP expected to differ on stock: not run, $2"
}

agrees() {
	ag_name=$1
	shift
	ktap_n=$((ktap_n + 1))
	echo "# + $*"
	if ! "$@"; then
		echo "not ok $ktap_n $ag_name"
		ktap_failed=$((ktap_failed + 1))
	elif on_stock; then
		echo "ok $ktap_n $ag_name # stock behaves the same"
	else
		echo "ok $ktap_n $ag_name"
	fi
}

refused_with_log() {
	! put "$1" "$2" 2>/dev/null &&
	conf_sys getxattr "$1" user.configfs.error > /tmp/refused_rec &&
	sed 's/^/# record: /' /tmp/refused_rec &&
	grep -q "^log: $3" /tmp/refused_rec
}

no_record() {
	! put "$1" "$2" 2>/dev/null &&
	sys_is EOPNOTSUPP getxattr "$1" user.configfs.error
}
