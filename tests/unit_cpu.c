/* unit_cpu.c: the CPU engine (nw_cpu_align) against the full-matrix oracle (dp_full.c).
 *
 * For every pair, mode and scoring: the score and the four coordinates must equal the
 * oracle's exactly, with and without the path (with ends_only: the score and the end cell,
 * starts 0, no path); with the path, the CIGAR must consume exactly the reported span and
 * rescore to the score (by dpf_check_path and by nw_cigar_rescore), and matches / aln_len
 * / edits must agree with the CIGAR.
 *
 * Sections: the oracle's own checks (hand-made paths, its two start methods, its two-row
 * variant, hand-checked tie cases); thousands of short random pairs (lengths 1..40:
 * unrelated, mutated, embedded, low complexity, tandem repeats) over DNA (ACGT only and
 * with IUPAC codes) and protein, linear and affine gaps, several scorings; one-residue and
 * identical pairs; pairs of 100..600; long pairs that force the linear-memory divide and
 * conquer (3000 x 2800 with ~10% mutations, 1 x 5000, 5000 x 1, long gaps crossing the
 * middle row, and pairs of 25M-45M cells whose long insertion crosses the split row at the
 * first and at deeper levels; those use the two-row oracle).
 *
 * The first failures (at most MAX_PRINT) print the pair and both answers to stderr.
 * Empty sequences are outside the contract (the reader rejects them); NW_TEST_EMPTY=1 adds
 * them, accepting either an error return or the oracle's answer.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nwalign.h"
#include "cpu_align.h"
#include "cpu_isa.h"
#include "dp_full.h"
#include "testutil.h"

#define MAX_PRINT 10
#define SHORT_MAX 40
#define FULL_ORACLE_CELLS ((int64_t)4000000)

static int n_printed;
static uint64_t seed = 0x9e3779b97f4a7c15ull;
static nw_workspace_t *ws;

/* ---------------------------------------------------------------- scorings */

typedef struct {
	char label[64];
	nw_scoring_t sc;
	int ok;
} scoring_case_t;

static int make_dna(scoring_case_t *c, int match, int mismatch, int O, int E)
{
	char err[256] = "";
	snprintf(c->label, sizeof(c->label), "dna %d/%d gaps %d/%d", match, mismatch, O, E);
	c->ok = nw_scoring_dna(&c->sc, match, mismatch, O, E, err, sizeof(err)) == 0;
	CHECK(c->ok, "nw_scoring_dna(%d, %d, %d, %d): %s", match, mismatch, O, E, err);
	return c->ok;
}

static int make_matrix(scoring_case_t *c, const char *name, nw_alphabet_t a, int O, int E)
{
	char err[256] = "";
	snprintf(c->label, sizeof(c->label), "%s gaps %d/%d", name, O, E);
	c->ok = nw_scoring_matrix(&c->sc, name, a, O, E, err, sizeof(err)) == 0;
	CHECK(c->ok, "nw_scoring_matrix(%s, %d, %d): %s", name, O, E, err);
	if (c->ok) {
		CHECK_EQ_I64(c->sc.gap_open, O, "%s", name);
		CHECK_EQ_I64(c->sc.gap_extend, E, "%s", name);
	}
	return c->ok;
}

/* ---------------------------------------------------------------- sequences */

enum { K_ACGT = 0, K_IUPAC = 1, K_PROT = 2, K_LOW = 3 };

static int64_t rnd(int64_t lo, int64_t hi) /* inclusive */
{
	return lo + (int64_t)(tu_rand(&seed) % (uint64_t)(hi - lo + 1));
}

static uint8_t rand_code(int kind)
{
	switch (kind) {
	case K_ACGT:
		return (uint8_t)rnd(0, 3);
	case K_IUPAC: /* mostly ACGT, some N and other ambiguity codes */
		return (uint8_t)(rnd(0, 99) < 80 ? rnd(0, 3) : rnd(4, NW_DNA_CODES - 1));
	case K_PROT: /* the 20 amino acids, sometimes B Z X * */
		return (uint8_t)(rnd(0, 99) < 95 ? rnd(0, 19) : rnd(20, NW_PROTEIN_CODES - 1));
	default:     /* two letters: many equal-score alternatives */
		return (uint8_t)rnd(0, 1);
	}
}

static void gen_random(uint8_t *s, int64_t len, int kind)
{
	for (int64_t i = 0; i < len; i++)
		s[i] = rand_code(kind);
}

/* Copy src to dst with substitutions, insertions and deletions, each with the given
 * chance in percent per position. Returns the new length (at most cap). */
static int64_t mutate(const uint8_t *src, int64_t len, uint8_t *dst, int64_t cap, int kind,
		      int sub, int ins, int del)
{
	int64_t k = 0;
	for (int64_t i = 0; i < len && k < cap; i++) {
		int x = (int)rnd(0, 99);
		if (x < del)
			continue;
		if (x < del + ins && k < cap)
			dst[k++] = rand_code(kind);
		if (k >= cap)
			break;
		dst[k++] = rnd(0, 99) < sub ? rand_code(kind) : src[i];
	}
	return k;
}

static void print_seq(const char *label, const uint8_t *s, int64_t len, nw_alphabet_t a)
{
	const char *alpha = a == NW_ALPHA_PROTEIN ? NW_PROTEIN_ALPHABET : NW_DNA_ALPHABET;
	int64_t show = len <= 1000 ? len : 200;
	fprintf(stderr, "  %s (%" PRId64 "): ", label, len);
	for (int64_t i = 0; i < show; i++)
		fputc(alpha[s[i]], stderr);
	if (show < len)
		fprintf(stderr, "... (%" PRId64 " more; regenerate from the section)", len - show);
	fputc('\n', stderr);
}

