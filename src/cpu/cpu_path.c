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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "path.h"
#include "team.h"

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

/* A sub-problem: a[0..m) x b[0..n) with leading and ending vertical-gap opens tb, te and
 * optimal score S (NW_NEG_INF: unknown, no pruning). */
typedef struct {
	const uint8_t *a, *b;
	int64_t m, n, tb, te, S;
} sub_t;

static int is_leaf(const nw_workspace_t *ws, const sub_t *s)
{
	int64_t full_max = ws->full_cells_max > 0 ? ws->full_cells_max : NW_PATH_FULL_CELLS;
	return s->n == 0 || s->m <= 1 || (s->m + 1) * (s->n + 1) <= full_max;
}

/* One of the two passes of s's split at its middle row, into H and F (n + 1 entries):
 * the forward half, rows [0, mid); or the reverse half, the reversed rows [mid, m), the
 * first m - mid rows of the reversed sub-problem (whose other rows the bound needs).
 * Returns the cells swept or a negative code. */
static int64_t half_pass(nw_workspace_t *ws, const nw_scoring_t *sc, const sub_t *s, int reverse,
			 int64_t *H, int64_t *F)
{
	const int64_t O = sc->gap_open, mid = s->m / 2;
	const int known = s->S > NW_NEG_INF;
	nw_sweep_t sw = {.a = s->a, .b = s->b, .na = mid, .nb = s->n, .rows = s->m, .s = sc->score,
			 .O = O, .X = sc->gap_extend, .top_open = O, .col0_open = s->tb,
			 .target = s->S, .bonus = O - s->te, .stop = NW_SWEEP_CORNER};
	if (reverse) {
		sw.a = nw_ws_reverse(ws, 0, s->a, s->m);
		sw.b = nw_ws_reverse(ws, 1, s->b, s->n);
		sw.na = s->m - mid, sw.col0_open = s->te, sw.bonus = O - s->tb;
		if (!sw.a || !sw.b)
			return NW_ERR_MEMORY;
	}
	if (known && (!(sw.sq = nw_best_sums(ws, 0, sc, sw.a, s->m, 1)) ||
		      !(sw.sr = nw_best_sums(ws, 1, sc, sw.b, s->n, 0))))
		return NW_ERR_MEMORY;
	dp_hit_t hit;
	int64_t swept = nw_sweep_fast(ws, &sw, H, F, &hit);
	return swept < 0 ? NW_ERR_INTERNAL : swept;
}

/* s's split from its passes' rows: the halves into c[0], c[1], and whether the path
 * crosses the middle inside a vertical gap (two insertions between the halves). The
 * halves' optima follow from the split: at a node, HF and HR there; through a vertical
 * gap, each half ends in that gap with its open waived, so it scores its F value plus the
 * step and the open. NW_ERR_INTERNAL when S is not the sub-problem's optimum. */
static int split_at(const nw_scoring_t *sc, const sub_t *s, const int64_t *HF, const int64_t *FF,
		    const int64_t *HR, const int64_t *FR, sub_t c[2], int *through_gap)
{
	const int64_t O = sc->gap_open, X = sc->gap_extend, n = s->n, mid = s->m / 2;
	const int known = s->S > NW_NEG_INF;
	int64_t split = nw_mm_split(HF, FF, HR, FR, n, O, through_gap);
	if (known && (*through_gap ? FF[split] + FR[n - split] + O : HF[split] + HR[n - split]) != s->S)
		return NW_ERR_INTERNAL;
	if (!*through_gap) {
		c[0] = (sub_t){s->a, s->b, mid, split, s->tb, O, known ? HF[split] : NW_NEG_INF};
		c[1] = (sub_t){s->a + mid, s->b + split, s->m - mid, n - split, O, s->te,
			       known ? HR[n - split] : NW_NEG_INF};
	} else {
		c[0] = (sub_t){s->a, s->b, mid - 1, split, s->tb, 0,
			       known ? FF[split] + X + O : NW_NEG_INF};
		c[1] = (sub_t){s->a + mid + 1, s->b + split, s->m - mid - 1, n - split, 0, s->te,
			       known ? FR[n - split] + X + O : NW_NEG_INF};
	}
	return 0;
}

