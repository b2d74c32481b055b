/* pack.c: the packed batch shared by the CPU and GPU engines.
 *
 * Sequences are appended as codes and packed into one contiguous array of 32-bit words:
 * 2 bits a residue for pure A/C/G/T DNA (16 a word), 4 bits for DNA with N or other
 * IUPAC codes (8 a word), 5 bits for protein (6 a word, top 2 bits zero). Residue k of
 * a sequence sits at bit (k % per) * bits of word offset + k / per, low bits first.
 * Every sequence starts on a fresh word and unused bits are zero, so the GPU can copy
 * the buffer as is and read any sequence with aligned word loads.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "cpu_isa.h"
#include "nwalign.h"
#include "parts.h"
#include "swar.h"

/* Stamps are never reused, across batches and threads. */
static uint64_t next_stamp;

static void restamp(nw_batch_t *b)
{
	b->stamp = __atomic_add_fetch(&next_stamp, 1, __ATOMIC_RELAXED);
}

void nw_batch_init(nw_batch_t *b, nw_alphabet_t a)
{
	memset(b, 0, sizeof(*b));
	b->alphabet = a;
	restamp(b);
}

void nw_batch_clear(nw_batch_t *b)
{
	restamp(b);
	b->n = 0;
	b->n_words = 0;
	b->names_len = 0;
	b->quals_len = 0;
	b->first_record = 0;
	b->total_residues = 0;
	b->max_len = 0;
	/* qual_off == NULL is how readers of the batch learn that no record had qualities,
	 * so it must go back to NULL: the next batch may hold only FASTA records. The array
	 * is small (8 bytes a sequence) next to the residues, so freeing it costs little. */
	free(b->qual_off);
	b->qual_off = NULL;
}

void nw_batch_free(nw_batch_t *b)
{
	free(b->words);
	free(b->offset);
	free(b->len);
	free(b->bits);
	free(b->name_off);
	free(b->names);
	free(b->qual_off);
	free(b->quals);
	nw_batch_init(b, b->alphabet);
}

/* Make room for at least need elements of size sz in *p (capacity *cap), doubling so
 * that n pushes cost O(n) copies. */
static int grow(void **p, uint64_t *cap, uint64_t need, size_t sz)
{
	uint64_t c = *cap ? *cap : 16;
	void *q;

	if (need <= *cap)
		return 0;
	while (c < need)
		c += c >> 1 > 16 ? c >> 1 : 16; /* x1.5: less slack for huge residue arrays */
	if (c > SIZE_MAX / sz)
		return NW_ERR_MEMORY;
	q = realloc(*p, c * sz);
	if (!q)
		return NW_ERR_MEMORY;
	*p = q;
	*cap = c;
	return 0;
}

/* The per-sequence arrays share one capacity, b->cap: room for need sequences. */
static int grow_seqs_to(nw_batch_t *b, uint64_t need)
{
	uint64_t cap;
	void *p;

	if (need <= (uint64_t)b->cap)
		return 0;
	cap = b->cap ? (uint64_t)b->cap * 2 : 64;
	while (cap < need)
		cap *= 2;
#define NW_GROW_ARRAY(field)                                                 \
	do {                                                                 \
		p = realloc(b->field, cap * sizeof(*b->field));              \
		if (!p)                                                      \
			return NW_ERR_MEMORY;                                \
		b->field = p;                                                \
	} while (0)
	NW_GROW_ARRAY(offset);
	NW_GROW_ARRAY(len);
	NW_GROW_ARRAY(bits);
	NW_GROW_ARRAY(name_off);
	if (b->qual_off)
		NW_GROW_ARRAY(qual_off);
#undef NW_GROW_ARRAY
	b->cap = (int64_t)cap;
	return 0;
}

static int grow_seqs(nw_batch_t *b)
{
	return grow_seqs_to(b, (uint64_t)b->n + 1);
}

