/* gpu_diff.c: the GPU engine (nw_gpu_align) against the CPU engine (nw_cpu_align).
 *
 * Every pair must give the same score, qstart, qend, rstart and rend. Sets of pairs:
 *  - random and mutated pairs of 1..300 residues, DNA (ACGT only: the 2-bit XOR scorer;
 *    N-rich with IUPAC codes: the table scorer) and protein, every mode, linear and affine
 *    gaps, three scorings; single residues, identical sequences; near-identical pairs
 *    between unrelated flanks (narrow bands in the reverse pass), up to 2,500 residues;
 *  - all against all (N-rich DNA, protein): the query-profile scorer, queries of lengths
 *    around its stripe sizes;
 *  - lengths around the batch kernel's stripe sizes (multiples of 8..32 rows times 1..32
 *    threads, +-1), and medium pairs that take several stripes;
 *  - 16-bit overflow: local pairs whose score passes 32767 (redone in 32 bits), global
 *    pairs whose gap costs do not fit 16 bits;
 *  - the long-pair kernel: pairs past its threshold, and medium pairs sent to it through
 *    the NW_GPU_LONG_MIN hook, in 32 and (NW_GPU_WIDE) 64 bits, as a staircase and
 *    (NW_GPU_LONG_DIAG) by anti-diagonals;
 *  - real data from $top_srcdir/../shared/data (or NW_DATA_DIR): lambda segments against
 *    mutated reads, globins and MMseqs2 proteins all against all;
 *  - --top ranked on the device (nw_gpu_top) against the CPU's results ranked on the host,
 *    all against all, an empty reference and long-kernel problems among them;
 *  - batch runs planned in small slices (NW_GPU_SLICE), as big runs are.
 * NW_GPU_DIFF_QUICK=1 shrinks the sets (for compute-sanitizer).
 * Exits 77 when the build has no CUDA engine or no device is present.
 *
 * gpu_diff --emulated (tests/gpu_emul.sh): the random sets, smallest sizes, through the
 * kernels' thread logic replayed on the host (nw_gpu_align_emulated), each set in one
 * shape of a rotating list (batch kernel G x R, or the long kernel's tiles), and the
 * all-against-all sets through the query profile; needs the CUDA build, not a device
 * (exit 77 without CUDA).
 *
 * gpu_diff --bench Q.fa R.fa {local|global|semi} {dna|protein} REPS [all]: not a test;
 * times nw_gpu_align on zip (or all-vs-all) pairs repeated REPS times (DNA 2/4 gaps 4/2,
 * protein blosum62 gaps 10/1; NW_BENCH_GAPS=O,E, NW_BENCH_ENDS=1 for ends only,
 * NW_BENCH_ITERS calls, the first one a warm-up).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "nwalign.h"
#include "gpu/gpu.h"
#include "testutil.h"

#define MAX_PRINT 20

static uint64_t seed = 0x2545f4914f6cdd1dull;
static int quick, n_printed;
static nw_emul_shape_t emul; /* --emulated: the kernel and shape replayed (G 0: the device) */
static nw_gpu_t *gpu;
static nw_workspace_t *ws;
static char err[512];

static int rnd(int lo, int hi) { return lo + (int)(tu_rand(&seed) % (uint64_t)(hi - lo + 1)); }

/* ---------------------------------------------------------------- a set of pairs */
typedef struct {
	nw_batch_t q, r;
	nw_pair_t *pairs;
	int64_t n, cap;
} set_t;

static void set_init(set_t *s, nw_alphabet_t a)
{
	memset(s, 0, sizeof *s);
	nw_batch_init(&s->q, a);
	nw_batch_init(&s->r, a);
}

static void set_free(set_t *s)
{
	nw_batch_free(&s->q);
	nw_batch_free(&s->r);
	free(s->pairs);
}

static void set_pair(set_t *s, uint32_t q, uint32_t r)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->pairs = realloc(s->pairs, (size_t)s->cap * sizeof *s->pairs);
		if (!s->pairs) abort();
	}
	s->pairs[s->n].q = q;
	s->pairs[s->n].r = r;
	s->n++;
}

/* Every query against every reference, query-major (the pipeline's all-vs-all order). */
static void set_all_pairs(set_t *s)
{
	for (int64_t i = 0; i < s->q.n; i++)
		for (int64_t j = 0; j < s->r.n; j++) set_pair(s, (uint32_t)i, (uint32_t)j);
}

/* Push q and r as a new zip pair. */
static void set_add(set_t *s, const uint8_t *q, uint32_t ql, const uint8_t *r, uint32_t rl)
{
	CHECK(nw_batch_push(&s->q, "q", q, ql, NULL) == 0, "push query");
	CHECK(nw_batch_push(&s->r, "r", r, rl, NULL) == 0, "push reference");
	set_pair(s, (uint32_t)(s->q.n - 1), (uint32_t)(s->r.n - 1));
}

/* ---------------------------------------------------------------- sequences
 * kind 0: DNA ACGT; 1: DNA, N-rich with IUPAC codes; 2: protein (mostly the 20 amino
 * acids); 3: protein rich in high-scoring residues (W C H Y) for 16-bit overflow. */
static void rand_seq(uint8_t *x, uint32_t n, int kind)
{
	static const uint8_t hi[] = {17, 4, 8, 18}; /* W C H Y */
	for (uint32_t i = 0; i < n; i++) {
		switch (kind) {
		case 0: x[i] = (uint8_t)rnd(0, 3); break;
		case 1: x[i] = rnd(0, 9) < 3 ? 4 : rnd(0, 9) == 0 ? (uint8_t)rnd(5, 14) : (uint8_t)rnd(0, 3); break;
		case 2: x[i] = rnd(0, 49) == 0 ? (uint8_t)rnd(20, 23) : (uint8_t)rnd(0, 19); break;
		default: x[i] = hi[rnd(0, 3)]; break;
		}
	}
}

/* y = x with substitutions, insertions and deletions at about rate/1000 each. */
static uint32_t mutate(const uint8_t *x, uint32_t n, uint8_t *y, uint32_t cap, int rate, int kind)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n && k < cap; i++) {
		int u = rnd(0, 999);
		if (u < rate) { /* substitution */
			rand_seq(&y[k++], 1, kind);
		} else if (u < 2 * rate) { /* deletion of 1..4 */
			i += (uint32_t)rnd(0, 3);
		} else if (u < 3 * rate) { /* insertion of 1..4 */
			int l = rnd(1, 4);
			for (int t = 0; t < l && k < cap; t++) rand_seq(&y[k++], 1, kind);
			if (k < cap) y[k++] = x[i];
		} else {
			y[k++] = x[i];
		}
	}
	if (k == 0) y[k++] = x[0];
	return k;
}

/* A pair of lengths about (ql, rl): unrelated, mutated copy, embedded, or identical. */
static void add_pair(set_t *s, uint32_t ql, uint32_t rl, int kind, uint8_t *a, uint8_t *b, uint32_t cap)
{
	int how = rnd(0, 5);
	if (ql > cap / 2) ql = cap / 2;
	if (rl > cap / 2) rl = cap / 2;
	rand_seq(a, ql, kind);
	if (how == 0) { /* unrelated */
		rand_seq(b, rl, kind);
	} else if (how == 1 && rl >= ql) { /* query embedded in a longer reference */
		rand_seq(b, rl, kind);
		uint32_t at = (uint32_t)rnd(0, (int)(rl - ql));
		uint8_t *t = malloc(2 * (size_t)ql + 8);
		uint32_t tl = mutate(a, ql, t, 2 * ql + 8, 30, kind);
		for (uint32_t i = 0; i < tl && at + i < rl; i++) b[at + i] = t[i];
		free(t);
	} else if (how == 2) { /* identical */
		memcpy(b, a, ql);
		rl = ql;
	} else {
		rl = mutate(a, ql, b, rl > ql ? rl : ql, how == 3 ? 10 : 80, kind);
	}
	set_add(s, a, ql, b, rl);
}

/* ---------------------------------------------------------------- compare */
static const char *mode_name(nw_mode_t m)
{
	return m == NW_MODE_LOCAL ? "local" : m == NW_MODE_SEMIGLOBAL ? "semiglobal" : "global";
}

/* With p->ends_only, a second phase gives the GPU's ends to a starts_only call (what --top
 * and --strand both do) and compares with the CPU's full results. */
