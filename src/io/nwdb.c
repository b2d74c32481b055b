/* nwdb.c: the packed database file (nwdb.h): written chunk by chunk from a FASTA/FASTQ
 * file, so that a database larger than memory can be made (the residues go to the file as
 * they are packed; only the per-record arrays and the names stay in memory until the
 * end), and loaded section by section with its checksums checked on the way.
 */
#define _FILE_OFFSET_BITS 64
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef NW_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

#include "nwdb.h"
#include "parts.h"

/* The contents' Adler-32 (the file's checksum) of n more bytes: ISA-L's vector form where
 * the build has it, zlib's otherwise (the same value; zlib's scalar loop is a visible share
 * of loading a database of hundreds of megabytes, bench/RESULTS.md). */
static uint32_t db_adler(uint32_t adler, const void *p, size_t n)
{
#ifdef NW_HAVE_ISAL
	return isal_adler32(adler, (const unsigned char *)p, (uint64_t)n);
#else
	return (uint32_t)adler32_z(adler, (const Bytef *)p, n);
#endif
}

static const char magic[8] = {'N', 'W', 'A', 'L', 'D', 'B', '\r', '\n'};

enum { S_WORDS, S_OFFSET, S_LEN, S_BITS, S_NAME_OFF, S_NAMES, N_SECTIONS };

