/* writer.c: output writers, the shared part: open the output (stdout or -o FILE), dispatch
 * by format, checked writes, close. The formats live in write_tsv.c, write_paf.c and
 * write_sam.c.
 *
 * TSV and PAF lines are formatted into memory, slices of a batch on several threads at
 * once (--threads), and written in input order with one fwrite a slice.
 *
 * Every write is checked and the first failure is kept, so that nw_writer_close reports
 * it even when the caller ignored the return of nw_writer_write. SIGPIPE keeps its
 * default action: `nwalign ... | head` ends quietly when head exits.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writer_impl.h"
#include "team.h"

/* TSV and PAF lines are small: a large stdio buffer makes one write(2) per megabyte. */
#define NW_WR_BUFSIZE (1u << 20)

int nw_wr_io_error(nw_writer_t *w, int errnum, char *err, size_t errlen)
{
	if (!w->failed) {
		w->failed = 1;
		if (errnum)
			snprintf(w->errmsg, sizeof(w->errmsg), "write error on '%s': %s",
				 w->name, strerror(errnum));
		else
			snprintf(w->errmsg, sizeof(w->errmsg), "write error on '%s'", w->name);
	}
	if (err && errlen)
		snprintf(err, errlen, "%s", w->errmsg);
	return NW_ERR_IO;
}

int nw_wr_fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

int nw_wr_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	size_t m;
	void *p;

	if (need <= *cap && *buf)
		return 0;
	m = *cap > 64 ? *cap : 64;
	while (m < need) {
		if (m > SIZE_MAX / 2 / elem)
			return NW_ERR_MEMORY;
		m *= 2;
	}
	if (!(p = realloc(*buf, m * elem)))
		return NW_ERR_MEMORY;
	*buf = p;
	*cap = m;
	return 0;
}

int nw_wr_i64(char *p, int64_t v)
{
	/* Two digits at a time from a table: printf costs more than the rest of a line. */
	static const char d2[] = "00010203040506070809101112131415161718192021222324"
				 "25262728293031323334353637383940414243444546474849"
				 "50515253545556575859606162636465666768697071727374"
				 "75767778798081828384858687888990919293949596979899";
	char tmp[20], *t = tmp + sizeof(tmp);
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int n = 0;

	while (u >= 100) {
		unsigned k = (unsigned)(u % 100) * 2;
		u /= 100;
		*--t = d2[k + 1];
		*--t = d2[k];
	}
	if (u >= 10) {
		*--t = d2[u * 2 + 1];
		*--t = d2[u * 2];
	} else {
		*--t = (char)('0' + u);
	}
	if (v < 0)
		p[n++] = '-';
	memcpy(p + n, t, (size_t)(tmp + sizeof(tmp) - t));
	return n + (int)(tmp + sizeof(tmp) - t);
}

int nw_wr_put(nw_writer_t *w, const char *s, size_t n, char *err, size_t errlen)
{
	if (n && fwrite(s, 1, n, w->fp) != n)
		return nw_wr_io_error(w, errno, err, errlen);
	return 0;
}

static void writer_free(nw_writer_t *w)
{
	if (!w)
		return;
	free(w->fbuf);
	for (int k = 0; w->texts && k < w->threads; k++)
		free(w->texts[k].p);
	free(w->texts);
	free(w->codes);
	free(w->seq);
	free(w->qual);
	free(w->cig);
	free(w->name);
	free(w);
}

/* A stdio stream of our own on a duplicate of fd 1: closing it (which reports delayed
 * write errors) leaves stdout open, and its buffer is ours to free. */
static FILE *open_stdout(void)
{
	int fd = dup(STDOUT_FILENO);
	FILE *fp;

	if (fd < 0)
		return NULL;
	if (!(fp = fdopen(fd, "w"))) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return fp;
}

nw_writer_t *nw_writer_open(const nw_opt_t *opt, const nw_ref_list_t *refs, char *err,
			    size_t errlen)
{
	nw_writer_t *w;
	int to_stdout = !opt->out_path || strcmp(opt->out_path, "-") == 0;

	if (!(w = calloc(1, sizeof(*w)))) {
		nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory opening the output");
		return NULL;
	}
	w->format = opt->format;
	w->pairing = opt->pairing;
	w->cigar = opt->cigar;
	w->threads = opt->threads > 1 ? opt->threads : 1;
	if (!(w->texts = calloc((size_t)w->threads, sizeof(*w->texts)))) {
		nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory opening the output");
		goto fail;
	}
	if (!(w->name = strdup(to_stdout ? "stdout" : opt->out_path))) {
		nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory opening the output");
		goto fail;
	}

	switch (w->format) {
	case NW_FMT_SAM:
		if (nw_sam_open(w, to_stdout ? "-" : opt->out_path, opt, refs, err, errlen) < 0)
			goto fail;
		return w;
	case NW_FMT_TSV:
	case NW_FMT_PAF:
	case NW_FMT_BLAST6:
		break;
	default:
		nw_wr_fail(NW_ERR_INTERNAL, err, errlen, "unknown output format %d",
			   (int)w->format);
		goto fail;
	}

	w->fp = to_stdout ? open_stdout() : fopen(opt->out_path, "w");
	if (!w->fp) {
		nw_wr_fail(NW_ERR_IO, err, errlen, "cannot open '%s' for writing: %s", w->name,
			   strerror(errno));
		goto fail;
	}
	if (!(w->fbuf = malloc(NW_WR_BUFSIZE))) {
		nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory opening the output");
		goto fail;
	}
	if (setvbuf(w->fp, w->fbuf, _IOFBF, NW_WR_BUFSIZE) != 0) {
		/* The stream still works with its default buffer. */
		free(w->fbuf);
		w->fbuf = NULL;
	}
	if (w->format == NW_FMT_TSV && opt->header && nw_tsv_header(w, err, errlen) < 0)
		goto fail;
	return w;

fail:
	if (w->fp)
		fclose(w->fp);  /* the stream must go before its buffer */
	writer_free(w);
	return NULL;
}

