/* fuzz_pipeline.c: the whole run (src/pipeline/: reading, alphabet, scoring, the CPU
 * engine, paths, the write stage, the partitions of --top) on tiny inputs. The first two
 * bytes choose the mode, format, pairing, paths, strands, --top, threads, batch size and
 * --max-memory; the rest, cut at the first 0xFF byte, is the query file and then the
 * reference file (formats: tsv, paf, sam from the first byte, blast6 from the second).
 * Output goes to /dev/null; errors are fine, crashes, leaks and hangs are not. */
#include "fuzz.h" /* first: it asks for _GNU_SOURCE */

#include <string.h>

#include "nwalign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	const uint8_t a = data[0], b = data[1];
	data += 2, size -= 2;
	const uint8_t *cut = memchr(data, 0xff, size);
	const size_t nq = cut ? (size_t)(cut - data) : size / 2;
	const size_t nr = cut ? size - nq - 1 : size - nq;
	char qpath[64], rpath[64], err[512];
	int qfd = nw_fuzz_file(data, nq, qpath), rfd = nw_fuzz_file(data + size - nr, nr, rpath);
	if (qfd >= 0 && rfd >= 0) {
		nw_opt_t opt;
		nw_opt_init(&opt);
		opt.query_path = qpath;
		opt.ref_path = rpath;
		opt.out_path = "/dev/null";
		opt.backend = NW_BACKEND_CPU;
		opt.mode = (nw_mode_t)(a % 3);
		opt.format = (nw_format_t)(a / 3 % 3);
		opt.pairing = a / 9 % 2 ? NW_PAIRS_ZIP : NW_PAIRS_ALL;
		opt.cigar = a / 18 % 2;
		opt.both_strands = a / 36 % 2;
		opt.top = opt.pairing == NW_PAIRS_ALL ? a / 72 % 3 : 0;
		opt.threads = 1 + b % 3;
		opt.batch_records = 1 + b / 3 % 5;
		opt.alphabet = (nw_alphabet_t)(b / 15 % 3);
		if (b / 45 % 2) /* blast6 needs local protein: refusals and runs both */
			opt.format = NW_FMT_BLAST6;
		if (b / 90 % 3) /* references over --max-memory: refused, or partitions (--top) */
			opt.max_memory = b / 90 % 3 == 1 ? 48 : 300;
		if (nw_opt_check(&opt, err, sizeof err) == 0)
			nw_run(&opt, err, sizeof err);
	}
	if (qfd >= 0)
		close(qfd);
	if (rfd >= 0)
		close(rfd);
	return 0;
}