static void run_set(const char *label_in, set_t *s, const nw_align_params_t *p_in)
{
	nw_result_t *g = calloc((size_t)s->n + 1, sizeof *g);
	uint8_t *q = NULL, *r = NULL;
	uint32_t qcap = 0, rcap = 0;
	if (!g) abort();
	nw_align_params_t phase = *p_in;
	const nw_align_params_t *p = &phase;
	char label[200];
	snprintf(label, sizeof label, "%s", label_in);
	/* (with need, only the results that reach it are defined: no starts-only phase) */
	for (int ph = 0; ph < (p_in->ends_only && !p_in->need ? 2 : 1); ph++) {
	if (ph == 1) {
		phase.ends_only = 0;
		phase.starts_only = 1;
		snprintf(label, sizeof label, "%s, then starts-only", label_in);
	}
	const int emulated = emul.G || emul.long_tc;
	int rc = emulated ? nw_gpu_align_emulated(p, &s->q, &s->r, s->pairs, s->n, &emul, g, err, sizeof err)
			  : nw_gpu_align(gpu, p, &s->q, &s->r, s->pairs, s->n, g, err, sizeof err);
	CHECK(rc == 0, "%s: nw_gpu_align%s: %s", label, emulated ? "_emulated" : "", err);
	if (rc != 0) {
		free(g);
		return;
	}
	int64_t n_diff = 0;
	for (int64_t k = 0; k < s->n; k++) {
		uint32_t qi = s->pairs[k].q, ri = s->pairs[k].r;
		uint32_t ql = s->q.len[qi], rl = s->r.len[ri];
		if (ql + 1 > qcap) qcap = ql + 1, q = realloc(q, qcap);
		if (rl + 1 > rcap) rcap = rl + 1, r = realloc(r, rcap);
		nw_batch_unpack(&s->q, qi, q);
		nw_batch_unpack(&s->r, ri, r);
		nw_result_t c;
		memset(&c, 0, sizeof c);
		nw_align_params_t cp = *p;
		cp.want_path = 0;
		cp.starts_only = 0;
		cp.need = NULL; /* the exact result (nw_cpu_align reads need[0] as its pair's) */
		int crc = nw_cpu_align(&cp, q, ql, r, rl, ws, &c);
		CHECK(crc == 0, "%s: nw_cpu_align failed on pair %" PRId64, label, k);
		/* below its need, a pair's score must stay below it; the rest is unspecified */
		const int below = p->need && c.score < p->need[k];
		int same = below ? g[k].score < p->need[k]
				 : g[k].score == c.score && g[k].qstart == c.qstart && g[k].qend == c.qend &&
					   g[k].rstart == c.rstart && g[k].rend == c.rend;
		if (!same) n_diff++;
		if (same) {
			tu_passed++;
		} else if (n_printed++ < MAX_PRINT) {
			const char *ctx = label;
			if (below)
				CHECK(0, "%s pair %" PRId64 ": score %" PRId64 " not below its need %" PRId64 " (optimum %" PRId64 ")",
				      ctx, k, g[k].score, p->need[k], c.score);
			CHECK_EQ_I64(g[k].score, c.score, "%s pair %" PRId64 " (%u x %u)", ctx, k, ql, rl);
			CHECK_EQ_I64(g[k].qstart, c.qstart, "%s pair %" PRId64, ctx, k);
			CHECK_EQ_I64(g[k].qend, c.qend, "%s pair %" PRId64, ctx, k);
			CHECK_EQ_I64(g[k].rstart, c.rstart, "%s pair %" PRId64, ctx, k);
			CHECK_EQ_I64(g[k].rend, c.rend, "%s pair %" PRId64, ctx, k);
		} else {
			tu_failed++;
		}
		nw_result_free(&c);
	}
	if (n_diff) printf("FAIL %s: %" PRId64 " of %" PRId64 " pairs differ\n", label, n_diff, s->n);
	}
	free(q);
	free(r);
	free(g);
}

/* Whether nw_gpu_top must take its search pass (src/gpu/gpu_search.cu) for p: local
 * protein scores, at least 8 references, the pass not switched off. */
static int search_expected(const nw_align_params_t *p, int64_t n_ref)
{
	const char *e = getenv("NW_GPU_SEARCH");
	return p->mode == NW_MODE_LOCAL && p->sc->alphabet == NW_ALPHA_PROTEIN && n_ref >= 8 && !(e && *e == '0');
}

/* --top on the device (nw_gpu_top) against the CPU's ends of every pair ranked on the host
 * by the pipeline's rule: higher score, then earlier reference. s holds whole queries
 * against every reference, in order. Where the search pass must take the call, that it
 * did. */
static void top_check(const char *label, set_t *s, const nw_align_params_t *p_in, int top)
{
	const int64_t n_ref = s->r.n, n_q = s->n / n_ref;
	const int64_t kept = top < n_ref ? top : n_ref;
	nw_pair_t *kp = calloc((size_t)s->n + 1, sizeof *kp);
	nw_result_t *kr = calloc((size_t)s->n + 1, sizeof *kr), *c = calloc((size_t)n_ref, sizeof *c);
	int64_t *order = calloc((size_t)n_ref, sizeof *order);
	uint8_t *q = malloc(s->q.max_len + 1), *r = malloc(s->r.max_len + 1);
	if (!kp || !kr || !c || !order || !q || !r) abort();
	nw_align_params_t p = *p_in;
	p.ends_only = 1;
	int64_t n_kept = -1, n_diff = 0, sp0, sg0, sp1, sg1;
	nw_gpu_search_pairs(gpu, &sp0, &sg0);
	CHECK(s->n == n_q * n_ref, "%s: top_check takes every query against every reference", label);
	int rc = nw_gpu_top(gpu, &p, &s->q, &s->r, top, kp, kr, &n_kept, err, sizeof err);
	CHECK(rc == 0, "%s top %d: nw_gpu_top: %s", label, top, err);
	nw_gpu_search_pairs(gpu, &sp1, &sg1);
	if (search_expected(&p, n_ref))
		CHECK_EQ_I64(sp1 - sp0, s->n, "%s top %d: pairs of the search pass", label, top);
	else
		CHECK_EQ_I64(sp1 - sp0, 0, "%s top %d: pairs of the search pass", label, top);
	CHECK_EQ_I64(n_kept, n_q * kept, "%s top %d: results kept", label, top);
	for (int64_t i = 0; rc == 0 && n_kept == n_q * kept && i < n_q; i++) {
		nw_batch_unpack(&s->q, s->pairs[i * n_ref].q, q);
		for (int64_t j = 0; j < n_ref; j++) {
			const nw_pair_t *pr = &s->pairs[i * n_ref + j];
			nw_batch_unpack(&s->r, pr->r, r);
			memset(&c[j], 0, sizeof c[j]);
			CHECK(nw_cpu_align(&p, q, s->q.len[pr->q], r, s->r.len[pr->r], ws, &c[j]) == 0,
			      "%s: nw_cpu_align", label);
			/* insertion into the ranking: stable, so equal scores keep reference order */
			int64_t at = j;
			while (at > 0 && c[order[at - 1]].score < c[j].score) {
				order[at] = order[at - 1];
				at--;
			}
			order[at] = j;
		}
		for (int64_t t = 0; t < kept; t++) {
			const nw_result_t *g = &kr[i * kept + t], *w = &c[order[t]];
			const nw_pair_t *gp = &kp[i * kept + t], *wp = &s->pairs[i * n_ref + order[t]];
			int same = gp->q == wp->q && gp->r == wp->r && g->score == w->score && g->qend == w->qend &&
				   g->rend == w->rend && g->qstart == 0 && g->rstart == 0;
			if (same) {
				tu_passed++;
				continue;
			}
			n_diff++;
			if (n_printed++ < MAX_PRINT) {
				CHECK_EQ_I64(gp->r, wp->r, "%s top %d query %" PRId64 " rank %" PRId64 ": reference", label, top, i, t);
				CHECK_EQ_I64(g->score, w->score, "%s top %d query %" PRId64 " rank %" PRId64 ": score", label, top, i, t);
				CHECK_EQ_I64(g->qend, w->qend, "%s top %d query %" PRId64 " rank %" PRId64 ": qend", label, top, i, t);
				CHECK_EQ_I64(g->rend, w->rend, "%s top %d query %" PRId64 " rank %" PRId64 ": rend", label, top, i, t);
			} else {
				tu_failed++;
			}
		}
	}
	if (n_diff) printf("FAIL %s top %d: %" PRId64 " kept results differ\n", label, top, n_diff);
	free(kp);
	free(kr);
	free(c);
	free(order);
	free(q);
	free(r);
}

