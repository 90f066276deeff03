# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=sh
# Part of the takeover suite (sourced by tests/suites/takeover.sh, with the
# takeover active): unmodified userspace reaches ours through the names it
# knows. Each test asserts which FUSE serves the mount (ours, the suite's
# helper: the mount's connection is in our control fs, not the built-in's).
#   a. Debian's mergerfs, sshfs, fuse-overlayfs and bindfs, each mounting
#      itself as usual (-t fuse.*, no `fuse-backport run`), and the daemons
#      suite's I/O checks (tests/lib/daemons.sh, shared with it): on
#      fuse-overlayfs and mergerfs in the default tier, on all four with
#      FB_CHECK_FULL=1 (bindfs's 4 KiB writes and sshfs's sshd cost over a
#      minute under TCG); a daemon without them still mounts, is served by
#      ours and unmounts;
#   b. a non-root mount through fusermount3 (fuse-overlayfs as uid 65534 on
#      a directory it owns), unmounted with fusermount3 -u; gocryptfs (the
#      ciphertext in its cipher dir, decrypted again by a new mount) and
#      rclone (a local directory as the remote) the same way, each with the
#      daemons suite's I/O checks run as uid 65534 (3 MB, 4 writers,
#      unlink; on gocryptfs the ciphertext's sizes, a plaintext marker
#      nowhere in the cipher dir, the files equal to their models through a
#      new read-only mount);
#   c. fuse-overlayfs as uid 65534 in a user namespace of its own (unshare
#      --user --map-root-user --mount), the rootless-podman path: a mount(2)
#      of the user namespace's root, FS_USERNS_MOUNT;
#   d. a device cgroup (v1 devices) that allows only c 10:229: the test
#      daemon mounts on /dev/fuse and is served by ours, and /dev/fusebp
#      cannot be opened (EPERM) there; the same with a cgroup v2 device
#      program (BPF, tests/bin/fbdevcg) allowing only c 10:229: there
#      /dev/fuse opens and is ours, /dev/fusebp and /dev/zero are refused;
#   e. AppArmor: under a profile whose only mount rule is
#      `mount fstype=fuse.*`, the test daemon's -t fuse.fbtestd mount is
#      ours, and -t fusebp.fbtestd is denied.
# FB_TAKEOVER_RED=off (a red run): the takeover is turned off before these
# tests, so every daemon lands on the built-in FUSE and each "served by
# ours" must fail. FB_TAKEOVER_RED=io (the red run of b's I/O checks on
# gocryptfs and rclone): their models changed in one byte after the writes
# (tests/lib/daemons.sh's DM_BREAK=model) and a copy of the plaintext
# marker put in gocryptfs's cipher dir, so each byte compare and the
# marker's must fail.
# Uses the suite's S, ours, refcnt, setp, param, mount_on, umount_at.
us_break=""
case ${FB_TAKEOVER_RED:-} in
off)
	setp 0
	tap_diag "FB_TAKEOVER_RED=off: the takeover is off for the userspace tests (parameter $(param)): a red run"
	;;
io)
	us_break=model
	tap_diag "FB_TAKEOVER_RED=io: gocryptfs's and rclone's I/O checks get models changed after the writes, and the plaintext marker in the cipher dir: a red run"
	;;
esac
us_t0=$(date +%s)
us_t=$us_t0
# us_lap WHAT: a diagnostic line, the seconds WHAT took
us_lap() {
	tap_diag "$1 took $(($(date +%s) - us_t)) s"
	us_t=$(date +%s)
}
. "$FB_TOP/tests/lib/daemons.sh"
DM_S=$S/dm DM_M=$S/dm/m
mkdir -p "$DM_M"
udevadm settle -t 10 2> /dev/null
devmode=$(stat -c %a /dev/fuse 2> /dev/null)
tap_diag "/dev/fuse: mode $devmode"

