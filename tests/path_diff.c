/* path_diff.c: the GPU path engine (nw_gpu_paths) against the CPU engine's paths.
 *
 * For every pair the CPU engine computes the result with its path (nw_cpu_align with
 * want_path); the GPU engine is given the same scores and spans and computes the paths,
 * which nw_path_finish then checks. Path kind, score, optimum and the CIGAR itself must be
 * identical: both engines follow src/path.h's rules. Sets:
 *  - full tracebacks: random and mutated DNA (ACGT, and with N) and protein pairs of 1..700
 *    residues, lengths around the stripe of NW_PATH_ROWS rows, every mode, affine and
 *    linear gaps;
 *  - banded full tracebacks (the GPU computes only the diagonals that the known score
 *    allows): near-identical pairs (0-3% differences: bands of a few diagonals), blocks
 *    inserted or deleted at either end or in the middle (bands cut by the matrix edges),
 *    protein (wide bands), spans of one or two rows or columns, lengths around every
 *    stripe height G R; each with the cost model's shapes and with every G forced through
 *    NW_GPU_PATH_G (G = 1: the thin kernel, a thread sweeping the band, for every band it
 *    takes);
 *  - GACT (--gact): long mutated pairs (5-15% differences, and long indels that span
 *    several tiles) past NW_PATH_FULL_CELLS, several tile sizes and overlaps, every mode,
 *    every GACT path kept or, with the default --max-deficit, the short ones redone;
 *  - exact (the default): the same long pairs, with Myers-Miller leaves of the default size
 *    and, through NW_GPU_MM_LEAF and the CPU workspace hook, small leaves (deep splits,
 *    splits inside vertical gaps); then both again with every problem of two stripes or
 *    more run as a staircase (NW_GPU_PATH_STAIR_STRIPES=2: a warp a stripe, the border row
 *    passed on through memory as it is published; on a device only).
 * With a device it runs the kernels; without one (or with NW_PATH_DIFF_EMULATE=1) it runs
 * their host emulation, the same thread logic replayed on the CPU. Exits 77 when the build
 * has no CUDA engine. NW_PATH_DIFF_QUICK=K keeps the first pair of every set and every
 * K-th after it (the same pairs, drawn as before: for compute-sanitizer's racecheck).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "band.h"
#include "cpu_align.h"
#include "gpu/gpu.h"
#include "nwalign.h"
#include "path.h"
#include "testutil.h"

static uint64_t seed = 0x9e3779b97f4a7c15ull;
static nw_gpu_t *gpu;
static nw_workspace_t *ws;
static char err[512];
static int n_printed;

static int rnd(int lo, int hi) { return lo + (int)(tu_rand(&seed) % (uint64_t)(hi - lo + 1)); }

static void random_seq(uint8_t *s, int n, int ncodes)
{
	for (int i = 0; i < n; i++) s[i] = (uint8_t)rnd(0, ncodes - 1);
}

/* Copy of a with about rate substitutions, insertions and deletions; max_indel caps the
 * length of each indel. Returns the length. */
static int mutate(const uint8_t *a, int n, uint8_t *out, int cap, double rate, int max_indel, int ncodes)
{
	int k = 0;
	for (int i = 0; i < n && k < cap; i++) {
		double u = (double)(tu_rand(&seed) % 1000000) / 1e6;
		if (u < rate / 2) {
			out[k++] = (uint8_t)((a[i] + rnd(1, ncodes - 1)) % ncodes);
		} else if (u < rate * 3 / 4) {
			int l = rnd(1, max_indel);
			for (int x = 0; x < l && k < cap; x++) out[k++] = (uint8_t)rnd(0, ncodes - 1);
			out[k++] = a[i];
		} else if (u < rate) {
			i += rnd(1, max_indel) - 1;
		} else {
			out[k++] = a[i];
		}
	}
	return k;
}

typedef struct {
	nw_batch_t q, r;
	nw_pair_t *pairs;
	int64_t n;
	int64_t offered; /* pairs offered to set_add, kept or not (NW_PATH_DIFF_QUICK) */
} set_t;

static int64_t quick_stride = 1; /* NW_PATH_DIFF_QUICK */

static void set_init(set_t *s, nw_alphabet_t a)
{
	memset(s, 0, sizeof *s);
	nw_batch_init(&s->q, a);
	nw_batch_init(&s->r, a);
}