/* ---------------------------------------------------------------- sets */
typedef struct {
	const char *name;
	nw_scoring_t sc;
	int kinds[2]; /* sequence kinds used with this scoring */
} scoring_t;

static void random_sets(scoring_t *S, nw_mode_t mode)
{
	enum { CAP = 20000 };
	static uint8_t a[CAP], b[CAP];
	static const uint32_t edges[] = {1, 2, 7, 8, 9, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129,
					 159, 160, 161, 191, 192, 193, 255, 256, 257, 383, 384, 385, 511,
					 512, 513, 767, 768, 769, 1023, 1024, 1025};
	nw_align_params_t p = {.mode = mode, .sc = &S->sc};
	char label[160];
	for (int kk = 0; kk < 2; kk++) {
		int kind = S->kinds[kk];
		set_t s;
		set_init(&s, S->sc.alphabet);
		int nshort = quick >= 2 ? 20 : quick ? 60 : 220;
		for (int i = 0; i < nshort; i++)
			add_pair(&s, (uint32_t)rnd(1, rnd(0, 3) ? 60 : 300), (uint32_t)rnd(1, rnd(0, 3) ? 60 : 300), kind, a, b, CAP);
		for (int i = 0; i < 6; i++) { /* single residues */
			add_pair(&s, 1, 1, kind, a, b, CAP);
			add_pair(&s, 1, (uint32_t)rnd(1, 50), kind, a, b, CAP);
			add_pair(&s, (uint32_t)rnd(1, 50), 1, kind, a, b, CAP);
		}
		int ne = (int)(sizeof edges / sizeof *edges);
		for (int i = 0; i < (quick >= 2 ? 4 : quick ? 12 : ne); i++) {
			uint32_t e = edges[quick ? rnd(0, ne - 1) : i];
			add_pair(&s, e, (uint32_t)rnd(1, 400), kind, a, b, CAP);
			add_pair(&s, (uint32_t)rnd(1, 400), e, kind, a, b, CAP);
		}
		for (int i = 0; i < (quick >= 2 ? 1 : quick ? 2 : 8); i++) /* several stripes */
			add_pair(&s, (uint32_t)rnd(1000, 3000), (uint32_t)rnd(500, 3000), kind, a, b, CAP);
		snprintf(label, sizeof label, "random %s %s gaps %d/%d kind %d", S->name, mode_name(mode),
			 S->sc.gap_open, S->sc.gap_extend, kind);
		run_set(label, &s, &p);
		if (kind == S->kinds[0]) { /* score and end only (--top ranking) */
			nw_align_params_t pe = p;
			pe.ends_only = 1;
			strncat(label, " ends-only", sizeof label - strlen(label) - 1);
			run_set(label, &s, &pe);
		}
		set_free(&s);
		/* near-identical pairs between unrelated flanks (reads in their windows): narrow
		 * bands for the reverse pass, whose stripes then sweep only column windows (a third
		 * of the pairs have no flanks: narrower still); lengths from one stripe to many */
		set_init(&s, S->sc.alphabet);
		for (int i = 0; i < (quick >= 2 ? 10 : quick ? 30 : 160); i++) {
			const uint32_t flanks = (uint32_t)rnd(0, 2) != 0;
			uint32_t core = (uint32_t)rnd(1, rnd(0, 2) ? 300 : 2500), fq = flanks * (uint32_t)rnd(0, 3) * (uint32_t)rnd(0, 20),
				 fr = flanks * (uint32_t)rnd(0, 60), tail = (uint32_t)rnd(0, 1) * (uint32_t)rnd(0, 40);
			uint8_t *c = a + fq; /* query: flank, core, tail */
			rand_seq(a, fq + core + tail, kind);
			uint32_t rl = fr;
			rand_seq(b, fr, kind);
			rl += mutate(c, core, b + fr, CAP / 2, rnd(0, 3) ? rnd(0, 8) : rnd(9, 40), kind);
			uint32_t rt = (uint32_t)rnd(0, 60);
			rand_seq(b + rl, rt, kind);
			set_add(&s, a, fq + core + tail, b, rl + rt);
		}
		snprintf(label, sizeof label, "near-identical %s %s gaps %d/%d kind %d", S->name, mode_name(mode),
			 S->sc.gap_open, S->sc.gap_extend, kind);
		run_set(label, &s, &p);
		set_free(&s);
	}
}

/* All against all: many pairs share a query, so that table-scored forward passes take
 * the query profile (pairs of one query in both lanes, batches padded at each query;
 * emulated with shape.prof, the same). */
static void all_vs_all_sets(scoring_t *S, nw_mode_t mode)
{
	enum { CAP = 4000 };
	static uint8_t a[CAP];
	static const uint32_t qlens[] = {1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 255, 256, 257, 511, 512, 513, 1500};
	nw_align_params_t p = {.mode = mode, .sc = &S->sc};
	char label[160];
	int kind = S->kinds[1];
	set_t s;
	set_init(&s, S->sc.alphabet);
	int nq = quick >= 2 ? 3 : quick ? 5 : 9, nr = quick >= 2 ? 20 : quick ? 40 : 90;
	for (int i = 0; i < nq; i++) {
		uint32_t l = i < 2 ? (uint32_t)rnd(1, 300) : qlens[rnd(0, (int)(sizeof qlens / sizeof *qlens) - 1)];
		rand_seq(a, l, kind);
		CHECK(nw_batch_push(&s.q, "q", a, l, NULL) == 0, "push query");
	}
	for (int i = 0; i < nr; i++) {
		uint32_t l = (uint32_t)rnd(1, rnd(0, 3) ? 300 : 1200);
		if (i == 3) { /* an empty reference: the twin's result, ranked among the rest */
			CHECK(nw_batch_push(&s.r, "r", a, 0, NULL) == 0, "push reference");
			continue;
		}
		if (i % 5 == 0 && s.q.n > 0) { /* a mutated copy of a query: high scores */
			uint8_t *q = malloc(s.q.len[i % s.q.n] + 1);
			nw_batch_unpack(&s.q, i % s.q.n, q);
			l = mutate(q, s.q.len[i % s.q.n], a, CAP, 20, kind);
			free(q);
		} else {
			rand_seq(a, l, kind);
		}
		CHECK(nw_batch_push(&s.r, "r", a, l, NULL) == 0, "push reference");
	}
	set_all_pairs(&s);
	snprintf(label, sizeof label, "all-vs-all %s %s gaps %d/%d kind %d", S->name, mode_name(mode),
		 S->sc.gap_open, S->sc.gap_extend, kind);
	run_set(label, &s, &p);
	nw_align_params_t pe = p;
	pe.ends_only = 1;
	strncat(label, " ends-only", sizeof label - strlen(label) - 1);
	run_set(label, &s, &pe);
	if (emul.G) { /* emulated: the kernels' logic; --top and slices are the engine's */
		set_free(&s);
		return;
	}
	const int tops[3] = {1, 3, nr + 2};
	for (int t = 0; t < 3; t++) top_check(label, &s, &p, tops[t]);
	/* batch runs planned in slices (a big-problem slice first) that queue behind each other */
	setenv("NW_GPU_SLICE", "37", 1);
	strncat(label, ", slices of 37", sizeof label - strlen(label) - 1);
	run_set(label, &s, &pe);
	top_check(label, &s, &p, 2);
	unsetenv("NW_GPU_SLICE");
	set_free(&s);
}

