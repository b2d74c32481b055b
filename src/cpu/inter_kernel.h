/* inter_kernel.h: the inter-sequence Gotoh pass (cpu_inter.h), written once for every
 * instruction set and lane width. cpu_inter.c includes it after simd_ops.h (16-bit lanes,
 * every form) and after simd_ops8.h (8-bit lanes: the local profile pass and the anchored
 * reverse pass; inter_diff_kernel.h's global pass) once per set; it defines
 * ISA_FN(inter_pass).
 *
 * The outer loop walks the reference columns, INTER_BLOCK at a time, the inner loop the
 * query rows, with the column of H and the row-wise horizontal-gap state E in memory and
 * the vertical-gap states F in registers; the recurrence and the boundaries are
 * nw_dp_pass's and the striped pass's. A row's cells of the block's columns are computed
 * one after the other: each column's chain down the rows (through F) is independent of
 * the next column's but for the cell to its left, so the processor overlaps them, where
 * one column alone would wait on its own chain. Walking columns outermost gives the tie
 * rules directly: the first column to reach a value is the smallest reference end, and
 * within a column the first row (kept cell by cell for the local maximum) the smallest
 * query end.
 *
 * With dirs (a global pass over the spans of paths), every cell also leaves its direction
 * bits, path_full's (src/cpu/cpu_path.c): the source of H (the diagonal, then E, then F,
 * each only when strictly better) and whether E and F extend. A step's four columns fill
 * the four nibbles of one 16-bit word a lane: p->dir[(step * rows + i - 1) * VL + lane].
 *
 * A local pass keeps its gap states E and F at max(0, their value) (vsubs0: a subtraction
 * that stops at 0; H is never below 0), so H = max(diagonal, E, F) needs no maximum with 0
 * of its own, and is the same cell for cell: max(0, E) - X stays below 0 where E was, so
 * the states one step on are again max(0, their value).
 *
 * The global match/mismatch pass in 8-bit lanes keeps differences instead of cells
 * (inter_diff_kernel.h).
 *
 * In 8-bit lanes (cpu_inter.c's narrow passes) a local profile pass's cells lie in 0..127
 * and a lane whose best reaches 127 has saturated: the caller runs it again in 16 bits.
 * Below that every cell is exact (the first cell to saturate would have made the best
 * 127). A local match/mismatch pass in 8-bit lanes keeps each cell minus 128, its zero at
 * LANE_MIN, so that its cells span 0..255: the signed saturating subtraction then stops at
 * that zero as vsubs0 stops at 0, and the diagonal's sum saturates there too, which H's
 * floor of 0 allows; a lane whose best reaches 255 has saturated, as above.
 *
 * Where a lane's best lies (track MAX) is found one of two ways. A match/mismatch pass
 * (similar pairs: their bests rise on most rows) keeps, for each column of the block, every
 * lane's largest cell and its first row (dense: a compare, a blend and a maximum a cell).
 * Row numbers leave 8 bits, so there a column's best row is kept per chunk of ROW_CHUNK
 * rows (the row within the chunk in 8 bits) and folded into the chunk's number after each
 * chunk, the first chunk winning ties. A profile pass (a query against unrelated
 * references, whose bests seldom rise) watches each row instead: the maximum of the row's
 * cells against thr, the smallest of the block's columns' largest cells so far (from the
 * lanes' best when the block began); only a row with a cell above it updates those cells
 * and their rows, lane by lane (watch_max). Either way the columns are then taken in order
 * and the first column, then the first row, to rise above a lane's best wins; the lanes'
 * bests, their rows and columns are kept in scalars. Track TARGET watches each row against
 * the lanes' targets (LANE_MAX for the lanes found) and keeps, per column of the block, the
 * first row where a lane reaches its target (watch_target); the columns are then taken in
 * order.
 *
 * The anchored pass (the reverse pass of a profile group) shares one reversed query, and
 * lane l's problem starts at row top[l]: row top[l] is its row 0, whose column 0 holds 0
 * (the end cell, where the reversed path starts), and the rows above it hold LANE_MIN in
 * column 0, as does the pass's row 0 (unless top[l] is 0: then it is the lane's). Those
 * rows are computed like the others, with no mask: their values, and whatever descends
 * from them, stay below any target. A path's gain from one cell to another is the score
 * of a local alignment of the pair, at most the target (the lane's best), so a cell that
 * descends from LANE_MIN (or from a cell saturated there) stays at or below LANE_MIN +
 * target. Every cell is therefore the maximum of its value in the lane's own problem and
 * of such values, and reaches the target exactly where the lane's own cell does (row
 * top[l] included: the horizontal gaps from the end cell give it the boundary's values).
 * The rows above the lowest top hold LANE_MIN in every lane and column: the pass starts
 * there, as a banded pass starts below its band (the row above it held at LANE_MIN).
 *
 * Streams (a profile pass with track MAX, cpu_inter.c's stream groups): a lane takes
 * several pairs, one after another, each from a block of its own. Where the next one
 * begins (fresh), the lane's best so far is the last one's result (seg_out); its best
 * becomes 0 and its H and E of the column before the block 0, the local pass's left
 * border (the block's top row is the border anyway). The pair's cells then descend from
 * its own cells alone, as in a lane of its own, and are found in the same order. The
 * padding columns after a pair score at most 0 a cell, so none of them rises above the
 * lane's best.
 *
 * A banded pass (the reverse passes of nw_inter_plan_starts: match/mismatch, track
 * TARGET, every lane's problem from row 0 and column 0) computes only the rows within
 * the band about a block's columns' diagonal (row i of column j when j - above <= i <=
 * j + below); the cells just outside, and the rows that the band has not reached, hold
 * LANE_MIN. Every computed cell is then at most its value in the full pass (it sees a
 * subset of the paths), and a cell that reaches a lane's target lies on a path that keeps
 * within the band (nw_inter_start_band), each of whose cells is computed from its
 * predecessors on the path: such a cell holds the target as in the full pass, and a cell
 * below the target stays below it. The first cell to reach the target, by column and then
 * row, is the full pass's.
 *
 * In 8-bit lanes a banded pass offsets each lane's cells by LANE_MAX - target (the lane's
 * target is then its top value), so that they span target - 255 .. target, and saturate
 * below that. It is exact for targets (of the divided scores) up to 254. A cell's value
 * is the best score of a path from the end cell, the score of a local alignment that ends
 * there: never above the target (the pair's best), so nothing saturates at the top. A
 * path that reaches the target passes no cell below 0 (the rest of it would score more
 * than the target), and cells of 0 and above lie within the lane's range: they are
 * exact. A cell below the range holds LANE_MIN, the value target - 255 <= -1, and a
 * border value below the lanes' range enters as LANE_MIN plus the offset (the value
 * -128, or that floor): either way a raised cell's value is at most -1, and a path on
 * from it gains at most the target (the score of a local alignment), so whatever
 * descends from a raised cell stays below the target. The first cell to reach the
 * target is the 16-bit pass's.
 */

