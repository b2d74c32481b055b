/* gpu_top.cu: --top on the GPU: of each query's pairs, the best few stay on the device's
 * side of the bus.
 *
 * A database search scores every query against every reference but writes only the best
 * references of each query. The forward pass leaves its results in device memory; here
 * every query's results are ranked there (score, then reference order: a stable
 * segmented sort, one segment a query) and only the kept ones come back. The host's
 * share is then the jobs and the plan, not millions of results to fill and rank. A local
 * search ranks by scores alone, so its pass is the score-only class (NW_KC_BEST, no end
 * cell tracked); the kept pairs' end cells come from a local pass over them alone
 * (nw_top_ends). The local pass is the search pass of gpu_search.cu where it applies (no
 * job or result of a pair on the host); the others are nw_forward's.
 */
#include <algorithm>
#include <cub/device/device_segmented_sort.cuh>
#include <string.h>

#include "gpu_internal.cuh"

/* Pair k's problem (or its slot after the problems, for a pair without cells) and rank
 * key; value: k's position in its query's segment. */
__global__ void nw_top_keys(const nw_dp_out *out, const int64_t *map, int64_t n, int64_t n_ref, int64_t *key,
			    uint32_t *val)
{
	for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
		key[k] = out[map[k]].score;
		val[k] = (uint32_t)(k % n_ref);
	}
}

/* The first kept positions of each sorted segment: pair index, score and end cell (global:
 * the far corner of the job, as nw_gpu_align reports it). */
struct nw_top_rec {
	int64_t k, score, qend, rend;
};

__global__ void nw_top_gather(const nw_dp_out *out, const nw_job_t *jobs, const int64_t *map, int64_t n_jobs,
			      int global, const uint32_t *sorted, int64_t n_seg, int64_t n_ref, int64_t kept,
			      nw_top_rec *rec)
{
	const int64_t total = n_seg * kept;
	for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
		const int64_t s = t / kept, r = t % kept, k = s * n_ref + sorted[s * n_ref + r], x = map[k];
		const nw_dp_out &o = out[x];
		nw_top_rec v;
		v.k = k;
		v.score = o.score;
		const bool job = global && x < n_jobs;
		v.qend = job ? jobs[x].m : o.i;
		v.rend = job ? jobs[x].n : o.j;
		rec[t] = v;
	}
}

/* The end cells of the n kept pairs of a score-only pass (nw_pass_t.best), whose results
 * res hold their scores: a local pass over those pairs alone, which must score them the
 * same. */
static int nw_top_ends(nw_gpu_t *g, const nw_align_params_t *fp, const nw_batch_t *qb, const nw_batch_t *rb,
		       const nw_pair_t *kept, int64_t n, nw_result_t *res)
{
	std::vector<nw_result_t> twin((size_t)n);
	nw_fwd_info info;
	info.timing = false;
	info.best = false;
	NW_TRY(nw_forward(g, fp, qb, rb, kept, n, twin.data(), &info));
	const int64_t *fw_of = g->plan.fw_of.data();
	for (int64_t t = 0; t < n; t++) {
		const int64_t x = fw_of[t];
		const int64_t score = x < 0 ? twin[t].score : g->fw.out[x].score;
		if (score != res[t].score) {
			snprintf(g->err, g->errlen, "GPU engine: kept pair %lld scored %lld, then %lld in its ends' pass",
				 (long long)t, (long long)res[t].score, (long long)score);
			return NW_ERR_INTERNAL;
		}
		res[t].qend = x < 0 ? twin[t].qend : g->fw.out[x].i;
		res[t].rend = x < 0 ? twin[t].rend : g->fw.out[x].j;
	}
	return 0;
}

