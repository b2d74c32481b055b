/* cpu_inter.h: the CPU engine's inter-sequence passes, one pair per SIMD lane.
 *
 * Short pairs gain little from striping one query across the lanes (the lazy-F loop and
 * the per-pair set-up dominate); here every lane holds a pair of its own, and a group of
 * VL pairs (8, 16 or 32, cpu_isa.h) runs one Gotoh pass in 16-bit lanes: score and end
 * cell, then, for local and semiglobal, a reverse pass from the end cell for the start.
 * The starts of local match/mismatch pairs are found after all the chunk's end cells, in
 * groups regrouped by how far their paths can stray from the diagonal, whose reverse
 * passes compute only that band (nw_inter_plan_starts).
 * The results follow the scalar engine's tie rules exactly (cpu_align.c).
 *
 * Substitution scores come in one of three forms:
 *   match/mismatch (INTER_MM): the scoring gives `match` to two equal codes below some K
 *     and `mismatch` (<= 0) to every other pair (nwalign's DNA scoring): one compare a
 *     cell, whatever the pairs; codes at or past K are made unequal to everything;
 *   profile (INTER_PROFILE): any matrix, for groups whose pairs share the query
 *     (all-against-all, a database search): each reference column's scores are looked up
 *     once per column for every query code;
 *   table (INTER_TABLE): any matrix, any pairs: each cell's score is gathered from a
 *     32 x 32 table (the path passes of matrix pairs, which share nothing);
 *   anchored profile (INTER_ANCHORED): the local reverse pass of a profile group. Its
 *     lanes' reversed query prefixes differ, but each is a suffix of the whole reversed
 *     query: the rows are that (shared, as in the profile form), and lane l starts at row
 *     top[l] = qlen - qend, above which its cells are held far below any score.
 * Pairs too long for 16 bits, and matrix pairs that share no query, take the per-pair
 * passes.
 *
 * Narrow passes: a local profile group runs first in 8-bit lanes, twice as many pairs a
 * vector (as the saturating passes of SWIPE and parasail do): protein scores of unrelated
 * pairs stay far below 127. Its forward pass, and the anchored reverse pass of the lanes
 * that did not saturate, give the same results as the 16-bit passes (inter_kernel.h says
 * why); a lane whose best reaches 127 runs again in 16 bits. Its lanes are streams: a
 * group holds up to NW_INTER_STREAM_PAIRS pairs a lane of one query, and each lane takes
 * its references one after another, so that the pass sweeps the references' total length,
 * not each group's longest in every lane. A global match/mismatch
 * group (DNA's global pairs) runs in 8-bit lanes too, 2 * lanes pairs a group: its pass
 * keeps the differences between neighbouring cells, which the scores and gaps bound
 * (inter_diff_kernel.h), and adds a lane's up to its score; it never saturates.
 */
#ifndef NW_CPU_INTER_H
#define NW_CPU_INTER_H

#include "cpu_align.h"

#define NW_INTER_MAX_LANES 64 /* 8-bit lanes of AVX-512 */
enum { INTER_MM, INTER_PROFILE, INTER_TABLE, INTER_ANCHORED };
#define INTER_TABLE_PAD 31 /* the table's code for padding, past every alphabet */
#define INTER_BLOCK 4      /* reference columns a step of the passes */
#define NW_INTER_STREAM_PAIRS 16 /* a stream group's pairs: at most this many a lane */

/* One pass over a group (the template's input). Rows are query positions 1..rows, columns
 * reference positions 1..cols; lane l's pair is m[l] x n[l] (0 x 0 for an empty lane) and
 * its cells past those lengths are padding, which can never win (their scores are <= 0).
 * Boundaries and tracks as in st_pass_t (cpu_align.h). */
typedef struct {
	int64_t rows, cols;
	int form;                   /* INTER_* */
	const int16_t *qc;          /* MM: [rows][VL] query codes; TABLE: the same times 32 */
	const void *rc;             /* [cols rounded up to INTER_BLOCK][VL] reference codes, in
				     * lanes of the pass's width */
	int narrow;                 /* 8-bit lanes (PROFILE and local MM with track MAX,
				     * ANCHORED; global MM with track NONE, by differences;
				     * banded MM with track TARGET, each lane offset by its
				     * target) */
	const uint8_t *qs;          /* PROFILE: the shared query's codes [rows] */
	const int16_t (*st)[NW_MAX_CODES]; /* PROFILE: st[ref code][query code] */
	const int32_t *table;       /* TABLE: [query code * 32 + ref code] */
	int n_codes;
	int16_t match, mismatch;    /* match/mismatch form: the two scores */
	int16_t O, X;
	int local, ref_free;
	dp_track_t track;
	int32_t m[NW_INTER_MAX_LANES], n[NW_INTER_MAX_LANES];
	int32_t target[NW_INTER_MAX_LANES];
	int32_t top[NW_INTER_MAX_LANES];  /* ANCHORED: the row where lane l's pass starts */
	int banded;                 /* MM with track TARGET: a block's rows within the band
				     * about its columns' diagonal only (rows i of column j with
				     * j - above <= i <= j + below), the others held at the
				     * lanes' floor (inter_kernel.h; nw_inter_plan_starts) */
	int32_t below, above;
	uint16_t *dir;              /* NULL, or a global pass (MM or TABLE, track NONE) leaves
				     * its direction bits here (inter_kernel.h) */
	/* PROFILE with track MAX: NULL, or lanes that take several pairs one after another
	 * (cpu_inter.c's streams). Lane l's pairs are segments seg_first[l] ..
	 * seg_first[l + 1] - 1, in column order; segment s's columns follow column
	 * seg_col0[s], a multiple of INTER_BLOCK; bit l of fresh[b] says that lane l begins
	 * its next segment with block b (columns b * INTER_BLOCK + 1 on). Each segment's
	 * best and end cell go to seg_out[s] (its own columns, 0 0 when its best is 0). */
	const int32_t *seg_first, *seg_col0;
	const uint64_t *fresh;
	struct inter_seg_s *seg_out;
	void *H, *E, *P, *A;        /* scratch (cpu_inter.c's pass_memory) */
} inter_pass_t;

