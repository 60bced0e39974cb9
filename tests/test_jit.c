/* test_jit.c — native code from the lane micro-op layer (src/isa/uop/jit.h)
 * against the interpreter (gs_uop_run16/32, which test_uop checks against a
 * lane-by-lane reference): random streams of every neutral kind and an
 * escape, over 16 and 32 lanes, compiled once and run in both rounding
 * modes with denormals flushed and kept, registers and masks compared bit
 * for bit; and hand-worked values that only a dynamic rounding mode gives
 * (LLVM folding or rounding to nearest would give the other); and QPUs
 * taking turns (src/isa/qpu/sched.c) in native code against the
 * interpreters. Skipped when the build has no native code (GS_JIT=OFF). */
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include <cmocka.h>
#include "core/fpmode.h"
#include "gpusim/qpu.h"
#include "isa/qpu/qpu.h"
#include "isa/uop/jit.h"
#include "v3d/v3d.h"

#define NREGS 8
#define ONE 0x3f800000u
#define THREEQ_ULP 0x33c00000u /* 1.5 × 2^-24: 1 + it is nearer 1 + 2^-23 than 1 */

#include "uop_random.h"

/* The escape of both runs: kind GS_UOP_ISA adds imm to every lane of d and
 * goes on; GS_UOP_ISA + 1 stops the run with value imm. */
static int lanes_of_escape;
static int escape(void *ctx, gs_uop_machine *m, const gs_uop *u) {
  (void)ctx;
  if (u->kind == GS_UOP_ISA + 1) return (int)u->imm;
  uint32_t *d = (uint32_t *)((char *)m->regs + u->d);
  for (int i = 0; i < lanes_of_escape; i++) d[i] += u->imm;
  return 0;
}
static int jit_escape(void *env, char *R, const gs_uop *u, uint32_t *to) {
  (void)R, (void)to;
  int rc = escape(NULL, env, u);
  return rc ? rc : GS_JIT_NEXT;
}

static gs_jit_desc desc(int n) {
  gs_jit_desc d = {.lanes = n, .mask_bits = 32, .regs_off = -1, .escape = jit_escape, .step_kind = -1};
  d.mask_off[0] = -1;
  for (int k = 1; k < GS_UOP_MASKS; k++) d.mask_off[k] = (int32_t)(offsetof(gs_uop_machine, masks) + 4u * (unsigned)k);
  return d;
}

static int run_native(gs_jit_code *c, gs_uop_machine *m, gs_fp_env env) {
  gs_fp_env saved = gs_fp_env_get();
  gs_fp_env_set(env);
  int rc = gs_jit_entry(c)(m, m->regs, m->consts, m, 0);
  gs_fp_env_set(saved);
  return rc;
}

/* 1 + 0.75 ulp, the int 2^24 + 3 and 3 × (1/3) in both modes: each mode's
 * value worked out by hand from binary32. */
