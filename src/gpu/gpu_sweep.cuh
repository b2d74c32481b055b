/* gpu_sweep.cuh: what one thread of a wavefront does, shared by the batch kernel, the
 * long-pair tile kernel and their host emulations.
 *
 * A thread owns R consecutive query rows (H and E in registers) and walks the reference
 * columns; the row above its first row arrives each step from the previous thread (warp
 * shuffle) or from a border buffer. The substitution score comes from a scorer:
 *  - nw_sc_fast: DNA with 2-bit codes and a match/mismatch matrix: the two lanes' codes are
 *    XORed as nibbles and PRMT picks the signed score byte (2 instructions a cell pair);
 *  - nw_sc_tab2 / nw_sc_tab1: any matrix, looked up in a 32x32 table in shared memory;
 *  - nw_sc_prof: any matrix, both lanes aligning the same query: a query profile of the
 *    current stripe in shared memory, 8 rows a 16-byte load, one PRMT a cell pair.
 * Max tracking (local) keeps, per thread, the first column where the column maximum of its
 * rows beats its running best, and a snapshot of those R values in shared memory, so that
 * the row is resolved once per stripe instead of once per cell.
 */
#ifndef NW_GPU_SWEEP_CUH
#define NW_GPU_SWEEP_CUH

#include "dp_cell.cuh"

/* The long kernels' score table in shared memory: rows NW_LTAB_STRIDE words apart, so that
 * query code q and reference code r sit in bank (4q + r) mod 32. With rows 32 words apart
 * the bank is r alone, and DNA (codes 0-3 on both sides: lanes at different rows and
 * columns) loads up to 16 different words from 4 banks at a step. */
#define NW_LTAB_STRIDE 36
/* Where entry x of a NW_TAB_DIM-wide table goes in that layout. */
NW_HD int nw_ltab_index(int x) { return x / NW_TAB_DIM * NW_LTAB_STRIDE + x % NW_TAB_DIM; }

/* prmt.b32 in its default mode: selector nibble bit 3 replicates the selected byte's sign.
 * (__byte_perm masks the selector to 3 bits, so it cannot do this.) */
