/* gpu_lanes.c: a large GPU call split over engines on threads of their own (see
 * pipeline.h).
 *
 * On short pairs the GPU engine's host side (copying the batches to page-locked memory,
 * building and planning the jobs, turning the passes' outputs into results and the path
 * batches into CIGARs) takes 10 to 20 times its kernels' time, on one thread. A call of
 * many pairs is therefore cut into contiguous ranges, one a lane: each lane is an engine of
 * its own (nw_gpu_t: its stream, buffers and plans, on the same device and context), driven
 * by its own thread, so that the host work runs on several cores and the lanes' kernels
 * run side by side. Every pair's result is independent of the others in its call (the
 * engines equal the CPU engine pair by pair), so the output is the same whatever the split.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "team.h"

/* A lane takes at least this many pairs: below it, the lanes' launches would be too small
 * to fill the GPU side by side, and the host work too short to gain from a thread. */
#define NW_LANE_MIN_PAIRS 32768
/* Long pairs split sooner: a lane takes this many residues, as long as it keeps
 * NW_LANE_MIN_LONG pairs, so that the host work between one lane's passes overlaps the
 * other lanes' kernels. The floor keeps each lane above the engine's own threshold for its
 * batch kernel (NW_LONG_BATCHED_PER_SM long problems an SM, gpu_align.cu): below it the
 * engine takes long problems one after another in the long kernel, far slower than one
 * lane holding them all. */
#define NW_LANE_MIN_RESIDUES ((uint64_t)8 << 20)
#define NW_LANE_MIN_LONG 1024

/* A batch's bytes on the device: its codes, packed words and per-sequence arrays. */
#define NW_DEVICE_BYTES(b) ((b)->total_residues + 4 * (b)->n_words + 24 * (uint64_t)(b)->n)

void nw_lanes_init(nw_lanes_t *l, nw_gpu_t *g0, const nw_opt_t *opt)
{
	memset(l, 0, sizeof *l);
	l->g[0] = g0;
	l->device = opt->device;
	l->min_pairs = NW_LANE_MIN_PAIRS;
	/* as many as the host threads allow, up to 4, and for runs with paths or --top 6
	 * from 16 threads on: each lane's thread does its engine's host work, which sets the
	 * pace of calls with paths (turning path batches into CIGARs) and of --top calls
	 * (planning a query's pairs with every reference while its stream idles), where without them
	 * the reading does; but more engines add start-up and page-locked buffers and take the
	 * cores that the feeder (two threads) and the write stage (formatting, the paths'
	 * checks) need (8 engines for --top bought little speed for a fifth more memory:
	 * bench/RESULTS.md, 2026-11-29); one under --gpu-memory, which caps one engine's
	 * buffers */
	l->n = (nw_opt_wants_path(opt) || opt->top > 0) && opt->threads >= 16 ? 6
	       : opt->threads < 4 ? opt->threads : 4;
	const char *e = getenv("NW_GPU_LANES"), *m = getenv("NW_GPU_LANE_MIN");
	if (e && *e)
		l->n = atoi(e);
	if (m && *m && atoll(m) > 0) /* a test hook: small inputs split too */
		l->min_pairs = atoll(m);
	if (opt->gpu_memory || !g0 || l->n < 1)
		l->n = 1;
	l->device_bytes = g0 ? nw_gpu_memory_total(g0) : 0;
	l->preload = nw_gpu_preload;
	l->set_peer = nw_gpu_set_peer;
	if (l->n > NW_LANES_MAX)
		l->n = NW_LANES_MAX;
}

typedef struct {
	nw_lanes_t *l;
	int k;
	nw_gpu_call_fn fn;
	nw_gpu_top_fn top_fn;        /* --top: instead of fn */
	nw_align_params_t p;
	const nw_batch_t *qb, *rb;
	const nw_pair_t *pairs;
	int64_t n;
	nw_result_t *res;
	/* --top: queries [q0, q1) of qb against every reference of rb (pairs unused) */
	int64_t q0, q1;
	int top;
	nw_pair_t *kept_pairs;
	int64_t n_kept;
	int ret;
	char err[512];
} lane_job_t;

/* The records [*lo, *hi) of one side of the pairs (q or r, by side). */
static void side_range(const nw_pair_t *pairs, int64_t n, int side, int64_t *lo, int64_t *hi)
{
	uint32_t a = UINT32_MAX, b = 0;
	for (int64_t k = 0; k < n; k++) {
		const uint32_t x = side ? pairs[k].r : pairs[k].q;
		a = x < a ? x : a;
		b = x > b ? x : b;
	}
	*lo = a, *hi = (int64_t)b + 1;
}

