/* test_agx_asm.c — the Apple AGX (G13) instruction table, decoder,
 * disassembler and assembler against published encodings.
 *
 * Where the expected text comes from: the worked decodes (test_worked_*)
 * were done bit by bit by hand from the field positions of Mesa's
 * src/asahi/isa/AGX2.xml, which Dougall Johnson's applegpu (applegpu.py)
 * gives identically; the concordance lines are bytes that decode to the same
 * operands in both public disassemblers (Mesa's text first, applegpu's
 * spelling in test_applegpu_spellings); the long table is a sample of the
 * "bytes -> text" pairs of Mesa's disassembler test corpus
 * (src/asahi/isa/test/cases.txt), three per mnemonic, whose text Mesa's
 * disassembler prints for those bytes. None of it was produced by gpusim.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "isa/agx/agx.h"
#include "isa/agx/table.h"
#include "isa/isa.h"

static size_t unhex(const char *h, uint8_t *b) {
  size_t n = strlen(h) / 2;
  for (size_t i = 0; i < n; i++) {
    unsigned v;
    sscanf(h + 2 * i, "%2x", &v);
    b[i] = (uint8_t)v;
  }
  return n;
}

static void decode_ok(const char *hex, agx_instr *I) {
  uint8_t b[16] = {0};
  size_t n = unhex(hex, b);
  unsigned len;
  char why[200];
  int r = agx_decode(b, n, I, &len, why, sizeof why);
  if (r != (int)n) fail_msg("%s: decoded %d bytes (%s)", hex, r, r ? "" : why);
}

static void text_is(const char *hex, const char *want) {
  agx_instr I;
  char got[200];
  decode_ok(hex, &I);
  agx_print(&I, got, sizeof got);
  if (strcmp(got, want)) fail_msg("%s: got '%s', want '%s'", hex, got, want);
}

/* Assembles text (one statement); the bytes must be hex. */
static void asm_is(const char *text, const char *hex) {
  gs_isa_binary bin;
  gs_diag d = {0};
  uint8_t b[64];
  size_t n = unhex(hex, b);
  if (agx_asm(text, "t.s", &bin, &d)) fail_msg("'%s': %s", text, d.msg);
  if (bin.size != n || memcmp(bin.bytes, b, n)) {
    char got[80] = "";
    for (size_t i = 0; i < bin.size && i < 32; i++) snprintf(got + 2 * i, 3, "%02x", bin.bytes[i]);
    gs_isa_binary_free(&bin);
    fail_msg("'%s': got %s, want %s", text, got, hex);
  }
  gs_isa_binary_free(&bin);
}

static void asm_fails(const char *text, const char *where, const char *part) {
  gs_isa_binary bin;
  gs_diag d = {0};
  if (agx_asm(text, "t.s", &bin, &d) == 0) {
    gs_isa_binary_free(&bin);
    fail_msg("'%s' assembled", text);
  }
  if (!strstr(d.msg, where) || !strstr(d.msg, part)) fail_msg("'%s': '%s' lacks '%s' or '%s'", text, d.msg, where, part);
}

static void refused(const char *hex, unsigned want_len, const char *part) {
  uint8_t b[16] = {0};
  size_t n = unhex(hex, b);
  agx_instr I;
  unsigned len;
  char why[200];
  if (agx_decode(b, n, &I, &len, why, sizeof why)) fail_msg("%s decoded", hex);
  if (len != want_len) fail_msg("%s: length %u, want %u (%s)", hex, len, want_len, why);
  if (!strstr(why, part)) fail_msg("%s: '%s' lacks '%s'", hex, why, part);
}

/* ---- worked decodes, field by field -------------------------------------------- */

static void test_worked_fadd(void **state) {
  (void)state;
  agx_instr I;
  decode_ok("2a81546a2500", &I);
  /* [0-5] = 0x2a fadd; [15] = 1: 6 bytes; D [7-14] = 0x02: size32, half 0 */
  assert_int_equal(I.op, AGX_FADD);
  assert_int_equal(I.len, 6);
  assert_true(I.long_form);
  assert_int_equal(I.dst.kind, AGX_K_REG);
  assert_int_equal(I.dst.index, 0);
  assert_int_equal(I.dst.bits, 32);
  /* A [16-27] = 0xa54: half 20 (r10), hint 1, size32, neg */
  assert_int_equal(I.src[0].kind, AGX_K_REG);
  assert_int_equal(I.src[0].index, 20);
  assert_int_equal(I.src[0].bits, 32);
  assert_int_equal(I.src[0].neg, 1);
  assert_int_equal(I.src[0].abs, 0);
  assert_int_equal(I.src[0].hint, AGX_HINT_NONE);
  /* B [28-39] = 0x256: half 22 (r11) */
  assert_int_equal(I.src[1].index, 22);
  assert_int_equal(I.src[1].neg, 0);
  assert_int_equal(I.sat, 0);
  text_is("2a81546a2500", "fadd     r0, r10.neg, r11");
}

static void test_worked_csel(void **state) {
  (void)state;
  agx_instr I;
  decode_ok("12004c5200404010", &I);
  assert_int_equal(I.op, AGX_ICMPSEL);
  assert_int_equal(I.len, 8);
  /* D = 0: r0l, so X and Y are 16-bit */
  assert_int_equal(I.dst.index, 0);
  assert_int_equal(I.dst.bits, 16);
  /* A [16-25] = 0x24c: half 12, 32-bit: r6; B = 0x005: immediate 5 */
  assert_int_equal(I.src[0].index, 12);
  assert_int_equal(I.src[0].bits, 32);
  assert_int_equal(I.src[1].kind, AGX_K_IMM);
  assert_int_equal(I.src[1].value, 5);
  /* X [40-48] = 0x040: register half 0; Y [52-60] = 0x104: immediate 4 */
  assert_int_equal(I.src[2].kind, AGX_K_REG);
  assert_int_equal(I.src[2].index, 0);
  assert_int_equal(I.src[2].bits, 16);
  assert_int_equal(I.src[3].kind, AGX_K_IMM);
  assert_int_equal(I.src[3].value, 4);
  assert_int_equal(I.cond, AGX_IEQ);
  text_is("12004c5200404010", "csel     r0l, r6, 5, r0l, 4, ieq");
}

