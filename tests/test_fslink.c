/* test_fslink.c — linking fragment programs for blend, colour-mask and
 * stencil state (gs_drv_fs_link, src/driver/fslink.c, and the QPU's linker
 * src/isa/qpu/link.c, which it reaches through the ISA contract): the
 * stencil setup words of RG Tables 27-28, the exact code inserted for source-over
 * blending and for stencil, relative branches moved across insertions
 * (checked by decoding where each branch lands), every refusal with the
 * instruction it names, and the driver's variants (cached, same SPH, none
 * for "replace", an error for code without a header). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "gpusim/qpu.h"
#include "isa/isa.h"
#include "isa/qpu/table.h"

/* The program assembled from text (fails the test on an assembler error). */
static uint64_t *assemble(const char *text, size_t *n) {
  uint64_t *w;
  gs_diag d;
  if (gs_qpu_asm(text, "test", 0, &w, n, &d) != GS_OK) fail_msg("asm: %s", d.msg);
  return w;
}

static gs_drv_state alpha_blend(void) {
  gs_drv_state s;
  gs_drv_state_init(&s);
  s.blend.enable = true;
  s.blend.src = s.blend.src_alpha = GS_DRV_FACTOR_SRC_ALPHA;
  s.blend.dst = s.blend.dst_alpha = GS_DRV_FACTOR_ONE_MINUS_SRC_ALPHA;
  return s;
}

static gs_drv_state stencil_on(void) {
  gs_drv_state s;
  gs_drv_state_init(&s);
  s.stencil.enable = true;
  return s;
}

/* Links text for s with info and checks the result against the assembled
 * `want`. */
static void expect_link_info(const char *text, const gs_drv_state *s, const gs_drv_fs_link_info *info,
                             const char *want) {
  size_t n, nw, nout;
  uint64_t *in = assemble(text, &n), *w = assemble(want, &nw), *out;
  gs_diag d;
  if (gs_drv_fs_link(in, n, s, info, &out, &nout, &d) != GS_OK) fail_msg("link: %s", d.msg);
  for (size_t i = 0; i < nout && i < nw; i++) {
    if (out[i] == w[i]) continue;
    char got[160], exp[160];
    gs_qpu_disasm_word(out[i], got, sizeof got);
    gs_qpu_disasm_word(w[i], exp, sizeof exp);
    fail_msg("instruction %zu: linked '%s', want '%s'", i, got, exp);
  }
  assert_int_equal(nout, nw);
  free(in);
  free(w);
  free(out);
}

static void expect_link(const char *text, const gs_drv_state *s, bool threaded, const char *want) {
  gs_drv_fs_link_info info = {threaded, 1, NULL};
  expect_link_info(text, s, &info, want);
}

/* Links text for s expecting GS_EINVAL with every string of `parts` in the
 * message. */
static void expect_refusal(const char *text, const gs_drv_state *s, bool threaded, const char *const *parts) {
  size_t n, nout = 99;
  uint64_t *in = assemble(text, &n), *out = (uint64_t *)&nout;
  gs_diag d;
  gs_drv_fs_link_info info = {threaded, 1, NULL};
  assert_int_equal(gs_drv_fs_link(in, n, s, &info, &out, &nout, &d), GS_EINVAL);
  assert_null(out);
  assert_int_equal(nout, 0);
  for (int i = 0; parts[i]; i++)
    if (!strstr(d.msg, parts[i])) fail_msg("'%s' lacks '%s'", d.msg, parts[i]);
  free(in);
}

#define REFUSE(text, s, threaded, ...) expect_refusal(text, s, threaded, (const char *const[]){__VA_ARGS__, NULL})

