# SPDX-License-Identifier: GPL-2.0
# LIO (the SCSI target): a fileio backstore exported through a tcm_loop
# target, which shows it to this kernel as a SCSI disk. Source it.
#
# The tree lio_build_tree makes (the backing file is in /tmp):
#
#   /sys/kernel/config/target/
#   |-- core/
#   |   `-- fileio_0/
#   |       `-- cng_disk/
#   |           |-- control   fd_dev_name=$LIO_IMG,fd_dev_size=...  (0200)
#   |           |-- enable    1
#   |           `-- attrib/   each NAME=VALUE of $LIO_ATTRIBS, if set
#   `-- loopback/                            (mkdir loads tcm_loop)
#       `-- $LIO_WWN/                      (a SCSI host appears)
#           `-- tpgt_1/
#               |-- nexus     $LIO_INITIATOR
#               `-- lun/
#                   `-- lun_0/
#                       `-- cng_port -> ../../../../../core/fileio_0/cng_disk
#                                          (an sd disk appears)
#
# Functions: lio_setup (modules, backing file), lio_build_tree,
# lio_verify_works (finds the disk, data both ways), lio_teardown (the
# tree, in order), lio_cleanup (everything, best effort, idempotent).
. "${CLIENTS_DIR:-/tests/clients}/common.sh"

LIO_IMG=/tmp/lio.img
LIO_SIZE_MB=16
LIO_WWN=naa.5001405c0f1e0001
LIO_INITIATOR=naa.5001405c0f1e0002
LIO_MODULES="tcm_loop target_core_file target_core_mod sd_mod scsi_mod"
T=$CFS/target
LIO_DEV=$T/core/fileio_0/cng_disk
LIO_TPG=$T/loopback/$LIO_WWN/tpgt_1

lio_setup() {
	LIO_MODS_BEFORE=$(modules_loaded)
	x modprobe sd_mod || return
	x modprobe target_core_file || return
	x modprobe tcm_loop || return
	x dd if=/dev/zero of=$LIO_IMG bs=1M count=$LIO_SIZE_MB \
		2>/dev/null || return
}

lio_build_tree() {
	x mkdir $T/core/fileio_0 || return
	x mkdir $LIO_DEV || return
	x put $LIO_DEV/control \
		"fd_dev_name=$LIO_IMG,fd_dev_size=$((LIO_SIZE_MB << 20))" ||
		return
	x put $LIO_DEV/enable 1 || return
	# Device attributes after enable, as targetcli sets them, and before
	# the LUN exports the device (LIO refuses them from then on).
	for a in ${LIO_ATTRIBS:-}; do
		x put $LIO_DEV/attrib/${a%%=*} ${a#*=} || return
	done
	# Fabric directories are made on demand (mkdir loads the fabric).
	x mkdir $T/loopback || return
	x mkdir $T/loopback/$LIO_WWN || return
	x mkdir $LIO_TPG || return
	x put $LIO_TPG/nexus $LIO_INITIATOR || return
	x mkdir $LIO_TPG/lun/lun_0 || return
	x ln -s $LIO_DEV $LIO_TPG/lun/lun_0/cng_port || return
}

# lio_find_disk: set LIO_SD to the sd disk whose vendor is LIO-ORG.
lio_find_disk() {
	LIO_SD=
	for d in /sys/block/sd*; do
		[ -e "$d/device/vendor" ] || continue
		case $(cat "$d/device/vendor") in
		LIO-ORG*) LIO_SD=${d##*/} ;;
		esac
	done
	[ -n "$LIO_SD" ] && [ -b "/dev/$LIO_SD" ] &&
	[ "$(cat "/sys/block/$LIO_SD/size")" -gt 0 ]
}

# lio_io: 1 MiB through the disk lands in the file; 1 MiB written to the
# file reads back through the disk.
lio_io() {
	disk_file_cross /dev/$LIO_SD $LIO_IMG 256 512 1536
}

lio_verify_works() {
	x wait_for 30 lio_find_disk || return
	echo "# disk: /dev/$LIO_SD"
	x lio_io || return
}

lio_teardown() {
	x rm $LIO_TPG/lun/lun_0/cng_port || return
	x rmdir $LIO_TPG/lun/lun_0 || return
	x rmdir $LIO_TPG || return
	x rmdir $T/loopback/$LIO_WWN || return
	# The empty fabric directory would pin tcm_loop.
	x rmdir $T/loopback || return
	x rmdir $LIO_DEV || return
	x rmdir $T/core/fileio_0 || return
}

lio_cleanup() {
	c_rc=0
	if [ -d $T ]; then
		rm_if $LIO_TPG/lun/lun_0/cng_port || c_rc=1
		rmdir_if $LIO_TPG/lun/lun_0 || c_rc=1
		rmdir_if $LIO_TPG || c_rc=1
		rmdir_if $T/loopback/$LIO_WWN || c_rc=1
		rmdir_if $T/loopback || c_rc=1
		rmdir_if $LIO_DEV || c_rc=1
		rmdir_if $T/core/fileio_0 || c_rc=1
	fi
	rm -f $LIO_IMG /tmp/cross.pat
	# shellcheck disable=SC2086
	unload $LIO_MODULES || c_rc=1
	if [ "${LIO_MODS_BEFORE+set}" = set ]; then
		unload_since "$LIO_MODS_BEFORE" || c_rc=1
	fi
	return $c_rc
}
