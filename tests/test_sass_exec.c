/* test_sass_exec.c — the SASS reference interpreter (src/isa/sass/exec.h)
 * and a program run alone (solo.h).
 *
 * Expected values are worked out by hand: the NVIDIA-compiled headsurface
 * vertex program (its instruction words and SPH as NVIDIA's open kernel
 * modules ship them) on chosen inputs; the SIMT convergence rules (SSY/SYNC,
 * PBK/BRK, divergent branches, EXIT per lane) on programs whose result per
 * lane is known; IPA's compiler pattern; the KillsPixels gate; errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "isa/isa.h"
#include "isa/sass/solo.h"
#include "isa/sass/table.h"

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- the NVIDIA headsurface vertex program ------------------------------------ */

/* Its instruction words in code order (control words apart): ALD.64,
 * I2F.F32.U32 x 3, ALD, I2F.F32.U32 x 2, ALD, I2F.F32.S32 x 2, ALD,
 * FFMA.FTZ, AST.64, FFMA.FTZ, FMUL.FTZ, AST.64, FADD.FTZ, AST, FMUL.FTZ,
 * AST, FADD.FTZ, AST, AST.64, EXIT, BRA self, NOP. */
static const uint64_t hs_vs[] = {
    0xefd8ff801007ff08ull, 0x4cb8000c00570a00ull, 0x4cb8000c00370a01ull, 0x4cb8000c00470a02ull,
    0xefd87f800847ff0bull, 0x4cb8000c00270a03ull, 0x4cb8000c00170a06ull, 0x4cb8000c00070a07ull,
    0xefd87f800807ff0aull, 0x4cb8000c00772a04ull, 0x4cb8000c00672a05ull, 0xefd87f8010c7ff0cull,
    0x59a0000000970101ull, 0xeff0ff803007ff08ull, 0x59a0010000870300ull, 0x5c68100000b70606ull,
    0xeff0ff803107ff00ull, 0x5c58300000470103ull, 0xeff07f800747ff06ull, 0x5c68100000a70707ull,
    0xeff07f8007c7ff0cull, 0x5c58300000570002ull, 0xeff07f800707ff07ull, 0xeff0ff803207ff02ull,
    0xe30000000007000full, 0xe2400fffff87000full, 0x50b0000000070f00ull};
/* the first five control words as shipped; the rest are the filler's */
static const uint64_t hs_ctrl[] = {0x001c4400fe200711ull, 0x001d4400e62007f1ull, 0x001dc400fe200731ull,
                                   0x001df400f6200791ull, 0x009f9000fe200ff0ull};
static const uint32_t hs_vs_sph[20] = {0x02000461, 0, 0, 0, 0, 0, 0x3, 0xb, 0, 0, 0, 0, 0, 0xb000, 0, 0, 0, 0,
                                       0x03330000, 0};

/* Lays words out as code: groups of a control word and three instructions. */
static size_t make_code(uint8_t *out, const uint64_t *w, size_t n, const uint64_t *ctrl, size_t nctrl) {
  size_t groups = (n + 2) / 3;
  for (size_t g = 0; g < groups; g++) {
    put64(out + 32 * g, g < nctrl ? ctrl[g] : 0x001f8000fc0007e0ull);
    for (size_t k = 0; k < 3; k++) put64(out + 32 * g + 8 + 8 * k, 3 * g + k < n ? w[3 * g + k] : SASS_NOP_WORD);
  }
  return groups * 32;
}

