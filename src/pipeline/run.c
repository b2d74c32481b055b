/* run.c: the run from input files to output records.
 *
 *   readers -> alphabet + scoring -> packed batches -> pair chunks -> engine -> writer
 *
 * All vs all: every reference is read and packed once and held in memory; queries stream
 * in batches of --batch-size records, and each batch is cut into chunks of whole queries
 * (plan.c) so that results stay bounded. References too large for --max-memory are read
 * in partitions with --top (partitions.c), and refused without it; a large reference file
 * with --top and one query set is streamed, its partitions read while the ones before are
 * aligned. Zip: queries and
 * references are read in lockstep, batch by batch. The next batch is read on a thread of
 * its own (feeder.c) while the current one aligns (align_stage.c) and the one before is
 * written (write_stage.c). Results are written in input order whatever the engine.
 * pipeline.h lists the stages' files.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpu_isa.h"
#include "nwdb.h"
#include "pipeline.h"
#include "plan.h"

/* Runs of each CIGAR buffer lent to a chunk's results (nw_cigar_lend): most reads' paths
 * hold fewer; a longer one moves to a buffer of its own. */
#ifndef NW_LENT_RUNS
#define NW_LENT_RUNS 32
#endif

/* Grow *res from old to n results, the new ones zeroed (no CIGAR buffer yet). */
static int grow_results(nw_result_t **res, int64_t old, int64_t n)
{
	nw_result_t *r = realloc(*res, (size_t)n * sizeof *r);
	if (!r)
		return NW_ERR_MEMORY;
	memset(r + old, 0, (size_t)(n - old) * sizeof *r);
	*res = r;
	return 0;
}

static int grow_pairs(nw_pair_t **pairs, int64_t n)
{
	nw_pair_t *p = realloc(*pairs, (size_t)n * sizeof *p);
	if (!p)
		return NW_ERR_MEMORY;
	*pairs = p;
	return 0;
}

static int grow_need(int64_t **need, int64_t n)
{
	int64_t *p = realloc(*need, (size_t)n * sizeof *p);
	if (!p)
		return NW_ERR_MEMORY;
	*need = p;
	return 0;
}

/* Set when a run left its GPU open for the process's end (opt->leave_device). */
static int device_left_open;

int nw_device_left_open(void)
{
	return device_left_open;
}

/* The buffer that owns the pairs and results of chunk buffer c: its own, or under --top
 * bufs[0]'s, which both share (only the kept results are written). */
static chunk_buf_t *owner_of(run_t *run, chunk_buf_t *c)
{
	return run->opt->top > 0 ? &run->bufs[0] : c;
}

/* See pipeline.h: room for n pairs in every per-chunk array the run uses. */
int nw_next_chunk(run_t *run, uint32_t q0, uint32_t q1, int listed, int64_t n, int64_t n_top, char *err,
		  size_t errlen)
{
	chunk_buf_t *c = run->cb = run->cb == &run->bufs[0] ? &run->bufs[1] : &run->bufs[0];
	double t = nw_pl_now();
	int ret = nw_wstage_wait(run->wstage, c->written_as, err, errlen);
	run->stage_s[STAGE_WRITE] += nw_pl_now() - t;
	if (ret < 0)
		return ret;
	c->written_as = -1;
	chunk_buf_t *own = owner_of(run, c);
	const int64_t old = own->cap, old_top = c->top_cap, old_scratch = run->scratch_cap;
	if (n > old && grow_pairs(&own->pairs, n) < 0)
		goto oom;
	if (n > old)
		own->cap = n;
	c->pairs = own->pairs;
	/* --top: a result a pair only where the host ranks them (nw_chunk_res) */
	if (run->opt->top == 0 && nw_chunk_res(run, n, err, errlen) < 0)
		return NW_ERR_MEMORY;
	c->res = own->res;
	if (run->opt->top > 0 && n_top > old_top) {
		if (grow_pairs(&c->top_pairs, n_top) < 0 ||
		    grow_results(&c->top_res, old_top, n_top) < 0)
			goto oom;
		c->top_cap = n_top;
	}
	if (n > old_scratch && run->opt->both_strands &&
	    (grow_results(&run->rc_res, old_scratch, n) < 0 ||
	     grow_results(&run->sub_res, old_scratch, n) < 0 || grow_pairs(&run->sub_pairs, n) < 0 ||
	     grow_need(&run->need, n) < 0))
		goto oom;
	if (n > old_scratch)
		run->scratch_cap = n;
	c->all_q0 = q0, c->all_q1 = q1;
	c->listed = listed;
	return 0;
oom:
	snprintf(err, errlen, "out of memory for %lld pairs", (long long)n);
	return NW_ERR_MEMORY;
}

