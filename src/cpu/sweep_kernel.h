/* sweep_kernel.h: the pruned sweep of cpu_prune.c in vectors laid along a row (32-bit
 * lanes), written once for every instruction set; cpu_prune.c includes it through
 * simd_each.h (SIMD_ONLY_WIDE) and it defines ISA_FN(sweep). nw_sweep is its scalar twin.
 *
 * A row is swept VL columns at a time. The vertical-gap state F and the diagonal depend
 * only on the row above; the horizontal-gap state E along the row is settled by a prefix
 * scan: with h0 = max(diagonal, F), E[j] = max over k < j of h0[k] - O - X * (j - k), and
 * the gap that runs in from the left of the vector, max(E - X, H - O - X) of the column
 * before it, less X a column. (A gap opened after an E cell is never better than that E
 * continued, so H = max(h0, E) may be replaced by h0 inside the scan.) The scan takes
 * log2(VL) shifted maxima.
 *
 * Pruning (cpu_prune.c) marks a cell dead when v + rest_bound < target - bonus, and dead
 * cells are stored as SW_NEG. Unlike the scalar sweep, a cell right of a dead one in the
 * same vector may still take a gap that runs through it (the kill comes after the scan):
 * that value is a real path's score, so every value stays between the scalar sweep's and
 * the full pass's, cells on an optimal path keep their exact values, and the split, the
 * traceback and every result are those of the scalar sweep (the proof at the top of
 * cpu_prune.c holds for any values in that range). The rows read outside the previous
 * row's swept columns are SW_NEG: the caller's buffers start so, and each row puts SW_NEG
 * back where the row before it swept and it did not.
 *
 * A pass that stops at a target (a start's reverse pass) stops after the first row that
 * meets the rule: those cells reach the target only on an optimal path, where they are
 * exact, so the row and column are nw_sweep's.
 */
#if LANE_BITS == 32

