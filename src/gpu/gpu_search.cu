/* gpu_search.cu: the forward pass of a database search (local --top), planned per
 * reference batch and per query, never per pair.
 *
 * The generic pass (nw_forward) makes a job, a sort record and an item for every pair on
 * the host, plans them and copies every result back: for a query against a million
 * references that is about as much host time as the kernels take. A search's pairs are
 * every query against every reference, so here:
 *  - once per reference batch, its references are sorted by length, longest first (the
 *    order that the planner gives any query's problems), and their positions, first codes
 *    and lengths go to the device;
 *  - per call, the host picks each query's shape (the planner's cost model, nw_plan_shape,
 *    for that query's length: its rows padded to its own stripes, not to a class's
 *    longest) and where each query's jobs and items go, one launch a shape; one kernel
 *    writes every job and item, the batch kernel runs them as the planner's launches
 *    would (a query's neighbours by length share an item; its items fill whole warps),
 *    and the results
 *    stay on the device, where another kernel maps each pair to its result;
 *  - the pairs the batch kernel does not take here (an empty sequence, a reference of
 *    more columns than its scratch holds, a pair for the long kernel) and the 16-bit
 *    results that may have wrapped (found on the device) are few: the generic pass runs
 *    them, and their results are written over the device's.
 * The results are those of the generic pass: every problem is exact in either.
 */
#include <algorithm>
#include <string.h>

#include "gpu_internal.cuh"

/* One query of a call: where its jobs and items go. Queries are in pair order (segment s:
 * pairs s * n_ref ..), their jobs and items in the order of the launches. */
struct nw_sq_t {
	int64_t qbase;       /* its first code */
	int64_t job0, item0; /* its first job and item */
	int32_t m;
	int32_t first;       /* its first position in the order (those before: long kernel) */
	int32_t cnt;         /* its jobs: positions first .. first + cnt */
	int32_t n_items;     /* its items, whole warps of its launch's groups */
};

/* Query q's job t, item t and the slot of its pair with the reference at position pos
 * (-1: the generic pass's), on the device and in the host emulation alike. Item t pairs
 * the neighbours 2t and 2t + 1 (one lane at the end, then empty slots to a whole warp). */
NW_HD nw_job_t nw_search_job(const nw_sq_t &q, int64_t t, const int64_t *rbase, const int32_t *rlen)
{
	nw_job_t j;
	j.qbase = q.qbase;
	j.rbase = rbase[q.first + t];
	j.m = q.m;
	j.n = rlen[q.first + t];
	j.qstep = j.rstep = 1;
	j.dlo = j.dhi = 0;
	j.target = NW_NO_TARGET;
	j.pad_ = 0;
	return j;
}
NW_HD nw_item_t nw_search_item(const nw_sq_t &q, int64_t t)
{
	nw_item_t it;
	it.a = 2 * t < q.cnt ? (int32_t)(q.job0 + 2 * t) : -1;
	it.b = 2 * t + 1 < q.cnt ? (int32_t)(q.job0 + 2 * t + 1) : it.a;
	return it;
}
NW_HD int64_t nw_search_slot(const nw_sq_t &q, int64_t pos)
{
	return pos >= q.first && pos < (int64_t)q.first + q.cnt ? q.job0 + pos - q.first : -1;
}

/* Every query's jobs and items (a grid row a query, its jobs and items by columns). */
__global__ void nw_search_make(const nw_sq_t *sq, int64_t n_q, const int64_t *rbase, const int32_t *rlen,
			       nw_job_t *jobs, nw_item_t *items)
{
	for (int64_t s = blockIdx.y; s < n_q; s += gridDim.y) {
		const nw_sq_t q = sq[s];
		const int64_t span = q.cnt > q.n_items ? q.cnt : q.n_items;
		for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < span; t += (int64_t)gridDim.x * blockDim.x) {
			if (t < q.cnt) jobs[q.job0 + t] = nw_search_job(q, t, rbase, rlen);
			if (t < q.n_items) items[q.item0 + t] = nw_search_item(q, t);
		}
	}
}

