/* decode.c — prepares QPU programs for the fast interpreter (see decode.h):
 * finds the extent of the code, predecodes each instruction into micro-ops
 * over gs_qpu.reg[] slots, and caches the result by start address, checking
 * the code's content on every lookup. */
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include "gpusim/driver.h"
#include "isa/qpu/alu.h"
#include "isa/qpu/decode.h"
#include "isa/qpu/pred.h"
#include "isa/uop/jit.h"
#include "v3d/v3d.h"

#define MAX_PROGRAM_WORDS (1u << 16)

/* Rendering threads prepare programs concurrently: the cache is locked.
 * Prepared programs never change. A program whose code changed is rebuilt;
 * the old one is retired, not freed, because a QPU of another thread may
 * still hold it (as q->prog or q->hint): qpu_cache_trim frees retired
 * programs when no QPU runs, and bumps `gen` so that no hint survives. */
struct qpu_cache {
  mtx_t lock;
  qpu_program **progs;
  size_t n, cap;
  qpu_program **retired;
  size_t nretired, retired_cap;
  unsigned gen;
};

qpu_cache *qpu_cache_new(void) {
  qpu_cache *c = calloc(1, sizeof(qpu_cache));
  if (c && mtx_init(&c->lock, mtx_plain) != thrd_success) {
    free(c);
    return NULL;
  }
  return c;
}

static void program_free(qpu_program *p) {
  if (!p) return;
  gs_jit_release(p->jit);
  free(p->words);
  free(p->insns);
  free(p->uops);
  free(p->consts);
  free(p);
}

void qpu_cache_free(qpu_cache *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) program_free(c->progs[i]);
  for (size_t i = 0; i < c->nretired; i++) program_free(c->retired[i]);
  free(c->progs);
  free(c->retired);
  mtx_destroy(&c->lock);
  free(c);
}

/* ---- Extent of a program ------------------------------------------------- */

/* Number of words from start that belong to the program: up to two delay
 * slots past a thread end that no known branch target lies beyond, the end
 * of the allocation holding start (the words must be one contiguous host
 * range), or MAX_PROGRAM_WORDS. */
static uint32_t program_length(const gs_mem *m, uint32_t start) {
  uint32_t n = 0, end_at = 0; /* end_at: word index after which the code may stop */
  uint64_t furthest_target = 0;
  while (n < MAX_PROGRAM_WORDS) {
    const uint8_t *p = gs_mem_ptr(m, start, 8 * (n + 1));
    if (!p) break;
    uint64_t w;
    memcpy(&w, p + 8 * n, 8);
    if (qpu_is_branch(w) && !qpu_get(w, QPU_F_REG)) {
      uint64_t target = (uint64_t)qpu_get(w, QPU_F_IMM);
      if (qpu_get(w, QPU_F_REL)) target = (uint32_t)(start + 8 * n + 32 + qpu_get(w, QPU_F_IMM));
      if (target > furthest_target) furthest_target = target;
    }
    n++;
    if (qpu_ends_thread(w)) end_at = n + 2;
    if (end_at && n >= end_at && furthest_target < (uint64_t)start + 8 * n) break;
  }
  return n;
}

/* ---- Predecoding ----------------------------------------------------------- */

typedef struct builder {
  qpu_uop *uops;
  size_t n, cap;
  gs_vec *consts;
  uint32_t nconsts, capconsts;
  int oom;
} builder;

static void emit(builder *b, qpu_uop u) {
  if (b->n == b->cap) {
    size_t ncap = b->cap ? b->cap * 2 : 256;
    qpu_uop *nu = realloc(b->uops, ncap * sizeof *nu);
    if (!nu) {
      b->oom = 1;
      return;
    }
    b->uops = nu;
    b->cap = ncap;
  }
  b->uops[b->n++] = u;
}

static uint32_t add_const(builder *b, const gs_vec *v) {
  if (b->nconsts == b->capconsts) {
    uint32_t ncap = b->capconsts ? b->capconsts * 2 : 16;
    gs_vec *nc = aligned_alloc(64, ncap * sizeof *nc);
    if (!nc) {
      b->oom = 1;
      return 0;
    }
    if (b->consts) memcpy(nc, b->consts, b->nconsts * sizeof *nc);
    free(b->consts);
    b->consts = nc;
    b->capconsts = ncap;
  }
  b->consts[b->nconsts] = *v;
  return b->nconsts++;
}

