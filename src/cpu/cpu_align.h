/* cpu_align.h: private pieces of the CPU engine shared by the score passes
 * (cpu_align.c) and the linear-memory path (cpu_path.c). */
#ifndef NW_CPU_ALIGN_H
#define NW_CPU_ALIGN_H

#include "nwalign.h"
#include "path.h"

/* Far below any reachable score, yet safe to subtract gap costs from repeatedly. */
#define NW_NEG_INF (INT64_MIN / 4)

/* What a pass records besides the last row. */
typedef enum {
	DP_TRACK_NONE,       /* only the last row (global score, Myers-Miller halves) */
	DP_TRACK_MAX,        /* maximum cell: smallest column, then smallest row */
	DP_TRACK_LASTROW,    /* maximum of the last row, smallest column */
	DP_TRACK_TARGET,     /* first row holding the target; its smallest such column; stops */
	DP_TRACK_TARGET_LASTCOL /* first row whose last column equals the target; stops */
} dp_track_t;

/* The tracks that stop at their target. */
static inline int dp_track_stops(dp_track_t t)
{
	return t == DP_TRACK_TARGET || t == DP_TRACK_TARGET_LASTCOL;
}

/* One row-by-row Gotoh pass over rows a[0..na) and columns b[0..nb), scored s[a][b].
 * Row 0 is H[0][j] = 0 when row0_free, else -(gap_open + j*ext). Column 0 is 0 when local,
 * else -(col0_open + i*ext): col0_open is gap_open except in Myers-Miller sub-problems
 * whose leading vertical gap continues one from above. */
typedef struct {
	const uint8_t *a, *b;
	int64_t na, nb;
	const int32_t (*s)[NW_MAX_CODES];
	int64_t gap_open, gap_extend, col0_open;
	int local, row0_free;
	dp_track_t track;
	int64_t target;
} dp_pass_t;

typedef struct {
	int64_t score;       /* best value for MAX / LASTROW */
	int64_t row, col;    /* where (row 0..na, col 0..nb); -1 when a target was not found */
} dp_hit_t;

/* Runs the pass with caller rows H[0..nb] and F[0..nb]; on return they hold the last
 * computed row's H (best of all states) and F (ending in a vertical gap). */
void nw_dp_pass(const dp_pass_t *p, int64_t *H, int64_t *F, dp_hit_t *hit);

struct nw_workspace_s {
	int64_t *row[4];         /* H and F rows: [0],[1] forward, [2],[3] reverse */
	size_t row_cap;          /* entries in each row */
	uint8_t *rev[2];         /* reversed copies of sequence slices */
	size_t rev_cap[2];
	uint8_t *dir;            /* direction bits of small sub-problems */
	size_t dir_cap;
	int64_t dir_n;           /* columns of the matrix in dir (row stride dir_n + 1) */
	uint8_t *ops;            /* ops of one traceback, last first */
	size_t ops_cap;
	int32_t score_t[NW_MAX_CODES][NW_MAX_CODES]; /* transposed matrix */
	int64_t full_cells_max;  /* 0: the default size of a full-matrix sub-problem */
	int64_t path_cells;      /* cells swept by the path passes so far (tests) */
	int64_t *sums[2];        /* path passes: best diagonal scores left, by row and column */
	size_t sums_cap[2];
	void *simd;              /* striped pass: query profile and column vectors */
	size_t simd_cap;         /* bytes */
	void *sweep;             /* the SIMD sweep's rows, bounds and profile (cpu_prune.c) */
	size_t sweep_cap;        /* bytes */
	int isa;                 /* tests: the instruction set of the striped pass; -1: nw_cpu_isa() */
	int simd_off;            /* tests: run the scalar twin only */
	void *inter;             /* inter-sequence passes (cpu_inter.c): codes, rows, profile */
	size_t inter_cap;        /* bytes */
	uint8_t *inter_seq;      /* the group's pairs, unpacked */
	size_t inter_seq_cap;
	void *inter_streams;     /* a stream group's lanes, segments and results (cpu_inter.c) */
	size_t inter_streams_cap; /* bytes */
	void *inter_dir;         /* direction words of a group's path pass */
	size_t inter_dir_cap;    /* bytes */
	int64_t narrow_lanes;    /* pairs through the 8-bit passes so far (-v, tests) */
	int64_t narrow_saturated; /* of them, those run again in 16 bits (-v, tests) */
	int64_t narrow_alone;    /* of those, the ones run pair by pair (tests) */
	int64_t narrow_regroups; /* 16-bit group passes run for the others (tests) */
	int team;                /* threads a long pair's forward pass may take (1: its own) */
	int64_t team_min_cells;  /* ... for pairs of this many cells or more */
	int64_t team_min_rows;   /* ... in stripes of this many query rows or more */
	int64_t team_passes;     /* passes run by a team so far (-v, tests) */
	int team_most;           /* the most threads a team took (-v) */
	int64_t team_paths;      /* paths made by a team (tests) */
	int64_t pruned_min_cells; /* global pairs of this many cells or more try pruned
				   * sweeps for their score (0: NW_PRUNED_MIN_CELLS) */
	int64_t pruned_scores;   /* global and semiglobal scores found so (-v, tests) */
	int64_t pruned_starts;   /* starts found by the vector sweep (-v, tests) */
	int wfa_mode;            /* 1: wavefronts for long global scores (the default); 0: not
				  * (tests); 2: every attempt runs to its end, without the
				  * budget, the probe and the rule of cost (tests) */
	int64_t wfa_scores;      /* global scores found by wavefronts (-v, tests) */
	void *wfa;               /* wavefronts and padded sequences (cpu_wfa.c) */
	size_t wfa_cap;          /* bytes */
};

