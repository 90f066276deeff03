#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Parallel appenders, checked against their own model.

usage: appenders.py oappend|rwf FILE CHECKFILE... [--direct]

NPROC processes (4) start together and each appends NREC records of RECSZ
bytes to FILE: with O_APPEND (oappend) or with pwritev2(RWF_APPEND) on a
file opened without it (rwf); with --direct, O_DIRECT and 4 KiB records
from page-aligned buffers. An append must never share the file's size with
another (the series keeps appends exclusive), so afterwards every CHECKFILE
(the file through the mount, the backing file read directly) must hold
exactly the NPROC * NREC records, each whole (no overlap, no tear), each
(writer, sequence) once, and each writer's records in its own order.
Prints one line of evidence; exit 0 when all holds, 1 otherwise, 2 on a
usage or setup error.
"""
import mmap
import os
import sys

NPROC = 4
NREC = 400


def record(who, seq, size):
    head = b"%02d:%06d:" % (who, seq)
    return head + bytes([ord("a") + who]) * (size - len(head) - 1) + b"\n"


def writer(how, path, who, size, direct, go):
    flags = os.O_WRONLY | (os.O_DIRECT if direct else 0)
    if how == "oappend":
        flags |= os.O_APPEND
    fd = os.open(path, flags)
    buf = mmap.mmap(-1, size)
    os.read(go, 1)
    for seq in range(NREC):
        buf.seek(0)
        buf.write(record(who, seq, size))
        if how == "oappend":
            n = os.write(fd, buf)
        else:
            n = os.pwritev(fd, [buf], 0, os.RWF_APPEND)
        if n != size:
            sys.stderr.write("writer %d: short write %d of %d\n" % (who, n, size))
            os._exit(1)
    os.close(fd)
    os._exit(0)


def check(path, size):
    with open(path, "rb") as f:
        data = f.read()
    want = NPROC * NREC * size
    if len(data) != want:
        return "%s: %d bytes, want %d" % (path, len(data), want)
    last = [-1] * NPROC
    seen = set()
    for off in range(0, len(data), size):
        rec = data[off:off + size]
        try:
            who, seq = int(rec[0:2]), int(rec[3:9])
        except ValueError:
            return "%s: a torn record at %d" % (path, off)
        if who >= NPROC or rec != record(who, seq, size):
            return "%s: a torn or overlapped record at %d" % (path, off)
        if (who, seq) in seen or seq <= last[who]:
            return "%s: writer %d's record %d out of order or twice at %d" % (path, who, seq, off)
        seen.add((who, seq))
        last[who] = seq
    return None


def main():
    args = [a for a in sys.argv[1:] if a != "--direct"]
    direct = "--direct" in sys.argv[1:]
    if len(args) < 3 or args[0] not in ("oappend", "rwf"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    how, path, checks = args[0], args[1], args[2:]
    size = 4096 if direct else 100
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644))
    except OSError as e:
        sys.stderr.write("appenders: %s: %s\n" % (path, e))
        return 2
    rd, wr = os.pipe()
    pids = []
    for who in range(NPROC):
        pid = os.fork()
        if pid == 0:
            os.close(wr)
            try:
                writer(how, path, who, size, direct, rd)
            except OSError as e:
                sys.stderr.write("writer %d: %s\n" % (who, e))
                os._exit(1)
        pids.append(pid)
    os.close(rd)
    os.write(wr, b"g" * NPROC)
    os.close(wr)
    failed = [p for p in pids if os.waitpid(p, 0)[1] != 0]
    if failed:
        print("%d of %d writers failed" % (len(failed), NPROC))
        return 1
    for c in checks:
        why = check(c, size)
        if why:
            print(why)
            return 1
    print("%d writers x %d records of %d bytes, whole and in order in %s"
          % (NPROC, NREC, size, " and ".join(checks)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