/* Slot that mux `mux` reads in instruction w. */
static uint8_t mux_slot(uint64_t w, unsigned mux) {
  unsigned sig = qpu_get(w, QPU_F_SIG);
  if (mux <= QPU_MUX_R5) return (uint8_t)(QREG_R0 + mux);
  if (mux == QPU_MUX_A) {
    unsigned ra = qpu_get(w, QPU_F_RADDR_A);
    return (uint8_t)(ra < 32 ? QREG_RA0 + ra : ra == QPU_R_NOP ? QREG_SMALL_IMM0 : QREG_READ_A);
  }
  unsigned rb = qpu_get(w, QPU_F_RADDR_B);
  if (sig == QPU_SIG_SMALL_IMM) return (uint8_t)(QREG_SMALL_IMM0 + rb);
  return (uint8_t)(rb < 32 ? QREG_RB0 + rb : rb == QPU_R_NOP ? QREG_SMALL_IMM0 : QREG_READ_B);
}

/* Destination description of one half's write (pred.h). */
typedef struct dest {
  unsigned side, addr, cond;
  int writes; /* the write does something */
} dest;

static dest alu_dest(uint64_t w, int is_mul) {
  return (dest){qpu_half_side(w, is_mul), qpu_half_waddr(w, is_mul), qpu_half_cond(w, is_mul),
                qpu_half_writes(w, is_mul)};
}

/* Whether half h names a destination under a condition other than never,
 * whether or not its ALU does an operation. */
static int names_dest(uint64_t w, int h) { return qpu_half_cond(w, h) != 0 && qpu_half_waddr(w, h) != QPU_W_NOP; }

/* Emits the write-back of reg[src] to d; a register below 32 takes the
 * bits `bytes` of it and keeps the others. */
static void emit_writeback(builder *b, const dest *d, uint8_t src, uint32_t bytes) {
  if (!d->writes) return;
  qpu_uop u = {0};
  u.a = src;
  u.cond = (uint8_t)d->cond;
  if (d->addr < 32) {
    u.kind = UOP_STAGE;
    u.d = (uint16_t)((d->side ? QREG_RB0 : QREG_RA0) + d->addr);
    u.imm = bytes;
  } else if (qpu_waddr_is_acc(d->addr)) {
    if (d->cond == 1 && src == QREG_R0 + d->addr - QPU_W_ACC0) return; /* computed in place */
    u.kind = GS_UOP_MOVE;
    u.d = (uint16_t)(QREG_R0 + d->addr - QPU_W_ACC0);
  } else {
    /* fragment shaders write the tile buffer once or twice a batch */
    u.kind = qpu_waddr_is_tlb(d->addr) ? UOP_TLB_WRITE : UOP_IO_WRITE;
    u.side = (uint8_t)d->side;
    u.addr = (uint8_t)d->addr;
  }
  emit(b, u);
}

/* The micro-op of each ADD and MUL opcode; NO_KIND for nop and the
 * reserved codes. */
#define NO_KIND 0xff
static const uint8_t add_kind[32] = {
    [QPU_A_NOP] = NO_KIND, [QPU_A_FADD] = GS_UOP_FADD_NN, [QPU_A_FSUB] = GS_UOP_FSUB_NN,
    [QPU_A_FMIN] = GS_UOP_FMIN_NN, [QPU_A_FMAX] = GS_UOP_FMAX_NN, [QPU_A_FMINABS] = GS_UOP_FMINABS_NN,
    [QPU_A_FMAXABS] = GS_UOP_FMAXABS_NN, [QPU_A_FTOI] = GS_UOP_FTOI_NN, [QPU_A_ITOF] = GS_UOP_ITOF,
    [9] = NO_KIND, [10] = NO_KIND, [11] = NO_KIND, [QPU_A_ADD] = GS_UOP_IADD, [QPU_A_SUB] = GS_UOP_ISUB,
    [QPU_A_SHR] = GS_UOP_SHR, [QPU_A_ASR] = GS_UOP_ASR, [QPU_A_ROR] = GS_UOP_ROR, [QPU_A_SHL] = GS_UOP_SHL,
    [QPU_A_MIN] = GS_UOP_IMIN, [QPU_A_MAX] = GS_UOP_IMAX, [QPU_A_AND] = GS_UOP_AND, [QPU_A_OR] = GS_UOP_OR,
    [QPU_A_XOR] = GS_UOP_XOR, [QPU_A_NOT] = GS_UOP_NOT, [QPU_A_CLZ] = GS_UOP_CLZ, [25] = NO_KIND,
    [26] = NO_KIND, [27] = NO_KIND, [28] = NO_KIND, [29] = NO_KIND, [QPU_A_V8ADDS] = UOP_V8ADDS,
    [QPU_A_V8SUBS] = UOP_V8SUBS};
