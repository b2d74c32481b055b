/* inter_diff_kernel.h: the global match/mismatch pass in 8-bit lanes, by differences
 * (the recurrence of Suzuki and Kasahara). inter_kernel.h includes it in its 8-bit
 * instance, once per instruction set; it defines ISA_FN(diff_none).
 *
 * A global pass's cells leave 8 bits within a few rows, but the differences between
 * neighbours do not. With H, E (horizontal gaps) and F (vertical gaps) as in
 * inter_kernel.h, and for cell (i, j):
 *   u = H(i,j) - H(i-1,j), v = H(i,j) - H(i,j-1)       (vertical and horizontal steps)
 *   e = E(i,j+1) - H(i,j),  f = F(i+1,j) - H(i,j)       (the gap states one cell on)
 * the recurrence is, with z = H(i,j) - H(i-1,j-1), a = e(i,j-1) + u(i,j-1) and
 * b = f(i-1,j) + v(i-1,j) (E(i,j) and F(i,j) less the diagonal cell):
 *   z = max(s(i,j), a, b)
 *   u(i,j) = z - v(i-1,j),  v(i,j) = z - u(i,j-1)
 *   e(i,j) = max(a - z, -O) - X,  f(i,j) = max(b - z, -O) - X
 * Every one of them is bounded by the scores alone: u and v lie in [-(O+X), ma+O+X] (a
 * path to (i,j) gives one to (i-1,j) that leaves its last row earlier, at most O+X+ma
 * worse), e and f in [-(O+X), -X], z in [-2(O+X), 2(ma+O+X)] (and z >= a >= -2(O+X), so a
 * mismatch below that scores as -2(O+X) without changing z). The lanes keep u, v, e and f
 * plus X, which makes each update one operation:
 *   Z = max(s + 2X, A, B) with A = e~ + u~, B = f~ + v~; u~ = Z - v~, v~ = Z - u~;
 *   e~ = max(A - Z, -O), f~ = max(B - Z, -O)
 * (14 operations a cell with the match test, for 64 lanes of AVX-512 where the 16-bit
 * pass runs 11 for 32). cpu_inter.c's diff_ok holds every intermediate within +-127:
 * 2 ma + 4 (O + X) <= 126.
 *
 * The score of lane l is H(m,n) = H(0,n) + sum of u(i,n) over rows 1..m: the block's
 * first columns of u~ are kept in A (the last is the row state), and the lanes that end
 * in a column add theirs up in 32 bits. Lanes past their lengths run on over padding,
 * which mismatches everything: a valid pass of longer sequences, whose differences keep
 * the same bounds.
 */

static ISA_TARGET void ISA_FN(diff_none)(const inter_pass_t *p, inter_hits_t *out)
{
	enum { B = INTER_BLOCK };
	const int64_t rows = p->rows, cols = p->cols;
	V *U = (V *)p->H, *E = (V *)p->E, *A = (V *)p->A;
	const LT *qc = (const LT *)p->qc, *rc = (const LT *)p->rc;
	const int O = p->O, X = p->X;
	const int low = -2 * (O + X); /* z's floor, where a mismatch below it is held */
	const V vma = vset1(p->match + 2 * X);
	const V vmi = vset1((p->mismatch > low ? p->mismatch : low) + 2 * X);
	const V vfloor = vset1(-O);

	/* column 0: u(1,0) = -(O+X), u(i,0) = -X below; e(i,0) = -(O+X) (no E in column 0) */
	for (int64_t i = 1; i <= rows; i++) {
		vstore(&U[i], vset1(i == 1 ? -O : 0));
		vstore(&E[i], vfloor);
	}
	for (int l = 0; l < VL; l++) { /* H(m,0), and n = 0 lanes are done */
		out->score[l] = p->m[l] == 0 ? 0 : -(O + p->m[l] * X);
		out->row[l] = 0;
		out->col[l] = p->m[l];
	}
	for (int64_t j0 = 1; j0 <= cols; j0 += B) {
		V vv[B], ff[B], R[B];
#pragma GCC unroll 8
		for (int c = 0; c < B; c++) { /* row 0: v(0,1) = -(O+X), v(0,j) = -X; f = -(O+X) */
			vv[c] = vset1(j0 + c == 1 ? -O : 0);
			ff[c] = vfloor;
			R[c] = vload(rc + (j0 - 1 + c) * VL);
		}
		for (int64_t i = 1; i <= rows; i++) {
			V u = vload(&U[i]), e = vload(&E[i]);
			const V Q = vload(qc + (i - 1) * VL);
#pragma GCC unroll 8
			for (int c = 0; c < B; c++) {
				const V s = vsel(vcmpeq(Q, R[c]), vmi, vma);
				const V a = vadds(e, u), b = vadds(ff[c], vv[c]);
				const V z = vmax(vmax(s, a), b);
				const V un = vsubs(z, vv[c]);
				vv[c] = vsubs(z, u);
				e = vmax(vsubs(a, z), vfloor);
				ff[c] = vmax(vsubs(b, z), vfloor);
				u = un;
				if (c < B - 1)
					vstore(&A[c * (rows + 1) + i], u);
			}
			vstore(&U[i], u);
			vstore(&E[i], e);
		}
		for (int c = 0; c < B && j0 + c <= cols; c++) {
			const int64_t j = j0 + c;
			const LT *col = (const LT *)(c < B - 1 ? &A[c * (rows + 1)] : U);
			for (int l = 0; l < VL; l++) {
				if (p->n[l] != j)
					continue;
				int32_t h = -(O + (int32_t)j * X); /* H(0,j) */
				for (int32_t i = 1; i <= p->m[l]; i++)
					h += col[i * VL + l] - X;
				out->score[l] = h;
				out->row[l] = (int32_t)j;
			}
		}
	}
}