static void rounding(int n) {
  uint32_t *regs = aligned_alloc(64, (size_t)NREGS * n * 4), *k = aligned_alloc(64, (size_t)2 * n * 4);
  assert_non_null(regs);
  assert_non_null(k);
  for (int i = 0; i < n; i++) k[i] = ONE, k[n + i] = THREEQ_ULP;
  unsigned v = 4u * (unsigned)n;
  gs_uop prog[] = {
      {.kind = GS_UOP_CONST, .d = 0, .imm = 0},
      {.kind = GS_UOP_CONST, .d = (uint16_t)v, .imm = 1},
      {.kind = GS_UOP_FADD, .d = (uint16_t)(2 * v), .a = 0, .b = (uint16_t)v},      /* 1 + 0.75 ulp */
      {.kind = GS_UOP_ITOF, .d = (uint16_t)(4 * v), .a = (uint16_t)(3 * v)},         /* (float)(2^24 + 3) */
      {.kind = GS_UOP_FMUL, .d = (uint16_t)(6 * v), .a = (uint16_t)(5 * v), .b = (uint16_t)(5 * v)}, /* (1 + 2^-23)^2 */
      {.kind = GS_UOP_END},
  };
  gs_jit_desc d = desc(n);
  gs_jit_code *c = gs_jit_compile(&d, prog, 6, (const uint32_t[]){0}, 1);
  assert_non_null(c);
  gs_uop_machine m = {.regs = regs, .consts = k};
  for (int mode = 0; mode < 2; mode++) {
    for (int i = 0; i < n; i++) regs[3 * n + i] = 16777219u, regs[5 * n + i] = 0x3f800001u;
    assert_int_equal(run_native(c, &m, gs_fp_env_with(gs_fp_env_get(), mode ? GS_FP_TOWARD_ZERO : GS_FP_NEAREST, 1)), 0);
    for (int i = 0; i < n; i++) {
      /* 1 + 1.5 × 2^-24: nearest 1 + 2^-23, toward zero 1 */
      assert_int_equal(regs[2 * n + i], mode ? 0x3f800000u : 0x3f800001u);
      /* 16777219 lies between 16777218 and 16777220: nearest is the even
       * mantissa, 16777220 (0x4b800002); toward zero 16777218 */
      assert_int_equal(regs[4 * n + i], mode ? 0x4b800001u : 0x4b800002u);
      /* 1 + 2^-22 + 2^-46: nearest 1 + 2^-22 (0x3f800002), toward zero the same */
      assert_int_equal(regs[6 * n + i], 0x3f800002u);
    }
  }
  gs_jit_release(c);
  free(regs);
  free(k);
}
static void test_rounding_is_dynamic(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  rounding(16);
  rounding(32);
}

/* Buffers of the random tests: two register files, their first values,
 * two constant vectors */
typedef struct bufs {
  uint32_t *ra, *rb, *init, *k;
  size_t bytes;
} bufs;
static bufs bufs_new(int n) {
  bufs b = {.bytes = (size_t)NREGS * n * 4};
  b.ra = aligned_alloc(64, b.bytes), b.rb = aligned_alloc(64, b.bytes), b.init = malloc(b.bytes);
  b.k = aligned_alloc(64, (size_t)2 * n * 4);
  assert_non_null(b.ra);
  assert_non_null(b.rb);
  assert_non_null(b.init);
  assert_non_null(b.k);
  return b;
}
static void bufs_free(bufs *b) {
  free(b->ra);
  free(b->rb);
  free(b->init);
  free(b->k);
}

/* A micro-op of kind `kind` with random lanes, registers and immediate */
static gs_uop random_uop(rng *r, int n, unsigned kind) {
  gs_uop u = {.kind = (uint8_t)kind, .cond = (uint8_t)(next(r) % (2 * GS_UOP_MASKS)),
              .d = (uint16_t)(next(r) % NREGS * 4 * n), .a = (uint16_t)(next(r) % NREGS * 4 * n),
              .b = (uint16_t)(next(r) % NREGS * 4 * n), .imm = next(r)};
  if (gs_uop_writes_mask(kind)) u.d = (uint16_t)(1 + next(r) % (GS_UOP_MASKS - 1));
  if (kind == GS_UOP_CONST) u.imm = next(r) % 2;
  return u;
}

/* Fails naming `what` unless the registers and masks 1.. are the same */
static void same_machine(int n, const bufs *b, const uint32_t *want_masks, const uint32_t *got_masks,
                         const char *what) {
  for (int i = 0; i < NREGS * n; i++)
    if (b->ra[i] != b->rb[i])
      fail_msg("%s: register %d lane %d: native 0x%08x, interpreter 0x%08x", what, i / n, i % n, b->rb[i], b->ra[i]);
  for (int i = 1; i < GS_UOP_MASKS; i++)
    if (want_masks[i] != got_masks[i])
      fail_msg("%s: mask %d native 0x%08x, interpreter 0x%08x", what, i, got_masks[i], want_masks[i]);
}

