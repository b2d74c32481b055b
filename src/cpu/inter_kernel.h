/* inter_kernel.h: the inter-sequence Gotoh pass (cpu_inter.h), written once for every
 * instruction set. cpu_inter.c includes it after simd_ops.h once per set; it defines
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
 */

/* Lane l of vector v in memory. */
#define LANE(vp, l) (((const int16_t *)(vp))[l])

static inline __attribute__((always_inline)) ISA_TARGET void
ISA_FN(pass_body)(const inter_pass_t *p, inter_hits_t *out, const int form, const int track,
		  const int dirs)
{
	enum { B = INTER_BLOCK };
	_Static_assert(4 * INTER_BLOCK <= 16, "a step's direction nibbles fill one 16-bit word");
	const int64_t rows = p->rows, cols = p->cols;
	V *H = (V *)p->H, *E = (V *)p->E, *P = (V *)p->P, *A = (V *)p->A;
	const int O = p->O, X = p->X, local = p->local, top_free = p->local || p->ref_free;
	const V vOX = vset1(O + X), vX = vset1(X), vNEG = vset1(-32768), vZ = vset1(0);
	const V vma = vset1(p->match), vmi = vset1(p->mismatch), v1 = vset1(1);
	/* tracks that read whole columns keep the block's first columns in A */
	const int keep = track != DP_TRACK_MAX;
	_Alignas(64) int16_t tmp[VL];
	int found[VL];
	int pending = 0;

	for (int64_t i = 1; i <= rows; i++) {
		vstore(&H[i], vset1(local ? 0 : -(O + i * X)));
		vstore(&E[i], vNEG);
	}
	V vtop = vZ;
	if (form == INTER_ANCHORED) { /* column 0 below each lane's own top row */
		for (int64_t i = 1; i <= rows; i++) {
			for (int l = 0; l < VL; l++)
				tmp[l] = (int16_t)(i < p->top[l] ? -32768 : i == p->top[l] ? 0
						   : -(O + (i - p->top[l]) * X));
			vstore(&H[i], vload(tmp));
		}
		for (int l = 0; l < VL; l++)
			tmp[l] = (int16_t)p->top[l];
		vtop = vload(tmp);
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
#ifdef VPERM32
	/* S[x] lane y: query code x against reference code y (the 32 lanes span every code) */
	V *S = P + B * NW_MAX_CODES;
	if (form == INTER_PROFILE || form == INTER_ANCHORED)
		for (int x = 0; x < p->n_codes; x++) {
			for (int y = 0; y < VL; y++)
				tmp[y] = p->st[y][x];
			vstore(&S[x], vload(tmp));
		}
#endif
	V best = vZ, best_i = vZ, best_j = vZ, vn = vZ, vtarget = vZ;
	if (track == DP_TRACK_MAX || track == DP_TRACK_TARGET) {
		for (int l = 0; l < VL; l++)
			tmp[l] = (int16_t)p->n[l];
		vn = vload(tmp);
		for (int l = 0; l < VL; l++)
			tmp[l] = (int16_t)p->target[l];
		vtarget = vload(tmp);
	}
	const int stops = track == DP_TRACK_TARGET || track == DP_TRACK_TARGET_LASTCOL;

	for (int64_t j0 = 1; j0 <= cols && (!stops || pending > 0); j0 += B) {
		V diag[B], f[B], R[B], colmax[B], colrow[B];
		VM fext[B]; /* dirs: F[i][j] extends F[i-1][j] (for the row about to be computed) */
		int top_here[B];
#pragma GCC unroll 8
		for (int c = 0; c < B; c++) {
			const int64_t j = j0 + c;
			const int top_prev = top_free || j == 1 ? 0 : -(O + (int)(j - 1) * X);
			top_here[c] = top_free ? 0 : -(O + (int)j * X);
			diag[c] = vset1(top_prev);                /* H[0][j-1] */
			f[c] = vset1(top_here[c] - (O + X));      /* F[1][j] */
			R[c] = vload(p->rc + (j - 1) * VL);
			colmax[c] = vNEG;
			colrow[c] = vZ;
			fext[c] = VMZERO;
			if (form == INTER_PROFILE || form == INTER_ANCHORED) { /* P[c][x] lane l: x vs column j */
#ifdef VPERM32
				for (int x = 0; x < p->n_codes; x++)
					vstore(&P[c * NW_MAX_CODES + x], vperm32(R[c], vload(&S[x])));
#else
				const int16_t *rcode = p->rc + (j - 1) * VL;
				for (int x = 0; x < p->n_codes; x++) {
					for (int l = 0; l < VL; l++)
						tmp[l] = p->st[rcode[l]][x];
					vstore(&P[c * NW_MAX_CODES + x], vload(tmp));
				}
#endif
			}
		}
		V vi = vZ;
		for (int64_t i = 1; i <= rows; i++) {
			V left = vload(&H[i]), el = vload(&E[i]), Q;
			if (form == INTER_MM || form == INTER_TABLE)
				Q = vload(p->qc + (i - 1) * VL);
			vi = vadds(vi, v1);
			V word = vZ;  /* dirs: the step's direction nibbles of row i */
			VM below, at; /* ANCHORED: lanes whose pass has started; at their top row */
			if (form == INTER_ANCHORED)
				below = vcmpgt(vi, vtop), at = vcmpeq(vi, vtop);
#pragma GCC unroll 8
			for (int c = 0; c < B; c++) {
				V s;
				if (form == INTER_PROFILE || form == INTER_ANCHORED)
					s = vload(&P[c * NW_MAX_CODES + p->qs[i - 1]]);
				else if (form == INTER_TABLE)
					s = vlookup(vadds(Q, R[c]), p->table);
				else
					s = vsel(vcmpeq(Q, R[c]), vmi, vma);
				V e, h;
				if (dirs) {
					const V ee = vsubs(el, vX), eo = vsubs(left, vOX), hd = vadds(diag[c], s);
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
				} else {
					e = vmax(vsubs(el, vX), vsubs(left, vOX));
					h = vmax(vadds(diag[c], s), e);
					h = vmax(h, f[c]);
				}
				if (local)
					h = vmax(h, vZ);
				if (form == INTER_ANCHORED)
					h = vsel(below, vsel(at, vNEG, vset1(top_here[c])), h);
				diag[c] = left;
				f[c] = vmax(vsubs(f[c], vX), vsubs(h, vOX));
				if (track == DP_TRACK_MAX) {
					colrow[c] = vsel(vcmpgt(h, colmax[c]), colrow[c], vi);
					colmax[c] = vmax(colmax[c], h);
				} else if (track == DP_TRACK_TARGET) {
					colmax[c] = vmax(colmax[c], h);
				}
				if (keep && c < B - 1)
					vstore(&A[c * (rows + 1) + i], h);
				left = h;
				el = e;
			}
			vstore(&H[i], left);
			vstore(&E[i], el);
			if (dirs)
				vstore(p->dir + (((j0 - 1) / B) * rows + i - 1) * VL, word);
		}

		/* the block's columns in order: the first to reach a value wins */
		for (int c = 0; c < B && j0 + c <= cols; c++) {
			const int64_t j = j0 + c;
			const V *col = c < B - 1 ? &A[c * (rows + 1)] : H;
			switch (track) {
			case DP_TRACK_MAX: {
				VM up = vmand(vcmpgt(colmax[c], best), vcmpgt(vn, vset1((int)j - 1)));
				best = vsel(up, best, colmax[c]);
				best_i = vsel(up, best_i, colrow[c]);
				best_j = vsel(up, best_j, vset1((int)j));
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
				if (!vany(vcmpgt(colmax[c], vsubs(vtarget, v1))))
					break;
				vstore(tmp, colmax[c]);
				for (int l = 0; l < VL; l++) {
					if (found[l] || j > p->n[l] || tmp[l] < p->target[l])
						continue;
					int32_t top = form == INTER_ANCHORED ? p->top[l] : 0;
					for (int32_t i = top + 1; i <= top + p->m[l]; i++)
						if (LANE(&col[i], l) == p->target[l]) {
							found[l] = 1, pending--;
							out->score[l] = p->target[l];
							out->row[l] = (int32_t)j, out->col[l] = i - top;
							break;
						}
				}
				break;
			default:
				break;
			}
		}
	}
	if (track == DP_TRACK_MAX) {
		vstore(tmp, best);
		for (int l = 0; l < VL; l++)
			out->score[l] = tmp[l];
		vstore(tmp, best_i);
		for (int l = 0; l < VL; l++)
			out->col[l] = tmp[l];
		vstore(tmp, best_j);
		for (int l = 0; l < VL; l++)
			out->row[l] = tmp[l];
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
INTER_CASES(INTER_MM, mm)
INTER_CASES(INTER_PROFILE, pr)
INTER_CASE(an_target, INTER_ANCHORED, DP_TRACK_TARGET)
INTER_DIR_CASE(mm_dir, INTER_MM)
INTER_DIR_CASE(tb_dir, INTER_TABLE)
#undef INTER_DIR_CASE
#undef INTER_CASES
#undef INTER_CASE

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
#undef LANE
