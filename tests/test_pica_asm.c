/* test_pica_asm.c — the PICA200 instruction table, decoder, disassembler,
 * SHBIN reader and writer, and the assembler of picasso's syntax, against
 * published encodings and values worked out by hand.
 *
 * The words are those picasso (devkitPro) assembles for the texts beside
 * them, decoded by hand against 3dbrew's "GPU/Shader Instruction Set" field
 * tables; the program is 3ds-examples' graphics/gpu/simple_tri vertex shader
 * as picasso assembles it (8 words, 7 operand descriptors). Field values are
 * worked out from the bit positions 3dbrew and GBATEK give, not from the
 * decoder. The picasso-syntax tests (test_picasso_*) work out words,
 * descriptors and tables by hand from picasso's documented rules; where a
 * comment says so, picasso 2.7.1 was also run on the same text (outside the
 * tree) and gave the same bytes.
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

/* The registry's "pica": SHBIN files disassemble into directives and the program. */
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
  /* directives that give the tables back; the hand-laid file's input mask
   * (0x0003) has no .in behind it, which a comment says */
  const char *want[] = {".fvec projection[4]  ; c0\n", ".setf c95(0, 1, -1, 0.1)\n", ".setf c94(0.3, 0, 0, 0)\n",
                        ".out - position o0.xyzw\n", ".out - color o1.xyzw\n",
                        "; the DVLE's input mask 0x0003 is not its .in registers' (0x0000)\n", "    mov r0.w, c95.y ",
                        "    end "};
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
      {"CMP C0, LT, GE, R1", 0xBAA20880u}, {"IFC CMP.X, 3, 2", 0xA3800C02u}, /* keywords in any case */
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
  assert_true((s.code[15] & 0x1F) < 32 && (s.code[16] & 0x1F) < 32); /* mad descriptors: 0-31 */
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
  asm_fails("add o0, v0, c1", "e.pica:1:13: add: source 2 ('c1') must be v0-v15 or r0-r15");
  asm_fails("mov o0, c96", "no such register");
  asm_fails("mov v0, v1", "not a destination");
  asm_fails("mov o0.yx, v1", "xyzw order");
  asm_fails("mov o0, c1[a3]", "e.pica:1:12: 'a3': the offset is a0.x, a0.y, aL, aL+k or a number 0-95");
  asm_fails("jmpc cmp.x, nowhere", "undefined label 'nowhere'");
  asm_fails("a:\na: nop", "e.pica:2:1: label 'a' is defined twice");
  asm_fails("for i4, 0", "i0-i3");
  asm_fails("cmp c0, lt, xx, r1", "not 'xx'");
  asm_fails("ifc cmp.x && cmp.x, 0, 0", "tests cmp.x twice");
  asm_fails("ifc cmp.z, 0, 0", "e.pica:1:5: 'cmp.z' is not a condition");
  asm_fails("mova a2, v0", "a0.x, a0.y or a0.xy");
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


/* ---- picasso syntax ------------------------------------------------------------------ */

static void asm_files(const char *src, unsigned flags, gs_isa_binary *b, pica_shbin *s) {
  gs_diag d = {0};
  pica_asm_src in = {src, "p.pica"};
  if (pica_asm_files(&in, 1, flags, b, &d) != GS_OK) fail_msg("%s", d.msg);
  if (pica_shbin_read(b->bytes, b->size, s, &d) != GS_OK) fail_msg("%s", d.msg);
}

/* A shader written for this test with the program of 3ds-examples'
 * simple_tri (uniform matrix, two constants, position and colour out):
 * picasso's bytes are the hand-laid SHBIN above with the fields picasso
 * writes its own way (DVLP +0x18 = the DVLP's size 0x80, +0x20 = 0, the
 * descriptors' second words 0, the DVLE's input mask 0), its descriptors exactly tri_od (don't-care
 * bits as picasso leaves them). Checked against picasso 2.7.1's output of
 * the same text, byte for byte. */
static const char tri_src[] =
    "; projection, constants, outputs\n"
    ".fvec projection[4]\n.constf k(0.0, 1.0, -1.0, 0.1)\n.constf k2(0.3, 0.0, 0.0, 0.0)\n"
    ".alias one k.yyyy\n.out opos position\n.out ocol color\n"
    ".proc main\n  mov r0.xyz, v0\n  mov r0.w, one\n"
    "  dp4 opos.x, projection[0], r0\n  dp4 opos.y, projection[1], r0\n"
    "  dp4 opos.z, projection[2], r0\n  dp4 opos.w, projection[3], r0\n"
    "  mov ocol, v1\n  end\n.end\n";

