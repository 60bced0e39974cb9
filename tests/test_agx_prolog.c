/* test_agx_prolog.c — the Apple AGX vertex prolog (src/isa/agx/prolog.c)
 * and the unit running it in front of the main vertex program.
 *
 * Where the expected values come from: the one-attribute listing is the
 * real-instruction prolog sketched from Mesa's agx_nir_lower_vbo.c for a
 * vec4 f32 attribute with a 16-byte stride (base du0, clamp u2 for one
 * slot), whose three encodings were built by hand from the field positions
 * of Mesa's src/asahi/isa/AGX2.xml and decoded by Dougall Johnson's
 * applegpu; the other listings follow by hand from the rules prolog.h
 * states (csel on the clamp, the stride folded into lsl when it is 1, 2 or
 * 4 elements, else imadd; i32 runs, i16/i8 for the bytes of a part word,
 * the (0, 0, 0, 1) fills, wait a) and the uniform layout of Mesa's
 * agx_abi.h for n = 8. Register and uniform values are worked out from the
 * bytes each test writes into its vertex arrays. None of it was produced
 * by gpusim.
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
#include "isa/agx/prolog.h"
#include "isa/agx/table.h"
#include "isa/agx/unit_int.h"
#include "v3d/vcd.h"

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* The prolog's instructions, one line each, Mesa's text with runs of
 * spaces made one. */
static char *listing(const gs_isa_binary *b) {
  size_t cap = 64 * (b->size / 2 + 1), n = 0;
  char *out = calloc(1, cap);
  assert_non_null(out);
  for (size_t off = 0; off < b->size;) {
    agx_instr I;
    unsigned len;
    char why[160], t[200];
    if (agx_decode(b->bytes + off, b->size - off, &I, &len, why, sizeof why) <= 0) fail_msg("byte %zu: %s", off, why);
    agx_print(&I, t, sizeof t);
    for (char *p = t; *p; p++)
      if (!(p[0] == ' ' && p[1] == ' ')) out[n++] = *p;
    out[n++] = '\n';
    off += I.len;
  }
  return out;
}

static void build(const agx_prolog_key *k, const uint8_t *in_reg, unsigned nin, const uint8_t *masks, unsigned n,
                  gs_isa_binary *b, uint32_t *reads) {
  gs_diag d = {0};
  agx_prolog_inputs in = {nin, in_reg, masks};
  if (agx_prolog_build(k, &in, n, b, reads, &d) < 0) fail_msg("%s", d.msg);
}

static void listing_is(const gs_isa_binary *b, const char *want) {
  char *got = listing(b);
  if (strcmp(got, want)) fail_msg("prolog:\n%s\nwant:\n%s", got, want);
  free(got);
}

/* One vec4 f32 attribute, 16-byte stride, one slot: the three
 * instructions of the hand-built sketch, to the byte. */
static void test_sketch(void **state) {
  (void)state;
  agx_prolog_key k = {1, {{16, 16, 0, 0, 4}}};
  static const uint8_t regs[4] = {8, 9, 10, 11}, masks[8] = {0xF};
  static const uint8_t want[] = {0x12, 0x1d, 0x84, 0xa1, 0x24, 0x00, 0xa1, 0x24,  /* csel */
                                 0x05, 0x41, 0xe0, 0x0e, 0x00, 0xc8, 0xf2, 0x00,  /* load */
                                 0x38, 0x00};                                     /* wait */
  gs_isa_binary b;
  uint32_t reads;
  build(&k, regs, 4, masks, 1, &b, &reads);
  assert_int_equal(reads, 1);
  if (b.size != sizeof want || memcmp(b.bytes, want, sizeof want)) {
    char *got = listing(&b);
    fail_msg("%zu bytes:\n%s", b.size, got);
  }
  listing_is(&b, "csel r7, u2, r5, 0, r5, ult\n"
                 "load r8_r9_r10_r11, du0, r7, lsl 2, i32, xyzw, a\n"
                 "wait a\n");
  gs_isa_binary_free(&b);
}