static void set_add(set_t *s, const uint8_t *q, int ql, const uint8_t *r, int rl)
{
	if (s->offered++ % quick_stride != 0)
		return;
	if (nw_batch_push(&s->q, "q", q, (uint32_t)ql, NULL) < 0 || nw_batch_push(&s->r, "r", r, (uint32_t)rl, NULL) < 0)
		abort();
	s->pairs = realloc(s->pairs, (size_t)(s->n + 1) * sizeof *s->pairs);
	if (!s->pairs) abort();
	s->pairs[s->n].q = s->pairs[s->n].r = (uint32_t)s->n;
	s->n++;
}

static void set_free(set_t *s)
{
	nw_batch_free(&s->q);
	nw_batch_free(&s->r);
	free(s->pairs);
}

static void print_cigar(const char *what, const nw_result_t *r)
{
	fprintf(stderr, "  %s kind %d score %lld opt %lld span q[%lld,%lld) r[%lld,%lld) cigar ", what, r->path_kind,
		(long long)r->score, (long long)r->opt_score, (long long)r->qstart, (long long)r->qend,
		(long long)r->rstart, (long long)r->rend);
	nw_cigar_write(stderr, r->cigar, r->n_cigar > 40 ? 40 : r->n_cigar);
	fputc('\n', stderr);
}

/* Align the set on both engines and compare. With exact_only, CIGARs are compared only
 * for exact paths (the others still must score the same): the deep-split runs lower the
 * CPU's Myers-Miller leaf size, which also splits the CPU's full-kind paths. */
static int exact_only;

/* How narrow the bands of a set's full-kind spans are (src/band.h, as the GPU engine
 * computes them), so that the output shows what the banded sets exercise: spans with at
 * most 8 diagonals, at most 64, more but short of the whole matrix, the whole matrix. */
static void band_widths(const nw_result_t *res, int64_t n, const nw_scoring_t *sc, long *count)
{
	for (int x = 0; x < 4; x++) count[x] = 0;
	for (int64_t k = 0; k < n; k++) {
		const int64_t m = res[k].qend - res[k].qstart, nn = res[k].rend - res[k].rstart;
		if (res[k].path_kind != NW_PATH_FULL || m == 0 || nn == 0) continue;
		int64_t ins = nw_band_gaps(sc->max_score, sc->gap_open, sc->gap_extend, m, nn, res[k].score);
		int64_t del = nw_band_gaps(sc->max_score, sc->gap_open, sc->gap_extend, nn, m, res[k].score);
		ins = ins < m ? ins : m;
		del = del < nn ? del : nn;
		const int64_t w = ins + del + 1;
		count[ins == m && del == nn ? 3 : w <= 8 ? 0 : w <= 64 ? 1 : 2]++;
	}
}

static void check_set(const char *name, set_t *s, nw_align_params_t p)
{
	int64_t n = s->n;
	nw_result_t *cpu = calloc((size_t)n, sizeof *cpu), *res = calloc((size_t)n, sizeof *res);
	uint8_t *q = malloc(s->q.max_len + 1), *r = malloc(s->r.max_len + 1);
	if (!cpu || !res || !q || !r) abort();
	nw_align_params_t scores = p;
	scores.want_path = 0;
	p.want_path = 1;
	long bad = 0;
	for (int64_t k = 0; k < n; k++) {
		nw_batch_unpack(&s->q, k, q);
		nw_batch_unpack(&s->r, k, r);
		int a = nw_cpu_align(&p, q, s->q.len[k], r, s->r.len[k], ws, &cpu[k]);
		int b = nw_cpu_align(&scores, q, s->q.len[k], r, s->r.len[k], ws, &res[k]);
		CHECK(a == 0 && b == 0, "%s pair %lld: CPU engine failed", name, (long long)k);
	}
	int ret = gpu ? nw_gpu_paths(gpu, &p, &s->q, &s->r, s->pairs, n, res, err, sizeof err)
		      : nw_gpu_paths_emulated(&p, &s->q, &s->r, s->pairs, n, res, err, sizeof err);
	CHECK(ret == 0, "%s: nw_gpu_paths: %s", name, err);
	for (int64_t k = 0; k < n && ret == 0; k++) {
		nw_batch_unpack(&s->q, k, q);
		nw_batch_unpack(&s->r, k, r);
		int f = nw_path_finish(&p, q, s->q.len[k], r, s->r.len[k], &res[k]);
		const int cmp_cigar = !exact_only || res[k].path_kind == NW_PATH_EXACT;
		int same = f == 0 && res[k].path_kind == cpu[k].path_kind && res[k].score == cpu[k].score &&
			   res[k].opt_score == cpu[k].opt_score;
		if (same && cmp_cigar)
			same = res[k].n_cigar == cpu[k].n_cigar &&
			       (res[k].n_cigar == 0 ||
				!memcmp(res[k].cigar, cpu[k].cigar, (size_t)res[k].n_cigar * sizeof *res[k].cigar));
		if (same) {
			tu_passed++;
			continue;
		}
		tu_failed++;
		bad++;
		if (n_printed++ < 10) {
			fprintf(stderr, "%s pair %lld (%u x %u): GPU path differs (finish %d)\n", name, (long long)k,
				s->q.len[k], s->r.len[k], f);
			print_cigar("cpu", &cpu[k]);
			print_cigar("gpu", &res[k]);
		}
	}
	long bw[4];
	band_widths(cpu, n, p.sc, bw);
	if (bw[0] + bw[1] + bw[2] + bw[3])
		printf("%-34s %6lld pairs, %ld differ (full-kind bands of <= 8 diagonals: %ld, <= 64: %ld, more: %ld, "
		       "whole: %ld)\n", name, (long long)n, bad, bw[0], bw[1], bw[2], bw[3]);
	else
		printf("%-34s %6lld pairs, %ld differ\n", name, (long long)n, bad);
	for (int64_t k = 0; k < n; k++) {
		nw_result_free(&cpu[k]);
		nw_result_free(&res[k]);
	}
	free(cpu);
	free(res);
	free(q);
	free(r);
}

