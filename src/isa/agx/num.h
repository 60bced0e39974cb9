/* num.h — the numeric semantics of the Apple AGX (G13) shader core, one
 * thread (lane) at a time: float operands with their abs/neg modifiers,
 * the float ALU (fadd fmul ffma and the f16 hadd hmul hfma) with the
 * saturate flag, the special float ops of the funop group, the 8-bit
 * minifloat immediates, the integer add and multiply-add with shift, sign
 * extension, saturation and 64-bit pairs, the shift/bitfield group, the
 * compares of csel/if/else/while, convert, and the interchange formats of
 * device loads and stores. Pure functions of raw bits; no decoding happens
 * here. The model, every choice where public sources are silent, and those
 * sources (Dougall Johnson's applegpu emulator, checked against an M1, and
 * Mesa's asahi compiler): docs/agx-numerics.md.
 *
 * FLOATS. f32 operands have their subnormals flushed to a zero of the same
 * sign on input (abs and neg apply after the flush); f16 operands keep
 * theirs. An operation computes its exact result and rounds once to
 * nearest-even: to f32 for fadd/fmul/ffma and the special ops (a result
 * below 2^-126 in magnitude before rounding becomes a zero of its sign),
 * then, for a 16-bit destination, that f32 again to f16 (double rounding,
 * as the hardware does); hadd/hmul/hfma round straight to f16 and keep its
 * subnormals. ffma/hfma are fused. Every NaN result is the default quiet
 * NaN (f32 0x7FC00000, f16 0x7E00). sat clamps the result to [0, 1], a NaN
 * and every negative (-0 included) becoming +0.
 *
 * Values travel between the calls below as doubles: every f16 and f32 is
 * exact in a double. HOST ENVIRONMENT: the default rounding mode (to
 * nearest), as C starts; the denormal flags do not matter (no double here
 * is subnormal). Nothing keeps state.
 */
#ifndef GS_ISA_AGX_NUM_H
#define GS_ISA_AGX_NUM_H

#include <stdint.h>
#include "isa/agx/agx.h"

#define AGX_F32_NAN 0x7fc00000u
#define AGX_F16_NAN 0x7e00u

/* ---- operands ---------------------------------------------------------------- */

/* The value of f32 bits x as an operand: subnormals flushed (sign kept). */
double agx_f32_in(uint32_t x);
/* The value of f16 bits h (low 16 bits): exact, subnormals kept. */
double agx_f16_in(uint32_t h);
/* The operand modifiers: |v| when abs, then negated when neg. */
double agx_fmod(double v, int abs, int neg);

/* The 8-bit minifloat immediates of the float ALU and if/else/while are
 * agx.h's agx_minifloat (sign bit 7, exponent bits 6-4, mantissa bits 3-0;
 * exponent 0 gives mantissa/64, else (16 + mantissa) * 2^(exponent - 7)). */
/* The code of value v, or -1 when v is not one of the 256 values (the
 * code of -0.0 is 0x80). */
int agx_minifloat_encode(double v);

/* ---- results ----------------------------------------------------------------- */

/* How a float result is rounded (the destination and the operation). */
typedef enum {
  AGX_R32 = 0,   /* f32 (32-bit op, 32-bit destination) */
  AGX_R32_16 = 1, /* f32, then that f32 to f16 (32-bit op, 16-bit destination) */
  AGX_R16 = 2    /* straight to f16 (hadd, hmul, hfma) */
} agx_fround;

/* The result bits (f32, or f16 in the low 16 bits) of the exact value v
 * under r, then sat. */
uint32_t agx_fresult(double v, agx_fround r, int sat);
/* f32 bits to f16 bits, round to nearest even, subnormals kept, NaN the
 * default NaN. */
uint32_t agx_f32_to_f16(uint32_t x);

/* ---- float ALU (operands already through agx_f*_in and agx_fmod) ---------- */

