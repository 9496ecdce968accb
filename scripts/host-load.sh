# SPDX-License-Identifier: GPL-2.0
#
# What else the host did while a benchmark ran. A TCG guest's figures are
# only as good as the host is quiet: a kernel build at nice 19, or a
# second guest, beside a benchmark made its ratios unusable, and nothing
# said so but the figures. Bash; source it.
#
# host_load_mark: remember the host's busy time and the CPU time of this
# shell's children (the guest among them, once waited for) now.
# host_load_line: after the guest, one line for the summary: how much
# of the host's cores other processes kept busy since the mark, and
# "**a busy host**" when that is over HOST_LOAD_BUSY percent (default 5):
# its ratios then say more about the host than about configfs.
# shellcheck shell=bash

# host_busy_ticks: the host's busy time, in clock ticks, from /proc/stat
# (user, nice, system, irq, softirq; a guest's time is in user).
host_busy_ticks() {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8; exit }' /proc/stat
}

# host_children_ticks: the CPU time of the main shell's children that
# it has waited for (cutime and cstime of /proc/PID/stat).
host_children_ticks() {
	# The second field, the command, is "(bash)": no space in it.
	awk '{ print $16 + $17 }' "/proc/$$/stat"
}

host_load_mark() {
	host_load_t0=$(date +%s)
	host_load_busy0=$(host_busy_ticks)
	host_load_kids0=$(host_children_ticks)
}

host_load_line() {
	local busy kids wall hz cores pct

	busy=$(( $(host_busy_ticks) - host_load_busy0 ))
	kids=$(( $(host_children_ticks) - host_load_kids0 ))
	wall=$(( $(date +%s) - host_load_t0 ))
	hz=$(getconf CLK_TCK)
	cores=$(nproc)
	[ "$wall" -gt 0 ] || wall=1
	# Tenths of a percent, in integers.
	pct=$(( (busy - kids) * 1000 / (wall * hz * cores) ))
	[ "$pct" -ge 0 ] || pct=0
	printf 'Host: other processes kept %d.%d%% of its %d cores busy' \
		$((pct / 10)) $((pct % 10)) "$cores"
	printf ' over the %d s of the run' "$wall"
	if [ "$pct" -gt $(( ${HOST_LOAD_BUSY:-5} * 10 )) ]; then
		printf ': **a busy host**, the ratios are not to be trusted.\n'
	else
		printf ' (a quiet host).\n'
	fi
}
