/* seqio.c: the FASTA/FASTQ reader.
 *
 * Input goes through htslib's BGZF layer, which reads plain, gzip and bgzf files and
 * stdin ("-") alike (regular files that are plain or gzip, not BGZF, are read past it:
 * read(2), and gunzip.h's decompression where the build has it); the parser above it is
 * our own so that every malformed input gets a precise one-line message (file, record,
 * line or position) instead of a silent stop.
 * Decoded blocks are copied into a buffer of our own and cut into lines with memchr; a
 * line is parsed where it lies in that buffer, without a copy.
 *
 * Reading has two steps. nw_reader_fill() parses raw records (name, sequence text with
 * whitespace removed, qualities) into an arena that holds only the pending records, so
 * memory stays bounded by the batch limits however large the file is. The caller may
 * then look at the raw characters (nw_reader_count_chars, for --alphabet auto) before
 * nw_reader_encode() (encode.c) validates them against an alphabet, packs them into a
 * batch and drops them. An error is sticky: every later call returns it again.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <htslib/bgzf.h>

#include "reader.h"

/* ---------------------------------------------------------------- messages */

/* See reader.h. */
const char *nw_show_byte(int c, char buf[8])
{
	c &= 255;
	if (c > ' ' && c < 127)
		snprintf(buf, 8, "%c", c);
	else
		snprintf(buf, 8, "\\x%02X", (unsigned)c);
	return buf;
}

/* See reader.h. */
const char *nw_show_name(const char *name, char buf[96])
{
	size_t o = 0;

	for (; *name && o < 72; name++) {
		unsigned char c = (unsigned char)*name;
		if (c > ' ' && c < 127)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(buf + o, 96 - o, "\\x%02X", (unsigned)c);
	}
	strcpy(buf + o, *name ? "..." : "");
	return buf;
}

/* See reader.h. */
int nw_reader_fail(nw_reader_t *r, int code, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->errmsg, sizeof(r->errmsg), "'%s': ", r->path);

	if (n < 0 || (size_t)n >= sizeof(r->errmsg))
		n = 0;
	va_start(ap, fmt);
	vsnprintf(r->errmsg + n, sizeof(r->errmsg) - n, fmt, ap);
	va_end(ap);
	r->failed = code;
	if (err && errlen)
		snprintf(err, errlen, "%s", r->errmsg);
	return code;
}


/* ---------------------------------------------------------------- low level */

