/* test_agx_unit.c — the Apple AGX unit in the pipeline (src/isa/agx/unit.c):
 * an AGX vertex program run through the shader-unit contract
 * (gs_isa.run_vertex) behind its vertex prolog, which reads the attribute
 * arrays of the batch's attribute records (the VCD does not run for AGX),
 * every output word worked out by hand from the vertex ABI of Mesa's Asahi
 * driver (agx_abi.h, asahi.rst "ABI"): r5 the vertex id, r6 the instance
 * id, attribute a component c in r(8 + 4a + c) with the components the SPH
 * does not map (0, 0, 0, 1), the draw's uniform stream from u27 (the
 * prolog's uniforms for 8 attributes first), UVS words 0-3 the clip-space
 * position and 4.. the varyings, the divide by W and the viewport in 12.4,
 * the coordinate shader's rows; both interpreters; the errors (no final
 * st_var, trap, an attribute past the ABI's, a fragment program) naming
 * unit, program, lane and pc (the main program's, not counting the
 * prolog). The prolog itself: test_agx_prolog.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "unit_fixture.h"
#include <math.h>
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "isa/agx/table.h"
#include "isa/agx/unit.h"
#include "v3d/v3d.h"
#include "v3d/vcd.h"
#include "v3d/vpm.h"

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void fixture_init(fixture *f) { fixture_init_isa(f, "agx"); }

/* Assembles text and loads it as an AGX program whose SPH has generic
 * inputs of the masks in[] (at generic locations first_in..) and position
 * plus generic outputs of the masks out[]. */
static gs_addr load_at(fixture *f, const char *text, unsigned first_in, const unsigned *in, size_t nin,
                       const unsigned *out, size_t nout) {
  gs_isa_binary b = {0};
  if (agx_asm(text, "t.s", &b, &f->d) < 0) fail_msg("%s", f->d.msg);
  gs_addr code = fixture_load(f, b.bytes, b.size, first_in, in, nin, out, nout);
  gs_isa_binary_free(&b);
  return code;
}
static gs_addr load(fixture *f, const char *text, const unsigned *in, size_t nin, const unsigned *out, size_t nout) {
  return load_at(f, text, 0, in, nin, out, nout);
}

/* The stream: word 0 = 2.0 (u27), word 1 = 0.5 (u28). */
static void uniforms(fixture *f) {
  uint32_t w[2] = {fbits(2.0f), fbits(0.5f)};
  fixture_uniforms(f, w, 2);
}

static const uint32_t vertex_ids[2] = {7, 42};

/* x = 2 a0.x (u27 = 2), y = a0.y + 0.5 (u28), z = a0.z, w = a0.w (the
 * prolog's fill, 1); varyings: the vertex id, the instance id, a1.w (fill
 * 1), a1.z (fill 0), a1.y. */
static const char *const prog =
    "fmul r0, r8, u27\n"
    "fadd r1, r9, u28\n"
    "st_var r0, 0\n"
    "st_var r1, 1\n"
    "st_var r10, 2\n"
    "st_var r11, 3\n"
    "st_var r5, 4\n"
    "st_var r6, 5\n"
    "st_var r15, 6\n"
    "st_var r14, 7\n"
    "st_var r13, 8, last\n"
    "stop\n";
static const unsigned in_masks[2] = {0x7, 0x3}, vary_masks[2] = {0xF, 0x1};

/* The vertex arrays the prolog reads (the VCD does not run for AGX): a0 =
 * (x, y, z) as f32 every 16 bytes (attribute record 0, input words 0-2),
 * a1 = (x, y) as f32 every 8 bytes (record 1, words 3-4), each array 43
 * elements long. Vertex 0 (index 7): a0 = (0.25, -0.5, 0.5), a1 = (7, 3);
 * vertex 1 (index 42): a0 = (-1, 1.5, 0), a1 = (0, -2). */
static vcd_attr attrs[2];
static void put_inputs(fixture *f) {
  static const float v[2][5] = {{0.25f, -0.5f, 0.5f, 7, 3}, {-1, 1.5f, 0, 0, -2}};
  gs_mem *m = gs_gpu_mem(f->g);
  gs_addr a0, a1;
  if (gs_mem_alloc(m, 43 * 16, 16, &a0, &f->d) < 0 || gs_mem_alloc(m, 43 * 8, 16, &a1, &f->d) < 0)
    fail_msg("%s", f->d.msg);
  for (unsigned l = 0; l < 2; l++) {
    uint32_t w[5];
    for (unsigned k = 0; k < 5; k++) w[k] = fbits(v[l][k]);
    if (gs_mem_write(m, a0 + 16 * vertex_ids[l], w, 12, &f->d) < 0 ||
        gs_mem_write(m, a1 + 8 * vertex_ids[l], w + 3, 8, &f->d) < 0)
      fail_msg("%s", f->d.msg);
  }
  attrs[0] = (vcd_attr){a0, 12, 16, 0, 0};
  attrs[1] = (vcd_attr){a1, 8, 8, 12, 1};
}

