/* unit_lanes.c: the split of a GPU call over engine lanes (src/pipeline/gpu_lanes.c),
 * without a device: the engines are stand-ins that derive each result from the residues
 * the pair's batch views hold, so that a wrong view, a wrong renumbering of the pairs, a
 * need taken at the wrong offset, a pair aligned twice or not at all, or --top's tops
 * joined in the wrong place gives a result that differs from one call on the whole
 * batches. Also: the lanes really split (calls, and views smaller than the batches), one
 * lane or a small call is not split, a device too small for the lanes' copies of the
 * references takes fewer, a failing lane's error is the call's, and --top's kept pairs are
 * numbered in the whole batches again.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "testutil.h"

/* What the stand-in engines saw, over the calls since the last reset. */
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;
static int calls;
static int64_t most_q, most_r, most_pairs; /* the largest batches and call seen */
static int fail_from = -1;                 /* a lane whose first query is at least this fails */

static void seen_reset(void)
{
	calls = 0;
	most_q = most_r = most_pairs = 0;
	fail_from = -1;
}

static void seen(const nw_batch_t *qb, const nw_batch_t *rb, int64_t n)
{
	pthread_mutex_lock(&seen_lock);
	calls++;
	most_q = qb->n > most_q ? qb->n : most_q;
	most_r = rb->n > most_r ? rb->n : most_r;
	most_pairs = n > most_pairs ? n : most_pairs;
	pthread_mutex_unlock(&seen_lock);
}

/* A digest of sequence i of b: its residues, through the batch's own words and offsets. */
static int64_t digest(const nw_batch_t *b, int64_t i)
{
	uint64_t h = 1469598103934665603ull;
	for (uint32_t k = 0; k < b->len[i]; k++)
		h = (h ^ nw_batch_code(b, i, k)) * 1099511628211ull;
	return (int64_t)(h >> 20) ^ b->len[i];
}

/* The stand-in for nw_gpu_align and nw_gpu_paths: the result of pair k says which
 * residues it was given, and its need. */
static int fake_align(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
		      const nw_batch_t *rb, const nw_pair_t *pairs, int64_t n, nw_result_t *res,
		      char *err, size_t errlen)
{
	(void)g;
	seen(qb, rb, n);
	if (fail_from >= 0 && n > 0 && pairs[0].q == 0 && qb->first_record >= fail_from) {
		snprintf(err, errlen, "lane starting at query %lld failed", (long long)qb->first_record);
		return NW_ERR_GPU;
	}
	for (int64_t k = 0; k < n; k++) {
		res[k].score = digest(qb, pairs[k].q);
		res[k].qend = digest(rb, pairs[k].r);
		res[k].rend = p->need ? p->need[k] : -1;
		res[k].qstart = qb->first_record + pairs[k].q; /* the record, in its file */
		res[k].rstart = rb->first_record + pairs[k].r;
	}
	return 0;
}

/* The stand-in for nw_gpu_top: of each query of qb against every reference of rb, the
 * top with the highest digest of query and reference, then the earlier reference, in
 * rank order. */
static int fake_top(nw_gpu_t *g, const nw_align_params_t *p, const nw_batch_t *qb,
		    const nw_batch_t *rb, int top, nw_pair_t *kept_pairs, nw_result_t *kept_res,
		    int64_t *n_kept, char *err, size_t errlen)
{
	(void)g, (void)p, (void)err, (void)errlen;
	const int64_t n_ref = rb->n, per = top < n_ref ? top : n_ref;
	seen(qb, rb, qb->n * n_ref);
	*n_kept = 0;
	for (int64_t s = 0; s < qb->n; s++) {
		char *taken = calloc((size_t)n_ref, 1);
		for (int64_t t = 0; t < per; t++) {
			int64_t best = -1, bs = 0;
			for (int64_t j = 0; j < n_ref; j++) {
				const int64_t v = (digest(qb, s) ^ digest(rb, j)) & 15; /* many ties */
				if (!taken[j] && (best < 0 || v > bs))
					best = j, bs = v;
			}
			taken[best] = 1;
			kept_pairs[*n_kept].q = (uint32_t)s;
			kept_pairs[*n_kept].r = (uint32_t)best;
			kept_res[*n_kept].score = bs;
			kept_res[*n_kept].qend = digest(qb, s);
			++*n_kept;
		}
		free(taken);
	}
	return 0;
}

