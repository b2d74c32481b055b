/* path_dp.cuh: one thread's part of the path kernels (gpu_path.cu), shared with their host
 * emulation, which replays it thread by thread and is the kernels' scalar twin.
 *
 * A path problem is a global alignment of m query rows against n reference columns with
 * the borders of src/path.h:
 *   H[0][c] = -(top_open + c * ext), H[r][0] = -(left_open + r * ext), H[0][0] = 0.
 * A group of G threads (G divides 32: a warp runs 32 / G problems) solves it in stripes of
 * G R rows; thread t owns rows [t*R, t*R + R) of the stripe and handles column
 * j = jlo + k - t at step k, so the row above its first row arrives each step from thread
 * t-1 by shuffle (thread 0: the top border, or the border row the last thread of the
 * stripe above left in memory; in a staircase, another warp, which publishes the row as it
 * goes). A stripe sweeps only its window [jlo, jhi] of columns: all
 * of them for the whole matrix, the few the band reaches when the span's optimal score is
 * known (src/band.h). Cells outside the windows are never computed; what flows in from
 * them is NW_PATH_LOW or another value no higher than the truth, so every cell on an
 * optimal path keeps its exact value, every other cell is at most its true value, and
 * the tie rules below pick the same moves along the path as on the whole matrix.
 *
 * Two modes:
 *  - trace: every computed cell's direction nibble goes to memory (R nibbles a thread a
 *    step, one 32-bit word; a group stores G consecutive words a step), and the trace
 *    kernel walks them back from (m, n) into CIGAR runs;
 *  - last row: H[m][c] and F[m][c] (ending in a vertical gap) for column 0 and the columns
 *    of the last stripe's window (nw_plast_*), the halves of a Myers-Miller split (limited
 *    to the band of its sub-problem's optimum, src/band.h, or the whole matrix).
 *
 * Direction nibble of cell (i, j), the rule of src/cpu/cpu_path.c's full matrix, so that the
 * same matrix gives the same path on both engines:
 *   bits 0-1: where H[i][j] comes from: 0 the diagonal, 1 E (horizontal gap), 2 F
 *             (vertical gap); the diagonal wins ties, then E;
 *   bit 2:    E[i][j] extends E[i][j-1] (strictly better than opening from H[i][j-1]);
 *   bit 3:    F[i][j] extends F[i-1][j].
 */
#ifndef NW_GPU_PATH_DP_CUH
#define NW_GPU_PATH_DP_CUH

#include <stdint.h>

#include "nwalign.h"
#include "dp_cell.cuh"

/* Rows a thread, R in {4, 5, 6, 8} (at most 8, so that R nibbles fit one 32-bit word), and
 * threads a problem, G in {4, 8, 16, 32} (a warp runs 32 / G problems side by side). */
#define NW_PATH_RMAX 8
#define NW_PATH_GMAX 32

/* What a banded problem feeds in for cells outside its computed region. It must be no
 * higher than any true value: nw_paths takes only spans whose paths (with the rows past m
 * of a last stripe) cost less than 2^30 in all, so no true value lies below -2^30. And a
 * chain of moves starting from it, as long as such a path, stays above INT32_MIN. */
#define NW_PATH_LOW (-(1 << 30))

enum { NW_PDIR_DIAG = 0, NW_PDIR_E = 1, NW_PDIR_F = 2, NW_PDIR_SRC = 3, NW_PDIR_EEXT = 4, NW_PDIR_FEXT = 8 };

/* One path problem. Rows: q[qbase + (r - 1) * qstep], columns: r[rbase + (c - 1) * rstep].
 *
 * Band: only diagonals d = j - i in [dlo, dhi] are needed (a FULL span whose optimum is
 * known, src/band.h); dlo = -m, dhi = n is the whole matrix. Stripe s (rows
 * [s G R + 1, min(m, (s + 1) G R)]) computes the columns that its rows' diagonals reach,
 * its window [jlo(s), jhi(s)] (nw_pwindow), in W(s) + G - 1 steps. */