/* The two records of test_registers: a0 = 3 words every 20 bytes (5
 * words: imul), a1 = 6 bytes every 8 (2 words: lsl 1 for its whole word,
 * its 2-byte part word as an i16 element: index el x 4 + 2); n = 8: bases
 * du0 and du2, clamps u16 and u17. The SPH maps a0.xyz and a1.xy: fills
 * a0.w = 1, a1.z = 0, a1.w = 1. */
static const agx_prolog_key two = {2, {{12, 20, 0, 0, 4}, {6, 8, 12, 1, 4}}};
static const uint8_t two_regs[5] = {8, 9, 10, 12, 13}, two_masks[8] = {0x7, 0x3};
static const char two_text[] = "csel r7, u16, r5, 0, r5, ult\n"
                               "imul r3, r7, 5\n"
                               "load r8_r9_r10, du0, r3, i32, xyz, a\n"
                               "csel r7, u17, r5, 0, r5, ult\n"
                               "load r12, du2, r7, lsl 1, i32, x, a\n"
                               "imadd r3, r7, 4, 2\n"
                               "load r13, du2, r3, i16, x, a\n"
                               "ldimm r11, 1065353216\n"
                               "ldimm r14, 0\n"
                               "ldimm r15, 1065353216\n"
                               "wait a\n";

static void test_two_records(void **state) {
  (void)state;
  gs_isa_binary b;
  uint32_t reads;
  build(&two, two_regs, 5, two_masks, 8, &b, &reads);
  assert_int_equal(reads, 3);
  listing_is(&b, two_text);
  /* the bytes are the codec's: they assemble back from the text */
  gs_isa_binary a = {0};
  gs_diag d = {0};
  if (agx_asm(two_text, "two.s", &a, &d) < 0) fail_msg("%s", d.msg);
  assert_true(a.size == b.size && !memcmp(a.bytes, b.bytes, b.size));
  gs_isa_binary_free(&a);
  gs_isa_binary_free(&b);
}

/* Arrays that are only 2- or 1-byte aligned: a0 = 6 bytes every 6 from a
 * 2-byte aligned address, read as i16 halves (3 halves an element: imul by
 * 3; word 0's halves into r8l r8h, word 1's 2 bytes as one i16 into r9 at
 * half 2: imadd 3, 2); a1 = 3 bytes every 3, read as bytes (0 and 2 into
 * r12l r12h, 1 into r2; after the wait r12 += r2 << 8 in two lsl 4 steps).
 * A word the SPH maps that no record covers (a1.y, word 3) reads 0. */
static const agx_prolog_key narrow = {2, {{6, 6, 0, 0, 2}, {3, 3, 8, 1, 1}}};
static const uint8_t narrow_regs[4] = {8, 9, 12, 13}, narrow_masks[8] = {0x3, 0x3};
static const char narrow_text[] = "csel r7, u16, r5, 0, r5, ult\n"
                                  "imul r3, r7, 3\n"
                                  "load r8l_r8h, du0, r3, i16, xy, a\n"
                                  "imadd r3, r7, 3, 2\n"
                                  "load r9, du0, r3, i16, x, a\n"
                                  "csel r7, u17, r5, 0, r5, ult\n"
                                  "imul r3, r7, 3\n"
                                  "load r12l_r12h, du2, r3, i8, xz, a\n"
                                  "load r2, du2, r3, i8, y, a\n"
                                  "wait a\n"
                                  "iadd r2, 0, r2, lsl 4\n"
                                  "iadd r12, r12, r2, lsl 4\n"
                                  "ldimm r13, 0\n"
                                  "ldimm r10, 0\n"
                                  "ldimm r11, 1065353216\n"
                                  "ldimm r14, 0\n"
                                  "ldimm r15, 1065353216\n";

static void test_narrow(void **state) {
  (void)state;
  gs_isa_binary b;
  uint32_t reads;
  build(&narrow, narrow_regs, 4, narrow_masks, 8, &b, &reads);
  assert_int_equal(reads, 3);
  listing_is(&b, narrow_text);
  gs_isa_binary_free(&b);
}

