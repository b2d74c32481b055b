/* lane_codes.c: a group's sequences in lane order (lane_codes.h): the portable loop, the
 * form by tiles of 16 lanes x 16 positions for SSE4.1 and AVX2, and the form by gathers
 * for AVX-512BW (lane_codes_kernel.h).
 *
 * The tile form loads 16 positions of each of 16 lanes (one 16-byte load a lane, byte-
 * reversed for reversed lanes; a lane's last, partial tile is copied byte by byte, so that
 * nothing outside a sequence is read), transposes the 16 x 16 bytes with four rounds of
 * byte unpacks (each round moves the row index's top bit to the bottom of the column
 * index: after four the two have swapped), then maps each position's 16 codes through the
 * table (two 16-byte lookups, one a byte of the element) and puts the pad past each lane's
 * length. */
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
#define TILE_TARGET __attribute__((target("sse4.1")))

/* Entry x (0..31) of a 32-entry byte table held as t0 (0..15) and t1 (16..31). */
static inline TILE_TARGET __m128i lut32(__m128i x, __m128i t0, __m128i t1)
{
	return _mm_blendv_epi8(_mm_shuffle_epi8(t0, x), _mm_shuffle_epi8(t1, x),
			       _mm_cmpgt_epi8(x, _mm_set1_epi8(15)));
}

/* Lanes c0..c0+15, positions j0..j0+15 as r[lane]: each lane's codes, 0 past its length;
 * have[lane]: how many of the 16 are codes. */
static inline TILE_TARGET void load_tile(const nw_lane_fill_t *f, const uint8_t *const *src,
					 const int32_t *len, int c0, int64_t j0, __m128i r[16],
					 int8_t have[16])
{
	const __m128i reverse = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
	for (int l = 0; l < 16; l++) {
		const int64_t n = len[c0 + l] - j0; /* the lane's codes from position j0 on */
		const uint8_t *s = src[c0 + l];
		have[l] = (int8_t)(n < 0 ? 0 : n > 16 ? 16 : n);
		if (n >= 16) {
			r[l] = _mm_loadu_si128((const __m128i *)(f->rev ? s + n - 16 : s + j0));
			if (f->rev)
				r[l] = _mm_shuffle_epi8(r[l], reverse);
		} else if (n > 0) {
			_Alignas(16) uint8_t b[16] = {0};
			for (int64_t k = 0; k < n; k++)
				b[k] = f->rev ? s[n - 1 - k] : s[j0 + k];
			r[l] = _mm_load_si128((const __m128i *)b);
		} else {
			r[l] = _mm_setzero_si128();
		}
	}
}

static TILE_TARGET void lane_fill_tiles(const nw_lane_fill_t *f, void *dst,
					const uint8_t *const *src, const int32_t *len)
{
	_Alignas(16) uint8_t lo[NW_MAX_CODES], hi[NW_MAX_CODES];
	for (int c = 0; c < NW_MAX_CODES; c++) {
		lo[c] = (uint8_t)((uint16_t)f->map[c] & 0xff);
		hi[c] = (uint8_t)((uint16_t)f->map[c] >> 8);
	}
	const __m128i lo0 = _mm_load_si128((const __m128i *)lo);
	const __m128i lo1 = _mm_load_si128((const __m128i *)(lo + 16));
	const __m128i hi0 = _mm_load_si128((const __m128i *)hi);
	const __m128i hi1 = _mm_load_si128((const __m128i *)(hi + 16));
	const __m128i pad_lo = _mm_set1_epi8((char)((uint16_t)f->pad & 0xff));
	const __m128i pad_hi = _mm_set1_epi8((char)((uint16_t)f->pad >> 8));
	const int64_t vl = f->vl;
	for (int c0 = 0; c0 < f->vl; c0 += 16)
		for (int64_t j0 = 0; j0 < f->count; j0 += 16) {
			__m128i r[16], t[16];
			_Alignas(16) int8_t have[16];
			load_tile(f, src, len, c0, j0, r, have);
#pragma GCC unroll 4
			for (int round = 0; round < 4; round++) {
#pragma GCC unroll 8
				for (int i = 0; i < 8; i++) {
					t[2 * i] = _mm_unpacklo_epi8(r[i], r[i + 8]);
					t[2 * i + 1] = _mm_unpackhi_epi8(r[i], r[i + 8]);
				}
				memcpy(r, t, sizeof r);
			}
			const __m128i havev = _mm_load_si128((const __m128i *)have);
			const int rows = f->count - j0 < 16 ? (int)(f->count - j0) : 16;
			for (int k = 0; k < rows; k++) { /* r[k]: position j0 + k of the 16 lanes */
				const __m128i in = _mm_cmpgt_epi8(havev, _mm_set1_epi8((char)k));
				const __m128i vlo = _mm_blendv_epi8(pad_lo, lut32(r[k], lo0, lo1), in);
				const int64_t at = (j0 + k) * vl + c0;
				if (f->bytes == 1) {
					_mm_storeu_si128((__m128i *)((int8_t *)dst + at), vlo);
					continue;
				}
				const __m128i vhi = _mm_blendv_epi8(pad_hi, lut32(r[k], hi0, hi1), in);
				_mm_storeu_si128((__m128i *)((int16_t *)dst + at), _mm_unpacklo_epi8(vlo, vhi));
				_mm_storeu_si128((__m128i *)((int16_t *)dst + at + 8),
						 _mm_unpackhi_epi8(vlo, vhi));
			}
		}
}
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
		lane_fill_tiles(f, dst, src, len);
		return;
	}
#else
	(void)isa;
#endif
	lane_fill_generic(f, dst, src, len);
}
