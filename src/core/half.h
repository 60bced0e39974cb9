/* half.h — IEEE binary16 ("half") values as doubles and back, exactly and
 * independently of the host's rounding mode. The tile buffer averages
 * 64-bit colour samples with them, the driver widens clear colours, and
 * the Lua module and the PNG writer read RGBA16F frame buffers
 * (docs/tile-buffer.md). Denormals, infinities and NaN are IEEE's; the QPU's
 * own float16 pack/unpack (isa/qpu/alu.h) follows the hardware instead.
 */
#ifndef GS_CORE_HALF_H
#define GS_CORE_HALF_H

#include <math.h>
#include <stdint.h>

/* The value of half h (bits 15:0): exact in a double. */
static inline double gs_half_value(uint32_t h) {
  double sign = (h & 0x8000u) ? -1.0 : 1.0;
  uint32_t e = (h >> 10) & 31, m = h & 0x3ffu;
  if (e == 31) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * ldexp((double)m, -24);
  return sign * ldexp((double)(1024 + m), (int)e - 25);
}

/* v to the nearest half, ties to even, by integer steps (floor, ldexp and
 * frexp are exact); beyond 65504 + half an ulp, infinity; NaN gives 0x7e00. */
static inline uint32_t gs_half_bits(double v) {
  if (isnan(v)) return 0x7e00u;
  uint32_t sign = signbit(v) ? 0x8000u : 0;
  double a = fabs(v);
  if (a >= 65520.0) return sign | 0x7c00u;
  int e = -14; /* subnormals: steps of 2^-24 */
  if (a >= ldexp(1.0, -14)) {
    frexp(a, &e);
    e -= 1; /* a in [2^e, 2^(e+1)) */
  }
  double q = ldexp(a, 10 - e), whole = floor(q), rest = q - whole;
  uint32_t n = (uint32_t)whole + (rest > 0.5 || (rest == 0.5 && ((uint32_t)whole & 1)) ? 1u : 0u);
  if (a < ldexp(1.0, -14)) return sign | n;                /* 1024 carries into the smallest normal */
  return sign | (((uint32_t)(e + 15) << 10) + (n - 1024)); /* 2048 carries into the exponent */
}

#endif
