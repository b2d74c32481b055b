/* pipeline.h: what the files of the run share (src/pipeline/). Not an interface outside
 * the pipeline: nw_run (nwalign.h) is.
 *
 *   run.c          the run: set-up, batch sets from the read stage, chunks, the end
 *   setup.c        alphabet, scoring, the GPU opened beside the reading, SAM's references
 *   feeder.c       the read stage: batch sets read and packed on a thread of their own
 *   align_stage.c  one chunk through the engine: scores, --top, starts, paths, strands
 *   cpu_jobs.c     the CPU engine's share of a chunk, on the run's worker threads
 *   write_stage.c  the write stage: records formatted and written on threads of their own
 *   partitions.c   --top against references larger than memory: read in partitions
 *   gpu_lanes.c    a large GPU call split over engines on threads of their own
 */
#ifndef NW_PIPELINE_H
#define NW_PIPELINE_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "feeder.h"
#include "gpu.h"
#include "nwalign.h"
#include "nwdb.h"
#include "path.h"
#include "write_stage.h"
#include "writer.h"

/* A chunk's pairs and results, and the pairs --top keeps with theirs; CIGAR buffers are
 * reused from chunk to chunk. With --top only the kept ones are written, so both buffers
 * share one pairs and res (bufs[0]'s): a chunk of all against all holds millions. */
typedef struct {
	nw_pair_t *pairs;            /* listed only where an engine needs them (nw_chunk_list_pairs) */
	uint32_t all_q0, all_q1;     /* all vs all: the chunk is queries [all_q0, all_q1) against
				      * every reference (listed: zip pairs, listed when made) */
	int listed;                  /* pairs holds the chunk's pairs */
	nw_result_t *res;            /* with --top, made only when the host ranks (nw_chunk_res) */
	int64_t cap;                 /* of pairs when this buffer owns them */
	int64_t res_cap;             /* of res when this buffer owns it */
	nw_pair_t *top_pairs;        /* --top: the kept pairs and their results */
	nw_result_t *top_res;
	int64_t top_cap;
	int64_t written_as;          /* the write stage's number for the chunk; -1: none */
	uint32_t **lent;             /* the blocks of res's CIGAR buffers (nw_cigar_lend), */
	int64_t n_lent;              /* freed after res at the run's end */
} chunk_buf_t;

/* gpu_lanes.c: the GPU engine's calls of many pairs cut into contiguous ranges, each
 * aligned by an engine of its own (a lane) on a thread of its own: the engine's host work
 * (10-20 times its kernels' on short pairs) runs on several cores. */
#define NW_LANES_MAX 8
typedef struct {
	nw_gpu_t *g[NW_LANES_MAX]; /* g[0]: the run's engine (run->gpu, not owned); the others
				    * opened by their thread on the first call they take */
	int n;                     /* lanes a call may use; 1: calls are not split */
	int64_t min_pairs;         /* pairs a lane takes at least */
	uint64_t device_bytes;     /* the device's memory (0: unknown), which bounds the lanes'
				    * copies of the references when one shared copy does not fit */
	int device;
	int64_t ranged_calls;      /* --top calls whose references went in ranges (for -v) */
	double t_shared;           /* nw_pl_now() when the lanes' references were first on the
				    * device (for -v; 0: never) */
	/* nw_gpu_preload (gpu.h): the references every lane reads, uploaded once */
	int (*preload)(nw_gpu_t *g, const nw_batch_t *b, char *err, size_t errlen);
	/* nw_gpu_set_peer (gpu.h): a lane's engine reads lane 0's preloaded references */
	void (*set_peer)(nw_gpu_t *g, const nw_gpu_t *peer);
} nw_lanes_t;
/* nw_gpu_align and nw_gpu_paths (gpu.h) have this shape. */
typedef int (*nw_gpu_call_fn)(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
			      const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n,
			      nw_result_t *res, char *err, size_t errlen);
/* Lanes of the engine g0 (NULL: the CPU engine, one lane): up to 4, as --threads allow
 * (runs with paths: 6 from 16 threads on; NW_GPU_LANES=k overrides), one under
 * --gpu-memory (a cap for one engine's buffers).
 * Where every lane reads all of a call's references (all vs all), lane 0's engine uploads
 * them once for all; should that copy not fit, each lane uploads its own, and the call
 * takes no more lanes than a quarter of the device's memory holds copies of them. */
