/* thin_dp.cuh: one thread a path problem along its band of diagonals (the thin kernel of
 * gpu_thin.cu), shared with the host, which runs this same code as its scalar twin.
 *
 * When a problem's optimal score is known, every path of that score keeps to a band of
 * diagonals d = j - i (src/band.h). A thread sweeps the band row by row: slot x of its band
 * row holds H and F of cell (i, i + dlo + x) in 16 bits each, so that cell (i, x) finds
 * H[i-1][j-1] in slot x and H[i-1][j], F[i-1][j] in slot x + 1 of the row above; the row is
 * rewritten in place from left to right, E runs along it in a register. Reference codes sit
 * in a ring indexed by column. No thread waits for another: the groups of the path kernel
 * spend most of their steps on the ramps of their stripes' column windows when a band is a
 * few dozen diagonals wide, a thread a problem spends none.
 *
 * Slot x of a thread lies at hf[x * stride] (a warp's 32 threads side by side in shared
 * memory, so no bank conflicts); the host twin uses stride 1. Cells off the band read
 * H = F = NW_THIN_LOW, and stored values are raised to it: the path planner takes only
 * problems whose true values all lie above it and fit 16 bits (nw_thin_fits), so every computed
 * value stays at most its true value and every cell on an optimal path keeps its true
 * value (the argument of path_dp.cuh). Only cells with 1 <= j <= n are computed; column 0
 * is the left border.
 *
 * Every computed cell's direction nibble (path_dp.cuh's rule) goes to memory, 8 a word, row
 * i's words at dir[((i - 1) * words + k) * 32] (the 32 problems of a warp interleaved, so
 * that their stores coalesce), and the corner's H and F are kept for the trace.
 *
 * The substitution table sits in rows of NW_THIN_TAB_ROW entries: threads of a warp look up
 * different (query, reference) codes at once, and with rows of 36 words the small codes of
 * DNA fall in distinct banks.
 */
#ifndef NW_GPU_THIN_DP_CUH
#define NW_GPU_THIN_DP_CUH

#include <stdint.h>

#include "nwalign.h"
#include "dp_cell.cuh"

#define NW_THIN_LOW (-16384)
#define NW_THIN_HIGH 32767
#define NW_THIN_WMAX 128  /* diagonals of a band at most (shared memory a thread) */
#define NW_THIN_DSTRIDE 32 /* direction words of a warp's problems interleave */
#define NW_THIN_TAB_ROW 36 /* substitution table: tab[q * NW_THIN_TAB_ROW + r] */

/* True values of a problem lie in [-low, high] (borders -(top_open + j E), -(left_open + i E)
 * and gaps of O + k E): may it run in 16-bit slots above NW_THIN_LOW? */
NW_HD bool nw_thin_fits(int64_t open_max, int64_t O, int64_t E, int64_t m, int64_t n, int64_t high)
{
	const int64_t low = open_max + 2 * O + (m + n + 2) * E, slack = 64;
	return low < -(int64_t)NW_THIN_LOW - slack && high < NW_THIN_HIGH - slack;
}

/* Power of two >= W: the code ring of a thread. */
NW_HD int32_t nw_thin_ring(int32_t W)
{
	int32_t p = 8;
	while (p < W) p *= 2;
	return p;
}

NW_HD uint32_t nw_thin_pack(int32_t h, int32_t f)
{
	h = h > NW_THIN_LOW ? h : NW_THIN_LOW;
	f = f > NW_THIN_LOW ? f : NW_THIN_LOW;
	return (uint32_t)(h & 0xffff) | (uint32_t)f << 16;
}
NW_HD int32_t nw_thin_h(uint32_t w) { return (int32_t)(int16_t)(uint16_t)(w & 0xffffu); }
NW_HD int32_t nw_thin_f(uint32_t w) { return (int32_t)w >> 16; }

/* One problem: row i's code q[(i - 1) * qstep], column j's r[(j - 1) * rstep]; the band is
 * the W diagonals from dlo; borders H[0][j] = -(top_open + j E), H[i][0] = -(left_open + i E). */
struct nw_thin_prob {
	const uint8_t *q, *r;
	int32_t qstep, rstep;
	int32_t m, n, dlo, W;
	int32_t top_open, left_open;
};

/* Where a thread keeps its band row: H|F slots and the code ring, stride apart. */
struct nw_thin_mem {
	uint32_t *hf;     /* W + 1 slots (slot W stays off the band) */
	uint8_t *ring;    /* nw_thin_ring(W) codes */
	int32_t stride;
};

struct nw_thin {
	nw_thin_prob pb;
	nw_thin_mem mem;
	const int32_t *tab;   /* tab[q * NW_THIN_TAB_ROW + r] */
	int32_t O, E;
	uint32_t *dir;        /* the problem's first direction word */
	int32_t words;        /* direction words a row */
	int32_t corner_h, corner_f;

