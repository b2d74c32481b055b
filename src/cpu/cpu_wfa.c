/* cpu_wfa.c: the global score of a long pair by the gap-affine wavefront recurrence (WFA:
 * Marco-Sola et al., Bioinformatics 2021), for match/mismatch scoring.
 *
 * WFA minimises a penalty: a mismatch costs x, a gap of length L costs o + e * L, a match
 * 0. nwalign's scores carry a match bonus M; on a global alignment of a[0..m) x b[0..n)
 * every residue is in a match, a mismatch or a gap, so 2 * (matches + mismatches) + gap
 * residues = m + n, and
 *     2 * score = M * (m + n) - (2 (X + M) * mismatches + sum of gaps (2 O + (2 E + M) L))
 * (X, O, E: nwalign's mismatch, gap open and gap extend). The optimum is therefore
 * (M * (m + n) - D) / 2, D the least penalty under x = 2 (X + M), o = 2 O, e = 2 E + M
 * (Eizenga and Paten's transformation), divided here by their common divisor g so that
 * no score step is empty. The score is exact; there is no end to choose (global), so it
 * is the DP's score, and nothing else of the result depends on it.
 *
 * The wavefront of penalty s holds, for each diagonal k = j - i (j: column of b, i: row
 * of a), the furthest column reached at penalty s ending in a match or mismatch (M), a
 * horizontal gap (I: consumes b) or a vertical gap (D: consumes a):
 *     I[s][k] = max(M[s - o - e][k - 1], I[s - e][k - 1]) + 1
 *     D[s][k] = max(M[s - o - e][k + 1], D[s - e][k + 1])
 *     M[s][k] = max(M[s - x][k] + 1, I[s][k], D[s][k]), then along the diagonal while
 *               a[i] and b[j] match (codes below K: nw_scoring_t's identical bases; N and
 *               the other codes match nothing, not even themselves)
 * and the alignment ends at the first s with M[s][n - m] = n. Only the wavefronts of the
 * last max(x, o + e) penalties are kept (a ring). The work grows with D squared over e,
 * not with m * n: near copies take a few hundred thousand steps where the DP takes the
 * whole matrix; a budget of steps (the caller's) ends the attempt on dissimilar pairs.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "cpu_isa.h"

#define WF_NONE (INT32_MIN / 2) /* no cell reached: far below any column */
#define WFA_MAX_W ((int64_t)1 << 16)
#define WF_PAD 20 /* entries beyond +-W: a diagonal read beyond, a vector of 16 written */

/* A wavefront's three components, indexed by diagonal k + W (W: the widest the budget
 * allows); entries [ilo, ihi] hold a column or WF_NONE, the diagonals it reaches are
 * [lo, hi] (lo > hi: none). */
typedef struct {
	int64_t lo, hi, ilo, ihi;
	int32_t *m, *i, *d;
} wavefront_t;

/* Makes w's entries [lo, hi] readable: WF_NONE where they were not yet written. */
static void wf_cover(wavefront_t *w, int64_t lo, int64_t hi)
{
	if (w->ilo > w->ihi) { /* nothing written yet */
		for (int64_t k = lo; k <= hi; k++)
			w->m[k] = w->i[k] = w->d[k] = WF_NONE;
		w->ilo = lo, w->ihi = hi;
		return;
	}
	for (int64_t k = lo; k < w->ilo; k++)
		w->m[k] = w->i[k] = w->d[k] = WF_NONE;
	for (int64_t k = w->ihi + 1; k <= hi; k++)
		w->m[k] = w->i[k] = w->d[k] = WF_NONE;
	w->ilo = lo < w->ilo ? lo : w->ilo;
	w->ihi = hi > w->ihi ? hi : w->ihi;
}

static int64_t gcd64(int64_t a, int64_t b)
{
	while (b) {
		int64_t t = a % b;
		a = b, b = t;
	}
	return a;
}

/* The first column past j on diagonal k where a and b differ. a and b are the padded
 * copies: codes that match nothing differ in every byte from the other side's, and 8
 * bytes of unlike sentinels follow each end, so 8 bytes at a time stop at the end. */
static inline int64_t extend(const uint8_t *a, const uint8_t *b, int64_t k, int64_t j)
{
	const uint8_t *pa = a + (j - k), *pb = b + j;
	for (;;) {
		uint64_t x, y;
		memcpy(&x, pa, 8);
		memcpy(&y, pb, 8);
		const uint64_t diff = x ^ y;
		if (diff)
			return j + (__builtin_ctzll(diff) >> 3);
		pa += 8, pb += 8, j += 8;
	}
}

