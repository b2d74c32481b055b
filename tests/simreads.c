/* simreads: a long-read simulator with a fixed seed, for tests and benchmarks.
 *
 *   simreads -g GENOME.fa.gz -n COUNT [-l MINLEN] [-L MAXLEN] [-e MINERR] [-E MAXERR]
 *            [-w FLANK] [-S +|-|both] [-v MINSV -V MAXSV] [-k KINDS] [-R] [-s SEED]
 *            -r READS.fa -t WINDOWS.fa
 *
 * Reads the first record of a FASTA genome (plain or gzip) and writes COUNT simulated reads
 * to READS.fa and, in the same order, the reference window each read came from to
 * WINDOWS.fa, so that `nwalign -q READS.fa -r WINDOWS.fa --pairs zip` aligns every read
 * with its window.
 *
 * For read k (k = 1..COUNT), in this order of random draws:
 *   1. the origin length, uniform in [MINLEN, MAXLEN] (clipped to the genome length);
 *   2. the origin start, uniform in [0, genome length - origin length];
 *   3. the error rate, uniform in [MINERR, MAXERR] in steps of 0.001;
 *   4. the strand, + or - with probability 1/2; drawn with -S + and -S - too, which then
 *      override it, so that the draws after it stay those of the default -S both;
 *   5. only when MAXSV > 0, one structural change of the origin: its kind, uniform among
 *      the kinds of -k (in the order del, ins, dup, inv); its size, uniform in
 *      [MINSV, MAXSV] clipped to the origin length less a margin of a tenth of it
 *      (rounded up) on each side; its position, uniform in [margin, origin length -
 *      margin - size], so the segment [position, position + size) lies inside the origin
 *      with the margin on both sides; then, for an insertion, its bases, one draw each.
 *      del drops the segment, ins puts size random bases before the position, dup repeats
 *      the segment right after itself (tandem duplication), inv reverse complements the
 *      segment in place;
 *   6. the errors, on the origin as changed by step 5: each base independently carries an
 *      error with probability equal to the error rate; an error is a substitution (to one
 *      of the three other bases) with probability 1/2, an insertion (a random base before
 *      the origin base, which is kept) with probability 1/4, or a deletion (the origin base
 *      is dropped) with probability 1/4. A - strand read is the reverse complement of the
 *      mutated origin.
 *   7. only with -R, the rotation of the read as written (after the reverse complement of
 *      a - strand read): an offset r uniform in [origin length / 10, 9 * origin length /
 *      10] (rounded down), both clipped to the read length - 1, and the read becomes
 *      read[r..] + read[..r]. This models two circular genomes that start at different
 *      places: a global alignment of the read with its origin needs a long gap at each end.
 * The window is the origin extended by FLANK times the origin length (rounded down) on
 * each side, clipped to the genome; it never carries the structural change.
 *
 * Names: reads `sim<k>_<strand>_<start>_<end>_e<rate>` (origin on the genome's forward
 * strand, 0-based half-open; rate with three decimals), then `_<kind><size>_at<pos>` for a
 * structural change (pos: 0-based offset in the origin) and `_rot<r>` for a rotation;
 * windows `win<k>_<wstart>_<wend>`.
 * Sequences are upper-case ACGT only: lower case is read as upper case, U as T, and any
 * other letter of the genome (N, IUPAC codes) is replaced once, at load time, by a random
 * base from a stream of its own, so windows and reads agree. FASTA lines are 80 wide.
 *
 * The generator is xoshiro256** seeded by splitmix64 from SEED, and every draw is made in
 * integer arithmetic, so the output is the same on every machine.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define LINE_WIDTH 80

typedef struct {
	uint64_t s[4];
} rng_t;

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void rng_seed(rng_t *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t rng_next(rng_t *r)
{
	uint64_t *s = r->s;
	uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

/* uniform in [lo, hi], without modulo bias */
static uint64_t rng_range(rng_t *r, uint64_t lo, uint64_t hi)
{
	uint64_t n = hi - lo + 1, x;
	if (n == 0) /* the whole 64-bit range */
		return rng_next(r);
	uint64_t min = (0 - n) % n; /* reject x < 2^64 mod n */
	do
		x = rng_next(r);
	while (x < min);
	return lo + x % n;
}