/* ---------------------------------------------------------------- one comparison */

static void fail_report(const char *section, nw_mode_t mode, const scoring_case_t *c,
			const uint8_t *q, int64_t m, const uint8_t *r, int64_t n, int variant,
			int rc, const nw_result_t *res, const dpf_result_t *o, const char *why)
{
	tu_failed++;
	if (n_printed++ >= MAX_PRINT) {
		if (n_printed == MAX_PRINT + 1)
			fprintf(stderr, "(further failures not printed)\n");
		return;
	}
	fprintf(stderr, "FAIL [%s] mode %s, %s, %s: %s\n", section, dpf_mode_name(mode),
		c->label, variant == 0 ? "no path" : variant == 1 ? "want_path" : variant == 2 ? "ends_only" : "starts_only",
		why);
	fprintf(stderr, "  engine rc %d: score %" PRId64 " q[%" PRId64 ",%" PRId64 ") r[%" PRId64
		",%" PRId64 ")\n", rc, res->score, res->qstart, res->qend, res->rstart, res->rend);
	fprintf(stderr, "  oracle:     score %" PRId64 " q[%" PRId64 ",%" PRId64 ") r[%" PRId64
		",%" PRId64 ")\n", o->score, o->qstart, o->qend, o->rstart, o->rend);
	if (variant == 1 && res->cigar) {
		fprintf(stderr, "  cigar: ");
		for (int64_t k = 0; k < res->n_cigar && k < 200; k++)
			fprintf(stderr, "%u%c", NW_CIGAR_LEN(res->cigar[k]),
				"MIDNSHP=X???????"[NW_CIGAR_OP(res->cigar[k])]);
		fputc('\n', stderr);
	}
	print_seq("query", q, m, c->sc.alphabet);
	print_seq("ref  ", r, n, c->sc.alphabet);
}

/* Checks the path of res; returns NULL when fine, else a reason in buf. */
static const char *check_path(const scoring_case_t *c, nw_mode_t mode, const uint8_t *q,
			      int64_t m, const uint8_t *r, int64_t n, const nw_result_t *res,
			      char *buf, size_t len)
{
	char msg[256] = "";
	int64_t s1 = 0, s2 = 0, matches = 0, cols = 0, edits = 0;
	if (mode == NW_MODE_LOCAL && res->score == 0) {
		if (res->n_cigar != 0) {
			snprintf(buf, len, "local score 0 with a path of %" PRId64 " runs",
				 res->n_cigar);
			return buf;
		}
		return NULL;
	}
	if (res->qstart == res->qend && res->rstart == res->rend) { /* empty span: no path */
		if (res->n_cigar != 0) {
			snprintf(buf, len, "empty span with a path of %" PRId64 " runs",
				 res->n_cigar);
			return buf;
		}
		return NULL;
	}
	if (res->n_cigar <= 0 || !res->cigar) {
		snprintf(buf, len, "want_path but no CIGAR");
		return buf;
	}
	if (dpf_check_path(res->cigar, res->n_cigar, &c->sc, q, m, r, n, res->qstart, res->qend,
			   res->rstart, res->rend, &s1, msg, sizeof(msg)) < 0) {
		snprintf(buf, len, "CIGAR does not fit: %s", msg);
		return buf;
	}
	if (s1 != res->score) {
		snprintf(buf, len, "CIGAR rescores to %" PRId64 " (oracle checker)", s1);
		return buf;
	}
	if (nw_cigar_rescore(res->cigar, res->n_cigar, &c->sc, q, m, res->qstart, r, n,
			     res->rstart, &s2, msg, sizeof(msg)) < 0) {
		snprintf(buf, len, "nw_cigar_rescore refuses the CIGAR: %s", msg);
		return buf;
	}
	if (s2 != res->score) {
		snprintf(buf, len, "nw_cigar_rescore gives %" PRId64, s2);
		return buf;
	}
	for (int64_t k = 0; k < res->n_cigar; k++) {
		int64_t l = NW_CIGAR_LEN(res->cigar[k]);
		cols += l;
		if (NW_CIGAR_OP(res->cigar[k]) == NW_CIGAR_EQ)
			matches += l;
		else
			edits += l;
	}
	if (res->matches != matches || res->aln_len != cols || res->edits != edits) {
		snprintf(buf, len, "stats matches/aln_len/edits %" PRId64 "/%" PRId64 "/%" PRId64
			 ", CIGAR says %" PRId64 "/%" PRId64 "/%" PRId64, res->matches,
			 res->aln_len, res->edits, matches, cols, edits);
		return buf;
	}
	return NULL;
}

