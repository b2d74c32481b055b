/* dp_full.h: a deliberately simple oracle for the CPU engine (tests only).
 *
 * Full-matrix Gotoh with three int64 matrices H, E, F of (m+1) x (n+1): no banding, no
 * linear-memory tricks, no early exits. It computes what the contract in nwalign.h
 * ("CPU engine") defines:
 *  - global: the whole of both sequences, start (0,0), end (m,n);
 *  - local: end at the cell of maximum score with the smallest reference end, then the
 *    smallest query end; a best score of 0 gives the empty span [0,0) on both;
 *  - semiglobal: the query end to end, reference overhangs free; end on the last query
 *    row at the smallest reference end of maximum score.
 * The start is the largest reference start, then the largest query start, from which a
 * (global) alignment of q[qstart..qend) x r[rstart..rend) reaches the score; candidates
 * are (0,0) for global, (0, j0) for semiglobal and any (i0, j0) for local. It is found
 * either by brute force (one full global DP per candidate start, O(n^4)) or from one
 * global DP over the reversed prefixes (the same numbers, O(n^2)).
 *
 * A gap of length L costs gap_open + L * gap_extend; score[q][r] is the substitution.
 */
#ifndef NW_TESTS_DP_FULL_H
#define NW_TESTS_DP_FULL_H

#include <stddef.h>
#include <stdint.h>

#include "nwalign.h"

typedef struct {
	int64_t score;
	int64_t qstart, qend, rstart, rend;
} dpf_result_t;

enum {
	DPF_START_AUTO = 0,    /* brute force for small end regions, else reversed DP */
	DPF_START_BRUTE = 1,   /* one global DP per candidate start */
	DPF_START_REVERSE = 2  /* one global DP over the reversed prefixes */
};

/* Global (end to end) Gotoh score of q[0..m) x r[0..n); either may be empty. Returns
 * INT64_MIN when memory runs out. */
int64_t dpf_global_score(const nw_scoring_t *sc, const uint8_t *q, int64_t m,
			 const uint8_t *r, int64_t n);

/* Score, end and start of the optimal alignment of q[0..m) with r[0..n) in mode.
 * Returns 0, -1 when memory runs out, -2 when no start reaches the score (a bug here). */
int dpf_align(nw_mode_t mode, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
	      const uint8_t *r, int64_t n, int start_method, dpf_result_t *out);

/* The same answer as dpf_align in memory linear in the lengths (two rows at a time), for
 * pairs too large for the full matrices: a forward pass that keeps the best cell by the
 * tie rule, then a global pass over the reversed prefixes with the reference along the
 * rows, so that rows come in order of decreasing reference start and each row holds every
 * query start. Returns 0, -1 when memory runs out, -2 when no start reaches the score. */
int dpf_align_lin(nw_mode_t mode, const nw_scoring_t *sc, const uint8_t *q, int64_t m,
		  const uint8_t *r, int64_t n, dpf_result_t *out);

/* Check that a CIGAR (I, D, =, X; no zero lengths, no two neighbouring runs of one op)
 * consumes exactly q[qstart..qend) x r[rstart..rend), that '=' joins identical codes and
 * 'X' different ones, and score it independently: substitutions from sc->score, each
 * I or D run of length L costs gap_open + L * gap_extend. Returns 0 and sets *score, or
 * -1 with a message. */
int dpf_check_path(const uint32_t *cigar, int64_t n_cigar, const nw_scoring_t *sc,
		   const uint8_t *q, int64_t m, const uint8_t *r, int64_t n, int64_t qstart,
		   int64_t qend, int64_t rstart, int64_t rend, int64_t *score, char *msg,
		   size_t msglen);

/* Mode name for messages. */
const char *dpf_mode_name(nw_mode_t mode);

#endif