NW_HD uint32_t nw_prmt(uint32_t a, uint32_t b, uint32_t sel)
{
#ifdef __CUDA_ARCH__
	uint32_t d;
	asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
	return d;
#else
	uint64_t src = ((uint64_t)b << 32) | a;
	uint32_t d = 0;
	for (int k = 0; k < 4; k++) {
		uint32_t s = (sel >> (4 * k)) & 0xfu;
		uint32_t byte = (uint32_t)(src >> (8 * (s & 7u))) & 0xffu;
		if (s & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
		d |= byte << (8 * k);
	}
	return d;
#endif
}

/* Low halves of two words into one (lane 0 from lo). */
NW_HD uint32_t nw_pack_lo16(uint32_t lo, uint32_t hi)
{
#ifdef __CUDA_ARCH__
	return __byte_perm(lo, hi, 0x5410);
#else
	return (lo & 0xffffu) | (hi << 16);
#endif
}

/* High halves of two words into one (lane 0 from lo). */
NW_HD uint32_t nw_pack_hi16(uint32_t lo, uint32_t hi)
{
#ifdef __CUDA_ARCH__
	return __byte_perm(lo, hi, 0x7632);
#else
	return (lo >> 16) | (hi & 0xffff0000u);
#endif
}

/* ---------------------------------------------------------------- scorers
 * row(): per-row query data from two lane codes (-1: padding row); colword(): the 32-bit
 * word staged per reference column (-1: padding column); col(): decode it once a step;
 * scores(): the R scores of one thread's rows against one column (row by row, except for
 * the profile, which loads eight rows at once). PROFILE: the scorer needs build() for
 * each stripe. */
template <class D>
struct nw_sc_each {
	enum { PROFILE = 0 };
	template <int R, class Row, class Col, class V>
	NW_HD void scores(const Row *q, Col c, V *s) const
	{
#pragma unroll
		for (int r = 0; r < R; r++) s[r] = static_cast<const D *>(this)->score(q[r], c);
	}
};

struct nw_sc_fast : nw_sc_each<nw_sc_fast> {
	typedef uint32_t Row;
	typedef uint32_t Col;
	typedef nw_l16 L;
	uint32_t t0, t1; /* score bytes: [match, mis, mis, mis], [pad x4] */
	static NW_HD uint32_t nib2(int c) { return (uint32_t)c * 0x11u; }
	NW_HD Row row(int ca, int cb) const
	{
		return nib2(ca < 0 ? 4 : ca) | nib2(cb < 0 ? 4 : cb) << 8;
	}
	NW_HD uint32_t colword(int ca, int cb) const
	{
		return nib2(ca < 0 ? 5 : ca) | nib2(cb < 0 ? 5 : cb) << 8;
	}
	NW_HD Col col(uint32_t w) const { return w; }
	/* XOR of the nibbles: 0 = same base, 1-3 = other base, 4-7 = a padding row or column
	 * (4 ^ 5 = 1: a padding row against a padding column scores a mismatch). */
	NW_HD uint32_t score(Row q, Col c) const { return nw_prmt(t0, t1, (q ^ c) | 0x8080u); }
};

struct nw_tab_rc {
	uint32_t a, b; /* byte offsets into the table: q * 128, r * 4 */
};

struct nw_sc_tab2 : nw_sc_each<nw_sc_tab2> {
	typedef nw_tab_rc Row;
	typedef nw_tab_rc Col;
	typedef nw_l16 L;
	const int32_t *tab;
	NW_HD Row row(int ca, int cb) const
	{
		Row r;
		r.a = (uint32_t)(ca < 0 ? NW_QPAD : ca) * (NW_TAB_DIM * 4);
		r.b = (uint32_t)(cb < 0 ? NW_QPAD : cb) * (NW_TAB_DIM * 4);
		return r;
	}
	NW_HD uint32_t colword(int ca, int cb) const
	{
		return (uint32_t)(ca < 0 ? NW_RPAD : ca) * 4 | (uint32_t)(cb < 0 ? NW_RPAD : cb) * 4 << 16;
	}
	NW_HD Col col(uint32_t w) const
	{
		Col c;
		c.a = w & 0xffffu;
		c.b = w >> 16;
		return c;
	}
	NW_HD int32_t at(uint32_t off) const { return *(const int32_t *)((const char *)tab + off); }
	NW_HD uint32_t score(Row q, Col c) const
	{
		return nw_pack_lo16((uint32_t)at(q.a + c.a), (uint32_t)at(q.b + c.b));
	}
};

/* One lane, any matrix: the table in shared memory, rows STRIDE words apart. */
template <class LT, int STRIDE = NW_TAB_DIM>
struct nw_sc_tab1 : nw_sc_each<nw_sc_tab1<LT, STRIDE> > {
	typedef uint32_t Row;
	typedef uint32_t Col;
	typedef LT L;
	const int32_t *tab;
	NW_HD Row row(int ca, int) const { return (uint32_t)(ca < 0 ? NW_QPAD : ca) * (STRIDE * 4); }
	NW_HD uint32_t colword(int ca, int) const { return (uint32_t)(ca < 0 ? NW_RPAD : ca) * 4; }
	NW_HD Col col(uint32_t w) const { return w; }
	NW_HD typename LT::V score(Row q, Col c) const
	{
		return (typename LT::V) * (const int32_t *)((const char *)tab + q + c);
	}
};

/* A 16-byte load from shared memory: at the 32-bit shared-space address sa on the
 * device, at p on the host (the emulation). An address kept in the shared space spares
 * each step the generic-to-shared conversion, and its constant offsets go into the
 * load's immediate. */
NW_HD uint4 nw_lds128(const char *p, uint32_t sa)
{
#ifdef __CUDA_ARCH__
	(void)p;
	uint4 v;
	asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(sa));
	return v;
#else
	(void)sa;
	return *(const uint4 *)p;
#endif
}

/* Query profile of one stripe, shared by the warp (every lane of every group aligns the
 * same query, so only the reference codes differ). For code c (c == ncodes: the padding
 * column) and my rows r, the int16 score sits at
 *     c * cstride + (t / 8) * 16 R + (r / 8) * 128 + (t % 8) * 16 + (r % 8) * 2
 * with cstride = 2 * G * R bytes: a thread's eight rows are one 16-byte load, the eight
 * threads of a quarter warp (one eighth of a group: G and R are multiples of 8) read
 * eight different bank groups whatever codes they ask for, so the loads never conflict,
 * and a thread's next eight rows are 128 bytes on whatever G is (the load's immediate).
 * One group of the warp builds it (build()), after a warp barrier the others read it. */
