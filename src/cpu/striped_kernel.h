/* striped_kernel.h: Farrar's striped Gotoh pass (cpu_striped.c), written once for every
 * instruction set and lane width. cpu_striped.c includes it after simd_ops.h (16-bit
 * lanes, saturating) or simd_ops32.h (32-bit lanes) once per set; it defines
 * ISA_FN(striped).
 *
 * The query lies in the lanes in striped order (lane l, segment s holds query position
 * l * seg_len + s), the reference is walked column by column. Vertical gaps (F) that cross
 * from one lane to the next are settled in one of two ways:
 *   - local passes, and short queries: the "lazy F" loop after each column (Farrar), cheap
 *     when gaps rarely cross lanes (cells clamped at 0) or the column is short. Unlike some striped codes, the
 *     lazy loop also raises the horizontal-gap state E of cells whose H it raised, so an
 *     insertion may be followed directly by a deletion;
 *   - the others (seg_len >= VL / 2): a scan (as parasail's scan functions). F[i] = max(F[i-1] - X,
 *     Ht[i-1] - O - X) depends only on Ht = max(diagonal, E), so a first sweep computes Ht
 *     and the F that each lane's own rows pass down, a loop over the lanes carries F from
 *     one lane into the next, and a second sweep runs F again from its exact value at the
 *     top of every lane. In global passes F runs down every
 *     column below the best path, where the lazy loop would cross all lanes each column.
 * The scores are those of the scalar recurrence (nw_dp_pass, the twin) for every scoring.
 *
 * A pass may also be one stripe of a longer query (nw_striped_team, cpu_striped.c): q[0..m) then starts at
 * position q0 of the whole query, the row above it comes column by column from the stripe
 * above (p->in) and its last row goes to the stripe below (p->out), through rings that
 * st_edge_wait() paces. Such passes always scan, since the scan's last lane leaves the F
 * that enters the next stripe; their m is a multiple of VL when p->out is set.
 * The tie rules are the scalar engine's: the outer loop is the reference, so the first
 * column to reach a value is the smallest reference end, and a scan of that column finds
 * the smallest query end.
 */

/* "Minus infinity" and the padding score past the query: far below any value, yet safe to
 * subtract gap costs from (16-bit lanes saturate; 32-bit lanes have room to spare). */
#define ST_NEG ((int32_t)(sizeof(LT) == 2 ? -32768 : -(1 << 30)))
#define ST_PAD ((int32_t)(sizeof(LT) == 2 ? -16384 : -(1 << 28)))
/* A boundary value as a lane holds it: values below ST_NEG saturate there, as the lanes'
 * own arithmetic does (only stopping passes run with such values: columns_in_16bit). */
#define ST_FLOOR(x) ((x) < ST_NEG ? (int64_t)ST_NEG : (int64_t)(x))

/* H of query position i (0-based) in a striped column. */
#define ST_CELL(col, seg_len, i) (((const LT *)(col))[((i) % (seg_len)) * VL + (i) / (seg_len)])

static ISA_TARGET int32_t ISA_FN(st_hmax)(V v)
{
	_Alignas(64) LT t[VL];
	vstore(t, v);
	int32_t best = t[0];
	for (int l = 1; l < VL; l++)
		best = t[l] > best ? t[l] : best;
	return best;
}

/* Smallest query position of a column holding v, or -1. */
static int64_t ISA_FN(st_first)(const V *col, int64_t seg_len, int64_t m, int64_t v)
{
	for (int64_t i = 0; i < m; i++)
		if (ST_CELL(col, seg_len, i) == v)
			return i;
	return -1;
}

/* F of the last lane of v, as a plain integer. */
static ISA_TARGET int32_t ISA_FN(st_top_lane)(V v)
{
	_Alignas(64) LT t[VL];
	vstore(t, v);
	return t[VL - 1];
}

/* The pass over reference columns 1..cols (cols <= p->n; all n unless the track stops),
 * with mem holding seg_len * (n_codes + 4) vectors. Returns 1 when it ran to its answer,
 * 0 when a stopping track did not reach its target within cols. */
