/* gpu_device.cu: device management, device buffers, sequence upload and unpacking,
 * scoring tables, and the host scalar twin of a whole request. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <new>
#include <vector>

#include "gpu_internal.cuh"

/* Memory left untouched on the device for the runtime and other users. */
#define NW_MEM_RESERVE ((size_t)256 << 20)

int nw_gpu_fail(nw_gpu_t *g, cudaError_t e, const char *what, const char *file, int line)
{
	if (g && g->err && g->errlen)
		snprintf(g->err, g->errlen, "CUDA error %s at %s:%d (%s)", cudaGetErrorString(e), file, line,
			 what);
	return NW_ERR_GPU;
}

/* nw_gpu_mem_avail, counting `freeing` bytes about to be freed in stream order as free */
static size_t nw_mem_avail_with(const nw_gpu_t *g, size_t freeing)
{
	size_t fr = 0, tot = 0;
	if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	/* what the stream-ordered pool holds unused is free to this process's allocations */
	cudaMemPool_t pool;
	uint64_t reserved = 0, used = 0;
	if (cudaDeviceGetDefaultMemPool(&pool, g ? g->device : 0) == cudaSuccess &&
	    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess &&
	    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess && reserved > used)
		fr += (size_t)(reserved - used);
	(void)cudaGetLastError();
	fr += freeing;
	size_t avail = fr > NW_MEM_RESERVE ? fr - NW_MEM_RESERVE : 0;
	if (g && g->mem_limit) {
		const size_t left = g->mem_limit > g->mem_used ? g->mem_limit - g->mem_used : 0;
		avail = avail < left ? avail : left;
	}
	return avail;
}

size_t nw_gpu_mem_avail(const nw_gpu_t *g) { return nw_mem_avail_with(g, 0); }