/* Pair k's result: its job's, or -1 where the generic pass's goes (nw_search_fix). */
__global__ void nw_search_map(const nw_sq_t *sq, const int32_t *rpos, int64_t n, int64_t n_ref, int64_t *map)
{
	for (int64_t k = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; k < n; k += (int64_t)gridDim.x * blockDim.x) {
		const int64_t s = k / n_ref;
		map[k] = nw_search_slot(sq[s], rpos[k - s * n_ref]);
	}
}

/* The jobs whose 16-bit result may have wrapped, appended to list (in any order). */
__global__ void nw_search_wrapped(const nw_dp_out *out, int64_t n, int32_t *list, unsigned *count)
{
	for (int64_t x = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; x < n; x += (int64_t)gridDim.x * blockDim.x)
		if (out[x].overflow) list[atomicAdd(count, 1u)] = (int32_t)x;
}

/* The generic pass's results: out[slot[e]] = val[e]; with map, also map[pair[e]] = slot[e]. */
__global__ void nw_search_fix(nw_dp_out *out, int64_t *map, const int64_t *slot, const int64_t *pair,
			      const nw_dp_out *val, int64_t n)
{
	for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n; e += (int64_t)gridDim.x * blockDim.x) {
		out[slot[e]] = val[e];
		if (pair[e] >= 0) map[pair[e]] = slot[e];
	}
}

static unsigned nw_grid(int64_t n, int threads)
{
	return (unsigned)std::max<int64_t>(1, std::min<int64_t>((n + threads - 1) / threads, 4096));
}

void nw_search_free(nw_search_t *s)
{
	nw_dbuf_t *d[] = {&s->refs, &s->table, &s->queries, &s->jobs, &s->outs, &s->items, &s->counters, &s->fix};
	for (nw_dbuf_t *b : d) nw_dbuf_free(b);
	nw_hbuf_free(&s->hbuf);
	s->stamp = 0; /* (its counts stay) */
}

/* The host's plan of reference batch rb into S (order, len, nsum, others) and rpos (each
 * reference's position, -1 for the others). The order is a counting sort by length (a
 * database's million references in a few milliseconds; a comparison sort took tens, on
 * every engine's first call). */
static void nw_search_sort(const nw_batch_t *rb, nw_search_t &S, std::vector<int32_t> &rpos)
{
	const int64_t n = rb->n;
	int64_t lmax = 0;
	for (int64_t r = 0; r < n; r++) lmax = std::max<int64_t>(lmax, rb->len[r]);
	lmax = std::min<int64_t>(lmax, NW_BATCH_MAX_N);
	/* at[len]: the position of the next reference of length len, longest first */
	std::vector<int64_t> at((size_t)lmax + 2, 0);
	S.others.clear();
	for (int64_t r = 0; r < n; r++) {
		const int64_t len = rb->len[r];
		if (len >= 1 && len <= NW_BATCH_MAX_N) at[(size_t)len]++;
		else S.others.push_back((int32_t)r);
	}
	int64_t no = 0;
	for (int64_t len = lmax; len >= 1; len--) {
		const int64_t c = at[(size_t)len];
		at[(size_t)len] = no;
		no += c;
	}
	S.order.resize((size_t)no);
	S.len.resize((size_t)no);
	S.nsum.assign((size_t)no + 1, 0);
	rpos.assign((size_t)n, -1);
	for (int64_t r = 0; r < n; r++) { /* in batch order within a length */
		const int64_t len = rb->len[r];
		if (len < 1 || len > NW_BATCH_MAX_N) continue;
		const int64_t k = at[(size_t)len]++;
		S.order[(size_t)k] = (int32_t)r;
		S.len[(size_t)k] = (int32_t)len;
		rpos[(size_t)r] = (int32_t)k;
	}
	for (int64_t k = no; k-- > 0;) S.nsum[(size_t)k] = S.nsum[(size_t)k + 1] + S.len[(size_t)k];
	S.n_refs = n;
}

