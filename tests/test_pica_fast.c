/* test_pica_fast.c — the PICA200 batch interpreter (pica_run_batch,
 * src/isa/pica/exec.h) against the reference, and by hand.
 *
 * The rule exec.h states: lane k of a batch ends exactly as pica_run_ref
 * leaves a pica_state made of the shared uniforms and mode and lane k's
 * registers, flags and step count, and the error returned is the lowest
 * failing lane's, the reference's message with the lane named. The random
 * test builds each lane's pica_state and the batch from the same values
 * (copied here field by field, not through pica_batch_get/set), runs the
 * reference per lane and the batch once, and compares every output,
 * written mask, temporary, input, a0, aL, cmp flag and step count bit for
 * bit, and the lanes past the batch's count untouched. Programs: every ALU
 * operation (MAD/MADI and the inverted forms included), sources with
 * random swizzles, negation and relative addressing, CMP, structured
 * IF/ELSE, LOOP, CALL, BREAK(C) and forward jumps on both the cmp flags
 * and the bool uniforms, and a share of programs whose flow targets are
 * anywhere (pcs past the end, stale stacks, endless loops the budget
 * ends); values: NaN, infinities, signed zeros, binary32 subnormals,
 * float24 subnormals, values at float24's overflow and underflow edges,
 * random float24 and random bits; both numeric modes.
 *
 * The hand cases work out a divergent IFC with its else block, a BREAKC
 * leaving a loop after a different pass in each lane, a CALLC and a JMPC
 * taken by some lanes, a BREAKC outside a loop in two lanes (the error
 * names the lower), and relative addressing per lane through a0.x and aL.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "isa/pica/exec.h"

#define XYZW 0x1B
#define ONE 0x3f800000u
#define R(n) (PICA_REG_R + (n))
#define C(n) (PICA_REG_C + (n))

static uint32_t fbits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* ---- random programs ------------------------------------------------------------ */

static uint64_t rs;
static uint32_t rnd(void) {
  rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
  return (uint32_t)(rs >> 16);
}
static unsigned below(unsigned n) { return rnd() % n; }

static uint32_t rval(void) {
  static const uint32_t special[] = {
      0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u,
      0x00000001u, 0x807fffffu, 0x1c800000u /* 2^-70, an f24 subnormal */, 0x20800000u /* 2^-62 */,
      0x20000000u /* 2^-63 */, 0x5f800000u /* 2^64 */, 0x5f7fffffu, 0xdf800000u, 0x3f800000u,
      0xbf800000u, 0x42fffe00u, 0x43000000u, 0x4f000000u /* 2^31 */, 0xcf000001u};
  switch (below(10)) {
    case 0: return fbits((float)((int)below(9) - 4));
    case 1: return fbits((float)((int)below(4001) - 2000) / 256.0f);
    case 2: case 3: return special[below(sizeof special / sizeof special[0])];
    case 4: return rnd() ^ (rnd() << 16);
    default: {
      uint32_t e = 63 + below(13) - 6, s = below(2), mant = below(65536);
      return pica_f24_to_f32((s << 23) | (e << 16) | mant);
    }
  }
}

enum { MAXN = 200 };
static pica_insn code[MAXN];
static size_t ncode;
static int nsub;
static int chaos; /* flow targets anywhere */

static pica_insn *emit(unsigned op) {
  pica_insn *i = &code[ncode++];
  memset(i, 0, sizeof *i);
  i->op = (uint8_t)op;
  return i;
}

static pica_src rsrc(int wide) {
  pica_src s;
  s.reg = (uint8_t)(wide ? below(0x80) : below(0x20));
  s.idx = (uint8_t)(wide && below(2) ? below(4) : 0);
  s.neg = (uint8_t)below(2);
  s.swz = (uint8_t)(below(3) ? rnd() & 0xff : XYZW);
  return s;
}

