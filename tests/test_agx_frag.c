/* test_agx_frag.c — the Apple AGX unit's fragment stage (src/isa/agx/frag.c)
 * through the shader-unit contract (gs_isa.run_fragment), every value worked
 * out by hand:
 *
 * - the shade models pixel by pixel: the coefficient registers the unit
 *   sets up (ldcf gives A, B, C) and what iter, iterproj (with the W
 *   binding cf0) and ldcf compute from them, against the plane formula
 *   <A, B, C> . (x mod 32 + 0.5, y mod 32 + 0.5, 1) with planes worked out
 *   by hand for two blocks in different 32 x 32 tiles (so C differs), flat,
 *   screen-linear and perspective inputs, 32- and 16-bit destinations, both
 *   interpreters;
 * - the fragment uniforms of Mesa's ABI (u0_u1 render-target heap, u2-u5
 *   blend constant, u6_u7 root descriptor: 0 in gpusim) and the draw's
 *   stream from u8;
 * - the epilog of Mesa's fragment ABI (asahi.rst "ABI", agx_abi.h): colour
 *   of target 0 from r4-r7, depth from r2 or zs_emit with OmapDepth, the
 *   sample mask r3h ANDed into the coverage with OmapSampleMask (and not
 *   without), discard; a stencil output counted as an exception, and an SPH
 *   that maps render target 1 refused naming r8-r11.
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
#include "frag_port.h"
#include "isa/unorm8.h"
#include <math.h>
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "isa/agx/table.h"
#include "isa/agx/unit_int.h"

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* binary16 bits of v, which must be exactly representable and normal (the
 * test's values are small dyadic numbers): sign, exponent + 15, 10 bits. */
static uint16_t half_exact(double v) {
  uint16_t s = v < 0 ? 0x8000 : 0;
  v = fabs(v);
  if (v == 0) return s;
  int e = 0;
  while (v >= 2) v /= 2, e++;
  while (v < 1) v *= 2, e--;
  double m = (v - 1) * 1024;
  if (m != floor(m) || e < -14 || e > 15) fail_msg("%g is not an exact normal binary16", v);
  return (uint16_t)(s | (unsigned)(e + 15) << 10 | (unsigned)m);
}

/* Loads text as an AGX pixel program with the SPH of decl. */
static gs_addr load_ps(fixture *f, const char *text, gs_sph_decl *decl, gs_sph *sph) {
  gs_isa_binary b = {0};
  gs_drv_program p;
  if (agx_asm(text, "f.s", &b, &f->d) < 0) fail_msg("%s", f->d.msg);
  decl->stage = GS_SPH_PIXEL;
  if (gs_sph_build(decl, sph, &f->d) < 0 ||
      gs_drv_program_load_isa(gs_gpu_mem(f->g), GS_ISA_AGX, b.bytes, b.size, sph, &p, &f->d) < 0)
    fail_msg("%s", f->d.msg);
  gs_isa_binary_free(&b);
  return p.code;
}

/* ---- the shade models, pixel by pixel ------------------------------------------- */

/* The primitive's functions of the pixel centre (X, Y) = (x + 0.5, y + 0.5),
 * in absolute pixels:
 *   1/w  iw(X, Y) = 1/2 + (X - 36.5)/2 - (Y - 40.5)/8
 *   perspective input (the plane of v/w) p(X, Y) = 1 + X/4 - Y/8, so v = p/iw
 *   screen-linear input s(X, Y) = 2 + X/2 + Y/4
 *   flat input 0.75.
 * Two blocks: (36..39, 40..43) in the tile at (32, 32) and (44..47,
 * 72..75) in the tile at (32, 64). In both, 1/w is 1/2, 2 and 1/8 at the
 * block's corners (0, 0), (3, 0) and (0, 3) (lanes 0, 5 and 10: the pixels
 * the unit fits its planes through),
 * so W = 1/iw is exact in binary32 there and the fitted planes are exact.
 * The planes relative to each tile, <A, B, C> with C = the value at the
 * tile's corner, worked out by hand:
 *   tile (32, 32): cf0 <1/2, -1/8, 1/2 - 4.5/2 + 8.5/8 = -0.6875>
 *                  cf1 <1/4, -1/8, 1 + 32/4 - 32/8 = 5>
 *                  cf2 <1/2, 1/4, 2 + 32/2 + 32/4 = 26>
 *   tile (32, 64): cf0 <1/2, -1/8, 1/2 - 4.5/2 - 23.5/8 = -4.6875>
 *                  cf1 <1/4, -1/8, 1 + 8 - 8 = 1>
 *                  cf2 <1/2, 1/4, 2 + 16 + 16 = 34>
 *   cf3 (flat) <0, 0, 0.75> in both. */
