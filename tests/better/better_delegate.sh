#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Better than stock: a root-owned attribute delegated with chown and chmod
# to an unprivileged user (cng, uid 1000) is writable by that user and by no
# other (nobody, uid 65534), and stays so after cache eviction.
#
#   cng_test/items/d/
#   |-- data       chown 1000:1000, chmod 600: cng's
#   `-- store_ret  left to root (0644)
set -eu
. ./conf_lib.sh

D=$T/items/d

cleanup() {
	set +e
	rmdir "$D" 2>/dev/null
	cng_loaded && rmmod cng_test
}
trap cleanup EXIT

# as UID WANT OP NAME ARGS...: conf_sys OP NAME ARGS... run as UID in
# items/d prints WANT
as() {
	as_uid=$1 as_want=$2
	shift 2
	as_got=$(better_runas "$as_uid" "$as_uid" "$D" "$@")
	[ "$as_got" = "$as_want" ] || {
		echo "# as $as_uid: conf_sys $*: got '$as_got', want '$as_want'"
		return 1
	}
}

ktap_plan 12

cng_load
run mkdir "$D"
check "unprivileged_write_refused_before_delegation" \
	as 1000 EACCES write data mine
run chown 1000:1000 "$D/data"
run chmod 600 "$D/data"
check "delegated_user_writes" as 1000 "OK 4" write data mine
check "delegated_user_reads" as 1000 mine cat data
check "other_user_cannot_write" as 65534 EACCES write data evil
check "other_user_cannot_read" as 65534 EACCES open data r
check "undelegated_attr_refuses_delegated_user" \
	as 1000 EACCES write store_ret 5
drop_caches
better "delegated_user_writes_after_drop_caches" \
	"owner and mode revert; the user is refused" \
	as 1000 "OK 5" write data again
better "delegated_user_reads_after_drop_caches" \
	"owner and mode revert" as 1000 again cat data
check "other_user_cannot_write_after_drop_caches" \
	as 65534 EACCES write data evil
check "other_user_cannot_read_after_drop_caches" \
	as 65534 EACCES open data r
check "value_is_the_delegated_users" test "$(cat "$D/data")" = again
run rmdir "$D"
check "module_unloads" cng_unload
ktap_done
