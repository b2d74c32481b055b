/* path_checks.c: the checks of the GPU's paths, run by the write stage (see pipeline.h).
 *
 * Every path is rescored against its score and its span before its record is written
 * (nw_path_finish, which also counts its matches and edits). The CPU engine checks its own
 * paths as it makes them; the GPU's are marked unchecked and checked here, on the write
 * thread with a team of threads, while the engine aligns the next chunk: the checks stay,
 * off the engine's path.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "team.h"
#include "pipeline.h"

/* Results a thread takes at a time. */
#define NW_CHECK_GRAIN 512

typedef struct {
	const run_t *run;
	const nw_batch_t *qb, *q_rc, *rb;
	const nw_pair_t *pairs;
	nw_result_t *res;
	int64_t n;
	int64_t next;  /* the first result no thread took yet (atomic) */
	int failed;    /* a check failed (atomic) */
	int code;      /* its error, under the first failure */
} check_job_t;

/* Result k's checks in the frame of its strand: a reverse-strand result carries query
 * coordinates (to_query_frame), its path those of the reverse complement. */
static int check_one(check_job_t *j, int64_t k, uint8_t *q, uint8_t *r)
{
	nw_result_t *res = &j->res[k];
	const nw_batch_t *qb = res->strand ? j->q_rc : j->qb;
	const nw_pair_t *pr = &j->pairs[k];
	const int64_t qlen = qb->len[pr->q], rlen = j->rb->len[pr->r];
	nw_batch_unpack(qb, pr->q, q);
	nw_batch_unpack(j->rb, pr->r, r);
	if (res->strand)
		nw_mirror_query_span(res, qlen);
	const int ret = nw_path_finish(&j->run->params, q, qlen, r, rlen, res);
	if (res->strand)
		nw_mirror_query_span(res, qlen);
	res->unchecked = 0;
	return ret;
}

static void *check_worker(void *arg)
{
	check_job_t *j = arg;
	const uint32_t qmax = j->qb->max_len > j->q_rc->max_len ? j->qb->max_len : j->q_rc->max_len;
	uint8_t *q = malloc((size_t)qmax + 1), *r = malloc((size_t)j->rb->max_len + 1);
	int ret = q && r ? 0 : NW_ERR_MEMORY;
	while (ret == 0 && !__atomic_load_n(&j->failed, __ATOMIC_RELAXED)) {
		const int64_t a = __atomic_fetch_add(&j->next, NW_CHECK_GRAIN, __ATOMIC_RELAXED);
		if (a >= j->n)
			break;
		const int64_t b = a + NW_CHECK_GRAIN < j->n ? a + NW_CHECK_GRAIN : j->n;
		for (int64_t k = a; k < b && ret == 0; k++)
			if (j->res[k].unchecked)
				ret = check_one(j, k, q, r);
	}
	if (ret < 0 && !__atomic_exchange_n(&j->failed, 1, __ATOMIC_ACQ_REL))
		j->code = ret;
	free(q);
	free(r);
	return NULL;
}

int nw_check_paths(void *ctx, const nw_batch_t *qb, const nw_batch_t *q_rc, const nw_batch_t *rb,
		   const nw_pair_t *pairs, nw_result_t *res, int64_t n, char *err, size_t errlen)
{
	run_t *run = ctx;
	int64_t first = 0;
	while (first < n && !res[first].unchecked)
		first++;
	if (first == n)
		return 0;
	const double t = nw_pl_now();
	check_job_t job = {.run = run, .qb = qb, .q_rc = q_rc ? q_rc : qb, .rb = rb, .pairs = pairs,
			   .res = res, .n = n, .next = first};
	/* the cores the GPU's lanes and the reader's two threads leave: the checks must not
	 * take the cores of the lanes' host work, on which the engine waits */
	int nt = run->opt->threads - run->lanes.n - 2;
	nt = nt > 0 ? nt : 1;
	if ((n - first) / NW_CHECK_GRAIN + 1 < nt)
		nt = (int)((n - first) / NW_CHECK_GRAIN + 1);
	/* this thread too; the workers share the results out by job.next */
	nw_team_run(check_worker, &job, 0, nt);
	run->check_s += nw_pl_now() - t;
	if (!job.failed)
		return 0;
	snprintf(err, errlen, job.code == NW_ERR_MEMORY ? "out of memory checking the GPU's paths"
			      : "internal error: a path of the GPU engine failed its check (see the message above)");
	return job.code;
}
