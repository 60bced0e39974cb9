/* sfu.h — the special function unit: reciprocal, reciprocal square root,
 * 2^x and log2, one lane at a time, 32-bit float bit patterns in and out.
 * The models and the hardware measurements they follow: docs/v3d-units.md.
 *
 * The hardware approximates. exp2 and log2 are table-driven models fitted
 * to outputs measured on a Raspberry Pi: exp2 interpolates a 65-entry table
 * of 2^(i/64) on a 16-bit fixed-point argument and keeps 15 fraction bits;
 * log2 interpolates a 33-entry table of log2(1 + i/32) and gives a 16-bit
 * fixed-point result. recip and recipsqrt interpolate 256-segment tables of
 * 1/m and 1/sqrt(m) into a 16-bit fraction, 15 fraction bits in the float,
 * clamped at 1 - 2^-14 (an odd exponent: recipsqrt's result times
 * 1/sqrt(2), rounded up); recip(2^n) is exact; relative error within
 * 6.7e-5. All is
 * integer arithmetic, so results do not depend on the host's rounding mode or
 * libm. Denormal inputs count as zero, an exponent of 255 as infinity (the
 * VideoCore IV's floats have no NaN), denormal results flush to zero, and no
 * result is a NaN.
 */
#ifndef GS_V3D_SFU_H
#define GS_V3D_SFU_H

#include <stdint.h>

uint32_t sfu_recip(uint32_t x);     /* 1/x; ±0 -> ±Inf, ±Inf -> ±0, 2^n -> 2^-n */
uint32_t sfu_recipsqrt(uint32_t x); /* 1/sqrt(|x|); 0 -> +Inf, Inf -> +0, 1 -> 1 - 2^-14 */
uint32_t sfu_exp2(uint32_t x);      /* 2^x; 0 -> 1 + 2^-15, overflow -> +Inf, underflow -> +0 */
uint32_t sfu_log2(uint32_t x);      /* log2(|x|); 0 -> -Inf, Inf -> +Inf */

#endif
