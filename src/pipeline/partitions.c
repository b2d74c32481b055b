/* partitions.c: --top against references larger than memory (see pipeline.h).
 *
 * When the references of all vs all need more memory than --max-memory allows and --top N
 * keeps a few of them per query, they are read in partitions of the residues allowed, one
 * after the other, and each query set is aligned against every partition in turn. Each
 * chunk's kept results (align_stage.c ranks a query's pairs of the partition) are merged
 * into the query's running top N by the one ranking rule (nw_ranks_before: score, then
 * the reference's index in the file), so the records are those of a run with every
 * reference in memory, byte for byte. The records of the references kept are copied aside
 * (names, lengths and residues are what the output reads), and the query set is written
 * once the last partition is done. A second query set reads the reference file again
 * from its start. A database made by nwalign index is read the same way, a range of
 * records at a time (src/io/nwdb.h).
 */
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"
#include "plan.h"

int nw_parts_init(nw_parts_t *pt, nw_reader_t *rr, nw_db_parts_t *db, const char *path,
		  uint64_t cap, int64_t top, int threads)
{
	memset(pt, 0, sizeof *pt);
	pt->threads = threads;
	pt->rr = rr;
	pt->db = db;
	pt->path = path;
	pt->cap = cap;
	pt->top = top;
	pt->n_refs = -1;
	pt->written_as = -1;
	nw_batch_init(&pt->part, NW_ALPHA_AUTO);
	nw_batch_init(&pt->kept, NW_ALPHA_AUTO);
	nw_batch_init(&pt->ahead, NW_ALPHA_AUTO);
	return 0;
}

void nw_parts_stream(nw_parts_t *pt, uint64_t cap_max)
{
	pt->stream = 1;
	pt->cap_max = cap_max > pt->cap ? cap_max : pt->cap;
}

static int ahead_join(nw_parts_t *pt);

void nw_parts_free(nw_parts_t *pt)
{
	ahead_join(pt);
	nw_batch_free(&pt->ahead);
	for (int64_t k = 0; k < pt->cap_q * pt->width; k++)
		nw_result_free(&pt->res[k]);
	free(pt->res);
	free(pt->pairs);
	free(pt->file_r);
	free(pt->count);
	free(pt->kept_of);
	free(pt->m_res);
	free(pt->m_pairs);
	free(pt->m_file);
	nw_batch_free(&pt->part);
	nw_batch_free(&pt->kept);
	nw_reader_close(pt->rr);
	pt->rr = NULL;
	nw_db_parts_close(pt->db);
	pt->db = NULL;
}

/* The next partition of the reference file (or database) into b: 1, or 0 at the end. */
static int read_partition(nw_parts_t *pt, nw_alphabet_t a, nw_batch_t *b, char *err, size_t errlen)
{
	if (pt->db)
		return nw_db_parts_next(pt->db, pt->cap, b, err, errlen);
	int64_t n = nw_reader_fill(pt->rr, INT64_MAX, pt->cap, err, errlen);
	if (n <= 0)
		return (int)n;
	int ret = nw_reader_encode(pt->rr, a, b, err, errlen);
	return ret < 0 ? ret : 1;
}

static void *ahead_main(void *arg)
{
	nw_parts_t *pt = arg;
	pt->ahead_ret = read_partition(pt, pt->ahead_alpha, &pt->ahead, pt->ahead_err,
				       sizeof pt->ahead_err);
	return NULL;
}

/* Streamed: the next partition starts reading on a thread of its own (if none can start,
 * next_partition reads it). It alone uses the reader while it runs. */
static void ahead_start(nw_parts_t *pt, nw_alphabet_t a)
{
	if (!pt->stream || pt->ahead_running)
		return;
	pt->cap = pt->cap * NW_STREAM_GROWTH < pt->cap_max ? pt->cap * NW_STREAM_GROWTH : pt->cap_max;
	pt->ahead_alpha = a;
	pt->ahead_running = pthread_create(&pt->ahead_tid, NULL, ahead_main, pt) == 0;
}

