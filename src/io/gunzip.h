/* gunzip.h: streaming decompression of a gzip file (not BGZF) with ISA-L's inflate, for
 * the reader (seqio.c).
 *
 * htslib's BGZF layer reads plain gzip through zlib's inflate, about 0.7 GB of output a
 * second a core here; ISA-L's is two to three times as fast, with the same streaming
 * interface, and a short-read run from gzip files spends a fifth of its CPU time there.
 * BGZF files stay with htslib (which decodes their blocks with libdeflate), as do stdin
 * and pipes. Built only when configure finds ISA-L (Debian: libisal-dev); otherwise
 * every compressed file goes through htslib.
 *
 * The stream holds any number of gzip members one after the other (as `cat a.gz b.gz`
 * makes), each checked against its CRC-32 and length; anything else after a member, a
 * member cut short and corrupt data are errors, as they are through htslib.
 */
#ifndef NW_GUNZIP_H
#define NW_GUNZIP_H

#include <stddef.h>
#include <sys/types.h>

typedef struct nw_gunzip_s nw_gunzip_t;

/* 1 when this build decompresses gzip itself (ISA-L found) and the environment does not
 * turn it off (NWALIGN_GUNZIP=htslib: tests and comparisons). */
int nw_gunzip_available(void);
/* A stream over the open descriptor fd, read from its start; it takes fd (closed by
 * nw_gunzip_close). NULL when out of memory (fd left open). */
nw_gunzip_t *nw_gunzip_open(int fd);
/* The same, reading the compressed file in pieces of in_cap bytes (0: the default); for
 * tests of pieces that end anywhere. */
nw_gunzip_t *nw_gunzip_open_sized(int fd, size_t in_cap);
/* Up to cap decompressed bytes into buf: the count (at least 1 while there is more),
 * 0 at the end of the last member, -1 on a read error, corrupt data, a member cut short or
 * trailing bytes that start no member. An error is sticky. */
ssize_t nw_gunzip_read(nw_gunzip_t *z, char *buf, size_t cap);
void nw_gunzip_close(nw_gunzip_t *z);

#endif
