/* fuzz_matrix.c: the NCBI matrix parser (src/scoring.c) on any text. The first byte picks
 * the alphabet; a parsed matrix must score every code pair within the documented range. */
#include "fuzz.h" /* first: it asks for _GNU_SOURCE */

#include <stdlib.h>
#include <string.h>

#include "nwalign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	nw_scoring_t sc;
	char err[512];
	memset(&sc, 0, sizeof sc);
	if (nw_scoring_parse_ncbi(&sc, text, data[0] & 1 ? NW_ALPHA_PROTEIN : NW_ALPHA_DNA, err,
				  sizeof err) == 0) {
		for (int a = 0; a < sc.n_codes; a++)
			for (int b = 0; b < sc.n_codes; b++)
				if (sc.score[a][b] < -1000 || sc.score[a][b] > 1000)
					__builtin_trap();
	}
	free(text);
	return 0;
}
