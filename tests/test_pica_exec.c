/* test_pica_exec.c — the PICA200 reference interpreter (src/isa/pica/exec.h):
 * control flow exactly as 3dbrew's "Control Flow" model (LOOP runs i.x + 1
 * times with aL from i.y stepping by i.z, also after the last pass; IF with
 * its else block; CALL and return; BREAKC; a jump that ends a loop body is
 * never taken; BREAK outside a loop hangs; the fourth chained CALL pop
 * loses its pc; the 8-deep IF ring loses its oldest entry) and relative
 * addressing's rules
 * with 3dbrew's worked examples (base c40). Programs are built as decoded
 * instructions; every expected value is worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "isa/pica/exec.h"

#define XYZW 0x1B /* selector: x y z w */
#define ONE 0x3f800000u

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static pica_insn alu(unsigned op, unsigned dst, unsigned s1, unsigned s2) {
  pica_insn i;
  memset(&i, 0, sizeof i);
  i.op = (uint8_t)op, i.dst = (uint8_t)dst, i.mask = 0xF;
  i.src[0] = (pica_src){(uint8_t)s1, 0, 0, XYZW};
  i.src[1] = (pica_src){(uint8_t)s2, 0, 0, XYZW};
  return i;
}
static pica_insn flow(unsigned op, unsigned target, unsigned num) {
  pica_insn i;
  memset(&i, 0, sizeof i);
  i.op = (uint8_t)op, i.target = (uint16_t)target, i.num = (uint8_t)num;
  return i;
}
static pica_insn end(void) { return flow(PICA_END, 0, 0); }

#define R(n) (PICA_REG_R + (n))
#define C(n) (PICA_REG_C + (n))

static pica_state st;
static void reset(void) {
  memset(&st, 0, sizeof st);
  st.mode = PICA_NUM_F24;
  for (int k = 0; k < 4; k++) st.c[0][k] = ONE, st.c[1][k] = fbits(10.0f);
}
static int run(const pica_insn *code, size_t n, gs_diag *d) {
  pica_program p = {code, n};
  return pica_run_ref(&st, &p, 0, 10000, d);
}

/* LOOP i0 = (2, 10, 3): three passes adding 1.0; aL = 10 + 3 x 3 = 19. */
static void test_loop(void **state) {
  (void)state;
  reset();
  st.i[0][0] = 2, st.i[0][1] = 10, st.i[0][2] = 3;
  pica_insn code[] = {flow(PICA_LOOP, 1, 0), alu(PICA_ADD, R(0), R(0), C(0)), end()};
  code[0].uid = 0;
  gs_diag d;
  assert_int_equal(run(code, 3, &d), 0);
  assert_true(st.r[0][0] == fbits(3.0f));
  assert_int_equal(st.al, 19);
  assert_int_equal(st.nloop, 0);
}

/* IFC with an else block: cmp.x = (c0.x == c0.x) is true, so the then
 * block (word 2) runs and the else block (word 3) is skipped; with
 * cmp.x false the else block runs. */
static void test_if_else(void **state) {
  (void)state;
  for (int truth = 0; truth < 2; truth++) {
    reset();
    pica_insn cmp = alu(PICA_CMP, 0, C(0), truth ? C(0) : C(1));
    cmp.cmpx = PICA_CMP_EQ, cmp.cmpy = PICA_CMP_EQ;
    pica_insn ifc = flow(PICA_IFC, 3, 1); /* then: 2; else: 3 (1 word); after: 4 */
    ifc.condop = PICA_COND_X, ifc.refx = 1;
    pica_insn code[] = {cmp, ifc, alu(PICA_MOV, R(0), C(0), 0), alu(PICA_MOV, R(1), C(1), 0), end()};
    gs_diag d;
    assert_int_equal(run(code, 5, &d), 0);
    assert_true(st.r[0][0] == (truth ? ONE : 0));
    assert_true(st.r[1][0] == (truth ? 0 : fbits(10.0f)));
  }
}