# a. Debian's daemons, their own mounts: 4 tests each with the I/O
# checks, 2 without
io_on="fuse-overlayfs mergerfs"
[ "${FB_CHECK_FULL:-0}" = 1 ] && io_on="bindfs fuse-overlayfs sshfs mergerfs"
for d in bindfs fuse-overlayfs sshfs mergerfs; do
	case " $io_on " in
	*" $d "*) dio=1 ;;
	*) dio=0 ;;
	esac
	if ! command -v "$d" > /dev/null; then
		tap_check 1 "$d is installed (dev/deps.sh test)"
		tap_check 1 "$d on the takeover (not installed)"
		[ $dio = 1 ] && tap_check 1 "$d on the takeover: 3 MB (not installed)" && tap_check 1 "$d on the takeover: 4 writers (not installed)"
		continue
	fi
	ver=$(dm_version "$d")
	if [ "$d" = sshfs ] && ! dm_start_sshd 2> "$S/sshd.err"; then
		tap_check 1 "sshd on 127.0.0.1:$dm_port for sshfs ($(head -n 1 "$S/sshd.err") $(tail -n 1 "$DM_S/sshd.log" 2> /dev/null))"
		tap_check 1 "sshfs on the takeover (no sshd)"
		[ $dio = 1 ] && tap_check 1 "sshfs on the takeover: 3 MB (no sshd)" && tap_check 1 "sshfs on the takeover: 4 writers (no sshd)"
		continue
	fi
	dm_cmd "$d"
	r0=$(refcnt)
	t0=$(date +%s)
	# shellcheck disable=SC2086 # the daemon's words
	timeout 60 $dm_cmdline > "$S/dm.out" 2> "$S/dm.err"
	rc=$?
	ty=$(fb_fstype "$DM_M")
	# A mount nobody serves blocks every access until INIT is answered.
	tap_check "$([ $rc = 0 ] && case $ty in fuse | fuse.*) true ;; *) false ;; esac &&
		ours "$DM_M" && [ "$(refcnt)" -gt "$r0" ] && timeout -k 2 30 ls "$DM_M" > /dev/null; echo $?)" \
		"$d $ver, its own mount (no run): -t ${ty:-nothing}, served by ours (refcount $r0 -> $(refcnt)) (exit $rc $(head -n 1 "$S/dm.err"))"
	if ! fb_mounted "$DM_M"; then
		tap_check 1 "$d on the takeover: unmount (not mounted)"
		[ $dio = 1 ] && tap_check 1 "$d on the takeover: 3 MB (not mounted)" && tap_check 1 "$d on the takeover: 4 writers (not mounted)"
	elif [ $dio = 1 ]; then
		dm_check_big "$d"
		tap_check $? "$d on the takeover: 3 MB written and read back byte for byte (cold cache), the same bytes in the backing store"
		dm_check_parallel
		tap_check $? "$d on the takeover: 4 parallel writers on one file: every writer's bytes in place (mount and backing store)"
		dm_check_unlink && dm_umount "${dm_cmdline%% *}"
		tap_check $? "$d on the takeover: unlink, unmount, the daemon exits ($(($(date +%s) - t0)) s for this daemon)"
	else
		dm_umount "${dm_cmdline%% *}"
		tap_check $? "$d on the takeover: unmount, the daemon exits (its I/O checks: FB_CHECK_FULL=1; $(($(date +%s) - t0)) s for this daemon)"
	fi
	while fb_mounted "$DM_M"; do
		umount -l "$DM_M" 2> /dev/null || break
	done
	[ "$d" = sshfs ] && dm_stop_sshd
	us_lap "$d"
done

# as_nobody CMD...: CMD as uid and gid 65534, no supplementary groups
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
}
# ovl_dirs DIR: fuse-overlayfs's directories under DIR, owned by 65534
ovl_dirs() {
	rm -rf "$1"
	mkdir -p "$1/lower" "$1/upper" "$1/work" "$1/m"
	echo "lower file" > "$1/lower/low"
	chown -R 65534:65534 "$1"
}

# b. fusermount3 as uid 65534: fuse-overlayfs (libfuse 3) cannot mount(2)
# unprivileged, so libfuse hands the mount to the setuid fusermount3, which
# knows only fuse, fuseblk and /dev/fuse.
N=$S/nr
ovl_dirs "$N"
r0=$(refcnt)
(cd "$N" && as_nobody timeout 60 fuse-overlayfs -o "lowerdir=$N/lower,upperdir=$N/upper,workdir=$N/work" "$N/m") > "$S/nr.out" 2>&1
nrc=$?
nopts=$(awk -v m="$N/m" '$5 == m { print $NF }' /proc/self/mountinfo)
# shellcheck disable=SC2016 # expanded by the user's shell
tap_check "$([ $nrc = 0 ] && [ "$(fb_fstype "$N/m")" = fuse.fuse-overlayfs ] && ours "$N/m" && [ "$(refcnt)" -gt "$r0" ] &&
	case ,$nopts, in *,user_id=65534,*) true ;; *) false ;; esac &&
	as_nobody sh -c 'echo nonroot > "$1/m/f" && [ "$(cat "$1/m/f")" = nonroot ] && [ "$(cat "$1/m/low")" = "lower file" ]' nr "$N" &&
	[ "$(stat -c %u:%s "$N/upper/f")" = 65534:8 ]; echo $?)" \
	"fusermount3 mount by uid 65534 (fuse-overlayfs on its own directory): served by ours (${nopts:-not mounted}; exit $nrc $(head -n 1 "$S/nr.out")), I/O as that user"
