/* bench_vertex.c — `gpusim bench`'s vertex-bound frame (issue 10 §4): many
 * tiny triangles drawn through the driver (a GL shader record: a coordinate
 * shader in the binning pass, a vertex shader in the rendering pass), so
 * that vertex work — the VCD's attribute fetch, the two shaders, the
 * unit's abi — is most of the frame. Every vertex is transformed by a 4x4
 * matrix from its uniforms and passes (u, v) on as two varyings; the
 * vertex program is written in QPU code, Maxwell SASS, PICA200 picasso
 * syntax or Apple AGX (a SASS, PICA200 or AGX program serves as the
 * coordinate shader too, their units doing the divide and the viewport); the fragment program is
 * the QPU's benchmark program (the rasterised Z, one colour). The frame
 * draws 3 x N separate vertices, each triangle a right triangle with
 * 2-pixel legs on a 640x480 target.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "app/app.h"
#include "core/pool.h"
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "gpusim/v3d.h"
#include "isa/isa.h"
#include "isa/agx/unit.h"

#define W 640
#define H 480

/* The matrix (row by row): x and y scaled by 0.9 and moved a little, z
 * into 0..1. */
static const float mvp[16] = {0.9f, 0, 0, 0.02f, 0, 0.9f, 0, -0.01f, 0, 0, 0.5f, 0.5f, 0, 0, 0, 1};

/* QPU programs: x y z w (rows 0-3) through the matrix (the first 16
 * uniforms, row by row) into ra4-ra7 = Xc Yc Zc Wc, r4 = 1/Wc; then Xs|Ys
 * into ra3 and Zs into r2 (the four viewport uniforms); the vertex shader
 * reads u v (rows 4-5) into ra8, ra9. */
static void qpu_transform(char *t, size_t n) {
  size_t len = strlen(t);
  for (int r = 0; r < 4; r++)
    len += (size_t)snprintf(t + len, n - len,
                            "    fmul r0, ra0, unif\n    fmul r1, ra1, unif\n    fadd r0, r0, r1\n"
                            "    fmul r1, ra2, unif\n    fadd r0, r0, r1\n    fmul r1, ra3, unif\n"
                            "    fadd %s, r0, r1\n",
                            r < 3 ? (const char *[]){"ra4", "ra5", "ra6"}[r] : "r3");
  snprintf(t + len, n - len,
           "    mov sfu_recip, r3\n    mov ra7, r3\n    nop\n    nop\n"
           "    fmul r0, ra4, r4\n    fmul r1, ra5, r4\n    fmul r0, r0, unif\n    fmul r1, r1, unif\n"
           "    ftoi ra3.16a, r0\n    ftoi ra3.16b, r1\n    fmul r2, ra6, r4\n    fmul r2, r2, unif\n"
           "    fadd r2, r2, unif\n");
}

static void qpu_programs(char *cs, char *vs, size_t n) {
  snprintf(cs, n, "    ldi vr_setup, 0x00401a00\n    ldi vw_setup, 0x00001a00\n"
                  "    mov ra0, vpm\n    mov ra1, vpm\n    mov ra2, vpm\n    mov ra3, vpm\n");
  qpu_transform(cs, n);
  size_t len = strlen(cs);
  snprintf(cs + len, n - len, "    mov vpm, ra4\n    mov vpm, ra5\n    mov vpm, ra6\n    mov vpm, ra7\n"
                              "    mov vpm, ra3\n    mov vpm, r2\n    mov vpm, r4\n    thrend\n    nop\n    nop\n");
  snprintf(vs, n, "    ldi vr_setup, 0x00601a00\n    ldi vw_setup, 0x00001a00\n"
                  "    mov ra0, vpm\n    mov ra1, vpm\n    mov ra2, vpm\n    mov ra3, vpm\n"
                  "    mov ra8, vpm\n    mov ra9, vpm\n");
  qpu_transform(vs, n);
  len = strlen(vs);
  snprintf(vs + len, n - len, "    mov vpm, ra3\n    mov vpm, r2\n    mov vpm, r4\n    mov vpm, ra8\n"
                              "    mov vpm, ra9\n    thrend\n    nop\n    nop\n");
}

/* SASS: inputs at a[0x80] (x y z w) and a[0x90] (u v); the matrix in
 * c[0x0][0x0..0x3c]; Xc Yc Zc Wc to a[0x70], (u, v) to a[0x80]. */
