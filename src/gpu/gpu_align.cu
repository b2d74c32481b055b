/* gpu_align.cu: nw_gpu_align, from pairs to results.
 *
 * Each pair is one forward DP problem (score and end) and, for local and semiglobal, one
 * reverse problem over the reversed prefixes that end at the end cell (start). A pass runs
 * all problems of one kind:
 *   - long problems (both sides long, or huge) go to the tiled long-pair kernel;
 *   - the others go to the batch kernel as planned by gpu_plan.cu (sorted by size, paired
 *     into the two 16-bit lanes when the score bounds allow; DNA with 2-bit codes and a
 *     match/mismatch matrix uses the XOR/PRMT scorer, forward passes where many pairs share
 *     a query (all against all) the query profile, the rest the table scorer);
 *   - 16-bit local problems whose best came near the int16 limit are redone in 32 bits,
 *     and problems whose bounds exceed 32 bits run in the long kernel with int64.
 */
#include <algorithm>
#include <cmath>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <time.h>
#include <vector>

#include "band.h"
#include "gpu_internal.cuh"

#define NW_LONG_BATCHED_PER_SM 4            /* this many long problems an SM: batch kernel */

/* Test hooks (environment): NW_GPU_LONG_MIN=k sends every problem with both sides >= k
 * to the long kernel; NW_GPU_SLICE=k plans batch runs in slices of k problems;
 * NW_GPU_WIDE=1 runs the long kernel in 64 bits (NW_GPU_LONG_DIAG=1: by anti-diagonals
 * even where it would take the staircase); NW_GPU_TIMING=1 prints the GPU time of each
 * pass to stderr (a batch run's with its cells and the cells it swept: nw_plan_cells);
 * NW_GPU_PROF=0 never uses the profile scorer, =2 uses it for every table-scored forward
 * pass (even one query a problem). Benchmark
 * hooks of the long kernel (gpu_long.cu): NW_GPU_LONG_PRUNE=0 skips no tile,
 * NW_GPU_LONG_STAIR_WARPS=k runs the staircase on k warps, NW_GPU_LONG_TC=k and
 * NW_GPU_LONG_BAND_TC=k set the anti-diagonals' tile width. Hooks of the path engine
 * (gpu_path.cu, gpu_path_driver.cu): NW_GPU_PATH_G=g forces the group size of full spans,
 * NW_GPU_MM_LEAF=k the Myers-Miller leaf size, NW_GPU_PATH_STAIR_STRIPES=k runs problems
 * of k stripes or more as staircases; with NW_GPU_TIMING=1 the paths' batches, takes and
 * Myers-Miller levels are timed too. */
static bool nw_is_long(const nw_job_t &j, int64_t long_min) { return nw_long_problem(j.m, j.n, long_min); }

/* Room for n problems in a pass. */
static int nw_pass_reserve(nw_gpu_t *g, nw_pass_t &ps, int64_t n)
{
	NW_TRY(nw_hbuf_reserve(g, &ps.hjobs, (size_t)(n ? n : 1) * sizeof(nw_job_t)));
	NW_TRY(nw_hbuf_reserve(g, &ps.hout, (size_t)(n ? n : 1) * sizeof(nw_dp_out)));
	ps.jobs = (nw_job_t *)ps.hjobs.p;
	ps.out = (nw_dp_out *)ps.hout.p;
	ps.fast.resize((size_t)n);
	ps.qid.resize((size_t)n);
	ps.target.resize((size_t)n);
	ps.n = 0;
	return 0;
}

/* Problems a slice of a batch run. A run of millions of problems (a database search) is
 * cut into slices planned side by side on host threads, each queued as soon as it and the
 * ones before it are planned, so that the GPU starts on the first while the host plans the
 * rest (planning a million problems on one thread takes about as long as their kernels).
 * Smaller slices start the GPU sooner but each adds launches and their tails; a batch of
 * short pairs (--batch-size, 262,144 records by default) stays one slice. Problems of
 * more than NW_SLICE_BIG times the mean cells make a first slice of their own: a warp
 * takes a problem, so the largest ones must start first, or the last slice's would end
 * the run alone. */
#define NW_SLICE_PROBLEMS ((size_t)1 << 18)
#define NW_SLICE_BIG 8