uint32_t agx_fadd(double a, double b, agx_fround r, int sat);
uint32_t agx_fmul(double a, double b, agx_fround r, int sat);
/* a * b + c, fused (one rounding). */
uint32_t agx_ffma(double a, double b, double c, agx_fround r, int sat);

/* The funop group, by its 6-bit op field. */
enum {
  AGX_FU_FLOOR = 0x00, AGX_FU_SRSQRT = 0x01, AGX_FU_DFDX = 0x04, AGX_FU_DFDY = 0x06,
  AGX_FU_RCP = 0x08, AGX_FU_RSQRT = 0x09, AGX_FU_SIN_PT_1 = 0x0a, AGX_FU_LOG2 = 0x0c,
  AGX_FU_EXP2 = 0x0d, AGX_FU_SIN_PT_2 = 0x0e, AGX_FU_CEIL = 0x10, AGX_FU_TRUNC = 0x20,
  AGX_FU_RINT = 0x30
};
/* The value (before rounding) of funop op on a (dfdx/dfdy are not lane
 * functions: NAN). floor ceil trunc rint are exact and keep the sign of a
 * zero result (floor(-0.5) = -1, ceil(-0.5) = -0, rint ties to even);
 * rcp, rsqrt, srsqrt, log2, exp2 are the double results of C's 1/x,
 * 1/sqrt, log2, exp2, so within an f32 ulp of exact after rounding (the
 * hardware's precision is not published). Special values: rcp(+-0) = +-inf,
 * rcp(+-inf) = +-0; rsqrt(+0) = +inf, rsqrt(-0) = -inf, rsqrt(+inf) = +0,
 * rsqrt(x < 0) = NaN; srsqrt as rsqrt except srsqrt(+-0) = +0 and
 * srsqrt(+inf) = +inf, so that x * srsqrt(x) is sqrt(x) at 0 and inf;
 * log2(+-0) = -inf, log2(x < 0) = NaN, log2(+inf) = +inf; exp2(-inf) = +0,
 * exp2(+inf) = +inf. sin_pt_1 and sin_pt_2: the model below. */
double agx_funop_value(unsigned op, double a);
/* funop op on a, rounded (a 16-bit destination takes the f32 result to
 * f16, agx_fresult). */
uint32_t agx_funop(unsigned op, double a, agx_fround r, int sat);
/* The sine steps (a model; the hardware's functions are not published).
 * Mesa computes sin(2 pi x) as q = 4 * fract(x), t = sin_pt_1(q),
 * s = sin_pt_2(t), sin = s * t. Model: q is first reduced modulo 4 into
 * [0, 4); t = q on [0, 1], 2 - q on (1, 3], q - 4 on (3, 4) (so t in
 * [-1, 1] with sin(pi q / 2) = sin(pi t / 2)); sin_pt_2(t) = sin(pi t / 2) / t,
 * pi / 2 at t = 0. Infinities and NaN give NaN. */
double agx_sin_pt_1(double q);
double agx_sin_pt_2(double t);

/* ---- compares ---------------------------------------------------------------- */

/* Float condition (4 bits): 0 feq, 1 flt, 2 fgt, 3 fltn, 5 fgte, 6 flte,
 * 7 fgtn, plus 8 negating. Ordinary compares are IEEE (false with a NaN);
 * fltn(a, b) = a < b, or b NaN and a not; fgtn likewise (the NaN loses, as
 * fmin/fmax). Returns 1, 0, or -1 for the codes 4 and 12 (no condition). */
int agx_fcmp(unsigned cond, double a, double b);
/* Integer condition (4 bits): 0 ieq, 1 ult, 2 ugt, 4 seq, 5 slt, 6 sgt,
 * plus 8 negating. Each operand a/b has its width abits/bbits (16, 32 or
 * 64); codes with bit 2 sign-extend both from their widths, the others
 * zero-extend. Returns 1, 0, or -1 for the codes 3, 7, 11, 15. */
int agx_icmp(unsigned cond, uint64_t a, unsigned abits, uint64_t b, unsigned bbits);

/* ---- integers ---------------------------------------------------------------- */

