/* gpu_path.cu: alignment paths on the GPU (nw_gpu_paths), by the rules of src/path.h.
 *
 * Every path is built from path problems (path_dp.cuh) run in batches:
 *   - FULL spans: one trace problem each over the whole span;
 *   - GACT spans: rounds; each round takes the next tile of every unfinished pair (the
 *     state machine of src/path.c) as a trace problem on reversed slices, and hands the
 *     traced ops back to the state machine;
 *   - EXACT spans: Myers-Miller breadth first; each level runs the two last-row halves of
 *     every sub-problem still too large, splits them with nw_mm_split, and the leaves are
 *     trace problems with the leaf's gap opens.
 * The decisions, tie rules and splits are the CPU engine's, so the CIGARs are identical.
 *
 * A FULL span's optimal score is known (the score engine's), so its problem computes only
 * the diagonals that a path of that score can reach (src/band.h): with a score near the
 * maximum, a few. To follow such a band closely a problem takes fewer threads (G of 4, 8
 * or 16 rather than a warp: stripes of fewer rows, less lag, G and R chosen by a small
 * cost model), or a single thread that sweeps the band itself (the thin kernel,
 * gpu_thin.cu, taken by every span whose band and values fit it: see nw_pick_shape); GACT
 * tiles and Myers-Miller problems keep the whole matrix and a warp each.
 *
 * A batch is cut to the device memory that cudaMemGetInfo reports free (direction words
 * dominate: 4 bits a computed cell, rounded up to stripes of G R rows). The same driver
 * runs on the host with the kernels emulated thread by thread (nw_gpu_paths_emulated), so
 * that tests can check the thread logic without a device.
 */
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <time.h>
#include <type_traits>
#include <vector>

#include "gpu_internal.cuh"
#include "path_dp.cuh"
#include "thin_dp.cuh"
extern "C" {
#include "band.h"
#include "path.h"
}

#define NW_PATH_BLOCK 128
#define NW_PATH_BUDGET_MAX ((size_t)16 << 30)

/* ---------------------------------------------------------------- kernels */

/* ids[0..count): the problems of this launch (all of one R and G); a warp takes 32 / G
 * consecutive ones, a group each. Stripe and step loops run to the warp's longest problem:
 * the shuffles need every lane. */
template <int R, int G>
__global__ void __launch_bounds__(NW_PATH_BLOCK) nw_path_dp_kernel(nw_pparams p, const int32_t *ids, int64_t count,
								   uint32_t *counter)
{
	__shared__ int32_t tab[32 * 32];
	for (int x = threadIdx.x; x < 32 * 32; x += blockDim.x) tab[x] = p.score[x];
	__syncthreads();
	nw_pparams q = p;
	q.score = tab;
	const int lane = threadIdx.x & 31, grp = lane / G, t = lane % G;
	for (;;) {
		uint32_t x = 0;
		if (lane == 0) x = atomicAdd(counter, 32u / G);
		x = __shfl_sync(0xffffffffu, x, 0);
		if ((int64_t)x >= count) break;
		const int64_t mine = (int64_t)x + grp;
		nw_pthread<R, G> th;
		th.init(q, mine < count ? ids[mine] : -1, t);
		const int32_t stripes = (int32_t)__reduce_max_sync(0xffffffffu, (unsigned)(th.last_s + 1));
		for (int32_t s = 0; s < stripes; s++) {
			th.begin(q, s);
			const int32_t steps = (int32_t)__reduce_max_sync(0xffffffffu, (unsigned)th.steps);
			int32_t hc = 0, fc = 0;
			for (int32_t k = 0; k < steps; k++) {
				int32_t hin = __shfl_up_sync(0xffffffffu, hc, 1, G), fin = __shfl_up_sync(0xffffffffu, fc, 1, G);
				if (t == 0) th.top(q, k, hin, fin);
				th.step(q, k, hin, fin, hc, fc);
			}
			__syncwarp(); /* the border row is complete before the next stripe reads it */
		}
	}
}

/* The traces of the group shapes' problems (thin problems trace in their own kernel). */
__global__ void nw_path_trace_kernel(nw_pparams p)
{
	for (int64_t id = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; id < p.n_jobs;
	     id += (int64_t)gridDim.x * blockDim.x)
		if (p.jobs[id].G > 1) nw_ptrace(p, id);
}

/* The kernel's thread logic on the host: a warp's 32 lanes step by step, in groups of G,
 * each lane taking what its left neighbour in the group produced at the previous step (the
 * width-G shuffle), with the warp-wide stripe and step counts. */
template <int R, int G>
static void nw_path_emulate_launch(const nw_pparams &p, const int32_t *ids, int64_t count)
{
	nw_pthread<R, G> th[32];
	for (int64_t x = 0; x < count; x += 32 / G) {
		int32_t stripes = 0;
		for (int l = 0; l < 32; l++) {
			th[l].init(p, x + l / G < count ? ids[x + l / G] : -1, l % G);
			stripes = std::max(stripes, th[l].last_s + 1);
		}
		for (int32_t s = 0; s < stripes; s++) {
			int32_t hc[32] = {0}, fc[32] = {0}, steps = 0;
			for (int l = 0; l < 32; l++) {
				th[l].begin(p, s);
				steps = std::max(steps, th[l].steps);
			}
			for (int32_t k = 0; k < steps; k++) {
				int32_t hin[32], fin[32];
				for (int l = 0; l < 32; l++) { /* __shfl_up_sync(.., 1, G) */
					const int src = l % G ? l - 1 : l;
					hin[l] = hc[src];
					fin[l] = fc[src];
				}
				for (int l = 0; l < 32; l += G) th[l].top(p, k, hin[l], fin[l]);
				for (int l = 0; l < 32; l++) th[l].step(p, k, hin[l], fin[l], hc[l], fc[l]);
			}
		}
	}
}