struct nw_pjob {
	int64_t qbase, rbase;
	int32_t m, n;
	int32_t qstep, rstep;
	int32_t top_open, left_open;
	int32_t end_open;      /* trace: the open of a vertical gap ending at (m, n) (Myers-Miller
				* leaves: 0 when it continues the gap of the split below) */
	int32_t R;             /* rows a thread (G == 1: direction words a band row) */
	int32_t G;             /* threads a problem; 1: a thin problem (thin_dp.cuh) */
	int32_t dlo, dhi;      /* the band: -m <= dlo <= min(0, n - m), max(0, n - m) <= dhi <= n */
	int64_t dir_words;     /* trace: direction words (nw_pdir_words), kept for the layout */
	int64_t dir_off;       /* trace: first direction word (thin: its warp's, plus its lane) */
	int64_t row_off;       /* int32 entries: the border row between stripes, 2 (n + 1) */
	int64_t out_off;       /* last row: H[m][c], then F[m][c] (nw_plast_*) in lastrow */
	int64_t run_off;       /* trace: first CIGAR run (m + n + 1 runs at most) */
};

NW_HD int32_t nw_pstripes(const nw_pjob &jb)
{
	return (jb.m + jb.G * jb.R - 1) / (jb.G * jb.R);
}

/* Columns of stripe s that the band reaches (never empty: dlo <= 0 <= dhi, dlo <= n - m). */
NW_HD void nw_pwindow(const nw_pjob &jb, int32_t s, int32_t *jlo, int32_t *jhi)
{
	const int32_t rows = jb.G * jb.R, r0 = s * rows + 1, r1 = jb.m < r0 - 1 + rows ? jb.m : r0 - 1 + rows;
	*jlo = r0 + jb.dlo < 1 ? 1 : r0 + jb.dlo;
	*jhi = r1 + jb.dhi > jb.n ? jb.n : r1 + jb.dhi;
}

/* Last-row outputs: H[m][c] of column 0 and of the last stripe's window [jlo, jhi], at
 * out_off + nw_plast_at(c, jlo), then F[m][c] nw_plast_stride entries further. */
NW_HD int32_t nw_plast_stride(int32_t jlo, int32_t jhi)
{
	return jhi - jlo + 2;
}
NW_HD int64_t nw_plast_at(int32_t c, int32_t jlo)
{
	return c == 0 ? 0 : 1 + c - jlo;
}
NW_HD int64_t nw_plast_entries(const nw_pjob &jb)
{
	int32_t lo, hi;
	nw_pwindow(jb, nw_pstripes(jb) - 1, &lo, &hi);
	return 2 * (int64_t)nw_plast_stride(lo, hi);
}

/* ---------------------------------------------------------------- Myers-Miller splits
 * A level's last-row problems come in pairs: 2z, the upper half of node z (forward), and
 * 2z + 1, its lower half reversed. The split is src/path.h's nw_mm_split over the columns
 * where both halves hold a value: the upper half's row at column 0 and its window
 * [flo, fhi], the reversed half's at n - j = 0 and [rlo, rhi]; every other column sums
 * values off a band, lower than any real one. Its scan takes the first best column, and
 * the node before the gap at one column: here, the highest sum, then the smallest column,
 * then the node, a total order, so the lanes of a warp may each take every lanes-th
 * column and merge their bests in any order. up and down are the halves' optima (as
 * cpu_path.c's mm: at a node, H on both sides; through a vertical gap, each half ends in
 * it with its open waived). */
struct nw_psplit {
	int64_t v;        /* the best sum; INT64_MIN: none yet */
	int64_t col;      /* its column */
	int64_t up, down; /* the halves' optima */
	int32_t gap;      /* 1: through a vertical gap */
	int32_t pad_;
};