static void test_worked_load(void **state) {
  (void)state;
  agx_instr I;
  decode_ok("0501000d10c0f200", &I);
  /* L = [47] = 1: 8 bytes; format [7-9] = 2: i32; R half 0, [49] 32-bit,
   * mask [52-55] = 0xf: r0..r3; A = 0 + 16 x 1 = half 16, [27] uniform:
   * du8; O immediate 0, sign-extended; group a */
  assert_int_equal(I.op, AGX_LOAD);
  assert_int_equal(I.len, 8);
  assert_int_equal(I.format, AGX_FMT_I32);
  assert_int_equal(I.mask, 15);
  assert_int_equal(I.dst.index, 0);
  assert_int_equal(I.dst.bits, 32);
  assert_int_equal(I.dst.count, 4);
  assert_int_equal(I.src[1].kind, AGX_K_UNIF);
  assert_int_equal(I.src[1].index, 16);
  assert_int_equal(I.src[1].bits, 64);
  assert_int_equal(I.src[2].kind, AGX_K_IMM);
  assert_int_equal(I.src[2].value, 0);
  assert_int_equal(I.index_zext, 0);
  assert_int_equal(I.group, 0);
  text_is("0501000d10c0f200", "load     r0_r1_r2_r3, du8, 0, i32, xyzw, a");
}

/* Control flow fields: cond 4 bits = [13-15] + [8] (invert), op [9-10], n [11-12]. */
static void test_worked_control(void **state) {
  (void)state;
  agx_instr I;
  decode_ok("520941000000", &I); /* byte 1 = 0x09: invert, if, n = 1 */
  assert_int_equal(I.op, AGX_IF_ICMP);
  assert_int_equal(I.cond, AGX_INE);
  assert_int_equal(I.nest, 1);
  assert_int_equal(I.src[0].index, 1); /* r0h */
  assert_int_equal(I.src[0].bits, 16);
  decode_ok("d21600000000", &I); /* 0xd2: cache; 0x16: op 3 (pop), n = 2 */
  assert_int_equal(I.op, AGX_POP_EXEC);
  assert_int_equal(I.nest, 2);
  assert_int_equal(I.cache, 1);
  decode_ok("00c086fdffff", &I); /* offset 0xfffffd86 = -634 */
  assert_int_equal(I.op, AGX_JMP_ANY);
  assert_int_equal(I.offset, -634);
  decode_ok("420000000000", &I); /* update_exec: if 0.0, 0.0, 0, feq */
  assert_int_equal(I.op, AGX_IF_FCMP);
  assert_int_equal(I.nest, 0);
  assert_int_equal(I.src[0].kind, AGX_K_FIMM);
  text_is("420000000000", "update_exec");
  /* iadd dr2: dalu64 bits 1-2 = 11, register (bits 3-9) x 2 = half 4 */
  decode_ok("0e0b44c334000000", &I);
  assert_int_equal(I.dst.bits, 64);
  assert_int_equal(I.dst.index, 4);
  assert_int_equal(I.src[1].bits, 64);
  assert_int_equal(I.src[1].index, 12);
  /* lsl 4 = [39] | [52-53] << 1 with [52-53] = 2 */
  decode_ok("0e0100c065002000", &I);
  assert_int_equal(I.shift, 4);
  /* imul dr6, r1, 88: B = 24 | ext [56-57] = 1 << 6 */
  decode_ok("1e1b428201000001", &I);
  assert_int_equal(I.op, AGX_IMAD);
  assert_int_equal(I.src[1].value, 88);
  assert_int_equal(I.dst.bits, 64);
}

/* The 8-bit float immediates: sign 7, exponent 6-4, mantissa 3-0; exponent
 * 0 gives m/64, else (16 + m) * 2^(e-7). Values worked out by hand. */
