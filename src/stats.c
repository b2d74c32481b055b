/* stats.c: Karlin-Altschul statistics with Spouge's finite-size correction (stats.h).
 *
 * The parameters below are NCBI BLAST's published estimates for its protein matrices
 * (lambda, K; a, alpha and sigma of the gapped scoring; a and alpha of the ungapped one,
 * from which the intercepts b, beta and tau follow with G = open + extend:
 * b = 2G(a_ungapped - a), beta = 2G(alpha_ungapped - alpha), tau = 2G(alpha_ungapped -
 * sigma)). Gap costs are BLAST's "existence" and "extension", which are nwalign's
 * --gap-open and --gap-extend (a gap of L costs open + L * extend in both).
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

typedef struct {
	int open, extend;
	double lambda, K, a, alpha, sigma;
} ka_row_t;

typedef struct {
	const char *name;
	double a_ungapped, alpha_ungapped;
	const ka_row_t *rows;
	int n_rows;
} ka_table_t;

static const ka_row_t blosum45[] = {
	{13, 3, 0.207, 0.049, 1.5, 35.8559, 35.9639},   {12, 3, 0.199, 0.039, 1.8, 45.6936, 45.8517},
	{11, 3, 0.190, 0.031, 2.0, 62.8741, 63.1037},   {10, 3, 0.179, 0.023, 2.4, 88.2868, 88.6391},
	{16, 2, 0.210, 0.051, 1.5, 36.2798, 36.4524},   {15, 2, 0.203, 0.041, 1.7, 44.8257, 45.0604},
	{14, 2, 0.195, 0.032, 1.9, 60.7362, 61.1023},   {13, 2, 0.185, 0.024, 2.2, 85.1481, 85.6894},
	{12, 2, 0.171, 0.016, 2.8, 127.758, 128.582},   {19, 1, 0.205, 0.040, 1.9, 53.0714, 53.8282},
	{18, 1, 0.198, 0.032, 2.0, 72.3424, 73.4039},   {17, 1, 0.189, 0.024, 2.4, 103.055, 104.721},
	{16, 1, 0.176, 0.016, 2.8, 170.100, 173.003},
};
static const ka_row_t blosum50[] = {
	{13, 3, 0.212, 0.063, 1.1, 18.1138, 18.2028},   {12, 3, 0.206, 0.055, 1.2, 22.6546, 22.7777},
	{11, 3, 0.197, 0.042, 1.4, 29.8611, 30.0457},   {10, 3, 0.186, 0.031, 1.7, 42.3938, 42.6740},
	{9, 3, 0.172, 0.022, 2.1, 66.0696, 66.5164},    {16, 2, 0.215, 0.066, 1.05, 17.9518, 18.0921},
	{15, 2, 0.210, 0.058, 1.2, 21.9401, 22.1418},   {14, 2, 0.202, 0.045, 1.4, 28.6812, 28.9619},
	{13, 2, 0.193, 0.035, 1.6, 42.0595, 42.4716},   {12, 2, 0.181, 0.025, 1.9, 63.7476, 64.3973},
	{19, 1, 0.212, 0.057, 1.2, 26.3112, 26.9233},   {18, 1, 0.207, 0.050, 1.4, 34.9037, 35.7348},
	{17, 1, 0.198, 0.037, 1.6, 48.8958, 50.1486},   {16, 1, 0.186, 0.025, 1.9, 76.4691, 78.4430},
	{15, 1, 0.171, 0.015, 2.7, 140.053, 144.160},
};
static const ka_row_t blosum62[] = {
	{11, 2, 0.297, 0.082, 1.1, 12.6738, 12.7576},   {10, 2, 0.291, 0.075, 1.3, 16.4740, 16.6026},
	{9, 2, 0.279, 0.058, 1.5, 22.7519, 22.9500},    {8, 2, 0.264, 0.045, 1.8, 35.4838, 35.8213},
	{7, 2, 0.239, 0.027, 2.5, 61.2383, 61.8860},    {6, 2, 0.201, 0.012, 3.3, 140.417, 141.882},
	{13, 1, 0.292, 0.071, 1.2, 19.5063, 19.8931},   {12, 1, 0.283, 0.059, 1.5, 27.8562, 28.4699},
	{11, 1, 0.267, 0.041, 1.9, 42.6028, 43.6362},   {10, 1, 0.243, 0.024, 2.5, 83.1787, 85.0656},
	{9, 1, 0.206, 0.010, 4.0, 210.333, 214.842},
};
static const ka_row_t blosum80[] = {
	{25, 2, 0.342, 0.17, 0.52, 1.73100, 1.73130},   {13, 2, 0.336, 0.15, 0.59, 2.67347, 2.69230},
	{9, 2, 0.319, 0.11, 0.76, 5.57609, 5.66786},    {8, 2, 0.308, 0.090, 0.89, 7.53695, 7.68623},
	{7, 2, 0.293, 0.070, 1.1, 11.5866, 11.8404},    {6, 2, 0.268, 0.045, 1.4, 19.9581, 20.4412},
	{11, 1, 0.314, 0.095, 0.90, 8.80861, 9.22332},  {10, 1, 0.299, 0.071, 1.1, 13.8338, 14.5334},
	{9, 1, 0.279, 0.048, 1.4, 24.2520, 25.4904},
};
static const ka_row_t pam250[] = {
	{15, 3, 0.205, 0.049, 1.6, 34.5784, 34.9280},   {14, 3, 0.200, 0.043, 1.7, 43.3530, 43.4438},
	{13, 3, 0.194, 0.036, 1.9, 50.9485, 51.0817},   {12, 3, 0.186, 0.029, 2.2, 69.6065, 69.7936},
	{11, 3, 0.174, 0.020, 2.5, 98.6535, 98.9271},   {17, 2, 0.204, 0.047, 1.7, 41.5838, 41.7358},
	{16, 2, 0.198, 0.038, 1.8, 51.6352, 51.8439},   {15, 2, 0.191, 0.031, 2.2, 67.2567, 67.5585},
	{14, 2, 0.182, 0.024, 2.5, 96.3151, 96.7568},   {13, 2, 0.171, 0.017, 2.9, 135.653, 136.339},
	{21, 1, 0.205, 0.045, 1.8, 48.7282, 49.2188},   {20, 1, 0.199, 0.037, 1.9, 60.8320, 61.5141},
	{19, 1, 0.192, 0.029, 2.3, 84.0197, 84.9856},   {18, 1, 0.183, 0.021, 2.6, 113.829, 115.184},
	{17, 1, 0.171, 0.014, 3.3, 175.071, 177.196},
};

#define ROWS(t) (t), (int)(sizeof(t) / sizeof((t)[0]))
static const ka_table_t tables[] = {
	{"blosum45", 0.9113, 9.61106, ROWS(blosum45)}, {"blosum50", 0.6895, 5.38831, ROWS(blosum50)},
	{"blosum62", 0.7916, 4.96466, ROWS(blosum62)}, {"blosum80", 0.5222, 1.91813, ROWS(blosum80)},
	{"pam250", 0.98, 11.7543, ROWS(pam250)},
};

int nw_ka_lookup(const char *matrix, int gap_open, int gap_extend, nw_ka_t *ka, char *list,
		 size_t listlen)
{
	char lower[16] = {0};
	for (size_t i = 0; matrix && matrix[i] && i + 1 < sizeof lower; i++)
		lower[i] = (char)tolower((unsigned char)matrix[i]);
	const ka_table_t *t = NULL;
	for (size_t k = 0; matrix && k < sizeof tables / sizeof tables[0]; k++)
		if (strlen(matrix) < sizeof lower && strcmp(lower, tables[k].name) == 0)
			t = &tables[k];
	for (int r = 0; t && r < t->n_rows; r++) {
		const ka_row_t *w = &t->rows[r];
		if (w->open != gap_open || w->extend != gap_extend)
			continue;
		const double G = gap_open + gap_extend;
		ka->lambda = w->lambda;
		ka->K = w->K;
		ka->a = w->a;
		ka->alpha = w->alpha;
		ka->sigma = w->sigma;
		ka->b = 2 * G * (t->a_ungapped - w->a);
		ka->beta = 2 * G * (t->alpha_ungapped - w->alpha);
		ka->tau = 2 * G * (t->alpha_ungapped - w->sigma);
		return 0;
	}
	if (list && listlen) {
		size_t at = (size_t)snprintf(list, listlen, "%s", t ? "" : "none");
		for (int r = 0; t && r < t->n_rows && at < listlen; r++)
			at += (size_t)snprintf(list + at, listlen - at, "%s%d/%d", r ? ", " : "",
					       t->rows[r].open, t->rows[r].extend);
	}
	return -1;
}

double nw_ka_bits(const nw_ka_t *ka, int64_t score)
{
	return (ka->lambda * (double)score - log(ka->K)) / log(2.0);
}

/* E[(len - L)^+] for L normal with the given mean and variance, and P(L < len). */
static double room(double len, double mean, double var, double *below)
{
	const double sd = sqrt(var), z = (len - mean) / sd;
	*below = 0.5 * erfc(-z / sqrt(2.0));
	return (len - mean) * *below + sd * exp(-0.5 * z * z) * 0.3989422804014327; /* 1/sqrt(2 pi) */
}

double nw_ka_evalue(const nw_ka_t *ka, int64_t score, int64_t qlen, int64_t slen,
		    double db_residues)
{
	const double y = (double)score;
	/* the variances are floored as BLAST floors them: at least 2 alpha / lambda */
	const double var = fmax(2 * ka->alpha / ka->lambda, ka->alpha * y + ka->beta);
	const double cov = fmax(2 * ka->sigma / ka->lambda, ka->sigma * y + ka->tau);
	const double mean = ka->a * y + ka->b;
	double pq, ps;
	const double rq = room((double)qlen, mean, var, &pq);
	const double rs = room((double)slen, mean, var, &ps);
	double e = (rq * rs + cov * pq * ps) * ka->K * exp(-ka->lambda * y);
	if (db_residues > 0 && slen > 0)
		e *= db_residues / (double)slen;
	return e;
}
