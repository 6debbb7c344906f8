#!/usr/bin/python3
# roce_sniff.py IFACE OUT: writes every RoCEv2 frame (UDP to port 4791 over
# IPv4 or IPv6) seen on IFACE, in either direction, to OUT, one hex line
# per frame, until SIGTERM. Test vectors for the host's ICRC checks: the
# frames as rxe put them on the wire.
import signal
import socket
import sys

ETH_P_ALL = 0x0003
iface, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
s.bind((iface, 0))
stop = False


def on_term(signum, frame):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
s.settimeout(0.2)


def is_roce(f):
    et = int.from_bytes(f[12:14], 'big')
    if et == 0x0800 and len(f) >= 14 + 20 + 8 and f[14 + 9] == 17:
        ihl = (f[14] & 0xf) * 4
        return int.from_bytes(f[14 + ihl + 2:14 + ihl + 4], 'big') == 4791
    if et == 0x86dd and len(f) >= 14 + 40 + 8 and f[14 + 6] == 17:
        return int.from_bytes(f[14 + 40 + 2:14 + 40 + 4], 'big') == 4791
    return False


with open(out, 'w') as o:
    while not stop:
        try:
            f = s.recv(65536)
        except socket.timeout:
            continue
        except InterruptedError:
            continue
        if is_roce(f):
            o.write(f.hex() + '\n')
            o.flush()
