/* diff_parasail.c: differential test of the CPU engine against parasail.
 *
 * Every score of nw_cpu_align must equal the score of parasail's plain serial reference
 * functions: global = parasail_nw, local = parasail_sw, semiglobal = parasail_sg_dx
 * (query end to end, free reference overhangs), with the query as s1 and the reference
 * as s2. Gap conversion: parasail charges `open` for the first gap position, so its open
 * is our O + E and its extend our E.
 *
 * The parasail matrices are built independently of src/scoring.c: built-in names through
 * parasail_matrix_lookup (ednafull is parasail's nuc44, equal on our 15 DNA codes), and
 * match/mismatch DNA as parasail_matrix_create(NW_DNA_ALPHABET, match, -mismatch) with
 * every pair that involves a non-ACGT code (N against N too) set to -mismatch, our rule.
 *
 * Pairs: random pairs of lengths 1..300 (DNA with and without IUPAC codes, protein,
 * unrelated and related); real proteins (the first 10 queries of mm_query50.fa against
 * the first 60 sequences of mm_db2k.fa, globins.fa all against all); the first 200 lambda
 * reads (lambda_reads_2k.fq.gz) against a window of lambda.fa around where they map.
 * Every mode, linear and affine gaps. The data directory is $top_srcdir/../shared/data
 * (top_srcdir defaults to "."); when it is missing the real pairs are skipped with a note.
 *
 * Prints the pairs compared and failed per (mode, gap model, alphabet); the first failures
 * print the pair. Exits 1 on any difference.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include <parasail.h>

#include "nwalign.h"
#include "testutil.h"

#define MAX_PRINT 10
#define DIR_BUF 2048
#define PATH_BUF (DIR_BUF + 64)

static uint64_t seed = 0x2545f4914f6cdd1dull;
static nw_workspace_t *ws;
static int n_printed;

/* pairs compared and failures per [mode][linear][protein] */
static long n_cmp[3][2][2], n_bad[3][2][2];
/* end coordinates that agree with parasail's (information only: parasail's tie rule is
 * not part of our contract) */
static long n_end_same, n_end_cmp;

/* ---------------------------------------------------------------- scorings */

typedef struct {
	char label[64];
	nw_scoring_t sc;
	parasail_matrix_t *owned;       /* built here, freed at the end */
	const parasail_matrix_t *pm;
	int ok;
} scoring_case_t;

static void case_dna(scoring_case_t *c, int match, int mismatch, int O, int E)
{
	char err[256] = "";
	memset(c, 0, sizeof(*c));
	snprintf(c->label, sizeof(c->label), "dna %d/%d gaps %d/%d", match, mismatch, O, E);
	c->ok = nw_scoring_dna(&c->sc, match, mismatch, O, E, err, sizeof(err)) == 0;
	CHECK(c->ok, "nw_scoring_dna: %s", err);
	c->owned = parasail_matrix_create(NW_DNA_ALPHABET, match, -mismatch);
	CHECK(c->owned != NULL, "parasail_matrix_create");
	if (!c->owned) {
		c->ok = 0;
		return;
	}
	for (int a = 0; a < NW_DNA_CODES; a++)
		for (int b = 0; b < NW_DNA_CODES; b++)
			if (a >= 4 || b >= 4)
				parasail_matrix_set_value(c->owned, a, b, -mismatch);
	c->pm = c->owned;
}

static void case_matrix(scoring_case_t *c, const char *name, const char *parasail_name,
			nw_alphabet_t a, int O, int E)
{
	char err[256] = "";
	memset(c, 0, sizeof(*c));
	snprintf(c->label, sizeof(c->label), "%s gaps %d/%d", name, O, E);
	c->ok = nw_scoring_matrix(&c->sc, name, a, O, E, err, sizeof(err)) == 0;
	CHECK(c->ok, "nw_scoring_matrix(%s): %s", name, err);
	c->pm = parasail_matrix_lookup(parasail_name);
	CHECK(c->pm != NULL, "parasail_matrix_lookup(%s)", parasail_name);
	if (!c->pm)
		c->ok = 0;
}