/* The shapes: R (rows a thread) and G (threads a problem), then the thin classes (G = 1,
 * gpu_thin.cu); one launch per shape. */
static const int nw_path_rs[4] = {4, 5, 6, 8};
static const int nw_path_gs[4] = {4, 8, 16, 32};
#define NW_PATH_SHAPES 16
#define NW_PATH_ALL_SHAPES (NW_PATH_SHAPES + NW_THIN_CLASSES)

static int nw_path_shape(int R, int G)
{
	if (G == 1) return NW_PATH_SHAPES + nw_thin_class(8 * R);
	int r = 0, g = 0;
	while (r < 3 && nw_path_rs[r] != R) r++;
	while (g < 3 && nw_path_gs[g] != G) g++;
	return r * 4 + g;
}

/* Calls f(integral_constant R, integral_constant G) with the R and G of shape x, so that
 * launch and emulation reach the instance of that shape. */
template <int R, class F>
static void nw_path_with_G(int G, F &&f)
{
	switch (G) {
	case 4: f(std::integral_constant<int, R>(), std::integral_constant<int, 4>()); break;
	case 8: f(std::integral_constant<int, R>(), std::integral_constant<int, 8>()); break;
	case 16: f(std::integral_constant<int, R>(), std::integral_constant<int, 16>()); break;
	default: f(std::integral_constant<int, R>(), std::integral_constant<int, 32>()); break;
	}
}
template <class F>
static void nw_path_with_shape(int x, F &&f)
{
	const int G = nw_path_gs[x % 4];
	switch (nw_path_rs[x / 4]) {
	case 4: nw_path_with_G<4>(G, f); break;
	case 5: nw_path_with_G<5>(G, f); break;
	case 6: nw_path_with_G<6>(G, f); break;
	default: nw_path_with_G<8>(G, f); break;
	}
}

/* ids[first[x]..first[x + 1]): the problems of shape x, in launch order. */
static void nw_path_emulate(const nw_pparams &p, const std::vector<int32_t> &ids, const int64_t *first)
{
	for (int x = 0; x < NW_PATH_SHAPES; x++)
		nw_path_with_shape(x, [&](auto r, auto g) {
			nw_path_emulate_launch<decltype(r)::value, decltype(g)::value>(p, ids.data() + first[x],
										     first[x + 1] - first[x]);
		});
	for (int x = NW_PATH_SHAPES; x < NW_PATH_ALL_SHAPES; x++)
		nw_thin_path_emulate(p, ids.data() + first[x], first[x + 1] - first[x]);
	if (p.trace)
		for (int64_t id = 0; id < p.n_jobs; id++)
			if (p.jobs[id].G > 1) nw_ptrace(p, id);
}

/* ---------------------------------------------------------------- one batch of problems */

/* Where the batch runs: the device (g) or the host emulation (g == NULL). */
struct nw_pexec {
	nw_gpu_t *g;
	const uint8_t *qcodes, *rcodes;   /* device codes, or host codes when emulated */
	const int64_t *qoff, *roff;       /* host: first code of each sequence */
	int32_t score[32 * 32];
	int32_t O, E;
	/* outputs of the last batch, on the host */
	std::vector<nw_pjob> jobs;
	std::vector<uint32_t> runs;
	std::vector<int32_t> n_runs, rows, corner;
	/* emulation: host buffers */
	std::vector<uint32_t> hdirs;
	size_t budget;                    /* bytes a batch may use on the device */
	double ms;                        /* kernel time */
	double ms_trace;                  /* of which the trace kernel's (NW_GPU_TIMING) */
	bool timing;
};

/* Rows a thread of a whole-matrix problem (G = 32) for m rows: the fewest thread steps
 * (stripes times R; a stripe costs n + 31 steps), the larger R on ties. 150 rows take
 * R = 5 (one stripe of 160), GACT's 320-row tiles two stripes of 160. */
static int nw_pick_R(int64_t m)
{
	int best = 8;
	int64_t best_cost = INT64_MAX;
	for (int x = 3; x >= 0; x--) {
		const int R = nw_path_rs[x];
		const int64_t cost = (m + 32 * R - 1) / (32 * R) * R;
		if (cost < best_cost) best = R, best_cost = cost;
	}
	return best;
}

/* Estimated cost of a problem in its shape (G, R), in cell updates: a thread step updates
 * R cells and pays about 3 more for its shuffles, score-row load and direction store; a
 * stripe takes W + G - 1 steps of its G threads; and every column a stripe passes down to
 * the next costs a border store and load (about 2 more). Small G wastes few steps on the
 * group's lag and, with stripes of few rows, follows a band closely; the border traffic
 * and per-step overhead keep it from winning on the whole matrix for nothing. */
static int64_t nw_pshape_cost(const nw_pjob &j)
{
	const int64_t stripes = nw_pstripes(j), steps = nw_pdir_base(j, (int32_t)stripes);
	const int64_t passed = steps - stripes * (j.G - 1); /* sum of W, a bound on the border columns */
	return steps * j.G * (j.R + 3) + 2 * passed;
}

/* Rows of the longest problem a thin kernel takes: one thread sweeps them all, so a batch
 * of a few long spans keeps the groups' parallelism. */
#define NW_THIN_MAX_ROWS 1024

