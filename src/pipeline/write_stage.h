/* write_stage.h: the last stage of the pipeline. Chunks of results go to a thread of
 * their own, which formats and writes them in the order given (src/io/writer.h) while the
 * engine aligns the next chunk.
 *
 * A submitted chunk is read (and its results prepared: prep) by the write thread until
 * nw_wstage_wait says it is written: until then its batches, pairs and results must stay
 * as they are.
 */
#ifndef NW_WRITE_STAGE_H
#define NW_WRITE_STAGE_H

#include "nwalign.h"
#include "writer.h"

typedef struct nw_wstage_s nw_wstage_t;

/* What the write thread does to a chunk's results just before it writes them (the checks
 * of the GPU's paths: nw_check_paths); q_rc holds the queries' reverse complements (an
 * empty batch without --strand both). 0, or an error (message in err): the chunk is not
 * written, and the stage fails as on a failed write. */
typedef int (*nw_wstage_prep_fn)(void *ctx, const nw_batch_t *qb, const nw_batch_t *q_rc,
				 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res,
				 int64_t n, char *err, size_t errlen);

/* Starts the thread that writes to w (not owned), each chunk after prep(ctx, ...) when
 * prep is not NULL. NULL when out of memory. Without a thread the chunks are prepared and
 * written by nw_wstage_submit itself. */
nw_wstage_t *nw_wstage_start(nw_writer_t *w, nw_wstage_prep_fn prep, void *ctx);
/* Queue n results for writing (blocks while the queue is full); returns the chunk's
 * number (0, 1, ...) for nw_wstage_wait, or the first write error (< 0, message in err). */
int64_t nw_wstage_submit(nw_wstage_t *s, const nw_batch_t *qb, const nw_batch_t *q_rc,
			 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
			 char *err, size_t errlen);
/* Wait until every chunk up to number `upto` is written (upto < 0: nothing to wait for);
 * 0, or the first write error. */
int nw_wstage_wait(nw_wstage_t *s, int64_t upto, char *err, size_t errlen);
/* Write what is queued, stop the thread and free s; 0 or the first write error. The
 * seconds spent formatting and writing go to *busy_s and the number of records written to
 * *records (each when not NULL). s may be NULL. */
int nw_wstage_finish(nw_wstage_t *s, double *busy_s, int64_t *records, char *err,
		     size_t errlen);

#endif