/* Largest sub-problem (cells) traced back from a full matrix; tests set it small so that
 * short pairs take the divide-and-conquer path too. */
void nw_workspace_set_full_cells(nw_workspace_t *ws, int64_t cells);

/* The striped SIMD pass (cpu_striped.c, striped_kernel.h): query q[0..m) in lanes, reference r[0..n)
 * column by column. Boundaries: H[i][0] (query prefix, no reference) is 0 when local,
 * else -(open + i*ext); H[0][j] is 0 when local or ref_free, else -(open + j*ext). Hits
 * follow the scalar rules with rows = reference, columns = query: MAX is the maximum at
 * the smallest reference end, then smallest query end; LASTROW the maximum over the whole
 * query at the smallest reference end; TARGET / TARGET_LASTCOL the first reference column
 * where any cell / the whole query reaches target; NONE the corner H[n][m]. */
typedef struct st_edge_s st_edge_t;
typedef struct {
	const uint8_t *q, *r;
	int64_t m, n;
	const nw_scoring_t *sc;
	int local, ref_free;
	dp_track_t track;
	int64_t target;
	/* a stripe of a longer query (nw_striped_team): q[0] is position q0 of the whole
	 * query; in: the row above, column by column, from the stripe above (NULL: the
	 * matrix's top row); out: this stripe's last row, for the stripe below (or NULL) */
	int64_t q0;
	st_edge_t *in, *out;
	int64_t *stop_at;    /* a stopping track's team: the first column a stripe reached the
			      * target in (atomic; no stripe goes past it), or NULL */
} st_pass_t;

/* The row between two stripes, in a ring of columns: h[j] = H of the upper stripe's last
 * row in column j, f[j] = the F entering the lower stripe's first row. The upper stripe
 * publishes done (the last column written), the lower one used (the last column read),
 * each every ST_EDGE_STEP columns; on cache lines of their own. */
#define ST_EDGE_RING 4096
#define ST_EDGE_MASK (ST_EDGE_RING - 1)
#define ST_EDGE_STEP 64
struct st_edge_s {
	_Alignas(64) int64_t done;
	_Alignas(64) int64_t used;
	_Alignas(64) int32_t h[ST_EDGE_RING];
	int32_t f[ST_EDGE_RING];
};

/* 1 when the pass ran (hit->row = reference end, hit->col = query end), 0 when it does not
 * apply (values could leave 32 bits, or a stopping track's target lies past the columns a
 * 16-bit pass can take and 32 bits do not fit: run nw_dp_pass), or a negative code. A
 * workspace with a team (nw_workspace_set_team) runs long pairs over it
 * (nw_striped_team). */
int nw_striped_pass(nw_workspace_t *ws, const st_pass_t *p, dp_hit_t *hit);
/* The pass over a team of threads (ws->team of them, nw_workspace_set_team): the query
 * in stripes of rows, one a thread, each stripe one column behind the stripe above; the
 * same hit by the same tie rules (a stopping track stops every stripe at the first column
 * one of them reached the target in). 1 when it ran, 0 when it does not apply (a single
 * thread, a pair too small, values that leave 32 bits, a thread that could not start, a
 * target not reached: run nw_striped_pass), or NW_ERR_MEMORY. */
int nw_striped_team(nw_workspace_t *ws, const st_pass_t *p, dp_hit_t *hit);
/* Tests: 0 runs only the scalar passes. */
void nw_workspace_set_simd(nw_workspace_t *ws, int on);
/* Tests: the striped pass runs with instruction set isa (nw_isa_t; -1: the chosen one). */
void nw_workspace_set_isa(nw_workspace_t *ws, int isa);
/* Make *buf hold at least need bytes, 64-byte aligned for the SIMD kernels (*cap: its
 * size); the old contents are not kept. 0 or NW_ERR_MEMORY. */