void nw_lanes_init(nw_lanes_t *l, nw_gpu_t *g0, const nw_opt_t *opt);
/* fn on the n pairs, split over the lanes when n is large enough; the first failing lane's
 * error (its results are unspecified then, as fn's are). */
int nw_lanes_call(nw_lanes_t *l, nw_gpu_call_fn fn, const nw_align_params_t *p,
		  const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n,
		  nw_result_t *res, char *err, size_t errlen);
/* nw_gpu_top (gpu.h) has this shape. */
typedef int (*nw_gpu_top_fn)(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
			     const nw_batch_t *rb, int top, nw_pair_t *kept_pairs,
			     nw_result_t *kept_res, int64_t *n_kept, char *err, size_t errlen);
/* fn (nw_gpu_top) on queries [q0, q1) of qb against every reference of rb, split over the
 * lanes by whole queries (each a view of its queries); references that a quarter of the
 * device's memory does not hold go in ranges of it, each query's tops merged over them.
 * The kept pairs are numbered in qb and rb, min(top, rb->n) a query in query order. */
int nw_lanes_top(nw_lanes_t *l, nw_gpu_top_fn fn, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, int64_t q0, int64_t q1, int top, nw_pair_t *kept_pairs,
		 nw_result_t *kept_res, int64_t *n_kept, char *err, size_t errlen);
/* For -v: the kernels' seconds over every lane (they overlap), the first kernel's time, the
 * engines opened. */
double nw_lanes_kernel_seconds(const nw_lanes_t *l);
double nw_lanes_first_kernel_time(const nw_lanes_t *l);
int nw_lanes_opened(const nw_lanes_t *l);
/* For -v: nw_gpu_search_pairs over every lane. */
void nw_lanes_search_pairs(const nw_lanes_t *l, int64_t *pairs, int64_t *generic);
/* Closes the lanes' own engines (not g[0]). */
void nw_lanes_close(nw_lanes_t *l);

typedef struct {
	const nw_opt_t *opt;
	nw_alphabet_t alphabet;
	int alphabet_guessed;
	nw_scoring_t sc;
	nw_align_params_t params;    /* want_path set when the output needs a path */
	nw_gpu_t *gpu;               /* NULL: the CPU engine */
	nw_lanes_t lanes;            /* the GPU engine's calls on several threads */
	int small_on_cpu;            /* --backend auto gave the whole (small) input to the CPU
				      * engine rather than wait for the GPU to open (setup.c) */
	double small_est_s;          /* the CPU engine's estimated seconds for it */
	int cpu_threads;             /* the CPU engine's threads: --threads, one fewer while
				      * the GPU opens beside the CPU engine's work */
	struct gpu_opener_s *opening; /* --backend auto: the GPU still opening on its thread
				      * while the CPU engine aligns the first pairs (setup.c,
				      * nw_adopt_gpu); NULL once it is the run's or left */
	int64_t pairs_while_opening; /* pairs the CPU engine aligned while the GPU opened */
	int64_t slices_while_opening; /* and in how many slices (align_stage.c) */
	int gpu_left;                /* the run ended before the GPU opened: left to its thread */
	int gpu_failed;              /* the GPU engine failed (align_stage.c) or, gpu NULL,
				      * would not open (setup.c): the CPU engine took over
				      * (--backend auto) */
	nw_workspace_t **cpu_ws;     /* one a CPU worker, kept from chunk to chunk (their
				      * buffers grow once, not every chunk); NULL until used */
	int n_cpu_ws;
	int64_t chunk_pairs;         /* pairs a chunk may hold: the engine's choice */
	chunk_buf_t bufs[2];         /* a chunk aligns in one while the other is written */
	chunk_buf_t *cb;             /* the chunk being aligned: one of bufs */
	int64_t scratch_cap;         /* of rc_res, sub_pairs, sub_res and need */
	nw_result_t *rc_res;         /* --strand both: results of the reverse complements */
	int64_t *need;               /* --strand both: what each reverse complement must score
				      * to be kept (nw_align_params_t.need) */
	nw_pair_t *sub_pairs;        /* --strand both: the pairs of one strand, and their */
	nw_result_t *sub_res;        /* results moved here for a stage (owning nothing) */
	int64_t n_paths[NW_PATH_KINDS]; /* paths written, by kind (NW_PATH_*) */
	nw_ka_t ka;                  /* -f blast6: the scoring's statistics (nw_setup_stats) */
	double db_residues;          /* and the database's residues (0: each pair alone) */
	nw_writer_t *writer;
	nw_wstage_t *wstage;         /* formats and writes beside the engine */
	double stage_s[5];           /* wall seconds by STAGE_*, for -v */
	double check_s;              /* the write stage's time checking the GPU's paths */
	double cells, t0, last_progress;
	int64_t n_pairs;
	int64_t n_records;           /* records handed to the write stage */
	int progress_shown;
} run_t;