/* Lane l of vector v in memory. */
#define LANE(vp, l) (((const LT *)(vp))[l])
/* A value as a lane holds it: below the lane's range it saturates, as its arithmetic does
 * (16-bit passes never go there: fits16 in cpu_inter.c). */
#define LANE_VAL(x) ((x) < LANE_MIN ? LANE_MIN : (x))
#if LANE_BITS == 8
#define ROW_CHUNK 127
#else
#define ROW_CHUNK INT32_MAX
#endif
/* The lane's top value: a cell at a threshold of LANE_MAX is never above it. */
#define LANE_MAX (-(LANE_MIN) - 1)
/* Lane l's target as the lane holds it: a narrow match/mismatch pass with track TARGET
 * (the starts' banded passes) offsets each lane by LANE_MAX - target (see above). */
#define OFFSET_LANES(form, track) (LANE_BITS == 8 && (form) == INTER_MM && (track) == DP_TRACK_TARGET)
#define TARGET_AT(p, l) (OFFSET_LANES((p)->form, (p)->track) ? LANE_MAX : (p)->target[l])

/* MAX, a row with a cell above thr: each column's cells above its largest so far (cm[c],
 * from the lanes' best when the block began) become its largest, at row i; thr becomes
 * the smallest of the columns' largest. hc[c]: the row's cell of column c. */
static inline ISA_TARGET void ISA_FN(watch_max)(const V *hc, int64_t i, LT (*cm)[VL],
						int32_t (*crow)[VL], V *thr)
{
	V t = vload(cm[0]);
	for (int c = 0; c < INTER_BLOCK; c++) {
		V m = vload(cm[c]);
		/* the lanes that rise, by their bits: no branch a lane */
		for (uint64_t bits = vmaskbits(vcmpgt(hc[c], m)); bits; bits &= bits - 1)
			crow[c][__builtin_ctzll(bits)] = (int32_t)i;
		m = vmax(m, hc[c]);
		vstore(cm[c], m);
		t = vsel(vcmpgt(t, m), t, m);
	}
	*thr = t;
}

