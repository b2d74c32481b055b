/* gpu_batch.cuh: the batch kernel for short and medium pairs (inter-pair parallelism).
 *
 * A group of G threads (G divides 32) aligns one work item: two DP problems in the two
 * 16-bit lanes of every register (nw_l16), or one problem in 32 bits (nw_l32). Thread t of
 * the group owns query rows [t*R, t*R + R) of the current stripe of G*R rows and handles
 * column j at step j + t; the last row of thread t reaches thread t+1 by __shfl_up_sync.
 * Stripes below the first read their top row from a per-group border buffer written by
 * the last thread of the stripe above. Problems are padded at the top so that the last
 * query row of both lanes is the last row of the last stripe (see nw_row_pad). The
 * database search's pass (the profile scorer, scores only) makes its first stripe only as
 * tall as its query needs: R0 rows a thread, a multiple of 8 (nw_bthread::short_rows), in
 * steps with fewer rows (nw_stripe).
 *
 * The kernel is persistent: each warp takes 32/G consecutive items (sorted by size, so
 * the warp-uniform loop bounds waste little), then the next batch of items from a counter
 * in global memory, so that warps that drew small items take more of them (the launch's
 * tail is the largest batch, not the unlucky sum of a static share).
 *
 * Reverse problems carry a band of diagonals that holds every path of their target score
 * (src/band.h): each stripe then sweeps only the window of columns that its rows' band
 * needs, and whatever enters from outside the window is the score of a path of gaps only,
 * which is never above the true value (see nw_bthread::outside). The cells on the band
 * keep their values, so the cells that reach the target are found as before. Forward
 * passes given the scores they must reach run the same way (NW_KC_TARGET, their band the
 * whole matrix). Each stripe below the first also narrows its window to the columns that
 * a path of the target score can still use, read from the border row above it
 * (nw_bthread::live_scan): the band holds what the score allows, the live window what the
 * cells computed so far allow. Reverse
 * semiglobal problems in 16-bit lanes also floor every H (NW_CELL_FLOOR, nw_floor16): their
 * cells may fall far below -32768, but none of those can reach the target.
 *
 * With the profile scorer (nw_sc_prof) all items of a batch align one query: group 0
 * builds the stripe's profile in begin(), and a warp barrier separates that from the
 * steps of every group.
 *
 * nw_bthread holds all per-thread logic; the kernel adds only shuffles, and
 * nw_batch_emulate() (gpu_emul.cu) replays the same logic on the host (tests without a
 * GPU). The launches (occupancy, scratch) are in gpu_batch.cu; nw_dispatch, at the end,
 * picks the instance of a (scorer, R) for both.
 */
#ifndef NW_GPU_BATCH_CUH
#define NW_GPU_BATCH_CUH
#include <algorithm>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include "gpu_internal.cuh"

#define NW_BK_THREADS 128
/* A group's scratch slot: a record of three words for each column 0..ncap (its scorer
 * word, then H and F below the stripe), then two spare records, which the loads one and
 * two columns ahead read after the last column (nw_bthread::step). One record a column
 * lets a step reach everything of its column from one pointer, which the steps that do
 * not test their column move by a record (separate arrays cost each step the 64-bit
 * address arithmetic of two indices). */
#define NW_SLOT_WORDS(ncap) (3 * ((int64_t)(ncap) + 3))


static NW_HD void nw_make_sc(const nw_bparams_t &p, const int32_t *tab, nw_sc_fast *sc)
{
	(void)tab;
	sc->t0 = p.fast_t0;
	sc->t1 = p.fast_t1;
}
static NW_HD void nw_make_sc(const nw_bparams_t &, const int32_t *tab, nw_sc_tab2 *sc) { sc->tab = tab; }
static NW_HD void nw_make_sc(const nw_bparams_t &, const int32_t *tab, nw_sc_tab1<nw_l32> *sc) { sc->tab = tab; }
static NW_HD void nw_make_sc(const nw_bparams_t &, const int32_t *tab, nw_sc_prof *sc) { sc->tab = tab; }

/* Profile hooks, no-ops for the other scorers. */
template <int R, class SC>
NW_HD void nw_build(const SC &, const int *) {}
template <int R>
NW_HD void nw_build(const nw_sc_prof &sc, const int *qc) { sc.build<R>(qc); }
template <class SC>
NW_HD void nw_setup_prof(SC &, char *, int, int, int, int, int32_t) {}
static NW_HD void nw_setup_prof(nw_sc_prof &sc, char *prof, int ncodes, int G, int R, int t, int32_t bias)
{
	sc.setup(sc.tab, prof, ncodes, G, R, t, bias);
}

/* A thread's part of the live scan of a border row (nw_bthread::live_scan), per lane: the
 * first column a path of the target score can cross at (INT32_MAX: none) and the last
 * column it can reach in the stripe below. Parts combine by min and max. */
