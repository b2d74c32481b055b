/* band.h: how far from the main diagonal an alignment of a known score can stray.
 *
 * An alignment path from a fixed origin that uses at most a query rows and b reference
 * columns has x diagonal steps, I insertions (query residues against a gap) and D
 * deletions, with x <= a - I and x <= b - D. Each diagonal step scores at most M (the
 * best substitution score) and gaps cost O + L*E each, so a path of score >= S obeys
 *     S <= M*x - E*(I + D) - O*[I > 0] - O*[D > 0].
 * Hence, when I > 0,
 *     I <= (M*a - S - O) / (M + E)    (x <= a - I, D >= 0)
 *     I <= (M*b - S - O) / E          (x <= b)
 * and the same for D with a and b swapped. Every cell such a path visits lies on a
 * diagonal d = j - i (relative to the origin) with -I <= d <= D.
 *
 * That makes narrow bands exact where the score is already known (the passes after the
 * forward pass): cells off the band can be dropped, or left lower than their true values,
 * without changing the value of any cell on a path of score S, so the cells that reach S,
 * and the direction bits along such a path, are those of the full matrix. With a high
 * score (a read against its own window) the band is a few diagonals wide.
 */
#ifndef NW_BAND_H
#define NW_BAND_H

#include <stdint.h>

/* The most residues of one sequence that a path of score >= S can leave in gaps: own is
 * that sequence's length available to the path, other the other's; M the best
 * substitution score, O and E the gap costs. INT64_MAX when the scores give no bound. */
static inline int64_t nw_band_gaps(int64_t M, int64_t O, int64_t E, int64_t own, int64_t other, int64_t S)
{
	int64_t best = INT64_MAX;
	if (M + E > 0) {
		const int64_t num = M * own - S - O;
		if (num < 0) return 0;
		best = num / (M + E);
	}
	if (E > 0) {
		const int64_t num = M * other - S - O;
		if (num < 0) return 0;
		if (num / E < best) best = num / E;
	}
	return best;
}

/* The diagonals d = j - i (from the origin) of the cells that a global path of score >= S
 * over m x n can visit, where a leading vertical gap opens at tb and an ending one at te
 * (Myers-Miller sub-problems waive the open of a gap that continues across their split;
 * otherwise both are O). A path through diagonal d has at most m + min(0, d) +
 * min(0, n - m - d) diagonal steps, each scoring at most M (taken as 0 when negative),
 * and besides them |d| gap residues before that diagonal and |n - m - d| after it, each
 * run in at least one gap; the bound does not depend on where on the diagonal the cell
 * lies. Going away from [min(0, n - m), max(0, n - m)] it only falls, so the diagonals
 * where it reaches S are one interval, which holds that range whatever S. */
static inline int64_t nw_band_diag_bound(int64_t M, int64_t O, int64_t E, int64_t tb, int64_t te,
					 int64_t m, int64_t n, int64_t d)
{
	const int64_t D = n - m, Mp = M > 0 ? M : 0;
	int64_t b = Mp * (m + (d < 0 ? d : 0) + (D - d < 0 ? D - d : 0));
	if (d != 0)
		b -= (d < 0 ? tb : O) + E * (d < 0 ? -d : d);
	if (d != D)
		b -= (d > D ? te : O) + E * (d > D ? d - D : D - d);
	return b;
}

/* The interval's ends by bisection (the bound is monotone on either side of the range),
 * so that a band of thousands of diagonals costs a few dozen evaluations, not thousands:
 * the GPU path driver asks for one per Myers-Miller half. */
static inline void nw_band_diagonals(int64_t M, int64_t O, int64_t E, int64_t tb, int64_t te,
				     int64_t m, int64_t n, int64_t S, int64_t *dlo, int64_t *dhi)
{
	const int64_t D = n - m;
	int64_t a = -m, b = D < 0 ? D : 0; /* lowest: in [a, b], b always in */
	while (a < b) {
		const int64_t c = a + (b - a) / 2;
		if (nw_band_diag_bound(M, O, E, tb, te, m, n, c) >= S) b = c;
		else a = c + 1;
	}
	*dlo = b;
	a = D > 0 ? D : 0, b = n; /* highest: in [a, b], a always in */
	while (a < b) {
		const int64_t c = b - (b - a) / 2;
		if (nw_band_diag_bound(M, O, E, tb, te, m, n, c) >= S) a = c;
		else b = c - 1;
	}
	*dhi = a;
}

#endif
