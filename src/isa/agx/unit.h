/* unit.h — the Apple AGX unit's hooks of the shader-unit contract
 * (unit.c), which isa_agx.c puts in gs_isa_agx. docs/agx-unit.md is the
 * chapter. */
#ifndef GS_ISA_AGX_UNIT_H
#define GS_ISA_AGX_UNIT_H

#include "isa/isa.h"

/* The vertex ABI's uniform layout (Mesa's agx_abi.h) for n attributes,
 * reserved for AGX_VS_ATTRIBS = 8, the most a GL shader record gives (so
 * that one program serves as vertex and as coordinate shader, whose SPHs
 * map different inputs): du(2a) the base address of attribute a, u(2n + a)
 * its clamp, u(3n) the base vertex, u(3n + 1) the base instance, u(3n + 2)l
 * the draw id (6n + 5 halves); the draw's uniform stream, word k, is then
 * u(AGX_VS_UNIFORM_BASE + k) = u(3n + 3 + k) = u(27 + k). */
enum { AGX_VS_ATTRIBS = 8, AGX_VS_UNIFORM_BASE = 3 * AGX_VS_ATTRIBS + 3 };

/* The fragment ABI's uniforms: u0_u1 the render-target texture heap, u2-u5
 * the blend constant, u6_u7 the root descriptor (all 0: gpusim's tile port
 * blends, and there is no heap or descriptor); the draw's uniform stream,
 * word k, is u(8 + k). */
enum { AGX_FS_UNIFORM_BASE = 8 };

void *agx_context_new(gs_gpu *g);
void agx_context_free(void *ctx);
gs_isa_unit *agx_unit_new(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag);
void agx_unit_free(gs_isa_unit *u);
int agx_prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code);
void agx_trust_code(gs_isa_unit *u, int on);
gs_fp_env agx_fp_env(const gs_gpu *g, gs_fp_env base);
void agx_idle(gs_gpu *g);
int agx_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *io);
int agx_run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *io, unsigned n, unsigned *ran);
uint32_t agx_fragment_reads(gs_gpu *g, gs_isa_unit *u, gs_addr code);

#endif
