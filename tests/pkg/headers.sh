#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The headers a host needs: scripts/headers-hint.sh, which
# the .deb's postinst runs for a kernel without headers, against Debian's
# archive as the model. For every version of the meta packages
# linux-headers-amd64, linux-headers-cloud-amd64 and linux-headers-rt-amd64
# that apt knows, the kernel release it pulls headers for (its Depends:
# linux-headers-KVER) is taken as the running kernel: the line must name
# linux-headers-KVER and a meta package whose Depends, in the archive,
# names linux-headers-KVER too (so a cloud or RT host is pointed at its own
# flavour's headers, not linux-headers-generic's amd64 ones). A kernel that
# is not the running one gets the plain line; a release of no Debian shape
# gets only its own headers named. Runs in a few seconds.
#
# usage: tests/pkg/headers.sh
tap_suite="pkg-headers"
top=$(cd "$(dirname "$0")/../.." && pwd)
set -u
cd "$top" || exit 1
# shellcheck source=tests/lib/tap.sh
. "$top/tests/lib/tap.sh"

hint=scripts/headers-hint.sh
tag=fuse-backport-dkms

# deps_of PACKAGE: "VERSION DEPENDS" for each version apt knows
deps_of() {
	apt-cache show "$1" 2> /dev/null | awk '
		/^Version: / { v = $2 }
		/^Depends: / { sub(/^Depends: /, ""); print v, $0 }'
}

n=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-headers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
for meta in linux-headers-amd64 linux-headers-cloud-amd64 linux-headers-rt-amd64; do
	deps_of "$meta" > "$tmp/$meta"
	if [ ! -s "$tmp/$meta" ]; then
		tap_check 1 "apt knows $meta (the model: run apt-get update)"
		continue
	fi
	while read -r ver deps; do
		k=$(echo "$deps" | tr ',' '\n' | sed -n 's/^ *linux-headers-\([0-9][^ ]*\) .*/\1/p' | head -n 1)
		[ -n "$k" ] || continue
		n=$((n + 1))
		out=$(FB_KVER=$k sh "$hint" "$tag" "$k")
		named=$(echo "$out" | sed -n 's/.*apt install linux-headers-[^ ]* \(linux-headers-[a-z0-9-]*\) .*/\1/p')
		ok=1
		case $out in
		"$tag: not building for $k: its headers are not installed (package linux-headers-$k); it is the running kernel: apt install linux-headers-$k "*) ok=0 ;;
		esac
		# the named meta package pulls this kernel's headers, in the archive
		[ $ok = 0 ] && [ -n "$named" ] && deps_of "$named" | grep -q "linux-headers-$k (" || ok=1
		tap_check $ok "running $k ($meta $ver): names linux-headers-$k and ${named:-no meta package}, which pulls them ($out)"
	done < "$tmp/$meta"
done
[ "$n" -ge 3 ]
tap_check $? "the archive gave kernels of each flavour to check ($n)"

out=$(FB_KVER=6.1.0-57-cloud-amd64 sh "$hint" "$tag" 6.1.0-57-amd64)
[ "$out" = "$tag: not building for 6.1.0-57-amd64: its headers are not installed (package linux-headers-6.1.0-57-amd64)" ]
tap_check $? "a kernel that is not the running one: the plain line ($out)"
out=$(FB_KVER=6.18.44-fc-v1 sh "$hint" "$tag" 6.18.44-fc-v1)
case $out in
*"it is the running kernel: install them (apt install linux-headers-6.18.44-fc-v1)") true ;;
*) false ;;
esac
tap_check $? "a running kernel of no Debian shape: only its own headers named ($out)"
tap_done
