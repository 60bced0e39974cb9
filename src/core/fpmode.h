/* fpmode.h — the host's floating-point rounding mode, switched cheaply.
 *
 * The QPU's float arithmetic rounds toward zero (docs/determinism.md) while
 * primitive setup rounds to nearest, and the renderer alternates between
 * them for every 16-pixel batch. glibc's fesetround writes both the x87
 * control word and SSE's MXCSR and cost a third of the rendering time. On
 * x86-64 every float and double operation gpusim does uses SSE, so there the
 * mode is MXCSR's rounding field alone (the x87 unit, unused, stays at
 * nearest); elsewhere <fenv.h>. Use these functions, not fesetround, in
 * gpusim code, so that reads and writes agree on which register they mean.
 */
#ifndef GS_CORE_FPMODE_H
#define GS_CORE_FPMODE_H

enum { GS_FP_NEAREST = 0, GS_FP_TOWARD_ZERO = 1 };

#if defined(__SSE2__)
#include <xmmintrin.h>
#define GS_MXCSR_RC 0x6000u /* rounding control, bits 14:13: 00 nearest, 11 toward zero */
#define GS_MXCSR_FLUSH 0x8040u /* flush-to-zero (bit 15) and denormals-are-zero (bit 6) */

/* The current rounding mode, GS_FP_*. */
static inline int gs_fp_round_get(void) {
  return (_mm_getcsr() & GS_MXCSR_RC) == GS_MXCSR_RC ? GS_FP_TOWARD_ZERO : GS_FP_NEAREST;
}
/* Sets the rounding mode; does nothing when it is already `mode`. */
static inline void gs_fp_round_set(int mode) {
  unsigned csr = _mm_getcsr(), want = (csr & ~GS_MXCSR_RC) | (mode == GS_FP_TOWARD_ZERO ? GS_MXCSR_RC : 0u);
  if (want != csr) _mm_setcsr(want);
}

/* The whole environment, for code that alternates between two of them
 * many times (the renderer: primitive setup, then fragment shaders). A
 * read of MXCSR waits for the floating-point work in flight (it returns
 * the exception flags too), and a write is not free either: in the
 * renderer the reads alone, a few per 16-pixel batch, took a tenth of the
 * time. Such code reads the environment once, builds the two it needs,
 * writes each when it switches, and calls the *_nearest / *_in_env
 * variants that trust it instead of reading it again. */
typedef unsigned gs_fp_env;
static inline gs_fp_env gs_fp_env_get(void) { return _mm_getcsr(); }
static inline void gs_fp_env_set(gs_fp_env e) { _mm_setcsr(e); }
/* e with rounding `mode` (GS_FP_*), and with denormals flushed when `flush`
 * (qpu_run_fast's setting), else as in e. */
static inline gs_fp_env gs_fp_env_with(gs_fp_env e, int mode, int flush) {
  e = (e & ~GS_MXCSR_RC) | (mode == GS_FP_TOWARD_ZERO ? GS_MXCSR_RC : 0u);
  return flush ? e | GS_MXCSR_FLUSH : e;
}
#else
#include <fenv.h>
static inline int gs_fp_round_get(void) { return fegetround() == FE_TOWARDZERO ? GS_FP_TOWARD_ZERO : GS_FP_NEAREST; }
static inline void gs_fp_round_set(int mode) {
  int want = mode == GS_FP_TOWARD_ZERO ? FE_TOWARDZERO : FE_TONEAREST;
  if (fegetround() != want) fesetround(want);
}
/* Without MXCSR the environment is the rounding mode (no denormal flushing). */
typedef unsigned gs_fp_env;
static inline gs_fp_env gs_fp_env_get(void) { return (gs_fp_env)gs_fp_round_get(); }
static inline void gs_fp_env_set(gs_fp_env e) { gs_fp_round_set((int)e); }
static inline gs_fp_env gs_fp_env_with(gs_fp_env e, int mode, int flush) {
  (void)e, (void)flush;
  return (gs_fp_env)mode;
}
#endif

/* e with the C default: round to nearest, denormals kept (what the SASS,
 * PICA200 and AGX numerics expect). */
static inline gs_fp_env gs_fp_env_c_default(gs_fp_env e) {
#if defined(__SSE2__)
  return gs_fp_env_with(e, GS_FP_NEAREST, 0) & ~(gs_fp_env)GS_MXCSR_FLUSH;
#else
  return gs_fp_env_with(e, GS_FP_NEAREST, 0);
#endif
}

#endif
