/* test_qpu_ref.c — the reference QPU interpreter (src/isa/qpu/exec_ref.c) on
 * small programs.
 *
 * Programs are built as 64-bit words field by field with qpu_set() (the
 * assembler is not used, so these tests do not depend on it), loaded into
 * GPU memory and run as user programs with cfg.interpreter =
 * GS_INTERP_REFERENCE. Results are read from the QPU's registers after the
 * run (they stay in place after thread end), so neither the VPM nor the TMU
 * is needed. Expected values come from reference/vc4.md and
 * docs/determinism.md, worked out by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "gpusim/qpu.h"
#include "isa/qpu/qpu.h"
#include "isa/qpu/table.h"
#include "v3d/sfu.h"
#include "v3d/v3d.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define NOP QPU_NOP_WORD
#define ONE 0x3f800000u
#define HALF 0x3f000000u
#define ALL 0xffffu

/* ---- Building instruction words ------------------------------------------- */

static uint64_t set(uint64_t w, int f, uint32_t v) { return qpu_set(w, f, v); }

/* ADD ALU writes `waddr` (cond always) with op(mux_a, mux_b); MUL idle. */
static uint64_t add_ins(unsigned op, unsigned waddr, unsigned mux_a, unsigned mux_b) {
  uint64_t w = set(NOP, QPU_F_OP_ADD, op);
  w = set(w, QPU_F_COND_ADD, 1);
  w = set(w, QPU_F_WADDR_ADD, waddr);
  w = set(w, QPU_F_ADD_A, mux_a);
  return set(w, QPU_F_ADD_B, mux_b);
}
/* MUL ALU writes `waddr` (cond always) with op(mux_a, mux_b); ADD idle. */
static uint64_t mul_ins(unsigned op, unsigned waddr, unsigned mux_a, unsigned mux_b) {
  uint64_t w = set(NOP, QPU_F_OP_MUL, op);
  w = set(w, QPU_F_COND_MUL, 1);
  w = set(w, QPU_F_WADDR_MUL, waddr);
  w = set(w, QPU_F_MUL_A, mux_a);
  return set(w, QPU_F_MUL_B, mux_b);
}
/* Adds a MUL operation to an ADD instruction. */
static uint64_t with_mul(uint64_t w, unsigned op, unsigned waddr, unsigned mux_a, unsigned mux_b) {
  w = set(w, QPU_F_OP_MUL, op);
  w = set(w, QPU_F_COND_MUL, 1);
  w = set(w, QPU_F_WADDR_MUL, waddr);
  w = set(w, QPU_F_MUL_A, mux_a);
  return set(w, QPU_F_MUL_B, mux_b);
}
static uint64_t ra(uint64_t w, unsigned a) { return set(w, QPU_F_RADDR_A, a); }
static uint64_t rb(uint64_t w, unsigned b) { return set(w, QPU_F_RADDR_B, b); }
/* Small immediate `code` as the B operand (sig 13). */
static uint64_t simm(uint64_t w, unsigned code) { return rb(set(w, QPU_F_SIG, QPU_SIG_SMALL_IMM), code); }
static uint64_t setf(uint64_t w) { return set(w, QPU_F_SF, 1); }
static uint64_t sig(uint64_t w, unsigned s) { return set(w, QPU_F_SIG, s); }

/* Load immediate of type `type` to waddr through the ADD output. */
static uint64_t ldi_t(unsigned type, unsigned waddr, uint32_t v) {
  uint64_t w = 0;
  w = set(w, QPU_F_SIG, QPU_SIG_LOAD_IMM);
  w = set(w, QPU_F_LDI_TYPE, type);
  w = set(w, QPU_F_COND_ADD, 1);
  w = set(w, QPU_F_WADDR_ADD, waddr);
  w = set(w, QPU_F_WADDR_MUL, QPU_W_NOP);
  return set(w, QPU_F_IMM, v);
}
static uint64_t ldi(unsigned waddr, uint32_t v) { return ldi_t(QPU_LDI_32, waddr, v); }
/* Semaphore: acquire (decrement) or release (increment) number n. */
static uint64_t sema(int acquire, unsigned n) {
  uint64_t w = ldi_t(QPU_LDI_SEMA, QPU_W_NOP, 0);
  w = set(w, QPU_F_COND_ADD, 0);
  w = set(w, QPU_F_SEM_SA, (uint32_t)acquire);
  return set(w, QPU_F_SEM_NUM, n);
}
/* Branch on `cond`; no link (both waddrs 39). */
static uint64_t branch(unsigned cond, int rel, uint32_t imm) {
  uint64_t w = 0;
  w = set(w, QPU_F_SIG, QPU_SIG_BRANCH);
  w = set(w, QPU_F_COND_BR, cond);
  w = set(w, QPU_F_REL, (uint32_t)rel);
  w = set(w, QPU_F_WADDR_ADD, QPU_W_NOP);
  w = set(w, QPU_F_WADDR_MUL, QPU_W_NOP);
  return set(w, QPU_F_IMM, imm);
}
/* Relative branch from instruction `from` to instruction `to` (indices). */
static uint32_t rel_to(int from, int to) { return (uint32_t)((to - (from + 4)) * 8); }

#define THREND sig(NOP, QPU_SIG_THREND)
#define END THREND, NOP, NOP

/* ---- Running programs ------------------------------------------------------ */

static int setup(void **state) {
  gs_gpu_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.interpreter = GS_INTERP_REFERENCE;
  cfg.qpus = 2;
  gs_gpu *g = gs_gpu_new(&cfg);
  *state = g;
  return g ? 0 : -1;
}
static int teardown(void **state) {
  gs_gpu_free(*state);
  return 0;
}

static gs_addr alloc(gs_gpu *g, uint32_t size) {
  gs_addr a = 0;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), size, 8, &a, NULL), GS_OK);
  return a;
}

/* Writes n words at a, each as little-endian bytes, low word first. */
static void put_code(gs_gpu *g, gs_addr a, const uint64_t *w, size_t n) {
  for (size_t k = 0; k < n; k++) {
    unsigned char b[8];
    for (int i = 0; i < 8; i++) b[i] = (unsigned char)(w[k] >> (8 * i));
    assert_int_equal(gs_mem_write(gs_gpu_mem(g), a + (gs_addr)(8 * k), b, 8, NULL), GS_OK);
  }
}