/* One wavefront step (wfa_kernel.h): wm, wi, wd at diagonals lo + t, t in [0, count),
 * from the sources xm (M of s - x), om (M of s - o - e), ei, ed (I and D of s - e), each
 * pointer at diagonal lo; mk = m + lo. */
typedef struct {
	int32_t *wm, *wi, *wd;
	const int32_t *xm, *om, *ei, *ed;
	int32_t count, mk, n;
} wf_step_t;

#define SIMD_TEMPLATE "wfa_kernel.h"
#define SIMD_ONLY_WIDE
#include "simd_each.h"
#undef SIMD_ONLY_WIDE
#undef SIMD_TEMPLATE

typedef void (*wf_step_fn)(const wf_step_t *);

static wf_step_fn wf_step_for(const nw_workspace_t *ws)
{
	const int isa = ws->simd_off ? NW_ISA_GENERIC : ws->isa >= 0 ? ws->isa : (int)nw_cpu_isa();
	switch (isa) {
#ifdef NW_X86_ISAS
	case NW_ISA_SSE41:
		return wf_step_sse41_32;
	case NW_ISA_AVX2:
		return wf_step_avx2_32;
	case NW_ISA_AVX512:
		return wf_step_avx512_32;
#endif
	default:
		return wf_step_generic_32;
	}
}

/* The penalties in units of their common divisor g, and the codes that match (< K). */
typedef struct {
	int64_t px, po, pe, g;
	int K;
} wfa_pen_t;

/* The least penalty of a[0..m) x b[0..n) in units of g (*units), 1; 0 when the work passes
 * budget steps, or (longest > 0) a sixth of longest times the penalty reached so far
 * (about what the pruned sweeps would cost a pair of that penalty: near there they are
 * the cheaper way, their work growing with the penalty, the wavefronts' with its
 * square), or when the wavefronts grow wider than the arrays; or NW_ERR_MEMORY. */
static int wfa_run(nw_workspace_t *ws, const wfa_pen_t *pen, const uint8_t *a, int64_t m,
		   const uint8_t *b, int64_t n, int64_t budget, int64_t longest, int64_t *units)
{
	const int64_t px = pen->px, po = pen->po, pe = pen->pe;
	const int K = pen->K;
	const int64_t ring = (px > po + pe ? px : po + pe) + 1;
	/* diagonals within +-W: as wide as the budget allows (widths grow by at most 2 a
	 * step, and the steps' widths add up to at most the budget), at most WFA_MAX_W
	 * (the arrays' memory: 12 bytes a diagonal a slot, 24 MB at most) */
	const double wmax = 2.0 * __builtin_sqrt((double)budget) + 2;
	int64_t W = m > n ? m : n;
	W = wmax < (double)W ? (int64_t)wmax : W;
	W = W < WFA_MAX_W ? W : WFA_MAX_W;
	/* [k] for k in [-W - WF_PAD, W + WF_PAD]: the steps read a diagonal beyond each side
	 * and write up to a vector past the last */
	const size_t cap = (size_t)(2 * W + 2 * WF_PAD + 1), arrays = (size_t)(ring + 1) * 3 * cap;
	const size_t bytes = (size_t)(ring + 1) * sizeof(wavefront_t) + arrays * sizeof(int32_t) +
			     (size_t)(m + n + 32);
	if (nw_ws_grow(&ws->wfa, &ws->wfa_cap, bytes) < 0)
		return NW_ERR_MEMORY;
	wavefront_t *wf = ws->wfa, *none = &wf[ring];
	int32_t *cols = (int32_t *)(wf + ring + 1);
	uint8_t *pa = (uint8_t *)(cols + arrays), *pb = pa + m + 16;
	for (int64_t i = 0; i < m; i++)
		pa[i] = a[i] < K ? a[i] : 0xfe;
	for (int64_t j = 0; j < n; j++)
		pb[j] = b[j] < K ? b[j] : 0xff;
	memset(pa + m, 0xfd, 16);
	memset(pb + n, 0xfc, 16);
	for (int64_t r = 0; r <= ring; r++) { /* slot ring: the empty wavefront */
		int32_t *base = cols + (size_t)r * 3 * cap + W + WF_PAD;
		wf[r] = (wavefront_t){.lo = 0, .hi = -1, .ilo = 0, .ihi = -1, .m = base,
				      .i = base + cap, .d = base + 2 * cap};
	}
	wf_cover(none, -W - WF_PAD, W + WF_PAD);

	const int64_t kend = n - m;
	if (kend < -W || kend > W)
		return 0;
	int64_t work = 0;
	wf[0].lo = wf[0].hi = 0;
	const wf_step_fn step = wf_step_for(ws);
	wf_cover(&wf[0], -1, 1);
	wf[0].m[0] = (int32_t)extend(pa, pb, 0, 0);
	for (int64_t s = 0;; s++) {
		wavefront_t *w = &wf[s % ring];
		if (s > 0) {
			wavefront_t *sx = s >= px ? &wf[(s - px) % ring] : none;
			wavefront_t *so = s >= po + pe ? &wf[(s - po - pe) % ring] : none;
			wavefront_t *se = s >= pe ? &wf[(s - pe) % ring] : none;
			int64_t lo = INT64_MAX, hi = INT64_MIN;
			wavefront_t *src[3] = {sx, so, se};
			for (int t = 0; t < 3; t++)
				if (src[t]->lo <= src[t]->hi) {
					lo = src[t]->lo - 1 < lo ? src[t]->lo - 1 : lo;
					hi = src[t]->hi + 1 > hi ? src[t]->hi + 1 : hi;
				}
			w->ilo = 0, w->ihi = -1; /* the slot's old wavefront is gone */
			if (lo > hi) {
				w->lo = 0, w->hi = -1;
				continue;
			}
			lo = lo < -m ? -m : lo;
			hi = hi > n ? n : hi;
			if (lo < -W || hi > W)
				return 0; /* wider than the budget allows */
			work += hi - lo + 1;
			if (work > budget || (longest > 0 && 6 * work > s * longest))
				return 0;
			for (int t = 0; t < 3; t++)
				if (src[t] != none)
					wf_cover(src[t], lo - 1, hi + 1);
			const wf_step_t st = {.wm = w->m + lo, .wi = w->i + lo, .wd = w->d + lo,
					      .xm = sx->m + lo, .om = so->m + lo, .ei = se->i + lo,
					      .ed = se->d + lo, .count = (int32_t)(hi - lo + 1),
					      .mk = (int32_t)(m + lo), .n = (int32_t)n};
			step(&st);
			int32_t *wm = w->m;
			for (int64_t k = lo; k <= hi; k++) /* then along the diagonals */
				if (wm[k] >= 0) {
					const int64_t from = wm[k];
					wm[k] = (int32_t)extend(pa, pb, k, from);
					work += (wm[k] - from) >> 3;
				}
			w->lo = w->ilo = lo, w->hi = w->ihi = hi;
		}
		if (kend >= w->lo && kend <= w->hi && w->m[kend] >= n) {
			*units = s;
			return 1;
		}
	}
}

