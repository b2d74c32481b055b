/* dp_cell.cuh: the Gotoh cell recurrence shared by every GPU kernel and by the scalar
 * twin (a plain row-by-row DP on the host) that the kernels are tested against.
 *
 * Everything here is __host__ __device__ so that the exact same arithmetic runs in the
 * kernels, in the twin and in the host emulation of the kernels' thread logic.
 *
 * Recurrence (i: query row, j: reference column, s = score[q_i][r_j]):
 *   E[i][j] = max(E[i][j-1] - Ext, H[i][j-1] - O - Ext)   horizontal gap, consumes ref
 *   F[i][j] = max(F[i-1][j] - Ext, H[i-1][j] - O - Ext)   vertical gap, consumes query
 *   H[i][j] = max(H[i-1][j-1] + s, E[i][j], F[i][j] [, 0 for local])
 * Kernels keep E "one column ahead" and F "one row ahead": after a cell, e holds E[i][j+1]
 * and f holds F[i+1][j]; both need only H[i][j] - O - Ext, computed once.
 */
#ifndef NW_GPU_DP_CELL_CUH
#define NW_GPU_DP_CELL_CUH

#include <stdint.h>
#include <cuda_runtime.h>

#define NW_HD __host__ __device__ __forceinline__

/* A load of data another SM wrote during this launch (a long pass's border rows, a path
 * staircase's): from L2, not a stale L1 line. */
template <class V>
NW_HD V nw_ld_cg(const V *p)
{
#ifdef __CUDA_ARCH__
	return __ldcg(p);
#else
	return *p;
#endif
}

/* ---------------------------------------------------------------- lane types
 * A lane type packs one or more scores into a register V and provides the few
 * operations of the recurrence. L16: two int16 lanes (two pairs per thread), DPX on
 * sm_90. L32: one int32 lane, DPX. L64: one int64 lane for huge long pairs. */
struct nw_l16 {
	typedef uint32_t V;
	enum { LANES = 2, BITS = 16 };
	static NW_HD V splat(int32_t x) { uint32_t u = (uint16_t)(int16_t)x; return u | (u << 16); }
	static NW_HD V pack(int32_t lo, int32_t hi)
	{
		return (uint32_t)(uint16_t)(int16_t)lo | ((uint32_t)(uint16_t)(int16_t)hi << 16);
	}
	static NW_HD V pack2(int64_t lo, int64_t hi) { return pack((int32_t)lo, (int32_t)hi); }
	static NW_HD int32_t lane(V v, int k) { return (int16_t)(uint16_t)(k ? v >> 16 : v & 0xffffu); }
	static NW_HD V add(V a, V b)
	{
#ifdef __CUDA_ARCH__
		return __vadd2(a, b);
#else
		return ((a + b) & 0xffffu) | (((a >> 16) + (b >> 16)) << 16);
#endif

	}
	static NW_HD V max2(V a, V b)
	{
#ifdef __CUDA_ARCH__
		return __vmaxs2(a, b);
#else
		int32_t l = lane(a, 0) > lane(b, 0) ? lane(a, 0) : lane(b, 0);
		int32_t h = lane(a, 1) > lane(b, 1) ? lane(a, 1) : lane(b, 1);
		return pack(l, h);
#endif
	}
	static NW_HD V max3(V a, V b, V c) { return __vimax3_s16x2(a, b, c); }
	static NW_HD V max3_relu(V a, V b, V c) { return __vimax3_s16x2_relu(a, b, c); }
	static NW_HD V addmax(V a, V b, V c) { return __viaddmax_s16x2(a, b, c); }
	static NW_HD V addmax_relu(V a, V b, V c) { return __viaddmax_s16x2_relu(a, b, c); }
	/* max(a, b); ge[k] = lane k of a >= lane k of b. Not __vibmax_s16x2: its sm_90 inline
	 * asm (CUDA 13.0) writes the result before re-reading a without an early-clobber, so
	 * when the compiler gives both one register (best = bmax(best, x)) the predicates are
	 * always true. A lane of a is >= b exactly when the max left it unchanged. */
	static NW_HD V bmax(V a, V b, bool *ge)
	{
		V r = max2(a, b), d = r ^ a;
		ge[0] = (d & 0xffffu) == 0;
		ge[1] = (d >> 16) == 0;
		return r;
	}
	static NW_HD V lowest() { return 0x80008000u; }
};

