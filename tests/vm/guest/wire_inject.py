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
# wire_inject.py --qp1 IFACE DST_IPV4 N: the same capture, then N datagrams
# to QP1 (UD SEND only, DETH from QP1) of each kind, on the captured frame's
# Ethernet/IP/UDP headers:
#   qp1_oversized  a 320-byte payload (a MAD is 256), keys right -> malformed
#   qp1_bad_pkey   BTH P_Key 0x1234, not in the port's table     -> bad P_Key
#   qp1_bad_qkey   DETH Q_Key 0x12345678, not QP1's 0x80010000   -> bad Q_Key
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


QP1_QKEY = 0x80010000
UD_SEND_ONLY = 0x64


def qp1_datagram(f, pkey, qkey, payload):
    # The captured frame's Ethernet, IPv4 and UDP headers; BTH to QPN 1,
    # DETH from QPN 1, the payload zeroed; lengths, IP checksum and ICRC.
    bth = struct.pack('!BBHI', UD_SEND_ONLY, 0, pkey, 1) + struct.pack('!I', 0x000123)
    deth = struct.pack('!II', qkey, 1)
    x = bytearray(f[:42]) + bth + deth + bytearray(payload) + bytearray(4)
    struct.pack_into('!H', x, 16, len(x) - 14)
    x[24:26] = b'\x00\x00'
    struct.pack_into('!H', x, 24, ip_checksum(x[14:34]))
    struct.pack_into('!H', x, 38, len(x) - 34)
    x[40:42] = b'\x00\x00'
    x[-4:] = icrc(x)
    return x


def qp1_variants(f):
    return {
        'qp1_oversized': qp1_datagram(f, 0xffff, QP1_QKEY, 320),
        'qp1_bad_pkey': qp1_datagram(f, 0x1234, QP1_QKEY, 256),
        'qp1_bad_qkey': qp1_datagram(f, 0xffff, 0x12345678, 256),
    }


def main():
    args = sys.argv[1:]
    qp1 = args[0] == '--qp1'
    if qp1:
        args = args[1:]
    iface, dst, n = args[0], socket.inet_aton(args[1]), int(args[2])
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    s.bind((iface, 0))
    s.settimeout(1.0)
    print('listening', flush=True)
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
        print('no RoCEv2 frame to %s seen' % args[1])
        return 1
    end = 14 + struct.unpack('!H', frame[16:18])[0]
    if icrc(frame[:end]) != bytes(frame[end - 4:end]):
        print('captured frame: its ICRC is not the one Annex A17 gives')
        return 1
    print('captured frame: ICRC matches Annex A17')
    kinds = qp1_variants(frame[:end]) if qp1 else variants(frame)
    for kind, f in kinds.items():
        for _ in range(n):
            s.send(bytes(f))
            time.sleep(0.002)
        print('sent %s %d' % (kind, n))
    return 0


sys.exit(main())
