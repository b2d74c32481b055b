/* gpu_internal.cuh: private declarations shared by the CUDA sources of the GPU engine.
 *
 *   gpu_device.cu  device management, buffers, sequence upload and unpacking, the public
 *                  nw_gpu_* functions and the host scalar twin entry point
 *   gpu_align.cu   nw_gpu_align: DP problems (forward and reverse passes), routing to the
 *                  16-bit / 32-bit batch kernels and the long-pair kernel, results
 *   gpu_plan.cu    the batch planner: sorting, items, launches and their shapes
 *   gpu_batch.cu   batch kernel launches (the kernel and its thread logic in gpu_batch.cuh:
 *                  groups of G threads, two pairs per group in 16-bit lanes)
 *   gpu_emul.cu    nw_gpu_align_emulated: the batch and long kernels replayed on the host
 *   gpu_long.cu    long-pair kernel: 32R x TC tiles, tile rows as a staircase in one launch
 *                  (thread logic in long_dp.cuh)
 *   gpu_top.cu     --top: each query's best results ranked on the device
 *   gpu_search.cu  --top's local forward pass, planned per reference batch and query
 *   gpu_path.cu    path problems in batches: kernels, shapes, device or emulated runs
 *                  (thread logic in path_dp.cuh; gpu_path.cuh for the driver)
 *   gpu_path_driver.cu  nw_gpu_paths: full tracebacks, GACT tiles, Myers-Miller halves
 *   gpu_thin.cu    thin path kernel: a thread a problem along a narrow band (thin_dp.cuh)
 */
#ifndef NW_GPU_INTERNAL_CUH
#define NW_GPU_INTERNAL_CUH

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <cuda_runtime.h>
#include <vector>

#include "nwalign.h"
extern "C" {
#include "gpu/gpu.h" /* C declarations without their own extern "C" */
}
#include "dp_cell.cuh"
#include "gpu_sweep.cuh"

/* ---------------------------------------------------------------- errors
 * Every CUDA call and every launch goes through these: the first failure is written to the
 * context's message buffer and the calling function returns NW_ERR_GPU. Device memory is
 * owned by the context, so returning early leaks nothing. */
