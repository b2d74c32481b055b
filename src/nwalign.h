/* nwalign.h: the one public header of nwalign, an exact pairwise sequence aligner.
 *
 * Data path: reader (src/io/seqio.c) -> packed batch (src/io/pack.c) -> pair plan
 * (src/plan.c) -> engine (src/cpu/, src/gpu/) -> results -> writers (src/io/).
 *
 * Conventions shared by every engine and writer:
 *  - Coordinates are 0-based, half-open ([start, end)).
 *  - A gap of length L costs gap_open + L * gap_extend (BLAST / minimap2 convention).
 *  - Scores are exact integers; the CPU engine defines them.
 *  - Library functions return 0 (or a count) on success and a negative code on error,
 *    with a one-line message in a caller-supplied buffer; they never call exit().
 */
#ifndef NWALIGN_H
#define NWALIGN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NW_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- enums */

typedef enum { NW_ALPHA_AUTO = 0, NW_ALPHA_DNA = 1, NW_ALPHA_PROTEIN = 2 } nw_alphabet_t;
typedef enum { NW_MODE_GLOBAL = 0, NW_MODE_LOCAL = 1, NW_MODE_SEMIGLOBAL = 2 } nw_mode_t;
typedef enum { NW_FMT_TSV = 0, NW_FMT_PAF = 1, NW_FMT_SAM = 2, NW_FMT_BLAST6 = 3 } nw_format_t;
typedef enum { NW_PAIRS_ALL = 0, NW_PAIRS_ZIP = 1 } nw_pairing_t;
typedef enum { NW_BACKEND_AUTO = 0, NW_BACKEND_CPU = 1, NW_BACKEND_GPU = 2 } nw_backend_t;

/* Error codes (negative returns). */
enum {
	NW_OK = 0,
	NW_ERR_USAGE = -1,   /* bad option or option combination */
	NW_ERR_IO = -2,      /* cannot open / read / write */
	NW_ERR_FORMAT = -3,  /* malformed input */
	NW_ERR_MEMORY = -4,
	NW_ERR_GPU = -5,
	NW_ERR_INTERNAL = -6,
	NW_ERR_INTERRUPTED = -7 /* stopped on request (nw_request_stop) */
};

/* ---------------------------------------------------------------- residue codes
 *
 * DNA codes (4 bits): 0 A, 1 C, 2 G, 3 T (U is read as T), 4 N, then the other IUPAC
 * ambiguity codes 5 R, 6 Y, 7 S, 8 W, 9 K, 10 M, 11 B, 12 D, 13 H, 14 V. A sequence of
 * only codes 0..3 is packed 2 bits a residue, otherwise 4 bits.
 *
 * Protein codes (5 bits), NCBI matrix order: A R N D C Q E G H I L K M F P S T W Y V
 * B Z X * (0..23). J, O and U are read as X (documented in the manual).
 */
#define NW_DNA_CODES 15
#define NW_PROTEIN_CODES 24
#define NW_MAX_CODES 32
#define NW_DNA_ALPHABET "ACGTNRYSWKMBDHV"
#define NW_PROTEIN_ALPHABET "ARNDCQEGHILKMFPSTWYVBZX*"

/* Code of character c (any case) in alphabet a, or -1 when c is not in it. */
int nw_encode_char(nw_alphabet_t a, int c);
/* Upper-case character of code in alphabet a ('?' when out of range). */
char nw_decode_code(nw_alphabet_t a, int code);
/* Complement of a DNA code (A-T, C-G, R-Y, K-M, B-V, D-H; N, S and W are their own). */
uint8_t nw_dna_complement(uint8_t code);
/* Name of an alphabet for messages: "dna", "protein", "auto". */
const char *nw_alphabet_name(nw_alphabet_t a);

/* Decide dna or protein from a histogram of upper-cased residue characters: dna when
 * every character is a nucleotide code (IUPAC, U included) and at least 75% are
 * A, C, G, T, U or N; protein otherwise. An empty histogram gives dna. */