/* Queue the launches of a planned slice on the side streams, behind those of the slices
 * before it. Items and launch counters go at *item_off and *launch_off of the context's
 * buffers; when they are full, the GPU is drained first and they start over. The first
 * slice that launches anything has its first kernel record the start of the kernel time
 * (*started). */
static int nw_queue_slice(nw_gpu_t *g, const nw_pass_t &ps, const nw_scoring_t *sc, const uint8_t *qc,
			  const uint8_t *rc, const nw_slice_plan_t &sp, size_t *item_off, size_t *launch_off,
			  bool *started, bool verbose)
{
	nw_plan_t &pl = g->plan;
	if (sp.items.empty()) return 0;
	const size_t ni = sp.items.size(), nl = sp.launches.size();
	if (!*started && verbose) NW_CUDA_CHECK(g, cudaEventRecord(g->ev[2], g->stream));
	const size_t ib = (*item_off + ni) * sizeof(nw_item_t), lb = (*launch_off + nl) * sizeof(uint32_t);
	if (ib > pl.hitems.cap || ib > g->items.cap || lb > g->counters.cap) {
		/* the items start over at offset 0: the copies from the pinned ones and the
		 * launches that read the device's must be done (this engine's streams) */
		NW_TRY(nw_streams_join(g));
		NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
		*item_off = *launch_off = 0;
		NW_TRY(nw_hbuf_reserve(g, &pl.hitems, ni * sizeof(nw_item_t)));
		NW_TRY(nw_dbuf_reserve(g, &g->items, ni * sizeof(nw_item_t)));
		NW_TRY(nw_dbuf_reserve(g, &g->counters, std::max<size_t>(nl, 1024) * sizeof(uint32_t)));
	}
	nw_item_t *hitems = (nw_item_t *)pl.hitems.p + *item_off, *ditems = (nw_item_t *)g->items.p + *item_off;
	uint32_t *counters = (uint32_t *)g->counters.p + *launch_off;
	memcpy(hitems, sp.items.data(), ni * sizeof(nw_item_t));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(ditems, hitems, ni * sizeof(nw_item_t), cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemsetAsync(counters, 0, nl * sizeof(uint32_t), g->stream));
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev_up, g->stream));
	for (int k = 0; k < NW_STREAMS; k++) NW_CUDA_CHECK(g, cudaStreamWaitEvent(g->side[k], g->ev_up, 0));
	if (!*started) { /* the first launch records the start of the kernel time (ev_start) */
		g->ev_start = true;
		*started = true;
	}
	for (size_t x = 0; x < nl; x++) {
		const nw_launch_t &l = sp.launches[x];
		nw_bparams_t p = nw_bparams_make(sc, ps.kind, ps.live, ps.best, (const nw_job_t *)g->jobs.p, (nw_dp_out *)g->outs.p,
						 ditems + l.first, l.count, qc, rc, (const int32_t *)g->table.p, l.G, l.ncap);
		p.counter = counters + x;
		NW_TRY(nw_batch_launch(g, l.bk, l.R, &p, (int)(x % NW_STREAMS)));
		if (verbose)
			fprintf(stderr, "nw_gpu   launch: type %d G %d R %d, %lld items, ncap %d\n", l.bk, l.G, l.R,
				(long long)l.count, l.ncap);
	}
	*item_off += ni;
	*launch_off += nl;
	return 0;
}

/* Run the problems ids at one score width (16 bits, or 32 with wide32); the problems that
 * need the next width are appended to next. The kernel time added to *ms is the span from
 * the first slice's launches to the last one's end: idle gaps, if planning ever fell
 * behind, count as kernel time. */
