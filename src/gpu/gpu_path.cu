/* gpu_path.cu: the path engine's batches (nw_gpu_paths; its driver is
 * gpu_path_driver.cu): path problems (path_dp.cuh) of every shape run on the device, or
 * their kernels emulated thread by thread on the host (g == NULL), so that tests can check
 * the thread logic without a device.
 *
 * A FULL span's optimal score is known (the score engine's), so its problem computes only
 * the diagonals that a path of that score can reach (src/band.h): with a score near the
 * maximum, a few. To follow such a band closely a problem takes fewer threads (G of 4, 8
 * or 16 rather than a warp: stripes of fewer rows, less lag, G and R chosen by a small
 * cost model), or a single thread that sweeps the band itself (the thin kernel,
 * gpu_thin.cu, taken by every span whose band and values fit it: see nw_pick_shape). GACT
 * tiles keep the whole matrix and a warp each; Myers-Miller problems keep the band of their
 * sub-problem's optimum and a warp each, and those of many stripes (the halves of megabase
 * spans) run as staircases, a warp a stripe (nw_path_stair_kernel).
 *
 * A batch is cut to the device memory that cudaMemGetInfo reports free (direction words
 * dominate: 4 bits a computed cell, rounded up to stripes of G R rows).
 */
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <type_traits>
#include <vector>

#include "gpu_path.cuh"
#include "thin_dp.cuh"
extern "C" {
#include "band.h"
#include "path.h"
}

#define NW_PATH_BLOCK 128

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

/* A stripe of a staircase: problem id's stripe s, whose done[] words start at done_off. */
struct nw_stair_ticket {
	int32_t id, s;
	int64_t done_off;
};

/* Long problems (G = 32, all of one R) as staircases: a warp a stripe, the tickets taken in
 * order from *counter (the problems' stripes interleaved, each problem's in order), each
 * stripe a few hundred steps behind the one above, whose border row it reads as it is
 * published (done[], nw_pthread::wait_above and publish). A warp waits only on tickets
 * taken before its own, so on warps that run. The thread logic and the outputs are those
 * of nw_path_dp_kernel, whose warp would sweep the stripes in turn: a Myers-Miller half of
 * a megabase pair has thousands of them. */
template <int R>
__global__ void __launch_bounds__(NW_PATH_BLOCK) nw_path_stair_kernel(nw_pparams p, const nw_stair_ticket *tickets,
								      int64_t count, uint32_t *counter, int32_t *flags)
{
	__shared__ int32_t tab[32 * 32];
	for (int x = threadIdx.x; x < 32 * 32; x += blockDim.x) tab[x] = p.score[x];
	__syncthreads();
	nw_pparams q = p;
	q.score = tab;
	const int t = threadIdx.x & 31;
	for (;;) {
		uint32_t x = 0;
		if (t == 0) x = atomicAdd(counter, 1u);
		x = __shfl_sync(0xffffffffu, x, 0);
		if ((int64_t)x >= count) break; /* whole warp */
		const nw_stair_ticket tk = tickets[x];
		nw_pthread<R, 32> th;
		th.init(q, tk.id, t);
		th.done = flags + tk.done_off;
		th.begin(q, tk.s);
		int32_t hc = 0, fc = 0;
		for (int32_t k = 0; k < th.steps; k++) {
			int32_t hin = __shfl_up_sync(0xffffffffu, hc, 1), fin = __shfl_up_sync(0xffffffffu, fc, 1);
			if (t == 0) th.top(q, k, hin, fin);
			th.step(q, k, hin, fin, hc, fc);
		}
	}
}

/* Problems of a warp (G = 32) with at least this many stripes run as a staircase; the
 * environment's NW_GPU_PATH_STAIR_STRIPES replaces it (tests: 2 sends every problem of two
 * stripes or more through the staircase). */
#define NW_PATH_STAIR_STRIPES 48
static int64_t nw_stair_stripes(void)
{
	const char *e = getenv("NW_GPU_PATH_STAIR_STRIPES");
	return e && atoll(e) > 0 ? atoll(e) : NW_PATH_STAIR_STRIPES;
}

