/* write_stage.c: formatting and writing on a thread of its own (see write_stage.h).
 *
 * A ring of NW_WSTAGE_DEPTH chunks between the engine and the write thread: the engine
 * submits a chunk and goes on with the next one; the thread takes the chunks in order.
 * After the first failed write the remaining chunks are dropped (marked done) and every
 * later call returns that error, so that nothing waits forever.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h" /* nw_pl_now */
#include "write_stage.h"

#define NW_WSTAGE_DEPTH 4

typedef struct {
	const nw_batch_t *qb, *q_rc, *rb;
	const nw_pair_t *pairs;
	nw_result_t *res;
	int64_t n;
} chunk_t;

struct nw_wstage_s {
	nw_writer_t *w;
	nw_wstage_prep_fn prep;
	void *prep_ctx;
	pthread_t tid;
	int threaded;
	pthread_mutex_t lock;
	pthread_cond_t changed;    /* a chunk queued, a chunk written, or stop */
	chunk_t ring[NW_WSTAGE_DEPTH];
	int64_t queued, written;   /* chunks submitted / finished (written or dropped) */
	int stop;
	int ret;                   /* the first error, under lock */
	char err[512];
	double busy_s;
	int64_t records;           /* written (chunks that failed or were dropped: none) */
};

/* Prepare and write one chunk unless an error came before; records the first error. */
static void write_chunk(nw_wstage_t *s, const chunk_t *c, int failed)
{
	char err[512];
	if (failed)
		return;
	double t = nw_pl_now();
	int ret = s->prep ? s->prep(s->prep_ctx, c->qb, c->q_rc, c->rb, c->pairs, c->res, c->n, err,
				    sizeof err)
			  : 0;
	if (ret == 0)
		ret = nw_writer_write(s->w, c->qb, c->rb, c->pairs, c->res, c->n, err, sizeof err);
	pthread_mutex_lock(&s->lock);
	s->busy_s += nw_pl_now() - t;
	if (ret == 0)
		s->records += c->n;
	if (ret < 0 && s->ret == 0) {
		s->ret = ret;
		snprintf(s->err, sizeof s->err, "%s", err);
	}
	pthread_mutex_unlock(&s->lock);
}

static void *write_thread(void *arg)
{
	nw_wstage_t *s = arg;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		while (s->written == s->queued && !s->stop)
			pthread_cond_wait(&s->changed, &s->lock);
		if (s->written == s->queued)
			break; /* stopped, and nothing left */
		chunk_t c = s->ring[s->written % NW_WSTAGE_DEPTH];
		int failed = s->ret < 0;
		pthread_mutex_unlock(&s->lock);
		write_chunk(s, &c, failed);
		pthread_mutex_lock(&s->lock);
		s->written++;
		pthread_cond_broadcast(&s->changed);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

nw_wstage_t *nw_wstage_start(nw_writer_t *w, nw_wstage_prep_fn prep, void *ctx)
{
	nw_wstage_t *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->w = w;
	s->prep = prep;
	s->prep_ctx = ctx;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->changed, NULL);
	s->threaded = pthread_create(&s->tid, NULL, write_thread, s) == 0;
	return s;
}

/* The first error, copied to err; 0 when none. Caller holds the lock. */
static int error_of(const nw_wstage_t *s, char *err, size_t errlen)
{
	if (s->ret < 0)
		snprintf(err, errlen, "%s", s->err);
	return s->ret;
}

int64_t nw_wstage_submit(nw_wstage_t *s, const nw_batch_t *qb, const nw_batch_t *q_rc,
			 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
			 char *err, size_t errlen)
{
	const chunk_t c = {.qb = qb, .q_rc = q_rc, .rb = rb, .pairs = pairs, .res = res, .n = n};
	int64_t id;
	int ret;
	pthread_mutex_lock(&s->lock);
	while (s->threaded && s->queued - s->written >= NW_WSTAGE_DEPTH && s->ret == 0)
		pthread_cond_wait(&s->changed, &s->lock);
	if ((ret = error_of(s, err, errlen)) < 0) {
		pthread_mutex_unlock(&s->lock);
		return ret;
	}
	id = s->queued;
	if (s->threaded) {
		s->ring[id % NW_WSTAGE_DEPTH] = c;
		s->queued++;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		return id;
	}
	pthread_mutex_unlock(&s->lock);
	write_chunk(s, &c, 0); /* no thread: here and now */
	pthread_mutex_lock(&s->lock);
	s->queued++;
	s->written++;
	ret = error_of(s, err, errlen);
	pthread_mutex_unlock(&s->lock);
	return ret < 0 ? ret : id;
}

int nw_wstage_wait(nw_wstage_t *s, int64_t upto, char *err, size_t errlen)
{
	pthread_mutex_lock(&s->lock);
	while (s->written <= upto && s->ret == 0)
		pthread_cond_wait(&s->changed, &s->lock);
	int ret = error_of(s, err, errlen);
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int nw_wstage_finish(nw_wstage_t *s, double *busy_s, int64_t *records, char *err,
		     size_t errlen)
{
	if (!s)
		return 0;
	if (s->threaded) {
		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		pthread_cond_broadcast(&s->changed);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->tid, NULL);
	}
	int ret = error_of(s, err, errlen);
	if (busy_s)
		*busy_s = s->busy_s;
	if (records)
		*records = s->records;
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->changed);
	free(s);
	return ret;
}
