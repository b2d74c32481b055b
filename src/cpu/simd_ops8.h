/* simd_ops8.h: simd_ops.h's operations on signed 8-bit lanes, twice as many a vector (the
 * inter-sequence pass's narrow variant, for local passes whose scores stay below 127).
 * Included after simd_ops.h (whose macros it redefines) with one of ISA_GENERIC,
 * ISA_SSE41, ISA_AVX2 or ISA_AVX512 defined; ISA_FN names get an _8 suffix. vadds and
 * vsubs saturate at -128 and 127. Only the operations the inter-sequence template uses in
 * its profile and anchored forms are defined, vsubs0 among them (the others stay
 * undefined: simd_undef.h).
 * Beside simd_ops.h's:
 *   vlut32(idx, lo, hi)        lane l: entry idx[l] (0..31) of a 32-entry table, whose
 *                              entries 0..15 fill every 16-byte block of lo and 16..31
 *                              every block of hi
 */
#include "simd_undef.h"

#include <stdint.h>
#if !defined(ISA_GENERIC)
#include <immintrin.h>
#endif

#define LT int8_t
#define LANE_BITS 8
#define LANE_MIN (-128)

#if defined(ISA_AVX512)
#define V __m512i
#define VM __mmask64
#define VL 64
#define ISA_TARGET __attribute__((target("avx512f,avx512bw")))
#define ISA_FN(f) f##_avx512_8
#define vset1(x) _mm512_set1_epi8((char)(x))
#define vload(p) _mm512_load_si512((const void *)(p))
#define vstore(p, v) _mm512_store_si512((void *)(p), (v))
#define vadds(a, b) _mm512_adds_epi8((a), (b))
#define vsubs(a, b) _mm512_subs_epi8((a), (b))
#define vsubs0(a, b) _mm512_subs_epu8((a), (b))
#define vmax(a, b) _mm512_max_epi8((a), (b))
#define vcmpeq(a, b) _mm512_cmpeq_epi8_mask((a), (b))
#define vcmpgt(a, b) _mm512_cmpgt_epi8_mask((a), (b))
#define vsel(m, a, b) _mm512_mask_blend_epi8((m), (a), (b))
#define vmand(m1, m2) ((VM)((m1) & (m2)))
#define vany(m) ((m) != 0)
#define VMZERO ((VM)0)
#define vmaskbits(m) ((uint64_t)(m))
#define vlut32(idx, lo, hi)                                                                  \
	_mm512_mask_blend_epi8(_mm512_test_epi8_mask((idx), _mm512_set1_epi8(16)),          \
			       _mm512_shuffle_epi8((lo), (idx)), _mm512_shuffle_epi8((hi), (idx)))

#elif defined(ISA_AVX2)
#define V __m256i
#define VM __m256i
#define VL 32
#define ISA_TARGET __attribute__((target("avx2")))
#define ISA_FN(f) f##_avx2_8
#define vset1(x) _mm256_set1_epi8((char)(x))
#define vload(p) _mm256_load_si256((const __m256i *)(p))
#define vstore(p, v) _mm256_store_si256((__m256i *)(p), (v))
#define vadds(a, b) _mm256_adds_epi8((a), (b))
#define vsubs(a, b) _mm256_subs_epi8((a), (b))
#define vsubs0(a, b) _mm256_subs_epu8((a), (b))
#define vmax(a, b) _mm256_max_epi8((a), (b))
#define vcmpeq(a, b) _mm256_cmpeq_epi8((a), (b))
#define vcmpgt(a, b) _mm256_cmpgt_epi8((a), (b))
#define vsel(m, a, b) _mm256_blendv_epi8((a), (b), (m))
#define vmand(m1, m2) _mm256_and_si256((m1), (m2))
#define vany(m) (_mm256_movemask_epi8(m) != 0)
#define VMZERO _mm256_setzero_si256()
#define vmaskbits(m) ((uint64_t)(uint32_t)_mm256_movemask_epi8(m))
#define vlut32(idx, lo, hi)                                                                  \
	_mm256_blendv_epi8(_mm256_shuffle_epi8((lo), (idx)), _mm256_shuffle_epi8((hi), (idx)),  \
			   _mm256_slli_epi16((idx), 3))

#elif defined(ISA_SSE41)
#define V __m128i
#define VM __m128i
#define VL 16
#define ISA_TARGET __attribute__((target("sse4.1")))
#define ISA_FN(f) f##_sse41_8
#define vset1(x) _mm_set1_epi8((char)(x))
#define vload(p) _mm_load_si128((const __m128i *)(p))
#define vstore(p, v) _mm_store_si128((__m128i *)(p), (v))
#define vadds(a, b) _mm_adds_epi8((a), (b))
#define vsubs(a, b) _mm_subs_epi8((a), (b))
#define vsubs0(a, b) _mm_subs_epu8((a), (b))
#define vmax(a, b) _mm_max_epi8((a), (b))
#define vcmpeq(a, b) _mm_cmpeq_epi8((a), (b))
#define vcmpgt(a, b) _mm_cmpgt_epi8((a), (b))
#define vsel(m, a, b) _mm_blendv_epi8((a), (b), (m))
#define vmand(m1, m2) _mm_and_si128((m1), (m2))
#define vany(m) (_mm_movemask_epi8(m) != 0)
#define VMZERO _mm_setzero_si128()
#define vmaskbits(m) ((uint64_t)(uint32_t)_mm_movemask_epi8(m))
#define vlut32(idx, lo, hi)                                                                  \
	_mm_blendv_epi8(_mm_shuffle_epi8((lo), (idx)), _mm_shuffle_epi8((hi), (idx)),          \
			_mm_slli_epi16((idx), 3))

#elif defined(ISA_GENERIC)
/* Portable C: 16 lanes in a struct (simd_generic.h); the scalar twin of the others. */
#ifndef NW_GENERIC_VEC8_DEFINED
#define NW_GENERIC_VEC8_DEFINED
#include "simd_generic.h"
NW_GENERIC_VEC(g8, nw_gvec8_t, int8_t, 16, -128, 127)
static inline nw_gvec8_t g8_lut32(nw_gvec8_t idx, nw_gvec8_t lo, nw_gvec8_t hi)
{
	for (int l = 0; l < 16; l++)
		idx.v[l] = idx.v[l] < 16 ? lo.v[idx.v[l]] : hi.v[idx.v[l] - 16];
	return idx;
}
#endif
#define V nw_gvec8_t
#define VM nw_gvec8_t
#define VL 16
#define ISA_TARGET
#define ISA_FN(f) f##_generic_8
#define vset1(x) g8_set1(x)
#define vload(p) (*(const nw_gvec8_t *)(p))
#define vstore(p, v) (*(nw_gvec8_t *)(p) = (v))
#define vadds(a, b) g8_adds((a), (b))
#define vsubs(a, b) g8_subs((a), (b))
#define vsubs0(a, b) g8_subs0((a), (b))
#define vmax(a, b) g8_max((a), (b))
#define vcmpeq(a, b) g8_cmpeq((a), (b))
#define vcmpgt(a, b) g8_cmpgt((a), (b))
#define vsel(m, a, b) g8_sel((m), (a), (b))
#define vmand(m1, m2) g8_and((m1), (m2))
#define vany(m) g8_any(m)
#define VMZERO g8_set1(0)
#define vmaskbits(m) g8_maskbits(m)
#define vlut32(idx, lo, hi) g8_lut32((idx), (lo), (hi))

#else
#error "simd_ops8.h: define one of ISA_GENERIC, ISA_SSE41, ISA_AVX2, ISA_AVX512"
#endif