static const uint8_t mul_kind[8] = {
    [QPU_M_NOP] = NO_KIND, [QPU_M_FMUL] = GS_UOP_FMUL_NN, [QPU_M_MUL24] = GS_UOP_MUL24,
    [QPU_M_V8MULD] = UOP_V8MULD, [QPU_M_V8MIN] = UOP_V8MIN, [QPU_M_V8MAX] = UOP_V8MAX,
    [QPU_M_V8ADDS] = UOP_V8ADDS, [QPU_M_V8SUBS] = UOP_V8SUBS};

/* The regfile-A pack (pm=0) of half h's result, when the fast interpreter
 * does it: a shift and a staged write of some bytes (emit_pack_a). The
 * float16 packs of a float result (16a, 16b) and the 8888 and saturating
 * packs are left to the reference; so is 32s of the ADD's add and sub. */
static int pack_a_is_fast(uint64_t w, int h) {
  unsigned pack = qpu_get(w, QPU_F_PACK), op = qpu_get(w, h ? QPU_F_OP_MUL : QPU_F_OP_ADD);
  int float_out = h ? qpu_mul_ops[op].float_out : qpu_add_ops[op].float_out;
  if (pack >= 4 && pack <= 7) return 1;
  if (pack == 1 || pack == 2) return !float_out;
  if (pack == 8) return h || (op != QPU_A_ADD && op != QPU_A_SUB);
  return 0;
}

/* Can the fast interpreter run this ALU-form instruction itself? */
static int alu_is_fast(uint64_t w) {
  unsigned sig = qpu_get(w, QPU_F_SIG);
  unsigned op_add = qpu_get(w, QPU_F_OP_ADD), op_mul = qpu_get(w, QPU_F_OP_MUL);
  unsigned pm = qpu_get(w, QPU_F_PM), pack = qpu_get(w, QPU_F_PACK);
  if ((op_add != QPU_A_NOP && add_kind[op_add] == NO_KIND) || (op_mul != QPU_M_NOP && mul_kind[op_mul] == NO_KIND))
    return 0;
  /* Every signal but bkpt: thrsw, lthrsw, sbwait and sbdone do nothing for
   * a QPU that runs one thread (io.c's qpu_io_signal), the loads of r4
   * are UOP_LDTMU and UOP_SIGNAL. */
  if (sig == QPU_SIG_BKPT || (sig == QPU_SIG_SMALL_IMM && qpu_get(w, QPU_F_RADDR_B) >= 48)) return 0;
  dest da = alu_dest(w, 0), dm = alu_dest(w, 1);
  /* A nop that still names a destination: leave its meaning to the reference. */
  if ((op_add == QPU_A_NOP && names_dest(w, 0)) || (op_mul == QPU_M_NOP && names_dest(w, 1))) return 0;
  /* Both halves writing one I/O address: left to the reference. Two
   * accumulator writes are the ADD's, then the MUL's (emit_alu); the two
   * halves always write different files' registers (ws swaps both). */
  if (da.writes && dm.writes && da.addr == dm.addr && da.addr >= 32 && !qpu_waddr_is_acc(da.addr)) return 0;
  /* pm=1: the MUL's colour pack (emit_alu). pm=0: the regfile-A pack. */
  if (pack && !pm) {
    if (da.writes && da.side == 0 && da.addr < 32 && !pack_a_is_fast(w, 0)) return 0;
    if (dm.writes && dm.side == 0 && dm.addr < 32 && !pack_a_is_fast(w, 1)) return 0;
  }
  return 1;
}

/* Whether ADD op `op` (MUL op when is_mul) with both operands in one slot
 * returns that operand unchanged: or, and, min, max; the MUL's mov is
 * v8min. The float min/max canonicalise their input, so they are not. */
static int is_identity(unsigned op, int is_mul) {
  if (is_mul) return op == QPU_M_V8MIN || op == QPU_M_V8MAX;
  return op == QPU_A_OR || op == QPU_A_AND || op == QPU_A_MIN || op == QPU_A_MAX;
}

/* The write-back of half `out`'s result to regfile-A register d->addr
 * under the pack of pack_a_is_fast (RG "Pack/unpack"; exec_ref.c's
 * qpu_pack_a): 16a, 8a and 32s write the low bits as they are, 16b and
 * 8b-8d the low bits shifted into place (by a small immediate: 8, and -16
 * and -8, whose low five bits are 16 and 24; each one's index, 8, 16 and
 * 24, is the shift itself); the register keeps its other bits. */
static void emit_pack_a(builder *b, const dest *d, uint8_t out, unsigned pack) {
  unsigned shift = pack == 2 ? 16 : pack >= 4 && pack <= 7 ? 8 * (pack - 4) : 0;
  if (shift) {
    emit(b, (qpu_uop){.kind = GS_UOP_SHL, .d = QREG_TMP, .a = out,
                      .b = (uint16_t)(QREG_SMALL_IMM0 + shift)});
    out = QREG_TMP;
  }
  emit_writeback(b, d, out, qpu_pack_bytes(pack));
}

