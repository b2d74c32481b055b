/* unit_inter.c: the CPU engine's SIMD kernels under every instruction set this processor
 * runs (generic C, SSE4.1, AVX2, AVX-512BW).
 *
 * The striped pass (src/cpu/striped_kernel.h, 16- and 32-bit lanes): nw_cpu_align with
 * the striped pass of each set against the same with the scalar passes only (unit_cpu
 * checks those against the full-matrix oracle), on pairs of 1..1200 and on pairs long
 * enough (3,000-9,000) that values leave 16 bits and the 32-bit lanes run, and a
 * semiglobal start pass whose cells saturate in 16 bits far below its target.
 *
 * The inter-sequence passes (src/cpu/cpu_inter.c) against the per-pair CPU engine
 * (nw_cpu_align); short reads inside long references; long global pairs through the
 * 8-bit pass by differences.
 * Variants: scores and spans; end cells only; paths from the groups' own passes; paths
 * of spans found beforehand, grouped by span (nw_inter_plan_paths, the pipeline's order);
 * and, for local match/mismatch pairs, end cells first and then the starts in groups by
 * band (nw_inter_plan_starts: banded reverse passes, the pipeline's order for them).
 *
 * The 8-bit local match/mismatch groups for end cells, scores up to the top of their
 * range and past it (run again in 16 bits).
 *
 * For each set, scoring (match/mismatch DNA with and without ambiguity codes, mismatch 0,
 * linear gaps; EDNAFULL, BLOSUM62 and PAM250 through the profile form), mode (global,
 * local, semiglobal) and variant (scores and spans, end cells only, paths): random pairs
 * of 1..300 residues (unrelated, mutated copies, one inside the other, low complexity),
 * laid out one-to-one (zip) and all-against-all. Every pair's score, coordinates,
 * opt_score and CIGAR must equal the per-pair engine's. The plan must cover every pair
 * once, and groups must actually run (a test that sent every pair to the per-pair passes
 * would prove nothing): the number of grouped pairs is checked too. Matrix pairs' scores
 * group only when a query has enough of them (all-against-all); their paths group always.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nwalign.h"
#include "cpu_align.h"
#include "cpu_inter.h"
#include "cpu_isa.h"
#include "testutil.h"

#define MAX_LEN 300
#define MAX_PAIR_LEN 1024 /* the longest sequence that run_plan meets */
#define MAX_PRINT 10

static uint64_t seed = 0x2545f4914f6cdd1dull;
static int n_printed;

static int64_t rnd(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(tu_rand(&seed) % (uint64_t)(hi - lo + 1));
}

/* kind 0: DNA ACGT; 1: DNA with ambiguity codes; 2: protein */
static uint8_t code(int kind)
{
	if (kind == 2)
		return (uint8_t)rnd(0, NW_PROTEIN_CODES - 1);
	if (kind == 1 && rnd(0, 9) == 0)
		return (uint8_t)rnd(4, NW_DNA_CODES - 1);
	return (uint8_t)rnd(0, 3);
}

static int64_t make_seq(uint8_t *s, int kind, const uint8_t *like, int64_t like_len)
{
	int64_t len = rnd(1, MAX_LEN), how = rnd(0, 5);
	if (like && how <= 2) { /* a mutated copy of like */
		int64_t k = 0;
		for (int64_t i = 0; i < like_len && k < MAX_LEN; i++) {
			int64_t e = rnd(0, 99);
			if (e < 4)
				s[k++] = code(kind);
			else if (e < 6)
				continue;
			else if (e < 8 && k + 2 < MAX_LEN)
				s[k++] = code(kind), s[k++] = like[i];
			else
				s[k++] = like[i];
		}
		return k ? k : (s[0] = code(kind), 1);
	}
	if (like && how == 3 && like_len + 20 <= MAX_LEN) { /* like inside random flanks */
		int64_t a = rnd(0, 10), k = 0;
		for (int64_t i = 0; i < a; i++)
			s[k++] = code(kind);
		memcpy(s + k, like, (size_t)like_len);
		k += like_len;
		for (int64_t i = rnd(0, 10); i > 0; i--)
			s[k++] = code(kind);
		return k;
	}
	if (how == 4) { /* low complexity */
		uint8_t a = code(kind), b = code(kind);
		for (int64_t i = 0; i < len; i++)
			s[i] = rnd(0, 4) ? a : b;
		return len;
	}
	for (int64_t i = 0; i < len; i++)
		s[i] = code(kind);
	return len;
}

typedef struct {
	const char *label;
	nw_scoring_t sc;
	int kind;
} scoring_case_t;

/* Pairs whose starts ran in 8-bit and in 16-bit groups of plans of starts (each
 * instruction set's share of the runs below must have both). */
static int64_t starts_narrow, starts_wide;

static void count_start_group(const nw_inter_plan_t *plan, int64_t g)
{
	const int64_t n = plan->group_end[g] - (g ? plan->group_end[g - 1] : 0);
	*(g < plan->n_narrow ? &starts_narrow : &starts_wide) += n;
}

static int same_result(const nw_result_t *a, const nw_result_t *b)
{
	if (a->score != b->score || a->qstart != b->qstart || a->qend != b->qend ||
	    a->rstart != b->rstart || a->rend != b->rend || a->opt_score != b->opt_score ||
	    a->n_cigar != b->n_cigar || a->path_kind != b->path_kind)
		return 0;
	return a->n_cigar == 0 || !memcmp(a->cigar, b->cigar, (size_t)a->n_cigar * sizeof *a->cigar);
}

static const char *mode_name(nw_mode_t m)
{
	return m == NW_MODE_GLOBAL ? "global" : m == NW_MODE_LOCAL ? "local" : "semiglobal";
}

/* Every group of a plan, and its other pairs by the per-pair engine, into got. */
static void run_plan(nw_workspace_t *ws, const nw_align_params_t *p, const nw_batch_t *qb,
		     const nw_batch_t *rb, const nw_pair_t *pairs, const nw_inter_plan_t *plan,
		     nw_result_t *got)
{
	static uint8_t s[MAX_PAIR_LEN], t[MAX_PAIR_LEN];
	for (int64_t g = 0; g < plan->n_groups; g++)
		CHECK(nw_inter_group(ws, p, qb, rb, pairs, plan, g, got) == 0, "group");
	for (int64_t k = 0; k < plan->n_rest; k++) {
		const int64_t x = plan->rest[k];
		nw_batch_unpack(qb, pairs[x].q, s);
		nw_batch_unpack(rb, pairs[x].r, t);
		CHECK(nw_cpu_align(p, s, qb->len[pairs[x].q], t, rb->len[pairs[x].r], ws, &got[x]) == 0,
		      "nw_cpu_align");
	}
}

/* The results of n pairs, got and wanted, and their arrays. */
static void free_results(nw_result_t *got, nw_result_t *want, int64_t n)
{
	for (int64_t k = 0; k < n; k++) {
		nw_result_free(&got[k]);
		nw_result_free(&want[k]);
	}
	free(got);
	free(want);
}

