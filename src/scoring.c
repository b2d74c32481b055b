/* scoring.c: substitution scores and the gap model.
 *
 * Every engine scores a pair of residue codes as sc->score[query][ref] and a gap of length
 * L as gap_open + L * gap_extend. Matrices are translated once into the code space of the
 * alphabet, so engines never see letters.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "matrices.h"
#include "nwalign.h"

#define NW_SCORE_LIMIT 1000   /* largest magnitude of any score or penalty */
#define NW_MATRIX_FILE_MAX (1 << 20)

static int check_gaps(int gap_open, int gap_extend, char *err, size_t errlen)
{
	if (gap_open < 0 || gap_open > NW_SCORE_LIMIT) {
		snprintf(err, errlen, "--gap-open must be between 0 and %d (got %d)", NW_SCORE_LIMIT,
			 gap_open);
		return NW_ERR_USAGE;
	}
	if (gap_extend < 1 || gap_extend > NW_SCORE_LIMIT) {
		snprintf(err, errlen, "--gap-extend must be between 1 and %d (got %d)",
			 NW_SCORE_LIMIT, gap_extend);
		return NW_ERR_USAGE;
	}
	return 0;
}

static void finish(nw_scoring_t *sc, int gap_open, int gap_extend)
{
	sc->gap_open = gap_open;
	sc->gap_extend = gap_extend;
	sc->max_score = sc->min_score = sc->score[0][0];
	for (int i = 0; i < sc->n_codes; i++)
		for (int j = 0; j < sc->n_codes; j++) {
			if (sc->score[i][j] > sc->max_score)
				sc->max_score = sc->score[i][j];
			if (sc->score[i][j] < sc->min_score)
				sc->min_score = sc->score[i][j];
		}
}

static void init(nw_scoring_t *sc, nw_alphabet_t a)
{
	memset(sc, 0, sizeof *sc);
	sc->alphabet = a;
	sc->n_codes = a == NW_ALPHA_DNA ? NW_DNA_CODES : NW_PROTEIN_CODES;
}

int nw_scoring_dna(nw_scoring_t *sc, int match, int mismatch, int gap_open, int gap_extend,
		   char *err, size_t errlen)
{
	if (match < 0 || match > NW_SCORE_LIMIT || mismatch < 0 || mismatch > NW_SCORE_LIMIT) {
		snprintf(err, errlen,
			 "--match and --mismatch must be between 0 and %d (got %d and %d; the "
			 "mismatch is a positive penalty)",
			 NW_SCORE_LIMIT, match, mismatch);
		return NW_ERR_USAGE;
	}
	if (check_gaps(gap_open, gap_extend, err, errlen) < 0)
		return NW_ERR_USAGE;
	init(sc, NW_ALPHA_DNA);
	for (int i = 0; i < sc->n_codes; i++)
		for (int j = 0; j < sc->n_codes; j++)
			sc->score[i][j] = (i == j && i < 4) ? match : -mismatch;
	snprintf(sc->name, sizeof sc->name, "match %d mismatch %d", match, mismatch);
	finish(sc, gap_open, gap_extend);
	return 0;
}

nw_alphabet_t nw_matrix_builtin_alphabet(const char *name)
{
	char lower[32];
	size_t n = strlen(name);
	if (n >= sizeof lower)
		return NW_ALPHA_AUTO;
	for (size_t i = 0; i <= n; i++)
		lower[i] = (char)tolower((unsigned char)name[i]);
	const nw_builtin_matrix_t *m = nw_builtin_matrix(lower);
	return m ? m->alphabet : NW_ALPHA_AUTO;
}

/* Splits the next line of text into whitespace-separated tokens (in place). */
static int tokens(char *line, char **tok, int max)
{
	int n = 0;
	for (char *s = strtok(line, " \t\r"); s && n < max; s = strtok(NULL, " \t\r"))
		tok[n++] = s;
	return n;
}

