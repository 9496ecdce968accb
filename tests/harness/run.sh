#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test guest and turn what it reports into TAP on stdout.
#
# Usage: run.sh [options]
#   --kernel FILE      the kernel image to boot
#   --initrd FILE      initramfs from mkinitramfs.sh
#   --list FILE        the test list baked into the initramfs (to count)
#   --configfs WHICH   ours | stock | builtin (the kernel's own, loaded by
#                      no one: scripts/check-intree.sh)
#   --out DIR          where console logs go
#   --append ARGS      more kernel command line
#   --label TEXT       prefix of test names in the TAP output
#
# TIMEOUT_SCALE multiplies every test's timeout (a debug kernel is slower).
# ARCH=arm64 boots an arm64 kernel on qemu-system-aarch64's virt machine
# (TCG, -cpu max); ARCH=ppc64el a ppc64el one on qemu-system-ppc64's
# pseries machine (TCG, its default POWER CPU); unset, an x86-64 one.
#
# The guest reports on a serial port of its own, which QEMU connects to
# our stdin pipe: on x86-64 the second UART (ttyS1); on arm64, whose virt
# machine has one UART (the PL011, ttyAMA0, the console), and on pseries,
# whose console is the hypervisor's terminal (hvc0), a PCI 16550
# (pci-serial), which Debian's arm64 and ppc64el kernels drive with
# built-in code (SERIAL_8250_PCI), so that no module is loaded for it:
# the first 8250 port, ttyS0. The console (kernel log) goes to a file
# per boot. A test that kills or hangs the guest is failed with the
# console shown, and the guest is booted again to go on with the next
# test. Every test of the list gets exactly one line: a test the guest
# started and gave no verdict for (init gave up), one the guest never
# reached, and one whose start or verdict does not fit the list (a
# protocol error) fail. Exit status: 0 when every test passed.
set -u

kernel='' initrd='' list='' configfs=ours out='' append='' label=''
while [ $# -gt 0 ]; do
	case $1 in
	--kernel) kernel=$2; shift ;;
	--initrd) initrd=$2; shift ;;
	--list) list=$2; shift ;;
	--configfs) configfs=$2; shift ;;
	--out) out=$2; shift ;;
	--append) append=$2; shift ;;
	--label) label=$2; shift ;;
	*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$out"

names=()
timeouts=()
while read -r name tmo _; do
	case $name in ''|'#'*) continue ;; esac
	names+=("$name")
	timeouts+=($(( ${tmo:-60} * ${TIMEOUT_SCALE:-1} )))
done < "$list"
ntests=$(( ${#names[@]} + 1 ))	# the guest's final unload check counts too
names+=("unload_all_modules")
timeouts+=(120)

BOOT_TIMEOUT=${BOOT_TIMEOUT:-180}
QEMU_MEM=${QEMU_MEM:-1024}
QEMU_SMP=${QEMU_SMP:-2}
case ${ARCH:-} in
''|x86|x86_64)
	qemu=(qemu-system-x86_64 -accel tcg -cpu max)
	ports=(-serial stdio)
	ttys="console=ttyS0" ;;
arm64)	# Pointer authentication by QEMU's cheap algorithm: its default,
	# the architected QARMA, took 84 s where this took 52 (smoke and
	# the USB gadget tests); the guest sees the same features.
	qemu=(qemu-system-aarch64 -M virt -accel tcg
		-cpu "${QEMU_CPU:-max,pauth-impdef=on}")
	ports=(-chardev 'stdio,id=verdict' -device 'pci-serial,chardev=verdict')
	ttys="console=ttyAMA0 cng.verdict=/dev/ttyS0" ;;
ppc64el)
	# The spectre workarounds' capabilities, which TCG does not
	# emulate, off: else QEMU warns of each at every boot.
	caps=cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off
	qemu=(qemu-system-ppc64 -accel tcg -M "pseries,$caps")
	ports=(-chardev 'stdio,id=verdict' -device 'pci-serial,chardev=verdict')
	ttys="console=hvc0 cng.verdict=/dev/ttyS0" ;;
*)	echo "run.sh: ARCH=$ARCH: not x86, arm64 or ppc64el" >&2; exit 2 ;;
esac
cmdline="$ttys loglevel=6 panic=-1 oops=panic slub_debug=FZPU page_poison=1 init_on_free=1 printk.devkmsg=on watchdog_thresh=30 hung_task_panic=0 cng.mode=test cng.configfs=$configfs cng.timeout_scale=${TIMEOUT_SCALE:-1} $append"

passed=0
failed=0
start=1
boot=0
given=()	# given[N] is set once test N has its line

report() {	# report ok|fail NUM NAME [REASON]
	local verdict=$1 num=$2 name=$3 reason=${4:-}
	given[num]=1
	if [ "$verdict" = ok ]; then
		passed=$((passed + 1))
		echo "ok $num $label$name${reason:+ # $reason}"
	else
		failed=$((failed + 1))
		echo "not ok $num $label$name${reason:+ # $reason}"
	fi
}

