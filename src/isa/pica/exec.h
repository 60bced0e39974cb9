/* exec.h — the PICA200 reference interpreter: one vertex (invocation) at a
 * time through decoded instructions (pica.h), with the hardware's control
 * flow: three bounded stacks — CALL (depth 4), IF (8), LOOP (4) — whose
 * overflow discards the oldest entry, checked after each instruction in the
 * order CALL (up to four pops, the fourth losing its pc update), IF (one
 * pop), LOOP (one pop, or a forced one by BREAK), the final pc taken from
 * LOOP over IF over CALL over a jump over the next word (3dbrew "Shader
 * Instruction Set", "Control Flow"; docs/pica.md).
 *
 * Registers hold f32-carried values in the run's numeric mode (num.h): the
 * float24 model by default, or IEEE binary32. State persists between runs of
 * one pica_state, as on the hardware (temporaries, a0, aL, the cmp flags and
 * the stacks' emptiness aside: the stacks start empty each run).
 */
#ifndef GS_ISA_PICA_EXEC_H
#define GS_ISA_PICA_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "isa/pica/num.h"
#include "isa/pica/pica.h"

enum { PICA_CALL_DEPTH = 4, PICA_IF_DEPTH = 8, PICA_LOOP_DEPTH = 4 };

typedef struct pica_call { uint32_t end, ret; } pica_call;
typedef struct pica_if { uint32_t els, end; } pica_if;
typedef struct pica_loop {
  uint32_t entry, end;
  uint32_t count;   /* iterations left after this one */
  int32_t inc;
  int32_t saved_al;
} pica_loop;

typedef struct pica_state {
  pica_num_mode mode;
  uint32_t v[16][4];         /* inputs */
  uint32_t r[16][4];         /* temporaries */
  uint32_t o[16][4];         /* outputs */
  uint16_t written[16];      /* output components written: bit 0 x .. bit 3 w */
  uint32_t c[96][4];         /* float uniforms */
  uint8_t i[4][4];           /* integer uniforms: x count, y initial aL, z increment (signed), w */
  uint16_t b;                /* bool uniforms b0-b15 */
  int32_t a0[2], al;         /* address registers a0.x, a0.y, loop counter aL */
  int cmp[2];                /* condition flags cmp.x, cmp.y */
  pica_call call[PICA_CALL_DEPTH];
  pica_if ifs[PICA_IF_DEPTH];
  pica_loop loop[PICA_LOOP_DEPTH];
  unsigned ncall, nif, nloop;
  uint32_t pc;
  uint64_t steps;            /* instructions run */
  /* Geometry shaders (SETEMIT, EMIT): run only with emit set, else refused
   * as in the vertex stage. SETEMIT keeps its vertex slot (0-2), primitive
   * and winding flags for the next EMIT; EMIT calls emit(emit_ctx, s, d)
   * with the vertex in o (written: what was written since this bank was
   * last emitted) and then swaps o with the other bank of output
   * registers, so that a component not written between two EMITs keeps the
   * value of two EMITs before (the hardware's two output banks, found by
   * azahar's developers on a 3DS; docs/pica-run.md). A nonzero return of
   * emit stops the run with that error. */
  int (*emit)(void *emit_ctx, const struct pica_state *s, gs_diag *d);
  void *emit_ctx;
  uint8_t emit_vtx, emit_prim, emit_winding;
  uint32_t o_other[16][4];
  uint16_t written_other[16];
} pica_state;

/* A decoded program: code word address k is insn[k]. */
typedef struct pica_program {
  const pica_insn *insn;
  size_t n;
} pica_program;

/* Runs from word address entry until END. Errors (GS_E*, naming the word
 * address): a pc outside the program, BREAK with no loop (the GPU hangs),
 * geometry-shader instructions, the budget. */
int pica_run_ref(pica_state *s, const pica_program *p, uint32_t entry, uint64_t budget, gs_diag *d);
/* One instruction of pica_run_ref at s->pc (the caller set the stacks'
 * depths to 0 and the pc to the entry before the first): 0 it ran, 1 it
 * was END, or the error pica_run_ref would give. (The shader debugger's
 * step, isa/debug.h.) */
int pica_step_ref(pica_state *s, const pica_program *p, uint64_t budget, gs_diag *d);

