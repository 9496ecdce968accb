#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench-clients, in a Debian guest (scripts/debian-guest.sh, booted by
# scripts/bench-clients.sh): what an admin runs on a big target, timed on
# each configfs module in turn, in one boot. Each run is made on both
# modules one after the other, rounds alternating which goes first (stock,
# ours; then ours, stock; ...); between two, every module that uses
# configfs is unloaded, configfs unmounted and swapped (ours by insmod,
# stock by modprobe: the boot blacklists configfs, so that nothing mounts
# it before us).
#
# One LIO run of N LUNs, from a saved configuration (bench/clients-json.py
# multiplies targetcli's own save of a one-LUN seed, made at the first
# load):
#
#   target/core/rd_mcp_I/benchI         I = 0..N-1: 1 MiB ramdisks, nullio
#   target/loopback/naa.5001405c0ffee000/tpgt_1/   (tcm_loop, its nexus)
#     lun/lun_I/<alias> -> ../../../../../../target/core/rd_mcp_I/benchI
#
# steps: python's start with configshell (no configfs work: the run's
# noise), targetcli version (startup, empty tree), restoreconfig FILE (or,
# with LIO_RESTORE "memo", bench/clients-restore.py FILE: the same restore
# without rtslib's N * N reads of the HBA directories),
# version again (startup on the full tree), saveconfig s1; configfs tree
# and ls -lR of the whole mount, cold (drop_caches) and warm; configfs
# save, rm --all, restore (our tool); saveconfig s2, which must equal s1;
# clearconfig. One nvmet run of M subsystems, likewise:
#
#   nvmet/hosts/nqn...:bench-host
#   nvmet/subsystems/nqn...:bench-I/          I = 0..M-1
#     namespaces/1/ (device_path: a 1 MiB sparse file on an ext4 loop
#                    mount, enabled)   allowed_hosts/<host> -> the host
#   nvmet/ports/1/ (tcp, 127.0.0.1:4420: Debian's kernel has no nvme-loop)
#     subsystems/<nqn> -> each subsystem
#
# steps: python's start with nvmetcli's modules (no configfs work: the
# run's noise), nvmetcli restore FILE,
# save s1, the walks, our save, rm --all, restore, nvmetcli save s2 (must
# equal s1), clear.
#
# Each step's wall, user and system time (of the command and its
# children, by bash's time), and the whole guest's CPU time in user and
# kernel mode (/proc/stat), are "# csv:" rows (bench/README.md). The
# client's failures do not always show in its exit status (targetcli and
# nvmetcli report a refused write and go on), so the tree is counted after
# each step that makes or removes it. TAP on stdout, the plan last.
#
# Usage: bench-clients.sh TOP TCLI NVBIN NVPY SYSTEMS ROUNDS LUNS SUBSYS TMO \
#                         LIO_RESTORE
#   TOP      the project's checkout (read through the host's root), or
#            the copy of what is used of it (scripts/guest-top.sh)
#   TCLI     where targetcli-fb and python3-rtslib-fb were unpacked
#   NVBIN    nvmetcli's script; NVPY the folder holding its nvmet package
#   SYSTEMS  "stock ours" (the order of odd rounds)
#   ROUNDS   rounds;  LUNS  LIO sizes ("1000 4000");  SUBSYS  nvmet's (0: none)
#   TMO      seconds any one step may take
#   LIO_RESTORE  targetcli (restoreconfig) or memo (clients-restore.py)
set -u
TOP=$1 TCLI=$2 NVBIN=$3 NVPY=$4 SYSTEMS=$5 ROUNDS=$6 LUNS=$7 SUBSYS=$8
TMO=$9 LIO_RESTORE=${10}
CFG=/sys/kernel/config
W=/tmp/bench-clients
NSDIR=$W/ns
WWN=naa.5001405c0ffee000
PY=/usr/bin/python3
JSON=("$PY" "$TOP/bench/clients-json.py")
TCLI_CMD=("$PY" "$TCLI/usr/bin/targetcli")
NV_CMD=("$PY" "$NVBIN")
CFS_CMD=("$TOP/tools/configfs/configfs")
export PYTHONPATH="$TCLI/usr/lib/python3/dist-packages${NVPY:+:$NVPY}"
export TERM=dumb
n=0 failed=0 seeded=0
sys='' round='' client='' size=''