/* 16-bit limits and the long kernel, for one scoring and mode. */
static void big_sets(scoring_t *S, nw_mode_t mode)
{
	enum { CAP = 20000 };
	static uint8_t a[CAP], b[CAP];
	nw_align_params_t p = {.mode = mode, .sc = &S->sc};
	char label[160];
	int kind = S->kinds[0];
	set_t s;
	set_init(&s, S->sc.alphabet);
	if (S->sc.alphabet == NW_ALPHA_PROTEIN) { /* local scores past 32767 */
		uint32_t l = quick ? 3900 : (uint32_t)rnd(3800, 4200);
		rand_seq(a, l, 3);
		set_add(&s, a, l, a, l);
		uint32_t l2 = mutate(a, l, b, CAP, 5, 3);
		set_add(&s, a, l, b, l2);
	} else { /* gap costs past 16 bits in global / semiglobal; DNA local up to its limit */
		rand_seq(a, 6900, kind);
		uint32_t l2 = mutate(a, 6900, b, 9600, 20, kind);
		rand_seq(b + l2, 9600 - l2, kind); /* 6900 + 9600 rows and columns: gap costs past int16 */
		set_add(&s, a, 6900, b, 9600);
		set_add(&s, a, 6900, a, 6900);
	}
	snprintf(label, sizeof label, "16-bit limits %s %s", S->name, mode_name(mode));
	run_set(label, &s, &p);
	set_free(&s);
	if (quick) return;
	/* past the long kernel's threshold: 8200 x 8200 */
	set_init(&s, S->sc.alphabet);
	rand_seq(a, 8200, kind);
	uint32_t l2 = mutate(a, 8200, b, CAP, 30, kind);
	if (l2 < 8200) rand_seq(b + l2, 8200 - l2, kind), l2 = 8200;
	set_add(&s, a, 8200, b, l2);
	snprintf(label, sizeof label, "long %s %s", S->name, mode_name(mode));
	run_set(label, &s, &p);
	set_free(&s);
}

/* Medium pairs through the long kernel (NW_GPU_LONG_MIN), 32 and 64 bits, by its staircase
 * and (NW_GPU_LONG_DIAG) by anti-diagonals. */
static void long_hook_sets(scoring_t *S, nw_mode_t mode)
{
	enum { CAP = 4000 };
	static uint8_t a[CAP], b[CAP];
	nw_align_params_t p = {.mode = mode, .sc = &S->sc};
	char label[160];
	for (int variant = 0; variant < 4; variant++) {
		const int wide = variant & 1, diag = variant >> 1;
		set_t s;
		set_init(&s, S->sc.alphabet);
		for (int i = 0; i < (quick ? 3 : 12); i++)
			add_pair(&s, (uint32_t)rnd(2, quick >= 2 ? 300 : quick ? 700 : 1500), (uint32_t)rnd(2, quick >= 2 ? 300 : quick ? 700 : 1500),
				 S->kinds[i & 1], a, b, CAP);
		setenv("NW_GPU_LONG_MIN", "2", 1);
		setenv("NW_GPU_WIDE", wide ? "1" : "0", 1);
		setenv("NW_GPU_LONG_DIAG", diag ? "1" : "0", 1);
		snprintf(label, sizeof label, "long kernel%s%s %s %s", wide ? " 64-bit" : "", diag ? " anti-diagonals" : "",
			 S->name, mode_name(mode));
		run_set(label, &s, &p);
		unsetenv("NW_GPU_LONG_MIN");
		unsetenv("NW_GPU_WIDE");
		unsetenv("NW_GPU_LONG_DIAG");
		set_free(&s);
	}
	/* --top over all against all where some problems take the long kernel (whose results
	 * are on the host) and the others the batch kernel (on the device) */
	set_t s;
	set_init(&s, S->sc.alphabet);
	for (int i = 0; i < 3; i++) {
		uint32_t l = (uint32_t)rnd(i == 0 ? 20 : 200, i == 0 ? 90 : 700);
		rand_seq(a, l, S->kinds[0]);
		CHECK(nw_batch_push(&s.q, "q", a, l, NULL) == 0, "push query");
	}
	for (int j = 0; j < 8; j++) {
		uint32_t l = (uint32_t)rnd(30, 900);
		if (j % 3 == 0) { /* a mutated copy of a query: the best hit */
			nw_batch_unpack(&s.q, j % 3, b);
			l = mutate(b, s.q.len[j % 3], a, CAP, 10, S->kinds[0]);
		} else {
			rand_seq(a, l, S->kinds[0]);
		}
		CHECK(nw_batch_push(&s.r, "r", a, l, NULL) == 0, "push reference");
	}
	set_all_pairs(&s);
	setenv("NW_GPU_LONG_MIN", "100", 1);
	snprintf(label, sizeof label, "long kernel and batch %s %s", S->name, mode_name(mode));
	top_check(label, &s, &p, 2);
	unsetenv("NW_GPU_LONG_MIN");
	set_free(&s);
}

/* --top's search pass on what it leaves to the generic pass: a local score past 16 bits
 * (a query against its own copy, of residues that score 7 to 11 against themselves), a
 * query without residues, references without residues; the pass must send them there. */
static void search_sets(scoring_t *S)
{
	enum { CAP = 5000 };
	static uint8_t a[CAP], b[CAP];
	nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &S->sc};
	set_t s;
	set_init(&s, S->sc.alphabet);
	const uint32_t big = quick ? 3900 : (uint32_t)rnd(3800, 4200);
	rand_seq(a, big, 3);
	CHECK(nw_batch_push(&s.q, "q", a, big, NULL) == 0, "push query");
	CHECK(nw_batch_push(&s.q, "q", a, 0, NULL) == 0, "push query");
	rand_seq(b, 250, 2);
	CHECK(nw_batch_push(&s.q, "q", b, 250, NULL) == 0, "push query");
	for (int j = 0; j < 14; j++) {
		uint32_t l = (uint32_t)rnd(40, 700);
		if (j == 2) l = big, memcpy(b, a, big); /* the big query's copy: past 16 bits */
		else if (j == 5 || j == 11) l = 0;
		else if (j == 7) l = mutate(a, 600, b, CAP, 10, 3);
		else rand_seq(b, l, 2);
		CHECK(nw_batch_push(&s.r, "r", b, l, NULL) == 0, "push reference");
	}
	set_all_pairs(&s);
	int64_t sp0, sg0, sp1, sg1;
	nw_gpu_search_pairs(gpu, &sp0, &sg0);
	top_check("search pass: 16-bit wraps and empty sequences", &s, &p, 3);
	nw_gpu_search_pairs(gpu, &sp1, &sg1);
	/* the empty query's 14 pairs, 2 empty references of the two others, the wrapped pair */
	CHECK(sg1 - sg0 >= 14 + 4 + 1, "search pass: %" PRId64 " pairs through the generic pass, 19 or more expected",
	      sg1 - sg0);
	set_free(&s);
}

/* --top's search pass replayed on the host (nw_gpu_search_emulated) against the CPU's local
 * scores, pair by pair, in the profile's shapes: queries of many lengths (one without
 * residues), references of many lengths (two without, one a query's near copy), and
 * NW_GPU_LONG_MIN sending the long pairs (a prefix of the references by length, for each
 * query its own) to the generic pass; with wrap, a score past 16 bits too. G = R = 0: each
 * query a shape of its own (nw_gpu_search_emulated). */
