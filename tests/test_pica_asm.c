/* test_pica_asm.c — the PICA200 instruction table, decoder and disassembler
 * against published encodings.
 *
 * The words are those picasso (devkitPro) assembles for the texts beside
 * them, decoded by hand against 3dbrew's "GPU/Shader Instruction Set" field
 * tables; the program is 3ds-examples' graphics/gpu/simple_tri vertex shader
 * as picasso assembles it (8 words, 7 operand descriptors). Field values are
 * worked out from the bit positions 3dbrew and GBATEK give, not from the
 * decoder.
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
#include "isa/pica/pica.h"
#include "isa/pica/table.h"

/* Descriptor 0: write xyzw, every source .xyzw, no negation (bits 0-3 mask
 * 0xF; SRC1 selector 0x1B at bits 5-12; SRC2 at 14-21; SRC3 at 23-30). */
#define OD_ID 0x0D86C36Fu

static void text_of(uint32_t word, const uint32_t *od, size_t nod, const char *want) {
  pica_insn i;
  gs_diag d = {0};
  int rc = pica_decode(word, 0, od, nod, &i, &d);
  if (rc != GS_OK) fail_msg("0x%08x: %s", word, d.msg);
  char buf[128];
  pica_format_insn(&i, buf, sizeof buf);
  if (strcmp(buf, want)) fail_msg("0x%08x: got '%s', want '%s'", word, buf, want);
}

static void refused(uint32_t word, const uint32_t *od, size_t nod, const char *part) {
  pica_insn i;
  gs_diag d = {0};
  assert_int_equal(pica_decode(word, 0x12, od, nod, &i, &d), GS_EINVAL);
  if (!strstr(d.msg, part) || !strstr(d.msg, "0x012")) fail_msg("0x%08x: '%s' lacks '%s' or the pc", word, d.msg, part);
}

/* Every encoding 3dbrew-layout-checked against picasso output. */
static void test_published_encodings(void **state) {
  (void)state;
  const uint32_t od[2] = {OD_ID, 0x0006C368u}; /* 1: write x only */
  text_of(0x84000000u, od, 2, "nop");
  text_of(0x88000000u, od, 2, "end");
  text_of(0xA8000000u, od, 2, "emit");
  text_of(0x80000000u, od, 2, "break");
  text_of(0x4C000000u, od, 2, "mov o0, v0");
  text_of(0x4E0A5000u, od, 2, "mov r0, c5[a0.x]");
  text_of(0x00000080u, od, 2, "add o0, v0, v1");
  text_of(0x08020801u, od, 2, "dp4 o0.x, c0, r0");
  text_of(0x60001180u, od, 2, "dphi o0, v0, c3");
  text_of(0xBAA20880u, od, 2, "cmp c0, lt, ge, r1");
  text_of(0x90000801u, od, 2, "call 0x002, 1");
  text_of(0xA3800C02u, od, 2, "ifc cmp.x, 0x003, 2");
  text_of(0xA4404000u, od, 2, "for i1, 0x010");
  text_of(0xB4C01C01u, od, 2, "jmpu !b3, 0x007");
  text_of(0xAE800000u, od, 2, "setemit 2, prim");
  text_of(0xE0008640u, od, 2, "mad o0, v0, c1, r2");
  text_of(0xC0011440u, od, 2, "madi o0, v0, r1, c2");
  const uint32_t mova[1] = {0x0D86C36Cu}; /* mask x and y */
  text_of(0x48000000u, mova, 1, "mova a0.xy, v0");
}

