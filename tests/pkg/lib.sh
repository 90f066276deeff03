# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# fuse-backport: what the package lifecycle tests share. Sourced after
# tests/lib/tap.sh, with $top set.
#
#   pt_init NAME        root and tools check (else everything is a skip),
#                       the host lock, a scratch directory $pt_tmp, cleanup
#                       through pt_cleanup (the test defines it) on exit
#   pt_version          DKMS module version (PACKAGE_VERSION of dkms.conf)
#   pt_log FILE         the last lines of FILE as TAP diagnostics
#   pt_mok_cn           CN of the DKMS MOK certificate (the signer DKMS uses)
#   pt_cn CERT          CN of a certificate (DER or PEM)
#   pt_deb_state PKG    dpkg's status of PKG ("not-installed" when unknown)
#   pt_tree_missing LIST SRC   the generated DKMS tree is in LIST (a path a
#                       line) under SRC; what is not goes to $pt_missing
#   pt_tree_clean LIST SRC     nothing built or foreign under SRC in LIST

# apt and DKMS on this host are shared with tests/dkms/run.sh and the other
# package tests: one at a time.
pt_lock=/var/lock/fuse-backport-dkms.lock
top=${top:?tests/pkg/lib.sh needs top set}

pt_init() {
	pt_name=$1
	shift
	if [ "$(id -u)" != 0 ]; then
		tap_skip "$pt_name" "needs root (installs packages, runs dkms)"
		tap_done
		exit 0
	fi
	for t in "$@"; do
		if ! command -v "$t" > /dev/null; then
			tap_skip "$pt_name" "$t is not installed (sh scripts/deps.sh pkg)"
			tap_done
			exit 0
		fi
	done
	exec 9>> "$pt_lock"
	flock 9
	pt_tmp=$(mktemp -d "${TMPDIR:-/tmp}/fb-pkg.XXXXXX")
	trap 'pt_cleanup; rm -rf "$pt_tmp"' EXIT
	trap 'exit 130' INT TERM
}

pt_version() {
	kernelver="" kernel_source_dir="" bash -c '. "$1/dkms.conf" 2>/dev/null && echo "$PACKAGE_VERSION"' _ "$top"
}

pt_log() {
	tail -n "${2:-8}" "$1" 2> /dev/null | sed 's/^/#   /'
}

pt_cn() {
	{ openssl x509 -inform DER -in "$1" -noout -subject 2> /dev/null ||
		openssl x509 -in "$1" -noout -subject 2> /dev/null; } |
		sed -n 's/.*CN *= *\([^,/]*\).*/\1/p'
}

pt_mok_cn() {
	pt_cn /var/lib/dkms/mok.pub
}

pt_deb_state() {
	s=$(dpkg-query -W -f '${db:Status-Abbrev}' "$1" 2> /dev/null) || s=""
	case $s in
	ii*) echo installed ;;
	rc*) echo config-files ;;
	'' | un* | pn*) echo not-installed ;;
	*) echo "broken ($s)" ;;
	esac
}

pt_tree_missing() {
	pt_missing=""
	for f in dkms.conf LICENSE scripts/build.sh scripts/flavor.sh backports/6.12/pin src/Kbuild \
		src/upstream/.fb-import src/upstream/fs/fuse/file.c src/upstream/fs/fuse/passthrough.c \
		src/upstream/include/uapi/linux/fuse.h; do
		grep -qx "$2/$f" "$1" || pt_missing="$pt_missing $f"
	done
	[ -z "$pt_missing" ]
}

pt_tree_clean() {
	! grep -E -q "^$2/(build/|tests/|debian/|rpm/)|\.(o|ko|cmd)$" "$1"
}
