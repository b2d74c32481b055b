/* gpu_align.cu: nw_gpu_align, from pairs to results.
 *
 * Each pair is one forward DP problem (score and end) and, for local and semiglobal, one
 * reverse problem over the reversed prefixes that end at the end cell (start). A pass runs
 * all problems of one kind:
 *   - long problems (both sides long, or huge) go to the tiled long-pair kernel;
 *   - the others get a (G threads, R rows) shape from a cost model, are sorted by size and
 *     paired into the two 16-bit lanes when the score bounds allow (DNA with 2-bit codes and
 *     a match/mismatch matrix uses the XOR/PRMT scorer, the rest the table scorer);
 *   - 16-bit local problems whose best came near the int16 limit are redone in 32 bits,
 *     and problems whose bounds exceed 32 bits run in the long kernel with int64.
 */
#include <algorithm>
#include <cmath>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#include "gpu_internal.cuh"

#define NW_LONG_MIN_SIDE 2048               /* both sides at least this ... */
#define NW_LONG_CELLS ((int64_t)1 << 26)    /* ... and this many cells: long kernel */
#define NW_BATCH_MAX_N ((int64_t)1 << 22)   /* batch scratch is per column: cap it */

typedef struct {
	int kind;
	std::vector<nw_job_t> jobs;
	std::vector<uint8_t> fast;     /* both sequences 2-bit */
	std::vector<int64_t> target;   /* reverse local: the forward score */
	std::vector<nw_dp_out> out;
} nw_pass_t;

/* Do all values of a problem of kind on an Mp x N padded matrix fit in `bits`? Local in
 * 16 bits is checked at run time instead (ovf_limit). */
static bool nw_fits(int kind, const nw_scoring_t *sc, int64_t Mp, int64_t N, int64_t target, int bits)
{
	const int64_t lim = bits == 16 ? 32767 : INT32_MAX, slack = 8;
	const int64_t O = sc->gap_open, E = sc->gap_extend;
	const int64_t maxs = sc->max_score > 0 ? sc->max_score : 0;
	const int64_t mins = sc->min_score < 0 ? sc->min_score : 0, pad = -(O + E + 1);
	const int64_t low = std::min(mins, pad);
	int64_t lo = kind == NW_DP_LOCAL ? -(O + 2 * E) + low : -(3 * O + (Mp + N + 2) * E) + low;
	if (lo < -lim + slack) return false;
	if (kind == NW_DP_LOCAL) return bits == 16 || maxs * std::min(Mp, N) + maxs <= lim - slack;
	if (kind == NW_DP_REV_LOCAL) return target + maxs <= lim - slack;
	return maxs * std::min(Mp, N) + maxs <= lim - slack;
}

typedef struct {
	int G, R;
} nw_cfg_t;

/* Shape (G threads a group, R rows a thread) for a problem of m x n among n_items items.
 * Calibrated on an H200 (150 x 241 DNA, 500k items; 50 x 2000 proteins): time per item goes
 * as padded rows x steps x c(R), where c(R) falls with R (per-step work is shared by more
 * rows), each extra stripe costs about 16 rows more (its border goes through L2), fewer
 * than 16 resident warps per SM leave latency exposed, and a launch with fewer than about
 * four times the threads the GPU holds ends in a long tail (seen: 50 x 2000 proteins ran
 * 3x faster with G = 32 than with G = 8, while 500 x 20000 ran 10% faster with G = 8). */
