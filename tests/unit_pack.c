/* unit_pack.c: residue codes, alphabet guess, packed batches and the FASTA/FASTQ reader.
 *
 * The reader tests write small temporary files (plain and gzip) so that they run
 * anywhere; the real data under $top_srcdir/../shared/data is read too when present.
 */
#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <htslib/bgzf.h>
#include <htslib/hts_log.h>
#include <zlib.h>

#include "nwalign.h"
#include "testutil.h"

#define MAX_TMP 64
static char *tmp_files[MAX_TMP];
static int n_tmp;

/* Write len bytes to a new temporary file (gzip-compressed when gz) and return its path. */
static const char *write_tmp(const char *data, size_t len, int gz)
{
	char path[] = "/tmp/nw_unit_pack_XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0 || n_tmp == MAX_TMP) {
		perror("mkstemp");
		exit(1);
	}
	if (gz) {
		gzFile g = gzdopen(fd, "wb");
		if (!g || (len && gzwrite(g, data, (unsigned)len) != (int)len) || gzclose(g) != Z_OK)
			exit(1);
	} else {
		if (write(fd, data, len) != (ssize_t)len)
			exit(1);
		close(fd);
	}
	return tmp_files[n_tmp++] = strdup(path);
}
#define TMP(s) write_tmp(s, sizeof(s) - 1, 0)

/* ---------------------------------------------------------------- codes */

static void test_codes(void)
{
	const char *dna = "ACGTNRYSWKMBDHV", *prot = "ARNDCQEGHILKMFPSTWYVBZX*";
	int i, c, n_dna = 0, n_prot = 0;

	for (i = 0; dna[i]; i++) {
		CHECK_EQ_I64(nw_encode_char(NW_ALPHA_DNA, dna[i]), i, "dna %c", dna[i]);
		CHECK_EQ_I64(nw_encode_char(NW_ALPHA_DNA, dna[i] | 0x20), i, "dna lower %c", dna[i]);
		CHECK(nw_decode_code(NW_ALPHA_DNA, i) == dna[i], "decode dna %d", i);
	}
	for (i = 0; prot[i]; i++) {
		CHECK_EQ_I64(nw_encode_char(NW_ALPHA_PROTEIN, prot[i]), i, "protein %c", prot[i]);
		if (prot[i] != '*')
			CHECK_EQ_I64(nw_encode_char(NW_ALPHA_PROTEIN, prot[i] | 0x20), i, "lower %c",
				     prot[i]);
		CHECK(nw_decode_code(NW_ALPHA_PROTEIN, i) == prot[i], "decode protein %d", i);
	}
	CHECK_EQ_I64(nw_encode_char(NW_ALPHA_DNA, 'U'), 3, "U is T");
	CHECK_EQ_I64(nw_encode_char(NW_ALPHA_DNA, 'u'), 3, "u is T");
	for (i = 0; i < 6; i++)
		CHECK_EQ_I64(nw_encode_char(NW_ALPHA_PROTEIN, "JOUjou"[i]), 22, "%c is X", "JOUjou"[i]);
	/* Everything else is invalid, including the other alphabet's letters. */
	for (c = -5; c < 300; c++) {
		n_dna += nw_encode_char(NW_ALPHA_DNA, c) >= 0;
		n_prot += nw_encode_char(NW_ALPHA_PROTEIN, c) >= 0;
	}
	CHECK_EQ_I64(n_dna, 2 * 16, "15 codes + U, both cases");
	CHECK_EQ_I64(n_prot, 2 * 26 + 1, "23 letters + J O U, both cases, and *");
	CHECK_EQ_I64(nw_encode_char(NW_ALPHA_DNA, 'E'), -1, "E not dna");
	CHECK_EQ_I64(nw_encode_char(NW_ALPHA_DNA, '-'), -1, "gap not dna");
	CHECK_EQ_I64(nw_encode_char(NW_ALPHA_PROTEIN, '1'), -1, "digit");
	CHECK_EQ_I64(nw_encode_char(NW_ALPHA_DNA, 0), -1, "NUL");
	CHECK_EQ_I64(nw_encode_char(NW_ALPHA_AUTO, 'A'), -1, "auto has no codes");
	CHECK(nw_decode_code(NW_ALPHA_DNA, 15) == '?', "out of range dna");
	CHECK(nw_decode_code(NW_ALPHA_PROTEIN, -1) == '?', "out of range protein");
	CHECK(strcmp(nw_alphabet_name(NW_ALPHA_DNA), "dna") == 0, "name dna");
	CHECK(strcmp(nw_alphabet_name(NW_ALPHA_PROTEIN), "protein") == 0, "name protein");
	CHECK(strcmp(nw_alphabet_name(NW_ALPHA_AUTO), "auto") == 0, "name auto");
}

static nw_alphabet_t guess_str(const char *s)
{
	uint64_t counts[256] = { 0 };
	for (; *s; s++)
		counts[(unsigned char)*s]++;
	return nw_alphabet_guess(counts);
}

static void test_guess(void)
{
	CHECK(guess_str("") == NW_ALPHA_DNA, "empty is dna");
	CHECK(guess_str("ACGTACGTNNUU") == NW_ALPHA_DNA, "plain dna");
	CHECK(guess_str("acgtnnRY") == NW_ALPHA_DNA, "6/8 = 75%% common is dna");
	CHECK(guess_str("ACGTRYKMS") == NW_ALPHA_PROTEIN, "4/9 common is protein");
	CHECK(guess_str("ACGTE") == NW_ALPHA_PROTEIN, "E is protein");
	CHECK(guess_str("MKVLAAGIVGLLLA") == NW_ALPHA_PROTEIN, "peptide");
	CHECK(guess_str("ACGT*") == NW_ALPHA_PROTEIN, "stop is protein");
	CHECK(guess_str("ACGT \t\r\n") == NW_ALPHA_DNA, "whitespace ignored");
}

/* ---------------------------------------------------------------- packing */

static void random_seq(uint64_t *rng, uint8_t *codes, uint32_t len, int kind)
{
	uint32_t k;
	for (k = 0; k < len; k++)
		codes[k] = kind == 0 ? tu_rand(rng) % 4
			 : kind == 1 ? tu_rand(rng) % NW_DNA_CODES
				     : tu_rand(rng) % NW_PROTEIN_CODES;
	if (kind == 1 && len > 0)
		codes[tu_rand(rng) % len] = 4 + tu_rand(rng) % 11; /* at least one N/IUPAC */
}

