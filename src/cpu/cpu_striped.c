/* cpu_striped.c: the CPU engine's striped SIMD pass (striped_kernel.h) for long queries,
 * compiled for every instruction set (cpu_isa.h) in 16-bit lanes (saturating) and in
 * 32-bit lanes. A pass runs in 16 bits over the columns where every value fits with room
 * to spare (columns_in_16bit), else in 32 bits when the whole pass fits there, else the
 * caller runs the scalar twin (nw_dp_pass).
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "cpu_isa.h"

/* Waits until *counter reaches need; returns its value. The stripes of a team run one a
 * thread and a little apart, so a wait is short: spin, then leave the core to others. */
static int64_t st_edge_wait(const int64_t *counter, int64_t need)
{
	int64_t v;
	for (int spins = 0; (v = __atomic_load_n(counter, __ATOMIC_ACQUIRE)) < need; spins++) {
		if (spins >= 256)
			sched_yield();
#if defined(__x86_64__) || defined(__i386__)
		else
			__builtin_ia32_pause();
#endif
	}
	return v;
}

/* Column j of a stripe's last row into its edge (once the stripe below has read the
 * column that held the slot before); published every ST_EDGE_STEP columns and at the
 * last. *free_to: the last column known to be free to write. */
static inline void st_edge_put(st_edge_t *e, int64_t j, int32_t h, int32_t f, int last,
			       int64_t *free_to)
{
	if (j > *free_to) {
		/* used is INT64_MAX once the stripe below has stopped: every slot is free */
		int64_t used = st_edge_wait(&e->used, j - ST_EDGE_RING);
		*free_to = used > INT64_MAX - ST_EDGE_RING ? INT64_MAX : used + ST_EDGE_RING;
	}
	e->h[j & ST_EDGE_MASK] = h;
	e->f[j & ST_EDGE_MASK] = f;
	if ((j & (ST_EDGE_STEP - 1)) == 0 || last)
		__atomic_store_n(&e->done, j, __ATOMIC_RELEASE);
}

#define SIMD_TEMPLATE "striped_kernel.h"
#define SIMD_WIDE
#include "simd_each.h"

typedef int (*striped_fn)(void *, const st_pass_t *, int64_t, dp_hit_t *);

static striped_fn pass_for(int isa, int wide)
{
	switch (isa) {
#ifdef NW_X86_ISAS
	case NW_ISA_SSE41:
		return wide ? striped_sse41_32 : striped_sse41;
	case NW_ISA_AVX2:
		return wide ? striped_avx2_32 : striped_avx2;
	case NW_ISA_AVX512:
		return wide ? striped_avx512_32 : striped_avx512;
#endif
	default:
		return wide ? striped_generic_32 : striped_generic;
	}
}

/* The lowest value a pass can hold: cells lie above the all-gap paths to them (0 when
 * local; the query-prefix gap when the reference prefix is free; that plus the
 * reference-prefix gap over cols columns otherwise), less one substitution and one gap. */
static int64_t lowest(const st_pass_t *p, int64_t cols)
{
	const nw_scoring_t *sc = p->sc;
	if (p->local)
		return 0;
	int64_t low = 3 * (int64_t)sc->gap_open + (p->m + 2) * sc->gap_extend +
		      (sc->min_score < 0 ? -(int64_t)sc->min_score : 0);
	if (!p->ref_free)
		low += cols * sc->gap_extend;
	return -low;
}

/* How many reference columns a 16-bit pass can take (with 2000 to spare): all n, fewer,
 * or 0. Cells are bounded above by the best score of the shorter sequence.
 *
 * Below, a pass that looks for a target may let cells saturate at -32768: a saturated
 * cell only rises, and what descends from it stays under -32768 plus the most that the
 * diagonal steps can add, so when that lies below the target, every cell at or above the
 * target holds its exact value and the hit is the same. */
static int64_t columns_in_16bit(const st_pass_t *p)
{
	const nw_scoring_t *sc = p->sc;
	const int64_t limit = 32767 - 2000;
	int64_t shortest = p->m < p->n ? p->m : p->n, maxs = sc->max_score > 0 ? sc->max_score : 0;
	if (shortest * maxs + maxs >= limit)
		return 0;
	if (dp_track_stops(p->track) &&
	    -32768 + (shortest + 1) * maxs < p->target)
		return p->n;
	if (-lowest(p, 0) >= limit)
		return 0;
	if (p->local || p->ref_free)
		return p->n;
	int64_t cols = (limit + lowest(p, 0)) / p->sc->gap_extend;
	return cols < p->n ? cols : p->n;
}