struct nw_live {
	int32_t first[2], reach[2];
	NW_HD void merge(const nw_live &o)
	{
		for (int k = 0; k < 2; k++) {
			first[k] = o.first[k] < first[k] ? o.first[k] : first[k];
			reach[k] = o.reach[k] > reach[k] ? o.reach[k] : reach[k];
		}
	}
};

template <class SC, int R, int KC>
struct nw_bthread {
	typedef typename SC::L L;
	typedef typename L::V V;
	enum { LANES = L::LANES };
	static const bool RELU = KC == NW_KC_LOCAL || KC == NW_KC_BEST;
	static const bool TRACK = KC == NW_KC_LOCAL || KC == NW_KC_REVLOCAL; /* the best cell and its position */
	static const bool BEST = KC == NW_KC_BEST;     /* the best cell's value alone */
	static const bool BAND = KC == NW_KC_REVLOCAL || KC == NW_KC_TARGET; /* column windows from the jobs' bands */
	static const bool TOP0 = RELU;                 /* the top border is 0 (free end gaps) */
	static const bool FLOOR = KC == NW_KC_TARGET && L::BITS == 16; /* H >= p.floor */
	/* the first stripe may be short (R0 rows a thread, fewer than R) */
	static const bool SHORT0 = nw_short_first(SC::PROFILE, KC);
	/* the same pass keeps its rows' H less O + Ext (NW_CELL_SHIFTED: three operations a
	 * cell on the integer pipe, two on the FMA pipe), its profile raised by O + Ext; nw_fits
	 * keeps the raised scores within 16 bits */
	static const bool SHIFT = SHORT0;
	static NW_HD int32_t prof_bias(const nw_bparams_t &p) { return SHIFT ? p.O + p.E : 0; }

	/* the group's item (lane 1 repeats lane 0 for one-lane types and single items) */
	int t, G, SR;
	int32_t R0;      /* rows a thread in stripe 0 (R unless SHORT0; see short_rows) */
	int64_t item;
	int32_t jid[2], m[2], n[2], P[2], N, ns;
	int32_t dlo[2], dhi[2]; /* the lanes' bands (BAND) */
	int32_t S[2];           /* the lanes' target scores (BAND; NW_NO_TARGET: no live scan) */
	nw_job_t jb[2];
	nw_dp_rules ru;
	int32_t O, E;
	int32_t lo;     /* FLOOR: the floor of H; borders and outside values are raised to it */
	V neg_oe, neg_e;
	SC sc;
	uint32_t *recs;  /* recs[3j]: scorer word of column j; recs[3j + 1], recs[3j + 2]: H
			  * and F below the stripe at column j (bh(j), bf(j)) */
	uint32_t *at;    /* the step's column j: recs + 3j */
	V *snap;         /* my snapshot (NW_SNAP_WORDS) */
	/* stripe */
	int s;
	int32_t i0;      /* padded index of my first row */
	int32_t jlo, jhi; /* the stripe's columns (all of them without a band) */
	int32_t plo, phi; /* BAND: the columns of the stripe above */
	int32_t maxsc;    /* the highest substitution score (live_scan) */
	nw_sweep<SC, R, RELU, FLOOR ? NW_CELL_FLOOR : SHIFT ? NW_CELL_SHIFTED : NW_CELL_FIVE> sw;
	nw_tracker<L, R, true, int32_t> tr;
	V best;          /* BEST: the highest H of my rows in the stripe so far (SHIFT: less O + Ext) */
	nw_cand cand[2]; /* track: best so far; last row: best of the last row */
	/* next column's scorer word and border values, loaded one step ahead; the profile's
	 * column words two steps ahead (cw_after, the word after cw_next): its steps (the
	 * database search) waited on a load issued one step before its use. The other scorers
	 * keep one (their words are a step's only load, and a register less). */
	enum { AHEAD2 = SC::PROFILE };
	uint32_t cw_next, cw_after;
	V bh_next, bf_next;
	V top_h, top_step; /* thread 0 of stripe 0 (unless TOP0): H[0][j] of its next column, and
			    * its change from one column to the next */

	NW_HD int64_t raised(int64_t v) const { return FLOOR && v < lo ? lo : v; }
	NW_HD V &bh(int32_t j) const { return *(V *)&recs[3 * j + 1]; }
	NW_HD V &bf(int32_t j) const { return *(V *)&recs[3 * j + 2]; }
	NW_HD int32_t lb(int32_t real) const
	{
		return real >= 1 ? (int32_t)raised(nw_left_border(ru, O, E, real)) : 0;
	}
	/* Codes of real row / column (1-based); -1 outside the problem. rcode always loads a
	 * code of the problem (the index is clamped), so that stage_cols's loads need no
	 * branch and can all be in flight at once. */
	NW_HD int qcode(const nw_bparams_t &p, int k, int32_t real) const
	{
		return real >= 1 ? p.qcodes[jb[k].qbase + (int64_t)(real - 1) * jb[k].qstep] : -1;
	}
	NW_HD int rcode(const nw_bparams_t &p, int k, int32_t j) const
	{
		const int c = p.rcodes[jb[k].rbase + (int64_t)((j <= n[k] ? j : n[k]) - 1) * jb[k].rstep];
		return j <= n[k] ? c : -1;
	}