static const char *alpha_of(const scoring_case_t *c)
{
	return c->sc.alphabet == NW_ALPHA_PROTEIN ? NW_PROTEIN_ALPHABET : NW_DNA_ALPHABET;
}

/* ---------------------------------------------------------------- one pair */

typedef struct {
	uint8_t *s;
	char *txt;
	int64_t len, cap;
} seq_t;

static int seq_reserve(seq_t *x, int64_t n)
{
	if (n + 1 <= x->cap)
		return 0;
	int64_t cap = (n + 1) * 2;
	uint8_t *s = realloc(x->s, cap);
	if (!s)
		return -1;
	x->s = s;
	char *t = realloc(x->txt, cap);
	if (!t)
		return -1;
	x->txt = t;
	x->cap = cap;
	return 0;
}

static void seq_free(seq_t *x)
{
	free(x->s);
	free(x->txt);
	memset(x, 0, sizeof(*x));
}

/* Letters for parasail from our codes. */
static void seq_text(seq_t *x, const char *alpha)
{
	for (int64_t i = 0; i < x->len; i++)
		x->txt[i] = alpha[x->s[i]];
	x->txt[x->len] = 0;
}

static void print_pair(const char *what, const seq_t *q, const seq_t *r)
{
	fprintf(stderr, "  %s\n  query (%" PRId64 "): %s\n  ref   (%" PRId64 "): %s\n", what,
		q->len, q->txt, r->len, r->txt);
}

/* Both engines on one pair in every mode. */
static void compare(const char *section, const scoring_case_t *c, seq_t *q, seq_t *r)
{
	int linear = c->sc.gap_open == 0, prot = c->sc.alphabet == NW_ALPHA_PROTEIN;
	int popen = c->sc.gap_open + c->sc.gap_extend, pext = c->sc.gap_extend;
	seq_text(q, alpha_of(c));
	seq_text(r, alpha_of(c));
	for (int mode = NW_MODE_GLOBAL; mode <= NW_MODE_SEMIGLOBAL; mode++) {
		parasail_result_t *pr;
		int qn = (int)q->len, rn = (int)r->len;
		if (mode == NW_MODE_GLOBAL)
			pr = parasail_nw(q->txt, qn, r->txt, rn, popen, pext, c->pm);
		else if (mode == NW_MODE_LOCAL)
			pr = parasail_sw(q->txt, qn, r->txt, rn, popen, pext, c->pm);
		else
			pr = parasail_sg_dx(q->txt, qn, r->txt, rn, popen, pext, c->pm);
		nw_align_params_t p = { .mode = (nw_mode_t)mode, .sc = &c->sc, .want_path = 0 };
		nw_result_t res;
		memset(&res, 0, sizeof(res));
		int rc = nw_cpu_align(&p, q->s, q->len, r->s, r->len, ws, &res);
		n_cmp[mode][linear][prot]++;
		if (!pr || rc != 0 || res.score != parasail_result_get_score(pr)) {
			n_bad[mode][linear][prot]++;
			tu_failed++;
			if (n_printed++ < MAX_PRINT) {
				fprintf(stderr, "FAIL [%s] %s, %s: nwalign rc %d score %" PRId64
					", parasail %d\n", section,
					mode == 0 ? "global" : mode == 1 ? "local" : "semiglobal",
					c->label, rc, res.score,
					pr ? parasail_result_get_score(pr) : -999999);
				print_pair("pair:", q, r);
			} else if (n_printed == MAX_PRINT + 1) {
				fprintf(stderr, "(further failures not printed)\n");
			}
		} else {
			tu_passed++;
			if (mode != NW_MODE_GLOBAL && res.score > 0) {
				n_end_cmp++;
				if (parasail_result_get_end_query(pr) + 1 == res.qend &&
				    parasail_result_get_end_ref(pr) + 1 == res.rend)
					n_end_same++;
			}
		}
		nw_result_free(&res);
		if (pr)
			parasail_result_free(pr);
	}
}

/* ---------------------------------------------------------------- random pairs */

static int64_t rnd(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(tu_rand(&seed) % (uint64_t)(hi - lo + 1));
}