static int grow_text(nw_reader_t *r, uint64_t extra)
{
	uint64_t need = r->text_len + extra, cap = r->text_cap ? r->text_cap : 1 << 16;
	char *p;

	if (need <= r->text_cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(r->text, cap);
	if (!p)
		return NW_ERR_MEMORY;
	r->text = p;
	r->text_cap = cap;
	return 0;
}

/* The read-ahead buffer starts this large: twice the largest decoded block (64 KiB), so
 * that a block fits behind the partial line moved to the front, and small enough to stay
 * in cache. */
#define NW_BUF_MIN ((size_t)128 << 10)

/* Append decoded input behind the unparsed bytes, which are the start of one line (the
 * caller found no newline in them). Compressed input is decoded one block at a time and
 * a block is taken only once the previous one is used up: when a block is corrupt, the
 * lines of all the blocks before it have been parsed, as with a line-by-line read, and
 * the error names the same line. Returns 0 (r->eof set at the end of the input), NW_ERR_IO or
 * NW_ERR_MEMORY. */
static int refill(nw_reader_t *r)
{
	BGZF *fp = r->fp;
	size_t keep = r->buf_end - r->buf_pos, want;
	ssize_t n;

	/* The partial line moves to the front once; further refills of the same line
	 * append to it. A line that fills the buffer doubles it, so the buffer stays below
	 * twice the longest line (and 128 KiB) and a long line costs O(length) copies. */
	if (r->buf_pos > 0) {
		memmove(r->buf, r->buf + r->buf_pos, keep);
		r->buf_pos = 0;
		r->buf_end = keep;
	}
	if (r->buf_end == r->buf_cap) {
		char *p = realloc(r->buf, r->buf_cap * 2);
		if (!p)
			return NW_ERR_MEMORY;
		r->buf = p;
		r->buf_cap *= 2;
	}
	/* Files read directly (r->fd, r->gz) take NW_BUF_MIN at a time, at most: the first
	 * records are parsed after one such piece, not after a larger buffer decoded whole,
	 * and the same pages are used again and again */
	want = r->buf_cap - r->buf_end < NW_BUF_MIN ? r->buf_cap - r->buf_end : NW_BUF_MIN;
	if (r->gz) { /* decompressed straight into the buffer */
		n = nw_gunzip_read(r->gz, r->buf + r->buf_end, want);
		if (n < 0)
			return NW_ERR_IO;
		r->eof = n == 0;
		r->buf_end += (size_t)n;
		return 0;
	}
	if (r->fd >= 0) { /* straight into the buffer: no decoded block to copy from */
		do
			n = read(r->fd, r->buf + r->buf_end, want);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return NW_ERR_IO;
		r->eof = n == 0;
		r->buf_end += (size_t)n;
		return 0;
	}
	/* Decode the next block when the current one is used up (bgzf_read leaves offset
	 * and length at 0 then); length 0 after that is the end of the input. */
	if (fp->block_offset >= fp->block_length) {
		if (bgzf_read_block(fp) < 0 || fp->errcode)
			return NW_ERR_IO;
		if (fp->block_length == 0) {
			r->eof = 1;
			return 0;
		}
	}
	/* Copy out of the decoded block only, so that bgzf_read never decodes another. */
	want = (size_t)(fp->block_length - fp->block_offset);
	if (want > r->buf_cap - r->buf_end)
		want = r->buf_cap - r->buf_end;
	n = bgzf_read(fp, r->buf + r->buf_end, want);
	if (n != (ssize_t)want || fp->errcode)
		return NW_ERR_IO;
	r->buf_end += want;
	return 0;
}

/* Next line into r->ln / r->ln_len. 1: a line, 0: end of input, <0: read error (a corrupt
 * or truncated gzip file must not look like a short file). The line points into the
 * buffer and stays valid until the next call. */
static int next_line(nw_reader_t *r, char *err, size_t errlen)
{
	size_t seen = 0; /* bytes from buf_pos known to hold no newline */
	char *nl;
	int ret;

	for (;;) {
		nl = memchr(r->buf + r->buf_pos + seen, '\n', r->buf_end - r->buf_pos - seen);
		if (nl || r->eof)
			break;
		seen = r->buf_end - r->buf_pos;
		if ((ret = refill(r)) < 0)
			return nw_reader_fail(r, ret, err, errlen,
				    ret == NW_ERR_MEMORY ? "out of memory after line %llu"
				    : "read error after line %llu (corrupt or truncated compressed data?)",
				    (unsigned long long)r->lineno);
	}
	if (!nl) {
		if (r->buf_pos == r->buf_end)
			return 0;
		nl = r->buf + r->buf_end; /* the last line has no newline */
	}
	r->ln = r->buf + r->buf_pos;
	r->ln_len = (size_t)(nl - r->ln);
	r->buf_pos += r->ln_len + (nl < r->buf + r->buf_end);
	r->lineno++;
	while (r->ln_len > 0 && r->ln[r->ln_len - 1] == '\r')
		r->ln_len--;
	return 1;
}

static int is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Whether one of the eight bytes in x is a control byte (below ' ', tab included, or
 * 127), for every byte value. x - 0x20 in each byte borrows into the top bit of a byte
 * below 0x20 (whose own top bit is clear); a byte of 127 is the one that x ^ 0x7F in each
 * byte turns to 0, which the same test with 1 finds. */
static inline int has_control8(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, top = 0x8080808080808080ull;
	const uint64_t y = x ^ (0x7F * ones);
	return (((x - 0x20 * ones) & ~x) | ((y - ones) & ~y)) & top ? 1 : 0;
}

static int is_blank(const char *s, size_t l)
{
	size_t i;
	for (i = 0; i < l; i++)
		if (!is_space((unsigned char)s[i]))
			return 0;
	return 1;
}

/* Append the current line to the arena without its whitespace. Control bytes mean the
 * input is binary, not text: stop there rather than read on. Returns the number of bytes
 * kept or a negative code; *bad is the offending byte. */
static int64_t append_clean(nw_reader_t *r, int *bad)
{
	const unsigned char *s = (const unsigned char *)r->ln;
	size_t i, l = r->ln_len;
	char *dst;
	uint64_t n = 0, other = 0;

	if (grow_text(r, l + 1) < 0)
		return NW_ERR_MEMORY;
	dst = r->text + r->text_len;
	/* The usual line is printable bytes only (33..126): copy it eight bytes a step while
	 * testing them, in one pass; anything else takes the byte-by-byte path, which
	 * overwrites the copy. */
	for (i = 0; i + 8 <= l; i += 8) {
		uint64_t x;
		memcpy(&x, s + i, 8);
		memcpy(dst + i, &x, 8);
		/* a byte below 33, or above 126 (exact for every byte value) */
		other |= ((x - 0x2121212121212121ull) & ~x) | ((x + 0x0101010101010101ull) | x);
	}
	other &= 0x8080808080808080ull;
	for (; i < l; i++) {
		dst[i] = (char)s[i];
		other |= (unsigned char)(s[i] - 33) > 93;
	}
	if (!other) {
		r->text_len += l;
		return (int64_t)l;
	}
	for (i = 0; i < l; i++) {
		unsigned char c = s[i];
		if (c > ' ' && c != 127)
			dst[n++] = (char)c;
		else if (!is_space(c)) {
			*bad = c;
			return NW_ERR_FORMAT;
		}
	}
	r->text_len += n;
	return (int64_t)n;
}

/* ---------------------------------------------------------------- parsing */

/* The record rec, the last in the arena, from 2-bit text back to plain text (upper case,
 * which is all that count_chars and encode look at), in place. Going down from the last
 * residue, residue k is read from byte k / 4 and then written to byte k; the residues
 * still to come are read from bytes below k, which are not written yet. */
static int unpack_record(nw_reader_t *r, nw_rec_t *rec)
{
	uint8_t *p;
	uint64_t k;

	if (grow_text(r, rec->len) < 0)
		return NW_ERR_MEMORY;
	p = (uint8_t *)r->text + rec->seq;
	for (k = rec->len; k-- > 0;)
		p[k] = (uint8_t)"ACGT"[nw_pack2_code(p, k)];
	r->text_len = rec->seq + rec->len;
	rec->packed = 0;
	return 0;
}

/* Append the current line to the 2-bit record rec, the last in the arena. 1: appended;
 * 0: the line is not A/C/G/T only, so the record is plain text now and the line is left
 * for append_clean; or NW_ERR_MEMORY. */
static int append_packed(nw_reader_t *r, nw_rec_t *rec)
{
	if (grow_text(r, r->ln_len / 4 + 2) < 0)
		return NW_ERR_MEMORY;
	if (nw_pack2_text((uint8_t *)r->text + rec->seq, rec->len, r->ln, r->ln_len) < 0)
		return unpack_record(r, rec);
	r->text_len = rec->seq + (rec->len + r->ln_len + 3) / 4;
	return 1;
}

/* Sequence line(s) of the record rec: append and enforce the length limit. */
static int add_seq_line(nw_reader_t *r, nw_rec_t *rec, char *err, size_t errlen)
{
	char namebuf[96];
	int bad = 0, ret = 0;
	int64_t n;

	if (rec->packed)
		ret = append_packed(r, rec);
	n = ret > 0 ? (int64_t)r->ln_len : ret < 0 ? ret : append_clean(r, &bad);

	if (n == NW_ERR_MEMORY)
		return nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory reading " REC_FMT,
			    REC_ARGS(r->text + rec->name, r->n_read));
	if (n < 0)
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
			    REC_FMT ": binary data (byte \\x%02X) at line %llu, not FASTA or FASTQ",
			    REC_ARGS(r->text + rec->name, r->n_read), (unsigned)bad,
			    (unsigned long long)r->lineno);
	rec->len += (uint64_t)n;
	if (rec->len > INT32_MAX)
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
			    REC_FMT " is longer than %d residues, the limit",
			    REC_ARGS(r->text + rec->name, r->n_read), INT32_MAX);
	return 0;
}

