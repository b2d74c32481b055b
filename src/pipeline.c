/* pipeline.c: the run from input files to output records.
 *
 *   readers -> alphabet + scoring -> packed batches -> pair chunks -> engine -> writer
 *
 * All vs all: every reference is read and packed once and held in memory; queries stream
 * in batches of --batch-size records, and each batch is cut into chunks of whole queries
 * (plan.c) so that results stay bounded. Zip: queries and references are read in
 * lockstep, batch by batch. The next batch is read on a thread of its own (feeder.c) while
 * the current one aligns. Results are written in input order whatever the engine.
 *
 * A chunk goes through stages, so that no path is computed for a result that is not
 * written: scores and spans of every pair (both strands with --strand both; --top ranks
 * on scores and end cells alone, then finds the spans of the kept pairs), the choice of
 * strand and of the --top pairs, then the paths of the results kept (src/path.h decides
 * their kind), and last the reverse-strand coordinates mirrored onto the query as given.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu_align.h"
#include "feeder.h"
#include "gpu.h"
#include "nwalign.h"
#include "path.h"
#include "plan.h"
#include "write_stage.h"
#include "writer.h"

/* A chunk's pairs and results, and the pairs --top keeps with theirs; CIGAR buffers are
 * reused from chunk to chunk. With --top only the kept ones are written, so both buffers
 * share one pairs and res (bufs[0]'s): a chunk of all against all holds millions. */
typedef struct {
	nw_pair_t *pairs;
	nw_result_t *res;
	int64_t cap;                 /* of pairs and res when this buffer owns them */
	nw_pair_t *top_pairs;        /* --top: the kept pairs and their results */
	nw_result_t *top_res;
	int64_t top_cap;
	int64_t written_as;          /* the write stage's number for the chunk; -1: none */
} chunk_buf_t;

typedef struct {
	const nw_opt_t *opt;
	nw_alphabet_t alphabet;
	int alphabet_guessed;
	nw_scoring_t sc;
	nw_align_params_t params;    /* want_path set when the output needs a path */
	nw_gpu_t *gpu;               /* NULL: the CPU engine */
	int64_t chunk_pairs;         /* pairs a chunk may hold: the engine's choice */
	chunk_buf_t bufs[2];         /* a chunk aligns in one while the other is written */
	chunk_buf_t *cb;             /* the chunk being aligned: one of bufs */
	int64_t scratch_cap;         /* of rc_res, sub_pairs and sub_res */
	nw_result_t *rc_res;         /* --strand both: results of the reverse complements */
	nw_pair_t *sub_pairs;        /* --strand both: the pairs of one strand, and their */
	nw_result_t *sub_res;        /* results moved here for a stage (owning nothing) */
	int64_t n_paths[NW_PATH_KINDS]; /* paths written, by kind (NW_PATH_*) */
	nw_writer_t *writer;
	nw_wstage_t *wstage;         /* formats and writes beside the engine */
	double stage_s[5];           /* wall seconds by STAGE_*, for -v */
	double cells, t0, last_progress;
	int64_t n_pairs;
	int64_t n_records;           /* records handed to the write stage */
	int progress_shown;
} run_t;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Where a run's wall time goes, for -v: waiting for the reader, the score passes (both
 * strands, --top's selection, starts), the paths, waiting for the write stage. */
enum { STAGE_READ, STAGE_SCORES, STAGE_STARTS, STAGE_PATHS, STAGE_WRITE };

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
	int what;                   /* JOB_* */
	int failed;                 /* atomic: set by the first failing worker */
	int err_code;
} job_t;