static uint8_t rand_code(int prot, int iupac)
{
	if (prot)
		return (uint8_t)(rnd(0, 99) < 95 ? rnd(0, 19) : rnd(20, NW_PROTEIN_CODES - 1));
	if (iupac && rnd(0, 99) < 15)
		return (uint8_t)rnd(4, NW_DNA_CODES - 1);
	return (uint8_t)rnd(0, 3);
}

static void random_pairs(const scoring_case_t *c, int n_pairs)
{
	int prot = c->sc.alphabet == NW_ALPHA_PROTEIN;
	seq_t q = { 0 }, r = { 0 };
	if (seq_reserve(&q, 700) < 0 || seq_reserve(&r, 700) < 0) {
		tu_failed++;
		goto done;
	}
	for (int it = 0; it < n_pairs; it++) {
		int iupac = it & 1;
		q.len = rnd(1, 300);
		for (int64_t i = 0; i < q.len; i++)
			q.s[i] = rand_code(prot, iupac);
		if (it % 3 == 0) { /* unrelated */
			r.len = rnd(1, 300);
			for (int64_t j = 0; j < r.len; j++)
				r.s[j] = rand_code(prot, iupac);
		} else { /* flanks around a mutated copy of part of the query */
			int64_t s = rnd(0, q.len - 1), e = rnd(s + 1, q.len), k = 0;
			int64_t f1 = rnd(0, 50), f2 = rnd(0, 50);
			for (int64_t j = 0; j < f1; j++)
				r.s[k++] = rand_code(prot, iupac);
			for (int64_t i = s; i < e; i++) {
				int x = (int)rnd(0, 99);
				if (x < 4)
					continue;                           /* deletion */
				if (x < 8)
					r.s[k++] = rand_code(prot, iupac);  /* insertion */
				r.s[k++] = x < 20 ? rand_code(prot, iupac) : q.s[i];
			}
			for (int64_t j = 0; j < f2; j++)
				r.s[k++] = rand_code(prot, iupac);
			if (k == 0)
				r.s[k++] = rand_code(prot, iupac);
			r.len = k;
		}
		compare("random", c, &q, &r);
	}
done:
	seq_free(&q);
	seq_free(&r);
}

/* ---------------------------------------------------------------- a tiny reader */

typedef struct {
	int64_t n, cap;
	seq_t *seq;
} seqset_t;

static void seqset_free(seqset_t *s)
{
	for (int64_t i = 0; i < s->n; i++)
		seq_free(&s->seq[i]);
	free(s->seq);
	memset(s, 0, sizeof(*s));
}

static int encode(int ch, int prot)
{
	const char *alpha = prot ? NW_PROTEIN_ALPHABET : NW_DNA_ALPHABET;
	ch = toupper(ch);
	if (prot && (ch == 'J' || ch == 'O' || ch == 'U'))
		ch = 'X';
	if (!prot && ch == 'U')
		ch = 'T';
	const char *p = ch ? strchr(alpha, ch) : NULL;
	return p ? (int)(p - alpha) : -1;
}

/* Read one whole line (any length) into *buf; returns its length or -1 at the end. */
static int64_t read_line(gzFile fp, char **buf, int64_t *cap)
{
	int64_t len = 0;
	if (!*buf) {
		*cap = 4096;
		if (!(*buf = malloc(*cap)))
			return -1;
	}
	for (;;) {
		if (!gzgets(fp, *buf + len, (int)(*cap - len)))
			return len > 0 ? len : -1;
		len += (int64_t)strlen(*buf + len);
		if (len > 0 && (*buf)[len - 1] == '\n') {
			(*buf)[--len] = 0;
			if (len > 0 && (*buf)[len - 1] == '\r')
				(*buf)[--len] = 0;
			return len;
		}
		if (len + 1 >= *cap) {
			char *nb = realloc(*buf, *cap * 2);
			if (!nb)
				return -1;
			*buf = nb;
			*cap *= 2;
		}
	}
}

/* The first max_records records of a FASTA or FASTQ file (plain or gzip), encoded.
 * Returns 0, or -1 with a message on stderr. */
