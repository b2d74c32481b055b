/* simd_ops32.h: simd_ops.h's operations on lanes of 32 bits (the striped pass's wide
 * variant, for values that leave 16 bits). Included after simd_ops.h (whose macros it
 * redefines) with one of ISA_GENERIC, ISA_SSE41, ISA_AVX2 or ISA_AVX512 defined; ISA_FN
 * names get a _32 suffix. vadds and vsubs do not saturate here: the caller keeps every
 * value far inside 32 bits. Only the operations the striped template uses are defined
 * (the others stay undefined: simd_undef.h).
 */
#include "simd_undef.h"

#define LT int32_t
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

#else
#error "simd_ops32.h: define one of ISA_GENERIC, ISA_SSE41, ISA_AVX2, ISA_AVX512"
#endif