struct nw_sc_prof {
	enum { PROFILE = 1, CHUNK = 128 };
	typedef uint32_t Row; /* unused: the rows live in the profile */
	typedef uint32_t Col; /* byte offsets of the two lanes' codes: a | b << 16 */
	typedef nw_l16 L;
	const int32_t *tab;
	char *base;       /* my rows of code 0 in the warp's profile */
	uint32_t sbase;   /* the same in the shared space (device) */
	uint32_t cstride;
	int32_t ncodes;
	int32_t bias;     /* added to every score (NW_CELL_SHIFTED: O + Ext) */
	static NW_HD uint32_t bytes(int ncodes, int G, int R) { return (uint32_t)(ncodes + 1) * 2u * G * R; }
	NW_HD void setup(const int32_t *tab_, char *warp_prof, int ncodes_, int G, int R, int t, int32_t bias_)
	{
		tab = tab_;
		ncodes = ncodes_;
		bias = bias_;
		cstride = 2u * G * R;
		base = warp_prof + (t / 8) * 16 * R + (t % 8) * 16;
#ifdef __CUDA_ARCH__
		sbase = (uint32_t)__cvta_generic_to_shared(base);
#else
		sbase = 0;
#endif
	}
	NW_HD Row row(int, int) const { return 0; }
	NW_HD uint32_t colword(int ca, int cb) const
	{
		return (uint32_t)(ca < 0 ? ncodes : ca) * cstride | (uint32_t)(cb < 0 ? ncodes : cb) * cstride << 16;
	}
	NW_HD Col col(uint32_t w) const { return w; }
	template <int R, class V>
	NW_HD void scores(const Row *, Col c, V *s) const
	{
		const uint32_t oa = c & 0xffffu, ob = c >> 16;
#pragma unroll
		for (int h = 0; h < R / 8; h++) {
			const uint4 a = nw_lds128(base + oa + h * CHUNK, sbase + oa + h * CHUNK);
			const uint4 b = nw_lds128(base + ob + h * CHUNK, sbase + ob + h * CHUNK);
			s[8 * h + 0] = nw_pack_lo16(a.x, b.x);
			s[8 * h + 1] = nw_pack_hi16(a.x, b.x);
			s[8 * h + 2] = nw_pack_lo16(a.y, b.y);
			s[8 * h + 3] = nw_pack_hi16(a.y, b.y);
			s[8 * h + 4] = nw_pack_lo16(a.z, b.z);
			s[8 * h + 5] = nw_pack_hi16(a.z, b.z);
			s[8 * h + 6] = nw_pack_lo16(a.w, b.w);
			s[8 * h + 7] = nw_pack_hi16(a.w, b.w);
		}
	}
	/* My rows' part of the profile; qc[r]: query code of my row r, -1 for padding. */
	template <int R>
	NW_HD void build(const int *qc) const
	{
		for (int c = 0; c <= ncodes; c++) {
			const int col = c < ncodes ? c : NW_RPAD;
#pragma unroll
			for (int h = 0; h < R / 8; h++) {
				uint32_t w[4];
#pragma unroll
				for (int x = 0; x < 4; x++) {
					int q0 = qc[8 * h + 2 * x], q1 = qc[8 * h + 2 * x + 1];
					uint32_t lo = (uint16_t)(int16_t)(tab[(q0 < 0 ? NW_QPAD : q0) * NW_TAB_DIM + col] + bias);
					uint32_t hi = (uint16_t)(int16_t)(tab[(q1 < 0 ? NW_QPAD : q1) * NW_TAB_DIM + col] + bias);
					w[x] = lo | hi << 16;
				}
				*(uint4 *)(base + c * cstride + h * CHUNK) = make_uint4(w[0], w[1], w[2], w[3]);
			}
		}
	}
};