as_nobody fusermount3 -u "$N/m" > "$S/nr.u" 2>&1
nrc=$?
tap_check "$([ $nrc = 0 ] && ! fb_mounted "$N/m" && fb_wait_while 100 pgrep -f "^fuse-overlayfs .*$N/" > /dev/null; echo $?)" \
	"fusermount3 -u by uid 65534: unmounted, the daemon exits (exit $nrc $(head -n 1 "$S/nr.u"))"
while fb_mounted "$N/m"; do
	umount -l "$N/m" 2> /dev/null || break
done

us_lap "fusermount3"

# b2. gocryptfs and rclone (Go, their own FUSE libraries) as uid 65534:
# each calls fusermount (Debian's link to fusermount3) for its mount. All
# I/O as that user: root may not enter a user's mount without allow_other.
# On each, the daemons suite's I/O checks (tests/lib/daemons.sh) as that
# user (DM_RUNAS), with the test's models in a directory of root's it can
# read: 3 MB byte for byte, 4 parallel writers, unlink. gocryptfs's backing
# store is ciphertext (dm_bk empty): there the ciphertext's sizes, a
# plaintext marker found nowhere in the cipher dir, and the files equal to
# the models again through a new mount.
# not_up MNT PID: MNT is not mounted and PID runs
not_up() {
	! fb_mounted "$1" && kill -0 "$2" 2> /dev/null
}
# user_opts MNT: the mount was made for uid 65534 (fusermount3's user_id)
user_opts() {
	case ,$(awk -v m="$1" '$5 == m { print $NF }' /proc/self/mountinfo), in
	*,user_id=65534,*) true ;;
	*) false ;;
	esac
}
# io_tap RC DESC: tap_check; a failure names its step (io_why)
io_tap() {
	if [ "$1" = 0 ]; then
		tap_check 0 "$2"
	else
		tap_check "$1" "$2 (failed: ${io_why:-?})"
	fi
}
# io_dm CHECK [ARG]: a dm_check_* on a mount that is up (io_up); its step on failure
io_dm() {
	io_why="not mounted ($(fb_fstype "$DM_M"))"
	io_up || return 1
	"$@" || { io_why=$dm_why; return 1; }
}
us_umask=$(umask)
umask 022
DM_RUNAS=as_nobody DM_BREAK=$us_break
G=$S/gc
rm -rf "$G"
mkdir -p "$G/cipher" "$G/m"
echo fb-takeover-pass > "$G/pass"
chmod 600 "$G/pass"
chown -R 65534:65534 "$G"
gver=$(gocryptfs -version 2> /dev/null | head -n 1 | cut -d';' -f1)
r0=$(refcnt)
# -scryptn 10: a cheap key derivation (the default costs seconds under TCG)
as_nobody env HOME="$G" timeout 60 gocryptfs -q -init -scryptn 10 -passfile "$G/pass" "$G/cipher" > "$S/gc.out" 2>&1 &&
	as_nobody env HOME="$G" timeout 60 gocryptfs -q -nosyslog -passfile "$G/pass" "$G/cipher" "$G/m" >> "$S/gc.out" 2>&1
grc=$?
r1=$(refcnt)
gty=$(fb_fstype "$G/m")
gours=$(ours "$G/m"; echo $?)
# the I/O whoever serves the mount, so that the next test does not depend
# on this one's "ours"
gio=1
# shellcheck disable=SC2016 # expanded by the user's shell
[ $grc = 0 ] && [ "$gty" = fuse.gocryptfs ] &&
	as_nobody sh -c 'echo "gocryptfs plaintext" > "$1/m/f" && [ "$(cat "$1/m/f")" = "gocryptfs plaintext" ]' gc "$G" && gio=0
tap_check "$([ $grc = 0 ] && [ "$gty" = fuse.gocryptfs ] && [ "$gours" = 0 ] && [ "$r1" -gt "$r0" ] && user_opts "$G/m" &&
	[ $gio = 0 ] && [ -n "$(find "$G/cipher" -type f ! -name gocryptfs.conf ! -name gocryptfs.diriv -size +0)" ] &&
	! grep -rq plaintext "$G/cipher"; echo $?)" \
	"${gver:-gocryptfs (not installed)} as uid 65534 through fusermount3: served by ours (refcount $r0 -> $r1), a file written and read back, ciphertext only in the cipher dir (exit $grc $(head -n 1 "$S/gc.out"))"