/* The shape of a FULL problem with its band set: thin (G = 1) when the band fits a thin
 * kernel, its values fit 16 bits and it has at most NW_THIN_MAX_ROWS rows (on B's reads,
 * thin for every such span beat the cost model's mix of thin and groups: RESULTS.md);
 * otherwise the cheapest by nw_pshape_cost over every G and R (G = force_g only, when
 * set; force_g 1: thin wherever it may run, whatever the rows), the larger G, then the
 * larger R on ties. */
static void nw_pick_shape(nw_pjob &j, int force_g, const nw_scoring_t *sc, int thin_wmax)
{
	const int32_t Wp = (j.dhi - j.dlo + 1 + 7) / 8 * 8;
	const int64_t M = std::max(sc->max_score, 0);
	const bool thin_ok = Wp <= thin_wmax && nw_thin_fits(std::max(j.top_open, j.left_open), sc->gap_open,
							       sc->gap_extend, j.m, j.n, M * std::min(j.m, j.n));
	int bg = 32, br = nw_pick_R(j.m);
	int64_t best = INT64_MAX;
	if (thin_ok && (force_g == 1 || (!force_g && j.m <= NW_THIN_MAX_ROWS))) bg = 1;
	for (int g = 3; g >= 0 && bg != 1; g--) {
		if (force_g && nw_path_gs[g] != force_g) continue;
		for (int r = 3; r >= 0; r--) {
			j.G = nw_path_gs[g], j.R = nw_path_rs[r];
			const int64_t c = nw_pshape_cost(j);
			if (c < best) best = c, bg = j.G, br = j.R;
		}
	}
	if (bg == 1) { /* the band widened to whole words: R words a row */
		j.G = 1, j.R = Wp / 8;
		j.dhi = j.dlo + Wp - 1;
		j.dir_words = (int64_t)j.m * j.R;
		return;
	}
	j.G = bg, j.R = br;
	j.dir_words = nw_pdir_words(j);
}

/* Bytes of device memory a problem needs. */
static size_t nw_pjob_bytes(const nw_pjob &j, bool trace)
{
	size_t b = sizeof(nw_pjob) + 4 + 4 * 2 * (size_t)(j.n + 1) * (trace ? 1 : 2); /* border, last row */
	if (trace) b += 4 * (size_t)j.dir_words + 4 * (size_t)(j.m + j.n + 1) + 8 + 4;
	return b;
}

/* Launch order of jobs: ids grouped by shape (ids[first[x]..first[x + 1]) has shape x), in
 * each the most steps first, so that the problems sharing a warp (neighbours) take about
 * as long and the longest start first. A radix sort: a batch holds up to millions. */
static void nw_order_jobs(const std::vector<nw_pjob> &jobs, std::vector<int32_t> &ids, int64_t *first)
{
	const size_t n = jobs.size();
	const uint64_t most = 0x07ffffff;
	std::vector<uint64_t> a(n), b(n);
	for (size_t k = 0; k < n; k++) {
		const nw_pjob &j = jobs[k];
		/* thin: the widest band, then the most rows (a warp's 32 problems run side by side) */
		const uint64_t steps = j.G == 1 ? (uint64_t)j.R << 20 | std::min<uint64_t>((uint64_t)j.m, 0xfffff)
						: std::min<uint64_t>((uint64_t)(j.dir_words / j.G), most);
		a[k] = ((uint64_t)nw_path_shape(j.R, j.G) << 27 | (most - std::min(steps, most))) << 32 | k;
	}
	for (int sh = 32; sh < 64; sh += 8) {
		size_t cnt[257] = {0};
		for (uint64_t v : a) cnt[(v >> sh & 255) + 1]++;
		for (int d = 0; d < 256; d++) cnt[d + 1] += cnt[d];
		for (uint64_t v : a) b[cnt[v >> sh & 255]++] = v;
		a.swap(b);
	}
	ids.resize(n);
	for (int x = 0; x <= NW_PATH_ALL_SHAPES; x++) first[x] = 0;
	for (size_t k = 0; k < n; k++) {
		ids[k] = (int32_t)(a[k] & 0xffffffffu);
		first[(a[k] >> 59) + 1]++;
	}
	for (int x = 0; x < NW_PATH_ALL_SHAPES; x++) first[x + 1] += first[x];
}

