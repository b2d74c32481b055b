/* unit_path.c: the path policy of src/path.h and its CPU side (src/path.c, cpu_path.c).
 *
 * Sections:
 *  - nw_path_kind at the NW_PATH_FULL_CELLS threshold, and the kind names;
 *  - nw_mm_split on hand-made rows (first best column; the node before the gap);
 *  - the GACT state machine on hand-made tiles: anchors, limits, the state a kept gap
 *    leaves (and the open the next tile waives), the last tile, refused ops;
 *  - nw_path_finish: a path below the optimum is an error for FULL and EXACT paths and
 *    accepted for GACT (opt_score keeps the optimum); a path off the span is always an
 *    error;
 *  - nw_cpu_gact on random and mutated pairs of 300..3000 residues with small tiles
 *    (T 16, 32, 64; O 0, 4, 12, 24 where T - O >= 8), DNA and protein, affine and linear
 *    gaps: every path consumes the span and scores at most the optimum; with one tile
 *    covering the span it is the full traceback of the reversed sequences (optimal);
 *  - a long insertion over several tiles: one gap, one open, the optimum;
 *  - nw_cpu_align with a path over spans above the threshold: GACT by default (score the
 *    path's, opt_score the optimum), EXACT with p.exact;
 *  - the pruned exact paths on random pairs and near copies with structural changes: the
 *    same path as the unpruned scalar passes, with every instruction set of the SIMD sweep
 *    and with its scalar twin, and a small part of the cells on near copies;
 *  - the SIMD sweep (nw_sweep_fast) against its twin nw_sweep on sub-problems of 1..150
 *    rows and columns with random boundary opens: unpruned, the same rows and direction
 *    bits; pruned by the corner's optimum, every value between the scalar sweep's and the
 *    full pass's, and the same corner.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "band.h"
#include "cpu_isa.h"
#include "nwalign.h"
#include "path.h"
#include "testutil.h"

static uint64_t seed = 0x243f6a8885a308d3ull;
static nw_workspace_t *ws, *team_ws;

static int64_t rnd(int64_t lo, int64_t hi) /* inclusive */
{
	return lo + (int64_t)(tu_rand(&seed) % (uint64_t)(hi - lo + 1));
}

static void gen(uint8_t *s, int64_t len, int n_codes)
{
	for (int64_t i = 0; i < len; i++)
		s[i] = (uint8_t)rnd(0, n_codes - 1);
}

/* src with ~pct% substitutions, insertions and deletions (a third each); new length. */
static int64_t mutate(const uint8_t *src, int64_t len, uint8_t *dst, int n_codes, int pct)
{
	int64_t k = 0;
	for (int64_t i = 0; i < len; i++) {
		int x = (int)rnd(0, 299);
		if (x < pct)
			continue; /* deletion */
		if (x < 2 * pct)
			dst[k++] = (uint8_t)rnd(0, n_codes - 1); /* insertion */
		dst[k++] = x < 3 * pct ? (uint8_t)rnd(0, n_codes - 1) : src[i];
	}
	return k;
}

static void cigar_text(const nw_result_t *res, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (int64_t k = 0; k < res->n_cigar && o + 16 < len; k++)
		o += (size_t)snprintf(buf + o, len - o, "%u%c", NW_CIGAR_LEN(res->cigar[k]),
				      "MIDNSHP=X???????"[NW_CIGAR_OP(res->cigar[k])]);
}

/* The optimal global score of q against r. */
static int64_t optimum(const nw_scoring_t *sc, const uint8_t *q, int64_t m, const uint8_t *r,
		       int64_t n)
{
	nw_align_params_t p = {.mode = NW_MODE_GLOBAL, .sc = sc};
	nw_result_t res = {0};
	int ret = nw_cpu_align(&p, q, m, r, n, ws, &res);
	CHECK(ret == 0, "nw_cpu_align: %d", ret);
	return res.score;
}

/* ---------------------------------------------------------------- kinds and split */

