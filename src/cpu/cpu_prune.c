/* cpu_prune.c: the pruned Gotoh sweep (nw_sweep) of the CPU engine's passes whose score is
 * known before they run: the passes of an exact path (cpu_path.c), whose sub-problems'
 * optima come from the score engine and from each split, and the reverse pass that finds
 * a start (cpu_align.c), whose target is the forward pass's score.
 *
 * A cell can be skipped when no path through it reaches the target S: with
 * v = max(H, E + O, F + O) (a path that goes on inside a gap saves at most the open) and
 * an upper bound on what the rest of the pass can still add from there (rest_bound), a
 * cell with v + bound < S lies on no path of score S. Such cells are marked dead (below
 * NW_SWEEP_DEAD) and each row is swept only from the first live cell of the row above (or
 * column 0 while it lives) to the last live one, plus the horizontal-gap run after it
 * while that lives.
 *
 * This keeps the result exact and the same as without pruning: a cell on a path of score
 * S has a best prefix made of cells on that path, so by induction every such cell lives
 * and gets its exact value; every other cell gets its value or less. The maximum of a
 * split row is then S at the same columns, a target is first reached at the same cell,
 * and a traceback decision at a cell of the path compares a predecessor on the path
 * (exact) with values that are exact or lower than the winner's, with the same ties. The
 * work follows the divergence: the live region is as wide as the slack between the
 * target and what the cells can still reach.
 *
 * nw_sweep is the scalar form and the twin of nw_sweep_fast (below), which sweeps each
 * row in vectors (sweep_kernel.h): the exact paths' halves and leaves, the scores of long
 * pairs (nw_pruned_score), and the reverse passes of long pairs' starts whose score is
 * high for their lengths (cpu_align.c: a low score leaves most cells alive, which the
 * striped pass sweeps faster); the scalar sweep also takes the starts whose values leave
 * 32 bits.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "cpu_isa.h"

enum { FROM_E = 1, FROM_F = 2, SRC_MASK = 3, E_EXTENDS = 4, F_EXTENDS = 8 };

const int64_t *nw_best_sums(nw_workspace_t *ws, int k, const nw_scoring_t *sc, const uint8_t *x,
			    int64_t len, int query_codes)
{
	int64_t best[NW_MAX_CODES];
	if (nw_ws_grow((void **)&ws->sums[k], &ws->sums_cap[k], ((size_t)len + 1) * sizeof(int64_t)) < 0)
		return NULL;
	for (int c = 0; c < NW_MAX_CODES; c++) {
		best[c] = 0;
		for (int o = 0; c < sc->n_codes && o < sc->n_codes; o++) {
			int64_t v = query_codes ? sc->score[c][o] : sc->score[o][c];
			best[c] = v > best[c] ? v : best[c];
		}
	}
	int64_t *sums = ws->sums[k];
	sums[len] = 0;
	for (int64_t i = len - 1; i >= 0; i--)
		sums[i] = sums[i + 1] + best[x[i]];
	return sums;
}

/* The most the rest of the pass can add from cell (i, j): its diagonal steps score at most
 * the best sums of the rows and of the columns left; a pass that ends at the corner
 * (rows, nb) also spends the |a - b| residues that the a rows and b columns left force
 * into at least one gap. */
static inline int64_t rest_bound(const nw_sweep_t *p, int64_t i, int64_t j)
{
	const int64_t diag = p->sq[i] < p->sr[j] ? p->sq[i] : p->sr[j];
	const int64_t a = p->rows - i, b = p->nb - j;
	if (a == b || (p->stop != NW_SWEEP_CORNER && (p->stop != NW_SWEEP_LASTROW || a < b)))
		return diag;
	return diag - p->O - p->X * (a > b ? a - b : b - a);
}

static inline int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* After row i: a stop rule met sets the hit and returns 1. */
static int stopped(const nw_sweep_t *p, const int64_t *H, int64_t i, int64_t lo, int64_t hi,
		   dp_hit_t *hit)
{
	if (p->stop == NW_SWEEP_TARGET_LASTCOL) {
		if (H[p->nb] != p->target)
			return 0;
		hit->row = i, hit->col = p->nb;
		return 1;
	}
	if (p->stop == NW_SWEEP_TARGET) {
		for (int64_t j = lo; j >= 0 && j <= hi; j++)
			if (H[j] >= p->target) {
				hit->row = i, hit->col = j;
				return 1;
			}
	}
	return 0;
}