static void test_pack(void)
{
	static const unsigned want_bits[3] = { 2, 4, 5 }, per_of[3] = { 16, 8, 6 };
	enum { NSEQ = 130 };
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	static uint8_t seqs[NSEQ][5000], out[5000];
	uint32_t lens[NSEQ];
	nw_batch_t b;
	int kind, i;

	for (kind = 0; kind < 3; kind++) {
		uint64_t words = 0, total = 0;
		uint32_t maxlen = 0;
		nw_batch_init(&b, kind < 2 ? NW_ALPHA_DNA : NW_ALPHA_PROTEIN);
		for (i = 0; i < NSEQ; i++) {
			char name[32], qual[5001];
			lens[i] = i < 100 ? (uint32_t)i + 1 : 1000 + (uint32_t)(tu_rand(&rng) % 4000);
			random_seq(&rng, seqs[i], lens[i], kind);
			snprintf(name, sizeof(name), "seq%d_%d", kind, i);
			memset(qual, 'I', lens[i]);
			qual[lens[i]] = '\0';
			/* The first qualities arrive at sequence 10: earlier ones read back "". */
			CHECK(nw_batch_push(&b, name, seqs[i], lens[i], i >= 10 && i % 3 ? qual : NULL) == 0,
			      "push");
			if (i == 9)
				CHECK(b.qual_off == NULL && nw_batch_qual(&b, 0) == NULL, "no quals yet");
			total += lens[i];
			maxlen = lens[i] > maxlen ? lens[i] : maxlen;
		}
		CHECK_EQ_I64(b.n, NSEQ, "kind %d", kind);
		CHECK_EQ_I64(b.total_residues, total, "kind %d", kind);
		CHECK_EQ_I64(b.max_len, maxlen, "kind %d", kind);
		for (i = 0; i < NSEQ; i++) {
			unsigned per = per_of[kind], bits = want_bits[kind];
			uint64_t nw = (lens[i] + per - 1) / per, k;
			int bad_code = 0, bad_unpack = 0;
			uint32_t last, used;
			char name[32];

			CHECK_EQ_I64(b.bits[i], bits, "kind %d seq %d", kind, i);
			CHECK_EQ_I64(b.offset[i], words, "word aligned, kind %d seq %d", kind, i);
			CHECK_EQ_I64(b.len[i], lens[i], "kind %d seq %d", kind, i);
			words += nw;
			memset(out, 0xff, sizeof(out));
			nw_batch_unpack(&b, i, out);
			for (k = 0; k < lens[i]; k++) {
				bad_code += nw_batch_code(&b, i, k) != seqs[i][k];
				bad_unpack += out[k] != seqs[i][k];
			}
			CHECK(bad_code == 0 && bad_unpack == 0, "round trip kind %d seq %d: %d %d",
			      kind, i, bad_code, bad_unpack);
			CHECK(out[lens[i]] == 0xff, "unpack writes len bytes only");
			/* Unused high bits of the last word (and the top 2 bits of 5-bit words) are 0. */
			last = b.words[b.offset[i] + nw - 1];
			used = (lens[i] - (nw - 1) * per) * bits;
			CHECK(used >= 32 || (last >> used) == 0, "padding zero kind %d seq %d", kind, i);
			snprintf(name, sizeof(name), "seq%d_%d", kind, i);
			CHECK(strcmp(nw_batch_name(&b, i), name) == 0, "name %d", i);
			if (i < 10 || i % 3 == 0)
				CHECK(strcmp(nw_batch_qual(&b, i), "") == 0, "empty qual %d", i);
			else
				CHECK(strlen(nw_batch_qual(&b, i)) == lens[i], "qual %d", i);
		}
		CHECK_EQ_I64(b.n_words, words, "kind %d", kind);
		nw_batch_clear(&b);
		CHECK(b.n == 0 && b.n_words == 0 && b.total_residues == 0 && b.max_len == 0 &&
		      b.qual_off == NULL, "clear");
		CHECK(nw_batch_push(&b, "again", seqs[0], lens[0], NULL) == 0 && b.offset[0] == 0 &&
		      nw_batch_code(&b, 0, 0) == seqs[0][0], "push after clear");
		nw_batch_free(&b);
	}
	/* A pure-ACGT DNA sequence is 2-bit even when its neighbours are not; an empty
	 * sequence takes no words; codes outside the alphabet are refused. */
	nw_batch_init(&b, NW_ALPHA_DNA);
	seqs[0][0] = 4, seqs[1][0] = 3;
	CHECK(nw_batch_push(&b, "n", seqs[0], 1, NULL) == 0 && b.bits[0] == 4, "N is 4-bit");
	CHECK(nw_batch_push(&b, "t", seqs[1], 1, NULL) == 0 && b.bits[1] == 2, "T is 2-bit");
	CHECK(nw_batch_push(&b, "e", seqs[1], 0, NULL) == 0 && b.len[2] == 0 && b.n_words == 2,
	      "empty");
	seqs[0][0] = NW_DNA_CODES;
	CHECK(nw_batch_push(&b, "bad", seqs[0], 1, NULL) < 0 && b.n == 3, "code 15 refused");
	nw_batch_free(&b);
}

/* Two batches hold the same records: words, per-record arrays, names and qualities. */
static void same_batch(const nw_batch_t *a, const nw_batch_t *b, const char *what)
{
	int64_t i;
	int bad = 0;

	CHECK_EQ_I64(b->n, a->n, "%s: records", what);
	CHECK_EQ_I64(b->n_words, a->n_words, "%s: words", what);
	CHECK_EQ_I64(b->total_residues, a->total_residues, "%s: residues", what);
	CHECK_EQ_I64(b->max_len, a->max_len, "%s: longest", what);
	CHECK_EQ_I64(b->first_record, a->first_record, "%s: first record", what);
	CHECK((a->qual_off == NULL) == (b->qual_off == NULL), "%s: qualities", what);
	if (a->n != b->n || a->n_words != b->n_words)
		return;
	CHECK(a->n_words == 0 || memcmp(a->words, b->words, 4 * a->n_words) == 0, "%s: word contents", what);
	for (i = 0; i < a->n; i++) {
		bad += a->offset[i] != b->offset[i] || a->len[i] != b->len[i] || a->bits[i] != b->bits[i];
		bad += strcmp(nw_batch_name(a, i), nw_batch_name(b, i)) != 0;
		if (a->qual_off && b->qual_off)
			bad += strcmp(nw_batch_qual(a, i), nw_batch_qual(b, i)) != 0;
	}
	CHECK(bad == 0, "%s: %d record fields differ", what, bad);
}

/* nw_batch_push_all on 1..8 threads equals the same records pushed one by one: every
 * kind of sequence (2-bit codes, IUPAC DNA, protein, 2-bit text, empty), without
 * qualities (FASTA: the arrays and names laid out on the threads) and with qualities from
 * the middle on (added one by one); codes outside the alphabet are refused, at every place
 * of an 8-code step and of the tail (codes_below). */