NW_HD bool nw_psplit_before(const nw_psplit &a, const nw_psplit &b)
{
	return a.v > b.v || (a.v == b.v && (a.col < b.col || (a.col == b.col && a.gap < b.gap)));
}

/* This lane's best over its share of node z's columns (lane, lanes: every lanes-th). */
NW_HD nw_psplit nw_psplit_lane(const nw_pjob &f, const nw_pjob &r, const int32_t *lastrow, int32_t O,
			       int32_t X, int lane, int lanes)
{
	int32_t flo, fhi, rlo, rhi;
	nw_pwindow(f, nw_pstripes(f) - 1, &flo, &fhi);
	nw_pwindow(r, nw_pstripes(r) - 1, &rlo, &rhi);
	const int32_t *hf = lastrow + f.out_off, *ff = hf + nw_plast_stride(flo, fhi);
	const int32_t *hr = lastrow + r.out_off, *fr = hr + nw_plast_stride(rlo, rhi);
	const int64_t n = f.n;
	nw_psplit best;
	best.v = INT64_MIN, best.col = 0, best.up = best.down = 0, best.gap = 0, best.pad_ = 0;
	auto see = [&](int64_t j) {
		const int64_t a = nw_plast_at((int32_t)j, flo), b = nw_plast_at((int32_t)(n - j), rlo);
		nw_psplit c;
		c.col = j, c.pad_ = 0;
		c.v = (int64_t)hf[a] + hr[b], c.gap = 0, c.up = hf[a], c.down = hr[b];
		if (nw_psplit_before(c, best)) best = c;
		c.v = (int64_t)ff[a] + fr[b] + O, c.gap = 1, c.up = (int64_t)ff[a] + X + O, c.down = (int64_t)fr[b] + X + O;
		if (nw_psplit_before(c, best)) best = c;
	};
	if (lane == 0 && (n == 0 || (n >= rlo && n <= rhi))) see(0); /* column 0 pairs with HR[n] */
	const int64_t lo0 = flo > n - rhi ? flo : n - rhi, hi0 = fhi < n - rlo ? fhi : n - rlo;
	const int64_t lo = lo0 > 1 ? lo0 : 1, hi = hi0 < n - 1 ? hi0 : n - 1;
	for (int64_t j = lo + lane; j <= hi; j += lanes) see(j);
	if (lane == 0 && n > 0 && n >= flo && n <= fhi) see(n); /* column n pairs with HR[0] */
	return best;
}

/* sum over s < c of min(cap, a + s d) and of max(fl, a + s d), d > 0: the windows' ends
 * summed in closed form, since the host sizes and orders a million problems at a time. */
NW_HD int64_t nw_psum_min(int64_t a, int64_t d, int64_t c, int64_t cap)
{
	int64_t k = a >= cap ? 0 : (cap - a + d - 1) / d; /* terms below cap */
	if (k > c) k = c;
	return k * a + d * (k * (k - 1) / 2) + (c - k) * cap;
}
NW_HD int64_t nw_psum_max(int64_t a, int64_t d, int64_t c, int64_t fl)
{
	int64_t k = a > fl ? 0 : (fl - a) / d + 1; /* terms at or below fl */
	if (k > c) k = c;
	return k * fl + (c - k) * a + d * ((c * (c - 1) - k * (k - 1)) / 2);
}

/* Steps of stripes 0..c-1 (c <= nw_pstripes): the sum of W(s) + G - 1. Stripe s's
 * direction words start at nw_pdir_base(s) * G. */
NW_HD int64_t nw_pdir_base(const nw_pjob &jb, int32_t c)
{
	const int64_t rows = (int64_t)jb.G * jb.R, S = nw_pstripes(jb);
	/* jhi(s) = min(n, (s + 1) rows + dhi), except the last stripe, whose rows end at m */
	int64_t hi = nw_psum_min(rows + jb.dhi, rows, c < S ? c : S - 1, jb.n);
	if (c >= S) hi += jb.m + jb.dhi < jb.n ? jb.m + jb.dhi : jb.n;
	const int64_t lo = nw_psum_max(1 + (int64_t)jb.dlo, rows, c, 1);
	return hi - lo + c * (int64_t)jb.G;
}