static int nw_run_batch(nw_gpu_t *g, nw_pass_t &ps, const nw_scoring_t *sc, const uint8_t *qc,
			const uint8_t *rc, const std::vector<int32_t> &ids, int wide32, bool prof_ok,
			std::vector<int32_t> &next, float *ms, bool verbose)
{
	nw_plan_t &pl = g->plan;
	const size_t first_next = next.size(), n = ids.size();
	if (!n) return 0;
	const double tp0 = nw_now();
	const char *es = getenv("NW_GPU_SLICE"); /* test hook: problems a slice */
	const size_t slice = es && atoll(es) > 0 ? (size_t)atoll(es) : NW_SLICE_PROBLEMS;
	const size_t n_slices = (n + slice - 1) / slice;
	const std::vector<int32_t> *order = &ids;
	std::vector<std::pair<size_t, size_t> > ranges; /* of *order, in queue order */
	size_t n_big = 0;
	if (n_slices > 1) { /* the big problems first, then the others in their order */
		auto cells = [&ps](int32_t id) { return (double)ps.jobs[id].m * (double)ps.jobs[id].n; };
		double sum = 0;
		for (int32_t id : ids) sum += cells(id);
		const double big = NW_SLICE_BIG * sum / (double)n;
		pl.order.assign(ids.begin(), ids.end());
		n_big = (size_t)(std::stable_partition(pl.order.begin(), pl.order.end(),
						       [&](int32_t id) { return cells(id) > big; }) -
				 pl.order.begin());
		order = &pl.order;
		if (n_big) ranges.push_back(std::make_pair((size_t)0, n_big));
	}
	for (size_t s = 0; s < n_slices; s++)
		ranges.push_back(std::make_pair(n_big + (n - n_big) * s / n_slices, n_big + (n - n_big) * (s + 1) / n_slices));
	if (pl.slices.size() < ranges.size()) pl.slices.resize(ranges.size());
	/* plan every slice but the first on a thread of its own (or here, where none starts) */
	std::vector<std::thread> planners;
	if (ranges.size() > 1) nw_plan_warm(g, nw_kclass(ps.kind, ps.live, ps.best), sc);
	for (size_t k = 1; k < ranges.size(); k++) {
		nw_slice_plan_t *sp = &pl.slices[k];
		const int32_t *a = order->data() + ranges[k].first;
		const size_t cnt = ranges[k].second - ranges[k].first;
		try {
			planners.emplace_back([=, &ps]() { sp->ret = nw_plan_batch(g, *sp, ps, sc, a, cnt, wide32, prof_ok); });
		} catch (...) {
			sp->ret = nw_plan_batch(g, *sp, ps, sc, a, cnt, wide32, prof_ok);
			planners.emplace_back();
		}
	}
	size_t item_off = 0, launch_off = 0;
	bool started = false;
	/* room for every slice (items are about one a problem; the profile pads groups), so
	 * that queued slices rarely make nw_queue_slice drain the GPU to grow them */
	const size_t items_guess = n + n / 8 + 4096;
	int ret = nw_hbuf_reserve(g, &pl.hitems, items_guess * sizeof(nw_item_t));
	if (ret == 0) ret = nw_dbuf_reserve(g, &g->items, items_guess * sizeof(nw_item_t));
	if (ret == 0) ret = nw_dbuf_reserve(g, &g->counters, 1024 * sizeof(uint32_t));
	if (ret == 0)
		ret = pl.slices[0].ret = nw_plan_batch(g, pl.slices[0], ps, sc, order->data() + ranges[0].first,
							ranges[0].second - ranges[0].first, wide32, prof_ok);
	for (size_t k = 0; k < ranges.size(); k++) {
		if (k > 0 && planners[k - 1].joinable()) planners[k - 1].join();
		if (ret == 0) ret = pl.slices[k].ret;
		if (ret == 0) ret = nw_queue_slice(g, ps, sc, qc, rc, pl.slices[k], &item_off, &launch_off, &started, verbose);
		if (ret == 0) next.insert(next.end(), pl.slices[k].next.begin(), pl.slices[k].next.end());
	}
	if (ret < 0) return ret;
	const double tp1 = nw_now();
	if (!started) return 0; /* nothing at this width */
	for (int k = 0; k < NW_STREAMS; k++) { /* the main stream waits for every side stream */
		NW_CUDA_CHECK(g, cudaEventRecord(g->sev[k], g->side[k]));
		NW_CUDA_CHECK(g, cudaStreamWaitEvent(g->stream, g->sev[k], 0));
	}
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev[1], g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(ps.out, g->outs.p, (size_t)ps.n * sizeof(nw_dp_out), cudaMemcpyDeviceToHost,
					 g->stream));
	NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	const double tp2 = nw_now();
	float t = 0;
	NW_CUDA_CHECK(g, cudaEventElapsedTime(&t, g->ev[0], g->ev[1]));
	*ms += t;
	if (!wide32) { /* local 16-bit bests near the limit: again in 32 bits */
		for (size_t x = 0; x < n; x++) pl.skip[ids[x]] = 0;
		for (size_t x = first_next; x < next.size(); x++) pl.skip[next[x]] = 1;
		for (size_t x = 0; x < n; x++)
			if (!pl.skip[ids[x]] && ps.out[ids[x]].overflow) next.push_back(ids[x]);
	}
	if (verbose) {
		float tu = 0;
		NW_CUDA_CHECK(g, cudaEventElapsedTime(&tu, g->ev[2], g->ev[1]));
		double real = 0, swept = 0;
		for (size_t k = 0; k < ranges.size(); k++) nw_plan_cells(ps, pl.slices[k], &real, &swept);
		fprintf(stderr, "nw_gpu   batch %zu problems (%zu big first), %zu slices: planned and queued %.1f ms, then waited %.1f ms, after %.1f ms; kernels %.3f ms, %.3f ms from the first upload; cells %.4g, swept %.4g (%.1f %%)\n",
			n, n_big, ranges.size(), 1e3 * (tp1 - tp0), 1e3 * (tp2 - tp1), 1e3 * (nw_now() - tp2), t, tu,
			real, swept, swept > 0 ? 100.0 * real / swept : 0.0);
	}
	return 0;
}

