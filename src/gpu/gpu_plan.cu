/* gpu_plan.cu: the host planner of the batch kernel: which problems share an item, in
 * which order, and which launches (scorer type, G threads a group, R rows a thread).
 *
 * Problems are sorted by (type, m, query, n) so that neighbours have about the same size
 * (the lanes of an item and the items of a warp run the same number of steps), then
 * split into query length classes, each of which gets its shape from a cost model.
 * Everything the planner needs per problem travels in the sort record (m and n are in the
 * key), so that it never reads the jobs in the sorted, random order: for a million
 * problems those cache misses cost more than the sort itself.
 */
#include <algorithm>
#include <cmath>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "gpu_internal.cuh"

/* The lowest score a cell's operands reach below H (a substitution or pad score, a gap's
 * open and extension). */
static int64_t nw_below_h(const nw_scoring_t *sc)
{
	const int64_t O = sc->gap_open, E = sc->gap_extend;
	const int64_t mins = sc->min_score < 0 ? sc->min_score : 0, pad = -(O + E + 1);
	return std::min(mins, pad);
}

/* Floored lanes (NW_CELL_FLOOR) keep H >= this, so that H plus a substitution or pad
 * score, E and F (at least H - O - Ext, each computed from a value one Ext above it) and
 * the border values stay above -32768. */
static int32_t nw_floor16(const nw_scoring_t *sc)
{
	return (int32_t)(-32768 + sc->gap_open + 2 * (int64_t)sc->gap_extend - nw_below_h(sc) + 8);
}

/* See gpu_internal.cuh. A 16-bit local lane's best at or above ovf_limit may have wrapped
 * (it is run again in 32 bits). */
void nw_bparams_limits(const nw_scoring_t *sc, nw_bparams_t *p)
{
	p->ovf_limit = 32767 - (sc->max_score > 0 ? sc->max_score : 0) - 1;
	p->floor = nw_floor16(sc);
	p->maxsc = sc->max_score > 0 ? sc->max_score : 0;
}

nw_bparams_t nw_bparams_make(const nw_scoring_t *sc, int kind, int live, int best, const nw_job_t *jobs, nw_dp_out *out,
			     const nw_item_t *items, int64_t n_items, const uint8_t *qc, const uint8_t *rc,
			     const int32_t *table, int G, int32_t ncap)
{
	nw_bparams_t p;
	memset(&p, 0, sizeof p);
	p.jobs = jobs;
	p.out = out;
	p.items = items;
	p.n_items = n_items;
	p.qcodes = qc;
	p.rcodes = rc;
	p.table = table;
	nw_fast_bytes(sc, kind, &p.fast_t0, &p.fast_t1);
	p.kind = kind;
	p.live = live;
	p.best = best;
	p.O = sc->gap_open;
	p.E = sc->gap_extend;
	p.G = G;
	nw_bparams_limits(sc, &p);
	p.ncap = ncap;
	p.ncodes = sc->n_codes;
	return p;
}

bool nw_fits(int kind, const nw_scoring_t *sc, int64_t Mp, int64_t N, int64_t target, int bits)
{
	const int64_t lim = bits == 16 ? 32767 : INT32_MAX, slack = 8;
	const int64_t O = sc->gap_open, E = sc->gap_extend;
	const int64_t maxs = sc->max_score > 0 ? sc->max_score : 0;
	const int64_t low = nw_below_h(sc);
	/* Reverse semiglobal, 16 bits: H is floored (NW_CELL_FLOOR). A path takes every row and
	 * a row adds at most maxs, so a cell that can still reach the target S holds at least
	 * S - maxs * Mp; above the floor, such cells never take a raised value, and so keep
	 * their true ones. */
	if (kind == NW_DP_REV_SEMI && bits == 16)
		return target - maxs * Mp > nw_floor16(sc) && maxs * std::min(Mp, N) + maxs <= lim - slack;
	/* Lowest value of any cell, E or F (pad columns may go lower and wrap, harmlessly: they
	 * never flow into real columns and no result reads them). Local: the floor at 0.
	 * Forward semiglobal: row 0 is free, so H[i][j] >= -(O + i*E), a vertical gap down from
	 * (0, j); E, F and the diagonal sum sit at most O + 2E or a score below. Otherwise a path
	 * of gaps only bounds it. */
	int64_t lo = kind == NW_DP_LOCAL  ? -(O + 2 * E) + low
		   : kind == NW_DP_SEMI   ? -(2 * O + (Mp + 2) * E) + low
					  : -(3 * O + (Mp + N + 2) * E) + low;
	if (lo < -lim + slack) return false;
	/* Local in 16 bits: the best cell's overflow is caught (ovf_limit); the score-only
	 * pass's profile holds the scores raised by O + Ext (NW_CELL_SHIFTED). */
	if (kind == NW_DP_LOCAL) return bits == 16 ? maxs + O + E <= lim - slack : maxs * std::min(Mp, N) + maxs <= lim - slack;
	if (kind == NW_DP_REV_LOCAL) return target + maxs <= lim - slack;
	return maxs * std::min(Mp, N) + maxs <= lim - slack;
}