static void alu(void) {
  static const uint8_t ops[] = {PICA_ADD, PICA_DP3, PICA_DP4, PICA_DPH, PICA_DST, PICA_EX2, PICA_LG2,
                                PICA_LITP, PICA_MUL, PICA_SGE, PICA_SLT, PICA_FLR, PICA_MAX, PICA_MIN,
                                PICA_RCP, PICA_RSQ, PICA_MOVA, PICA_MOV, PICA_DPHI, PICA_DSTI, PICA_SGEI,
                                PICA_SLTI, PICA_MAD, PICA_MADI, PICA_CMP, PICA_MOV, PICA_ADD, PICA_MUL};
  unsigned op = ops[below(sizeof ops)];
  pica_insn *i = emit(op);
  unsigned n = 2, wide = 0;
  switch (op) {
    case PICA_EX2: case PICA_LG2: case PICA_LITP: case PICA_FLR: case PICA_RCP: case PICA_RSQ: case PICA_MOVA:
    case PICA_MOV: n = 1; break;
    case PICA_DPHI: case PICA_DSTI: case PICA_SGEI: case PICA_SLTI: wide = 1; break;
    case PICA_MAD: n = 3, wide = 1; break;
    case PICA_MADI: n = 3, wide = 2; break;
    default: break;
  }
  i->nsrc = (uint8_t)n;
  for (unsigned k = 0; k < n; k++) i->src[k] = rsrc(k == wide);
  i->dst = (uint8_t)below(0x20);
  i->mask = (uint8_t)(below(3) ? below(16) : 0xF);
  i->cmpx = (uint8_t)below(6), i->cmpy = (uint8_t)below(6);
}

static void cond(pica_insn *i) {
  i->condop = (uint8_t)below(4), i->refx = (uint8_t)below(2), i->refy = (uint8_t)below(2);
}

typedef struct fix { size_t at; int sub; } fix;
static fix fixes[64];
static int nfix;

static void block(int depth, int in_loop, int sub);

/* One item of a block. */
static void item(int depth, int in_loop, int sub) {
  if (ncode > MAXN - 40) {
    alu();
    return;
  }
  unsigned k = below(100);
  if (k < 50 || depth > 5) {
    alu();
  } else if (k < 60) {
    pica_insn *i = emit(PICA_CMP);
    i->src[0] = rsrc(1), i->src[1] = rsrc(0);
    i->cmpx = (uint8_t)below(6), i->cmpy = (uint8_t)below(6);
  } else if (k < 70) { /* IFC / IFU with an else block */
    size_t at = ncode;
    pica_insn *i = emit(below(3) ? PICA_IFC : PICA_IFU);
    cond(i), i->uid = (uint8_t)below(16);
    block(depth + 1, in_loop, sub);
    size_t els = ncode;
    if (below(2)) block(depth + 1, in_loop, sub);
    code[at].target = (uint16_t)els, code[at].num = (uint8_t)(ncode - els);
  } else if (k < 78) { /* LOOP */
    size_t at = ncode;
    pica_insn *i = emit(PICA_LOOP);
    i->uid = (uint8_t)below(4);
    block(depth + 1, 1, sub);
    code[at].target = (uint16_t)(ncode - 1);
  } else if (k < 84 && in_loop) {
    pica_insn *i = emit(below(5) ? PICA_BREAKC : PICA_BREAK);
    cond(i);
  } else if (k < 90 && sub + 1 < nsub && nfix < 64) { /* a call to a later subroutine */
    pica_insn *i = emit(below(3) == 0 ? PICA_CALL : below(2) ? PICA_CALLC : PICA_CALLU);
    cond(i), i->uid = (uint8_t)below(16);
    fixes[nfix++] = (fix){ncode - 1, sub + 1 + (int)below((unsigned)(nsub - sub - 1))};
  } else if (k < 96) { /* a forward jump over the next items */
    size_t at = ncode;
    pica_insn *i = emit(below(2) ? PICA_JMPC : PICA_JMPU);
    cond(i), i->uid = (uint8_t)below(16), i->num = (uint8_t)below(2);
    for (unsigned n = below(3); n; n--) item(depth + 1, in_loop, sub);
    code[at].target = (uint16_t)ncode;
  } else if (k < 97) {
    emit(below(4) ? PICA_NOP : below(2) ? PICA_EMIT : PICA_SETEMIT); /* the last two are refused */
  } else if (k < 98 && !below(3)) {
    emit(PICA_END);
  } else if (k < 99 && !below(4)) {
    emit(PICA_BREAK); /* outside a loop: the GPU hangs */
  } else {
    emit(PICA_NOP);
  }
}