/* Compare the engine with the oracle for one pair in one mode, with and without path. */
static void check_pair(const char *section, nw_mode_t mode, const scoring_case_t *c,
		       const uint8_t *q, int64_t m, const uint8_t *r, int64_t n)
{
	dpf_result_t o;
	/* Full matrices up to 4M cells (3 x 32 MB), the two-row oracle above that. */
	int orc = (m + 1) * (n + 1) <= FULL_ORACLE_CELLS
		? dpf_align(mode, &c->sc, q, m, r, n, DPF_START_AUTO, &o)
		: dpf_align_lin(mode, &c->sc, q, m, r, n, &o);
	if (orc != 0) {
		tu_failed++;
		fprintf(stderr, "oracle failed (%d) on a %" PRId64 " x %" PRId64 " pair [%s]\n",
			orc, m, n, section);
		return;
	}
	/* variant 0: score and span; 1: with the path; 2: ends_only (score and end cell);
	 * 3: starts_only with the path, given what ends_only found */
	for (int variant = 0; variant <= 3; variant++) {
		int want_path = variant == 1 || variant == 3;
		/* the default: long spans take pruned Myers-Miller paths, which must reach
		 * the optimum (GACT paths are tested in unit_path) */
		nw_align_params_t p = { .mode = mode, .sc = &c->sc, .want_path = want_path,
					.ends_only = variant == 2, .starts_only = variant == 3 };
		nw_result_t res;
		char buf[512];
		const char *why = NULL;
		memset(&res, 0, sizeof(res));
		int rc = 0;
		if (variant == 3) { /* the ends first, as the pipeline does */
			nw_align_params_t pe = p;
			pe.want_path = pe.starts_only = 0;
			pe.ends_only = 1;
			rc = nw_cpu_align(&pe, q, m, r, n, ws, &res);
		}
		if (rc == 0)
			rc = nw_cpu_align(&p, q, m, r, n, ws, &res);
		if ((m == 0 || n == 0) && rc < 0) { /* empty input may be refused */
			tu_passed++;
			nw_result_free(&res);
			continue;
		}
		if (rc != 0)
			why = "nonzero return";
		else if (res.score != o.score)
			why = "score differs";
		else if (variant == 2 && (res.qend != o.qend || res.rend != o.rend ||
					  res.qstart != 0 || res.rstart != 0))
			why = "ends_only: end cell differs or start not 0";
		else if (variant != 2 && (res.qstart != o.qstart || res.qend != o.qend ||
					  res.rstart != o.rstart || res.rend != o.rend))
			why = "coordinates differ";
		else if (want_path)
			why = check_path(c, mode, q, m, r, n, &res, buf, sizeof(buf));
		else if (res.n_cigar != 0)
			why = "a CIGAR without want_path";
		if (why)
			fail_report(section, mode, c, q, m, r, n, variant, rc, &res, &o, why);
		else
			tu_passed++;
		nw_result_free(&res);
	}
}

static void check_all_modes(const char *section, const scoring_case_t *c, const uint8_t *q,
			    int64_t m, const uint8_t *r, int64_t n)
{
	for (int mode = NW_MODE_GLOBAL; mode <= NW_MODE_SEMIGLOBAL; mode++)
		check_pair(section, (nw_mode_t)mode, c, q, m, r, n);
}

/* ---------------------------------------------------------------- sections */

