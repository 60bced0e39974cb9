/* jit.h — native code from the lane micro-op layer (uop.h): a whole stream
 * of micro-ops compiled through LLVM 15's C API into one host function over
 * the same register file, masks and constants the interpreter (run.h) uses,
 * computing the same bits (docs/uops.md, "Native code"). Built with
 * GS_JIT=ON; without it every function here says "not available" and the
 * interpreters run everything.
 *
 * The neutral kinds become vector code: float operations are LLVM's
 * constrained intrinsics with a dynamic rounding mode (the host's MXCSR,
 * set by the ISA for the run, as for the interpreter) and exceptions
 * ignored, so LLVM neither folds them in round-to-nearest nor contracts
 * them into fused multiply-adds; the no-NaN kinds take the host's operation
 * unless an operand has exponent 255 and the model's lane rules otherwise,
 * exactly as run.h does; IEEE results that are NaN become the default NaN.
 * An ISA's own kinds (from GS_UOP_ISA up) are calls of its escape, as in
 * the generic runner, so every stream can be compiled; one of them (an
 * ISA's end-of-instruction step) may be described so that its common case
 * is inlined: straight-line code between escapes counts a whole run of
 * steps at its start, with one check of the budget.
 */
#ifndef GS_ISA_UOP_JIT_H
#define GS_ISA_UOP_JIT_H

#include <stdatomic.h>
#include <stdint.h>
#include "isa/uop/uop.h"

/* What an escape returns besides a value for the compiled function to
 * return (any other int, which it returns as it is): */
#define GS_JIT_NEXT (-0x7fff0001) /* go on with the next micro-op */
#define GS_JIT_JUMP (-0x7fff0002) /* go on at micro-op number *to of the stream */
/* What the compiled function returns when the run must go on in the
 * interpreter (entered at, or jumped to, a micro-op past the stream's end;
 * an escape may return it too): the ISA's state says where. */
#define GS_JIT_EXIT (-0x7fff0003)

/* An ISA's escape: runs micro-op u (a pointer into the stream given to the
 * compiler, which must outlive the code) over the register file R. */
typedef int (*gs_jit_escape)(void *env, char *R, const gs_uop *u, uint32_t *to);

/* How an ISA lays out its machine for the compiled code. `state` is the
 * compiled function's first argument. */
typedef struct gs_jit_desc {
  int lanes;                      /* 16 or 32 */
  int mask_bits;                  /* 16 or 32: each mask's word in the state */
  int32_t mask_off[GS_UOP_MASKS]; /* byte offset of mask k in the state; < 0 (and mask 0): always empty */
  int32_t regs_off;               /* >= 0: the register file is state + regs_off; < 0: the R argument */
  gs_jit_escape escape;
  /* The step: micro-ops of kind step_kind (-1: none) do, when the 64-bit
   * word at state + step_busy is 0 and the 64-bit counter at state +
   * step_count plus 1 is not the 64-bit word at env + step_stop: counter
   * += 1 and the 32-bit pc at state + step_pc += step_pc_add; otherwise
   * the escape runs them. Straight-line code does a run of such steps at
   * once when the busy word is 0 and the stop is not among them (none of
   * these words may lie in the register file or the masks). */
  int step_kind;
  uint32_t step_busy, step_count, step_pc, step_pc_add, step_stop;
  /* step_down > 0: byte step_down - 1 of the busy word (in memory order)
   * is a countdown, a signed byte (the QPU's branch delay slots): a step in
   * a run of steps only (an ISA's delay slots) when the busy word holds
   * nothing else and the countdown is 2 to 127 also does it inline, taking
   * 1 off the countdown; the escape runs the step that takes it to 0. */
  uint32_t step_down;
  /* With step_over set, a run of straight-line code that ends with a step
   * (a whole number of instructions, for an ISA whose step ends one) may
   * pass the stop: it runs whole when the counter is below the stop and
   * the counter after the run is at most the 64-bit word at env +
   * step_limit, and the function then returns GS_JIT_EXIT if the counter
   * has reached the stop (so by less than GS_JIT_RUN_STEPS steps past it).
   * Everything else (escapes, the interpreter, runs that end inside an
   * instruction) stops exactly at the stop as above; a limit of stop - 1
   * is the plain stop. The QPU's scheduler uses it (docs/uops.md). */
  int step_over;
  uint32_t step_limit;
} gs_jit_desc;