struct nw_l32 {
	typedef int32_t V;
	enum { LANES = 1, BITS = 32 };
	static NW_HD V splat(int64_t x) { return (int32_t)x; }
	static NW_HD V pack2(int64_t a, int64_t) { return (int32_t)a; }
	static NW_HD int64_t lane(V v, int) { return v; }
	static NW_HD V add(V a, V b) { return a + b; }
	static NW_HD V max2(V a, V b) { return a > b ? a : b; }
	static NW_HD V max3(V a, V b, V c) { return __vimax3_s32(a, b, c); }
	static NW_HD V max3_relu(V a, V b, V c) { return __vimax3_s32_relu(a, b, c); }
	static NW_HD V addmax(V a, V b, V c) { return __viaddmax_s32(a, b, c); }
	static NW_HD V addmax_relu(V a, V b, V c) { return __viaddmax_s32_relu(a, b, c); }
	static NW_HD V bmax(V a, V b, bool *ge) { *ge = a >= b; return *ge ? a : b; }
	static NW_HD V lowest() { return INT32_MIN; }
};

struct nw_l64 {
	typedef int64_t V;
	enum { LANES = 1, BITS = 64 };
	static NW_HD V splat(int64_t x) { return x; }
	static NW_HD V pack2(int64_t a, int64_t) { return a; }
	static NW_HD int64_t lane(V v, int) { return v; }
	static NW_HD V add(V a, V b) { return a + b; }
	static NW_HD V max2(V a, V b) { return a > b ? a : b; }
	static NW_HD V max3(V a, V b, V c) { return max2(max2(a, b), c); }
	static NW_HD V max3_relu(V a, V b, V c) { return max2(max3(a, b, c), (V)0); }
	static NW_HD V addmax(V a, V b, V c) { return max2(a + b, c); }
	static NW_HD V addmax_relu(V a, V b, V c) { return max2(max2(a + b, c), (V)0); }
	static NW_HD V bmax(V a, V b, bool *ge) { *ge = a >= b; return a >= b ? a : b; }
	static NW_HD V lowest() { return INT64_MIN; }
};

/* A cell in two parts. X = max(H[i-1][j-1] + s, E[i][j]) (and 0, local) does not wait for
 * the row above; nw_cell_rest() finishes the cell from X. hd = H[i-1][j-1], s = substitution
 * score, e = E[i][j] (in) / E[i][j+1] (out), f = F[i][j] (in) / F[i+1][j] (out), hup =
 * H[i-1][j] (the linear form only); nw_cell_rest() returns H[i][j] (the shifted form:
 * H[i][j] - O - Ext, from X = H[i-1][j-1] + s alone). */
template <class L, bool RELU>
NW_HD typename L::V nw_cell_x(typename L::V hd, typename L::V s, typename L::V e)
{
	return RELU ? L::addmax_relu(hd, s, e) : L::addmax(hd, s, e);
}

/* The shifted form's H = max(X, E, F [, 0]) with X = H[i-1][j-1] + s: nw_cell_rest() takes
 * it less O + Ext, and nw_sweep keeps the last row's for the thread below. */
template <class L, bool RELU>
NW_HD typename L::V nw_cell_h(typename L::V x, typename L::V e, typename L::V f)
{
	return RELU ? L::max3_relu(x, e, f) : L::max3(x, e, f);
}

