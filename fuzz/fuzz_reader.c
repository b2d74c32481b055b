/* fuzz_reader.c: the FASTA/FASTQ reader and packer (src/io/seqio.c, pack.c) on any bytes,
 * plain or compressed (htslib tells them apart). The first byte picks the alphabet and
 * the batch size; the rest is the file. Batches are read and packed to the end or the
 * first error, as the pipeline does. */
#include "fuzz.h"
#include "nwalign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	static const nw_alphabet_t alpha[3] = {NW_ALPHA_AUTO, NW_ALPHA_DNA, NW_ALPHA_PROTEIN};
	const nw_alphabet_t a = alpha[data[0] % 3];
	const int64_t batch = 1 + (data[0] >> 2) % 8;
	char path[64], err[512];
	int fd = nw_fuzz_file(data + 1, size - 1, path);
	if (fd < 0)
		return 0;
	nw_reader_t *r = nw_reader_open(path, err, sizeof err);
	if (r) {
		nw_batch_t b, rc;
		nw_batch_init(&b, a);
		nw_batch_init(&rc, a);
		for (int rounds = 0; rounds < 1000; rounds++) {
			int64_t n = nw_reader_fill(r, batch, 1 << 20, err, sizeof err);
			if (n <= 0)
				break;
			uint64_t counts[256] = {0};
			nw_reader_count_chars(r, counts);
			if (nw_reader_encode(r, a, &b, err, sizeof err) < 0)
				break;
			if (b.n != n)
				__builtin_trap(); /* every pending record packed */
			if (b.alphabet == NW_ALPHA_DNA && nw_batch_revcomp(&b, &rc) < 0)
				break;
		}
		nw_batch_free(&b);
		nw_batch_free(&rc);
		nw_reader_close(r);
	}
	close(fd);
	return 0;
}