/* The fields themselves, from the bit positions by hand. */
static void test_fields(void **state) {
  (void)state;
  const uint32_t od[1] = {OD_ID};
  pica_insn i;
  gs_diag d = {0};
  /* mov r0, c5[a0.x]: DST 21-25 = 0x10, IDX 19-20 = 1, SRC1 12-18 = 0x25 */
  assert_int_equal(pica_decode(0x4E0A5000u, 0, od, 1, &i, &d), GS_OK);
  assert_int_equal(i.op, PICA_MOV);
  assert_int_equal(i.fmt, PICA_F1U);
  assert_int_equal(i.dst, 0x10);
  assert_int_equal(i.src[0].reg, 0x25);
  assert_int_equal(i.src[0].idx, PICA_IDX_A0X);
  assert_int_equal(i.mask, 0xF);
  assert_int_equal(i.src[0].swz, 0x1B);
  /* cmp c0, lt, ge, r1: 5-bit opcode 0x17, CMPX 24-26 = 2, CMPY 21-23 = 5 */
  assert_int_equal(pica_decode(0xBAA20880u, 0, od, 1, &i, &d), GS_OK);
  assert_int_equal(i.op, PICA_CMP);
  assert_int_equal(i.cmpx, PICA_CMP_LT);
  assert_int_equal(i.cmpy, PICA_CMP_GE);
  assert_int_equal(i.src[0].reg, 0x20);
  assert_int_equal(i.src[1].reg, 0x11);
  /* ifc: REFX 25, REFY 24 both 1, CONDOP 22-23 = 2 (x alone), DST 10-21 = 3, NUM 0-7 = 2 */
  assert_int_equal(pica_decode(0xA3800C02u, 0, od, 0, &i, &d), GS_OK);
  assert_int_equal(i.op, PICA_IFC);
  assert_int_equal(i.refx, 1);
  assert_int_equal(i.refy, 1);
  assert_int_equal(i.condop, PICA_COND_X);
  assert_int_equal(i.target, 3);
  assert_int_equal(i.num, 2);
  /* jmpu !b3, 0x7: UID 22-25 = 3, DST 7, NUM 1 */
  assert_int_equal(pica_decode(0xB4C01C01u, 0, od, 0, &i, &d), GS_OK);
  assert_int_equal(i.uid, 3);
  assert_int_equal(i.target, 7);
  assert_int_equal(i.num, 1);
  /* setemit 2, prim: VTXID 24-25 = 2, PRIMEMIT 23, WINDING 22 = 0 */
  assert_int_equal(pica_decode(0xAE800000u, 0, od, 0, &i, &d), GS_OK);
  assert_int_equal(i.vtxid, 2);
  assert_int_equal(i.prim, 1);
  assert_int_equal(i.winding, 0);
  /* madi o0, v0, r1, c2: 3-bit opcode 6, SRC1 17-21 = 0, SRC2 12-16 = 0x11, SRC3 5-11 = 0x22 */
  assert_int_equal(pica_decode(0xC0011440u, 0, od, 1, &i, &d), GS_OK);
  assert_int_equal(i.op, PICA_MADI);
  assert_int_equal(i.wide, 3);
  assert_int_equal(i.src[0].reg, 0x00);
  assert_int_equal(i.src[1].reg, 0x11);
  assert_int_equal(i.src[2].reg, 0x22);
  /* every MAD opcode 0x38-0x3F is MAD, every 0x30-0x37 MADI, 0x2E and 0x2F CMP */
  assert_int_equal(pica_decode(0xFC008640u, 0, od, 1, &i, &d), GS_OK);
  assert_int_equal(i.op, PICA_MAD);
  assert_int_equal(pica_decode(0xDC011440u, 0, od, 1, &i, &d), GS_OK);
  assert_int_equal(i.op, PICA_MADI);
  assert_int_equal(pica_decode(0xBC000000u, 0, od, 1, &i, &d), GS_OK);
  assert_int_equal(i.op, PICA_CMP);
}

/* Relative addressing lands on the one wide source of each format. */
static void test_relative(void **state) {
  (void)state;
  const uint32_t od[1] = {OD_ID};
  text_of(0x60001180u | 3u << 19, od, 1, "dphi o0, v0, c3[aL]");   /* 1i: SRC2 */
  text_of(0xE0008640u | 2u << 22, od, 1, "mad o0, v0, c1[a0.y], r2"); /* 5: SRC2 */
  text_of(0xC0011440u | 1u << 22, od, 1, "madi o0, v0, r1, c2[a0.x]"); /* 5i: SRC3 */
  text_of(0x08020801u & ~0x7Fu, od, 1, "dp4 o0, c0, r0");
  text_of(0x08000800u | 0x7Fu << 12 | 1u << 19, od, 1, "dp4 o0, c95[a0.x], r0"); /* SRC1 0x7F, IDX 1 */
}