/* A --top lane's call on engine g: its queries as a view of qb (they upload alone), its
 * kept pairs numbered back into qb. */
static int top_call(lane_job_t *j, nw_gpu_t *g)
{
	const int64_t nq = j->q1 - j->q0;
	const int view_q = nq < j->qb->n;
	uint64_t *qoff = view_q ? malloc(sizeof *qoff * (size_t)(nq ? nq : 1)) : NULL;
	nw_batch_t qv;
	if (view_q && !qoff) {
		snprintf(j->err, sizeof j->err, "out of memory for a lane of %lld queries", (long long)nq);
		return NW_ERR_MEMORY;
	}
	if (view_q)
		nw_batch_view(j->qb, j->q0, j->q1, qoff, &qv);
	int ret = j->top_fn(g, &j->p, view_q ? &qv : j->qb, j->rb, j->top, j->kept_pairs, j->res,
			    &j->n_kept, j->err, sizeof j->err);
	for (int64_t k = 0; ret == 0 && k < j->n_kept; k++)
		j->kept_pairs[k].q += (uint32_t)j->q0; /* back to the batch's */
	free(qoff);
	return ret;
}

/* The lane's call. A lane whose pairs use a part of a batch (zip: its records of both;
 * all vs all: its queries) gets a view of that part, so that it uploads those records
 * only, and its pairs renumbered into the views. */
static void *lane_main(void *arg)
{
	lane_job_t *j = arg;
	nw_gpu_t **g = &j->l->g[j->k];
	if (!*g && !(*g = nw_gpu_open(j->l->device, j->err, sizeof j->err))) {
		j->ret = NW_ERR_GPU;
		return NULL;
	}
	if (j->k > 0) /* the references lane 0's engine preloaded */
		j->l->set_peer(*g, j->l->g[0]);
	if (j->top_fn) {
		j->ret = top_call(j, *g);
		return NULL;
	}
	int64_t q0, q1, r0, r1;
	side_range(j->pairs, j->n, 0, &q0, &q1);
	side_range(j->pairs, j->n, 1, &r0, &r1);
	const int view_q = q1 - q0 < j->qb->n, view_r = r1 - r0 < j->rb->n;
	nw_batch_t qv, rv;
	uint64_t *qoff = view_q ? malloc(sizeof *qoff * (size_t)(q1 - q0)) : NULL;
	uint64_t *roff = view_r ? malloc(sizeof *roff * (size_t)(r1 - r0)) : NULL;
	nw_pair_t *renum = view_q || view_r ? malloc(sizeof *renum * (size_t)j->n) : NULL;
	if ((view_q && !qoff) || (view_r && !roff) || ((view_q || view_r) && !renum)) {
		snprintf(j->err, sizeof j->err, "out of memory for a lane of %lld pairs", (long long)j->n);
		j->ret = NW_ERR_MEMORY;
	} else {
		if (view_q)
			nw_batch_view(j->qb, q0, q1, qoff, &qv);
		if (view_r)
			nw_batch_view(j->rb, r0, r1, roff, &rv);
		for (int64_t k = 0; renum && k < j->n; k++) {
			renum[k].q = j->pairs[k].q - (uint32_t)(view_q ? q0 : 0);
			renum[k].r = j->pairs[k].r - (uint32_t)(view_r ? r0 : 0);
		}
		const nw_batch_t *qb = view_q ? &qv : j->qb, *rb = view_r ? &rv : j->rb;
		const nw_pair_t *pairs = renum ? renum : j->pairs;
		j->ret = j->fn(*g, &j->p, qb, rb, pairs, j->n, j->res, j->err, sizeof j->err);
	}
	free(qoff);
	free(roff);
	free(renum);
	return NULL;
}

/* How many lanes a call of n pairs takes (1: not split), at most units lanes; with qb and
 * rb, their residues count too (NW_LANE_MIN_RESIDUES). */
static int64_t lanes_for(const nw_lanes_t *l, int64_t n, int64_t units, const nw_batch_t *qb,
			 const nw_batch_t *rb, const nw_pair_t *pairs)
{
	int64_t k = l->n < 2 ? 1 : n / l->min_pairs;
	if (qb && k < l->n && l->n >= 2) {
		uint64_t residues = 0;
		for (int64_t i = 0; i < n; i++)
			residues += (uint64_t)qb->len[pairs[i].q] + rb->len[pairs[i].r];
		int64_t by_residues = (int64_t)(residues / NW_LANE_MIN_RESIDUES);
		by_residues = by_residues < n / NW_LANE_MIN_LONG ? by_residues : n / NW_LANE_MIN_LONG;
		k = by_residues > k ? by_residues : k;
	}
	k = k > l->n ? l->n : k;
	return k > units ? units : k;
}

