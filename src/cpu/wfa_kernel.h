/* wfa_kernel.h: one wavefront step of cpu_wfa.c (the columns of penalty s from its
 * sources) in vectors of 32-bit lanes, written once for every instruction set; cpu_wfa.c
 * includes it through simd_each.h (SIMD_ONLY_WIDE) and it defines ISA_FN(wf_step). The
 * generic instance is its scalar twin.
 *
 * Diagonal lo + t, for t in [0, count) in whole vectors: the arrays are padded so that a
 * step may read and write up to a vector past the last diagonal (what it writes there is
 * never read: those entries lie outside the wavefront's written range). A column j on
 * diagonal k lies in the matrix when j <= n and i = j - k <= m; the lower limits hold for
 * every source, and WF_NONE plus one stays far below 0.
 */
#if LANE_BITS == 32

static ISA_TARGET void ISA_FN(wf_step)(const wf_step_t *p)
{
	_Alignas(64) int32_t ramp_a[VL];
	for (int l = 0; l < VL; l++)
		ramp_a[l] = l;
	const V ramp = vload(ramp_a), none = vset1(WF_NONE), one = vset1(1), nv = vset1(p->n);
	const int32_t *xm = p->xm, *om = p->om, *ei = p->ei, *ed = p->ed;
	for (int32_t t = 0; t < p->count; t += VL) {
		/* jmax = min(n, m + k) */
		const V jmax = vmin(vadds(vset1(p->mk + t), ramp), nv);
		V ins = vadds(vmax(vloadu(om + t - 1), vloadu(ei + t - 1)), one);
		V del = vmax(vloadu(om + t + 1), vloadu(ed + t + 1));
		V sub = vadds(vloadu(xm + t), one);
		ins = vsel(vcmpgt(ins, jmax), ins, none);
		del = vsel(vcmpgt(del, jmax), del, none);
		sub = vsel(vcmpgt(sub, jmax), sub, none);
		vstoreu(p->wi + t, ins);
		vstoreu(p->wd + t, del);
		vstoreu(p->wm + t, vmax(vmax(sub, ins), del));
	}
}

#endif