/* A segment's result (inter_pass_t's streams). */
typedef struct inter_seg_s {
	int32_t score, qend, rend;
} inter_seg_t;

typedef struct {
	int32_t score[NW_INTER_MAX_LANES];
	int32_t row[NW_INTER_MAX_LANES];  /* reference end (-1: target not reached) */
	int32_t col[NW_INTER_MAX_LANES];  /* query end */
} inter_hits_t;

/* The pass with the given instruction set (cpu_inter.c); lanes = nw_cpu_isa_lanes(isa), twice
 * that when p->narrow. */
void nw_inter_pass(int isa, const inter_pass_t *p, inter_hits_t *out);

/* A chunk's plan: which pairs go through the inter-sequence passes, in groups. */
typedef struct {
	int isa, lanes;
	int narrow;                 /* groups hold 2 * lanes pairs and run in 8 bits: local
				     * profile groups first (cpu_inter.c's narrow_ok), local
				     * match/mismatch groups for end cells first (local8_ok),
				     * global match/mismatch groups by differences (diff_ok) */
	int64_t *order;             /* pair indices, grouped */
	int64_t *group_end;         /* group g is order[g ? group_end[g - 1] : 0 .. group_end[g]) */
	int64_t n_groups;
	int64_t *rest;              /* the other pairs, for the per-pair passes */
	int64_t n_rest;
	int streams;                /* narrow profile groups of one query and up to
				     * NW_INTER_STREAM_PAIRS pairs a lane, whose references
				     * follow one another in the lanes (cpu_inter.c's
				     * stream_group) */
	int paths;                  /* a plan of paths (nw_inter_plan_paths) */
	int starts;                 /* a plan of starts (nw_inter_plan_starts) */
	int64_t n_narrow;           /* a plan of starts: groups [0, n_narrow) hold up to
				     * 2 * lanes pairs, in 8-bit lanes */
} nw_inter_plan_t;

/* Plans the n pairs (JOB_ALIGN's work) for instruction set isa (nw_cpu_isa(), or one that
 * nw_cpu_isa_supported says runs here). Returns 0, or
 * NW_ERR_MEMORY. When nothing fits, every pair is in rest; so it is with the environment
 * variable NWALIGN_CPU_INTER=0 (tests and benchmarks: the per-pair passes only). */
int nw_inter_plan(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
		  const nw_pair_t *pairs, int64_t n, int isa, nw_inter_plan_t *plan);
/* The same for the paths of n pairs whose scores and spans res holds (JOB_PATHS): groups
 * of spans of like sizes, whatever their pairs, for one global pass with direction bits. */
int nw_inter_plan_paths(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
			const nw_pair_t *pairs, const nw_result_t *res, int64_t n, int isa,
			nw_inter_plan_t *plan);
/* The starts of a local match/mismatch chunk whose scores and end cells res holds
 * (p->starts_only): the reverse passes in groups of like bands (nw_inter_start_band),
 * which leave out the cells that no path reaching a lane's score can pass through. */
int nw_inter_plan_starts(const nw_align_params_t *p, const nw_result_t *res, int64_t n, int isa,
			 nw_inter_plan_t *plan);
void nw_inter_plan_free(nw_inter_plan_t *plan);

/* 1 when the CPU engine finds the starts of p's chunks (local, match/mismatch, no paths)
 * after all their scores and end cells, by nw_inter_plan_starts, rather than group by
 * group: the end cells regroup the pairs by band. */
int nw_inter_starts_apart(const nw_align_params_t *p);
/* 1 when the starts of p's pairs (p->starts_only) take nw_inter_plan_starts's groups. */
int nw_inter_starts_grouped(const nw_align_params_t *p);

/* How far (in cells) from its diagonal a path from the end cell of a local result rs
 * (over the reversed prefixes: rows of the query, columns of the reference) can stray and
 * still reach its score: *below, with more query than reference behind it (row - column),
 * *above, the other way. Being d cells off the diagonal takes d gap cells at least (a gap's
 * opening and d extensions), against at most min(qend, rend) substitutions of the best
 * score, and d fewer of them on the side whose sequence the gap cells consume. */
void nw_inter_start_band(const nw_scoring_t *sc, const nw_result_t *rs, int64_t *below,
			 int64_t *above);

/* Scores, spans and (p->want_path) paths of group g of the plan into res[], as
 * nw_cpu_align would give them; in a plan of paths, the paths, as nw_cpu_align_path
 * would; in a plan of starts, the starts. Returns 0 or a negative NW_ERR_*. */
int nw_inter_group(nw_workspace_t *ws, const nw_align_params_t *p, const nw_batch_t *qb,
		   const nw_batch_t *rb, const nw_pair_t *pairs, const nw_inter_plan_t *plan,
		   int64_t g, nw_result_t *res);

/* Brings group g's packed sequences into this core's caches, to be read by a later
 * nw_inter_group(g) on the same thread: a group's sequences lie all over the set, in
 * memory that the reader's thread filled. */
void nw_inter_group_prefetch(const nw_batch_t *qb, const nw_batch_t *rb, const nw_pair_t *pairs,
			     const nw_inter_plan_t *plan, int64_t g);

#endif
