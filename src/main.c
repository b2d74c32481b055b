/* main.c: the command line only. Parse, check, run the pipeline, map errors to exit codes:
 * 0 success, 1 usage error, 2 input or runtime error. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include <htslib/hts.h>

#include "nwalign.h"
#include "nwdb.h"
#include "path.h"

enum {
	OPT_PAIRS = 256, OPT_MATCH, OPT_MISMATCH, OPT_MATRIX, OPT_GAP_OPEN, OPT_GAP_EXTEND,
	OPT_NO_HEADER, OPT_BACKEND, OPT_DEVICE, OPT_BATCH, OPT_TOP, OPT_STRAND, OPT_TILE,
	OPT_OVERLAP, OPT_EXACT, OPT_GACT, OPT_MAX_DEFICIT, OPT_MAX_MEMORY, OPT_GPU_MEMORY
};

static const struct option long_opts[] = {
	{"query", required_argument, NULL, 'q'},
	{"ref", required_argument, NULL, 'r'},
	{"pairs", required_argument, NULL, OPT_PAIRS},
	{"alphabet", required_argument, NULL, 'a'},
	{"mode", required_argument, NULL, 'm'},
	{"strand", required_argument, NULL, OPT_STRAND},
	{"match", required_argument, NULL, OPT_MATCH},
	{"mismatch", required_argument, NULL, OPT_MISMATCH},
	{"matrix", required_argument, NULL, OPT_MATRIX},
	{"gap-open", required_argument, NULL, OPT_GAP_OPEN},
	{"gap-extend", required_argument, NULL, OPT_GAP_EXTEND},
	{"format", required_argument, NULL, 'f'},
	{"cigar", no_argument, NULL, 'c'},
	{"output", required_argument, NULL, 'o'},
	{"no-header", no_argument, NULL, OPT_NO_HEADER},
	{"top", required_argument, NULL, OPT_TOP},
	{"tile", required_argument, NULL, OPT_TILE},
	{"overlap", required_argument, NULL, OPT_OVERLAP},
	{"exact", no_argument, NULL, OPT_EXACT},
	{"gact", no_argument, NULL, OPT_GACT},
	{"max-deficit", required_argument, NULL, OPT_MAX_DEFICIT},
	{"threads", required_argument, NULL, 't'},
	{"backend", required_argument, NULL, OPT_BACKEND},
	{"device", required_argument, NULL, OPT_DEVICE},
	{"batch-size", required_argument, NULL, OPT_BATCH},
	{"max-memory", required_argument, NULL, OPT_MAX_MEMORY},
	{"gpu-memory", required_argument, NULL, OPT_GPU_MEMORY},
	{"verbose", no_argument, NULL, 'v'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0}
};

static void usage(FILE *fp, const nw_opt_t *d)
{
	int tile, overlap;
	nw_opt_gact(d, &tile, &overlap);
	fprintf(fp,
"Usage: nwalign [options] -q QUERY -r REF [> out.tsv]\n"
"       nwalign index [-a auto|dna|protein] -o DB.nwdb REF   (see nwalign index --help)\n"
"Exact pairwise alignment (Needleman-Wunsch, Smith-Waterman, semi-global) with affine gaps.\n"
"\n"
"Input:\n"
"  -q, --query FILE          query sequences: FASTA or FASTQ, plain, gzip or bgzf; - for stdin\n"
"  -r, --ref FILE            reference sequences, same formats, or a database made by\n"
"                            nwalign index (--pairs all)\n"
"      --pairs all|zip       all: every query against every reference; zip: i-th query with\n"
"                            i-th reference [all]\n"
"  -a, --alphabet auto|dna|protein   [auto: decided from the input; -v says which]\n"
"Alignment:\n"
"  -m, --mode global|local|semiglobal   [global]; semiglobal: query end to end, reference\n"
"                            overhangs free\n"
"      --strand forward|both DNA: also align each query's reverse complement and keep the\n"
"                            better strand (the query as given on ties) [forward]\n"
"Scoring:\n"
"      --match INT           DNA match score [%d]\n"
"      --mismatch INT        DNA mismatch penalty, positive [%d]\n"
"      --matrix NAME|FILE    blosum45 blosum50 blosum62 blosum80 pam250 ednafull, or an\n"
"                            NCBI-format matrix file [protein: blosum62; DNA: --match/--mismatch]\n"
"      --gap-open INT        O: a gap of length L costs O + L*E [DNA %d, protein %d]\n"
"      --gap-extend INT      E [DNA %d, protein %d]\n"
"Output:\n"
"  -f, --format tsv|paf|sam|blast6  [tsv]; blast6: BLAST's tabular columns with E-values\n"
"                            (-m local, protein matrices with BLAST's published gap costs)\n"
"  -c, --cigar               compute the alignment path (always on for paf, sam, blast6)\n"
"  -o, --output FILE         [stdout]\n"
"      --no-header           no '#' header line in TSV\n"
"      --top INT             all vs all: only the INT best references per query, best first\n"
"                            (ties: reference order) [0: every pair]\n"
"Paths (with -c, paf, sam or blast6):\n"
"                            every path is optimal: spans up to %lld cells from one full\n"
"                            matrix, longer ones by divide and conquer, pruned by the optimum\n"
"      --exact               exact paths (the default; accepted for old scripts)\n"
"      --gact                spans over that size take GACT tiles (heuristic, faster on\n"
"                            dissimilar pairs); PAF/SAM tag os:i gives the optimum\n"
"      --max-deficit FRAC    --gact: recompute exactly a path below the optimum by more\n"
"                            than FRAC of |optimum| [%g]\n"
"      --tile INT            --gact: tile size, 16..4096 [%d]\n"
"      --overlap INT         --gact: tile overlap, 0..tile-8 [%d, or 3/8 of a smaller tile]\n"
"Engine:\n"
"  -t, --threads INT         CPU threads (the CPU engine; packing an all-vs-all run's\n"
"                            references) [%d: the online CPUs]\n"
"      --backend auto|cpu|gpu  [auto: the GPU when built with CUDA and a device is present,\n"
"                              except for runs small enough to end before it opens;\n"
"                              the CPU engine aligns the first pairs while it opens]\n"
"      --device INT          CUDA device [%d]\n"
"      --gpu-memory SIZE     device memory the GPU engine may use (e.g. 4G) [what is free]\n"
"      --batch-size INT      query records per batch, at most [%lld]\n"
"      --max-memory SIZE     the references of --pairs all are held in memory: refuse\n"
"                            sets larger than SIZE (e.g. 16G), or with --top read them\n"
"                            in partitions of SIZE [3/4 of the machine's memory]\n"
"  -v, --verbose             summary on stderr (pairs, records, cells, seconds, GCUPS,\n"
"                            backend; paths by kind; wall time by stage); -vv also\n"
"                            the run's timeline (sets read, aligned)\n"
"  -h, --help                this help on stdout, exit 0\n"
"  -V, --version             version on stdout, exit 0\n"
"\n"
"Coordinates are 0-based, half-open (SAM and blast6: 1-based). See nwalign(1) for output\n"
"columns and tie rules.\n",
		2, 4, 4, 11, 2, 1, (long long)NW_PATH_FULL_CELLS, NW_GACT_MAX_DEFICIT, tile, overlap, d->threads,
		d->device, (long long)d->batch_records);
}

static int usage_error(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "nwalign: error: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, " (see nwalign --help)\n");
	return 1;
}

static const char *long_name(int c)
{
	for (const struct option *o = long_opts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
}

/* Whole-string integer in [lo, hi]; 0 or -1. */
static int parse_int(const char *s, long lo, long hi, int *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/* A byte count: digits, then K, M, G or T for powers of 1024; more than 0 and at most 2^50.
 * 0 or -1. */
static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long b = strtoull(s, &end, 10);
	int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20
		  : *end == 'G' || *end == 'g' ? 30 : *end == 'T' || *end == 't' ? 40 : 0;
	end += shift > 0;
	if (!*s || *s == '-' || *end || errno || b == 0 || b > (1ULL << 50) >> shift)
		return -1;
	*out = (uint64_t)b << shift;
	return 0;
}