/* ---------------------------------------------------------------- shapes */
/* Relative cost of a padded cell for R rows a thread (measured on an H200, 16-bit types:
 * per-step work (shuffles, column word, tracking, loop) is shared by R rows, so R = 8
 * pays nearly twice R = 16 for each cell, while past 24 rows the registers cut occupancy,
 * which the occupancy factor below accounts for) and for G threads a group (a warp of
 * one group of 32 waits on its fill and drain and, with one item, on one pair). */
static double nw_cost_r(int R)
{
	return R <= 8 ? 1.8 : R <= 12 ? 1.35 : R <= 16 ? 1.04 : R <= 24 ? 1.0 : 0.85;
}
static double nw_cost_g(int G) { return G <= 8 ? 1.0 : G <= 16 ? 1.1 : 1.3; }

/* Estimated time (arbitrary units) of class c with G threads a group and R rows a thread,
 * in a pass whose cells, spread over every resident warp, take about t_pass a warp. A
 * launch takes its items largest first, so its tail is the first warp batch of the class
 * (32 / G items of its largest problems): that batch alone must not outlast the pass, at
 * about four times the speed of a warp that shares its SM (seen on 4291 x 8081 protein
 * pairs, whose batch of eight at G = 8 ran longer than the 13 queries around it). */
static double nw_cost(nw_gpu_t *g, const nw_class_t &c, int kc, int ncodes, int G, int R, double t_pass)
{
	const double warps = nw_batch_warps_per_sm(g, c.bk, R, G, kc, ncodes);
	if (warps <= 0) return 1e300;
	const double occ = warps >= 16 ? 1.0 : std::sqrt(warps / 16.0);
	const int64_t SR = (int64_t)G * R, ns = (c.mmax + SR - 1) / SR;
	/* a short first stripe takes the rows its query needs, in steps of 8 a thread
	 * (nw_bthread::short_rows); a step of r rows costs as much as r + 2.3 rows' cells, the
	 * 2.3 being the loop's work a step besides its rows' (its SASS: bench/RESULTS.md) */
	double first = (double)SR;
	if (nw_short_first(c.bk == NW_BK_PROF16, kc) && ns > 0)
		first = (double)SR * (nw_first_rows((int32_t)(c.mmax - (ns - 1) * SR), G, R) + 2.3) / (R + 2.3);
	const double rows = (double)((ns - 1) * SR) + first + 32.0 * (double)(ns - 1); /* a stripe's border and restart */
	/* banded problems: a stripe sweeps its rows plus the band, not every column */
	const double cols = c.wmean > 0 ? std::min(c.nmean, (double)SR + c.wmean) : c.nmean;
	const double cols_max = c.wmax > 0 ? std::min((double)c.nmax, (double)(SR + c.wmax)) : (double)c.nmax;
	const double unit = nw_cost_r(R) * nw_cost_g(G) / occ;
	const double lanes = c.bk == NW_BK_TAB32 ? 1 : 2, cnt = (double)(c.x1 - c.x0);
	const double work = cnt * rows * (cols + G - 1) * unit;
	const double batch = (32.0 / G) * lanes * rows * (cols_max + G - 1) * unit;
	return work * std::max(1.0, batch / 4.0 / std::max(t_pass, 1.0));
}

