/* simd_each.h: a kernel template compiled once per instruction set (cpu_isa.h).
 *
 * Include with SIMD_TEMPLATE naming the template header, and SIMD_WIDE defined when the
 * template is also wanted in 32-bit lanes (simd_ops32.h), SIMD_ONLY_WIDE when it is wanted
 * in 32-bit lanes only, and SIMD_NARROW when it is also wanted in 8-bit lanes
 * (simd_ops8.h). Each inclusion of the template sees simd_ops.h's (or simd_ops32.h's,
 * simd_ops8.h's) operations for one set and names its functions with ISA_FN. The x86 sets are compiled in with the compiler's target attribute, so
 * NW_X86_ISAS is defined when they exist in this build.
 */
#define ISA_GENERIC
#ifndef SIMD_ONLY_WIDE
#include "simd_ops.h"
#include SIMD_TEMPLATE
#endif
#if defined(SIMD_WIDE) || defined(SIMD_ONLY_WIDE)
#include "simd_ops32.h"
#include SIMD_TEMPLATE
#endif
#ifdef SIMD_NARROW
#include "simd_ops8.h"
#include SIMD_TEMPLATE
#endif
#undef ISA_GENERIC

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define NW_X86_ISAS 1
#define ISA_SSE41
#ifndef SIMD_ONLY_WIDE
#include "simd_ops.h"
#include SIMD_TEMPLATE
#endif
#if defined(SIMD_WIDE) || defined(SIMD_ONLY_WIDE)
#include "simd_ops32.h"
#include SIMD_TEMPLATE
#endif
#ifdef SIMD_NARROW
#include "simd_ops8.h"
#include SIMD_TEMPLATE
#endif
#undef ISA_SSE41
#define ISA_AVX2
#ifndef SIMD_ONLY_WIDE
#include "simd_ops.h"
#include SIMD_TEMPLATE
#endif
#if defined(SIMD_WIDE) || defined(SIMD_ONLY_WIDE)
#include "simd_ops32.h"
#include SIMD_TEMPLATE
#endif
#ifdef SIMD_NARROW
#include "simd_ops8.h"
#include SIMD_TEMPLATE
#endif
#undef ISA_AVX2
#define ISA_AVX512
#ifndef SIMD_ONLY_WIDE
#include "simd_ops.h"
#include SIMD_TEMPLATE
#endif
#if defined(SIMD_WIDE) || defined(SIMD_ONLY_WIDE)
#include "simd_ops32.h"
#include SIMD_TEMPLATE
#endif
#ifdef SIMD_NARROW
#include "simd_ops8.h"
#include SIMD_TEMPLATE
#endif
#undef ISA_AVX512
#endif