static ISA_TARGET int ISA_FN(striped)(void *mem, const st_pass_t *p, int64_t cols, dp_hit_t *hit)
{
	const nw_scoring_t *sc = p->sc;
	const int64_t m = p->m, seg_len = (m + VL - 1) / VL;
	const int O = sc->gap_open, X = sc->gap_extend;
	const int stops = dp_track_stops(p->track);
	V *prof = mem, *h_load = prof + seg_len * sc->n_codes;
	V *h_store = h_load + seg_len, *e_next = h_store + seg_len;
	/* MAX: the column of the best so far, whose first position holding it is found once,
	 * after the pass (scanning each improving column would cost a scalar pass over H on
	 * similar pairs, whose best improves at nearly every column). It is copied once a run
	 * of improving columns ends, from h_load, which still holds the run's last column
	 * while the next one is computed; owed: that column, not yet copied (0: none). */
	V *best_col = e_next + seg_len;
	int64_t owed = 0;
	/* the scan's carry costs a step a lane each column: worth it on columns of enough
	 * segments, where the lazy loop would cross the lanes one segment at a time */
	st_edge_t *in = p->in, *out = p->out;
	const int scan = in || out || (!p->local && seg_len * 2 >= VL);
	int64_t in_ready = 0, out_free = ST_EDGE_RING - 1;

	/* Query profile: prof[c][s] lane l = score of query position l*seg_len+s against
	 * code c; padding positions past the query get ST_PAD. */
	for (int c = 0; c < sc->n_codes; c++) {
		LT *v = (LT *)(prof + c * seg_len);
		for (int64_t s = 0; s < seg_len; s++)
			for (int l = 0; l < VL; l++) {
				int64_t i = l * seg_len + s;
				v[s * VL + l] = (LT)(i < m ? sc->score[p->q[i]][c] : ST_PAD);
			}
	}
	/* Column 0: H of every query prefix against no reference. */
	for (int64_t s = 0; s < seg_len; s++) {
		LT *h = (LT *)(h_load + s);
		for (int l = 0; l < VL; l++) {
			int64_t i = l * seg_len + s + 1;
			h[l] = (LT)(p->local ? 0 : ST_FLOOR(-(O + (p->q0 + (i <= m ? i : m)) * X)));
		}
	}
	const V v_ox = vset1(O + X), v_x = vset1(X), v_zero = vset1(0), v_neg = vset1(ST_NEG);
	for (int64_t s = 0; s < seg_len; s++)
		e_next[s] = vsubs(h_load[s], v_ox);

	hit->row = hit->col = -1;
	hit->score = NW_NEG_INF;
	const int top_free = p->local || p->ref_free;
	if (p->track == DP_TRACK_MAX) {
		hit->score = 0;
		hit->row = hit->col = 0;
	} else if (p->track == DP_TRACK_LASTROW || p->track == DP_TRACK_TARGET_LASTCOL) {
		hit->score = ST_CELL(h_load, seg_len, m - 1); /* the whole query against nothing */
		hit->row = 0;
		hit->col = m;
		if (p->track == DP_TRACK_TARGET_LASTCOL && hit->score == p->target)
			return 1;
	}
	if (out) /* H of the stripe's last row in column 0 */
		st_edge_put(out, 0, ST_CELL(h_load, seg_len, m - 1), 0, 0, &out_free);

	for (int64_t j = 1; j <= cols; j++) {
		if (p->stop_at && j > __atomic_load_n(p->stop_at, __ATOMIC_ACQUIRE))
			break; /* a stripe of the team reached the target in an earlier column */
		const V *vp = prof + (int64_t)p->r[j - 1] * seg_len;
		/* H of the row above in column j - 1, and the F entering the first row */
		int64_t top_prev, f_top;
		if (in) {
			if (j > in_ready) {
				in_ready = st_edge_wait(&in->done, j);
				/* the stripe above may have stopped, releasing the wait */
				if (p->stop_at && j > __atomic_load_n(p->stop_at, __ATOMIC_ACQUIRE))
					break;
			}
			top_prev = in->h[(j - 1) & ST_EDGE_MASK];
			f_top = in->f[j & ST_EDGE_MASK];
			if ((j & (ST_EDGE_STEP - 1)) == 0) /* columns up to j - 1 read */
				__atomic_store_n(&in->used, j - 1, __ATOMIC_RELEASE);
		} else {
			top_prev = top_free || j == 1 ? 0 : -(O + (j - 1) * X); /* H[0][j-1] */
			f_top = (top_free ? 0 : -(O + j * X)) - (O + X);
		}
		V vh = vshl1(h_load[seg_len - 1], ST_FLOOR(top_prev));
		V vf = vshl1(v_neg, ST_FLOOR(f_top));
		int32_t f_out = 0; /* the F entering the row below the stripe */
		V vmax_ = v_neg;
		if (scan) {
			/* Ht, and the F that each lane's own rows pass to the lane below */
			for (int64_t s = 0; s < seg_len; s++) {
				vh = vmax(vadds(vh, vp[s]), e_next[s]);
				if (p->local) /* Ht holds the 0 too: F from it is F from H */
					vh = vmax(vh, v_zero);
				vf = vmax(vsubs(vf, v_x), vsubs(vh, v_ox));
				V next = h_load[s];
				h_store[s] = vh;
				vh = next;
			}
			/* the F entering each lane: the one leaving the lane above, or that lane's
			 * own entering F carried down its seg_len rows; lane 0 starts at the top */
			_Alignas(64) LT leaving[VL], entering[VL];
			vstore(leaving, vshl1(vf, ST_FLOOR(f_top)));
			int64_t carry = ST_NEG, drop = seg_len * X;
			for (int l = 0; l < VL; l++) {
				carry = carry - drop > leaving[l] ? carry - drop : leaving[l];
				carry = carry < ST_NEG ? ST_NEG : carry;
				entering[l] = (LT)carry;
			}
			/* the column again, F now exact from the top of every lane */
			vf = vload(entering);
			for (int64_t s = 0; s < seg_len; s++) {
				V ht = h_store[s];
				V h = vmax(ht, vf);
				h_store[s] = h;
				vmax_ = vmax(vmax_, h);
				e_next[s] = vmax(vsubs(e_next[s], v_x), vsubs(h, v_ox));
				vf = vmax(vsubs(vf, v_x), vsubs(ht, v_ox));
			}
			if (out)
				f_out = ISA_FN(st_top_lane)(vf);
			goto column_done;
		}
		for (int64_t s = 0; s < seg_len; s++) {
			vh = vadds(vh, vp[s]);
			V ve = e_next[s];
			vh = vmax(vh, ve);
			vh = vmax(vh, vf);
			if (p->local)
				vh = vmax(vh, v_zero);
			h_store[s] = vh;
			vmax_ = vmax(vmax_, vh);
			V vho = vsubs(vh, v_ox);
			e_next[s] = vmax(vsubs(ve, v_x), vho);
			vf = vmax(vsubs(vf, v_x), vho);
			vh = h_load[s];
		}
		/* Lazy F: carry vertical gaps across lanes. Once the gap arriving at a segment is
		 * no better than opening one from the H already there (which the main loop did
		 * for the cells below), it can change nothing further down. */
		for (int k = 0; k < VL; k++) {
			vf = vshl1(vf, ST_NEG);
			for (int64_t s = 0; s < seg_len; s++) {
				V vh2 = h_store[s];
				if (!vany(vcmpgt(vf, vsubs(vh2, v_ox))))
					goto column_done;
				vh2 = vmax(vh2, vf);
				h_store[s] = vh2;
				vmax_ = vmax(vmax_, vh2);
				e_next[s] = vmax(e_next[s], vsubs(vh2, v_ox));
				vf = vsubs(vf, v_x);
			}
		}
column_done:
		if (out)
			st_edge_put(out, j, ST_CELL(h_store, seg_len, m - 1), f_out, j == cols,
				    &out_free);
		switch (p->track) {
		case DP_TRACK_MAX: {
			int32_t colmax = ISA_FN(st_hmax)(vmax_);
			if (colmax > hit->score) {
				hit->score = colmax;
				hit->row = j;
				owed = j;
			} else if (owed == j - 1 && owed > 0) {
				memcpy(best_col, h_load, (size_t)seg_len * sizeof(V));
				owed = 0;
			}
			break;
		}
		case DP_TRACK_LASTROW: {
			int32_t v = ST_CELL(h_store, seg_len, m - 1);
			if (v > hit->score) {
				hit->score = v;
				hit->row = j;
			}
			break;
		}
		case DP_TRACK_TARGET:
			if (ISA_FN(st_hmax)(vmax_) >= p->target) {
				int64_t i = ISA_FN(st_first)(h_store, seg_len, m, p->target);
				if (i >= 0) {
					hit->score = p->target;
					hit->row = j;
					hit->col = i + 1;
					return 1;
				}
			}
			break;
		case DP_TRACK_TARGET_LASTCOL:
			if (ST_CELL(h_store, seg_len, m - 1) == p->target) {
				hit->score = p->target;
				hit->row = j;
				hit->col = m;
				return 1;
			}
			break;
		default:
			break;
		}
		V *t = h_load;
		h_load = h_store;
		h_store = t;
	}
	if (p->track == DP_TRACK_MAX && hit->row > 0) /* an owed column is the last one */
		hit->col = ISA_FN(st_first)(owed ? h_load : best_col, seg_len, m, hit->score) + 1;
	if (stops)
		return 0; /* not reached within the columns that fit: the caller decides */
	if (p->track == DP_TRACK_NONE) {
		hit->score = ST_CELL(h_load, seg_len, m - 1);
		hit->row = p->n;
		hit->col = m;
	}
	return 1;
}
#undef ST_NEG
#undef ST_PAD
#undef ST_CELL