/* A sweep that fails at row i after cells: how far it got, for the caller that asked. */
static int64_t failed(const nw_sweep_t *p, int64_t cells, int64_t i)
{
	if (p->failed)
		p->failed->cells = cells, p->failed->row = i;
	return NW_ERR_INTERNAL;
}

int64_t nw_sweep(const nw_sweep_t *p, int64_t *H, int64_t *F, dp_hit_t *hit)
{
	const int64_t O = p->O, X = p->X, OX = O + X, nb = p->nb;
	const int prune = p->target > NW_NEG_INF;
	const int64_t need = p->target - p->bonus; /* a live cell: v + bound >= need */
	const size_t stride = (size_t)nb + 1;
	int64_t lo = 0, hi = nb, cells = nb + 1;

	hit->row = hit->col = -1;
	H[0] = 0;
	F[0] = NW_NEG_INF;
	for (int64_t j = 1; j <= nb; j++) {
		H[j] = p->stop == NW_SWEEP_LASTROW ? 0 : -(p->top_open + j * X);
		F[j] = NW_NEG_INF;
	}
	if (prune) {
		lo = hi = -1;
		for (int64_t j = 0; j <= nb; j++) {
			/* row 0 is a horizontal gap (E); the origin may start a vertical gap
			 * whose open is col0_open */
			int64_t v = j ? H[j] + O : O - p->col0_open;
			if (v + rest_bound(p, 0, j) < need) {
				H[j] = NW_NEG_INF;
			} else {
				lo = lo < 0 ? j : lo;
				hi = j;
			}
		}
		if (lo < 0)
			return failed(p, cells, 0);
	}
	if (stopped(p, H, 0, lo, hi, hit))
		return cells;
	for (int64_t i = 1; i <= p->na; i++) {
		const int32_t *srow = p->s[p->a[i - 1]];
		const uint8_t *b = p->b;
		uint8_t *d = p->dir ? p->dir + (size_t)i * stride : NULL;
		const int64_t col0 = -(p->col0_open + i * X);
		int64_t nlo = -1, nhi = -1, j = 1, left, e = NW_NEG_INF, diag;
		if (!prune || col0 + O + rest_bound(p, i, 0) >= need) {
			diag = H[0];
			H[0] = F[0] = left = col0;
			nlo = nhi = 0;
		} else {
			j = lo > 1 ? lo : 1;
			diag = H[j - 1];
			H[0] = F[0] = left = NW_NEG_INF;
		}
		for (; j <= nb; j++) {
			if (left < NW_SWEEP_DEAD && e < NW_SWEEP_DEAD) {
				if (j > hi + 1)
					break; /* the row above and the left are dead from here on */
				if (j < lo) { /* dead up to the row above's first live cell */
					j = lo - 1;
					diag = NW_NEG_INF;
					continue;
				}
			}
			int64_t up = H[j];
			int64_t fo = up - OX, fe = F[j] - X, eo = left - OX, ee = e - X;
			int64_t f = fe > fo ? fe : fo, h = diag + srow[b[j - 1]];
			uint8_t bits = (fe > fo ? F_EXTENDS : 0) | (ee > eo ? E_EXTENDS : 0);
			e = ee > eo ? ee : eo;
			if (e > h)
				h = e, bits |= FROM_E;
			if (f > h)
				h = f, bits = (bits & ~SRC_MASK) | FROM_F;
			if (prune && max64(h, max64(e, f) + O) + rest_bound(p, i, j) < need) {
				h = e = f = NW_NEG_INF;
			} else {
				nlo = nlo < 0 ? j : nlo;
				nhi = j;
			}
			if (d)
				d[j] = bits;
			diag = up;
			H[j] = h;
			F[j] = f;
			left = h;
		}
		cells += j - (nlo < 0 ? 0 : nlo);
		if (prune) {
			if (nlo < 0)
				return failed(p, cells, i);
			lo = nlo;
			hi = nhi;
		}
		if (stopped(p, H, i, prune ? lo : 0, prune ? hi : nb, hit))
			return cells;
	}
	if (p->stop != NW_SWEEP_CORNER && p->stop != NW_SWEEP_LASTROW)
		return failed(p, cells, p->na); /* the target was never reached */
	hit->row = p->na, hit->col = nb;
	return cells;
}

/* ---------------------------------------------------------------- the SIMD sweep */

