/* fuzz_options.c: the command line (src/main.c, built here with main renamed
 * nw_cli_main) on any arguments: the input, split at NUL and newline bytes, gives up to 24
 * arguments. Every run then names two tiny in-memory inputs and /dev/null as the last
 * -q, -r and -o (the last of an option wins), so a valid command aligns them on the CPU
 * and nothing is written anywhere. Usage errors, help and version pass through. */
#include "fuzz.h" /* first: it asks for _GNU_SOURCE */

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int nw_cli_main(int argc, char **argv);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t q[] = ">q1\nACGTTGCAAGGCT\n>q2\nTTGACGTA\n";
	static const uint8_t r[] = ">r1\nACGTAGCAAGGCTTA\n>r2\nGGACGTAT\n";
	char qpath[64], rpath[64];
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char *argv[24 + 10];
	int argc = 0;
	argv[argc++] = "nwalign";
	for (char *p = text; p < text + size && argc < 25;) {
		char *e = p + strcspn(p, "\n");
		*e = '\0';
		argv[argc++] = p;
		p = e + 1;
	}
	int qfd = nw_fuzz_file(q, sizeof q - 1, qpath), rfd = nw_fuzz_file(r, sizeof r - 1, rpath);
	if (qfd >= 0 && rfd >= 0) {
		char *tail[] = {"-q", qpath, "-r", rpath, "-o", "/dev/null", "--backend", "cpu", NULL};
		for (int k = 0; tail[k]; k++)
			argv[argc++] = tail[k];
		argv[argc] = NULL;
		optind = 0; /* getopt starts over */
		FILE *keep = stdout;
		stdout = fopen("/dev/null", "w"); /* --help and --version print there */
		if (stdout) {
			nw_cli_main(argc, argv);
			fclose(stdout);
		}
		stdout = keep;
	}
	if (qfd >= 0)
		close(qfd);
	if (rfd >= 0)
		close(rfd);
	free(text);
	return 0;
}
