/* cigar.c: CIGAR utilities shared by the engines, the writers and the tests.
 *
 * A CIGAR is an array of BAM-encoded runs (len << 4 | op), so the SAM writer can hand it
 * to htslib unchanged. Engines build paths with nw_cigar_push (often from the end, then
 * nw_cigar_reverse), fill the path statistics with nw_cigar_stats, and the tests check
 * every path with nw_cigar_rescore against the reported score.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "nwalign.h"

/* A BAM run length has 28 bits; longer runs are split into several runs of one op. */
#define NW_CIGAR_MAX_RUN ((int64_t)((1u << 28) - 1))

void nw_result_free(nw_result_t *res)
{
	if (!res)
		return;
	if (!res->cigar_lent)
		free(res->cigar);
	res->cigar = NULL;
	res->n_cigar = res->m_cigar = 0;
	res->cigar_lent = 0;
}

uint32_t *nw_cigar_lend(nw_result_t *res, int64_t n, int64_t runs)
{
	if (n < 1 || runs < 1 || (uint64_t)n > SIZE_MAX / sizeof(uint32_t) / (uint64_t)runs)
		return NULL;
	uint32_t *block = malloc((size_t)n * (size_t)runs * sizeof *block);
	for (int64_t k = 0; block && k < n; k++) {
		nw_result_free(&res[k]);
		res[k].cigar = block + k * runs;
		res[k].m_cigar = runs;
		res[k].cigar_lent = 1;
	}
	return block;
}

/* Make room for at least need runs, doubling so that pushing n runs costs O(n). */
static int cigar_reserve(nw_result_t *res, int64_t need)
{
	int64_t m;
	uint32_t *p;

	if (need <= res->m_cigar && res->cigar)
		return 0;
	m = res->m_cigar > 16 ? res->m_cigar : 16;
	while (m < need) {
		if (m > INT64_MAX / 2 / (int64_t)sizeof(uint32_t))
			return NW_ERR_MEMORY;
		m *= 2;
	}
	if ((uint64_t)m > SIZE_MAX / sizeof(uint32_t))
		return NW_ERR_MEMORY;
	if (res->cigar_lent) { /* out of its piece of the block: an allocation of its own */
		p = malloc((size_t)m * sizeof(uint32_t));
		if (p && res->n_cigar > 0)
			memcpy(p, res->cigar, (size_t)res->n_cigar * sizeof(uint32_t));
	} else {
		p = realloc(res->cigar, (size_t)m * sizeof(uint32_t));
	}
	if (!p)
		return NW_ERR_MEMORY;
	res->cigar = p;
	res->m_cigar = m;
	res->cigar_lent = 0;
	return 0;
}

int nw_cigar_reserve(nw_result_t *res, int64_t n)
{
	return n < 1 ? 0 : cigar_reserve(res, n); /* no buffer for a path of no runs */
}

int nw_cigar_push(nw_result_t *res, uint32_t op, int64_t len)
{
	int ret;

	/* An empty run changes nothing; a negative one is a caller bug, not a path. */
	if (len == 0)
		return 0;
	if (len < 0 || op > 8)
		return NW_ERR_INTERNAL;
	if (res->n_cigar > 0) {
		uint32_t *last = &res->cigar[res->n_cigar - 1];
		if (NW_CIGAR_OP(*last) == op) {
			int64_t room = NW_CIGAR_MAX_RUN - (int64_t)NW_CIGAR_LEN(*last);
			int64_t add = len < room ? len : room;
			*last = NW_CIGAR_PACK(NW_CIGAR_LEN(*last) + (uint32_t)add, op);
			len -= add;
		}
	}
	while (len > 0) {
		int64_t run = len < NW_CIGAR_MAX_RUN ? len : NW_CIGAR_MAX_RUN;
		if ((ret = cigar_reserve(res, res->n_cigar + 1)) < 0)
			return ret;
		res->cigar[res->n_cigar++] = NW_CIGAR_PACK(run, op);
		len -= run;
	}
	return 0;
}

void nw_cigar_reverse(nw_result_t *res)
{
	int64_t i, j;

	if (!res->cigar)
		return;
	for (i = 0, j = res->n_cigar - 1; i < j; i++, j--) {
		uint32_t t = res->cigar[i];
		res->cigar[i] = res->cigar[j];
		res->cigar[j] = t;
	}
}

void nw_cigar_stats(nw_result_t *res)
{
	int64_t i, eq = 0, x = 0, ins = 0, del = 0;

	for (i = 0; i < res->n_cigar; i++) {
		int64_t l = NW_CIGAR_LEN(res->cigar[i]);
		switch (NW_CIGAR_OP(res->cigar[i])) {
		case NW_CIGAR_EQ: eq += l; break;
		case NW_CIGAR_X: x += l; break;
		case NW_CIGAR_I: ins += l; break;
		case NW_CIGAR_D: del += l; break;
		default: break; /* clips are not alignment columns */
		}
	}
	res->matches = eq;
	res->aln_len = eq + x + ins + del;
	res->edits = x + ins + del;
}

void nw_cigar_spans(const uint32_t *cigar, int64_t n, int64_t *qspan, int64_t *rspan)
{
	int64_t i, qs = 0, rs = 0;

	for (i = 0; i < n; i++) {
		int64_t l = NW_CIGAR_LEN(cigar[i]);
		switch (NW_CIGAR_OP(cigar[i])) {
		case NW_CIGAR_EQ:
		case NW_CIGAR_X: qs += l; rs += l; break;
		case NW_CIGAR_I:
		case NW_CIGAR_S: qs += l; break;
		case NW_CIGAR_D: rs += l; break;
		default: break;
		}
	}
	if (qspan)
		*qspan = qs;
	if (rspan)
		*rspan = rs;
}

