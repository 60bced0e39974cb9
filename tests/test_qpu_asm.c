/* test_qpu_asm.c — the QPU assembler: text to exact words.
 *
 * Expected words are built here from the bit layout of reference/vc4.md
 * §1.2 with explicit shifts (not through table.h), and the names and codes
 * are re-listed from reference/vc4.md §1.4–§1.10, so a wrong table entry or
 * a wrong assembler rule makes these tests fail.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/qpu.h"

/* ---- independent encoders (reference/vc4.md §1.2) ---------------------- */

typedef struct alu_fields {
  unsigned sig, unpack, pm, pack, cond_add, cond_mul, sf, ws, waddr_add, waddr_mul;
  unsigned op_mul, op_add, raddr_a, raddr_b, add_a, add_b, mul_a, mul_b;
} alu_fields;

/* The fields of the canonical NOP 100009e7_009e7000. */
static alu_fields nop_fields(void) {
  alu_fields f;
  memset(&f, 0, sizeof f);
  f.sig = 1;
  f.waddr_add = f.waddr_mul = f.raddr_a = f.raddr_b = 39;
  return f;
}

static uint64_t alu_word(alu_fields f) {
  return (uint64_t)f.sig << 60 | (uint64_t)f.unpack << 57 | (uint64_t)f.pm << 56 |
         (uint64_t)f.pack << 52 | (uint64_t)f.cond_add << 49 | (uint64_t)f.cond_mul << 46 |
         (uint64_t)f.sf << 45 | (uint64_t)f.ws << 44 | (uint64_t)f.waddr_add << 38 |
         (uint64_t)f.waddr_mul << 32 | (uint64_t)f.op_mul << 29 | (uint64_t)f.op_add << 24 |
         (uint64_t)f.raddr_a << 18 | (uint64_t)f.raddr_b << 12 | (uint64_t)f.add_a << 9 |
         (uint64_t)f.add_b << 6 | (uint64_t)f.mul_a << 3 | (uint64_t)f.mul_b;
}

/* Load immediate: sig 14, type in [59:57], upper word as ALU, imm in [31:0]. */
static uint64_t ldi_word(unsigned type, unsigned pm, unsigned pack, unsigned cond_add,
                         unsigned cond_mul, unsigned sf, unsigned ws, unsigned waddr_add,
                         unsigned waddr_mul, uint32_t imm) {
  return (uint64_t)14 << 60 | (uint64_t)type << 57 | (uint64_t)pm << 56 | (uint64_t)pack << 52 |
         (uint64_t)cond_add << 49 | (uint64_t)cond_mul << 46 | (uint64_t)sf << 45 |
         (uint64_t)ws << 44 | (uint64_t)waddr_add << 38 | (uint64_t)waddr_mul << 32 | imm;
}

/* Branch: sig 15, cond [55:52], rel 51, reg 50, raddr_a [49:45], ws 44. */
static uint64_t branch_word(unsigned cond, unsigned rel, unsigned reg, unsigned raddr_a,
                            unsigned ws, unsigned waddr_add, uint32_t imm) {
  return (uint64_t)15 << 60 | (uint64_t)cond << 52 | (uint64_t)rel << 51 | (uint64_t)reg << 50 |
         (uint64_t)raddr_a << 45 | (uint64_t)ws << 44 | (uint64_t)waddr_add << 38 |
         (uint64_t)39 << 32 | imm;
}

static uint64_t hilo(uint32_t hi, uint32_t lo) { return (uint64_t)hi << 32 | lo; }

/* ---- helpers ------------------------------------------------------------- */

/* Assembles src at base and checks it gives exactly the n words. */
static void check_program(const char *src, uint32_t base, const uint64_t *want, size_t n) {
  uint64_t *w = NULL;
  size_t got = 0;
  gs_diag d;
  gs_diag_clear(&d);
  int rc = gs_qpu_asm(src, "t.s", base, &w, &got, &d);
  if (rc != GS_OK) fail_msg("'%s': %s", src, d.msg);
  if (got != n) fail_msg("'%s': %zu words, want %zu", src, got, n);
  for (size_t i = 0; i < n; i++)
    if (w[i] != want[i])
      fail_msg("'%s' word %zu: %08x_%08x, want %08x_%08x", src, i, (unsigned)(w[i] >> 32),
               (unsigned)w[i], (unsigned)(want[i] >> 32), (unsigned)want[i]);
  free(w);
}

static void check_asm(const char *src, uint64_t want) { check_program(src, 0, &want, 1); }