/* CALL word 3 for 1 word, then back to word 1. */
static void test_call(void **state) {
  (void)state;
  reset();
  pica_insn code[] = {flow(PICA_CALL, 3, 1), alu(PICA_ADD, R(0), R(0), C(1)), end(), alu(PICA_ADD, R(0), R(0), C(0)), end()};
  gs_diag d;
  assert_int_equal(run(code, 5, &d), 0);
  assert_true(st.r[0][0] == fbits(11.0f)); /* 1 in the subroutine, then 10 */
  assert_int_equal(st.ncall, 0);
}

/* BREAKC leaves a loop of 256 passes after the third: the body adds 1.0,
 * compares r0.x >= 3 and breaks. */
static void test_breakc(void **state) {
  (void)state;
  reset();
  st.i[1][0] = 255, st.i[1][1] = 0, st.i[1][2] = 1;
  for (int k = 0; k < 4; k++) st.c[2][k] = fbits(3.0f);
  pica_insn lp = flow(PICA_LOOP, 3, 0);
  lp.uid = 1;
  pica_insn cmp = alu(PICA_CMP, 0, R(0), C(2));
  cmp.cmpx = PICA_CMP_GE, cmp.cmpy = PICA_CMP_GE;
  pica_insn brk = flow(PICA_BREAKC, 0, 0);
  brk.condop = PICA_COND_X, brk.refx = 1;
  pica_insn code[] = {lp, alu(PICA_ADD, R(0), R(0), C(0)), cmp, brk, end()};
  gs_diag d;
  assert_int_equal(run(code, 5, &d), 0);
  assert_true(st.r[0][0] == fbits(3.0f));
  assert_int_equal(st.al, 3); /* 0, stepped by 1 after each of the three passes */
}

/* A JMPU that is the last word of a loop body is never taken: the loop's
 * pop decides the pc. */
static void test_jump_ending_a_body(void **state) {
  (void)state;
  reset();
  st.b = 1; /* b0 true: the jump "would" go to word 4 */
  st.i[0][0] = 1, st.i[0][1] = 0, st.i[0][2] = 1;
  pica_insn jmp = flow(PICA_JMPU, 4, 0);
  jmp.uid = 0;
  pica_insn code[] = {flow(PICA_LOOP, 2, 0), alu(PICA_ADD, R(0), R(0), C(0)), jmp, end(), end()};
  gs_diag d;
  assert_int_equal(run(code, 5, &d), 0);
  assert_true(st.r[0][0] == fbits(2.0f)); /* both passes ran */
}

/* Relative addressing on a uniform (3dbrew's table, base c40 and a0.x):
 * 13 -> c53, 60 -> (1, 1, 1, 1), 88 -> c0, 128 -> c40 (outside a byte: 0),
 * -40 -> c0, -73 -> c95; on a temporary the offset is ignored. */
static void test_relative_addressing(void **state) {
  (void)state;
  static const struct { int32_t a0; int reg; } rows[] = {{13, 53}, {60, -1}, {88, 0}, {128, 40}, {-40, 0}, {-73, 95}};
  for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
    reset();
    for (int u = 0; u < 96; u++) st.c[u][0] = fbits((float)(u + 100));
    st.a0[0] = rows[k].a0;
    pica_insn mov = alu(PICA_MOV, R(0), C(40), 0);
    mov.src[0].idx = PICA_IDX_A0X;
    pica_insn code[] = {mov, end()};
    gs_diag d;
    assert_int_equal(run(code, 2, &d), 0);
    assert_true(st.r[0][0] == (rows[k].reg < 0 ? ONE : fbits((float)(rows[k].reg + 100))));
  }
  reset();
  st.r[3][0] = fbits(5.0f);
  st.a0[0] = 1;
  pica_insn mov = alu(PICA_MOV, R(0), R(3), 0);
  mov.src[0].idx = PICA_IDX_A0X;
  pica_insn code[] = {mov, end()};
  gs_diag d;
  assert_int_equal(run(code, 2, &d), 0);
  assert_true(st.r[0][0] == fbits(5.0f));
}

