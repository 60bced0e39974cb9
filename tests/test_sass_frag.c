/* test_sass_frag.c — the SASS unit's fragment stage (sass_run_fragment,
 * src/isa/sass/unit.c) through the shader-unit contract, every value worked
 * out by hand:
 *
 * - two 16-pixel batches a warp (lanes 16-31 the second's, as the unit runs
 *   them on the fast interpreter): each batch's IPA of the pixel position
 *   and of a varying reads its own batch, and each batch's colour, Z,
 *   coverage and lanes reach its own tile port; an odd batch count runs
 *   its last batch alone; the same with the reference interpreter (one
 *   batch a warp), so both give the same;
 * - the colour conversion of render target 0 to RGBA8888 at its edges
 *   (NaN, negative, -0, a denormal, 1, above 1, infinities);
 * - an error in a pair of batches is the one batch's own: the batch before
 *   it is written, *ran names the failing one, the message is what running
 *   it alone gives, and the batches after it are not run;
 * - a program whose lanes could tell a shared warp (KIL without
 *   KillsPixels: one exception per warp) runs one batch a warp: one
 *   exception per batch;
 * - random pixel programs on random batches: the fast path (pairs, the
 *   registers it clears, a program every lane runs alike run once a call,
 *   native code) and the reference give the tile
 *   ports the same (test_random_fast_vs_reference);
 * - the colour of every lane of random values, 16 and 32 lanes converted
 *   at once, against the formula below (test_unorm8_random).
 *
 * unorm8 (the tile buffer's 8-bit store): clamp to [0, 1], x 255, + 0.5,
 * truncate. For v = m / 256 (m < 256) everything is exact in binary32:
 * m x 255 / 256 + 0.5 = m + 0.5 - m / 256, whose floor is m for m <= 128
 * and m - 1 above; for v = (x + 0.5) / 256 it is x + 1 - (x + 0.5) / 256,
 * whose floor is x. */
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
#include "isa/uop/jit.h"

/* A context whose units run the given interpreter with the given budget. */
static void init(fixture *f, int interpreter, uint64_t watchdog) {
  memset(f, 0, sizeof *f);
  gs_gpu_config cfg = {0};
  cfg.interpreter = interpreter, cfg.watchdog = watchdog;
  f->g = gs_gpu_new(&cfg);
  assert_non_null(f->g);
  f->isa = gs_isa_by_name("sass");
  assert_non_null(f->isa);
  f->u = f->isa->unit_new(f->g, 1, &f->vpm, &f->d);
  assert_non_null(f->u);
}

/* Loads text as a SASS pixel program: render target 0's components rt
 * (R0-R3), generic input 0.x screen-linear, the SPH flags given. */
static gs_addr load_ps_rt(fixture *f, const char *text, unsigned flags, uint32_t rt, gs_sph *sph) {
  gs_isa_binary b = {0};
  gs_drv_program p;
  static const gs_sph_io in[1] = {{GS_SPH_ATTR_GENERIC(0), 0x1, GS_PIXEL_IMAP_SCREEN_LINEAR}};
  gs_sph_decl decl = {.stage = GS_SPH_PIXEL, .inputs = in, .n_inputs = 1, .render_targets = rt, .flags = flags};
  if (f->isa->assemble(text, "f.s", 0, &b, &f->d) < 0) fail_msg("%s", f->d.msg);
  if (gs_sph_build(&decl, sph, &f->d) < 0 ||
      gs_drv_program_load_isa(gs_gpu_mem(f->g), GS_ISA_SASS, b.bytes, b.size, sph, &p, &f->d) < 0)
    fail_msg("%s", f->d.msg);
  gs_isa_binary_free(&b);
  return p.code;
}

/* The same with every component of render target 0. */
static gs_addr load_ps(fixture *f, const char *text, unsigned flags, gs_sph *sph) {
  return load_ps_rt(f, text, flags, 0xF, sph);
}

