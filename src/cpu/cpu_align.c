/* cpu_align.c: the exact CPU engine, score and coordinates in linear memory.
 *
 * Every mode is one or two row-by-row Gotoh passes (nw_dp_pass):
 *  - a forward pass finds the score and the end cell by the documented tie rule;
 *  - for local and semiglobal, a reverse pass anchored at the end cell finds the start:
 *    the sequences are reversed and the pass stops at the first row whose cells reach the
 *    score. That pass runs with the reference along the rows, so it stops as soon as the
 *    reference span of the shortest optimal alignment has been covered: a read aligned
 *    inside a long reference costs little more than the forward pass.
 * The path, when asked for, comes from cpu_path.c over the aligned region, of the kind
 * src/path.h chooses for its size.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"

static inline int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* First column of H[0..n] equal to v, or -1. */
static int64_t first_col(const int64_t *H, int64_t n, int64_t v)
{
	for (int64_t j = 0; j <= n; j++)
		if (H[j] == v)
			return j;
	return -1;
}

void nw_dp_pass(const dp_pass_t *p, int64_t *H, int64_t *F, dp_hit_t *hit)
{
	const int64_t O = p->gap_open, X = p->gap_extend, OX = O + X;
	const int64_t na = p->na, nb = p->nb;
	const int local = p->local;

	H[0] = 0;
	F[0] = NW_NEG_INF;
	for (int64_t j = 1; j <= nb; j++) {
		H[j] = (p->row0_free || local) ? 0 : -(O + j * X);
		F[j] = NW_NEG_INF;
	}
	hit->score = NW_NEG_INF;
	hit->row = hit->col = -1;
	if (p->track == DP_TRACK_TARGET_LASTCOL && H[nb] == p->target) {
		hit->score = p->target;
		hit->row = 0;
		hit->col = nb;
		return;
	}
	if (p->track == DP_TRACK_MAX) { /* the empty alignment at (0,0) */
		hit->score = 0;
		hit->row = hit->col = 0;
	}

	for (int64_t i = 1; i <= na; i++) {
		const int32_t *srow = p->s[p->a[i - 1]];
		const uint8_t *b = p->b;
		int64_t diag = H[0];
		int64_t left = local ? 0 : -(p->col0_open + i * X); /* H[i][0] */
		int64_t e = NW_NEG_INF, rowmax = left;
		H[0] = left;
		F[0] = local ? NW_NEG_INF : left;
		for (int64_t j = 1; j <= nb; j++) {
			int64_t up = H[j];
			int64_t f = max64(F[j] - X, up - OX);
			int64_t h = diag + srow[b[j - 1]];
			e = max64(e - X, left - OX);
			h = max64(h, e);
			h = max64(h, f);
			if (local)
				h = max64(h, 0);
			diag = up;
			H[j] = h;
			F[j] = f;
			left = h;
			rowmax = max64(rowmax, h);
		}
		switch (p->track) {
		case DP_TRACK_MAX:
			/* Rows come in order, so within one column the first row wins; a
			 * later row wins only with a higher score or a smaller column. */
			if (rowmax >= hit->score) {
				int64_t j = first_col(H, nb, rowmax);
				if (rowmax > hit->score || j < hit->col) {
					hit->score = rowmax;
					hit->row = i;
					hit->col = j;
				}
			}
			break;
		case DP_TRACK_TARGET:
			if (rowmax >= p->target) {
				hit->score = p->target;
				hit->row = i;
				hit->col = first_col(H, nb, p->target);
				return;
			}
			break;
		case DP_TRACK_TARGET_LASTCOL:
			if (H[nb] == p->target) {
				hit->score = p->target;
				hit->row = i;
				hit->col = nb;
				return;
			}
			break;
		default:
			break;
		}
	}
	if (p->track == DP_TRACK_LASTROW) {
		int64_t best = H[0], j = 0;
		for (int64_t k = 1; k <= nb; k++)
			if (H[k] > best)
				best = H[k], j = k;
		hit->score = best;
		hit->row = na;
		hit->col = j;
	}
}

/* ---------------------------------------------------------------- workspace */

nw_workspace_t *nw_workspace_new(void)
{
	nw_workspace_t *ws = calloc(1, sizeof(nw_workspace_t));
	if (ws) {
		ws->isa = -1;
		ws->wfa_mode = 1;
		nw_workspace_set_team(ws, 1, 0, 0);
	}
	return ws;
}

