/* write_sam.c: SAM output through htslib.
 *
 * Header: @HD VN:1.6 SO:unsorted, one @SQ per reference (all of them, before the first
 * record, hence the nw_ref_list_t), @PG with the command line.
 * Records: the whole query as SEQ/QUAL on every record (secondaries too), CIGAR = soft
 * clip, the path (=, X, I, D), soft clip; POS from rstart; MAPQ 255 (unavailable); AS:i
 * (the path's score), os:i (optimal score from the score engine; present when the path is
 * a GACT path and may score less than the optimum) and NM:i (X+I+D, plus N-vs-N columns:
 * see sam_nm). MD is not written: `samtools calmd` derives it from the reference. A pair
 * without an alignment (local score 0: empty span, no path) is unmapped (flag 4, MAPQ 0)
 * and never secondary.
 * Primary / secondary: in all-vs-all mode the pairs of one query are contiguous; among its
 * mapped pairs in one call the highest optimal score (first on ties; the ranking of --top)
 * is primary, the others get flag 256. In zip mode every mapped record is primary.
 * A pair aligned on the reverse strand (--strand both) gets flag 16, SEQ reverse
 * complemented and QUAL reversed, and its clips in that orientation.
 * BAM stores SEQ as 4-bit nucleotides, so a protein query cannot be carried: its SEQ and
 * QUAL are '*'.
 */
#include <errno.h>
#include <string.h>

#include <htslib/khash.h>
#include <htslib/kstring.h>

#include "path.h"
#include "writer_impl.h"

#define SAM_FLAG_UNMAPPED 4
#define SAM_FLAG_SECONDARY 256
#define SAM_FLAG_REVERSE 16

/* @PG CL is one header field: tabs and line breaks in it would break the header. */
static int add_command_line(kstring_t *ks, const char *cl)
{
	const char *c;
	int bad = kputs("\tCL:", ks) < 0;

	for (c = cl; *c; c++)
		bad |= kputc(*c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c, ks) < 0;
	return bad ? -1 : 0;
}

KHASH_SET_INIT_STR(nw_names)

/* SAM names references, so two with one name cannot both be in the header: say which. */
static int check_unique_refs(const nw_ref_list_t *refs, char *err, size_t errlen)
{
	khash_t(nw_names) *h = kh_init(nw_names);
	int64_t i;
	int absent, ret = 0;

	if (!h)
		return nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory building the SAM "
				  "header");
	for (i = 0; i < refs->n && ret == 0; i++) {
		kh_put(nw_names, h, refs->name[i], &absent);
		if (absent < 0)
			ret = nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory building "
					 "the SAM header");
		else if (absent == 0)
			ret = nw_wr_fail(NW_ERR_FORMAT, err, errlen, "reference name '%s' occurs "
					 "more than once: SAM output needs unique names",
					 refs->name[i]);
	}
	kh_destroy(nw_names, h);
	return ret;
}

/* Free the header and the record buffer (the stream is closed by the caller). */
static void release(nw_writer_t *w)
{
	if (w->hdr)
		sam_hdr_destroy(w->hdr);
	w->hdr = NULL;
	if (w->rec)
		bam_destroy1(w->rec);
	w->rec = NULL;
}

