#!/usr/bin/env python3
# frame.py ADDR SECRET TYPE [BODY-HEX] [LEN]: send one tfs-protocol(5)
# request to tcp:HOST:PORT and print the reply's status, or "closed".
# SECRET is 32 hex digits ("bad" sends zeros); LEN overrides the length
# field; "garbage" as TYPE sends 64 random bytes instead.  FRAME_VERSION
# sets the header's version (default 3, the protocol's).
import os, socket, struct, sys

addr, secret, typ = sys.argv[1], sys.argv[2], sys.argv[3]
body = bytes.fromhex(sys.argv[4]) if len(sys.argv) > 4 else b""
host, port = addr[4:].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=5)
if typ == "garbage":
    s.sendall(os.urandom(64))
else:
    sec = bytes(16) if secret == "bad" else bytes.fromhex(secret)
    n = int(sys.argv[5]) if len(sys.argv) > 5 else len(body)
    s.sendall(struct.pack("<IBBHIiQ", 0x53465495, int(os.environ.get("FRAME_VERSION", "3")), 0, int(typ), n, 0, 1) + sec + body)
try:
    h = s.recv(40)
except socket.timeout:
    print("timeout")
    sys.exit(0)
if len(h) < 40:
    print("closed")
else:
    print("status", struct.unpack("<IBBHIiQ", h[:24])[5])