typedef struct {
	uint32_t version, alphabet;
	uint64_t records, residues, n_words, names_len;
	uint32_t max_len;
	uint64_t off[N_SECTIONS], file_size;
	uint32_t data_adler, header_adler;
	uint64_t bytes[N_SECTIONS]; /* read: each section's size, from the counts (read_header) */
} header_t;

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;
	for (int i = 3; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void encode_header(const header_t *h, uint8_t *p)
{
	memset(p, 0, NW_DB_HEADER);
	memcpy(p, magic, 8);
	put32(p + 8, h->version);
	put32(p + 12, h->alphabet);
	put64(p + 16, h->records);
	put64(p + 24, h->residues);
	put64(p + 32, h->n_words);
	put64(p + 40, h->names_len);
	put32(p + 48, h->max_len);
	for (int s = 0; s < N_SECTIONS; s++)
		put64(p + 56 + 8 * s, h->off[s]);
	put64(p + 104, h->file_size);
	put32(p + 112, h->data_adler);
	put32(p + 116, db_adler(1, p, 116));
}

/* The arrays are written as they lie in memory: the format is little-endian. */
static int little_endian(void)
{
	const uint16_t one = 1;
	return *(const uint8_t *)&one == 1;
}

static uint64_t align64(uint64_t x)
{
	return (x + 63) & ~(uint64_t)63;
}

/* ---------------------------------------------------------------- writing */

typedef struct {
	FILE *fp;
	const char *path;
	uint64_t pos;
	uint32_t adler;
} out_t;

static int put(out_t *o, const void *p, size_t n, char *err, size_t errlen)
{
	if (n && fwrite(p, 1, n, o->fp) != n) {
		snprintf(err, errlen, "cannot write '%s': %s", o->path, strerror(errno));
		return NW_ERR_IO;
	}
	o->adler = db_adler(o->adler, p, n);
	o->pos += n;
	return 0;
}

static int pad(out_t *o, char *err, size_t errlen)
{
	static const uint8_t zeros[64];
	return put(o, zeros, (size_t)(align64(o->pos) - o->pos), err, errlen);
}

/* The per-record arrays of the whole database, kept until the words are out. */
typedef struct {
	uint64_t *offset, *name_off;
	uint32_t *len;
	uint8_t *bits;
	char *names;
	uint64_t n, cap, names_len, names_cap;
} records_t;

/* *p resized to n elements of sz bytes; 0 or NW_ERR_MEMORY (*p kept). */
static int resize(void **p, uint64_t n, size_t sz)
{
	void *q = realloc(*p, (size_t)(n * sz));
	if (!q)
		return NW_ERR_MEMORY;
	*p = q;
	return 0;
}

/* A capacity of at least need, from cap (first when 0) growing by half again. */
static uint64_t grown(uint64_t cap, uint64_t first, uint64_t need)
{
	uint64_t c = cap ? cap : first;
	while (c < need)
		c += c / 2;
	return c;
}

/* Room for need records (the four per-record arrays share r->cap) and for names_need
 * bytes of names. */
static int reserve(records_t *r, uint64_t need, uint64_t names_need)
{
	if (need > r->cap) {
		const uint64_t c = grown(r->cap, 1024, need);
		if (resize((void **)&r->offset, c, sizeof *r->offset) < 0 ||
		    resize((void **)&r->name_off, c, sizeof *r->name_off) < 0 ||
		    resize((void **)&r->len, c, sizeof *r->len) < 0 ||
		    resize((void **)&r->bits, c, sizeof *r->bits) < 0)
			return NW_ERR_MEMORY;
		r->cap = c;
	}
	if (names_need > r->names_cap) {
		const uint64_t c = grown(r->names_cap, 65536, names_need);
		if (resize((void **)&r->names, c, 1) < 0)
			return NW_ERR_MEMORY;
		r->names_cap = c;
	}
	return 0;
}

/* The records of a chunk's batch, whose words start at word_base of the file's words. */
static int add_records(records_t *r, const nw_batch_t *b, uint64_t word_base)
{
	if (reserve(r, r->n + (uint64_t)b->n, r->names_len + b->names_len) < 0)
		return NW_ERR_MEMORY;
	for (int64_t i = 0; i < b->n; i++) {
		r->offset[r->n + (uint64_t)i] = word_base + b->offset[i];
		r->name_off[r->n + (uint64_t)i] = r->names_len + b->name_off[i];
		r->len[r->n + (uint64_t)i] = b->len[i];
		r->bits[r->n + (uint64_t)i] = b->bits[i];
	}
	memcpy(r->names + r->names_len, b->names, (size_t)b->names_len);
	r->names_len += b->names_len;
	r->n += (uint64_t)b->n;
	return 0;
}

int nw_db_write(const char *in, const char *out_path, nw_alphabet_t alphabet,
		uint64_t chunk_residues, nw_db_info_t *info, char *err, size_t errlen)
{
	if (!little_endian()) {
		snprintf(err, errlen, "database files are little-endian; this machine is not");
		return NW_ERR_USAGE;
	}
	nw_reader_t *rd = nw_reader_open(in, err, errlen);
	if (!rd)
		return NW_ERR_IO;
	out_t o = {.fp = fopen(out_path, "wb"), .path = out_path, .adler = 1};
	nw_batch_t b;
	records_t recs = {0};
	header_t h = {.version = NW_DB_VERSION};
	uint8_t head[NW_DB_HEADER] = {0};
	int ret = 0;
	int64_t got;
	nw_batch_init(&b, alphabet);
	if (!o.fp) {
		snprintf(err, errlen, "cannot open '%s' for writing: %s", out_path, strerror(errno));
		ret = NW_ERR_IO;
		goto done;
	}
	/* the header's room now, its contents at the end; the residues follow it */
	if (fwrite(head, 1, NW_DB_HEADER, o.fp) != NW_DB_HEADER) {
		snprintf(err, errlen, "cannot write '%s': %s", out_path, strerror(errno));
		ret = NW_ERR_IO;
		goto done;
	}
	o.pos = NW_DB_HEADER;
	h.off[S_WORDS] = NW_DB_HEADER;
	while ((got = nw_reader_fill(rd, INT64_MAX, chunk_residues, err, errlen)) > 0) {
		if (alphabet == NW_ALPHA_AUTO) { /* from the first chunk, as nwalign guesses */
			uint64_t counts[256] = {0};
			nw_reader_count_chars(rd, counts);
			alphabet = nw_alphabet_guess(counts);
		}
		if ((ret = nw_reader_encode(rd, alphabet, &b, err, errlen)) < 0)
			goto done;
		if (add_records(&recs, &b, h.n_words) < 0) {
			snprintf(err, errlen, "out of memory indexing '%s'", in);
			ret = NW_ERR_MEMORY;
			goto done;
		}
		if ((ret = put(&o, b.words, (size_t)b.n_words * sizeof *b.words, err, errlen)) < 0)
			goto done;
		h.n_words += b.n_words;
		h.residues += b.total_residues;
		h.max_len = b.max_len > h.max_len ? b.max_len : h.max_len;
	}
	if (got < 0) {
		ret = (int)got;
		goto done;
	}
	h.alphabet = (uint32_t)alphabet;
	h.records = recs.n;
	h.names_len = recs.names_len;
	const void *data[N_SECTIONS] = {NULL, recs.offset, recs.len, recs.bits, recs.name_off, recs.names};
	const uint64_t bytes[N_SECTIONS] = {0, recs.n * 8, recs.n * 4, recs.n, recs.n * 8, recs.names_len};
	for (int s = S_OFFSET; s < N_SECTIONS; s++) {
		if ((ret = pad(&o, err, errlen)) < 0)
			goto done;
		h.off[s] = o.pos;
		if ((ret = put(&o, data[s], (size_t)bytes[s], err, errlen)) < 0)
			goto done;
	}
	h.file_size = o.pos;
	h.data_adler = (uint32_t)o.adler;
	encode_header(&h, head);
	if (fseeko(o.fp, 0, SEEK_SET) != 0 || fwrite(head, 1, NW_DB_HEADER, o.fp) != NW_DB_HEADER ||
	    fflush(o.fp) != 0) {
		snprintf(err, errlen, "cannot write '%s': %s", out_path, strerror(errno));
		ret = NW_ERR_IO;
		goto done;
	}
	if (info) {
		info->alphabet = alphabet;
		info->records = h.records;
		info->residues = h.residues;
		info->file_size = h.file_size;
		info->max_len = h.max_len;
	}
done:
	if (o.fp && fclose(o.fp) != 0 && ret == 0) {
		snprintf(err, errlen, "cannot write '%s': %s", out_path, strerror(errno));
		ret = NW_ERR_IO;
	}
	if (ret < 0 && o.fp)
		remove(out_path); /* no half-written database left behind */
	nw_reader_close(rd);
	nw_batch_free(&b);
	free(recs.offset);
	free(recs.name_off);
	free(recs.len);
	free(recs.bits);
	free(recs.names);
	return ret;
}

/* ---------------------------------------------------------------- reading */

int nw_db_is_db(const char *path)
{
	struct stat st;
	char m[8];
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 0;
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return 0;
	int is = fread(m, 1, 8, fp) == 8 && memcmp(m, magic, 8) == 0;
	fclose(fp);
	return is;
}

static int bad(const char *path, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "'%s' is not a usable nwalign database: %s", path, what);
	return NW_ERR_FORMAT;
}