/* Operand descriptors: masks, selectors and negation per source. */
static void test_opdesc(void **state) {
  (void)state;
  /* mask 0xF; SRC1 negate (bit 4) and .wzyx (0xE4 << 5); SRC2 .xyzw */
  const uint32_t a[1] = {0xFu | 1u << 4 | 0xE4u << 5 | 0x1Bu << 14};
  text_of(0x00000080u, a, 1, "add o0, -v0.wzyx, v1");
  /* mask y|w (0x5); SRC1 .yyyy (0x55); SRC2 negated (bit 13) .xyyy (0x15) */
  const uint32_t b[1] = {0x5u | 0x55u << 5 | 1u << 13 | 0x15u << 14};
  text_of(0x00000080u, b, 1, "add o0.yw, v0.y, -v1.xy");
  /* SRC3 negated (bit 22), .zzzz (0xAA << 23) */
  const uint32_t c[1] = {0xFu | 0x1Bu << 5 | 0x1Bu << 14 | 1u << 22 | 0xAAu << 23};
  text_of(0xE0008640u, c, 1, "mad o0, v0, c1, -r2.z");
  /* bit 31 has no known meaning: ignored */
  const uint32_t e[1] = {OD_ID | 0x80000000u};
  text_of(0x4C000000u, e, 1, "mov o0, v0");
}

/* 3ds-examples simple_tri.v.pica as picasso assembles it: 8 words, 7
 * operand descriptors. */
static const uint32_t tri_code[8] = {0x4E000000u, 0x4E07F001u, 0x08020802u, 0x08021803u,
                                     0x08022804u, 0x08023805u, 0x4C201006u, 0x88000000u};
static const uint32_t tri_od[7] = {0x0000036Eu, 0x00000AA1u, 0x0006C368u, 0x0006C364u,
                                   0x0006C362u, 0x0006C361u, 0x0000036Fu};

static void test_simple_tri(void **state) {
  (void)state;
  char *text;
  gs_diag d = {0};
  assert_int_equal(pica_disasm(tri_code, 8, tri_od, 7, &text, &d), GS_OK);
  const char *want[8] = {"mov r0.xyz, v0", "mov r0.w, c95.y", "dp4 o0.x, c0, r0", "dp4 o0.y, c1, r0",
                         "dp4 o0.z, c2, r0", "dp4 o0.w, c3, r0", "mov o1, v1", "end"};
  const char *p = text;
  for (int k = 0; k < 8; k++) {
    char tail[32];
    snprintf(tail, sizeof tail, "; %03x: %08x\n", k, tri_code[k]);
    const char *e = strchr(p, '\n');
    assert_non_null(e);
    if (strncmp(p, "    ", 4) || strncmp(p + 4, want[k], strlen(want[k])) || !strstr(p, tail) || strstr(p, tail) > e)
      fail_msg("line %d: '%.*s' want '%s' %s", k, (int)(e - p), p, want[k], tail);
    p = e + 1;
  }
  assert_int_equal(*p, 0);
  free(text);
}

static void test_refusals(void **state) {
  (void)state;
  const uint32_t od[1] = {OD_ID};
  for (unsigned op = 0; op < 64; op++) {
    int unknown = op == 0x10 || op == 0x11 || (op >= 0x14 && op <= 0x17) || (op >= 0x1C && op <= 0x1F);
    assert_int_equal(pica_op_name(op) == NULL, unknown);
    if (unknown) refused(op << 26, od, 1, "unknown");
  }
  refused(0xB8000000u | 6u << 24, od, 1, "reserved");    /* CMPX 6 */
  refused(0xB8000000u | 7u << 21, od, 1, "reserved");    /* CMPY 7 */
  refused(0x84000001u, od, 1, "no field");               /* nop with a stray bit */
  refused(0x4C000080u, od, 1, "no field");               /* mov with bits in the SRC2 slot */
  refused(0x48200000u, od, 1, "no field");               /* mova with a DST */
  refused(0x90000101u, od, 1, "no field");               /* call with bit 8 */
  refused(0xA5000000u, od, 1, "i0-i3");                  /* for i4 */
  refused(0xAF000000u, od, 1, "slots 0-2");              /* setemit 3 */
  refused(0x92000801u, od, 1, "condition bits");         /* call with REFX */
  refused(0xB4C01C02u, od, 1, "inversion");              /* jmpu NUM 2 */
  refused(0xB0000001u, od, 1, "NUM");                    /* jmpc with NUM */
  refused(0x00000081u, od, 1, "past the table");         /* desc 1 of 1 */
  char *text;
  gs_diag d = {0};
  const uint32_t none[1] = {0x0006C360u};
  const uint32_t add[1] = {0x00000080u};
  assert_int_equal(pica_disasm(add, 1, none, 1, &text, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "writes no component"));
  assert_null(text);
}

