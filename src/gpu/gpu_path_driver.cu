/* gpu_path_driver.cu: alignment paths on the GPU (nw_gpu_paths), by the rules of
 * src/path.h. Every path is built from path problems run in batches (gpu_path.cu):
 *   - FULL spans: one trace problem each over the whole span;
 *   - GACT spans: rounds; each round takes the next tile of every unfinished pair (the
 *     state machine of src/path.c) as a trace problem on reversed slices, and hands the
 *     traced ops back to the state machine;
 *   - EXACT spans: Myers-Miller breadth first; each level runs the two last-row halves of
 *     every sub-problem still too large, each limited to the band that the sub-problem's
 *     optimum allows (nw_mm_band), splits them as nw_mm_split would (over the bands'
 *     columns), and the leaves are banded trace problems with the leaf's gap opens.
 * The decisions, tie rules and splits are the CPU engine's, so the CIGARs are identical.
 * The same driver runs with the kernels emulated on the host (nw_gpu_paths_emulated).
 */
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <thread>
#include <time.h>
#include <vector>

#include "gpu_path.cuh"
extern "C" {
#include "band.h"
#include "path.h"
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

static double nw_path_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
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
	/* a contiguous range a thread, rc[w] written once: neighbouring results and the
	 * threads' words share cache lines */
	auto work = [&](unsigned w) {
		int r = 0;
		for (size_t k = n * w / nt, end = n * (w + 1) / nt; k < end && r == 0; k++) r = take(a, k, w);
		rc[w] = r;
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
		const double t0 = x.timing ? nw_path_now() : 0;
		x.jobs.assign(all.begin() + a, all.begin() + b);
		NW_TRY(nw_pexec_run(x, trace));
		const double t1 = x.timing ? nw_path_now() : 0;
		if (parallel) NW_TRY(nw_parallel_take(a, b - a, take));
		else
			for (size_t k = 0; k < b - a; k++) NW_TRY(take(a, k, 0));
		if (x.timing) x.s_exec += t1 - t0, x.s_take += nw_path_now() - t1;
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
	std::vector<nw_pjob> &all = x.full;
	all.resize(sp.size());
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
	int64_t S;          /* the sub-problem's optimal score (its band comes from it) */
};

static int64_t nw_env_mm_leaf(void)
{
	const char *s = getenv("NW_GPU_MM_LEAF");
	return s && *s ? atoll(s) : 0;
}

/* Job j (rows [0, j.m) of sub-problem v, forward, or its last j.m rows reversed) limited
 * to the diagonals that a path of v's optimal score can visit (src/band.h, with v's gap
 * opens), so that the work follows the divergence. Every cell on such a path keeps its
 * value and every other one is no higher, so the splits and the traces are those of the
 * whole matrix (the CPU engine's). The band holds 0 and n - m of v; for a half that is
 * enough for every row to meet it. */
static void nw_mm_band(nw_pjob &j, const nw_mm_node &v, const nw_scoring_t *sc, bool reversed)
{
	int64_t lo, hi;
	nw_band_diagonals(sc->max_score, sc->gap_open, sc->gap_extend, v.tb, v.te, v.m, v.n, v.S, &lo, &hi);
	if (reversed) { /* from the far corner: d' = (n - m) - d */
		const int64_t t = lo;
		lo = (v.n - v.m) - hi;
		hi = (v.n - v.m) - t;
	}
	j.dlo = (int32_t)std::max<int64_t>(lo, -j.m);
	j.dhi = (int32_t)std::min<int64_t>(hi, j.n);
	j.dir_words = nw_pdir_words(j);
}

static int nw_paths_exact(nw_pexec &x, const std::vector<nw_pspan> &sp, nw_result_t *res, const nw_scoring_t *sc)
{
	const int32_t O = sc->gap_open, X = sc->gap_extend;
	const int64_t env_leaf = nw_env_mm_leaf(), leaf = env_leaf > 0 ? env_leaf : NW_PATH_FULL_CELLS;
	std::vector<nw_mm_node> cur, nxt;
	for (size_t a = 0; a < sp.size(); a++)
		cur.push_back({(int64_t)a, sp[a].qb, sp[a].m, sp[a].rb, sp[a].n, O, O, 0, res[sp[a].k].score});
	auto splits = [&](const nw_mm_node &v) {
		return !v.emit_ii && v.m >= 2 && v.n >= 1 && (v.m + 1) * (v.n + 1) > leaf;
	};
	std::vector<nw_pjob> all;
	for (;;) {
		all.clear();
		for (const nw_mm_node &v : cur) {
			if (!splits(v)) continue;
			const int64_t mid = v.m / 2;
			all.push_back(nw_make_pjob(v.q0, 1, mid, v.r0, 1, v.n, O, v.tb, O));
			nw_mm_band(all.back(), v, sc, false);
			all.push_back(nw_make_pjob(v.q0 + v.m - 1, -1, v.m - mid, v.r0 + v.n - 1, -1, v.n, O, v.te, O));
			nw_mm_band(all.back(), v, sc, true);
		}
		if (all.empty()) break;
		const double lt0 = x.timing ? nw_path_now() : 0, lms0 = x.ms;
		/* results per split node, in order: [2 * x] forward, [2 * x + 1] reverse */
		std::vector<int64_t> split_col(all.size() / 2), split_up(all.size() / 2), split_down(all.size() / 2);
		std::vector<int> split_gap(all.size() / 2);
		NW_TRY(nw_run_batches(x, all, false, 2, false, [&](size_t b, size_t k, unsigned) {
			if (k % 2 == 0) return 0; /* batches start at even indices: k - 1 is the forward half */
			const nw_psplit &sp = x.splits[k / 2];
			const size_t z = (b + k) / 2;
			split_col[z] = sp.col;
			split_gap[z] = sp.gap;
			split_up[z] = sp.up;
			split_down[z] = sp.down;
			return 0;
		}));
		if (x.timing)
			fprintf(stderr, "nw_gpu paths: Myers-Miller level of %zu halves: %.1f ms (kernels %.1f)\n", all.size(),
				1e3 * (nw_path_now() - lt0), x.ms - lms0);
		nxt.clear();
		size_t z = 0;
		for (const nw_mm_node &v : cur) {
			if (!splits(v)) {
				nxt.push_back(v);
				continue;
			}
			const int64_t mid = v.m / 2, c = split_col[z], Su = split_up[z], Sl = split_down[z];
			const int gap = split_gap[z++];
			if ((gap ? Su + Sl - 2 * X - O : Su + Sl) != v.S) {
				if (x.g) snprintf(x.g->err, x.g->errlen, "GPU path engine: a Myers-Miller split misses the optimum");
				return NW_ERR_INTERNAL;
			}
			if (!gap) {
				nxt.push_back({v.span, v.q0, mid, v.r0, c, v.tb, O, 0, Su});
				nxt.push_back({v.span, v.q0 + mid, v.m - mid, v.r0 + c, v.n - c, O, v.te, 0, Sl});
			} else {
				nxt.push_back({v.span, v.q0, mid - 1, v.r0, c, v.tb, 0, 0, Su});
				nxt.push_back({v.span, 0, 0, 0, 0, 0, 0, 1, 0});
				nxt.push_back({v.span, v.q0 + mid + 1, v.m - mid - 1, v.r0 + c, v.n - c, 0, v.te, 0, Sl});
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
		nw_mm_band(all.back(), v, sc, false);
	}
	/* the pieces are emitted in node order, so batches must follow it: keep every batch's
	 * runs until its turn comes (batches are in node order too). A span's nodes are
	 * adjacent (each level puts a node's pieces where it was) and touch only its result,
	 * so the spans of a stretch are emitted side by side on host threads. */
	size_t next_node = 0;
	std::vector<size_t> seg;
	auto emit_until = [&](size_t stop, size_t base) -> int {
		seg.clear();
		for (size_t a = next_node; a < stop; a++)
			if (a == next_node || cur[a].span != cur[a - 1].span) seg.push_back(a);
		seg.push_back(stop);
		auto emit_span = [&](size_t, size_t z, unsigned) -> int {
			for (size_t a = seg[z]; a < seg[z + 1]; a++) {
				const nw_mm_node &v = cur[a];
				nw_result_t *r = &res[sp[v.span].k];
				int ret = 0;
				if (v.emit_ii) ret = nw_cigar_push(r, NW_CIGAR_I, 2);
				else if (v.n == 0) ret = v.m ? nw_cigar_push(r, NW_CIGAR_I, v.m) : 0;
				else if (v.m == 0) ret = nw_cigar_push(r, NW_CIGAR_D, v.n);
				else ret = nw_take_runs(x, job_of[a] - (int64_t)base, r);
				if (ret < 0) return ret;
			}
			return 0;
		};
		const int ret = nw_parallel_take(0, seg.size() - 1, emit_span);
		next_node = stop;
		return ret;
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


/* Paths of every pair with a non-empty span, on g (or emulated when g is NULL). */
/* --gact --max-deficit: the GACT spans whose path falls too far below the optimum, their
 * paths cleared and marked NW_PATH_REDONE, to be recomputed exactly (rescored on the host
 * from the batches, as nw_path_finish will do again). */
static int nw_gact_redo(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			const nw_pair_t *pairs, const std::vector<nw_pspan> &gact, nw_result_t *res,
			std::vector<nw_pspan> &redo)
{
	std::vector<uint8_t> q((size_t)qb->max_len + 1), r((size_t)rb->max_len + 1);
	for (const nw_pspan &s : gact) {
		nw_result_t *rs = &res[s.k];
		const nw_pair_t &pr = pairs[s.k];
		int64_t score;
		char err[160];
		nw_batch_unpack(qb, pr.q, q.data());
		nw_batch_unpack(rb, pr.r, r.data());
		if (nw_cigar_rescore(rs->cigar, rs->n_cigar, p->sc, q.data(), qb->len[pr.q], rs->qstart, r.data(),
				     rb->len[pr.r], rs->rstart, &score, err, sizeof err) < 0)
			continue; /* nw_path_finish reports it */
		if (nw_gact_too_short(p, score, rs->score)) {
			rs->n_cigar = 0;
			rs->path_kind = NW_PATH_REDONE;
			redo.push_back(s);
		}
	}
	return 0;
}

static int nw_paths(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
		    const uint8_t *qc, const uint8_t *rc, const int64_t *qoff, const int64_t *roff,
		    const nw_pair_t *pairs, int64_t n, nw_result_t *res, char *err, size_t errlen)
{
	const nw_scoring_t *sc = p->sc;
	nw_path_host own, *h = g ? nw_path_host_of(g) : &own;
	if (!h) {
		snprintf(err, errlen, "out of memory for the paths");
		return NW_ERR_MEMORY;
	}
	nw_pexec x(*h);
	x.g = g;
	x.qcodes = qc, x.rcodes = rc, x.qoff = qoff, x.roff = roff;
	x.O = sc->gap_open, x.E = sc->gap_extend;
	x.ms = x.ms_trace = 0;
	x.s_exec = x.s_take = 0;
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
	std::vector<nw_pspan> redo;
	if (ret == 0) ret = nw_gact_redo(p, qb, rb, pairs, gact, res, redo);
	if (ret == 0 && !redo.empty()) { /* exact spans stay in pair order: merge */
		exact.insert(exact.end(), redo.begin(), redo.end());
		std::sort(exact.begin(), exact.end(), [](const nw_pspan &a, const nw_pspan &b) { return a.k < b.k; });
	}
	double t2 = nw_path_now(), ms2 = x.ms;
	if (ret == 0) ret = nw_paths_exact(x, exact, res, sc);
	if (timing)
		fprintf(stderr, "nw_gpu paths: batches %.1f ms (kernels %.1f), their takes %.1f ms; traces %.1f ms; full %zu: %.1f ms (kernels %.1f); gact %zu: %.1f ms (kernels %.1f); exact %zu: %.1f ms (kernels %.1f)\n",
			1e3 * x.s_exec, x.ms, 1e3 * x.s_take,
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
	nw_gpu_call_size(g, n);
	if (n <= 0) return 0;
	NW_CUDA_CHECK(g, cudaSetDevice(g->device));
	const nw_dseqs_t *qs, *rs;
	NW_TRY(nw_gpu_seqs(g, qb, NW_SEQ_QUERIES, &qs));
	NW_TRY(nw_gpu_seqs(g, rb, NW_SEQ_REFS, &rs));
	return nw_paths(g, p, qb, rb, (const uint8_t *)qs->codes.p, (const uint8_t *)rs->codes.p, qs->hboff, rs->hboff,
			pairs, n, res, err, errlen);
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
	return nw_paths(NULL, p, qb, rb, qc.data(), rc.data(), qo.data(), ro.data(), pairs, n, res, err, errlen);
}