/* Dead and "minus infinity" in the 32-bit lanes: NW_SWEEP_DEAD and NW_NEG_INF's roles. */
#define SW_NEG (-(1 << 29))
#define SW_DEAD (SW_NEG / 2)
/* Every value, bound and gap term of a pass that fits stays within +-SW_LIMIT. */
#define SW_LIMIT ((int64_t)1 << 26)
/* Columns of padding past nb in every array: a vector of the widest set, and then some. */
#define SW_PAD 64

/* What sweep_kernel.h reads besides the pass: rows H[0], H[1] (row i in H[i & 1]) and F,
 * row 0 set up, the rest SW_NEG; the column bounds sr (nw_best_sums) and the corner's
 * gap terms G (G[j + rows - i] at cell (i, j)) in 32 bits; prof[slot[c] * stride + j] =
 * s[c][b[j - 1]] for the row codes c; lo, hi: row 0's live columns. */
typedef struct {
	const nw_sweep_t *p;
	int32_t *H[2], *F;
	const int32_t *sr, *G;
	const int16_t *prof;
	size_t stride;
	uint8_t slot[NW_MAX_CODES];
	int64_t lo, hi;
	int64_t *stop_row, *stop_col; /* a target's stop rule met: where (else untouched) */
} sweep_job_t;

/* x[a, b) = SW_NEG, except [keep_a, keep_b). */
static void sweep_clear(int32_t *x, int64_t a, int64_t b, int64_t keep_a, int64_t keep_b)
{
	for (int64_t j = a; j < b && j < keep_a; j++)
		x[j] = SW_NEG;
	for (int64_t j = a > keep_b ? a : keep_b; j < b; j++)
		x[j] = SW_NEG;
}

#define SIMD_TEMPLATE "sweep_kernel.h"
#define SIMD_ONLY_WIDE
#include "simd_each.h"

typedef int64_t (*sweep_fn)(const sweep_job_t *);

static sweep_fn sweep_for(int isa)
{
	switch (isa) {
#ifdef NW_X86_ISAS
	case NW_ISA_SSE41:
		return sweep_sse41_32;
	case NW_ISA_AVX2:
		return sweep_avx2_32;
	case NW_ISA_AVX512:
		return sweep_avx512_32;
#endif
	default:
		return sweep_generic_32;
	}
}

static int64_t abs64(int64_t x)
{
	return x < 0 ? -x : x;
}

/* 1 when every value of the pass stays within SW_LIMIT: a cell is a path of at most
 * na + nb steps of a substitution or a gap step, plus the boundaries' opens. */
static int sweep_fits(const nw_sweep_t *p)
{
	int64_t worst = 0;
	for (int c = 0; c < NW_MAX_CODES; c++)
		for (int o = 0; o < NW_MAX_CODES; o++)
			worst = abs64(p->s[c][o]) > worst ? abs64(p->s[c][o]) : worst;
	int64_t step = worst + p->O + p->X, len = p->rows + p->nb + 2;
	if (p->O < 0 || p->X < 1 || step >= SW_LIMIT || len >= SW_LIMIT / step)
		return 0;
	const int64_t opens = abs64(p->top_open) + abs64(p->col0_open) + abs64(p->bonus);
	return opens < SW_LIMIT && len * step + opens < SW_LIMIT &&
	       (p->target <= NW_NEG_INF || abs64(p->target) < SW_LIMIT);
}