/* One layout: nq queries, nr references, pairs zip (nq == nr) or all-against-all. */
static void run_case(int isa, const scoring_case_t *c, nw_mode_t mode, int variant, int all,
		     int64_t *grouped, int64_t *total)
{
	if (variant == 4) { /* local match/mismatch pairs only */
		const nw_align_params_t lp = {.mode = mode, .sc = &c->sc};
		const int apart = nw_inter_starts_apart(&lp);
		CHECK(apart == (mode == NW_MODE_LOCAL && c->kind != 2 &&
				strncmp(c->label, "ednafull", 8) != 0),
		      "%s %s: starts apart %d", c->label, mode_name(mode), apart);
		if (!apart)
			return;
	}
	const int nq = all ? 4 : 100, nr = all ? 50 : 100;
	nw_batch_t qb, rb;
	nw_alphabet_t a = c->kind == 2 ? NW_ALPHA_PROTEIN : NW_ALPHA_DNA;
	nw_batch_init(&qb, a);
	nw_batch_init(&rb, a);
	uint8_t s[MAX_LEN + 32], t[MAX_LEN + 32];
	uint8_t (*qs)[MAX_LEN + 32] = malloc(sizeof *qs * nq);
	int64_t *ql = malloc(sizeof *ql * nq);
	for (int i = 0; i < nq; i++) {
		ql[i] = make_seq(qs[i], c->kind, NULL, 0);
		CHECK(nw_batch_push(&qb, "q", qs[i], (uint32_t)ql[i], NULL) == 0, "push");
	}
	for (int j = 0; j < nr; j++) {
		int src = all ? (int)rnd(0, nq - 1) : j;
		int64_t len = make_seq(s, c->kind, rnd(0, 3) ? qs[src] : NULL, ql[src]);
		CHECK(nw_batch_push(&rb, "r", s, (uint32_t)len, NULL) == 0, "push");
	}
	int64_t n = all ? (int64_t)nq * nr : nq;
	nw_pair_t *pairs = malloc(sizeof *pairs * n);
	for (int64_t k = 0; k < n; k++)
		pairs[k] = all ? (nw_pair_t){(uint32_t)(k / nr), (uint32_t)(k % nr)}
			       : (nw_pair_t){(uint32_t)k, (uint32_t)k};
	nw_align_params_t p = {.mode = mode, .sc = &c->sc, .want_path = variant == 2 || variant == 3,
			       .ends_only = variant == 1};
	const int by_band = variant == 4;
	const nw_align_params_t wp = p; /* the per-pair engine's, whole */
	nw_result_t *got = calloc((size_t)n, sizeof *got), *want = calloc((size_t)n, sizeof *want);
	int *seen = calloc((size_t)n, sizeof *seen);
	nw_workspace_t *ws = nw_workspace_new();
	nw_inter_plan_t plan;
	if (variant == 3) { /* the pipeline's order: spans first (per pair), then the paths */
		nw_align_params_t sp = p;
		sp.want_path = 0;
		for (int64_t k = 0; k < n; k++) {
			nw_batch_unpack(&qb, pairs[k].q, s);
			nw_batch_unpack(&rb, pairs[k].r, t);
			CHECK(nw_cpu_align(&sp, s, qb.len[pairs[k].q], t, rb.len[pairs[k].r], ws,
					   &got[k]) == 0, "nw_cpu_align");
		}
		CHECK(nw_inter_plan_paths(&p, &qb, &rb, pairs, got, n, isa, &plan) == 0, "plan");
	} else if (by_band) { /* the ends in the groups of nw_inter_plan, then the starts */
		nw_align_params_t ep = p;
		ep.ends_only = 1;
		CHECK(nw_inter_plan(&ep, &qb, &rb, pairs, n, isa, &plan) == 0, "plan");
		run_plan(ws, &ep, &qb, &rb, pairs, &plan, got);
		nw_inter_plan_free(&plan);
		p.starts_only = 1;
		CHECK(nw_inter_starts_grouped(&p), "starts grouped");
		CHECK(nw_inter_plan_starts(&p, got, n, isa, &plan) == 0, "plan of starts");
	} else {
		CHECK(nw_inter_plan(&p, &qb, &rb, pairs, n, isa, &plan) == 0, "plan");
		int ma, mi, K;
		if (mode == NW_MODE_GLOBAL && nw_scoring_mm(&c->sc, &ma, &mi, &K)) /* by differences */
			CHECK(plan.narrow == (2 * ma + 4 * (c->sc.gap_open + c->sc.gap_extend) <= 126),
			      "%s: %s global: narrow %d", nw_cpu_isa_name(isa), c->label, plan.narrow);
	}
	for (int64_t g = 0; g < plan.n_groups; g++) {
		int64_t k0 = g ? plan.group_end[g - 1] : 0;
		CHECK(plan.group_end[g] > k0 &&
		      plan.group_end[g] - k0 <= plan.lanes * (plan.narrow || g < plan.n_narrow ? 2 : 1) *
							(plan.streams ? NW_INTER_STREAM_PAIRS : 1),
		      "group size");
		if (by_band)
			count_start_group(&plan, g);
		for (int64_t k = k0 + 1; plan.streams && k < plan.group_end[g]; k++)
			CHECK(pairs[plan.order[k]].q == pairs[plan.order[k0]].q, "a stream group's query");
		for (int64_t k = k0 + 1; by_band && k < plan.group_end[g]; k++) { /* by band */
			int64_t b0, a0, b1, a1;
			nw_inter_start_band(&c->sc, &got[plan.order[k - 1]], &b0, &a0);
			nw_inter_start_band(&c->sc, &got[plan.order[k]], &b1, &a1);
			CHECK(b0 + a0 <= b1 + a1, "bands in order");
		}
		int ret = nw_inter_group(ws, &p, &qb, &rb, pairs, &plan, g, got);
		CHECK(ret == 0, "nw_inter_group %s %s: %d", c->label, mode_name(mode), ret);
		for (int64_t k = k0; k < plan.group_end[g]; k++)
			seen[plan.order[k]]++;
	}
	*grouped += plan.n_groups ? plan.group_end[plan.n_groups - 1] : 0;
	*total += n;
	for (int64_t k = 0; k < plan.n_rest; k++)
		seen[plan.rest[k]]++;
	for (int64_t k = 0; k < n; k++) {
		CHECK(seen[k] == 1, "pair %lld planned %d times", (long long)k, seen[k]);
		nw_batch_unpack(&qb, pairs[k].q, s);
		nw_batch_unpack(&rb, pairs[k].r, t);
		int64_t qlen = qb.len[pairs[k].q], rlen = rb.len[pairs[k].r];
		CHECK(nw_cpu_align(&wp, s, qlen, t, rlen, ws, &want[k]) == 0, "nw_cpu_align");
		int in_rest = 0;
		for (int64_t x = 0; x < plan.n_rest; x++)
			in_rest |= plan.rest[x] == k;
		if (in_rest && variant != 3 && !by_band)
			continue;
		if (in_rest && by_band) /* the pipeline finds these starts alone */
			CHECK(nw_cpu_align(&p, s, qlen, t, rlen, ws, &got[k]) == 0, "starts alone");
		else if (in_rest) /* the pipeline runs these alone */
			CHECK(nw_cpu_align_path(&p, s, qlen, t, rlen, ws, &got[k]) == 0, "align_path");

		int ok = same_result(&got[k], &want[k]);
		CHECK(ok, "%s: %s %s variant %d %s pair %lld", nw_cpu_isa_name(isa), c->label,
		      mode_name(mode), variant, all ? "all" : "zip", (long long)k);
		if (!ok && n_printed++ < MAX_PRINT)
			fprintf(stderr,
				"  %lldx%lld: got %lld [%lld,%lld)x[%lld,%lld) cigar %lld, want %lld "
				"[%lld,%lld)x[%lld,%lld) cigar %lld\n",
				(long long)qlen, (long long)rlen, (long long)got[k].score,
				(long long)got[k].qstart, (long long)got[k].qend,
				(long long)got[k].rstart, (long long)got[k].rend,
				(long long)got[k].n_cigar, (long long)want[k].score,
				(long long)want[k].qstart, (long long)want[k].qend,
				(long long)want[k].rstart, (long long)want[k].rend,
				(long long)want[k].n_cigar);
	}
	free_results(got, want, n);
	nw_inter_plan_free(&plan);
	nw_workspace_free(ws);
	free(seen);
	free(pairs);
	free(qs);
	free(ql);
	nw_batch_free(&qb);
	nw_batch_free(&rb);
}