say() { echo "# $*"; }
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $1"; }
result() {	# result STATUS NAME
	if [ "$1" -eq 0 ]; then ok "$2"; else nok "$2"; fi
}
show() {	# show FILE: its tail as diagnostics
	[ -f "$1" ] && tail -n "${2:-25}" "$1" | sed 's/^/#   /'
	return 0
}

# ---- modules

# rm_module M: M unloaded, after every module that uses it.
rm_module() {
	local h
	[ -d "/sys/module/$1" ] || return 0
	for h in "/sys/module/$1/holders/"*; do
		[ -e "$h" ] && { rm_module "${h##*/}" || return 1; }
	done
	rmmod "$1"
}

unload_all() {
	local try d
	# targetcli makes a directory for each fabric it knows of (which
	# loads its module) and leaves them: each pins its module.
	for d in "$CFG"/target/*/; do
		[ "$d" = "$CFG/target/core/" ] || rmdir "$d" 2>/dev/null
	done
	for try in 1 2 3 4 5; do
		while grep -q " $CFG configfs " /proc/mounts; do
			umount "$CFG" || break
		done
		[ -d /sys/module/configfs ] || return 0
		rm_module configfs && return 0
		say "unload try $try: $(grep '^configfs ' /proc/modules)"
		sleep 2
	done
	return 1
}

# load SYSTEM: that configfs mounted, LIO's and nvmet's modules loaded.
load() {
	local loaded built
	unload_all || return 1
	if [ "$1" = ours ]; then
		insmod "$TOP/module/configfs.ko" || return 1
	else
		modprobe configfs || return 1
	fi
	mount -t configfs configfs "$CFG" || return 1
	loaded=$(cat /sys/module/configfs/srcversion)
	built=$(modinfo -F srcversion "$TOP/module/configfs.ko")
	say "$1: srcversion loaded $loaded, built $built"
	if [ "$1" = ours ]; then
		[ "$loaded" = "$built" ] || return 1
	else
		[ "$loaded" != "$built" ] || return 1
	fi
	modprobe -a target_core_mod tcm_loop nvmet nvmet_tcp
}

# ---- the trees

count() { ls -d "$@" 2>/dev/null | wc -l; }

lio_has() {	# lio_has N: N backstores, N LUNs, N LUN links
	local sos luns links
	sos=$(count "$CFG"/target/core/rd_mcp_*/bench*)
	luns=$(count "$CFG/target/loopback/$WWN/tpgt_1/lun/lun_"*)
	links=$(find "$CFG/target/loopback/$WWN/tpgt_1/lun" -mindepth 2 \
		-maxdepth 2 -type l 2>/dev/null | wc -l)
	say "lio: $sos backstores, $luns LUNs, $links links"
	[ "$sos" -eq "$1" ] && [ "$luns" -eq "$1" ] && [ "$links" -eq "$1" ]
}

