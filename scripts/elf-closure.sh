#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What dynamic programs of another architecture need, found in ROOT, a
# tree of that architecture's Debian packages unpacked (scripts/prereqs.sh,
# foreign_bins): each program, the dynamic loader its PT_INTERP names and
# the closure of the shared libraries their DT_NEEDED entries name, read
# with readelf (which reads any architecture's ELF: ldd would have to run
# the program). A library is looked for where the guest's loader looks
# without a cache (Debian's ld.so searches the multiarch directories):
# ROOT's lib/TRIPLET and usr/lib/TRIPLET, then lib64, lib, usr/lib64,
# usr/lib. RUNPATH is not followed: a library found only there is
# missing. Symbolic links are followed inside ROOT (an absolute target
# is ROOT's), and a program's path on a merged-/usr host (/usr/bin/X) is
# also looked for at the package's (/bin/X).
#
# Usage: elf-closure.sh ROOT PATH...
# Prints, for each program, loader and library, "PATH FILE": the path
# the guest runs or loads it by and the regular file of ROOT that is
# (the programs first, in the order given); and "missing NAME" for each
# program, loader or soname not in ROOT, then exits 1.
set -u

root=${1:?usage: elf-closure.sh ROOT PATH...}
shift

# in_root PATH: whether PATH is a regular file of ROOT, its symbolic
# links followed inside ROOT; that file in found. (No subshells: this
# runs for each library and directory.)
found=
in_root() {
	local p=$1 hops=0 target
	found=
	while [ -L "$root$p" ]; do
		hops=$((hops + 1))
		[ "$hops" -le 40 ] || return 1
		target=$(readlink "$root$p")
		case $target in
		/*)	p=$target ;;
		*)	p=${p%/*}/$target ;;
		esac
	done
	[ -f "$root$p" ] || return 1
	found=$root$p
}

# merged PATH: PATH and its other name on a merged /usr.
merged() {
	echo "$1"
	case $1 in
	/usr/bin/* | /usr/sbin/* | /usr/lib/* | /usr/lib64/*)
		echo "${1#/usr}" ;;
	/bin/* | /sbin/* | /lib/* | /lib64/*)
		echo "/usr$1" ;;
	esac
}

# The loader's directories, multiarch first (one triplet in a root of
# one architecture).
libdirs=
for d in "$root"/lib/*-linux-gnu* "$root"/usr/lib/*-linux-gnu* \
	 "$root"/lib64 "$root"/lib "$root"/usr/lib64 "$root"/usr/lib; do
	[ -d "$d" ] && libdirs="$libdirs ${d#"$root"}"
done

# find_lib SONAME: whether a directory holds SONAME; the first one's
# path in lib, its file in found.
lib=
find_lib() {
	local d
	for d in $libdirs; do
		lib=$d/$1
		in_root "$lib" && return 0
	done
	return 1
}

seen=' '
missing=0
queue=
# visit PATH FILE: print it once; queue FILE's needs.
visit() {
	case $seen in *" $1 "*) return 0 ;; esac
	seen="$seen$1 "
	echo "$1 $2"
	queue="$queue $2"
}

for prog; do
	for p in $(merged "$prog"); do
		in_root "$p" && break
	done
	if [ -n "$found" ]; then
		visit "$prog" "$found"
	else
		echo "missing $prog"
		missing=1
	fi
done

# note_missing NAME: NAME (a loader path or a library) is in no root
# directory: said once, however many programs need it.
note_missing() {
	case $seen in *" missing:$1 "*) ;;
	*)	seen="${seen}missing:$1 "
		echo "missing $1" ;;
	esac
	missing=1
}

while [ -n "$queue" ]; do
	set -- $queue
	queue=
	for f; do
		interp=$(readelf -lW "$f" 2>/dev/null |
			 sed -n 's/.*\[Requesting program interpreter: \(.*\)\]$/\1/p')
		if [ -n "$interp" ]; then
			if in_root "$interp"; then
				visit "$interp" "$found"
			else
				note_missing "$interp"
			fi
		fi
		for so in $(readelf -dW "$f" 2>/dev/null |
			    sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			if find_lib "$so"; then
				visit "$lib" "$found"
			else
				note_missing "$so"
			fi
		done
	done
done
exit "$missing"