static void random_streams(int n, unsigned nprogs) {
  enum { LEN = 28 };
  rng r = {(uint64_t)n * 7919u + 5};
  bufs B = bufs_new(n);
  uint32_t *ra = B.ra, *rb = B.rb, *init = B.init, *k = B.k;
  size_t bytes = B.bytes;
  uint32_t all = n == 32 ? 0xffffffffu : 0xffffu, masks[GS_UOP_MASKS];
  gs_jit_desc d = desc(n);
  lanes_of_escape = n;
  for (unsigned p = 0; p < nprogs; p++) {
    gs_uop prog[LEN + 1];
    for (int i = 0; i < LEN; i++) {
      unsigned kind = next(&r) % (GS_UOP_END + 2);
      if (kind >= GS_UOP_END) kind = GS_UOP_ISA; /* the escape that goes on */
      prog[i] = random_uop(&r, n, kind);
    }
    /* one program in four stops early through the escape */
    prog[LEN] = (gs_uop){.kind = GS_UOP_END};
    if (p % 4 == 3) prog[LEN - 1 - next(&r) % 8] = (gs_uop){.kind = GS_UOP_ISA + 1, .imm = 7};
    gs_jit_code *c = gs_jit_compile(&d, prog, LEN + 1, (const uint32_t[]){0}, 1);
    assert_non_null(c);
    for (int i = 0; i < NREGS * n; i++) init[i] = random_value(&r);
    for (int i = 0; i < 2 * n; i++) k[i] = random_value(&r);
    masks[0] = 0;
    for (int i = 1; i < GS_UOP_MASKS; i++) masks[i] = next(&r) & all;
    for (int env = 0; env < 4; env++) {
      gs_fp_env e = gs_fp_env_with(gs_fp_env_get(), env & 1 ? GS_FP_TOWARD_ZERO : GS_FP_NEAREST, env < 2);
      gs_uop_machine ma = {.regs = ra, .consts = k, .escape = escape}, mb = {.regs = rb, .consts = k};
      memcpy(ra, init, bytes);
      memcpy(rb, init, bytes);
      memcpy(ma.masks, masks, sizeof masks);
      memcpy(mb.masks, masks, sizeof masks);
      gs_fp_env saved = gs_fp_env_get();
      gs_fp_env_set(e);
      int want = n == 16 ? gs_uop_run16(&ma, prog) : gs_uop_run32(&ma, prog);
      gs_fp_env_set(saved);
      int got = run_native(c, &mb, e);
      char what[128];
      snprintf(what, sizeof what, "%d lanes, program %u, environment %d (%s, denormals %s)", n, p, env,
               env & 1 ? "toward zero" : "nearest", env < 2 ? "flushed" : "kept");
      if (got != want) fail_msg("%s: native returned %d, interpreter %d", what, got, want);
      same_machine(n, &B, ma.masks, mb.masks, what);
    }
    gs_jit_release(c);
  }
  bufs_free(&B);
}
static void test_random_streams(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  random_streams(16, 40);
  random_streams(32, 40);
}

/* Entering past the stream's end gives GS_JIT_EXIT, running off the end
 * too, and the background compile ends in the same code. */
static void test_entries_and_background(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  uint32_t *regs = aligned_alloc(64, (size_t)NREGS * 64);
  assert_non_null(regs);
  memset(regs, 0, (size_t)NREGS * 64);
  gs_uop prog[] = {{.kind = GS_UOP_ISA, .d = 0, .imm = 5}, {.kind = GS_UOP_ISA, .d = 64, .imm = 9}};
  gs_jit_desc d = desc(16);
  lanes_of_escape = 16;
  gs_jit_code *c = gs_jit_submit(&d, prog, 2, (const uint32_t[]){0, 1}, 2);
  assert_non_null(c);
  while (!gs_jit_entry(c)) thrd_yield();
  gs_uop_machine m = {.regs = regs};
  gs_jit_fn f = gs_jit_entry(c);
  assert_int_equal(f(&m, m.regs, NULL, &m, 1), GS_JIT_EXIT); /* micro-op 1, then the end */
  assert_int_equal(regs[0], 0);
  assert_int_equal(regs[16], 9);
  assert_int_equal(f(&m, m.regs, NULL, &m, 0), GS_JIT_EXIT);
  assert_int_equal(regs[0], 5);
  assert_int_equal(regs[16], 18);
  assert_int_equal(f(&m, m.regs, NULL, &m, 2), GS_JIT_EXIT); /* past the end */
  assert_int_equal(regs[0], 5);
  gs_jit_release(c);
  free(regs);
}

