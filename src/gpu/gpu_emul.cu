/* gpu_emul.cu: the kernels' thread logic replayed on the host for whole requests
 * (nw_gpu_align_emulated), so that tests check the batch kernel's steps, stripes, column
 * windows and 16-bit lanes, and the long kernel's tiles, borders and band skipping, without
 * a device. One batch launch is replayed by nw_batch_emulate (the long kernel's twin,
 * nw_long_emulate, stays beside it in gpu_long.cu).
 *
 * The request goes the engine's way (src/gpu/gpu_align.cu): a forward pass, then for local
 * and semiglobal alignments the reverse pass over the banded sub-problem from the forward
 * end (nw_rev_job); every local forward pass runs again in the score-only class (--top's,
 * NW_KC_BEST), whose scores must be the same. Every launch takes the one shape the caller
 * names. Batch kernel:
 * items of two problems in 16-bit lanes where nw_fits allows (the 2-bit DNA scorer when
 * both sequences are 2-bit codes, else the table) paired by the planner's nw_make_items,
 * the rest, and the local results that may have wrapped, in 32 bits. Long kernel: every
 * problem, 32-bit lanes where they fit (the PRMT scorer for 2-bit DNA), else 64. The planner's
 * sort and classes are not involved; the profile scorer is where the shape asks for it
 * (nw_emul_shape_t.prof: the forward pass's table-scored problems in input order, so that
 * each query's run of problems is the engine's when the request lists them query by
 * query).
 */
#include <algorithm>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "gpu_batch.cuh"

/* ---------------------------------------------------------------- host emulation */
/* The nw_k steps of stripe s (of nw_s) by every lane of the warp th, with RR rows a thread:
 * the kernel's phases (nw_stripe_steps), each step by every lane. */
template <class T, int RR>
static void nw_emul_steps(std::vector<T> &th, int s, int nw_s, int32_t nw_k, int32_t kme, int G)
{
	typedef typename T::V V;
	V hin[32], fin[32], hout[32] = {0}, fout[32] = {0};
	const int32_t k0 = T::BAND ? nw_k : std::min(G - 1, nw_k), k1 = std::max(k0, kme);
	const bool above = s > 0, below = s + 1 < nw_s;
	for (int32_t k = 0; k < nw_k; k++) {
		for (int l = 0; l < 32; l++) {
			int src = (l % G) ? l - 1 : l; /* __shfl_up_sync(.., 1, G) */
			hin[l] = hout[src];
			fin[l] = fout[src];
		}
		for (int l = 0; l < 32; l++) {
			T &x = th[l];
			if (k == k0 && k < k1) x.seek(k); /* nw_steps, before its untested steps */
			if (k < k0 || k >= k1) x.template step<true, true, true, RR>(k, hin[l], fin[l], hout[l], fout[l]);
			else if (!above && below) x.template step<false, false, true, RR>(k, hin[l], fin[l], hout[l], fout[l]);
			else if (!above) x.template step<false, false, false, RR>(k, hin[l], fin[l], hout[l], fout[l]);
			else if (below) x.template step<false, true, true, RR>(k, hin[l], fin[l], hout[l], fout[l]);
			else x.template step<false, true, false, RR>(k, hin[l], fin[l], hout[l], fout[l]);
		}
	}
}

/* nw_emul_steps at the rows nw_stripe_rows chooses (the kernel's nw_stripe_f). */
template <class T>
struct nw_emul_steps_f {
	std::vector<T> &th;
	int s, nw_s;
	int32_t nw_k, kme;
	int G;
	template <int RR> void run() { nw_emul_steps<T, RR>(th, s, nw_s, nw_k, kme, G); }
};

