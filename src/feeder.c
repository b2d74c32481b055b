/* feeder.c: read-ahead of batch sets (see feeder.h).
 *
 * Two sets take turns: the engine works on one while a thread fills and packs the other.
 * Readers are touched by one thread at a time only: the caller's before the first set,
 * then the feeder thread, one read after the other (each read is joined before the next
 * starts).
 */
#include <stdio.h>
#include <string.h>

#include "feeder.h"

void nw_feeder_init(nw_feeder_t *f, nw_reader_t *qr, nw_reader_t *rr, nw_alphabet_t a,
		    int both_strands, int64_t batch_records, uint64_t batch_residues)
{
	memset(f, 0, sizeof *f);
	f->qr = qr;
	f->rr = rr;
	f->alphabet = a;
	f->both_strands = both_strands;
	f->batch_records = batch_records;
	f->batch_residues = batch_residues;
	for (int k = 0; k < 2; k++) {
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

/* The zip references of a set: nq records (filled unless already pending), packed. Runs
 * on its own thread beside the packing of the queries. */
typedef struct {
	nw_feeder_t *f;
	nw_batch_set_t *s;
	int64_t nq, nr;
	int ret;
	char err[512];
} ref_job_t;

static void *read_refs(void *arg)
{
	ref_job_t *j = arg;
	nw_feeder_t *f = j->f;
	if (j->nr < 0 &&
	    (j->nr = nw_reader_fill(f->rr, j->nq > 0 ? j->nq : 1, UINT64_MAX, j->err, sizeof j->err)) < 0) {
		j->ret = (int)j->nr;
		return NULL;
	}
	if (j->nr != j->nq)
		j->ret = NW_ERR_FORMAT; /* reported by the caller, which knows both readers */
	else if (j->nq > 0)
		j->ret = nw_reader_encode(f->rr, f->alphabet, &j->s->r, j->err, sizeof j->err);
	return NULL;
}

/* Fill (unless nq >= 0 records are already pending) and pack one set. */
static int read_set(nw_feeder_t *f, nw_batch_set_t *s, int64_t nq, int64_t nr)
{
	char *err = f->err;
	size_t errlen = sizeof f->err;
	ref_job_t refs = {.f = f, .s = s, .nr = nq < 0 ? -1 : nr};
	pthread_t tid;
	int ret = 0, threaded = 0;
	if (nq < 0 && (nq = nw_reader_fill(f->qr, f->batch_records, f->batch_residues, err, errlen)) < 0)
		return (int)nq;
	refs.nq = nq;
	if (f->rr)
		threaded = pthread_create(&tid, NULL, read_refs, &refs) == 0;
	if (f->rr && !threaded)
		read_refs(&refs);
	if (nq > 0) {
		ret = nw_reader_encode(f->qr, f->alphabet, &s->q, err, errlen);
		if (ret == 0 && f->both_strands && nw_batch_revcomp(&s->q, &s->q_rc) < 0) {
			snprintf(err, errlen, "out of memory for the reverse complements");
			ret = NW_ERR_MEMORY;
		}
	} else {
		nw_batch_clear(&s->q);
	}
	if (threaded)
		pthread_join(tid, NULL);
	if (ret < 0)
		return ret;
	if (refs.ret == NW_ERR_FORMAT && refs.nr != refs.nq && refs.nr >= 0)
		return zip_mismatch(f);
	if (refs.ret < 0) {
		snprintf(err, errlen, "%s", refs.err);
		return refs.ret;
	}
	return 0;
}

static void *read_ahead(void *arg)
{
	nw_feeder_t *f = arg;
	f->ret = read_set(f, &f->set[1 - f->cur], -1, -1);
	return NULL;
}

/* Start reading the set the engine is not using; reads synchronously if no thread can be
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

nw_batch_set_t *nw_feeder_first(nw_feeder_t *f, int64_t nq, int64_t nr, char *err,
				size_t errlen)
{
	f->cur = 0;
	if ((f->ret = read_set(f, &f->set[0], nq, nr)) < 0)
		return failed(f, err, errlen);
	if (f->set[0].q.n > 0)
		start_read(f);
	return &f->set[0];
}

nw_batch_set_t *nw_feeder_next(nw_feeder_t *f, char *err, size_t errlen)
{
	if (f->running) {
		pthread_join(f->thread, NULL);
		f->running = 0;
	}
	if (f->ret < 0)
		return failed(f, err, errlen);
	f->cur = 1 - f->cur;
	if (f->set[f->cur].q.n > 0)
		start_read(f);
	return &f->set[f->cur];
}

void nw_feeder_free(nw_feeder_t *f)
{
	if (f->running) {
		pthread_join(f->thread, NULL);
		f->running = 0;
	}
	for (int k = 0; k < 2; k++) {
		nw_batch_free(&f->set[k].q);
		nw_batch_free(&f->set[k].q_rc);
		nw_batch_free(&f->set[k].r);
	}
}