/* ---- SHBIN ---------------------------------------------------------------------- */

static void le32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> 8 * k);
}
static void le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }

/* simple_tri's SHBIN laid out by hand from 3dbrew's "SHBIN" tables
 * (0x118 bytes): DVLB with one DVLE at 0x8C; DVLP at 0x0C (program at +0x28,
 * 8 words; descriptors at +0x48, 7 entries of 8 bytes); DVLE header 0x40
 * bytes, then 2 constants (20 bytes each), 2 outputs, 1 uniform, symbols. */
static size_t simple_tri_shbin(uint8_t *f) {
  memset(f, 0, 0x118);
  memcpy(f, "DVLB", 4), le32(f + 4, 1), le32(f + 8, 0x8C);
  uint8_t *p = f + 0x0C;
  memcpy(p, "DVLP", 4);
  le32(p + 0x08, 0x28), le32(p + 0x0C, 8), le32(p + 0x10, 0x48), le32(p + 0x14, 7);
  le32(p + 0x20, 0x80), le32(p + 0x24, 0);
  for (int k = 0; k < 8; k++) le32(p + 0x28 + 4 * k, tri_code[k]);
  for (int k = 0; k < 7; k++) le32(p + 0x48 + 8 * k, tri_od[k]), le32(p + 0x4C + 8 * k, 0xF); /* 2nd word: unknown */
  uint8_t *e = f + 0x8C;
  memcpy(e, "DVLE", 4), le16(e + 4, 0x1002), e[6] = 0;
  le32(e + 0x08, 0), le32(e + 0x0C, 8), le16(e + 0x10, 0x0003), le16(e + 0x12, 0x0003);
  le32(e + 0x18, 0x40), le32(e + 0x1C, 2);       /* constants at 0xCC */
  le32(e + 0x20, 0x68), le32(e + 0x24, 0);       /* no labels */
  le32(e + 0x28, 0x68), le32(e + 0x2C, 2);       /* outputs at 0xF4 */
  le32(e + 0x30, 0x78), le32(e + 0x34, 1);       /* uniform at 0x104 */
  le32(e + 0x38, 0x80), le32(e + 0x3C, 11);      /* symbols at 0x10C */
  uint8_t *c = e + 0x40; /* vec4 c95 = (0, 1, -1, 0.1); vec4 c94 = (0.3, 0, 0, 0) in float24 */
  c[0] = 2, c[2] = 95, le32(c + 4, 0x000000), le32(c + 8, 0x3F0000), le32(c + 12, 0xBF0000), le32(c + 16, 0x3B9999);
  c += 20;
  c[0] = 2, c[2] = 94, le32(c + 4, 0x3D3333);
  uint8_t *o = e + 0x68;
  le16(o, 0), le16(o + 2, 0), le16(o + 4, 0xF);     /* position -> o0 */
  le16(o + 8, 2), le16(o + 10, 1), le16(o + 12, 0xF); /* color -> o1 */
  uint8_t *u = e + 0x78;
  le32(u, 0), le16(u + 4, 0x10), le16(u + 6, 0x13);  /* "projection" = c0-c3 */
  memcpy(e + 0x80, "projection", 11);
  return 0x118;
}