/* TARGET, a row with a cell above thr (at the target of a lane not yet found): the lanes
 * whose cell of column j0 + c is their target, within their problem, for the first time in
 * the block enter hit[c] with row i. Returns whether any did. */
static inline ISA_TARGET uint64_t ISA_FN(watch_target)(const inter_pass_t *p, const V *hc,
							int64_t i, int64_t j0, V thr,
							uint64_t *hit, int32_t (*crow)[VL])
{
	uint64_t any = 0;
	for (int c = 0; c < INTER_BLOCK; c++) {
		if (!vany(vcmpgt(hc[c], thr)))
			continue;
		_Alignas(64) LT h[VL];
		vstore(h, hc[c]);
		for (int l = 0; l < VL; l++) {
			const int32_t top = p->form == INTER_ANCHORED ? p->top[l] : 0;
			if (h[l] != TARGET_AT(p, l) || (hit[c] >> l & 1) || i <= top ||
			    i > top + p->m[l] || j0 + c > p->n[l])
				continue;
			hit[c] |= UINT64_C(1) << l;
			crow[c][l] = (int32_t)i;
			any = 1;
		}
	}
	return any;
}

/* TARGET's threshold: each lane's target minus one, LANE_MAX for the lanes found. */
static inline ISA_TARGET V ISA_FN(target_thr)(const inter_pass_t *p, const int *found)
{
	_Alignas(64) LT t[VL];
	for (int l = 0; l < VL; l++)
		t[l] = found[l] ? LANE_MAX : (LT)(TARGET_AT(p, l) - 1);
	return vload(t);
}

/* MAX: the lanes' bests (best_s, in scores) as the lanes hold them (plus zero). */
static inline ISA_TARGET V ISA_FN(lanes_best)(const int32_t *best_s, int zero)
{
	_Alignas(64) LT t[VL];
	for (int l = 0; l < VL; l++)
		t[l] = (LT)(best_s[l] + zero);
	return vload(t);
}

/* Streams: segment s's best (a lane's best_s, best_row, best_col) into its result. */
static inline ISA_TARGET void ISA_FN(seg_out)(const inter_pass_t *p, int32_t s, int32_t score,
					      int32_t row, int32_t col)
{
	inter_seg_t *o = &p->seg_out[s];
	o->score = score;
	o->qend = score > 0 ? row : 0;
	o->rend = score > 0 ? col - p->seg_col0[s] : 0;
}

