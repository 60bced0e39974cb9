/* test_sass_asm.c — the SASS instruction table, decoder, assembler and
 * disassembler against published encodings.
 *
 * The word/text pairs are NVIDIA's: words of the Maxwell blob programs with
 * the meaning decoded from the public field tables (envytools' gm107.c,
 * Mesa's nv50_ir_emit_gm107.cpp), and nvdisasm's own text of sm_50/sm_61
 * words from public cuobjdump listings. nvdisasm's ".reuse", and the ".T" /
 * ".P" of texture mnemonics, come from the control word, not the
 * instruction; the listings carry no control words, so those marks are
 * dropped from the expected text (gpusim prints the control field in its
 * annotation instead). Fields are checked through sass_mod() against the
 * values the published text states (FMUL.FTZ.RZ: FMZ 1, RND 3).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/bytes.h"
#include "isa/isa.h"
#include "isa/sass/table.h"

/* ---- helpers ------------------------------------------------------------------- */

static uint64_t word_at(const gs_isa_binary *b, size_t off) {
  uint64_t w;
  assert_true(off + 8 <= b->size);
  gs_get_le64s(&w, b->bytes + off, 1);
  return w;
}

/* Offset of the k-th instruction (control words at 0 mod 32). */
static uint32_t insn_off(size_t k) { return (uint32_t)(32 * (k / 3) + 8 + 8 * (k % 3)); }

/* Assembles src, failing the test with the message on error. */
static void must_asm(const char *src, gs_isa_binary *b) {
  gs_diag d = {0};
  int rc = sass_asm(src, "t.s", b, &d);
  if (rc < 0) {
    unsigned line = 0, col = 0;
    const char *p = src;
    sscanf(d.msg, "t.s:%u:%u", &line, &col);
    for (unsigned l = 1; l < line && p; l++) p = strchr(p, '\n'), p = p ? p + 1 : NULL;
    fail_msg("%s (the line: %.120s)", d.msg, p ? p : "?");
  }
}

/* The error message of assembling src (which must fail). */
static const char *asm_error(const char *src) {
  static gs_diag d;
  gs_isa_binary b;
  memset(&d, 0, sizeof d);
  int rc = sass_asm(src, "t.s", &b, &d);
  if (rc >= 0) fail_msg("\"%s\" assembled", src);
  assert_int_equal(rc, GS_EASM);
  return d.msg;
}

static void contains(const char *s, const char *part) {
  if (!strstr(s, part)) fail_msg("\"%s\" does not contain \"%s\"", s, part);
}

/* A source with NOPs in front so that its instruction lands at offset pc. */
static char *at_pc(const char *text, uint32_t pc) {
  size_t k = (pc / 32) * 3 + (pc % 32 - 8) / 8;
  char *s = malloc(k * 5 + strlen(text) + 2);
  assert_non_null(s);
  char *p = s;
  for (size_t i = 0; i < k; i++) memcpy(p, "NOP\n", 4), p += 4;
  strcpy(p, text);
  return s;
}

/* ---- published pairs ------------------------------------------------------------ */

typedef struct pair {
  const char *text;  /* as nvdisasm prints it (marks from the control word dropped) */
  uint64_t word;
  uint32_t pc;       /* where it sits (branches) */
} pair;

