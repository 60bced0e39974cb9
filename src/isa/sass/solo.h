/* solo.h — one SASS program run alone on given inputs (gpusim.sass.run and
 * the tests): a vertex program on attribute values, a pixel program on
 * interpolated values, each over up to 32 lanes of one warp, with constant
 * buffers; the outputs come back per lane. docs/sass.md, "Running a program
 * alone". */
#ifndef GS_ISA_SASS_SOLO_H
#define GS_ISA_SASS_SOLO_H

#include <stdint.h>
#include "isa/sass/attr.h"
#include "isa/sass/exec.h"

/* Decodes size bytes of code with SPH sph into *p (freed by
 * sass_program_free); errors name the pc. */
int sass_program_init(sass_program *p, const uint8_t *code, size_t size, const gs_sph *sph, gs_diag *d);
void sass_program_free(sass_program *p);

/* One lane's inputs and results. */
typedef struct sass_solo_lane {
  /* vertex program: its input buffer (filled by the caller: what the vertex
   * fetcher gives) and output buffer (cleared by the run) */
  sass_attr_buf in, out;
  /* pixel program: the pixel, Z in [0, 1], W (1 / the interpolated 1/w),
   * back facing, and per attribute word the interpolated value the program
   * wants (perspective-correct for a Perspective input; a Constant input
   * takes lane 0's value) */
  uint32_t x, y;
  float z, w;
  int back;
  float value[SASS_ATTR_WORDS];
  /* pixel results: colour registers per target (raw bits), depth, sample
   * mask, and whether the lane was discarded */
  uint32_t colour[8][4], depth, sample_mask;
  int killed;
} sass_solo_lane;

typedef struct sass_solo {
  const sass_program *prog;     /* its SPH decides the stage */
  unsigned lanes;               /* 1..32 */
  const uint8_t *cb[SASS_CBANKS];
  uint32_t cb_size[SASS_CBANKS];
  uint64_t budget;              /* instructions; 0: GS_DEFAULT_WATCHDOG */
  int interpreter;              /* GS_INTERP_FAST (0, the default) or GS_INTERP_REFERENCE */
  sass_solo_lane lane[SASS_LANES];
  sass_warp warp;               /* the warp at the end: registers, predicates */
  gs_isa_report report;         /* exceptions (broken SPH gates) */
  sass_ps_out out_map;          /* a pixel program's output registers */
} sass_solo;

/* Runs s->prog on s's lanes. GS_OK, or an error naming the pc. */
int sass_solo_run(sass_solo *s, gs_diag *d);

#endif