/* Banded classes take groups of at least this many threads. Thin groups sweep fewer
 * cells (stripes of a few rows plus the band) but pay a restart per stripe that the model
 * does not price, and many groups a warp stream many scratch slots at once: with G = 2 the
 * reverse pass of B missed L1 on most column words and border loads (ncu: long scoreboard
 * 50% of its stall samples, L2 56% busy, against 4% and 5% in the forward pass).
 * Measured on 1M read pairs (B), reverse pass: when column windows came (H200), G >= 4
 * 9.4 ms, G >= 2 10.0, G >= 1 14.2; with the column words staged (H200), G >= 4 7.3 ms,
 * G >= 2 6.7, G >= 1 6.8; then G >= 4 6.2-6.4 ms against G >= 2 7.3-7.4 on an H100 and
 * 6.0-6.2 against 6.2-6.3 on an H200 (3 rounds each; a build that stored the border as
 * 8-byte pairs, since reverted: B's passes did not change with them). */
#define NW_BAND_GMIN 4

/* NW_GPU_BAND_GMIN=g (benchmark hook): that floor instead of NW_BAND_GMIN. */
static int nw_band_gmin(void)
{
	const char *s = getenv("NW_GPU_BAND_GMIN");
	const int g = s && *s ? atoi(s) : 0;
	return g >= 1 && g <= 32 && !(g & (g - 1)) ? g : NW_BAND_GMIN;
}

/* Shape (G threads a group, R rows a thread) for class c, G >= gmin; the profile scorer
 * takes G >= 8 and R a multiple of 8 (nw_sc_prof). */
static void nw_pick(nw_gpu_t *g, const nw_class_t &c, int kc, int ncodes, double t_pass, int *G_out, int *R_out, int gmin)
{
	static const int r16[] = NW_R16_LIST, r32[] = NW_R32_LIST, rpf[] = NW_RPROF_LIST;
	const int bk = c.bk;
	const int *rs = bk == NW_BK_TAB32 ? r32 : bk == NW_BK_PROF16 ? rpf : r16;
	const int nr = bk == NW_BK_TAB32 ? (int)(sizeof r32 / sizeof *r32)
			: bk == NW_BK_PROF16 ? (int)(sizeof rpf / sizeof *rpf) : (int)(sizeof r16 / sizeof *r16);
	double tbest = 1e301;
	*G_out = 32;
	*R_out = rs[0];
	for (int x = 0; x < nr; x++)
		for (int G = bk == NW_BK_PROF16 ? std::max(8, gmin) : gmin; G <= 32; G <<= 1) {
			const double t = nw_cost(g, c, kc, ncodes, G, rs[x], t_pass);
			if (t < tbest) tbest = t, *G_out = G, *R_out = rs[x];
		}
}

/* NW_GPU_CFG=G,R (benchmark hook): one shape for every batch launch that has it. */
static bool nw_env_cfg(int bk, int *G, int *R)
{
	const char *s = getenv("NW_GPU_CFG");
	int g, r;
	if (!s || sscanf(s, "%d,%d", &g, &r) != 2 || g < 1 || g > 32 || (g & (g - 1))) return false;
	if (bk == NW_BK_TAB32 && r != 8 && r != 16) return false;
	if (bk == NW_BK_PROF16 && !nw_prof_shape(g, r)) return false;
	if (bk != NW_BK_TAB32 && (r % 4 != 0 || r < 8 || r > 32 || r == 28)) return false;
	*G = g, *R = r;
	return true;
}

/* See gpu_internal.cuh. */
void nw_plan_shape(nw_gpu_t *g, const nw_class_t &c, int kc, int ncodes, double t_pass, bool band, int *G, int *R)
{
	if (nw_env_cfg(c.bk, G, R) && nw_batch_warps_per_sm(g, c.bk, *R, *G, kc, ncodes) > 0) return;
	nw_pick(g, c, kc, ncodes, t_pass, G, R, band ? nw_band_gmin() : 1);
}

/* ---------------------------------------------------------------- sorting */
/* Query length classes (upper bounds grow by ~1.25-1.5): a shape per class. A table for
 * the usual lengths, the loop beyond. */
