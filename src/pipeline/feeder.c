/* feeder.c: read-ahead of batch sets (see feeder.h).
 *
 * Three sets take turns: the engine works on one, the write stage may still be writing
 * the results of the one before, and a thread fills and packs the next.
 * Readers are touched by one thread at a time only: the caller's before the first set,
 * then the feeder thread, one read after the other (each read is joined before the next
 * starts).
 */
#include <stdio.h>
#include <string.h>

#include "feeder.h"

void nw_feeder_init(nw_feeder_t *f, nw_reader_t *qr, nw_reader_t *rr, nw_alphabet_t a,
		    int both_strands, int64_t batch_records, uint64_t batch_residues,
		    int64_t first_records)
{
	memset(f, 0, sizeof *f);
	f->qr = qr;
	f->rr = rr;
	f->alphabet = a;
	f->both_strands = both_strands;
	f->batch_records = batch_records;
	f->batch_residues = batch_residues;
	f->ramp_records = first_records;
	for (int k = 0; k < NW_FEEDER_SETS; k++) {
		nw_batch_init(&f->set[k].q, a);
		nw_batch_init(&f->set[k].q_rc, a);
		nw_batch_init(&f->set[k].r, a);
	}
}

/* Zip needs as many references as queries, batch by batch: the first file to run out
 * while the other goes on is an error naming both. */
static int zip_mismatch(nw_feeder_t *f)
{
	int64_t nq = nw_reader_records_read(f->qr), nr = nw_reader_records_read(f->rr);
	int q_short = nq < nr;
	snprintf(f->err, sizeof f->err, "--pairs zip: '%s' ends after %lld records, but '%s' has more",
		 nw_reader_path(q_short ? f->qr : f->rr), (long long)(q_short ? nq : nr),
		 nw_reader_path(q_short ? f->rr : f->qr));
	return NW_ERR_FORMAT;
}

/* The zip references of a set, read on their own thread beside the queries: they follow
 * the queries' count as it grows (the queries' batch limits decide it), so that both
 * files are read at once, then they are packed while the queries are. */
typedef struct {
	nw_feeder_t *f;
	nw_batch_set_t *s;
	pthread_mutex_t lock;
	pthread_cond_t more;
	int64_t q_count;   /* queries read so far (under lock) */
	int q_done;        /* q_count is final (under lock) */
	int64_t nq, nr;    /* the final counts */
	int ret;
	char err[512];
} ref_job_t;

static void publish(ref_job_t *j, int64_t count, int done)
{
	pthread_mutex_lock(&j->lock);
	j->q_count = count;
	j->q_done = done;
	pthread_cond_signal(&j->more);
	pthread_mutex_unlock(&j->lock);
}

static void *read_refs(void *arg)
{
	ref_job_t *j = arg;
	nw_feeder_t *f = j->f;
	int64_t have = 0;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		while (j->q_count <= have && !j->q_done)
			pthread_cond_wait(&j->more, &j->lock);
		int64_t want = j->q_count;
		int done = j->q_done;
		pthread_mutex_unlock(&j->lock);
		if (done && want == 0)
			want = 1; /* the queries ended: so must the references */
		if (want > have) {
			int64_t got = nw_reader_fill(f->rr, want, UINT64_MAX, j->err, sizeof j->err);
			if (got < 0) {
				j->ret = (int)got;
				j->nr = got;
				return NULL;
			}
			if (got < want) { /* the references ended */
				have = got;
				break;
			}
			have = got;
		}
		if (done)
			break;
	}
	j->nr = have;
	pthread_mutex_lock(&j->lock);
	int64_t nq = j->q_done ? j->q_count : -1;
	pthread_mutex_unlock(&j->lock);
	if (nq > 0 && have == nq) /* else the caller reports the mismatch */
		j->ret = nw_reader_encode(f->rr, f->alphabet, &j->s->r, j->err, sizeof j->err);
	return NULL;
}

/* Fill (unless nq >= 0 queries, and as many references, are already pending) and pack
 * one set. Zip references are
 * read beside the queries (read_refs), which are filled in steps of REF_STEP records so
 * that the references can follow. */
