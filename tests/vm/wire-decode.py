#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# wire-decode.py RESULTS_LOG PCAP: the FRAME lines a guest captured
# (wire-pair.sh, guest a: every RoCEv2 frame either way on its eth0), judged
# on the host. Writes them to PCAP, then prints RESULT lines:
#   wire_icrc    every frame's ICRC recomputed here (IBTA Annex A17 with
#                zlib, IPv4 and IPv6) equals the one on the wire;
#   wire_tshark  tshark decodes every frame as InfiniBand over UDP 4791,
#                none malformed, no error-level expert note (but the zero
#                UDP checksum over IPv6 RoCEv2 allows), each with a BTH
#                opcode;
#   wire_opcodes the opcodes of every kind the exchanges use were seen:
#                SEND first/middle/last, RDMA WRITE first/middle/last,
#                READ request and response first/middle/last, ACK,
#                FETCH_ADD and its atomic ACK, UD SEND only.
# Exit status 0 when all pass.
import struct
import subprocess
import sys
import zlib


def icrc_ok(f):
    et = f[12:14]
    if et == b'\x08\x00':
        ihl = (f[14] & 0xf) * 4
        ip = bytearray(f[14:14 + ihl])
        ip[1] = 0xff          # TOS
        ip[8] = 0xff          # TTL
        ip[10:12] = b'\xff\xff'  # header checksum
        end = 14 + struct.unpack('!H', f[16:18])[0]
    elif et == b'\x86\xdd':
        ihl = 40
        ip = bytearray(f[14:54])
        ip[0] |= 0x0f         # traffic class (low half) ...
        ip[1] = 0xff          # ... and flow label
        ip[2:4] = b'\xff\xff'
        ip[7] = 0xff          # hop limit
        end = 54 + struct.unpack('!H', f[18:20])[0]
    else:
        return False
    udp = bytearray(f[14 + ihl:14 + ihl + 8])
    udp[6:8] = b'\xff\xff'
    bth = bytearray(f[14 + ihl + 8:14 + ihl + 20])
    bth[4] = 0xff
    data = b'\xff' * 8 + bytes(ip) + bytes(udp) + bytes(bth) + bytes(f[14 + ihl + 20:end - 4])
    return struct.pack('<I', zlib.crc32(data) & 0xffffffff) == bytes(f[end - 4:end])


def write_pcap(path, frames):
    with open(path, 'wb') as o:
        o.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, f in enumerate(frames):
            o.write(struct.pack('<IIII', i, 0, len(f), len(f)))
            o.write(f)


# Opcode names as Wireshark's InfiniBand dissector gives them, by value.
WANT = {
    0x00: 'RC SEND first', 0x01: 'RC SEND middle', 0x02: 'RC SEND last',
    0x06: 'RC WRITE first', 0x07: 'RC WRITE middle', 0x08: 'RC WRITE last',
    0x0c: 'RC READ request', 0x0d: 'RC READ response first',
    0x0e: 'RC READ response middle', 0x0f: 'RC READ response last',
    0x11: 'RC ACK', 0x12: 'RC atomic ACK', 0x14: 'RC FETCH_ADD',
    0x64: 'UD SEND only',
}


def main():
    log, pcap = sys.argv[1], sys.argv[2]
    frames = []
    for line in open(log, errors='replace'):
        line = line.strip()
        if line.startswith('FRAME '):
            frames.append(bytes.fromhex(line.split()[1]))
    ok = True
    bad = [i for i, f in enumerate(frames) if not icrc_ok(f)]
    if frames and not bad:
        print('RESULT wire_icrc PASS %d frames, every ICRC as Annex A17 gives it' % len(frames))
    else:
        print('RESULT wire_icrc FAIL %d frames, ICRC wrong in %d (first: %s)' %
              (len(frames), len(bad), bad[:5]))
        ok = False
    write_pcap(pcap, frames)
    try:
        out = subprocess.run(['tshark', '-n', '-r', pcap, '-T', 'fields', '-E', 'separator=|',
                              '-e', 'frame.number', '-e', 'frame.protocols', '-e', 'infiniband.bth.opcode',
                              '-e', '_ws.malformed', '-e', '_ws.expert.severity', '-e', '_ws.expert.message'],
                             capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        print('RESULT wire_tshark FAIL tshark did not run: %s' % e)
        print('RESULT wire_opcodes FAIL no decode')
        return 1
    rows = [r.split('|') for r in out.stdout.splitlines() if r]
    seen, problems = set(), []
    for r in rows:
        r += [''] * (6 - len(r))
        num, protos, opcode, malformed, severity, message = r[:6]
        # UDP checksum 0 over IPv6: tshark's UDP rule calls it an error;
        # RoCEv2 (Annex A17) allows it, the ICRC covers the packet, and
        # rdma_rxe sends it too (tests/host/vectors/rxe_frames.inc).
        errors = [m for v, m in zip(severity.split(','), message.split(','))
                  if v.isdigit() and int(v) >= 0x00800000]
        if 'ipv6' in protos.split(':'):
            errors = [m for m in errors if m != 'Illegal checksum value (0)']
        if 'infiniband' not in protos.split(':') or not opcode:
            problems.append('%s: %s' % (num, protos))
        # tshark gives expert severities as numbers; PI_ERROR is 0x00800000.
        elif malformed or errors:
            problems.append('%s: malformed/expert %s %s' % (num, malformed, errors))
        else:
            seen.add(int(opcode, 0))
    if out.returncode == 0 and len(rows) == len(frames) and frames and not problems:
        print('RESULT wire_tshark PASS %d frames decoded as InfiniBand over UDP 4791, none malformed' % len(rows))
    else:
        print('RESULT wire_tshark FAIL tshark rc %d, %d of %d frames; %s %s' %
              (out.returncode, len(rows), len(frames), problems[:5], out.stderr.strip()[:200]))
        ok = False
    missing = [WANT[o] for o in sorted(WANT) if o not in seen]
    if not missing:
        print('RESULT wire_opcodes PASS %d opcodes seen, every expected one' % len(seen))
    else:
        print('RESULT wire_opcodes FAIL not seen: %s' % ', '.join(missing))
        ok = False
    return 0 if ok else 1


sys.exit(main())
