/* gpu_long.cu: one long pair on the whole GPU, in memory linear in the lengths.
 *
 * The (padded) matrix is cut into tile rows of TR = 32 * NW_LONG_R rows; a warp sweeps a
 * tile (nw_long_sweep: R rows a thread, the row above by shuffle, as in the batch kernel).
 * Two launch forms share that sweep:
 *  - the staircase (few tile rows, such as two sequences of tens of kilobases): one launch,
 *    a warp a tile row over all its columns, each tile row a few dozen steps behind the one
 *    above, whose bottom row it reads as it is written (nw_long_rows_kernel);
 *  - anti-diagonals of TR x TR tiles (megabases), a launch each (nw_long_diag_kernel).
 * Between tiles, borders live in global memory:
 *   rowbuf[j]  H and F below the last tile done in the tile column of j (top input); with
 *              the linear cell, H and the tag of the tile row that wrote it (TAGGED),
 *   colbuf[i]  H and E right of the last tile done in the tile row of i (left input),
 *   corner[ti] H[ti*TR][first column - 1] for the next tile of tile row ti (saved by the
 *              tile to its left before rowbuf is overwritten),
 *   rowbest[ti] the running result of tile row ti (max tracking, or the last row).
 * rowbuf is read by other SMs than the one that wrote it: those reads skip the L1 cache
 * (nw_ld_cg). A thread type (nw_lthread) fixes the lanes (int32, or int64 when the bounds
 * need it), the kind of pass, the scorer (a table, or PRMT for 2-bit DNA) and the cell
 * (affine, or linear when gap opening is 0); nw_long_pick() says which runs.
 */
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "gpu_internal.cuh"

#ifndef NW_LONG_WARPS /* a build may set it to measure other block sizes (bench/RESULTS.md) */
#define NW_LONG_WARPS 2 /* tiles (warps) per block */
#endif
#define NW_LONG_STAIR_ROWS_PER_SM 2 /* the staircase up to this many tile rows an SM */
#define NW_LONG_DIAG_BLOCKS 16 /* anti-diagonal kernel: blocks an SM (64 registers a thread), so that
				* the longest anti-diagonal of 1 Mb x 1 Mb (3,906 tiles, 1,953 blocks)
				* runs in one wave on 132 SMs */
#define NW_LONG_BAND_BLOCKS 4  /* the same for the banded reverse local pass, whose launches hold
				* the few tiles of the band: registers for a step without branches */

/* A load of data another SM wrote during this launch: from L2, not a stale L1 line. */
template <class V>
NW_HD V nw_ld_cg(const V *p)
{
#ifdef __CUDA_ARCH__
	return __ldcg(p);
#else
	return *p;
#endif
}

/* Relaxed (strong, gpu-scope) 64-bit accesses: a naturally aligned 64-bit access is
 * single-copy atomic, so a reader sees both halves of one store or neither. */
NW_HD uint64_t nw_ld_relaxed64(const uint64_t *p)
{
#ifdef __CUDA_ARCH__
	uint64_t v;
	asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
#else
	return *p;
#endif
}
/* The store only where on is true, as one predicated instruction: no branch in a step. */
NW_HD void nw_st_relaxed64_if(bool on, uint64_t *p, uint64_t v)
{
#ifdef __CUDA_ARCH__
	asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %2, 0;\n\t@q st.relaxed.gpu.global.u64 [%0], %1;\n\t}"
		     :
		     : "l"(p), "l"(v), "r"((uint32_t)on)
		     : "memory");
#else
	if (on) *p = v;
#endif
}

/* p[0] = a, p[1] = b where on is true, as one predicated vector store on the device (no
 * branch in a step); p is aligned to the pair's size. */
template <class V>
NW_HD void nw_st_pair_if(bool on, V *p, V a, V b)
{
#ifdef __CUDA_ARCH__
	if (sizeof(V) == 4)
		asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t@q st.global.v2.u32 [%1], {%2, %3};\n\t}"
			     :
			     : "r"((uint32_t)on), "l"(p), "r"((uint32_t)a), "r"((uint32_t)b)
			     : "memory");
	else
		asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t@q st.global.v2.u64 [%1], {%2, %3};\n\t}"
			     :
			     : "r"((uint32_t)on), "l"(p), "l"((uint64_t)a), "l"((uint64_t)b)
			     : "memory");
#else
	if (on) p[0] = a, p[1] = b;
#endif
}

/* A lower bound of H[i][j] in a pass with global borders (the reverse passes): the path
 * along the top border to column j, then down column j to row i. Padding rows (i <= 0)
 * copy the top border. */
NW_HD int64_t nw_long_bound(const nw_dp_rules &ru, int64_t O, int64_t E, int64_t i, int64_t j)
{
	if (i <= 0) return nw_top_border(ru, O, E, j);
	return nw_top_border(ru, O, E, j) + nw_left_border(ru, O, E, i);
}