/* ---- batches: vertices as lanes ----------------------------------------------
 *
 * A batch runs up to PICA_LANES vertices of one program side by side, lane
 * k being one vertex. Per-lane state is stored [register][component][lane]
 * (16 lanes of a component are 64 contiguous bytes); the uniforms and the
 * numeric mode are shared.
 *
 * EQUIVALENCE (what tests/test_pica_fast.c checks, bit for bit, in both
 * numeric modes): lane k < lanes is exactly a pica_state of its own — the
 * shared mode, c, i and b with lane k's v, r, o, written, a0, aL, cmp and
 * steps (pica_batch_get) — and pica_run_batch leaves lane k as pica_run_ref
 * on that state would leave it, for every lane, even when other lanes fail.
 * Lanes from `lanes` up are not touched.
 *
 * PERSISTENCE. On the hardware one unit runs vertices one after another and
 * temporaries, a0, aL and the cmp flags carry from each to the next. Lanes
 * run side by side cannot see each other, so a unit that keeps that state
 * starts every lane of a batch from the same pica_state (pica_batch_fill)
 * and takes the last lane's state afterwards (pica_batch_get(b, lanes - 1,
 * &s)): each vertex then starts from the state its batch started with, not
 * from its predecessor's inside the batch.
 *
 * ERRORS. The return is the error of the lowest-numbered failing lane, its
 * message the reference's with the lane named: "PICA200 shader, lane 3:
 * pc 0x012 is outside the program (18 words)". */

enum { PICA_LANES = 16 };

typedef struct pica_batch {
  pica_num_mode mode;
  unsigned lanes;                     /* lanes 0..lanes-1 run (1..PICA_LANES) */
  uint32_t v[16][4][PICA_LANES];      /* inputs */
  uint32_t r[16][4][PICA_LANES];      /* temporaries */
  uint32_t o[16][4][PICA_LANES];      /* outputs */
  uint16_t written[16][PICA_LANES];   /* output components written: bit 0 x .. bit 3 w */
  int32_t a0[2][PICA_LANES];          /* a0.x, a0.y */
  int32_t al[PICA_LANES];             /* aL */
  uint8_t cmp[2][PICA_LANES];         /* cmp.x, cmp.y (0 or 1) */
  uint64_t steps[PICA_LANES];         /* instructions run, as pica_state.steps */
  uint32_t c[96][4];                  /* float uniforms (shared) */
  uint8_t i[4][4];                    /* integer uniforms (shared) */
  uint16_t b;                         /* bool uniforms (shared) */
} pica_batch;

/* Lane k of b as a pica_state (its stacks empty, pc 0), and back (the
 * shared fields from s too). */
void pica_batch_get(const pica_batch *b, unsigned lane, pica_state *s);
void pica_batch_set(pica_batch *b, unsigned lane, const pica_state *s);
/* Every lane of b from s, and b->lanes = lanes. */
void pica_batch_fill(pica_batch *b, const pica_state *s, unsigned lanes);

/* A program prepared for pica_run_batch (predecoded); it keeps a pointer to
 * p->insn, which must outlive it. */
typedef struct pica_fast pica_fast;
int pica_fast_compile(const pica_program *p, pica_fast **out, gs_diag *d);
void pica_fast_free(pica_fast *f);

/* Runs lanes 0..b->lanes-1 from word address entry until END, each with
 * its own budget as pica_run_ref (steps counted per lane); b->lanes outside
 * 1..PICA_LANES is GS_EARG. Lanes on different paths run in groups that
 * split at IFC, CALLC, JMPC and BREAKC and join where the paths meet
 * (exec_fast.c; docs/pica-run.md). */
int pica_run_batch(pica_batch *b, const pica_fast *f, uint32_t entry, uint64_t budget, gs_diag *d);

/* The reference's error messages (exec_ref.c), lane < 0 naming none: kind
 * PICA_FAULT_PC (pc outside the program), _BUDGET, _BREAK (BREAK/BREAKC
 * outside a loop, the instruction at pc), _GSH (a geometry-shader
 * instruction at pc). Returns the code. */
enum { PICA_FAULT_PC, PICA_FAULT_BUDGET, PICA_FAULT_BREAK, PICA_FAULT_GSH };
int pica_fault(gs_diag *d, int kind, int lane, const pica_program *p, uint32_t pc, uint64_t budget);

#endif