static int read_seqs(const char *path, int prot, int64_t max_records, seqset_t *out)
{
	gzFile fp = gzopen(path, "rb");
	char *line = NULL;
	int64_t cap = 0, len, lineno = 0;
	int fastq = 0, ret = -1, in_qual = 0;
	seq_t *cur = NULL;
	memset(out, 0, sizeof(*out));
	if (!fp) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	while ((len = read_line(fp, &line, &cap)) >= 0) {
		lineno++;
		if (fastq && in_qual) { /* one quality line per record in these files */
			in_qual = 0;
			continue;
		}
		if (line[0] == '>' || line[0] == '@') {
			if (out->n == max_records)
				break;
			fastq = line[0] == '@';
			if (out->n == out->cap) {
				int64_t nc = out->cap ? out->cap * 2 : 64;
				seq_t *ns = realloc(out->seq, nc * sizeof(seq_t));
				if (!ns)
					goto done;
				out->seq = ns;
				out->cap = nc;
			}
			cur = &out->seq[out->n++];
			memset(cur, 0, sizeof(*cur));
			continue;
		}
		if (fastq && line[0] == '+') {
			in_qual = 1;
			continue;
		}
		if (!cur) {
			if (len == 0)
				continue;
			fprintf(stderr, "%s:%" PRId64 ": sequence before a header\n", path, lineno);
			goto done;
		}
		if (seq_reserve(cur, cur->len + len) < 0)
			goto done;
		for (int64_t i = 0; i < len; i++) {
			if (isspace((unsigned char)line[i]))
				continue;
			int code = encode((unsigned char)line[i], prot);
			if (code < 0) {
				fprintf(stderr, "%s:%" PRId64 ": unexpected character '%c'\n", path,
					lineno, line[i]);
				goto done;
			}
			cur->s[cur->len++] = (uint8_t)code;
		}
	}
	ret = 0;
	for (int64_t i = 0; i < out->n; i++) {
		if (out->seq[i].len == 0) {
			fprintf(stderr, "%s: record %" PRId64 " is empty\n", path, i + 1);
			ret = -1;
		}
	}
done:
	free(line);
	gzclose(fp);
	if (ret < 0)
		seqset_free(out);
	return ret;
}

/* ---------------------------------------------------------------- real pairs */

static void protein_pairs(const char dir[DIR_BUF], const scoring_case_t *cases, int nc)
{
	char p1[PATH_BUF], p2[PATH_BUF];
	seqset_t qs, db, gl;
	snprintf(p1, sizeof(p1), "%s/protein/mm_query50.fa", dir);
	snprintf(p2, sizeof(p2), "%s/protein/mm_db2k.fa", dir);
	if (read_seqs(p1, 1, 10, &qs) < 0) {
		tu_failed++;
		return;
	}
	if (read_seqs(p2, 1, 60, &db) < 0) {
		tu_failed++;
		seqset_free(&qs);
		return;
	}
	CHECK(qs.n == 10 && db.n == 60, "read %" PRId64 " queries and %" PRId64 " db", qs.n,
	      db.n);
	for (int k = 0; k < nc; k++) /* blosum62, affine and linear */
		if (cases[k].ok && !strncmp(cases[k].label, "blosum62", 8))
			for (int64_t i = 0; i < qs.n; i++)
				for (int64_t j = 0; j < db.n; j++)
					compare("mm_query50 x mm_db2k", &cases[k], &qs.seq[i],
						&db.seq[j]);
	seqset_free(&qs);
	seqset_free(&db);

	snprintf(p1, sizeof(p1), "%s/protein/globins.fa", dir);
	if (read_seqs(p1, 1, 1000, &gl) < 0) {
		tu_failed++;
		return;
	}
	CHECK(gl.n >= 2, "globins: %" PRId64 " records", gl.n);
	for (int k = 0; k < nc; k++) /* every protein scoring */
		if (cases[k].ok && cases[k].sc.alphabet == NW_ALPHA_PROTEIN)
			for (int64_t i = 0; i < gl.n; i++)
				for (int64_t j = 0; j < gl.n; j++)
					compare("globins", &cases[k], &gl.seq[i], &gl.seq[j]);
	seqset_free(&gl);
}

