/* simd_generic.h: the portable C vectors behind the "generic" set of simd_ops.h (16-bit
 * lanes) and simd_ops8.h (8-bit lanes), the scalar twin of every SIMD instance: a struct
 * of lanes, each operation a loop.
 *
 * NW_GENERIC_VEC(P, VT, T, N, LO, HI) defines the type VT (N lanes of T, whose range is
 * LO..HI) and P_sat, P_set1, P_adds, P_subs (saturating), P_subs0 (a - b, or 0 where
 * that is negative), P_max, P_cmpeq, P_cmpgt (lanes
 * of all ones or zero), P_sel(m, a, b) (b where m is set), P_and, P_any and P_maskbits
 * (lane l's flag in bit l). The headers
 * add the operations of their own width.
 */
#ifndef NW_SIMD_GENERIC_H
#define NW_SIMD_GENERIC_H

#include <stdint.h>

#define NW_GENERIC_VEC(P, VT, T, N, LO, HI)                                                  \
	typedef struct {                                                                     \
		_Alignas(16) T v[N];                                                         \
	} VT;                                                                                \
	static inline T P##_sat(int32_t x)                                                   \
	{                                                                                    \
		return (T)(x > (HI) ? (HI) : x < (LO) ? (LO) : x);                           \
	}                                                                                    \
	static inline VT P##_set1(int x)                                                     \
	{                                                                                    \
		VT r;                                                                        \
		for (int l = 0; l < (N); l++)                                                \
			r.v[l] = (T)x;                                                       \
		return r;                                                                    \
	}                                                                                    \
	static inline VT P##_adds(VT a, VT b)                                                \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] = P##_sat((int32_t)a.v[l] + b.v[l]);                          \
		return a;                                                                    \
	}                                                                                    \
	static inline VT P##_subs(VT a, VT b)                                                \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] = P##_sat((int32_t)a.v[l] - b.v[l]);                          \
		return a;                                                                    \
	}                                                                                    \
	static inline VT P##_subs0(VT a, VT b)                                               \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] = P##_sat((int32_t)a.v[l] - b.v[l] < 0 ? 0                    \
					 : (int32_t)a.v[l] - b.v[l]);                        \
		return a;                                                                    \
	}                                                                                    \
	static inline VT P##_max(VT a, VT b)                                                 \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] = a.v[l] > b.v[l] ? a.v[l] : b.v[l];                          \
		return a;                                                                    \
	}                                                                                    \
	static inline VT P##_cmpeq(VT a, VT b)                                               \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] = (T)(a.v[l] == b.v[l] ? -1 : 0);                             \
		return a;                                                                    \
	}                                                                                    \
	static inline VT P##_cmpgt(VT a, VT b)                                               \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] = (T)(a.v[l] > b.v[l] ? -1 : 0);                              \
		return a;                                                                    \
	}                                                                                    \
	static inline VT P##_sel(VT m, VT a, VT b)                                           \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] = m.v[l] ? b.v[l] : a.v[l];                                   \
		return a;                                                                    \
	}                                                                                    \
	static inline VT P##_and(VT a, VT b)                                                 \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			a.v[l] &= b.v[l];                                                    \
		return a;                                                                    \
	}                                                                                    \
	static inline int P##_any(VT m)                                                      \
	{                                                                                    \
		for (int l = 0; l < (N); l++)                                                \
			if (m.v[l])                                                          \
				return 1;                                                    \
		return 0;                                                                    \
	}                                                                                    \
	static inline uint64_t P##_maskbits(VT m)                                            \
	{                                                                                    \
		uint64_t b = 0;                                                              \
		for (int l = 0; l < (N); l++)                                                \
			b |= (uint64_t)(m.v[l] != 0) << l;                                   \
		return b;                                                                    \
	}

#endif