/* A batch: the 4 x 4 block at (bx, by), varying 0.x = (m0 + lane) / 256
 * (W 1, so the screen-linear value is the plane's), Z = z0 + lane, the
 * covered lanes `mask` with coverage 1. */
typedef struct batch {
  uint32_t x[16], y[16], cov[16], z[16];
  float w[16], plane[1][16], offset[1];
  uint8_t imap[1];
  port_rec rec;
  gs_tile_port port;
} batch;

static void batch_init(fixture *f, batch *b, gs_frag_io *io, gs_addr code, const gs_sph *sph, uint32_t bx, uint32_t by,
                       unsigned m0, uint32_t z0, uint16_t mask) {
  memset(b, 0, sizeof *b);
  for (unsigned l = 0; l < 16; l++) {
    b->x[l] = bx + (l & 3), b->y[l] = by + (l >> 2), b->cov[l] = 1, b->z[l] = z0 + l, b->w[l] = 1;
    b->plane[0][l] = (float)(m0 + l) / 256.0f;
  }
  b->imap[0] = GS_PIXEL_IMAP_SCREEN_LINEAR;
  b->port = port_of(&b->rec);
  *io = (gs_frag_io){.prog = {code, 0, 0}, .gates = gs_sph_gates(sph), .report = &f->report, .lanes = 16, .mask = mask,
                     .x = b->x, .y = b->y, .cov = b->cov, .z = b->z, .w = b->w, .nin = 1,
                     .plane = (const float(*)[16])b->plane, .offset = b->offset, .imap = b->imap,
                     .tile = &b->port};
}

/* gs_isa.fragment_reads: a program with IPA may read everything (its
 * address decides what), one without reads nothing of the batch (S2R has
 * no pixel register); an address without a program everything. */
static void test_fragment_reads(void **state) {
  (void)state;
  fixture f;
  init(&f, GS_INTERP_FAST, 0);
  gs_sph sph;
  gs_addr with = load_ps(&f, "    IPA.PASS R0, a[0x80] ;\n    MOV R1, R0 ;\n    MOV R2, R0 ;\n    MOV R3, R0 ;\n    EXIT ;\n",
                         0, &sph);
  gs_addr without = load_ps(&f, "    MOV32I R0, 0x3f800000 ;\n    MOV R1, R0 ;\n    MOV R2, R0 ;\n    MOV R3, R0 ;\n"
                            "    EXIT ;\n", 0, &sph);
  assert_non_null(f.isa->fragment_reads);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, with), GS_FRAG_READS_ALL);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, without), 0);
  assert_int_equal(f.isa->fragment_reads(f.g, f.u, 0x7ffff000u), GS_FRAG_READS_ALL);
  fixture_free(&f);
}

/* ---- two batches a warp ------------------------------------------------------------- */

/* R = the varying, G = (x + 0.5) / 256, B = (y + 0.5) / 256, A = 1. */
static const char *const pos_prog =
    "    IPA.PASS R0, a[0x80] ;\n"
    "    IPA.PASS R4, a[0x70] ;\n"
    "    IPA.PASS R5, a[0x74] ;\n"
    "    MOV32I R6, 0x3b800000 ;\n" /* 1/256 */
    "    FMUL R1, R4, R6 ;\n"
    "    FMUL R2, R5, R6 ;\n"
    "    MOV32I R3, 0x3f800000 ;\n"
    "    EXIT ;\n";