/* One quality line: printable phred+33 characters only. */
static int add_qual_line(nw_reader_t *r, nw_rec_t *rec, uint64_t *qlen, char *err,
			 size_t errlen)
{
	char namebuf[96], bb[8];
	int bad = 0;
	int64_t n = append_clean(r, &bad);
	const unsigned char *q;
	uint64_t i, x, top = 0;

	if (n == NW_ERR_MEMORY)
		return nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory reading " REC_FMT,
			    REC_ARGS(r->text + rec->name, r->n_read));
	if (n < 0)
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
			    REC_FMT ": binary data (byte \\x%02X) in the quality at line %llu",
			    REC_ARGS(r->text + rec->name, r->n_read), (unsigned)bad,
			    (unsigned long long)r->lineno);
	/* append_clean keeps the bytes above 127 (in a sequence they are reported by encode,
	 * with their position); in a quality they are an error. Their top bit is set: look
	 * for one eight bytes a step before finding it. */
	q = (const unsigned char *)r->text + r->text_len - (uint64_t)n;
	for (i = 0; i + 8 <= (uint64_t)n; i += 8) {
		memcpy(&x, q + i, 8);
		top |= x;
	}
	for (; i < (uint64_t)n; i++)
		top |= q[i];
	if (top & 0x8080808080808080ull)
		for (i = 0; i < (uint64_t)n; i++)
			if (q[i] > '~')
				return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
					    REC_FMT ": invalid quality character '%s' at line %llu",
					    REC_ARGS(r->text + rec->name, r->n_read),
					    nw_show_byte(q[i], bb), (unsigned long long)r->lineno);
	*qlen += (uint64_t)n;
	return 0;
}

