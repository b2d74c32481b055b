/* align_stage.c: one chunk of pairs through the engine (see pipeline.h).
 *
 * A chunk goes through stages, so that no path is computed for a result that is not
 * written: scores and spans of every pair (both strands with --strand both; --top ranks
 * on scores and end cells alone, then finds the spans of the kept pairs), the choice of
 * strand and of the --top pairs, then the paths of the results kept (src/path.h decides
 * their kind), and last the reverse-strand coordinates mirrored onto the query as given;
 * then the write stage takes the chunk. The CPU engine runs on --threads workers that
 * take pairs from a shared counter.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_align.h"
#include "cpu_inter.h"
#include "cpu_isa.h"
#include "path.h"
#include "pipeline.h"
#include "plan.h"

/* ---------------------------------------------------------------- CPU workers */

enum {
	JOB_ALIGN,   /* scores and spans (a path too when params want one) */
	JOB_PATHS,   /* scores and spans are known: compute and check the paths */
	JOB_FINISH   /* paths are there (GPU): check them (nw_path_finish) */
};

typedef struct {
	const run_t *run;
	const nw_align_params_t *params;
	const nw_batch_t *qb, *rb;
	const nw_pair_t *pairs;
	nw_result_t *res;
	int64_t n, grain;
	int64_t next;               /* next pair to take (atomic) */
	const nw_inter_plan_t *plan; /* JOB_ALIGN: groups for the inter-sequence passes, and
				      * the pairs left to the per-pair passes; else NULL */
	int64_t next_group;         /* next group to take (atomic) */
	int next_worker;            /* the next worker's number, its workspace (atomic) */
	int what;                   /* JOB_* */
	int threads;                /* the workers */
	int failed;                 /* atomic: set by the first failing worker */
	int err_code;
} job_t;