static void block(int depth, int in_loop, int sub) {
  for (unsigned n = 1 + below(depth ? 4 : 8); n; n--) item(depth, in_loop, sub);
}

static void gen_program(void) {
  ncode = 0, nfix = 0;
  /* one program in eight ends each subroutine with a call to the next, so
   * that up to five returns fall on one word */
  int chain = below(8) == 0;
  nsub = chain ? 5 : (int)below(4);
  chaos = below(8) == 0;
  size_t starts[6];
  if (chain) {
    emit(PICA_CALL);
    fixes[nfix++] = (fix){ncode - 1, 0};
  }
  block(0, 0, -1);
  emit(PICA_END);
  for (int s = 0; s < nsub; s++) {
    starts[s] = ncode;
    block(1, 0, s);
    if (chain && s + 1 < nsub) {
      emit(PICA_CALL);
      fixes[nfix++] = (fix){ncode - 1, s + 1};
    }
  }
  for (int k = 0; k < nfix; k++) {
    int s = fixes[k].sub;
    size_t len = (s + 1 < nsub ? starts[s + 1] : ncode) - starts[s];
    code[fixes[k].at].target = (uint16_t)starts[s], code[fixes[k].at].num = (uint8_t)len;
  }
  if (chaos)
    for (size_t k = 0; k < ncode; k++)
      if (code[k].op >= PICA_BREAK && code[k].op < PICA_CMP && below(2))
        code[k].target = (uint16_t)below((unsigned)ncode + 3), code[k].num = (uint8_t)below(6);
}

/* ---- the comparison ------------------------------------------------------------- */

static pica_state lanes_ref[PICA_LANES];
static pica_batch batch, before;
static uint64_t steps0[PICA_LANES];                 /* each lane's count before the run */
static unsigned long long total_steps, errors_seen; /* over the random programs */

static void random_state(pica_state *s, const pica_state *shared) {
  if (shared) {
    *s = *shared;
  } else {
    memset(s, 0, sizeof *s);
    for (int k = 0; k < 96; k++)
      for (int c = 0; c < 4; c++) s->c[k][c] = rval();
    for (int k = 0; k < 4; k++) {
      s->i[k][0] = (uint8_t)below(4), s->i[k][1] = (uint8_t)rnd(), s->i[k][2] = (uint8_t)(below(9) - 4 + (below(8) ? 0 : 100));
      s->i[k][3] = (uint8_t)rnd();
    }
    s->b = (uint16_t)rnd();
  }
  for (int k = 0; k < 16; k++)
    for (int c = 0; c < 4; c++) s->v[k][c] = rval(), s->r[k][c] = rval(), s->o[k][c] = rval();
  for (int k = 0; k < 16; k++) s->written[k] = (uint16_t)below(16);
  static const int32_t addr[] = {0, 1, -1, 5, 40, -40, 127, 128, -128, -129, 1000, INT32_MIN};
  s->a0[0] = below(2) ? (int32_t)below(200) - 100 : addr[below(12)];
  s->a0[1] = below(2) ? (int32_t)below(200) - 100 : addr[below(12)];
  s->al = below(2) ? (int32_t)below(300) - 50 : addr[below(12)];
  s->cmp[0] = (int)below(2), s->cmp[1] = (int)below(2);
  s->steps = below(4) ? 0 : below(60);
}

static void to_batch(pica_batch *b, unsigned l, const pica_state *s) {
  for (int k = 0; k < 16; k++) {
    for (int c = 0; c < 4; c++) b->v[k][c][l] = s->v[k][c], b->r[k][c][l] = s->r[k][c], b->o[k][c][l] = s->o[k][c];
    b->written[k][l] = s->written[k];
  }
  b->a0[0][l] = s->a0[0], b->a0[1][l] = s->a0[1], b->al[l] = s->al;
  b->cmp[0][l] = (uint8_t)s->cmp[0], b->cmp[1][l] = (uint8_t)s->cmp[1];
  b->steps[l] = s->steps;
}