static void test_minifloat(void **state) {
  (void)state;
  static const struct {
    unsigned code;
    double v;
  } t[] = {{0x00, 0.0}, {0x01, 1.0 / 64}, {0x0f, 0.234375}, {0x10, 0.25}, {0x20, 0.5}, {0x30, 1.0},
           {0x40, 2.0}, {0x3f, 1.9375}, {0x7f, 31.0}, {0x19, 0.390625}, {0x87, -0.109375}, {0xb0, -1.0}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if ((double)agx_minifloat(t[i].code) != t[i].v) fail_msg("0x%02x: %g", t[i].code, (double)agx_minifloat(t[i].code));
  assert_true(agx_minifloat(0x80) == 0 && (1.0f / agx_minifloat(0x80)) < 0); /* -0.0 */
  /* every code is printed and read back as itself */
  for (unsigned code = 0; code < 256; code++) {
    uint8_t b[AGX_MAX_BYTES];
    char why[120], text[120];
    agx_instr I;
    memset(&I, 0, sizeof I);
    I.op = AGX_FADD;
    I.dst.kind = AGX_K_REG, I.dst.bits = 32, I.dst.count = 1;
    I.src[0] = I.dst, I.src[0].index = 2;
    I.src[1].kind = AGX_K_FIMM, I.src[1].value = code, I.src[1].count = 1;
    assert_int_equal(agx_encode(&I, b, why, sizeof why), 0);
    agx_print(&I, text, sizeof text);
    gs_isa_binary bin;
    gs_diag d = {0};
    if (agx_asm(text, "t.s", &bin, &d)) fail_msg("'%s': %s", text, d.msg);
    assert_int_equal(bin.size, I.len);
    assert_memory_equal(bin.bytes, b, I.len);
    gs_isa_binary_free(&bin);
  }
}

/* ---- worked and verified encodings, Mesa's text ---------------------------------- */

/* Every encoding the public sources work out or verify for the subset: the
 * instruction examples of Mesa's and applegpu's material for each group
 * (float ALU, funop, moves, integers, select, control flow, memory,
 * varyings, fragment outputs), the monolithic fragment shader (iter,
 * pixwait, st_tile, stop), the vertex prolog (csel, load, wait) and main
 * vertex shader (fmul, ffma, st_var) and the per-sample loop of Mesa's
 * agx_linker.c. The text is Mesa's, written with one space after the
 * mnemonic; a third column "long" marks bytes in a long form the shortest
 * encoding does not need (Mesa writes every iter and ldcf long). */
static const char *const worked[][3] = {
    /* float ALU (the verified encodings of the float group) */
    {"2a8142422400", "fadd r0, r1, r2"},
    {"2a81546a2500", "fadd r0, r10.neg, r11"},
    {"1a9150021800", "fmul r4, r8, u0"},
    {"3a81502225540200", "ffma r0, r8, r9, r10"},
    {"6aad50020002", "fadd r11, r8, -0.0, sat"},
    {"2a9d4a0a0002", "fadd r7, r5.neg, -0.0"},
    {"1a0182f2", "fmul r0, $r1, 0.234375"},
    /* funop */
    {"0a0d4692", "rsqrt r3, r3"},
    {"0a0040c0", "log2 r0l, r0l"},
    {"0a054282", "rcp r1, r1"},
    {"0a8946020100", "ceil r2, r3"},
    /* moves and immediates */
    {"62000000", "ldimm r0l, 0"},
    {"6206003c", "ldimm r1h, 15360"},
    {"62110000803f", "ldimm r4, 1065353216"},
    {"7e05400a8000", "mov r1, r0"},
    {"7e0140088000", "mov r0, r0l"},
    {"7e0190098000", "mov r0, u8"},
    {"72211004", "mov r8, thread_in_grid_x"},
    /* integers */
    {"0e01401600000000", "iadd r0, r0.sx, 1"},
    {"0e0b44c334000000", "iadd dr2, dr2, dr6"},
    {"0e014aa6e4000000", "iadd r0, r5.sx, r5.sx, lsl 1"},
    {"0e154a1200000000", "iadd r5, r5, 1"},
    {"1e1b428201000001", "imul dr6, r1, 88"},
    {"3e810a042400", "u32_to_f r0, r0, rte"},
    {"3e8109802500", "f_to_s32 r0, r12, rtz"},
    /* select: the worked decode, and the prolog's robustness clamp */
    {"12004c5200404010", "csel r0l, r6, 5, r0l, 4, ieq"},
    {"121d84a12400a124", "csel r7, u2, r5, 0, r5, ult"},
    /* control flow */
    {"520841000000", "if r0h, 0, 1, ieq"},
    {"520941000000", "if r0h, 0, 1, ine"},
    {"52284c822400", "if r6, r4, 1, ult"},
    {"42096026e600", "if r16.abs, r17.abs.neg, 1, fneq"},
    {"420000000000", "update_exec"},
    {"421000000000", "if 0.0, 0.0, 2, feq"},
    {"420a00000000", "else 0.0, 0.0, 1, feq"},
    {"520e00000000", "pop_exec 1"},
    {"20c01c010000", "jmp_none 284"},
    {"00c086fdffff", "jmp_any -634"},
    {"8800", "stop"},
    {"0800", "trap"},
    /* memory: the worked decode, the verified loads and stores, the prolog's fetch, wait */
    {"0501000d10c0f200", "load r0_r1_r2_r3, du8, 0, i32, xyzw, a"},
    {"0509480e00c01200", "load r1, du4, r2, i32, x, a"},
    {"4501400e00c43200", "store r0_r1, du0, r2, lsl 1, i32, xy, a"},
    {"0541e00e00c8f200", "load r8_r9_r10_r11, du0, r7, lsl 2, i32, xyzw, a"},
    {"c500a03d08803000", "mov u69, r0"},
    {"3800", "wait a"},
    {"3801", "wait b"},
    /* varyings */
    {"2199014000000000", "iter r6, cf1", "long"},
    {"6180010000000000", "iter r0l_r0h_r1l_r1h, cf1, cf0", "long"},
    {"618101c000000200", "iter r0_r1_r2, cf1, cf0, centroid"},
    {"a181004000000000", "ldcf r0_r1_r2, cf0", "long"},
    {"61110100", "iter r4_r5_r6_r7, cf1, cf0"},
    {"11208080", "st_var r8, 0"},
    {"913c8780", "st_var r15, 7, last"},
    {"11000880", "st_var r0, r4l"},
    {"51000080", "no_var"},
    /* fragment outputs and the tilebuffer */
    {"09010004f0fc0003", "st_tile r0_r1_r2_r3, 0, 255, 0, u8norm, xyzw"},
    {"49000004f8fc0003", "ld_tile r0l_r0h_r1l_r1h, 0, 255, 0, u8norm, xyzw"},
    {"c17f8003", "sample_mask 255, 0"},
    {"c1000100", "sample_mask r0l, r0h"},
    {"417f0423", "zs_emit 255, r2"},
    {"417f0463", "zs_emit 255, r2l_r2h_r3l"},
    {"3111081400622f01", "smpf r4_r5_r6_r7, ts0, ss1, r4, u10l, 2d, xyzw, lod_min, a"},
    /* the monolithic fragment shader: colour by iterproj, ordering, the RT0 store */
    {"6191010000000000", "iter r4_r5_r6_r7, cf1, cf0", "long"},
    {"480c0000", "pixwait 12, 0"},
    {"09110004f0fc0003", "st_tile r4_r5_r6_r7, 0, 255, 0, u8norm, xyzw"},
    /* the main vertex shader: x = M row 0 . attribute 0, the UVS stores */
    {"1a8150021900", "fmul r0, r8, u8"},
    {"3a81528219400200", "ffma r0, r9, u12, r0"},
    {"3a8154021a400200", "ffma r0, r10, u16, r0"},
    {"3a8156821a400200", "ffma r0, r11, u20, r0"},
    {"11008080", "st_var r0, 0"},
    {"11048180", "st_var r1, 1"},
    {"11088280", "st_var r2, 2"},
    {"110c8380", "st_var r3, 3"},
    {"11308480", "st_var r12, 4"},
    /* Mesa's per-sample loop (agx_linker.c), four samples */
    {"62040100", "ldimm r1l, 1"},
    {"0e04002084000000", "iadd r1l, 0, r1l, lsl 1"},
    {"522c42f00000", "while r1l, 15, 1, ult"},
};

/* Mesa's line: the mnemonic left-justified in 8 columns, one space, the
 * operands (a longer mnemonic and one space; no operands: the mnemonic). */
static void mesa_line(const char *text, char *out, size_t size) {
  const char *sp = strchr(text, ' ');
  if (!sp) {
    snprintf(out, size, "%s", text);
    return;
  }
  snprintf(out, size, "%-8.*s %s", (int)(sp - text), text, sp + 1);
}

/* Each line decodes to exactly its Mesa text and assembles to exactly its
 * bytes: from the text, or (long) from the text with ".long", the text
 * alone giving fewer bytes. */
static void test_worked_encodings(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof worked / sizeof worked[0]; i++) {
    const char *hex = worked[i][0], *text = worked[i][1];
    char want[160], lt[200];
    mesa_line(text, want, sizeof want);
    text_is(hex, want);
    if (!worked[i][2]) {
      asm_is(text, hex);
      continue;
    }
    const char *sp = strchr(text, ' ');
    snprintf(lt, sizeof lt, "%.*s.long%s", (int)(sp - text), text, sp);
    asm_is(lt, hex);
    gs_isa_binary bin;
    gs_diag d = {0};
    if (agx_asm(text, "t.s", &bin, &d)) fail_msg("'%s': %s", text, d.msg);
    assert_true(bin.size < strlen(hex) / 2);
    gs_isa_binary_free(&bin);
  }
}