/* DNA of codes 0-3 (both sequences 2-bit) with any matrix whose scores fit a byte, one lane
 * (the long kernels): a row keeps its four scores, one byte a reference code, and the column
 * word is the PRMT selector that picks byte c and replicates its sign, so a cell's score is
 * one PRMT (no shared-memory load, whose lanes would all hit the same four banks). */
template <class LT>
struct nw_sc_dna4 : nw_sc_each<nw_sc_dna4<LT> > {
	typedef uint32_t Row;
	typedef uint32_t Col;
	typedef LT L;
	const int32_t *tab; /* the long kernels' score table (NW_LTAB_STRIDE), for the rows' bytes */
	NW_HD Row row(int ca, int) const
	{
		const int32_t *t = tab + (ca < 0 ? NW_QPAD : ca) * NW_LTAB_STRIDE;
		return (uint32_t)(uint8_t)t[0] | (uint32_t)(uint8_t)t[1] << 8 | (uint32_t)(uint8_t)t[2] << 16 |
		       (uint32_t)(uint8_t)t[3] << 24;
	}
	NW_HD uint32_t colword(int ca, int) const { return (uint32_t)ca * 0x1111u | 0x8880u; }
	NW_HD Col col(uint32_t w) const { return w; }
	NW_HD typename LT::V score(Row q, Col c) const { return (typename LT::V)(int32_t)nw_prmt(q, 0, c); }
};

/* ---------------------------------------------------------------- one thread's rows
 * CELL: the cell form (NW_CELL_*, dp_cell.cuh); with the linear form fin and fout are
 * unused. */
template <class SC, int R, bool RELU, int CELL = NW_CELL_FIVE>
struct nw_sweep {
	typedef typename SC::L L;
	typedef typename L::V V;
	enum { SHIFT = CELL == NW_CELL_SHIFTED ? 1 : 0 };
	V h[R];                  /* H[i][j] of my rows at the last column done (SHIFT: H - O - Ext,
				  * and the scorer's scores are raised by O + Ext) */
	V e[R];                  /* E[i][j+1] */
	typename SC::Row q[R];   /* query residues of my rows */
	V hdiag;                 /* H[first row - 1][last column done] (SHIFT: less O + Ext) */
	V lo;                    /* NW_CELL_FLOOR: the floor of H */

	/* One column: hup = H[i0-1][j], fin = F[i0][j]; returns H and F for the row below. RR:
	 * the rows in use, the first RR of the R (a short first stripe, nw_bthread::R0). */
	template <int RR = R>
	NW_HD void step(const SC &sc, uint32_t colw, V hup, V fin, V neg_oe, V neg_e, V &hout,
			V &fout)
	{
		typename SC::Col c = sc.col(colw);
		V f = fin, above = hup, s[RR];
		sc.template scores<RR>(q, c, s);
		/* X of every row first (NW_CELL_SHIFTED: H[i-1][j-1] + s), bottom row up: X of row r
		 * can take the register of h[r], whose old value (H[i][j-1]) the row below has just
		 * read as its diagonal. Top down, each new H needs a register of its own while the
		 * old one is still to be read, and the loop pays for copies back (the batch kernel's
		 * DNA instance with R = 20: 254 register moves instead of 280). The loop counts up:
		 * nvcc 13.0 did not unroll the same loop counting down, which left the arrays in
		 * local memory (several times slower). */
#pragma unroll
		for (int k = 0; k < RR; k++) {
			const int r = RR - 1 - k;
			const V hd = r ? h[r - 1] : hdiag;
			h[r] = SHIFT ? L::add(hd, s[r]) : nw_cell_x<L, RELU>(hd, s[r], e[r]);
		}
		V last = 0; /* SHIFT: H of the last row, in true value for the thread below */
#pragma unroll
		for (int r = 0; r < RR; r++) {
			if (SHIFT && r == RR - 1) last = nw_cell_h<L, RELU>(h[r], e[r], f);
			h[r] = nw_cell_rest<L, CELL, RELU>(h[r], e[r], f, above, neg_oe, neg_e, CELL == NW_CELL_FLOOR ? lo : V());
			above = h[r];
		}
		hdiag = SHIFT ? L::add(hup, neg_oe) : hup;
		hout = SHIFT ? last : h[RR - 1];
		fout = f;
	}