static void test_shbin(void **state) {
  (void)state;
  uint8_t f[0x118];
  size_t n = simple_tri_shbin(f);
  pica_shbin s;
  gs_diag d = {0};
  if (pica_shbin_read(f, n, &s, &d) != GS_OK) fail_msg("%s", d.msg);
  assert_int_equal(s.ncode, 8);
  assert_int_equal(s.code[1], 0x4E07F001u);
  assert_int_equal(s.nopdesc, 7);
  assert_int_equal(s.opdesc[1], 0x00000AA1u);
  assert_int_equal(s.opdesc[6], 0x0000036Fu);
  assert_int_equal(s.ndvle, 1);
  const pica_dvle *e = &s.dvle[0];
  assert_int_equal(e->type, 0);
  assert_int_equal(e->main, 0);
  assert_int_equal(e->end, 8);
  assert_int_equal(e->out_mask, 3);
  assert_int_equal(e->nconsts, 2);
  assert_int_equal(e->consts[0].type, 2);
  assert_int_equal(e->consts[0].reg, 95);
  assert_int_equal(e->consts[0].v[2], 0xBF0000u);
  assert_int_equal(e->consts[1].reg, 94);
  assert_int_equal(e->consts[1].v[0], 0x3D3333u);
  assert_int_equal(e->noutputs, 2);
  assert_int_equal(e->outputs[1].type, 2);
  assert_int_equal(e->outputs[1].reg, 1);
  assert_int_equal(e->outputs[1].mask, 0xF);
  assert_int_equal(e->nuniforms, 1);
  assert_string_equal(e->uniforms[0].name, "projection");
  assert_int_equal(e->uniforms[0].first, 0x10);
  assert_int_equal(e->uniforms[0].last, 0x13);
  pica_shbin_free(&s);

  /* refusals, each naming the byte offset */
  uint8_t g[0x118];
  memcpy(g, f, n), g[0x0C] = 'X';
  assert_int_equal(pica_shbin_read(g, n, &s, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "0xc: expected \"DVLP\""));
  assert_int_equal(pica_shbin_read(f, 0x100, &s, &d), GS_EINVAL); /* symbols cut off */
  assert_non_null(strstr(d.msg, "symbol table"));
  memcpy(g, f, n), le32(g + 0x0C + 0x0C, 0x40); /* 64 program words do not fit */
  assert_int_equal(pica_shbin_read(g, n, &s, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "0x14: the program"));
  memcpy(g, f, n), le32(g + 0x8C + 0x0C, 9); /* end past the program */
  assert_int_equal(pica_shbin_read(g, n, &s, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "0x94:"));
  memcpy(g, f, n); /* name without its NUL */
  g[0x10C + 10] = 'x';
  assert_int_equal(pica_shbin_read(g, n, &s, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "uniform name"));
  memcpy(g, f, n), g[0xCC + 2] = 96; /* c96 */
  assert_int_equal(pica_shbin_read(g, n, &s, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "0xcc: constant"));
  assert_int_equal(pica_shbin_read(f, 3, &s, &d), GS_EINVAL);
}

/* The registry's "pica": SHBIN files disassemble; there is no assembler yet. */
static void test_registry(void **state) {
  (void)state;
  const gs_isa *isa = gs_isa_by_name("pica");
  assert_non_null(isa);
  assert_ptr_equal(gs_isa_by_id(GS_ISA_PICA), isa);
  assert_non_null(isa->run_vertex); /* the pipeline unit, src/isa/pica/unit.c */
  uint8_t f[0x118];
  size_t n = simple_tri_shbin(f);
  char *text;
  gs_diag d = {0};
  if (isa->disassemble(f, n, 0, &text, &d) != GS_OK) fail_msg("%s", d.msg);
  const char *want[] = {"; dvle 0: vertex shader, main 0x000, end 0x008, inputs 0x0003, outputs 0x0003\n",
                        ";   .out o0 position.xyzw\n", ";   .out o1 color.xyzw\n",
                        ";   c95 = float24 (0x000000, 0x3f0000, 0xbf0000, 0x3b9999)\n",
                        ";   uniform projection 0x10-0x13\n", "    mov r0.w, c95.y ", "    end "};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    if (!strstr(text, want[k])) fail_msg("no '%s' in:\n%s", want[k], text);
  free(text);
  f[0] = 'X';
  assert_int_equal(isa->disassemble(f, n, 0, &text, &d), GS_EINVAL);
  assert_null(text);
}