/* The oracle's path checker on hand-made paths (protects the checks below). */
static void test_checker(const scoring_case_t *dna)
{
	/* q = ACGTAC, r = AGGTTAC; codes A0 C1 G2 T3. */
	static const uint8_t q[] = { 0, 1, 2, 3, 0, 1 }, r[] = { 0, 2, 2, 3, 3, 0, 1 };
	const nw_scoring_t *sc = &dna->sc; /* dna 2/4 gaps 4/2 */
	char msg[256];
	int64_t s = 0;
	uint32_t good[] = { NW_CIGAR_PACK(1, NW_CIGAR_EQ), NW_CIGAR_PACK(1, NW_CIGAR_X),
			    NW_CIGAR_PACK(2, NW_CIGAR_EQ), NW_CIGAR_PACK(1, NW_CIGAR_D),
			    NW_CIGAR_PACK(2, NW_CIGAR_EQ) };
	CHECK(dpf_check_path(good, 5, sc, q, 6, r, 7, 0, 6, 0, 7, &s, msg, sizeof(msg)) == 0,
	      "%s", msg);
	CHECK_EQ_I64(s, 5 * 2 - 4 - (4 + 2), "1=1X2=1D2=");
	uint32_t sub[] = { NW_CIGAR_PACK(2, NW_CIGAR_EQ) }; /* GT at q2, r2 */
	CHECK(dpf_check_path(sub, 1, sc, q, 6, r, 7, 2, 4, 2, 4, &s, msg, sizeof(msg)) == 0,
	      "%s", msg);
	CHECK_EQ_I64(s, 4, "2= inside");
	uint32_t gaps[] = { NW_CIGAR_PACK(3, NW_CIGAR_I), NW_CIGAR_PACK(2, NW_CIGAR_D) };
	CHECK(dpf_check_path(gaps, 2, sc, q, 6, r, 7, 0, 3, 0, 2, &s, msg, sizeof(msg)) == 0,
	      "%s", msg);
	CHECK_EQ_I64(s, -(4 + 3 * 2) - (4 + 2 * 2), "3I2D");
	/* Wrong: short of the span, '=' on a mismatch, unmerged runs, bad op, zero length. */
	CHECK(dpf_check_path(good, 4, sc, q, 6, r, 7, 0, 6, 0, 7, &s, msg, sizeof(msg)) < 0,
	      "short path accepted");
	uint32_t eqbad[] = { NW_CIGAR_PACK(2, NW_CIGAR_EQ) };
	CHECK(dpf_check_path(eqbad, 1, sc, q, 6, r, 7, 0, 2, 0, 2, &s, msg, sizeof(msg)) < 0,
	      "= on a mismatch accepted");
	uint32_t xbad[] = { NW_CIGAR_PACK(1, NW_CIGAR_X) };
	CHECK(dpf_check_path(xbad, 1, sc, q, 6, r, 7, 0, 1, 0, 1, &s, msg, sizeof(msg)) < 0,
	      "X on a match accepted");
	uint32_t split[] = { NW_CIGAR_PACK(1, NW_CIGAR_I), NW_CIGAR_PACK(1, NW_CIGAR_I) };
	CHECK(dpf_check_path(split, 2, sc, q, 6, r, 7, 0, 2, 0, 0, &s, msg, sizeof(msg)) < 0,
	      "unmerged runs accepted");
	uint32_t mop[] = { NW_CIGAR_PACK(1, 0) };
	CHECK(dpf_check_path(mop, 1, sc, q, 6, r, 7, 0, 1, 0, 1, &s, msg, sizeof(msg)) < 0,
	      "M accepted");
	uint32_t zero[] = { NW_CIGAR_PACK(0, NW_CIGAR_EQ), NW_CIGAR_PACK(1, NW_CIGAR_EQ) };
	CHECK(dpf_check_path(zero, 2, sc, q, 6, r, 7, 0, 1, 0, 1, &s, msg, sizeof(msg)) < 0,
	      "zero length accepted");
	CHECK(dpf_check_path(good, 5, sc, q, 6, r, 7, 0, 6, 0, 8, &s, msg, sizeof(msg)) < 0,
	      "span past the sequence accepted");
	/* The two start methods of the oracle agree (brute force is the definition). */
	uint8_t a[SHORT_MAX], b[SHORT_MAX];
	for (int it = 0; it < 200; it++) {
		int64_t m = rnd(1, 25), n = rnd(1, 25);
		gen_random(a, m, it % 2 ? K_LOW : K_ACGT);
		gen_random(b, n, it % 2 ? K_LOW : K_ACGT);
		for (int mode = 0; mode < 3; mode++) {
			dpf_result_t x, y;
			CHECK(dpf_align(mode, sc, a, m, b, n, DPF_START_BRUTE, &x) == 0, "brute");
			CHECK(dpf_align(mode, sc, a, m, b, n, DPF_START_REVERSE, &y) == 0, "rev");
			CHECK(memcmp(&x, &y, sizeof(x)) == 0, "oracle start methods differ");
		}
	}
	/* The two-row oracle agrees with the full one. */
	for (int it = 0; it < 300; it++) {
		int64_t m = rnd(1, SHORT_MAX), n = rnd(1, SHORT_MAX);
		gen_random(a, m, it % 3 == 0 ? K_LOW : K_IUPAC);
		gen_random(b, n, it % 3 == 0 ? K_LOW : K_IUPAC);
		if (it % 3 == 1)
			n = mutate(a, m, b, SHORT_MAX, K_IUPAC, 10, 5, 5);
		if (n < 1)
			b[0] = 0, n = 1;
		for (int mode = 0; mode < 3; mode++) {
			dpf_result_t x, y;
			CHECK(dpf_align(mode, sc, a, m, b, n, DPF_START_AUTO, &x) == 0, "full");
			CHECK(dpf_align_lin(mode, sc, a, m, b, n, &y) == 0, "lin");
			CHECK(memcmp(&x, &y, sizeof(x)) == 0, "full and two-row oracles differ");
		}
	}
	/* Hand-checked answers: the tie rules. */
	dpf_result_t o;
	static const uint8_t aa[] = { 0, 0 }, aaaa[] = { 0, 0, 0, 0 };
	dpf_align(NW_MODE_LOCAL, sc, aa, 2, aaaa, 4, DPF_START_AUTO, &o); /* AA in AAAA */
	CHECK(o.score == 4 && o.qstart == 0 && o.qend == 2 && o.rstart == 0 && o.rend == 2,
	      "local AA/AAAA: %" PRId64 " [%" PRId64 ",%" PRId64 ") [%" PRId64 ",%" PRId64 ")",
	      o.score, o.qstart, o.qend, o.rstart, o.rend);
	dpf_align(NW_MODE_SEMIGLOBAL, sc, aa, 2, aaaa, 4, DPF_START_AUTO, &o);
	CHECK(o.score == 4 && o.qstart == 0 && o.qend == 2 && o.rstart == 0 && o.rend == 2,
	      "semiglobal AA/AAAA");
	static const uint8_t c1[] = { 1 };
	dpf_align(NW_MODE_LOCAL, sc, c1, 1, aaaa, 4, DPF_START_AUTO, &o);
	CHECK(o.score == 0 && o.qstart == 0 && o.qend == 0 && o.rstart == 0 && o.rend == 0,
	      "local C/AAAA");
	dpf_align(NW_MODE_SEMIGLOBAL, sc, c1, 1, aaaa, 4, DPF_START_AUTO, &o);
	CHECK(o.score == -4 && o.qstart == 0 && o.qend == 1 && o.rstart == 0 && o.rend == 1,
	      "semiglobal C/AAAA: %" PRId64 " [%" PRId64 ",%" PRId64 ") [%" PRId64 ",%" PRId64 ")",
	      o.score, o.qstart, o.qend, o.rstart, o.rend);
	dpf_align(NW_MODE_GLOBAL, sc, c1, 1, aaaa, 4, DPF_START_AUTO, &o);
	CHECK(o.score == -4 - (4 + 3 * 2), "global C/AAAA %" PRId64, o.score);
}

