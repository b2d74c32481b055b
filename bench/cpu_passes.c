/* cpu_passes.c: the CPU engine's passes alone, on one thread, for measuring a change to
 * them on a machine whose whole-command times spread too widely to show it.
 *
 *   gcc -O2 -I. -Isrc -Isrc/io -Isrc/cpu -o cpu_passes bench/cpu_passes.c libnwalign.a \
 *       -lpthread $(sed -n 's/^LIBS = //p' Makefile)
 *   ./cpu_passes [-m global|local|semiglobal] [-n RUNS] [-M MATCH] [-X MISMATCH]
 *                [-O OPEN] [-E EXTEND] QUERIES REFERENCES
 *
 * DNA pairs, record i of QUERIES with record i of REFERENCES (--pairs zip), match/mismatch
 * scoring (defaults: B's, 2 4 4 2). Both files are read and packed first; then each run
 * takes every pair through the pipeline's passes as a chunk of the CPU engine takes them
 * (src/pipeline/cpu_jobs.c, without threads): the plan and groups of the inter-sequence
 * passes and the per-pair engine for the pairs left over, ends first and the starts after
 * them where the engine finds them apart (local match/mismatch). NWALIGN_CPU_ISA and
 * NWALIGN_CPU_INTER choose as they do for nwalign. It prints the best and the median run
 * and a checksum of the results (scores and coordinates), so that two builds can be
 * compared for speed and for equal results in one go.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nwalign.h"
#include "cpu_align.h"
#include "cpu_inter.h"
#include "cpu_isa.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void die(const char *what)
{
	fprintf(stderr, "cpu_passes: %s\n", what);
	exit(1);
}

/* Every record of path, packed as DNA. */
static void read_all(const char *path, nw_batch_t *b)
{
	char err[512];
	nw_reader_t *r = nw_reader_open(path, err, sizeof err);
	if (!r || nw_reader_fill(r, INT64_MAX, UINT64_MAX, err, sizeof err) < 0 ||
	    nw_reader_encode(r, NW_ALPHA_DNA, b, err, sizeof err) < 0)
		die(err);
	nw_reader_close(r);
}

/* One pass over the pairs: a plan (of starts, or of scores and spans), its groups, and the
 * pairs it leaves to the per-pair engine. */
static void pass(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *rb,
		 const nw_pair_t *pairs, nw_result_t *res, int64_t n, nw_workspace_t *ws,
		 uint8_t *q, uint8_t *r)
{
	nw_inter_plan_t plan;
	const int isa = nw_cpu_isa();
	if ((p->starts_only ? nw_inter_plan_starts(p, res, n, isa, &plan)
			    : nw_inter_plan_paths(p, qb, rb, pairs, NULL, n, isa, &plan)) < 0)
		die("out of memory for a plan");
	for (int64_t g = 0; g < plan.n_groups; g++) {
		if (g + 1 < plan.n_groups) /* the next group ahead, as the pipeline's workers fetch
					    * it (they stop near the end, for the others' sake) */
			nw_inter_group_prefetch(qb, rb, pairs, &plan, g + 1);
		if (nw_inter_group(ws, p, qb, rb, pairs, &plan, g, res) < 0)
			die("a group failed");
	}
	for (int64_t k = 0; k < plan.n_rest; k++) {
		const nw_pair_t *x = &pairs[plan.rest[k]];
		nw_batch_unpack(qb, x->q, q);
		nw_batch_unpack(rb, x->r, r);
		if (nw_cpu_align(p, q, qb->len[x->q], r, rb->len[x->r], ws, &res[plan.rest[k]]) < 0)
			die("a pair failed");
	}
	nw_inter_plan_free(&plan);
}