	NW_HD void init(const nw_bparams_t &p, const SC &sc_, int64_t item_, int t_, uint32_t *slot,
			V *snap_)
	{
		t = t_;
		G = p.G;
		SR = G * R;
		sc = sc_;
		snap = snap_;
		ru = nw_rules(p.kind);
		O = p.O;
		E = p.E;
		lo = p.floor;
		maxsc = p.maxsc;
		jlo = 1, jhi = 0;
		R0 = R;
		sw.lo = L::splat(lo);
		neg_oe = L::splat(-(O + E));
		neg_e = L::splat(-E);
		item = item_ < p.n_items && p.items[item_].a >= 0 ? item_ : -1;
		N = ns = 0;
		if (item >= 0) {
			nw_item_t it = p.items[item];
			jid[0] = it.a;
			jid[1] = LANES > 1 ? it.b : it.a;
			int32_t mx = 0;
			for (int k = 0; k < 2; k++) {
				jb[k] = p.jobs[jid[k]];
				m[k] = (int32_t)jb[k].m;
				n[k] = (int32_t)jb[k].n;
				dlo[k] = jb[k].dlo;
				dhi[k] = jb[k].dhi;
				S[k] = jb[k].target;
				mx = m[k] > mx ? m[k] : mx;
				N = n[k] > N ? n[k] : N;
			}
			ns = (mx + SR - 1) / SR;
			set_rows0(short_rows());
			for (int k = 0; k < 2; k++) {
				if (TRACK || BEST) {
					cand[k].v = INT64_MIN, cand[k].j = 0, cand[k].i = 0;
				} else {
					cand[k].v = ru.last_all ? lb(m[k]) : INT64_MIN;
					cand[k].j = 0, cand[k].i = m[k];
				}
			}
		}
		recs = at = slot;
	}

	/* Padded row above stripe s_ (stripe 0 has G R0 rows, the others SR). */
	NW_HD int64_t top(int s_) const { return s_ == 0 ? 0 : (int64_t)G * R0 + (int64_t)(s_ - 1) * SR; }
	/* The rows a thread that stripe 0 needs (SHORT0; R otherwise): the query's rows past
	 * its other ns - 1 stripes, in the profile's steps of 8 rows. The rows above a query's
	 * first row are padding, and a padding row costs a whole row's step, so a first stripe
	 * of R rows spent up to SR - 1 of them on nothing. Empty items ask for the fewest. */
	NW_HD int32_t short_rows() const
	{
		if (!SHORT0) return R;
		if (item < 0) return 8;
		const int32_t mx = m[0] > m[1] ? m[0] : m[1];
		return nw_first_rows(mx - (ns - 1) * SR, G, R);
	}
	/* Stripe 0 takes r0 rows a thread (the warp's largest short_rows(): a warp's groups
	 * share the profile and its stripes); the padding rows above each lane's query follow. */
	NW_HD void set_rows0(int32_t r0)
	{
		R0 = r0;
		if (item >= 0)
			for (int k = 0; k < 2; k++) P[k] = (int32_t)top(ns) - m[k];
	}

