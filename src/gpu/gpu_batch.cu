/* gpu_batch.cu: the batch kernel's launches: resident blocks (cached per instance in the
 * context), the groups' scratch, one launch per planned class on a side stream. The kernel
 * and its thread logic are in gpu_batch.cuh.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_batch.cuh"

/* ---------------------------------------------------------------- dispatch */
/* Resident blocks per SM of an instance with smem bytes of dynamic shared memory (the
 * attribute is raised first where it passes the default 48 KB: to the most the device
 * allows, the one value every engine sets, since the attribute is the kernel's in the
 * whole context; a launch's own size there would let an engine on another thread,
 * src/pipeline/gpu_lanes.c, lower it under this launch's need). */
template <class SC, int R, int KC>
static int nw_blocks_per_sm(nw_gpu_t *g, size_t smem, int *per_sm)
{
	*per_sm = 0;
	if (smem > g->smem_optin) return 0; /* this shape cannot run here (large profiles) */
	if (smem > 48 * 1024)
		NW_CUDA_CHECK(g, cudaFuncSetAttribute(nw_batch_kernel<SC, R, KC>, cudaFuncAttributeMaxDynamicSharedMemorySize,
						      (int)g->smem_optin));
	NW_CUDA_CHECK(g, cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, nw_batch_kernel<SC, R, KC>, NW_BK_THREADS,
								       smem));
	return 0;
}

template <class SC, int R, int KC>
static int nw_launch_one(nw_gpu_t *g, nw_bparams_t *p, int si)
{
	const size_t smem = nw_batch_smem<SC, R, KC>(p->G, p->ncodes);
	int per_sm = 0;
	NW_TRY((nw_blocks_per_sm<SC, R, KC>(g, smem, &per_sm)));
	if (per_sm < 1) {
		snprintf(g->err, g->errlen, "batch kernel type %d G %d R %d does not fit (%zu bytes of shared memory)",
			 (int)SC::PROFILE, p->G, R, smem);
		return NW_ERR_INTERNAL;
	}
	const int gpw = 32 / p->G, wpb = NW_BK_THREADS / 32;
	int64_t nwi = (p->n_items + gpw - 1) / gpw;
	int64_t blocks = (nwi + wpb - 1) / wpb;
	if (blocks > (int64_t)per_sm * g->n_sm) blocks = (int64_t)per_sm * g->n_sm;
	p->slot_words = NW_SLOT_WORDS(p->ncap);
	/* scratch: one slot per group in flight; fewer blocks when memory is short */
	nw_dbuf_t *scr = &g->scratch[si];
	size_t avail = nw_gpu_mem_avail(g) + scr->cap;
	size_t per_block = (size_t)wpb * gpw * p->slot_words * 4;
	if ((size_t)blocks * per_block > avail / 4) blocks = (int64_t)(avail / 4 / per_block);
	if (blocks < 1) return nw_gpu_fail(g, cudaErrorMemoryAllocation, "batch scratch", __FILE__, __LINE__);
	NW_TRY(nw_dbuf_reserve(g, scr, (size_t)blocks * per_block));
	p->scratch = (uint32_t *)scr->p;
	p->n_slots = blocks * wpb * gpw;
	if (g->ev_start) { /* the kernel time starts here (see nw_gpu_t::ev_start) */
		NW_MARK_FIRST_KERNEL(g);
		NW_CUDA_CHECK(g, cudaEventRecord(g->ev[0], g->side[si]));
		g->ev_start = false;
	}
	nw_batch_kernel<SC, R, KC><<<(unsigned)blocks, NW_BK_THREADS, smem, g->side[si]>>>(*p);
	NW_LAUNCH_CHECK(g);
	return 0;
}