static int run(fixture *f, gs_stage stage, gs_addr code, unsigned in_rows, unsigned out_rows, unsigned count) {
  gs_vertex_io io = {stage, {code, f->unif, f->unif + 4 * f->unif_words}, GS_GATE_ALL, &f->report, &f->vpm,
                     0, in_rows, 16, out_rows, count, {2560.0f, 1920.0f, 0.5f, 0.5f}, 0, vertex_ids, attrs, 2};
  memset(&f->vpm.words[16 * 16], 0, 16 * 16 * sizeof(uint32_t));
  return f->isa->run_vertex(f->g, f->u, &io);
}

/* Worked by hand. Vertex 0: clip (0.5, 0, 0.5, 1): Xs = 0.5 x 2560 = 1280
 * = 0x0500 (12.4), Ys = 0, Zs = 0.5 x 0.5 + 0.5 = 0.75, 1/W = 1. Vertex 1:
 * clip (-2, 2, 0, 1): Xs = -5120 = 0xEC00, Ys = 2 x 1920 = 3840 = 0x0F00,
 * Zs = 0.5, 1/W = 1. Varyings: vertex id (7, 42: the bits), instance id 0,
 * 1.0, 0.0, a1.y. */
static void check_vertex_rows(const fixture *f) {
  assert_int_equal(out(f, 0, 0), 0x00000500u);
  assert_true(outf(f, 1, 0) == 0.75f && outf(f, 2, 0) == 1.0f);
  assert_int_equal(out(f, 0, 1), 0x0F00EC00u);
  assert_true(outf(f, 1, 1) == 0.5f && outf(f, 2, 1) == 1.0f);
  const uint32_t want[2][5] = {{7, 0, fbits(1.0f), 0, fbits(3.0f)}, {42, 0, fbits(1.0f), 0, fbits(-2.0f)}};
  for (unsigned l = 0; l < 2; l++)
    for (unsigned k = 0; k < 5; k++)
      if (out(f, 3 + k, l) != want[l][k])
        fail_msg("vertex %u varying %u: 0x%08x, want 0x%08x", l, k, out(f, 3 + k, l), want[l][k]);
  for (unsigned r = 0; r < 8; r++) assert_int_equal(out(f, r, 2), 0); /* lane 2 ran no vertex */
}

static void test_vertex_and_coordinate(void **state) {
  (void)state;
  for (int interp = 0; interp < 2; interp++) {
    fixture f;
    fixture_init(&f);
    gs_gpu_config_of(f.g)->interpreter = interp ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
    uniforms(&f);
    gs_addr code = load(&f, prog, in_masks, 2, vary_masks, 2);
    assert_int_equal(f.isa->prepare(f.g, f.u, code), GS_OK);
    put_inputs(&f);
    if (run(&f, GS_STAGE_VERTEX, code, 5, 8, 2) < 0) fail_msg("%s", f.d.msg);
    check_vertex_rows(&f);
    /* the same code as the coordinate shader with the position input
     * alone (its SPH maps attribute 0 only: a1 reads 0 but is not stored):
     * Xc Yc Zc Wc, Ys|Xs, Zs, 1/Wc; the stream still from u27 */
    gs_addr cs = load(&f, prog, in_masks, 1, NULL, 0);
    put_inputs(&f);
    if (run(&f, GS_STAGE_COORDINATE, cs, 3, 7, 2) < 0) fail_msg("%s", f.d.msg);
    static const float clip[2][4] = {{0.5f, 0, 0.5f, 1}, {-2, 2, 0, 1}};
    for (unsigned l = 0; l < 2; l++)
      for (unsigned c = 0; c < 4; c++) assert_true(outf(&f, c, l) == clip[l][c]);
    assert_int_equal(out(&f, 4, 0), 0x00000500u);
    assert_int_equal(out(&f, 4, 1), 0x0F00EC00u);
    assert_true(outf(&f, 5, 0) == 0.75f && outf(&f, 6, 0) == 1.0f);
    assert_int_equal(out(&f, 7, 0), 0); /* nothing past the 7 rows */
    fixture_free(&f);
  }
}

