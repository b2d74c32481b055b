/* cpu_striped.c: the CPU engine's fast pass, Farrar's striped SIMD Gotoh in 16 bits.
 *
 * The query lies in SIMD lanes in striped order (lane l, segment s holds query position
 * l * seg_len + s), the reference is walked column by column. Vertical gaps that cross
 * from one lane to the next are settled by the "lazy F" loop after each column. Unlike
 * some striped codes, the lazy loop also raises the horizontal-gap state E of cells whose
 * H it raised, so an insertion may be followed directly by a deletion: the scores stay
 * those of the scalar recurrence (nw_dp_pass, this pass's twin) for every scoring.
 *
 * A pass runs only over columns where every value fits 16 bits with room to spare (see
 * columns_in_16bit); otherwise the caller runs the scalar pass. The tie rules are the scalar
 * engine's: the outer loop is the reference, so the first column to reach a value is the
 * smallest reference end, and a scan of that column finds the smallest query end.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"

#ifdef __SSE2__
#include <emmintrin.h>

#define LANES 8
#define NEG16 (-32768)

/* How many reference columns the pass can take before a value could leave 16 bits (with
 * 2000 to spare for one more gap or substitution): all n, fewer, or 0. Cells are bounded
 * above by the best score of the shorter sequence and below by the all-gap path to them:
 * 0 when local, the query-prefix gap when the reference prefix is free, and that plus the
 * reference-prefix gap otherwise. */
static int64_t columns_in_16bit(const st_pass_t *p)
{
	const nw_scoring_t *sc = p->sc;
	const int64_t limit = 32767 - 2000;
	int64_t shortest = p->m < p->n ? p->m : p->n, maxs = sc->max_score > 0 ? sc->max_score : 0;
	if (shortest * maxs + maxs >= limit)
		return 0;
	if (p->local)
		return p->n;
	int64_t fixed = 3 * (int64_t)sc->gap_open + (p->m + 2) * sc->gap_extend +
			(sc->min_score < 0 ? -(int64_t)sc->min_score : 0);
	if (fixed >= limit)
		return 0;
	if (p->ref_free)
		return p->n;
	int64_t cols = (limit - fixed) / sc->gap_extend;
	return cols < p->n ? cols : p->n;
}

static int ws_vectors(nw_workspace_t *ws, size_t n)
{
	if (n <= ws->simd_cap)
		return 0;
	free(ws->simd);
	ws->simd = NULL;
	ws->simd_cap = 0;
	if (posix_memalign(&ws->simd, 16, n * sizeof(__m128i)) != 0) {
		ws->simd = NULL;
		return NW_ERR_MEMORY;
	}
	ws->simd_cap = n;
	return 0;
}

static inline int16_t hmax16(__m128i v)
{
	v = _mm_max_epi16(v, _mm_srli_si128(v, 8));
	v = _mm_max_epi16(v, _mm_srli_si128(v, 4));
	v = _mm_max_epi16(v, _mm_srli_si128(v, 2));
	return (int16_t)_mm_extract_epi16(v, 0);
}

/* H of query position i (0-based) in a striped column. */
static inline int16_t cell(const __m128i *col, int64_t seg_len, int64_t i)
{
	return ((const int16_t *)col)[(i % seg_len) * LANES + i / seg_len];
}

/* Smallest query position of a column holding v, or -1. */
static int64_t first_in_column(const __m128i *col, int64_t seg_len, int64_t m, int v)
{
	for (int64_t i = 0; i < m; i++)
		if (cell(col, seg_len, i) == v)
			return i;
	return -1;
}