static void test_push_all(void)
{
	enum { NSEQ = 300 };
	static uint8_t seqs[NSEQ][700], text[NSEQ][700 / 4 + 2];
	static char names[NSEQ][16], quals[NSEQ][701];
	static nw_seq_in_t in[NSEQ];
	uint64_t rng = 0x51ed270b27a3c4f1ULL;
	int kind, i, threads;

	for (int fastq = 0; fastq < 2; fastq++)
	for (kind = 0; kind < 3; kind++) {
		nw_alphabet_t alpha = kind == 2 ? NW_ALPHA_PROTEIN : NW_ALPHA_DNA;
		nw_batch_t one, all;
		nw_batch_init(&one, alpha);
		for (i = 0; i < NSEQ; i++) {
			uint32_t len = i % 37 == 5 ? 0 : (uint32_t)(tu_rand(&rng) % 700);
			int k2 = kind == 1 && i % 2 ? 0 : kind; /* IUPAC sets mix in 2-bit ones */
			random_seq(&rng, seqs[i], len, k2);
			snprintf(names[i], sizeof names[i], "r%d_%d", kind, i);
			memset(quals[i], 'A' + i % 20, len);
			quals[i][len] = '\0';
			in[i] = (nw_seq_in_t){names[i], seqs[i], len, 0,
					      fastq && i >= NSEQ / 2 ? quals[i] : NULL};
			if (kind == 0 && i % 3 == 0) { /* 2-bit text */
				char acgt[701];
				for (uint32_t k = 0; k < len; k++)
					acgt[k] = "ACGT"[seqs[i][k]];
				CHECK(nw_pack2_text(text[i], 0, acgt, len) == 0, "2-bit text");
				in[i].codes = text[i];
				in[i].pack2 = 1;
				CHECK(nw_batch_push_pack2(&one, names[i], text[i], len, in[i].qual) == 0, "push_pack2");
			} else {
				CHECK(nw_batch_push(&one, names[i], seqs[i], len, in[i].qual) == 0, "push");
			}
		}
		for (threads = 1; threads <= 8; threads++) {
			char what[64];
			nw_batch_init(&all, alpha);
			CHECK(nw_batch_push(&all, "first", seqs[1], 3, NULL) == 0, "a record before");
			CHECK(nw_batch_push_all(&all, in, NSEQ, threads) == 0, "push_all kind %d", kind);
			nw_batch_t tail;
			uint64_t *offs = malloc(NSEQ * sizeof *offs);
			nw_batch_view(&all, 1, all.n, offs, &tail);
			snprintf(what, sizeof what, "push_all kind %d, %d threads%s", kind, threads,
				 fastq ? ", qualities" : "");
			tail.first_record = one.first_record;
			same_batch(&one, &tail, what);
			free(offs);
			nw_batch_free(&all);
		}
		/* one bad code anywhere (in a step of eight or in the tail) fails the whole call */
		uint32_t lim = kind == 2 ? NW_PROTEIN_CODES : NW_DNA_CODES;
		for (uint32_t at = 0; at < 19; at++) {
			for (uint32_t k = 0; k < 19; k++)
				seqs[0][k] = (uint8_t)(lim - 1);
			seqs[0][at] = (uint8_t)(at % 2 ? lim : 200);
			nw_seq_in_t x = {"bad", seqs[0], 19, 0, NULL};
			nw_batch_init(&all, alpha);
			CHECK(nw_batch_push_all(&all, &x, 1, 2) == NW_ERR_INTERNAL, "kind %d: code %u at %u refused", kind,
			      seqs[0][at], at);
			CHECK(nw_batch_push(&all, "bad", seqs[0], 19, NULL) < 0, "kind %d: push refuses it too", kind);
			seqs[0][at] = (uint8_t)(lim - 1);
			CHECK(nw_batch_push_all(&all, &x, 1, 2) == 0, "kind %d: codes below %u taken", kind, lim);
			nw_batch_free(&all);
		}
		nw_batch_free(&one);
	}
}

/* 2-bit text: every byte value at every place of a 16-character step, of the 32- and
 * 64-character steps of the instruction set in use (NWALIGN_CPU_ISA), and of the tail,
 * behind 0..3 residues already in the first byte, the bytes past the packed ones left as
 * they were; and a batch pushed from it equals one pushed from its codes. */
static void test_pack2(void)
{
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	static char text[256];
	static uint8_t dst[80], codes[128];
	int c, bad = 0;

	for (c = 0; c < 256; c++) {
		int code = nw_encode_char(NW_ALPHA_DNA, c);
		int ok = code >= 0 && code < 4 && c != 'U' && c != 'u';
		for (unsigned pos = 0; pos < 4; pos++)
			for (unsigned n = 1; n <= 200; n += n < 40 ? 1 : 7) {
				unsigned at = (unsigned)(tu_rand(&rng) % n), k;
				for (k = 0; k < n; k++)
					text[k] = "ACGTacgt"[tu_rand(&rng) % 8];
				text[at] = (char)c;
				memset(dst, 0xA5, sizeof(dst));
				for (k = 0; k < pos; k++) /* residues before pos: C, then G, ... */
					dst[0] = (uint8_t)((dst[0] & ~(3u << 2 * k)) | (k + 1) << 2 * k);
				if (nw_pack2_text(dst, pos, text, n) != (ok ? 0 : -1)) {
					bad++;
					continue;
				}
				if (!ok)
					continue;
				for (k = 0; k < pos; k++)
					bad += nw_pack2_code(dst, k) != k + 1;
				for (k = 0; k < n; k++)
					bad += nw_pack2_code(dst, pos + k) !=
					       (unsigned)nw_encode_char(NW_ALPHA_DNA, text[k]);
				/* the unused bits of the last byte are 0, and no byte past it is written */
				bad += (pos + n) % 4 && dst[(pos + n) / 4] >> 2 * ((pos + n) % 4) != 0;
				for (k = (pos + n + 3) / 4; k < sizeof(dst); k++)
					bad += dst[k] != 0xA5;
			}
		CHECK(bad == 0, "byte 0x%02X: %d wrong", c, bad);
	}

	nw_batch_t a, b;
	nw_batch_init(&a, NW_ALPHA_DNA);
	nw_batch_init(&b, NW_ALPHA_DNA);
	for (uint32_t len = 0; len <= 100; len++) {
		static uint8_t packed[32];
		uint32_t k;
		for (k = 0; k < len; k++)
			codes[k] = (uint8_t)(tu_rand(&rng) % 4);
		memset(packed, 0, sizeof(packed));
		for (k = 0; k < len; k++)
			packed[k / 4] |= (uint8_t)(codes[k] << 2 * (k % 4));
		CHECK(nw_batch_push(&a, "s", codes, len, len % 2 ? "q" : NULL) == 0 &&
		      nw_batch_push_pack2(&b, "s", packed, len, len % 2 ? "q" : NULL) == 0,
		      "push %u", len);
	}
	CHECK(a.n == b.n && a.n_words == b.n_words && a.total_residues == b.total_residues &&
	      a.max_len == b.max_len, "same batch");
	CHECK(memcmp(a.words, b.words, a.n_words * 4) == 0 &&
	      memcmp(a.offset, b.offset, a.n * sizeof(*a.offset)) == 0 &&
	      memcmp(a.bits, b.bits, a.n) == 0 && memcmp(a.len, b.len, a.n * 4) == 0 &&
	      strcmp(nw_batch_qual(&b, 1), "q") == 0 && strcmp(nw_batch_qual(&b, 2), "") == 0,
	      "same words, offsets, bits, lengths and qualities");
	nw_batch_free(&a);
	nw_batch_free(&b);
}

/* ---------------------------------------------------------------- reader */

static char err[1024];