/* 1 when a 32-bit pass over every column keeps its values within +-2^29. */
static int fits_32bit(const st_pass_t *p)
{
	const int64_t limit = (int64_t)1 << 29;
	int64_t shortest = p->m < p->n ? p->m : p->n;
	int64_t maxs = p->sc->max_score > 0 ? p->sc->max_score : 0;
	return (shortest + 1) * maxs < limit && -lowest(p, p->n) < limit;
}

/* Bytes of a pass's memory: seg_len * (n_codes + 4) vectors, (m + lanes) lanes of at most
 * 4 bytes a code. */
static size_t pass_bytes(const nw_scoring_t *sc, int64_t m)
{
	return ((size_t)m + 64) * 4 * (size_t)(sc->n_codes + 4);
}

int nw_striped_pass(nw_workspace_t *ws, const st_pass_t *p, dp_hit_t *hit)
{
	const int isa = ws->isa >= 0 ? ws->isa : (int)nw_cpu_isa();
	const int stops = dp_track_stops(p->track);
	int ran = nw_striped_team(ws, p, hit); /* 0: a single thread, or no team applies */
	if (ran != 0)
		return ran;
	if (p->m < 1 || ws->simd_off)
		return 0;
	const int64_t cols16 = columns_in_16bit(p);
	const int wide_ok = fits_32bit(p);
	if (!(cols16 >= 1 && (cols16 == p->n || stops)) && !wide_ok)
		return 0;
	if (nw_ws_grow_aligned(&ws->simd, &ws->simd_cap, pass_bytes(p->sc, p->m)) < 0)
		return NW_ERR_MEMORY;
	if (cols16 >= 1 && (cols16 == p->n || stops)) {
		if (pass_for(isa, 0)(ws->simd, p, cols16, hit))
			return 1;
		if (cols16 == p->n)
			return 0; /* a target that the whole pass never reached */
	}
	if (!wide_ok)
		return 0;
	return pass_for(isa, 1)(ws->simd, p, p->n, hit);
}

/* ---------------------------------------------------------------- teams
 * The stripes of a team run at once or not at all: each waits on the edge of the one above,
 * so the team cannot use team.h, which runs a block whose thread did not start after the
 * others have ended (here that stripe's neighbours would wait for it forever). */

typedef struct {
	striped_fn fn;
	void *mem;
	st_pass_t pass;
	dp_hit_t hit;
	int found;         /* a stopping track: the stripe reached the target (hit) */
	int64_t cols;
	const int64_t *go; /* 1: run; -1: a thread of the team did not start, give up */
} stripe_t;

/* One stripe's pass. A stripe that reached its target lowers the team's stop column to
 * its own (the stripes below still run up to it, for a hit in an earlier column); one that
 * ends, whether it ran its columns or stopped, releases its neighbours from waiting on it
 * (the ring's slots past the stop are never read). */
