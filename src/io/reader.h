/* reader.h: the FASTA/FASTQ reader's state, shared by its two steps: parsing (seqio.c)
 * and encoding (encode.c). Not part of the public interface (nwalign.h). */
#ifndef NW_READER_H
#define NW_READER_H

#include <htslib/bgzf.h>

#include "gunzip.h"
#include "nwalign.h"

/* One pending record: offsets into the arena. The name and the qualities are
 * NUL-terminated there; the sequence is not. A sequence of A, C, G and T only (either
 * case, the usual DNA) is kept as 2-bit text (nw_pack2_text): a quarter of the bytes to
 * write in fill and to read back in encode, and packing the batch is then a copy. Any
 * other character turns the record back into plain text (unpack_record). */
typedef struct {
	uint64_t name, seq, qual;
	uint64_t len;
	int has_qual;
	int packed;            /* the sequence is 2-bit text */
} nw_rec_t;

struct nw_reader_s {
	BGZF *fp;              /* compressed input, and stdin */
	int fd;                /* an uncompressed regular file, read directly (-1: fp) */
	nw_gunzip_t *gz;       /* a gzip regular file (not BGZF), decompressed here (gunzip.h) */
	char *path;
	char *buf;             /* decoded input read ahead: [buf_pos, buf_end) is not parsed yet */
	size_t buf_pos, buf_end, buf_cap;
	const char *ln;        /* the current line, in buf: no \n, trailing \r removed */
	size_t ln_len;
	int have_hdr;          /* the current line is a FASTA header read ahead: it ended the
				* previous record and starts the next one */
	int eof;               /* the input is used up (buf may still hold lines) */
	int filled_once;
	int failed;            /* 0, or the code every later call returns */
	char errmsg[512];
	uint64_t lineno;       /* lines read so far */
	int64_t n_read;        /* records parsed so far (pending ones included) */
	nw_rec_t *pend;        /* the pending records */
	int64_t n_pend, m_pend;
	uint64_t pend_residues, pend_max_len;
	char *text;            /* arena: names, sequences and qualities of pending records */
	uint64_t text_len, text_cap;
	uint8_t *codes;        /* encoding scratch, one record long */
	uint64_t codes_cap;
	int threads;           /* encode's threads (nw_reader_set_threads) */
};

/* Record an error: "'FILE': <message>", kept for later calls (r->failed) and copied to
 * err. Returns code. */
int nw_reader_fail(nw_reader_t *r, int code, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* A byte as it appears in a message: itself when printable, \xHH otherwise. */
const char *nw_show_byte(int c, char buf[8]);
/* A record name for messages: non-ASCII bytes as \xHH and cut short, so that one bad
 * header can neither flood nor garble the terminal. */
const char *nw_show_name(const char *name, char buf[96]);

/* "record 'NAME' (#N)" of the record being parsed or encoded (namebuf: char[96]). */
#define REC_FMT "record '%s' (#%lld)"
#define REC_ARGS(name, idx) nw_show_name(name, namebuf), (long long)(idx) + 1

#endif
