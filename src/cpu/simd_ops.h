/* simd_ops.h: the vector operations of the CPU kernels' templates, for one instruction set.
 *
 * Included (no include guard) with exactly one of ISA_GENERIC, ISA_SSE41, ISA_AVX2 or
 * ISA_AVX512 defined, it defines:
 *   V, VM          a vector of VL signed 16-bit lanes, and a lane mask
 *   ISA_TARGET     the function attribute that lets the compiler use the instructions
 *   ISA_FN(f)      f's name for this instruction set (f_avx2, ...)
 *   vset1(x) vload(p) vstore(p, v)
 *   vadds(a, b) vsubs(a, b)    saturating add and subtract
 *   vsubs0(a, b)               a - b, or 0 where that is negative, for a and b of at
 *                              least 0 (the unsigned saturating subtract)
 *   vmax(a, b)
 *   vcmpeq(a, b) vcmpgt(a, b)  lane masks
 *   vsel(m, a, b)              b where m is set, a elsewhere
 *   vmand(m1, m2) vany(m)      mask and; nonzero when any lane of m is set
 *   vmaskbits(m)               lane l's flag in bit l of a uint64_t
 *   VMZERO                     the empty mask
 *   vor(a, b)                  bitwise or
 *   vbits(m, k)                k where m is set, 0 elsewhere
 *   vshl1(v, x)                lanes moved up by one (lane l + 1 = v's lane l), lane 0 = x
 *   LT, LANE_MIN               the lane's C type and its lowest value
 *   vlookup(idx, t)            lane l: t[idx lane l] (t: int32_t[], idx lanes >= 0)
 *   VPERM32 (AVX-512 only)     vperm32(idx, v): lane l = v's lane idx[l] (0..31)
 * Every operation is a macro or an inline function of the same target, so that the
 * templates' functions inline them.
 */
#include "simd_undef.h"

#define LT int16_t
#define LANE_BITS 16
#define LANE_MIN (-32768)

#if defined(ISA_AVX512)
#include <immintrin.h>
#define V __m512i
#define VM __mmask32
#define VL 32
#define ISA_TARGET __attribute__((target("avx512f,avx512bw")))
#define ISA_FN(f) f##_avx512
#define vset1(x) _mm512_set1_epi16((short)(x))
#define vload(p) _mm512_load_si512((const void *)(p))
#define vstore(p, v) _mm512_store_si512((void *)(p), (v))
#define vadds(a, b) _mm512_adds_epi16((a), (b))
#define vsubs(a, b) _mm512_subs_epi16((a), (b))
#define vsubs0(a, b) _mm512_subs_epu16((a), (b))
#define vmax(a, b) _mm512_max_epi16((a), (b))
#define vcmpeq(a, b) _mm512_cmpeq_epi16_mask((a), (b))
#define vcmpgt(a, b) _mm512_cmpgt_epi16_mask((a), (b))
#define vsel(m, a, b) _mm512_mask_blend_epi16((m), (a), (b))
#define vmand(m1, m2) ((VM)((m1) & (m2)))
#define vany(m) ((m) != 0)
#define vmaskbits(m) ((uint64_t)(m))
#define VMZERO ((VM)0)
#define vor(a, b) _mm512_or_si512((a), (b))
#define vbits(m, k) _mm512_maskz_mov_epi16((m), _mm512_set1_epi16((short)(k)))
static inline ISA_TARGET __m512i lookup_avx512(__m512i idx, const int32_t *t)
{
	__m512i lo = _mm512_cvtepi16_epi32(_mm512_castsi512_si256(idx));
	__m512i hi = _mm512_cvtepi16_epi32(_mm512_extracti64x4_epi64(idx, 1));
	__m256i glo = _mm512_cvtepi32_epi16(_mm512_i32gather_epi32(lo, (const void *)t, 4));
	__m256i ghi = _mm512_cvtepi32_epi16(_mm512_i32gather_epi32(hi, (const void *)t, 4));
	return _mm512_inserti64x4(_mm512_castsi256_si512(glo), ghi, 1);
}
#define vlookup(idx, t) lookup_avx512((idx), (t))
#define VPERM32 1
#define vperm32(idx, v) _mm512_permutexvar_epi16((idx), (v))
#define vshl1(v, x)                                                                          \
	_mm512_mask_set1_epi16(                                                              \
		_mm512_permutexvar_epi16(                                                    \
			_mm512_set_epi16(30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, \
					 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0), \
			(v)),                                                                \
		1, (short)(x))

#elif defined(ISA_AVX2)
#include <immintrin.h>
#define V __m256i
#define VM __m256i
#define VL 16
#define ISA_TARGET __attribute__((target("avx2")))
#define ISA_FN(f) f##_avx2
#define vset1(x) _mm256_set1_epi16((short)(x))
#define vload(p) _mm256_load_si256((const __m256i *)(p))
#define vstore(p, v) _mm256_store_si256((__m256i *)(p), (v))
#define vadds(a, b) _mm256_adds_epi16((a), (b))
#define vsubs(a, b) _mm256_subs_epi16((a), (b))
#define vsubs0(a, b) _mm256_subs_epu16((a), (b))
#define vmax(a, b) _mm256_max_epi16((a), (b))
#define vcmpeq(a, b) _mm256_cmpeq_epi16((a), (b))
#define vcmpgt(a, b) _mm256_cmpgt_epi16((a), (b))
#define vsel(m, a, b) _mm256_blendv_epi8((a), (b), (m))
#define vmand(m1, m2) _mm256_and_si256((m1), (m2))
#define vany(m) (_mm256_movemask_epi8(m) != 0)
#define vmaskbits(m)                                                                         \
	((uint64_t)(uint32_t)_mm_movemask_epi8(                                              \
		_mm_packs_epi16(_mm256_castsi256_si128(m), _mm256_extracti128_si256((m), 1))))