static void test_kinds(const nw_scoring_t *sc)
{
	nw_align_params_t p = {.mode = NW_MODE_GLOBAL, .sc = sc};
	CHECK_EQ_I64(nw_path_kind(&p, 2047, 2047), NW_PATH_FULL, "2048 x 2048 cells = 2^22");
	CHECK_EQ_I64(nw_path_kind(&p, 2048, 2047), NW_PATH_EXACT, "2049 x 2048 cells");
	CHECK_EQ_I64(nw_path_kind(&p, 0, ((int64_t)1 << 22) - 1), NW_PATH_FULL, "1 x 2^22");
	CHECK_EQ_I64(nw_path_kind(&p, ((int64_t)1 << 22), 0), NW_PATH_EXACT, "(2^22 + 1) x 1");
	CHECK_EQ_I64(nw_path_kind(&p, 1, 1), NW_PATH_FULL, "1 x 1");
	CHECK_EQ_I64(nw_path_kind(&p, (int64_t)1 << 32, (int64_t)1 << 32), NW_PATH_EXACT,
		     "2^32 x 2^32 (no overflow)");
	p.gact = 1;
	CHECK_EQ_I64(nw_path_kind(&p, 2047, 2047), NW_PATH_FULL, "gact: 2^22 cells");
	CHECK_EQ_I64(nw_path_kind(&p, 2048, 2047), NW_PATH_GACT, "gact: above");
	CHECK(strcmp(nw_path_kind_name(NW_PATH_NONE), "none") == 0 &&
	      strcmp(nw_path_kind_name(NW_PATH_FULL), "full") == 0 &&
	      strcmp(nw_path_kind_name(NW_PATH_GACT), "gact") == 0 &&
	      strcmp(nw_path_kind_name(NW_PATH_EXACT), "exact") == 0 &&
	      strcmp(nw_path_kind_name(NW_PATH_REDONE), "redone") == 0, "kind names");
	/* --max-deficit: short by more than the fraction of |optimum| */
	p.max_deficit = 0.01;
	CHECK(!nw_gact_too_short(&p, 990, 1000) && nw_gact_too_short(&p, 989, 1000) &&
	      !nw_gact_too_short(&p, -1010, -1000) && nw_gact_too_short(&p, -1011, -1000) &&
	      !nw_gact_too_short(&p, 0, 0) && nw_gact_too_short(&p, -1, 0), "deficit 1%%");
	p.max_deficit = 0;
	CHECK(!nw_gact_too_short(&p, 7, 7) && nw_gact_too_short(&p, 6, 7), "deficit 0");
	int T, O;
	nw_gact_params(&p, &T, &O);
	CHECK(T == NW_GACT_TILE_DEFAULT && O == NW_GACT_OVERLAP_DEFAULT, "tile 0: defaults %d %d",
	      T, O);
	p.tile = 64;
	p.overlap = 0;
	nw_gact_params(&p, &T, &O);
	CHECK(T == 64 && O == 0, "tile 64 overlap 0 as given: %d %d", T, O);
}

/* nw_band_diagonals (bisection) against a scan outward, diagonal by diagonal, from the
 * range [min(0, n - m), max(0, n - m)], for scores from far below to above the best. */
static void test_band_diagonals(void)
{
	int64_t bad = 0, tried = 0;
	for (int t = 0; t < 20000; t++) {
		const int64_t M = rnd(-2, 11), O = rnd(0, 12), E = rnd(0, 4), m = rnd(0, 3000), n = rnd(0, 3000);
		const int64_t tb = rnd(0, 1) ? O : 0, te = rnd(0, 1) ? O : 0;
		const int64_t top = (M > 0 ? M : 0) * (m < n ? m : n);
		const int64_t S = rnd(-(O + E) * (m + n) - 10, top + 5);
		const int64_t D = n - m;
		int64_t lo = D < 0 ? D : 0, hi = D > 0 ? D : 0, blo, bhi;
		while (lo > -m && nw_band_diag_bound(M, O, E, tb, te, m, n, lo - 1) >= S) lo--;
		while (hi < n && nw_band_diag_bound(M, O, E, tb, te, m, n, hi + 1) >= S) hi++;
		nw_band_diagonals(M, O, E, tb, te, m, n, S, &blo, &bhi);
		bad += blo != lo || bhi != hi;
		tried++;
	}
	CHECK(bad == 0, "band diagonals: %" PRId64 " of %" PRId64 " differ from the scan", bad, tried);
}

static void test_split(void)
{
	int g = -1;
	/* node(j) = HF[j] + HR[n - j]; gap(j) = FF[j] + FR[n - j] + open (open 5) */
	{ /* nodes tie at j = 0 and j = 2: the first */
		int64_t HF[] = {4, 1, 0}, HR[] = {4, 0, 0}, FF[] = {-99, -99, -99}, FR[] = {-99, -99, -99};
		CHECK_EQ_I64(nw_mm_split(HF, FF, HR, FR, 2, 5, &g), 0, "first best j");
		CHECK_EQ_I64(g, 0, "through a node");
	}
	{ /* node and gap tie at j = 1: the node */
		int64_t HF[] = {-9, 3, -9}, HR[] = {-9, 3, -9}, FF[] = {-99, 0, -99}, FR[] = {-99, 1, -99};
		CHECK_EQ_I64(nw_mm_split(HF, FF, HR, FR, 2, 5, &g), 1, "node and gap at one j");
		CHECK_EQ_I64(g, 0, "the node wins the tie");
	}
	{ /* a gap at j = 0 ties a node at j = 1: the first j (the gap) */
		int64_t HF[] = {-9, 3, -9}, HR[] = {-9, 3, -9}, FF[] = {0, -99, -99}, FR[] = {-99, -99, 1};
		CHECK_EQ_I64(nw_mm_split(HF, FF, HR, FR, 2, 5, &g), 0, "gap first");
		CHECK_EQ_I64(g, 1, "through the gap");
	}
	{ /* the gap strictly best at the last j */
		int64_t HF[] = {0, 0, 0}, HR[] = {0, 0, 0}, FF[] = {-9, -9, -3}, FR[] = {-1, -9, -9};
		CHECK_EQ_I64(nw_mm_split(HF, FF, HR, FR, 2, 5, &g), 2, "gap best at j = n");
		CHECK_EQ_I64(g, 1, "through the gap");
	}
}

/* ---------------------------------------------------------------- GACT state */

