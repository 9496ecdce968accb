#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make series`: configfs-ng as a patch series against Debian's
# linux-source-6.12, generated from this repository's one source
# (docs/upstream.md). Each upstream/NN-*.txt is one patch: its first line
# "# parts: PART..." names what scripts/intree.sh writes for it, the rest
# is its commit message. The patches are committed in a git copy of the
# pristine tree ($CNG_CACHE/series-6.12, made once, branch "series" from
# tag "base"), written with git format-patch to OUT with a cover letter
# (upstream/cover-letter.txt), and then proved to apply: git am of OUT
# onto the pristine tree must give the same tree.
#
# Usage: series.sh OUT
# Environment: CNG_CACHE (the Makefile's). Prints the tree's path last,
# for a kernel build (scripts/check-intree.sh).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out=${1:?usage: series.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
CNG_CACHE=${CNG_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/configfs-ng}
src=$CNG_CACHE/linux-source-6.12
repo=$CNG_CACHE/series-6.12

say() { echo "series: $*" >&2; }
die() { say "$*"; exit 1; }
# No automatic gc: the pristine tree is about 90,000 loose objects, and
# the first commit after it would start a repack of the whole kernel in
# the background (minutes of both cores, unniced, holding the caller's
# lock fds). Loose objects cost this copy nothing but disk.
g() { git -C "$repo" -c user.name="configfs-ng" \
	-c user.email="configfs-ng@localhost" \
	-c gc.auto=0 -c maintenance.auto=false "$@"; }

exec 9> "$CNG_CACHE/series.lock"
flock 9

# The pristine tree, once. Debian's .gitignore ignores every top-level
# path (its packaging keeps only debian/), so files are added with -f.
if ! g rev-parse -q --verify base > /dev/null 2>&1; then
	[ -f "$src/Makefile" ] || KVER=6.12.118+deb12-amd64 "$here/prereqs.sh" >&2
	[ -f "$src/Makefile" ] || die "no linux-source-6.12 at $src"
	say "making the pristine tree $repo (once)"
	rm -rf "$repo"
	cp -a "$src" "$repo"
	g init -q
	g add -A -f
	g commit -q -m "linux-source-6.12 as Debian ships it"
	g tag base
fi

g checkout -q -f -B series base
g clean -q -f -d -x
for msg in "$top"/upstream/[0-9][0-9]-*.txt; do
	parts=$(sed -n '1s/^# parts: //p' "$msg")
	[ -n "$parts" ] || die "$msg: first line is not '# parts: PART...'"
	# shellcheck disable=SC2086 # one word a part
	"$here/intree.sh" "$repo" $parts
	g add -A -f
	sed 1d "$msg" | g commit -q -s -F -
done

rm -rf "$out"
mkdir -p "$out"
g format-patch -q --cover-letter -o "$out" base..series
cover=$(ls "$out"/0000-*.patch)
subject=$(head -n 1 "$top/upstream/cover-letter.txt")
awk -v subject="$subject" -v body="$top/upstream/cover-letter.txt" '
	/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subject) }
	/^\*\*\* BLURB HERE \*\*\*$/ {
		n = 0
		while ((getline line < body) > 0)
			if (n++ > 1)
				print line
		next
	}
	{ print }' "$cover" > "$cover.tmp"
mv "$cover.tmp" "$cover"

# The series applies to the pristine tree and gives the same tree.
g checkout -q -f -B series-am base
patches=()
for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	case ${p##*/} in 0000-*) ;; *) patches+=("$p") ;; esac
done
g am -q "${patches[@]}" ||
	{ g am --abort || true; die "the series does not apply to base"; }
g diff --quiet series series-am || die "git am of $out gives another tree"
g checkout -q -f series
g branch -q -D series-am
say "$(ls "$out" | wc -l) files in $out"
echo "$repo"
