/* unit_checks.c: the write stage's checks of the GPU's paths (src/pipeline/path_checks.c),
 * without a device. Results as the GPU engine leaves them (the CPU engine's paths with what
 * the checks compute taken away: the path's own score, matches, columns and edits; marked
 * unchecked) must come out of nw_check_paths equal to the CPU engine's checked results, on
 * both strands (a reverse-strand result carries query coordinates, its path those of the
 * reverse complement), in every mode, whatever the size of the checking team. Results not
 * marked are left alone; a path one residue too long, or a score its path does not reach,
 * fails the chunk with an internal error. Data: the bundled reads against the bundled
 * references, and real lambda reads paired with other lambda reads when the shared data is
 * there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "testutil.h"

static int read_batch(const char *path, nw_batch_t *b, int64_t most)
{
	char err[256];
	nw_reader_t *r = nw_reader_open(path, err, sizeof err);
	if (!r)
		return -1;
	nw_batch_init(b, NW_ALPHA_DNA);
	int64_t got = nw_reader_fill(r, most, UINT64_MAX, err, sizeof err);
	if (got > 0)
		got = nw_reader_encode(r, NW_ALPHA_DNA, b, err, sizeof err);
	nw_reader_close(r);
	if (got < 0)
		fprintf(stderr, "%s: %s\n", path, err);
	return got < 0 ? -1 : 0;
}

/* The CPU engine's checked result of pair pr on strand s (s = 1: the query's reverse
 * complement, coordinates mirrored onto the query as the pipeline reports them). */
static void cpu_result(const nw_align_params_t *p, const nw_batch_t *qb, const nw_batch_t *q_rc,
		       const nw_batch_t *rb, nw_pair_t pr, int s, nw_workspace_t *ws,
		       nw_result_t *res)
{
	const nw_batch_t *q = s ? q_rc : qb;
	const int64_t qlen = q->len[pr.q], rlen = rb->len[pr.r];
	uint8_t *qc = malloc((size_t)qlen + 1), *rc = malloc((size_t)rlen + 1);
	nw_batch_unpack(q, pr.q, qc);
	nw_batch_unpack(rb, pr.r, rc);
	memset(res, 0, sizeof *res);
	const int ret = nw_cpu_align(p, qc, qlen, rc, rlen, ws, res);
	CHECK(ret == 0, "the CPU engine failed on pair %u/%u", pr.q, pr.r);
	res->strand = s;
	if (s) {
		const int64_t qs = res->qstart;
		res->qstart = qlen - res->qend;
		res->qend = qlen - qs;
	}
	free(qc);
	free(rc);
}

/* res as the GPU engine would leave it: the optimum as its score, no statistics, marked;
 * its own copy of the CIGAR. */
static void as_gpu_left_it(const nw_result_t *done, nw_result_t *res)
{
	*res = *done;
	res->cigar = NULL;
	res->n_cigar = res->m_cigar = 0;
	res->cigar_lent = 0;
	if (done->n_cigar > 0) {
		res->cigar = malloc((size_t)done->n_cigar * sizeof *res->cigar);
		memcpy(res->cigar, done->cigar, (size_t)done->n_cigar * sizeof *res->cigar);
		res->n_cigar = res->m_cigar = done->n_cigar;
	}
	res->score = done->opt_score;
	res->matches = res->aln_len = res->edits = -7;
	res->unchecked = 1;
}

static int same_result(const nw_result_t *a, const nw_result_t *b)
{
	if (a->score != b->score || a->opt_score != b->opt_score || a->qstart != b->qstart ||
	    a->qend != b->qend || a->rstart != b->rstart || a->rend != b->rend ||
	    a->matches != b->matches || a->aln_len != b->aln_len || a->edits != b->edits ||
	    a->path_kind != b->path_kind || a->n_cigar != b->n_cigar || a->strand != b->strand ||
	    a->unchecked != b->unchecked)
		return 0;
	return a->n_cigar <= 0 || memcmp(a->cigar, b->cigar, (size_t)a->n_cigar * sizeof *a->cigar) == 0;
}

/* One chunk: the n pairs (every second one on the reverse strand), checked by a team for
 * `threads`; then the failures. */