/* Read and check the header of an open database. */
static int read_header(FILE *fp, const char *path, header_t *h, char *err, size_t errlen)
{
	uint8_t p[NW_DB_HEADER];
	struct stat st;
	if (fread(p, 1, NW_DB_HEADER, fp) != NW_DB_HEADER)
		return bad(path, "shorter than its header", err, errlen);
	if (memcmp(p, magic, 8) != 0)
		return bad(path, "no database header (make one with 'nwalign index')", err, errlen);
	h->version = get32(p + 8);
	if (h->version != NW_DB_VERSION) {
		char what[96];
		snprintf(what, sizeof what, "format version %u, this nwalign reads version %d (index "
			 "it again)", (unsigned)h->version, NW_DB_VERSION);
		return bad(path, what, err, errlen);
	}
	if (get32(p + 116) != db_adler(1, p, 116))
		return bad(path, "its header is damaged (checksum)", err, errlen);
	h->alphabet = get32(p + 12);
	h->records = get64(p + 16);
	h->residues = get64(p + 24);
	h->n_words = get64(p + 32);
	h->names_len = get64(p + 40);
	h->max_len = get32(p + 48);
	for (int s = 0; s < N_SECTIONS; s++)
		h->off[s] = get64(p + 56 + 8 * s);
	h->file_size = get64(p + 104);
	h->data_adler = get32(p + 112);
	if (fstat(fileno(fp), &st) != 0 || (uint64_t)st.st_size != h->file_size)
		return bad(path, "its size is not the size its header gives (truncated or appended to)",
			   err, errlen);
	/* counts that the file could hold at all (their byte sizes below must not wrap) */
	if (h->n_words > h->file_size / 4 || h->records > h->file_size / 21 ||
	    h->names_len > h->file_size)
		return bad(path, "its counts do not fit in the file", err, errlen);
	/* sections in order, each inside the file after the one before */
	const uint64_t bytes[N_SECTIONS] = {h->n_words * 4, h->records * 8, h->records * 4,
					    h->records, h->records * 8, h->names_len};
	memcpy(h->bytes, bytes, sizeof bytes);
	uint64_t end = NW_DB_HEADER;
	for (int s = 0; s < N_SECTIONS; s++) {
		if (h->off[s] < end || h->off[s] % 64 != 0 || h->off[s] > h->file_size ||
		    bytes[s] > h->file_size - h->off[s])
			return bad(path, "its sections do not fit in the file", err, errlen);
		end = h->off[s] + bytes[s];
	}
	if (end != h->file_size || (h->alphabet != NW_ALPHA_DNA && h->alphabet != NW_ALPHA_PROTEIN))
		return bad(path, "its sections do not fit in the file", err, errlen);
	return 0;
}

