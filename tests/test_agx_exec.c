/* test_agx_exec.c — the AGX reference interpreter (src/isa/agx/exec.h): the
 * r0l nesting counter and the exec mask exactly as applegpu's model of the
 * hardware (if/else/while/pop_exec with nest counts 0-3 on every lane,
 * active or not; the mask changed by nothing else), Mesa's control-flow
 * shapes (if/else, a loop with break and continue) traced by hand,
 * jmp_exec_any/none jumping the whole group, the ALU per lane with 16-bit
 * halves and 64-bit pairs, selects, device loads and stores through a
 * memory callback, and the errors, each naming the pc. Programs are built
 * as decoded instructions with the lengths of their real encodings; every
 * expected value is worked out by hand in the comments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "isa/agx/exec.h"
#include "isa/agx/table.h"
#include "isa/uop/jit.h"

/* ---- building programs ------------------------------------------------------ */

static agx_opnd reg(unsigned half, unsigned bits) {
  agx_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = AGX_K_REG, o.bits = (uint8_t)bits, o.count = 1, o.index = (uint16_t)half;
  return o;
}
static agx_opnd R(unsigned n) { return reg(2 * n, 32); }     /* rN */
static agx_opnd RL(unsigned n) { return reg(2 * n, 16); }    /* rNl */
static agx_opnd RH(unsigned n) { return reg(2 * n + 1, 16); } /* rNh */
static agx_opnd DR(unsigned n) { return reg(2 * n, 64); }    /* drN */
static agx_opnd imm(uint32_t v) {
  agx_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = AGX_K_IMM, o.count = 1, o.value = v;
  return o;
}
static agx_opnd fimm(unsigned code) {
  agx_opnd o = imm(code);
  o.kind = AGX_K_FIMM;
  return o;
}
static agx_opnd unif(unsigned half, unsigned bits) {
  agx_opnd o = reg(half, bits);
  o.kind = AGX_K_UNIF;
  return o;
}
static agx_opnd sr(unsigned n) {
  agx_opnd o = imm(0);
  o.kind = AGX_K_SR, o.index = (uint16_t)n;
  return o;
}
static agx_opnd NEG(agx_opnd o) { o.neg = 1; return o; }

/* The length of the encoding the assembler would pick (short forms). */
static uint8_t len_of(unsigned op) {
  switch (op) {
    case AGX_STOP: case AGX_TRAP: case AGX_WAIT: return 2;
    case AGX_FADD: case AGX_FMUL: case AGX_HADD: case AGX_HMUL: case AGX_GET_SR: case AGX_LDIMM: case AGX_ST_VAR:
    case AGX_NO_VAR: return 4;
    case AGX_IADD: case AGX_ISUB: case AGX_IMAD: case AGX_ICMPSEL: case AGX_FCMPSEL: case AGX_LOAD:
    case AGX_STORE: case AGX_BFI: case AGX_BFEIL: case AGX_EXTR: case AGX_SMPF: return 8;
    default: return 6;
  }
}
static agx_instr I(unsigned op) {
  agx_instr in;
  memset(&in, 0, sizeof in);
  in.op = (uint8_t)op, in.len = len_of(op);
  return in;
}
static agx_instr op2(unsigned op, agx_opnd d, agx_opnd a, agx_opnd b) {
  agx_instr in = I(op);
  in.dst = d, in.src[0] = a, in.src[1] = b;
  return in;
}
static agx_instr op3(unsigned op, agx_opnd d, agx_opnd a, agx_opnd b, agx_opnd c) {
  agx_instr in = op2(op, d, a, b);
  in.src[2] = c;
  return in;
}
static agx_instr ldimm(agx_opnd d, uint32_t v) {
  agx_instr in = op2(AGX_LDIMM, d, imm(v), imm(0));
  in.src[1].kind = AGX_K_NONE;
  return in;
}
static agx_instr iadd(agx_opnd d, agx_opnd a, agx_opnd b) { return op2(AGX_IADD, d, a, b); }
/* if/else/while: op, A, B, nest, cond */
static agx_instr cf(unsigned op, agx_opnd a, agx_opnd b, unsigned nest, unsigned cond) {
  agx_instr in = I(op);
  in.src[0] = a, in.src[1] = b, in.nest = (uint8_t)nest, in.cond = (uint8_t)cond;
  return in;
}
static agx_instr pop(unsigned n) {
  agx_instr in = I(AGX_POP_EXEC);
  in.nest = (uint8_t)n;
  return in;
}
/* update_exec (n = 0) / push_exec n: if_fcmp eq, 0.0, 0.0 */
static agx_instr push(unsigned n) { return cf(AGX_IF_FCMP, fimm(0), fimm(0), n, AGX_FEQ); }
/* the unconditional else */
static agx_instr els(unsigned n) { return cf(AGX_ELSE_FCMP, fimm(0), fimm(0), n, AGX_FEQ); }
/* a jump to instruction `target` (fixed into a byte offset by prog) */
static agx_instr jmp(unsigned op, int target) {
  agx_instr in = I(op);
  in.offset = target;
  return in;
}
static agx_instr stop(void) { return I(AGX_STOP); }

/* Turns the jumps' target indices into byte offsets. */
static void fix(agx_instr *code, size_t n) {
  uint32_t addr[128];
  uint32_t a = 0;
  for (size_t k = 0; k < n; k++) addr[k] = a, a += code[k].len;
  for (size_t k = 0; k < n; k++)
    if (code[k].op == AGX_JMP_ANY || code[k].op == AGX_JMP_NONE)
      code[k].offset = (int32_t)(addr[code[k].offset] - addr[k]);
}

static agx_state st;
static gs_diag dg;

static int run(const agx_instr *code, size_t n) {
  agx_instr tmp[64];
  memcpy(tmp, code, n * sizeof *code);
  fix(tmp, n);
  agx_program p = {tmp, n};
  gs_diag_clear(&dg);
  return agx_run_ref(&st, &p, 0, 10000, &dg);
}
/* Runs the first k instructions of code followed by stop. */
static int run_prefix(const agx_instr *code, size_t k) {
  agx_instr tmp[64];
  memcpy(tmp, code, k * sizeof *code);
  tmp[k] = stop();
  return run(tmp, k + 1);
}
static unsigned r0l(unsigned lane) { return st.r[lane][0]; }

/* ---- the nesting counter ------------------------------------------------------ */

/* The worked trace: lane 0 active with its condition true, lane 1 active
 * with it false, lane 2 inactive at depth 1. if: 0 / 1 / 2; else: 1 / 0 /
 * 2; pop_exec 1: 0 / 0 / 1. The then block runs in lane 0 only, the else
 * block in lane 1 only, the code after the pop in lanes 0 and 1. */
static void test_if_else_trace(void **state) {
  (void)state;
  agx_instr code[] = {
      cf(AGX_IF_ICMP, R(1), imm(0), 1, AGX_INE), iadd(R(2), R(2), imm(1)), els(1), iadd(R(3), R(3), imm(1)),
      pop(1), iadd(R(4), R(4), imm(1)), stop()};
  static const unsigned after[3][3] = {{0, 1, 2}, {1, 0, 2}, {0, 0, 1}};
  static const size_t at[3] = {1, 3, 5};
  for (int stage = 0; stage < 4; stage++) {
    agx_state_init(&st, 3);
    st.r[2][0] = 1, st.exec = 3;
    agx_set_reg32(&st, 0, 1, 5), agx_set_reg32(&st, 2, 1, 7);
    if (stage < 3) {
      assert_int_equal(run_prefix(code, at[stage]), 0);
      for (unsigned l = 0; l < 3; l++) assert_int_equal(r0l(l), after[stage][l]);
      uint32_t exec = 0;
      for (unsigned l = 0; l < 3; l++) exec |= (after[stage][l] == 0) << l;
      assert_int_equal(st.exec, exec);
    } else {
      assert_int_equal(run(code, 7), 0);
      assert_true(st.stopped);
      static const uint32_t r2[3] = {1, 0, 0}, r3[3] = {0, 1, 0}, r4[3] = {1, 1, 0};
      for (unsigned l = 0; l < 3; l++) {
        assert_int_equal(agx_reg32(&st, l, 2), r2[l]);
        assert_int_equal(agx_reg32(&st, l, 3), r3[l]);
        assert_int_equal(agx_reg32(&st, l, 4), r4[l]);
      }
    }
  }
}

/* Each rule with nest counts 0-3 over four lanes at depths 0, 1, 2, 3;
 * the condition is lane < r9 (ult on r1 = lane id). */
static void check_rule(agx_instr in, unsigned cond_lanes, const unsigned want[4]) {
  agx_instr code[2] = {in, stop()};
  agx_state_init(&st, 4);
  for (unsigned l = 0; l < 4; l++) st.r[l][0] = (uint16_t)l, agx_set_reg32(&st, l, 1, l), agx_set_reg32(&st, l, 9, cond_lanes);
  st.exec = 1;
  assert_int_equal(run(code, 2), 0);
  uint32_t exec = 0;
  for (unsigned l = 0; l < 4; l++) {
    assert_int_equal(r0l(l), want[l]);
    exec |= (want[l] == 0) << l;
  }
  assert_int_equal(st.exec, exec);
}
static void test_counter_rules(void **state) {
  (void)state;
  agx_opnd lane = R(1), lim = R(9);
  /* if: r0l != 0 -> r0l + n; r0l == 0 -> cond ? 0 : 1 */
  for (unsigned n = 0; n < 4; n++) {
    unsigned t[4] = {0, 1 + n, 2 + n, 3 + n}, f[4] = {1, 1 + n, 2 + n, 3 + n};
    check_rule(cf(AGX_IF_ICMP, lane, lim, n, AGX_ULT), 4, t);
    check_rule(cf(AGX_IF_ICMP, lane, lim, n, AGX_ULT), 0, f);
  }
  /* else: 0 -> n; 1 -> cond ? 0 : 1; >= 2 kept */
  for (unsigned n = 0; n < 4; n++) {
    unsigned t[4] = {n, 0, 2, 3}, f[4] = {n, 1, 2, 3};
    check_rule(cf(AGX_ELSE_ICMP, lane, lim, n, AGX_ULT), 4, t);
    check_rule(cf(AGX_ELSE_ICMP, lane, lim, n, AGX_ULT), 0, f);
  }
  /* while: r0l < n -> cond ? 0 : n; else kept. Condition per lane: lanes
   * 0 and 1 true (lane < 2), 2 and 3 false. */
  static const unsigned wh[4][4] = {{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 0, 2, 3}, {0, 0, 3, 3}};
  for (unsigned n = 0; n < 4; n++) check_rule(cf(AGX_WHILE_ICMP, lane, lim, n, AGX_ULT), 2, wh[n]);
  static const unsigned wf[4] = {3, 3, 3, 3};
  check_rule(cf(AGX_WHILE_FCMP, fimm(0), fimm(0x30), 3, AGX_FGT), 0, wf); /* 0.0 > 1.0 false: r0l < 3 -> 3 */
  /* pop_exec: max(0, r0l - n) */
  for (unsigned n = 0; n < 4; n++) {
    unsigned p[4];
    for (unsigned l = 0; l < 4; l++) p[l] = l > n ? l - n : 0;
    check_rule(pop(n), 0, p);
  }
  /* push_exec 2 / update_exec: the always-true if */
  static const unsigned p2[4] = {0, 3, 4, 5}, u0[4] = {0, 1, 2, 3};
  check_rule(push(2), 0, p2);
  check_rule(push(0), 0, u0);
  /* the inverted integer condition (ugte = !ult), float conditions */
  static const unsigned inv[4] = {1, 1, 2, 3};
  check_rule(cf(AGX_IF_ICMP, lane, lim, 0, AGX_UGTE), 4, inv);
  static const unsigned fl[4] = {0, 2, 3, 4};
  check_rule(cf(AGX_IF_FCMP, fimm(0x30), fimm(0x40), 1, AGX_FLT), 0, fl); /* 1.0 < 2.0 */
}