static const char BASES[4] = {'A', 'C', 'G', 'T'};

static void usage(FILE *fp)
{
	fprintf(fp,
		"Usage: simreads -g GENOME.fa[.gz] -n COUNT [options] -r READS.fa -t WINDOWS.fa\n"
		"Simulated long reads with errors, and the reference window of each, in the same order.\n"
		"  -g FILE   genome, FASTA, plain or gzip (first record used); - for stdin\n"
		"  -n INT    number of reads\n"
		"  -l INT    minimum origin length [5000]\n"
		"  -L INT    maximum origin length [50000]\n"
		"  -e FLOAT  minimum error rate [0.05]\n"
		"  -E FLOAT  maximum error rate [0.15]; rates are drawn in steps of 0.001, at most 0.5\n"
		"            errors: 50%% substitutions, 25%% insertions, 25%% deletions\n"
		"  -w FLOAT  window flank, as a fraction of the origin length, each side [0.05]\n"
		"  -S STR    strand of every read: +, - or both (+ or - at random) [both]\n"
		"  -v INT    minimum size of the structural change [0]\n"
		"  -V INT    maximum size of the structural change [0: none]; with -V every read\n"
		"            carries one, applied to its origin before the errors, at least a tenth\n"
		"            of the origin away from each end (sizes clipped to fit)\n"
		"  -k LIST   kinds of structural change, comma-separated [del,ins,dup,inv]:\n"
		"            del (segment dropped), ins (random bases inserted), dup (segment\n"
		"            repeated after itself), inv (segment reverse complemented)\n"
		"  -R        rotate each read (circular genome) by an offset in [len/10, 9*len/10]\n"
		"  -s INT    seed [1]\n"
		"  -r FILE   reads out (FASTA); - for stdout\n"
		"  -t FILE   windows out (FASTA); - for stdout\n"
		"  -h        this help\n"
		"Names: sim<k>_<+|->_<start>_<end>_e<rate>[_<kind><size>_at<pos>][_rot<offset>] and\n"
		"win<k>_<wstart>_<wend>; 0-based half-open, pos an offset in the origin.\n");
}

_Noreturn static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("simreads: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static uint64_t parse_u64(const char *s, char opt, uint64_t min, uint64_t max)
{
	char *end, o[3] = {'-', opt, 0};
	errno = 0;
	if (*s == '-' || *s == '+' || *s == 0)
		die("option %s: '%s' is not a non-negative integer", o, s);
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		die("option %s: '%s' is not a non-negative integer", o, s);
	if (v < min || v > max)
		die("option %s: %s is out of range", o, s);
	return v;
}

/* a fraction, returned in thousandths */
static unsigned parse_milli(const char *s, char opt, unsigned max_milli)
{
	char *end, o[3] = {'-', opt, 0};
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v))
		die("option %s: '%s' is not a number", o, s);
	if (v < 0 || v * 1000 > max_milli + 1e-9)
		die("option %s: %s is out of range", o, s);
	return (unsigned)(v * 1000 + 0.5);
}

