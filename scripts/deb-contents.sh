#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The built packages judged on this machine, without installing them
# (dpkg-deb -e and -x into a temporary directory): what their maintainer
# scripts, unit and DKMS files do about issue 33, the cheap part of
# make check-deb's proof. A TAP stream with its plan.
#
# Usage: deb-contents.sh DEBDIR   (make check, after mkdeb.sh; TOP set,
#                                  tools/configfs/configfs built)
set -u

: "${TOP:?run me through make}"
dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=tests/harness/tap-lib.sh
. "$TOP/tests/harness/tap-lib.sh"

t() {	# t NAME CMD...: one result (tests/harness/tap-lib.sh)
	tap_check "$@"
}

for p in tools dkms; do
	deb=$(ls "$dir"/configfs-ng-"$p"_*.deb 2> /dev/null | head -n 1)
	[ -n "$deb" ] || { echo "1..1"; echo "not ok 1 no configfs-ng-$p in $dir"; exit 1; }
	mkdir -p "$tmp/$p/ctl"
	dpkg-deb -e "$deb" "$tmp/$p/ctl" && dpkg-deb -x "$deb" "$tmp/$p/root" ||
		exit 1
done
tc=$tmp/tools/ctl tr=$tmp/tools/root dc=$tmp/dkms/ctl dr=$tmp/dkms/root
unit=$tr/lib/systemd/system/configfs-restore.service

# An upgrade neither stops nor starts nor restarts the unit: no preinst
# or postinst calls deb-systemd-invoke, and the prerm's stop is for
# "remove" alone.
upgrade_leaves_the_unit() {
	! grep -Hn 'deb-systemd-invoke\|systemctl.*\(stop\|start\)' \
		"$tc/preinst" "$tc/postinst" 2> /dev/null &&
	grep -q 'deb-systemd-invoke stop configfs-restore.service' "$tc/prerm" &&
	! sed '/"$1" = remove/,/^fi/d; /^[[:space:]]*#/d' "$tc/prerm" | grep -n 'stop'
}

removal_stops_the_unit() {
	cat "$tc/prerm" &&
	sed -n '/"$1" = remove/,/^fi/p' "$tc/prerm" |
		grep -q 'deb-systemd-invoke stop configfs-restore.service'
}

# The unit's stop removes what it restored, not the whole tree; what it
# runs is in the package; it is ordered after the units that own
# target/ and nvmet/.
unit_stop_is_not_rm_all() {
	local start stop
	grep -n '^Exec\|^After' "$unit" || return 1
	! grep -q '^ExecStop=.*rm --all' "$unit" &&
	start=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$unit") &&
	stop=$(sed -n 's/^ExecStop=\([^ ]*\).*/\1/p' "$unit") &&
	[ -x "$tr$start" ] && [ -x "$tr$stop" ] &&
	grep -q '^After=.*rtslib-fb-targetctl.service' "$unit" &&
	grep -q '^After=.*nvmet.service' "$unit"
}

# The unit's program on a plain directory standing in for configfs: it
# loads the file's modules, restores the file, and its stop removes what the restore made and not a
# gadget made since, nor a subsystem's own directory. The file sets no
# attribute: on a stand-in that makes a regular file, which the tool's rm
# never removes.
unit_removes_only_its_own() {
	local r=$tmp/cfs
	mkdir -p "$r/nvmet/subsystems" "$r/nvmet/ports" "$r/usb_gadget" "$tmp/run"
	printf '#!/bin/sh\necho "$*" >> "$0.log"\n' > "$tmp/modprobe" &&
	chmod +x "$tmp/modprobe" || return 1
	cat > "$tmp/save" <<-SAVE
	version 1
	module nvmet
	mkdir nvmet/subsystems/a
	mkdir nvmet/ports/1
	mkdir nvmet/ports/1/subsystems
	link nvmet/ports/1/subsystems/a nvmet/subsystems/a
	mkdir usb_gadget/g
	end
	SAVE
	export CONFIGFS_SAVE=$tmp/save CONFIGFS_ROOT=$r CNG_RUN=$tmp/run \
		CNG_MODPROBE=$tmp/modprobe
	PATH=$TOP/tools/configfs:$PATH "$tr/usr/libexec/configfs-ng/configfs-restore-unit" start &&
	[ -L "$r/nvmet/ports/1/subsystems/a" ] && mkdir "$r/usb_gadget/admin" &&
	[ "$(cat "$tmp/modprobe.log")" = "-q -- nvmet" ] &&
	PATH=$TOP/tools/configfs:$PATH "$tr/usr/libexec/configfs-ng/configfs-restore-unit" stop &&
	find "$r" | sort &&
	[ ! -e "$r/nvmet/subsystems/a" ] && [ ! -e "$r/nvmet/ports/1" ] &&
	[ ! -e "$r/usb_gadget/g" ] && [ -d "$r/usb_gadget/admin" ] &&
	[ -d "$r/nvmet/subsystems" ]
}