	/* Columns [lo, hi] of stripe s_ (hi < lo: none): the union of the lanes' windows,
	 * each lane's rows [fr, lr] needing [fr + dlo, lr + dhi] and, with lv (the live scan
	 * of the border above), [first, reach]. Padding rows stand for row 0 (they copy the
	 * top border, whose cells up to dhi are on the band). */
	NW_HD void window(int s_, const nw_live *lv, int32_t &lo, int32_t &hi) const
	{
		lo = 1, hi = s_ < ns ? N : 0;
		if (!BAND || s_ >= ns) return;
		int64_t l = INT64_MAX, h = 0;
		for (int k = 0; k < 2; k++) {
			const int64_t fr = top(s_) + 1 - P[k], lr = top(s_ + 1) - P[k];
			int64_t klo = (fr > 0 ? fr : 0) + dlo[k], khi = (lr > 0 ? lr : 0) + dhi[k];
			klo = klo > 1 ? klo : 1;
			khi = khi < n[k] ? khi : n[k];
			if (lv) {
				klo = lv->first[k] > klo ? lv->first[k] : klo;
				khi = lv->reach[k] < khi ? lv->reach[k] : khi;
			}
			if (klo <= khi) l = klo < l ? klo : l, h = khi > h ? khi : h;
		}
		lo = h ? (int32_t)l : 1;
		hi = (int32_t)h;
	}
	/* Lane k's live scan applies below padded row ib: it has a target, and real rows. */
	NW_HD bool scans(int k, int64_t ib) const { return S[k] != NW_NO_TARGET && ib - P[k] >= 1; }
	/* My part of the live scan of the border row below stripe s_ - 1 (padded row ib =
	 * s_ SR; that stripe's columns jlo..jhi, every G-th from jlo + t, and thread 0 also
	 * the left border). Runs before next_window(s_).
	 * A path of score S that crosses from row ib at column j has a prefix worth at most
	 * v = max(H, F + O) there (a vertical gap goes on without paying its opening again),
	 * and the rows left add at most maxsc each: it needs v + maxsc (m - i) >= S. Such a
	 * crossing enters the stripe at column j or j + 1 and reaches at most column j + SR by
	 * its diagonals, then (slack - O) / E more by a horizontal gap, slack being what v
	 * leaves above S. So no cell of the stripe outside [first, reach] lies on a path of
	 * score S; the cells that do keep their values, as with the band (no path of score S
	 * runs outside the window to come back in). Lanes without a scan get [1, INT32_MAX]. */
	NW_HD void live_scan(int s_, nw_live &lv) const
	{
		const int64_t ib = top(s_);
		for (int k = 0; k < 2; k++) {
			const bool on = s_ > 0 && s_ < ns && scans(k, ib);
			lv.first[k] = on ? INT32_MAX : 1;
			lv.reach[k] = on ? -1 : INT32_MAX;
		}
		if (s_ == 0 || s_ >= ns || (!scans(0, ib) && !scans(1, ib))) return;
		int64_t need[2]; /* the least v that still leads to S */
		for (int k = 0; k < 2; k++) need[k] = (int64_t)S[k] - (int64_t)maxsc * (m[k] - (ib - P[k]));
		if (t == 0 && jlo == 1)
			for (int k = 0; k < LANES; k++)
				if (scans(k, ib)) live_see(lv, k, 0, nw_left_border(ru, O, E, ib - P[k]) + O - need[k]);
		for (int32_t j = jlo + t; j <= jhi; j += G) {
			const V h = bh(j), f = bf(j);
			for (int k = 0; k < LANES; k++) {
				if (!scans(k, ib)) continue;
				const int64_t hv = L::lane(h, k), fv = L::lane(f, k) + O;
				live_see(lv, k, j, (hv > fv ? hv : fv) - need[k]);
			}
		}
		if (LANES == 1) lv.first[1] = lv.first[0], lv.reach[1] = lv.reach[0];
	}
	/* A crossing at column j with slack (v - need) for lane k. */
	NW_HD void live_see(nw_live &lv, int k, int32_t j, int64_t slack) const
	{
		if (slack < 0) return;
		const int32_t f = j > 1 ? j : 1;
		lv.first[k] = f < lv.first[k] ? f : lv.first[k];
		const int64_t gap = slack <= O ? 0 : E > 0 ? (slack - O) / E : (int64_t)INT32_MAX;
		const int64_t r = (int64_t)j + SR + gap;
		const int32_t rr = r < INT32_MAX ? (int32_t)r : INT32_MAX;
		lv.reach[k] = rr > lv.reach[k] ? rr : lv.reach[k];
	}
	/* Stripe s_'s window, from the band and (s_ > 0) the group's live scan lv. */
	NW_HD void next_window(int s_, const nw_live &lv)
	{
		plo = jlo, phi = jhi;
		window(s_, s_ > 0 ? &lv : NULL, jlo, jhi);
	}
	/* A value at most H[i][j] (padded row ip, column j >= 0) for cells outside the
	 * window: the score of a path of gaps only from the origin (reverse problems have
	 * global borders), which the 16-bit bound of nw_fits allows for, or raised to the
	 * floor. */
	NW_HD V outside(int32_t ip, int32_t j) const
	{
		int64_t v[2];
		for (int k = 0; k < 2; k++) {
			const int64_t i = ip > P[k] ? (int64_t)ip - P[k] : 0;
			v[k] = raised(-(2 * (int64_t)O + (i + j) * E));
		}
		return L::pack2(v[0], v[1]);
	}
	/* Before stripe s_ (after next_window): the border columns of its window outside the
	 * previous stripe's get the outside value of the row above. */
	NW_HD void fill_border(int s_)
	{
		if (!BAND || s_ == 0 || s_ >= ns) return;
		if (plo > phi) { /* the stripe above computed no column */
			set_outside(s_, jlo, jhi);
			return;
		}
		set_outside(s_, jlo, jhi < plo - 1 ? jhi : plo - 1);
		set_outside(s_, jlo > phi + 1 ? jlo : phi + 1, jhi);
	}
	/* Border columns [lo, hi], every G-th from lo + t. */
	NW_HD void set_outside(int s_, int32_t lo, int32_t hi)
	{
		for (int32_t j = lo + t; j <= hi; j += G) {
			const V h = outside((int32_t)top(s_), j);
			bh(j) = h;
			bf(j) = L::add(h, neg_oe);
		}
	}
	/* Steps of stripe s (0 once the group's problems are done). */
	NW_HD int32_t steps() const { return s < ns && jhi >= jlo ? jhi - jlo + G : 0; }