static int nw_len_class_loop(int64_t m)
{
	int64_t b = 32;
	int c = 0;
	while (m > b) b = b < 256 ? b + 32 : b + b / 4, c++;
	return c;
}

int nw_len_class(int64_t m)
{
	enum { TAB = 8192 };
	/* filled once, by the first caller (a local static: thread-safe, for the contexts that
	 * plan on threads of their own, src/pipeline/gpu_lanes.c) */
	static const struct tab_t {
		unsigned char c[TAB];
		tab_t() { for (int k = 0; k < TAB; k++) c[k] = (unsigned char)nw_len_class_loop(k); }
	} tab;
	return m < TAB ? tab.c[m] : nw_len_class_loop(m);
}

/* Stable LSD radix sort by (key >> 31, qid, key & (2^31 - 1)), that is by (type, m, query,
 * n), one byte a pass, skipping bytes that are equal in every record. */
static void nw_radix_sort(std::vector<nw_kid_t> &v, std::vector<nw_kid_t> &tmp)
{
	const size_t n = v.size();
	tmp.resize(n);
	uint64_t or_[3] = {0, 0, 0}, and_[3] = {~0ull, ~0ull, ~0ull};
	for (size_t x = 0; x < n; x++) {
		const uint64_t f[3] = {v[x].key & 0x7fffffffu, v[x].qid, v[x].key >> 31};
		for (int k = 0; k < 3; k++) or_[k] |= f[k], and_[k] &= f[k];
	}
	for (int k = 0; k < 3; k++) {
		for (int b = 0; b < 40; b += 8) {
			if (((or_[k] ^ and_[k]) >> b & 0xff) == 0) continue;
			size_t cnt[257] = {0};
#define NW_DIGIT(r) ((k == 0 ? (r).key & 0x7fffffffu : k == 1 ? (uint64_t)(r).qid : (r).key >> 31) >> b & 0xff)
			for (size_t x = 0; x < n; x++) cnt[NW_DIGIT(v[x]) + 1]++;
			for (int c = 0; c < 256; c++) cnt[c + 1] += cnt[c];
			for (size_t x = 0; x < n; x++) tmp[cnt[NW_DIGIT(v[x])]++] = v[x];
#undef NW_DIGIT
			v.swap(tmp);
		}
	}
}

static inline int64_t nw_key_m(uint64_t key) { return (int64_t)(key >> 31 & 0x7fffffffu); }
static inline int64_t nw_key_n(uint64_t key) { return (int64_t)(key & 0x7fffffffu); }
static inline int nw_key_bk(uint64_t key) { return (int)(key >> 62); }

/* ---------------------------------------------------------------- items */
/* See gpu_internal.cuh. */
void nw_make_items(const nw_pass_t &ps, const nw_scoring_t *sc, int bk, int G, int R, int64_t first,
			  const nw_kid_t *kid, size_t n, std::vector<nw_item_t> &items,
			  std::vector<int32_t> &rejected, int32_t *ncap)
{
	const int64_t SR = (int64_t)G * R;
	const int bits = bk == NW_BK_TAB32 ? 32 : 16, gpw = 32 / G;
	const bool prof = bk == NW_BK_PROF16;
	const int kind = nw_fit_kind(ps);
	const bool rev_local = kind == NW_DP_REV_LOCAL, rev_semi = kind == NW_DP_REV_SEMI;
	const nw_item_t empty = {-1, -1};
	*ncap = 0;
	for (size_t x = 0; x < n; x++) {
		const int32_t a = kid[x].id;
		const int64_t ma = nw_key_m(kid[x].key), na = nw_key_n(kid[x].key);
		const int64_t ta = rev_local || rev_semi ? ps.target[a] : 0;
		if (!nw_fits(kind, sc, (ma + SR - 1) / SR * SR, na, ta, bits)) {
			rejected.push_back(a);
			continue;
		}
		if (prof && (x == 0 || kid[x].qid != kid[x - 1].qid))
			while ((int64_t)(items.size() - first) % gpw) items.push_back(empty);
		nw_item_t it = {a, a};
		int64_t nmax = na;
		if (bits == 16 && x + 1 < n && (!prof || kid[x + 1].qid == kid[x].qid)) {
			const int32_t b = kid[x + 1].id;
			const int64_t mb = nw_key_m(kid[x + 1].key), nb = nw_key_n(kid[x + 1].key);
			const int64_t mp2 = (std::max(ma, mb) + SR - 1) / SR * SR;
			/* the bounds of both lanes: the higher target (local: the best cell), the lower
			 * (semiglobal: the floor) */
			const int64_t tab = rev_local ? std::max(ta, ps.target[b]) : rev_semi ? std::min(ta, ps.target[b]) : 0;
			if (nw_fits(kind, sc, mp2, std::max(na, nb), tab, 16)) {
				it.b = b, x++;
				nmax = std::max(na, nb);
			}
		}
		*ncap = (int32_t)std::max<int64_t>(*ncap, nmax);
		items.push_back(it);
	}
	if (prof)
		while ((int64_t)(items.size() - first) % gpw) items.push_back(empty);
}

