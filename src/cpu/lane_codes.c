/* lane_codes.c: a group's sequences in lane order (lane_codes.h): the portable loop, and
 * the vector form (lane_codes_kernel.h) compiled for AVX2 and AVX-512BW. */
#include <stddef.h>

#include "cpu_isa.h"
#include "lane_codes.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NW_LANE_GATHERS 1
#define ISA_AVX2
#include "lane_codes_kernel.h"
#undef ISA_AVX2
#define ISA_AVX512
#include "lane_codes_kernel.h"
#undef ISA_AVX512
#endif

/* The scalar twin: lane by lane, in runs of 64 positions (the runs' rows of the output
 * stay in the first cache level). */
static void lane_fill_generic(const nw_lane_fill_t *f, void *dst, const uint8_t *const *src,
			      const int32_t *len)
{
	const int64_t vl = f->vl;
	for (int64_t j0 = 0; j0 < f->count; j0 += 64) {
		const int64_t j1 = f->count - j0 < 64 ? f->count : j0 + 64;
		for (int64_t l = 0; l < vl; l++) {
			const int64_t n = len[l] < j1 ? len[l] : j1;
			int64_t j = j0;
			for (; j < n; j++) {
				const int16_t v = f->map[src[l][f->rev ? len[l] - 1 - j : j]];
				if (f->bytes == 2)
					((int16_t *)dst)[j * vl + l] = v;
				else
					((int8_t *)dst)[j * vl + l] = (int8_t)v;
			}
			for (; j < j1; j++) {
				if (f->bytes == 2)
					((int16_t *)dst)[j * vl + l] = f->pad;
				else
					((int8_t *)dst)[j * vl + l] = (int8_t)f->pad;
			}
		}
	}
}

void nw_lane_codes(int isa, const nw_lane_fill_t *f, void *dst, const uint8_t *const *src,
		   const int32_t *len)
{
#ifdef NW_LANE_GATHERS
	const int dl = isa == NW_ISA_AVX512 ? 16 : isa == NW_ISA_AVX2 ? 8 : 0;
	if (dl && f->vl % dl == 0 && f->vl <= NW_LANE_CODES_MAX) {
		/* 32-bit gather offsets from the lowest sequence of the group */
		const uint8_t *base = NULL;
		for (int l = 0; l < f->vl; l++)
			if (len[l] > 0 && (!base || src[l] < base))
				base = src[l];
		int32_t off[NW_LANE_CODES_MAX], t32[NW_MAX_CODES];
		int fits = base != NULL;
		for (int l = 0; fits && l < f->vl; l++) {
			const ptrdiff_t d = len[l] > 0 ? src[l] - base : 0;
			fits = d + (ptrdiff_t)len[l] + NW_LANE_SLACK <= INT32_MAX;
			off[l] = (int32_t)d;
		}
		for (int c = 0; c < NW_MAX_CODES; c++)
			t32[c] = f->map[c];
		if (fits) {
			(isa == NW_ISA_AVX512 ? lane_fill_avx512 : lane_fill_avx2)(f, dst, base, off, len,
										      t32);
			return;
		}
	}
#else
	(void)isa;
#endif
	lane_fill_generic(f, dst, src, len);
}
