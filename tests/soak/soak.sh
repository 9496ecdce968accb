#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Soak with real clients (issue 20): rounds in which four client loops
# build, use and tear down their trees at once, while a reader walks the
# whole tree and a user saves and restores parts of it with the configfs
# tool. Memory and module references must come back to where they were.
#
# In each round, at the same time:
#   nvmet       clients/nvmet.sh's tree; `nvme connect` over loopback TCP,
#               1 MiB both ways, `nvme disconnect`; teardown
#   lio         clients/lio.sh's tree; the tcm_loop disk, 1 MiB both ways;
#               teardown, the disk gone
#   usb         clients/usb_gadget.sh's gadget on dummy_hcd; enumerated,
#               bytes both ways over ACM; unbind, teardown
#   netconsole  clients/netconsole.sh's target; a kernel log line arrives
#               over UDP; teardown
#   saver       for each of its parts: configfs save, rm -r, restore, save
#               again; the saves are byte-identical to the first
#   reader      until the others are done: find, cat of every attribute,
#               readlink of every link (at least one whole walk)
#
# The saver's parts, made once and kept between rounds:
#
#   nvmet/hosts/$SV_HOST/
#   nvmet/subsystems/$SV_NQN/ {attr_allow_any_host = 0}
#   |-- allowed_hosts/$SV_HOST -> ../../../hosts/$SV_HOST
#   `-- namespaces/7/ {device_path = /dev/cng-soak}
#   netconsole/cng-soak/ {dev_name = lo, remote_port = 6667}
#   usb_gadget/cng-soak/ {idVendor = 0x1d6b, idProduct = 0x0105}
#   |-- strings/0x409/ {manufacturer = configfs-ng}
#   |-- functions/acm.soak/
#   `-- configs/c.1/acm.soak -> ../../functions/acm.soak
#
# Round 0 warms up (slab caches, first-use allocations); then Slab (from
# /proc/meminfo), the bytes of live slab objects and the objects in
# configfs' own caches (from /proc/slabinfo) are taken after drop_caches
# and a shrink of every cache, and again after each round. At the end,
# Slab and live objects must be within SOAK_SLAB_KB (1536) and
# SOAK_LIVE_KB (128) of round 0's, configfs' objects and the client
# modules' and configfs' reference counts back to theirs exactly, every
# module unloadable. The counts find a leaked item; the bounds, bigger
# leaks of any kind (Slab itself moves by a few hundred kB between two
# measurements of the same state).
#
# How long: cng.soak_secs=N on the kernel command line (make soak): rounds
# until N s have passed, at least 2; else (make check) SOAK_ROUNDS rounds.
# Figures go out as diagnostics, "# soak-round: ..." per round and one
# "# soak-summary: ..." line at the end (scripts/soak.sh collects them).
set -eu
. ./lib.sh
. ./clients/all.sh
. ./cli_lib.sh

W=/tmp/soak
SOAK_ROUNDS=${SOAK_ROUNDS:-2}
SOAK_SLAB_KB=${SOAK_SLAB_KB:-1536}
SOAK_LIVE_KB=${SOAK_LIVE_KB:-128}
SV_NQN=nqn.2024-01.org.configfs-ng:soak
SV_HOST=nqn.2024-01.org.configfs-ng:soak-host
SV_PARTS="nvmet/subsystems/$SV_NQN netconsole/cng-soak usb_gadget/cng-soak"
WORKERS="nvmet lio usb netconsole saver"
CLIENT_MODULES="nvmet target_core_mod libcomposite netconsole"

secs=$(sed -n 's/.*cng\.soak_secs=\([0-9]*\).*/\1/p' /proc/cmdline)

# refcnt MODULE: its reference count in /proc/modules (empty: not loaded)
refcnt() {
	awk -v m="$1" '$1 == m { print $3 }' /proc/modules
}

# refs: "module=count" of configfs and each client module
refs() {
	for r_m in configfs $CLIENT_MODULES; do
		printf '%s=%s ' "$r_m" "$(refcnt "$r_m")"
	done
}

