/* sfu.h — the special function unit: reciprocal, reciprocal square root,
 * 2^x and log2, one lane at a time, bit patterns in and out. The accuracy
 * model is documented in docs/determinism.md. Facts: reference/vc4.md §6.
 */
#ifndef GS_V3D_SFU_H
#define GS_V3D_SFU_H

#include <stdint.h>

uint32_t sfu_recip(uint32_t x);
uint32_t sfu_recipsqrt(uint32_t x);
uint32_t sfu_exp2(uint32_t x);
uint32_t sfu_log2(uint32_t x);

#endif