static nw_cfg_t nw_pick(nw_gpu_t *g, int bk, int kind, int64_t m, int64_t n, int64_t n_items)
{
	static const int r16[] = NW_R16_LIST, r32[] = NW_R32_LIST;
	const int *rs = bk == NW_BK_TAB32 ? r32 : r16;
	const int nr = bk == NW_BK_TAB32 ? (int)(sizeof r32 / sizeof *r32) : (int)(sizeof r16 / sizeof *r16);
	const double c0 = bk == NW_BK_TAB16 ? 7.5 : 5.2;
	nw_cfg_t best = {32, rs[0]};
	double tbest = 1e300;
	for (int x = 0; x < nr; x++) {
		const int R = rs[x];
		const double warps = nw_batch_warps_per_sm(g, bk, R, kind);
		const double occ = warps >= 16 ? 1.0 : std::sqrt(warps / 16.0);
		const double cap = warps * 32.0 * g->n_sm;
		for (int G = 1; G <= 32; G <<= 1) {
			int64_t SR = (int64_t)G * R, ns = (m + SR - 1) / SR;
			double rows = (double)(ns * SR) + 16.0 * (double)(ns - 1) * (G == 1 ? 2 : 1);
			double work = rows * (double)(n + G - 1) * (c0 + 13.0 / R) / occ;
			double threads = (double)n_items * G;
			/* a persistent launch balances its tail only with several items per warp */
			double t = work * std::max(1.0, 4.0 * cap / threads);
			if (t < tbest) tbest = t, best.G = G, best.R = R;
		}
	}
	return best;
}

/* Test hooks (environment): NW_GPU_LONG_MIN=k sends every problem with both sides >= k
 * to the long kernel; NW_GPU_WIDE=1 runs the long kernel in 64 bits; NW_GPU_TIMING=1
 * prints the GPU time of each pass to stderr. */
static int64_t nw_env_long_min(void)
{
	const char *s = getenv("NW_GPU_LONG_MIN");
	return s && *s ? atoll(s) : 0;
}

static bool nw_is_long(const nw_job_t &j, int64_t long_min)
{
	if (long_min > 0) return std::min(j.m, j.n) >= long_min;
	return (std::min(j.m, j.n) >= NW_LONG_MIN_SIDE && j.m * j.n >= NW_LONG_CELLS) || j.n > NW_BATCH_MAX_N;
}

typedef struct {
	int bk;
	nw_cfg_t cfg;
	int64_t first, count; /* items */
	int32_t ncap;
} nw_launch_t;

typedef struct {
	uint64_t key;
	int32_t id;
} nw_kid_t;

/* LSD radix sort by key (stable), skipping bytes that are equal in every key. */
static void nw_radix_sort(std::vector<nw_kid_t> &v)
{
	std::vector<nw_kid_t> tmp(v.size());
	uint64_t all_or = 0, all_and = ~0ull;
	for (size_t x = 0; x < v.size(); x++) all_or |= v[x].key, all_and &= v[x].key;
	for (int b = 0; b < 64; b += 8) {
		if (((all_or ^ all_and) >> b & 0xff) == 0) continue;
		size_t cnt[257] = {0};
		for (size_t x = 0; x < v.size(); x++) cnt[(v[x].key >> b & 0xff) + 1]++;
		for (int c = 0; c < 256; c++) cnt[c + 1] += cnt[c];
		for (size_t x = 0; x < v.size(); x++) tmp[cnt[v[x].key >> b & 0xff]++] = v[x];
		v.swap(tmp);
	}
}

/* Query length classes (upper bounds grow by ~1.25-1.5): a launch per class. */
static int nw_len_class(int64_t m)
{
	int64_t b = 32;
	int c = 0;
	while (m > b) b = b < 256 ? b + 32 : b + b / 4, c++;
	return c;
}

/* NW_GPU_CFG=G,R (benchmark hook): one shape for every batch launch that has R. */
static bool nw_env_cfg(int bk, nw_cfg_t *c)
{
	const char *s = getenv("NW_GPU_CFG");
	int G, R;
	if (!s || sscanf(s, "%d,%d", &G, &R) != 2 || G < 1 || G > 32 || (G & (G - 1))) return false;
	if (bk == NW_BK_TAB32 ? (R != 8 && R != 16) : (R % 4 != 0 || R < 8 || R > 32 || R == 28)) return false;
	c->G = G, c->R = R;
	return true;
}

/* Items of one launch from problems sorted by (m, n): 16-bit types pair neighbours when
 * the pair still fits in 16 bits; problems that do not fit this width alone are passed on. */