static double f_iw(double X, double Y) { return 0.5 + (X - 36.5) / 2 - (Y - 40.5) / 8; }
static double f_p(double X, double Y) { return 1 + X / 4 - Y / 8; }
static double f_s(double X, double Y) { return 2 + X / 2 + Y / 4; }

typedef struct block {
  uint32_t x0, y0;
  float cf[4][3]; /* the planes above */
} block;
static const block blocks[2] = {
    {36, 40, {{0.5f, -0.125f, -0.6875f}, {0.25f, -0.125f, 5}, {0.5f, 0.25f, 26}, {0, 0, 0.75f}}},
    {44, 72, {{0.5f, -0.125f, -4.6875f}, {0.25f, -0.125f, 1}, {0.5f, 0.25f, 34}, {0, 0, 0.75f}}},
};

/* ldcf of each binding, iter of each, iterproj of cf1 by cf0, three
 * consecutive bindings divided by W, and two 16-bit results. */
static const char *const shade_prog =
    "ldcf r8_r9_r10, cf0\n"
    "ldcf r12_r13_r14, cf1\n"
    "ldcf r16_r17_r18, cf2\n"
    "ldcf r20_r21_r22, cf3\n"
    "iter r24, cf1, cf0\n"        /* iterproj: the perspective input v */
    "iter r25, cf1\n"             /* the plane of v/w itself */
    "iter r26, cf2\n"             /* screen-linear */
    "iter r27, cf3\n"             /* flat */
    "iter r28, cf0\n"             /* 1/w */
    "iter r32_r33_r34, cf1, cf0\n" /* cf1/cf0, cf2/cf0, cf3/cf0 */
    "iter r36l_r36h, cf2\n"       /* s and 0.75 as binary16 */
    "stop\n";