/* One thread of a long kernel: lane type L, kernel class KC (0 local, 1 reverse local, 2
 * last row), scorer SC (nw_sc_tab1<L> or nw_sc_dna4<L>) and cell form CELL (NW_CELL_FCHAIN,
 * or NW_CELL_LINEAR when gap opening is 0). */
template <class L, int KC, class SCT, int CELL>
struct nw_lthread {
	typedef L LT;
	typedef typename L::V V;
	typedef SCT SC;
	enum { R = NW_LONG_R };
	static const bool RELU = KC == 0;
	static const bool TRACK = KC != 2;
	/* The reverse local pass runs banded: a launch holds the band's few tiles, one warp an SM,
	 * and its steps wait on their own latency, so they take no branch (predicated tracker
	 * and stores) and may use more registers (NW_LONG_BAND_BLOCKS). */
	static const bool NOBRANCH = KC == 1;
	enum { DIAG_BLOCKS = NOBRANCH ? NW_LONG_BAND_BLOCKS : NW_LONG_DIAG_BLOCKS };
	static const bool LINEAR = CELL == NW_CELL_LINEAR; /* no F: nothing to pass or store */
	/* The bottom row goes out as one 64-bit word a column, H and the tag ti + 1 of the tile
	 * row that wrote it (the F slot is free): the staircase's next tile row waits on the tag
	 * itself, with no flag and no memory fence (nw_long_sweep). 32-bit lanes only. */
	static const bool TAGGED = LINEAR && sizeof(V) == 4;

	int t;
	int64_t ti, tj, i0, j0, j1;
	nw_dp_rules ru;
	int32_t O, E;
	V neg_oe, neg_e;
	SC sc;
	V *rowbuf, *colbuf, *corner, *snap;
	nw_sweep<SC, R, RELU, CELL> sw; /* a warp or two an SM: steps wait on the chain down the rows */
	nw_tracker<L, R, NOBRANCH> tr;
	bool lastrow; /* the last tile row of a last-row pass: its bottom row is the result's */

	NW_HD V lb(int64_t real) const { return (V)(real >= 1 ? nw_left_border(ru, O, E, real) : 0); }
	NW_HD V top(int64_t j) const { return (V)nw_top_border(ru, O, E, j); }

	NW_HD void init(const nw_lparams_t &p, const int32_t *tab, int64_t ti_, int t_, V *snap_)
	{
		t = t_;
		ti = ti_;
		tj = p.d - ti;
		ru = nw_rules(p.kind);
		O = p.O;
		E = p.E;
		neg_oe = (V)(-(O + E));
		neg_e = (V)(-E);
		sc.tab = tab;
		rowbuf = (V *)p.rowbuf;
		colbuf = (V *)p.colbuf;
		corner = (V *)p.corner;
		snap = snap_;
		j0 = tj * p.TC + 1;
		j1 = j0 + p.TC - 1 < p.job.n ? j0 + p.TC - 1 : p.job.n;
		i0 = ti * NW_LONG_TR + (int64_t)t * R + 1;
#pragma unroll
		for (int r = 0; r < R; r++) {
			int64_t ip = i0 + r, real = ip - p.P;
			int c = real >= 1 ? p.qcodes[p.job.qbase + (real - 1) * p.job.qstep] : -1;
			sw.q[r] = sc.row(c, 0);
			if (tj == 0) {
				sw.h[r] = lb(real);
				sw.e[r] = sw.h[r] + neg_oe;
			} else {
				sw.h[r] = colbuf[2 * ip];
				sw.e[r] = colbuf[2 * ip + 1];
			}
		}
		int64_t ipd = i0 - 1;
		if (t > 0) sw.hdiag = tj == 0 ? lb(ipd - p.P) : colbuf[2 * ipd];
		else if (ti == 0) sw.hdiag = top(j0 - 1);
		else sw.hdiag = tj == 0 ? lb(ipd - p.P) : corner[ti];
		if (TRACK) tr.reset();
		lastrow = !TRACK && ti == p.nti - 1;
	}

	NW_HD void step(const nw_lparams_t &p, int64_t k, V hin, V fin, V &hout, V &fout)
	{
		int64_t j = j0 + k - t;
		if (j < j0 || j > j1) return;
		if (t == 0) {
			if (ti == 0) {
				hin = top(j);
				fin = hin + neg_oe;
			} else {
				hin = rowbuf[2 * j]; /* written by an earlier launch */
				fin = rowbuf[2 * j + 1];
			}
			if (j == j1) corner[ti] = hin; /* H[ti*TR][j1] for tile (ti, tj+1) */
		}
		advance(p, (int32_t)(j - j0), hin, fin, sc.colword(rcode(p, j), 0), hout, fout);
	}

	/* The reference code of column j (sc.colword() makes it a scorer word). */
	NW_HD int rcode(const nw_lparams_t &p, int64_t j) const { return p.rcodes[p.job.rbase + (j - 1) * p.job.rstep]; }