/* Lane l of b equals s; prints the first difference. */
static int lane_equal(const pica_batch *b, unsigned l, const pica_state *s) {
  for (int k = 0; k < 16; k++) {
    for (int c = 0; c < 4; c++) {
      if (b->o[k][c][l] != s->o[k][c]) return printf("lane %u: o%d[%d] %08x, reference %08x\n", l, k, c, b->o[k][c][l], s->o[k][c]), 0;
      if (b->r[k][c][l] != s->r[k][c]) return printf("lane %u: r%d[%d] %08x, reference %08x\n", l, k, c, b->r[k][c][l], s->r[k][c]), 0;
      if (b->v[k][c][l] != s->v[k][c]) return printf("lane %u: v%d[%d] changed\n", l, k, c), 0;
    }
    if (b->written[k][l] != s->written[k])
      return printf("lane %u: written o%d %x, reference %x\n", l, k, b->written[k][l], s->written[k]), 0;
  }
  if (b->a0[0][l] != s->a0[0] || b->a0[1][l] != s->a0[1])
    return printf("lane %u: a0 (%d, %d), reference (%d, %d)\n", l, b->a0[0][l], b->a0[1][l], s->a0[0], s->a0[1]), 0;
  if (b->al[l] != s->al) return printf("lane %u: aL %d, reference %d\n", l, b->al[l], s->al), 0;
  if (!b->cmp[0][l] != !s->cmp[0] || !b->cmp[1][l] != !s->cmp[1]) return printf("lane %u: cmp differ\n", l), 0;
  if (b->steps[l] != s->steps)
    return printf("lane %u: %llu steps, reference %llu\n", l, (unsigned long long)b->steps[l],
                  (unsigned long long)s->steps), 0;
  return 1;
}

static void dump_program(void) {
  for (size_t k = 0; k < ncode; k++) {
    char t[128];
    pica_format_insn(&code[k], t, sizeof t);
    printf("  %03zx: %s\n", k, t);
  }
}

/* One program on one batch: returns 1 when every lane agrees. */
static int compare_once(pica_num_mode mode, unsigned nl, uint64_t budget, uint32_t entry) {
  pica_state shared;
  random_state(&shared, NULL);
  shared.mode = mode;
  memset(&batch, 0, sizeof batch);
  batch.mode = mode, batch.lanes = nl;
  memcpy(batch.c, shared.c, sizeof batch.c), memcpy(batch.i, shared.i, sizeof batch.i), batch.b = shared.b;
  for (unsigned l = 0; l < PICA_LANES; l++) {
    random_state(&lanes_ref[l], &shared);
    to_batch(&batch, l, &lanes_ref[l]);
  }
  before = batch;
  memcpy(steps0, batch.steps, sizeof steps0);
  pica_program p = {code, ncode};
  int want = 0;
  char want_msg[GS_DIAG_MAX + 64] = "";
  for (unsigned l = 0; l < nl; l++) {
    gs_diag e = {0};
    int rc = pica_run_ref(&lanes_ref[l], &p, entry, budget, &e);
    if (rc && !want) {
      want = rc;
      assert_true(strncmp(e.msg, "PICA200 shader: ", 16) == 0);
      snprintf(want_msg, sizeof want_msg, "PICA200 shader, lane %u: %s", l, e.msg + 16);
    }
  }
  pica_fast *f = NULL;
  gs_diag d = {0};
  assert_int_equal(pica_fast_compile(&p, &f, &d), 0);
  int rc = pica_run_batch(&batch, f, entry, budget, &d);
  pica_fast_free(f);
  if (rc) errors_seen++;
  for (unsigned l = 0; l < nl; l++) total_steps += batch.steps[l] - steps0[l];
  int ok = rc == want && (!want || strcmp(d.msg, want_msg) == 0);
  if (!ok) printf("result %d \"%s\", reference %d \"%s\"\n", rc, rc ? d.msg : "", want, want_msg);
  for (unsigned l = 0; ok && l < nl; l++) ok = lane_equal(&batch, l, &lanes_ref[l]);
  if (ok) {
    /* lanes past the count untouched */
    for (unsigned l = nl; l < PICA_LANES; l++) to_batch(&before, l, &lanes_ref[l]);
    for (unsigned l = 0; l < nl; l++) to_batch(&before, l, &lanes_ref[l]);
    ok = memcmp(&before, &batch, sizeof batch) == 0;
    if (!ok) printf("bytes outside the lanes' state changed\n");
  }
  if (!ok) {
    printf("mode %d, %u lanes, budget %llu, entry %u, program:\n", mode, nl, (unsigned long long)budget, entry);
    dump_program();
  }
  return ok;
}