template <class SC, int R, int KC>
static void nw_batch_emul(const nw_bparams_t &p0, int64_t *cols)
{
	typedef nw_bthread<SC, R, KC> T;
	typedef typename T::V V;
	nw_bparams_t p = p0;
	const int G = p.G, gpw = 32 / G;
	p.slot_words = NW_SLOT_WORDS(p.ncap);
	std::vector<uint32_t> scratch((size_t)gpw * p.slot_words);
	p.scratch = scratch.data();
	const int64_t nwi = (p.n_items + gpw - 1) / gpw;
	SC sc;
	nw_make_sc(p, p.table, &sc);
	std::vector<T> th(32);
	typedef typename T::L L;
	std::vector<V> snaps(32 * NW_SNAP_WORDS(L, R));
	std::vector<uint4> prof(SC::PROFILE ? nw_sc_prof::bytes(p.ncodes, G, R) / 16 + 1 : 1);
	for (int64_t wi = 0; wi < nwi; wi++) {
		int32_t nw_s = 0;
		for (int l = 0; l < 32; l++) {
			T &x = th[l];
			SC scl = sc;
			nw_setup_prof(scl, (char *)prof.data(), p.ncodes, G, R, l % G, T::prof_bias(p));
			x.init(p, scl, wi * gpw + l / G, l % G, p.scratch + (l / G) * p.slot_words,
			       &snaps[l * NW_SNAP_WORDS(L, R)]);
			x.stage_cols(p);
		}
		if (T::SHORT0) { /* the kernel's warp maximum */
			int32_t r0 = 0;
			for (int l = 0; l < 32; l++) r0 = std::max(r0, th[l].short_rows());
			for (int l = 0; l < 32; l++) th[l].set_rows0(r0);
		}
		for (int l = 0; l < 32; l++) nw_s = th[l].ns > nw_s ? th[l].ns : nw_s;
		for (int s = 0; s < nw_s; s++) {
			if (T::BAND) { /* the kernel's live scan, its parts merged over each group */
				std::vector<nw_live> lv(32);
				for (int l = 0; l < 32; l++) th[l].live_scan(s, lv[l]);
				for (int l = 0; l < 32; l++) {
					nw_live all = lv[l - l % G];
					for (int u = 1; u < G; u++) all.merge(lv[l - l % G + u]);
					th[l].next_window(s, all);
					int32_t blo, bhi;
					th[l].window(s, NULL, blo, bhi);
					if (cols && l % G == 0 && th[l].item >= 0) {
						cols[0] += std::max(0, th[l].jhi - th[l].jlo + 1);
						cols[1] += std::max(0, bhi - blo + 1);
					}
				}
			}
			for (int l = 0; l < 32; l++) th[l].fill_border(s);
			int32_t nw_k = 0, kme = INT32_MAX;
			for (int l = 0; l < 32; l++) {
				th[l].begin(p, s, l < G);
				nw_k = std::max(nw_k, th[l].steps());
				kme = std::min(kme, th[l].main_end());
			}
			/* the kernel's nw_stripe: the instance of the stripe's rows */
			nw_emul_steps_f<T> f = {th, s, nw_s, nw_k, kme, G};
			nw_stripe_rows<T, R>(th[0], s, f);
			for (int l = 0; l < 32; l++) th[l].end();
		}
		for (int l = 0; l < 32; l++) {
			if ((T::TRACK || T::BEST) && l % G == 0)
				for (int u = 1; u < G; u++)
					for (int k = 0; k < T::LANES; k++) nw_cand_merge(th[l].cand[k], th[l + u].cand[k]);
			if (th[l].writer()) th[l].write(p);
		}
	}
}

template <class SC, int R>
static void nw_emul_kc(const nw_bparams_t *p, int64_t *cols)
{
	switch (nw_kclass(p->kind, p->live, p->best)) {
	case NW_KC_LOCAL: nw_batch_emul<SC, R, NW_KC_LOCAL>(*p, cols); break;
	case NW_KC_BEST: nw_batch_emul<SC, R, NW_KC_BEST>(*p, cols); break;
	case NW_KC_REVLOCAL: nw_batch_emul<SC, R, NW_KC_REVLOCAL>(*p, cols); break;
	case NW_KC_TARGET: nw_batch_emul<SC, R, NW_KC_TARGET>(*p, cols); break;
	default: nw_batch_emul<SC, R, NW_KC_LASTROW>(*p, cols); break;
	}
}

struct nw_emul_f {
	const nw_bparams_t *p;
	int64_t *cols;
	template <class SC, int R> int run() { nw_emul_kc<SC, R>(p, cols); return 0; }
};

void nw_batch_emulate(int bk, int R, const nw_bparams_t *p, int64_t *cols)
{
	nw_emul_f f = {p, cols};
	nw_dispatch(bk, R, f);
}

namespace {

/* One pass on the host: the engine's pass record (kind, fast, target; jobs and out point
 * into the vectors here) and the score table with the pass's pad rows. */
struct nw_emul_pass {
	const nw_scoring_t *sc;
	nw_pass_t ps;
	std::vector<nw_job_t> jobs;
	std::vector<nw_dp_out> out;
	std::vector<int32_t> tab;
	int64_t n16; /* problems run in 16-bit lanes */

