/* setup.c: what a run decides before its first chunk (see pipeline.h): the alphabet, the
 * scoring, the engine (the GPU is opened on a thread of its own while the inputs are
 * read), and the reference list SAM's header needs.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline.h"

int nw_choose_alphabet(run_t *run, nw_reader_t *qr, nw_reader_t *rr, nw_alphabet_t db,
		       char *err, size_t errlen)
{
	const nw_opt_t *opt = run->opt;
	if (db != NW_ALPHA_AUTO) { /* a database says what it holds */
		nw_alphabet_t want = opt->alphabet != NW_ALPHA_AUTO ? opt->alphabet
				     : opt->matrix ? nw_matrix_builtin_alphabet(opt->matrix) : NW_ALPHA_AUTO;
		if (want != NW_ALPHA_AUTO && want != db) {
			snprintf(err, errlen, "the database '%s' holds %s sequences, but %s asks for %s",
				 opt->ref_path, nw_alphabet_name(db),
				 opt->alphabet != NW_ALPHA_AUTO ? "--alphabet" : "--matrix",
				 nw_alphabet_name(want));
			return NW_ERR_USAGE;
		}
		run->alphabet = db;
		uint64_t qc[256] = {0}, nq = 0;
		nw_reader_count_chars(qr, qc);
		for (int c = 0; c < 256; c++)
			nq += qc[c];
		if (opt->alphabet == NW_ALPHA_AUTO && nq > 0 && nw_alphabet_guess(qc) != db)
			nw_log_warn("'%s' looks like %s and the database '%s' holds %s: aligning both as "
				    "%s", nw_reader_path(qr), nw_alphabet_name(nw_alphabet_guess(qc)),
				    opt->ref_path, nw_alphabet_name(db), nw_alphabet_name(db));
		return 0;
	}
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
	return 0;
}

int nw_setup_scoring(run_t *run, char *err, size_t errlen)
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

/* Opens the device the options ask for, or leaves o->gpu NULL (auto without a device). */
static void open_device(gpu_opener_t *o)
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
	if (!(o->gpu = nw_gpu_open(opt->device, o->err, sizeof o->err))) {
		/* auto: a device that cannot be opened (its memory held by another process, a
		 * driver fault) leaves the run to the CPU engine; nw_setup_backend warns */
		if (opt->backend == NW_BACKEND_AUTO)
			o->open_failed = 1;
		else
			o->ret = NW_ERR_GPU;
	}
}

/* The opener's thread works on a copy of the opener of its own (job->o), which the run
 * takes back when it joins the thread, or leaves to the thread (nw_setup_backend: a small
 * run on the CPU engine), which then closes what it opened and frees the job. */
enum { OPEN_RUNNING, OPEN_DONE, OPEN_LEFT };
struct gpu_open_job_s {
	gpu_opener_t o;
	int state; /* OPEN_*, atomic */
};

/* Set once a run left the GPU opening: the process should end with _exit (nwalign.h). */
static int gpu_left_opening;

int nw_gpu_left_opening(void)
{
	return __atomic_load_n(&gpu_left_opening, __ATOMIC_ACQUIRE);
}

/* The opener's thread: open_device, timed for -v. NW_GPU_OPEN_DELAY=S (a test hook) makes
 * the opening S seconds longer. */
static void *open_gpu(void *arg)
{
	gpu_open_job_t *job = arg;
	double t = nw_pl_now();
	const char *delay = getenv("NW_GPU_OPEN_DELAY");
	if (delay && atof(delay) > 0)
		usleep((useconds_t)(atof(delay) * 1e6));
	open_device(&job->o);
	job->o.open_s = nw_pl_now() - t;
	if (__atomic_exchange_n(&job->state, OPEN_DONE, __ATOMIC_ACQ_REL) == OPEN_LEFT) {
		if (job->o.gpu)
			nw_gpu_close(job->o.gpu);
		free(job);
	}
	return NULL;
}

/* The CPU engine's seconds for cells in pairs on the run's threads, estimated at the
 * rates of its slower passes (long pairs in 32-bit lanes, paths), so that it errs long.
 * With paths, the largest pair's (longest cells) path on one thread bounds it from below:
 * a long path splits over threads only so far (a team took an unrelated 40 kb pair's
 * from 0.96 to 0.54 s on 16 threads), so that bound errs long too. */
