/* cpu_inter.c: groups of short pairs through the inter-sequence passes (cpu_inter.h):
 * the plan (which pairs, in which groups), a group's forward and reverse passes, and the
 * pass template compiled once per instruction set. */
#include <stdlib.h>
#include <string.h>

#include "cpu_inter.h"
#include "cpu_isa.h"
#include "lane_codes.h"
#include "path.h"

/* ---------------------------------------------------------------- the template, per set */

#define SIMD_TEMPLATE "inter_kernel.h"
#define SIMD_NARROW
#include "simd_each.h"

void nw_inter_pass(int isa, const inter_pass_t *p, inter_hits_t *out)
{
	switch (isa) {
#ifdef NW_X86_ISAS
	case NW_ISA_SSE41:
		(p->narrow ? inter_pass_sse41_8 : inter_pass_sse41)(p, out);
		return;
	case NW_ISA_AVX2:
		(p->narrow ? inter_pass_avx2_8 : inter_pass_avx2)(p, out);
		return;
	case NW_ISA_AVX512:
		(p->narrow ? inter_pass_avx512_8 : inter_pass_avx512)(p, out);
		return;
#endif
	default:
		(p->narrow ? inter_pass_generic_8 : inter_pass_generic)(p, out);
		return;
	}
}

/* ---------------------------------------------------------------- scoring forms */

/* Longest query (rows) of a group: its H and E columns stay in the first cache levels.
 * Longest reference (columns): the group's codes take at most 4 MiB a thread. */
#define INTER_MAX_ROWS 2048
#define INTER_MAX_COLS 65536
/* Spans of paths that a group's path pass takes (rows x columns below 2^17, so that the
 * direction words stay in the second cache level): the others run alone. */
#define INTER_PATH_SIDE 362
/* Codes the match/mismatch form gives to what never matches: query and reference codes at
 * or past K, and the padding past a lane's pair. */
#define MM_Q_OTHER 0x100
#define MM_R_OTHER 0x200
#define MM_Q_PAD 0x300
#define MM_R_PAD 0x400
/* The same in 8-bit lanes (codes below NW_MAX_CODES = 32 match) */
#define MM8_Q_OTHER 0x40
#define MM8_R_OTHER 0x60
#define MM8_Q_PAD 0xff
#define MM8_R_PAD 0xfe

/* Columns of a pass rounded up to whole steps (the codes past cols are padding). */
static int64_t step_cols(int64_t cols)
{
	return (cols + INTER_BLOCK - 1) / INTER_BLOCK * INTER_BLOCK;
}

/* Stream groups (plan->streams): references of at most this many columns a lane in all
 * (the pass's codes: that many bytes a lane), NW_INTER_STREAM_PAIRS pairs a lane. */
#define STREAM_LANE_COLS 16384

/* The lowest value of a pass over rows x cols, less one substitution and one gap: cells
 * lie above the all-gap paths to them (0 when local; the query-prefix gap when the
 * reference prefix is free; that plus the reference-prefix gap otherwise). */
static int64_t lowest16(const nw_scoring_t *sc, int local, int ref_free, int64_t rows, int64_t cols)
{
	if (local)
		return 0;
	return -(3 * (int64_t)sc->gap_open + (rows + 2 + (ref_free ? 0 : cols)) * sc->gap_extend +
		 (sc->min_score < 0 ? -(int64_t)sc->min_score : 0));
}

/* 1 when every value of a pass over rows x cols stays in 16 bits with 2000 to spare (and
 * its columns fit: local passes keep the end column in a 16-bit lane). */
static int fits16(const nw_scoring_t *sc, int local, int ref_free, int64_t rows, int64_t cols)
{
	const int64_t limit = 32767 - 2000;
	int64_t maxs = sc->max_score > 0 ? sc->max_score : 0;
	int64_t shortest = rows < cols ? rows : cols;
	if (rows > INTER_MAX_ROWS || cols > (local ? 32767 : INTER_MAX_COLS) ||
	    shortest * maxs + maxs >= limit)
		return 0;
	return -lowest16(sc, local, ref_free, rows, cols) < limit;
}

/* 1 when the profile groups of a plan may run in 8-bit lanes first (inter_kernel.h):
 * local passes, substitution scores within +-127 and a gap's first cell (open + extend)
 * within 127. */
static int narrow_ok(const nw_align_params_t *p)
{
	const nw_scoring_t *sc = p->sc;
	return p->mode == NW_MODE_LOCAL && sc->max_score <= 127 && sc->min_score >= -127 &&
	       sc->gap_open + sc->gap_extend <= 127;
}

/* The greatest common divisor of a match/mismatch scoring's match, mismatch, gap open and
 * gap extend: the 8-bit local pass runs on the scores divided by it, which divides every
 * path's score alike and so keeps the same cells best. */
static int mm_divisor(const nw_scoring_t *sc, int ma, int mi)
{
	const int v[] = {ma, -mi, sc->gap_open, sc->gap_extend};
	int g = 0;
	for (int k = 0; k < 4; k++)
		for (int a = v[k] < 0 ? -v[k] : v[k], t; a; a = t)
			t = g % a, g = a;
	return g > 0 ? g : 1;
}

/* 1 when a match/mismatch scoring divided by g (mm_divisor) fits the 8-bit local and
 * banded passes' arithmetic: a step's match, mismatch and gap opening within a lane. */
static int mm8_scores_ok(const nw_scoring_t *sc, int ma, int mi, int g)
{
	return ma / g <= 127 && -mi / g <= 128 && (sc->gap_open + sc->gap_extend) / g <= 127;
}

/* 1 when NWALIGN_CPU_INTER=16 keeps every group in 16-bit lanes (tests, benchmarks). */
static int only16(void)
{
	const char *env = getenv("NWALIGN_CPU_INTER");
	return env && !strcmp(env, "16");
}

/* 1 when the local groups of a match/mismatch plan for end cells may run in 8-bit lanes
 * (inter_kernel.h: cells 0..255 of the divided scores; the starts are found apart, in the
 * groups of nw_inter_plan_starts). */
static int local8_ok(const nw_align_params_t *p, int ma, int mi)
{
	return p->mode == NW_MODE_LOCAL && p->ends_only && ma > 0 &&
	       mm8_scores_ok(p->sc, ma, mi, mm_divisor(p->sc, ma, mi));
}

/* 1 when a local pair's score stays below 255 in the divided scores (local8_ok; ma8: the
 * divided match): no alignment holds more matches than the shorter sequence's residues. */
static int local8_fits(int64_t ma8, int64_t qlen, int64_t rlen)
{
	return ma8 * (qlen < rlen ? qlen : rlen) < 255;
}

/* 1 when the global groups of a match/mismatch plan run in 8-bit lanes, by differences
 * (inter_diff_kernel.h): their intermediates stay within +-127. */
static int diff_ok(const nw_align_params_t *p, int ma)
{
	const nw_scoring_t *sc = p->sc;
	return p->mode == NW_MODE_GLOBAL && ma >= 0 &&
	       2 * ma + 4 * ((int64_t)sc->gap_open + sc->gap_extend) <= 126;
}

/* Columns of a reverse (start) pass over rows that fit 16 bits: both its boundaries are
 * gaps. Lanes whose start lies further take the per-pair pass. */
static int64_t reverse_cols(const nw_scoring_t *sc, int64_t rows)
{
	const int64_t limit = 32767 - 2000;
	int64_t cols = (limit + lowest16(sc, 0, 1, rows, 0)) / sc->gap_extend - 1;
	return cols < 0 ? 0 : cols > INTER_MAX_COLS ? INTER_MAX_COLS : cols;
}

/* ---------------------------------------------------------------- the plan */

typedef struct {
	int64_t k1, k2, idx;
} sort_item_t;

