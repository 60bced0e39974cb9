/* unit_fixture.h — what the vertex-unit tests of the ISAs whose abi
 * transforms vertices share (test_pica_unit.c, test_agx_unit.c): a context
 * with one unit of the ISA, programs loaded with an SPH of generic inputs
 * and outputs, a uniform stream, one vertex batch run through run_vertex
 * into the VPM's rows 16.., and the output rows read back. Include after
 * cmocka.h. */
#ifndef GS_TESTS_UNIT_FIXTURE_H
#define GS_TESTS_UNIT_FIXTURE_H

#include <string.h>
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "isa/isa.h"
#include "v3d/vpm.h"

typedef struct fixture {
  gs_gpu *g;
  const gs_isa *isa;
  gs_isa_unit *u;
  gs_vpm vpm;
  gs_diag d;
  gs_isa_report report;
  gs_addr unif;
  uint32_t unif_words;
} fixture;

static inline void fixture_init_isa(fixture *f, const char *isa) {
  memset(f, 0, sizeof *f);
  f->g = gs_gpu_new(NULL);
  assert_non_null(f->g);
  f->isa = gs_isa_by_name(isa);
  assert_non_null(f->isa);
  assert_int_equal(f->isa->transforms_vertices, 1);
  f->u = f->isa->unit_new(f->g, 2, &f->vpm, &f->d);
  assert_non_null(f->u);
}

static inline void fixture_free(fixture *f) {
  f->isa->unit_free(f->u);
  gs_gpu_free(f->g);
}

/* Loads size bytes as a vertex program of the fixture's ISA whose SPH has
 * generic inputs of the masks in[] at generic locations first_in.., and
 * position plus generic outputs of the masks out[] (none: a coordinate
 * shader's header). */
static inline gs_addr fixture_load(fixture *f, const uint8_t *bytes, size_t size, unsigned first_in,
                                   const unsigned *in, size_t nin, const unsigned *out, size_t nout) {
  gs_sph_io i[8], o[9];
  for (size_t k = 0; k < nin; k++)
    i[k] = (gs_sph_io){GS_SPH_ATTR_GENERIC(first_in + k), in[k], GS_PIXEL_IMAP_UNUSED};
  o[0] = (gs_sph_io){GS_SPH_ATTR_POSITION, 0xF, GS_PIXEL_IMAP_UNUSED};
  for (size_t k = 0; k < nout; k++) o[k + 1] = (gs_sph_io){GS_SPH_ATTR_GENERIC(k), out[k], GS_PIXEL_IMAP_UNUSED};
  gs_sph_decl decl = {.stage = GS_SPH_VERTEX, .inputs = i, .n_inputs = nin, .outputs = o, .n_outputs = nout + 1};
  gs_sph sph;
  gs_drv_program p;
  if (gs_sph_build(&decl, &sph, &f->d) < 0 ||
      gs_drv_program_load_isa(gs_gpu_mem(f->g), f->isa->id, bytes, size, &sph, &p, &f->d) < 0)
    fail_msg("%s", f->d.msg);
  return p.code;
}

/* The n words w[] as the draw's uniform stream. */
static inline void fixture_uniforms(fixture *f, const uint32_t *w, uint32_t n) {
  if (gs_mem_alloc(gs_gpu_mem(f->g), 4 * n, 4, &f->unif, &f->d) < 0 ||
      gs_mem_write(gs_gpu_mem(f->g), f->unif, w, 4 * n, &f->d) < 0)
    fail_msg("%s", f->d.msg);
  f->unif_words = n;
}

/* One batch of count vertices (index: their vertex ids, or NULL) from
 * in_rows VPM rows at 0 to out_rows rows at 16 (cleared first). */
static inline int fixture_run(fixture *f, gs_stage stage, gs_addr code, unsigned in_rows, unsigned out_rows,
                              unsigned count, const uint32_t *index) {
  gs_vertex_io io = {stage, {code, f->unif, f->unif + 4 * f->unif_words}, GS_GATE_ALL, &f->report, &f->vpm,
                     0, in_rows, 16, out_rows, count, {2560.0f, 1920.0f, 0.5f, 0.5f}, 0, index, NULL, 0};
  memset(&f->vpm.words[16 * 16], 0, 16 * 16 * sizeof(uint32_t));
  return f->isa->run_vertex(f->g, f->u, &io);
}

static inline uint32_t out(const fixture *f, unsigned row, unsigned lane) {
  return f->vpm.words[(16 + row) * 16 + lane];
}
static inline float outf(const fixture *f, unsigned row, unsigned lane) {
  float x;
  uint32_t u = out(f, row, lane);
  memcpy(&x, &u, 4);
  return x;
}

#endif
