#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The test VM gets a fresh /tmp of its own (tests/vm/init.sh): a checkout
# under the host's /tmp is invisible in it. Exit 1 with one line on stderr
# when this checkout is there; the one check make check-vm, check-debug,
# bench-ab, demo (Makefile: not-in-tmp) and tests/vm/run-suites.sh use.
#
# usage: tests/vm/not-in-tmp.sh [PREFIX]   (PREFIX of the message, default vm)
top=$(cd "$(dirname "$0")/../.." && pwd -P) || exit 1
case $top/ in
/tmp/*)
	echo "${1:-vm}: the checkout $top is under /tmp, which the test VM replaces with its own tmpfs: clone it elsewhere (e.g. /root or /srv)" >&2
	exit 1
	;;
esac
exit 0