/* ---- the concordance of both disassemblers (Mesa's text) ----------------------- */

static const char *const concordance[][2] = {
    {"0a0d4692", "rsqrt    r3, r3"},
    {"2a81546a2500", "fadd     r0, r10.neg, r11"},
    {"6aad50020002", "fadd     r11, r8, -0.0, sat"},
    {"2a05c2f2", "fadd     r1, ^r1, 0.234375"},
    {"3a914602198c0100", "ffma     r4, r3, u8, u6"},
    {"360c41340430", "hfma     r3l, r0h.neg, r1h, 1.0"},
    {"0e0b44c334000000", "iadd     dr2, dr2, dr6"},
    {"1e0188a558000000", "imul     r0, u4.sx, u5.sx"},
    {"2e0500c024080000", "shl      r1, r6, 8"},
    {"2e81008024020000", "shr      r0, r4, 2"},
    {"7e05400a8000", "mov      r1, r0"},
    {"7e014022a500", "and      r0, r0, r9"},
    {"3e810a042400", "u32_to_f r0, r0, rte"},
    {"02194ce2244ce064", "csel     r6, r6, r7, r6, r7, fltn"},
    {"12824262180101300002", "csel     r0h, r1, u67, 1, 0, ult"},
    {"62000000", "ldimm    r0l, 0"},
    {"620100000040", "ldimm    r0, 1073741824"},
    {"72051004", "mov      r1, thread_in_grid_x"},
    {"520941000000", "if       r0h, 0, 1, ine"},
    {"420a00000000", "else     0.0, 0.0, 1, feq"},
    {"421000000000", "if       0.0, 0.0, 2, feq"},
    {"520e00000000", "pop_exec 1"},
    {"20c01c010000", "jmp_none 284"},
    {"0501000d10c0f200", "load     r0_r1_r2_r3, du8, 0, i32, xyzw, a"},
    {"4501400e00c43200", "store    r0_r1, du0, r2, lsl 1, i32, xy, a"},
    {"11008280", "st_var   r0, 2"},
    {"91008880", "st_var   r0, 8, last"},
    {"2199014000000000", "iter     r6, cf1"},
    {"618101c000000200", "iter     r0_r1_r2, cf1, cf0, centroid"},
    {"a181004000000000", "ldcf     r0_r1_r2, cf0"},
    {"09010004f0fc0003", "st_tile  r0_r1_r2_r3, 0, 255, 0, u8norm, xyzw"},
    {"417f0423", "zs_emit  255, r2"},
    {"c17f8003", "sample_mask 255, 0"},
    {"c500a03d08803000", "mov      u69, r0"},
    {"3111081400622f01", "smpf     r4_r5_r6_r7, ts0, ss1, r4, u10l, 2d, xyzw, lod_min, a"},
};

static void test_concordance(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof concordance / sizeof concordance[0]; i++) text_is(concordance[i][0], concordance[i][1]);
}

/* ---- Mesa's disassembler corpus (a sample) -------------------------------------- */

