/* gpu_emul.cu: the kernels' thread logic replayed on the host for whole requests
 * (nw_gpu_align_emulated), so that tests check the batch kernel's steps, stripes, column
 * windows and 16-bit lanes, and the long kernel's tiles, borders and band skipping, without
 * a device.
 *
 * The request goes the engine's way (src/gpu/gpu_align.cu): a forward pass, then for local
 * and semiglobal alignments the reverse pass over the banded sub-problem from the forward
 * end (nw_rev_job). Every launch takes the one shape the caller names. Batch kernel:
 * items of two problems in 16-bit lanes where nw_fits allows (the 2-bit DNA scorer when
 * both sequences are 2-bit codes, else the table), the rest, and the local results that
 * may have wrapped, in 32 bits. Long kernel: every problem, 32-bit lanes where they fit
 * (the PRMT scorer for 2-bit DNA), else 64. The planner and the profile scorer are not
 * involved.
 */
#include <algorithm>
#include <stdio.h>
#include <string.h>
#include <vector>

#include "gpu_internal.cuh"

namespace {

struct nw_emul_pass {
	const nw_scoring_t *sc;
	int kind;
	std::vector<nw_job_t> jobs;
	std::vector<nw_dp_out> out;
	std::vector<uint8_t> fast; /* both sequences of job x are 2-bit codes */
};

/* One emulated launch of type bk over items (R rows a thread, G threads a group). */
void nw_emul_launch(nw_emul_pass &ps, const uint8_t *qc, const uint8_t *rc, int bk, int G, int R,
		    const std::vector<nw_item_t> &items)
{
	if (items.empty()) return;
	std::vector<int32_t> tab(NW_TAB_DIM * NW_TAB_DIM);
	nw_fill_table(ps.sc, ps.kind, tab.data());
	nw_bparams_t p;
	memset(&p, 0, sizeof p);
	p.jobs = ps.jobs.data();
	p.out = ps.out.data();
	p.items = items.data();
	p.n_items = (int64_t)items.size();
	p.qcodes = qc;
	p.rcodes = rc;
	p.table = tab.data();
	nw_fast_bytes(ps.sc, ps.kind, &p.fast_t0, &p.fast_t1);
	p.kind = ps.kind;
	p.O = ps.sc->gap_open;
	p.E = ps.sc->gap_extend;
	p.G = G;
	p.ovf_limit = 32767 - (ps.sc->max_score > 0 ? ps.sc->max_score : 0) - 1;
	p.ncodes = ps.sc->n_codes;
	for (const nw_item_t &it : items)
		p.ncap = (int32_t)std::max<int64_t>(p.ncap, std::max(ps.jobs[it.a].n, ps.jobs[it.b].n));
	nw_batch_emulate(bk, R, &p);
}

/* Every job of the pass through the long kernel (sh.long_tc). */
void nw_emul_long(nw_emul_pass &ps, const std::vector<int64_t> &target, const uint8_t *qc, const uint8_t *rc,
		  const nw_emul_shape_t &sh)
{
	std::vector<int32_t> tab(NW_TAB_DIM * NW_TAB_DIM);
	nw_fill_table(ps.sc, ps.kind, tab.data());
	const int dna4_tab = nw_long_dna4_ok(tab.data());
	for (size_t x = 0; x < ps.jobs.size(); x++) {
		const nw_job_t &j = ps.jobs[x];
		const int64_t mp = (j.m + NW_LONG_TR - 1) / NW_LONG_TR * NW_LONG_TR;
		const int wide = sh.long_wide || !nw_fits(ps.kind, ps.sc, mp, j.n, target[x], 32);
		const int32_t tc = sh.long_tc > 0 ? sh.long_tc : (int32_t)j.n;
		nw_long_emulate(&j, qc, rc, tab.data(), ps.kind, ps.sc->gap_open, ps.sc->gap_extend, wide,
				ps.fast[x] && dna4_tab, tc, &ps.out[x]);
	}
}

/* Every job of the pass, shape G x R: neighbours share a 16-bit item where they fit. */
void nw_emul_run(nw_emul_pass &ps, const std::vector<int64_t> &target, const uint8_t *qc, const uint8_t *rc,
		 const nw_emul_shape_t &sh)
{
	static const int r16[] = NW_R16_LIST;
	const int64_t n = (int64_t)ps.jobs.size();
	ps.out.assign((size_t)n, nw_dp_out{});
	if (sh.long_tc) {
		nw_emul_long(ps, target, qc, rc, sh);
		return;
	}
	const int G = sh.G, R = sh.R;
	uint32_t t0, t1;
	const bool fast_ok = nw_fast_bytes(ps.sc, ps.kind, &t0, &t1) != 0;
	bool r_ok = false;
	for (int x : r16) r_ok = r_ok || x == R;
	const int64_t SR = (int64_t)G * R;
	std::vector<nw_item_t> fast, tab, wide;
	for (int pass = 0; pass < 2 && r_ok; pass++) { /* the 2-bit scorer's jobs, then the table's */
		std::vector<nw_item_t> &items = pass ? tab : fast;
		int64_t prev = -1; /* a job waiting for a partner */
		for (int64_t x = 0; x < n; x++) {
			if ((fast_ok && ps.fast[x]) != (pass == 0)) continue;
			const nw_job_t &j = ps.jobs[x];
			const int64_t mp = (j.m + SR - 1) / SR * SR;
			if (!nw_fits(ps.kind, ps.sc, mp, j.n, target[x], 16)) {
				wide.push_back(nw_item_t{(int32_t)x, (int32_t)x});
				continue;
			}
			if (prev >= 0) {
				const nw_job_t &a = ps.jobs[prev];
				const int64_t mp2 = (std::max(a.m, j.m) + SR - 1) / SR * SR;
				if (nw_fits(ps.kind, ps.sc, mp2, std::max(a.n, j.n), std::max(target[prev], target[x]), 16)) {
					items.push_back(nw_item_t{(int32_t)prev, (int32_t)x});
					prev = -1;
					continue;
				}
				items.push_back(nw_item_t{(int32_t)prev, (int32_t)prev});
			}
			prev = x;
		}
		if (prev >= 0) items.push_back(nw_item_t{(int32_t)prev, (int32_t)prev});
	}
	if (!r_ok)
		for (int64_t x = 0; x < n; x++) wide.push_back(nw_item_t{(int32_t)x, (int32_t)x});
	nw_emul_launch(ps, qc, rc, NW_BK_FAST16, G, R, fast);
	nw_emul_launch(ps, qc, rc, NW_BK_TAB16, G, R, tab);
	/* local 16-bit results at the limit may have wrapped: those go again in 32 bits */
	for (const std::vector<nw_item_t> *v : {&fast, &tab})
		for (const nw_item_t &it : *v) {
			if (ps.out[it.a].overflow) wide.push_back(nw_item_t{it.a, it.a});
			if (it.b != it.a && ps.out[it.b].overflow) wide.push_back(nw_item_t{it.b, it.b});
		}
	nw_emul_launch(ps, qc, rc, NW_BK_TAB32, G, R <= 8 ? 8 : 16, wide);
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
	const int rkind = fkind == NW_DP_LOCAL ? NW_DP_REV_LOCAL : NW_DP_REV_SEMI;
	nw_emul_pass fw{sc, fkind, {}, {}, {}}, rv{sc, rkind, {}, {}, {}};
	std::vector<int64_t> fw_of((size_t)n, -1), fw_target;
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
		fw_of[k] = (int64_t)fw.jobs.size();
		fw.jobs.push_back(j);
		fw.fast.push_back(qb->bits[q] == 2 && rb->bits[r] == 2);
		fw_target.push_back(0);
	}
	nw_emul_run(fw, fw_target, qc.data(), rc.data(), *shape);
	std::vector<int64_t> rv_of((size_t)n, -1), rv_target;
	for (int64_t k = 0; k < n && !p->ends_only; k++) {
		if (fw_of[k] < 0) continue;
		const nw_job_t &j = fw.jobs[(size_t)fw_of[k]];
		const nw_dp_out &o = fw.out[(size_t)fw_of[k]];
		nw_job_t b;
		if (!nw_rev_job(sc, fkind, j, o, &b)) continue;
		rv_of[k] = (int64_t)rv.jobs.size();
		rv.jobs.push_back(b);
		rv.fast.push_back(fw.fast[(size_t)fw_of[k]]);
		rv_target.push_back(o.score);
	}
	nw_emul_run(rv, rv_target, qc.data(), rc.data(), *shape);
	for (int64_t k = 0; k < n; k++) {
		if (fw_of[k] < 0) continue;
		const nw_job_t &j = fw.jobs[(size_t)fw_of[k]];
		const nw_dp_out &o = fw.out[(size_t)fw_of[k]];
		nw_result_t &r = res[k];
		r.score = o.score;
		r.qstart = r.rstart = 0;
		r.qend = fkind == NW_DP_GLOBAL ? j.m : o.i;
		r.rend = fkind == NW_DP_GLOBAL ? j.n : o.j;
		if (rv_of[k] < 0) continue;
		const nw_dp_out &b = rv.out[(size_t)rv_of[k]];
		if (b.score != o.score) {
			snprintf(err, errlen, "emulated GPU engine: reverse pass of pair %lld gave %lld, forward %lld",
				 (long long)k, (long long)b.score, (long long)o.score);
			return NW_ERR_INTERNAL;
		}
		r.qstart = o.i - b.i;
		r.rstart = o.j - b.j;
	}
	return 0;
}
