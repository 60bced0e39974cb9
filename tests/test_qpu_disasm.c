/* test_qpu_disasm.c — the QPU disassembler: exact text for known words,
 * and asm(disasm(w)) == w for every kind of valid word.
 *
 * The expected texts were written by hand from the bits (reference/vc4.md
 * §1.2–§1.10) and, for seed 004, checked against the seed's comments.
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
#include "isa/qpu/table.h"

static uint64_t hilo(uint32_t hi, uint32_t lo) { return (uint64_t)hi << 32 | lo; }

static void check_text(uint64_t w, const char *want) {
  char buf[512];
  gs_qpu_disasm_word(w, buf, sizeof buf);
  if (strcmp(buf, want) != 0)
    fail_msg("%08x_%08x: \"%s\", want \"%s\"", (unsigned)(w >> 32), (unsigned)w, buf, want);
}

/* asm(disasm(w)) == w, and a valid word never falls back to .word. */
static void check_round_trip(uint64_t w) {
  char buf[512];
  uint64_t back = 0;
  gs_diag d;
  gs_qpu_disasm_word(w, buf, sizeof buf);
  if (!qpu_invalid_reason(w) && strncmp(buf, ".word", 5) == 0)
    fail_msg("%08x_%08x: fell back to \"%s\"", (unsigned)(w >> 32), (unsigned)w, buf);
  if (gs_qpu_asm_word(buf, 0, &back, &d) != GS_OK)
    fail_msg("%08x_%08x: \"%s\" does not assemble: %s", (unsigned)(w >> 32), (unsigned)w, buf, d.msg);
  if (back != w)
    fail_msg("%08x_%08x: \"%s\" assembles to %08x_%08x", (unsigned)(w >> 32), (unsigned)w, buf,
             (unsigned)(back >> 32), (unsigned)back);
}

static void check_both(uint64_t w, const char *want) {
  check_text(w, want);
  check_round_trip(w);
}

/* ---- reference/vc4.md §1.3 ------------------------------------------------ */

static const struct { uint64_t word; const char *text; } worked[] = {
    {0x100009e7009e7000, "nop"},
    {0x1002082715827d80, "mov r0, unif"},
    {0xd00208a711983dc0, "shl r2, elem_num, 3"},
    {0xe00216e700000010, "ldi rb27, 0x10"},
    {0x30020ba7159e76c0, "mov tlb_colour_all, r3 ; thrend"},
    {0x100049e0203e303e, "fmul r0, vary, ra15"},
    {0xd16049e3209e0007, "fmul r3.8c, r0, 1.0"},
    {0x10024834883cfff6, "itof r0, rb15 ; mov sfu_recip, ra15"},
    {0xe0020c6700701a00, "ldi vr_setup, 0x701a00"},
    {0xd002002715c00dc0, "or ra0, vpm, 0"},
    /* MUL colour pack into r0 with ws=1: the ws choice is not in the text */
    {0x114059e080827036, "nop ; mov r0.8a, unif {ws=1}"},
    {0x50020ba7159e7000, "mov tlb_colour_all, r0 ; sbdone"},
    {0x60020e67159e7000, "mov tmu0_t, r0 ; lthrsw"},
    {0xa00208270c9e70c0, "add r0, r0, r3 ; ldtmu0"},
    {0xf0f409e700000000, "bra -, ra0"},
    {0xf0f80127000000b0, "brr ra4, +0xb0"},
    {0xe80009e700000019, "sacq 9"},
};

static void test_worked_decodes(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof worked / sizeof worked[0]; i++) check_both(worked[i].word, worked[i].text);
}

/* ---- seed 004: the words as the seed lists them (.word lo, hi) ------------- */

