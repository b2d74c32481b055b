/* pack2_text.c: 2-bit text, the form in which the reader keeps sequences of A, C, G and T
 * until the batch packs them (nw_pack2_text in nwalign.h; pack.c copies it into a batch's
 * words): the characters checked and turned into codes 16, 32 or 64 at a time, by the
 * vector width of the CPU engine's instruction set (cpu_isa.h), or one by one where the
 * compiler has no vectors.
 */
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "cpu_isa.h"
#include "nwalign.h"
#include "swar.h"

/* Code of one character of 2-bit text, or -1. */
static int acgt_code(unsigned char c)
{
	switch (c & 0xDF) { /* upper case */
	case 'A':
		return 0;
	case 'C':
		return 1;
	case 'G':
		return 2;
	case 'T':
		return 3;
	default:
		return -1;
	}
}

#if NW_SWAR && defined(__GNUC__)
/* Sixteen bytes in one SIMD register (SSE2 on x86-64, NEON on ARM; GCC and clang lower
 * these generic vectors to whatever the target has). */
typedef uint8_t nw_u8x16 __attribute__((vector_size(16)));
typedef uint64_t nw_u64x2 __attribute__((vector_size(16)));
#define NW_VEC 1
#else
#define NW_VEC 0
#endif

#if NW_VEC
/* The characters of x (a vector of bytes, U8) as 2-bit codes: every 64-bit lane of c (a
 * vector of U64) holds its 8 characters' codes in its low 16 bits, residue j at bits 2j;
 * ok keeps 0xFF only in the bytes where every step had A, C, G or T (either case). The
 * code is bits 2..1 of the character with bit 1 flipped when bit 2 is set: A 0x41 -> 0,
 * C 0x43 -> 1, G 0x47 -> 11 -> 2, T 0x54 -> 10 -> 3; bit 5, the case bit, plays no part.
 * One definition for the vectors of every width below. */
#define NW_ACGT_CODES(U8, U64, x, ok, c)                                                   \
	do {                                                                                 \
		const U8 up_ = (x) & 0xDF;                                                   \
		(ok) &= (U8)((up_ == 'A') | (up_ == 'C') | (up_ == 'G') | (up_ == 'T'));     \
		/* the byte shifts of SWAR, then squeeze8's merging steps */                 \
		(c) = (U64)(x);                                                              \
		(c) = (((c) >> 1) & 0x0303030303030303ull) ^ (((c) >> 2) & 0x0101010101010101ull); \
		(c) = ((c) | (c) >> 6) & 0x000F000F000F000Full;                              \
		(c) = ((c) | (c) >> 12) & 0x000000FF000000FFull;                             \
		(c) = ((c) | (c) >> 24) & 0xFFFF;                                            \
	} while (0)

/* Sixteen characters as sixteen 2-bit codes in 32 bits (NW_ACGT_CODES). */
static inline uint32_t acgt16(const unsigned char *s, nw_u8x16 *ok)
{
	nw_u8x16 x;
	nw_u64x2 c;

	memcpy(&x, s, 16);
	NW_ACGT_CODES(nw_u8x16, nw_u64x2, x, *ok, c);
	return (uint32_t)c[0] | (uint32_t)c[1] << 16;
}
#endif

#if NW_VEC && (defined(__x86_64__) || defined(__i386__))
/* The same steps on W characters at once (W = 32: AVX2, W = 64: AVX-512BW), one function
 * per width from this one definition: the lanes' low 16 bits of NW_ACGT_CODES are narrowed
 * into the W / 4 bytes out; the last step is padded as below. 0, or -1 when a character is
 * not A, C, G or T. */