/* ---- runs: the step, its budget, entries in the middle, exponent 255 ---- */

/* The state of the step tests: masks, the step's words and (as env) the
 * stop, in one struct; kind GS_UOP_ISA + 2 is the step. */
enum { STEP_KIND = GS_UOP_ISA + 2, STOPPED = 99 };
typedef struct step_state {
  uint32_t masks[GS_UOP_MASKS];
  uint64_t busy, count;
  uint32_t pc;
  uint64_t stop, limit;
  int lanes;
} step_state;

/* The whole step as jit.h describes it: the counter and pc move on, the
 * busy word's low byte (work only the escape does) is cleared and its next
 * byte counts down (step_down 2), the pc moving 8 more when it reaches 0
 * (a jump, which the compiled code must leave to the escape); the stop is
 * a value returned; the other kinds as the escape above. 0: go on. */
static int full_step(step_state *s, char *R, const gs_uop *u) {
  if (u->kind == GS_UOP_ISA + 1) return (int)u->imm;
  if (u->kind == GS_UOP_ISA) {
    uint32_t *d = (uint32_t *)(R + u->d);
    for (int i = 0; i < s->lanes; i++) d[i] += u->imm;
    if (u->op) s->busy = (uint64_t)u->op << 8 | (u->op == 4); /* as a branch does: delay slots follow */
    return 0;
  }
  s->count++;
  s->pc += 8;
  uint64_t down = s->busy >> 8 & 0xff;
  s->busy &= ~(uint64_t)0xff;
  if (down) s->busy -= 0x100, s->pc += down == 1 ? 8 : 0;
  return s->count == s->stop ? STOPPED : 0;
}
static int step_ref_escape(void *ctx, gs_uop_machine *m, const gs_uop *u) {
  step_state *s = ctx;
  memcpy(s->masks, m->masks, sizeof s->masks);
  int rc = full_step(s, m->regs, u);
  memcpy(m->masks, s->masks, sizeof s->masks);
  return rc;
}
static int step_jit_escape(void *env, char *R, const gs_uop *u, uint32_t *to) {
  (void)to;
  int rc = full_step(env, R, u);
  return rc ? rc : GS_JIT_NEXT;
}

/* A quarter of a value's draws in random_value are special, and any 32
 * bits have exponent 255 one time in 256: nearly every register holds a
 * lane with exponent 255. Tame values (small integers, floats near 1) let
 * the runs' fast paths run too. */
static uint32_t value(rng *r, int tame) {
  if (!tame) return random_value(r);
  return next(r) % 2 ? next(r) % 64 : 0x3f000000u + (next(r) & 0x01ffffffu);
}

/* Runs prog from micro-op `at` in the interpreter and natively (c) from
 * the states in sa and sb; fails naming `what` unless both return `want`
 * (the interpreter's value when want is -1) in the same state. */
static void same_run(int n, const bufs *B, gs_jit_code *c, const gs_uop *prog, uint32_t at, step_state *sa,
                     step_state *sb, const step_state *s0, gs_fp_env e, int want, int got, const char *what) {
  gs_uop_machine ma = {.regs = B->ra, .consts = B->k, .escape = step_ref_escape, .ctx = sa};
  memcpy(ma.masks, sa->masks, sizeof sa->masks);
  gs_fp_env saved = gs_fp_env_get();
  gs_fp_env_set(e);
  int ref = n == 16 ? gs_uop_run16(&ma, prog + at) : gs_uop_run32(&ma, prog + at);
  if (c) got = gs_jit_entry(c)(sb, (char *)B->rb, B->k, sb, at);
  gs_fp_env_set(saved);
  memcpy(sa->masks, ma.masks, sizeof sa->masks);
  if (want == -1) want = ref;
  if (ref != want || got != want || sa->count != sb->count || sa->pc != sb->pc || sa->busy != sb->busy)
    fail_msg("%s: native returned %d after %llu steps (pc 0x%x, busy %llu), interpreter %d after %llu (pc 0x%x, "
             "busy %llu)",
             what, got, (unsigned long long)(sb->count - s0->count), sb->pc, (unsigned long long)sb->busy, ref,
             (unsigned long long)(sa->count - s0->count), sa->pc, (unsigned long long)sa->busy);
  same_machine(n, B, sa->masks, sb->masks, what);
}