static void emit_alu(builder *b, uint64_t w) {
  unsigned sig = qpu_get(w, QPU_F_SIG), sf = qpu_get(w, QPU_F_SF);
  unsigned op_add = qpu_get(w, QPU_F_OP_ADD), op_mul = qpu_get(w, QPU_F_OP_MUL);
  dest da = alu_dest(w, 0), dm = alu_dest(w, 1);
  qpu_uop u;

  /* Read stage: I/O reads happen whenever the field names an I/O register. */
  for (int file = 0; file < 2; file++) {
    unsigned a = qpu_raddr(w, file);
    if (!qpu_raddr_is_io(a)) continue;
    u = (qpu_uop){.kind = UOP_IO_READ, .d = file ? QREG_READ_B : QREG_READ_A, .side = (uint8_t)file,
                  .addr = (uint8_t)a};
    emit(b, u);
  }
  uint8_t add_a = mux_slot(w, qpu_get(w, QPU_F_ADD_A)), add_b = mux_slot(w, qpu_get(w, QPU_F_ADD_B));
  uint8_t mul_a = mux_slot(w, qpu_get(w, QPU_F_MUL_A)), mul_b = mux_slot(w, qpu_get(w, QPU_F_MUL_B));
  /* Unpack (RG "Pack/unpack"; exec_ref.c's select_operand): pm=1, r4 as
   * floats for any consumer; pm=0, the value read through raddr_a as each
   * ALU that selects it takes it (float or integer input). */
  unsigned unpack = qpu_get(w, QPU_F_UNPACK);
  if (unpack) {
    int pm1 = qpu_get(w, QPU_F_PM) != 0;
    unsigned mux = pm1 ? QPU_MUX_R4 : QPU_MUX_A;
    for (int h = 0; h < 2; h++) {
      if (h ? op_mul == QPU_M_NOP : op_add == QPU_A_NOP) continue;
      int ra = qpu_get(w, h ? QPU_F_MUL_A : QPU_F_ADD_A) == mux, rb = qpu_get(w, h ? QPU_F_MUL_B : QPU_F_ADD_B) == mux;
      if (!ra && !rb) continue;
      uint8_t slot = pm1 ? QREG_UNPACK_R4 : h ? QREG_UNPACK_A_MUL : QREG_UNPACK_A_ADD;
      int float_in = pm1 || (h ? qpu_mul_ops[op_mul].float_in : qpu_add_ops[op_add].float_in);
      uint8_t src = pm1 ? QREG_R4 : mux_slot(w, QPU_MUX_A);
      if (!(pm1 && h && (add_a == slot || add_b == slot))) /* r4 unpacked once */
        emit(b, (qpu_uop){.kind = UOP_UNPACK, .d = slot, .a = src, .op = (uint8_t)unpack, .side = (uint8_t)float_in});
      if (h) mul_a = ra ? slot : mul_a, mul_b = rb ? slot : mul_b;
      else add_a = ra ? slot : add_a, add_b = rb ? slot : add_b;
    }
  }
  int flags_from_add = sf && op_add != QPU_A_NOP;
  int flags_from_mul = sf && op_add == QPU_A_NOP && op_mul != QPU_M_NOP;
  /* The MUL's colour pack (pm=1; RG "Pack/unpack", table 3), of the result
   * as it is before the pack (the flags see that). */
  unsigned pm = qpu_get(w, QPU_F_PM);
  unsigned pack = pm && op_mul != QPU_M_NOP && dm.writes ? qpu_get(w, QPU_F_PACK) : 0;
  /* The regfile-A pack (pm=0) of the half that writes file A. */
  unsigned pack_a = pm ? 0 : qpu_get(w, QPU_F_PACK);
  int pack_add = pack_a && da.writes && da.side == 0 && da.addr < 32;
  int pack_mul = pack_a && dm.writes && dm.side == 0 && dm.addr < 32;
  int same_acc = da.writes && dm.writes && da.addr == dm.addr && qpu_waddr_is_acc(da.addr);

  /* A mov with the other ALU idle (`mov tlb_z, rb15`, `nop ; mov r1, r0`)
   * computes nothing: its result is its operand, written back straight
   * from the operand's slot. With both ALUs busy one's write-back could
   * change the other's operand first, so both compute as usual. */
  int add_alone = op_mul == QPU_M_NOP, mul_alone = op_add == QPU_A_NOP;
  int add_mov = add_alone && op_add != QPU_A_NOP && add_a == add_b && is_identity(op_add, 0);
  int mul_mov = mul_alone && op_mul != QPU_M_NOP && mul_a == mul_b && is_identity(op_mul, 1);

  uint8_t add_out = QREG_ADD_OUT, mul_out = QREG_MUL_OUT;
  if (add_mov) {
    add_out = add_a;
  } else if (op_add != QPU_A_NOP) {
    /* Compute straight into an accumulator when nothing else needs the old
     * value: unconditional, no flags, and the MUL does not read it. */
    if (da.writes && da.cond == 1 && !flags_from_add && qpu_waddr_is_acc(da.addr)) {
      uint8_t acc = (uint8_t)(QREG_R0 + da.addr - QPU_W_ACC0);
      if (op_mul == QPU_M_NOP || (mul_a != acc && mul_b != acc)) add_out = acc;
    }
    u = (qpu_uop){.kind = add_kind[op_add], .d = add_out, .a = add_a, .b = add_b};
    emit(b, u);
  }
  if (flags_from_add) {
    u = (qpu_uop){.kind = UOP_FLAGS_ADD, .d = add_out, .a = add_a, .b = add_b,
                  .cond = (uint8_t)da.cond, .op = (uint8_t)op_add};
    emit(b, u);
  }
  if (mul_mov) {
    mul_out = mul_a;
  } else if (op_mul != QPU_M_NOP) {
    if (dm.writes && dm.cond == 1 && !flags_from_mul && !pack && !same_acc && qpu_waddr_is_acc(dm.addr))
      mul_out = (uint8_t)(QREG_R0 + dm.addr - QPU_W_ACC0);
    u = (qpu_uop){.kind = mul_kind[op_mul], .d = mul_out, .a = mul_a, .b = mul_b};
    emit(b, u);
  }
  if (flags_from_mul) {
    u = (qpu_uop){.kind = UOP_FLAGS_MUL, .d = mul_out, .a = mul_a, .b = mul_b,
                  .cond = (uint8_t)dm.cond, .op = (uint8_t)op_mul};
    emit(b, u);
  }
  if (pack_add) emit_pack_a(b, &da, add_out, pack_a);
  else if (op_add != QPU_A_NOP) emit_writeback(b, &da, add_out, 0xffffffffu);
  if (pack_mul) {
    emit_pack_a(b, &dm, mul_out, pack_a);
  } else if (pack) {
    /* A register keeps the bytes .8a-.8d do not write; an I/O register
     * gets the whole word, the other bytes 0 (exec_ref.c's apply_pack).
     * After the ADD's write-back: an accumulator both write is the ADD's
     * result with the MUL's byte. */
    uint32_t bytes = qpu_mul_pack_bytes(pack);
    int acc = qpu_waddr_is_acc(dm.addr);
    uint8_t keep = acc ? (uint8_t)(QREG_R0 + dm.addr - QPU_W_ACC0) : QREG_SMALL_IMM0; /* the constant 0 */
    uint8_t out = acc && dm.cond == 1 ? keep : QREG_MUL_OUT;
    emit(b, (qpu_uop){.kind = GS_UOP_PACK_UNORM8_NN, .d = out, .a = mul_out, .b = keep, .imm = bytes});
    emit_writeback(b, &dm, out, dm.addr < 32 ? bytes : 0xffffffffu);
  } else if (op_mul != QPU_M_NOP) {
    emit_writeback(b, &dm, mul_out, 0xffffffffu);
  }
  if (sig == QPU_SIG_LDTMU0 || sig == QPU_SIG_LDTMU1) {
    u = (qpu_uop){.kind = UOP_LDTMU, .side = (uint8_t)(sig == QPU_SIG_LDTMU1)};
    emit(b, u);
  }
  if (sig == QPU_SIG_LOADC || sig == QPU_SIG_LDCEND || sig == QPU_SIG_LOADCV || sig == QPU_SIG_LOADAM) {
    u = (qpu_uop){.kind = UOP_SIGNAL, .op = (uint8_t)sig};
    emit(b, u);
  }
  if (sig == QPU_SIG_THREND || sig == QPU_SIG_LDCEND) {
    u = (qpu_uop){.kind = UOP_THREND};
    emit(b, u);
  }
  if (flags_from_add || flags_from_mul) {
    u = (qpu_uop){.kind = UOP_SETF};
    emit(b, u);
  }
}