#define VMZERO _mm256_setzero_si256()
#define vor(a, b) _mm256_or_si256((a), (b))
#define vbits(m, k) _mm256_and_si256((m), _mm256_set1_epi16((short)(k)))
static inline ISA_TARGET __m256i lookup_avx2(__m256i idx, const int32_t *t)
{
	__m256i lo = _mm256_cvtepi16_epi32(_mm256_castsi256_si128(idx));
	__m256i hi = _mm256_cvtepi16_epi32(_mm256_extracti128_si256(idx, 1));
	__m256i g = _mm256_packs_epi32(_mm256_i32gather_epi32((const int *)t, lo, 4),
				       _mm256_i32gather_epi32((const int *)t, hi, 4));
	return _mm256_permute4x64_epi64(g, 0xd8); /* packs works within 128-bit halves */
}
#define vlookup(idx, t) lookup_avx2((idx), (t))
#define vshl1(v, x)                                                                          \
	_mm256_insert_epi16(                                                                 \
		_mm256_alignr_epi8((v), _mm256_permute2x128_si256((v), (v), 0x08), 14), (short)(x), 0)

#elif defined(ISA_SSE41)
#include <immintrin.h>
#define V __m128i
#define VM __m128i
#define VL 8
#define ISA_TARGET __attribute__((target("sse4.1")))
#define ISA_FN(f) f##_sse41
#define vset1(x) _mm_set1_epi16((short)(x))
#define vload(p) _mm_load_si128((const __m128i *)(p))
#define vstore(p, v) _mm_store_si128((__m128i *)(p), (v))
#define vadds(a, b) _mm_adds_epi16((a), (b))
#define vsubs(a, b) _mm_subs_epi16((a), (b))
#define vsubs0(a, b) _mm_subs_epu16((a), (b))
#define vmax(a, b) _mm_max_epi16((a), (b))
#define vcmpeq(a, b) _mm_cmpeq_epi16((a), (b))
#define vcmpgt(a, b) _mm_cmpgt_epi16((a), (b))
#define vsel(m, a, b) _mm_blendv_epi8((a), (b), (m))
#define vmand(m1, m2) _mm_and_si128((m1), (m2))
#define vany(m) (_mm_movemask_epi8(m) != 0)
#define vmaskbits(m) ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_packs_epi16((m), _mm_setzero_si128())))
#define VMZERO _mm_setzero_si128()
#define vor(a, b) _mm_or_si128((a), (b))
#define vbits(m, k) _mm_and_si128((m), _mm_set1_epi16((short)(k)))
static inline ISA_TARGET __m128i lookup_sse41(__m128i idx, const int32_t *t)
{
	_Alignas(16) int16_t x[8];
	_mm_store_si128((__m128i *)x, idx);
	return _mm_setr_epi16((short)t[x[0]], (short)t[x[1]], (short)t[x[2]], (short)t[x[3]],
			      (short)t[x[4]], (short)t[x[5]], (short)t[x[6]], (short)t[x[7]]);
}
#define vlookup(idx, t) lookup_sse41((idx), (t))
#define vshl1(v, x) _mm_insert_epi16(_mm_slli_si128((v), 2), (short)(x), 0)

#elif defined(ISA_GENERIC)
/* Portable C: 8 lanes in a struct (simd_generic.h); the scalar twin of the others. */
#ifndef NW_GENERIC_VEC_DEFINED
#define NW_GENERIC_VEC_DEFINED
#include "simd_generic.h"
NW_GENERIC_VEC(g, nw_gvec_t, int16_t, 8, -32768, 32767)
static inline nw_gvec_t g_or(nw_gvec_t a, nw_gvec_t b)
{
	for (int l = 0; l < 8; l++)
		a.v[l] |= b.v[l];
	return a;
}
static inline nw_gvec_t g_shl1(nw_gvec_t v, int x)
{
	for (int l = 7; l > 0; l--)
		v.v[l] = v.v[l - 1];
	v.v[0] = (int16_t)x;
	return v;
}
static inline nw_gvec_t g_lookup(nw_gvec_t idx, const int32_t *t)
{
	for (int l = 0; l < 8; l++)
		idx.v[l] = (int16_t)t[idx.v[l]];
	return idx;
}
#endif
#define V nw_gvec_t
#define VM nw_gvec_t
#define VL 8
#define ISA_TARGET
#define ISA_FN(f) f##_generic
#define vset1(x) g_set1(x)
#define vload(p) (*(const nw_gvec_t *)(p))
#define vstore(p, v) (*(nw_gvec_t *)(p) = (v))
#define vadds(a, b) g_adds((a), (b))
#define vsubs(a, b) g_subs((a), (b))
#define vsubs0(a, b) g_subs0((a), (b))
#define vmax(a, b) g_max((a), (b))
#define vcmpeq(a, b) g_cmpeq((a), (b))
#define vcmpgt(a, b) g_cmpgt((a), (b))
#define vsel(m, a, b) g_sel((m), (a), (b))
#define vmand(m1, m2) g_and((m1), (m2))
#define vany(m) g_any(m)
#define vmaskbits(m) g_maskbits(m)
#define VMZERO g_set1(0)
#define vor(a, b) g_or((a), (b))
#define vbits(m, k) g_and((m), g_set1(k))
#define vlookup(idx, t) g_lookup((idx), (t))
#define vshl1(v, x) g_shl1((v), (x))

#else
#error "simd_ops.h: define one of ISA_GENERIC, ISA_SSE41, ISA_AVX2, ISA_AVX512"
#endif