	nw_emul_pass(const nw_scoring_t *sc_, int kind) : sc(sc_), ps(), tab(NW_TAB_DIM * NW_TAB_DIM), n16(0)
	{
		ps.kind = kind;
		nw_fill_table(sc, kind, tab.data());
	}
	void add(const nw_job_t &j, bool fast, int64_t target, uint32_t qid = 0)
	{
		jobs.push_back(j);
		ps.fast.push_back(fast);
		ps.target.push_back(target);
		ps.qid.push_back(qid);
	}
};

/* One emulated launch of type bk over items (R rows a thread, G threads a group). */
void nw_emul_launch(nw_emul_pass &e, const uint8_t *qc, const uint8_t *rc, int bk, int G, int R,
		    const std::vector<nw_item_t> &items, int64_t *cols)
{
	if (items.empty()) return;
	int32_t ncap = 0;
	for (const nw_item_t &it : items) /* (a < 0: a profile batch's empty slot) */
		if (it.a >= 0) ncap = (int32_t)std::max<int64_t>(ncap, std::max(e.jobs[it.a].n, e.jobs[it.b].n));
	nw_bparams_t p = nw_bparams_make(e.sc, e.ps.kind, e.ps.live, e.ps.best, e.jobs.data(), e.out.data(), items.data(),
					 (int64_t)items.size(), qc, rc, e.tab.data(), G, ncap);
	nw_batch_emulate(bk, R, &p, cols);
}

/* Every job of the pass through the long kernel (sh.long_tc). */
void nw_emul_long(nw_emul_pass &e, const uint8_t *qc, const uint8_t *rc, const nw_emul_shape_t &sh)
{
	const int dna4_tab = nw_long_dna4_ok(e.tab.data());
	for (size_t x = 0; x < e.jobs.size(); x++) {
		const nw_job_t &j = e.jobs[x];
		const int64_t mp = (j.m + NW_LONG_TR - 1) / NW_LONG_TR * NW_LONG_TR;
		const int wide = sh.long_wide || !nw_fits(e.ps.kind, e.sc, mp, j.n, e.ps.target[x], 32);
		const int32_t tc = sh.long_tc > 0 ? sh.long_tc : (int32_t)j.n;
		nw_long_emulate(&j, qc, rc, e.tab.data(), e.sc->max_score, e.ps.kind, e.sc->gap_open, e.sc->gap_extend, wide,
				e.ps.fast[x] && dna4_tab, tc, &e.out[x]);
	}
}

/* Every job of the pass, shape G x R: 16-bit items as the planner pairs them
 * (nw_make_items, in input order), the rest in 32 bits. */
void nw_emul_run(nw_emul_pass &e, const uint8_t *qc, const uint8_t *rc, const nw_emul_shape_t &sh)
{
	static const int r16[] = NW_R16_LIST;
	const int64_t n = (int64_t)e.jobs.size();
	e.out.assign((size_t)n, nw_dp_out{});
	e.ps.n = n;
	e.ps.jobs = e.jobs.data();
	e.ps.out = e.out.data();
	if (sh.long_tc) {
		nw_emul_long(e, qc, rc, sh);
		return;
	}
	const int G = sh.G, R = sh.R;
	const bool rev = e.ps.kind == NW_DP_REV_LOCAL || e.ps.kind == NW_DP_REV_SEMI;
	int64_t *cols = rev ? sh.rev_cols : NULL;
	uint32_t t0, t1;
	const bool fast_ok = nw_fast_bytes(e.sc, e.ps.kind, &t0, &t1) != 0;
	bool r_ok = false;
	for (int x : r16) r_ok = r_ok || x == R;
	/* the profile: forward passes without targets, in the shapes it takes */
	const bool prof = sh.prof && !rev && !e.ps.live && nw_prof_shape(G, R);
	std::vector<nw_item_t> items16[2], wide;
	std::vector<int32_t> rejected;
	for (int k = 0; k < 2 && r_ok; k++) { /* the 2-bit scorer's jobs, then the table's */
		const int bk = k == 0 ? NW_BK_FAST16 : prof ? NW_BK_PROF16 : NW_BK_TAB16;
		std::vector<nw_kid_t> kid;
		for (int64_t x = 0; x < n; x++)
			if ((fast_ok && e.ps.fast[x]) == (k == 0))
				kid.push_back(nw_kid_t{nw_kid_key(bk, e.jobs[x].m, e.jobs[x].n), (int32_t)x,
						       bk == NW_BK_PROF16 ? e.ps.qid[x] : 0});
		int32_t ncap;
		nw_make_items(e.ps, e.sc, bk, G, R, 0, kid.data(), kid.size(), items16[k], rejected, &ncap);
		nw_emul_launch(e, qc, rc, bk, G, R, items16[k], cols);
	}
	if (!r_ok)
		for (int64_t x = 0; x < n; x++) rejected.push_back((int32_t)x);
	/* local 16-bit results at the limit may have wrapped: those go again in 32 bits */
	for (const std::vector<nw_item_t> &v : items16)
		for (const nw_item_t &it : v) {
			if (it.a < 0) continue; /* a profile batch's empty slot */
			if (e.out[it.a].overflow) rejected.push_back(it.a);
			if (it.b != it.a && e.out[it.b].overflow) rejected.push_back(it.b);
			e.n16 += 1 + (it.b != it.a);
		}
	for (int32_t x : rejected) wide.push_back(nw_item_t{x, x});
	nw_emul_launch(e, qc, rc, NW_BK_TAB32, G, R <= 8 ? 8 : 16, wide, cols);
}

} // namespace