/* Seconds on the monotonic clock. */
static inline double nw_pl_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Where a run's wall time goes, for -v: waiting for the reader, the score passes (both
 * strands, --top's selection, starts), the paths, waiting for the write stage. */
enum { STAGE_READ, STAGE_SCORES, STAGE_STARTS, STAGE_PATHS, STAGE_WRITE };

/* cpu_jobs.c: what the CPU engine does with n pairs (nw_cpu_run). */
enum {
	NW_JOB_ALIGN,  /* scores and spans (a path too when params want one) */
	NW_JOB_PATHS   /* scores and spans are known: compute and check the paths */
};
/* cpu_jobs.c: the CPU engine's work (NW_JOB_*) on n pairs and their results, on
 * run->cpu_threads workers (--threads when 0). 0, or a negative NW_ERR_* with err set. */
int nw_cpu_run(run_t *run, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
	       const nw_pair_t *pairs, nw_result_t *res, int64_t n, int what, char *err,
	       size_t errlen);

/* A result's query span mirrored between the frames of the query's two strands (qlen
 * residues): a reverse-strand result is found on the reverse complement and reported on
 * the query as given (align_stage.c), and checked in its own frame again (path_checks.c).
 * Its own inverse. */
static inline void nw_mirror_query_span(nw_result_t *res, int64_t qlen)
{
	const int64_t qs = res->qstart;
	res->qstart = qlen - res->qend;
	res->qend = qlen - qs;
}

/* path_checks.c: the write stage's work on a chunk (nw_wstage_prep_fn, ctx the run): the
 * paths the GPU made (results marked unchecked) checked by nw_path_finish, as the CPU
 * engine checks its own, on the run's threads. */
int nw_check_paths(void *ctx, const nw_batch_t *qb, const nw_batch_t *q_rc, const nw_batch_t *rb,
		   const nw_pair_t *pairs, nw_result_t *res, int64_t n, char *err, size_t errlen);

/* align_stage.c: the n pairs of run->cb through the engine, then to the write stage. */
int nw_align_chunk(run_t *run, const nw_batch_set_t *set, const nw_batch_t *rb, int64_t n,
		   char *err, size_t errlen);
/* align_stage.c: the same, but the records are left to the caller: *n_res of them in
 * *pairs_out and *res_out (run->cb's arrays; with --top the kept pairs, by query, best
 * first), with their paths when the run wants them. */
int nw_chunk_results(run_t *run, const nw_batch_set_t *set, const nw_batch_t *rb, int64_t n,
		     nw_pair_t **pairs_out, nw_result_t **res_out, int64_t *n_res, char *err,
		     size_t errlen);
/* The chunk's pairs in run->cb->pairs: all vs all lists them here, where an engine needs
 * them (--top on the GPU does not: its host work is per query). */
void nw_chunk_list_pairs(run_t *run, const nw_batch_t *rb);
/* --top's ranking on the host (the GPU's, gpu_top.cu, is the same): a higher score first,
 * then the earlier reference (its index in the reference file). */
static inline int nw_ranks_before(int64_t score_a, int64_t ref_a, int64_t score_b, int64_t ref_b)
{
	return score_a > score_b || (score_a == score_b && ref_a < ref_b);
}
/* align_stage.c: the progress line on a terminal (final: erase it). */
void nw_progress(run_t *run, int final);

