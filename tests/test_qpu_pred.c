/* test_qpu_pred.c — what a QPU instruction reads and writes
 * (src/isa/qpu/pred.h), the predicates the predecoder, the I/O units and the
 * fragment-program linker share. The first tests take instruction words
 * from published programs (docs/qpu.md quotes them with their sources) and
 * check each answer against the fields decoded by hand from the encodings
 * of the Reference Guide's §3; the others assemble one instruction of each
 * kind and check what its text says it does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "gpusim/qpu.h"
#include "isa/qpu/pred.h"

static uint64_t word(uint32_t hi, uint32_t lo) { return (uint64_t)hi << 32 | lo; }

static uint64_t asm1(const char *line) {
  uint64_t w;
  gs_diag d;
  if (gs_qpu_asm_word(line, 0, &w, &d) != GS_OK) fail_msg("asm '%s': %s", line, d.msg);
  return w;
}

#define R(k) (1u << (k)) /* accumulator rk in a mask */

/* or ra0, vpm, - (JayStation), 10020027_15c27df7: sig 1, cond_add 1,
 * cond_mul 0, ws 0, waddr_add 0, waddr_mul 39, op_mul 0, op_add 21 (or),
 * raddr_a 48 (vpm), raddr_b 39, muxes 6 7 6 7. */
static void test_published_alu(void **state) {
  (void)state;
  uint64_t w = word(0x10020027u, 0x15c27df7u);
  assert_true(qpu_is_alu(w));
  assert_false(qpu_is_branch(w) || qpu_is_ldi(w) || qpu_is_semaphore(w));
  assert_int_equal(qpu_signal(w), QPU_SIG_NONE);
  assert_true(qpu_half_writes(w, 0));
  assert_int_equal(qpu_half_waddr(w, 0), 0);
  assert_int_equal(qpu_half_side(w, 0), 0);
  assert_false(qpu_half_writes(w, 1)); /* nop to 39 under never */
  assert_true(qpu_writes_reg(w, 0, 0));
  assert_false(qpu_writes_reg(w, 1, 0));
  assert_int_equal(qpu_raddr(w, 0), QPU_R_VPM);
  assert_true(qpu_raddr_is_io(qpu_raddr(w, 0)));
  assert_int_equal(qpu_raddr(w, 1), QPU_R_NOP);
  assert_false(qpu_raddr_is_io(QPU_R_NOP));
  assert_int_equal(qpu_acc_reads(w), 0);
  assert_int_equal(qpu_acc_full_writes(w), 0); /* ra0 is not an accumulator */
  assert_false(qpu_reads_mutex(w) || qpu_writes_sfu(w));

  /* fmul.setf r0, r0, r2 with ws = 1, 100079e0_20000dc2: cond_add 0,
   * cond_mul 1, sf, ws 1, waddr_add 39, waddr_mul 32 (r0), op_mul 1,
   * raddr_a 0, raddr_b 0, mul_a 0 (r0), mul_b 2 (r2). */
  w = word(0x100079e0u, 0x20000dc2u);
  assert_false(qpu_half_writes(w, 0));
  assert_int_equal(qpu_half_writing(w, QPU_W_ACC0), 1);
  assert_int_equal(qpu_half_side(w, 1), 0); /* ws swaps the MUL onto the A port */
  assert_int_equal(qpu_half_cond(w, 1), 1);
  assert_int_equal(qpu_acc_reads(w), R(0) | R(2)); /* the ADD is nop: its muxes read nothing */
  assert_int_equal(qpu_acc_full_writes(w), R(0));
  assert_int_equal(qpu_raddr(w, 0), 0); /* the A port reads ra0 though no mux takes it */
  assert_int_equal(qpu_raddr(w, 1), 0);
}

/* brr ra4, +0xb0, f0f80127_000000b0: sig 15, cond_br 15, rel 1, reg 0,
 * ws 0, waddr_add 4, waddr_mul 39. bra -, ra0, f0f409e7_00000000: reg 1,
 * raddr_a 0, both write addresses 39. sacq 9, e80009e7_00000019: sig 14,
 * type 4 (semaphore), both conditions never, sa 1, number 9. */
