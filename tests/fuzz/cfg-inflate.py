#!/usr/bin/env python3
# cfg-inflate.py IN OUT - the compressed trace IN with every zlib section
# stored inflated (flags 0, CRC recomputed): a seed whose bytes a fuzzer's
# mutations reach the section parsers through (tangram-cfg(5)).
import struct, sys, zlib

b = open(sys.argv[1], "rb").read()
out, pos = bytearray(b[:12]), 12
while pos + 24 <= len(b):
    typ, flags, stored, raw, crc = struct.unpack_from("<HHQQI", b, pos)
    body = b[pos + 24:pos + 24 + stored]
    if flags & 1:
        body, flags = zlib.decompress(body), flags & ~1
    out += struct.pack("<HHQQI", typ, flags, len(body), len(body), zlib.crc32(body)) + body
    pos += 24 + stored
open(sys.argv[2], "wb").write(out)