int64_t nw_sweep_fast(nw_workspace_t *ws, const nw_sweep_t *p, int64_t *H, int64_t *F,
		      dp_hit_t *hit)
{
	if (p->na < 1 || p->rows < p->na || ws->simd_off || !sweep_fits(p))
		return nw_sweep(p, H, F, hit); /* (rows lays out the gap terms: at least na) */
	const int64_t nb = p->nb, rows = p->rows, need = p->target - p->bonus;
	const int prune = p->target > NW_NEG_INF;
	sweep_job_t jb = {.p = p};
	int n_slots = 0;
	memset(jb.slot, 0xff, sizeof jb.slot);
	for (int64_t i = 0; i < p->na; i++)
		if (jb.slot[p->a[i]] == 0xff)
			jb.slot[p->a[i]] = (uint8_t)n_slots++;
	const size_t row = ((size_t)nb + 1 + SW_PAD + 15) & ~(size_t)15;
	const size_t grow = ((size_t)(nb + rows) + 1 + SW_PAD + 15) & ~(size_t)15;
	jb.stride = row;
	size_t bytes = (4 * row + grow) * sizeof(int32_t) + (size_t)n_slots * row * sizeof(int16_t);
	if (nw_ws_grow_aligned(&ws->sweep, &ws->sweep_cap, bytes) < 0)
		return NW_ERR_MEMORY;
	int32_t *mem = ws->sweep, *sr = mem + 3 * row, *G = sr + row;
	int16_t *prof = (int16_t *)(G + grow);
	jb.H[0] = mem, jb.H[1] = mem + row, jb.F = mem + 2 * row;
	jb.sr = sr, jb.G = G, jb.prof = prof;
	for (size_t j = 0; j < 3 * row; j++)
		mem[j] = SW_NEG;
	for (int64_t j = 0; j < (int64_t)row; j++)
		sr[j] = prune && j <= nb ? (int32_t)p->sr[j] : 0;
	for (int64_t k = 0; k < (int64_t)grow; k++) /* k = j + rows - i: a - b = k - nb */
		G[k] = (p->stop == NW_SWEEP_CORNER && k != nb) || (p->stop == NW_SWEEP_LASTROW && k > nb)
			       ? (int32_t)(p->O + p->X * abs64(nb - k)) : 0;
	for (int c = 0; c < NW_MAX_CODES; c++) {
		if (jb.slot[c] == 0xff)
			continue;
		int16_t *pr = prof + (size_t)jb.slot[c] * row;
		pr[0] = 0;
		for (int64_t j = 1; j <= nb; j++)
			pr[j] = (int16_t)p->s[c][p->b[j - 1]];
		for (size_t j = (size_t)nb + 1; j < row; j++)
			pr[j] = 0;
	}
	/* row 0, as nw_sweep sets it up */
	int32_t *H0 = jb.H[0];
	jb.lo = 0, jb.hi = nb;
	if (prune)
		jb.lo = jb.hi = -1;
	for (int64_t j = 0; j <= nb; j++) {
		int64_t h = j && p->stop != NW_SWEEP_LASTROW ? -(p->top_open + j * p->X) : 0;
		int64_t v = j ? h + p->O : p->O - p->col0_open;
		if (prune && v + rest_bound(p, 0, j) < need) {
			H0[j] = SW_NEG;
		} else {
			H0[j] = (int32_t)h;
			if (prune) {
				jb.lo = jb.lo < 0 ? j : jb.lo;
				jb.hi = j;
			}
		}
	}
	if (jb.lo < 0)
		return failed(p, nb + 1, 0);
	int64_t stop_row = -1, stop_col = -1;
	jb.stop_row = &stop_row, jb.stop_col = &stop_col;
	for (int64_t j = jb.lo; j <= jb.hi; j++) /* row 0 meets a target's stop rule */
		if (H0[j] > SW_DEAD && (p->stop == NW_SWEEP_TARGET ? H0[j] >= p->target
				       : p->stop == NW_SWEEP_TARGET_LASTCOL && j == nb && H0[j] == p->target)) {
			hit->row = 0, hit->col = j;
			return nb + 1;
		}
	const int isa = ws->isa >= 0 ? ws->isa : (int)nw_cpu_isa();
	int64_t cells = sweep_for(isa)(&jb);
	if (cells < 0)
		return cells;
	if (p->stop != NW_SWEEP_CORNER && p->stop != NW_SWEEP_LASTROW) {
		if (stop_row < 0)
			return failed(p, cells + nb + 1, p->na); /* the target was never reached */
		hit->row = stop_row, hit->col = stop_col;
		return cells + nb + 1;
	}
	const int32_t *Hl = jb.H[p->na & 1];
	for (int64_t j = 0; j <= nb; j++) {
		H[j] = Hl[j] > SW_DEAD ? Hl[j] : NW_NEG_INF;
		F[j] = jb.F[j] > SW_DEAD ? jb.F[j] : NW_NEG_INF;
	}
	hit->row = p->na, hit->col = nb;
	return cells + nb + 1;
}

/* ---------------------------------------------------------------- global and semiglobal scores */

