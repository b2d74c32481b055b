/* cpu_path.c: alignment paths: exact in linear memory (Myers and Miller, 1988), and GACT
 * tiles for long spans.
 *
 * A global sub-problem a[0..m) x b[0..n) is split at its middle row i*: a forward pass
 * gives, for every column j, the best score of the upper half ending at (i*, j) (H) and
 * ending there inside a vertical gap (F); a reverse pass gives the same for the lower
 * half starting at (i*, j). The path crosses row i* either at a node (H + H) or inside a
 * vertical gap (F + F, whose gap open was charged twice: add it back once). In the second
 * case the two rows around the crossing are emitted as insertions and the halves are
 * solved with the open of a vertical gap touching that boundary waived (tb / te = 0),
 * because such a gap continues the crossing one. Horizontal gaps never cross a row split.
 * Small sub-problems are traced back from a full matrix of direction bits (path_full); a
 * span of at most NW_PATH_FULL_CELLS cells is one such leaf, so its path is path_full's.
 *
 * The same full-matrix traceback solves GACT tiles (src/path.h): nw_cpu_gact_tile runs it
 * on the reversed slices of one tile, and nw_cpu_gact walks a span tile by tile.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "path.h"

void nw_workspace_set_full_cells(nw_workspace_t *ws, int64_t cells)
{
	ws->full_cells_max = cells;
}

typedef struct {
	nw_workspace_t *ws;
	const nw_scoring_t *sc;
	nw_result_t *res;
} path_ctx_t;

static int emit(path_ctx_t *c, uint32_t op, int64_t len)
{
	return len > 0 ? nw_cigar_push(c->res, op, len) : 0;
}

enum { FROM_DIAG = 0, FROM_E = 1, FROM_F = 2, SRC_MASK = 3, E_EXTENDS = 4, F_EXTENDS = 8 };
enum { ST_H, ST_E, ST_F };

/* Cell (i, j)'s direction bits in path_full's matrix (row stride n + 1, in ws->dir_n). */
static int full_dir(const void *ctx, int64_t i, int64_t j)
{
	const nw_workspace_t *ws = ctx;
	return ws->dir[(size_t)i * (size_t)(ws->dir_n + 1) + (size_t)j];
}

/* Full-matrix Gotoh with direction bits over a[0..m) x b[0..n), m, n >= 1, pruned by the
 * sub-problem's optimum S (NW_NEG_INF: no pruning). Row 0 is H[0][j] = -(top_open + j*ext)
 * (a leading horizontal gap), column 0 is H[i][0] = -(tb + i*ext) (a leading vertical
 * gap); te is the open charged for a vertical gap that ends the sub-problem (0: it
 * continues one beyond, so the traceback may start in F). Ties: the diagonal, then E, then
 * F; a gap extends only when that is strictly better than opening. The path from (0, 0)
 * to (m, n) goes to ws->ops one op a step, last op first. Returns the number of ops,
 * NW_ERR_MEMORY, or NW_ERR_INTERNAL (S above the optimum). */
static int64_t path_full(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *a,
			 int64_t m, const uint8_t *b, int64_t n, int64_t top_open, int64_t tb,
			 int64_t te, int64_t S)
{
	const int64_t O = sc->gap_open;
	const size_t stride = (size_t)n + 1;
	if (nw_ws_grow((void **)&ws->dir, &ws->dir_cap, (size_t)(m + 1) * stride + 64) < 0 ||
	    nw_ws_grow((void **)&ws->ops, &ws->ops_cap, (size_t)(m + n)) < 0 || nw_ws_rows(ws, n) < 0)
		return NW_ERR_MEMORY;
	int64_t *H = ws->row[0], *F = ws->row[1];
	nw_sweep_t sw = {.a = a, .b = b, .na = m, .nb = n, .rows = m, .s = sc->score, .O = O,
			 .X = sc->gap_extend, .top_open = top_open, .col0_open = tb, .target = S,
			 .bonus = O - te, .stop = NW_SWEEP_CORNER, .dir = ws->dir};
	dp_hit_t hit;
	if (S > NW_NEG_INF && (!(sw.sq = nw_best_sums(ws, 0, sc, a, m, 1)) ||
			       !(sw.sr = nw_best_sums(ws, 1, sc, b, n, 0))))
		return NW_ERR_MEMORY;
	ws->dir_n = n;
	int64_t swept = nw_sweep_fast(ws, &sw, H, F, &hit);
	if (swept < 0)
		return swept;
	ws->path_cells += swept;
	/* A final vertical gap may be free (te = 0): it continues the crossing gap below. */
	int st = F[n] + (O - te) > H[n] ? ST_F : ST_H;
	if (S > NW_NEG_INF && (st == ST_F ? F[n] + (O - te) : H[n]) != S)
		return NW_ERR_INTERNAL; /* S is not this sub-problem's optimum */
	return nw_trace_back(a, m, b, n, st == ST_F, full_dir, ws, ws->ops);
}