static void test_shade_models(void **state) {
  (void)state;
  for (int interp = 0; interp < 2; interp++) {
    fixture f;
    fixture_init_isa(&f, "agx");
    gs_gpu_config_of(f.g)->interpreter = interp ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
    gs_sph_io in[3] = {{GS_SPH_ATTR_GENERIC(0), 0x1, GS_PIXEL_IMAP_PERSPECTIVE},
                       {GS_SPH_ATTR_GENERIC(0), 0x2, GS_PIXEL_IMAP_SCREEN_LINEAR},
                       {GS_SPH_ATTR_GENERIC(0), 0x4, GS_PIXEL_IMAP_CONSTANT}};
    gs_sph_decl decl = {.inputs = in, .n_inputs = 3, .render_targets = 0xF};
    gs_sph sph;
    gs_addr code = load_ps(&f, shade_prog, &decl, &sph);
    for (unsigned bi = 0; bi < 2; bi++) {
      const block *bk = &blocks[bi];
      uint32_t x[16], y[16], cov[16], z[16];
      float w[16], plane[3][16];
      /* the pipeline's form (isa.h): value = plane x W + offset */
      const float offset[3] = {0.25f, 1.0f, 0.75f};
      const uint8_t imap[3] = {GS_PIXEL_IMAP_PERSPECTIVE, GS_PIXEL_IMAP_SCREEN_LINEAR, GS_PIXEL_IMAP_CONSTANT};
      for (unsigned l = 0; l < 16; l++) {
        /* the pipeline's lane order (v3d/pse.h): 2 x 2 quads, lane bit 0 x, 1 y, 2 x + 2, 3 y + 2 */
        x[l] = bk->x0 + ((l & 1) | (l >> 1 & 2)), y[l] = bk->y0 + ((l >> 1 & 1) | (l >> 2 & 2));
        cov[l] = 1, z[l] = 0;
        double X = x[l] + 0.5, Y = y[l] + 0.5, iw = f_iw(X, Y);
        assert_true(iw > 0);
        w[l] = (float)(1 / iw);
        plane[0][l] = (float)(f_p(X, Y) - 0.25 * iw); /* + 0.25/W = p */
        plane[1][l] = (float)((f_s(X, Y) - 1) * iw);  /* x W + 1 = s */
        plane[2][l] = 0;
      }
      static const unsigned fit_lanes[3] = {0, 5, 10}; /* (0, 0), (3, 0), (0, 3) in the block */
      static const double fit_iw[3] = {0.5, 2, 0.125};
      for (unsigned i = 0; i < 3; i++) /* the exactness the planes rely on */
        assert_true(f_iw(x[fit_lanes[i]] + 0.5, y[fit_lanes[i]] + 0.5) == fit_iw[i]);
      port_rec rec = {0};
      gs_tile_port port = port_of(&rec);
      gs_frag_io io = {.prog = {code, 0, 0}, .gates = gs_sph_gates(&sph), .report = &f.report, .lanes = 16,
                       .mask = 0x7FFF, .x = x, .y = y, .cov = cov, .z = z, .w = w, .nin = 3,
                       .plane = (const float (*)[16])plane, .offset = offset, .imap = imap, .tile = &port};
      unsigned ran = 0;
      if (f.isa->run_fragment(f.g, f.u, &io, 1, &ran) < 0) fail_msg("%s", f.d.msg);
      assert_int_equal(ran, 1);
      const agx_state *s = &f.u->st;
      for (unsigned l = 0; l < 16; l++) { /* every lane, the uncovered helper 15 too */
        /* ldcf: the planes as worked out above */
        for (unsigned c = 0; c < 4; c++)
          for (unsigned k = 0; k < 3; k++)
            if (agx_reg32(s, l, 8 + 4 * c + k) != fbits(bk->cf[c][k]))
              fail_msg("block %u lane %u: ldcf cf%u[%u] = 0x%08x, want %g", bi, l, c, k,
                       agx_reg32(s, l, 8 + 4 * c + k), (double)bk->cf[c][k]);
        /* iter: the plane formula in tile-relative centres */
        double tx = (x[l] % 32) + 0.5, ty = (y[l] % 32) + 0.5, v[4];
        for (unsigned c = 0; c < 4; c++) v[c] = bk->cf[c][0] * tx + bk->cf[c][1] * ty + bk->cf[c][2];
        double X = x[l] + 0.5, Y = y[l] + 0.5;
        /* the same values as the absolute functions (a check of the planes) */
        assert_true(v[0] == f_iw(X, Y) && v[1] == f_p(X, Y) && v[2] == f_s(X, Y) && v[3] == 0.75);
        uint32_t want[11] = {fbits((float)(v[1] / v[0])), fbits((float)v[1]), fbits((float)v[2]), fbits(0.75f),
                             fbits((float)v[0]), 0, 0, 0, fbits((float)(v[1] / v[0])), fbits((float)(v[2] / v[0])),
                             fbits((float)(0.75 / v[0]))};
        for (unsigned r = 0; r < 11; r++)
          if (r < 5 || r >= 8)
            if (agx_reg32(s, l, 24 + r) != want[r])
              fail_msg("block %u lane %u (%u, %u): r%u = 0x%08x, want 0x%08x", bi, l, x[l], y[l], 24 + r,
                       agx_reg32(s, l, 24 + r), want[r]);
        assert_int_equal(s->r[l][72], half_exact(v[2]));
        assert_int_equal(s->r[l][73], half_exact(0.75));
      }
      /* the perspective value is p / (1/w) = the input's value v: with the
       * offset 0.25 of the pipeline's form, plane x W + 0.25 */
      for (unsigned l = 0; l < 16; l++) {
        double X = x[l] + 0.5, Y = y[l] + 0.5;
        double vv = f_p(X, Y) / f_iw(X, Y);
        float got;
        uint32_t u = agx_reg32(s, l, 24);
        memcpy(&got, &u, 4);
        assert_true(got == (float)vv);
      }
      /* the epilog ran: colour r4-r7 = 0, the rasterised Z */
      assert_int_equal(rec.begins, 1);
      assert_int_equal(rec.z_lanes, 0x7FFF);
      assert_int_equal(rec.c_lanes, 0x7FFF);
      assert_int_equal(rec.rgba[0], 0);
    }
    fixture_free(&f);
  }
}

/* ---- uniforms ------------------------------------------------------------------- */

/* The stream's words 0 and 1 are u8 and u9; u0-u7 (Mesa: u0_u1 the
 * render-target heap, u2-u5 the blend constant, u6_u7 the root descriptor)
 * are 0. */
static const char *const unif_prog =
    "mov r8, u0\n mov r9, u1\n mov r10, u2\n mov r11, u3\n mov r12, u4\n mov r13, u5\n mov r14, u6\n"
    "mov r15, u7\n mov r16, u8\n mov r17, u9\n stop\n";