static double cpu_seconds(const nw_opt_t *opt, double cells, double pairs, double longest)
{
	const int want_path = nw_opt_wants_path(opt);
	if (opt->both_strands)
		cells *= 2, pairs *= 2;
	const double s = (cells / (want_path ? NW_CPU_PATH_CELLS_PER_S : NW_CPU_CELLS_PER_S) +
			  pairs * NW_CPU_PAIR_S) / (opt->threads > 0 ? opt->threads : 1);
	const double path = want_path ? longest / NW_CPU_PATH_CELLS_PER_S : 0;
	return s > path ? s : path;
}

/* A run the CPU engine finishes in fewer seconds than this goes to it with --backend
 * auto, rather than wait for the GPU to open (0.1-0.3 s): NW_SMALL_RUN_S, or
 * NWALIGN_AUTO_CPU_S (0: never). */
#define NW_SMALL_RUN_S 0.1
static double small_run_limit(void)
{
	const char *env = getenv("NWALIGN_AUTO_CPU_S");
	if (env && *env) {
		char *end;
		double v = strtod(env, &end);
		if (*end == '\0' && v >= 0)
			return v;
	}
	return NW_SMALL_RUN_S;
}

/* Bytes of a plain FASTA or FASTQ file (its first byte '>' or '@'), which bound its
 * residues; -1 for anything else (stdin, compressed, a database, unreadable). */
static double plain_size(const char *path)
{
	struct stat st;
	unsigned char c = 0;
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return -1;
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	const size_t got = fread(&c, 1, 1, f);
	fclose(f);
	return got == 1 && (c == '>' || c == '@') ? (double)st.st_size : -1;
}

/* Before anything is read: plain files whose sizes alone bound the work (all the
 * residues of one file against all of the other's) under the small-run limit. */
static int small_by_size(const nw_opt_t *opt, double *est)
{
	const double sq = plain_size(opt->query_path), sr = plain_size(opt->ref_path);
	if (sq < 0 || sr < 0)
		return 0;
	*est = cpu_seconds(opt, sq * sr, 0, sq * sr);
	return *est < small_run_limit();
}

void nw_gpu_opener_start(gpu_opener_t *o, const nw_opt_t *opt)
{
	memset(o, 0, sizeof *o);
	o->opt = opt;
	if (opt->backend == NW_BACKEND_CPU || (opt->backend == NW_BACKEND_AUTO && !nw_gpu_built()))
		return;
	if (opt->backend == NW_BACKEND_AUTO && small_by_size(opt, &o->small_est_s)) {
		o->small = 1; /* the GPU is not even opened */
		return;
	}
	gpu_open_job_t *job = nw_gpu_built() ? calloc(1, sizeof *job) : NULL;
	if (job) {
		job->o = *o;
		job->state = OPEN_RUNNING;
		if (pthread_create(&o->tid, NULL, open_gpu, job) == 0) {
			o->job = job;
			o->started = 1;
			return;
		}
		free(job);
	}
	open_device(o); /* no CUDA (nothing to wait for), or no thread: here */
}

/* The outcome of a joined opener's thread, into o. */
static void take_job(gpu_opener_t *o)
{
	gpu_open_job_t *job = o->job;
	const double waited = o->waited_s;
	const pthread_t tid = o->tid;
	*o = job->o;
	o->waited_s = waited;
	o->tid = tid;
	o->started = 0;
	o->job = NULL;
	free(job);
}

/* The opener's thread joined, its outcome into o, the seconds the run waited for it in
 * o->waited_s. */
static void join_opener(gpu_opener_t *o)
{
	const double t = nw_pl_now();
	pthread_join(o->tid, NULL);
	o->waited_s = nw_pl_now() - t;
	take_job(o);
}

/* The opener left to its thread, which closes what it opens and frees the job: 1, or 0
 * when the thread had already finished (then it is still the run's to join). */
static int leave_opener(gpu_opener_t *o)
{
	if (__atomic_exchange_n(&o->job->state, OPEN_LEFT, __ATOMIC_ACQ_REL) != OPEN_RUNNING)
		return 0;
	pthread_detach(o->tid);
	o->started = 0;
	o->job = NULL;
	__atomic_store_n(&gpu_left_opening, 1, __ATOMIC_RELEASE);
	return 1;
}

/* After the first set is read: the whole input (whole), the GPU still opening, and its
 * work under the small-run limit. */
