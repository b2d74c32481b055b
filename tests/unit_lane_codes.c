/* unit_lane_codes.c: nw_lane_codes (src/cpu/lane_codes.c), the transposition of a group's
 * sequences into lanes, under every instruction set this processor runs, against its
 * definition computed here.
 *
 * Random groups of 8 to 64 lanes (the lane counts of every set's 16- and 8-bit passes, and
 * counts that are not a multiple of 16, which take the portable loop), 8- and
 * 16-bit elements, forward and reversed, random maps and pads, lengths from 0 to past the
 * positions written. The sequences lie in one buffer with exactly NW_LANE_SLACK bytes
 * before the first and after the last, and bytes between them that map to a value no code
 * maps to: a read that leaked into an element would show.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nwalign.h"
#include "cpu_isa.h"
#include "lane_codes.h"
#include "testutil.h"

static uint64_t seed = 0x9e3779b97f4a7c15ull;

static int64_t rnd(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(tu_rand(&seed) % (uint64_t)(hi - lo + 1));
}

#define MAX_COUNT 300
#define FILLER 31 /* the code between sequences: its map value is kept apart */

static void one_case(int isa, int vl, int bytes, int rev)
{
	const int64_t count = rnd(0, MAX_COUNT);
	int32_t len[NW_LANE_CODES_MAX];
	size_t at[NW_LANE_CODES_MAX], total = NW_LANE_SLACK;
	for (int l = 0; l < vl; l++) {
		const int64_t k = rnd(0, 9);
		len[l] = (int32_t)(k == 0 ? 0 : k == 1 ? count + rnd(1, 10) : rnd(0, count));
		total += (size_t)rnd(0, 5); /* a gap of filler */
		at[l] = total;
		total += (size_t)len[l];
	}
	total += NW_LANE_SLACK;
	uint8_t *buf = malloc(total);
	memset(buf, FILLER, total);
	const uint8_t *src[NW_LANE_CODES_MAX];
	for (int l = 0; l < vl; l++) {
		for (int32_t j = 0; j < len[l]; j++)
			buf[at[l] + (size_t)j] = (uint8_t)rnd(0, FILLER - 1);
		src[l] = buf + at[l];
	}
	/* in 0..127 (8 bits) or 0..32767; the filler's value is outside what codes map to */
	const int16_t top = bytes == 1 ? 126 : 32766;
	int16_t map[NW_MAX_CODES];
	for (int c = 0; c < NW_MAX_CODES; c++)
		map[c] = (int16_t)rnd(0, top - 1);
	map[FILLER] = top;
	const nw_lane_fill_t f = {.vl = vl, .bytes = bytes, .count = count, .rev = rev, .map = map,
				  .pad = (int16_t)rnd(0, top - 1)};
	const size_t out_bytes = (size_t)(count ? count : 1) * (size_t)vl * (size_t)bytes;
	uint8_t *got = malloc(out_bytes);
	memset(got, 0xA5, out_bytes);
	nw_lane_codes(isa, &f, got, src, len);
	int bad = 0;
	for (int64_t j = 0; j < count && !bad; j++)
		for (int l = 0; l < vl && !bad; l++) {
			const int want = j < len[l] ? map[src[l][rev ? len[l] - 1 - j : j]] : f.pad;
			const int v = bytes == 2 ? ((int16_t *)got)[j * vl + l] : ((int8_t *)got)[j * vl + l];
			if (v != want) {
				bad = 1;
				CHECK(v == want, "%s: %d lanes of %d bytes, %s, count %lld: lane %d (length "
				      "%d) position %lld is %d, want %d", nw_cpu_isa_name(isa), vl, bytes,
				      rev ? "reversed" : "forward", (long long)count, l, len[l],
				      (long long)j, v, want);
			}
		}
	if (!bad)
		CHECK(1, "ok");
	free(got);
	free(buf);
}

int main(void)
{
	static const int vls[] = {8, 16, 24, 32, 40, 64};
	int sets = 0;
	for (int isa = 0; isa < NW_ISA_COUNT; isa++) {
		if (!nw_cpu_isa_supported(isa))
			continue;
		sets++;
		for (size_t v = 0; v < sizeof vls / sizeof *vls; v++)
			for (int bytes = 1; bytes <= 2; bytes++)
				for (int rev = 0; rev <= 1; rev++)
					for (int k = 0; k < 60; k++)
						one_case(isa, vls[v], bytes, rev);
	}
	printf("unit_lane_codes: %d instruction sets\n", sets);
	printf("%ld passed, %ld failed\n", tu_passed, tu_failed);
	return tu_failed ? 1 : 0;
}