static void check_asmf(uint64_t want, const char *fmt, ...) {
  char src[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(src, sizeof src, fmt, ap);
  va_end(ap);
  check_asm(src, want);
}

/* ---- names and codes re-listed from reference/vc4.md ---------------------- */

static const struct { unsigned code; const char *name; int unary; } add_ops[] = {
    {1, "fadd", 0},  {2, "fsub", 0},  {3, "fmin", 0},    {4, "fmax", 0},    {5, "fminabs", 0},
    {6, "fmaxabs", 0}, {7, "ftoi", 1}, {8, "itof", 1},   {12, "add", 0},    {13, "sub", 0},
    {14, "shr", 0},  {15, "asr", 0},  {16, "ror", 0},    {17, "shl", 0},    {18, "min", 0},
    {19, "max", 0},  {20, "and", 0},  {21, "or", 0},     {22, "xor", 0},    {23, "not", 1},
    {24, "clz", 1},  {30, "v8adds", 0}, {31, "v8subs", 0}};
static const char *const mul_ops[8] = {"nop", "fmul", "mul24", "v8muld", "v8min", "v8max", "v8adds", "v8subs"};
static const char *const conds[8] = {"never", "always", "zs", "zc", "ns", "nc", "cs", "cc"};
static const char *const signals[13] = {"bkpt", NULL, "thrsw", "thrend", "sbwait", "sbdone", "lthrsw",
                                        "loadcv", "loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam"};
static const char *const packs[16] = {NULL, "16a", "16b", "8888", "8a", "8b", "8c", "8d",
                                      "32s", "16as", "16bs", "8888s", "8as", "8bs", "8cs", "8ds"};
static const char *const unpacks[8] = {NULL, "16a", "16b", "8dr", "8a", "8b", "8c", "8d"};
static const char *const branch_conds[12] = {"allz", "allnz", "anyz", "anynz", "alln", "allnn",
                                             "anyn", "anynn", "allc", "allnc", "anyc", "anync"};

/* ---- reference/vc4.md §1.3 worked decodes ---------------------------------- */

static const struct { const char *text; uint64_t word; } worked[] = {
    {"nop", 0x100009e7009e7000},
    {"or r0, unif, unif", 0x1002082715827d80},
    {"mov r0, unif", 0x1002082715827d80},
    {"shl r2, elem_num, 3", 0xd00208a711983dc0},
    {"ldi rb27, 16", 0xe00216e700000010},
    {"or tlb_colour_all, r3, r3 ; thrend", 0x30020ba7159e76c0},
    {"fmul r0, vary, ra15", 0x100049e0203e303e},
    {"fmul r3.8c, r0, 1.0", 0xd16049e3209e0007},
    {"itof r0, rb15 ; v8min sfu_recip, ra15, ra15", 0x10024834883cfff6},
    {"ldi vr_setup, 0x00701a00", 0xe0020c6700701a00},
    {"or ra0, vpm, 0", 0xd002002715c00dc0},
    /* the blob chose ws=1 for a MUL write to r0; nothing in the text asks for it */
    {"v8min r0.8a, unif, unif {ws=1}", 0x114059e080827036},
    {"or tlb_colour_all, r0, r0 ; sbdone", 0x50020ba7159e7000},
    {"or tmu0_t, r0, r0 ; lthrsw", 0x60020e67159e7000},
    {"add r0, r0, r3 ; ldtmu0", 0xa00208270c9e70c0},
    {"bra -, ra0", 0xf0f409e700000000},
    {"brr ra4, +0xb0", 0xf0f80127000000b0},
    {"sacq 9", 0xe80009e700000019},
};

static void test_worked_decodes_assemble(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof worked / sizeof worked[0]; i++) check_asm(worked[i].text, worked[i].word);
}

/* The fields reference/vc4.md §1.3 spells out, read back with explicit shifts. */
static unsigned bits(uint64_t w, unsigned lo, unsigned width) {
  return (unsigned)(w >> lo) & ((1u << width) - 1);
}

static void test_worked_decode_fields(void **state) {
  (void)state;
  uint64_t w = 0x1002082715827d80; /* or r0, unif, unif */
  assert_int_equal(bits(w, 60, 4), 1);
  assert_int_equal(bits(w, 49, 3), 1);
  assert_int_equal(bits(w, 38, 6), 32);
  assert_int_equal(bits(w, 24, 5), 21);
  assert_int_equal(bits(w, 18, 6), 32);
  assert_int_equal(bits(w, 9, 3), 6);
  assert_int_equal(bits(w, 6, 3), 6);
  w = 0xd00208a711983dc0; /* shl r2, elem_num, 3 */
  assert_int_equal(bits(w, 60, 4), 13);
  assert_int_equal(bits(w, 18, 6), 38);
  assert_int_equal(bits(w, 12, 6), 3);
  assert_int_equal(bits(w, 9, 3), 6);
  assert_int_equal(bits(w, 6, 3), 7);
  w = 0xe00216e700000010; /* ldi rb27, 16 */
  assert_int_equal(bits(w, 44, 1), 1);
  assert_int_equal(bits(w, 38, 6), 27);
  w = 0x30020ba7159e76c0; /* ... ; thrend */
  assert_int_equal(bits(w, 60, 4), 3);
  assert_int_equal(bits(w, 38, 6), 46);
  w = 0x100049e0203e303e; /* fmul r0, vary, ra15 */
  assert_int_equal(bits(w, 3, 3), 7);
  assert_int_equal(bits(w, 12, 6), 35);
  assert_int_equal(bits(w, 0, 3), 6);
  assert_int_equal(bits(w, 18, 6), 15);
  w = 0xd16049e3209e0007; /* fmul r3.8c, r0, 1.0 */
  assert_int_equal(bits(w, 60, 4), 13);
  assert_int_equal(bits(w, 56, 1), 1);
  assert_int_equal(bits(w, 52, 4), 6);
  assert_int_equal(bits(w, 29, 3), 1);
  assert_int_equal(bits(w, 12, 6), 32);
  w = 0xf0f409e700000000; /* bra -, ra0 */
  assert_int_equal(bits(w, 50, 1), 1);
  assert_int_equal(bits(w, 51, 1), 0);
  assert_int_equal((uint32_t)w, 0);
  w = 0xe80009e700000019; /* sacq 9 */
  assert_int_equal(bits(w, 57, 3), 4);
  assert_int_equal(bits(w, 4, 1), 1);
  assert_int_equal(bits(w, 0, 4), 9);
}

/* ---- every opcode, condition, signal ------------------------------------------ */

