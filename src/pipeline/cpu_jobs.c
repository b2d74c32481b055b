/* cpu_jobs.c: the CPU engine's work on a chunk's pairs, on --threads workers (see
 * pipeline.h: nw_cpu_run).
 *
 * A job's pairs are planned (src/cpu/cpu_inter.c: groups of like pairs for the
 * inter-sequence passes, the others left to the per-pair passes) in parts of at most
 * NW_JOB_PART pairs. The calling thread plans the first part, starts the workers on it,
 * plans the other parts while they align, then works too: only the first part's plan
 * keeps the workers waiting. Within a part the workers take groups, then the pairs left,
 * from shared counters, and move on to the next part when none is left.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_align.h"
#include "cpu_inter.h"
#include "cpu_isa.h"
#include "path.h"
#include "pipeline.h"

/* Pairs a part: enough that the workers' time on a part far exceeds the calling thread's
 * plan of the next one, few enough that the first part's plan, which they wait for, is
 * short. */
#ifndef NW_JOB_PART
#define NW_JOB_PART 32768
#endif

typedef struct {
	int64_t k0, n;         /* the part's pairs: [k0, k0 + n) of the job's */
	nw_align_params_t p;   /* the job's params with the part's needs (need + k0) */
	nw_inter_plan_t plan;  /* JOB_ALIGN, JOB_PATHS: groups, and the pairs left (rest) */
	int has_plan;
	int64_t n_left, grain; /* the pairs left to the per-pair passes, taken grain at a time */
	int ready;             /* atomic: planned (the fields above are set) */
	int64_t next_group;    /* atomic: the next group to take */
	int64_t next_left;     /* atomic: the next of the pairs left to take */
} job_part_t;

typedef struct {
	const run_t *run;
	const nw_batch_t *qb, *rb;
	const nw_pair_t *pairs;
	nw_result_t *res;
	job_part_t *parts;
	int n_parts;
	int what;        /* NW_JOB_* */
	int threads;     /* the workers */
	int next_worker; /* atomic: the next worker's number, its workspace */
	int failed;      /* atomic: set by the first failing worker (or plan) */
	int err_code;
} job_t;

static void job_fail(job_t *job, int ret)
{
	if (!__atomic_exchange_n(&job->failed, 1, __ATOMIC_RELAXED))
		job->err_code = ret;
}

