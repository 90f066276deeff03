#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Writers that log what was acknowledged, for the fault tests: faults
during the code the series changes.

usage: ackwriter.py write FILE ACKDIR SECONDS [--direct|--fsync]
       ackwriter.py check FILE ACKDIR

write: NPROC (4) processes each overwrite their own 4 MiB region of FILE (a
file that size * NPROC already; so non-extending) with 4 KiB records, one
after the other, for SECONDS at most, and stop at the first error. A
record counts as acknowledged once its pwrite returned in full (--direct:
O_DIRECT, page-aligned buffers; --fsync: after the fsync that follows it):
its number goes to ACKDIR/W, line by line, unbuffered, outside the mount.
The first error goes to ACKDIR/W.err. Once GO (5) records of writer W are
acknowledged, the empty file ACKDIR/W.go appears: the test injects its
fault when all four are under way. Exit 0.

check: every record that ACKDIR says was acknowledged is in FILE (read
directly, without the mount) at its place. Prints one line; exit 0 when all
are, 1 when one is not, 2 on a usage error.
"""
import mmap
import os
import sys
import time

NPROC = 4
REGION = 4 << 20
REC = 4096
GO = 5


def record(who, seq):
    head = b"ack %d %06d " % (who, seq)
    return head + bytes([ord("A") + who]) * (REC - len(head) - 1) + b"\n"


def writer(path, ackdir, who, secs, direct, sync):
    flags = os.O_WRONLY | (os.O_DIRECT if direct else 0)
    ack = os.open(os.path.join(ackdir, str(who)), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    buf = mmap.mmap(-1, REC)
    end = time.monotonic() + secs
    try:
        fd = os.open(path, flags)
        seq = 0
        while time.monotonic() < end and (seq + 1) * REC <= REGION:
            buf.seek(0)
            buf.write(record(who, seq))
            if os.pwrite(fd, buf, who * REGION + seq * REC) != REC:
                raise OSError(0, "short write")
            if sync:
                os.fsync(fd)
            os.write(ack, b"%d\n" % seq)
            seq += 1
            if seq == GO:
                os.close(os.open(os.path.join(ackdir, "%d.go" % who), os.O_WRONLY | os.O_CREAT, 0o644))
    except OSError as e:
        with open(os.path.join(ackdir, "%d.err" % who), "w") as f:
            f.write("%s\n" % (e.strerror or e))
    os._exit(0)


def write(path, ackdir, secs, opt):
    os.makedirs(ackdir, exist_ok=True)
    pids = []
    for who in range(NPROC):
        pid = os.fork()
        if pid == 0:
            writer(path, ackdir, who, secs, opt == "--direct", opt == "--fsync")
        pids.append(pid)
    for p in pids:
        os.waitpid(p, 0)
    return 0


def check(path, ackdir):
    n = 0
    errs = []
    with open(path, "rb") as f:
        for who in range(NPROC):
            try:
                acked = open(os.path.join(ackdir, str(who))).read().split()
            except OSError:
                acked = []
            for s in acked:
                seq = int(s)
                f.seek(who * REGION + seq * REC)
                if f.read(REC) != record(who, seq):
                    print("writer %d's acknowledged record %d is not in %s" % (who, seq, path))
                    return 1
                n += 1
            try:
                errs.append(open(os.path.join(ackdir, "%d.err" % who)).read().strip())
            except OSError:
                pass
    if n == 0:
        print("no write was acknowledged")
        return 1
    print("%d acknowledged records all in %s; writers' errors: %s"
          % (n, path, "; ".join(sorted(set(errs))) or "none"))
    return 0


def main():
    a = sys.argv[1:]
    if len(a) >= 4 and a[0] == "write":
        return write(a[1], a[2], float(a[3]), a[4] if len(a) > 4 else "")
    if len(a) == 3 and a[0] == "check":
        return check(a[1], a[2])
    sys.stderr.write("usage: ackwriter.py write FILE ACKDIR SECONDS [--direct|--fsync] | check FILE ACKDIR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main())