static const pair published[] = {
  /* words of the Maxwell blob and ones computed from the field tables */
  {"ALD R0, a[0x80], RZ ;", 0xEFD87F800807FF00ull, 8},
  {"ALD.64 R8, a[0x100], RZ ;", 0xEFD8FF801007FF08ull, 8},
  {"AST.64 a[0x300], R8, RZ ;", 0xEFF0FF803007FF08ull, 8},
  {"IPA.PASS R11, a[0x7c] ;", 0xE003FF87CFF7FF0Bull, 8},
  {"IPA R8, a[0x310], R11 ;", 0xE043FFB100B7FF08ull, 8},
  {"IPA R1, a[0x84], R0 ;", 0xE043FF884007FF01ull, 8},
  {"MUFU.RCP R11, R11 ;", 0x5080000000470B0Bull, 8},
  {"FFMA R2, R0, c[0x0][0x10], R1 ;", 0x4980008000470002ull, 8},
  {"MOV32I R3, 0x3f800000 ;", 0x0103F8000007F003ull, 8},
  {"EXIT ;", 0xE30000000007000Full, 8},
  {"NOP ;", 0x50B0000000070F00ull, 8},
  /* nvdisasm's text of sm_50 words */
  {"MOV R1, c[0x0][0x20] ;", 0x4C98078000870001ull, 8},
  {"S2R R2, SR_TID.X ;", 0xF0C8000002170002ull, 8},
  {"IADD32I R1, R1, -0x60 ;", 0x1C0FFFFFFA070101ull, 8},
  {"FADD.FTZ R5, -R4, -RZ ;", 0x5C5930000FF70405ull, 8},
  {"FMUL R8, R24, -R14 ;", 0x5C69000000E71808ull, 8},
  {"FFMA R4, R11, R20, c[0x2][0x4] ;", 0x51800A0800170B04ull, 8},
  {"FMUL32I R10, R10, -1.4426950216293334961 ;", 0x1E0BFB8AA3B70A0Aull, 8},
  {"MUFU.RSQ R0, R5 ;", 0x5080000000570500ull, 8},
  {"RRO.EX2 R13, R11 ;", 0x5C90008000B7000Dull, 8},
  {"FMNMX R11, RZ, R10, !PT ;", 0x5C60078000A7FF0Bull, 8},
  {"FSET.NEU.FTZ.AND R9, R10, R9, PT ;", 0x588D038000970A09ull, 8},
  {"FSETP.GEU.AND P0, PT, |R5|, 1.175494350822287508e-38, PT ;", 0x36BE038080070587ull, 8},
  {"@P1 FCMP R40, R17, c[0x2][0x0], R8 ;", 0x4BA4040800011128ull, 8},
  {"F2F.F32.F32.FLOOR R13, R8 ;", 0x5CA8048000870A0Dull, 8},
  {"F2I.FTZ.U32.F32.TRUNC R9, R9 ;", 0x5CB0118000970A09ull, 8},
  {"I2F.F32.S32.RP R7, |R6| ;", 0x5CBA010000672A07ull, 8},
  {"@P5 IADD.X R5, R2, c[0x0][0x2a4] ;", 0x4C1008000A950205ull, 8},
  {"XMAD.CHI R3, R9.H1, R12, R3 ;", 0x5B28018000C70903ull, 8},
  {"SHR R4, R3, 0x1f ;", 0x3829000001F70304ull, 8},
  {"SHR.U32 R31, R3, 0x17 ;", 0x382800000177031Full, 8},
  {"LOP.AND.NZ P0, RZ, R12, 0x3 ;", 0x3840300000370CFFull, 8},
  {"LOP32I.XOR R5, R2, 0x20 ;", 0x0440000002070205ull, 8},
  {"LOP3.LUT.NZ P1, RZ, R9, R14, R8, 0xf8 ;", 0x5BE1043F80E709FFull, 8},
  {"ISETP.GE.AND P3, PT, R4, c[0x0][0x170], PT ;", 0x4B6D038005C7041Full, 8},
  {"ISCADD R5, -R4, R13, 0x5 ;", 0x5C1A028000D70405ull, 8},
  {"SEL R2, R3, 0x1, P0 ;", 0x38A0000000170302ull, 8},
  {"PSETP.OR.AND P1, PT, P1, P2, PT ;", 0x509003804107100Full, 8},
  {"MOV32I R2, 0x1 ;", 0x010000000017F002ull, 8},
  {"@P1 BRA CC.NEU, 0x290 ;", 0xE2400FF80901000Dull, 0x81F8}, /* offset -0x7f70 */
  {"SSY 0x1558 ;", 0xE290000134000000ull, 0x210},           /* offset +0x1340 */
  {"@P3 SYNC ;", 0xF0F800000003000Full, 8},
  {"@P4 EXIT CC.NEU ;", 0xE30000000004000Dull, 8},
  {"DEPBAR.LE SB5, 0x1 ;", 0xF0F0000034170000ull, 8},
  {"BAR.SYNC 0x0 ;", 0xF0A81B8000070000ull, 8},
  {"@!P0 TLDS.LZ.NODEP RZ, R16, R19, 0x8c, 1D, R ;", 0xDA0208CFFFF81310ull, 8},
  /* sm_61, the same encoding */
  {"TEXS RZ, R3, R4, R5, 0x5a, 2D, R ;", 0xD82005AFF0570403ull, 8},
  {"IMUL32I.U32.U32 R6, R8, 0x1 ;", 0x1F00000000170806ull, 8},
  {"@P1 FADD32I R3, -R3, 1.5707963705062866211 ;", 0x0903FC90FDB10303ull, 8},
};

static void test_published_encodings(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof published / sizeof published[0]; i++) {
    const pair *p = &published[i];
    char text[200];
    /* the word prints as nvdisasm's text */
    if (sass_disasm_insn(p->word, p->pc, text, sizeof text) < 0) fail_msg("0x%016llx: %s", (unsigned long long)p->word, text);
    if (strcmp(text, p->text)) fail_msg("0x%016llx printed \"%s\", expected \"%s\"", (unsigned long long)p->word, text, p->text);
    /* the text assembles to the word */
    char *src = at_pc(p->text, p->pc);
    gs_isa_binary b;
    must_asm(src, &b);
    if (word_at(&b, p->pc) != p->word)
      fail_msg("\"%s\" assembled to 0x%016llx, expected 0x%016llx", p->text, (unsigned long long)word_at(&b, p->pc),
               (unsigned long long)p->word);
    gs_isa_binary_free(&b);
    free(src);
  }
}

/* nvdisasm's marks that come from the control word are read: .reuse sets
 * the operand's reuse bit (A 17, B 18, C 19) when no annotation is given. */
static void test_reuse_marks(void **state) {
  (void)state;
  gs_isa_binary b;
  must_asm("SHR R4, R3.reuse, 0x1f ;\nLOP3.LUT.NZ P1, RZ, R9, R14.reuse, R8, 0xf8 ;", &b);
  assert_true(word_at(&b, 8) == 0x3829000001F70304ull);
  assert_true(word_at(&b, 16) == 0x5BE1043F80E709FFull);
  uint64_t ctrl = word_at(&b, 0);
  assert_int_equal((ctrl >> 17) & 15, 1);        /* Ra reused */
  assert_int_equal((ctrl >> (21 + 17)) & 15, 2); /* B reused */
  gs_isa_binary_free(&b);
}

/* ---- the control word ------------------------------------------------------------- */