static void test_add_ops_conditions_setf(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof add_ops / sizeof add_ops[0]; i++)
    for (unsigned c = 0; c < 8; c++)
      for (unsigned sf = 0; sf < 2; sf++) {
        alu_fields f = nop_fields();
        f.op_add = add_ops[i].code;
        f.cond_add = c;
        f.sf = sf;
        f.waddr_add = 32; /* r0 */
        f.add_a = 1;
        f.add_b = add_ops[i].unary ? 1 : 2;
        check_asmf(alu_word(f), "%s.%s%s r0, r1%s", add_ops[i].name, conds[c], sf ? ".setf" : "",
                   add_ops[i].unary ? "" : ", r2");
        if (c == 1) /* always is the default for a real op */
          check_asmf(alu_word(f), "%s%s r0, r1%s", add_ops[i].name, sf ? ".sf" : "",
                     add_ops[i].unary ? "" : ", r2");
      }
  /* a unary op with a second source keeps it in mux B */
  alu_fields f = nop_fields();
  f.op_add = 8, f.cond_add = 1, f.waddr_add = 32, f.add_a = 0, f.add_b = 7, f.raddr_b = 0;
  check_asm("itof r0, r0, rb0", alu_word(f));
}

static void test_condition_aliases(void **state) {
  (void)state;
  static const char *const alias[8] = {NULL, NULL, "ifz", "ifnz", "ifn", "ifnn", "ifc", "ifnc"};
  for (unsigned c = 2; c < 8; c++) {
    alu_fields f = nop_fields();
    f.op_add = 12, f.cond_add = c, f.waddr_add = 33, f.add_a = 2, f.add_b = 3;
    check_asmf(alu_word(f), "add.%s r1, r2, r3", alias[c]);
  }
}

static void test_mul_ops(void **state) {
  (void)state;
  for (unsigned op = 1; op < 8; op++)
    for (unsigned c = 0; c < 8; c++) {
      alu_fields f = nop_fields();
      f.op_mul = op, f.cond_mul = c, f.waddr_mul = 34, f.mul_a = 1, f.mul_b = 3;
      check_asmf(alu_word(f), "nop ; %s.%s r2, r1, r3", mul_ops[op], conds[c]);
    }
  /* alone, the MUL-only ops are the MUL part; mov on the MUL is v8min */
  alu_fields f = nop_fields();
  f.op_mul = 2, f.cond_mul = 1, f.waddr_mul = 32, f.mul_a = 4, f.mul_b = 5;
  check_asm("mul24 r0, r4, r5", alu_word(f));
  f.op_mul = 4, f.mul_a = f.mul_b = 3;
  check_asm("nop ; mov r0, r3", alu_word(f));
  /* flags come from the MUL when the ADD is nop */
  f.sf = 1;
  check_asm("nop ; mov.setf r0, r3", alu_word(f));
  /* ADD and MUL together: MUL writes the B side */
  f = nop_fields();
  f.op_add = 12, f.cond_add = 1, f.waddr_add = 5, f.add_a = 0, f.add_b = 1;
  f.op_mul = 1, f.cond_mul = 1, f.waddr_mul = 7, f.mul_a = 2, f.mul_b = 3;
  check_asm("add ra5, r0, r1 ; fmul rb7, r2, r3", alu_word(f));
  f.ws = 1; /* rb5 / ra7 need the swap */
  check_asm("add rb5, r0, r1 ; fmul ra7, r2, r3", alu_word(f));
}

static void test_signals(void **state) {
  (void)state;
  for (unsigned s = 0; s < 13; s++) {
    if (!signals[s]) continue;
    alu_fields f = nop_fields();
    f.sig = s;
    check_asm(signals[s], alu_word(f));
    f.op_add = 21, f.cond_add = 1, f.waddr_add = 32, f.add_a = f.add_b = 1;
    check_asmf(alu_word(f), "mov r0, r1 ; %s", signals[s]);
    check_asmf(alu_word(f), "mov r0, r1 ; nop ; %s", signals[s]);
  }
}

/* ---- packs and unpacks --------------------------------------------------------- */

static void test_packs(void **state) {
  (void)state;
  for (unsigned p = 1; p < 16; p++) {
    alu_fields f = nop_fields(); /* ADD writes ra5 through the A side: pm=0 */
    f.pack = p, f.op_add = 1, f.cond_add = 1, f.waddr_add = 5, f.add_a = 0, f.add_b = 1;
    check_asmf(alu_word(f), "fadd ra5.%s, r0, r1", packs[p]);
    f = nop_fields(); /* MUL writes ra5: ws=1, still the regfile-A pack */
    f.pack = p, f.ws = 1, f.op_mul = 1, f.cond_mul = 1, f.waddr_mul = 5, f.mul_a = 0, f.mul_b = 1;
    check_asmf(alu_word(f), "fmul ra5.%s, r0, r1", packs[p]);
  }
  for (unsigned p = 3; p < 8; p++) { /* MUL colour pack, pm=1, on any other destination */
    alu_fields f = nop_fields();
    f.pm = 1, f.pack = p, f.op_mul = 1, f.cond_mul = 1, f.waddr_mul = 32, f.mul_a = 0, f.mul_b = 1;
    check_asmf(alu_word(f), "fmul r0.%s, r0, r1", packs[p]);
    f.waddr_mul = 9;
    check_asmf(alu_word(f), "fmul rb9.%s, r0, r1", packs[p]);
  }
}