static void test_state(const nw_scoring_t *sc)
{
	nw_align_params_t p = {.mode = NW_MODE_GLOBAL, .sc = sc};
	const int64_t O = sc->gap_open;
	nw_result_t res = {0};
	nw_gact_t g;
	nw_gact_tile_t t;
	uint8_t ops[64];

	/* A 40 x 30 span with T 16, O 4. */
	nw_gact_begin(&g, 40, 30);
	CHECK(nw_gact_next(&g, 16, 4, &p, &t), "first tile");
	CHECK(t.i == 40 && t.j == 30 && t.tm == 16 && t.tn == 16 && !t.last, "first tile shape");
	CHECK(t.top_open == O && t.left_open == O, "at a node: both opens");
	CHECK(t.row_limit == 12 && t.col_limit == 12, "limits T - O: %lld %lld",
	      (long long)t.row_limit, (long long)t.col_limit);
	/* 10 '=' then 3 I then 3 D then 3 I (reaches 16 rows, 13 cols: not the corner) */
	memset(ops, NW_CIGAR_EQ, 10);
	memset(ops + 10, NW_CIGAR_I, 3);
	memset(ops + 13, NW_CIGAR_D, 3);
	memset(ops + 16, NW_CIGAR_I, 3);
	nw_log_level = -1;
	CHECK(nw_gact_take(&g, &t, ops, 19, &res) == NW_ERR_INTERNAL, "ops off the corner");
	nw_log_level = NW_LOG_WARN;
	/* 10 '=', 2 I, 4 '=', 2 D: 16 rows, 16 columns. Kept: 10 '=' and 2 I (12 rows). */
	memset(ops + 10, NW_CIGAR_I, 2);
	memset(ops + 12, NW_CIGAR_EQ, 4);
	memset(ops + 16, NW_CIGAR_D, 2);
	CHECK(nw_gact_take(&g, &t, ops, 18, &res) == 0, "take");
	CHECK(g.i == 28 && g.j == 20 && g.state == NW_GACT_IN_I, "anchor (%lld, %lld) state %d",
	      (long long)g.i, (long long)g.j, g.state);
	CHECK(nw_gact_next(&g, 16, 4, &p, &t) && t.left_open == 0 && t.top_open == O,
	      "inside a vertical gap: column 0 free");
	/* 5 D then diagonal: kept 5 D and 7 '=' (12 columns) */
	memset(ops, NW_CIGAR_D, 5);
	memset(ops + 5, NW_CIGAR_EQ, 11);
	memset(ops + 16, NW_CIGAR_I, 5);
	CHECK(nw_gact_take(&g, &t, ops, 21, &res) == 0, "take 2");
	CHECK(g.i == 21 && g.j == 8 && g.state == NW_GACT_AT_NODE, "anchor (%lld, %lld) state %d",
	      (long long)g.i, (long long)g.j, g.state);
	/* tn = j = 8: the reference start is inside, columns are not limited */
	CHECK(nw_gact_next(&g, 16, 4, &p, &t) && t.tn == 8 && t.col_limit == 8 &&
	      t.row_limit == 12 && !t.last, "reference start inside the tile");
	memset(ops, NW_CIGAR_X, 8);
	memset(ops + 8, NW_CIGAR_I, 8);
	CHECK(nw_gact_take(&g, &t, ops, 16, &res) == 0, "take 3");
	CHECK(g.i == 9 && g.j == 0 && g.state == NW_GACT_IN_I, "anchor (%lld, %lld)",
	      (long long)g.i, (long long)g.j);
	CHECK(nw_gact_next(&g, 16, 4, &p, &t) && t.tm == 9 && t.tn == 0 && t.last &&
	      t.left_open == 0, "last tile: 9 rows, no column");
	memset(ops, NW_CIGAR_I, 9);
	CHECK(nw_gact_take(&g, &t, ops, 9, &res) == 0, "take 4");
	CHECK(!nw_gact_next(&g, 16, 4, &p, &t), "done");
	nw_gact_end(&g, &res);
	char buf[256];
	cigar_text(&res, buf, sizeof buf);
	CHECK(strcmp(buf, "13I8X7=5D2I10=") == 0, "forward CIGAR %s", buf);

	/* The state a D leaves; a deletion at the tile's start. */
	nw_gact_begin(&g, 20, 20);
	CHECK(nw_gact_next(&g, 16, 4, &p, &t), "tile");
	memset(ops, NW_CIGAR_D, 16);
	memset(ops + 16, NW_CIGAR_I, 16);
	res.n_cigar = 0;
	CHECK(nw_gact_take(&g, &t, ops, 32, &res) == 0 && g.j == 8 && g.i == 20 &&
	      g.state == NW_GACT_IN_D, "12 D kept");
	CHECK(nw_gact_next(&g, 16, 4, &p, &t) && t.top_open == 0 && t.left_open == O,
	      "inside a horizontal gap: row 0 free");
	/* No progress: an overlap as large as the tile keeps nothing. */
	nw_gact_begin(&g, 40, 40);
	CHECK(nw_gact_next(&g, 16, 16, &p, &t), "tile");
	memset(ops, NW_CIGAR_EQ, 16);
	nw_log_level = -1;
	CHECK(nw_gact_take(&g, &t, ops, 16, &res) == NW_ERR_INTERNAL, "no progress");
	nw_log_level = NW_LOG_WARN;
	nw_result_free(&res);
}

/* ---------------------------------------------------------------- finish */