/* Thousands of short pairs. */
static void test_short(const scoring_case_t *c, int n_pairs)
{
	int prot = c->sc.alphabet == NW_ALPHA_PROTEIN;
	uint8_t q[4 * SHORT_MAX], r[4 * SHORT_MAX], tmp[4 * SHORT_MAX];
	for (int it = 0; it < n_pairs; it++) {
		int kind = prot ? K_PROT : (it & 1) ? K_IUPAC : K_ACGT;
		int64_t m, n;
		switch (it % 6) {
		case 0: /* unrelated */
			m = rnd(1, SHORT_MAX);
			n = rnd(1, SHORT_MAX);
			gen_random(q, m, kind);
			gen_random(r, n, kind);
			break;
		case 1: /* related, ~15% edits */
			m = rnd(1, SHORT_MAX);
			gen_random(q, m, kind);
			n = mutate(q, m, r, SHORT_MAX, kind, 10, 4, 4);
			break;
		case 2: { /* query embedded in a longer reference */
			m = rnd(1, 25);
			gen_random(q, m, kind);
			int64_t a = rnd(0, 8), k;
			gen_random(r, a, kind);
			k = mutate(q, m, r + a, SHORT_MAX - a, kind, 8, 3, 3);
			n = a + k;
			int64_t b = rnd(0, SHORT_MAX - n);
			gen_random(r + n, b, kind);
			n += b;
			break;
		}
		case 3: { /* reference embedded in a longer query */
			n = rnd(1, 25);
			gen_random(r, n, kind);
			int64_t a = rnd(0, 8), k;
			gen_random(q, a, kind);
			k = mutate(r, n, q + a, SHORT_MAX - a, kind, 8, 3, 3);
			m = a + k;
			int64_t b = rnd(0, SHORT_MAX - m);
			gen_random(q + m, b, kind);
			m += b;
			break;
		}
		case 4: /* two letters: many ties */
			m = rnd(1, SHORT_MAX);
			n = rnd(1, SHORT_MAX);
			gen_random(q, m, K_LOW);
			gen_random(r, n, K_LOW);
			break;
		default: { /* tandem repeats with a few edits */
			int64_t per = rnd(1, 4);
			uint8_t unit[4];
			gen_random(unit, per, kind);
			m = rnd(1, SHORT_MAX);
			for (int64_t i = 0; i < m; i++)
				tmp[i] = unit[i % per];
			n = mutate(tmp, m, r, SHORT_MAX, kind, 5, 5, 5);
			int64_t s = rnd(0, per - 1);
			for (int64_t i = 0; i < m; i++)
				q[i] = unit[(i + s) % per];
			break;
		}
		}
		if (m < 1) {
			m = 1;
			q[0] = rand_code(kind);
		}
		if (n < 1) {
			n = 1;
			r[0] = rand_code(kind);
		}
		check_all_modes("short random", c, q, m, r, n);
	}
}

/* One-residue and identical pairs. */
static void test_special(const scoring_case_t *c)
{
	int prot = c->sc.alphabet == NW_ALPHA_PROTEIN;
	int kind = prot ? K_PROT : K_IUPAC;
	int ncodes = prot ? NW_PROTEIN_CODES : NW_DNA_CODES;
	uint8_t q[64], r[64];
	for (int a = 0; a < ncodes; a += prot ? 3 : 1) {   /* 1 x 1 */
		for (int b = 0; b < ncodes; b += prot ? 5 : 1) {
			q[0] = (uint8_t)a;
			r[0] = (uint8_t)b;
			check_all_modes("1 x 1", c, q, 1, r, 1);
		}
	}
	for (int it = 0; it < 30; it++) { /* 1 x n, n x 1 */
		int64_t n = rnd(1, 40);
		q[0] = rand_code(kind);
		gen_random(r, n, kind);
		if (it % 3 == 0)
			r[rnd(0, n - 1)] = q[0];
		check_all_modes("1 x n", c, q, 1, r, n);
		check_all_modes("n x 1", c, r, n, q, 1);
	}
	for (int it = 0; it < 20; it++) { /* identical */
		int64_t n = rnd(1, 60);
		gen_random(q, n, it % 4 == 0 ? K_LOW : kind);
		check_all_modes("identical", c, q, n, q, n);
	}
	if (getenv("NW_TEST_EMPTY") && atoi(getenv("NW_TEST_EMPTY"))) {
		gen_random(q, 10, kind);
		check_all_modes("empty query", c, q, 0, q, 10);
		check_all_modes("empty reference", c, q, 10, q, 0);
		check_all_modes("both empty", c, q, 0, q, 0);
	}
}

/* Pairs of 100..600. */
static void test_medium(const scoring_case_t *c, int n_pairs)
{
	int prot = c->sc.alphabet == NW_ALPHA_PROTEIN;
	uint8_t *q = malloc(2000), *r = malloc(2000);
	if (!q || !r) {
		tu_failed++;
		goto done;
	}
	for (int it = 0; it < n_pairs; it++) {
		int kind = prot ? K_PROT : (it & 1) ? K_IUPAC : K_ACGT;
		int64_t m = rnd(100, 600), n;
		gen_random(q, m, kind);
		if (it % 3 == 0) {
			n = rnd(100, 600);
			gen_random(r, n, kind);
		} else if (it % 3 == 1) {
			n = mutate(q, m, r, 600, kind, 10, 5, 5);
		} else { /* a region of q inside a longer r */
			int64_t a = rnd(0, 100), s = rnd(0, m / 3), e = rnd(2 * m / 3, m), k;
			gen_random(r, a, kind);
			k = mutate(q + s, e - s, r + a, 700 - a, kind, 8, 4, 4);
			n = a + k;
			int64_t b = rnd(0, 100);
			gen_random(r + n, b, kind);
			n += b;
		}
		if (n < 1) {
			n = 1;
			r[0] = rand_code(kind);
		}
		check_all_modes("100..600", c, q, m, r, n);
	}
done:
	free(q);
	free(r);
}

/* A need (nw_align_params_t.need, need[0] the pair's): a pair that reaches it gets its
 * exact score and end, one that does not a score below it. Global and semiglobal pairs of
 * 300..900, related and not, with the pruned sweeps from 2,000 cells (so the need prunes
 * them) and without (the full pass). */