static void test_unpacks(void **state) {
  (void)state;
  for (unsigned u = 1; u < 8; u++) {
    alu_fields f = nop_fields(); /* regfile A: pm=0 */
    f.unpack = u, f.op_add = 1, f.cond_add = 1, f.waddr_add = 32, f.raddr_a = 3, f.add_a = 6, f.add_b = 1;
    check_asmf(alu_word(f), "fadd r0, ra3.%s, r1", unpacks[u]);
    f.raddr_a = 32; /* a name both files have moves to regfile A for the unpack */
    check_asmf(alu_word(f), "fadd r0, unif.%s, r1", unpacks[u]);
    f = nop_fields(); /* r4: pm=1 */
    f.unpack = u, f.pm = 1, f.op_mul = 1, f.cond_mul = 1, f.waddr_mul = 32, f.mul_a = 4, f.mul_b = 0;
    check_asmf(alu_word(f), "fmul r0, r4.%s, r0", unpacks[u]);
  }
  /* unpack pm=1 with a colour pack (pm=1) is consistent */
  alu_fields f = nop_fields();
  f.unpack = 1, f.pm = 1, f.pack = 4, f.op_mul = 1, f.cond_mul = 1, f.waddr_mul = 32, f.mul_a = 4;
  check_asm("fmul r0.8a, r4.16a, r0", alu_word(f));
}

/* ---- read and write addresses --------------------------------------------------- */

static void test_read_addresses(void **state) {
  (void)state;
  static const struct { const char *name; unsigned addr, file; } reads[] = {
      {"unif", 32, 0},   {"vary", 35, 0},    {"elem_num", 38, 0}, {"-", 39, 0},
      {"x_coord", 41, 0}, {"ms_mask", 42, 0}, {"vpm", 48, 0},     {"vr_busy", 49, 0},
      {"vr_wait", 50, 0}, {"mutex", 51, 0},   {"qpu_num", 38, 1},  {"y_coord", 41, 1},
      {"rev_flag", 42, 1}, {"vw_busy", 49, 1}, {"vw_wait", 50, 1}};
  for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
    alu_fields f = nop_fields();
    f.op_add = 21, f.cond_add = 1, f.waddr_add = 32;
    f.add_a = f.add_b = 6 + reads[i].file;
    *(reads[i].file ? &f.raddr_b : &f.raddr_a) = reads[i].addr;
    check_asmf(alu_word(f), "mov r0, %s", reads[i].name);
  }
  for (unsigned n = 0; n < 32; n++) {
    alu_fields f = nop_fields();
    f.op_add = 12, f.cond_add = 1, f.waddr_add = 32, f.raddr_a = n, f.raddr_b = 31 - n, f.add_a = 6, f.add_b = 7;
    check_asmf(alu_word(f), "add r0, ra%u, rb%u", n, 31 - n);
  }
  /* names of both files take the port that is left; identical reads share it */
  alu_fields f = nop_fields();
  f.op_add = 12, f.cond_add = 1, f.waddr_add = 32, f.raddr_a = 5, f.raddr_b = 32, f.add_a = 7, f.add_b = 6;
  check_asm("add r0, unif, ra5", alu_word(f));
  f.raddr_a = 32, f.raddr_b = 35, f.add_a = 6, f.add_b = 7;
  check_asm("add r0, unif, vary", alu_word(f));
  f.op_mul = 1, f.cond_mul = 1, f.waddr_mul = 33, f.mul_a = 7, f.mul_b = 6;
  check_asm("add r0, unif, vary ; fmul r1, vary, unif", alu_word(f));
}

static void test_write_addresses(void **state) {
  (void)state;
  static const char *const a_side[64] = {
      [32] = "r0", "r1", "r2", "r3", "tmu_noswap", "r5quad", "host_int", "-", "unif_addr", "quad_x",
      "ms_flags", "tlb_stencil", "tlb_z", "tlb_colour_ms", "tlb_colour_all", "tlb_alpha_mask", "vpm",
      "vr_setup", "vr_addr", "mutex_release", "sfu_recip", "sfu_recipsqrt", "sfu_exp", "sfu_log",
      "tmu0_s", "tmu0_t", "tmu0_r", "tmu0_b", "tmu1_s", "tmu1_t", "tmu1_r", "tmu1_b"};
  static const char *const b_only[64] = {[37] = "r5rep", [40] = "unif_addr_rel", [41] = "quad_y",
                                         [42] = "rev_flag", [49] = "vw_setup", [50] = "vw_addr"};
  for (unsigned addr = 32; addr < 64; addr++) {
    alu_fields f = nop_fields();
    f.op_add = 21, f.cond_add = 1, f.waddr_add = addr, f.add_a = f.add_b = 1;
    check_asmf(alu_word(f), "mov %s, r1", a_side[addr]); /* A side or both: ws=0 */
    if (b_only[addr]) {
      f.ws = 1;
      check_asmf(alu_word(f), "mov %s, r1", b_only[addr]);
    }
  }
  for (unsigned n = 0; n < 32; n++) {
    alu_fields f = nop_fields();
    f.op_add = 21, f.cond_add = 1, f.waddr_add = n, f.add_a = f.add_b = 1;
    check_asmf(alu_word(f), "mov ra%u, r1", n);
    f.ws = 1;
    check_asmf(alu_word(f), "mov rb%u, r1", n);
  }
}

/* ---- small immediates and rotation ------------------------------------------------ */