/* Lay out jobs[0..n) (offsets), run them, bring the outputs back into x. */
static int nw_pexec_run(nw_pexec &x, bool trace)
{
	const int64_t n = (int64_t)x.jobs.size();
	if (n == 0) return 0;
	std::vector<int32_t> ids;
	int64_t first[NW_PATH_ALL_SHAPES + 1];
	nw_order_jobs(x.jobs, ids, first);
	int64_t dirw = 0, rowi = 0, runw = 0, outi = 0;
	for (int64_t k = 0; k < n; k++) {
		nw_pjob &j = x.jobs[k];
		j.row_off = rowi;
		rowi += 2 * ((int64_t)j.n + 1);
		if (!trace) {
			j.out_off = outi;
			outi += 2 * ((int64_t)j.n + 1);
		} else {
			if (j.G > 1) j.dir_off = dirw, dirw += j.dir_words;
			j.run_off = runw;
			runw += (int64_t)j.m + j.n + 1;
		}
	}
	for (int sh = NW_PATH_SHAPES; sh < NW_PATH_ALL_SHAPES && trace; sh++) /* thin: a warp's words interleave */
		dirw += nw_thin_layout(x.jobs, ids.data() + first[sh], first[sh + 1] - first[sh], dirw);
	x.rows.assign((size_t)outi, 0);
	x.runs.resize(trace ? (size_t)runw : 0);
	x.n_runs.assign(trace ? (size_t)n : 0, 0);
	x.corner.assign(trace ? 2 * (size_t)n : 0, 0);
	nw_pparams p;
	memset(&p, 0, sizeof p);
	p.n_jobs = n;
	p.O = x.O;
	p.E = x.E;
	p.trace = trace;
	p.qcodes = x.qcodes;
	p.rcodes = x.rcodes;
	if (!x.g) { /* emulation */
		std::vector<int32_t> rows((size_t)rowi);
		x.hdirs.assign(trace ? (size_t)dirw : 0, 0);
		p.jobs = x.jobs.data();
		p.score = x.score;
		p.dirs = x.hdirs.data();
		p.rows = rows.data();
		p.lastrow = x.rows.data();
		p.corner = x.corner.data();
		p.runs = x.runs.data();
		p.n_runs = x.n_runs.data();
		nw_path_emulate(p, ids, first);
		return 0;
	}
	nw_gpu_t *g = x.g;
	const size_t bj = (size_t)n * sizeof(nw_pjob), bd = 4 * (size_t)dirw, br = 4 * (size_t)rowi,
		     bu = 4 * (size_t)runw, bn = 4 * (size_t)n, bc = 8 * (size_t)n, bi = 4 * (size_t)n,
		     bo = 4 * (size_t)outi;
	/* one device buffer: jobs | ids | table | counters | n_runs | corner | rows | runs | dirs |
	 * last rows */
	const size_t o_ids = (bj + 15) & ~(size_t)15, o_tab = (o_ids + bi + 15) & ~(size_t)15, o_cnt = o_tab + 4096,
		     o_nr = o_cnt + 4 * NW_PATH_ALL_SHAPES,
		     o_co = (o_nr + bn + 15) & ~(size_t)15, o_rows = (o_co + bc + 15) & ~(size_t)15,
		     o_runs = (o_rows + br + 15) & ~(size_t)15, o_dirs = (o_runs + bu + 15) & ~(size_t)15,
		     o_out = (o_dirs + bd + 15) & ~(size_t)15, total = o_out + bo + 16;
	NW_TRY(nw_dbuf_reserve(g, &g->pbuf, total));
	char *d = (char *)g->pbuf.p;
	NW_CUDA_CHECK(g, cudaMemcpyAsync(d, x.jobs.data(), bj, cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(d + o_ids, ids.data(), bi, cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(d + o_tab, x.score, 4096, cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemsetAsync(d + o_cnt, 0, 4 * NW_PATH_ALL_SHAPES, g->stream));
	p.jobs = (const nw_pjob *)d;
	p.score = (const int32_t *)(d + o_tab);
	p.n_runs = (int32_t *)(d + o_nr);
	p.corner = (int32_t *)(d + o_co);
	p.rows = (int32_t *)(d + o_rows);
	p.runs = (uint32_t *)(d + o_runs);
	p.dirs = (uint32_t *)(d + o_dirs);
	p.lastrow = (int32_t *)(d + o_out);
	if (!g->ev_ok) {
		for (int k = 0; k < 2; k++) NW_CUDA_CHECK(g, cudaEventCreate(&g->ev[k]));
		g->ev_ok = 1;
	}
	const int64_t warps_per_sm = 16; /* 4 blocks of 4 warps: enough to hide the latency */
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev[0], g->stream));
	/* One launch per shape, side by side on the side streams: one after another, each
	 * launch's tail left the GPU idle (16 shapes of a batch of short reads). */
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev_up, g->stream));
	for (int k = 0; k < NW_STREAMS; k++) NW_CUDA_CHECK(g, cudaStreamWaitEvent(g->side[k], g->ev_up, 0));
	int launched = 0;
	for (int sh = NW_PATH_ALL_SHAPES - 1; sh >= NW_PATH_SHAPES; sh--) { /* thin first, widest first: they trace too */
		const int64_t cnt = first[sh + 1] - first[sh];
		if (!cnt) continue;
		const int32_t *dids = (const int32_t *)(d + o_ids) + first[sh];
		NW_TRY(nw_thin_path_launch(g, p, dids, cnt, (uint32_t *)(d + o_cnt) + sh, sh - NW_PATH_SHAPES,
					   g->side[launched++ % NW_STREAMS]));
	}
	for (int sh = 0; sh < NW_PATH_SHAPES; sh++) {
		const int64_t cnt = first[sh + 1] - first[sh];
		if (!cnt) continue;
		const int64_t per_warp = 32 / nw_path_gs[sh % 4], warps = (cnt + per_warp - 1) / per_warp;
		const int64_t blocks = std::min<int64_t>((warps + NW_PATH_BLOCK / 32 - 1) / (NW_PATH_BLOCK / 32),
							 (int64_t)g->n_sm * warps_per_sm / (NW_PATH_BLOCK / 32));
		const int32_t *dids = (const int32_t *)(d + o_ids) + first[sh];
		uint32_t *counter = (uint32_t *)(d + o_cnt) + sh;
		nw_path_with_shape(sh, [&](auto r, auto gg) {
			nw_path_dp_kernel<decltype(r)::value, decltype(gg)::value>
				<<<(unsigned)blocks, NW_PATH_BLOCK, 0, g->side[launched % NW_STREAMS]>>>(p, dids, cnt, counter);
		});
		NW_LAUNCH_CHECK(g);
		launched++;
	}
	for (int k = 0; k < NW_STREAMS; k++) { /* the trace and the copies wait for every shape */
		NW_CUDA_CHECK(g, cudaEventRecord(g->sev[k], g->side[k]));
		NW_CUDA_CHECK(g, cudaStreamWaitEvent(g->stream, g->sev[k], 0));
	}
	cudaEvent_t mid = NULL; /* NW_GPU_TIMING: where the trace kernel starts */
	if (x.timing && trace) NW_CUDA_CHECK(g, cudaEventCreate(&mid));
	if (mid) NW_CUDA_CHECK(g, cudaEventRecord(mid, g->stream));
	if (trace) {
		const int64_t tb = std::min<int64_t>((n + 127) / 128, (int64_t)g->n_sm * 16);
		nw_path_trace_kernel<<<(unsigned)tb, 128, 0, g->stream>>>(p);
		NW_LAUNCH_CHECK(g);
	}
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev[1], g->stream));
	if (trace) {
		NW_CUDA_CHECK(g, cudaMemcpyAsync(x.n_runs.data(), p.n_runs, bn, cudaMemcpyDeviceToHost, g->stream));
		NW_CUDA_CHECK(g, cudaMemcpyAsync(x.runs.data(), p.runs, bu, cudaMemcpyDeviceToHost, g->stream));
	} else {
		NW_CUDA_CHECK(g, cudaMemcpyAsync(x.rows.data(), p.lastrow, bo, cudaMemcpyDeviceToHost, g->stream));
	}
	NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	float t = 0;
	NW_CUDA_CHECK(g, cudaEventElapsedTime(&t, g->ev[0], g->ev[1]));
	x.ms += t;
	g->kernel_s += t * 1e-3;
	if (mid) {
		float tt = 0;
		NW_CUDA_CHECK(g, cudaEventElapsedTime(&tt, mid, g->ev[1]));
		x.ms_trace += tt;
		cudaEventDestroy(mid);
	}
	return 0;
}

