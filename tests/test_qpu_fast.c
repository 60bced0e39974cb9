/* test_qpu_fast.c — the fast interpreter against the reference interpreter.
 *
 * Thousands of random programs (random valid ALU, load-immediate and branch
 * words over registers, accumulators, uniforms, small immediates, rotations,
 * packs, unpacks, conditions, flags and SFU writes, and moves, which the
 * fast interpreter writes back from their operand; data rich in ±0,
 * denormals, infinities, NaN patterns and rounding boundaries) run through
 * both interpreters; every register, flag and counter must agree bit for
 * bit, under both rounding modes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/qpu.h"
#include "isa/qpu/table.h"
#include "isa/qpu/pred.h"
#include "isa/qpu/qpu.h"
#include "isa/uop/jit.h"
#include "v3d/v3d.h"

#define PROG_LEN 48
#define NUNIF 256

typedef struct rng { uint64_t s; } rng;
static uint32_t next(rng *r) {
  r->s = r->s * 6364136223846793005u + 1442695040888963407u;
  return (uint32_t)(r->s >> 32);
}
static uint32_t pick(rng *r, uint32_t n) { return next(r) % n; }

static uint32_t qf_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static const uint32_t special_values[] = {
    0x00000000, 0x80000000, 0x00000001, 0x807fffff, 0x00800000, 0x80800000, 0x3f800000,
    0xbf800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f7fffff, 0xff7fffff,
    0x4b000000, 0x4b800001, 0x33800000, 0x3f800001, 0x7fffffff, 0x80000001, 0x000000ff,
    0x0000ffff, 0xffffffff, 0x12345678, 0x3effffff, 0x3f000001, 0x4f000000, 0xcf000000};

/* A float for the colour pack: in [-0.25, 1.25], or next to one of the
 * pack's steps (k + 1/2) / 255 (0.5, a tie, among them), give or take an
 * ulp. */
static uint32_t colour_value(rng *r) {
  if (pick(r, 2)) return qf_bits((float)((int)pick(r, 1501) - 250) / 1000.0f);
  uint32_t x = qf_bits(((float)pick(r, 255) + 0.5f) / 255.0f);
  return x + pick(r, 3) - 1;
}

static uint32_t random_value(rng *r) {
  unsigned k = pick(r, 8);
  if (k < 4) return special_values[pick(r, sizeof special_values / sizeof special_values[0])];
  if (k < 6) return colour_value(r);
  return next(r);
}

/* A random waddr: registers, accumulators, r5, host_int, SFU, or none. */
static unsigned random_waddr(rng *r) {
  static const unsigned io[] = {QPU_W_ACC5, QPU_W_HOST_INT, QPU_W_NOP, QPU_W_SFU_RECIP,
                                QPU_W_SFU_RECIPSQRT, QPU_W_SFU_EXP, QPU_W_SFU_LOG};
  unsigned k = pick(r, 10);
  if (k < 4) return pick(r, 32);
  if (k < 8) return QPU_W_ACC0 + pick(r, 4);
  return io[pick(r, sizeof io / sizeof io[0])];
}

static unsigned random_raddr(rng *r) {
  unsigned k = pick(r, 8);
  if (k < 5) return pick(r, 32);
  if (k == 5) return QPU_R_UNIF;
  if (k == 6) return QPU_R_ELEM_QPU;
  return QPU_R_NOP;
}