static void test_picasso_simple_tri(void **state) {
  (void)state;
  uint8_t want[0x118];
  simple_tri_shbin(want);
  le32(want + 0x0C + 0x18, 0x80), le32(want + 0x0C + 0x20, 0);
  for (int k = 0; k < 7; k++) le32(want + 0x0C + 0x4C + 8 * k, 0);
  le16(want + 0x8C + 0x10, 0); /* picasso's input mask holds only .in registers: none here */
  gs_isa_binary b;
  pica_shbin s;
  asm_files(tri_src, PICA_ASM_NO_LABELS, &b, &s);
  assert_int_equal(b.size, 0x118);
  for (size_t k = 0; k < 0x118; k++)
    if (b.bytes[k] != want[k]) fail_msg("byte 0x%zx: 0x%02x, want 0x%02x", k, b.bytes[k], want[k]);
  pica_shbin_free(&s);
  gs_isa_binary_free(&b);
  /* by default the DVLE also names its entry: a label table after the
   * symbols (0x80 + 11 + 5 = 0x90, already aligned), one 16-byte entry: id
   * 0, word 0, 8 words, name at symbol offset 11 */
  asm_files(tri_src, 0, &b, &s);
  assert_int_equal(b.size, 0x8C + 0x90 + 0x10);
  assert_memory_equal(b.bytes, want, 0x8C + 0x20);
  uint8_t *e = b.bytes + 0x8C;
  assert_int_equal(e[0x20] | e[0x21] << 8, 0x90);
  assert_int_equal(e[0x24], 1);
  assert_int_equal(e[0x3C], 16);
  assert_memory_equal(e + 0x80, "projection\0main\0", 16);
  const uint8_t label[16] = {0, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 11, 0, 0, 0};
  assert_memory_equal(e + 0x90, label, 16);
  assert_int_equal(s.dvle[0].nlabels, 1);
  assert_string_equal(s.dvle[0].labels[0].name, "main");
  assert_int_equal(s.dvle[0].labels[0].size, 8);
  pica_shbin_free(&s);
  gs_isa_binary_free(&b);
}

/* Structured blocks, by hand from picasso's rules (docs/pica.md): ifu DST =
 * the else block's start, NUM = its length; for DST = the last body word;
 * ifc without else DST = the word after the block; a padding NOP where a
 * block would end with a call/jump, be empty, or end with the block it
 * holds; callu DST/NUM = the procedure's start and length. The same words
 * come out of picasso 2.7.1. */
static const char blocks_src[] =
      ".proc main\n"
      "  cmp r0, lt, ge, v0\n"   /* 0 */
      "  ifu b1\n"               /* 1: else at 3, 2 long */
      "    mov r1, v0\n"         /* 2 */
      "  .else\n"
      "    mov r1, v1\n"         /* 3 */
      "    mov r2, v1\n"         /* 4 */
      "  .end\n"
      "  for i2\n"               /* 5: last body word 8 */
      "    ifc !cmp.x && cmp.y\n" /* 6: ends at 8 */
      "      breakc cmp.y\n"     /* 7 */
      "    .end\n"
      "  .end\n"                 /* 8: NOP, the if and the for would end together */
      "  callu b2, sub\n"        /* 9: sub = 13, 3 words */
      "  jmpu !b3, skip\n"       /* 10 */
      "  nop\n"                  /* 11 */
      "skip:\n  end\n"           /* 12 */
      ".end\n"
      ".proc sub\n  ifc cmp.x\n" /* 13: empty: NOP at 14, DST 15 */
      "  .end\n.end\n";          /* 15: NOP, the if and the proc would end together */
  static const uint32_t want[16] = {
      0xB8000000u | 2u << 24 | 5u << 21 | 0x10u << 12,        /* cmp: CMPX lt, CMPY ge, SRC1 r0, SRC2 v0, desc 0 */
      0x27u << 26 | 1u << 22 | 3u << 10 | 2u,                 /* ifu b1, DST 3, NUM 2 */
      0x13u << 26 | 0x11u << 21,                              /* mov r1, v0 (desc 0, shared with cmp) */
      0x13u << 26 | 0x11u << 21 | 1u << 12,                   /* mov r1, v1 */
      0x13u << 26 | 0x12u << 21 | 1u << 12,                   /* mov r2, v1 */
      0x29u << 26 | 2u << 22 | 8u << 10,                      /* for i2, DST 8 */
      0x28u << 26 | 0u << 25 | 1u << 24 | 1u << 22 | 8u << 10, /* ifc REFX 0, REFY 1, AND, DST 8, NUM 0 */
      0x23u << 26 | 1u << 25 | 1u << 24 | 3u << 22,           /* breakc cmp.y: CONDOP 3, REFX left 1 */
      0x21u << 26,                                            /* padding nop */
      0x26u << 26 | 2u << 22 | 13u << 10 | 3u,                /* callu b2, DST 13, NUM 3 */
      0x2Du << 26 | 3u << 22 | 12u << 10 | 1u,                /* jmpu !b3: NUM bit 0 */
      0x21u << 26, 0x22u << 26,                               /* nop, end */
      0x28u << 26 | 3u << 24 | 2u << 22 | 15u << 10,          /* ifc cmp.x, DST 15 */
      0x21u << 26, 0x21u << 26,
  };

