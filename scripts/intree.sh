#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The in-tree form of configfs-ng, written into a kernel source tree from
# this repository's one source (docs/upstream.md):
#   module/*.c, internal.h, unshare.h  -> fs/configfs/ (stock's files go)
#   include/configfs-ng*.h             -> include/linux/
#   helpers/*                          -> fs/configfs/helpers/
#   samples/cng_{ext,commit,helpers}.c -> samples/configfs/configfs_sample_*.c
#   tests/kselftest/                   -> tools/testing/selftests/filesystems/configfs/
#   upstream/configfs.rst.add          -> the end of
#                                 Documentation/filesystems/configfs.rst
# module/compat.h, which back-fills what kernels older than 6.12 lack, is
# dropped, and every #ifdef CNG_HAVE_* is resolved with unifdef as the
# target tree's headers answer module/Kbuild's probes: the in-tree files
# hold one kernel's code, with no compatibility left in them.
#
# Usage: intree.sh KSRC [PART...]
#   PART: tree, removal, subsys, directories, attributes, links (the new
#   files, built but not linked), core (the switch: fs/configfs with no
#   extension), names (the new files that take stock's names get them),
#   errors, notify, commit (each extension added to it, with its part of
#   the header), helpers, samples, selftests, docs; all, in that order,
#   by default.
# Exits non-zero, naming the file, when a result still holds a CNG_HAVE_*
# or compat.h.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
ksrc=${1:?usage: intree.sh KSRC [PART...]}
shift
parts=${*:-tree removal subsys directories attributes links core names errors notify commit helpers samples selftests docs}
[ -f "$ksrc/fs/configfs/Kconfig" ] || {
	echo "intree.sh: $ksrc is not a kernel tree with fs/configfs" >&2
	exit 1
}
command -v unifdef > /dev/null || {
	echo "intree.sh: needs unifdef (apt-get install unifdef)" >&2
	exit 1
}
version=$(cat "$top/module/VERSION")

# The probes of module/Kbuild, "$(call cng_have,NAME,HEADER,REGEX)",
# answered by the target's headers: -DCNG_HAVE_NAME or -UCNG_HAVE_NAME.
features() {
	sed -n 's/^ccflags-y += $(call cng_have,\([A-Z_0-9]*\),\([^,]*\),\(.*\))$/\1 \2 \3/p' \
		"$top/module/Kbuild" |
	while read -r name header regex; do
		regex=${regex//\$(comma)/,}
		if grep -s -q -E -e "$regex" "$ksrc/include/linux/$header"; then
			echo "-DCNG_HAVE_$name"
		else
			echo "-UCNG_HAVE_$name"
		fi
	done
}
mapfile -t defs < <(features)
[ "${#defs[@]}" -gt 0 ] || { echo "intree.sh: no probes in module/Kbuild" >&2; exit 1; }
# What only the out-of-tree form says of the series goes (internal.h).
defs+=(-DCNG_INTREE)

# put SRC DST: SRC with the features resolved, compat.h gone, the
# extension headers under linux/, and the version spelled out.
put() {
	local src=$1 dst=$2 rc=0

	mkdir -p "$(dirname "$dst")"
	unifdef "${defs[@]}" -x2 "$src" > "$dst.tmp" || rc=$?
	[ "$rc" -le 1 ] || { echo "intree.sh: unifdef failed on $src" >&2; exit 1; }
	sed -e '/^#include "compat.h"$/d' \
	    -e 's|^#include <configfs-ng\(-helpers\)\{0,1\}\.h>|#include <linux/configfs-ng\1.h>|' \
	    -e "s|MODULE_VERSION(CNG_VERSION)|MODULE_VERSION(\"$version\")|" \
	    "$dst.tmp" | cat -s > "$dst"	# no blank lines doubled where unifdef cut
	rm -f "$dst.tmp"
	if grep -n 'CNG_HAVE_\|CNG_INTREE_\|compat\.h\|CNG_VERSION' "$dst" >&2; then
		echo "intree.sh: $dst still depends on the module's build" >&2
		exit 1
	fi
}

# maintain FILE: FILE in MAINTAINERS' CONFIGFS entry, its F: lines kept
# in order.
maintain() {
	grep -q "^F:	$1\$" "$ksrc/MAINTAINERS" && return 0
	awk -v add="F:	$1" '
		$0 == "CONFIGFS" { in_entry = 1 }
		in_entry && /^F:/ { files[n++] = $0; next }
		in_entry && n && !/^F:/ {
			files[n++] = add
			cmd = "LC_ALL=C sort"
			for (i = 0; i < n; i++)
				print files[i] | cmd
			close(cmd)
			in_entry = 0; n = 0
		}
		{ print }' "$ksrc/MAINTAINERS" > "$ksrc/MAINTAINERS.tmp"
	mv "$ksrc/MAINTAINERS.tmp" "$ksrc/MAINTAINERS"
	grep -q "^F:	$1\$" "$ksrc/MAINTAINERS" || {
		echo "intree.sh: cannot add $1 to MAINTAINERS" >&2
		exit 1
	}
}

# objs KBUILD VAR: the objects a Kbuild file lists in VAR-y.
objs() {
	sed -n "/^$2-y :=/,/[^\\\\]\$/p" "$1" | sed "s/^$2-y :=//; s/\\\\//" |
		tr -s ' \t\n' ' ' | sed 's/^ //; s/ $//'
}

# The extensions, each a patch of its own after the core's: errors
# (report.c), notify (notify.c), commit (commit.c). ext_file EXT: its file.
exts="errors notify commit"
ext_file() {
	case $1 in
	errors) echo report ;;
	*) echo "$1" ;;
	esac
}

