/* encode.c: the reader's second step: the pending records' characters validated against
 * an alphabet, encoded and packed into a batch (see seqio.c for the first, parsing).
 *
 * Pending records of many residues (the references of a search, which every alignment
 * waits for) are encoded and packed on the reader's threads, records cut into parts of
 * about equal residues: each part encodes its records in place in the arena, then the
 * batch packs them (nw_batch_push_all). An invalid character stops its part; the first
 * part that met one names it, so the message is the one the serial loop gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parts.h"
#include "reader.h"

void nw_reader_count_chars(const nw_reader_t *r, uint64_t counts[256])
{
	uint64_t local[256] = { 0 }, bytes[256] = { 0 };
	int64_t i;
	int c, j;

	for (i = 0; i < r->n_pend; i++) {
		const nw_rec_t *rec = &r->pend[i];
		const unsigned char *s = (const unsigned char *)r->text + rec->seq;
		uint64_t k, len = rec->len;
		if (!rec->packed) {
			for (k = 0; k < len; k++)
				local[s[k]]++;
			continue;
		}
		/* 2-bit text: whole bytes (four residues) by value, then the last residues */
		for (k = 0; k < len / 4; k++)
			bytes[s[k]]++;
		for (k = len / 4 * 4; k < len; k++)
			local[(unsigned char)"ACGT"[nw_pack2_code(s, k)]]++;
	}
	for (c = 0; c < 256; c++)
		for (j = 0; j < 4; j++)
			local[(unsigned char)"ACGT"[c >> (2 * j) & 3]] += bytes[c];
	for (c = 0; c < 256; c++)
		counts[c >= 'a' && c <= 'z' ? c - ('a' - 'A') : c] += local[c];
}

/* Codes of the text s through table: len when every character is valid, else the
 * position of the first invalid one. */
static uint32_t encode_text(const int8_t table[256], const unsigned char *s, uint32_t len,
			    uint8_t *codes)
{
	int8_t any = 0;
	uint32_t k;

	for (k = 0; k < len; k++) {
		int8_t v = table[s[k]];
		codes[k] = (uint8_t)v;
		any |= v; /* negative once any character is invalid */
	}
	if (any >= 0)
		return len;
	for (k = 0; table[s[k]] >= 0;)
		k++;
	return k;
}

/* The codes (through table) of 2-bit text s, len residues: a record of A, C, G and T
 * only, which the reader keeps as 2-bit text, in the protein alphabet. */
static void pack2_codes(const int8_t table[256], const uint8_t *s, uint64_t len, uint8_t *codes)
{
	for (uint64_t k = 0; k < len; k++)
		codes[k] = (uint8_t)table[(unsigned char)"ACGT"[nw_pack2_code(s, k)]];
}

/* The error for character c at 0-based position k of record idx (0-based in its file). */
static int bad_char(nw_reader_t *r, nw_alphabet_t a, const char *name, int64_t idx, unsigned char c,
		    uint64_t k, char *err, size_t errlen)
{
	char namebuf[96], bb[8];

	if (c == '-' || c == '.')
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
				      REC_FMT ": gap character '%c' at position %llu: nwalign aligns "
				      "sequences, not alignments; remove the gaps first, for example "
				      "with sed '/^>/!s/[-.]//g'",
				      REC_ARGS(name, idx), c, (unsigned long long)k + 1);
	return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
			      REC_FMT ": invalid character '%s' at position %llu for the %s alphabet",
			      REC_ARGS(name, idx), nw_show_byte(c, bb), (unsigned long long)k + 1,
			      nw_alphabet_name(a));
}

/* Pending records of at least this many residues are encoded on the reader's threads
 * (below it, starting threads costs more than it saves). */
#define NW_ENCODE_PARALLEL_RESIDUES ((uint64_t)1 << 20)

void nw_reader_set_threads(nw_reader_t *r, int threads)
{
	r->threads = threads;
}

/* A part of the parallel encoding: pending records [a0, a1) into in[a0..a1). */
typedef struct {
	nw_reader_t *r;
	const int8_t *table;
	nw_alphabet_t alpha;
	nw_seq_in_t *in;
	uint8_t **owned;       /* codes decoded from 2-bit protein text, freed after packing */
	int64_t a0, a1;
	int64_t bad;           /* the first record with an invalid character, or -1 */
	uint64_t bad_pos;
	unsigned char bad_c;
	int oom;
} enc_part_t;

static void *encode_part(void *arg)
{
	enc_part_t *p = arg;
	const nw_reader_t *r = p->r;
	int64_t i;

	for (i = p->a0; i < p->a1; i++) {
		const nw_rec_t *rec = &r->pend[i];
		unsigned char *s = (unsigned char *)r->text + rec->seq;
		nw_seq_in_t *x = &p->in[i];
		uint64_t k;

		x->name = r->text + rec->name;
		x->qual = rec->has_qual ? r->text + rec->qual : NULL;
		x->len = (uint32_t)rec->len;
		x->pack2 = rec->packed && p->alpha == NW_ALPHA_DNA;
		x->codes = s;
		if (x->pack2)
			continue;
		if (rec->packed) { /* protein: A, C, G and T are valid letters there too */
			uint8_t *c = malloc(rec->len ? rec->len : 1);
			if (!c) {
				p->oom = 1;
				return NULL;
			}
			pack2_codes(p->table, s, rec->len, c);
			p->owned[i] = c;
			x->codes = c;
			continue;
		}
		/* in place: a character is read before its code takes its byte */
		for (k = 0; k < rec->len; k++) {
			const int8_t v = p->table[s[k]];
			if (v < 0) {
				p->bad = i, p->bad_pos = k, p->bad_c = s[k];
				return NULL;
			}
			s[k] = (unsigned char)v;
		}
	}
	return NULL;
}

