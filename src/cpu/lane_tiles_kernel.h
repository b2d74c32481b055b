/* lane_tiles_kernel.h: nw_lane_codes's form by tiles (lane_codes.h), written once for
 * 16-byte and 32-byte vectors; lane_codes.c includes it with TILE_SSE41 (16 lanes x 16
 * positions a tile) and with TILE_AVX2 (16 lanes x 32 positions) defined.
 *
 * A tile loads TW positions of each of its 16 lanes (one load a lane, byte-reversed for
 * reversed lanes; a lane's last, partial tile is copied into a buffer first, so that
 * nothing outside a sequence is read) and transposes them with four rounds of byte
 * unpacks (each round moves the row index's top bit to the bottom of the column index:
 * after four the two have swapped). Unpacks work within each 16-byte half of a vector,
 * so a 32-byte tile is two 16 x 16 transposes side by side: afterwards vector k holds
 * position k of the 16 lanes in its low half and position 16 + k in its high half. Each
 * position's 16 codes then go through the table (two 16-byte lookups, one a byte of the
 * element), the pad goes past each lane's length, and each half is stored as its
 * position's row.
 */
#if defined(TILE_SSE41)
#define T __m128i
#define TW 16
#define T_TARGET __attribute__((target("sse4.1")))
#define T_FN(f) f##_sse41
#define tloadu(p) _mm_loadu_si128((const __m128i *)(p))
#define tzero() _mm_setzero_si128()
#define tset1(x) _mm_set1_epi8((char)(x))
#define tshuf(t, x) _mm_shuffle_epi8((t), (x))
#define tblendv(a, b, m) _mm_blendv_epi8((a), (b), (m))
#define tcmpgt(a, b) _mm_cmpgt_epi8((a), (b))
#define tadd(a, b) _mm_add_epi8((a), (b))
#define tunlo(a, b) _mm_unpacklo_epi8((a), (b))
#define tunhi(a, b) _mm_unpackhi_epi8((a), (b))
#define tfrom16(x) (x)                  /* a 16-byte vector in every half */
#define thalf(x, h) ((void)(h), (x))    /* half h as a 16-byte vector */
#define tpos() _mm_setzero_si128()      /* each half's first position in the tile */
#define trev(x)                                                                              \
	_mm_shuffle_epi8((x), _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0))
#elif defined(TILE_AVX2)
#define T __m256i
#define TW 32
#define T_TARGET __attribute__((target("avx2")))
#define T_FN(f) f##_avx2
#define tloadu(p) _mm256_loadu_si256((const __m256i *)(p))
#define tzero() _mm256_setzero_si256()
#define tset1(x) _mm256_set1_epi8((char)(x))
#define tshuf(t, x) _mm256_shuffle_epi8((t), (x))
#define tblendv(a, b, m) _mm256_blendv_epi8((a), (b), (m))
#define tcmpgt(a, b) _mm256_cmpgt_epi8((a), (b))
#define tadd(a, b) _mm256_add_epi8((a), (b))
#define tunlo(a, b) _mm256_unpacklo_epi8((a), (b))
#define tunhi(a, b) _mm256_unpackhi_epi8((a), (b))
#define tfrom16(x) _mm256_broadcastsi128_si256(x)
#define thalf(x, h) ((h) ? _mm256_extracti128_si256((x), 1) : _mm256_castsi256_si128(x))
#define tpos() _mm256_setr_m128i(_mm_setzero_si128(), _mm_set1_epi8(16))
/* the bytes of each half reversed, then the halves swapped */
#define trev(x)                                                                              \
	_mm256_permute4x64_epi64(_mm256_shuffle_epi8((x), _mm256_setr_epi8(                   \
		15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,                          \
		15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)), 0x4e)
#else
#error "lane_tiles_kernel.h needs TILE_SSE41 or TILE_AVX2"
#endif

/* Entry x (0..31) of a 32-entry byte table held as t0 (0..15) and t1 (16..31). */
static inline T_TARGET T T_FN(lut32)(T x, T t0, T t1)
{
	return tblendv(tshuf(t0, x), tshuf(t1, x), tcmpgt(x, tset1(15)));
}

/* Lanes c0..c0+15, positions j0..j0+TW-1 as r[lane]: each lane's codes, 0 past its length;
 * have[lane]: how many of the TW are codes. */