nw_alphabet_t nw_alphabet_guess(const uint64_t counts[256]);

/* ---------------------------------------------------------------- scoring */

typedef struct {
	nw_alphabet_t alphabet;
	int n_codes;                             /* NW_DNA_CODES or NW_PROTEIN_CODES */
	int32_t score[NW_MAX_CODES][NW_MAX_CODES]; /* score[query code][ref code] */
	int32_t gap_open, gap_extend;            /* a gap of length L costs open + L*extend */
	int32_t max_score, min_score;            /* over codes 0..n_codes-1 */
	char name[64];                           /* "blosum62", "match2/mismatch4", a file name */
} nw_scoring_t;

/* DNA match/mismatch scoring: two identical codes among A, C, G, T score +match; every
 * other pair (N and the other ambiguity codes included, even against themselves) scores
 * -mismatch. */
int nw_scoring_dna(nw_scoring_t *sc, int match, int mismatch, int gap_open, int gap_extend,
		   char *err, size_t errlen);
/* 1 when sc scores match to equal codes below some K and mismatch (<= 0) to every other
 * pair (nw_scoring_dna's form); *match, *mismatch, *K then describe it. */
int nw_scoring_mm(const nw_scoring_t *sc, int *match, int *mismatch, int *K);
/* A built-in matrix (blosum45, blosum50, blosum62, blosum80, pam250, ednafull) or an
 * NCBI-format matrix file. Built-in names fix the alphabet; for a file the alphabet must
 * be given (dna or protein). Codes whose letter is missing from a file take the row and
 * column of 'N' (dna) or 'X' (protein) when present, else the matrix minimum. */
int nw_scoring_matrix(nw_scoring_t *sc, const char *name_or_path, nw_alphabet_t alphabet,
		      int gap_open, int gap_extend, char *err, size_t errlen);
/* The alphabet a built-in matrix name implies, or NW_ALPHA_AUTO for a file name. */
nw_alphabet_t nw_matrix_builtin_alphabet(const char *name);
/* Parse NCBI-format matrix text (for tests and for files). */
int nw_scoring_parse_ncbi(nw_scoring_t *sc, const char *text, nw_alphabet_t alphabet,
			  char *err, size_t errlen);

/* ---------------------------------------------------------------- packed batches
 *
 * One contiguous buffer of 32-bit words per batch; every sequence starts on a word
 * boundary. Residue k of a sequence of b bits a residue lives in word offset[i] + k / per
 * at bit (k % per) * b, where per = 16 (2-bit), 8 (4-bit) or 6 (5-bit, top 2 bits unused).
 * The CPU and GPU engines read the same buffers.
 */
typedef struct {
	nw_alphabet_t alphabet;
	int64_t n, cap;              /* sequences */
	uint32_t *words;             /* packed residues */
	uint64_t n_words, cap_words;
	uint64_t *offset;            /* [n] first word of sequence i */
	uint32_t *len;               /* [n] residues */
	uint8_t *bits;               /* [n] 2, 4 or 5 */
	uint64_t *name_off;          /* [n] offset of the NUL-terminated name in names */
	char *names;
	uint64_t names_len, names_cap;
	uint64_t *qual_off;          /* [n] offset into quals, or NULL when no record had qualities */
	char *quals;                 /* phred+33 strings, NUL-terminated; "" for FASTA records */
	uint64_t quals_len, quals_cap;
	int64_t first_record;        /* 0-based record number (in its file) of sequence 0 */
	uint64_t total_residues;
	uint32_t max_len;
	uint64_t stamp;              /* unique to these contents: every change made through the
				      * functions below gives a new one, so that an engine can
				      * tell a batch it already holds without comparing it */
} nw_batch_t;