/* FASTA body: sequence lines up to the next '>' header (kept for the next record) or
 * the end of input. */
static int read_fasta_body(nw_reader_t *r, nw_rec_t *rec, char *err, size_t errlen)
{
	int ret;

	while ((ret = next_line(r, err, errlen)) > 0) {
		if (r->ln_len > 0 && r->ln[0] == '>') {
			r->have_hdr = 1; /* kept as the current line for read_record */
			return 0;
		}
		if ((ret = add_seq_line(r, rec, err, errlen)) < 0)
			return ret;
	}
	return ret;
}

/* FASTQ body: sequence line(s), '+' line, quality. A one-line sequence takes exactly one
 * quality line; a multi-line sequence takes quality lines until they are as long (a
 * quality line may start with '@', so lengths, not markers, end it). */
static int read_fastq_body(nw_reader_t *r, nw_rec_t *rec, char *err, size_t errlen)
{
	char namebuf[96];
	int ret, seq_lines = 0, at_eof = 0;
	uint64_t qlen = 0;

	for (;;) {
		uint64_t before = rec->len;
		if ((ret = next_line(r, err, errlen)) < 0)
			return ret;
		if (ret == 0)
			return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
				    REC_FMT ": truncated FASTQ (end of input before the '+' line)",
				    REC_ARGS(r->text + rec->name, r->n_read));
		if (r->ln_len > 0 && r->ln[0] == '+')
			break;
		if (r->ln_len > 0 && (r->ln[0] == '@' || r->ln[0] == '>'))
			return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
				    REC_FMT ": truncated FASTQ (missing '+' line before line %llu)",
				    REC_ARGS(r->text + rec->name, r->n_read),
				    (unsigned long long)r->lineno);
		if ((ret = add_seq_line(r, rec, err, errlen)) < 0)
			return ret;
		seq_lines += rec->len > before;
	}
	if (rec->len == 0)
		return 0; /* the caller reports the empty sequence */
	rec->qual = r->text_len;
	rec->has_qual = 1;
	do {
		if ((ret = next_line(r, err, errlen)) < 0)
			return ret;
		if (ret == 0) {
			at_eof = 1;
			break;
		}
		if ((ret = add_qual_line(r, rec, &qlen, err, errlen)) < 0)
			return ret;
	} while (seq_lines > 1 && qlen < rec->len);
	if (at_eof && qlen == 0)
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
			    REC_FMT ": truncated FASTQ (end of input before the quality line)",
			    REC_ARGS(r->text + rec->name, r->n_read));
	if (qlen != rec->len)
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
			    REC_FMT ": %squality length %llu differs from sequence length %llu",
			    REC_ARGS(r->text + rec->name, r->n_read),
			    qlen < rec->len ? "truncated FASTQ: " : "", (unsigned long long)qlen,
			    (unsigned long long)rec->len);
	if (grow_text(r, 1) < 0)
		return nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory");
	r->text[r->text_len++] = '\0';
	return 0;
}