	/* The scorer words of every column, U columns a thread at a time: all their loads are
	 * issued before the first is used. (One column at a time, each iteration waited for
	 * its loads: ncu put 16% of the reverse pass's stall samples there with G = 2.) */
	NW_HD void stage_cols(const nw_bparams_t &p)
	{
		enum { U = 4 };
		for (int32_t j0 = 1 + t; j0 <= N; j0 += U * G) {
			int a[U], b[U];
#pragma unroll
			for (int u = 0; u < U; u++) {
				a[u] = rcode(p, 0, j0 + u * G);
				b[u] = rcode(p, 1, j0 + u * G);
			}
#pragma unroll
			for (int u = 0; u < U; u++)
				if (j0 + u * G <= N) recs[3 * (j0 + u * G)] = sc.colword(a[u], b[u]);
		}
	}

	/* Start stripe s_; build: this thread writes its rows of the profile (group 0). */
	NW_HD void begin(const nw_bparams_t &p, int s_, bool build)
	{
		s = s_;
		const int32_t Rs = SHORT0 && s == 0 ? R0 : R; /* my rows in this stripe */
		i0 = (int32_t)top(s) + t * Rs + 1;
		if (s >= ns) return;
		if (!BAND) window(s, NULL, jlo, jhi);
		const bool left = jlo == 1; /* the window starts at the left border */
		int qc[R];
#pragma unroll
		for (int r = 0; r < R; r++) {
			const bool mine = r < Rs; /* (rows past Rs are not read: they may be past the query) */
			int32_t ra = i0 + r - P[0], rb = i0 + r - P[1];
			qc[r] = (SC::PROFILE && !build) || !mine ? -1 : qcode(p, 0, ra);
			sw.q[r] = sc.row(qc[r], SC::PROFILE || !mine ? -1 : qcode(p, 1, rb));
			sw.h[r] = !BAND || left ? L::pack2(lb(ra), lb(rb)) : outside(i0 + r, jlo - 1);
			sw.e[r] = L::add(sw.h[r], neg_oe);
			if (SHIFT) sw.h[r] = sw.e[r];
		}
		if (SC::PROFILE && build) nw_build<R>(sc, qc);
		if (!BAND || left) {
			sw.hdiag = L::pack2(lb(i0 - 1 - P[0]), lb(i0 - 1 - P[1]));
		} else { /* thread 0: H[i0 - 1][jlo - 1], on the band, from the stripe above */
			sw.hdiag = t == 0 && jlo - 1 >= plo && jlo - 1 <= phi ? bh(jlo - 1) : outside(i0 - 1, jlo - 1);
		}
		if (SHIFT) sw.hdiag = L::add(sw.hdiag, neg_oe);
		if (TRACK) tr.reset();
		if (BEST) best = L::lowest();
		top_h = L::splat(raised(nw_top_border(ru, O, E, jlo)));
		top_step = L::splat(ru.top_gap ? -E : 0);
		cw_next = jhi >= jlo ? recs[3 * jlo] : 0;
		if (AHEAD2) cw_after = jhi >= jlo ? recs[3 * (jlo + 1)] : 0;
		bh_next = bf_next = 0;
		if (t == 0 && s > 0 && jhi >= jlo) bh_next = bh(jlo), bf_next = bf(jlo);
	}