/* Nested ifs: depths climb by each nest count and come down pop by pop. */
static void test_nested(void **state) {
  (void)state;
  /* lanes 0-3, r1 = lane: if (lane < 3) { if (lane < 2) { if (lane < 1) {
   * r5 += 1 } } }, then pop_exec 1 three times; the third if nests by 3 */
  const agx_instr code[] = {
      ldimm(RL(0), 0),
      cf(AGX_IF_ICMP, R(1), imm(3), 1, AGX_ULT), /* 0 0 0 1 */
      cf(AGX_IF_ICMP, R(1), imm(2), 1, AGX_ULT), /* 0 0 1 2 */
      cf(AGX_IF_ICMP, R(1), imm(1), 3, AGX_ULT), /* 0 1 4 5 */
      iadd(R(5), R(5), imm(1)),
      pop(1),                                    /* 0 0 3 4 */
      pop(1),                                    /* 0 0 2 3 */
      pop(2),                                    /* 0 0 0 1 */
      iadd(R(6), R(6), imm(1)),
      stop()};
  static const struct { size_t k; unsigned d[4]; } t[] = {
      {2, {0, 0, 0, 1}}, {3, {0, 0, 1, 2}}, {4, {0, 1, 4, 5}}, {6, {0, 0, 3, 4}}, {7, {0, 0, 2, 3}}, {8, {0, 0, 0, 1}}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    agx_state_init(&st, 4);
    for (unsigned l = 0; l < 4; l++) agx_set_reg32(&st, l, 1, l);
    assert_int_equal(run_prefix(code, t[i].k), 0);
    for (unsigned l = 0; l < 4; l++) assert_int_equal(r0l(l), t[i].d[l]);
  }
  agx_state_init(&st, 4);
  for (unsigned l = 0; l < 4; l++) agx_set_reg32(&st, l, 1, l);
  assert_int_equal(run(code, 10), 0);
  static const uint32_t r5[4] = {1, 0, 0, 0}, r6[4] = {1, 1, 1, 0};
  for (unsigned l = 0; l < 4; l++) {
    assert_int_equal(agx_reg32(&st, l, 5), r5[l]);
    assert_int_equal(agx_reg32(&st, l, 6), r6[l]);
  }
  assert_int_equal(st.exec, 7);
}

/* Writing r0l changes the counter, never the mask, until an exec-stack
 * instruction recomputes it. */
static void test_mask_only_by_stack(void **state) {
  (void)state;
  agx_instr code[] = {
      ldimm(RL(0), 1),          /* every lane's counter 1, mask unchanged */
      iadd(R(2), R(2), imm(1)), /* still runs in all four lanes */
      push(0),                  /* update_exec: nobody active */
      iadd(R(3), R(3), imm(1)), /* runs nowhere */
      pop(1),                   /* everyone back */
      iadd(R(4), R(4), imm(1)), stop()};
  agx_state_init(&st, 4);
  assert_int_equal(run(code, 7), 0);
  for (unsigned l = 0; l < 4; l++) {
    assert_int_equal(agx_reg32(&st, l, 2), 1);
    assert_int_equal(agx_reg32(&st, l, 3), 0);
    assert_int_equal(agx_reg32(&st, l, 4), 1);
    assert_int_equal(r0l(l), 0);
  }
  assert_int_equal(st.exec, 0xf);
}

/* A loop with break and continue in Mesa's shape. Per lane: for (i = 1;;
 * i++) { if (i > limit) break; if (i & 1) continue; sum += i; }. Inside
 * the ifs break parks the lane at 3 and continue at 2; each if's pop takes
 * one off, so at the loop end breakers hold 2 and continuers 1, and
 * `while 0.0, 0.0, 2, feq` reactivates exactly the 1s; after the loop
 * pop_exec 2 brings the breakers back. Limits 0, 1, 2, 3, 5 give i = 1, 2,
 * 3, 4, 6 and sums 0, 0, 2, 2, 6 (2 + 4). */
static void test_loop_break_continue(void **state) {
  (void)state;
  agx_instr and1 = op2(AGX_BITOP, R(5), R(1), imm(1));
  and1.tt = 0x8;
  agx_instr code[] = {
      ldimm(RL(0), 0),                            /* 0 */
      iadd(R(1), R(1), imm(1)),                   /* 1 L: i++ */
      cf(AGX_IF_ICMP, R(1), R(2), 1, AGX_UGT),    /* 2 if (i > limit) */
      ldimm(RL(0), 3),                            /* 3   break */
      pop(0),                                     /* 4 */
      pop(1),                                     /* 5 */
      and1,                                       /* 6 */
      cf(AGX_IF_ICMP, R(5), imm(0), 1, AGX_INE),  /* 7 if (i & 1) */
      ldimm(RL(0), 2),                            /* 8   continue */
      pop(0),                                     /* 9 */
      pop(1),                                     /* 10 */
      iadd(R(3), R(3), R(1)),                     /* 11 sum += i */
      cf(AGX_WHILE_FCMP, fimm(0), fimm(0), 2, AGX_FEQ), /* 12 continuers back */
      jmp(AGX_JMP_ANY, 1),                        /* 13 */
      pop(2),                                     /* 14 */
      stop()};
  static const uint32_t lim[5] = {0, 1, 2, 3, 5}, i[5] = {1, 2, 3, 4, 6}, sum[5] = {0, 0, 2, 2, 6};
  agx_state_init(&st, 5);
  for (unsigned l = 0; l < 5; l++) agx_set_reg32(&st, l, 2, lim[l]);
  assert_int_equal(run(code, 16), 0);
  for (unsigned l = 0; l < 5; l++) {
    assert_int_equal(agx_reg32(&st, l, 1), i[l]);
    assert_int_equal(agx_reg32(&st, l, 3), sum[l]);
    assert_int_equal(r0l(l), 0);
  }
  assert_int_equal(st.exec, 0x1f);
  /* the group went round six times (lane 4's i = 1..6): 1 + 6 x 13 + 2 */
  assert_int_equal(st.steps, 81);
}

/* jmp_exec_none/any jump the whole group on whether any lane is active. */
static void test_group_jumps(void **state) {
  (void)state;
  agx_instr code[] = {
      ldimm(RL(0), 0), cf(AGX_IF_ICMP, R(1), imm(0), 1, AGX_INE), jmp(AGX_JMP_NONE, 4), iadd(R(2), R(2), imm(1)),
      pop(1), stop()};
  /* one lane of four active (lane 2): no jump, lane 2 alone adds */
  agx_state_init(&st, 4);
  agx_set_reg32(&st, 2, 1, 9);
  assert_int_equal(run(code, 6), 0);
  for (unsigned l = 0; l < 4; l++) assert_int_equal(agx_reg32(&st, l, 2), l == 2);
  assert_int_equal(st.steps, 6);
  /* none active: the group jumps over the add */
  agx_state_init(&st, 4);
  assert_int_equal(run(code, 6), 0);
  assert_int_equal(st.steps, 5);
  assert_int_equal(st.exec, 0xf);
  /* jmp_exec_any with one lane active: taken (a backward jump counts down r7
   * of the active lane to 0, then falls through) */
  agx_instr loop[] = {
      ldimm(RL(0), 0), cf(AGX_IF_ICMP, R(1), imm(0), 1, AGX_INE), op2(AGX_ISUB, R(7), R(7), imm(1)),
      cf(AGX_WHILE_ICMP, R(7), imm(0), 1, AGX_INE), jmp(AGX_JMP_ANY, 2), pop(1), stop()};
  agx_state_init(&st, 4);
  agx_set_reg32(&st, 1, 1, 1), agx_set_reg32(&st, 1, 7, 3);
  agx_set_reg32(&st, 3, 7, 3);
  assert_int_equal(run(loop, 7), 0);
  assert_int_equal(agx_reg32(&st, 1, 7), 0);
  assert_int_equal(agx_reg32(&st, 3, 7), 3); /* inactive: untouched */
  assert_int_equal(st.steps, 2 + 3 * 3 + 2);
  assert_int_equal(st.exec, 0xf);
}

/* ---- the ALU per lane ------------------------------------------------------------ */