/* Reverse complement of DNA codes in place (ACGTN and the IUPAC pairs). */
static void revcomp(uint8_t *s, int64_t n)
{
	/* A C G T N R Y S W K M B D H V -> T G C A N Y R S W M K V H D B */
	static const uint8_t comp[NW_DNA_CODES] = { 3, 2, 1, 0, 4, 6, 5, 7, 8, 10, 9, 14, 13, 12, 11 };
	for (int64_t i = 0, j = n - 1; i <= j; i++, j--) {
		uint8_t a = comp[s[i]], b = comp[s[j]];
		s[i] = b;
		s[j] = a;
	}
}

#define KMER 10
/* Best diagonal (reference position of read position 0) by 10-mer votes, or INT64_MIN. */
static int64_t locate(const int32_t *index, const uint8_t *s, int64_t n, int64_t *votes)
{
	int64_t best = INT64_MIN, best_votes = 0;
	int64_t *diag = malloc(sizeof(int64_t) * (n > 0 ? n : 1));
	int64_t nd = 0;
	if (!diag)
		return INT64_MIN;
	for (int64_t i = 0; i + KMER <= n; i++) {
		uint32_t key = 0;
		int ok = 1;
		for (int k = 0; k < KMER; k++) {
			if (s[i + k] > 3) {
				ok = 0;
				break;
			}
			key = key << 2 | s[i + k];
		}
		if (ok && index[key] >= 0)
			diag[nd++] = index[key] - i;
	}
	for (int64_t a = 0; a < nd; a++) { /* quadratic, n is a few hundred */
		int64_t v = 0;
		for (int64_t b = 0; b < nd; b++)
			if (llabs(diag[a] - diag[b]) <= 20)
				v++;
		if (v > best_votes) {
			best_votes = v;
			best = diag[a];
		}
	}
	free(diag);
	*votes = best_votes;
	return best;
}