static void sass_program(char *t, size_t n) {
  size_t len = (size_t)snprintf(t, n, "    ALD.128 R0, a[0x80] ;\n");
  for (int r = 0; r < 4; r++)
    len += (size_t)snprintf(t + len, n - len,
                            "    FMUL R%d, R0, c[0x0][0x%x] ;\n    FFMA R%d, R1, c[0x0][0x%x], R%d ;\n"
                            "    FFMA R%d, R2, c[0x0][0x%x], R%d ;\n    FFMA R%d, R3, c[0x0][0x%x], R%d ;\n",
                            4 + r, 16 * r, 4 + r, 16 * r + 4, 4 + r, 4 + r, 16 * r + 8, 4 + r, 4 + r,
                            16 * r + 12, 4 + r);
  snprintf(t + len, n - len, "    AST.128 a[0x70], R4 ;\n    ALD.64 R8, a[0x90] ;\n    AST.64 a[0x80], R8 ;\n"
                             "    EXIT ;\n");
}

/* Apple AGX: attribute 0 (x y z w) in r8-r11 through the matrix in the
 * stream's first 16 words (u27.., after the prolog's uniforms), row by row
 * with fused multiply-adds; attribute 1 (u v) in r12-r13 to UVS words 4-5. */
static void agx_program(char *t, size_t n) {
  size_t len = 0;
  for (unsigned r = 0; r < 4; r++) {
    unsigned u = AGX_VS_UNIFORM_BASE + 4 * r;
    len += (size_t)snprintf(t + len, n - len,
                            "    fmul r%u, r8, u%u\n    ffma r%u, r9, u%u, r%u\n    ffma r%u, r10, u%u, r%u\n"
                            "    ffma r%u, r11, u%u, r%u\n",
                            r, u, r, u + 1, r, r, u + 2, r, r, u + 3, r);
  }
  snprintf(t + len, n - len, "    st_var r0, 0\n    st_var r1, 1\n    st_var r2, 2\n    st_var r3, 3\n"
                             "    st_var r12, 4\n    st_var r13, 5, last\n    stop\n");
}

/* PICA200: v0 (x y z w) through c0-c3 (the stream's first 16 words), v1 as
 * texcoord0 (u v). */
static const char pica_program[] =
    ".fvec mvp[4]\n"
    ".out outpos position\n"
    ".out outtc texcoord0\n"
    ".proc main\n"
    "    dp4 outpos.x, mvp[0], v0\n"
    "    dp4 outpos.y, mvp[1], v0\n"
    "    dp4 outpos.z, mvp[2], v0\n"
    "    dp4 outpos.w, mvp[3], v0\n"
    "    mov outtc, v1\n"
    "    end\n"
    ".end\n";

typedef struct vframe {
  gs_gpu *g;
  gs_mem *m;
  gs_driver *drv;
  gs_drv_target target;
  gs_drv_program prog[3]; /* vertex, coordinate, fragment */
  gs_addr verts;
  gs_diag d;
} vframe;

/* Assembles src in isa and loads it with the SPH of decl. */
static int load(vframe *f, const gs_isa *isa, const char *src, const gs_sph_decl *decl, gs_drv_program *out) {
  gs_isa_binary b = {0};
  gs_sph sph;
  int rc = isa->assemble(src, "bench_vs", 0, &b, &f->d);
  if (rc >= 0) rc = gs_sph_build(decl, &sph, &f->d);
  if (rc >= 0) rc = gs_drv_program_load_isa(f->m, isa->id, b.bytes, b.size, &sph, out, &f->d);
  gs_isa_binary_free(&b);
  return rc;
}

