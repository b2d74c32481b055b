/* unit_cigar.c: the CIGAR utilities of src/cigar.c: push (merging, splitting at the BAM
 * run limit, growth), reverse, stats, spans, rescore (hand-computed scores, error cases,
 * random paths against a column-by-column model), write, and buffers lent from a block.
 *
 * Scoring used throughout (filled by hand, not by nw_scoring_dna, so that this test
 * depends on cigar.c alone): DNA codes A0 C1 G2 T3 N4; identical ACGT codes score +2,
 * every other pair -4 (N vs N too); a gap of length L costs 4 + 2L.
 */
#include <stdlib.h>
#include <string.h>

#include "nwalign.h"
#include "testutil.h"

#define RUN_MAX ((1u << 28) - 1)

static void fill_scoring(nw_scoring_t *sc, int gap_open, int gap_extend)
{
	int i, j;

	memset(sc, 0, sizeof(*sc));
	sc->alphabet = NW_ALPHA_DNA;
	sc->n_codes = NW_DNA_CODES;
	for (i = 0; i < NW_MAX_CODES; i++)
		for (j = 0; j < NW_MAX_CODES; j++)
			sc->score[i][j] = i == j && i < 4 ? 2 : -4;
	sc->gap_open = gap_open;
	sc->gap_extend = gap_extend;
	sc->max_score = 2;
	sc->min_score = -4;
	strcpy(sc->name, "match2/mismatch4");
}

/* "ACGTN" text to codes */
static uint8_t *enc(const char *s)
{
	static uint8_t buf[4][64];
	static int k;
	uint8_t *b = buf[k++ & 3];
	size_t i;

	for (i = 0; s[i]; i++)
		b[i] = (uint8_t)(strchr("ACGTN", s[i]) - "ACGTN");
	return b;
}

/* Parse "2=1X3I" into cigar[]; returns the run count. Runs are kept as written (no
 * merging), so split runs of one op can be expressed. */
static int64_t parse(const char *s, uint32_t *cigar)
{
	int64_t n = 0;

	while (*s) {
		char *e;
		unsigned long l = strtoul(s, &e, 10);
		cigar[n++] = NW_CIGAR_PACK(l, strchr("MIDNSHP=X", *e) - "MIDNSHP=X");
		s = e + 1;
	}
	return n;
}

/* Rescore text path over text sequences; returns the rescore code, score in *score. */
static int rescore(const nw_scoring_t *sc, const char *path, const char *q, int64_t qstart,
		   const char *r, int64_t rstart, int64_t *score, char *err)
{
	uint32_t cig[64];
	int64_t n = parse(path, cig);
	const uint8_t *qc = enc(q), *rc = enc(r);

	*score = -999999;
	return nw_cigar_rescore(cig, n, sc, qc, (int64_t)strlen(q), qstart, rc,
				(int64_t)strlen(r), rstart, score, err, 256);
}

static char *cigar_text(const uint32_t *cigar, int64_t n)
{
	static char buf[1 << 16];
	FILE *fp = tmpfile();
	size_t got;

	if (!fp)
		return strcpy(buf, "(tmpfile failed)");
	CHECK(nw_cigar_write(fp, cigar, n) == 0, "nw_cigar_write");
	rewind(fp);
	got = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[got] = 0;
	fclose(fp);
	return buf;
}