#define NOP "nop"
static const struct { uint32_t lo, hi; const char *text; } seed004[] = {
    /* VERT_CODE */
    {0x9E7000, 0x100009E7, NOP},
    /* VPM read setup: add waddr 49 = VPMVCD_RD_SETUP (A), immediate 0x1A341AC0 */
    {0x1A341AC0, 0xE0020C67, "ldi vr_setup, 0x1a341ac0"},
    {0x9E7000, 0x100009E7, NOP},
    {0x9E7000, 0x100009E7, NOP},
    {0x9E7000, 0x100009E7, NOP},
    /* "Bitwise OR, R0 (r0a), VPM_READ, NOP": ra0 = vpm | the NOP register;
     * the unused MUL muxes hold 6 and 7 */
    {0x15C27DF7, 0x10020027, "or ra0, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x10020067, "or ra1, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x100200A7, "or ra2, vpm, - {mul_a=6, mul_b=7}"},
    /* VPM write setup: waddr 49 with ws=1 = VPMVCD_WR_SETUP (B) */
    {0x17BC1AC0, 0xE0021C67, "ldi vw_setup, 0x17bc1ac0"},
    /* "Bitwise OR, VPM_WRITE, R0 (ra0), NOP" */
    {0x15027DF7, 0x10020C27, "or vpm, ra0, - {mul_a=6, mul_b=7}"},
    {0x15067DF7, 0x10020C27, "or vpm, ra1, - {mul_a=6, mul_b=7}"},
    {0x150A7DF7, 0x10020C27, "or vpm, ra2, - {mul_a=6, mul_b=7}"},
    {0x9E7000, 0x500009E7, "sbdone"},
    {0x9E7000, 0x300009E7, "thrend"},
    {0x9E7000, 0x100009E7, NOP},
    {0x9E7000, 0x100009E7, NOP},
    /* COORD_CODE */
    {0x9E7000, 0x100009E7, NOP},
    {0x1A741AC0, 0xE0020C67, "ldi vr_setup, 0x1a741ac0"},
    {0x9E7000, 0x100009E7, NOP},
    {0x9E7000, 0x100009E7, NOP},
    {0x9E7000, 0x100009E7, NOP},
    {0x15C27DF7, 0x10020027, "or ra0, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x10020067, "or ra1, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x100200A7, "or ra2, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x100200E7, "or ra3, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x10020127, "or ra4, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x10020167, "or ra5, vpm, - {mul_a=6, mul_b=7}"},
    {0x15C27DF7, 0x100201A7, "or ra6, vpm, - {mul_a=6, mul_b=7}"},
    {0x17BC1AC0, 0xE0021C67, "ldi vw_setup, 0x17bc1ac0"},
    {0x15027DF7, 0x10020C27, "or vpm, ra0, - {mul_a=6, mul_b=7}"},
    {0x15067DF7, 0x10020C27, "or vpm, ra1, - {mul_a=6, mul_b=7}"},
    {0x150A7DF7, 0x10020C27, "or vpm, ra2, - {mul_a=6, mul_b=7}"},
    {0x150E7DF7, 0x10020C27, "or vpm, ra3, - {mul_a=6, mul_b=7}"},
    {0x15127DF7, 0x10020C27, "or vpm, ra4, - {mul_a=6, mul_b=7}"},
    {0x15167DF7, 0x10020C27, "or vpm, ra5, - {mul_a=6, mul_b=7}"},
    {0x151A7DF7, 0x10020C27, "or vpm, ra6, - {mul_a=6, mul_b=7}"},
    {0x9E7000, 0x500009E7, "sbdone"},
    {0x9E7000, 0x300009E7, "thrend"},
    {0x9E7000, 0x100009E7, NOP},
    {0x9E7000, 0x100009E7, NOP},
    /* VPM_VCD_COORDINATE_SHADER_TEST_1 */
    {0x9E7000, 0x100009E7, NOP},
    /* "Bitwise OR, R0 (r0a), UNIFORM_READ, NOP" */
    {0x15827DF7, 0x10020027, "or ra0, unif, - {mul_a=6, mul_b=7}"},
    {0x15827DF7, 0x10020067, "or ra1, unif, - {mul_a=6, mul_b=7}"},
    {0x15827DF7, 0x100200A7, "or ra2, unif, - {mul_a=6, mul_b=7}"},
    {0x17BC1AC2, 0xE0021C67, "ldi vw_setup, 0x17bc1ac2"},
    /* VPM_WRITE (A), immediate 0.0 / 1.0 */
    {0x0, 0xE0020C27, "ldi vpm, 0x0"},
    {0x3F800000, 0xE0020C27, "ldi vpm, 0x3f800000"},
    {0x15027DF7, 0x10020C27, "or vpm, ra0, - {mul_a=6, mul_b=7}"},
    {0x15067DF7, 0x10020C27, "or vpm, ra1, - {mul_a=6, mul_b=7}"},
    {0x150A7DF7, 0x10020C27, "or vpm, ra2, - {mul_a=6, mul_b=7}"},
    /* "Integer shift right, ACC0, R0 (ra0), int 4", unpack 16a (PM0) */
    {0xE004DC0, 0xD2020827, "shr r0, ra0.16a, 4"},
    /* same with unpack 16b into ACC1 */
    {0xE004DC0, 0xD4020867, "shr r1, ra0.16b, 4"},
    /* "Signed integer to floating point, ACC0, acc r0, R0 (rb0)": the word
     * also sets sf and leaves raddr_a = 0 and MUL muxes 6/7 */
    {0x80001F7, 0x10022827, "itof.setf r0, r0, rb0 {raddr_a=0, mul_a=6, mul_b=7}"},
    {0x80003F7, 0x10022867, "itof.setf r1, r1, rb0 {raddr_a=0, mul_a=6, mul_b=7}"},
    /* ACC2 / ACC3 = 2/639, 2/479 as float bits */
    {0x3B4D1ED9, 0xE00208A7, "ldi r2, 0x3b4d1ed9"},
    {0x3B88D181, 0xE00208E7, "ldi r3, 0x3b88d181"},
    /* "Floating point multiply, ACC0, acc r0, acc r2": MUL writes r0 with
     * ws=1, sf set, ADD muxes 6/7 and raddrs 0 left over */
    {0x20000DC2, 0x100079E0, "fmul.setf r0, r0, r2 {ws=1, raddr_a=0, raddr_b=0, add_a=6, add_b=7}"},
    {0x20000DCB, 0x100079E1, "fmul.setf r1, r1, r3 {ws=1, raddr_a=0, raddr_b=0, add_a=6, add_b=7}"},
    /* "Floating point subtract, ACC0, acc r0, float 1.f" */
    {0x20201C0, 0xD0020827, "fsub r0, r0, 1.0 {raddr_a=0}"},
    {0x20203C0, 0xD0020867, "fsub r1, r1, 1.0 {raddr_a=0}"},
    {0x17BC1AC0, 0xE0021C67, "ldi vw_setup, 0x17bc1ac0"},
    /* "Bitwise OR, VPM_WRITE, acc r0, acc r0" */
    {0x159E7000, 0x10020C27, "mov vpm, r0"},
    /* "... acc r1, acc r1"; the unused MUL muxes hold 1 */
    {0x159E7249, 0x10020C27, "mov vpm, r1 {mul_a=1, mul_b=1}"},
    /* DMA store setup to VPMVCD_WR_SETUP (B) */
    {0x83904000, 0xE0021C67, "ldi vw_setup, 0x83904000"},
    /* "Bitwise OR, VPM_ST_ADDR (B), UNIFORM_READ, int 0" */
    {0x15800DF7, 0xD0021CA7, "or vw_addr, unif, 0 {mul_a=6, mul_b=7}"},
    {0x9E7000, 0x500009E7, "sbdone"},
    {0x9E7000, 0x300009E7, "thrend"},
    {0x9E7000, 0x100009E7, NOP},
    {0x9E7000, 0x100009E7, NOP},
};

static void test_seed_004(void **state) {
  (void)state;
  for (size_t i = 0; i < sizeof seed004 / sizeof seed004[0]; i++)
    check_both(hilo(seed004[i].hi, seed004[i].lo), seed004[i].text);
}

/* ---- every kind of word ------------------------------------------------------- */

static const char *const add_names[32] = {
    "nop", "fadd", "fsub", "fmin", "fmax", "fminabs", "fmaxabs", "ftoi", "itof", NULL, NULL, NULL,
    "add", "sub", "shr", "asr", "ror", "shl", "min", "max", "and", "or", "xor", "not", "clz",
    NULL, NULL, NULL, NULL, NULL, "v8adds", "v8subs"};
static const char *const mul_names[8] = {"nop", "fmul", "mul24", "v8muld", "v8min", "v8max", "v8adds", "v8subs"};
static const char *const cond_names[8] = {"never", "always", "zs", "zc", "ns", "nc", "cs", "cc"};

/* An ALU word with the given ops; everything else as in the canonical NOP. */
static uint64_t alu(unsigned op_add, unsigned op_mul) {
  uint64_t w = QPU_NOP_WORD;
  w = qpu_set(w, QPU_F_OP_ADD, op_add);
  return qpu_set(w, QPU_F_OP_MUL, op_mul);
}

static void test_add_ops(void **state) {
  (void)state;
  for (unsigned op = 1; op < 32; op++) {
    if (!add_names[op]) continue;
    int unary = op == 7 || op == 8 || op == 23 || op == 24;
    for (unsigned c = 0; c < 8; c++)
      for (unsigned sf = 0; sf < 2; sf++) {
        uint64_t w = alu(op, 0);
        w = qpu_set(w, QPU_F_COND_ADD, c);
        w = qpu_set(w, QPU_F_SF, sf);
        w = qpu_set(w, QPU_F_WADDR_ADD, 32);
        w = qpu_set(w, QPU_F_ADD_A, 1);
        w = qpu_set(w, QPU_F_ADD_B, unary ? 1 : 2);
        char want[64];
        snprintf(want, sizeof want, "%s%s%s%s r0, r1%s", add_names[op], c == 1 ? "" : ".",
                 c == 1 ? "" : cond_names[c], sf ? ".setf" : "", unary ? "" : ", r2");
        check_both(w, want);
      }
  }
}

static void test_mul_ops(void **state) {
  (void)state;
  for (unsigned op = 1; op < 8; op++)
    for (unsigned c = 0; c < 8; c++)
      for (unsigned sf = 0; sf < 2; sf++) {
        uint64_t w = alu(0, op);
        w = qpu_set(w, QPU_F_COND_MUL, c);
        w = qpu_set(w, QPU_F_SF, sf);
        w = qpu_set(w, QPU_F_WADDR_MUL, 33);
        w = qpu_set(w, QPU_F_MUL_A, 2);
        w = qpu_set(w, QPU_F_MUL_B, 3);
        char want[64];
        /* only v8adds and v8subs also exist on the ADD ALU */
        snprintf(want, sizeof want, "%s%s%s%s%s r1, r2, r3", op >= 6 ? "nop ; " : "", mul_names[op],
                 c == 1 ? "" : ".", c == 1 ? "" : cond_names[c], sf ? ".setf" : "");
        check_both(w, want);
      }
  /* with a real ADD op the flags come from it, so .setf is printed there */
  uint64_t w = qpu_set(alu(12, 1), QPU_F_SF, 1);
  w = qpu_set(qpu_set(w, QPU_F_COND_ADD, 1), QPU_F_COND_MUL, 1);
  w = qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 32), QPU_F_WADDR_MUL, 33);
  w = qpu_set(qpu_set(w, QPU_F_MUL_A, 2), QPU_F_MUL_B, 3);
  check_both(w, "add.setf r0, r0, r0 ; fmul r1, r2, r3");
}

