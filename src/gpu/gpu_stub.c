/* gpu_stub.c: the GPU interface in builds without CUDA (configure found no nvcc, or
 * --without-cuda): there is no device, and asking for one is a clear error. */
#include <stdio.h>

#include "gpu.h"

int nw_gpu_built(void)
{
	return 0;
}

int nw_gpu_device_count(void)
{
	return 0;
}

nw_gpu_t *nw_gpu_open(int device, char *err, size_t errlen)
{
	(void)device;
	snprintf(err, errlen, "this nwalign was built without CUDA (configure --with-cuda to build the GPU engine)");
	return NULL;
}

int nw_gpu_align(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
		 char *err, size_t errlen)
{
	(void)g, (void)p, (void)qb, (void)rb, (void)pairs, (void)n, (void)res;
	snprintf(err, errlen, "this nwalign was built without CUDA");
	return NW_ERR_GPU;
}

int nw_gpu_paths(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
		 const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
		 char *err, size_t errlen)
{
	(void)g, (void)p, (void)qb, (void)rb, (void)pairs, (void)n, (void)res;
	snprintf(err, errlen, "this nwalign was built without CUDA: no GPU paths");
	return NW_ERR_GPU;
}

int nw_gpu_paths_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			  const nw_pair_t *pairs, int64_t n, nw_result_t *res, char *err,
			  size_t errlen)
{
	(void)p, (void)qb, (void)rb, (void)pairs, (void)n, (void)res;
	snprintf(err, errlen, "this nwalign was built without CUDA: no GPU paths");
	return NW_ERR_GPU;
}

int nw_gpu_align_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			  const nw_pair_t *pairs, int64_t n, const nw_emul_shape_t *shape, nw_result_t *res,
			  char *err, size_t errlen)
{
	(void)p, (void)qb, (void)rb, (void)pairs, (void)n, (void)shape, (void)res;
	snprintf(err, errlen, "this nwalign was built without CUDA: no GPU engine");
	return NW_ERR_GPU;
}

int nw_gpu_top(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
	       int top, nw_pair_t *kept_pairs, nw_result_t *kept_res, int64_t *n_kept, char *err,
	       size_t errlen)
{
	(void)g, (void)p, (void)qb, (void)rb, (void)top;
	(void)kept_pairs, (void)kept_res;
	*n_kept = 0;
	snprintf(err, errlen, "this nwalign was built without CUDA: no GPU --top");
	return NW_ERR_GPU;
}

int64_t nw_gpu_chunk_pairs(const nw_gpu_t *g, int64_t at_least)
{
	(void)g, (void)at_least;
	return 0;
}

int nw_gpu_preload(nw_gpu_t *g, const nw_batch_t *b, char *err, size_t errlen)
{
	(void)g, (void)b, (void)err, (void)errlen;
	return 0; /* nothing to upload without a device (the lanes' tests use stand-ins) */
}

void nw_gpu_set_peer(nw_gpu_t *g, const nw_gpu_t *peer)
{
	(void)g, (void)peer;
}

void nw_gpu_expect(nw_gpu_t *g, int64_t pairs)
{
	(void)g, (void)pairs;
}

uint64_t nw_gpu_memory_total(const nw_gpu_t *g)
{
	(void)g;
	return 0;
}

void nw_gpu_set_memory_limit(nw_gpu_t *g, uint64_t bytes)
{
	(void)g, (void)bytes;
}

double nw_gpu_first_kernel_time(const nw_gpu_t *g)
{
	(void)g;
	return 0;
}

double nw_gpu_kernel_seconds(const nw_gpu_t *g)
{
	(void)g;
	return 0;
}

void nw_gpu_long_tiles(const nw_gpu_t *g, int64_t *tiles, int64_t *skipped)
{
	(void)g;
	*tiles = *skipped = 0;
}

int64_t nw_gpu_search_emulated(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			       int G, int R, int64_t *scores, char *err, size_t errlen)
{
	(void)p, (void)qb, (void)rb, (void)G, (void)R, (void)scores;
	snprintf(err, errlen, "this nwalign was built without CUDA: no GPU emulation");
	return NW_ERR_GPU;
}

void nw_gpu_search_pairs(const nw_gpu_t *g, int64_t *pairs, int64_t *generic)
{
	(void)g;
	*pairs = *generic = 0;
}

const char *nw_gpu_describe(const nw_gpu_t *g)
{
	(void)g;
	return "no GPU engine";
}

void nw_gpu_close(nw_gpu_t *g)
{
	(void)g;
}