/* Append s (with its NUL) to an arena; *off receives where it starts. */
static int arena_push(char **arena, uint64_t *len, uint64_t *cap, const char *s,
		      uint64_t *off)
{
	size_t l = strlen(s) + 1;

	if (grow((void **)arena, cap, *len + l, 1) < 0)
		return NW_ERR_MEMORY;
	memcpy(*arena + *len, s, l);
	*off = *len;
	*len += l;
	return 0;
}

static inline uint64_t load8(const uint8_t *p)
{
	uint64_t x;
	memcpy(&x, p, 8);
	return x;
}

/* Whether every code is below lim (at most 128): eight codes a step, a byte at or above
 * lim (or at or above 128) setting its top bit in x | (x + 128 - lim). A byte of 128 or
 * more may carry into its neighbour's test, which can only add a flag to a sequence
 * already flagged. */
static int codes_below(const uint8_t *codes, uint32_t len, unsigned lim)
{
	uint32_t k = 0;

	if (NW_SWAR) {
		const uint64_t add = 0x0101010101010101ull * (128 - lim);
		uint64_t acc = 0;
		for (; k + 8 <= len; k += 8) {
			const uint64_t x = load8(codes + k);
			acc |= x | (x + add);
		}
		if (acc & 0x8080808080808080ull)
			return 0;
	}
	for (; k < len; k++)
		if (codes[k] >= lim)
			return 0;
	return 1;
}

/* Bits a residue for a sequence, or 0 when a code does not fit the alphabet. DNA: the OR
 * of the codes decides 2 bits (the usual case, eight codes a step), else the limit 4. */
static unsigned pick_bits(nw_alphabet_t a, const uint8_t *codes, uint32_t len)
{
	uint8_t all = 0;
	uint32_t k = 0;

	if (a == NW_ALPHA_PROTEIN)
		return codes_below(codes, len, NW_PROTEIN_CODES) ? 5 : 0;
	if (NW_SWAR) {
		uint64_t or8 = 0;
		for (; k + 8 <= len; k += 8)
			or8 |= load8(codes + k);
		for (int b = 0; b < 64; b += 8)
			all |= (uint8_t)(or8 >> b);
	}
	for (; k < len; k++)
		all |= codes[k];
	if (all < 4)
		return 2; /* only codes 0..3: the OR of all codes stays below 4 */
	if (a == NW_ALPHA_DNA)
		return codes_below(codes, len, NW_DNA_CODES) ? 4 : 0;
	return all < 16 ? 4 : all < 32 ? 5 : 0; /* alphabet not set: fit the codes */
}

/* Six 5-bit codes from the low six bytes of x into 30 bits: neighbours paired in 16-bit
 * lanes (10 bits each), then the three lanes joined. */
static inline uint32_t squeeze6x5(uint64_t x)
{
	x = (x & 0x0000001F001F001Full) | (x >> 3 & 0x000003E003E003E0ull);
	return (uint32_t)((x & 0x3FF) | (x >> 6 & 0xFFC00) | (x >> 12 & 0x3FF00000));
}

/* Eight codes of b bits (2 or 4) from one byte each into 8b bits: neighbours merged by
 * shifts, doubling the group each step. */
static inline uint32_t squeeze8(uint64_t x, unsigned b)
{
	if (b == 2) {
		x = (x | x >> 6) & 0x000F000F000F000Full;
		x = (x | x >> 12) & 0x000000FF000000FFull;
		return (uint32_t)((x | x >> 24) & 0xFFFF);
	}
	x = (x | x >> 4) & 0x00FF00FF00FF00FFull;
	x = (x | x >> 8) & 0x0000FFFF0000FFFFull;
	return (uint32_t)(x | x >> 16);
}

/* Pack len codes of the given bits, per codes a word, into out: every word built in a
 * register, the tail zero. */
