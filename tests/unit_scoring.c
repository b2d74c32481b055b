/* unit_scoring.c: substitution matrices (built-in and NCBI files), the DNA rule and the
 * gap model's limits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nwalign.h"
#include "testutil.h"

static int code(nw_alphabet_t a, char c)
{
	return nw_encode_char(a, c);
}

static int32_t pscore(const nw_scoring_t *sc, char a, char b)
{
	return sc->score[code(sc->alphabet, a)][code(sc->alphabet, b)];
}

static void test_builtins(void)
{
	nw_scoring_t sc;
	char err[256];
	CHECK(nw_scoring_matrix(&sc, "blosum62", NW_ALPHA_AUTO, 11, 1, err, sizeof err) == 0, "%s", err);
	/* Published BLOSUM62 values. */
	CHECK_EQ_I64(pscore(&sc, 'A', 'A'), 4, "A/A");
	CHECK_EQ_I64(pscore(&sc, 'W', 'W'), 11, "W/W");
	CHECK_EQ_I64(pscore(&sc, 'A', 'R'), -1, "A/R");
	CHECK_EQ_I64(pscore(&sc, 'C', 'C'), 9, "C/C");
	CHECK_EQ_I64(pscore(&sc, 'W', 'F'), 1, "W/F");
	CHECK_EQ_I64(pscore(&sc, '*', '*'), 1, "*/*");
	CHECK_EQ_I64(pscore(&sc, 'J', 'X'), pscore(&sc, 'X', 'X'), "J is read as X");
	CHECK_EQ_I64(sc.max_score, 11, "max");
	CHECK_EQ_I64(sc.min_score, -4, "min");
	CHECK_EQ_I64(sc.gap_open, 11, "open");
	CHECK_EQ_I64(sc.gap_extend, 1, "extend");
	CHECK(sc.alphabet == NW_ALPHA_PROTEIN, "alphabet");
	CHECK(strcmp(sc.name, "blosum62") == 0, "%s", sc.name);
	/* Upper case names are accepted. */
	CHECK(nw_scoring_matrix(&sc, "PAM250", NW_ALPHA_PROTEIN, 10, 2, err, sizeof err) == 0, "%s", err);
	CHECK_EQ_I64(pscore(&sc, 'W', 'W'), 17, "PAM250 W/W");
	CHECK_EQ_I64(pscore(&sc, 'C', 'W'), -8, "PAM250 C/W");

	CHECK(nw_scoring_matrix(&sc, "ednafull", NW_ALPHA_AUTO, 10, 1, err, sizeof err) == 0, "%s", err);
	CHECK(sc.alphabet == NW_ALPHA_DNA, "ednafull is DNA");
	CHECK_EQ_I64(pscore(&sc, 'A', 'A'), 5, "A/A");
	CHECK_EQ_I64(pscore(&sc, 'A', 'T'), -4, "A/T");
	CHECK_EQ_I64(pscore(&sc, 'U', 'T'), 5, "U is read as T");
	CHECK_EQ_I64(pscore(&sc, 'N', 'N'), -1, "N/N");
	CHECK_EQ_I64(pscore(&sc, 'A', 'W'), 1, "A/W (W = A or T)");
	CHECK_EQ_I64(pscore(&sc, 'R', 'G'), 1, "R/G");

	/* Every built-in name maps to its alphabet; anything else is not built in. */
	CHECK(nw_matrix_builtin_alphabet("blosum45") == NW_ALPHA_PROTEIN, "blosum45");
	CHECK(nw_matrix_builtin_alphabet("BLOSUM80") == NW_ALPHA_PROTEIN, "BLOSUM80");
	CHECK(nw_matrix_builtin_alphabet("ednafull") == NW_ALPHA_DNA, "ednafull");
	CHECK(nw_matrix_builtin_alphabet("blosum63") == NW_ALPHA_AUTO, "blosum63");

	/* Wrong alphabet, unknown name. */
	CHECK(nw_scoring_matrix(&sc, "blosum62", NW_ALPHA_DNA, 11, 1, err, sizeof err) < 0, "dna");
	CHECK(strstr(err, "protein") != NULL, "%s", err);
	CHECK(nw_scoring_matrix(&sc, "blosum63", NW_ALPHA_PROTEIN, 11, 1, err, sizeof err) < 0, "unknown");
	CHECK(strstr(err, "unknown matrix 'blosum63'") != NULL, "%s", err);
}

static void test_dna_rule(void)
{
	nw_scoring_t sc;
	char err[256];
	CHECK(nw_scoring_dna(&sc, 2, 4, 4, 2, err, sizeof err) == 0, "%s", err);
	CHECK_EQ_I64(pscore(&sc, 'A', 'A'), 2, "A/A");
	CHECK_EQ_I64(pscore(&sc, 'T', 'T'), 2, "T/T");
	CHECK_EQ_I64(pscore(&sc, 'A', 'C'), -4, "A/C");
	CHECK_EQ_I64(pscore(&sc, 'N', 'N'), -4, "N/N is a mismatch");
	CHECK_EQ_I64(pscore(&sc, 'N', 'A'), -4, "N/A");
	CHECK_EQ_I64(pscore(&sc, 'R', 'R'), -4, "R/R");
	CHECK_EQ_I64(sc.max_score, 2, "max");
	CHECK_EQ_I64(sc.min_score, -4, "min");
	/* Limits: negative or absurd values are refused. */
	CHECK(nw_scoring_dna(&sc, -1, 4, 4, 2, err, sizeof err) < 0, "negative match");
	CHECK(nw_scoring_dna(&sc, 2, 1001, 4, 2, err, sizeof err) < 0, "absurd mismatch");
	CHECK(nw_scoring_dna(&sc, 2, 4, -1, 2, err, sizeof err) < 0, "negative open");
	CHECK(nw_scoring_dna(&sc, 2, 4, 4, 0, err, sizeof err) < 0, "zero extend");
	CHECK(strstr(err, "--gap-extend") != NULL, "%s", err);
	CHECK(nw_scoring_dna(&sc, 2, 4, 0, 1, err, sizeof err) == 0, "linear gaps: %s", err);
}

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	char *buf = calloc(1, 1 << 16);
	size_t n = fread(buf, 1, (1 << 16) - 1, fp);
	buf[n] = 0;
	fclose(fp);
	return buf;
}