/* The runs of every trace, packed: job id's n_runs words from its run_off to packed[id]
 * in out, a warp a job. */
__global__ void nw_path_pack_kernel(nw_pparams p, const int64_t *packed, uint32_t *out)
{
	const int lane = threadIdx.x & 31;
	for (int64_t id = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; id < p.n_jobs;
	     id += (int64_t)gridDim.x * blockDim.x / 32) {
		const int32_t k = p.n_runs[id];
		const uint32_t *src = p.runs + p.jobs[id].run_off;
		for (int32_t i = lane; i < k; i += 32) out[packed[id] + i] = src[i];
	}
}

/* The Myers-Miller splits of a last-row batch, a warp a node (path_dp.cuh): each lane's
 * best over every 32nd column, merged across the warp. */
__global__ void nw_path_split_kernel(nw_pparams p, int64_t nodes, nw_psplit *out)
{
	const int lane = threadIdx.x & 31;
	for (int64_t z = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; z < nodes;
	     z += (int64_t)gridDim.x * blockDim.x / 32) {
		nw_psplit b = nw_psplit_lane(p.jobs[2 * z], p.jobs[2 * z + 1], p.lastrow, p.O, p.E, lane, 32);
		for (int off = 16; off > 0; off >>= 1) {
			nw_psplit o;
			o.v = __shfl_xor_sync(0xffffffffu, b.v, off);
			o.col = __shfl_xor_sync(0xffffffffu, b.col, off);
			o.up = __shfl_xor_sync(0xffffffffu, b.up, off);
			o.down = __shfl_xor_sync(0xffffffffu, b.down, off);
			o.gap = __shfl_xor_sync(0xffffffffu, b.gap, off);
			o.pad_ = 0;
			if (nw_psplit_before(o, b)) b = o;
		}
		if (lane == 0) out[z] = b;
	}
}

