/* align_stage.c: one chunk of pairs through the engine (see pipeline.h).
 *
 * A chunk goes through stages, so that no path is computed for a result that is not
 * written: scores and spans of every pair (both strands with --strand both; --top ranks
 * on scores and end cells alone, then finds the spans of the kept pairs), the choice of
 * strand and of the --top pairs, then the paths of the results kept (src/path.h decides
 * their kind), and last the reverse-strand coordinates mirrored onto the query as given;
 * then the write stage takes the chunk. The CPU engine's part of it runs in cpu_jobs.c.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"
#include "pipeline.h"
#include "plan.h"

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
 * (align, paths or top) fails as a failing device would; badpath: the N-th paths call
 * returns a path one residue too long, which its check must catch (nw_check_paths). */
static int injected_failure(const char *stage, char *err, size_t errlen)
{
	static int calls[4];
	const char *e = getenv("NW_GPU_FAIL");
	const int k = strcmp(stage, "align") == 0 ? 0 : strcmp(stage, "paths") == 0 ? 1
		    : strcmp(stage, "top") == 0 ? 2 : 3;
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
	const double rate = what == NW_JOB_PATHS ? NW_CPU_PATH_CELLS_PER_S : NW_CPU_CELLS_PER_S;
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
		if ((ret = nw_cpu_run(run, &sp, qb, rb, pairs + k, res + k, m, what, err, errlen)) < 0 ||
		    (ret = nw_adopt_gpu(run, 0, err, errlen)) < 0)
			return ret;
		k += m;
		run->pairs_while_opening += what == NW_JOB_PATHS ? 0 : m;
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
	const int64_t n_all = n, k0 = while_opening(run, p, qb, rb, pairs, res, n, NW_JOB_ALIGN,
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
		ret = nw_cpu_run(run, p, qb, rb, pairs, res, n, NW_JOB_ALIGN, err, errlen);
	pairs -= k0, res -= k0, n = n_all;
	for (int64_t k = 0; k < n; k++) {
		res[k].n_cigar = 0;
		res[k].path_kind = NW_PATH_NONE;
		res[k].opt_score = res[k].score;
	}
	return ret;
}

/* Paths of n pairs whose scores and spans res holds, checked by nw_path_finish: on the CPU,
 * or on the GPU, whose paths the write stage checks (nw_check_paths) while the engine goes
 * on with the next chunk. */
static int paths(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		 char *err, size_t errlen)
{
	const int64_t k0 = while_opening(run, p, qb, rb, pairs, res, n, NW_JOB_PATHS, err, errlen);
	if (k0 < 0)
		return (int)k0;
	pairs += k0, res += k0, n -= k0; /* the rest, if any */
	if (n == 0)
		return 0;
	if (!gpu_of(run))
		return nw_cpu_run(run, p, qb, rb, pairs, res, n, NW_JOB_PATHS, err, errlen);
	int ret;
	if ((ret = injected_failure("paths", err, errlen)) == 0)
		ret = nw_lanes_call(&run->lanes, nw_gpu_paths, p, qb, rb, pairs, n, res, err, errlen);
	if (cpu_takes_over(run, ret, err)) {
		for (int64_t k = 0; k < n; k++) { /* whatever the GPU left in them */
			res[k].n_cigar = 0;
			res[k].path_kind = NW_PATH_NONE;
		}
		return nw_cpu_run(run, p, qb, rb, pairs, res, n, NW_JOB_PATHS, err, errlen);
	}
	if (ret < 0)
		return ret;
	char ignored[128];
	if (injected_failure("badpath", ignored, sizeof ignored) < 0 && res[0].n_cigar > 0)
		res[0].cigar[0] += NW_CIGAR_PACK(1, 0);
	for (int64_t k = 0; k < n; k++)
		res[k].unchecked = 1;
	return 0;
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
	for (int64_t k = 0; k < n; k++)
		if (res[k].strand)
			nw_mirror_query_span(&res[k], qb->len[pairs[k].q]);
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

void nw_chunk_list_pairs(run_t *run, const nw_batch_t *rb)
{
	chunk_buf_t *c = run->cb;
	if (!c->listed)
		nw_plan_all(c->all_q0, c->all_q1, (uint32_t)rb->n, c->pairs);
	c->listed = 1;
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
	const double was[3] = {run->stage_s[STAGE_SCORES], run->stage_s[STAGE_STARTS],
			       run->stage_s[STAGE_PATHS]};
	sp.want_path = 0;
	/* --top ranks and --strand both picks by score and end cell alone; the starts (a
	 * reverse pass each) are found only for the results kept */
	sp.ends_only = run->opt->top > 0 || run->opt->both_strands;
	int on_device = run->opt->top > 0 && gpu_of(run) && !run->opt->both_strands && !run->cb->listed;
	/* the cells, before any engine lists the pairs: all vs all's from the lengths */
	const double cells = run->cb->listed ? nw_plan_cells(qb, rb, run->cb->pairs, n)
					     : nw_plan_all_cells(qb, rb, run->cb->all_q0, run->cb->all_q1);
	if (on_device) {
		/* ranked on the device: only the kept results come back */
		if ((ret = injected_failure("top", err, errlen)) == 0)
			ret = nw_lanes_top(&run->lanes, nw_gpu_top, &sp, qb, rb, run->cb->all_q0,
					   run->cb->all_q1, run->opt->top, run->cb->top_pairs,
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
		nw_chunk_list_pairs(run, rb);
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
	nw_log_debug("a chunk of %lld pairs: scores and starts %.3f s, paths %.3f s", (long long)n,
		     run->stage_s[STAGE_SCORES] - was[0] + run->stage_s[STAGE_STARTS] - was[1],
		     run->stage_s[STAGE_PATHS] - was[2]);
	run->n_pairs += n;
	run->cells += cells;
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
	int64_t id = nw_wstage_submit(run->wstage, &set->q, &set->q_rc, rb, pairs, res, n_out, err,
				      errlen);
	if (id < 0)
		return (int)id;
	run->cb->written_as = id;
	run->n_records += n_out;
	run->stage_s[STAGE_WRITE] += nw_pl_now() - t;
	nw_progress(run, 0);
	return 0;
}