static void *cpu_worker(void *arg)
{
	job_t *job = arg;
	const nw_align_params_t *p = job->params;
	nw_workspace_t *ws = nw_workspace_new();
	uint8_t *q = malloc((size_t)job->qb->max_len + 1), *r = malloc((size_t)job->rb->max_len + 1);
	int64_t last_q = -1;
	int ret = 0;
	if (!ws || !q || !r)
		ret = NW_ERR_MEMORY;
	while (ret == 0 && !__atomic_load_n(&job->failed, __ATOMIC_RELAXED)) {
		int64_t k0 = __atomic_fetch_add(&job->next, job->grain, __ATOMIC_RELAXED);
		if (k0 >= job->n)
			break;
		int64_t k1 = k0 + job->grain < job->n ? k0 + job->grain : job->n;
		for (int64_t k = k0; k < k1 && ret == 0; k++) {
			const nw_pair_t *pr = &job->pairs[k];
			int64_t qlen = job->qb->len[pr->q], rlen = job->rb->len[pr->r];
			if (pr->q != last_q) { /* all-vs-all pairs of one query are adjacent */
				nw_batch_unpack(job->qb, pr->q, q);
				last_q = pr->q;
			}
			nw_batch_unpack(job->rb, pr->r, r);
			nw_result_t *rs = &job->res[k];
			ret = job->what == JOB_ALIGN ? nw_cpu_align(p, q, qlen, r, rlen, ws, rs)
			    : job->what == JOB_PATHS ? nw_cpu_align_path(p, q, qlen, r, rlen, ws, rs)
						     : nw_path_finish(p, q, qlen, r, rlen, rs);
		}
	}
	if (ret < 0 && !__atomic_exchange_n(&job->failed, 1, __ATOMIC_RELAXED))
		job->err_code = ret;
	nw_workspace_free(ws);
	free(q);
	free(r);
	return NULL;
}

