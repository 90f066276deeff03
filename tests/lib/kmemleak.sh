# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# kmemleak in the guest (a kernel with CONFIG_DEBUG_KMEMLEAK: the debug
# kernel of `make check-debug`, dev/debug-kernel.config). Sourced by
# tests/vm/guest/suites.sh, which scans after every suite while the module
# is still loaded: kmemleak prints a backtrace's symbols when it is read, so
# a leak of a module that has gone shows as bare addresses.
#
#   fb_kmemleak_on            kmemleak is built in and on (mounts debugfs)
#   fb_kmemleak_scan OUT      two scans (an object is reported only when a
#                             scan finds it unreferenced and unchanged since
#                             the scan before), the report to OUT, then
#                             "clear", so that the next scan reports only
#                             what is new; fails when kmemleak refuses
#   fb_kmemleak_verdict REPORT
#                             one line: "clean", "ours: ..." (the first
#                             unreferenced object whose backtrace names a
#                             function or module of FUSE: fuse_, fusebp,
#                             cuse_, virtio_fs_, [fuse], [cuse], [virtiofs],
#                             [$FB_MODNAME]) or "elsewhere: ..." (leaks,
#                             none of them ours: a note)
# FB_KMEMLEAK_OURS: the extended regular expression (awk) a backtrace line,
# "function+off/len [module]", must match to be ours (default above).

FB_KMEMLEAK=/sys/kernel/debug/kmemleak

fb_kmemleak_on() {
	# /sys/module/kmemleak (its parameter "verbose"): built in; a kernel
	# without it gets no debugfs mount from here.
	[ -d /sys/module/kmemleak ] || return 1
	if [ ! -e "$FB_KMEMLEAK" ] && [ -d /sys/kernel/debug ]; then
		mount -t debugfs none /sys/kernel/debug 2> /dev/null
	fi
	[ -e "$FB_KMEMLEAK" ] || return 1
	# A kmemleak that turned itself off refuses every command but clear.
	echo stack=on > "$FB_KMEMLEAK" 2> /dev/null
}

fb_kmemleak_scan() {
	# Objects younger than 5 s are not reported: the suite's last ones
	# must age first.
	sleep 5
	echo scan > "$FB_KMEMLEAK" 2> /dev/null || return 1
	echo scan > "$FB_KMEMLEAK" 2> /dev/null || return 1
	cat "$FB_KMEMLEAK" > "$1" 2> /dev/null || return 1
	echo clear > "$FB_KMEMLEAK" 2> /dev/null
}

fb_kmemleak_verdict() {
	fb_kl_re=${FB_KMEMLEAK_OURS:-"^_*(fuse_|fusebp|cuse_|virtio_fs_)|[[](fuse|cuse|virtiofs|fusebp[a-z0-9_]*${FB_MODNAME:+|$FB_MODNAME})[]]"}
	awk -v re="$fb_kl_re" '
		function flush() {
			if (obj == "") return
			n++
			if (first == "") first = obj " (" trace ")"
			if (mine != "" && ours == "") ours = obj " allocated by " mine " (" trace ")"
			if (mine != "") nours++
		}
		/^unreferenced object / {
			flush()
			obj = $0; sub(/:$/, "", obj); trace = ""; mine = ""; inbt = 0; next
		}
		/^  backtrace/ { inbt = 1; next }
		inbt && /^    / {
			f = $0; sub(/^ +/, "", f); sub(/^\[<[^>]*>\] /, "", f)
			trace = trace (trace == "" ? "" : " < ") f
			if (mine == "" && f ~ re) mine = f
			next
		}
		END {
			flush()
			if (n == 0) print "clean"
			else if (nours > 0) printf "ours: %d of %d unreferenced objects name FUSE; the first: %s\n", nours, n, ours
			else printf "elsewhere: %d unreferenced objects, none naming FUSE; the first: %s\n", n, first
		}' "$1"
}