static void run_positions(int interpreter, unsigned n) {
  fixture f;
  init(&f, interpreter, 0);
  gs_sph sph;
  gs_addr code = load_ps(&f, pos_prog, 0, &sph);
  static const uint32_t bxy[5][2] = {{0, 0}, {36, 8}, {4, 60}, {100, 12}, {8, 8}};
  static const uint16_t masks[5] = {0xFFFF, 0x0FF0, 0xFFFF, 0x0000, 0x8001}; /* batch 3 empty */
  batch b[5];
  gs_frag_io io[5];
  for (unsigned k = 0; k < n; k++)
    batch_init(&f, &b[k], &io[k], code, &sph, bxy[k][0], bxy[k][1], 30 * k, 1000 * k, masks[k]);
  unsigned ran = 99;
  if (f.isa->run_fragment(f.g, f.u, io, n, &ran) < 0) fail_msg("%s", f.d.msg);
  assert_int_equal(ran, n);
  for (unsigned k = 0; k < n; k++) {
    const port_rec *r = &b[k].rec;
    assert_int_equal(r->begins, 1);
    assert_int_equal(r->zs, masks[k] ? 1 : 0);
    assert_int_equal(r->colours, masks[k] ? 1 : 0);
    if (!masks[k]) continue;
    assert_int_equal(r->z_lanes, masks[k]);
    assert_int_equal(r->c_lanes, masks[k]);
    for (unsigned l = 0; l < 16; l++) {
      unsigned m = 30 * k + l, red = m <= 128 ? m : m - 1;
      uint32_t want = red | (bxy[k][0] + (l & 3)) << 8 | (bxy[k][1] + (l >> 2)) << 16 | 255u << 24;
      assert_int_equal(r->z[l], 1000 * k + l);
      assert_int_equal(r->z_cov[l], 1);
      if (masks[k] >> l & 1) assert_int_equal(r->rgba[l], want);
    }
  }
  assert_int_equal(f.report.exceptions, 0);
  fixture_free(&f);
}

static void test_pairs(void **state) {
  (void)state;
  for (unsigned n = 1; n <= 5; n++) {
    run_positions(GS_INTERP_FAST, n);
    run_positions(GS_INTERP_REFERENCE, n);
  }
}

/* ---- the colour conversion at its edges --------------------------------------------- */

static void test_unorm8_edges(void **state) {
  (void)state;
  static const uint32_t v[3][4] = {
      {0x7fc00000u, 0xc0000000u, 0x7f800000u, 0x3f000000u}, /* NaN 0, -2 0, +inf 255, 0.5: 127.5 + 0.5 = 128 */
      {0x40400000u, 0x00000001u, 0xff800000u, 0x3f7d70a4u}, /* 3 255, denormal 0, -inf 0, 0.99: 252.45.. + 0.5: 252 */
      {0x80000000u, 0x3f800000u, 0x007fffffu, 0x3f7fffffu}, /* -0 0, 1 255, denormal 0, 1 - 2^-24: 255.49.. : 255 */
  };
  static const uint32_t want[3] = {0x80FF0000u, 0xFC0000FFu, 0xFF00FF00u};
  for (unsigned k = 0; k < 3; k++) {
    char text[256];
    snprintf(text, sizeof text,
             "    MOV32I R0, 0x%08x ;\n    MOV32I R1, 0x%08x ;\n    MOV32I R2, 0x%08x ;\n    MOV32I R3, 0x%08x ;\n"
             "    EXIT ;\n",
             v[k][0], v[k][1], v[k][2], v[k][3]);
    fixture f;
    init(&f, GS_INTERP_FAST, 0);
    gs_sph sph;
    gs_addr code = load_ps(&f, text, 0, &sph);
    batch b[2];
    gs_frag_io io[2];
    for (unsigned j = 0; j < 2; j++) batch_init(&f, &b[j], &io[j], code, &sph, 4 * j, 0, 0, 0, 0xFFFF);
    unsigned ran = 0;
    if (f.isa->run_fragment(f.g, f.u, io, 2, &ran) < 0) fail_msg("%s", f.d.msg);
    for (unsigned j = 0; j < 2; j++)
      for (unsigned l = 0; l < 16; l++) assert_int_equal(b[j].rec.rgba[l], want[k]);
    fixture_free(&f);
  }
}

/* ---- an error in a pair ----------------------------------------------------------- */

/* Lanes with x >= 8 loop for ever (the budget ends it). */
static const char *const loop_prog =
    "    IPA.PASS R4, a[0x70] ;\n"
    "    FSETP.GE.AND P0, PT, R4, 8, PT ;\n"
    "spin:\n"
    "    @P0 BRA spin ;\n"
    "    MOV32I R0, 0x3f800000 ;\n"
    "    MOV32I R3, 0x3f800000 ;\n"
    "    EXIT ;\n";