static int nw_run_pass(nw_gpu_t *g, nw_pass_t &ps, const nw_scoring_t *sc, const uint8_t *qc,
		       const uint8_t *rc, bool prof_ok)
{
	const int64_t n = ps.n;
	nw_plan_t &pl = g->plan;
	pl.batch.clear();
	pl.b32.clear();
	pl.longs.clear(); /* what the pass ran in the long kernel (nw_gpu_top reads it) */
	if (!n) return 0;
	int32_t tab[NW_TAB_DIM * NW_TAB_DIM];
	nw_fill_table(sc, ps.kind, tab);
	NW_TRY(nw_dbuf_put(g, &g->table, tab, sizeof tab));
	NW_TRY(nw_dbuf_reserve(g, &g->jobs, (size_t)n * sizeof(nw_job_t)));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(g->jobs.p, ps.jobs, (size_t)n * sizeof(nw_job_t), cudaMemcpyHostToDevice,
					 g->stream));
	NW_TRY(nw_dbuf_reserve(g, &g->outs, (size_t)n * sizeof(nw_dp_out)));
	pl.skip.resize((size_t)n);
	const int64_t long_min = nw_env_long_min();
	const char *ew = getenv("NW_GPU_WIDE"), *et = getenv("NW_GPU_TIMING");
	const bool force_wide = ew && *ew == '1', timing = et && *et == '1';
	const double tr0 = nw_now();
	for (int64_t x = 0; x < n; x++) (nw_is_long(ps.jobs[x], long_min) ? pl.longs : pl.batch).push_back((int32_t)x);
	if (timing) fprintf(stderr, "nw_gpu   pass set-up %.1f ms\n", 1e3 * (nw_now() - tr0));
	/* The long kernel spreads one problem over the whole GPU, one problem after another; the
	 * batch kernel gives each problem a warp. With enough long problems to fill the GPU with
	 * warps (reads of tens of kilobases against their windows), the batch kernel is faster. */
	if (!long_min && (int64_t)pl.longs.size() >= NW_LONG_BATCHED_PER_SM * g->n_sm) {
		size_t kept = 0;
		for (int32_t x : pl.longs) {
			if (ps.jobs[x].n <= NW_BATCH_MAX_N) pl.batch.push_back(x);
			else pl.longs[kept++] = x;
		}
		pl.longs.resize(kept);
	}
	/* kernel time is always measured (events around the launches of each width and the
	 * long runs; the passes synchronise anyway): nw_gpu_kernel_seconds() reports it */
	float ms[3] = {0, 0, 0};
	if (!g->ev_ok) {
		for (int k = 0; k < 3; k++) NW_CUDA_CHECK(g, cudaEventCreate(&g->ev[k]));
		g->ev_ok = 1;
	}
	NW_TRY(nw_run_batch(g, ps, sc, qc, rc, pl.batch, 0, prof_ok, pl.b32, &ms[0], timing));
	const size_t n32 = pl.b32.size();
	if (n32) NW_TRY(nw_run_batch(g, ps, sc, qc, rc, pl.b32, 1, false, pl.longs, &ms[1], timing));
	for (size_t x = 0; x < pl.longs.size(); x++) {
		const int32_t id = pl.longs[x];
		const nw_job_t &j = ps.jobs[id];
		int64_t mp = (j.m + NW_LONG_TR - 1) / NW_LONG_TR * NW_LONG_TR;
		int wide = force_wide || !nw_fits(ps.kind, sc, mp, j.n, ps.target[id], 32);
		const int dna4 = ps.fast[id] && nw_long_dna4_ok(tab);
		NW_TRY(nw_long_run(g, &j, qc, rc, (const int32_t *)g->table.p, sc->max_score, ps.kind, sc->gap_open,
				   sc->gap_extend, wide, dna4, &ps.out[id], &ms[2]));
	}
	g->kernel_s += (ms[0] + ms[1] + ms[2]) * 1e-3;
	if (timing) {
		double cells = 0;
		for (int64_t x = 0; x < n; x++) cells += (double)ps.jobs[x].m * (double)ps.jobs[x].n;
		fprintf(stderr, "nw_gpu pass kind %d: %lld problems, %.4g cells; kernels: 16-bit %.3f ms, 32-bit %.3f ms (%zu), long %.3f ms (%zu); %.1f GCUPS\n",
			ps.kind, (long long)n, cells, ms[0], ms[1], n32, ms[2], pl.longs.size(),
			cells / ((ms[0] + ms[1] + ms[2]) * 1e6));
	}
	return 0;
}