static void test_stencil_words(void **state) {
  (void)state;
  gs_drv_stencil s = stencil_on().stencil;
  uint32_t w[3];
  /* docs/scenes.md's worked word: both faces, mask code 3 (0xff), z-fail
   * keep, z-pass replace, fail keep, always, ref 1, value mask 0xff */
  s.front = (gs_drv_stencil_face){GS_DRV_ALWAYS, 1, 0xff, 0xff, GS_DRV_STENCIL_KEEP, GS_DRV_STENCIL_KEEP,
                                  GS_DRV_STENCIL_REPLACE};
  s.back = s.front;
  assert_int_equal(gs_drv_stencil_words(&s, w), 1);
  assert_int_equal(w[0], 0xf28f01ffu);
  /* faces that differ: front (WSEL 1) then back (WSEL 2); write mask 0x0f is code 2 */
  s.back.func = GS_DRV_LESS;
  s.back.ref = 0x80;
  s.back.mask = 0x0f;
  s.back.write_mask = 0x0f;
  s.back.zfail = GS_DRV_STENCIL_DECR_WRAP;
  assert_int_equal(gs_drv_stencil_words(&s, w), 2);
  assert_int_equal(w[0], 0x728f01ffu);
  assert_int_equal(w[1], 2u << 30 | 2u << 28 | 7u << 25 | 2u << 22 | 1u << 19 | 1u << 16 | 0x80u << 8 | 0x0f);
  /* a write mask that is no code: code 0 in the face words, then the full mask word */
  s.back = s.front;
  s.front.write_mask = s.back.write_mask = 0x3c;
  assert_int_equal(gs_drv_stencil_words(&s, w), 2);
  assert_int_equal(w[0], 0xc28f01ffu);
  assert_int_equal(w[1], 0x3c3cu);
  s.back.write_mask = 0x01;
  assert_int_equal(gs_drv_stencil_words(&s, w), 3);
  assert_int_equal(w[2], 0x013cu);
}

static void test_no_variant(void **state) {
  (void)state;
  gs_drv_state s;
  gs_drv_state_init(&s);
  assert_false(gs_drv_fs_needs_variant(&s));
  s.blend.enable = true; /* add, one, zero: replace */
  assert_false(gs_drv_fs_needs_variant(&s));
  s.blend.equation = s.blend.alpha_equation = GS_DRV_BLEND_SUBTRACT;
  assert_false(gs_drv_fs_needs_variant(&s));
  s.blend.dst_alpha = GS_DRV_FACTOR_ONE;
  assert_true(gs_drv_fs_needs_variant(&s));
  gs_drv_state_init(&s);
  s.color_mask = 0x7;
  assert_true(gs_drv_fs_needs_variant(&s));
  s = stencil_on();
  assert_true(gs_drv_fs_needs_variant(&s));
  /* codes out of range: GS_EARG naming them, before anything else */
  uint64_t nop = QPU_NOP_WORD, *out;
  size_t nout;
  gs_diag d;
  s.blend.dst_alpha = (gs_drv_blend_factor)GS_DRV_FACTOR_COUNT;
  assert_int_equal(gs_drv_fs_link(&nop, 1, &s, NULL, &out, &nout, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "blend factor 15"));
  gs_drv_state_init(&s);
  s.stencil.back.zpass = 8;
  assert_int_equal(gs_drv_fs_check_state(&s, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "back stencil operations"));
  gs_drv_state_init(&s);
  s.blend.alpha_equation = (gs_drv_blend_equation)5;
  assert_int_equal(gs_drv_fs_check_state(&s, &d), GS_EARG);
  gs_drv_state_init(&s);
  /* even a program the linker would refuse is copied as it is */
  gs_drv_state_init(&s);
  expect_link("bra -, ra0\nmov.zs tlb_colour_all, r0\nnop\nnop\nthrend\nnop\nnop\n", &s, false,
              "bra -, ra0\nmov.zs tlb_colour_all, r0\nnop\nnop\nthrend\nnop\nnop\n");
  /* which part of the state changes the colour */
  gs_drv_state_init(&s);
  s.blend.enable = true; /* replace */
  assert_false(gs_drv_fs_blend_on(&s) || gs_drv_fs_blends(&s));
  s.color_mask = 0xE; /* red left out: the mask alone */
  assert_false(gs_drv_fs_blend_on(&s));
  assert_true(gs_drv_fs_blends(&s));
  s = alpha_blend();
  assert_true(gs_drv_fs_blend_on(&s) && gs_drv_fs_blends(&s));
}

/* The QPU's linker is the link_fragment of the ISA called "qpu" and of raw
 * code (no header): bytes in, bytes out, each instruction 8 bytes with its
 * low 32 bits first; gs_drv_fs_link gives the same words. */
