/* path.h: which path a pair takes, GACT tiling, and the checks every path passes.
 *
 * Shared by the CPU engine and the GPU engine so that both make the same decisions and
 * produce the same CIGAR for the same pair:
 *
 *   span (qend - qstart) x (rend - rstart) cells, from the score engines
 *     (m + 1) * (n + 1) <= NW_PATH_FULL_CELLS  -> NW_PATH_FULL: one full matrix of
 *                                                 direction bits, traced back (exact)
 *     else with --gact                         -> NW_PATH_GACT: GACT tiles (heuristic);
 *                                                 a path short of the optimum by more than
 *                                                 --max-deficit is recomputed exactly and
 *                                                 becomes NW_PATH_REDONE
 *     else (the default)                       -> NW_PATH_EXACT: Myers-Miller divide and
 *                                                 conquer in linear memory (exact)
 *
 * Every path is a global alignment of the span. Ties between equally good moves are
 * broken by one rule everywhere (the diagonal before a horizontal gap before a vertical
 * gap; a gap is opened rather than extended when both score the same), so the CPU and the
 * GPU trace the same path through the same matrix.
 *
 * GACT (Darwin, Turakhia et al. 2018) as done here: tiles run backwards from the end of
 * the span to its start. The tile at anchor (i, j) (the path so far covers q[i..m) and
 * r[j..n) of the span) covers q[i - tm, i) x r[j - tn, j) with tm = min(T, i) and
 * tn = min(T, j). It is solved as a global problem on the reversed slices, starting at the
 * anchor in the state the kept path left (inside a horizontal or vertical gap, whose open
 * was already paid, or at a node), and traced back from its far corner. Unless the tile
 * reaches the span start in both sequences, only the ops that keep the path within
 * T - O rows and T - O columns of the anchor are kept (a sequence whose start lies inside
 * the tile is not limited); the next anchor is where the kept ops end. */
#ifndef NW_PATH_H
#define NW_PATH_H

#include "nwalign.h"

enum {
	NW_PATH_NONE = 0,
	NW_PATH_FULL = 1,   /* full direction matrix (exact) */
	NW_PATH_GACT = 2,   /* GACT tiles (heuristic; os:i carries the optimum) */
	NW_PATH_EXACT = 3,  /* Myers-Miller divide and conquer (exact) */
	NW_PATH_REDONE = 4, /* a GACT path too far below the optimum, recomputed as EXACT */
	NW_PATH_KINDS = 5
};

/* Spans up to this many (m + 1) * (n + 1) cells are traced back from one full matrix:
 * 2 MiB of direction bits on the GPU (4 bits a cell), 4 MiB on the CPU (a byte a cell).
 * It is also the size below which Myers-Miller stops splitting. */
#define NW_PATH_FULL_CELLS ((int64_t)1 << 22)

#define NW_GACT_TILE_DEFAULT 320
#define NW_GACT_OVERLAP_DEFAULT 120
/* --max-deficit's default: a GACT path more than 1 % of |optimum| below it is recomputed. */
#define NW_GACT_MAX_DEFICIT 0.01

/* The tile size T and overlap O of a run: p->tile and p->overlap as they are (the options
 * resolve their own defaults, so O = 0 is a real overlap), or both defaults when p->tile
 * is 0 (a zero-initialised nw_align_params_t). Every engine takes T and O from here. */
void nw_gact_params(const nw_align_params_t *p, int *T, int *O);

/* Which path a span of m x n takes (m, n >= 1). The environment variable
 * NW_PATH_FULL_CELLS, when set, replaces the full-matrix limit (benchmarks: 0 measures
 * GACT on spans of any size). */
int nw_path_kind(const nw_align_params_t *p, int64_t m, int64_t n);
/* "none", "full", "gact", "exact", "redone" */
const char *nw_path_kind_name(int kind);