static void run_stripe(stripe_t *s)
{
	s->found = s->fn(s->mem, &s->pass, s->cols, &s->hit) == 1 && dp_track_stops(s->pass.track) &&
		   s->hit.row >= 0;
	if (s->found && s->pass.stop_at) {
		int64_t cur = __atomic_load_n(s->pass.stop_at, __ATOMIC_ACQUIRE);
		while (s->hit.row < cur &&
		       !__atomic_compare_exchange_n(s->pass.stop_at, &cur, s->hit.row, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			;
	}
	if (s->pass.in)
		__atomic_store_n(&s->pass.in->used, INT64_MAX, __ATOMIC_RELEASE);
	if (s->pass.out)
		__atomic_store_n(&s->pass.out->done, INT64_MAX, __ATOMIC_RELEASE);
}

static void *stripe_thread(void *arg)
{
	stripe_t *s = arg;
	int64_t go;
	while ((go = __atomic_load_n(s->go, __ATOMIC_ACQUIRE)) == 0)
		sched_yield();
	if (go == 1)
		run_stripe(s);
	return NULL;
}

int nw_striped_team(nw_workspace_t *ws, const st_pass_t *p, dp_hit_t *hit)
{
	const int64_t m = p->m, n = p->n, unit = 64; /* stripes of whole vectors (VL <= 64) */
	const int stops = dp_track_stops(p->track);
	if (ws->team < 2 || ws->simd_off || p->in || p->out || m * n < ws->team_min_cells)
		return 0;
	int64_t k = m / (ws->team_min_rows > unit ? ws->team_min_rows : unit);
	k = k < ws->team ? k : ws->team;
	if (k < 2)
		return 0;
	int wide;
	if (columns_in_16bit(p) == n)
		wide = 0;
	else if (fits_32bit(p))
		wide = 1;
	else
		return 0;
	/* k stripes of rows rows each (a multiple of every lane count), the last one shorter */
	const int64_t rows = ((m + k - 1) / k + unit - 1) / unit * unit;
	k = (m + rows - 1) / rows;
	const size_t bytes = pass_bytes(p->sc, rows);
	stripe_t *st = calloc((size_t)k, sizeof *st);
	st_edge_t *edges = NULL;
	pthread_t *tid = calloc((size_t)k, sizeof *tid);
	int ret = st && tid && posix_memalign((void **)&edges, 64, (size_t)(k - 1) * sizeof *edges) == 0
			  ? 0 : NW_ERR_MEMORY;
	int64_t go = 0, stop_at = INT64_MAX;
	int started = 0;
	const int isa = ws->isa >= 0 ? ws->isa : (int)nw_cpu_isa();
	for (int64_t s = 0; ret == 0 && s < k; s++) {
		st[s].fn = pass_for(isa, wide);
		st[s].go = &go;
		st[s].cols = n;
		st[s].pass = *p;
		st[s].pass.q = p->q + s * rows;
		st[s].pass.q0 = s * rows;
		st[s].pass.m = s == k - 1 ? m - s * rows : rows;
		st[s].pass.in = s > 0 ? &edges[s - 1] : NULL;
		st[s].pass.out = s < k - 1 ? &edges[s] : NULL;
		/* the last row's maximum or target is the last stripe's; the others pass their
		 * rows on */
		if ((p->track == DP_TRACK_LASTROW || p->track == DP_TRACK_TARGET_LASTCOL) && s < k - 1)
			st[s].pass.track = DP_TRACK_NONE;
		st[s].pass.stop_at = stops ? &stop_at : NULL;
		if (posix_memalign(&st[s].mem, 64, bytes) != 0)
			ret = NW_ERR_MEMORY;
		if (s < k - 1) {
			edges[s].done = -1;
			edges[s].used = -1;
		}
	}
	for (int64_t s = 1; ret == 0 && s < k; s++, started++)
		if (pthread_create(&tid[s], NULL, stripe_thread, &st[s]) != 0)
			break;
	const int all = ret == 0 && started == k - 1;
	__atomic_store_n(&go, all ? 1 : -1, __ATOMIC_RELEASE);
	if (all)
		run_stripe(&st[0]);
	for (int64_t s = 1; s <= started; s++)
		pthread_join(tid[s], NULL);
	int ran = all;
	if (all && stops) {
		/* the first column any stripe reached the target in, the first stripe in it */
		ran = 0;
		for (int64_t s = 0; s < k; s++)
			if (st[s].found && (!ran || st[s].hit.row < hit->row)) {
				*hit = st[s].hit;
				hit->col += st[s].pass.q0;
				ran = 1;
			}
	} else if (all) {
		*hit = st[k - 1].hit;
		if (p->track == DP_TRACK_NONE || p->track == DP_TRACK_LASTROW)
			hit->col = m;
		for (int64_t s = 0; p->track == DP_TRACK_MAX && s < k; s++) {
			/* the best, at the smallest reference end, then the smallest query end */
			dp_hit_t h = st[s].hit;
			h.col += st[s].pass.q0;
			if (s == 0 || h.score > hit->score ||
			    (h.score == hit->score && (h.row < hit->row ||
						       (h.row == hit->row && h.col < hit->col))))
				*hit = h;
		}
	}
	if (ran) {
		ws->team_passes++;
		ws->team_most = ws->team_most > (int)k ? ws->team_most : (int)k;
	}
	for (int64_t s = 0; st && s < k; s++)
		free(st[s].mem);
	free(st);
	free(edges);
	free(tid);
	return ret < 0 ? ret : ran;
}