int64_t nw_trace_back(const uint8_t *a, int64_t m, const uint8_t *b, int64_t n, int in_f,
		      int (*dir)(const void *ctx, int64_t i, int64_t j), const void *ctx,
		      uint8_t *ops)
{
	int64_t i = m, j = n, k = 0;
	int st = in_f ? ST_F : ST_H;
	while (i > 0 && j > 0) {
		int d = dir(ctx, i, j);
		if (st == ST_H) {
			int src = d & SRC_MASK;
			if (src == FROM_DIAG) {
				ops[k++] = a[i - 1] == b[j - 1] ? NW_CIGAR_EQ : NW_CIGAR_X;
				i--, j--;
			} else {
				st = src == FROM_E ? ST_E : ST_F;
			}
		} else if (st == ST_E) {
			ops[k++] = NW_CIGAR_D;
			st = d & E_EXTENDS ? ST_E : ST_H;
			j--;
		} else {
			ops[k++] = NW_CIGAR_I;
			st = d & F_EXTENDS ? ST_F : ST_H;
			i--;
		}
	}
	for (; i > 0; i--) /* column 0: the leading vertical gap */
		ops[k++] = NW_CIGAR_I;
	for (; j > 0; j--) /* row 0: the leading horizontal gap */
		ops[k++] = NW_CIGAR_D;
	return k;
}

/* A Myers-Miller leaf: path_full's ops appended to the path in forward order. Horizontal
 * gaps never cross a row split, so the top row always pays its open. */
static int leaf(path_ctx_t *c, const uint8_t *a, int64_t m, const uint8_t *b, int64_t n,
		int64_t tb, int64_t te, int64_t S)
{
	int64_t k = path_full(c->ws, c->sc, a, m, b, n, c->sc->gap_open, tb, te, S);
	int ret = k < 0 ? (int)k : 0;
	while (ret == 0 && k > 0)
		ret = nw_cigar_push(c->res, c->ws->ops[--k], 1);
	return ret;
}

/* The sub-problem a[0..m) x b[0..n) with leading and ending vertical-gap opens tb, te and
 * optimal score S (NW_NEG_INF: unknown, no pruning). The halves' optima follow from the
 * split: at a node, HF and HR there; through a vertical gap, each half ends in that gap
 * with its open waived, so it scores its F value plus the step and the open. */