static void test_picasso_blocks(void **state) {
  (void)state;
  gs_isa_binary b;
  pica_shbin s;
  asm_files(blocks_src, 0, &b, &s);
  assert_int_equal(s.ncode, 16);
  for (int k = 0; k < 16; k++)
    if (s.code[k] != want[k]) fail_msg("word %d: 0x%08x, want 0x%08x", k, s.code[k], want[k]);
  /* one descriptor: cmp reads SRC1 .xy and SRC2, mov the mask and SRC1 .xyzw:
   * they agree, and share 0x6C36F (mask xyzw, both selectors .xyzw) */
  assert_int_equal(s.nopdesc, 1);
  assert_int_equal(s.opdesc[0], 0xFu | 0x1Bu << 5 | 0x1Bu << 14);
  assert_int_equal(s.dvle[0].main, 0);
  assert_int_equal(s.dvle[0].end, 13);
  assert_int_equal(b.lines[8].line, 13); /* the padding NOP: the .end that made it */
  pica_shbin_free(&s);
  gs_isa_binary_free(&b);
}

/* Uniforms, constants, inputs and outputs, worked by hand from the SHBIN
 * tables (3dbrew "SHBIN") and picasso's allocation rules; picasso 2.7.1
 * gives the same bytes (without .constb, gpusim's). */
static const char tables_src[] =
      ".fvec a, b[3], m$x\n.ivec loops\n.bool flag, _hidden, f2\n"
      ".constf k(1.5, -2.0, 0.1, 1e30)\n.consti n(3, 0, 1, 0)\n.constb t(true)\n"
      ".setf c10(0.5, 0, 0, 0)\n.seti i1(255, -1, 7, 0)\n.setb b4 on\n"
      ".in pos\n.in nrm v5\n"
      ".out opos position\n.out - texcoord0.xy\n.out otc texcoord1 o3.zw\n.out - view o4.xz\n"
      ".entry start\n.proc start\n  mov opos, pos\n  end\n.end\n";

static void test_picasso_tables(void **state) {
  (void)state;
  gs_isa_binary b;
  pica_shbin s;
  asm_files(tables_src, 0, &b, &s);
  const pica_dvle *e = &s.dvle[0];
  assert_int_equal(s.ncode, 2);
  assert_int_equal(s.code[0], 0x4C000000u); /* mov o0, v0 */
  assert_int_equal(e->in_mask, 1u << 0 | 1u << 5);
  assert_int_equal(e->out_mask, 1u << 0 | 1u << 1 | 1u << 3 | 1u << 4);
  /* constants in order of appearance; .constf/.consti/.constb from the top
   * (c95, i3, b15); float24 by truncation: 1.5 = 0x3F8000, -2 = 0xC00000,
   * 0.1f = 0x3DCCCCCD -> exponent 0x7B - 64, mantissa 0x4CCCCD >> 7 =
   * 0x3B9999; 1e30 is past the float24 range: infinity 0x7F0000 */
  assert_int_equal(e->nconsts, 6);
  static const struct { uint8_t type, reg; uint32_t v[4]; } c[6] = {
      {2, 95, {0x3F8000u, 0xC00000u, 0x3B9999u, 0x7F0000u}}, {1, 3, {3, 0, 1, 0}}, {0, 15, {1, 0, 0, 0}},
      {2, 10, {0x3E0000u, 0, 0, 0}}, {1, 1, {255, 255, 7, 0}}, {0, 4, {1, 0, 0, 0}}};
  for (int k = 0; k < 6; k++) {
    assert_int_equal(e->consts[k].type, c[k].type);
    assert_int_equal(e->consts[k].reg, c[k].reg);
    for (int j = 0; j < 4; j++) assert_int_equal(e->consts[k].v[j], c[k].v[j]);
  }
  /* outputs: type, register (the first free, or the named one), mask bit 0 = x */
  static const uint16_t o[4][3] = {{0, 0, 0xF}, {3, 1, 0x3}, {5, 3, 0xC}, {8, 4, 0x5}};
  assert_int_equal(e->noutputs, 4);
  for (int k = 0; k < 4; k++) {
    assert_int_equal(e->outputs[k].type, o[k][0]);
    assert_int_equal(e->outputs[k].reg, o[k][1]);
    assert_int_equal(e->outputs[k].mask, o[k][2]);
  }
  /* uniforms by register, .in ones too, in the unified numbering (v 0x00, c
   * 0x10, i 0x70, b 0x78); _hidden takes b1 but no entry; $ becomes . */
  static const struct { const char *name; uint16_t first, last; } u[8] = {
      {"pos", 0, 0}, {"nrm", 5, 5}, {"a", 0x10, 0x10}, {"b", 0x11, 0x13}, {"m.x", 0x14, 0x14},
      {"loops", 0x70, 0x70}, {"flag", 0x78, 0x78}, {"f2", 0x7A, 0x7A}};
  assert_int_equal(e->nuniforms, 8);
  for (int k = 0; k < 8; k++) {
    assert_string_equal(e->uniforms[k].name, u[k].name);
    assert_int_equal(e->uniforms[k].first, u[k].first);
    assert_int_equal(e->uniforms[k].last, u[k].last);
  }
  assert_int_equal(e->nlabels, 1);
  assert_string_equal(e->labels[0].name, "start");
  pica_shbin_free(&s);
  gs_isa_binary_free(&b);
}

