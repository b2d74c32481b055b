/* writer_impl.h: what writer.c (open, close, dispatch, stream helpers) shares with the
 * per-format files write_tsv.c, write_paf.c and write_sam.c. Not part of any interface
 * outside src/io/. */
#ifndef NW_IO_WRITER_IMPL_H
#define NW_IO_WRITER_IMPL_H

#include <string.h>

#include <htslib/sam.h>

#include "stats.h"
#include "writer.h"

/* Text assembled in memory before it is written: len bytes used of cap. */
typedef struct {
	char *p;
	size_t len, cap;
} nw_text_t;

struct nw_writer_s {
	nw_format_t format;
	nw_pairing_t pairing;
	int cigar;                 /* TSV: print matches, alnlen, cigar columns */
	char *name;                /* the output as messages name it: a path or "stdout" */

	/* TSV and PAF: a stdio stream with a large buffer; a batch's lines are formatted
	 * into texts, a slice of the batch each, on up to `threads` threads */
	FILE *fp;
	char *fbuf;
	int threads;
	nw_text_t *texts;          /* threads of them, reused from batch to batch */

	/* SAM: htslib owns the stream */
	htsFile *hts;
	sam_hdr_t *hdr;
	bam1_t *rec;
	int64_t n_refs;
	uint8_t *codes;            /* the query as codes */
	char *seq, *qual;          /* SEQ as bases, QUAL without the +33 */
	size_t codes_cap, seq_cap, qual_cap;
	char dna_tab[NW_MAX_CODES]; /* code -> base, filled once from nw_decode_code */
	int dna_tab_ready;
	uint32_t *cig;             /* clip + path + clip */
	size_t cig_cap;

	/* blast6: the scoring's statistics and the database's residues (0: each pair alone) */
	nw_ka_t ka;
	double db_residues;

	int failed;                /* a write already failed: close reports it again */
	char errmsg[256];
};

/* Record a failed write (errnum = errno of the failure, 0 when unknown) in w and err;
 * returns NW_ERR_IO. Only the first failure is kept: later ones are its consequences. */
int nw_wr_io_error(nw_writer_t *w, int errnum, char *err, size_t errlen);
/* Any error other than a failed write (bad input to the writer): NW_ERR_INTERNAL or the
 * given code, with a message. */
int nw_wr_fail(int code, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Grow a buffer of elem-sized items to at least need; 0 or NW_ERR_MEMORY. */
int nw_wr_grow(void **buf, size_t *cap, size_t need, size_t elem);

/* Room for need more bytes at the end of t; 0 or NW_ERR_MEMORY. */
static inline int nw_text_room(nw_text_t *t, size_t need)
{
	return nw_wr_grow((void **)&t->p, &t->cap, t->len + need, 1);
}

/* Decimal text of v at p (no NUL); returns the number of characters (at most 20). */
int nw_wr_i64(char *p, int64_t v);

/* Append a text field and its tab at p; returns the position after the tab. */
static inline char *nw_wr_field_str(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	p[n] = '\t';
	return p + n + 1;
}

/* Append a decimal field and its tab at p; returns the position after the tab. */
static inline char *nw_wr_field_int(char *p, int64_t v)
{
	p += nw_wr_i64(p, v);
	*p = '\t';
	return p + 1;
}

/* Write n bytes to w->fp, checked. */
int nw_wr_put(nw_writer_t *w, const char *s, size_t n, char *err, size_t errlen);

/* Per-format entry points, dispatched from writer.c. */
int nw_tsv_header(nw_writer_t *w, char *err, size_t errlen);
/* TSV and PAF: the lines of n pairs appended to t. They read w's options only, so that
 * slices of a batch can be formatted on several threads at once. */
typedef int (*nw_wr_format_fn)(const nw_writer_t *w, nw_text_t *t, const nw_batch_t *qb,
			       const nw_batch_t *rb, const nw_pair_t *pairs,
			       const nw_result_t *res, int64_t n, char *err, size_t errlen);
int nw_tsv_format(const nw_writer_t *w, nw_text_t *t, const nw_batch_t *qb,
		  const nw_batch_t *rb, const nw_pair_t *pairs, const nw_result_t *res, int64_t n,
		  char *err, size_t errlen);
int nw_paf_format(const nw_writer_t *w, nw_text_t *t, const nw_batch_t *qb,
		  const nw_batch_t *rb, const nw_pair_t *pairs, const nw_result_t *res, int64_t n,
		  char *err, size_t errlen);
int nw_blast6_format(const nw_writer_t *w, nw_text_t *t, const nw_batch_t *qb,
		     const nw_batch_t *rb, const nw_pair_t *pairs, const nw_result_t *res,
		     int64_t n, char *err, size_t errlen);
int nw_sam_open(nw_writer_t *w, const char *path, const nw_opt_t *opt,
		const nw_ref_list_t *refs, char *err, size_t errlen);
int nw_sam_write(nw_writer_t *w, const nw_batch_t *qb, const nw_batch_t *rb,
		 const nw_pair_t *pairs, const nw_result_t *res, int64_t n, char *err,
		 size_t errlen);
int nw_sam_close(nw_writer_t *w, char *err, size_t errlen);

#endif