/* The small-immediate code of reference/vc4.md §1.5, by its general rule. */
static void test_small_immediates(void **state) {
  (void)state;
  for (int v = -16; v <= 15; v++) {
    alu_fields f = nop_fields();
    f.sig = 13, f.op_add = 12, f.cond_add = 1, f.waddr_add = 32, f.raddr_b = v >= 0 ? (unsigned)v : (unsigned)(v + 32);
    f.add_a = 1, f.add_b = 7;
    check_asmf(alu_word(f), "add r0, r1, %d", v);
  }
  static const char *const powers[16] = {"1.0", "2.0", "4.0", "8.0", "16.0", "32.0", "64.0", "128.0",
                                         "0.00390625", "0.0078125", "0.015625", "0.03125", "0.0625",
                                         "0.125", "0.25", "0.5"};
  for (unsigned i = 0; i < 16; i++) {
    alu_fields f = nop_fields();
    f.sig = 13, f.op_add = 1, f.cond_add = 1, f.waddr_add = 32, f.raddr_b = 32 + i, f.add_a = 1, f.add_b = 7;
    check_asmf(alu_word(f), "fadd r0, r1, %s", powers[i]);
  }
  /* a value given as its bit pattern or through a constant */
  alu_fields f = nop_fields();
  f.sig = 13, f.op_add = 1, f.cond_add = 1, f.waddr_add = 32, f.raddr_b = 32, f.add_a = 1, f.add_b = 7;
  check_asm("fadd r0, r1, 0x3f800000", alu_word(f));
  check_asm(".set ONE, 1.0\nfadd r0, r1, ONE", alu_word(f));
}

static void test_rotations(void **state) {
  (void)state;
  for (unsigned n = 1; n < 16; n++) {
    alu_fields f = nop_fields();
    f.sig = 13, f.raddr_b = 48 + n, f.op_mul = 1, f.cond_mul = 1, f.waddr_mul = 32, f.mul_a = 1, f.mul_b = 2;
    check_asmf(alu_word(f), "fmul r0, r1, r2 >> %u", n);
    /* the rotation code read through mux B is -16 + n */
    f.mul_b = 7;
    check_asmf(alu_word(f), "fmul r0, r1, %d >> %u", (int)n - 16, n);
  }
  alu_fields f = nop_fields();
  f.sig = 13, f.raddr_b = 48, f.op_mul = 4, f.cond_mul = 1, f.waddr_mul = 32, f.mul_a = f.mul_b = 1;
  check_asm("nop ; mov r0, r1 >> r5", alu_word(f));
}

/* ---- load immediate and semaphores ------------------------------------------------ */

static void test_load_immediates(void **state) {
  (void)state;
  check_asm("ldi r0, 0x12345678", ldi_word(0, 0, 0, 1, 0, 0, 0, 32, 39, 0x12345678));
  check_asm("ldi r0, -1", ldi_word(0, 0, 0, 1, 0, 0, 0, 32, 39, 0xffffffff));
  check_asm("ldi r0, 4294967295", ldi_word(0, 0, 0, 1, 0, 0, 0, 32, 39, 0xffffffff));
  check_asm("ldi r0, 1.5", ldi_word(0, 0, 0, 1, 0, 0, 0, 32, 39, 0x3fc00000));
  check_asm("ldi r0, -2.0", ldi_word(0, 0, 0, 1, 0, 0, 0, 32, 39, 0xc0000000));
  check_asm("ldi.zc.setf ra3.16b, 7", ldi_word(0, 0, 2, 3, 0, 1, 0, 3, 39, 7));
  check_asm("ldi rb3, 7 ; ldi.ns ra4", ldi_word(0, 0, 0, 1, 4, 0, 1, 3, 4, 7));
  check_asm("ldi r1, 7 ; ldi r2.8888", ldi_word(0, 1, 3, 1, 1, 0, 0, 33, 34, 7));
  check_asm("ldi.never -, 0", ldi_word(0, 0, 0, 0, 0, 0, 0, 39, 39, 0));
  /* per element: element i has bit i (low) and bit 16+i (high), §1.2 */
  check_asm("ldi.pes r0, [0, 1, -2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]",
            ldi_word(1, 0, 0, 1, 0, 0, 0, 32, 39, 0x000c800a));
  check_asm("ldi.peu r0, [3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]",
            ldi_word(3, 0, 0, 1, 0, 0, 0, 32, 39, 0x80038005));
  /* a label is its absolute address */
  uint64_t want[2] = {ldi_word(0, 0, 0, 1, 0, 0, 0, 32, 39, 0x1008), 0x100009e7009e7000};
  check_program("ldi r0, here\nhere: nop", 0x1000, want, 2);
}

static void test_semaphores(void **state) {
  (void)state;
  for (unsigned n = 0; n < 16; n++) {
    check_asmf(hilo(0xe80009e7, 0x10 | n), "sacq %u", n);
    check_asmf(hilo(0xe80009e7, n), "srel %u", n);
  }
}

/* ---- branches and labels ------------------------------------------------------------ */

static void test_branch_conditions(void **state) {
  (void)state;
  for (unsigned c = 0; c < 12; c++) {
    check_asmf(branch_word(c, 1, 0, 0, 0, 39, 0x40), "brr.%s +0x40", branch_conds[c]);
    check_asmf(branch_word(c, 0, 0, 0, 0, 39, 0x40), "bra.%s 0x40", branch_conds[c]);
  }
  check_asm("brr 0x40", branch_word(15, 1, 0, 0, 0, 39, 0x40));
  check_asm("brr.always 0x40", branch_word(15, 1, 0, 0, 0, 39, 0x40));
}