/* x (its low `bits` bits) extended to 64: sign-extended when sx. */
uint64_t agx_iext(uint64_t x, unsigned bits, int sx);
/* iadd/isub: d = a + ((neg ? -b : b) << shift), a and b already extended
 * (agx_iext), shift 0-7 (5 and up make the b term 0), truncated to dbits
 * (16, 32, 64). sat (defined for sources of 32 bits or less; others wrap
 * first): the exact result clamped to the destination's range, signed when
 * sgn (a source had .sx), else unsigned. */
uint64_t agx_iadd(uint64_t a, uint64_t b, int neg, unsigned shift, unsigned dbits, int sat, int sgn);
/* imad: d = a * b + ((neg ? -c : c) << shift), the same rules. */
uint64_t agx_imad(uint64_t a, uint64_t b, uint64_t c, int neg, unsigned shift, unsigned dbits, int sat, int sgn);

/* The shift/bitfield group by its sub-op {[15],[27],[26]} read as a 3-bit
 * number: 0 bfi, 4 bfeil, 1 extr, 5 asr, 7 asrh (2 shlhi and 6 shrhi are
 * not modelled). m is the 5-bit mask width (0: all 32 bits), s = c & 0x7f
 * the shift (asr/asrh: b & 0x7f); values are 32-bit, shifts by 32 or more
 * move every bit out (asr: fill with the sign). Returns 0 and *d, or -1
 * for a sub-op not modelled. */
enum { AGX_SH_BFI = 0, AGX_SH_EXTR = 1, AGX_SH_SHLHI = 2, AGX_SH_BFEIL = 4, AGX_SH_ASR = 5, AGX_SH_SHRHI = 6,
       AGX_SH_ASRH = 7 };
int agx_shift_op(unsigned op, uint32_t a, uint32_t b, uint32_t c, unsigned m, uint32_t *d);

/* bitop: result bit = tt bit ((b << 1) | a) of the 4-bit truth table. */
uint32_t agx_bitop(unsigned tt, uint32_t a, uint32_t b);

/* convert: mode (0 u8_to_f, 1 s8_to_f, 4 f_to_u16, 5 f_to_s16, 6 u16_to_f,
 * 7 s16_to_f, 8 f_to_u32, 9 f_to_s32, 10 u32_to_f, 11 s32_to_f), round
 * (0 toward zero, 1 nearest even, 2 toward -inf, 3 toward +inf), the
 * source bits x (a float source is f16 when src16, else f32, flushed), the
 * destination width (a float result is f16 when dst16). float -> int
 * saturates to the mode's range, NaN giving 0, and writes the integer at
 * the destination's width (an s16 result in a 32-bit destination is sign
 * extended). Returns 0 and *d, or -1 for an undefined mode. */
int agx_convert(unsigned mode, unsigned round, uint32_t x, int src16, int dst16, uint32_t *d);

/* ---- memory interchange formats ---------------------------------------------- */

/* Formats of load/store (agx.h's AGX_FMT_*): i8, i16, i32, f16, u8norm,
 * s8norm, u16norm, s16norm; the packed ones (rgb10a2 and up) are not
 * modelled. */
/* Bytes per element of fmt (1, 2 or 4), 0 for one not modelled. */
unsigned agx_fmt_size(unsigned fmt);
/* The register value of memory element e (its low agx_fmt_size bytes,
 * little endian) for a 16-bit register when reg16 else 32-bit: integers
 * zero-extended (truncated into a 16-bit register), f16 as f16 or widened
 * to f32, norms converted to f16/f32 (u: e / max, s: max(e / max, -1)). */
uint32_t agx_fmt_unpack(unsigned fmt, uint32_t e, int reg16);
/* The memory element of register value v: integers truncated, f16 as f16
 * (from f32 rounded to nearest even), norms clamped to their range (NaN 0)
 * and scaled, rounded to nearest even. */
uint32_t agx_fmt_pack(unsigned fmt, uint32_t v, int reg16);

#endif