static void test_headsurface_vertex(void **state) {
  (void)state;
  uint8_t code[512];
  size_t size = make_code(code, hs_vs, sizeof hs_vs / 8, hs_ctrl, 5);
  gs_sph sph;
  gs_diag d;
  assert_int_equal(gs_sph_decode(hs_vs_sph, &sph, &d), 0);
  sass_program p;
  assert_int_equal(sass_program_init(&p, code, size, &sph, &d), 0);
  /* c[0x3]: unsigned 2, 3, 4, 5, 6, 7 at 0x0..0x14, signed -1, -2 at 0x18, 0x1c */
  uint8_t cb3[32];
  int32_t v[8] = {2, 3, 4, 5, 6, 7, -1, -2};
  for (int i = 0; i < 8; i++) memcpy(cb3 + 4 * i, &v[i], 4);
  static sass_solo s;
  memset(&s, 0, sizeof s);
  s.prog = &p;
  s.lanes = 2;
  s.cb[3] = cb3, s.cb_size[3] = sizeof cb3;
  for (unsigned l = 0; l < 2; l++) {
    sass_attr_buf_clear(&s.lane[l].in, 0);
    sass_attr_buf_store(&s.lane[l].in, 0x80, fbits(10.0f + (float)l)); /* generic0.x */
    sass_attr_buf_store(&s.lane[l].in, 0x84, fbits(20.0f));           /* generic0.y */
    sass_attr_buf_store(&s.lane[l].in, 0x100, fbits(0.5f));            /* generic8.x */
    sass_attr_buf_store(&s.lane[l].in, 0x104, fbits(0.25f));           /* generic8.y */
    sass_attr_buf_store(&s.lane[l].in, 0x10c, fbits(1.0f));            /* generic8.w */
  }
  int rc = sass_solo_run(&s, &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  assert_int_equal(rc, 0);
  for (unsigned l = 0; l < 2; l++) {
    const uint32_t *o = s.lane[l].out.v;
    /* position = (c0 × x, c4 × y, -, w); texcoord0 = generic8.xy;
     * texcoord1 = (c8 × g8.x + c16, c12 × g8.y + c20); texcoord2 = texcoord1 - (c24, c28) */
    assert_true(o[0x70 / 4] == fbits(2.0f * (10.0f + (float)l)));
    assert_true(o[0x74 / 4] == fbits(60.0f));
    assert_true(o[0x78 / 4] == 0); /* not written */
    assert_true(o[0x7c / 4] == fbits(1.0f));
    assert_true(o[0x300 / 4] == fbits(0.5f) && o[0x304 / 4] == fbits(0.25f));
    assert_true(o[0x310 / 4] == fbits(8.0f) && o[0x314 / 4] == fbits(8.25f));
    assert_true(o[0x320 / 4] == fbits(9.0f) && o[0x324 / 4] == fbits(10.25f));
  }
  /* 25 instructions to EXIT; the BRA self after it never runs */
  assert_int_equal((int)s.warp.steps, 25);
  sass_program_free(&p);
}

/* ---- programs from text ------------------------------------------------------- */

static sass_program prog;

static void load(const char *src, gs_sph_stage stage, unsigned flags) {
  gs_isa_binary b;
  gs_diag d;
  int rc = sass_asm(src, "test.sass", &b, &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  assert_int_equal(rc, 0);
  gs_sph sph;
  static const gs_sph_io ps_in[] = {{0x80, 0xF, GS_PIXEL_IMAP_PERSPECTIVE}, {0x90, 0x1, GS_PIXEL_IMAP_SCREEN_LINEAR},
                                    {0xa0, 0x1, GS_PIXEL_IMAP_CONSTANT}};
  static const gs_sph_io vs_io[] = {{0x80, 0xF, GS_PIXEL_IMAP_UNUSED}};
  static const gs_sph_io vs_out[] = {{0x70, 0xF, GS_PIXEL_IMAP_UNUSED}, {0x80, 0xF, GS_PIXEL_IMAP_UNUSED}};
  gs_sph_decl decl = {.stage = stage, .flags = flags};
  if (stage == GS_SPH_PIXEL) decl.inputs = ps_in, decl.n_inputs = 3, decl.render_targets = 0xF;
  else decl.inputs = vs_io, decl.n_inputs = 1, decl.outputs = vs_out, decl.n_outputs = 2;
  assert_int_equal(gs_sph_build(&decl, &sph, &d), 0);
  assert_int_equal(sass_program_init(&prog, b.bytes, b.size, &sph, &d), 0);
  gs_isa_binary_free(&b);
}

static sass_solo *solo(unsigned lanes) {
  static sass_solo s;
  memset(&s, 0, sizeof s);
  s.prog = &prog;
  s.lanes = lanes;
  for (unsigned l = 0; l < lanes; l++) sass_attr_buf_clear(&s.lane[l].in, 0);
  return &s;
}

static int run(sass_solo *s, gs_diag *d) {
  int rc = sass_solo_run(s, d);
  sass_program_free(&prog);
  return rc;
}

/* An if/else on the lane number under SSY/SYNC: odd lanes take the branch. */
static void test_divergent_if_else(void **state) {
  (void)state;
  load("  S2R R0, SR_LANEID ;\n"
       "  LOP32I.AND R1, R0, 0x1 ;\n"
       "  ISETP.NE.AND P0, PT, R1, RZ, PT ;\n"
       "  SSY join ;\n"
       "  @P0 BRA odd ;\n"
       "  MOV32I R2, 0x64 ;\n"       /* even: 100 */
       "  SYNC ;\n"
       "odd:\n"
       "  MOV32I R2, 0xc8 ;\n"       /* odd: 200 */
       "  SYNC ;\n"
       "join:\n"
       "  IADD R3, R2, R0 ;\n"       /* every lane again */
       "  EXIT ;\n",
       GS_SPH_VERTEX, 0);
  sass_solo *s = solo(32);
  gs_diag d;
  assert_int_equal(run(s, &d), 0);
  for (unsigned l = 0; l < 32; l++) assert_int_equal(s->warp.r[3][l], (l & 1 ? 200 : 100) + l);
  assert_int_equal(s->warp.depth, 0);
}

/* A loop under PBK/BRK: lane l adds 3 for each of its l iterations, then
 * breaks; lanes leave the loop at different iterations. */
static void test_loop_break(void **state) {
  (void)state;
  load("  S2R R0, SR_LANEID ;\n"
       "  MOV R1, RZ ;\n"           /* i */
       "  MOV R2, RZ ;\n"           /* sum */
       "  PBK done ;\n"
       "top:\n"
       "  ISETP.GE.AND P0, PT, R1, R0, PT ;\n"
       "  @P0 BRK ;\n"
       "  IADD32I R2, R2, 0x3 ;\n"
       "  IADD32I R1, R1, 0x1 ;\n"
       "  BRA top ;\n"
       "done:\n"
       "  EXIT ;\n",
       GS_SPH_VERTEX, 0);
  sass_solo *s = solo(20);
  gs_diag d;
  assert_int_equal(run(s, &d), 0);
  for (unsigned l = 0; l < 20; l++) {
    assert_int_equal(s->warp.r[2][l], 3 * l);
    assert_int_equal(s->warp.r[1][l], l);
  }
}

/* A break inside an if inside the loop: the lanes that break wait for the
 * loop's end, not for the if's join (which would send them round again). */
static void test_break_inside_if(void **state) {
  (void)state;
  load("  S2R R0, SR_LANEID ;\n"
       "  MOV R1, RZ ;\n"
       "  MOV R2, RZ ;\n"
       "  PBK done ;\n"
       "top:\n"
       "  SSY cont ;\n"
       "  ISETP.LT.AND P0, PT, R1, R0, PT ;\n"
       "  @P0 BRA more ;\n"
       "  BRK ;\n"
       "more:\n"
       "  IADD32I R2, R2, 0x3 ;\n"
       "  SYNC ;\n"
       "cont:\n"
       "  IADD32I R1, R1, 0x1 ;\n"
       "  BRA top ;\n"
       "done:\n"
       "  EXIT ;\n",
       GS_SPH_VERTEX, 0);
  sass_solo *s = solo(12);
  s->budget = 100000;
  gs_diag d;
  int rc = run(s, &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  assert_int_equal(rc, 0);
  for (unsigned l = 0; l < 12; l++) {
    assert_int_equal(s->warp.r[2][l], 3 * l);
    assert_int_equal(s->warp.r[1][l], l);
  }
  assert_int_equal(s->warp.depth, 0);
}

/* EXIT under a guard: the exited lanes keep their registers, the others go on. */
static void test_exit_per_lane(void **state) {
  (void)state;
  load("  S2R R0, SR_LANEID ;\n"
       "  MOV32I R1, 0x1 ;\n"
       "  ISETP.LT.AND P1, PT, R0, 0x4, PT ;\n"
       "  @P1 EXIT ;\n"
       "  MOV32I R1, 0x2 ;\n"
       "  EXIT ;\n",
       GS_SPH_VERTEX, 0);
  sass_solo *s = solo(8);
  gs_diag d;
  assert_int_equal(run(s, &d), 0);
  for (unsigned l = 0; l < 8; l++) assert_int_equal(s->warp.r[1][l], l < 4 ? 1 : 2);
  assert_int_equal(s->warp.exited, 0xff);
}

/* ALD/AST through a vertex program: position = 2 × generic0, generic0 passed on. */
static void test_vertex_attributes(void **state) {
  (void)state;
  load("  ALD.128 R4, a[0x80] ;\n"
       "  FMUL R0, R4, 2 ;\n"
       "  FMUL R1, R5, 2 ;\n"
       "  FMUL R2, R6, 2 ;\n"
       "  FMUL R3, R7, 2 ;\n"
       "  AST.128 a[0x70], R0 ;\n"
       "  AST.128 a[0x80], R4 ;\n"
       "  EXIT ;\n",
       GS_SPH_VERTEX, 0);
  sass_solo *s = solo(3);
  for (unsigned l = 0; l < 3; l++)
    for (unsigned c = 0; c < 4; c++) sass_attr_buf_store(&s->lane[l].in, 0x80 + 4 * c, fbits((float)(l * 10 + c)));
  gs_diag d;
  int rc = run(s, &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  assert_int_equal(rc, 0);
  for (unsigned l = 0; l < 3; l++)
    for (unsigned c = 0; c < 4; c++) {
      assert_true(s->lane[l].out.v[0x70 / 4 + c] == fbits(2.0f * (float)(l * 10 + c)));
      assert_true(s->lane[l].out.v[0x80 / 4 + c] == fbits((float)(l * 10 + c)));
    }
}

/* The compiler's perspective pattern: IPA.PASS of 0x7C is 1/W, MUFU.RCP
 * gives W, IPA (MULTIPLY) by it gives the perspective-correct value; the
 * screen-linear and flat inputs come as they are. */
static void test_pixel_ipa_pattern(void **state) {
  (void)state;
  load("  IPA.PASS R8, a[0x7c] ;\n"
       "  MUFU.RCP R8, R8 ;\n"
       "  IPA R0, a[0x80], R8 ;\n"
       "  IPA.PASS R9, a[0x80] ;\n"     /* the undivided a/w */
       "  IPA.PASS R1, a[0x90] ;\n"
       "  IPA.CONSTANT R2, a[0xa0] ;\n"
       "  MOV R3, R9 ;\n"
       "  EXIT ;\n",
       GS_SPH_PIXEL, 0);
  sass_solo *s = solo(2);
  s->lane[0].w = 2.0f, s->lane[1].w = 4.0f;
  for (unsigned l = 0; l < 2; l++) {
    s->lane[l].value[0x80 / 4] = 6.0f + (float)l;
    s->lane[l].value[0x90 / 4] = 0.5f;
    s->lane[l].value[0xa0 / 4] = 3.0f;
  }
  gs_diag d;
  int rc = run(s, &d);
  if (rc) fprintf(stderr, "%s\n", d.msg);
  assert_int_equal(rc, 0);
  /* W = 2 and 4 are powers of two: every step is exact */
  assert_true(s->lane[0].colour[0][0] == fbits(6.0f) && s->lane[1].colour[0][0] == fbits(7.0f));
  assert_true(s->lane[0].colour[0][3] == fbits(3.0f) && s->lane[1].colour[0][3] == fbits(1.75f));
  for (unsigned l = 0; l < 2; l++) {
    assert_true(s->lane[l].colour[0][1] == fbits(0.5f));
    assert_true(s->lane[l].colour[0][2] == fbits(3.0f));
  }
}

/* KIL discards with KillsPixels; without it, it is a no-op and an exception. */
static void test_kill_gate(void **state) {
  (void)state;
  static const char *src = "  S2R R4, SR_LANEID ;\n"
                           "  ISETP.EQ.AND P0, PT, R4, 0x1, PT ;\n"
                           "  @P0 KIL ;\n"
                           "  MOV32I R0, 0x3f800000 ;\n"
                           "  EXIT ;\n";
  for (int kills = 0; kills < 2; kills++) {
    load(src, GS_SPH_PIXEL, kills ? GS_SPH_KILLS_PIXELS : 0);
    sass_solo *s = solo(3);
    gs_diag d;
    assert_int_equal(run(s, &d), 0);
    assert_int_equal(s->lane[1].killed, kills);
    assert_int_equal(s->lane[0].killed, 0);
    assert_int_equal((int)s->report.exceptions, kills ? 0 : 1);
    if (!kills) assert_non_null(strstr(s->report.first, "KillsPixels"));
    assert_true(s->lane[kills ? 2 : 1].colour[0][0] == fbits(1.0f));
  }
}

/* Errors name the program, the pc and the instruction. */
static void test_errors(void **state) {
  (void)state;
  gs_diag d;
  load("loop:\n  BRA loop ;\n", GS_SPH_VERTEX, 0);
  sass_solo *s = solo(1);
  s->budget = 1000;
  assert_int_equal(run(s, &d), GS_EWATCHDOG);
  assert_non_null(strstr(d.msg, "budget of 1000"));
  assert_non_null(strstr(d.msg, "pc 0x0008"));

  load("  MOV R0, c[0x0][0x10] ;\n  EXIT ;\n", GS_SPH_VERTEX, 0);
  s = solo(1);
  uint8_t cb0[16] = {0};
  s->cb[0] = cb0, s->cb_size[0] = sizeof cb0;
  assert_int_equal(run(s, &d), GS_EFAULT);
  assert_non_null(strstr(d.msg, "c[0x0][0x10]"));
  assert_non_null(strstr(d.msg, "pc 0x0008"));

  load("  SYNC ;\n  EXIT ;\n", GS_SPH_VERTEX, 0);
  s = solo(1);
  assert_int_equal(run(s, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "SYNC without"));

  load("  IPA R0, a[0x80], RZ ;\n  EXIT ;\n", GS_SPH_VERTEX, 0);
  s = solo(1);
  assert_int_equal(run(s, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "IPA outside a pixel shader"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_headsurface_vertex), cmocka_unit_test(test_divergent_if_else),
      cmocka_unit_test(test_loop_break),         cmocka_unit_test(test_break_inside_if),
      cmocka_unit_test(test_exit_per_lane),
      cmocka_unit_test(test_vertex_attributes),  cmocka_unit_test(test_pixel_ipa_pattern),
      cmocka_unit_test(test_kill_gate),          cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
