/* test_agx_fast.c — the AGX fast interpreter on the lane micro-op layer
 * (src/isa/agx/exec_fast.c) against the reference interpreter, bit for bit:
 * random programs of test_agx_exec.c's generator, extended with what the
 * micro-op interpreter lowers or must keep exact around (device loads and
 * stores with their pending registers and waits, st_var with immediate
 * and register indices, no_var, ldimm into halves, get_sr), from random
 * states; the state, the result and the message must agree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "isa/agx/exec.h"
#include "isa/agx/table.h"

int agx_fast_portable(int on); /* exec_fast.c, for tests */

/* ---- building programs ------------------------------------------------------ */

static agx_opnd reg(unsigned half, unsigned bits) {
  agx_opnd o;
  memset(&o, 0, sizeof o);
  o.kind = AGX_K_REG, o.bits = (uint8_t)bits, o.count = 1, o.index = (uint16_t)half;
  return o;
}
static agx_opnd R(unsigned n) { return reg(2 * n, 32); }     /* rN */
static agx_opnd RL(unsigned n) { return reg(2 * n, 16); }    /* rNl */
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

/* The length of the encoding the assembler would pick (short forms). */
static uint8_t len_of(unsigned op) {
  switch (op) {
    case AGX_STOP: case AGX_TRAP: case AGX_WAIT: return 2;
    case AGX_FADD: case AGX_FMUL: case AGX_HADD: case AGX_HMUL: case AGX_GET_SR: case AGX_LDIMM: case AGX_ST_VAR:
    case AGX_NO_VAR: return 4;
    case AGX_IADD: case AGX_ISUB: case AGX_IMAD: case AGX_ICMPSEL: case AGX_FCMPSEL: case AGX_LOAD:
    case AGX_STORE: case AGX_BFI: case AGX_BFEIL: case AGX_EXTR: return 8;
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

static agx_instr random_alu(size_t k, size_t n) {
  static const uint8_t fcond[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15};
  static const uint8_t icond[] = {0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14};
  static const uint8_t funops[] = {AGX_FLOOR, AGX_SRSQRT, AGX_RCP, AGX_RSQRT, AGX_SIN_PT_1, AGX_LOG2, AGX_EXP2,
                                   AGX_SIN_PT_2, AGX_CEIL, AGX_TRUNC, AGX_RINT};
  static const uint8_t cvt[] = {0, 1, 4, 5, 6, 7, 8, 9, 10, 11};
  agx_instr in;
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


/* The memory instructions and the others the micro-ops lower. */
static agx_instr random_insn(size_t k, size_t n) {
  unsigned r = pick(100);
  agx_instr in;
  if (r < 8) { /* load or store: base u0_u1 (0x1000), a small index, sometimes a register's */
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
    in = random_alu(k, n);
  }
  return in;
}

/* 4000 random programs of 4-40 instructions from random states (partly
 * present and active groups, counters 0-3, special values, a memory of 64
 * bytes at 0x1000 with random contents, sometimes a declared register
 * count too small, sometimes a budget that runs out): the micro-op
 * interpreter leaves the same state, memory, result and message as the
 * reference. */
static void random_programs(int portable) {
  agx_fast_portable(portable);
  static agx_state a, b;
  uint8_t ma[64], mb[64];
  agx_flat_mem fa = {0x1000, ma, sizeof ma}, fb = {0x1000, mb, sizeof mb};
  unsigned errors = 0, clean = 0, budgets = 0;
  for (int iter = 0; iter < 4000; iter++) {
    size_t n = 4 + pick(37);
    agx_instr code[48];
    for (size_t k = 0; k + 1 < n; k++) code[k] = random_insn(k, n);
    code[n - 1] = stop();
    agx_instr fixed[48];
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
    agx_set_unif32(&a, 0, 0x1000), agx_set_unif32(&a, 1, 0);
    if (pick(10) == 0) a.nregs = 8 * (1 + pick(4));
    for (size_t i = 0; i < sizeof ma; i++) ma[i] = (uint8_t)rnd();
    memcpy(mb, ma, sizeof ma);
    a.mem = agx_flat_mem_access, a.mem_ctx = &fa;
    uint64_t budget = pick(8) ? 2000 : pick(60);
    memcpy(&b, &a, sizeof a);
    b.mem_ctx = &fb;
    agx_program p = {fixed, n};
    agx_fast *f = NULL;
    gs_diag d1, d2;
    gs_diag_clear(&d1), gs_diag_clear(&d2);
    assert_int_equal(agx_fast_compile(&p, &f, &d2), 0);
    int r1 = agx_run_ref(&a, &p, 0, budget, &d1);
    int r2 = agx_run_fast(&b, f, 0, budget, &d2);
    agx_fast_free(f);
    b.mem_ctx = &fa;
    if (r1 != r2 || strcmp(d1.msg, d2.msg) || memcmp(&a, &b, sizeof a) || memcmp(ma, mb, sizeof ma)) {
      for (unsigned l = 0; l < AGX_LANES; l++)
        for (unsigned h = 0; h < AGX_HALVES; h++)
          if (a.r[l][h] != b.r[l][h]) print_message("lane %u half %u: ref %04x uop %04x\n", l, h, a.r[l][h], b.r[l][h]);
      for (size_t k = 0; k < n; k++) {
        char t[160];
        agx_print(&fixed[k], t, sizeof t);
        print_message("%2zu: %s\n", k, t);
      }
      fail_msg("program %d (%zu instructions): ref %d \"%s\", uop %d \"%s\", exec %08x/%08x pc %x/%x steps %llu/%llu",
               iter, n, r1, d1.msg, r2, d2.msg, a.exec, b.exec, a.pc, b.pc, (unsigned long long)a.steps,
               (unsigned long long)b.steps);
    }
    errors += r1 != 0;
    budgets += r1 == GS_EWATCHDOG;
    clean += r1 == 0;
  }
  print_message("errors %u, budget %u, clean %u\n", errors, budgets, clean);
  assert_true(errors > 100 && errors < 3900);
  assert_true(budgets > 20);
  agx_fast_portable(0);
}
static void test_uop_equals_reference(void **state) {
  (void)state;
  random_programs(0);
}
/* The same through the build's own copy of the loop (the other is the
 * AVX2 one, on a CPU that has it). */
static void test_uop_portable_equals_reference(void **state) {
  (void)state;
  random_programs(1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_uop_equals_reference),
      cmocka_unit_test(test_uop_portable_equals_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
