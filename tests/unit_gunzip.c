/* unit_gunzip.c: gzip input through ISA-L (src/io/gunzip.c) against zlib's compression.
 *
 * FASTA-like text and random bytes, compressed by zlib (levels 1, 6 and 9, stored blocks
 * at level 0), in one member, in three members one after the other, and an empty member
 * among them, read back with compressed pieces of 7, 4093 and 256 KiB bytes into output
 * buffers of 13, 65536 and 1 MiB bytes (and of single bytes, for the smallest stream):
 * the same bytes, then 0. A stream cut
 * anywhere (every length of a small file, and points through a large one), a wrong CRC-32,
 * a wrong length, a changed byte inside the data and bytes after the last member that
 * start none must end in -1, after at most the bytes that were there, never a clean end.
 * Skipped (77) when the build has no ISA-L (htslib reads every gzip file then).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gunzip.h"
#include "testutil.h"

static uint64_t seed = 0x9e3779b97f4a7c15ull;

/* One gzip member of src[0..n) at level into out; returns its size. */
static size_t gz_member(const unsigned char *src, size_t n, int level, unsigned char *out,
			size_t cap)
{
	z_stream s;
	memset(&s, 0, sizeof s);
	if (deflateInit2(&s, level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return 0;
	s.next_in = (unsigned char *)src;
	s.avail_in = (uInt)n;
	s.next_out = out;
	s.avail_out = (uInt)cap;
	int ret = deflate(&s, Z_FINISH);
	size_t got = cap - s.avail_out;
	deflateEnd(&s);
	return ret == Z_STREAM_END ? got : 0;
}

/* A pipe would not do (the reader takes regular files): a temporary file of bytes. */
static int temp_fd(const unsigned char *data, size_t n)
{
	char path[] = "/tmp/unit_gunzip.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -1;
	unlink(path);
	if (write(fd, data, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads the whole stream: the bytes into out (at most cap), the last return into *last. */
static size_t drain(const unsigned char *gz, size_t gz_n, size_t in_cap, size_t out_cap,
		    unsigned char *out, size_t cap, ssize_t *last)
{
	int fd = temp_fd(gz, gz_n);
	nw_gunzip_t *z = fd >= 0 ? nw_gunzip_open_sized(fd, in_cap) : NULL;
	size_t got = 0;
	*last = -2;
	if (!z) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	char *buf = malloc(out_cap);
	for (;;) {
		ssize_t n = nw_gunzip_read(z, buf, out_cap);
		*last = n;
		if (n <= 0)
			break;
		if (got + (size_t)n <= cap)
			memcpy(out + got, buf, (size_t)n);
		got += (size_t)n;
	}
	/* an end, or an error, is sticky */
	ssize_t again = nw_gunzip_read(z, buf, out_cap);
	if (again != (*last < 0 ? -1 : 0))
		*last = -3;
	free(buf);
	nw_gunzip_close(z);
	return got;
}

static size_t make_text(unsigned char *t, size_t n, int fasta)
{
	size_t k = 0;
	while (k < n) {
		if (fasta) {
			k += (size_t)snprintf((char *)t + k, n - k, ">read_%llu some description\n",
					      (unsigned long long)(tu_rand(&seed) % 100000));
			for (int line = 0; line < 3 && k < n; line++) {
				for (int j = 0; j < 60 && k < n; j++)
					t[k++] = "ACGT"[tu_rand(&seed) % 4];
				if (k < n)
					t[k++] = '\n';
			}
		} else {
			t[k++] = (unsigned char)tu_rand(&seed);
		}
	}
	return n;
}

int main(void)
{
	if (!nw_gunzip_available()) {
		printf("unit_gunzip: no ISA-L in this build (or NWALIGN_GUNZIP=htslib): skipped\n");
		return 77;
	}
	enum { BIG = 3 << 20 };
	unsigned char *text = malloc(BIG), *gz = malloc(2 * BIG), *out = malloc(BIG + 64);
	const size_t in_caps[] = {1, 7, 4093, 256 << 10}, out_caps[] = {1, 13, 65536, 1 << 20};

	/* whole streams: single and several members */
	for (int shape = 0; shape < 4; shape++) {
		const int fasta = shape != 3, level = shape == 0 ? 6 : shape == 1 ? 1 : shape == 2 ? 9 : 0;
		const size_t n = shape == 3 ? 200000 : BIG;
		make_text(text, n, fasta);
		size_t gz_n = 0;
		const int members = shape == 1 ? 3 : 1;
		for (int m = 0; m < members; m++) { /* thirds, with an empty member after the first */
			size_t a = n * m / members, b = n * (m + 1) / members;
			gz_n += gz_member(text + a, b - a, level, gz + gz_n, 2 * BIG - gz_n);
			if (m == 0 && members > 1)
				gz_n += gz_member(text, 0, level, gz + gz_n, 2 * BIG - gz_n);
		}
		CHECK(gz_n > 0, "compress shape %d", shape);
		for (size_t a = 0; a < 4; a++)
			for (size_t b = 0; b < 4; b++) {
				if ((in_caps[a] == 1 || out_caps[b] == 1) && n > 300000)
					continue; /* a byte at a time: the small shape only */
				ssize_t last;
				size_t got = drain(gz, gz_n, in_caps[a], out_caps[b], out, BIG + 64, &last);
				CHECK(last == 0 && got == n && !memcmp(out, text, n),
				      "shape %d (%d member%s, level %d), pieces %zu, out %zu: %zu of %zu "
				      "bytes, last %zd", shape, members, members > 1 ? "s" : "", level,
				      in_caps[a], out_caps[b], got, n, last);
			}
	}

	/* broken streams: a small file cut at every length, a large one at many points */
	make_text(text, 5000, 1);
	size_t small = gz_member(text, 5000, 6, gz, 2 * BIG);
	for (size_t cut = 1; cut < small; cut++) {
		ssize_t last;
		size_t got = drain(gz, cut, cut % 2 ? 7 : 4096, 4096, out, BIG, &last);
		CHECK(last == -1 && got <= 5000 && !memcmp(out, text, got),
		      "cut at %zu of %zu: %zu bytes, last %zd", cut, small, got, last);
	}
	make_text(text, BIG, 1);
	size_t big = gz_member(text, BIG, 6, gz, 2 * BIG);
	for (size_t cut = 10; cut < big; cut += big / 37 + 1) {
		ssize_t last;
		size_t got = drain(gz, cut, 256 << 10, 1 << 20, out, BIG, &last);
		CHECK(last == -1 && got < BIG && !memcmp(out, text, got),
		      "large cut at %zu of %zu: %zu bytes, last %zd", cut, big, got, last);
	}
	/* a changed byte: the CRC-32, the length, the compressed data */
	const char *what[] = {"CRC-32", "length", "data", "data"};
	for (int k = 0; k < 4; k++) {
		make_text(text, 5000, 1);
		small = gz_member(text, 5000, 6, gz, 2 * BIG);
		const size_t at = k == 0 ? small - 8 : k == 1 ? small - 2 : k == 2 ? 100 : small / 2;
		gz[at] ^= 0x10;
		ssize_t last;
		drain(gz, small, 4096, 65536, out, BIG, &last);
		CHECK(last == -1, "a changed %s byte (%zu of %zu): last %zd", what[k], at, small, last);
	}
	/* trailing bytes: garbage, a lone magic, zeros */
	make_text(text, 5000, 1);
	small = gz_member(text, 5000, 6, gz, 2 * BIG);
	const char *tails[] = {"garbage\n", "\x1f\x8b", "\0\0\0\0"};
	const size_t tail_n[] = {8, 2, 4};
	for (int k = 0; k < 3; k++) {
		memcpy(gz + small, tails[k], tail_n[k]);
		ssize_t last;
		size_t got = drain(gz, small + tail_n[k], 4096, 65536, out, BIG, &last);
		CHECK(last == -1 && got == 5000 && !memcmp(out, text, 5000),
		      "trailing bytes %d: %zu bytes, last %zd", k, got, last);
	}
	free(text);
	free(gz);
	free(out);
	return tu_finish("unit_gunzip");
}