static uint64_t random_alu(rng *r) {
  uint64_t w = 0;
  /* the signals that do nothing here (thrsw, lthrsw, sbwait, sbdone) now
   * and then, and rarely loadc (an error outside a fragment shader) */
  static const unsigned sigs[] = {QPU_SIG_THRSW, QPU_SIG_LTHRSW, QPU_SIG_SBWAIT, QPU_SIG_SBDONE, QPU_SIG_THRSW,
                                  QPU_SIG_LTHRSW, QPU_SIG_SBWAIT, QPU_SIG_SBDONE, QPU_SIG_LOADC};
  unsigned k = pick(r, 24);
  unsigned sig = k < 8 ? QPU_SIG_SMALL_IMM : k < 9 ? sigs[pick(r, 9)] : QPU_SIG_NONE;
  unsigned op_add;
  do op_add = pick(r, 32);
  while (qpu_add_ops[op_add].name[0] == '\0');
  w = qpu_set(w, QPU_F_SIG, sig);
  w = qpu_set(w, QPU_F_OP_ADD, op_add);
  w = qpu_set(w, QPU_F_OP_MUL, pick(r, 8));
  w = qpu_set(w, QPU_F_COND_ADD, pick(r, 3) ? 1 : pick(r, 8));
  w = qpu_set(w, QPU_F_COND_MUL, pick(r, 3) ? 1 : pick(r, 8));
  w = qpu_set(w, QPU_F_SF, pick(r, 4) == 0);
  w = qpu_set(w, QPU_F_WS, pick(r, 2));
  w = qpu_set(w, QPU_F_WADDR_ADD, random_waddr(r));
  w = qpu_set(w, QPU_F_WADDR_MUL, random_waddr(r));
  w = qpu_set(w, QPU_F_RADDR_A, random_raddr(r));
  w = qpu_set(w, QPU_F_RADDR_B, sig == QPU_SIG_SMALL_IMM ? pick(r, 64) : random_raddr(r));
  w = qpu_set(w, QPU_F_ADD_A, pick(r, 8));
  w = qpu_set(w, QPU_F_ADD_B, pick(r, 8));
  w = qpu_set(w, QPU_F_MUL_A, pick(r, 8));
  w = qpu_set(w, QPU_F_MUL_B, pick(r, 8));
  if (pick(r, 4) == 0) {
    unsigned pm = pick(r, 2);
    w = qpu_set(w, QPU_F_PM, pm);
    w = qpu_set(w, QPU_F_UNPACK, pick(r, 8));
    w = qpu_set(w, QPU_F_PACK, pm ? (pick(r, 2) ? 0 : 3 + pick(r, 5)) : pick(r, 16));
  }
  return w;
}

/* A move: an ADD or/and/min/max or a MUL v8min/v8max with both operands
 * from one mux, often beside a nop, which the fast interpreter writes back
 * straight from the operand; any destination, condition, flags, pack. */
static uint64_t random_mov(rng *r) {
  static const unsigned add_movs[] = {QPU_A_OR, QPU_A_AND, QPU_A_MIN, QPU_A_MAX};
  static const unsigned mul_movs[] = {QPU_M_V8MIN, QPU_M_V8MAX};
  uint64_t w = random_alu(r);
  unsigned k = pick(r, 4); /* 0: ADD alone, 1: MUL alone, 2: ADD mov beside a MUL op, 3: both movs */
  if (k != 1) {
    unsigned mux = pick(r, 8);
    w = qpu_set(w, QPU_F_OP_ADD, add_movs[pick(r, 4)]);
    w = qpu_set(qpu_set(w, QPU_F_ADD_A, mux), QPU_F_ADD_B, mux);
  }
  if (k == 1 || k == 3) {
    unsigned mux = pick(r, 8);
    w = qpu_set(w, QPU_F_OP_MUL, mul_movs[pick(r, 2)]);
    w = qpu_set(qpu_set(w, QPU_F_MUL_A, mux), QPU_F_MUL_B, mux);
  }
  if (k == 0) w = qpu_set(w, QPU_F_OP_MUL, QPU_M_NOP);
  if (k == 1) w = qpu_set(w, QPU_F_OP_ADD, QPU_A_NOP);
  /* a nop's destination goes to the reference: keep the word fast */
  if (k == 0) w = qpu_set(w, QPU_F_WADDR_MUL, QPU_W_NOP);
  if (k == 1) w = qpu_set(w, QPU_F_WADDR_ADD, QPU_W_NOP);
  return w;
}

/* The MUL unit's colour pack (pm=1, .8888 and .8a-.8d) of any MUL op, a
 * move (raw bits: NaN patterns reach the pack) one time in three, to an
 * accumulator, a register, r5 or nowhere, under any condition, with the
 * ADD writing the same accumulator half the time. */