	/* Column j0 + c (0 <= c <= j1 - j0) with its inputs at hand: the row above (for t == 0,
	 * the top border or rowbuf) and the column's scorer word. */
	NW_HD void advance(const nw_lparams_t &p, int32_t c, V hin, V fin, uint32_t cw, V &hout, V &fout)
	{
		sw.step(sc, cw, hin, fin, neg_oe, neg_e, hout, fout);
		if (TAGGED) {
			nw_st_relaxed64_if(t == 31, (uint64_t *)&rowbuf[2 * (j0 + c)], (uint64_t)(ti + 1) << 32 | (uint32_t)hout);
		} else if (!TRACK || NOBRANCH) { /* steps without a branch */
			nw_st_pair_if(t == 31, &rowbuf[2 * (j0 + c)], hout, fout);
		} else if (t == 31) { /* the tracker branches anyway (nw_tracker's PRED) */
			rowbuf[2 * (j0 + c)] = hout;
			rowbuf[2 * (j0 + c) + 1] = fout;
		}
		if (TRACK) tr.see(sw.h, sw.colmax(), j0 + c, snap);
	}

	/* After the sweep (and a warp barrier): right column out, my candidate: max tracking,
	 * the best of my rows; the last tile row of a last-row pass, the best of the matrix's last
	 * row over my columns of the tile (t, t + 32, ...), which thread 31 left in rowbuf (read
	 * here rather than compared step by step, so that the steps carry no branch for it). */
	NW_HD nw_cand end(const nw_lparams_t &p)
	{
#pragma unroll
		for (int r = 0; r < R; r++) {
			int64_t ip = i0 + r;
			colbuf[2 * ip] = sw.h[r];
			colbuf[2 * ip + 1] = sw.e[r];
		}
		nw_cand c;
		c.v = INT64_MIN, c.j = 0, c.i = 0;
		if (TRACK && tr.bj[0] >= 1) {
			c.v = (int64_t)tr.best;
			c.j = tr.bj[0];
			c.i = i0 + tr.row(0, snap) - p.P;
		}
		if (lastrow) {
			const int64_t jlo = ru.last_all ? 0 : p.job.n;
			for (int64_t j = j0 + t; j <= j1; j += 32)
				if (j >= jlo) nw_cand_merge(c, nw_cand{(int64_t)nw_ld_cg(&rowbuf[2 * j]), j, p.job.m});
		}
		return c;
	}
};

/* Shared memory of a long kernel block: the score table, and each thread's snapshot of its
 * rows for max tracking. load(): the table, read by the whole block (a barrier). */
template <class L>
struct nw_long_smem {
	int32_t tab[NW_TAB_DIM * NW_TAB_DIM];
	__align__(16) typename L::V snaps[32 * NW_LONG_WARPS * NW_SNAP_WORDS(L, NW_LONG_R)];
	__device__ void load(const int32_t *table)
	{
		for (int x = threadIdx.x; x < NW_TAB_DIM * NW_TAB_DIM; x += blockDim.x) tab[x] = table[x];
		__syncthreads();
	}
	__device__ typename L::V *snap() { return snaps + threadIdx.x * NW_SNAP_WORDS(L, NW_LONG_R); }
};

/* After a tile's sweep: its right column out, and (max tracking) the warp's best cell
 * merged into its tile row's. */
template <class T>
__device__ void nw_long_tile_end(T &th, const nw_lparams_t &p, int64_t ti, int t)
{
	nw_cand c = th.end(p);
	if (T::TRACK || th.lastrow) {
		for (int off = 16; off > 0; off >>= 1) {
			nw_cand o;
			o.v = __shfl_xor_sync(0xffffffffu, c.v, off);
			o.j = __shfl_xor_sync(0xffffffffu, c.j, off);
			o.i = __shfl_xor_sync(0xffffffffu, c.i, off);
			nw_cand_merge(c, o);
		}
		if (t == 0) nw_cand_merge(p.rowbest[ti], c);
	}
}

/* 32 steps of a tile's sweep: thread 0 at columns g .. g + 31 of the tile (offsets from
 * th.j0), thread t t columns behind. gh, gf, cw: lane x holds the row above and the scorer
 * word of column g + x (cw_prev: of column g - 32 + x). CHECK: some thread is outside the
 * tile at some step (the first and the last groups); elsewhere no step tests its column.
 * Unrolled by 8, not 32: the full unroll took 80 to 148 registers, which cut the
 * anti-diagonal kernel's blocks an SM below what the longest anti-diagonals need. */