static void test_branch_forms(void **state) {
  (void)state;
  check_asm("brr -0x20", branch_word(15, 1, 0, 0, 0, 39, 0xffffffe0));
  check_asm("brr ra4, -8", branch_word(15, 1, 0, 0, 0, 4, 0xfffffff8));
  check_asm("brr rb4, 0", branch_word(15, 1, 0, 0, 1, 4, 0)); /* link in regfile B: ws=1 */
  check_asm("bra r0, 0x100", branch_word(15, 0, 0, 0, 0, 32, 0x100));
  check_asm("bra ra7", branch_word(15, 0, 1, 7, 0, 39, 0));
  check_asm("bra -, ra31", branch_word(15, 0, 1, 31, 0, 39, 0));
  check_asm("bra.anyc ra1, ra2, 0x18", branch_word(10, 0, 1, 2, 0, 1, 0x18));
  check_asm("brr -, ra2, -16", branch_word(15, 1, 1, 2, 0, 39, 0xfffffff0));
}

/* brr: imm = label - (branch + 32); bra: imm = the label's absolute address
 * (reference/vc4.md §1.14). */
static void test_labels(void **state) {
  (void)state;
  const char *src =
      "start:\n"                 /* 0x00 */
      "  nop\n"                  /* 0x00 */
      "  brr.anyz forward\n"     /* 0x08: forward (0x38) - (0x08 + 32) = 0x10 */
      "  nop\n  nop\n  nop\n"    /* 0x10 0x18 0x20 */
      "back: nop\n"              /* 0x28 */
      "  brr back  # comment\n"  /* 0x30: 0x28 - 0x50 = -0x28 */
      "forward: bra ra1, start\n" /* 0x38: absolute base + 0 */
      "  brr start // comment\n"; /* 0x40: 0 - 0x60 = -0x60 */
  uint64_t nop = 0x100009e7009e7000;
  uint64_t want[9] = {nop,
                      branch_word(2, 1, 0, 0, 0, 39, 0x10),
                      nop, nop, nop, nop,
                      branch_word(15, 1, 0, 0, 0, 39, 0xffffffd8),
                      branch_word(15, 0, 0, 0, 0, 1, 0),
                      branch_word(15, 1, 0, 0, 0, 39, 0xffffffa0)};
  check_program(src, 0, want, 9);
  /* with a base, relative offsets stay and absolute targets move */
  want[7] = branch_word(15, 0, 0, 0, 0, 1, 0x80001000);
  check_program(src, 0x80001000, want, 9);
  /* label arithmetic and several labels on one line */
  uint64_t two[2] = {branch_word(15, 1, 0, 0, 0, 39, 0xffffffe8), nop};
  check_program("a: b: brr a + 8\nnop", 0, two, 2);
}

/* ---- data directives ------------------------------------------------------------------ */

static void test_data_directives(void **state) {
  (void)state;
  /* the seed's style: .word lo, hi of one instruction */
  uint64_t want[3] = {0x1002002715c27df7, 0x123456789abcdef0, 0x100009e7009e7000};
  check_program(".word 0x15C27DF7, 0x10020027\n.dword 0x123456789abcdef0\nnop", 0, want, 3);
  check_program(".word 0x15C27DF7\n.word 0x10020027\n.dword 0x123456789abcdef0, 0x100009e7009e7000", 0,
                want, 3);
  uint64_t neg[1] = {0xfffffffefffffff0};
  check_program(".word -16, -2", 0, neg, 1);
  uint64_t all[1] = {0xffffffffffffffff};
  check_program(".dword 0xffffffffffffffff", 0, all, 1);
  uint64_t consts[2] = {hilo(0xe0020827, 40), branch_word(15, 1, 0, 0, 0, 39, 0x18)};
  check_program(".set N, 5\n.set M, N * 8\nldi r0, M\nbrr M - 16", 0, consts, 2);
}

/* ---- errors ------------------------------------------------------------------------------ */