/* Load immediate (32-bit or per-element) without pack or flags. */
static int ldi_is_fast(uint64_t w) {
  unsigned t = qpu_get(w, QPU_F_LDI_TYPE);
  if (t != QPU_LDI_32 && t != QPU_LDI_PES && t != QPU_LDI_PEU) return 0;
  if (qpu_get(w, QPU_F_PACK) || qpu_get(w, QPU_F_SF)) return 0;
  dest da = alu_dest(w, 0), dm = alu_dest(w, 1);
  if (da.writes && dm.writes && da.addr == dm.addr && (da.addr >= 32 || da.side == dm.side)) return 0;
  return 1;
}

static void emit_ldi(builder *b, uint64_t w) {
  unsigned t = qpu_get(w, QPU_F_LDI_TYPE);
  uint32_t imm = qpu_get(w, QPU_F_IMM);
  gs_vec v;
  for (int i = 0; i < QPU_LANES; i++) {
    uint32_t two = ((imm >> i) & 1) | (((imm >> (16 + i)) & 1) << 1);
    v.u[i] = t == QPU_LDI_32 ? imm : t == QPU_LDI_PEU ? two : (uint32_t)((int32_t)(two << 30) >> 30);
  }
  dest da = alu_dest(w, 0), dm = alu_dest(w, 1);
  /* `ldi r0, x` loads straight into the accumulator (its write-back is
   * then in place); the MUL's write, to another destination, copies it. */
  uint8_t out = QREG_ADD_OUT;
  if (da.writes && da.cond == 1 && qpu_waddr_is_acc(da.addr)) out = (uint8_t)(QREG_R0 + da.addr - QPU_W_ACC0);
  qpu_uop u = {.kind = GS_UOP_CONST, .d = out};
  u.imm = add_const(b, &v);
  emit(b, u);
  emit_writeback(b, &da, out, 0xffffffffu);
  emit_writeback(b, &dm, out, 0xffffffffu);
}