static void test_signals(void **state) {
  (void)state;
  static const char *const sig[13] = {"bkpt", NULL, "thrsw", "thrend", "sbwait", "sbdone", "lthrsw",
                                      "loadcv", "loadc", "ldcend", "ldtmu0", "ldtmu1", "loadam"};
  for (unsigned s = 0; s < 13; s++) {
    if (!sig[s]) continue;
    check_both(qpu_set(QPU_NOP_WORD, QPU_F_SIG, s), sig[s]);
    uint64_t w = qpu_set(alu(0, 1), QPU_F_SIG, s);
    w = qpu_set(qpu_set(w, QPU_F_COND_MUL, 1), QPU_F_WADDR_MUL, 32);
    char want[64];
    snprintf(want, sizeof want, "fmul r0, r0, r0 ; %s", sig[s]);
    check_both(w, want);
  }
}

/* Every pm × pack × unpack × ws on an instruction using both ALUs, the
 * regfile-A read and r4: the printable ones read back as suffixes, the
 * others through overrides; all must round-trip. */
static void test_packs_unpacks(void **state) {
  (void)state;
  for (unsigned pm = 0; pm < 2; pm++)
    for (unsigned pack = 0; pack < 16; pack++)
      for (unsigned unpack = 0; unpack < 8; unpack++)
        for (unsigned ws = 0; ws < 2; ws++)
          for (unsigned dst = 0; dst < 2; dst++) {
            uint64_t w = alu(1, 1);
            w = qpu_set(qpu_set(w, QPU_F_PM, pm), QPU_F_PACK, pack);
            w = qpu_set(qpu_set(w, QPU_F_UNPACK, unpack), QPU_F_WS, ws);
            w = qpu_set(qpu_set(w, QPU_F_COND_ADD, 1), QPU_F_COND_MUL, 1);
            w = qpu_set(w, QPU_F_WADDR_ADD, dst ? 5 : 32);
            w = qpu_set(w, QPU_F_WADDR_MUL, dst ? 6 : 33);
            w = qpu_set(qpu_set(w, QPU_F_RADDR_A, 3), QPU_F_ADD_A, 6);
            w = qpu_set(qpu_set(w, QPU_F_ADD_B, 4), QPU_F_MUL_A, 4);
            w = qpu_set(w, QPU_F_MUL_B, 6);
            if (!qpu_invalid_reason(w)) check_round_trip(w);
          }
  uint64_t w = qpu_set(alu(1, 0), QPU_F_COND_ADD, 1); /* fadd ra5.<pack>, ra3.<unpack>, r1 */
  w = qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 5), QPU_F_RADDR_A, 3);
  w = qpu_set(qpu_set(w, QPU_F_ADD_A, 6), QPU_F_ADD_B, 1);
  check_both(qpu_set(w, QPU_F_PACK, 9), "fadd ra5.16as, ra3, r1");
  check_both(qpu_set(w, QPU_F_UNPACK, 3), "fadd ra5, ra3.8dr, r1");
  /* pm=1 unpacks r4, not regfile A */
  check_both(qpu_set(qpu_set(qpu_set(w, QPU_F_ADD_B, 4), QPU_F_PM, 1), QPU_F_UNPACK, 2),
             "fadd ra5, ra3, r4.16b");
  /* a regfile-A pack on an accumulator write is not a suffix */
  check_both(qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 32), QPU_F_PACK, 1), "fadd r0, ra3, r1 {pack=1}");
  /* MUL colour pack into regfile A would read back as a regfile-A pack */
  w = qpu_set(qpu_set(alu(0, 1), QPU_F_COND_MUL, 1), QPU_F_WS, 1);
  w = qpu_set(qpu_set(w, QPU_F_WADDR_MUL, 7), QPU_F_PM, 1);
  check_both(qpu_set(w, QPU_F_PACK, 4), "fmul ra7, r0, r0 {pm=1, pack=4}");
  check_both(qpu_set(qpu_set(w, QPU_F_PACK, 4), QPU_F_PM, 0), "fmul ra7.8a, r0, r0");
}