static void test_refused(void **state) {
  (void)state;
  gs_isa_binary b;
  uint32_t reads;
  gs_diag d = {0};
  agx_prolog_inputs in = {5, two_regs, two_masks};
  agx_prolog_key k = two;
  k.attr[1].vpm_offset = 10;
  assert_true(agx_prolog_build(&k, &in, 8, &b, &reads, &d) < 0);
  assert_non_null(strstr(d.msg, "attribute 1: VPM offset 10 is not a multiple of 4"));
  k = two;
  k.attr[1].slot = 8;
  assert_true(agx_prolog_build(&k, &in, 8, &b, &reads, &d) < 0);
  assert_non_null(strstr(d.msg, "attribute 8"));
  /* clamps: 120 bytes of 12-byte elements every 20 -> elements 0-5 (element
   * 5 ends at byte 112, so 111 bytes hold 0-4); 11
   * bytes hold none; stride 0 -> no clamp, 0xffffffff (Mesa) */
  assert_int_equal(agx_prolog_clamp(120, 12, 20), 5);
  assert_int_equal(agx_prolog_clamp(111, 12, 20), 4);
  assert_int_equal(agx_prolog_clamp(11, 12, 20), -1);
  assert_int_equal(agx_prolog_clamp(12, 12, 0), 0xffffffff);
}

/* ---- through the unit ----------------------------------------------------------- */

/* UVS words 4.. = r8-r15, r7 (the prolog's scratch: the last record's
 * clamped element index), r5: ten varyings, the position left (0, 0, 0,
 * 1). */
static gs_addr load_dump(fixture *f, const unsigned *in, size_t nin) {
  static const unsigned vary[3] = {0xF, 0xF, 0x3};
  static const char dump[] = "st_var r8, 4\nst_var r9, 5\nst_var r10, 6\nst_var r11, 7\n"
                             "st_var r12, 8\nst_var r13, 9\nst_var r14, 10\nst_var r15, 11\n"
                             "st_var r7, 12\nst_var r5, 13, last\nstop\n";
  gs_isa_binary b = {0};
  if (agx_asm(dump, "dump.s", &b, &f->d) < 0) fail_msg("%s", f->d.msg);
  gs_addr code = fixture_load(f, b.bytes, b.size, 0, in, nin, vary, 3);
  gs_isa_binary_free(&b);
  return code;
}

static gs_addr alloc_write(fixture *f, uint32_t size, const void *data, uint32_t n, uint32_t at) {
  gs_addr a;
  if (gs_mem_alloc(gs_gpu_mem(f->g), size, 16, &a, &f->d) < 0 ||
      (n && gs_mem_write(gs_gpu_mem(f->g), a + at, data, n, &f->d) < 0))
    fail_msg("%s", f->d.msg);
  return a;
}

static int run_io(fixture *f, gs_addr code, const uint32_t *ids, unsigned count, const vcd_attr *attrs,
                  unsigned nattrs) {
  gs_vertex_io io = {GS_STAGE_VERTEX, {code, f->unif, f->unif + 4 * f->unif_words}, GS_GATE_ALL, &f->report,
                     &f->vpm, 0, 8, 16, 15, count, {2560.0f, 1920.0f, 0.5f, 0.5f}, 0, ids, attrs, nattrs};
  memset(&f->vpm.words[16 * 16], 0, 16 * 16 * sizeof(uint32_t));
  return f->isa->run_vertex(f->g, f->u, &io);
}

/* Output varying k (UVS word 4 + k) of lane l: row 3 + k. */
static uint32_t vary(const fixture *f, unsigned k, unsigned l) { return out(f, 3 + k, l); }

/* Two records of different strides and sizes (the key `two`): a0 =
 * (e + 0.5, -e, 100 + e) as f32 every 20 bytes from 4 bytes into its
 * allocation of 124 (elements 0-5: clamp (120 - 12) / 20 = 5); a1 = three
 * u16 0x1000 + 16e + 1..3 every 8 bytes in an allocation of 30 bytes
 * (clamp (30 - 6) / 8 = 3). Vertices 2, 0, 4, 3: vertex 4 is one past a1's
 * clamp, so its a1 is element 0's, with one exception naming it (3, the
 * last element, is read as it is). */