static gs_addr put_uniforms(gs_gpu *g, const uint32_t *u, size_t n) {
  gs_addr a = alloc(g, (uint32_t)(4 * n));
  assert_int_equal(gs_mem_write(gs_gpu_mem(g), a, u, (uint32_t)(4 * n), NULL), GS_OK);
  return a;
}

/* Runs the code at `code` with uniforms at `unif` on QPU 0; returns the
 * result code, the status in *st (may be NULL). */
static int run_at(gs_gpu *g, gs_addr code, gs_addr unif, gs_qpu_status *st) {
  gs_qpu_program p = {code, unif};
  gs_qpu_status s;
  int rc = gs_qpu_run_user(g, &p, 1, &s);
  if (st) *st = s;
  return rc;
}

/* Loads and runs n words that must end normally; returns QPU 0. */
static gs_qpu *run_ok(gs_gpu *g, const uint64_t *w, size_t n, const uint32_t *u, size_t nu) {
  gs_addr code = alloc(g, (uint32_t)(8 * n));
  put_code(g, code, w, n);
  gs_addr unif = nu ? put_uniforms(g, u, nu) : 0;
  gs_qpu_status st;
  int rc = run_at(g, code, unif, &st);
  if (rc != GS_OK) print_error("run failed: %s\n", gs_gpu_error(g));
  assert_int_equal(rc, GS_OK);
  assert_true(st.ended);
  return qpu_cluster_of(g)->qpu[0];
}

static uint32_t lane(const gs_qpu *q, int slot, int i) { return q->reg[slot].u[i]; }

/* All 16 lanes of reg[slot] equal x. */
static void assert_all(const gs_qpu *q, int slot, uint32_t x) {
  for (int i = 0; i < QPU_LANES; i++) {
    if (q->reg[slot].u[i] != x)
      print_error("reg slot %d lane %d: got 0x%08x, want 0x%08x\n", slot, i, q->reg[slot].u[i], x);
    assert_int_equal(q->reg[slot].u[i], x);
  }
}

/* Lane i of reg[slot] equals (mask bit i ? yes : no). */
static void assert_mask(const gs_qpu *q, int slot, uint16_t mask, uint32_t yes, uint32_t no) {
  for (int i = 0; i < QPU_LANES; i++) {
    uint32_t want = (mask >> i & 1) ? yes : no;
    if (q->reg[slot].u[i] != want)
      print_error("reg slot %d lane %d: got 0x%08x, want 0x%08x\n", slot, i, q->reg[slot].u[i], want);
    assert_int_equal(q->reg[slot].u[i], want);
  }
}

#define R(n) (QREG_R0 + (n))
#define RA(n) (QREG_RA0 + (n))
#define RB(n) (QREG_RB0 + (n))

/* ---- Seed 004 ------------------------------------------------------------- */

/* The coordinate-shader test of seed 004 with its VPM accesses replaced by
 * nops: the words are the seed's own; hardware printed clip x 0xBF665C24 and
 * clip y 0x3F5EDD42 for the uniform 0x1C000200 (x 32, y 448 in 12.4). */
static void test_seed004_words(void **state) {
  gs_gpu *g = *state;
  const uint64_t w[] = {
      UINT64_C(0x100009e7009e7000), /* nop */
      UINT64_C(0x1002002715827df7), /* or ra0, unif, - */
      UINT64_C(0x1002006715827df7), /* or ra1, unif, - */
      UINT64_C(0x100200a715827df7), /* or ra2, unif, - */
      NOP, NOP, NOP, NOP, NOP, NOP, /* VPM setup and writes */
      UINT64_C(0xd20208270e004dc0), /* shr r0, ra0.16a, 4 */
      UINT64_C(0xd40208670e004dc0), /* shr r1, ra0.16b, 4 */
      UINT64_C(0x10022827080001f7), /* itof r0, r0 */
      UINT64_C(0x10022867080003f7), /* itof r1, r1 */
      UINT64_C(0xe00208a73b4d1ed9), /* ldi r2, 2/639 */
      UINT64_C(0xe00208e73b88d181), /* ldi r3, 2/479 */
      UINT64_C(0x100079e020000dc2), /* fmul r0, r0, r2 */
      UINT64_C(0x100079e120000dcb), /* fmul r1, r1, r3 */
      UINT64_C(0xd0020827020201c0), /* fsub r0, r0, 1.0 */
      UINT64_C(0xd0020867020203c0), /* fsub r1, r1, 1.0 */
      END};
  const uint32_t u[] = {0x1c000200u, 0, 0, 0};
  gs_qpu *q = run_ok(g, w, COUNT(w), u, COUNT(u));
  assert_all(q, RA(0), 0x1c000200u);
  assert_all(q, R(0), 0xbf665c24u);
  assert_all(q, R(1), 0x3f5edd42u);
}

/* ---- Latencies -------------------------------------------------------------- */

/* A regfile write at N is not visible at N+1 (old value), visible at N+2;
 * the same on both files. */
static void test_regfile_latency(void **state) {
  gs_gpu *g = *state;
  const uint64_t w[] = {
      ldi(1, 7),                                                  /* ra1 = 7 */
      set(ldi(2, 70), QPU_F_WS, 1),                               /* rb2 = 70 (ws: ADD to file B) */
      NOP,
      ldi(1, 5),                                                  /* N: ra1 = 5 */
      ra(add_ins(QPU_A_OR, QPU_W_ACC0, QPU_MUX_A, QPU_MUX_A), 1), /* N+1: old 7 */
      ra(add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_A, QPU_MUX_A), 1), /* N+2: 5 */
      set(ldi(2, 50), QPU_F_WS, 1),                               /* M: rb2 = 50 */
      rb(add_ins(QPU_A_OR, QPU_W_ACC2, QPU_MUX_B, QPU_MUX_B), 2), /* M+1: old 70 */
      rb(add_ins(QPU_A_OR, QPU_W_ACC3, QPU_MUX_B, QPU_MUX_B), 2), /* M+2: 50 */
      END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, R(0), 7);
  assert_all(q, R(1), 5);
  assert_all(q, R(2), 70);
  assert_all(q, R(3), 50);
}

/* Accumulators written at N are read at N+1. */
static void test_accumulator_latency(void **state) {
  gs_gpu *g = *state;
  const uint64_t w[] = {
      ldi(QPU_W_ACC0, 9),
      add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_R0, QPU_MUX_R0),
      add_ins(QPU_A_ADD, QPU_W_ACC2, QPU_MUX_R1, QPU_MUX_R0),
      END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, R(1), 9);
  assert_all(q, R(2), 18);
}