/* Direction words of a problem: stripe s takes (W(s) + G - 1) G words, word
 * (nw_pdir_base(s) + k) G + t at step k of thread t. */
NW_HD int64_t nw_pdir_words(const nw_pjob &jb)
{
	return nw_pdir_base(jb, nw_pstripes(jb)) * jb.G;
}

/* The trace's way to the nibble of cell (i, j): it walks up, stripe by stripe, so the
 * stripe's first word is carried along instead of summed again for every cell. */
struct nw_pdir_cursor {
	int32_t s, jlo, jhi;
	int64_t base;
	NW_HD void start(const nw_pjob &jb)
	{
		s = nw_pstripes(jb) - 1;
		base = nw_pdir_base(jb, s);
		nw_pwindow(jb, s, &jlo, &jhi);
	}
	/* Word index and shift of cell (i, j), 1 <= i <= m, 1 <= j <= n, i never growing from
	 * one call to the next; -1 when the cell lies outside its stripe's window (only a band
	 * that misses the path puts it there). */
	NW_HD int64_t at(const nw_pjob &jb, int64_t i, int64_t j, int *shift)
	{
		const int32_t rows = jb.G * jb.R, si = (int32_t)((i - 1) / rows);
		while (s > si) {
			s--;
			nw_pwindow(jb, s, &jlo, &jhi);
			base -= jhi - jlo + jb.G;
		}
		const int32_t w = (int32_t)(i - 1) - s * rows, t = w / jb.R;
		*shift = (w % jb.R) * 4;
		if (j < jlo || j > jhi) return -1;
		return (base + (j - jlo) + t) * jb.G + t;
	}
};

/* The same for a thin problem (G == 1, thin_dp.cuh): one thread swept a band of 8 R
 * diagonals from dlo, R words a row, the words of a warp's 32 problems interleaved. */
struct nw_pthin_cursor {
	NW_HD void start(const nw_pjob &) {}
	NW_HD int64_t at(const nw_pjob &jb, int64_t i, int64_t j, int *shift)
	{
		const int64_t x = j - i - jb.dlo;
		if (x < 0 || x >= 8 * (int64_t)jb.R) return -1;
		*shift = (int)(x & 7) * 4;
		return ((i - 1) * jb.R + (x >> 3)) * 32;
	}
};

struct nw_pparams {
	const nw_pjob *jobs;
	int64_t n_jobs;
	const uint8_t *qcodes, *rcodes;
	const int32_t *score;   /* 32 x 32: score[q * 32 + r] */
	int32_t O, E;
	uint32_t *dirs;
	int32_t *rows;          /* border rows (scratch) */
	int32_t *lastrow;       /* last-row mode: the output rows */
	int32_t *corner;        /* trace: H[m][n], F[m][n] of each job */
	uint32_t *runs;         /* trace: CIGAR runs, last first */
	int32_t *n_runs;        /* trace: runs of each job; -1: the band missed the path */
	int trace;
};

/* Thread t of a group of G solving one problem (job < 0: an idle group at the end of the
 * problems, which steps along with its warp and does nothing). */
