/* cpu_isa.c: the instruction set of the CPU engine's kernels, chosen once (cpu_isa.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_isa.h"
#include "nwalign.h"

static const char *const names[NW_ISA_COUNT] = {"generic", "sse4.1", "avx2", "avx512bw"};
static const char *const env_names[NW_ISA_COUNT] = {"generic", "sse41", "avx2", "avx512"};
static const int lanes[NW_ISA_COUNT] = {8, 8, 16, 32};

int nw_cpu_isa_supported(nw_isa_t isa)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
	__builtin_cpu_init();
	switch (isa) {
	case NW_ISA_GENERIC:
		return 1;
	case NW_ISA_SSE41:
		return __builtin_cpu_supports("sse4.1");
	case NW_ISA_AVX2:
		return __builtin_cpu_supports("avx2");
	case NW_ISA_AVX512:
		return __builtin_cpu_supports("avx512bw");
	default:
		return 0;
	}
#else
	return isa == NW_ISA_GENERIC;
#endif
}

static nw_isa_t chosen;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* want names set k: its variable's name, or the one -v prints */
static int isa_named(const char *want, int k)
{
	return !strcmp(want, env_names[k]) || !strcmp(want, names[k]);
}

static void choose(void)
{
	nw_isa_t best = NW_ISA_GENERIC;
	for (int k = NW_ISA_COUNT - 1; k > 0; k--)
		if (nw_cpu_isa_supported((nw_isa_t)k)) {
			best = (nw_isa_t)k;
			break;
		}
	chosen = best;
	const char *want = getenv("NWALIGN_CPU_ISA");
	if (!want || !*want)
		return;
	for (int k = 0; k < NW_ISA_COUNT; k++)
		if (isa_named(want, k)) {
			if (nw_cpu_isa_supported((nw_isa_t)k))
				chosen = (nw_isa_t)k;
			else
				fprintf(stderr, "nwalign: NWALIGN_CPU_ISA=%s: this processor cannot run %s; "
						"using %s\n", want, names[k], names[best]);
			return;
		}
	/* unknown names are refused before the first call (nw_cpu_isa_check_env) */
}

int nw_cpu_isa_check_env(char *err, size_t errlen)
{
	const char *want = getenv("NWALIGN_CPU_ISA");
	if (!want || !*want)
		return 0;
	for (int k = 0; k < NW_ISA_COUNT; k++)
		if (isa_named(want, k))
			return 0;
	snprintf(err, errlen, "NWALIGN_CPU_ISA=%s: not one of generic, sse41, avx2, avx512 (or sse4.1, avx512bw, as -v names them)", want);
	return NW_ERR_USAGE;
}

nw_isa_t nw_cpu_isa(void)
{
	pthread_once(&once, choose);
	return chosen;
}

const char *nw_cpu_isa_name(nw_isa_t isa)
{
	return isa >= 0 && isa < NW_ISA_COUNT ? names[isa] : "?";
}

int nw_cpu_isa_lanes(nw_isa_t isa)
{
	return isa >= 0 && isa < NW_ISA_COUNT ? lanes[isa] : 0;
}