/* An SFU write at N lands in r4 for N+3; N+1 and N+2 read the old r4. The
 * expected values come from calling the SFU model directly. */
static void test_sfu_latency(void **state) {
  gs_gpu *g = *state;
  const uint32_t x1 = 0x40000000u, x2 = 0x40800000u; /* 2.0, 4.0 */
  assert_int_not_equal(sfu_recip(x1), sfu_recip(x2));
  const uint64_t w[] = {
      ldi(QPU_W_ACC0, x1),
      add_ins(QPU_A_OR, QPU_W_SFU_RECIP, QPU_MUX_R0, QPU_MUX_R0), /* N  */
      add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_R4, QPU_MUX_R4),      /* N+1: old r4 (0) */
      NOP,
      ldi(QPU_W_ACC0, x2),                                        /* N+3 of the first */
      add_ins(QPU_A_OR, QPU_W_SFU_RECIP, QPU_MUX_R0, QPU_MUX_R0), /* M */
      add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_R4, QPU_MUX_R4),      /* M+1: recip(x1) */
      add_ins(QPU_A_OR, QPU_W_ACC2, QPU_MUX_R4, QPU_MUX_R4),      /* M+2: recip(x1) */
      add_ins(QPU_A_OR, QPU_W_ACC3, QPU_MUX_R4, QPU_MUX_R4),      /* M+3: recip(x2) */
      END};
  const uint64_t first[] = {w[0], w[1], w[2], END};
  gs_qpu *q = run_ok(g, first, COUNT(first), NULL, 0);
  assert_all(q, R(1), 0);
  q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, R(1), sfu_recip(x1));
  assert_all(q, R(2), sfu_recip(x1));
  assert_all(q, R(3), sfu_recip(x2));
}

/* ---- Branches ----------------------------------------------------------------- */

/* Exactly three delay slots execute after a taken branch. */
static void test_branch_delay_slots(void **state) {
  gs_gpu *g = *state;
  const uint64_t w[] = {
      branch(15, 1, rel_to(0, 8)), /* 0 */
      ldi(QPU_W_ACC0, 1),          /* 1: delay slot */
      ldi(QPU_W_ACC1, 2),          /* 2: delay slot */
      ldi(QPU_W_ACC2, 3),          /* 3: delay slot */
      ldi(QPU_W_ACC3, 4),          /* 4: skipped */
      END,                         /* 5..7: skipped */
      END};                        /* 8..10 */
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  gs_qpu_status st;
  assert_int_equal(run_at(g, code, 0, &st), GS_OK);
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  assert_all(q, R(0), 1);
  assert_all(q, R(1), 2);
  assert_all(q, R(2), 3);
  assert_all(q, R(3), 0);
  assert_int_equal(st.instructions, 7);
}

/* The link (branch address + 32) is written only when the branch is taken,
 * through waddr_add and waddr_mul with write swap. */
static void test_branch_link(void **state) {
  gs_gpu *g = *state;
  uint64_t not_taken = branch(0, 1, rel_to(2, 12)); /* all Z set: flags are clear */
  not_taken = set(not_taken, QPU_F_WADDR_ADD, 5);   /* ra5 */
  not_taken = set(not_taken, QPU_F_WADDR_MUL, 5);   /* rb5 */
  uint64_t taken = branch(15, 1, rel_to(6, 12));
  taken = set(taken, QPU_F_WS, 1);
  taken = set(taken, QPU_F_WADDR_ADD, 6);           /* ws: ADD to rb6 */
  taken = set(taken, QPU_F_WADDR_MUL, 6);           /* ... MUL to ra6 */
  uint64_t ld = set(set(ldi(5, 0x77), QPU_F_WADDR_MUL, 5), QPU_F_COND_MUL, 1); /* ra5 = rb5 = 0x77 */
  const uint64_t w[] = {ld, NOP, not_taken, NOP, NOP, NOP, taken, NOP, NOP, NOP,
                        ldi(QPU_W_ACC0, 1), NOP, END};
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  assert_int_equal(run_at(g, code, 0, NULL), GS_OK);
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  assert_all(q, RA(5), 0x77);
  assert_all(q, RB(5), 0x77);
  assert_all(q, RA(6), code + 6 * 8 + 32);
  assert_all(q, RB(6), code + 6 * 8 + 32);
  assert_all(q, R(0), 0);
}

/* Absolute branch: the target is the immediate. */
static void test_branch_absolute(void **state) {
  gs_gpu *g = *state;
  uint64_t w[] = {0, NOP, NOP, NOP, ldi(QPU_W_ACC0, 0xbad), END, ldi(QPU_W_ACC0, 0x600d), END};
  gs_addr code = alloc(g, sizeof w);
  w[0] = branch(15, 0, code + 8 * 8); /* the second ldi */
  put_code(g, code, w, COUNT(w));
  assert_int_equal(run_at(g, code, 0, NULL), GS_OK);
  assert_all(qpu_cluster_of(g)->qpu[0], R(0), 0x600d);
}

/* Register branch: adds element 15 of ra[raddr_a], not element 0. */
static void test_branch_register_element15(void **state) {
  gs_gpu *g = *state;
  uint64_t shl = simm(ra(add_ins(QPU_A_SHL, 7, QPU_MUX_A, QPU_MUX_B), QPU_R_ELEM_QPU), 3); /* ra7 = elem*8 */
  uint64_t br = set(set(branch(15, 1, 0), QPU_F_REG, 1), QPU_F_RADDR_A_BR, 7);
  uint64_t w[25];
  for (size_t k = 0; k < COUNT(w); k++) w[k] = NOP;
  w[0] = shl;
  w[2] = br;                       /* target 2 + 4 + ra7[15]/8 = 21; element 0 would give 6 */
  w[6] = ldi(QPU_W_ACC0, 0xbad);
  w[7] = THREND;
  w[21] = ldi(QPU_W_ACC0, 0x600d);
  w[22] = THREND;
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, R(0), 0x600d);
}