static inline T_TARGET void T_FN(load_tile)(const nw_lane_fill_t *f, const uint8_t *const *src,
					     const int32_t *len, int c0, int64_t j0, T r[16],
					     int8_t have[16])
{
	for (int l = 0; l < 16; l++) {
		const int64_t n = len[c0 + l] - j0; /* the lane's codes from position j0 on */
		const uint8_t *s = src[c0 + l];
		have[l] = (int8_t)(n < 0 ? 0 : n > TW ? TW : n);
		if (n >= TW) {
			r[l] = tloadu(f->rev ? s + n - TW : s + j0);
			if (f->rev)
				r[l] = trev(r[l]);
		} else if (n > 0) { /* reversed: the codes right-aligned, then reversed */
			_Alignas(32) uint8_t b[TW] = {0};
			if (f->rev) {
				memcpy(b + TW - n, s, (size_t)n);
				r[l] = trev(tloadu(b));
			} else {
				memcpy(b, s + j0, (size_t)n);
				r[l] = tloadu(b);
			}
		} else {
			r[l] = tzero();
		}
	}
}

static T_TARGET void T_FN(lane_fill_tiles)(const nw_lane_fill_t *f, void *dst,
					   const uint8_t *const *src, const int32_t *len)
{
	_Alignas(16) uint8_t lo[NW_MAX_CODES], hi[NW_MAX_CODES];
	for (int c = 0; c < NW_MAX_CODES; c++) {
		lo[c] = (uint8_t)((uint16_t)f->map[c] & 0xff);
		hi[c] = (uint8_t)((uint16_t)f->map[c] >> 8);
	}
	const T lo0 = tfrom16(_mm_load_si128((const __m128i *)lo));
	const T lo1 = tfrom16(_mm_load_si128((const __m128i *)(lo + 16)));
	const T hi0 = tfrom16(_mm_load_si128((const __m128i *)hi));
	const T hi1 = tfrom16(_mm_load_si128((const __m128i *)(hi + 16)));
	const T pad_lo = tset1((uint16_t)f->pad & 0xff);
	const T pad_hi = tset1((uint16_t)f->pad >> 8);
	const T pos = tpos();
	const int64_t vl = f->vl;
	for (int c0 = 0; c0 < f->vl; c0 += 16)
		for (int64_t j0 = 0; j0 < f->count; j0 += TW) {
			T r[16], t[16];
			_Alignas(16) int8_t have[16];
			T_FN(load_tile)(f, src, len, c0, j0, r, have);
#pragma GCC unroll 4
			for (int round = 0; round < 4; round++) {
#pragma GCC unroll 8
				for (int i = 0; i < 8; i++) {
					t[2 * i] = tunlo(r[i], r[i + 8]);
					t[2 * i + 1] = tunhi(r[i], r[i + 8]);
				}
				memcpy(r, t, sizeof r);
			}
			const T havev = tfrom16(_mm_load_si128((const __m128i *)have));
			const int64_t left = f->count - j0; /* positions of the tile to write */
			for (int k = 0; k < 16 && k < left; k++) {
				/* r[k]: positions j0 + k and (32-byte tiles) j0 + 16 + k */
				const T in = tcmpgt(havev, tadd(pos, tset1(k)));
				const T vlo = tblendv(pad_lo, T_FN(lut32)(r[k], lo0, lo1), in);
				if (f->bytes == 1) {
					for (int h = 0; h < TW / 16 && 16 * h + k < left; h++) {
						int8_t *at = (int8_t *)dst + (j0 + 16 * h + k) * vl + c0;
						_mm_storeu_si128((__m128i *)at, thalf(vlo, h));
					}
					continue;
				}
				const T vhi = tblendv(pad_hi, T_FN(lut32)(r[k], hi0, hi1), in);
				const T elo = tunlo(vlo, vhi), ehi = tunhi(vlo, vhi);
				for (int h = 0; h < TW / 16 && 16 * h + k < left; h++) {
					int16_t *at = (int16_t *)dst + (j0 + 16 * h + k) * vl + c0;
					_mm_storeu_si128((__m128i *)at, thalf(elo, h));
					_mm_storeu_si128((__m128i *)(at + 8), thalf(ehi, h));
				}
			}
		}
}

#undef T
#undef TW
#undef T_TARGET
#undef T_FN
#undef tloadu
#undef tzero
#undef tset1
#undef tshuf
#undef tblendv
#undef tcmpgt
#undef tadd
#undef tunlo
#undef tunhi
#undef tfrom16
#undef thalf
#undef tpos
#undef trev