/* The same on the host: the 32 lanes' bests, merged in lane order. */
static void nw_path_split_emulate(const nw_pparams &p, int64_t nodes, nw_psplit *out)
{
	for (int64_t z = 0; z < nodes; z++) {
		nw_psplit b = nw_psplit_lane(p.jobs[2 * z], p.jobs[2 * z + 1], p.lastrow, p.O, p.E, 0, 32);
		for (int lane = 1; lane < 32; lane++) {
			const nw_psplit o = nw_psplit_lane(p.jobs[2 * z], p.jobs[2 * z + 1], p.lastrow, p.O, p.E, lane, 32);
			if (nw_psplit_before(o, b)) b = o;
		}
		out[z] = b;
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


/* See gpu_path.cuh. */
int nw_pick_R(int64_t m)
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

/* See gpu_path.cuh. */
void nw_pick_shape(nw_pjob &j, int force_g, const nw_scoring_t *sc, int thin_wmax)
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

/* See gpu_path.cuh. */
size_t nw_pjob_bytes(const nw_pjob &j, bool trace)
{
	size_t b = sizeof(nw_pjob) + 4 + 4 * 2 * (size_t)(j.n + 1); /* border row */
	if (!trace) b += 4 * (size_t)nw_plast_entries(j);    /* last row */
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

/* See gpu_path.cuh. */
nw_path_host *nw_path_host_of(nw_gpu_t *g)
{
	if (!g->phost) g->phost = new (std::nothrow) nw_path_host();
	return g->phost;
}

void nw_path_host_free(nw_gpu_t *g)
{
	delete g->phost;
	g->phost = nullptr;
}

/* See gpu_path.cuh. */
int nw_pexec_run(nw_pexec &x, bool trace)
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
			outi += nw_plast_entries(j);
		} else {
			if (j.G > 1) j.dir_off = dirw, dirw += j.dir_words;
			j.run_off = runw;
			runw += (int64_t)j.m + j.n + 1;
		}
	}
	for (int sh = NW_PATH_SHAPES; sh < NW_PATH_ALL_SHAPES && trace; sh++) /* thin: a warp's words interleave */
		dirw += nw_thin_layout(x.jobs, ids.data() + first[sh], first[sh + 1] - first[sh], dirw);
	/* (on a device, the runs come back packed and the last rows stay there: see below) */
	const int64_t nodes = trace ? 0 : n / 2;
	if (!x.rows.resize(x.g ? 0 : (size_t)outi) || /* every entry is written: column 0 and the windows */
	    !x.runs.resize(trace && !x.g ? (size_t)runw : 0) || !x.n_runs.assign(trace ? (size_t)n : 0, 0) ||
	    !x.corner.assign(trace ? 2 * (size_t)n : 0, 0) || !x.splits.resize((size_t)nodes))
		return NW_ERR_MEMORY;
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
		if (!trace) nw_path_split_emulate(p, nodes, x.splits.data());
		return 0;
	}
	nw_gpu_t *g = x.g;
	/* Staircases: the warp shapes' problems of many stripes, at the head of their shape's
	 * ids (most steps first); a done[] word a stripe each, and for each R a launch whose
	 * tickets interleave its problems' stripes. */
	std::vector<int32_t> stair_ids;
	std::vector<nw_stair_ticket> tickets;
	int64_t stair_in[NW_PATH_SHAPES] = {0}, flagw = 0, tick_first[5] = {0}, stair_warps[4] = {0};
	const int64_t stair_min = nw_stair_stripes();
	for (int r = 0; r < 4; r++) {
		const int sh = r * 4 + 3; /* G = 32 */
		std::vector<int64_t> off;
		int64_t most = 0;
		for (int64_t a = first[sh]; a < first[sh + 1] && nw_pstripes(x.jobs[ids[a]]) >= stair_min; a++) {
			const nw_pjob &jb = x.jobs[ids[a]];
			const int64_t stripes = nw_pstripes(jb);
			stair_ids.push_back(ids[a]);
			off.push_back(flagw);
			flagw += stripes;
			most = std::max(most, stripes);
			stair_in[sh]++;
			/* a stripe starts about 32 R + 48 steps after the one above (its window moves
			 * by its rows; its group's lag and the publishing period), so a window of W
			 * columns keeps about W / (32 R + 48) stripes at work */
			const int64_t W = std::min<int64_t>(jb.n, (int64_t)jb.dhi - jb.dlo + 32 * jb.R);
			stair_warps[r] += std::min<int64_t>(stripes, 2 * (W / (32 * jb.R + 48) + 1));
		}
		for (int64_t st = 0; st < most; st++)
			for (size_t k = 0; k < off.size(); k++) {
				const int32_t id = stair_ids[stair_ids.size() - off.size() + k];
				if (st < nw_pstripes(x.jobs[id])) tickets.push_back({id, (int32_t)st, off[k]});
			}
		tick_first[r + 1] = (int64_t)tickets.size();
	}
	const int64_t n_stair = (int64_t)stair_ids.size();
	const size_t bj = (size_t)n * sizeof(nw_pjob), bd = 4 * (size_t)dirw, br = 4 * (size_t)rowi,
		     bu = 4 * (size_t)runw, bn = 4 * (size_t)n, bc = 8 * (size_t)n, bi = 4 * (size_t)n,
		     bo = 4 * (size_t)outi, bf = 4 * ((size_t)flagw + 4), bt = sizeof(nw_stair_ticket) * tickets.size(),
		     bs = sizeof(nw_psplit) * (size_t)nodes;
	/* one device buffer: jobs | ids | table | counters | n_runs | corner | rows | runs | dirs |
	 * last rows | staircase counters (4) and done[] | tickets | splits */
	const size_t o_ids = (bj + 15) & ~(size_t)15, o_tab = (o_ids + bi + 15) & ~(size_t)15, o_cnt = o_tab + 4096,
		     o_nr = o_cnt + 4 * NW_PATH_ALL_SHAPES,
		     o_co = (o_nr + bn + 15) & ~(size_t)15, o_rows = (o_co + bc + 15) & ~(size_t)15,
		     o_runs = (o_rows + br + 15) & ~(size_t)15, o_dirs = (o_runs + bu + 15) & ~(size_t)15,
		     o_out = (o_dirs + bd + 15) & ~(size_t)15, o_flags = (o_out + bo + 15) & ~(size_t)15,
		     o_tick = (o_flags + bf + 15) & ~(size_t)15, o_split = (o_tick + bt + 15) & ~(size_t)15,
		     total = o_split + bs + 16;
	NW_TRY(nw_dbuf_reserve(g, &g->pbuf, total));
	char *d = (char *)g->pbuf.p;
	NW_CUDA_CHECK(g, cudaMemcpyAsync(d, x.jobs.data(), bj, cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(d + o_ids, ids.data(), bi, cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(d + o_tab, x.score, 4096, cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemsetAsync(d + o_cnt, 0, 4 * NW_PATH_ALL_SHAPES, g->stream));
	if (n_stair) {
		NW_CUDA_CHECK(g, cudaMemsetAsync(d + o_flags, 0, bf, g->stream));
		NW_CUDA_CHECK(g, cudaMemcpyAsync(d + o_tick, tickets.data(), bt, cudaMemcpyHostToDevice, g->stream));
	}
	p.jobs = (const nw_pjob *)d;
	p.score = (const int32_t *)(d + o_tab);
	p.n_runs = (int32_t *)(d + o_nr);
	p.corner = (int32_t *)(d + o_co);
	p.rows = (int32_t *)(d + o_rows);
	p.runs = (uint32_t *)(d + o_runs);
	p.dirs = (uint32_t *)(d + o_dirs);
	p.lastrow = (int32_t *)(d + o_out);
	if (!g->ev_ok) {
		for (int k = 0; k < 3; k++) NW_CUDA_CHECK(g, cudaEventCreate(&g->ev[k]));
		g->ev_ok = 1;
	}
	const int64_t warps_per_sm = 16; /* 4 blocks of 4 warps: enough to hide the latency */
	NW_MARK_FIRST_KERNEL(g);
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
	/* The staircases first, one after another on the main stream (each fills the GPU),
	 * the rest of each shape beside them. */
	for (int r = 0; r < 4; r++) {
		const int64_t cnt = tick_first[r + 1] - tick_first[r];
		if (!cnt) continue;
		const int64_t warps = std::min<int64_t>(cnt, stair_warps[r] + 2 * g->n_sm);
		const int64_t blocks = std::min<int64_t>((warps + NW_PATH_BLOCK / 32 - 1) / (NW_PATH_BLOCK / 32),
							 (int64_t)g->n_sm * warps_per_sm / (NW_PATH_BLOCK / 32));
		const nw_stair_ticket *tk = (const nw_stair_ticket *)(d + o_tick) + tick_first[r];
		uint32_t *counter = (uint32_t *)(d + o_flags) + r;
		int32_t *flags = (int32_t *)(d + o_flags) + 4;
		switch (nw_path_rs[r]) {
		case 4: nw_path_stair_kernel<4><<<(unsigned)blocks, NW_PATH_BLOCK, 0, g->stream>>>(p, tk, cnt, counter, flags); break;
		case 5: nw_path_stair_kernel<5><<<(unsigned)blocks, NW_PATH_BLOCK, 0, g->stream>>>(p, tk, cnt, counter, flags); break;
		case 6: nw_path_stair_kernel<6><<<(unsigned)blocks, NW_PATH_BLOCK, 0, g->stream>>>(p, tk, cnt, counter, flags); break;
		default: nw_path_stair_kernel<8><<<(unsigned)blocks, NW_PATH_BLOCK, 0, g->stream>>>(p, tk, cnt, counter, flags); break;
		}
		NW_LAUNCH_CHECK(g);
	}
	for (int sh = 0; sh < NW_PATH_SHAPES; sh++) {
		const int64_t cnt = first[sh + 1] - first[sh] - stair_in[sh];
		if (cnt <= 0) continue;
		const int64_t per_warp = 32 / nw_path_gs[sh % 4], warps = (cnt + per_warp - 1) / per_warp;
		const int64_t blocks = std::min<int64_t>((warps + NW_PATH_BLOCK / 32 - 1) / (NW_PATH_BLOCK / 32),
							 (int64_t)g->n_sm * warps_per_sm / (NW_PATH_BLOCK / 32));
		const int32_t *dids = (const int32_t *)(d + o_ids) + first[sh] + stair_in[sh];
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
		/* Each trace has room for m + n + 1 runs and uses a few: the counts come back
		 * first, then nw_path_pack_kernel packs the runs used into g->pack, and only those
		 * come back (the jobs' run_off then index the packed runs). */
		NW_CUDA_CHECK(g, cudaMemcpyAsync(x.n_runs.data(), p.n_runs, bn, cudaMemcpyDeviceToHost, g->stream));
		NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
		std::vector<int64_t> packed((size_t)n);
		int64_t used = 0;
		for (int64_t k = 0; k < n; k++) packed[k] = used, used += std::max(x.n_runs[k], 0);
		NW_TRY(nw_dbuf_reserve(g, &g->pack, 8 * (size_t)n + 4 * (size_t)used + 16));
		int64_t *dpacked = (int64_t *)g->pack.p;
		uint32_t *druns = (uint32_t *)(dpacked + n);
		NW_CUDA_CHECK(g, cudaMemcpyAsync(dpacked, packed.data(), 8 * (size_t)n, cudaMemcpyHostToDevice, g->stream));
		const int64_t pb = std::min<int64_t>((n + NW_PATH_BLOCK / 32 - 1) / (NW_PATH_BLOCK / 32), (int64_t)g->n_sm * 8);
		nw_path_pack_kernel<<<(unsigned)pb, NW_PATH_BLOCK, 0, g->stream>>>(p, dpacked, druns);
		NW_LAUNCH_CHECK(g);
		if (!x.runs.resize((size_t)used)) return NW_ERR_MEMORY;
		NW_CUDA_CHECK(g, cudaMemcpyAsync(x.runs.data(), druns, 4 * (size_t)used, cudaMemcpyDeviceToHost, g->stream));
		for (int64_t k = 0; k < n; k++) x.jobs[k].run_off = packed[k];
	} else if (nodes) { /* the splits alone come back, not the rows */
		nw_psplit *dsplit = (nw_psplit *)(d + o_split);
		const int64_t sb = std::min<int64_t>((nodes + NW_PATH_BLOCK / 32 - 1) / (NW_PATH_BLOCK / 32), (int64_t)g->n_sm * 8);
		nw_path_split_kernel<<<(unsigned)sb, NW_PATH_BLOCK, 0, g->stream>>>(p, nodes, dsplit);
		NW_LAUNCH_CHECK(g);
		NW_CUDA_CHECK(g, cudaMemcpyAsync(x.splits.data(), dsplit, bs, cudaMemcpyDeviceToHost, g->stream));
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

/* See gpu_path.cuh. */
int nw_take_runs(const nw_pexec &x, int64_t k, nw_result_t *res)
{
	if (x.n_runs[k] < 0) return NW_ERR_INTERNAL; /* the band missed the path */
	const uint32_t *r = x.runs.data() + x.jobs[k].run_off;
	if (nw_cigar_reserve(res, res->n_cigar + x.n_runs[k]) < 0) return NW_ERR_MEMORY; /* one allocation */
	for (int32_t a = x.n_runs[k] - 1; a >= 0; a--)
		if (nw_cigar_push(res, NW_CIGAR_OP(r[a]), NW_CIGAR_LEN(r[a])) < 0) return NW_ERR_MEMORY;
	return 0;
}