static int mm(path_ctx_t *c, const uint8_t *a, int64_t m, const uint8_t *b, int64_t n,
	      int64_t tb, int64_t te, int64_t S)
{
	nw_workspace_t *ws = c->ws;
	const nw_scoring_t *sc = c->sc;
	const int64_t O = sc->gap_open, X = sc->gap_extend;
	if (n == 0)
		return emit(c, NW_CIGAR_I, m);
	if (m == 0)
		return emit(c, NW_CIGAR_D, n);
	int64_t full_max = ws->full_cells_max > 0 ? ws->full_cells_max : NW_PATH_FULL_CELLS;
	if (m == 1 || (m + 1) * (n + 1) <= full_max)
		return leaf(c, a, m, b, n, tb, te, S);

	/* the forward half: rows [0, mid); the reverse half: the reversed rows [mid, m), the
	 * first m - mid rows of the reversed sub-problem (whose other rows the bound needs) */
	int64_t mid = m / 2;
	const int known = S > NW_NEG_INF;
	nw_sweep_t fw = {.a = a, .b = b, .na = mid, .nb = n, .rows = m, .s = sc->score, .O = O,
			 .X = X, .top_open = O, .col0_open = tb, .target = S, .bonus = O - te,
			 .stop = NW_SWEEP_CORNER};
	dp_hit_t hit;
	if (nw_ws_rows(ws, n) < 0 ||
	    (known && (!(fw.sq = nw_best_sums(ws, 0, sc, a, m, 1)) ||
		       !(fw.sr = nw_best_sums(ws, 1, sc, b, n, 0)))))
		return NW_ERR_MEMORY;
	int64_t r1 = nw_sweep_fast(ws, &fw, ws->row[0], ws->row[1], &hit);
	nw_sweep_t rv = fw;
	rv.a = nw_ws_reverse(ws, 0, a, m);
	rv.b = nw_ws_reverse(ws, 1, b, n);
	rv.na = m - mid, rv.col0_open = te, rv.bonus = O - tb;
	if (!rv.a || !rv.b ||
	    (known && (!(rv.sq = nw_best_sums(ws, 0, sc, rv.a, m, 1)) ||
		       !(rv.sr = nw_best_sums(ws, 1, sc, rv.b, n, 0)))))
		return NW_ERR_MEMORY;
	int64_t r2 = nw_sweep_fast(ws, &rv, ws->row[2], ws->row[3], &hit);
	if (r1 < 0 || r2 < 0)
		return NW_ERR_INTERNAL;
	ws->path_cells += r1 + r2;

	int through_gap;
	const int64_t *HF = ws->row[0], *FF = ws->row[1], *HR = ws->row[2], *FR = ws->row[3];
	int64_t split = nw_mm_split(HF, FF, HR, FR, n, O, &through_gap);
	if (known && (through_gap ? FF[split] + FR[n - split] + O : HF[split] + HR[n - split]) != S)
		return NW_ERR_INTERNAL; /* S is not this sub-problem's optimum */
	int ret;
	if (!through_gap) {
		int64_t Su = known ? HF[split] : NW_NEG_INF, Sl = known ? HR[n - split] : NW_NEG_INF;
		if ((ret = mm(c, a, mid, b, split, tb, O, Su)) < 0)
			return ret;
		return mm(c, a + mid, m - mid, b + split, n - split, O, te, Sl);
	}
	int64_t Su = known ? FF[split] + X + O : NW_NEG_INF;
	int64_t Sl = known ? FR[n - split] + X + O : NW_NEG_INF;
	if ((ret = mm(c, a, mid - 1, b, split, tb, 0, Su)) < 0 ||
	    (ret = emit(c, NW_CIGAR_I, 2)) < 0)
		return ret;
	return mm(c, a + mid + 1, m - mid - 1, b + split, n - split, 0, te, Sl);
}

int nw_cpu_path(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
		const uint8_t *r, int64_t n, int64_t S, nw_result_t *res)
{
	path_ctx_t c = {ws, sc, res};
	res->n_cigar = 0;
	return mm(&c, q, m, r, n, sc->gap_open, sc->gap_open, S);
}

/* ---------------------------------------------------------------- GACT tiles */

int nw_cpu_gact_tile(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *q,
		     const uint8_t *r, const nw_gact_tile_t *t, const uint8_t **ops, int64_t *k)
{
	int64_t n_ops;
	if (t->tm == 0 || t->tn == 0) { /* one sequence is used up: a plain gap */
		if (nw_ws_grow((void **)&ws->ops, &ws->ops_cap, (size_t)(t->tm + t->tn)) < 0)
			return NW_ERR_MEMORY;
		n_ops = t->tm + t->tn;
		memset(ws->ops, t->tm ? NW_CIGAR_I : NW_CIGAR_D, (size_t)n_ops);
	} else {
		const uint8_t *a = nw_ws_reverse(ws, 0, q + t->i - t->tm, t->tm);
		const uint8_t *b = nw_ws_reverse(ws, 1, r + t->j - t->tn, t->tn);
		if (!a || !b)
			return NW_ERR_MEMORY;
		n_ops = path_full(ws, sc, a, t->tm, b, t->tn, t->top_open, t->left_open,
				  sc->gap_open, NW_NEG_INF);
		if (n_ops < 0)
			return (int)n_ops;
		for (int64_t x = 0, y = n_ops - 1; x < y; x++, y--) { /* first op first */
			uint8_t tmp = ws->ops[x];
			ws->ops[x] = ws->ops[y];
			ws->ops[y] = tmp;
		}
	}
	*ops = ws->ops;
	*k = n_ops;
	return 0;
}

int nw_cpu_gact(nw_workspace_t *ws, const nw_align_params_t *p, const uint8_t *q, int64_t m,
		const uint8_t *r, int64_t n, nw_result_t *res)
{
	nw_gact_t g;
	nw_gact_tile_t t;
	int T, O, ret;
	nw_gact_params(p, &T, &O);
	res->n_cigar = 0;
	nw_gact_begin(&g, m, n);
	while (nw_gact_next(&g, T, O, p, &t)) {
		const uint8_t *ops;
		int64_t k;
		if ((ret = nw_cpu_gact_tile(ws, p->sc, q, r, &t, &ops, &k)) < 0 ||
		    (ret = nw_gact_take(&g, &t, ops, k, res)) < 0)
			return ret;
	}
	nw_gact_end(&g, res);
	return 0;
}