/* over: runs that end with a step may pass the stop (jit.h, step_over),
 * up to a limit that is the plain stop, no limit or a little past it. */
static void step_runs(int n, unsigned nprogs, int over) {
  enum { LEN = 48, TRIALS = 12 };
  rng r = {(uint64_t)n * 104729u + 11 + (unsigned)over};
  bufs B = bufs_new(n);
  uint32_t *ra = B.ra, *rb = B.rb, *init = B.init, *k = B.k;
  size_t bytes = B.bytes;
  uint32_t all = n == 32 ? 0xffffffffu : 0xffffu;
  gs_jit_desc d = {.lanes = n, .mask_bits = 32, .regs_off = -1, .escape = step_jit_escape, .step_kind = STEP_KIND,
                   .step_busy = offsetof(step_state, busy), .step_count = offsetof(step_state, count),
                   .step_pc = offsetof(step_state, pc), .step_pc_add = 8, .step_stop = offsetof(step_state, stop),
                   .step_over = over, .step_limit = offsetof(step_state, limit), .step_down = 2};
  d.mask_off[0] = -1;
  for (int m = 1; m < GS_UOP_MASKS; m++) d.mask_off[m] = (int32_t)(offsetof(step_state, masks) + 4u * (unsigned)m);
  unsigned fast_runs = 0, cut_short = 0, overran = 0;
  for (unsigned p = 0; p < nprogs; p++) {
    gs_uop prog[LEN + 1];
    for (int i = 0; i < LEN; i++) {
      unsigned kind = next(&r) % (GS_UOP_END + 16);
      if (kind >= GS_UOP_END + 1) kind = STEP_KIND; /* about one in four */
      else if (kind == GS_UOP_END) kind = GS_UOP_ISA; /* an escape that goes on */
      else if (next(&r) % 2) kind = next(&r) % 3; /* FADD_NN, FSUB_NN, FMUL_NN: half the rest */
      if (over && next(&r) % 8 == 0) kind = GS_UOP_ISA; /* more runs */
      prog[i] = random_uop(&r, n, kind);
      /* runs that pass the stop end with a step: an ISA's instruction
       * ends with its step, and its escapes start the next one */
      if (over && kind == GS_UOP_ISA && i > 0) prog[i - 1] = random_uop(&r, n, STEP_KIND);
    }
    /* delay slots: an escape that sets the busy word, 1-4 steps, an
     * escape (a run of steps only: jit.c's emit_steps) */
    for (int i = 0; p % 4 == 1 && i + 6 < LEN; i += 6 + (int)(next(&r) % 8)) {
      int steps = 1 + (int)(next(&r) % 4);
      prog[i] = random_uop(&r, n, GS_UOP_ISA);
      prog[i].op = (uint8_t)(1 + next(&r) % 5); /* 5: a countdown the steps do not finish */
      for (int j = 1; j <= steps; j++) prog[i + j] = random_uop(&r, n, STEP_KIND);
      prog[i + steps + 1] = random_uop(&r, n, GS_UOP_ISA);
    }
    prog[LEN] = (gs_uop){.kind = GS_UOP_END};
    if (p % 4 == 3) prog[LEN - 1 - next(&r) % 16] = (gs_uop){.kind = GS_UOP_ISA + 1, .imm = 7};
    uint32_t entries[3] = {0, next(&r) % LEN, next(&r) % LEN};
    for (int m = 1; over && m < 3; m++) entries[m] = entries[m] ? entries[m] : 1;
    for (int m = 1; over && m < 3; m++) prog[entries[m] - 1] = random_uop(&r, n, STEP_KIND);
    gs_jit_code *c = gs_jit_compile(&d, prog, LEN + 1, entries, 3);
    assert_non_null(c);
    for (unsigned t = 0; t < TRIALS; t++) {
      int tame = t % 4 != 3;
      for (int i = 0; i < NREGS * n; i++) init[i] = value(&r, tame);
      for (int i = 0; i < 2 * n; i++) k[i] = value(&r, tame);
      step_state s0 = {.busy = t % 3 == 2 ? (next(&r) % 4) << 8 | next(&r) % 2 : 0, .count = next(&r) % 1000, .pc = next(&r) & ~7u,
                       .lanes = n};
      /* the stop: inside the program about half the time (a run cut short), else far away */
      s0.stop = s0.count + (t % 2 ? 1 + next(&r) % 14 : UINT64_C(1) << 40);
      unsigned lk = next(&r) % 3;
      s0.limit = lk == 0 ? s0.stop - 1 : lk == 1 ? UINT64_MAX : s0.stop + next(&r) % 8;
      for (int m = 1; m < GS_UOP_MASKS; m++) s0.masks[m] = next(&r) & all;
      /* entered at the start, at an entry, or anywhere (inside a run) */
      uint32_t at = t % 3 == 0 ? 0 : t % 3 == 1 ? entries[1 + next(&r) % 2] : next(&r) % LEN;
      gs_fp_env e = gs_fp_env_with(gs_fp_env_get(), t & 4 ? GS_FP_TOWARD_ZERO : GS_FP_NEAREST, !(t & 8));
      step_state sa = s0, sb = s0;
      memcpy(ra, init, bytes);
      memcpy(rb, init, bytes);
      char what[128];
      snprintf(what, sizeof what, "%d lanes, program %u, trial %u (entered at %u, over %d)", n, p, t, at, over);
      gs_fp_env saved = gs_fp_env_get();
      gs_fp_env_set(e);
      int got = gs_jit_entry(c)(&sb, (char *)rb, k, &sb, at), want = -1;
      gs_fp_env_set(saved);
      if (got == GS_JIT_EXIT) {
        /* a run passed the stop: by less than GS_JIT_RUN_STEPS steps, not
         * past the limit, and where the interpreter is when stopped there */
        if (!over || sb.count < s0.stop || sb.count - s0.stop >= GS_JIT_RUN_STEPS || sb.count > s0.limit)
          fail_msg("%s: GS_JIT_EXIT after %llu steps, the stop %llu steps on, the limit %llu steps on", what,
                   (unsigned long long)(sb.count - s0.count), (unsigned long long)(s0.stop - s0.count),
                   (unsigned long long)(s0.limit - s0.count));
        sa.stop = sb.count;
        want = STOPPED;
        overran++;
      }
      same_run(n, &B, NULL, prog, at, &sa, &sb, &s0, e, want, got == GS_JIT_EXIT ? STOPPED : got, what);
      if (got == GS_JIT_EXIT) { /* both go on from the micro-op after the last step */
        uint32_t i = at;
        for (uint64_t seen = 0;; i++)
          if (prog[i].kind == STEP_KIND && ++seen == sb.count - s0.count) break;
        sa.stop = sb.stop = sb.limit = UINT64_C(1) << 50;
        same_run(n, &B, c, prog, i + 1, &sa, &sb, &s0, e, -1, 0, what);
      }
      int want_end = want == -1 ? got : want;
      cut_short += want_end == STOPPED;
      fast_runs += tame && s0.busy == 0;
    }
    gs_jit_release(c);
  }
  /* both kinds of trial happened */
  assert_true(cut_short > nprogs);
  assert_true(fast_runs > nprogs);
  if (over) assert_true(overran > nprogs / 2);
  bufs_free(&B);
}
static void test_steps_budgets_and_middles(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  step_runs(16, 60, 0);
  step_runs(32, 30, 0);
  step_runs(16, 60, 1);
  step_runs(32, 30, 1);
}