template <int R, int G>
struct nw_pthread {
	int t;
	int64_t id;              /* job index */
	nw_pjob jb;
	int32_t O, E, OX;
	int32_t s, i0;           /* stripe, my first row */
	int32_t last_s;          /* the stripe holding row m; -1 when idle */
	int32_t mrow;            /* my row index holding row m in the last stripe, or -1 */
	int32_t jlo, jhi;        /* the stripe's window; jlo > jhi past the last stripe */
	int32_t pjlo, pjhi;      /* the window of the stripe above */
	int32_t steps;           /* of the stripe: W + G - 1 */
	int64_t base;            /* the stripe's first direction word / G */
	int32_t h[R], e[R];      /* H[i][j-1], E[i][j] of my rows */
	int32_t qc[R];           /* query codes of my rows (0 past row m: those rows are never used) */
	int32_t hdiag;           /* H[i0 - 1][j - 1] */
	int32_t *done;           /* staircase (one problem, a warp a stripe): done[s] = the
				  * columns of stripe s's border row published (last + 1);
				  * NULL: the stripes of a problem run in turn on one warp */

	int32_t seen;            /* staircase: done[s - 1] as last read */
	int32_t rc0, rc1;        /* reference codes of my next two columns, loaded ahead: a
				  * staircase's stripe is latency-bound, the load off its path */

	NW_HD int32_t rcode(const nw_pparams &p, int32_t j) const
	{
		return j <= jhi ? p.rcodes[jb.rbase + (int64_t)(j - 1) * jb.rstep] : 0;
	}

	/* Staircase: thread 0 waits until the stripe above has published column c. It reads
	 * done[] (from L2, a fence after it) only when the columns seen so far fall short:
	 * once every 16 columns, not every step. */
	NW_HD void wait_above(int32_t c)
	{
#ifdef __CUDA_ARCH__
		if (!done || s == 0 || c < seen) return;
		const volatile int32_t *up = done + s - 1;
		while ((seen = *up) <= c)
			__nanosleep(64); /* a waiting warp leaves the SM's issue slots to working ones */
		__threadfence();
#else
		(void)c;
#endif
	}
	/* Staircase: the last thread publishes its border row up to column j. */
	NW_HD void publish(int32_t j) const
	{
#ifdef __CUDA_ARCH__
		if (!done || ((j & 15) != 15 && j != jhi)) return;
		__threadfence();
		*(volatile int32_t *)(done + s) = j + 1;
#else
		(void)j;
#endif
	}

	NW_HD int32_t left(int32_t i) const { return i == 0 ? 0 : -(jb.left_open + i * E); }
	NW_HD int32_t topb(int32_t j) const { return j == 0 ? 0 : -(jb.top_open + j * E); }

	NW_HD void init(const nw_pparams &p, int64_t job, int t_)
	{
		t = t_;
		id = job;
		done = NULL;
		seen = 0;
		O = p.O, E = p.E, OX = p.O + p.E;
		last_s = -1;
		jlo = 1, jhi = 0, steps = 0, base = 0, mrow = -1;
		if (job < 0) return;
		jb = p.jobs[job];
		last_s = (jb.m - 1) / (G * R);
	}