void nw_workspace_free(nw_workspace_t *ws)
{
	if (!ws)
		return;
	for (int k = 0; k < 4; k++)
		free(ws->row[k]);
	free(ws->rev[0]);
	free(ws->rev[1]);
	free(ws->sums[0]);
	free(ws->sums[1]);
	free(ws->dir);
	free(ws->ops);
	free(ws->simd);
	free(ws->sweep);
	free(ws->inter);
	free(ws->inter_seq);
	free(ws->inter_streams);
	free(ws->inter_dir);
	free(ws->wfa);
	free(ws);
}

void nw_workspace_narrow_counts(const nw_workspace_t *ws, int64_t *lanes, int64_t *saturated)
{
	*lanes = ws->narrow_lanes;
	*saturated = ws->narrow_saturated;
}

void nw_workspace_set_team(nw_workspace_t *ws, int threads, int64_t min_cells, int64_t min_rows)
{
	ws->team = threads > 1 ? threads : 1;
	ws->team_min_cells = min_cells > 0 ? min_cells : NW_TEAM_MIN_CELLS;
	ws->team_min_rows = min_rows > 0 ? min_rows : NW_TEAM_MIN_ROWS;
}

void nw_workspace_team_counts(const nw_workspace_t *ws, int64_t *passes, int64_t *paths,
			      int *most_threads)
{
	*passes = ws->team_passes;
	*paths = ws->team_paths;
	*most_threads = ws->team_most;
}

void nw_workspace_set_pruned_min(nw_workspace_t *ws, int64_t cells)
{
	ws->pruned_min_cells = cells > 0 ? cells : 0;
}

void nw_workspace_pruned_counts(const nw_workspace_t *ws, int64_t *scores, int64_t *starts)
{
	*scores = ws->pruned_scores;
	*starts = ws->pruned_starts;
}

void nw_workspace_set_wfa(nw_workspace_t *ws, int mode)
{
	ws->wfa_mode = mode;
}

int64_t nw_workspace_wfa_scores(const nw_workspace_t *ws)
{
	return ws->wfa_scores;
}

void nw_workspace_set_simd(nw_workspace_t *ws, int on)
{
	ws->simd_off = !on;
}

void nw_workspace_set_isa(nw_workspace_t *ws, int isa)
{
	ws->isa = isa;
}

int nw_ws_grow_aligned(void **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	free(*buf);
	*cap = 0;
	size_t n = (need + need / 4 + 63) & ~(size_t)63;
	if (posix_memalign(buf, 64, n) != 0) {
		*buf = NULL;
		return NW_ERR_MEMORY;
	}
	*cap = n;
	return 0;
}

int nw_ws_grow(void **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return 0;
	size_t n = need + need / 4 + 256;
	void *p = realloc(*buf, n);
	if (!p)
		return NW_ERR_MEMORY;
	*buf = p;
	*cap = n;
	return 0;
}

/* Make every row hold n + 1 entries. */
int nw_ws_rows(nw_workspace_t *ws, int64_t n)
{
	size_t need = (size_t)n + 1;
	if (need <= ws->row_cap)
		return 0;
	size_t cap = need + need / 4 + 64;
	for (int k = 0; k < 4; k++) {
		int64_t *p = realloc(ws->row[k], cap * sizeof(int64_t));
		if (!p)
			return NW_ERR_MEMORY;
		ws->row[k] = p;
	}
	ws->row_cap = cap;
	return 0;
}

/* x[0..n) reversed into reverse buffer k (NULL on allocation failure). */
const uint8_t *nw_ws_reverse(nw_workspace_t *ws, int k, const uint8_t *x, int64_t n)
{
	if ((size_t)n + 1 > ws->rev_cap[k]) {
		size_t cap = (size_t)n + (size_t)n / 4 + 64;
		uint8_t *p = realloc(ws->rev[k], cap);
		if (!p)
			return NULL;
		ws->rev[k] = p;
		ws->rev_cap[k] = cap;
	}
	for (int64_t i = 0; i < n; i++)
		ws->rev[k][i] = x[n - 1 - i];
	return ws->rev[k];
}

/* ---------------------------------------------------------------- the engine */

static void transpose(const nw_scoring_t *sc, int32_t t[NW_MAX_CODES][NW_MAX_CODES])
{
	for (int i = 0; i < NW_MAX_CODES; i++)
		for (int j = 0; j < NW_MAX_CODES; j++)
			t[j][i] = sc->score[i][j];
}

/* Whether an m x n pass may take the pruned sweeps (cpu_prune.c): long enough
 * (NW_PRUNED_MIN_CELLS, or the workspace's size), on a thread of its own (a team's
 * striped pass takes a pair that has threads to itself). */