/* Every branch condition over flags that are set in all, some or no lanes. */
static void test_branch_conditions(void **state) {
  gs_gpu *g = *state;
  /* Flag-setting instructions [flag Z/N/C][all/some/none]. */
  const uint64_t or_imm0 = setf(simm(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_B, QPU_MUX_B), 0));
  const uint64_t or_imm1 = setf(simm(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_B, QPU_MUX_B), 1));
  const uint64_t or_immm1 = setf(simm(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_B, QPU_MUX_B), 31));
  const uint64_t or_elem = setf(simm(ra(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_A, QPU_MUX_B), QPU_R_ELEM_QPU), 0));
  const uint64_t sub_elem8 = setf(simm(ra(add_ins(QPU_A_SUB, QPU_W_NOP, QPU_MUX_A, QPU_MUX_B), QPU_R_ELEM_QPU), 8));
  const uint64_t sub_elem_m16 = setf(simm(ra(add_ins(QPU_A_SUB, QPU_W_NOP, QPU_MUX_A, QPU_MUX_B), QPU_R_ELEM_QPU), 16));
  const uint64_t prologue[3][3] = {
      {or_imm0, or_elem, or_imm1},        /* Z: all (0), lane 0 (elem|0), none */
      {or_immm1, sub_elem8, or_imm1},     /* N: all (-1), lanes 0..7 (elem-8), none */
      {sub_elem_m16, sub_elem8, or_imm1}, /* C: all (elem <u 0xfffffff0), lanes 0..7, none */
  };
  /* taken[kind][state]: kind all-set, all-clear, any-set, any-clear. */
  static const int taken[4][3] = {{1, 0, 0}, {0, 0, 1}, {1, 1, 0}, {0, 1, 1}};
  for (unsigned flag = 0; flag < 3; flag++) {
    for (unsigned kind = 0; kind < 4; kind++) {
      for (unsigned st = 0; st < 3; st++) {
        unsigned cond = flag * 4 + kind;
        const uint64_t w[] = {prologue[flag][st], branch(cond, 1, rel_to(1, 9)), NOP, NOP, NOP,
                              ldi(QPU_W_ACC0, 1), END, ldi(QPU_W_ACC0, 2), END};
        gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
        uint32_t want = taken[kind][st] ? 2 : 1;
        if (lane(q, R(0), 0) != want)
          print_error("branch cond %u (%s) with flag state %u: taken=%d\n", cond, qpu_branch_cond_names[cond],
                      st, lane(q, R(0), 0) == 2);
        assert_all(q, R(0), want);
      }
    }
  }
  const uint64_t always[] = {or_imm1, branch(15, 1, rel_to(1, 9)), NOP, NOP, NOP,
                             ldi(QPU_W_ACC0, 1), END, ldi(QPU_W_ACC0, 2), END};
  assert_all(run_ok(g, always, COUNT(always), NULL, 0), R(0), 2);
}

/* A taken branch with an odd raddr_a (bit 45 = sf) sets Z=0, N=bit 31, C=0
 * from the link in all lanes; an even one or a branch not taken leaves the
 * flags alone. */
static void test_branch_sets_flags_via_bit45(void **state) {
  gs_gpu *g = *state;
  const uint64_t zero_flags = setf(simm(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_B, QPU_MUX_B), 0)); /* Z all */
  const struct { uint64_t br; uint16_t zf; } t[] = {
      {set(branch(15, 1, rel_to(1, 5)), QPU_F_RADDR_A_BR, 1), 0},
      {set(branch(15, 1, rel_to(1, 5)), QPU_F_RADDR_A_BR, 2), ALL},
      {set(branch(1, 1, rel_to(1, 5)), QPU_F_RADDR_A_BR, 1), ALL}, /* all Z clear: not taken */
  };
  for (size_t k = 0; k < COUNT(t); k++) {
    const uint64_t w[] = {zero_flags, t[k].br, NOP, NOP, NOP, END};
    gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
    assert_int_equal(q->zf, t[k].zf);
    assert_int_equal(q->nf, 0);
    assert_int_equal(q->cf, 0);
  }
}

/* ---- Conditions and flags ------------------------------------------------------- */

/* Flags from elem - 8: lanes 0..7 N and C, lane 8 Z, lanes 9..15 none. */
#define SUB_ELEM_8 setf(simm(ra(add_ins(QPU_A_SUB, QPU_W_NOP, QPU_MUX_A, QPU_MUX_B), QPU_R_ELEM_QPU), 8))

/* Each write condition, per lane, through both ALU outputs. */
static void test_write_conditions(void **state) {
  gs_gpu *g = *state;
  uint64_t l[4];
  static const unsigned conds[4][2] = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  static const unsigned dest[4][2] = {{32, 33}, {34, 35}, {0, 0}, {1, 1}}; /* r0 r1, r2 r3, ra0 rb0, ra1 rb1 */
  for (int k = 0; k < 4; k++) {
    uint64_t w = ldi(dest[k][0], 0x55);
    w = set(w, QPU_F_COND_ADD, conds[k][0]);
    w = set(w, QPU_F_COND_MUL, conds[k][1]);
    l[k] = set(w, QPU_F_WADDR_MUL, dest[k][1]);
  }
  /* An ALU write under a condition too: v8min rb2, 7, 7 when ns. */
  uint64_t alu = set(mul_ins(QPU_M_V8MIN, 2, QPU_MUX_B, QPU_MUX_B), QPU_F_COND_MUL, 4);
  alu = simm(alu, 7);
  const uint64_t w[] = {SUB_ELEM_8, l[0], l[1], l[2], l[3], alu, END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_mask(q, R(0), 0x0000, 0x55, 0);  /* never */
  assert_mask(q, R(1), 0xffff, 0x55, 0);  /* always */
  assert_mask(q, R(2), 0x0100, 0x55, 0);  /* zs: lane 8 */
  assert_mask(q, R(3), 0xfeff, 0x55, 0);  /* zc */
  assert_mask(q, RA(0), 0x00ff, 0x55, 0); /* ns: lanes 0..7 */
  assert_mask(q, RB(0), 0xff00, 0x55, 0); /* nc */
  assert_mask(q, RA(1), 0x00ff, 0x55, 0); /* cs */
  assert_mask(q, RB(1), 0xff00, 0x55, 0); /* cc */
  assert_mask(q, RB(2), 0x00ff, 7, 0);
}

/* sf updates flags only in the lanes where the source ALU's condition
 * passed. */
static void test_flags_only_where_written(void **state) {
  gs_gpu *g = *state;
  uint64_t or0 = setf(simm(add_ins(QPU_A_OR, QPU_W_ACC0, QPU_MUX_B, QPU_MUX_B), 0));
  or0 = set(or0, QPU_F_COND_ADD, 4); /* ns: lanes 0..7 */
  const uint64_t w[] = {SUB_ELEM_8, or0, END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_int_equal(q->zf, 0x01ff); /* lanes 0..7 from the or (0), lane 8 kept */
  assert_int_equal(q->nf, 0x0000);
  assert_int_equal(q->cf, 0x0000);
}

/* Flags come from the ADD ALU unless its opcode is nop, even when its
 * condition is never (reference/vc4.md §8.1). */
static void test_flag_source(void **state) {
  gs_gpu *g = *state;
  const uint64_t clear = setf(simm(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_B, QPU_MUX_B), 1)); /* Z none */
  /* or (cond never) ; v8min r1, elem, elem — with sf: ADD is the source, writes no lane. */
  uint64_t add_never = setf(with_mul(ra(simm(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_B, QPU_MUX_B), 0), QPU_R_ELEM_QPU),
                                     QPU_M_V8MIN, QPU_W_ACC1, QPU_MUX_A, QPU_MUX_A));
  add_never = set(add_never, QPU_F_COND_ADD, 0);
  /* nop ; v8min r2, elem, elem with sf: the MUL is the source. */
  const uint64_t mul_src = setf(ra(mul_ins(QPU_M_V8MIN, QPU_W_ACC2, QPU_MUX_A, QPU_MUX_A), QPU_R_ELEM_QPU));
  /* or r3, 0, 0 ; v8min - , elem, elem with sf: ADD (0 everywhere) wins. */
  const uint64_t add_src = setf(with_mul(ra(simm(add_ins(QPU_A_OR, QPU_W_ACC3, QPU_MUX_B, QPU_MUX_B), 0),
                                            QPU_R_ELEM_QPU),
                                         QPU_M_V8MIN, QPU_W_NOP, QPU_MUX_A, QPU_MUX_A));
  const uint64_t p1[] = {clear, add_never, END};
  gs_qpu *q = run_ok(g, p1, COUNT(p1), NULL, 0);
  assert_int_equal(q->zf, 0);
  assert_int_equal(lane(q, R(1), 5), 5);
  const uint64_t p2[] = {clear, mul_src, END};
  q = run_ok(g, p2, COUNT(p2), NULL, 0);
  assert_int_equal(q->zf, 0x0001); /* elem == 0 only in lane 0 */
  const uint64_t p3[] = {clear, add_src, END};
  q = run_ok(g, p3, COUNT(p3), NULL, 0);
  assert_int_equal(q->zf, ALL);
}