static void test_control_word(void **state) {
  (void)state;
  gs_isa_binary b;
  /* three "stall 6, no barriers" fields (yield set, as compilers write) */
  must_asm("FFMA R2, R0, c[0x0][0x10], R1 ; /* [B------:R-:W-:Y:S06:U0] */\n"
           "MOV32I R3, 0x3f800000 ; // [B------:R-:W-:Y:S06:U0]\n"
           "EXIT ; # [B------:R-:W-:Y:S06:U0]\n", &b);
  assert_int_equal(b.size, 32);
  assert_true(word_at(&b, 0) == 0x001FD800FEC007F6ull);
  gs_isa_binary_free(&b);

  /* every field by hand: wait {0,2,5}, read 3, write 4, no yield, stall 9, reuse 0xa */
  must_asm("NOP ; /* [B0-2--5:R3:W4:-:S09:Ua] */", &b);
  uint32_t c = 9u | 4u << 5 | 3u << 8 | (1u | 4u | 32u) << 11 | 0xAu << 17;
  assert_true(word_at(&b, 0) == ((uint64_t)c | (uint64_t)SASS_NOP_CTRL << 21 | (uint64_t)SASS_NOP_CTRL << 42));
  char t[32];
  sass_sched_text(c, t);
  assert_string_equal(t, "[B0-2--5:R3:W4:-:S09:Ua]");
  gs_isa_binary_free(&b);

  /* without an annotation: stall 15, wait on scoreboards 0 and 1; ALD (variable
   * latency) sets write barrier 0 and read barrier 1, FADD none (7); the fill
   * NOP gets 0x7e0 */
  must_asm("ALD R0, a[0x80], RZ ;\nFADD R0, R0, R0 ;", &b);
  uint64_t ald = 0xF | 3u << 11 | 0u << 5 | 1u << 8, fadd = 0xF | 3u << 11 | 7u << 5 | 7u << 8;
  assert_true(word_at(&b, 0) == (ald | fadd << 21 | (uint64_t)0x7E0 << 42));
  assert_true(word_at(&b, 24) == 0x50B0000000070F00ull);
  gs_isa_binary_free(&b);
}

/* ---- Appendix: NVIDIA's headsurface programs ---------------------------------------- */

typedef struct blob_insn {
  uint32_t off;
  uint64_t word;
  const char *text;
} blob_insn;

static const blob_insn headsurface_vs[] = {
  {0x08, 0xefd8ff801007ff08ull, "ALD.64 R8, a[0x100], RZ ;"},
  {0x10, 0x4cb8000c00570a00ull, "I2F.F32.U32 R0, c[0x3][0x14] ;"},
  {0x18, 0x4cb8000c00370a01ull, "I2F.F32.U32 R1, c[0x3][0xc] ;"},
  {0x28, 0x4cb8000c00470a02ull, "I2F.F32.U32 R2, c[0x3][0x10] ;"},
  {0x30, 0xefd87f800847ff0bull, "ALD R11, a[0x84], RZ ;"},
  {0x38, 0x4cb8000c00270a03ull, "I2F.F32.U32 R3, c[0x3][0x8] ;"},
  {0x48, 0x4cb8000c00170a06ull, "I2F.F32.U32 R6, c[0x3][0x4] ;"},
  {0x50, 0x4cb8000c00070a07ull, "I2F.F32.U32 R7, c[0x3][0x0] ;"},
  {0x58, 0xefd87f800807ff0aull, "ALD R10, a[0x80], RZ ;"},
  {0x68, 0x4cb8000c00772a04ull, "I2F.F32.S32 R4, c[0x3][0x1c] ;"},
  {0x70, 0x4cb8000c00672a05ull, "I2F.F32.S32 R5, c[0x3][0x18] ;"},
  {0x78, 0xefd87f8010c7ff0cull, "ALD R12, a[0x10c], RZ ;"},
  {0x88, 0x59a0000000970101ull, "FFMA.FTZ R1, R1, R9, R0 ;"},
  {0x90, 0xeff0ff803007ff08ull, "AST.64 a[0x300], R8, RZ ;"},
  {0x98, 0x59a0010000870300ull, "FFMA.FTZ R0, R3, R8, R2 ;"},
  {0xa8, 0x5c68100000b70606ull, "FMUL.FTZ R6, R6, R11 ;"},
  {0xb0, 0xeff0ff803107ff00ull, "AST.64 a[0x310], R0, RZ ;"},
  {0xb8, 0x5c58300000470103ull, "FADD.FTZ R3, R1, -R4 ;"},
  {0xc8, 0xeff07f800747ff06ull, "AST a[0x74], R6, RZ ;"},
  {0xd0, 0x5c68100000a70707ull, "FMUL.FTZ R7, R7, R10 ;"},
  {0xd8, 0xeff07f8007c7ff0cull, "AST a[0x7c], R12, RZ ;"},
  {0xe8, 0x5c58300000570002ull, "FADD.FTZ R2, R0, -R5 ;"},
  {0xf0, 0xeff07f800707ff07ull, "AST a[0x70], R7, RZ ;"},
  {0xf8, 0xeff0ff803207ff02ull, "AST.64 a[0x320], R2, RZ ;"},
  {0x108, 0xe30000000007000full, "EXIT ;"},
  {0x110, 0xe2400fffff87000full, "BRA 0x110 ;"},
  {0x118, 0x50b0000000070f00ull, "NOP ;"},
};

