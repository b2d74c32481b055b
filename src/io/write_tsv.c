/* write_tsv.c: the TSV output, one line per pair:
 *   qname qlen qstart qend rname rlen rstart rend strand score [matches alnlen cigar]
 * with 0-based half-open coordinates. Lines are assembled with hand-written integer
 * formatting (printf per field would dominate the run time at a million pairs a second)
 * into a text buffer; writer.c formats slices of a batch on several threads and writes
 * them in order.
 */
#include <string.h>

#include "writer_impl.h"

int nw_tsv_header(nw_writer_t *w, char *err, size_t errlen)
{
	static const char base[] = "#qname\tqlen\tqstart\tqend\trname\trlen\trstart\trend"
				   "\tstrand\tscore";
	static const char more[] = "\tmatches\talnlen\tcigar";
	int ret;

	if ((ret = nw_wr_put(w, base, sizeof(base) - 1, err, errlen)) < 0)
		return ret;
	if (w->cigar && (ret = nw_wr_put(w, more, sizeof(more) - 1, err, errlen)) < 0)
		return ret;
	return nw_wr_put(w, "\n", 1, err, errlen);
}

int nw_tsv_format(const nw_writer_t *w, nw_text_t *t, const nw_batch_t *qb,
		  const nw_batch_t *rb, const nw_pair_t *pairs, const nw_result_t *res, int64_t n,
		  char *err, size_t errlen)
{
	for (int64_t i = 0; i < n; i++) {
		const nw_pair_t *pr = &pairs[i];
		const nw_result_t *rs = &res[i];
		const int64_t n_cigar = w->cigar && rs->cigar ? rs->n_cigar : 0;

		if (pr->q >= qb->n || pr->r >= rb->n)
			return nw_wr_fail(NW_ERR_INTERNAL, err, errlen,
					  "pair %lld points outside its batch (%u, %u)",
					  (long long)i, pr->q, pr->r);
		const char *qn = nw_batch_name(qb, pr->q), *rn = nw_batch_name(rb, pr->r);
		const size_t lq = strlen(qn), lr = strlen(rn);
		/* 12 numbers of at most 20 digits and a sign, separators, the strand, the CIGAR */
		if (nw_text_room(t, lq + lr + 300 + (size_t)n_cigar * NW_CIGAR_RUN_CHARS) < 0)
			return nw_wr_fail(NW_ERR_MEMORY, err, errlen,
					  "out of memory writing the output");
		char *p = t->p + t->len;
		p = nw_wr_field_str(p, qn, lq);
		p = nw_wr_field_int(p, qb->len[pr->q]);
		p = nw_wr_field_int(p, rs->qstart);
		p = nw_wr_field_int(p, rs->qend);
		p = nw_wr_field_str(p, rn, lr);
		p = nw_wr_field_int(p, rb->len[pr->r]);
		p = nw_wr_field_int(p, rs->rstart);
		p = nw_wr_field_int(p, rs->rend);
		*p++ = rs->strand ? '-' : '+';
		*p++ = '\t';
		p += nw_wr_i64(p, rs->score);
		if (w->cigar) {
			*p++ = '\t';
			p = nw_wr_field_int(p, rs->cigar ? rs->matches : 0);
			p = nw_wr_field_int(p, rs->cigar ? rs->aln_len : 0);
			p += nw_cigar_format(p, rs->cigar, n_cigar);
		}
		*p++ = '\n';
		t->len = (size_t)(p - t->p);
	}
	return 0;
}