/* The cell forms (nw_sweep's CELL):
 *  NW_CELL_FIVE: H = max(X, F), and H - O - Ext feeds both E and F. Five operations a cell
 *    with X.
 *  NW_CELL_FCHAIN: one operation, not three, between F[i][j] and F[i+1][j] (a thread's rows
 *    run down this chain every step). Gap opening is never negative, so H[i][j] - O - Ext =
 *    max(X, F[i][j]) - O - Ext with F[i][j] - O - Ext <= F[i][j] - Ext, hence
 *      F[i+1][j] = max(F[i][j] - Ext, X - O - Ext).
 *    Six operations: for kernels whose steps wait on the chain of R rows (a warp or two an
 *    SM: the long kernels) rather than on issue (the batch kernels).
 *  NW_CELL_LINEAR: gap opening 0, where E[i][j+1] = H[i][j] - Ext and F[i+1][j] = H[i][j] -
 *    Ext (the affine recurrence with O = 0: E and F never exceed H), so
 *      H[i][j] = max(H[i-1][j-1] + s, H[i][j-1] - Ext, H[i-1][j] - Ext),
 *    e holds H[i][j-1] - Ext (in) / H[i][j] - Ext (out) and f is unused. Three operations,
 *    one of them on the chain down a thread's rows, and no F to pass between threads.
 *  NW_CELL_FLOOR: the five-operation form with H raised to at least lo: H = max(X, F, lo),
 *    one three-way max instead of a two-way one. E and F then stay above lo - O - 2 Ext,
 *    so 16-bit lanes cannot wrap however low the true values go. A raised cell is above
 *    its true value, but below any value that can still reach the pass's target (see
 *    nw_floor16 in gpu_plan.cu), so every cell at or above its target is exact.
 *  NW_CELL_SHIFTED: the five operations with the two additions on their own, and the thread's
 *    H registers holding Ho = H - O - Ext, its scores raised by O + Ext:
 *      X = Ho[i-1][j-1] + (s + O + Ext)               (= H[i-1][j-1] + s, no maximum),
 *      Ho[i][j] = max(X, E[i][j], F[i][j] [, 0]) - O - Ext   (one three-way maximum),
 *      E[i][j+1] = max(E[i][j] - Ext, Ho[i][j]),  F[i+1][j] = max(F[i][j] - Ext, Ho[i][j]).
 *    On sm_90 a 16-bit pair's addition (VIADD.16x2) issues to the FMA pipe and its maxima
 *    to the integer pipe, at the same rate, so a cell takes three operations of the
 *    integer pipe, not four, and two of the FMA pipe (bench/RESULTS.md). The caller keeps
 *    everything else in true values: the row above arrives as H and is shifted once a
 *    step, and the last row leaves as H. */
enum { NW_CELL_FIVE = 0, NW_CELL_FCHAIN = 1, NW_CELL_LINEAR = 2, NW_CELL_FLOOR = 3, NW_CELL_SHIFTED = 4 };

template <class L, int CELL, bool RELU = false>
NW_HD typename L::V nw_cell_rest(typename L::V x, typename L::V &e, typename L::V &f, typename L::V hup,
				 typename L::V neg_oe, typename L::V neg_e, typename L::V lo = 0)
{
	typedef typename L::V V;
	if (CELL == NW_CELL_LINEAR) {
		V hn = L::addmax(hup, neg_e, x);
		e = L::add(hn, neg_e);
		return hn;
	}
	if (CELL == NW_CELL_SHIFTED) { /* x: H[i-1][j-1] + s; returns Ho */
		const V ho = L::add(nw_cell_h<L, RELU>(x, e, f), neg_oe);
		e = L::addmax(e, neg_e, ho);
		f = L::addmax(f, neg_e, ho);
		return ho;
	}
	V hn = CELL == NW_CELL_FLOOR ? L::max3(x, f, lo) : L::max2(x, f);
	if (CELL == NW_CELL_FCHAIN) {
		f = L::addmax(f, neg_e, L::add(x, neg_oe));
		e = L::addmax(e, neg_e, L::add(hn, neg_oe));
	} else {
		V ho = L::add(hn, neg_oe);
		e = L::addmax(e, neg_e, ho);
		f = L::addmax(f, neg_e, ho);
	}
	return hn;
}