static const char *const mesa_cases[][2] = {
    {"00c086fdffff", "jmp_any  -634"},
    {"02000000040001e4", "csel     r0l, 0.0, r0l, 0, r0l, fgtn"},
    {"0200400000421024", "csel     r0l, r0l, 0.0, r1l, r0h, flt"},
    {"0200404004404064", "csel     r0l, r0l, r2l, r0l, r2l, fltn"},
    {"0501000d10c0f200", "load     r0_r1_r2_r3, du8, 0, i32, xyzw, a"},
    {"0501000d80c01200", "load     r0, du64, 0, i32, x, a"},
    {"0501480d60c07200", "load     r0_r1_r2, du52, 4, i32, xyz, a"},
    {"09010004f0fc0003", "st_tile  r0_r1_r2_r3, 0, 255, 0, u8norm, xyzw"},
    {"0901000e70fc0003", "st_tile  r0_r1_r2, 0, 255, 0, rg11b10f_rtz, xyz"},
    {"0901000f70fc0003", "st_tile  r0_r1_r2, 0, 255, 0, rgb9e5_rtz, xyz"},
    {"0a0040c0", "log2     r0l, r0l"},
    {"0a0040d0", "exp2     r0l, r0l"},
    {"0a064380", "rcp      r1h, r1h"},
    {"0a084580", "rcp      r2l, r2h"},
    {"0a0a4280", "rcp      r2h, r1l"},
    {"0a0a4590", "rsqrt    r2h, r2h"},
    {"0a0d4692", "rsqrt    r3, r3"},
    {"0a0e4790", "rsqrt    r3h, r3h"},
    {"0e0100c065002000", "iadd     r0, 0, r14.sx, lsl 4"},
    {"0e01401600000000", "iadd     r0, r0.sx, 1"},
    {"0e01402664000000", "iadd     r0, r0.sx, r1.sx"},
    {"11000880", "st_var   r0, r4l"},
    {"11008280", "st_var   r0, 2"},
    {"11040680", "st_var   r1, r3l"},
    {"160081f0", "hmul     r0l, $r0h, 0.234375"},
    {"168040101100", "hmul     r0l, r0l, u8h"},
    {"168040700400", "hmul     r0l, r0l, r3h"},
    {"1a0182f2", "fmul     r0, $r1, 0.234375"},
    {"1a9156222500", "fmul     r4, r11, r9"},
    {"1aa556222500", "fmul     r9, r11, r9"},
    {"1e0188a558000000", "imul     r0, u4.sx, u5.sx"},
    {"1e0542a658440602", "imadd    r1, r1.sx, u69.sx, r2.sx"},
    {"1e09480659440602", "imadd    r2, r4.sx, u72.sx, r2.sx"},
    {"1e0d422664460600", "imadd    r3, r1.sx, r1.sx, r3.sx"},
    {"1e0d466664000000", "imul     r3, r3.sx, r3.sx"},
    {"1e1b428201000001", "imul     dr6, r1, 88"},
    {"20c01c010000", "jmp_none 284"},
    {"20c060010000", "jmp_none 352"},
    {"20c09e000000", "jmp_none 158"},
    {"2199014000000000", "iter     r6, cf1"},
    {"219d004000000000", "iter     r7, cf0"},
    {"2602c1f0", "hadd     r0h, ^r0h, 0.234375"},
    {"268440000300", "hadd     r1l, r0l, 1.0"},
    {"269642100400", "hadd     r5h, r1l, r0h"},
    {"2a05c2f2", "fadd     r1, ^r1, 0.234375"},
    {"2a81546a2500", "fadd     r0, r10.neg, r11"},
    {"2a8441040002", "fadd     r1l, r0h.abs, -0.0"},
    {"2e01001000400200", "shl      r0, 1, r0"},
    {"2e014466241e0000", "extr     r0, r2, r3, 30, 0"},
    {"2e0158a625180000", "extr     r0, r12, r13, 24, 0"},
    {"2e05001000420200", "shl      r1, 1, r1"},
    {"2e0500c024080000", "shl      r1, r6, 8"},
    {"2e055c06241c0000", "extr     r1, r14, r0, 28, 0"},
    {"2e81000024420200", "shr      r0, r0, r1"},
    {"2e81008024020000", "shr      r0, r4, 2"},
    {"2e850040e41b0000", "bfeil    r1, 0, r2, 27, 3"},
    {"2e8500e025040400", "bfeil    r1, 0, r15, 4, 4"},
    {"2e91008064090000", "bfeil    r4, 0, r4, 9, 1"},
    {"2e99008024020000", "shr      r6, r4, 2"},
    {"3111081400622f01", "smpf     r4_r5_r6_r7, ts0, ss1, r4, u10l, 2d, xyzw, lod_min, a"},
    {"360040440441", "hfma     r0l, r0l.neg, r2l, r0h"},
    {"360241300442", "hfma     r0h, r0h, r1h, r1l"},
    {"360245340442", "hfma     r0h, r2h.neg, r1h, r1l"},
    {"3800", "wait     a"},
    {"3801", "wait     b"},
    {"3a81130124540200", "ffma     r0, u9h, r0, r10"},
    {"3a914602198c0100", "ffma     r4, r3, u8, u6"},
    {"3a954622198e0100", "ffma     r5, r3, u9, u7"},
    {"3e0944500400", "intl     r2, r2l, r2h"},
    {"3e29540e0000", "ffs      r10, r10"},
    {"3e800a042400", "u32_to_f r0l, r0, rte"},
    {"3e800b042400", "s32_to_f r0l, r0, rte"},
    {"3e8108000400", "f_to_u32 r0, r0l, rtz"},
    {"3e8108802500", "f_to_u32 r0, r12, rtz"},
    {"3e8109000400", "f_to_s32 r0, r0l, rtz"},
    {"3e8109802500", "f_to_s32 r0, r12, rtz"},
    {"3e810a042400", "u32_to_f r0, r0, rte"},
    {"3e810b042400", "s32_to_f r0, r0, rte"},
    {"3e8508202400", "f_to_u32 r1, r1, rtz"},
    {"3e8509202400", "f_to_s32 r1, r1, rtz"},
    {"3e850a242400", "u32_to_f r1, r1, rte"},
    {"3e850b242400", "s32_to_f r1, r1, rte"},
    {"417f0423", "zs_emit  255, r2"},
    {"420000000000", "update_exec"},
    {"42096026e600", "if       r16.abs, r17.abs.neg, 1, fneq"},
    {"420a00000000", "else     0.0, 0.0, 1, feq"},
    {"421000000000", "if       0.0, 0.0, 2, feq"},
    {"422844801100", "if       r2l, u12l, 1, flt"},
    {"4501040d80c01200", "store    r0, du66, 0, i32, x, a"},
    {"4501400e00c43200", "store    r0_r1, du0, r2, lsl 1, i32, xy, a"},
    {"4501404d80c03200", "store    r0_r1, du64, 4, i32, xy, b"},
    {"4800c200", "pixwait  512, 3"},
    {"48040000", "pixwait  4, 0"},
    {"48080000", "pixwait  8, 0"},
    {"49000004f8fc0003", "ld_tile  r0l_r0h_r1l_r1h, 0, 255, 0, u8norm, xyzw"},
    {"520e00000000", "pop_exec 1"},
    {"6180010000000000", "iter     r0l_r0h_r1l_r1h, cf1, cf0"},
    {"62000000", "ldimm    r0l, 0"},
    {"620100000040", "ldimm    r0, 1073741824"},
    {"62020000", "ldimm    r0h, 0"},
    {"6800", "barrier"},
    {"72001004", "mov      r0l, thread_in_grid_x"},
    {"72021104", "mov      r0h, thread_in_grid_y"},
    {"72050000", "mov      r1, threadgroup_in_grid_x"},
    {"7e014022a500", "and      r0, r0, r9"},
    {"7e01402a2400", "andn2    r0, r0, r1"},
    {"7e0140728000", "and      r0, r0, 7"},
    {"7e0140f28100", "and      r0, r0, 31"},
    {"7e044528c400", "or       r1l, r2h, r1l"},
    {"7e0542064000", "not      r1, r1"},
    {"7e11442ae400", "or       r4, r2, r1"},
    {"8800", "stop"},
    {"a181004000000000", "ldcf     r0_r1_r2, cf0"},
    {"a191014000000000", "ldcf     r4_r5_r6, cf1"},
    {"a191024000000000", "ldcf     r4_r5_r6, cf2"},
    {"c1000100", "sample_mask r0l, r0h"},
    {"c1008000", "sample_mask r0l, 0"},
    {"c1020000", "sample_mask r0h, r0l"},
    {"d21600000000", "pop_exec 2, cache"},
};

