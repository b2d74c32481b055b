/* testutil.h: tiny assertion helpers for the unit tests. A failed check prints where and
 * why and makes the program exit 1 at the end; the last line is "N passed, N failed". */
#ifndef NW_TESTUTIL_H
#define NW_TESTUTIL_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static long tu_passed, tu_failed;

#define CHECK(cond, ...)                                                            \
	do {                                                                        \
		if (cond) {                                                         \
			tu_passed++;                                                \
		} else {                                                            \
			tu_failed++;                                                \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, \
				#cond);                                             \
			fprintf(stderr, __VA_ARGS__);                               \
			fputc('\n', stderr);                                        \
		}                                                                   \
	} while (0)

#define CHECK_EQ_I64(a, b, ...)                                                     \
	do {                                                                        \
		int64_t tu_a = (int64_t)(a), tu_b = (int64_t)(b);                   \
		CHECK(tu_a == tu_b, "%s = %" PRId64 ", %s = %" PRId64 "; ", #a, tu_a, #b, \
		      tu_b);                                                        \
		if (tu_a != tu_b) {                                                 \
			fprintf(stderr, "  context: ");                             \
			fprintf(stderr, __VA_ARGS__);                               \
			fputc('\n', stderr);                                        \
		}                                                                   \
	} while (0)

/* Deterministic xorshift generator so that failures reproduce. */
static inline uint64_t tu_rand(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static inline int tu_finish(const char *name)
{
	printf("%s: %ld passed, %ld failed\n", name, tu_passed, tu_failed);
	return tu_failed ? 1 : 0;
}

#endif