/* The NCBI files shipped in shared/data/matrices give the same tables as the built-ins. */
static void test_files(void)
{
	static const char *pairs[][2] = {{"EBLOSUM45", "blosum45"}, {"EBLOSUM50", "blosum50"},
					 {"EBLOSUM62", "blosum62"}, {"EBLOSUM80", "blosum80"},
					 {"EPAM250", "pam250"}, {"EDNAFULL", "ednafull"}};
	const char *top = getenv("top_srcdir") ? getenv("top_srcdir") : ".";
	char path[1024], err[256];
	for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
		nw_scoring_t a, b;
		snprintf(path, sizeof path, "%s/../shared/data/matrices/%s", top, pairs[k][0]);
		nw_alphabet_t al = nw_matrix_builtin_alphabet(pairs[k][1]);
		FILE *probe = fopen(path, "r");
		if (!probe) {
			fprintf(stderr, "note: %s not found, matrix file comparison skipped\n", path);
			continue;
		}
		fclose(probe);
		CHECK(nw_scoring_matrix(&a, path, al, 5, 1, err, sizeof err) == 0, "%s", err);
		CHECK(nw_scoring_matrix(&b, pairs[k][1], al, 5, 1, err, sizeof err) == 0, "%s", err);
		CHECK(memcmp(a.score, b.score, sizeof a.score) == 0, "%s differs from %s", path,
		      pairs[k][1]);
		CHECK(strcmp(a.name, pairs[k][0]) == 0, "name %s", a.name);
	}
	/* A file needs an alphabet; a missing file is a clear error. */
	nw_scoring_t sc;
	CHECK(nw_scoring_matrix(&sc, "/nonexistent/matrix", NW_ALPHA_PROTEIN, 5, 1, err, sizeof err) < 0, "missing");
	CHECK(strstr(err, "/nonexistent/matrix") != NULL, "%s", err);
	snprintf(path, sizeof path, "%s/../shared/data/matrices/EBLOSUM62", top);
	char *text = slurp(path);
	if (text) {
		nw_scoring_t x;
		CHECK(nw_scoring_parse_ncbi(&x, text, NW_ALPHA_PROTEIN, err, sizeof err) == 0, "%s", err);
		free(text);
	}
}

static void test_parse_errors(void)
{
	nw_scoring_t sc;
	char err[256];
	/* A small DNA matrix with comments, blank lines and rows in any order. */
	const char *ok = "# comment\n\n   A  C  G  T\nT -1 -1 -1  3\nA  3 -1 -1 -1\nC -1  3 -1 -1\nG -1 -1  3 -1\n";
	CHECK(nw_scoring_parse_ncbi(&sc, ok, NW_ALPHA_DNA, err, sizeof err) == 0, "%s", err);
	CHECK_EQ_I64(pscore(&sc, 'T', 'T'), 3, "T/T");
	CHECK_EQ_I64(pscore(&sc, 'A', 'C'), -1, "A/C");
	/* N is missing and there is no N row: the minimum is used. */
	CHECK_EQ_I64(pscore(&sc, 'N', 'A'), -1, "N falls back to the minimum");
	/* Asymmetric matrices keep query rows and reference columns. */
	const char *asym = "   A  C  G  T\nA  3 -2 -1 -1\nC -1  3 -1 -1\nG -1 -1  3 -1\nT -1 -1 -1  3\n";
	CHECK(nw_scoring_parse_ncbi(&sc, asym, NW_ALPHA_DNA, err, sizeof err) == 0, "%s", err);
	CHECK_EQ_I64(pscore(&sc, 'A', 'C'), -2, "row A column C");
	CHECK_EQ_I64(pscore(&sc, 'C', 'A'), -1, "row C column A");

	static const struct { const char *text, *msg; } bad[] = {
		{"", "no matrix"},
		{"# only comments\n", "no matrix"},
		{"   A  C  G  T\nA  3 -1 -1\n", "3 values for 4 columns"},
		{"   A  C  G  T\nA  3 -1 -1 x\n", "'x' is not an integer"},
		{"   A  C  G  T\nA  3 -1 -1 5000\n", "'5000' is not an integer"},
		{"   A  C  G  T\nA 3 -1 -1 -1\nA 3 -1 -1 -1\n", "not a new single letter"},
		{"   A  AC  G  T\n", "not a new single letter"},
		{"   A  C  G\nA 3 -1 -1\nC -1 3 -1\nG -1 -1 3\n", "no row or column for 'T'"},
	};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		err[0] = 0;
		CHECK(nw_scoring_parse_ncbi(&sc, bad[k].text, NW_ALPHA_DNA, err, sizeof err) < 0,
		      "case %zu accepted", k);
		CHECK(strstr(err, bad[k].msg) != NULL, "case %zu: '%s' lacks '%s'", k, err, bad[k].msg);
	}
}

int main(void)
{
	test_builtins();
	test_dna_rule();
	test_files();
	test_parse_errors();
	return tu_finish("unit_scoring");
}