/* Four calls, each the last word of its caller's body, end together: after
 * the innermost body the CALL stack pops four times in one step, and the
 * fourth pop's pc update is lost, so execution goes on at the third's
 * return address (word 12), not the first's (word 1). */
static void test_fourth_call_pop(void **state) {
  (void)state;
  reset();
  pica_insn code[42];
  for (int k = 0; k < 42; k++) code[k] = flow(PICA_END, 0, 0);
  code[0] = flow(PICA_CALL, 10, 2);                 /* A: 10-11, returns to 1 */
  code[1] = alu(PICA_MOV, R(1), C(1), 0);           /* the first's return: not reached */
  code[10] = flow(PICA_NOP, 0, 0);
  code[11] = flow(PICA_CALL, 20, 2);                /* B: 20-21, returns to 12 = A's end */
  code[12] = alu(PICA_MOV, R(2), C(1), 0);          /* the third's return */
  code[20] = flow(PICA_NOP, 0, 0);
  code[21] = flow(PICA_CALL, 30, 2);                /* C: 30-31, returns to 22 = B's end */
  code[30] = flow(PICA_NOP, 0, 0);
  code[31] = flow(PICA_CALL, 40, 1);                /* D: 40, returns to 32 = C's end */
  code[40] = alu(PICA_ADD, R(0), R(0), C(0));
  gs_diag d;
  assert_int_equal(run(code, 42, &d), 0);
  assert_true(st.r[0][0] == ONE);
  assert_true(st.r[2][0] == fbits(10.0f));
  assert_true(st.r[1][0] == 0);
  assert_int_equal(st.ncall, 0);
}

/* The IF stack holds 8: nine nested true IFUs push nine entries and the
 * oldest, the outermost's, is lost — so when its then block ends nothing
 * pops, and its else block (word 36) runs as straight code. IF k sits at
 * word k with its else block at 20 + 2 (8 - k), one word each. */
static void test_if_ring(void **state) {
  (void)state;
  reset();
  st.b = 1;
  pica_insn code[38];
  for (int k = 0; k < 38; k++) code[k] = flow(PICA_NOP, 0, 0);
  for (int k = 0; k <= 8; k++) {
    code[k] = flow(PICA_IFU, (unsigned)(20 + 2 * (8 - k)), 1);
    code[k].uid = 0;
    if (k) code[20 + 2 * (8 - k)] = end(); /* the inner else blocks: skipped */
  }
  code[36] = alu(PICA_MOV, R(0), C(1), 0);  /* the outermost's else block */
  code[37] = end();
  gs_diag d;
  assert_int_equal(run(code, 38, &d), 0);
  assert_true(st.r[0][0] == fbits(10.0f));
  assert_int_equal(st.nif, 0);
}

/* Errors: BREAK outside a loop hangs the GPU; running off the end; the budget. */
static void test_errors(void **state) {
  (void)state;
  gs_diag d;
  reset();
  pica_insn brk[] = {flow(PICA_BREAK, 0, 0), end()};
  assert_int_equal(run(brk, 2, &d), GS_EHANG);
  assert_non_null(strstr(d.msg, "0x000"));
  reset();
  pica_insn nop[] = {flow(PICA_NOP, 0, 0)};
  assert_int_equal(run(nop, 1, &d), GS_EFAULT);
  reset();
  pica_insn spin[] = {flow(PICA_JMPU, 0, 1), end()}; /* jmpu !b0: b0 false, so it always jumps */
  assert_int_equal(run(spin, 2, &d), GS_EWATCHDOG);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_loop),          cmocka_unit_test(test_if_else),
      cmocka_unit_test(test_call),          cmocka_unit_test(test_breakc),
      cmocka_unit_test(test_jump_ending_a_body), cmocka_unit_test(test_relative_addressing),
      cmocka_unit_test(test_fourth_call_pop), cmocka_unit_test(test_if_ring),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