static uint32_t fb(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static void test_alu_halves_and_pairs(void **state) {
  (void)state;
  agx_instr code[] = {
      op2(AGX_FADD, R(3), RL(1), R(2)),               /* f16 1.5 widened + 0.25 = 1.75 */
      op2(AGX_FADD, RL(4), R(2), fimm(0x30)),         /* 0.25 + 1.0 = 1.25 -> f16 0x3d00 into r4l only */
      op2(AGX_HMUL, RH(5), RL(1), RL(1)),             /* 1.5 x 1.5 = 2.25: f16 0x4080 */
      op2(AGX_FADD, R(6), NEG(R(2)), fimm(0x80)),     /* fneg: -0.25 */
      iadd(DR(8), DR(8), DR(10)),                     /* 64-bit: 0xffffffff + 1 = 2^32 */
      op3(AGX_IMAD, DR(12), R(14), R(14), imm(0)),    /* imul: 0xffffffff^2 */
      op2(AGX_GET_SR, R(15), sr(52), imm(0)),         /* lane id */
      iadd(RL(16), RH(16), imm(1)),                   /* 16-bit: 0xffff + 1 = 0 into r16l */
      stop()};
  code[6].src[1].kind = AGX_K_NONE;
  agx_state_init(&st, 2);
  st.exec = 1; /* lane 1 present but inactive: nothing of it changes */
  for (unsigned l = 0; l < 2; l++) {
    st.r[l][2] = 0x3e00; /* r1l = f16 1.5 */
    agx_set_reg32(&st, l, 2, fb(0.25f));
    agx_set_reg32(&st, l, 4, 0xaaaa5555u);
    agx_set_reg32(&st, l, 5, 0x12345678u);
    agx_set_reg32(&st, l, 8, 0xffffffffu), agx_set_reg32(&st, l, 9, 0);
    agx_set_reg32(&st, l, 10, 1), agx_set_reg32(&st, l, 11, 0);
    agx_set_reg32(&st, l, 14, 0xffffffffu);
    agx_set_reg32(&st, l, 16, 0xffff0007u);
  }
  assert_int_equal(run(code, 9), 0);
  assert_int_equal(agx_reg32(&st, 0, 3), fb(1.75f));
  assert_int_equal(agx_reg32(&st, 0, 4), 0xaaaa3d00u);
  assert_int_equal(agx_reg32(&st, 0, 5), 0x40805678u);
  assert_int_equal(agx_reg32(&st, 0, 6), fb(-0.25f));
  assert_int_equal(agx_reg32(&st, 0, 8), 0), assert_int_equal(agx_reg32(&st, 0, 9), 1);
  assert_int_equal(agx_reg32(&st, 0, 12), 1), assert_int_equal(agx_reg32(&st, 0, 13), 0xfffffffeu);
  assert_int_equal(agx_reg32(&st, 0, 15), 0);
  assert_int_equal(agx_reg32(&st, 0, 16), 0xffff0000u);
  assert_int_equal(agx_reg32(&st, 1, 3), 0);
  assert_int_equal(agx_reg32(&st, 1, 4), 0xaaaa5555u);
  assert_int_equal(agx_reg32(&st, 1, 8), 0xffffffffu);
  assert_int_equal(agx_reg32(&st, 1, 16), 0xffff0007u);
}

static void test_selects(void **state) {
  (void)state;
  agx_instr code[] = {
      /* fmin: csel r6, r6, r7, r6, r7, fltn */
      op2(AGX_FCMPSEL, R(8), R(6), R(7)),
      /* csel r0h, r1, u4, 1, 0, ult: a 16-bit result of a 32-bit compare */
      op2(AGX_ICMPSEL, RH(0), R(1), unif(8, 32)),
      /* integer max of signed values: csel r9, r2, r3, r2, r3, sgt */
      op2(AGX_ICMPSEL, R(9), R(2), R(3)),
      stop()};
  code[0].src[2] = R(6), code[0].src[3] = R(7), code[0].cond = AGX_FLTN;
  code[1].src[2] = imm(1), code[1].src[3] = imm(0), code[1].cond = AGX_ULT;
  code[2].src[2] = R(2), code[2].src[3] = R(3), code[2].cond = AGX_SGT;
  /* lane 0: fmin(NaN, 2) = 2, 5 < 7, max(-1, 1) = 1; lane 1: fmin(1, NaN) = 1, 9 >= 7, max(3, -4) = 3 */
  static const uint32_t r6[2] = {0x7fc00000u, 0x3f800000u}, r7[2] = {0x40000000u, 0x7fc00001u};
  static const uint32_t r1[2] = {5, 9}, r2[2] = {0xffffffffu, 3}, r3[2] = {1, 0xfffffffcu};
  agx_state_init(&st, 2);
  agx_set_unif32(&st, 4, 7);
  for (unsigned l = 0; l < 2; l++) {
    agx_set_reg32(&st, l, 6, r6[l]), agx_set_reg32(&st, l, 7, r7[l]);
    agx_set_reg32(&st, l, 1, r1[l]), agx_set_reg32(&st, l, 2, r2[l]), agx_set_reg32(&st, l, 3, r3[l]);
    agx_set_reg32(&st, l, 0, 0xbeef0000u);
  }
  assert_int_equal(run(code, 4), 0);
  assert_int_equal(agx_reg32(&st, 0, 8), 0x40000000u);
  assert_int_equal(agx_reg32(&st, 1, 8), 0x3f800000u);
  assert_int_equal(agx_reg32(&st, 0, 0), 0x00010000u);
  assert_int_equal(agx_reg32(&st, 1, 0), 0x00000000u);
  assert_int_equal(agx_reg32(&st, 0, 9), 1);
  assert_int_equal(agx_reg32(&st, 1, 9), 3);
}

/* ---- memory ------------------------------------------------------------------------- */

static uint8_t mem[64];
static agx_flat_mem flat = {0x10000, mem, sizeof mem};

static agx_instr memop(unsigned op, agx_opnd data, agx_opnd base, agx_opnd index, unsigned fmt, unsigned mask,
                       unsigned shift) {
  agx_instr in = I(op);
  if (op == AGX_LOAD) in.dst = data;
  else in.src[0] = data;
  in.src[1] = base, in.src[2] = index, in.format = (uint8_t)fmt, in.mask = (uint8_t)mask, in.shift = (uint8_t)shift;
  return in;
}

static void mem_state(unsigned lanes) {
  agx_state_init(&st, lanes);
  for (unsigned k = 0; k < sizeof mem; k++) mem[k] = (uint8_t)k;
  st.mem = agx_flat_mem_access, st.mem_ctx = &flat;
  agx_set_unif32(&st, 0, 0x10000), agx_set_unif32(&st, 1, 0); /* du0 = 0x10000 */
}

/* load r8_r9_r10_r11, du0, r7, lsl 2, i32, xyzw: lane l (r7 = l) reads the
 * four words at 0x10000 + ((l << 2) + j) x 4, i.e. bytes 16l..16l+15. */
static void test_load_store(void **state) {
  (void)state;
  agx_instr code[] = {
      memop(AGX_LOAD, reg(16, 32), unif(0, 64), R(7), AGX_FMT_I32, 0xf, 2),
      I(AGX_WAIT),
      iadd(R(12), R(8), R(11)),
      /* store r0l_r0h.. as u8norm (x and z only: two registers, bytes 0 and 2
       * of element index 48 + j) */
      memop(AGX_STORE, reg(2, 32), unif(0, 64), imm(48), AGX_FMT_U8NORM, 0x5, 0),
      stop()};
  mem_state(2);
  for (unsigned l = 0; l < 2; l++) agx_set_reg32(&st, l, 7, l);
  agx_set_reg32(&st, 0, 1, fb(1.0f)), agx_set_reg32(&st, 0, 2, fb(0.5f));
  st.exec = 1 | 2;
  assert_int_equal(run(code, 5), 0);
  for (unsigned l = 0; l < 2; l++)
    for (unsigned j = 0; j < 4; j++) {
      unsigned b = 16 * l + 4 * j;
      assert_int_equal(agx_reg32(&st, l, 8 + j), b | (b + 1) << 8 | (b + 2) << 16 | (uint32_t)(b + 3) << 24);
    }
  assert_int_equal(agx_reg32(&st, 0, 12), 0x03020100u + 0x0f0e0d0cu);
  /* both lanes stored; lane 1's r1, r2 are 0 and the last store wins: 0 */
  assert_int_equal(mem[48], 0), assert_int_equal(mem[50], 0), assert_int_equal(mem[49], 49);
  /* one lane: 1.0 -> 255, 0.5 -> 128 (127.5 to even) */
  mem_state(1);
  agx_set_reg32(&st, 0, 1, fb(1.0f)), agx_set_reg32(&st, 0, 2, fb(0.5f));
  assert_int_equal(run(code, 5), 0);
  assert_int_equal(mem[48], 255), assert_int_equal(mem[50], 128), assert_int_equal(mem[49], 49);
  /* 16-bit data from u8norm: f16 */
  agx_instr h[] = {memop(AGX_LOAD, reg(2, 16), unif(0, 64), imm(0), AGX_FMT_U8NORM, 0x1, 0), I(AGX_WAIT), stop()};
  mem_state(1);
  mem[0] = 255;
  assert_int_equal(run(h, 3), 0);
  assert_int_equal(st.r[0][2], 0x3c00);
}

static void expect_error(const agx_instr *code, size_t n, int rc, const char *needle) {
  int got = run(code, n);
  assert_int_equal(got, rc);
  if (!strstr(dg.msg, needle)) fail_msg("message \"%s\" lacks \"%s\"", dg.msg, needle);
}

static void test_errors(void **state) {
  (void)state;
  /* outside memory: lane 1's index 16 reaches 0x10040 */
  agx_instr ld[] = {memop(AGX_LOAD, reg(16, 32), unif(0, 64), R(7), AGX_FMT_I32, 0x1, 0), stop()};
  mem_state(2);
  agx_set_reg32(&st, 1, 7, 16);
  expect_error(ld, 2, GS_EFAULT, "pc 0x0000: lane 1: load of 4 bytes at 0x10040 is outside memory");
  /* a read before the wait */
  agx_instr early[] = {memop(AGX_LOAD, reg(16, 32), unif(0, 64), imm(0), AGX_FMT_I32, 0x1, 0),
                       iadd(R(1), R(8), imm(0)), stop()};
  mem_state(1);
  expect_error(early, 3, GS_EINVAL, "pc 0x0008: r8l is read before the wait for its load (wait a)");
  /* the declared register count: 8 halves are r0-r3 */
  agx_instr far[] = {ldimm(RL(0), 0), iadd(R(4), R(1), imm(1)), stop()};
  agx_state_init(&st, 1);
  st.nregs = 8;
  expect_error(far, 3, GS_EINVAL, "pc 0x0004: r4l is beyond the declared register count (8 halves, r0-r3)");
  /* trap, falling off the end, a jump into an instruction */
  agx_instr tr[] = {ldimm(RL(0), 0), I(AGX_TRAP)};
  agx_state_init(&st, 1);
  expect_error(tr, 2, GS_EINVAL, "pc 0x0004: trap");
  agx_instr off[] = {ldimm(RL(0), 0)};
  agx_state_init(&st, 1);
  expect_error(off, 1, GS_EFAULT, "pc 0x0004: past the end of the program");
  agx_instr mid[] = {jmp(AGX_JMP_ANY, 0), stop()};
  mid[0].offset = 0; /* fixed below to 3 bytes */
  agx_state_init(&st, 1);
  {
    agx_program p = {mid, 2};
    mid[0].offset = 3;
    gs_diag_clear(&dg);
    assert_int_equal(agx_run_ref(&st, &p, 0, 100, &dg), GS_EFAULT);
    assert_non_null(strstr(dg.msg, "pc 0x0000: jump to 0x0003, which is not the start of an instruction"));
  }
  /* the budget */
  agx_instr spin[] = {jmp(AGX_JMP_ANY, 0)};
  agx_state_init(&st, 1);
  expect_error(spin, 1, GS_EWATCHDOG, "budget of 10000");
  /* an undefined condition, an instruction not run here, a missing sr */
  agx_instr bad[] = {cf(AGX_IF_ICMP, R(1), imm(0), 1, 3), stop()};
  agx_state_init(&st, 1);
  expect_error(bad, 2, GS_EINVAL, "condition code 3 is undefined");
  agx_instr sv[] = {I(AGX_SMPF), stop()};
  agx_state_init(&st, 1);
  expect_error(sv, 2, GS_EINVAL, "pc 0x0000: smpf with no sampler attached");
  agx_instr uv[] = {I(AGX_UNIFORM_STORE), stop()};
  agx_state_init(&st, 1);
  expect_error(uv, 2, GS_EINVAL, "pc 0x0000: mov is not run by the reference interpreter"); /* uniform_store */
  agx_instr gs[] = {op2(AGX_GET_SR, R(1), sr(80), imm(0)), stop()};
  agx_state_init(&st, 1);
  expect_error(gs, 2, GS_EINVAL, "special register sr80 is not provided");
}

/* get_sr: the group's own registers. */
static void test_special(void **state) {
  (void)state;
  agx_instr code[] = {op2(AGX_GET_SR, R(1), sr(58), imm(0)), op2(AGX_GET_SR, R(2), sr(59), imm(0)),
                      op2(AGX_GET_SR, R(3), sr(63), imm(0)), op2(AGX_GET_SR, R(4), sr(57), imm(0)), stop()};
  agx_state_init(&st, 8);
  st.exec = 0xb6; /* lanes 1 2 4 5 7 */
  assert_int_equal(run(code, 5), 0);
  static const uint32_t idx[8] = {0, 0, 1, 0, 2, 3, 0, 4};
  static const uint32_t quad[8] = {0, 2, 2, 0, 3, 3, 0, 3};
  for (unsigned l = 0; l < 8; l++) {
    if (!((0xb6 >> l) & 1)) continue;
    assert_int_equal(agx_reg32(&st, l, 1), idx[l]);
    assert_int_equal(agx_reg32(&st, l, 2), 5);
    assert_int_equal(agx_reg32(&st, l, 3), 1);
    assert_int_equal(agx_reg32(&st, l, 4), quad[l]);
  }
}


/* dfdx/dfdy: fine differences in the quad (lanes 0 1 on the top row, 2 3
 * below), an inactive lane's value read all the same. v = 1, 3, 10, 30:
 * dfdx = 2, 2, 20, 20; dfdy = 9, 27, 9, 27 (lane 3 inactive: unwritten). */
static void test_derivatives(void **state) {
  (void)state;
  agx_instr code[] = {op2(AGX_DFDX, R(2), R(1), imm(0)), op2(AGX_DFDY, R(3), R(1), imm(0)), stop()};
  code[0].src[1].kind = code[1].src[1].kind = AGX_K_NONE;
  static const float v[4] = {1, 3, 10, 30}, dx[3] = {2, 2, 20}, dy[3] = {9, 27, 9};
  agx_state_init(&st, 4);
  st.exec = 7;
  for (unsigned l = 0; l < 4; l++) agx_set_reg32(&st, l, 1, fb(v[l]));
  assert_int_equal(run(code, 3), 0);
  for (unsigned l = 0; l < 3; l++) {
    assert_int_equal(agx_reg32(&st, l, 2), fb(dx[l]));
    assert_int_equal(agx_reg32(&st, l, 3), fb(dy[l]));
  }
  assert_int_equal(agx_reg32(&st, 3, 2), 0);
}

/* st_var: the active lanes' words into their UVS, the last store ending
 * the lane's varyings; no_var ends them with nothing stored. */
static void test_varyings(void **state) {
  (void)state;
  agx_instr code[] = {op2(AGX_ST_VAR, imm(0), R(1), imm(0)), op2(AGX_ST_VAR, imm(0), R(2), imm(3)),
                      op2(AGX_ST_VAR, imm(0), R(3), RL(4)), stop()};
  for (int i = 0; i < 3; i++) code[i].dst.kind = AGX_K_NONE;
  code[2].last = 1;
  agx_state_init(&st, 2);
  st.exec = 1;
  agx_set_reg32(&st, 0, 1, 0x11111111u), agx_set_reg32(&st, 0, 2, 0x22222222u), agx_set_reg32(&st, 0, 3, 0x33333333u);
  st.r[0][8] = 7; /* r4l: the index of the third store */
  assert_int_equal(run(code, 4), 0);
  assert_int_equal(st.uvs[0][0], 0x11111111u);
  assert_int_equal(st.uvs[0][3], 0x22222222u);
  assert_int_equal(st.uvs[0][7], 0x33333333u);
  assert_int_equal(st.uvs_written[0], 0x89);
  assert_int_equal(st.uvs_written[1], 0); /* inactive */
  assert_int_equal(st.var_done, 1);
  /* a store after the last one, an index beyond the UVS, no_var */
  agx_instr again[] = {code[2], code[0], stop()};
  agx_state_init(&st, 1);
  expect_error(again, 3, GS_EINVAL, "pc 0x0004: lane 0: st_var after the lane's last varying store");
  agx_instr far[] = {op2(AGX_ST_VAR, imm(0), R(1), imm(64)), stop()};
  far[0].dst.kind = AGX_K_NONE;
  agx_state_init(&st, 1);
  expect_error(far, 2, GS_EINVAL, "st_var to UVS word 64");
  agx_instr none[] = {I(AGX_NO_VAR), stop()};
  agx_state_init(&st, 3);
  assert_int_equal(run(none, 2), 0);
  assert_int_equal(st.var_done, 7);
  assert_int_equal(st.uvs_written[0], 0);
}

/* The pixel of each lane for iter: lane 0 at (33, 2), lane 1 at (95, 31). */
static int pixel(void *ctx, unsigned lane, unsigned n, uint32_t *v) {
  (void)ctx;
  static const uint32_t xy[2][2] = {{33, 2}, {95, 31}};
  if (n != 80 && n != 81) return -1;
  *v = xy[lane][n - 80];
  return 0;
}
static agx_opnd cfr(unsigned n) {
  agx_opnd o = imm(0);
  o.kind = AGX_K_CF, o.index = (uint16_t)n;
  return o;
}

/* iter, iterproj, ldcf. cf0 = 1/w constant 0.5; cf1 = (1, 2, 3), cf2 =
 * (0, -1, 0.25). Tile-relative centres: lane 0 (1.5, 2.5), lane 1 (31.5,
 * 31.5). cf1: 1.5 + 5 + 3 = 9.5 and 31.5 + 63 + 3 = 97.5; cf2: -2.25 and
 * -31.25; iterproj divides by 0.5: 19, 195. */
static void test_iter(void **state) {
  (void)state;
  agx_instr code[] = {op2(AGX_ITER, reg(8, 32), cfr(1), imm(0)), op2(AGX_ITERPROJ, reg(12, 32), cfr(1), cfr(0)),
                      op2(AGX_ITER, reg(20, 16), cfr(1), imm(0)), op2(AGX_LDCF, reg(24, 32), cfr(2), imm(0)), stop()};
  code[0].dst.count = 2, code[1].dst.count = 1, code[2].dst.count = 1, code[3].dst.count = 3;
  code[0].src[1].kind = code[2].src[1].kind = code[3].src[1].kind = AGX_K_NONE;
  agx_state_init(&st, 2);
  st.sr = pixel;
  st.cf[0][2] = fb(0.5f);
  st.cf[1][0] = fb(1.0f), st.cf[1][1] = fb(2.0f), st.cf[1][2] = fb(3.0f);
  st.cf[2][1] = fb(-1.0f), st.cf[2][2] = fb(0.25f);
  assert_int_equal(run(code, 5), 0);
  static const float v1[2] = {9.5f, 97.5f}, v2[2] = {-2.25f, -31.25f}, p1[2] = {19.0f, 195.0f};
  static const uint16_t h1[2] = {0x48c0, 0x5618}; /* f16 9.5, 97.5 */
  for (unsigned l = 0; l < 2; l++) {
    assert_int_equal(agx_reg32(&st, l, 4), fb(v1[l]));
    assert_int_equal(agx_reg32(&st, l, 5), fb(v2[l]));
    assert_int_equal(agx_reg32(&st, l, 6), fb(p1[l]));
    assert_int_equal(st.r[l][20], h1[l]);
    assert_int_equal(agx_reg32(&st, l, 12), 0);
    assert_int_equal(agx_reg32(&st, l, 13), fb(-1.0f));
    assert_int_equal(agx_reg32(&st, l, 14), fb(0.25f));
  }
  /* sample interpolation is refused */
  agx_instr smp[] = {code[0], stop()};
  smp[0].interp = AGX_INTERP_SAMPLE;
  agx_state_init(&st, 1);
  st.sr = pixel;
  expect_error(smp, 2, GS_EINVAL, "sample interpolation is not modelled");
}

/* sample_mask and zs_emit (real encodings): unconditional discard
 * `sample_mask 255, 0`; Mesa's conditional discard `sample_mask r0l, 0`
 * (lane 0 kills sample 0, lane 1 none) then `sample_mask 255, 255`;
 * `zs_emit 255, r2l_r2h_r3l` writes depth r2 and stencil r3l. */
static size_t decode_hex(const char *const *lines, size_t n, agx_instr *code);
static void test_fragment_outputs(void **state) {
  (void)state;
  static const char *const all[] = {"c17f8003", "8800"};
  agx_instr code[4];
  decode_hex(all, 2, code);
  agx_state_init(&st, 2);
  assert_int_equal(run(code, 2), 0);
  assert_int_equal(st.killed[0], 0xff), assert_int_equal(st.tested[0], 0);
  /* sample_mask r0l, 0 = c1008000 (the live operand an immediate: bit 23);
   * sample_mask 255, 255 = c17fbf0f (both immediates, 255 split 63 + 3 << 6
   * into bits 9-14/24-25 and 16-21/26-27), hand-encoded and decoded */
  static const char *const cond[] = {"c1008000", "c17fbf0f", "8800"};
  decode_hex(cond, 3, code);
  agx_state_init(&st, 2);
  st.r[0][0] = 1, st.r[1][0] = 0;
  st.exec = 3; /* r0l is a plain register here: no control flow */
  assert_int_equal(run(code, 3), 0);
  assert_int_equal(st.killed[0], 0x01), assert_int_equal(st.tested[0], 0xfe);
  assert_int_equal(st.killed[1], 0x00), assert_int_equal(st.tested[1], 0xff);
  /* a second test of the same samples */
  agx_instr twice[] = {code[1], code[1], stop()};
  agx_state_init(&st, 1);
  expect_error(twice, 3, GS_EINVAL, "pc 0x0004: lane 0: sample 0 tested again after its depth/stencil test");
  /* zs_emit, depth and stencil */
  static const char *const zs[] = {"417f0463", "8800"};
  decode_hex(zs, 2, code);
  agx_state_init(&st, 1);
  agx_set_reg32(&st, 0, 2, fb(0.75f)), agx_set_reg32(&st, 0, 3, 0xabcd0042u);
  assert_int_equal(run(code, 2), 0);
  assert_int_equal(st.depth[0], fb(0.75f));
  assert_int_equal(st.stencil[0], 0x42);
  assert_int_equal(st.tested[0], 0xff);
  assert_int_equal(st.zs_done, 1);
  agx_instr again[] = {code[0], code[0], stop()};
  agx_state_init(&st, 1);
  expect_error(again, 3, GS_EINVAL, "lane 0: a second zs_emit");
}

/* ---- real encodings ------------------------------------------------------------------- */

/* Decodes hex lines (the table's decoder) into code; returns the count. */
static size_t decode_hex(const char *const *lines, size_t n, agx_instr *code) {
  for (size_t i = 0; i < n; i++) {
    uint8_t b[AGX_MAX_BYTES];
    size_t len = strlen(lines[i]) / 2;
    if (len > AGX_MAX_BYTES) len = AGX_MAX_BYTES;
    for (size_t k = 0; k < len; k++) {
      unsigned v = 0;
      for (int j = 0; j < 2; j++) {
        char c = lines[i][2 * k + j];
        v = v * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
      }
      b[k] = (uint8_t)v;
    }
    unsigned got = 0;
    char why[128] = "";
    if (agx_decode(b, len, &code[i], &got, why, sizeof why) != (int)len) fail_msg("%s: %s", lines[i], why);
  }
  return n;
}
/* Runs code with both interpreters from st; the reference's state stays in st. */
static void run_both(const agx_instr *code, size_t n) {
  static agx_state b;
  memcpy(&b, &st, sizeof st);
  agx_program p = {code, n};
  agx_fast *f = NULL;
  gs_diag d;
  assert_int_equal(agx_run_ref(&st, &p, 0, 10000, &dg), 0);
  assert_int_equal(agx_fast_compile(&p, &f, &d), 0);
  assert_int_equal(agx_run_fast(&b, f, 0, 10000, &d), 0);
  agx_fast_free(f);
  assert_memory_equal(&st, &b, sizeof st);
}

/* Mesa's per-sample loop (agx_linker.c's bytes) for four samples: r1l =
 * 1, 2, 4, 8 runs the body (iadd r5, r5, 1), r1l = 16 fails `while r1l,
 * 15, 1, ult`, the group falls out of jmp_any -22 and pops. */
static void test_real_sample_loop(void **state) {
  (void)state;
  static const char *const hex[] = {"62000000", "62040100", "0e154a1200000000", "0e04002084000000",
                                    "522c42f00000", "00c0eaffffff", "520e00000000", "8800"};
  agx_instr code[8];
  decode_hex(hex, 8, code);
  agx_state_init(&st, 32);
  run_both(code, 8);
  for (unsigned l = 0; l < AGX_LANES; l++) {
    assert_int_equal(agx_reg32(&st, l, 5), 4);
    assert_int_equal(st.r[l][2], 16);
    assert_int_equal(r0l(l), 0);
  }
  assert_int_equal(st.steps, 2 + 4 * 4 + 2);
  assert_int_equal(st.exec, 0xffffffffu);
}

/* A vertex prolog and main shader from real encodings: el = (clamp u2 <
 * vertex id r5) ? 0 : r5; load r8-r11 from du0 + (el << 2) x 4; then x =
 * r8 u8 + r9 u12 and st_var r0, 0; st_var r15, 7, last. Vertex ids 0-3
 * with clamp 2: lane 3 fetches element 0. */
static void test_real_vertex(void **state) {
  (void)state;
  static const char *const hex[] = {"121d84a12400a124", "0541e00e00c8f200", "3800", "1a8150021900",
                                    "3a81528219400200", "11008080", "913c8780", "8800"};
  agx_instr code[8];
  decode_hex(hex, 8, code);
  mem_state(4);
  for (unsigned k = 0; k < 16; k++) { /* element e: floats (e + 1, 2e + 1, 0, 1) */
    float v[4] = {(float)(k / 4 + 1), (float)(2 * (k / 4) + 1), 0, 1};
    uint32_t u = fb(v[k % 4]);
    memcpy(&mem[4 * k], &u, 4);
  }
  agx_set_unif32(&st, 2, 2);                          /* clamp */
  agx_set_unif32(&st, 8, fb(2.0f)), agx_set_unif32(&st, 12, fb(10.0f));
  for (unsigned l = 0; l < 4; l++) agx_set_reg32(&st, l, 5, l), agx_set_reg32(&st, l, 15, 100 + l);
  run_both(code, 8);
  static const unsigned el[4] = {0, 1, 2, 0};
  for (unsigned l = 0; l < 4; l++) {
    float x = 2.0f * (float)(el[l] + 1) + 10.0f * (float)(2 * el[l] + 1);
    assert_int_equal(agx_reg32(&st, l, 7), el[l]);
    assert_int_equal(st.uvs[l][0], fb(x));
    assert_int_equal(st.uvs[l][7], 100 + l);
    assert_int_equal(st.uvs_written[l], 0x81);
  }
  assert_int_equal(st.var_done, 0xf);
}

/* ---- texture samples -------------------------------------------------------------- */

/* smpf dst, tsN, ssM, coordinates r(c), r(c + 1), lod, 2d, mask, lod mode,
 * wait group */
static agx_instr smpf(agx_opnd d, unsigned ts, unsigned ss, unsigned c, agx_opnd lod, unsigned mask, unsigned mode,
                      unsigned group) {
  agx_instr in = I(AGX_SMPF);
  in.dst = d, in.dst.count = (uint8_t)__builtin_popcount(mask);
  in.src[0] = imm(0), in.src[0].kind = AGX_K_TS, in.src[0].index = (uint16_t)ts, in.src[0].value = 0;
  in.src[1] = imm(0), in.src[1].kind = AGX_K_SS, in.src[1].index = (uint16_t)ss;
  in.src[2] = R(c), in.src[3] = lod;
  in.dim = 2, in.mask = (uint8_t)mask, in.lod_mode = (uint8_t)mode, in.group = (uint8_t)group;
  return in;
}

/* A test sampler: records its requests and answers lane l's channel k of
 * texture tsN with N + l + k / 4 (exact in f16 for small l); ts7 is
 * refused. */
static agx_tex_req last_req;
static unsigned tex_calls;
static int test_tex(void *ctx, const agx_tex_req *q, uint32_t out[][4], gs_diag *d) {
  (void)ctx;
  last_req = *q, tex_calls++;
  if (q->ts == 7) return gs_diag_set(d, GS_EINVAL, "the test sampler refuses ts7");
  for (unsigned l = 0; l < AGX_LANES; l++)
    for (unsigned k = 0; k < 4; k++) out[l][k] = fb((float)(q->ts + l) + (float)k / 4);
  return 0;
}

/* smpf through the sampler hook, both interpreters: what the hook is
 * asked (the active lanes' coordinates from the register pair, the lod
 * operand as an f32, the state indices and modes), the mask's channels
 * packed into the destination run (32-bit, then 16-bit: the values
 * rounded to binary16), inactive lanes untouched, and the wait rule. */
static void test_smpf(void **state) {
  (void)state;
  agx_instr code[] = {
      /* 0x00 */ smpf(reg(8, 32), 3, 1, 1, unif(0, 16), 0xf, 1, 1), /* r4-r7, ts3, ss1, r1, u0l, bias: b */
      /* 0x08 */ I(AGX_WAIT),                                        /* wait b (group set below) */
      /* 0x0a */ smpf(reg(16, 16), 0, 0, 1, imm(0), 0xa, 0, 0),      /* r8l_r8h = y, w; auto_lod, a */
      /* 0x12 */ I(AGX_WAIT),                                        /* wait a */
      /* 0x14 */ stop()};
  code[1].group = 1;
  agx_state_init(&st, 4);
  st.exec = 0xb; /* lane 2 inactive */
  st.tex = test_tex;
  st.u[0] = 0x3800; /* u0l = 0.5 (f16) */
  for (unsigned l = 0; l < 4; l++) {
    agx_set_reg32(&st, l, 1, fb(0.25f * (float)l)), agx_set_reg32(&st, l, 2, fb(1.0f - 0.125f * (float)l));
    for (unsigned r = 4; r < 9; r++) agx_set_reg32(&st, l, r, 0xdead0000u + r);
  }
  tex_calls = 0;
  run_both(code, 5);
  assert_int_equal(tex_calls, 2 * 2); /* two smpf, each once a run (two runs) */
  /* the second request (auto_lod): ts0, ss0, lod 0 */
  assert_int_equal(last_req.ts, 0), assert_int_equal(last_req.ss, 0), assert_int_equal(last_req.lod_mode, 0);
  assert_int_equal(last_req.lanes, 0xb), assert_int_equal(last_req.dim, 2), assert_int_equal(last_req.pc, 0x0a);
  for (unsigned l = 0; l < 4; l++) {
    if (l == 2) {
      for (unsigned r = 4; r < 9; r++) assert_int_equal(agx_reg32(&st, l, r), 0xdead0000u + r);
      continue;
    }
    assert_int_equal(last_req.x[l], fb(0.25f * (float)l)), assert_int_equal(last_req.y[l], fb(1.0f - 0.125f * (float)l));
    assert_int_equal(last_req.lod[l], 0);
    /* ts3: 3 + l + k/4 in r4-r7 */
    for (unsigned k = 0; k < 4; k++) assert_int_equal(agx_reg32(&st, l, 4 + k), fb((float)(3 + l) + (float)k / 4));
    /* ts0, channels y and w packed into r8l, r8h as f16: l + 0.25 and l + 0.75
     * (lane 0: 0.25 = 0x3400, 0.75 = 0x3a00; lane 1: 1.25 = 0x3d00, 1.75 =
     * 0x3f00; lane 3: 3.25 = 0x4280, 3.75 = 0x4380) */
    static const uint16_t y16[4] = {0x3400, 0x3d00, 0, 0x4280}, w16[4] = {0x3a00, 0x3f00, 0, 0x4380};
    assert_int_equal(st.r[l][16], y16[l]), assert_int_equal(st.r[l][17], w16[l]);
  }
  assert_int_equal(agx_reg32(&st, 2, 9), 0); /* r9 was never written */
  /* the first request: bias u0l = 0.5 as an f32 */
  agx_program p1 = {code, 1};
  agx_state_init(&st, 4);
  st.exec = 0xb, st.tex = test_tex, st.u[0] = 0x3800;
  gs_diag_clear(&dg);
  assert_int_equal(agx_run_ref(&st, &p1, 0, 100, &dg), GS_EFAULT); /* runs off the end after it */
  assert_int_equal(last_req.ts, 3), assert_int_equal(last_req.ss, 1), assert_int_equal(last_req.lod_mode, 1);
  for (unsigned l = 0; l < 4; l++) assert_int_equal(last_req.lod[l], l == 2 ? 0 : fb(0.5f));
  /* pending until the wait of the instruction's group: r5 read after
   * wait a (the wrong group) is an error; the sample's halves are named */
  agx_instr early[] = {smpf(reg(8, 32), 0, 0, 1, imm(0), 0xf, 0, 1), I(AGX_WAIT), iadd(R(1), R(5), imm(0)), stop()};
  agx_state_init(&st, 1);
  st.tex = test_tex;
  expect_error(early, 4, GS_EINVAL, "pc 0x000a: r5l is read before the wait for its load (wait b)");
  /* so are the coordinates, when a load or sample is pending there */
  agx_instr chain[] = {smpf(reg(8, 32), 0, 0, 1, imm(0), 0x3, 0, 0), smpf(reg(16, 32), 0, 0, 4, imm(0), 0x1, 0, 0),
                       stop()};
  agx_state_init(&st, 1);
  st.tex = test_tex;
  expect_error(chain, 3, GS_EINVAL, "pc 0x0008: r4l is read before the wait for its load (wait a)");
  /* the sampler's refusal, prefixed with the pc and the state */
  agx_instr refused[] = {ldimm(RL(0), 0), smpf(reg(8, 32), 7, 2, 1, imm(0), 0xf, 0, 0), stop()};
  agx_state_init(&st, 1);
  st.tex = test_tex;
  expect_error(refused, 3, GS_EINVAL, "pc 0x0004: smpf ts7, ss2: the test sampler refuses ts7");
  /* only 2d */
  agx_instr arr[] = {smpf(reg(8, 32), 0, 0, 1, imm(0), 0xf, 0, 0), stop()};
  arr[0].dim = 3;
  agx_state_init(&st, 1);
  st.tex = test_tex;
  expect_error(arr, 2, GS_EINVAL, "pc 0x0000: smpf 2d_array: only 2d textures are sampled");
  /* a group with no active lane asks nothing, but the run stays pending */
  agx_instr none[] = {smpf(reg(8, 32), 0, 0, 1, imm(0), 0x1, 0, 0), stop()};
  agx_state_init(&st, 1);
  st.tex = test_tex, st.exec = 0, tex_calls = 0;
  assert_int_equal(run(none, 2), 0);
  assert_int_equal(tex_calls, 0);
  assert_int_equal(st.pending[8], 1), assert_int_equal(st.pending[9], 1), assert_int_equal(st.pending[10], 0);
}

/* ---- the fast interpreter against the reference ---------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void) {
  rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}
static uint32_t pick(uint32_t n) { return rnd() % n; }

/* A register value: specials (zeros, subnormals, 2^-126 and its neighbours,
 * tiny products' operands, infinities, NaNs, the largest float), small
 * integers, f16 pairs, or random bits. */
static uint32_t value(void) {
  static const uint32_t sp[] = {0, 0x80000000u, 0x3f800000u, 0xbfc00000u, 0x00000001u, 0x807fffffu, 0x00800000u,
                                0x80800001u, 0x1f800000u, 0x20000000u, 0x9f000001u, 0x7f800000u, 0xff800000u,
                                0x7fc00000u, 0x7f800001u, 0x7f7fffffu, 0x3f000001u, 0x40400000u, 0x3c003e00u,
                                0x00010400u, 0x7c00fc00u, 0x7e000001u};
  switch (pick(4)) {
    case 0: return sp[pick(sizeof sp / sizeof sp[0])];
    case 1: return pick(9) - 4;
    default: return rnd() ^ (rnd() << 21);
  }
}

static agx_opnd rreg(int bits) { /* r1-r11, halves of them, or dr12/dr14 */
  if (bits == 64) return DR(12 + 2 * pick(2));
  return bits == 16 ? reg(2 + pick(22), 16) : R(1 + pick(11));
}
static agx_opnd fsrc(int allow16) {
  agx_opnd o;
  switch (pick(6)) {
    case 0: o = fimm(pick(256)); break;
    case 1: o = unif(2 * pick(8), 32); break;
    case 2: if (allow16) { o = rreg(16); break; } /* fall through */
    default: o = rreg(32);
  }
  o.abs = pick(4) == 0, o.neg = pick(3) == 0;
  return o;
}
static agx_opnd isrc(int bits) {
  switch (pick(5)) {
    case 0: return imm(pick(256));
    case 1: return unif(2 * pick(8), 32);
    default: return rreg(bits);
  }
}

/* A texture sample: a 32- or 16-bit run in r1-r8 (its halves), any mask,
 * coordinates r1-r10, each lod mode with its operand, either group. */
static agx_instr random_smpf(void) {
  static const uint8_t modes[] = {0, 1, 2, 5, 6};
  unsigned mask = 1 + pick(15), mode = modes[pick(5)];
  agx_opnd lod = mode == 0 ? imm(0) : mode < 4 ? unif(pick(32), 16) : rreg(16);
  agx_instr in = smpf(pick(3) ? R(1 + pick(8)) : reg(2 + pick(16), 16), pick(8), pick(3), 1 + pick(10), lod, mask,
                      mode, pick(2));
  in.dim = pick(12) ? 2 : 3; /* sometimes 2d_array, refused */
  return in;
}

/* The random programs' sampler: any bits, a function of everything the
 * request gives a lane (ts7 refused). */
static int random_tex(void *ctx, const agx_tex_req *q, uint32_t out[][4], gs_diag *d) {
  (void)ctx;
  if (q->ts == 7) return gs_diag_set(d, GS_EINVAL, "ts7 refused");
  for (unsigned l = 0; l < AGX_LANES; l++) {
    uint64_t h = (q->x[l] * 0x9e3779b97f4a7c15u) ^ (q->y[l] * 0xc2b2ae3d27d4eb4fu) ^ q->lod[l] ^
                 ((uint64_t)(q->ts * 64 + q->ss * 8 + q->lod_mode) << 40) ^ ((uint64_t)l << 50);
    for (unsigned k = 0; k < 4; k++) {
      h ^= h >> 29, h *= 0xbf58476d1ce4e5b9u, h ^= h >> 32;
      out[l][k] = (uint32_t)h;
    }
  }
  return 0;
}

static agx_instr random_insn(size_t k, size_t n) {
  static const uint8_t fcond[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15};
  static const uint8_t icond[] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14};
  static const uint8_t funops[] = {AGX_FLOOR, AGX_SRSQRT, AGX_RCP, AGX_RSQRT, AGX_SIN_PT_1, AGX_LOG2, AGX_EXP2,
                                   AGX_SIN_PT_2, AGX_CEIL, AGX_TRUNC, AGX_RINT};
  static const uint8_t cvt[] = {0, 1, 4, 5, 6, 7, 8, 9, 10, 11};
  agx_instr in;
  if (pick(30) == 0) return random_smpf();
  if (pick(12) == 0) {
    in = I(AGX_WAIT);
    in.group = (uint8_t)pick(2);
    return in;
  }
  unsigned r = pick(100);
  if (r < 36) { /* f32 arithmetic, mostly the fast path's shapes */
    unsigned op = r < 14 ? AGX_FADD : r < 26 ? AGX_FMUL : AGX_FFMA;
    int wide = pick(5) != 0;
    in = op3(op, wide ? rreg(32) : rreg(16), fsrc(!wide), fsrc(!wide), fsrc(!wide));
    if (op != AGX_FFMA) in.src[2].kind = AGX_K_NONE;
    in.sat = pick(5) == 0;
  } else if (r < 40) {
    unsigned op = r < 38 ? AGX_HADD : AGX_HMUL;
    in = op2(op, rreg(16), rreg(16), rreg(16));
  } else if (r < 50) {
    int bits = pick(6) == 0 ? 64 : 32;
    in = op2(pick(2) ? AGX_IADD : AGX_ISUB, rreg(bits), isrc(bits), isrc(bits));
    in.shift = (uint8_t)(pick(3) ? 0 : pick(8));
    in.sat = bits == 32 && pick(4) == 0;
    in.src[0].sx = pick(2), in.src[1].sx = pick(2);
  } else if (r < 54) {
    in = op3(AGX_IMAD, pick(3) ? rreg(32) : rreg(64), isrc(32), isrc(32), isrc(32));
    in.shift = (uint8_t)pick(3), in.sat = pick(5) == 0 && in.dst.bits == 32;
  } else if (r < 60) {
    in = op2(AGX_BITOP, rreg(32), isrc(32), isrc(32));
    in.tt = (uint8_t)pick(16);
  } else if (r < 64) {
    in = op3(AGX_FCMPSEL, rreg(32), fsrc(0), fsrc(0), rreg(32));
    in.src[3] = pick(2) ? rreg(32) : imm(pick(256)), in.cond = fcond[pick(sizeof fcond)];
  } else if (r < 68) {
    in = op3(AGX_ICMPSEL, rreg(32), isrc(32), isrc(32), rreg(32));
    in.src[3] = imm(pick(256)), in.cond = icond[pick(6)]; /* csel: codes 0-6 */
  } else if (r < 72) {
    in = op2(funops[pick(sizeof funops)], rreg(pick(3) ? 32 : 16), fsrc(1), imm(0));
    in.src[1].kind = AGX_K_NONE, in.sat = pick(6) == 0;
  } else if (r < 75) {
    in = op2(AGX_CONVERT, rreg(pick(2) ? 32 : 16), rreg(pick(2) ? 32 : 16), imm(0));
    in.src[1].kind = AGX_K_NONE, in.mode = cvt[pick(sizeof cvt)], in.round = (uint8_t)pick(2);
  } else if (r < 77) {
    in = ldimm(RL(0), pick(4));
  } else if (r < 90) {
    static const uint8_t ops[] = {AGX_IF_ICMP, AGX_ELSE_ICMP, AGX_WHILE_ICMP, AGX_IF_FCMP, AGX_ELSE_FCMP,
                                  AGX_WHILE_FCMP};
    unsigned op = ops[pick(6)];
    int fl = op >= AGX_IF_FCMP;
    in = fl ? cf(op, fsrc(0), fsrc(0), pick(4), fcond[pick(sizeof fcond)])
            : cf(op, isrc(32), isrc(32), pick(4), icond[pick(sizeof icond)]);
  } else if (r < 95) {
    in = pop(pick(4));
  } else if (r < 98 && k + 2 < n) {
    in = jmp(AGX_JMP_NONE, (int)(k + 1 + pick((uint32_t)(n - k - 1))));
  } else if (k > 0) {
    in = jmp(AGX_JMP_ANY, (int)pick((uint32_t)k));
  } else {
    in = pop(1);
  }
  return in;
}

