/* simd_undef.h: forgets the vector operations of simd_ops.h, simd_ops32.h or simd_ops8.h
 * (no include guard), so that each inclusion of those defines exactly its own set: an
 * operation that one lane width lacks is then a compile error in a template, not the other
 * width's. */
#undef V
#undef VM
#undef VL
#undef ISA_TARGET
#undef ISA_FN
#undef vset1
#undef vload
#undef vstore
#undef vadds
#undef vsubs
#undef vsubs0
#undef vmax
#undef vcmpeq
#undef vcmpgt
#undef vsel
#undef vmand
#undef vany
#undef vlookup
#undef VMZERO
#undef vor
#undef vbits
#undef VPERM32
#undef vperm32
#undef vshl1
#undef vloadu
#undef vstoreu
#undef vload16
#undef vmin
#undef vmor
#undef vmaskbits
#undef vshlk
#undef vlast
#undef vstore8
#undef LANE_BITS
#undef LT
#undef LANE_MIN
#undef vlut32