/* The references rb where every one of the k lanes reads all of them: one copy on the
 * device, uploaded by lane 0's engine before the lanes start and read by the others
 * (nw_gpu_preload), or, when that fails for want of device memory, fewer lanes, so that
 * k copies of rb (NW_DEVICE_BYTES each) take at most a quarter of the device's memory.
 * The new number of lanes, or an error that is not memory's. */
static int64_t share_refs(nw_lanes_t *l, int64_t k, const nw_batch_t *rb, char *err,
			  size_t errlen)
{
	const int ret = l->preload(l->g[0], rb, err, errlen);
	if (ret == 0 && l->t_shared == 0)
		l->t_shared = nw_pl_now();
	if (ret == 0 || ret != NW_ERR_MEMORY)
		return ret == 0 ? k : ret;
	while (k > 1 && l->device_bytes && (uint64_t)k * NW_DEVICE_BYTES(rb) > l->device_bytes / 4)
		k--;
	return k;
}

/* Runs the k jobs, lane 0 on this thread (a lane whose thread cannot start runs here
 * after it); the first failing lane's error. */
static int run_lanes(lane_job_t *job, int64_t k, char *err, size_t errlen)
{
	nw_team_run(lane_main, job, sizeof *job, (int)k);
	for (int64_t i = 0; i < k; i++)
		if (job[i].ret < 0) {
			snprintf(err, errlen, "%s", job[i].err);
			return job[i].ret;
		}
	return 0;
}

/* Lane i's job: pairs [a, b) of the call's. */
static void lane_job(lane_job_t *j, nw_lanes_t *l, int64_t i, const nw_align_params_t *p,
		     const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs,
		     nw_result_t *res, int64_t a, int64_t b)
{
	memset(j, 0, sizeof *j);
	j->l = l;
	j->k = (int)i;
	j->p = *p;
	if (p->need) /* per pair: the lane's part */
		j->p.need = p->need + a;
	j->qb = qb, j->rb = rb;
	j->pairs = pairs + a;
	j->n = b - a;
	j->res = res ? res + a : NULL;
}

/* A call whose references a quarter of the device's memory does not hold, but whose
 * pairs use few of them (the starts and paths of the pairs --top kept from a large
 * reference set): the call on a batch of the references it uses, copied out, so that the
 * device holds those only; 1 when it used too many for that to help (the caller goes on
 * with the whole batch). */
static int on_used_refs(nw_lanes_t *l, nw_gpu_call_fn fn, const nw_align_params_t *p,
			const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs,
			int64_t n, nw_result_t *res, char *err, size_t errlen)
{
	int32_t *slot = malloc(sizeof *slot * (size_t)rb->n);
	nw_pair_t *renum = malloc(sizeof *renum * (size_t)(n ? n : 1));
	nw_batch_t used;
	int ret = 0;
	nw_batch_init(&used, rb->alphabet);
	if (!slot || !renum)
		ret = NW_ERR_MEMORY;
	for (int64_t k = 0; slot && k < rb->n; k++)
		slot[k] = -1;
	for (int64_t k = 0; ret == 0 && k < n; k++) {
		const uint32_t r = pairs[k].r;
		if (slot[r] < 0) {
			slot[r] = (int32_t)used.n;
			ret = nw_batch_copy_seq(&used, rb, r);
		}
		renum[k].q = pairs[k].q;
		renum[k].r = (uint32_t)slot[r];
	}
	if (ret == 0 && NW_DEVICE_BYTES(&used) * 2 > NW_DEVICE_BYTES(rb))
		ret = 1; /* most of them: no gain */
	else if (ret == 0)
		ret = nw_lanes_call(l, fn, p, qb, &used, renum, n, res, err, errlen);
	else
		snprintf(err, errlen, "out of memory copying the references of %lld pairs", (long long)n);
	nw_batch_free(&used);
	free(slot);
	free(renum);
	return ret;
}

