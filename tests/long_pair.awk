# long_pair.awk: a long pair from a fixed seed, for tests that need a span past the
# full-matrix limit (2^22 cells, so that paths take GACT or --exact): prints a 2,400 bp
# random reference (>long_ref) on stdout and, on stderr, a read (>long_read) made from
# 2,200 bp of it with ~6% edits (substitutions, insertions, deletions).
BEGIN {
	s = 12345
	for (i = 0; i < 2400; i++) { s = (s * 1103515245 + 12345) % 2147483648; r = r substr("ACGT", int(s / 65536) % 4 + 1, 1) }
	print ">long_ref"; print r
	q = ""
	for (i = 101; i <= 2300; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; x = int(s / 65536) % 100
		b = substr(r, i, 1)
		if (x < 2) continue
		if (x < 4) q = q substr("ACGT", int(s / 256) % 4 + 1, 1)
		q = q (x < 6 ? substr("ACGT", int(s / 16) % 4 + 1, 1) : b)
	}
	print ">long_read" > "/dev/stderr"; print q > "/dev/stderr"
}