int nw_db_info(const char *path, nw_db_info_t *info, char *err, size_t errlen)
{
	header_t h = {0};
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NW_ERR_IO;
	}
	int ret = read_header(fp, path, &h, err, errlen);
	fclose(fp);
	if (ret < 0)
		return ret;
	info->alphabet = (nw_alphabet_t)h.alphabet;
	info->records = h.records;
	info->residues = h.residues;
	info->file_size = h.file_size;
	info->max_len = h.max_len;
	return 0;
}

/* The Adler-32 of a then b from a's and b's own (each begun at 1) and b's length:
 * A = A_a + A_b - 1 and B = B_a + B_b + len_b (A_a - 1), modulo 65521. */
static uint32_t adler_combine(uint32_t a, uint32_t b, uint64_t len_b)
{
	const uint64_t base = 65521, a1 = a & 0xffffu, a2 = a >> 16, b1 = b & 0xffffu, b2 = b >> 16;
	const uint64_t s1 = (a1 + b1 + base - 1) % base;
	const uint64_t s2 = (a2 + b2 + (len_b % base) * ((a1 + base - 1) % base)) % base;
	return (uint32_t)(s2 << 16 | s1);
}

/* The data's reading on threads: part t reads the file's bytes [from, to) after the
 * header, LOAD_READ bytes at a time, and takes their Adler-32; the parts' sums combine in
 * file order. With arrays to fill, a section's bytes go into its array and the gaps
 * between sections (at most 64 bytes) into gap; without (the partitions' opening, which
 * only checks the sum), every read goes into the part's scratch buffer. A part takes at
 * least load_part_min() bytes. */
#define LOAD_READ ((uint64_t)1 << 20)
static uint64_t load_part_min(void)
{
	const char *e = getenv("NW_DB_LOAD_PART"); /* test hook: smaller parts */
	const long long v = e ? atoll(e) : 0;
	return v > 0 ? (uint64_t)v : (uint64_t)8 << 20;
}
typedef struct {
	int fd;
	const header_t *h;
	void *const *dst; /* the sections' arrays, or NULL */
	uint8_t *scratch; /* without arrays: LOAD_READ bytes */
	uint64_t from, to;
	uint32_t adler;
	int failed;
} load_part_t;

static void *load_part(void *arg)
{
	load_part_t *p = arg;
	uint8_t gap[64];
	uint64_t seg = NW_DB_HEADER; /* where the gap before section s begins */
	p->adler = 1;
	for (int s = 0; s < N_SECTIONS && !p->failed; s++) {
		for (int half = 0; half < 2 && !p->failed; half++) { /* the gap, then the section */
			const uint64_t a = half ? p->h->off[s] : seg,
				       e = half ? p->h->off[s] + p->h->bytes[s] : p->h->off[s];
			for (uint64_t x = a > p->from ? a : p->from; x < e && x < p->to;) {
				uint64_t k = (e < p->to ? e : p->to) - x;
				k = k < LOAD_READ ? k : LOAD_READ;
				uint8_t *d = !p->dst ? p->scratch
					     : half  ? (uint8_t *)p->dst[s] + (x - a)
						     : gap + (x - a);
				if (pread(p->fd, d, (size_t)k, (off_t)x) != (ssize_t)k) {
					p->failed = 1;
					break;
				}
				p->adler = db_adler(p->adler, d, (size_t)k);
				x += k;
			}
		}
		seg = p->h->off[s] + p->h->bytes[s];
	}
	return NULL;
}