int nw_sam_open(nw_writer_t *w, const char *path, const nw_opt_t *opt,
		const nw_ref_list_t *refs, char *err, size_t errlen)
{
	kstring_t ks = KS_INITIALIZE;
	enum htsLogLevel lvl;
	int64_t i;
	int ret = NW_ERR_MEMORY, e, bad = 0;

	w->n_refs = refs ? refs->n : 0;
	if (refs && (ret = check_unique_refs(refs, err, errlen)) < 0)
		return ret;
	ret = NW_ERR_MEMORY;
	/* a failed append leaves a shorter string behind: remember any failure */
	bad |= kputs("@HD\tVN:1.6\tSO:unsorted\n", &ks) < 0;
	for (i = 0; i < w->n_refs; i++)
		bad |= ksprintf(&ks, "@SQ\tSN:%s\tLN:%u\n", refs->name[i], refs->len[i]) < 0;
	bad |= kputs("@PG\tID:nwalign\tPN:nwalign\tVN:" NW_VERSION_STRING, &ks) < 0;
	if (opt->command_line && *opt->command_line)
		bad |= add_command_line(&ks, opt->command_line) < 0;
	if ((bad |= kputc('\n', &ks) < 0)) {
		nw_wr_fail(ret, err, errlen, "out of memory building the SAM header");
		goto cleanup;
	}

	if (!(w->hdr = sam_hdr_init()) || !(w->rec = bam_init1())) {
		nw_wr_fail(ret, err, errlen, "out of memory building the SAM header");
		goto cleanup;
	}
	if (sam_hdr_add_lines(w->hdr, ks.s, ks.l) < 0) {
		ret = NW_ERR_FORMAT;
		nw_wr_fail(ret, err, errlen, "cannot build the SAM header (invalid "
			   "reference names?)");
		goto cleanup;
	}
	/* htslib would print its own line about a failed open; ours says the same once. */
	errno = 0;
	lvl = hts_get_log_level();
	hts_set_log_level(HTS_LOG_OFF);
	w->hts = hts_open(path, "w");
	e = errno;
	hts_set_log_level(lvl);
	if (!w->hts) {
		ret = NW_ERR_IO;
		nw_wr_fail(ret, err, errlen, "cannot open '%s' for writing: %s", w->name,
			   strerror(e ? e : EIO));
		goto cleanup;
	}
	errno = 0;
	if (sam_hdr_write(w->hts, w->hdr) < 0) {
		ret = nw_wr_io_error(w, errno, err, errlen);
		goto cleanup;
	}
	ret = 0;

cleanup:
	free(ks.s);
	if (ret < 0) {
		if (w->hts)
			hts_close(w->hts);
		w->hts = NULL;
		release(w);
	}
	return ret;
}

int nw_sam_close(nw_writer_t *w, char *err, size_t errlen)
{
	int ret = 0;

	if (w->hts) {
		errno = 0;
		if (hts_close(w->hts) != 0)
			ret = nw_wr_io_error(w, errno, err, errlen);
		w->hts = NULL;
	}
	release(w);
	return ret;
}

/* A pair is mapped when it has a path with at least one residue of each sequence. */
static int is_mapped(const nw_result_t *rs)
{
	return rs->cigar && rs->n_cigar > 0 && rs->qend > rs->qstart && rs->rend > rs->rstart;
}

/* SEQ and QUAL of query q into w->seq / w->qual (reverse complemented for strand 1, as
 * SAM stores them; w->codes follows SEQ); returns l_seq (0 for protein), sets *has_qual,
 * or a negative code. */
static int64_t fill_seq(nw_writer_t *w, const nw_batch_t *qb, uint32_t q, int strand,
			int *has_qual)
{
	uint32_t len = qb->len[q], k;
	const char *qual = nw_batch_qual(qb, q);
	int c;

	*has_qual = 0;
	if (qb->alphabet != NW_ALPHA_DNA || len == 0)
		return 0;
	if (nw_wr_grow((void **)&w->codes, &w->codes_cap, len, 1) < 0 ||
	    nw_wr_grow((void **)&w->seq, &w->seq_cap, len, 1) < 0 ||
	    nw_wr_grow((void **)&w->qual, &w->qual_cap, len, 1) < 0)
		return NW_ERR_MEMORY;
	if (!w->dna_tab_ready) {
		for (c = 0; c < NW_MAX_CODES; c++)
			w->dna_tab[c] = c < NW_DNA_CODES ? nw_decode_code(NW_ALPHA_DNA, c) : 'N';
		w->dna_tab_ready = 1;
	}
	nw_batch_unpack(qb, q, w->codes);
	if (strand) {
		for (k = 0; k < len / 2; k++) {
			uint8_t t = w->codes[k];
			w->codes[k] = w->codes[len - 1 - k];
			w->codes[len - 1 - k] = t;
		}
		for (k = 0; k < len; k++)
			w->codes[k] = nw_dna_complement(w->codes[k]);
	}
	for (k = 0; k < len; k++)
		w->seq[k] = w->dna_tab[w->codes[k] & (NW_MAX_CODES - 1)];
	/* FASTA records in a FASTQ batch have "": their QUAL stays missing */
	if (qual && strlen(qual) == len) {
		for (k = 0; k < len; k++) {
			char c = qual[strand ? len - 1 - k : k];
			w->qual[k] = (char)((unsigned char)c >= 33 ? c - 33 : 0);
		}
		*has_qual = 1;
	}
	return len;
}