static void nw_set(nw_result_t *r, int64_t score, int64_t qs, int64_t qe, int64_t rs, int64_t re)
{
	r->score = score;
	r->qstart = qs;
	r->qend = qe;
	r->rstart = rs;
	r->rend = re;
}


/* The reverse problem b (b.m x b.n from the forward end, backwards) only has to hold the
 * paths of the forward score S from its origin (src/band.h): they use at most D deletions
 * and I insertions, so they end within b.m + D columns (and, local, b.n + I rows; a
 * semiglobal path takes every query row). Fewer columns leave every remaining cell as it
 * was, so the cells that reach S, and the first of them, are the same. */
static void nw_rev_band(const nw_scoring_t *sc, int fkind, int64_t S, nw_job_t *b)
{
	const int64_t M = sc->max_score, O = sc->gap_open, E = sc->gap_extend;
	const int64_t ins = nw_band_gaps(M, O, E, b->m, b->n, S), del = nw_band_gaps(M, O, E, b->n, b->m, S);
	if (del < b->n - b->m) b->n = b->m + del;
	if (fkind == NW_DP_LOCAL && ins < b->m - b->n) b->m = b->n + ins;
	b->dlo = (int32_t)-std::min(ins, b->m);
	b->dhi = (int32_t)std::min(del, b->n);
}

/* See gpu_internal.cuh. */
int nw_pair_result(int fkind, const nw_job_t &j, const nw_dp_out &o, const nw_dp_out *b, int64_t k,
		   nw_result_t *r, char *err, size_t errlen)
{
	if (fkind == NW_DP_GLOBAL) {
		nw_set(r, o.score, 0, j.m, 0, j.n);
	} else if (!b) {
		nw_set(r, o.score, 0, o.i, 0, o.j); /* ends only; local 0: [0,0); semi end 0 */
	} else if (b->score != o.score) {
		snprintf(err, errlen, "GPU engine: reverse pass of pair %lld gave %lld, forward %lld", (long long)k,
			 (long long)b->score, (long long)o.score);
		return NW_ERR_INTERNAL;
	} else {
		nw_set(r, o.score, o.i - b->i, o.i, o.j - b->j, o.j);
	}
	return 0;
}

/* See gpu_internal.cuh. */
int nw_fwd_live(const nw_align_params_t *p)
{
	return p->need && !p->starts_only && nw_forward_kind(p->mode) != NW_DP_LOCAL;
}

/* See gpu_internal.cuh. */
int64_t nw_fwd_target(const nw_align_params_t *p, int live, int64_t k, nw_job_t *j)
{
	j->target = NW_NO_TARGET, j->pad_ = 0;
	j->dlo = 0, j->dhi = 0; /* no band: the forward pass's score is not known yet */
	if (!live) return 0;
	j->dlo = (int32_t)-std::min<int64_t>(j->m, INT32_MAX), j->dhi = (int32_t)std::min<int64_t>(j->n, INT32_MAX);
	const int64_t t = p->need[k];
	if (t <= INT32_MIN || t > INT32_MAX) return INT64_MIN / 4; /* no live scan, and 32-bit lanes */
	j->target = (int32_t)t;
	return t;
}

