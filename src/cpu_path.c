/* cpu_path.c: the alignment path in linear memory (Myers and Miller, 1988).
 *
 * A global sub-problem a[0..m) x b[0..n) is split at its middle row i*: a forward pass
 * gives, for every column j, the best score of the upper half ending at (i*, j) (H) and
 * ending there inside a vertical gap (F); a reverse pass gives the same for the lower
 * half starting at (i*, j). The path crosses row i* either at a node (H + H) or inside a
 * vertical gap (F + F, whose gap open was charged twice: add it back once). In the second
 * case the two rows around the crossing are emitted as insertions and the halves are
 * solved with the open of a vertical gap touching that boundary waived (tb / te = 0),
 * because such a gap continues the crossing one. Horizontal gaps never cross a row split.
 * Small sub-problems are traced back from a full matrix of direction bits.
 */
#include <stdlib.h>

#include "cpu_align.h"

/* Sub-problems up to this many cells use a full direction matrix: 4 MiB per thread.
 * Tests lower it (nw_workspace_set_full_cells) to send small pairs through the split. */
#define FULL_CELLS_MAX ((int64_t)1 << 22)

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

/* Full-matrix Gotoh with direction bits, then traceback from (m, n); m, n >= 1. tb / te
 * are the opens charged for a vertical gap that starts / ends the sub-problem. */
static int path_full(path_ctx_t *c, const uint8_t *a, int64_t m, const uint8_t *b, int64_t n,
		     int64_t tb, int64_t te)
{
	nw_workspace_t *ws = c->ws;
	const int64_t O = c->sc->gap_open, X = c->sc->gap_extend, OX = O + X;
	const size_t stride = (size_t)n + 1;
	if (grow((void **)&ws->dir, &ws->dir_cap, (size_t)(m + 1) * stride) < 0 ||
	    grow((void **)&ws->ops, &ws->ops_cap, (size_t)(m + n)) < 0 || nw_ws_rows(ws, n) < 0)
		return NW_ERR_MEMORY;
	int64_t *H = ws->row[0], *F = ws->row[1];
	H[0] = 0;
	for (int64_t j = 1; j <= n; j++) {
		H[j] = -(O + j * X);
		F[j] = NW_NEG_INF;
	}
	for (int64_t i = 1; i <= m; i++) {
		const int32_t *srow = c->sc->score[a[i - 1]];
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
	int ret = emit(c, NW_CIGAR_I, i); /* column 0: the leading vertical gap */
	if (ret == 0)
		ret = emit(c, NW_CIGAR_D, j); /* row 0: the leading horizontal gap */
	while (ret == 0 && k > 0)
		ret = nw_cigar_push(c->res, ops[--k], 1);
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
	int64_t full_max = ws->full_cells_max > 0 ? ws->full_cells_max : FULL_CELLS_MAX;
	if (m == 1 || (m + 1) * (n + 1) <= full_max)
		return path_full(c, a, m, b, n, tb, te);

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

	const int64_t *HF = ws->row[0], *FF = ws->row[1], *HR = ws->row[2], *FR = ws->row[3];
	int64_t best = NW_NEG_INF, split = 0;
	int through_gap = 0;
	for (int64_t j = 0; j <= n; j++) {
		int64_t node = HF[j] + HR[n - j], gap = FF[j] + FR[n - j] + O;
		if (node > best)
			best = node, split = j, through_gap = 0;
		if (gap > best)
			best = gap, split = j, through_gap = 1;
	}
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