void nw_batch_init(nw_batch_t *b, nw_alphabet_t a);
void nw_batch_clear(nw_batch_t *b);   /* n = 0, keeps the memory */
void nw_batch_free(nw_batch_t *b);
/* Append one sequence given as codes (0..n_codes-1); qual may be NULL. */
int nw_batch_push(nw_batch_t *b, const char *name, const uint8_t *codes, uint32_t len,
		  const char *qual);
/* 2-bit text: A/C/G/T text (either case) packed 2 bits a residue into bytes, residue k at
 * bits 2 * (k % 4) of byte k / 4 with the codes above, unused bits 0. That is the byte
 * image of a 2-bit sequence's words; the reader keeps most DNA this way until it packs
 * the batch. nw_pack2_text appends n characters at residue pos of dst (which holds
 * residues 0..pos-1 and has room for (pos + n + 3) / 4 bytes): 0, or -1 when a character
 * is not A, C, G or T (dst is then undefined past residue pos). */
int nw_pack2_text(uint8_t *dst, uint64_t pos, const char *text, size_t n);
static inline unsigned nw_pack2_code(const uint8_t *packed, uint64_t k)
{
	return packed[k / 4] >> (2 * (k % 4)) & 3;
}
/* Append a sequence of 2-bit text to a DNA batch: the same as nw_batch_push of its codes. */
int nw_batch_push_pack2(nw_batch_t *b, const char *name, const uint8_t *packed, uint32_t len,
			const char *qual);
/* One sequence for nw_batch_push_all: its codes, or with pack2 its 2-bit text (DNA). */
typedef struct {
	const char *name;
	const uint8_t *codes;
	uint32_t len;
	int pack2;
	const char *qual;
} nw_seq_in_t;
/* Append n sequences: the same batch as n calls of nw_batch_push / nw_batch_push_pack2,
 * packed on up to threads threads (cut by residues). On an error the batch holds some of
 * them. */
int nw_batch_push_all(nw_batch_t *b, const nw_seq_in_t *in, int64_t n, int threads);
static inline const char *nw_batch_name(const nw_batch_t *b, int64_t i)
{
	return b->names + b->name_off[i];
}
static inline const char *nw_batch_qual(const nw_batch_t *b, int64_t i)
{
	return b->qual_off ? b->quals + b->qual_off[i] : NULL;
}
/* Residues a word holds at bits a residue (2, 4 or 5), and the words len residues take. */
static inline unsigned nw_residues_per_word(unsigned bits)
{
	return bits == 2 ? 16 : bits == 4 ? 8 : 6;
}
static inline uint64_t nw_seq_words(unsigned bits, uint64_t len)
{
	return (len + nw_residues_per_word(bits) - 1) / nw_residues_per_word(bits);
}
/* Residue code at position pos of sequence i. */
static inline uint8_t nw_batch_code(const nw_batch_t *b, int64_t i, uint64_t pos)
{
	unsigned bits = b->bits[i];
	unsigned per = nw_residues_per_word(bits);
	uint32_t w = b->words[b->offset[i] + pos / per];
	return (uint8_t)((w >> ((pos % per) * bits)) & ((1u << bits) - 1));
}
/* Unpack sequence i into out[0..len) as codes. */
void nw_batch_unpack(const nw_batch_t *b, int64_t i, uint8_t *out);
/* Append sequence i of src (its packed words as they are, name and quality) to dst, whose
 * alphabet is src's. 0 or NW_ERR_MEMORY. */
int nw_batch_copy_seq(nw_batch_t *dst, const nw_batch_t *src, int64_t i);
/* view = sequences [a, e) of b (a < e <= b->n), sequence a as its sequence 0: the words
 * they span (a slice of b's, not copied; an engine that uploads the view moves only
 * those), their offsets rebased into offsets (e - a entries, the caller's), b's names and
 * qualities. Read-only, and valid while b and offsets are. Its stamp depends on b's and
 * the range alone, so the same view made twice is the same batch to an engine's cache,
 * and never equals a whole batch's. */