/* Read a whole file in batches of max_records; returns records or the negative code. */
static int64_t read_all(const char *path, nw_alphabet_t a, int64_t max_records,
			uint64_t *residues)
{
	nw_reader_t *r = nw_reader_open(path, err, sizeof(err));
	nw_batch_t b;
	int64_t n, total = 0;

	*residues = 0;
	if (!r)
		return NW_ERR_IO;
	nw_batch_init(&b, a);
	while ((n = nw_reader_fill(r, max_records, 0, err, sizeof(err))) > 0) {
		if ((n = nw_reader_encode(r, a, &b, err, sizeof(err))) < 0)
			break;
		CHECK_EQ_I64(b.first_record, total, "%s", path);
		total += b.n;
		*residues += b.total_residues;
	}
	nw_batch_free(&b);
	nw_reader_close(r);
	return n < 0 ? n : total;
}

/* The file must fail with this message fragment; the message is one bare line. */
static void expect_error(const char *path, nw_alphabet_t a, const char *fragment)
{
	uint64_t res;
	int64_t n;

	err[0] = '\0';
	n = read_all(path, a, 2, &res);
	CHECK(n < 0, "%s should fail (%s)", path, fragment);
	CHECK(strstr(err, fragment) != NULL, "message '%s' lacks '%s'", err, fragment);
	CHECK(strchr(err, '\n') == NULL && strncmp(err, "error", 5) != 0, "bare line: '%s'", err);
}

static void test_reader_formats(void)
{
	nw_batch_t b;
	nw_reader_t *r;
	uint8_t codes[64];
	uint64_t counts[256] = { 0 };
	const char *fa = TMP(">s1 first record\nACGTacgu\n\n>s2\tdesc\nAC GT\r\nNNRY\r\n\n\n>s3\nG\n");

	nw_batch_init(&b, NW_ALPHA_DNA);
	r = nw_reader_open(fa, err, sizeof(err));
	CHECK(r != NULL, "open: %s", err);
	CHECK(strcmp(nw_reader_path(r), fa) == 0, "path");
	/* 3 records with max_records 2: 2, then 1, then 0 (end of input). */
	CHECK_EQ_I64(nw_reader_fill(r, 2, 0, err, sizeof(err)), 2, "%s", err);
	nw_reader_count_chars(r, counts);
	CHECK(counts['A'] == 3 && counts['U'] == 1 && counts['a'] == 0 && counts[' '] == 0,
	      "counts");
	CHECK(nw_reader_encode(r, NW_ALPHA_DNA, &b, err, sizeof(err)) == 0, "%s", err);
	CHECK(b.n == 2 && b.first_record == 0 && nw_reader_records_read(r) == 2, "batch 1");
	CHECK(strcmp(nw_batch_name(&b, 0), "s1") == 0 && strcmp(nw_batch_name(&b, 1), "s2") == 0,
	      "names");
	CHECK(b.len[0] == 8 && b.len[1] == 8 && b.bits[0] == 2 && b.bits[1] == 4, "lengths");
	nw_batch_unpack(&b, 1, codes);
	CHECK(memcmp(codes, "\0\1\2\3\4\4\5\6", 8) == 0, "codes of s2");
	nw_batch_unpack(&b, 0, codes);
	CHECK(memcmp(codes, "\0\1\2\3\0\1\2\3", 8) == 0, "lower case and U");
	CHECK(nw_batch_qual(&b, 0) == NULL, "FASTA has no qualities");
	CHECK_EQ_I64(nw_reader_fill(r, 2, 0, err, sizeof(err)), 1, "%s", err);
	CHECK(nw_reader_encode(r, NW_ALPHA_DNA, &b, err, sizeof(err)) == 0, "%s", err);
	CHECK(b.n == 1 && b.first_record == 2 && strcmp(nw_batch_name(&b, 0), "s3") == 0, "b2");
	CHECK_EQ_I64(nw_reader_fill(r, 2, 0, err, sizeof(err)), 0, "end");
	CHECK_EQ_I64(nw_reader_fill(r, 2, 0, err, sizeof(err)), 0, "still the end");
	nw_reader_close(r);

	/* The residue limit: stop once the pending residues reach it, at least one record. */
	r = nw_reader_open(fa, err, sizeof(err));
	CHECK_EQ_I64(nw_reader_fill(r, 0, 1, err, sizeof(err)), 1, "one record");
	CHECK_EQ_I64(nw_reader_fill(r, 0, 9, err, sizeof(err)), 2, "pending grows");
	CHECK(nw_reader_encode(r, NW_ALPHA_AUTO, &b, err, sizeof(err)) == 0 &&
	      b.alphabet == NW_ALPHA_DNA && b.n == 2, "auto encode");
	CHECK_EQ_I64(nw_reader_fill(r, 0, 100, err, sizeof(err)), 1, "rest");
	nw_reader_close(r);

	/* FASTQ, 4-line and multi-line, and a gzip copy. */
	static const char fq[] = "@r1 x\nACGTN\n+\n!!#I~\n@r2\nAC\nGT\n+r2\n@@\n@@\n\n@r3\nT\n+\n@\n";
	const char *paths[2] = { TMP(fq), write_tmp(fq, sizeof(fq) - 1, 1) };
	for (int k = 0; k < 2; k++) {
		r = nw_reader_open(paths[k], err, sizeof(err));
		CHECK_EQ_I64(nw_reader_fill(r, 10, 0, err, sizeof(err)), 3, "fastq %d: %s", k, err);
		CHECK(nw_reader_encode(r, NW_ALPHA_DNA, &b, err, sizeof(err)) == 0, "%s", err);
		CHECK(b.n == 3 && strcmp(nw_batch_name(&b, 0), "r1") == 0 && b.len[1] == 4 &&
		      b.bits[0] == 4 && b.bits[1] == 2, "fastq batch %d", k);
		CHECK(strcmp(nw_batch_qual(&b, 0), "!!#I~") == 0 &&
		      strcmp(nw_batch_qual(&b, 1), "@@@@") == 0 &&
		      strcmp(nw_batch_qual(&b, 2), "@") == 0, "qualities %d", k);
		nw_reader_close(r);
	}

	/* BGZF (as bgzip writes it) and two concatenated gzip members (cat a.gz b.gz). */
	{
		const char *bp = TMP(""), *g1 = write_tmp(fq, 28, 1), *g2;
		BGZF *w = bgzf_open(bp, "w");
		uint64_t res;
		FILE *f;
		char two[4096];
		size_t l1, l2;

		CHECK(w && bgzf_write(w, fq, sizeof(fq) - 1) == (ssize_t)sizeof(fq) - 1 &&
		      bgzf_close(w) == 0, "write bgzf");
		CHECK_EQ_I64(read_all(bp, NW_ALPHA_DNA, 2, &res), 3, "bgzf: %s", err);
		CHECK_EQ_I64(res, 10, "bgzf residues");
		f = fopen(g1, "rb");
		l1 = fread(two, 1, sizeof(two), f);
		fclose(f);
		/* The split falls inside record r2: members join into one stream. */
		g2 = write_tmp(fq + 28, sizeof(fq) - 1 - 28, 1);
		f = fopen(g2, "rb");
		l2 = fread(two + l1, 1, sizeof(two) - l1, f);
		fclose(f);
		CHECK_EQ_I64(read_all(write_tmp(two, l1 + l2, 0), NW_ALPHA_DNA, 2, &res), 3,
			     "two members: %s", err);
		CHECK_EQ_I64(res, 10, "two members residues");
	}

	/* An error is sticky: later calls return it again. */
	r = nw_reader_open(TMP(">a\nAC\n>b\n>c\nA\n"), err, sizeof(err));
	CHECK(nw_reader_fill(r, 10, 0, err, sizeof(err)) == NW_ERR_FORMAT, "empty b");
	err[0] = '\0';
	CHECK(nw_reader_fill(r, 10, 0, err, sizeof(err)) == NW_ERR_FORMAT &&
	      strstr(err, "'b' (#2) has an empty sequence"), "sticky: %s", err);
	CHECK(nw_reader_encode(r, NW_ALPHA_DNA, &b, err, sizeof(err)) == NW_ERR_FORMAT, "sticky");
	nw_reader_close(r);

	/* stdin as "-". */
	int saved = dup(0), fd = open(fa, O_RDONLY);
	dup2(fd, 0);
	close(fd);
	uint64_t res;
	CHECK_EQ_I64(read_all("-", NW_ALPHA_DNA, 100, &res), 3, "stdin: %s", err);
	CHECK_EQ_I64(res, 17, "stdin residues");
	dup2(saved, 0);
	close(saved);

	/* Protein, with J O U as X. */
	r = nw_reader_open(TMP(">p1\nMKVjou*\n"), err, sizeof(err));
	CHECK(nw_reader_fill(r, 10, 0, err, sizeof(err)) == 1, "%s", err);
	CHECK(nw_reader_encode(r, NW_ALPHA_PROTEIN, &b, err, sizeof(err)) == 0 && b.bits[0] == 5,
	      "protein");
	nw_batch_unpack(&b, 0, codes);
	CHECK(memcmp(codes, "\x0c\x0b\x13\x16\x16\x16\x17", 7) == 0, "protein codes");
	nw_reader_close(r);
	nw_batch_free(&b);
}

