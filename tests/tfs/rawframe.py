# rawframe.py SERVERFILE < PROGRAM: run PROGRAM (Python, on standard
# input) with a connection to the TCP address the tfs-server's SERVERFILE
# names, its secret, and two helpers, for tests that send the server
# frames no client would (man/tfs-protocol.5):
#   st(b)             a string field: its 16-bit length, then its bytes
#   req(t, body, i)   request type t with body, id i; the reply's status
import socket
import struct
import sys

fields = dict(line.split(None, 1) for line in open(sys.argv[1]) if " " in line.strip())
host, port = fields["address"].strip()[4:].rsplit(":", 1)
sec = bytes.fromhex(fields["secret"].strip())
s = socket.create_connection((host, int(port)), timeout=5)


def st(b):
    return struct.pack("<H", len(b)) + b


def req(t, body, i):
    s.sendall(struct.pack("<IBBHIiQ", 0x53465495, 3, 0, t, len(body), 0, i) + sec + body)
    h = b""
    while len(h) < 40:
        h += s.recv(40 - len(h))
    n, status = struct.unpack("<IBBHIiQ", h[:24])[4:6]
    while n:
        n -= len(s.recv(n))
    return status


exec(sys.stdin.read())