# settle: free what can be freed, so that what is left is what lives:
# the page cache, dentries and inodes, RCU-deferred frees, the areas of
# ended tasks' stacks (vmap_area objects, freed lazily: a module load
# frees them) and the empty and per-CPU slabs of every cache.
settle() {
	sync
	modprobe crc7 && rmmod crc7
	echo 3 > /proc/sys/vm/drop_caches
	sleep 1
	echo 3 > /proc/sys/vm/drop_caches
	for s_f in /sys/kernel/slab/*/shrink; do
		echo 1 2>/dev/null > "$s_f" || :
	done
}

# slab_kb: Slab from /proc/meminfo; live_kb: the bytes of the objects in
# use in every cache (/proc/slabinfo, exact once settled), in KiB.
slab_kb() {
	awk '$1 == "Slab:" { print $2 }' /proc/meminfo
}

live_kb() {
	awk 'NR > 2 { b += $2 * $4 } END { printf "%d\n", b / 1024 }' \
		/proc/slabinfo
}

# cfs_objects: the objects in use in configfs' own caches (stock's
# configfs_dir_cache, our cng_node_cache and cng_inode_cache; slub_debug
# keeps them apart from other caches): one a file, directory or link of
# the tree, exact once settled
cfs_objects() {
	awk '$1 ~ /^(configfs_|cng_)/ { n += $2 } END { print n + 0 }' \
		/proc/slabinfo
}

# tasks: "tasks=N zombies=N kthreads=N" now (a task's slab objects count
# in live_kb: kernel workers come and go with the load)
tasks() {
	for t_s in /proc/[0-9]*/stat; do
		cat "$t_s" 2>/dev/null
	done | awk '{ n++; if ($3 == "Z") z++
		if (int($9 / 2097152) % 2) k++ }
		END { printf "tasks=%d zombies=%d kthreads=%d\n", n, z, k }'
}

# live_by_cache: "cache bytes" of the objects in use, one cache a line
live_by_cache() {
	awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo
}

# grew_most FILE: the caches whose live bytes changed most since FILE,
# either way
grew_most() {
	live_by_cache | awk 'NR == FNR { was[$1] = $2; next }
		$2 != was[$1] { d = $2 - was[$1]
			printf "%d %d %s\n", d < 0 ? -d : d, d, $1 }' "$1" - |
		sort -rn | head -n 8 | cut -d' ' -f2- |
		sed 's/^/# live bytes changed: /'
}

# The workers' cycles: each echoes its steps to its log.
nvme_find() {
	NVMET_INST=
	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NVMET_NQN ] || continue
		NVMET_INST=${c##*/nvme}
	done
	[ -n "$NVMET_INST" ] && nvmet_ns_ready
}

nvme_gone() {
	! nvme_find
}