# The new files that take the names of stock's: until the switch has
# removed stock's, and one patch after it, they are cng_dir.c and so on,
# so that no patch both removes a file and adds another under its name
# (git format-patch cannot show that as anything a reviewer could read,
# nor as a patch git am applies). kept_name FILE: FILE's name in the
# tree, by $interim_names (1: before the "names" part).
taken="dir.c file.c inode.c symlink.c"
interim_names=1
kept_name() {
	case " $taken " in
	*" $1 "*) [ "$interim_names" = 1 ] && { echo "cng_$1"; return; } ;;
	esac
	echo "$1"
}

# core_with EXT...: fs/configfs and its header holding these extensions
# and no other: the files of the rest left out, their CNG_INTREE_NO_*
# resolved as defined (module/internal.h).
core_with() {
	local f e fs=$ksrc/fs/configfs skip=" " objects o
	local -a saved=("${defs[@]}")

	for e in $exts; do
		case " $* " in
		*" $e "*) defs+=("-UCNG_INTREE_NO_${e^^}") ;;
		*) defs+=("-DCNG_INTREE_NO_${e^^}")
		   skip="$skip$(ext_file "$e") " ;;
		esac
	done
	rm -f "$fs"/*.c "$fs"/*.h
	for f in "$top"/module/*.c "$top"/module/internal.h "$top"/module/unshare.h; do
		case ${f##*/} in *.mod.c) continue ;; esac
		case $skip in *" $(basename "$f" .c) "*) continue ;; esac
		put "$f" "$fs/$(kept_name "${f##*/}")"
	done
	# The header declares the extensions' calls: it comes with the first.
	if [ $# -gt 0 ]; then
		put "$top/include/configfs-ng.h" "$ksrc/include/linux/configfs-ng.h"
		maintain include/linux/configfs-ng.h
	fi
	objects=
	for o in $(objs "$top/module/Kbuild" configfs); do
		case $skip in *" ${o%.o} "*) continue ;; esac
		o=$(kept_name "${o%.o}.c")
		objects="${objects:+$objects }${o%.c}.o"
	done
	{
		echo "# SPDX-License-Identifier: GPL-2.0-only"
		echo "#"
		echo "# Makefile for the configfs virtual filesystem"
		echo "#"
		echo
		echo "obj-\$(CONFIG_CONFIGFS_FS)	+= configfs.o"
		echo
		echo "configfs-objs	:= $objects"
		echo
		echo "ccflags-y	:= '-Dpr_fmt(fmt)=KBUILD_MODNAME \": \" fmt'"
	} > "$fs/Makefile"
	# A later part's rewrite keeps what an earlier part added.
	[ ! -d "$fs/helpers" ] || link_helpers
	defs=("${saved[@]}")
}

