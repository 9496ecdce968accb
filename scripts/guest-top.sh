# SPDX-License-Identifier: GPL-2.0
#
# guest_top NAME PATTERN...: the checkout a Debian guest
# (scripts/debian-guest.sh) is to read, on stdout. The guest sees this
# machine's root, but not what is in its /tmp: the guest's systemd
# empties /tmp at boot (tmpfiles' "D /tmp"), so a checkout there is gone
# in the guest. From such a checkout, the files the PATTERNs (globs under
# TOP) name are copied into $CNG_CACHE/guest-top/NAME, which is printed
# in its place; from any other, TOP itself. NAME keeps two callers'
# copies apart. A pattern that names no file is an error.
# Environment: TOP, CNG_CACHE. Bash; source it.
# shellcheck shell=bash

guest_top() {
	local top=$CNG_CACHE/guest-top/${1:?guest_top: no NAME} pattern files f
	shift

	case $(realpath -m "$TOP")/ in
	/tmp/*)	;;
	*)	echo "$TOP"; return 0 ;;
	esac
	rm -rf "$top" || return 1
	for pattern in "$@"; do
		files=$(cd "$TOP" && compgen -G "$pattern") || {
			echo "guest_top: no file $TOP/$pattern" >&2
			return 1
		}
		while IFS= read -r f; do
			mkdir -p "$top/$(dirname "$f")" &&
				cp "$TOP/$f" "$top/$f" || return 1
		done <<< "$files"
	done
	echo "$top"
}
