#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages' life in a Debian guest (scripts/debian-guest.sh,
# over a disk that survives the reboot): run by scripts/check-deb.sh.
#
# Usage: in-guest.sh deb DEBDIR       (CNG_BOOT is 1, 2, ... after each
#        in-guest.sh install SRCDIR    reboot it asks for)
#
# A configfs once loaded stays: services' private mount namespaces
# (systemd's ProtectSystem= and the like) hold the mount, so modprobe -r
# says "in use". So, as for a user, a change of module shows after a
# reboot, and every switch between stock and ours is proved across one.
#
# deb, boot 1: stock configfs is in charge; dpkg -i both packages; DKMS
# built and installed configfs.ko under updates/dkms; modinfo names it
# and its version; the kernel's own configfs.ko is still in place; ours
# exports stock's symbols with stock's CRCs, the ones every client module
# of the kernel expects; DKMS refuses a kernel outside
# BUILD_EXCLUSIVE_KERNEL.
# Boot 2: modprobe (systemd's, at boot) loaded ours; nvmet over TCP on
# loopback works on it with nvme connect; the tree is saved to
# /etc/configfs/configfs.save and the restore unit enabled.
# Boot 3: the unit restored the tree and nvme connect works on it again;
# stopping the unit tears the tree down; dpkg --purge both.
# Boot 4: stock configfs is loaded again.
#
# The tree the test builds (under /sys/kernel/config):
#   nvmet/subsystems/cng-deb          attr_allow_any_host 1
#     namespaces/1                    device_path /dev/nullb0, enable 1
#   nvmet/ports/1                     tcp 127.0.0.1:4420 ipv4
#     subsystems/cng-deb -> ../../../subsystems/cng-deb
#
# install, boot 1: make install (PREFIX=/usr/local) put the DKMS source
# in /usr/src, and DKMS built and installed the module. Boot 2: ours is
# loaded; the tool and its man page are under the PREFIX; dkms remove.
# Boot 3: stock is loaded again.
#
# Prints one TAP result a step, numbered across the boots; the host
# adds the plan.
#
# The steps are functions that t() calls by name:
# shellcheck disable=SC2317
set -u

mode=$1
from=$2
count=/cng-job/count
cfs=/sys/kernel/config
nqn=cng-deb
kver=$(uname -r)
lib=/lib/modules/$kver
save=/etc/configfs/configfs.save

# t NAME CMD...: one result; CMD's output, as comments, only on failure.
t() {
	local name=$1 n log
	shift
	n=$(( $(cat "$count" 2>/dev/null || echo 0) + 1 ))
	echo "$n" > "$count"
	log=$(mktemp)
	if "$@" > "$log" 2>&1; then
		echo "ok $n $name"
	else
		sed 's/^/# /' "$log"
		echo "not ok $n $name"
	fi
	rm -f "$log"
}

# Which configfs is loaded: its version file says module/VERSION for
# ours, 0.0.2 for stock (fs/configfs/mount.c's MODULE_VERSION).
ours_loaded() {
	grep '^configfs ' /proc/modules &&
	[ "$(cat /sys/module/configfs/version)" = "$version" ]
}

stock_loaded() {
	grep '^configfs ' /proc/modules &&
	[ "$(cat /sys/module/configfs/version)" = 0.0.2 ]
}

modinfo_is() {	# modinfo_is DIR: modprobe configfs would load DIR/configfs.ko
	local f
	modprobe --show-depends configfs
	f=$(modinfo -n configfs)
	echo "modinfo -n configfs: $f"
	case $f in "/lib/modules/$kver/$1/configfs.ko"*) ;; *) return 1 ;; esac
}

dkms_built_here() {
	dkms status configfs-ng
	dkms status configfs-ng -k "$kver" | grep -q ': installed'
}

dkms_refuses_other_kernels() {
	local out rc
	# A kernel DKMS could build for (headers there), but not 6.1 or 6.12.
	mkdir -p /lib/modules/5.10.0-99-amd64
	ln -sfn "/usr/src/linux-headers-$kver" /lib/modules/5.10.0-99-amd64/build
	out=$(dkms build "configfs-ng/$version" -k 5.10.0-99-amd64 2>&1)
	rc=$?
	rm -rf /lib/modules/5.10.0-99-amd64
	echo "$out"
	echo "exit status $rc"
	[ "$rc" -eq 77 ] && echo "$out" | grep -q BUILD_EXCLUSIVE
}

# DKMS 3.0.10 moves a same-named module aside ("original_module") on
# other distributions, never on Debian: the kernel's configfs.ko must
# stay where it is, for modprobe to find once ours is purged.
stock_module_left_in_place() {
	ls -l "$lib/kernel/fs/configfs/"
	ls /var/lib/dkms/configfs-ng/
	[ -n "$(stock_ko)" ] &&
	[ ! -e /var/lib/dkms/configfs-ng/original_module ]
}

