/* gpu_long.cu: one long pair on the whole GPU, in memory linear in the lengths.
 *
 * The (padded) matrix is cut into tile rows of TR = 32 * NW_LONG_R rows; a warp sweeps a
 * tile (nw_long_sweep: R rows a thread, the row above by shuffle, as in the batch kernel).
 * Two launch forms share that sweep:
 *  - the staircase (few tile rows, such as two sequences of tens of kilobases): one launch,
 *    a warp a tile row over all its columns, each tile row a few dozen steps behind the one
 *    above, whose bottom row it reads as it is written (nw_long_rows_kernel). The banded
 *    passes (reverse local and semiglobal, whose score is known) take it whatever the size,
 *    each tile row over its window of the score band only (nw_long_cols);
 *  - anti-diagonals of TR x TR tiles (megabases), a launch each (nw_long_diag_kernel); the
 *    forward local pass skips the tiles that cannot hold its best cell (nw_long_skip).
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
 * (affine, or linear when gap opening is 0); nw_long_pick() says which runs. The thread
 * types, a tile's sweep and the banded passes' starting bounds are in long_dp.cuh.
 */
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "long_dp.cuh"

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
	if (T::PRUNE && p.prune && nw_long_skip<T>(p, ti, t)) return; /* whole warp */
	T th;
	th.init(p, sm.tab, ti, t, sm.snap(), false);
	__syncwarp(); /* everyone has read colbuf before anyone writes it */
	nw_long_sweep<T, false>(th, p, NULL, 0);
	nw_long_tile_end(th, p, ti, t);
}

/* The whole problem in one launch (problems with fewer tile rows than the GPU holds
 * warps, such as two sequences of tens of kilobases, and the banded passes). A warp takes a
 * tile row (from *counter, in order) and sweeps all its columns, or (p.win) its window of
 * the band, as one tile (TC = n), without restarting the wavefront; tile rows wait on the
 * one above (nw_long_sweep, STAIR). */
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
		p.d = ti; /* tile column 0 */
		int64_t j0, j1, a, last = 0; /* my columns; the last column the row above writes */
		nw_long_cols(p, ti, true, &j0, &j1);
		if (j0 > j1) continue; /* (p.win) the band misses my rows */
		if (ti > 0) {
			nw_long_cols(p, ti - 1, true, &a, &last);
			if (a > last) last = 0;
		}
		int64_t avail = 0;
		if (j0 > 1) nw_long_wait_above<T>(p, done, ti, t, j0 - 1, last, avail); /* my window's corner */
		T th;
		th.init(p, sm.tab, ti, t, sm.snap(), true);
		__syncwarp();
		nw_long_sweep<T, true>(th, p, done, last);
		nw_long_tile_end(th, p, ti, t);
	}
}