static void test_registers(void **state) {
  (void)state;
  for (int interp = 0; interp < 2; interp++) {
    fixture f;
    fixture_init_isa(&f, "agx");
    gs_gpu_config_of(f.g)->interpreter = interp ? GS_INTERP_REFERENCE : GS_INTERP_FAST;
    uint32_t a0[30], stream[2] = {0x11111111u, 0x22222222u};
    uint16_t a1[15] = {0};
    for (unsigned e = 0; e < 6; e++)
      a0[5 * e] = fbits((float)e + 0.5f), a0[5 * e + 1] = fbits(-(float)e), a0[5 * e + 2] = fbits(100.0f + (float)e),
      a0[5 * e + 3] = a0[5 * e + 4] = 0xdeadbeefu;
    for (unsigned e = 0; e < 4; e++)
      for (unsigned c = 0; c < 3; c++) a1[4 * e + c] = (uint16_t)(0x1000 + 16 * e + 1 + c);
    for (unsigned e = 0; e < 3; e++) a1[4 * e + 3] = 0xbeef; /* the gap bytes: never read */
    gs_addr b0 = alloc_write(&f, 124, a0, 120, 4), b1 = alloc_write(&f, 30, a1, 30, 0);
    fixture_uniforms(&f, stream, 2);
    const vcd_attr attrs[2] = {{b0 + 4, 12, 20, 0, 0}, {b1, 6, 8, 12, 1}};
    static const unsigned in[2] = {0x7, 0x3};
    gs_addr code = load_dump(&f, in, 2);
    static const uint32_t ids[4] = {2, 0, 4, 3};
    if (run_io(&f, code, ids, 4, attrs, 2) < 0) fail_msg("%s", f.d.msg);
    for (unsigned l = 0; l < 4; l++) {
      unsigned e0 = ids[l], e1 = ids[l] > 3 ? 0 : ids[l];
      uint32_t want[10] = {fbits((float)e0 + 0.5f), fbits(-(float)e0), fbits(100.0f + (float)e0), fbits(1.0f),
                           (uint32_t)(0x1000 + 16 * e1 + 1) | (uint32_t)(0x1000 + 16 * e1 + 2) << 16,
                           0x1000 + 16 * e1 + 3, 0, fbits(1.0f), e1, ids[l]};
      for (unsigned k = 0; k < 10; k++)
        if (vary(&f, k, l) != want[k])
          fail_msg("vertex %u (index %u), word %u: 0x%08x, want 0x%08x", l, ids[l], k, vary(&f, k, l), want[k]);
    }
    /* the uniforms the program ran with (agx_abi.h for n = 8) */
    const agx_state *s = &f.u->st;
    for (unsigned k = 0; k < 29; k++) {
      uint32_t want = k == 0 ? b0 + 4 : k == 2 ? b1 : k == 16 ? 5 : k == 17 ? 3 : k == 27 ? stream[0] :
                      k == 28 ? stream[1] : 0;
      uint32_t got = s->u[2 * k] | (uint32_t)s->u[2 * k + 1] << 16;
      if (got != want) fail_msg("u%u = 0x%08x, want 0x%08x", k, got, want);
    }
    assert_int_equal(f.report.exceptions, 1);
    if (!strstr(f.report.first, "lane 2: vertex index 4 is past the end of attribute 1's array") ||
        !strstr(f.report.first, "elements 0-3") || !strstr(f.report.first, "read element 0"))
      fail_msg("%s", f.report.first);
    fixture_free(&f);
  }
}

/* test_narrow's arrays through the unit: a0 = three u16 0x100e + 1..3 every
 * 6 bytes from 2 bytes into its allocation of 20 (elements 0-2); a1 =
 * bytes 0x10e + 1..3 (wrapped to 8 bits) every 3 bytes in an allocation of
 * 9. Vertices 1, 2. */