stock_ko() {
	ls "$lib/kernel/fs/configfs/configfs.ko"* 2>/dev/null
}

# ko_crcs KO: "SYMBOL CRC" for each symbol KO exports, sorted: the
# 32-bit value at each __crc_SYMBOL, in __kcrctab or __kcrctab_gpl.
ko_crcs() {
	local dir off sec sym
	dir=$(mktemp -d)
	case $1 in
	*.xz)	xz -dc "$1" > "$dir/m.ko" ;;
	*.zst)	zstd -qdc "$1" > "$dir/m.ko" ;;
	*)	cp "$1" "$dir/m.ko" ;;
	esac
	for sec in __kcrctab __kcrctab_gpl; do
		objcopy -O binary --only-section="$sec" "$dir/m.ko" "$dir/$sec"
	done
	objdump -t "$dir/m.ko" |
	awk '$NF ~ /^__crc_/ { print $1, $(NF - 2), substr($NF, 7) }' |
	while read -r off sec sym; do
		echo "$sym 0x$(od -An -tx4 -j $((16#$off)) -N4 "$dir/$sec" |
			tr -d ' ')"
	done | sort
	rm -rf "$dir"
}

# The module DKMS built exports stock's symbols with stock's CRCs (its
# own cfgng_* besides), and every client module of this kernel that
# imports one expects the CRC ours has: modprobe --dump-modversions.
dkms_module_abi_is_stock() {
	local dir m ret=1
	dir=$(mktemp -d)
	ko_crcs "$(ls "$lib/updates/dkms/configfs.ko"*)" |
		grep -v '^cfgng_' > "$dir/ours"
	ko_crcs "$(stock_ko)" > "$dir/stock"
	echo "stock exports $(wc -l < "$dir/stock") symbols"
	# Whatever depends on a configfs.ko, stock's or ours.
	awk -F: '$2 ~ /\/configfs\.ko[.a-z]*( |$)/ { print $1 }' \
		"$lib/modules.dep" > "$dir/clients"
	while read -r m; do
		modprobe --dump-modversions "$lib/$m" |
		awk -v m="$m" 'NR == FNR { crc[$1] = $2; next }
			       $2 in crc { print m, $2, $1, crc[$2] }' \
			"$dir/ours" -
	done < "$dir/clients" > "$dir/imports"
	awk '$3 != $4 { print $1, "expects", $2, $3 ", ours has", $4 }' \
		"$dir/imports"
	echo "$(wc -l < "$dir/clients") clients import" \
		"$(wc -l < "$dir/imports") of its symbols"
	if [ -s "$dir/stock" ] && diff "$dir/stock" "$dir/ours" &&
	   [ -s "$dir/imports" ] &&
	   awk '$3 != $4 { exit 1 }' "$dir/imports"; then
		ret=0
	fi
	rm -rf "$dir"
	return "$ret"
}

modinfo_version() {
	modinfo configfs
	[ "$(modinfo -F version configfs)" = "$version" ]
}

wait_for_ns() {
	for _ in $(seq 60); do
		for ns in /dev/nvme*n1; do
			[ -b "$ns" ] && return 0
		done
		sleep 1
	done
	nvme list
	return 1
}

nvme_connects_and_reads() {
	nvme connect -t tcp -a 127.0.0.1 -s 4420 -n "$nqn" || return 1
	wait_for_ns || return 1
	echo "namespace: $ns"
	dd if="$ns" of=/dev/null bs=4k count=256 iflag=direct || return 1
	nvme list-subsys
	nvme disconnect -n "$nqn"
}

nvmet_tree() {
	local s=$cfs/nvmet/subsystems/$nqn p=$cfs/nvmet/ports/1
	if ! { modprobe null_blk nr_devices=1 && modprobe nvmet &&
	       modprobe nvmet-tcp && modprobe nvme-tcp; }; then
		dmesg | tail -n 20
		return 1
	fi
	mkdir "$s" && echo 1 > "$s/attr_allow_any_host" &&
	mkdir "$s/namespaces/1" &&
	echo /dev/nullb0 > "$s/namespaces/1/device_path" &&
	echo 1 > "$s/namespaces/1/enable" &&
	mkdir "$p" && echo tcp > "$p/addr_trtype" &&
	echo 127.0.0.1 > "$p/addr_traddr" && echo 4420 > "$p/addr_trsvcid" &&
	echo ipv4 > "$p/addr_adrfam" &&
	ln -s "$s" "$p/subsystems/$nqn"
}

tree_restored() {
	systemctl status --no-pager configfs-restore.service
	systemctl is-active configfs-restore.service &&
	[ "$(cat "$cfs/nvmet/subsystems/$nqn/namespaces/1/enable")" = 1 ] &&
	[ -L "$cfs/nvmet/ports/1/subsystems/$nqn" ] &&
	configfs diff "$save"
}