static void test_error_in_pair(void **state) {
  (void)state;
  /* the message of the looping batch run alone */
  fixture f;
  init(&f, GS_INTERP_FAST, 5000);
  gs_sph sph;
  gs_addr code = load_ps(&f, loop_prog, 0, &sph);
  batch b[4];
  gs_frag_io io[4];
  batch_init(&f, &b[0], &io[0], code, &sph, 8, 0, 0, 0, 0xFFFF);
  unsigned ran = 99;
  assert_true(f.isa->run_fragment(f.g, f.u, io, 1, &ran) < 0);
  assert_int_equal(ran, 0);
  char alone[sizeof f.d.msg];
  snprintf(alone, sizeof alone, "%s", f.d.msg);
  if (!strstr(alone, "budget of 5000")) fail_msg("'%s'", alone);
  fixture_free(&f);
  /* batches at x 0, 8, 0, 0: the first two share a warp */
  init(&f, GS_INTERP_FAST, 5000);
  code = load_ps(&f, loop_prog, 0, &sph);
  static const uint32_t bx[4] = {0, 8, 0, 0};
  for (unsigned k = 0; k < 4; k++) batch_init(&f, &b[k], &io[k], code, &sph, bx[k], 0, 0, 0, 0xFFFF);
  ran = 99;
  assert_true(f.isa->run_fragment(f.g, f.u, io, 4, &ran) < 0);
  assert_int_equal(ran, 1);
  assert_string_equal(f.d.msg, alone);
  assert_int_equal(b[0].rec.begins, 1);
  assert_int_equal(b[0].rec.colours, 1);
  for (unsigned l = 0; l < 16; l++) assert_int_equal(b[0].rec.rgba[l], 0xFF0000FFu);
  for (unsigned k = 1; k < 4; k++) assert_int_equal(b[k].rec.begins, 0);
  assert_int_equal(f.report.exceptions, 0);
  fixture_free(&f);
}

/* ---- one batch a warp when lanes could tell ------------------------------------------ */

static void test_kil_exceptions_per_batch(void **state) {
  (void)state;
  fixture f;
  init(&f, GS_INTERP_FAST, 0);
  gs_sph sph;
  gs_addr code = load_ps(&f, "    KIL ;\n    EXIT ;\n", 0, &sph); /* without KillsPixels: a no-op */
  batch b[2];
  gs_frag_io io[2];
  for (unsigned k = 0; k < 2; k++) {
    batch_init(&f, &b[k], &io[k], code, &sph, 4 * k, 0, 0, 0, 0xFFFF);
  }
  unsigned ran = 0;
  if (f.isa->run_fragment(f.g, f.u, io, 2, &ran) < 0) fail_msg("%s", f.d.msg);
  assert_int_equal(f.report.exceptions, 2);
  for (unsigned k = 0; k < 2; k++) assert_int_equal(b[k].rec.z_lanes, 0xFFFF);
  fixture_free(&f);
}

/* ---- the fast path against the reference on random programs ------------------------- */

/* Random pixel programs (IPA of the position and of the varying, a
 * generic component the SPH does not map now and then (an exception),
 * MOV32I of values rich in NaN, infinities, negatives, denormals and
 * values at 0, 1 and between, FADD/FMUL/FFMA/MOV, FSETP, random guards, a
 * forward branch on a predicate, guarded EXIT and KIL; a quarter without
 * IPA or KIL, which every lane runs alike), with render target
 * 0's components, OmapDepth and OmapSampleMask random, on random batches
 * (masks, coverage, Z, the varying), run through the unit on the fast
 * interpreter (pairs of batches, native code for some programs) and on the
 * reference interpreter (one batch a warp): what reaches each tile port in
 * the lanes it writes, the return code, the batches run, the message and
 * the exceptions must agree. Each unit first runs a program that leaves
 * R0-R7 full of other values, and the units run every program in turn
 * (what a lane reads before it writes must still be 0); half the programs
 * run under a budget of 10 instructions (errors in a pair). */