/* Append job k's runs (last first) to res in forward order. */
static int nw_take_runs(const nw_pexec &x, int64_t k, nw_result_t *res)
{
	if (x.n_runs[k] < 0) return NW_ERR_INTERNAL; /* the band missed the path */
	const uint32_t *r = x.runs.data() + x.jobs[k].run_off;
	for (int32_t a = x.n_runs[k] - 1; a >= 0; a--)
		if (nw_cigar_push(res, NW_CIGAR_OP(r[a]), NW_CIGAR_LEN(r[a])) < 0) return NW_ERR_MEMORY;
	return 0;
}

/* ---------------------------------------------------------------- the driver */

struct nw_pspan {
	int64_t k;          /* result index */
	int64_t qb, rb;     /* code index of the span's first residues */
	int64_t m, n;
};

static nw_pjob nw_make_pjob(int64_t qbase, int32_t qstep, int64_t m, int64_t rbase, int32_t rstep, int64_t n,
			    int32_t top_open, int32_t left_open, int32_t end_open)
{
	nw_pjob j;
	memset(&j, 0, sizeof j);
	j.qbase = qbase, j.rbase = rbase;
	j.m = (int32_t)m, j.n = (int32_t)n;
	j.qstep = qstep, j.rstep = rstep;
	j.top_open = top_open, j.left_open = left_open, j.end_open = end_open;
	j.G = 32, j.R = nw_pick_R(m);
	j.dlo = -j.m, j.dhi = j.n; /* the whole matrix */
	j.dir_words = nw_pdir_words(j);
	return j;
}

/* take(a, k, w) for k in [0, n) on up to 16 host threads (w: the thread's index), for
 * results that touch only their own pair: turning a batch's runs into CIGARs and GACT
 * steps costs more host time than the kernels take. Returns the first error. */
#define NW_PATH_HOST_THREADS 16
template <class Take>
static int nw_parallel_take(size_t a, size_t n, Take &take)
{
	unsigned nt = std::min<unsigned>(NW_PATH_HOST_THREADS, std::max(1u, std::thread::hardware_concurrency()));
	if (n < 64) nt = 1; /* not worth starting threads */
	std::vector<int> rc(nt, 0);
	auto work = [&](unsigned w) {
		for (size_t k = w; k < n && rc[w] == 0; k += nt) rc[w] = take(a, k, w);
	};
	std::vector<std::thread> th;
	for (unsigned w = 1; w < nt; w++) th.emplace_back(work, w);
	work(0);
	for (std::thread &t : th) t.join();
	for (int r : rc)
		if (r < 0) return r;
	return 0;
}

/* Run the problems all (trace or last-row) in batches that fit the budget, cut only at
 * multiples of unit; after each batch, take(a, k, w) is called for every problem k of it
 * (a: the batch's first index in all, k: the index in the batch's own jobs, w: the host
 * thread, 0 unless parallel). */
template <class Take>
static int nw_run_batches(nw_pexec &x, std::vector<nw_pjob> &all, bool trace, size_t unit, bool parallel, Take take)
{
	size_t a = 0;
	while (a < all.size()) {
		size_t b = a, bytes = 0;
		do {
			for (size_t u = 0; u < unit; u++, b++) bytes += nw_pjob_bytes(all[b], trace);
		} while (b < all.size() && bytes + unit * nw_pjob_bytes(all[b], trace) <= x.budget);
		x.jobs.assign(all.begin() + a, all.begin() + b);
		NW_TRY(nw_pexec_run(x, trace));
		if (parallel) NW_TRY(nw_parallel_take(a, b - a, take));
		else
			for (size_t k = 0; k < b - a; k++) NW_TRY(take(a, k, 0));
		a = b;
	}
	return 0;
}

/* NW_GPU_PATH_G: the G (4, 8, 16 or 32) of every FULL problem, or 1 (thin wherever a thin
 * kernel may take it), so that tests reach each banded shape; otherwise nw_pick_shape
 * chooses. */