/* Predecodes the instruction w, word `index` of its program, into b's
 * micro-ops, without the UOP_NEXT that ends them; returns 0 when the fast
 * interpreter leaves w to the reference interpreter. */
static int predecode_fast(builder *b, uint64_t w, uint32_t index) {
  if (qpu_invalid_reason(w)) return 0; /* the reference reports it */
  if (qpu_is_branch(w)) {
    qpu_uop u = {.kind = UOP_BRANCH, .cond = (uint8_t)qpu_get(w, QPU_F_COND_BR),
                 .op = (uint8_t)(qpu_get(w, QPU_F_REL) | qpu_get(w, QPU_F_REG) << 1),
                 .a = (uint16_t)qpu_get(w, QPU_F_RADDR_A_BR), .side = (uint8_t)qpu_get(w, QPU_F_WS),
                 .addr = (uint8_t)qpu_get(w, QPU_F_WADDR_ADD), .b = (uint16_t)qpu_get(w, QPU_F_WADDR_MUL),
                 .imm = qpu_get(w, QPU_F_IMM)};
    emit(b, u);
    return 1;
  }
  if (qpu_is_ldi(w)) {
    if (!ldi_is_fast(w)) return 0;
    emit_ldi(b, w);
    return 1;
  }
  if (!alu_is_fast(w)) return 0;
  if (qpu_reads_mutex(w)) emit(b, (qpu_uop){.kind = UOP_MAY_BLOCK, .imm = index});
  emit_alu(b, w);
  return 1;
}

/* Predecodes w into b: its micro-ops and UOP_NEXT, or one UOP_SLOW (the
 * reference interpreter then does the whole instruction, end included). */
static void predecode(builder *b, uint64_t w, uint32_t index) {
  size_t first = b->n;
  if (predecode_fast(b, w, index)) {
    emit(b, (qpu_uop){.kind = UOP_NEXT});
    return;
  }
  b->n = first;
  emit(b, (qpu_uop){.kind = UOP_SLOW});
}

static void mark_slot(uint64_t mask[2], unsigned slot) { mask[slot / 64] |= 1ull << (slot % 64); }

/* Adds the slots word w may write to mask (qpu_copy_state copies them): the
 * two write addresses, a register below 32 in the file its ALU writes (ws
 * swaps them) or an accumulator r0..r3 — every instruction form keeps them
 * in the same bits — and the slots w's micro-ops uops[first, end) compute
 * into (results, I/O reads). r4, r5 and ra15/rb15 are in QPU_ALWAYS_DIRTY0;
 * an instruction the reference interpreter runs marks every slot itself. */
static void mark_writes(uint64_t mask[2], uint64_t w, const qpu_uop *u, const qpu_uop *end) {
  for (int h = 0; h < 2; h++) {
    unsigned a = qpu_half_waddr(w, h);
    if (a < 32) mark_slot(mask, (qpu_half_side(w, h) ? QREG_RB0 : QREG_RA0) + a);
    if (qpu_waddr_is_acc(a)) mark_slot(mask, QREG_R0 + a - QPU_W_ACC0);
  }
  for (; u < end; u++)
    if (gs_uop_writes_reg(u->kind) || (u->kind >= UOP_V8ADDS && u->kind <= UOP_IO_READ)) mark_slot(mask, u->d);
}