/* The random programs' pixels for iter: any, from the lane; sr81 of lane
 * 29 is refused. */
static int random_pixel(void *ctx, unsigned lane, unsigned n, uint32_t *v) {
  (void)ctx;
  if ((n != 80 && n != 81) || (lane == 29 && n == 81)) return -1;
  *v = lane * 37u + n * 11u;
  return 0;
}

/* 1: compare_random runs the fast side through agx_run_native (compiled at
 * its first run: test_native_programs) */
static int use_native;
/* compare_random through agx_run_rows with random registers asked for as
 * rows (test_rows_programs, and half of test_native_programs'): on success
 * the rows must be the reference's registers and the rest of the state its
 * state; an error leaves the whole state as the reference's */
static int use_rows;

/* One random program of gen's (4-40 instructions, the last stop) from a
 * random state (partly present and active groups, counters 0-3, special
 * values, sometimes a declared register count too small, a test sampler or
 * none), with memory: also a memory of 64 bytes at 0x1000 (random
 * contents; base u0_u1) and sometimes a budget that runs out; both
 * interpreters must leave the same state, memory, result and message.
 * Returns the reference's result, its message in *d1, and whether the
 * register count was the default in *hot. */
typedef agx_instr (*insn_gen)(size_t k, size_t n);
static int compare_random(int iter, insn_gen gen, int memory, agx_instr *fixed, size_t *np, gs_diag *d1, int *hot) {
  static agx_state a, b;
  static uint8_t ma[64], mb[64];
  agx_flat_mem flat_a = {0x1000, ma, sizeof ma}, flat_b = {0x1000, mb, sizeof mb};
  size_t n = 4 + pick(37);
  agx_instr code[48];
  for (size_t k = 0; k + 1 < n; k++) code[k] = gen(k, n);
  code[n - 1] = stop();
  memcpy(fixed, code, n * sizeof *code);
  fix(fixed, n);
  agx_state_init(&a, 32);
  a.present = pick(4) ? 0xffffffffu : rnd();
  for (unsigned l = 0; l < AGX_LANES; l++) {
    for (unsigned h = 2; h < 32; h += 2) agx_set_reg32(&a, l, h / 2, value());
    a.r[l][0] = (uint16_t)(pick(3) ? 0 : pick(4));
  }
  a.exec = 0;
  for (unsigned l = 0; l < AGX_LANES; l++)
    if (((a.present >> l) & 1) && !a.r[l][0]) a.exec |= 1u << l;
  for (unsigned u = 0; u < 16; u++) agx_set_unif32(&a, u, value());
  if (memory) agx_set_unif32(&a, 0, 0x1000), agx_set_unif32(&a, 1, 0);
  if (pick(10) == 0) a.nregs = 8 * (1 + pick(4));
  a.tex = pick(20) ? random_tex : NULL;
  uint64_t budget = 2000;
  if (memory) {
    for (unsigned c = 0; c < 8; c++)
      for (unsigned j = 0; j < 3; j++) a.cf[c][j] = pick(3) ? value() : fb((float)pick(64) / 8.0f - 4.0f);
    a.sr = pick(10) ? random_pixel : NULL;
    for (size_t i = 0; i < sizeof ma; i++) ma[i] = (uint8_t)rnd();
    memcpy(mb, ma, sizeof ma);
    a.mem = agx_flat_mem_access, a.mem_ctx = &flat_a;
    budget = pick(8) ? 2000 : pick(60);
  }
  memcpy(&b, &a, sizeof a);
  if (memory) b.mem_ctx = &flat_b;
  agx_program p = {fixed, n};
  agx_fast *f = NULL;
  gs_diag d2;
  gs_diag_clear(d1), gs_diag_clear(&d2);
  assert_int_equal(agx_fast_compile(&p, &f, &d2), 0);
  int r1 = agx_run_ref(&a, &p, 0, budget, d1);
  uint32_t want = (uint32_t)pick(65536); /* (bits past r7 ask for nothing) */
  agx_rows rows, ref_rows;
  int was = agx_native_policy(-1);
  if (use_rows) agx_native_policy(use_native);
  /* (no half is pending here: a third of the time the call's form, its
   * check found once; a third, when that says fast, frag.c's form in one
   * file kept from program to program, whose runs that report s->r clean
   * must leave it as it was) */
  int form = use_rows ? 1 + pick(3) : 0, r2, clean = 0;
  static agx_state before;
  static agx_frame *frame;
  if (form == 3 && agx_rows_fast(&b, f)) {
    if (!frame) assert_non_null(frame = agx_frame_new());
    const uint32_t *const *ptr = NULL;
    memcpy(&before, &b, sizeof b);
    agx_frame_begin(frame, &b, f);
    r2 = agx_run_frame(&b, frame, budget, &d2, want, &ptr, &clean);
    if (r2 == GS_OK)
      for (unsigned r = 0; r < 8; r++)
        if (want >> r & 1) memcpy(rows[r], ptr[r], sizeof rows[r]);
    if (clean && memcmp(before.r, b.r, sizeof b.r)) fail_msg("program %d: a clean run changed s->r", iter);
    if (r2 == GS_OK && !memory) { /* a second group as the first began (a program without memory or
                                     varyings: handed back again when it reads nothing else) */
      static agx_state again;
      const uint32_t *const *ptr2 = NULL;
      int clean2 = 0;
      gs_diag d3;
      gs_diag_clear(&d3);
      memcpy(&again, &before, sizeof again);
      assert_int_equal(agx_run_frame(&again, frame, budget, &d3, want, &ptr2, &clean2), GS_OK);
      assert_int_equal(clean2, clean);
      if (memcmp(&again, &b, sizeof b)) fail_msg("program %d: the second group's state differs", iter);
      for (unsigned r = 0; r < 8; r++)
        if ((want >> r & 1) && memcmp(rows[r], ptr2[r], sizeof rows[r]))
          fail_msg("program %d: the second group's row r%u differs", iter, r);
    }
  } else if (form >= 2) {
    r2 = agx_run_rows_clean(&b, f, agx_rows_fast(&b, f), budget, &d2, want, rows);
  } else {
    r2 = use_rows ? agx_run_rows(&b, f, budget, &d2, want, rows)
       : use_native ? agx_run_native(&b, f, 0, budget, &d2) : agx_run_fast(&b, f, 0, budget, &d2);
  }
  agx_native_policy(was);
  agx_fast_free(f);
  b.mem_ctx = a.mem_ctx;
  if (use_rows && r1 == GS_OK && r2 == GS_OK) {
    agx_rows_of(&a, want, ref_rows);
    for (unsigned r = 0; r < 8; r++)
      if (want >> r & 1) {
        for (unsigned l = 0; l < 16; l++)
          if (rows[r][l] != ref_rows[r][l])
            fail_msg("program %d: row r%u lane %u: ref %08x, rows %08x", iter, r, l, ref_rows[r][l], rows[r][l]);
        for (unsigned l = 0; l < AGX_LANES; l++) /* unspecified in the state */
          b.r[l][2 * r] = a.r[l][2 * r], b.r[l][2 * r + 1] = a.r[l][2 * r + 1];
      }
  }
  if (r1 != r2 || strcmp(d1->msg, d2.msg) || memcmp(&a, &b, sizeof a) || memcmp(ma, mb, sizeof ma)) {
    for (unsigned l = 0; l < AGX_LANES; l++)
      for (unsigned h = 0; h < AGX_HALVES; h++)
        if (a.r[l][h] != b.r[l][h]) print_message("lane %u half %u: ref %04x fast %04x\n", l, h, a.r[l][h], b.r[l][h]);
    for (size_t k = 0; k < n; k++) {
      char line[160];
      agx_print(&fixed[k], line, sizeof line);
      print_message("  %s\n", line);
    }
    fail_msg("program %d (%zu instructions): ref %d \"%s\", fast %d \"%s\", exec %08x/%08x pc %x/%x steps %llu/%llu",
             iter, n, r1, d1->msg, r2, d2.msg, a.exec, b.exec, a.pc, b.pc, (unsigned long long)a.steps,
             (unsigned long long)b.steps);
  }
  *np = n, *hot = !a.nregs;
  return r1;
}

