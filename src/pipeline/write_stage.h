/* write_stage.h: the last stage of the pipeline. Chunks of results go to a thread of
 * their own, which formats and writes them in the order given (src/io/writer.h) while the
 * engine aligns the next chunk.
 *
 * A submitted chunk is read by the write thread until nw_wstage_wait says it is written:
 * until then its batches, pairs and results must stay as they are.
 */
#ifndef NW_WRITE_STAGE_H
#define NW_WRITE_STAGE_H

#include "nwalign.h"
#include "writer.h"

typedef struct nw_wstage_s nw_wstage_t;

/* Starts the thread that writes to w (not owned). NULL when out of memory. Without a
 * thread the chunks are written by nw_wstage_submit itself. */
nw_wstage_t *nw_wstage_start(nw_writer_t *w);
/* Queue n results for writing (blocks while the queue is full); returns the chunk's
 * number (0, 1, ...) for nw_wstage_wait, or the first write error (< 0, message in err). */
int64_t nw_wstage_submit(nw_wstage_t *s, const nw_batch_t *qb, const nw_batch_t *rb,
			 const nw_pair_t *pairs, const nw_result_t *res, int64_t n, char *err,
			 size_t errlen);
/* Wait until every chunk up to number `upto` is written (upto < 0: nothing to wait for);
 * 0, or the first write error. */
int nw_wstage_wait(nw_wstage_t *s, int64_t upto, char *err, size_t errlen);
/* Write what is queued, stop the thread and free s; 0 or the first write error. The
 * seconds spent formatting and writing go to *busy_s and the number of records written to
 * *records (each when not NULL). s may be NULL. */
int nw_wstage_finish(nw_wstage_t *s, double *busy_s, int64_t *records, char *err,
		     size_t errlen);

#endif
