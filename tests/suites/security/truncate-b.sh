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
# Always exits 0: the suite judges. The polls use shell builtins where they
# can: an exec costs a fraction of a second in a TCG guest.
#
# usage: truncate-b.sh DIR FILE DAEMON-PID SUID-FILE
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
setpriv --reuid=65534 --regid=65534 --clear-groups truncate -s 0 "$f" &
t=$!
up t_truncate
# where the truncate sleeps: its state, and the first frame of its kernel
# stack (the scheduler's frames, down_write()'s too, are not shown: then
# do_truncate(), which sleeps there only in inode_lock())
look() {
	st="" top=""
	{ read -r l < "/proc/$t/stat"; } 2> /dev/null && st=${l##*) } && st=${st%% *}
	{ read -r l < "/proc/$t/stack"; } 2> /dev/null && top=${l#*] } && top=${top%%+*}
	[ "$st" = D ] && case $top in
	do_truncate | down_write | rwsem_down_write_slowpath) true ;;
	*) false ;;
	esac
}
# start-up over the guest's 9p root under TCG can take seconds, so up to
# 40 s; A stays stalled until DIR/release is made
i=0 end=$(($(now) + 40))
look
echo "first=$st/$top" >> "$d/b.out"
while ! look && [ "$(now)" -lt $end ]; do
	sleep 0.1
	i=$((i + 1))
done
up t_waiting
sleep 1
look
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
up t_end
exit 0