/* Index of s in the NULL-terminated names, or -1. */
static int parse_choice(const char *s, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
}

static char *join_args(int argc, char **argv)
{
	size_t n = 1;
	for (int i = 0; i < argc; i++)
		n += strlen(argv[i]) + 1;
	char *s = malloc(n), *p = s;
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		size_t k = strlen(argv[i]);
		memcpy(p, argv[i], k);
		p += k;
		*p++ = i + 1 < argc ? ' ' : 0;
	}
	if (argc == 0)
		*p = 0;
	return s;
}

/* SIGINT, SIGTERM and SIGHUP stop the run cleanly: the records of the chunks already
 * aligned are written whole, then the output is closed (nw_request_stop). A second signal
 * while stopping (a read that does not return, say) ends the process at once. */
static void on_stop_signal(int signo)
{
	if (nw_stop_requested()) {
		signal(signo, SIG_DFL);
		raise(signo);
		return;
	}
	nw_request_stop(signo);
}

/* A signal ignored when the program starts stays ignored (nohup, a shell's background
 * jobs). */
static void catch_stop_signals(void)
{
	const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
		struct sigaction sa, old;
		if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_stop_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[k], &sa, NULL);
	}
}

/* nwalign index: a FASTA/FASTQ reference set packed once into a database file (nwdb.h). */
static void index_usage(FILE *fp)
{
	fprintf(fp,
"Usage: nwalign index [options] -o DB.nwdb FILE\n"
"Pack the sequences of FILE (FASTA or FASTQ, plain, gzip or bgzf; - for stdin) once into\n"
"a database that `nwalign -r DB.nwdb` (with --pairs all) loads without parsing. Names\n"
"are kept, qualities are not.\n"
"\n"
"  -o, --output FILE         the database to write (required)\n"
"  -a, --alphabet auto|dna|protein   [auto: decided from the first records, as nwalign does]\n"
"  -v, --verbose             say what was written on stderr\n"
"  -h, --help                this help on stdout, exit 0\n");
}