static void pack_words(const uint8_t *codes, uint32_t len, unsigned bits, unsigned per,
		       uint32_t *out)
{
	uint32_t full = len / per, k = 0, w = 0, j;

	if (NW_SWAR && bits == 2)
		for (; w < full; w++, k += 16)
			out[w] = squeeze8(load8(codes + k), 2) | squeeze8(load8(codes + k + 8), 2) << 16;
	else if (NW_SWAR && bits == 4)
		for (; w < full; w++, k += 8)
			out[w] = squeeze8(load8(codes + k), 4);
	else if (NW_SWAR && bits == 5) /* eight bytes loaded for six: not the last word */
		for (; w + 1 < full; w++, k += 6)
			out[w] = squeeze6x5(load8(codes + k));
	for (; w < full; w++, k += per) {
		uint32_t word = 0;
		for (j = 0; j < per; j++)
			word |= (uint32_t)codes[k + j] << (j * bits);
		out[w] = word;
	}
	if (k < len) {
		uint32_t word = 0;
		for (j = 0; k + j < len; j++)
			word |= (uint32_t)codes[k + j] << (j * bits);
		out[w] = word;
	}
}

/* Record one more sequence whose nw words the caller has written at b->words + n_words
 * (room reserved with grow): the per-sequence arrays, its name and its quality. Everything
 * that can fail comes first, so that a failed allocation leaves the batch as it was (arena
 * bytes past *_len and words past n_words are never looked at). */
static int append_seq(nw_batch_t *b, const char *name, uint32_t len, unsigned bits, uint64_t nw,
		      const char *qual)
{
	uint64_t name_off, qual_off = 0;
	int64_t i;

	restamp(b);
	if (grow_seqs(b) < 0)
		return NW_ERR_MEMORY;
	if (arena_push(&b->names, &b->names_len, &b->names_cap, name ? name : "", &name_off) < 0)
		return NW_ERR_MEMORY;
	if (qual && !b->qual_off) {
		/* First record with qualities: earlier records (FASTA) get "". */
		uint64_t empty;
		b->qual_off = malloc((uint64_t)b->cap * sizeof(*b->qual_off));
		if (!b->qual_off || arena_push(&b->quals, &b->quals_len, &b->quals_cap, "", &empty) < 0)
			goto fail_qual;
		for (i = 0; i < b->n; i++)
			b->qual_off[i] = empty;
	}
	if (b->qual_off &&
	    arena_push(&b->quals, &b->quals_len, &b->quals_cap, qual ? qual : "", &qual_off) < 0) {
		b->names_len = name_off;
		return NW_ERR_MEMORY;
	}

	i = b->n;
	b->offset[i] = b->n_words;
	b->len[i] = len;
	b->bits[i] = (uint8_t)bits;
	b->name_off[i] = name_off;
	if (b->qual_off)
		b->qual_off[i] = qual_off;
	b->n_words += nw;
	b->total_residues += len;
	if (len > b->max_len)
		b->max_len = len;
	b->n++;
	return 0;

fail_qual:
	free(b->qual_off);
	b->qual_off = NULL;
	b->names_len = name_off;
	return NW_ERR_MEMORY;
}

int nw_batch_push(nw_batch_t *b, const char *name, const uint8_t *codes, uint32_t len,
		  const char *qual)
{
	unsigned bits = pick_bits(b->alphabet, codes, len);
	unsigned per = nw_residues_per_word(bits);
	uint64_t nw = nw_seq_words(bits, len);

	if (bits == 0)
		return NW_ERR_INTERNAL; /* a code outside the alphabet: the caller's bug */
	if (grow((void **)&b->words, &b->cap_words, b->n_words + nw, 4) < 0)
		return NW_ERR_MEMORY;
	pack_words(codes, len, bits, per, b->words + b->n_words);
	return append_seq(b, name, len, bits, nw, qual);
}

/* See nwalign.h. */
int nw_batch_copy_seq(nw_batch_t *dst, const nw_batch_t *src, int64_t i)
{
	const unsigned bits = src->bits[i];
	const uint64_t nw = nw_seq_words(bits, src->len[i]);
	if (grow((void **)&dst->words, &dst->cap_words, dst->n_words + nw, 4) < 0)
		return NW_ERR_MEMORY;
	memcpy(dst->words + dst->n_words, src->words + src->offset[i], 4 * nw);
	return append_seq(dst, nw_batch_name(src, i), src->len[i], bits, nw, nw_batch_qual(src, i));
}