static void test_published_branch_and_semaphore(void **state) {
  (void)state;
  uint64_t w = word(0xf0f80127u, 0x000000b0u);
  assert_true(qpu_is_branch(w));
  assert_false(qpu_is_alu(w) || qpu_is_ldi(w));
  assert_int_equal(qpu_signal(w), QPU_SIG_NONE);
  assert_true(qpu_half_writes(w, 0)); /* the link */
  assert_int_equal(qpu_half_cond(w, 0), 1);
  assert_true(qpu_writes_reg(w, 0, 4));
  assert_false(qpu_half_writes(w, 1));
  assert_int_equal(qpu_raddr(w, 0), QPU_R_NOP); /* not a register branch */
  assert_int_equal(qpu_raddr(w, 1), QPU_R_NOP);
  assert_int_equal(qpu_acc_reads(w), 0);
  assert_int_equal(qpu_acc_full_writes(w), 0);
  assert_false(qpu_ends_thread(w) || qpu_switches_thread(w));

  w = word(0xf0f409e7u, 0x00000000u);
  assert_true(qpu_is_branch(w));
  assert_int_equal(qpu_raddr(w, 0), 0); /* ra0 gives the target */
  assert_false(qpu_half_writes(w, 0) || qpu_half_writes(w, 1));

  w = word(0xe80009e7u, 0x00000019u);
  assert_true(qpu_is_ldi(w));
  assert_true(qpu_is_semaphore(w));
  assert_false(qpu_is_alu(w));
  assert_false(qpu_half_writes(w, 0) || qpu_half_writes(w, 1));
  assert_int_equal(qpu_raddr(w, 0), QPU_R_NOP);
  assert_false(qpu_reads_mutex(w));
}

/* Writes: which half, which side, which condition, whole or partial. */
static void test_writes(void **state) {
  (void)state;
  uint64_t w = asm1("add r0, r1, r2");
  assert_int_equal(qpu_half_writing(w, QPU_W_ACC0), 0);
  assert_int_equal(qpu_acc_reads(w), R(1) | R(2));
  assert_int_equal(qpu_acc_full_writes(w), R(0));

  w = asm1("add rb5, r1, r2"); /* the ADD writes regfile B: ws = 1 */
  assert_int_equal(qpu_half_side(w, 0), 1);
  assert_true(qpu_writes_reg(w, 1, 5));
  assert_false(qpu_writes_reg(w, 0, 5));

  w = asm1("mov.ifz r1, r2"); /* conditional: may leave lanes as they were */
  assert_int_equal(qpu_half_writing(w, QPU_W_ACC1), 0);
  assert_int_equal(qpu_acc_full_writes(w), 0);

  w = asm1("nop ; mov r0.8a, r1"); /* the MUL's colour pack into byte 0 */
  assert_true(qpu_mul_pack_partial(w));
  assert_int_equal(qpu_half_writing(w, QPU_W_ACC0), 1);
  assert_int_equal(qpu_acc_full_writes(w), 0);
  w = asm1("nop ; mov r0.8888, r1"); /* replicated into all four bytes */
  assert_false(qpu_mul_pack_partial(w));
  assert_int_equal(qpu_acc_full_writes(w), R(0));

  w = asm1("ldi r3, 0x12345678");
  assert_true(qpu_is_ldi(w));
  assert_false(qpu_is_semaphore(w));
  assert_int_equal(qpu_half_writing(w, QPU_W_ACC3), 0);
  assert_int_equal(qpu_acc_full_writes(w), R(3));
  assert_int_equal(qpu_acc_reads(w), 0);

  w = asm1("mov r5quad, r0");
  assert_int_equal(qpu_acc_full_writes(w), R(5));
  assert_int_equal(qpu_acc_reads(w), R(0));

  w = asm1("mov sfu_recip, r2"); /* the SFU refills r4 */
  assert_true(qpu_writes_sfu(w));
  assert_true(qpu_waddr_is_sfu(qpu_half_waddr(w, 0)));
  assert_int_equal(qpu_acc_full_writes(w), R(4));

  w = asm1("mov tlb_colour_all, r0");
  assert_true(qpu_waddr_is_tlb(qpu_half_waddr(w, 0)));
  assert_int_equal(qpu_half_writing(w, QPU_W_TLB_COLOUR_ALL), 0);
  assert_int_equal(qpu_half_writing(w, QPU_W_TLB_Z), -1);
  assert_true(qpu_waddr_is_tmu(QPU_W_TMU0_S) && qpu_waddr_is_tmu(QPU_W_TMU1_B));
  assert_false(qpu_waddr_is_tmu(QPU_W_SFU_LOG) || qpu_waddr_is_acc(QPU_W_ACC5) || qpu_waddr_is_tlb(QPU_W_VPM));

  w = asm1("nop");
  assert_false(qpu_half_writes(w, 0) || qpu_half_writes(w, 1));
  assert_int_equal(qpu_acc_full_writes(w), 0);
}