static int pruned_size(const nw_workspace_t *ws, int64_t m, int64_t n)
{
	const int64_t min_cells = ws->pruned_min_cells ? ws->pruned_min_cells : NW_PRUNED_MIN_CELLS;
	return ws->team <= 1 && (double)m * (double)n >= (double)min_cells;
}

/* Forward pass: score and end cell. The striped pass runs when the values fit 16 bits,
 * the scalar pass otherwise. */
static int forward(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
		   const uint8_t *r, int64_t rlen, nw_workspace_t *ws, nw_result_t *res)
{
	const nw_scoring_t *sc = p->sc;
	const int local = p->mode == NW_MODE_LOCAL;
	dp_track_t track = local ? DP_TRACK_MAX
		: p->mode == NW_MODE_SEMIGLOBAL ? DP_TRACK_LASTROW : DP_TRACK_NONE;
	dp_hit_t hit;
	/* a long global or semiglobal pair: pruned sweeps first, whose work follows the
	 * divergence */
	if (!local && pruned_size(ws, qlen, rlen)) {
		int64_t s, end;
		int ret = nw_pruned_score(ws, sc, p->mode == NW_MODE_SEMIGLOBAL, q, qlen, r, rlen,
					  p->need ? p->need[0] : NW_NEG_INF, &s, &end);
		if (ret < 0)
			return ret;
		if (ret) {
			res->score = s;
			res->qend = qlen;
			res->rend = end;
			return 0;
		}
	}
	st_pass_t st = {.q = q, .r = r, .m = qlen, .n = rlen, .sc = sc, .local = local,
			.ref_free = p->mode == NW_MODE_SEMIGLOBAL, .track = track};
	int ran = nw_striped_pass(ws, &st, &hit);
	if (ran < 0)
		return ran;
	if (ran) {
		res->score = hit.score;
		res->rend = hit.row;
		res->qend = p->mode == NW_MODE_SEMIGLOBAL ? qlen : hit.col;
		return 0;
	}
	dp_pass_t d = {.a = q, .b = r, .na = qlen, .nb = rlen, .s = sc->score,
		       .gap_open = sc->gap_open, .gap_extend = sc->gap_extend,
		       .col0_open = sc->gap_open, .local = local,
		       .row0_free = p->mode != NW_MODE_GLOBAL, .track = track};
	if (nw_ws_rows(ws, rlen) < 0)
		return NW_ERR_MEMORY;
	nw_dp_pass(&d, ws->row[0], ws->row[1], &hit);
	if (p->mode == NW_MODE_GLOBAL) {
		res->score = ws->row[0][rlen];
		res->qend = qlen;
		res->rend = rlen;
	} else {
		res->score = hit.score;
		res->qend = hit.row;
		res->rend = hit.col;
	}
	return 0;
}

/* A start's sweep sw (its rows the reversed reference, its columns the reversed query)
 * made ready: the transposed table sw->s points at, and the bounds of the rows and
 * columns left. */
static int start_sweep(nw_workspace_t *ws, const nw_scoring_t *sc, nw_sweep_t *sw)
{
	transpose(sc, ws->score_t);
	sw->sq = nw_best_sums(ws, 0, sc, sw->a, sw->na, 0);
	sw->sr = nw_best_sums(ws, 1, sc, sw->b, sw->nb, 1);
	return sw->sq && sw->sr ? 0 : NW_ERR_MEMORY;
}

/* Reverse pass anchored at (qend, rend): reference along the outer loop so that it can
 * stop at the first reference span that reaches the score. */
