/* write_blast6.c: BLAST's tabular output (blastp -outfmt 6), one line per pair:
 *   qseqid sseqid pident length mismatch gapopen qstart qend sstart send evalue bitscore
 * as BLAST defines the columns: length counts the alignment's columns, gaps included;
 * pident is 100 * identities / length; mismatch the substitutions; gapopen the gap runs;
 * coordinates are 1-based and inclusive. The E-value and the bit score follow stats.h:
 * against the whole reference file in all-vs-all mode (BLAST's database search), against
 * the pair's reference alone in zip mode (BLAST's two-sequence mode). Numbers are printed
 * as BLAST prints them (E-values below 1e-180 as 0.0, bit scores above 99.9 as integers).
 * A local pair of score 0 has an empty alignment: its line has zeros for the alignment's
 * columns. Only the local mode with published statistics gets here (run.c checks).
 */
#include <stdio.h>
#include <string.h>

#include "writer_impl.h"

/* BLAST's precision for each range of E-values and bit scores. */
static int print_evalue(char *p, double e)
{
	if (e < 1e-180)
		return sprintf(p, "0.0");
	if (e < 1e-3)
		return sprintf(p, "%.2e", e);
	return sprintf(p, e < 0.1 ? "%.3f" : e < 1 ? "%.2f" : e < 10 ? "%.1f" : "%.0f", e);
}

static int print_bits(char *p, double b)
{
	if (b > 99999)
		return sprintf(p, "%.3e", b);
	if (b > 99.9)
		return sprintf(p, "%lld", (long long)b);
	return sprintf(p, "%.1f", b);
}

int nw_blast6_format(const nw_writer_t *w, nw_text_t *t, const nw_batch_t *qb,
		     const nw_batch_t *rb, const nw_pair_t *pairs, const nw_result_t *res,
		     int64_t n, char *err, size_t errlen)
{
	for (int64_t i = 0; i < n; i++) {
		const nw_pair_t *pr = &pairs[i];
		const nw_result_t *rs = &res[i];
		const int empty = rs->qend <= rs->qstart && rs->rend <= rs->rstart;

		if (pr->q >= qb->n || pr->r >= rb->n)
			return nw_wr_fail(NW_ERR_INTERNAL, err, errlen,
					  "pair %lld points outside its batch (%u, %u)",
					  (long long)i, pr->q, pr->r);
		const char *qn = nw_batch_name(qb, pr->q), *rn = nw_batch_name(rb, pr->r);
		if (!empty && !(rs->cigar && rs->n_cigar > 0))
			return nw_wr_fail(NW_ERR_INTERNAL, err, errlen,
					  "blast6 output of '%s' against '%s' needs the alignment "
					  "path, which was not computed", qn, rn);
		int64_t mismatches = 0, gap_opens = 0;
		for (int64_t k = 0; !empty && k < rs->n_cigar; k++) {
			const uint32_t op = NW_CIGAR_OP(rs->cigar[k]);
			mismatches += op == NW_CIGAR_X ? NW_CIGAR_LEN(rs->cigar[k]) : 0;
			gap_opens += op == NW_CIGAR_I || op == NW_CIGAR_D;
		}
		const size_t lq = strlen(qn), lr = strlen(rn);
		if (nw_text_room(t, lq + lr + 256) < 0)
			return nw_wr_fail(NW_ERR_MEMORY, err, errlen,
					  "out of memory writing the output");
		char *p = t->p + t->len;
		p = nw_wr_field_str(p, qn, lq);
		p = nw_wr_field_str(p, rn, lr);
		p += sprintf(p, "%.3f\t", empty || rs->aln_len <= 0 ? 0.0
						  : 100.0 * (double)rs->matches / (double)rs->aln_len);
		p = nw_wr_field_int(p, empty ? 0 : rs->aln_len);
		p = nw_wr_field_int(p, mismatches);
		p = nw_wr_field_int(p, gap_opens);
		p = nw_wr_field_int(p, empty ? 0 : rs->qstart + 1);
		p = nw_wr_field_int(p, empty ? 0 : rs->qend);
		p = nw_wr_field_int(p, empty ? 0 : rs->rstart + 1);
		p = nw_wr_field_int(p, empty ? 0 : rs->rend);
		p += print_evalue(p, nw_ka_evalue(&w->ka, rs->score, qb->len[pr->q],
						  rb->len[pr->r], w->db_residues));
		*p++ = '\t';
		p += print_bits(p, nw_ka_bits(&w->ka, rs->score));
		*p++ = '\n';
		t->len = (size_t)(p - t->p);
	}
	return 0;
}