static int setup(vframe *f, const gs_isa *isa, uint32_t triangles) {
  memset(f, 0, sizeof *f);
  gs_gpu_config cfg = {0};
  cfg.mem_limit = 256u << 20;
  if (!(f->g = gs_gpu_new(&cfg))) return gs_diag_set(&f->d, GS_ENOMEM, "out of memory");
  f->m = gs_gpu_mem(f->g);
  if (!(f->drv = gs_driver_new(f->m))) return gs_diag_set(&f->d, GS_ENOMEM, "out of memory");
  f->target = (gs_drv_target){.width = W, .height = H, .format = GS_DRV_RGBA8888};
  int rc = gs_drv_target_alloc(f->m, &f->target, &f->d);
  if (rc < 0) return rc;
  /* the SPHs gpusim.shader builds for inputs {x y z w, u v}, varyings {u v} */
  gs_sph_io in[2] = {{GS_SPH_ATTR_GENERIC(0), 0xF, GS_PIXEL_IMAP_UNUSED},
                     {GS_SPH_ATTR_GENERIC(1), 0x3, GS_PIXEL_IMAP_UNUSED}};
  gs_sph_io out[2] = {{GS_SPH_ATTR_POSITION, 0xF, GS_PIXEL_IMAP_UNUSED},
                      {GS_SPH_ATTR_GENERIC(0), 0x3, GS_PIXEL_IMAP_UNUSED}};
  gs_sph_io vary[1] = {{GS_SPH_ATTR_GENERIC(0), 0x3, GS_PIXEL_IMAP_PERSPECTIVE}};
  gs_sph_decl vs = {.stage = GS_SPH_VERTEX, .inputs = in, .n_inputs = 2, .outputs = out, .n_outputs = 2};
  gs_sph_decl cs = {.stage = GS_SPH_VERTEX, .inputs = in, .n_inputs = 1, .outputs = out, .n_outputs = 1};
  gs_sph_decl fs = {.stage = GS_SPH_PIXEL, .inputs = vary, .n_inputs = 1, .render_targets = 0xF};
  const gs_isa *qpu = gs_isa_by_id(GS_ISA_QPU);
  char *a = malloc(8192), *b = malloc(8192);
  if (!a || !b) rc = gs_diag_set(&f->d, GS_ENOMEM, "out of memory");
  else if (isa->id == GS_ISA_QPU) qpu_programs(b, a, 8192);
  else if (isa->id == GS_ISA_SASS) sass_program(a, 8192), strcpy(b, a);
  else if (isa->id == GS_ISA_PICA) strcpy(a, pica_program), strcpy(b, a);
  else if (isa->id == GS_ISA_AGX) agx_program(a, 8192), strcpy(b, a);
  else rc = gs_diag_set(&f->d, GS_EARG, "no vertex program in %s", isa->title);
  if (rc >= 0) rc = load(f, isa, a, &vs, &f->prog[0]);
  if (rc >= 0) rc = load(f, isa, b, &cs, &f->prog[1]);
  if (rc >= 0) rc = load(f, qpu, qpu->bench_fragment, &fs, &f->prog[2]);
  free(a), free(b);
  if (rc < 0) return rc;
  /* 3 x triangles vertices of 6 floats: a right triangle with 2-pixel legs
   * at a random place (a fixed LCG), z in 0..1 */
  uint32_t nv = 3 * triangles;
  if ((rc = gs_mem_alloc(f->m, 24 * nv, 16, &f->verts, &f->d)) < 0) return rc;
  float *v = gs_mem_ptr(f->m, f->verts, 24 * nv);
  uint32_t seed = 12345;
  for (uint32_t i = 0; i < triangles; i++) {
    seed = seed * 1664525u + 1013904223u;
    float x = (float)(seed >> 8) / 16777216.0f * 1.9f - 0.95f;
    seed = seed * 1664525u + 1013904223u;
    float y = (float)(seed >> 8) / 16777216.0f * 1.9f - 0.95f, z = (float)(seed >> 24) / 256.0f;
    const float c[3][6] = {{x, y, z, 1, 0, 0}, {x + 4.0f / W, y, z, 1, 1, 0}, {x, y + 4.0f / H, z, 1, 0, 1}};
    memcpy(v + 18 * i, c, sizeof c);
  }
  return GS_OK;
}