/* The n zip pairs of qb and rb planned (every one grouped; in 8-bit groups when narrow),
 * their groups run, and each result compared with the per-pair engine's. */
static void group_all(int isa, const nw_align_params_t *p, const nw_batch_t *qb,
		      const nw_batch_t *rb, int n, int narrow, const char *what)
{
	nw_pair_t *pairs = malloc((size_t)n * sizeof *pairs);
	nw_result_t *got = calloc((size_t)n, sizeof *got), *want = calloc((size_t)n, sizeof *want);
	uint8_t *q = malloc(qb->max_len + 8), *r = malloc(rb->max_len + 8);
	for (int k = 0; k < n; k++)
		pairs[k] = (nw_pair_t){(uint32_t)k, (uint32_t)k};
	nw_workspace_t *ws = nw_workspace_new();
	nw_inter_plan_t plan;
	CHECK(nw_inter_plan(p, qb, rb, pairs, n, isa, &plan) == 0, "plan");
	CHECK(plan.n_rest == 0 && (!narrow || plan.narrow), "%s: %s %s: narrow %d, %lld pairs alone",
	      nw_cpu_isa_name(isa), what, mode_name(p->mode), plan.narrow, (long long)plan.n_rest);
	for (int64_t g = 0; g < plan.n_groups; g++)
		CHECK(nw_inter_group(ws, p, qb, rb, pairs, &plan, g, got) == 0, "group");
	for (int k = 0; k < n; k++) {
		nw_batch_unpack(qb, (int64_t)k, q);
		nw_batch_unpack(rb, (int64_t)k, r);
		CHECK(nw_cpu_align(p, q, qb->len[k], r, rb->len[k], ws, &want[k]) == 0, "align");
		CHECK(same_result(&got[k], &want[k]), "%s: %s %s, pair %d: got %lld, want %lld",
		      nw_cpu_isa_name(isa), what, mode_name(p->mode), k, (long long)got[k].score,
		      (long long)want[k].score);
		nw_result_free(&got[k]);
		nw_result_free(&want[k]);
	}
	nw_inter_plan_free(&plan);
	nw_workspace_free(ws);
	free(pairs);
	free(got);
	free(want);
	free(q);
	free(r);
}

/* Local pairs whose optimal path strays exactly as far from its diagonal as its band
 * allows on that side (nw_inter_start_band): a stretch of 80-150 and a copy of it with one
 * gap of 1-12 in its middle third (in the reference or in the query; a third of the pairs
 * with random flanks before them, where the band leaves room), so that the path's score
 * leaves no room for a wider detour. Their ends per pair, then their starts in groups by
 * band (nw_inter_plan_starts), against the per-pair engine. */
static void run_band_edges(int isa, const scoring_case_t *c)
{
	enum { N = 300 };
	nw_batch_t qb, rb;
	nw_batch_init(&qb, NW_ALPHA_DNA);
	nw_batch_init(&rb, NW_ALPHA_DNA);
	uint8_t a[MAX_LEN], b[MAX_LEN], s[MAX_LEN], t[MAX_LEN];
	for (int k = 0; k < N; k++) {
		int64_t len = rnd(80, 150), d = rnd(1, 12), at = rnd(len / 3, 2 * len / 3), na = 0, nb = 0;
		for (int64_t i = k % 3 ? 0 : rnd(0, 8); i > 0; i--) /* (flanks loosen the band) */
			a[na++] = code(0);
		for (int64_t i = k % 3 ? 0 : rnd(0, 8); i > 0; i--)
			b[nb++] = code(0);
		for (int64_t i = 0; i < len; i++) {
			uint8_t x = code(0);
			a[na++] = x;
			b[nb++] = x;
			if (i == at)
				for (int64_t g = 0; g < d; g++)
					b[nb++] = code(0);
		}
		const int swap = k & 1; /* the gap in the reference, or in the query */
		CHECK(nw_batch_push(&qb, "q", swap ? b : a, (uint32_t)(swap ? nb : na), NULL) == 0 &&
			      nw_batch_push(&rb, "r", swap ? a : b, (uint32_t)(swap ? na : nb), NULL) == 0,
		      "push");
	}
	nw_pair_t pairs[N];
	nw_result_t got[N], want[N];
	memset(got, 0, sizeof got);
	memset(want, 0, sizeof want);
	for (int k = 0; k < N; k++)
		pairs[k] = (nw_pair_t){(uint32_t)k, (uint32_t)k};
	nw_workspace_t *ws = nw_workspace_new();
	nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &c->sc, .ends_only = 1};
	for (int k = 0; k < N; k++) {
		nw_batch_unpack(&qb, k, s);
		nw_batch_unpack(&rb, k, t);
		CHECK(nw_cpu_align(&p, s, qb.len[k], t, rb.len[k], ws, &got[k]) == 0, "ends");
	}
	p.ends_only = 0, p.starts_only = 1;
	nw_inter_plan_t plan;
	CHECK(nw_inter_plan_starts(&p, got, N, isa, &plan) == 0, "plan of starts");
	for (int64_t g = 0; g < plan.n_groups; g++) {
		const int64_t k0 = g ? plan.group_end[g - 1] : 0;
		CHECK(plan.group_end[g] - k0 <= plan.lanes * (g < plan.n_narrow ? 2 : 1), "group size");
		count_start_group(&plan, g);
		CHECK(nw_inter_group(ws, &p, &qb, &rb, pairs, &plan, g, got) == 0, "%s: %s: group %lld",
		      nw_cpu_isa_name(isa), c->label, (long long)g);
	}
	int tight = 0;
	for (int k = 0; k < N; k++) {
		nw_batch_unpack(&qb, k, s);
		nw_batch_unpack(&rb, k, t);
		for (int64_t x = 0; x < plan.n_rest; x++)
			if (plan.rest[x] == k)
				CHECK(nw_cpu_align(&p, s, qb.len[k], t, rb.len[k], ws, &got[k]) == 0, "alone");
		p.starts_only = 0;
		CHECK(nw_cpu_align(&p, s, qb.len[k], t, rb.len[k], ws, &want[k]) == 0, "align");
		p.starts_only = 1;
		CHECK(same_result(&got[k], &want[k]), "%s: %s band edge, pair %d: got [%lld,%lld)x[%lld,%lld), "
		      "want [%lld,%lld)x[%lld,%lld)", nw_cpu_isa_name(isa), c->label, k,
		      (long long)got[k].qstart, (long long)got[k].qend, (long long)got[k].rstart,
		      (long long)got[k].rend, (long long)want[k].qstart, (long long)want[k].qend,
		      (long long)want[k].rstart, (long long)want[k].rend);
		/* the path's own offset: the span's sides differ by the gap (a longer reference
		 * span: above the diagonal) */
		const int64_t off = (want[k].rend - want[k].rstart) - (want[k].qend - want[k].qstart);
		int64_t below, above;
		nw_inter_start_band(&c->sc, &want[k], &below, &above);
		tight += (off > 0 && off == above) || (off < 0 && -off == below);
	}
	/* most pairs are planned into groups, and many of their paths use the whole band */
	CHECK(plan.n_rest * 10 < N && tight * 4 > N, "%s: %s: %lld pairs alone, %d paths at the band's edge",
	      nw_cpu_isa_name(isa), c->label, (long long)plan.n_rest, tight);
	nw_inter_plan_free(&plan);
	nw_workspace_free(ws);
	nw_batch_free(&qb);
	nw_batch_free(&rb);
}

