#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages' life in a Debian guest (scripts/debian-guest.sh,
# over a disk that survives the reboot): run by scripts/check-deb.sh.
#
# Usage: in-guest.sh deb DEBDIR EXTRA    (CNG_BOOT is 1, 2, ... after each
#        in-guest.sh sig DEBDIR EXTRA     reboot it asks for; EXTRA holds
#        in-guest.sh install SRCDIR EXTRA  old/, 0.1.0's packages, and
#                                          rtslib/, python3-rtslib-fb's)
#
# A configfs once loaded stays: services' private mount namespaces
# (systemd's ProtectSystem= and the like) hold the mount, so modprobe -r
# says "in use". So, as for a user, a change of module shows after a
# reboot, and every switch between stock and ours is proved across one.
#
# deb, boot 1: stock configfs is in charge, and in the initramfs
# (update-initramfs -c, lsinitramfs); dpkg -i 0.1.0's packages.
# Boot 2: 0.1.0 is loaded; an nvmet TCP target (nvme connect reads it), a
# LIO ramdisk backstore and a USB gadget are made, saved to
# /etc/configfs/configfs.save and the unit enabled and started. dpkg -i
# of this version (the upgrade) leaves the tree as it was and the unit
# running, and says that 0.1.0's save file lacks the LIO backstore's
# control and to save again, which this version's save mends; DKMS keeps this version alone, built and installed under
# updates/dkms; modinfo names it; the kernel's own configfs.ko is still
# in place; ours exports stock's symbols with stock's CRCs, the ones every
# client module of the kernel expects; the initramfs now holds ours and
# the fallback; a kernel outside 6.1 and 6.12, and a 6.1 kernel whose
# build fails, get the kernel's own configfs.ko from DKMS and their
# kernel postinst hook succeeds.
# Boot 3: ours; the unit restored the tree and nvme connect works on it
# again; stopping the unit removes what it restored and nothing else (a
# gadget and a netconsole target made by hand stay); beside an enabled
# rtslib-fb-targetctl.service it leaves target/ alone and says so;
# dpkg -r stops it (its tree goes) and the initramfs holds stock again;
# dpkg --purge leaves nothing of either package.
# Boot 4: stock configfs is loaded again.
#
# sig (the guest booted with module.sig_enforce=1), boot 1: stock is
# loaded; the guest keeps only its own kernel, and makes its initramfs
# as in deb; dpkg -i says that the kernel will refuse DKMS's module. Boot 2:
# modprobe at boot was refused ours and loaded stock, the kernel log says
# why, and nvmet loads on stock.
#
# The tree the test builds (under /sys/kernel/config):
#   nvmet/subsystems/cng-deb          attr_allow_any_host 1
#     namespaces/1                    device_path /dev/nullb0, enable 1
#   nvmet/ports/1                     tcp 127.0.0.1:4420 ipv4
#     subsystems/cng-deb -> ../../../subsystems/cng-deb
#   target/core/rd_mcp_1/cngdisk      rd_pages=256, enabled
#   usb_gadget/cng                    idVendor, idProduct, strings/0x409,
#     configs/c.1/acm.usb0 -> functions/acm.usb0
#
# install, boot 1: an older configfs-ng (0.0.9) is in DKMS; make install
# (PREFIX=/usr/local) removed it, put the DKMS source in /usr/src, and
# DKMS built and installed the module. Boot 2: ours is loaded; the tool
# and its man page are under the PREFIX; make uninstall removes it all.
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
extra=${3:-}
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
	watch_step "$n $name" &
	watcher=$!
	if "$@" > "$log" 2>&1; then
		echo "ok $n $name"
	else
		sed 's/^/# /' "$log"
		echo "not ok $n $name"
	fi
	kill "$watcher" 2> /dev/null
	wait "$watcher" 2> /dev/null
	rm -f "$log"
}

