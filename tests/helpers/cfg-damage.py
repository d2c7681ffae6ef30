#!/usr/bin/env python3
# cfg-damage.py IN OUT TYPE short|long|far: IN with the payload of its first
# section of TYPE (7 STIME, 8 XTIME: tangram-cfg(5)) a byte shorter, a
# byte longer, or with a first varint far too large, under a checksum that
# matches, written to OUT; the tests see a reader refuse it.
import struct
import sys
import zlib

src, out, want, how = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = open(src, 'rb').read()
p = 12
while p < len(d):
    t, f, st, raw, crc = struct.unpack('<HHQQI', d[p:p + 24])
    if t == want:
        pay = d[p + 24:p + 24 + st]
        pay = zlib.decompress(pay) if f & 1 else pay
        if how == 'short':
            pay = pay[:-1]
        elif how == 'long':
            pay = pay + b'\x00'
        else:
            pay = b'\xff\xff\xff\x7f' + pay[1:]
        z = zlib.compress(pay) if f & 1 else pay
        hdr = struct.pack('<HHQQI', t, f, len(z), len(pay), zlib.crc32(z))
        open(out, 'wb').write(d[:p] + hdr + z + d[p + 24 + st:])
        break
    p += 24 + st