template <class SC, int R, int KC>
static int nw_occ_one(nw_gpu_t *g, int G, int ncodes)
{
	int per_sm = 0;
	char *err = g->err;
	g->err = NULL; /* a failure here only makes the cost model guess */
	int rc = nw_blocks_per_sm<SC, R, KC>(g, nw_batch_smem<SC, R, KC>(G, ncodes), &per_sm);
	g->err = err;
	if (rc < 0) {
		(void)cudaGetLastError();
		return 4;
	}
	return per_sm * (NW_BK_THREADS / 32); /* 0: the shape cannot run */
}

/* The class that runs NW_KC_BEST for scorer SC: score-only instances exist for the profile
 * (database search, where --top ranks millions of pairs); the other scorers run the full
 * local class, whose scores are the same. */
#define NW_KC_BEST_OF(SC) ((SC::PROFILE) ? NW_KC_BEST : NW_KC_LOCAL)

template <class SC, int R>
static int nw_launch_kc(nw_gpu_t *g, nw_bparams_t *p, int si)
{
	switch (nw_kclass(p->kind, p->live, p->best)) {
	case NW_KC_LOCAL: return nw_launch_one<SC, R, NW_KC_LOCAL>(g, p, si);
	case NW_KC_BEST: return nw_launch_one<SC, R, NW_KC_BEST_OF(SC)>(g, p, si);
	case NW_KC_REVLOCAL: return nw_launch_one<SC, R, NW_KC_REVLOCAL>(g, p, si);
	case NW_KC_TARGET: return nw_launch_one<SC, R, NW_KC_TARGET>(g, p, si);
	default: return nw_launch_one<SC, R, NW_KC_LASTROW>(g, p, si);
	}
}

struct nw_occ_f {
	nw_gpu_t *g;
	int kc, G, ncodes;
	template <class SC, int R> int run()
	{
		switch (kc) {
		case NW_KC_LOCAL: return nw_occ_one<SC, R, NW_KC_LOCAL>(g, G, ncodes);
		case NW_KC_BEST: return nw_occ_one<SC, R, NW_KC_BEST_OF(SC)>(g, G, ncodes);
		case NW_KC_REVLOCAL: return nw_occ_one<SC, R, NW_KC_REVLOCAL>(g, G, ncodes);
		case NW_KC_TARGET: return nw_occ_one<SC, R, NW_KC_TARGET>(g, G, ncodes);
		default: return nw_occ_one<SC, R, NW_KC_LASTROW>(g, G, ncodes);
		}
	}
};

int nw_batch_warps_per_sm(nw_gpu_t *g, int bk, int R, int G, int kc, int ncodes)
{
	int ri = R / 4 - 2; /* 8..32 -> 0..6 */
	int gi = 0;
	if (bk < 0 || bk >= NW_BK_TYPES || ri < 0 || ri > 6) return 4;
	if (bk == NW_BK_PROF16) {
		gi = G >= 32 ? 2 : G >= 16 ? 1 : 0;
		if (g->occ_ncodes != ncodes) { /* the profile's size changed: forget its entries */
			memset(g->occ[NW_BK_PROF16], 0, sizeof g->occ[NW_BK_PROF16]);
			g->occ_ncodes = ncodes;
		}
	}
	int &c = g->occ[bk][ri][kc][gi]; /* warps + 1, so that 0 means not asked yet */
	if (c == 0) {
		nw_occ_f f = {g, kc, G, ncodes};
		int w = nw_dispatch(bk, R, f);
		c = (w < 0 ? 4 : w) + 1;
	}
	return c - 1;
}

struct nw_launch_f {
	nw_gpu_t *g;
	nw_bparams_t *p;
	int si;
	template <class SC, int R> int run() { return nw_launch_kc<SC, R>(g, p, si); }
};

int nw_batch_launch(nw_gpu_t *g, int bk, int R, nw_bparams_t *p, int si)
{
	nw_launch_f f = {g, p, si};
	int rc = nw_dispatch(bk, R, f);
	if (rc == NW_ERR_INTERNAL && g->err) snprintf(g->err, g->errlen, "no batch kernel for type %d, R %d", bk, R);
	return rc;
}
