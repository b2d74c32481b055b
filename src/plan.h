/* plan.h: which pairs are aligned, in which order, and in chunks of bounded size. */
#ifndef NW_PLAN_H
#define NW_PLAN_H

#include "nwalign.h"

/* Pairs of one chunk for the CPU engine (whole queries in all-vs-all mode); the GPU
 * engine asks for larger chunks (nw_gpu_chunk_pairs). */
#define NW_CHUNK_PAIRS ((int64_t)1 << 18)

/* All-vs-all, query-major: queries [q0, q1) of the query batch against every one of n_ref
 * references. Returns the number of pairs written to pairs. */
int64_t nw_plan_all(uint32_t q0, uint32_t q1, uint32_t n_ref, nw_pair_t *pairs);
/* How many queries from q0 fit in a chunk of chunk_pairs against n_ref references (at
 * least one); for zip (n_ref 0) how many records. */
uint32_t nw_plan_all_span(uint32_t q0, uint32_t n_query, uint32_t n_ref, int64_t chunk_pairs);
/* Zip: the i-th query with the i-th reference, i in [i0, i1). */
int64_t nw_plan_zip(uint32_t i0, uint32_t i1, nw_pair_t *pairs);
/* DP cells of the pairs (sum of qlen * rlen). */
double nw_plan_cells(const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs,
		     int64_t n);
/* The same for the pairs nw_plan_all would list (queries [q0, q1) against every reference),
 * from the lengths alone. */
double nw_plan_all_cells(const nw_batch_t *qb, const nw_batch_t *rb, uint32_t q0, uint32_t q1);

#endif