/* Aliases compose swizzles and negation; name[k], name[aL+k], name[a0.y];
 * rgba and stpq letters; a short swizzle repeats its last letter; mad picks
 * madi for a wide SRC3 and descriptors of mad land in 0-31 (here slot 2,
 * shared with a mov that reads only the mask and SRC1). By hand; picasso
 * 2.7.1 agrees. */
static const char operands_src[] =
      ".fvec arr[8]\n.alias foo c9.wzyx\n.alias nfoo -foo.x\n.alias tmp r4.xy\n.proc main\n"
      "  mov r0.xz, -foo.yx\n"       /* c9, negated, .zwww (foo's y = z, x = w) */
      "  mov r1, nfoo\n"             /* c9, negated, .wwww */
      "  mov r2, arr[aL+2]\n"        /* c2, IDX 3 */
      "  mov r3, arr[5].y\n"         /* c5.yyyy */
      "  mov tmp, v0\n"              /* r4, mask xy */
      "  mov r5.rg, v0.bgra\n"       /* mask xy, .zyxw */
      "  mov r6.st, v1.pq\n"         /* mask xy, .zwww */
      "  mad r7, v0, arr[a0.y], r1\n"
      "  madi r7, v0, r1, arr[a0.x]\n"
      "  dph r8, v0, arr[1]\n"       /* narrow SRC1, wide SRC2: dphi */
      "  end\n.end\n";

static void test_picasso_operands(void **state) {
  (void)state;
  gs_isa_binary b;
  pica_shbin s;
  asm_files(operands_src, 0, &b, &s);
  static const uint32_t w[11] = {
      0x13u << 26 | 0x10u << 21 | 0x29u << 12 | 0, 0x13u << 26 | 0x11u << 21 | 0x29u << 12 | 1,
      0x13u << 26 | 0x12u << 21 | 3u << 19 | 0x22u << 12 | 2, 0x13u << 26 | 0x13u << 21 | 0x25u << 12 | 3,
      0x13u << 26 | 0x14u << 21 | 4, 0x13u << 26 | 0x15u << 21 | 5, 0x13u << 26 | 0x16u << 21 | 1u << 12 | 6,
      7u << 29 | 0x17u << 24 | 2u << 22 | 0u << 17 | 0x20u << 10 | 0x11u << 5 | 2,  /* mad: SRC2 c0 + a0.y */
      6u << 29 | 0x17u << 24 | 1u << 22 | 0u << 17 | 0x11u << 12 | 0x20u << 5 | 2,  /* madi: SRC3 c0 + a0.x */
      0x18u << 26 | 0x18u << 21 | 0u << 14 | 0x21u << 7 | 2,                       /* dphi r8, v0, c1 */
      0x22u << 26};
  assert_int_equal(s.ncode, 11);
  for (int k = 0; k < 11; k++)
    if (s.code[k] != w[k]) fail_msg("word %d: 0x%08x, want 0x%08x", k, s.code[k], w[k]);
  static const uint32_t od[7] = {
      0xAu | 1u << 4 | 0xBFu << 5,          /* mask xz, -.zwww */
      0xFu | 1u << 4 | 0xFFu << 5,          /* -.wwww */
      0xFu | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23, /* mov's, then mad's (and dph's) identity */
      0xFu | 0x55u << 5,                    /* .yyyy */
      0xCu | 0x1Bu << 5,                    /* mask xy */
      0xCu | 0x93u << 5,                    /* .zyxw */
      0xCu | 0xBFu << 5,                    /* .zwww */
  };
  assert_int_equal(s.nopdesc, 7);
  for (int k = 0; k < 7; k++)
    if (s.opdesc[k] != od[k]) fail_msg("descriptor %d: 0x%08x, want 0x%08x", k, s.opdesc[k], od[k]);
  pica_shbin_free(&s);
  gs_isa_binary_free(&b);
}

/* A mad whose descriptor would land past 31 takes the first slot no mad
 * uses, and the 7-bit DESC fields already written follow the swap. */