static int rescore_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rescore_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return NW_ERR_FORMAT;
}

int nw_cigar_rescore(const uint32_t *cigar, int64_t n, const nw_scoring_t *sc,
		     const uint8_t *q, int64_t qlen, int64_t qstart, const uint8_t *r,
		     int64_t rlen, int64_t rstart, int64_t *score, char *err, size_t errlen)
{
	/* Codes index the matrix: a code past it would read outside the table. */
	int n_codes = sc->n_codes > 0 && sc->n_codes <= NW_MAX_CODES ? sc->n_codes
								     : NW_MAX_CODES;
	int64_t i, k, qi = qstart, ri = rstart, s = 0;
	uint32_t prev = 0; /* op of the previous non-empty run; 0 (M) never occurs here */

	if (qstart < 0 || qstart > qlen || rstart < 0 || rstart > rlen)
		return rescore_fail(err, errlen,
				    "CIGAR start (query %lld, reference %lld) is outside the "
				    "sequences (lengths %lld, %lld)",
				    (long long)qstart, (long long)rstart, (long long)qlen,
				    (long long)rlen);
	for (i = 0; i < n; i++) {
		uint32_t op = NW_CIGAR_OP(cigar[i]);
		int64_t l = NW_CIGAR_LEN(cigar[i]);
		int consumes_q = op == NW_CIGAR_EQ || op == NW_CIGAR_X || op == NW_CIGAR_I ||
				 op == NW_CIGAR_S;
		int consumes_r = op == NW_CIGAR_EQ || op == NW_CIGAR_X || op == NW_CIGAR_D;

		if (!consumes_q && !consumes_r)
			return rescore_fail(err, errlen, "CIGAR run %lld has operation %u, "
					    "not one of = X I D S", (long long)i, op);
		if (l == 0)
			continue;
		if (consumes_q && l > qlen - qi)
			return rescore_fail(err, errlen, "CIGAR run %lld (%lld%c) runs past the "
					    "end of the query (length %lld) at %lld",
					    (long long)i, (long long)l, "MIDNSHP=X"[op],
					    (long long)qlen, (long long)qi);
		if (consumes_r && l > rlen - ri)
			return rescore_fail(err, errlen, "CIGAR run %lld (%lld%c) runs past the "
					    "end of the reference (length %lld) at %lld",
					    (long long)i, (long long)l, "MIDNSHP=X"[op],
					    (long long)rlen, (long long)ri);
		switch (op) {
		case NW_CIGAR_EQ:
		case NW_CIGAR_X:
			for (k = 0; k < l; k++, qi++, ri++) {
				uint8_t a = q[qi], b = r[ri];
				if (a >= n_codes || b >= n_codes)
					return rescore_fail(err, errlen, "residue code %u out of "
							    "range at query %lld, reference %lld",
							    a >= n_codes ? a : b, (long long)qi,
							    (long long)ri);
				/* '=' means identical codes, not a positive score: N=N is a
				 * mismatch score but still '='. */
				if ((op == NW_CIGAR_EQ) != (a == b))
					return rescore_fail(err, errlen, "CIGAR '%c' at query %lld, "
							    "reference %lld, but the codes are %s",
							    op == NW_CIGAR_EQ ? '=' : 'X',
							    (long long)qi, (long long)ri,
							    a == b ? "equal" : "different");
				s += sc->score[a][b];
			}
			break;
		case NW_CIGAR_I:
		case NW_CIGAR_D:
			/* A run split at the 2^28 limit continues the same gap. */
			if (prev != op)
				s -= sc->gap_open;
			s -= (int64_t)sc->gap_extend * l;
			if (op == NW_CIGAR_I)
				qi += l;
			else
				ri += l;
			break;
		case NW_CIGAR_S:
			qi += l;
			break;
		}
		prev = op;
	}
	*score = s;
	return 0;
}

size_t nw_cigar_format(char *p, const uint32_t *cigar, int64_t n)
{
	static const char opch[16] = "MIDNSHP=X???????";
	char *p0 = p;
	int64_t i;

	if (n <= 0) {
		*p = '*';
		return 1;
	}
	for (i = 0; i < n; i++) {
		uint32_t l = NW_CIGAR_LEN(cigar[i]);
		char tmp[12];
		int t = 0;
		do {
			tmp[t++] = (char)('0' + l % 10);
			l /= 10;
		} while (l);
		while (t)
			*p++ = tmp[--t];
		*p++ = opch[NW_CIGAR_OP(cigar[i])];
	}
	return (size_t)(p - p0);
}

int nw_cigar_write(FILE *fp, const uint32_t *cigar, int64_t n)
{
	/* in pieces of 256 runs, each at most NW_CIGAR_RUN_CHARS characters */
	char buf[256 * NW_CIGAR_RUN_CHARS];
	int64_t i = 0;

	do {
		int64_t k = n - i < 256 ? n - i : 256;
		size_t len = nw_cigar_format(buf, cigar + i, n <= 0 ? 0 : k);
		if (fwrite(buf, 1, len, fp) != len)
			return NW_ERR_IO;
		i += k;
	} while (i < n);
	return 0;
}
