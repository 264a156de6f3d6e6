#!/usr/bin/env python3
"""Reference for sort --record-size / --type bytes: records sorted by a key field, stably.

Usage: fields.py gen OUT N RS SEED [KEYOFF KS]   N records of RS bytes, keys at KEYOFF of KS bytes
                                                drawn from a small pool (ties check stability)
       fields.py check IN... OUT RS OFF TYPE [--desc] [--bits B:E] [--unique] [--segment N]
                       [--index IDX] [--top K]
         OUT holds the records of the INs (one after the other) stably sorted by the key at OFF:
         TYPE is bytes:K (memcmp order) or u32 i32 f32 u64 i64 f64 (floats in IEEE total order);
         --unique: the first record of each run of equal keys only; --segment: each N records on
         their own; IDX the input position of each; --top: the first K records only
       fields.py order IN RS OFF TYPE [--desc] [--bits B:E] [--unique]
         prints the index of IN's first record out of order (equal to the one before, too, with
         --unique), or "sorted"
"""
import random
import struct
import sys

FMT = {'u32': '<I', 'i32': '<I', 'f32': '<I', 'u64': '<Q', 'i64': '<Q', 'f64': '<Q'}


def mapped(ty, raw):
    w = 64 if ty.endswith('64') else 32
    sign = 1 << (w - 1)
    if ty[0] == 'i':
        return raw ^ sign
    if ty[0] == 'f':
        return (~raw & ((1 << w) - 1)) if raw & sign else raw | sign
    return raw


def main(argv):
    if argv[1] == 'gen':
        out, n, rs, seed = argv[2], int(argv[3]), int(argv[4]), int(argv[5])
        off, ks = (int(argv[6]), int(argv[7])) if len(argv) > 7 else (0, rs)
        rnd = random.Random(seed)
        pool = [bytes(rnd.randrange(256) for _ in range(ks)) for _ in range(7)]
        pool += [b'\0' * ks, b'\xff' * ks]
        with open(out, 'wb') as f:
            for i in range(n):
                r = bytearray(rnd.randbytes(rs))
                c = rnd.randrange(4)
                if c == 0:
                    r[off:off + ks] = rnd.choice(pool)
                elif c == 1 and ks > 1:  # a shared prefix: only the last byte differs
                    r[off:off + ks - 1] = rnd.choice(pool)[:ks - 1]
                f.write(r)
        return 0
    first_opt = next((i for i, a in enumerate(argv) if a.startswith('--')), len(argv))
    pos = argv[2:first_opt]
    rest = argv[first_opt:]
    rs, off, ty = int(pos[-3]), int(pos[-2]), pos[-1]
    files = pos[:-3]
    desc = '--desc' in rest
    unique = '--unique' in rest
    bits = rest[rest.index('--bits') + 1] if '--bits' in rest else None
    seg = int(rest[rest.index('--segment') + 1]) if '--segment' in rest else 0
    idx_path = rest[rest.index('--index') + 1] if '--index' in rest else None
    top = int(rest[rest.index('--top') + 1]) if '--top' in rest else None
    data = b''.join(open(f, 'rb').read() for f in (files if argv[1] == 'order' else files[:-1]))
    recs = [data[i:i + rs] for i in range(0, len(data), rs)]
    if ty.startswith('bytes:'):
        ks = int(ty[6:])
        key = lambda i: recs[i][off:off + ks]
    else:
        size = 8 if ty.endswith('64') else 4
        def key(i):
            m = mapped(ty, struct.unpack(FMT[ty], recs[i][off:off + size])[0])
            if bits:
                b, e = map(int, bits.split(':'))
                m = (m >> b) & ((1 << (e - b)) - 1)
            return m
    if argv[1] == 'order':
        bad = next((i for i in range(1, len(recs))
                    if (key(i) < key(i - 1) if not desc else key(i) > key(i - 1))
                    or (unique and key(i) == key(i - 1))), None)
        print('sorted' if bad is None else bad)
        return 0
    out = files[-1]
    # stable: sorted() keeps input order among equal keys, reverse=True included
    order = []
    step = seg or len(recs) or 1
    for b in range(0, len(recs), step):
        order += sorted(range(b, min(b + step, len(recs))), key=key, reverse=desc)
    if unique:
        order = [i for n, i in enumerate(order) if n == 0 or key(i) != key(order[n - 1])]
    if top is not None:
        order = order[:top]
    want = b''.join(recs[i] for i in order)
    got = open(out, 'rb').read()
    if got != want:
        bad = next((i for i in range(0, min(len(got), len(want)), rs) if got[i:i + rs] != want[i:i + rs]), None)
        print(f'{out}: records differ from the stable sort (first at record {None if bad is None else bad // rs}; '
              f'{len(got)} bytes, expected {len(want)})')
        return 1
    if idx_path:
        raw = open(idx_path, 'rb').read()
        if raw != struct.pack('<%dQ' % len(order), *order):
            print(f'{idx_path}: positions differ from the stable sort')
            return 1
    print(f'{out}: {len(recs)} records sorted: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
