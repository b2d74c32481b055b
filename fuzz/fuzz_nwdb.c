/* fuzz_nwdb.c: the database loader (src/io/nwdb.c) on any bytes as a database file. Most
 * changes to a file only meet its checksums, so unless byte 120 (reserved) is odd the
 * harness writes the right checksums into the header first: the loader's checks of the
 * sizes, sections and records then meet the changed bytes. A database the loader accepts
 * must be safe to read whole: every residue of every record and every name. */
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
	int fd = nw_fuzz_file(img, size, path);
	if (fd >= 0) {
		nw_batch_t b;
		nw_db_info_t info;
		nw_batch_init(&b, NW_ALPHA_AUTO);
		if (nw_db_is_db(path))
			(void)nw_db_info(path, &info, err, sizeof err);
		if (nw_db_load(path, &b, err, sizeof err) == 0) {
			uint64_t sum = 0;
			for (int64_t i = 0; i < b.n; i++) {
				for (uint64_t k = 0; k < b.len[i]; k++)
					sum += nw_batch_code(&b, i, k);
				sum += strlen(nw_batch_name(&b, i));
			}
			if (sum == UINT64_MAX) /* keeps the reads */
				__builtin_trap();
		}
		nw_batch_free(&b);
		close(fd);
	}
	free(img);
	return 0;
}