static void search_emul_set(scoring_t *S, int G, int R, int wrap)
{
	enum { CAP = 5000 };
	static uint8_t a[CAP], b[CAP];
	nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &S->sc, .ends_only = 1};
	set_t s;
	set_init(&s, S->sc.alphabet);
	const uint32_t qlens[6] = {wrap ? 3800 : 37, 0, 260, 140, 90, 400};
	for (int i = 0; i < 6; i++) {
		rand_seq(a, qlens[i], i == 0 && wrap ? 3 : 2);
		CHECK(nw_batch_push(&s.q, "q", a, qlens[i], NULL) == 0, "push query");
	}
	const int nr = wrap ? 9 : 30;
	for (int j = 0; j < nr; j++) {
		uint32_t l = (uint32_t)rnd(1, 500);
		if (j == 4 || j == 7) { /* no residues */
			l = 0;
		} else if (j == 1) { /* query 2's near copy */
			uint8_t q2[300];
			nw_batch_unpack(&s.q, 2, q2);
			l = mutate(q2, 260, b, CAP, 10, 2);
		} else if (j == 6 && wrap) { /* query 0's copy: past 16 bits */
			nw_batch_unpack(&s.q, 0, b);
			l = 3800;
		} else {
			rand_seq(b, l, 2);
		}
		CHECK(nw_batch_push(&s.r, "r", b, l, NULL) == 0, "push reference");
	}
	const int64_t n = s.q.n * s.r.n;
	int64_t *got = calloc((size_t)n, sizeof *got);
	uint8_t *q = malloc(CAP), *r = malloc(CAP);
	if (!got || !q || !r) abort();
	if (!wrap) setenv("NW_GPU_LONG_MIN", "300", 1); /* query 5 against the references of 300 or more */
	const int64_t ng = nw_gpu_search_emulated(&p, &s.q, &s.r, G, R, got, err, sizeof err);
	unsetenv("NW_GPU_LONG_MIN");
	CHECK(ng >= 0, "search pass emulated, G %d R %d: %s", G, R, err);
	/* at least the empty query's pairs, the empty references of the others, the wrapped one */
	const int64_t least = s.r.n + 2 * (s.q.n - 1) + (wrap ? 1 : 0);
	CHECK(ng >= least, "search pass emulated, G %d R %d: %" PRId64 " pairs to the generic pass, %" PRId64 " at least",
	      G, R, ng, least);
	int64_t diff = 0;
	for (int64_t k = 0; ng >= 0 && k < n; k++) {
		const uint32_t qi = (uint32_t)(k / s.r.n), ri = (uint32_t)(k % s.r.n);
		nw_result_t c;
		memset(&c, 0, sizeof c);
		nw_batch_unpack(&s.q, qi, q);
		nw_batch_unpack(&s.r, ri, r);
		CHECK(nw_cpu_align(&p, q, s.q.len[qi], r, s.r.len[ri], ws, &c) == 0, "nw_cpu_align");
		if (got[k] == c.score) {
			tu_passed++;
		} else if (diff++ < MAX_PRINT) {
			CHECK_EQ_I64(got[k], c.score, "search pass emulated, G %d R %d: query %u reference %u", G, R, qi, ri);
		} else {
			tu_failed++;
		}
	}
	free(got), free(q), free(r);
	set_free(&s);
}

/* Local pairs of near copies through the long kernel's anti-diagonals (32 and 64-bit
 * lanes), where the forward pass skips the tiles that cannot hold the best cell (pruning,
 * src/gpu/long_dp.cuh): far from the best path's diagonal, and near its end. The results
 * must equal the CPU engine's, and each set must have skipped tiles. Emulated: tiles of 96
 * columns. */
static void long_prune_sets(scoring_t *S, int emulated)
{
	enum { CAP = 12000 };
	static uint8_t a[CAP], b[CAP];
	nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &S->sc};
	char label[160];
	const int kind = S->kinds[0];
	const uint32_t l = emulated ? 1500 : (uint32_t)rnd(2500, 4000), flank = l / 4;
	for (int wide = 0; wide < 2; wide++) {
		set_t s;
		set_init(&s, S->sc.alphabet);
		rand_seq(a, l, kind);
		set_add(&s, a, l, a, l); /* identical */
		uint32_t l2 = mutate(a, l, b, CAP, 10, kind);
		set_add(&s, a, l, b, l2); /* a near copy */
		rand_seq(b, flank, kind); /* a near copy between unrelated flanks: off the main diagonal */
		l2 = flank + mutate(a, l, b + flank, CAP - 2 * flank, 10, kind);
		rand_seq(b + l2, flank, kind);
		set_add(&s, a, l, b, l2 + flank);
		if (emulated) {
			emul = (nw_emul_shape_t){.long_tc = 96, .long_wide = wide};
		} else {
			setenv("NW_GPU_LONG_MIN", "2", 1);
			setenv("NW_GPU_LONG_DIAG", "1", 1);
			setenv("NW_GPU_WIDE", wide ? "1" : "0", 1);
		}
		int64_t tiles0, skipped0, tiles1, skipped1;
		nw_gpu_long_tiles(emulated ? NULL : gpu, &tiles0, &skipped0);
		snprintf(label, sizeof label, "long kernel pruning%s %s local", wide ? " 64-bit" : "", S->name);
		run_set(label, &s, &p);
		nw_gpu_long_tiles(emulated ? NULL : gpu, &tiles1, &skipped1);
		CHECK(skipped1 > skipped0, "%s: no tile skipped of %lld", label, (long long)(tiles1 - tiles0));
		printf("%s: %lld of %lld tiles skipped\n", label, (long long)(skipped1 - skipped0),
		       (long long)(tiles1 - tiles0));
		unsetenv("NW_GPU_LONG_MIN");
		unsetenv("NW_GPU_LONG_DIAG");
		unsetenv("NW_GPU_WIDE");
		set_free(&s);
	}
}

/* Near copies through the long kernel's banded reverse pass, the staircase whose tile rows
 * sweep only their windows of the score band (src/gpu/long_dp.cuh, nw_long_cols): local
 * (also between unrelated flanks, so that the band lies off the main diagonal) and
 * semiglobal (a mutated piece of the reference), 32 and 64-bit lanes. Pairs of a few
 * thousand residues hold ten tile rows and more, whose windows start right of column 1.
 * Emulated: one tile column (long_tc -1). */
static void long_band_sets(scoring_t *S, int emulated)
{
	enum { CAP = 12000 };
	static uint8_t a[CAP], b[CAP];
	char label[160];
	const int kind = S->kinds[0];
	for (int mode = 0; mode < 2; mode++)
		for (int wide = 0; wide < 2; wide++) {
			nw_align_params_t p = {.mode = mode ? NW_MODE_SEMIGLOBAL : NW_MODE_LOCAL, .sc = &S->sc};
			set_t s;
			set_init(&s, S->sc.alphabet);
			for (int i = 0; i < (emulated ? 2 : 4); i++) {
				const uint32_t l = (uint32_t)rnd(emulated ? 1200 : 2500, emulated ? 2600 : 5000), flank = l / 4;
				rand_seq(a, l, kind);
				/* a copy with k residues inserted 20 from its end: the reverse pass's path then
				 * runs along the band's edge (dlo = -k exactly, under a match/mismatch scoring),
				 * through the corners of the windows */
				const uint32_t k = (uint32_t)rnd(3, 40), cut = mode ? l - flank - 20 : l - 20;
				memcpy(b, mode ? a + flank : a, cut - (mode ? flank : 0));
				uint32_t lb = cut - (mode ? flank : 0);
				rand_seq(b + lb, k, kind);
				memcpy(b + lb + k, a + cut, 20);
				set_add(&s, b, lb + k + 20, a, l);
				if (mode == 0) {
					uint32_t l2 = mutate(a, l, b, CAP, 5 + 5 * i, kind);
					set_add(&s, a, l, b, l2); /* a near copy */
					rand_seq(b, flank, kind);
					l2 = flank + mutate(a, l, b + flank, CAP - 2 * flank, 10, kind);
					rand_seq(b + l2, flank, kind);
					set_add(&s, a, l, b, l2 + flank); /* between unrelated flanks */
				} else {
					const uint32_t l2 = mutate(a + flank, l - 2 * flank, b, CAP, 5 + 5 * i, kind);
					set_add(&s, b, l2, a, l); /* the query: a mutated middle of the reference */
				}
			}
			if (emulated) {
				emul = (nw_emul_shape_t){.long_tc = -1, .long_wide = wide};
			} else {
				setenv("NW_GPU_LONG_MIN", "2", 1);
				setenv("NW_GPU_WIDE", wide ? "1" : "0", 1);
			}
			snprintf(label, sizeof label, "long kernel band windows%s %s %s", wide ? " 64-bit" : "", S->name,
				 mode_name(p.mode));
			run_set(label, &s, &p);
			unsetenv("NW_GPU_LONG_MIN");
			unsetenv("NW_GPU_WIDE");
			set_free(&s);
		}
}

/* ---------------------------------------------------------------- real data */
static int read_all(const char *path, nw_alphabet_t a, nw_batch_t *b, int64_t max)
{
	nw_reader_t *r = nw_reader_open(path, err, sizeof err);
	if (!r) return -1;
	int64_t n = nw_reader_fill(r, max, 0, err, sizeof err);
	int rc = n > 0 ? nw_reader_encode(r, a, b, err, sizeof err) : -1;
	nw_reader_close(r);
	return rc;
}