/* See pipeline.h. */
int nw_chunk_res(run_t *run, int64_t n, char *err, size_t errlen)
{
	chunk_buf_t *own = owner_of(run, run->cb);
	if (n > own->res_cap) {
		if (grow_results(&own->res, own->res_cap, n) < 0)
			goto oom;
		/* the new results' CIGAR buffers in one block: a buffer each, allocated on the
		 * threads that build the paths, grows their memory a page at a time, each
		 * growth a call into the kernel that stalls the others' page faults */
		if (run->params.want_path) {
			uint32_t **lent = realloc(own->lent, (size_t)(own->n_lent + 1) * sizeof *lent);
			if (!lent)
				goto oom;
			own->lent = lent;
			lent[own->n_lent] = nw_cigar_lend(own->res + own->res_cap, n - own->res_cap,
							  NW_LENT_RUNS);
			if (!lent[own->n_lent])
				goto oom;
			own->n_lent++;
		}
		own->res_cap = n;
	}
	run->cb->res = own->res;
	return 0;
oom:
	snprintf(err, errlen, "out of memory for %lld pairs", (long long)n);
	return NW_ERR_MEMORY;
}

/* Wait until the write stage is done with every chunk but the last one. */
static int wait_writes_but_last(run_t *run, char *err, size_t errlen)
{
	const chunk_buf_t *other = run->cb == &run->bufs[0] ? &run->bufs[1] : &run->bufs[0];
	double t = nw_pl_now();
	int ret = nw_wstage_wait(run->wstage, other->written_as, err, errlen);
	run->stage_s[STAGE_WRITE] += nw_pl_now() - t;
	return ret;
}

/* ---------------------------------------------------------------- stopping */

/* Written by a signal handler, read by every thread: a lock-free atomic (safe in both). */
static int stop_signo;

void nw_request_stop(int signo)
{
	__atomic_store_n(&stop_signo, signo ? signo : -1, __ATOMIC_RELAXED);
}