static void nw_make_items(const nw_pass_t &ps, const nw_scoring_t *sc, int bk, nw_cfg_t cfg,
			  const nw_kid_t *ids, size_t n, std::vector<nw_item_t> &items,
			  std::vector<int32_t> &rejected, int32_t *ncap)
{
	const int64_t SR = (int64_t)cfg.G * cfg.R;
	const int bits = bk == NW_BK_TAB32 ? 32 : 16;
	*ncap = 0;
	for (size_t x = 0; x < n; x++) {
		int32_t a = ids[x].id;
		const nw_job_t &ja = ps.jobs[a];
		int64_t mp = (ja.m + SR - 1) / SR * SR;
		if (!nw_fits(ps.kind, sc, mp, ja.n, ps.target[a], bits)) {
			rejected.push_back(a);
			continue;
		}
		nw_item_t it = {a, a};
		if (bits == 16 && x + 1 < n) {
			int32_t b = ids[x + 1].id;
			const nw_job_t &jb = ps.jobs[b];
			int64_t mp2 = (std::max(ja.m, jb.m) + SR - 1) / SR * SR;
			if (nw_fits(ps.kind, sc, mp2, std::max(ja.n, jb.n), std::max(ps.target[a], ps.target[b]), 16))
				it.b = b, x++;
		}
		*ncap = (int32_t)std::max<int64_t>(*ncap, std::max(ps.jobs[it.a].n, ps.jobs[it.b].n));
		items.push_back(it);
	}
}

/* Run the problems ids at one score width (16 bits, or 32 with wide32); the problems that
 * need the next width are appended to next. */
