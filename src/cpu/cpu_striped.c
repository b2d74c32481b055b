/* cpu_striped.c: the CPU engine's striped SIMD pass (striped_kernel.h) for long queries,
 * compiled for every instruction set (cpu_isa.h) in 16-bit lanes (saturating) and in
 * 32-bit lanes. A pass runs in 16 bits over the columns where every value fits with room
 * to spare (columns_in_16bit), else in 32 bits when the whole pass fits there, else the
 * caller runs the scalar twin (nw_dp_pass).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "cpu_isa.h"

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
	if ((p->track == DP_TRACK_TARGET || p->track == DP_TRACK_TARGET_LASTCOL) &&
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

int nw_striped_pass(nw_workspace_t *ws, const st_pass_t *p, dp_hit_t *hit)
{
	const int isa = ws->isa >= 0 ? ws->isa : (int)nw_cpu_isa();
	const int stops = p->track == DP_TRACK_TARGET || p->track == DP_TRACK_TARGET_LASTCOL;
	if (p->m < 1 || ws->simd_off)
		return 0;
	const int64_t cols16 = columns_in_16bit(p);
	const int wide_ok = fits_32bit(p);
	if (!(cols16 >= 1 && (cols16 == p->n || stops)) && !wide_ok)
		return 0;
	/* seg_len * (n_codes + 4) vectors: (m + lanes) lanes of at most 4 bytes a code */
	size_t bytes = ((size_t)p->m + 64) * 4 * (size_t)(p->sc->n_codes + 4);
	if (nw_ws_grow_aligned(&ws->simd, &ws->simd_cap, bytes) < 0)
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