/* Build the CIGAR clip + path + clip into w->cig after checking that the path spans the
 * reported region; returns the number of runs or a negative code. */
static int64_t build_cigar(nw_writer_t *w, const nw_result_t *rs, uint32_t qlen,
			   uint32_t rlen, const char *qn, char *err, size_t errlen)
{
	int64_t qs, rsp, n = 0;

	nw_cigar_spans(rs->cigar, rs->n_cigar, &qs, &rsp);
	if (rs->qstart < 0 || rs->qend > qlen || rs->rstart < 0 || rs->rend > rlen ||
	    qs != rs->qend - rs->qstart || rsp != rs->rend - rs->rstart)
		return nw_wr_fail(NW_ERR_INTERNAL, err, errlen, "the path of query '%s' does "
				  "not match its region [%lld, %lld) x [%lld, %lld)", qn,
				  (long long)rs->qstart, (long long)rs->qend,
				  (long long)rs->rstart, (long long)rs->rend);
	if (nw_wr_grow((void **)&w->cig, &w->cig_cap, (size_t)rs->n_cigar + 2,
		       sizeof(uint32_t)) < 0)
		return nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory writing SAM");
	/* The clips in SEQ's orientation: on the reverse strand the query's end comes first.
	 * qlen < 2^32 but a BAM run holds 28 bits: split clips like nw_cigar_push does. */
	int64_t lead = rs->strand ? (int64_t)qlen - rs->qend : rs->qstart;
	int64_t trail = rs->strand ? rs->qstart : (int64_t)qlen - rs->qend;
	for (int64_t left = lead; left > 0;) {
		int64_t l = left < (1 << 28) - 1 ? left : (1 << 28) - 1;
		if (nw_wr_grow((void **)&w->cig, &w->cig_cap, (size_t)(n + rs->n_cigar + 2),
			       sizeof(uint32_t)) < 0)
			return nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory writing SAM");
		w->cig[n++] = NW_CIGAR_PACK(l, NW_CIGAR_S);
		left -= l;
	}
	memcpy(w->cig + n, rs->cigar, (size_t)rs->n_cigar * sizeof(uint32_t));
	n += rs->n_cigar;
	for (int64_t left = trail; left > 0;) {
		int64_t l = left < (1 << 28) - 1 ? left : (1 << 28) - 1;
		if (nw_wr_grow((void **)&w->cig, &w->cig_cap, (size_t)(n + 1),
			       sizeof(uint32_t)) < 0)
			return nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory writing SAM");
		w->cig[n++] = NW_CIGAR_PACK(l, NW_CIGAR_S);
		left -= l;
	}
	return n;
}

/* NM as samtools calmd computes it: the path's X+I+D plus the '=' columns where both
 * bases are N (identical codes, so '=' in our path, but the SAMtags definition of NM never
 * counts N as a match). Other identical ambiguity codes (R vs R) stay matches, as in
 * calmd. Needs the query codes that fill_seq unpacked. */
static int64_t sam_nm(const nw_writer_t *w, const nw_batch_t *qb, const nw_result_t *rs,
		      int64_t qlen)
{
	int64_t nm = rs->edits, i, k;
	int64_t qi = rs->strand ? qlen - rs->qend : rs->qstart; /* in SEQ's orientation */

	if (qb->alphabet != NW_ALPHA_DNA)
		return nm;
	for (i = 0; i < rs->n_cigar; i++) {
		uint32_t op = NW_CIGAR_OP(rs->cigar[i]);
		int64_t l = NW_CIGAR_LEN(rs->cigar[i]);
		if (op == NW_CIGAR_EQ)
			for (k = 0; k < l; k++)
				nm += w->codes[qi + k] == 4; /* code 4 is N */
		if (op == NW_CIGAR_EQ || op == NW_CIGAR_X || op == NW_CIGAR_I ||
		    op == NW_CIGAR_S)
			qi += l;
	}
	return nm;
}

static int aux_int(bam1_t *b, const char tag[2], int64_t v)
{
	int32_t x = (int32_t)v;

	if (v < INT32_MIN || v > INT32_MAX)
		return -1;
	return bam_aux_append(b, tag, 'i', 4, (const uint8_t *)&x);
}