static void *cpu_worker(void *arg)
{
	job_t *job = arg;
	const nw_align_params_t *p = job->params;
	int me = __atomic_fetch_add(&job->next_worker, 1, __ATOMIC_RELAXED);
	nw_workspace_t *ws = job->run->cpu_ws[me];
	uint8_t *q = malloc((size_t)job->qb->max_len + 1), *r = malloc((size_t)job->rb->max_len + 1);
	int64_t last_q = -1;
	int ret = 0;
	const nw_inter_plan_t *plan = job->plan;
	const int64_t n = plan ? plan->n_rest : job->n;
	if (!ws || !q || !r)
		ret = NW_ERR_MEMORY;
	/* Groups in turn; far from the last one a worker takes its next group before it
	 * aligns this one and has the caches fetch the next one's sequences meanwhile (near
	 * the end, a group held ahead could leave another worker idle). */
	const int64_t ahead_until = plan ? plan->n_groups - 2 * (int64_t)job->threads : 0;
	int64_t g = plan ? __atomic_fetch_add(&job->next_group, 1, __ATOMIC_RELAXED) : 0;
	while (plan && g < plan->n_groups && ret == 0 &&
	       !__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
		int64_t next = -1;
		if (g < ahead_until) {
			next = __atomic_fetch_add(&job->next_group, 1, __ATOMIC_RELAXED);
			if (next < plan->n_groups)
				nw_inter_group_prefetch(job->qb, job->rb, job->pairs, plan, next);
		}
		ret = nw_stop_requested() ? NW_ERR_INTERRUPTED
					  : nw_inter_group(ws, p, job->qb, job->rb, job->pairs, plan, g, job->res);
		g = next >= 0 ? next : __atomic_fetch_add(&job->next_group, 1, __ATOMIC_RELAXED);
	}
	while (ret == 0 && !__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
		int64_t k0 = __atomic_fetch_add(&job->next, job->grain, __ATOMIC_RELAXED);
		if (k0 >= n)
			break;
		int64_t k1 = k0 + job->grain < n ? k0 + job->grain : n;
		if (nw_stop_requested()) {
			ret = NW_ERR_INTERRUPTED;
			break;
		}
		for (int64_t t = k0; t < k1 && ret == 0; t++) {
			const int64_t k = plan ? plan->rest[t] : t;
			const nw_pair_t *pr = &job->pairs[k];
			int64_t qlen = job->qb->len[pr->q], rlen = job->rb->len[pr->r];
			if (pr->q != last_q) { /* all-vs-all pairs of one query are adjacent */
				nw_batch_unpack(job->qb, pr->q, q);
				last_q = pr->q;
			}
			nw_batch_unpack(job->rb, pr->r, r);
			nw_result_t *rs = &job->res[k];
			nw_align_params_t pk; /* this pair's need, at need[0] (nw_cpu_align) */
			if (p->need) {
				pk = *p;
				pk.need = &p->need[k];
			}
			ret = job->what == JOB_ALIGN ? nw_cpu_align(p->need ? &pk : p, q, qlen, r, rlen, ws, rs)
			    : job->what == JOB_PATHS ? nw_cpu_align_path(p, q, qlen, r, rlen, ws, rs)
						     : nw_path_finish(p, q, qlen, r, rlen, rs);
		}
	}
	if (ret < 0 && !__atomic_exchange_n(&job->failed, 1, __ATOMIC_RELAXED))
		job->err_code = ret;
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

static int run_cpu_job(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		       const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		       int what, char *err, size_t errlen)
{
	const int threads = run->cpu_threads > 0 ? run->cpu_threads : run->opt->threads;
	int nt = threads;
	if (nt > n)
		nt = n > 0 ? (int)n : 1;
	if (cpu_workspaces(run, nt) < 0) {
		snprintf(err, errlen, "out of memory");
		return NW_ERR_MEMORY;
	}
	job_t job = {.run = run, .params = p, .qb = qb, .rb = rb, .pairs = pairs, .res = res, .n = n,
		     .what = what};
	nw_inter_plan_t plan;
	if (what == JOB_ALIGN || what == JOB_PATHS) {
		const int by_band = what == JOB_ALIGN && nw_inter_starts_grouped(p);
		if ((by_band ? nw_inter_plan_starts(p, res, n, nw_cpu_isa(), &plan)
			     : nw_inter_plan_paths(p, qb, rb, pairs, what == JOB_PATHS ? res : NULL, n,
						   nw_cpu_isa(), &plan)) < 0) {
			snprintf(err, errlen, "out of memory");
			return NW_ERR_MEMORY;
		}
		job.plan = &plan;
		n = plan.n_rest;
	}
	/* Fewer pairs than threads, none in groups: the threads left over share out the
	 * score passes and paths of long pairs (nw_striped_team, cpu_path.c's teams) */
	const int team = (!job.plan || job.plan->n_groups == 0) && n > 0 && n < threads
				 ? threads / (int)n : 1;
	for (int t = 0; t < nt; t++)
		nw_workspace_set_team(run->cpu_ws[t], team, 0, 0);
	job.threads = nt;
	job.grain = n / ((int64_t)nt * 16);
	job.grain = job.grain < 1 ? 1 : job.grain > 64 ? 64 : job.grain;
	pthread_t *tid = calloc((size_t)nt, sizeof *tid);
	int started = 0;
	if (!tid) {
		if (job.plan)
			nw_inter_plan_free(&plan);
		snprintf(err, errlen, "out of memory");
		return NW_ERR_MEMORY;
	}
	for (int t = 1; t < nt; t++, started++)
		if (pthread_create(&tid[t], NULL, cpu_worker, &job) != 0)
			break;
	cpu_worker(&job); /* the calling thread works too */
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	free(tid);
	if (job.plan)
		nw_inter_plan_free(&plan);
	if (job.failed) {
		snprintf(err, errlen, job.err_code == NW_ERR_MEMORY ? "out of memory while aligning"
				      : job.err_code == NW_ERR_INTERRUPTED
					      ? "interrupted"
					      : "internal error in the CPU engine (see the message above)");
		return job.err_code;
	}
	return 0;
}

/* The CPU engine's work on n pairs. A local match/mismatch chunk's starts are found after
 * all its scores and end cells (nw_inter_starts_apart), in groups of like bands. */
static int run_cpu(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		   const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		   int what, char *err, size_t errlen)
{
	if (what != JOB_ALIGN || !nw_inter_starts_apart(p))
		return run_cpu_job(run, p, qb, rb, pairs, res, n, what, err, errlen);
	nw_align_params_t sp = *p;
	sp.ends_only = 1;
	int ret = run_cpu_job(run, &sp, qb, rb, pairs, res, n, what, err, errlen);
	if (ret < 0)
		return ret;
	sp.ends_only = 0;
	sp.starts_only = 1;
	return run_cpu_job(run, &sp, qb, rb, pairs, res, n, what, err, errlen);
}

/* ---------------------------------------------------------------- one chunk */

void nw_progress(run_t *run, int final)
{
	if (!isatty(STDERR_FILENO) || run->opt->verbose)
		return;
	double t = nw_pl_now();
	if (final) {
		if (run->progress_shown)
			fputs("\r\033[K", stderr);
		return;
	}
	if (t - run->t0 < 2 || t - run->last_progress < 0.5)
		return;
	fprintf(stderr, "\rnwalign: %lld pairs, %.3g cells, %.1f s", (long long)run->n_pairs,
		run->cells, t - run->t0);
	run->last_progress = t;
	run->progress_shown = 1;
}

/* ---------------------------------------------------------------- GPU failures */

/* The GPU engine, unless it failed earlier in the run. */
static nw_gpu_t *gpu_of(const run_t *run)
{
	return run->gpu_failed ? NULL : run->gpu;
}

/* NW_GPU_FAIL=STAGE[,N] (a test hook): the N-th call (1 without N) of that GPU stage
 * (align, paths or top) fails as a failing device would. */
static int injected_failure(const char *stage, char *err, size_t errlen)
{
	static int calls[3];
	const char *e = getenv("NW_GPU_FAIL");
	const int k = strcmp(stage, "align") == 0 ? 0 : strcmp(stage, "paths") == 0 ? 1 : 2;
	if (!e || strncmp(e, stage, strlen(stage)) != 0)
		return 0;
	const int nth = e[strlen(stage)] == ',' ? atoi(e + strlen(stage) + 1) : 1;
	if (__atomic_add_fetch(&calls[k], 1, __ATOMIC_RELAXED) != nth)
		return 0;
	snprintf(err, errlen, "NW_GPU_FAIL: %s call %d failed on purpose", stage, nth);
	return NW_ERR_GPU;
}

/* After a GPU call that returned ret: 1 when the CPU engine takes over (--backend auto and
 * a failure of the device or of its memory: one warning, and this chunk and the rest of
 * the run go to the CPU engine, whose results are the same), 0 when ret stands (success,
 * --backend gpu, or an error that is not the device's). */
static int cpu_takes_over(run_t *run, int ret, const char *err)
{
	if ((ret != NW_ERR_GPU && ret != NW_ERR_MEMORY) || run->opt->backend == NW_BACKEND_GPU)
		return 0;
	nw_log_warn("the GPU engine failed (%s): the CPU engine aligns this chunk and the rest of "
		    "the run", err);
	run->gpu_failed = 1;
	return 1;
}

/* While the GPU opens (run->opening), the CPU engine aligns the first of the n pairs in
 * slices of about NW_SLICE_S seconds each (at the planning's rates), and after each slice
 * the GPU becomes the run's engine if it is open. Returns how many of the pairs are done
 * (all of them when the GPU is still opening at the end), or < 0. When not even one pair
 * a thread fits a slice (long pairs), the GPU is waited for instead: a slice must not
 * keep the open GPU waiting long. NW_SHARE_SLICES=N (a test hook): at most N slices in
 * the run, then the GPU is waited for. */
#define NW_SLICE_S 0.01
static int64_t while_opening(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
			     const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res,
			     int64_t n, int what, char *err, size_t errlen)
{
	if (!run->opening || n == 0)
		return 0;
	const double rate = what == JOB_PATHS ? NW_CPU_PATH_CELLS_PER_S : NW_CPU_CELLS_PER_S;
	const double pair_s = nw_plan_cells(qb, rb, pairs, n) / (double)n / rate + NW_CPU_PAIR_S;
	const int64_t slice = (int64_t)(NW_SLICE_S * run->cpu_threads / pair_s);
	int ret;
	if (slice < run->cpu_threads)
		return (ret = nw_adopt_gpu(run, 1, err, errlen)) < 0 ? ret : 0;
	const char *most = getenv("NW_SHARE_SLICES");
	int64_t k = 0;
	while (k < n && run->opening) {
		if (most && *most && run->slices_while_opening >= atoll(most))
			return (ret = nw_adopt_gpu(run, 1, err, errlen)) < 0 ? ret : k;
		run->slices_while_opening++;
		const int64_t m = n - k < slice ? n - k : slice;
		nw_align_params_t sp = *p; /* the slice's needs, if any */
		sp.need = p->need ? p->need + k : NULL;
		if ((ret = run_cpu(run, &sp, qb, rb, pairs + k, res + k, m, what, err, errlen)) < 0 ||
		    (ret = nw_adopt_gpu(run, 0, err, errlen)) < 0)
			return ret;
		k += m;
		run->pairs_while_opening += what == JOB_PATHS ? 0 : m;
	}
	return k;
}

/* A stage of a chunk: n pairs of queries qb (one strand) against references rb. */
typedef int (*stage_fn)(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
			const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
			char *err, size_t errlen);

/* Scores and spans (with p->ends_only, end cells only) of n pairs with the run's engine;
 * no path (p->want_path is 0). */
static int scores(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		  const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		  char *err, size_t errlen)
{
	const int64_t n_all = n, k0 = while_opening(run, p, qb, rb, pairs, res, n, JOB_ALIGN,
						    err, errlen);
	if (k0 < 0)
		return (int)k0;
	pairs += k0, res += k0, n -= k0; /* the rest, if any */
	nw_align_params_t rest = *p;
	rest.need = p->need ? p->need + k0 : NULL;
	p = &rest;
	int ret = 0, on_gpu = gpu_of(run) != NULL;
	if (on_gpu && n > 0) {
		if ((ret = injected_failure("align", err, errlen)) == 0)
			ret = nw_lanes_call(&run->lanes, nw_gpu_align, p, qb, rb, pairs, n, res, err,
					    errlen);
		on_gpu = !cpu_takes_over(run, ret, err);
	}
	if (!on_gpu && n > 0)
		ret = run_cpu(run, p, qb, rb, pairs, res, n, JOB_ALIGN, err, errlen);
	pairs -= k0, res -= k0, n = n_all;
	for (int64_t k = 0; k < n; k++) {
		res[k].n_cigar = 0;
		res[k].path_kind = NW_PATH_NONE;
		res[k].opt_score = res[k].score;
	}
	return ret;
}

/* Paths of n pairs whose scores and spans res holds, checked by nw_path_finish: on the CPU,
 * or on the GPU with the checks on the CPU threads. */
static int paths(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		 char *err, size_t errlen)
{
	const int64_t k0 = while_opening(run, p, qb, rb, pairs, res, n, JOB_PATHS, err, errlen);
	if (k0 < 0)
		return (int)k0;
	pairs += k0, res += k0, n -= k0; /* the rest, if any */
	if (n == 0)
		return 0;
	if (!gpu_of(run))
		return run_cpu(run, p, qb, rb, pairs, res, n, JOB_PATHS, err, errlen);
	int ret;
	if ((ret = injected_failure("paths", err, errlen)) == 0)
		ret = nw_lanes_call(&run->lanes, nw_gpu_paths, p, qb, rb, pairs, n, res, err, errlen);
	if (cpu_takes_over(run, ret, err)) {
		for (int64_t k = 0; k < n; k++) { /* whatever the GPU left in them */
			res[k].n_cigar = 0;
			res[k].path_kind = NW_PATH_NONE;
		}
		return run_cpu(run, p, qb, rb, pairs, res, n, JOB_PATHS, err, errlen);
	}
	return ret < 0 ? ret : run_cpu(run, p, qb, rb, pairs, res, n, JOB_FINISH, err, errlen);
}

/* Runs stage on every result in the frame of its strand: results with strand 0 against the
 * query as given, those with strand 1 against its reverse complement (set->q_rc), whose
 * coordinates they still carry. With --strand both, each strand's pairs and results are
 * moved into run->sub_pairs / sub_res for the call and back after it. */
static int on_strands(run_t *run, stage_fn stage, const nw_align_params_t *p,
		      const nw_batch_set_t *set, const nw_batch_t *rb, const nw_pair_t *pairs,
		      nw_result_t *res, int64_t n, char *err, size_t errlen)
{
	for (int s = 0; s <= 1; s++) {
		const nw_batch_t *qb = s ? &set->q_rc : &set->q;
		int64_t m = 0;
		int ret;
		for (int64_t k = 0; k < n; k++)
			m += res[k].strand == s;
		if (m == 0)
			continue;
		if (m == n) /* one strand only (always so without --strand both) */
			return stage(run, p, qb, rb, pairs, res, n, err, errlen);
		for (int64_t k = 0, x = 0; k < n; k++)
			if (res[k].strand == s) {
				run->sub_pairs[x] = pairs[k];
				run->sub_res[x++] = res[k];
			}
		ret = stage(run, p, qb, rb, run->sub_pairs, run->sub_res, m, err, errlen);
		for (int64_t k = 0, x = 0; k < n; k++) /* back, so that each owns its CIGAR */
			if (res[k].strand == s) {
				res[k] = run->sub_res[x++];
				res[k].strand = s;
			}
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* Whether the reverse complement of pair pr, whose query as given scores s, has a need (s
 * plus one) of at least half the most the pair can score: semiglobal, every query residue
 * at the best substitution score; global, the shorter sequence's. Local passes take no
 * need. The queries' lengths are those of q (the reverse complements have the same). */
static int strong_need(const nw_align_params_t *p, const nw_batch_t *q, const nw_batch_t *rb,
		       const nw_pair_t *pr, int64_t s)
{
	const int64_t maxsc = p->sc->max_score > 0 ? p->sc->max_score : 0;
	const int64_t ql = q->len[pr->q], rl = rb->len[pr->r];
	if (p->mode == NW_MODE_LOCAL || s >= INT64_MAX / 4 || s <= -INT64_MAX / 4)
		return 0;
	const int64_t most = maxsc * (p->mode == NW_MODE_GLOBAL && rl < ql ? rl : ql);
	return 2 * (s + 1) >= most;
}

/* Scores and spans of n pairs (p: no path). With --strand both the reverse complements
 * are aligned too (into run->rc_res) and each result keeps the better strand, the query as
 * given on ties, with the coordinates of that strand's query (see to_query_frame). A
 * reverse complement only matters where it scores above the query as given: that score
 * plus one is its need (nw_align_params_t.need), which lets the GPU prune its pass. The
 * reverse complements go in two calls: those whose need is at least half the most their
 * pair can score, with their needs, then the others without (a pass with needs that
 * leave most cells alive runs slower than a plain one; see bench/RESULTS.md). */
static int score_strands(run_t *run, const nw_align_params_t *p, const nw_batch_set_t *set,
			 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res,
			 int64_t n, char *err, size_t errlen)
{
	int ret = scores(run, p, &set->q, rb, pairs, res, n, err, errlen);
	for (int64_t k = 0; k < n; k++)
		res[k].strand = 0;
	if (ret < 0 || !run->opt->both_strands)
		return ret;
	for (int strong = 1; strong >= 0; strong--) {
		int64_t m = 0;
		for (int64_t k = 0; k < n; k++)
			m += strong_need(p, &set->q, rb, &pairs[k], res[k].score) == strong;
		if (m == 0)
			continue;
		const nw_pair_t *sp = pairs;
		nw_result_t *sr = run->rc_res;
		if (m < n) {
			sp = run->sub_pairs, sr = run->sub_res;
			for (int64_t k = 0, x = 0; k < n; k++)
				if (strong_need(p, &set->q, rb, &pairs[k], res[k].score) == strong) {
					run->sub_pairs[x] = pairs[k];
					run->sub_res[x] = run->rc_res[k];
					run->need[x++] = res[k].score + 1;
				}
		} else {
			for (int64_t k = 0; k < n; k++)
				run->need[k] = res[k].score + 1;
		}
		nw_align_params_t rp = *p;
		rp.need = strong ? run->need : NULL;
		ret = scores(run, &rp, &set->q_rc, rb, sp, sr, m, err, errlen);
		for (int64_t k = 0, x = 0; k < n && m < n; k++) /* back, so that each owns its buffer */
			if (strong_need(p, &set->q, rb, &pairs[k], res[k].score) == strong)
				run->rc_res[k] = run->sub_res[x++];
		if (ret < 0)
			return ret;
	}
	for (int64_t k = 0; k < n; k++) {
		if (run->rc_res[k].score <= res[k].score)
			continue;
		nw_result_t t = res[k]; /* swap, so that each keeps owning a CIGAR buffer */
		res[k] = run->rc_res[k];
		run->rc_res[k] = t;
		res[k].strand = 1;
	}
	return 0;
}

/* Query coordinates of reverse-strand results, found on the reverse complement, mirrored
 * onto the query as given; their CIGARs stay as computed, following the reference. */
static void to_query_frame(const nw_batch_t *qb, const nw_pair_t *pairs, nw_result_t *res,
			   int64_t n)
{
	for (int64_t k = 0; k < n; k++) {
		if (!res[k].strand)
			continue;
		int64_t len = qb->len[pairs[k].q], qs = res[k].qstart;
		res[k].qstart = len - res[k].qend;
		res[k].qend = len - qs;
	}
}

/* --top: of each query's n_ref pairs (adjacent, reference order), keep the run's top best
 * in rank order. Returns the number of pairs kept in run->cb->top_pairs; run->cb->top_res gets
 * their strands, scores and end cells. */
static int64_t select_top(run_t *run, int64_t n, uint32_t n_ref)
{
	int64_t kept = 0, top = run->opt->top < (int)n_ref ? run->opt->top : n_ref;
	for (int64_t q0 = 0; q0 < n; q0 += n_ref) {
		nw_pair_t *best = run->cb->top_pairs + kept; /* sorted, best first */
		const nw_result_t *res = run->cb->res + q0;
		int64_t have = 0;
		for (uint32_t j = 0; j < n_ref; j++) {
			const nw_pair_t *last = &best[top - 1];
			if (have == top && !nw_ranks_before(res[j].score, j, res[last->r].score, last->r))
				continue;
			int64_t k = have < top ? have++ : top - 1;
			while (k > 0 &&
			       nw_ranks_before(res[j].score, j, res[best[k - 1].r].score, best[k - 1].r)) {
				best[k] = best[k - 1];
				k--;
			}
			best[k] = run->cb->pairs[q0 + j];
		}
		for (int64_t k = 0; k < have; k++) { /* what starts_only needs: score and end */
			const nw_result_t *from = &res[best[k].r];
			nw_result_t *to = &run->cb->top_res[kept + k];
			to->strand = from->strand;
			to->score = from->score;
			to->qstart = from->qstart, to->qend = from->qend;
			to->rstart = from->rstart, to->rend = from->rend;
		}
		kept += have;
	}
	return kept;
}

int nw_chunk_results(run_t *run, const nw_batch_set_t *set, const nw_batch_t *rb, int64_t n,
		     nw_pair_t **pairs_out, nw_result_t **res_out, int64_t *n_res, char *err,
		     size_t errlen)
{
	const nw_batch_t *qb = &set->q;
	nw_pair_t *out_pairs = run->cb->pairs;
	nw_result_t *out_res = run->cb->res;
	nw_align_params_t sp = run->params; /* the score stages */
	int64_t n_out = n;
	int ret;
	double t = nw_pl_now(), t1;
	sp.want_path = 0;
	/* --top ranks and --strand both picks by score and end cell alone; the starts (a
	 * reverse pass each) are found only for the results kept */
	sp.ends_only = run->opt->top > 0 || run->opt->both_strands;
	int on_device = run->opt->top > 0 && gpu_of(run) && !run->opt->both_strands;
	if (on_device) {
		/* ranked on the device: only the kept results come back */
		if ((ret = injected_failure("top", err, errlen)) == 0)
			ret = nw_lanes_top(&run->lanes, nw_gpu_top, &sp, qb, rb, run->cb->pairs, n,
					   rb->n, run->opt->top, run->cb->top_pairs,
					   run->cb->top_res, &n_out, err, errlen);
		if (cpu_takes_over(run, ret, err)) {
			on_device = 0;
			n_out = n;
		} else if (ret < 0) {
			return ret;
		}
		out_pairs = run->cb->top_pairs;
		out_res = run->cb->top_res;
	}
	if (!on_device) {
		if ((ret = nw_chunk_res(run, n, err, errlen)) < 0)
			return ret;
		out_pairs = run->cb->pairs;
		out_res = run->cb->res;
		if ((ret = score_strands(run, &sp, set, rb, run->cb->pairs, run->cb->res, n, err,
					 errlen)) < 0)
			return ret;
		if (run->opt->top > 0) {
			n_out = select_top(run, n, (uint32_t)rb->n);
			out_pairs = run->cb->top_pairs;
			out_res = run->cb->top_res;
		}
	}
	run->stage_s[STAGE_SCORES] += (t1 = nw_pl_now()) - t;
	t = t1;
	if (sp.ends_only) { /* the starts of the kept results, on their strands */
		sp.ends_only = 0;
		sp.starts_only = 1;
		if ((ret = on_strands(run, scores, &sp, set, rb, out_pairs, out_res, n_out, err,
				      errlen)) < 0)
			return ret;
	}
	run->stage_s[STAGE_STARTS] += (t1 = nw_pl_now()) - t;
	t = t1;
	if (run->params.want_path) {
		if ((ret = on_strands(run, paths, &run->params, set, rb, out_pairs, out_res, n_out,
				      err, errlen)) < 0)
			return ret;
		for (int64_t k = 0; k < n_out; k++)
			run->n_paths[out_res[k].path_kind]++;
	}
	to_query_frame(qb, out_pairs, out_res, n_out);
	run->stage_s[STAGE_PATHS] += nw_pl_now() - t;
	run->n_pairs += n;
	run->cells += nw_plan_cells(qb, rb, run->cb->pairs, n);
	*pairs_out = out_pairs;
	*res_out = out_res;
	*n_res = n_out;
	return 0;
}

int nw_align_chunk(run_t *run, const nw_batch_set_t *set, const nw_batch_t *rb, int64_t n,
		   char *err, size_t errlen)
{
	nw_pair_t *pairs;
	nw_result_t *res;
	int64_t n_out;
	int ret = nw_chunk_results(run, set, rb, n, &pairs, &res, &n_out, err, errlen);
	if (ret < 0)
		return ret;
	double t = nw_pl_now();
	int64_t id = nw_wstage_submit(run->wstage, &set->q, rb, pairs, res, n_out, err, errlen);
	if (id < 0)
		return (int)id;
	run->cb->written_as = id;
	run->n_records += n_out;
	run->stage_s[STAGE_WRITE] += nw_pl_now() - t;
	nw_progress(run, 0);
	return 0;
}

