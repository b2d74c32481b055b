/* lane_codes.h: a group's sequences laid out as the inter-sequence passes read them
 * (cpu_inter.c): lane l's element at position j is dst[j * vl + l].
 *
 * Each lane's codes (bytes below NW_MAX_CODES, as nw_batch_unpack leaves them) go through
 * a table of NW_MAX_CODES elements; past the lane's length comes the pad. This transposes
 * 16 to 64 short sequences for every group pass, so SSE4.1 and AVX2 take tiles of 16
 * lanes x 16 or 32 positions through byte transposes, and AVX-512BW four positions of a
 * lane in one 32-bit gather (the faster of the two on each); the portable loop is their
 * scalar twin (and what the generic set, and lane counts that are not a multiple of 16,
 * run). The gathers read up to NW_LANE_SLACK bytes before and after each sequence (and
 * discard them): the caller's buffers must have them.
 */
#ifndef NW_LANE_CODES_H
#define NW_LANE_CODES_H

#include <stdint.h>

#include "nwalign.h"

#define NW_LANE_SLACK 4      /* readable bytes around every source sequence */
#define NW_LANE_CODES_MAX 64 /* lanes at most (8-bit lanes of AVX-512) */

typedef struct {
	int vl;                           /* lanes: elements a position */
	int bytes;                        /* element size: 1 (int8_t) or 2 (int16_t) */
	int64_t count;                    /* positions written */
	int rev;                          /* position j is the lane's code len - 1 - j */
	const int16_t *map;               /* NW_MAX_CODES entries: a code's element */
	int16_t pad;                      /* the element past a lane's length */
} nw_lane_fill_t;

/* dst[j * vl + l] for l < vl, j < count: map[src[l][j]] (rev: map[src[l][len[l] - 1 - j]])
 * while j < len[l] (len may exceed count), else pad; with the instruction set isa
 * (nw_isa_t), or the portable loop when isa = NW_ISA_GENERIC. Elements must fit their
 * size as non-negative values (the vector forms narrow them without sign). */
void nw_lane_codes(int isa, const nw_lane_fill_t *f, void *dst, const uint8_t *const *src,
		   const int32_t *len);

#endif