void nw_batch_view(const nw_batch_t *b, int64_t a, int64_t e, uint64_t *offsets,
		   nw_batch_t *view);
/* dst (cleared first) = the reverse complements of the DNA sequences of src, with the same
 * names and reversed qualities, packed the same way. */
int nw_batch_revcomp(const nw_batch_t *src, nw_batch_t *dst);

/* ---------------------------------------------------------------- reading
 *
 * FASTA or FASTQ, plain, gzip or bgzf, "-" for stdin, read through htslib's BGZF layer.
 * Records are read in two steps so that the alphabet can be guessed from raw text:
 * nw_reader_fill() reads raw records into the reader, nw_reader_encode() validates and
 * packs them into a batch.
 */
typedef struct nw_reader_s nw_reader_t;

nw_reader_t *nw_reader_open(const char *path, char *err, size_t errlen);
/* Read up to max_records records or about max_residues residues (at least one record).
 * Returns the number of records now pending (0 at end of input), or a negative code. */
int64_t nw_reader_fill(nw_reader_t *r, int64_t max_records, uint64_t max_residues,
		       char *err, size_t errlen);
/* Residues of the pending records. */
uint64_t nw_reader_pending_residues(const nw_reader_t *r);
/* Add the upper-cased characters of the pending records to counts. */
void nw_reader_count_chars(const nw_reader_t *r, uint64_t counts[256]);
/* Validate and pack the pending records into out (cleared first), then drop them. An
 * invalid character is an error naming file, record and 1-based position. */
int nw_reader_encode(nw_reader_t *r, nw_alphabet_t a, nw_batch_t *out, char *err,
		     size_t errlen);
/* Threads for nw_reader_encode to use on large pending sets (default 1). */
void nw_reader_set_threads(nw_reader_t *r, int threads);
int64_t nw_reader_records_read(const nw_reader_t *r); /* records filled so far */
/* 1 when no record follows the ones filled (the rest of the input, if any, is blank),
 * 0 otherwise or on a read error (which the next fill reports). Reads ahead a block at
 * most while the rest is blank; consumes nothing. */
int nw_reader_at_end(nw_reader_t *r);
const char *nw_reader_path(const nw_reader_t *r);
void nw_reader_close(nw_reader_t *r);

/* ---------------------------------------------------------------- pairs and results */

typedef struct {
	uint32_t q, r;               /* indices into the query batch and the reference batch */
} nw_pair_t;

/* CIGAR operations use the BAM codes so that SAM output can take them as they are. */
enum { NW_CIGAR_I = 1, NW_CIGAR_D = 2, NW_CIGAR_S = 4, NW_CIGAR_EQ = 7, NW_CIGAR_X = 8 };
#define NW_CIGAR_OP(c) ((c) & 0xfu)
#define NW_CIGAR_LEN(c) ((c) >> 4)
#define NW_CIGAR_PACK(len, op) ((uint32_t)(len) << 4 | (uint32_t)(op))

typedef struct {
	int64_t score;
	int64_t qstart, qend, rstart, rend;   /* aligned region, 0-based half-open */
	uint32_t *cigar;                       /* I, D, =, X only (no clips); NULL without path */
	int64_t n_cigar, m_cigar;
	int64_t matches, aln_len, edits;       /* from the path: '=' count, columns, X+I+D */
	int64_t opt_score;                     /* the optimum from the score engine: equals
						* score except for GACT paths (score is then
						* the path's own score) */
	int path_kind;                         /* how the path was made: NW_PATH_* (src/path.h) */
	int strand;                            /* 1: the query's reverse complement aligned;
						* coordinates stay on the query as given, the
						* CIGAR follows the reference (as in SAM) */
	int cigar_lent;                        /* cigar lies in a block of nw_cigar_lend: never
						* freed or grown in place */
	int unchecked;                         /* a GPU path whose checks (nw_path_finish) are
						* yet to run: the write stage runs them before
						* the record is written (nw_check_paths) */
} nw_result_t;