/* The plan of reference batch rb (rs: its device copy), unless it is the one held. */
static int nw_search_refs(nw_gpu_t *g, const nw_batch_t *rb, const nw_dseqs_t *rs)
{
	nw_search_t &S = g->search;
	if (S.stamp == rb->stamp && S.n_refs == rb->n && rb->stamp != 0) return 0;
	S.stamp = 0;
	std::vector<int32_t> rpos;
	nw_search_sort(rb, S, rpos);
	const size_t no = S.order.size(), n = (size_t)rb->n;
	std::vector<int64_t> base(no);
	for (size_t k = 0; k < no; k++) base[k] = rs->hboff[S.order[k]];
	size_t off = 0;
	const size_t o_base = nw_carve(&off, no * sizeof(int64_t)), o_len = nw_carve(&off, no * sizeof(int32_t));
	const size_t o_pos = nw_carve(&off, n * sizeof(int32_t));
	NW_TRY(nw_dbuf_reserve(g, &S.refs, off));
	char *d = (char *)S.refs.p;
	S.drbase = (int64_t *)(d + o_base), S.drlen = (int32_t *)(d + o_len), S.drpos = (int32_t *)(d + o_pos);
	/* pageable sources: each copy returns once its bytes are taken */
	NW_CUDA_CHECK(g, cudaMemcpyAsync(S.drbase, base.data(), no * sizeof(int64_t), cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(S.drlen, S.len.data(), no * sizeof(int32_t), cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemcpyAsync(S.drpos, rpos.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice, g->stream));
	S.stamp = rb->stamp;
	return 0;
}

/* Whether the search pass takes the call: local scores for ranking, the profile scorer's
 * problems (not DNA of the XOR scorer), 16-bit lanes possible. */
static bool nw_search_applies(const nw_align_params_t *p, const nw_fwd_info *info, int64_t n_q, int64_t n_ref)
{
	const char *es = getenv("NW_GPU_SEARCH"); /* test and benchmark hook: 0 never takes it */
	if (es && *es == '0') return false;
	const nw_scoring_t *sc = p->sc;
	if (p->mode != NW_MODE_LOCAL || !info->best || p->starts_only || n_ref < 1 || n_q < 1 || n_q > INT32_MAX)
		return false;
	const int prof = nw_env_prof();
	if (prof == 0 || (prof == 1 && n_ref < 8)) return false; /* the generic pass's rule for the profile */
	uint32_t t0, t1;
	if (nw_fast_bytes(sc, NW_DP_LOCAL, &t0, &t1)) return false;
	if (!nw_scoring_ok(sc)) return false; /* nw_forward's error */
	return nw_fits(NW_DP_LOCAL, sc, 1, 1, 0, 16);
}

/* A launch of the search: a query length class (or several of one shape). */
struct nw_search_launch {
	int G, R;
	int64_t first, count; /* items */
	int32_t ncap;
};

/* A call's plan on the host: each query's record (sq, in pair order), the queries with jobs
 * in the order of their jobs and items (by_m: by shape, then by length, longest first),
 * the launches (one a shape), and the
 * pairs for the generic pass (gen; their results' slots, after the jobs, and their pairs). */
struct nw_search_layout {
	std::vector<nw_sq_t> sq;
	std::vector<int32_t> by_m;
	std::vector<nw_search_launch> launches;
	std::vector<nw_pair_t> gen;
	std::vector<int64_t> gen_slot, gen_pair;
	int64_t n_jobs, n_items;
	double cells;
};

/* The layout of every query of qb (qbase[i]: query i's first code) against the n_ref
 * references that S plans: shape(c, &G, &R) gives the shape of a class (here one query;
 * L.cells is the call's cells by then), and a call of fewer than small_jobs jobs takes the
 * longest query's shape for all (the planner's rule). false: more jobs than items can
 * number. */
template <class F>
static bool nw_search_lay_out(const nw_search_t &S, const nw_batch_t *qb, const int64_t *qbase, int64_t n_ref,
			      int64_t small_jobs, F shape, nw_search_layout &L)
{
	const int64_t n_q = qb->n, n_order = (int64_t)S.order.size(), long_min = nw_env_long_min();
	/* each query's first position, jobs and cells; queries by length, longest first */
	std::vector<nw_sq_t> &sq = L.sq;
	std::vector<int32_t> &by_m = L.by_m;
	sq.assign((size_t)n_q, nw_sq_t());
	by_m.clear();
	L.cells = 0;
	L.n_jobs = 0;
	for (int64_t s = 0; s < n_q; s++) {
		nw_sq_t &q = sq[(size_t)s];
		const int64_t m = qb->len[s];
		q.qbase = qbase[s];
		q.m = (int32_t)std::min<int64_t>(m, INT32_MAX);
		q.first = (int32_t)n_order; /* m == 0: no jobs, every pair to the generic pass */
		if (m > 0 && m < INT32_MAX) {
			q.first = (int32_t)(std::partition_point(S.len.begin(), S.len.end(),
								 [&](int32_t len) { return nw_long_problem(m, len, long_min); }) -
					    S.len.begin());
			q.cnt = (int32_t)(n_order - q.first);
		}
		L.n_jobs += q.cnt;
		L.cells += (double)q.m * (double)S.nsum[(size_t)q.first];
		if (q.cnt) by_m.push_back((int32_t)s);
	}
	if (L.n_jobs > INT32_MAX / 2) return false; /* items hold int32 job indices */
	std::stable_sort(by_m.begin(), by_m.end(), [&](int32_t a, int32_t b) { return sq[(size_t)a].m > sq[(size_t)b].m; });

	/* each query's shape, from the planner's cost model for its own length (a class of
	 * queries padded to the longest one's stripes pays rows the others do not need); the
	 * queries of one shape together, in the order of their longest, longest first within:
	 * a launch a shape, jobs and items laid out in that order */
	std::vector<nw_search_launch> &launches = L.launches;
	launches.clear();
	const bool small = L.n_jobs < small_jobs;
	std::vector<std::pair<int, int> > shape_of((size_t)n_q); /* by query */
	std::vector<int32_t> rank_of((size_t)n_q);               /* its shape's first appearance */
	std::vector<std::pair<int, int> > seen;
	for (size_t x = 0; x < by_m.size(); x++) {
		const int32_t s = by_m[x];
		const nw_sq_t &q = sq[(size_t)s];
		std::pair<int, int> &sh = shape_of[(size_t)s];
		if (small && x > 0) {
			sh = shape_of[(size_t)by_m[0]];
		} else {
			nw_class_t c;
			memset(&c, 0, sizeof c);
			c.bk = NW_BK_PROF16;
			c.mmax = q.m;
			c.nmax = S.len[(size_t)q.first];
			c.x0 = 0, c.x1 = (size_t)q.cnt;
			c.cells = (double)q.m * (double)S.nsum[(size_t)q.first];
			c.nmean = (double)S.nsum[(size_t)q.first] / (double)q.cnt;
			shape(c, &sh.first, &sh.second);
		}
		rank_of[(size_t)s] = (int32_t)(std::find(seen.begin(), seen.end(), sh) - seen.begin());
		if ((size_t)rank_of[(size_t)s] == seen.size()) seen.push_back(sh);
	}
	std::stable_sort(by_m.begin(), by_m.end(),
			 [&](int32_t a, int32_t b) { return rank_of[(size_t)a] < rank_of[(size_t)b]; });
	int64_t job0 = 0, item0 = 0;
	for (const int32_t s : by_m) {
		const std::pair<int, int> &sh = shape_of[(size_t)s];
		nw_sq_t &q = sq[(size_t)s];
		if (launches.empty() || launches.back().G != sh.first || launches.back().R != sh.second) {
			nw_search_launch l;
			l.G = sh.first, l.R = sh.second;
			l.first = item0;
			l.count = 0;
			l.ncap = 0;
			launches.push_back(l);
		}
		nw_search_launch &l = launches.back();
		const int gpw = 32 / l.G;
		q.job0 = job0;
		q.item0 = item0;
		q.n_items = (int32_t)(((int64_t)q.cnt + 1) / 2 + gpw - 1) / gpw * gpw;
		job0 += q.cnt;
		item0 += q.n_items;
		l.count += q.n_items;
		l.ncap = std::max(l.ncap, S.len[(size_t)q.first]);
	}
	L.n_items = item0;

	/* the pairs the generic pass runs: whole queries of no rows, then by query the
	 * references outside the order and the positions before its first */
	L.gen.clear(), L.gen_slot.clear(), L.gen_pair.clear();
	for (int64_t s = 0; s < n_q; s++) {
		const nw_sq_t &q = sq[(size_t)s];
		auto add = [&](int32_t r) {
			nw_pair_t pr;
			pr.q = (uint32_t)s, pr.r = (uint32_t)r;
			L.gen_slot.push_back(L.n_jobs + (int64_t)L.gen.size());
			L.gen_pair.push_back(s * n_ref + r);
			L.gen.push_back(pr);
		};
		if (q.cnt == 0 && q.first == n_order) {
			for (int64_t r = 0; r < n_ref; r++) add((int32_t)r);
			continue;
		}
		for (int32_t r : S.others) add(r);
		for (int32_t k = 0; k < q.first; k++) add(S.order[(size_t)k]);
	}
	return true;
}

/* The jobs wl whose 16-bit results may have wrapped, to the generic pass (their slots are
 * theirs: the map has them already). */
static void nw_search_add_wrapped(nw_search_layout &L, const nw_search_t &S, std::vector<int32_t> &wl)
{
	std::sort(wl.begin(), wl.end());
	size_t s = 0;
	for (int32_t x : wl) { /* job x: its query by the first jobs, position first + x - job0 */
		while (s < L.by_m.size() && L.sq[(size_t)L.by_m[s]].job0 + L.sq[(size_t)L.by_m[s]].cnt <= x) s++;
		const nw_sq_t &q = L.sq[(size_t)L.by_m[s]];
		nw_pair_t pr;
		pr.q = (uint32_t)L.by_m[s];
		pr.r = (uint32_t)S.order[(size_t)(q.first + x - q.job0)];
		L.gen.push_back(pr);
		L.gen_slot.push_back(x);
		L.gen_pair.push_back(-1);
	}
}

/* See gpu_internal.cuh. */
int nw_search_forward(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
		      int64_t *map, nw_fwd_info *info, const nw_dp_out **outs)
{
	const int64_t n_q = qb->n, n_ref = rb->n, n = n_q * n_ref;
	if (!nw_search_applies(p, info, n_q, n_ref)) return 1;
	const nw_scoring_t *sc = p->sc;
	nw_search_t &S = g->search;
	const nw_dseqs_t *qs, *rs;
	NW_TRY(nw_pass_seqs(g, qb, rb, info, &qs, &rs));
	const uint8_t *qc = info->qc, *rc = info->rc;
	NW_TRY(nw_search_refs(g, rb, rs));
	const double t_refs = nw_now();
	const int kc = NW_KC_BEST;
	nw_search_layout L;
	auto shape = [&](const nw_class_t &c, int *G, int *R) {
		nw_plan_shape(g, c, kc, sc->n_codes, L.cells / (16.0 * g->n_sm), false, G, R);
	};
	if (!nw_search_lay_out(S, qb, qs->hboff, n_ref, (int64_t)g->n_sm * 8, shape, L)) return 1;
	const double t_lay = nw_now();
	const std::vector<nw_sq_t> &sq = L.sq;
	const std::vector<nw_search_launch> &launches = L.launches;
	std::vector<nw_pair_t> &gen = L.gen;
	std::vector<int64_t> &gen_slot = L.gen_slot, &gen_pair = L.gen_pair;
	const int64_t n_jobs = L.n_jobs, n_items = L.n_items, n_order = (int64_t)S.order.size();
	const double cells = L.cells;
	const int64_t n_slots = n_jobs + (int64_t)gen.size();

	/* buffers; the queries' records by pinned copy */
	NW_TRY(nw_dbuf_reserve(g, &S.queries, (size_t)std::max<int64_t>(n_q, 1) * sizeof(nw_sq_t)));
	NW_TRY(nw_dbuf_reserve(g, &S.jobs, (size_t)std::max<int64_t>(n_jobs, 1) * sizeof(nw_job_t)));
	NW_TRY(nw_dbuf_reserve(g, &S.outs, (size_t)std::max<int64_t>(n_slots, 1) * sizeof(nw_dp_out)));
	NW_TRY(nw_dbuf_reserve(g, &S.items, (size_t)std::max<int64_t>(n_items, 1) * sizeof(nw_item_t)));
	/* a counter a launch, the count of wrapped results, then their list */
	size_t coff = 0;
	const size_t o_cnt = nw_carve(&coff, (launches.size() + 1) * sizeof(unsigned));
	const size_t o_list = nw_carve(&coff, (size_t)std::max<int64_t>(n_jobs, 1) * sizeof(int32_t));
	NW_TRY(nw_dbuf_reserve(g, &S.counters, coff));
	unsigned *dcnt = (unsigned *)((char *)S.counters.p + o_cnt);
	int32_t *dlist = (int32_t *)((char *)S.counters.p + o_list);
	NW_TRY(nw_hbuf_reserve(g, &S.hbuf, std::max((size_t)n_q * sizeof(nw_sq_t), 2 * sizeof(unsigned))));
	memcpy(S.hbuf.p, sq.data(), (size_t)n_q * sizeof(nw_sq_t));
	int32_t tab[NW_TAB_DIM * NW_TAB_DIM];
	nw_fill_table(sc, NW_DP_LOCAL, tab);
	NW_TRY(nw_dbuf_put(g, &S.table, tab, sizeof tab));
	nw_sq_t *dsq = (nw_sq_t *)S.queries.p;
	nw_job_t *djobs = (nw_job_t *)S.jobs.p;
	nw_dp_out *douts = (nw_dp_out *)S.outs.p;
	nw_item_t *ditems = (nw_item_t *)S.items.p;
	NW_CUDA_CHECK(g, cudaMemcpyAsync(dsq, S.hbuf.p, (size_t)n_q * sizeof(nw_sq_t), cudaMemcpyHostToDevice, g->stream));
	NW_CUDA_CHECK(g, cudaMemsetAsync(dcnt, 0, (launches.size() + 1) * sizeof(unsigned), g->stream));
	if (n_jobs) {
		const int64_t span = std::max<int64_t>(n_order, 1);
		dim3 grid(nw_grid(span, 256), (unsigned)std::min<int64_t>(n_q, 65535));
		nw_search_make<<<grid, 256, 0, g->stream>>>(dsq, n_q, S.drbase, S.drlen, djobs, ditems);
		NW_LAUNCH_CHECK(g);
	}
	info->t[1] = nw_now();

	/* the batch kernel's launches, as nw_queue_slice makes them */
	float ms = 0;
	if (!launches.empty()) {
		if (!g->ev_ok) {
			for (int k = 0; k < 3; k++) NW_CUDA_CHECK(g, cudaEventCreate(&g->ev[k]));
			g->ev_ok = 1;
		}
		NW_CUDA_CHECK(g, cudaEventRecord(g->ev_up, g->stream));
		for (int k = 0; k < NW_STREAMS; k++) NW_CUDA_CHECK(g, cudaStreamWaitEvent(g->side[k], g->ev_up, 0));
		g->ev_start = true;
		for (size_t x = 0; x < launches.size(); x++) {
			const nw_search_launch &l = launches[x];
			nw_bparams_t bp = nw_bparams_make(sc, NW_DP_LOCAL, 0, 1, djobs, douts, ditems + l.first, l.count, qc, rc,
							  (const int32_t *)S.table.p, l.G, l.ncap);
			bp.counter = dcnt + x;
			NW_TRY(nw_batch_launch(g, NW_BK_PROF16, l.R, &bp, (int)(x % NW_STREAMS)));
			if (info->timing)
				fprintf(stderr, "nw_gpu   search launch: G %d R %d, %lld items, ncap %d\n", l.G, l.R,
					(long long)l.count, l.ncap);
		}
		NW_TRY(nw_streams_join(g));
		NW_CUDA_CHECK(g, cudaEventRecord(g->ev[1], g->stream));
		nw_search_wrapped<<<nw_grid(n_jobs, 256), 256, 0, g->stream>>>(douts, n_jobs, dlist, dcnt + launches.size());
		NW_LAUNCH_CHECK(g);
	}
	unsigned *hcnt = (unsigned *)S.hbuf.p; /* the records were copied out (stream order) */
	NW_CUDA_CHECK(g, cudaMemcpyAsync(hcnt, dcnt + launches.size(), sizeof(unsigned), cudaMemcpyDeviceToHost, g->stream));
	NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	const int64_t n_wrapped = launches.empty() ? 0 : *hcnt;
	if (!launches.empty()) {
		NW_CUDA_CHECK(g, cudaEventElapsedTime(&ms, g->ev[0], g->ev[1]));
		g->kernel_s += ms * 1e-3;
	}
	if (n_wrapped) { /* again in the generic pass, which redoes them in 32 bits */
		std::vector<int32_t> wl((size_t)n_wrapped);
		NW_CUDA_CHECK(g, cudaMemcpy(wl.data(), dlist, (size_t)n_wrapped * sizeof(int32_t), cudaMemcpyDeviceToHost));
		nw_search_add_wrapped(L, S, wl);
	}
	if (info->timing)
		fprintf(stderr, "nw_gpu search: %lld queries, %lld jobs, %zu launches, %lld cells; planned %.1f ms (sequences %.1f, references %.1f, layout %.1f, jobs %.1f), kernels %.3f ms; %lld pairs to the generic pass (%lld wrapped)\n",
			(long long)n_q, (long long)n_jobs, launches.size(), (long long)cells, 1e3 * (info->t[1] - info->t[0]),
			1e3 * (info->t_seqs - info->t[0]), 1e3 * (t_refs - info->t_seqs), 1e3 * (t_lay - t_refs),
			1e3 * (info->t[1] - t_lay), ms,
			(long long)gen.size(), (long long)n_wrapped);

	/* the map, then the generic pass's results over it */
	nw_search_map<<<nw_grid(n, 256), 256, 0, g->stream>>>(dsq, S.drpos, n, n_ref, map);
	NW_LAUNCH_CHECK(g);
	if (!gen.empty()) {
		nw_fwd_info gi;
		memset(&gi, 0, sizeof gi);
		gi.timing = info->timing;
		gi.best = true;
		const int64_t ng = (int64_t)gen.size();
		NW_TRY(nw_forward(g, p, qb, rb, gen.data(), ng, NULL, &gi));
		std::vector<nw_dp_out> val((size_t)ng);
		for (int64_t e = 0; e < ng; e++)
			if (g->plan.fw_of[(size_t)e] >= 0) val[(size_t)e] = g->fw.out[g->plan.fw_of[(size_t)e]];
		for (const auto &em : g->plan.empties) val[(size_t)em.first] = em.second;
		size_t foff = 0;
		const size_t o_slot = nw_carve(&foff, (size_t)ng * sizeof(int64_t));
		const size_t o_pair = nw_carve(&foff, (size_t)ng * sizeof(int64_t));
		const size_t o_val = nw_carve(&foff, (size_t)ng * sizeof(nw_dp_out));
		NW_TRY(nw_dbuf_reserve(g, &S.fix, foff));
		NW_TRY(nw_hbuf_reserve(g, &S.hbuf, foff));
		char *h = (char *)S.hbuf.p, *d = (char *)S.fix.p;
		memcpy(h + o_slot, gen_slot.data(), (size_t)ng * sizeof(int64_t));
		memcpy(h + o_pair, gen_pair.data(), (size_t)ng * sizeof(int64_t));
		memcpy(h + o_val, val.data(), (size_t)ng * sizeof(nw_dp_out));
		NW_CUDA_CHECK(g, cudaMemcpyAsync(d, h, foff, cudaMemcpyHostToDevice, g->stream));
		nw_search_fix<<<nw_grid(ng, 256), 256, 0, g->stream>>>(douts, map, (const int64_t *)(d + o_slot),
								      (const int64_t *)(d + o_pair),
								      (const nw_dp_out *)(d + o_val), ng);
		NW_LAUNCH_CHECK(g);
		/* the pinned buffer is read by that copy: the next call may rewrite it */
		NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	}
	info->t[2] = nw_now();
	*outs = douts;
	S.pairs += n;
	S.generic += (int64_t)gen.size();
	return 0;
}

extern "C" void nw_gpu_search_pairs(const nw_gpu_t *g, int64_t *pairs, int64_t *generic)
{
	*pairs = g ? g->search.pairs : 0;
	*generic = g ? g->search.generic : 0;
}

/* See gpu.h. */
extern "C" int64_t nw_gpu_search_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
					  int G, int R, int64_t *scores, char *err, size_t errlen)
{
	nw_fwd_info info;
	memset(&info, 0, sizeof info);
	info.best = true;
	const bool mixed = G == 0 && R == 0;
	if ((!mixed && !nw_prof_shape(G, R)) || !nw_search_applies(p, &info, qb->n, rb->n)) {
		snprintf(err, errlen, "emulated search pass: it does not take these scores, batches or shape (G %d, R %d)", G, R);
		return NW_ERR_USAGE;
	}
	const nw_scoring_t *sc = p->sc;
	const int64_t n_ref = rb->n, n = qb->n * n_ref;
	std::vector<uint8_t> qc, rc;
	std::vector<int64_t> qo, ro;
	nw_host_codes(qb, qc, qo);
	nw_host_codes(rb, rc, ro);
	nw_search_t S = nw_search_t();
	std::vector<int32_t> rpos;
	nw_search_sort(rb, S, rpos);
	std::vector<int64_t> rbase(S.order.size());
	for (size_t k = 0; k < S.order.size(); k++) rbase[k] = ro[(size_t)S.order[k]];
	nw_search_layout L;
	/* mixed: a query's shape by its length, so that a call's queries take several */
	static const int mix[4][2] = {{8, 8}, {16, 16}, {8, 24}, {32, 32}};
	auto shape = [&](const nw_class_t &c, int *g_, int *r_) {
		*g_ = mixed ? mix[c.mmax / 50 % 4][0] : G;
		*r_ = mixed ? mix[c.mmax / 50 % 4][1] : R;
	};
	if (!nw_search_lay_out(S, qb, qo.data(), n_ref, 0, shape, L)) {
		snprintf(err, errlen, "emulated search pass: too many jobs");
		return NW_ERR_USAGE;
	}
	/* the jobs and items the device makes, the launches replayed */
	std::vector<nw_job_t> jobs((size_t)std::max<int64_t>(L.n_jobs, 1));
	std::vector<nw_item_t> items((size_t)std::max<int64_t>(L.n_items, 1));
	for (const nw_sq_t &q : L.sq) {
		for (int64_t t = 0; t < q.cnt; t++) jobs[(size_t)(q.job0 + t)] = nw_search_job(q, t, rbase.data(), S.len.data());
		for (int64_t t = 0; t < q.n_items; t++) items[(size_t)(q.item0 + t)] = nw_search_item(q, t);
	}
	std::vector<nw_dp_out> out((size_t)L.n_jobs);
	std::vector<int32_t> tab(NW_TAB_DIM * NW_TAB_DIM);
	nw_fill_table(sc, NW_DP_LOCAL, tab.data());
	for (const nw_search_launch &l : L.launches) {
		nw_bparams_t bp = nw_bparams_make(sc, NW_DP_LOCAL, 0, 1, jobs.data(), out.data(), items.data() + l.first, l.count,
						  qc.data(), rc.data(), tab.data(), l.G, l.ncap);
		nw_batch_emulate(NW_BK_PROF16, l.R, &bp, NULL);
	}
	/* the generic pass's pairs, then the map */
	std::vector<int32_t> wl;
	for (int64_t x = 0; x < L.n_jobs; x++)
		if (out[(size_t)x].overflow) wl.push_back((int32_t)x);
	nw_search_add_wrapped(L, S, wl);
	const int64_t ng = (int64_t)L.gen.size();
	std::vector<nw_result_t> res((size_t)std::max<int64_t>(ng, 1));
	nw_align_params_t gp = *p;
	gp.ends_only = 1;
	nw_emul_shape_t sh;
	memset(&sh, 0, sizeof sh);
	sh.G = mixed ? 8 : G, sh.R = mixed ? 16 : R;
	if (ng) {
		const int ret = nw_gpu_align_emulated(&gp, qb, rb, L.gen.data(), ng, &sh, res.data(), err, errlen);
		if (ret < 0) return ret;
	}
	out.resize((size_t)(L.n_jobs + ng));
	for (int64_t e = 0; e < ng; e++) out[(size_t)L.gen_slot[(size_t)e]].score = res[(size_t)e].score;
	std::vector<int64_t> slot((size_t)n);
	for (int64_t k = 0; k < n; k++) slot[(size_t)k] = nw_search_slot(L.sq[(size_t)(k / n_ref)], rpos[(size_t)(k % n_ref)]);
	for (int64_t e = 0; e < ng; e++)
		if (L.gen_pair[(size_t)e] >= 0) slot[(size_t)L.gen_pair[(size_t)e]] = L.gen_slot[(size_t)e];
	for (int64_t k = 0; k < n; k++) {
		if (slot[(size_t)k] < 0) {
			snprintf(err, errlen, "emulated search pass: pair %lld has no result", (long long)k);
			return NW_ERR_INTERNAL;
		}
		scores[k] = out[(size_t)slot[(size_t)k]].score;
	}
	return ng;
}