static int index_main(int argc, char **argv)
{
	static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
					     {"alphabet", required_argument, NULL, 'a'},
					     {"verbose", no_argument, NULL, 'v'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	static const char *const alphabets[] = {"auto", "dna", "protein", NULL};
	const char *out = NULL;
	nw_alphabet_t alphabet = NW_ALPHA_AUTO;
	int c, v, verbose = 0;
	char err[512];
	while ((c = getopt_long(argc, argv, ":o:a:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'v': verbose = 1; break;
		case 'h': index_usage(stdout); return fflush(stdout) == 0 ? 0 : 2;
		case 'a':
			if ((v = parse_choice(optarg, alphabets)) < 0)
				return usage_error("--alphabet must be auto, dna or protein, not '%s'%s", optarg, "");
			alphabet = (nw_alphabet_t)v;
			break;
		case ':':
			return usage_error("%s needs a value%s", argv[optind - 1], "");
		default:
			return usage_error("unknown option '%s' for nwalign index%s", argv[optind - 1], "");
		}
	}
	if (optind != argc - 1 || !out)
		return usage_error("nwalign index needs one input FILE and -o DB.nwdb%s%s", "", "");
	if (strcmp(out, "-") == 0) /* the header is written last, at the start of the file */
		return usage_error("nwalign index writes a file, not standard output (-o %s)%s", out, "");
	nw_db_info_t info;
	const char *chunk = getenv("NW_INDEX_CHUNK"); /* test hook: residues read at a time */
	const uint64_t residues = chunk && atoll(chunk) > 0 ? (uint64_t)atoll(chunk) : (uint64_t)64 << 20;
	int ret = nw_db_write(argv[optind], out, alphabet, residues, &info, err, sizeof err);
	if (ret < 0) {
		fprintf(stderr, "nwalign: error: %s\n", err);
		return ret == NW_ERR_USAGE ? 1 : 2;
	}
	if (verbose)
		fprintf(stderr, "nwalign: %s: %llu %s records, %llu residues, %llu bytes\n", out,
			(unsigned long long)info.records, nw_alphabet_name(info.alphabet),
			(unsigned long long)info.residues, (unsigned long long)info.file_size);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const pairings[] = {"all", "zip", NULL};
	static const char *const modes[] = {"global", "local", "semiglobal", NULL};
	static const char *const alphabets[] = {"auto", "dna", "protein", NULL};
	static const char *const formats[] = {"tsv", "paf", "sam", "blast6", NULL};
	static const char *const backends[] = {"auto", "cpu", "gpu", NULL};
	static const char *const strands[] = {"forward", "both", NULL};
	nw_opt_t opt, defaults;
	char err[512];
	int c, v, verbose = 0;

	nw_opt_init(&opt);
	defaults = opt;
	hts_set_log_level(HTS_LOG_OFF); /* our own one-line errors say what went wrong */
	opterr = 0;
	if (argc > 1 && strcmp(argv[1], "index") == 0)
		return index_main(argc - 1, argv + 1);
	while ((c = getopt_long(argc, argv, ":q:r:a:m:f:co:t:vhV", long_opts, NULL)) != -1) {
		switch (c) {
		case 'q': opt.query_path = optarg; break;
		case 'r': opt.ref_path = optarg; break;
		case 'o': opt.out_path = optarg; break;
		case 'c': opt.cigar = 1; break;
		case OPT_EXACT: opt.exact = 1; break;
		case OPT_GACT: opt.gact = 1; break;
		case OPT_MAX_DEFICIT: {
			char *end;
			errno = 0;
			opt.max_deficit = strtod(optarg, &end);
			if (!*optarg || *end || errno || !(opt.max_deficit >= 0 && opt.max_deficit <= 1))
				return usage_error("--max-deficit needs a fraction from 0 to 1, not '%s'%s",
						   optarg, "");
			break;
		}
		case OPT_MAX_MEMORY:
		case OPT_GPU_MEMORY:
			if (parse_size(optarg, c == OPT_MAX_MEMORY ? &opt.max_memory : &opt.gpu_memory) < 0)
				return usage_error("--%s needs a size such as 512M, 16G or 1T, not '%s'",
						   long_name(c), optarg);
			break;
		case 'v': verbose++; break;
		case OPT_NO_HEADER: opt.header = 0; break;
		case OPT_MATRIX: opt.matrix = optarg; break;
		case 'h': usage(stdout, &defaults); return fflush(stdout) == 0 ? 0 : 2;
		case 'V': printf("nwalign %s\n", NW_VERSION_STRING); return fflush(stdout) == 0 ? 0 : 2;
		case OPT_PAIRS:
			if ((v = parse_choice(optarg, pairings)) < 0)
				return usage_error("--pairs must be all or zip, not '%s'%s", optarg, "");
			opt.pairing = (nw_pairing_t)v;
			break;
		case 'm':
			if ((v = parse_choice(optarg, modes)) < 0)
				return usage_error("--mode must be global, local or semiglobal, not '%s'%s", optarg, "");
			opt.mode = (nw_mode_t)v;
			break;
		case 'a':
			if ((v = parse_choice(optarg, alphabets)) < 0)
				return usage_error("--alphabet must be auto, dna or protein, not '%s'%s", optarg, "");
			opt.alphabet = (nw_alphabet_t)v;
			break;
		case 'f':
			if ((v = parse_choice(optarg, formats)) < 0)
				return usage_error("--format must be tsv, paf, sam or blast6, not '%s'%s", optarg, "");
			opt.format = (nw_format_t)v;
			break;
		case OPT_STRAND:
			if ((v = parse_choice(optarg, strands)) < 0)
				return usage_error("--strand must be forward or both, not '%s'%s", optarg, "");
			opt.both_strands = v;
			break;
		case OPT_BACKEND:
			if ((v = parse_choice(optarg, backends)) < 0)
				return usage_error("--backend must be auto, cpu or gpu, not '%s'%s", optarg, "");
			opt.backend = (nw_backend_t)v;
			break;
		case OPT_MATCH:
		case OPT_MISMATCH:
		case OPT_GAP_OPEN:
		case OPT_GAP_EXTEND:
		case OPT_DEVICE:
		case OPT_TOP:
		case OPT_TILE:
		case OPT_OVERLAP:
		case 't':
		case OPT_BATCH: {
			int *dst = c == OPT_MATCH ? &opt.match : c == OPT_MISMATCH ? &opt.mismatch
				 : c == OPT_GAP_OPEN ? &opt.gap_open : c == OPT_GAP_EXTEND ? &opt.gap_extend
				 : c == OPT_DEVICE ? &opt.device : c == OPT_TOP ? &opt.top
				 : c == OPT_TILE ? &opt.tile : c == OPT_OVERLAP ? &opt.overlap
				 : c == 't' ? &opt.threads : NULL;
			if (parse_int(optarg, INT_MIN, INT_MAX, &v) < 0)
				return usage_error("--%s needs an integer, not '%s'", long_name(c), optarg);
			if (v == NW_OPT_UNSET) /* the value that means "not given": out of every range */
				return usage_error("--%s is out of range (got %s)", long_name(c), optarg);
			if (v < 0 && (c == OPT_TILE || c == OPT_OVERLAP)) /* -1 means "default" */
				return usage_error("--%s must not be negative (got %s)", long_name(c), optarg);
			if (dst)
				*dst = v;
			else
				opt.batch_records = v;
			break;
		}
		case ':':
			return usage_error("%s needs a value%s", argv[optind - 1], "");
		default:
			return usage_error("unknown option '%s'%s", argv[optind - 1], "");
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'%s", argv[optind], "");
	nw_log_level = NW_LOG_WARN + verbose;
	opt.verbose = verbose;
	if (nw_opt_check(&opt, err, sizeof err) < 0) {
		fprintf(stderr, "nwalign: error: %s (see nwalign --help)\n", err);
		return 1;
	}
	char *cl = join_args(argc, argv);
	opt.command_line = cl ? cl : "nwalign";
	/* the process ends after the run: an opened GPU is released after it returns
	 * (process_exit.c), unless NWALIGN_WAIT_RELEASE asks to wait for it */
	const char *wait_release = getenv("NWALIGN_WAIT_RELEASE");
	opt.leave_device = !(wait_release && *wait_release && strcmp(wait_release, "0") != 0);
	catch_stop_signals();
	int ret = nw_run(&opt, err, sizeof err);
	free(cl);
	int status = 0;
	if (ret < 0) {
		fprintf(stderr, "nwalign: error: %s\n", err);
		status = ret == NW_ERR_INTERRUPTED && nw_stop_requested() > 0
				 ? 128 + nw_stop_requested() /* the shell's convention for a signal */
				 : ret == NW_ERR_USAGE ? 1 : 2;
	}
	if (nw_device_left_open())
		nw_exit_leaving_device(status);
	if (nw_gpu_left_opening()) { /* not exit(): see nwalign.h */
		if (fflush(NULL) != 0 && status == 0)
			status = 2;
		_exit(status);
	}
	return status;
}
