/* path.c: the path policy shared by every engine (src/path.h): which kind of path a span
 * takes, the GACT tile walk (anchors, limits, what is kept), the Myers-Miller split rule,
 * and the check every finished path passes. The engines solve the sub-problems (full
 * matrices, tiles); the decisions around them live here so that the CPU and the GPU make
 * the same ones.
 */
#include <stdlib.h>

#include "path.h"

/* The full-matrix limit: NW_PATH_FULL_CELLS, or the environment's NW_PATH_FULL_CELLS (a hook
 * for benchmarks: 0 sends every span to GACT or --exact, so that GACT's accuracy can be
 * measured on short reads too). Read once; both engines see the same value. */
static int64_t full_cells(void)
{
	static int64_t cached = -2;
	int64_t v = __atomic_load_n(&cached, __ATOMIC_RELAXED);
	if (v == -2) {
		const char *s = getenv("NW_PATH_FULL_CELLS");
		v = s && *s ? atoll(s) : -1;
		__atomic_store_n(&cached, v, __ATOMIC_RELAXED);
	}
	return v >= 0 ? v : NW_PATH_FULL_CELLS;
}

int nw_path_kind(const nw_align_params_t *p, int64_t m, int64_t n)
{
	/* (m + 1)(n + 1) <= FULL without overflow for spans up to 2^32 x 2^32 */
	if (m + 1 <= full_cells() / (n + 1))
		return NW_PATH_FULL;
	return p->gact ? NW_PATH_GACT : NW_PATH_EXACT;
}

const char *nw_path_kind_name(int kind)
{
	switch (kind) {
	case NW_PATH_FULL: return "full";
	case NW_PATH_GACT: return "gact";
	case NW_PATH_EXACT: return "exact";
	case NW_PATH_REDONE: return "redone";
	default: return "none";
	}
}

void nw_gact_params(const nw_align_params_t *p, int *T, int *O)
{
	if (p->tile > 0) {
		*T = p->tile;
		*O = p->overlap;
	} else {
		*T = NW_GACT_TILE_DEFAULT;
		*O = NW_GACT_OVERLAP_DEFAULT;
	}
}

int nw_gact_too_short(const nw_align_params_t *p, int64_t path_score, int64_t opt)
{
	double allowed = p->max_deficit * (double)(opt < 0 ? -opt : opt);
	return (double)(opt - path_score) > allowed;
}

/* ---------------------------------------------------------------- GACT state */

void nw_gact_begin(nw_gact_t *g, int64_t m, int64_t n)
{
	g->m = m;
	g->n = n;
	g->i = m;
	g->j = n;
	g->state = NW_GACT_AT_NODE;
	g->tiles = 0;
}

int nw_gact_next(const nw_gact_t *g, int T, int O, const nw_align_params_t *p,
		 nw_gact_tile_t *t)
{
	if (g->i == 0 && g->j == 0)
		return 0;
	t->i = g->i;
	t->j = g->j;
	t->tm = g->i < T ? g->i : T;
	t->tn = g->j < T ? g->j : T;
	t->top_open = g->state == NW_GACT_IN_D ? 0 : p->sc->gap_open;
	t->left_open = g->state == NW_GACT_IN_I ? 0 : p->sc->gap_open;
	t->last = t->tm == g->i && t->tn == g->j;
	t->row_limit = t->tm == g->i ? t->tm : t->tm - O;
	t->col_limit = t->tn == g->j ? t->tn : t->tn - O;
	return 1;
}

static int take_fail(const nw_gact_t *g, const char *why)
{
	nw_log_error("internal: GACT tile %lld at (%lld, %lld) of a %lld x %lld span: %s",
		     (long long)g->tiles, (long long)g->i, (long long)g->j, (long long)g->m,
		     (long long)g->n, why);
	return NW_ERR_INTERNAL;
}

