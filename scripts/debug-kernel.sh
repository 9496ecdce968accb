#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel (KASAN, lockdep, kmemleak, fault injection) from
# Debian's linux-source-6.1, which scripts/prereqs.sh unpacks, and stage its
# in-tree modules. The build runs out of tree in a cache directory named
# after the source version and a hash of scripts/debug-kernel.config, and a
# stamp skips it when neither changed, so a second run takes seconds.
#
# Writes these make assignments to $CNG_CACHE/debug-env.mk and prints them:
#   DKVER   the debug kernel's release (uname -r in the guest)
#   DKDIR   the build directory: KDIR for `make -C $(DKDIR) M=...`
#   DKIMG   its bzImage
#   DKMODS  module staging root: $(DKMODS)/lib/modules/$(DKVER) holds the
#           in-tree modules (configfs.ko, ...) and their depmod files
#
# Environment:
#   CNG_CACHE  cache directory (default: as scripts/prereqs.sh)
#   DKCONFIG   config fragments, in order, a later one overriding an
#              earlier (default: scripts/debug-kernel.config)
#   JOBS       make -j (default: 2); the build always runs under nice -n 10
#   KTREE      another source tree to build (default: the cache's
#              linux-source-6.1, the KSRC of env.mk); make then always runs, incrementally,
#              since the tree may have changed (scripts/check-intree.sh's
#              tree, with the series applied)
#   KNAME      the build's name, in place of "debug": the build directory
#              is $CNG_CACHE/KNAME-*, the assignments go to KNAME-env.mk
#   DK_DIR_OF  a build name (KNAME) of the same source: build in its
#              directory, not one of this config's own. For a config one
#              setting away (check-intree's modular kernel): make rebuilds
#              only what that setting changes, here and on that build's
#              next run, where a directory of its own would rebuild the
#              whole kernel (objtool, rebuilt for a new path, is a
#              prerequisite of every object)
#   DK_NO_CHECK  set: the .config is not checked against the fragments
#              (a tree cut before what they ask for: check-intree's
#              INTREE_AT)
#   DK_STEPS   with KTREE a git tree: commits to build first, one after
#              the other, as a bisection would (what the fragments ask
#              for and a commit lacks is left out), before KTREE's HEAD;
#              one line "ok COMMIT" or "failed COMMIT" each to
#              DK_STEPS_OUT, each make's output to DK_STEPS_OUT.COMMIT
set -eu

# Bump when the way the .config or the staging is derived changes, so that
# cached builds made the old way are not reused.
RECIPE=1

here=$(cd "$(dirname "$0")" && pwd)
CNG_CACHE=${CNG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/configfs-ng}
fragments=()
for f in ${DKCONFIG:-$here/debug-kernel.config}; do
	fragments+=("$(readlink -f "$f")")
done
JOBS=${JOBS:-2}
KNAME=${KNAME:-debug}
ksrc_given=${KTREE:-}

say() { echo "$KNAME-kernel: $*" >&2; }
die() { say "$*"; exit 1; }

# env_get NAME: the value of "NAME := value" in env.mk.
env_get() {
	sed -n "s/^$1 := //p" "$CNG_CACHE/env.mk"
}

if [ -n "$ksrc_given" ]; then
	KSRC=$(readlink -f "$ksrc_given")
else
	[ -f "$CNG_CACHE/env.mk" ] || "$here/prereqs.sh"
	KSRC=$(env_get KSRC)
	if [ -z "$KSRC" ] || [ ! -f "$KSRC/.stamp" ]; then
		"$here/prereqs.sh"
		KSRC=$(env_get KSRC)
	fi
fi
[ -f "$KSRC/Makefile" ] || die "no kernel source tree at '$KSRC'"
for f in "${fragments[@]}"; do
	[ -f "$f" ] || die "no config fragment at '$f'"
done
# An in-tree configuration makes every O= build refuse to start.
if [ -e "$KSRC/.config" ] || [ -d "$KSRC/include/config" ]; then
	die "$KSRC is not clean (make mrproper there)"
fi