static int by_value(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	nw_mode_t mode = NW_MODE_LOCAL;
	int runs = 11, ma = 2, mi = 4, go = 4, ge = 2, c;
	while ((c = getopt(argc, argv, "m:n:M:X:O:E:")) != -1) {
		if (c == 'm' && !strcmp(optarg, "global"))
			mode = NW_MODE_GLOBAL;
		else if (c == 'm' && !strcmp(optarg, "semiglobal"))
			mode = NW_MODE_SEMIGLOBAL;
		else if (c == 'm' && strcmp(optarg, "local"))
			die("-m takes global, local or semiglobal");
		else if (c == 'm')
			mode = NW_MODE_LOCAL;
		else if (c == 'n')
			runs = atoi(optarg) > 0 ? atoi(optarg) : 1;
		else if (c == 'M' || c == 'X' || c == 'O' || c == 'E')
			*(c == 'M' ? &ma : c == 'X' ? &mi : c == 'O' ? &go : &ge) = atoi(optarg);
		else
			die("usage: cpu_passes [-m global|local|semiglobal] [-n RUNS] [-M MATCH] "
			    "[-X MISMATCH] [-O OPEN] [-E EXTEND] QUERIES REFERENCES");
	}
	if (argc - optind != 2)
		die("give a query file and a reference file");
	nw_batch_t qb, rb;
	nw_batch_init(&qb, NW_ALPHA_DNA);
	nw_batch_init(&rb, NW_ALPHA_DNA);
	read_all(argv[optind], &qb);
	read_all(argv[optind + 1], &rb);
	nw_scoring_t sc;
	char err[256];
	if (nw_scoring_dna(&sc, ma, mi, go, ge, err, sizeof err) < 0)
		die(err);
	const int64_t n = qb.n < rb.n ? qb.n : rb.n;
	int64_t longest = 0;
	double cells = 0;
	nw_pair_t *pairs = malloc(sizeof *pairs * (size_t)(n ? n : 1));
	nw_result_t *res = calloc((size_t)(n ? n : 1), sizeof *res);
	if (!pairs || !res)
		die("out of memory");
	for (int64_t k = 0; k < n; k++) {
		pairs[k] = (nw_pair_t){(uint32_t)k, (uint32_t)k};
		cells += (double)qb.len[k] * (double)rb.len[k];
		longest = qb.len[k] > longest ? qb.len[k] : longest;
		longest = rb.len[k] > longest ? rb.len[k] : longest;
	}
	uint8_t *q = malloc((size_t)longest + 1), *r = malloc((size_t)longest + 1);
	nw_workspace_t *ws = nw_workspace_new();
	double *t = malloc(sizeof *t * (size_t)runs);
	if (!q || !r || !ws || !t)
		die("out of memory");
	const nw_align_params_t p = {.mode = mode, .sc = &sc};
	const int apart = nw_inter_starts_apart(&p);
	for (int k = 0; k < runs; k++) {
		const double t0 = now();
		nw_align_params_t sp = p;
		sp.ends_only = apart;
		pass(&sp, &qb, &rb, pairs, res, n, ws, q, r);
		if (apart) {
			sp.ends_only = 0;
			sp.starts_only = 1;
			pass(&sp, &qb, &rb, pairs, res, n, ws, q, r);
		}
		t[k] = now() - t0;
	}
	uint64_t check = 1469598103934665603ull; /* FNV-1a over every result's numbers */
	for (int64_t k = 0; k < n; k++) {
		const int64_t v[5] = {res[k].score, res[k].qstart, res[k].qend, res[k].rstart,
				      res[k].rend};
		for (int x = 0; x < 5; x++)
			check = (check ^ (uint64_t)v[x]) * 1099511628211ull;
	}
	qsort(t, (size_t)runs, sizeof *t, by_value);
	printf("%lld pairs, %.3g cells, %s, %s%s: best %.4f s (%.2f GCUPS), median %.4f s of %d "
	       "runs; check %016llx\n",
	       (long long)n, cells,
	       mode == NW_MODE_GLOBAL ? "global" : mode == NW_MODE_LOCAL ? "local" : "semiglobal",
	       nw_cpu_isa_name(nw_cpu_isa()), apart ? ", ends then starts" : "", t[0],
	       cells / t[0] / 1e9, t[runs / 2], runs, (unsigned long long)check);
	return 0;
}
