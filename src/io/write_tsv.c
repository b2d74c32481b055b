/* write_tsv.c: the TSV output, one line per pair:
 *   qname qlen qstart qend rname rlen rstart rend strand score [matches alnlen cigar]
 * with 0-based half-open coordinates. Lines are assembled with hand-written integer
 * formatting (printf per field would dominate the run time at a million pairs a second)
 * and written in one piece; the CIGAR follows through nw_cigar_write.
 */
#include <errno.h>
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

int nw_tsv_write(nw_writer_t *w, const nw_batch_t *qb, const nw_batch_t *rb,
		 const nw_pair_t *pairs, const nw_result_t *res, int64_t n, char *err,
		 size_t errlen)
{
	int64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		const nw_pair_t *pr = &pairs[i];
		const nw_result_t *rs = &res[i];
		const char *qn, *rn;
		size_t lq, lr;
		char *p;

		if (pr->q >= qb->n || pr->r >= rb->n)
			return nw_wr_fail(NW_ERR_INTERNAL, err, errlen,
					  "pair %lld points outside its batch (%u, %u)",
					  (long long)i, pr->q, pr->r);
		qn = nw_batch_name(qb, pr->q);
		rn = nw_batch_name(rb, pr->r);
		lq = strlen(qn);
		lr = strlen(rn);
		/* 10 numbers of at most 20 digits and a sign, 12 separators, the strand */
		if (nw_wr_grow((void **)&w->line, &w->line_cap, lq + lr + 300, 1) < 0)
			return nw_wr_fail(NW_ERR_MEMORY, err, errlen,
					  "out of memory writing the output");
		p = w->line;
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
		} else {
			*p++ = '\n';
		}
		if ((ret = nw_wr_put(w, w->line, (size_t)(p - w->line), err, errlen)) < 0)
			return ret;
		if (w->cigar) {
			if (nw_cigar_write(w->fp, rs->cigar, rs->cigar ? rs->n_cigar : 0) < 0 ||
			    putc('\n', w->fp) == EOF)
				return nw_wr_io_error(w, errno, err, errlen);
		}
	}
	return 0;
}