/* Attribute 1 alone at generic location 1: its components go to r12, r13
 * (r(8 + 4 x 1 + c)), whatever location 0 does; r8-r11 stay 0 (the prolog
 * fetches no attribute 0, so no fill either). And with no vertex index
 * array the vertex id is the lane. */
static void test_attribute_slots(void **state) {
  (void)state;
  fixture f;
  fixture_init(&f);
  uniforms(&f);
  static const unsigned one[1] = {0x3};
  gs_addr code = load_at(&f,
                         "st_var r8, 0\nst_var r9, 1\nst_var r10, 2\nst_var r15, 3\n"
                         "st_var r12, 4\nst_var r13, 5\nst_var r11, 6, last\nstop\n",
                         1, one, 1, (const unsigned[]){0x7}, 1);
  gs_addr buf;
  const float a1[2] = {5.0f, 6.0f};
  if (gs_mem_alloc(gs_gpu_mem(f.g), 8, 4, &buf, &f.d) < 0 || gs_mem_write(gs_gpu_mem(f.g), buf, a1, 8, &f.d) < 0)
    fail_msg("%s", f.d.msg);
  const vcd_attr rec = {buf, 8, 8, 0, 0};
  gs_vertex_io io = {GS_STAGE_VERTEX, {code, f.unif, f.unif + 8}, GS_GATE_ALL, &f.report, &f.vpm, 0, 2, 16, 6, 1,
                     {2560.0f, 1920.0f, 0.5f, 0.5f}, 0, NULL, &rec, 1};
  /* position (r8, r9, r10, r15) = (0, 0, 0, 1): Ys|Xs 0, Zs 0.5, 1/W 1;
   * varyings r12 r13 = 5, 6 and r11 = 0 */
  if (f.isa->run_vertex(f.g, f.u, &io) < 0) fail_msg("%s", f.d.msg);
  assert_int_equal(out(&f, 0, 0), 0);
  assert_true(outf(&f, 1, 0) == 0.5f && outf(&f, 2, 0) == 1.0f);
  assert_int_equal(out(&f, 3, 0), fbits(5.0f));
  assert_int_equal(out(&f, 4, 0), fbits(6.0f));
  assert_int_equal(out(&f, 5, 0), 0);
  fixture_free(&f);
}

static void expect_error(fixture *f, gs_addr code, const char *const *parts, size_t n) {
  put_inputs(f);
  assert_true(run(f, GS_STAGE_VERTEX, code, 5, 8, 2) < 0);
  for (size_t k = 0; k < n; k++)
    if (!strstr(f->d.msg, parts[k])) fail_msg("'%s' lacks '%s'", f->d.msg, parts[k]);
}

static void test_errors(void **state) {
  (void)state;
  for (int interp = 0; interp < 2; interp++) {
    fixture f;
    fixture_init(&f);
    gs_gpu_config_of(f.g)->interpreter = interp ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
    uniforms(&f);
    char addr[32];
    /* no final st_var: lane 0 stops at pc 0x4 (after one 4-byte st_var) */
    gs_addr code = load(&f, "st_var r8, 0\nstop\n", in_masks, 2, vary_masks, 2);
    snprintf(addr, sizeof addr, "vertex shader 0x%08x", code);
    expect_error(&f, code, (const char *const[]){"AGX unit 2", addr, "lane 0", "stop at pc 0x0004", "no_var"}, 5);
    /* trap at pc 0x4 */
    code = load(&f, "st_var r8, 0\ntrap\nstop\n", in_masks, 2, vary_masks, 2);
    snprintf(addr, sizeof addr, "vertex shader 0x%08x", code);
    expect_error(&f, code, (const char *const[]){"AGX unit 2", addr, "pc 0x0004", "trap"}, 4);
    fixture_free(&f);
  }
  fixture f;
  fixture_init(&f);
  uniforms(&f);
  /* an attribute past the ABI's eight */
  static const unsigned one[1] = {0x1};
  gs_isa_binary b = {0};
  assert_int_equal(agx_asm("no_var\nstop\n", "t.s", &b, &f.d), 0);
  gs_sph_io i = {GS_SPH_ATTR_GENERIC(8), one[0], GS_PIXEL_IMAP_UNUSED};
  gs_sph_io o = {GS_SPH_ATTR_POSITION, 0xF, GS_PIXEL_IMAP_UNUSED};
  gs_sph_decl decl = {.stage = GS_SPH_VERTEX, .inputs = &i, .n_inputs = 1, .outputs = &o, .n_outputs = 1};
  gs_sph sph;
  gs_drv_program p;
  assert_int_equal(gs_sph_build(&decl, &sph, &f.d), 0);
  assert_int_equal(gs_drv_program_load_isa(gs_gpu_mem(f.g), GS_ISA_AGX, b.bytes, b.size, &sph, &p, &f.d), 0);
  gs_isa_binary_free(&b);
  assert_true(f.isa->prepare(f.g, f.u, p.code) < 0);
  if (!strstr(f.d.msg, "generic input 8")) fail_msg("%s", f.d.msg);
  fixture_free(&f);
}