/* The first FASTA record of path, upper-case; other letters become 'N'. */
static char *load_genome(const char *path, size_t *len)
{
	gzFile gz = strcmp(path, "-") ? gzopen(path, "rb") : gzdopen(dup(0), "rb");
	if (!gz)
		die("cannot open genome %s: %s", path, strerror(errno ? errno : ENOMEM));
	size_t cap = 1 << 20, n = 0;
	char *seq = malloc(cap);
	unsigned char buf[65536];
	int state = 0; /* 0: before the first header, 1: in a header, 2: in sequence */
	int bol = 1, done = 0, r;
	unsigned long line = 1;
	while (!done && (r = gzread(gz, buf, sizeof buf)) > 0) {
		for (int i = 0; i < r && !done; i++) {
			int c = buf[i];
			if (c == '\n') {
				if (state == 1)
					state = 2;
				bol = 1;
				line++;
				continue;
			}
			if (bol && c == '>') {
				if (state == 2) {
					done = 1; /* the second record: stop */
					break;
				}
				state = 1;
				bol = 0;
				continue;
			}
			bol = 0;
			if (state == 1 || c == '\r' || c == ' ' || c == '\t')
				continue;
			if (state == 0) {
				gzclose(gz);
				free(seq);
				die("%s: not FASTA (no '>' header before the sequence)", path);
			}
			if (c >= 'a' && c <= 'z')
				c -= 'a' - 'A';
			if (c == 'U')
				c = 'T';
			if (c < 'A' || c > 'Z') {
				gzclose(gz);
				free(seq);
				die("%s: line %lu: character '%c' outside the DNA alphabet", path, line, c);
			}
			if (c != 'A' && c != 'C' && c != 'G' && c != 'T')
				c = 'N';
			if (n == cap) {
				cap *= 2;
				char *p = realloc(seq, cap);
				if (!p) {
					free(seq);
					die("out of memory reading %s", path);
				}
				seq = p;
			}
			seq[n++] = (char)c;
		}
	}
	if (r < 0) {
		int err;
		const char *msg = gzerror(gz, &err);
		free(seq);
		die("cannot read genome %s: %s", path, err == Z_ERRNO ? strerror(errno) : msg);
	}
	gzclose(gz);
	if (state == 0 || n == 0)
		free(seq);
	if (state == 0)
		die("%s: not FASTA (no '>' header)", path);
	if (n == 0)
		die("%s: the first record is empty", path);
	*len = n;
	return seq;
}

static int write_fasta(FILE *fp, const char *name, const char *seq, size_t len)
{
	if (fprintf(fp, ">%s\n", name) < 0)
		return -1;
	for (size_t i = 0; i < len; i += LINE_WIDTH) {
		size_t w = len - i < LINE_WIDTH ? len - i : LINE_WIDTH;
		if (fwrite(seq + i, 1, w, fp) != w || putc('\n', fp) == EOF)
			return -1;
	}
	return 0;
}

static FILE *open_out(const char *path)
{
	if (!strcmp(path, "-"))
		return stdout;
	FILE *fp = fopen(path, "w");
	if (!fp)
		die("cannot write %s: %s", path, strerror(errno));
	return fp;
}

static void close_out(FILE *fp, const char *path)
{
	int bad = ferror(fp);
	if ((fp == stdout ? fflush(fp) : fclose(fp)) != 0 || bad)
		die("error writing %s: %s", path, strerror(errno ? errno : EIO));
}

static inline int base_code(char c) { return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : 3; }

/* The kinds of structural change, in the order -k's kinds are drawn from. */
enum { SV_DEL, SV_INS, SV_DUP, SV_INV, SV_NKINDS };
static const char *const SV_NAMES[SV_NKINDS] = {"del", "ins", "dup", "inv"};

/* -k: a comma-separated list of kind names, as a bit set */
static unsigned parse_kinds(const char *s)
{
	unsigned set = 0;
	const char *p = s;
	for (;;) {
		size_t w = strcspn(p, ",");
		int k;
		for (k = 0; k < SV_NKINDS; k++)
			if (w == 3 && !strncmp(p, SV_NAMES[k], 3))
				break;
		if (k == SV_NKINDS)
			die("option -k: '%.*s' is not one of del, ins, dup, inv", (int)w, p);
		set |= 1u << k;
		if (!p[w])
			return set;
		p += w + 1;
	}
}

static void reverse(char *s, size_t n)
{
	for (size_t i = 0, j = n ? n - 1 : 0; i < n / 2; i++, j--) {
		char t = s[i];
		s[i] = s[j];
		s[j] = t;
	}
}

static void revcomp(char *s, size_t n)
{
	reverse(s, n);
	for (size_t i = 0; i < n; i++)
		s[i] = BASES[3 - base_code(s[i])];
}

/* One structural change of the origin o[0..len) into out (step 5 of the header comment);
 * returns the changed length and sets *kind, *size and *pos for the read's name. */