static int write_one(nw_writer_t *w, const nw_batch_t *qb, const nw_batch_t *rb,
		     const nw_pair_t *pr, const nw_result_t *rs, int secondary, char *err,
		     size_t errlen)
{
	const char *qn = nw_batch_name(qb, pr->q);
	size_t lqn = strlen(qn);
	int mapped = is_mapped(rs), has_qual;
	int64_t l_seq, n_cig = 0, tid = -1;
	uint16_t flag = mapped ? (secondary ? SAM_FLAG_SECONDARY : 0) : SAM_FLAG_UNMAPPED;
	if (mapped && rs->strand)
		flag |= SAM_FLAG_REVERSE;

	if (lqn > 254)
		return nw_wr_fail(NW_ERR_FORMAT, err, errlen, "query name '%.40s...' is longer "
				  "than the 254 characters SAM allows", qn);
	if ((l_seq = fill_seq(w, qb, pr->q, mapped && rs->strand, &has_qual)) < 0)
		return nw_wr_fail(NW_ERR_MEMORY, err, errlen, "out of memory writing SAM");
	if (mapped) {
		tid = rb->first_record + (int64_t)pr->r;
		if (tid < 0 || tid >= w->n_refs || tid > INT32_MAX)
			return nw_wr_fail(NW_ERR_INTERNAL, err, errlen, "reference %lld of query "
					  "'%s' is not in the SAM header (%lld references)",
					  (long long)tid, qn, (long long)w->n_refs);
		n_cig = build_cigar(w, rs, qb->len[pr->q], rb->len[pr->r], qn, err, errlen);
		if (n_cig < 0)
			return (int)n_cig;
	}
	if (bam_set1(w->rec, lqn, qn, flag, (int32_t)tid, mapped ? rs->rstart : -1,
		     mapped ? 255 : 0, (size_t)n_cig, w->cig, -1, -1, 0, (size_t)l_seq,
		     l_seq ? w->seq : NULL, has_qual ? w->qual : NULL, 16) < 0)
		return nw_wr_fail(NW_ERR_INTERNAL, err, errlen, "cannot build the SAM record "
				  "of query '%s': %s", qn, strerror(errno));
	if (aux_int(w->rec, "AS", rs->score) < 0 ||
	    (rs->path_kind == NW_PATH_GACT && aux_int(w->rec, "os", rs->opt_score) < 0) ||
	    (mapped && aux_int(w->rec, "NM", sam_nm(w, qb, rs, qb->len[pr->q])) < 0))
		return nw_wr_fail(NW_ERR_INTERNAL, err, errlen, "cannot add AS/os/NM to the SAM "
				  "record of query '%s' (score %lld)", qn, (long long)rs->score);
	errno = 0;
	if (sam_write1(w->hts, w->hdr, w->rec) < 0)
		return nw_wr_io_error(w, errno, err, errlen);
	return 0;
}

int nw_sam_write(nw_writer_t *w, const nw_batch_t *qb, const nw_batch_t *rb,
		 const nw_pair_t *pairs, const nw_result_t *res, int64_t n, char *err,
		 size_t errlen)
{
	int64_t gs, ge, k;
	int ret;

	for (gs = 0; gs < n; gs = ge) {
		int64_t prim = -1;

		/* group = the contiguous pairs of one query (one pair in zip mode) */
		ge = gs + 1;
		if (w->pairing == NW_PAIRS_ALL)
			while (ge < n && pairs[ge].q == pairs[gs].q)
				ge++;
		for (k = gs; k < ge; k++) {
			if (pairs[k].q >= qb->n || pairs[k].r >= rb->n)
				return nw_wr_fail(NW_ERR_INTERNAL, err, errlen,
						  "pair %lld points outside its batch (%u, %u)",
						  (long long)k, pairs[k].q, pairs[k].r);
			if (is_mapped(&res[k]) && (prim < 0 || res[k].opt_score > res[prim].opt_score))
				prim = k;
		}
		for (k = gs; k < ge; k++)
			if ((ret = write_one(w, qb, rb, &pairs[k], &res[k], k != prim, err,
					     errlen)) < 0)
				return ret;
	}
	return 0;
}