/* See nwalign.h. Whole batches' stamps count up from 1 (restamp): a view's has its top
 * bit set, the rest a hash of the batch's stamp and the range. */
void nw_batch_view(const nw_batch_t *b, int64_t a, int64_t e, uint64_t *offsets,
		   nw_batch_t *view)
{
	uint64_t w0 = UINT64_MAX, w1 = 0, total = 0;
	uint32_t max_len = 0;
	for (int64_t i = a; i < e; i++) {
		const uint64_t end = b->offset[i] + nw_seq_words(b->bits[i], b->len[i]);
		w0 = b->offset[i] < w0 ? b->offset[i] : w0;
		w1 = end > w1 ? end : w1;
		total += b->len[i];
		max_len = b->len[i] > max_len ? b->len[i] : max_len;
	}
	if (w0 > w1)
		w0 = w1 = 0;
	for (int64_t i = a; i < e; i++)
		offsets[i - a] = b->offset[i] - w0;
	*view = *b;
	view->n = view->cap = e - a;
	view->words = b->words + w0;
	view->n_words = view->cap_words = w1 - w0;
	view->offset = offsets;
	view->len = b->len + a;
	view->bits = b->bits + a;
	view->name_off = b->name_off + a;
	view->qual_off = b->qual_off ? b->qual_off + a : NULL;
	view->first_record = b->first_record + a;
	view->total_residues = total;
	view->max_len = max_len;
	uint64_t h = b->stamp * 0x9e3779b97f4a7c15ull;
	h = (h ^ (uint64_t)a) * 0xff51afd7ed558ccdull;
	h = (h ^ (uint64_t)e) * 0xc4ceb9fe1a85ec53ull;
	view->stamp = (h ^ h >> 29) | (uint64_t)1 << 63;
}

/* The words of a sequence of 2-bit text (nw_seq_words(2, len) of them at out). */
static void copy_pack2(uint32_t *out, const uint8_t *packed, uint32_t len)
{
	uint64_t nw = ((uint64_t)len + 15) / 16, nbytes = ((uint64_t)len + 3) / 4, w;

	/* Word w is bytes 4w..4w+3, low byte first; the bytes past the last are 0. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	(void)w; /* the words' bytes are the packed bytes, in order */
	if (nw > 0) { /* (an empty sequence may have no words at all) */
		memcpy(out, packed, nbytes);
		memset((uint8_t *)out + nbytes, 0, 4 * nw - nbytes);
	}
#else
	for (w = 0; w < nbytes / 4; w++, packed += 4)
		out[w] = (uint32_t)packed[0] | (uint32_t)packed[1] << 8 | (uint32_t)packed[2] << 16 |
			 (uint32_t)packed[3] << 24;
	if (nbytes % 4) {
		uint32_t word = 0;
		for (unsigned j = 0; j < nbytes % 4; j++)
			word |= (uint32_t)packed[j] << (8 * j);
		out[w] = word;
	}
#endif
}

int nw_batch_push_pack2(nw_batch_t *b, const char *name, const uint8_t *packed, uint32_t len,
			const char *qual)
{
	uint64_t nw = ((uint64_t)len + 15) / 16;

	if (b->alphabet != NW_ALPHA_DNA)
		return NW_ERR_INTERNAL; /* 2-bit codes are DNA codes */
	if (grow((void **)&b->words, &b->cap_words, b->n_words + nw, 4) < 0)
		return NW_ERR_MEMORY;
	copy_pack2(b->words + b->n_words, packed, len);
	return append_seq(b, name, len, 2, nw, qual);
}

/* ---------------------------------------------------------------- many at once */

/* A part of nw_batch_push_all: records [a, e) of in, the batch's records from first on.
 * Phase 0 picks each record's bits (and with lay, measures its name); phase 1 packs its
 * words (and with lay, fills its entries of the per-sequence arrays and copies its name,
 * at the places the caller summed up). */