static uint64_t random_colour_pack(rng *r) {
  static const unsigned dests[] = {QPU_W_ACC0, QPU_W_ACC1, QPU_W_ACC2, QPU_W_ACC3, QPU_W_ACC5, QPU_W_NOP};
  uint64_t w = random_alu(r);
  unsigned mux = pick(r, 8), waddr = pick(r, 4) ? dests[pick(r, 6)] : pick(r, 32);
  w = qpu_set(w, QPU_F_PM, 1);
  w = qpu_set(w, QPU_F_PACK, 3 + pick(r, 5));
  w = qpu_set(w, QPU_F_UNPACK, pick(r, 4) ? 0 : pick(r, 8));
  w = qpu_set(w, QPU_F_OP_MUL, 1 + pick(r, 7));
  if (pick(r, 3) == 0) w = qpu_set(qpu_set(qpu_set(w, QPU_F_OP_MUL, QPU_M_V8MIN), QPU_F_MUL_A, mux), QPU_F_MUL_B, mux);
  w = qpu_set(w, QPU_F_WADDR_MUL, waddr);
  if (qpu_waddr_is_acc(waddr) && pick(r, 2)) w = qpu_set(w, QPU_F_WADDR_ADD, waddr);
  return w;
}

static uint64_t random_ldi(rng *r) {
  static const unsigned types[] = {QPU_LDI_32, QPU_LDI_PES, QPU_LDI_PEU};
  uint64_t w = qpu_set(0, QPU_F_SIG, QPU_SIG_LOAD_IMM);
  w = qpu_set(w, QPU_F_LDI_TYPE, types[pick(r, 3)]);
  w = qpu_set(w, QPU_F_COND_ADD, pick(r, 3) ? 1 : pick(r, 8));
  w = qpu_set(w, QPU_F_COND_MUL, pick(r, 2) ? 0 : pick(r, 8));
  w = qpu_set(w, QPU_F_SF, pick(r, 5) == 0);
  w = qpu_set(w, QPU_F_WS, pick(r, 2));
  w = qpu_set(w, QPU_F_WADDR_ADD, random_waddr(r));
  w = qpu_set(w, QPU_F_WADDR_MUL, random_waddr(r));
  if (pick(r, 5) == 0) {
    unsigned pm = pick(r, 2);
    w = qpu_set(w, QPU_F_PM, pm);
    w = qpu_set(w, QPU_F_PACK, pm ? 3 + pick(r, 5) : pick(r, 16));
  }
  return qpu_set(w, QPU_F_IMM, random_value(r));
}

/* A forward branch at index i to a target inside the program. */
static uint64_t random_branch(rng *r, unsigned i, unsigned len) {
  uint64_t w = qpu_set(0, QPU_F_SIG, QPU_SIG_BRANCH);
  unsigned cond;
  do cond = pick(r, 16);
  while (qpu_branch_cond_names[cond][0] == '\0');
  unsigned target = i + 4 + pick(r, len - i - 4);
  w = qpu_set(w, QPU_F_COND_BR, cond);
  w = qpu_set(w, QPU_F_REL, 1);
  w = qpu_set(w, QPU_F_RADDR_A_BR, pick(r, 32));
  w = qpu_set(w, QPU_F_WS, pick(r, 2));
  w = qpu_set(w, QPU_F_WADDR_ADD, pick(r, 2) ? QPU_W_NOP : random_waddr(r));
  w = qpu_set(w, QPU_F_WADDR_MUL, QPU_W_NOP);
  return qpu_set(w, QPU_F_IMM, (uint32_t)(8 * (int)target - (8 * (int)i + 32)));
}

/* Builds a random program of PROG_LEN words ending in thrend + 2 nops. */
static void random_program(rng *r, uint64_t *w) {
  unsigned body = PROG_LEN - 3, last_branch = 0;
  for (unsigned i = 0; i < body; i++) {
    unsigned k = pick(r, 16);
    if (k == 0 && i + 8 < body && (last_branch == 0 || i > last_branch + 4)) {
      w[i] = random_branch(r, i, body);
      last_branch = i;
    } else if (k < 4) {
      w[i] = random_ldi(r);
    } else if (k < 7) {
      w[i] = random_mov(r);
    } else if (k < 9) {
      w[i] = random_colour_pack(r);
    } else {
      w[i] = random_alu(r);
    }
    assert_null(qpu_invalid_reason(w[i]));
  }
  w[body] = qpu_set(QPU_NOP_WORD, QPU_F_SIG, QPU_SIG_THREND);
  w[body + 1] = QPU_NOP_WORD;
  w[body + 2] = QPU_NOP_WORD;
}

/* Runs the program with interpreter interp; returns the run's result code. */
static int run_one(gs_gpu *g, int interp, int rounding, gs_qpu_status *st) {
  gs_gpu_config_of(g)->interpreter = interp;
  gs_gpu_config_of(g)->rounding = rounding;
  gs_qpu_program p = {GS_MEM_BASE, GS_MEM_BASE + 8 * PROG_LEN};
  return gs_qpu_run_user(g, &p, 1, st);
}