static nw_scoring_t sc_dna, sc_dna_lin, sc_prot, sc_prot_lin;

static void scorings(void)
{
	if (nw_scoring_dna(&sc_dna, 2, 4, 4, 2, err, sizeof err) < 0 ||
	    nw_scoring_dna(&sc_dna_lin, 1, 1, 0, 1, err, sizeof err) < 0 ||
	    nw_scoring_matrix(&sc_prot, "blosum62", NW_ALPHA_PROTEIN, 11, 1, err, sizeof err) < 0 ||
	    nw_scoring_matrix(&sc_prot_lin, "blosum62", NW_ALPHA_PROTEIN, 0, 4, err, sizeof err) < 0) {
		fprintf(stderr, "scoring: %s\n", err);
		exit(1);
	}
}

static const nw_mode_t modes[3] = {NW_MODE_GLOBAL, NW_MODE_LOCAL, NW_MODE_SEMIGLOBAL};
static const char *mode_name[3] = {"global", "local", "semiglobal"};

/* Exact paths of set s in every mode (DNA, linear gaps for local), named "exact MODE
 * what". */
static void exact_modes(set_t *s, const char *what)
{
	for (int md = 0; md < 3; md++) {
		nw_align_params_t p = {0};
		p.mode = modes[md];
		p.sc = md == 1 ? &sc_dna_lin : &sc_dna;
		char name[96];
		snprintf(name, sizeof name, "exact %s %s", mode_name[md], what);
		check_set(name, s, p);
	}
}

/* Short and medium pairs: full tracebacks. */
static void full_sets(void)
{
	static const int lens[] = {1, 2, 3, 7, 31, 32, 33, 100, 255, 256, 257, 300, 511, 512, 513, 700};
	const int nl = (int)(sizeof lens / sizeof lens[0]);
	uint8_t a[800], b[1000];
	for (int kind = 0; kind < 3; kind++) { /* DNA ACGT, DNA with N, protein */
		const nw_alphabet_t al = kind < 2 ? NW_ALPHA_DNA : NW_ALPHA_PROTEIN;
		const int nc = kind == 0 ? 4 : kind == 1 ? 5 : 20;
		for (int md = 0; md < 3; md++)
			for (int lin = 0; lin < 2; lin++) {
				set_t s;
				set_init(&s, al);
				for (int x = 0; x < nl; x++)
					for (int y = 0; y < nl; y += 3) {
						random_seq(a, lens[x], nc);
						int bl;
						if ((x + y) % 2) {
							bl = mutate(a, lens[x], b, lens[y] + 300, 0.15, 4, nc);
							if (bl == 0) b[bl++] = a[0];
						} else {
							bl = lens[y];
							random_seq(b, bl, nc);
						}
						set_add(&s, a, lens[x], b, bl);
					}
				nw_align_params_t p = {0};
				p.mode = modes[md];
				p.sc = kind < 2 ? (lin ? &sc_dna_lin : &sc_dna) : (lin ? &sc_prot_lin : &sc_prot);
				char name[80];
				snprintf(name, sizeof name, "full %s %s %s", kind == 0 ? "dna" : kind == 1 ? "dna+N" : "protein",
					 mode_name[md], lin ? "linear" : "affine");
				check_set(name, &s, p);
				set_free(&s);
			}
	}
}

