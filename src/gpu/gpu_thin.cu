/* gpu_thin.cu: the thin path kernel, a thread a problem along its band of diagonals
 * (thread logic in thin_dp.cuh), for FULL spans whose optimal score is known and whose band
 * is narrow (gpu_path.cu plans them as the shapes with G = 1). A thread computes its
 * problem's direction nibbles, then traces them itself: its words are still in the cache,
 * and the other warps of the SM keep the arithmetic busy meanwhile.
 *
 * A warp takes 32 problems at a time from a counter; sorted by band width and rows, they
 * take about as long. A launch serves bands of up to W diagonals: its shared memory is
 * sized for W, so narrow bands get more warps an SM.
 */
#include <algorithm>
#include <stdlib.h>
#include <vector>

#include "gpu_internal.cuh"
#include "path_dp.cuh"
#include "thin_dp.cuh"

#define NW_THIN_BLOCK 128

/* The launch classes: bands of up to 16, ..., 128 diagonals (shared memory grows with the
 * band, so that a class of narrower bands fits more warps an SM). */
static const int nw_thin_w[NW_THIN_CLASSES] = {16, 32, 48, 64, 96, 128};

int nw_thin_class(int W)
{
	int c = 0;
	while (c < NW_THIN_CLASSES - 1 && W > nw_thin_w[c]) c++;
	return c;
}

/* NW_GPU_THIN_W=w: the widest band a thin kernel takes (0: none; default NW_THIN_WMAX). */
int nw_thin_wmax(void)
{
	const char *s = getenv("NW_GPU_THIN_W");
	const int w = s && *s ? atoi(s) : NW_THIN_WMAX;
	return w < 0 ? 0 : w > NW_THIN_WMAX ? NW_THIN_WMAX : w;
}

NW_HD size_t nw_thin_thread_bytes(int W) { return (size_t)(W + 1) * 4 + (size_t)nw_thin_ring(W); }
#define NW_THIN_TAB_WORDS (32 * NW_THIN_TAB_ROW)
static size_t nw_thin_smem(int W) { return NW_THIN_TAB_WORDS * 4 + NW_THIN_BLOCK * nw_thin_thread_bytes(W); }

/* The 32 x 32 table p.score in rows of NW_THIN_TAB_ROW. */
NW_HD void nw_thin_fill_tab(int32_t *tab, const int32_t *score, int from, int step)
{
	for (int x = from; x < 32 * 32; x += step) tab[x / 32 * NW_THIN_TAB_ROW + x % 32] = score[x];
}

/* This thread's band memory in a block's shared memory after the table: per warp, the
 * slots of its 32 threads side by side, then their rings. */
__device__ nw_thin_mem nw_thin_dev_mem(char *base, int W)
{
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	char *w = base + (size_t)warp * 32 * nw_thin_thread_bytes(W);
	nw_thin_mem m;
	m.hf = (uint32_t *)w + lane;
	m.ring = (uint8_t *)(w + (size_t)32 * (W + 1) * 4) + lane;
	m.stride = 32;
	return m;
}

/* ---------------------------------------------------------------- paths */

/* Path problem id: the band sweep (thin_dp.cuh) and its trace (path_dp.cuh). */
NW_HD void nw_thin_path_one(const nw_pparams &p, int64_t id, const int32_t *tab, const nw_thin_mem &mem)
{
	const nw_pjob &jb = p.jobs[id];
	nw_thin th;
	th.pb.q = p.qcodes + jb.qbase, th.pb.r = p.rcodes + jb.rbase;
	th.pb.qstep = jb.qstep, th.pb.rstep = jb.rstep;
	th.pb.m = jb.m, th.pb.n = jb.n, th.pb.dlo = jb.dlo, th.pb.W = 8 * jb.R;
	th.pb.top_open = jb.top_open, th.pb.left_open = jb.left_open;
	th.mem = mem;
	th.tab = tab;
	th.O = p.O, th.E = p.E;
	th.dir = p.dirs + jb.dir_off;
	th.words = jb.R;
	th.corner_h = th.corner_f = NW_THIN_LOW;
	th.run();
	p.corner[2 * id] = th.corner_h;
	p.corner[2 * id + 1] = th.corner_f;
	nw_ptrace(p, id);
}