/* The read started by ahead_start, finished: 1 (its result in ahead_ret), or 0 when none
 * ran. */
static int ahead_join(nw_parts_t *pt)
{
	if (!pt->ahead_running)
		return 0;
	pthread_join(pt->ahead_tid, NULL);
	pt->ahead_running = 0;
	return 1;
}

/* The next partition into pt->part: 1, or 0 at the end of the file. Streamed, the one read
 * ahead, swapped in (the partition before stays in ahead, whose buffers the next read
 * reuses); otherwise read in place of the one before, so that one partition is held. */
static int next_partition(nw_parts_t *pt, nw_alphabet_t a, char *err, size_t errlen)
{
	int ret;
	if (!pt->stream) {
		const int64_t before = pt->part.n;
		ret = read_partition(pt, a, &pt->part, err, errlen);
		if (ret == 1)
			pt->base += before;
		return ret;
	}
	if (ahead_join(pt)) {
		ret = pt->ahead_ret;
		if (ret < 0)
			snprintf(err, errlen, "%s", pt->ahead_err);
	} else {
		ret = read_partition(pt, a, &pt->ahead, err, errlen);
	}
	if (ret != 1)
		return ret;
	pt->base += pt->part.n;
	const nw_batch_t b = pt->part;
	pt->part = pt->ahead;
	pt->ahead = b;
	return 1;
}

/* A new pass over the reference file for the next query set: the file opened again and its
 * first partition read. */
static int restart(nw_parts_t *pt, nw_alphabet_t a, char *err, size_t errlen)
{
	ahead_join(pt); /* (the last one read found the end) */
	if (pt->db) {
		nw_db_parts_rewind(pt->db);
	} else if (strcmp(pt->path, "-") == 0) {
		snprintf(err, errlen, "the references on standard input need more memory than "
				      "--max-memory allows, and the queries come in more than one batch, "
				      "each of which reads the references again: give the references "
				      "as a file, or a larger --batch-size");
		return NW_ERR_USAGE;
	} else {
		nw_reader_close(pt->rr);
		if (!(pt->rr = nw_reader_open(pt->path, err, errlen)))
			return NW_ERR_IO;
		nw_reader_set_threads(pt->rr, pt->threads);
	}
	pt->base = 0;
	pt->part.n = 0; /* next_partition adds the previous partition's count to base */
	int ret = next_partition(pt, a, err, errlen);
	if (ret == 0) {
		snprintf(err, errlen, "'%s' has no sequences on a second reading", pt->path);
		return NW_ERR_FORMAT;
	}
	return ret < 0 ? ret : 0;
}

/* Room in every query's top for refs references (at most --top): the tops' stride grows
 * with the references seen, so that a --top beyond the file's references costs nothing.
 * Each query's results move to its wider row, last query first. */
static int widen(nw_parts_t *pt, int64_t refs)
{
	const int64_t w = refs < pt->top ? refs : pt->top, old = pt->width;
	if (w <= old)
		return 0;
	if (pt->cap_q > 0) {
		const size_t n = (size_t)(pt->cap_q * w);
		nw_result_t *res = realloc(pt->res, n * sizeof *res);
		if (res)
			pt->res = res;
		nw_pair_t *pairs = realloc(pt->pairs, n * sizeof *pairs);
		if (pairs)
			pt->pairs = pairs;
		int64_t *file_r = realloc(pt->file_r, n * sizeof *file_r);
		if (file_r)
			pt->file_r = file_r;
		if (!res || !pairs || !file_r) /* the arrays that grew still hold the old rows */
			return NW_ERR_MEMORY;
		for (int64_t q = pt->cap_q - 1; q >= 0; q--) {
			memmove(pt->res + q * w, pt->res + q * old, (size_t)old * sizeof *pt->res);
			memset(pt->res + q * w + old, 0, (size_t)(w - old) * sizeof *pt->res);
			memmove(pt->pairs + q * w, pt->pairs + q * old, (size_t)old * sizeof *pt->pairs);
			memmove(pt->file_r + q * w, pt->file_r + q * old, (size_t)old * sizeof *pt->file_r);
		}
	}
	nw_result_t *m_res = realloc(pt->m_res, (size_t)w * sizeof *m_res);
	if (m_res)
		pt->m_res = m_res;
	nw_pair_t *m_pairs = realloc(pt->m_pairs, (size_t)w * sizeof *m_pairs);
	if (m_pairs)
		pt->m_pairs = m_pairs;
	int64_t *m_file = realloc(pt->m_file, (size_t)w * sizeof *m_file);
	if (m_file)
		pt->m_file = m_file;
	if (!m_res || !m_pairs || !m_file)
		return NW_ERR_MEMORY;
	pt->width = w;
	return 0;
}

