/* gunzip.c: gzip members through ISA-L's streaming inflate (gunzip.h). */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gunzip.h"

#ifdef NW_HAVE_ISAL
#include <isa-l/igzip_lib.h>

/* Compressed input is read in pieces of this size. */
#define NW_GUNZIP_IN ((size_t)256 << 10)

struct nw_gunzip_s {
	int fd;
	struct inflate_state st;
	unsigned char *in;
	size_t in_cap;
	int in_eof;  /* read(2) returned 0 */
	int state;   /* 0: inside a member (or before the first), 1: at the end, -1: failed */
	int between; /* the last member ended: the next byte starts another or ends the file */
};

int nw_gunzip_available(void)
{
	const char *e = getenv("NWALIGN_GUNZIP");
	return !(e && !strcmp(e, "htslib"));
}

nw_gunzip_t *nw_gunzip_open_sized(int fd, size_t in_cap)
{
	nw_gunzip_t *z = calloc(1, sizeof *z);
	if (!z)
		return NULL;
	z->in_cap = in_cap ? in_cap : NW_GUNZIP_IN;
	if (!(z->in = malloc(z->in_cap))) {
		free(z);
		return NULL;
	}
	z->fd = fd;
	isal_inflate_init(&z->st);
	z->st.crc_flag = ISAL_GZIP;
	return z;
}

/* More compressed input when the last piece is used up. 0, or -1 on a read error. */
static int fill_in(nw_gunzip_t *z)
{
	if (z->st.avail_in > 0 || z->in_eof)
		return 0;
	ssize_t n;
	do
		n = read(z->fd, z->in, z->in_cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	z->in_eof = n == 0;
	z->st.next_in = z->in;
	z->st.avail_in = (uint32_t)n;
	return 0;
}

ssize_t nw_gunzip_read(nw_gunzip_t *z, char *buf, size_t cap)
{
	if (z->state)
		return z->state < 0 ? -1 : 0;
	if (cap > UINT32_MAX)
		cap = UINT32_MAX;
	z->st.next_out = (uint8_t *)buf;
	z->st.avail_out = (uint32_t)cap;
	while (z->st.avail_out > 0) {
		if (fill_in(z) < 0)
			goto fail;
		if (z->between) { /* after a member: another one, or the end of the file */
			if (z->st.avail_in == 0) {
				z->state = 1;
				break;
			}
			uint8_t *next = z->st.next_in, *out = z->st.next_out;
			uint32_t avail = z->st.avail_in, room = z->st.avail_out;
			isal_inflate_reset(&z->st);
			z->st.crc_flag = ISAL_GZIP;
			z->st.next_in = next, z->st.avail_in = avail;
			z->st.next_out = out, z->st.avail_out = room;
			z->between = 0;
		}
		const uint32_t room = z->st.avail_out;
		const int ret = isal_inflate(&z->st);
		if (ret < 0 || ret == ISAL_NEED_DICT)
			goto fail;
		if (z->st.block_state == ISAL_BLOCK_FINISH)
			z->between = 1; /* its trailer read and checked */
		else if (z->st.avail_in == 0 && z->in_eof && z->st.avail_out == room)
			goto fail; /* the file ends inside a member */
	}
	return (ssize_t)(cap - z->st.avail_out);
fail:
	z->state = -1;
	/* what came before the error is the caller's; the next call reports it */
	return cap > z->st.avail_out ? (ssize_t)(cap - z->st.avail_out) : -1;
}

void nw_gunzip_close(nw_gunzip_t *z)
{
	if (!z)
		return;
	close(z->fd);
	free(z->in);
	free(z);
}

#else /* no ISA-L: htslib decompresses everything */

int nw_gunzip_available(void)
{
	return 0;
}

nw_gunzip_t *nw_gunzip_open_sized(int fd, size_t in_cap)
{
	(void)fd, (void)in_cap;
	return NULL;
}

ssize_t nw_gunzip_read(nw_gunzip_t *z, char *buf, size_t cap)
{
	(void)z, (void)buf, (void)cap;
	return -1;
}

void nw_gunzip_close(nw_gunzip_t *z)
{
	(void)z;
}

#endif

nw_gunzip_t *nw_gunzip_open(int fd)
{
	return nw_gunzip_open_sized(fd, 0);
}