void nw_result_free(nw_result_t *res);  /* frees the CIGAR, keeps the struct */
/* Give res[0..n) CIGAR buffers of runs runs each, cut from one block, which is returned
 * (NULL when out of memory) for the caller to free once every one of the results has been
 * freed (a buffer that outgrows its piece moves to an allocation of its own). One
 * allocation where a buffer each would cost n, made on the threads that build the paths. */
uint32_t *nw_cigar_lend(nw_result_t *res, int64_t n, int64_t runs);

/* ---------------------------------------------------------------- CIGAR utilities */

/* Make room for n runs in all, so that the pushes of a path whose run count is known
 * allocate once. Returns 0 or NW_ERR_MEMORY. */
int nw_cigar_reserve(nw_result_t *res, int64_t n);
/* Append len operations op, merging with the last run. Returns 0 or NW_ERR_MEMORY. */
int nw_cigar_push(nw_result_t *res, uint32_t op, int64_t len);
/* Reverse the run order (paths built from the end). */
void nw_cigar_reverse(nw_result_t *res);
/* Fill matches, aln_len and edits from the CIGAR. */
void nw_cigar_stats(nw_result_t *res);
/* Query and reference residues the CIGAR consumes. */
void nw_cigar_spans(const uint32_t *cigar, int64_t n, int64_t *qspan, int64_t *rspan);
/* Score of the path over q[qstart..) and r[rstart..) under sc, and check that every '='
 * is a match and every 'X' a mismatch of codes. Returns 0 and sets *score, or a negative
 * code with a message when the path does not fit the sequences. */
int nw_cigar_rescore(const uint32_t *cigar, int64_t n, const nw_scoring_t *sc,
		     const uint8_t *q, int64_t qlen, int64_t qstart, const uint8_t *r,
		     int64_t rlen, int64_t rstart, int64_t *score, char *err, size_t errlen);
/* The CIGAR as text ("12=1X3I") at p, "*" when empty; returns the characters written (no
 * NUL). p must hold NW_CIGAR_RUN_CHARS per run (1 when empty). */
#define NW_CIGAR_RUN_CHARS 11 /* ten digits of a length below 2^32 and the operation */
size_t nw_cigar_format(char *p, const uint32_t *cigar, int64_t n);
/* The same text written to fp. Returns <0 on write error. */
int nw_cigar_write(FILE *fp, const uint32_t *cigar, int64_t n);

/* ---------------------------------------------------------------- CPU engine
 *
 * Exact global / local / semiglobal alignment with affine gaps (Gotoh) in memory linear in
 * the sequence lengths. Semiglobal: the query is aligned end to end, reference overhangs
 * are free (parasail's sg_dx).
 *
 * End coordinate rule, shared by every engine: local ends at the cell of maximum score
 * with the smallest reference end, then the smallest query end; semiglobal ends at the
 * smallest reference end of maximum score. The start is found by a reverse pass anchored
 * at the end: the largest reference start, then the largest query start, whose alignment
 * to the end reaches the score (the shortest optimal alignment). A local alignment of
 * score 0 is reported with an empty span [0, 0) on both sequences and no path.
 * With want_path, the path over the aligned region is of the kind src/path.h chooses: a
 * full-matrix traceback for spans up to 2^22 cells, else Myers-Miller divide and conquer
 * in linear memory, its passes pruned by the known optimum (exact), or, with gact, GACT
 * tiles (heuristic: a path short of the optimum by more than max_deficit is recomputed
 * exactly; one kept keeps its own score, and opt_score the optimum).
 */