typedef struct rng { uint64_t s; } rng;
static uint32_t next(rng *r) {
  r->s = r->s * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)(r->s >> 32);
}
static uint32_t pick(rng *r, uint32_t n) { return next(r) % n; }

static uint32_t rvalue(rng *g) {
  static const uint32_t v[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x007fffffu, 0x3f800000u, 0xbf800000u,
                               0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x3f000000u, 0x3effffffu,
                               0x3f7fffffu, 0x3f800001u, 0x40000000u, 0x3b800000u, 0x3e4ccccdu, 0x3f19999au};
  unsigned k = pick(g, 4);
  if (k == 0) return v[pick(g, sizeof v / sizeof v[0])];
  if (k == 1) return next(g);
  float x = (float)pick(g, 1u << 20) / (float)(1u << 19) - 0.5f; /* -0.5 .. 1.5 */
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

typedef struct text { char s[4096]; size_t n; } text;
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
  va_end(ap);
  assert_true(k > 0 && (size_t)k < sizeof t->s - t->n);
  t->n += (size_t)k;
}

/* inv: no IPA or KIL (every lane computes the same: the unit may run such
 * a program once for a call's batches) */
static void random_ps(rng *g, text *t, int inv) {
  static const unsigned addr[] = {0x80, 0x80, 0x70, 0x74, 0x78, 0x7c, 0x84};
  unsigned n = 1 + pick(g, 16), label = 0, open = 0;
  t->n = 0;
  for (unsigned k = 0; k < n; k++) {
    unsigned c = pick(g, 12), d = pick(g, 8), a = pick(g, 8), b = pick(g, 8), p = pick(g, 3);
    if (inv && c < 2) c = 2;
    if (inv && c == 11) c = 10;
    const char *neg = pick(g, 2) ? "!" : "";
    if (c < 9 && pick(g, 4) == 0) put(t, "    @%sP%u", neg, p);
    else put(t, "    ");
    switch (c) {
      case 0: case 1: put(t, " IPA.PASS R%u, a[0x%x] ;\n", d, addr[pick(g, 7)]); break;
      case 2: case 3: put(t, " MOV32I R%u, 0x%08x ;\n", d, rvalue(g)); break;
      case 4: put(t, " FADD R%u, R%u, R%u ;\n", d, a, b); break;
      case 5: put(t, " FMUL R%u, R%u, R%u ;\n", d, a, b); break;
      case 6: put(t, " FFMA R%u, R%u, R%u, R%u ;\n", d, a, b, pick(g, 8)); break;
      case 7: put(t, " FSETP.GT.AND P%u, PT, R%u, R%u, PT ;\n", p, a, b); break;
      case 8: put(t, " MOV R%u, R%u ;\n", d, a); break;
      case 9:
        if (!open) {
          put(t, " @%sP%u BRA l%u ;\n", neg, p, label), open = 1;
          break;
        }
        /* fall through */
      case 10: put(t, " @%sP%u EXIT ;\n", neg, p); break;
      default: put(t, " @%sP%u KIL ;\n", neg, p); break;
    }
    if (open && pick(g, 3) == 0) put(t, "l%u:\n", label++), open = 0;
  }
  if (open) put(t, "l%u:\n", label++);
  put(t, "    EXIT ;\n");
}

typedef struct outcome {
  int rc;
  unsigned ran;
  char msg[sizeof ((gs_diag *)0)->msg];
  gs_isa_report report;
  port_rec rec[6];
} outcome;

/* Batch k of a run from seed: its 4 x 4 block, lanes, coverage, Z, W and
 * varying. */