# watch_step STEP: every 5 minutes while STEP runs, what the guest is doing,
# into the job directory, which the host can read while the guest runs
# (a step that never ends, as dpkg -i under module.sig_enforce=1 twice).
watch_step() {
	local m=0
	while sleep 300; do
		m=$((m + 5))
		{
			echo "== step $1, $m min"
			ps -eo pid,etime,stat,args --forest | grep -v ' \[' |
				tail -n 40 | cut -c1-200
		} >> /cng-job/watch.log
	done
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

# fake_kernel KVER BUILD: /lib/modules/KVER as a kernel of that release
# would have it for DKMS: its own configfs.ko (this kernel's) and BUILD
# as its headers.
fake_kernel() {
	mkdir -p "/lib/modules/$1/kernel/fs/configfs" &&
	cp "$(stock_ko)" "/lib/modules/$1/kernel/fs/configfs/" &&
	ln -sfn "$2" "/lib/modules/$1/build"
}

# dkms_gives_stock KVER: KVER keeps the kernel's own configfs.ko: DKMS
# either installed nothing (its version check will not replace a module
# by one of the same version, and counts that a success) or stock's; and
# its make.log says why.
dkms_gives_stock() {
	local ko=/lib/modules/$1/updates/dkms/configfs.ko
	dkms status configfs-ng
	ls -l "/lib/modules/$1/updates/dkms/" 2>&1
	if [ -e "$ko" ]; then
		[ "$(modinfo -F srcversion "$ko")" = \
		  "$(modinfo -F srcversion "$(stock_ko)")" ] || return 1
	fi
	grep -rh "configfs-ng: not built for $1" /var/lib/dkms/configfs-ng/"$version"/
}

drop_fake_kernel() {
	dkms remove "configfs-ng/$version" -k "$1" > /dev/null 2>&1
	rm -rf "/lib/modules/$1"
}

# A kernel outside 6.1 and 6.12 (headers there): its kernel postinst hook
# (dkms autoinstall) succeeds, and it keeps stock.
dkms_gives_stock_outside_6_1_and_6_12() {
	local k=5.10.0-99-amd64 rc
	fake_kernel "$k" "/usr/src/linux-headers-$kver" || return 1
	/etc/kernel/postinst.d/dkms "$k"
	rc=$?
	echo "kernel postinst hook: exit status $rc"
	[ "$rc" -eq 0 ] && dkms_gives_stock "$k"
	rc=$?
	drop_fake_kernel "$k"
	return "$rc"
}

# A future 6.1 kernel whose build fails (headers that do not build): its
# installation goes on, with stock.
dkms_build_failure_keeps_the_kernel_installable() {
	local k=6.1.0-99-amd64 hdr=/tmp/broken-headers rc
	mkdir -p "$hdr/include" &&
	printf 'modules:\n\t@echo a kernel this module does not build on; false\n' \
		> "$hdr/Makefile" &&
	fake_kernel "$k" "$hdr" || return 1
	/etc/kernel/postinst.d/dkms "$k"
	rc=$?
	echo "kernel postinst hook: exit status $rc"
	[ "$rc" -eq 0 ] && dkms_gives_stock "$k"
	rc=$?
	drop_fake_kernel "$k"
	return "$rc"
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

lio_and_gadget_trees() {
	local rd=$cfs/target/core/rd_mcp_1/cngdisk g=$cfs/usb_gadget/cng
	modprobe target_core_mod && modprobe libcomposite &&
	modprobe usb_f_acm || return 1
	mkdir -p "$rd" && echo rd_pages=256 > "$rd/control" &&
	echo 1 > "$rd/enable" &&
	mkdir "$g" && echo 0x1d6b > "$g/idVendor" &&
	echo 0x0104 > "$g/idProduct" && mkdir "$g/strings/0x409" &&
	echo configfs-ng > "$g/strings/0x409/product" &&
	mkdir "$g/configs/c.1" && mkdir "$g/functions/acm.usb0" &&
	ln -s "$g/functions/acm.usb0" "$g/configs/c.1/acm.usb0"
}

# The three trees are there as saved.
trees_as_saved() {
	[ "$(cat "$cfs/nvmet/subsystems/$nqn/namespaces/1/enable")" = 1 ] &&
	[ -L "$cfs/nvmet/ports/1/subsystems/$nqn" ] &&
	[ -d "$cfs/target/core/rd_mcp_1/cngdisk" ] &&
	[ -L "$cfs/usb_gadget/cng/configs/c.1/acm.usb0" ] &&
	configfs diff "$save" nvmet && configfs diff "$save" target/core &&
	configfs diff "$save" usb_gadget
}

# target/dbroot is the host's: once rtslib-fb-targetctl has set its own
# (python3-rtslib-fb's postinst starts it), the saved one cannot be set
# back, and the unit's restore says so and goes on (seventh run: it
# failed there).
dbroot_left_with_a_warning() {
	local saved
	saved=$(sed -n 's|^set target/dbroot ||p' "$save")
	echo "dbroot: $(cat "$cfs/target/dbroot"), saved: $saved"
	[ "$(cat "$cfs/target/dbroot")" = "$saved" ] ||
		journalctl -b -u configfs-restore.service --no-pager |
			grep 'target/dbroot: warning: left as it is'
}

tree_saved_and_unit_started() {
	mkdir -p /etc/configfs && chmod 0700 /etc/configfs &&
	configfs save -o "$save" && cat "$save" &&
	systemctl enable --now configfs-restore.service &&
	systemctl is-active configfs-restore.service
}

# The upgrade from 0.1.0 stops nothing: the unit runs on, the tree is as
# it was.
upgrade() {
	dpkg -i "$from"/configfs-ng-dkms_*.deb "$from"/configfs-ng-tools_*.deb \
		> /root/upgrade.log 2>&1 || { cat /root/upgrade.log; return 1; }
	systemctl status --no-pager configfs-restore.service
	systemctl show -p ExecStop configfs-restore.service
	systemctl is-active configfs-restore.service && trees_as_saved &&
	systemctl show -p ExecStop configfs-restore.service |
		grep -q configfs-restore-unit
}

# 0.1.0's save left out the LIO backstore's control, so its file cannot
# bring the ramdisk back: the upgrade says so, and how to mend it.
upgrade_says_save_again() {
	grep 'write-only, not saved' "$save"
	grep -A3 'was saved by configfs-ng 0.1.0' /root/upgrade.log &&
	grep -q "configfs save -o $save" /root/upgrade.log
}

# What the admin is told to do, while the tree is live: this version's
# save rebuilds control from the backstore's info.
save_again() {
	configfs save -o "$save" &&
	grep 'rd_mcp_1/cngdisk/control' "$save" &&
	grep -q '^set target/core/rd_mcp_1/cngdisk/control rd_pages=[0-9]' "$save"
}

# DKMS knows this version alone: 0.1.0's is gone, source and all.
dkms_has_only_this_version() {
	dkms status configfs-ng
	! dkms status configfs-ng | grep -qv "^configfs-ng/${version}[,:]" &&
	[ ! -e /usr/src/configfs-ng-0.1.0 ]
}

# initramfs_holds ours|stock: lsinitramfs of this kernel's initramfs.
initramfs_holds() {
	local list
	list=$(lsinitramfs "/boot/initrd.img-$kver") || return 1
	echo "$list" | grep -E 'configfs|modprobe.d'
	echo "$list" | grep -q "lib/modules/$kver/kernel/fs/configfs/configfs.ko" ||
		return 1
	if [ "$1" = ours ]; then
		echo "$list" | grep -q "lib/modules/$kver/updates/dkms/configfs.ko" &&
		echo "$list" | grep -q 'lib/modprobe.d/configfs-ng.conf' &&
		echo "$list" | grep -q 'usr/libexec/configfs-ng/modprobe-configfs' &&
		return 0
		# Why not: what mkinitramfs is given, and what it does.
		ls -l "/lib/modules/$kver/updates/dkms/" "/boot/initrd.img-$kver"
		modprobe --all --set-version="$kver" --ignore-install \
			--show-depends nvmet
		grep -i 'initramfs\|dkms\|depmod\|configfs' /root/upgrade.log
		update-initramfs -v -u -k "$kver" 2>&1 | grep -i 'configfs\|error'
		return 1
	else
		! echo "$list" | grep -q 'updates/dkms/configfs.ko\|configfs-ng'
	fi
}

# Before anything is installed: an initramfs as the kernel's package
# makes it (its vmlinuz, config and System.map in /boot, as the package
# puts them: update-initramfs -u finds the kernel by its vmlinuz, and
# mkinitramfs picks the compression by its config). The guest's
# initramfs-tools take MODULES=list with nvmet, which brings configfs.ko
# as its dependency, as MODULES=most (Debian's default) does for nvmet,
# null_blk, netconsole ...; and nbd-client's two hooks, which add every
# network driver, are made non-executable (in the guest's upper layer
# only), so mkinitramfs skips them: under TCG, over 9p, with them an
# initramfs took more than 15 minutes and had not ended.
initramfs_made_with_stock() {
	local img
	for img in /root/.cache/configfs-ng/image-"$kver" \
		   /home/*/.cache/configfs-ng/image-"$kver"; do
		[ -d "$img" ] && break
	done
	cp "$img/boot/vmlinuz-$kver" "$img/boot/config-$kver" \
		"$img/boot/System.map-$kver" /boot/ &&
	echo MODULES=list > /etc/initramfs-tools/conf.d/cng-deb.conf &&
	for h in /usr/share/initramfs-tools/hooks/nbd*; do
		[ ! -e "$h" ] || chmod -x "$h" || return 1
	done &&
	echo nvmet >> /etc/initramfs-tools/modules &&
	update-initramfs -c -k "$kver" && initramfs_holds stock
}

tree_restored() {
	systemctl status --no-pager configfs-restore.service
	systemctl show -p NRestarts -p ExecMainPID -p InvocationID \
		configfs-restore.service
	# What started and stopped it, and when.
	journalctl -b -o short-monotonic --no-pager _PID=1 |
		grep -i 'configfs\|kernel-config' |
		grep -v 'Sent message\|Got message\|bus_' | cut -c1-200 |
		head -n 150
	journalctl -b -o short-monotonic --no-pager \
		-u configfs-restore.service | head -n 40 | cut -c1-200
	cat /run/configfs-ng/restored
	systemctl is-active configfs-restore.service && trees_as_saved
}

# Stopping the unit removes what it restored and nothing else: a gadget
# and a netconsole target made by hand stay.
unit_stop_removes_only_its_own() {
	local ok=0
	modprobe netconsole && mkdir "$cfs/usb_gadget/admin" &&
	mkdir "$cfs/netconsole/admin" || return 1
	systemctl stop configfs-restore.service || ok=1
	journalctl -b -u configfs-restore.service --no-pager | tail -n 5
	configfs tree | grep -v ' = ' | head -n 40
	[ -z "$(ls -A "$cfs/nvmet/subsystems")" ] &&
	[ -z "$(ls -A "$cfs/nvmet/ports")" ] &&
	[ ! -e "$cfs/target/core/rd_mcp_1" ] &&
	[ ! -e "$cfs/usb_gadget/cng" ] &&
	[ -d "$cfs/usb_gadget/admin" ] && [ -d "$cfs/netconsole/admin" ] ||
		ok=1
	rmdir "$cfs/usb_gadget/admin" "$cfs/netconsole/admin"
	return "$ok"
}

# Beside an enabled rtslib-fb-targetctl.service (python3-rtslib-fb, which
# targetcli-fb needs), target/ is that unit's: the restore skips it and
# says so, and restores the rest.
unit_beside_rtslib_fb_targetctl() {
	local ok=0
	dpkg -i "$extra"/rtslib/*.deb > /dev/null || return 1
	systemctl enable rtslib-fb-targetctl.service || return 1
	systemctl show -p After configfs-restore.service |
		grep -q rtslib-fb-targetctl.service || ok=1
	systemctl start configfs-restore.service || ok=1
	journalctl -b -u configfs-restore.service --no-pager | tail -n 5
	journalctl -b -u configfs-restore.service --no-pager |
		grep -q 'target/ belongs to rtslib-fb-targetctl.service' &&
	[ -L "$cfs/nvmet/ports/1/subsystems/$nqn" ] &&
	[ ! -e "$cfs/target/core/rd_mcp_1/cngdisk" ] || ok=1
	systemctl stop configfs-restore.service || ok=1
	[ -z "$(ls -A "$cfs/nvmet/subsystems")" ] || ok=1
	systemctl disable --now rtslib-fb-targetctl.service
	return "$ok"
}

# dpkg -r stops the unit (the tree it restored goes) while its program
# is still there.
remove_stops_the_unit() {
	systemctl start configfs-restore.service && trees_as_saved &&
		dbroot_left_with_a_warning || return 1
	dpkg -r configfs-ng-tools configfs-ng-dkms || return 1
	! systemctl -q is-active configfs-restore.service &&
	[ -z "$(ls -A "$cfs/nvmet/subsystems")" ] &&
	[ ! -e "$cfs/usb_gadget/cng" ] &&
	[ ! -e /usr/sbin/configfs ] &&
	[ ! -e /lib/systemd/system/configfs-restore.service ]
}

purge() {
	dpkg --purge configfs-ng-dkms configfs-ng-tools &&
	! dkms status configfs-ng | grep -q . &&
	[ ! -e "/lib/modules/$kver/updates/dkms/configfs.ko" ] &&
	[ ! -e /lib/modprobe.d/configfs-ng.conf ] &&
	[ ! -e /usr/libexec/configfs-ng ] &&
	! dpkg-query -W -f='${Status}\n' configfs-ng-dkms configfs-ng-tools \
		2> /dev/null | grep -v not-installed
}

# The sig guest proves what the kernel it runs does; the deb guest has
# every kernel of this machine. The others' modules, headers link, boot
# files and initramfs state go (from the guest's upper layer only), so
# that DKMS builds, and update-initramfs remakes, for this kernel alone:
# with 6.12 there too, the fifth run spent 23 minutes configuring the
# DKMS package and more than 24 in 6.12's initramfs, and never ended.
only_this_kernel() {
	local d k
	for d in /lib/modules/*/; do
		k=$(basename "$d")
		[ "$k" = "$kver" ] && continue
		echo "leaving out $k"
		rm -rf "$d" /boot/*-"$k" "/var/lib/initramfs-tools/$k" || return 1
	done
	ls /lib/modules /boot
}

# dpkg -i, under module.sig_enforce=1, says that ours will be refused.
dpkg_warns_of_signatures() {
	local out
	cat /sys/module/module/parameters/sig_enforce
	out=$(dpkg -i "$from"/configfs-ng-dkms_*.deb "$from"/configfs-ng-tools_*.deb 2>&1)
	echo "$out"
	echo "$out" | grep -q 'configfs-ng: this kernel loads only signed modules'
}

# Ours refused at boot, stock loaded in its place, and the kernel log
# says why.
stock_in_place_of_refused_ours() {
	dmesg | grep configfs
	stock_loaded && modinfo_is updates/dkms &&
	dmesg | grep -q "configfs-ng $version was refused (Key was rejected by service); loading the kernel's own"
}

nvmet_on_stock() {
	modprobe nvmet && [ -d "$cfs/nvmet/subsystems" ] &&
	[ "$(cat /sys/module/configfs/version)" = 0.0.2 ]
}

# An older configfs-ng in DKMS, as an earlier make install left it.
older_version_in_dkms() {
	mkdir -p /usr/src/configfs-ng-0.0.9/module &&
	printf '%s\n' 'PACKAGE_NAME="configfs-ng"' 'PACKAGE_VERSION="0.0.9"' \
		'BUILT_MODULE_NAME[0]="configfs"' \
		'BUILT_MODULE_LOCATION[0]="module/"' \
		'DEST_MODULE_LOCATION[0]="/updates/dkms"' 'AUTOINSTALL="yes"' \
		> /usr/src/configfs-ng-0.0.9/dkms.conf &&
	dkms add configfs-ng/0.0.9 && dkms status configfs-ng
}

# The source goes where a reboot leaves it: Debian's systemd empties /tmp
# at boot, and make uninstall runs from it after one.
src=/var/lib/cng-src

make_install() {
	mkdir "$src" &&
	git -c safe.directory='*' -C "$from" ls-files -z --cached --others \
		--exclude-standard | (cd "$from" && tar --null -T - -cf -) |
		tar -C "$src" -xf - &&
	make -C "$src" install PREFIX=/usr/local
}

make_install_left_one_version() {
	dkms status configfs-ng
	! dkms status configfs-ng | grep -qv "^configfs-ng/${version}[,:]" &&
	[ ! -e /usr/src/configfs-ng-0.0.9 ] &&
	[ -x /usr/libexec/configfs-ng/modprobe-configfs ] &&
	[ -e /lib/modprobe.d/configfs-ng.conf ]
}

make_uninstall() {
	make -C "$src" uninstall PREFIX=/usr/local &&
	! dkms status configfs-ng | grep -q . &&
	[ ! -e "/lib/modules/$kver/updates/dkms/configfs.ko" ] &&
	[ ! -e "/usr/src/configfs-ng-$version" ] &&
	[ ! -e /usr/local/sbin/configfs ] &&
	[ ! -e /lib/modprobe.d/configfs-ng.conf ] &&
	[ ! -e /usr/libexec/configfs-ng ]
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

echo "# $mode, boot $CNG_BOOT: $kver"
# The guest's root is this machine's, and a container's may carry
# Docker's /usr/sbin/policy-rc.d (exit 101), which forbids the package
# scripts to stop or start any service: the prerm's stop of the unit on
# removal was refused so (sixth run). A Debian machine has none; it goes
# in the guest's overlay only.
if [ -e /usr/sbin/policy-rc.d ]; then
	echo "# removing this root's /usr/sbin/policy-rc.d in the guest"
	rm -f /usr/sbin/policy-rc.d
fi
case $mode-$CNG_BOOT in
install-1)
	t stock_configfs_loaded_at_boot stock_loaded
	version=$(cat "$from/module/VERSION")
	echo "$version" > /cng-job/version
	t an_older_configfs_ng_in_dkms older_version_in_dkms
	t make_install_runs make_install
	t make_install_left_only_its_version make_install_left_one_version
	t make_install_dkms_built_and_installed dkms_built_here
	t make_install_modprobe_would_load_ours modinfo_is updates/dkms
	touch /cng-job/reboot
	;;
install-2)
	version=$(cat /cng-job/version)
	t make_install_ours_loaded_at_boot ours_loaded
	t make_install_tool_and_man_page_under_prefix tool_under_prefix
	t make_uninstall_removes_it_all make_uninstall
	t make_uninstall_modprobe_would_load_stock modinfo_is kernel/fs/configfs
	touch /cng-job/reboot
	;;
install-3)
	t make_uninstall_stock_loaded_at_boot stock_loaded
	;;
deb-1)
	t stock_configfs_before_install modinfo_is kernel/fs/configfs
	t stock_configfs_loaded_at_boot stock_loaded
	t initramfs_holds_stock_before_install initramfs_made_with_stock
	t dpkg_installs_0_1_0 \
		dpkg -i "$extra"/old/configfs-ng-dkms_*.deb "$extra"/old/configfs-ng-tools_*.deb
	touch /cng-job/reboot
	;;
deb-2)
	version=0.1.0
	t ours_0_1_0_loaded_at_boot ours_loaded
	t nvmet_tcp_target_made_on_ours nvmet_tree
	t nvme_connect_reads_the_namespace nvme_connects_and_reads
	t lio_backstore_and_usb_gadget_made lio_and_gadget_trees
	t trees_saved_and_0_1_0_unit_started tree_saved_and_unit_started
	version=$(dpkg-deb -f "$(ls "$from"/configfs-ng-dkms_*.deb)" Version)
	echo "$version" > /cng-job/version
	t upgrade_keeps_the_unit_running_and_the_trees upgrade
	t upgrade_says_to_save_a_0_1_0_file_again upgrade_says_save_again
	t save_again_rebuilds_the_lio_control save_again
	t nvme_connect_reads_the_namespace_after_upgrade nvme_connects_and_reads
	t dkms_keeps_only_the_new_version dkms_has_only_this_version
	t dkms_built_and_installed_for_the_running_kernel dkms_built_here
	t modprobe_would_load_ours_from_updates_dkms modinfo_is updates/dkms
	t modinfo_says_our_version modinfo_version
	t dkms_left_the_stock_module_in_place stock_module_left_in_place
	t dkms_module_exports_stock_crcs_to_all_clients dkms_module_abi_is_stock
	t initramfs_holds_ours_and_the_fallback initramfs_holds ours
	t dkms_gives_stock_to_a_kernel_outside_6_1_and_6_12 \
		dkms_gives_stock_outside_6_1_and_6_12
	t a_failed_build_does_not_fail_a_kernel_install \
		dkms_build_failure_keeps_the_kernel_installable
	# Boot 3 with systemd's debug log: only it names the job that
	# stopped and started the unit again once (third run).
	mkdir -p /etc/systemd/system.conf.d &&
	printf '[Manager]\nLogLevel=debug\n' \
		> /etc/systemd/system.conf.d/cng-debug.conf
	touch /cng-job/reboot
	;;
deb-3)
	version=$(cat /cng-job/version)
	t ours_loaded_at_boot_again ours_loaded
	t restore_unit_brought_the_trees_back tree_restored
	rm -f /etc/systemd/system.conf.d/cng-debug.conf
	t nvme_connect_reads_the_restored_namespace nvme_connects_and_reads
	t restore_unit_stop_removes_only_what_it_restored \
		unit_stop_removes_only_its_own
	t restore_unit_leaves_target_to_rtslib_fb_targetctl \
		unit_beside_rtslib_fb_targetctl
	t dpkg_remove_stops_the_unit_and_its_tree_goes remove_stops_the_unit
	t initramfs_holds_stock_after_removal initramfs_holds stock
	t dpkg_purge_leaves_nothing purge
	t modprobe_would_load_stock_again modinfo_is kernel/fs/configfs
	touch /cng-job/reboot
	;;
deb-4)
	t stock_configfs_loaded_at_boot_after_purge stock_loaded
	;;
sig-1)
	t stock_configfs_loaded_at_boot stock_loaded
	t only_this_kernel_in_the_guest only_this_kernel
	t initramfs_holds_stock_before_install initramfs_made_with_stock
	t dpkg_says_the_kernel_will_refuse_ours dpkg_warns_of_signatures
	version=$(dpkg-query -W -f='${Version}' configfs-ng-dkms)
	echo "$version" > /cng-job/version
	t dkms_built_and_installed_for_the_running_kernel dkms_built_here
	touch /cng-job/reboot
	;;
sig-2)
	version=$(cat /cng-job/version)
	t sig_enforce_is_on grep -qx Y /sys/module/module/parameters/sig_enforce
	t ours_refused_stock_loaded_and_the_kernel_log_says_why \
		stock_in_place_of_refused_ours
	t nvmet_loads_on_stock nvmet_on_stock
	;;
esac
exit 0