static void test_finish(const nw_scoring_t *sc)
{
	enum { M = 60 };
	uint8_t q[M], r[2 * M]; /* r: M residues and its insertions */
	nw_align_params_t p = {.mode = NW_MODE_GLOBAL, .sc = sc, .want_path = 1};
	nw_result_t res = {0};
	gen(q, M, 4);
	int64_t n = mutate(q, M, r, 4, 30);
	CHECK(nw_cpu_align(&p, q, M, r, n, ws, &res) == 0 && res.path_kind == NW_PATH_FULL,
	      "a short pair: FULL path");
	CHECK_EQ_I64(res.opt_score, res.score, "opt_score of an exact path");
	int64_t best = res.score;
	/* A worse path: every query residue inserted, every reference residue deleted. */
	res.n_cigar = 0;
	nw_cigar_push(&res, NW_CIGAR_I, M);
	nw_cigar_push(&res, NW_CIGAR_D, n);
	int64_t worse = -(2 * sc->gap_open + (M + n) * sc->gap_extend);
	nw_log_level = -1;
	res.path_kind = NW_PATH_FULL;
	CHECK(nw_path_finish(&p, q, M, r, n, &res) == NW_ERR_INTERNAL, "FULL below the optimum");
	res.path_kind = NW_PATH_EXACT;
	CHECK(nw_path_finish(&p, q, M, r, n, &res) == NW_ERR_INTERNAL, "EXACT below the optimum");
	res.path_kind = NW_PATH_GACT;
	CHECK(nw_path_finish(&p, q, M, r, n, &res) == 0, "GACT below the optimum is accepted");
	CHECK(res.score == worse && res.opt_score == best && res.aln_len == M + n &&
	      res.edits == M + n && res.matches == 0, "GACT: score %lld opt %lld",
	      (long long)res.score, (long long)res.opt_score);
	/* A path that misses a residue of the span, even GACT. */
	res.score = best;
	res.n_cigar = 0;
	nw_cigar_push(&res, NW_CIGAR_I, M);
	nw_cigar_push(&res, NW_CIGAR_D, n - 1);
	CHECK(nw_path_finish(&p, q, M, r, n, &res) == NW_ERR_INTERNAL, "path off the span");
	/* No path over a span. */
	res.n_cigar = 0;
	res.path_kind = NW_PATH_NONE;
	CHECK(nw_path_finish(&p, q, M, r, n, &res) == NW_ERR_INTERNAL, "no path");
	nw_log_level = NW_LOG_WARN;
	/* The empty local alignment: no path, opt_score = score. */
	res.qstart = res.qend = res.rstart = res.rend = 0;
	res.score = 0;
	res.opt_score = 77;
	CHECK(nw_path_finish(&p, q, M, r, n, &res) == 0 && res.opt_score == 0 &&
	      res.n_cigar == 0 && res.path_kind == NW_PATH_NONE, "empty span");
	nw_result_free(&res);
}

/* ---------------------------------------------------------------- GACT paths */

static const int tiles[][2] = {{16, 0}, {16, 4}, {32, 0}, {32, 4}, {32, 12}, {32, 24},
			       {64, 0}, {64, 4}, {64, 12}, {64, 24}};

/* The GACT path of q x r with tile T, overlap O: consumes the span, finishes, scores at
 * most opt. Returns the path score (or a huge negative on failure). */
static int64_t gact_path(const nw_scoring_t *sc, const uint8_t *q, int64_t m, const uint8_t *r,
			 int64_t n, int T, int O, int64_t opt, nw_result_t *res, const char *what)
{
	nw_align_params_t p = {.mode = NW_MODE_GLOBAL, .sc = sc, .tile = T, .overlap = O};
	int ret = nw_cpu_gact(ws, &p, q, m, r, n, res);
	CHECK(ret == 0, "%s: nw_cpu_gact %d", what, ret);
	int64_t qs = -1, rs = -1, s = INT64_MIN / 2;
	nw_cigar_spans(res->cigar, res->n_cigar, &qs, &rs);
	CHECK(qs == m && rs == n, "%s: T %d O %d: the path covers %lld x %lld of %lld x %lld",
	      what, T, O, (long long)qs, (long long)rs, (long long)m, (long long)n);
	res->qstart = res->rstart = 0;
	res->qend = m;
	res->rend = n;
	res->score = opt;
	res->path_kind = NW_PATH_GACT;
	ret = nw_path_finish(&p, q, m, r, n, res);
	CHECK(ret == 0, "%s: T %d O %d: nw_path_finish", what, T, O);
	if (ret == 0)
		s = res->score;
	CHECK(s <= opt, "%s: T %d O %d: %lld above the optimum %lld", what, T, O, (long long)s,
	      (long long)opt);
	return s;
}