#define NW_ACGT_WIDE(NAME, W, TARGET)                                                     \
	typedef uint8_t NAME##_u8 __attribute__((vector_size(W)));                            \
	typedef uint64_t NAME##_u64 __attribute__((vector_size(W)));                          \
	typedef uint16_t NAME##_u16 __attribute__((vector_size(W / 4)));                      \
	__attribute__((target(TARGET))) static inline NAME##_u16 NAME##_step(                \
		const unsigned char *s, NAME##_u8 *ok)                                        \
	{                                                                                     \
		NAME##_u8 x;                                                                  \
		NAME##_u64 c;                                                                 \
		memcpy(&x, s, W);                                                             \
		NW_ACGT_CODES(NAME##_u8, NAME##_u64, x, *ok, c);                              \
		return __builtin_convertvector(c, NAME##_u16);                                 \
	}                                                                                     \
	/* whether every character so far was A, C, G or T */                                 \
	__attribute__((target(TARGET))) static inline int NAME##_all(NAME##_u8 ok)            \
	{                                                                                     \
		const NAME##_u64 all = (NAME##_u64)ok;                                        \
		uint64_t every = ~0ull;                                                       \
		for (int k = 0; k < W / 8; k++)                                               \
			every &= all[k];                                                      \
		return every == ~0ull;                                                        \
	}                                                                                     \
	__attribute__((target(TARGET))) static int NAME(uint8_t *p, const unsigned char *s,   \
							  size_t n)                           \
	{                                                                                     \
		NAME##_u8 ok = ~(NAME##_u8){0};                                               \
		NAME##_u16 out;                                                               \
		size_t i = 0;                                                                 \
		for (; n - i >= W; i += W, p += W / 4) {                                      \
			out = NAME##_step(s + i, &ok);                                        \
			memcpy(p, &out, W / 4); /* little-endian: residue j at bits 2j */      \
			/* a line that is not DNA (protein) shows it in its first step */     \
			if (i == 0 && !NAME##_all(ok))                                        \
				return -1;                                                    \
		}                                                                             \
		if (i < n) { /* padded with A (code 0: the unused bits are 0) */              \
			unsigned char tail[W];                                                \
			memset(tail, 'A', W);                                                 \
			memcpy(tail, s + i, n - i);                                           \
			out = NAME##_step(tail, &ok);                                         \
			memcpy(p, &out, (n - i + 3) / 4);                                     \
		}                                                                             \
		return NAME##_all(ok) ? 0 : -1;                                               \
	}
NW_ACGT_WIDE(acgt_avx2, 32, "avx2")
#undef NW_ACGT_WIDE

/* AVX-512BW: 64 characters a step, the last one read and written under masks (no padded
 * copy of the tail: a record's last step costs what the others do). Codes as in
 * NW_ACGT_CODES, a byte each; then four of them into one byte by multiply-adds (1, 4,
 * 16, 64 and pairs summed), narrowed from the 32-bit lanes. Bytes past the text read as
 * 'A' (code 0: the unused bits are 0). */
__attribute__((target("avx512f,avx512bw"))) static int acgt_avx512(uint8_t *p, const unsigned char *s,
								   size_t n)
{
	const __m512i up = _mm512_set1_epi8((char)0xDF), pad = _mm512_set1_epi8('A');
	const __m512i b_a = pad, b_c = _mm512_set1_epi8('C'), b_g = _mm512_set1_epi8('G'),
		      b_t = _mm512_set1_epi8('T');
	const __m512i three = _mm512_set1_epi8(3), one = _mm512_set1_epi8(1);
	const __m512i weights = _mm512_set1_epi32(0x40100401), ones16 = _mm512_set1_epi16(1);
	__mmask64 ok = ~(__mmask64)0;
	for (size_t i = 0; i < n; i += 64, p += 16) {
		const size_t left = n - i;
		const __mmask64 in = left >= 64 ? ~(__mmask64)0 : ((__mmask64)1 << left) - 1;
		const __m512i x = _mm512_mask_loadu_epi8(pad, in, s + i);
		const __m512i u = _mm512_and_si512(x, up);
		ok &= _mm512_cmpeq_epi8_mask(u, b_a) | _mm512_cmpeq_epi8_mask(u, b_c) |
		      _mm512_cmpeq_epi8_mask(u, b_g) | _mm512_cmpeq_epi8_mask(u, b_t);
		const __m512i code = _mm512_xor_si512(_mm512_and_si512(_mm512_srli_epi16(x, 1), three),
						      _mm512_and_si512(_mm512_srli_epi16(x, 2), one));
		const __m512i quad = _mm512_madd_epi16(_mm512_maddubs_epi16(code, weights), ones16);
		_mm512_mask_cvtepi32_storeu_epi8(p, left >= 64 ? 0xFFFF : (__mmask16)((1u << (left + 3) / 4) - 1),
						 quad);
		if (i == 0 && ok != ~(__mmask64)0)
			return -1; /* not DNA (protein): its first step shows it */
	}
	return ok == ~(__mmask64)0 ? 0 : -1;
}

/* The widest step the CPU engine's instruction set allows (cpu_isa.h: NWALIGN_CPU_ISA
 * chooses it too, so the tests run each), or NULL for the 16-character steps. */
static int (*acgt_wide(void))(uint8_t *, const unsigned char *, size_t)
{
	const nw_isa_t isa = nw_cpu_isa();
	return isa == NW_ISA_AVX512 ? acgt_avx512 : isa == NW_ISA_AVX2 ? acgt_avx2 : NULL;
}
#endif

int nw_pack2_text(uint8_t *dst, uint64_t pos, const char *text, size_t n)
{
	const unsigned char *s = (const unsigned char *)text;
	uint8_t *p = dst + pos / 4;
	unsigned shift = 2 * (pos % 4);
	size_t i = 0;
	int c;

	/* Up to a byte boundary: into the partly used byte, keeping its lower residues. */
	if (shift) {
		*p &= (uint8_t)((1u << shift) - 1);
		for (; i < n && shift < 8; i++, shift += 2) {
			if ((c = acgt_code(s[i])) < 0)
				return -1;
			*p |= (uint8_t)(c << shift);
		}
		if (shift < 8)
			return 0;
		p++;
	}
#if NW_VEC && (defined(__x86_64__) || defined(__i386__))
	int (*wide)(uint8_t *, const unsigned char *, size_t) = acgt_wide();
	if (wide && n - i >= 32)
		return wide(p, s + i, n - i);
#endif
#if NW_VEC
	/* Sixteen characters a step, four bytes out; the last step pads the text with A
	 * (code 0, so the unused bits are 0) and writes only the bytes it fills. */
	nw_u8x16 ok = ~(nw_u8x16){ 0 };
	nw_u64x2 all;
	unsigned char tail[16];
	const size_t first = i;
	for (; i < n; i += 16, p += 4) {
		uint32_t v;
		if (n - i >= 16) {
			v = acgt16(s + i, &ok);
			memcpy(p, &v, 4); /* little-endian: low byte first */
			if (i == first) { /* not DNA (protein): its first step shows it */
				all = (nw_u64x2)ok;
				if ((all[0] & all[1]) != ~0ull)
					return -1;
			}
		} else {
			memset(tail, 'A', sizeof(tail));
			memcpy(tail, s + i, n - i);
			v = acgt16(tail, &ok);
			memcpy(p, &v, (n - i + 3) / 4);
		}
	}
	all = (nw_u64x2)ok;
	return (all[0] & all[1]) == ~0ull ? 0 : -1;
#else
	for (shift = 0; i < n; i++, shift = (shift + 2) & 7) {
		if ((c = acgt_code(s[i])) < 0)
			return -1;
		if (shift == 0)
			*p = 0; /* a fresh byte: its unused bits must be 0 */
		*p |= (uint8_t)(c << shift);
		p += shift == 6;
	}
	return 0;
#endif
}