/* Every line decodes to Mesa's text and its length; the text assembles to
 * the same bytes, or (where Mesa used a long form the assembler does not
 * need, or a zero-extended memory index the text does not show) to bytes
 * that print the same text. */
static void test_mesa_cases(void **state) {
  (void)state;
  unsigned same_bytes = 0;
  for (size_t i = 0; i < sizeof mesa_cases / sizeof mesa_cases[0]; i++) {
    const char *hex = mesa_cases[i][0], *want = mesa_cases[i][1];
    text_is(hex, want);
    uint8_t b[16] = {0};
    size_t n = unhex(hex, b);
    gs_isa_binary bin;
    gs_diag d = {0};
    if (agx_asm(want, "t.s", &bin, &d)) fail_msg("'%s': %s", want, d.msg);
    if (bin.size == n && !memcmp(bin.bytes, b, n)) {
      same_bytes++;
    } else {
      agx_instr I;
      unsigned len;
      char why[160], got[160];
      if (agx_decode(bin.bytes, bin.size, &I, &len, why, sizeof why) != (int)bin.size) fail_msg("%s: %s", want, why);
      agx_print(&I, got, sizeof got);
      if (strcmp(got, want)) fail_msg("%s: reassembled to '%s'", want, got);
      assert_true(bin.size <= n);
    }
    gs_isa_binary_free(&bin);
  }
  assert_true(same_bytes >= 100);
}

/* ---- refusals --------------------------------------------------------------------- */

static const char *const outside[][2] = {
    {"10c060ffffff", "call     -160"},
    {"10c08affffff", "call     -118"},
    {"1402", "ret      r1"},
    {"1500048d20501400", "atomic   _, r10, du18, 0, add, coherent1, a"},
    {"19918000548000000800", "latomic  r4, r4, 0, add"},
    {"20000600", "jmp_if_skipping_doorbell 6"},
    {"2820", "doorbell 32"},
    {"2981800214000000", "lstore   r0, 0, i32, x"},
    {"31910400c2620f411b008001", "smpf     r4_r5_r6_r7, du54, r1, r0h, r2, 0, 2d, xyzw, auto_lod, gather_g, a"},
    {"3219420000000100", "ballot   r6, r1l, 0, ieq"},
    {"3509000501c03000", "stack_load r1l_r1h, 16, i16, xy, a"},
    {"5501248c10500600", "atomic   _, r3, du10, r1.sx, imin, coherent1, a"},
    {"6985800214000000", "lload    r1, 0, i32, x"},
    {"6f0241104000", "shuffle  r0h, r0h, 1, quad, xor"},
    {"6f8444600000", "simd     r1l, r2l, prefix, and"},
    {"7101040000620f00", "smpi     r0_r1_r2_r3, ts0, ss0, r2, 0, 2d, xyzw, auto_lod, a"},
    {"7540010500c01000", "map      r8, 0, 0"},
    {"b1800080004a00000a00", "imgwblk  r0l, ts0, r0, 0, 2d, u8norm"},
    {"b50081052000", "stack_adjust 8"},
    {"b509000501c03000", "stack_store r1l_r1h, 16, i16, xy, a"},
    {"f151a080054a", "imgw     r20_r21_r22_r23, ts5, r16, 0, 2d"},
    {"f503", "unknown_barrier_2"},
    {"f596", "memory_barrier"},
};

/* Encodings outside the subset decode to their length (the byte count of
 * Mesa's test line) and are refused by name. */
static void test_outside_refused(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++)
    refused(outside[i][0], (unsigned)strlen(outside[i][0]) / 2, "");
  refused("1500048d20501400", 8, "atomic (8 bytes) is outside");
  refused("19918000548000000800", 10, "latomic");
  refused("7101040000620f00", 8, "smpi");
  refused("b509000501c03000", 8, "stack_store");
  refused("6f0241104000", 6, "shuffle");
  refused("2e8d0044e41b0000", 8, "asr"); /* bfeil with [26] set: asr */
}