# The unit loads a module by its name alone: a "module -c" line (which
# the tool refuses) never reaches modprobe as an option.
unit_loads_modules_by_name() {
	local r=$tmp/cfs2
	mkdir -p "$r/nvmet" "$tmp/run2"
	printf '#!/bin/sh\necho "$*" >> "$0.log"\n' > "$tmp/modprobe2" &&
	chmod +x "$tmp/modprobe2" || return 1
	printf 'version 1\nmodule -c\nmodule nvmet_tcp\nmkdir nvmet/x\nend\n' \
		> "$tmp/save2"
	CONFIGFS_SAVE=$tmp/save2 CONFIGFS_ROOT=$r CNG_RUN=$tmp/run2 \
	CNG_MODPROBE=$tmp/modprobe2 PATH=$TOP/tools/configfs:$PATH \
		"$tr/usr/libexec/configfs-ng/configfs-restore-unit" start
	cat "$tmp/modprobe2.log" &&
	[ "$(cat "$tmp/modprobe2.log")" = "-q -- nvmet_tcp" ]
}

# modprobe configfs goes through the fallback, which the package ships,
# with its version put in, and which the initramfs gets too, with DKMS's
# module and the kernel's (no module depending on configfs brings ours:
# modprobe names the install command for it).
modprobe_falls_back_to_stock() {
	local s=$dr/usr/libexec/configfs-ng/modprobe-configfs v
	local h=$dr/usr/share/initramfs-tools/hooks/configfs-ng
	v=$(sed -n 's/^Version: //p' "$dc/control")
	grep -qx 'install configfs /usr/libexec/configfs-ng/modprobe-configfs $CMDLINE_OPTS' \
		"$dr/lib/modprobe.d/configfs-ng.conf" &&
	[ -x "$s" ] && grep -qx "ours=$v" "$s" &&
	grep -q 'insmod' "$s" &&
	[ -x "$h" ] && grep -q 'updates/dkms/configfs.ko' "$h" &&
	grep -q 'kernel/fs/configfs/configfs.ko' "$h"
}

# Installing and removing the module regenerates the initramfs: the
# trigger (the newest kernel's) and update-initramfs for the others.
initramfs_regenerated() {
	grep -qx 'activate-noawait update-initramfs' "$dc/triggers" &&
	grep -q 'update-initramfs -u -k' "$dc/postinst" &&
	grep -q 'update-initramfs -u -k' "$dc/postrm"
}

# No BUILD_EXCLUSIVE_* (DKMS 3.0.10's autoinstall fails a kernel's
# installation for a module they exclude); MAKE never fails a kernel.
dkms_never_fails_a_kernel() {
	local conf
	conf=$(ls "$dr"/usr/src/configfs-ng-*/dkms.conf) || return 1
	! grep -n '^BUILD_EXCLUSIVE' "$conf" &&
	grep -q '^MAKE\[0\]=.*dkms-make.sh' "$conf" &&
	[ -f "$(dirname "$conf")/module/dkms-make.sh" ]
}

# configfs-ng-dkms is for amd64 and arm64 alone (debian/control), and
# this one was built for one of them.
dkms_package_is_amd64_or_arm64() {
	sed -n '/^Package: configfs-ng-dkms$/,/^$/p' "$TOP/debian/control" |
		grep -x 'Architecture: amd64 arm64' &&
	grep -x 'Architecture: \(amd64\|arm64\)' "$dc/control"
}

# The package's dkms-make.sh builds for DKMS's x86_64 and aarch64, here
# in a stand-in for the kernel's tree (a Makefile that says what it was
# asked), and to another architecture names the ones it is built for.
# (make check-arm64 runs DKMS itself on the arm64 package against
# Debian's arm64 headers: scripts/deb-arm64.sh.)
dkms_make_takes_amd64_and_arm64() {
	local s k=$tmp/ksrc m=$tmp/kmod a why
	s=$(ls "$dr"/usr/src/configfs-ng-*/module/dkms-make.sh) || return 1
	mkdir -p "$k" "$m"
	printf 'modules:\n\t@echo "built M=$(M)"\n' > "$k/Makefile"
	for a in x86_64 aarch64; do
		sh "$s" 6.1.0-99-test "$k" "$m" "$a" > "$tmp/make-$a" 2>&1
		cat "$tmp/make-$a"
		grep -qx "built M=$m" "$tmp/make-$a" || return 1
	done
	why="riscv64 is not amd64 (x86_64) or arm64 (aarch64),"
	why="$why the architectures configfs-ng is built and tested on"
	if sh "$s" 6.1.0-99-test "$k" "$m" riscv64 > "$tmp/make-riscv64" 2>&1; then
		echo "riscv64: dkms-make.sh succeeded with no configfs.ko to give"
		return 1
	fi
	cat "$tmp/make-riscv64"
	grep -qF "configfs-ng: not built for 6.1.0-99-test: $why;" \
		"$tmp/make-riscv64" && ! grep -q '^built' "$tmp/make-riscv64"
}

echo "TAP version 13"
t deb_upgrade_neither_stops_nor_restarts_the_unit upgrade_leaves_the_unit
t deb_removal_stops_the_unit removal_stops_the_unit
t deb_unit_stop_is_not_rm_all unit_stop_is_not_rm_all
t deb_unit_removes_only_what_it_restored unit_removes_only_its_own
t deb_unit_loads_modules_by_name_alone unit_loads_modules_by_name
t deb_modprobe_falls_back_to_stock modprobe_falls_back_to_stock
t deb_initramfs_regenerated_on_install_and_removal initramfs_regenerated
t deb_dkms_never_fails_a_kernel_installation dkms_never_fails_a_kernel
t deb_dkms_package_is_amd64_or_arm64 dkms_package_is_amd64_or_arm64
t deb_dkms_make_builds_for_amd64_and_arm64_names_them_elsewhere \
	dkms_make_takes_amd64_and_arm64
echo "1..$tap_n"
[ "$tap_failed" -eq 0 ]
