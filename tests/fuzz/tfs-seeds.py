#!/usr/bin/env python3
# tfs-seeds.py DIR - seed frames for fuzz-tfsproto: a header (tfs-protocol(5))
# and a body for a few requests; the request id spells the order of the
# body's fields for the harness (two bits each: 0 u32, 1 u64, 2 path).
import os, re, struct, sys

# the protocol's version, as tfs/proto.h defines it
VERSION = int(re.search(r"#define TFS_VERSION\s+(\d+)",
                        open(os.path.join(os.path.dirname(__file__), "../../tfs/proto.h")).read()).group(1))

def frame(mtype, fields, flags=0):
    body, ops = b"", 0
    for k, (kind, v) in enumerate(fields):
        if kind == "u32":
            body += struct.pack("<I", v)
        elif kind == "u64":
            body += struct.pack("<Q", v); ops |= 1 << (2 * k)
        else:
            body += struct.pack("<H", len(v)) + v; ops |= 2 << (2 * k)
    hdr = struct.pack("<IBBHIiQ", 0x53465495, VERSION, flags, mtype, len(body), 0, ops) + bytes(range(16))
    return hdr + body

d = sys.argv[1]
os.makedirs(d, exist_ok=True)
seeds = {
    "hello": frame(1, [("u32", 0), ("u32", 1234), ("str", b"unix:/tmp/c.sock")]),
    "open": frame(2, [("u32", 1), ("u64", 0), ("str", b"/a/./b//c")]),
    "dotdot": frame(9, [("str", b"a/../../etc/passwd")]),
    "attach": frame(3, [("u64", 1), ("u32", 2), ("u64", 0), ("u64", 4096), ("u64", 8192), ("u64", 100)]),
    "reply": frame(6, [("u64", 7), ("u32", 0)], flags=1),
}
for name, b in seeds.items():
    with open(os.path.join(d, name), "wb") as f:
        f.write(b)