static int nw_run_batch(nw_gpu_t *g, nw_pass_t &ps, const nw_scoring_t *sc, const uint8_t *qc,
			const uint8_t *rc, const std::vector<int32_t> &ids, int wide32,
			std::vector<int32_t> &next, cudaEvent_t *ev, float *ms, bool verbose)
{
	if (ids.empty()) return 0;
	uint32_t t0 = 0, t1 = 0;
	int fast_ok = nw_fast_bytes(sc, ps.kind, &t0, &t1);
	/* sort by (scorer type, m, n): m < 2^31, n <= NW_BATCH_MAX_N < 2^31 */
	std::vector<nw_kid_t> kid(ids.size());
	for (size_t x = 0; x < ids.size(); x++) {
		int32_t id = ids[x];
		uint64_t bk = wide32 ? NW_BK_TAB32 : (fast_ok && ps.fast[id]) ? NW_BK_FAST16 : NW_BK_TAB16;
		kid[x].key = bk << 62 | (uint64_t)ps.jobs[id].m << 31 | (uint64_t)ps.jobs[id].n;
		kid[x].id = id;
	}
	nw_radix_sort(kid);
	/* largest first: the persistent kernels take items in order, so the longest ones
	 * start early instead of forming a tail at the end of a launch */
	std::reverse(kid.begin(), kid.end());
	/* one launch per scorer type and query length class, its shape from the class's
	 * largest m and mean n: few launches, each with enough items to fill the GPU */
	std::vector<nw_item_t> items;
	std::vector<nw_launch_t> launches;
	size_t x = 0;
	while (x < kid.size()) {
		const int bk = (int)(kid[x].key >> 62);
		const int cls = nw_len_class(ps.jobs[kid[x].id].m);
		size_t y = x;
		double nsum = 0;
		int64_t mmax = 0;
		while (y < kid.size() && (int)(kid[y].key >> 62) == bk && nw_len_class(ps.jobs[kid[y].id].m) == cls) {
			nsum += (double)ps.jobs[kid[y].id].n;
			mmax = std::max(mmax, ps.jobs[kid[y].id].m);
			y++;
		}
		nw_launch_t l;
		l.bk = bk;
		int64_t cnt = (int64_t)(y - x), nit = wide32 ? cnt : (cnt + 1) / 2;
		if (!nw_env_cfg(bk, &l.cfg)) l.cfg = nw_pick(g, bk, ps.kind, mmax, (int64_t)(nsum / (double)cnt), nit);
		l.first = (int64_t)items.size();
		int32_t ncap = 0;
		nw_make_items(ps, sc, l.bk, l.cfg, &kid[x], y - x, items, next, &ncap);
		l.count = (int64_t)items.size() - l.first;
		l.ncap = ncap;
		nw_launch_t *last = launches.empty() ? NULL : &launches.back();
		if (last && last->bk == l.bk && last->cfg.G == l.cfg.G && last->cfg.R == l.cfg.R) {
			last->count += l.count; /* same shape as the class before: one launch */
			last->ncap = std::max(last->ncap, l.ncap);
		} else if (l.count) {
			launches.push_back(l);
		}
		x = y;
	}
	if (items.empty()) return 0;
	NW_TRY(nw_dbuf_put(g, &g->items, items.data(), items.size() * sizeof(nw_item_t)));
	if (ev) NW_CUDA_CHECK(g, cudaEventRecord(ev[0], g->stream));
	for (size_t x = 0; x < launches.size(); x++) {
		const nw_launch_t &l = launches[x];
		nw_bparams_t p;
		memset(&p, 0, sizeof p);
		p.jobs = (const nw_job_t *)g->jobs.p;
		p.out = (nw_dp_out *)g->outs.p;
		p.items = (const nw_item_t *)g->items.p + l.first;
		p.n_items = l.count;
		p.qcodes = qc;
		p.rcodes = rc;
		p.table = (const int32_t *)g->table.p;
		p.fast_t0 = t0;
		p.fast_t1 = t1;
		p.kind = ps.kind;
		p.O = sc->gap_open;
		p.E = sc->gap_extend;
		p.G = l.cfg.G;
		p.ovf_limit = 32767 - (sc->max_score > 0 ? sc->max_score : 0) - 1;
		p.ncap = l.ncap;
		NW_TRY(nw_batch_launch(g, l.bk, l.cfg.R, &p));
		if (verbose)
			fprintf(stderr, "nw_gpu   launch: type %d G %d R %d, %lld items, ncap %d\n", l.bk, l.cfg.G,
				l.cfg.R, (long long)l.count, l.ncap);
	}
	if (ev) NW_CUDA_CHECK(g, cudaEventRecord(ev[1], g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(ps.out.data(), g->outs.p, ps.out.size() * sizeof(nw_dp_out),
					 cudaMemcpyDeviceToHost, g->stream));
	NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	if (ev) {
		float t = 0;
		NW_CUDA_CHECK(g, cudaEventElapsedTime(&t, ev[0], ev[1]));
		*ms += t;
	}
	if (!wide32)
		for (size_t x = 0; x < items.size(); x++)
			for (int k = 0; k < 2; k++) {
				int32_t id = k ? items[x].b : items[x].a;
				if ((k == 0 || id != items[x].a) && ps.out[id].overflow) next.push_back(id);
			}
	return 0;
}

static int nw_run_pass(nw_gpu_t *g, nw_pass_t &ps, const nw_scoring_t *sc, const uint8_t *qc,
		       const uint8_t *rc)
{
	size_t n = ps.jobs.size();
	ps.out.assign(n, nw_dp_out());
	if (!n) return 0;
	std::vector<int32_t> tab(NW_TAB_DIM * NW_TAB_DIM);
	nw_fill_table(sc, ps.kind, tab.data());
	NW_TRY(nw_dbuf_put(g, &g->table, tab.data(), tab.size() * sizeof(int32_t)));
	NW_TRY(nw_dbuf_put(g, &g->jobs, ps.jobs.data(), n * sizeof(nw_job_t)));
	NW_TRY(nw_dbuf_reserve(g, &g->outs, n * sizeof(nw_dp_out)));
	std::vector<int32_t> batch, b32, longs;
	const int64_t long_min = nw_env_long_min();
	const char *ew = getenv("NW_GPU_WIDE"), *et = getenv("NW_GPU_TIMING");
	const bool force_wide = ew && *ew == '1', timing = et && *et == '1';
	for (size_t x = 0; x < n; x++) (nw_is_long(ps.jobs[x], long_min) ? longs : batch).push_back((int32_t)x);
	/* kernel time is always measured (events around the launches of each width and the
	 * long runs; the passes synchronise anyway): nw_gpu_kernel_seconds() reports it */
	cudaEvent_t *ev = g->ev;
	float ms[3] = {0, 0, 0};
	if (!g->ev_ok) {
		for (int k = 0; k < 2; k++) NW_CUDA_CHECK(g, cudaEventCreate(&g->ev[k]));
		g->ev_ok = 1;
	}
	NW_TRY(nw_run_batch(g, ps, sc, qc, rc, batch, 0, b32, ev, &ms[0], timing));
	size_t n32 = b32.size();
	NW_TRY(nw_run_batch(g, ps, sc, qc, rc, b32, 1, longs, ev, &ms[1], timing));
	if (!longs.empty()) NW_CUDA_CHECK(g, cudaEventRecord(ev[0], g->stream));
	for (size_t x = 0; x < longs.size(); x++) {
		const nw_job_t &j = ps.jobs[longs[x]];
		int64_t mp = (j.m + NW_LONG_TR - 1) / NW_LONG_TR * NW_LONG_TR;
		int wide = force_wide || !nw_fits(ps.kind, sc, mp, j.n, ps.target[longs[x]], 32);
		NW_TRY(nw_long_run(g, &j, qc, rc, (const int32_t *)g->table.p, ps.kind, sc->gap_open,
				   sc->gap_extend, wide, &ps.out[longs[x]]));
	}
	if (!longs.empty()) {
		NW_CUDA_CHECK(g, cudaEventRecord(ev[1], g->stream));
		NW_CUDA_CHECK(g, cudaEventSynchronize(ev[1]));
		NW_CUDA_CHECK(g, cudaEventElapsedTime(&ms[2], ev[0], ev[1]));
	}
	g->kernel_s += (ms[0] + ms[1] + ms[2]) * 1e-3;
	if (timing) {
		double cells = 0;
		for (size_t x = 0; x < n; x++) cells += (double)ps.jobs[x].m * (double)ps.jobs[x].n;
		fprintf(stderr, "nw_gpu pass kind %d: %zu problems, %.4g cells; kernels: 16-bit %.3f ms, 32-bit %.3f ms (%zu), long %.3f ms (%zu); %.1f GCUPS\n",
			ps.kind, n, cells, ms[0], ms[1], n32, ms[2], longs.size(), cells / ((ms[0] + ms[1] + ms[2]) * 1e6));
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

static double nw_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

extern "C" int nw_gpu_align(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
			    const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
			    char *err, size_t errlen)
{
	g->err = err;
	g->errlen = errlen;
	const nw_scoring_t *sc = p->sc;
	if (n <= 0) return 0;
	if (sc->n_codes > NW_QPAD || sc->gap_open < 0 || sc->gap_extend < 0 || sc->gap_open + sc->gap_extend < 1) {
		snprintf(err, errlen, "GPU engine: unsupported scoring (%d codes, gaps %d/%d)", sc->n_codes,
			 sc->gap_open, sc->gap_extend);
		return NW_ERR_USAGE;
	}
	const char *et = getenv("NW_GPU_TIMING");
	const bool timing = et && *et == '1';
	double tm[5];
	tm[0] = nw_now();
	NW_CUDA_CHECK(g, cudaSetDevice(g->device));
	NW_TRY(nw_gpu_upload(g, qb, &g->q));
	const nw_dseqs_t *rs = &g->q;
	if (rb != qb) {
		NW_TRY(nw_gpu_upload(g, rb, &g->r));
		rs = &g->r;
	}
	const uint8_t *qc = (const uint8_t *)g->q.codes.p, *rc = (const uint8_t *)rs->codes.p;
	const int fkind = p->mode == NW_MODE_LOCAL ? NW_DP_LOCAL : p->mode == NW_MODE_SEMIGLOBAL ? NW_DP_SEMI : NW_DP_GLOBAL;

	nw_pass_t fw, rv;
	fw.kind = fkind;
	rv.kind = fkind == NW_DP_LOCAL ? NW_DP_REV_LOCAL : NW_DP_REV_SEMI;
	std::vector<int64_t> fw_of((size_t)n, -1), rv_of((size_t)n, -1);
	for (int64_t k = 0; k < n; k++) {
		uint32_t q = pairs[k].q, r = pairs[k].r;
		int64_t m = qb->len[q], nn = rb->len[r];
		if (m == 0 || nn == 0) { /* no cells: the twin's borders say it all */
			std::vector<uint8_t> qs((size_t)m), r0((size_t)nn);
			for (int64_t i = 0; i < m; i++) qs[i] = nw_batch_code(qb, q, i);
			for (int64_t i = 0; i < nn; i++) r0[i] = nw_batch_code(rb, r, i);
			if (nw_gpu_twin_align(p, qs.data(), m, r0.data(), nn, &res[k]) < 0) {
				snprintf(err, errlen, "GPU engine: internal error on an empty sequence");
				return NW_ERR_INTERNAL;
			}
			continue;
		}
		nw_job_t j = {g->q.hboff[q], rs->hboff[r], m, nn, 1, 1};
		fw_of[k] = (int64_t)fw.jobs.size();
		fw.jobs.push_back(j);
		fw.fast.push_back(qb->bits[q] == 2 && rb->bits[r] == 2);
		fw.target.push_back(0);
	}
	if (timing) NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	tm[1] = nw_now();
	NW_TRY(nw_run_pass(g, fw, sc, qc, rc));
	tm[2] = nw_now();
	for (int64_t k = 0; k < n; k++) {
		if (fw_of[k] < 0) continue;
		const nw_job_t &j = fw.jobs[fw_of[k]];
		const nw_dp_out &o = fw.out[fw_of[k]];
		if (fkind == NW_DP_GLOBAL || p->ends_only || (fkind == NW_DP_LOCAL && o.score <= 0) ||
		    (fkind == NW_DP_SEMI && o.j == 0))
			continue;
		nw_job_t b = {j.qbase + o.i - 1, j.rbase + o.j - 1, o.i, o.j, -1, -1};
		rv_of[k] = (int64_t)rv.jobs.size();
		rv.jobs.push_back(b);
		rv.fast.push_back(fw.fast[fw_of[k]]);
		rv.target.push_back(o.score);
	}
	NW_TRY(nw_run_pass(g, rv, sc, qc, rc));
	tm[3] = nw_now();
	for (int64_t k = 0; k < n; k++) {
		if (fw_of[k] < 0) continue;
		const nw_job_t &j = fw.jobs[fw_of[k]];
		const nw_dp_out &o = fw.out[fw_of[k]];
		if (fkind == NW_DP_GLOBAL) {
			nw_set(&res[k], o.score, 0, j.m, 0, j.n);
		} else if (rv_of[k] < 0) {
			nw_set(&res[k], o.score, 0, o.i, 0, o.j); /* ends only; local 0: [0,0); semi end 0 */
		} else {
			const nw_dp_out &b = rv.out[rv_of[k]];
			if (b.score != o.score) {
				snprintf(err, errlen, "GPU engine: reverse pass of pair %lld gave %lld, forward %lld",
					 (long long)k, (long long)b.score, (long long)o.score);
				return NW_ERR_INTERNAL;
			}
			nw_set(&res[k], o.score, o.i - b.i, o.i, o.j - b.j, o.j);
		}
	}
	tm[4] = nw_now();
	if (timing)
		fprintf(stderr, "nw_gpu align: %lld pairs; upload+jobs %.1f ms, forward %.1f ms, reverse jobs+pass %.1f ms, results %.1f ms\n",
			(long long)n, 1e3 * (tm[1] - tm[0]), 1e3 * (tm[2] - tm[1]), 1e3 * (tm[3] - tm[2]), 1e3 * (tm[4] - tm[3]));
	return 0;
}