static size_t apply_sv(rng_t *rng, const char *o, size_t len, unsigned kinds, uint64_t minsv,
		       uint64_t maxsv, char *out, int *kind, uint64_t *size, uint64_t *pos)
{
	int list[SV_NKINDS], nk = 0;
	for (int k = 0; k < SV_NKINDS; k++)
		if (kinds >> k & 1)
			list[nk++] = k;
	*kind = list[rng_range(rng, 0, nk - 1)];
	uint64_t margin = (len + 9) / 10;
	if (2 * margin > len) /* an origin of one base */
		margin = len / 2;
	uint64_t room = len - 2 * margin;
	uint64_t hi = maxsv < room ? maxsv : room, lo = minsv < hi ? minsv : hi;
	uint64_t sz = rng_range(rng, lo, hi);
	uint64_t at = rng_range(rng, margin, len - margin - sz);
	memcpy(out, o, at);
	size_t n = at;
	switch (*kind) {
	case SV_DEL:
		break;
	case SV_INS:
		for (uint64_t i = 0; i < sz; i++)
			out[n++] = BASES[rng_next(rng) >> 62];
		memcpy(out + n, o + at, sz);
		n += sz;
		break;
	case SV_DUP:
		memcpy(out + n, o + at, sz);
		memcpy(out + n + sz, o + at, sz);
		n += 2 * sz;
		break;
	default: /* SV_INV */
		memcpy(out + n, o + at, sz);
		revcomp(out + n, sz);
		n += sz;
		break;
	}
	memcpy(out + n, o + at + sz, len - at - sz);
	n += len - at - sz;
	*size = sz;
	*pos = at;
	return n;
}