/* ---------------------------------------------------------------- GACT state
 * One pair's walk through its tiles. The caller loops:
 *   nw_gact_begin(&g, m, n);
 *   while (nw_gact_next(&g, T, &t)) { solve t into ops; nw_gact_take(&g, &t, ops, k, res); }
 *   nw_gact_end(&g, res);
 * res->cigar collects the kept ops from the end of the span backwards; nw_gact_end puts
 * them in forward order. */
enum { NW_GACT_AT_NODE = 0, NW_GACT_IN_D = 1, NW_GACT_IN_I = 2 };

typedef struct {
	int64_t m, n;     /* span lengths */
	int64_t i, j;     /* anchor: what is left of the span is q[0, i) x r[0, j) */
	int state;        /* NW_GACT_*: how the kept path enters the anchor */
	int64_t tiles;    /* tiles solved so far */
} nw_gact_t;

/* One tile: rows are the query, reversed: row k (1-based) is span residue q[i - k];
 * column k is r[j - k]. Solve as a global DP with
 *   H[0][c] = -(top_open + c * ext)  for c >= 1 (a horizontal gap, i.e. D ops)
 *   H[r][0] = -(left_open + r * ext) for r >= 1 (a vertical gap, i.e. I ops)
 * and trace back from (tm, tn) in the H state. ops: the path from (0, 0) to (tm, tn),
 * one op a step (NW_CIGAR_EQ, X, I, D), first op first. */
typedef struct {
	int64_t i, j;          /* anchor (span coordinates) */
	int64_t tm, tn;        /* rows (query residues) and columns (reference residues) */
	int32_t top_open, left_open;
	int last;              /* reaches the span start in both sequences: keep every op */
	int64_t row_limit, col_limit; /* ops are kept while rows <= row_limit, cols <= col_limit */
} nw_gact_tile_t;

void nw_gact_begin(nw_gact_t *g, int64_t m, int64_t n);
/* The next tile (T: tile size, O: overlap; 0 <= O < T). Returns 0 when the path is done. */
int nw_gact_next(const nw_gact_t *g, int T, int O, const nw_align_params_t *p,
		 nw_gact_tile_t *t);
/* Keep the tile's ops up to its limits (run-length pushed to res->cigar), move the anchor
 * and the state. ops[0..k) as described above. Returns 0 or NW_ERR_MEMORY /
 * NW_ERR_INTERNAL (no progress, or ops that do not reach the far corner). */
int nw_gact_take(nw_gact_t *g, const nw_gact_tile_t *t, const uint8_t *ops, int64_t k,
		 nw_result_t *res);
/* Reverse res->cigar into forward order. */
void nw_gact_end(nw_gact_t *g, nw_result_t *res);

/* 1 when a GACT path scoring path_score falls short of the optimum opt by more than
 * p->max_deficit * |opt| (then it is recomputed exactly), else 0. */
int nw_gact_too_short(const nw_align_params_t *p, int64_t path_score, int64_t opt);

/* ---------------------------------------------------------------- Myers-Miller split
 * The CPU recursion's (cpu_path.c); the GPU's breadth-first one splits on the device by
 * the same rule (src/gpu/path_dp.cuh, nw_psplit), so that both split every sub-problem at
 * the same place. HF, FF: row mid of the upper half (H, and ending in a vertical gap), HR,
 * FR: the same for the reversed lower half, n + 1 entries each (HR[n - j] pairs with
 * HF[j]). Returns the column and sets *through_gap. First best j wins; at one j the node
 * wins over the gap. */
int64_t nw_mm_split(const int64_t *HF, const int64_t *FF, const int64_t *HR, const int64_t *FR,
		    int64_t n, int64_t gap_open, int *through_gap);

/* ---------------------------------------------------------------- checks
 * After an engine filled res->cigar (path_kind set) over the span in res: rescore the
 * path. FULL, EXACT and REDONE paths must score res->score exactly; a GACT path may score less:
 * then res->opt_score keeps the optimum and res->score becomes the path's score. Fills
 * matches, aln_len and edits. Returns 0, or NW_ERR_INTERNAL with a logged message. */
int nw_path_finish(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
		   const uint8_t *r, int64_t rlen, nw_result_t *res);

#endif