/* ---- the assembler ------------------------------------------------------------------ */

/* Assembles src through the registry and reads the SHBIN back. */
static void asm_shbin(const char *src, pica_shbin *s) {
  gs_isa_binary b;
  gs_diag d = {0};
  if (gs_isa_by_name("pica")->assemble(src, "t.pica", 0, &b, &d) != GS_OK) fail_msg("%s", d.msg);
  if (pica_shbin_read(b.bytes, b.size, s, &d) != GS_OK) fail_msg("%s", d.msg);
  assert_int_equal(b.nlines, s->ncode);
  gs_isa_binary_free(&b);
}

static uint32_t asm_word(const char *src) {
  pica_shbin s;
  asm_shbin(src, &s);
  assert_int_equal(s.ncode, 1);
  uint32_t w = s.code[0];
  pica_shbin_free(&s);
  return w;
}

/* The published words come out of their texts (each alone: descriptor 0). */
static void test_asm_published(void **state) {
  (void)state;
  static const struct { const char *text; uint32_t word; } t[] = {
      {"nop", 0x84000000u}, {"end", 0x88000000u}, {"emit", 0xA8000000u}, {"break", 0x80000000u},
      {"mov o0, v0", 0x4C000000u}, {"mov r0, c5[a0.x]", 0x4E0A5000u}, {"add o0, v0, v1", 0x00000080u},
      {"dphi o0, v0, c3", 0x60001180u}, {"dph o0, v0, c3", 0x60001180u}, /* picasso picks the I form */
      {"cmp c0, lt, ge, r1", 0xBAA20880u}, {"call 0x002, 1", 0x90000801u}, {"ifc cmp.x, 3, 2", 0xA3800C02u},
      {"for i1, 0x10", 0xA4404000u}, {"jmpu !b3, 7", 0xB4C01C01u}, {"setemit 2, prim", 0xAE800000u},
      {"mad o0, v0, c1, r2", 0xE0008640u}, {"madi o0, v0, r1, c2", 0xC0011440u},
      {"mad o0, v0, r1, c2", 0xC0011440u}, /* a wide SRC3 makes it madi */
      {"mova a0.xy, v0", 0x48000000u}, {"MOV O0, V0 ; comment", 0x4C000000u},
  };
  for (size_t k = 0; k < sizeof t / sizeof *t; k++) {
    uint32_t w = asm_word(t[k].text);
    if (w != t[k].word) fail_msg("'%s': 0x%08x, want 0x%08x", t[k].text, w, t[k].word);
  }
  pica_shbin s;
  asm_shbin("mova a0.xy, v0", &s);
  assert_int_equal(s.opdesc[0] & 0xF, 0xC); /* mask x and y */
  pica_shbin_free(&s);
  asm_shbin("add o0.yw, -v0.wzyx, v1.y", &s); /* mask 0x5, SRC1 negate + 0xE4, SRC2 0x55 */
  assert_int_equal(s.opdesc[0] & 0x3FFFFF, 0x5u | 1u << 4 | 0xE4u << 5 | 0x55u << 14);
  pica_shbin_free(&s);
}

/* simple_tri in this syntax gives picasso's 8 words; its descriptors agree
 * with picasso's on every bit the instructions read (mask, SRC1; SRC2 for dp4). */
static void test_asm_simple_tri(void **state) {
  (void)state;
  pica_shbin s;
  asm_shbin("; simple_tri\nmain:\n    mov r0.xyz, v0\n    mov r0.w, c95.yyyy\n"
            "    dp4 o0.x, c0, r0\n    dp4 o0.y, c1, r0\n    dp4 o0.z, c2, r0\n    dp4 o0.w, c3, r0\n"
            "    mov o1, v1\n    end\n", &s);
  assert_int_equal(s.ncode, 8);
  assert_int_equal(s.nopdesc, 7);
  for (int k = 0; k < 8; k++) assert_int_equal(s.code[k], tri_code[k]);
  for (int k = 0; k < 7; k++) {
    uint32_t care = k >= 2 && k <= 5 ? 0x3FFFFFu : 0x1FFFu;
    assert_int_equal(s.opdesc[k] & care, tri_od[k] & care);
  }
  pica_shbin_free(&s);
}