/* The MUL ALU as flag source, and a load immediate, also set flags only
 * where their condition passed (cond_add for the load immediate). */
static void test_flags_only_where_written_mul_ldi(void **state) {
  gs_gpu *g = *state;
  uint64_t mul0 = setf(simm(mul_ins(QPU_M_V8MIN, QPU_W_ACC1, QPU_MUX_B, QPU_MUX_B), 0));
  mul0 = set(mul0, QPU_F_COND_MUL, 4); /* ns: lanes 0..7 */
  uint64_t ldi0 = setf(set(ldi(QPU_W_ACC1, 0), QPU_F_COND_ADD, 4));
  const uint64_t p1[] = {SUB_ELEM_8, mul0, END};
  const uint64_t p2[] = {SUB_ELEM_8, ldi0, END};
  const uint64_t *progs[2] = {p1, p2};
  for (int k = 0; k < 2; k++) {
    gs_qpu *q = run_ok(g, progs[k], COUNT(p1), NULL, 0);
    assert_int_equal(q->zf, 0x01ff);
    assert_int_equal(q->nf, 0x0000);
    assert_int_equal(q->cf, 0x0000);
  }
}

/* A nop opcode writes nothing even with a destination and condition
 * always; when both ALUs write one accumulator the MUL (written second)
 * wins; a colour pack (pm=1) never touches the ADD result. */
static void test_nop_writes_and_write_order(void **state) {
  gs_gpu *g = *state;
  uint64_t nops = set(set(NOP, QPU_F_COND_ADD, 1), QPU_F_WADDR_ADD, QPU_W_ACC0);
  nops = set(set(nops, QPU_F_COND_MUL, 1), QPU_F_WADDR_MUL, 3); /* rb3 */
  const uint64_t both_r2 = simm(with_mul(ra(add_ins(QPU_A_OR, QPU_W_ACC2, QPU_MUX_A, QPU_MUX_A), QPU_R_ELEM_QPU),
                                         QPU_M_V8MIN, QPU_W_ACC2, QPU_MUX_B, QPU_MUX_B), 7);
  /* or r3, r1, r1 with pm=1 pack 8a: the ADD result is written whole */
  const uint64_t add_pm1 = set(set(add_ins(QPU_A_OR, QPU_W_ACC3, QPU_MUX_R1, QPU_MUX_R1), QPU_F_PM, 1),
                               QPU_F_PACK, 4);
  const uint64_t w[] = {ldi(QPU_W_ACC0, 5), set(ldi(3, 6), QPU_F_WS, 1), ldi(QPU_W_ACC1, ONE),
                        nops, both_r2, add_pm1, END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, R(0), 5);
  assert_all(q, RB(3), 6);
  assert_all(q, R(2), 7);
  assert_all(q, R(3), ONE);
}

/* ---- Rotation, r5 ------------------------------------------------------------------ */

static void test_rotation(void **state) {
  gs_gpu *g = *state;
  const uint64_t elem_r0 = ra(add_ins(QPU_A_OR, QPU_W_ACC0, QPU_MUX_A, QPU_MUX_A), QPU_R_ELEM_QPU);
  const uint64_t elem_ra0 = ra(add_ins(QPU_A_OR, 0, QPU_MUX_A, QPU_MUX_A), QPU_R_ELEM_QPU);
  uint64_t r5 = set(ldi(QPU_W_ACC5, 0x23), QPU_F_WS, 1); /* r5rep = 0x23: rotate by 3 */
  /* or r1, r0, r0 ; v8min r2, r0, r0 >> 1: full rotation, the ADD unrotated */
  const uint64_t full1 = simm(with_mul(add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_R0, QPU_MUX_R0), QPU_M_V8MIN,
                                       QPU_W_ACC2, QPU_MUX_R0, QPU_MUX_R0), 49);
  /* v8min r3, ra0, ra0 >> 1: within quads */
  const uint64_t quad1 = simm(ra(mul_ins(QPU_M_V8MIN, QPU_W_ACC3, QPU_MUX_A, QPU_MUX_A), 0), 49);
  /* v8min rb1, r0, r0 >> r5 (3): full */
  const uint64_t full_r5 = simm(mul_ins(QPU_M_V8MIN, 1, QPU_MUX_R0, QPU_MUX_R0), 48);
  /* v8min rb2, r0, ra0 >> 6 : one operand from a regfile: within quads by 6 mod 4 = 2 */
  const uint64_t mixed = simm(ra(mul_ins(QPU_M_V8MIN, 2, QPU_MUX_R0, QPU_MUX_A), 0), 54);
  const uint64_t w[] = {elem_r0, elem_ra0, r5, NOP, full1, quad1, full_r5, mixed, END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  for (int i = 0; i < QPU_LANES; i++) {
    assert_int_equal(lane(q, R(1), i), (uint32_t)i);
    assert_int_equal(lane(q, R(2), i), (uint32_t)((i + 15) & 15));
    assert_int_equal(lane(q, R(3), i), (uint32_t)((i & 12) | ((i + 3) & 3)));
    assert_int_equal(lane(q, RB(1), i), (uint32_t)((i + 13) & 15));
    assert_int_equal(lane(q, RB(2), i), (uint32_t)((i & 12) | ((i + 2) & 3)));
  }
}

