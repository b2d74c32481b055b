/* simd_ops32.h: simd_ops.h's operations on lanes of 32 bits (the striped pass's wide
 * variant, for values that leave 16 bits). Included after simd_ops.h (whose macros it
 * redefines) with one of ISA_GENERIC, ISA_SSE41, ISA_AVX2 or ISA_AVX512 defined; ISA_FN
 * names get a _32 suffix. vadds and vsubs do not saturate here: the caller keeps every
 * value far inside 32 bits. Only the operations the striped and sweep templates use are
 * defined (the others stay undefined: simd_undef.h). Beside simd_ops.h's, for the sweep
 * (sweep_kernel.h):
 *   vloadu(p) vstoreu(p, v)    unaligned load and store of VL int32_t
 *   vload16(p)                 VL int16_t, widened
 *   vmin(a, b) vsel(m, a, b) vor(a, b) vbits(m, k)   as in simd_ops.h
 *   vmor(m1, m2)               mask or
 *   vmaskbits(m)               lane l's flag in bit l of an unsigned
 *   vshlk(v, fill, k)          lanes moved up by k (a literal below VL), lanes 0..k-1 from
 *                              fill's top lanes
 *   vlast(v)                   v's top lane in every lane
 *   vstore8(p, v)              the lanes' low bytes (values 0..127) to VL bytes at p
 */
#include "simd_undef.h"

#include <stdint.h>
#include <string.h>
#if !defined(ISA_GENERIC)
#include <immintrin.h>
#endif

#define LT int32_t
#define LANE_BITS 32
#define LANE_MIN INT32_MIN

#if defined(ISA_AVX512)
#define V __m512i
#define VM __mmask16
#define VL 16
#define ISA_TARGET __attribute__((target("avx512f,avx512bw")))
#define ISA_FN(f) f##_avx512_32
#define vset1(x) _mm512_set1_epi32((int)(x))
#define vload(p) _mm512_load_si512((const void *)(p))
#define vstore(p, v) _mm512_store_si512((void *)(p), (v))
#define vadds(a, b) _mm512_add_epi32((a), (b))
#define vsubs(a, b) _mm512_sub_epi32((a), (b))
#define vmax(a, b) _mm512_max_epi32((a), (b))
#define vcmpgt(a, b) _mm512_cmpgt_epi32_mask((a), (b))
#define vany(m) ((m) != 0)
#define vshl1(v, x) _mm512_alignr_epi32((v), _mm512_set1_epi32((int)(x)), 15)
#define vloadu(p) _mm512_loadu_si512((const void *)(p))
#define vstoreu(p, v) _mm512_storeu_si512((void *)(p), (v))
#define vload16(p) _mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)(p)))
#define vmin(a, b) _mm512_min_epi32((a), (b))
#define vsel(m, a, b) _mm512_mask_blend_epi32((m), (a), (b))
#define vor(a, b) _mm512_or_si512((a), (b))
#define vbits(m, k) _mm512_maskz_mov_epi32((m), _mm512_set1_epi32((int)(k)))
#define vmor(a, b) ((__mmask16)((a) | (b)))
#define vmaskbits(m) ((unsigned)(m))
#define vshlk(v, fill, k) _mm512_alignr_epi32((v), (fill), 16 - (k))
#define vlast(v) _mm512_permutexvar_epi32(_mm512_set1_epi32(15), (v))
#define vstore8(p, v) _mm_storeu_si128((__m128i *)(p), _mm512_cvtepi32_epi8(v))

#elif defined(ISA_AVX2)
#define V __m256i
#define VM __m256i
#define VL 8
#define ISA_TARGET __attribute__((target("avx2")))
#define ISA_FN(f) f##_avx2_32
#define vset1(x) _mm256_set1_epi32((int)(x))
#define vload(p) _mm256_load_si256((const __m256i *)(p))
#define vstore(p, v) _mm256_store_si256((__m256i *)(p), (v))
#define vadds(a, b) _mm256_add_epi32((a), (b))
#define vsubs(a, b) _mm256_sub_epi32((a), (b))
#define vmax(a, b) _mm256_max_epi32((a), (b))
#define vcmpgt(a, b) _mm256_cmpgt_epi32((a), (b))
#define vany(m) (_mm256_movemask_epi8(m) != 0)
#define vshl1(v, x)                                                                          \
	_mm256_insert_epi32(                                                                 \
		_mm256_alignr_epi8((v), _mm256_permute2x128_si256((v), (v), 0x08), 12), (int)(x), 0)