static void test_isa_hook(void **state) {
  (void)state;
  const gs_isa *qpu = gs_isa_by_name("qpu");
  assert_non_null(qpu);
  assert_ptr_equal(gs_isa_by_id(GS_ISA_NONE), qpu);
  assert_non_null(qpu->link_fragment);
  size_t n, nout, size;
  uint64_t *in = assemble("mov tlb_colour_all, r1\nthrend\nnop\nnop\n", &n), *words;
  uint8_t code[64], *out;
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 8; k++) code[8 * i + (size_t)k] = (uint8_t)(in[i] >> (8 * k));
  gs_drv_state s = alpha_blend();
  gs_diag d;
  if (qpu->link_fragment(code, 8 * n, &s, NULL, &out, &size, &d) != GS_OK) fail_msg("link: %s", d.msg);
  if (gs_drv_fs_link(in, n, &s, NULL, &words, &nout, &d) != GS_OK) fail_msg("link: %s", d.msg);
  assert_true(nout > n); /* blend code was added */
  assert_int_equal(size, 8 * nout);
  for (size_t i = 0; i < nout; i++) {
    uint64_t w = 0;
    for (int k = 7; k >= 0; k--) w = w << 8 | out[8 * i + (size_t)k];
    assert_int_equal(w, words[i]);
  }
  free(out);
  free(words);
  /* code that is not whole instructions, and none */
  assert_int_equal(qpu->link_fragment(code, 12, &s, NULL, &out, &size, &d), GS_EARG);
  if (!strstr(d.msg, "12 bytes of code; QPU instructions are 8 bytes each")) fail_msg("%s", d.msg);
  assert_null(out);
  assert_int_equal(qpu->link_fragment(code, 0, &s, NULL, &out, &size, &d), GS_EARG);
  if (!strstr(d.msg, "no instructions")) fail_msg("%s", d.msg);
  free(in);
}

/* Source over: the colour write goes to r0 (nothing after it reads an
 * accumulator), ra31 holds the source for its alpha (.8dr), loadc brings
 * the tile colour, and the MUL ALU blends. The thrend of the colour write
 * moves to the final write. */
static void test_source_over_code(void **state) {
  (void)state;
  gs_drv_state s = alpha_blend();
  expect_link("mov r1, unif\n"
              "mov tlb_colour_all, r1 ; thrend\n"
              "nop\n"
              "sbdone\n",
              &s, false,
              "mov r1, unif\n"
              "mov r0, r1\n"
              "mov ra31, r0 ; loadc\n"
              "nop\n"                      /* ra31 is readable two instructions on */
              "not r2, ra31.8dr ; v8muld r1, r0, ra31.8dr\n" /* 255 − As; src × As: both ALUs at once */
              "v8muld r2, r4, r2\n"        /* dst × (255 − As) */
              "nop ; v8adds r1, r1, r2\n"
              "mov tlb_colour_all, r1 ; thrend\n"
              "nop\n"
              "sbdone\n");
  /* threaded: only ra0..ra13 (the program uses ra13) */
  expect_link("mov ra13, unif\nnop\nmov tlb_colour_all, ra13\nthrend\nnop\nnop\n", &s, true,
              "mov ra13, unif\nnop\nmov r0, ra13\nmov ra12, r0 ; loadc\nnop\n"
              "not r2, ra12.8dr ; v8muld r1, r0, ra12.8dr\nv8muld r2, r4, r2\nnop ; v8adds r1, r1, r2\n"
              "mov tlb_colour_all, r1\n"
              "thrend\nnop\nnop\n");
  /* 4 samples: load, blend and write each (tlb_colour_ms), the signal on the last */
  gs_drv_fs_link_info ms = {false, 4, NULL};
  s.blend.src = s.blend.src_alpha = GS_DRV_FACTOR_ONE;
  s.blend.dst = s.blend.dst_alpha = GS_DRV_FACTOR_ONE;
  expect_link_info("mov tlb_colour_all, unif ; sbdone\nthrend\nnop\nnop\n", &s, &ms,
                   "mov r0, unif\n"
                   "loadc\nnop ; v8adds r1, r0, r4\nmov tlb_colour_ms, r1\n"
                   "loadc\nnop ; v8adds r1, r0, r4\nmov tlb_colour_ms, r1\n"
                   "loadc\nnop ; v8adds r1, r0, r4\nmov tlb_colour_ms, r1\n"
                   "loadc\nnop ; v8adds r1, r0, r4\nmov tlb_colour_ms, r1 ; sbdone\n"
                   "thrend\nnop\nnop\n");
  /* the program's own loadc would put the blend's loads out of step */
  size_t nin, nout;
  uint64_t *in = assemble("nop ; nop ; loadc\nmov tlb_colour_all, r4\nthrend\nnop\nnop\n", &nin), *out;
  gs_diag d;
  assert_int_equal(gs_drv_fs_link(in, nin, &s, &ms, &out, &nout, &d), GS_EINVAL);
  if (!strstr(d.msg, "instruction 0 (loadc)") || !strstr(d.msg, "loads the tile colour itself")) fail_msg("%s", d.msg);
  assert_int_equal(gs_drv_fs_link(in, nin, &s, NULL, &out, &nout, &d), GS_OK); /* one sample: fine */
  free(out);
  free(in);
  /* a blend that does not read the tile writes all samples at once */
  s.blend.dst = s.blend.dst_alpha = GS_DRV_FACTOR_ZERO;
  s.blend.src = s.blend.src_alpha = GS_DRV_FACTOR_CONSTANT_COLOR;
  s.blend.color = 0x80402010;
  expect_link_info("mov tlb_colour_all, unif\nthrend\nnop\nnop\n", &s, &ms,
                   "mov r0, unif\nldi r1, 0x80402010\nv8muld r1, r0, r1\nmov tlb_colour_all, r1\n"
                   "thrend\nnop\nnop\n");
  s = alpha_blend();
  /* the colour write's other half keeps its destination (r0), so S goes to r1 */
  s.blend.equation = s.blend.alpha_equation = GS_DRV_BLEND_MAX;
  expect_link("mov tlb_colour_all, unif ; mov r0, 1\nmov r2, r0\nthrend\nnop\nnop\n", &s, false,
              "mov r1, unif ; mov r0, 1\nloadc\nv8max r2, r1, r4\nmov tlb_colour_all, r2\nmov r2, r0\n"
              "thrend\nnop\nnop\n");
}