static inline __attribute__((always_inline)) ISA_TARGET void
ISA_FN(pass_body)(const inter_pass_t *p, inter_hits_t *out, const int form, const int track,
		  const int dirs)
{
	enum { B = INTER_BLOCK };
	_Static_assert(4 * INTER_BLOCK <= 16, "a step's direction nibbles fill one 16-bit word");
	const int64_t rows = p->rows, cols = p->cols;
	V *H = (V *)p->H, *E = (V *)p->E, *P = (V *)p->P, *A = (V *)p->A;
	/* p's fields in locals: a vector store may alias them (vector types alias anything) */
	const uint8_t *const qs = p->qs;
	const LT *const qc = (const LT *)p->qc;
	/* local passes, and only they, track the maximum: a constant of each instance */
	const int O = p->O, X = p->X, local = track == DP_TRACK_MAX;
	const int top_free = local || p->ref_free;
	const V vOX = vset1(O + X), vX = vset1(X), vNEG = vset1(LANE_MIN), vZ = vset1(0);
	const V v1 = vset1(1);
	/* a cell's zero: LANE_MIN in the 8-bit match/mismatch local pass (see above) */
	const int zero = LANE_BITS == 8 && form == INTER_MM && local ? LANE_MIN : 0;
	const V vzero = vset1(zero);
#define vsubs_local(a, b) (zero ? vsubs((a), (b)) : vsubs0((a), (b)))
#if LANE_BITS == 8
	(void)dirs; /* the narrow passes leave no direction bits */
#endif
	const V vma = vset1(p->match), vmi = vset1(p->mismatch);
	/* tracks that read whole columns keep the block's first columns in A */
	const int keep = track != DP_TRACK_MAX && track != DP_TRACK_TARGET;
	/* MAX keeps each cell's column best and its row (dense) for match/mismatch, whose
	 * similar pairs raise their bests on most rows; MAX otherwise, and TARGET, watch each
	 * row's largest cell against a threshold (see above) */
	const int dense = track == DP_TRACK_MAX && form == INTER_MM;
	const int watch = (track == DP_TRACK_MAX && !dense) || track == DP_TRACK_TARGET;
	const int banded = form == INTER_MM && track == DP_TRACK_TARGET && p->banded;
	const int64_t below = banded ? p->below : 0, above = banded ? p->above : 0;
	_Alignas(64) LT tmp[VL];
	int found[VL];
	int pending = 0;
	/* a boundary cell of value v (offset lanes: each lane's own, see above) */
	const int offset = OFFSET_LANES(form, track);
	V voff = vZ;
	if (offset) {
		for (int l = 0; l < VL; l++)
			tmp[l] = (LT)(LANE_MAX - p->target[l]);
		voff = vload(tmp);
	}
#define BORDER(v) (offset ? vadds(vset1(LANE_VAL(v)), voff) : vset1(LANE_VAL(v)))

	for (int64_t i = 1; i <= rows; i++) {
		vstore(&H[i], banded && i > below ? vNEG : local ? vzero : BORDER(-(O + i * X)));
		vstore(&E[i], local ? vzero : vNEG);
	}
	int32_t best_s[VL], best_row[VL], best_col[VL]; /* MAX: the lanes' bests */
	for (int l = 0; l < VL; l++)
		best_s[l] = best_row[l] = best_col[l] = 0;
	VM row0_own = VMZERO; /* ANCHORED: the lanes whose row 0 is the pass's (top 0) */
	if (form == INTER_ANCHORED) { /* column 0: each lane's own, from its top row down */
		for (int64_t i = 1; i <= rows; i++) {
			for (int l = 0; l < VL; l++)
				tmp[l] = (LT)(i < p->top[l] ? LANE_MIN : i == p->top[l] ? 0
					      : LANE_VAL(-(O + (i - p->top[l]) * X)));
			vstore(&H[i], vload(tmp));
		}
		for (int l = 0; l < VL; l++)
			tmp[l] = (LT)(p->top[l] == 0);
		row0_own = vcmpeq(vload(tmp), vset1(1));
	}
	for (int l = 0; l < VL; l++) {
		int32_t m = p->m[l];
		int32_t h0 = local || m == 0 ? 0 : -(O + m * X); /* H[m][0]: the query, no reference */
		found[l] = 0;
		out->row[l] = out->col[l] = 0;
		out->score[l] = 0;
		if (track == DP_TRACK_LASTROW || track == DP_TRACK_NONE) {
			out->score[l] = h0;
			out->col[l] = m;
		} else if (track == DP_TRACK_TARGET_LASTCOL || track == DP_TRACK_TARGET) {
			out->row[l] = -1;
			if (p->n[l] == 0 && p->m[l] == 0)
				found[l] = 1; /* an empty lane */
			else if (track == DP_TRACK_TARGET_LASTCOL && h0 == p->target[l])
				found[l] = 1, out->row[l] = 0, out->col[l] = m, out->score[l] = h0;
			pending += !found[l];
		}
	}
#if LANE_BITS == 8
	/* S[2x], S[2x + 1]: query code x against reference codes 0..15 and 16..31, in every
	 * 16-byte block (vlut32) */
	V *S = P + B * NW_MAX_CODES;
	for (int x = 0; form != INTER_MM && x < p->n_codes; x++)
		for (int half = 0; half < 2; half++) {
			for (int y = 0; y < VL; y++)
				tmp[y] = (LT)p->st[16 * half + y % 16][x];
			vstore(&S[2 * x + half], vload(tmp));
		}
#elif defined(VPERM32)
	/* S[x] lane y: query code x against reference code y (the 32 lanes span every code) */
	V *S = P + B * NW_MAX_CODES;
	if (form == INTER_PROFILE || form == INTER_ANCHORED)
		for (int x = 0; x < p->n_codes; x++) {
			for (int y = 0; y < VL; y++)
				tmp[y] = p->st[y][x];
			vstore(&S[x], vload(tmp));
		}
#endif
	/* MAX: the lanes' bests as the lanes hold them; TARGET: a cell reaches the target when
	 * it is above thr, whose lanes found (or empty) hold the lanes' top value */
	V best = vzero, thr = vZ;
#if LANE_BITS != 8
	V best_i = vZ, best_j = vZ, vn = vZ; /* dense */
	if (dense) {
		for (int l = 0; l < VL; l++)
			tmp[l] = (LT)p->n[l];
		vn = vload(tmp);
	}
#endif
	if (track == DP_TRACK_TARGET)
		thr = ISA_FN(target_thr)(p, found);
	const int stops = dp_track_stops(track);
	/* ANCHORED: the rows above every lane's top hold LANE_MIN, in column 0 and so in every
	 * column: the pass starts at the first lane's top (see above) */
	int64_t first_row = 1;
	for (int l = 0; form == INTER_ANCHORED && l < VL; l++)
		first_row = l == 0 || p->top[l] < first_row ? p->top[l] : first_row;
	first_row = first_row < 1 ? 1 : first_row;
	/* streams: the segment each lane is in */
	const int streams = track == DP_TRACK_MAX && form == INTER_PROFILE && p->fresh;
	int32_t seg[VL];
	for (int l = 0; streams && l < VL; l++)
		seg[l] = p->seg_first[l];

	for (int64_t j0 = 1; j0 <= cols && (!stops || pending > 0); j0 += B) {
		const uint64_t fresh = streams ? p->fresh[(j0 - 1) / B] : 0;
		VM anew = VMZERO; /* fresh: the lanes whose left column (H, E) is set anew */
		if (fresh) { /* lanes that begin their next pair here: the last one's result
			      * out, their best anew, and their left column (as each row reads
			      * it, below) the left border */
			for (uint64_t bits = fresh; bits; bits &= bits - 1) {
				const int l = __builtin_ctzll(bits);
				ISA_FN(seg_out)(p, seg[l]++, best_s[l], best_row[l], best_col[l]);
				best_s[l] = best_row[l] = best_col[l] = 0;
			}
			for (int l = 0; l < VL; l++)
				tmp[l] = (LT)(fresh >> l & 1);
			anew = vcmpeq(vload(tmp), v1);
			best = ISA_FN(lanes_best)(best_s, zero);
		}
		V diag[B], f[B], R[B], colmax[B], colrow[B];
		int top_here[B];
		/* watch: a column's largest cell above the block's start threshold (MAX) and the
		 * first row of each lane's (MAX) or the first row where a lane reaches its
		 * target (TARGET, the lanes in hit[c]) */
		_Alignas(64) LT cm[B][VL];
		int32_t crow[B][VL];
		uint64_t hit[B] = {0}, any_hit = 0;
		/* the block's rows: all, or those within the band of its columns */
		const int64_t lo = banded && j0 - above > 1 ? j0 - above : first_row;
		const int64_t hi = banded && j0 + B - 1 + below < rows ? j0 + B - 1 + below : rows;
#if LANE_BITS != 8
		VM fext[B]; /* dirs: F[i][j] extends F[i-1][j] (for the row about to be computed) */
#endif
#if LANE_BITS == 8
		V cmax[B], crows[B], cchunk[B]; /* dense: a column's best over the chunks so far */
#endif
		if (watch && track == DP_TRACK_MAX)
			thr = best;
#pragma GCC unroll 8
		for (int c = 0; c < B; c++) {
			const int64_t j = j0 + c;
			const int top_prev = top_free || j == 1 ? zero : -(O + (int)(j - 1) * X);
			top_here[c] = top_free ? zero : -(O + (int)j * X);
			diag[c] = local ? vset1(top_prev) : BORDER(top_prev); /* H[0][j-1] */
			f[c] = local ? vzero : BORDER(top_here[c] - (O + X)); /* F[1][j] */
			if (form == INTER_ANCHORED) { /* row 0 above a lane's own: LANE_MIN too */
				diag[c] = vsel(row0_own, vNEG, diag[c]);
				f[c] = vsel(row0_own, vNEG, f[c]);
			}
			if (lo > 1) { /* the row above the band: only its cell left of the block
				       * lies within it (the last block computed it) */
				diag[c] = c == 0 ? vload(&H[lo - 1]) : vNEG;
				f[c] = vNEG;
			}
			R[c] = vload((const LT *)p->rc + (j - 1) * VL);
			if (watch && track == DP_TRACK_MAX)
				vstore(cm[c], best);
			if (dense) { /* (watched passes keep their columns' bests in cm, crow) */
				colmax[c] = vNEG;
				colrow[c] = vZ;
#if LANE_BITS == 8
				cmax[c] = vNEG;
				crows[c] = cchunk[c] = vZ;
#endif
			}
#if LANE_BITS != 8
			fext[c] = VMZERO;
#endif
			if (form == INTER_PROFILE || form == INTER_ANCHORED) { /* P[c][x] lane l: x vs column j */
#if LANE_BITS == 8
				for (int x = 0; x < p->n_codes; x++)
					vstore(&P[c * NW_MAX_CODES + x],
					       vlut32(R[c], vload(&S[2 * x]), vload(&S[2 * x + 1])));
#elif defined(VPERM32)
				for (int x = 0; x < p->n_codes; x++)
					vstore(&P[c * NW_MAX_CODES + x], vperm32(R[c], vload(&S[x])));
#else
				const LT *rcode = (const LT *)p->rc + (j - 1) * VL;
				for (int x = 0; x < p->n_codes; x++) {
					for (int l = 0; l < VL; l++)
						tmp[l] = p->st[rcode[l]][x];
					vstore(&P[c * NW_MAX_CODES + x], vload(tmp));
				}
#endif
			}
		}
		for (int64_t i0 = lo, chunk = 0; i0 <= hi; i0 += ROW_CHUNK, chunk++) {
			const int64_t i1 = hi - i0 < ROW_CHUNK ? hi : i0 + ROW_CHUNK - 1;
			/* dense: row i's number (8-bit lanes: within the chunk, from 1) */
			V vi = vset1(LANE_BITS == 8 ? 0 : (int)(i0 - 1));
			for (int64_t i = i0; i <= i1; i++) {
				V left = vload(&H[i]), el = vload(&E[i]), Q = vZ, rowmax = vZ;
				if (fresh) /* (the left border of a local pass: 0) */
					left = vsel(anew, left, vzero), el = vsel(anew, el, vzero);
				if (form == INTER_MM || form == INTER_TABLE)
					Q = vload(qc + (i - 1) * VL);
				if (dense)
					vi = vadds(vi, v1);
#if LANE_BITS != 8
				V word = vZ;  /* dirs: the step's direction nibbles of row i */
#endif
#pragma GCC unroll 8
				for (int c = 0; c < B; c++) {
					V s;
					if (form == INTER_PROFILE || form == INTER_ANCHORED)
						s = vload(&P[c * NW_MAX_CODES + qs[i - 1]]);
#if LANE_BITS != 8
					else if (form == INTER_TABLE)
						s = vlookup(vadds(Q, R[c]), p->table);
#endif
					else
						s = vsel(vcmpeq(Q, R[c]), vmi, vma);
					V e, h;
#if LANE_BITS != 8
					if (dirs) {
						const V ee = vsubs(el, vX), eo = vsubs(left, vOX);
						const V hd = vadds(diag[c], s);
						const VM eext = vcmpgt(ee, eo);
						e = vmax(ee, eo);
						const VM from_e = vcmpgt(e, hd);
						h = vmax(hd, e);
						const VM from_f = vcmpgt(f[c], h);
						h = vmax(h, f[c]);
						word = vor(word, vor(vsel(from_f, vbits(from_e, 1 << 4 * c),
									  vset1(2 << 4 * c)),
								     vor(vbits(eext, 4 << 4 * c),
									 vbits(fext[c], 8 << 4 * c))));
						fext[c] = vcmpgt(vsubs(f[c], vX), vsubs(h, vOX));
					} else
#endif
					if (local) { /* E, F >= 0, hence H >= 0 (see above) */
						e = vmax(vsubs_local(el, vX), vsubs_local(left, vOX));
						h = vmax(vmax(vadds(diag[c], s), e), f[c]);
					} else {
						e = vmax(vsubs(el, vX), vsubs(left, vOX));
						h = vmax(vadds(diag[c], s), e);
						h = vmax(h, f[c]);
					}
					diag[c] = left;
					f[c] = local ? vmax(vsubs_local(f[c], vX), vsubs_local(h, vOX))
						     : vmax(vsubs(f[c], vX), vsubs(h, vOX));
					if (dense) {
						colrow[c] = vsel(vcmpgt(h, colmax[c]), colrow[c], vi);
						colmax[c] = vmax(colmax[c], h);
					} else if (watch) {
						rowmax = c ? vmax(rowmax, h) : h;
					}
					if (keep && c < B - 1)
						vstore(&A[c * (rows + 1) + i], h);
					left = h;
					el = e;
				}
				vstore(&H[i], left);
				vstore(&E[i], el);
#if LANE_BITS != 8
				if (dirs)
					vstore(p->dir + (((j0 - 1) / B) * rows + i - 1) * VL, word);
#endif
				if (watch && vany(vcmpgt(rowmax, thr))) {
					/* the row's cells: h of column c is the diagonal of column c + 1 */
					V hc[B];
					for (int c = 0; c < B - 1; c++)
						hc[c] = diag[c + 1];
					hc[B - 1] = left;
					if (track == DP_TRACK_MAX)
						ISA_FN(watch_max)(hc, i, cm, crow, &thr);
					else
						any_hit |= ISA_FN(watch_target)(p, hc, i, j0, thr, hit, crow);
				}
			}
#if LANE_BITS == 8
			if (dense) /* the chunk's bests into the column's, earlier chunks first */
				for (int c = 0; c < B; c++) {
					const VM up = vcmpgt(colmax[c], cmax[c]);
					cmax[c] = vmax(cmax[c], colmax[c]);
					crows[c] = vsel(up, crows[c], colrow[c]);
					cchunk[c] = vsel(up, cchunk[c], vset1((int)chunk));
					colmax[c] = vNEG;
				}
#endif
		}

		/* the block's columns in order: the first to reach a value wins */
		for (int c = 0; c < B && j0 + c <= cols; c++) {
			const int64_t j = j0 + c;
			const V *col = c < B - 1 ? &A[c * (rows + 1)] : H;
			switch (track) {
			case DP_TRACK_MAX: {
				if (dense) {
#if LANE_BITS == 8
					/* padding columns (past a lane's reference) score at most 0 a
					 * cell, so none of them rises above the lane's best */
					const VM up = vcmpgt(cmax[c], best);
					if (!vany(up))
						break;
					best = vmax(best, cmax[c]);
					_Alignas(64) LT row[VL], chunk[VL];
					vstore(tmp, cmax[c]);
					vstore(row, crows[c]);
					vstore(chunk, cchunk[c]);
					for (uint64_t bits = vmaskbits(up); bits; bits &= bits - 1) {
						const int l = __builtin_ctzll(bits);
						best_s[l] = tmp[l] - zero;
						best_row[l] = chunk[l] * ROW_CHUNK + row[l];
						best_col[l] = (int32_t)j;
					}
#else
					VM up = vmand(vcmpgt(colmax[c], best), vcmpgt(vn, vset1((int)j - 1)));
					best = vsel(up, best, colmax[c]);
					best_i = vsel(up, best_i, colrow[c]);
					best_j = vsel(up, best_j, vset1((int)j));
#endif
					break;
				}
				if (!vany(vcmpgt(vload(cm[c]), best)))
					break;
				for (int l = 0; l < VL; l++) {
					if (cm[c][l] > best_s[l] + zero && j <= p->n[l]) {
						best_s[l] = cm[c][l] - zero;
						best_row[l] = crow[c][l];
						best_col[l] = (int32_t)j;
					}
				}
				best = ISA_FN(lanes_best)(best_s, zero);
				break;
			}
			case DP_TRACK_LASTROW:
				for (int l = 0; l < VL; l++) {
					int32_t m = p->m[l];
					if (j > p->n[l])
						continue;
					int32_t v = m ? LANE(&col[m], l) : top_here[c];
					if (v > out->score[l])
						out->score[l] = v, out->row[l] = (int32_t)j;
				}
				break;
			case DP_TRACK_NONE:
				for (int l = 0; l < VL; l++)
					if (p->n[l] == j) {
						out->score[l] = p->m[l] ? LANE(&col[p->m[l]], l) : top_here[c];
						out->row[l] = (int32_t)j;
					}
				break;
			case DP_TRACK_TARGET_LASTCOL:
				for (int l = 0; l < VL; l++) {
					int32_t m = p->m[l];
					if (found[l] || j > p->n[l])
						continue;
					int32_t v = m ? LANE(&col[m], l) : top_here[c];
					if (v == p->target[l]) {
						found[l] = 1, pending--;
						out->score[l] = v, out->row[l] = (int32_t)j, out->col[l] = m;
					}
				}
				break;
			case DP_TRACK_TARGET:
				if (!any_hit)
					break;
				for (uint64_t bits = hit[c]; bits; bits &= bits - 1) {
					const int l = __builtin_ctzll(bits);
					if (found[l])
						continue;
					const int32_t top = form == INTER_ANCHORED ? p->top[l] : 0;
					found[l] = 1, pending--;
					out->score[l] = p->target[l];
					out->row[l] = (int32_t)j, out->col[l] = crow[c][l] - top;
				}
				if (c == B - 1 || j == cols) /* the lanes found leave the threshold */
					thr = ISA_FN(target_thr)(p, found);
				break;
			default:
				break;
			}
		}
	}
#undef vsubs_local
#undef BORDER
#if LANE_BITS != 8
	if (dense) {
		vstore(tmp, best);
		for (int l = 0; l < VL; l++)
			best_s[l] = tmp[l];
		vstore(tmp, best_i);
		for (int l = 0; l < VL; l++)
			best_row[l] = tmp[l];
		vstore(tmp, best_j);
		for (int l = 0; l < VL; l++)
			best_col[l] = tmp[l];
	}
#endif
	for (int l = 0; streams && l < VL; l++)
		if (p->seg_first[l] < p->seg_first[l + 1])
			ISA_FN(seg_out)(p, seg[l], best_s[l], best_row[l], best_col[l]);
	if (track == DP_TRACK_MAX)
		for (int l = 0; l < VL; l++) {
			out->score[l] = best_s[l];
			out->col[l] = best_row[l];
			out->row[l] = best_col[l];
		}
}