/* Reads of 20-60 inside references of 3,000-6,000 (zip, semiglobal and local): long
 * columns in the inter-sequence passes, every pair grouped, the reverse (start) passes
 * capped to the columns that fit 16 bits (fewer than the references have). */
static void run_long_refs(int isa)
{
	enum { N = 96 };
	char err[256];
	scoring_case_t c = {.label = "dna 2/4 10+8L", .kind = 0};
	CHECK(nw_scoring_dna(&c.sc, 2, 4, 10, 8, err, sizeof err) == 0, "%s", err);
	nw_batch_t qb, rb;
	nw_batch_init(&qb, NW_ALPHA_DNA);
	nw_batch_init(&rb, NW_ALPHA_DNA);
	static uint8_t q[64], r[6200];
	for (int k = 0; k < N; k++) {
		int64_t m = rnd(20, 60), n = rnd(3000, 6000), at = rnd(0, n - m);
		for (int64_t i = 0; i < m; i++)
			q[i] = code(0);
		for (int64_t j = 0; j < n; j++)
			r[j] = code(0);
		for (int64_t i = 0; i < m; i++)
			r[at + i] = rnd(0, 19) ? q[i] : code(0);
		CHECK(nw_batch_push(&qb, "q", q, (uint32_t)m, NULL) == 0, "push");
		CHECK(nw_batch_push(&rb, "r", r, (uint32_t)n, NULL) == 0, "push");
	}
	for (int mode = 0; mode < 2; mode++) {
		nw_align_params_t p = {.mode = mode ? NW_MODE_LOCAL : NW_MODE_SEMIGLOBAL, .sc = &c.sc};
		group_all(isa, &p, &qb, &rb, N, 0, "reads in long references");
	}
	nw_batch_free(&qb);
	nw_batch_free(&rb);
}

/* Global pairs of 1,000-2,048 (mutated copies with indels, and unrelated pairs): long
 * columns of differences in the 8-bit global pass (inter_diff_kernel.h), scores far
 * outside 8 bits, every pair grouped in 8-bit groups. */
static void run_long_global(int isa)
{
	enum { N = 80, L = 2048 };
	char err[256];
	scoring_case_t c = {.label = "dna 2/4 4+2L", .kind = 0};
	CHECK(nw_scoring_dna(&c.sc, 2, 4, 4, 2, err, sizeof err) == 0, "%s", err);
	nw_batch_t qb, rb;
	nw_batch_init(&qb, NW_ALPHA_DNA);
	nw_batch_init(&rb, NW_ALPHA_DNA);
	static uint8_t q[L + 8], r[L + 8];
	for (int k = 0; k < N; k++) {
		int64_t m = rnd(1000, L), n = 0;
		for (int64_t i = 0; i < m; i++)
			q[i] = code(0);
		for (int64_t i = 0; i < m && n < L; i++) { /* a copy with 2 % changes, or not */
			int64_t e = k % 4 == 3 ? 0 : rnd(0, 199);
			if (k % 4 == 3)
				r[n++] = code(0);
			else if (e == 0)
				continue;
			else if (e == 1 && n + 2 < L)
				r[n++] = code(0), r[n++] = q[i];
			else
				r[n++] = e < 5 ? code(0) : q[i];
		}
		CHECK(nw_batch_push(&qb, "q", q, (uint32_t)m, NULL) == 0, "push");
		CHECK(nw_batch_push(&rb, "r", r, (uint32_t)n, NULL) == 0, "push");
	}
	nw_align_params_t p = {.mode = NW_MODE_GLOBAL, .sc = &c.sc};
	group_all(isa, &p, &qb, &rb, N, 1, "long pairs");
	nw_batch_free(&qb);
	nw_batch_free(&rb);
}

/* The narrow (8-bit) profile passes of local groups (stream groups: a lane takes several
 * references one after another): every query of NQ against NR references, scores, spans,
 * end cells only and paths against the per-pair engine. Queries of 40..900 residues (rows
 * past the 127 of one row chunk, the best in a later chunk); references of 1..600
 * residues, unrelated (scores far below 127), of low complexity (ties among equal cells),
 * holding a copy of one query segment or two (equal ends, scores around 127 on either
 * side) and long copies (saturated: run again in 16 bits), and copies of the longest
 * query, which saturate many pairs of a group; and a last query that only its own copy
 * saturates. The 8-bit lanes, the saturated ones run alone and the saturated ones
 * run in 16-bit groups must all have run, and lanes must have taken several pairs; against
 * references of one length that fill whole groups the plan keeps one pair a lane. */