/* 3000 random programs of 4-40 instructions (f32 arithmetic in the fast
 * path's shapes and outside them, f16, integers with shifts, sat, sx and
 * pairs, selects, special ops, converts, if/else/while/pop with random
 * nests and conditions, writes to r0l, forward jmp_exec_none, backward
 * jmp_exec_any, texture samples through a test sampler (or none), waits)
 * from random states (partly present and active groups,
 * counters 0-3, special values, sometimes a declared register count too
 * small): the fast interpreter leaves the same state, result and message
 * as the reference, bit for bit. */
static void test_fast_equals_reference(void **state) {
  (void)state;
  unsigned hot_runs = 0, errors = 0, sampled = 0, smpf_errors = 0;
  for (int iter = 0; iter < 3000; iter++) {
    agx_instr fixed[48];
    size_t n;
    gs_diag d1;
    int hot, r1 = compare_random(iter, random_insn, 0, fixed, &n, &d1, &hot);
    hot_runs += hot;
    errors += r1 != 0;
    for (size_t k = 0; k < n; k++) sampled += fixed[k].op == AGX_SMPF;
    smpf_errors += r1 != 0 && strstr(d1.msg, "smpf") != NULL;
  }
  /* both kinds of ending were exercised, samples among them */
  assert_true(errors > 100 && errors < 2900);
  assert_true(hot_runs > 2000);
  assert_true(sampled > 1000 && smpf_errors > 20);
}