/* Stencil: setup words before each Z write, or `mov tlb_z, rb15` before the
 * first colour write of a program without one; a colour mask alone. */
static void test_stencil_and_mask_code(void **state) {
  (void)state;
  gs_drv_state s = stencil_on();
  expect_link("mov tlb_z, rb15\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, false,
              "ldi tlb_stencil, 0xf24f00ff\nmov tlb_z, rb15\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n");
  s.stencil.back.write_mask = 0x3c;
  expect_link("mov r0, unif\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, false,
              "mov r0, unif\nldi tlb_stencil, 0x724f00ff\nldi tlb_stencil, 0x824f00ff\nldi tlb_stencil, 0x3cff\n"
              "mov tlb_z, rb15\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n");
  /* HW-2806: two instructions between the added Z write and the thread end */
  s = stencil_on();
  expect_link("mov r0, unif\nmov tlb_colour_all, r0 ; thrend\nnop\nsbdone\n", &s, false,
              "mov r0, unif\nldi tlb_stencil, 0xf24f00ff\nmov tlb_z, rb15\nnop\nnop\n"
              "mov tlb_colour_all, r0 ; thrend\nnop\nsbdone\n");
  expect_link("mov tlb_colour_all, r0\nthrend\nnop\nsbdone\n", &s, false,
              "ldi tlb_stencil, 0xf24f00ff\nmov tlb_z, rb15\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nsbdone\n");
  gs_drv_state_init(&s);
  s.color_mask = 0x5; /* R and B */
  expect_link("mov tlb_colour_all, unif\nthrend\nnop\nnop\n", &s, false,
              "mov r0, unif\nloadc\nldi r1, 0x00ff00ff\nand r2, r0, r1\nnot r1, r1\nand r1, r4, r1\n"
              "or r2, r2, r1\nmov tlb_colour_all, r2\nthrend\nnop\nnop\n");
}

/* The instruction relative branch `b` of out lands on. */
static size_t landing(const uint64_t *out, size_t b) {
  assert_int_equal(qpu_get(out[b], QPU_F_SIG), QPU_SIG_BRANCH);
  int32_t imm = (int32_t)qpu_get(out[b], QPU_F_IMM);
  return (size_t)((int64_t)b + 4 + imm / 8);
}

static size_t find(const uint64_t *out, size_t n, const char *line) {
  uint64_t w;
  gs_diag d;
  if (gs_qpu_asm_word(line, 0, &w, &d) != GS_OK) fail_msg("asm: %s", d.msg);
  for (size_t i = 0; i < n; i++)
    if (out[i] == w) return i;
  fail_msg("'%s' is not in the linked program", line);
  return 0;
}

/* Branches across the stencil words (inserted before the Z write) and
 * across the blend code (after the colour write) land where they did. */