static void test_push(void)
{
	nw_result_t res;
	int64_t i;

	memset(&res, 0, sizeof(res));
	CHECK(nw_cigar_push(&res, NW_CIGAR_EQ, 3) == 0, "push");
	CHECK(nw_cigar_push(&res, NW_CIGAR_EQ, 2) == 0, "push merge");
	CHECK_EQ_I64(res.n_cigar, 1, "same op merges");
	CHECK_EQ_I64(res.cigar[0], NW_CIGAR_PACK(5, NW_CIGAR_EQ), "5=");
	CHECK(nw_cigar_push(&res, NW_CIGAR_X, 0) == 0, "empty push");
	CHECK_EQ_I64(res.n_cigar, 1, "an empty run adds nothing");
	CHECK(nw_cigar_push(&res, NW_CIGAR_X, 1) == 0, "push X");
	CHECK(nw_cigar_push(&res, NW_CIGAR_EQ, 1) == 0, "push =");
	CHECK_EQ_I64(res.n_cigar, 3, "different ops do not merge");
	CHECK(strcmp(cigar_text(res.cigar, res.n_cigar), "5=1X1=") == 0, "text %s",
	      cigar_text(res.cigar, res.n_cigar));
	CHECK(nw_cigar_push(&res, NW_CIGAR_D, -1) < 0, "negative length is an error");
	nw_result_free(&res);
	CHECK(res.cigar == NULL && res.n_cigar == 0 && res.m_cigar == 0, "free resets");
	nw_result_free(&res); /* twice is harmless */

	/* A run longer than 2^28-1 is split into runs of the same op. */
	CHECK(nw_cigar_push(&res, NW_CIGAR_D, (int64_t)RUN_MAX + 6) == 0, "long push");
	CHECK_EQ_I64(res.n_cigar, 2, "split in two");
	CHECK_EQ_I64(res.cigar[0], NW_CIGAR_PACK(RUN_MAX, NW_CIGAR_D), "full run first");
	CHECK_EQ_I64(res.cigar[1], NW_CIGAR_PACK(6, NW_CIGAR_D), "remainder");
	CHECK(nw_cigar_push(&res, NW_CIGAR_D, 10) == 0, "push onto split");
	CHECK_EQ_I64(res.n_cigar, 2, "merges into the last run");
	CHECK_EQ_I64(res.cigar[1], NW_CIGAR_PACK(16, NW_CIGAR_D), "6+10");
	nw_result_free(&res);

	/* Merging fills the last run up to the limit, then starts a new one. */
	CHECK(nw_cigar_push(&res, NW_CIGAR_I, RUN_MAX - 2) == 0, "near full");
	CHECK(nw_cigar_push(&res, NW_CIGAR_I, 5) == 0, "overflowing merge");
	CHECK_EQ_I64(res.n_cigar, 2, "overflow starts a new run");
	CHECK_EQ_I64(NW_CIGAR_LEN(res.cigar[0]), RUN_MAX, "filled");
	CHECK_EQ_I64(NW_CIGAR_LEN(res.cigar[1]), 3, "rest");
	nw_result_free(&res);

	/* Three full runs and one more from a single push of 3*(2^28-1)+1. */
	CHECK(nw_cigar_push(&res, NW_CIGAR_EQ, 3 * (int64_t)RUN_MAX + 1) == 0, "huge push");
	CHECK_EQ_I64(res.n_cigar, 4, "four runs");
	CHECK_EQ_I64(NW_CIGAR_LEN(res.cigar[3]), 1, "last run");
	nw_cigar_stats(&res);
	CHECK_EQ_I64(res.matches, 3 * (int64_t)RUN_MAX + 1, "stats over split runs");
	nw_result_free(&res);

	/* Growth: many alternating runs survive reallocation. */
	for (i = 0; i < 10000; i++)
		CHECK(nw_cigar_push(&res, i & 1 ? NW_CIGAR_X : NW_CIGAR_EQ, i % 7 + 1) == 0,
		      "push %lld", (long long)i);
	CHECK_EQ_I64(res.n_cigar, 10000, "alternating runs");
	CHECK(res.m_cigar >= res.n_cigar, "capacity");
	for (i = 0; i < 10000; i++)
		if (res.cigar[i] != NW_CIGAR_PACK(i % 7 + 1, i & 1 ? NW_CIGAR_X : NW_CIGAR_EQ))
			break;
	CHECK_EQ_I64(i, 10000, "contents after growth");
	nw_result_free(&res);

	/* Reserve: room for the runs at once (no move while pushing them), the runs kept when
	 * it grows, nothing done when there is room. */
	CHECK(nw_cigar_reserve(&res, 37) == 0 && res.m_cigar >= 37, "reserve 37");
	const uint32_t *at = res.cigar;
	for (i = 0; i < 37; i++)
		CHECK(nw_cigar_push(&res, i & 1 ? NW_CIGAR_I : NW_CIGAR_EQ, 2) == 0, "push %lld",
		      (long long)i);
	CHECK(res.cigar == at && res.n_cigar == 37, "37 pushes in the reserved room");
	CHECK(nw_cigar_reserve(&res, 10) == 0 && res.cigar == at, "reserve below the capacity");
	CHECK(nw_cigar_reserve(&res, 1000) == 0 && res.m_cigar >= 1000 && res.n_cigar == 37,
	      "reserve grows");
	for (i = 0; i < 37; i++)
		if (res.cigar[i] != NW_CIGAR_PACK(2, i & 1 ? NW_CIGAR_I : NW_CIGAR_EQ))
			break;
	CHECK_EQ_I64(i, 37, "the runs kept when the reserve grows");
	CHECK(nw_cigar_reserve(&res, 0) == 0 && res.n_cigar == 37, "reserve 0");
	nw_result_free(&res);
}