void nw_plan_cells(const nw_pass_t &ps, const nw_slice_plan_t &sp, double *real, double *swept)
{
	const int kc = nw_kclass(ps.kind, ps.live, ps.best);
	for (const nw_launch_t &l : sp.launches) {
		const int64_t SR = (int64_t)l.G * l.R, gpw = 32 / l.G;
		for (int64_t w = 0; w < l.count; w += gpw) {
			int64_t ns = 0, steps = 0, r0 = 8; /* the warp's stripes and first stripe's rows */
			for (int64_t x = w; x < w + gpw && x < l.count; x++) {
				const nw_item_t &it = sp.items[(size_t)(l.first + x)];
				if (it.a < 0) continue;
				const nw_job_t &a = ps.jobs[it.a], &b = ps.jobs[it.b];
				*real += (double)a.m * (double)a.n + (it.b != it.a ? (double)b.m * (double)b.n : 0);
				const int64_t mx = std::max(a.m, b.m), nsx = (mx + SR - 1) / SR;
				ns = std::max(ns, nsx);
				r0 = std::max<int64_t>(r0, nw_first_rows((int32_t)(mx - (nsx - 1) * SR), l.G, l.R));
				steps = std::max(steps, std::max(a.n, b.n) + l.G - 1);
			}
			const int64_t rows = nw_short_first(l.bk == NW_BK_PROF16, kc) && ns > 0 ? (ns - 1) * SR + l.G * r0 : ns * SR;
			*swept += (double)rows * (double)steps * 2.0 * (double)gpw; /* every group, both lanes */
		}
	}
}

/* ---------------------------------------------------------------- one width */
void nw_plan_warm(nw_gpu_t *g, int kc, const nw_scoring_t *sc)
{
	static const int r16[] = NW_R16_LIST, r32[] = NW_R32_LIST, rpf[] = NW_RPROF_LIST;
	for (int bk = 0; bk < NW_BK_TYPES; bk++) {
		const int *rs = bk == NW_BK_TAB32 ? r32 : bk == NW_BK_PROF16 ? rpf : r16;
		const int nr = bk == NW_BK_TAB32 ? (int)(sizeof r32 / sizeof *r32)
				: bk == NW_BK_PROF16 ? (int)(sizeof rpf / sizeof *rpf) : (int)(sizeof r16 / sizeof *r16);
		for (int x = 0; x < nr; x++) /* the shapes nw_pick weighs (the profile: G >= 8) */
			for (int G = bk == NW_BK_PROF16 ? 8 : 1; G <= 32; G <<= 1)
				nw_batch_warps_per_sm(g, bk, rs[x], G, kc, sc->n_codes);
	}
	(void)nw_len_class(0);
}