/* Parse one record into the pending arrays: 1, 0 at end of input, or a negative code. */
static int read_record(nw_reader_t *r, char *err, size_t errlen)
{
	char namebuf[96], bb[8];
	uint64_t hdr_line, i, name_start, name_end;
	nw_rec_t rec;
	const char *s;
	int ret, fastq;

	/* A FASTA header read ahead is the current line already (buf is untouched until
	 * the next next_line). */
	if (!r->have_hdr) {
		do { /* blank lines between records are allowed */
			if ((ret = next_line(r, err, errlen)) <= 0)
				return ret;
		} while (is_blank(r->ln, r->ln_len));
	}
	r->have_hdr = 0;
	hdr_line = r->lineno;
	s = r->ln;
	if (s[0] != '>' && s[0] != '@') {
		if (r->n_read == 0)
			return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
				    "not FASTA or FASTQ (line %llu starts with '%s')",
				    (unsigned long long)hdr_line, nw_show_byte(s[0], bb));
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
			    "record #%lld: expected a '>' or '@' header at line %llu, found '%s'",
			    (long long)r->n_read + 1, (unsigned long long)hdr_line,
			    nw_show_byte(s[0], bb));
	}
	fastq = s[0] == '@';
	for (i = 1; i < r->ln_len; i++) {
		uint64_t x;
		/* eight bytes at a time while none is a control byte; those one by one */
		while (i + 8 <= r->ln_len && (memcpy(&x, s + i, 8), !has_control8(x)))
			i += 8;
		if (i >= r->ln_len)
			break;
		unsigned char c = (unsigned char)s[i];
		if (c == '\r') /* next_line drops a \r before \n: this one ends a line alone */
			return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
				    "record #%lld: line %llu holds a carriage return: lines that end "
				    "in \\r alone (classic Mac) are not read; convert them first, for "
				    "example with tr '\\r' '\\n'",
				    (long long)r->n_read + 1, (unsigned long long)hdr_line);
		if ((c < ' ' && c != '\t') || c == 127)
			return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen,
				    "record #%lld: binary data (byte \\x%02X) in the header at line "
				    "%llu, not FASTA or FASTQ",
				    (long long)r->n_read + 1, (unsigned)c, (unsigned long long)hdr_line);
	}
	/* The name is the first word after the '>' or '@' and any blanks before it
	 * ("> NAME description", as EMBOSS, BLAST and Biopython read it). */
	for (name_start = 1; name_start < r->ln_len && (s[name_start] == ' ' || s[name_start] == '\t');)
		name_start++;
	for (name_end = name_start; name_end < r->ln_len && !is_space((unsigned char)s[name_end]);)
		name_end++;
	if (name_end == name_start)
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen, "record #%lld (line %llu) has no name",
			    (long long)r->n_read + 1, (unsigned long long)hdr_line);

	if (r->n_pend == r->m_pend) {
		int64_t m = r->m_pend ? r->m_pend * 2 : 256;
		nw_rec_t *p = realloc(r->pend, (size_t)m * sizeof(*p));
		if (!p)
			return nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory");
		r->pend = p;
		r->m_pend = m;
	}
	if (grow_text(r, name_end - name_start + 1) < 0)
		return nw_reader_fail(r, NW_ERR_MEMORY, err, errlen, "out of memory");
	memset(&rec, 0, sizeof(rec));
	rec.name = r->text_len;
	memcpy(r->text + r->text_len, s + name_start, name_end - name_start);
	r->text_len += name_end - name_start + 1;
	r->text[r->text_len - 1] = '\0';
	rec.seq = r->text_len;
	rec.packed = 1;

	ret = fastq ? read_fastq_body(r, &rec, err, errlen) : read_fasta_body(r, &rec, err, errlen);
	if (ret < 0)
		return ret;
	if (rec.len == 0)
		return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen, REC_FMT " has an empty sequence",
			    REC_ARGS(r->text + rec.name, r->n_read));
	r->pend[r->n_pend++] = rec;
	r->pend_residues += rec.len;
	if (rec.len > r->pend_max_len)
		r->pend_max_len = rec.len;
	r->n_read++;
	return 1;
}

