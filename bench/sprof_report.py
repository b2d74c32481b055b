#!/usr/bin/env python3
# sprof_report.py BIN SAMPLES: the samples of bench/sprof.c, symbolized: self counts (the
# interrupted function, with the inlined function it was in after '<'), inclusive counts
# (each function once a sample), and with CALLERS=f,g the commonest callers of f and g.
# BIN's offsets are named by addr2line; other libraries' by their dynamic symbols.
import collections, os, subprocess, sys
binp, path = sys.argv[1], sys.argv[2]
lines = [l.rstrip('\n').split(';') for l in open(path)]
base = binp.rsplit('/', 1)[-1]
offs = sorted({f.split('+')[1] for s in lines for f in s if f.startswith(base + '+')})
names = {}
if offs:
    out = subprocess.run(['addr2line', '-a', '-f', '-i', '-C', '-e', binp] + offs, capture_output=True, text=True).stdout.split('\n')
    groups, cur = [], None
    for l in out:
        if l.startswith('0x'):
            cur = []; groups.append(cur)
        elif cur is not None and l: cur.append(l)
    for o, g in zip(offs, groups):
        fn = g[0::2]
        names[base + '+' + o] = fn[-1] if len(fn) == 1 else fn[-1] + '<' + fn[0]
def nm(f):
    if f in names: return names[f]
    if '+' in f: return f.split('+')[0]
    return f
samples = [[nm(f) for f in s] for s in lines]  # each frame named once
selfc, incl = collections.Counter(), collections.Counter()
N = len(samples)
for fr in samples:
    selfc[fr[0]] += 1
    for f in set(x.split('<')[0] for x in fr): incl[f] += 1
print(f"{N} samples")
print("self:")
for f, c in selfc.most_common(25): print(f"  {100*c/N:5.1f}% {f}")
print("inclusive:")
for f, c in incl.most_common(40): print(f"  {100*c/N:5.1f}% {f}")
for tgt in os.environ.get('CALLERS', '').split(','):
    if not tgt: continue
    c = collections.Counter()
    for fr in samples:
        fr = [x.split('<')[0] for x in fr]
        if fr[0].startswith(tgt):
            c[' <- '.join(fr[1:5])] += 1
    print(f"callers of {tgt}:")
    for f, k in c.most_common(8): print(f"  {k:5d} {f[:300]}")
