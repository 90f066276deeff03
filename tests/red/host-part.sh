#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make check-red's host run of one part of the tools section
# (tests/red/knobs): tests/host-scripts/PART.sh, which tests/host-scripts/
# run.sh sources, run on its own with the same shell variables ($top,
# $work, ok, notok) and TAP count. The knob in the environment is the
# part's to read.
#
# usage: tests/red/host-part.sh PART    Ends with the part's count line.
set -u
part=${1:?usage: host-part.sh PART}
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$top/tests/host-scripts/$part.sh" ] || { echo "host-part: no tests/host-scripts/$part.sh" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/fb-red-part.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM
# shellcheck disable=SC2034 # tap.sh's
tap_suite=tools-$part
. "$top/tests/lib/tap.sh"
ok() { tap_check 0 "$1"; }
notok() { tap_check 1 "$1"; [ -f "$work/err" ] && sed 's/^/#   /' "$work/err"; }
# shellcheck source=/dev/null
. "$top/tests/host-scripts/$part.sh"
tap_done
