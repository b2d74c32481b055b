/* swar.h: whether the packing code may treat eight bytes as one 64-bit word with byte k
 * at bits 8k (SWAR): little-endian hosts; the others take the byte loops. */
#ifndef NW_IO_SWAR_H
#define NW_IO_SWAR_H

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NW_SWAR 1
#else
#define NW_SWAR 0
#endif

#endif