static void test_narrow_registers(void **state) {
  (void)state;
  fixture f;
  fixture_init_isa(&f, "agx");
  uint16_t a0[9];
  uint8_t a1[9];
  for (unsigned e = 0; e < 3; e++)
    for (unsigned c = 0; c < 3; c++)
      a0[3 * e + c] = (uint16_t)(0x1000 + 16 * e + 1 + c), a1[3 * e + c] = (uint8_t)(0x10 * e + 1 + c + 0xa0);
  gs_addr b0 = alloc_write(&f, 20, a0, 18, 2), b1 = alloc_write(&f, 9, a1, 9, 0);
  fixture_uniforms(&f, (const uint32_t[]){0}, 1);
  const vcd_attr attrs[2] = {{b0 + 2, 6, 6, 0, 0}, {b1, 3, 3, 8, 1}};
  static const unsigned in[2] = {0x3, 0x3};
  gs_addr code = load_dump(&f, in, 2);
  static const uint32_t ids[2] = {1, 2};
  if (run_io(&f, code, ids, 2, attrs, 2) < 0) fail_msg("%s", f.d.msg);
  for (unsigned l = 0; l < 2; l++) {
    unsigned e = ids[l];
    uint32_t h[3], b[3];
    for (unsigned c = 0; c < 3; c++) h[c] = 0x1000 + 16 * e + 1 + c, b[c] = (0x10 * e + 1 + c + 0xa0) & 0xff;
    /* r8 = halves 0, 1; r9 = half 2; r10 = 0 and r11 = 1 (fills); r12 =
     * the three bytes; r13 = 0 (no record covers word 3); r14 0, r15 1 */
    uint32_t want[8] = {h[0] | h[1] << 16, h[2], 0, fbits(1.0f), b[0] | b[1] << 8 | b[2] << 16, 0, 0, fbits(1.0f)};
    for (unsigned k = 0; k < 8; k++)
      if (vary(&f, k, l) != want[k]) fail_msg("vertex %u, word %u: 0x%08x, want 0x%08x", l, k, vary(&f, k, l), want[k]);
  }
  assert_int_equal(f.report.exceptions, 0);
  fixture_free(&f);
}

/* Errors: an array with no whole element; the main program's own pcs. */
static void test_unit_errors(void **state) {
  (void)state;
  fixture f;
  fixture_init_isa(&f, "agx");
  fixture_uniforms(&f, (const uint32_t[]){0}, 1);
  gs_addr b0 = alloc_write(&f, 8, NULL, 0, 0);
  const vcd_attr attrs[1] = {{b0, 12, 12, 0, 3}};
  static const unsigned in[1] = {0x7};
  static const uint32_t ids[1] = {0};
  gs_addr code = load_dump(&f, in, 1);
  assert_true(run_io(&f, code, ids, 1, attrs, 1) < 0);
  if (!strstr(f.d.msg, "attribute 3: its array at") || !strstr(f.d.msg, "holds no whole element"))
    fail_msg("%s", f.d.msg);
  /* a trap at the main program's byte 0, behind a prolog: named at pc 0x0000 */
  gs_isa_binary b = {0};
  if (agx_asm("trap\nstop\n", "t.s", &b, &f.d) < 0) fail_msg("%s", f.d.msg);
  code = fixture_load(&f, b.bytes, b.size, 0, in, 1, NULL, 0);
  gs_isa_binary_free(&b);
  gs_addr b1 = alloc_write(&f, 12, NULL, 0, 0);
  const vcd_attr ok[1] = {{b1, 12, 12, 0, 0}};
  assert_true(run_io(&f, code, ids, 1, ok, 1) < 0);
  if (!strstr(f.d.msg, "AGX shader: pc 0x0000: trap")) fail_msg("%s", f.d.msg);
  fixture_free(&f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_sketch),           cmocka_unit_test(test_two_records),
    cmocka_unit_test(test_narrow),           cmocka_unit_test(test_refused),
    cmocka_unit_test(test_registers),        cmocka_unit_test(test_narrow_registers),
    cmocka_unit_test(test_unit_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
