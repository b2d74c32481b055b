/* write_paf.c: the PAF output (minimap2's pairwise mapping format): the 12 standard
 * columns, then AS:i (score), os:i (GACT paths only), NM:i (X+I+D of the path) and cg:Z
 * (the path).
 *
 * AS:i is the score of the path written. os:i: optimal score from the score engine;
 * present when the path is a GACT path and may score less than the optimum (src/path.h).
 *
 * Columns 10 and 11 are the '=' count and the number of path columns, gaps included, as
 * minimap2 defines them; they need the path, so the pipeline always computes it for PAF.
 * The strand is '-' when the query's reverse complement aligned (--strand both): query
 * coordinates stay on the query as given and cg:Z follows the reference, as in minimap2.
 * Mapping quality is 255 (unavailable). A local pair of score 0 has
 * an empty span and no path: it still gets a line, with zeros and without cg:Z.
 */
#include <string.h>

#include "path.h"
#include "writer_impl.h"

int nw_paf_format(const nw_writer_t *w, nw_text_t *t, const nw_batch_t *qb,
		  const nw_batch_t *rb, const nw_pair_t *pairs, const nw_result_t *res, int64_t n,
		  char *err, size_t errlen)
{
	(void)w;
	for (int64_t i = 0; i < n; i++) {
		const nw_pair_t *pr = &pairs[i];
		const nw_result_t *rs = &res[i];
		const int has_path = rs->cigar && rs->n_cigar > 0;

		if (pr->q >= qb->n || pr->r >= rb->n)
			return nw_wr_fail(NW_ERR_INTERNAL, err, errlen,
					  "pair %lld points outside its batch (%u, %u)",
					  (long long)i, pr->q, pr->r);
		const char *qn = nw_batch_name(qb, pr->q), *rn = nw_batch_name(rb, pr->r);
		if (!has_path && (rs->qend > rs->qstart || rs->rend > rs->rstart))
			return nw_wr_fail(NW_ERR_INTERNAL, err, errlen,
					  "PAF output of '%s' against '%s' needs the alignment "
					  "path, which was not computed", qn, rn);
		const size_t lq = strlen(qn), lr = strlen(rn);
		if (nw_text_room(t, lq + lr + 360 +
				       (has_path ? (size_t)rs->n_cigar * NW_CIGAR_RUN_CHARS : 0)) < 0)
			return nw_wr_fail(NW_ERR_MEMORY, err, errlen,
					  "out of memory writing the output");
		char *p = t->p + t->len;
		p = nw_wr_field_str(p, qn, lq);
		p = nw_wr_field_int(p, qb->len[pr->q]);
		p = nw_wr_field_int(p, rs->qstart);
		p = nw_wr_field_int(p, rs->qend);
		*p++ = rs->strand ? '-' : '+';
		*p++ = '\t';
		p = nw_wr_field_str(p, rn, lr);
		p = nw_wr_field_int(p, rb->len[pr->r]);
		p = nw_wr_field_int(p, rs->rstart);
		p = nw_wr_field_int(p, rs->rend);
		p = nw_wr_field_int(p, has_path ? rs->matches : 0);
		p = nw_wr_field_int(p, has_path ? rs->aln_len : 0);
		memcpy(p, "255\tAS:i:", 9);
		p += 9;
		p += nw_wr_i64(p, rs->score);
		if (rs->path_kind == NW_PATH_GACT) {
			memcpy(p, "\tos:i:", 6);
			p += 6;
			p += nw_wr_i64(p, rs->opt_score);
		}
		memcpy(p, "\tNM:i:", 6);
		p += 6;
		p += nw_wr_i64(p, has_path ? rs->edits : 0);
		if (has_path) {
			memcpy(p, "\tcg:Z:", 6);
			p += 6;
			p += nw_cigar_format(p, rs->cigar, rs->n_cigar);
		}
		*p++ = '\n';
		t->len = (size_t)(p - t->p);
	}
	return 0;
}