int nw_lanes_call(nw_lanes_t *l, nw_gpu_call_fn fn, const nw_align_params_t *p,
		  const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n,
		  nw_result_t *res, char *err, size_t errlen)
{
	if (l->device_bytes && NW_DEVICE_BYTES(rb) > l->device_bytes / 4) {
		const int ret = on_used_refs(l, fn, p, qb, rb, pairs, n, res, err, errlen);
		if (ret <= 0)
			return ret;
	}
	int64_t k = lanes_for(l, n, n, qb, rb, pairs), r0, r1;
	if (k > 1) { /* all vs all: lane 0's pairs hold a whole query, so do the others' */
		side_range(pairs, n / k, 1, &r0, &r1);
		if (r1 - r0 == rb->n && (k = share_refs(l, k, rb, err, errlen)) < 0)
			return (int)k;
	}
	if (k <= 1)
		return fn(l->g[0], p, qb, rb, pairs, n, res, err, errlen);
	lane_job_t job[NW_LANES_MAX];
	for (int64_t i = 0; i < k; i++) {
		lane_job(&job[i], l, i, p, qb, rb, pairs, res, n * i / k, n * (i + 1) / k);
		job[i].fn = fn;
	}
	return run_lanes(job, k, err, errlen);
}

/* nw_lanes_top with references that fit the device. */
static int top_lanes(nw_lanes_t *l, nw_gpu_top_fn fn, const nw_align_params_t *p,
		     const nw_batch_t *qb, const nw_batch_t *rb, int64_t q0, int64_t q1, int top,
		     nw_pair_t *kept_pairs, nw_result_t *kept_res, int64_t *n_kept, char *err,
		     size_t errlen)
{
	const int64_t nq = q1 - q0, n_ref = rb->n, per = top < n_ref ? top : n_ref;
	int64_t k = lanes_for(l, nq * n_ref, nq, NULL, NULL, NULL);
	if (k > 1 && (k = share_refs(l, k, rb, err, errlen)) < 0)
		return (int)k;
	if (k < 1)
		k = 1;
	lane_job_t job[NW_LANES_MAX];
	for (int64_t i = 0; i < k; i++) { /* whole queries a lane, its tops at theirs */
		const int64_t a = q0 + nq * i / k, b = q0 + nq * (i + 1) / k;
		lane_job(&job[i], l, i, p, qb, rb, NULL, NULL, 0, 0);
		job[i].q0 = a, job[i].q1 = b;
		job[i].n = (b - a) * n_ref;
		job[i].res = kept_res + (a - q0) * per;
		job[i].top_fn = fn;
		job[i].top = top;
		job[i].kept_pairs = kept_pairs + (a - q0) * per;
	}
	int ret = run_lanes(job, k, err, errlen);
	if (ret < 0)
		return ret;
	/* every query keeps per results, so each lane's tops end where the next one's begin */
	*n_kept = 0;
	for (int64_t i = 0; i < k; i++) {
		if (job[i].n_kept != (job[i].q1 - job[i].q0) * per) {
			snprintf(err, errlen, "internal error: a lane of --top kept %lld results of %lld "
					      "queries", (long long)job[i].n_kept, (long long)(job[i].q1 - job[i].q0));
			return NW_ERR_INTERNAL;
		}
		*n_kept += job[i].n_kept;
	}
	return 0;
}

double nw_lanes_kernel_seconds(const nw_lanes_t *l)
{
	double s = 0;
	for (int k = 0; k < NW_LANES_MAX; k++)
		s += l->g[k] ? nw_gpu_kernel_seconds(l->g[k]) : 0;
	return s;
}

double nw_lanes_first_kernel_time(const nw_lanes_t *l)
{
	double t = 0;
	for (int k = 0; k < NW_LANES_MAX; k++) {
		const double x = l->g[k] ? nw_gpu_first_kernel_time(l->g[k]) : 0;
		if (x > 0 && (t == 0 || x < t))
			t = x;
	}
	return t;
}

void nw_lanes_search_pairs(const nw_lanes_t *l, int64_t *pairs, int64_t *generic)
{
	*pairs = *generic = 0;
	for (int k = 0; k < NW_LANES_MAX; k++) {
		int64_t p = 0, gen = 0;
		if (l->g[k])
			nw_gpu_search_pairs(l->g[k], &p, &gen);
		*pairs += p;
		*generic += gen;
	}
}

int nw_lanes_opened(const nw_lanes_t *l)
{
	int n = 0;
	for (int k = 0; k < NW_LANES_MAX; k++)
		n += l->g[k] != NULL;
	return n;
}

void nw_lanes_close(nw_lanes_t *l)
{
	for (int k = 1; k < NW_LANES_MAX; k++) {
		if (l->g[k])
			nw_gpu_close(l->g[k]);
		l->g[k] = NULL;
	}
}

/* References that a quarter of the device's memory does not hold (a database partition of
 * tens of GB, say) go in ranges that it does: each range of references is a view (only it
 * is uploaded), every query is ranked against it on the device, and each query's tops
 * over the ranges are merged by the one rule (nw_ranks_before: the higher score, then the
 * earlier reference), so the result is the one call's. Without a known device size, or
 * with references that fit, this is top_lanes. */