# gocryptfs's ciphertext of an N-byte file: an 18-byte header, and each
# 4 KiB block 32 bytes more (AES-GCM or AES-SIV: a 16-byte nonce and tag),
# 40 with XChaCha20-Poly1305 (a 24-byte nonce), as its gocryptfs.conf says
gc_ov=32
grep -q '"XChaCha20Poly1305"' "$G/cipher/gocryptfs.conf" 2> /dev/null && gc_ov=40
gc_size() {
	echo $((18 + $1 + gc_ov * (($1 + 4095) / 4096)))
}
# gc_files N: the files of the cipher dir of that size for N bytes
gc_files() {
	find "$G/cipher" -type f -size "$(gc_size "$1")c" | wc -l
}
io_up() {
	[ "$(fb_fstype "$G/m")" = fuse.gocryptfs ]
}
DM_S=$G/model DM_M=$G/m dm_bk=""
mkdir -p "$DM_S"
gc_big() {
	io_dm dm_check_big gocryptfs || return 1
	io_why="$(gc_files 3000000) files of $(gc_size 3000000) bytes in the cipher dir"
	[ "$(gc_files 3000000)" = 1 ]
}
gc_big
io_tap $? "gocryptfs as uid 65534: 3 MB written and read back byte for byte (cold cache), one file of its ciphertext's size ($(gc_size 3000000) bytes) in the cipher dir"
gc_par() {
	io_dm dm_check_parallel || return 1
	io_why="$(gc_files 1048576) files of $(gc_size 1048576) bytes in the cipher dir"
	[ "$(gc_files 1048576)" = 1 ]
}
gc_par
io_tap $? "gocryptfs as uid 65534: 4 parallel writers on one file, each its own 256 KiB: every writer's bytes in place (cold cache), one file of its ciphertext's size ($(gc_size 1048576) bytes) in the cipher dir"
# a 64-byte marker, 1024 lines of it written through the mount: read back
# there, found nowhere in the cipher dir. FB_TAKEOVER_RED=io: a copy of the
# plaintext put in the cipher dir (as a leak would), which must be found
marker=fuse-backport/takeover/gocryptfs/plaintext-marker/00000000000001
yes "$marker" | head -n 1024 > "$DM_S/marker"
gc_marker() {
	io_why="not mounted"
	io_up || return 1
	io_why="write"
	as_nobody cp "$DM_S/marker" "$G/m/marker" && fb_drop_caches || return 1
	gm_r=$(as_nobody grep -cF "$marker" "$G/m/marker" 2>&1)
	io_why="read back $gm_r times"
	[ "$gm_r" = 1024 ] || return 1
	[ "$us_break" = model ] && cp "$DM_S/marker" "$G/cipher/leak"
	gm_n=$(grep -rcF -- "$marker" "$G/cipher" | awk -F: '{ n += $NF } END { print n + 0 }')
	rm -f "$G/cipher/leak"
	io_why="found $gm_n times in the cipher dir"
	[ "$gm_n" = 0 ]
}
gc_marker
io_tap $? "gocryptfs: a 64-byte marker written 1024 times as uid 65534 reads back 1024 times through the mount and is found 0 times in the cipher dir (grep -c)"
as_nobody fusermount3 -u "$G/m" > "$S/gc.u" 2>&1
gurc=$?
fb_wait_while 100 pgrep -f "gocryptfs .*$G/cipher" > /dev/null
gdown=$?
# the ciphertext decrypts: a new mount (nothing cached) reads the file back,
# then the I/O checks' files, equal to their models
# shellcheck disable=SC2016 # expanded by the user's shell
as_nobody env HOME="$G" timeout 60 gocryptfs -q -nosyslog -ro -passfile "$G/pass" "$G/cipher" "$G/m" > "$S/gc2.out" 2>&1 &&
	as_nobody sh -c '[ "$(cat "$1/m/f")" = "gocryptfs plaintext" ]' gc "$G"