static gs_gpu *gpu_with(const uint64_t *w, const uint32_t *unif) {
  /* a small memory: sanitizers pay for every byte a context reserves */
  gs_gpu_config cfg = {.mem_limit = 64 * 1024};
  gs_gpu *g = gs_gpu_new(&cfg);
  gs_addr code, u;
  assert_non_null(g);
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), 8 * PROG_LEN, 8, &code, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), 4 * NUNIF, 4, &u, NULL), GS_OK);
  assert_int_equal(code, GS_MEM_BASE);
  assert_int_equal(u, GS_MEM_BASE + 8 * PROG_LEN);
  gs_mem_write(gs_gpu_mem(g), code, w, 8 * PROG_LEN, NULL);
  gs_mem_write(gs_gpu_mem(g), u, unif, 4 * NUNIF, NULL);
  return g;
}

static void compare_states(const gs_qpu *a, const gs_qpu *b, unsigned seed) {
  char where[64];
  snprintf(where, sizeof where, "seed %u", seed);
  for (int s = 0; s < QREG_READ_A; s++)
    for (int i = 0; i < QPU_LANES; i++)
      if (a->reg[s].u[i] != b->reg[s].u[i])
        fail_msg("%s: slot %d lane %d: fast 0x%08x reference 0x%08x", where, s, i, a->reg[s].u[i],
                 b->reg[s].u[i]);
  if (a->zf != b->zf || a->nf != b->nf || a->cf != b->cf)
    fail_msg("%s: flags differ: fast z%04x n%04x c%04x, reference z%04x n%04x c%04x", where, a->zf, a->nf,
             a->cf, b->zf, b->nf, b->cf);
  assert_int_equal(a->unif_addr, b->unif_addr);
  assert_int_equal(a->host_interrupt, b->host_interrupt);
}

static void random_programs_agree(int rounding, unsigned nprogs) {
  for (unsigned seed = 1; seed <= nprogs; seed++) {
    rng r = {seed * 2654435761u + (unsigned)rounding};
    uint64_t w[PROG_LEN];
    uint32_t unif[NUNIF];
    random_program(&r, w);
    for (int i = 0; i < NUNIF; i++) unif[i] = random_value(&r);
    gs_gpu *gf = gpu_with(w, unif), *gr = gpu_with(w, unif);
    gs_qpu_status sf, sr;
    int rf = run_one(gf, GS_INTERP_FAST, rounding, &sf);
    int rr = run_one(gr, GS_INTERP_REFERENCE, rounding, &sr);
    if (rf != rr) fail_msg("seed %u: fast %d (%s) reference %d (%s)", seed, rf, gs_gpu_error(gf), rr, gs_gpu_error(gr));
    if (rr == GS_OK) {
      assert_int_equal(sf.instructions, sr.instructions);
      compare_states(qpu_cluster_of(gf)->qpu[0], qpu_cluster_of(gr)->qpu[0], seed);
    } else {
      assert_string_equal(gs_gpu_error(gf), gs_gpu_error(gr));
    }
    gs_gpu_free(gf);
    gs_gpu_free(gr);
  }
}

static void test_random_programs_toward_zero(void **state) {
  (void)state;
  random_programs_agree(GS_ROUND_TOWARD_ZERO, 12000);
}

static void test_random_programs_nearest_even(void **state) {
  (void)state;
  random_programs_agree(GS_ROUND_NEAREST_EVEN, 4000);
}

/* The same programs through native code (src/isa/uop/jit.h, compiled at
 * each program's first run) against the reference; skipped in a build
 * without it (GS_JIT=OFF). */
static void test_random_programs_native(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  gs_jit_policy(1, 1);
  random_programs_agree(GS_ROUND_TOWARD_ZERO, 48);
  random_programs_agree(GS_ROUND_NEAREST_EVEN, 16);
  gs_jit_policy(0, 0);
}