static uint64_t pend_len(const void *r, int64_t i)
{
	return ((const nw_reader_t *)r)->pend[i].len;
}

/* The pending records into out (cleared, alphabet a set) on r->threads threads. */
static int encode_parallel(nw_reader_t *r, nw_alphabet_t a, const int8_t table[256], nw_batch_t *out,
			   char *err, size_t errlen)
{
	const int64_t n = r->n_pend;
	const int parts = nw_parts_count(r->threads, n);
	enc_part_t part[NW_PARTS_MAX];
	int64_t bound[NW_PARTS_MAX + 1], i;
	nw_seq_in_t *in = malloc((size_t)n * sizeof *in);
	uint8_t **owned = calloc((size_t)n, sizeof *owned);
	int t, ret = 0;

	if (!in || !owned) {
		free(in);
		free(owned);
		return nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory");
	}
	nw_parts_cut(n, pend_len, r, parts, bound);
	for (t = 0; t < parts; t++)
		part[t] = (enc_part_t){r, table, a, in, owned, bound[t], bound[t + 1], -1, 0, 0, 0};
	nw_parts_run(encode_part, part, sizeof *part, parts);
	for (t = 0; t < parts && ret == 0; t++) {
		if (part[t].oom)
			ret = nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory");
		else if (part[t].bad >= 0)
			ret = bad_char(r, a, r->text + r->pend[part[t].bad].name, out->first_record + part[t].bad,
				       part[t].bad_c, part[t].bad_pos, err, errlen);
	}
	if (ret == 0 && (ret = nw_batch_push_all(out, in, n, parts)) < 0)
		ret = nw_reader_fail(r, ret, err, errlen, "%s packing %lld records",
				     ret == NW_ERR_MEMORY ? "out of memory" : "internal error", (long long)n);
	for (i = 0; i < n; i++)
		free(owned[i]);
	free(owned);
	free(in);
	return ret;
}

int nw_reader_encode(nw_reader_t *r, nw_alphabet_t a, nw_batch_t *out, char *err,
		     size_t errlen)
{
	char namebuf[96];
	int8_t table[256];
	int64_t i;
	int c, ret;

	if (r->failed) {
		snprintf(err, errlen, "%s", r->errmsg);
		return r->failed;
	}
	if (a != NW_ALPHA_DNA && a != NW_ALPHA_PROTEIN) {
		/* Convenience for callers that did not guess: decide from this batch. */
		uint64_t counts[256] = { 0 };
		nw_reader_count_chars(r, counts);
		a = nw_alphabet_guess(counts);
	}
	for (c = 0; c < 256; c++)
		table[c] = (int8_t)nw_encode_char(a, c);
	nw_batch_clear(out);
	out->alphabet = a;
	out->first_record = r->n_read - r->n_pend;
	if (r->threads > 1 && r->n_pend > 1 && r->pend_residues >= NW_ENCODE_PARALLEL_RESIDUES) {
		if ((ret = encode_parallel(r, a, table, out, err, errlen)) < 0)
			return ret;
		goto done;
	}
	if (r->pend_max_len > r->codes_cap) {
		uint8_t *p = realloc(r->codes, r->pend_max_len);
		if (!p)
			return nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory");
		r->codes = p;
		r->codes_cap = r->pend_max_len;
	}
	for (i = 0; i < r->n_pend; i++) {
		const nw_rec_t *rec = &r->pend[i];
		const unsigned char *s = (const unsigned char *)r->text + rec->seq;
		const char *name = r->text + rec->name;
		const char *qual = rec->has_qual ? r->text + rec->qual : NULL;
		uint32_t len = (uint32_t)rec->len;
		uint32_t k;

		if (rec->packed && a == NW_ALPHA_DNA) {
			/* 2-bit text is the byte image of the batch's 2-bit words: a copy */
			ret = nw_batch_push_pack2(out, name, s, len, qual);
		} else {
			if (rec->packed) /* protein: A, C, G and T are valid letters there too */
				pack2_codes(table, s, len, r->codes);
			else if ((k = encode_text(table, s, len, r->codes)) < len)
				return bad_char(r, a, name, out->first_record + i, s[k], k, err, errlen);
			ret = nw_batch_push(out, name, r->codes, len, qual);
		}
		if (ret < 0)
			return nw_reader_fail(r, ret, err, errlen, "out of memory packing " REC_FMT,
					      REC_ARGS(name, out->first_record + i));
	}
done:
	r->n_pend = 0;
	r->text_len = 0;
	r->pend_residues = 0;
	r->pend_max_len = 0;
	return 0;
}