static void test_gact_pairs(const nw_scoring_t *sc, const char *label, int n_codes)
{
	static const int64_t lens[] = {300, 1000, 3000};
	uint8_t *q = malloc(4000), *r = malloc(4000), *rq = malloc(4000), *rr = malloc(4000);
	nw_result_t res = {0}, full = {0};
	int64_t n_paths = 0, n_opt = 0;
	for (int li = 0; li < 3; li++) {
		for (int kind = 0; kind < 3; kind++) { /* unrelated; 3% and 15% mutated */
			int64_t m = lens[li] + rnd(0, lens[li] / 10), n;
			gen(q, m, n_codes);
			if (kind == 0) {
				n = lens[li] + rnd(0, lens[li] / 10);
				gen(r, n, n_codes);
			} else {
				n = mutate(q, m, r, n_codes, kind == 1 ? 3 : 15);
			}
			int64_t opt = optimum(sc, q, m, r, n);
			char what[96];
			snprintf(what, sizeof what, "%s %lld x %lld %s", label, (long long)m,
				 (long long)n, kind ? "mutated" : "random");
			for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
				int64_t s = gact_path(sc, q, m, r, n, tiles[t][0], tiles[t][1], opt,
						      &res, what);
				n_paths++;
				n_opt += s == opt;
			}
			if (li > 0)
				continue;
			/* One tile over the whole span: the full traceback of the reversed
			 * sequences, traced from the start, so the optimum. */
			int T = (int)(m > n ? m : n);
			int64_t s = gact_path(sc, q, m, r, n, T, 0, opt, &res, what);
			CHECK_EQ_I64(s, opt, "%s: one tile", what);
			for (int64_t k = 0; k < m; k++)
				rq[k] = q[m - 1 - k];
			for (int64_t k = 0; k < n; k++)
				rr[k] = r[n - 1 - k];
			CHECK(nw_cpu_path(ws, sc, rq, m, rr, n, opt, &full) == 0, "nw_cpu_path");
			nw_cigar_reverse(&full);
			int same = full.n_cigar == res.n_cigar &&
				   memcmp(full.cigar, res.cigar, res.n_cigar * sizeof(uint32_t)) == 0;
			CHECK(same, "%s: one tile equals the reversed full traceback", what);
		}
	}
	printf("unit_path: %-28s %lld GACT paths, %lld optimal\n", label, (long long)n_paths,
	       (long long)n_opt);
	nw_result_free(&res);
	nw_result_free(&full);
	free(q), free(r), free(rq), free(rr);
}

/* q = A G B, r = A B, with G a run of T far longer than a tile and A, B without T: the
 * tiles walk the insertion keeping one vertical gap, whose open is paid once. Overlap 0 is
 * left out: it keeps each tile's whole path, forced detours to the tile's corner included. */
static void test_long_insertion(const nw_scoring_t *sc, const char *label)
{
	enum { LA = 400, LG = 150, LB = 300 };
	uint8_t q[LA + LG + LB], r[LA + LB];
	gen(r, LA + LB, 3); /* A C G */
	memcpy(q, r, LA);
	memset(q + LA, 3, LG);
	memcpy(q + LA + LG, r + LA, LB);
	int64_t opt = optimum(sc, q, LA + LG + LB, r, LA + LB);
	CHECK_EQ_I64(opt, (int64_t)sc->score[0][0] * (LA + LB) - (sc->gap_open + LG * sc->gap_extend),
		     "%s: the optimum is the one insertion", label);
	for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
		if (tiles[t][1] == 0)
			continue;
		nw_result_t res = {0};
		char what[96];
		snprintf(what, sizeof what, "%s long insertion", label);
		int64_t s = gact_path(sc, q, LA + LG + LB, r, LA + LB, tiles[t][0], tiles[t][1],
				      opt, &res, what);
		int64_t ins_runs = 0;
		for (int64_t k = 0; k < res.n_cigar; k++)
			ins_runs += NW_CIGAR_OP(res.cigar[k]) == NW_CIGAR_I;
		CHECK(s == opt && ins_runs == 1, "%s: T %d O %d: score %lld (optimum %lld), %lld "
		      "insertion runs", what, tiles[t][0], tiles[t][1], (long long)s,
		      (long long)opt, (long long)ins_runs);
		nw_result_free(&res);
	}
}

/* ---------------------------------------------------------------- through nw_cpu_align */

static void test_engine(const nw_scoring_t *sc)
{
	enum { N = 2300 };
	uint8_t *q = malloc(N * 2), *r = malloc(N * 2);
	gen(r, N, 4);
	int64_t m = mutate(r + 100, N - 200, q, 4, 12); /* a read inside the reference */
	for (int mode = NW_MODE_GLOBAL; mode <= NW_MODE_SEMIGLOBAL; mode++) {
		nw_align_params_t p = {.mode = (nw_mode_t)mode, .sc = sc};
		nw_result_t plain = {0}, res = {0};
		CHECK(nw_cpu_align(&p, q, m, r, N, ws, &plain) == 0, "no path");
		CHECK_EQ_I64(plain.opt_score, plain.score, "mode %d: opt_score without a path", mode);
		p.want_path = 1;
		CHECK(nw_cpu_align(&p, q, m, r, N, ws, &res) == 0, "default path");
		int64_t cells = (res.qend - res.qstart + 1) * (res.rend - res.rstart + 1);
		CHECK(cells > NW_PATH_FULL_CELLS, "mode %d: span of %lld cells", mode, (long long)cells);
		CHECK(res.path_kind == NW_PATH_EXACT && res.score == plain.score &&
		      res.opt_score == plain.score, "mode %d: default kind %d score %lld", mode,
		      res.path_kind, (long long)res.score);
		CHECK(res.qstart == plain.qstart && res.qend == plain.qend &&
		      res.rstart == plain.rstart && res.rend == plain.rend, "mode %d: span", mode);
		/* the same path without pruning (no optimum given) */
		nw_result_t unpruned = {0};
		CHECK(nw_cpu_path(ws, sc, q + res.qstart, res.qend - res.qstart, r + res.rstart,
				  res.rend - res.rstart, NW_NEG_INF, &unpruned) == 0 &&
		      unpruned.n_cigar == res.n_cigar &&
		      memcmp(unpruned.cigar, res.cigar, res.n_cigar * sizeof(uint32_t)) == 0,
		      "mode %d: pruned path equals the unpruned one", mode);
		/* an optimum above the real one is reported, not turned into a path */
		CHECK(nw_cpu_path(ws, sc, q + res.qstart, res.qend - res.qstart, r + res.rstart,
				  res.rend - res.rstart, plain.score + 1, &unpruned) == NW_ERR_INTERNAL,
		      "mode %d: a target above the optimum", mode);
		nw_result_free(&unpruned);
		p.gact = 1;
		p.max_deficit = 1; /* keep every GACT path */
		CHECK(nw_cpu_align(&p, q, m, r, N, ws, &res) == 0, "GACT path");
		CHECK(res.path_kind == NW_PATH_GACT && res.opt_score == plain.score &&
		      res.score <= plain.score, "mode %d: kind %d score %lld opt %lld optimum %lld",
		      mode, res.path_kind, (long long)res.score, (long long)res.opt_score,
		      (long long)plain.score);
		p.max_deficit = 0; /* recompute every GACT path below the optimum */
		CHECK(nw_cpu_align(&p, q, m, r, N, ws, &res) == 0, "GACT path, deficit 0");
		CHECK((res.path_kind == NW_PATH_GACT || res.path_kind == NW_PATH_REDONE) &&
		      res.score == plain.score && res.opt_score == plain.score,
		      "mode %d: deficit 0: kind %d score %lld", mode, res.path_kind,
		      (long long)res.score);
		nw_result_free(&res);
		nw_result_free(&plain);
	}
	free(q);
	free(r);
}

