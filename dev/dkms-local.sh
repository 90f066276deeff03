#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Put the working tree (with its generated tree) into DKMS the way the
# package does, then build and install for the given kernels.
#
# usage: dev/dkms-local.sh [--remove] KVER...
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "dkms-local: $*" >&2; exit 1; }
command -v dkms > /dev/null || die "dkms is not installed (make deps)"
ls "$top"/src/upstream-*/.fb-import > /dev/null 2>&1 || die "no generated tree: run 'make import' first"

ver=$(kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" && echo "$PACKAGE_VERSION"' _ "$top")
name=fuse-backport
dst=/usr/src/$name-$ver

# Whatever version of ours DKMS has, it goes: one tree at a time.
for v in $(dkms status -m "$name" 2>/dev/null | sed -n "s|^$name/\([^,:]*\).*|\1|p" | sort -u); do
	dkms remove -m "$name" -v "$v" --all > /dev/null 2>&1 || true
done
rm -rf "$dst"
[ "${1:-}" = --remove ] && { echo "dkms-local: removed"; exit 0; }

# The same file set the package carries under /usr/src (dkms.files), with
# the generated trees of the bases imported here (make import, import-all).
sh "$top/dev/dkms-files.sh" --imported copy "$dst" || die "cannot install the DKMS source set in $dst"
dkms add -m "$name" -v "$ver"
rc=0
for k in "$@"; do
	if dkms build -m "$name" -v "$ver" -k "$k" && dkms install -m "$name" -v "$ver" -k "$k" --force; then
		echo "dkms-local: installed $name $ver for $k"
	else
		echo "dkms-local: $name $ver not installed for $k" >&2
		rc=1
	fi
done
dkms status -m "$name"
exit $rc