static void run_narrow(int isa, const scoring_case_t *c)
{
	enum { NQ = 6, NR = 150, NC = 40, NS = 1, LEN = 1000 };
	static const int64_t qlens[NQ] = {40, 130, 260, 520, 900, 300};
	nw_batch_t qb, rb;
	nw_batch_init(&qb, NW_ALPHA_PROTEIN);
	nw_batch_init(&rb, NW_ALPHA_PROTEIN);
	static uint8_t qs[NQ][LEN], s[LEN], t[LEN];
	for (int i = 0; i < NQ; i++) {
		for (int64_t k = 0; k < qlens[i]; k++)
			qs[i][k] = code(2);
		CHECK(nw_batch_push(&qb, "q", qs[i], (uint32_t)qlens[i], NULL) == 0, "push");
	}
	for (int j = 0; j < NR; j++) {
		int64_t len = rnd(1, 600), how = rnd(0, 5);
		const uint8_t *src = qs[rnd(0, NQ - 2)]; /* (not the last query) */
		for (int64_t k = 0; k < len; k++)
			s[k] = code(2);
		if (how == 1) { /* low complexity */
			uint8_t a = code(2), b = code(2);
			for (int64_t k = 0; k < len; k++)
				s[k] = rnd(0, 3) ? a : b;
		} else if (how >= 2 && len > 200) { /* one or two copies of a query segment */
			int64_t seg = how == 5 ? rnd(60, 200) : rnd(8, 40), from = rnd(0, 40 - 8);
			for (int copy = 0; copy < (how == 3 ? 2 : 1); copy++) {
				int64_t at = copy ? len - seg - 1 : rnd(0, len - seg - 1);
				for (int64_t k = 0; k < seg; k++)
					s[at + k] = rnd(0, 9) ? src[from + k] : code(2);
			}
		}
		CHECK(nw_batch_push(&rb, "r", s, (uint32_t)len, NULL) == 0, "push");
	}
	for (int j = 0; j < NC + NS; j++) { /* copies of the longest query, then of the last */
		const int x = j < NC ? NQ - 2 : NQ - 1;
		for (int64_t k = 0; k < qlens[x]; k++)
			s[k] = rnd(0, 9) ? qs[x][k] : code(2);
		CHECK(nw_batch_push(&rb, "r", s, (uint32_t)qlens[x], NULL) == 0, "push");
	}
	const int64_t nr = NR + NC + NS, n = (int64_t)NQ * nr;
	nw_pair_t *pairs = malloc(sizeof *pairs * n);
	for (int64_t k = 0; k < n; k++)
		pairs[k] = (nw_pair_t){(uint32_t)(k / nr), (uint32_t)(k % nr)};
	nw_result_t *got = calloc((size_t)n, sizeof *got), *want = calloc((size_t)n, sizeof *want);
	nw_workspace_t *ws = nw_workspace_new();
	for (int variant = 0; variant < 3; variant++) {
		nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &c->sc, .ends_only = variant == 1,
				       .want_path = variant == 2};
		nw_inter_plan_t plan;
		CHECK(nw_inter_plan(&p, &qb, &rb, pairs, n, isa, &plan) == 0, "plan");
		CHECK(plan.narrow && plan.n_rest == 0, "%s: %s: narrow %d, %lld pairs alone",
		      nw_cpu_isa_name(isa), c->label, plan.narrow, (long long)plan.n_rest);
		int64_t most = 0; /* pairs of the largest group: more than lanes */
		for (int64_t g = 0; g < plan.n_groups; g++) {
			const int64_t size = plan.group_end[g] - (g ? plan.group_end[g - 1] : 0);
			most = size > most ? size : most;
		}
		CHECK(plan.streams && most > 2 * plan.lanes, "%s: %s: streams %d, %lld pairs a group",
		      nw_cpu_isa_name(isa), c->label, plan.streams, (long long)most);
		for (int64_t g = 0; g < plan.n_groups; g++)
			CHECK(nw_inter_group(ws, &p, &qb, &rb, pairs, &plan, g, got) == 0, "group");
		for (int64_t k = 0; k < n; k++) {
			nw_batch_unpack(&qb, pairs[k].q, s);
			nw_batch_unpack(&rb, pairs[k].r, t);
			CHECK(nw_cpu_align(&p, s, qb.len[pairs[k].q], t, rb.len[pairs[k].r], ws,
					   &want[k]) == 0, "nw_cpu_align");
			int ok = same_result(&got[k], &want[k]);
			CHECK(ok, "%s: %s narrow variant %d pair %lld: got %lld [%lld,%lld)x[%lld,%lld), "
			      "want %lld [%lld,%lld)x[%lld,%lld)", nw_cpu_isa_name(isa), c->label,
			      variant, (long long)k, (long long)got[k].score, (long long)got[k].qstart,
			      (long long)got[k].qend, (long long)got[k].rstart, (long long)got[k].rend,
			      (long long)want[k].score, (long long)want[k].qstart,
			      (long long)want[k].qend, (long long)want[k].rstart,
			      (long long)want[k].rend);
			nw_result_free(&got[k]);
			nw_result_free(&want[k]);
			memset(&got[k], 0, sizeof got[k]);
		}
		nw_inter_plan_free(&plan);
	}
	{ /* 32 references of one length (copies of the longest query): where 32 fills whole
	   * groups of one pair a lane, those sweep no padding and streams would only add
	   * their lanes' new beginnings; where it leaves lanes empty, streams fill them */
		nw_pair_t same[32];
		for (int j = 0; j < 32; j++)
			same[j] = (nw_pair_t){0, (uint32_t)(NR + j)};
		nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &c->sc};
		nw_inter_plan_t plan;
		CHECK(nw_inter_plan(&p, &qb, &rb, same, 32, isa, &plan) == 0, "plan");
		CHECK(plan.narrow && plan.streams == (32 % (2 * plan.lanes) != 0) && plan.n_groups > 0,
		      "%s: %s: one length: narrow %d, streams %d", nw_cpu_isa_name(isa), c->label,
		      plan.narrow, plan.streams);
		nw_inter_plan_free(&plan);
	}
	printf("unit_inter: %s: %s: %lld lanes in 8 bits, %lld of them again in 16: %lld alone, "
	       "the others in %lld group passes\n", nw_cpu_isa_name(isa), c->label,
	       (long long)ws->narrow_lanes, (long long)ws->narrow_saturated,
	       (long long)ws->narrow_alone, (long long)ws->narrow_regroups);
	/* every kind of lane must have run: 8-bit, saturated alone and in 16-bit groups */
	CHECK(ws->narrow_saturated * 20 >= ws->narrow_lanes / 10 &&
	      ws->narrow_saturated * 2 < ws->narrow_lanes && ws->narrow_alone > 0 &&
	      ws->narrow_regroups > 0,
	      "%s: %s: %lld of %lld 8-bit lanes saturated, %lld alone, %lld group passes",
	      nw_cpu_isa_name(isa), c->label, (long long)ws->narrow_saturated,
	      (long long)ws->narrow_lanes, (long long)ws->narrow_alone,
	      (long long)ws->narrow_regroups);
	nw_workspace_free(ws);
	free(got);
	free(want);
	free(pairs);
	nw_batch_free(&qb);
	nw_batch_free(&rb);
}

/* The striped pass of every set against the scalar passes: n pairs of lengths lo..hi;
 * with flank > 0, each a mutated copy of the query after flank random residues. */