static void test_picasso_mad_slots(void **state) {
  (void)state;
  char src[4096] = ".proc main\n";
  for (int k = 0; k < 33; k++) /* 33 different selectors (k%4, k/4%4, k/16%4, x): descriptors 0-32 */
    snprintf(src + strlen(src), sizeof src - strlen(src), "  mov r1, r0.%c%c%cx\n", "xyzw"[k % 4], "xyzw"[k / 4 % 4],
             "xyzw"[k / 16 % 4]);
  strcat(src, "  mad r2, r0, r1, r3\n  mad r2, r0, r1, -r3\n  end\n.end\n");
  gs_isa_binary b;
  pica_shbin s;
  asm_files(src, 0, &b, &s);
  assert_int_equal(s.ncode, 36);
  assert_int_equal(s.nopdesc, 35);
  assert_int_equal(s.code[33] & 0x1F, 0);   /* the first mad: 33 swapped with 0 */
  assert_int_equal(s.code[34] & 0x1F, 1);   /* the second: 34 with 1 */
  assert_int_equal(s.code[0] & 0x7F, 33);   /* the movs that had 0 and 1 follow */
  assert_int_equal(s.code[1] & 0x7F, 34);
  assert_int_equal(s.code[2] & 0x7F, 2);
  assert_int_equal(s.opdesc[0], 0xFu | 0x1Bu << 5 | 0x1Bu << 14 | 0x1Bu << 23);
  assert_int_equal(s.opdesc[1], 0xFu | 0x1Bu << 5 | 0x1Bu << 14 | 1u << 22 | 0x1Bu << 23);
  assert_int_equal(s.opdesc[33], 0xFu);             /* mov r1, r0.xxxx */
  assert_int_equal(s.opdesc[34], 0xFu | 0x40u << 5); /* .yxxx */
  pica_shbin_free(&s);
  gs_isa_binary_free(&b);
}


/* More programs for the round trip: a geometry shader in its own uniform
 * space (fixed mode, a dummy output: the merge flag), and one of picasso's
 * older geometry shaders (.gsh alone: uniforms shared, b15 allowed). */
static const char gsh_src[] =
    ".gsh fixed c20 c4 3\n.fvec _skip[2], m[4]\n.bool last\n.constf k(0.5, 0.25, -0.125, 1e-20)\n.constf k2(1e-18, 0, 0, 0)\n"
    ".out p position\n.out - dummy o5.xz\n.out - texcoord0 o1.yz\n"
    ".entry gmain\n.proc gmain\n  setemit 0\n  mov p, c4\n  emit\n  setemit 2, prim inv\n  emit\n  end\n.end\n";
static const char compat_src[] =
    ".gsh\n.bool b[16]\n.fvec f[3]\n.out - dummy o2\n.setb b3 false\n.seti i0(1, 2, 3, 4)\n"
    ".proc main\n  mov o2, c1\n  end\n.end\n.proc other\n  nop\n.end\n";

/* Every program of these tests: its SHBIN disassembles into text that
 * assembles back to the same bytes (words, descriptors, constants, output
 * map, uniforms, entry label), and the listing shows the tables as
 * directives. */
static void test_listing_round_trip(void **state) {
  (void)state;
  static const char *const srcs[] = {tri_src, blocks_src, tables_src, operands_src, gsh_src, compat_src,
                                     "start:\n  mov r1.xy, -c10[aL].wzyx\n  cmp r1, eq, ne, v2\n"
                                     "  ifc cmp.x && !cmp.y, else, 1\n  add o0.w, c3[a0.y], -r1.z\n"
                                     "else: sgei r2, v1, c7\n  callc !cmp.x || cmp.y, start, 2\n  end\n"};
  const gs_isa *isa = gs_isa_by_name("pica");
  for (size_t k = 0; k < sizeof srcs / sizeof *srcs; k++) {
    gs_isa_binary b, b2;
    gs_diag d = {0};
    char *text;
    if (isa->assemble(srcs[k], "rt.pica", 0, &b, &d) != GS_OK) fail_msg("program %zu: %s", k, d.msg);
    if (isa->disassemble(b.bytes, b.size, 0, &text, &d) != GS_OK) fail_msg("program %zu: %s", k, d.msg);
    if (isa->assemble(text, "listing.pica", 0, &b2, &d) != GS_OK) fail_msg("program %zu: %s\n%s", k, d.msg, text);
    if (b2.size != b.size || memcmp(b2.bytes, b.bytes, b.size)) fail_msg("program %zu: other bytes from\n%s", k, text);
    if (k == 2) { /* tables_src */
      const char *want[] = {".in pos v0\n", ".in nrm v5\n", ".fvec a  ; c0\n", ".fvec b[3]  ; c1\n",
                            ".fvec m$x  ; c4\n", ".ivec loops  ; i0\n", ".bool flag  ; b0\n",
                            ".bool _gap0[1]\n.bool f2  ; b2\n", ".setf c95(1.5, -2, 0.1, inf)\n",
                            ".seti i3(3, 0, 1, 0)\n", ".setb b15 true\n", ".setf c10(0.5, 0, 0, 0)\n",
                            ".seti i1(255, 255, 7, 0)\n", ".setb b4 true\n", ".out - position o0.xyzw\n",
                            ".out - texcoord0 o1.xy\n", ".out - texcoord1 o3.zw\n", ".out - view o4.xz\n",
                            ".entry start\n.proc start\n    mov o0, v0 ", "    end                              ; 001: 88000000\n.end\n"};
      for (size_t j = 0; j < sizeof want / sizeof *want; j++)
        if (!strstr(text, want[j])) fail_msg("no '%s' in:\n%s", want[j], text);
    }
    if (k == 4) { /* gsh_src: uniforms from the lowest (c22: the hidden pair is not in the table), the merge
                     flag from the dummy; 1e-20 is below float24's 2^-63: 0 */
      const char *want[] = {".gsh fixed c22 c4 3\n", ".fvec m[4]  ; c22\n", ".bool last  ; b0\n",
                            ".setf c95(0.5, 0.25, -0.125, 0)\n", ".setf c94(1e-18, 0, 0, 0)\n", ".out - dummy o5.xz\n", "    setemit 2, prim inv "};
      for (size_t j = 0; j < sizeof want / sizeof *want; j++)
        if (!strstr(text, want[j])) fail_msg("no '%s' in:\n%s", want[j], text);
      pica_shbin s;
      assert_int_equal(pica_shbin_read(b.bytes, b.size, &s, &d), GS_OK);
      assert_int_equal(s.dvle[0].type, 1);
      assert_int_equal(s.dvle[0].merge_outmaps, 1);
      assert_int_equal(s.dvle[0].gs_mode, 2);
      assert_int_equal(s.dvle[0].gs_fixed_start, 4);
      assert_int_equal(s.dvle[0].gs_fixed_num, 3);
      assert_int_equal(s.dvle[0].uniforms[0].first, 0x10 + 22);
      assert_int_equal(s.code[0], 0x2Bu << 26);                          /* setemit 0 */
      assert_int_equal(s.code[3], 0x2Bu << 26 | 2u << 24 | 1u << 23 | 1u << 22); /* setemit 2, prim inv */
      assert_int_equal(s.code[2], 0x2Au << 26);                          /* emit */
      pica_shbin_free(&s);
    }
    free(text);
    gs_isa_binary_free(&b);
    gs_isa_binary_free(&b2);
  }
}


