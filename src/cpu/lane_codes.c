/* lane_codes.c: a group's sequences in lane order (lane_codes.h): the portable loop, the
 * form by tiles of 16 lanes x 16 positions for SSE4.1 and of 16 lanes x 32 positions for
 * AVX2 (lane_tiles_kernel.h), and the form by gathers for AVX-512BW (lane_codes_kernel.h),
 * which falls back to the AVX2 tiles where its 32-bit offsets do not reach. */
#include <stddef.h>
#include <string.h>

#include "cpu_isa.h"
#include "lane_codes.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define NW_LANE_X86 1
#define ISA_AVX512
#include "lane_codes_kernel.h"
#undef ISA_AVX512
#define TILE_SSE41
#include "lane_tiles_kernel.h"
#undef TILE_SSE41
#define TILE_AVX2
#include "lane_tiles_kernel.h"
#undef TILE_AVX2
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
#ifdef NW_LANE_X86
	if (isa == NW_ISA_AVX512 && f->vl % 16 == 0 && f->vl <= NW_LANE_CODES_MAX) {
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
			lane_fill_avx512(f, dst, base, off, len, t32);
			return;
		}
	}
	if (isa != NW_ISA_GENERIC && f->vl % 16 == 0) {
		(isa == NW_ISA_SSE41 ? lane_fill_tiles_sse41 : lane_fill_tiles_avx2)(f, dst, src, len);
		return;
	}
#else
	(void)isa;
#endif
	lane_fill_generic(f, dst, src, len);
}
