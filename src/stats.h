/* stats.h: the statistics of local alignment scores (Karlin and Altschul), for the bit
 * scores and E-values of `-f blast6`, as BLAST's blastp computes them.
 *
 * A scoring has statistics when it is one of the built-in protein matrices (blosum45,
 * blosum50, blosum62, blosum80, pam250) with a gap cost for which NCBI BLAST publishes
 * the parameters (its tables of lambda, K and the finite-size correction, estimated by
 * simulation); there is no formula for any other scoring, so other scorings have none.
 *
 * The E-value of a local alignment of score y between a query of m residues and a
 * subject of n is Spouge's finite-size corrected form: K e^{-lambda y} times the expected
 * area of the search space that such an alignment leaves, where the alignment's length
 * along each sequence is taken as normal with mean a y + b and variance alpha y + beta,
 * and the two lengths have covariance sigma y + tau (Park, Sheetlin, Ma, Mott and Spouge,
 * BMC Bioinformatics 2012). A database search scales it by the database's residues over
 * n. The bit score is (lambda y - ln K) / ln 2.
 */
#ifndef NW_STATS_H
#define NW_STATS_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	double lambda, K;
	double a, b;          /* the mean length of an alignment of score y: a y + b */
	double alpha, beta;   /* its variance: alpha y + beta */
	double sigma, tau;    /* the covariance of the two lengths: sigma y + tau */
} nw_ka_t;

/* The parameters of matrix (a built-in name, any case) with gaps of open + L * extend;
 * 0, or -1 when none are published (then, when list is not NULL, the gap costs that have
 * them, "11/1, 10/1, ..." or "none", go to list). */
int nw_ka_lookup(const char *matrix, int gap_open, int gap_extend, nw_ka_t *ka, char *list,
		 size_t listlen);

double nw_ka_bits(const nw_ka_t *ka, int64_t score);

/* The E-value of score against a query of qlen and a subject of slen residues; with
 * db_residues > 0, of a search of a database of that many residues (BLAST's database
 * scaling); with 0, of the pair alone (BLAST's two-sequence mode). */
double nw_ka_evalue(const nw_ka_t *ka, int64_t score, int64_t qlen, int64_t slen,
		    double db_residues);

#endif