/* Read the data of the open database fp (header h, checked by read_header) on up to
 * threads threads, into the sections' arrays dst (or, dst NULL, only for its sum), and
 * check its Adler-32. 0 or a negative code with a message. */
static int read_data(FILE *fp, const char *path, const header_t *h, void *const *dst, int threads,
		     char *err, size_t errlen)
{
	uint64_t end = NW_DB_HEADER;
	for (int s = 0; s < N_SECTIONS; s++) { /* in order (read_header): gaps of at most 64 */
		if (h->off[s] - end > 64)
			return bad(path, "cannot read it whole", err, errlen);
		end = h->off[s] + h->bytes[s];
	}
	load_part_t part[NW_PARTS_MAX];
	const uint64_t data = end - NW_DB_HEADER;
	const uint64_t want = data / load_part_min();
	const int n_parts = nw_parts_count(threads, want > 0 ? (int64_t)want : 1);
	int ret = 0;
	for (int t = 0; t < n_parts; t++) {
		part[t] = (load_part_t){.fd = fileno(fp), .h = h, .dst = dst,
					.from = NW_DB_HEADER + data * (uint64_t)t / (uint64_t)n_parts,
					.to = NW_DB_HEADER + data * (uint64_t)(t + 1) / (uint64_t)n_parts};
		if (!dst && !(part[t].scratch = malloc(LOAD_READ)) && ret == 0) {
			snprintf(err, errlen, "out of memory reading '%s'", path);
			ret = NW_ERR_MEMORY;
		}
	}
	if (ret == 0)
		nw_parts_run(load_part, part, sizeof part[0], n_parts);
	uint32_t adler = 1; /* Adler-32 of nothing */
	for (int t = 0; t < n_parts && ret == 0; t++) {
		if (part[t].failed)
			ret = bad(path, "cannot read it whole", err, errlen);
		adler = t ? adler_combine(adler, part[t].adler, part[t].to - part[t].from) : part[t].adler;
	}
	for (int t = 0; t < n_parts; t++)
		free(part[t].scratch);
	if (ret == 0 && adler != h->data_adler)
		ret = bad(path, "its contents are damaged (checksum)", err, errlen);
	return ret;
}

int nw_db_load(const char *path, nw_batch_t *b, int threads, char *err, size_t errlen)
{
	header_t h = {0}; /* read_header may stop before the alphabet, which b takes below */
	if (!little_endian()) {
		snprintf(err, errlen, "database files are little-endian; this machine is not");
		return NW_ERR_USAGE;
	}
	FILE *fp = fopen(path, "rb");
	if (!fp) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NW_ERR_IO;
	}
	int ret = read_header(fp, path, &h, err, errlen);
	nw_batch_free(b);
	nw_batch_init(b, (nw_alphabet_t)h.alphabet);
	if (ret < 0)
		goto done;
	const size_t n = (size_t)h.records;
	b->words = malloc(h.n_words ? (size_t)h.n_words * 4 : 4);
	b->offset = malloc(n ? n * 8 : 8);
	b->len = malloc(n ? n * 4 : 4);
	b->bits = malloc(n ? n : 1);
	b->name_off = malloc(n ? n * 8 : 8);
	b->names = malloc(h.names_len ? (size_t)h.names_len : 1);
	if (!b->words || !b->offset || !b->len || !b->bits || !b->name_off || !b->names) {
		snprintf(err, errlen, "out of memory loading '%s' (%.3g residues)", path,
			 (double)h.residues);
		ret = NW_ERR_MEMORY;
		goto done;
	}
	void *dst[N_SECTIONS] = {b->words, b->offset, b->len, b->bits, b->name_off, b->names};
	ret = read_data(fp, path, &h, dst, threads, err, errlen);
	b->n = b->cap = (int64_t)n;
	b->n_words = b->cap_words = h.n_words;
	b->names_len = b->names_cap = h.names_len;
	b->total_residues = h.residues;
	b->max_len = h.max_len;
	/* every record inside the arrays, of a width its alphabet has, its name ended */
	uint64_t residues = 0;
	for (size_t i = 0; i < n && ret == 0; i++) {
		const unsigned bits = b->bits[i];
		const int width_ok = h.alphabet == NW_ALPHA_DNA ? bits == 2 || bits == 4 : bits == 5;
		if (!width_ok || b->len[i] > h.max_len || b->offset[i] > h.n_words ||
		    nw_seq_words(bits, b->len[i]) > h.n_words - b->offset[i] ||
		    b->name_off[i] >= h.names_len)
			ret = bad(path, "a record lies outside its arrays", err, errlen);
		residues += b->len[i];
	}
	if (ret == 0 && (residues != h.residues || (h.names_len && b->names[h.names_len - 1] != 0)))
		ret = bad(path, "its records do not add up to its header", err, errlen);