int nw_ws_grow_aligned(void **buf, size_t *cap, size_t need);

/* ---------------------------------------------------------------- the pruned sweep
 * (cpu_prune.c) A global Gotoh pass over rows a[0..na) and columns b[0..nb) that skips the
 * cells on no path reaching a known score (target), with the same result as the full
 * pass. How it ends:
 *   NW_SWEEP_CORNER: at the corner (rows, nb) of a sub-problem of rows >= na rows (the
 *     passes of a path); on return H and F hold row na (dead cells below NW_SWEEP_DEAD);
 *   NW_SWEEP_TARGET_LASTCOL: at the first row whose last column holds the target, which
 *     becomes the hit (the start of a semiglobal alignment);
 *   NW_SWEEP_TARGET: at the first row with a cell at or above the target, the smallest
 *     such column (the start of a local alignment);
 *   NW_SWEEP_LASTROW: a semiglobal forward pass (row 0 is 0, every column a possible
 *     start; top_open unused) over all na = rows rows, the last row left in H: every
 *     column a possible end, the rows left after a cell forced into a gap only where
 *     they outnumber the columns. */
enum { NW_SWEEP_CORNER, NW_SWEEP_TARGET_LASTCOL, NW_SWEEP_TARGET, NW_SWEEP_LASTROW };
typedef struct {
	int64_t cells; /* swept before it failed */
	int64_t row;   /* the row it failed at (na: it ended below the target) */
} nw_sweep_fail_t;
#define NW_SWEEP_DEAD (NW_NEG_INF / 2)

typedef struct {
	const uint8_t *a, *b;   /* rows a[0..na), columns b[0..nb) */
	int64_t na, nb;
	int64_t rows;           /* rows of the whole sub-problem (>= na; CORNER and LASTROW
				 * bound by it, the vector sweep lays out by it) */
	const int32_t (*s)[NW_MAX_CODES]; /* s[row code][column code] */
	int64_t O, X;
	int64_t top_open;       /* H[0][j] = -(top_open + j*X) */
	int64_t col0_open;      /* H[i][0] = -(col0_open + i*X) */
	int64_t target;         /* the score; NW_NEG_INF: prune nothing (CORNER only) */
	int64_t bonus;          /* CORNER: a gap open waived at the far end (a continued gap) */
	int stop;               /* NW_SWEEP_* */
	const int64_t *sq, *sr; /* nw_best_sums of rows a[0..rows or na) and columns b[0..nb) */
	uint8_t *dir;           /* direction bits, row stride nb + 1 (src/cpu/cpu_path.c); NULL: none */
	nw_sweep_fail_t *failed; /* NULL, or where a sweep that fails says how far it got */
} nw_sweep_t;

/* Runs the sweep with caller rows H[0..nb], F[0..nb]; hit->row, hit->col: where it ended.
 * Returns about the cells swept (each row from its first live cell to where it stopped),
 * or NW_ERR_INTERNAL when a row has no live cell or the target is
 * never reached (a target above the true score). */
int64_t nw_sweep(const nw_sweep_t *p, int64_t *H, int64_t *F, dp_hit_t *hit);
/* nw_sweep in vectors along the rows (sweep_kernel.h) when its values fit 32-bit lanes,
 * else nw_sweep itself (also when ws runs the scalar twin only). The same results: rows
 * whose live cells hold nw_sweep's values or higher ones below the full pass's, so the
 * same splits, paths and hits; direction bits that may differ only at cells on no optimal
 * path. */
int64_t nw_sweep_fast(nw_workspace_t *ws, const nw_sweep_t *p, int64_t *H, int64_t *F,
		      dp_hit_t *hit);

/* The global (or, semiglobal, the semiglobal: query end to end) score of q[0..m) x
 * r[0..n) by pruned sweeps, for pairs whose optimum lies near the most they could score
 * (similar sequences): a sweep that prunes by a target T ends with the exact optimum, at
 * the same cell, when the optimum is at least T (every cell of an optimal path lives,
 * cpu_prune.c), and else with less or not at all. T starts below the most the pair can
 * score by a slack that grows with its length, and falls after each failed sweep; sweeps
 * stop before their cells would pass 1/NW_PRUNED_SHARE of the matrix's. With need (not
 * NW_NEG_INF: nw_align_params_t.need), one sweep for T = need decides, and a score below
 * it is given as need - 1. Returns 1 with *score and *rend (the reference end: n when
 * global), 0 when the sweeps stopped (the caller runs the full pass), or NW_ERR_MEMORY. */
#define NW_PRUNED_SHARE 4
int nw_pruned_score(nw_workspace_t *ws, const nw_scoring_t *sc, int semiglobal,
		    const uint8_t *q, int64_t m, const uint8_t *r, int64_t n, int64_t need,
		    int64_t *score, int64_t *rend);