/* ---------------------------------------------------------------- public API */

nw_reader_t *nw_reader_open(const char *path, char *err, size_t errlen)
{
	nw_reader_t *r;
	struct stat st;
	int e;

	if (!path)
		path = "-";
	/* open(2) accepts a directory and fails only at the first read; say it up front. */
	const int have_st = strcmp(path, "-") != 0 && stat(path, &st) == 0;
	if (have_st && S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(EISDIR));
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->path = strdup(path)) || !(r->buf = malloc(NW_BUF_MIN))) {
		if (r)
			free(r->path);
		free(r);
		snprintf(err, errlen, "cannot open '%s': out of memory", path);
		return NULL;
	}
	errno = 0;
	r->buf_cap = NW_BUF_MIN;
	r->fp = bgzf_open(path, "r");
	if (!r->fp) {
		e = errno;
		snprintf(err, errlen, "cannot open '%s': %s", path,
			 e ? strerror(e) : "unknown error");
		free(r->buf);
		free(r->path);
		free(r);
		return NULL;
	}
	/* An uncompressed regular file is read with read(2) straight into the buffer:
	 * through htslib every byte would be copied once more, from its decoded blocks of
	 * 64 KiB. A gzip regular file (not BGZF) is decompressed straight
	 * into the buffer too, when this build can (gunzip.h). BGZF files, stdin and pipes
	 * stay with htslib. */
	r->fd = -1;
	const int gzip = r->fp->is_compressed && r->fp->is_gzip && nw_gunzip_available();
	if ((!r->fp->is_compressed || gzip) && have_st && S_ISREG(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && gzip && !(r->gz = nw_gunzip_open(fd))) {
			close(fd); /* out of memory: htslib reads it */
			fd = -1;
		}
		if (fd >= 0) {
			bgzf_close(r->fp);
			r->fp = NULL;
			r->fd = gzip ? -1 : fd;
		}
	}
	return r;
}

int64_t nw_reader_fill(nw_reader_t *r, int64_t max_records, uint64_t max_residues,
		       char *err, size_t errlen)
{
	int ret;

	if (r->failed) {
		snprintf(err, errlen, "%s", r->errmsg);
		return r->failed;
	}
	/* At least one record; then stop at whichever limit comes first (0 = no limit). */
	while (r->n_pend == 0 ||
	       ((max_records <= 0 || r->n_pend < max_records) &&
		(max_residues == 0 || r->pend_residues < max_residues))) {
		ret = read_record(r, err, errlen);
		if (ret < 0)
			return ret;
		if (ret == 0)
			break;
	}
	if (!r->filled_once) {
		r->filled_once = 1;
		if (r->n_read == 0)
			return nw_reader_fail(r, NW_ERR_FORMAT, err, errlen, "no sequences (empty input)");
	}
	return r->n_pend;
}

uint64_t nw_reader_pending_residues(const nw_reader_t *r)
{
	return r->pend_residues;
}

int nw_reader_at_end(nw_reader_t *r)
{
	for (;;) {
		if (r->have_hdr || r->failed)
			return 0;
		for (size_t k = r->buf_pos; k < r->buf_end; k++)
			if (r->buf[k] != '\n' && r->buf[k] != '\r' && r->buf[k] != ' ' && r->buf[k] != '\t')
				return 0;
		if (r->eof)
			return 1;
		if (refill(r) < 0) /* the next fill meets the error again and reports it */
			return 0;
	}
}

int64_t nw_reader_records_read(const nw_reader_t *r)
{
	return r->n_read;
}

const char *nw_reader_path(const nw_reader_t *r)
{
	return r->path;
}

void nw_reader_close(nw_reader_t *r)
{
	if (!r)
		return;
	if (r->fp)
		bgzf_close(r->fp);
	if (r->fd >= 0)
		close(r->fd);
	nw_gunzip_close(r->gz);
	free(r->buf);
	free(r->pend);
	free(r->text);
	free(r->codes);
	free(r->path);
	free(r);
}