# link_helpers: fs/configfs/Makefile descends into helpers/.
link_helpers() {
	local mk=$ksrc/fs/configfs/Makefile

	grep -q 'helpers/' "$mk" ||
		sed -i 's|^obj-$(CONFIG_CONFIGFS_FS)\t+= configfs.o$|&\nobj-$(CONFIG_CONFIGFS_HELPERS)\t+= helpers/|' \
			"$mk"
	grep -q 'helpers/' "$mk" || {
		echo "intree.sh: cannot add helpers/ to $mk" >&2
		exit 1
	}
}

# Before the switch (core), the new implementation a part at a time:
# compiled beside stock's configfs but not linked into it (extra-y), so
# that each patch builds what it adds. early FILE...: these files of
# module/, as the switch will have them (kept_name's names).
early() {
	local f e fs=$ksrc/fs/configfs objects='' name
	local -a saved=("${defs[@]}")

	for e in $exts; do
		defs+=("-DCNG_INTREE_NO_${e^^}")
	done
	for f in "$@"; do
		name=$(kept_name "$f")
		put "$top/module/$f" "$fs/$name"
		case $name in *.c) objects="$objects ${name%.c}.o" ;; esac
	done
	defs=("${saved[@]}")
	grep -q '^extra-y' "$fs/Makefile" ||
		printf '\n%s\n' "# The new implementation, built but not yet linked into configfs.o" \
			>> "$fs/Makefile"
	[ -z "$objects" ] || echo "extra-y	+=$objects" >> "$fs/Makefile"
}

tree() {
	early internal.h unshare.h names.c ids.c node.c
}

removal() {
	early remove.c
}

subsys() {
	early subsys.c visible.c
}

directories() {
	early dir.c inode.c
}

attributes() {
	early file.c
}

links() {
	early symlink.c
}

# The switch: stock's files removed, everything linked.
core() {
	core_with
}

# The new files that take stock's names get them: renames only.
names() {
	interim_names=0
	core_with
}

# ext EXT: the core as it is in the tree, with EXT added.
ext() {
	local e have=$1

	interim_names=0
	for e in $exts; do
		[ "$e" != "$1" ] && [ -f "$ksrc/fs/configfs/$(ext_file "$e").c" ] &&
			have="$have $e"
	done
	# shellcheck disable=SC2086 # one word an extension
	core_with $have
}

helpers() {
	local f fs=$ksrc/fs/configfs

	rm -rf "$fs/helpers"
	for f in "$top"/helpers/*.c "$top"/helpers/internal.h; do
		case ${f##*/} in *.mod.c) continue ;; esac
		put "$f" "$fs/helpers/${f##*/}"
	done
	put "$top/include/configfs-ng-helpers.h" \
		"$ksrc/include/linux/configfs-ng-helpers.h"
	maintain include/linux/configfs-ng-helpers.h
	{
		echo "# SPDX-License-Identifier: GPL-2.0-only"
		echo "#"
		echo "# Makefile for the configfs client helpers"
		echo "#"
		echo
		echo "obj-\$(CONFIG_CONFIGFS_HELPERS)	+= configfs_helpers.o"
		echo
		echo "configfs_helpers-objs	:= $(objs "$top/helpers/Kbuild" configfs_helpers)"
	} > "$fs/helpers/Makefile"
	link_helpers
	if ! grep -q '^config CONFIGFS_HELPERS' "$fs/Kconfig"; then
		cat >> "$fs/Kconfig" <<'EOF'

config CONFIGFS_HELPERS
	tristate "Helpers for configfs clients"
	depends on CONFIGFS_FS
	help
	  Ready-made attribute stores and shows, child groups and refusal
	  reasons for configfs clients, declared in
	  <linux/configfs-ng-helpers.h>. Select it from a client that
	  uses them; say M to build it for out-of-tree clients.