static void test_read_addresses(void **state) {
  (void)state;
  for (unsigned sig = 1; sig < 14; sig += 12)
    for (unsigned ra = 0; ra < 64; ra++)
      for (unsigned rb = 0; rb < 64; rb++)
        for (unsigned m = 0; m < 4; m++) { /* which muxes read the ports */
          uint64_t w = alu(12, 4);
          w = qpu_set(qpu_set(w, QPU_F_SIG, sig), QPU_F_COND_ADD, 1);
          w = qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 32), QPU_F_WADDR_MUL, 33);
          w = qpu_set(qpu_set(w, QPU_F_RADDR_A, ra), QPU_F_RADDR_B, rb);
          w = qpu_set(qpu_set(w, QPU_F_ADD_A, 6 + (m & 1)), QPU_F_ADD_B, 7 - (m >> 1));
          w = qpu_set(qpu_set(w, QPU_F_MUL_A, 7), QPU_F_MUL_B, m == 3 ? 7 : 6);
          if (!qpu_invalid_reason(w)) check_round_trip(w);
        }
  check_both(0x100208270c823dc0, "add r0, unif, vary"); /* ra=32 via mux 6, rb=35 via mux 7 */
  /* the same sources through the other ports */
  check_both(0x100208270c8e0f80, "add r0, unif, vary {raddr_a=35, raddr_b=32, add_a=7, add_b=6}");
  /* one varying read through regfile B, raddr_a = unif but unused */
  check_both(0x100208270c823fc0, "add r0, vary, vary {raddr_a=32, raddr_b=35, add_a=7, add_b=7}");
  check_both(0x100208270c826dc0, "add r0, unif, qpu_num");
  check_both(0x100208270ca67df8, "add r0, x_coord, - {mul_a=7}");
}