static const struct { const char *src, *where, *phrase; } bad[] = {
    {"foo r0, r1, r2", "t.s:1:1:", "unknown instruction"},
    {"nop\n  add r0, rx1, r2", "t.s:2:11:", "unknown register"},
    {"add q0, r1, r2", "t.s:1:5:", "unknown destination register"},
    {"add.zz r0, r1, r2", "t.s:1:4:", "unknown suffix"},
    {"fadd r0, ra1.16x, r2", "t.s:1:13:", "unknown unpack"},
    {"add r0 r1, r2", "t.s:1:8:", "expected ','"},
    {"add r0, r1 r2", "t.s:1:12:", "expected ','"},
    {"add r0, r1,", "t.s:1:12:", "expected a value"},
    {"add r0, r1", "t.s:1:1:", "two sources"},
    {"not r0, r1, r2, r3", "t.s:1:15:", "expected ';'"},
    {"mov r0, r1, r2", "t.s:1:1:", "one source"},
    {"add r0, r1, 16", "t.s:1:13:", "small immediate"},
    {"fadd r0, r1, 3.0", "t.s:1:14:", "small immediate"},
    {"ldi r0, 0x100000000", "t.s:1:9:", "does not fit in 32 bits"},
    {"ldi r0, -2147483649", "t.s:1:9:", "does not fit in 32 bits"},
    {"sacq 16", "t.s:1:6:", "out of range"},
    {"fmul r0, r1, r2 >> 16", "t.s:1:20:", "out of range"},
    {"ldi.pes r0, [0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]", "t.s:1:20:", "out of range"},
    {"ldi.peu r0, [0, 1]", "t.s:1:18:", "expected ','"},
    {"brr nowhere", "t.s:1:5:", "undefined symbol"},
    {"x: nop\nx: nop", "t.s:2:1:", "already defined"},
    {".set x, 1\nx: nop", "t.s:2:1:", "already defined"},
    {"ldi r0, K\n.set K, 1", "t.s:1:9:", "undefined symbol"},
    {"add rb0, r1, r2 ; fmul rb1, r1, r2", "t.s:1:24:", "regfile-B write side"},
    {"add ra0, r1, r2 ; fmul ra1, r1, r2", "t.s:1:24:", "regfile-A write side"},
    {"add r0, ra1, ra2", "t.s:1:14:", "regfile A is already read"},
    {"add r0, rb1, rb2", "t.s:1:14:", "regfile B is already read"},
    {"add r0, rb1, 2", "t.s:1:14:", "already reads a register"},
    {"add r0, 1, 2", "t.s:1:12:", "small immediate"},
    {"add r0, elem_num, unif ; fmul r1, qpu_num, vary", "t.s:1:19:", "no read port left"},
    {"add r0, r1, 3 ; ldtmu0", "t.s:1:17:", "cannot be combined with a signal"},
    {"fmul r0, r1, r2 >> 2 ; thrsw", "t.s:1:24:", "cannot be combined with a signal"},
    {"fmul r0, r1, 3 >> 2", "t.s:1:14:", "reads as -14"},
    {"fmul r0, rb1, r2 >> 2", "t.s:1:10:", "raddr_b already holds"},
    {"add r0, r1, r2 >> 2", "t.s:1:16:", "MUL ALU"},
    {"thrsw ; ldtmu0", "t.s:1:9:", "one signal"},
    {"nop ; nop ; nop", "t.s:1:13:", "more than two"},
    {"add r0, r1, r2 ; ldi r1, 2", "t.s:1:18:", "cannot be combined"},
    {"nop r0", "t.s:1:5:", "no operands"},
    {"add r0.16a, r1, r2", "t.s:1:7:", "regfile-A destination"},
    {"fmul r0.16a, r1, r2", "t.s:1:8:", "colour pack"},
    {"add r0, r1.8a, r2", "t.s:1:11:", "needs r4"},
    {"fadd r0, r4.16a, ra1.8a", "t.s:1:18:", "conflicting unpack"},
    {"fmul ra1.8a, r4.16a, r0", "t.s:1:1:", "pm="},
    {"fadd.setf r0, r1, r2 ; fmul.setf r3, r1, r2", "t.s:1:24:", ".setf"},
    {"brr 0x5", "t.s:1:5:", "multiple of 8"},
    {"bra -, rb0", "t.s:1:8:", "undefined symbol"},
    {"bra -, r0, 8", "t.s:1:8:", "ra0..ra31"},
    {"brr", "t.s:1:4:", "target"},
    {"brr.allq 0", "t.s:1:4:", "unknown suffix"},
    {".word 1", "t.s:1:1:", "odd number"},
    {".word 1\nnop", "t.s:2:1:", "odd number"},
    {".word 1\nlab: .word 2", "t.s:2:1:", "odd number"},
    {".bogus 1", "t.s:1:1:", "unknown directive"},
    {"nop {op_add=9}", "t.s:1:1:", "reserved add opcode"},
    {"nop {sig=14}", "t.s:1:10:", "kind of instruction"},
    {"nop {imm=1}", "t.s:1:6:", "not a field"},
    {"nop {op_add=32}", "t.s:1:13:", "out of range"},
    {"nop {op_add 1}", "t.s:1:13:", "expected '='"},
    {"nop {op_add=1", "t.s:1:14:", "'}'"},
    {"ldi r0, 1 ; ldi r1, 2", "t.s:1:19:", "end of the line"},
    {"ldi r0, 1 ; add r1, r2, r3", "t.s:1:13:", "only 'ldi"},
    {"add r0, r1, (1", "t.s:1:15:", "')'"},
    {"add r0, r1, 1.5.", "t.s:1:13:", "malformed number"},
    {"ldi r0, 0x", "t.s:1:9:", "hex digits"},
    {"ldi r0, 99999999999999999999", "t.s:1:9:", "too large"},
    {"ldi r0, 1e99", "t.s:1:9:", "out of range"},
    {"ldi r0, 1.0 + 1", "t.s:1:9:", "float"},
    {"ldi r0, lab * 2\nlab: nop", "t.s:1:9:", "label"},
    {"nop nop", "t.s:1:5:", "no operands"},
    {"nop ; fadd r0, r1, r2", "t.s:1:7:", "not a MUL"},
    {"mov r0, r1 ; v8min r1, r2, r3 ; fmul r2, r1, r1", "t.s:1:33:", "more than two"},
    {"add r0, ((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))), r2", "t.s:1:", "nested"},
};

static void test_errors(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    uint64_t *w = NULL;
    size_t n = 0;
    gs_diag d;
    gs_diag_clear(&d);
    int rc = gs_qpu_asm(bad[i].src, "t.s", 0, &w, &n, &d);
    if (rc != GS_EASM) fail_msg("'%s' gave %d, want GS_EASM", bad[i].src, rc);
    if (strncmp(d.msg, bad[i].where, strlen(bad[i].where)) != 0 || !strstr(d.msg, "error:") ||
        !strstr(d.msg, bad[i].phrase))
      fail_msg("'%s': got \"%s\", want prefix \"%s\" and \"%s\"", bad[i].src, d.msg, bad[i].where, bad[i].phrase);
    assert_null(w);
  }
}

