# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Part of the takeover suite (sourced by tests/suites/takeover.sh, with the
# takeover off): a swap step that fails, made to fail by tests/kmod/fbfail.ko
# (a kretprobe on the module's fault point fb_to_fault(), which runs before
# each step; the steps: 0 the built-in fuseblk off, 1 ours on, 2 the
# built-in fuse off, 3 ours on, 4 the built-in /dev/fuse off, 5 ours on).
#   a. each step of enable failing: the write refused, rolled back, one log
#      line, everything the built-in's;
#   b. each of the three restores of the built-in failing during disable
#      (undoing steps 4, 2 and 0), and an enable whose step 4 fails and
#      whose rollback's restore of the built-in fuse fails too: each name
#      is served by one side (ours put back for the name the built-in could
#      not take back), the parameter reads that, the tool's off or on exits
#      1 with one line naming each side, the kernel log has one line
#      naming them, status reports it (once), and a following off or on
#      with the fault gone leaves everything on one side.
# Each side checked for itself: fuse and fuseblk listed once in
# /proc/filesystems; /dev/fuse 10:229, and whether opening it takes a
# reference on our module; the test daemon mounted -t fuse on the device of
# the side that should serve fuse (/dev/fuse for the built-in, ours
# otherwise) and served by it (its connection in that side's control fs).
# Uses the suite's S, setp, param, klog_mark, one_line, fs_listed,
# misc_dev, dev_is_ours, mount_on, umount_at, ours, builtin, io.
rs_ko=${FB_KMOD_DIR:-/nonexistent}/fbfail.ko
rs_tool=$FB_TOP/tools/fuse-backport
mkdir -p "$S/rs"

# rs_fail DO UNDO: fbfail loaded, failing the steps of the two bit masks
rs_fail() {
	insmod "$rs_ko" symbol="$FB_MODNAME:fb_to_fault" do_mask="$1" undo_mask="$2" 2> "$S/rs.insmod"
}
rs_unfail() {
	rmmod fbfail 2> /dev/null
}
rs_hits() {
	cat /sys/module/fbfail/parameters/hits 2> /dev/null || echo none
}
# rs_line FUSE FUSEBLK DEV (each ours or builtin): the parameter's words
rs_side() {
	case $1 in
	ours) echo "$FB_MODNAME" ;;
	*) echo built-in ;;
	esac
}
rs_line() {
	echo "fuse=$(rs_side "$1") fuseblk=$(rs_side "$2") /dev/fuse=$(rs_side "$3")"
}
# rs_param FUSE FUSEBLK DEV: what the parameter reads in that state
rs_param() {
	case "$1 $2 $3" in
	"ours ours ours") echo 1 ;;
	"builtin builtin builtin") echo 0 ;;
	*) rs_line "$@" ;;
	esac
}
# rs_sides FUSE FUSEBLK DEV: each name served by that side (rs_why: what not)
rs_sides() {
	rs_why="the parameter reads '$(param)'"
	[ "$(param)" = "$(rs_param "$@")" ] || return 1
	rs_why="fuse or fuseblk not listed once in /proc/filesystems"
	fs_listed || return 1
	rs_why="no misc device 10:229 at /dev/fuse"
	misc_dev || return 1
	rs_why="/dev/fuse is not the $3 one"
	if [ "$3" = ours ]; then
		dev_is_ours || return 1
	else
		(exec 8<> /dev/fuse) 2> /dev/null && ! dev_is_ours || return 1
	fi
	rs_dev=/dev/fuse
	[ "$1" = ours ] && rs_dev=/dev/$FB_MODNAME
	mount_on "$S/rs/m" "$rs_dev" fuse 2> "$S/rs.m.err"
	rs_why="-t fuse on $rs_dev is not mounted, served by $1, with I/O ($(head -n 1 "$S/rs.m.err"))"
	fb_served_by "$1" "$S/rs/m" && io "$S/rs/m"
	rs_ok=$?
	umount_at "$S/rs/m"
	[ $rs_ok = 0 ] && rs_why="checked"
	return $rs_ok
}

# a. each step of enable failing, a clean rollback
for rs_k in 0 1 2 3 4 5; do
	klog_mark "rsa$rs_k"
	rs_fail $((1 << rs_k)) 0
	setp 1 2> /dev/null
	rs_rc=$?
	rs_h=$(rs_hits)
	rs_unfail
	rs_why=""
	rs_sides builtin builtin builtin
	rs_ok=$?
	tap_check "$([ $rs_rc != 0 ] && [ "$rs_h" = 1 ] && one_line "rsa$rs_k" 'refused: .* failed (-12), rolled back$' &&
		[ $rs_ok = 0 ]; echo $?)" \
		"enable, step $rs_k failing: the write refused (status $rs_rc, $rs_h failure made), rolled back, one log line, everything the built-in's ($rs_why; $(tail -n 1 "$S/klog.rsa$rs_k" 2> /dev/null))"
