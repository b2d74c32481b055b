/* wgen.c: benchmark inputs, made the same way on every machine (its own generator, not
 * the C library's rand, so a seed means the same sequence everywhere).
 *
 *   wgen random LEN SEED NAME            a random DNA sequence
 *   wgen reads COUNT LEN SEED            COUNT random reads of LEN bases (r0, r1, ...), one
 *                                        line each: a stream of any size (bench/stream.sh)
 *   wgen cut START LEN NAME < in.fa      a slice of the first record (0-based start)
 *   wgen mutate SEED SUB INDEL NAME < in.fa
 *                                        a copy of the first record with substitutions at
 *                                        rate SUB and single-base insertions/deletions at
 *                                        rate INDEL (rates per base, e.g. 0.01)
 *
 * Output is FASTA on stdout, 80 columns.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state;

static uint64_t next(void) /* splitmix64 */
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(void)
{
	return (next() >> 11) * (1.0 / 9007199254740992.0);
}

static char base(void)
{
	return "ACGT"[next() & 3];
}

/* The first FASTA record of stdin, upper case, without line breaks. */
static char *read_first(size_t *len)
{
	size_t cap = 1 << 20, n = 0;
	char *s = malloc(cap);
	int c, records = 0, at_line_start = 1, in_header = 0;
	while (s && (c = getchar()) != EOF) {
		if (at_line_start && c == '>') {
			if (++records > 1)
				break;
			in_header = 1;
		}
		at_line_start = c == '\n';
		if (in_header) {
			in_header = c != '\n';
			continue;
		}
		if (isspace(c))
			continue;
		if (n + 1 >= cap) {
			char *t = realloc(s, cap *= 2);
			if (!t) {
				free(s);
				return NULL;
			}
			s = t;
		}
		s[n++] = (char)toupper(c);
	}
	*len = n;
	return s;
}

static void write_fasta(const char *name, const char *s, size_t n)
{
	printf(">%s\n", name);
	for (size_t i = 0; i < n; i += 80)
		printf("%.*s\n", (int)(n - i < 80 ? n - i : 80), s + i);
}

static int usage(void)
{
	fprintf(stderr, "usage: wgen random LEN SEED NAME | reads COUNT LEN SEED | "
			"cut START LEN NAME < fa | mutate SEED SUB INDEL NAME < fa\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (strcmp(argv[1], "reads") == 0 && argc == 5) {
		unsigned long long count = strtoull(argv[2], NULL, 10);
		size_t n = strtoull(argv[3], NULL, 10);
		state = strtoull(argv[4], NULL, 10);
		char *s = malloc(n + 2);
		if (!s)
			return 1;
		s[n] = '\n';
		s[n + 1] = '\0';
		for (unsigned long long k = 0; k < count; k++) {
			for (size_t i = 0; i < n; i++)
				s[i] = base();
			if (printf(">r%llu\n", k) < 0 || fwrite(s, 1, n + 1, stdout) != n + 1)
				break; /* the reader went away */
		}
		free(s);
		return 0;
	}
	if (strcmp(argv[1], "random") == 0 && argc == 5) {
		size_t n = strtoull(argv[2], NULL, 10);
		state = strtoull(argv[3], NULL, 10);
		char *s = malloc(n + 1);
		if (!s)
			return 1;
		for (size_t i = 0; i < n; i++)
			s[i] = base();
		write_fasta(argv[4], s, n);
		free(s);
		return 0;
	}
	size_t len;
	if (strcmp(argv[1], "cut") == 0 && argc == 5) {
		size_t start = strtoull(argv[2], NULL, 10), n = strtoull(argv[3], NULL, 10);
		char *s = read_first(&len);
		if (!s || start + n > len) {
			fprintf(stderr, "wgen: cut %zu+%zu is outside the sequence (%zu)\n", start, n, len);
			return 1;
		}
		write_fasta(argv[4], s + start, n);
		free(s);
		return 0;
	}
	if (strcmp(argv[1], "mutate") == 0 && argc == 6) {
		state = strtoull(argv[2], NULL, 10);
		double sub = atof(argv[3]), indel = atof(argv[4]);
		char *s = read_first(&len);
		char *out = s ? malloc(2 * len + 1) : NULL;
		size_t k = 0;
		if (!out)
			return 1;
		for (size_t i = 0; i < len; i++) {
			double u = uniform();
			if (u < indel / 2)
				continue; /* deletion */
			if (u < indel)
				out[k++] = base(); /* insertion before this base */
			if (uniform() < sub) { /* one of the three other bases */
				const char *p = strchr("ACGT", s[i]);
				int b = p ? (int)(p - "ACGT") : 0;
				out[k++] = "ACGT"[(b + 1 + (int)(next() % 3)) & 3];
			} else {
				out[k++] = s[i];
			}
		}
		write_fasta(argv[5], out, k);
		free(s);
		free(out);
		return 0;
	}
	return usage();
}