__global__ void __launch_bounds__(NW_THIN_BLOCK) nw_thin_path_kernel(nw_pparams p, const int32_t *ids, int64_t count,
								      uint32_t *counter, int W)
{
	extern __shared__ __align__(16) int32_t nw_thin_sm[];
	nw_thin_fill_tab(nw_thin_sm, p.score, threadIdx.x, blockDim.x);
	__syncthreads();
	const nw_thin_mem mem = nw_thin_dev_mem((char *)(nw_thin_sm + NW_THIN_TAB_WORDS), W);
	const int lane = threadIdx.x & 31;
	for (;;) {
		uint32_t x = 0;
		if (lane == 0) x = atomicAdd(counter, 32u);
		x = __shfl_sync(0xffffffffu, x, 0);
		if ((int64_t)x >= count) break;
		if ((int64_t)x + lane < count) nw_thin_path_one(p, ids[x + lane], nw_thin_sm, mem);
		__syncwarp();
	}
}

/* Class cls's problems ids[0..count) on stream st: as many blocks as fit the SMs at once
 * (the kernel is persistent). */
int nw_thin_path_launch(nw_gpu_t *g, const nw_pparams &p, const int32_t *ids, int64_t count, uint32_t *counter,
			int cls, cudaStream_t st)
{
	const int W = nw_thin_w[cls];
	const size_t smem = nw_thin_smem(W);
	if (smem > 48 * 1024) /* the most the device allows, as nw_blocks_per_sm sets it */
		NW_CUDA_CHECK(g, cudaFuncSetAttribute(nw_thin_path_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
						      (int)std::max<size_t>(smem, g->smem_optin)));
	int per_sm = 0;
	NW_CUDA_CHECK(g, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, nw_thin_path_kernel, NW_THIN_BLOCK, smem));
	const int64_t blocks = std::min<int64_t>((count + NW_THIN_BLOCK - 1) / NW_THIN_BLOCK,
						 (int64_t)std::max(per_sm, 1) * g->n_sm);
	nw_thin_path_kernel<<<(unsigned)blocks, NW_THIN_BLOCK, smem, st>>>(p, ids, count, counter, W);
	NW_LAUNCH_CHECK(g);
	return 0;
}

void nw_thin_path_emulate(const nw_pparams &p, const int32_t *ids, int64_t count)
{
	std::vector<uint32_t> hf(NW_THIN_WMAX + 1);
	std::vector<uint8_t> ring(NW_THIN_WMAX);
	std::vector<int32_t> tab(NW_THIN_TAB_WORDS);
	nw_thin_fill_tab(tab.data(), p.score, 0, 1);
	nw_thin_mem mem = {hf.data(), ring.data(), 1};
	for (int64_t x = 0; x < count; x++) nw_thin_path_one(p, ids[x], tab.data(), mem);
}

/* Direction words of thin problems ids[0..count) (a thin shape's launch order): a warp's
 * 32 problems interleave, each taking the lane's column of its warp's block. Returns the
 * words used from dir_base on. */
int64_t nw_thin_layout(std::vector<nw_pjob> &jobs, const int32_t *ids, int64_t count, int64_t dir_base)
{
	int64_t used = 0;
	for (int64_t w = 0; w < count; w += 32) {
		int64_t most = 0;
		for (int64_t l = 0; l < 32 && w + l < count; l++) {
			nw_pjob &j = jobs[ids[w + l]];
			j.dir_off = dir_base + used + l;
			most = std::max<int64_t>(most, (int64_t)j.m * j.R);
		}
		used += 32 * most;
	}
	return used;
}