static void test_unknown_refused(void **state) {
  (void)state;
  refused("2a81546a2540", 6, "unknown bit 46 set in fadd");  /* a bit no fadd field reads */
  refused("520f00000000", 6, "unknown bit 8 set in pop_exec"); /* the invert bit of pop_exec */
  refused("0a00c0f0", 4, "");                                   /* funop op 0x0f: not in the table */
  refused("0300", 0, "unknown opcode 0x03");
  refused("3e8130042400", 6, "convert mode 48");               /* mode 0x30 */
  refused("3e810a0c2400", 6, "rounding mode 3");               /* round [26-27] = 3 */
  refused("2a8154", 6, "truncated");                            /* 6-byte fadd, 3 bytes left */
  refused("7e05422aa400", 6, "truth table");                    /* tt 1010 (mov) with B = r1 */
  refused("0501000d10c00200", 8, "empty mask");
  /* found by comparing with Mesa's disassembler on bit-flipped corpus lines */
  refused("4571401510c11200", 8, "unknown bit 28 set in store"); /* Mesa: unknown bit 28 */
  refused("3111091400622f01", 8, "odd half index 9");             /* Mesa: 32-bit expected */
  refused("3111089400622f01", 8, "query_lod is not modelled");    /* [31] query_lod */
}

/* ---- the assembler ---------------------------------------------------------------- */

static void test_applegpu_spellings(void **state) {
  (void)state;
  asm_is("fadd32 r0, r10.neg, r11", "2a81546a2500");
  asm_is("fadd32.sat r11, r8, -0.0", "6aad50020002");
  asm_is("fadd32 r1, r1.discard, 0.234375", "2a05c2f2");
  asm_is("fmadd32 r4, r3, u8, u6", "3a914602198c0100");
  asm_is("fmadd16 r3l, r0h.neg, r1h, 1.0", "360c41340430");
  asm_is("iadd r2_r3, r2_r3, r6_r7", "0e0b44c334000000");
  asm_is("imadd r0, u4.sx, u5.sx, 0", "1e0188a558000000");
  asm_is("bfi r1, 0, r6, 8", "2e0500c024080000");
  asm_is("bfeil r0, 0, r4, 2", "2e81008024020000");
  asm_is("convert u32_to_f, r0, r0, rte", "3e810a042400");
  asm_is("fcmpsel ltn, r6, r6, r7, r6, r7", "02194ce2244ce064");
  asm_is("icmpsel ult, r0h, r1, u67, 1, 0", "12824262180101300002");
  asm_is("mov_imm r0l, 0", "62000000");
  asm_is("mov_imm r0, 1073741824, 0b0", "620100000040");
  asm_is("get_sr r1, sr80 (thread_position_in_grid.x)", "72051004");
  asm_is("if_icmp r0l, nueq, r0h, 0, 1", "520941000000");
  asm_is("else_fcmp r0l, eq, 0.0, 0.0, 1", "420a00000000");
  asm_is("push_exec r0l, 2", "421000000000");
  asm_is("update_exec r0l", "420000000000");
  asm_is("pop_exec r0l, 1", "520e00000000");
  asm_is("jmp_exec_none 0x11C", "20c01c010000");
  asm_is("device_load 0, i32, xyzw, r0_r1_r2_r3, u8_u9, 0, signed", "0501000d10c0f200");
  asm_is("device_store 0, i32, xy, r0_r1, u0_u1, r2, unsigned, lsl 1, 0", "4501400e00c43200");
  asm_is("st_var 1, r0, 2", "11008280");
  asm_is("st_var_final 1, r0, 8", "91008880");
  asm_is("wait 1", "3801");
  asm_is("threadgroup_barrier", "6800");
  asm_is("TODO.ldcf r0_r1_r2, cf0", "a1010040");
  asm_is("zs_emit 255, r2l_r2h, 0", "417f0423");
  /* the concordance's tile and uniform stores, in applegpu's operand order:
   * st_tile R, F, u0 (bit 35), mask, O (offset), S (samples), C (coordinates);
   * uniform_store 2, i16, mask, 0, R, O (the uniform's half index: 138 = u69) */
  asm_is("st_tile r0_r1_r2_r3, u8norm, 0, xyzw, 0, 255, 0", "09010004f0fc0003");
  asm_is("ld_tile r0l_r0h_r1l_r1h, u8norm, 1, xyzw, 0, 255, 0", "49000004f8fc0003");
  asm_is("uniform_store 2, i16, xy, 0, r0l_r0h, 138", "c500a03d08803000");
  asm_fails("ld_tile r0l_r0h_r1l_r1h, u8norm, 0, xyzw, 0, 255, 0", "t.s:1:1:", "u0 (bit 35) is 1");
  asm_fails("uniform_store 2, i32, xy, 0, r0l_r0h, 138", "t.s:1:1:", "only the form 2, i16");
}

/* The shortest form unless ".long" asks for the long one; labels; several
 * statements. Bytes worked out by hand from the field positions. */
static void test_forms_and_labels(void **state) {
  (void)state;
  /* iter r6, cf1: Mesa's 8-byte form has [15] set; the short form is 4 bytes */
  asm_is("iter r6, cf1", "21190140");
  asm_is("iter.long r6, cf1", "2199014000000000");
  /* fadd with nothing in the extension bytes: 4 bytes; B = 1.0 needs bit 32+ */
  asm_is("fadd r0, $r1, 0.234375", "2a0182f2");
  asm_is("fadd r0, r1, 1.0", "2a8142020300");
  /* a register above r31 needs the extension bits (r32 = half 64: ext 1) */
  asm_is("fadd r32, r1, r2", "2a8142422410");
  /* jumps: offsets from the jump's own address */
  asm_is("top: fadd r0, r1, r2\n jmp_any top", "2a814242240000c0faffffff");
  asm_is("jmp_none end ; stop\nend: stop", "20c0080000008800" "8800");
  asm_is("jmp_none pc+8", "20c008000000");
  asm_is("// a comment\n  stop # another\n", "8800");
  /* zs_emit writing neither depth nor stencil: the sample mask alone (found by fuzzing) */
  text_is("417f0003", "zs_emit  255");
  asm_is("zs_emit 255", "417f0003");
}

