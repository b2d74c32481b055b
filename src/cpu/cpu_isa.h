/* cpu_isa.h: which SIMD instruction set the CPU engine's kernels run with.
 *
 * Each kernel is written once (a template header) and compiled into one function per
 * instruction set with the compiler's target attribute, so a single binary carries all of
 * them; the best one the processor has is chosen once, at the first call (cpuid), unless
 * the environment variable NWALIGN_CPU_ISA names another: generic, sse41, avx2 or avx512
 * (AVX-512BW). "generic" runs the templates in portable C (8 lanes emulated with loops),
 * the scalar twin of every vector instance.
 */
#ifndef NW_CPU_ISA_H
#define NW_CPU_ISA_H

#include <stddef.h>

typedef enum {
	NW_ISA_GENERIC,
	NW_ISA_SSE41,
	NW_ISA_AVX2,
	NW_ISA_AVX512,
	NW_ISA_COUNT
} nw_isa_t;

/* The instruction set the kernels use: the processor's best, or NWALIGN_CPU_ISA's. A set
 * the processor cannot run is reported once on stderr, and the best one runs instead (a
 * script that names one still runs on an older machine). */
nw_isa_t nw_cpu_isa(void);
/* NW_ERR_USAGE with a message when NWALIGN_CPU_ISA is set to an unknown name; else 0. */
int nw_cpu_isa_check_env(char *err, size_t errlen);
/* 1 when this processor (and this build) can run isa. */
int nw_cpu_isa_supported(nw_isa_t isa);
/* "generic", "sse4.1", "avx2", "avx512bw". */
const char *nw_cpu_isa_name(nw_isa_t isa);
/* Lanes of 16 bits per vector: 8, 8, 16, 32. */
int nw_cpu_isa_lanes(nw_isa_t isa);

#endif