static void test_write_addresses(void **state) {
  (void)state;
  for (unsigned ws = 0; ws < 2; ws++)
    for (unsigned wa = 0; wa < 64; wa++)
      for (unsigned wm = 0; wm < 64; wm++) {
        uint64_t w = alu(21, 4);
        w = qpu_set(qpu_set(w, QPU_F_WS, ws), QPU_F_COND_ADD, 1);
        w = qpu_set(qpu_set(w, QPU_F_COND_MUL, 1), QPU_F_WADDR_ADD, wa);
        w = qpu_set(w, QPU_F_WADDR_MUL, wm);
        check_round_trip(w);
        check_round_trip(qpu_set(qpu_set(w, QPU_F_OP_ADD, 0), QPU_F_OP_MUL, 0)); /* nops with waddrs */
      }
  uint64_t w = qpu_set(qpu_set(alu(21, 4), QPU_F_COND_ADD, 1), QPU_F_COND_MUL, 1);
  w = qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 49), QPU_F_WADDR_MUL, 49);
  check_both(w, "mov vr_setup, r0 ; mov vw_setup, r0");
  check_both(qpu_set(w, QPU_F_WS, 1), "mov vw_setup, r0 ; mov vr_setup, r0");
  w = qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 37), QPU_F_WADDR_MUL, 40);
  check_both(w, "mov r5quad, r0 ; mov unif_addr_rel, r0");
}

