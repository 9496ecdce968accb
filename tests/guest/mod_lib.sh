# SPDX-License-Identifier: GPL-2.0
# Helpers of the module's own tests (mod_*.sh): source after lib.sh.
#   better NAME CMD...   a case where ours improves on stock: checked on
#                        ours; on stock a difference is reported as
#                        "# SKIP expected to differ on stock", as the
#                        conformance suite's better() does
#   nullb_setup          load null_blk with no device; skip if absent
NB=$CFS/nullb

better() {
	if [ "${CNG_CONFIGFS:-ours}" = ours ]; then
		check "$@"
		return
	fi
	ktap_name=$1
	shift
	ktap_n=$((ktap_n + 1))
	echo "# + $*"
	if "$@"; then
		echo "ok $ktap_n $ktap_name # stock behaves the same"
	else
		echo "ok $ktap_n $ktap_name # SKIP expected to differ on stock: see docs/differences.md"
	fi
}

nullb_setup() {
	if ! modprobe null_blk nr_devices=0 2>/dev/null || [ ! -d "$NB" ]; then
		echo "KTAP version 1"
		echo "1..0 # SKIP null_blk is not available"
		exit 4
	fi
}

# stat_of PATH: mode, owner, group, mtime and inode number
stat_of() {
	stat -c '%a %u %g %Y %i' "$1"
}