/* ---- the fragment stage ------------------------------------------------------- */

/* A tile port that records what the unit writes. */
typedef struct port_rec {
  int begins, zs, colours;
  uint16_t z_lanes, c_lanes;
  uint32_t z[16], rgba[16];
} port_rec;
static void p_begin(void *c) { ((port_rec *)c)->begins++; }
static void p_stencil(void *c, uint32_t config) { (void)c, (void)config; }
static void p_z(void *c, const uint32_t *z, uint32_t *cov, uint16_t lanes) {
  port_rec *r = c;
  (void)cov;
  r->zs++, r->z_lanes = lanes;
  memcpy(r->z, z, sizeof r->z);
}
static void p_colour(void *c, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes) {
  port_rec *r = c;
  (void)all, (void)cov;
  r->colours++, r->c_lanes = lanes;
  memcpy(r->rgba, rgba, sizeof r->rgba);
}
static void p_load(void *c, uint32_t *rgba) { (void)c, memset(rgba, 0, 16 * sizeof *rgba); }

/* The block at pixels (36..39, 40..43): lane l at x = 36 + (l & 3), y = 40
 * + (l >> 2), centres X = x + 0.5, Y = y + 0.5. The functions (exact in
 * binary32 at every centre): 1/w = 1/2 + X/64 + Y/32; perspective input k0
 * = p / (1/w) with p = 1 + X/8 - Y/16 (a/w, screen-linear); screen-linear
 * k1 = 2 + X/2 + Y/4; constant k2 = 0.75. The pipeline hands them over as
 * isa.h says: value = plane x W + offset, with offsets 0.25, 1 and 0.75. */
static double f_iw(double X, double Y) { return 0.5 + X / 64 + Y / 32; }
static double f_p(double X, double Y) { return 1 + X / 8 - Y / 16; }
static double f_s(double X, double Y) { return 2 + X / 2 + Y / 4; }

/* Interpolates the three components into r4 (iter, cf1 with cf0: the
 * perspective divide), r5 (iter cf2) and r6 (ldcf cf3: C), stores r4-r7
 * to the buffer at du8 (stream words 0, 1) + 16 x lane, sets r7 = 1.0 (so
 * the store shows 0 only if every batch starts with zero registers), then
 * discards the samples in TARGET = the lane's index (sample_mask r11l, 0):
 * lanes with an odd index lose their one sample. */
static const char *const frag_prog =
    "iter r4, cf1, cf0\n"
    "iter r5, cf2\n"
    "ldcf r8_r9_r10, cf3\n"
    "mov r6, r10\n"
    "mov r11, thread_index_in_simdgroup\n"
    "store r4_r5_r6_r7, du8, r11, lsl 2, i32, xyzw, a\n"
    "wait a\n"
    "ldimm r7, 1065353216\n" /* alpha 1.0, after the store */
    "sample_mask r11l, 0\n"
    "stop\n";