static void test_api(void **state) {
  (void)state;
  uint64_t *w = NULL, one = 0;
  size_t n = 99;
  gs_diag d;
  assert_int_equal(gs_qpu_asm(NULL, "x", 0, &w, &n, &d), GS_EARG);
  assert_int_equal(gs_qpu_asm("", NULL, 0, &w, &n, NULL), GS_OK); /* empty program, no diag */
  assert_int_equal(n, 0);
  free(w);
  assert_int_equal(gs_qpu_asm("# only a comment\n\n  // another\n", "x", 0, &w, &n, &d), GS_OK);
  assert_int_equal(n, 0);
  free(w);
  assert_int_equal(gs_qpu_asm("bad", NULL, 0, &w, &n, &d), GS_EASM);
  assert_non_null(strstr(d.msg, "<input>:1:1:"));
  assert_int_equal(gs_qpu_asm_word("thrend", 0, &one, &d), GS_OK);
  assert_true(one == 0x300009e7009e7000);
  assert_int_equal(gs_qpu_asm_word("nop\nnop", 0, &one, &d), GS_EASM);
  assert_int_equal(gs_qpu_asm_word("", 0, &one, &d), GS_EASM);
  assert_int_equal(gs_qpu_asm("nop\r\nthrend\r\n", "x", 0, &w, &n, &d), GS_OK);
  assert_int_equal(n, 2);
  free(w);
}

/* ---- robustness ------------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15;
static uint64_t rng(void) { /* xorshift64: deterministic */
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Random bytes and random token soup: the assembler must return GS_OK or
 * GS_EASM with a located message, and never crash (run under ASan too). */
static void test_fuzz(void **state) {
  (void)state;
  static const char *const tokens[] = {
      "add", "fmul", "mov", "nop", "ldi", "ldi.pes", "bra", "brr", "sacq", "thrend", "r0", "r4", "ra1",
      "rb2", "unif", "vpm", "-", ",", ";", ".", "{", "}", "=", "[", "]", ">>", "r5", "1", "-3", "0x",
      "1.5", "1e", "(", ")", "*", "+", "lab", "lab:", ":", ".set", ".word", ".dword", "#", "//", "\n",
      ".16a", ".8888", ".setf", ".zs", "sig=", "imm", "raddr_b", "\t", "~", "0xffffffffffffffffff"};
  char src[512];
  for (int iter = 0; iter < 20000; iter++) {
    size_t len = 0, max = rng() % 200;
    if (iter & 1) {
      while (len < max) src[len++] = (char)(1 + rng() % 255);
    } else {
      while (len < max) {
        const char *t = tokens[rng() % (sizeof tokens / sizeof tokens[0])];
        size_t k = strlen(t);
        if (len + k + 1 >= sizeof src - 1) break;
        memcpy(src + len, t, k);
        len += k;
        if (rng() & 1) src[len++] = ' ';
      }
    }
    src[len] = '\0';
    uint64_t *w = NULL;
    size_t n = 0;
    gs_diag d;
    gs_diag_clear(&d);
    int rc = gs_qpu_asm(src, "fuzz.s", 0, &w, &n, &d);
    if (rc != GS_OK && (rc != GS_EASM || strncmp(d.msg, "fuzz.s:", 7) != 0))
      fail_msg("rc %d, message \"%s\"", rc, d.msg);
    free(w);
  }
}

/* gs_qpu_asm_lines: the line of each instruction's first word, past
 * comments, blank lines, labels, .set and a .word pair split over two
 * lines (the instruction counts from its low word). */
static void test_source_lines(void **state) {
  (void)state;
  static const char src[] =
      "# header\n"               /* 1 */
      ".set K, 3\n"               /* 2 */
      "start:\n"                  /* 3 */
      "    mov r0, K\n"           /* 4: instruction 0 */
      "\n"                        /* 5 */
      "    .word 0x009e7000\n"     /* 6: instruction 1 starts */
      "    .word 0x100009e7\n"     /* 7 */
      "l: nop ; nop ; thrend\n"   /* 8: instruction 2 */
      "    .dword 0x100009e7009e7000, 0x100009e7009e7000\n"; /* 9: instructions 3, 4 */
  uint64_t *w;
  uint32_t *lines;
  size_t n;
  gs_diag d;
  assert_int_equal(gs_qpu_asm_lines(src, "t.s", 0, &w, &n, &lines, &d), GS_OK);
  assert_int_equal(n, 5);
  static const uint32_t want[5] = {4, 6, 8, 9, 9};
  for (size_t i = 0; i < n; i++) assert_int_equal(lines[i], want[i]);
  assert_int_equal(w[1], UINT64_C(0x100009e7009e7000));
  free(w);
  free(lines);
  /* an error leaves both NULL */
  assert_int_equal(gs_qpu_asm_lines("mov r9, r0\n", "t.s", 0, &w, &n, &lines, &d), GS_EASM);
  assert_null(w);
  assert_null(lines);
  /* an empty program still gets a table */
  assert_int_equal(gs_qpu_asm_lines("# nothing\n", "t.s", 0, &w, &n, &lines, &d), GS_OK);
  assert_int_equal(n, 0);
  assert_non_null(lines);
  free(w);
  free(lines);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worked_decodes_assemble),
      cmocka_unit_test(test_worked_decode_fields),
      cmocka_unit_test(test_add_ops_conditions_setf),
      cmocka_unit_test(test_condition_aliases),
      cmocka_unit_test(test_mul_ops),
      cmocka_unit_test(test_signals),
      cmocka_unit_test(test_packs),
      cmocka_unit_test(test_unpacks),
      cmocka_unit_test(test_read_addresses),
      cmocka_unit_test(test_write_addresses),
      cmocka_unit_test(test_small_immediates),
      cmocka_unit_test(test_rotations),
      cmocka_unit_test(test_load_immediates),
      cmocka_unit_test(test_semaphores),
      cmocka_unit_test(test_branch_conditions),
      cmocka_unit_test(test_branch_forms),
      cmocka_unit_test(test_labels),
      cmocka_unit_test(test_data_directives),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_api),
      cmocka_unit_test(test_fuzz),
      cmocka_unit_test(test_source_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