/* Room for a query set of n_q queries, every query's top empty. The set before must be
 * written: its records are in these arrays. */
static int begin_set(run_t *run, nw_parts_t *pt, int64_t n_q, char *err, size_t errlen)
{
	double t = nw_pl_now();
	int ret = nw_wstage_wait(run->wstage, pt->written_as, err, errlen);
	run->stage_s[STAGE_WRITE] += nw_pl_now() - t;
	if (ret < 0)
		return ret;
	pt->written_as = -1;
	for (int64_t k = 0; k < pt->cap_q * pt->width; k++)
		nw_result_free(&pt->res[k]);
	if ((ret = widen(pt, pt->n_refs >= 0 ? pt->n_refs : pt->base + pt->part.n)) < 0) {
		snprintf(err, errlen, "out of memory for the top %lld of %lld queries",
			 (long long)pt->top, (long long)n_q);
		return ret;
	}
	const int64_t w = pt->width;
	if (n_q > pt->cap_q) {
		free(pt->res);
		free(pt->pairs);
		free(pt->file_r);
		free(pt->count);
		pt->res = calloc((size_t)(n_q * w) + 1, sizeof *pt->res);
		pt->pairs = malloc(((size_t)(n_q * w) + 1) * sizeof *pt->pairs);
		pt->file_r = malloc(((size_t)(n_q * w) + 1) * sizeof *pt->file_r);
		pt->count = malloc((size_t)n_q * sizeof *pt->count);
		pt->cap_q = n_q;
		if (!pt->res || !pt->pairs || !pt->file_r || !pt->count) {
			pt->cap_q = 0;
			snprintf(err, errlen, "out of memory for the top %lld of %lld queries",
				 (long long)pt->top, (long long)n_q);
			return NW_ERR_MEMORY;
		}
	}
	memset(pt->count, 0, (size_t)n_q * sizeof *pt->count);
	pt->n_q = n_q;
	nw_batch_clear(&pt->kept);
	pt->kept.alphabet = pt->part.alphabet; /* packed as the partitions are */
	return 0;
}

/* The index in pt->kept of the partition's reference r, copied there on its first use. */
static int64_t kept_index(nw_parts_t *pt, uint32_t r)
{
	if (pt->kept_of[r] >= 0)
		return pt->kept_of[r];
	if (pt->kept.n >= INT32_MAX || nw_batch_copy_seq(&pt->kept, &pt->part, r) < 0)
		return NW_ERR_MEMORY;
	return pt->kept_of[r] = (int32_t)(pt->kept.n - 1);
}

/* Merge the new results of query q (nn of them, best first, references of the current
 * partition) into its running top. The results taken leave their CIGAR buffers to the top;
 * those pushed out of it free theirs. */
