/* exec.h — the SASS reference interpreter: one warp of up to 32 lanes runs
 * a decoded program (sass_insn, sass.h) in program order.
 *
 * Control flow is the SIMT model of Maxwell's convergence stack: SSY and
 * PBK push a reconvergence target with the lanes active at the push; a
 * branch whose guard splits the active lanes runs the taken lanes first and
 * pushes the others (a divergence entry) to run when the taken ones wait; a
 * lane that reaches SYNC (or BRK) waits for its SSY (PBK) target; a lane
 * that reaches EXIT is done. When no lane is active the stack's top entry
 * gives the next lanes and pc. Scheduling control words are not modelled:
 * the order is the program's, and correct code does not depend on stalls.
 *
 * The interpreter knows nothing of the pipeline: attribute loads and
 * stores, interpolation, textures and the fragment outputs go through a
 * sass_io the caller fills (the unit, or gpusim.sass.run).
 */
#ifndef GS_ISA_SASS_EXEC_H
#define GS_ISA_SASS_EXEC_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/sph.h"
#include "isa/isa.h"
#include "isa/sass/attr.h"
#include "isa/sass/sass.h"

#define SASS_LANES 32
#define SASS_CBANKS 18
#define SASS_STACK 32 /* convergence stack entries */
#define SASS_FAST_TEMPS 8 /* scratch vectors of the fast interpreter */

/* A decoded program. */
typedef struct sass_program {
  sass_insn *insn;   /* one per instruction slot, in code order */
  size_t n;
  uint32_t size;     /* code bytes (a multiple of 32) */
  gs_sph sph;        /* its SPH */
  int has_sph;
} sass_program;

/* The instruction index of code byte offset pc, or (size_t)-1 if pc is not
 * an instruction slot of p. */
static inline size_t sass_index(const sass_program *p, uint32_t pc) {
  if ((pc & 7) || (pc & 31) == 0 || pc >= p->size) return (size_t)-1;
  return (size_t)(pc / 32) * 3 + (pc % 32) / 8 - 1;
}

struct sass_warp;

/* What a warp sees of its stage. Callbacks return 0, or a negative GS_E*
 * code with the message in d. Lanes are bit masks. */
typedef struct sass_io {
  gs_stage stage;
  uint32_t gates;                 /* GS_GATE_* of the program */
  gs_isa_report *report;          /* exceptions (a broken gate) */
  const uint8_t *cb[SASS_CBANKS]; /* constant buffers (little-endian bytes) */
  uint32_t cb_size[SASS_CBANKS];
  /* vertex stages (ALD, AST): the stage's maps and each lane's buffers */
  const sass_attr_ctx *attr;
  const sass_attr_io *lane_attr;  /* [lane] */
  /* fragment stage (IPA): lanes 16 b .. 16 b + 15 are block b's lanes */
  const sass_ipa_map *ipa;
  const gs_frag_io *frag[SASS_LANES / 16];
  sass_frag_sys sys;
  uint8_t flat_shade;             /* the 3D state's flat shading (IPA.SC) */
  void *ctx;
  /* TEX, TEXS, TLDS, TLD for the lanes in `lanes`; NULL: refused */
  int (*tex)(void *ctx, struct sass_warp *w, const sass_insn *in, uint32_t lanes, gs_diag *d);
  /* S2R: 1 and *v if the caller knows system register sr for lane; 0 for
   * the interpreter's own values (docs/sass.md); NULL likewise */
  int (*sysreg)(void *ctx, unsigned sr, unsigned lane, uint32_t *v);
} sass_io;

enum { SASS_ENTRY_SSY = 1, SASS_ENTRY_PBK = 2, SASS_ENTRY_DIV = 3 };

typedef struct sass_entry {
  uint8_t kind;
  uint32_t pc;    /* where its lanes resume */
  uint32_t mask;  /* the lanes it holds */
} sass_entry;

/* One warp's state. Registers are [register][lane]; R255 (RZ) stays 0. */
typedef struct sass_warp {
  /* 64-byte aligned (in a struct allocated so), as native code assumes
   * of a register file (docs/uops.md) */
  _Alignas(64) uint32_t r[256][SASS_LANES];
  /* the fast interpreter's scratch vectors, addressed like registers 256 up
   * (exec_fast.c); the reference interpreter does not use them */
  uint32_t t[SASS_FAST_TEMPS][SASS_LANES];
  uint8_t p[SASS_LANES];          /* P0..P6 in bits 0..6 (bit 7, PT, always set) */
  uint8_t cc[SASS_LANES];         /* SASS_CC_* */
  uint32_t pc;
  uint32_t lanes;                 /* the lanes the warp was started with */
  uint32_t active;                /* the lanes running at pc */
  uint32_t exited;                /* lanes done (EXIT) */
  uint32_t killed;                /* lanes discarded (KIL) */
  unsigned depth;
  sass_entry stack[SASS_STACK];
  uint64_t steps;                 /* instructions run */
  uint8_t *local;                 /* per-lane local memory: lane * local_size */
  uint32_t local_size;
} sass_warp;

enum { SASS_CC_Z = 1, SASS_CC_S = 2, SASS_CC_C = 4, SASS_CC_O = 8 };

