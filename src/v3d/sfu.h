/* sfu.h — the special function unit: reciprocal, reciprocal square root,
 * 2^x and log2, one lane at a time, 32-bit float bit patterns in and out.
 * Facts: RG §3; VC4C doc/sfu_accuracy.txt; the accuracy model: docs/v3d-units.md.
 *
 * The hardware approximates; gpusim computes each result exactly in integer
 * arithmetic and then keeps SFU_FRAC_BITS fraction bits, rounding toward
 * zero (recip, recipsqrt, exp2: of the mantissa; log2: of the fixed-point
 * result, rounding toward minus infinity). No host floating point is
 * involved, so results do not depend on the host's rounding mode or libm.
 * Denormal inputs count as zero, an exponent of 255 as infinity (the QPU has
 * no NaN), denormal results flush to zero, and no result is a NaN.
 */
#ifndef GS_V3D_SFU_H
#define GS_V3D_SFU_H

#include <stdint.h>

#define SFU_FRAC_BITS 14 /* relative error < 2^-14 (log2: absolute) */

uint32_t sfu_recip(uint32_t x);     /* 1/x; ±0 -> ±Inf, ±Inf -> ±0 */
uint32_t sfu_recipsqrt(uint32_t x); /* 1/sqrt(|x|); 0 -> +Inf, Inf -> +0 */
uint32_t sfu_exp2(uint32_t x);      /* 2^x; overflow -> +Inf, underflow -> +0 */
uint32_t sfu_log2(uint32_t x);      /* log2(|x|); 0 -> -Inf, Inf -> +Inf */

#endif