static int merge_query(nw_parts_t *pt, uint32_t q, const nw_pair_t *np, nw_result_t *nr, int64_t nn)
{
	const int64_t top = pt->top, c = pt->count[q], w = pt->width;
	nw_result_t *a = pt->res + q * w, *merged = pt->m_res;
	nw_pair_t *ap = pt->pairs + q * w, *mp = pt->m_pairs;
	int64_t *af = pt->file_r + q * w, *mf = pt->m_file;
	const int64_t m = c + nn < top ? c + nn : top; /* <= w: the references seen so far */
	int64_t i = 0, j = 0;
	for (int64_t k = 0; k < m; k++) {
		if (i < c && (j == nn || nw_ranks_before(a[i].score, af[i], nr[j].score,
							 pt->base + np[j].r))) {
			merged[k] = a[i], mp[k] = ap[i], mf[k] = af[i];
			i++;
			continue;
		}
		int64_t r = kept_index(pt, np[j].r);
		if (r < 0)
			return (int)r;
		merged[k] = nr[j];
		mp[k].q = q, mp[k].r = (uint32_t)r;
		mf[k] = pt->base + np[j].r;
		nr[j].cigar = NULL, nr[j].n_cigar = nr[j].m_cigar = 0; /* the buffer is the top's now */
		nr[j].cigar_lent = 0;
		j++;
	}
	for (; i < c; i++) /* pushed out */
		nw_result_free(&a[i]);
	memcpy(a, merged, (size_t)m * sizeof *a);
	memcpy(ap, mp, (size_t)m * sizeof *ap);
	memcpy(af, mf, (size_t)m * sizeof *af);
	pt->count[q] = m;
	return 0;
}

/* Every query's kept results of one chunk (grouped by query, best first) into the tops. */
static int merge_chunk(nw_parts_t *pt, const nw_pair_t *pairs, nw_result_t *res, int64_t n)
{
	for (int64_t k = 0; k < n;) {
		int64_t e = k + 1;
		while (e < n && pairs[e].q == pairs[k].q)
			e++;
		int ret = merge_query(pt, pairs[k].q, pairs + k, res + k, e - k);
		if (ret < 0)
			return ret;
		k = e;
	}
	return 0;
}

/* Drop the kept references that no top holds any more (pushed out by later partitions)
 * once they are more than those held: each copy of the held ones halves the records. */
static int compact_kept(nw_parts_t *pt)
{
	int64_t held = 0;
	for (int64_t q = 0; q < pt->n_q; q++)
		held += pt->count[q];
	if (pt->kept.n <= 2 * held)
		return 0;
	pt->compactions++;
	nw_batch_t old = pt->kept;
	int32_t *map = malloc((size_t)old.n * sizeof *map);
	if (!map)
		return NW_ERR_MEMORY;
	memset(map, 0xff, (size_t)old.n * sizeof *map);
	nw_batch_init(&pt->kept, old.alphabet);
	int ret = 0;
	for (int64_t q = 0; q < pt->n_q && ret == 0; q++)
		for (int64_t k = 0; k < pt->count[q] && ret == 0; k++) {
			nw_pair_t *p = &pt->pairs[q * pt->width + k];
			if (map[p->r] < 0) {
				ret = nw_batch_copy_seq(&pt->kept, &old, p->r);
				map[p->r] = (int32_t)(pt->kept.n - 1);
			}
			p->r = (uint32_t)map[p->r];
		}
	free(map);
	nw_batch_free(&old);
	return ret;
}

/* The query set's records, by query and rank, moved together at the front of the arrays,
 * to the write stage. */
static int submit_set(run_t *run, nw_parts_t *pt, const nw_batch_set_t *s, char *err,
		      size_t errlen)
{
	int64_t n = 0;
	for (int64_t q = 0; q < pt->n_q; q++)
		for (int64_t k = 0; k < pt->count[q]; k++, n++) {
			const int64_t from = q * pt->width + k;
			if (from == n)
				continue;
			pt->res[n] = pt->res[from];
			pt->pairs[n] = pt->pairs[from];
			memset(&pt->res[from], 0, sizeof pt->res[from]);
		}
	double t = nw_pl_now();
	int64_t id = nw_wstage_submit(run->wstage, &s->q, &s->q_rc, &pt->kept, pt->pairs, pt->res, n,
				      err, errlen);
	if (id < 0)
		return (int)id;
	pt->written_as = id;
	run->n_records += n;
	run->stage_s[STAGE_WRITE] += nw_pl_now() - t;
	return 0;
}

/* One query set against every partition of the reference file, its records left in the
 * tops. */