	NW_HD void begin(const nw_pparams &p, int32_t s_)
	{
		s = s_;
		if (s > last_s) { /* done: no column is mine */
			jlo = 1, jhi = 0, steps = 0, mrow = -1;
			return;
		}
		/* from the stripe alone (a staircase's warp takes any stripe), as the sums of the
		 * stripes above would give */
		base = nw_pdir_base(jb, s);
		seen = 0;
		pjlo = 1, pjhi = 0;
		if (s > 0) nw_pwindow(jb, s - 1, &pjlo, &pjhi);
		nw_pwindow(jb, s, &jlo, &jhi);
		steps = jhi - jlo + G;
		i0 = s * G * R + t * R + 1;
		rc0 = rcode(p, jlo);
		rc1 = rcode(p, jlo + 1);
		mrow = (s == last_s && jb.m >= i0 && jb.m < i0 + R) ? jb.m - i0 : -1;
		/* Column jlo - 1 is the left border when jlo == 1; otherwise it lies outside the
		 * band, and anything no higher than the truth will do. */
#pragma unroll
		for (int r = 0; r < R; r++) {
			const int32_t i = i0 + r;
			qc[r] = i <= jb.m ? p.qcodes[jb.qbase + (int64_t)(i - 1) * jb.qstep] : 0;
			h[r] = jlo == 1 ? left(i) : NW_PATH_LOW;
			e[r] = h[r] - OX; /* E[i][jlo]: E[i][jlo - 1] is minus infinity or off the band */
		}
		/* H[i0 - 1][jlo - 1]: the real value where it exists (the left or top border, or
		 * the border row of the stripe above when that stripe computed the column: it may
		 * lie on the band) */
		if (jlo == 1) hdiag = left(i0 - 1);
		else if (t > 0) hdiag = NW_PATH_LOW;
		else if (s == 0) hdiag = topb(jlo - 1);
		else if (jlo - 1 >= pjlo && jlo - 1 <= pjhi) {
			wait_above(jlo - 1);
			hdiag = nw_ld_cg(p.rows + jb.row_off + jlo - 1);
		} else hdiag = NW_PATH_LOW;
		if (mrow >= 0 && !p.trace) { /* H[m][0], F[m][0]: the column-0 gap */
			int32_t *row = p.lastrow + jb.out_off;
			row[0] = left(jb.m);
			row[nw_plast_stride(jlo, jhi)] = left(jb.m);
		}
	}

	/* Step k: column j = jlo + k - t. hup = H[i0 - 1][j], fin = F[i0][j] (from thread t-1, or
	 * the border when t == 0: see top()). Returns H and F for the row below my rows. */
	NW_HD void step(const nw_pparams &p, int32_t k, int32_t hup, int32_t fin, int32_t &hout,
			int32_t &fout)
	{
		const int32_t j = jlo + k - t;
		if (j < jlo || j > jhi) return;
		const int32_t *srow = p.score + rc0; /* column j's code */
		rc0 = rc1;
		rc1 = rcode(p, j + 2);
		int32_t hd = hdiag, up = hup, f = fin;
		uint32_t word = 0;
#pragma unroll
		for (int r = 0; r < R; r++) {
			const int32_t sc = srow[qc[r] * 32];
			const int32_t ein = e[r], hleft = h[r];
			int32_t hh = hd + sc, src = NW_PDIR_DIAG;
			if (ein > hh) hh = ein, src = NW_PDIR_E;
			if (f > hh) hh = f, src = NW_PDIR_F;
			const int32_t ho = hh - OX;
			if (p.trace)
				word |= (uint32_t)(src | (ein > hleft - OX ? NW_PDIR_EEXT : 0) |
						   (f > up - OX ? NW_PDIR_FEXT : 0))
					<< (4 * r);
			if (r == mrow) { /* row m: the last-row output, or where the trace starts */
				if (p.trace) {
					if (j == jb.n) p.corner[2 * id] = hh, p.corner[2 * id + 1] = f;
				} else {
					int32_t *row = p.lastrow + jb.out_off + nw_plast_at(j, jlo);
					row[0] = hh;
					row[nw_plast_stride(jlo, jhi)] = f;
				}
			}
			e[r] = ein - E > ho ? ein - E : ho;    /* E[i][j+1] */
			f = f - E > ho ? f - E : ho;           /* F[i+1][j] */
			hd = hleft;
			up = hh;
			h[r] = hh;
		}
		hdiag = hup;
		hout = up;
		fout = f;
		if (p.trace) p.dirs[jb.dir_off + (base + k) * G + t] = word;
		if (t == G - 1 && s < last_s) { /* the border row for the stripe below */
			int32_t *border = p.rows + jb.row_off;
			border[j] = hout;
			border[jb.n + 1 + j] = fout;
			publish(j);
		}
	}