static void chunk(const char *what, nw_mode_t mode, const nw_batch_t *qb, const nw_batch_t *rb,
		  const nw_pair_t *pairs, int64_t n, int threads)
{
	nw_scoring_t sc;
	char err[512];
	CHECK(nw_scoring_dna(&sc, 2, 4, 4, 2, err, sizeof err) == 0, "%s", err);
	nw_align_params_t p = {.mode = mode, .sc = &sc, .want_path = 1};
	nw_batch_t q_rc;
	nw_batch_init(&q_rc, NW_ALPHA_DNA);
	CHECK(nw_batch_revcomp(qb, &q_rc) == 0, "revcomp");
	nw_opt_t opt;
	nw_opt_init(&opt);
	opt.threads = threads;
	run_t run;
	memset(&run, 0, sizeof run);
	run.opt = &opt;
	run.params = p;
	run.lanes.n = 1;
	nw_workspace_t *ws = nw_workspace_new();
	nw_result_t *want = calloc((size_t)n, sizeof *want), *got = calloc((size_t)n, sizeof *got);
	for (int64_t k = 0; k < n; k++) {
		cpu_result(&p, qb, &q_rc, rb, pairs[k], (int)(k & 1), ws, &want[k]);
		as_gpu_left_it(&want[k], &got[k]);
	}
	/* one result left unmarked keeps what it holds */
	const int64_t alone = n / 3;
	got[alone].unchecked = 0;
	got[alone].matches = 777;
	int ret = nw_check_paths(&run, qb, &q_rc, rb, pairs, got, n, err, sizeof err);
	CHECK(ret == 0, "%s: checks failed: %s", what, err);
	int64_t differ = 0, unchecked = 0, with_path = 0;
	for (int64_t k = 0; k < n; k++) {
		if (k == alone)
			continue;
		differ += !same_result(&got[k], &want[k]);
		unchecked += got[k].unchecked;
		with_path += want[k].n_cigar > 0;
	}
	CHECK(differ == 0 && unchecked == 0, "%s: %lld of %lld results differ from the CPU engine's, "
	      "%lld left unchecked", what, (long long)differ, (long long)n, (long long)unchecked);
	CHECK(got[alone].matches == 777 && !got[alone].unchecked, "%s: an unmarked result changed", what);
	CHECK(with_path > n / 2, "%s: only %lld of %lld pairs have a path", what, (long long)with_path,
	      (long long)n);

	/* a path one residue too long, and a score the path does not reach: each fails */
	int64_t bad = -1;
	for (int64_t k = n / 2; k < n && bad < 0; k++)
		if (want[k].n_cigar > 0)
			bad = k;
	for (int how = 0; how < 2 && bad >= 0; how++) {
		for (int64_t k = 0; k < n; k++) {
			nw_result_free(&got[k]);
			as_gpu_left_it(&want[k], &got[k]);
		}
		if (how == 0)
			got[bad].cigar[0] += NW_CIGAR_PACK(1, 0);
		else
			got[bad].score += 1;
		err[0] = 0;
		ret = nw_check_paths(&run, qb, &q_rc, rb, pairs, got, n, err, sizeof err);
		CHECK(ret == NW_ERR_INTERNAL && strstr(err, "failed its check"),
		      "%s: a %s passed the checks (%d, '%s')", what,
		      how ? "score its path does not reach" : "path one residue too long", ret, err);
	}
	CHECK(run.check_s > 0, "%s: no checking time counted", what);
	for (int64_t k = 0; k < n; k++) {
		nw_result_free(&want[k]);
		nw_result_free(&got[k]);
	}
	free(want);
	free(got);
	nw_workspace_free(ws);
	nw_batch_free(&q_rc);
}

int main(void)
{
	const char *top = getenv("top_srcdir");
	char path[1024];
	nw_batch_t reads, refs;
	snprintf(path, sizeof path, "%s/data/reads.fq", top ? top : ".");
	CHECK(read_batch(path, &reads, INT64_MAX) == 0, "cannot read %s", path);
	snprintf(path, sizeof path, "%s/data/ref.fa", top ? top : ".");
	CHECK(read_batch(path, &refs, INT64_MAX) == 0, "cannot read %s", path);
	/* every read against every reference, over and over: chunks of thousands of results,
	 * which a team shares out */
	const int64_t n = 3000;
	nw_pair_t *pairs = malloc((size_t)n * sizeof *pairs);
	for (int64_t k = 0; k < n; k++) {
		pairs[k].q = (uint32_t)(k % reads.n);
		pairs[k].r = (uint32_t)(k / reads.n % refs.n);
	}
	chunk("bundled, local, one thread", NW_MODE_LOCAL, &reads, &refs, pairs, n, 1);
	chunk("bundled, local, a team", NW_MODE_LOCAL, &reads, &refs, pairs, n, 8);
	chunk("bundled, semiglobal, a team", NW_MODE_SEMIGLOBAL, &reads, &refs, pairs, n, 8);
	chunk("bundled, global, a team", NW_MODE_GLOBAL, &reads, &refs, pairs, n, 8);
	free(pairs);
	nw_batch_free(&reads);
	nw_batch_free(&refs);

	/* real reads paired with other real reads: the first 400, 0..199 with 200..399 */
	nw_batch_t lam;
	snprintf(path, sizeof path, "%s/../shared/data/dna/lambda_reads_2k.fq.gz", top ? top : ".");
	FILE *f = fopen(path, "r");
	if (f) {
		fclose(f);
		CHECK(read_batch(path, &lam, 400) == 0 && lam.n == 400, "cannot read %s", path);
		nw_pair_t lp[200];
		for (int k = 0; k < 200; k++)
			lp[k].q = (uint32_t)k, lp[k].r = (uint32_t)(200 + k);
		chunk("lambda reads, local", NW_MODE_LOCAL, &lam, &lam, lp, 200, 4);
		chunk("lambda reads, global", NW_MODE_GLOBAL, &lam, &lam, lp, 200, 4);
		nw_batch_free(&lam);
	} else {
		printf("note: %s not found (shared data missing): the bundled data only\n", path);
	}
	printf("unit_checks: %ld passed, %ld failed\n", tu_passed, tu_failed);
	return tu_failed ? 1 : 0;
}