template <bool CHECK, bool STAIR, class T>
__device__ __forceinline__ void nw_long_group(T &th, const nw_lparams_t &p, uint32_t *done, uint32_t g, uint32_t ncols,
					      typename T::V gh, typename T::V gf, uint32_t cw_cur, uint32_t cw_prev,
					      typename T::V &hout, typename T::V &fout)
{
	typedef typename T::V V;
	const int t = th.t;
#pragma unroll 8
	for (int s = 0; s < 32; s++) {
		V hin = __shfl_up_sync(0xffffffffu, hout, 1), fin = 0, f0 = 0;
		const V h0 = __shfl_sync(0xffffffffu, gh, s);
		if (!T::LINEAR) {
			fin = __shfl_up_sync(0xffffffffu, fout, 1);
			f0 = __shfl_sync(0xffffffffu, gf, s);
		}
		const int x = s - t; /* my column is g + x; its word is in lane x & 31 */
		const uint32_t wa = __shfl_sync(0xffffffffu, cw_cur, x & 31);
		const uint32_t wb = __shfl_sync(0xffffffffu, cw_prev, x & 31);
		const int32_t c = (int32_t)g + x;
		if (t == 0) {
			hin = h0, fin = f0;
			if (!STAIR && CHECK && c == (int32_t)ncols - 1) th.corner[th.ti] = hin; /* H[ti*TR][j1] for tile (ti, tj+1) */
		}
		if (!CHECK || (c >= 0 && c < (int32_t)ncols)) th.advance(p, c, hin, fin, x >= 0 ? wa : wb, hout, fout);
		/* publish my bottom row every 32 columns (at s == 30, c + 1 = g) and at the end: fewer
		 * publications cost more lag than their fences save (H200) */
		if (STAIR && !T::TAGGED && t == 31 && c >= 0 &&
		    ((s == 30 && c < (int32_t)ncols) || (CHECK && c == (int32_t)ncols - 1))) {
			__threadfence();
			atomicExch(done + th.ti, (uint32_t)(c + 1));
		}
	}
}

/* One tile's sweep, columns th.j0 .. th.j1 of tile row th.ti, shared by both kernels.
 * Columns go in groups of 32: for each group the warp loads, one column a lane, the scorer
 * words and (for thread 0) the row above, and hands them out by shuffles, so that no step
 * waits on memory. The reference codes of the next group are loaded a group ahead (and made
 * scorer words only when their group starts, so that nothing waits on the load early).
 *
 * STAIR (the staircase, j0 = 1): the row above is written by tile row ti - 1 during this
 * launch, on another SM. Affine: thread 0 waits until done[ti - 1] covers the group before
 * the warp loads it, and thread 31 publishes its bottom row every 32 columns (done[ti] is
 * the number of columns published); each publication costs a memory fence, which stalls
 * the warp, while a longer span delays the tile row below. Linear (T::TAGGED): each column
 * of the row above is one 64-bit word with the tag of the tile row that wrote it, and the
 * lanes reload their columns until every tag says ti - 1: no flag, no fence, and one round
 * trip to L2 when the data is there. The buffer starts zeroed (no tile row's tag), and a
 * tile row overwrites a column only after its own thread 0 has read it.
 *
 * Otherwise (anti-diagonals) the row above was written by an earlier launch, and thread 0
 * saves the corner of the next tile of its tile row before thread 31 overwrites it. (Loading
 * that row a group ahead too cost the 64-register kernel spills and gained nothing.) Column
 * offsets are 32-bit (a tile has at most 2^31 - 1 columns), absolute columns 64-bit. */
template <class T, bool STAIR>
__device__ void nw_long_sweep(T &th, const nw_lparams_t &p, uint32_t *done)
{
	typedef typename T::V V;
	const int t = th.t;
	const int64_t ti = th.ti, j0 = th.j0;
	const uint32_t ncols = (uint32_t)(th.j1 - j0 + 1);
	const V *above = (const V *)p.rowbuf + 2 * j0; /* the row above, by column offset */
	/* the row above at column offset col (H, and F unless the cell is linear) */
	auto load_above = [&](uint32_t col, V &h, V &f) {
		if (col >= ncols) return;
		if (ti == 0) {
			h = th.top(j0 + col);
			f = h + th.neg_oe;
		} else if (STAIR && T::TAGGED) {
			const uint64_t *w = (const uint64_t *)&above[2 * (size_t)col];
			uint64_t v;
			while (((v = nw_ld_relaxed64(w)) >> 32) != (uint64_t)ti) {}
			h = (V)(uint32_t)v;
		} else {
			h = nw_ld_cg(&above[2 * (size_t)col]);
			if (!T::LINEAR) f = nw_ld_cg(&above[2 * (size_t)col + 1]);
		}
	};
	V hout = 0, fout = 0, gh = 0, gf = 0;
	int code_next = (uint32_t)t < ncols ? th.rcode(p, j0 + t) : 0;
	uint32_t cw_prev = 0, cw_cur = 0;
	uint32_t avail = 0; /* columns of tile row ti - 1 known to be published (thread 0) */
	for (uint32_t g = 0; g < ncols + 31; g += 32) {
		const uint32_t col = g + t; /* the column I load for the group */
		if (STAIR && !T::TAGGED && g < ncols && ti > 0) {
			const uint32_t need = g + 32 < ncols ? g + 32 : ncols;
			if (t == 0 && avail < need) {
				const volatile uint32_t *up = done + ti - 1;
				while ((avail = *up) < need) __nanosleep(32);
				__threadfence();
			}
			__syncwarp();
		}
		cw_prev = cw_cur;
		cw_cur = th.sc.colword(code_next, 0);
		if (col + 32 < ncols) code_next = th.rcode(p, j0 + col + 32);
		load_above(col, gh, gf);
		if (STAIR && T::TAGGED) __syncwarp();
		if (g >= 32 && g + 32 < ncols)
			nw_long_group<false, STAIR>(th, p, done, g, ncols, gh, gf, cw_cur, cw_prev, hout, fout);
		else
			nw_long_group<true, STAIR>(th, p, done, g, ncols, gh, gf, cw_cur, cw_prev, hout, fout);
	}
	__syncwarp();
}