/* Two files into one SHBIN, as picasso links them: one program, procedures
 * and .fvec uniforms shared (shared[2] keeps c0-c1 in both, other takes
 * c2), .constf per file (both c95), one DVLE each, named by its entry
 * procedure; call reaches a procedure of the other file. By hand. */
static void test_picasso_files(void **state) {
  (void)state;
  const pica_asm_src src[2] = {
      {".fvec shared[2]\n.constf ka(1, 2, 3, 4)\n.out - position\n"
       ".proc main\n  mov o0, shared[1]\n  call util\n  end\n.end\n", "a.pica"},
      {".fvec other, shared[2]\n.constf kb(5, 6, 7, 8)\n.out - color o2\n.entry second\n"
       ".proc util\n  mov r0, kb\n.end\n.proc second\n  mov o2, other\n  end\n.end\n", "b.pica"}};
  gs_isa_binary b;
  gs_diag d = {0};
  pica_shbin s;
  if (pica_asm_files(src, 2, 0, &b, &d) != GS_OK) fail_msg("%s", d.msg);
  if (pica_shbin_read(b.bytes, b.size, &s, &d) != GS_OK) fail_msg("%s", d.msg);
  static const uint32_t w[6] = {0x13u << 26 | 0x21u << 12, 0x24u << 26 | 3u << 10 | 1u, 0x22u << 26,
                                0x13u << 26 | 0x10u << 21 | 0x7Fu << 12, 0x13u << 26 | 2u << 21 | 0x22u << 12,
                                0x22u << 26};
  assert_int_equal(s.ncode, 6);
  for (int k = 0; k < 6; k++)
    if (s.code[k] != w[k]) fail_msg("word %d: 0x%08x, want 0x%08x", k, s.code[k], w[k]);
  assert_int_equal(s.ndvle, 2);
  const pica_dvle *e0 = &s.dvle[0], *e1 = &s.dvle[1];
  assert_int_equal(e0->main, 0);
  assert_int_equal(e0->end, 3);
  assert_int_equal(e1->main, 4);
  assert_int_equal(e1->end, 6);
  assert_string_equal(pica_dvle_name(e0), "main");
  assert_string_equal(pica_dvle_name(e1), "second");
  assert_int_equal(e0->consts[0].reg, 95);
  assert_int_equal(e0->consts[0].v[0], 0x3F0000u); /* 1.0 */
  assert_int_equal(e1->consts[0].reg, 95);
  assert_int_equal(e1->consts[0].v[0], 0x414000u); /* 5.0 = 1.25 x 2^2: exponent 63 + 2 = 0x41, mantissa 0x4000 */
  assert_int_equal(e0->outputs[0].reg, 0);
  assert_int_equal(e1->outputs[0].type, 2);
  assert_int_equal(e1->outputs[0].reg, 2);
  assert_int_equal(e1->out_mask, 4);
  assert_int_equal(e1->nuniforms, 2);
  assert_string_equal(e1->uniforms[0].name, "shared");
  assert_int_equal(e1->uniforms[0].first, 0x10);
  assert_int_equal(e1->uniforms[0].last, 0x11);
  assert_string_equal(e1->uniforms[1].name, "other");
  assert_int_equal(e1->uniforms[1].first, 0x12);
  assert_int_equal(b.lines[4].line, 9); /* b.pica's "mov o2, other" */
  /* the listing gives back the first DVLE and says the second is not */
  char *text;
  if (pica_disasm_shbin(&s, &text, &d) != GS_OK) fail_msg("%s", d.msg);
  assert_non_null(strstr(text, "; dvle 1 (not reassembled: one text makes one DVLE)"));
  assert_non_null(strstr(text, ";   label second 0x004\n"));
  free(text);
  pica_shbin_free(&s);
  gs_isa_binary_free(&b);
  /* a procedure of the same name in both, an entry nowhere */
  const pica_asm_src dup[2] = {{".proc main\n  end\n.end\n", "a.pica"}, {".proc main\n  end\n.end\n", "b.pica"}};
  assert_int_equal(pica_asm_files(dup, 2, 0, &b, &d), GS_EASM);
  assert_non_null(strstr(d.msg, "b.pica:1:7: procedure 'main' is defined twice"));
  const pica_asm_src noent[1] = {{".entry go\n.proc main\n  end\n.end\n", "c.pica"}};
  assert_int_equal(pica_asm_files(noent, 1, 0, &b, &d), GS_EASM);
  assert_non_null(strstr(d.msg, "c.pica:1:8: no procedure 'go' for the entry point"));
  const pica_asm_src nomain[1] = {{".proc other\n  end\n.end\n", "c.pica"}};
  assert_int_equal(pica_asm_files(nomain, 1, 0, &b, &d), GS_EASM);
  assert_non_null(strstr(d.msg, "c.pica:1:1: no procedure 'main' for the entry point (.proc main, or .entry NAME)"));
}


