#!/usr/bin/env python3
# sread.py STEP... - plain POSIX reads and writes, one step per argument,
# for the TangramFS tests of what a reader sees (run under
# libtfs-posix.so).  A read prints its bytes run-length encoded, "A*512
# B*512" (a NUL as 0), so that a test can say which writer's bytes it got.
#   open:FD:PATH:MODE     MODE r, rw, w (create), wt (create, truncate)
#   write:FD:OFF:CHAR:LEN LEN bytes CHAR at OFF
#   read:FD:OFF:LEN       prints "read OFF: RUNS"
#   stride:FD:CHAR:LEN:N  N runs of LEN CHARs, at 0, 2 LEN, 4 LEN...
#   reads:FD:SIZE:COUNT   COUNT reads of SIZE from 0 on, prints "reads: RUNS"
#   dup:NEW:FD  close:FD  fsync:FD
#   ftrunc:FD:LEN         ftruncate
#   lock:FD:w|r|u:OFF:LEN fcntl record lock (F_SETLKW) of [OFF, OFF+LEN)
#   rmw:FD:OFF:LEN:CHAR:N read [OFF, OFF+LEN), prints "rmw OFF: RUNS", puts
#                         N CHARs at its start and writes it all back
#   touch:FILE            make FILE (outside the mount), to say a step is done
#   wait:FILE             wait up to 30 s for FILE
import fcntl
import os
import sys
import time

MODES = {"r": os.O_RDONLY, "rw": os.O_RDWR | os.O_CREAT, "w": os.O_WRONLY | os.O_CREAT,
         "wt": os.O_WRONLY | os.O_CREAT | os.O_TRUNC}


def runs(b):
    out = []
    i = 0
    while i < len(b):
        j = i
        while j < len(b) and b[j] == b[i]:
            j += 1
        out.append("%s*%d" % ("0" if b[i] == 0 else chr(b[i]), j - i))
        i = j
    return " ".join(out) or "(none)"


def main():
    fds = {}
    for step in sys.argv[1:]:
        a = step.split(":")
        if a[0] == "open":
            fds[a[1]] = os.open(a[2], MODES[a[3]], 0o644)
        elif a[0] == "write":
            n = os.pwrite(fds[a[1]], a[3].encode() * int(a[4]), int(a[2]))
            if n != int(a[4]):
                sys.exit("sread: short write %d" % n)
        elif a[0] == "stride":
            for k in range(int(a[4])):
                os.pwrite(fds[a[1]], a[2].encode() * int(a[3]), 2 * k * int(a[3]))
        elif a[0] == "read":
            print("read %s: %s" % (a[2], runs(os.pread(fds[a[1]], int(a[3]), int(a[2])))))
        elif a[0] == "reads":
            size, b = int(a[2]), bytearray()
            for k in range(int(a[3])):
                b += os.pread(fds[a[1]], size, k * size)
            print("reads: " + runs(bytes(b)))
        elif a[0] == "dup":
            fds[a[1]] = os.dup(fds[a[2]])
        elif a[0] == "close":
            os.close(fds.pop(a[1]))
        elif a[0] == "ftrunc":
            os.ftruncate(fds[a[1]], int(a[2]))
        elif a[0] == "lock":
            how = {"w": fcntl.LOCK_EX, "r": fcntl.LOCK_SH, "u": fcntl.LOCK_UN}[a[2]]
            fcntl.lockf(fds[a[1]], how, int(a[4]), int(a[3]))
        elif a[0] == "rmw":
            b = bytearray(os.pread(fds[a[1]], int(a[3]), int(a[2])))
            print("rmw %s: %s" % (a[2], runs(bytes(b))))
            b[0:int(a[5])] = a[4].encode() * int(a[5])
            if os.pwrite(fds[a[1]], bytes(b), int(a[2])) != len(b):
                sys.exit("sread: short write")
        elif a[0] == "fsync":
            os.fsync(fds[a[1]])
        elif a[0] == "touch":
            open(a[1], "w").close()
        elif a[0] == "wait":
            for _ in range(600):
                if os.path.exists(a[1]):
                    break
                time.sleep(0.05)
            else:
                sys.exit("sread: %s did not appear" % a[1])
        else:
            sys.exit("sread: unknown step '%s'" % step)
        sys.stdout.flush()


main()
