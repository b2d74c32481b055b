/* gpu_path.cuh: between the path engine's batches (gpu_path.cu: kernels, shapes, one batch
 * of path problems on the device or emulated) and its driver (gpu_path_driver.cu: FULL,
 * GACT and exact spans made into problems, batch after batch).
 */
#ifndef NW_GPU_PATH_CUH
#define NW_GPU_PATH_CUH

#include <vector>

#include "gpu_internal.cuh"
#include "path_dp.cuh"

#define NW_PATH_BUDGET_MAX ((size_t)16 << 30) /* device bytes a batch may take at most */

/* A typed host array for a batch's outputs: page-locked (device copies at the bus's speed,
 * like nw_hbuf_t), or ordinary memory where none is to be had, since the emulation fills
 * the same arrays on machines without a device (nw_hbuf_t needs one). It only grows;
 * resize keeps no contents. */
template <class T> struct nw_hbuf {
	T *p = nullptr;
	size_t n = 0, cap = 0;
	bool pinned = false;
	nw_hbuf() {}
	nw_hbuf(const nw_hbuf &) = delete;
	nw_hbuf &operator=(const nw_hbuf &) = delete;
	~nw_hbuf() { release(); }
	void release()
	{
		if (p && pinned) cudaFreeHost(p);
		else free(p);
		p = nullptr, n = cap = 0;
	}
	bool resize(size_t k)
	{
		if (k > cap) {
			release();
			const size_t c = k + k / 4 + 64;
			pinned = cudaHostAlloc((void **)&p, c * sizeof(T), cudaHostAllocDefault) == cudaSuccess;
			if (!pinned) {
				cudaGetLastError(); /* clear the failure: plain memory will do */
				p = (T *)malloc(c * sizeof(T));
				if (!p) return false;
			}
			cap = c;
		}
		n = k;
		return true;
	}
	bool assign(size_t k, T v)
	{
		if (!resize(k)) return false;
		for (size_t i = 0; i < k; i++) p[i] = v;
		return true;
	}
	T *data() { return p; }
	const T *data() const { return p; }
	T &operator[](size_t i) { return p[i]; }
	const T &operator[](size_t i) const { return p[i]; }
	size_t size() const { return n; }
};

/* The host side of a batch's outputs. Page-locked memory takes milliseconds a megabyte to
 * allocate and free, so the device's set lives in its context from call to call
 * (nw_path_host_of); the host emulation's lives in its nw_paths call. */
struct nw_path_host {
	nw_hbuf<uint32_t> runs;
	nw_hbuf<int32_t> n_runs, rows, corner;
	nw_hbuf<nw_psplit> splits;
	std::vector<nw_pjob> jobs, full; /* kept too: megabytes a call, fresh pages each time */
};

/* Where the batch runs: the device (g) or the host emulation (g == NULL). */
struct nw_pexec {
	explicit nw_pexec(nw_path_host &h)
		: runs(h.runs), n_runs(h.n_runs), rows(h.rows), corner(h.corner), splits(h.splits), jobs(h.jobs),
		  full(h.full) {}
	nw_gpu_t *g;
	const uint8_t *qcodes, *rcodes;   /* device codes, or host codes when emulated */
	const int64_t *qoff, *roff;       /* host: first code of each sequence */
	int32_t score[32 * 32];
	int32_t O, E;
	/* outputs of the last batch, on the host */
	nw_hbuf<uint32_t> &runs;
	nw_hbuf<int32_t> &n_runs, &rows, &corner; /* rows: the last rows, emulated only */
	nw_hbuf<nw_psplit> &splits;               /* last-row batches: node z's split (path_dp.cuh) */
	std::vector<nw_pjob> &jobs;               /* the batch's problems */
	std::vector<nw_pjob> &full;               /* every FULL span's problem (nw_paths_full) */
	/* emulation: host buffers */
	std::vector<uint32_t> hdirs;
	size_t budget;                    /* bytes a batch may use on the device */
	double ms;                        /* kernel time */
	double ms_trace;                  /* of which the trace kernel's (NW_GPU_TIMING) */
	double s_exec, s_take;            /* NW_GPU_TIMING: wall seconds in nw_pexec_run (layout,
					   * transfers, kernels) and in the driver's takes */
	bool timing;
};

/* Rows a thread of a whole-matrix problem (G = 32) for m rows: the fewest thread steps
 * (stripes times R; a stripe costs n + 31 steps), the larger R on ties. 150 rows take
 * R = 5 (one stripe of 160), GACT's 320-row tiles two stripes of 160. */
int nw_pick_R(int64_t m);

/* The shape of a FULL problem with its band set: thin (G = 1) when the band fits a thin
 * kernel, its values fit 16 bits and it has at most NW_THIN_MAX_ROWS rows (on B's reads,
 * thin for every such span beat the cost model's mix of thin and groups: RESULTS.md);
 * otherwise the cheapest by nw_pshape_cost over every G and R (G = force_g only, when
 * set; force_g 1: thin wherever it may run, whatever the rows), the larger G, then the
 * larger R on ties. */
void nw_pick_shape(nw_pjob &j, int force_g, const nw_scoring_t *sc, int thin_wmax);

/* Bytes of device memory a problem needs. */
size_t nw_pjob_bytes(const nw_pjob &j, bool trace);

/* Lay out jobs[0..n) (offsets), run them, bring the outputs back into x: a trace batch's
 * runs; a last-row batch's splits, its jobs being the pairs of halves of n / 2 nodes
 * (path_dp.cuh). */
int nw_pexec_run(nw_pexec &x, bool trace);
/* The device's path host buffers, made on first use; NULL when out of memory. */
nw_path_host *nw_path_host_of(nw_gpu_t *g);

/* Append job k's runs (last first) to res in forward order. */
int nw_take_runs(const nw_pexec &x, int64_t k, nw_result_t *res);

#endif