/* ---- the QPU scheduler's quanta in native code --------------------------- */

/* Program `id` of the quanta test: `loops` times a stretch of `stretch`
 * ALU instructions (native code's runs), then r3 = VPM row 0 x 3 + id + 1
 * written back, a read-modify-write without the mutex, so the value the
 * last one leaves depends on where every quantum of every QPU ended. */
static char *quanta_program(int id, int stretch, int loops) {
  size_t cap = (size_t)stretch * 48 + 512, len = 0;
  char *src = malloc(cap);
  assert_non_null(src);
  len += (size_t)snprintf(src + len, cap - len,
                          "ldi r0, 0x3f800000\nldi r1, 0x3f800001\nldi r2, 0x40000000\nldi ra1, %d\nloop:\n", loops);
  for (int k = 0; k < stretch; k++)
    len += (size_t)snprintf(src + len, cap - len, "%s\n",
                            k % 2 ? "fadd r2, r2, r0 ; fmul r0, r0, r1" : "add r0, r0, 1 ; fmul r2, r2, r1");
  snprintf(src + len, cap - len,
           "ldi vr_setup, 0x00101a00\nmov r3, vpm\nmul24 r3, r3, 3\nadd r3, r3, %d\nldi vw_setup, 0x00001a00\n"
           "mov vpm, r3\nsub.setf ra1, ra1, 1\nbrr.anynz loop\nnop\nnop\nnop\nthrend\nnop\nnop\n",
           id + 1);
  return src;
}