	/* Step k of the stripe: column j = jlo + k - t; hin/fin: what the thread above sent.
	 * CHECK: the step tests whether my column is in the stripe (the first G - 1 steps, the
	 * last ones, groups that are done) and finds its record; without it the caller knows
	 * (nw_steps), and the record is the one after the last step's (seek() before the
	 * first).
	 * ABOVE / BELOW: whether the warp's stripe may have one above (s > 0) or below
	 * (s < nw_s - 1); false leaves out the border loads or stores. RR: my rows in the
	 * stripe (R0 in a short first stripe, else R). */
	template <bool CHECK, bool ABOVE, bool BELOW, int RR = R>
	NW_HD void step(int32_t k, V hin, V fin, V &hout, V &fout)
	{
		const int32_t j = k - t + jlo;
		if (CHECK) {
			if (s >= ns || j < jlo || j > jhi) return;
			at = recs + 3 * j;
		}
		const uint32_t cw = cw_next;
		const V bh_now = bh_next, bf_now = bf_next;
		/* the next step's loads, issued now so that they land while this one computes
		 * (after column jhi they read the slot's spare records: NW_SLOT_WORDS) */
		if (AHEAD2) {
			cw_next = cw_after;
			cw_after = at[6];
		} else {
			cw_next = at[3];
		}
		if (ABOVE && t == 0 && s > 0) bh_next = (V)at[4], bf_next = (V)at[5];
		if (t == 0) {
			if (!ABOVE || s == 0) {
				hin = TOP0 ? L::splat(0) : top_h;
				if (!TOP0) top_h = FLOOR ? L::addmax(top_h, top_step, sw.lo) : L::add(top_h, top_step);
				fin = L::add(hin, neg_oe);
			} else {
				hin = bh_now;
				fin = bf_now;
			}
		}
		sw.template step<RR>(sc, cw, hin, fin, neg_oe, neg_e, hout, fout);
		if (t == G - 1) {
			if (BELOW && s < ns - 1) {
				at[1] = (uint32_t)hout;
				at[2] = (uint32_t)fout;
			} else if (!TRACK && !BEST) {
				for (int k2 = 0; k2 < LANES; k2++) {
					int64_t v = L::lane(hout, k2);
					int32_t jlo = ru.last_all ? 0 : n[k2];
					if (j >= jlo && j <= n[k2] && v > cand[k2].v) cand[k2].v = v, cand[k2].j = j;
				}
			}
		}
		if (TRACK) tr.see(sw.h, sw.colmax(), j, snap);
		if (BEST) best = L::max2(best, sw.template colmax<RR>());
		at += 3;
	}
	/* Before steps that do not test their column, from step k on: its record. */
	NW_HD void seek(int32_t k) { at = recs + 3 * (k - t + jlo); }
	/* Steps [G - 1, main_end()) of the stripe find every thread of the group on a column
	 * of its window (0: none do). */
	NW_HD int32_t main_end() const { return s < ns && jhi >= jlo ? jhi - jlo + 1 : 0; }

	NW_HD void end()
	{
		if (BEST && s < ns)
			for (int k = 0; k < LANES; k++) {
				const int64_t v = L::lane(best, k) + (SHIFT ? O + E : 0);
				cand[k].v = v > cand[k].v ? v : cand[k].v;
			}
		if (!TRACK || s >= ns) return;
		for (int k = 0; k < LANES; k++) {
			if (tr.bj[k] < 1) continue;
			nw_cand c;
			c.v = L::lane(tr.best, k);
			c.j = tr.bj[k];
			c.i = (int64_t)i0 + tr.row(k, snap) - P[k];
			nw_cand_merge(cand[k], c);
		}
	}

	/* The thread that writes: t == 0 after the group reduction (track, best), else t == G-1. */
	NW_HD bool writer() const { return item >= 0 && (TRACK || BEST ? t == 0 : t == G - 1); }
	NW_HD void write(const nw_bparams_t &p) const
	{
		for (int k = 0; k < LANES; k++) {
			if (k == 1 && jid[1] == jid[0]) break;
			nw_dp_out o;
			o.score = cand[k].v;
			o.i = cand[k].i;
			o.j = cand[k].j;
			o.overflow = RELU && L::BITS == 16 && cand[k].v >= p.ovf_limit;
			o.pad_ = 0;
			if (RELU && o.score <= 0) o.score = 0, o.i = o.j = 0;
			p.out[jid[k]] = o;
		}
	}
};

/* Steps [k, kend) of a stripe, the row above each thread's first row by shuffle from the
 * thread above. The steps between the first G - 1 and the group's last column, where every
 * thread is on its window, skip the column test (CHECK false) and, knowing whether the
 * stripe has one above and below, the border accesses it does not need; they are unrolled
 * by 2, the faster choice for every class's loop bodies (the search pass's too, whose
 * NW_CELL_SHIFTED steps, one iteration a step, spent an FMA-pipe register move on
 * nearly every row: the H registers' new values could not take the old ones' registers,
 * still to be read). The banded reverse pass has short stripes whose groups sweep windows of
 * different widths, so most of its steps would test their column anyway: it takes one
 * loop of tested steps, unrolled by 2 (phases of untested steps cost it more than they
 * save, and unrolling every loop spills its larger instances). The measurements:
 * bench/RESULTS.md. */
template <class T, bool CHECK, bool ABOVE, bool BELOW, int RR>
__device__ __forceinline__ void nw_steps(T &th, int32_t k, int32_t kend, int G, typename T::V &hout,
					 typename T::V &fout)
{
	typedef typename T::V V;
	if (!CHECK && k < kend) th.seek(k);
#pragma unroll((CHECK && !T::BAND) ? 1 : 2)
	for (; k < kend; k++) {
		const V hin = __shfl_up_sync(0xffffffffu, hout, 1, G);
		const V fin = __shfl_up_sync(0xffffffffu, fout, 1, G);
		th.template step<CHECK, ABOVE, BELOW, RR>(k, hin, fin, hout, fout);
	}
}