static int nw_env_path_g(void)
{
	const char *s = getenv("NW_GPU_PATH_G");
	const int g = s && *s ? atoi(s) : 0;
	return g == 1 || g == 4 || g == 8 || g == 16 || g == 32 ? g : 0;
}

/* The band of a FULL span whose optimal score S is known (src/band.h): insertions take it
 * below the main diagonal, deletions above. It always holds the origin and the corner when
 * S is the optimum; kept so regardless, every stripe's window is non-empty and the corner
 * is computed (a band that misses the path shows as a failed trace). band.h bounds the
 * diagonal steps' score by M times an upper bound on their number, which needs M >= 0: a
 * matrix whose entries are all negative keeps the whole matrix. */
static void nw_set_band(nw_pjob &j, const nw_scoring_t *sc, int64_t S)
{
	const int64_t m = j.m, n = j.n, M = sc->max_score, O = sc->gap_open, E = sc->gap_extend;
	if (M < 0) return;
	const int64_t ins = std::min(nw_band_gaps(M, O, E, m, n, S), m);
	const int64_t del = std::min(nw_band_gaps(M, O, E, n, m, S), n);
	j.dlo = (int32_t)std::min(-ins, std::min<int64_t>(0, n - m));
	j.dhi = (int32_t)std::max(del, std::max<int64_t>(0, n - m));
}

static int nw_paths_full(nw_pexec &x, const std::vector<nw_pspan> &sp, nw_result_t *res, const nw_scoring_t *sc)
{
	const int32_t O = sc->gap_open;
	const int force_g = nw_env_path_g(), thin_wmax = nw_thin_wmax();
	std::vector<nw_pjob> all(sp.size());
	auto make = [&](size_t, size_t k, unsigned) {
		const nw_pspan &s = sp[k];
		all[k] = nw_make_pjob(s.qb, 1, s.m, s.rb, 1, s.n, O, O, O);
		nw_set_band(all[k], sc, res[s.k].score);
		nw_pick_shape(all[k], force_g, sc, thin_wmax);
		return 0;
	};
	NW_TRY(nw_parallel_take(0, sp.size(), make));
	return nw_run_batches(x, all, true, 1, true, [&](size_t a, size_t k, unsigned) {
		return nw_take_runs(x, (int64_t)k, &res[sp[a + k].k]);
	});
}

static int nw_paths_gact(nw_pexec &x, const nw_align_params_t *p, const std::vector<nw_pspan> &sp,
			 nw_result_t *res)
{
	int T, O;
	nw_gact_params(p, &T, &O);
	std::vector<nw_gact_t> st(sp.size());
	std::vector<nw_gact_tile_t> tile(sp.size());
	std::vector<size_t> active, next;
	std::vector<nw_pjob> all;
	std::vector<std::vector<uint8_t> > opsw(NW_PATH_HOST_THREADS);
	std::vector<uint8_t> &ops = opsw[0];
	for (size_t a = 0; a < sp.size(); a++) {
		nw_gact_begin(&st[a], sp[a].m, sp[a].n);
		active.push_back(a);
	}
	while (!active.empty()) {
		all.clear();
		next.clear();
		for (size_t a : active) {
			nw_result_t *r = &res[sp[a].k];
			while (nw_gact_next(&st[a], T, O, p, &tile[a]) && (tile[a].tm == 0 || tile[a].tn == 0)) {
				/* one sequence is used up: the tile is one gap, no problem to solve */
				const nw_gact_tile_t &t = tile[a];
				ops.assign((size_t)(t.tm + t.tn), (uint8_t)(t.tm ? NW_CIGAR_I : NW_CIGAR_D));
				NW_TRY(nw_gact_take(&st[a], &t, ops.data(), (int64_t)ops.size(), r));
			}
			if (st[a].i == 0 && st[a].j == 0) {
				nw_gact_end(&st[a], r);
				continue;
			}
			const nw_gact_tile_t &t = tile[a];
			next.push_back(a);
			all.push_back(nw_make_pjob(sp[a].qb + t.i - 1, -1, t.tm, sp[a].rb + t.j - 1, -1, t.tn, t.top_open,
						   t.left_open, p->sc->gap_open));
		}
		active.swap(next);
		NW_TRY(nw_run_batches(x, all, true, 1, true, [&](size_t b, size_t k, unsigned w) {
			const size_t a = active[b + k];
			if (x.n_runs[k] < 0) return (int)NW_ERR_INTERNAL;
			const uint32_t *r = x.runs.data() + x.jobs[k].run_off;
			std::vector<uint8_t> &o = opsw[w];
			o.clear();
			for (int32_t z = x.n_runs[k] - 1; z >= 0; z--) o.insert(o.end(), NW_CIGAR_LEN(r[z]), (uint8_t)NW_CIGAR_OP(r[z]));
			return nw_gact_take(&st[a], &tile[a], o.data(), (int64_t)o.size(), &res[sp[a].k]);
		}));
	}
	return 0;
}

/* A Myers-Miller sub-problem, or a pair of insertions emitted between two of them. */
struct nw_mm_node {
	int64_t span;       /* index into the spans */
	int64_t q0, m, r0, n; /* code indices and lengths */
	int32_t tb, te;
	int emit_ii;        /* 1: not a problem: the two insertions around a split in a gap */
};

static int64_t nw_env_mm_leaf(void)
{
	const char *s = getenv("NW_GPU_MM_LEAF");
	return s && *s ? atoll(s) : 0;
}