/* Runs quanta_program(i, stretch[i], loops[i]) for i < n on a context of
 * `qpus` QPUs (0: 12) with interpreter interp (and native code as
 * gs_jit_policy says) and the watchdog's budget; returns the result, each
 * program's r0, r2 and r3 lane 0 and its instruction count in out[4 * n]
 * and the error message in msg. */
static int quanta_run(int interp, int qpus, int n, const int *stretch, const int *loops, uint64_t budget,
                      uint32_t *out, char *msg, size_t len) {
  gs_gpu_config cfg = {.watchdog = budget, .qpus = qpus};
  gs_gpu *g = gs_gpu_new(&cfg);
  assert_non_null(g);
  gs_gpu_config_of(g)->interpreter = interp;
  gs_qpu_program progs[4];
  for (int i = 0; i < n; i++) {
    char *src = quanta_program(i, stretch[i], loops[i]);
    uint64_t *w;
    size_t nw;
    gs_diag d;
    if (gs_qpu_asm(src, "quanta.s", 0, &w, &nw, &d) < 0) fail_msg("%s", d.msg);
    free(src);
    assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), (uint32_t)(8 * nw), 8, &progs[i].code, NULL), GS_OK);
    assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), 16, 4, &progs[i].uniforms, NULL), GS_OK);
    gs_mem_write(gs_gpu_mem(g), progs[i].code, w, (uint32_t)(8 * nw), NULL);
    free(w);
  }
  gs_qpu_status st[4];
  int rc = gs_qpu_run_user(g, progs, (size_t)n, st);
  snprintf(msg, len, "%s", rc < 0 ? gs_gpu_error(g) : "");
  for (int i = 0; i < n && rc >= 0; i++) {
    const gs_qpu *q = qpu_cluster_of(g)->qpu[st[i].qpu];
    out[4 * i] = q->reg[QREG_R0].u[0], out[4 * i + 1] = q->reg[QREG_R0 + 2].u[0];
    out[4 * i + 2] = q->reg[QREG_R0 + 3].u[0], out[4 * i + 3] = (uint32_t)st[i].instructions;
  }
  gs_gpu_free(g);
  return rc;
}

/* Runs quanta_run through the reference interpreter, the fast one and
 * native code (when available) and fails unless all three give the same
 * result, words and message; returns the result. */
