/* path_dp.cuh: one thread's part of the path kernels (gpu_path.cu), shared with their host
 * emulation, which replays it thread by thread and is the kernels' scalar twin.
 *
 * A path problem is a global alignment of m query rows against n reference columns with
 * the borders of src/path.h:
 *   H[0][c] = -(top_open + c * ext), H[r][0] = -(left_open + r * ext), H[0][0] = 0.
 * A warp solves it in stripes of 32 R rows; thread t owns rows [t*R, t*R + R) of the
 * stripe and handles column j at step j - 1 + t, so the row above its first row
 * arrives each step from thread t-1 by shuffle (thread 0: the top border, or the border
 * row the last thread of the stripe above left in memory).
 *
 * Two modes:
 *  - trace: every cell's direction nibble goes to memory (R nibbles a thread a step, one
 *    32-bit word), and the trace kernel walks them back from (m, n) into CIGAR runs;
 *  - last row: H[m][c] and F[m][c] (ending in a vertical gap) for every column c, the
 *    halves of a Myers-Miller split.
 *
 * Direction nibble of cell (i, j), the rule of src/cpu_path.c's full matrix, so that the
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

/* Rows a thread, R in {4, 5, 6, 8} (a problem's R is chosen to waste the fewest rows of
 * its last stripe; at most 8, so that R nibbles fit one 32-bit word). */
#define NW_PATH_RMAX 8
#define NW_PATH_LAG 31                    /* thread 31 runs 31 steps behind thread 0 */

enum { NW_PDIR_DIAG = 0, NW_PDIR_E = 1, NW_PDIR_F = 2, NW_PDIR_SRC = 3, NW_PDIR_EEXT = 4, NW_PDIR_FEXT = 8 };

/* One path problem. Rows: q[qbase + (r - 1) * qstep], columns: r[rbase + (c - 1) * rstep]. */
struct nw_pjob {
	int64_t qbase, rbase;
	int32_t m, n;
	int32_t qstep, rstep;
	int32_t top_open, left_open;
	int32_t end_open;      /* trace: the open of a vertical gap ending at (m, n) (Myers-Miller
				* leaves: 0 when it continues the gap of the split below) */
	int32_t R;             /* rows a thread */
	int64_t dir_off;       /* trace: first direction word */
	int64_t row_off;       /* int32 entries: the border row between stripes, 2 (n + 1) */
	int64_t out_off;       /* last row: H[m][0..n], then F[m][0..n] in lastrow */
	int64_t run_off;       /* trace: first CIGAR run (m + n + 1 runs at most) */
};

/* Direction words of a problem. */
NW_HD int64_t nw_pdir_words(int64_t m, int64_t n, int R)
{
	return (m + 32 * R - 1) / (32 * R) * (n + NW_PATH_LAG) * 32;
}

/* Word and shift of the nibble of cell (i, j), 1 <= i <= m, 1 <= j <= n. */
NW_HD int64_t nw_pdir_index(int64_t n, int R, int64_t i, int64_t j, int *shift)
{
	const int64_t s = (i - 1) / (32 * R), w = (i - 1) % (32 * R);
	const int64_t t = w / R;
	*shift = (int)(w % R) * 4;
	return (s * (n + NW_PATH_LAG) + (j - 1 + t)) * 32 + t;
}

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
	int32_t *n_runs;
	int trace;
};

template <int R>
struct nw_pthread {
	int t;
	int64_t id;              /* job index */
	nw_pjob jb;
	int32_t O, E, OX;
	int32_t s, i0;           /* stripe, my first row */
	int32_t last_s;          /* the stripe holding row m */
	int32_t mrow;            /* my row index holding row m in the last stripe, or -1 */
	int32_t h[R], e[R];      /* H[i][j-1], E[i][j] of my rows */
	int32_t qc[R];           /* query codes of my rows (0 past row m: those rows are never used) */
	int32_t hdiag;           /* H[i0 - 1][j - 1] */

	NW_HD int32_t left(int32_t i) const { return i == 0 ? 0 : -(jb.left_open + i * E); }

	NW_HD void init(const nw_pparams &p, int64_t job, int t_)
	{
		t = t_;
		id = job;
		jb = p.jobs[job];
		O = p.O, E = p.E, OX = p.O + p.E;
		last_s = (jb.m - 1) / (32 * R);
	}

	NW_HD void begin(const nw_pparams &p, int32_t s_)
	{
		s = s_;
		i0 = s * 32 * R + t * R + 1;
		mrow = (s == last_s && jb.m >= i0 && jb.m < i0 + R) ? jb.m - i0 : -1;
#pragma unroll
		for (int r = 0; r < R; r++) {
			const int32_t i = i0 + r;
			qc[r] = i <= jb.m ? p.qcodes[jb.qbase + (int64_t)(i - 1) * jb.qstep] : 0;
			h[r] = left(i);
			e[r] = h[r] - OX; /* E[i][1]: E[i][0] is minus infinity */
		}
		hdiag = left(i0 - 1);
		if (mrow >= 0 && !p.trace) { /* H[m][0], F[m][0]: the column-0 gap */
			int32_t *row = p.lastrow + jb.out_off;
			row[0] = left(jb.m);
			row[jb.n + 1] = left(jb.m);
		}
	}

	/* Step k: column j = k + 1 - t. hup = H[i0 - 1][j], fin = F[i0][j] (from thread t-1, or
	 * the border when t == 0: see top()). Returns H and F for the row below my rows. */
	NW_HD void step(const nw_pparams &p, int64_t k, int32_t hup, int32_t fin, int32_t &hout,
			int32_t &fout)
	{
		const int64_t j = k + 1 - t;
		if (j < 1 || j > jb.n) return;
		const int32_t *srow = p.score + p.rcodes[jb.rbase + (j - 1) * jb.rstep];
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
					int32_t *row = p.lastrow + jb.out_off;
					row[j] = hh;
					row[jb.n + 1 + j] = f;
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
		if (p.trace) p.dirs[jb.dir_off + ((int64_t)s * (jb.n + NW_PATH_LAG) + k) * 32 + t] = word;
		if (t == 31 && s < last_s) { /* the border row for the stripe below */
			int32_t *border = p.rows + jb.row_off;
			border[j] = hout;
			border[jb.n + 1 + j] = fout;
		}
	}

	/* What thread 0 receives at step k of stripe s (column j = k + 1). */
	NW_HD void top(const nw_pparams &p, int64_t k, int32_t &hup, int32_t &fin) const
	{
		const int64_t j = k + 1;
		if (j < 1 || j > jb.n) return;
		if (s == 0) {
			hup = -(jb.top_open + (int32_t)j * E);
			fin = hup - OX; /* F[1][j]: F[0][j] is minus infinity */
		} else {
			const int32_t *border = p.rows + jb.row_off;
			hup = border[j];
			fin = border[jb.n + 1 + j];
		}
	}
};

/* CIGAR runs of one trace, written last first with the same walk as src/cpu_path.c. */
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
 * split's), else at the node. Column 0 and row 0 are the leading gaps. */
NW_HD void nw_ptrace(const nw_pparams &p, int64_t id)
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
	while (i > 0 && j > 0) {
		int sh;
		const uint32_t d = (p.dirs[jb.dir_off + nw_pdir_index(jb.n, jb.R, i, j, &sh)] >> sh) & 15u;
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

#endif