int nw_wfa_global_score(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *a, int64_t m,
			const uint8_t *b, int64_t n, int64_t budget, int64_t *score)
{
	int ma, mi;
	wfa_pen_t pen;
	/* match/mismatch scoring (N and the other codes past K match nothing), a match
	 * worth at least 0 and more than a mismatch */
	if (m < 1 || n < 1 || m >= (1 << 30) || n >= (1 << 30) || sc->gap_extend < 1 ||
	    sc->gap_open < 0 || sc->n_codes < 2 || !nw_scoring_mm(sc, &ma, &mi, &pen.K) ||
	    ma < 0 || mi >= ma)
		return 0;
	const int64_t M = ma, X = -(int64_t)mi;
	if (ws->wfa_mode == 2) /* tests: to the end */
		budget = INT64_MAX / 4;
	pen.px = 2 * (X + M), pen.po = 2 * (int64_t)sc->gap_open;
	pen.pe = 2 * (int64_t)sc->gap_extend + M;
	pen.g = gcd64(gcd64(pen.px, pen.po), pen.pe); /* gcd(x, 0) = x */
	pen.px /= pen.g, pen.po /= pen.g, pen.pe /= pen.g;
	const int64_t longest = m > n ? m : n, shorter = m < n ? m : n;
	int64_t units;
	/* A probe first: the prefixes of WFA_PROBE residues foretell the pair's penalty per
	 * residue; a pair whose whole penalty would make the wavefronts dearer than the
	 * sweeps (above: longest / 6 in units) is left to them. */
	enum { WFA_PROBE = 1024 };
	if (ws->wfa_mode == 1 && shorter > 2 * WFA_PROBE) {
		int ret = wfa_run(ws, &pen, a, WFA_PROBE, b, WFA_PROBE, budget, WFA_PROBE, &units);
		if (ret <= 0)
			return ret;
		if (units * longest / WFA_PROBE > longest / 6)
			return 0;
	}
	int ret = wfa_run(ws, &pen, a, m, b, n, budget, ws->wfa_mode == 1 ? longest : 0, &units);
	if (ret <= 0)
		return ret;
	*score = (M * (m + n) - pen.g * units) / 2;
	ws->wfa_scores++;
	return 1;
}
