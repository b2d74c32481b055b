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

enum { FROM_DIAG = 0, FROM_E = 1, FROM_F = 2, SRC_MASK = 3, E_EXTENDS = 4, F_EXTENDS = 8 };
enum { ST_H, ST_E, ST_F };

typedef struct {
	nw_workspace_t *ws;
	const nw_scoring_t *sc;
	nw_result_t *res;
} path_ctx_t;

static int emit(path_ctx_t *c, uint32_t op, int64_t len)
{
	return len > 0 ? nw_cigar_push(c->res, op, len) : 0;
}

static int grow(void **buf, size_t *cap, size_t need)
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

/* Full-matrix Gotoh with direction bits over a[0..m) x b[0..n), m, n >= 1. Row 0 is
 * H[0][j] = -(top_open + j*ext) (a leading horizontal gap), column 0 is
 * H[i][0] = -(tb + i*ext) (a leading vertical gap); te is the open charged for a vertical
 * gap that ends the sub-problem (0: it continues one beyond, so the traceback may start in
 * F). Ties: the diagonal, then E, then F; a gap extends only when that is strictly better
 * than opening. The path from (0, 0) to (m, n) goes to ws->ops one op a step, last op
 * first. Returns the number of ops or NW_ERR_MEMORY. */
static int64_t path_full(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *a,
			 int64_t m, const uint8_t *b, int64_t n, int64_t top_open, int64_t tb,
			 int64_t te)
{
	const int64_t O = sc->gap_open, X = sc->gap_extend, OX = O + X;
	const size_t stride = (size_t)n + 1;
	if (grow((void **)&ws->dir, &ws->dir_cap, (size_t)(m + 1) * stride) < 0 ||
	    grow((void **)&ws->ops, &ws->ops_cap, (size_t)(m + n)) < 0 || nw_ws_rows(ws, n) < 0)
		return NW_ERR_MEMORY;
	int64_t *H = ws->row[0], *F = ws->row[1];
	H[0] = 0;
	for (int64_t j = 1; j <= n; j++) {
		H[j] = -(top_open + j * X);
		F[j] = NW_NEG_INF;
	}
	for (int64_t i = 1; i <= m; i++) {
		const int32_t *srow = sc->score[a[i - 1]];
		uint8_t *d = ws->dir + (size_t)i * stride;
		int64_t diag = H[0], left = -(tb + i * X), e = NW_NEG_INF;
		H[0] = F[0] = left;
		for (int64_t j = 1; j <= n; j++) {
			int64_t up = H[j];
			int64_t fo = up - OX, fe = F[j] - X, eo = left - OX, ee = e - X;
			int64_t f = fe > fo ? fe : fo, h = diag + srow[b[j - 1]];
			uint8_t bits = (fe > fo ? F_EXTENDS : 0) | (ee > eo ? E_EXTENDS : 0);
			e = ee > eo ? ee : eo;
			if (e > h)
				h = e, bits |= FROM_E;
			if (f > h)
				h = f, bits = (bits & ~SRC_MASK) | FROM_F;
			d[j] = bits;
			diag = up;
			H[j] = h;
			F[j] = f;
			left = h;
		}
	}
	/* A final vertical gap may be free (te = 0): it continues the crossing gap below. */
	int st = F[n] + (O - te) > H[n] ? ST_F : ST_H;
	int64_t i = m, j = n, k = 0;
	uint8_t *ops = ws->ops;
	while (i > 0 && j > 0) {
		uint8_t d = ws->dir[(size_t)i * stride + j];
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
		int64_t tb, int64_t te)
{
	int64_t k = path_full(c->ws, c->sc, a, m, b, n, c->sc->gap_open, tb, te);
	int ret = k < 0 ? (int)k : 0;
	while (ret == 0 && k > 0)
		ret = nw_cigar_push(c->res, c->ws->ops[--k], 1);
	return ret;
}

static int mm(path_ctx_t *c, const uint8_t *a, int64_t m, const uint8_t *b, int64_t n,
	      int64_t tb, int64_t te)
{
	nw_workspace_t *ws = c->ws;
	const nw_scoring_t *sc = c->sc;
	const int64_t O = sc->gap_open;
	if (n == 0)
		return emit(c, NW_CIGAR_I, m);
	if (m == 0)
		return emit(c, NW_CIGAR_D, n);
	int64_t full_max = ws->full_cells_max > 0 ? ws->full_cells_max : NW_PATH_FULL_CELLS;
	if (m == 1 || (m + 1) * (n + 1) <= full_max)
		return leaf(c, a, m, b, n, tb, te);

	int64_t mid = m / 2;
	const uint8_t *ra = nw_ws_reverse(ws, 0, a + mid, m - mid);
	const uint8_t *rb = nw_ws_reverse(ws, 1, b, n);
	if (!ra || !rb || nw_ws_rows(ws, n) < 0)
		return NW_ERR_MEMORY;
	dp_hit_t hit;
	dp_pass_t d = {.a = a, .b = b, .na = mid, .nb = n, .s = sc->score, .gap_open = O,
		       .gap_extend = sc->gap_extend, .col0_open = tb, .track = DP_TRACK_NONE};
	nw_dp_pass(&d, ws->row[0], ws->row[1], &hit);
	d.a = ra;
	d.b = rb;
	d.na = m - mid;
	d.col0_open = te;
	nw_dp_pass(&d, ws->row[2], ws->row[3], &hit);

	int through_gap;
	int64_t split = nw_mm_split(ws->row[0], ws->row[1], ws->row[2], ws->row[3], n, O,
				    &through_gap);
	int ret;
	if (!through_gap) {
		if ((ret = mm(c, a, mid, b, split, tb, O)) < 0)
			return ret;
		return mm(c, a + mid, m - mid, b + split, n - split, O, te);
	}
	if ((ret = mm(c, a, mid - 1, b, split, tb, 0)) < 0 ||
	    (ret = emit(c, NW_CIGAR_I, 2)) < 0)
		return ret;
	return mm(c, a + mid + 1, m - mid - 1, b + split, n - split, 0, te);
}

int nw_cpu_path(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
		const uint8_t *r, int64_t n, nw_result_t *res)
{
	path_ctx_t c = {ws, sc, res};
	res->n_cigar = 0;
	return mm(&c, q, m, r, n, sc->gap_open, sc->gap_open);
}

/* ---------------------------------------------------------------- GACT tiles */

int nw_cpu_gact_tile(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *q,
		     const uint8_t *r, const nw_gact_tile_t *t, const uint8_t **ops, int64_t *k)
{
	int64_t n_ops;
	if (t->tm == 0 || t->tn == 0) { /* one sequence is used up: a plain gap */
		if (grow((void **)&ws->ops, &ws->ops_cap, (size_t)(t->tm + t->tn)) < 0)
			return NW_ERR_MEMORY;
		n_ops = t->tm + t->tn;
		memset(ws->ops, t->tm ? NW_CIGAR_I : NW_CIGAR_D, (size_t)n_ops);
	} else {
		const uint8_t *a = nw_ws_reverse(ws, 0, q + t->i - t->tm, t->tm);
		const uint8_t *b = nw_ws_reverse(ws, 1, r + t->j - t->tn, t->tn);
		if (!a || !b)
			return NW_ERR_MEMORY;
		n_ops = path_full(ws, sc, a, t->tm, b, t->tn, t->top_open, t->left_open,
				  sc->gap_open);
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