static void test_random_programs(void **state) {
  (void)state;
  rs = 0x9e3779b97f4a7c15ull;
  unsigned programs = 4000, diverged = 0, failed = 0;
  for (unsigned t = 0; t < programs; t++) {
    gen_program();
    pica_num_mode mode = t & 1 ? PICA_NUM_F32 : PICA_NUM_F24;
    unsigned nl = below(3) ? 16 : 1 + below(16);
    uint64_t budget = below(6) ? 2000 : 5 + below(80);
    uint32_t entry = below(20) ? 0 : below((unsigned)ncode + 2);
    int ok = compare_once(mode, nl, budget, entry);
    if (!ok) {
      printf("program %u differs\n", t);
      failed++;
      if (failed > 3) break;
    }
    /* how many had lanes end on different step counts (divergence seen) */
    for (unsigned l = 1; l < nl; l++)
      if (batch.steps[l] - steps0[l] != batch.steps[0] - steps0[0]) {
        diverged++;
        break;
      }
  }
  printf("%u programs, %u with lanes on different paths, %llu errors, %llu instructions per lane on average\n",
         programs, diverged, errors_seen, total_steps / programs / 12);
  assert_int_equal(failed, 0);
  assert_true(diverged > programs / 10);
}

/* ---- by hand ------------------------------------------------------------------- */

static pica_insn op2(unsigned op, unsigned dst, unsigned s1, unsigned s2) {
  pica_insn i;
  memset(&i, 0, sizeof i);
  i.op = (uint8_t)op, i.dst = (uint8_t)dst, i.mask = 0xF;
  i.src[0] = (pica_src){(uint8_t)s1, 0, 0, XYZW};
  i.src[1] = (pica_src){(uint8_t)s2, 0, 0, XYZW};
  return i;
}
static pica_insn fl(unsigned op, unsigned target, unsigned num, unsigned condop, unsigned refx) {
  pica_insn i;
  memset(&i, 0, sizeof i);
  i.op = (uint8_t)op, i.target = (uint16_t)target, i.num = (uint8_t)num, i.condop = (uint8_t)condop;
  i.refx = (uint8_t)refx;
  return i;
}

static void hand_setup(unsigned nl) {
  memset(&batch, 0, sizeof batch);
  batch.lanes = nl;
  batch.mode = PICA_NUM_F24;
  for (int k = 0; k < 96; k++)
    for (int c = 0; c < 4; c++) batch.c[k][c] = fbits((float)k);
}
static int run_hand(const pica_insn *prog, size_t n, gs_diag *d) {
  pica_program p = {prog, n};
  pica_fast *f = NULL;
  assert_int_equal(pica_fast_compile(&p, &f, d), 0);
  int rc = pica_run_batch(&batch, f, 0, 1000, d);
  pica_fast_free(f);
  return rc;
}

/* v0.x = lane; CMP v0.x < c8.x (8); IFC x: then o0 = c1, else o0 = c2;
 * o1 = v0 + c1 in every lane. Lanes 0-7 take the then block, 8-15 the
 * else block; both run 5 instructions (0, 1, 2|3, 4, 5). */
static void test_ifc_divergent(void **state) {
  (void)state;
  hand_setup(16);
  for (int l = 0; l < 16; l++) batch.v[0][0][l] = fbits((float)l);
  pica_insn prog[] = {op2(PICA_CMP, 0, 0, C(8)), fl(PICA_IFC, 3, 1, PICA_COND_X, 1), op2(PICA_MOV, 0, C(1), 0),
                      op2(PICA_MOV, 0, C(2), 0), op2(PICA_ADD, 1, 0, C(1)), fl(PICA_END, 0, 0, 0, 0)};
  prog[0].cmpx = PICA_CMP_LT, prog[0].cmpy = PICA_CMP_EQ;
  gs_diag d;
  assert_int_equal(run_hand(prog, 6, &d), 0);
  for (int l = 0; l < 16; l++) {
    assert_true(batch.o[0][0][l] == fbits(l < 8 ? 1.0f : 2.0f));
    assert_true(batch.o[0][3][l] == fbits(l < 8 ? 1.0f : 2.0f));
    assert_true(batch.o[1][0][l] == fbits((float)l + 1.0f));
    assert_int_equal(batch.written[0][l], 0xF);
    assert_int_equal(batch.written[1][l], 0xF);
    assert_int_equal(batch.steps[l], 5);
    assert_int_equal(batch.cmp[0][l], l < 8);
  }
}