/* One slice of a batch, formatted into its own text. */
typedef struct {
	const nw_writer_t *w;
	nw_wr_format_fn format;
	nw_text_t *text;
	const nw_batch_t *qb, *rb;
	const nw_pair_t *pairs;
	const nw_result_t *res;
	int64_t n;
	int ret;
	char err[256];
} slice_t;

static void *format_slice(void *arg)
{
	slice_t *s = arg;
	s->text->len = 0;
	s->ret = s->format(s->w, s->text, s->qb, s->rb, s->pairs, s->res, s->n, s->err,
			   sizeof(s->err));
	return NULL;
}

/* Below this many records a batch is formatted on the calling thread alone. */
#define NW_WR_SLICE_MIN 2048

static int write_lines(nw_writer_t *w, nw_wr_format_fn format, const nw_batch_t *qb,
		       const nw_batch_t *rb, const nw_pair_t *pairs, const nw_result_t *res,
		       int64_t n, char *err, size_t errlen)
{
	slice_t sl[w->threads];
	int64_t k = n / NW_WR_SLICE_MIN;
	const int ns = k < 1 ? 1 : k < w->threads ? (int)k : w->threads;
	int ret = 0;

	for (int s = 0; s < ns; s++) {
		const int64_t a = n * s / ns, b = n * (s + 1) / ns;
		sl[s] = (slice_t){.w = w, .format = format, .text = &w->texts[s], .qb = qb,
				  .rb = rb, .pairs = pairs + a, .res = res + a, .n = b - a};
	}
	nw_team_run(format_slice, sl, sizeof *sl, ns);
	for (int s = 0; s < ns && ret == 0; s++) {
		if (sl[s].ret < 0) {
			snprintf(err, errlen, "%s", sl[s].err);
			ret = sl[s].ret;
		} else {
			ret = nw_wr_put(w, sl[s].text->p, sl[s].text->len, err, errlen);
		}
	}
	return ret;
}

int nw_writer_write(nw_writer_t *w, const nw_batch_t *qb, const nw_batch_t *rb,
		    const nw_pair_t *pairs, const nw_result_t *res, int64_t n, char *err,
		    size_t errlen)
{
	if (w->failed) {
		if (err && errlen)
			snprintf(err, errlen, "%s", w->errmsg);
		return NW_ERR_IO;
	}
	if (n <= 0)
		return 0;
	switch (w->format) {
	case NW_FMT_TSV: return write_lines(w, nw_tsv_format, qb, rb, pairs, res, n, err, errlen);
	case NW_FMT_PAF: return write_lines(w, nw_paf_format, qb, rb, pairs, res, n, err, errlen);
	case NW_FMT_BLAST6: return write_lines(w, nw_blast6_format, qb, rb, pairs, res, n, err, errlen);
	case NW_FMT_SAM: return nw_sam_write(w, qb, rb, pairs, res, n, err, errlen);
	}
	return nw_wr_fail(NW_ERR_INTERNAL, err, errlen, "unknown output format %d",
			  (int)w->format);
}

void nw_writer_set_stats(nw_writer_t *w, const nw_ka_t *ka, double db_residues)
{
	w->ka = *ka;
	w->db_residues = db_residues;
}

int nw_writer_close(nw_writer_t *w, char *err, size_t errlen)
{
	int ret = 0;

	if (!w)
		return 0;
	if (w->format == NW_FMT_SAM) {
		if (nw_sam_close(w, err, errlen) < 0)
			ret = NW_ERR_IO;
	} else if (w->fp) {
		/* Buffered data meets the disk here: a full disk usually shows up now. */
		errno = 0;
		if (fflush(w->fp) != 0 || ferror(w->fp))
			nw_wr_io_error(w, errno, NULL, 0);
		errno = 0;
		if (fclose(w->fp) != 0)
			nw_wr_io_error(w, errno, NULL, 0);
		w->fp = NULL;
	}
	if (w->failed) {
		ret = NW_ERR_IO;
		if (err && errlen)
			snprintf(err, errlen, "%s", w->errmsg);
	}
	writer_free(w);
	return ret;
}