g2rc=$?
gc_again() {
	io_why="the new mount or its file f (exit $g2rc)"
	[ $g2rc = 0 ] && io_up || return 1
	fb_drop_caches
	for gf in ref:big expect:par marker:marker; do
		io_why="${gf#*:} differs from its model: $(as_nobody cmp "$DM_S/${gf%%:*}" "$G/m/${gf#*:}" 2>&1 | head -n 1)"
		as_nobody cmp -s "$DM_S/${gf%%:*}" "$G/m/${gf#*:}" || return 1
	done
}
gc_again
g3rc=$?
g3why=$io_why
[ $g2rc = 0 ] && { as_nobody fusermount3 -u "$G/m" >> "$S/gc2.out" 2>&1; g2rc=$?; }
tap_check "$([ $gurc = 0 ] && [ $gdown = 0 ] && [ $g2rc = 0 ] && ! fb_mounted "$G/m"; echo $?)" \
	"gocryptfs: fusermount3 -u by uid 65534 unmounts, the daemon exits; a new mount decrypts the file (exit $gurc $(head -n 1 "$S/gc.u"); $g2rc $(head -n 1 "$S/gc2.out"))"
io_why=$g3why
io_tap $g3rc "gocryptfs, after fusermount3 -u, a new read-only mount: the 3 MB file, the parallel writers' file and the marker's equal their models (cold cache)"
# a third mount, read-write: unlink (tests/lib/daemons.sh), the files gone
# through it and their ciphertext gone from the cipher dir
as_nobody env HOME="$G" timeout 60 gocryptfs -q -nosyslog -passfile "$G/pass" "$G/cipher" "$G/m" > "$S/gc3.out" 2>&1
gc_unlink() {
	io_dm dm_check_unlink || return 1
	io_why="still there through the mount"
	! as_nobody test -e "$G/m/big" && ! as_nobody test -e "$G/m/par" || return 1
	io_why="ciphertext left: $(gc_files 3000000) of $(gc_size 3000000) bytes, $(gc_files 1048576) of $(gc_size 1048576) bytes"
	[ "$(gc_files 3000000)" = 0 ] && [ "$(gc_files 1048576)" = 0 ] || return 1
	io_why="fusermount3 -u: $(as_nobody fusermount3 -u "$G/m" 2>&1)"
	! fb_mounted "$G/m" && fb_wait_while 100 pgrep -f "gocryptfs .*$G/cipher" > /dev/null
}
gc_unlink
io_tap $? "gocryptfs, a third mount (read-write): both files unlinked as uid 65534, gone through the mount, their ciphertext gone from the cipher dir; fusermount3 -u, the daemon exits ($(head -n 1 "$S/gc3.out"))"
while fb_mounted "$G/m"; do
	umount -l "$G/m" 2> /dev/null || break
done
us_lap gocryptfs

R=$S/rc
rm -rf "$R"
mkdir -p "$R/src" "$R/m"
: > "$R/rclone.conf"
chown -R 65534:65534 "$R"
rver=$(rclone version 2> /dev/null | head -n 1)
r0=$(refcnt)
# a local path as the remote; rclone in the foreground, as a background job
# (rclone mount's --daemon differs between versions). --vfs-cache-mode
# writes: without it rclone refuses a write that does not truncate or
# seeks (the parallel writers'); it writes a file back to the source after
# its close (--vfs-write-back 0s: at once), so the source is compared
# within 15 s (DM_BK_WAIT)
as_nobody env HOME="$R" rclone mount "$R/src" "$R/m" --config "$R/rclone.conf" --cache-dir "$R/cache" \
	--vfs-cache-mode writes --vfs-write-back 0s > "$S/rc.out" 2>&1 &
rcpid=$!
fb_wait_while 300 not_up "$R/m" "$rcpid"
r1=$(refcnt)
rty=$(fb_fstype "$R/m")
rours=$(ours "$R/m"; echo $?)
rio=1
# shellcheck disable=SC2016 # expanded by the user's shell
[ "$rty" = fuse.rclone ] &&
	as_nobody sh -c 'echo "rclone data" > "$1/m/f" && [ "$(cat "$1/m/f")" = "rclone data" ]' rc "$R" && rio=0
# rc_nof: the source has no file f of that content (yet)
rc_nof() {
	[ "$(cat "$R/src/f" 2> /dev/null)" != "rclone data" ]
}
tap_check "$([ "$rty" = fuse.rclone ] && [ "$rours" = 0 ] && [ "$r1" -gt "$r0" ] && user_opts "$R/m" && [ $rio = 0 ] &&
	fb_wait_while 150 rc_nof && [ "$(stat -c %u "$R/src/f")" = 65534 ]; echo $?)" \
	"${rver:-rclone (not installed)} mount of a local directory as uid 65534 through fusermount3: served by ours (refcount $r0 -> $r1), a file written and read back, the same in the source directory ($(head -n 1 "$S/rc.out"))"