/* One function per form and track, so that each inner loop is compiled for its case. */
#define INTER_CASE(name, form, track)                                                      \
	static ISA_TARGET void ISA_FN(name)(const inter_pass_t *p, inter_hits_t *out)        \
	{                                                                                    \
		ISA_FN(pass_body)(p, out, form, track, 0);                                  \
	}
#define INTER_DIR_CASE(name, form)                                                         \
	static ISA_TARGET void ISA_FN(name)(const inter_pass_t *p, inter_hits_t *out)        \
	{                                                                                    \
		ISA_FN(pass_body)(p, out, form, DP_TRACK_NONE, 1);                          \
	}
#define INTER_CASES(form, pre)                                                             \
	INTER_CASE(pre##_max, form, DP_TRACK_MAX)                                           \
	INTER_CASE(pre##_lastrow, form, DP_TRACK_LASTROW)                                   \
	INTER_CASE(pre##_none, form, DP_TRACK_NONE)                                         \
	INTER_CASE(pre##_target, form, DP_TRACK_TARGET)                                     \
	INTER_CASE(pre##_lastcol, form, DP_TRACK_TARGET_LASTCOL)                            \
	static void ISA_FN(pre##_pass)(const inter_pass_t *p, inter_hits_t *out)             \
	{                                                                                    \
		switch (p->track) {                                                          \
		case DP_TRACK_MAX:                                                           \
			ISA_FN(pre##_max)(p, out);                                           \
			break;                                                               \
		case DP_TRACK_LASTROW:                                                       \
			ISA_FN(pre##_lastrow)(p, out);                                       \
			break;                                                               \
		case DP_TRACK_NONE:                                                          \
			ISA_FN(pre##_none)(p, out);                                          \
			break;                                                               \
		case DP_TRACK_TARGET:                                                        \
			ISA_FN(pre##_target)(p, out);                                        \
			break;                                                               \
		default:                                                                     \
			ISA_FN(pre##_lastcol)(p, out);                                       \
			break;                                                               \
		}                                                                            \
	}
#if LANE_BITS == 8
/* the narrow passes: local profile and match/mismatch (forward, ends), anchored and
 * banded match/mismatch (reverse, starts) and the global match/mismatch pass by
 * differences */
INTER_CASE(pr_max, INTER_PROFILE, DP_TRACK_MAX)
INTER_CASE(mm_max, INTER_MM, DP_TRACK_MAX)
INTER_CASE(mm_target, INTER_MM, DP_TRACK_TARGET)
INTER_CASE(an_target, INTER_ANCHORED, DP_TRACK_TARGET)
#include "inter_diff_kernel.h"

static void ISA_FN(inter_pass)(const inter_pass_t *p, inter_hits_t *out)
{
	(p->form == INTER_ANCHORED		? ISA_FN(an_target)
	 : p->form == INTER_MM && p->local	? ISA_FN(mm_max)
	 : p->form == INTER_MM && p->track == DP_TRACK_TARGET ? ISA_FN(mm_target)
	 : p->form == INTER_MM			? ISA_FN(diff_none)
						: ISA_FN(pr_max))(p, out);
}
#else
INTER_CASES(INTER_MM, mm)
INTER_CASES(INTER_PROFILE, pr)
INTER_CASE(an_target, INTER_ANCHORED, DP_TRACK_TARGET)
INTER_DIR_CASE(mm_dir, INTER_MM)
INTER_DIR_CASE(tb_dir, INTER_TABLE)

static void ISA_FN(inter_pass)(const inter_pass_t *p, inter_hits_t *out)
{
	if (p->dir)
		(p->form == INTER_TABLE ? ISA_FN(tb_dir) : ISA_FN(mm_dir))(p, out);
	else if (p->form == INTER_PROFILE)
		ISA_FN(pr_pass)(p, out);
	else if (p->form == INTER_ANCHORED)
		ISA_FN(an_target)(p, out);
	else
		ISA_FN(mm_pass)(p, out);
}
#endif
#undef INTER_DIR_CASE
#undef INTER_CASES
#undef INTER_CASE
#undef LANE
#undef LANE_VAL
#undef LANE_MAX
#undef TARGET_AT
#undef OFFSET_LANES
#undef ROW_CHUNK