	/* The highest of my first RR rows (SHIFT: of H - O - Ext). */
	template <int RR = R>
	NW_HD V colmax() const
	{
		V m = h[0];
#pragma unroll
		for (int r = 1; r + 1 < RR; r += 2) m = L::max3(m, h[r], h[r + 1]);
		if ((RR & 1) == 0) m = L::max2(m, h[RR - 1]);
		return m;
	}
};

/* Per-thread max tracking over one stripe (or tile). snap: NW_SNAP_WORDS(L, R) words of
 * shared memory owned by this thread, 16-byte aligned. Snapshots of 4-byte lanes are
 * stored 16 bytes at a time, and the per-thread stride is padded by 16 bytes so that the
 * few threads that store at one step hit different banks. */
#define NW_SNAP_WORDS(L, R) ((L::LANES) * (R) + 16 / (int)sizeof(typename L::V))

/* PRED: improving lanes save by predicated stores (no branch in a step); otherwise by a
 * branch. Measured on an H200: predicated stores made the batch kernels' local passes 3-4%
 * faster; in the long kernels held to 64 registers they spilled more and made the reverse
 * local pass 14% slower, and given 95 registers (the banded reverse pass) 3% faster. */
template <class L, int R, bool PRED, class J = int64_t>
struct nw_tracker {
	typedef typename L::V V;
	V best;
	J bj[L::LANES]; /* column of the best (J: int32_t where columns fit, one register less) */

	static NW_HD void save(V *dst, const V *h)
	{
#ifdef __CUDA_ARCH__
		if (sizeof(V) == 4 && R % 4 == 0) {
#pragma unroll
			for (int r = 0; r < R; r += 4)
				*(uint4 *)(dst + r) = make_uint4((uint32_t)h[r], (uint32_t)h[r + 1], (uint32_t)h[r + 2],
								 (uint32_t)h[r + 3]);
			return;
		}
#endif
#pragma unroll
		for (int r = 0; r < R; r++) dst[r] = h[r];
	}

	/* save() where on is true. With PRED, on the device (4-byte lanes, R a multiple of 4), as
	 * predicated stores, which only the improving lanes carry out: a step then has no branch,
	 * whose divergence check and reconvergence cost more than the stores. */
	static NW_HD void save_if(bool on, V *dst, const V *h)
	{
#ifdef __CUDA_ARCH__
		if (PRED && sizeof(V) == 4 && R % 4 == 0) {
			const uint32_t a = (uint32_t)__cvta_generic_to_shared(dst);
#pragma unroll
			for (int r = 0; r < R; r += 4)
				asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t"
					     "@q st.shared.v4.u32 [%1], {%2, %3, %4, %5};\n\t}"
					     :
					     : "r"((uint32_t)on), "r"(a + 4 * r), "r"((uint32_t)h[r]), "r"((uint32_t)h[r + 1]),
					       "r"((uint32_t)h[r + 2]), "r"((uint32_t)h[r + 3])
					     : "memory");
			return;
		}
#endif
		if (on) save(dst, h);
	}

	NW_HD void reset()
	{
		best = L::lowest();
		for (int k = 0; k < L::LANES; k++) bj[k] = -1;
	}
	NW_HD void see(const V *h, V cmax, J j, V *snap)
	{
		bool ge[L::LANES];
		best = L::bmax(best, cmax, ge);
#pragma unroll
		for (int k = 0; k < L::LANES; k++) {
			bj[k] = ge[k] ? bj[k] : j;
			save_if(!ge[k], snap + k * R, h);
		}
	}
	/* First of my rows holding the best of lane k at column bj[k]. */
	NW_HD int row(int k, const V *snap) const
	{
		int64_t b = L::lane(best, k);
		for (int r = 0; r < R; r++)
			if (L::lane(snap[k * R + r], k) == b) return r;
		return 0; /* unreachable */
	}
};

/* A candidate end cell, merged lexicographically (nw_better). */
struct nw_cand {
	int64_t v, j, i;
};
NW_HD void nw_cand_merge(nw_cand &a, const nw_cand &b)
{
	if (nw_better(b.v, b.j, b.i, a.v, a.j, a.i)) a = b;
}

#endif