typedef struct {
	nw_mode_t mode;
	const nw_scoring_t *sc;
	int want_path;
	int ends_only;   /* score and end cell only (qstart = rstart = 0, no path): --top
			  * ranks every pair by these, then aligns the kept ones in full */
	int starts_only; /* res already holds the score and end cell of an ends_only pass:
			  * only the start is found (and the path, with want_path), so the
			  * results --top keeps and the strands --strand both picks are not
			  * aligned forward twice */
	int tile, overlap; /* GACT tile size T and overlap O as used (nw_opt_gact resolves the
			    * options' defaults, so overlap 0 is a real overlap of 0); tile 0,
			    * as in a zero-initialised struct, means the defaults for both */
	int gact;          /* long spans: GACT paths (heuristic) instead of exact ones */
	double max_deficit; /* gact: a path below the optimum by more than this fraction of
			     * |optimum| is recomputed exactly */
	const int64_t *need; /* if not NULL, per pair: a result is only wanted if its score is at
			      * least need[k]; below it, the score returned is below need[k] and
			      * the rest is unspecified (--strand both's second strand: the first
			      * strand's score plus one). The GPU engine uses it to prune its
			      * semiglobal and global passes, the CPU engine those of its long
			      * pairs (nw_cpu_align: need[0] is its pair's). */
} nw_align_params_t;

typedef struct nw_workspace_s nw_workspace_t;  /* per-thread scratch rows */
nw_workspace_t *nw_workspace_new(void);
void nw_workspace_free(nw_workspace_t *ws);
/* Pairs the workspace's inter-sequence passes ran in 8-bit lanes, and how many of them
 * saturated and ran again in 16 bits (-v). */
void nw_workspace_narrow_counts(const nw_workspace_t *ws, int64_t *lanes, int64_t *saturated);
/* Threads that the forward pass of one long pair may take (1, the default: the calling
 * thread alone); min_cells and min_rows: the pairs that qualify and the shortest stripe
 * of query rows a thread takes (0: NW_TEAM_MIN_CELLS, NW_TEAM_MIN_ROWS; tests set them
 * small). */
void nw_workspace_set_team(nw_workspace_t *ws, int threads, int64_t min_cells, int64_t min_rows);
/* Forward passes and paths that the workspace ran over a team, and the most threads one
 * took (-v). */
void nw_workspace_team_counts(const nw_workspace_t *ws, int64_t *passes, int64_t *paths,
			      int *most_threads);
#define NW_TEAM_MIN_CELLS ((int64_t)1 << 24)
#define NW_TEAM_MIN_ROWS 1024
/* Global and semiglobal pairs of at least this many cells (0: NW_PRUNED_MIN_CELLS; tests
 * set it small) try pruned sweeps for their score first, and similar ones of that size
 * take them for their start (cpu_prune.c); and the scores and starts found so (-v). */
void nw_workspace_set_pruned_min(nw_workspace_t *ws, int64_t cells);
void nw_workspace_pruned_counts(const nw_workspace_t *ws, int64_t *scores, int64_t *starts);
#define NW_PRUNED_MIN_CELLS ((int64_t)1 << 24)
/* Of those, global pairs under match/mismatch scoring try the wavefront recurrence
 * (cpu_wfa.c) before the sweeps: mode 1 (the default); 0 turns it off (tests of the
 * sweeps alone); 2 lets every attempt run to its end, without the budget, the probe and
 * the rule of cost that leave dearer pairs to the sweeps (tests). And the scores found so (-v). */
void nw_workspace_set_wfa(nw_workspace_t *ws, int mode);
int64_t nw_workspace_wfa_scores(const nw_workspace_t *ws);

/* Align codes q[0..qlen) (query) with r[0..rlen) (reference). */
int nw_cpu_align(const nw_align_params_t *p, const uint8_t *q, int64_t qlen,
		 const uint8_t *r, int64_t rlen, nw_workspace_t *ws, nw_result_t *res);

/* ---------------------------------------------------------------- options and the run */