/* Plans part pt (its pairs, params and counters), then publishes it. */
static int plan_part(job_t *job, job_part_t *pt)
{
	const nw_align_params_t *p = &pt->p;
	const nw_pair_t *pairs = job->pairs + pt->k0;
	nw_result_t *res = job->res + pt->k0;
	pt->n_left = pt->n;
	if (job->what == NW_JOB_ALIGN || job->what == NW_JOB_PATHS) {
		const int by_band = job->what == NW_JOB_ALIGN && nw_inter_starts_grouped(p);
		if ((by_band ? nw_inter_plan_starts(p, res, pt->n, nw_cpu_isa(), &pt->plan)
			     : nw_inter_plan_paths(p, job->qb, job->rb, pairs,
						   job->what == NW_JOB_PATHS ? res : NULL, pt->n,
						   nw_cpu_isa(), &pt->plan)) < 0)
			return NW_ERR_MEMORY;
		pt->has_plan = 1;
		pt->n_left = pt->plan.n_rest;
	}
	pt->grain = pt->n_left / ((int64_t)job->threads * 16);
	pt->grain = pt->grain < 1 ? 1 : pt->grain > 64 ? 64 : pt->grain;
	__atomic_store_n(&pt->ready, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Part pt's groups in turn; far from its last one a worker takes its next group before
 * it aligns this one and has the caches fetch the next one's sequences meanwhile (near
 * the end, a group held ahead could leave another worker idle). */
static int part_groups(job_t *job, job_part_t *pt, nw_workspace_t *ws)
{
	const nw_inter_plan_t *plan = &pt->plan;
	const nw_pair_t *pairs = job->pairs + pt->k0;
	nw_result_t *res = job->res + pt->k0;
	const int64_t ahead_until = plan->n_groups - 2 * (int64_t)job->threads;
	int64_t g = __atomic_fetch_add(&pt->next_group, 1, __ATOMIC_RELAXED);
	int ret = 0;
	while (g < plan->n_groups && ret == 0 && !__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
		int64_t next = -1;
		if (g < ahead_until) {
			next = __atomic_fetch_add(&pt->next_group, 1, __ATOMIC_RELAXED);
			if (next < plan->n_groups)
				nw_inter_group_prefetch(job->qb, job->rb, pairs, plan, next);
		}
		ret = nw_stop_requested() ? NW_ERR_INTERRUPTED
					  : nw_inter_group(ws, &pt->p, job->qb, job->rb, pairs, plan, g, res);
		g = next >= 0 ? next : __atomic_fetch_add(&pt->next_group, 1, __ATOMIC_RELAXED);
	}
	return ret;
}

/* Part pt's pairs left to the per-pair passes (all of them without a plan); q and r hold
 * a query and a reference unpacked, *last_q the query in q. */
static int part_left(job_t *job, job_part_t *pt, nw_workspace_t *ws, uint8_t *q, uint8_t *r,
		     int64_t *last_q)
{
	const nw_align_params_t *p = &pt->p;
	int ret = 0;
	while (ret == 0 && !__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
		const int64_t t0 = __atomic_fetch_add(&pt->next_left, pt->grain, __ATOMIC_RELAXED);
		if (t0 >= pt->n_left)
			break;
		const int64_t t1 = t0 + pt->grain < pt->n_left ? t0 + pt->grain : pt->n_left;
		if (nw_stop_requested())
			return NW_ERR_INTERRUPTED;
		for (int64_t t = t0; t < t1 && ret == 0; t++) {
			const int64_t k = pt->has_plan ? pt->plan.rest[t] : t; /* within the part */
			const nw_pair_t *pr = &job->pairs[pt->k0 + k];
			const int64_t qlen = job->qb->len[pr->q], rlen = job->rb->len[pr->r];
			if (pr->q != *last_q) { /* all-vs-all pairs of one query are adjacent */
				nw_batch_unpack(job->qb, pr->q, q);
				*last_q = pr->q;
			}
			nw_batch_unpack(job->rb, pr->r, r);
			nw_result_t *rs = &job->res[pt->k0 + k];
			nw_align_params_t pk; /* this pair's need, at need[0] (nw_cpu_align) */
			if (p->need) {
				pk = *p;
				pk.need = &p->need[k];
			}
			ret = job->what == NW_JOB_ALIGN ? nw_cpu_align(p->need ? &pk : p, q, qlen, r, rlen, ws, rs)
							: nw_cpu_align_path(p, q, qlen, r, rlen, ws, rs);
		}
	}
	return ret;
}

static void *cpu_worker(void *arg)
{
	job_t *job = arg;
	const int me = __atomic_fetch_add(&job->next_worker, 1, __ATOMIC_RELAXED);
	nw_workspace_t *ws = job->run->cpu_ws[me];
	uint8_t *q = malloc((size_t)job->qb->max_len + 1), *r = malloc((size_t)job->rb->max_len + 1);
	int64_t last_q = -1;
	int ret = !ws || !q || !r ? NW_ERR_MEMORY : 0;
	for (int i = 0; i < job->n_parts && ret == 0; i++) {
		job_part_t *pt = &job->parts[i];
		/* (the calling thread plans ahead of the workers: a wait is rare and short) */
		while (!__atomic_load_n(&pt->ready, __ATOMIC_ACQUIRE) &&
		       !__atomic_load_n(&job->failed, __ATOMIC_RELAXED))
			sched_yield();
		if (__atomic_load_n(&job->failed, __ATOMIC_RELAXED))
			break;
		if (pt->has_plan)
			ret = part_groups(job, pt, ws);
		if (ret == 0)
			ret = part_left(job, pt, ws, q, r, &last_q);
	}
	if (ret < 0)
		job_fail(job, ret);
	free(q);
	free(r);
	return NULL;
}

/* Workspaces for nt workers in run->cpu_ws (made once, at the first chunk). */
static int cpu_workspaces(run_t *run, int nt)
{
	if (run->n_cpu_ws >= nt)
		return 0;
	nw_workspace_t **w = realloc(run->cpu_ws, (size_t)nt * sizeof *w);
	if (!w)
		return NW_ERR_MEMORY;
	run->cpu_ws = w;
	for (; run->n_cpu_ws < nt; run->n_cpu_ws++)
		if (!(w[run->n_cpu_ws] = nw_workspace_new()))
			return NW_ERR_MEMORY;
	return 0;
}

static int run_job(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		   const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		   int what, char *err, size_t errlen)
{
	const int threads = run->cpu_threads > 0 ? run->cpu_threads : run->opt->threads;
	int nt = threads;
	if (nt > n)
		nt = n > 0 ? (int)n : 1;
	const int n_parts = n > NW_JOB_PART ? (int)((n + NW_JOB_PART - 1) / NW_JOB_PART) : 1;
	job_part_t *parts = calloc((size_t)n_parts, sizeof *parts);
	pthread_t *tid = calloc((size_t)nt, sizeof *tid);
	if (!parts || !tid || cpu_workspaces(run, nt) < 0) {
		free(parts);
		free(tid);
		snprintf(err, errlen, "out of memory");
		return NW_ERR_MEMORY;
	}
	job_t job = {.run = run, .qb = qb, .rb = rb, .pairs = pairs, .res = res, .parts = parts,
		     .n_parts = n_parts, .what = what, .threads = nt};
	for (int i = 0; i < n_parts; i++) {
		job_part_t *pt = &parts[i];
		pt->k0 = (int64_t)i * NW_JOB_PART;
		pt->n = n - pt->k0 < NW_JOB_PART ? n - pt->k0 : NW_JOB_PART;
		pt->p = *p;
		pt->p.need = p->need ? p->need + pt->k0 : NULL;
	}
	int ret = plan_part(&job, &parts[0]);
	if (ret < 0) {
		free(parts);
		free(tid);
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	/* Fewer pairs than threads, none in groups: the threads left over share out the
	 * score passes and paths of long pairs (nw_striped_team, cpu_path.c's teams) */
	const int team = n_parts == 1 && (!parts[0].has_plan || parts[0].plan.n_groups == 0) &&
				 parts[0].n_left > 0 && parts[0].n_left < threads
				 ? threads / (int)parts[0].n_left : 1;
	for (int t = 0; t < nt; t++)
		nw_workspace_set_team(run->cpu_ws[t], team, 0, 0);
	/* (not team.h: between starting the workers and working itself, this thread plans
	 * the other parts; a worker that did not start leaves its share to the others, who
	 * take groups and pairs from the counters) */
	int started = 0;
	for (int t = 1; t < nt; t++, started++)
		if (pthread_create(&tid[t], NULL, cpu_worker, &job) != 0)
			break;
	for (int i = 1; i < n_parts && !__atomic_load_n(&job.failed, __ATOMIC_RELAXED); i++)
		if ((ret = plan_part(&job, &parts[i])) < 0)
			job_fail(&job, ret);
	cpu_worker(&job); /* the calling thread works too */
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	free(tid);
	for (int i = 0; i < n_parts; i++)
		if (parts[i].has_plan)
			nw_inter_plan_free(&parts[i].plan);
	free(parts);
	if (job.failed) {
		snprintf(err, errlen, job.err_code == NW_ERR_MEMORY ? "out of memory while aligning"
				      : job.err_code == NW_ERR_INTERRUPTED
					      ? "interrupted"
					      : "internal error in the CPU engine (see the message above)");
		return job.err_code;
	}
	return 0;
}

/* See pipeline.h. A local match/mismatch chunk's starts are found after all its scores
 * and end cells (nw_inter_starts_apart), in groups of like bands. */
int nw_cpu_run(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
	       const nw_pair_t *pairs, nw_result_t *res, int64_t n, int what, char *err,
	       size_t errlen)
{
	if (what != NW_JOB_ALIGN || !nw_inter_starts_apart(p))
		return run_job(run, p, qb, rb, pairs, res, n, what, err, errlen);
	nw_align_params_t sp = *p;
	sp.ends_only = 1;
	int ret = run_job(run, &sp, qb, rb, pairs, res, n, what, err, errlen);
	if (ret < 0)
		return ret;
	sp.ends_only = 0;
	sp.starts_only = 1;
	return run_job(run, &sp, qb, rb, pairs, res, n, what, err, errlen);
}
