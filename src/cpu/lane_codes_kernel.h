/* lane_codes_kernel.h: nw_lane_codes's form by gathers (lane_codes.h), for AVX-512BW,
 * whose gathers and two-table permutes beat the byte transposes of lane_codes.c there;
 * lane_codes.c includes it with ISA_AVX512 defined.
 *
 * DL lanes a step. For four positions at a time one gather brings each lane's four bytes
 * (a 32-bit element; reversed lanes read the four before their position and take them
 * from the top byte down), then each position's byte is shifted down, mapped, replaced by
 * the pad past the lane's length and narrowed to the element size. Lanes already past
 * their length are masked out of the gather: they read nothing.
 */
#if !defined(ISA_AVX512)
#error "lane_codes_kernel.h is for ISA_AVX512"
#else
#define D __m512i
#define DL 16
#define LC_TARGET __attribute__((target("avx512f,avx512bw")))
#define LC_FN(f) f##_avx512
#define dset1(x) _mm512_set1_epi32(x)
#define dloadu(p) _mm512_loadu_si512((const void *)(p))
#define dadd(a, b) _mm512_add_epi32((a), (b))
#define dsub(a, b) _mm512_sub_epi32((a), (b))
#define dand(a, b) _mm512_and_si512((a), (b))
#define dsrl(v, s) _mm512_srl_epi32((v), _mm_cvtsi32_si128(s))
#define dcmpgt(a, b) _mm512_cmpgt_epi32_mask((a), (b))
#define dsel(m, a, b) _mm512_mask_blend_epi32((m), (a), (b)) /* b where m is set */
#define dgather(m, idx, base) _mm512_mask_i32gather_epi32(_mm512_setzero_si512(), (m), (idx), (base), 1)
/* the map's 32 entries in two vectors: one two-table permute */
#define DMAP_DECL(t32) const D map_lo = dloadu(t32), map_hi = dloadu((t32) + 16)
#define dmap(v) _mm512_permutex2var_epi32(map_lo, (v), map_hi)
#define dstore16(p, v) _mm256_storeu_si256((__m256i *)(p), _mm512_cvtepi32_epi16(v))
#define dstore8(p, v) _mm_storeu_si128((__m128i *)(p), _mm512_cvtepi32_epi8(v))
#endif

static LC_TARGET void LC_FN(lane_fill)(const nw_lane_fill_t *f, void *dst, const uint8_t *base,
					const int32_t *off, const int32_t *len, const int32_t *t32)
{
	DMAP_DECL(t32);
	const D pad = dset1(f->pad), low = dset1(0xff), four = dset1(4);
	const int64_t count = f->count, vl = f->vl;
	for (int c0 = 0; c0 < f->vl; c0 += DL) {
		const D lenv = dloadu(len + c0);
		/* the first gather's address: position 0, or the four bytes ending at len - 1 */
		const D at0 = f->rev ? dsub(dadd(dloadu(off + c0), lenv), four) : dloadu(off + c0);
		for (int64_t j0 = 0; j0 < count; j0 += 4) {
			const D jv = dset1((int)j0);
			const D g = dgather(dcmpgt(lenv, jv), f->rev ? dsub(at0, jv) : dadd(at0, jv), base);
			const int kn = count - j0 < 4 ? (int)(count - j0) : 4;
			for (int k = 0; k < kn; k++) {
				D v = dmap(dand(dsrl(g, 8 * (f->rev ? 3 - k : k)), low));
				v = dsel(dcmpgt(lenv, dset1((int)j0 + k)), pad, v);
				if (f->bytes == 2)
					dstore16((int16_t *)dst + (j0 + k) * vl + c0, v);
				else
					dstore8((int8_t *)dst + (j0 + k) * vl + c0, v);
			}
		}
	}
}

#undef D
#undef DL
#undef LC_TARGET
#undef LC_FN
#undef dset1
#undef dloadu
#undef dadd
#undef dsub
#undef dand
#undef dsrl
#undef dcmpgt
#undef dsel
#undef dgather
#undef DMAP_DECL
#undef dmap
#undef dstore16
#undef dstore8
