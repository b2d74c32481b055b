/* writer.h: private interface of the output writers (TSV, PAF, SAM).
 *
 * A writer receives results in input order, a batch of pairs at a time, and owns the
 * output stream (stdout or -o FILE). Every write is checked: a failed write is an error
 * (NW_ERR_IO with a message), never a silent partial result.
 */
#ifndef NW_IO_WRITER_H
#define NW_IO_WRITER_H

#include "nwalign.h"
#include "stats.h"

/* Names and lengths of every reference, in file order: SAM needs them for the header
 * before the first record. ref_index of a record = batch->first_record + pair.r. */
typedef struct {
	int64_t n;
	char **name;
	uint32_t *len;
} nw_ref_list_t;

typedef struct nw_writer_s nw_writer_t;

/* Opens opt->out_path (NULL or "-" = stdout) and writes the header the format needs
 * (TSV: '#' column line unless opt->header is 0; SAM: @HD, one @SQ per reference, @PG
 * with opt->command_line). refs may be NULL for TSV and PAF. */
nw_writer_t *nw_writer_open(const nw_opt_t *opt, const nw_ref_list_t *refs, char *err,
			    size_t errlen);
/* Write one record per pair, in the given order. qb and rb are the batches the pair
 * indices point into; q_codes/r_codes are not needed (writers decode from the batches).
 * For SAM in all-vs-all mode, pairs of one query are contiguous: the best-scoring one
 * (first on ties) is primary, the others are secondary (flag 0x100). */
int nw_writer_write(nw_writer_t *w, const nw_batch_t *qb, const nw_batch_t *rb,
		    const nw_pair_t *pairs, const nw_result_t *res, int64_t n, char *err,
		    size_t errlen);
/* blast6: the statistics of the scoring, and the residues of the database its E-values
 * are for (0: each pair's reference alone). Set before the first write. */
void nw_writer_set_stats(nw_writer_t *w, const nw_ka_t *ka, double db_residues);
/* Flush and close; returns NW_ERR_IO when anything failed to reach the output. */
int nw_writer_close(nw_writer_t *w, char *err, size_t errlen);

#endif