typedef struct {
	const char *query_path, *ref_path, *out_path;
	nw_pairing_t pairing;
	nw_mode_t mode;
	nw_alphabet_t alphabet;
	int match, mismatch;          /* DNA scoring when no matrix is named (NW_OPT_UNSET: the
				       * defaults, like gap_open and gap_extend) */
	const char *matrix;           /* NULL: blosum62 for protein, match/mismatch for DNA */
	int gap_open, gap_extend;     /* -1: the alphabet's default (DNA 4/2, protein 11/1) */
	nw_format_t format;
	int cigar;                    /* compute the path (implied by PAF and SAM) */
	int header;                   /* TSV header line */
	int threads;
	nw_backend_t backend;
	int device;
	int verbose;
	int64_t batch_records;        /* query records per batch */
	uint64_t batch_residues;      /* query residues per batch */
	uint64_t max_memory;          /* bytes the references of all-vs-all may take (about);
				       * 0: three quarters of the machine's memory */
	uint64_t gpu_memory;          /* bytes of device memory the GPU engine may use (0: what
				       * is free) */
	int top;                      /* all vs all: keep the top best references per query (0: all) */
	int both_strands;             /* DNA: also align each query's reverse complement */
	int tile, overlap;            /* GACT tile size and overlap; -1: the default (tile 320,
				       * overlap 120 or 3/8 of a smaller tile); see nw_opt_gact */
	int gact;                     /* long spans: GACT paths (heuristic), not exact ones */
	int exact;                    /* --exact: exact paths (the default) asked for by name */
	double max_deficit;           /* gact: recompute paths short by more than this fraction
				       * of |optimum|; negative: the default (NW_GACT_MAX_DEFICIT) */
	const char *command_line;     /* for SAM @PG CL */
	int leave_device;             /* the process ends when nw_run returns (the command line):
				       * a GPU it opened is left as it is (nw_device_left_open) */
} nw_opt_t;

/* An integer option that was not given (a value no user can type in range). */
#define NW_OPT_UNSET INT32_MIN

void nw_opt_init(nw_opt_t *opt);
/* Check values and combinations; fills err with a one-line message on error. */
int nw_opt_check(const nw_opt_t *opt, char *err, size_t errlen);
/* 1 when the output needs each pair's path: -c, or a format other than TSV. */
int nw_opt_wants_path(const nw_opt_t *opt);
/* The GACT tile size and overlap the options ask for, defaults resolved (what goes into
 * nw_align_params_t). */
void nw_opt_gact(const nw_opt_t *opt, int *tile, int *overlap);
/* Run the whole pipeline: read, align, write. Returns 0 or a negative code (message in
 * err). */
int nw_run(const nw_opt_t *opt, char *err, size_t errlen);
/* 1 when a run gave its (small) input to the CPU engine and left the GPU opening on a
 * thread of its own (--backend auto): the process should then end with _exit once its
 * output is flushed, since exit() would wait for the CUDA driver or tear it down under
 * that thread. */
int nw_gpu_left_opening(void);
/* 1 when a run with opt->leave_device ended with the GPU open and its memory held: the
 * process should end through nw_exit_leaving_device (process_exit.c), which returns to
 * the caller before the driver releases the device. */
int nw_device_left_open(void);
/* End the process with status once stdout and stderr are flushed; the device's file
 * descriptors go to a helper process that ends when this one has, so the driver's release
 * of the device no longer delays the caller. Does not return. */
void nw_exit_leaving_device(int status) __attribute__((noreturn));
/* Ask a running nw_run to stop (async-signal-safe: a signal handler may call it, with the
 * signal's number). It returns NW_ERR_INTERRUPTED soon after, the chunks already aligned
 * written in full and the output closed: every record in it whole. */
void nw_request_stop(int signo);
/* The number given to nw_request_stop, or 0. */
int nw_stop_requested(void);

/* ---------------------------------------------------------------- logging */

enum { NW_LOG_ERROR = 0, NW_LOG_WARN = 1, NW_LOG_INFO = 2, NW_LOG_DEBUG = 3 };
extern int nw_log_level;
void nw_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nw_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nw_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void nw_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* -vv */

#ifdef __cplusplus
}
#endif
#endif