static void test_need(const scoring_case_t *c, int n_pairs)
{
	static uint8_t q[1000], r[1000];
	for (int it = 0; it < n_pairs; it++) {
		const int kind = c->sc.alphabet == NW_ALPHA_PROTEIN ? K_PROT : K_ACGT;
		const int64_t m = rnd(300, 900);
		gen_random(q, m, kind);
		const int64_t n = it % 4 == 0 ? (gen_random(r, m, kind), m)
				  : mutate(q, m, r, 1000, kind, 2 * (it % 5), it % 3, it % 4);
		for (int mode = 0; mode < 2 && n > 0; mode++) {
			nw_align_params_t p = {.mode = mode ? NW_MODE_SEMIGLOBAL : NW_MODE_GLOBAL,
					       .sc = &c->sc, .ends_only = 1};
			nw_result_t exact, got;
			memset(&exact, 0, sizeof exact);
			if (nw_cpu_align(&p, q, m, r, n, ws, &exact) != 0) {
				CHECK(0, "need: the plain pass failed");
				continue;
			}
			const int64_t needs[4] = {exact.score - 40, exact.score, exact.score + 1,
						  exact.score + 100000};
			for (int k = 0; k < 4; k++) {
				p.need = &needs[k];
				memset(&got, 0, sizeof got);
				int rc = nw_cpu_align(&p, q, m, r, n, ws, &got);
				if (k < 2)
					CHECK(rc == 0 && got.score == exact.score && got.rend == exact.rend &&
					      got.qend == exact.qend,
					      "need %s [%s] %" PRId64 " x %" PRId64 ", need %" PRId64
					      ": got %" PRId64 " end %" PRId64 ", want %" PRId64 " end %" PRId64,
					      mode ? "semiglobal" : "global", c->label, m, n, needs[k],
					      got.score, got.rend, exact.score, exact.rend);
				else
					CHECK(rc == 0 && got.score < needs[k],
					      "need %s [%s] %" PRId64 " x %" PRId64 ", need %" PRId64
					      ": got %" PRId64 " (rc %d), want less", mode ? "semiglobal" : "global",
					      c->label, m, n, needs[k], got.score, rc);
			}
		}
	}
}

/* Long pairs for the divide and conquer path. dna: 2/4 gaps 4/2; lin: 2/4 gaps 0/2;
 * cheap: 5/4 gaps 10/1 (long gaps pay off in local mode too); prot: blosum62 11/1. */
static void test_long(const scoring_case_t *dna, const scoring_case_t *lin,
		      const scoring_case_t *cheap, const scoring_case_t *prot)
{
	int64_t cap = 12000;
	uint8_t *q = malloc(cap), *r = malloc(cap), *a = malloc(cap), *b = malloc(cap);
	if (!q || !r || !a || !b) {
		tu_failed++;
		goto done;
	}
	/* 3000 x ~2800 DNA, ~10% mutations (more deletions than insertions). */
	int64_t m = 3000, n;
	gen_random(q, m, K_ACGT);
	n = mutate(q, m, r, cap, K_ACGT, 5, 1, 7);
	check_all_modes("3000 x 2800", dna, q, m, r, n);
	check_all_modes("3000 x 2800 linear", lin, q, m, r, n);
	check_pair("3000 x 2800 cheap gaps", NW_MODE_LOCAL, cheap, q, m, r, n);

	/* 1 x 5000 and 5000 x 1. */
	gen_random(r, 5000, K_ACGT);
	q[0] = r[2500];
	check_all_modes("1 x 5000", dna, q, 1, r, 5000);
	check_all_modes("5000 x 1", dna, r, 5000, q, 1);
	check_all_modes("1 x 5000 linear", lin, q, 1, r, 5000);
	check_all_modes("5000 x 1 linear", lin, r, 5000, q, 1);
	q[0] = 4; /* N: no positive local alignment */
	check_all_modes("1 x 5000 N", dna, q, 1, r, 5000);
	check_all_modes("5000 x 1 N", dna, r, 5000, q, 1);

	/* A long insertion crossing the middle query row: q = A X B, r = A' B' (2% edits). */
	for (int t = 0; t < 3; t++) {
		int64_t la = 300 + 150 * t, lx = 700, lb = 400, f = 200;
		gen_random(a, la + lb, K_ACGT);
		memcpy(q, a, la);
		gen_random(q + la, lx, K_ACGT);
		memcpy(q + la + lx, a + la, lb);
		m = la + lx + lb;
		n = mutate(a, la + lb, r, cap, K_ACGT, 2, 0, 0);
		check_all_modes("long insertion across the middle row", dna, q, m, r, n);
		check_all_modes("long insertion across the middle row, cheap gaps", cheap, q, m,
				r, n);
		check_pair("long insertion, linear", NW_MODE_GLOBAL, lin, q, m, r, n);
		/* The same as a deletion. */
		check_all_modes("long deletion", dna, r, n, q, m);
		check_all_modes("long deletion, cheap gaps", cheap, r, n, q, m);
		/* Inside reference flanks (semiglobal and local place it). */
		gen_random(b, f, K_ACGT);
		memcpy(b + f, r, n);
		gen_random(b + f + n, f, K_ACGT);
		check_all_modes("long insertion, reference flanks", cheap, q, m, b, n + 2 * f);
		gen_random(b, f, K_ACGT);
		memcpy(b + f, q, m);
		gen_random(b + f + m, f, K_ACGT);
		check_all_modes("long deletion, reference flanks", cheap, r, n, b, m + 2 * f);
	}
	/* Two long gaps of opposite kinds, the insertion across the middle query row. */
	gen_random(a, 2000, K_ACGT);
	memcpy(q, a, 1000);
	gen_random(q + 1000, 400, K_ACGT);
	memcpy(q + 1400, a + 1000, 1000);
	m = 2400;
	memcpy(r, a, 1500);
	memcpy(r + 1500, a + 1800, 200);
	n = 1700;
	check_all_modes("two long gaps", dna, q, m, r, n);
	check_all_modes("two long gaps, cheap", cheap, q, m, r, n);
	/* Well above any full-matrix threshold of the engine (it splits there): gaps that
	 * cross the middle row at the first and at deeper levels of the recursion. */
	{
		static const int64_t shape[3][3] = { /* A, X, B lengths; q = A X B, r = A' B' */
			{ 2500, 4000, 2500 }, { 1000, 2500, 5500 }, { 1500, 6000, 1500 } };
		uint8_t *bq = malloc(12000), *br = malloc(12000), *bb = malloc(12000);
		if (!bq || !br || !bb) {
			tu_failed++;
		} else {
			for (int t = 0; t < 3; t++) {
				int64_t la = shape[t][0], lx = shape[t][1], lb = shape[t][2];
				gen_random(bb, la + lb, K_ACGT);
				memcpy(bq, bb, la);
				gen_random(bq + la, lx, K_ACGT);
				memcpy(bq + la + lx, bb + la, lb);
				int64_t bm = la + lx + lb;
				int64_t bn = mutate(bb, la + lb, br, 12000, K_ACGT, 3, 0, 0);
				check_pair("big: long insertion (divide and conquer)",
					   t == 1 ? NW_MODE_LOCAL : NW_MODE_GLOBAL, cheap, bq, bm, br,
					   bn);
				check_pair("big: long insertion, linear", NW_MODE_GLOBAL, lin, bq,
					   bm, br, bn);
				check_pair("big: long deletion (divide and conquer)",
					   NW_MODE_SEMIGLOBAL, cheap, br, bn, bq, bm);
			}
			/* Unrelated and mutated big pairs. */
			gen_random(bq, 6000, K_IUPAC);
			int64_t bn = mutate(bq, 6000, br, 12000, K_IUPAC, 12, 4, 4);
			check_pair("big: 6000 mutated 20%", NW_MODE_LOCAL, dna, bq, 6000, br, bn);
			gen_random(br, 5000, K_ACGT);
			check_pair("big: unrelated 6000 x 5000", NW_MODE_GLOBAL, dna, bq, 6000, br,
				   5000);
		}
		free(bq);
		free(br);
		free(bb);
	}
	/* Protein with a long insertion. */
	gen_random(a, 900, K_PROT);
	memcpy(q, a, 450);
	gen_random(q + 450, 500, K_PROT);
	memcpy(q + 950, a + 450, 450);
	m = 1400;
	n = mutate(a, 900, r, cap, K_PROT, 10, 1, 1);
	check_all_modes("protein long insertion", prot, q, m, r, n);
	check_all_modes("protein long deletion", prot, r, n, q, m);
	/* Long unrelated protein pair. */
	gen_random(q, 1500, K_PROT);
	gen_random(r, 1300, K_PROT);
	check_all_modes("protein unrelated 1500 x 1300", prot, q, 1500, r, 1300);
done:
	free(q);
	free(r);
	free(a);
	free(b);
}