static ISA_TARGET int64_t ISA_FN(sweep)(const sweep_job_t *jb)
{
	const nw_sweep_t *p = jb->p;
	const int64_t nb = p->nb, rows = p->rows, need = p->target - p->bonus;
	const int32_t X = (int32_t)p->X, OX = (int32_t)(p->O + p->X);
	const int prune = p->target > NW_NEG_INF;
	const size_t stride = (size_t)nb + 1;
	int32_t *H[2] = {jb->H[0], jb->H[1]}, *F = jb->F;
	int64_t wlo[2] = {1, 1}, whi[2] = {nb + 1, 1}, flo = 1, fhi = 1; /* swept columns */
	_Alignas(64) int32_t ramp_a[VL], lane_a[VL];
	for (int l = 0; l < VL; l++) {
		ramp_a[l] = l * X;
		lane_a[l] = l;
	}
	const V negv = vset1(SW_NEG), deadv = vset1(SW_DEAD), ramp = vload(ramp_a);
	const V lanes = vload(lane_a), Xv = vset1(X), OXv = vset1(OX), Ov = vset1(p->O);
	const V needv = vset1(prune ? need : 0), nbv = vset1(nb);
#if VL > 2
	const V X2 = vset1(2 * X);
#endif
#if VL > 4
	const V X4 = vset1(4 * X);
#endif
#if VL > 8
	const V X8 = vset1(8 * X);
#endif
	int64_t lo = jb->lo, hi = jb->hi, cells = 0;

	for (int64_t i = 1; i <= p->na; i++) {
		const int32_t *Hp = H[(i - 1) & 1];
		int32_t *Hc = H[i & 1];
		const int16_t *pr = jb->prof + (size_t)jb->slot[p->a[i - 1]] * jb->stride;
		const int32_t *G = jb->G + (rows - i); /* G[j]: the corner's gap term at (i, j) */
		uint8_t *d = p->dir ? p->dir + (size_t)i * stride : NULL;
		const int64_t col0 = -(p->col0_open + i * p->X);
		const int col0_live = !prune || col0 + p->O + rest_bound(p, i, 0) >= need;
		Hc[0] = F[0] = col0_live ? (int32_t)col0 : SW_NEG;
		int64_t js = col0_live ? 1 : (lo > 1 ? lo : 1), j, nlo = col0_live ? 0 : -1, nhi = nlo;
		V hcar = vset1(Hc[0]), ecar = negv;
		const V sqv = vset1(prune ? p->sq[i] : 0);
		for (j = js; j <= nb; j += VL) {
			/* past the row above's last live cell, only a live gap from the left goes on */
			if (j > hi + 1 && !(vmaskbits(vcmpgt(vmax(hcar, ecar), deadv)) & 1))
				break;
			V up = vloadu(Hp + j), fp = vloadu(F + j);
			V fo = vsubs(up, OXv), fe = vsubs(fp, Xv), f = vmax(fo, fe);
			V hd = vadds(vloadu(Hp + j - 1), vload16(pr + j));
			V h0 = vmax(hd, f);
			V e = vsubs(vshlk(h0, negv, 1), OXv);
			e = vmax(e, vsubs(vshlk(e, negv, 1), Xv));
#if VL > 2
			e = vmax(e, vsubs(vshlk(e, negv, 2), X2));
#endif
#if VL > 4
			e = vmax(e, vsubs(vshlk(e, negv, 4), X4));
#endif
#if VL > 8
			e = vmax(e, vsubs(vshlk(e, negv, 8), X8));
#endif
			e = vmax(e, vsubs(vmax(vsubs(ecar, Xv), vsubs(hcar, OXv)), ramp));
			V h = vmax(h0, e);
			if (d) { /* path_full's bits, with its ties */
				V ee = vsubs(vshlk(e, ecar, 1), Xv), eo = vsubs(vshlk(h, hcar, 1), OXv);
				V src = vsel(vcmpgt(f, vmax(hd, e)), vbits(vcmpgt(e, hd), FROM_E),
					     vset1(FROM_F));
				V bits = vor(vor(src, vbits(vcmpgt(fe, fo), F_EXTENDS)),
					     vbits(vcmpgt(ee, eo), E_EXTENDS));
				vstore8(d + j, bits);
			}
			const int tail = j + VL - 1 > nb;
			if (prune || tail) {
				VM dead = vcmpgt(negv, negv);
				if (prune) {
					V v = vmax(h, vadds(vmax(e, f), Ov));
					V thr = vsubs(vadds(needv, vloadu(G + j)),
						      vmin(sqv, vloadu(jb->sr + j)));
					dead = vcmpgt(thr, v);
				}
				if (tail) /* columns past nb */
					dead = vmor(dead, vcmpgt(vadds(lanes, vset1(j)), nbv));
				h = vsel(dead, h, negv);
				e = vsel(dead, e, negv);
				f = vsel(dead, f, negv);
				unsigned live = ~vmaskbits(dead) & ((1u << VL) - 1);
				if (live) {
					nlo = nlo < 0 ? j + __builtin_ctz(live) : nlo;
					nhi = j + 31 - __builtin_clz(live);
				}
			} else {
				nlo = nlo < 0 ? j : nlo;
				nhi = j + VL - 1;
			}
			vstoreu(Hc + j, h);
			vstoreu(F + j, f);
			hcar = vlast(h);
			ecar = vlast(e);
		}
		cells += (j < nb + 1 ? j : nb + 1) - js;
		/* SW_NEG back where the row two above (Hc) and the row above (F) were swept */
		sweep_clear(Hc, wlo[i & 1], whi[i & 1], js, j);
		sweep_clear(F, flo, fhi, js, j);
		wlo[i & 1] = flo = js;
		whi[i & 1] = fhi = j;
		if (prune) {
			if (nlo < 0) {
				if (p->failed)
					p->failed->cells = cells, p->failed->row = i;
				return NW_ERR_INTERNAL;
			}
			lo = nlo;
			hi = nhi;
		}
		/* a target's stop rule, as nw_sweep's: the first row whose last column holds
		 * the target, or with a cell at or above it (its first such column) */
		if (p->stop == NW_SWEEP_TARGET_LASTCOL && js <= nb && j > nb && Hc[nb] == p->target) {
			*jb->stop_row = i, *jb->stop_col = nb;
			return cells;
		}
		if (p->stop == NW_SWEEP_TARGET)
			for (int64_t k = col0_live ? 0 : js; k < j && k <= nb; k++)
				if (Hc[k] >= p->target) {
					*jb->stop_row = i, *jb->stop_col = k;
					return cells;
				}
	}
	return cells;
}

#endif