static void run_striped(const scoring_case_t *c, nw_mode_t mode, int n, int64_t lo, int64_t hi,
			int64_t flank)
{
	nw_workspace_t *vec = nw_workspace_new(), *sca = nw_workspace_new(), *team = nw_workspace_new();
	nw_workspace_set_simd(sca, 0);
	/* teams of up to 3 threads in stripes of 64 rows and more, for every pair */
	nw_workspace_set_team(team, 3, 1, 64);
	uint8_t *q = malloc((size_t)hi + 64), *r = malloc((size_t)hi * 2 + (size_t)flank + 64);
	nw_align_params_t p = {.mode = mode, .sc = &c->sc};
	for (int k = 0; k < n; k++) {
		int64_t m = rnd(lo, hi), len = m;
		for (int64_t i = 0; i < m; i++)
			q[i] = code(c->kind);
		if (flank || rnd(0, 2)) { /* a mutated copy inside flanks: scores climb high */
			int64_t a = flank ? flank : rnd(0, hi / 4);
			len = 0;
			for (int64_t i = 0; i < a; i++)
				r[len++] = code(c->kind);
			for (int64_t i = 0; i < m; i++)
				r[len++] = rnd(0, 19) ? q[i] : code(c->kind);
		} else {
			len = rnd(lo, hi);
			for (int64_t i = 0; i < len; i++)
				r[i] = code(c->kind);
		}
		nw_result_t b = {0};
		CHECK(nw_cpu_align(&p, q, m, r, len, sca, &b) == 0, "scalar");
		for (int isa = 0; isa < NW_ISA_COUNT; isa++) {
			if (!nw_cpu_isa_supported(isa))
				continue;
			/* one thread, then (in the default set: the team's code is the same in
			 * every set, and its threads are costly under the sanitizers) the score
			 * passes split over a team of threads */
			for (int w = 0; w < (isa == (int)nw_cpu_isa() ? 2 : 1); w++) {
				nw_workspace_t *x = w ? team : vec;
				const int64_t before = team->team_passes;
				nw_result_t a = {0};
				nw_workspace_set_isa(x, isa);
				int ok = nw_cpu_align(&p, q, m, r, len, x, &a) == 0 && same_result(&a, &b);
				CHECK(ok, "striped%s %s: %s %s %lldx%lld: got %lld [%lld,%lld)x[%lld,%lld), "
					  "want %lld [%lld,%lld)x[%lld,%lld)", w ? " team" : "",
				      nw_cpu_isa_name(isa), c->label, mode_name(mode), (long long)m,
				      (long long)len, (long long)a.score, (long long)a.qstart,
				      (long long)a.qend, (long long)a.rstart, (long long)a.rend,
				      (long long)b.score, (long long)b.qstart, (long long)b.qend,
				      (long long)b.rstart, (long long)b.rend);
				nw_result_free(&a);
				if (w && m >= 128) /* two stripes of 64 rows at least: the team ran */
					CHECK(team->team_passes >= before + 1, "striped team %s: %s %s "
					      "%lldx%lld: no team pass", nw_cpu_isa_name(isa), c->label,
					      mode_name(mode), (long long)m, (long long)len);
			}
		}
		nw_result_free(&b);
	}
	free(q);
	free(r);
	nw_workspace_free(vec);
	nw_workspace_free(sca);
	nw_workspace_free(team);
}

/* Teams (nw_striped_team, the forward and the start's reverse passes) on equal bests in
 * different stripes: a query holding two copies of the reference (the second with a few
 * changes, or exact), local and semiglobal: the bests end in the same reference column,
 * and the first copy's (the smallest query end) must win as in the single pass. */
static void run_team_ties(const scoring_case_t *c)
{
	enum { L = 300, GAP = 100 };
	uint8_t r[L], q[2 * L + GAP];
	nw_workspace_t *one = nw_workspace_new(), *team = nw_workspace_new();
	nw_workspace_set_team(team, 4, 1, 64);
	for (int trial = 0; trial < 8; trial++) {
		for (int i = 0; i < L; i++)
			r[i] = code(c->kind);
		int64_t m = 0;
		for (int i = 0; i < L; i++)
			q[m++] = r[i];
		if (trial >= 4) /* trials 4-7: the second copy is the better one */
			while (q[L / 2] == r[L / 2])
				q[L / 2] = code(c->kind);
		for (int i = 0; i < (trial & 1 ? GAP : 0); i++)
			q[m++] = code(c->kind);
		for (int i = 0; i < L; i++)
			q[m++] = r[i];
		const nw_mode_t modes[] = {NW_MODE_LOCAL, NW_MODE_SEMIGLOBAL};
		for (int md = 0; md < 2; md++)
			for (int isa = 0; isa < NW_ISA_COUNT; isa++) {
				if (isa != (int)nw_cpu_isa() && isa != NW_ISA_GENERIC)
					continue;
				nw_align_params_t p = {.mode = modes[md], .sc = &c->sc};
				nw_result_t a = {0}, b = {0};
				nw_workspace_set_isa(one, isa);
				nw_workspace_set_isa(team, isa);
				const int64_t before = team->team_passes;
				CHECK(nw_cpu_align(&p, q, m, r, L, one, &b) == 0, "single");
				int ok = nw_cpu_align(&p, q, m, r, L, team, &a) == 0 &&
					 same_result(&a, &b) && team->team_passes == before + 2;
				CHECK(ok, "team ties %s: %s %s: got %lld [%lld,%lld)x[%lld,%lld), want %lld "
					  "[%lld,%lld)x[%lld,%lld)", nw_cpu_isa_name(isa), c->label,
				      mode_name(modes[md]), (long long)a.score, (long long)a.qstart,
				      (long long)a.qend, (long long)a.rstart, (long long)a.rend,
				      (long long)b.score, (long long)b.qstart, (long long)b.qend,
				      (long long)b.rstart, (long long)b.rend);
				nw_result_free(&a);
				nw_result_free(&b);
			}
	}
	nw_workspace_free(one);
	nw_workspace_free(team);
}

/* Stopping passes over a team against one thread, called directly with many targets: low
 * ones that cells of several stripes reach in their first columns (the team must keep the
 * first column, then the first stripe), high ones reached late or never (both passes then
 * say so). Anchored passes (the starts' reverse passes) of related and unrelated pairs,
 * TARGET and TARGET_LASTCOL, in the portable set and the default one. */
