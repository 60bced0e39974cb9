/* combiner.h — the PICA200's fixed-function fragment stage, its six texture
 * combiners ("TexEnv" stages), turned by the driver into a VideoCore IV QPU
 * fragment program, as the driver turns blend state into code
 * (docs/pica-combiners.md). The configuration is the one citro3d's
 * C3D_TexEnv* calls and the GPUREG_TEXENVi registers describe (3dbrew
 * "GPU/Internal Registers", TEXENV); the arithmetic is done in binary32 and
 * rounded once, at the colour pack, where the hardware works in 8 bits at
 * every stage.
 */
#ifndef GS_DRIVER_COMBINER_H
#define GS_DRIVER_COMBINER_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"

enum { GS_TEV_STAGES = 6, GS_TEV_MAX_VARYINGS = 16 };

/* Sources, with the register encoding's numbers (GPUREG_TEXENVi_SOURCE). */
typedef enum gs_tev_src {
  GS_TEV_PRIMARY_COLOR = 0x0,
  GS_TEV_FRAGMENT_PRIMARY_COLOR = 0x1,   /* fragment lighting: refused */
  GS_TEV_FRAGMENT_SECONDARY_COLOR = 0x2, /* fragment lighting: refused */
  GS_TEV_TEXTURE0 = 0x3,
  GS_TEV_TEXTURE1 = 0x4,
  GS_TEV_TEXTURE2 = 0x5,
  GS_TEV_TEXTURE3 = 0x6,                 /* procedural texture: refused */
  GS_TEV_PREVIOUS_BUFFER = 0xD,
  GS_TEV_CONSTANT = 0xE,
  GS_TEV_PREVIOUS = 0xF
} gs_tev_src;

/* Operands: which component of the source, or one minus it. RGB
 * (GPUREG_TEXENVi_OPERAND bits 0-11): 0 rgb, 1 1-rgb, 2 aaa, 3 1-aaa,
 * 4 rrr, 5 1-rrr, 8 ggg, 9 1-ggg, 12 bbb, 13 1-bbb. Alpha (bits 12-23):
 * 0 a, 1 1-a, 2 r, 3 1-r, 4 g, 5 1-g, 6 b, 7 1-b. */

/* Combine functions (GPUREG_TEXENVi_COMBINER). */
typedef enum gs_tev_func {
  GS_TEV_REPLACE, GS_TEV_MODULATE, GS_TEV_ADD, GS_TEV_ADD_SIGNED, GS_TEV_INTERPOLATE, GS_TEV_SUBTRACT,
  GS_TEV_DOT3_RGB, GS_TEV_DOT3_RGBA, GS_TEV_MULTIPLY_ADD, GS_TEV_ADD_MULTIPLY, GS_TEV_FUNCS
} gs_tev_func;

typedef struct gs_tev_half {   /* the RGB or the alpha half of a stage */
  uint8_t src[3], op[3];
  uint8_t func;                /* gs_tev_func */
  uint8_t scale;               /* 1, 2 or 4 */
} gs_tev_half;

typedef struct gs_tev_stage {
  gs_tev_half rgb, alpha;
  float constant[4];           /* r g b a in [0, 1] */
  uint8_t update_rgb, update_alpha; /* stages 0-3: the output goes to the combiner buffer */
} gs_tev_stage;

typedef struct gs_tev {
  gs_tev_stage stage[GS_TEV_STAGES]; /* a stage not given passes the previous output on */
  float buffer_color[4];       /* the combiner buffer's initial colour */
  int depth;                   /* 1: the program writes the rasterised Z (for the depth test) */
} gs_tev;

/* The varyings the fragment program receives, in order (the PICA200 unit's
 * order: docs/pica-unit.md): name ("color", "texcoord0", "texcoord1",
 * "texcoord2", anything else is read past) and component count. */
typedef struct gs_tev_varying {
  const char *name;
  unsigned components;
} gs_tev_varying;

/* Fills t with the pass-through configuration: every stage replaces with
 * the previous output (stage 0's previous is (0, 0, 0, 0)), buffer colour 0. */
void gs_tev_init(gs_tev *t);

/* The QPU assembly (docs/qpu.md) of t's fragment program for varyings
 * v[0..n): malloc'ed, NUL-terminated text. The fragment uniforms are the
 * textures the stages read, texture0 before texture1 before texture2.
 * Errors (GS_EARG) name the stage and the field: a source the GPU model
 * lacks (fragment lighting, the procedural texture3), a texture whose
 * coordinates are not among the varyings, an operand or function out of
 * range, dot3_rgb as an alpha function. */
int gs_tev_qpu_source(const gs_tev *t, const gs_tev_varying *v, size_t n, char **text, gs_diag *d);

#endif