static int small_for_cpu(run_t *run, const gpu_opener_t *o, const nw_batch_set_t *set,
			 const nw_batch_t *rb, int whole)
{
	if (!whole || !o->started || run->opt->backend != NW_BACKEND_AUTO ||
	    __atomic_load_n(&o->job->state, __ATOMIC_ACQUIRE) != OPEN_RUNNING)
		return 0;
	double cells = 0, pairs, longest = 0;
	if (rb) { /* all against all */
		double sq = 0, sr = 0, mq = 0, mr = 0;
		for (int64_t i = 0; i < set->q.n; i++) {
			sq += set->q.len[i];
			mq = set->q.len[i] > mq ? set->q.len[i] : mq;
		}
		for (int64_t i = 0; i < rb->n; i++) {
			sr += rb->len[i];
			mr = rb->len[i] > mr ? rb->len[i] : mr;
		}
		cells = sq * sr;
		pairs = (double)set->q.n * (double)rb->n;
		longest = mq * mr;
	} else {
		for (int64_t i = 0; i < set->q.n && i < set->r.n; i++) {
			const double c = (double)set->q.len[i] * set->r.len[i];
			cells += c;
			longest = c > longest ? c : longest;
		}
		pairs = (double)set->q.n;
	}
	run->small_est_s = cpu_seconds(run->opt, cells, pairs, longest);
	return run->small_est_s < small_run_limit();
}

/* The GPU a joined opener found (o), or none, as the run's engine. */
static int take_gpu(run_t *run, gpu_opener_t *o, char *err, size_t errlen)
{
	if (o->ret < 0) {
		snprintf(err, errlen, "%s", o->err);
		return o->ret;
	}
	if (o->open_failed) {
		nw_log_warn("the GPU could not be opened (%s): the CPU engine aligns the run", o->err);
		run->gpu_failed = 1;
	}
	run->gpu = o->gpu;
	o->gpu = NULL;
	if (run->gpu && run->opt->gpu_memory)
		nw_gpu_set_memory_limit(run->gpu, run->opt->gpu_memory);
	const int64_t gpu_chunk = run->gpu ? nw_gpu_chunk_pairs(run->gpu, 0) : 0;
	if (gpu_chunk > run->chunk_pairs)
		run->chunk_pairs = gpu_chunk;
	nw_lanes_init(&run->lanes, run->gpu, run->opt);
	/* zip's sets grow to batch_records pairs (nw_feeder_t's ramp), cut over the lanes: the
	 * engines size their buffers for that from the first set they take */
	if (run->gpu && run->opt->pairing == NW_PAIRS_ZIP && run->lanes.n > 0)
		nw_gpu_expect(run->gpu, run->opt->batch_records / run->lanes.n);
	return 0;
}

/* --top on the GPU's lanes: the queries a lane takes from a chunk (NW_TOP_LANE_QUERIES, a
 * benchmark hook, sets it). The lanes of a chunk run side by side and the next chunk
 * starts when the last one ends, so each chunk's end leaves the device part idle, as long
 * as its last kernels' tails and the next calls' planning; larger chunks pay that less
 * often. */
#define NW_TOP_LANE_QUERIES 4

static int64_t top_lane_queries(void)
{
	const char *e = getenv("NW_TOP_LANE_QUERIES");
	const long long v = e && *e ? atoll(e) : 0;
	return v >= 1 && v <= 1024 ? v : NW_TOP_LANE_QUERIES;
}

/* See pipeline.h. */
int64_t nw_chunk_pairs(const run_t *run, int64_t n_ref)
{
	/* --top on the GPU's lanes: each lane takes whole queries (their tops are its own) and
	 * plans their pairs on its own thread beside the other lanes' kernels; a chunk of
	 * fewer queries than lanes leaves lanes idle and the device waiting on the planning
	 * (nw_gpu_chunk_pairs lowers it where the device's memory is short) */
	if (run->gpu && run->opt->top > 0 && n_ref > 0 && run->lanes.n > 1)
		return nw_gpu_chunk_pairs(run->gpu, (int64_t)run->lanes.n * top_lane_queries() * n_ref);
	return run->chunk_pairs;
}

/* See pipeline.h. */
int nw_may_share_while_opening(const nw_opt_t *opt)
{
	return opt->backend == NW_BACKEND_AUTO && nw_gpu_built() && small_run_limit() > 0 &&
	       opt->top == 0 && !opt->both_strands;
}

/* Whether the CPU engine takes the first pairs while the GPU opens: --backend auto, the
 * small-run limit not 0 (NWALIGN_AUTO_CPU_S=0 keeps every pair for the GPU), the opener
 * still running, and a run whose stages all split by pairs (not --top, whose ranking runs
 * on the device a chunk at a time, nor --strand both). */