static void test_asm_errors(void **state) {
  (void)state;
  asm_fails("fadd r0, r1, 0.3", "t.s:1:14:", "8-bit float");
  asm_fails("stop\nfadd u0, r1, r2", "t.s:2:1:", "must be a register");
  asm_fails("iadd r0, r1, 256", "t.s:1:1:", "does not fit in 8 bits");
  asm_fails("jmp_any nowhere", "t.s:1:1:", "undefined label 'nowhere'");
  asm_fails("  frobnicate r0", "t.s:1:3:", "unknown instruction 'frobnicate'");
  asm_fails("fadd r0, r1", "t.s:1:1:", "missing source");
  asm_fails("fadd r0, r1, r2, r3", "t.s:1:18:", "unexpected operand 'r3'");
  asm_fails("mov r1, r0_r2", "t.s:1:9:", "consecutive");
  asm_fails("fadd r0, r1h.sx, r2", "t.s:1:1:", "sx is an integer source modifier");
  asm_fails("ldimm r0l, 65536", "t.s:1:12:", "out of range");
}

static void test_asm_errors2(void **state) {
  (void)state;
  asm_fails("hadd r0, r1l, r2l", "t.s:1:1:", "16-bit");
  asm_fails("load r0, du128, 0, i32, x, a", "t.s:1:1:", "u0..u127");
  asm_fails("a:\na: stop", "t.s:2:1:", "defined twice");
  asm_fails("st_var r0l, 2", "t.s:1:1:", "32-bit register");
  asm_fails("csel r0, r1, r2, r3, r4", "t.s:1:22:", "condition");
  asm_fails("mov r0, sr66", "t.s:1:1:", "special register 66 has no name"); /* found by fuzzing */
}

/* ---- the registry and listings ------------------------------------------------ */

static void test_registry(void **state) {
  (void)state;
  const gs_isa *isa = gs_isa_by_name("agx");
  assert_non_null(isa);
  assert_ptr_equal(gs_isa_by_id(GS_ISA_AGX), isa);
  assert_string_equal(isa->title, "Apple AGX (G13)");
  assert_int_equal(isa->lanes, 32);
  assert_int_equal(isa->code_align, 2);
  assert_non_null(isa->unit_new); /* the unit: src/isa/agx/unit.c, tests/test_agx_unit.c */
  assert_non_null(isa->run_vertex);
  /* a listing reassembles to the same bytes */
  static const char *hex = "62000000" "520941000000" "2a81546a2500" "1a0182f2" "7e05400a8000" "520e00000000" "8800";
  uint8_t b[64];
  size_t n = unhex(hex, b);
  char *text = NULL;
  gs_diag d = {0};
  assert_int_equal(isa->disassemble(b, n, 0, &text, &d), 0);
  assert_non_null(strstr(text, "if       r0h, 0, 1, ine"));
  gs_isa_binary bin;
  if (isa->assemble(text, "l.s", 0, &bin, &d)) fail_msg("%s", d.msg);
  assert_int_equal(bin.size, n);
  assert_memory_equal(bin.bytes, b, n);
  assert_int_equal(bin.nlines, 7);
  assert_int_equal(bin.lines[2].offset, 10);
  assert_int_equal(bin.lines[2].line, 3);
  gs_isa_binary_free(&bin);
  free(text);
  /* an unknown instruction is refused naming its byte offset */
  uint8_t bad[] = {0x88, 0x00, 0x15, 0x00, 0x04, 0x8d, 0x20, 0x50, 0x14, 0x00};
  assert_int_not_equal(isa->disassemble(bad, sizeof bad, 0, &text, &d), 0);
  assert_non_null(strstr(d.msg, "0x2"));
  assert_non_null(strstr(d.msg, "atomic"));
}

/* Random instructions within the table: whatever decodes prints text that
 * assembles to bytes printing the same text, of no greater length. */
static void test_random_roundtrip(void **state) {
  (void)state;
  uint32_t x = 12345;
  unsigned decoded = 0;
  for (unsigned k = 0; k < 200000; k++) {
    uint8_t b[12];
    for (int i = 0; i < 12; i++) {
      x = x * 1664525u + 1013904223u;
      b[i] = (uint8_t)(x >> 24);
    }
    agx_instr I;
    unsigned len;
    char why[160], text[160], t2[160];
    int r = agx_decode(b, 12, &I, &len, why, sizeof why);
    if (!r) continue;
    decoded++;
    agx_print(&I, text, sizeof text);
    gs_isa_binary bin;
    gs_diag d = {0};
    if (agx_asm(text, "r.s", &bin, &d)) fail_msg("%s: %s", text, d.msg);
    agx_instr J;
    if (agx_decode(bin.bytes, bin.size, &J, &len, why, sizeof why) != (int)bin.size) fail_msg("%s: %s", text, why);
    agx_print(&J, t2, sizeof t2);
    if (strcmp(text, t2)) fail_msg("'%s' reassembled to '%s'", text, t2);
    assert_true(bin.size <= (size_t)r);
    gs_isa_binary_free(&bin);
  }
  assert_true(decoded > 1000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worked_fadd),      cmocka_unit_test(test_worked_csel),
      cmocka_unit_test(test_worked_load),      cmocka_unit_test(test_worked_control),
      cmocka_unit_test(test_minifloat),        cmocka_unit_test(test_concordance),
      cmocka_unit_test(test_mesa_cases),       cmocka_unit_test(test_outside_refused),
      cmocka_unit_test(test_unknown_refused),  cmocka_unit_test(test_applegpu_spellings),
      cmocka_unit_test(test_forms_and_labels), cmocka_unit_test(test_asm_errors),
      cmocka_unit_test(test_asm_errors2),      cmocka_unit_test(test_registry),
      cmocka_unit_test(test_random_roundtrip), cmocka_unit_test(test_worked_encodings),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