# Stopping the unit (as at shutdown) takes the whole tree down.
unit_stop_tears_down() {
	systemctl stop configfs-restore.service || return 1
	configfs tree
	# Both directories there (nvmet still loaded) and empty.
	[ -d "$cfs/nvmet/ports" ] && [ -d "$cfs/nvmet/subsystems" ] &&
	[ -z "$(ls -A "$cfs/nvmet/subsystems")" ] &&
	[ -z "$(ls -A "$cfs/nvmet/ports")" ] &&
	modprobe -r nvme-tcp nvmet-tcp nvmet null_blk
}

save_and_enable() {
	mkdir -p /etc/configfs && chmod 0700 /etc/configfs &&
	configfs save -o "$save" && cat "$save" &&
	systemctl enable configfs-restore.service
}

purge() {
	dpkg --purge configfs-ng-dkms configfs-ng-tools &&
	! dkms status configfs-ng | grep -q . &&
	[ ! -e "/lib/modules/$kver/updates/dkms/configfs.ko" ] &&
	[ ! -e /lib/systemd/system/configfs-restore.service ]
}

make_install() {
	mkdir /tmp/src &&
	git -c safe.directory='*' -C "$from" ls-files -z --cached --others \
		--exclude-standard | (cd "$from" && tar --null -T - -cf -) |
		tar -C /tmp/src -xf - &&
	make -C /tmp/src install PREFIX=/usr/local
}

# man -w may name the page by another path to the same file: Debian's
# /usr/local/man is a link to share/man, and man searches it first.
tool_under_prefix() {
	local page=/usr/local/share/man/man8/configfs.8 found
	/usr/local/sbin/configfs --version || return 1
	found=$(man -w configfs) || return 1
	echo "man -w configfs: $found"
	[ -f "$page" ] && [ "$(realpath "$found")" = "$(realpath "$page")" ]
}

dkms_remove() {
	dkms remove "configfs-ng/$version" --all &&
	[ ! -e "/lib/modules/$kver/updates/dkms/configfs.ko" ]
}

echo "# $mode, boot $CNG_BOOT: $kver"
case $mode-$CNG_BOOT in
install-1)
	t stock_configfs_loaded_at_boot stock_loaded
	version=$(cat "$from/module/VERSION")
	echo "$version" > /cng-job/version
	t make_install_runs make_install
	t make_install_dkms_built_and_installed dkms_built_here
	t make_install_modprobe_would_load_ours modinfo_is updates/dkms
	touch /cng-job/reboot
	;;
install-2)
	version=$(cat /cng-job/version)
	t make_install_ours_loaded_at_boot ours_loaded
	t make_install_tool_and_man_page_under_prefix tool_under_prefix
	t dkms_remove_deletes_the_module dkms_remove
	t dkms_remove_modprobe_would_load_stock modinfo_is kernel/fs/configfs
	touch /cng-job/reboot
	;;
install-3)
	t dkms_remove_stock_loaded_at_boot stock_loaded
	;;
deb-1)
	t stock_configfs_before_install modinfo_is kernel/fs/configfs
	t stock_configfs_loaded_at_boot stock_loaded
	t dpkg_installs_both_packages \
		dpkg -i "$from"/configfs-ng-dkms_*.deb "$from"/configfs-ng-tools_*.deb
	version=$(dpkg-query -W -f='${Version}' configfs-ng-dkms)
	echo "$version" > /cng-job/version
	t dkms_built_and_installed_for_the_running_kernel dkms_built_here
	t modprobe_would_load_ours_from_updates_dkms modinfo_is updates/dkms
	t modinfo_says_our_version modinfo_version
	t dkms_left_the_stock_module_in_place stock_module_left_in_place
	t dkms_module_exports_stock_crcs_to_all_clients dkms_module_abi_is_stock
	t dkms_refuses_a_kernel_outside_6_1_and_6_12 dkms_refuses_other_kernels
	touch /cng-job/reboot
	;;
deb-2)
	version=$(cat /cng-job/version)
	t modprobe_at_boot_loaded_ours ours_loaded
	t nvmet_tcp_target_made_on_ours nvmet_tree
	t nvme_connect_reads_the_namespace nvme_connects_and_reads
	t tree_saved_and_restore_unit_enabled save_and_enable
	touch /cng-job/reboot
	;;
deb-3)
	version=$(cat /cng-job/version)
	t ours_loaded_at_boot_again ours_loaded
	t restore_unit_brought_the_tree_back tree_restored
	t nvme_connect_reads_the_restored_namespace nvme_connects_and_reads
	t restore_unit_stop_tears_the_tree_down unit_stop_tears_down
	t dpkg_purge_removes_both_and_the_dkms_module purge
	t modprobe_would_load_stock_again modinfo_is kernel/fs/configfs
	touch /cng-job/reboot
	;;
deb-4)
	t stock_configfs_loaded_at_boot_after_purge stock_loaded
	;;
esac
exit 0