/* Code changed in memory after a run is prepared again, not served stale. */
static void test_cache_notices_changed_code(void **state) {
  (void)state;
  uint64_t w[PROG_LEN];
  uint32_t unif[NUNIF] = {0};
  for (int i = 0; i < PROG_LEN; i++) w[i] = QPU_NOP_WORD;
  w[0] = qpu_set(qpu_set(qpu_set(qpu_set(0, QPU_F_SIG, QPU_SIG_LOAD_IMM), QPU_F_COND_ADD, 1),
                          QPU_F_WADDR_ADD, QPU_W_ACC0), QPU_F_IMM, 111);
  w[1] = qpu_set(QPU_NOP_WORD, QPU_F_SIG, QPU_SIG_THREND);
  gs_gpu *g = gpu_with(w, unif);
  gs_qpu_status st;
  assert_int_equal(run_one(g, GS_INTERP_FAST, 0, &st), GS_OK);
  assert_int_equal(qpu_cluster_of(g)->qpu[0]->reg[QREG_R0].u[5], 111);
  w[0] = qpu_set(w[0], QPU_F_IMM, 222);
  gs_mem_write(gs_gpu_mem(g), GS_MEM_BASE, w, 8, NULL);
  assert_int_equal(run_one(g, GS_INTERP_FAST, 0, &st), GS_OK);
  assert_int_equal(qpu_cluster_of(g)->qpu[0]->reg[QREG_R0].u[5], 222);
  gs_gpu_free(g);
}

/* A tile-buffer write outside a fragment shader fails with the same
 * message on both interpreters when a lane's condition passes, and does
 * nothing when none does. */
static void test_tlb_write_outside_fragment_shader(void **state) {
  (void)state;
  for (unsigned cond = 1; cond <= 2; cond++) { /* always; zs, with every Z flag clear */
    uint64_t w[PROG_LEN];
    uint32_t unif[NUNIF] = {0};
    for (int i = 0; i < PROG_LEN; i++) w[i] = QPU_NOP_WORD;
    w[0] = qpu_set(qpu_set(qpu_set(QPU_NOP_WORD, QPU_F_OP_ADD, QPU_A_OR), QPU_F_COND_ADD, cond),
                   QPU_F_WADDR_ADD, QPU_W_TLB_Z);
    w[1] = qpu_set(QPU_NOP_WORD, QPU_F_SIG, QPU_SIG_THREND);
    gs_gpu *gf = gpu_with(w, unif), *gr = gpu_with(w, unif);
    gs_qpu_status st;
    int rf = run_one(gf, GS_INTERP_FAST, 0, &st), rr = run_one(gr, GS_INTERP_REFERENCE, 0, &st);
    assert_int_equal(rf, rr);
    if (cond == 1) {
      assert_int_equal(rr, GS_EINVAL);
      assert_string_equal(gs_gpu_error(gf), gs_gpu_error(gr));
      assert_non_null(strstr(gs_gpu_error(gf), "only reachable from fragment shaders"));
    } else {
      assert_int_equal(rr, GS_OK);
    }
    gs_gpu_free(gf);
    gs_gpu_free(gr);
  }
}

/* The MUL unit's colour pack (pm=1) worked by hand: the float read in the
 * no-NaN model (docs/determinism.md: a zero exponent is 0, exponent 255 an
 * infinity of its sign), c = round(f × 255) with halves rounded up, clamped
 * to 0..255; .8a-.8d write byte 0-3 of a register and keep the others,
 * .8888 replicates c, an I/O register (r5rep) gets the packed word with the
 * other bytes 0 (RG "Pack/unpack", table 3). Each value's c below is
 * x × 255 worked out exactly from its bits: 0.5 is 127.5, a tie, so 128;
 * 0.25 is 63.75, so 64; 0x3b008080 is 0.49999997 and 0x3b008081 0.50000003,
 * either side of the first step; 0.99609375 (0x3f7f0000) is 254.0039 and
 * 0x3f7f8000 254.502. Through the reference, the fast interpreter and native
 * code; each case fails when a byte, a kept byte, the condition or the order
 * of the two units' writes is wrong. */
