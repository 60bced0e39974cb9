/* unit.h — the PICA200 unit's hooks of the shader-unit contract (unit.c),
 * which isa_pica.c puts in gs_isa_pica, and the pieces of a SHBIN's
 * executable that gpusim.pica.run (src/lua/lpica.c) shares with it.
 * docs/pica-unit.md is the chapter. */
#ifndef GS_ISA_PICA_UNIT_H
#define GS_ISA_PICA_UNIT_H

#include "isa/isa.h"
#include "isa/pica/exec.h"
#include "isa/pica/pica.h"

/* Applies a DVLE's constant table to s, as a loader does when it binds the
 * executable: bool constants to b0-b15, integer ones to i0-i3, float ones
 * (float24 words) to c0-c95 loaded in s->mode. Registers the table does
 * not name keep their values. */
void pica_dvle_apply_consts(const pica_dvle *dv, pica_state *s);

/* ---- the output map -----------------------------------------------------------
 * Semantic codes of the rasteriser's attributes (3dbrew "GPU/Internal
 * Registers", GPUREG_SH_OUTMAP_Oi): 0-3 position x y z w, 4-7 normal
 * quaternion, 8-11 colour r g b a, 0x0C-0x0D texcoord0 u v, 0x0E-0x0F
 * texcoord1 u v, 0x10 texcoord0 w, 0x12-0x14 view x y z, 0x16-0x17
 * texcoord2 u v. */
enum { PICA_SEM_COUNT = 0x18, PICA_MAX_VARYINGS = 18 };

typedef struct pica_outmap {
  /* the output component that carries semantic k: o-register x 4 +
   * component, or 0xff where the map has none */
  uint8_t src[PICA_SEM_COUNT];
  /* the varyings in the order the pipeline hands them on (colour r g b a,
   * texcoord0 u v, texcoord0 w, texcoord1 u v, texcoord2 u v, normal
   * quaternion x y z w, view x y z; those the map has): their semantics */
  uint8_t vary[PICA_MAX_VARYINGS];
  unsigned nvary;
} pica_outmap;

/* The output map of dv's output table, as a loader builds
 * GPUREG_SH_OUTMAP_Oi: the k-th component set in an entry's mask carries
 * the k-th semantic of its type, and components past the type's count
 * carry none (texcoord0 in .xyzw: u v from x y), as libctru's
 * DVLE_GenerateOutmap builds it. Refuses (GS_EINVAL, naming the entry) an
 * unknown type, a semantic two entries give, more than 7 registers with
 * semantics, and a map without a position. */
int pica_outmap_build(const pica_dvle *dv, pica_outmap *m, gs_diag *d);

/* ---- the unit -------------------------------------------------------------------- */

void *pica_context_new(gs_gpu *g);
void pica_context_free(void *ctx);
gs_isa_unit *pica_unit_new(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag);
void pica_unit_free(gs_isa_unit *u);
int pica_prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code);
void pica_trust_code(gs_isa_unit *u, int on);
gs_fp_env pica_fp_env(const gs_gpu *g, gs_fp_env base);
void pica_idle(gs_gpu *g);
int pica_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *io);
/* Refuses: the PICA200's fragment stage is fixed function. */
int pica_run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *io, unsigned n, unsigned *ran);

#endif