io_up() {
	[ "$(fb_fstype "$R/m")" = fuse.rclone ]
}
DM_S=$R/model DM_M=$R/m dm_bk=$R/src DM_BK_WAIT=150
mkdir -p "$DM_S"
rc_big() {
	io_dm dm_check_big rclone || return 1
	io_why="the source's file is uid $(stat -c %u "$R/src/big")'s"
	[ "$(stat -c %u "$R/src/big")" = 65534 ]
}
rc_big
io_tap $? "rclone as uid 65534: 3 MB written and read back byte for byte (cold cache), the same bytes in the source directory, its file uid 65534's"
io_dm dm_check_parallel
io_tap $? "rclone as uid 65534: 4 parallel writers on one file, each its own 256 KiB: every writer's bytes in place (mount and source directory)"
rc_unlink() {
	io_dm dm_check_unlink || return 1
	io_why="the parallel writers' file still in the source directory"
	fb_wait_while 150 [ -e "$R/src/par" ]
}
rc_unlink
io_tap $? "rclone as uid 65534: both files unlinked, gone from the source directory"
DM_RUNAS="" DM_BREAK="" DM_BK_WAIT=0 DM_S=$S/dm DM_M=$S/dm/m
umask "$us_umask"
as_nobody fusermount3 -u "$R/m" > "$S/rc.u" 2>&1
rurc=$?
fb_wait_while 100 fb_alive "$rcpid"
rdown=$?
wait "$rcpid"
rrc=$?
tap_check "$([ $rurc = 0 ] && [ $rdown = 0 ] && [ $rrc = 0 ] && ! fb_mounted "$R/m"; echo $?)" \
	"rclone: fusermount3 -u by uid 65534 unmounts, rclone exits 0 (exit $rurc $(head -n 1 "$S/rc.u"); rclone $rrc)"
while fb_mounted "$R/m"; do
	umount -l "$R/m" 2> /dev/null || break
done
kill "$rcpid" 2> /dev/null
us_lap rclone

# c. a user namespace of uid 65534's own, as rootless podman runs
# fuse-overlayfs: the mount is made inside it (setuid fusermount3 has no
# power there), so our type must allow user-namespace mounts. The checks
# run inside, where the mount is.
U=$S/us
ovl_dirs "$U"
cat > "$S/us.sh" << 'EOF'
u=$1 ctl=$2 bictl=$3
fuse-overlayfs -o "lowerdir=$u/lower,upperdir=$u/upper,workdir=$u/work" "$u/m" 2> "$u/err" || { echo "mount failed: $(head -n 1 "$u/err")"; exit 1; }
c=$(awk -v m="$u/m" '$5 == m { split($3, d, ":"); print d[1] * 1048576 + d[2] }' /proc/self/mountinfo)
t=$(awk -v m="$u/m" '$5 == m { for (i = 7; i < NF; i++) if ($i == "-") { print $(i + 1); exit } }' /proc/self/mountinfo)
served=none
[ -n "$c" ] && [ -d "$ctl/$c" ] && [ ! -d "$bictl/$c" ] && served=ours
[ -n "$c" ] && [ -d "$bictl/$c" ] && served=built-in
io=no
echo userns > "$u/m/f" && [ "$(cat "$u/m/f")" = userns ] && [ "$(cat "$u/m/low")" = "lower file" ] && io=yes
umount "$u/m"
echo "uid $(id -u) type $t served $served io $io umount $?"
EOF
as_nobody unshare --user --map-root-user --mount sh "$S/us.sh" "$U" "$FB_CTL" "$BICTL" > "$S/us.out" 2>&1
urc=$?
tap_check "$([ $urc = 0 ] && [ "$(tail -n 1 "$S/us.out")" = "uid 0 type fuse.fuse-overlayfs served ours io yes umount 0" ] &&
	[ "$(stat -c %u "$U/upper/f")" = 65534 ] && fb_wait_while 100 pgrep -f "^fuse-overlayfs .*$U/" > /dev/null; echo $?)" \
	"fuse-overlayfs as uid 65534 in a user namespace (unshare --user --map-root-user --mount): served by ours ($(tail -n 1 "$S/us.out"))"

us_lap "the user namespace"

# d. a device cgroup that allows c 10:229 only (cgroup v1 devices)
CG=$S/cg
cgok=0
mkdir -p "$CG"
if mount -t cgroup -o devices fbdevices "$CG" 2> "$S/cg.err" && mkdir "$CG/fb" &&
	echo a > "$CG/fb/devices.deny" && echo 'c 10:229 rwm' > "$CG/fb/devices.allow"; then
	cgok=1