static void test_fragment(void **state) {
  (void)state;
  for (int interp = 0; interp < 2; interp++) {
    fixture f;
    fixture_init(&f);
    gs_gpu_config_of(f.g)->interpreter = interp ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
    gs_isa_binary b = {0};
    if (agx_asm(frag_prog, "f.s", &b, &f.d) < 0) fail_msg("%s", f.d.msg);
    gs_sph_io in[3] = {{GS_SPH_ATTR_GENERIC(0), 0x1, GS_PIXEL_IMAP_PERSPECTIVE},
                       {GS_SPH_ATTR_GENERIC(0), 0x2, GS_PIXEL_IMAP_SCREEN_LINEAR},
                       {GS_SPH_ATTR_GENERIC(0), 0x4, GS_PIXEL_IMAP_CONSTANT}};
    gs_sph_decl decl = {.stage = GS_SPH_PIXEL, .inputs = in, .n_inputs = 3, .flags = GS_SPH_KILLS_PIXELS,
                        .render_targets = 0xF};
    gs_sph sph;
    gs_drv_program p;
    gs_addr buf, unif;
    if (gs_sph_build(&decl, &sph, &f.d) < 0 ||
        gs_drv_program_load_isa(gs_gpu_mem(f.g), GS_ISA_AGX, b.bytes, b.size, &sph, &p, &f.d) < 0 ||
        gs_mem_alloc(gs_gpu_mem(f.g), 16 * 16, 16, &buf, &f.d) < 0 || gs_mem_alloc(gs_gpu_mem(f.g), 8, 4, &unif, &f.d) < 0)
      fail_msg("%s", f.d.msg);
    gs_isa_binary_free(&b);
    uint32_t words[2] = {buf, 0};
    assert_int_equal(gs_mem_write(gs_gpu_mem(f.g), unif, words, 8, &f.d), 0);
    uint32_t x[16], y[16], cov[16], z[16];
    float w[16], plane[3][16];
    const float offset[3] = {0.25f, 1.0f, 0.75f};
    const uint8_t imap[3] = {GS_PIXEL_IMAP_PERSPECTIVE, GS_PIXEL_IMAP_SCREEN_LINEAR, GS_PIXEL_IMAP_CONSTANT};
    for (unsigned l = 0; l < 16; l++) {
      x[l] = 36 + (l & 3), y[l] = 40 + (l >> 2), cov[l] = 1, z[l] = 1000 + l;
      double X = x[l] + 0.5, Y = y[l] + 0.5, iw = f_iw(X, Y);
      w[l] = (float)(1 / iw);
      plane[0][l] = (float)(f_p(X, Y) - 0.25 * iw);  /* x W + 0.25 = p / (1/w) */
      plane[1][l] = (float)((f_s(X, Y) - 1) * iw);   /* x W + 1 = s */
      plane[2][l] = 0;
    }
    port_rec rec = {0};
    gs_tile_port port = {&rec, p_begin, p_stencil, p_z, p_colour, p_load};
    gs_frag_io io[2];
    io[0] = (gs_frag_io){.prog = {p.code, unif, unif + 8}, .gates = gs_sph_gates(&sph), .report = &f.report, .lanes = 16,
                     .mask = 0x7FFF, .x = x, .y = y, .cov = cov, .z = z, .w = w, .nin = 3,
                     .plane = (const float (*)[16])plane, .offset = offset, .imap = imap, .tile = &port};
    io[1] = io[0]; /* the same block twice in one call: the second starts from zero registers too */
    unsigned ran = 0;
    if (f.isa->run_fragment(f.g, f.u, io, 2, &ran) < 0) fail_msg("%s", f.d.msg);
    assert_int_equal(ran, 2);
    uint32_t got[16][4];
    assert_int_equal(gs_mem_read(gs_gpu_mem(f.g), buf, got, sizeof got, &f.d), 0);
    for (unsigned l = 0; l < 16; l++) { /* every lane ran, the uncovered lane 15 too */
      double X = x[l] + 0.5, Y = y[l] + 0.5;
      float persp = (float)(f_p(X, Y) / f_iw(X, Y)), g0;
      memcpy(&g0, &got[l][0], 4);
      /* the planes are fitted through binary32 values (W is 1/(1/w) rounded):
       * within 2^-20 relative of the exact quotient */
      if (!(fabs((double)g0 - persp) <= fabs((double)persp) * 0x1p-20))
        fail_msg("lane %u perspective: %.9g, want %.9g", l, (double)g0, (double)persp);
      if (got[l][1] != fbits((float)f_s(X, Y))) fail_msg("lane %u screen-linear: 0x%08x", l, got[l][1]);
      assert_int_equal(got[l][2], fbits(0.75f));
      assert_int_equal(got[l][3], 0);
    }
    /* the epilog: rasterised Z for the covered, not discarded lanes (even
     * index, below 15), and their colour from r4-r7: unorm8 of (p/(1/w) >= 1,
     * s >= 1, 0.75, 1) = (255, 255, 191, 255) */
    assert_int_equal(rec.begins, 2);
    assert_int_equal(rec.z_lanes, 0x5555 & 0x7FFF);
    assert_int_equal(rec.c_lanes, 0x5555 & 0x7FFF);
    for (unsigned l = 0; l < 16; l += 2) {
      if (l == 14) assert_int_equal(rec.z[l], 1014);
      if (l < 15) assert_int_equal(rec.rgba[l], 0xFFBFFFFFu);
    }
    fixture_free(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_vertex_and_coordinate),
    cmocka_unit_test(test_attribute_slots),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_fragment),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