/* Records whose lines cross the reader's blocks and buffer refills: many short records,
 * multi-line ones (widths that are not multiples of 4), lower case, CRLF, a character
 * other than A/C/G/T in a later line (the record leaves 2-bit text), one line longer than
 * the read buffer; plain and gzip, DNA and protein, in batches of 7 records, checked
 * residue by residue. */
/* A line end (LF or CRLF) on each byte around the ends of the first blocks the reader
 * decodes (64 KiB each for a plain file) and of its first buffer (128 KiB): the record
 * before it and the one after keep their lengths, names and residues. */
static void test_reader_line_ends(void)
{
	static const size_t ends[] = { (size_t)64 << 10, (size_t)128 << 10, (size_t)192 << 10 };
	size_t cap = ((size_t)192 << 10) + 64;
	char *file = malloc(cap);
	uint8_t *codes = malloc(cap);
	const char *path = NULL; /* one temporary file, rewritten for each case */
	int bad = 0;

	for (int e = 0; e < 3; e++)
		for (int crlf = 0; crlf < 2; crlf++)
			for (int d = -4; d <= 4; d++) {
				/* ">a\n", then L residues and the line end, whose last byte is at
				 * offset ends[e] + d - 1 */
				size_t L = ends[e] + (size_t)d - 3 - (size_t)(crlf + 1), len = 0, k;
				len += (size_t)snprintf(file, cap, ">a\n");
				for (k = 0; k < L; k++)
					file[len++] = "ACGT"[(k * 7 + (size_t)d) % 4];
				len += (size_t)snprintf(file + len, cap - len, "%s>b\nACGTN%s", crlf ? "\r\n" : "\n",
							crlf ? "\r\n" : "\n");
				if (!path) {
					path = write_tmp(file, len, 0);
				} else {
					FILE *f = fopen(path, "wb");
					if (!f || fwrite(file, 1, len, f) != len || fclose(f) != 0)
						exit(1);
				}
				nw_reader_t *r = nw_reader_open(path, err, sizeof(err));
				nw_batch_t b;
				nw_batch_init(&b, NW_ALPHA_DNA);
				int64_t n = r ? nw_reader_fill(r, 10, 0, err, sizeof(err)) : -1;
				if (n != 2 || nw_reader_encode(r, NW_ALPHA_DNA, &b, err, sizeof(err)) != 0 || b.n != 2 ||
				    b.len[0] != L || b.len[1] != 5 || strcmp(nw_batch_name(&b, 1), "b") != 0) {
					bad++;
				} else {
					nw_batch_unpack(&b, 0, codes);
					for (k = 0; k < L; k++)
						bad += codes[k] != (k * 7 + (size_t)d) % 4;
				}
				nw_batch_free(&b);
				nw_reader_close(r);
			}
	CHECK(bad == 0, "line ends at block and buffer edges: %d files read wrong", bad);
	free(file);
	free(codes);
}

static void test_reader_blocks(void)
{
	enum { NREC = 3000, LONG = 1500 };
	static const int widths[] = { 0, 1, 3, 7, 60, 61 };
	uint64_t rng = 0x5851f42d4c957f2dULL, want_counts[256] = { 0 };
	size_t cap = 1 << 22, len = 0, seq_cap = 1 << 21, seq_len = 0;
	char *file = malloc(cap), *seqs = malloc(seq_cap);
	uint64_t *seq_off = malloc((NREC + 1) * sizeof(*seq_off));
	uint8_t *codes = malloc(1 << 20);
	int i;

	for (i = 0; i < NREC; i++) {
		uint32_t n = i == LONG ? 600000 : 1 + (uint32_t)(tu_rand(&rng) % 700), k;
		int width = widths[tu_rand(&rng) % 6];
		const char *eol = tu_rand(&rng) % 4 ? "\n" : "\r\n";
		char *q = seqs + seq_len;
		seq_off[i] = seq_len;
		for (k = 0; k < n; k++)
			q[k] = "ACGTacgt"[tu_rand(&rng) % 8];
		if (tu_rand(&rng) % 10 == 0)
			q[n - 1 - tu_rand(&rng) % (n < 100 ? n : 100)] = "NnUuRy"[tu_rand(&rng) % 6];
		for (k = 0; k < n; k++)
			want_counts[toupper((unsigned char)q[k])]++;
		seq_len += n;
		len += (size_t)snprintf(file + len, cap - len, ">r%d desc\n", i);
		for (k = 0; k < n; k += width ? width : n) {
			uint32_t m = width && n - k > (uint32_t)width ? (uint32_t)width : n - k;
			memcpy(file + len, q + k, m);
			len += m;
			len += (size_t)snprintf(file + len, cap - len, "%s", eol);
		}
	}
	seq_off[NREC] = seq_len;
	CHECK(len < cap && seq_len < seq_cap, "test data fits");

	for (int v = 0; v < 3; v++) {
		nw_alphabet_t a = v < 2 ? NW_ALPHA_DNA : NW_ALPHA_PROTEIN;
		const char *path = write_tmp(file, len, v == 1);
		nw_reader_t *r = nw_reader_open(path, err, sizeof(err));
		uint64_t counts[256] = { 0 };
		int64_t n, total = 0;
		int bad = 0;
		nw_batch_t b;

		nw_batch_init(&b, a);
		while ((n = nw_reader_fill(r, 7, 0, err, sizeof(err))) > 0) {
			nw_reader_count_chars(r, counts);
			CHECK(nw_reader_encode(r, a, &b, err, sizeof(err)) == 0, "%s", err);
			for (int64_t j = 0; j < b.n; j++, total++) {
				const char *q = seqs + seq_off[total];
				uint32_t k, m = (uint32_t)(seq_off[total + 1] - seq_off[total]);
				int all4 = 1;
				char name[32];
				snprintf(name, sizeof(name), "r%d", (int)total);
				bad += strcmp(nw_batch_name(&b, j), name) != 0 || b.len[j] != m;
				if (b.len[j] != m)
					continue;
				nw_batch_unpack(&b, j, codes);
				for (k = 0; k < m; k++) {
					bad += codes[k] != nw_encode_char(a, (unsigned char)q[k]);
					all4 &= codes[k] < 4;
				}
				bad += b.bits[j] != (a == NW_ALPHA_PROTEIN ? 5 : all4 ? 2 : 4);
			}
		}
		CHECK(n == 0, "variant %d: %s", v, err);
		CHECK_EQ_I64(total, NREC, "variant %d", v);
		CHECK(bad == 0, "variant %d: %d records differ", v, bad);
		CHECK(memcmp(counts, want_counts, sizeof(counts)) == 0, "variant %d: counts", v);
		nw_batch_free(&b);
		nw_reader_close(r);
	}
	free(file);
	free(seqs);
	free(seq_off);
	free(codes);
}

