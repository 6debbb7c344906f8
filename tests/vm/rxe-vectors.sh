#!/bin/bash
# rxe-vectors.sh OUT.inc: capture RoCEv2 frames as rdma_rxe puts them on a
# wire (two stock guests on a QEMU socket link, tests/vm/run-pair.sh with
# tests/vm/guest/rxe-capture.sh) and write a few of each kind (opcode, IP
# version) to OUT.inc as C string literals of hex, for the host's test of
# the ICRC and the header parser (tests/host/test_rxe_vectors.cpp). Not
# part of make check: its output is checked in, and this is how it was made.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/lib.sh"
out=${1:?usage: rxe-vectors.sh OUT.inc}
logs=$SOFTCX_CACHE/runs/rxe-vectors
rm -rf "$logs"
ovl=$(mktemp -d)
trap 'rm -rf "$ovl"' EXIT
cp "$here"/guest/* "$ovl/"
"$here/run-pair.sh" -t 900 -o "$ovl" -l "$logs" "$here/guest/rxe-capture.sh"
grep -a '^FRAME ' "$logs/a/results.log" | tr -d '\r' | cut -d' ' -f2 >"$ovl/frames.txt"
[ -s "$ovl/frames.txt" ] || die "no frames captured (logs: $logs)"
python3 - "$ovl/frames.txt" "$out" "guest kernel $GUEST_KVER" <<'EOF'
import sys
frames, out, kernel = sys.argv[1], sys.argv[2], sys.argv[3]
keep, seen = [], {}
for line in open(frames):
    f = bytes.fromhex(line.strip())
    v6 = f[12:14] == b'\x86\xdd'
    bth = 14 + (40 if v6 else (f[14] & 0xf) * 4) + 8
    key = (f[bth], v6)
    seen[key] = seen.get(key, 0) + 1
    if seen[key] <= 3:
        keep.append(f.hex())
with open(out, 'w') as o:
    o.write('// RoCEv2 frames rdma_rxe sent between two guests (tests/vm/rxe-vectors.sh):\n')
    o.write('// %d captured, up to 3 kept per opcode and IP version. %s\n' % (sum(seen.values()), kernel))
    for h in keep:
        o.write('"%s",\n' % h)
print('%d frames, %d kept, kinds: %s' % (sum(seen.values()), len(keep),
      ' '.join('%02x%s' % (k[0], '/v6' if k[1] else '') for k in sorted(seen))))
EOF