static void test_small_immediates_rotation(void **state) {
  (void)state;
  for (unsigned code = 0; code < 64; code++)
    for (unsigned m = 0; m < 8; m++) {
      uint64_t w = alu(m & 1 ? 12 : 0, m & 2 ? 1 : 0);
      w = qpu_set(qpu_set(w, QPU_F_SIG, 13), QPU_F_RADDR_B, code);
      w = qpu_set(qpu_set(w, QPU_F_COND_ADD, 1), QPU_F_COND_MUL, 1);
      w = qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 32), QPU_F_WADDR_MUL, 33);
      w = qpu_set(qpu_set(w, QPU_F_ADD_A, 1), QPU_F_ADD_B, 7);
      w = qpu_set(qpu_set(w, QPU_F_MUL_A, 2), QPU_F_MUL_B, m & 4 ? 7 : 3);
      check_round_trip(w);
    }
  uint64_t w = qpu_set(qpu_set(alu(12, 0), QPU_F_SIG, 13), QPU_F_COND_ADD, 1);
  w = qpu_set(qpu_set(w, QPU_F_WADDR_ADD, 32), QPU_F_ADD_A, 1);
  w = qpu_set(w, QPU_F_ADD_B, 7);
  check_both(qpu_set(w, QPU_F_RADDR_B, 29), "add r0, r1, -3");
  check_both(qpu_set(w, QPU_F_RADDR_B, 15), "add r0, r1, 15");
  check_both(qpu_set(w, QPU_F_RADDR_B, 39), "add r0, r1, 128.0");
  check_both(qpu_set(w, QPU_F_RADDR_B, 40), "add r0, r1, 0.00390625");
  check_both(qpu_set(w, QPU_F_RADDR_B, 47), "add r0, r1, 0.5");
  /* code 61 with no MUL op: reads as -3 but is not code 29 */
  check_both(qpu_set(w, QPU_F_RADDR_B, 61), "add r0, r1, -3 {raddr_b=61}");
  w = qpu_set(qpu_set(alu(0, 1), QPU_F_SIG, 13), QPU_F_COND_MUL, 1);
  w = qpu_set(qpu_set(w, QPU_F_WADDR_MUL, 32), QPU_F_MUL_A, 1);
  w = qpu_set(w, QPU_F_MUL_B, 2);
  check_both(qpu_set(w, QPU_F_RADDR_B, 53), "fmul r0, r1, r2 >> 5");
  check_both(qpu_set(w, QPU_F_RADDR_B, 48), "fmul r0, r1, r2 >> r5");
  check_both(qpu_set(qpu_set(w, QPU_F_RADDR_B, 63), QPU_F_MUL_B, 7), "fmul r0, r1, -1 >> 15");
}

static void test_load_immediates(void **state) {
  (void)state;
  unsigned types[4] = {QPU_LDI_32, QPU_LDI_PES, QPU_LDI_PEU, QPU_LDI_SEMA};
  uint32_t imms[4] = {0, 0x12345678, 0xffffffff, 0x8000fff0};
  for (unsigned t = 0; t < 4; t++)
    for (unsigned pm = 0; pm < 2; pm++)
      for (unsigned pack = 0; pack < 16; pack += 3)
        for (unsigned c = 0; c < 64; c += 7)
          for (unsigned ws = 0; ws < 2; ws++)
            for (unsigned i = 0; i < 4; i++) {
              uint64_t w = qpu_set(0, QPU_F_SIG, 14);
              w = qpu_set(qpu_set(w, QPU_F_LDI_TYPE, types[t]), QPU_F_PM, pm);
              w = qpu_set(qpu_set(w, QPU_F_PACK, pack), QPU_F_COND_ADD, c & 7);
              w = qpu_set(qpu_set(w, QPU_F_COND_MUL, c >> 3), QPU_F_SF, i & 1);
              w = qpu_set(qpu_set(w, QPU_F_WS, ws), QPU_F_WADDR_ADD, (c * 5 + i) & 63);
              w = qpu_set(qpu_set(w, QPU_F_WADDR_MUL, (c * 3 + i * 17) & 63), QPU_F_IMM, imms[i]);
              if (!qpu_invalid_reason(w)) check_round_trip(w);
            }
  check_both(0xe00208270000002a, "ldi r0, 0x2a");
  check_both(0xe0022827ffffffff, "ldi.setf r0, 0xffffffff");
  check_both(0xe0044801bfc00000, "ldi.zs r0, 0xbfc00000 ; ldi rb1");
  /* per element, §1.2: element i = {imm[16+i], imm[i]} */
  check_both(0xe2020827000c800a, "ldi.pes r0, [0, 1, -2, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]");
  check_both(0xe602082780038005, "ldi.peu r0, [3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3]");
  for (unsigned n = 0; n < 16; n++) {
    char want[32];
    snprintf(want, sizeof want, "sacq %u", n);
    check_both(hilo(0xe80009e7, 0x10 | n), want);
    snprintf(want, sizeof want, "srel %u", n);
    check_both(hilo(0xe80009e7, n), want);
  }
  check_both(0xe80009e7fffffff9, "sacq 9 {imm=0xfffffff9}"); /* bits 31:5 are free */
}