/* Text -> SHBIN -> text -> the same SHBIN, with labels, every format, mad
 * descriptors placed first. */
static void test_asm_round_trip(void **state) {
  (void)state;
  const char *src = "start:\n  mov r1.xy, -c10[aL].wzyx\n  cmp r1, eq, ne, v2\n"
                    "  ifc cmp.x && !cmp.y, else, 1\n  add o0.w, c3[a0.y], -r1.z\n"
                    "else: sgei r2, v1, c7\n  callc !cmp.x || cmp.y, sub, 2\n  callu b15, sub, 2\n"
                    "  ifu b2, 0x00a, 0\n  jmpc !cmp.y, start\n  jmpu b0, start\n  for i3, sub\n"
                    "  breakc cmp.x\n  setemit 1, prim inv\n  setemit 0\n  emit\n"
                    "sub: madi r3, v0, -r1.x, c4[a0.x].zw\n  mad o2.xz, r0, c9, v3\n"
                    "  ex2 r4, c1.w\n  litp r5, r6\n  mova a0.y, c1\n  slt r7, c2, r0\n  end\n";
  pica_shbin s;
  gs_isa_binary b, b2;
  gs_diag d = {0};
  const gs_isa *isa = gs_isa_by_name("pica");
  if (isa->assemble(src, "rt.pica", 0, &b, &d) != GS_OK) fail_msg("%s", d.msg);
  assert_int_equal(pica_shbin_read(b.bytes, b.size, &s, &d), GS_OK);
  assert_int_equal(s.ncode, 22);
  assert_true((s.code[15] & 0x1F) < 2 && (s.code[16] & 0x1F) < 2); /* the two mad descriptors: 0 and 1 */
  assert_int_equal(s.code[2] >> 26, 0x28);           /* ifc */
  assert_int_equal((s.code[2] >> 10) & 0xFFF, 4);    /* else: word 4 */
  assert_int_equal((s.code[2] >> 22) & 3, 1);        /* && */
  assert_int_equal((s.code[2] >> 24) & 3, 2);        /* REFX 1, REFY 0 */
  assert_int_equal((s.code[10] >> 10) & 0xFFF, 15);  /* for i3, sub */
  assert_int_equal(b.lines[4].line, 6);              /* "else:" line's instruction */
  pica_shbin_free(&s);
  char *text;
  if (isa->disassemble(b.bytes, b.size, 0, &text, &d) != GS_OK) fail_msg("%s", d.msg);
  assert_non_null(strstr(text, "    madi r3, v0, -r1.x, c4[a0.x].zw "));
  assert_non_null(strstr(text, "    ifc cmp.x && !cmp.y, 0x004, 1 "));
  if (isa->assemble(text, "rt2.pica", 0, &b2, &d) != GS_OK) fail_msg("%s\n%s", d.msg, text);
  assert_int_equal(b2.size, b.size);
  assert_memory_equal(b2.bytes, b.bytes, b.size);
  free(text);
  gs_isa_binary_free(&b);
  gs_isa_binary_free(&b2);
}

static void asm_fails(const char *src, const char *part) {
  gs_isa_binary b;
  gs_diag d = {0};
  assert_int_equal(gs_isa_by_name("pica")->assemble(src, "e.pica", 0, &b, &d), GS_EASM);
  if (!strstr(d.msg, part)) fail_msg("'%s': '%s' lacks '%s'", src, d.msg, part);
}

static void test_asm_errors(void **state) {
  (void)state;
  asm_fails("nop\n  frob o0, v0", "e.pica:2:3: unknown instruction 'frob'");
  asm_fails("add o0, v0, c1", "e.pica:1:1: add: source 2 ('c1') must be v0-v15 or r0-r15");
  asm_fails("mov o0, c96", "no such register");
  asm_fails("mov v0, v1", "not a destination");
  asm_fails("mov o0.yx, v1", "xyzw order");
  asm_fails("mov o0, v1[a1]", "[a0.x], [a0.y] or [aL]");
  asm_fails("jmpc cmp.x, nowhere", "undefined label 'nowhere'");
  asm_fails("a:\na: nop", "e.pica:2:1: label 'a' defined twice");
  asm_fails("for i4, 0", "i0-i3");
  asm_fails("cmp c0, lt, xx, r1", "not 'xx'");
  asm_fails("ifc cmp.x && cmp.x, 0, 0", "not a condition");
  asm_fails("mova a1, v0", "a0.x, a0.y or a0.xy");
  asm_fails("add o0, v0", "add takes 3 operand(s), not 2");
  asm_fails("; nothing", "no instructions");
  asm_fails("setemit 3", "0-2");
}