/* See gpu_internal.cuh. */
bool nw_rev_job(const nw_scoring_t *sc, int fkind, const nw_job_t &j, const nw_dp_out &o, nw_job_t *b)
{
	if (fkind == NW_DP_GLOBAL || (fkind == NW_DP_LOCAL && o.score <= 0) || (fkind == NW_DP_SEMI && o.j == 0))
		return false;
	if (j.target != NW_NO_TARGET && o.score < j.target) /* below the need of a live pass */
		return false;
	b->qbase = j.qbase + o.i - 1, b->rbase = j.rbase + o.j - 1, b->m = o.i, b->n = o.j, b->qstep = b->rstep = -1;
	b->target = o.score > INT32_MIN && o.score <= INT32_MAX ? (int32_t)o.score : NW_NO_TARGET;
	b->pad_ = 0;
	nw_rev_band(sc, fkind, o.score, b);
	return true;
}

/* See gpu_internal.cuh. */
int nw_pass_seqs(nw_gpu_t *g, const nw_batch_t *qb, const nw_batch_t *rb, nw_fwd_info *info, const nw_dseqs_t **qs,
		 const nw_dseqs_t **rs)
{
	info->t[0] = nw_now();
	NW_CUDA_CHECK(g, cudaSetDevice(g->device));
	NW_TRY(nw_gpu_seqs(g, qb, NW_SEQ_QUERIES, qs));
	NW_TRY(nw_gpu_seqs(g, rb, NW_SEQ_REFS, rs));
	info->t_seqs = nw_now();
	info->qc = (const uint8_t *)(*qs)->codes.p;
	info->rc = (const uint8_t *)(*rs)->codes.p;
	return 0;
}

/* See gpu_internal.cuh. */
int nw_forward(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
	       const nw_pair_t *pairs, int64_t n, nw_result_t *res, nw_fwd_info *info)
{
	const nw_scoring_t *sc = p->sc;
	char *err = g->err;
	const size_t errlen = g->errlen;
	if (!nw_scoring_ok(sc)) {
		snprintf(err, errlen, "GPU engine: unsupported scoring (%d codes, gaps %d/%d)", sc->n_codes,
			 sc->gap_open, sc->gap_extend);
		return NW_ERR_USAGE;
	}
	const nw_dseqs_t *qs, *rs;
	NW_TRY(nw_pass_seqs(g, qb, rb, info, &qs, &rs));
	const uint8_t *qc = info->qc, *rc = info->rc;
	const int fkind = nw_forward_kind(p->mode);

	nw_pass_t &fw = g->fw;
	nw_plan_t &pl = g->plan;
	fw.kind = fkind;
	fw.live = nw_fwd_live(p);
	fw.best = info->best && fkind == NW_DP_LOCAL;
	NW_TRY(nw_pass_reserve(g, fw, n));
	pl.fw_of.resize((size_t)n);
	pl.empties.clear();
	int64_t *fw_of = pl.fw_of.data();
	int64_t runs = 0; /* runs of one query: many problems a run make the profile pay */
	for (int64_t k = 0; k < n; k++) {
		const uint32_t q = pairs[k].q, r = pairs[k].r;
		const int64_t m = qb->len[q], nn = rb->len[r];
		fw_of[k] = -1;
		if (m == 0 || nn == 0) { /* no cells: the twin's borders say it all */
			std::vector<uint8_t> q0((size_t)m), r0((size_t)nn);
			nw_result_t one;
			memset(&one, 0, sizeof one);
			for (int64_t i = 0; i < m; i++) q0[i] = nw_batch_code(qb, q, i);
			for (int64_t i = 0; i < nn; i++) r0[i] = nw_batch_code(rb, r, i);
			if (nw_gpu_twin_align(p, q0.data(), m, r0.data(), nn, res ? &res[k] : &one) < 0) {
				snprintf(err, errlen, "GPU engine: internal error on an empty sequence");
				return NW_ERR_INTERNAL;
			}
			if (!res) {
				nw_dp_out o = {one.score, one.qend, one.rend, 0, 0};
				pl.empties.push_back(std::make_pair(k, o));
			}
			continue;
		}
		const int64_t x = fw.n++;
		nw_job_t &j = fw.jobs[x];
		j.qbase = qs->hboff[q], j.rbase = rs->hboff[r], j.m = m, j.n = nn, j.qstep = j.rstep = 1;
		fw.target[x] = nw_fwd_target(p, fw.live, k, &j);
		fw_of[k] = x;
		fw.fast[x] = qb->bits[q] == 2 && rb->bits[r] == 2;
		fw.qid[x] = q;
		runs += x == 0 || fw.qid[x - 1] != q;
	}
	const int prof_env = nw_env_prof();
	const bool prof_ok = !fw.live && (prof_env == 2 || (prof_env == 1 && runs > 0 && fw.n >= 8 * runs));
	if (info->timing) NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	info->t[1] = nw_now();
	if (p->starts_only) { /* the forward results are given */
		for (int64_t k = 0; k < n; k++) {
			if (fw_of[k] < 0) continue;
			nw_dp_out &o = fw.out[fw_of[k]];
			o.score = res[k].score, o.i = res[k].qend, o.j = res[k].rend, o.overflow = 0;
		}
	} else {
		NW_TRY(nw_run_pass(g, fw, sc, qc, rc, prof_ok));
	}
	info->t[2] = nw_now();
	return 0;
}