int nw_gpu_fail(nw_gpu_t *g, cudaError_t e, const char *what, const char *file, int line);
#define NW_CUDA_CHECK(g, call)                                                        \
	do {                                                                          \
		cudaError_t nw_e_ = (call);                                           \
		if (nw_e_ != cudaSuccess)                                             \
			return nw_gpu_fail((g), nw_e_, #call, __FILE__, __LINE__);   \
	} while (0)
#define NW_LAUNCH_CHECK(g) NW_CUDA_CHECK(g, cudaGetLastError())
#define NW_TRY(expr)                            \
	do {                                    \
		int nw_rc_ = (expr);            \
		if (nw_rc_ < 0) return nw_rc_;  \
	} while (0)

/* Score types and scorers of the batch kernel. PROF16 needs both lanes of an item and all
 * the items of a warp's batch to align the same query (item.a < 0: an empty slot). */
enum { NW_BK_FAST16 = 0, NW_BK_TAB16 = 1, NW_BK_TAB32 = 2, NW_BK_PROF16 = 3, NW_BK_TYPES = 4 };

/* Seconds on the monotonic clock (NW_GPU_TIMING's stage times). */
static inline double nw_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Called where a DP kernel's timing starts: the first one's time, for -v. */
#define NW_MARK_FIRST_KERNEL(g) ((g)->t_first = (g)->t_first > 0 ? (g)->t_first : nw_now())

/* ---------------------------------------------------------------- device buffers */
typedef struct {
	void *p;
	size_t cap;
} nw_dbuf_t;

/* Grow-only: reallocates only when bytes > cap, never beyond what cudaMemGetInfo reports
 * free (minus a reserve). The growth is stream-ordered on g's streams (the old buffer freed
 * after their work so far, the new one ready for their work to come): other engines' work
 * and the host do not wait. */
int nw_dbuf_reserve(nw_gpu_t *g, nw_dbuf_t *b, size_t bytes);
/* Carve one buffer into pieces: the offset of the next piece of bytes, 256-byte aligned,
 * and *off past it (the buffer's size once every piece is carved). */
static inline size_t nw_carve(size_t *off, size_t bytes)
{
	const size_t at = (*off + 255) / 256 * 256;
	*off = at + bytes;
	return at;
}
/* g's main stream waits for the work queued on its side streams so far. */
int nw_streams_join(nw_gpu_t *g);
int nw_dbuf_put(nw_gpu_t *g, nw_dbuf_t *b, const void *src, size_t bytes);
void nw_dbuf_free(nw_dbuf_t *b);
/* Bytes that may still be allocated (free memory minus a reserve). */
size_t nw_gpu_mem_avail(const nw_gpu_t *g);

/* Pinned host buffers (grow-only, like nw_dbuf_t): copies from and to them are truly
 * asynchronous and run at full bus speed. Large ones are registered memory of huge pages
 * (nw_hbuf_reserve), the others cudaMallocHost's. */
typedef struct {
	void *p;
	size_t cap;
	int registered; /* p came from posix_memalign and cudaHostRegister */
} nw_hbuf_t;
int nw_hbuf_reserve(nw_gpu_t *g, nw_hbuf_t *b, size_t bytes);
void nw_hbuf_free(nw_hbuf_t *b);

/* One uploaded batch: packed words as given, then unpacked to one code a byte. A call
 * that passes the batch held again (the references of all-vs-all, the queries of the
 * chunks of one batch) skips the upload (its stamp says). A call's batch goes through a
 * pinned copy, so that its upload does not wait for the stream's kernels; the references
 * preloaded for every engine (nw_gpu_preload) go straight from the batch's memory. */
typedef struct {
	nw_dbuf_t blob, codes; /* blob: words, offset, len, bits, boff (nw_seq_layout) */
	nw_hbuf_t copy;        /* pinned: the same bytes, as last uploaded (not preloaded) */
	int64_t *hboff;        /* host: first code of sequence i (into copy, or hboff_own) */
	int64_t *hboff_own;    /* preloaded: hboff's own array (malloc) */
	int64_t n, n_words;    /* of the batch held; n < 0: none */
	uint64_t stamp;        /* its nw_batch_t stamp */
	uint64_t used;         /* last use (the least recently used slot is replaced) */
} nw_dseqs_t;
/* Slots 0 and 1 take query batches (a set's queries and their reverse complements, or
 * one chunk's queries and the next one's), slot 2 the references: a batch replaces one of
 * its own kind, whose buffers have that kind's size already, so that zip batches, which
 * change both every call, do not grow (and reallocate, page-locked) a slot every call. */
#define NW_SEQ_SLOTS 3
enum { NW_SEQ_QUERIES, NW_SEQ_REFS };

/* ---------------------------------------------------------------- DP problems */
/* The forward pass's kind (dp_cell.cuh) of an alignment mode. */
static inline int nw_forward_kind(nw_mode_t mode)
{
	return mode == NW_MODE_LOCAL ? NW_DP_LOCAL : mode == NW_MODE_SEMIGLOBAL ? NW_DP_SEMI : NW_DP_GLOBAL;
}

typedef struct {
	int64_t qbase, rbase;  /* code index of residue 0 of the sub-problem */
	int64_t m, n;          /* rows (query), columns (reference) */
	int32_t qstep, rstep;  /* +1, or -1 for a reversed prefix */
	int32_t dlo, dhi;      /* reverse passes: the diagonals j - i that hold every path
				* of the target score (src/band.h); the batch kernel computes
				* only a window of columns around them in each stripe */
	int32_t target;        /* reverse passes in the batch kernel: the score to reach, by
				* which its stripes also leave out the columns that no path of
				* that score can use (nw_bthread::live_scan); NW_NO_TARGET: none */
	int32_t pad_;
} nw_job_t;
#define NW_NO_TARGET INT32_MIN

typedef struct {
	int32_t a, b;          /* job indices of the two lanes (b == a: one lane) */
} nw_item_t;

/* Which problems take the long kernel: both sides long and many cells, or more columns
 * than a batch kernel's scratch holds. long_min > 0 (the NW_GPU_LONG_MIN test hook, read
 * by nw_env_long_min): every problem with both sides at least that long. For a given m
 * the rule holds for every n from some length on (gpu_search.cu relies on that). */
#define NW_LONG_MIN_SIDE 2048               /* both sides at least this ... */
#define NW_LONG_CELLS ((int64_t)1 << 26)    /* ... and this many cells: long kernel */
#define NW_BATCH_MAX_N ((int64_t)1 << 22)   /* batch scratch is per column: cap it */
static inline bool nw_long_problem(int64_t m, int64_t n, int64_t long_min)
{
	const int64_t side = m < n ? m : n;
	if (long_min > 0) return side >= long_min;
	return (side >= NW_LONG_MIN_SIDE && m * n >= NW_LONG_CELLS) || n > NW_BATCH_MAX_N;
}
static inline int64_t nw_env_long_min(void)
{
	const char *s = getenv("NW_GPU_LONG_MIN");
	return s && *s ? atoll(s) : 0;
}
/* NW_GPU_PROF: 0 never uses the profile scorer, 2 for every table-scored forward pass, 1
 * (default) where problems share a query (gpu_align.cu). */
static inline int nw_env_prof(void)
{
	const char *s = getenv("NW_GPU_PROF");
	return s && *s ? atoi(s) : 1;
}

/* The problems of one pass (forward or reverse) on the host. Kept in the context, so
 * that capacity is reused from call to call; jobs and out are pinned. */
struct nw_pass_t {
	int kind;
	int64_t n;
	nw_job_t *jobs;
	nw_dp_out *out;
	nw_hbuf_t hjobs, hout;
	std::vector<uint8_t> fast;    /* both sequences 2-bit */
	std::vector<uint32_t> qid;    /* problems of one id align the same query (profile) */
	std::vector<int64_t> target;  /* reverse passes: the forward score; live forward passes:
				       * the score a problem must reach to be wanted */
	int live;                     /* a forward semiglobal or global pass whose jobs carry
				       * targets (nw_align_params_t.need): a result below its
				       * target may be any value below it */
	int best;                     /* a forward local pass whose end cells no one reads
				       * (--top ranks by score): its results carry scores only */
};
/* Kernel classes: the template parameter that changes the inner loop. NW_KC_TARGET: the
 * last-row passes that know a score to reach (the reverse semiglobal pass; forward
 * semiglobal and global passes given nw_align_params_t.need, nw_pass_t.live).
 * NW_KC_BEST: the forward local pass for scores only (nw_pass_t.best): the best cell's
 * value without its position, so no snapshot of a column's rows and no column to keep. */
enum { NW_KC_LOCAL = 0, NW_KC_REVLOCAL = 1, NW_KC_LASTROW = 2, NW_KC_TARGET = 3, NW_KC_BEST = 4, NW_KC_CLASSES = 5 };
static inline int nw_kclass(int kind, int live, int best)
{
	return kind == NW_DP_LOCAL ? (best ? NW_KC_BEST : NW_KC_LOCAL) : kind == NW_DP_REV_LOCAL ? NW_KC_REVLOCAL
	     : kind == NW_DP_REV_SEMI || live ? NW_KC_TARGET : NW_KC_LASTROW;
}

/* The kind whose 16-bit rule (nw_fits) a pass's problems follow: live forward passes run
 * floored like the reverse semiglobal pass (NW_KC_TARGET). */
static inline int nw_fit_kind(const nw_pass_t &ps) { return ps.live ? NW_DP_REV_SEMI : ps.kind; }

/* Sort record of the planner (gpu_plan.cu). */
typedef struct {
	uint64_t key; /* type << 62 | m << 31 | n */
	int32_t id;
	uint32_t qid;
} nw_kid_t;
static inline uint64_t nw_kid_key(int bk, int64_t m, int64_t n)
{
	return (uint64_t)bk << 62 | (uint64_t)m << 31 | (uint64_t)n;
}
/* Items of one class, kid[0, n) sorted: 16-bit types pair neighbours when the pair still
 * fits in 16 bits (for the profile, only neighbours of one query, and every query starts
 * a new batch of gpw items, counted from items[first]); problems that do not fit this
 * width alone go to rejected; *ncap: the largest n of the items (gpu_plan.cu). */
void nw_make_items(const nw_pass_t &ps, const nw_scoring_t *sc, int bk, int G, int R, int64_t first,
		   const nw_kid_t *kid, size_t n, std::vector<nw_item_t> &items, std::vector<int32_t> &rejected,
		   int32_t *ncap);

/* A batch launch: items [first, first + count) of one type and shape. */
typedef struct {
	int bk, G, R;
	int64_t first, count;
	int32_t ncap;
} nw_launch_t;

/* A class of problems of one type and query length class (sorted, largest first). */
struct nw_class_t {
	int bk;
	size_t x0, x1;            /* kid[x0, x1) */
	int64_t mmax, nmax;       /* of the class */
	double nmean;
	double wmean;             /* reverse local: band width (columns a row needs), mean */
	int64_t wmax;             /* and largest; 0 without bands */
	double cells;             /* sum of m * n */
};

/* The plan of one slice of a batch run: its items and launches, and the problems that
 * need the next width. Slices are planned side by side on host threads. */
struct nw_slice_plan_t {
	std::vector<nw_kid_t> kid, tmp;
	std::vector<nw_class_t> classes;
	std::vector<nw_item_t> items;
	std::vector<nw_launch_t> launches;
	std::vector<int32_t> next;
	int ret;
};

/* Planner state, reused from call to call. */
struct nw_plan_t {
	std::vector<nw_slice_plan_t> slices;
	std::vector<int32_t> batch, b32, longs;
	std::vector<int32_t> order;   /* a batch run's problems, the big ones first */
	std::vector<uint8_t> skip;    /* problems not run by the last 16-bit launches */
	std::vector<int64_t> fw_of, rv_of;
	std::vector<std::pair<int64_t, nw_dp_out> > empties; /* pairs without cells, res NULL */
	nw_hbuf_t hitems;
};

bool nw_fits(int kind, const nw_scoring_t *sc, int64_t Mp, int64_t N, int64_t target, int bits);
/* The shape (G threads a group, R rows a thread) that the planner gives class c of kernel
 * class kc, in a pass whose cells take about t_pass a warp (NW_GPU_CFG first, where that
 * shape runs); band: a class with column windows. */
void nw_plan_shape(nw_gpu_t *g, const nw_class_t &c, int kc, int ncodes, double t_pass, bool band, int *G, int *R);
/* Query length class of m rows: the planner gives each its own shape. */
int nw_len_class(int64_t m);
/* Plan the batch launches of the problems ids[0, n_ids) of ps at one width (16 bits, or 32 with
 * wide32) into sp.items and sp.launches; problems that need the next width go to sp.next.
 * prof_ok: table-scored 16-bit problems use the profile scorer. Safe on several host
 * threads at once (each with its own sp) once nw_plan_warm has run for the pass. */
int nw_plan_batch(nw_gpu_t *g, nw_slice_plan_t &sp, const nw_pass_t &ps, const nw_scoring_t *sc,
		  const int32_t *ids, size_t n_ids, int wide32, bool prof_ok);
/* The cells of sp's launches (timing output): *real, the problems' m x n; *swept, what
 * the batch kernel sweeps without bands: a warp's items run as many stripes of G x R rows
 * as the most any of them needs, each of as many steps (columns plus the G - 1 of the
 * wavefront's fill) as its widest, 64 cells a thread a step (R rows, two lanes). */
void nw_plan_cells(const nw_pass_t &ps, const nw_slice_plan_t &sp, double *real, double *swept);
/* Fill the caches the planner reads (occupancy of every shape of the pass's kind, length
 * classes), so that planning threads only read them. */
void nw_plan_warm(nw_gpu_t *g, int kc, const nw_scoring_t *sc);

/* The database search's forward pass (gpu_search.cu): its plan of a reference batch, kept
 * while calls pass the same batch, and its buffers, kept from call to call. */
struct nw_search_t {
	uint64_t stamp;              /* of the reference batch planned; 0: none */
	int64_t n_refs;
	std::vector<int32_t> order;  /* the references the batch kernel takes (1 to NW_BATCH_MAX_N
				      * columns), longest first, then in batch order */
	std::vector<int32_t> len;    /* their lengths, in that order */
	std::vector<int64_t> nsum;   /* nsum[k]: the sum of len[k..] */
	std::vector<int32_t> others; /* the references it leaves to the generic pass */
	nw_dbuf_t refs;              /* device: the three arrays below */
	int64_t *drbase;             /* each position's first code */
	int32_t *drlen;              /* each position's length */
	int32_t *drpos;              /* each reference's position (-1: others) */
	nw_dbuf_t table, queries, jobs, outs, items, counters, fix;
	nw_hbuf_t hbuf;              /* pinned: the queries' records, then what comes back */
	int64_t pairs, generic;      /* nw_gpu_search_pairs */
};

struct nw_path_host; /* gpu_path.cuh */

struct nw_gpu_s {
	struct nw_path_host *phost; /* the path batches' page-locked host buffers (nw_path_host_of) */
	int device;
	int n_sm;
	size_t smem_optin;
	char desc[256];
	cudaStream_t stream;           /* transfers, the long kernel, joins */
#define NW_STREAMS 4
	cudaStream_t side[NW_STREAMS]; /* batch launches: the classes of a pass run side by side,
					* so that one launch's tail overlaps the next one's work */
	cudaEvent_t sev[NW_STREAMS];
	cudaEvent_t ev_up;             /* a slice's items are uploaded: its launches may start */
	nw_dseqs_t seqs[NW_SEQ_SLOTS];
	uint64_t seq_clock;
	nw_dseqs_t shared;             /* a batch uploaded for the engines on other threads too
					* (nw_gpu_preload); written only between calls */
	const struct nw_gpu_s *peer;   /* the engine whose shared batch this one reads */
	nw_dbuf_t jobs, items, outs, table, lbuf, counters;
	nw_dbuf_t pbuf;                /* path problems and their outputs (gpu_path.cu) */
	nw_dbuf_t pack;                /* the traces' runs packed for the copy back (gpu_path.cu) */
	nw_dbuf_t topbuf;              /* --top's keys, sort space and kept records (gpu_top.cu) */
	nw_hbuf_t htop;                /* their segment offsets and kept records, pinned */
	nw_dbuf_t scratch[NW_STREAMS]; /* per side stream: launches in flight together */
	nw_pass_t fw, rv;
	nw_plan_t plan;
	nw_search_t search;            /* the database search's pass (gpu_search.cu) */
	int occ[NW_BK_TYPES][7][NW_KC_CLASSES][3]; /* resident warps per SM: [type][R/4-2][class NW_KC_*][log2(G/8)] */
	int occ_ncodes;                /* codes of the profile entries of occ */
	cudaEvent_t ev[3]; /* kernel timing: start, end, and (NW_GPU_TIMING) a batch run's first upload */
	bool ev_start;     /* the next batch launch records ev[0] on its stream, just before its kernel
			    * (after the items' upload and any scratch it had to allocate: transfers
			    * and allocations are in the wall time, not the kernel time) */
	int ev_ok;
	double kernel_s;   /* seconds in DP kernels so far (nw_gpu_kernel_seconds) */
	double t_first;    /* nw_now() when the first kernel was queued; 0: none yet */
	int64_t long_tiles, long_skipped; /* pruned long passes' tiles, and those skipped (nw_gpu_long_tiles) */
	size_t mem_limit;  /* --gpu-memory (0: none) */
	size_t mem_used;   /* bytes held by the device buffers (nw_dbuf_reserve) */
	int64_t expect;    /* nw_gpu_expect's pairs a call, or 0 */
	double grow;       /* this call's: expect over its pairs, at least 1 (nw_gpu_call_size) */
	char *err;
	size_t errlen;
};
/* Sets g->grow for a call of n pairs (nw_gpu_expect). */
void nw_gpu_call_size(nw_gpu_t *g, int64_t n);

/* The batch b on the device: a slot that holds the same contents (this engine's, or the
 * shared batch of this engine or of its peer), or the least recently used slot of the
 * batch's kind (NW_SEQ_QUERIES or NW_SEQ_REFS), uploaded and unpacked anew (*out). */
int nw_gpu_seqs(nw_gpu_t *g, const nw_batch_t *b, int kind, const nw_dseqs_t **out);
void nw_dseqs_free(nw_dseqs_t *d);
/* Frees g->phost (gpu_path.cu). */
void nw_path_host_free(nw_gpu_t *g);

/* ---------------------------------------------------------------- passes (gpu_align.cu) */
typedef struct {
	bool timing;              /* NW_GPU_TIMING=1 */
	bool best;                /* a local pass for scores only (nw_pass_t.best) */
	double t[5];              /* stage clocks for it */
	double t_seqs;            /* when the batches were on the device (queued) */
	const uint8_t *qc, *rc;   /* the device codes of the batches */
} nw_fwd_info;

/* Scorings the GPU engine takes: codes below the pad codes, gap costs of at least 1. */
static inline bool nw_scoring_ok(const nw_scoring_t *sc)
{
	return sc->n_codes <= NW_QPAD && sc->gap_open >= 0 && sc->gap_extend >= 0 && sc->gap_open + sc->gap_extend >= 1;
}
/* A pass's start: info->t[0], the device, both batches on it (*qs, *rs; info->t_seqs,
 * qc and rc). */
int nw_pass_seqs(nw_gpu_t *g, const nw_batch_t *qb, const nw_batch_t *rb, nw_fwd_info *info, const nw_dseqs_t **qs,
		 const nw_dseqs_t **rs);
/* The forward pass of n pairs (with p->starts_only, the results res holds): g->fw gets its
 * jobs and results (on the device in g->outs too, except those of the long kernel), and
 * g->plan.fw_of maps pair k to its problem, -1 for a pair without cells, whose result
 * the twin wrote to res[k] or, with res NULL, to g->plan.empties. */
int nw_forward(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
	       const nw_pair_t *pairs, int64_t n, nw_result_t *res, nw_fwd_info *info);

/* The forward pass of a database search (gpu_search.cu): local, scores only, every query
 * of qb against every reference of rb (nw_gpu_top's pairs: pair k = query k / rb->n,
 * reference k % rb->n). Its results stay on the device: pair k's at (*outs)[map[k]], map a
 * device array of qb->n * rb->n entries that it fills. Returns 1, having done nothing,
 * where it does not apply (the caller runs nw_forward). */
int nw_search_forward(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
		      int64_t *map, nw_fwd_info *info, const nw_dp_out **outs);
void nw_search_free(nw_search_t *s);

/* ---------------------------------------------------------------- batch kernel */

typedef struct {
	const nw_job_t *jobs;
	nw_dp_out *out;
	const nw_item_t *items;
	int64_t n_items;
	const uint8_t *qcodes, *rcodes;
	const int32_t *table;       /* NW_TAB_DIM^2 scores with this kind's pad rows */
	uint32_t fast_t0, fast_t1;  /* nw_sc_fast score bytes */
	int32_t kind, O, E, G;
	int32_t ovf_limit;          /* 16-bit local: a lane best >= this may have wrapped */
	int32_t floor;              /* 16-bit reverse semiglobal: the floor of H (nw_floor16) */
	int32_t maxsc;              /* the highest substitution score, at least 0 (live_scan) */
	int32_t live;               /* nw_pass_t.live */
	int32_t best;               /* nw_pass_t.best */
	uint32_t *scratch;          /* per group slot (NW_SLOT_WORDS): a record a column, 2 spare */
	int64_t slot_words;
	int32_t ncap;               /* largest n of the launch */
	int64_t n_slots;            /* groups that the scratch holds */
	int32_t ncodes;             /* profile scorer: real codes (the next one is the pad) */
	uint32_t *counter;          /* next batch of items to take (zero before the launch) */
} nw_bparams_t;

/* Rows per thread available for each batch kernel type (compile-time instances). */
#define NW_R16_LIST {8, 12, 16, 20, 24, 32}
#define NW_R32_LIST {8, 16}
#define NW_RPROF_LIST {8, 16, 24, 32} /* and G in {8, 16, 32}: see nw_sc_prof */
/* Whether the profile scorer takes groups of G threads (a power of 2) with R rows each. */
static inline bool nw_prof_shape(int G, int R) { return G >= 8 && G <= 32 && R >= 8 && R <= 32 && R % 8 == 0; }
/* Whether a batch kernel class makes its first stripe only as tall as its query needs
 * (nw_bthread::SHORT0): the score-only pass of the profile scorer (the database search),
 * whose warps align one query. */
NW_HD constexpr bool nw_short_first(bool profile, int kc) { return profile && kc == NW_KC_BEST; }
/* The rows a thread of the score-only profile pass's short first stripe takes
 * (nw_bthread::short_rows) for the left = 1 .. G R query rows past its other stripes: as
 * few as hold them, in the profile's steps of 8, at most R. */
NW_HD int32_t nw_first_rows(int32_t left, int G, int R)
{
	const int32_t r = ((left + G - 1) / G + 7) / 8 * 8;
	return r < R ? r : R;
}

/* The 16-bit lanes' limits of a launch under scoring sc (gpu_plan.cu, beside nw_fits):
 * p->ovf_limit and p->floor; and p->maxsc. */
void nw_bparams_limits(const nw_scoring_t *sc, nw_bparams_t *p);
/* A batch launch's parameters (gpu_plan.cu): problems of kind (a pass's live and best
 * flags) under sc, jobs and out, the launch's n_items items, the codes, the score table
 * (nw_fill_table), groups of G threads, ncap columns at most; no scratch or counter yet. */
nw_bparams_t nw_bparams_make(const nw_scoring_t *sc, int kind, int live, int best, const nw_job_t *jobs, nw_dp_out *out,
			     const nw_item_t *items, int64_t n_items, const uint8_t *qc, const uint8_t *rc,
			     const int32_t *table, int G, int32_t ncap);

/* Launch on side stream si (after the caller made it wait for the main stream). */
int nw_batch_launch(nw_gpu_t *g, int bk, int R, nw_bparams_t *p, int si);
/* Resident warps per SM of a batch kernel instance of class kc (nw_kclass; occupancy;
 * cached in g); 0 when the shape cannot run here (too much shared memory). G matters for
 * the profile only (its shared memory), ncodes: the profile's real codes. */
int nw_batch_warps_per_sm(nw_gpu_t *g, int bk, int R, int G, int kc, int ncodes);
/* The same thread logic run sequentially on the host (p points to host memory); cols, if
 * not NULL, adds up the columns swept (see nw_emul_shape_t.rev_cols). */
void nw_batch_emulate(int bk, int R, const nw_bparams_t *p, int64_t *cols);

/* ---------------------------------------------------------------- long kernel */
#ifndef NW_LONG_R /* a build may set it to measure other tile heights (bench/RESULTS.md) */
#define NW_LONG_R 8 /* rows per thread: tiles of 32 * 8 = 256 rows */
#endif
#define NW_LONG_TR (32 * NW_LONG_R)
typedef struct {
	nw_job_t job;
	const uint8_t *qcodes, *rcodes;
	const int32_t *table;
	int32_t kind, O, E, TC;
	int32_t maxsc;                   /* the highest substitution score, at least 0 (pruning) */
	int32_t prune;                   /* forward local: skip the tiles that cannot hold the best cell */
	int32_t win;                     /* banded staircase: tile rows sweep their windows of the band */
	int64_t Mp, P, nti, ntj;
	void *rowbuf, *colbuf, *corner;  /* V-typed border buffers (see gpu_long.cu) */
	nw_cand *rowbest;                /* [nti] running best of each tile row */
	long long *best;                 /* the best score found so far (pruning, nw_long_skip) */
	unsigned long long *skipped;     /* tiles skipped */
	int64_t d;                       /* anti-diagonal of the tile at hand (ti + tj) */
	int64_t tlo, thi;                /* the tile rows that launch d computes */
} nw_lparams_t;

/* Whether the long kernels may score with nw_sc_dna4 under host table tab (NW_TAB_DIM):
 * the scores of codes 0-3 and of the padding row fit a signed byte. The problem's
 * sequences must also be 2-bit (codes 0-3 only). */
int nw_long_dna4_ok(const int32_t *tab);
/* Align one long problem; wide = 1 for 64-bit scores; dna4 = 1 for nw_sc_dna4 (see
 * nw_long_dna4_ok). Adds the time of its kernels to *ms (events around the launches: the
 * set-up before them, such as the first call's loading of the kernel's module, is host
 * time). */
int nw_long_run(nw_gpu_t *g, const nw_job_t *job, const uint8_t *qcodes, const uint8_t *rcodes,
		const int32_t *dtable, int32_t maxsc, int kind, int32_t O, int32_t E, int wide, int dna4,
		nw_dp_out *out, float *ms);
/* Host emulation of a whole long problem (host memory; TC columns a tile). */
void nw_long_emulate(const nw_job_t *job, const uint8_t *qcodes, const uint8_t *rcodes,
		     const int32_t *table, int32_t maxsc, int kind, int32_t O, int32_t E, int wide, int dna4,
		     int32_t TC, nw_dp_out *out);

/* ---------------------------------------------------------------- thin kernels */
#define NW_THIN_CLASSES 6 /* launch classes: bands of up to 16, 32, 48, 64, 96 and 128 diagonals */
int nw_thin_class(int W);
/* The widest band a thin kernel takes (NW_GPU_THIN_W, 0 for none; 128 by default). */
int nw_thin_wmax(void);
struct nw_pparams;
struct nw_pjob;
/* Thin path problems ids[0..count), all of class cls, on stream st (trace included). */
int nw_thin_path_launch(nw_gpu_t *g, const nw_pparams &p, const int32_t *ids, int64_t count, uint32_t *counter,
			int cls, cudaStream_t st);
void nw_thin_path_emulate(const nw_pparams &p, const int32_t *ids, int64_t count);
/* Direction word offsets of thin path problems in launch order; returns the words used. */
int64_t nw_thin_layout(std::vector<nw_pjob> &jobs, const int32_t *ids, int64_t count, int64_t dir_base);

/* ---------------------------------------------------------------- scoring tables */
/* Fill tab (NW_TAB_DIM^2) from sc with the pad rows/columns of kind. */
void nw_fill_table(const nw_scoring_t *sc, int kind, int32_t *tab);
/* nw_sc_fast bytes for kind; 0 when sc is not a match/mismatch DNA matrix that fits. */
int nw_fast_bytes(const nw_scoring_t *sc, int kind, uint32_t *t0, uint32_t *t1);

/* The reverse problem of forward job j (kind fkind) whose result is o, into b: the
 * reversed prefixes from o's end cell, cut to the band of o's score (gpu_align.cu). false
 * when the request needs none (global; local score 0; semiglobal end at column 0; a live
 * pass's result below its need). */
bool nw_rev_job(const nw_scoring_t *sc, int fkind, const nw_job_t &j, const nw_dp_out &o, nw_job_t *b);
/* Whether the forward pass of p is live (nw_pass_t.live): p->need given, semiglobal or
 * global (a local pass ignores it). */
int nw_fwd_live(const nw_align_params_t *p);
/* The target, band and (returned) nw_pass_t.target of forward job j of pair k: in a live
 * pass, p->need[k] over the whole matrix (a need outside 32 bits: none, and a target that
 * keeps the job out of 16-bit lanes); else none. */
int64_t nw_fwd_target(const nw_align_params_t *p, int live, int64_t k, nw_job_t *j);
/* Result r of pair k from its forward job j and result o and, where it had one, its
 * reverse result b (gpu_align.cu); NW_ERR_INTERNAL when b missed o's score. */
int nw_pair_result(int fkind, const nw_job_t &j, const nw_dp_out &o, const nw_dp_out *b, int64_t k,
		   nw_result_t *r, char *err, size_t errlen);
/* Unpacked codes of a batch, laid out like the device's (off[i]: sequence i's first). */
void nw_host_codes(const nw_batch_t *b, std::vector<uint8_t> &codes, std::vector<int64_t> &off);

/* Host scalar twin of a whole request (forward and reverse passes), the definition every
 * kernel is tested against; q/r are codes. Exported for tests/gpu_diff.c. */
extern "C" int nw_gpu_twin_align(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
				 const uint8_t *r, int64_t rlen, nw_result_t *res);

#endif