static int nw_paths_exact(nw_pexec &x, const std::vector<nw_pspan> &sp, nw_result_t *res, int32_t O)
{
	const int64_t env_leaf = nw_env_mm_leaf(), leaf = env_leaf > 0 ? env_leaf : NW_PATH_FULL_CELLS;
	std::vector<nw_mm_node> cur, nxt;
	for (size_t a = 0; a < sp.size(); a++) cur.push_back({(int64_t)a, sp[a].qb, sp[a].m, sp[a].rb, sp[a].n, O, O, 0});
	auto splits = [&](const nw_mm_node &v) {
		return !v.emit_ii && v.m >= 2 && v.n >= 1 && (v.m + 1) * (v.n + 1) > leaf;
	};
	std::vector<nw_pjob> all;
	std::vector<std::vector<int64_t> > rowsw(NW_PATH_HOST_THREADS); /* per host thread */
	for (;;) {
		all.clear();
		for (const nw_mm_node &v : cur) {
			if (!splits(v)) continue;
			const int64_t mid = v.m / 2;
			all.push_back(nw_make_pjob(v.q0, 1, mid, v.r0, 1, v.n, O, v.tb, O));
			all.push_back(nw_make_pjob(v.q0 + v.m - 1, -1, v.m - mid, v.r0 + v.n - 1, -1, v.n, O, v.te, O));
		}
		if (all.empty()) break;
		/* results per split node, in order: [2 * x] forward, [2 * x + 1] reverse */
		std::vector<int64_t> split_col(all.size() / 2);
		std::vector<int> split_gap(all.size() / 2);
		NW_TRY(nw_run_batches(x, all, false, 2, true, [&](size_t b, size_t k, unsigned w) {
			if (k % 2 == 0) return 0; /* batches start at even indices: k - 1 is the forward half */
			const nw_pjob &f = x.jobs[k - 1], &r = x.jobs[k];
			const int64_t n = f.n;
			std::vector<int64_t> &v = rowsw[w];
			v.resize(4 * (size_t)(n + 1));
			int64_t *HF = v.data(), *FF = HF + n + 1, *HR = FF + n + 1, *FR = HR + n + 1;
			const int32_t *hf = x.rows.data() + f.out_off, *hr = x.rows.data() + r.out_off;
			for (int64_t c = 0; c <= n; c++) {
				HF[c] = hf[c], FF[c] = hf[n + 1 + c];
				HR[c] = hr[c], FR[c] = hr[n + 1 + c];
			}
			int gap = 0;
			split_col[(b + k) / 2] = nw_mm_split(HF, FF, HR, FR, n, O, &gap);
			split_gap[(b + k) / 2] = gap;
			return 0;
		}));
		nxt.clear();
		size_t z = 0;
		for (const nw_mm_node &v : cur) {
			if (!splits(v)) {
				nxt.push_back(v);
				continue;
			}
			const int64_t mid = v.m / 2, c = split_col[z];
			const int gap = split_gap[z++];
			if (!gap) {
				nxt.push_back({v.span, v.q0, mid, v.r0, c, v.tb, O, 0});
				nxt.push_back({v.span, v.q0 + mid, v.m - mid, v.r0 + c, v.n - c, O, v.te, 0});
			} else {
				nxt.push_back({v.span, v.q0, mid - 1, v.r0, c, v.tb, 0, 0});
				nxt.push_back({v.span, 0, 0, 0, 0, 0, 0, 1});
				nxt.push_back({v.span, v.q0 + mid + 1, v.m - mid - 1, v.r0 + c, v.n - c, 0, v.te, 0});
			}
		}
		cur.swap(nxt);
	}
	/* leaves: trace problems; then every span's pieces in order */
	all.clear();
	std::vector<int64_t> job_of(cur.size(), -1);
	for (size_t a = 0; a < cur.size(); a++) {
		const nw_mm_node &v = cur[a];
		if (v.emit_ii || v.m == 0 || v.n == 0) continue;
		job_of[a] = (int64_t)all.size();
		all.push_back(nw_make_pjob(v.q0, 1, v.m, v.r0, 1, v.n, O, v.tb, v.te));
	}
	/* the pieces are emitted in node order, so batches must follow it: keep every batch's
	 * runs until its turn comes (batches are in node order too) */
	size_t next_node = 0;
	auto emit_until = [&](size_t stop, size_t base) -> int {
		for (; next_node < stop; next_node++) {
			const nw_mm_node &v = cur[next_node];
			nw_result_t *r = &res[sp[v.span].k];
			int ret = 0;
			if (v.emit_ii) ret = nw_cigar_push(r, NW_CIGAR_I, 2);
			else if (v.n == 0) ret = v.m ? nw_cigar_push(r, NW_CIGAR_I, v.m) : 0;
			else if (v.m == 0) ret = nw_cigar_push(r, NW_CIGAR_D, v.n);
			else ret = nw_take_runs(x, job_of[next_node] - (int64_t)base, r);
			if (ret < 0) return ret;
		}
		return 0;
	};
	std::vector<size_t> node_of_job;
	for (size_t a = 0; a < cur.size(); a++)
		if (job_of[a] >= 0) node_of_job.push_back(a);
	NW_TRY(nw_run_batches(x, all, true, 1, false, [&](size_t b, size_t k, unsigned) -> int {
		if (k + 1 < x.jobs.size()) return 0; /* after the batch's last job: emit up to it */
		return emit_until(node_of_job[b + k] + 1, b);
	}));
	return emit_until(cur.size(), 0);
}

