/* unit_int.h — what the AGX unit's files share inside the unit: a cached
 * program (an entry of isa/progcache.h), the unit itself and the helpers
 * both stages use. unit.c has the cache, the unit and the vertex stage;
 * frag.c the fragment stage. docs/agx-unit.md is the chapter. */
#ifndef GS_ISA_AGX_UNIT_INT_H
#define GS_ISA_AGX_UNIT_INT_H

#include "isa/agx/exec.h"
#include "isa/agx/unit.h"
#include "isa/progcache.h"
#include "v3d/v3d.h"

typedef struct agx_entry {
  gs_prog_entry base; /* address and code (isa/progcache.h) */
  agx_instr *insn;
  agx_program prog;
  agx_fast *fast;
  gs_sph sph;
  /* a vertex program: the register (32-bit number) of each VCD word, in
   * the order of the SPH's IMAP; the attributes read and which of their
   * components the SPH maps; the varying words the OMAP declares */
  uint8_t in_reg[128];
  unsigned nin, nattr;
  uint8_t attr_mask[AGX_VS_ATTRIBS];
  unsigned nvary;
  unsigned halves; /* the register halves its operands name (r0l at least): what a group must zero */
  int reads_cf;     /* an operand names a coefficient register (iter, iterproj, ldcf) */
  int reads_pixel;  /* an operand names sr80 or sr81, the pixel (iter and iterproj read it too) */
  unsigned cf_end;  /* past the highest coefficient register iter/iterproj/ldcf name (cf0 is W, cf(1 + k) varying component k) */
  int pends;        /* it has a load, store or smpf: the instructions that leave halves pending */
  int frag_outs;    /* it has sample_mask or zs_emit: the instructions that write the fragment outputs */
  unsigned zs;      /* what its zs_emit instructions write: AGX_ZS_DEPTH | AGX_ZS_STENCIL */
  unsigned rt_past0; /* the first render target past 0 its SPH maps a component of, or 0 */
  struct agx_linked_set *linked; /* a vertex program: behind its vertex prologs, one a record layout (unit.c) */
} agx_entry;

enum { AGX_ZS_DEPTH = 1, AGX_ZS_STENCIL = 2 };

/* the context of smpf's sampler (tex.c): the draw's fragment program */
typedef struct agx_tex_ctx {
  gs_gpu *g;
  gs_stage_program prog; /* a copy: its uniform stream holds the texture words */
} agx_tex_ctx;

struct gs_isa_unit {
  int num;
  struct gs_vpm *vpm;
  gs_diag *diag;
  int trusted;
  const agx_entry *last;  /* the program of the last batch */
  const agx_entry *fresh; /* the fragment program st was last fully initialised for, or NULL */
  unsigned cf_used;       /* the coefficient registers the last fragment batch set */
  /* 1: st's uniforms are the stream unif_prog's, loaded by the last
   * fragment run while the code was trusted (within one primitive, when
   * memory cannot change): the next run of the same stream keeps them */
  int unif_valid;
  gs_stage_program unif_prog;
  agx_state st;
  agx_tex_ctx tex;        /* smpf's sampler context (fragment stage) */
  agx_frame *frame;       /* the fast interpreter's file for a fragment call's runs (exec.h), or NULL */
  /* 1: st's register halves below fresh's e->halves are 0 in lanes 0-15,
   * as group_reset leaves them (the last run went no further than the
   * file), so the next group need not clear them */
  int r_clean;
};

/* The cached program at code (decoded, compiled), or NULL with u's diag set. */
const agx_entry *agx_find(gs_gpu *g, gs_isa_unit *u, gs_addr code);
/* Device memory for load/store: the context's GPU memory (ctx: the gs_gpu). */
int agx_unit_mem(void *ctx, uint64_t addr, void *buf, unsigned n, int write);
/* The draw's uniform stream from uniform register `first` on: its words up
 * to its end (without one, as many as memory holds) and u255. */
void agx_load_uniforms(gs_gpu *g, const gs_stage_program *p, agx_state *s, unsigned first);
/* Runs the group in s through the context's interpreter. */
int agx_run_group(const gs_gpu *g, const agx_entry *e, agx_state *s, gs_diag *d);
/* agx_run_group for a fragment group with the reference interpreter or
 * under the debugger (run_fragment runs the others through agx_run_frame
 * or agx_run_rows_clean), with the registers of want (bit N: rN, N < 8)
 * left in rows, from the state after the run. */
int agx_run_group_rows(const gs_gpu *g, const agx_entry *e, agx_state *s, gs_diag *d, uint32_t want, agx_rows rows);
/* Prefixes the unit's error with the unit, the stage and the program. */
int agx_unit_error(gs_isa_unit *u, int rc, const char *what, gs_addr code, const char *extra);

/* smpf's sampler (tex.c; docs/agx-unit.md, Textures): texture state tsN =
 * the TMU config words at words 2N, 2N + 1 of p's uniform stream, ss0 the
 * sampler they describe. agx_tex_attach gives s the sampler, with c (the
 * unit's tex, which outlives the runs) as its context. */
void agx_tex_attach(agx_state *s, agx_tex_ctx *c, gs_gpu *g, const gs_stage_program *p);

#endif
