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

#endif