int nw_cpu_find_start(const nw_align_params_t *p, const uint8_t *q, const uint8_t *r,
		      nw_workspace_t *ws, nw_result_t *res)
{
	const nw_scoring_t *sc = p->sc;
	const uint8_t *rr = nw_ws_reverse(ws, 0, r, res->rend);
	const uint8_t *rq = nw_ws_reverse(ws, 1, q, res->qend);
	dp_track_t track = p->mode == NW_MODE_LOCAL ? DP_TRACK_TARGET : DP_TRACK_TARGET_LASTCOL;
	dp_hit_t hit;
	if (!rr || !rq || nw_ws_rows(ws, res->qend) < 0)
		return NW_ERR_MEMORY;
	/* the pass pruned by the score it looks for (cpu_prune.c), reference along the rows;
	 * its table and bounds are made only for a sweep (start_sweep) */
	nw_sweep_t sw = {.a = rr, .b = rq, .na = res->rend, .nb = res->qend, .rows = res->rend,
			 .s = (const int32_t (*)[NW_MAX_CODES])ws->score_t,
			 .O = sc->gap_open, .X = sc->gap_extend, .top_open = sc->gap_open,
			 .col0_open = sc->gap_open, .target = res->score,
			 .stop = track == DP_TRACK_TARGET ? NW_SWEEP_TARGET : NW_SWEEP_TARGET_LASTCOL};
	/* A long pair whose score is at least half the most its prefixes can score (similar
	 * sequences) takes the vector sweep, whose live cells follow the divergence; others
	 * the striped pass, then (values past 16 bits) the scalar sweep. */
	int swept = 0;
	if (pruned_size(ws, res->rend, res->qend) && !ws->simd_off && res->score > 0) {
		if (start_sweep(ws, sc, &sw) < 0)
			return NW_ERR_MEMORY;
		swept = 2 * res->score >= (sw.sq[0] < sw.sr[0] ? sw.sq[0] : sw.sr[0]);
	}
	if (swept && nw_sweep_fast(ws, &sw, ws->row[2], ws->row[3], &hit) < 0)
		return NW_ERR_INTERNAL; /* never reached: the score is not this pair's */
	ws->pruned_starts += swept;
	st_pass_t st = {.q = rq, .r = rr, .m = res->qend, .n = res->rend, .sc = sc,
			.track = track, .target = res->score};
	int ran = swept ? 1 : nw_striped_pass(ws, &st, &hit);
	if (ran < 0)
		return ran;
	if (!ran && !sw.sq && start_sweep(ws, sc, &sw) < 0)
		return NW_ERR_MEMORY;
	if (!ran && nw_sweep(&sw, ws->row[2], ws->row[3], &hit) < 0)
		return NW_ERR_INTERNAL; /* never reached: the score is not this pair's */
	if (hit.row < 0)
		return NW_ERR_INTERNAL; /* the optimal alignment itself reaches the score */
	res->rstart = res->rend - hit.row;
	res->qstart = res->qend - hit.col;
	return 0;
}

int nw_cpu_align(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
		 const uint8_t *r, int64_t rlen, nw_workspace_t *ws, nw_result_t *res)
{
	int ret;
	res->qstart = res->rstart = 0;
	res->n_cigar = 0;
	res->matches = res->aln_len = res->edits = 0;
	res->path_kind = NW_PATH_NONE;
	if (!p->starts_only && (ret = forward(p, q, qlen, r, rlen, ws, res)) < 0)
		return ret;
	if (p->mode == NW_MODE_LOCAL && res->score <= 0) {
		res->score = res->opt_score = 0; /* no positive alignment: empty span */
		res->qend = res->rend = 0;
		return 0;
	}
	res->opt_score = res->score; /* a GACT path may score less: see nw_path_finish */
	if (p->ends_only || (p->need && res->score < p->need[0]))
		return 0; /* (below its need, a result is not wanted) */
	if (p->mode != NW_MODE_GLOBAL && (ret = nw_cpu_find_start(p, q, r, ws, res)) < 0)
		return ret;
	if (!p->want_path)
		return 0;
	return nw_cpu_align_path(p, q, qlen, r, rlen, ws, res);
}

int nw_cpu_align_path(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
		      const uint8_t *r, int64_t rlen, nw_workspace_t *ws, nw_result_t *res)
{
	int64_t m = res->qend - res->qstart, n = res->rend - res->rstart;
	const uint8_t *qs = q + res->qstart, *rs = r + res->rstart;
	int ret;
	res->n_cigar = 0;
	res->path_kind = NW_PATH_NONE;
	if (m > 0 || n > 0) { /* the empty local alignment has no path */
		int kind = nw_path_kind(p, m, n);
		ret = kind == NW_PATH_GACT ? nw_cpu_gact(ws, p, qs, m, rs, n, res)
					   : nw_cpu_path(ws, p->sc, qs, m, rs, n, res->score, res);
		if (ret < 0)
			return ret;
		res->path_kind = kind;
	}
	/* Every path is checked against the optimum: a wrong CIGAR is worse than none. The
	 * check rescores a GACT path (res->score becomes its score, res->opt_score the
	 * optimum); one too far below the optimum (--max-deficit) is recomputed exactly. */
	if ((ret = nw_path_finish(p, q, qlen, r, rlen, res)) < 0 || res->path_kind != NW_PATH_GACT ||
	    !nw_gact_too_short(p, res->score, res->opt_score))
		return ret;
	res->score = res->opt_score;
	if ((ret = nw_cpu_path(ws, p->sc, qs, m, rs, n, res->score, res)) < 0)
		return ret;
	res->path_kind = NW_PATH_REDONE;
	return nw_path_finish(p, q, qlen, r, rlen, res);
}