static void test_branch_fixups(void **state) {
  (void)state;
  static const char prog[] =
      "    mov r1, 3\n"              /* 0 */
      "    brr l_z\n"                /* 1: forward onto the Z write: lands on its stencil words */
      "    nop\n    nop\n    nop\n"  /* 2-4 */
      "l_z:\n"
      "    mov tlb_z, rb15\n"        /* 5 */
      "l_loop:\n"
      "    sub.setf r1, r1, 1\n"     /* 6 */
      "    brr.anynz l_loop\n"       /* 7: backward, spans no insertion */
      "    nop\n    nop\n    nop\n"  /* 8-10 */
      "    brr.allz l_end\n"         /* 11: forward across the blend code */
      "    nop\n    nop\n    nop\n"  /* 12-14 */
      "    mov tlb_colour_all, r0\n" /* 15 */
      "l_end:\n"
      "    mov r2, unif ; thrend\n"  /* 16 */
      "    nop\n    sbdone\n";
  size_t n, nout;
  uint64_t *in = assemble(prog, &n), *out;
  gs_drv_state s = alpha_blend();
  s.stencil.enable = true;
  gs_diag d;
  if (gs_drv_fs_link(in, n, &s, NULL, &out, &nout, &d) != GS_OK) fail_msg("link: %s", d.msg);
  size_t stencil = find(out, nout, "ldi tlb_stencil, 0xf24f00ff");
  assert_int_equal(stencil, 5);
  assert_int_equal(landing(out, 1), stencil);
  assert_int_equal(landing(out, 8), find(out, nout, "sub.setf r1, r1, 1"));
  assert_int_equal(qpu_get(out[8], QPU_F_IMM), qpu_get(in[7], QPU_F_IMM)); /* unchanged */
  size_t end = find(out, nout, "mov r2, unif ; thrend");
  assert_true(end > 16 + 5); /* the blend code came first */
  assert_int_equal(landing(out, 12), end);
  assert_int_equal(nout, n + 1 + 6); /* one stencil word; the colour write became seven instructions */
  free(in);
  free(out);
}