/* n random DNA sequences of 0..maxlen residues, a third of them with N (4-bit). */
static void random_batch(nw_batch_t *b, int64_t n, uint32_t maxlen, uint64_t *rng)
{
	uint8_t *codes = malloc(maxlen + 1);
	char name[32];
	nw_batch_init(b, NW_ALPHA_DNA);
	for (int64_t i = 0; i < n; i++) {
		const uint32_t len = (uint32_t)(tu_rand(rng) % (maxlen + 1));
		for (uint32_t k = 0; k < len; k++)
			codes[k] = (uint8_t)(i % 3 == 0 && tu_rand(rng) % 17 == 0 ? 4 : tu_rand(rng) % 4);
		snprintf(name, sizeof name, "s%lld", (long long)i);
		nw_batch_push(b, name, codes, len, NULL);
	}
	free(codes);
}

/* The stand-in for nw_gpu_preload: counts its calls, fails as told. */
static int preloads, preload_ret;
static const nw_batch_t *preloaded;
static int fake_preload(nw_gpu_t *g, const nw_batch_t *b, char *err, size_t errlen)
{
	(void)g;
	preloads++;
	preloaded = b;
	if (preload_ret < 0)
		snprintf(err, errlen, "preload failed on purpose");
	return preload_ret;
}

/* The stand-in for nw_gpu_set_peer: the stand-in engines have no fields to set. */
static int peers_set;
static void fake_set_peer(nw_gpu_t *g, const nw_gpu_t *peer)
{
	(void)g, (void)peer;
	__atomic_add_fetch(&peers_set, 1, __ATOMIC_RELAXED);
}

/* lanes with stand-in engines: non-NULL, so that none is opened, never dereferenced (the
 * preload and the peer are stand-ins too: a CUDA build's would write into the engine) */
static void fake_lanes(nw_lanes_t *l, int n, int64_t min_pairs)
{
	static char dummy[NW_LANES_MAX];
	memset(l, 0, sizeof *l);
	for (int k = 0; k < NW_LANES_MAX; k++)
		l->g[k] = (nw_gpu_t *)(void *)&dummy[k];
	l->n = n;
	l->min_pairs = min_pairs;
	l->preload = fake_preload;
	l->set_peer = fake_set_peer;
	peers_set = 0;
	preloads = preload_ret = 0;
	preloaded = NULL;
}

static int same_results(const nw_result_t *a, const nw_result_t *b, int64_t n, const char *what)
{
	for (int64_t k = 0; k < n; k++)
		if (a[k].score != b[k].score || a[k].qend != b[k].qend || a[k].rend != b[k].rend ||
		    a[k].qstart != b[k].qstart || a[k].rstart != b[k].rstart) {
			CHECK(0, "%s: pair %lld differs from the unsplit call's", what, (long long)k);
			return 0;
		}
	CHECK(1, "%s", what);
	return 1;
}

