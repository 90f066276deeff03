#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Writer B of the security suite's section 10d (tests/suites/security/mixed.sh),
# beside tests/parallel/uffd_pwrite (FB_UFFD_CMD=external) while root's O_DIRECT
# passthrough write A is stalled in its copy: fbtestd starts showing suid
# (SUID-FILE made: --fake-suid, in its replies only, the backing file and
# its lock are left alone), the kernel is told (SIGUSR2: NOTIFY_INVAL_INODE)
# and sees it (a stat shows 4777), then uid 65534 truncates the file. What
# happened goes to DIR/b.out as KEY=VALUE lines: seen (the mode the stat
# showed), first (the truncate's state and top frame when first looked
# at), polls, state, top, stack (a second after it was seen waiting in
# do_truncate()), setattr (its SETATTRs that had reached the daemon by
# then), trc (the truncate's exit), t_* (uptime at each step). Then it
# makes DIR/release, on which uffd_pwrite releases A (FB_UFFD_RELEASE_ON).
# With ROOT-SIZE (section 10e), root truncates the file to ROOT-SIZE first,
# once suid is seen, and uid 65534's truncate starts only once root's
# sleeps in do_truncate() on the inode lock, so that root's takes the lock
# first when A is released: rstate, rtop (root's truncate then), rtrc (its
# exit).
# Always exits 0: the suite judges. The polls use shell builtins where they
# can: an exec costs a fraction of a second in a TCG guest.
#
# usage: truncate-b.sh DIR FILE DAEMON-PID SUID-FILE [ROOT-SIZE]
# Started before uffd_pwrite (FB_UFFD_CMD=external), so that it never has
# A's file open: it waits for DIR/stalled (A blocked), up to 60 s.
d=$1 f=$2 pid=$3
up() { read -r u _ < /proc/uptime && echo "$1=$u" >> "$d/b.out"; }
# uptime in whole seconds
now() { read -r u _ < /proc/uptime && echo "${u%.*}"; }
: > "$d/b.out"
end=$(($(now) + 60))
while [ ! -e "$d/stalled" ] && [ "$(now)" -lt $end ]; do
	sleep 0.1
done
up t_start
if [ ! -e "$d/stalled" ]; then
	echo "seen=(A never stalled)" >> "$d/b.out"
	: > "$d/release"
	exit 0
fi
: > "$4"
kill -USR2 "$pid"
i=0
m=$(stat -c %a "$f")
while [ "$m" != 4777 ] && [ $i -lt 30 ]; do
	sleep 0.1
	m=$(stat -c %a "$f")
	i=$((i + 1))
done
echo "seen=$m" >> "$d/b.out"
up t_seen
# look PID: where the truncate PID sleeps: its state, and the first frame of
# its kernel stack (the scheduler's frames, down_write()'s too, are not
# shown: then do_truncate(), which sleeps there only in inode_lock())
look() {
	st="" top=""
	{ read -r l < "/proc/$1/stat"; } 2> /dev/null && st=${l##*) } && st=${st%% *}
	{ read -r l < "/proc/$1/stack"; } 2> /dev/null && top=${l#*] } && top=${top%%+*}
	[ "$st" = D ] && case $top in
	do_truncate | down_write | rwsem_down_write_slowpath) true ;;
	*) false ;;
	esac
}
# wait_lock PID: until PID sleeps on the inode lock; start-up over the
# guest's 9p root under TCG can take seconds, so up to 40 s (A stays
# stalled until DIR/release is made); i: the polls
wait_lock() {
	i=0 end=$(($(now) + 40))
	while ! look "$1" && [ "$(now)" -lt $end ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
if [ -n "${5:-}" ]; then
	truncate -s "$5" "$f" &
	r=$!
	wait_lock $r
	echo "rstate=$st" >> "$d/b.out"
	echo "rtop=$top" >> "$d/b.out"
	up t_root_waiting
fi
setpriv --reuid=65534 --regid=65534 --clear-groups truncate -s 0 "$f" &
t=$!
up t_truncate
look $t
echo "first=$st/$top" >> "$d/b.out"
wait_lock $t
up t_waiting
sleep 1
look $t
stack=$(sed 's/^\[<[0-9a-f]*>\] //; s/+.*//' "/proc/$t/stack" 2> /dev/null | tr '\n' ' ')
n=$(grep -c '^SETATTR .* uid=65534 ' "$d/daemon.log")
{
	echo "polls=$i"
	echo "state=$st"
	echo "top=$top"
	echo "stack=$stack"
	echo "setattr=$n"
} >> "$d/b.out"
up t_looked
# uffd_pwrite releases A now (FB_UFFD_RELEASE_ON)
: > "$d/release"
wait $t
echo "trc=$?" >> "$d/b.out"
if [ -n "${5:-}" ]; then
	wait "$r"
	echo "rtrc=$?" >> "$d/b.out"
fi
up t_end
exit 0