/* Starts warp w on lanes (bit i: lane i) at code offset pc: registers,
 * predicates and flags cleared (PT set), the stack empty. Local memory
 * (local_size bytes per lane) is the caller's, or NULL with 0. */
void sass_warp_reset(sass_warp *w, uint32_t lanes, uint32_t pc, uint8_t *local, uint32_t local_size);

/* Runs w until every lane has exited or budget instructions have run.
 * Returns 0 (done), or a negative GS_E* code with a message naming `name`
 * (the program, for messages), the pc and the instruction. */
int sass_run_ref(sass_warp *w, const sass_program *p, const sass_io *io, uint64_t budget, const char *name,
                 gs_diag *d);

/* How many registers program p can name, R0..R(n - 1): the highest an
 * operand names, with room for the vector forms (ALD.128, TEXS's pairs,
 * LDC.128: up to 3 above the register an operand names). */
unsigned sass_program_nregs(const sass_program *p);

/* sass_warp_reset for a run of a program naming nregs registers
 * (sass_program_nregs): only those (and RZ) are cleared, so that starting a
 * warp costs what the program uses, not 32 KB; the others are never read. */
void sass_warp_start(sass_warp *w, unsigned nregs, uint32_t lanes, uint32_t pc, uint8_t *local,
                     uint32_t local_size);

/* The registers a run of p from its first instruction may read, in a lane
 * it started with, before that lane has written them, then (after) the
 * caller reads of its lanes when every lane is done (a bit set: register r
 * is bit r % 32 of word r / 32): their numbers in regs (room for 255),
 * ascending; returns how many. The code is followed from the start while
 * it is straight-line ALU, IPA and S2R instructions (each reads its operand
 * slots and, unguarded, writes its destination in every lane); up to an
 * unguarded EXIT, the outputs then; anything else (control flow, KIL, the
 * other I/O, conversions) ends the search with every register below nregs
 * not yet written. The rest of the registers a run of p cannot tell from
 * 0 (sass_warp_start_regs). */
unsigned sass_program_first_reads(const sass_program *p, unsigned nregs, const uint32_t after[8], uint8_t *regs);

/* sass_warp_start for a run whose lanes read only the n registers regs[]
 * before writing them (sass_program_first_reads): only those and RZ are
 * cleared; the others keep what they held, which no lane of the run
 * reads. */
void sass_warp_start_regs(sass_warp *w, const uint8_t *regs, unsigned n, uint32_t lanes, uint32_t pc, uint8_t *local,
                          uint32_t local_size);

/* One instruction of sass_run_ref: when no lane is active, the stack's
 * entries give the next ones; then 1 if nothing is left to run, else the
 * instruction at w->pc runs (0) or fails (a negative GS_E* code, the same
 * message as sass_run_ref). The fast interpreter runs its escapes with it. */
int sass_step_ref(sass_warp *w, const sass_program *p, const sass_io *io, uint64_t budget, const char *name,
                  gs_diag *d);

/* The constant c[bank][byte] (little-endian) in *v: 0, or -1 when it is not
 * bound. */
static inline int sass_cbuf_read(const sass_io *io, unsigned bank, uint32_t byte, uint32_t *v) {
  if (bank >= SASS_CBANKS || !io->cb[bank] || byte > io->cb_size[bank] || io->cb_size[bank] - byte < 4) return -1;
  const uint8_t *q = io->cb[bank] + byte;
  *v = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
  return 0;
}

/* ---- the fast interpreter (exec_fast.c) ----
 * A program prepared once into micro-ops over 32 lanes (src/isa/uop):
 * the ALU, predicate and move instructions run as vector micro-ops under
 * their guard's mask; control flow, I/O and the rarer forms run through
 * sass_step_ref on the same warp. Constant-buffer operands are read at run
 * time, so a prepared program serves every draw. */
typedef struct sass_fast sass_fast;
/* NULL with an error in d (out of memory). p must outlive the result. */
sass_fast *sass_prepare_fast(const sass_program *p, gs_diag *d);
void sass_fast_free(sass_fast *f);
/* sass_run_ref's contract, the same results bit for bit. With GS_JIT, f's
 * micro-ops run as native code once f has run gs_jit_threshold() times and
 * the backend has compiled them (src/isa/uop/jit.h), the interpreter until
 * then. */
int sass_run_fast(sass_warp *w, const sass_fast *f, const sass_io *io, uint64_t budget, const char *name, gs_diag *d);
/* The same on the interpreter alone (the step debugger's runs). */
int sass_run_fast_interp(sass_warp *w, const sass_fast *f, const sass_io *io, uint64_t budget, const char *name,
                         gs_diag *d);
/* How many of the program's instructions run as micro-ops (the others
 * through sass_step_ref). */
size_t sass_fast_coverage(const sass_fast *f);
/* Whether sass_run_fast takes its AVX2 copy (1) or the build's own (0); on
 * = 1 makes it take the build's own from now on, 0 lets it choose again, -1
 * only asks. For tests, which check both copies (as gs_uop_portable). */
int sass_fast_portable(int on);

/* The flow test (CC condition, 0-31) on flags cc. */
int sass_flow_test(unsigned test, unsigned cc);

#endif