static int align_set(run_t *run, nw_parts_t *pt, const nw_batch_set_t *s, char *err,
		     size_t errlen)
{
	int ret = 0;
	const uint32_t n_q = (uint32_t)s->q.n;
	double residues = 0;
	for (;;) {
		const nw_batch_t *rb = &pt->part;
		if ((ret = widen(pt, pt->base + rb->n)) < 0)
			goto oom;
		int32_t *kept_of = realloc(pt->kept_of, (size_t)rb->n * sizeof *kept_of);
		if (kept_of)
			pt->kept_of = kept_of;
		if (!kept_of) {
			snprintf(err, errlen, "out of memory for a partition of the references");
			return NW_ERR_MEMORY;
		}
		memset(pt->kept_of, 0xff, (size_t)rb->n * sizeof *pt->kept_of);
		ahead_start(pt, run->alphabet);
		const int64_t per_q = pt->top < rb->n ? pt->top : rb->n;
		for (uint32_t q0 = 0; q0 < n_q;) {
			if (nw_stop_requested())
				return NW_ERR_INTERRUPTED;
			uint32_t span = nw_plan_all_span(q0, n_q, (uint32_t)rb->n, nw_chunk_pairs(run, rb->n));
			const int64_t n = (int64_t)span * rb->n;
			nw_pair_t *pairs;
			nw_result_t *res;
			int64_t n_res;
			if ((ret = nw_next_chunk(run, q0, q0 + span, 0, n, (int64_t)span * per_q, err,
						 errlen)) < 0)
				return ret;
			if ((ret = nw_chunk_results(run, s, rb, n, &pairs, &res, &n_res, err, errlen)) < 0)
				return ret;
			if ((ret = merge_chunk(pt, pairs, res, n_res)) < 0)
				goto oom;
			nw_progress(run, 0);
			q0 += span;
		}
		if (pt->n_refs < 0) /* the first pass counts the database's residues */
			residues += (double)rb->total_residues;
		pt->parts_read++;
		if ((ret = compact_kept(pt)) < 0)
			goto oom;
		double t = nw_pl_now();
		ret = next_partition(pt, run->alphabet, err, errlen);
		run->stage_s[STAGE_READ] += nw_pl_now() - t;
		if (ret < 0)
			return ret;
		if (ret == 0)
			break;
	}
	if (pt->n_refs < 0) { /* the first pass: the whole file is known now */
		pt->n_refs = pt->base + pt->part.n;
		run->db_residues = residues;
		if (run->opt->format == NW_FMT_BLAST6)
			nw_writer_set_stats(run->writer, &run->ka, run->db_residues);
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory keeping the top %lld of %u queries",
		 (long long)pt->top, n_q);
	return NW_ERR_MEMORY;
}

int nw_run_partitioned(run_t *run, nw_feeder_t *fd, nw_parts_t *pt, int64_t nq, char *err,
		       size_t errlen)
{
	int ret = 0;
	double t = nw_pl_now();
	nw_batch_set_t *s = nw_feeder_first(fd, nq, err, errlen), *next;
	run->stage_s[STAGE_READ] += nw_pl_now() - t;
	for (; s && s->q.n > 0; s = next) {
		if ((ret = begin_set(run, pt, s->q.n, err, errlen)) < 0 ||
		    (ret = align_set(run, pt, s, err, errlen)) < 0)
			return ret;
		/* the next set is known before this one is written, so that references on stdin,
		 * which cannot be read twice, fail before any output */
		t = nw_pl_now();
		next = nw_feeder_next(fd, err, errlen);
		run->stage_s[STAGE_READ] += nw_pl_now() - t;
		if (!next)
			return fd->ret; /* the feeder failed, its message is in err */
		if (next->q.n > 0 && (ret = restart(pt, run->alphabet, err, errlen)) < 0)
			return ret;
		if ((ret = submit_set(run, pt, s, err, errlen)) < 0)
			return ret;
	}
	if (!s)
		return fd->ret;
	/* the last set is written before the arrays it reads are freed */
	t = nw_pl_now();
	ret = nw_wstage_wait(run->wstage, pt->written_as, err, errlen);
	run->stage_s[STAGE_WRITE] += nw_pl_now() - t;
	return ret;
}