#define vloadu(p) _mm256_loadu_si256((const __m256i *)(p))
#define vstoreu(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define vload16(p) _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(p)))
#define vmin(a, b) _mm256_min_epi32((a), (b))
#define vsel(m, a, b) _mm256_blendv_epi8((a), (b), (m))
#define vor(a, b) _mm256_or_si256((a), (b))
#define vbits(m, k) _mm256_and_si256((m), _mm256_set1_epi32((int)(k)))
#define vmor(a, b) _mm256_or_si256((a), (b))
#define vmaskbits(m) ((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(m)))
/* [fill's high half, v's low half] is what the low half of the result takes from below */
#define vshlk(v, fill, k)                                                                    \
	_mm256_alignr_epi8((v), _mm256_permute2x128_si256((fill), (v), 0x21), 16 - 4 * (k))
#define vlast(v) _mm256_permutevar8x32_epi32((v), _mm256_set1_epi32(7))
#define vstore8(p, v) store8_avx2((p), (v))
static inline ISA_TARGET void store8_avx2(uint8_t *p, __m256i v)
{
	__m256i w = _mm256_packs_epi32(v, v);
	w = _mm256_packus_epi16(w, w); /* bytes 0-3: lanes 0-3; bytes 16-19: lanes 4-7 */
	int lo = _mm_cvtsi128_si32(_mm256_castsi256_si128(w));
	int hi = _mm_cvtsi128_si32(_mm256_extracti128_si256(w, 1));
	memcpy(p, &lo, 4);
	memcpy(p + 4, &hi, 4);
}

#elif defined(ISA_SSE41)
#define V __m128i
#define VM __m128i
#define VL 4
#define ISA_TARGET __attribute__((target("sse4.1")))
#define ISA_FN(f) f##_sse41_32
#define vset1(x) _mm_set1_epi32((int)(x))
#define vload(p) _mm_load_si128((const __m128i *)(p))
#define vstore(p, v) _mm_store_si128((__m128i *)(p), (v))
#define vadds(a, b) _mm_add_epi32((a), (b))
#define vsubs(a, b) _mm_sub_epi32((a), (b))
#define vmax(a, b) _mm_max_epi32((a), (b))
#define vcmpgt(a, b) _mm_cmpgt_epi32((a), (b))
#define vany(m) (_mm_movemask_epi8(m) != 0)
#define vshl1(v, x) _mm_insert_epi32(_mm_slli_si128((v), 4), (int)(x), 0)
#define vloadu(p) _mm_loadu_si128((const __m128i *)(p))
#define vstoreu(p, v) _mm_storeu_si128((__m128i *)(p), (v))
#define vload16(p) _mm_cvtepi16_epi32(_mm_loadl_epi64((const __m128i *)(p)))
#define vmin(a, b) _mm_min_epi32((a), (b))
#define vsel(m, a, b) _mm_blendv_epi8((a), (b), (m))
#define vor(a, b) _mm_or_si128((a), (b))
#define vbits(m, k) _mm_and_si128((m), _mm_set1_epi32((int)(k)))
#define vmor(a, b) _mm_or_si128((a), (b))
#define vmaskbits(m) ((unsigned)_mm_movemask_ps(_mm_castsi128_ps(m)))
#define vshlk(v, fill, k) _mm_alignr_epi8((v), (fill), 16 - 4 * (k))
#define vlast(v) _mm_shuffle_epi32((v), 0xFF)
#define vstore8(p, v) store8_sse41((p), (v))
static inline ISA_TARGET void store8_sse41(uint8_t *p, __m128i v)
{
	__m128i w = _mm_packs_epi32(v, v);
	int b = _mm_cvtsi128_si32(_mm_packus_epi16(w, w));
	memcpy(p, &b, 4);
}