static int quanta_same(int qpus, int n, const int *stretch, const int *loops, uint64_t budget) {
  uint32_t want[16] = {0}, fast[16] = {0}, got[16] = {0};
  char mw[GS_DIAG_MAX], mf[GS_DIAG_MAX], mg[GS_DIAG_MAX];
  int rw = quanta_run(GS_INTERP_REFERENCE, qpus, n, stretch, loops, budget, want, mw, sizeof mw);
  gs_jit_policy(0, 0);
  int rf = quanta_run(GS_INTERP_FAST, qpus, n, stretch, loops, budget, fast, mf, sizeof mf), rg = rf;
  memcpy(got, fast, sizeof got), memcpy(mg, mf, sizeof mg);
  if (gs_jit_available()) {
    gs_jit_policy(1, 1);
    rg = quanta_run(GS_INTERP_FAST, qpus, n, stretch, loops, budget, got, mg, sizeof mg);
    gs_jit_policy(0, 0);
  }
  assert_int_equal(rf, rw);
  assert_int_equal(rg, rw);
  assert_string_equal(mf, mw);
  assert_string_equal(mg, mw);
  for (int i = 0; i < 4 * n; i++)
    if (fast[i] != want[i] || got[i] != want[i])
      fail_msg("budget %llu, %d QPUs, program %d word %d: reference 0x%08x, fast 0x%08x, native 0x%08x",
               (unsigned long long)budget, qpus, i / 4, i % 4, want[i], fast[i], got[i]);
  return rw;
}

/* Quanta that end a little late in native code (so as not to cut a run)
 * and the next one as much shorter: the QPUs reach the VPM in the same
 * order as with the interpreters, which end every quantum exactly, so the
 * values match the reference interpreter's; near the watchdog's budget the
 * program stops at the same count. Fails when the next quantum is not
 * shortened. */
static void test_qpu_quanta(void **state) {
  (void)state;
  if (!gs_jit_available()) skip();
  static const uint64_t budgets[] = {0, 1234, 1400, 1600, 1900, 2100};
  static const int stretch[4] = {45, 58, 71, 93}, loops[4] = {30, 30, 30, 30};
  for (int budget = 0; budget < 6; budget++)
    assert_int_equal(quanta_same(0, 4, stretch, loops, budgets[budget]), budget ? GS_EWATCHDOG : GS_OK);
}

/* A QPU that runs alone (one program; one QPU for a queue of two; the
 * second of two QPUs once the first has ended, after quanta that native
 * code ended late) runs many quanta at once in the fast interpreter and
 * native code (sched.c), ending where the last of them would: the same
 * registers, counts and watchdog message (its count is that of the first
 * quantum's end past the budget) as the reference interpreter, which runs
 * one quantum at a time, for budgets on both sides of quantum ends and
 * past the most quanta run at once (4096: 1,048,576 instructions). Fails
 * when the quanta run at once end anywhere but at a quantum's end (a late
 * quantum's excess not taken off) or pass the budget. */
static void test_qpu_alone_quanta(void **state) {
  (void)state;
  static const uint64_t budgets[] = {0,    700,  767,  768,  769,  1025, 1281, 1537, 1793, 2049, 2305,
                                     2561, 4000, 4321, 5000, 5001, 6000, 1049000, 1049100};
  static const struct { int qpus, n, loops[2]; } runs[] = {{2, 1, {60, 0}}, {1, 2, {60, 60}}, {2, 2, {60, 200}}};
  static const int stretch[2] = {40, 47};
  for (int b = 0; b < 19; b++)
    for (int r = 0; r < 3; r++) {
      int loops[2] = {runs[r].loops[0], runs[r].loops[1]}; /* 3,200 and 11,000 instructions */
      if (budgets[b] > 100000) loops[0] *= 420, loops[1] *= 420; /* past the budget */
      int rc = quanta_same(runs[r].qpus, runs[r].n, stretch, loops, budgets[b]);
      if (b >= 1 && b <= 4) assert_int_equal(rc, GS_EWATCHDOG);
    }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rounding_is_dynamic),
      cmocka_unit_test(test_random_streams),
      cmocka_unit_test(test_entries_and_background),
      cmocka_unit_test(test_steps_budgets_and_middles),
      cmocka_unit_test(test_qpu_quanta),
      cmocka_unit_test(test_qpu_alone_quanta),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