/* The most steps a run of straight-line code holds. */
#define GS_JIT_RUN_STEPS 32

/* A compiled stream: entered at micro-op number `entry` (any micro-op of
 * the stream; past its end it returns GS_JIT_EXIT at once); R is the
 * register file when desc.regs_off < 0 (wherever it is, the register
 * file must be 64-byte aligned: the code loads and stores whole registers
 * with that alignment, as SASS's _Alignas(64) sass_warp and the QPU's
 * gs_qpu keep it), consts the program's constants
 * (GS_UOP_CONST), env the escape's. Returns 0 at GS_UOP_END, an escape's
 * value or GS_JIT_EXIT. Run it in the floating-point
 * environment the interpreter would run in. */
typedef int (*gs_jit_fn)(void *state, char *R, const void *consts, void *env, uint32_t entry);

typedef struct gs_jit_code gs_jit_code;

/* Whether this build and process can compile (GS_JIT=ON, the host target
 * initialised). */
int gs_jit_available(void);

/* Compiles prog[0..n) now. entries[0..ne) are the micro-ops where
 * straight-line code should start (besides micro-op 0 and the one after
 * each escape): the targets of jumps. The code may be entered or jumped
 * to anywhere: from a micro-op that is none of those the generic
 * interpreter (gs_uop_run16/32, the escape called as the compiled code
 * would) runs up to the next one.
 * NULL when native code is not available or compiling failed (the message
 * is on stderr). */
gs_jit_code *gs_jit_compile(const gs_jit_desc *d, const gs_uop *prog, uint32_t n, const uint32_t *entries,
                            uint32_t ne);
/* The same on the background thread: returns at once; gs_jit_entry gives
 * NULL until the code is ready (and for good if compiling failed). */
gs_jit_code *gs_jit_submit(const gs_jit_desc *d, const gs_uop *prog, uint32_t n, const uint32_t *entries,
                           uint32_t ne);
gs_jit_fn gs_jit_entry(gs_jit_code *c);
/* Drops the caller's hold on c (NULL: nothing); the code is freed once no
 * compilation needs it. Call it when no thread can run the code any more. */
void gs_jit_release(gs_jit_code *c);

/* When an ISA compiles a program: after `threshold` runs (0: never), on
 * the background thread, or at once when `sync` (tests). The environment
 * variable GPUSIM_JIT sets it at start: "off" (never), "sync", or a number
 * of runs; by default 8 runs, in the background. */
void gs_jit_policy(unsigned threshold, int sync);
unsigned gs_jit_threshold(void);
int gs_jit_sync(void);

/* Whether gs_jit_count_run counts no more runs of the program: the threshold
 * was reached (its code is then compiled or being compiled, or refused), or
 * it is 0 (never). */
static inline int gs_jit_counted(_Atomic unsigned *runs) {
  unsigned t = gs_jit_threshold();
  return !t || atomic_load_explicit(runs, memory_order_relaxed) >= t;
}

/* Counts one run of a prepared program towards compiling it (runs: the
 * program's counter, starting at 0): 1 for the run that reaches
 * gs_jit_threshold(), whose caller then submits the program, else 0; runs
 * past the threshold, and every run when the threshold is 0 (never), are
 * not counted. Any thread may call it; exactly one run returns 1. */
static inline int gs_jit_count_run(_Atomic unsigned *runs) {
  if (gs_jit_counted(runs)) return 0;
  return atomic_fetch_add_explicit(runs, 1, memory_order_relaxed) + 1 == gs_jit_threshold();
}

/* Programs compiled so far and the seconds it took (for docs and bench). */
void gs_jit_stats(unsigned *programs, double *seconds);

#endif