int nw_lanes_top(nw_lanes_t *l, nw_gpu_top_fn fn, const nw_align_params_t *p,
		 const nw_batch_t *qb, const nw_batch_t *rb, int64_t q0, int64_t q1, int top,
		 nw_pair_t *kept_pairs, nw_result_t *kept_res, int64_t *n_kept, char *err,
		 size_t errlen)
{
	const uint64_t room = l->device_bytes / 4, need = NW_DEVICE_BYTES(rb);
	const int64_t n_ref = rb->n, nq = q1 - q0, per = top < n_ref ? top : n_ref;
	*n_kept = 0;
	if (nq <= 0 || n_ref <= 0 || top <= 0)
		return 0;
	if (!room || need <= room)
		return top_lanes(l, fn, p, qb, rb, q0, q1, top, kept_pairs, kept_res, n_kept, err,
				 errlen);
	const int64_t ranges = (int64_t)((need + room - 1) / room), len = (n_ref + ranges - 1) / ranges;
	l->ranged_calls++;
	nw_pair_t *got_p = malloc(sizeof *got_p * (size_t)(nq * per));
	nw_result_t *got_r = calloc((size_t)(nq * per), sizeof *got_r);
	nw_result_t *cur = calloc((size_t)(nq * per), sizeof *cur);
	nw_pair_t *cur_p = malloc(sizeof *cur_p * (size_t)(nq * per));
	int64_t *have = calloc((size_t)nq, sizeof *have);
	uint64_t *off = malloc(sizeof *off * (size_t)len);
	nw_result_t *m = malloc(sizeof *m * (size_t)per); /* one query's merge */
	nw_pair_t *mp = malloc(sizeof *mp * (size_t)per);
	int ret = 0;
	if (!got_p || !got_r || !cur || !cur_p || !have || !off || !m || !mp) {
		snprintf(err, errlen, "out of memory for --top over %lld ranges of references",
			 (long long)ranges);
		ret = NW_ERR_MEMORY;
	}
	for (int64_t r0 = 0; ret == 0 && r0 < n_ref; r0 += len) {
		const int64_t r1 = r0 + len < n_ref ? r0 + len : n_ref, w = r1 - r0;
		nw_batch_t view;
		nw_batch_view(rb, r0, r1, off, &view);
		int64_t got = 0;
		if ((ret = top_lanes(l, fn, p, qb, &view, q0, q1, top, got_p, got_r, &got, err,
				     errlen)) < 0)
			break;
		const int64_t k = top < w ? top : w; /* kept a query in this range */
		if (got != nq * k) {
			snprintf(err, errlen, "internal error: a range of --top kept %lld results of "
					      "%lld queries", (long long)got, (long long)nq);
			ret = NW_ERR_INTERNAL;
			break;
		}
		for (int64_t s = 0; s < nq; s++) { /* merge: the query's tops so far, then these */
			nw_result_t *a = cur + s * per;
			nw_pair_t *ap = cur_p + s * per;
			int64_t x = 0, y = 0, z = 0;
			const nw_result_t *b = got_r + s * k;
			const nw_pair_t *bp = got_p + s * k;
			while (z < per && (x < have[s] || y < k)) {
				const int take_a = y >= k || (x < have[s] &&
					nw_ranks_before(a[x].score, ap[x].r, b[y].score, bp[y].r + r0));
				if (take_a) {
					m[z] = a[x], mp[z++] = ap[x++];
				} else {
					m[z] = b[y], mp[z] = bp[y++];
					mp[z++].r += (uint32_t)r0;
				}
			}
			memcpy(a, m, sizeof *a * (size_t)z);
			memcpy(ap, mp, sizeof *ap * (size_t)z);
			have[s] = z;
		}
	}
	if (ret == 0) { /* every query keeps per: the one call's layout */
		for (int64_t t = 0; t < nq * per; t++) {
			nw_result_t *r = &kept_res[t]; /* the caller's: it may own a CIGAR buffer */
			kept_pairs[t] = cur_p[t];
			r->score = cur[t].score;
			r->qstart = cur[t].qstart, r->qend = cur[t].qend;
			r->rstart = cur[t].rstart, r->rend = cur[t].rend;
			r->strand = cur[t].strand;
		}
		*n_kept = nq * per;
	}
	free(got_p), free(got_r), free(cur), free(cur_p), free(have), free(off);
	free(m), free(mp);
	return ret;
}