/* One whole cell in the five-operation form (the scalar twin). */
template <class L, bool RELU>
NW_HD typename L::V nw_cell(typename L::V hd, typename L::V s, typename L::V &e,
			    typename L::V &f, typename L::V neg_oe, typename L::V neg_e)
{
	return nw_cell_rest<L, NW_CELL_FIVE>(nw_cell_x<L, RELU>(hd, s, e), e, f, 0, neg_oe, neg_e);
}

/* ---------------------------------------------------------------- DP problems
 * Every score/coordinate request is one or two DP problems: a forward pass (score and
 * end) and, for local and semiglobal, a reverse pass over the reversed prefixes anchored
 * at the end (start). The reverse problems use global borders (the alignment must touch
 * the anchor) and no zero floor. */
enum nw_dp_kind {
	NW_DP_GLOBAL = 0,     /* result H[m][n] */
	NW_DP_LOCAL = 1,      /* max cell, smallest j then smallest i */
	NW_DP_SEMI = 2,       /* max of the last row over j in [0, n], smallest j */
	NW_DP_REV_LOCAL = 3,  /* like LOCAL, global borders, no floor */
	NW_DP_REV_SEMI = 4    /* like SEMI, global borders */
};

struct nw_dp_rules {
	bool relu;      /* H floored at 0 */
	bool top_gap;   /* H[0][j] = -(O + j*Ext), else 0 */
	bool left_gap;  /* H[i][0] = -(O + i*Ext), else 0 */
	bool track;     /* result is the max over all cells (else last row) */
	bool last_all;  /* last-row result over all j (else only j = n) */
};

NW_HD nw_dp_rules nw_rules(int kind)
{
	nw_dp_rules r;
	r.relu = kind == NW_DP_LOCAL;
	r.top_gap = kind == NW_DP_GLOBAL || kind == NW_DP_REV_LOCAL || kind == NW_DP_REV_SEMI;
	r.left_gap = kind != NW_DP_LOCAL;
	r.track = kind == NW_DP_LOCAL || kind == NW_DP_REV_LOCAL;
	r.last_all = kind == NW_DP_SEMI || kind == NW_DP_REV_SEMI;
	return r;
}

/* Border values (i, j >= 0; index 0 is the corner, which is 0 in every mode). */
NW_HD int64_t nw_top_border(const nw_dp_rules &ru, int64_t O, int64_t E, int64_t j)
{
	return (j > 0 && ru.top_gap) ? -(O + j * E) : 0;
}
NW_HD int64_t nw_left_border(const nw_dp_rules &ru, int64_t O, int64_t E, int64_t i)
{
	return (i > 0 && ru.left_gap) ? -(O + i * E) : 0;
}

/* Kernels pad problems at the top (query rows before row 1) and at the right (reference
 * columns after n) so that two pairs of different sizes share one loop and the last row
 * of every lane sits at the same register. Padded rows copy the top border exactly when
 * they score row_pad against every column (0 when the top border is 0, otherwise below
 * -(O+Ext)); padded columns score col_pad < 0 and so never tie with or beat a real cell
 * of a max-tracking pass, and never influence columns <= n. Under the zero floor (local)
 * any row_pad <= 0 keeps padded rows at 0: it is col_pad there too, so that one pad score
 * serves rows and columns and the 2-bit XOR scorer (nw_sc_fast) can take local DNA. */
NW_HD int32_t nw_row_pad(int kind, int32_t O, int32_t E)
{
	const nw_dp_rules ru = nw_rules(kind);
	return ru.top_gap || ru.relu ? -(O + E + 1) : 0;
}
NW_HD int32_t nw_col_pad(int32_t O, int32_t E) { return -(O + E + 1); }

