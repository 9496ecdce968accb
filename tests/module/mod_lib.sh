# SPDX-License-Identifier: GPL-2.0
# Helpers of the module's own tests (mod_*.sh): source after lib.sh.
#   better NAME CMD...   a case where ours improves on stock: checked on
#                        ours; on stock a difference is reported as
#                        "# SKIP expected to differ on stock", as the
#                        conformance suite's better() does
#   nullb_setup          load null_blk with no device; skip if this kernel
#                        has no null_blk, fail if it has one that does not
#                        load or does not show nullb/ (what a broken
#                        configfs_register_subsystem would do)
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
	if grep -qx null_blk /tests/kmods-absent; then
		echo "KTAP version 1"
		echo "1..0 # SKIP null_blk is not a module of this kernel"
		exit 4
	fi
	echo "# + modprobe null_blk nr_devices=0"
	if ! modprobe null_blk nr_devices=0; then
		echo "# null_blk does not load"
		exit 1
	fi
	if [ ! -d "$NB" ]; then
		echo "# null_blk loaded, but $NB is missing"
		exit 1
	fi
}

# stat_of PATH: mode, owner, group, mtime and inode number
stat_of() {
	stat -c '%a %u %g %Y %i' "$1"
}