/* One block at (0..3, 0..3), every lane covered, 1/w 1: the batch of the
 * epilog tests. */
typedef struct batch {
  uint32_t x[16], y[16], cov[16], z[16];
  float w[16];
  port_rec rec;
  gs_tile_port port;
  gs_frag_io io;
} batch;
static void batch_init(batch *b, fixture *f, gs_addr code, const gs_sph *sph, uint32_t cov) {
  memset(b, 0, sizeof *b);
  for (unsigned l = 0; l < 16; l++) b->x[l] = l & 3, b->y[l] = l >> 2, b->cov[l] = cov, b->z[l] = 100 + l, b->w[l] = 1;
  b->port = port_of(&b->rec);
  b->io = (gs_frag_io){.prog = {code, f->unif, f->unif + 4 * f->unif_words}, .gates = gs_sph_gates(sph),
                       .report = &f->report, .lanes = 16, .mask = 0xFFFF, .x = b->x, .y = b->y, .cov = b->cov,
                       .z = b->z, .w = b->w, .tile = &b->port};
}
static void batch_run(batch *b, fixture *f) {
  unsigned ran = 0;
  if (f->isa->run_fragment(f->g, f->u, &b->io, 1, &ran) < 0) fail_msg("%s", f->d.msg);
  assert_int_equal(ran, 1);
}

static void test_uniforms(void **state) {
  (void)state;
  fixture f;
  fixture_init_isa(&f, "agx");
  uint32_t words[2] = {0x12345678u, fbits(0.5f)};
  fixture_uniforms(&f, words, 2);
  gs_sph_decl decl = {.render_targets = 0xF};
  gs_sph sph;
  gs_addr code = load_ps(&f, unif_prog, &decl, &sph);
  batch b;
  batch_init(&b, &f, code, &sph, 1);
  batch_run(&b, &f);
  for (unsigned l = 0; l < 16; l++) {
    for (unsigned k = 0; k < 8; k++) assert_int_equal(agx_reg32(&f.u->st, l, 8 + k), 0);
    assert_int_equal(agx_reg32(&f.u->st, l, 16), 0x12345678u);
    assert_int_equal(agx_reg32(&f.u->st, l, 17), fbits(0.5f));
  }
  fixture_free(&f);
}

/* ---- the epilog ----------------------------------------------------------------- */

/* r1 = the lane; r3h = lane & 15 (the sample mask); r2 = 0.25 (depth);
 * colour r4-r7 = (1.0, 0.5, 0.25, 2.0 - clamped to 1). */
static const char *const epilog_prog =
    "mov r1, thread_index_in_simdgroup\n"
    "and r3h, r1l, 15\n"
    "ldimm r2, 1048576000\n"  /* 0x3e800000 = 0.25 */
    "ldimm r4, 1065353216\n"  /* 1.0 */
    "ldimm r5, 1056964608\n"  /* 0.5 */
    "ldimm r6, 1048576000\n"  /* 0.25 */
    "ldimm r7, 1073741824\n"  /* 2.0 */
    "stop\n";

/* gs_isa.fragment_reads: a program without coefficient registers or the
 * pixel's special registers reads nothing of its batch, one with sr80 or
 * sr81 the pixel only; one with iter/ldcf the pixel, W and the varyings
 * (cf_setup fits them); an address without a program everything. */
static void test_fragment_reads(void **state) {
  (void)state;
  fixture f;
  fixture_init_isa(&f, "agx");
  gs_sph_io in[1] = {{GS_SPH_ATTR_GENERIC(0), 0x7, GS_PIXEL_IMAP_PERSPECTIVE}};
  gs_sph_decl plain = {.render_targets = 0xF}, vary = {.inputs = in, .n_inputs = 1, .render_targets = 0xF};
  gs_sph sph;
  gs_addr a = load_ps(&f, epilog_prog, &plain, &sph), b = load_ps(&f, shade_prog, &vary, &sph);
  gs_addr px = load_ps(&f, "get_sr r1, sr80\nstop\n", &plain, &sph);
  gs_addr py = load_ps(&f, "get_sr r1, sr81\nstop\n", &plain, &sph);
  assert_non_null(f.isa->fragment_reads);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, a), 0);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, px), GS_FRAG_READS_XY);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, py), GS_FRAG_READS_XY);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, b), GS_FRAG_READS_XY | GS_FRAG_READS_W | GS_FRAG_READS_VARYINGS);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, 0x7ffff000u), GS_FRAG_READS_ALL);
  fixture_free(&f);
}