static void test_calls(void)
{
	uint64_t rng = 7;
	nw_batch_t q, r;
	random_batch(&q, 1000, 300, &rng);
	random_batch(&r, 1000, 400, &rng);
	nw_align_params_t p;
	memset(&p, 0, sizeof p);
	int64_t *need = malloc(sizeof *need * 8000);
	nw_pair_t *pairs = malloc(sizeof *pairs * 8000);
	nw_result_t *want = calloc(8000, sizeof *want), *got = calloc(8000, sizeof *got);
	char err[256];
	nw_lanes_t one, l;
	fake_lanes(&one, 1, 100);

	/* zip: pair i = (i, i), a need each */
	for (int64_t i = 0; i < 1000; i++)
		pairs[i].q = pairs[i].r = (uint32_t)i, need[i] = i * 7 - 300;
	p.need = need;
	CHECK(nw_lanes_call(&one, fake_align, &p, &q, &r, pairs, 1000, want, err, sizeof err) == 0,
	      "unsplit zip");
	for (int lanes = 2; lanes <= NW_LANES_MAX; lanes++) {
		fake_lanes(&l, lanes, 100);
		seen_reset();
		memset(got, 0, sizeof *got * 1000);
		CHECK(nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, 1000, got, err, sizeof err) == 0,
		      "zip on %d lanes", lanes);
		same_results(want, got, 1000, "zip");
		CHECK_EQ_I64(calls, lanes, "zip: one call a lane");
		CHECK(most_q <= 1000 / lanes + 1 && most_r <= 1000 / lanes + 1,
		      "zip on %d lanes: each lane's views hold its records only (%lld, %lld)", lanes,
		      (long long)most_q, (long long)most_r);
	}
	/* too few pairs for two lanes of min_pairs: one call on the whole batches */
	fake_lanes(&l, 4, 600);
	seen_reset();
	CHECK(nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, 1000, got, err, sizeof err) == 0 &&
	      calls == 1 && most_q == 1000, "a call below two lanes' pairs is not split");
	same_results(want, got, 1000, "unsplit");

	/* all vs all: 40 queries from 300 against 50 references from 500, cut anywhere */
	int64_t n = 0;
	for (uint32_t a = 300; a < 340; a++)
		for (uint32_t b = 500; b < 550; b++)
			pairs[n].q = a, pairs[n].r = b, need[n] = (int64_t)n, n++;
	CHECK(nw_lanes_call(&one, fake_align, &p, &q, &r, pairs, n, want, err, sizeof err) == 0,
	      "unsplit all vs all");
	fake_lanes(&l, 3, 100);
	seen_reset();
	CHECK(nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, n, got, err, sizeof err) == 0,
	      "all vs all on 3 lanes");
	same_results(want, got, n, "all vs all");
	CHECK(calls == 3 && most_q <= 15 && most_r == 50, "all vs all: views of the lanes' records");

	CHECK(preloads == 0, "lanes that read a part of the references each: nothing preloaded");

	/* all vs all against every reference: the references are preloaded once for the lanes;
	 * where the shared copy does not fit, each lane uploads its own, and a device too
	 * small for more than two copies (a quarter of its memory for them) takes two lanes,
	 * one too small for two one; any other failure is the call's */
	n = 0;
	for (uint32_t a = 0; a < 8; a++) /* 8 queries: each lane holds whole ones */
		for (uint32_t b = 0; b < 1000; b++)
			pairs[n].q = 100 + a, pairs[n].r = b, need[n] = (int64_t)n, n++;
	CHECK(nw_lanes_call(&one, fake_align, &p, &q, &r, pairs, n, want, err, sizeof err) == 0,
	      "unsplit, every reference");
	fake_lanes(&l, 4, 100);
	seen_reset();
	CHECK(nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, n, got, err, sizeof err) == 0 &&
	      calls == 4 && preloads == 1 && preloaded == &r && peers_set == 3,
	      "every reference: preloaded once, 4 lanes, lanes 1-3 reading lane 0's copy");
	same_results(want, got, n, "every reference, preloaded");
	const uint64_t ref_bytes = r.total_residues + 4 * r.n_words + 24 * (uint64_t)r.n;
	const uint64_t devs[] = {4 * ref_bytes * 5 / 2, 4 * ref_bytes * 3 / 2, 1, 0};
	const int lanes_left[] = {2, 1, 1, 4};
	for (int d = 0; d < 4; d++) {
		fake_lanes(&l, 4, 100);
		l.device_bytes = devs[d];
		preload_ret = NW_ERR_MEMORY;
		seen_reset();
		CHECK(nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, n, got, err, sizeof err) == 0 &&
		      calls == lanes_left[d], "no room for a shared copy, device of %llu bytes: %d "
		      "lanes, not %d", (unsigned long long)devs[d], lanes_left[d], calls);
		same_results(want, got, n, "lanes bounded by the device's memory");
	}
	fake_lanes(&l, 4, 100);
	preload_ret = NW_ERR_GPU;
	err[0] = 0;
	CHECK(nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, n, got, err, sizeof err) == NW_ERR_GPU &&
	      strstr(err, "on purpose"), "a preload that fails otherwise: the call's error ('%s')", err);

	/* references too many for the device, of which the pairs use a few (--top's kept
	 * pairs): the call runs on a batch of those it uses; if they use most, on the whole */
	n = 0;
	for (uint32_t a = 0; a < 300; a++) /* 300 pairs against 25 distinct references */
		pairs[n].q = a, pairs[n].r = (a * 37) % 25 * 40 + 3, need[n] = (int64_t)n * 3, n++;
	fake_lanes(&one, 1, 100);
	CHECK(nw_lanes_call(&one, fake_align, &p, &q, &r, pairs, n, want, err, sizeof err) == 0,
	      "unsplit, few references");
	for (int lanes = 1; lanes <= 3; lanes += 2) {
		fake_lanes(&l, lanes, 100);
		l.device_bytes = 4 * (r.total_residues + 4 * r.n_words + 24 * (uint64_t)r.n) / 2;
		seen_reset();
		CHECK(nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, n, got, err, sizeof err) == 0 &&
		      most_r <= 25, "few of too many references: %d lanes saw %lld of them", lanes,
		      (long long)most_r);
		for (int64_t k = 0; k < n; k++) /* the record numbers, as the engine saw them */
			got[k].rstart = want[k].rstart;
		same_results(want, got, n, "few of too many references");
	}

	/* no need: the lanes pass none */
	fake_lanes(&l, 3, 100);
	p.need = NULL;
	nw_lanes_call(&one, fake_align, &p, &q, &r, pairs, n, want, err, sizeof err);
	nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, n, got, err, sizeof err);
	same_results(want, got, n, "without needs");

	/* a failing lane: its error is the call's */
	for (int64_t i = 0; i < 1000; i++)
		pairs[i].q = pairs[i].r = (uint32_t)i;
	fake_lanes(&l, 4, 100);
	seen_reset();
	fail_from = 500;
	err[0] = 0;
	const int ret = nw_lanes_call(&l, fake_align, &p, &q, &r, pairs, 1000, got, err, sizeof err);
	CHECK(ret == NW_ERR_GPU && strstr(err, "query 500 failed"), "a failing lane's error: %d '%s'",
	      ret, err);
	fail_from = -1;

	free(need);
	free(pairs);
	free(want);
	free(got);
	nw_batch_free(&q);
	nw_batch_free(&r);
}