nvmet_cycle() {
	nv_id=$(printf '%s' $NVMET_HOSTNQN | md5sum | cut -c1-32 |
		sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/')
	nvmet_build_tree || return
	x nvme connect -t tcp -a 127.0.0.1 -s $NVMET_PORT -n $NVMET_NQN \
		--hostnqn=$NVMET_HOSTNQN --hostid="$nv_id" || return
	x wait_for 30 nvme_find || return
	echo "# controller: nvme$NVMET_INST"
	x nvmet_io || return
	x nvme disconnect -n $NVMET_NQN || return
	x wait_for 20 nvme_gone || return
	NVMET_INST=
	nvmet_teardown
}

lio_no_disk() {
	! lio_find_disk
}

lio_cycle() {
	lio_build_tree && lio_verify_works && lio_teardown &&
	x wait_for 10 lio_no_disk
}

usb_cycle() {
	usb_build_tree && usb_verify_works && usb_teardown
}

netconsole_cycle() {
	netconsole_build_tree && netconsole_verify_works &&
	netconsole_teardown
}

# saver_file PART: where the saver keeps PART's first save
saver_file() {
	echo "$W/save.$(echo "$1" | tr '/:' '__')"
}

saver_cycle() {
	for sv_p in $SV_PARTS; do
		sv_f=$(saver_file "$sv_p")
		cfg rm -r "$sv_p" || return
		cfg restore "$sv_f" "$sv_p" || return
		cli_save "$sv_f.again" "$sv_p" || return
		cli_same_saves "$sv_f" "$sv_f.again" || return
	done
}

saver_build() {
	sv_s=$N/subsystems/$SV_NQN
	sv_g=$CFS/usb_gadget/cng-soak
	x mkdir $N/hosts/$SV_HOST || return
	x mkdir $sv_s || return
	x put $sv_s/attr_allow_any_host 0 || return
	x ln -s $N/hosts/$SV_HOST $sv_s/allowed_hosts/$SV_HOST || return
	x mkdir $sv_s/namespaces/7 || return
	x put $sv_s/namespaces/7/device_path /dev/cng-soak || return
	x mkdir $NC/cng-soak || return
	x put $NC/cng-soak/dev_name lo || return
	x put $NC/cng-soak/remote_port 6667 || return
	x mkdir $sv_g || return
	x put $sv_g/idVendor 0x1d6b || return
	x put $sv_g/idProduct 0x0105 || return
	x mkdir $sv_g/strings/0x409 || return
	x put $sv_g/strings/0x409/manufacturer configfs-ng || return
	x mkdir $sv_g/functions/acm.soak || return
	x mkdir $sv_g/configs/c.1 || return
	x ln -s $sv_g/functions/acm.soak $sv_g/configs/c.1/acm.soak || return
	for sv_p in $SV_PARTS; do
		cli_save "$(saver_file "$sv_p")" "$sv_p" || return
	done
}

saver_remove() {
	cfg rm -r $SV_PARTS nvmet/hosts/$SV_HOST
}

# reader: walk and read the whole tree until $W/stop appears, then
# write "walks attributes links" to $W/reader.
reader() {
	rd_walks=0 rd_files=0 rd_links=0
	while :; do
		# The soak's names have no blanks, and a "while read" loop
		# would count in its pipe's subshell.
		# shellcheck disable=SC2044
		for rd_f in $(find $CFS -type f 2>/dev/null); do
			cat "$rd_f" > /dev/null 2>&1 &&
				rd_files=$((rd_files + 1))
		done
		# shellcheck disable=SC2044
		for rd_l in $(find $CFS -type l 2>/dev/null); do
			readlink "$rd_l" > /dev/null 2>&1 &&
				rd_links=$((rd_links + 1))
		done
		rd_walks=$((rd_walks + 1))
		[ -e $W/stop ] && break
	done
	echo "$rd_walks $rd_files $rd_links" > $W/reader
}

# worker NAME ROUND: one cycle of NAME, logged to $W/NAME.log (this
# round's only: the log is not to grow); a failure is recorded in
# $W/failed.NAME.
worker() {
	if ! { echo "# round $2"; "${1}_cycle"; } > "$W/$1.log" 2>&1; then
		echo "$2" >> "$W/failed.$1"
		return 1
	fi
}

# round N: every worker's cycle at once, the reader until they are done;
# then the figures.
round() {
	rn_t0=$(date +%s)
	rm -f $W/stop
	reader &
	rn_reader=$!
	rn_pids=
	for rn_w in $WORKERS; do
		worker "$rn_w" "$1" &
		rn_pids="$rn_pids $!"
	done
	for rn_p in $rn_pids; do
		wait "$rn_p" || :
	done
	touch $W/stop
	wait $rn_reader || :
	rn_tasks=$(tasks)
	settle
	rn_slab=$(slab_kb)
	rn_live=$(live_kb)
	rn_cfs=$(cfs_objects)
	rn_failed=$(cd $W && ls failed.* 2>/dev/null | sed 's/failed\.//' |
		tr '\n' ' ')
	# shellcheck disable=SC2046,SC2086 # the reader's three figures
	set -- "$1" $(cat $W/reader)
	echo "# soak-round: round=$1 secs=$(($(date +%s) - rn_t0))" \
		"slab_kb=$rn_slab live_kb=$rn_live" \
		"slab_delta_kb=$((rn_slab - ${slab0:-$rn_slab}))" \
		"live_delta_kb=$((rn_live - ${live0:-$rn_live}))" \
		"configfs_objects=$rn_cfs" \
		"reader_walks=$2 reader_attrs=$3 reader_links=$4" \
		"$rn_tasks failed=${rn_failed:-none}"
	rd_total_attrs=$((${rd_total_attrs:-0} + $3))
	rd_total_links=$((${rd_total_links:-0} + $4))
	[ -z "$rn_failed" ]
}

# show_failures: the tail of each failed worker's log
show_failures() {
	for sf_w in $WORKERS; do
		[ -e "$W/failed.$sf_w" ] || continue
		echo "# $sf_w failed in round(s): $(tr '\n' ' ' < "$W/failed.$sf_w")"
		tail -n 30 "$W/$sf_w.log" | cut -c 1-200 | sed 's/^#*/# | /'
	done
}

no_failure() {	# no_failure WORKER
	[ ! -e "$W/failed.$1" ] && return 0
	show_failures
	return 1
}

rounds() {
	rs_t0=$(date +%s)
	rs_n=0
	while :; do
		rs_n=$((rs_n + 1))
		round $rs_n || return 0
		if [ -n "$secs" ]; then
			[ $(($(date +%s) - rs_t0)) -ge "$secs" ] &&
				[ $rs_n -ge 2 ] && break
		else
			[ $rs_n -ge "$SOAK_ROUNDS" ] && break
		fi
	done
}

# end_figures: the last figures, settled again (three times at most)
# while one is over its bound: a transient (live objects up 300 kB for
# one round in ten in a 5-minute run, back the round after) is not a
# leak, which stays.
end_figures() {
	for ef_try in 1 2 3; do
		[ "$ef_try" -eq 1 ] || sleep 2
		settle
		slab_end=$(slab_kb)
		live_end=$(live_kb)
		cfs_end=$(cfs_objects)
		[ $((slab_end - slab0)) -le "$SOAK_SLAB_KB" ] &&
			[ $((live_end - live0)) -le "$SOAK_LIVE_KB" ] &&
			[ "$cfs_end" -eq "$cfs0" ] && return 0
		echo "# over a bound, settled $ef_try time(s): slab_kb=$slab_end" \
			"live_kb=$live_end configfs_objects=$cfs_end"
		grew_most $W/live0
	done
}

warm_up() {
	round 0 && return 0
	show_failures
	return 1
}

within() {	# within WHAT DELTA BOUND
	echo "# $1 grew by $2 kB from round 0; the bound is $3 kB"
	grew_most $W/live0
	[ "$2" -le "$3" ]
}

same_objects() {
	echo "# objects in configfs' caches after round 0: $cfs0, now: $cfs_end"
	[ "$cfs_end" -eq "$cfs0" ]
}

same_refs() {
	sr_now=$(refs)
	echo "# references after round 0: $refs0"
	echo "# references now:           $sr_now"
	[ "$sr_now" = "$refs0" ]
}

cleanup() {
	set +e
	touch $W/stop 2> /dev/null
	wait
	[ -d $CFS/usb_gadget ] && [ -d $CFS/nvmet ] && [ -d $NC ] &&
		saver_remove > /dev/null 2>&1
	rmdir_if $N/hosts/$SV_HOST > /dev/null 2>&1
	c_all=0
	nvme disconnect -n $NVMET_NQN > /dev/null 2>&1
	# In the reverse order of the setups: each unloads what was loaded
	# since its own began.
	clients_cleanup || c_all=1
	rm -rf $W
	return $c_all
}

setup() {
	nvmet_setup && lio_setup && usb_setup && netconsole_setup
}

before=$(cfs_snapshot)
configfs_refs0=$(refcnt configfs)
rm -rf $W
mkdir -p $W
trap 'cleanup || echo "# cleanup could not undo everything"' EXIT

ktap_plan 17
if ! command -v nvme > /dev/null; then
	echo "# nvme-cli is not in the initramfs (tests/soak/initramfs.list)"
	exit 1
fi
critical setup_loads_client_modules setup
critical saver_parts_build saver_build
critical warm_up_round_runs_every_worker warm_up
start_tasks=$(tasks)
settle
slab0=$(slab_kb)
live0=$(live_kb)
live_by_cache > $W/live0
cfs0=$(cfs_objects)
refs0=$(refs)
echo "# start: slab_kb=$slab0 live_kb=$live0 configfs_objects=$cfs0" \
	"$start_tasks refs: $refs0"
rounds
check nvmet_cycles_pass no_failure nvmet
check lio_cycles_pass no_failure lio
check usb_gadget_cycles_pass no_failure usb
check netconsole_cycles_pass no_failure netconsole
check saver_saves_restores_identically no_failure saver
check reader_read_attributes_and_links \
	test "$rd_total_attrs" -gt 0 -a "$rd_total_links" -gt 0
end_figures
check slab_within_bound_of_start \
	within Slab $((slab_end - slab0)) "$SOAK_SLAB_KB"
check live_slab_objects_within_bound_of_start \
	within "live slab objects" $((live_end - live0)) "$SOAK_LIVE_KB"
check configfs_objects_back_to_start same_objects
check module_references_back_to_start same_refs
check saver_parts_remove saver_remove
check client_modules_unload cleanup
check configfs_references_back_to_start \
	test "$(refcnt configfs)" = "$configfs_refs0"
check tree_left_as_found tree_as_found "$before"
echo "# soak-summary: configfs=${CNG_CONFIGFS:-?} rounds=$rs_n" \
	"secs=$(($(date +%s) - rs_t0)) slab_start_kb=$slab0" \
	"slab_end_kb=$slab_end slab_delta_kb=$((slab_end - slab0))" \
	"live_start_kb=$live0 live_end_kb=$live_end" \
	"live_delta_kb=$((live_end - live0))" \
	"configfs_objects=$cfs0/$cfs_end" \
	"attrs_read=$rd_total_attrs links_read=$rd_total_links" \
	"configfs_refs=$configfs_refs0/$(refcnt configfs)"
ktap_done