/* The nw_k steps of stripe s (of nw_s) with RR rows a thread: the tested steps, then
 * those where every thread is on a column of its window, then the tested ones again. */
template <class T, int RR>
__device__ __forceinline__ void nw_stripe_steps(T &th, int s, int nw_s, int32_t nw_k, int G)
{
	typename T::V hout = 0, fout = 0;
	if (T::BAND) {
		nw_steps<T, true, true, true, RR>(th, 0, nw_k, G, hout, fout);
		return;
	}
	const int32_t k0 = min(G - 1, nw_k);
	const int32_t k1 = max(k0, (int32_t)__reduce_min_sync(0xffffffffu, (unsigned)th.main_end()));
	nw_steps<T, true, true, true, RR>(th, 0, k0, G, hout, fout);
	if (s == 0) {
		if (s + 1 < nw_s) nw_steps<T, false, false, true, RR>(th, k0, k1, G, hout, fout);
		else nw_steps<T, false, false, false, RR>(th, k0, k1, G, hout, fout);
	} else {
		if (s + 1 < nw_s) nw_steps<T, false, true, true, RR>(th, k0, k1, G, hout, fout);
		else nw_steps<T, false, true, false, RR>(th, k0, k1, G, hout, fout);
	}
	nw_steps<T, true, true, true, RR>(th, k1, nw_k, G, hout, fout);
}

/* f.template run<RR>() with RR the rows a thread of stripe s steps with: a short first
 * stripe (T::SHORT0, R0 < R, warp-uniform) takes the instance of its rows. The kernel
 * (nw_stripe) and its emulation (gpu_emul.cu) both choose by it. */
#pragma nv_exec_check_disable
template <class T, int R, class F>
NW_HD void nw_stripe_rows(const T &th, int s, F &f)
{
	if (T::SHORT0 && s == 0 && th.R0 < R) {
		if (th.R0 <= 8) f.template run<8>();
		else if (th.R0 <= 16) f.template run<(R > 16 ? 16 : R)>();
		else f.template run<(R > 24 ? 24 : R)>();
	} else {
		f.template run<R>();
	}
}

/* Stripe s's steps at the stripe's rows a thread (nw_stripe_rows). */
template <class T>
struct nw_stripe_f {
	T &th;
	int s, nw_s;
	int32_t nw_k;
	int G;
	template <int RR> __device__ __forceinline__ void run() { nw_stripe_steps<T, RR>(th, s, nw_s, nw_k, G); }
};
template <class T, int R>
__device__ __forceinline__ void nw_stripe(T &th, int s, int nw_s, int32_t nw_k, int G)
{
	nw_stripe_f<T> f = {th, s, nw_s, nw_k, G};
	nw_stripe_rows<T, R>(th, s, f);
}

/* Snapshot words a thread of an instance: only the classes that track the best cell's
 * position keep snapshots (nw_tracker). The others leave that shared memory to more
 * resident blocks (the profile's score-only instances at large R were held back by their
 * shared memory, not by their registers). */
template <class SC, int R, int KC>
NW_HD int nw_snap_words()
{
	typedef typename nw_bthread<SC, R, KC>::L L;
	return nw_bthread<SC, R, KC>::TRACK ? (int)NW_SNAP_WORDS(L, R) : 0;
}

/* Shared memory of a batch kernel instance: table, snapshots, profiles (one a warp). */
template <class SC, int R, int KC>
static size_t nw_batch_smem(int G, int ncodes)
{
	typedef typename SC::L L;
	size_t b = NW_TAB_DIM * NW_TAB_DIM * 4 + (size_t)NW_BK_THREADS * nw_snap_words<SC, R, KC>() * sizeof(typename L::V);
	if (SC::PROFILE) b += (size_t)(NW_BK_THREADS / 32) * nw_sc_prof::bytes(ncodes, G, R);
	return b;
}