/* The fast interpreter's other shapes: device loads and stores (their pending
 * registers and waits), st_var with immediate and register indices, no_var,
 * ldimm into halves, get_sr; else random_insn. */
static agx_instr random_insn_mem(size_t k, size_t n) {
  unsigned r = pick(100);
  agx_instr in;
  if (r >= 87 && r < 90) { /* imad/imsub with sx and sat, 16-, 32- or 64-bit destinations */
    static const uint8_t bits[] = {16, 32, 32, 64};
    unsigned db = bits[pick(4)];
    in = op3(pick(2) ? AGX_IMAD : AGX_IMSUB, rreg((int)db), isrc(32), isrc(pick(4) ? 32 : 16), isrc(32));
    for (int i = 0; i < 3; i++) in.src[i].sx = (uint8_t)pick(2);
    in.shift = (uint8_t)pick(5), in.sat = (uint8_t)(pick(3) == 0);
  } else if (r >= 90 && r < 94) { /* the shift group and the bit counts, 32- or 16-bit */
    static const uint8_t ops[] = {AGX_BFI, AGX_BFEIL, AGX_EXTR, AGX_BITREV, AGX_POPCNT, AGX_FFS};
    unsigned op = ops[pick(6)];
    in = op3(op, pick(4) ? R(1 + pick(11)) : reg(2 + pick(22), 16), isrc(32), isrc(32), isrc(32));
    if (op == AGX_BITREV || op == AGX_POPCNT || op == AGX_FFS) in.src[1].kind = in.src[2].kind = AGX_K_NONE;
    in.mask_width = (uint8_t)pick(32);
  } else if (r >= 94) { /* iter, iterproj, ldcf: cf0-cf7 (or past the last), 32- or 16-bit runs, any interpolation */
    static const uint8_t ops[] = {AGX_ITER, AGX_ITERPROJ, AGX_LDCF};
    unsigned op = ops[pick(3)];
    in = op2(op, pick(3) ? R(1 + pick(8)) : reg(2 + pick(16), 16), cfr(pick(30) ? pick(8) : 254),
             op == AGX_ITERPROJ ? cfr(pick(30) ? pick(8) : 256) : imm(0));
    if (op != AGX_ITERPROJ) in.src[1].kind = AGX_K_NONE;
    in.dst.count = (uint8_t)(op == AGX_LDCF ? 3 : 1 + pick(3));
    in.interp = (uint8_t)(pick(6) ? pick(2) * AGX_INTERP_CENTROID : pick(4));
  } else if (r < 8) { /* load or store: base u0_u1 (0x1000), a small index, sometimes a register's */
    int load = r < 5, r16 = pick(4) == 0;
    static const uint8_t fmt[] = {AGX_FMT_I8, AGX_FMT_I16, AGX_FMT_I32, AGX_FMT_I32, AGX_FMT_F16, AGX_FMT_U8NORM,
                                  AGX_FMT_S16NORM};
    in = I(load ? AGX_LOAD : AGX_STORE);
    in.mask = (uint8_t)(1 + pick(15));
    agx_opnd data = r16 ? reg(2 + pick(18), 16) : R(1 + pick(8));
    data.count = (uint8_t)__builtin_popcount(in.mask);
    if (load) in.dst = data;
    else in.src[0] = data;
    in.src[1] = unif(0, 64);
    in.src[2] = pick(6) ? imm(pick(12)) : R(1 + pick(11));
    in.format = fmt[pick(sizeof fmt)], in.shift = (uint8_t)pick(2), in.group = (uint8_t)pick(2);
    in.index_zext = (uint8_t)pick(2);
  } else if (r < 14) {
    in = I(AGX_WAIT);
    in.group = (uint8_t)pick(2);
  } else if (r < 18) {
    in = op2(AGX_ST_VAR, imm(0), pick(4) ? R(1 + pick(11)) : unif(2 * pick(8), 32),
             pick(3) ? imm(pick(70)) : reg(2 + pick(22), 16));
    in.dst.kind = AGX_K_NONE;
    in.last = pick(5) == 0;
  } else if (r < 19) {
    in = I(AGX_NO_VAR);
  } else if (r < 23) {
    in = ldimm(pick(2) ? R(1 + pick(11)) : reg(2 + pick(22), 16), rnd());
    if (in.dst.bits == 16) in.src[0].value &= 0xffff;
  } else if (r < 26) {
    static const uint8_t srs[] = {52, 52, 58, 59, 63};
    in = op2(AGX_GET_SR, pick(2) ? R(1 + pick(11)) : reg(2 + pick(22), 16), sr(srs[pick(5)]), imm(0));
    in.src[1].kind = AGX_K_NONE;
  } else {
    in = random_insn(k, n);
  }
  return in;
}