static void test_epilog_colour_depth_mask(void **state) {
  (void)state;
  /* unorm8 rounded to nearest: 255, 127.5 -> 128, 63.75 -> 64, 255 */
  const uint32_t rgba = 0xFF4080FFu;
  /* 0.25 x (2^24 - 1) = 4194303.75, rounded: 4194304 */
  const uint32_t z25 = 4194304;
  for (int gated = 0; gated < 2; gated++) {
    fixture f;
    fixture_init_isa(&f, "agx");
    gs_sph_decl decl = {.render_targets = 0xF, .flags = gated ? GS_SPH_OMAP_SAMPLE_MASK | GS_SPH_OMAP_DEPTH : 0};
    gs_sph sph;
    gs_addr code = load_ps(&f, epilog_prog, &decl, &sph);
    batch b;
    batch_init(&b, &f, code, &sph, 0xF); /* four samples covered in every lane */
    batch_run(&b, &f);
    assert_int_equal(b.rec.zs, 1);
    assert_int_equal(b.rec.colours, 1);
    for (unsigned l = 0; l < 16; l++) {
      /* with OmapSampleMask: coverage 0xF & r3h = lane; lane 0 writes nothing */
      uint32_t want_cov = gated ? (0xFu & l) : 0xFu;
      assert_int_equal(b.rec.z_cov[l], want_cov);
      assert_int_equal(b.rec.z[l], gated ? z25 : 100 + l);
      if (l) assert_int_equal(b.rec.rgba[l], rgba);
    }
    assert_int_equal(b.rec.z_lanes, gated ? 0xFFFE : 0xFFFF);
    assert_int_equal(b.rec.c_lanes, gated ? 0xFFFE : 0xFFFF);
    assert_int_equal(f.report.exceptions, 0);
    assert_int_equal(b.rec.stencils, 0);
    fixture_free(&f);
  }
}

/* The colour conversion to RGBA8888 at its edges (unorm8: clamp to [0, 1],
 * x 255, + 0.5, truncate): NaN 0, -2 0, +inf 255, 0.5 128 (127.5 + 0.5);
 * 3 255, the smallest denormal 0, -inf 0, 0.99 252 (252.45.. + 0.5); -0
 * 0, 1 255, the largest denormal 0, 1 - 2^-24 255 (254.99.. + 0.5). */
static void test_epilog_unorm8_edges(void **state) {
  (void)state;
  static const uint32_t v[3][4] = {{0x7fc00000u, 0xc0000000u, 0x7f800000u, 0x3f000000u},
                                   {0x40400000u, 0x00000001u, 0xff800000u, 0x3f7d70a4u},
                                   {0x80000000u, 0x3f800000u, 0x007fffffu, 0x3f7fffffu}};
  static const uint32_t want[3] = {0x80FF0000u, 0xFC0000FFu, 0xFF00FF00u};
  for (unsigned k = 0; k < 3; k++) {
    char text[256];
    snprintf(text, sizeof text, "ldimm r4, %u\n ldimm r5, %u\n ldimm r6, %u\n ldimm r7, %u\n stop\n", v[k][0], v[k][1],
             v[k][2], v[k][3]);
    fixture f;
    fixture_init_isa(&f, "agx");
    gs_sph_decl decl = {.render_targets = 0xF};
    gs_sph sph;
    gs_addr code = load_ps(&f, text, &decl, &sph);
    batch b;
    batch_init(&b, &f, code, &sph, 1);
    batch_run(&b, &f);
    assert_int_equal(b.rec.colours, 1);
    for (unsigned l = 0; l < 16; l++) assert_int_equal(b.rec.rgba[l], want[k]);
    fixture_free(&f);
  }
}

/* The epilog's conversion of four channel rows (gs_unorm8_rows, and its
 * AVX2 form on a CPU with AVX2) against the one-channel gs_unorm8, whose
 * edges test_epilog_unorm8_edges checks by hand: 2000 rows of random bit
 * patterns and values in [-0.25, 1.25], every lane equal. */