/* run.c: the other chunk buffer as run->cb, with room for n pairs (n_top kept by --top),
 * once the write stage is done with what it held: the chunk of queries [q0, q1) (all vs
 * all: against every reference), whose pairs the caller lists (listed: zip) or leaves
 * implied. */
int nw_next_chunk(run_t *run, uint32_t q0, uint32_t q1, int listed, int64_t n, int64_t n_top, char *err,
		  size_t errlen);
/* run.c: room for n results in run->cb->res. A --top chunk ranked on the device never
 * needs one a pair, so nw_next_chunk leaves them to this. */
int nw_chunk_res(run_t *run, int64_t n, char *err, size_t errlen);

/* partitions.c: all vs all with --top when the references do not fit in memory. */
typedef struct {
	nw_reader_t *rr;         /* the reference file, on its current pass (owned) */
	nw_db_parts_t *db;       /* or the database, when it is one (owned) */
	const char *path;
	uint64_t cap;            /* residues a partition holds, about (one record more) */
	int64_t top;             /* --top */
	nw_batch_t part;         /* the partition being aligned */
	int64_t base;            /* index in the file of part's first reference */
	int64_t n_refs;          /* references in the file; -1 until the first pass ends */
	int64_t parts_read;      /* partitions aligned, over every pass (for -v) */
	int64_t compactions;     /* times kept was rebuilt without the references pushed out */
	/* the query set's running tops: query q's count[q] best at [q * width, ...), width
	 * the references seen so far, at most top */
	int64_t n_q, cap_q, width;
	int64_t *count;
	nw_result_t *res;
	nw_pair_t *pairs;        /* r: the reference's index in kept */
	int64_t *file_r;         /* the reference's index in the file (the tie rule) */
	nw_batch_t kept;         /* the records of the references the tops hold */
	int32_t *kept_of;        /* [part.n] a partition reference's index in kept, or -1 */
	nw_result_t *m_res;      /* [width] one query's merge */
	nw_pair_t *m_pairs;
	int64_t *m_file;
	int64_t written_as;      /* the write stage's number for the last set; -1: none */
	int threads;             /* the reader's encoding threads, each time it is opened */
	/* streamed (nw_parts_stream): each partition is read on a thread while the one before
	 * is aligned, into ahead, NW_STREAM_GROWTH times larger than it, up to cap_max */
	int stream;
	uint64_t cap_max;
	nw_batch_t ahead;
	pthread_t ahead_tid;
	int ahead_running;       /* the thread runs (or ran and is not joined) */
	int ahead_ret;           /* its read: 1, 0 at the end of the file, or an error */
	nw_alphabet_t ahead_alpha;
	char ahead_err[512];
} nw_parts_t;
/* A streamed run's partitions grow by this factor (reading is several times faster than
 * aligning every query against what was read, so the next read ends first). */
#define NW_STREAM_GROWTH 8
/* The results a query set holds at most in its tops (--top times its queries): sets are cut
 * to this, since every set is kept whole across the partitions. */
#define NW_PARTS_KEPT_MAX ((int64_t)1 << 22)
/* rr (or db) holds the first partition, put into pt->part by the caller. */
int nw_parts_init(nw_parts_t *pt, nw_reader_t *rr, nw_db_parts_t *db, const char *path,
		  uint64_t cap, int64_t top, int threads);
/* The partitions streamed: the first one (cap residues) is aligned while the next is read,
 * and so on, each NW_STREAM_GROWTH times larger, at most cap_max residues. For one query
 * set, whose alignment can start once the first partition is read. */
void nw_parts_stream(nw_parts_t *pt, uint64_t cap_max);
void nw_parts_free(nw_parts_t *pt);  /* closes pt->rr or pt->db too */
/* Every query set from the feeder against every partition, each set written whole. */
int nw_run_partitioned(run_t *run, nw_feeder_t *fd, nw_parts_t *pt, int64_t nq, char *err,
		       size_t errlen);

/* The CPU engine's rates as the planning estimates them: its slower passes' (long pairs
 * in 32-bit lanes, paths), so that the estimates err long. */
#define NW_CPU_CELLS_PER_S 1.5e9      /* a thread's cells a second, scores */
#define NW_CPU_PATH_CELLS_PER_S 0.5e9 /* ... with paths */
#define NW_CPU_PAIR_S 1e-6            /* a thread's seconds a pair besides its cells */