extern "C" int nw_gpu_align(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
			    const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
			    char *err, size_t errlen)
{
	g->err = err;
	g->errlen = errlen;
	if (n <= 0) return 0;
	nw_gpu_call_size(g, n);
	const char *et = getenv("NW_GPU_TIMING");
	nw_fwd_info info;
	info.timing = et && *et == '1';
	info.best = false;
	NW_TRY(nw_forward(g, p, qb, rb, pairs, n, res, &info));
	const nw_scoring_t *sc = p->sc;
	const uint8_t *qc = info.qc, *rc = info.rc;
	const int fkind = g->fw.kind;
	nw_pass_t &fw = g->fw, &rv = g->rv;
	nw_plan_t &pl = g->plan;
	rv.kind = fkind == NW_DP_LOCAL ? NW_DP_REV_LOCAL : NW_DP_REV_SEMI;
	rv.live = 0;
	rv.best = 0;
	pl.rv_of.assign((size_t)n, -1);
	const int64_t *fw_of = pl.fw_of.data();
	int64_t *rv_of = pl.rv_of.data();
	double *tm = info.t;
	const bool need_rev = fkind != NW_DP_GLOBAL && !p->ends_only;
	NW_TRY(nw_pass_reserve(g, rv, need_rev ? fw.n : 0));
	for (int64_t k = 0; k < n && need_rev; k++) {
		if (fw_of[k] < 0) continue;
		const nw_job_t &j = fw.jobs[fw_of[k]];
		const nw_dp_out &o = fw.out[fw_of[k]];
		if (!nw_rev_job(sc, fkind, j, o, &rv.jobs[rv.n])) continue;
		const int64_t x = rv.n++;
		rv_of[k] = x;
		rv.fast[x] = fw.fast[fw_of[k]];
		rv.qid[x] = (uint32_t)x;
		rv.target[x] = o.score;
	}
	NW_TRY(nw_run_pass(g, rv, sc, qc, rc, false));
	tm[3] = nw_now();
	for (int64_t k = 0; k < n; k++) {
		if (fw_of[k] < 0) continue;
		const nw_job_t &j = fw.jobs[fw_of[k]];
		const nw_dp_out &o = fw.out[fw_of[k]];
		NW_TRY(nw_pair_result(fkind, j, o, rv_of[k] < 0 ? NULL : &rv.out[rv_of[k]], k, &res[k], err, errlen));
	}
	tm[4] = nw_now();
	if (info.timing)
		fprintf(stderr, "nw_gpu align: %lld pairs; upload %.1f ms, jobs %.1f ms, forward %.1f ms, reverse jobs+pass %.1f ms, results %.1f ms\n",
			(long long)n, 1e3 * (info.t_seqs - tm[0]), 1e3 * (tm[1] - info.t_seqs), 1e3 * (tm[2] - tm[1]),
			1e3 * (tm[3] - tm[2]), 1e3 * (tm[4] - tm[3]));
	return 0;
}