static void real_sets(const char *dir, scoring_t *dna, scoring_t *prot)
{
	char path[1100], label[160];
	struct stat st;
	if (stat(dir, &st) != 0) {
		printf("gpu_diff: no data directory %s: real-data sets skipped\n", dir);
		return;
	}
	nw_mode_t modes[3] = {NW_MODE_GLOBAL, NW_MODE_LOCAL, NW_MODE_SEMIGLOBAL};
	/* lambda: reads cut and mutated from the genome, against windows around them */
	nw_batch_t g;
	nw_batch_init(&g, NW_ALPHA_DNA);
	snprintf(path, sizeof path, "%s/dna/lambda.fa", dir);
	if (read_all(path, NW_ALPHA_DNA, &g, 1) == 0 && g.n == 1 && g.len[0] > 5000) {
		uint32_t L = g.len[0];
		uint8_t *gen = malloc(L), *rd = malloc(4000);
		nw_batch_unpack(&g, 0, gen);
		for (int m = 0; m < 3; m++) {
			set_t s;
			set_init(&s, NW_ALPHA_DNA);
			for (int i = 0; i < (quick ? 40 : 400); i++) {
				uint32_t rl = (uint32_t)rnd(50, rnd(0, 4) ? 300 : 2000);
				uint32_t at = (uint32_t)rnd(0, (int)(L - rl - 1)), pad = (uint32_t)rnd(0, 100);
				uint32_t w0 = at > pad ? at - pad : 0, w1 = at + rl + pad < L ? at + rl + pad : L;
				uint32_t ql = mutate(gen + at, rl, rd, 4000, rnd(0, 60), 0);
				set_add(&s, rd, ql, gen + w0, w1 - w0);
			}
			nw_align_params_t p = {.mode = modes[m], .sc = &dna->sc};
			snprintf(label, sizeof label, "lambda reads %s", mode_name(modes[m]));
			run_set(label, &s, &p);
			set_free(&s);
		}
		free(gen);
		free(rd);
	} else {
		printf("gpu_diff: %s unreadable (%s): skipped\n", path, err);
	}
	nw_batch_free(&g);
	/* proteins, all against all */
	const char *pq[2] = {"protein/globins.fa", "protein/mm_query50.fa"};
	const char *pr[2] = {"protein/globins.fa", "protein/mm_db2k.fa"};
	for (int f = 0; f < 2; f++) {
		set_t s;
		set_init(&s, NW_ALPHA_PROTEIN);
		char p1[1100], p2[1100];
		snprintf(p1, sizeof p1, "%s/%s", dir, pq[f]);
		snprintf(p2, sizeof p2, "%s/%s", dir, pr[f]);
		if (read_all(p1, NW_ALPHA_PROTEIN, &s.q, f ? (quick ? 3 : 12) : 100) != 0 ||
		    read_all(p2, NW_ALPHA_PROTEIN, &s.r, f ? (quick ? 20 : 120) : 100) != 0) {
			printf("gpu_diff: %s or %s unreadable (%s): skipped\n", p1, p2, err);
			set_free(&s);
			continue;
		}
		set_all_pairs(&s);
		for (int m = 0; m < 3; m++) {
			nw_align_params_t p = {.mode = modes[m], .sc = &prot->sc};
			snprintf(label, sizeof label, "%s %s", pq[f], mode_name(modes[m]));
			run_set(label, &s, &p);
			top_check(label, &s, &p, 1);
			top_check(label, &s, &p, 5);
			if (modes[m] == NW_MODE_LOCAL) { /* the generic pass on the same pairs */
				setenv("NW_GPU_SEARCH", "0", 1);
				strncat(label, ", generic pass", sizeof label - strlen(label) - 1);
				top_check(label, &s, &p, 5);
				unsetenv("NW_GPU_SEARCH");
			}
		}
		set_free(&s);
	}
}

/* ---------------------------------------------------------------- benchmark */
static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static int bench(int argc, char **argv)
{
	if (argc < 7) {
		fprintf(stderr, "usage: gpu_diff --bench Q.fa R.fa local|global|semi dna|protein REPS [all]\n");
		return 1;
	}
	nw_mode_t mode = !strcmp(argv[4], "local") ? NW_MODE_LOCAL : !strcmp(argv[4], "semi") ? NW_MODE_SEMIGLOBAL : NW_MODE_GLOBAL;
	int protein = !strcmp(argv[5], "protein"), reps = atoi(argv[6]), all = argc > 7 && !strcmp(argv[7], "all");
	nw_alphabet_t a = protein ? NW_ALPHA_PROTEIN : NW_ALPHA_DNA;
	nw_scoring_t sc;
	int O = protein ? 10 : 4, E = protein ? 1 : 2;
	const char *eg = getenv("NW_BENCH_GAPS"); /* "O,E" */
	if (eg) sscanf(eg, "%d,%d", &O, &E);
	int rc = protein ? nw_scoring_matrix(&sc, "blosum62", a, O, E, err, sizeof err)
			 : nw_scoring_dna(&sc, 2, 4, O, E, err, sizeof err);
	set_t s;
	set_init(&s, a);
	if (rc < 0 || read_all(argv[2], a, &s.q, 0) != 0 || read_all(argv[3], a, &s.r, 0) != 0) {
		fprintf(stderr, "bench: %s\n", err);
		return 1;
	}
	for (int k = 0; k < reps; k++) {
		if (all) {
			set_all_pairs(&s);
		} else {
			for (int64_t i = 0; i < s.q.n && i < s.r.n; i++) set_pair(&s, (uint32_t)i, (uint32_t)i);
		}
	}
	double cells = 0;
	for (int64_t k = 0; k < s.n; k++) cells += (double)s.q.len[s.pairs[k].q] * s.r.len[s.pairs[k].r];
	nw_result_t *res = calloc((size_t)s.n, sizeof *res);
	const char *ee = getenv("NW_BENCH_ENDS"); /* score and end only, as --top ranks */
	nw_align_params_t p = {.mode = mode, .sc = &sc, .ends_only = ee && *ee == '1'};
	double best = 1e30;
	const char *ei = getenv("NW_BENCH_ITERS");
	int iters = ei ? atoi(ei) : 3;
	if (iters < 2) iters = 2;
	double kbest = 1e30;
	for (int it = 0; it < iters; it++) {
		double t0 = now(), k0 = nw_gpu_kernel_seconds(gpu);
		if (nw_gpu_align(gpu, &p, &s.q, &s.r, s.pairs, s.n, res, err, sizeof err) != 0) {
			fprintf(stderr, "bench: %s\n", err);
			return 1;
		}
		double t = now() - t0, kt = nw_gpu_kernel_seconds(gpu) - k0;
		if (it > 0 && t < best) best = t;
		if (it > 0 && kt < kbest) kbest = kt;
	}
	int64_t sum = 0;
	for (int64_t k = 0; k < s.n; k++) sum += res[k].score;
	printf("bench %s %s %s: %" PRId64 " pairs, %.4g cells, nw_gpu_align %.4f s (best after a warm-up), "
	       "%.1f GCUPS (forward cells / call time), kernels %.4f s (%.1f GCUPS), %.3g pairs/s, score sum %" PRId64 "\n",
	       argv[5], argv[4], all ? "all-vs-all" : "zip", s.n, cells, best, cells / best / 1e9, kbest,
	       cells / kbest / 1e9, s.n / best, sum);
	free(res);
	set_free(&s);
	return 0;
}

/* ---------------------------------------------------------------- main */
/* The scorings of every set: DNA match/mismatch (the 2-bit scorer), EDNAFULL and
 * BLOSUM62 (tables), with affine gaps (gm 0) or linear (gm 1). */
static int scorings(scoring_t S[3], int gm)
{
	memset(S, 0, 3 * sizeof *S);
	S[0].name = "dna 2/4";
	S[0].kinds[0] = 0, S[0].kinds[1] = 1;
	S[1].name = "ednafull";
	S[1].kinds[0] = 0, S[1].kinds[1] = 1;
	S[2].name = "blosum62";
	S[2].kinds[0] = 2, S[2].kinds[1] = 2;
	int ok = nw_scoring_dna(&S[0].sc, 2, 4, gm ? 0 : 4, gm ? 3 : 2, err, sizeof err) == 0;
	ok = ok && nw_scoring_matrix(&S[1].sc, "ednafull", NW_ALPHA_DNA, gm ? 0 : 10, gm ? 4 : 1, err, sizeof err) == 0;
	ok = ok && nw_scoring_matrix(&S[2].sc, "blosum62", NW_ALPHA_PROTEIN, gm ? 0 : 10, gm ? 4 : 1, err, sizeof err) == 0;
	CHECK(ok, "scoring: %s", err);
	return ok;
}

