/* fuzz.h: what the fuzz harnesses share. Each harness defines LLVMFuzzerTestOneInput;
 * `make fuzz` links it with libFuzzer (clang), and make check links it with replay.c to
 * run the kept corpus and every crash ever found (tests/fuzz_smoke.sh).
 *
 * The readers open paths (htslib), so inputs go to an in-memory file whose /proc path is
 * given to them: no file on disk, nothing left behind. */
#ifndef NW_FUZZ_H
#define NW_FUZZ_H

#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An in-memory file holding data[0, size); its path goes to path (room for 64). Returns
 * the descriptor (close it after use) or -1. */
static inline int nw_fuzz_file(const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create("nwfuzz", 0);
	if (fd < 0)
		return -1;
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
