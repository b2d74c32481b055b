/* gpu.h: private interface between the pipeline and the GPU engine.
 *
 * Builds without CUDA link src/gpu/gpu_stub.c, whose functions report that no GPU engine
 * was built. With CUDA, src/gpu/ implements them; every result equals the CPU engine's
 * (score, start and end coordinates) for the same packed batches, and every path the CPU
 * engine's CIGAR (the rules of src/path.h).
 */
#ifndef NW_GPU_H
#define NW_GPU_H

#include "nwalign.h"

typedef struct nw_gpu_s nw_gpu_t;

/* 1 when this build has the CUDA engine. */
int nw_gpu_built(void);
/* Number of usable CUDA devices (0 when none or no driver). */
int nw_gpu_device_count(void);
nw_gpu_t *nw_gpu_open(int device, char *err, size_t errlen);
/* Scores and coordinates of n pairs (no path), written to res[0..n). */
int nw_gpu_align(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
		 char *err, size_t errlen);
/* --top on the device: every query of qb against every reference of rb (a caller with a
 * part of a batch passes a view of it), aligned for their ends (p->ends_only); of each
 * query the min(top, rb->n) best results (higher score, then earlier reference) are
 * written in rank order to kept_pairs / kept_res (pairs numbered in qb and rb; score and
 * end cell, start 0, strand 0), *n_kept in all: what the host's selection makes of
 * nw_gpu_align's results on those pairs. The pairs are implied, never listed: a local
 * search's host work is per query (src/gpu/gpu_search.cu). */
int nw_gpu_top(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
	       int top, nw_pair_t *kept_pairs, nw_result_t *kept_res, int64_t *n_kept, char *err,
	       size_t errlen);
/* Paths (raw CIGARs, res[k].path_kind set by nw_path_kind) of the n pairs whose scores
 * and spans res already holds (from nw_gpu_align); results with an empty span get none.
 * The caller checks them with nw_path_finish. */
int nw_gpu_paths(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
		 char *err, size_t errlen);
/* The same without a device: the path kernels' thread logic replayed on the host (their
 * scalar twin, for tests; slow). */
int nw_gpu_paths_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			  const nw_pair_t *pairs, int64_t n, nw_result_t *res, char *err,
			  size_t errlen);
/* The kernel and shape that nw_gpu_align_emulated replays. */
typedef struct {
	int G, R;      /* batch kernel: groups of G threads, R rows a thread (32 bits: R 8 or 16) */
	int prof;      /* batch kernel, G >= 8 and R 8, 16, 24 or 32: the forward pass's
			* table-scored 16-bit problems take the query profile (nw_sc_prof), each
			* query's run of problems as the engine's planner gives it its batches */
	int long_tc;   /* > 0: every problem through the long kernel instead, tiles of long_tc
			* columns; -1: one tile column (the staircase's geometry) */
	int long_wide; /* long kernel: 64-bit lanes even where 32 bits would do */
	int64_t *rev16; /* if not NULL, gets the number of reverse problems run in 16-bit lanes */
	int64_t *rev_cols; /* if not NULL, [0] gets the columns the batch kernel's reverse stripes
			    * swept (items times stripes) and [1] those their bands alone give */
} nw_emul_shape_t;
/* Scores and coordinates as nw_gpu_align gives them, without a device: the kernels'
 * thread logic replayed on the host (their scalar twin, for tests; slow). */
int nw_gpu_align_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			  const nw_pair_t *pairs, int64_t n, const nw_emul_shape_t *shape, nw_result_t *res,
			  char *err, size_t errlen);
/* --top's search pass (src/gpu/gpu_search.cu) without a device: its plan, and its jobs and
 * items as the device makes them, the batch kernel's thread logic replayed on the host in
 * groups of G threads of R rows (a profile shape; G = R = 0: each query a shape by its
 * length, so that a call has several launches), the pairs it leaves to the generic pass
 * through nw_gpu_align_emulated. The local score of pair k (query k / rb->n, reference
 * k % rb->n) goes to scores[k]. Returns how many pairs the generic pass took, or an error
 * (scores, batches or a shape that the pass does not take). For tests; slow. */
int64_t nw_gpu_search_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			       int G, int R, int64_t *scores, char *err, size_t errlen);
/* Pairs a call should carry for the GPU to run near its speed (the pipeline's chunk),
 * and at least at_least (0: no such wish): small calls leave the GPU with the tail of
 * their largest problems; large ones must fit the device's free memory (cudaMemGetInfo),
 * which bounds the chunk. */
int64_t nw_gpu_chunk_pairs(const nw_gpu_t *g, int64_t at_least);
/* Uploads the batch b (if it is not there yet) for g and for the engines whose peer g is,
 * and waits for it: their calls with b then read that copy. Call it between calls only
 * (no call of g or of its peers running): it may replace the batch uploaded before. */
int nw_gpu_preload(nw_gpu_t *g, const nw_batch_t *b, char *err, size_t errlen);
/* g reads the batch peer preloaded (another engine on the same device, outliving g's
 * calls), and expects calls of peer's size (nw_gpu_expect). */
void nw_gpu_set_peer(nw_gpu_t *g, const nw_gpu_t *peer);
/* g's calls will reach about pairs pairs (a stream's full batches, after smaller first
 * ones): a buffer that grows for a call of fewer pairs is sized in proportion for that
 * many (up to a few hundred megabytes), so that the buffers grow once, not at every
 * larger batch (each growth waits for the whole device). 0: no expectation. */
void nw_gpu_expect(nw_gpu_t *g, int64_t pairs);
/* The device's memory in bytes (cudaMemGetInfo's total), or the limit set on g when that
 * is lower; 0 when unknown. */
uint64_t nw_gpu_memory_total(const nw_gpu_t *g);
/* At most bytes of device memory for this context's buffers (0: as much as is free, less
 * a reserve); what nw_gpu_chunk_pairs and the buffers' growth see as free. A call that
 * needs more fails with NW_ERR_MEMORY. */
void nw_gpu_set_memory_limit(nw_gpu_t *g, uint64_t bytes);
/* Seconds the device spent in this context's kernels so far (CUDA events), for -v. */
double nw_gpu_kernel_seconds(const nw_gpu_t *g);
/* When the first kernel was queued (CLOCK_MONOTONIC seconds); 0 when none was. */
double nw_gpu_first_kernel_time(const nw_gpu_t *g);
/* Tiles of this context's forward local passes by the long kernel's anti-diagonals, and
 * how many of them it skipped (pruning, src/gpu/long_dp.cuh); g NULL: the host emulation's
 * (nw_gpu_align_emulated), over the process. For tests and benchmarks. */
void nw_gpu_long_tiles(const nw_gpu_t *g, int64_t *tiles, int64_t *skipped);
/* Pairs that --top's search pass (src/gpu/gpu_search.cu) took on g so far, and how many of
 * them it left to the generic pass (empty sequences, long pairs, 16-bit results that may
 * have wrapped). For -v and tests. */
void nw_gpu_search_pairs(const nw_gpu_t *g, int64_t *pairs, int64_t *generic);
/* One line describing the device, for -v. */
const char *nw_gpu_describe(const nw_gpu_t *g);
void nw_gpu_close(nw_gpu_t *g);

#endif