nvmet_has() {	# nvmet_has M: M subsystems, M enabled namespaces, M port links
	local subs ens links
	subs=$(count "$CFG"/nvmet/subsystems/*)
	ens=$(cat "$CFG"/nvmet/subsystems/*/namespaces/1/enable 2>/dev/null |
		grep -c '^1$')
	links=$(count "$CFG"/nvmet/ports/*/subsystems/*)
	say "nvmet: $subs subsystems, $ens enabled namespaces, $links port links"
	[ "$subs" -eq "$1" ] && [ "$ens" -eq "$1" ] && [ "$links" -eq "$1" ] &&
	{ [ "$1" -eq 0 ] || [ "$(count "$CFG"/nvmet/hosts/*)" -eq 1 ]; }
}

# ---- timing

# cpu: the guest's CPU time so far, all CPUs, in ms: "USER KERNEL"
cpu() {
	local hz
	hz=$(getconf CLK_TCK)
	awk -v hz="$hz" '/^cpu / {
		printf "%d %d\n", ($2 + $3) * 1000 / hz, ($4 + $7 + $8) * 1000 / hz
	}' /proc/stat
}

ms() { awk -v s="$1" 'BEGIN { printf "%d", s * 1000 + 0.5 }'; }

# step NAME CMD...: CMD timed, at most TMO seconds, its output in
# $W/NAME.out (stdout to /dev/null with QUIET=1); rows to $W/rows.
step() {
	local name=$1 rc real user sys c0 c1 TIMEFORMAT='%3R %3U %3S'
	shift
	c0=$(cpu)
	if [ "${QUIET:-0}" = 1 ]; then
		{ time timeout "$TMO" "$@" > /dev/null 2> "$W/$name.out"; } \
			2> "$W/time"
	else
		{ time timeout "$TMO" "$@" > "$W/$name.out" 2>&1; } 2> "$W/time"
	fi
	rc=$?
	c1=$(cpu)
	read -r real user sys < "$W/time"
	{
		echo "$name,real,$(ms "$real")"
		echo "$name,user,$(ms "$user")"
		echo "$name,sys,$(ms "$sys")"
		echo "$name,cpu_user,$(( ${c1% *} - ${c0% *} ))"
		echo "$name,cpu_sys,$(( ${c1#* } - ${c0#* } ))"
	} >> "$W/rows"
	say "$name: ${real}s (user $user, sys $sys), exit $rc"
	if [ "$rc" -ne 0 ]; then
		show "$W/$name.out"
		return 1
	fi
	# The clients report a refused write in their output and go on.
	if grep -qiE 'error|traceback|skipped' "$W/$name.out"; then
		say "$name: its output reports errors"
		show "$W/$name.out"
		return 1
	fi
}

# drop: the caches dropped, then the programs' own files read again:
# cold is configfs's dentries and inodes, not the host's 9p reads.
drop() {
	sync && echo 3 > /proc/sys/vm/drop_caches &&
	"${CFS_CMD[@]}" --version > /dev/null && ls --version > /dev/null
}

# warm: the clients' python files read again after a drop.
warm() {
	"${TCLI_CMD[@]}" --version > /dev/null 2>&1
	[ -z "$NVBIN" ] || "$PY" -c 'import configshell, nvmet.nvme'
}

walks() {
	drop && QUIET=1 step tree_cold "${CFS_CMD[@]}" tree &&
	QUIET=1 step tree_warm "${CFS_CMD[@]}" tree &&
	drop && QUIET=1 step ls_cold ls -lR "$CFG" &&
	QUIET=1 step ls_warm ls -lR "$CFG" &&
	warm
}

# attrs ROOT: the attribute files under ROOT (each row's attrs column)
# (counted once per run of a size: a find of 100,000 files is slow here)
attrs() {
	[ -f "$W/attrs-$client-$size" ] ||
		find "$CFG/$1" -type f | wc -l > "$W/attrs-$client-$size"
	cp "$W/attrs-$client-$size" "$W/attrs"
}

run_begin() {	# run_begin TEST SIZE
	client=$1 size=$2
	: > "$W/rows"
	echo 0 > "$W/attrs"
	rm -f "$W"/s1.json "$W"/s2.json "$W"/t.cfs
	say "---- $sys round $round: $client $size"
}

# run_end STATUS: the run's rows and result, and the round trip's.
run_end() {
	local a name="${sys}_round${round}_${client}_${size}"
	a=$(cat "$W/attrs")
	sed "s/^/# csv: $sys,$round,$client,$size,$a,/" "$W/rows"
	result "$1" "${name}_every_step_ran"
	if [ -f "$W/s1.json" ] && [ -f "$W/s2.json" ]; then
		"${JSON[@]}" same "$W/s1.json" "$W/s2.json" > "$W/same.out" 2>&1
		a=$?
		show "$W/same.out" 60
	else
		say "no two saves to compare"
		a=1
	fi
	result "$a" "${name}_client_save_equal_after_our_restore"
}

run_lio() {	# run_lio N
	local rc restore
	run_begin lio "$1"
	if [ "$LIO_RESTORE" = memo ]; then
		restore=(rts_restore_memo "$PY" "$TOP/bench/clients-restore.py"
			"$W/lio-$1.json")
	else
		restore=(tcli_restore "${TCLI_CMD[@]}" restoreconfig
			savefile="$W/lio-$1.json")
	fi
	# No configfs work: its ours/stock is the noise (clients-summarize.py).
	step py_start "$PY" -c 'import configshell' &&
	step tcli_start_empty "${TCLI_CMD[@]}" version &&
	step "${restore[@]}" &&
	lio_has "$1" && attrs target &&
	step tcli_start_full "${TCLI_CMD[@]}" version &&
	step tcli_save "${TCLI_CMD[@]}" saveconfig savefile="$W/s1.json" &&
	walks &&
	step cfs_save "${CFS_CMD[@]}" save -o "$W/t.cfs" &&
	step cfs_rm "${CFS_CMD[@]}" rm --all && lio_has 0 &&
	step cfs_restore "${CFS_CMD[@]}" restore "$W/t.cfs" && lio_has "$1" &&
	step tcli_save_after "${TCLI_CMD[@]}" saveconfig \
		savefile="$W/s2.json" &&
	step tcli_clear "${TCLI_CMD[@]}" clearconfig confirm=True &&
	lio_has 0
	rc=$?
	if [ "$rc" -ne 0 ]; then
		"${TCLI_CMD[@]}" clearconfig confirm=True > /dev/null 2>&1
		"${CFS_CMD[@]}" rm --all > /dev/null 2>&1
	fi
	say "sizes: $(wc -c "$W/lio-$1.json" "$W/s1.json" "$W/t.cfs" 2>&1 |
		head -n 3 | tr -s ' \n' ' ')"
	run_end "$rc"
}

run_nvmet() {	# run_nvmet M
	local rc
	run_begin nvmet "$1"
	step nv_start "$PY" -c 'import configshell, nvmet.nvme' &&
	step nv_restore "${NV_CMD[@]}" restore "$W/nvmet-$1.json" &&
	nvmet_has "$1" && attrs nvmet &&
	step nv_save "${NV_CMD[@]}" save "$W/s1.json" &&
	walks &&
	step cfs_save "${CFS_CMD[@]}" save -o "$W/t.cfs" &&
	step cfs_rm "${CFS_CMD[@]}" rm --all && nvmet_has 0 &&
	step cfs_restore "${CFS_CMD[@]}" restore "$W/t.cfs" &&
	nvmet_has "$1" &&
	step nv_save_after "${NV_CMD[@]}" save "$W/s2.json" &&
	step nv_clear "${NV_CMD[@]}" clear && nvmet_has 0
	rc=$?
	if [ "$rc" -ne 0 ]; then
		"${NV_CMD[@]}" clear > /dev/null 2>&1
		"${CFS_CMD[@]}" rm --all > /dev/null 2>&1
	fi
	run_end "$rc"
}

# ---- the saved configurations, made once, on the first module

x() { echo "+ $*"; "$@"; }

seed_lio() {
	local l
	x "${JSON[@]}" lio-seed "$W/lio-seed.json" &&
	x "${TCLI_CMD[@]}" restoreconfig savefile="$W/lio-seed.json" &&
	lio_has 1 &&
	x "${TCLI_CMD[@]}" saveconfig savefile="$W/lio-seed-saved.json" &&
	x "${TCLI_CMD[@]}" clearconfig confirm=True && lio_has 0 || return 1
	for l in $LUNS; do
		x "${JSON[@]}" lio "$W/lio-seed-saved.json" "$l" \
			"$W/lio-$l.json" || return 1
	done
}

seed_nvmet() {
	[ "$SUBSYS" -gt 0 ] || return 0
	x "${JSON[@]}" nvmet-seed "$NSDIR/seed.img" "$W/nvmet-seed.json" &&
	: > "$NSDIR/seed.img" && truncate -s 1M "$NSDIR/seed.img" &&
	x "${NV_CMD[@]}" restore "$W/nvmet-seed.json" &&
	nvmet_has 1 &&
	x "${NV_CMD[@]}" save "$W/nvmet-seed-saved.json" &&
	x "${NV_CMD[@]}" clear && nvmet_has 0 &&
	x "${JSON[@]}" nvmet "$W/nvmet-seed-saved.json" "$SUBSYS" "$NSDIR" \
		"$W/nvmet-$SUBSYS.json"
}

# The namespaces' files: nvmet opens them with O_DIRECT, which this
# kernel's tmpfs (the guest's /tmp) refuses.
prepare() {
	# udev would probe each LUN's SCSI device; what it does is not
	# configfs's (and sd_mod is then never loaded).
	systemctl stop systemd-udevd-kernel.socket \
		systemd-udevd-control.socket systemd-udevd.service ||
		say "udev still runs"
	mkdir -p "$W" "$NSDIR" /etc/rtslib-fb-target &&	# targetcli's dbroot
	modprobe loop &&
	truncate -s $((64 + SUBSYS / 8))M "$W/ns.img" &&
	mkfs.ext4 -q -F -N $((SUBSYS + 64)) "$W/ns.img" &&
	mount -o loop "$W/ns.img" "$NSDIR"
}

echo "TAP version 13"
if [ "${CNG_BOOT:-1}" -gt 1 ]; then
	echo "not ok 1 the_guest_did_not_reboot # boot $CNG_BOOT: a panic?"
	echo "1..1"
	exit 1
fi
say "kernel $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print $2 }' \
	/proc/meminfo) kB; python $($PY -c 'import sys; print(sys.version.split()[0])')"
mkdir -p "$W"
prepare > "$W/prepare.out" 2>&1
result $? guest_prepared
show "$W/prepare.out" 10

runs=''
for l in $LUNS; do
	runs="$runs lio:$l"
done
[ "$SUBSYS" -gt 0 ] && runs="$runs nvmet:$SUBSYS"
for round in $(seq 1 "$ROUNDS"); do
	order=$SYSTEMS
	if [ $((round % 2)) -eq 0 ]; then
		order=$(echo "$SYSTEMS" | tr ' ' '\n' | tac | tr '\n' ' ')
	fi
	# Each run on both modules one after the other: a pair shares the
	# host's load of the moment, and a run cut short by the guest's
	# timeout still leaves the pairs before it whole.
	for r in $runs; do
		for sys in $order; do
			load "$sys" > "$W/load.out" 2>&1
			rc=$?
			show "$W/load.out" 10
			result "$rc" "${sys}_round${round}_${r%:*}_${r#*:}_loads"
			[ "$rc" -eq 0 ] || continue
			if [ "$seeded" = 0 ]; then
				{ seed_lio && seed_nvmet; } > "$W/seed.out" 2>&1
				rc=$?
				show "$W/seed.out" 40
				result "$rc" saved_configurations_made_from_seeds
				[ "$rc" -eq 0 ] || break 3
				seeded=1
			fi
			"run_${r%:*}" "${r#*:}"
		done
	done
done
unload_all > "$W/load.out" 2>&1
result $? every_module_unloads_at_the_end
show "$W/load.out" 10
echo "1..$n"
[ "$failed" -eq 0 ]
