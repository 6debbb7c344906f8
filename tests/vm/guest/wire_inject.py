#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# wire_inject.py IFACE DST_IPV4 N: waits (up to 60 s) for a RoCEv2 frame
# this host sends on IFACE to DST_IPV4, then sends N malformed copies of it
# of each kind to the same destination, and prints one line per kind:
# "sent KIND N". The kinds, and what the receiver must make of them:
#   bad_icrc     the ICRC's last byte flipped                 -> bad ICRC
#   bad_ip_csum  the IPv4 header checksum flipped             -> bad IP
#   truncated    the last 10 bytes cut (IP length past them)  -> bad IP
#   bad_udp_len  UDP length 12, below BTH and ICRC            -> bad UDP
#   unknown_qpn  BTH destination QP 0xfffffe, ICRC resealed   -> no such QP
#   wrong_pkey   BTH P_Key 0x1234, ICRC resealed              -> bad P_Key
#   bad_opcode   BTH opcode 0x1f (reserved), ICRC resealed    -> malformed
#   oversized    100 bytes more payload than the 1024-byte path MTU,
#                lengths and ICRC right                       -> malformed
# The ICRC is computed here from IBTA Annex A17's rule with zlib, nothing of
# softcx's.
import socket
import struct
import sys
import time
import zlib

ETH_P_ALL = 0x0003
PACKET_OUTGOING = 4
ROCE_PORT = 4791


def ip_checksum(h):
    s = sum(struct.unpack('!10H', bytes(h[:20])))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def icrc(f):
    # Masked: IPv4 TOS, TTL, checksum; UDP checksum; BTH byte 4 (resv8a).
    ip = bytearray(f[14:34])
    ip[1] = 0xff
    ip[8] = 0xff
    ip[10:12] = b'\xff\xff'
    udp = bytearray(f[34:42])
    udp[6:8] = b'\xff\xff'
    bth = bytearray(f[42:54])
    bth[4] = 0xff
    data = b'\xff' * 8 + bytes(ip) + bytes(udp) + bytes(bth) + bytes(f[54:-4])
    return struct.pack('<I', zlib.crc32(data) & 0xffffffff)


def is_roce_to(f, dst):
    return (len(f) >= 58 and f[12:14] == b'\x08\x00' and f[14] == 0x45 and f[23] == 17 and
            f[30:34] == dst and struct.unpack('!H', f[36:38])[0] == ROCE_PORT)


def variants(f):
    # The frame as sent, without Ethernet padding after the IP datagram.
    f = bytearray(f[:14 + struct.unpack('!H', f[16:18])[0]])
    v = {}
    x = bytearray(f)
    x[-1] ^= 0x01
    v['bad_icrc'] = x
    x = bytearray(f)
    x[24] ^= 0xff
    v['bad_ip_csum'] = x
    v['truncated'] = bytearray(f[:-10])
    x = bytearray(f)
    x[38:40] = struct.pack('!H', 12)
    v['bad_udp_len'] = x
    x = bytearray(f)
    x[47:50] = b'\xff\xff\xfe'
    x[-4:] = icrc(x)
    v['unknown_qpn'] = x
    x = bytearray(f)
    x[44:46] = b'\x12\x34'
    x[-4:] = icrc(x)
    v['wrong_pkey'] = x
    x = bytearray(f)
    x[42] = 0x1f
    x[-4:] = icrc(x)
    v['bad_opcode'] = x
    v['oversized'] = oversized(f)
    return v


def oversized(f):
    # The payload grown past 1024 bytes (pad bits in the BTH kept 0: the
    # growth keeps a multiple of 4), IP and UDP lengths and checksum, ICRC.
    pad = (f[43] >> 4) & 3
    payload = len(f) - 14 - 20 - 8 - 12 - 4 - pad
    grow = (1024 + 100 - payload + 3) & ~3
    x = bytearray(f[:-4]) + bytearray(grow) + bytearray(4)
    struct.pack_into('!H', x, 16, struct.unpack('!H', f[16:18])[0] + grow)
    x[24:26] = b'\x00\x00'
    struct.pack_into('!H', x, 24, ip_checksum(x[14:34]))
    struct.pack_into('!H', x, 38, struct.unpack('!H', f[38:40])[0] + grow)
    x[-4:] = icrc(x)
    return x


def main():
    iface, dst, n = sys.argv[1], socket.inet_aton(sys.argv[2]), int(sys.argv[3])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(1.0)
    deadline = time.time() + 60
    frame = None
    while frame is None and time.time() < deadline:
        try:
            f, addr = s.recvfrom(65535)
        except socket.timeout:
            continue
        if addr[2] == PACKET_OUTGOING and is_roce_to(f, dst):
            frame = f
    if frame is None:
        print('no RoCEv2 frame to %s seen' % sys.argv[2])
        return 1
    end = 14 + struct.unpack('!H', frame[16:18])[0]
    if icrc(frame[:end]) != bytes(frame[end - 4:end]):
        print('captured frame: its ICRC is not the one Annex A17 gives')
        return 1
    print('captured frame: ICRC matches Annex A17')
    for kind, f in variants(frame).items():
        for _ in range(n):
            s.send(bytes(f))
            time.sleep(0.002)
        print('sent %s %d' % (kind, n))
    return 0


sys.exit(main())