static void test_reader_errors(void)
{
	static const char nul_seq[] = ">a\nAC\0GT\n";
	static const char bad_hdr[] = ">a\x01\nACGT\n";
	static const char high[] = ">x\nACGT\xc3\n";
	const char *p;

	CHECK(nw_reader_open("/nonexistent/file.fa", err, sizeof(err)) == NULL &&
	      strcmp(err, "cannot open '/nonexistent/file.fa': No such file or directory") == 0,
	      "%s", err);
	CHECK(nw_reader_open("/tmp", err, sizeof(err)) == NULL &&
	      strstr(err, "cannot open '/tmp': ") == err, "directory: %s", err);
	p = TMP("");
	expect_error(p, NW_ALPHA_DNA, "no sequences (empty input)");
	CHECK(strstr(err, p) == err + 1 && err[0] == '\'', "names the file: %s", err);
	expect_error(TMP("\n  \n\r\n"), NW_ALPHA_DNA, "no sequences (empty input)");
	expect_error(write_tmp("", 0, 1), NW_ALPHA_DNA, "no sequences (empty input)");
	expect_error(TMP("\nACGT\n"), NW_ALPHA_DNA, "not FASTA or FASTQ (line 2 starts with 'A')");
	expect_error(write_tmp("\x7f" "ELF\x02\x01\0\0", 8, 0), NW_ALPHA_DNA,
		     "not FASTA or FASTQ (line 1 starts with '\\x7F')");
	expect_error(write_tmp(nul_seq, sizeof(nul_seq) - 1, 0), NW_ALPHA_DNA,
		     "record 'a' (#1): binary data (byte \\x00) at line 2");
	expect_error(write_tmp(bad_hdr, sizeof(bad_hdr) - 1, 0), NW_ALPHA_DNA,
		     "record #1: binary data (byte \\x01) in the header");
	expect_error(TMP(">\nACGT\n"), NW_ALPHA_DNA, "record #1 (line 1) has no name");
	expect_error(TMP(">a\nACGT\n>b\n\n>c\nA\n"), NW_ALPHA_DNA,
		     "record 'b' (#2) has an empty sequence");
	expect_error(TMP(">a\nAC\n>b\nACGTACGTACGEACGT\n"), NW_ALPHA_DNA,
		     "'b' (#2): invalid character 'E' at position 12 for the dna alphabet");
	expect_error(write_tmp(high, sizeof(high) - 1, 0), NW_ALPHA_DNA,
		     "invalid character '\\xC3' at position 5 for the dna alphabet");
	expect_error(TMP(">a\nMKB1\n"), NW_ALPHA_PROTEIN,
		     "invalid character '1' at position 4 for the protein alphabet");
	/* FASTQ */
	expect_error(TMP("@r1\nACGT\n+\nIIII\n@r2\nACGT\n"), NW_ALPHA_DNA,
		     "record 'r2' (#2): truncated FASTQ (end of input before the '+' line)");
	expect_error(TMP("@r1\nACGT\n@r2\nACGT\n+\nIIII\n"), NW_ALPHA_DNA,
		     "record 'r1' (#1): truncated FASTQ (missing '+' line before line 3)");
	expect_error(TMP("@r1\nACGT\n+\n"), NW_ALPHA_DNA,
		     "record 'r1' (#1): truncated FASTQ (end of input before the quality line)");
	expect_error(TMP("@r1\nACGT\n+\nIII\n"), NW_ALPHA_DNA,
		     "record 'r1' (#1): truncated FASTQ: quality length 3 differs from sequence "
		     "length 4");
	expect_error(TMP("@r1\nACGT\n+\nIIIII\n"), NW_ALPHA_DNA,
		     "record 'r1' (#1): quality length 5 differs from sequence length 4");
	expect_error(TMP("@r1\nAC\nGT\n+\nII\n"), NW_ALPHA_DNA,
		     "truncated FASTQ: quality length 2 differs from sequence length 4");
	expect_error(TMP("@r1\nACGT\n+\nIIII\nIIII\n"), NW_ALPHA_DNA,
		     "record #2: expected a '>' or '@' header at line 5, found 'I'");
	expect_error(TMP("@r1\n\n+\n\n"), NW_ALPHA_DNA, "record 'r1' (#1) has an empty sequence");
	expect_error(TMP("@r1\nACGT\n+\nII I\n"), NW_ALPHA_DNA, "quality length 3");
	/* Quality bytes above '~': an error naming the byte, found in the 8-byte steps and in
	 * the tail; a control byte on the same line is binary data, wherever it is. */
	expect_error(TMP("@r1\nACGTACGTACGTA\n+\nIIIIIIIIII\xc8II\n"), NW_ALPHA_DNA,
		     "record 'r1' (#1): invalid quality character '\\xC8' at line 4");
	expect_error(TMP("@r1\nACGTACGTACGTA\n+\nIIIIIIIIIII\x7fI\n"), NW_ALPHA_DNA,
		     "record 'r1' (#1): binary data (byte \\x7F) in the quality at line 4");
	expect_error(TMP("@r1\nACGTA\n+\nI\xc8I\x01I\n"), NW_ALPHA_DNA,
		     "binary data (byte \\x01) in the quality at line 4");
	/* A gzip file cut short is a read error, not a short file. */
	{
		static char big[200000];
		size_t i, len;
		uint64_t res;
		const char *gz;
		FILE *f;
		char *data;

		for (i = 0; i + 8 < sizeof(big); i += 8)
			memcpy(big + i, i % 80 ? "ACGTTGCA" : ">r\nACGT", 7), big[i + 7] = '\n';
		gz = write_tmp(big, i, 1);
		CHECK(read_all(gz, NW_ALPHA_DNA, 1000, &res) > 0, "whole gzip reads: %s", err);
		f = fopen(gz, "rb");
		data = malloc(1 << 20);
		len = fread(data, 1, 1 << 20, f);
		fclose(f);
		expect_error(write_tmp(data, len / 2, 0), NW_ALPHA_DNA, "read error");
		free(data);
	}
}