static void test_branches(void **state) {
  (void)state;
  static const char *const names[16] = {"allz", "allnz", "anyz", "anynz", "alln", "allnn", "anyn", "anynn",
                                        "allc", "allnc", "anyc", "anync", NULL, NULL, NULL, ""};
  uint32_t imms[5] = {0, 0x40, 0xffffffe0, 0x12345677, 3};
  for (unsigned c = 0; c < 16; c++) {
    if (!names[c]) continue;
    for (unsigned form = 0; form < 16; form++)
      for (unsigned i = 0; i < 5; i++) {
        uint64_t w = qpu_set(0, QPU_F_SIG, 15);
        w = qpu_set(qpu_set(w, QPU_F_COND_BR, c), QPU_F_REL, form & 1);
        w = qpu_set(qpu_set(w, QPU_F_REG, form >> 1 & 1), QPU_F_WS, form >> 2 & 1);
        w = qpu_set(w, QPU_F_RADDR_A_BR, (form * 7 + i) & 31);
        w = qpu_set(w, QPU_F_WADDR_ADD, form & 8 ? 39 : (c * 4 + i) & 63);
        w = qpu_set(qpu_set(w, QPU_F_WADDR_MUL, form & 8 ? 39 : 5), QPU_F_IMM, imms[i]);
        w = qpu_set(w, QPU_F_BR_UNUSED, i == 2 ? 5 : 0);
        check_round_trip(w);
      }
    char want[32];
    snprintf(want, sizeof want, "brr%s%s +0x40", c == 15 ? "" : ".", names[c]);
    check_both(hilo(0xf00809e7 | c << 20, 0x40), want);
    snprintf(want, sizeof want, "bra%s%s 0x40", c == 15 ? "" : ".", names[c]);
    check_both(hilo(0xf00009e7 | c << 20, 0x40), want);
  }
  check_both(0xf0f809e7ffffffe0, "brr -0x20");
  check_both(0xf0f809e7fffffffd, "brr -0x8 {imm=0xfffffffd}"); /* misaligned raw offset */
  check_both(0xf0a44067000000b0, "bra.anyc ra1, ra2, 0xb0");
  check_both(0xf0f81167000000b0, "brr rb5, +0xb0");
}

/* asm(disasm(w)) == w for 100000 random valid words, a third of them each
 * forced to small-immediate, load-immediate and branch form. */
static void test_random_words(void **state) {
  (void)state;
  uint64_t x = 0x2545f4914f6cdd1d;
  unsigned valid = 0;
  for (unsigned i = 0; valid < 100000; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    uint64_t w = x;
    if (i % 4) w = qpu_set(w, QPU_F_SIG, 12 + i % 4);
    if (qpu_invalid_reason(w)) continue;
    valid++;
    check_round_trip(w);
  }
}

/* ---- listings ---------------------------------------------------------------------- */

static void test_listing_labels(void **state) {
  (void)state;
  const uint64_t words[10] = {
      QPU_NOP_WORD,
      hilo(0xf02809e7, 0x10),       /* 0x1008 brr.anyz: 0x1008 + 32 + 0x10 = 0x1038 */
      QPU_NOP_WORD, QPU_NOP_WORD, QPU_NOP_WORD,
      hilo(0xf01009e7, 0x1000),     /* 0x1028 bra.allnz 0x1000 */
      hilo(0xf0f809e7, 0xffffffc8), /* 0x1030 brr: 0x1030 + 32 - 0x38 = 0x1018 */
      hilo(0x100009e7, 0x099e7000), /* 0x1038 reserved add opcode 9 */
      hilo(0xf0f809e7, 0x1000),     /* 0x1040 brr to 0x2060: outside */
      hilo(0x300009e7, 0x009e7000)};
  const char *want =
      "l_1000:\n"
      "nop\n"
      "brr.anyz l_1038\n"
      "nop\n"
      "l_1018:\n"
      "nop\n"
      "nop\n"
      "bra.allnz l_1000\n"
      "brr l_1018\n"
      "l_1038:\n"
      ".word 0x099e7000, 0x100009e7  # invalid: reserved add opcode\n"
      "brr +0x1000\n"
      "thrend\n";
  char *text = NULL;
  gs_diag d;
  assert_int_equal(gs_qpu_disasm(words, 10, 0x1000, &text, &d), GS_OK);
  assert_string_equal(text, want);
  uint64_t *back = NULL;
  size_t n = 0;
  if (gs_qpu_asm(text, "listing", 0x1000, &back, &n, &d) != GS_OK) fail_msg("%s", d.msg);
  assert_int_equal(n, 10);
  assert_memory_equal(back, words, sizeof words);
  free(back);
  free(text);
}