/* Near-identical pairs without flanks in local mode under thin batch shapes: the reverse
 * pass's bands are a few diagonals wide, so its stripes (many, of 8 to 80 rows) sweep
 * narrow column windows that move across the whole reference. */
static void narrow_band_sets(scoring_t *S)
{
	enum { CAP = 4000 };
	static uint8_t a[CAP], b[CAP];
	static const nw_emul_shape_t thin[] = {{.G = 1, .R = 8}, {.G = 2, .R = 16}, {.G = 4, .R = 20}};
	nw_align_params_t p = {.mode = NW_MODE_LOCAL, .sc = &S->sc};
	char label[160];
	for (int x = 0; x < 3; x++) {
		emul = thin[x];
		set_t s;
		set_init(&s, S->sc.alphabet);
		for (int i = 0; i < 12; i++) {
			uint32_t core = (uint32_t)rnd(100, 800);
			rand_seq(a, core, S->kinds[0]);
			uint32_t rl = mutate(a, core, b, CAP, rnd(0, 3), S->kinds[0]);
			set_add(&s, a, core, b, rl);
		}
		snprintf(label, sizeof label, "narrow bands %s local G %d R %d", S->name, emul.G, emul.R);
		run_set(label, &s, &p);
		set_free(&s);
	}
}

/* Reverse semiglobal passes whose cells fall far below -32768 (heavy mismatch and gap
 * costs, reads of a few kilobases against windows around them, related and unrelated)
 * while the forward score keeps them in 16-bit floored lanes (NW_CELL_FLOOR): the starts
 * must equal the CPU engine's. Emulated, the set also checks that those lanes ran. */
static void floor_sets(void)
{
	enum { CAP = 8000 };
	static uint8_t a[CAP], b[CAP];
	nw_scoring_t sc;
	CHECK(nw_scoring_dna(&sc, 2, 10, 30, 20, err, sizeof err) == 0, "scoring: %s", err);
	nw_align_params_t p = {.mode = NW_MODE_SEMIGLOBAL, .sc = &sc};
	set_t s;
	set_init(&s, NW_ALPHA_DNA);
	const int emulated = emul.G != 0;
	for (int i = 0; i < (emulated ? 4 : 24); i++) {
		const uint32_t l = (uint32_t)rnd(3000, emulated ? 3600 : 4000), flank = l / 5;
		rand_seq(a, l, 0);
		uint32_t rl;
		if (i % 2) { /* a window around a mutated copy */
			rand_seq(b, flank, 0);
			rl = flank + mutate(a, l, b + flank, CAP - 2 * flank, rnd(5, 40), 0);
			rand_seq(b + rl, flank, 0);
			rl += flank;
		} else { /* unrelated */
			rl = l + 2 * flank;
			rand_seq(b, rl, 0);
		}
		set_add(&s, a, l, b, rl);
	}
	int64_t rev16 = -1;
	emul.rev16 = emulated ? &rev16 : NULL;
	run_set("floored 16-bit reverse semiglobal, dna 2/10 gaps 30/20", &s, &p);
	if (emulated)
		CHECK(rev16 == s.n, "floored 16-bit reverse semiglobal: %" PRId64 " of %" PRId64 " reverse problems in 16 bits",
		      rev16, s.n);
	emul.rev16 = NULL;
	set_free(&s);
}

/* Semiglobal and global passes given a need per pair (nw_align_params_t.need, what
 * --strand both's second strand gets): from 40 below each pair's optimum to 25 above it,
 * and needs outside 32 bits. The pairs that reach their need must equal the CPU engine's
 * results, the others must score below it; with and without ends_only. */
static void need_sets(scoring_t *S, nw_mode_t mode)
{
	enum { CAP = 6000 };
	static uint8_t a[CAP], b[CAP];
	static const int64_t delta[] = {-40, -1, 0, 1, 25};
	const int emulated = emul.G != 0;
	char label[160];
	for (int eo = 0; eo < 2; eo++) {
		nw_align_params_t p = {.mode = mode, .sc = &S->sc, .ends_only = eo};
		set_t s;
		set_init(&s, S->sc.alphabet);
		for (int i = 0; i < (emulated ? 16 : 200); i++)
			add_pair(&s, (uint32_t)rnd(2, emulated ? 1200 : 2500), (uint32_t)rnd(2, emulated ? 1500 : 3000), S->kinds[i & 1], a, b, CAP);
		int64_t *need = calloc((size_t)s.n, sizeof *need);
		uint8_t *q = malloc(s.q.max_len + 1), *r = malloc(s.r.max_len + 1);
		if (!need || !q || !r) abort();
		for (int64_t k = 0; k < s.n; k++) {
			nw_batch_unpack(&s.q, s.pairs[k].q, q);
			nw_batch_unpack(&s.r, s.pairs[k].r, r);
			nw_result_t c;
			memset(&c, 0, sizeof c);
			CHECK(nw_cpu_align(&p, q, s.q.len[s.pairs[k].q], r, s.r.len[s.pairs[k].r], ws, &c) == 0,
			      "need sets: nw_cpu_align");
			need[k] = k % 7 == 5 ? INT64_MIN : k % 7 == 6 ? INT64_MAX : c.score + delta[k % 5];
			nw_result_free(&c);
		}
		p.need = need;
		snprintf(label, sizeof label, "needs, %s %s gaps %d/%d%s", S->name, mode_name(mode), S->sc.gap_open,
			 S->sc.gap_extend, eo ? ", ends only" : "");
		run_set(label, &s, &p);
		free(need);
		free(q);
		free(r);
		set_free(&s);
	}
}

/* Reads of a few kilobases with 5 to 15 % of differences inside windows twice as long
 * (local and semiglobal, default DNA scoring): the starts must equal the CPU engine's,
 * and, emulated, the reverse passes' stripes must sweep fewer columns than their bands
 * hold (the live scan of nw_bthread narrows them), here at most 3/4. */
static void live_window_sets(void)
{
	enum { CAP = 8000 };
	static uint8_t a[CAP], b[CAP];
	nw_scoring_t sc;
	CHECK(nw_scoring_dna(&sc, 2, 4, 4, 2, err, sizeof err) == 0, "scoring: %s", err);
	const int emulated = emul.G != 0;
	char label[160];
	for (int m = 0; m < 2; m++) {
		nw_align_params_t p = {.mode = m ? NW_MODE_SEMIGLOBAL : NW_MODE_LOCAL, .sc = &sc};
		set_t s;
		set_init(&s, NW_ALPHA_DNA);
		for (int i = 0; i < (emulated ? 6 : 40); i++) {
			const uint32_t l = (uint32_t)rnd(1500, emulated ? 2500 : 3500), flank = l / 2;
			rand_seq(a, l, 0);
			rand_seq(b, flank, 0);
			uint32_t rl = flank + mutate(a, l, b + flank, CAP - 2 * flank, rnd(17, 50), 0);
			rand_seq(b + rl, flank, 0);
			set_add(&s, a, l, b, rl + flank);
		}
		int64_t cols[2] = {0, 0};
		emul.rev_cols = emulated ? cols : NULL;
		snprintf(label, sizeof label, "live windows, reads in windows, %s", mode_name(p.mode));
		run_set(label, &s, &p);
		if (emulated) {
			printf("%s: reverse stripes swept %" PRId64 " columns, their bands %" PRId64 "\n", label, cols[0],
			       cols[1]);
			CHECK(cols[1] > 0 && 4 * cols[0] <= 3 * cols[1], "%s: %" PRId64 " columns swept of %" PRId64,
			      label, cols[0], cols[1]);
		}
		emul.rev_cols = NULL;
		set_free(&s);
	}
}

/* Linear gaps in the long kernel's 64-bit lanes, whose cell keeps F (the 32-bit lanes'
 * linear cell has none): the banded reverse passes' staircase reads F from the bounds
 * beside the band, which must be a lower bound there too. Emulated, one tile column. */