/* setup.c */
/* The GPU is opened on a thread of its own while the inputs are read: starting the CUDA
 * driver and a context takes a few tenths of a second, as long as reading a batch. */
typedef struct gpu_open_job_s gpu_open_job_t; /* the opener thread's (setup.c) */
typedef struct gpu_opener_s {
	const nw_opt_t *opt;
	pthread_t tid;
	gpu_open_job_t *job; /* while the thread runs */
	int small;           /* --backend auto, and the input files' sizes bound the run's
			      * work under the small-run limit: the GPU is not opened */
	double small_est_s;  /* the CPU engine's estimated seconds for that bound */
	int started;
	int ret;             /* 0: run->gpu set or the CPU engine chosen; < 0: err says why */
	int open_failed;     /* --backend auto and the device would not open: err says why */
	double open_s;       /* seconds the opening took (on its thread) */
	double waited_s;     /* seconds the run waited for it */
	nw_gpu_t *gpu;
	char err[256];
} gpu_opener_t;
/* The run's alphabet: --alphabet, a built-in --matrix's, or guessed from both inputs'
 * first records; with a database (db: its alphabet; rr NULL), the database's, and an
 * error when the options ask for the other one. */
int nw_choose_alphabet(run_t *run, nw_reader_t *qr, nw_reader_t *rr, nw_alphabet_t db,
		       char *err, size_t errlen);
int nw_setup_scoring(run_t *run, char *err, size_t errlen);
void nw_gpu_opener_start(gpu_opener_t *o, const nw_opt_t *opt);
/* The engine: the GPU the opener found (joined here), or the CPU. With --backend auto, a
 * run whose whole input is the first set (whole; set, and rb all against all or NULL for
 * zip) and small enough for the CPU engine to finish before the GPU would open goes to the
 * CPU engine (run->small_on_cpu), the GPU left opening on its thread (nw_gpu_left_opening);
 * another run, while the GPU still opens, starts on the CPU engine (run->opening: the
 * stages' slices in align_stage.c, nw_adopt_gpu). */
int nw_setup_backend(run_t *run, gpu_opener_t *o, const nw_batch_set_t *set,
		     const nw_batch_t *rb, int whole, char *err, size_t errlen);
/* An opener not joined (an error came first): wait for it and close what it opened. */
void nw_gpu_opener_finish(gpu_opener_t *o);
/* Whether the options let the CPU engine take the first pairs while the GPU opens
 * (--backend auto in a CUDA build, NWALIGN_AUTO_CPU_S not 0, not --top nor --strand
 * both); the run does so when the GPU is still opening once the first set is packed. */
int nw_may_share_while_opening(const nw_opt_t *opt);
/* Pairs of the next all-vs-all chunk against n_ref references: the engine's choice
 * (run->chunk_pairs), or for --top on several GPU lanes a query for every lane where the
 * device's memory allows. */
int64_t nw_chunk_pairs(const run_t *run, int64_t n_ref);
/* With the GPU still opening (run->opening, which nw_setup_backend sets with --backend
 * auto when the CPU engine can take the first pairs in short slices): once its opener is
 * done (wait: waiting for it), the GPU becomes the run's engine, as nw_setup_backend would
 * have made it. Returns 0, or < 0 with err (--backend gpu's reasons only). */
int nw_adopt_gpu(run_t *run, int wait, char *err, size_t errlen);
/* At the end of a run whose GPU is still opening: left to its thread, which closes it
 * (nw_gpu_left_opening), or taken when it is already open. */
void nw_leave_gpu_opening(run_t *run);
/* -f blast6: the statistics of the scoring (an error naming the gap costs that have them
 * when it has none) and the residues of the database, all_refs (NULL in zip mode: 0,
 * each pair alone), into run->ka and run->db_residues. */
int nw_setup_stats(run_t *run, const nw_batch_t *all_refs, char *err, size_t errlen);
/* Names and lengths of every reference, for the SAM header (see setup.c). */
int nw_collect_refs(run_t *run, const nw_batch_t *all_refs, nw_ref_list_t *list,
		    nw_batch_t *sam_refs, char *err, size_t errlen);

#endif