	NW_HD int32_t left(int32_t i) const { return i == 0 ? 0 : -(pb.left_open + i * E); }
	NW_HD int32_t topb(int32_t j) const { return j == 0 ? 0 : -(pb.top_open + j * E); }
	NW_HD uint8_t rcode(int32_t j) const { return j >= 1 && j <= pb.n ? pb.r[(int64_t)(j - 1) * pb.rstep] : 0; }
	NW_HD uint32_t &slot(int32_t x) const { return mem.hf[x * mem.stride]; }
	/* Column j's code, at j - dlo in the ring: i + x for cell (i, x), the same for all threads
	 * of a warp at the same step, so that they read one row of the ring (no bank conflicts). */
	NW_HD uint8_t &code(int32_t j, int32_t rmask) const { return mem.ring[((j - pb.dlo) & rmask) * mem.stride]; }

	/* The running state of a row: what cell x needs from the cells before it. */
	struct row_state {
		int32_t diag, hleft, ein;
	};

	/* Cell (i, j = j0 + x): its direction nibble. */
	NW_HD uint32_t cell(row_state &st, int32_t x, int32_t sc) const
	{
		const uint32_t up = slot(x + 1);
		const int32_t OX = O + E, hup = nw_thin_h(up), uo = hup - OX;
		const int32_t f = nw_thin_f(up) - E > uo ? nw_thin_f(up) - E : uo; /* F[i][j] */
		int32_t hh = st.diag + sc, src = 0;
		if (st.ein > hh) hh = st.ein, src = 1;
		if (f > hh) hh = f, src = 2;
		const uint32_t nib = (uint32_t)src | (st.ein > st.hleft - OX ? 4u : 0u) | (f > uo ? 8u : 0u);
		const int32_t ho = hh - OX;
		slot(x) = nw_thin_pack(hh, f);
		st.ein = st.ein - E > ho ? st.ein - E : ho; /* E[i][j+1] */
		st.diag = hup;
		st.hleft = hh;
		return nib;
	}

	NW_HD void run()
	{
		const int32_t W = pb.W, rmask = nw_thin_ring(W) - 1;
		for (int32_t x = 0; x <= W; x++) { /* row 0 */
			const int32_t j = pb.dlo + x;
			slot(x) = nw_thin_pack(x == W || j < 0 ? NW_THIN_LOW : topb(j), NW_THIN_LOW);
			if (x < W && j >= 1) code(j, rmask) = rcode(j);
		}
		for (int32_t i = 1; i <= pb.m; i++) {
			const int32_t j0 = i + pb.dlo; /* column of slot 0 */
			const int32_t dend = W < pb.n - j0 + 1 ? W : pb.n - j0 + 1;
			if (dend <= 0) continue; /* (a band that holds the corner never gets here) */
			const int32_t dbeg = 1 - j0 > 0 ? 1 - j0 : 0;
			if (j0 + W - 1 >= 1) code(j0 + W - 1, rmask) = rcode(j0 + W - 1); /* the column entering */
			const int32_t *trow = tab + NW_THIN_TAB_ROW * pb.q[(int64_t)(i - 1) * pb.qstep];
			row_state st;
			st.diag = dbeg < W ? nw_thin_h(slot(dbeg)) : 0;
			for (int32_t x = 0; x < dbeg && x < W; x++) /* column 0 and what lies left of it */
				slot(x) = nw_thin_pack(j0 + x == 0 ? left(i) : NW_THIN_LOW, NW_THIN_LOW);
			st.hleft = j0 + dbeg - 1 == 0 ? left(i) : NW_THIN_LOW;
			st.ein = st.hleft - (O + E);
			row(st, i, j0, dbeg, dend, trow, rmask);
			if (i == pb.m && pb.n - j0 >= 0 && pb.n - j0 < W) {
				const uint32_t c = slot(pb.n - j0);
				corner_h = nw_thin_h(c), corner_f = nw_thin_f(c);
			}
		}
	}

	/* Slots [dbeg, dend) of row i, their nibbles 8 a word. */
	NW_HD void row(row_state &st, int32_t i, int32_t j0, int32_t dbeg, int32_t dend, const int32_t *trow, int32_t rmask)
	{
		uint32_t *out = dir + (int64_t)(i - 1) * words * NW_THIN_DSTRIDE;
		for (int32_t w = dbeg >> 3; w * 8 < dend; w++) {
			uint32_t word = 0;
			const int32_t x0 = w * 8;
			if (x0 >= dbeg && x0 + 8 <= dend) {
#pragma unroll
				for (int u = 0; u < 8; u++) word |= cell(st, x0 + u, trow[code(j0 + x0 + u, rmask)]) << (4 * u);
			} else {
				for (int u = 0; u < 8; u++) {
					const int32_t x = x0 + u;
					if (x >= dbeg && x < dend) word |= cell(st, x, trow[code(j0 + x, rmask)]) << (4 * u);
				}
			}
			out[(int64_t)w * NW_THIN_DSTRIDE] = word;
		}
	}
};

#endif