/* The global score of a[0..m) x b[0..n) by the gap-affine wavefront recurrence
 * (cpu_wfa.c), for match/mismatch scoring (nw_scoring_dna's form): exact, with work that
 * grows with the square of the pair's penalty rather than with m * n. Returns 1 with
 * *score, 0 when the scoring is of another form or the wavefronts would take more than
 * budget diagonal steps (the caller runs its passes), or NW_ERR_MEMORY. nw_pruned_score
 * tries it first for global pairs, with a budget of m * n / NW_WFA_SHARE steps (one step
 * costs about what a few cells of the vector sweep do). */
#define NW_WFA_SHARE 32
int nw_wfa_global_score(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *a, int64_t m,
			const uint8_t *b, int64_t n, int64_t budget, int64_t *score);

/* sums[i], i in [0, len]: the most the diagonal steps of a path through x[i..len) can
 * score, the sum of max(0, x[k]'s best score against any code) (x: query codes, the score
 * table's rows, when query_codes; else reference codes). Beside the best substitution
 * score times the steps, this knows that most residues score far below the best pair
 * (BLOSUM62's W-W, 11). In ws->sums[k]; NULL when out of memory. */
const int64_t *nw_best_sums(nw_workspace_t *ws, int k, const nw_scoring_t *sc, const uint8_t *x,
			    int64_t len, int query_codes);

int nw_ws_rows(nw_workspace_t *ws, int64_t n);
/* Make *buf hold at least need bytes (*cap: its size), with room to grow; 0 or
 * NW_ERR_MEMORY. */
int nw_ws_grow(void **buf, size_t *cap, size_t need);
const uint8_t *nw_ws_reverse(nw_workspace_t *ws, int k, const uint8_t *x, int64_t n);

/* The exact path of q[0..m) against r[0..n) as a global alignment (Myers-Miller, whose
 * leaves are full matrices), into res->cigar (cleared first). S is the optimal global
 * score of the span, from the score engine: every pass skips the cells that lie on no
 * path of that score, so the work follows the divergence (the path is the same as without
 * pruning). NW_NEG_INF: unknown, no pruning. A higher S than the optimum gives
 * NW_ERR_INTERNAL. */
int nw_cpu_path(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
		const uint8_t *r, int64_t n, int64_t S, nw_result_t *res);

/* The walk back of a full-matrix traceback from (m, n), in H (or in F when in_f), to
 * (0, 0): dir(ctx, i, j) gives cell (i, j)'s direction bits (path_full's: 1 H from E, 2 H
 * from F, else from the diagonal; 4 E extends; 8 F extends). The ops go to ops (m + n at
 * most), last op first; returns their number. */
int64_t nw_trace_back(const uint8_t *a, int64_t m, const uint8_t *b, int64_t n, int in_f,
		      int (*dir)(const void *ctx, int64_t i, int64_t j), const void *ctx,
		      uint8_t *ops);

/* One GACT tile t of the span q[0..m) x r[0..n) (src/path.h): the full-matrix traceback of
 * its reversed slices (row k = q[t->i - k], column k = r[t->j - k]) with row 0 opened at
 * t->top_open, column 0 at t->left_open, traced back from (tm, tn) in the H state. *ops
 * (workspace memory, valid until the next call) receives the *k ops from (0, 0) on, first
 * op first. Returns 0 or NW_ERR_MEMORY. */
int nw_cpu_gact_tile(nw_workspace_t *ws, const nw_scoring_t *sc, const uint8_t *q,
		     const uint8_t *r, const nw_gact_tile_t *t, const uint8_t **ops, int64_t *k);
/* The GACT path of q[0..m) against r[0..n) (tile size and overlap from nw_gact_params),
 * into res->cigar (cleared first) in forward order. Not checked: see nw_path_finish. */
int nw_cpu_gact(nw_workspace_t *ws, const nw_align_params_t *p, const uint8_t *q, int64_t m,
		const uint8_t *r, int64_t n, nw_result_t *res);

/* The start of a local or semiglobal alignment whose score and end cell res holds: a
 * reverse pass from the end cell that stops where the score is reached (res->qstart,
 * res->rstart). 0 or a negative NW_ERR_*. */
int nw_cpu_find_start(const nw_align_params_t *p, const uint8_t *q, const uint8_t *r,
		      nw_workspace_t *ws, nw_result_t *res);

/* The path over the span already in res (from nw_cpu_align or the GPU engine): the kind
 * nw_path_kind chooses (res->path_kind), then nw_path_finish's checks, statistics and,
 * for GACT, res->score = the path's score, res->opt_score = the optimum. */
int nw_cpu_align_path(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
		      const uint8_t *r, int64_t rlen, nw_workspace_t *ws, nw_result_t *res);

#endif