fi
cglist=$(tr '\n' ';' < "$CG/fb/devices.list" 2> /dev/null)
# in_cg CMD...: CMD in that cgroup
cat > "$S/in-cg" << EOF
#!/bin/sh
echo \$\$ > "$CG/fb/cgroup.procs" || exit 1
exec "\$@"
EOF
cat > "$S/cg-fbtestd" << EOF
#!/bin/sh
exec "$S/in-cg" "$FB_DAEMON" "\$@"
EOF
chmod +x "$S/in-cg" "$S/cg-fbtestd"
mkdir -p "$S/cgm"
FB_DAEMON=$S/cg-fbtestd mount_on "$S/cgm" /dev/fuse fuse 2> "$S/cgm.err"
cgpid=$(cat "$S/cgm.pid" 2> /dev/null)
tap_check "$([ $cgok = 1 ] && [ "$cglist" = 'c 10:229 rwm;' ] && grep -q "^[0-9]*:devices:/fb\$" "/proc/$cgpid/cgroup" &&
	ours "$S/cgm" && io "$S/cgm"; echo $?)" \
	"device cgroup allowing only c 10:229 ($cglist): the test daemon mounts on /dev/fuse, served by ours ($(head -n 1 "$S/cg.err")$(head -n 1 "$S/cgm.err"))"
# shellcheck disable=SC2016 # the inner shell's $1
"$S/in-cg" sh -c 'exec 3<> "$1"' cg "/dev/$FB_MODNAME" > "$S/cgbp.err" 2>&1
brc=$?
tap_check "$([ $cgok = 1 ] && [ $brc != 0 ] && grep -q 'Operation not permitted' "$S/cgbp.err" &&
	sh -c 'exec 3<> "$1"' out "/dev/$FB_MODNAME"; echo $?)" \
	"in the same cgroup /dev/$FB_MODNAME ($(stat -c '%t:%T' "/dev/$FB_MODNAME")) cannot be opened: $(cat "$S/cgbp.err") (outside: it can)"
umount_at "$S/cgm"
[ -n "$cgpid" ] && fb_wait_while 100 fb_alive "$cgpid"
rmdir "$CG/fb" 2> /dev/null
umount "$CG" 2> /dev/null

us_lap "the device cgroup"

# d2. a cgroup v2 device program (BPF_PROG_TYPE_CGROUP_DEVICE, attached by
# tests/bin/fbdevcg) that allows only c 10:229, on a cgroup v2 of our own
C2=$S/cg2
bpfok=0
mkdir -p "$C2" "$S/cg2m"
if mount -t cgroup2 fbcgroup2 "$C2" 2> "$S/cg2.err" && mkdir "$C2/fbbpf" &&
	"$FB_TOP/tests/bin/fbdevcg" "$C2/fbbpf" c:10:229 > "$S/cg2.out" 2>> "$S/cg2.err"; then
	bpfok=1
fi
cat > "$S/in-cg2" << EOF
#!/bin/sh
echo \$\$ > "$C2/fbbpf/cgroup.procs" || exit 1
exec "\$@"
EOF
cat > "$S/cg2-fbtestd" << EOF
#!/bin/sh
exec "$S/in-cg2" "$FB_DAEMON" "\$@"
EOF
chmod +x "$S/in-cg2" "$S/cg2-fbtestd"
FB_DAEMON=$S/cg2-fbtestd mount_on "$S/cg2m" /dev/fuse fuse 2> "$S/cg2m.err"
cg2pid=$(cat "$S/cg2m.pid" 2> /dev/null)
tap_check "$([ $bpfok = 1 ] && grep -qx '0::/fbbpf' "/proc/$cg2pid/cgroup" && ours "$S/cg2m" && io "$S/cg2m"; echo $?)" \
	"cgroup v2 device program allowing only c 10:229 ($(cat "$S/cg2.out")): the test daemon mounts on /dev/fuse, served by ours ($(head -n 1 "$S/cg2.err")$(head -n 1 "$S/cg2m.err"))"