/* The path of sub-problem s, appended to c->res. */
static int mm(path_ctx_t *c, const sub_t *s)
{
	nw_workspace_t *ws = c->ws;
	if (s->n == 0)
		return emit(c, NW_CIGAR_I, s->m);
	if (s->m == 0)
		return emit(c, NW_CIGAR_D, s->n);
	if (is_leaf(ws, s))
		return leaf(c, s->a, s->m, s->b, s->n, s->tb, s->te, s->S);
	if (nw_ws_rows(ws, s->n) < 0)
		return NW_ERR_MEMORY;
	int64_t r1 = half_pass(ws, c->sc, s, 0, ws->row[0], ws->row[1]);
	int64_t r2 = r1 < 0 ? r1 : half_pass(ws, c->sc, s, 1, ws->row[2], ws->row[3]);
	if (r2 < 0)
		return (int)(r1 < 0 ? r1 : r2);
	ws->path_cells += r1 + r2;
	sub_t h[2];
	int through_gap, ret;
	if ((ret = split_at(c->sc, s, ws->row[0], ws->row[1], ws->row[2], ws->row[3], h,
			    &through_gap)) < 0 ||
	    (ret = mm(c, &h[0])) < 0 || (through_gap && (ret = emit(c, NW_CIGAR_I, 2)) < 0))
		return ret;
	return mm(c, &h[1]);
}

/* ---------------------------------------------------------------- paths over a team
 * A long span's path over ws->team threads: the splits of the first levels, each level's
 * passes side by side (a forward and a reverse pass for each sub-problem, a thread each),
 * as long as the threads cover them; then the sub-problems of the last level side by side,
 * each by mm on a thread of its own, and their ops joined in order. The same splits and
 * leaves as one thread, so the same path. Each thread has a workspace of its own (rows of
 * the span's columns: memory linear in the span for each thread). */

#define NW_PATH_TEAM_MAX 64
typedef struct {
	sub_t s;
	int gap_after; /* the two insertions of a split through a vertical gap follow it */
} part_t;

typedef struct {
	nw_workspace_t *ws;
	const nw_scoring_t *sc;
	const part_t *part;
	int reverse;   /* a pass task: 0 forward, 1 reverse; -1: solve the part (mm) */
	nw_result_t res; /* the part's ops */
	int64_t ret;
} task_t;

static void *run_task(void *arg)
{
	task_t *t = arg;
	nw_workspace_t *ws = t->ws;
	if (t->reverse < 0) {
		path_ctx_t c = {ws, t->sc, &t->res};
		t->ret = mm(&c, &t->part->s);
		return NULL;
	}
	t->ret = nw_ws_rows(ws, t->part->s.n);
	if (t->ret == 0)
		t->ret = half_pass(ws, t->sc, &t->part->s, t->reverse, ws->row[2 * t->reverse],
				   ws->row[2 * t->reverse + 1]);
	return NULL;
}

/* tasks[0..n) on threads of their own, the first on the calling thread. */
static void run_tasks(task_t *tasks, int n)
{
	nw_team_run(run_task, tasks, sizeof *tasks, n);
}