int nw_striped_pass(nw_workspace_t *ws, const st_pass_t *p, dp_hit_t *hit)
{
	const nw_scoring_t *sc = p->sc;
	const int64_t m = p->m, n = p->n, seg_len = (m + LANES - 1) / LANES;
	const int O = sc->gap_open, X = sc->gap_extend;
	/* Passes that stop at a target may start on the columns that fit and give up only if
	 * the target lies beyond them; the others need every column. */
	const int stops = p->track == DP_TRACK_TARGET || p->track == DP_TRACK_TARGET_LASTCOL;
	const int64_t cols = columns_in_16bit(p);
	if (m < 1 || ws->simd_off || cols < 1 || (cols < n && !stops))
		return 0;
	if (ws_vectors(ws, (size_t)seg_len * (sc->n_codes + 3)) < 0)
		return NW_ERR_MEMORY;
	__m128i *prof = ws->simd, *h_load = prof + seg_len * sc->n_codes;
	__m128i *h_store = h_load + seg_len, *e_next = h_store + seg_len;

	/* Query profile: prof[c][s] lane l = score of query position l*seg_len+s against
	 * code c; padding positions past the query get a score far below any real one. */
	for (int c = 0; c < sc->n_codes; c++) {
		int16_t *v = (int16_t *)(prof + c * seg_len);
		for (int64_t s = 0; s < seg_len; s++)
			for (int l = 0; l < LANES; l++) {
				int64_t i = l * seg_len + s;
				v[s * LANES + l] = (int16_t)(i < m ? sc->score[p->q[i]][c] : -16384);
			}
	}
	/* Column 0: H of every query prefix against no reference. */
	for (int64_t s = 0; s < seg_len; s++) {
		int16_t *h = (int16_t *)(h_load + s);
		for (int l = 0; l < LANES; l++) {
			int64_t i = l * seg_len + s + 1;
			h[l] = (int16_t)(p->local ? 0 : -(O + (i <= m ? i : m) * X));
		}
	}
	const __m128i v_ox = _mm_set1_epi16((int16_t)(O + X)), v_x = _mm_set1_epi16((int16_t)X);
	const __m128i v_zero = _mm_setzero_si128(), v_neg = _mm_set1_epi16(NEG16);
	for (int64_t s = 0; s < seg_len; s++)
		e_next[s] = _mm_subs_epi16(h_load[s], v_ox);

	hit->row = hit->col = -1;
	hit->score = NW_NEG_INF;
	int top_free = p->local || p->ref_free;
	if (p->track == DP_TRACK_MAX) {
		hit->score = 0;
		hit->row = hit->col = 0;
	} else if (p->track == DP_TRACK_LASTROW || p->track == DP_TRACK_TARGET_LASTCOL) {
		hit->score = cell(h_load, seg_len, m - 1); /* the whole query against nothing */
		hit->row = 0;
		hit->col = m;
		if (p->track == DP_TRACK_TARGET_LASTCOL && hit->score == p->target)
			return 1;
	}

	for (int64_t j = 1; j <= cols; j++) {
		const __m128i *vp = prof + (int64_t)p->r[j - 1] * seg_len;
		int top_prev = top_free || j == 1 ? 0 : -(O + (int)(j - 1) * X); /* H[0][j-1] */
		int top_here = top_free ? 0 : -(O + (int)j * X);
		__m128i vh = _mm_slli_si128(h_load[seg_len - 1], 2);
		vh = _mm_insert_epi16(vh, top_prev, 0);
		__m128i vf = _mm_insert_epi16(v_neg, top_here - (O + X), 0);
		__m128i vmax = v_neg;
		for (int64_t s = 0; s < seg_len; s++) {
			vh = _mm_adds_epi16(vh, vp[s]);
			__m128i ve = e_next[s];
			vh = _mm_max_epi16(vh, ve);
			vh = _mm_max_epi16(vh, vf);
			if (p->local)
				vh = _mm_max_epi16(vh, v_zero);
			h_store[s] = vh;
			vmax = _mm_max_epi16(vmax, vh);
			__m128i vho = _mm_subs_epi16(vh, v_ox);
			e_next[s] = _mm_max_epi16(_mm_subs_epi16(ve, v_x), vho);
			vf = _mm_max_epi16(_mm_subs_epi16(vf, v_x), vho);
			vh = h_load[s];
		}
		/* Lazy F: carry vertical gaps across lanes. Once the gap arriving at a segment is
		 * no better than opening one from the H already there (which the main loop did
		 * for the cells below), it can change nothing further down. */
		for (int k = 0; k < LANES; k++) {
			vf = _mm_insert_epi16(_mm_slli_si128(vf, 2), NEG16, 0);
			for (int64_t s = 0; s < seg_len; s++) {
				__m128i vh2 = h_store[s];
				if (!_mm_movemask_epi8(_mm_cmpgt_epi16(vf, _mm_subs_epi16(vh2, v_ox))))
					goto column_done;
				vh2 = _mm_max_epi16(vh2, vf);
				h_store[s] = vh2;
				vmax = _mm_max_epi16(vmax, vh2);
				e_next[s] = _mm_max_epi16(e_next[s], _mm_subs_epi16(vh2, v_ox));
				vf = _mm_subs_epi16(vf, v_x);
			}
		}
column_done:
		switch (p->track) {
		case DP_TRACK_MAX: {
			int16_t colmax = hmax16(vmax);
			if (colmax > hit->score) {
				hit->score = colmax;
				hit->row = j;
				hit->col = first_in_column(h_store, seg_len, m, colmax) + 1;
			}
			break;
		}
		case DP_TRACK_LASTROW: {
			int16_t v = cell(h_store, seg_len, m - 1);
			if (v > hit->score) {
				hit->score = v;
				hit->row = j;
			}
			break;
		}
		case DP_TRACK_TARGET:
			if (hmax16(vmax) >= p->target) {
				int64_t i = first_in_column(h_store, seg_len, m, (int)p->target);
				if (i >= 0) {
					hit->score = p->target;
					hit->row = j;
					hit->col = i + 1;
					return 1;
				}
			}
			break;
		case DP_TRACK_TARGET_LASTCOL:
			if (cell(h_store, seg_len, m - 1) == p->target) {
				hit->score = p->target;
				hit->row = j;
				hit->col = m;
				return 1;
			}
			break;
		default:
			break;
		}
		__m128i *t = h_load;
		h_load = h_store;
		h_store = t;
	}
	if (stops)
		return 0; /* not reached within the columns that fit: the scalar pass decides */
	if (p->track == DP_TRACK_NONE) {
		hit->score = cell(h_load, seg_len, m - 1);
		hit->row = n;
		hit->col = m;
	}
	return 1;
}

#else /* no SSE2: the scalar pass does all the work */

int nw_striped_pass(nw_workspace_t *ws, const st_pass_t *p, dp_hit_t *hit)
{
	(void)ws, (void)p, (void)hit;
	return 0;
}

#endif