int main(int argc, char **argv)
{
	const char *genome_path = NULL, *reads_path = NULL, *win_path = NULL;
	uint64_t count = 0, minlen = 5000, maxlen = 50000, seed = 1;
	uint64_t minsv = 0, maxsv = 0;
	unsigned minerr = 50, maxerr = 150, flank = 50; /* thousandths */
	unsigned kinds = (1u << SV_NKINDS) - 1;
	int have_n = 0, strand = -1, rotate = 0, c; /* strand: -1 random, 0 +, 1 - */

	opterr = 0;
	while ((c = getopt(argc, argv, ":g:n:l:L:e:E:w:S:v:V:k:Rs:r:t:h")) != -1) {
		char o[3] = {'-', (char)optopt, 0};
		switch (c) {
		case 'g': genome_path = optarg; break;
		case 'n': count = parse_u64(optarg, 'n', 1, UINT32_MAX); have_n = 1; break;
		case 'l': minlen = parse_u64(optarg, 'l', 1, UINT32_MAX); break;
		case 'L': maxlen = parse_u64(optarg, 'L', 1, UINT32_MAX); break;
		case 'e': minerr = parse_milli(optarg, 'e', 500); break;
		case 'E': maxerr = parse_milli(optarg, 'E', 500); break;
		case 'w': flank = parse_milli(optarg, 'w', 10000); break;
		case 'S':
			if (!strcmp(optarg, "+"))
				strand = 0;
			else if (!strcmp(optarg, "-"))
				strand = 1;
			else if (!strcmp(optarg, "both"))
				strand = -1;
			else
				die("option -S: '%s' is not +, - or both", optarg);
			break;
		case 'v': minsv = parse_u64(optarg, 'v', 0, UINT32_MAX); break;
		case 'V': maxsv = parse_u64(optarg, 'V', 0, UINT32_MAX); break;
		case 'k': kinds = parse_kinds(optarg); break;
		case 'R': rotate = 1; break;
		case 's': seed = parse_u64(optarg, 's', 0, UINT64_MAX); break;
		case 'r': reads_path = optarg; break;
		case 't': win_path = optarg; break;
		case 'h': usage(stdout); return 0;
		case ':': die("option %s needs a value (try -h)", o);
		default: die("unknown option %s (try -h)", o);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s' (try -h)", argv[optind]);
	if (!genome_path || !have_n || !reads_path || !win_path)
		die("-g, -n, -r and -t are required (try -h)");
	if (minlen > maxlen)
		die("-l must not exceed -L");
	if (minerr > maxerr)
		die("-e must not exceed -E");
	if (minsv > maxsv)
		die("-v must not exceed -V");
	if (!strcmp(reads_path, "-") && !strcmp(win_path, "-"))
		die("-r and -t cannot both be stdout");

	size_t glen;
	char *genome = load_genome(genome_path, &glen);
	if (minlen > glen)
		die("%s: the genome (%zu bases) is shorter than -l %" PRIu64, genome_path, glen, minlen);
	if (maxlen > glen)
		maxlen = glen;

	/* other letters -> random bases, from a stream of their own */
	rng_t rng;
	rng_seed(&rng, seed ^ 0x6e77616c69676e00ULL);
	for (size_t i = 0; i < glen; i++)
		if (genome[i] == 'N')
			genome[i] = BASES[rng_next(&rng) >> 62];

	FILE *rfp = open_out(reads_path), *wfp = open_out(win_path);
	/* a structural change at most doubles the origin, and the errors at most double that */
	char *read = malloc(4 * maxlen + 1), *svo = maxsv ? malloc(2 * maxlen) : NULL;
	if (!read || (maxsv && !svo))
		die("out of memory");
	rng_seed(&rng, seed);
	for (uint64_t k = 1; k <= count; k++) {
		uint64_t len = rng_range(&rng, minlen, maxlen);
		uint64_t start = rng_range(&rng, 0, glen - len), end = start + len;
		unsigned milli = (unsigned)rng_range(&rng, minerr, maxerr);
		int minus = (int)(rng_next(&rng) >> 63);
		if (strand >= 0)
			minus = strand;
		const char *o = genome + start; /* the origin, changed by step 5 */
		size_t olen = len;
		int svkind = -1;
		uint64_t svsize = 0, svpos = 0;
		if (maxsv) {
			olen = apply_sv(&rng, o, len, kinds, minsv, maxsv, svo, &svkind, &svsize,
					&svpos);
			o = svo;
		}
		uint64_t thresh = ((uint64_t)milli << 53) / 1000; /* P(error): the top 53 bits below */
		size_t n = 0;
		for (size_t i = 0; i < olen; i++) {
			char b = o[i];
			if ((rng_next(&rng) >> 11) >= thresh) {
				read[n++] = b;
				continue;
			}
			switch (rng_next(&rng) >> 62) {
			case 0:
			case 1: /* substitution: one of the three other bases */
				read[n++] = BASES[(base_code(b) + 1 + rng_range(&rng, 0, 2)) & 3];
				break;
			case 2: /* insertion before the base */
				read[n++] = BASES[rng_next(&rng) >> 62];
				read[n++] = b;
				break;
			default: /* deletion */
				break;
			}
		}
		if (n == 0) /* every base deleted (tiny -l only): keep one */
			read[n++] = olen ? o[0] : genome[start];
		if (minus)
			revcomp(read, n);
		uint64_t rot = 0;
		if (rotate) {
			uint64_t hi = 9 * len / 10 < n - 1 ? 9 * len / 10 : n - 1;
			uint64_t lo = len / 10 < hi ? len / 10 : hi;
			rot = rng_range(&rng, lo, hi);
			/* read[rot..] + read[..rot] by three reversals */
			reverse(read, rot);
			reverse(read + rot, n - rot);
			reverse(read, n);
		}
		uint64_t f = len * flank / 1000;
		uint64_t wstart = start > f ? start - f : 0, wend = end + f < glen ? end + f : glen;
		char name[200];
		int w = snprintf(name, sizeof name, "sim%" PRIu64 "_%c_%" PRIu64 "_%" PRIu64 "_e%u.%03u",
				 k, minus ? '-' : '+', start, end, milli / 1000, milli % 1000);
		if (svkind >= 0)
			w += snprintf(name + w, sizeof name - w, "_%s%" PRIu64 "_at%" PRIu64,
				      SV_NAMES[svkind], svsize, svpos);
		if (rotate)
			snprintf(name + w, sizeof name - w, "_rot%" PRIu64, rot);
		if (write_fasta(rfp, name, read, n))
			close_out(rfp, reads_path);
		snprintf(name, sizeof name, "win%" PRIu64 "_%" PRIu64 "_%" PRIu64, k, wstart, wend);
		if (write_fasta(wfp, name, genome + wstart, wend - wstart))
			close_out(wfp, win_path);
	}
	close_out(rfp, reads_path);
	close_out(wfp, win_path);
	free(read);
	free(svo);
	free(genome);
	return 0;
}