/* 3000 programs of random_insn_mem with the memory (compare_random),
 * through the fast interpreter's copy of its loop chosen by portable
 * (agx_fast_portable). */
static void random_programs(int portable) {
  agx_fast_portable(portable);
  unsigned errors = 0, budgets = 0;
  for (int iter = 0; iter < 3000; iter++) {
    agx_instr fixed[48];
    size_t n;
    gs_diag d1;
    int hot, r1 = compare_random(iter, random_insn_mem, 1, fixed, &n, &d1, &hot);
    errors += r1 != 0;
    budgets += r1 == GS_EWATCHDOG;
  }
  assert_true(errors > 100 && errors < 2900);
  assert_true(budgets > 20);
  agx_fast_portable(0);
}
static void test_fast_memory_programs(void **state) {
  (void)state;
  random_programs(0);
}
/* The same through the build's own copy of the loop (the other is the
 * AVX2 one, on a CPU that has it). */
static void test_fast_memory_programs_portable(void **state) {
  (void)state;
  random_programs(1);
}

/* Random programs of both generators (random_insn, random_insn_mem with
 * memory), each compiled to native code at its first run (src/isa/uop/jit.h,
 * GS_JIT builds), through the AVX2 and the build's escape: the same state,
 * result and message as the reference, bit for bit; most of them ran
 * compiled (the rest start where the reference runs them whole). */