/* Pairs for banded paths, of an alphabet of nc codes. */
static void band_set(set_t *s, nw_alphabet_t al, int nc)
{
	/* around G R = 16, 20, 24, 32, 40, 48, 64, 96, 128, 160, 192, 256 rows */
	static const int lens[] = {1,  2,  3,  5,   15,  16,  17,  20,  24,  31,  32,  33,  40,  47,  48,  49, 63,
				   64, 65, 80, 96, 127, 128, 129, 150, 160, 191, 192, 193, 255, 256, 257, 400, 1500};
	static const double rates[] = {0, 0.005, 0.01, 0.02, 0.03, 0.15};
	const int nl = (int)(sizeof lens / sizeof lens[0]), nr = (int)(sizeof rates / sizeof rates[0]);
	uint8_t a[1600], b[1700];
	set_init(s, al);
	for (int x = 0; x < nl; x++)
		for (int y = 0; y < nr; y++) { /* near-identical: narrow bands; 15%: wider */
			random_seq(a, lens[x], nc);
			int bl = mutate(a, lens[x], b, (int)sizeof b - 1, rates[y], 1 + (x + y) % 3, nc);
			if (bl == 0) b[bl++] = a[0];
			if ((x + y) % 2) set_add(s, a, lens[x], b, bl);
			else set_add(s, b, bl, a, lens[x]);
		}
	for (int x = 4; x < nl; x += 3) /* a block of 1..40 residues in or out, at either end or inside */
		for (int where = 0; where < 3; where++) {
			const int len = lens[x], blk = rnd(1, len < 40 ? len : 40);
			const int at = where == 0 ? 0 : where == 1 ? len - blk : rnd(0, len - blk);
			random_seq(a, len, nc);
			int bl = 0;
			if ((x + where) % 2) { /* blk residues inserted before a[at] */
				for (int i = 0; i < at; i++) b[bl++] = a[i];
				for (int i = 0; i < blk; i++) b[bl++] = (uint8_t)rnd(0, nc - 1);
				for (int i = at; i < len; i++) b[bl++] = a[i];
			} else { /* a[at, at + blk) deleted */
				for (int i = 0; i < len; i++)
					if (i < at || i >= at + blk) b[bl++] = a[i];
				if (bl == 0) b[bl++] = a[0];
			}
			if (x % 2) set_add(s, a, len, b, bl);
			else set_add(s, b, bl, a, len);
		}
	for (int l = 1; l <= 2; l++) /* one or two rows (or columns) against a few dozen */
		for (int fl = 0; fl <= 30; fl += 5) {
			random_seq(a, l, nc);
			int bl = 0;
			for (int i = 0; i < fl; i++) b[bl++] = (uint8_t)rnd(0, nc - 1);
			for (int i = 0; i < l; i++) b[bl++] = a[i];
			for (int i = 0; i < fl / 2; i++) b[bl++] = (uint8_t)rnd(0, nc - 1);
			set_add(s, a, l, b, bl);
			set_add(s, b, bl, a, l);
		}
}

static void band_sets(void)
{
	static const char *gs[] = {NULL, "1", "4", "8", "16", "32"};
	for (int kind = 0; kind < 3; kind++) { /* DNA ACGT, DNA with N, protein */
		const nw_alphabet_t al = kind < 2 ? NW_ALPHA_DNA : NW_ALPHA_PROTEIN;
		set_t s;
		band_set(&s, al, kind == 0 ? 4 : kind == 1 ? 5 : 20);
		for (int g = 0; g < 6; g++) {
			if (gs[g]) setenv("NW_GPU_PATH_G", gs[g], 1);
			else unsetenv("NW_GPU_PATH_G");
			for (int md = 0; md < 3; md++)
				for (int lin = 0; lin < 2; lin++) {
					nw_align_params_t p = {0};
					p.mode = modes[md];
					p.sc = kind < 2 ? (lin ? &sc_dna_lin : &sc_dna) : (lin ? &sc_prot_lin : &sc_prot);
					char name[80];
					snprintf(name, sizeof name, "band %s %s %s G=%s", kind == 0 ? "dna" : kind == 1 ? "dna+N" : "protein",
						 mode_name[md], lin ? "linear" : "affine", gs[g] ? gs[g] : "auto");
					check_set(name, &s, p);
				}
		}
		unsetenv("NW_GPU_PATH_G");
		set_free(&s);
	}
}