static int run_cpu(const run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		   const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		   int what, char *err, size_t errlen)
{
	int nt = run->opt->threads;
	if (nt > n)
		nt = n > 0 ? (int)n : 1;
	job_t job = {.run = run, .params = p, .qb = qb, .rb = rb, .pairs = pairs, .res = res, .n = n,
		     .what = what};
	job.grain = n / ((int64_t)nt * 16);
	job.grain = job.grain < 1 ? 1 : job.grain > 64 ? 64 : job.grain;
	pthread_t *tid = calloc((size_t)nt, sizeof *tid);
	int started = 0;
	if (!tid) {
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
	if (job.failed) {
		snprintf(err, errlen, job.err_code == NW_ERR_MEMORY
				      ? "out of memory while aligning"
				      : "internal error in the CPU engine (see the message above)");
		return job.err_code;
	}
	return 0;
}

/* ---------------------------------------------------------------- one chunk */

static void progress(run_t *run, int final)
{
	if (!isatty(STDERR_FILENO) || run->opt->verbose)
		return;
	double t = now();
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

/* A stage of a chunk: n pairs of queries qb (one strand) against references rb. */
typedef int (*stage_fn)(const run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
			const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
			char *err, size_t errlen);

/* Scores and spans (with p->ends_only, end cells only) of n pairs with the run's engine;
 * no path (p->want_path is 0). */
static int scores(const run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		  const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		  char *err, size_t errlen)
{
	int ret = run->gpu ? nw_gpu_align(run->gpu, p, qb, rb, pairs, n, res, err, errlen)
			   : run_cpu(run, p, qb, rb, pairs, res, n, JOB_ALIGN, err, errlen);
	for (int64_t k = 0; k < n; k++) {
		res[k].n_cigar = 0;
		res[k].path_kind = NW_PATH_NONE;
		res[k].opt_score = res[k].score;
	}
	return ret;
}

/* Paths of n pairs whose scores and spans res holds, checked by nw_path_finish: on the CPU,
 * or on the GPU with the checks on the CPU threads. */
static int paths(const run_t *run, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res, int64_t n,
		 char *err, size_t errlen)
{
	if (!run->gpu)
		return run_cpu(run, p, qb, rb, pairs, res, n, JOB_PATHS, err, errlen);
	int ret = nw_gpu_paths(run->gpu, p, qb, rb, pairs, n, res, err, errlen);
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

/* Scores and spans of n pairs (p: no path). With --strand both the reverse complements
 * are aligned too (into run->rc_res) and each result keeps the better strand, the query as
 * given on ties, with the coordinates of that strand's query (see to_query_frame). */
static int score_strands(run_t *run, const nw_align_params_t *p, const nw_batch_set_t *set,
			 const nw_batch_t *rb, const nw_pair_t *pairs, nw_result_t *res,
			 int64_t n, char *err, size_t errlen)
{
	int ret = scores(run, p, &set->q, rb, pairs, res, n, err, errlen);
	for (int64_t k = 0; k < n; k++)
		res[k].strand = 0;
	if (ret < 0 || !run->opt->both_strands)
		return ret;
	if ((ret = scores(run, p, &set->q_rc, rb, pairs, run->rc_res, n, err, errlen)) < 0)
		return ret;
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

/* Does result a (of reference ra) rank before result b? Higher score, then earlier
 * reference. */
static int ranks_before(const nw_result_t *a, uint32_t ra, const nw_result_t *b, uint32_t rb)
{
	return a->score > b->score || (a->score == b->score && ra < rb);
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
			if (have == top && !ranks_before(&res[j], j, &res[best[top - 1].r], best[top - 1].r))
				continue;
			int64_t k = have < top ? have++ : top - 1;
			while (k > 0 && ranks_before(&res[j], j, &res[best[k - 1].r], best[k - 1].r)) {
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

static int align_chunk(run_t *run, const nw_batch_set_t *set, const nw_batch_t *rb, int64_t n,
		       char *err, size_t errlen)
{
	const nw_batch_t *qb = &set->q;
	nw_pair_t *out_pairs = run->cb->pairs;
	nw_result_t *out_res = run->cb->res;
	nw_align_params_t sp = run->params; /* the score stages */
	int64_t n_out = n;
	int ret;
	double t = now(), t1;
	sp.want_path = 0;
	/* --top ranks and --strand both picks by score and end cell alone; the starts (a
	 * reverse pass each) are found only for the results kept */
	sp.ends_only = run->opt->top > 0 || run->opt->both_strands;
	if (run->opt->top > 0 && run->gpu && !run->opt->both_strands) {
		/* ranked on the device: only the kept results come back */
		if ((ret = nw_gpu_top(run->gpu, &sp, qb, rb, run->cb->pairs, n, rb->n, run->opt->top,
				      run->cb->top_pairs, run->cb->top_res, &n_out, err, errlen)) < 0)
			return ret;
		out_pairs = run->cb->top_pairs;
		out_res = run->cb->top_res;
	} else {
		if ((ret = score_strands(run, &sp, set, rb, run->cb->pairs, run->cb->res, n, err,
					 errlen)) < 0)
			return ret;
		if (run->opt->top > 0) {
			n_out = select_top(run, n, (uint32_t)rb->n);
			out_pairs = run->cb->top_pairs;
			out_res = run->cb->top_res;
		}
	}
	run->stage_s[STAGE_SCORES] += (t1 = now()) - t;
	t = t1;
	if (sp.ends_only) { /* the starts of the kept results, on their strands */
		sp.ends_only = 0;
		sp.starts_only = 1;
		if ((ret = on_strands(run, scores, &sp, set, rb, out_pairs, out_res, n_out, err,
				      errlen)) < 0)
			return ret;
	}
	run->stage_s[STAGE_STARTS] += (t1 = now()) - t;
	t = t1;
	if (run->params.want_path) {
		if ((ret = on_strands(run, paths, &run->params, set, rb, out_pairs, out_res, n_out,
				      err, errlen)) < 0)
			return ret;
		for (int64_t k = 0; k < n_out; k++)
			run->n_paths[out_res[k].path_kind]++;
	}
	to_query_frame(qb, out_pairs, out_res, n_out);
	run->stage_s[STAGE_PATHS] += (t1 = now()) - t;
	t = t1;
	run->n_pairs += n;
	run->cells += nw_plan_cells(qb, rb, run->cb->pairs, n);
	int64_t id = nw_wstage_submit(run->wstage, qb, rb, out_pairs, out_res, n_out, err, errlen);
	if (id < 0)
		return (int)id;
	run->cb->written_as = id;
	run->n_records += n_out;
	run->stage_s[STAGE_WRITE] += now() - t;
	progress(run, 0);
	return 0;
}

/* ---------------------------------------------------------------- set-up */

static void choose_alphabet(run_t *run, nw_reader_t *qr, nw_reader_t *rr)
{
	const nw_opt_t *opt = run->opt;
	if (opt->alphabet != NW_ALPHA_AUTO) {
		run->alphabet = opt->alphabet;
	} else if (opt->matrix && nw_matrix_builtin_alphabet(opt->matrix) != NW_ALPHA_AUTO) {
		run->alphabet = nw_matrix_builtin_alphabet(opt->matrix);
	} else {
		uint64_t counts[256] = {0}, qc[256] = {0}, rc[256] = {0};
		nw_reader_count_chars(qr, qc);
		nw_reader_count_chars(rr, rc);
		for (int c = 0; c < 256; c++)
			counts[c] = qc[c] + rc[c];
		run->alphabet = nw_alphabet_guess(counts);
		run->alphabet_guessed = 1;
		/* DNA reads against a protein file (or the reverse) is most often a wrong file:
		 * say so, since the DNA is then aligned as protein */
		const nw_alphabet_t qa = nw_alphabet_guess(qc), ra = nw_alphabet_guess(rc);
		uint64_t nq = 0, nr = 0;
		for (int c = 0; c < 256; c++)
			nq += qc[c], nr += rc[c];
		if (qa != ra && nq > 0 && nr > 0)
			nw_log_warn("'%s' looks like %s and '%s' like %s: aligning both as %s "
				    "(--alphabet chooses)", nw_reader_path(qr), nw_alphabet_name(qa),
				    nw_reader_path(rr), nw_alphabet_name(ra),
				    nw_alphabet_name(run->alphabet));
	}
}

static int setup_scoring(run_t *run, char *err, size_t errlen)
{
	const nw_opt_t *opt = run->opt;
	int dna = run->alphabet == NW_ALPHA_DNA;
	int go = opt->gap_open >= 0 ? opt->gap_open : dna ? 4 : 11;
	int ge = opt->gap_extend >= 0 ? opt->gap_extend : dna ? 2 : 1;
	if (!dna && opt->both_strands) {
		snprintf(err, errlen, "--strand both needs DNA, but the input looks like protein");
		return NW_ERR_USAGE;
	}
	if (!dna && (opt->match >= 0 || opt->mismatch >= 0)) {
		snprintf(err, errlen, "--match/--mismatch score DNA, but the input looks like protein "
				      "(use --matrix, or -a dna)");
		return NW_ERR_USAGE;
	}
	if (opt->matrix)
		return nw_scoring_matrix(&run->sc, opt->matrix, run->alphabet, go, ge, err, errlen);
	if (dna)
		return nw_scoring_dna(&run->sc, opt->match >= 0 ? opt->match : 2,
				      opt->mismatch >= 0 ? opt->mismatch : 4, go, ge, err, errlen);
	return nw_scoring_matrix(&run->sc, "blosum62", NW_ALPHA_PROTEIN, go, ge, err, errlen);
}

/* The GPU is opened on a thread of its own while the inputs are read: starting the CUDA
 * driver and a context takes a few tenths of a second, as long as reading a batch. */
typedef struct {
	const nw_opt_t *opt;
	pthread_t tid;
	int started;
	int ret;             /* 0: run->gpu set or the CPU engine chosen; < 0: err says why */
	double open_s;       /* seconds the opening took (on its thread) */
	double waited_s;     /* seconds the run waited for it */
	nw_gpu_t *gpu;
	char err[256];
} gpu_opener_t;

static void open_gpu_timed(gpu_opener_t *o);

static void *open_gpu(void *arg)
{
	gpu_opener_t *o = arg;
	double t = now();
	open_gpu_timed(o);
	o->open_s = now() - t;
	return NULL;
}

static void open_gpu_timed(gpu_opener_t *o)
{
	const nw_opt_t *opt = o->opt;
	o->ret = 0;
	if (!nw_gpu_built()) { /* --backend gpu without CUDA: the stub says so */
		if (!(o->gpu = nw_gpu_open(opt->device, o->err, sizeof o->err)))
			o->ret = NW_ERR_GPU;
		return;
	}
	int count = nw_gpu_device_count();
	if (opt->backend == NW_BACKEND_AUTO && count <= opt->device)
		return;
	if (opt->backend == NW_BACKEND_GPU && count == 0) {
		snprintf(o->err, sizeof o->err, "--backend gpu: no CUDA device found");
		o->ret = NW_ERR_GPU;
		return;
	}
	if (!(o->gpu = nw_gpu_open(opt->device, o->err, sizeof o->err)))
		o->ret = NW_ERR_GPU;
	return;
}

static void gpu_opener_start(gpu_opener_t *o, const nw_opt_t *opt)
{
	memset(o, 0, sizeof *o);
	o->opt = opt;
	if (opt->backend == NW_BACKEND_CPU || (opt->backend == NW_BACKEND_AUTO && !nw_gpu_built()))
		return;
	if (nw_gpu_built() && pthread_create(&o->tid, NULL, open_gpu, o) == 0)
		o->started = 1;
	else
		open_gpu(o); /* no CUDA (nothing to wait for), or no thread: here */
}

/* The engine: the GPU the opener found, or the CPU. */
static int setup_backend(run_t *run, gpu_opener_t *o, char *err, size_t errlen)
{
	if (o->started) {
		double t = now();
		pthread_join(o->tid, NULL);
		o->waited_s = now() - t;
		o->started = 0;
	}
	if (o->ret < 0) {
		snprintf(err, errlen, "%s", o->err);
		return o->ret;
	}
	run->gpu = o->gpu;
	o->gpu = NULL;
	if (run->gpu && nw_gpu_chunk_pairs(run->gpu) > run->chunk_pairs)
		run->chunk_pairs = nw_gpu_chunk_pairs(run->gpu);
	return 0;
}

/* An opener not joined (an error came first): wait for it and close what it opened. */
static void gpu_opener_finish(gpu_opener_t *o)
{
	if (o->started)
		pthread_join(o->tid, NULL);
	o->started = 0;
	if (o->gpu)
		nw_gpu_close(o->gpu);
	o->gpu = NULL;
}

/* Names and lengths of every reference, for the SAM header. In zip mode this reads the
 * reference file once more before the run (so it cannot be stdin). */
static int collect_refs(run_t *run, const nw_batch_t *all_refs, nw_ref_list_t *list,
			nw_batch_t *keep, char *err, size_t errlen)
{
	const nw_opt_t *opt = run->opt;
	memset(list, 0, sizeof *list);
	if (opt->format != NW_FMT_SAM)
		return 0;
	const nw_batch_t *src = all_refs;
	if (!src) {
		if (strcmp(opt->ref_path, "-") == 0) {
			snprintf(err, errlen, "SAM output with --pairs zip reads the reference file twice, so it cannot be stdin");
			return NW_ERR_USAGE;
		}
		nw_reader_t *r = nw_reader_open(opt->ref_path, err, errlen);
		if (!r)
			return NW_ERR_IO;
		nw_batch_init(keep, run->alphabet);
		/* One fill without limits takes every record. */
		int64_t got = nw_reader_fill(r, INT64_MAX, UINT64_MAX, err, errlen);
		if (got >= 0)
			got = nw_reader_encode(r, run->alphabet, keep, err, errlen);
		nw_reader_close(r);
		if (got < 0)
			return (int)got;
		src = keep;
	}
	list->n = src->n;
	list->name = malloc(sizeof(char *) * (size_t)(src->n + 1));
	list->len = src->len;
	if (!list->name) {
		snprintf(err, errlen, "out of memory");
		return NW_ERR_MEMORY;
	}
	for (int64_t i = 0; i < src->n; i++)
		list->name[i] = (char *)nw_batch_name(src, i);
	return 0;
}

/* Grow *res from old to n results, the new ones zeroed (no CIGAR buffer yet). */
static int grow_results(nw_result_t **res, int64_t old, int64_t n)
{
	nw_result_t *r = realloc(*res, (size_t)n * sizeof *r);
	if (!r)
		return NW_ERR_MEMORY;
	memset(r + old, 0, (size_t)(n - old) * sizeof *r);
	*res = r;
	return 0;
}

static int grow_pairs(nw_pair_t **pairs, int64_t n)
{
	nw_pair_t *p = realloc(*pairs, (size_t)n * sizeof *p);
	if (!p)
		return NW_ERR_MEMORY;
	*pairs = p;
	return 0;
}

/* The other chunk buffer for the next chunk, of room for n pairs (n_top kept by --top) in
 * every per-chunk array the run uses, once the write stage is done with what it held. */
static int next_chunk(run_t *run, int64_t n, int64_t n_top, char *err, size_t errlen)
{
	chunk_buf_t *c = run->cb = run->cb == &run->bufs[0] ? &run->bufs[1] : &run->bufs[0];
	double t = now();
	int ret = nw_wstage_wait(run->wstage, c->written_as, err, errlen);
	run->stage_s[STAGE_WRITE] += now() - t;
	if (ret < 0)
		return ret;
	c->written_as = -1;
	chunk_buf_t *own = run->opt->top > 0 ? &run->bufs[0] : c; /* of pairs and res */
	const int64_t old = own->cap, old_top = c->top_cap, old_scratch = run->scratch_cap;
	if (n > old && (grow_pairs(&own->pairs, n) < 0 || grow_results(&own->res, old, n) < 0))
		goto oom;
	if (n > old)
		own->cap = n;
	c->pairs = own->pairs;
	c->res = own->res;
	if (run->opt->top > 0 && n_top > old_top) {
		if (grow_pairs(&c->top_pairs, n_top) < 0 ||
		    grow_results(&c->top_res, old_top, n_top) < 0)
			goto oom;
		c->top_cap = n_top;
	}
	if (n > old_scratch && run->opt->both_strands &&
	    (grow_results(&run->rc_res, old_scratch, n) < 0 ||
	     grow_results(&run->sub_res, old_scratch, n) < 0 || grow_pairs(&run->sub_pairs, n) < 0))
		goto oom;
	if (n > old_scratch)
		run->scratch_cap = n;
	return 0;
oom:
	snprintf(err, errlen, "out of memory for %lld pairs", (long long)n);
	return NW_ERR_MEMORY;
}

/* Wait until the write stage is done with every chunk but the last one. */
static int wait_writes_but_last(run_t *run, char *err, size_t errlen)
{
	const chunk_buf_t *other = run->cb == &run->bufs[0] ? &run->bufs[1] : &run->bufs[0];
	double t = now();
	int ret = nw_wstage_wait(run->wstage, other->written_as, err, errlen);
	run->stage_s[STAGE_WRITE] += now() - t;
	return ret;
}

/* ---------------------------------------------------------------- the two pairings */

/* Every batch set from the feeder, cut into chunks: whole queries against every
 * reference (all_refs) for all vs all, record i with record i for zip. */
static int run_batches(run_t *run, nw_feeder_t *fd, const nw_batch_t *all_refs, int64_t nq,
		       char *err, size_t errlen)
{
	int ret = 0;
	double t = now();
	nw_batch_set_t *s = nw_feeder_first(fd, nq, err, errlen);
	for (; s && s->q.n > 0; t = now(), s = nw_feeder_next(fd, err, errlen)) {
		run->stage_s[STAGE_READ] += now() - t;
		const nw_batch_t *rb = all_refs ? all_refs : &s->r;
		uint32_t n_q = (uint32_t)s->q.n;
		for (uint32_t q0 = 0; q0 < n_q;) {
			uint32_t span = nw_plan_all_span(q0, n_q, all_refs ? (uint32_t)rb->n : 0,
							 run->chunk_pairs);
			int64_t n = all_refs ? (int64_t)span * rb->n : span;
			/* --top keeps at most top references of each query (all vs all only) */
			const int64_t per_q = all_refs && run->opt->top > 0 && run->opt->top < rb->n
						      ? run->opt->top : (all_refs ? rb->n : 1);
			if ((ret = next_chunk(run, n, (int64_t)span * per_q, err, errlen)) < 0)
				return ret;
			if (all_refs)
				nw_plan_all(q0, q0 + span, (uint32_t)rb->n, run->cb->pairs);
			else
				nw_plan_zip(q0, q0 + span, run->cb->pairs);
			if ((ret = align_chunk(run, s, rb, n, err, errlen)) < 0)
				return ret;
			q0 += span;
		}
		/* the next read refills the set before this one: its chunks must be written */
		if ((ret = wait_writes_but_last(run, err, errlen)) < 0)
			return ret;
	}
	return s ? 0 : fd->ret; /* NULL: the feeder failed, its message is in err */
}

/* ---------------------------------------------------------------- entry point */

int nw_run(const nw_opt_t *opt, char *err, size_t errlen)
{
	run_t run = {.opt = opt, .chunk_pairs = NW_CHUNK_PAIRS};
	nw_reader_t *qr = NULL, *rr = NULL;
	nw_batch_t rb, sam_refs;
	nw_feeder_t feeder;
	int feeder_ready = 0;
	nw_ref_list_t refs = {0};
	gpu_opener_t opener;
	int ret, zip = opt->pairing == NW_PAIRS_ZIP;
	int64_t nq = 0, nr = 0;

	nw_batch_init(&rb, NW_ALPHA_AUTO);
	nw_batch_init(&sam_refs, NW_ALPHA_AUTO);
	run.cb = &run.bufs[0];
	run.bufs[0].written_as = run.bufs[1].written_as = -1;
	run.t0 = now();
	gpu_opener_start(&opener, opt);
	ret = NW_ERR_IO;
	if (!(rr = nw_reader_open(opt->ref_path, err, errlen)) ||
	    !(qr = nw_reader_open(opt->query_path, err, errlen)))
		goto out;
	/* References first: all of them for all-vs-all, the first batch for zip. */
	if ((nq = nw_reader_fill(qr, opt->batch_records, opt->batch_residues, err, errlen)) < 0 ||
	    (nr = nw_reader_fill(rr, zip ? nq : INT64_MAX, UINT64_MAX, err, errlen)) < 0) {
		ret = (int)(nq < 0 ? nq : nr);
		goto out;
	}
	choose_alphabet(&run, qr, rr);
	if ((ret = setup_scoring(&run, err, errlen)) < 0 ||
	    (ret = setup_backend(&run, &opener, err, errlen)) < 0)
		goto out;
	run.params.mode = opt->mode;
	run.params.sc = &run.sc;
	run.params.want_path = opt->cigar || opt->format != NW_FMT_TSV;
	nw_opt_gact(opt, &run.params.tile, &run.params.overlap);
	run.params.gact = opt->gact;
	run.params.max_deficit = opt->max_deficit >= 0 ? opt->max_deficit : NW_GACT_MAX_DEFICIT;
	if (!zip && (ret = nw_reader_encode(rr, run.alphabet, &rb, err, errlen)) < 0)
		goto out;
	nw_log_info("alphabet %s%s; scoring %s, gap open %d extend %d; mode %s; backend %s",
		    nw_alphabet_name(run.alphabet), run.alphabet_guessed ? " (detected)" : "",
		    run.sc.name, run.sc.gap_open, run.sc.gap_extend,
		    opt->mode == NW_MODE_GLOBAL ? "global" : opt->mode == NW_MODE_LOCAL ? "local" : "semiglobal",
		    run.gpu ? nw_gpu_describe(run.gpu) : "cpu");
	if ((ret = collect_refs(&run, zip ? NULL : &rb, &refs, &sam_refs, err, errlen)) < 0)
		goto out;
	if (!(run.writer = nw_writer_open(opt, &refs, err, errlen))) {
		ret = NW_ERR_IO;
		goto out;
	}
	if (!(run.wstage = nw_wstage_start(run.writer))) {
		snprintf(err, errlen, "out of memory starting the output");
		ret = NW_ERR_MEMORY;
		goto out;
	}
	nw_feeder_init(&feeder, qr, zip ? rr : NULL, run.alphabet, opt->both_strands,
		       opt->batch_records, opt->batch_residues);
	feeder_ready = 1;
	ret = run_batches(&run, &feeder, zip ? NULL : &rb, nq, err, errlen);
	double t_end = now(), written_s = 0;
	int64_t written = 0;
	{ /* the write stage stops here whatever happened: it may still hold chunks */
		char ignored[16];
		int wret = nw_wstage_finish(run.wstage, &written_s, &written,
					    ret == 0 ? err : ignored, ret == 0 ? errlen : sizeof ignored);
		run.wstage = NULL;
		if (ret == 0)
			ret = wret;
	}
	if (ret == 0 && written != run.n_records) { /* every record accounted for */
		snprintf(err, errlen, "internal error: %lld records written of %lld",
			 (long long)written, (long long)run.n_records);
		ret = NW_ERR_INTERNAL;
	}
	if (ret == 0) {
		ret = nw_writer_close(run.writer, err, errlen);
		run.writer = NULL;
	}
	run.stage_s[STAGE_WRITE] += now() - t_end;
	progress(&run, 1);
	if (ret == 0) {
		double sec = now() - run.t0;
		nw_log_info("%lld pairs, %lld records written, %.4g cells, %.3f s, %.3f GCUPS, "
			    "backend %s, %d thread%s", (long long)run.n_pairs, (long long)written,
			    run.cells, sec,
			    sec > 0 ? run.cells / sec * 1e-9 : 0.0, run.gpu ? "gpu" : "cpu",
			    opt->threads, opt->threads == 1 ? "" : "s");
		if (run.params.want_path && !run.params.gact)
			nw_log_info("paths: %lld full, %lld exact", (long long)run.n_paths[NW_PATH_FULL],
				    (long long)run.n_paths[NW_PATH_EXACT]);
		else if (run.params.want_path)
			nw_log_info("paths: %lld full, %lld gact (T=%d O=%d), %lld recomputed exactly "
				    "(over %g below the optimum)", (long long)run.n_paths[NW_PATH_FULL],
				    (long long)run.n_paths[NW_PATH_GACT], run.params.tile,
				    run.params.overlap, (long long)run.n_paths[NW_PATH_REDONE],
				    run.params.max_deficit);
		nw_log_info("wall s: waiting for input %.3f, scores %.3f, starts %.3f, paths %.3f, "
			    "waiting for output %.3f; writing %.3f beside them",
			    run.stage_s[STAGE_READ], run.stage_s[STAGE_SCORES],
			    run.stage_s[STAGE_STARTS], run.stage_s[STAGE_PATHS],
			    run.stage_s[STAGE_WRITE], written_s);
		if (run.gpu) {
			const double tk = nw_gpu_first_kernel_time(run.gpu);
			nw_log_info("gpu opened in %.3f s beside the reading (waited for %.3f s), first "
				    "kernel at %.3f s", opener.open_s, opener.waited_s,
				    tk > 0 ? tk - run.t0 : 0.0);
			double k = nw_gpu_kernel_seconds(run.gpu);
			nw_log_info("gpu kernels %.4f s (%.1f GCUPS), %s", k,
				    k > 0 ? run.cells / k * 1e-9 : 0.0, nw_gpu_describe(run.gpu));
		}
	}
out:
	if (run.wstage) {
		char ignored[16];
		nw_wstage_finish(run.wstage, NULL, NULL, ignored, sizeof ignored);
	}
	if (run.writer) {
		char ignored[16];
		nw_writer_close(run.writer, ignored, sizeof ignored);
	}
	for (int b = 0; b < 2; b++) {
		chunk_buf_t *c = &run.bufs[b];
		for (int64_t k = 0; k < c->top_cap; k++)
			nw_result_free(&c->top_res[k]);
		free(c->top_res);
		free(c->top_pairs);
		if (c->cap == 0) /* none, or bufs[0]'s (--top) */
			continue;
		for (int64_t k = 0; k < c->cap; k++)
			nw_result_free(&c->res[k]);
		free(c->res);
		free(c->pairs);
	}
	for (int64_t k = 0; run.rc_res && k < run.scratch_cap; k++)
		nw_result_free(&run.rc_res[k]);
	free(run.rc_res);
	free(run.sub_res); /* copies only: the CIGARs are owned by res, top_res and rc_res */
	free(run.sub_pairs);
	if (feeder_ready)
		nw_feeder_free(&feeder);
	free(refs.name);
	nw_batch_free(&rb);
	nw_batch_free(&sam_refs);
	nw_reader_close(qr);
	nw_reader_close(rr);
	gpu_opener_finish(&opener);
	if (run.gpu)
		nw_gpu_close(run.gpu);
	return ret;
}