# in the cgroup: /dev/fuse opens and is ours (the open takes a reference on
# our module); /dev/fusebp and /dev/zero are refused, and open outside
r0=$(refcnt)
# shellcheck disable=SC2016 # the inner shell's $1
r1=$("$S/in-cg2" sh -c 'exec 3<> /dev/fuse && cat "$1"' cg2 "/sys/module/$FB_MODNAME/refcnt" 2> "$S/cg2f.err")
# shellcheck disable=SC2016 # the inner shell's $1
"$S/in-cg2" sh -c 'exec 3<> "$1"' cg2 "/dev/$FB_MODNAME" > "$S/cg2bp.err" 2>&1
brc=$?
"$S/in-cg2" sh -c 'exec 3< /dev/zero' > "$S/cg2z.err" 2>&1
zrc=$?
# shellcheck disable=SC2016 # the inner shell's $1
tap_check "$([ $bpfok = 1 ] && [ "$r1" = $((r0 + 1)) ] &&
	[ $brc != 0 ] && grep -q 'Operation not permitted' "$S/cg2bp.err" && [ $zrc != 0 ] && grep -q 'Operation not permitted' "$S/cg2z.err" &&
	sh -c 'exec 3<> "$1" 4< /dev/zero' out "/dev/$FB_MODNAME"; echo $?)" \
	"in the same cgroup /dev/fuse opens and is ours (refcount $r0 -> ${r1:-$(head -n 1 "$S/cg2f.err")}); /dev/$FB_MODNAME ($(stat -c '%t:%T' "/dev/$FB_MODNAME")) and /dev/zero are refused: $(cat "$S/cg2bp.err") $(cat "$S/cg2z.err") (outside: they open)"
umount_at "$S/cg2m"
[ -n "$cg2pid" ] && fb_wait_while 100 fb_alive "$cg2pid"
rmdir "$C2/fbbpf" 2> /dev/null
umount "$C2" 2> /dev/null

us_lap "the cgroup v2 device program"

# e. AppArmor (Debian's kernels: the default LSM; apparmor_parser from
# Debian's apparmor package)
aa=$(cat /sys/module/apparmor/parameters/enabled 2> /dev/null)
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security 2> /dev/null
if [ "$aa" != Y ] || [ ! -d /sys/kernel/security/apparmor ] || ! command -v apparmor_parser > /dev/null; then
	tap_check 1 "AppArmor is enabled (is: ${aa:-no apparmor module}) and apparmor_parser is installed (dev/deps.sh test)"
	tap_check 1 "AppArmor: -t fusebp denied under the same profile (not tested)"
else
	cat > "$S/aa.profile" << 'EOF'
profile fb-takeover-fuse flags=(attach_disconnected) {
  file,
  capability,
  network,
  unix,
  signal,
  ptrace,
  mount fstype=fuse.*,
  umount,
}
EOF
	apparmor_parser -r "$S/aa.profile" > "$S/aa.err" 2>&1
	arc=$?
	cat > "$S/aa-fbtestd" << EOF
#!/bin/sh
a=/proc/self/attr/apparmor/exec
[ -e \$a ] || a=/proc/self/attr/exec
echo "exec fb-takeover-fuse" > \$a || exit 1
exec "$FB_DAEMON" "\$@"
EOF
	chmod +x "$S/aa-fbtestd"
	mkdir -p "$S/aam" "$S/aab"
	FB_DAEMON=$S/aa-fbtestd mount_on "$S/aam" /dev/fuse fuse.fbtestd 2> "$S/aam.err"
	aapid=$(cat "$S/aam.pid" 2> /dev/null)
	aacur=$(cat "/proc/$aapid/attr/current" 2> /dev/null)
	tap_check "$([ $arc = 0 ] && [ "$aacur" = "fb-takeover-fuse (enforce)" ] && [ "$(fb_fstype "$S/aam")" = fuse.fbtestd ] &&
		ours "$S/aam" && io "$S/aam"; echo $?)" \
		"AppArmor, a profile whose only mount rule is 'mount fstype=fuse.*': -t fuse.fbtestd mounts under it ($aacur), served by ours ($(head -n 1 "$S/aa.err")$(head -n 1 "$S/aam.err"))"
	umount_at "$S/aam"
	klog_mark aa
	FB_DAEMON=$S/aa-fbtestd mount_on "$S/aab" "/dev/$FB_MODNAME" "$FB_MODNAME.fbtestd" 2> "$S/aab.err"
	brc=$?
	klog_since aa > "$S/klog.aa"
	tap_check "$([ $arc = 0 ] && [ $brc != 0 ] && ! fb_mounted "$S/aab" && grep -q 'Permission denied' "$S/aab.err" &&
		grep -q "apparmor=\"DENIED\" operation=\"mount\".*profile=\"fb-takeover-fuse\".*fstype=\"$FB_MODNAME.fbtestd\"" "$S/klog.aa"; echo $?)" \
		"AppArmor, the same profile: -t $FB_MODNAME.fbtestd is denied ($(head -n 1 "$S/aab.err"))"
	umount_at "$S/aab"
	apparmor_parser -R "$S/aa.profile" > /dev/null 2>&1
fi
us_lap AppArmor
tap_diag "the userspace tests took $(($(date +%s) - us_t0)) s"
if [ "${FB_TAKEOVER_RED:-}" = off ]; then
	setp 1
fi