# The source version: Debian's package version when its changelog is
# there (it changes with Debian's patches), else the upstream one.
series=${KSRC##*/linux-source-}
changelog=$CNG_CACHE/linux-source-pkg-$series/usr/share/doc
changelog=$changelog/linux-source-$series/changelog.Debian.gz
if [ -f "$changelog" ]; then
	srcversion=$(zcat "$changelog" | sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p')
else
	srcversion=$(make -s -C "$KSRC" kernelversion)
fi
[ -n "$srcversion" ] || die "cannot tell the version of $KSRC"

# The key covers the fragment's settings but not its comments, so that
# editing a comment does not cost a rebuild. The compiler is part of it:
# modules built against the tree later must use the compiler that built it.
key=$({
	echo "recipe $RECIPE"
	echo "source $srcversion"
	${CC:-gcc} --version | head -n1
	grep -h -E '^(CONFIG_|# CONFIG_.* is not set$)' "${fragments[@]}"
} | sha256sum | cut -c1-12)
name=$KNAME-$srcversion-$key
O=$CNG_CACHE/$name
if [ -n "${DK_DIR_OF:-}" ]; then
	for O in "$CNG_CACHE/$DK_DIR_OF-$srcversion"-????????????; do
		[ -f "$O/.config" ] && break
	done
	[ -f "$O/.config" ] || die "no build of $DK_DIR_OF to build in"
fi
stamp=$O/.cng-stamp

mkdir -p "$CNG_CACHE"
exec 9> "$CNG_CACHE/${DK_DIR_OF:-$KNAME}-kernel.lock"
flock 9

# make_o ARGS...: make in the build directory, at low priority, logged.
make_o() {
	nice -n 10 make -C "$KSRC" O="$O" "$@" >> "$O/build.log" 2>&1 || {
		tail -n 40 "$O/build.log" >&2
		die "make $* failed; full log in $O/build.log"
	}
}

# final_settings: the fragments' settings, the last one for each symbol.
final_settings() {
	cat "${fragments[@]}" | tac | awk '
		/^CONFIG_[A-Za-z0-9_]*=/ { sym = $0; sub(/=.*/, "", sym) }
		/^# CONFIG_[A-Za-z0-9_]* is not set$/ { sym = $2 }
		!/^CONFIG_/ && !/^# CONFIG_.* is not set$/ { next }
		!(sym in seen) { seen[sym] = 1; print }' | tac
}

# check_config: every value the fragments ask for is in the final .config.
check_config() {
	local line sym want bad=0

	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			sym=${line%%=*}
			want=$line
			;;
		"# CONFIG_"*" is not set")
			sym=${line#\# }
			sym=${sym%% *}
			want=
			;;
		*)
			continue
			;;
		esac
		if [ -n "$want" ]; then
			grep -qxF -- "$want" "$O/.config" && continue
		else
			grep -q "^$sym=" "$O/.config" || continue
		fi
		say "fragment asks for '$line', .config has:" \
		    "$(grep -E "^($sym=|# $sym is not set)" "$O/.config" ||
		       echo "(nothing)")"
		bad=1
	done < <(final_settings)
	return $bad
}

build() {
	local start staging kver

	start=$(date +%s)
	mkdir -p "$O"
	: > "$O/build.log"
	say "building $name in $O (log: $O/build.log)"

	# allnoconfig with the fragment forced in, then fill in defaults.
	# A resumed build regenerates the same .config, so make stays
	# incremental.
	(cd "$KSRC" && nice -n 10 scripts/kconfig/merge_config.sh -n \
		-O "$O" "${fragments[@]}") >> "$O/build.log" 2>&1 ||
		die "merge_config.sh failed; log in $O/build.log"
	make_o olddefconfig
	[ -n "${DK_NO_CHECK:-}" ] || check_config ||
		die "the fragment does not apply to $srcversion"

	make_o -j"$JOBS" all
	kver=$(cat "$O/include/config/kernel.release")

	staging=$O/modules
	rm -rf "$staging" "$staging.tmp"
	make_o INSTALL_MOD_PATH="$staging.tmp" modules_install
	# Links back into the build tree would make the staged tree depend
	# on it and confuse anything that copies the staged tree.
	rm -f "$staging.tmp/lib/modules/$kver/build" \
	      "$staging.tmp/lib/modules/$kver/source"
	depmod -b "$staging.tmp" "$kver"
	mv "$staging.tmp" "$staging"

	echo "$name" > "$stamp"
	say "built $kver in $(( $(date +%s) - start ))s"
}

# Each commit of DK_STEPS built in O, the .config made again for it;
# then KTREE back at the branch or commit it was at.
steps() {
	local head c log

	head=$(git -C "$KSRC" symbolic-ref -q --short HEAD) ||
		head=$(git -C "$KSRC" rev-parse HEAD)
	mkdir -p "$O"
	: > "$DK_STEPS_OUT"
	for c in $DK_STEPS; do
		log=$DK_STEPS_OUT.$c
		say "building step $c"
		if git -C "$KSRC" checkout -q -f "$c" > "$log" 2>&1 &&
		   (cd "$KSRC" && scripts/kconfig/merge_config.sh -n \
			-O "$O" "${fragments[@]}") >> "$log" 2>&1 &&
		   nice -n 10 make -C "$KSRC" O="$O" olddefconfig >> "$log" 2>&1 &&
		   nice -n 10 make -C "$KSRC" O="$O" -j"$JOBS" all >> "$log" 2>&1; then
			echo "ok $c" >> "$DK_STEPS_OUT"
		else
			echo "failed $c" >> "$DK_STEPS_OUT"
		fi
	done
	git -C "$KSRC" checkout -q -f "$head" || die "cannot check $head out again"
}

if [ -n "${DK_STEPS:-}" ]; then
	[ -n "$ksrc_given" ] && [ -n "${DK_STEPS_OUT:-}" ] ||
		die "DK_STEPS needs KTREE and DK_STEPS_OUT"
	steps
fi

if [ -n "$ksrc_given" ] || [ ! -f "$stamp" ] ||
   [ "$(cat "$stamp")" != "$name" ] ||
   [ ! -f "$O/arch/x86/boot/bzImage" ]; then
	rm -f "$stamp"
	build
	# Only one debug build is kept: each takes a few GiB.
	# KNAME-VERSION-KEY, the version starting with a digit: "intree"'s
	# glob must not take "intree-debug"'s build.
	for old in "$CNG_CACHE/$KNAME"-[0-9]*-????????????; do
		if [ ! -d "$old" ] || [ "$old" = "$O" ]; then
			continue
		fi
		say "removing the outdated $old"
		rm -rf "$old"
	done
fi

DKVER=$(cat "$O/include/config/kernel.release")
cat > "$CNG_CACHE/$KNAME-env.mk.tmp" <<EOT
DKVER := $DKVER
DKDIR := $O
DKIMG := $O/arch/x86/boot/bzImage
DKMODS := $O/modules
EOT
mv "$CNG_CACHE/$KNAME-env.mk.tmp" "$CNG_CACHE/$KNAME-env.mk"
cat "$CNG_CACHE/$KNAME-env.mk"