/* The global scores of the wavefront recurrence (cpu_wfa.c) against the oracle: n_pairs
 * pairs of 1..700 residues, near copies (0-12 % of substitutions, a third as many
 * insertions and deletions, some with one long deletion) and unrelated ones (to 250),
 * ACGT and IUPAC (N and the ambiguity codes match nothing, not even themselves), every
 * attempt run to its end (mode 2), the steps in each instruction set in turn (the generic
 * one: their scalar twin). A scoring that is not of the match/mismatch form is declined. */
static void test_wfa(const scoring_case_t *c, int n_pairs, int64_t *found)
{
	enum { CAP = 1000 };
	uint8_t *q = malloc(CAP), *r = malloc(CAP);
	int ma, mi, K;
	const int mm = nw_scoring_mm(&c->sc, &ma, &mi, &K) && K == 4 && ma >= 0 && mi < ma;
	nw_workspace_set_wfa(ws, 2);
	for (int it = 0; q && r && it < n_pairs; it++) {
		const int kind = it % 3 == 2 ? K_IUPAC : K_ACGT;
		const int64_t m = it % 10 == 0 ? rnd(1, 8) : rnd(50, 700);
		gen_random(q, m, kind);
		int64_t n;
		if (it % 7 == 3) { /* unrelated: short, the wavefronts' dearest case */
			n = rnd(1, 250);
			gen_random(r, n, kind);
		} else if (it % 7 == 5 && m > 40) { /* one long deletion, and a few edits */
			const int64_t at = rnd(0, m - 40), len = rnd(10, 40);
			memcpy(r, q, (size_t)at);
			n = at + mutate(q + at + len, m - at - len, r + at, CAP - at, kind, 2, 1, 1);
		} else {
			const int rate = (int)rnd(0, 12);
			n = mutate(q, m, r, CAP, kind, rate, rate / 3, rate / 3);
		}
		if (n < 1)
			continue;
		/* the wavefront steps in every instruction set the processor has, in turn */
		const int isa = it % NW_ISA_COUNT;
		nw_workspace_set_isa(ws, nw_cpu_isa_supported(isa) ? isa : -1);
		int64_t s = 0;
		const int ret = nw_wfa_global_score(ws, &c->sc, q, m, r, n, INT64_MAX / 4, &s);
		if (!mm) {
			CHECK(ret == 0, "%s: wavefronts decline a scoring not of the match/mismatch form",
			      c->label);
			break;
		}
		const int64_t want = dpf_global_score(&c->sc, q, m, r, n);
		const int ok = ret == 1 && s == want;
		CHECK(ok, "%s: wavefront score %" PRId64 " (ret %d), oracle %" PRId64 " (%" PRId64
		      " x %" PRId64 ")", c->label, s, ret, want, m, n);
		if (!ok) {
			print_seq("q", q, m, NW_ALPHA_DNA);
			print_seq("r", r, n, NW_ALPHA_DNA);
			break;
		}
		*found += 1;
	}
	nw_workspace_set_wfa(ws, 1);
	nw_workspace_set_isa(ws, -1);
	free(q);
	free(r);
}

/* CPU seconds of each section on stderr. */
static void lap(const char *what)
{
	static clock_t last;
	clock_t now = clock();
	fprintf(stderr, "unit_cpu: %-24s %6.1f s CPU, %ld checks passed, %ld failed\n", what,
		(double)(now - last) / CLOCKS_PER_SEC, tu_passed, tu_failed);
	last = now;
}