static int path_team(nw_workspace_t *ws, const nw_scoring_t *sc, const sub_t *root,
		     nw_result_t *res)
{
	const int team = ws->team < NW_PATH_TEAM_MAX ? ws->team : NW_PATH_TEAM_MAX;
	nw_workspace_t *w[NW_PATH_TEAM_MAX] = {ws};
	part_t parts[2][NW_PATH_TEAM_MAX];
	task_t tasks[NW_PATH_TEAM_MAX];
	int n_parts = 1, cur = 0, ret = 0;
	parts[0][0] = (part_t){*root, 0};
	for (int k = 1; k < team && ret == 0; k++) {
		if (!(w[k] = nw_workspace_new()))
			ret = NW_ERR_MEMORY;
		else {
			w[k]->isa = ws->isa;
			w[k]->simd_off = ws->simd_off;
			w[k]->full_cells_max = ws->full_cells_max;
		}
	}
	/* levels of splits while every sub-problem to split gets a thread for each pass */
	for (;;) {
		int splits = 0;
		for (int k = 0; k < n_parts; k++)
			splits += !is_leaf(ws, &parts[cur][k].s);
		if (ret < 0 || splits == 0 || 2 * splits > team || n_parts + splits > team)
			break;
		int nt = 0;
		for (int k = 0; k < n_parts; k++) {
			const part_t *p = &parts[cur][k];
			if (is_leaf(ws, &p->s))
				continue;
			for (int dir = 0; dir < 2; dir++, nt++)
				tasks[nt] = (task_t){.ws = w[nt], .sc = sc, .part = p, .reverse = dir};
		}
		run_tasks(tasks, nt);
		int n_next = 0;
		for (int k = 0, t = 0; k < n_parts && ret == 0; k++) {
			const part_t *p = &parts[cur][k];
			if (is_leaf(ws, &p->s)) {
				parts[!cur][n_next++] = *p;
				continue;
			}
			task_t *f = &tasks[t++], *r = &tasks[t++];
			if (f->ret < 0 || r->ret < 0) {
				ret = (int)(f->ret < 0 ? f->ret : r->ret);
				break;
			}
			ws->path_cells += f->ret + r->ret;
			sub_t h[2];
			int through_gap;
			ret = split_at(sc, &p->s, f->ws->row[0], f->ws->row[1], r->ws->row[2],
				       r->ws->row[3], h, &through_gap);
			parts[!cur][n_next++] = (part_t){h[0], through_gap};
			parts[!cur][n_next++] = (part_t){h[1], p->gap_after};
		}
		n_parts = n_next;
		cur = !cur;
	}
	/* the parts side by side, then their ops in order */
	for (int k = 0; k < n_parts; k++)
		tasks[k] = (task_t){.ws = w[k], .sc = sc, .part = &parts[cur][k], .reverse = -1};
	if (ret == 0)
		run_tasks(tasks, n_parts);
	for (int k = 0; k < n_parts; k++) {
		if (ret == 0 && tasks[k].ret < 0)
			ret = (int)tasks[k].ret;
		for (int64_t i = 0; ret == 0 && i < tasks[k].res.n_cigar; i++)
			ret = nw_cigar_push(res, NW_CIGAR_OP(tasks[k].res.cigar[i]),
					    NW_CIGAR_LEN(tasks[k].res.cigar[i]));
		if (ret == 0 && parts[cur][k].gap_after)
			ret = nw_cigar_push(res, NW_CIGAR_I, 2);
		nw_result_free(&tasks[k].res);
	}
	for (int k = 1; k < team; k++) {
		if (w[k])
			ws->path_cells += w[k]->path_cells;
		nw_workspace_free(w[k]);
	}
	return ret;
}

int nw_cpu_path(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
		const uint8_t *r, int64_t n, int64_t S, nw_result_t *res)
{
	path_ctx_t c = {ws, sc, res};
	const sub_t root = {q, r, m, n, sc->gap_open, sc->gap_open, S};
	res->n_cigar = 0;
	if (ws->team >= 2 && !is_leaf(ws, &root) && m * n >= ws->team_min_cells) {
		ws->team_paths++;
		ws->team_most = ws->team > ws->team_most ? ws->team : ws->team_most;
		return path_team(ws, sc, &root, res);
	}
	return mm(&c, &root);
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