static void test_reverse_stats_spans(void)
{
	nw_result_t res;
	int64_t qs, rs;
	uint32_t c[16];

	memset(&res, 0, sizeof(res));
	nw_cigar_reverse(&res); /* empty: nothing to do */
	nw_cigar_push(&res, NW_CIGAR_D, 3);
	nw_cigar_push(&res, NW_CIGAR_I, 2);
	nw_cigar_push(&res, NW_CIGAR_X, 1);
	nw_cigar_push(&res, NW_CIGAR_EQ, 5);
	nw_cigar_reverse(&res);
	CHECK(strcmp(cigar_text(res.cigar, res.n_cigar), "5=1X2I3D") == 0, "even reverse");
	nw_cigar_stats(&res);
	CHECK_EQ_I64(res.matches, 5, "matches = '=' count");
	CHECK_EQ_I64(res.aln_len, 11, "aln_len = 5+1+2+3");
	CHECK_EQ_I64(res.edits, 6, "edits = 1+2+3");
	nw_cigar_push(&res, NW_CIGAR_EQ, 4);
	nw_cigar_reverse(&res);
	CHECK(strcmp(cigar_text(res.cigar, res.n_cigar), "4=3D2I1X5=") == 0, "odd reverse");
	nw_result_free(&res);

	/* Spans: the query consumes = X I S, the reference = X D. */
	nw_cigar_spans(c, parse("2S5=1X2I3D4S", c), &qs, &rs);
	CHECK_EQ_I64(qs, 2 + 5 + 1 + 2 + 4, "query span");
	CHECK_EQ_I64(rs, 5 + 1 + 3, "reference span");
	nw_cigar_spans(c, 0, &qs, &rs);
	CHECK(qs == 0 && rs == 0, "empty spans");
	/* Clips are not alignment columns. */
	res.cigar = c;
	res.n_cigar = parse("3S2=1D3S", c);
	nw_cigar_stats(&res);
	CHECK(res.matches == 2 && res.aln_len == 3 && res.edits == 1, "stats skip clips");
}