static void test_top(void)
{
	uint64_t rng = 11;
	nw_batch_t q, r;
	random_batch(&q, 60, 200, &rng);
	random_batch(&r, 90, 200, &rng);
	nw_align_params_t p;
	memset(&p, 0, sizeof p);
	const int64_t n_ref = 90, nq = 37, q0 = 20; /* queries 20..56 against every reference */
	const uint64_t ref_bytes = r.total_residues + 4 * r.n_words + 24 * (uint64_t)r.n;
	const int tops[] = {1, 3, 1, 3, 100};
	for (int x = 0; x < 5; x++) {
		/* the last three: a device whose quarter holds a third of the references, which go
		 * in three ranges whose tops are merged (top 100: every reference, in rank order) */
		const int top = tops[x], ranged = x >= 2;
		const int64_t per = top < n_ref ? top : n_ref;
		nw_pair_t *wp = calloc((size_t)(nq * per), sizeof *wp), *gp = calloc((size_t)(nq * per), sizeof *gp);
		nw_result_t *wr = calloc((size_t)(nq * per), sizeof *wr), *gr = calloc((size_t)(nq * per), sizeof *gr);
		int64_t wn = 0, gn = 0;
		char err[256];
		nw_lanes_t one, l;
		fake_lanes(&one, 1, 100);
		fake_lanes(&l, 4, 200);
		if (ranged)
			l.device_bytes = 4 * ref_bytes / 3;
		seen_reset();
		CHECK(nw_lanes_top(&one, fake_top, &p, &q, &r, q0, q0 + nq, top, wp, wr, &wn, err,
				   sizeof err) == 0, "unsplit top");
		CHECK(calls == 1 && most_q == nq && most_r == n_ref, "unsplit top: one call, a view of its queries");
		seen_reset();
		CHECK(nw_lanes_top(&l, fake_top, &p, &q, &r, q0, q0 + nq, top, gp, gr, &gn, err,
				   sizeof err) == 0, "top on 4 lanes%s", ranged ? ", 3 ranges" : "");
		if (!ranged) {
			CHECK(calls == 4 && most_q <= nq / 4 + 1, "top: whole queries a lane, views of them");
			CHECK(preloads == 1 && preloaded == &r, "top: the references preloaded once");
		} else {
			CHECK(calls == 12 && most_r <= n_ref / 3 + 1 && preloads == 3,
			      "top in ranges: 3 ranges of 4 lanes (%d calls), each range's references a "
			      "view (%lld), preloaded once a range (%d)", calls, (long long)most_r, preloads);
		}
		CHECK_EQ_I64(gn, wn, "top %d: kept", top);
		CHECK_EQ_I64(wn, nq * per, "top %d: kept of the unsplit call", top);
		int same = gn == wn;
		for (int64_t k = 0; same && k < wn; k++) /* query order, each query's own */
			same = wp[k].q == (uint32_t)(q0 + k / per) && wp[k].r < (uint32_t)n_ref;
		CHECK(same, "top %d: the unsplit call's kept pairs in the batches' numbers", top);
		for (int64_t k = 0; same && k < gn; k++)
			same = gp[k].q == wp[k].q && gp[k].r == wp[k].r && gr[k].score == wr[k].score &&
			       gr[k].qend == wr[k].qend;
		CHECK(same, "top %d%s: the same kept pairs, in the whole batches' numbers, in order", top,
		      ranged ? " in ranges" : "");
		free(wp), free(gp), free(wr), free(gr);
	}
	nw_batch_free(&q);
	nw_batch_free(&r);
}

int main(void)
{
	test_calls();
	test_top();
	return tu_finish("unit_lanes");
}