static const blob_insn headsurface_ps[] = {
  {0x08, 0x4c9807900007000cull, "MOV R12, c[0x4][0x0] ;"},
  {0x10, 0xe003ff87cff7ff0bull, "IPA.PASS R11, a[0x7c] ;"},
  {0x18, 0x4c9807900017000aull, "MOV R10, c[0x4][0x4] ;"},
  {0x28, 0xe003ffb10ff7ff06ull, "IPA.PASS R6, a[0x310] ;"},
  {0x30, 0xe003ffb14ff7ff00ull, "IPA.PASS R0, a[0x314] ;"},
  {0x38, 0xe003ffb20ff7ff04ull, "IPA.PASS R4, a[0x320] ;"},
  {0x48, 0xe003ffb24ff7ff05ull, "IPA.PASS R5, a[0x324] ;"},
  {0x50, 0x5080000000470b0bull, "MUFU.RCP R11, R11 ;"},
  {0x58, 0x5c68118000670b06ull, "FMUL.FTZ.RZ R6, R11, R6 ;"},
  {0x68, 0x5c68118000070b07ull, "FMUL.FTZ.RZ R7, R11, R0 ;"},
  {0x70, 0x5c68118000470b04ull, "FMUL.FTZ.RZ R4, R11, R4 ;"},
  {0x78, 0xdeba0003a0c7060cull, "TEX.B.NODEP R12, R6, R12, 0x0, 2D, 0x7 ;"},
  {0x88, 0x5c68118000570b05ull, "FMUL.FTZ.RZ R5, R11, R5 ;"},
  {0x90, 0xdeba0007a0a70400ull, "TEX.B.NODEP R0, R4, R10, 0x0, 2D, 0xf ;"},
  {0x98, 0x59a1060000c70309ull, "FFMA.FTZ R9, R3, -R12, R12 ;"},
  {0xa8, 0x59a1068000d70308ull, "FFMA.FTZ R8, R3, -R13, R13 ;"},
  {0xb0, 0x59a1070000e70303ull, "FFMA.FTZ R3, R3, -R14, R14 ;"},
  {0xb8, 0x5c58100000970000ull, "FADD.FTZ R0, R0, R9 ;"},
  {0xc8, 0x5c58100000870101ull, "FADD.FTZ R1, R1, R8 ;"},
  {0xd0, 0x5c58100000370202ull, "FADD.FTZ R2, R2, R3 ;"},
  {0xd8, 0xe30000000007000full, "EXIT ;"},
};

static void check_blob(const blob_insn *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char text[200];
    sass_insn in;
    gs_diag d = {0};
    if (sass_decode(v[i].word, 0, v[i].off, &in, &d) < 0) fail_msg("%s", d.msg);
    if (sass_disasm_insn(v[i].word, v[i].off, text, sizeof text) < 0 || strcmp(text, v[i].text))
      fail_msg("0x%04x: 0x%016llx printed \"%s\", expected \"%s\"", v[i].off, (unsigned long long)v[i].word, text,
               v[i].text);
  }
}

static void test_appendix_programs(void **state) {
  (void)state;
  check_blob(headsurface_vs, sizeof headsurface_vs / sizeof headsurface_vs[0]);
  check_blob(headsurface_ps, sizeof headsurface_ps / sizeof headsurface_ps[0]);

  /* the vertex program's first five groups with their published control
   * words: each instruction gets its 21-bit field; the ALD at 0x08 has
   * 0x711 (stall 1, yield, write barrier 0) */
  static const uint64_t ctrl[5] = {0x001c4400fe200711ull, 0x001d4400e62007f1ull, 0x001dc400fe200731ull,
                                   0x001df400f6200791ull, 0x009f9000fe200ff0ull};
  uint8_t code[5 * 32];
  memset(code, 0, sizeof code);
  for (unsigned g = 0; g < 5; g++) gs_put_le64s(code + 32 * g, &ctrl[g], 1);
  for (size_t i = 0; i < 15; i++) gs_put_le64s(code + headsurface_vs[i].off, &headsurface_vs[i].word, 1);
  sass_insn *v;
  size_t n;
  gs_diag d = {0};
  assert_int_equal(sass_decode_program(code, sizeof code, &v, &n, &d), GS_OK);
  assert_int_equal(n, 15);
  for (size_t k = 0; k < n; k++) {
    assert_true(v[k].raw == headsurface_vs[k].word);
    assert_int_equal(v[k].ctrl, (ctrl[k / 3] >> (21 * (k % 3))) & 0x1FFFFF);
  }
  assert_int_equal(v[0].ctrl, 0x711);
  assert_int_equal(v[0].op, SASS_OP_ALD);
  assert_int_equal(sass_mod(&v[0], SASS_M_ALD_SIZE), 1);       /* .64 */
  assert_int_equal(sass_mod(&v[0], SASS_M_ALD_ADDR), 0x100);   /* generic8.xy */
  assert_int_equal(v[0].rd, 8);
  assert_int_equal(v[0].ra, SASS_RZ);
  assert_int_equal(v[0].rb, SASS_RZ);                          /* no vertex in a VS */
  assert_int_equal(v[1].op, SASS_OP_I2F);
  assert_int_equal(v[1].form, SASS_FORM_CBUF);
  assert_int_equal(v[1].cbank, 3);
  assert_int_equal(v[1].cbyte, 0x14);
  assert_int_equal(sass_mod(&v[1], SASS_M_I2F_DST), 2);        /* F32 */
  assert_int_equal(sass_mod(&v[1], SASS_M_I2F_SRC), 2);        /* U32 */
  assert_int_equal(sass_mod(&v[9], SASS_M_I2F_SRC), 6);        /* S32 */
  assert_int_equal(v[12].op, SASS_OP_FFMA);
  assert_int_equal(sass_mod(&v[12], SASS_M_FFMA_FMZ), 1);      /* .FTZ */
  assert_int_equal(sass_mod(&v[12], SASS_M_FFMA_RND), 0);
  assert_int_equal(v[12].rc, 0);
  assert_int_equal(v[13].op, SASS_OP_AST);
  assert_int_equal(sass_mod(&v[13], SASS_M_AST_ADDR), 0x300);  /* texcoord0 */
  assert_int_equal(v[13].rd, 8);                               /* the data */
  free(v);

  /* the PS: IPA.PASS, FMUL.FTZ.RZ (rounding 3), TEX.B with write mask 7 */
  sass_insn in;
  assert_int_equal(sass_decode(headsurface_ps[1].word, 0, 0x10, &in, &d), GS_OK);
  assert_int_equal(sass_mod(&in, SASS_M_IPA_MODE), 0);
  assert_int_equal(sass_mod(&in, SASS_M_IPA_ADDR), 0x7c);
  assert_int_equal(sass_decode(0xE043FFB100B7FF08ull, 0, 0x10, &in, &d), GS_OK); /* IPA R8, a[0x310], R11 */
  assert_int_equal(sass_mod(&in, SASS_M_IPA_MODE), 1);
  assert_int_equal(in.rb, 11);
  assert_int_equal(sass_decode(headsurface_ps[8].word, 0, 0x58, &in, &d), GS_OK);
  assert_int_equal(sass_mod(&in, SASS_M_FMUL_FMZ), 1);
  assert_int_equal(sass_mod(&in, SASS_M_FMUL_RND), 3);
  assert_int_equal(sass_decode(headsurface_ps[11].word, 0, 0x78, &in, &d), GS_OK);
  assert_int_equal(in.op, SASS_OP_TEX);
  assert_int_equal(sass_mod(&in, SASS_M_TEX_NODEP), 1);
  assert_int_equal(sass_mod(&in, SASS_M_TEX_WMASK), 7);
  assert_int_equal(sass_mod(&in, SASS_M_TEX_DIM), 1); /* 2D */
  assert_int_equal(in.rb, 12);                         /* the bindless handle */
  /* the padding BRA to itself: target = its own offset */
  assert_int_equal(sass_decode(0xe2400fffff87000full, 0, 0x110, &in, &d), GS_OK);
  assert_int_equal(in.imm, 0x110);
  /* at bundle + 8 the same pattern points at the control word (0x100) */
  assert_int_equal(sass_decode(0xE2400FFFFF07000Full, 0, 0x108, &in, &d), GS_OK);
  assert_int_equal(in.imm, 0x100);
}