static void test_rescore(void)
{
	nw_scoring_t sc;
	int64_t s;
	char err[256];

	fill_scoring(&sc, 4, 2);
	/* 4 matches: 4*2 = 8 */
	CHECK(rescore(&sc, "4=", "ACGT", 0, "ACGT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, 8, "4=");
	/* ACGTA/ACTTA: 2 + 2 - 4 + 2 + 2 = 4 */
	CHECK(rescore(&sc, "2=1X2=", "ACGTA", 0, "ACTTA", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, 4, "2=1X2=");
	/* ACGGT/ACT: 2+2, insertion GG = -(4 + 2*2) = -8, T/T +2: total -2 */
	CHECK(rescore(&sc, "2=2I1=", "ACGGT", 0, "ACT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, -2, "2=2I1=");
	/* Deletion: ACT/ACGGGT: 4 - (4 + 3*2) + 2 = -4 */
	CHECK(rescore(&sc, "2=3D1=", "ACT", 0, "ACGGGT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, -4, "2=3D1=");
	/* Adjacent I and D are two gaps: 2 - 6 - 6 + 2 = -8 */
	CHECK(rescore(&sc, "1=1I1D1=", "AGT", 0, "ACT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, -8, "1=1I1D1=");
	/* A run split in two (as at the 2^28 limit) is one gap: 2 - (4 + 2*2) + 2 = -4 */
	CHECK(rescore(&sc, "1=1I1I1=", "AGGT", 0, "AT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, -4, "1=1I1I1=");
	/* Two insertions separated by a match are two gaps: 2 - 6 + 2 - 6 + 2 = -6 */
	CHECK(rescore(&sc, "1=1I1=1I1=", "AGCGT", 0, "ACT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, -6, "1=1I1=1I1=");
	/* N vs N: identical codes, so '=', but the matrix says -4: 2 - 4 + 2 = 0 */
	CHECK(rescore(&sc, "3=", "ANT", 0, "ANT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, 0, "N=N scores -4");
	/* N vs A is a mismatch of codes: X, -4 */
	CHECK(rescore(&sc, "1X", "N", 0, "A", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, -4, "NxA");
	/* Soft clips are skipped on the query: 2S4= over GGACGT/ACGT = 8 */
	CHECK(rescore(&sc, "2S4=1S", "GGACGTC", 0, "ACGT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, 8, "clips");
	/* Start offsets: query from 2, reference from 1: ACG/ACG = 6 */
	CHECK(rescore(&sc, "3=", "TTACGTT", 2, "CACG", 1, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, 6, "offsets");
	/* An empty path scores 0, also at the very end of both sequences */
	CHECK(rescore(&sc, "", "ACG", 3, "AC", 2, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, 0, "empty path");
	/* Linear gaps (open 0): 4 - 2*2 + 2 = 2 */
	fill_scoring(&sc, 0, 2);
	CHECK(rescore(&sc, "2=2I1=", "ACGGT", 0, "ACT", 0, &s, err) == 0, "%s", err);
	CHECK_EQ_I64(s, 2, "linear");
	fill_scoring(&sc, 4, 2);

	/* Errors: the path runs past a sequence, or claims a wrong match state. */
	CHECK(rescore(&sc, "4=", "ACG", 0, "ACGT", 0, &s, err) < 0, "query too short");
	CHECK(strstr(err, "query") != NULL, "message names the query: %s", err);
	CHECK(rescore(&sc, "3=1D", "ACG", 0, "ACG", 0, &s, err) < 0, "reference too short");
	CHECK(strstr(err, "reference") != NULL, "message names the reference: %s", err);
	CHECK(rescore(&sc, "3=1I", "ACG", 0, "ACG", 0, &s, err) < 0, "insertion past end");
	CHECK(rescore(&sc, "2=1S", "ACG", 1, "ACG", 0, &s, err) < 0, "clip past end");
	CHECK(rescore(&sc, "1=", "ACG", 4, "ACG", 0, &s, err) < 0, "qstart past end");
	CHECK(rescore(&sc, "1=", "ACG", 0, "ACG", -1, &s, err) < 0, "negative rstart");
	CHECK(rescore(&sc, "2=", "AC", 0, "AG", 0, &s, err) < 0, "'=' on unequal codes");
	CHECK(strstr(err, "different") != NULL, "message: %s", err);
	CHECK(rescore(&sc, "1X", "N", 0, "N", 0, &s, err) < 0, "'X' on equal codes");
	CHECK(rescore(&sc, "2M", "AC", 0, "AC", 0, &s, err) < 0, "M is not accepted");
	CHECK(rescore(&sc, "2H", "AC", 0, "AC", 0, &s, err) < 0, "H is not accepted");
	CHECK_EQ_I64(s, -999999, "score untouched on error");
}

/* Random paths: push one column at a time (merging), then compare rescore with a
 * column-by-column model that opens a gap whenever the gap type changes. */
static void test_rescore_random(void)
{
	nw_scoring_t sc;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	int t;

	for (t = 0; t < 500; t++) {
		uint8_t q[400], r[400];
		int64_t qn = 0, rn = 0, expect = 0, eq = 0, cols = 0, s = 0, qs, rs;
		int prev = 0, ncol = (int)(tu_rand(&seed) % 150), c;
		nw_result_t res;
		char err[256];

		fill_scoring(&sc, (int)(tu_rand(&seed) % 6), 1 + (int)(tu_rand(&seed) % 3));
		memset(&res, 0, sizeof(res));
		for (c = 0; c < ncol; c++) {
			int kind = (int)(tu_rand(&seed) % 4); /* 0 =, 1 X, 2 I, 3 D */
			uint8_t a = (uint8_t)(tu_rand(&seed) % 5), b = a;
			if (kind == 1)
				while (b == a)
					b = (uint8_t)(tu_rand(&seed) % 5);
			if (kind <= 1) {
				q[qn++] = a;
				r[rn++] = b;
				expect += sc.score[a][b];
				eq += kind == 0;
				nw_cigar_push(&res, kind ? NW_CIGAR_X : NW_CIGAR_EQ, 1);
			} else {
				if (prev != kind)
					expect -= sc.gap_open;
				expect -= sc.gap_extend;
				if (kind == 2)
					q[qn++] = a;
				else
					r[rn++] = a;
				nw_cigar_push(&res, kind == 2 ? NW_CIGAR_I : NW_CIGAR_D, 1);
			}
			prev = kind;
			cols++;
		}
		CHECK(nw_cigar_rescore(res.cigar, res.n_cigar, &sc, q, qn, 0, r, rn, 0, &s, err,
				       sizeof(err)) == 0, "trial %d: %s", t, err);
		CHECK_EQ_I64(s, expect, "trial %d", t);
		nw_cigar_stats(&res);
		CHECK(res.matches == eq && res.aln_len == cols, "trial %d stats", t);
		nw_cigar_spans(res.cigar, res.n_cigar, &qs, &rs);
		CHECK(qs == qn && rs == rn, "trial %d spans", t);
		nw_result_free(&res);
	}
}

static void test_write(void)
{
	uint32_t c[8];
	nw_result_t res;
	char expect[1 << 15], *e = expect;
	FILE *fp;
	int64_t i;

	CHECK(strcmp(cigar_text(c, parse("5=1X2I3D", c)), "5=1X2I3D") == 0, "simple");
	CHECK(strcmp(cigar_text(c, 0), "*") == 0, "empty is *");
	CHECK(strcmp(cigar_text(NULL, 0), "*") == 0, "NULL is *");
	c[0] = NW_CIGAR_PACK(RUN_MAX, NW_CIGAR_D);
	c[1] = NW_CIGAR_PACK(1, NW_CIGAR_S);
	CHECK(strcmp(cigar_text(c, 2), "268435455D1S") == 0, "longest run");

	/* More text than the function's internal buffer. */
	memset(&res, 0, sizeof(res));
	for (i = 0; i < 3000; i++) {
		nw_cigar_push(&res, i & 1 ? NW_CIGAR_I : NW_CIGAR_EQ, i + 1);
		e += sprintf(e, "%lld%c", (long long)(i + 1), i & 1 ? 'I' : '=');
	}
	CHECK(strcmp(cigar_text(res.cigar, res.n_cigar), expect) == 0, "3000 runs");
	nw_result_free(&res);

	/* A failed write is reported (unbuffered, so the failure shows at once). */
	if ((fp = fopen("/dev/full", "w")) != NULL) {
		setvbuf(fp, NULL, _IONBF, 0);
		CHECK(nw_cigar_write(fp, c, 2) < 0, "write to /dev/full fails");
		CHECK(nw_cigar_write(fp, c, 0) < 0, "'*' to /dev/full fails");
		fclose(fp);
	}
}

/* nw_cigar_lend: each result's buffer is its own piece of the block; a path that outgrows
 * its piece moves to an allocation of its own with its runs, and the others' pieces stay;
 * freeing the results leaves the block to its owner (ASan and valgrind see any free of a
 * piece, or any write past one). */
static void test_lend(void)
{
	enum { N = 5, RUNS = 4 };
	nw_result_t res[N];
	memset(res, 0, sizeof res);
	uint32_t *block = nw_cigar_lend(res, N, RUNS);
	CHECK(block != NULL, "lend: a block");
	for (int k = 0; k < N; k++)
		CHECK(res[k].cigar == block + k * RUNS && res[k].m_cigar == RUNS && res[k].cigar_lent &&
		      res[k].n_cigar == 0, "lend: result %d has piece %d", k, k);
	for (int k = 0; k < N; k++) /* alternating ops: one run each; result k takes k + 2 */
		for (int i = 0; i < k + 2; i++)
			CHECK(nw_cigar_push(&res[k], i % 2 ? NW_CIGAR_X : NW_CIGAR_EQ, k + 1) == 0, "push");
	for (int k = 0; k < N; k++) {
		const int moved = k + 2 > RUNS;
		CHECK(res[k].n_cigar == k + 2, "lend: result %d holds %lld runs", k,
		      (long long)res[k].n_cigar);
		CHECK(moved ? res[k].cigar_lent == 0 && (res[k].cigar < block || res[k].cigar >= block + N * RUNS)
			    : res[k].cigar_lent == 1 && res[k].cigar == block + k * RUNS,
		      "lend: result %d %s", k, moved ? "moved to its own buffer" : "kept its piece");
		for (int i = 0; i < k + 2; i++)
			CHECK(res[k].cigar[i] == NW_CIGAR_PACK(k + 1, i % 2 ? NW_CIGAR_X : NW_CIGAR_EQ),
			      "lend: result %d run %d", k, i);
	}
	CHECK(nw_cigar_reserve(&res[0], 3) == 0 && res[0].cigar == block, "lend: reserve within");
	for (int k = 0; k < N; k++) {
		nw_result_free(&res[k]);
		CHECK(res[k].cigar == NULL && res[k].m_cigar == 0 && !res[k].cigar_lent, "lend: freed");
	}
	free(block);
	CHECK(nw_cigar_lend(res, 0, RUNS) == NULL, "lend: nothing for no results");
}

int main(void)
{
	test_push();
	test_reverse_stats_spans();
	test_rescore();
	test_rescore_random();
	test_write();
	test_lend();
	return tu_finish("unit_cigar");
}