/* ---------------------------------------------------------------- real data */

/* The whole file in one fill, encoded on threads threads into b; returns 0 or the code
 * (message in msg). */
static int read_whole(const char *path, nw_alphabet_t a, int threads, nw_batch_t *b, char *msg, size_t len)
{
	nw_reader_t *r = nw_reader_open(path, msg, len);
	int64_t n;

	if (!r)
		return NW_ERR_IO;
	nw_reader_set_threads(r, threads);
	n = nw_reader_fill(r, 0, 0, msg, len);
	if (n > 0)
		n = nw_reader_encode(r, a, b, msg, len);
	nw_reader_close(r);
	return n < 0 ? (int)n : 0;
}

/* Pending records of a million residues or more are encoded on the reader's threads: the
 * batch equals the one-thread batch for protein FASTA (lower case, stops, a record of
 * A/C/G/T only that the reader keeps as 2-bit text), DNA FASTQ (IUPAC records beside
 * 2-bit ones) and gzip input; an invalid or gap character far into the file gives the
 * one-thread message, the first of two. */
static void test_reader_parallel(void)
{
	static const char aa[] = "ACDEFGHIKLMNPQRSTVWYacdefghiklmnpqrstvwyXBZ*";
	const size_t cap = (size_t)3 << 20;
	char *prot = malloc(cap), *dna = malloc(2 * cap), msg1[1024], msg2[1024];
	uint64_t rng = 0x7a1c3e5f9b2d4c6eULL;
	size_t np = 0, nd = 0;
	int i, threads;

	for (i = 0; i < 2600; i++) {
		int len = 200 + (int)(tu_rand(&rng) % 600), line = 50 + (int)(tu_rand(&rng) % 40);
		np += (size_t)sprintf(prot + np, ">p%d some description\n", i);
		for (int k = 0; k < len; k++) {
			prot[np++] = i == 777 ? "ACGT"[tu_rand(&rng) % 4] : aa[tu_rand(&rng) % (sizeof aa - 1)];
			if ((k + 1) % line == 0 || k + 1 == len)
				prot[np++] = '\n';
		}
	}
	for (i = 0; i < 2600; i++) {
		int len = 300 + (int)(tu_rand(&rng) % 500);
		nd += (size_t)sprintf(dna + nd, "@d%d\n", i);
		for (int k = 0; k < len; k++)
			dna[nd++] = i % 3 == 0 && k == len / 2 ? "NRYKM"[tu_rand(&rng) % 5] : "ACGTacgt"[tu_rand(&rng) % 8];
		nd += (size_t)sprintf(dna + nd, "\n+\n");
		for (int k = 0; k < len; k++)
			dna[nd++] = (char)('!' + tu_rand(&rng) % 40);
		dna[nd++] = '\n';
	}
	const struct {
		const char *path;
		nw_alphabet_t a;
	} files[] = {
		{write_tmp(prot, np, 0), NW_ALPHA_PROTEIN},
		{write_tmp(dna, nd, 0), NW_ALPHA_DNA},
		{write_tmp(prot, np, 1), NW_ALPHA_PROTEIN},
	};
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		nw_batch_t one, many;
		nw_batch_init(&one, files[f].a);
		CHECK(read_whole(files[f].path, files[f].a, 1, &one, msg1, sizeof msg1) == 0, "%s", msg1);
		CHECK(one.total_residues >= 1000000, "file %zu: a million residues (%llu)", f,
		      (unsigned long long)one.total_residues);
		for (threads = 2; threads <= 7; threads += 5) {
			char what[64];
			nw_batch_init(&many, files[f].a);
			CHECK(read_whole(files[f].path, files[f].a, threads, &many, msg2, sizeof msg2) == 0, "%s", msg2);
			snprintf(what, sizeof what, "file %zu on %d threads", f, threads);
			same_batch(&one, &many, what);
			nw_batch_free(&many);
		}
		nw_batch_free(&one);
	}
	/* two bad characters, far apart; then a gap character */
	for (int variant = 0; variant < 2; variant++) {
		char *bad = malloc(np + 1);
		memcpy(bad, prot, np);
		size_t at1 = np * 3 / 5, at2 = np * 4 / 5;
		while (bad[at1] == '\n' || bad[at1 - 1] == '\n') at1++;
		while (bad[at2] == '\n' || bad[at2 - 1] == '\n') at2++;
		bad[at1] = variant ? '-' : '#';
		bad[at2] = '#';
		const char *path = write_tmp(bad, np, 0);
		nw_batch_t b1, b2;
		nw_batch_init(&b1, NW_ALPHA_PROTEIN);
		nw_batch_init(&b2, NW_ALPHA_PROTEIN);
		CHECK(read_whole(path, NW_ALPHA_PROTEIN, 1, &b1, msg1, sizeof msg1) == NW_ERR_FORMAT, "bad file fails");
		CHECK(read_whole(path, NW_ALPHA_PROTEIN, 6, &b2, msg2, sizeof msg2) == NW_ERR_FORMAT,
		      "bad file fails on threads");
		CHECK(strcmp(msg1, msg2) == 0, "same message: '%s' / '%s'", msg1, msg2);
		CHECK(strstr(msg1, variant ? "gap character '-'" : "invalid character '#'") != NULL, "message '%s'", msg1);
		nw_batch_free(&b1);
		nw_batch_free(&b2);
		free(bad);
	}
	free(prot);
	free(dna);
}

static void test_real_data(void)
{
	/* Expected counts computed independently with awk, e.g.
	 *   zcat lambda_reads_2k.fq.gz | awk 'NR%4==2{n++;t+=length($0)}END{print n,t}'
	 *   awk '/^>/{n++;next}{gsub(/[ \t\r]/,"");t+=length($0)}END{print n,t}' lambda.fa */
	static const struct {
		const char *file;
		nw_alphabet_t a;
		int64_t records;
		uint64_t residues;
	} files[] = {
		{ "dna/lambda.fa", NW_ALPHA_DNA, 1, 48502 },
		{ "dna/lambda_reads_2k.fq.gz", NW_ALPHA_DNA, 2000, 214798 },
		{ "dna/lambda_longreads_500.fq.gz", NW_ALPHA_DNA, 500, 168704 },
		{ "protein/mm_query50.fa", NW_ALPHA_PROTEIN, 50, 23229 },
	};
	const char *top = getenv("top_srcdir");
	char path[4096];
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint64_t res = 0, counts[256] = { 0 };
		int64_t n, m;
		nw_reader_t *r;

		snprintf(path, sizeof(path), "%s/../shared/data/%s", top ? top : ".", files[i].file);
		if (access(path, R_OK) != 0) {
			printf("SKIP: %s not found (shared data missing)\n", path);
			continue;
		}
		for (m = 1; m <= 1000; m *= 1000) {
			n = read_all(path, files[i].a, m == 1 ? 7 : 1000, &res);
			CHECK_EQ_I64(n, files[i].records, "%s: %s", path, err);
			CHECK_EQ_I64(res, files[i].residues, "%s", path);
		}
		r = nw_reader_open(path, err, sizeof(err));
		CHECK(r != NULL && nw_reader_fill(r, 100000, 0, err, sizeof(err)) > 0, "%s", err);
		nw_reader_count_chars(r, counts);
		CHECK(nw_alphabet_guess(counts) == files[i].a, "guess %s", path);
		nw_reader_close(r);
	}
}