/* Reads: ports, small immediates, r4 and r5, I/O registers. */
static void test_reads(void **state) {
  (void)state;
  uint64_t w = asm1("add r0, r1, 2"); /* raddr_b holds the small immediate */
  assert_int_equal(qpu_raddr(w, 1), QPU_R_NOP);
  assert_int_equal(qpu_acc_reads(w), R(1));

  w = asm1("nop ; mov r0, r1 >> r5"); /* rotation by r5's element 0 */
  assert_int_equal(qpu_acc_reads(w), R(1) | R(5));
  w = asm1("nop ; mov r0, r1 >> 3");
  assert_int_equal(qpu_acc_reads(w), R(1));

  w = asm1("fadd r0, r4, r5");
  assert_int_equal(qpu_acc_reads(w), R(4) | R(5));

  w = asm1("mov r0, mutex");
  assert_true(qpu_reads_mutex(w));
  w = asm1("mov r0, unif");
  assert_false(qpu_reads_mutex(w));
  assert_true(qpu_raddr(w, 0) == QPU_R_UNIF || qpu_raddr(w, 1) == QPU_R_UNIF);

  w = asm1("fadd r1, vary, r5"); /* a varying read loads r5 with its C coefficient */
  assert_true(qpu_acc_full_writes(w) & R(5));
  assert_true(qpu_acc_full_writes(w) & R(1));
}

/* Signals (RG Table 2). */
static void test_signals(void **state) {
  (void)state;
  uint64_t w = asm1("nop ; thrend");
  assert_true(qpu_ends_thread(w));
  assert_false(qpu_switches_thread(w) || qpu_signal_loads_r4(w));
  w = asm1("nop ; ldcend");
  assert_true(qpu_ends_thread(w) && qpu_loads_tile_colour(w) && qpu_signal_loads_r4(w));
  assert_int_equal(qpu_acc_full_writes(w), R(4));
  w = asm1("nop ; loadc");
  assert_true(qpu_loads_tile_colour(w));
  assert_false(qpu_ends_thread(w));
  w = asm1("nop ; ldtmu1");
  assert_true(qpu_signal_loads_r4(w));
  assert_false(qpu_loads_tile_colour(w));
  w = asm1("nop ; thrsw");
  assert_true(qpu_switches_thread(w));
  w = asm1("nop ; lthrsw");
  assert_true(qpu_switches_thread(w));
  w = asm1("add r0, r1, 2"); /* the small-immediate form signals nothing */
  assert_int_equal(qpu_sig(w), QPU_SIG_SMALL_IMM);
  assert_int_equal(qpu_signal(w), QPU_SIG_NONE);
  assert_true(qpu_is_alu(w));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_published_alu),
      cmocka_unit_test(test_published_branch_and_semaphore),
      cmocka_unit_test(test_writes),
      cmocka_unit_test(test_reads),
      cmocka_unit_test(test_signals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