extern "C" int nw_gpu_align_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
				     const nw_pair_t *pairs, int64_t n, const nw_emul_shape_t *shape, nw_result_t *res,
				     char *err, size_t errlen)
{
	const int G = shape->G;
	if (!shape->long_tc && (G < 1 || G > 32 || (G & (G - 1)))) {
		snprintf(err, errlen, "emulated GPU engine: G %d is not a power of 2 up to 32", G);
		return NW_ERR_USAGE;
	}
	if (shape->long_tc < -1) {
		snprintf(err, errlen, "emulated GPU engine: long-kernel tiles of %d columns", shape->long_tc);
		return NW_ERR_USAGE;
	}
	std::vector<uint8_t> qc, rc;
	std::vector<int64_t> qo, ro;
	nw_host_codes(qb, qc, qo);
	nw_host_codes(rb, rc, ro);
	const nw_scoring_t *sc = p->sc;
	const int fkind = nw_forward_kind(p->mode);
	nw_emul_pass fw(sc, fkind), rv(sc, fkind == NW_DP_LOCAL ? NW_DP_REV_LOCAL : NW_DP_REV_SEMI);
	fw.ps.live = nw_fwd_live(p);
	std::vector<int64_t> fw_of((size_t)n, -1);
	for (int64_t k = 0; k < n; k++) {
		const uint32_t q = pairs[k].q, r = pairs[k].r;
		const int64_t m = qb->len[q], nn = rb->len[r];
		if (m == 0 || nn == 0) { /* no cells: the twin, as the engine does */
			if (nw_gpu_twin_align(p, &qc[(size_t)qo[q]], m, &rc[(size_t)ro[r]], nn, &res[k]) < 0) {
				snprintf(err, errlen, "emulated GPU engine: internal error on an empty sequence");
				return NW_ERR_INTERNAL;
			}
			continue;
		}
		nw_job_t j;
		memset(&j, 0, sizeof j);
		j.qbase = qo[q], j.rbase = ro[r], j.m = m, j.n = nn, j.qstep = j.rstep = 1;
		const int64_t target = nw_fwd_target(p, fw.ps.live, k, &j);
		fw_of[k] = (int64_t)fw.jobs.size();
		fw.add(j, qb->bits[q] == 2 && rb->bits[r] == 2, target, q);
	}
	nw_emul_run(fw, qc.data(), rc.data(), *shape);
	if (fkind == NW_DP_LOCAL && !shape->long_tc) { /* the score-only class (--top) must agree */
		nw_emul_pass fb = fw;
		fb.ps.best = 1;
		nw_emul_run(fb, qc.data(), rc.data(), *shape);
		for (size_t x = 0; x < fw.jobs.size(); x++)
			if (fb.out[x].score != fw.out[x].score) {
				snprintf(err, errlen, "emulated GPU engine: problem %zu scored %lld in the score-only pass, %lld in the local one",
					 x, (long long)fb.out[x].score, (long long)fw.out[x].score);
				return NW_ERR_INTERNAL;
			}
	}
	std::vector<int64_t> rv_of((size_t)n, -1);
	for (int64_t k = 0; k < n && !p->ends_only; k++) {
		if (fw_of[k] < 0) continue;
		const size_t x = (size_t)fw_of[k];
		nw_job_t b;
		if (!nw_rev_job(sc, fkind, fw.jobs[x], fw.out[x], &b)) continue;
		rv_of[k] = (int64_t)rv.jobs.size();
		rv.add(b, fw.ps.fast[x], fw.out[x].score);
	}
	nw_emul_run(rv, qc.data(), rc.data(), *shape);
	if (shape->rev16) *shape->rev16 = rv.n16;
	for (int64_t k = 0; k < n; k++) {
		if (fw_of[k] < 0) continue;
		const size_t x = (size_t)fw_of[k];
		const nw_dp_out *b = rv_of[k] < 0 ? NULL : &rv.out[(size_t)rv_of[k]];
		const int rc_ = nw_pair_result(fkind, fw.jobs[x], fw.out[x], b, k, &res[k], err, errlen);
		if (rc_ < 0) return rc_;
	}
	return 0;
}