/* One anti-diagonal of TR x TC tiles (p.d), a warp a tile, tile rows p.tlo .. p.thi: for
 * problems with more tile rows than the GPU holds warps, where the staircase below would
 * lag by TC + 31 steps a row. */
template <class T>
__global__ void __launch_bounds__(32 * NW_LONG_WARPS, T::DIAG_BLOCKS) nw_long_diag_kernel(const nw_lparams_t p)
{
	__shared__ nw_long_smem<typename T::LT> sm;
	sm.load(p.table);
	int64_t ti = p.tlo + (int64_t)blockIdx.x * NW_LONG_WARPS + threadIdx.x / 32;
	if (ti > p.thi) return; /* whole warp */
	const int t = threadIdx.x & 31;
	T th;
	th.init(p, sm.tab, ti, t, sm.snap());
	__syncwarp(); /* everyone has read colbuf before anyone writes it */
	nw_long_sweep<T, false>(th, p, NULL);
	nw_long_tile_end(th, p, ti, t);
}

/* The whole problem in one launch (problems with fewer tile rows than the GPU holds
 * warps, such as two sequences of tens of kilobases). A warp takes a tile row (from
 * *counter, in order) and sweeps all its columns as one tile (TC = n), without restarting
 * the wavefront; tile rows wait on the one above (nw_long_sweep, STAIR). */
template <class T>
__global__ void __launch_bounds__(32 * NW_LONG_WARPS) nw_long_rows_kernel(nw_lparams_t p, uint32_t *counter,
									   uint32_t *done)
{
	__shared__ nw_long_smem<typename T::LT> sm;
	sm.load(p.table);
	const int t = threadIdx.x & 31;
	for (;;) {
		uint32_t ti = 0;
		if (t == 0) ti = atomicAdd(counter, 1u);
		ti = __shfl_sync(0xffffffffu, ti, 0);
		if ((int64_t)ti >= p.nti) return; /* whole warp */
		p.d = ti; /* tile column 0: the whole row */
		T th;
		th.init(p, sm.tab, ti, t, sm.snap());
		__syncwarp();
		nw_long_sweep<T, true>(th, p, done);
		nw_long_tile_end(th, p, ti, t);
	}
}

/* Banded passes start from borders that are lower bounds of every cell they stand for
 * (the band argument of src/band.h needs no more: cells off the band may be left lower
 * than their true values). Tiles off the band are never computed, so a tile at the edge of
 * the band reads these bounds where its neighbour would have written: rowbuf[j] holds
 * H[m][j], colbuf[i] H[i][n] (each below every cell of its column or row: a path of gaps
 * from the origin), corner the lowest of them, and E and F a gap opening below. */
template <class V>
NW_HD void nw_long_bound_fill(const nw_lparams_t &p, int64_t x)
{
	const nw_dp_rules ru = nw_rules(p.kind);
	const int64_t O = p.O, E = p.E, m = p.job.m, n = p.job.n;
	V *rowbuf = (V *)p.rowbuf, *colbuf = (V *)p.colbuf, *corner = (V *)p.corner;
	if (x <= n) {
		const int64_t h = nw_long_bound(ru, O, E, m, x);
		rowbuf[2 * x] = (V)h, rowbuf[2 * x + 1] = (V)(h - O - E);
	}
	if (x <= p.Mp) {
		const int64_t h = nw_long_bound(ru, O, E, x - p.P, n);
		colbuf[2 * x] = (V)h, colbuf[2 * x + 1] = (V)(h - O - E);
	}
	if (x < p.nti) corner[x] = (V)nw_long_bound(ru, O, E, m, n);
}

static NW_HD int64_t nw_long_bound_count(const nw_lparams_t &p)
{
	const int64_t k = (p.job.n > p.Mp ? p.job.n : p.Mp) + 1;
	return k > p.nti ? k : p.nti;
}

template <class V>
__global__ void nw_long_bound_kernel(const nw_lparams_t p)
{
	const int64_t stride = (int64_t)gridDim.x * blockDim.x, count = nw_long_bound_count(p);
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += stride)
		nw_long_bound_fill<V>(p, x);
}