extern "C" int nw_gpu_top(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			  int top, nw_pair_t *kept_pairs, nw_result_t *kept_res, int64_t *n_kept, char *err,
			  size_t errlen)
{
	g->err = err;
	g->errlen = errlen;
	*n_kept = 0;
	nw_gpu_call_size(g, 0); /* its calls are of a chunk's size from the first */
	const int64_t n_ref = rb->n, n = qb->n * n_ref; /* pair k: query k / n_ref, reference k % n_ref */
	if (n <= 0 || top <= 0) return 0;
	if (n_ref > UINT32_MAX || qb->n > UINT32_MAX) {
		snprintf(err, errlen, "GPU engine: --top over %lld queries and %lld references", (long long)qb->n,
			 (long long)n_ref);
		return NW_ERR_INTERNAL;
	}
	nw_align_params_t fp = *p;
	fp.ends_only = 1;
	fp.starts_only = 0;
	fp.want_path = 0;
	const int64_t n_seg = n / n_ref, kept = top < n_ref ? top : n_ref;
	size_t temp_bytes = 0;
	NW_CUDA_CHECK(g, cub::DeviceSegmentedSort::StableSortPairsDescending(
				 NULL, temp_bytes, (const int64_t *)NULL, (int64_t *)NULL, (const uint32_t *)NULL,
				 (uint32_t *)NULL, n, n_seg, (const int64_t *)NULL, (const int64_t *)NULL, g->stream));
	size_t off = 0;
	const size_t o_map = nw_carve(&off, (size_t)n * sizeof(int64_t));
	const size_t o_key = nw_carve(&off, (size_t)n * sizeof(int64_t)), o_key2 = nw_carve(&off, (size_t)n * sizeof(int64_t));
	const size_t o_val = nw_carve(&off, (size_t)n * sizeof(uint32_t)), o_val2 = nw_carve(&off, (size_t)n * sizeof(uint32_t));
	const size_t o_seg = nw_carve(&off, (size_t)(n_seg + 1) * sizeof(int64_t));
	const size_t o_rec = nw_carve(&off, (size_t)(n_seg * kept) * sizeof(nw_top_rec));
	const size_t o_tmp = nw_carve(&off, temp_bytes);
	NW_TRY(nw_dbuf_reserve(g, &g->topbuf, off));
	NW_TRY(nw_hbuf_reserve(g, &g->htop, std::max((size_t)(n_seg + 1) * sizeof(int64_t), (size_t)(n_seg * kept) * sizeof(nw_top_rec))));
	char *base = (char *)g->topbuf.p;
	int64_t *dmap = (int64_t *)(base + o_map), *key = (int64_t *)(base + o_key), *key2 = (int64_t *)(base + o_key2);
	uint32_t *val = (uint32_t *)(base + o_val), *val2 = (uint32_t *)(base + o_val2);
	int64_t *seg = (int64_t *)(base + o_seg);
	nw_top_rec *rec = (nw_top_rec *)(base + o_rec);
	int64_t *hseg = (int64_t *)g->htop.p;

	const char *et = getenv("NW_GPU_TIMING");
	nw_fwd_info info;
	info.timing = et && *et == '1';
	info.best = true; /* local: scores only (the kept pairs' ends come after the ranking) */
	/* the pairs' results on the device: douts[dmap[k]] (for a global pass, the far corner of
	 * jobs[x], x < n_jobs, is the end) */
	const nw_dp_out *douts = NULL;
	const nw_job_t *djobs = NULL;
	int64_t n_jobs = 0;
	int global = 0;
	const int rs = nw_search_forward(g, &fp, qb, rb, dmap, &info, &douts);
	if (rs < 0) return rs;
	if (rs == 1) { /* the generic pass, on the pairs listed */
		std::vector<nw_pair_t> pairs((size_t)n);
		for (int64_t k = 0; k < n; k++) pairs[(size_t)k].q = (uint32_t)(k / n_ref), pairs[(size_t)k].r = (uint32_t)(k % n_ref);
		/* room for the pairs without cells after the problems, before the pass sizes the buffer */
		NW_TRY(nw_dbuf_reserve(g, &g->outs, (size_t)n * sizeof(nw_dp_out)));
		NW_TRY(nw_forward(g, &fp, qb, rb, pairs.data(), n, NULL, &info));
		nw_pass_t &fw = g->fw;
		nw_plan_t &pl = g->plan;
		nw_dp_out *gouts = (nw_dp_out *)g->outs.p;
		/* results that only the host has: long-kernel problems and pairs without cells */
		for (int32_t x : pl.longs)
			NW_CUDA_CHECK(g, cudaMemcpyAsync(gouts + x, &fw.out[x], sizeof(nw_dp_out), cudaMemcpyHostToDevice, g->stream));
		int64_t *map = pl.fw_of.data();
		for (size_t e = 0; e < pl.empties.size(); e++) {
			const int64_t slot = fw.n + (int64_t)e;
			fw.out[slot] = pl.empties[e].second; /* pinned, room for n */
			map[pl.empties[e].first] = slot;
			NW_CUDA_CHECK(g, cudaMemcpyAsync(gouts + slot, &fw.out[slot], sizeof(nw_dp_out), cudaMemcpyHostToDevice,
							 g->stream));
		}
		/* fw_of is pageable: the copy returns once the bytes are taken */
		NW_CUDA_CHECK(g, cudaMemcpyAsync(dmap, map, (size_t)n * sizeof(int64_t), cudaMemcpyHostToDevice, g->stream));
		douts = gouts;
		djobs = (const nw_job_t *)g->jobs.p;
		n_jobs = fw.n;
		global = fw.kind == NW_DP_GLOBAL;
	}
	for (int64_t s = 0; s <= n_seg; s++) hseg[s] = s * n_ref;
	NW_CUDA_CHECK(g, cudaMemcpyAsync(seg, hseg, (size_t)(n_seg + 1) * sizeof(int64_t), cudaMemcpyHostToDevice, g->stream));
	const int threads = 256, blocks = (int)std::min<int64_t>((n + threads - 1) / threads, 8 * 1024);
	nw_top_keys<<<blocks, threads, 0, g->stream>>>(douts, dmap, n, n_ref, key, val);
	NW_LAUNCH_CHECK(g);
	NW_CUDA_CHECK(g, cub::DeviceSegmentedSort::StableSortPairsDescending(base + o_tmp, temp_bytes, key, key2, val, val2, n,
									    n_seg, (const int64_t *)seg, (const int64_t *)seg + 1,
									    g->stream));
	const int64_t total = n_seg * kept;
	const int gblocks = (int)std::min<int64_t>((total + threads - 1) / threads, 8 * 1024);
	nw_top_gather<<<gblocks, threads, 0, g->stream>>>(douts, djobs, dmap, n_jobs, global, val2, n_seg, n_ref, kept,
							 rec);
	NW_LAUNCH_CHECK(g);
	nw_top_rec *hrec = (nw_top_rec *)g->htop.p;
	NW_CUDA_CHECK(g, cudaMemcpyAsync(hrec, rec, (size_t)total * sizeof(nw_top_rec), cudaMemcpyDeviceToHost, g->stream));
	NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	const bool ends_later = nw_forward_kind(fp.mode) == NW_DP_LOCAL; /* a score-only pass (info.best) */
	for (int64_t t = 0; t < total; t++) {
		const nw_top_rec &v = hrec[t];
		nw_result_t *r = &kept_res[t];
		kept_pairs[t].q = (uint32_t)(v.k / n_ref);
		kept_pairs[t].r = (uint32_t)(v.k % n_ref);
		r->score = v.score;
		r->qstart = 0, r->qend = v.qend;
		r->rstart = 0, r->rend = v.rend;
		r->strand = 0;
	}
	/* printed before the ends' pass, whose check can end the run (the times stay readable) */
	if (info.timing)
		fprintf(stderr, "nw_gpu top: %lld pairs, %lld kept; upload+jobs %.1f ms, forward %.1f ms, selection %.1f ms\n",
			(long long)n, (long long)total, 1e3 * (info.t[1] - info.t[0]), 1e3 * (info.t[2] - info.t[1]),
			1e3 * (nw_now() - info.t[2]));
	if (ends_later) {
		const double t_ends = nw_now();
		NW_TRY(nw_top_ends(g, &fp, qb, rb, kept_pairs, total, kept_res));
		if (info.timing)
			fprintf(stderr, "nw_gpu top: the kept pairs' ends %.1f ms\n", 1e3 * (nw_now() - t_ends));
	}
	*n_kept = total;
	return 0;
}