/* Lowers the frame (one draw) and runs it; adds its statistics to *st. */
static int run(vframe *f, uint32_t triangles, unsigned threads, gs_v3d_stats *st) {
  gs_drv_shader sh = {.vs_code = f->prog[0].code, .cs_code = f->prog[1].code, .fs_code = f->prog[2].code,
                      .nvaryings = 2, .cs_attrs = 1};
  gs_drv_attr attrs[2] = {{f->verts, 16, 24}, {f->verts + 16, 8, 24}};
  gs_drv_uniform u[20];
  for (int k = 0; k < 16; k++) memcpy(&u[k].value, &mvp[k], 4), u[k].kind = GS_DRV_U_CONSTANT;
  u[16].kind = GS_DRV_U_VIEWPORT_X_SCALE, u[17].kind = GS_DRV_U_VIEWPORT_Y_SCALE;
  u[18].kind = GS_DRV_U_VIEWPORT_Z_SCALE, u[19].kind = GS_DRV_U_VIEWPORT_Z_OFFSET;
  for (int k = 16; k < 20; k++) u[k].value = 0;
  gs_drv_draw dr = {.mode = GS_DRV_TRIANGLES, .shader = &sh, .attrs = attrs, .nattrs = 2, .count = 3 * triangles};
  dr.uniforms[GS_DRV_STAGE_VERTEX] = dr.uniforms[GS_DRV_STAGE_COORDINATE] = (gs_drv_uniforms){u, 20};
  gs_drv_frame fr;
  int rc = gs_driver_begin_frame(f->drv, &f->target, &f->d);
  if (rc >= 0) gs_driver_set_clear(f->drv, &(gs_drv_clear){0xff000000u, 1.0f, 0});
  if (rc >= 0) rc = gs_driver_draw(f->drv, &dr, &f->d);
  if (rc >= 0) rc = gs_driver_end_frame(f->drv, &fr, &f->d);
  if (rc < 0) return rc;
  gs_v3d_options o;
  memset(&o, 0, sizeof o);
  o.threads = threads;
  o.unif_streams = fr.unif_streams;
  o.n_unif_streams = fr.n_unif_streams;
  while ((rc = gs_v3d_run_stats(f->g, fr.bin_start, fr.bin_end, fr.render_start, fr.render_end, &o, st)) ==
             GS_ENOMEM && strstr(gs_gpu_error(f->g), "tile allocation memory"))
    if ((rc = gs_driver_grow_tile_memory(f->drv, &fr, &f->d)) < 0) return rc;
  if (rc < 0) return gs_diag_set(&f->d, rc, "%s", gs_gpu_error(f->g));
  return GS_OK;
}

static void vframe_free(vframe *f) {
  if (f->drv) gs_driver_free(f->drv);
  if (f->g) gs_gpu_free(f->g);
}

static int cmp_seconds(const void *a, const void *b) {
  double x = ((const gs_v3d_stats *)a)->bin_seconds + ((const gs_v3d_stats *)a)->render_seconds;
  double y = ((const gs_v3d_stats *)b)->bin_seconds + ((const gs_v3d_stats *)b)->render_seconds;
  return (x > y) - (x < y);
}

/* One line: the median of `runs` runs of the frame with vertex programs in
 * isa on `threads` threads. */
static int vertex_bench(const char *name, unsigned threads, int runs, uint32_t triangles) {
  const gs_isa *isa = gs_isa_by_name(name);
  vframe f;
  gs_v3d_stats st[32];
  int rc = isa ? setup(&f, isa, triangles) : GS_EARG;
  for (int k = 0; k < runs && rc >= 0; k++) rc = run(&f, triangles, threads, &st[k]);
  if (rc < 0) {
    fprintf(stderr, "gpusim bench: vertex-bound frame, %s vertex programs: %s\n", name, isa ? f.d.msg : "no such ISA");
    if (isa) vframe_free(&f);
    return -1;
  }
  qsort(st, (size_t)runs, sizeof st[0], cmp_seconds);
  const gs_v3d_stats *m = &st[runs / 2];
  double s = m->bin_seconds + m->render_seconds;
  printf("  %-4s %2u %12" PRIu64 " %14.3f %12.3f %10.1f %10.1f\n", name, threads, m->cs_vertices + m->vs_vertices,
         (double)(m->cs_vertices + m->vs_vertices) / s / 1e6, triangles / s / 1e6, m->bin_seconds * 1e3,
         m->render_seconds * 1e3);
  vframe_free(&f);
  return 0;
}

int gs_bench_vertex_frames(int runs, int quick) {
  uint32_t triangles = quick ? 1000 : 50000;
  unsigned cores = gs_cpu_count();
  printf("\nVertex-bound frame (%" PRIu32 " triangles with 2-pixel legs on %dx%d, every vertex through a 4x4 "
         "matrix, the QPU fragment program), median of %d\n", triangles, W, H, runs);
  printf("  %-4s %2s %12s %14s %12s %10s %10s\n", "vs", "th", "shaded", "Mvertices/s", "Mtriangles/s", "bin ms",
         "render ms");
  static const char *const isas[] = {"qpu", "sass", "pica", "agx"};
  for (int pass = 0; pass < 2; pass++) {
    unsigned threads = pass ? cores : 1;
    if (pass && cores == 1) break;
    for (int i = 0; i < 4; i++)
      if (vertex_bench(isas[i], threads, runs, triangles) < 0) return -1;
  }
  printf("  shaded: vertices the coordinate shaders (binning) and vertex shaders (rendering) ran\n");
  return 0;
}
