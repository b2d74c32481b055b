/* nwdb.h: the packed database file (`nwalign index`): a reference set read, checked and
 * packed once, then loaded by `-r FILE.nwdb` with no parsing.
 *
 * The file holds a packed batch's arrays (nwalign.h) as they lie in memory, each in a
 * section of its own that starts on a 64-byte boundary (so that the file could be mapped
 * and used in place), behind a header of 128 bytes, all little-endian:
 *
 *   0   magic "NWALDB\r\n" (the \r\n catches a copy that rewrote line ends)
 *   8   u32 format version (NW_DB_VERSION)     12  u32 alphabet (1 DNA, 2 protein)
 *   16  u64 records                             24  u64 residues
 *   32  u64 32-bit words of packed residues     40  u64 bytes of names (NUL-terminated)
 *   48  u32 longest record                      52  u32 zero
 *   56  u64 x 6 section offsets: words, offset (u64 a record), len (u32), bits (u8),
 *       name_off (u64), names
 *   104 u64 file size                           112 u32 Adler-32 of bytes [128, size)
 *   116 u32 Adler-32 of bytes [0, 116)          120 8 bytes zero
 *
 * A file that is not one, of another version or byte order, truncated, or whose checksums
 * or arrays do not hold together is refused with a message that says which.
 */
#ifndef NW_IO_NWDB_H
#define NW_IO_NWDB_H

#include <stddef.h>
#include <stdint.h>

#include "nwalign.h"

#define NW_DB_VERSION 1
#define NW_DB_HEADER 128

typedef struct {
	nw_alphabet_t alphabet;
	uint64_t records, residues, file_size;
	uint32_t max_len;
} nw_db_info_t;

/* 1 when path names a regular file that starts with the magic (a database), else 0. */
int nw_db_is_db(const char *path);

/* Read the FASTA/FASTQ file in (plain or compressed) in chunks of about chunk_residues and
 * write its database to out; alphabet NW_ALPHA_AUTO: guessed from the first chunk, as
 * nwalign guesses an input's. info (may be NULL) gets what was written. 0 or a negative
 * code with a message. */
int nw_db_write(const char *in, const char *out, nw_alphabet_t alphabet,
		uint64_t chunk_residues, nw_db_info_t *info, char *err, size_t errlen);

/* The header of the database at path, checked. 0 or a negative code with a message. */
int nw_db_info(const char *path, nw_db_info_t *info, char *err, size_t errlen);

/* Load the database at path into b (freed and refilled), checked: sizes, checksums, and
 * that every record lies inside the arrays; read on up to threads threads. 0 or a negative
 * code with a message. */
int nw_db_load(const char *path, nw_batch_t *b, int threads, char *err, size_t errlen);

/* A database read in partitions (all vs all with --top, when it does not fit in memory):
 * opening checks it whole (one read of the file for its checksum, on up to threads
 * threads as nw_db_load reads, and its lengths against its header); each partition is
 * then read as a range of records, checked as nw_db_load checks them. */
typedef struct nw_db_parts_s nw_db_parts_t;
int nw_db_parts_open(const char *path, int threads, nw_db_parts_t **out, char *err, size_t errlen);
nw_alphabet_t nw_db_parts_alphabet(const nw_db_parts_t *d);
/* The next records of about cap residues (one at least) into b (freed and refilled):
 * 1, 0 at the end of the database, or a negative code with a message. */
int nw_db_parts_next(nw_db_parts_t *d, uint64_t cap, nw_batch_t *b, char *err, size_t errlen);
void nw_db_parts_rewind(nw_db_parts_t *d);  /* the next partition is the first again */
void nw_db_parts_close(nw_db_parts_t *d);

#endif