/* Pruned paths (the optimum given) against unpruned ones (NW_NEG_INF), CIGAR for CIGAR, with
 * Myers-Miller leaves of 64, 1024 and 2^22 cells: random pairs, mutated copies, and copies
 * with a structural change (a long deletion, a random insertion, a rotation: long gaps at
 * both ends), so that the live region must follow a path far off the main diagonal. On
 * near copies the pruned passes must sweep a small part of the cells. */
static void test_pruned(const nw_scoring_t *sc, const char *label, int n_codes)
{
	static const int64_t leaves[] = {64, 1024, 0};
	enum { L = 1500 };
	uint8_t *q = malloc(3 * L), *r = malloc(3 * L), *t = malloc(3 * L);
	nw_result_t a = {0}, b = {0};
	int64_t pairs = 0, cells_pruned = 0, cells_full = 0;
	for (int kind = 0; kind < 6; kind++) {
		for (int rep = 0; rep < 3; rep++) {
			int64_t n = rnd(L / 2, L), m;
			gen(r, n, n_codes);
			switch (kind) {
			case 0: m = rnd(L / 2, L); gen(q, m, n_codes); break;     /* unrelated */
			case 1: m = mutate(r, n, q, n_codes, 1); break;            /* 1% */
			case 2: m = mutate(r, n, q, n_codes, 12); break;           /* 12% */
			case 3: {                                                  /* deletion */
				int64_t at = rnd(n / 5, n / 2), len = rnd(50, n / 4);
				memcpy(t, r, (size_t)at);
				memcpy(t + at, r + at + len, (size_t)(n - at - len));
				m = mutate(t, n - len, q, n_codes, 3);
				break;
			}
			case 4: {                                                  /* insertion */
				int64_t at = rnd(n / 5, n / 2), len = rnd(50, n / 4);
				memcpy(t, r, (size_t)at);
				gen(t + at, len, n_codes);
				memcpy(t + at + len, r + at, (size_t)(n - at));
				m = mutate(t, n + len, q, n_codes, 3);
				break;
			}
			default: {                                                 /* rotation */
				int64_t k = rnd(n / 10, n / 3);
				memcpy(t, r + k, (size_t)(n - k));
				memcpy(t + n - k, r, (size_t)k);
				m = mutate(t, n, q, n_codes, 2);
				break;
			}
			}
			int64_t opt = optimum(sc, q, m, r, n);
			for (size_t l = 0; l < sizeof leaves / sizeof leaves[0]; l++) {
				nw_workspace_set_full_cells(ws, leaves[l]);
				nw_workspace_set_simd(ws, 0);
				int ra = nw_cpu_path(ws, sc, q, m, r, n, NW_NEG_INF, &a);
				/* the scalar twin (isa -1), then each SIMD set; cells: the default set's */
				int64_t full = 0;
				for (int isa = -1; isa < NW_ISA_COUNT; isa++) {
					if (isa >= 0 && !nw_cpu_isa_supported((nw_isa_t)isa))
						continue;
					nw_workspace_set_simd(ws, isa >= 0);
					nw_workspace_set_isa(ws, isa);
					if (isa == -1 || isa == (int)nw_cpu_isa()) {
						nw_workspace_set_isa(ws, -1);
						ws->path_cells = 0;
						CHECK(nw_cpu_path(ws, sc, q, m, r, n, NW_NEG_INF, &b) == 0,
						      "%s kind %d: unpruned path failed", label, kind);
						full = ws->path_cells;
					}
					ws->path_cells = 0;
					int rb = nw_cpu_path(ws, sc, q, m, r, n, opt, &b);
					const char *set = isa < 0 ? "scalar" : nw_cpu_isa_name((nw_isa_t)isa);
					CHECK(ra == 0 && rb == 0 && b.n_cigar == a.n_cigar &&
					      memcmp(a.cigar, b.cigar, a.n_cigar * sizeof(uint32_t)) == 0,
					      "%s %s kind %d %lld x %lld leaf %lld: pruned path differs",
					      label, set, kind, (long long)m, (long long)n,
					      (long long)leaves[l]);
					CHECK(ws->path_cells <= full, "%s %s kind %d: pruning swept more",
					      label, set, kind);
				}
				/* over teams of 3 and 16 threads (every span qualifies): the same
				 * splits, so the same path, pruned or not */
				for (int tk = 0; tk < 2; tk++) {
					static const int teams[] = {3, 16};
					nw_workspace_set_simd(team_ws, 1);
					nw_workspace_set_full_cells(team_ws, leaves[l]);
					nw_workspace_set_team(team_ws, teams[tk], 1, 0);
					for (int pruned = 0; pruned < 2; pruned++) {
						const int64_t before = team_ws->team_paths;
						team_ws->path_cells = 0;
						int rt = nw_cpu_path(team_ws, sc, q, m, r, n,
								     pruned ? opt : NW_NEG_INF, &b);
						CHECK(rt == 0 && b.n_cigar == a.n_cigar &&
						      memcmp(a.cigar, b.cigar, a.n_cigar * sizeof(uint32_t)) == 0,
						      "%s kind %d %lld x %lld leaf %lld, team of %d%s: path "
						      "differs", label, kind, (long long)m, (long long)n,
						      (long long)leaves[l], teams[tk], pruned ? ", pruned" : "");
						/* spans over a leaf's cells go to the team */
						CHECK(team_ws->team_paths == before + ((m + 1) * (n + 1) >
							(leaves[l] ? leaves[l] : NW_PATH_FULL_CELLS)),
						      "%s kind %d leaf %lld: team path not taken as it should",
						      label, kind, (long long)leaves[l]);
					}
				}
				nw_workspace_set_simd(ws, 1);
				nw_workspace_set_isa(ws, -1);
				ws->path_cells = 0;
				nw_cpu_path(ws, sc, q, m, r, n, opt, &b);
				int64_t s = NW_NEG_INF;
				char err[160];
				CHECK(nw_cigar_rescore(b.cigar, b.n_cigar, sc, q, m, 0, r, n, 0, &s,
						       err, sizeof err) == 0 && s == opt,
				      "%s kind %d: pruned path scores %lld, optimum %lld", label, kind,
				      (long long)s, (long long)opt);
				if (kind == 1 || kind >= 3) {
					cells_pruned += ws->path_cells;
					cells_full += full;
				}
				pairs++;
			}
		}
	}
	nw_workspace_set_full_cells(ws, 0);
	/* near copies, with or without one structural change: a small part of the cells */
	CHECK(cells_pruned * 4 < cells_full, "%s: pruned passes swept %lld of %lld cells", label,
	      (long long)cells_pruned, (long long)cells_full);
	printf("unit_path: %-28s %lld pruned paths equal, near copies %.1f%% of the cells\n",
	       label, (long long)pairs, 100.0 * (double)cells_pruned / (double)cells_full);
	nw_result_free(&a);
	nw_result_free(&b);
	free(q);
	free(r);
	free(t);
}