static void test_native_programs(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  gs_jit_policy(1, 1);
  int was = agx_native_policy(-1);
  agx_native_policy(1);
  use_native = 1;
  unsigned before, after, errors = 0, runs = 0;
  double secs;
  gs_jit_stats(&before, &secs);
  for (int portable = 0; portable < 2; portable++) {
    agx_fast_portable(portable);
    for (int iter = 0; iter < 150; iter++)
      for (int memory = 0; memory < 2; memory++) {
        agx_instr fixed[48];
        size_t n;
        gs_diag d1;
        int hot;
        use_rows = iter & 1;
        errors += compare_random(10000 + iter, memory ? random_insn_mem : random_insn, memory, fixed, &n, &d1, &hot) != 0;
        runs++;
      }
  }
  agx_fast_portable(0);
  use_native = 0, use_rows = 0;
  agx_native_policy(was);
  gs_jit_policy(0, 0);
  gs_jit_stats(&after, &secs);
  assert_true(after - before > runs / 2);
  assert_true(errors > runs / 20 && errors < runs - runs / 20);
}

/* agx_run_rows through the fast interpreter (the native policy off), both
 * copies of its loop: 1500 programs of each generator with random
 * registers r0-r7 asked for as rows (compare_random). */
static void test_rows_programs(void **state) {
  (void)state;
  unsigned ok = 0;
  use_rows = 1;
  for (int portable = 0; portable < 2; portable++) {
    agx_fast_portable(portable);
    for (int iter = 0; iter < 750; iter++)
      for (int memory = 0; memory < 2; memory++) {
        agx_instr fixed[48];
        size_t n;
        gs_diag d1;
        int hot;
        ok += compare_random(20000 + iter, memory ? random_insn_mem : random_insn, memory, fixed, &n, &d1, &hot) == 0;
      }
  }
  agx_fast_portable(0);
  use_rows = 0;
  assert_true(ok > 300 && ok < 2700);
}

/* The fill frame's program (gs_isa_agx.bench_fragment: ldimm r4-r7, stop)
 * through agx_run_rows on a 16-lane group whose lanes 3 and 9 are inactive
 * (r0l = 1) and whose r4-r7 hold 0x100 * lane + register before: every
 * active lane's rows are the immediates, lanes 3 and 9 keep their words,
 * r2 (not written) is its words as they were; the other registers are in
 * the state. */
static void test_rows_fill_program(void **state) {
  (void)state;
  static const uint32_t v[4] = {0x3f19999au, 0x3ecccccdu, 0x3e4ccccdu, 0x3f800000u};
  agx_instr code[5];
  for (unsigned i = 0; i < 4; i++) code[i] = ldimm(R(4 + i), v[i]);
  code[4] = stop();
  agx_program p = {code, 5};
  agx_fast *f = NULL;
  assert_int_equal(agx_fast_compile(&p, &f, &dg), 0);
  for (int portable = 0; portable < 2; portable++) {
    agx_fast_portable(portable);
    agx_state_init(&st, 16);
    for (unsigned l = 0; l < 16; l++)
      for (unsigned r = 1; r < 8; r++) agx_set_reg32(&st, l, r, 0x100u * l + r);
    st.r[3][0] = st.r[9][0] = 1;
    st.exec = 0xffffu & ~(1u << 3 | 1u << 9);
    agx_rows rows;
    memset(rows, 0xee, sizeof rows);
    assert_int_equal(agx_rows_fast(&st, f), 1); /* (a straight-line program of micro-ops) */
    assert_int_equal(portable ? agx_run_rows_clean(&st, f, 1, 100, &dg, 0xf4u, rows)
                              : agx_run_rows(&st, f, 100, &dg, 0xf4u, rows), GS_OK);
    assert_int_equal(st.stopped, 1);
    assert_int_equal(st.steps, 5);
    for (unsigned l = 0; l < 16; l++) {
      int off = l == 3 || l == 9;
      for (unsigned i = 0; i < 4; i++) assert_int_equal(rows[4 + i][l], off ? 0x100u * l + 4 + i : v[i]);
      assert_int_equal(rows[2][l], 0x100u * l + 2);
      assert_int_equal(rows[1][l], 0xeeeeeeeeu); /* not asked for */
      assert_int_equal(agx_reg32(&st, l, 3), 0x100u * l + 3);
    }
  }
  /* frag.c's form (agx_run_frame), one file for a call's groups: from a
   * state whose r0-r7 are 0 (as frag.c's group_reset leaves them), full
   * groups (the second handed back as the first), two with lanes 3 and 9
   * inactive, one of 10 lanes, the last asking for r2 too: every
   * active lane's rows r4-r7 the immediates, the others and r2 0; the state
   * untouched and so reported clean, but for the inactive lanes, whose
   * rows come from the state */
  agx_frame *fr = agx_frame_new();
  assert_non_null(fr);
  for (int portable = 0; portable < 2; portable++) {
    agx_fast_portable(portable);
    for (int call = 0; call < 2; call++) {
      agx_state_init(&st, 16);
      agx_frame_begin(fr, &st, f);
      for (unsigned g = 0; g < 6; g++) {
        unsigned lanes = g == 4 ? 10 : 16, off = g == 2 || g == 3 ? 1u << 3 | 1u << 9 : 0;
        agx_state_init(&st, lanes);
        for (unsigned l = 0; l < 16; l++) st.r[l][0] = (uint16_t)(off >> l & 1);
        st.exec &= ~off;
        const uint32_t *const *rows = NULL;
        int clean = -1;
        uint32_t want = g == 5 ? 0xf4u : 0xf0u; /* (r2 is not in the file: that run is not handed back) */
        assert_int_equal(agx_run_frame(&st, fr, 100, &dg, want, &rows, &clean), GS_OK);
        assert_int_equal(st.stopped, 1);
        assert_int_equal(st.steps, 5);
        assert_int_equal(clean, 1);
        for (unsigned l = 0; l < 16; l++) {
          int live = l < lanes && !(off >> l & 1);
          for (unsigned i = 0; i < 4; i++) assert_int_equal(rows[4 + i][l], live ? v[i] : 0);
          if (want & 4u) assert_int_equal(rows[2][l], 0);
          for (unsigned r = 1; r < 8; r++) assert_int_equal(agx_reg32(&st, l, r), 0);
        }
      }
    }
  }
  agx_frame_free(fr);
  agx_fast_portable(0);
  agx_fast_free(f);
}

/* agx_run_frame hands a run back for a later group only when the program
 * reads nothing the group has of its own. A: ldcf r4-r6 from cf1 (the
 * group's: 100 x group + j for its word j), r7 an immediate; each of three
 * groups gets its own words. B: r4-r7 immediates, r1 the lane
 * number (sr52), then if_icmp r1 < 8 (unsigned, nest 1): r0l 0 in lanes
 * 0-7 and 1 in 8-15 (exec.h's if rule), exec 0xff, 7 steps, pc 28 (four
 * 4-byte ldimm, a 4-byte get_sr, a 6-byte if, the 2-byte stop): each of
 * three groups, the later ones handed back, ends so. */
static void test_frame_groups(void **state) {
  (void)state;
  agx_instr a[] = {op2(AGX_LDCF, R(4), cfr(1), imm(0)), ldimm(R(7), 3), stop()};
  a[0].dst.count = 3, a[0].src[1].kind = AGX_K_NONE;
  agx_instr b[] = {ldimm(R(4), 4), ldimm(R(5), 5), ldimm(R(6), 6), ldimm(R(7), 7),
                   op2(AGX_GET_SR, R(1), sr(52), imm(0)), cf(AGX_IF_ICMP, R(1), imm(8), 1, AGX_ULT), stop()};
  agx_frame *fr = agx_frame_new();
  assert_non_null(fr);
  for (int which = 0; which < 2; which++) {
    agx_program p = {which ? b : a, which ? 7 : 3};
    agx_fast *f = NULL;
    assert_int_equal(agx_fast_compile(&p, &f, &dg), 0);
    agx_state_init(&st, 16);
    agx_frame_begin(fr, &st, f);
    for (unsigned g = 0; g < 3; g++) {
      agx_state_init(&st, 16);
      for (unsigned j = 0; j < 3; j++) st.cf[1][j] = 100 * g + j;
      const uint32_t *const *rows = NULL;
      int clean = -1;
      assert_int_equal(agx_run_frame(&st, fr, 100, &dg, which ? 0xf3u : 0xf0u, &rows, &clean), GS_OK);
      assert_int_equal(st.stopped, 1);
      for (unsigned l = 0; l < 16; l++) {
        if (!which) {
          for (unsigned j = 0; j < 3; j++) assert_int_equal(rows[4 + j][l], 100 * g + j);
          assert_int_equal(rows[7][l], 3);
          continue;
        }
        assert_int_equal(rows[0][l], l < 8 ? 0 : 1);
        assert_int_equal(rows[1][l], l);
        assert_int_equal(rows[4][l], 4);
      }
      if (which) {
        assert_int_equal(st.exec, 0xffu);
        assert_int_equal(st.steps, 7);
        assert_int_equal(st.pc, 28);
        assert_int_equal(clean, 1);
      }
    }
    agx_fast_free(f);
  }
  agx_frame_free(fr);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_if_else_trace),     cmocka_unit_test(test_counter_rules),
      cmocka_unit_test(test_nested),            cmocka_unit_test(test_mask_only_by_stack),
      cmocka_unit_test(test_loop_break_continue), cmocka_unit_test(test_group_jumps),
      cmocka_unit_test(test_alu_halves_and_pairs), cmocka_unit_test(test_selects),
      cmocka_unit_test(test_load_store),        cmocka_unit_test(test_errors),
      cmocka_unit_test(test_special),           cmocka_unit_test(test_derivatives),
      cmocka_unit_test(test_varyings),          cmocka_unit_test(test_iter),
      cmocka_unit_test(test_fragment_outputs),  cmocka_unit_test(test_real_sample_loop),  cmocka_unit_test(test_real_vertex),
      cmocka_unit_test(test_smpf),
      cmocka_unit_test(test_fast_equals_reference), cmocka_unit_test(test_fast_memory_programs),
      cmocka_unit_test(test_fast_memory_programs_portable), cmocka_unit_test(test_native_programs),
      cmocka_unit_test(test_rows_programs),     cmocka_unit_test(test_rows_fill_program),
      cmocka_unit_test(test_frame_groups),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
