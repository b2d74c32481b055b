/* replay.c: runs a harness over files given on the command line (the corpus and the
 * crashes kept in tests/fuzz/), without libFuzzer: make check's side of the fuzzing. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		FILE *fp = fopen(argv[i], "rb");
		if (!fp) {
			fprintf(stderr, "replay: cannot open %s\n", argv[i]);
			return 2;
		}
		size_t cap = 1 << 16, n = 0, got;
		uint8_t *buf = malloc(cap);
		while (buf && (got = fread(buf + n, 1, cap - n, fp)) > 0)
			if ((n += got) == cap && !(buf = realloc(buf, cap *= 2)))
				break;
		fclose(fp);
		if (!buf) {
			fprintf(stderr, "replay: out of memory on %s\n", argv[i]);
			return 2;
		}
		LLVMFuzzerTestOneInput(buf, n);
		free(buf);
	}
	printf("replay: %d inputs\n", argc - 1);
	return 0;
}