/* A random listing (with branches into it) reassembles to itself. */
static void test_listing_round_trip(void **state) {
  (void)state;
  enum { N = 4000 };
  uint64_t *words = malloc(N * sizeof *words), x = 0x853c49e6748fea9b, *back = NULL;
  assert_non_null(words);
  for (unsigned i = 0; i < N; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    words[i] = x;
    if (i % 3 == 0) { /* a branch to a nearby instruction */
      int64_t to = (int64_t)(x % N) * 8, from = (int64_t)i * 8 + 32;
      words[i] = hilo(0xf0f809e7 | (unsigned)(x >> 40 & 1) << 18, (uint32_t)(to - from));
    }
  }
  char *text = NULL;
  size_t n = 0;
  gs_diag d;
  assert_int_equal(gs_qpu_disasm(words, N, 0x200, &text, &d), GS_OK);
  if (gs_qpu_asm(text, "listing", 0x200, &back, &n, &d) != GS_OK) fail_msg("%s", d.msg);
  assert_int_equal(n, N);
  assert_memory_equal(back, words, N * sizeof *words);
  free(back);
  free(text);
  free(words);
}

static void test_invalid_words(void **state) {
  (void)state;
  check_text(hilo(0x100009e7, 0x099e7000), ".word 0x099e7000, 0x100009e7  # invalid: reserved add opcode");
  check_text(hilo(0x100009e7, 0x00867000),
             ".word 0x00867000, 0x100009e7  # invalid: unmapped regfile-A read address");
  check_text(hilo(0x100009e7, 0x009e8000),
             ".word 0x009e8000, 0x100009e7  # invalid: unmapped regfile-B read address");
  check_text(hilo(0xe40009e7, 0), ".word 0x00000000, 0xe40009e7  # invalid: reserved load-immediate type");
  check_text(hilo(0xf0c009e7, 0), ".word 0x00000000, 0xf0c009e7  # invalid: reserved branch condition");
  check_text(hilo(0x111009e7, 0x009e7000), ".word 0x009e7000, 0x111009e7  # invalid: reserved MUL pack mode");
  check_round_trip(hilo(0x111009e7, 0x009e7000)); /* the .word text still assembles to the word */
}

static void test_api(void **state) {
  (void)state;
  char small[8];
  size_t len = gs_qpu_disasm_word(0x300009e7009e7000, small, sizeof small);
  assert_int_equal(len, 6); /* "thrend" */
  assert_string_equal(small, "thrend");
  len = gs_qpu_disasm_word(0x1002082715827d80, small, 4);
  assert_int_equal(len, strlen("mov r0, unif"));
  assert_string_equal(small, "mov");
  assert_int_equal(gs_qpu_disasm_word(QPU_NOP_WORD, NULL, 0), 3);
  char *text = NULL;
  gs_diag d;
  assert_int_equal(gs_qpu_disasm(NULL, 1, 0, &text, &d), GS_EARG);
  assert_int_equal(gs_qpu_disasm(NULL, 0, 0, &text, &d), GS_OK);
  assert_string_equal(text, "");
  free(text);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_worked_decodes),
      cmocka_unit_test(test_seed_004),
      cmocka_unit_test(test_add_ops),
      cmocka_unit_test(test_mul_ops),
      cmocka_unit_test(test_signals),
      cmocka_unit_test(test_packs_unpacks),
      cmocka_unit_test(test_read_addresses),
      cmocka_unit_test(test_write_addresses),
      cmocka_unit_test(test_small_immediates_rotation),
      cmocka_unit_test(test_load_immediates),
      cmocka_unit_test(test_branches),
      cmocka_unit_test(test_random_words),
      cmocka_unit_test(test_listing_labels),
      cmocka_unit_test(test_listing_round_trip),
      cmocka_unit_test(test_invalid_words),
      cmocka_unit_test(test_api),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