static void run_team_targets(const scoring_case_t *c)
{
	nw_workspace_t *one = nw_workspace_new(), *team = nw_workspace_new();
	nw_workspace_set_team(team, 4, 1, 64);
	uint8_t *q = malloc(1600), *r = malloc(1600);
	int64_t hits = 0, misses = 0;
	for (int trial = 0; trial < 8; trial++) {
		const int64_t m = rnd(300, 1500), n = rnd(300, 1500);
		for (int64_t i = 0; i < m; i++)
			q[i] = code(c->kind);
		for (int64_t j = 0; j < n; j++) /* half the trials: a mutated copy of the query */
			r[j] = trial % 2 && j < m && rnd(0, 9) ? q[j] : code(c->kind);
		for (int track = 0; track < 2; track++)
			for (int64_t target = -40; target <= 4000; target = target < 40 ? target + 7 : target * 2) {
				st_pass_t st = {.q = q, .r = r, .m = m, .n = n, .sc = &c->sc,
						.track = track ? DP_TRACK_TARGET_LASTCOL : DP_TRACK_TARGET,
						.target = target};
				for (int isa = 0; isa < NW_ISA_COUNT; isa++) {
					if (isa != (int)nw_cpu_isa() && isa != NW_ISA_GENERIC)
						continue;
					nw_workspace_set_isa(one, isa);
					nw_workspace_set_isa(team, isa);
					dp_hit_t a = {0}, b = {0};
					const int ra = nw_striped_pass(one, &st, &b);
					const int rt = nw_striped_team(team, &st, &a);
					/* neither reached the target (or the values left 32 bits) */
					if (ra == 0 && rt == 0) {
						misses++;
						continue;
					}
					CHECK(ra == 1 && rt == 1 && a.row == b.row && a.col == b.col &&
					      a.score == b.score,
					      "team targets %s: %s %s %lldx%lld target %lld: team %d (%lld,%lld), "
					      "one %d (%lld,%lld)", nw_cpu_isa_name(isa), c->label,
					      track ? "lastcol" : "any", (long long)m, (long long)n,
					      (long long)target, rt, (long long)a.row, (long long)a.col, ra,
					      (long long)b.row, (long long)b.col);
					hits++;
				}
			}
	}
	/* both kinds must have come up */
	CHECK(hits > 100 && misses > 10, "team targets %s: %lld hits, %lld misses", c->label,
	      (long long)hits, (long long)misses);
	free(q);
	free(r);
	nw_workspace_free(one);
	nw_workspace_free(team);
}

/* The narrow (8-bit) match/mismatch local groups for end cells (cpu_inter.c's local8_ok:
 * cells of 0..255 in the scores divided by their common divisor) against the per-pair
 * engine, zip pairs. Three pairs in four are short enough that no score can reach 255 in
 * the divided scores (the plan's condition for 8-bit groups), down to the bound itself
 * (copies that score 254); the others are longer: unrelated, or copies that saturate and
 * run again in 16 bits, alone or in groups. Queries past 127 rows put the best in a later
 * row chunk; low-complexity references give ties. */
static void run_narrow_mm(int isa, const scoring_case_t *c)
{
	enum { N = 600, LEN = 700 };
	int ma, mi, K;
	CHECK(nw_scoring_mm(&c->sc, &ma, &mi, &K), "%s: match/mismatch", c->label);
	int g = 0;
	const int v[] = {ma, -mi, c->sc.gap_open, c->sc.gap_extend};
	for (int k = 0; k < 4; k++)
		for (int a = v[k], t; a; a = t)
			t = g % a, g = a;
	const int64_t fit = 254 / (ma / g); /* the longest shorter side that cannot saturate */
	nw_batch_t qb, rb;
	nw_batch_init(&qb, NW_ALPHA_DNA);
	nw_batch_init(&rb, NW_ALPHA_DNA);
	static uint8_t s[LEN], t[LEN];
	for (int k = 0; k < N; k++) {
		const int long_pair = k % 4 == 3, how = (int)rnd(0, 3);
		int64_t m = long_pair ? rnd(fit + 1, LEN - 100) : rnd(1, fit), n;
		if (!long_pair && how == 0)
			m = fit; /* at the bound: a copy scores 254 */
		for (int64_t i = 0; i < m; i++)
			s[i] = code(c->kind);
		if (how == 0 || how == 1) { /* a copy (mutated when 1) inside flanks */
			int64_t a = long_pair ? rnd(0, 60) : 0, b = long_pair ? rnd(0, 30) : 0;
			n = 0;
			for (int64_t i = 0; i < a; i++)
				t[n++] = code(c->kind);
			for (int64_t i = 0; i < m; i++)
				t[n++] = how == 1 && rnd(0, 19) == 0 ? code(c->kind) : s[i];
			for (int64_t i = 0; i < b; i++)
				t[n++] = code(c->kind);
		} else if (how == 2) { /* low complexity */
			n = rnd(1, long_pair ? LEN - 1 : fit);
			uint8_t x = code(c->kind), y = code(c->kind);
			for (int64_t i = 0; i < n; i++)
				t[i] = rnd(0, 4) ? x : y;
		} else { /* unrelated */
			n = rnd(1, LEN - 1);
			for (int64_t i = 0; i < n; i++)
				t[i] = code(c->kind);
		}
		CHECK(nw_batch_push(&qb, "q", s, (uint32_t)m, NULL) == 0, "push");
		CHECK(nw_batch_push(&rb, "r", t, (uint32_t)n, NULL) == 0, "push");
	}
	nw_pair_t *pairs = malloc(sizeof *pairs * N);
	for (int k = 0; k < N; k++)
		pairs[k] = (nw_pair_t){(uint32_t)k, (uint32_t)k};
	nw_result_t *got = calloc(N, sizeof *got), *want = calloc(N, sizeof *want);
	nw_workspace_t *ws = nw_workspace_new();
	const nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &c->sc, .ends_only = 1};
	nw_inter_plan_t plan;
	CHECK(nw_inter_plan(&p, &qb, &rb, pairs, N, isa, &plan) == 0, "plan");
	CHECK(plan.narrow && plan.n_rest < N / 10, "%s: %s: narrow %d, %lld pairs alone",
	      nw_cpu_isa_name(isa), c->label, plan.narrow, (long long)plan.n_rest);
	run_plan(ws, &p, &qb, &rb, pairs, &plan, got);
	int64_t high = 0; /* pairs that score 254 or more in the divided scores */
	for (int k = 0; k < N; k++) {
		nw_batch_unpack(&qb, pairs[k].q, s);
		nw_batch_unpack(&rb, pairs[k].r, t);
		CHECK(nw_cpu_align(&p, s, qb.len[k], t, rb.len[k], ws, &want[k]) == 0,
		      "nw_cpu_align");
		high += want[k].score >= 254 * g;
		int ok = same_result(&got[k], &want[k]);
		CHECK(ok, "%s: %s narrow local pair %d (%lld x %lld): got %lld end %lld,%lld, "
		      "want %lld end %lld,%lld", nw_cpu_isa_name(isa), c->label, k,
		      (long long)qb.len[k], (long long)rb.len[k], (long long)got[k].score,
		      (long long)got[k].qend, (long long)got[k].rend, (long long)want[k].score,
		      (long long)want[k].qend, (long long)want[k].rend);
	}
	printf("unit_inter: %s: %s local ends: %lld lanes in 8 bits (scores / %d), %lld of them "
	       "again in 16: %lld alone, the others in %lld group passes; %lld pairs at 254 or "
	       "more\n", nw_cpu_isa_name(isa), c->label, (long long)ws->narrow_lanes, g,
	       (long long)ws->narrow_saturated, (long long)ws->narrow_alone,
	       (long long)ws->narrow_regroups, (long long)high);
	/* every kind of lane must have run, and scores at the top of the 8-bit range */
	CHECK(ws->narrow_lanes > N / 2 && ws->narrow_saturated > 0 &&
	      ws->narrow_saturated * 3 < ws->narrow_lanes && high > N / 20,
	      "%s: %s: %lld of %lld 8-bit lanes saturated, %lld at 254 or more",
	      nw_cpu_isa_name(isa), c->label, (long long)ws->narrow_saturated,
	      (long long)ws->narrow_lanes, (long long)high);
	free_results(got, want, N);
	nw_inter_plan_free(&plan);
	nw_workspace_free(ws);
	free(pairs);
	nw_batch_free(&qb);
	nw_batch_free(&rb);
}