/* r5quad (A side): each quad gets its element 0; r5rep (B side): all get
 * element 0. */
static void test_r5_quad_rep(void **state) {
  gs_gpu *g = *state;
  const uint64_t quad = ra(add_ins(QPU_A_OR, QPU_W_ACC5, QPU_MUX_A, QPU_MUX_A), QPU_R_ELEM_QPU);
  const uint64_t rep = set(simm(ra(add_ins(QPU_A_ADD, QPU_W_ACC5, QPU_MUX_A, QPU_MUX_B), QPU_R_ELEM_QPU), 5),
                           QPU_F_WS, 1);
  const uint64_t w[] = {quad, add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_R5, QPU_MUX_R5), rep,
                        add_ins(QPU_A_OR, QPU_W_ACC2, QPU_MUX_R5, QPU_MUX_R5), END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  for (int i = 0; i < QPU_LANES; i++) assert_int_equal(lane(q, R(1), i), (uint32_t)(i & 12));
  assert_all(q, R(2), 5);
}

/* ---- Pack and unpack ----------------------------------------------------------------- */

static void test_pack(void **state) {
  gs_gpu *g = *state;
  /* or ra3.8b, r0, r0: only byte 1 of ra3 changes */
  const uint64_t pack8b = set(add_ins(QPU_A_OR, 3, QPU_MUX_R0, QPU_MUX_R0), QPU_F_PACK, 5);
  /* the same pack on an accumulator does nothing (regfile A only) */
  const uint64_t pack_acc = set(add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_R0, QPU_MUX_R0), QPU_F_PACK, 5);
  /* add ra2.32s, r2, 1 saturates INT_MAX + 1 */
  const uint64_t sat = set(simm(add_ins(QPU_A_ADD, 2, QPU_MUX_R2, QPU_MUX_B), 1), QPU_F_PACK, 8);
  /* fmul ra4.16a (ws: MUL writes file A), r3, 1.0: float16 into the low half */
  const uint64_t f16 = set(set(simm(mul_ins(QPU_M_FMUL, 4, QPU_MUX_R3, QPU_MUX_B), 32), QPU_F_WS, 1), QPU_F_PACK, 1);
  /* fmul rb3.8c (pm=1 colour pack, B file), r3, 1.0 */
  const uint64_t col = set(set(simm(mul_ins(QPU_M_FMUL, 3, QPU_MUX_R3, QPU_MUX_B), 32), QPU_F_PM, 1), QPU_F_PACK, 6);
  /* fmul r5rep.8b: colour pack to an I/O register writes the whole word */
  const uint64_t col_io = set(set(simm(mul_ins(QPU_M_FMUL, QPU_W_ACC5, QPU_MUX_R3, QPU_MUX_B), 32), QPU_F_PM, 1),
                              QPU_F_PACK, 5);
  const uint64_t w[] = {
      ldi(3, 0x11223344u), ldi(4, 0x55667788u), set(ldi(3, 0x99aabbccu), QPU_F_WS, 1), /* ra3, ra4, rb3 */
      ldi(QPU_W_ACC0, 0x000000abu), ldi(QPU_W_ACC2, 0x7fffffffu), ldi(QPU_W_ACC3, HALF),
      set(ldi(QPU_W_ACC5, 0x23), QPU_F_WS, 1),
      pack8b, pack_acc, sat, f16, col, col_io, ldi(QPU_W_ACC0, ONE),
      UINT64_C(0xd16049e3209e0007), /* fmul r3.8c, r0, 1.0 (worked decode, reference §1.3) */
      END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, RA(3), 0x1122ab44u);
  assert_all(q, R(1), 0x000000abu);
  assert_all(q, RA(2), 0x7fffffffu);
  assert_all(q, RA(4), 0x55663800u);  /* 0.5 as float16 is 0x3800 */
  assert_all(q, RB(3), 0x9980bbccu);  /* 0.5 * 255 = 127.5 -> 128 */
  assert_all(q, R(5), 0x00008000u);
  assert_all(q, R(3), 0x3fff0000u); /* r3 was 0.5; r0 = 1.0 -> 255 in byte 2 */
}

/* Regfile-A unpack is applied per consumer: a float op reads float16 as a
 * float, an integer op reads it sign-extended. pm=1 unpacks r4 instead. */
static void test_unpack(void **state) {
  gs_gpu *g = *state;
  /* fadd r0, ra1.16a, 1 ; mul24 r1, ra1.16a, 1 */
  uint64_t both = with_mul(add_ins(QPU_A_FADD, QPU_W_ACC0, QPU_MUX_A, QPU_MUX_B), QPU_M_MUL24, QPU_W_ACC1,
                           QPU_MUX_A, QPU_MUX_B);
  both = set(simm(ra(both, 1), 1), QPU_F_UNPACK, 1);
  /* or r2, ra1, ra1 with pm=1 unpack 16a: regfile A is not unpacked */
  const uint64_t pm1 = set(set(ra(add_ins(QPU_A_OR, QPU_W_ACC2, QPU_MUX_A, QPU_MUX_A), 1), QPU_F_PM, 1),
                           QPU_F_UNPACK, 1);
  /* or r3, ra1.8d (int), - : zero-extended byte 3 */
  const uint64_t b8d = set(ra(add_ins(QPU_A_OR, QPU_W_ACC3, QPU_MUX_A, QPU_MUX_A), 1), QPU_F_UNPACK, 7);
  const uint64_t w[] = {ldi(1, 0x3c00c000u), NOP, both, pm1, b8d, END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, R(0), 0xc0000000u); /* -2.0 + denormal 1 (= 0) */
  assert_all(q, R(1), 0x00ffc000u); /* 0xffffc000 & 0xffffff times 1 */
  assert_all(q, R(2), 0x3c00c000u);
  assert_all(q, R(3), 0x3cu);
}