	/* What thread 0 receives at step k of stripe s (column j = jlo + k): the top border,
	 * the border row of the stripe above where that stripe computed column j, else a
	 * value off the band. */
	NW_HD void top(const nw_pparams &p, int32_t k, int32_t &hup, int32_t &fin)
	{
		const int32_t j = jlo + k;
		if (j > jhi) return;
		if (s == 0) {
			hup = topb(j);
			fin = hup - OX; /* F[1][j]: F[0][j] is minus infinity */
		} else if (j <= pjhi) { /* j >= jlo >= pjlo */
			const int32_t *border = p.rows + jb.row_off;
			wait_above(j);
			hup = nw_ld_cg(border + j); /* a staircase's: maybe from another SM */
			fin = nw_ld_cg(border + jb.n + 1 + j);
		} else {
			hup = fin = NW_PATH_LOW;
		}
	}
};

/* CIGAR runs of one trace, written last first with the same walk as src/cpu/cpu_path.c. */
struct nw_prun_writer {
	uint32_t *out;
	int32_t n;
	uint32_t op;
	int64_t len;
	NW_HD void push(uint32_t o, int64_t l)
	{
		if (l <= 0) return;
		if (o == op) {
			len += l;
			return;
		}
		if (len) out[n++] = NW_CIGAR_PACK(len, op);
		op = o;
		len = l;
	}
	NW_HD void flush()
	{
		if (len) out[n++] = NW_CIGAR_PACK(len, op);
		len = 0;
	}
};

/* Trace job id back from (m, n): in a vertical gap when F[m][n], with the gap's open
 * charged at end_open, beats H[m][n] (a Myers-Miller leaf whose last gap continues the
 * split's), else at the node. Column 0 and row 0 are the leading gaps. n_runs is -1 when the
 * walk leaves the computed windows, which only a band too narrow for the path can cause. */
template <class Cursor>
NW_HD void nw_ptrace_walk(const nw_pparams &p, int64_t id)
{
	const nw_pjob jb = p.jobs[id];
	int64_t i = jb.m, j = jb.n;
	const int64_t hmn = p.corner[2 * id], fmn = p.corner[2 * id + 1];
	int st = fmn + (p.O - jb.end_open) > hmn ? NW_PDIR_F : NW_PDIR_DIAG;
	nw_prun_writer w;
	w.out = p.runs + jb.run_off;
	w.n = 0;
	w.op = 0;
	w.len = 0;
	Cursor cur;
	cur.start(jb);
	while (i > 0 && j > 0) {
		int sh;
		const int64_t x = cur.at(jb, i, j, &sh);
		if (x < 0) {
			p.n_runs[id] = -1;
			return;
		}
		const uint32_t d = (p.dirs[jb.dir_off + x] >> sh) & 15u;
		if (st == NW_PDIR_DIAG) {
			const uint32_t src = d & NW_PDIR_SRC;
			if (src == NW_PDIR_DIAG) {
				const uint8_t a = p.qcodes[jb.qbase + (i - 1) * jb.qstep];
				const uint8_t b = p.rcodes[jb.rbase + (j - 1) * jb.rstep];
				w.push(a == b ? NW_CIGAR_EQ : NW_CIGAR_X, 1);
				i--, j--;
			} else {
				st = (int)src;
			}
		} else if (st == NW_PDIR_E) {
			w.push(NW_CIGAR_D, 1);
			st = d & NW_PDIR_EEXT ? NW_PDIR_E : NW_PDIR_DIAG;
			j--;
		} else {
			w.push(NW_CIGAR_I, 1);
			st = d & NW_PDIR_FEXT ? NW_PDIR_F : NW_PDIR_DIAG;
			i--;
		}
	}
	w.push(NW_CIGAR_I, i);
	w.push(NW_CIGAR_D, j);
	w.flush();
	p.n_runs[id] = w.n;
}
NW_HD void nw_ptrace(const nw_pparams &p, int64_t id)
{
	if (p.jobs[id].G == 1) nw_ptrace_walk<nw_pthin_cursor>(p, id);
	else nw_ptrace_walk<nw_pdir_cursor>(p, id);
}

#endif