static void dna_pairs(const char dir[DIR_BUF], const scoring_case_t *cases, int nc)
{
	char p1[PATH_BUF], p2[PATH_BUF];
	seqset_t reads, lam;
	int32_t *index = NULL;
	int64_t mapped = 0;
	seq_t win = { 0 };
	snprintf(p1, sizeof(p1), "%s/dna/lambda_reads_2k.fq.gz", dir);
	snprintf(p2, sizeof(p2), "%s/dna/lambda.fa", dir);
	if (read_seqs(p1, 0, 200, &reads) < 0) {
		tu_failed++;
		return;
	}
	if (read_seqs(p2, 0, 1, &lam) < 0) {
		tu_failed++;
		seqset_free(&reads);
		return;
	}
	CHECK(reads.n == 200 && lam.n == 1, "read %" PRId64 " reads", reads.n);
	const seq_t *g = &lam.seq[0];
	index = malloc(sizeof(int32_t) << (2 * KMER));
	if (!index || seq_reserve(&win, 2000) < 0) {
		tu_failed++;
		goto done;
	}
	memset(index, 0xff, sizeof(int32_t) << (2 * KMER));
	for (int64_t i = 0; i + KMER <= g->len; i++) {
		uint32_t key = 0;
		int ok = 1;
		for (int k = 0; k < KMER; k++) {
			if (g->s[i + k] > 3)
				ok = 0;
			key = key << 2 | (g->s[i + k] & 3);
		}
		if (ok)
			index[key] = (int32_t)i;
	}
	for (int64_t t = 0; t < reads.n; t++) {
		seq_t *rd = &reads.seq[t];
		int64_t vf = 0, vr = 0, pf, pr, pos;
		pf = locate(index, rd->s, rd->len, &vf);
		revcomp(rd->s, rd->len);
		pr = locate(index, rd->s, rd->len, &vr);
		if (vf >= vr) { /* forward strand: undo the reverse complement */
			revcomp(rd->s, rd->len);
			pos = pf;
		} else {
			pos = pr;
		}
		if (vf < 3 && vr < 3) /* unmapped: a random window */
			pos = rnd(0, g->len - rd->len > 0 ? g->len - rd->len : 0);
		else
			mapped++;
		int64_t ws0 = pos - 60, we = pos + rd->len + 60;
		if (ws0 < 0)
			ws0 = 0;
		if (we > g->len)
			we = g->len;
		if (we <= ws0) {
			ws0 = 0;
			we = g->len < 400 ? g->len : 400;
		}
		win.len = we - ws0;
		if (seq_reserve(&win, win.len) < 0) {
			tu_failed++;
			goto done;
		}
		memcpy(win.s, g->s + ws0, win.len);
		for (int k = 0; k < nc; k++)
			if (cases[k].ok && cases[k].sc.alphabet == NW_ALPHA_DNA)
				compare("lambda read x window", &cases[k], rd, &win);
	}
	fprintf(stderr, "lambda reads: %" PRId64 " of %" PRId64 " placed by 10-mers\n", mapped,
		reads.n);
done:
	free(index);
	seq_free(&win);
	seqset_free(&reads);
	seqset_free(&lam);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
	scoring_case_t cases[16];
	int nc = 0;
	clock_t t0 = clock();
	const char *top = getenv("top_srcdir");
	char dir[DIR_BUF];
	snprintf(dir, sizeof(dir), "%s/../shared/data", top && *top ? top : ".");

	ws = nw_workspace_new();
	CHECK(ws != NULL, "nw_workspace_new");
	if (!ws)
		return tu_finish("diff_parasail");

	case_dna(&cases[nc++], 2, 4, 4, 2);
	case_dna(&cases[nc++], 2, 4, 0, 2);
	case_dna(&cases[nc++], 1, 1, 2, 1);
	case_dna(&cases[nc++], 5, 4, 0, 3);
	case_matrix(&cases[nc++], "ednafull", "nuc44", NW_ALPHA_DNA, 8, 2);
	case_matrix(&cases[nc++], "ednafull", "nuc44", NW_ALPHA_DNA, 0, 4);
	case_matrix(&cases[nc++], "blosum62", "blosum62", NW_ALPHA_PROTEIN, 11, 1);
	case_matrix(&cases[nc++], "blosum62", "blosum62", NW_ALPHA_PROTEIN, 0, 4);
	case_matrix(&cases[nc++], "pam250", "pam250", NW_ALPHA_PROTEIN, 10, 2);
	case_matrix(&cases[nc++], "pam250", "pam250", NW_ALPHA_PROTEIN, 0, 6);
	case_matrix(&cases[nc++], "blosum45", "blosum45", NW_ALPHA_PROTEIN, 14, 2);
	case_matrix(&cases[nc++], "blosum50", "blosum50", NW_ALPHA_PROTEIN, 12, 2);
	case_matrix(&cases[nc++], "blosum80", "blosum80", NW_ALPHA_PROTEIN, 9, 1);

	for (int k = 0; k < nc; k++)
		if (cases[k].ok)
			random_pairs(&cases[k], k < 10 ? 150 : 50);

	FILE *probe;
	char path[PATH_BUF];
	snprintf(path, sizeof(path), "%s/protein/globins.fa", dir);
	if ((probe = fopen(path, "r")) != NULL) {
		fclose(probe);
		protein_pairs(dir, cases, nc);
		dna_pairs(dir, cases, nc);
	} else {
		fprintf(stderr, "diff_parasail: %s not found: real pairs skipped\n", dir);
	}

	static const char *mname[3] = { "global", "local", "semiglobal" };
	for (int mode = 0; mode < 3; mode++)
		for (int lin = 0; lin < 2; lin++)
			for (int prot = 0; prot < 2; prot++)
				printf("diff_parasail: %-10s %-6s %-7s %6ld pairs, %ld differ\n",
				       mname[mode], lin ? "linear" : "affine",
				       prot ? "protein" : "dna", n_cmp[mode][lin][prot],
				       n_bad[mode][lin][prot]);
	printf("diff_parasail: local/semiglobal end cell equal to parasail's in %ld of %ld "
	       "(information only)\n", n_end_same, n_end_cmp);
	fprintf(stderr, "diff_parasail: %.1f s CPU\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
	for (int k = 0; k < nc; k++)
		if (cases[k].owned)
			parasail_matrix_free(cases[k].owned);
	nw_workspace_free(ws);
	return tu_finish("diff_parasail");
}