/* LOOP i0 = (15, 0, 1): r0 += 1.0; CMP r0.x >= v0.x; BREAKC x (the body's
 * last word). v0.x = lane, lane 15's 100: lane L leaves after max(1, L)
 * passes (lane 15 after all 16), with r0.x = passes, aL = passes (it steps
 * after the breaking pass too) and 1 + 3 x passes + 2 instructions. */
static void test_breakc_divergent(void **state) {
  (void)state;
  hand_setup(16);
  batch.i[0][0] = 15, batch.i[0][1] = 0, batch.i[0][2] = 1;
  for (int l = 0; l < 16; l++) batch.v[0][0][l] = fbits(l == 15 ? 100.0f : (float)l);
  pica_insn prog[] = {fl(PICA_LOOP, 3, 0, 0, 0), op2(PICA_ADD, R(0), R(0), C(1)), op2(PICA_CMP, 0, R(0), 0),
                      fl(PICA_BREAKC, 0, 0, PICA_COND_X, 1), op2(PICA_MOV, 0, R(0), 0), fl(PICA_END, 0, 0, 0, 0)};
  prog[2].cmpx = PICA_CMP_GE, prog[2].cmpy = PICA_CMP_GE;
  gs_diag d;
  assert_int_equal(run_hand(prog, 6, &d), 0);
  for (int l = 0; l < 16; l++) {
    int passes = l == 15 ? 16 : l < 1 ? 1 : l;
    assert_true(batch.o[0][0][l] == fbits((float)passes));
    assert_int_equal(batch.al[l], passes);
    assert_int_equal(batch.steps[l], 1 + 3 * passes + 2);
  }
}

/* CMP v0.x == c0.x (0); CALLC x to word 5 (one word: o0 = c2, then back to
 * 2); JMPC !x to 4; o1 = c1; END. Lanes with v0.x = 0 (every third) run
 * 0 1 5 2 3 4 and write o0 and o1; the others run 0 1 2 4 and write
 * nothing. */
static void test_callc_jmpc_divergent(void **state) {
  (void)state;
  hand_setup(11);
  for (int l = 0; l < 16; l++) batch.v[0][0][l] = fbits(l % 3 ? 1.0f : 0.0f);
  pica_insn prog[] = {op2(PICA_CMP, 0, 0, C(0)), fl(PICA_CALLC, 5, 1, PICA_COND_X, 1),
                      fl(PICA_JMPC, 4, 0, PICA_COND_X, 0), op2(PICA_MOV, 1, C(1), 0), fl(PICA_END, 0, 0, 0, 0),
                      op2(PICA_MOV, 0, C(2), 0)};
  prog[0].cmpx = PICA_CMP_EQ, prog[0].cmpy = PICA_CMP_EQ;
  gs_diag d;
  assert_int_equal(run_hand(prog, 6, &d), 0);
  for (int l = 0; l < 16; l++) {
    int taken = l % 3 == 0;
    if (l >= 11) { /* past the batch: untouched */
      assert_int_equal(batch.steps[l], 0);
      assert_int_equal(batch.written[0][l], 0);
      continue;
    }
    assert_int_equal(batch.steps[l], taken ? 6 : 4);
    assert_int_equal(batch.written[0][l], taken ? 0xF : 0);
    assert_int_equal(batch.written[1][l], taken ? 0xF : 0);
    assert_true(batch.o[0][1][l] == (taken ? fbits(2.0f) : 0));
    assert_true(batch.o[1][2][l] == (taken ? fbits(1.0f) : 0));
  }
}

/* CMP v0.x == c0.x; BREAKC x outside any loop: lanes 9 and 5 (v0.x = 0)
 * hang after two instructions, the error naming lane 5; the others end
 * after three. */