/* r4 unpack (pm=1): the SFU result's byte 3 replicated; with pm=0 r4 is read
 * as it is. */
static void test_unpack_r4(void **state) {
  gs_gpu *g = *state;
  const uint32_t x = 0x40400000u; /* 3.0 */
  const uint64_t r4_8dr = set(set(add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_R4, QPU_MUX_R4), QPU_F_PM, 1),
                              QPU_F_UNPACK, 3);
  const uint64_t r4_pm0 = set(add_ins(QPU_A_OR, QPU_W_ACC2, QPU_MUX_R4, QPU_MUX_R4), QPU_F_UNPACK, 3);
  const uint64_t w[] = {ldi(QPU_W_ACC0, x), add_ins(QPU_A_OR, QPU_W_SFU_RECIP, QPU_MUX_R0, QPU_MUX_R0), NOP, NOP,
                        r4_8dr, r4_pm0, END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  uint32_t r = sfu_recip(x);
  assert_all(q, R(1), (r >> 24) * 0x01010101u);
  assert_all(q, R(2), r);
}

/* ---- Load immediate and semaphores ------------------------------------------------------ */

static void test_ldi_variants(void **state) {
  gs_gpu *g = *state;
  /* lanes 0..3: 00, 4..7: 01, 8..11: 10, 12..15: 11 (high bit in imm[16+i]) */
  const uint32_t imm = 0xff00f0f0u;
  uint64_t flags = setf(ldi(QPU_W_ACC3, 0x80000000u));
  const uint64_t w[] = {ldi_t(QPU_LDI_PES, QPU_W_ACC0, imm), ldi_t(QPU_LDI_PEU, QPU_W_ACC1, imm),
                        setf(ldi_t(QPU_LDI_PEU, QPU_W_ACC2, imm)), END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  static const uint32_t pes[4] = {0, 1, 0xfffffffeu, 0xffffffffu};
  for (int i = 0; i < QPU_LANES; i++) {
    assert_int_equal(lane(q, R(0), i), pes[i / 4]);
    assert_int_equal(lane(q, R(1), i), (uint32_t)(i / 4));
  }
  assert_int_equal(q->zf, 0x000f);
  const uint64_t w2[] = {flags, END};
  q = run_ok(g, w2, COUNT(w2), NULL, 0);
  assert_all(q, R(3), 0x80000000u);
  assert_int_equal(q->nf, ALL);
  assert_int_equal(q->zf, 0);
  assert_int_equal(q->cf, 0);
}

/* Semaphore counts; the instruction also loads its low word like an LDI. */
static void test_semaphore_counts(void **state) {
  gs_gpu *g = *state;
  uint64_t acq = set(set(sema(1, 3), QPU_F_COND_ADD, 1), QPU_F_WADDR_ADD, QPU_W_ACC0);
  const uint64_t w[] = {sema(0, 3), sema(0, 3), acq, END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_int_equal(qpu_cluster_of(g)->sem[3], 1);
  assert_all(q, R(0), 0x13); /* sa (bit 4) | number 3 */
}

/* An acquire at count 0 stalls without changing anything; alone, it is a
 * deadlock naming the semaphore. */
static void test_semaphore_stall(void **state) {
  gs_gpu *g = *state;
  uint64_t acq = set(set(sema(1, 5), QPU_F_COND_ADD, 1), QPU_F_WADDR_ADD, QPU_W_ACC0);
  const uint64_t w[] = {acq, END};
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  assert_int_equal(run_at(g, code, 0, NULL), GS_EDEADLOCK);
  assert_non_null(strstr(gs_gpu_error(g), "semaphore 5"));
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  assert_int_equal(q->pc, code);
  assert_int_equal(q->instructions, 0);
  assert_all(q, R(0), 0);
}

/* Two QPUs: the acquire waits until the other QPU releases. */
static void test_semaphore_between_qpus(void **state) {
  gs_gpu *g = *state;
  const uint64_t a[] = {sema(1, 0), ldi(QPU_W_ACC0, 1), END};
  const uint64_t b[] = {NOP, NOP, sema(0, 0), END};
  gs_addr ca = alloc(g, sizeof a), cb = alloc(g, sizeof b);
  put_code(g, ca, a, COUNT(a));
  put_code(g, cb, b, COUNT(b));
  gs_qpu_program p[2] = {{ca, 0}, {cb, 0}};
  gs_qpu_status st[2];
  assert_int_equal(gs_qpu_run_user(g, p, 2, st), GS_OK);
  assert_int_equal(st[0].qpu, 0);
  assert_all(qpu_cluster_of(g)->qpu[0], R(0), 1);
  assert_int_equal(qpu_cluster_of(g)->sem[0], 0);
}

/* ---- Thread end, uniforms, NOP register ------------------------------------------------- */

/* Two delay slots run after thrend; the last one's regfile write lands. */
static void test_thread_end(void **state) {
  gs_gpu *g = *state;
  const uint64_t w[] = {THREND, ldi(QPU_W_ACC0, 1), ldi(0, 2), ldi(QPU_W_ACC2, 3)};
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  gs_qpu_status st;
  assert_int_equal(run_at(g, code, 0, &st), GS_OK);
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  assert_true(st.ended);
  assert_int_equal(st.instructions, 3);
  assert_all(q, R(0), 1);
  assert_all(q, RA(0), 2);
  assert_all(q, R(2), 0);
}

/* Uniforms pop in order; a read through a field pops even when no mux uses
 * it; unif_addr (A side) restarts the stream at an address, unif_addr_rel
 * (B side) at an offset from the stream's start; only element 0's
 * condition counts. */
static void test_uniform_stream(void **state) {
  gs_gpu *g = *state;
  const uint32_t u[] = {10, 20, 30, 40, 50, 60};
  gs_addr ua = put_uniforms(g, u, COUNT(u));
  const uint64_t unif_r0 = ra(add_ins(QPU_A_OR, QPU_W_ACC0, QPU_MUX_A, QPU_MUX_A), QPU_R_UNIF);
  const uint64_t unif_unused = ra(add_ins(QPU_A_OR, QPU_W_ACC3, QPU_MUX_R3, QPU_MUX_R3), QPU_R_UNIF);
  const uint64_t unif_r1 = ra(add_ins(QPU_A_OR, QPU_W_ACC1, QPU_MUX_A, QPU_MUX_A), QPU_R_UNIF);
  const uint64_t unif_r2 = ra(add_ins(QPU_A_OR, QPU_W_ACC2, QPU_MUX_A, QPU_MUX_A), QPU_R_UNIF);
  const uint64_t two = rb(ra(add_ins(QPU_A_ADD, 5, QPU_MUX_A, QPU_MUX_B), QPU_R_UNIF), QPU_R_UNIF);
  const uint64_t z_lane0 = setf(ra(add_ins(QPU_A_OR, QPU_W_NOP, QPU_MUX_A, QPU_MUX_A), QPU_R_ELEM_QPU));
  const uint64_t reset_zc = set(ldi(QPU_W_UNIFORMS_ADDRESS, ua), QPU_F_COND_ADD, 3); /* lane 0 fails */
  const uint64_t w[] = {
      unif_r0,                                 /* 10 */
      unif_unused,                             /* pops 20 */
      unif_r1,                                 /* 30 */
      ldi(QPU_W_UNIFORMS_ADDRESS, ua + 4), NOP, NOP,
      unif_r2,                                 /* 20 */
      set(ldi(QPU_W_UNIFORMS_ADDRESS, 12), QPU_F_WS, 1), NOP, NOP,
      two,                                     /* 40 + 50 into ra5 */
      z_lane0, reset_zc, NOP, NOP,
      unif_r0,                                 /* 60: not reset */
      END};
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  assert_int_equal(run_at(g, code, ua, NULL), GS_OK);
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  assert_all(q, R(1), 30);
  assert_all(q, R(2), 20);
  assert_all(q, R(3), 0);
  assert_all(q, RA(5), 90);
  assert_all(q, R(0), 60);
}

/* The NOP register reads 0; element and QPU numbers. */
static void test_special_reads(void **state) {
  gs_gpu *g = *state;
  const uint64_t w[] = {
      ldi(QPU_W_ACC0, 5),
      rb(ra(add_ins(QPU_A_OR, QPU_W_ACC0, QPU_MUX_A, QPU_MUX_B), QPU_R_NOP), QPU_R_NOP),
      rb(ra(add_ins(QPU_A_ADD, QPU_W_ACC1, QPU_MUX_A, QPU_MUX_B), QPU_R_ELEM_QPU), QPU_R_ELEM_QPU),
      END};
  gs_qpu *q = run_ok(g, w, COUNT(w), NULL, 0);
  assert_all(q, R(0), 0);
  for (int i = 0; i < QPU_LANES; i++) assert_int_equal(lane(q, R(1), i), (uint32_t)i); /* elem + qpu 0 */
}

/* ---- Errors -------------------------------------------------------------------------------- */

static void test_error_invalid_instruction(void **state) {
  gs_gpu *g = *state;
  const uint64_t bad = set(NOP, QPU_F_OP_ADD, 9);
  const uint64_t w[] = {NOP, bad, END};
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  assert_int_equal(run_at(g, code, 0, NULL), GS_EINVAL);
  char want[64];
  snprintf(want, sizeof want, "pc 0x%08x", code + 8);
  const char *msg = gs_gpu_error(g);
  if (!strstr(msg, want) || !strstr(msg, "invalid instruction 0x") || !strstr(msg, "reserved add opcode"))
    print_error("message: %s\n", msg);
  assert_non_null(strstr(msg, want));
  assert_non_null(strstr(msg, "invalid instruction 0x100009e7_099e7000"));
  assert_non_null(strstr(msg, "reserved add opcode"));
}

static void test_error_fetch_outside_memory(void **state) {
  gs_gpu *g = *state;
  const uint64_t w[] = {branch(15, 0, 0x8), NOP, NOP, NOP};
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  assert_int_equal(run_at(g, code, 0, NULL), GS_EFAULT);
  assert_non_null(strstr(gs_gpu_error(g), "0x00000008"));
  /* misaligned target */
  uint64_t w2[] = {0, NOP, NOP, NOP, END};
  gs_addr c2 = alloc(g, sizeof w2);
  w2[0] = branch(15, 0, c2 + 4);
  put_code(g, c2, w2, COUNT(w2));
  assert_int_equal(run_at(g, c2, 0, NULL), GS_EFAULT);
  char want[32];
  snprintf(want, sizeof want, "0x%08x", c2 + 4);
  assert_non_null(strstr(gs_gpu_error(g), want));
}

static void test_error_uniform_outside_memory(void **state) {
  gs_gpu *g = *state;
  const uint32_t u[] = {1};
  gs_addr ua = put_uniforms(g, u, 1);
  const uint64_t rd = ra(add_ins(QPU_A_OR, QPU_W_ACC0, QPU_MUX_A, QPU_MUX_A), QPU_R_UNIF);
  const uint64_t w[] = {rd, rd, END};
  gs_addr code = alloc(g, sizeof w);
  put_code(g, code, w, COUNT(w));
  assert_int_equal(run_at(g, code, ua, NULL), GS_EFAULT);
  char want[32];
  snprintf(want, sizeof want, "0x%08x", ua + 4);
  if (!strstr(gs_gpu_error(g), want)) print_error("message: %s\n", gs_gpu_error(g));
  assert_non_null(strstr(gs_gpu_error(g), want));
  assert_all(qpu_cluster_of(g)->qpu[0], R(0), 1);
}

int main(void) {
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
  const struct CMUnitTest tests[] = {
      T(test_seed004_words),
      T(test_regfile_latency),
      T(test_accumulator_latency),
      T(test_sfu_latency),
      T(test_branch_delay_slots),
      T(test_branch_link),
      T(test_branch_absolute),
      T(test_branch_register_element15),
      T(test_branch_conditions),
      T(test_branch_sets_flags_via_bit45),
      T(test_write_conditions),
      T(test_flags_only_where_written),
      T(test_flag_source),
      T(test_flags_only_where_written_mul_ldi),
      T(test_nop_writes_and_write_order),
      T(test_rotation),
      T(test_r5_quad_rep),
      T(test_pack),
      T(test_unpack),
      T(test_unpack_r4),
      T(test_ldi_variants),
      T(test_semaphore_counts),
      T(test_semaphore_stall),
      T(test_semaphore_between_qpus),
      T(test_thread_end),
      T(test_uniform_stream),
      T(test_special_reads),
      T(test_error_invalid_instruction),
      T(test_error_fetch_outside_memory),
      T(test_error_uniform_outside_memory),
  };
#undef T
  return cmocka_run_group_tests(tests, NULL, NULL);
}