#define MAX_LETTERS 64

int nw_scoring_parse_ncbi(nw_scoring_t *sc, const char *text, nw_alphabet_t alphabet,
			  char *err, size_t errlen)
{
	int ncols = 0, nrows = 0, lineno = 0;
	int32_t val[MAX_LETTERS][MAX_LETTERS];
	int row_of[256], col_of[256];
	char *copy = strdup(text), *save = NULL;
	int ret = NW_ERR_FORMAT;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return NW_ERR_MEMORY;
	}
	for (int c = 0; c < 256; c++)
		row_of[c] = col_of[c] = -1;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok[MAX_LETTERS + 2];
		lineno++;
		int n = tokens(line, tok, MAX_LETTERS + 2);
		if (n == 0 || tok[0][0] == '#')
			continue;
		if (ncols == 0) { /* the header: one letter per column */
			if (n > MAX_LETTERS) {
				snprintf(err, errlen, "line %d: more than %d columns", lineno, MAX_LETTERS);
				goto out;
			}
			for (int k = 0; k < n; k++) {
				int c = toupper((unsigned char)tok[k][0]);
				if (tok[k][1] || col_of[c] >= 0) {
					snprintf(err, errlen, "line %d: column header '%s' is not a new single letter",
						 lineno, tok[k]);
					goto out;
				}
				col_of[c] = k;
			}
			ncols = n;
			continue;
		}
		int c = toupper((unsigned char)tok[0][0]);
		if (tok[0][1] || row_of[c] >= 0 || nrows >= MAX_LETTERS) {
			snprintf(err, errlen, "line %d: row label '%s' is not a new single letter", lineno,
				 tok[0]);
			goto out;
		}
		if (n - 1 != ncols) {
			snprintf(err, errlen, "line %d: row '%c' has %d values for %d columns", lineno, c,
				 n - 1, ncols);
			goto out;
		}
		for (int k = 1; k < n; k++) {
			char *end;
			errno = 0;
			long v = strtol(tok[k], &end, 10);
			if (*end || errno || v < -NW_SCORE_LIMIT || v > NW_SCORE_LIMIT) {
				snprintf(err, errlen,
					 "line %d: '%s' is not an integer between -%d and %d", lineno,
					 tok[k], NW_SCORE_LIMIT, NW_SCORE_LIMIT);
				goto out;
			}
			val[nrows][k - 1] = (int32_t)v;
		}
		row_of[c] = nrows++;
	}
	if (ncols == 0 || nrows == 0) {
		snprintf(err, errlen, "no matrix found (expected NCBI format: a header of letters, then one row per letter)");
		goto out;
	}

	init(sc, alphabet);
	const char *letters = alphabet == NW_ALPHA_DNA ? NW_DNA_ALPHABET : NW_PROTEIN_ALPHABET;
	const char *required = alphabet == NW_ALPHA_DNA ? "ACGT" : "ARNDCQEGHILKMFPSTWYV";
	for (const char *p = required; *p; p++) {
		if (row_of[(unsigned char)*p] < 0 || col_of[(unsigned char)*p] < 0) {
			snprintf(err, errlen, "no row or column for '%c', which %s scoring needs", *p,
				 nw_alphabet_name(alphabet));
			goto out;
		}
	}
	/* Letters missing from the file borrow the row/column of the wildcard. */
	int32_t minv = val[0][0];
	for (int i = 0; i < nrows; i++)
		for (int j = 0; j < ncols; j++)
			if (val[i][j] < minv)
				minv = val[i][j];
	unsigned char wild = alphabet == NW_ALPHA_DNA ? 'N' : 'X';
	for (int a = 0; a < sc->n_codes; a++) {
		int ra = row_of[(unsigned char)letters[a]];
		if (ra < 0)
			ra = row_of[wild];
		for (int b = 0; b < sc->n_codes; b++) {
			int cb = col_of[(unsigned char)letters[b]];
			if (cb < 0)
				cb = col_of[wild];
			sc->score[a][b] = (ra >= 0 && cb >= 0) ? val[ra][cb] : minv;
		}
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

static char *read_small_file(const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	if (!fp) {
		snprintf(err, errlen, "cannot open matrix file '%s': %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(NW_MATRIX_FILE_MAX + 1);
	size_t n = buf ? fread(buf, 1, NW_MATRIX_FILE_MAX + 1, fp) : 0;
	if (!buf || ferror(fp) || n > NW_MATRIX_FILE_MAX || memchr(buf, 0, n)) {
		snprintf(err, errlen, "matrix file '%s' is unreadable, binary or larger than 1 MiB",
			 path);
		free(buf);
		buf = NULL;
	} else {
		buf[n] = 0;
	}
	fclose(fp);
	return buf;
}

int nw_scoring_matrix(nw_scoring_t *sc, const char *name_or_path, nw_alphabet_t alphabet,
		      int gap_open, int gap_extend, char *err, size_t errlen)
{
	char msg[200];
	int ret;
	if (check_gaps(gap_open, gap_extend, err, errlen) < 0)
		return NW_ERR_USAGE;
	nw_alphabet_t builtin = nw_matrix_builtin_alphabet(name_or_path);
	if (builtin != NW_ALPHA_AUTO) {
		char lower[32];
		size_t n = strlen(name_or_path);
		for (size_t i = 0; i <= n; i++)
			lower[i] = (char)tolower((unsigned char)name_or_path[i]);
		if (alphabet != NW_ALPHA_AUTO && alphabet != builtin) {
			snprintf(err, errlen, "matrix %s is for %s sequences, but the alphabet is %s",
				 lower, nw_alphabet_name(builtin), nw_alphabet_name(alphabet));
			return NW_ERR_USAGE;
		}
		ret = nw_scoring_parse_ncbi(sc, nw_builtin_matrix(lower)->text, builtin, msg,
					    sizeof msg);
		if (ret < 0) {
			snprintf(err, errlen, "built-in matrix %s: %s", lower, msg);
			return NW_ERR_INTERNAL;
		}
		snprintf(sc->name, sizeof sc->name, "%s", lower);
		finish(sc, gap_open, gap_extend);
		return 0;
	}
	if (alphabet == NW_ALPHA_AUTO) {
		snprintf(err, errlen, "the alphabet of matrix file '%s' is unknown", name_or_path);
		return NW_ERR_USAGE;
	}
	FILE *probe = fopen(name_or_path, "rb");
	if (!probe) {
		snprintf(err, errlen,
			 "unknown matrix '%s': not one of blosum45, blosum50, blosum62, blosum80, "
			 "pam250, ednafull, and not a readable file",
			 name_or_path);
		return NW_ERR_USAGE;
	}
	fclose(probe);
	char *text = read_small_file(name_or_path, err, errlen);
	if (!text)
		return NW_ERR_IO;
	ret = nw_scoring_parse_ncbi(sc, text, alphabet, msg, sizeof msg);
	free(text);
	if (ret < 0) {
		snprintf(err, errlen, "matrix file '%s': %s", name_or_path, msg);
		return ret;
	}
	const char *base = strrchr(name_or_path, '/');
	snprintf(sc->name, sizeof sc->name, "%s", base ? base + 1 : name_or_path);
	finish(sc, gap_open, gap_extend);
	return 0;
}

int nw_scoring_mm(const nw_scoring_t *sc, int *match, int *mismatch, int *K)
{
	int n = sc->n_codes, k = 0;
	int32_t ma = sc->score[0][0], mi = n > 1 ? sc->score[0][1] : 0;
	while (k < n && sc->score[k][k] == ma)
		k++;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (sc->score[i][j] != (i == j && i < k ? ma : mi))
				return 0;
	if (mi > 0)
		return 0;
	*match = ma, *mismatch = mi, *K = k;
	return 1;
}