#define REF_STEP 4096
static int read_set(nw_feeder_t *f, nw_batch_set_t *s, int64_t nq)
{
	char *err = f->err;
	size_t errlen = sizeof f->err;
	ref_job_t refs;
	pthread_t tid;
	int ret = 0, threaded = 0;
	memset(&refs, 0, sizeof refs);
	refs.f = f;
	refs.s = s;
	pthread_mutex_init(&refs.lock, NULL);
	pthread_cond_init(&refs.more, NULL);
	if (f->rr && nq >= 0) { /* pending already, from the first fills */
		refs.q_count = nq;
		refs.q_done = 1;
	}
	if (f->rr)
		threaded = pthread_create(&tid, NULL, read_refs, &refs) == 0;
	if (nq < 0) {
		const int64_t limit = f->ramp_records * 2 < f->batch_records ? f->ramp_records * 2
									    : f->batch_records;
		int64_t want = 0;
		f->ramp_records = limit;
		do {
			want = limit - want < REF_STEP && threaded ? limit
								   : want + (threaded ? REF_STEP : limit);
			nq = nw_reader_fill(f->qr, want, f->batch_residues, err, errlen);
			if (nq > 0 && nq < want)
				break; /* the end of the queries, or their residue limit */
			if (nq > 0 && threaded)
				publish(&refs, nq, 0);
		} while (nq > 0 && nq < limit);
	}
	if (f->rr && threaded)
		publish(&refs, nq < 0 ? 0 : nq, 1);
	if (f->rr && !threaded) {
		refs.q_count = nq < 0 ? 0 : nq;
		refs.q_done = 1;
		read_refs(&refs);
	}
	if (nq > 0) {
		ret = nw_reader_encode(f->qr, f->alphabet, &s->q, err, errlen);
		if (ret == 0 && f->both_strands && nw_batch_revcomp(&s->q, &s->q_rc) < 0) {
			snprintf(err, errlen, "out of memory for the reverse complements");
			ret = NW_ERR_MEMORY;
		}
	} else {
		nw_batch_clear(&s->q);
		if (nq < 0)
			ret = (int)nq;
	}
	if (threaded)
		pthread_join(tid, NULL);
	pthread_mutex_destroy(&refs.lock);
	pthread_cond_destroy(&refs.more);
	if (ret < 0)
		return ret;
	if (!f->rr)
		return 0;
	if (refs.ret < 0) {
		snprintf(err, errlen, "%s", refs.err);
		return refs.ret;
	}
	return refs.nr != nq ? zip_mismatch(f) : 0;
}

static void *read_ahead(void *arg)
{
	nw_feeder_t *f = arg;
	f->ret = read_set(f, &f->set[(f->cur + 1) % NW_FEEDER_SETS], -1);
	return NULL;
}

/* Start reading the set after the engine's; reads synchronously if no thread can be
 * had (the result is the same, only slower). */
static void start_read(nw_feeder_t *f)
{
	f->running = pthread_create(&f->thread, NULL, read_ahead, f) == 0;
	if (!f->running)
		read_ahead(f);
}

static nw_batch_set_t *failed(nw_feeder_t *f, char *err, size_t errlen)
{
	snprintf(err, errlen, "%s", f->err);
	return NULL;
}

nw_batch_set_t *nw_feeder_first(nw_feeder_t *f, int64_t nq, char *err, size_t errlen)
{
	if (!f->started) {
		f->started = 1;
		f->cur = 0;
		f->first_ret = f->ret = read_set(f, &f->set[0], nq);
		if (f->ret < 0) /* f->err holds the message, and no read follows to replace it */
			return failed(f, err, errlen);
		if (f->set[0].q.n > 0)
			start_read(f);
		return &f->set[0];
	}
	/* f->ret belongs to the read ahead now; a first set that failed started none, so
	 * f->err still holds its message */
	return f->first_ret < 0 ? failed(f, err, errlen) : &f->set[0];
}

nw_batch_set_t *nw_feeder_next(nw_feeder_t *f, char *err, size_t errlen)
{
	nw_feeder_join(f);
	if (f->ret < 0)
		return failed(f, err, errlen);
	f->cur = (f->cur + 1) % NW_FEEDER_SETS;
	if (f->set[f->cur].q.n > 0)
		start_read(f);
	return &f->set[f->cur];
}

void nw_feeder_join(nw_feeder_t *f)
{
	if (f->running) {
		pthread_join(f->thread, NULL);
		f->running = 0;
	}
}

void nw_feeder_free(nw_feeder_t *f)
{
	nw_feeder_join(f);
	for (int k = 0; k < NW_FEEDER_SETS; k++) {
		nw_batch_free(&f->set[k].q);
		nw_batch_free(&f->set[k].q_rc);
		nw_batch_free(&f->set[k].r);
	}
}