template <class V, bool TAGGED>
__global__ void nw_long_bound_kernel(const nw_lparams_t p)
{
	const int64_t stride = (int64_t)gridDim.x * blockDim.x, count = nw_long_bound_count(p);
	for (int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; x < count; x += stride)
		nw_long_bound_fill<V, TAGGED>(p, x);
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

/* Tiles of the pruned passes (forward local by anti-diagonals), for nw_gpu_long_tiles(). */
static int64_t nw_long_emul_tiles, nw_long_emul_skipped; /* the host emulation's */
static void nw_long_count(const nw_lparams_t *p, int64_t skipped, int64_t *tiles, int64_t *sk)
{
	if (!p->prune) return;
	*tiles += p->nti * p->ntj;
	*sk += skipped;
}

extern "C" void nw_gpu_long_tiles(const nw_gpu_t *g, int64_t *tiles, int64_t *skipped)
{
	*tiles = g ? g->long_tiles : nw_long_emul_tiles;
	*skipped = g ? g->long_skipped : nw_long_emul_skipped;
}

template <class T>
static int nw_long_go(nw_gpu_t *g, nw_lparams_t *p, nw_dp_out *out, float *ms)
{
	typedef typename T::V V;
	size_t nrow = 2 * ((size_t)p->job.n + 1), ncol = 2 * ((size_t)p->Mp + 1), ncor = (size_t)p->nti;
	size_t nflag = (size_t)p->nti + 1; /* done[nti], then the tile-row counter */
	size_t bytes = 16 + (size_t)p->nti * sizeof(nw_cand) + (nrow + ncol + ncor) * sizeof(V) + 4 * nflag + 32;
	NW_TRY(nw_dbuf_reserve(g, &g->lbuf, bytes));
	char *base = (char *)g->lbuf.p;
	p->best = (long long *)base; /* and skipped: two counters before rowbest */
	p->skipped = (unsigned long long *)(base + 8);
	base += 16;
	p->rowbest = (nw_cand *)base;
	p->rowbuf = base + ((size_t)p->nti * sizeof(nw_cand) + 15) / 16 * 16; /* pairs: 16-byte stores */
	p->colbuf = (V *)p->rowbuf + nrow;
	p->corner = (V *)p->colbuf + ncol;
	uint32_t *done = (uint32_t *)(((uintptr_t)((V *)p->corner + ncor) + 15) & ~(uintptr_t)15);
	std::vector<nw_cand> rb;
	nw_long_rowbest_init(p, rb);
	NW_CUDA_CHECK(g, cudaMemcpyAsync(p->rowbest, rb.data(), rb.size() * sizeof(nw_cand),
					 cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemsetAsync(p->best, 0, 16, g->stream)); /* best 0: every local cell has it */
	const bool diag = p->ntj > 1;
	int per_sm = 0;
	if (!diag) {
		NW_CUDA_CHECK(g, cudaMemsetAsync(done, 0, 4 * nflag, g->stream));
		if (T::TAGGED) /* no column carries a tile row's tag yet */
			NW_CUDA_CHECK(g, cudaMemsetAsync(p->rowbuf, 0, nrow * sizeof(V), g->stream));
		NW_CUDA_CHECK(g, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, nw_long_rows_kernel<T>,
										 32 * NW_LONG_WARPS, 0));
	}
	NW_MARK_FIRST_KERNEL(g);
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev[0], g->stream));
	if (nw_long_banded(p->kind)) {
		nw_long_bound_kernel<V, T::TAGGED><<<4 * g->n_sm, 256, 0, g->stream>>>(*p);
		NW_LAUNCH_CHECK(g);
	}
	if (diag) { /* anti-diagonals of tiles, a launch each */
		for (int64_t d = 0; d < p->nti + p->ntj - 1; d++) {
			nw_long_diag_rows(p, d);
			if (p->tlo > p->thi) continue;
			int64_t blocks = (p->thi - p->tlo + 1 + NW_LONG_WARPS - 1) / NW_LONG_WARPS;
			nw_long_diag_kernel<T><<<(unsigned)blocks, 32 * NW_LONG_WARPS, 0, g->stream>>>(*p);
			NW_LAUNCH_CHECK(g);
		}
	} else { /* the staircase: as many warps as can be resident, at most one a tile row */
		const int64_t resident = (int64_t)std::max(per_sm, 1) * g->n_sm * NW_LONG_WARPS;
		int64_t warps = std::min<int64_t>(p->nti, resident);
		/* Band windows: a tile row starts about TR + 63 steps after the one above, so a
		 * window of W columns keeps about W / (TR + 63) tile rows at work. Warps beyond twice
		 * that only wait, polling done[]: with every resident warp (3,168), C-local-mut's
		 * reverse pass took 354 ms on an H100, with 264 warps 205 ms. */
		if (p->win) {
			const int64_t w = std::min<int64_t>(p->job.n, NW_LONG_TR + (int64_t)p->job.dhi - p->job.dlo);
			warps = std::min<int64_t>(warps, 2 * (w / (NW_LONG_TR + 63) + 1) + 2 * g->n_sm);
		}
		const char *ew = getenv("NW_GPU_LONG_STAIR_WARPS"); /* benchmarks: other counts */
		if (ew && atoi(ew) > 0)
			warps = std::min<int64_t>({(int64_t)atoi(ew), p->nti, resident});
		const int64_t blocks = (warps + NW_LONG_WARPS - 1) / NW_LONG_WARPS;
		nw_long_rows_kernel<T><<<(unsigned)blocks, 32 * NW_LONG_WARPS, 0, g->stream>>>(*p, done + p->nti, done);
		NW_LAUNCH_CHECK(g);
	}
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev[1], g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(rb.data(), p->rowbest, rb.size() * sizeof(nw_cand),
					 cudaMemcpyDeviceToHost, g->stream));
	unsigned long long skipped = 0;
	NW_CUDA_CHECK(g, cudaMemcpyAsync(&skipped, p->skipped, sizeof skipped, cudaMemcpyDeviceToHost, g->stream));
	NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	float t = 0;
	NW_CUDA_CHECK(g, cudaEventElapsedTime(&t, g->ev[0], g->ev[1]));
	*ms += t;
	nw_long_count(p, (int64_t)skipped, &g->long_tiles, &g->long_skipped);
	const char *et = getenv("NW_GPU_TIMING");
	if (et && *et == '1')
		fprintf(stderr, "nw_gpu long kind %d: %lld x %lld tiles of %d x %d, %s, %llu skipped: %.3f ms\n", p->kind,
			(long long)p->nti, (long long)p->ntj, NW_LONG_TR, p->TC, diag ? "anti-diagonals" : "staircase",
			skipped, t);
	nw_long_result(p, rb, out);
	return 0;
}