int nw_pruned_score(nw_workspace_t *ws, const nw_scoring_t *sc, int semiglobal,
		    const uint8_t *q, int64_t m, const uint8_t *r, int64_t n, int64_t need,
		    int64_t *score, int64_t *rend)
{
	const int64_t O = sc->gap_open, X = sc->gap_extend;
	if (m < 1 || n < 1 || X < 1)
		return 0;
	if (!semiglobal && ws->wfa_mode) { /* global: wavefronts first (cpu_wfa.c) */
		int64_t s;
		const int ret = nw_wfa_global_score(ws, sc, q, m, r, n,
						    (int64_t)((double)m * (double)n / NW_WFA_SHARE), &s);
		if (ret < 0)
			return ret;
		if (ret) { /* exact; below a need, need - 1 as the sweeps would give */
			*score = need > NW_NEG_INF && s < need ? need - 1 : s;
			*rend = n;
			return 1;
		}
	}
	if (nw_ws_rows(ws, n) < 0)
		return NW_ERR_MEMORY;
	const int64_t *sq = nw_best_sums(ws, 0, sc, q, m, 1), *sr = nw_best_sums(ws, 1, sc, r, n, 0);
	if (!sq || !sr)
		return NW_ERR_MEMORY;
	int64_t best = 0, worst = 0; /* the substitution scores' extremes */
	for (int c = 0; c < sc->n_codes; c++)
		for (int o = 0; o < sc->n_codes; o++) {
			best = sc->score[c][o] > best ? sc->score[c][o] : best;
			worst = sc->score[c][o] < worst ? sc->score[c][o] : worst;
		}
	/* the most the pair can score: rest_bound at the origin (semiglobal: the query's
	 * rows past the reference's length go into a gap, wherever the path starts) */
	const int64_t gap = semiglobal ? (m > n ? O + (m - n) * X : 0)
				       : (m != n ? O + (m > n ? m - n : n - m) * X : 0);
	const int64_t most = (sq[0] < sr[0] ? sq[0] : sr[0]) - gap;
	const int64_t shorter = m < n ? m : n;
	const double budget = (double)m * (double)n / NW_PRUNED_SHARE;
	const nw_sweep_t probe = {.a = q, .b = r, .na = m, .nb = n, .rows = m, .s = sc->score,
				  .O = O, .X = X, .top_open = O, .col0_open = O, .target = most};
	if (!ws->simd_off && !sweep_fits(&probe))
		return 0; /* values past the vector sweep's lanes: its scalar twin would be slower
			   * than the full striped pass */
	if (need > NW_NEG_INF && need > most) { /* out of reach: any score below need */
		*score = need - 1;
		*rend = n;
		return 1;
	}
	int64_t slack = need > NW_NEG_INF ? most - need : (shorter / 128 + 1) * (best - worst);
	if (need <= NW_NEG_INF)
		slack = slack > 16 * (O + X) ? slack : 16 * (O + X);
	/* the first sweep: at most a band of slack / X diagonals on each side of the path */
	double swept = 0, next = (double)shorter * (2.0 * (double)slack / (double)X + 1);
	for (;;) {
		if (need <= NW_NEG_INF && swept + next > budget)
			return 0; /* a sweep that would pass the budget is not tried */
		nw_sweep_fail_t fail = {0, 0};
		nw_sweep_t sw = {.a = q, .b = r, .na = m, .nb = n, .rows = m, .s = sc->score, .O = O,
				 .X = X, .top_open = O, .col0_open = O, .target = most - slack,
				 .stop = semiglobal ? NW_SWEEP_LASTROW : NW_SWEEP_CORNER, .sq = sq,
				 .sr = sr, .failed = &fail};
		dp_hit_t hit;
		const int64_t cells = nw_sweep_fast(ws, &sw, ws->row[0], ws->row[1], &hit);
		if (cells < 0 && cells != NW_ERR_INTERNAL)
			return (int)cells;
		int64_t end = n;
		if (cells >= 0 && semiglobal) { /* the first column of the last row's maximum */
			end = 0;
			for (int64_t j = 1; j <= n; j++)
				end = ws->row[0][j] > ws->row[0][end] ? j : end;
		}
		if (cells >= 0 && ws->row[0][end] >= sw.target) {
			*score = ws->row[0][end];
			*rend = end;
			ws->pruned_scores++;
			return 1;
		}
		if (need > NW_NEG_INF) { /* the optimum is below the need */
			*score = need - 1;
			*rend = n;
			return 1;
		}
		/* The optimum is below the target. The sweep lived to row `row`: the path's
		 * deficit passed the slack there, and a deficit that grows evenly along the
		 * rows ends near slack * m / row; a quarter more, at least twice the slack. A
		 * sweep's cells grow with its slack (its band) and with the rows it lives
		 * through: the next one's are foreseen from this one's. */
		const int64_t row = cells >= 0 ? m : fail.row > 0 ? fail.row : 1;
		const double done = cells >= 0 ? (double)cells : (double)fail.cells;
		const double grow = 1.25 * (double)m / (double)row > 2 ? 1.25 * (double)m / (double)row : 2;
		swept += done;
		next = done * grow * (double)m / (double)row;
		slack = (int64_t)((double)slack * grow);
	}
}