static void test_error_names_lowest_lane(void **state) {
  (void)state;
  hand_setup(16);
  for (int l = 0; l < 16; l++) batch.v[0][0][l] = fbits(l == 5 || l == 9 ? 0.0f : 3.0f);
  pica_insn prog[] = {op2(PICA_CMP, 0, 0, C(0)), fl(PICA_BREAKC, 0, 0, PICA_COND_X, 1), fl(PICA_END, 0, 0, 0, 0)};
  gs_diag d;
  assert_int_equal(run_hand(prog, 3, &d), GS_EHANG);
  assert_string_equal(d.msg, "PICA200 shader, lane 5: BREAKC at 0x001 outside a loop (the GPU hangs)");
  for (int l = 0; l < 16; l++) assert_int_equal(batch.steps[l], l == 5 || l == 9 ? 2 : 3);
}

/* MOVA a0.x <- v0.x; o0 = c10[a0.x]; o1 = c3[aL]. c_k = (k, k, k, k).
 * a0.x per lane -3, 0, 5, 90, 200, -20: indices 7, 10, 15, 100 (96 and up
 * read 1.0), 10 (200 is outside a signed byte: offset 0), -10 & 127 = 118
 * (1.0). aL per lane 0, 7, -3, 127, 128, -200: indices 3, 10, 0, 130 & 127
 * = 2, 3 (128: offset 0), 3. */
static void test_relative_per_lane(void **state) {
  (void)state;
  hand_setup(6);
  static const float a0[] = {-3, 0, 5, 90, 200, -20};
  static const int32_t al[] = {0, 7, -3, 127, 128, -200};
  static const float o0[] = {7, 10, 15, 1, 10, 1}, o1[] = {3, 10, 0, 2, 3, 3};
  for (int l = 0; l < 6; l++) batch.v[0][0][l] = fbits(a0[l]), batch.al[l] = al[l];
  pica_insn prog[] = {op2(PICA_MOVA, 0, 0, 0), op2(PICA_MOV, 0, C(10), 0), op2(PICA_MOV, 1, C(3), 0),
                      fl(PICA_END, 0, 0, 0, 0)};
  prog[0].mask = 0x8;
  prog[1].src[0].idx = PICA_IDX_A0X;
  prog[2].src[0].idx = PICA_IDX_AL;
  gs_diag d;
  assert_int_equal(run_hand(prog, 4, &d), 0);
  for (int l = 0; l < 6; l++) {
    assert_int_equal(batch.a0[0][l], (int32_t)a0[l]);
    assert_true(batch.o[0][1][l] == fbits(o0[l]));
    assert_true(batch.o[1][2][l] == fbits(o1[l]));
  }
}

/* pica_batch_fill and pica_batch_get: the persistence rule's two halves. */
static void test_fill_get(void **state) {
  (void)state;
  pica_state s, t;
  rs = 12345;
  random_state(&s, NULL);
  s.mode = PICA_NUM_F32;
  s.cmp[0] = 1, s.cmp[1] = 0;
  pica_batch_fill(&batch, &s, 9);
  assert_int_equal(batch.lanes, 9);
  for (unsigned l = 0; l < PICA_LANES; l++) {
    pica_batch_get(&batch, l, &t);
    assert_memory_equal(t.r, s.r, sizeof s.r);
    assert_memory_equal(t.v, s.v, sizeof s.v);
    assert_memory_equal(t.o, s.o, sizeof s.o);
    assert_memory_equal(t.c, s.c, sizeof s.c);
    assert_memory_equal(t.written, s.written, sizeof s.written);
    assert_int_equal(t.al, s.al);
    assert_int_equal(t.a0[0], s.a0[0]);
    assert_int_equal(t.a0[1], s.a0[1]);
    assert_int_equal(t.cmp[0], 1);
    assert_int_equal(t.cmp[1], 0);
    assert_memory_equal(t.i, s.i, sizeof s.i);
    assert_int_equal(t.b, s.b);
    assert_int_equal(t.mode, PICA_NUM_F32);
    assert_int_equal(t.steps, s.steps);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ifc_divergent),          cmocka_unit_test(test_breakc_divergent),
      cmocka_unit_test(test_callc_jmpc_divergent),   cmocka_unit_test(test_error_names_lowest_lane),
      cmocka_unit_test(test_relative_per_lane),      cmocka_unit_test(test_fill_get),
      cmocka_unit_test(test_random_programs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
