/* options.c: defaults and checks of the run options (the help text prints these). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nwalign.h"
#include "path.h"

void nw_opt_init(nw_opt_t *opt)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	memset(opt, 0, sizeof *opt);
	opt->pairing = NW_PAIRS_ALL;
	opt->mode = NW_MODE_GLOBAL;
	opt->alphabet = NW_ALPHA_AUTO;
	opt->match = NW_OPT_UNSET;      /* DNA default 2 */
	opt->mismatch = NW_OPT_UNSET;   /* DNA default 4 */
	opt->gap_open = NW_OPT_UNSET;   /* the alphabet's default */
	opt->gap_extend = NW_OPT_UNSET;
	opt->format = NW_FMT_TSV;
	opt->header = 1;
	opt->threads = ncpu > 0 ? (int)(ncpu < 256 ? ncpu : 256) : 1;
	opt->backend = NW_BACKEND_AUTO;
	opt->batch_records = 262144;
	opt->batch_residues = (uint64_t)64 << 20;
	opt->tile = -1;       /* -1: NW_GACT_TILE_DEFAULT */
	opt->overlap = -1;    /* -1: NW_GACT_OVERLAP_DEFAULT, or 3/8 of a smaller tile */
	opt->max_deficit = -1; /* -1: NW_GACT_MAX_DEFICIT */
}

int nw_opt_wants_path(const nw_opt_t *opt)
{
	return opt->cigar || opt->format != NW_FMT_TSV;
}

void nw_opt_gact(const nw_opt_t *opt, int *tile, int *overlap)
{
	int t = opt->tile >= 0 ? opt->tile : NW_GACT_TILE_DEFAULT;
	int o = t * 3 / 8 < NW_GACT_OVERLAP_DEFAULT ? t * 3 / 8 : NW_GACT_OVERLAP_DEFAULT;
	*tile = t;
	*overlap = opt->overlap >= 0 ? opt->overlap : o;
}

int nw_opt_check(const nw_opt_t *opt, char *err, size_t errlen)
{
	if (!opt->query_path || !opt->ref_path) {
		snprintf(err, errlen, "both -q/--query and -r/--ref are required");
		return NW_ERR_USAGE;
	}
	if (strcmp(opt->query_path, "-") == 0 && strcmp(opt->ref_path, "-") == 0) {
		snprintf(err, errlen, "only one of --query and --ref can be read from stdin");
		return NW_ERR_USAGE;
	}
	if (opt->threads < 1 || opt->threads > 1024) {
		snprintf(err, errlen, "--threads must be between 1 and 1024 (got %d)", opt->threads);
		return NW_ERR_USAGE;
	}
	if (opt->batch_records < 1 || opt->batch_records > (1 << 24)) {
		snprintf(err, errlen, "--batch-size must be between 1 and %d", 1 << 24);
		return NW_ERR_USAGE;
	}
	if (opt->top < 0) {
		snprintf(err, errlen, "--top must be 0 (every pair) or more (got %d)", opt->top);
		return NW_ERR_USAGE;
	}
	if (opt->top > 0 && opt->pairing == NW_PAIRS_ZIP) {
		snprintf(err, errlen, "--top ranks the references of each query, so it needs --pairs all");
		return NW_ERR_USAGE;
	}
	if (opt->format == NW_FMT_BLAST6 && opt->mode != NW_MODE_LOCAL) {
		snprintf(err, errlen, "-f blast6 reports local alignments and their E-values: it needs -m local");
		return NW_ERR_USAGE;
	}
	if (opt->device < 0) {
		snprintf(err, errlen, "--device must be 0 or more (got %d)", opt->device);
		return NW_ERR_USAGE;
	}
	if ((opt->match != NW_OPT_UNSET && (opt->match < 0 || opt->match > 1000)) ||
	    (opt->mismatch != NW_OPT_UNSET && (opt->mismatch < 0 || opt->mismatch > 1000))) {
		snprintf(err, errlen, "--match and --mismatch must be between 0 and 1000 (the mismatch is a positive penalty)");
		return NW_ERR_USAGE;
	}
	if (opt->gap_open != NW_OPT_UNSET && (opt->gap_open < 0 || opt->gap_open > 1000)) {
		snprintf(err, errlen, "--gap-open must be between 0 and 1000 (got %d)", opt->gap_open);
		return NW_ERR_USAGE;
	}
	if (opt->gap_extend != NW_OPT_UNSET && (opt->gap_extend < 1 || opt->gap_extend > 1000)) {
		snprintf(err, errlen, "--gap-extend must be between 1 and 1000 (got %d)",
			 opt->gap_extend);
		return NW_ERR_USAGE;
	}
	if (opt->matrix && (opt->match != NW_OPT_UNSET || opt->mismatch != NW_OPT_UNSET)) {
		snprintf(err, errlen, "--matrix and --match/--mismatch cannot be combined");
		return NW_ERR_USAGE;
	}
	if (opt->matrix && opt->alphabet != NW_ALPHA_AUTO) {
		nw_alphabet_t m = nw_matrix_builtin_alphabet(opt->matrix);
		if (m != NW_ALPHA_AUTO && m != opt->alphabet) {
			snprintf(err, errlen, "matrix %s is for %s sequences, but --alphabet is %s",
				 opt->matrix, nw_alphabet_name(m), nw_alphabet_name(opt->alphabet));
			return NW_ERR_USAGE;
		}
	}
	/* --tile, --overlap, --max-deficit shape GACT paths: without --gact they would be
	 * silently ignored, so they are an error. A tile keeps at least 8 rows and columns of
	 * its path. */
	if (opt->gact && opt->exact) {
		snprintf(err, errlen, "--gact and --exact contradict each other (exact paths are the default)");
		return NW_ERR_USAGE;
	}
	if (!opt->gact && (opt->tile != -1 || opt->overlap != -1 || opt->max_deficit >= 0)) {
		snprintf(err, errlen, "--%s shapes GACT paths, which only --gact asks for",
			 opt->tile != -1 ? "tile" : opt->overlap != -1 ? "overlap" : "max-deficit");
		return NW_ERR_USAGE;
	}
	if (opt->max_deficit >= 0 && !(opt->max_deficit <= 1)) {
		snprintf(err, errlen, "--max-deficit must be a fraction from 0 to 1 (got %g)",
			 opt->max_deficit);
		return NW_ERR_USAGE;
	}
	int tile, overlap;
	nw_opt_gact(opt, &tile, &overlap);
	if (opt->tile != -1 && (opt->tile < 16 || opt->tile > 4096)) {
		snprintf(err, errlen, "--tile must be between 16 and 4096 (got %d)", opt->tile);
		return NW_ERR_USAGE;
	}
	if (opt->overlap != -1 && (overlap < 0 || overlap > tile - 8)) {
		snprintf(err, errlen, "--overlap must be between 0 and %d, the tile size %d minus 8 "
			 "(got %d)", tile - 8, tile, opt->overlap);
		return NW_ERR_USAGE;
	}
	if (opt->alphabet == NW_ALPHA_PROTEIN && opt->both_strands) {
		snprintf(err, errlen, "--strand both needs DNA; protein has one strand");
		return NW_ERR_USAGE;
	}
	if (opt->alphabet == NW_ALPHA_PROTEIN && (opt->match != NW_OPT_UNSET || opt->mismatch != NW_OPT_UNSET)) {
		snprintf(err, errlen, "--match/--mismatch score DNA; protein is scored by --matrix");
		return NW_ERR_USAGE;
	}
	return 0;
}