/* Fields by id, for every form of a mnemonic. */
static void test_fields_by_id(void **state) {
  (void)state;
  sass_insn in;
  gs_diag d = {0};
  /* @P1 FADD32I R3, -R3, 1.5707963705062866211: FADD's ids read the 32I bits */
  assert_int_equal(sass_decode(0x0903FC90FDB10303ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(in.op, SASS_OP_FADD32I);
  assert_int_equal(sass_mod(&in, SASS_M_FADD_NEG_A), 1);
  assert_int_equal(sass_mod(&in, SASS_M_FADD_FTZ), 0);
  assert_int_equal(sass_mod(&in, SASS_M_FADD_RND), 0); /* none: RN */
  assert_int_equal(in.imm, 0x3FC90FDB);
  assert_int_equal(in.guard, 1);
  /* FADD.FTZ R5, -R4, -RZ */
  assert_int_equal(sass_decode(0x5C5930000FF70405ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(sass_mod(&in, SASS_M_FADD_FTZ), 1);
  assert_int_equal(sass_mod(&in, SASS_M_FADD_NEG_A), 1);
  assert_int_equal(sass_mod(&in, SASS_M_FADD_NEG_B), 1);
  assert_int_equal(sass_mod(&in, SASS_M_FADD_ABS_A), 0);
  assert_int_equal(sass_mod(&in, SASS_M_FMUL_FMZ), 0); /* another family's id */
  /* ISETP.GE.AND P3, PT, R4, c[0x0][0x170], PT */
  assert_int_equal(sass_decode(0x4B6D038005C7041Full, 0, 8, &in, &d), GS_OK);
  assert_int_equal(sass_mod(&in, SASS_M_ISETP_CMP), 6);
  assert_int_equal(sass_mod(&in, SASS_M_ISETP_SIGNED), 1);
  assert_int_equal(sass_mod(&in, SASS_M_ISETP_BOP), 0);
  assert_int_equal(sass_mod(&in, SASS_M_ISETP_PD), 3);
  assert_int_equal(sass_mod(&in, SASS_M_ISETP_PD2), SASS_PT);
  assert_int_equal(sass_mod(&in, SASS_M_ISETP_PC), SASS_PT);
  assert_int_equal(in.cbyte, 0x170);
  /* FFMA R4, R11, R20, c[0x2][0x4]: the rc form puts its register in rb */
  assert_int_equal(sass_decode(0x51800A0800170B04ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(in.form, SASS_FORM_RC);
  assert_int_equal(in.rb, 20);
  assert_int_equal(in.cbank, 2);
  assert_int_equal(in.cbyte, 4);
  /* FSETP.GEU.AND P0, PT, |R5|, 1.1754944e-38, PT: the f20 immediate expanded */
  assert_int_equal(sass_decode(0x36BE038080070587ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(in.imm, 0x00800000);
  assert_int_equal(sass_mod(&in, SASS_M_FSETP_ABS_A), 1);
  assert_int_equal(sass_mod(&in, SASS_M_FSETP_CMP), 14);
  /* IADD32I R1, R1, -0x60 */
  assert_int_equal(sass_decode(0x1C0FFFFFFA070101ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(in.imm, 0xFFFFFFA0);
  /* SHR R4, R3, 0x1f: a sign-extended 20-bit integer */
  assert_int_equal(sass_decode(0x3829000001F70304ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(in.imm, 0x1F);
  assert_int_equal(sass_mod(&in, SASS_M_SHR_SIGNED), 1);
  /* XMAD.CHI R3, R9.H1, R12, R3 */
  assert_int_equal(sass_decode(0x5B28018000C70903ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(sass_mod(&in, SASS_M_XMAD_MODE), 2);
  assert_int_equal(sass_mod(&in, SASS_M_XMAD_H1_A), 1);
  assert_int_equal(sass_mod(&in, SASS_M_XMAD_H1_B), 0);
  /* TEXS RZ, R3, R4, R5, 0x5a, 2D, R: rc holds the second destination */
  assert_int_equal(sass_decode(0xD82005AFF0570403ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(in.rd, 3);
  assert_int_equal(in.rc, SASS_RZ);
  assert_int_equal(sass_mod(&in, SASS_M_TEXS_TARGET), 1);
  assert_int_equal(sass_mod(&in, SASS_M_TEXS_INDEX), 0x5a);
  assert_int_equal(sass_mod(&in, SASS_M_TEXS_MASK), 0);
  /* DEPBAR.LE SB5, 0x1 */
  assert_int_equal(sass_decode(0xF0F0000034170000ull, 0, 8, &in, &d), GS_OK);
  assert_int_equal(sass_mod(&in, SASS_M_DEPBAR_LE), 1);
  assert_int_equal(sass_mod(&in, SASS_M_DEPBAR_SB), 5);
  assert_int_equal(sass_mod(&in, SASS_M_DEPBAR_COUNT), 1);
  /* SSY 0x1558 at 0x210: no guard, target pc + 8 + 0x1340 */
  assert_int_equal(sass_decode(0xE290000134000000ull, 0, 0x210, &in, &d), GS_OK);
  assert_int_equal(in.imm, 0x1558);
  assert_int_equal(in.guard, SASS_PT);
  /* FFMA32I: C is the destination */
  gs_isa_binary b;
  must_asm("FFMA32I R5, -R2, 0.5, -R5 ;", &b);
  assert_int_equal(sass_decode(word_at(&b, 8), 0, 8, &in, &d), GS_OK);
  assert_int_equal(in.op, SASS_OP_FFMA32I);
  assert_int_equal(in.rc, 5);
  assert_int_equal(in.imm, 0x3F000000);
  assert_int_equal(sass_mod(&in, SASS_M_FFMA_NEG_AB), 1);
  assert_int_equal(sass_mod(&in, SASS_M_FFMA_NEG_C), 1);
  /* the bits by hand: key 0x0C00 (bits 58-63 = 3), 57 -C, 56 -A, imm at 20 */
  assert_true(word_at(&b, 8) == ((uint64_t)0x03 << 58 | (uint64_t)1 << 57 | (uint64_t)1 << 56 |
                                 (uint64_t)0x3F000000 << 20 | (uint64_t)7 << 16 | 2u << 8 | 5u));
  gs_isa_binary_free(&b);
  /* and C must be the destination */
  contains(asm_error("FFMA32I R5, R2, 0.5, R6 ;"), "t.s:1:");
}

/* ---- round trip over random words of every row ---------------------------------- */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next64(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1Dull;
}

/* A random word of row r: random bits where the row has fields (a quarter
 * of its registers RZ and of its fields 0, so that combinations the decoder
 * refuses do not crowd out the rest), its MUST fields at their values,
 * constant banks below 18. */
static uint64_t random_word(const sass_row *r) {
  uint64_t m = sass_row_bits(r) & ~((uint64_t)r->mask << 48);
  uint64_t w = ((uint64_t)r->key << 48) | (next64() & m);
  for (unsigned k = 0; k < SASS_OPND_MAX && r->opnd[k].kind; k++)
    if ((r->opnd[k].kind == SASS_O_R || r->opnd[k].kind == SASS_O_ATTR || r->opnd[k].kind == SASS_O_CX ||
         r->opnd[k].kind == SASS_O_LMEM || r->opnd[k].kind == SASS_O_RI) && next64() % 4 == 0)
      w |= (uint64_t)0xFF << r->opnd[k].pos;
  for (unsigned k = 0; k < SASS_MOD_MAX; k++) {
    const sass_field *f = &r->fld[k];
    if (f->print && next64() % 4 == 0)
      w &= ~((((uint64_t)1 << f->width) - 1) << f->pos | (((uint64_t)1 << f->width2) - 1) << f->pos2);
  }
  for (unsigned k = 0; k < SASS_MOD_MAX; k++) {
    const sass_field *f = &r->fld[k];
    if (f->print != SASS_P_MUST) continue;
    w = (w & ~((((uint64_t)1 << f->width) - 1) << f->pos)) | (uint64_t)f->def << f->pos;
  }
  int cbuf = r->form == SASS_FORM_CBUF || r->form == SASS_FORM_CR || r->form == SASS_FORM_RC;
  if (cbuf) w = (w & ~((uint64_t)0x1F << 34)) | (next64() % 18) << 34;
  if (r->op == SASS_OP_LDC) w = (w & ~((uint64_t)0x1F << 36)) | (next64() % 18) << 36;
  return w;
}

static void test_random_round_trip(void **state) {
  (void)state;
  enum { PER_ROW = 300 };
  size_t cap = sass_table_len * PER_ROW, n = 0;
  uint64_t *words = malloc(cap * sizeof *words);
  assert_non_null(words);
  for (unsigned i = 0; i < sass_table_len; i++) {
    const sass_row *r = &sass_table[i];
    unsigned printable = 0;
    for (unsigned k = 0; k < PER_ROW; k++) {
      uint64_t w = random_word(r);
      if (sass_row_of(w) != (int)i) fail_msg("0x%016llx of %s decodes as another row", (unsigned long long)w, r->name);
      sass_insn in;
      gs_diag d = {0};
      if (sass_decode(w, 0, insn_off(n), &in, &d) < 0) { /* a combination the decoder refuses */
        if (!strstr(d.msg, "is not supported by gpusim")) fail_msg("%s: %s", r->name, d.msg);
        continue;
      }
      assert_int_equal(in.op, r->op);
      char text[200];
      if (sass_disasm_insn(w, insn_off(n), text, sizeof text) < 0) continue; /* a value without a name */
      printable++;
      /* a branch must land inside the code to be printed as an offset */
      words[n++] = w;
    }
    if (printable < PER_ROW / 8) fail_msg("%s: only %u of %u random words print", r->name, printable, PER_ROW);
  }
  while (n % 3) words[n++] = SASS_NOP_WORD;
  size_t size = n / 3 * 32;
  uint8_t *code = malloc(size);
  assert_non_null(code);
  for (size_t g = 0; g < n / 3; g++) {
    uint64_t v[4] = {next64() & 0x7FFFFFFFFFFFFFFFull, words[3 * g], words[3 * g + 1], words[3 * g + 2]};
    gs_put_le64s(code + 32 * g, v, 4);
  }
  char *text;
  gs_diag d = {0};
  assert_int_equal(sass_disasm(code, size, &text, &d), GS_OK);
  gs_isa_binary b;
  must_asm(text, &b);
  assert_int_equal(b.size, size);
  for (size_t off = 0; off < size; off += 8)
    if (memcmp(b.bytes + off, code + off, 8)) {
      uint64_t want;
      gs_get_le64s(&want, code + off, 1);
      fail_msg("0x%04zx: 0x%016llx came back as 0x%016llx", off, (unsigned long long)want,
               (unsigned long long)word_at(&b, off));
    }
  assert_int_equal(b.nlines, n);
  gs_isa_binary_free(&b);
  free(text);
  free(code);
  free(words);
}

/* ---- refusals ------------------------------------------------------------------------ */

static void test_refusals(void **state) {
  (void)state;
  sass_insn in;
  gs_diag d = {0};
  /* known but not run: refused by name, with the offset and the word */
  assert_int_equal(sass_decode(0xE260000000000000ull, 0, 0x28, &in, &d), GS_EINVAL);
  assert_string_equal(d.msg, "0x0028: 0xe260000000000000: CAL is not supported by gpusim");
  assert_int_equal(sass_decode(0xEF48000000000000ull, 0, 8, &in, &d), GS_EINVAL);
  contains(d.msg, "LDS is not supported by gpusim");
  assert_int_equal(sass_decode(0x5B70000000000000ull, 0, 8, &in, &d), GS_EINVAL);
  contains(d.msg, "DFMA is not supported by gpusim");
  /* unknown */
  assert_int_equal(sass_decode(0xFFF8000000000000ull, 0, 0x10, &in, &d), GS_EINVAL);
  assert_string_equal(d.msg, "0x0010: 0xfff8000000000000: unknown opcode (bits 48-63 0xfff8)");
  /* a MUST field: MOV's lane mask other than 0xF, IPA's bits 47-49 other than PT */
  assert_int_equal(sass_decode(0x5C98038000870001ull, 0, 8, &in, &d), GS_EINVAL);
  contains(d.msg, "MOV with bits 39-42 = 7 is not supported by gpusim");
  assert_int_equal(sass_decode(0xE0037F87CFF7FF0Bull, 0, 8, &in, &d), GS_EINVAL);
  contains(d.msg, "IPA with bits 47-49 = 6");
  /* combinations no source gives a meaning for */
  assert_int_equal(sass_decode(0xE003FF87CFF7010Bull, 0, 8, &in, &d), GS_EINVAL); /* IPA.PASS, Ra = R1 */
  contains(d.msg, "IPA without .IDX and Ra other than RZ is not supported by gpusim");
  assert_int_equal(sass_decode(0x1C8FFFFFFA070101ull, 0, 8, &in, &d), GS_EINVAL); /* IADD32I, bit 55 */
  contains(d.msg, "IADD32I with bit 55 but not bit 56");
  /* a value the table marks as having no known meaning: FMUL's FMZ 3 */
  assert_int_equal(sass_decode(0x5C68300000070000ull, 0, 8, &in, &d), GS_EINVAL);
  contains(d.msg, "FMUL with bits 44-45 = 3 (a value with no known meaning) is not supported by gpusim");
  /* constant bank 18 */
  assert_int_equal(sass_decode(0x4C98078000870001ull | (uint64_t)18 << 34, 0, 8, &in, &d), GS_EINVAL);
  contains(d.msg, "constant bank 18");
  /* code that is not whole groups */
  sass_insn *v;
  size_t n;
  uint8_t code[40] = {0};
  assert_int_equal(sass_decode_program(code, 40, &v, &n, &d), GS_EINVAL);
  contains(d.msg, "40 bytes");
  /* a word that does not decode, or has bits outside its fields, prints as
   * .inst with the reason and assembles back to itself */
  uint64_t odd[3] = {0xE260000000000000ull, 0x50B0000000070F00ull | (uint64_t)1 << 40, 0xFFF8000000000000ull};
  uint8_t c2[32];
  uint64_t ctrl = 0x001FD800FEC007F6ull;
  gs_put_le64s(c2, &ctrl, 1);
  gs_put_le64s(c2 + 8, odd, 3);
  char *text;
  assert_int_equal(sass_disasm(c2, 32, &text, &d), GS_OK);
  contains(text, ".inst 0xe260000000000000 ;");
  contains(text, "CAL is not supported by gpusim");
  contains(text, "NOP with bits 0x0000010000000000 outside its fields");
  gs_isa_binary b;
  must_asm(text, &b);
  assert_int_equal(b.size, 32);
  assert_memory_equal(b.bytes, c2, 32);
  gs_isa_binary_free(&b);
  free(text);
}

/* ---- assembler errors: file:line:column and what was expected -------------------- */

static void test_asm_errors(void **state) {
  (void)state;
  contains(asm_error("NOP\nFADD R0, R1 ;"), "t.s:2:1: expected a register as operand 3 of FADD");
  contains(asm_error("  FADD.XYZ R0, R1, R2 ;"), "t.s:1:3: FADD takes no modifier '.XYZ'");
  contains(asm_error("FOO R1 ;"), "t.s:1:1: unknown instruction 'FOO'");
  contains(asm_error("\n\n   CAL 0x10 ;"), "t.s:3:4: CAL is not supported by gpusim");
  contains(asm_error("FADD R0, R1, 1.1 ;"), "t.s:1:14: 1.1 (0x3f8ccccd) needs its low 12 mantissa bits zero");
  contains(asm_error("MOV R0, c[0x12][0x0] ;"), "t.s:1:9: constant bank 18 is not 0-17");
  contains(asm_error("MOV R0, c[0x1][0x2] ;"), "is not a multiple of 4");
  contains(asm_error("BRA nowhere ;"), "t.s:1:5: undefined label 'nowhere'");
  contains(asm_error("a: NOP\na: NOP"), "t.s:2:1: label 'a' is already defined on line 1");
  contains(asm_error("NOP\n/* open"), "t.s:2:1: comment '/*' is not closed");
  contains(asm_error("NOP ; // [B------:R-:W-:Y:S6:U0]"), "t.s:1:10: malformed scheduling annotation");
  contains(asm_error("FADD R0, R1, R2 ; FADD R0, R1, R2"), "t.s:1:19: expected the end of the line after ';'");
  contains(asm_error("IADD R0, R1, 0x80000 ;"), "does not fit IADD's 20-bit signed immediate");
  contains(asm_error("MOV R0, R1, R2 ;"), "MOV takes 2 operands; 'R2' is one too many");
  contains(asm_error("@P9 EXIT ;"), "t.s:1:1: expected a guard predicate");
  contains(asm_error("@P0 SSY 0x20 ;"), "SSY takes no guard predicate");
  contains(asm_error("FADD R0, ~R1, R2 ;"), "takes no '~'");
  contains(asm_error("TEXS RZ, R3, R4, R5, 0x5a, 2D, RGBA ;"), "is not a component mask for one destination");
  contains(asm_error("FADD R0, R1, ;"), "expected an operand after ','");
  contains(asm_error("NOP\n IPA R1, a[R2+0x10], R3 ;"), "t.s:2:2: IPA without .IDX and Ra other than RZ");
  contains(asm_error("IADD32I.PO R1, R1, 0x1 ;"), "IADD32I with bit 55 but not bit 56");
  contains(asm_error("I2I.U64.S32 R1, R2 ;"), "I2I takes no modifier '.U64'");
  contains(asm_error("F2I.U8.F32 R1, R2 ;"), "F2I takes no modifier '.U8'");
  contains(asm_error("FADD32I R1, R2, -0x3f800000 ;"), "expected a float immediate as operand 3 of FADD32I");
  contains(asm_error("FADD32I R1, R2, 1e39 ;"), "'1e39' is out of range for a 32-bit float");
}

/* Labels, comments, case, line table. */
static void test_labels_and_lines(void **state) {
  (void)state;
  gs_isa_binary b;
  must_asm("# a comment line\n"
           "start:\n"
           "  ssy end          // lower case, a forward label\n"
           "  @!p0 bra start\n"
           "/* a block\n comment */ nop\n"
           "end: sync ;\n"
           "  { EXIT ; }\n", &b);
  assert_int_equal(b.size, 64);
  assert_int_equal(b.nlines, 5);
  static const uint32_t lines[5] = {3, 4, 6, 7, 8};
  for (unsigned k = 0; k < 5; k++) {
    assert_int_equal(b.lines[k].offset, insn_off(k));
    assert_int_equal(b.lines[k].line, lines[k]);
  }
  /* SSY at 0x08 to end (0x28): offset 0x28 - 0x10 = 0x18 in bits 20-43 */
  assert_true(word_at(&b, 0x08) == (0xE290000000000000ull | (uint64_t)0x18 << 20));
  /* @!P0 BRA at 0x10 to start (0x08): offset -0x10, flow T, guard !P0 (8) */
  assert_true(word_at(&b, 0x10) == (0xE240000000000000ull | (uint64_t)(0x1000000 - 0x10) << 20 | 8u << 16 | 0xF));
  assert_true(word_at(&b, 0x28) == 0xF0F800000007000Full);
  assert_true(word_at(&b, 0x30) == 0xE30000000007000Full);
  assert_int_equal(gs_isa_binary_line(&b, 0x30), 8);
  gs_isa_binary_free(&b);
}

/* The registry entry and its hooks. */
static void test_registry(void **state) {
  (void)state;
  const gs_isa *isa = gs_isa_by_name("sass");
  assert_non_null(isa);
  assert_ptr_equal(isa, gs_isa_by_id(GS_ISA_SASS));
  assert_string_equal(isa->title, "NVIDIA Maxwell SASS");
  assert_int_equal(isa->lanes, 32);
  assert_int_equal(isa->code_align, 8);
  gs_isa_binary b;
  gs_diag d = {0};
  assert_int_equal(isa->assemble("MUFU.RCP R11, R11 ;\nEXIT ;", "r.s", 0x1000, &b, &d), GS_OK);
  assert_int_equal(b.size, 32);
  assert_true(word_at(&b, 8) == 0x5080000000470B0Bull);
  char *text;
  assert_int_equal(isa->disassemble(b.bytes, b.size, 0x1000, &text, &d), GS_OK);
  contains(text, "/*0008*/ MUFU.RCP R11, R11 ;");
  contains(text, "/*0010*/ EXIT ;");
  free(text);
  assert_int_equal(isa->disassemble(b.bytes, 24, 0, &text, &d), GS_EINVAL);
  gs_isa_binary_free(&b);
  assert_int_equal(isa->assemble("EXIT R0 ;", "r.s", 0, &b, &d), GS_EASM);
  contains(d.msg, "r.s:1:");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_published_encodings),
      cmocka_unit_test(test_reuse_marks),
      cmocka_unit_test(test_control_word),
      cmocka_unit_test(test_appendix_programs),
      cmocka_unit_test(test_fields_by_id),
      cmocka_unit_test(test_random_round_trip),
      cmocka_unit_test(test_refusals),
      cmocka_unit_test(test_asm_errors),
      cmocka_unit_test(test_labels_and_lines),
      cmocka_unit_test(test_registry),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
