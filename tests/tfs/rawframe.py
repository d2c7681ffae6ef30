# rawframe.py ADDRESS SECRET < PROGRAM: run PROGRAM (Python, on standard
# input) with a connection to a tfs-server's TCP ADDRESS and two helpers,
# for tests that send the server frames no client would
# (man/tfs-protocol.5):
#   st(b)             a string field: its 16-bit length, then its bytes
#   req(t, body, i)   request type t with body, id i; the reply's status
import socket
import struct
import sys

host, port = sys.argv[1][4:].rsplit(":", 1)
sec = bytes.fromhex(sys.argv[2])
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