/* Every kind of bad directive and operand is refused naming
 * file:line:column of the token at fault. */
static void test_picasso_errors(void **state) {
  (void)state;
  static const struct { const char *src, *msg; } t[] = {
      {".proc main\n  mov r0, v15\n  mov r0, x9\n.end", "e.pica:3:11: 'x9' is not a register or a name"},
      {"mov r0, c95[1]", "e.pica:1:9: 'c95[1]': the offset goes past the last register"},
      {"mov r0, c0[a0.z]", "e.pica:1:12: 'a0.z': the offset is a0.x, a0.y, aL, aL+k or a number 0-95"},
      {"mov r0, v0.xyzwx", "e.pica:1:12: 'xyzwx': bad component letters"},
      {"mov r0, v0.q1", "e.pica:1:12: 'q1': bad component letters"},
      {"mov r0.wx, v0", "e.pica:1:5: 'r0.wx': mask letters must be in xyzw order"},
      {"mov -r0, v0", "e.pica:1:5: '-r0' is not a destination register"},
      {"mov r0, o1", "e.pica:1:9: 'o1' is not a source register"},
      {".proc main\n  ifc cmp.x\n    nop\n.end", "e.pica:1:7: this .proc block has no .end"},
      {".proc main\n  for i0\n    nop\n", "e.pica:2:3: this for block has no .end"},
      {".proc main\n .else\n.end", "e.pica:2:2: .else outside an ifc/ifu block"},
      {".proc main\n ifu b0\n nop\n .else\n nop\n .else\n.end\n.end", "e.pica:6:2: a second .else in one block"},
      {".end", "e.pica:1:1: .end outside a block"},
      {"x: nop\nx: nop", "e.pica:2:1: label 'x' is defined twice"},
      {".alias a r0\n.alias a r1", "e.pica:2:8: 'a' is already defined"},
      {".alias r3 r0", "e.pica:1:8: 'r3' cannot be an alias name"},
      {".fvec u\n.alias u r1", "e.pica:2:8: 'u' is already defined"},
      {".proc main\n.proc main", "e.pica:2:7: procedure 'main' is defined twice"},
      {".out - color o7", "e.pica:1:14: o7 can only be a dummy output (o0-o6 carry semantics)"},
      {".out - color o1\n.out - position o1.x", "e.pica:2:17: o1: these components are already an output"},
      {".out - colour", "e.pica:1:8: 'colour' is not an output type"},
      {".gsh point c0\n.out - color o7", "e.pica:2:14: .out takes o0-o6 in a geometry shader, not 'o7'"},
      {".fvec u\n.gsh point c0", "e.pica:2:1: .gsh must come before any constant, uniform or output"},
      {".gsh fixed c8 c8 3", "e.pica:1:15: 'c8' overlaps the uniforms from the first free register on"},
      {".foo", "e.pica:1:1: unknown directive '.foo'"},
      {".constf k(1, 2, x, 4)", "e.pica:1:17: 'x' is not a number"},
      {".constf k(1, 2, 3)", "e.pica:1:10: four values are needed in ( )"},
      {".consti n(1, 2, 3, 300)", "e.pica:1:20: '300' is not a number -128-255"},
      {".setf r0(1, 2, 3, 4)", "e.pica:1:7: .setf takes c0-c95, not 'r0'"},
      {".setb b0 maybe", "e.pica:1:10: 'maybe' is not a bool"},
      {".in x r0", "e.pica:1:7: .in takes v0-v15, not 'r0'"},
      {".fvec u[0]", "e.pica:1:9: '0' is not a number 1-96"},
      {".fvec big[90]\n.fvec more[7]", "e.pica:2:7: no room for the uniform 'more' (7 registers)"},
      {".constfa arr[]\n.end", "e.pica:2:1: the array 'arr' has no elements"},
      {"call nowhere", "e.pica:1:6: undefined procedure 'nowhere'"},
      {"jmpc cmp.x, nowhere", "e.pica:1:13: undefined label 'nowhere'"},
      {"mov r0, v0, v1", "e.pica:1:1: mov takes 2 operand(s), not 3"},
      {"ifu !b0\n.end", "e.pica:1:5: ifu cannot invert its condition (only jmpu can)"},
      {"jmpu i0, 0", "e.pica:1:6: jmpu takes b0-b15, not 'i0'"},
      {"for b0", "e.pica:1:5: for takes i0-i3, not 'b0'"},
      {"mad r0, v0, c1, c2", "e.pica:1:17: mad: only one of sources 2 and 3 can be a c register"},
      {"mad r0, c0, r1, r2", "e.pica:1:9: mad: source 1 ('c0') must be v0-v15 or r0-r15"},
      {"cmp r0, lt, lt, c0", "e.pica:1:17: cmp: source 2 ('c0') must be v0-v15 or r0-r15"},
      {"mova a0.z, v0", "e.pica:1:6: mova writes a0.x, a0.y or a0.xy, not 'a0.z'"},
      {"setemit 0, fast", "e.pica:1:12: setemit flags are prim and inv, not 'fast'"},
      {"ifc cmp.x || !cmp.x, 0, 0", "e.pica:1:15: 'cmp.x': the condition tests cmp.x twice"},
      {"# 40 \"orig.v.pica\"\n  mov r0, q0", "orig.v.pica:40:11: 'q0' is not a register or a name"},
  };
  for (size_t k = 0; k < sizeof t / sizeof *t; k++) asm_fails(t[k].src, t[k].msg);
  char *els = malloc(32 + 256 * 4 + 16);
  strcpy(els, ".proc main\nifu b0\nnop\n.else\n"); /* an else block of 256 words: NUM has 8 bits */
  for (int k = 0; k < 256; k++) strcat(els, "nop\n");
  strcat(els, ".end\n.end\n");
  asm_fails(els, "e.pica:261:1: the .else block is 256 words long (NUM reaches 255)");
  free(els);
  /* a vertex shader's program memory is 512 words; a geometry shader's is not */
  char *big = malloc(16 + 11 + 513 * 4 + 6);
  for (int gsh = 0; gsh < 2; gsh++) {
    strcpy(big, gsh ? ".gsh\n.proc main\n" : ".proc main\n");
    for (int k = 0; k < 513; k++) strcat(big, "nop\n");
    strcat(big, ".end\n");
    if (!gsh) {
      asm_fails(big, "e.pica:514:1: more than 512 words: a vertex shader's program memory is full");
      continue;
    }
    gs_isa_binary b;
    gs_diag d = {0};
    if (gs_isa_by_name("pica")->assemble(big, "g.pica", 0, &b, &d) != GS_OK) fail_msg("%s", d.msg);
    gs_isa_binary_free(&b);
  }
  free(big);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_published_encodings), cmocka_unit_test(test_fields),
      cmocka_unit_test(test_relative),            cmocka_unit_test(test_opdesc),
      cmocka_unit_test(test_simple_tri),          cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_shbin),                cmocka_unit_test(test_registry),
      cmocka_unit_test(test_asm_published),      cmocka_unit_test(test_asm_simple_tri),
      cmocka_unit_test(test_asm_round_trip),     cmocka_unit_test(test_asm_errors),
      cmocka_unit_test(test_random_round_trip),   cmocka_unit_test(test_picasso_simple_tri),
      cmocka_unit_test(test_picasso_blocks),      cmocka_unit_test(test_picasso_tables),
      cmocka_unit_test(test_picasso_operands),    cmocka_unit_test(test_picasso_mad_slots),
      cmocka_unit_test(test_listing_round_trip),  cmocka_unit_test(test_picasso_files),
      cmocka_unit_test(test_picasso_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