int nw_gact_take(nw_gact_t *g, const nw_gact_tile_t *t, const uint8_t *ops, int64_t k,
		 nw_result_t *res)
{
	int64_t rows = 0, cols = 0, kept = 0, all_rows = 0, all_cols = 0;
	int ret;

	/* The ops must be one path from the anchor to the tile's far corner. */
	for (int64_t x = 0; x < k; x++) {
		uint8_t op = ops[x];
		if (op != NW_CIGAR_EQ && op != NW_CIGAR_X && op != NW_CIGAR_I && op != NW_CIGAR_D)
			return take_fail(g, "an op that is not = X I D");
		all_rows += op != NW_CIGAR_D;
		all_cols += op != NW_CIGAR_I;
	}
	if (all_rows != t->tm || all_cols != t->tn)
		return take_fail(g, "the ops do not reach the far corner of the tile");
	if (t->last) {
		kept = k;
		rows = t->tm;
		cols = t->tn;
	} else {
		for (; kept < k; kept++) {
			int64_t r1 = rows + (ops[kept] != NW_CIGAR_D);
			int64_t c1 = cols + (ops[kept] != NW_CIGAR_I);
			if (r1 > t->row_limit || c1 > t->col_limit)
				break;
			rows = r1;
			cols = c1;
		}
	}
	if (kept == 0)
		return take_fail(g, "no op kept (no progress)");
	for (int64_t x = 0; x < kept; x++)
		if ((ret = nw_cigar_push(res, ops[x], 1)) < 0)
			return ret;
	g->i -= rows;
	g->j -= cols;
	g->state = ops[kept - 1] == NW_CIGAR_D ? NW_GACT_IN_D
		 : ops[kept - 1] == NW_CIGAR_I ? NW_GACT_IN_I : NW_GACT_AT_NODE;
	g->tiles++;
	return 0;
}

void nw_gact_end(nw_gact_t *g, nw_result_t *res)
{
	(void)g;
	nw_cigar_reverse(res);
}

/* ---------------------------------------------------------------- Myers-Miller split */

int64_t nw_mm_split(const int64_t *HF, const int64_t *FF, const int64_t *HR, const int64_t *FR,
		    int64_t n, int64_t gap_open, int *through_gap)
{
	int64_t best = INT64_MIN, split = 0;
	*through_gap = 0;
	for (int64_t j = 0; j <= n; j++) {
		int64_t node = HF[j] + HR[n - j], gap = FF[j] + FR[n - j] + gap_open;
		if (node > best)
			best = node, split = j, *through_gap = 0;
		if (gap > best)
			best = gap, split = j, *through_gap = 1;
	}
	return split;
}

/* ---------------------------------------------------------------- checks */

int nw_path_finish(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
		   const uint8_t *r, int64_t rlen, nw_result_t *res)
{
	int64_t m = res->qend - res->qstart, n = res->rend - res->rstart;
	int64_t score = 0, qspan = -1, rspan = -1;
	char err[160] = "";

	if (m <= 0 && n <= 0) { /* the empty local alignment has no path */
		res->n_cigar = 0;
		res->path_kind = NW_PATH_NONE;
		res->opt_score = res->score;
		res->matches = res->aln_len = res->edits = 0;
		return 0;
	}
	if (res->path_kind == NW_PATH_NONE || res->n_cigar <= 0)
		snprintf(err, sizeof err, "no path over a span of %lld x %lld", (long long)m,
			 (long long)n);
	else if (nw_cigar_rescore(res->cigar, res->n_cigar, p->sc, q, qlen, res->qstart, r, rlen,
				  res->rstart, &score, err, sizeof err) == 0) {
		nw_cigar_spans(res->cigar, res->n_cigar, &qspan, &rspan);
		if (qspan != m || rspan != n)
			snprintf(err, sizeof err, "the path covers %lld x %lld residues, the span "
				 "%lld x %lld", (long long)qspan, (long long)rspan, (long long)m,
				 (long long)n);
		else if (res->path_kind == NW_PATH_GACT ? score > res->score : score != res->score)
			snprintf(err, sizeof err, "it scores %lld, the optimum is %lld",
				 (long long)score, (long long)res->score);
	}
	if (err[0]) {
		nw_log_error("internal: %s path of query [%lld, %lld) and reference [%lld, %lld): "
			     "%s", nw_path_kind_name(res->path_kind), (long long)res->qstart,
			     (long long)res->qend, (long long)res->rstart, (long long)res->rend, err);
		return NW_ERR_INTERNAL;
	}
	res->opt_score = res->score;
	res->score = score;
	nw_cigar_stats(res);
	return 0;
}