show_console() {	# show_console FILE: the guest console's tail, as comments
	echo "    # guest console (last 80 lines of $1):"
	tail -n 80 "$1" | tr -d '\r' | sed 's/^/    # /'
}

# is_test NUM NAME: NUM is a test of this run, named NAME in the list.
is_test() {
	case $1 in ''|*[!0-9]*) return 1 ;; esac
	[ "$1" -ge 1 ] && [ "$1" -le "$ntests" ] &&
		[ "$2" = "${names[$(($1 - 1))]}" ]
}

echo "1..$ntests"
while [ "$start" -le "$ntests" ]; do
	boot=$((boot + 1))
	console=$out/console-$boot.log
	fifo=$out/verdict.fifo
	rm -f "$fifo"
	mkfifo "$fifo"
	"${qemu[@]}" -smp "$QEMU_SMP" -m "$QEMU_MEM" \
		-nodefaults -display none -no-reboot -monitor none \
		-kernel "$kernel" -initrd "$initrd" \
		-append "$cmdline cng.start=$start" \
		-serial "file:$console" "${ports[@]}" \
		< /dev/null > "$fifo" 2> "$out/qemu-$boot.err" &
	qpid=$!
	exec 3< "$fifo"

	current=0
	done_ok=
	aborted=
	why=
	limit=$BOOT_TIMEOUT
	while :; do
		IFS= read -r -t "$limit" line <&3
		rc=$?
		if [ "$rc" -gt 128 ]; then
			kill -9 "$qpid" 2>/dev/null
			why="guest silent for $limit s (hang)"
			break
		elif [ "$rc" -ne 0 ]; then
			why="guest died"
			break
		fi
		line=${line%$'\r'}
		case $line in
		'#cng-boot '*)
			# The guest's list must be the one we count.
			case " $line " in
			*" tests=$((ntests - 1)) "*) ;;
			*) why="protocol error: '$line', the list has $((ntests - 1)) tests"
			   break ;;
			esac
			;;
		'#cng-start '*)
			set -- $line
			if ! is_test "${2:-}" "${3:-}" || [ "$2" -lt "$start" ] ||
			   [ "$2" -le "$current" ]; then
				why="protocol error: '$line' after test $current"
				break
			fi
			current=$2
			limit=$(( ${timeouts[$((current - 1))]} + 60 ))
			echo "# $label${names[$((current - 1))]}"
			;;
		'#cng-done'*) done_ok=1; break ;;
		'#cng-abort'*) aborted=${line#\#cng-abort }; ;;
		'ok '*|'not ok '*)
			reason=
			case $line in *' # '*) reason=${line#* # } ;; esac
			verdict=ok
			set -- ${line%% # *}
			[ "$1" = not ] && { verdict=fail; shift; }
			if [ "$current" -eq 0 ] || [ "${2:-}" != "$current" ] ||
			   ! is_test "$2" "${3:-}" || [ -n "${given[current]:-}" ]; then
				why="protocol error: '$line' while test $current runs"
				break
			fi
			report "$verdict" "$2" "$3" "$reason"
			limit=$BOOT_TIMEOUT
			;;
		*) echo "$line" ;;
		esac
		[ -n "$aborted" ] && [ "$current" -gt 0 ] && break
	done
	exec 3<&-
	# Give QEMU a moment to power off by itself, then make sure.
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.5
	done
	kill -9 "$qpid" 2>/dev/null
	wait "$qpid" 2>/dev/null
	rm -f "$fifo"
	[ -n "$done_ok" ] && break

	if [ -n "$aborted" ]; then
		echo "# guest aborted: $aborted"
		if [ "$current" -eq 0 ]; then
			report fail "$start" "${names[$((start - 1))]}" "guest could not start the tests: $aborted"
			show_console "$console"
			current=$start
		elif [ -z "${given[current]:-}" ]; then
			# init gave up inside the test, before its verdict.
			report fail "$current" "${names[$((current - 1))]}" \
				"guest aborted: $aborted"
			show_console "$console"
		fi
	else
		# The guest died, hung or broke the protocol inside test
		# $current, while booting, or between two tests (then the next
		# one is charged).
		[ "$current" -eq 0 ] && current=$start
		[ -n "${given[current]:-}" ] && current=$((current + 1))
		[ "$current" -gt "$ntests" ] && break
		report fail "$current" "${names[$((current - 1))]}" "$why"
		show_console "$console"
	fi
	start=$((current + 1))
done

# Every test has exactly one line: one the guest never reached or never
# gave a verdict for (it said it was done too early) fails.
for ((i = 1; i <= ntests; i++)); do
	[ -n "${given[i]:-}" ] ||
		report fail "$i" "${names[$((i - 1))]}" "no verdict from the guest"
done

echo "# ${label%:}: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