int nw_stop_requested(void)
{
	return __atomic_load_n(&stop_signo, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- the two pairings */

/* Every batch set from the feeder, cut into chunks: whole queries against every
 * reference (all_refs) for all vs all, record i with record i for zip. */
static int run_batches(run_t *run, nw_feeder_t *fd, const nw_batch_t *all_refs, int64_t nq,
		       char *err, size_t errlen)
{
	int ret = 0;
	double t = nw_pl_now();
	nw_batch_set_t *s = nw_feeder_first(fd, nq, err, errlen);
	for (; s && s->q.n > 0; t = nw_pl_now(), s = nw_feeder_next(fd, err, errlen)) {
		run->stage_s[STAGE_READ] += nw_pl_now() - t;
		nw_log_debug("at %.3f s: a set of %lld queries in hand (waited %.3f s for it)",
			     nw_pl_now() - run->t0, (long long)s->q.n, nw_pl_now() - t);
		const nw_batch_t *rb = all_refs ? all_refs : &s->r;
		uint32_t n_q = (uint32_t)s->q.n;
		for (uint32_t q0 = 0; q0 < n_q;) {
			if (nw_stop_requested())
				return NW_ERR_INTERRUPTED;
			uint32_t span = nw_plan_all_span(q0, n_q, all_refs ? (uint32_t)rb->n : 0,
							 nw_chunk_pairs(run, all_refs ? rb->n : 0));
			int64_t n = all_refs ? (int64_t)span * rb->n : span;
			/* --top keeps at most top references of each query (all vs all only) */
			const int64_t per_q = all_refs && run->opt->top > 0 && run->opt->top < rb->n
						      ? run->opt->top : (all_refs ? rb->n : 1);
			if ((ret = nw_next_chunk(run, q0, q0 + span, !all_refs, n, (int64_t)span * per_q, err,
						 errlen)) < 0)
				return ret;
			if (!all_refs)
				nw_plan_zip(q0, q0 + span, run->cb->pairs);
			if ((ret = nw_align_chunk(run, s, rb, n, err, errlen)) < 0)
				return ret;
			q0 += span;
		}
		nw_log_debug("at %.3f s: the set aligned, its records queued for writing",
			     nw_pl_now() - run->t0);
		/* the next read refills the set before this one: its chunks must be written */
		if ((ret = wait_writes_but_last(run, err, errlen)) < 0)
			return ret;
	}
	return s ? 0 : fd->ret; /* NULL: the feeder failed, its message is in err */
}

/* ---------------------------------------------------------------- the references' memory */

/* All vs all holds every reference in memory: about this many bytes a residue (the text
 * read and the packed batch, with room to spare; RELIABILITY.md has the measurement). */
#define NW_REF_BYTES_PER_RESIDUE 3

/* --max-memory, or three quarters of the machine's memory. */
static uint64_t max_memory(const nw_opt_t *opt)
{
	if (opt->max_memory)
		return opt->max_memory;
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 * 3 : (uint64_t)8 << 30;
}

/* "1.5 GiB", "300.0 MiB", "20.0 KiB". */
static void bytes_text(double bytes, char *out, size_t len)
{
	const int gb = bytes >= 1073741824.0, kb = bytes < 1048576.0;
	snprintf(out, len, "%.1f %s", bytes / (gb ? 1073741824.0 : kb ? 1024.0 : 1048576.0),
		 gb ? "GiB" : kb ? "KiB" : "MiB");
}

/* The memory limit as the messages name it. */
static void memory_limit_text(const nw_opt_t *opt, char *out, size_t len)
{
	char b[32];
	bytes_text((double)max_memory(opt), b, sizeof b);
	snprintf(out, len, "%s%s", opt->max_memory ? "--max-memory " : "three quarters of this "
			   "machine's memory, ", b);
}

/* The reference residues all vs all may read. */
static uint64_t ref_residue_cap(const nw_opt_t *opt)
{
	uint64_t cap = max_memory(opt) / NW_REF_BYTES_PER_RESIDUE;
	return cap > 0 ? cap : 1;
}

/* After the references were read up to cap residues: 1 when the file holds more records
 * than that (one more is read to know), 0 when they are all read. */
static int refs_exceed(nw_reader_t *rr, int64_t nr, uint64_t cap, char *err, size_t errlen)
{
	if (nw_reader_pending_residues(rr) < cap)
		return 0;
	int64_t more = nw_reader_fill(rr, nr + 1, 0, err, errlen); /* one more record, if any */
	if (more < 0)
		return (int)more;
	return more > nr;
}

/* The references read on, up to cap residues in all (nr: the records read): 1 when the
 * file holds more (refs_exceed), 0 when they are all read, or an error. */
static int read_refs(nw_reader_t *rr, uint64_t cap, int64_t *nr, char *err, size_t errlen)
{
	if ((*nr = nw_reader_fill(rr, INT64_MAX, cap, err, errlen)) < 0)
		return (int)*nr;
	return refs_exceed(rr, *nr, cap, err, errlen);
}

/* A query set held whole with its tops across the partitions: at most NW_PARTS_KEPT_MAX
 * results, so at most that over top queries. */
static int64_t parts_set_records(int64_t q_batch, int top)
{
	const int64_t most = NW_PARTS_KEPT_MAX / top > 0 ? NW_PARTS_KEPT_MAX / top : 1;
	return q_batch < most ? q_batch : most;
}

/* A --top run against a large reference file starts aligning once its first partition of
 * NW_STREAM_FIRST residues is read, when the queries are one set (partitions.c's streamed
 * partitions): reading a file of NW_STREAM_MIN_BYTES or more takes longer than the GPU
 * takes to open. The first partition's residues, or 0 for a run read whole first. */
#define NW_STREAM_MIN_BYTES ((int64_t)256 << 20)
#define NW_STREAM_FIRST ((uint64_t)16 << 20)
static uint64_t stream_first(const nw_opt_t *opt)
{
	struct stat st;
	if (opt->top <= 0 || opt->format == NW_FMT_SAM)
		return 0;
	const char *e = getenv("NW_STREAM_FIRST"); /* test hook: any file, from these residues */
	if (e && *e)
		return atoll(e) > 0 ? (uint64_t)atoll(e) : 0;
	if (strcmp(opt->ref_path, "-") == 0 || stat(opt->ref_path, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < NW_STREAM_MIN_BYTES)
		return 0;
	return NW_STREAM_FIRST;
}

/* References that do not fit: read in partitions for --top (partitions.c), a clear error
 * otherwise, rather than an allocation failure or the kernel's OOM killer. */
static int refs_too_large(nw_reader_t *rr, const nw_opt_t *opt, char *err, size_t errlen)
{
	char limit[96];
	memory_limit_text(opt, limit, sizeof limit);
	if (opt->top > 0 && opt->format != NW_FMT_SAM)
		return 0;
	if (opt->top > 0) {
		snprintf(err, errlen, "the references in '%s' need more memory than %s allows, so "
				      "they are read in partitions, and -f sam lists every reference in "
				      "its header first: use -f tsv, paf or blast6, or raise --max-memory",
			 nw_reader_path(rr), limit);
		return NW_ERR_USAGE;
	}
	snprintf(err, errlen, "the references in '%s' need more memory than %s allows (--pairs all "
			      "holds every reference, about %d bytes a residue; %lld records of %.3g "
			      "residues read so far): raise --max-memory, use --top N (which reads "
			      "them in partitions), or split the reference file and merge the outputs",
		 nw_reader_path(rr), limit, NW_REF_BYTES_PER_RESIDUE,
		 (long long)nw_reader_records_read(rr), (double)nw_reader_pending_residues(rr));
	return NW_ERR_MEMORY;
}

/* A database's arrays are its file, less the header and the padding: it fits when the
 * file does (0). When it does not: 1 with --top (it is read in partitions), else a clear
 * error. */
static int db_fits(const nw_db_info_t *db, const nw_opt_t *opt, char *err, size_t errlen)
{
	if (db->file_size <= max_memory(opt))
		return 0;
	char limit[96], size[32];
	memory_limit_text(opt, limit, sizeof limit);
	bytes_text((double)db->file_size, size, sizeof size);
	if (opt->top > 0 && opt->format != NW_FMT_SAM)
		return 1;
	if (opt->top > 0)
		snprintf(err, errlen, "the database '%s' (%s) needs more memory than %s allows, so it "
				      "is read in partitions, and -f sam lists every reference in its "
				      "header first: use -f tsv, paf or blast6, or raise --max-memory",
			 opt->ref_path, size, limit);
	else
		snprintf(err, errlen, "the database '%s' (%s) needs more memory than %s allows: raise "
				      "--max-memory, or use --top N (which reads it in partitions)",
			 opt->ref_path, size, limit);
	return opt->top > 0 ? NW_ERR_USAGE : NW_ERR_MEMORY;
}

/* ---------------------------------------------------------------- entry point */

int nw_run(const nw_opt_t *opt, char *err, size_t errlen)
{
	run_t run = {.opt = opt, .chunk_pairs = NW_CHUNK_PAIRS};
	nw_reader_t *qr = NULL, *rr = NULL;
	nw_batch_t rb, sam_refs;
	nw_feeder_t feeder;
	int feeder_ready = 0;
	nw_ref_list_t refs = {0};
	gpu_opener_t opener;
	nw_parts_t parts;
	int parts_ready = 0, partitioned = 0;
	int ret, zip = opt->pairing == NW_PAIRS_ZIP;
	int64_t nq = 0, nr = 0;

	nw_batch_init(&rb, NW_ALPHA_AUTO);
	nw_batch_init(&sam_refs, NW_ALPHA_AUTO);
	run.cb = &run.bufs[0];
	run.bufs[0].written_as = run.bufs[1].written_as = -1;
	run.t0 = nw_pl_now();
	if ((ret = nw_cpu_isa_check_env(err, errlen)) < 0)
		return ret;
	/* a database made by nwalign index: loaded whole, for all vs all */
	const int ref_db = nw_db_is_db(opt->ref_path);
	nw_db_info_t db = {.alphabet = NW_ALPHA_AUTO};
	if (nw_db_is_db(opt->query_path)) {
		snprintf(err, errlen, "'%s' is an nwalign database, which only -r takes (with --pairs "
				      "all); queries are FASTA or FASTQ", opt->query_path);
		return NW_ERR_USAGE;
	}
	if (ref_db && zip) {
		snprintf(err, errlen, "the database '%s' is for --pairs all (with zip pairs, give the "
				      "FASTA file)", opt->ref_path);
		return NW_ERR_USAGE;
	}
	int db_parts = 0; /* a database larger than memory, read in partitions */
	if (ref_db) {
		if ((ret = nw_db_info(opt->ref_path, &db, err, errlen)) < 0 ||
		    (ret = db_fits(&db, opt, err, errlen)) < 0)
			return ret;
		partitioned = db_parts = ret == 1;
	}
	nw_gpu_opener_start(&opener, opt);
	ret = NW_ERR_IO;
	if ((!ref_db && !(rr = nw_reader_open(opt->ref_path, err, errlen))) ||
	    !(qr = nw_reader_open(opt->query_path, err, errlen)))
		goto out;
	/* all vs all: every alignment waits for the references, packed on every thread */
	if (rr && !zip)
		nw_reader_set_threads(rr, opt->threads);
	/* All vs all: the references first, all of them, or the first partition of those too
	 * large for memory (with --top). Then the first query set, and for zip as many
	 * references. */
	/* a database's partitions hold the residues of --max-memory bytes of its file */
	uint64_t ref_cap = ref_residue_cap(opt);
	if (db_parts) {
		const double per = (double)db.file_size / (double)(db.residues ? db.residues : 1);
		ref_cap = (uint64_t)((double)max_memory(opt) / per);
		ref_cap = ref_cap ? ref_cap : 1;
	}
	int64_t q_batch = opt->batch_records;
	/* streamed: the first partition read, and the queries one set (known below) */
	uint64_t stream_cap = rr && !zip ? stream_first(opt) : 0;
	stream_cap = stream_cap < ref_cap ? stream_cap : 0;
	int streamed = 0;
	if (rr && !zip) {
		if ((ret = read_refs(rr, stream_cap ? stream_cap : ref_cap, &nr, err, errlen)) < 0)
			goto out;
		if (stream_cap)
			streamed = ret == 1;
		else
			partitioned = ret == 1;
		if (partitioned && (ret = refs_too_large(rr, opt, err, errlen)) < 0)
			goto out;
		nw_log_debug("at %.3f s: %lld references read%s", nw_pl_now() - run.t0, (long long)nr,
			     partitioned || streamed ? ", the first partition" : "");
	}
	if (partitioned || streamed)
		q_batch = parts_set_records(q_batch, opt->top);
	/* a small first set for the CPU engine (asked for, no CUDA in this build, or while
	 * the GPU opens), but full sets when each set reads the references again */
	int64_t cpu_first = 0;
	if (opt->backend == NW_BACKEND_CPU || !nw_gpu_built())
		cpu_first = NW_FIRST_SET_CPU;
	else if (nw_may_share_while_opening(opt))
		cpu_first = NW_FIRST_SET_OPENING;
	const int64_t first = partitioned || streamed ? q_batch : nw_first_set_records(q_batch, cpu_first);
	if ((nq = nw_reader_fill(qr, first, opt->batch_residues, err, errlen)) < 0 ||
	    (rr && zip && (nr = nw_reader_fill(rr, nq, UINT64_MAX, err, errlen)) < 0)) {
		ret = (int)(nq < 0 ? nq : nr);
		goto out;
	}
	nw_log_debug("at %.3f s: the first %lld queries read", nw_pl_now() - run.t0, (long long)nq);
	if (streamed && !nw_reader_at_end(qr)) {
		/* several query sets, each of which would read the references again: they are
		 * read as without streaming, whole or in partitions of the memory allowed */
		streamed = 0;
		if ((ret = read_refs(rr, ref_cap, &nr, err, errlen)) < 0)
			goto out;
		partitioned = ret == 1;
		q_batch = partitioned ? parts_set_records(opt->batch_records, opt->top) : opt->batch_records;
		nw_log_debug("at %.3f s: %lld references read%s (the queries are several sets)",
			     nw_pl_now() - run.t0, (long long)nr, partitioned ? ", the first partition" : "");
	}
	partitioned |= streamed;
	if ((ret = nw_choose_alphabet(&run, qr, rr, db.alphabet, err, errlen)) < 0 ||
	    (ret = nw_setup_scoring(&run, err, errlen)) < 0)
		goto out;
	if (partitioned) { /* the reader (or database) is the partitions' from here on */
		nw_db_parts_t *dp = NULL;
		if (db_parts && (ret = nw_db_parts_open(opt->ref_path, opt->threads, &dp, err, errlen)) < 0)
			goto out;
		parts_ready = 1;
		ret = nw_parts_init(&parts, rr, dp, opt->ref_path, streamed ? stream_cap : ref_cap, opt->top,
				    opt->threads);
		rr = NULL;
		if (ret < 0) {
			snprintf(err, errlen, "out of memory for --top %d", opt->top);
			goto out;
		}
		if (streamed) /* two partitions at once: each at most half the memory allowed */
			nw_parts_stream(&parts, ref_cap / 2);
	}
	run.params.mode = opt->mode;
	run.params.sc = &run.sc;
	run.params.want_path = nw_opt_wants_path(opt);
	nw_opt_gact(opt, &run.params.tile, &run.params.overlap);
	run.params.gact = opt->gact;
	run.params.max_deficit = opt->max_deficit >= 0 ? opt->max_deficit : NW_GACT_MAX_DEFICIT;
	if (!zip && (ret = db_parts      ? nw_db_parts_next(parts.db, ref_cap, &parts.part, err,
								    errlen)
			   : ref_db      ? nw_db_load(opt->ref_path, &rb, opt->threads, err, errlen)
			   : partitioned ? nw_reader_encode(parts.rr, run.alphabet, &parts.part, err,
							    errlen)
					 : nw_reader_encode(rr, run.alphabet, &rb, err, errlen)) < 0)
		goto out;
	if (!zip)
		nw_log_debug("at %.3f s: the references packed", nw_pl_now() - run.t0);
	/* Whether the first set is the whole input (a small run may then go to the CPU engine
	 * rather than wait for the GPU: nw_setup_backend), asked before the feeder reads on */
	const int whole = opener.started && !partitioned && nw_reader_at_end(qr) &&
			  (!zip || nw_reader_at_end(rr));
	/* The first query set is packed (and the next one starts reading) before the engine is
	 * known: the GPU may still be opening, which takes 0.1-0.3 s on its own. */
	nw_feeder_init(&feeder, qr, zip ? rr : NULL, run.alphabet, opt->both_strands, q_batch,
		       opt->batch_residues, first);
	feeder_ready = 1;
	double t_first = nw_pl_now();
	if (!nw_feeder_first(&feeder, nq, err, errlen)) {
		ret = feeder.first_ret;
		goto out;
	}
	run.stage_s[STAGE_READ] += nw_pl_now() - t_first;
	nw_log_debug("at %.3f s: the first set packed", nw_pl_now() - run.t0);
	if ((ret = nw_setup_backend(&run, &opener, &feeder.set[0], zip ? NULL : &rb, whole, err,
				    errlen)) < 0)
		goto out;
	nw_log_debug("at %.3f s: the engine chosen", nw_pl_now() - run.t0);
	if (run.small_on_cpu)
		nw_log_info("a small run: the CPU engine aligns it (about %.3f s on %d thread%s%s) "
			    "without waiting for the GPU to open", run.small_est_s, run.cpu_threads,
			    run.cpu_threads == 1 ? "" : "s",
			    opener.small ? ", by the files' sizes" : "");
	if (run.opening)
		nw_log_info("the GPU is still opening: the CPU engine aligns the first pairs on %d "
			    "thread%s until it is open", run.cpu_threads, run.cpu_threads == 1 ? "" : "s");
	char cpu_name[64];
	snprintf(cpu_name, sizeof cpu_name, "cpu (%s)", nw_cpu_isa_name(nw_cpu_isa()));
	nw_log_info("alphabet %s%s; scoring %s, gap open %d extend %d; mode %s; backend %s",
		    nw_alphabet_name(run.alphabet), run.alphabet_guessed ? " (detected)" : "",
		    run.sc.name, run.sc.gap_open, run.sc.gap_extend,
		    opt->mode == NW_MODE_GLOBAL ? "global" : opt->mode == NW_MODE_LOCAL ? "local" : "semiglobal",
		    run.gpu ? nw_gpu_describe(run.gpu) : run.opening ? "gpu once open, cpu until then"
								     : cpu_name);
	if ((ret = nw_collect_refs(&run, zip ? NULL : &rb, &refs, &sam_refs, err, errlen)) < 0)
		goto out;
	/* (partitioned: the database's residues are counted again on the first pass) */
	if ((ret = nw_setup_stats(&run, zip ? NULL : partitioned ? &parts.part : &rb, err,
				  errlen)) < 0)
		goto out;
	if (!(run.writer = nw_writer_open(opt, &refs, err, errlen))) {
		ret = NW_ERR_IO;
		goto out;
	}
	if (opt->format == NW_FMT_BLAST6)
		nw_writer_set_stats(run.writer, &run.ka, run.db_residues);
	if (!(run.wstage = nw_wstage_start(run.writer, nw_check_paths, &run))) {
		snprintf(err, errlen, "out of memory starting the output");
		ret = NW_ERR_MEMORY;
		goto out;
	}
	ret = partitioned ? nw_run_partitioned(&run, &feeder, &parts, nq, err, errlen)
			  : run_batches(&run, &feeder, zip ? NULL : &rb, nq, err, errlen);
	nw_leave_gpu_opening(&run); /* the CPU engine aligned it all while the GPU opened */
	double t_end = nw_pl_now(), written_s = 0;
	int64_t written = 0;
	{ /* the write stage stops here whatever happened: it may still hold chunks */
		char ignored[16];
		int wret = nw_wstage_finish(run.wstage, &written_s, &written,
					    ret == 0 ? err : ignored, ret == 0 ? errlen : sizeof ignored);
		run.wstage = NULL;
		if (ret == 0)
			ret = wret;
	}
	if (ret == NW_ERR_INTERRUPTED) { /* the chunks written are whole: close the output */
		char ignored[16];
		int sig = nw_stop_requested();
		nw_writer_close(run.writer, ignored, sizeof ignored);
		run.writer = NULL;
		snprintf(err, errlen, "interrupted%s%s after %lld records written, each whole",
			 sig > 0 ? " by " : "", sig > 0 ? strsignal(sig) : "", (long long)written);
	}
	if (ret == 0 && written != run.n_records) { /* every record accounted for */
		snprintf(err, errlen, "internal error: %lld records written of %lld",
			 (long long)written, (long long)run.n_records);
		ret = NW_ERR_INTERNAL;
	}
	if (ret == 0) {
		ret = nw_writer_close(run.writer, err, errlen);
		run.writer = NULL;
	}
	run.stage_s[STAGE_WRITE] += nw_pl_now() - t_end;
	nw_progress(&run, 1);
	if (ret == 0) {
		double sec = nw_pl_now() - run.t0;
		nw_log_info("%lld pairs, %lld records written, %.4g cells, %.3f s, %.3f GCUPS, "
			    "backend %s, %d thread%s", (long long)run.n_pairs, (long long)written,
			    run.cells, sec,
			    sec > 0 ? run.cells / sec * 1e-9 : 0.0,
			    run.gpu ? (run.gpu_failed ? "gpu, then cpu (the GPU failed)"
				       : run.pairs_while_opening ? "gpu, and cpu while it opened" : "gpu")
				    : run.gpu_failed ? "cpu (the GPU could not be opened)"
				    : run.small_on_cpu ? "cpu (a small run)"
				    : run.gpu_left ? "cpu (the run ended before the GPU opened)" : "cpu",
			    opt->threads, opt->threads == 1 ? "" : "s");
		if (partitioned && streamed)
			nw_log_info("references streamed: %lld references in %lld partitions, the "
				    "first of about %.3g residues, each read while the one before was "
				    "aligned; the kept references' records compacted %lld times",
				    (long long)parts.n_refs, (long long)parts.parts_read,
				    (double)stream_cap, (long long)parts.compactions);
		else if (partitioned)
			nw_log_info("references read in partitions of about %.3g residues: %lld "
				    "references, %lld partitions aligned; the kept references' "
				    "records compacted %lld times", (double)ref_cap,
				    (long long)parts.n_refs, (long long)parts.parts_read,
				    (long long)parts.compactions);
		if (run.params.want_path && !run.params.gact)
			nw_log_info("paths: %lld full, %lld exact", (long long)run.n_paths[NW_PATH_FULL],
				    (long long)run.n_paths[NW_PATH_EXACT]);
		else if (run.params.want_path)
			nw_log_info("paths: %lld full, %lld gact (T=%d O=%d), %lld recomputed exactly "
				    "(over %g below the optimum)", (long long)run.n_paths[NW_PATH_FULL],
				    (long long)run.n_paths[NW_PATH_GACT], run.params.tile,
				    run.params.overlap, (long long)run.n_paths[NW_PATH_REDONE],
				    run.params.max_deficit);
		int64_t narrow = 0, saturated = 0, team_passes = 0, team_paths = 0, pruned = 0,
			pruned_starts = 0, wavefront = 0;
		int team_most = 0;
		for (int t = 0; t < run.n_cpu_ws; t++) {
			int64_t nl, ns, tp, tq;
			int tm;
			nw_workspace_narrow_counts(run.cpu_ws[t], &nl, &ns);
			nw_workspace_team_counts(run.cpu_ws[t], &tp, &tq, &tm);
			narrow += nl, saturated += ns;
			team_passes += tp, team_paths += tq;
			team_most = tm > team_most ? tm : team_most;
			int64_t ps, pt;
			nw_workspace_pruned_counts(run.cpu_ws[t], &ps, &pt);
			pruned += ps, pruned_starts += pt;
			wavefront += nw_workspace_wfa_scores(run.cpu_ws[t]);
		}
		if (pruned + pruned_starts + wavefront > 0)
			nw_log_info("cpu: %lld global scores of long pairs by wavefronts, %lld scores and "
				    "%lld starts by pruned sweeps (the work follows the divergence)",
				    (long long)wavefront, (long long)pruned, (long long)pruned_starts);
		if (team_passes > 0)
			nw_log_info("cpu: %lld score pass%s of long pairs on %d threads at most, in "
				    "stripes of the query", (long long)team_passes,
				    team_passes == 1 ? "" : "es", team_most);
		if (team_paths > 0)
			nw_log_info("cpu: %lld long path%s over %d threads at most, the splits of "
				    "divide and conquer side by side", (long long)team_paths,
				    team_paths == 1 ? "" : "s", team_most);
		if (narrow > 0)
			nw_log_info("cpu: %lld pairs in 8-bit lanes (local: matrix scores below 127, "
				    "match/mismatch scores below 255 times their common divisor; "
				    "global: by differences), %lld of them aligned again in 16 bits "
				    "(local scores at those bounds or past them)", (long long)narrow,
				    (long long)saturated);
		nw_log_info("wall s: waiting for input %.3f, scores %.3f, starts %.3f, paths %.3f, "
			    "waiting for output %.3f; writing %.3f beside them (of which checking "
			    "the GPU's paths %.3f)", run.stage_s[STAGE_READ],
			    run.stage_s[STAGE_SCORES], run.stage_s[STAGE_STARTS],
			    run.stage_s[STAGE_PATHS], run.stage_s[STAGE_WRITE], written_s,
			    run.check_s);
		if (run.gpu) {
			const double tk = nw_lanes_first_kernel_time(&run.lanes);
			char shared[64] = "";
			if (run.lanes.t_shared > 0)
				snprintf(shared, sizeof shared, ", the lanes' references on it at %.3f s",
					 run.lanes.t_shared - run.t0);
			nw_log_info("gpu opened in %.3f s beside the reading (waited for %.3f s)%s, first "
				    "kernel at %.3f s", opener.open_s, opener.waited_s, shared,
				    tk > 0 ? tk - run.t0 : 0.0);
			if (run.pairs_while_opening)
				nw_log_info("cpu: %lld pairs aligned while the GPU opened",
					    (long long)run.pairs_while_opening);
			const double k = nw_lanes_kernel_seconds(&run.lanes);
			const int lanes = nw_lanes_opened(&run.lanes);
			int64_t sp, sg;
			nw_lanes_search_pairs(&run.lanes, &sp, &sg);
			if (sp)
				nw_log_info("gpu: --top's search pass took %lld pairs, %lld of them through "
					    "the generic pass", (long long)sp, (long long)sg);
			if (run.lanes.ranged_calls)
				nw_log_info("gpu: the references of %lld --top calls went in ranges that "
					    "a quarter of the device's memory holds",
					    (long long)run.lanes.ranged_calls);
			if (lanes == 1)
				nw_log_info("gpu kernels %.4f s (%.1f GCUPS), %s; 1 engine on host threads",
					    k, k > 0 ? run.cells / k * 1e-9 : 0.0, nw_gpu_describe(run.gpu));
			else /* their kernels overlap: a rate over the sum would say nothing */
				nw_log_info("gpu kernels %.4f s summed over %d engines on host threads, "
					    "whose kernels overlap; %s", k, lanes, nw_gpu_describe(run.gpu));
		}
	}
out:;
	const double t_close = nw_pl_now();
	if (run.wstage) {
		char ignored[16];
		nw_wstage_finish(run.wstage, NULL, NULL, ignored, sizeof ignored);
	}
	if (run.writer) {
		char ignored[16];
		nw_writer_close(run.writer, ignored, sizeof ignored);
	}
	/* a command line that ends its process next leaves an opened GPU as it is: releasing
	 * its memory and context would cost the process's end nothing less (the driver does
	 * it as the device's descriptors close), and nw_exit_leaving_device does that after
	 * the caller has its status. Its memory goes with the process too: the output is
	 * written and flushed above, and freeing every result's path one by one would only
	 * delay the status. */
	nw_gpu_opener_finish(&opener); /* an opener not joined: an error came first */
	/* a read ahead still running (an error or a stop came while it read the next set)
	 * ends here, either way: the feeder lives in this frame */
	if (feeder_ready)
		nw_feeder_join(&feeder);
	/* NW_EXIT_HELPER=1, a test hook: the same end without a GPU (tests/exit_helper.sh) */
	const char *hook = getenv("NW_EXIT_HELPER");
	const int leave = opt->leave_device && (run.gpu || (hook && !strcmp(hook, "1")));
	if (!leave) {
		for (int b = 0; b < 2; b++) {
			chunk_buf_t *c = &run.bufs[b];
			for (int64_t k = 0; k < c->top_cap; k++)
				nw_result_free(&c->top_res[k]);
			free(c->top_res);
			free(c->top_pairs);
			/* (under --top, bufs[1] uses bufs[0]'s and owns none) */
			for (int64_t k = 0; k < c->res_cap; k++)
				nw_result_free(&c->res[k]);
			if (c->res_cap)
				free(c->res);
			for (int64_t k = 0; k < c->n_lent; k++)
				free(c->lent[k]);
			free(c->lent);
			if (c->cap)
				free(c->pairs);
		}
		for (int64_t k = 0; run.rc_res && k < run.scratch_cap; k++)
			nw_result_free(&run.rc_res[k]);
		free(run.rc_res);
		free(run.sub_res); /* copies only: the CIGARs are owned by res, top_res and rc_res */
		free(run.need);
		free(run.sub_pairs);
		if (feeder_ready)
			nw_feeder_free(&feeder);
		if (parts_ready)
			nw_parts_free(&parts);
		free(refs.name);
		nw_batch_free(&rb);
		nw_batch_free(&sam_refs);
		nw_reader_close(qr);
		nw_reader_close(rr);
		nw_lanes_close(&run.lanes);
		if (run.gpu)
			nw_gpu_close(run.gpu);
	} else {
		device_left_open = 1;
	}
	for (int t = 0; t < run.n_cpu_ws; t++)
		nw_workspace_free(run.cpu_ws[t]);
	free(run.cpu_ws);
	if (ret == 0)
		nw_log_info("closed in %.3f s%s", nw_pl_now() - t_close,
			    leave ? "; the GPU is released after the process ends" : "");
	return ret;
}