template <class SC, int R, int KC>
__global__ void __launch_bounds__(NW_BK_THREADS) nw_batch_kernel(const nw_bparams_t p)
{
	typedef nw_bthread<SC, R, KC> T;
	typedef typename T::V V;
	typedef typename T::L L;
	extern __shared__ __align__(16) int32_t nw_smem[];
	int32_t *tab = nw_smem;
	V *snaps = (V *)(nw_smem + NW_TAB_DIM * NW_TAB_DIM);
	for (int x = threadIdx.x; x < NW_TAB_DIM * NW_TAB_DIM; x += blockDim.x) tab[x] = p.table[x];
	__syncthreads();
	const int G = p.G, gpw = 32 / G, lane = threadIdx.x & 31, g = lane / G, t = lane % G;
	SC sc;
	nw_make_sc(p, tab, &sc);
	if (SC::PROFILE) {
		char *prof = (char *)(snaps + NW_BK_THREADS * nw_snap_words<SC, R, KC>());
		nw_setup_prof(sc, prof + (threadIdx.x >> 5) * nw_sc_prof::bytes(p.ncodes, G, R), p.ncodes, G, R, t,
			      T::prof_bias(p));
	}
	const int64_t warp = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
	const int64_t nwi = (p.n_items + gpw - 1) / gpw;
	V *snap = snaps + threadIdx.x * nw_snap_words<SC, R, KC>();
	uint32_t *slot = p.scratch + (warp * gpw + g) * p.slot_words;
	for (;;) {
		unsigned wi0 = 0;
		if (lane == 0) wi0 = atomicAdd(p.counter, 1u);
		const int64_t wi = __shfl_sync(0xffffffffu, wi0, 0);
		if (wi >= nwi) break;
		T th;
		th.init(p, sc, wi * gpw + g, t, slot, snap);
		if (T::SHORT0) th.set_rows0((int32_t)__reduce_max_sync(0xffffffffu, (unsigned)th.short_rows()));
		th.stage_cols(p);
		__syncwarp();
		const int32_t nw_s = __reduce_max_sync(0xffffffffu, (unsigned)th.ns);
		for (int s = 0; s < nw_s; s++) {
			if (T::BAND) {
				nw_live lv;
				th.live_scan(s, lv);
				for (int off = G >> 1; off > 0; off >>= 1) {
					nw_live o;
					for (int k = 0; k < 2; k++) {
						o.first[k] = __shfl_xor_sync(0xffffffffu, lv.first[k], off, G);
						o.reach[k] = __shfl_xor_sync(0xffffffffu, lv.reach[k], off, G);
					}
					lv.merge(o);
				}
				th.next_window(s, lv);
				th.fill_border(s);
				__syncwarp();
			}
			th.begin(p, s, g == 0);
			if (SC::PROFILE) __syncwarp(); /* group 0 wrote the profile */
			const int32_t nw_k = __reduce_max_sync(0xffffffffu, (unsigned)th.steps());
			nw_stripe<T, R>(th, s, nw_s, nw_k, G);
			th.end();
			__syncwarp();
		}
		if (T::TRACK || T::BEST) {
			for (int k = 0; k < T::LANES; k++) {
				for (int off = G >> 1; off > 0; off >>= 1) {
					nw_cand o;
					o.v = __shfl_xor_sync(0xffffffffu, th.cand[k].v, off, G);
					o.j = __shfl_xor_sync(0xffffffffu, th.cand[k].j, off, G);
					o.i = __shfl_xor_sync(0xffffffffu, th.cand[k].i, off, G);
					nw_cand_merge(th.cand[k], o);
				}
			}
		}
		if (th.writer()) th.write(p);
		__syncwarp();
	}
}

/* One switch over (scorer, R) for both the launch and the emulation. */
template <class F>
static int nw_dispatch(int bk, int R, F f)
{
#define NW_R_CASE(SC, RR) \
	case RR: return f.template run<SC, RR>();
	if (bk == NW_BK_FAST16 || bk == NW_BK_TAB16) {
		if (bk == NW_BK_FAST16) {
			switch (R) {
			NW_R_CASE(nw_sc_fast, 8) NW_R_CASE(nw_sc_fast, 12) NW_R_CASE(nw_sc_fast, 16)
			NW_R_CASE(nw_sc_fast, 20) NW_R_CASE(nw_sc_fast, 24) NW_R_CASE(nw_sc_fast, 32)
			}
		} else {
			switch (R) {
			NW_R_CASE(nw_sc_tab2, 8) NW_R_CASE(nw_sc_tab2, 12) NW_R_CASE(nw_sc_tab2, 16)
			NW_R_CASE(nw_sc_tab2, 20) NW_R_CASE(nw_sc_tab2, 24) NW_R_CASE(nw_sc_tab2, 32)
			}
		}
	} else if (bk == NW_BK_TAB32) {
		switch (R) { NW_R_CASE(nw_sc_tab1<nw_l32>, 8) NW_R_CASE(nw_sc_tab1<nw_l32>, 16) }
	} else if (bk == NW_BK_PROF16) {
		switch (R) {
		NW_R_CASE(nw_sc_prof, 8) NW_R_CASE(nw_sc_prof, 16) NW_R_CASE(nw_sc_prof, 24) NW_R_CASE(nw_sc_prof, 32)
		}
	}
#undef NW_R_CASE
	return NW_ERR_INTERNAL;
}

#endif
