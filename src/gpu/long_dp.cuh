/* long_dp.cuh: the long kernel's thread logic: the thread types (nw_lthread), a tile's
 * sweep with its borders in global memory, and the bounds that banded passes start from.
 * Included by gpu_long.cu, whose comment describes the tiles, the two launch forms and the
 * border buffers; the kernels and the host side are there, the emulation too.
 */
#ifndef NW_LONG_DP_CUH
#define NW_LONG_DP_CUH

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

/* The columns [*j0, *j1] of tile row ti. By anti-diagonals: its tile in tile column p.d - ti.
 * In the staircase: the whole row, or (p.win, banded passes) the row's window of the band:
 * real rows [fr, lr] reach the columns [fr + dlo, lr + dhi], clipped to [1, n] (empty when
 * *j0 > *j1: the band passes below or right of the matrix there). Both ends never decrease
 * from a tile row to the next, so a column of a window that the window above lacks lies
 * right of it and was never written: it still holds its bound (nw_long_bound_fill). */
NW_HD void nw_long_cols(const nw_lparams_t &p, int64_t ti, bool stair, int64_t *j0, int64_t *j1)
{
	if (!stair) {
		*j0 = (p.d - ti) * p.TC + 1;
		*j1 = *j0 + p.TC - 1 < p.job.n ? *j0 + p.TC - 1 : p.job.n;
	} else if (!p.win) {
		*j0 = 1, *j1 = p.job.n;
	} else {
		const int64_t fr = ti * NW_LONG_TR + 1 - p.P, lr = (ti + 1) * NW_LONG_TR - p.P;
		*j0 = (fr > 1 ? fr : 1) + p.job.dlo;
		*j1 = lr + p.job.dhi;
		if (*j0 < 1) *j0 = 1;
		if (*j1 > p.job.n) *j1 = p.job.n;
	}
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
	/* The forward local pass skips the tiles that cannot hold the best cell (nw_long_skip) */
	static const bool PRUNE = KC == 0;
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
	int64_t ti, i0, j0, j1;
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

	/* stair: the staircase's tile row (the row above, where this row reads it, is done) */
	NW_HD void init(const nw_lparams_t &p, const int32_t *tab, int64_t ti_, int t_, V *snap_, bool stair)
	{
		t = t_;
		ti = ti_;
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
		nw_long_cols(p, ti, stair, &j0, &j1);
		i0 = ti * NW_LONG_TR + (int64_t)t * R + 1;
#pragma unroll
		for (int r = 0; r < R; r++) {
			int64_t ip = i0 + r, real = ip - p.P;
			int c = real >= 1 ? p.qcodes[p.job.qbase + (real - 1) * p.job.qstep] : -1;
			sw.q[r] = sc.row(c, 0);
			if (j0 == 1) {
				sw.h[r] = lb(real);
				sw.e[r] = sw.h[r] + neg_oe;
			} else {
				sw.h[r] = colbuf[2 * ip];
				sw.e[r] = colbuf[2 * ip + 1];
			}
		}
		int64_t ipd = i0 - 1;
		if (t > 0) sw.hdiag = j0 == 1 ? lb(ipd - p.P) : colbuf[2 * ipd];
		else if (ti == 0) sw.hdiag = top(j0 - 1);
		else if (j0 == 1) sw.hdiag = lb(ipd - p.P);
		else if (!stair) sw.hdiag = corner[ti];
		else sw.hdiag = nw_ld_cg(&rowbuf[2 * (j0 - 1)]); /* a window's corner: the row above's */
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
			if (j == j1) corner[ti] = hin; /* H[ti*TR][j1] for the next tile of the row */
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

/* Tile pruning, the forward local pass by anti-diagonals. Local scores are at least 0
 * and each step of a path adds at most maxsc (>= 0), so every path that enters tile (ti, tj)
 * from a border cell (i, j) (its H, E or F there: v) ends with at most v + maxsc *
 * min(m - i, n - j), and a path that starts inside it with at most maxsc * min(m - i_top,
 * n - j_left). When that bound of the tile is below a score some cell already has (*p.best),
 * no cell of the best score has a path through the tile: it is skipped, and its borders go
 * out as 0 and E, F = -(O + E), the scores of real paths (a restart). Every cell left is
 * then at most its true value and at least the value of its paths that avoid skipped
 * tiles; those include every path of the best score, so the best cell and the cells that
 * tie it keep their exact values, and the result, ties included, is unchanged. (The bound
 * only meets *best for tiles near the best path's end or far from its diagonal: on
 * C-local-mut of bench/run.sh, 7.9M of its 15.3M tiles.) */
NW_HD int64_t nw_long_potential(const nw_lparams_t &p, int64_t i, int64_t j)
{
	const int64_t a = p.job.m - (i > 0 ? i : 0), b = p.job.n - j;
	return (int64_t)p.maxsc * (a < b ? a : b);
}
/* The tile's start bound: a path that starts in it, with no border cell read. */
NW_HD int64_t nw_long_start_bound(const nw_lparams_t &p, int64_t ti)
{
	return nw_long_potential(p, ti * NW_LONG_TR - p.P, (p.d - ti) * p.TC);
}
/* The bound over lane t's border cells: row-above columns j0 + t, j0 + t + 32, ..., the
 * corner (lane 0) and its R rows of the column to the left (the matrix's own borders are 0). */
template <class T>
NW_HD int64_t nw_long_border_bound(const nw_lparams_t &p, int64_t ti, int t)
{
	typedef typename T::V V;
	const V *rowbuf = (const V *)p.rowbuf, *colbuf = (const V *)p.colbuf;
	const int64_t tj = p.d - ti, itop = ti * NW_LONG_TR - p.P;
	int64_t j0, j1;
	nw_long_cols(p, ti, false, &j0, &j1);
	int64_t u = 0;
	if (ti > 0) {
		for (int64_t j = j0 + t; j <= j1; j += 32) {
			const V h = rowbuf[2 * j], f = rowbuf[2 * j + 1];
			const int64_t v = (int64_t)(h > f ? h : f) + nw_long_potential(p, itop, j);
			u = v > u ? v : u;
		}
		if (t == 0 && tj > 0) {
			const int64_t v = (int64_t)((const V *)p.corner)[ti] + nw_long_potential(p, itop, j0 - 1);
			u = v > u ? v : u;
		}
	}
	if (tj > 0) {
		for (int r = 0; r < T::R; r++) {
			const int64_t ip = ti * NW_LONG_TR + (int64_t)t * T::R + 1 + r;
			const V h = colbuf[2 * ip], e = colbuf[2 * ip + 1];
			const int64_t v = (int64_t)(h > e ? h : e) + nw_long_potential(p, ip - p.P, j0 - 1);
			u = v > u ? v : u;
		}
	}
	return u;
}
/* A skipped tile's outputs, lane t's share: its bottom row (after saving the corner of
 * the next tile of its tile row, which the row above holds) and its right column. */
template <class T>
NW_HD void nw_long_skip_out(const nw_lparams_t &p, int64_t ti, int t)
{
	typedef typename T::V V;
	V *rowbuf = (V *)p.rowbuf, *colbuf = (V *)p.colbuf;
	const V gap = (V)(-(p.O + p.E));
	int64_t j0, j1;
	nw_long_cols(p, ti, false, &j0, &j1);
	for (int64_t j = j0 + t; j <= j1; j += 32) {
		if (j == j1 && ti > 0) ((V *)p.corner)[ti] = rowbuf[2 * j];
		rowbuf[2 * j] = 0;
		rowbuf[2 * j + 1] = gap;
	}
	for (int r = 0; r < T::R; r++) {
		const int64_t ip = ti * NW_LONG_TR + (int64_t)t * T::R + 1 + r;
		colbuf[2 * ip] = 0;
		colbuf[2 * ip + 1] = gap;
	}
}

#ifdef __CUDACC__
/* Whether the warp skips tile ti (whole warp); if so, its outputs are written. The start
 * bound needs no load, and decides alone for most tiles far from the end. */
template <class T>
__device__ bool nw_long_skip(const nw_lparams_t &p, int64_t ti, int t)
{
	long long best = 0;
	if (t == 0) best = __ldcg(p.best); /* another SM may raise it meanwhile: any value it had will do */
	best = __shfl_sync(0xffffffffu, best, 0);
	if (nw_long_start_bound(p, ti) >= best) return false;
	int64_t u = nw_long_border_bound<T>(p, ti, t);
	for (int off = 16; off > 0; off >>= 1) {
		const int64_t o = __shfl_xor_sync(0xffffffffu, u, off);
		u = o > u ? o : u;
	}
	if (u >= best) return false;
	nw_long_skip_out<T>(p, ti, t);
	if (t == 0) atomicAdd(p.skipped, 1ull);
	return true;
}
#endif

/* Shared memory of a long kernel block: the score table (rows NW_LTAB_STRIDE words apart),
 * and each thread's snapshot of its rows for max tracking. load(): the table, read by the
 * whole block (a barrier). */
template <class L>
struct nw_long_smem {
	int32_t tab[NW_TAB_DIM * NW_LTAB_STRIDE];
	__align__(16) typename L::V snaps[32 * NW_LONG_WARPS * NW_SNAP_WORDS(L, NW_LONG_R)];
	__device__ void load(const int32_t *table)
	{
		for (int x = threadIdx.x; x < NW_TAB_DIM * NW_TAB_DIM; x += blockDim.x)
			tab[nw_ltab_index(x)] = table[x];
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
		if (t == 0) {
			nw_cand_merge(p.rowbest[ti], c);
			if (T::PRUNE && c.v > 0) atomicMax(p.best, (long long)c.v);
		}
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
			if (!STAIR && CHECK && c == (int32_t)ncols - 1) th.corner[th.ti] = hin; /* H[ti*TR][j1] for the next tile */
		}
		if (!CHECK || (c >= 0 && c < (int32_t)ncols)) th.advance(p, c, hin, fin, x >= 0 ? wa : wb, hout, fout);
		/* publish my bottom row every 32 columns (at s == 30, c + 1 = g) and at the end, as
		 * the last column done: fewer publications cost more lag than their fences save (H200) */
		if (STAIR && !T::TAGGED && t == 31 && c >= 0 &&
		    ((s == 30 && c < (int32_t)ncols) || (CHECK && c == (int32_t)ncols - 1))) {
			__threadfence();
			atomicExch(done + th.ti, (uint32_t)(th.j0 + c));
		}
	}
}

/* The staircase: thread 0 of tile row ti waits until the row above has published column c
 * (or its last column, last, where c lies right of it; nothing where last is 0), then the
 * warp goes on. avail: the last column known to be published. */
template <class T>
__device__ void nw_long_wait_above(const nw_lparams_t &p, uint32_t *done, int64_t ti, int t, int64_t c, int64_t last,
				   int64_t &avail)
{
	if (c > last) c = last;
	if (t == 0 && ti > 0 && c > avail) {
		if (T::TAGGED) { /* the column's own tag (rowbuf words, nw_long_sweep) */
			const uint64_t *w = (const uint64_t *)((const typename T::V *)p.rowbuf + 2 * c);
			while ((nw_ld_relaxed64(w) >> 32) != (uint64_t)ti) {}
			avail = c;
		} else {
			const volatile uint32_t *up = done + ti - 1;
			while ((avail = *up) < c) __nanosleep(32);
			__threadfence();
		}
	}
	__syncwarp();
}

/* One tile's sweep, columns th.j0 .. th.j1 of tile row th.ti, shared by both kernels.
 * Columns go in groups of 32: for each group the warp loads, one column a lane, the scorer
 * words and (for thread 0) the row above, and hands them out by shuffles, so that no step
 * waits on memory. The reference codes of the next group are loaded a group ahead (and made
 * scorer words only when their group starts, so that nothing waits on the load early).
 *
 * STAIR (the staircase: the whole row, or its window of the band): the row above is written
 * by tile row ti - 1 during this launch, on another SM, up to its last column above_last (0:
 * it wrote none that this row reads; the columns right of it keep their bounds). Affine:
 * thread 0 waits until done[ti - 1] covers the group before the warp loads it
 * (nw_long_wait_above), and thread 31 publishes its bottom row every 32 columns (done[ti] is
 * the last column published); each publication costs a memory fence, which stalls the
 * warp, while a longer span delays the tile row below. Linear (T::TAGGED): each column of
 * the row above is one 64-bit word with the tag of the tile row that wrote it, and the
 * lanes reload their columns until every tag says ti - 1: no flag, no fence, and one round
 * trip to L2 when the data is there. The buffer starts with no tile row's tag (zeroed, or
 * the bounds with a zero F slot), and a tile row overwrites a column only after its own
 * thread 0 has read it.
 *
 * Otherwise (anti-diagonals) the row above was written by an earlier launch, and thread 0
 * saves the corner of the next tile of its tile row before thread 31 overwrites it. (Loading
 * that row a group ahead too cost the 64-register kernel spills and gained nothing.) Column
 * offsets are 32-bit (a tile has at most 2^31 - 1 columns), absolute columns 64-bit. */
template <class T, bool STAIR>
__device__ void nw_long_sweep(T &th, const nw_lparams_t &p, uint32_t *done, int64_t above_last)
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
			uint64_t v = nw_ld_relaxed64(w);
			while (j0 + col <= above_last && (v >> 32) != (uint64_t)ti) v = nw_ld_relaxed64(w);
			h = (V)(uint32_t)v;
		} else {
			h = nw_ld_cg(&above[2 * (size_t)col]);
			if (!T::LINEAR) f = nw_ld_cg(&above[2 * (size_t)col + 1]);
		}
	};
	V hout = 0, fout = 0, gh = 0, gf = 0;
	int code_next = (uint32_t)t < ncols ? th.rcode(p, j0 + t) : 0;
	uint32_t cw_prev = 0, cw_cur = 0;
	int64_t avail = 0; /* the last column of tile row ti - 1 known to be published (thread 0) */
	for (uint32_t g = 0; g < ncols + 31; g += 32) {
		const uint32_t col = g + t; /* the column I load for the group */
		if (STAIR && !T::TAGGED && g < ncols)
			nw_long_wait_above<T>(p, done, ti, t, j0 + (g + 32 < ncols ? g + 32 : ncols) - 1, above_last, avail);
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

/* Banded passes start from borders that are lower bounds of every cell they stand for
 * (the band argument of src/band.h needs no more: cells off the band may be left lower
 * than their true values). Tiles off the band are never computed, so a tile at the edge of
 * the band reads these bounds where its neighbour would have written: rowbuf[j] holds
 * H[m][j], colbuf[i] H[i][n] (each below every cell of its column or row: a path of gaps
 * from the origin), corner the lowest of them, and E and F a gap opening below. TAGGED:
 * the thread type's T::TAGGED, whose rowbuf has the writer's tag in place of F. */
template <class V, bool TAGGED>
NW_HD void nw_long_bound_fill(const nw_lparams_t &p, int64_t x)
{
	const nw_dp_rules ru = nw_rules(p.kind);
	const int64_t O = p.O, E = p.E, m = p.job.m, n = p.job.n;
	V *rowbuf = (V *)p.rowbuf, *colbuf = (V *)p.colbuf, *corner = (V *)p.corner;
	if (x <= n) {
		const int64_t h = nw_long_bound(ru, O, E, m, x);
		/* the tagged (linear 32-bit) cell has no F; its staircase reads the slot as the
		 * writer's tag, and 0 is no tile row's (nw_long_sweep). Any other cell reads F there,
		 * linear gaps in 64-bit lanes too. */
		rowbuf[2 * x] = (V)h, rowbuf[2 * x + 1] = TAGGED ? 0 : (V)(h - O - E);
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

#endif