typedef struct {
	const nw_seq_in_t *in;
	int64_t n, a, e, first;
	nw_batch_t *b;
	uint8_t *bits;
	uint64_t *name_at;     /* lay: [n] name lengths (phase 0), then offsets (phase 1: a
				* name ends where the next begins, the last at names_len) */
	int lay;
	int phase;
} push_part_t;

static void *push_part(void *arg)
{
	push_part_t *p = arg;
	nw_batch_t *b = p->b;
	int64_t i;

	for (i = p->a; i < p->e; i++) {
		const nw_seq_in_t *x = &p->in[i];
		if (p->phase == 0) {
			p->bits[i] = x->pack2 ? 2 : (uint8_t)pick_bits(b->alphabet, x->codes, x->len);
			if (p->lay)
				p->name_at[i] = strlen(x->name ? x->name : "") + 1;
			continue;
		}
		const int64_t k = p->first + i;
		if (p->lay) {
			const uint64_t end = i + 1 < p->n ? p->name_at[i + 1] : b->names_len;
			b->len[k] = x->len;
			b->bits[k] = p->bits[i];
			b->name_off[k] = p->name_at[i];
			memcpy(b->names + p->name_at[i], x->name ? x->name : "", end - p->name_at[i]);
		}
		uint32_t *out = b->words + b->offset[k];
		if (x->pack2)
			copy_pack2(out, x->codes, x->len);
		else
			pack_words(x->codes, x->len, p->bits[i], nw_residues_per_word(p->bits[i]), out);
	}
	return NULL;
}

static uint64_t in_len(const void *in, int64_t i)
{
	return ((const nw_seq_in_t *)in)[i].len;
}

/* See nwalign.h. Without qualities (FASTA), the per-sequence arrays and the names are laid
 * out on the threads too: their places summed up in one pass, then filled by the parts
 * (lay). With qualities, append_seq adds the records one by one, as nw_batch_push does. */
int nw_batch_push_all(nw_batch_t *b, const nw_seq_in_t *in, int64_t n, int threads)
{
	push_part_t part[NW_PARTS_MAX];
	int64_t bound[NW_PARTS_MAX + 1], i;
	uint64_t total = 0, *name_at = NULL;
	int t, ret = 0, lay = !b->qual_off;
	uint8_t *bits;

	if (n <= 0)
		return 0;
	for (i = 0; lay && i < n; i++)
		lay = !in[i].qual;
	if (!(bits = malloc((size_t)n)) || (lay && !(name_at = malloc((size_t)n * sizeof *name_at)))) {
		free(bits);
		return NW_ERR_MEMORY;
	}
	threads = nw_parts_count(threads, n);
	nw_parts_cut(n, in_len, in, threads, bound);
	for (t = 0; t < threads; t++)
		part[t] = (push_part_t){in, n, bound[t], bound[t + 1], b->n, b, bits, name_at, lay, 0};
	nw_parts_run(push_part, part, sizeof *part, threads);
	for (i = 0; i < n; i++) {
		if (bits[i] == 0 || (in[i].pack2 && b->alphabet != NW_ALPHA_DNA)) {
			ret = NW_ERR_INTERNAL; /* a code outside the alphabet: the caller's bug */
			goto out;
		}
		total += nw_seq_words(bits[i], in[i].len);
	}
	if (grow((void **)&b->words, &b->cap_words, b->n_words + total, 4) < 0) {
		ret = NW_ERR_MEMORY;
		goto out;
	}
	if (lay) {
		/* room for every record, then each one's words, name and length summed up */
		uint64_t names = 0;
		for (i = 0; i < n; i++)
			names += name_at[i];
		if ((ret = grow_seqs_to(b, (uint64_t)(b->n + n))) < 0)
			goto out;
		if (grow((void **)&b->names, &b->names_cap, b->names_len + names, 1) < 0) {
			ret = NW_ERR_MEMORY;
			goto out;
		}
		restamp(b);
		for (i = 0; i < n; i++) {
			const uint64_t l = name_at[i];
			b->offset[b->n + i] = b->n_words;
			b->n_words += nw_seq_words(bits[i], in[i].len);
			name_at[i] = b->names_len;
			b->names_len += l;
			b->total_residues += in[i].len;
			if (in[i].len > b->max_len)
				b->max_len = in[i].len;
		}
		b->n += n;
	} else {
		/* the records' offsets, names and qualities in order, then their words in parts */
		for (i = 0; i < n; i++)
			if ((ret = append_seq(b, in[i].name, in[i].len, bits[i],
					      nw_seq_words(bits[i], in[i].len), in[i].qual)) < 0)
				goto out;
	}
	for (t = 0; t < threads; t++) {
		part[t].first = b->n - n;
		part[t].phase = 1;
	}
	nw_parts_run(push_part, part, sizeof *part, threads);
out:
	free(name_at);
	free(bits);
	return ret;
}