int main(void)
{
	scoring_case_t cases[13];
	int nc = 0;
	memset(cases, 0, sizeof(cases));
	ws = nw_workspace_new();
	CHECK(ws != NULL, "nw_workspace_new");
	if (!ws)
		return tu_finish("unit_cpu");

	make_dna(&cases[nc++], 2, 4, 4, 2);     /* 0: the DNA default */
	make_dna(&cases[nc++], 2, 4, 0, 2);     /* 1: linear */
	make_dna(&cases[nc++], 1, 1, 2, 1);
	make_dna(&cases[nc++], 1, 1, 0, 1);
	make_dna(&cases[nc++], 5, 4, 10, 1);
	make_dna(&cases[nc++], 5, 4, 0, 3);
	make_matrix(&cases[nc++], "ednafull", NW_ALPHA_DNA, 8, 2);
	make_matrix(&cases[nc++], "ednafull", NW_ALPHA_DNA, 0, 4);
	make_matrix(&cases[nc++], "blosum62", NW_ALPHA_PROTEIN, 11, 1); /* 8 */
	make_matrix(&cases[nc++], "blosum62", NW_ALPHA_PROTEIN, 0, 4);
	make_matrix(&cases[nc++], "pam250", NW_ALPHA_PROTEIN, 10, 2);
	make_matrix(&cases[nc++], "pam250", NW_ALPHA_PROTEIN, 0, 6);
	/* Gaps so dear that the 16-bit pass covers only a few reference columns: reverse
	 * passes give up on it and the scalar pass decides. */
	make_dna(&cases[nc++], 2, 4, 0, 1000);

	if (cases[0].ok)
		test_checker(&cases[0]);
	lap("oracle checks");
	for (int i = 0; i < nc; i++) {
		if (!cases[i].ok)
			continue;
		test_short(&cases[i], 400);
		test_special(&cases[i]);
	}
	lap("short and special pairs");
	/* The same short pairs again with full-matrix traceback only below 16 cells, so that
	 * every path goes through the Myers-Miller split, gap-crossing cases included. */
	nw_workspace_set_full_cells(ws, 16);
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_short(&cases[i], 150);
	nw_workspace_set_full_cells(ws, 0);
	lap("short pairs, split paths");
	/* The striped SIMD pass is the default; its scalar twin gets the short pairs too. */
	nw_workspace_set_simd(ws, 0);
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_short(&cases[i], 150);
	nw_workspace_set_simd(ws, 1);
	lap("short pairs, scalar passes");
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_medium(&cases[i], 8);
	lap("pairs of 100..600");
	/* The same sizes again with the global and semiglobal scores of pairs from 2,000
	 * cells up found by pruned sweeps first (cpu_prune.c; by default from 16M cells):
	 * the similar pairs' scores come from them, the others fall back to the full pass;
	 * each must equal the oracle's, and the route must have been taken. Then the scalar
	 * twin of the sweeps, and needs (test_need). */
	nw_workspace_set_pruned_min(ws, 2000);
	nw_workspace_set_wfa(ws, 0); /* the sweeps alone first; wavefronts below */
	int64_t pruned0, pruned1, starts0, starts1, later, later_starts;
	nw_workspace_pruned_counts(ws, &pruned0, &starts0);
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_medium(&cases[i], 8);
	nw_workspace_pruned_counts(ws, &pruned1, &starts1);
	CHECK(pruned1 - pruned0 >= 20, "pruned scores on pairs of 100..600: %" PRId64,
	      pruned1 - pruned0);
	CHECK(starts1 - starts0 >= 20, "pruned starts on pairs of 100..600: %" PRId64,
	      starts1 - starts0);
	nw_workspace_set_simd(ws, 0);
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_medium(&cases[i], 4);
	nw_workspace_set_simd(ws, 1);
	nw_workspace_pruned_counts(ws, &later, &later_starts);
	CHECK(later > pruned1, "pruned scores, scalar sweeps");
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_need(&cases[i], 6);
	nw_workspace_set_pruned_min(ws, 0);
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_need(&cases[i], 2);
	nw_workspace_set_pruned_min(ws, 2000);
	lap("pairs of 100..600, global scores by pruned sweeps");
	/* Wavefronts: the function itself on every scoring, then the route through
	 * nw_cpu_align for global pairs (mode 2: no rule of cost, so that every similar
	 * pair of 2,000 cells or more takes it), each score the oracle's. */
	int64_t wfa_found = 0;
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_wfa(&cases[i], 60, &wfa_found);
	CHECK(wfa_found >= 300, "wavefront scores checked: %" PRId64, wfa_found);
	lap("wavefront scores");
	const int64_t wfa0 = nw_workspace_wfa_scores(ws);
	nw_workspace_set_wfa(ws, 2);
	for (int i = 0; i < nc; i++)
		if (cases[i].ok)
			test_medium(&cases[i], 3);
	nw_workspace_set_wfa(ws, 1);
	CHECK(nw_workspace_wfa_scores(ws) - wfa0 >= 20, "global scores by wavefronts through "
	      "nw_cpu_align: %" PRId64, nw_workspace_wfa_scores(ws) - wfa0);
	lap("global scores by wavefronts");
	if (cases[0].ok && cases[1].ok && cases[4].ok && cases[8].ok)
		test_long(&cases[0], &cases[1], &cases[4], &cases[8]);
	nw_workspace_pruned_counts(ws, &later, &later_starts);
	CHECK(later > pruned1 && later_starts > starts1, "pruned scores and starts on long pairs");
	lap("long pairs");
	nw_workspace_free(ws);
	return tu_finish("unit_cpu");
}