/* Random words that decode: their text assembles back to the same word (DESC
 * 0, the REF bit a single-flag condition does not print set) and to a
 * descriptor equal on every bit the text shows. */
static void test_random_round_trip(void **state) {
  (void)state;
  uint64_t x = 0x9E3779B97F4A7C15ull;
  unsigned tried = 0;
  const gs_isa *isa = gs_isa_by_name("pica");
  for (int n = 0; n < 4000; n++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t w = (uint32_t)(x >> 32), od[1] = {(uint32_t)x};
    pica_insn i;
    gs_diag d = {0};
    if (pica_ops[w >> 26].fmt == PICA_F0) w &= 0xFC000000u; /* else refused: unused bits */
    if (pica_ops[w >> 26].fmt == PICA_F4) w &= 0xFFC00000u;
    if (pica_ops[w >> 26].fmt == PICA_F2 || pica_ops[w >> 26].fmt == PICA_F3) w &= ~0x300u;
    if (pica_ops[w >> 26].fmt == PICA_F1U) w &= (w >> 26) == PICA_MOVA ? ~0x03E00F80u : ~0xF80u;
    unsigned f = pica_ops[w >> 26].fmt; /* DESC 0: the one descriptor */
    w = f == PICA_F5 || f == PICA_F5I ? w & ~0x1Fu : f == PICA_F1 || f == PICA_F1I || f == PICA_F1U || f == PICA_F1C ? w & ~0x7Fu : w;
    if (pica_decode(w, 0, od, 1, &i, &d) != GS_OK) continue;
    char text[160];
    pica_format_insn(&i, text, sizeof text);
    if (i.nsrc && (i.op == PICA_MOVA ? !(i.mask & 0xC) : i.op != PICA_CMP && !i.mask)) continue;
    uint32_t want = w;
    if (i.fmt == PICA_F2 && i.condop == PICA_COND_X) want |= 1u << 24;
    if (i.fmt == PICA_F2 && i.condop == PICA_COND_Y) want |= 1u << 25;
    gs_isa_binary b;
    if (isa->assemble(text, "r.pica", 0, &b, &d) != GS_OK) fail_msg("0x%08x '%s': %s", w, text, d.msg);
    pica_shbin s;
    assert_int_equal(pica_shbin_read(b.bytes, b.size, &s, &d), GS_OK);
    if (s.code[0] != want) fail_msg("'%s': 0x%08x, want 0x%08x", text, s.code[0], want);
    uint32_t care = i.op == PICA_MOVA ? 0xCu : i.op == PICA_CMP ? 0u : 0xFu;
    for (unsigned k = 0; k < i.nsrc; k++) care |= (k == 0 ? 0x1FF0u : k == 1 ? 0x3FE000u : 0x7FC00000u);
    if (i.nsrc && (s.opdesc[0] & care) != (od[0] & care))
      fail_msg("'%s': descriptor 0x%08x, want 0x%08x on 0x%08x", text, s.opdesc[0], od[0], care);
    pica_shbin_free(&s);
    gs_isa_binary_free(&b);
    tried++;
  }
  if (tried < 2000) fail_msg("only %u of 4000 words decoded", tried);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_published_encodings), cmocka_unit_test(test_fields),
      cmocka_unit_test(test_relative),            cmocka_unit_test(test_opdesc),
      cmocka_unit_test(test_simple_tri),          cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_shbin),                cmocka_unit_test(test_registry),
      cmocka_unit_test(test_asm_published),      cmocka_unit_test(test_asm_simple_tri),
      cmocka_unit_test(test_asm_round_trip),     cmocka_unit_test(test_asm_errors),
      cmocka_unit_test(test_random_round_trip),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