int nw_plan_batch(nw_gpu_t *g, nw_slice_plan_t &pl, const nw_pass_t &ps, const nw_scoring_t *sc,
		  const int32_t *ids, size_t n_ids, int wide32, bool prof_ok)
{
	std::vector<int32_t> &next = pl.next;
	pl.items.clear();
	pl.launches.clear();
	next.clear();
	if (!n_ids) return 0;
	uint32_t t0, t1;
	const bool fast_ok = nw_fast_bytes(sc, ps.kind, &t0, &t1) != 0;
	const int kc = nw_kclass(ps.kind, ps.live, ps.best);
	const bool band = kc == NW_KC_REVLOCAL || kc == NW_KC_TARGET; /* kernel classes with column windows */

	pl.kid.resize(n_ids);
	for (size_t x = 0; x < n_ids; x++) {
		const int32_t id = ids[x];
		const nw_job_t &j = ps.jobs[id];
		const uint64_t bk = wide32 ? NW_BK_TAB32 : fast_ok && ps.fast[id] ? NW_BK_FAST16
								 : prof_ok ? NW_BK_PROF16 : NW_BK_TAB16;
		nw_kid_t &k = pl.kid[x];
		/* m < 2^31, n <= NW_BATCH_MAX_N < 2^31 */
		k.key = nw_kid_key((int)bk, j.m, j.n);
		k.id = id;
		/* the profile's problems go by query; banded ones by band width within a query
		 * length, so that the problems of a warp sweep windows of about the same width */
		k.qid = bk == NW_BK_PROF16 ? ps.qid[id] : band ? (uint32_t)std::min<int64_t>(j.n, (int64_t)j.dhi - j.dlo + 1) : 0;
	}
	nw_radix_sort(pl.kid, pl.tmp);
	/* largest first: the items are taken in order, so the longest ones start early
	 * instead of forming a tail at the end of a launch */
	std::reverse(pl.kid.begin(), pl.kid.end());
	const std::vector<nw_kid_t> &kid = pl.kid;
	/* classes, and the pass's cells over the warps that the GPU holds */
	std::vector<nw_class_t> &cls = pl.classes;
	cls.clear();
	double cells = 0;
	for (size_t x = 0; x < kid.size();) {
		nw_class_t c;
		c.bk = nw_key_bk(kid[x].key);
		const int lc = nw_len_class(nw_key_m(kid[x].key));
		c.x0 = x;
		c.mmax = c.nmax = 0;
		c.cells = 0;
		c.wmax = 0;
		double nsum = 0, wsum = 0;
		for (; x < kid.size() && nw_key_bk(kid[x].key) == c.bk && nw_len_class(nw_key_m(kid[x].key)) == lc; x++) {
			const int64_t m = nw_key_m(kid[x].key), n = nw_key_n(kid[x].key);
			nsum += (double)n;
			if (band) wsum += kid[x].qid, c.wmax = std::max<int64_t>(c.wmax, kid[x].qid);
			c.cells += (double)m * (double)n;
			c.mmax = std::max(c.mmax, m);
			c.nmax = std::max(c.nmax, n);
		}
		c.x1 = x;
		c.nmean = nsum / (double)(c.x1 - c.x0);
		c.wmean = wsum / (double)(c.x1 - c.x0);
		cells += c.cells;
		cls.push_back(c);
	}
	const double t_pass = cells / (16.0 * g->n_sm);
	/* a pass too small to fill the GPU gets one launch a type: the shape of its largest
	 * class (launches cost more than the padding they save) */
	const bool small = kid.size() < (size_t)g->n_sm * 8;
	int prevG = 0, prevR = 0;
	for (size_t k = 0; k < cls.size(); k++) {
		const nw_class_t &c = cls[k];
		nw_launch_t l;
		l.bk = c.bk;
		if (small && k > 0 && cls[k - 1].bk == c.bk) {
			l.G = prevG;
			l.R = prevR;
		} else {
			nw_plan_shape(g, c, kc, sc->n_codes, t_pass, band, &l.G, &l.R);
		}
		prevG = l.G, prevR = l.R;
		l.first = (int64_t)pl.items.size();
		nw_launch_t *last = pl.launches.empty() ? NULL : &pl.launches.back();
		const bool merge = last && last->bk == l.bk && last->G == l.G && last->R == l.R;
		nw_make_items(ps, sc, l.bk, l.G, l.R, merge ? last->first : l.first, &kid[c.x0], c.x1 - c.x0, pl.items,
			      next, &l.ncap);
		l.count = (int64_t)pl.items.size() - l.first;
		if (merge) { /* same shape as the class before: one launch */
			last->count += l.count;
			last->ncap = std::max(last->ncap, l.ncap);
		} else if (l.count) {
			pl.launches.push_back(l);
		}
	}
	return 0;
}