/* Byte -> the 4 two-bit codes (or 2 four-bit codes) it holds, low bits first. Built by
 * macro expansion so that the tables are constant data, not filled at run time. */
#define NW_U2(x) { (x) & 3, (x) >> 2 & 3, (x) >> 4 & 3, (x) >> 6 & 3 }
#define NW_U4(x) { (x) & 15, (x) >> 4 }
#define NW_R4(f, n) f(n), f((n) + 1), f((n) + 2), f((n) + 3)
#define NW_R16(f, n) NW_R4(f, n), NW_R4(f, (n) + 4), NW_R4(f, (n) + 8), NW_R4(f, (n) + 12)
#define NW_R64(f, n) NW_R16(f, n), NW_R16(f, (n) + 16), NW_R16(f, (n) + 32), NW_R16(f, (n) + 48)
#define NW_R256(f) NW_R64(f, 0), NW_R64(f, 64), NW_R64(f, 128), NW_R64(f, 192)
static const uint8_t unpack2[256][4] = { NW_R256(NW_U2) };
static const uint8_t unpack4[256][2] = { NW_R256(NW_U4) };
#undef NW_U2
#undef NW_U4
#undef NW_R4
#undef NW_R16
#undef NW_R64
#undef NW_R256

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* The whole 16-byte steps of a 2-bit (64 codes) or 4-bit (32 codes) sequence of len codes
 * from its words w into out, by byte shuffles: each byte's low and high nibble looked up
 * in two 16-entry tables (a 2-bit nibble holds two codes, a 4-bit nibble one), the
 * results interleaved back into residue order. Returns the codes written (a multiple of
 * the step, at most len: nothing is written past out[len - 1]). */
__attribute__((target("ssse3"))) static uint32_t unpack_ssse3(const uint32_t *w, uint32_t len,
							     unsigned bits, uint8_t *out)
{
	const __m128i nib = _mm_set1_epi8(0x0f);
	uint32_t k = 0;
	if (bits == 2) {
		const __m128i first = _mm_setr_epi8(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3),
			      second = _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
		for (; len - k >= 64; k += 64, w += 4) {
			const __m128i x = _mm_loadu_si128((const __m128i *)w);
			const __m128i lo = _mm_and_si128(x, nib),
				      hi = _mm_and_si128(_mm_srli_epi16(x, 4), nib);
			/* byte t's residues 4t, 4t + 1 (low nibble), 4t + 2, 4t + 3 (high) */
			const __m128i r0 = _mm_shuffle_epi8(first, lo), r1 = _mm_shuffle_epi8(second, lo);
			const __m128i r2 = _mm_shuffle_epi8(first, hi), r3 = _mm_shuffle_epi8(second, hi);
			const __m128i p01l = _mm_unpacklo_epi8(r0, r1), p01h = _mm_unpackhi_epi8(r0, r1);
			const __m128i p23l = _mm_unpacklo_epi8(r2, r3), p23h = _mm_unpackhi_epi8(r2, r3);
			_mm_storeu_si128((__m128i *)(out + k), _mm_unpacklo_epi16(p01l, p23l));
			_mm_storeu_si128((__m128i *)(out + k + 16), _mm_unpackhi_epi16(p01l, p23l));
			_mm_storeu_si128((__m128i *)(out + k + 32), _mm_unpacklo_epi16(p01h, p23h));
			_mm_storeu_si128((__m128i *)(out + k + 48), _mm_unpackhi_epi16(p01h, p23h));
		}
	} else {
		for (; len - k >= 32; k += 32, w += 4) {
			const __m128i x = _mm_loadu_si128((const __m128i *)w);
			const __m128i lo = _mm_and_si128(x, nib),
				      hi = _mm_and_si128(_mm_srli_epi16(x, 4), nib);
			_mm_storeu_si128((__m128i *)(out + k), _mm_unpacklo_epi8(lo, hi));
			_mm_storeu_si128((__m128i *)(out + k + 16), _mm_unpackhi_epi8(lo, hi));
		}
	}
	return k;
}
#endif