done

# rs_case NAME WHAT DO UNDO ONOFF FUSE FUSEBLK DEV: from a clean state
# (everything the built-in's for on, ours for off), fbfail failing the
# steps of DO and UNDO (each once here), the tool's takeover ONOFF: exit 1,
# one line naming each side, one log line naming them, each name served by
# that side
rs_case() {
	rs_n=$1 rs_what=$2 rs_do=$3 rs_undo=$4 rs_oo=$5
	shift 5
	rs_nf=0
	for rs_b in 0 1 2 3 4 5; do
		[ $((rs_do >> rs_b & 1)) = 1 ] && rs_nf=$((rs_nf + 1))
		[ $((rs_undo >> rs_b & 1)) = 1 ] && rs_nf=$((rs_nf + 1))
	done
	rs_want=$(rs_line "$@")
	if [ "$rs_oo" = off ]; then
		setp 1
	else
		setp 0
	fi
	klog_mark "$rs_n"
	rs_fail "$rs_do" "$rs_undo"
	"$rs_tool" takeover "$rs_oo" > "$S/rs.$rs_n.out" 2>&1
	rs_rc=$?
	rs_h=$(rs_hits)
	tap_check "$([ $rs_rc = 1 ] && [ "$(wc -l < "$S/rs.$rs_n.out")" = 1 ] &&
		grep -q "^fuse-backport: takeover $rs_oo failed: .*; now $rs_want " "$S/rs.$rs_n.out" &&
		one_line "$rs_n" "; now $rs_want\$"; echo $?)" \
		"$rs_what: takeover $rs_oo exits 1 ($rs_rc) with one line naming each side, one log line ($(cat "$S/rs.$rs_n.out"); $(tail -n 1 "$S/klog.$rs_n" 2> /dev/null))"
	rs_why=""
	rs_sides "$@"
	rs_ok=$?
	tap_check "$([ "$rs_h" = $rs_nf ] && [ $rs_ok = 0 ]; echo $?)" \
		"$rs_what: each name served by one side, $rs_want ($rs_h of $rs_nf failures made; $rs_why)"
	rs_unfail
}
# rs_again ONOFF FUSE FUSEBLK DEV: the tool's ONOFF without the fault, exit
# 0, everything on that side
rs_again() {
	rs_oo=$1
	shift
	"$rs_tool" takeover "$rs_oo" > "$S/rs.again" 2>&1
	rs_rc=$?
	rs_why=""
	rs_sides "$@"
	rs_ok=$?
	tap_check "$([ $rs_rc = 0 ] && [ $rs_ok = 0 ]; echo $?)" \
		"then takeover $rs_oo without the fault: exit $rs_rc, everything on one side again ($rs_why; $(head -n 1 "$S/rs.again"))"
}

# b. disable, the built-in /dev/fuse not restored: ours again, nothing changed
rs_case rsb4 "disable, the built-in /dev/fuse not restored" 0 $((1 << 4)) off ours ours ours
rs_again off builtin builtin builtin
# disable, the built-in fuse not restored: fuse and fuseblk ours
rs_case rsb2 "disable, the built-in fuse not restored" 0 $((1 << 2)) off ours ours builtin
rs_again off builtin builtin builtin
# disable, the built-in fuseblk not restored: fuseblk ours; status says so
rs_case rsb0 "disable, the built-in fuseblk not restored" 0 $((1 << 0)) off builtin ours builtin
"$rs_tool" status --no-probe > "$S/rs.st" 2>&1
rs_src=$?
rs_want=$(rs_line builtin ours builtin)
tap_check "$([ $rs_src != 0 ] && grep -q "^takeover: .*, active partly: $rs_want " "$S/rs.st" &&
	[ "$(grep -c "^  problem: the takeover is partly done: $rs_want" "$S/rs.st")" = 1 ]; echo $?)" \
	"status, takeover partly done: exit $rs_src, the sides and one problem ($(grep -e '^takeover:' -e 'partly done' "$S/rs.st" | tr '\n' ' '))"
rs_again off builtin builtin builtin
# enable, step 4 (the built-in /dev/fuse off) failing, the rollback's
# restore of the built-in fuse failing too: fuse and fuseblk ours; then on
# finishes the takeover, and off ends it
rs_case rsc "enable, step 4 failing, the built-in fuse not restored in its rollback" $((1 << 4)) $((1 << 2)) on ours ours builtin
rs_again on ours ours ours
rs_again off builtin builtin builtin