/* Stamps: every change gives a batch a stamp no batch had before (the GPU engine trusts
 * them to skip re-uploading a batch it holds). */
static void test_stamps(void)
{
	static const uint8_t acgt[] = {0, 1, 2, 3};
	nw_batch_t a, b, rc;
	nw_batch_init(&a, NW_ALPHA_DNA);
	nw_batch_init(&b, NW_ALPHA_DNA);
	nw_batch_init(&rc, NW_ALPHA_DNA);
	CHECK(a.stamp != 0 && a.stamp != b.stamp, "fresh batches: %llu %llu", (unsigned long long)a.stamp,
	      (unsigned long long)b.stamp);
	uint64_t s0 = a.stamp;
	CHECK(nw_batch_push(&a, "x", acgt, 4, NULL) == 0 && a.stamp != s0, "push restamps");
	uint64_t s1 = a.stamp;
	CHECK(nw_batch_push(&a, "y", acgt, 3, NULL) == 0 && a.stamp != s1, "second push restamps");
	uint64_t s2 = a.stamp;
	nw_batch_t copy = a; /* moving a batch keeps its stamp: same contents */
	CHECK(copy.stamp == s2, "a struct copy keeps the stamp");
	CHECK(nw_batch_revcomp(&a, &rc) == 0 && rc.stamp != s2 && rc.stamp != b.stamp, "revcomp stamps anew");
	nw_batch_clear(&a);
	CHECK(a.stamp != s2 && a.stamp != s1 && a.stamp != s0, "clear restamps");
	nw_batch_free(&a);
	nw_batch_free(&b);
	nw_batch_free(&rc);
}

/* A view of sequences [a, e) holds the same residues, lengths, names and bits as the
 * batch's, spans only their words, and has a stamp of its own, the same for the same
 * range. Mixed 2-, 4- and 5-bit sequences, so that the words' span is not one width. */
static void test_view(void)
{
	nw_batch_t b, v, v2;
	uint8_t codes[300];
	char name[32];
	nw_batch_init(&b, NW_ALPHA_DNA);
	for (int i = 0; i < 40; i++) {
		const uint32_t len = (uint32_t)(i * 7 % 53 + (i == 5 ? 0 : 1)) * 5;
		for (uint32_t k = 0; k < len; k++) /* codes 0-3 (2-bit), some with N (4-bit) */
			codes[k] = (uint8_t)(i % 3 == 0 && k % 11 == 0 ? 4 : (k * 5 + (uint32_t)i) % 4);
		snprintf(name, sizeof name, "s%d", i);
		CHECK(nw_batch_push(&b, name, codes, len, NULL) == 0, "push %d", i);
	}
	const int64_t ranges[][2] = {{0, 40}, {0, 1}, {3, 17}, {5, 6}, {39, 40}, {12, 40}};
	for (size_t x = 0; x < sizeof ranges / sizeof *ranges; x++) {
		const int64_t a = ranges[x][0], e = ranges[x][1];
		uint64_t off[40], off2[40];
		nw_batch_view(&b, a, e, off, &v);
		CHECK_EQ_I64(v.n, e - a, "view [%lld, %lld) n", (long long)a, (long long)e);
		uint64_t words = 0, total = 0;
		for (int64_t i = 0; i < v.n; i++) {
			const uint32_t len = v.len[i];
			const unsigned per = v.bits[i] == 2 ? 16 : v.bits[i] == 4 ? 8 : 6;
			CHECK(len == b.len[a + i] && v.bits[i] == b.bits[a + i], "view %lld seq %lld len",
			      (long long)a, (long long)i);
			CHECK(strcmp(nw_batch_name(&v, i), nw_batch_name(&b, a + i)) == 0, "view name");
			for (uint32_t k = 0; k < len; k++)
				if (nw_batch_code(&v, i, k) != nw_batch_code(&b, a + i, k)) {
					CHECK(0, "view [%lld, %lld) seq %lld code %u", (long long)a,
					      (long long)e, (long long)i, k);
					break;
				}
			CHECK(v.offset[i] + (len + per - 1) / per <= v.n_words, "view offsets in its words");
			words += (len + per - 1) / per;
			total += len;
		}
		CHECK_EQ_I64((int64_t)v.n_words, (int64_t)words, "view [%lld, %lld) spans its words only",
			     (long long)a, (long long)e);
		CHECK_EQ_I64((int64_t)v.total_residues, (int64_t)total, "view residues");
		CHECK_EQ_I64(v.first_record, b.first_record + a, "view first record");
		CHECK(v.stamp != b.stamp, "a view's stamp is not the batch's");
		nw_batch_view(&b, a, e, off2, &v2);
		CHECK(v2.stamp == v.stamp, "the same view twice: the same stamp");
		if (e - 1 > a)
			nw_batch_view(&b, a, e - 1, off2, &v2);
		else if (e + 1 <= 40)
			nw_batch_view(&b, a, e + 1, off2, &v2);
		else
			nw_batch_view(&b, a - 1, e, off2, &v2);
		CHECK(v2.stamp != v.stamp, "another range: another stamp");
	}
	const uint64_t s = b.stamp;
	uint64_t off[40];
	nw_batch_view(&b, 3, 17, off, &v);
	const uint64_t sv = v.stamp;
	nw_batch_clear(&b);
	CHECK(b.stamp != s, "clear restamps");
	nw_batch_push(&b, "x", codes, 10, NULL);
	for (int i = 0; i < 20; i++)
		nw_batch_push(&b, "y", codes, 100, NULL);
	nw_batch_view(&b, 3, 17, off, &v);
	CHECK(v.stamp != sv, "a view of the batch refilled: another stamp");
	nw_batch_free(&b);
}

int main(void)
{
	int i;

	hts_set_log_level(HTS_LOG_OFF); /* the truncated-gzip test would print htslib noise */
	test_codes();
	test_guess();
	test_pack();
	test_push_all();
	test_stamps();
	test_view();
	test_pack2();
	test_reader_formats();
	test_reader_blocks();
	test_reader_line_ends();
	test_reader_errors();
	test_reader_parallel();
	test_real_data();
	for (i = 0; i < n_tmp; i++) {
		unlink(tmp_files[i]);
		free(tmp_files[i]);
	}
	return tu_finish("unit_pack");
}