static int share_while_opening(const run_t *run, const gpu_opener_t *o)
{
	return nw_may_share_while_opening(run->opt) &&
	       __atomic_load_n(&o->job->state, __ATOMIC_ACQUIRE) == OPEN_RUNNING;
}

/* The engine: the GPU the opener found, or the CPU. */
int nw_setup_backend(run_t *run, gpu_opener_t *o, const nw_batch_set_t *set,
		     const nw_batch_t *rb, int whole, char *err, size_t errlen)
{
	run->cpu_threads = run->opt->threads;
	if (o->small) {
		run->small_on_cpu = 1;
		run->small_est_s = o->small_est_s;
		nw_lanes_init(&run->lanes, NULL, run->opt);
		return 0;
	}
	if (o->started && small_for_cpu(run, o, set, rb, whole) && leave_opener(o)) {
		/* the thread keeps a core busy for a while, which the CPU engine's threads
		 * leave to it */
		run->small_on_cpu = 1;
		if (run->cpu_threads >= 4)
			run->cpu_threads--;
		nw_lanes_init(&run->lanes, NULL, run->opt);
		return 0;
	}
	if (o->started && share_while_opening(run, o)) {
		/* the CPU engine aligns the first pairs in slices, the GPU taken after any slice
		 * once it is open (align_stage.c); a core is left to the opener's thread */
		run->opening = o;
		if (run->cpu_threads >= 4)
			run->cpu_threads--;
		nw_lanes_init(&run->lanes, NULL, run->opt);
		return 0;
	}
	if (o->started)
		join_opener(o);
	return take_gpu(run, o, err, errlen);
}

int nw_adopt_gpu(run_t *run, int wait, char *err, size_t errlen)
{
	gpu_opener_t *o = run->opening;
	if (!o || (!wait && __atomic_load_n(&o->job->state, __ATOMIC_ACQUIRE) == OPEN_RUNNING))
		return 0;
	join_opener(o);
	run->opening = NULL;
	run->cpu_threads = run->opt->threads;
	return take_gpu(run, o, err, errlen);
}

void nw_leave_gpu_opening(run_t *run)
{
	gpu_opener_t *o = run->opening;
	if (!o)
		return;
	if (leave_opener(o)) {
		run->opening = NULL;
		run->gpu_left = 1;
		return;
	}
	char ignored[256]; /* open already: taken, and closed with the run */
	(void)nw_adopt_gpu(run, 1, ignored, sizeof ignored);
}

/* An opener not joined (an error came first): wait for it and close what it opened. */
void nw_gpu_opener_finish(gpu_opener_t *o)
{
	if (o->started) {
		pthread_join(o->tid, NULL);
		take_job(o);
	}
	if (o->gpu)
		nw_gpu_close(o->gpu);
	o->gpu = NULL;
}

int nw_setup_stats(run_t *run, const nw_batch_t *all_refs, char *err, size_t errlen)
{
	const nw_opt_t *opt = run->opt;
	char list[256];
	if (opt->format != NW_FMT_BLAST6)
		return 0;
	if (run->alphabet != NW_ALPHA_PROTEIN) {
		snprintf(err, errlen, "-f blast6 needs E-values, which nwalign has for protein matrices "
				      "only (the input is %s)", nw_alphabet_name(run->alphabet));
		return NW_ERR_USAGE;
	}
	const char *matrix = opt->matrix ? opt->matrix : "blosum62";
	if (nw_matrix_builtin_alphabet(matrix) != NW_ALPHA_PROTEIN ||
	    nw_ka_lookup(matrix, run->sc.gap_open, run->sc.gap_extend, &run->ka, list, sizeof list) < 0) {
		if (nw_matrix_builtin_alphabet(matrix) != NW_ALPHA_PROTEIN)
			snprintf(err, errlen, "-f blast6: no E-value is available for the matrix file "
					      "'%s' (only for the built-in protein matrices)", matrix);
		else
			snprintf(err, errlen, "-f blast6: no E-value is available for %s with gap open "
					      "%d, extend %d (published for %s)", run->sc.name,
				 run->sc.gap_open, run->sc.gap_extend, list);
		return NW_ERR_USAGE;
	}
	run->db_residues = 0;
	for (int64_t i = 0; all_refs && i < all_refs->n; i++)
		run->db_residues += all_refs->len[i];
	return 0;
}

/* Names and lengths of every reference, for the SAM header. In zip mode this reads the
 * reference file once more before the run (so it cannot be stdin). */
int nw_collect_refs(run_t *run, const nw_batch_t *all_refs, nw_ref_list_t *list,
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