static const char pack_program[] =
    "  mov r0, unif\n"
    "  mov r1, unif\n"
    "  mov r2, r1 ; mov rb5, r1\n"
    "  mov r3, r1 ; mov rb10, r1\n"
    "  sub.setf -, elem_num, 8\n"         /* N in lanes 0-7 */
    "  nop ; mov r1.8a, r0\n"
    "  nop ; mov r2.8c, r0\n"
    "  nop ; mov r3.8888, r0\n"
    "  nop ; mov rb5.8d, r0\n"
    "  nop ; mov.ns rb10.8b, r0\n"
    "  nop ; mov rb7, r1\n"
    "  nop ; mov rb8, r2\n"
    "  nop ; mov rb9, r3\n"
    "  nop ; mov r5rep.8b, r0\n"
    "  mov r3, r0 ; mov r3.8b, r0\n"      /* both units: the ADD's word, the MUL's byte */
    "  fmul r2.8d, r0, 1.0\n"             /* the product, then its pack */
    "  thrend\n  nop\n  nop\n";

static void test_colour_pack_by_hand(void **state) {
  (void)state;
  static const struct { uint32_t x, c; } cases[] = {
      {0x3f000000, 128}, {0x3f800000, 255}, {0x40000000, 255}, {0xbf000000, 0},   {0x00000000, 0},
      {0x80000000, 0},   {0x007fffff, 0},   {0x7f800000, 255}, {0xff800000, 0},   {0x7fc00000, 255},
      {0xffc00001, 0},   {0x3e800000, 64},  {0x3f19999a, 153}, {0x3ecccccd, 102}, {0x3e4ccccd, 51},
      {0x3b000000, 0},   {0x3b008080, 0},   {0x3b008081, 1},   {0x3f7fffff, 255}, {0x3f7f0000, 254},
      {0x3f7f8000, 255}};
  const uint32_t old = 0x11223344;
  uint64_t *code, w[PROG_LEN];
  size_t n;
  gs_diag d;
  if (gs_qpu_asm(pack_program, "pack.s", 0, &code, &n, &d) < 0) fail_msg("%s", d.msg);
  assert_true(n <= PROG_LEN);
  for (size_t i = 0; i < PROG_LEN; i++) w[i] = i < n ? code[i] : QPU_NOP_WORD;
  free(code);
  int native = gs_jit_available();
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    uint32_t x = cases[k].x, c = cases[k].c, unif[NUNIF] = {x, old};
    for (int how = 0; how < 2 + native; how++) {
      if (how == 2) gs_jit_policy(1, 1);
      gs_gpu *g = gpu_with(w, unif);
      gs_qpu_status st;
      assert_int_equal(run_one(g, how ? GS_INTERP_FAST : GS_INTERP_REFERENCE, GS_ROUND_TOWARD_ZERO, &st), GS_OK);
      if (how == 2) gs_jit_policy(0, 0);
      const gs_qpu *q = qpu_cluster_of(g)->qpu[0];
      for (int i = 0; i < QPU_LANES; i++) {
        const struct { int slot; uint32_t want; } want[] = {
            {QREG_RB0 + 7, (old & ~0xffu) | c},                 /* r1.8a */
            {QREG_RB0 + 8, (old & ~0xff0000u) | c << 16},       /* r2.8c */
            {QREG_RB0 + 9, c * 0x01010101u},                    /* r3.8888 */
            {QREG_RB0 + 5, (old & ~0xff000000u) | c << 24},     /* rb5.8d */
            {QREG_RB0 + 10, i < 8 ? (old & ~0xff00u) | c << 8 : old}, /* mov.ns rb10.8b */
            {QREG_R5, c << 8},                                  /* r5rep.8b: the other bytes 0 */
            {QREG_R0 + 3, (x & ~0xff00u) | c << 8},                 /* mov r3, r0 ; mov r3.8b, r0 */
            {QREG_R0 + 2, (((old & ~0xff0000u) | c << 16) & 0x00ffffffu) | c << 24}, /* fmul r2.8d */
        };
        for (size_t j = 0; j < sizeof want / sizeof want[0]; j++)
          if (q->reg[want[j].slot].u[i] != want[j].want)
            fail_msg("x 0x%08x, %s, slot %d lane %d: 0x%08x, want 0x%08x", x,
                     how == 0 ? "reference" : how == 1 ? "fast" : "native", want[j].slot, i,
                     q->reg[want[j].slot].u[i], want[j].want);
      }
      gs_gpu_free(g);
    }
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_programs_toward_zero),
      cmocka_unit_test(test_random_programs_nearest_even),
      cmocka_unit_test(test_random_programs_native),
      cmocka_unit_test(test_colour_pack_by_hand),
      cmocka_unit_test(test_cache_notices_changed_code),
      cmocka_unit_test(test_tlb_write_outside_fragment_shader),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