static double nw_path_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Paths of every pair with a non-empty span, on g (or emulated when g is NULL). */
static int nw_paths(nw_gpu_t *g, const nw_align_params_t *p, const uint8_t *qc, const uint8_t *rc,
		    const int64_t *qoff, const int64_t *roff, const nw_pair_t *pairs, int64_t n,
		    nw_result_t *res, char *err, size_t errlen)
{
	const nw_scoring_t *sc = p->sc;
	nw_pexec x;
	x.g = g;
	x.qcodes = qc, x.rcodes = rc, x.qoff = qoff, x.roff = roff;
	x.O = sc->gap_open, x.E = sc->gap_extend;
	x.ms = x.ms_trace = 0;
	x.timing = false;
	for (int a = 0; a < 32; a++)
		for (int b = 0; b < 32; b++) x.score[a * 32 + b] = a < sc->n_codes && b < sc->n_codes ? sc->score[a][b] : 0;
	x.budget = g ? std::min(nw_gpu_mem_avail(g) / 2, NW_PATH_BUDGET_MAX) : ((size_t)1 << 30);
	std::vector<nw_pspan> full, gact, exact;
	const int64_t step = (int64_t)sc->gap_open + sc->gap_extend +
			     std::max<int64_t>(std::abs((int64_t)sc->max_score), std::abs((int64_t)sc->min_score));
	for (int64_t k = 0; k < n; k++) {
		nw_result_t *r = &res[k];
		r->n_cigar = 0;
		r->path_kind = NW_PATH_NONE;
		const int64_t m = r->qend - r->qstart, nn = r->rend - r->rstart;
		if (m <= 0 && nn <= 0) continue; /* the empty local alignment has no path */
		if (m == 0 || nn == 0) {     /* one gap: the CPU's mm() emits it the same way */
			r->path_kind = NW_PATH_FULL;
			if (nw_cigar_push(r, m ? NW_CIGAR_I : NW_CIGAR_D, m ? m : nn) < 0) return NW_ERR_MEMORY;
			continue;
		}
		if ((m + nn + NW_PATH_GMAX * NW_PATH_RMAX + 2) * step >= ((int64_t)1 << 30)) {
			snprintf(err, errlen, "GPU path engine: a %lld x %lld span needs scores beyond 32 bits; use --backend cpu",
				 (long long)m, (long long)nn);
			return NW_ERR_USAGE;
		}
		const nw_pspan s = {k, qoff[pairs[k].q] + r->qstart, roff[pairs[k].r] + r->rstart, m, nn};
		r->path_kind = nw_path_kind(p, m, nn);
		(r->path_kind == NW_PATH_FULL ? full : r->path_kind == NW_PATH_GACT ? gact : exact).push_back(s);
	}
	if (g) g->err = err, g->errlen = errlen;
	const char *et = getenv("NW_GPU_TIMING");
	const bool timing = et && *et == '1';
	x.timing = timing;
	double t0 = nw_path_now(), ms0 = x.ms;
	int ret = nw_paths_full(x, full, res, sc);
	double t1 = nw_path_now(), ms1 = x.ms;
	if (ret == 0) ret = nw_paths_gact(x, p, gact, res);
	double t2 = nw_path_now(), ms2 = x.ms;
	if (ret == 0) ret = nw_paths_exact(x, exact, res, sc->gap_open);
	if (timing)
		fprintf(stderr, "nw_gpu paths: traces %.1f ms; full %zu: %.1f ms (kernels %.1f); gact %zu: %.1f ms (kernels %.1f); exact %zu: %.1f ms (kernels %.1f)\n",
			x.ms_trace, full.size(), 1e3 * (t1 - t0), ms1 - ms0, gact.size(), 1e3 * (t2 - t1), ms2 - ms1, exact.size(),
			1e3 * (nw_path_now() - t2), x.ms - ms2);
	if (ret < 0 && !err[0]) snprintf(err, errlen, "GPU path engine: internal error (%d)", ret);
	return ret;
}

extern "C" int nw_gpu_paths(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
			    const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
			    char *err, size_t errlen)
{
	g->err = err;
	g->errlen = errlen;
	err[0] = 0;
	if (n <= 0) return 0;
	NW_CUDA_CHECK(g, cudaSetDevice(g->device));
	const nw_dseqs_t *qs, *rs;
	NW_TRY(nw_gpu_seqs(g, qb, &qs));
	NW_TRY(nw_gpu_seqs(g, rb, &rs));
	return nw_paths(g, p, (const uint8_t *)qs->codes.p, (const uint8_t *)rs->codes.p, qs->hboff, rs->hboff, pairs,
			n, res, err, errlen);
}

/* See gpu_internal.cuh. */
void nw_host_codes(const nw_batch_t *b, std::vector<uint8_t> &codes, std::vector<int64_t> &off)
{
	off.resize((size_t)b->n + 1);
	int64_t tot = 0;
	for (int64_t i = 0; i < b->n; i++) off[i] = tot, tot += b->len[i];
	off[b->n] = tot;
	codes.resize((size_t)tot + 1);
	for (int64_t i = 0; i < b->n; i++) nw_batch_unpack(b, i, codes.data() + off[i]);
}

extern "C" int nw_gpu_paths_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
				     const nw_pair_t *pairs, int64_t n, nw_result_t *res, char *err,
				     size_t errlen)
{
	std::vector<uint8_t> qc, rc;
	std::vector<int64_t> qo, ro;
	err[0] = 0;
	nw_host_codes(qb, qc, qo);
	nw_host_codes(rb, rc, ro);
	return nw_paths(NULL, p, qc.data(), rc.data(), qo.data(), ro.data(), pairs, n, res, err, errlen);
}