static void test_refusals(void **state) {
  (void)state;
  gs_drv_state s = alpha_blend(), st = stencil_on();
  REFUSE("mov r0, unif\nbra -, ra0\nnop\nnop\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, false,
         "instruction 1 (bra -, ra0)", "register branch");
  REFUSE("bra 0x20\nnop\nnop\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, false, "instruction 0",
         "absolute branch");
  REFUSE("brr +0x800\nnop\nnop\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, false,
         "instruction 0", "not an instruction of the program");
  REFUSE("mov.setf -, elem_num\nmov.zs tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, false,
         "instruction 1 (mov.zs tlb_colour_all, r0)", "conditional colour write");
  REFUSE("fmul tlb_colour_all.8a, r0, 1.0\nthrend\nnop\nnop\n", &s, false, "instruction 0", "partial colour pack");
  REFUSE("mov tlb_colour_all, r0 ; ldtmu0\nthrend\nnop\nnop\n", &s, false, "instruction 0",
         "signal 'ldtmu0'");
  REFUSE("mov r0, unif\nnop ; nop ; thrend\nmov tlb_colour_all, r0\nnop\n", &s, false,
         "instruction 2 (mov tlb_colour_all, r0)", "delay slots");
  REFUSE("brr +0x8\nmov tlb_colour_all, r0\nnop\nnop\nnop\nthrend\nnop\nnop\n", &s, false, "instruction 1",
         "delay slots");
  REFUSE("mov tlb_colour_ms, r0\nthrend\nnop\nnop\n", &s, false, "instruction 0", "tlb_colour_ms");
  REFUSE("mov tlb_colour_all, r0 ; mov tlb_colour_all, r1\nthrend\nnop\nnop\n", &s, false, "both ALUs");
  REFUSE("mov tlb_colour_all, r0\nadd r0, r0, r1\nadd r2, r2, r3\nthrend\nnop\nnop\n", &s, false,
         "instruction 0", "blending needs 1 of r0..r3 free", "(free: none)");
  REFUSE("mov tlb_colour_all, r0\nadd r0, r0, r1\nadd r2, r2, r2\nthrend\nnop\nnop\n", &s, false,
         "blending needs 2 of r0..r3 free", "(free: r3)");
  REFUSE("mov tlb_colour_all, r0\nmov r1, r4\nthrend\nnop\nnop\n", &s, false, "instruction 0", "reads r4");
  REFUSE("mov sfu_recip, r1\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, false, "instruction 2",
         "SFU result");
  REFUSE("mov tlb_colour_all, r0\nbrr.anyz -0x28\nnop\nnop\nnop\nthrend\nnop\nnop\n", &s, false,
         "instruction 0", "instruction 1, a branch or thread switch", "cannot tell which accumulators");
  REFUSE("mov ra0, 0\nmov ra1, 0\nmov ra2, 0\nmov ra3, 0\nmov ra4, 0\nmov ra5, 0\nmov ra6, 0\nmov ra7, 0\n"
         "mov ra8, 0\nmov ra9, 0\nmov ra10, 0\nmov ra11, 0\nmov ra12, 0\nmov r0, ra13\n"
         "mov tlb_colour_all, r0\nthrend\nnop\nnop\n", &s, true, "instruction 14", "regfile-A register",
         "ra0..ra13)");
  REFUSE("mov tlb_stencil, unif\nmov tlb_z, rb15\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &st, false,
         "instruction 0", "writes tlb_stencil itself");
  REFUSE("brr +0x18\nmov tlb_z, rb15\nnop\nnop\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &st, false,
         "instruction 1", "Z write in the delay slots");
  REFUSE("mov rb15, r1\nmov tlb_colour_all, r0\nthrend\nnop\nnop\n", &st, false, "instruction 0",
         "writes rb15");
  REFUSE("mov r0, 1\nthrend\nnop\nnop\n", &st, false, "neither Z nor a colour");
  /* with the source lines from the assembler, the message gives the line */
  size_t n, nout;
  uint32_t *lines;
  uint64_t *in, *out;
  gs_diag d;
  assert_int_equal(gs_qpu_asm_lines("# a comment\nmov r0, unif\n\nmov.setf -, elem_num\n"
                                    "mov.zs tlb_colour_all, r0\nthrend\nnop\nnop\n", "fs", 0, &in, &n, &lines, &d),
                   GS_OK);
  assert_int_equal(lines[0], 2);
  assert_int_equal(lines[2], 5);
  gs_drv_fs_link_info info = {false, 1, lines};
  assert_int_equal(gs_drv_fs_link(in, n, &s, &info, &out, &nout, &d), GS_EINVAL);
  if (!strstr(d.msg, "instruction 2 at line 5 (mov.zs tlb_colour_all, r0)")) fail_msg("%s", d.msg);
  free(in);
  free(lines);
  /* what is allowed: the .8888 colour pack, sbdone and thrend on the write */
  expect_link("fmul tlb_colour_all.8888, r1, r2 ; sbdone\nthrend\nnop\nnop\n", &s, false,
              "fmul r0.8888, r1, r2\nmov ra31, r0 ; loadc\nnop\nnot r2, ra31.8dr ; v8muld r1, r0, ra31.8dr\n"
              "v8muld r2, r4, r2\nnop ; v8adds r1, r1, r2\nmov tlb_colour_all, r1 ; sbdone\nthrend\nnop\nnop\n");
}

/* Random valid programs (ending in thrend, nop, nop, with colour and Z
 * writes sprinkled in) under several states: the linker either links them
 * into valid words, one more at least for every colour or Z write it
 * touched, or refuses with GS_EINVAL and a message naming an instruction —
 * never anything else (run under ASan/UBSan by `make test`). */