/* Substitution table layout shared by kernels: tab[q * 32 + r], with the pad codes. */
#define NW_TAB_DIM 32
#define NW_QPAD 30
#define NW_RPAD 31

/* Result of one DP problem: score and the cell it refers to (real coordinates). */
struct nw_dp_out {
	int64_t score;
	int64_t i, j;
	int32_t overflow;  /* set by a 16-bit pass that may have wrapped: redo in 32 bits */
	int32_t pad_;
};

/* Lexicographic order of candidate cells: larger score, then smaller j, then smaller i. */
NW_HD bool nw_better(int64_t v, int64_t j, int64_t i, int64_t bv, int64_t bj, int64_t bi)
{
	return v > bv || (v == bv && (j < bj || (j == bj && i < bi)));
}

/* ---------------------------------------------------------------- scalar twin
 * Row-by-row DP in O(n) memory over q[k * qstep], r[k * rstep] (step -1 reads a reversed
 * prefix). tab as above (only real codes are used). hrow/frow: n + 1 scratch entries. This
 * is the reference every kernel is tested against (and by the host emulation). */
NW_HD nw_dp_out nw_twin_dp(int kind, const int32_t *tab, int64_t O, int64_t E,
			   const uint8_t *q, int64_t qstep, int64_t m, const uint8_t *r,
			   int64_t rstep, int64_t n, int64_t *hrow, int64_t *frow)
{
	typedef nw_l64 L;
	const nw_dp_rules ru = nw_rules(kind);
	const int64_t neg_oe = -(O + E), neg_e = -E;
	nw_dp_out out;
	out.score = INT64_MIN;
	out.i = out.j = 0;
	out.overflow = 0;
	out.pad_ = 0;
	for (int64_t j = 0; j <= n; j++) {
		hrow[j] = nw_top_border(ru, O, E, j);
		frow[j] = hrow[j] + neg_oe; /* F[1][j]: F[0][j] is minus infinity */
	}
	if (m == 0) {
		out.i = 0;
		if (ru.track) {
			out.score = 0, out.j = 0;
		} else if (ru.last_all) {
			for (int64_t j = 0; j <= n; j++)
				if (hrow[j] > out.score) out.score = hrow[j], out.j = j;
		} else {
			out.score = hrow[n], out.j = n;
		}
		return out;
	}
	if (ru.track) out.score = ru.relu ? 0 : INT64_MIN;
	for (int64_t i = 1; i <= m; i++) {
		const int32_t *trow = tab + q[(i - 1) * qstep] * NW_TAB_DIM;
		int64_t diag = hrow[0];
		int64_t h = nw_left_border(ru, O, E, i);
		int64_t e = h + neg_oe; /* E[i][1]: E[i][0] is minus infinity */
		hrow[0] = h;
		for (int64_t j = 1; j <= n; j++) {
			int64_t s = trow[r[(j - 1) * rstep]];
			int64_t f = frow[j];
			int64_t up = hrow[j];
			h = ru.relu ? nw_cell<L, true>(diag, s, e, f, neg_oe, neg_e)
				    : nw_cell<L, false>(diag, s, e, f, neg_oe, neg_e);
			diag = up;
			hrow[j] = h;
			frow[j] = f;
			if (ru.track && nw_better(h, j, i, out.score, out.j, out.i))
				out.score = h, out.j = j, out.i = i;
		}
	}
	if (ru.track) {
		if (ru.relu && out.score == 0) out.i = out.j = 0;
	} else if (ru.last_all) {
		out.i = m;
		out.score = INT64_MIN;
		for (int64_t j = 0; j <= n; j++)
			if (hrow[j] > out.score) out.score = hrow[j], out.j = j;
	} else {
		out.i = m, out.j = n, out.score = hrow[n];
	}
	return out;
}

#endif