static void random_batch(fixture *f, batch *b, gs_frag_io *io, gs_addr code, const gs_sph *sph, rng *g) {
  uint16_t mask = pick(g, 3) ? 0xFFFF : (uint16_t)next(g);
  batch_init(f, b, io, code, sph, 4 * pick(g, 64), 4 * pick(g, 64), 0, 0, mask);
  for (unsigned l = 0; l < 16; l++) {
    b->cov[l] = pick(g, 2) ? 1 : pick(g, 16);
    b->z[l] = next(g) & 0xFFFFFFu;
    b->w[l] = 0.5f + (float)pick(g, 64) / 16.0f;
    uint32_t v = rvalue(g);
    memcpy(&b->plane[0][l], &v, 4);
  }
}

/* The program, its SPH's choices and the batches from seed, run on unit f
 * after the dirtying program. */
static void run_random(fixture *f, const char *text, uint32_t seed, outcome *o) {
  rng g = {seed};
  unsigned flags = (pick(&g, 3) == 0 ? GS_SPH_OMAP_DEPTH : 0) | (pick(&g, 3) == 0 ? GS_SPH_OMAP_SAMPLE_MASK : 0) |
                   (pick(&g, 2) ? GS_SPH_KILLS_PIXELS : 0);
  uint32_t rt = pick(&g, 4) ? 0xF : pick(&g, 16);
  unsigned n = 1 + pick(&g, 6);
  gs_sph sph;
  char dirty[512];
  size_t at = 0;
  for (unsigned r = 0; r < 8; r++) at += (size_t)snprintf(dirty + at, sizeof dirty - at, "    MOV32I R%u, 0x%08x ;\n", r, next(&g) | 1u);
  snprintf(dirty + at, sizeof dirty - at, "    EXIT ;\n");
  gs_addr dcode = load_ps(f, dirty, 0, &sph);
  batch d[2];
  gs_frag_io dio[2];
  unsigned ran;
  for (unsigned k = 0; k < 2; k++) batch_init(f, &d[k], &dio[k], dcode, &sph, 0, 0, 0, 0, 0xFFFF);
  if (f->isa->run_fragment(f->g, f->u, dio, 2, &ran) < 0) fail_msg("%s", f->d.msg);
  gs_addr code = load_ps_rt(f, text, flags, rt, &sph);
  static batch b[6];
  gs_frag_io io[6];
  for (unsigned k = 0; k < n; k++) random_batch(f, &b[k], &io[k], code, &sph, &g);
  memset(o, 0, sizeof *o);
  memset(&f->report, 0, sizeof f->report);
  gs_diag_clear(&f->d);
  o->rc = f->isa->run_fragment(f->g, f->u, io, n, &o->ran);
  snprintf(o->msg, sizeof o->msg, "%s", o->rc < 0 ? f->d.msg : "");
  o->report = f->report;
  for (unsigned k = 0; k < n; k++) o->rec[k] = b[k].rec;
}

static void same_outcome(const outcome *a, const outcome *b, const char *text) {
  int same = a->rc == b->rc && a->ran == b->ran && strcmp(a->msg, b->msg) == 0 &&
             a->report.exceptions == b->report.exceptions &&
             (!a->report.exceptions || strcmp(a->report.first, b->report.first) == 0);
  for (unsigned k = 0; k < 6 && same; k++) {
    const port_rec *x = &a->rec[k], *y = &b->rec[k];
    same = x->begins == y->begins && x->zs == y->zs && x->colours == y->colours && x->stencils == y->stencils &&
           x->z_lanes == y->z_lanes && x->c_lanes == y->c_lanes;
    for (unsigned l = 0; l < 16 && same; l++) {
      if (x->zs && (x->z_lanes >> l & 1)) same = x->z[l] == y->z[l] && x->z_cov[l] == y->z_cov[l];
      if (same && x->colours && (x->c_lanes >> l & 1)) same = x->rgba[l] == y->rgba[l] && x->c_cov[l] == y->c_cov[l];
      if (!same) fprintf(stderr, "batch %u lane %u\n", k, l);
    }
  }
  if (!same) fprintf(stderr, "fast and reference differ on:\n%s(rc %d / %d, ran %u / %u, '%s' / '%s', %llu / %llu exceptions)\n",
                     text, a->rc, b->rc, a->ran, b->ran, a->msg, b->msg, (unsigned long long)a->report.exceptions,
                     (unsigned long long)b->report.exceptions);
  assert_true(same);
}

