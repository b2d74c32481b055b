/* plan.c: the pairing plan. Pairs are listed in output order (query-major for all vs all)
 * and cut into chunks so that results stay bounded in memory however many pairs a run has.
 * Engines may reorder pairs internally (the GPU sorts them into length classes) but
 * return results in this order. */
#include "plan.h"

uint32_t nw_plan_all_span(uint32_t q0, uint32_t n_query, uint32_t n_ref, int64_t chunk_pairs)
{
	int64_t per = n_ref ? chunk_pairs / n_ref : chunk_pairs;
	if (per < 1)
		per = 1;
	int64_t left = (int64_t)n_query - q0;
	return (uint32_t)(per < left ? per : left);
}

int64_t nw_plan_all(uint32_t q0, uint32_t q1, uint32_t n_ref, nw_pair_t *pairs)
{
	int64_t k = 0;
	for (uint32_t q = q0; q < q1; q++)
		for (uint32_t r = 0; r < n_ref; r++) {
			pairs[k].q = q;
			pairs[k].r = r;
			k++;
		}
	return k;
}

int64_t nw_plan_zip(uint32_t i0, uint32_t i1, nw_pair_t *pairs)
{
	int64_t k = 0;
	for (uint32_t i = i0; i < i1; i++, k++)
		pairs[k].q = pairs[k].r = i;
	return k;
}

double nw_plan_all_cells(const nw_batch_t *qb, const nw_batch_t *rb, uint32_t q0, uint32_t q1)
{
	double residues = 0;
	for (uint32_t q = q0; q < q1; q++)
		residues += qb->len[q];
	return residues * (double)rb->total_residues;
}

double nw_plan_cells(const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs,
		     int64_t n)
{
	double cells = 0;
	for (int64_t k = 0; k < n; k++)
		cells += (double)qb->len[pairs[k].q] * rb->len[pairs[k].r];
	return cells;
}
