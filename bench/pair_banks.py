#!/usr/bin/env python3
"""pair_banks.py: shared-memory bank conflicts of a letter-pair score table.

A kernel in CUDASW++4.0's orientation gives each thread database columns of two
sequences (the 16-bit lanes of a register) and walks the query's rows; a cell pair's
two scores are one 32-bit word of a table indexed by the query letter and the pair of
database letters. A warp's 32 threads then load 32 words of one table row (the query
letter is the same across the warp at best), and a load takes as many shared-memory
wavefronts as the most distinct words that fall in one of the 32 banks.

This draws each thread's two letters at random from the residues of the database file (a FASTA file,
plain or gzip) and prints the mean wavefronts of a warp's load, for the table laid out
row after row (pair index a * (letters + 1) + b) and with rows of 32 words.

usage: pair_banks.py DB.fa[.gz] [WARPS]
"""
import collections
import gzip
import random
import sys


def residues(path):
    opener = gzip.open if path.endswith(".gz") else open
    seqs, cur = [], []
    with opener(path, "rt") as f:
        for line in f:
            if line.startswith(">"):
                if cur:
                    seqs.append("".join(cur))
                cur = []
            else:
                cur.append(line.strip())
    if cur:
        seqs.append("".join(cur))
    return seqs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    seqs = residues(sys.argv[1])
    warps = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    every = "".join(seqs)
    letters = sorted(set(every))
    code = {c: i for i, c in enumerate(letters)}
    stride = len(letters) + 1  # a padding letter
    rng = random.Random(1)
    for name, width in (("rows of letters + 1 words", stride), ("rows of 32 words", 32)):
        total = 0
        for _ in range(warps):
            words = set()
            for _t in range(32):
                a = code[rng.choice(every)]
                b = code[rng.choice(every)]
                words.add(a * width + b)
            total += max(collections.Counter(w % 32 for w in words).values())
        print(f"{name}: {len(letters)} letters, {total / warps:.2f} wavefronts a warp's load (mean of {warps})")


if __name__ == "__main__":
    main()