static void test_unorm8_rows_forms(void **state) {
  (void)state;
  uint32_t seed = 12345u, c[4][16], out[16];
  for (int it = 0; it < 2000; it++) {
    for (unsigned k = 0; k < 4; k++)
      for (unsigned l = 0; l < 16; l++) {
        seed = seed * 1664525u + 1013904223u;
        float x = (float)(seed >> 8) / 16777216.0f * 1.5f - 0.25f;
        if (it & 1) memcpy(&c[k][l], &x, 4);
        else c[k][l] = seed ^ (seed << 13);
      }
    const uint32_t *const rows[4] = {c[0], c[1], c[2], c[3]};
    for (int form = 0; form < 2; form++) {
      memset(out, 0xee, sizeof out);
      if (form == 0) gs_unorm8_rows(rows, out);
#if GS_UNORM8_AVX2
      else if (__builtin_cpu_supports("avx2")) gs_unorm8_rows_avx2(rows, out);
#endif
      else continue;
      for (unsigned l = 0; l < 16; l++)
        assert_int_equal(out[l], gs_unorm8(c[0][l]) | gs_unorm8(c[1][l]) << 8 | gs_unorm8(c[2][l]) << 16 |
                                     gs_unorm8(c[3][l]) << 24);
    }
  }
}

/* zs_emit: its depth wins over r2 (changed after it); a zs_emit that writes
 * stencil only leaves depth to r2; the stencil is an exception; discard. */
static void test_epilog_zs_emit(void **state) {
  (void)state;
  static const char *const progs[3] = {
      /* depth 0.5 through zs_emit, then r2 = 0.75: the epilog takes 0.5 */
      "ldimm r2, 1056964608\n zs_emit 255, r2\n ldimm r2, 1061158912\n stop\n",
      /* stencil only: depth from r2 = 0.75 */
      "ldimm r2, 1061158912\n ldimm r3l, 7\n zs_emit 255, r3l\n stop\n",
      /* odd lanes discard their sample; even ones depth + stencil */
      "mov r1, thread_index_in_simdgroup\n and r1l, r1l, 1\n sample_mask r1l, 0\n"
      "ldimm r2, 0\n zs_emit 255, r2l_r2h_r3l\n stop\n"};
  /* 0.5 x (2^24 - 1) + 0.5 = 8388608; 0.75 x (2^24 - 1) = 12582911.25 -> 12582911 */
  static const uint32_t want_z[3] = {8388608, 12582911, 0};
  static const uint64_t want_exc[3] = {0, 16, 8};
  for (int i = 0; i < 3; i++) {
    fixture f;
    fixture_init_isa(&f, "agx");
    gs_sph_decl decl = {.render_targets = 0xF, .flags = GS_SPH_OMAP_DEPTH | GS_SPH_KILLS_PIXELS};
    gs_sph sph;
    gs_addr code = load_ps(&f, progs[i], &decl, &sph);
    batch b;
    batch_init(&b, &f, code, &sph, 1);
    batch_run(&b, &f);
    for (unsigned l = 0; l < 16; l++)
      if (i < 2 || !(l & 1)) assert_int_equal(b.rec.z[l], want_z[i]);
    assert_int_equal(b.rec.z_lanes, i == 2 ? 0x5555 : 0xFFFF);
    assert_int_equal(f.report.exceptions, want_exc[i]);
    if (want_exc[i] && !strstr(f.report.first, "stencil output"))
      fail_msg("program %d: the exception is '%s'", i, f.report.first);
    fixture_free(&f);
  }
}

/* An SPH that maps a component of render target 1 (Mesa's r8-r11) is
 * refused, naming the target and its registers. */
static void test_render_target_1(void **state) {
  (void)state;
  fixture f;
  fixture_init_isa(&f, "agx");
  gs_sph_decl decl = {.render_targets = 0xF | 0x10};
  gs_sph sph;
  gs_addr code = load_ps(&f, "stop\n", &decl, &sph);
  batch b;
  batch_init(&b, &f, code, &sph, 1);
  unsigned ran = 7;
  assert_true(f.isa->run_fragment(f.g, f.u, &b.io, 1, &ran) < 0);
  assert_int_equal(ran, 0);
  if (!strstr(f.d.msg, "render target 1") || !strstr(f.d.msg, "r8-r11") || !strstr(f.d.msg, "fragment shader 0x"))
    fail_msg("'%s'", f.d.msg);
  assert_int_equal(b.rec.begins, 0);
  fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shade_models),
      cmocka_unit_test(test_uniforms),
      cmocka_unit_test(test_epilog_colour_depth_mask),
      cmocka_unit_test(test_fragment_reads),
      cmocka_unit_test(test_epilog_unorm8_edges), cmocka_unit_test(test_unorm8_rows_forms),
      cmocka_unit_test(test_epilog_zs_emit),
      cmocka_unit_test(test_render_target_1),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