#elif defined(ISA_GENERIC)
#ifndef NW_GENERIC_VEC32_DEFINED
#define NW_GENERIC_VEC32_DEFINED
typedef struct {
	_Alignas(16) int32_t v[4];
} nw_gvec32_t;
static inline nw_gvec32_t g32_set1(int32_t x)
{
	nw_gvec32_t r;
	for (int l = 0; l < 4; l++)
		r.v[l] = x;
	return r;
}
static inline nw_gvec32_t g32_add(nw_gvec32_t a, nw_gvec32_t b)
{
	for (int l = 0; l < 4; l++)
		a.v[l] += b.v[l];
	return a;
}
static inline nw_gvec32_t g32_sub(nw_gvec32_t a, nw_gvec32_t b)
{
	for (int l = 0; l < 4; l++)
		a.v[l] -= b.v[l];
	return a;
}
static inline nw_gvec32_t g32_max(nw_gvec32_t a, nw_gvec32_t b)
{
	for (int l = 0; l < 4; l++)
		a.v[l] = a.v[l] > b.v[l] ? a.v[l] : b.v[l];
	return a;
}
static inline nw_gvec32_t g32_cmpgt(nw_gvec32_t a, nw_gvec32_t b)
{
	for (int l = 0; l < 4; l++)
		a.v[l] = a.v[l] > b.v[l] ? -1 : 0;
	return a;
}
static inline int g32_any(nw_gvec32_t m)
{
	return (m.v[0] | m.v[1] | m.v[2] | m.v[3]) != 0;
}
static inline nw_gvec32_t g32_shl1(nw_gvec32_t v, int32_t x)
{
	for (int l = 3; l > 0; l--)
		v.v[l] = v.v[l - 1];
	v.v[0] = x;
	return v;
}
static inline nw_gvec32_t g32_min(nw_gvec32_t a, nw_gvec32_t b)
{
	for (int l = 0; l < 4; l++)
		a.v[l] = a.v[l] < b.v[l] ? a.v[l] : b.v[l];
	return a;
}
static inline nw_gvec32_t g32_sel(nw_gvec32_t m, nw_gvec32_t a, nw_gvec32_t b)
{
	for (int l = 0; l < 4; l++)
		a.v[l] = m.v[l] ? b.v[l] : a.v[l];
	return a;
}
static inline nw_gvec32_t g32_or(nw_gvec32_t a, nw_gvec32_t b)
{
	for (int l = 0; l < 4; l++)
		a.v[l] |= b.v[l];
	return a;
}
static inline nw_gvec32_t g32_loadu(const int32_t *p)
{
	nw_gvec32_t r;
	memcpy(r.v, p, sizeof r.v);
	return r;
}
static inline void g32_storeu(int32_t *p, nw_gvec32_t v)
{
	memcpy(p, v.v, sizeof v.v);
}
static inline nw_gvec32_t g32_load16(const int16_t *p)
{
	nw_gvec32_t r;
	for (int l = 0; l < 4; l++)
		r.v[l] = p[l];
	return r;
}
static inline unsigned g32_maskbits(nw_gvec32_t m)
{
	unsigned b = 0;
	for (int l = 0; l < 4; l++)
		b |= (m.v[l] != 0) << l;
	return b;
}
static inline nw_gvec32_t g32_shlk(nw_gvec32_t v, nw_gvec32_t fill, int k)
{
	nw_gvec32_t r;
	for (int l = 0; l < 4; l++)
		r.v[l] = l >= k ? v.v[l - k] : fill.v[4 - k + l];
	return r;
}
static inline void g32_store8(uint8_t *p, nw_gvec32_t v)
{
	for (int l = 0; l < 4; l++)
		p[l] = (uint8_t)v.v[l];
}
#endif
#define V nw_gvec32_t
#define VM nw_gvec32_t
#define VL 4
#define ISA_TARGET
#define ISA_FN(f) f##_generic_32
#define vset1(x) g32_set1(x)
#define vload(p) (*(const nw_gvec32_t *)(p))
#define vstore(p, v) (*(nw_gvec32_t *)(p) = (v))
#define vadds(a, b) g32_add((a), (b))
#define vsubs(a, b) g32_sub((a), (b))
#define vmax(a, b) g32_max((a), (b))
#define vcmpgt(a, b) g32_cmpgt((a), (b))
#define vany(m) g32_any(m)
#define vshl1(v, x) g32_shl1((v), (x))
#define vloadu(p) g32_loadu(p)
#define vstoreu(p, v) g32_storeu((p), (v))
#define vload16(p) g32_load16(p)
#define vmin(a, b) g32_min((a), (b))
#define vsel(m, a, b) g32_sel((m), (a), (b))
#define vor(a, b) g32_or((a), (b))
#define vbits(m, k) g32_sel((m), g32_set1(0), g32_set1(k))
#define vmor(a, b) g32_or((a), (b))
#define vmaskbits(m) g32_maskbits(m)
#define vshlk(v, fill, k) g32_shlk((v), (fill), (k))
#define vlast(x) g32_set1((x).v[3])
#define vstore8(p, v) g32_store8((p), (v))

#else
#error "simd_ops32.h: define one of ISA_GENERIC, ISA_SSE41, ISA_AVX2, ISA_AVX512"
#endif