static qpu_program *program_build(gs_gpu *g, uint32_t start, uint32_t n) {
  qpu_program *p = calloc(1, sizeof *p);
  builder b = {0};
  if (!p) return NULL;
  p->start = start;
  p->end = start + 8 * n;
  p->words = malloc(n * sizeof *p->words);
  p->insns = calloc(n, sizeof *p->insns);
  if (!p->words || !p->insns) goto oom;
  memcpy(p->words, gs_mem_ptr(g->mem, start, 8 * n), 8 * (size_t)n);
  for (uint32_t i = 0; i < n; i++) {
    size_t first = b.n;
    predecode(&b, p->words[i], i);
    if (b.oom) goto oom;
    mark_writes(p->wmask, p->words[i], b.uops + first, b.uops + b.n);
    p->insns[i].first_uop = (uint32_t)first;
  }
  /* a thread end whose delay slots are nops (QPU_NEXT_END_NOPS) */
  for (uint32_t i = 0; i + 2 < n; i++) {
    uint32_t f = p->insns[i].first_uop, e = p->insns[i + 1].first_uop;
    if (b.uops[e - 1].kind != UOP_NEXT || p->insns[i + 2].first_uop != e + 1 || b.uops[e].kind != UOP_NEXT ||
        (i + 3 < n ? p->insns[i + 3].first_uop : (uint32_t)b.n) != e + 2 || b.uops[e + 1].kind != UOP_NEXT)
      continue;
    for (uint32_t k = f; k + 1 < e; k++)
      if (b.uops[k].kind == UOP_THREND) b.uops[e - 1].op = QPU_NEXT_END_NOPS;
  }
  emit(&b, (qpu_uop){.kind = UOP_LEAVE});
  if (b.oom) goto oom;
  /* Slot numbers to byte offsets (decode.h); a branch's are its fields. */
  for (size_t k = 0; k < b.n; k++) {
    qpu_uop *u = &b.uops[k];
    if (u->kind == UOP_BRANCH) continue;
    u->d = (uint16_t)(u->d * sizeof(gs_vec));
    u->a = (uint16_t)(u->a * sizeof(gs_vec));
    u->b = (uint16_t)(u->b * sizeof(gs_vec));
  }
  p->uops = b.uops;
  p->consts = b.consts;
  p->nconsts = b.nconsts;
  return p;
oom:
  free(b.uops);
  free(b.consts);
  program_free(p);
  return NULL;
}

/* Whether the 8 bytes w at pc start a driver program's header (driver.h:
 * the magic, then the code's length, the allocation holding exactly the
 * 96-byte header and that code) rather than an instruction. */
static int is_program_header(const gs_gpu *g, uint32_t pc, const uint8_t *w) {
  uint32_t magic = (uint32_t)w[0] | (uint32_t)w[1] << 8 | (uint32_t)w[2] << 16 | (uint32_t)w[3] << 24;
  uint32_t bytes = (uint32_t)w[4] | (uint32_t)w[5] << 8 | (uint32_t)w[6] << 16 | (uint32_t)w[7] << 24;
  if (magic != GS_DRV_PROGRAM_MAGIC || bytes == 0 || bytes % 8 || bytes > 0x10000000u) return 0;
  uint32_t total = GS_DRV_PROGRAM_HEADER + bytes;
  return (pc < 8 || !gs_mem_ptr(g->mem, pc - 8, 16)) && gs_mem_ptr(g->mem, pc, total) &&
         (pc + total < pc || !gs_mem_ptr(g->mem, pc, total + 1));
}

int qpu_check_fetch(gs_gpu *g, const gs_qpu *q, uint32_t pc, const uint8_t *w) {
  if (!is_program_header(g, pc, w)) return GS_OK;
  if (pc >= 8 && gs_mem_ptr(g->mem, pc - 8, 8))
    return qpu_fault(g, q, GS_EFAULT,
                     "the program ran past its last instruction (at 0x%08x, the end of its allocation) without "
                     "a thread end: the next word, at 0x%08x, starts another program's header, not code", pc - 8,
                     pc);
  return qpu_fault(g, q, GS_EFAULT, "instruction fetch at 0x%08x: a program's header, not code (its code starts "
                   "at 0x%08x)", pc, pc + GS_DRV_PROGRAM_HEADER);
}