done:
	fclose(fp);
	if (ret < 0)
		nw_batch_free(b);
	return ret;
}

/* ---------------------------------------------------------------- partitions */

struct nw_db_parts_s {
	FILE *fp;
	char *path;
	header_t h;
	uint64_t next; /* the first record of the next partition */
};

void nw_db_parts_close(nw_db_parts_t *d)
{
	if (!d)
		return;
	if (d->fp)
		fclose(d->fp);
	free(d->path);
	free(d);
}

/* n items of size sz of section s from item k on, into dst. */
static int read_items(nw_db_parts_t *d, int s, uint64_t k, uint64_t n, size_t sz, void *dst)
{
	if (n == 0)
		return 0;
	if (fseeko(d->fp, (off_t)(d->h.off[s] + k * sz), SEEK_SET) != 0 ||
	    fread(dst, sz, (size_t)n, d->fp) != n)
		return -1;
	return 0;
}

int nw_db_parts_open(const char *path, int threads, nw_db_parts_t **out, char *err, size_t errlen)
{
	*out = NULL;
	if (!little_endian()) {
		snprintf(err, errlen, "database files are little-endian; this machine is not");
		return NW_ERR_USAGE;
	}
	int ret = NW_ERR_FORMAT;
	nw_db_parts_t *d = calloc(1, sizeof *d);
	uint8_t *buf = malloc(1 << 20);
	if (!d || !buf || !(d->path = strdup(path))) {
		snprintf(err, errlen, "out of memory opening '%s'", path);
		ret = NW_ERR_MEMORY;
		goto fail;
	}
	if (!(d->fp = fopen(path, "rb"))) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		ret = NW_ERR_IO;
		goto fail;
	}
	if ((ret = read_header(d->fp, path, &d->h, err, errlen)) < 0)
		goto fail;
	/* the contents' checksum, over the whole file once: the partitions are read later */
	if ((ret = read_data(d->fp, path, &d->h, NULL, threads, err, errlen)) < 0)
		goto fail;
	ret = NW_ERR_FORMAT;
	/* the records' lengths add up to the header's residues; the names end */
	uint64_t residues = 0;
	for (uint64_t k = 0; k < d->h.records; k += (1 << 18)) {
		const uint64_t n = d->h.records - k < (1 << 18) ? d->h.records - k : (1 << 18);
		if (read_items(d, S_LEN, k, n, 4, buf) < 0) {
			bad(path, "cannot read it whole", err, errlen);
			goto fail;
		}
		for (uint64_t i = 0; i < n; i++)
			residues += ((const uint32_t *)buf)[i];
	}
	if (residues != d->h.residues ||
	    (d->h.names_len && (read_items(d, S_NAMES, d->h.names_len - 1, 1, 1, buf) < 0 || buf[0]))) {
		bad(path, "its records do not add up to its header", err, errlen);
		goto fail;
	}
	free(buf);
	*out = d;
	return 0;
fail:
	free(buf);
	nw_db_parts_close(d);
	return ret;
}

void nw_db_parts_rewind(nw_db_parts_t *d)
{
	d->next = 0;
}