int main(void)
{
	static scoring_case_t cases[10];
	char err[256];
	int nc = 0;
	struct {
		int ma, mi, O, X, kind;
		const char *label;
	} dna[] = {{2, 4, 4, 2, 0, "dna 2/4 4+2L"},
		   {1, 1, 0, 1, 1, "dna 1/1 linear, IUPAC"},
		   {5, 0, 3, 1, 1, "dna 5/0 3+1L, IUPAC"},
		   {2, 3, 30, 1, 0, "dna 2/3 30+1L"}};
	const int n_dna = (int)(sizeof dna / sizeof dna[0]);
	for (size_t k = 0; k < sizeof dna / sizeof dna[0]; k++, nc++) {
		cases[nc].label = dna[k].label;
		cases[nc].kind = dna[k].kind;
		CHECK(nw_scoring_dna(&cases[nc].sc, dna[k].ma, dna[k].mi, dna[k].O, dna[k].X, err,
				     sizeof err) == 0, "%s", err);
	}
	struct {
		const char *m;
		int O, X, kind;
		const char *label;
	} mat[] = {{"ednafull", 10, 1, 1, "ednafull 10+1L"},
		   {"blosum62", 10, 1, 2, "blosum62 10+1L"},
		   {"blosum62", 0, 4, 2, "blosum62 linear 4"},
		   {"pam250", 12, 2, 2, "pam250 12+2L"}};
	for (size_t k = 0; k < sizeof mat / sizeof mat[0]; k++, nc++) {
		cases[nc].label = mat[k].label;
		cases[nc].kind = mat[k].kind;
		CHECK(nw_scoring_matrix(&cases[nc].sc, mat[k].m,
					mat[k].kind == 2 ? NW_ALPHA_PROTEIN : NW_ALPHA_DNA, mat[k].O,
					mat[k].X, err, sizeof err) == 0, "%s", err);
	}
	/* the inter-sequence passes alone also take the 8-bit global pass's limits
	 * (inter_diff_kernel.h): 2 ma + 4 (O + X) = 124, at the bound; a mismatch below z's
	 * floor -2 (O + X). (2/3 30+1L above runs its global groups in 16 bits.) */
	const int n_base = nc;
	struct {
		int ma, mi, O, X;
		const char *label;
	} edge[] = {{20, 1, 20, 1, "dna 20/1 20+1L"}, {1, 30, 10, 1, "dna 1/30 10+1L"}};
	for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++, nc++) {
		cases[nc].label = edge[k].label;
		cases[nc].kind = 0;
		CHECK(nw_scoring_dna(&cases[nc].sc, edge[k].ma, edge[k].mi, edge[k].O, edge[k].X,
				     err, sizeof err) == 0, "%s", err);
	}
	const nw_mode_t modes[] = {NW_MODE_GLOBAL, NW_MODE_LOCAL, NW_MODE_SEMIGLOBAL};
	int ran = 0;
	for (int isa = 0; isa < NW_ISA_COUNT; isa++) {
		if (!nw_cpu_isa_supported(isa)) {
			printf("unit_inter: %s: not run, this processor does not have it\n",
			       nw_cpu_isa_name(isa));
			continue;
		}
		ran++;
		starts_narrow = starts_wide = 0;
		run_long_refs(isa);
		run_long_global(isa);
		for (int c = n_dna + 1; c < n_base; c++) /* the protein matrices */
			run_narrow(isa, &cases[c]);
		for (int c = 0; c < nc; c++)
			if (c < n_dna || c >= n_base) { /* match/mismatch */
				run_band_edges(isa, &cases[c]);
				run_narrow_mm(isa, &cases[c]);
			}
		int64_t grouped_mm = 0, total_mm = 0, grouped_pr = 0, total_pr = 0;
		for (int c = 0; c < nc; c++)
			for (int m = 0; m < 3; m++)
				for (int v = 0; v < 5; v++)
					for (int all = 0; all < 2; all++) {
						int mmform = c < n_dna || c >= n_base;
						run_case(isa, &cases[c], modes[m], v, all,
							 mmform ? &grouped_mm : &grouped_pr,
							 mmform ? &total_mm : &total_pr);
					}
		printf("unit_inter: %s: %lld of %lld match/mismatch pairs and %lld of %lld "
		       "matrix pairs through the inter-sequence passes\n",
		       nw_cpu_isa_name(isa), (long long)grouped_mm, (long long)total_mm,
		       (long long)grouped_pr, (long long)total_pr);
		/* most pairs fit; matrix pairs group all-against-all (less the short last
		 * groups of a query), and for paths */
		printf("unit_inter: %s: starts in groups by band: %lld pairs in 8-bit lanes, %lld in "
		       "16-bit lanes\n", nw_cpu_isa_name(isa), (long long)starts_narrow,
		       (long long)starts_wide);
		CHECK(starts_narrow > 0 && starts_wide > 0, "%s: starts in 8 and 16 bits",
		      nw_cpu_isa_name(isa));
		CHECK(grouped_mm * 10 > total_mm * 8, "%s: too few pairs grouped", nw_cpu_isa_name(isa));
		CHECK(grouped_pr * 2 > total_pr, "%s: %lld of %lld matrix pairs grouped",
		      nw_cpu_isa_name(isa), (long long)grouped_pr, (long long)total_pr);
	}
	CHECK(ran >= 1, "no instruction set ran");
	for (int c = 0; c < n_base; c++)
		for (int m = 0; m < 3; m++) {
			run_striped(&cases[c], modes[m], 30, 1, 1200, 0);
			run_striped(&cases[c], modes[m], 1, 3000, 6000, 0);
		}
	/* A semiglobal start pass (reverse, the reference's gaps charged) with gap steps of 8:
	 * its first column and top row fall below 16 bits and saturate there within the
	 * 5,000-6,000 columns it runs, while the target (a copy of the read) lies far above
	 * what a saturated cell can reach, so the whole pass runs in 16 bits. */
	for (int c = 0; c < n_base; c++) {
		run_team_ties(&cases[c]);
		run_team_targets(&cases[c]);
	}
	static scoring_case_t steep = {.label = "dna 1/1 10+8L", .kind = 0};
	CHECK(nw_scoring_dna(&steep.sc, 1, 1, 10, 8, err, sizeof err) == 0, "%s", err);
	run_striped(&steep, NW_MODE_SEMIGLOBAL, 2, 5000, 6000, 3000);
	return tu_finish("unit_inter");
}