/* nw_sweep_fast against nw_sweep on one sub-problem a x b (rows == na); dir: compare the
 * direction bits too (unpruned only). */
static void sweep_pair(const nw_scoring_t *sc, const char *label, const uint8_t *a, int64_t na,
		       const uint8_t *b, int64_t nb, int64_t top_open, int64_t col0_open,
		       int64_t bonus, int isa)
{
	enum { MAXN = 160 };
	static int64_t Hs[MAXN + 1], Fs[MAXN + 1], Hv[MAXN + 1], Fv[MAXN + 1], Hp[MAXN + 1], Fp[MAXN + 1];
	static uint8_t ds[(MAXN + 1) * (MAXN + 1) + 64], dv[(MAXN + 1) * (MAXN + 1) + 64];
	static int64_t sq[MAXN + 1], sr[MAXN + 1];
	dp_hit_t hit;
	nw_sweep_t p = {.a = a, .b = b, .na = na, .nb = nb, .rows = na, .s = sc->score,
			.O = sc->gap_open, .X = sc->gap_extend, .top_open = top_open,
			.col0_open = col0_open, .target = NW_NEG_INF, .bonus = bonus,
			.stop = NW_SWEEP_CORNER, .dir = ds};
	const char *set = nw_cpu_isa_name((nw_isa_t)isa);
	nw_workspace_set_simd(ws, 1);
	nw_workspace_set_isa(ws, isa);
	memset(ds, 0, sizeof ds);
	memset(dv, 0, sizeof dv);
	CHECK(nw_sweep(&p, Hs, Fs, &hit) > 0, "%s: scalar sweep failed", label);
	p.dir = dv;
	CHECK(nw_sweep_fast(ws, &p, Hv, Fv, &hit) > 0 && hit.row == na && hit.col == nb,
	      "%s %s: SIMD sweep failed", label, set);
	int same = 1;
	for (int64_t j = 0; j <= nb; j++)
		same &= Hs[j] == Hv[j] && Fs[j] == Fv[j];
	for (int64_t i = 1; i <= na; i++)
		for (int64_t j = 1; j <= nb; j++)
			same &= ds[i * (nb + 1) + j] == dv[i * (nb + 1) + j];
	CHECK(same, "%s %s %lld x %lld opens %lld/%lld: unpruned rows or bits differ", label, set,
	      (long long)na, (long long)nb, (long long)top_open, (long long)col0_open);
	/* pruned by the corner's optimum (a vertical gap ending there saves bonus) */
	int64_t best[NW_MAX_CODES] = {0};
	for (int c = 0; c < sc->n_codes; c++)
		for (int o = 0; o < sc->n_codes; o++) {
			best[c] = sc->score[c][o] > best[c] ? sc->score[c][o] : best[c];
		}
	sq[na] = sr[nb] = 0;
	for (int64_t i = na - 1; i >= 0; i--)
		sq[i] = sq[i + 1] + best[a[i]];
	for (int64_t c = 0; c < NW_MAX_CODES; c++) {
		best[c] = 0;
		for (int o = 0; o < sc->n_codes; o++)
			best[c] = c < sc->n_codes && sc->score[o][c] > best[c] ? sc->score[o][c] : best[c];
	}
	for (int64_t j = nb - 1; j >= 0; j--)
		sr[j] = sr[j + 1] + best[b[j]];
	p.sq = sq, p.sr = sr, p.dir = NULL;
	p.target = Fs[nb] + bonus > Hs[nb] ? Fs[nb] + bonus : Hs[nb];
	CHECK(nw_sweep(&p, Hp, Fp, &hit) > 0, "%s: pruned scalar sweep failed", label);
	CHECK(nw_sweep_fast(ws, &p, Hv, Fv, &hit) > 0, "%s %s: pruned SIMD sweep failed", label,
	      set);
	same = (Fv[nb] + bonus > Hv[nb] ? Fv[nb] + bonus : Hv[nb]) == p.target;
	for (int64_t j = 0; j <= nb; j++)
		same &= Hp[j] <= Hv[j] && Hv[j] <= Hs[j] && Fp[j] <= Fv[j] && Fv[j] <= Fs[j];
	CHECK(same, "%s %s %lld x %lld: pruned rows out of range", label, set, (long long)na,
	      (long long)nb);
}