/* ---------------------------------------------------------------- host side */
static void nw_long_geometry(const nw_job_t *job, int32_t TC, nw_lparams_t *p)
{
	p->job = *job;
	p->TC = TC;
	p->nti = (job->m + NW_LONG_TR - 1) / NW_LONG_TR;
	p->Mp = p->nti * NW_LONG_TR;
	p->P = p->Mp - job->m;
	p->ntj = (job->n + TC - 1) / TC;
}

static void nw_long_rowbest_init(const nw_lparams_t *p, std::vector<nw_cand> &rb)
{
	nw_dp_rules ru = nw_rules(p->kind);
	rb.assign((size_t)p->nti, nw_cand{INT64_MIN, 0, 0});
	if (!ru.track) {
		nw_cand &c = rb[(size_t)p->nti - 1];
		c.v = ru.last_all ? nw_left_border(ru, p->O, p->E, p->job.m) : INT64_MIN;
		c.j = 0;
		c.i = p->job.m;
	}
}

static void nw_long_result(const nw_lparams_t *p, const std::vector<nw_cand> &rb, nw_dp_out *out)
{
	nw_dp_rules ru = nw_rules(p->kind);
	nw_cand c = rb[(size_t)p->nti - 1];
	if (ru.track) {
		for (size_t x = 0; x < rb.size(); x++) nw_cand_merge(c, rb[x]);
		if (ru.relu && c.v <= 0) c.v = 0, c.i = c.j = 0;
	}
	out->score = c.v;
	out->i = c.i;
	out->j = c.j;
	out->overflow = 0;
	out->pad_ = 0;
}

/* Reverse passes know their score, so only the tiles that meet its band [job.dlo, job.dhi]
 * are computed. */
static bool nw_long_banded(int kind) { return kind == NW_DP_REV_LOCAL || kind == NW_DP_REV_SEMI; }

/* The tile rows that launch d computes: every tile of anti-diagonal d, or (banded) those
 * that meet the band. Along an anti-diagonal the tiles' diagonals j - i fall as ti grows,
 * so those tiles are one run, found by two binary searches. */
static void nw_long_diag_rows(nw_lparams_t *p, int64_t d)
{
	int64_t lo = d - (p->ntj - 1) > 0 ? d - (p->ntj - 1) : 0;
	int64_t hi = d < p->nti - 1 ? d : p->nti - 1;
	if (nw_long_banded(p->kind) && lo <= hi) {
		const int64_t TR = NW_LONG_TR, TC = p->TC, n = p->job.n;
		/* the tile's lowest diagonal is at most dhi (the tile is not right of the band) */
		auto below_top = [&](int64_t ti) { return (d - ti) * TC + 1 - ((ti + 1) * TR - p->P) <= p->job.dhi; };
		/* its highest diagonal is at least dlo (the tile is not left of the band) */
		auto above_bottom = [&](int64_t ti) {
			const int64_t j1 = std::min((d - ti) * TC + TC, n), i0 = std::max<int64_t>(1, ti * TR + 1 - p->P);
			return j1 - i0 >= p->job.dlo;
		};
		int64_t a = lo, b = hi + 1; /* first ti with below_top */
		while (a < b) {
			const int64_t c = a + (b - a) / 2;
			if (below_top(c)) b = c;
			else a = c + 1;
		}
		int64_t first = a;
		a = lo - 1, b = hi; /* last ti with above_bottom */
		while (a < b) {
			const int64_t c = b - (b - a) / 2;
			if (above_bottom(c)) a = c;
			else b = c - 1;
		}
		lo = first, hi = a;
	}
	p->d = d, p->tlo = lo, p->thi = hi;
}