static int cmp_item(const void *a, const void *b)
{
	const sort_item_t *x = a, *y = b;
	if (x->k1 != y->k1)
		return x->k1 < y->k1 ? -1 : 1;
	if (x->k2 != y->k2)
		return x->k2 < y->k2 ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Stable counting sort of n items by key 1 (k2 when second), whose values span lo..hi:
 * from items into out. */
static void count_by(const sort_item_t *items, sort_item_t *out, int64_t n, int second,
		     int64_t lo, int64_t hi, int64_t *count)
{
	memset(count, 0, (size_t)(hi - lo + 2) * sizeof *count);
	for (int64_t t = 0; t < n; t++)
		count[(second ? items[t].k2 : items[t].k1) - lo + 1]++;
	for (int64_t v = 1; v <= hi - lo + 1; v++)
		count[v] += count[v - 1];
	for (int64_t t = 0; t < n; t++)
		out[count[(second ? items[t].k2 : items[t].k1) - lo]++] = items[t];
}

/* items (made in increasing idx) in cmp_item's order: by counting sorts, key 2 then key 1,
 * when both keys span few values (lengths, bands, query numbers), else by qsort. The plans
 * sort on one thread before the threads share the groups out; a stream group sorts its
 * starts on its own thread. */
static void sort_items(sort_item_t *items, int64_t n)
{
	if (n < 2)
		return;
	int64_t lo1 = items[0].k1, hi1 = lo1, lo2 = items[0].k2, hi2 = lo2;
	for (int64_t t = 1; t < n; t++) {
		lo1 = items[t].k1 < lo1 ? items[t].k1 : lo1;
		hi1 = items[t].k1 > hi1 ? items[t].k1 : hi1;
		lo2 = items[t].k2 < lo2 ? items[t].k2 : lo2;
		hi2 = items[t].k2 > hi2 ? items[t].k2 : hi2;
	}
	const int64_t span = (hi1 - lo1 > hi2 - lo2 ? hi1 - lo1 : hi2 - lo2) + 2;
	sort_item_t *tmp = NULL;
	int64_t *count = NULL;
	if (span <= 4 * n + 65536) {
		tmp = malloc((size_t)n * sizeof *tmp);
		count = malloc((size_t)span * sizeof *count);
	}
	if (!tmp || !count) { /* (or out of memory: the same order, slower) */
		free(tmp);
		free(count);
		qsort(items, (size_t)n, sizeof *items, cmp_item);
		return;
	}
	count_by(items, tmp, n, 1, lo2, hi2, count);
	count_by(tmp, items, n, 0, lo1, hi1, count);
	free(tmp);
	free(count);
}

void nw_inter_plan_free(nw_inter_plan_t *plan)
{
	free(plan->order);
	free(plan->group_end);
	free(plan->rest);
	memset(plan, 0, sizeof *plan);
}

/* The passes of a pair (or a group with these longest sequences) fit 16 bits: the forward
 * pass over every column, the reverse pass over at least the query's length of them. */
static int pair_fits(const nw_align_params_t *p, int64_t qlen, int64_t rlen)
{
	int local = p->mode == NW_MODE_LOCAL;
	if (!fits16(p->sc, local, p->mode == NW_MODE_SEMIGLOBAL, qlen, rlen))
		return 0;
	return p->mode == NW_MODE_GLOBAL || p->ends_only || reverse_cols(p->sc, qlen) >= qlen;
}

/* 1 when the path pass of a group takes a span of m x n (else nw_cpu_align_path). */
static int path_fits(const nw_align_params_t *p, int64_t m, int64_t n)
{
	return m >= 1 && n >= 1 && m <= INTER_PATH_SIDE && n <= INTER_PATH_SIDE &&
	       nw_path_kind(p, m, n) == NW_PATH_FULL && fits16(p->sc, 0, 0, m, n);
}

int nw_inter_plan(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
		  const nw_pair_t *pairs, int64_t n, int isa, nw_inter_plan_t *plan)
{
	return nw_inter_plan_paths(p, qb, rb, pairs, NULL, n, isa, plan);
}

/* 1 when stream groups (stream_group) would sweep fewer columns than groups of one pair a
 * lane over profile items sorted by query and reference length (k1 the query, k2 the
 * length), vl lanes: those sweep each group's longest reference, streams the references'
 * lengths over the lanes, and about a column more for each pair that begins in a lane
 * already used (its lanes' left column set anew, its best watched from 0). So streams pay
 * where lengths spread widely within groups (a few thousand references: the longest
 * group's), not where they run close (tens of thousands). */
static int streams_pay(const sort_item_t *items, int64_t n, int vl)
{
	int64_t plain = 0, streams = 0;
	for (int64_t t = 0, u; t < n; t = u) {
		int64_t cols = 0;
		for (u = t; u < n && items[u].k1 == items[t].k1; u++) {
			cols += step_cols(items[u].k2);
			if ((u - t) % vl == vl - 1 || u + 1 == n || items[u + 1].k1 != items[t].k1)
				plain += step_cols(items[u].k2) * vl; /* a group's last: its longest */
		}
		streams += cols + (u - t > vl ? u - t - vl : 0) * vl;
	}
	return streams < plain;
}

int nw_inter_plan_paths(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			const nw_pair_t *pairs, const nw_result_t *res, int64_t n, int isa,
			nw_inter_plan_t *plan)
{
	int ma, mi, K;
	memset(plan, 0, sizeof *plan);
	plan->isa = isa;
	plan->lanes = nw_cpu_isa_lanes(plan->isa);
	plan->rest = malloc((size_t)(n > 0 ? n : 1) * sizeof *plan->rest);
	if (!plan->rest)
		return NW_ERR_MEMORY;
	const int mm = nw_scoring_mm(p->sc, &ma, &mi, &K);
	const int paths = res != NULL; /* spans of any pairs: table form when not mm */
	plan->paths = paths;
	/* NWALIGN_CPU_INTER=0: no groups; 16: groups in 16-bit lanes only (tests, benchmarks) */
	const char *env = getenv("NWALIGN_CPU_INTER");
	const int off = env && !strcmp(env, "0");
	const int local8 = mm && !paths && local8_ok(p, ma, mi);
	const int64_t ma8 = local8 ? ma / mm_divisor(p->sc, ma, mi) : 0;
	plan->narrow = !paths && (mm ? diff_ok(p, ma) || local8 : narrow_ok(p)) && !only16();
	sort_item_t *items = NULL;
	int64_t n_items = 0, n_fit8 = 0; /* local8: the grouped pairs that cannot saturate */
	if ((paths || !p->starts_only) && !off && n > 0) {
		items = malloc((size_t)n * sizeof *items);
		plan->order = malloc((size_t)n * sizeof *plan->order);
		plan->group_end = malloc((size_t)n * sizeof *plan->group_end);
		if (!items || !plan->order || !plan->group_end) {
			free(items);
			nw_inter_plan_free(plan);
			return NW_ERR_MEMORY;
		}
	}
	for (int64_t k = 0; k < n; k++) {
		int64_t qlen = qb->len[pairs[k].q], rlen = rb->len[pairs[k].r];
		if (paths) {
			int64_t sm = res[k].qend - res[k].qstart, sn = res[k].rend - res[k].rstart;
			if (items && path_fits(p, sm, sn))
				items[n_items++] = (sort_item_t){sn, sm, k};
			else
				plan->rest[plan->n_rest++] = k;
			continue;
		}
		if (items && qlen > 0 && rlen > 0 && pair_fits(p, qlen, rlen)) {
			/* match/mismatch groups take any pairs of like lengths; profile groups
			 * share a query */
			items[n_items++] = mm ? (sort_item_t){rlen, qlen, k}
					      : (sort_item_t){pairs[k].q, rlen, k};
			n_fit8 += local8 && local8_fits(ma8, qlen, rlen);
		} else {
			plan->rest[plan->n_rest++] = k;
		}
	}
	/* 8-bit local groups pay twice for a saturated lane: not where many pairs may */
	if (local8 && n_fit8 * 4 < n_items * 3)
		plan->narrow = 0;
	const int group_lanes = plan->lanes * (plan->narrow ? 2 : 1);
	if (n_items > 0)
		sort_items(items, n_items);
	plan->streams = !mm && !paths && plan->narrow && streams_pay(items, n_items, group_lanes);
	if (!mm && !paths) { /* a query with few pairs would leave most lanes of its groups empty */
		int64_t kept = 0;
		for (int64_t t = 0, u; t < n_items; t = u) {
			for (u = t; u < n_items && items[u].k1 == items[t].k1; u++)
				;
			/* (a stream group takes all of a query's pairs) */
			int64_t tail = plan->streams ? u - t : (u - t) % group_lanes;
			for (int64_t x = t; x < u; x++)
				if (u - x <= tail && tail < group_lanes / 4)
					plan->rest[plan->n_rest++] = items[x].idx;
				else
					items[kept++] = items[x];
		}
		n_items = kept;
	}
	if (n_items == 0) {
		free(items);
		return 0;
	}
	int64_t start = 0, maxq = 0, maxr = 0, sum_cols = 0;
	for (int64_t t = 0; t < n_items; t++) {
		const nw_pair_t *pr = &pairs[items[t].idx];
		int64_t qlen = qb->len[pr->q], rlen = rb->len[pr->r];
		int64_t nq = qlen > maxq ? qlen : maxq, nr = rlen > maxr ? rlen : maxr;
		if (paths) { /* group by the spans' sizes */
			qlen = items[t].k2, rlen = items[t].k1;
			nq = qlen > maxq ? qlen : maxq, nr = rlen > maxr ? rlen : maxr;
		}
		const int other_query = t > start && !mm && !paths &&
					pairs[items[t - 1].idx].q != pr->q;
		const int full = plan->streams
					 ? t - start == NW_INTER_STREAM_PAIRS * group_lanes ||
						   sum_cols + step_cols(rlen) > STREAM_LANE_COLS * group_lanes
					 : t - start == group_lanes ||
						   (paths ? !path_fits(p, nq, nr) : !pair_fits(p, nq, nr));
		const int close = t > start && (other_query || full);
		if (close) {
			plan->group_end[plan->n_groups++] = t;
			start = t;
			nq = qlen, nr = rlen;
			sum_cols = 0;
		}
		sum_cols += step_cols(rlen);
		maxq = nq, maxr = nr;
		plan->order[t] = items[t].idx;
	}
	plan->group_end[plan->n_groups++] = n_items;
	free(items);
	return 0;
}

/* The largest d >= 0 with d * per <= room (0 when room < 0). */
static int64_t cells_within(int64_t room, int64_t per)
{
	return room < 0 ? 0 : room / per;
}

void nw_inter_start_band(const nw_scoring_t *sc, const nw_result_t *rs, int64_t *below,
			 int64_t *above)
{
	/* d rows below the diagonal: d query residues against gaps, so at most qend - d and
	 * rend substitutions; S <= ma * subs - O - X * d */
	const int64_t ma = sc->max_score, X = sc->gap_extend;
	const int64_t room_q = ma * rs->qend - rs->score - sc->gap_open;
	const int64_t room_r = ma * rs->rend - rs->score - sc->gap_open;
	const int64_t bq = cells_within(room_q, ma + X), br = cells_within(room_r, ma + X);
	const int64_t gq = cells_within(room_q, X), gr = cells_within(room_r, X);
	*below = bq < gr ? bq : gr;
	*above = br < gq ? br : gq;
}

/* 1 when the starts of p's pairs (whatever its ends_only and starts_only) may be found
 * in groups by band. */
static int by_band_ok(const nw_align_params_t *p)
{
	int ma, mi, K;
	const char *env = getenv("NWALIGN_CPU_INTER");
	return p->mode == NW_MODE_LOCAL && !p->want_path && p->sc->gap_extend > 0 &&
	       nw_scoring_mm(p->sc, &ma, &mi, &K) && !(env && !strcmp(env, "0"));
}

int nw_inter_starts_apart(const nw_align_params_t *p)
{
	return !p->ends_only && !p->starts_only && by_band_ok(p);
}

int nw_inter_starts_grouped(const nw_align_params_t *p)
{
	return p->starts_only && by_band_ok(p);
}

/* The largest score (over the scores' common divisor g) whose start may be found in 8-bit
 * lanes (starts_group; inter_kernel.h): 254 when the divided scores fit the lanes'
 * arithmetic, else -1 (none). */
static int64_t start8_max(const nw_scoring_t *sc, int ma, int mi, int g)
{
	return mm8_scores_ok(sc, ma, mi, g) && !only16() ? 254 : -1;
}

int nw_inter_plan_starts(const nw_align_params_t *p, const nw_result_t *res, int64_t n, int isa,
			 nw_inter_plan_t *plan)
{
	memset(plan, 0, sizeof *plan);
	plan->isa = isa;
	plan->lanes = nw_cpu_isa_lanes(isa);
	plan->starts = 1;
	plan->rest = malloc((size_t)(n > 0 ? n : 1) * sizeof *plan->rest);
	sort_item_t *items = malloc((size_t)(n > 0 ? n : 1) * sizeof *items);
	plan->order = malloc((size_t)(n > 0 ? n : 1) * sizeof *plan->order);
	plan->group_end = malloc((size_t)(n > 0 ? n : 1) * sizeof *plan->group_end);
	if (!plan->rest || !items || !plan->order || !plan->group_end) {
		free(items);
		nw_inter_plan_free(plan);
		return NW_ERR_MEMORY;
	}
	int ma = 0, mi = 0, K = 0;
	nw_scoring_mm(p->sc, &ma, &mi, &K);
	const int g = mm_divisor(p->sc, ma, mi);
	const int64_t max8 = start8_max(p->sc, ma, mi, g);
	int64_t n_items = 0;
	for (int64_t k = 0; k < n; k++) {
		const nw_result_t *rs = &res[k];
		/* the pairs without a start to find (an empty alignment, one below its need)
		 * and those whose reverse pass leaves 16 bits go one by one */
		int64_t below, above;
		if (rs->score > 0 && !(p->need && rs->score < p->need[k]) &&
		    fits16(p->sc, 0, 0, rs->qend, rs->rend)) {
			nw_inter_start_band(p->sc, rs, &below, &above);
			items[n_items++] = (sort_item_t){below + above, rs->qend, k};
		} else {
			plan->rest[plan->n_rest++] = k;
		}
	}
	sort_items(items, n_items);
	/* the groups in 8-bit lanes first (their pairs in the order of the bands), then
	 * those in 16 */
	int64_t t_out = 0;
	for (int wide = 0; wide < 2; wide++) {
		const int vl = wide ? plan->lanes : 2 * plan->lanes;
		int64_t start = t_out, maxq = 0, maxr = 0;
		for (int64_t t = 0; t < n_items; t++) {
			const nw_result_t *rs = &res[items[t].idx];
			if ((rs->score / g <= max8) == wide)
				continue;
			int64_t nq = rs->qend > maxq ? rs->qend : maxq, nr = rs->rend > maxr ? rs->rend : maxr;
			if (t_out > start && (t_out - start == vl || !fits16(p->sc, 0, 0, nq, nr))) {
				plan->group_end[plan->n_groups++] = t_out;
				start = t_out;
				nq = rs->qend, nr = rs->rend;
			}
			maxq = nq, maxr = nr;
			plan->order[t_out++] = items[t].idx;
		}
		if (t_out > start)
			plan->group_end[plan->n_groups++] = t_out;
		if (!wide)
			plan->n_narrow = plan->n_groups;
	}
	free(items);
	return 0;
}

/* ---------------------------------------------------------------- one group */

/* Lays out the workspace for a pass of rows x cols: codes, H, E, the block's first
 * columns (A) and the profile (P, then two vectors per query code). A vector is lanes
 * 16-bit lanes, or twice as many 8-bit lanes. */
static int pass_memory(nw_workspace_t *ws, inter_pass_t *ps, int lanes, int64_t rows, int64_t cols,
		       int16_t **qc, int16_t **rc)
{
	size_t vec = (size_t)lanes * sizeof(int16_t);
	size_t nq = (size_t)rows * vec, nr = (size_t)step_cols(cols) * vec;
	size_t col = ((size_t)rows + 1) * vec;
	size_t need = nq + nr + (2 + (INTER_BLOCK - 1)) * col +
		      (INTER_BLOCK + 2) * NW_MAX_CODES * vec + 64;
	if (nw_ws_grow_aligned(&ws->inter, &ws->inter_cap, need) < 0)
		return NW_ERR_MEMORY;
	char *base = ws->inter; /* every piece a multiple of vec: 16, 32 or 64 bytes */
	*qc = (int16_t *)base;
	*rc = (int16_t *)(base + nq);
	ps->H = base + nq + nr;
	ps->E = (char *)ps->H + col;
	ps->A = (char *)ps->E + col;
	ps->P = (char *)ps->A + (INTER_BLOCK - 1) * col;
	return 0;
}

/* The lanes' codes of a match/mismatch or table pass over lane l's q[l][0..m) and
 * r[l][0..n) (ps->m, ps->n), reversed when rev; padding past them. A narrow (8-bit)
 * match/mismatch pass takes lanes twice as many codes of a byte. */
static void fill_codes(int isa, const inter_pass_t *ps, int lanes, int16_t *qc, int16_t *rc,
		       uint8_t *const *q, uint8_t *const *r, int rev, int K)
{
	const int table = ps->form == INTER_TABLE, narrow = ps->narrow;
	const int q_other = narrow ? MM8_Q_OTHER : MM_Q_OTHER, r_other = narrow ? MM8_R_OTHER : MM_R_OTHER;
	int16_t qmap[NW_MAX_CODES], rmap[NW_MAX_CODES];
	for (int c = 0; c < NW_MAX_CODES; c++) {
		qmap[c] = (int16_t)(table ? 32 * c : c < K ? c : q_other + c);
		rmap[c] = (int16_t)(table ? c : c < K ? c : r_other + c);
	}
	nw_lane_fill_t f = {.vl = narrow ? 2 * lanes : lanes, .bytes = narrow ? 1 : 2,
			    .count = ps->rows, .rev = rev, .map = qmap,
			    .pad = (int16_t)(table ? 32 * INTER_TABLE_PAD : narrow ? MM8_Q_PAD : MM_Q_PAD)};
	nw_lane_codes(isa, &f, qc, (const uint8_t *const *)q, ps->m);
	f.count = step_cols(ps->cols);
	f.map = rmap;
	f.pad = (int16_t)(table ? INTER_TABLE_PAD : narrow ? MM8_R_PAD : MM_R_PAD);
	nw_lane_codes(isa, &f, rc, (const uint8_t *const *)r, ps->n);
}

/* The table form's scores: t[q * 32 + r]; the padding code and unused codes score
 * min(0, min_score). */
static void fill_table(const nw_scoring_t *sc, int32_t *t)
{
	int low = sc->min_score < 0 ? sc->min_score : 0;
	for (int a = 0; a < 32; a++)
		for (int b = 0; b < 32; b++)
			t[a * 32 + b] = a < sc->n_codes && b < sc->n_codes ? sc->score[a][b] : low;
}

/* A profile pass's scores: st[ref code][query code]; the padding code (n_codes) and the
 * unused codes past it score min(0, min_score) against every query code. */
static void fill_profile_table(const nw_scoring_t *sc, int16_t st[NW_MAX_CODES][NW_MAX_CODES])
{
	const int low = sc->min_score < 0 ? sc->min_score : 0;
	for (int a = 0; a < NW_MAX_CODES; a++)
		for (int c = 0; c < sc->n_codes; c++)
			st[a][c] = (int16_t)(a < sc->n_codes ? sc->score[c][a] : low);
}

/* A profile pass's reference codes: lane l's r[l][0..n[l]) (reversed when rev) over cols
 * columns, the padding code past it, in 16-bit lanes or, when narrow, in 8-bit lanes. */
static void fill_profile_codes(int isa, void *rc, int narrow, int vl, int64_t cols,
			       const int32_t *n, uint8_t *const *r, int rev, int pad)
{
	int16_t same[NW_MAX_CODES];
	for (int c = 0; c < NW_MAX_CODES; c++)
		same[c] = (int16_t)c;
	const nw_lane_fill_t f = {.vl = vl, .bytes = narrow ? 1 : 2, .count = cols, .rev = rev,
				  .map = same, .pad = (int16_t)pad};
	nw_lane_codes(isa, &f, rc, (const uint8_t *const *)r, n);
}

/* A lane's direction bits: the nibble of cell (i, j) in the group's words. */
typedef struct {
	const uint16_t *D;
	int64_t rows;
	int lanes, l;
} lane_dirs_t;

static int lane_dir(const void *ctx, int64_t i, int64_t j)
{
	const lane_dirs_t *c = ctx;
	uint16_t w = c->D[(((j - 1) / INTER_BLOCK) * c->rows + i - 1) * c->lanes + c->l];
	return w >> (4 * ((j - 1) % INTER_BLOCK)) & 15;
}

/* Lane l's path from the direction words into res, in forward order. */
static int trace_lane(nw_workspace_t *ws, const uint16_t *D, int64_t rows, int lanes, int l,
		      const uint8_t *a, int64_t m, const uint8_t *b, int64_t n, nw_result_t *res)
{
	if (nw_ws_grow((void **)&ws->ops, &ws->ops_cap, (size_t)(m + n)) < 0)
		return NW_ERR_MEMORY;
	const lane_dirs_t ctx = {D, rows, lanes, l};
	int64_t k = nw_trace_back(a, m, b, n, 0, lane_dir, &ctx, ws->ops);
	res->n_cigar = 0;
	while (k > 0) {
		uint8_t op = ws->ops[--k];
		int64_t len = 1;
		for (; k > 0 && ws->ops[k - 1] == op; k--)
			len++;
		if (nw_cigar_push(res, op, len) < 0)
			return NW_ERR_MEMORY;
	}
	return 0;
}

/* The paths of a group whose scores and spans res holds: one global pass with direction
 * bits over the lanes' spans (form INTER_MM or INTER_TABLE), a walk back for each lane,
 * then nw_path_finish's checks, as nw_cpu_align_path gives them. Spans too large for the
 * pass, or empty on one side, take nw_cpu_align_path. */
static int group_paths(nw_workspace_t *ws, const nw_align_params_t *p, int isa, int form, int lanes,
		       int used, const int64_t *idx, uint8_t *const *q, const int64_t *qlen,
		       uint8_t *const *r, const int64_t *rlen, int K, nw_result_t *res)
{
	const nw_scoring_t *sc = p->sc;
	uint8_t *qs[NW_INTER_MAX_LANES], *rs[NW_INTER_MAX_LANES];
	int in_pass[NW_INTER_MAX_LANES] = {0};
	int64_t rows = 0, cols = 0;
	inter_pass_t ps = {.form = form, .n_codes = sc->n_codes, .O = (int16_t)sc->gap_open,
			   .X = (int16_t)sc->gap_extend, .track = DP_TRACK_NONE};
	int ma = 0, mi = 0, kk = 0;
	if (form == INTER_MM)
		nw_scoring_mm(sc, &ma, &mi, &kk);
	ps.match = (int16_t)ma, ps.mismatch = (int16_t)mi;
	for (int l = 0; l < used; l++) {
		nw_result_t *x = &res[idx[l]];
		int64_t m = x->qend - x->qstart, n = x->rend - x->rstart;
		qs[l] = rs[l] = NULL;
		in_pass[l] = path_fits(p, m, n);
		if (!in_pass[l]) {
			int ret = nw_cpu_align_path(p, q[l], qlen[l], r[l], rlen[l], ws, x);
			if (ret < 0)
				return ret;
			continue;
		}
		qs[l] = q[l] + x->qstart, rs[l] = r[l] + x->rstart;
		ps.m[l] = (int32_t)m, ps.n[l] = (int32_t)n;
		rows = m > rows ? m : rows;
		cols = n > cols ? n : cols;
	}
	if (rows == 0)
		return 0;
	for (int l = used; l < lanes; l++)
		qs[l] = rs[l] = NULL; /* empty lanes: m = n = 0, padding only */
	int16_t *qc, *rc;
	int32_t table[32 * 32];
	size_t words = (size_t)(step_cols(cols) / INTER_BLOCK) * (size_t)rows * (size_t)lanes;
	if (pass_memory(ws, &ps, lanes, rows, cols, &qc, &rc) < 0 ||
	    nw_ws_grow_aligned(&ws->inter_dir, &ws->inter_dir_cap, words * 2) < 0)
		return NW_ERR_MEMORY;
	ps.rows = rows, ps.cols = cols;
	ps.dir = ws->inter_dir;
	if (form == INTER_TABLE) {
		fill_table(sc, table);
		ps.table = table;
	}
	fill_codes(isa, &ps, lanes, qc, rc, qs, rs, 0, K);
	ps.qc = qc, ps.rc = rc;
	inter_hits_t hit;
	nw_inter_pass(isa, &ps, &hit);
	for (int l = 0; l < used; l++) {
		if (!in_pass[l])
			continue;
		nw_result_t *x = &res[idx[l]];
		if (hit.score[l] != x->score)
			return NW_ERR_INTERNAL; /* the span's global optimum is the score */
		int ret = trace_lane(ws, ps.dir, rows, lanes, l, qs[l], ps.m[l], rs[l], ps.n[l], x);
		if (ret < 0)
			return ret;
		x->path_kind = NW_PATH_FULL;
		if ((ret = nw_path_finish(p, q[l], qlen[l], r[l], rlen[l], x)) < 0)
			return ret;
	}
	return 0;
}

/* The lanes of group g unpacked into the workspace: q[l] and r[l], and their lengths. */
static int unpack_group(nw_workspace_t *ws, const nw_batch_t *qb, const nw_batch_t *rb,
			const nw_pair_t *pairs, const int64_t *idx, int used, uint8_t **q,
			int64_t *qlen, uint8_t **r, int64_t *rlen, int64_t *maxq, int64_t *maxr)
{
	*maxq = *maxr = 0;
	for (int l = 0; l < used; l++) {
		qlen[l] = qb->len[pairs[idx[l]].q];
		rlen[l] = rb->len[pairs[idx[l]].r];
		*maxq = qlen[l] > *maxq ? qlen[l] : *maxq;
		*maxr = rlen[l] > *maxr ? rlen[l] : *maxr;
	}
	/* NW_LANE_SLACK bytes before the first sequence and after the last: nw_lane_codes
	 * reads a few bytes around each */
	size_t stride = (size_t)(*maxq + *maxr);
	if (nw_ws_grow((void **)&ws->inter_seq, &ws->inter_seq_cap,
		       stride * used + 2 * NW_LANE_SLACK) < 0)
		return NW_ERR_MEMORY;
	for (int l = 0; l < used; l++) {
		q[l] = ws->inter_seq + NW_LANE_SLACK + stride * l;
		r[l] = q[l] + *maxq;
		/* the lanes of a profile group share their query: unpacked once, read by all
		 * (the lanes' sequences are only read) */
		if (l > 0 && pairs[idx[l]].q == pairs[idx[0]].q)
			q[l] = q[0];
		else
			nw_batch_unpack(qb, pairs[idx[l]].q, q[l]);
		nw_batch_unpack(rb, pairs[idx[l]].r, r[l]);
	}
	return 0;
}

static int group_starts(nw_workspace_t *ws, const nw_align_params_t *p, int isa, int lanes,
			const inter_pass_t *fw, int K, int used, const int64_t *idx,
			uint8_t *const *q, const int64_t *qlen, uint8_t *const *r, const int *skip,
			nw_result_t *res);

/* rs as a score and an end cell alone: no start yet, no path. */
static void result_ends(nw_result_t *rs, int64_t score, int64_t qend, int64_t rend)
{
	rs->qstart = rs->rstart = 0;
	rs->n_cigar = 0;
	rs->matches = rs->aln_len = rs->edits = 0;
	rs->path_kind = NW_PATH_NONE;
	rs->score = rs->opt_score = score;
	rs->qend = qend;
	rs->rend = rend;
}

/* Scores, spans and starts of a group's lanes (used of them, pairs idx[], sequences
 * unpacked) with the forward and reverse passes, in 16-bit lanes or, when narrow, in
 * 8-bit lanes (2 * lanes of them): then the lanes whose best saturated are listed in
 * sat[] (*n_sat of them) for the caller to run again in 16 bits, and their res is left
 * as it was. */
static int group_scores(nw_workspace_t *ws, const nw_align_params_t *p, int isa, int narrow,
			int lanes, int used, const int64_t *idx, uint8_t *const *q,
			const int64_t *qlen, uint8_t *const *r, const int64_t *rlen, nw_result_t *res,
			int *sat, int *n_sat)
{
	const nw_scoring_t *sc = p->sc;
	int ma = 0, mi = 0, K = 0;
	const int mm = nw_scoring_mm(sc, &ma, &mi, &K);
	int64_t maxq = 0, maxr = 0;
	for (int l = 0; l < used; l++) {
		maxq = qlen[l] > maxq ? qlen[l] : maxq;
		maxr = rlen[l] > maxr ? rlen[l] : maxr;
	}
	const int vl = narrow ? 2 * lanes : lanes; /* pairs a pass */
	const int local = p->mode == NW_MODE_LOCAL;
	/* an 8-bit local match/mismatch pass runs on the divided scores (local8_ok) */
	const int g = narrow && mm && local ? mm_divisor(sc, ma, mi) : 1;
	*n_sat = 0;

	/* forward: score and end cell */
	inter_pass_t ps = {.rows = maxq, .cols = maxr, .n_codes = sc->n_codes,
			   .match = (int16_t)(ma / g), .mismatch = (int16_t)(mi / g),
			   .O = (int16_t)(sc->gap_open / g), .X = (int16_t)(sc->gap_extend / g),
			   .local = local, .ref_free = p->mode == NW_MODE_SEMIGLOBAL,
			   .narrow = narrow,
			   .track = local ? DP_TRACK_MAX
				    : p->mode == NW_MODE_SEMIGLOBAL ? DP_TRACK_LASTROW : DP_TRACK_NONE};
	int16_t *qc, *rc;
	int16_t st[NW_MAX_CODES][NW_MAX_CODES];
	if (pass_memory(ws, &ps, lanes, maxq, maxr, &qc, &rc) < 0)
		return NW_ERR_MEMORY;
	for (int l = 0; l < vl; l++) {
		ps.m[l] = l < used ? (int32_t)qlen[l] : 0;
		ps.n[l] = l < used ? (int32_t)rlen[l] : 0;
	}
	if (mm) {
		fill_codes(isa, &ps, lanes, qc, rc, q, r, 0, K);
		ps.qc = qc;
	} else { /* profile: one query for the group */
		const int pad = sc->n_codes;
		fill_profile_table(sc, st);
		fill_profile_codes(isa, rc, narrow, vl, step_cols(maxr), ps.n, r, 0, pad);
		ps.form = INTER_PROFILE;
		ps.qs = q[0];
		ps.st = (const int16_t (*)[NW_MAX_CODES])st;
	}
	ps.rc = rc;
	inter_hits_t hit;
	nw_inter_pass(isa, &ps, &hit);

	int need_start = 0, skip[NW_INTER_MAX_LANES] = {0}; /* skip: saturated lanes */
	if (narrow)
		ws->narrow_lanes += used;
	for (int l = 0; l < used; l++) {
		nw_result_t *rs = &res[idx[l]];
		if (narrow && local && hit.score[l] >= (mm ? 255 : 127)) { /* (the global pass
									      * by differences holds
									      * any score) */
			sat[(*n_sat)++] = l;
			skip[l] = 1;
			ws->narrow_saturated++;
			continue;
		}
		const int64_t score = (int64_t)hit.score[l] * g;
		if (p->mode == NW_MODE_LOCAL && score <= 0) /* no positive alignment: empty span */
			result_ends(rs, 0, 0, 0);
		else
			result_ends(rs, score, p->mode == NW_MODE_LOCAL ? hit.col[l] : qlen[l],
				    p->mode == NW_MODE_GLOBAL ? rlen[l] : hit.row[l]);
		need_start |= p->mode != NW_MODE_GLOBAL && !p->ends_only &&
			      !(p->mode == NW_MODE_LOCAL && rs->score == 0);
	}
	if (!need_start)
		return 0;
	return group_starts(ws, p, isa, lanes, &ps, K, used, idx, q, qlen, r, skip, res);
}

/* The starts of a group's lanes (used of them, pairs idx[], sequences unpacked) whose
 * scores and end cells res holds, but for those in skip[]: a reverse pass from the end
 * cells over the reversed prefixes (the profile form's lanes share their query). fw: the
 * forward pass. */
static int group_starts(nw_workspace_t *ws, const nw_align_params_t *p, int isa, int lanes,
			const inter_pass_t *fw, int K, int used, const int64_t *idx,
			uint8_t *const *q, const int64_t *qlen, uint8_t *const *r, const int *skip,
			nw_result_t *res)
{
	const nw_scoring_t *sc = p->sc;
	const int narrow = fw->narrow, mm = fw->form == INTER_MM;
	const int vl = narrow ? 2 * lanes : lanes;
	int16_t *qc, *rc;
	inter_hits_t hit;
	int64_t rq = 0, rr = 0;
	for (int l = 0; l < used; l++) {
		if (skip[l])
			continue;
		const nw_result_t *rs = &res[idx[l]];
		rq = rs->qend > rq ? rs->qend : rq;
		rr = rs->rend > rr ? rs->rend : rr;
	}
	inter_pass_t rv = *fw;
	rv.fresh = NULL, rv.seg_first = rv.seg_col0 = NULL, rv.seg_out = NULL; /* one pair a lane */
	/* a start further back than the columns that fit 16 bits (a path the 16-bit scores can
	 * hardly hold) is found by the per-pair pass; 8-bit lanes take any (inter_kernel.h) */
	if (!narrow) {
		const int64_t fit = reverse_cols(sc, rq);
		rr = rr < fit ? rr : fit;
	}
	/* profile groups run over the whole reversed query (see below) */
	rv.rows = mm ? rq : qlen[0], rv.cols = rr;
	rv.local = rv.ref_free = 0;
	rv.track = p->mode == NW_MODE_LOCAL ? DP_TRACK_TARGET : DP_TRACK_TARGET_LASTCOL;
	if (pass_memory(ws, &rv, lanes, rv.rows, rr, &qc, &rc) < 0)
		return NW_ERR_MEMORY;
	for (int l = 0; l < vl; l++) {
		const nw_result_t *rs = l < used && !skip[l] ? &res[idx[l]] : NULL;
		int empty = !rs || (p->mode == NW_MODE_LOCAL && rs->score == 0);
		rv.m[l] = empty ? 0 : (int32_t)rs->qend;
		rv.n[l] = empty ? 0 : (int32_t)rs->rend;
		rv.target[l] = empty ? 0 : (int32_t)rs->score;
	}
	if (mm) {
		fill_codes(isa, &rv, lanes, qc, rc, q, r, 1, K);
		rv.qc = qc, rv.rc = rc;
	} else {
		/* the reversed prefixes of one query are suffixes of the reversed query:
		 * a local pass starts lane l at row qlen - qend (semiglobal: qend = qlen) */
		const int64_t M = rv.rows;
		const uint8_t *qrev = nw_ws_reverse(ws, 0, q[0], M);
		if (!qrev)
			return NW_ERR_MEMORY;
		rv.form = p->mode == NW_MODE_LOCAL ? INTER_ANCHORED : INTER_PROFILE;
		rv.qs = qrev;
		for (int l = 0; l < vl; l++)
			rv.top[l] = (int32_t)(M - rv.m[l]);
		fill_profile_codes(isa, rc, narrow, vl, step_cols(rr), rv.n, r, 1, sc->n_codes);
		rv.rc = rc;
	}
	nw_inter_pass(isa, &rv, &hit);
	for (int l = 0; l < used; l++) {
		nw_result_t *rs = &res[idx[l]];
		if (rv.m[l] == 0 && rv.n[l] == 0)
			continue;
		if (hit.row[l] < 0) { /* past the columns that fit: the per-pair pass */
			int ret = nw_cpu_find_start(p, q[l], r[l], ws, rs);
			if (ret < 0)
				return ret;
			continue;
		}
		rs->rstart = rs->rend - hit.row[l];
		rs->qstart = rs->qend - hit.col[l];
	}
	return 0;
}

/* The starts of group g of a plan of starts: one reverse pass over the lanes' reversed
 * prefixes, within the widest of their bands. narrow: in 8-bit lanes, twice as many, the
 * scores divided by their common divisor (every pair's at most start8_max), each lane's
 * cells offset so that its score is the lanes' top value (inter_kernel.h). */
static int starts_group(nw_workspace_t *ws, const nw_align_params_t *p, int isa, int lanes,
			int narrow, int used, const int64_t *idx, uint8_t *const *q,
			uint8_t *const *r, nw_result_t *res)
{
	const nw_scoring_t *sc = p->sc;
	int ma = 0, mi = 0, K = 0;
	nw_scoring_mm(sc, &ma, &mi, &K);
	const int g = narrow ? mm_divisor(sc, ma, mi) : 1;
	const int vl = narrow ? 2 * lanes : lanes;
	inter_pass_t rv = {.n_codes = sc->n_codes, .match = (int16_t)(ma / g),
			   .mismatch = (int16_t)(mi / g), .O = (int16_t)(sc->gap_open / g),
			   .X = (int16_t)(sc->gap_extend / g), .narrow = narrow,
			   .form = INTER_MM, .track = DP_TRACK_TARGET, .banded = 1};
	int64_t below = 0, above = 0;
	for (int l = 0; l < vl; l++) {
		const nw_result_t *rs = l < used ? &res[idx[l]] : NULL;
		rv.m[l] = rs ? (int32_t)rs->qend : 0;
		rv.n[l] = rs ? (int32_t)rs->rend : 0;
		rv.target[l] = rs ? (int32_t)(rs->score / g) : 0;
		rv.rows = rv.m[l] > rv.rows ? rv.m[l] : rv.rows;
		rv.cols = rv.n[l] > rv.cols ? rv.n[l] : rv.cols;
		int64_t b, a;
		if (rs) {
			nw_inter_start_band(sc, rs, &b, &a);
			below = b > below ? b : below;
			above = a > above ? a : above;
		}
	}
	rv.below = (int32_t)(below < rv.rows ? below : rv.rows);
	rv.above = (int32_t)(above < rv.cols ? above : rv.cols);
	int16_t *qc, *rc;
	if (pass_memory(ws, &rv, lanes, rv.rows, rv.cols, &qc, &rc) < 0)
		return NW_ERR_MEMORY;
	fill_codes(isa, &rv, lanes, qc, rc, q, r, 1, K);
	rv.qc = qc, rv.rc = rc;
	inter_hits_t hit;
	nw_inter_pass(isa, &rv, &hit);
	for (int l = 0; l < used; l++) {
		nw_result_t *rs = &res[idx[l]];
		if (hit.row[l] < 0)
			return NW_ERR_INTERNAL; /* the band holds the optimal path itself */
		rs->rstart = rs->rend - hit.row[l];
		rs->qstart = rs->qend - hit.col[l];
	}
	return 0;
}

/* One load from each cache line of batch b's sequence i: loads, which the processor
 * must complete, where a prefetch instruction is only a hint it may drop. */
static void touch_seq(const nw_batch_t *b, uint32_t i)
{
	const volatile char *w = (const volatile char *)(b->words + b->offset[i]);
	const int64_t bytes = ((int64_t)b->len[i] * b->bits[i] + 7) / 8;
	for (int64_t at = 0; at < bytes; at += 64)
		(void)w[at];
	if (bytes > 0)
		(void)w[bytes - 1];
}

void nw_inter_group_prefetch(const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs,
			     const nw_inter_plan_t *plan, int64_t g)
{
	const int64_t k0 = g ? plan->group_end[g - 1] : 0, k1 = plan->group_end[g];
	for (int64_t k = k0; k < k1; k++) {
		const nw_pair_t *pr = &pairs[plan->order[k]];
		if (k == k0 || pr->q != pairs[plan->order[k - 1]].q)
			touch_seq(qb, pr->q);
		touch_seq(rb, pr->r);
	}
}

/* After a group's passes: its saturated pairs (sat[], n_sat of them, positions in idx)
 * again in 16 bits, then (p->want_path) every pair's path, lanes at a time. */
static int group_finish(nw_workspace_t *ws, const nw_align_params_t *p, int isa, int form,
			int lanes, int used, const int64_t *idx, uint8_t *const *q,
			const int64_t *qlen, uint8_t *const *r, const int64_t *rlen, int K,
			const int *sat, int n_sat, nw_result_t *res)
{
	int ret = 0;
	/* a narrow group's saturated lanes again in 16 bits: a few of them one by one (the
	 * per-pair passes, whose cost is the pair's, where a group pass costs the whole
	 * vector's; usually a few homologs among many unrelated pairs), else in groups */
	if (n_sat * 4 < lanes) {
		nw_align_params_t sp = *p;
		sp.want_path = 0; /* the paths come with the group's, below */
		sp.need = NULL;   /* (needs are per pair: none here) */
		for (int k = 0; ret == 0 && k < n_sat; k++) {
			const int l = sat[k];
			ret = nw_cpu_align(&sp, q[l], qlen[l], r[l], rlen[l], ws, &res[idx[l]]);
		}
		ws->narrow_alone += n_sat;
		n_sat = 0;
	}
	for (int s0 = 0; ret == 0 && s0 < n_sat; s0 += lanes) {
		const int n = n_sat - s0 < lanes ? n_sat - s0 : lanes;
		int64_t sidx[NW_INTER_MAX_LANES], sq[NW_INTER_MAX_LANES], sr[NW_INTER_MAX_LANES];
		uint8_t *qs[NW_INTER_MAX_LANES], *rs[NW_INTER_MAX_LANES];
		int none[NW_INTER_MAX_LANES], n_none;
		for (int k = 0; k < n; k++) {
			const int l = sat[s0 + k];
			sidx[k] = idx[l], qs[k] = q[l], rs[k] = r[l], sq[k] = qlen[l], sr[k] = rlen[l];
		}
		ret = group_scores(ws, p, isa, 0, lanes, n, sidx, qs, sq, rs, sr, res, none, &n_none);
		ws->narrow_regroups++;
	}
	/* paths: a global pass with direction bits over the spans, lanes at a time */
	for (int p0 = 0; ret == 0 && p->want_path && p0 < used; p0 += lanes)
		ret = group_paths(ws, p, isa, form, lanes, used - p0 < lanes ? used - p0 : lanes,
				  idx + p0, q + p0, qlen + p0, r + p0, rlen + p0, K, res);
	return ret;
}

/* ---------------------------------------------------------------- streams */

/* The pieces of a stream group's memory (one workspace block): per pair, per lane, per
 * block of columns. */
typedef struct {
	uint8_t **q, **r;
	int64_t *qlen, *rlen;
	sort_item_t *starts; /* the pairs that need a start, by top (qlen - qend) */
	int32_t *lane, *col0, *seg_pair, *seg_col0, *seg_first;
	int *sat;
	inter_seg_t *out;
	uint64_t *fresh;
} stream_mem_t;

static int stream_memory(nw_workspace_t *ws, int used, int vl, int64_t blocks, stream_mem_t *m)
{
	const size_t n = (size_t)used;
	const size_t need = n * (2 * sizeof(uint8_t *) + 2 * sizeof(int64_t) + sizeof(sort_item_t) +
				 4 * sizeof(int32_t) +
				 sizeof(int) + sizeof(inter_seg_t)) +
			    (size_t)(vl + 1) * sizeof(int32_t) + (size_t)blocks * sizeof(uint64_t) +
			    16 * 8;
	if (nw_ws_grow(&ws->inter_streams, &ws->inter_streams_cap, need) < 0)
		return NW_ERR_MEMORY;
	char *at = ws->inter_streams;
#define STREAM_PIECE(field, count)                                                         \
	do {                                                                               \
		m->field = (void *)at;                                                     \
		at += ((count) * sizeof *m->field + 7) / 8 * 8;                            \
	} while (0)
	STREAM_PIECE(fresh, (size_t)blocks); /* first: 8-byte aligned, as the block is */
	STREAM_PIECE(q, n);
	STREAM_PIECE(r, n);
	STREAM_PIECE(qlen, n);
	STREAM_PIECE(rlen, n);
	STREAM_PIECE(starts, n);
	STREAM_PIECE(lane, n);
	STREAM_PIECE(col0, n);
	STREAM_PIECE(seg_pair, n);
	STREAM_PIECE(seg_col0, n);
	STREAM_PIECE(seg_first, (size_t)vl + 1);
	STREAM_PIECE(sat, n);
	STREAM_PIECE(out, n);
#undef STREAM_PIECE
	return 0;
}

/* A narrow profile group of one query and any number of references (plan->streams):
 * lane by lane the references follow one another, each from a block of its own
 * (inter_pass_t's streams), so that the pass sweeps about the references' total length
 * over the lanes, where a group of one reference a lane sweeps its longest reference in
 * every lane (a database's lengths spread widely). The references go, longest first (the
 * plan sorts them by length), each to the lane that ends first. Then the starts, in groups
 * of lanes by query end, and the saturated pairs and paths (group_finish). */
static int stream_group(nw_workspace_t *ws, const nw_align_params_t *p, int isa, int lanes,
			int used, const int64_t *idx, const nw_batch_t *qb, const nw_batch_t *rb,
			const nw_pair_t *pairs, nw_result_t *res)
{
	const nw_scoring_t *sc = p->sc;
	const int vl = 2 * lanes, pad = sc->n_codes;
	const uint32_t qid = pairs[idx[0]].q;
	const int64_t qlen = qb->len[qid];
	int64_t load[NW_INTER_MAX_LANES] = {0}, cols = 0;
	int32_t next_seg[NW_INTER_MAX_LANES]; /* each lane's next segment to number */
	/* the lanes: longest reference first, to the lane that ends first (the first such) */
	stream_mem_t m;
	int64_t total = 0;
	for (int k = 0; k < used; k++)
		total += step_cols(rb->len[pairs[idx[k]].r]);
	if (stream_memory(ws, used, vl, total / INTER_BLOCK + 1, &m) < 0)
		return NW_ERR_MEMORY;
	for (int k = used - 1; k >= 0; k--) {
		int l = 0;
		for (int x = 1; x < vl; x++)
			l = load[x] < load[l] ? x : l;
		m.rlen[k] = rb->len[pairs[idx[k]].r];
		m.qlen[k] = qlen;
		m.lane[k] = l;
		m.col0[k] = (int32_t)load[l];
		load[l] += step_cols(m.rlen[k]);
		cols = load[l] > cols ? load[l] : cols;
	}
	/* segments lane by lane, each lane's in column order */
	for (int l = 0; l <= vl; l++)
		m.seg_first[l] = 0;
	for (int k = 0; k < used; k++)
		m.seg_first[m.lane[k] + 1]++;
	for (int l = 0; l < vl; l++) {
		m.seg_first[l + 1] += m.seg_first[l];
		next_seg[l] = m.seg_first[l];
	}
	for (int64_t b = 0; b < cols / INTER_BLOCK; b++)
		m.fresh[b] = 0;
	for (int k = used - 1; k >= 0; k--) {
		const int l = m.lane[k], s = next_seg[l]++;
		m.seg_pair[s] = k;
		m.seg_col0[s] = m.col0[k];
		if (s > m.seg_first[l])
			m.fresh[m.col0[k] / INTER_BLOCK] |= UINT64_C(1) << l;
	}
	/* the query, then each lane's references at their columns, the padding code between */
	const size_t slack = NW_LANE_SLACK, stride = (size_t)cols;
	if (nw_ws_grow((void **)&ws->inter_seq, &ws->inter_seq_cap,
		       (size_t)qlen + 2 * slack + stride * vl + slack) < 0)
		return NW_ERR_MEMORY;
	uint8_t *query = ws->inter_seq + slack, *lane0 = query + qlen + slack;
	nw_batch_unpack(qb, qid, query);
	memset(lane0, pad, stride * vl);
	for (int k = 0; k < used; k++) {
		m.q[k] = query;
		m.r[k] = lane0 + stride * m.lane[k] + m.col0[k];
		nw_batch_unpack(rb, pairs[idx[k]].r, m.r[k]);
	}

	/* forward: every pair's score and end cell */
	int16_t st[NW_MAX_CODES][NW_MAX_CODES];
	fill_profile_table(sc, st);
	inter_pass_t ps = {.rows = qlen, .cols = cols, .n_codes = sc->n_codes,
			   .O = (int16_t)sc->gap_open, .X = (int16_t)sc->gap_extend, .local = 1,
			   .narrow = 1, .track = DP_TRACK_MAX, .form = INTER_PROFILE, .qs = query,
			   .st = (const int16_t (*)[NW_MAX_CODES])st, .seg_first = m.seg_first,
			   .seg_col0 = m.seg_col0, .fresh = m.fresh, .seg_out = m.out};
	uint8_t *lane_r[NW_INTER_MAX_LANES];
	for (int l = 0; l < vl; l++) {
		ps.m[l] = m.seg_first[l] < m.seg_first[l + 1] ? (int32_t)qlen : 0;
		ps.n[l] = (int32_t)load[l];
		lane_r[l] = lane0 + stride * l;
	}
	int16_t *qc, *rc;
	if (pass_memory(ws, &ps, lanes, qlen, cols, &qc, &rc) < 0)
		return NW_ERR_MEMORY;
	fill_profile_codes(isa, rc, 1, vl, cols, ps.n, lane_r, 0, pad);
	ps.rc = rc;
	inter_hits_t hit;
	nw_inter_pass(isa, &ps, &hit);
	ws->narrow_lanes += used;

	int n_sat = 0, n_start = 0;
	for (int s = 0; s < used; s++) {
		const int k = m.seg_pair[s];
		const inter_seg_t *o = &m.out[s];
		nw_result_t *rs = &res[idx[k]];
		if (o->score >= 127) { /* saturated: again in 16 bits */
			m.sat[n_sat++] = k;
			ws->narrow_saturated++;
			continue;
		}
		result_ends(rs, o->score, o->qend, o->rend);
		if (!p->ends_only && o->score > 0)
			m.starts[n_start++] = (sort_item_t){qlen - o->qend, 0, k};
	}
	/* the starts, lanes at a time, by query end, latest first (the anchored reverse pass
	 * starts at its lanes' first row: the reversed query's qlen - qend) */
	sort_items(m.starts, n_start);
	int ret = 0;
	for (int s0 = 0; ret == 0 && s0 < n_start; s0 += vl) {
		const int n = n_start - s0 < vl ? n_start - s0 : vl;
		int64_t sidx[NW_INTER_MAX_LANES], sq[NW_INTER_MAX_LANES];
		uint8_t *qs[NW_INTER_MAX_LANES], *rs[NW_INTER_MAX_LANES];
		int none[NW_INTER_MAX_LANES] = {0};
		for (int x = 0; x < n; x++) {
			const int64_t k = m.starts[s0 + x].idx;
			sidx[x] = idx[k], qs[x] = m.q[k], rs[x] = m.r[k], sq[x] = qlen;
		}
		ret = group_starts(ws, p, isa, lanes, &ps, 0, n, sidx, qs, sq, rs, none, res);
	}
	if (ret < 0)
		return ret;
	return group_finish(ws, p, isa, INTER_TABLE, lanes, used, idx, m.q, m.qlen, m.r, m.rlen, 0,
			    m.sat, n_sat, res);
}

int nw_inter_group(nw_workspace_t *ws, const nw_align_params_t *p, const nw_batch_t *qb,
		   const nw_batch_t *rb, const nw_pair_t *pairs, const nw_inter_plan_t *plan,
		   int64_t g, nw_result_t *res)
{
	const int64_t k0 = g ? plan->group_end[g - 1] : 0, k1 = plan->group_end[g];
	const int lanes = plan->lanes, used = (int)(k1 - k0);
	const int64_t *idx = plan->order + k0;
	int ma, mi, K = 0;
	const int form = nw_scoring_mm(p->sc, &ma, &mi, &K) ? INTER_MM : INTER_TABLE;
	if (plan->streams)
		return stream_group(ws, p, plan->isa, lanes, used, idx, qb, rb, pairs, res);
	uint8_t *q[NW_INTER_MAX_LANES], *r[NW_INTER_MAX_LANES];
	int64_t qlen[NW_INTER_MAX_LANES], rlen[NW_INTER_MAX_LANES], maxq, maxr;
	if (unpack_group(ws, qb, rb, pairs, idx, used, q, qlen, r, rlen, &maxq, &maxr) < 0)
		return NW_ERR_MEMORY;
	if (plan->starts)
		return starts_group(ws, p, plan->isa, lanes, g < plan->n_narrow, used, idx, q, r,
				    res);
	if (plan->paths)
		return group_paths(ws, p, plan->isa, form, lanes, used, idx, q, qlen, r, rlen, K,
				   res);

	int sat[NW_INTER_MAX_LANES], n_sat = 0;
	int ret = group_scores(ws, p, plan->isa, plan->narrow, lanes, used, idx, q, qlen, r, rlen,
			       res, sat, &n_sat);
	if (ret < 0)
		return ret;
	return group_finish(ws, p, plan->isa, form, lanes, used, idx, q, qlen, r, rlen, K, sat,
			    n_sat, res);
}