/* Long pairs past the full-matrix limit: n_pairs mutated pairs of about len residues. */
static void long_set(set_t *s, int n_pairs, int len)
{
	uint8_t *a = malloc((size_t)len * 2), *b = malloc((size_t)len * 3);
	if (!a || !b) abort();
	set_init(s, NW_ALPHA_DNA);
	for (int k = 0; k < n_pairs; k++) {
		random_seq(a, len, 4);
		int bl;
		if (k % 3 == 2) { /* long indels across tiles and across the middle row */
			bl = 0;
			for (int i = 0; i < len; i++) {
				if (i == len / 3) i += 400;               /* a 400-residue deletion */
				if (i == len / 2)                         /* a 300-residue insertion */
					for (int x = 0; x < 300; x++) b[bl++] = (uint8_t)rnd(0, 3);
				if (i < len) b[bl++] = i % 50 == 0 ? (uint8_t)((a[i] + 1) % 4) : a[i];
			}
		} else {
			bl = mutate(a, len, b, len * 3, 0.05 + 0.05 * k, 6, 4);
		}
		if (k % 2) set_add(s, a, len, b, bl);
		else set_add(s, b, bl, a, len); /* insertions in the query too: vertical gaps */
	}
	free(a);
	free(b);
}

static void long_sets(void)
{
	static const int tiles[][2] = {{320, 120}, {64, 0}, {100, 30}, {32, 8}};
	set_t s;
	long_set(&s, 6, 2200);
	for (int md = 0; md < 3; md++) {
		nw_align_params_t p = {0};
		p.mode = modes[md];
		p.sc = md == 1 ? &sc_dna_lin : &sc_dna;
		char name[80];
		p.gact = 1;
		for (int t = 0; t < 4; t++) {
			p.tile = tiles[t][0];
			p.overlap = tiles[t][1];
			/* every GACT path kept, then the default --max-deficit (short paths redone) */
			p.max_deficit = t < 2 ? 1 : NW_GACT_MAX_DEFICIT;
			snprintf(name, sizeof name, "gact %s T=%d O=%d deficit %g", mode_name[md], p.tile,
				 p.overlap, p.max_deficit);
			check_set(name, &s, p);
		}
		p.tile = p.overlap = 0;
		p.gact = 0;
		snprintf(name, sizeof name, "exact %s", mode_name[md]);
		check_set(name, &s, p);
	}
	/* deep splits: small leaves on both engines */
	setenv("NW_GPU_MM_LEAF", "3000", 1);
	nw_workspace_set_full_cells(ws, 3000);
	exact_only = 1;
	for (int md = 0; md < 3; md += 2) {
		nw_align_params_t p = {0};
		p.mode = modes[md];
		p.sc = md == 0 ? &sc_dna : &sc_dna_lin;
		char name[80];
		snprintf(name, sizeof name, "exact %s leaves of 3000 cells", mode_name[md]);
		check_set(name, &s, p);
	}
	/* the same with every problem of two stripes or more as a staircase (a warp a stripe,
	 * on a device; the emulation sweeps the stripes in turn either way) */
	setenv("NW_GPU_PATH_STAIR_STRIPES", "2", 1);
	exact_modes(&s, "leaves of 3000 cells, staircases");
	nw_workspace_set_full_cells(ws, 0);
	exact_only = 0;
	unsetenv("NW_GPU_MM_LEAF");
	/* staircases with the default leaves */
	exact_modes(&s, "staircases");
	unsetenv("NW_GPU_PATH_STAIR_STRIPES");
	set_free(&s);
}

int main(void)
{
	if (!nw_gpu_built()) {
		printf("path_diff: no CUDA engine in this build: skipped\n");
		return 77;
	}
	const char *em = getenv("NW_PATH_DIFF_EMULATE");
	if (!(em && *em == '1') && nw_gpu_device_count() > 0) {
		gpu = nw_gpu_open(0, err, sizeof err);
		if (!gpu) {
			fprintf(stderr, "path_diff: %s\n", err);
			return 1;
		}
		printf("path_diff: %s\n", nw_gpu_describe(gpu));
	} else {
		printf("path_diff: no device: the kernels' host emulation\n");
	}
	const char *qe = getenv("NW_PATH_DIFF_QUICK");
	if (qe && atoll(qe) > 1)
		quick_stride = atoll(qe);
	ws = nw_workspace_new();
	scorings();
	full_sets();
	band_sets();
	long_sets();
	nw_workspace_free(ws);
	if (gpu) nw_gpu_close(gpu);
	return tu_finish("path_diff");
}