EOF
	fi
}

# The samples user space's selftest loads: configfs-ng's own samples of
# the extensions and of the helper library, beside configfs_sample.c.
samples() {
	local d=$ksrc/samples/configfs f name

	# samples/Kbuild's probe: the commit_item slot of 6.1's configfs.h.
	if grep -q -w commit_item "$ksrc/include/linux/configfs.h"; then
		defs+=(-DCNG_HAVE_COMMIT_ITEM_SLOT)
	else
		defs+=(-UCNG_HAVE_COMMIT_ITEM_SLOT)
	fi
	for f in ext commit helpers; do
		name=configfs_sample_$f
		put "$top/samples/cng_$f.c" "$d/$name.c"
		grep -q "$name.o" "$d/Makefile" ||
			echo "obj-\$(CONFIG_SAMPLE_CONFIGFS_NG) += $name.o" >> "$d/Makefile"
	done
	grep -q '^config SAMPLE_CONFIGFS_NG$' "$ksrc/samples/Kconfig" ||
		awk '{ print }
		/^config SAMPLE_CONFIGFS$/ { in_entry = 1 }
		in_entry && /^$/ {
			print "config SAMPLE_CONFIGFS_NG"
			print "\ttristate \"Build samples of the configfs extensions -- loadable modules only\""
			print "\tdepends on CONFIGFS_FS && CONFIGFS_HELPERS && m"
			print "\thelp"
			print "\t  Builds samples of the reasons of failed calls, change"
			print "\t  notification, committable items and the client helpers;"
			print "\t  the configfs selftest uses them. Each needs configfs-ng"
			print "\t  and the helper library; none is of use outside a test"
			print "\t  or a reading."
			print ""
			in_entry = 0
		}' "$ksrc/samples/Kconfig" > "$ksrc/samples/Kconfig.tmp" &&
		mv "$ksrc/samples/Kconfig.tmp" "$ksrc/samples/Kconfig"
	grep -q '^config SAMPLE_CONFIGFS_NG$' "$ksrc/samples/Kconfig" || {
		echo "intree.sh: cannot add SAMPLE_CONFIGFS_NG to samples/Kconfig" >&2
		exit 1
	}
}

# The selftest: tools/testing/selftests/filesystems/configfs/.
selftests() {
	local st=$ksrc/tools/testing/selftests d

	d=$st/filesystems/configfs
	rm -rf "$d"
	mkdir -p "$d"
	install -m 0755 "$top/tests/kselftest/configfs.sh" "$d/configfs.sh"
	install -m 0644 "$top/tests/kselftest/configfs_ext_util.c" "$d/"
	install -m 0644 "$top/tests/kselftest/kselftest.mk" "$d/Makefile"
	install -m 0644 "$top/tests/kselftest/kselftest.config" "$d/config"
	printf '%s\n' "# SPDX-License-Identifier: GPL-2.0-only" configfs_ext_util \
		> "$d/.gitignore"
	grep -q '^TARGETS += filesystems/configfs$' "$st/Makefile" ||
		sed -i 's|^TARGETS += filesystems/binderfs$|&\nTARGETS += filesystems/configfs|' \
			"$st/Makefile"
	grep -q '^TARGETS += filesystems/configfs$' "$st/Makefile" || {
		echo "intree.sh: cannot add filesystems/configfs to $st/Makefile" >&2
		exit 1
	}
	maintain tools/testing/selftests/filesystems/configfs/
}

docs() {
	local rst=$ksrc/Documentation/filesystems/configfs.rst

	grep -q '^How configfs Keeps Its Tree$' "$rst" ||
		cat "$top/upstream/configfs.rst.add" >> "$rst"
}

for p in $parts; do
	case $p in
	tree|removal|subsys|directories|attributes|links|core|names|helpers|\
	samples|selftests|docs) "$p" ;;
	errors|notify|commit) ext "$p" ;;
	*) echo "intree.sh: no part '$p'" >&2; exit 2 ;;
	esac
done