static void long_wide_linear_sets(scoring_t *S)
{
	enum { CAP = 4000 };
	static uint8_t a[CAP], b[CAP];
	char label[160];
	for (int m = 0; m < 2; m++) {
		nw_align_params_t p = {.mode = m ? NW_MODE_SEMIGLOBAL : NW_MODE_LOCAL, .sc = &S->sc};
		for (int x = 0; x < 4; x++) {
			set_t s;
			set_init(&s, S->sc.alphabet);
			for (int i = 0; i < 12; i++)
				add_pair(&s, (uint32_t)rnd(2, 1500), (uint32_t)rnd(2, 1500), S->kinds[i & 1], a, b, CAP);
			emul = (nw_emul_shape_t){.long_tc = -1, .long_wide = 1};
			snprintf(label, sizeof label, "long kernel 64-bit, one tile column, %s %s gaps %d/%d", S->name,
				 mode_name(p.mode), S->sc.gap_open, S->sc.gap_extend);
			run_set(label, &s, &p);
			set_free(&s);
		}
	}
}

/* --emulated: the random sets (smallest sizes) through the kernels' thread logic on the
 * host (nw_gpu_align_emulated), no device needed; each set takes one of the shapes below
 * in turn, so that every run covers batch groups from 1 to 32 threads, R from 8 to 32,
 * and the long kernel with several tiles a row (32 and 64-bit lanes) or one; then the
 * narrow-band sets. */
static int emulated_main(void)
{
	static const nw_emul_shape_t shapes[] = {{.G = 2, .R = 16}, {.G = 1, .R = 8}, {.long_tc = 256}, {.G = 4, .R = 20},
						 {.G = 8, .R = 12}, {.long_tc = -1}, {.G = 32, .R = 24}, {.G = 16, .R = 32},
						 {.long_tc = 96, .long_wide = 1}, {.G = 2, .R = 8}, {.G = 4, .R = 16}};
	const int nshapes = (int)(sizeof shapes / sizeof *shapes);
	if (!nw_gpu_built()) {
		printf("SKIP: built without CUDA\n");
		return 77;
	}
	quick = 2;
	ws = nw_workspace_new();
	scoring_t S[3];
	nw_mode_t modes[3] = {NW_MODE_GLOBAL, NW_MODE_LOCAL, NW_MODE_SEMIGLOBAL};
	int x = 0;
	for (int gm = 0; gm < 2 && scorings(S, gm); gm++)
		for (int si = 0; si < 3; si++)
			for (int m = 0; m < 3; m++, x++) {
				emul = shapes[x % nshapes];
				char tc[32] = "all the";
				if (emul.long_tc > 0) snprintf(tc, sizeof tc, "%d", emul.long_tc);
				if (emul.long_tc)
					printf("gpu_diff --emulated: %s %s gaps %d/%d, long kernel, tiles of %s columns%s\n",
					       S[si].name, mode_name(modes[m]), S[si].sc.gap_open, S[si].sc.gap_extend, tc,
					       emul.long_wide ? ", 64 bits" : "");
				else
					printf("gpu_diff --emulated: %s %s gaps %d/%d, batch kernel, G %d R %d\n", S[si].name,
					       mode_name(modes[m]), S[si].sc.gap_open, S[si].sc.gap_extend, emul.G, emul.R);
				random_sets(&S[si], modes[m]);
			}
	if (scorings(S, 0))
		for (int si = 0; si < 3; si += 2)
			narrow_band_sets(&S[si]), long_prune_sets(&S[si], 1), long_band_sets(&S[si], 1);
	if (scorings(S, 1)) { /* linear gaps: the staircase's tagged rows; in 64-bit lanes, F */
		for (int si = 0; si < 3; si += 2) long_band_sets(&S[si], 1);
		long_wide_linear_sets(&S[0]);
	}
	/* the query profile: all against all and, in the random sets, one query a run, each
	 * batch of a warp padded at each query */
	static const nw_emul_shape_t prof_shapes[] = {{.G = 8, .R = 16, .prof = 1}, {.G = 16, .R = 8, .prof = 1},
						      {.G = 32, .R = 24, .prof = 1}, {.G = 8, .R = 32, .prof = 1}};
	x = 0;
	for (int gm = 0; gm < 2 && scorings(S, gm); gm++)
		for (int si = 1; si < 3; si++)
			for (int m = 0; m < 3; m++, x++) {
				emul = prof_shapes[x % 4];
				printf("gpu_diff --emulated: %s %s gaps %d/%d, query profile, G %d R %d\n", S[si].name,
				       mode_name(modes[m]), S[si].sc.gap_open, S[si].sc.gap_extend, emul.G, emul.R);
				all_vs_all_sets(&S[si], modes[m]);
				if (m == 1) random_sets(&S[si], modes[m]);
			}
	/* --top's search pass in each profile shape, and once with a score past 16 bits */
	if (scorings(S, 0)) {
		printf("gpu_diff --emulated: %s local, the search pass\n", S[2].name);
		for (int x = 0; x < 4; x++) search_emul_set(&S[2], prof_shapes[x].G, prof_shapes[x].R, 0);
		search_emul_set(&S[2], 8, 16, 1);
		search_emul_set(&S[2], 0, 0, 0); /* each query its own shape: launches of several */
	}
	if (scorings(S, 1)) search_emul_set(&S[2], 16, 8, 0);
	emul = (nw_emul_shape_t){.G = 4, .R = 16};
	floor_sets();
	emul = (nw_emul_shape_t){.G = 1, .R = 8};
	floor_sets();
	emul = (nw_emul_shape_t){.G = 8, .R = 20};
	live_window_sets();
	if (scorings(S, 0)) {
		static const nw_emul_shape_t need_shapes[] = {{.G = 8, .R = 20}, {.G = 2, .R = 16}, {.long_tc = 256}};
		for (int x = 0; x < 3; x++)
			for (int si = 0; si < 3; si += 2) {
				emul = need_shapes[x];
				need_sets(&S[si], NW_MODE_SEMIGLOBAL);
				need_sets(&S[si], NW_MODE_GLOBAL);
			}
	}
	nw_workspace_free(ws);
	return tu_finish("gpu_diff --emulated");
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--emulated")) return emulated_main();
	if (!nw_gpu_built() || nw_gpu_device_count() == 0) {
		printf("SKIP: no CUDA device\n");
		return 77;
	}
	gpu = nw_gpu_open(0, err, sizeof err);
	if (!gpu) {
		fprintf(stderr, "gpu_diff: %s\n", err);
		return 1;
	}
	printf("gpu_diff: %s\n", nw_gpu_describe(gpu));
	if (argc > 1 && !strcmp(argv[1], "--bench")) {
		int rc = bench(argc, argv);
		nw_gpu_close(gpu);
		return rc;
	}
	const char *qe = getenv("NW_GPU_DIFF_QUICK");
	quick = qe ? atoi(qe) : 0; /* 1: smaller sets (memcheck); 2: smallest (racecheck) */
	ws = nw_workspace_new();
	scoring_t S[3];
	nw_mode_t modes[3] = {NW_MODE_GLOBAL, NW_MODE_LOCAL, NW_MODE_SEMIGLOBAL};
	for (int gm = 0; gm < 2; gm++) { /* affine, then linear */
		if (!scorings(S, gm)) break;
		for (int si = 0; si < 3; si++)
			for (int m = 0; m < 3; m++) {
				if (quick >= 2 && (si == 1 || gm == 1 || m == 2)) continue;
				random_sets(&S[si], modes[m]);
				if (si != 0) all_vs_all_sets(&S[si], modes[m]);
				if (gm == 0 && si != 1 && quick < 2) big_sets(&S[si], modes[m]);
				if (si != 1 && (gm == 0 || !quick)) long_hook_sets(&S[si], modes[m]);
				if (si == 2 && m == 1) search_sets(&S[si]);
				if (si != 1 && m == 1 && quick < 2) long_prune_sets(&S[si], 0), long_band_sets(&S[si], 0);
			}
		if (gm == 0) {
			floor_sets(), live_window_sets();
			for (int si = 0; si < 3; si += 2)
				need_sets(&S[si], NW_MODE_SEMIGLOBAL), need_sets(&S[si], NW_MODE_GLOBAL);
		}
		if (gm == 0 && quick < 2) {
			char dir[1024];
			const char *d = getenv("NW_DATA_DIR"), *top = getenv("top_srcdir");
			if (d) snprintf(dir, sizeof dir, "%s", d);
			else snprintf(dir, sizeof dir, "%s/../shared/data", top ? top : ".");
			real_sets(dir, &S[0], &S[2]);
		}
	}
	nw_workspace_free(ws);
	nw_gpu_close(gpu);
	return tu_finish("gpu_diff");
}