static void test_random_fast_vs_reference(void **state) {
  (void)state;
  fixture fast[2], ref[2];
  for (unsigned k = 0; k < 2; k++) init(&fast[k], GS_INTERP_FAST, k ? 10 : 0), init(&ref[k], GS_INTERP_REFERENCE, k ? 10 : 0);
  rng g = {0x5A55F4A6u};
  text t;
  unsigned errors = 0, exceptions = 0, pairs = 0, inv = 0;
  for (unsigned i = 0; i < 600; i++) {
    random_ps(&g, &t, i % 4 == 1);
    unsigned k = i & 1;
    uint32_t seed = next(&g);
    if (i % 25 == 0) gs_jit_policy(1, 1); /* native code from the first run */
    static outcome a, b;
    run_random(&fast[k], t.s, seed, &a);
    gs_jit_policy(8, 0);
    run_random(&ref[k], t.s, seed, &b);
    same_outcome(&a, &b, t.s);
    errors += a.rc < 0, exceptions += a.report.exceptions != 0, pairs += a.ran > 1;
    inv += !strstr(t.s, "IPA") && !strstr(t.s, "KIL");
  }
  fprintf(stderr, "600 programs: %u errors, %u with exceptions, %u with more than one batch run, %u without IPA or KIL\n",
          errors, exceptions, pairs, inv);
  assert_true(errors > 20 && errors < 300 && exceptions > 20 && inv > 150);
  for (unsigned k = 0; k < 2; k++) fixture_free(&fast[k]), fixture_free(&ref[k]);
}

/* ---- the colour conversion of every lane ---------------------------------------------- */

/* R, G and B the varying (IPA.PASS: exact, -0 as +0), A 0.75: over random
 * values in pairs of batches (32 lanes converted at once) and one batch
 * alone, each byte what clamping, x 255 + 0.5 in binary32 and truncating
 * give, worked out here. */
static void test_unorm8_random(void **state) {
  (void)state;
  fixture f;
  init(&f, GS_INTERP_FAST, 0);
  gs_sph sph;
  gs_addr code = load_ps(&f, "    IPA.PASS R0, a[0x80] ;\n    MOV R1, R0 ;\n    MOV R2, R0 ;\n    MOV32I R3, 0x3f400000 ;\n"
                         "    EXIT ;\n", 0, &sph);
  rng g = {0xC0105u};
  for (unsigned run = 0; run < 200; run++) {
    unsigned n = 1 + run % 3;
    batch b[3];
    gs_frag_io io[3];
    for (unsigned k = 0; k < n; k++) {
      batch_init(&f, &b[k], &io[k], code, &sph, 4 * k, 0, 0, 0, 0xFFFF);
      for (unsigned l = 0; l < 16; l++) {
        uint32_t v = rvalue(&g);
        memcpy(&b[k].plane[0][l], &v, 4);
      }
    }
    unsigned ran;
    if (f.isa->run_fragment(f.g, f.u, io, n, &ran) < 0) fail_msg("%s", f.d.msg);
    for (unsigned k = 0; k < n; k++)
      for (unsigned l = 0; l < 16; l++) {
        float v = b[k].plane[0][l];
        uint32_t byte = !(v > 0.0f) ? 0 : v >= 1.0f ? 255 : (uint32_t)(v * 255.0f + 0.5f);
        assert_int_equal(b[k].rec.rgba[l], byte * 0x010101u | 191u << 24); /* 0.75 x 255 + 0.5 = 191.75 */
      }
  }
  fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pairs),
      cmocka_unit_test(test_fragment_reads),
      cmocka_unit_test(test_unorm8_edges),
      cmocka_unit_test(test_error_in_pair),
      cmocka_unit_test(test_kil_exceptions_per_batch),
      cmocka_unit_test(test_random_fast_vs_reference),
      cmocka_unit_test(test_unorm8_random),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