/* Host emulation of one launch (anti-diagonal p->d) over host buffers: the same tiles
 * and warps, one thread at a time, shuffles replayed from the previous step's outputs. */
template <class T>
static void nw_long_emul_launch(const nw_lparams_t *p, const int32_t *ltab)
{
	typedef typename T::LT L;
	typedef typename T::V V;
	std::vector<V> snaps(32 * NW_SNAP_WORDS(L, NW_LONG_R)), hout(32), fout(32), hin(32), fin(32);
	std::vector<T> th(32);
	for (int64_t ti = p->tlo; ti <= p->thi; ti++) {
		int64_t j0, j1;
		nw_long_cols(*p, ti, p->win, &j0, &j1);
		if (j0 > j1) continue; /* as nw_long_rows_kernel */
		if (T::PRUNE && p->prune && nw_long_start_bound(*p, ti) < *p->best) { /* as nw_long_skip */
			int64_t u = 0;
			for (int l = 0; l < 32; l++) u = std::max(u, nw_long_border_bound<T>(*p, ti, l));
			if (u < *p->best) {
				for (int l = 0; l < 32; l++) nw_long_skip_out<T>(*p, ti, l);
				(*p->skipped)++;
				continue;
			}
		}
		for (int l = 0; l < 32; l++) th[l].init(*p, ltab, ti, l, &snaps[l * NW_SNAP_WORDS(L, NW_LONG_R)], p->win);
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
		if (T::PRUNE && c.v > *p->best) *p->best = c.v;
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
	long long best = 0;
	unsigned long long skipped = 0;
	p->best = &best;
	p->skipped = &skipped;
	p->rowbuf = rowbuf.data();
	p->colbuf = colbuf.data();
	p->corner = corner.data();
	p->rowbest = rb.data();
	if (nw_long_banded(p->kind))
		for (int64_t x = 0; x < nw_long_bound_count(*p); x++) nw_long_bound_fill<V, T::TAGGED>(*p, x);
	std::vector<int32_t> ltab(NW_TAB_DIM * NW_LTAB_STRIDE); /* as nw_long_smem::load */
	for (int x = 0; x < NW_TAB_DIM * NW_TAB_DIM; x++) ltab[nw_ltab_index(x)] = p->table[x];
	for (int64_t d = 0; d < p->nti + p->ntj - 1; d++) {
		if (p->win) /* the staircase's tile rows in turn */
			p->d = p->tlo = p->thi = d;
		else
			nw_long_diag_rows(p, d);
		nw_long_emul_launch<T>(p, ltab.data());
	}
	nw_long_result(p, rb, out);
	nw_long_count(p, (int64_t)skipped, &nw_long_emul_tiles, &nw_long_emul_skipped);
}

/* The kernel's parameters for one job, tiles TC columns wide (shared by the launch and
 * its host emulation). */
static void nw_long_params(const nw_job_t *job, int32_t TC, const uint8_t *qcodes,
			   const uint8_t *rcodes, const int32_t *table, int32_t maxsc, int kind, int32_t O,
			   int32_t E, nw_lparams_t *p)
{
	memset(p, 0, sizeof *p);
	nw_long_geometry(job, TC, p);
	p->maxsc = maxsc > 0 ? maxsc : 0;
	/* anti-diagonals only (the staircase has no tiles to skip); NW_GPU_LONG_PRUNE=0 turns it
	 * off, for benchmarks */
	const char *ep = getenv("NW_GPU_LONG_PRUNE");
	p->prune = kind == NW_DP_LOCAL && p->ntj > 1 && !(ep && *ep == '0');
	p->win = nw_long_banded(kind) && p->ntj == 1; /* the staircase of a banded pass */
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
	if (wide) return f.template run<nw_lthread<nw_l64, KC, nw_sc_tab1<nw_l64, NW_LTAB_STRIDE>, NW_CELL_FCHAIN> >();
	if (dna4)
		return linear ? f.template run<nw_lthread<nw_l32, KC, nw_sc_dna4<nw_l32>, NW_CELL_LINEAR> >()
			      : f.template run<nw_lthread<nw_l32, KC, nw_sc_dna4<nw_l32>, NW_CELL_FCHAIN> >();
	return linear ? f.template run<nw_lthread<nw_l32, KC, nw_sc_tab1<nw_l32, NW_LTAB_STRIDE>, NW_CELL_LINEAR> >()
		      : f.template run<nw_lthread<nw_l32, KC, nw_sc_tab1<nw_l32, NW_LTAB_STRIDE>, NW_CELL_FCHAIN> >();
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
		const int32_t *dtable, int32_t maxsc, int kind, int32_t O, int32_t E, int wide, int dna4,
		nw_dp_out *out, float *ms)
{
	nw_lparams_t p;
	/* Few tile rows (two sequences of tens of kilobases): the staircase, a tile a row. Many
	 * (megabases): square tiles by anti-diagonals, whose launches keep every SM busy
	 * without the staircase's lag of 63 steps a tile row (measured on an H200: 40 kb x
	 * 40 kb 16 ms against 28 ms; 1 Mb x 1 Mb 1.4 s against 1.1 s). Banded passes (reverse)
	 * take the staircase whatever the size, each tile row over its window of the band: their
	 * anti-diagonals hold the band's few tiles, and one launch each costs a tile's sweep. */
	const int64_t nti = (job->m + NW_LONG_TR - 1) / NW_LONG_TR;
	const char *ed = getenv("NW_GPU_LONG_DIAG"); /* tests: anti-diagonals whatever the size */
	const bool stair = (nw_long_banded(kind) || nti <= NW_LONG_STAIR_ROWS_PER_SM * (int64_t)g->n_sm) &&
			   !(ed && *ed == '1');
	int32_t TC = stair ? (int32_t)job->n : NW_LONG_TR;
	/* benchmarks: other tile widths for the anti-diagonals of banded passes (reverse) and
	 * of the others */
	const char *etc = getenv(nw_long_banded(kind) ? "NW_GPU_LONG_BAND_TC" : "NW_GPU_LONG_TC");
	if (!stair && etc && atoi(etc) > 0) TC = atoi(etc);
	nw_long_params(job, TC, qcodes, rcodes, dtable, maxsc, kind, O, E, &p);
	nw_long_go_f f = {g, &p, out, ms};
	return nw_long_dispatch(p, wide, dna4, f);
}

void nw_long_emulate(const nw_job_t *job, const uint8_t *qcodes, const uint8_t *rcodes,
		     const int32_t *table, int32_t maxsc, int kind, int32_t O, int32_t E, int wide, int dna4,
		     int32_t TC, nw_dp_out *out)
{
	nw_lparams_t p;
	nw_long_params(job, TC, qcodes, rcodes, table, maxsc, kind, O, E, &p);
	nw_long_emul_f f = {&p, out};
	nw_long_dispatch(p, wide, dna4, f);
}