static uint64_t next_random(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static void test_random_programs(void **state) {
  (void)state;
  gs_drv_state st[4];
  st[0] = alpha_blend();
  st[1] = stencil_on();
  st[2] = alpha_blend();
  st[2].blend.alpha_equation = GS_DRV_BLEND_MAX;
  st[2].color_mask = 0xB;
  st[2].stencil.enable = true;
  st[2].stencil.back.write_mask = 0x70;
  gs_drv_state_init(&st[3]);
  st[3].color_mask = 0x1;
  uint64_t x = 0x9e3779b97f4a7c15u, words[24];
  int linked = 0, refused = 0;
  for (int round = 0; round < 3000; round++) {
    size_t n = 4 + next_random(&x) % 18;
    for (size_t i = 0; i + 3 < n; i++) {
      uint64_t w;
      do {
        w = next_random(&x);
        unsigned pick = (unsigned)(next_random(&x) % 8);
        if (pick < 2) { /* an unconditional colour or Z write on the ADD ALU */
          w = qpu_set(qpu_set(w, QPU_F_SIG, QPU_SIG_NONE), QPU_F_WADDR_ADD,
                      pick == 0 ? QPU_W_TLB_COLOUR_ALL : QPU_W_TLB_Z);
          w = qpu_set(qpu_set(qpu_set(w, QPU_F_COND_ADD, 1), QPU_F_OP_ADD, QPU_A_OR), QPU_F_PACK, 0);
          w = qpu_set(w, QPU_F_WADDR_MUL, QPU_W_NOP);
        } else if (pick == 2) { /* a relative branch inside the program */
          int64_t t = (int64_t)(next_random(&x) % n);
          w = qpu_set(qpu_set(qpu_set(w, QPU_F_SIG, QPU_SIG_BRANCH), QPU_F_REL, 1), QPU_F_REG, 0);
          w = qpu_set(w, QPU_F_IMM, (uint32_t)(int32_t)(8 * (t - (int64_t)i - 4)));
        } else if (pick < 5) { /* a plain ALU word */
          w = qpu_set(w, QPU_F_SIG, QPU_SIG_NONE);
        }
      } while (qpu_invalid_reason(w));
      words[i] = w;
    }
    words[n - 3] = UINT64_C(0x300009e7009e7000); /* thrend */
    words[n - 2] = words[n - 1] = QPU_NOP_WORD;
    for (int k = 0; k < 4; k++) {
      uint64_t *out;
      size_t nout;
      gs_diag d;
      gs_drv_fs_link_info info = {k == 1, k == 2 ? 4 : 1, NULL};
      int rc = gs_drv_fs_link(words, n, &st[k], &info, &out, &nout, &d);
      if (rc == GS_EINVAL) {
        assert_non_null(strstr(d.msg, "instruction "));
        refused++;
        continue;
      }
      assert_int_equal(rc, GS_OK);
      assert_true(nout >= n);
      for (size_t i = 0; i < nout; i++)
        if (qpu_invalid_reason(out[i])) fail_msg("round %d: linked word %zu is invalid", round, i);
      free(out);
      linked++;
    }
  }
  /* both outcomes happen often enough to mean something */
  assert_true(linked > 1000 && refused > 1000);
}

/* The driver links a variant on the first draw with a state, reuses it,
 * keeps the SPH, and makes none for "replace". */
static void test_driver_variants(void **state) {
  (void)state;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_sph_decl decl;
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_PIXEL;
  decl.render_targets = 0xF;
  gs_sph sph, got;
  gs_diag d;
  assert_int_equal(gs_sph_build(&decl, &sph, &d), GS_OK);
  size_t n;
  uint64_t *code = assemble("mov tlb_colour_all, unif\nthrend\nnop\nsbdone\n", &n);
  gs_drv_program p;
  assert_int_equal(gs_drv_program_load(m, code, n, &sph, &p, &d), GS_OK);
  gs_driver *drv = gs_driver_new(m);
  gs_drv_target t = {64, 64, GS_DRV_RGBA8888, false, 0, 0, 1};
  assert_int_equal(gs_drv_target_alloc(m, &t, NULL), GS_OK);
  gs_drv_shader sh = {p.code, p.code, p.code, 0, 0, false, 0, NULL};
  gs_drv_attr a = {t.framebuffer, 4, 4};
  gs_drv_state st = alpha_blend(), plain;
  gs_drv_state_init(&plain);
  gs_drv_draw dr;
  memset(&dr, 0, sizeof dr);
  dr.mode = GS_DRV_POINTS;
  dr.shader = &sh;
  dr.attrs = &a;
  dr.nattrs = 1;
  dr.count = 1;
  gs_drv_frame f;
  assert_int_equal(gs_driver_begin_frame(drv, &t, &d), GS_OK);
  dr.state = &plain;
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  dr.state = &st;
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  assert_int_equal(gs_driver_end_frame(drv, &f, &d), GS_OK);
  /* the frame lists two fragment programs: the original and one variant */
  assert_int_equal(f.n_fs_programs, 2);
  assert_int_equal(f.fs_programs[0], p.code);
  gs_addr variant = f.fs_programs[1];
  assert_true(variant != p.code);
  assert_int_equal(gs_drv_program_sph(m, variant, &got, &d), GS_OK);
  uint32_t a_words[GS_SPH_WORDS], b_words[GS_SPH_WORDS];
  assert_int_equal(gs_sph_encode(&sph, a_words, &d), GS_OK);
  assert_int_equal(gs_sph_encode(&got, b_words, &d), GS_OK);
  assert_memory_equal(a_words, b_words, sizeof a_words);
  /* the next frame finds it again */
  assert_int_equal(gs_driver_begin_frame(drv, &t, &d), GS_OK);
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  assert_int_equal(gs_driver_end_frame(drv, &f, &d), GS_OK);
  assert_int_equal(f.n_fs_programs, 1);
  assert_int_equal(f.fs_programs[0], variant);
  /* the same code reloaded at the same address with another SPH (one
   * varying): a new variant carrying the new SPH, not the cached one */
  gs_drv_program_release(m, &p);
  gs_sph_io vary = {GS_SPH_ATTR_GENERIC(0), 0x1, GS_PIXEL_IMAP_SCREEN_LINEAR};
  decl.inputs = &vary;
  decl.n_inputs = 1;
  gs_sph sph2;
  assert_int_equal(gs_sph_build(&decl, &sph2, &d), GS_OK);
  assert_int_equal(gs_drv_program_load(m, code, n, &sph2, &p, &d), GS_OK);
  assert_int_equal(p.code, sh.fs_code); /* the allocator gave the same place back */
  assert_int_equal(gs_driver_begin_frame(drv, &t, &d), GS_OK);
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  assert_int_equal(gs_driver_end_frame(drv, &f, &d), GS_OK);
  assert_int_equal(f.n_fs_programs, 1);
  assert_int_equal(gs_drv_program_sph(m, f.fs_programs[0], &got, &d), GS_OK);
  assert_int_equal(gs_sph_pixel_imap(&got, GS_SPH_ATTR_GENERIC(0)), GS_PIXEL_IMAP_SCREEN_LINEAR);
  /* blending into an RGBA16F target: refused; stencil alone links */
  gs_drv_target ms = {64, 64, GS_DRV_RGBA16F, false, 0, 0, 1};
  assert_int_equal(gs_drv_target_alloc(m, &ms, NULL), GS_OK);
  assert_int_equal(gs_driver_begin_frame(drv, &ms, &d), GS_OK);
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_EARG);
  if (!strstr(d.msg, "need a target of 8-bit colour")) fail_msg("%s", d.msg);
  gs_drv_state sten = stencil_on();
  dr.state = &sten;
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  dr.state = &st;
  /* a program without the driver's header has no known length */
  gs_addr raw;
  assert_int_equal(gs_mem_alloc(m, 256, 16, &raw, NULL), GS_OK);
  sh.fs_code = raw + 128;
  assert_int_equal(gs_driver_begin_frame(drv, &t, &d), GS_OK);
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_EARG);
  if (!strstr(d.msg, "need a program loaded with gs_drv_program_load")) fail_msg("%s", d.msg);
  /* a program that does not link: the draw fails naming the program */
  uint64_t *bad = assemble("mov.setf -, 1\nmov.zs tlb_colour_all, r0\nthrend\nnop\nnop\n", &n);
  gs_drv_program q;
  assert_int_equal(gs_drv_program_load(m, bad, n, &sph, &q, &d), GS_OK);
  sh.fs_code = q.code;
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_EARG);
  char where[64];
  snprintf(where, sizeof where, "draw: fragment program 0x%08x: instruction 1", q.code);
  if (!strstr(d.msg, where) || !strstr(d.msg, "conditional")) fail_msg("%s", d.msg);
  /* the linker is the one of the ISA the program's header names: an id
   * gpusim does not know fails the draw, naming the program and the id */
  uint8_t *id = gs_mem_ptr(m, q.code - GS_DRV_PROGRAM_HEADER + 12, 4);
  assert_non_null(id);
  id[0] = 9;
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_EARG);
  snprintf(where, sizeof where, "0x%08x", q.code);
  if (!strstr(d.msg, where) || !strstr(d.msg, "instruction set 9")) fail_msg("%s", d.msg);
  id[0] = 0;
  free(bad);
  free(code);
  gs_driver_free(drv);
  gs_gpu_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_stencil_words),
      cmocka_unit_test(test_no_variant),
      cmocka_unit_test(test_isa_hook),
      cmocka_unit_test(test_source_over_code),
      cmocka_unit_test(test_stencil_and_mask_code),
      cmocka_unit_test(test_branch_fixups),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_random_programs),
      cmocka_unit_test(test_driver_variants),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