nw_alphabet_t nw_db_parts_alphabet(const nw_db_parts_t *d)
{
	return (nw_alphabet_t)d->h.alphabet;
}

int nw_db_parts_next(nw_db_parts_t *d, uint64_t cap, nw_batch_t *b, char *err, size_t errlen)
{
	const header_t *h = &d->h;
	const uint64_t k0 = d->next;
	if (k0 >= h->records)
		return 0;
	nw_batch_free(b);
	nw_batch_init(b, (nw_alphabet_t)h->alphabet);
	/* the records of about cap residues (one at least): their lengths first */
	uint64_t n = 0, residues = 0, room = 0;
	int ret = 0;
	while (k0 + n < h->records && (n == 0 || residues < cap)) {
		const uint64_t left = h->records - k0 - n, want = left < 65536 ? left : 65536;
		if (n + want > room) {
			room = n + want > 2 * room ? n + want : 2 * room;
			uint32_t *len = realloc(b->len, room * 4);
			if (!len)
				goto oom;
			b->len = len;
		}
		if (read_items(d, S_LEN, k0 + n, want, 4, b->len + n) < 0)
			goto short_read;
		for (uint64_t i = 0; i < want && (n == 0 || residues < cap); i++)
			residues += b->len[n++];
	}
	const uint64_t k1 = k0 + n;
	b->offset = malloc(n * 8);
	b->name_off = malloc(n * 8);
	b->bits = malloc(n);
	if (!b->offset || !b->name_off || !b->bits)
		goto oom;
	if (read_items(d, S_OFFSET, k0, n, 8, b->offset) < 0 ||
	    read_items(d, S_NAME_OFF, k0, n, 8, b->name_off) < 0 ||
	    read_items(d, S_BITS, k0, n, 1, b->bits) < 0)
		goto short_read;
	/* the words and names of the range: from the first record's to the next one's */
	uint64_t w0 = b->offset[0], w1 = h->n_words, n0 = b->name_off[0], n1 = h->names_len;
	if (k1 < h->records && (read_items(d, S_OFFSET, k1, 1, 8, &w1) < 0 ||
				read_items(d, S_NAME_OFF, k1, 1, 8, &n1) < 0))
		goto short_read;
	if (w0 > w1 || w1 > h->n_words || n0 >= n1 || n1 > h->names_len)
		goto outside;
	b->words = malloc(w1 > w0 ? (w1 - w0) * 4 : 4);
	b->names = malloc(n1 - n0);
	if (!b->words || !b->names)
		goto oom;
	if (read_items(d, S_WORDS, w0, w1 - w0, 4, b->words) < 0 ||
	    read_items(d, S_NAMES, n0, n1 - n0, 1, b->names) < 0)
		goto short_read;
	if (b->names[n1 - n0 - 1] != 0)
		goto outside;
	/* every record inside the range's arrays, of a width its alphabet has */
	for (uint64_t i = 0; i < n; i++) {
		const unsigned bits = b->bits[i];
		const int width_ok = h->alphabet == NW_ALPHA_DNA ? bits == 2 || bits == 4 : bits == 5;
		if (!width_ok || b->len[i] > h->max_len || b->offset[i] < w0 || b->offset[i] > w1 ||
		    nw_seq_words(bits, b->len[i]) > w1 - b->offset[i] || b->name_off[i] < n0 ||
		    b->name_off[i] >= n1)
			goto outside;
		b->offset[i] -= w0;
		b->name_off[i] -= n0;
		if (b->len[i] > b->max_len)
			b->max_len = b->len[i];
	}
	b->n = b->cap = (int64_t)n;
	b->n_words = b->cap_words = w1 - w0;
	b->names_len = b->names_cap = n1 - n0;
	b->total_residues = residues;
	b->first_record = (int64_t)k0;
	d->next = k1;
	return 1;
oom:
	snprintf(err, errlen, "out of memory reading a partition of '%s'", d->path);
	ret = NW_ERR_MEMORY;
	goto fail;
short_read:
	ret = bad(d->path, "cannot read it whole", err, errlen);
	goto fail;
outside:
	ret = bad(d->path, "a record lies outside its arrays", err, errlen);
fail:
	nw_batch_free(b);
	return ret;
}