template <class T>
static int nw_long_go(nw_gpu_t *g, nw_lparams_t *p, nw_dp_out *out, float *ms)
{
	typedef typename T::V V;
	size_t nrow = 2 * ((size_t)p->job.n + 1), ncol = 2 * ((size_t)p->Mp + 1), ncor = (size_t)p->nti;
	size_t nflag = (size_t)p->nti + 1; /* done[nti], then the tile-row counter */
	size_t bytes = (size_t)p->nti * sizeof(nw_cand) + (nrow + ncol + ncor) * sizeof(V) + 4 * nflag + 32;
	NW_TRY(nw_dbuf_reserve(g, &g->lbuf, bytes));
	char *base = (char *)g->lbuf.p;
	p->rowbest = (nw_cand *)base;
	p->rowbuf = base + ((size_t)p->nti * sizeof(nw_cand) + 15) / 16 * 16; /* pairs: 16-byte stores */
	p->colbuf = (V *)p->rowbuf + nrow;
	p->corner = (V *)p->colbuf + ncol;
	uint32_t *done = (uint32_t *)(((uintptr_t)((V *)p->corner + ncor) + 15) & ~(uintptr_t)15);
	std::vector<nw_cand> rb;
	nw_long_rowbest_init(p, rb);
	NW_CUDA_CHECK(g, cudaMemcpyAsync(p->rowbest, rb.data(), rb.size() * sizeof(nw_cand),
					 cudaMemcpyHostToDevice, g->stream));
	const bool diag = p->ntj > 1;
	int per_sm = 0;
	if (!diag) {
		NW_CUDA_CHECK(g, cudaMemsetAsync(done, 0, 4 * nflag, g->stream));
		if (T::TAGGED) /* no column carries a tile row's tag yet */
			NW_CUDA_CHECK(g, cudaMemsetAsync(p->rowbuf, 0, nrow * sizeof(V), g->stream));
		NW_CUDA_CHECK(g, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, nw_long_rows_kernel<T>,
										 32 * NW_LONG_WARPS, 0));
	}
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev[0], g->stream));
	if (diag) { /* anti-diagonals of tiles, a launch each */
		if (nw_long_banded(p->kind)) {
			nw_long_bound_kernel<V><<<4 * g->n_sm, 256, 0, g->stream>>>(*p);
			NW_LAUNCH_CHECK(g);
		}
		for (int64_t d = 0; d < p->nti + p->ntj - 1; d++) {
			nw_long_diag_rows(p, d);
			if (p->tlo > p->thi) continue;
			int64_t blocks = (p->thi - p->tlo + 1 + NW_LONG_WARPS - 1) / NW_LONG_WARPS;
			nw_long_diag_kernel<T><<<(unsigned)blocks, 32 * NW_LONG_WARPS, 0, g->stream>>>(*p);
			NW_LAUNCH_CHECK(g);
		}
	} else { /* the staircase: as many warps as can be resident, at most one a tile row */
		int64_t blocks = std::min<int64_t>((p->nti + NW_LONG_WARPS - 1) / NW_LONG_WARPS,
						   (int64_t)std::max(per_sm, 1) * g->n_sm);
		nw_long_rows_kernel<T><<<(unsigned)blocks, 32 * NW_LONG_WARPS, 0, g->stream>>>(*p, done + p->nti, done);
		NW_LAUNCH_CHECK(g);
	}
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev[1], g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(rb.data(), p->rowbest, rb.size() * sizeof(nw_cand),
					 cudaMemcpyDeviceToHost, g->stream));
	NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	float t = 0;
	NW_CUDA_CHECK(g, cudaEventElapsedTime(&t, g->ev[0], g->ev[1]));
	*ms += t;
	nw_long_result(p, rb, out);
	return 0;
}

/* Host emulation of one launch (anti-diagonal p->d) over host buffers: the same tiles
 * and warps, one thread at a time, shuffles replayed from the previous step's outputs. */
template <class T>
static void nw_long_emul_launch(const nw_lparams_t *p)
{
	typedef typename T::LT L;
	typedef typename T::V V;
	std::vector<V> snaps(32 * NW_SNAP_WORDS(L, NW_LONG_R)), hout(32), fout(32), hin(32), fin(32);
	std::vector<T> th(32);
	for (int64_t ti = p->tlo; ti <= p->thi; ti++) {
		for (int l = 0; l < 32; l++) th[l].init(*p, p->table, ti, l, &snaps[l * NW_SNAP_WORDS(L, NW_LONG_R)]);
		for (int l = 0; l < 32; l++) hout[l] = fout[l] = 0;
		int64_t steps = th[0].j1 - th[0].j0 + 1 + 31;
		for (int64_t k = 0; k < steps; k++) {
			for (int l = 0; l < 32; l++) {
				hin[l] = hout[l ? l - 1 : 0];
				fin[l] = fout[l ? l - 1 : 0];
			}
			for (int l = 0; l < 32; l++) th[l].step(*p, k, hin[l], fin[l], hout[l], fout[l]);
		}
		nw_cand c = th[0].end(*p);
		for (int l = 1; l < 32; l++) nw_cand_merge(c, th[l].end(*p));
		nw_cand_merge(p->rowbest[ti], c);
	}
}

/* A whole long problem on the host. */
template <class T>
static void nw_long_emul(nw_lparams_t *p, nw_dp_out *out)
{
	typedef typename T::V V;
	std::vector<V> rowbuf(2 * ((size_t)p->job.n + 1)), colbuf(2 * ((size_t)p->Mp + 1)), corner((size_t)p->nti);
	std::vector<nw_cand> rb;
	nw_long_rowbest_init(p, rb);
	p->rowbuf = rowbuf.data();
	p->colbuf = colbuf.data();
	p->corner = corner.data();
	p->rowbest = rb.data();
	if (nw_long_banded(p->kind))
		for (int64_t x = 0; x < nw_long_bound_count(*p); x++) nw_long_bound_fill<V>(*p, x);
	for (int64_t d = 0; d < p->nti + p->ntj - 1; d++) {
		nw_long_diag_rows(p, d);
		nw_long_emul_launch<T>(p);
	}
	nw_long_result(p, rb, out);
}