void nw_batch_unpack(const nw_batch_t *b, int64_t i, uint8_t *out)
{
	const uint32_t *w = b->words + b->offset[i];
	uint32_t len = b->len[i], k = 0, j;
	unsigned bits = b->bits[i];

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	/* the vector steps with any instruction set of the CPU engine but the generic one
	 * (NWALIGN_CPU_ISA=generic runs the scalar loops below alone: the twin) */
	if ((bits == 2 || bits == 4) && nw_cpu_isa() != NW_ISA_GENERIC) {
		k = unpack_ssse3(w, len, bits, out);
		w += k / (32 / bits);
	}
#endif
	/* Whole words (table lookups a byte at a time), then the partial tail. */
	if (bits == 2) {
		for (; k + 16 <= len; k += 16, w++) {
			uint32_t x = *w;
			memcpy(out + k, unpack2[x & 255], 4);
			memcpy(out + k + 4, unpack2[x >> 8 & 255], 4);
			memcpy(out + k + 8, unpack2[x >> 16 & 255], 4);
			memcpy(out + k + 12, unpack2[x >> 24], 4);
		}
	} else if (bits == 4) {
		for (; k + 8 <= len; k += 8, w++) {
			uint32_t x = *w;
			memcpy(out + k, unpack4[x & 255], 2);
			memcpy(out + k + 2, unpack4[x >> 8 & 255], 2);
			memcpy(out + k + 4, unpack4[x >> 16 & 255], 2);
			memcpy(out + k + 6, unpack4[x >> 24], 2);
		}
	} else {
		for (; k + 6 <= len; k += 6, w++) {
			uint32_t x = *w;
			out[k] = x & 31;
			out[k + 1] = x >> 5 & 31;
			out[k + 2] = x >> 10 & 31;
			out[k + 3] = x >> 15 & 31;
			out[k + 4] = x >> 20 & 31;
			out[k + 5] = x >> 25 & 31;
		}
	}
	for (j = 0; k < len; k++, j++)
		out[k] = (uint8_t)(*w >> (j * bits) & ((1u << bits) - 1));
}

int nw_batch_revcomp(const nw_batch_t *src, nw_batch_t *dst)
{
	uint8_t *fwd = malloc((size_t)src->max_len + 1), *rc = malloc((size_t)src->max_len + 1);
	char *qual = malloc((size_t)src->max_len + 1);
	int ret = (fwd && rc && qual) ? 0 : NW_ERR_MEMORY;
	nw_batch_clear(dst);
	dst->alphabet = src->alphabet;
	dst->first_record = src->first_record;
	for (int64_t i = 0; i < src->n && ret == 0; i++) {
		uint32_t len = src->len[i];
		const char *q = nw_batch_qual(src, i);
		nw_batch_unpack(src, i, fwd);
		for (uint32_t k = 0; k < len; k++)
			rc[k] = nw_dna_complement(fwd[len - 1 - k]);
		if (q && *q) {
			for (uint32_t k = 0; k < len; k++)
				qual[k] = q[len - 1 - k];
			qual[len] = 0;
		}
		ret = nw_batch_push(dst, nw_batch_name(src, i), rc, len, q ? (*q ? qual : "") : NULL);
	}
	free(fwd);
	free(rc);
	free(qual);
	return ret;
}
