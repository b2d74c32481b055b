/* fuzz_nwdb.c: the database loader (src/io/nwdb.c) on any bytes as a database file. Most
 * changes to a file only meet its checksums, so unless byte 120 (reserved) is odd the
 * harness writes the right checksums into the header first: the loader's checks of the
 * sizes, sections and records then meet the changed bytes. A database the loader accepts
 * must be safe to read whole: every residue of every record and every name. The same
 * file goes through the partition reader (--top over a database larger than memory), in
 * partitions of 1 to 64 residues (byte 121): what it accepts must be as safe to read, and
 * where both accept the file they must give the same records. The loader reads in parts
 * of 24 bytes on 1 to 4 threads (byte 122), whose checksums it combines. */
#include "fuzz.h" /* first: it asks for _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "nwalign.h"
#include "nwdb.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* Every residue and name of b, summed: reads them all, and compares two readings. */
static uint64_t contents(const nw_batch_t *b)
{
	uint64_t sum = 0;
	for (int64_t i = 0; i < b->n; i++) {
		for (uint64_t k = 0; k < b->len[i]; k++)
			sum += nw_batch_code(b, i, k) + 1;
		sum += strlen(nw_batch_name(b, i)) + 1;
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *img = malloc(size ? size : 1);
	if (!img)
		return 0;
	memcpy(img, data, size);
	if (size >= NW_DB_HEADER && !(img[120] & 1)) {
		put32(img + 112, (uint32_t)adler32_z(adler32(0, NULL, 0), img + NW_DB_HEADER,
						     size - NW_DB_HEADER));
		put32(img + 116, (uint32_t)adler32(1, img, 116));
	}
	char path[64], err[512];
	setenv("NW_DB_LOAD_PART", "24", 1);
	const int threads = size > 122 ? 1 + data[122] % 4 : 1;
	int fd = nw_fuzz_file(img, size, path);
	if (fd >= 0) {
		nw_batch_t b;
		nw_db_info_t info = {0};
		nw_batch_init(&b, NW_ALPHA_AUTO);
		if (nw_db_is_db(path))
			(void)nw_db_info(path, &info, err, sizeof err);
		const int whole = nw_db_load(path, &b, threads, err, sizeof err) == 0;
		const uint64_t sum = whole ? contents(&b) : 0;
		nw_db_parts_t *d = NULL;
		if (nw_db_parts_open(path, threads, &d, err, sizeof err) == 0) {
			const uint64_t cap = size > 121 ? 1 + data[121] % 64 : 1;
			uint64_t parts_sum = 0;
			int64_t records = 0;
			int ret;
			while ((ret = nw_db_parts_next(d, cap, &b, err, sizeof err)) == 1) {
				parts_sum += contents(&b);
				records += b.n;
			}
			if (ret == 0 && whole && (parts_sum != sum || (uint64_t)records != info.records))
				__builtin_trap(); /* the partitions are not the database */
			nw_db_parts_close(d);
		}
		nw_batch_free(&b);
		close(fd);
	}
	free(img);
	return 0;
}
