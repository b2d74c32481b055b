/* inter_kernel.h: the inter-sequence Gotoh pass (cpu_inter.h), written once for every
 * instruction set. cpu_inter.c includes it after simd_ops.h once per set; it defines
 * ISA_FN(inter_pass).
 *
 * The outer loop walks the reference columns j, the inner loop the query rows i, with the
 * column of H and the row-wise horizontal-gap state E in memory and the vertical-gap state
 * F in a register; the recurrence and the boundaries are nw_dp_pass's and the striped
 * pass's. Walking columns outermost gives the tie rules directly: the first column to
 * reach a value is the smallest reference end, and within a column the first row (kept
 * cell by cell for the local maximum) the smallest query end.
 */

/* Lane l of vector v in memory. */
#define LANE(vp, l) (((const int16_t *)(vp))[l])

static inline __attribute__((always_inline)) ISA_TARGET void
ISA_FN(pass_body)(const inter_pass_t *p, inter_hits_t *out, const int profile, const int track)
{
	const int64_t rows = p->rows, cols = p->cols;
	V *H = (V *)p->H, *E = (V *)p->E, *P = (V *)p->P;
	const int O = p->O, X = p->X, local = p->local, top_free = p->local || p->ref_free;
	const V vOX = vset1(O + X), vX = vset1(X), vNEG = vset1(-32768), vZ = vset1(0);
	const V vma = vset1(p->match), vmi = vset1(p->mismatch), v1 = vset1(1);
	_Alignas(64) int16_t tmp[VL];
	int found[VL];
	int pending = 0;

	for (int64_t i = 1; i <= rows; i++) {
		vstore(&H[i], vset1(local ? 0 : -(O + i * X)));
		vstore(&E[i], vNEG);
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

	for (int64_t j = 1; j <= cols && (!stops || pending > 0); j++) {
		const int top_prev = top_free || j == 1 ? 0 : -(O + (int)(j - 1) * X); /* H[0][j-1] */
		const int top_here = top_free ? 0 : -(O + (int)j * X);               /* H[0][j] */
		const V R = vload(p->rc + (j - 1) * VL);
		if (profile) { /* P[c] lane l: query code c against lane l's reference at column j */
			const int16_t *rcode = p->rc + (j - 1) * VL;
			for (int c = 0; c < p->n_codes; c++) {
				for (int l = 0; l < VL; l++)
					tmp[l] = p->st[rcode[l]][c];
				vstore(&P[c], vload(tmp));
			}
		}
		V diag = vset1(top_prev), f = vset1(top_here - (O + X));
		V colmax = vNEG, colrow = vZ, vi = vZ;
		for (int64_t i = 1; i <= rows; i++) {
			V s;
			if (profile)
				s = vload(&P[p->qs[i - 1]]);
			else
				s = vsel(vcmpeq(vload(p->qc + (i - 1) * VL), R), vmi, vma);
			V hl = vload(&H[i]);
			V e = vmax(vsubs(vload(&E[i]), vX), vsubs(hl, vOX));
			V h = vadds(diag, s);
			h = vmax(h, e);
			h = vmax(h, f);
			if (local)
				h = vmax(h, vZ);
			diag = hl;
			vstore(&H[i], h);
			vstore(&E[i], e);
			f = vmax(vsubs(f, vX), vsubs(h, vOX));
			if (track == DP_TRACK_MAX) {
				vi = vadds(vi, v1);
				colrow = vsel(vcmpgt(h, colmax), colrow, vi);
				colmax = vmax(colmax, h);
			} else if (track == DP_TRACK_TARGET) {
				colmax = vmax(colmax, h);
			}
		}

		switch (track) {
		case DP_TRACK_MAX: {
			const V vj = vset1((int)j);
			VM up = vmand(vcmpgt(colmax, best), vcmpgt(vn, vset1((int)j - 1)));
			best = vsel(up, best, colmax);
			best_i = vsel(up, best_i, colrow);
			best_j = vsel(up, best_j, vj);
			break;
		}
		case DP_TRACK_LASTROW:
			for (int l = 0; l < VL; l++) {
				int32_t m = p->m[l];
				if (j > p->n[l])
					continue;
				int32_t v = m ? LANE(&H[m], l) : top_here;
				if (v > out->score[l])
					out->score[l] = v, out->row[l] = (int32_t)j;
			}
			break;
		case DP_TRACK_NONE:
			for (int l = 0; l < VL; l++)
				if (p->n[l] == j) {
					out->score[l] = p->m[l] ? LANE(&H[p->m[l]], l) : top_here;
					out->row[l] = (int32_t)j;
				}
			break;
		case DP_TRACK_TARGET_LASTCOL:
			for (int l = 0; l < VL; l++) {
				int32_t m = p->m[l];
				if (found[l] || j > p->n[l])
					continue;
				int32_t v = m ? LANE(&H[m], l) : top_here;
				if (v == p->target[l]) {
					found[l] = 1, pending--;
					out->score[l] = v, out->row[l] = (int32_t)j, out->col[l] = m;
				}
			}
			break;
		case DP_TRACK_TARGET:
			if (!vany(vcmpgt(colmax, vsubs(vtarget, v1))))
				break;
			vstore(tmp, colmax);
			for (int l = 0; l < VL; l++) {
				if (found[l] || j > p->n[l] || tmp[l] < p->target[l])
					continue;
				for (int32_t i = 1; i <= p->m[l]; i++)
					if (LANE(&H[i], l) == p->target[l]) {
						found[l] = 1, pending--;
						out->score[l] = p->target[l];
						out->row[l] = (int32_t)j, out->col[l] = i;
						break;
					}
			}
			break;
		default:
			break;
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
#define INTER_CASE(name, profile, track)                                                   \
	static ISA_TARGET void ISA_FN(name)(const inter_pass_t *p, inter_hits_t *out)        \
	{                                                                                    \
		ISA_FN(pass_body)(p, out, profile, track);                                  \
	}
INTER_CASE(mm_max, 0, DP_TRACK_MAX)
INTER_CASE(mm_lastrow, 0, DP_TRACK_LASTROW)
INTER_CASE(mm_none, 0, DP_TRACK_NONE)
INTER_CASE(mm_target, 0, DP_TRACK_TARGET)
INTER_CASE(mm_target_lastcol, 0, DP_TRACK_TARGET_LASTCOL)
INTER_CASE(pr_max, 1, DP_TRACK_MAX)
INTER_CASE(pr_lastrow, 1, DP_TRACK_LASTROW)
INTER_CASE(pr_none, 1, DP_TRACK_NONE)
#undef INTER_CASE

static void ISA_FN(inter_pass)(const inter_pass_t *p, inter_hits_t *out)
{
	int pr = p->qs != NULL;
	switch (p->track) {
	case DP_TRACK_MAX:
		(pr ? ISA_FN(pr_max) : ISA_FN(mm_max))(p, out);
		break;
	case DP_TRACK_LASTROW:
		(pr ? ISA_FN(pr_lastrow) : ISA_FN(mm_lastrow))(p, out);
		break;
	case DP_TRACK_NONE:
		(pr ? ISA_FN(pr_none) : ISA_FN(mm_none))(p, out);
		break;
	case DP_TRACK_TARGET:
		ISA_FN(mm_target)(p, out);
		break;
	default:
		ISA_FN(mm_target_lastcol)(p, out);
		break;
	}
}
#undef LANE