static void test_sweep_twin(const nw_scoring_t *sc, const char *label, int n_codes)
{
	uint8_t a[160], b[160], t[160];
	int64_t n_pairs = 0;
	for (int rep = 0; rep < 120; rep++) {
		int64_t na = rep < 20 ? rnd(1, 20) : rnd(1, 150), nb = rep < 40 ? rnd(1, 40) : rnd(1, 150);
		gen(b, nb, n_codes);
		if (rep % 2) { /* a near copy, cut or padded to na */
			int64_t k = mutate(b, nb, t, n_codes, 5);
			for (int64_t i = 0; i < na; i++)
				a[i] = i < k ? t[i] : (uint8_t)rnd(0, n_codes - 1);
		} else {
			gen(a, na, n_codes);
		}
		int64_t O = sc->gap_open;
		int64_t top = rnd(0, 1) ? O : 0, col0 = rnd(0, 1) ? O : 0, bonus = rnd(0, 1) ? O : 0;
		for (int isa = 0; isa < NW_ISA_COUNT; isa++) {
			if (!nw_cpu_isa_supported((nw_isa_t)isa))
				continue;
			sweep_pair(sc, label, a, na, b, nb, top, col0, bonus, isa);
			n_pairs++;
		}
	}
	nw_workspace_set_isa(ws, -1);
	printf("unit_path: %-28s %lld SIMD sweeps equal to the scalar twin\n", label,
	       (long long)n_pairs);
}

int main(void)
{
	nw_scoring_t dna, dna_lin, prot, prot_lin, ins;
	char err[256];
	ws = nw_workspace_new();
	team_ws = nw_workspace_new();
	if (!ws || nw_scoring_dna(&dna, 2, 4, 4, 2, err, sizeof err) < 0 ||
	    nw_scoring_dna(&dna_lin, 2, 4, 0, 3, err, sizeof err) < 0 ||
	    nw_scoring_dna(&ins, 2, 6, 4, 2, err, sizeof err) < 0 ||
	    nw_scoring_matrix(&prot, "blosum62", NW_ALPHA_PROTEIN, 11, 1, err, sizeof err) < 0 ||
	    nw_scoring_matrix(&prot_lin, "blosum62", NW_ALPHA_PROTEIN, 0, 4, err, sizeof err) < 0) {
		fprintf(stderr, "unit_path: set-up failed: %s\n", err);
		return 1;
	}
	test_kinds(&dna);
	test_band_diagonals();
	test_split();
	test_state(&dna);
	test_finish(&dna);
	test_gact_pairs(&dna, "dna 2/4 gaps 4/2", 4);
	test_gact_pairs(&dna_lin, "dna 2/4 linear 3", 4);
	test_gact_pairs(&prot, "blosum62 gaps 11/1", 20);
	test_gact_pairs(&prot_lin, "blosum62 linear 4", 20);
	/* Mismatches dearer than two gap steps, so that the tiles follow the gap. */
	test_long_insertion(&ins, "dna 2/6 gaps 4/2");
	test_engine(&dna);
	test_sweep_twin(&dna, "dna 2/4 gaps 4/2", 4);
	test_sweep_twin(&dna_lin, "dna 2/4 linear 3", 4);
	test_sweep_twin(&prot, "blosum62 gaps 11/1", 20);
	test_pruned(&dna, "dna 2/4 gaps 4/2", 4);
	test_pruned(&dna_lin, "dna 2/4 linear 3", 4);
	test_pruned(&prot, "blosum62 gaps 11/1", 20);
	test_pruned(&prot_lin, "blosum62 linear 4", 20);
	nw_workspace_free(ws);
	nw_workspace_free(team_ws);
	return tu_finish("unit_path");
}