/* The kernel's parameters for one job, tiles TC columns wide (shared by the launch and
 * its host emulation). */
static void nw_long_params(const nw_job_t *job, int32_t TC, const uint8_t *qcodes,
			   const uint8_t *rcodes, const int32_t *table, int kind, int32_t O,
			   int32_t E, nw_lparams_t *p)
{
	memset(p, 0, sizeof *p);
	nw_long_geometry(job, TC, p);
	p->qcodes = qcodes;
	p->rcodes = rcodes;
	p->table = table;
	p->kind = kind;
	p->O = O;
	p->E = E;
}

int nw_long_dna4_ok(const int32_t *tab)
{
	static const int rows[] = {0, 1, 2, 3, NW_QPAD}; /* the bases and the padding row */
	for (int q : rows)
		for (int r = 0; r < 4; r++)
			if (tab[q * NW_TAB_DIM + r] < -128 || tab[q * NW_TAB_DIM + r] > 127) return 0;
	return 1;
}

/* The thread type of a long problem, handed to f.run<T>(): 64-bit lanes (wide) keep the
 * table and the affine cell; 32-bit lanes take the PRMT scorer for 2-bit DNA (dna4) and the
 * linear cell where gap opening is 0 (O == 0). */
template <int KC, class F>
static int nw_long_pick(bool wide, bool dna4, bool linear, F &f)
{
	if (wide) return f.template run<nw_lthread<nw_l64, KC, nw_sc_tab1<nw_l64>, NW_CELL_FCHAIN> >();
	if (dna4)
		return linear ? f.template run<nw_lthread<nw_l32, KC, nw_sc_dna4<nw_l32>, NW_CELL_LINEAR> >()
			      : f.template run<nw_lthread<nw_l32, KC, nw_sc_dna4<nw_l32>, NW_CELL_FCHAIN> >();
	return linear ? f.template run<nw_lthread<nw_l32, KC, nw_sc_tab1<nw_l32>, NW_CELL_LINEAR> >()
		      : f.template run<nw_lthread<nw_l32, KC, nw_sc_tab1<nw_l32>, NW_CELL_FCHAIN> >();
}

template <class F>
static int nw_long_dispatch(const nw_lparams_t &p, int wide, int dna4, F &f)
{
	const bool linear = p.O == 0;
	switch (p.kind) {
	case NW_DP_LOCAL: return nw_long_pick<0>(wide, dna4, linear, f);
	case NW_DP_REV_LOCAL: return nw_long_pick<1>(wide, dna4, linear, f);
	default: return nw_long_pick<2>(wide, dna4, linear, f);
	}
}

struct nw_long_go_f {
	nw_gpu_t *g;
	nw_lparams_t *p;
	nw_dp_out *out;
	float *ms;
	template <class T> int run() { return nw_long_go<T>(g, p, out, ms); }
};
struct nw_long_emul_f {
	nw_lparams_t *p;
	nw_dp_out *out;
	template <class T> int run() { nw_long_emul<T>(p, out); return 0; }
};

int nw_long_run(nw_gpu_t *g, const nw_job_t *job, const uint8_t *qcodes, const uint8_t *rcodes,
		const int32_t *dtable, int kind, int32_t O, int32_t E, int wide, int dna4, nw_dp_out *out, float *ms)
{
	nw_lparams_t p;
	/* Few tile rows (two sequences of tens of kilobases): the staircase, a tile a row. Many
	 * (megabases): square tiles by anti-diagonals, whose launches keep every SM busy
	 * without the staircase's lag of 63 steps a tile row (measured on an H200: 40 kb x
	 * 40 kb 16 ms against 28 ms; 1 Mb x 1 Mb 1.4 s against 1.1 s). */
	const int64_t nti = (job->m + NW_LONG_TR - 1) / NW_LONG_TR;
	const char *ed = getenv("NW_GPU_LONG_DIAG"); /* tests: anti-diagonals whatever the size */
	const bool stair = nti <= NW_LONG_STAIR_ROWS_PER_SM * (int64_t)g->n_sm && !(ed && *ed == '1');
	nw_long_params(job, stair ? (int32_t)job->n : NW_LONG_TR, qcodes, rcodes, dtable, kind, O, E, &p);
	nw_long_go_f f = {g, &p, out, ms};
	return nw_long_dispatch(p, wide, dna4, f);
}

void nw_long_emulate(const nw_job_t *job, const uint8_t *qcodes, const uint8_t *rcodes,
		     const int32_t *table, int kind, int32_t O, int32_t E, int wide, int dna4, int32_t TC,
		     nw_dp_out *out)
{
	nw_lparams_t p;
	nw_long_params(job, TC, qcodes, rcodes, table, kind, O, E, &p);
	nw_long_emul_f f = {&p, out};
	nw_long_dispatch(p, wide, dna4, f);
}