int qpu_fetch_fault(gs_gpu *g, const gs_qpu *q, uint32_t pc) {
  if (pc & 7) return qpu_fault(g, q, GS_EFAULT, "instruction fetch at 0x%08x is not 8-byte aligned", pc);
  if (pc >= 8 && gs_mem_ptr(g->mem, pc - 8, 8))
    return qpu_fault(g, q, GS_EFAULT,
                     "the program ran past its last instruction (at 0x%08x, the end of its allocation) without "
                     "a thread end: instruction fetch at 0x%08x is outside allocated GPU memory", pc - 8, pc);
  return qpu_fault(g, q, GS_EFAULT, "instruction fetch at 0x%08x is outside allocated GPU memory", pc);
}

static const qpu_program *prepare_locked(gs_gpu *g, gs_qpu *q, uint32_t pc);
static int program_current(const gs_gpu *g, const qpu_program *p);

const qpu_program *qpu_prepare(gs_gpu *g, gs_qpu *q, uint32_t pc) {
  mtx_lock(&qpu_cluster_of(g)->cache->lock);
  const qpu_program *p = prepare_locked(g, q, pc);
  mtx_unlock(&qpu_cluster_of(g)->cache->lock);
  return p;
}

/* Whether p's code is still in memory as it was prepared. */
static int program_current(const gs_gpu *g, const qpu_program *p) {
  const void *code = gs_mem_ptr(g->mem, p->start, p->end - p->start);
  return code && memcmp(code, p->words, p->end - p->start) == 0;
}

const qpu_program *qpu_find(gs_gpu *g, gs_qpu *q, uint32_t pc) {
  const qpu_program *h = q->hint;
  const qpu_cache *c = qpu_cluster_of(g)->cache;
  /* gen only changes in qpu_cache_trim, when no QPU runs. */
  if (h && q->hint_gen == c->gen && pc >= h->start && pc < h->end &&
      (q->hint_checked || program_current(g, h))) {
    q->hint_checked = q->hint_trust;
    return h;
  }
  /* qpu_prepare's program is current: just built, or compared */
  const qpu_program *p = qpu_prepare(g, q, pc);
  if (p) q->hint = p, q->hint_gen = c->gen, q->hint_checked = q->hint_trust;
  return p;
}

void qpu_trust_code(gs_qpu *q, int on) {
  q->hint_trust = on != 0;
  q->hint_checked = 0;
}

void qpu_cache_trim(gs_gpu *g) {
  qpu_cluster *cl = qpu_cluster_of(g);
  qpu_cache *c = cl->cache;
  mtx_lock(&c->lock);
  for (size_t i = 0; i < c->nretired; i++) program_free(c->retired[i]);
  c->nretired = 0;
  c->gen++;
  mtx_unlock(&c->lock);
  for (int i = 0; i < QPU_MAX; i++)
    if (cl->qpu[i]) cl->qpu[i]->prog = NULL, cl->qpu[i]->hint = NULL;
}

static const qpu_program *prepare_locked(gs_gpu *g, gs_qpu *q, uint32_t pc) {
  qpu_cache *c = qpu_cluster_of(g)->cache;
  const uint8_t *w = pc & 7 ? NULL : gs_mem_ptr(g->mem, pc, 8);
  if (!w) {
    qpu_fetch_fault(g, q, pc);
    return NULL;
  }
  if (qpu_check_fetch(g, q, pc, w) < 0) return NULL;
  for (size_t i = 0; i < c->n; i++) {
    qpu_program *p = c->progs[i];
    if (p->start != pc) continue;
    if (program_current(g, p)) return p;
    /* The code changed since it was prepared: retire it, prepare it again. */
    if (c->nretired == c->retired_cap) {
      size_t ncap = c->retired_cap ? c->retired_cap * 2 : 16;
      qpu_program **nr = realloc(c->retired, ncap * sizeof *nr);
      if (!nr) {
        qpu_fault(g, q, GS_ENOMEM, "out of host memory preparing the program at 0x%08x", pc);
        return NULL;
      }
      c->retired = nr;
      c->retired_cap = ncap;
    }
    c->retired[c->nretired++] = p;
    c->progs[i] = c->progs[--c->n];
    break;
  }
  uint32_t n = program_length(g->mem, pc);
  qpu_program *p = program_build(g, pc, n);
  if (c->n == c->cap) {
    size_t ncap = c->cap ? c->cap * 2 : 16;
    qpu_program **np = realloc(c->progs, ncap * sizeof *np);
    if (!np) {
      program_free(p);
      p = NULL;
    } else {
      c->progs = np;
      c->cap = ncap;
    }
  }
  if (!p) {
    qpu_fault(g, q, GS_ENOMEM, "out of host memory preparing the program at 0x%08x", pc);
    return NULL;
  }
  c->progs[c->n++] = p;
  return p;
}