extern "C" uint64_t nw_gpu_memory_total(const nw_gpu_t *g)
{
	size_t fr = 0, tot = 0;
	if (cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return g && g->mem_limit && g->mem_limit < tot ? g->mem_limit : tot;
}

/* The device's stream-ordered pool (nw_dbuf_reserve) keeps up to `keep` freed bytes for the
 * next allocations, returning the rest to the driver at each synchronisation. */
static void nw_pool_keep(int device, uint64_t keep)
{
	cudaMemPool_t pool;
	if (cudaDeviceGetDefaultMemPool(&pool, device) == cudaSuccess)
		cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
	(void)cudaGetLastError();
}

extern "C" void nw_gpu_set_memory_limit(nw_gpu_t *g, uint64_t bytes)
{
	g->mem_limit = (size_t)bytes;
	/* within a limit, nothing (the pool's default): the process holds its buffers only,
	 * but for one a growth replaces until the engine's next synchronisation */
	nw_pool_keep(g->device, 0);
}

/* The size to allocate for a buffer that must hold bytes in this call: a quarter more, and
 * in proportion for the calls expected (nw_gpu_expect), so that growing batches reallocate
 * rarely; but the expectation sizes only buffers that stay within cap bytes: the calls of
 * long pairs stay far below the pairs expected, and their large buffers would hold device
 * memory that others need, or pin host memory, whose allocation is slow. */
#define NW_EXPECT_DEVICE_MAX ((double)(256u << 20))
#define NW_EXPECT_PINNED_MAX ((double)(32u << 20))
static size_t nw_grown(const nw_gpu_t *g, size_t bytes, double cap)
{
	const double f = g && g->grow > 1 ? g->grow : 1, b = (double)bytes;
	const double want = b * f * 1.25 <= cap ? b * f * 1.25 : b * 1.25;
	return want < (double)(SIZE_MAX / 2) ? (size_t)want : bytes;
}

/* See gpu_internal.cuh; nw_streams_fork: the side streams wait for the main one's work. */
int nw_streams_join(nw_gpu_t *g)
{
	for (int k = 0; k < NW_STREAMS; k++) {
		NW_CUDA_CHECK(g, cudaEventRecord(g->sev[k], g->side[k]));
		NW_CUDA_CHECK(g, cudaStreamWaitEvent(g->stream, g->sev[k], 0));
	}
	return 0;
}

static int nw_streams_fork(nw_gpu_t *g)
{
	NW_CUDA_CHECK(g, cudaEventRecord(g->ev_up, g->stream));
	for (int k = 0; k < NW_STREAMS; k++) NW_CUDA_CHECK(g, cudaStreamWaitEvent(g->side[k], g->ev_up, 0));
	return 0;
}

/* A device buffer grows in stream order (cudaFreeAsync, cudaMallocAsync on the engine's main
 * stream, after the side streams' work and before theirs to come): the host does not wait,
 * and neither do the other engines, where cudaFree and cudaMalloc would synchronise the
 * whole device (engine lanes, src/pipeline/gpu_lanes.c, grow their buffers while the
 * others' kernels run). */
int nw_dbuf_reserve(nw_gpu_t *g, nw_dbuf_t *b, size_t bytes)
{
	if (bytes <= b->cap) return 0;
	size_t want = nw_grown(g, bytes, NW_EXPECT_DEVICE_MAX); /* headroom: fewer reallocations */
	g->mem_used -= b->cap;
	const size_t avail = nw_mem_avail_with(g, b->cap);
	if (want > avail) want = bytes;
	if (want > avail) {
		g->mem_used += b->cap;
		if (g->err)
			snprintf(g->err, g->errlen, "GPU memory: need %zu bytes, %zu free", bytes, avail);
		return NW_ERR_MEMORY;
	}
	if (b->p) {
		NW_TRY(nw_streams_join(g));
		NW_CUDA_CHECK(g, cudaFreeAsync(b->p, g->stream));
		b->p = NULL;
		b->cap = 0;
	}
	if (cudaMallocAsync(&b->p, want, g->stream) != cudaSuccess) {
		/* the pool may hold what was just freed: back to the driver once it is free */
		(void)cudaGetLastError();
		b->p = NULL;
		NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
		cudaMemPool_t pool;
		if (cudaDeviceGetDefaultMemPool(&pool, g->device) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
		(void)cudaGetLastError();
		want = bytes;
		NW_CUDA_CHECK(g, cudaMallocAsync(&b->p, want, g->stream));
	}
	NW_TRY(nw_streams_fork(g));
	b->cap = want;
	g->mem_used += want;
	return 0;
}

int nw_dbuf_put(nw_gpu_t *g, nw_dbuf_t *b, const void *src, size_t bytes)
{
	NW_TRY(nw_dbuf_reserve(g, b, bytes ? bytes : 1));
	if (bytes) NW_CUDA_CHECK(g, cudaMemcpyAsync(b->p, src, bytes, cudaMemcpyHostToDevice, g->stream));
	return 0;
}

void nw_dbuf_free(nw_dbuf_t *b)
{
	if (b->p) cudaFreeAsync(b->p, 0); /* (stream-ordered allocations; the device is idle) */
	b->p = NULL;
	b->cap = 0;
}

/* Pinned buffers of NW_PIN_HUGE bytes or more are allocated on 2 MiB boundaries, advised
 * into transparent huge pages and registered with the driver: the driver pins a few 2 MiB
 * pages sooner than the many 4 KiB pages of cudaMallocHost's allocations, and a run's
 * first call reserves its buffers while the aligners wait. Where huge pages are not to be
 * had the registration pins 4 KiB pages. */
#define NW_PIN_HUGE ((size_t)1 << 20)
#define NW_HUGE_PAGE ((size_t)2 << 20)
static void *nw_pin_huge(size_t *bytes)
{
	const size_t sz = (*bytes + NW_HUGE_PAGE - 1) & ~(NW_HUGE_PAGE - 1);
	void *p = NULL;
	if (posix_memalign(&p, NW_HUGE_PAGE, sz) != 0) return NULL;
	(void)madvise(p, sz, MADV_HUGEPAGE); /* advice only: 4 KiB pages otherwise */
	if (cudaHostRegister(p, sz, cudaHostRegisterPortable) != cudaSuccess) {
		(void)cudaGetLastError();
		free(p);
		return NULL;
	}
	*bytes = sz;
	return p;
}

static void nw_unpin(nw_hbuf_t *b)
{
	if (b->registered) {
		cudaHostUnregister(b->p);
		free(b->p);
	} else {
		cudaFreeHost(b->p);
	}
	b->p = NULL;
	b->cap = 0;
	b->registered = 0;
}

int nw_hbuf_reserve(nw_gpu_t *g, nw_hbuf_t *b, size_t bytes)
{
	if (bytes <= b->cap) return 0;
	size_t want = nw_grown(g, bytes, NW_EXPECT_PINNED_MAX);
	if (b->p) {
		/* copies in flight may still read or write the old buffer */
		NW_CUDA_CHECK(g, cudaDeviceSynchronize());
		nw_unpin(b);
	}
	if (want >= NW_PIN_HUGE && (b->p = nw_pin_huge(&want)) != NULL) {
		b->cap = want;
		b->registered = 1;
		return 0;
	}
	if (want > bytes && cudaMallocHost(&b->p, want) != cudaSuccess) {
		(void)cudaGetLastError(); /* the headroom is not worth failing for */
		b->p = NULL;
		want = bytes;
	}
	if (!b->p) NW_CUDA_CHECK(g, cudaMallocHost(&b->p, want));
	b->cap = want;
	return 0;
}

void nw_hbuf_free(nw_hbuf_t *b)
{
	if (b->p) nw_unpin(b);
}

void nw_dseqs_free(nw_dseqs_t *d)
{
	nw_dbuf_free(&d->blob);
	nw_dbuf_free(&d->codes);
	nw_hbuf_free(&d->copy);
	free(d->hboff_own);
	d->hboff = d->hboff_own = NULL;
	d->n = -1;
}

/* ---------------------------------------------------------------- unpacking
 * Sequences of up to NW_UNPACK_SPLIT residues: one block each (grid-stride). Longer ones
 * get a grid of their own so that a megabase sequence does not sit on one block. */
#define NW_UNPACK_SPLIT 65536

__global__ void nw_unpack_kernel(const uint32_t *words, const uint64_t *off, const uint32_t *len,
				 const uint8_t *bits, const int64_t *boff, int64_t n, int64_t one,
				 uint8_t *codes)
{
	/* one < 0: every short sequence, a block each; else sequence one, all blocks */
	int64_t s0 = one < 0 ? blockIdx.x : one, s1 = one < 0 ? n : one + 1;
	int64_t sstride = one < 0 ? gridDim.x : 1;
	for (int64_t s = s0; s < s1; s += sstride) {
		uint32_t b = bits[s], L = len[s];
		if (one < 0 && L > NW_UNPACK_SPLIT) continue;
		uint32_t per = b == 2 ? 16 : b == 4 ? 8 : 6, mask = (1u << b) - 1;
		const uint32_t *w = words + off[s];
		uint8_t *out = codes + boff[s];
		uint64_t k0 = one < 0 ? threadIdx.x : (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
		uint64_t stride = one < 0 ? blockDim.x : (uint64_t)gridDim.x * blockDim.x;
		for (uint64_t k = k0; k < L; k += stride)
			out[k] = (uint8_t)((w[k / per] >> ((k % per) * b)) & mask);
	}
}

/* Byte offsets of the parts of a batch in nw_dseqs_t's blob and copy (16-byte aligned). */
typedef struct {
	size_t words, off, len, bits, boff, total;
} nw_seq_layout;

static nw_seq_layout nw_layout(int64_t n, uint64_t n_words)
{
	nw_seq_layout l;
#define NW_AL(x) (((x) + 15) & ~(size_t)15)
	l.words = 0;
	l.off = NW_AL(l.words + 4 * (size_t)n_words);
	l.len = NW_AL(l.off + 8 * (size_t)n);
	l.bits = NW_AL(l.len + 4 * (size_t)n);
	l.boff = NW_AL(l.bits + (size_t)n);
	l.total = NW_AL(l.boff + 8 * ((size_t)n + 1));
#undef NW_AL
	return l;
}

/* Does slot d hold batch b? Its stamp says (every change to a batch stamps it anew), so a
 * batch passed again (the references of all against all, the queries of one batch's
 * chunks) costs no comparison of its contents. */
static bool nw_same(const nw_dseqs_t *d, const nw_batch_t *b)
{
	return d->n >= 0 && d->hboff && d->stamp == b->stamp && d->n == b->n &&
	       (uint64_t)d->n_words == b->n_words;
}

/* b into slot d: through d's pinned copy (pinned), or straight from b's pageable memory,
 * which spares a copy and the pinning of the batch's size, but whose copies wait for the
 * stream's earlier work and return once their bytes are taken: for the preload, which
 * waits for the device anyway. */
static int nw_upload(nw_gpu_t *g, const nw_batch_t *b, nw_dseqs_t *d, bool pinned)
{
	const int64_t n = b->n;
	const nw_seq_layout l = nw_layout(n, b->n_words);
	d->n = -1; /* until the upload is complete */
	d->hboff = NULL;
	free(d->hboff_own);
	d->hboff_own = NULL;
	char *c = NULL;
	if (pinned) {
		NW_TRY(nw_hbuf_reserve(g, &d->copy, l.total));
		c = (char *)d->copy.p;
		d->hboff = (int64_t *)(c + l.boff);
	} else {
		nw_hbuf_free(&d->copy);
		if (!(d->hboff = d->hboff_own = (int64_t *)malloc(8 * ((size_t)n + 1)))) {
			snprintf(g->err, g->errlen, "GPU engine: out of host memory for %lld references' offsets",
				 (long long)n);
			return NW_ERR_MEMORY;
		}
	}
	NW_TRY(nw_dbuf_reserve(g, &d->blob, l.total));
	int64_t tot = 0;
	for (int64_t i = 0; i < n; i++) d->hboff[i] = tot, tot += b->len[i];
	d->hboff[n] = tot;
	NW_TRY(nw_dbuf_reserve(g, &d->codes, (size_t)tot + 16));
	const struct {
		size_t at;
		const void *src;
		size_t bytes;
	} part[] = {{l.words, b->words, 4 * (size_t)b->n_words}, {l.off, b->offset, 8 * (size_t)n},
		    {l.len, b->len, 4 * (size_t)n},		     {l.bits, b->bits, (size_t)n},
		    {l.boff, d->hboff, 8 * ((size_t)n + 1)}};
	if (pinned) {
		for (const auto &x : part)
			if (x.src != d->hboff && x.bytes) memcpy(c + x.at, x.src, x.bytes);
		NW_CUDA_CHECK(g, cudaMemcpyAsync(d->blob.p, c, l.total, cudaMemcpyHostToDevice, g->stream));
	} else {
		for (const auto &x : part)
			if (x.bytes)
				NW_CUDA_CHECK(g, cudaMemcpyAsync((char *)d->blob.p + x.at, x.src, x.bytes,
								 cudaMemcpyHostToDevice, g->stream));
	}
	if (n > 0) {
		const char *x = (const char *)d->blob.p;
		const uint32_t *w = (const uint32_t *)(x + l.words);
		const uint64_t *o = (const uint64_t *)(x + l.off);
		const uint32_t *ln = (const uint32_t *)(x + l.len);
		const uint8_t *bt = (const uint8_t *)(x + l.bits);
		const int64_t *bo = (const int64_t *)(x + l.boff);
		uint8_t *codes = (uint8_t *)d->codes.p;
		unsigned grid = (unsigned)(n < 65536 ? n : 65536);
		nw_unpack_kernel<<<grid, 128, 0, g->stream>>>(w, o, ln, bt, bo, n, -1, codes);
		NW_LAUNCH_CHECK(g);
		for (int64_t i = 0; i < n; i++) {
			if (b->len[i] <= NW_UNPACK_SPLIT) continue;
			unsigned gs = (unsigned)((b->len[i] + 256 * 64 - 1) / (256 * 64));
			nw_unpack_kernel<<<gs, 256, 0, g->stream>>>(w, o, ln, bt, bo, n, i, codes);
			NW_LAUNCH_CHECK(g);
		}
	}
	d->n = n;
	d->n_words = (int64_t)b->n_words;
	d->stamp = b->stamp;
	return 0;
}

int nw_gpu_seqs(nw_gpu_t *g, const nw_batch_t *b, int kind, const nw_dseqs_t **out)
{
	nw_dseqs_t *lru = NULL;
	g->seq_clock++;
	/* complete and synchronized before the call that reads it (nw_gpu_preload) */
	const nw_dseqs_t *shared = nw_same(&g->shared, b) ? &g->shared
				   : g->peer && nw_same(&g->peer->shared, b) ? &g->peer->shared : NULL;
	if (shared) {
		*out = shared;
		return 0;
	}
	for (int k = 0; k < NW_SEQ_SLOTS; k++) {
		nw_dseqs_t *d = &g->seqs[k];
		if (nw_same(d, b)) {
			d->used = g->seq_clock;
			*out = d;
			return 0;
		}
		if ((k < 2) == (kind == NW_SEQ_QUERIES) && (!lru || d->used < lru->used)) lru = d;
	}
	NW_TRY(nw_upload(g, b, lru, true));
	lru->used = g->seq_clock;
	*out = lru;
	return 0;
}

extern "C" int nw_gpu_preload(nw_gpu_t *g, const nw_batch_t *b, char *err, size_t errlen)
{
	g->err = err;
	g->errlen = errlen;
	nw_gpu_call_size(g, 0); /* a batch of its own size */
	NW_CUDA_CHECK(g, cudaSetDevice(g->device));
	if (!nw_same(&g->shared, b)) {
		/* the other engines read the references it replaces: their work must be done
		 * (a buffer grows in this engine's stream order only, nw_dbuf_reserve) */
		NW_CUDA_CHECK(g, cudaDeviceSynchronize());
		NW_TRY(nw_upload(g, b, &g->shared, false));
		NW_CUDA_CHECK(g, cudaStreamSynchronize(g->stream));
	}
	return 0;
}

extern "C" void nw_gpu_set_peer(nw_gpu_t *g, const nw_gpu_t *peer)
{
	g->peer = peer;
	g->expect = peer->expect;
}

extern "C" void nw_gpu_expect(nw_gpu_t *g, int64_t pairs)
{
	g->expect = pairs > 0 ? pairs : 0;
}

void nw_gpu_call_size(nw_gpu_t *g, int64_t n)
{
	g->grow = n > 0 && g->expect > n ? std::min(8.0, (double)g->expect / (double)n) : 1.0;
}

/* ---------------------------------------------------------------- scoring tables */
void nw_fill_table(const nw_scoring_t *sc, int kind, int32_t *tab)
{
	int32_t rp = nw_row_pad(kind, sc->gap_open, sc->gap_extend);
	int32_t cp = nw_col_pad(sc->gap_open, sc->gap_extend);
	for (int q = 0; q < NW_TAB_DIM; q++)
		for (int r = 0; r < NW_TAB_DIM; r++) {
			int32_t v = 0;
			if (q < sc->n_codes && r < sc->n_codes) v = sc->score[q][r];
			if (q == NW_QPAD) v = rp;
			if (r == NW_RPAD) v = cp;
			tab[q * NW_TAB_DIM + r] = v;
		}
}

int nw_fast_bytes(const nw_scoring_t *sc, int kind, uint32_t *t0, uint32_t *t1)
{
	if (sc->alphabet != NW_ALPHA_DNA || sc->n_codes < 4) return 0;
	int32_t match = sc->score[0][0], mis = sc->score[0][1];
	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++)
			if (sc->score[a][b] != (a == b ? match : mis)) return 0;
	int32_t pad = nw_row_pad(kind, sc->gap_open, sc->gap_extend);
	/* the four pad entries serve padding rows and columns alike: they must agree unless
	 * the padding columns do not matter (rows pad with 0 only in semiglobal) */
	if (pad != nw_col_pad(sc->gap_open, sc->gap_extend) && kind != NW_DP_SEMI) return 0;
	if (mis >= 0 || match < -128 || match > 127 || mis < -128 || pad < -128 || pad > 127) return 0;
	uint32_t mb = (uint8_t)(int8_t)match, xb = (uint8_t)(int8_t)mis, pb = (uint8_t)(int8_t)pad;
	*t0 = mb | xb << 8 | xb << 16 | xb << 24;
	*t1 = pb * 0x01010101u;
	return 1;
}

/* ---------------------------------------------------------------- scalar twin */
extern "C" int nw_gpu_twin_align(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
				 const uint8_t *r, int64_t rlen, nw_result_t *res)
{
	const nw_scoring_t *sc = p->sc;
	std::vector<int32_t> tab(NW_TAB_DIM * NW_TAB_DIM);
	nw_fill_table(sc, NW_DP_GLOBAL, tab.data());
	std::vector<int64_t> hrow((size_t)rlen + 1), frow((size_t)rlen + 1);
	int64_t O = sc->gap_open, E = sc->gap_extend;
	const int kind = nw_forward_kind(p->mode);
	nw_dp_out f = nw_twin_dp(kind, tab.data(), O, E, q, 1, qlen, r, 1, rlen, hrow.data(), frow.data());
	res->score = f.score;
	res->qstart = res->rstart = 0;
	res->qend = f.i;
	res->rend = f.j;
	if (p->ends_only) return 0;
	if (kind == NW_DP_LOCAL && f.score > 0) {
		nw_dp_out b = nw_twin_dp(NW_DP_REV_LOCAL, tab.data(), O, E, q + f.i - 1, -1, f.i,
					 r + f.j - 1, -1, f.j, hrow.data(), frow.data());
		if (b.score != f.score) return NW_ERR_INTERNAL;
		res->qstart = f.i - b.i;
		res->rstart = f.j - b.j;
	} else if (kind == NW_DP_SEMI && f.j > 0) {
		nw_dp_out b = nw_twin_dp(NW_DP_REV_SEMI, tab.data(), O, E, q + qlen - 1, -1, qlen,
					 r + f.j - 1, -1, f.j, hrow.data(), frow.data());
		if (b.score != f.score) return NW_ERR_INTERNAL;
		res->rstart = f.j - b.j;
	}
	return 0;
}

/* ---------------------------------------------------------------- public functions */
extern "C" int nw_gpu_built(void) { return 1; }

extern "C" int nw_gpu_device_count(void)
{
	int n = 0;
	if (cudaGetDeviceCount(&n) != cudaSuccess) {
		(void)cudaGetLastError();
		return 0;
	}
	return n;
}

extern "C" nw_gpu_t *nw_gpu_open(int device, char *err, size_t errlen)
{
	int n = nw_gpu_device_count();
	if (device < 0 || device >= n) {
		snprintf(err, errlen, "no CUDA device %d (%d found)", device, n);
		return NULL;
	}
	nw_gpu_t *g = new (std::nothrow) nw_gpu_s(); /* value-initialised: zeros, empty vectors */
	if (!g) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (int k = 0; k < NW_SEQ_SLOTS; k++) g->seqs[k].n = -1;
	g->shared.n = -1;
	g->device = device;
	g->err = err;
	g->errlen = errlen;
	cudaDeviceProp prop;
	bool ok = cudaSetDevice(device) == cudaSuccess && cudaGetDeviceProperties(&prop, device) == cudaSuccess &&
		  cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking) == cudaSuccess &&
		  cudaEventCreateWithFlags(&g->ev_up, cudaEventDisableTiming) == cudaSuccess;
	for (int k = 0; k < NW_STREAMS && ok; k++)
		ok = cudaStreamCreateWithFlags(&g->side[k], cudaStreamNonBlocking) == cudaSuccess &&
		     cudaEventCreateWithFlags(&g->sev[k], cudaEventDisableTiming) == cudaSuccess;
	if (!ok) {
		snprintf(err, errlen, "cannot open CUDA device %d: %s", device,
			 cudaGetErrorString(cudaGetLastError()));
		nw_gpu_close(g);
		return NULL;
	}
	/* everything freed stays in the pool for the next allocations (nw_gpu_set_memory_limit
	 * undoes it under a limit) */
	nw_pool_keep(device, UINT64_MAX);
	g->n_sm = prop.multiProcessorCount;
	g->smem_optin = prop.sharedMemPerBlockOptin;
	snprintf(g->desc, sizeof g->desc, "GPU %d: %s, %d SMs, %.1f GiB, compute %d.%d", device, prop.name,
		 prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0, prop.major, prop.minor);
	if (prop.major < 9)
		nw_log_warn("%s: built for sm_90 (Hopper); this device may run slowly or fail", g->desc);
	return g;
}

extern "C" const char *nw_gpu_describe(const nw_gpu_t *g) { return g ? g->desc : "no GPU"; }

extern "C" double nw_gpu_kernel_seconds(const nw_gpu_t *g) { return g ? g->kernel_s : 0; }

extern "C" double nw_gpu_first_kernel_time(const nw_gpu_t *g) { return g ? g->t_first : 0; }

/* 2M pairs: all against all with 20k references, 100 queries a call, so that the largest
 * problems' warps finish inside the call (protein search: see bench/RESULTS.md); about
 * 200 MB of pinned host buffers and as much device memory at most. */
/* Device bytes a pair of a call may hold at once: its job, forward and reverse results,
 * batch items, --top's keys, values and sort space, with room to spare. */
#define NW_PAIR_DEVICE_BYTES 512

extern "C" int64_t nw_gpu_chunk_pairs(const nw_gpu_t *g, int64_t at_least)
{
	/* 2M pairs keep the GPU near its speed (planning overlaps the kernels in slices,
	 * NW_SLICE_PROBLEMS), or more if asked; fewer when free memory is short, so that a
	 * chunk's buffers always fit */
	const int64_t most = std::max((int64_t)1 << 21, at_least), least = (int64_t)1 << 16;
	const int64_t fit = (int64_t)(nw_gpu_mem_avail(g) / NW_PAIR_DEVICE_BYTES);
	return fit > most ? most : fit < least ? least : fit;
}

extern "C" void nw_gpu_close(nw_gpu_t *g)
{
	if (!g) return;
	cudaSetDevice(g->device);
	cudaDeviceSynchronize();
	nw_path_host_free(g);
	for (int k = 0; k < NW_SEQ_SLOTS; k++) nw_dseqs_free(&g->seqs[k]);
	nw_dseqs_free(&g->shared);
	nw_dbuf_free(&g->jobs);
	nw_dbuf_free(&g->items);
	nw_dbuf_free(&g->outs);
	nw_dbuf_free(&g->table);
	for (int k = 0; k < NW_STREAMS; k++) {
		nw_dbuf_free(&g->scratch[k]);
		if (g->sev[k]) cudaEventDestroy(g->sev[k]);
		if (g->side[k]) cudaStreamDestroy(g->side[k]);
	}
	if (g->ev_up) cudaEventDestroy(g->ev_up);
	nw_dbuf_free(&g->lbuf);
	nw_dbuf_free(&g->counters);
	nw_dbuf_free(&g->pbuf);
	nw_dbuf_free(&g->pack);
	nw_dbuf_free(&g->topbuf);
	nw_search_free(&g->search);
	nw_hbuf_free(&g->htop);
	nw_hbuf_free(&g->fw.hjobs);
	nw_hbuf_free(&g->fw.hout);
	nw_hbuf_free(&g->rv.hjobs);
	nw_hbuf_free(&g->rv.hout);
	nw_hbuf_free(&g->plan.hitems);
	if (g->ev_ok)
		for (int k = 0; k < 3; k++) cudaEventDestroy(g->ev[k]);
	if (g->stream) cudaStreamDestroy(g->stream);
	delete g;
}
