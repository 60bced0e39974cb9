/* exec_ref.c — the plain reference interpreter of the VideoCore IV QPU.
 *
 * qpu_step_ref executes the one instruction at q->pc, field by field from the
 * 64-bit word and lane by lane, in this order: fetch,
 * read stage, operands, execute, conditions, write-back, flags, signals,
 * retire. It is written to be obviously correct rather than fast: the fast
 * interpreter (exec.c) is tested against it and hands it the instruction
 * shapes it does not specialise. Every behaviour no source settles is written
 * down in docs/determinism.md.
 */
#include <assert.h>
#include <stdint.h>
#include <string.h>
#include "isa/qpu/alu.h"
#include "isa/qpu/decode.h"
#include "isa/qpu/qpu.h"
#include "isa/qpu/table.h"
#include "v3d/v3d.h"

/* One ALU output (or the load-immediate / branch-link value standing in for
 * it) on its way from execution to write-back. */
typedef struct ref_out {
  gs_vec r;              /* result before pack: the flags are computed on it */
  uint32_t c[QPU_LANES]; /* C flag each lane would set */
  gs_vec packed;         /* value to write, after pack, positioned */
  uint32_t bytes;        /* bits of the destination the write changes */
  uint16_t lanes;        /* lanes whose write condition passed */
  unsigned waddr;        /* destination address 0..63 */
  int side;              /* 0: regfile-A port, 1: regfile-B port */
  int active;            /* 0 when the ALU's opcode is nop: nothing is written */
} ref_out;

static void broadcast(gs_vec *v, uint32_t x) {
  for (int i = 0; i < QPU_LANES; i++) v->u[i] = x;
}

/* ---- Fetch ---------------------------------------------------------------- */

/* Reads the 64-bit word at q->pc (little-endian, low word first). */
static int fetch(gs_gpu *g, gs_qpu *q, uint64_t *w) {
  const unsigned char *p = q->pc & 7 ? NULL : gs_mem_ptr(g->mem, q->pc, 8);
  if (!p) return qpu_fetch_fault(g, q, q->pc);
  int rc = qpu_check_fetch(g, q, q->pc, p);
  if (rc < 0) return rc;
  uint64_t x = 0;
  for (int k = 7; k >= 0; k--) x = (x << 8) | p[k];
  *w = x;
  return GS_OK;
}

/* ---- Conditions ------------------------------------------------------------ */

/* Lanes in which write condition `cond` (QPU_CONDS) passes, judged on the
 * flags as they were before this instruction (RG Tables 1-2). */
static uint16_t cond_lanes(const gs_qpu *q, unsigned cond) {
  uint16_t m = 0;
  for (int i = 0; i < QPU_LANES; i++) {
    int z = q->zf >> i & 1, n = q->nf >> i & 1, c = q->cf >> i & 1, pass;
    switch (cond) {
    case 0: pass = 0; break;  /* never */
    case 1: pass = 1; break;  /* always */
    case 2: pass = z; break;  /* zs */
    case 3: pass = !z; break; /* zc */
    case 4: pass = n; break;  /* ns */
    case 5: pass = !n; break; /* nc */
    case 6: pass = c; break;  /* cs */
    default: pass = !c; break; /* cc */
    }
    m |= (uint16_t)(pass << i);
  }
  return m;
}

/* Whether branch condition `cond` (QPU_BRANCH_CONDS) holds over the 16
 * lanes' flags (RG §3): codes 0..11 are, for Z, N and C in
 * turn, "all set", "all clear", "any set", "any clear"; 15 is always. */
static int branch_taken(const gs_qpu *q, unsigned cond) {
  if (cond == 15) return 1;
  uint16_t flag = cond < 4 ? q->zf : cond < 8 ? q->nf : q->cf;
  int nset = 0;
  for (int i = 0; i < QPU_LANES; i++) nset += flag >> i & 1;
  switch (cond & 3) {
  case 0: return nset == QPU_LANES; /* all set */
  case 1: return nset == 0;         /* all clear */
  case 2: return nset > 0;          /* any set */
  default: return nset < QPU_LANES; /* any clear */
  }
}

/* ---- Read stage and operands ------------------------------------------------ */

/* The value read through raddr of regfile `file` (0 A, 1 B). Registers 0..31
 * are read as committed: a write staged by the previous instruction is not
 * visible yet (read-after-write latency, RG §3, instruction restrictions). I/O
 * addresses perform their read (uniform pop, VPM pop, ...) here, whether or
 * not a mux selects the value. */
static int read_port(gs_gpu *g, gs_qpu *q, int file, unsigned addr, gs_vec *out) {
  if (addr < 32) {
    *out = q->reg[(file ? QREG_RB0 : QREG_RA0) + addr];
    return GS_OK;
  }
  return qpu_io_read(g, q, file, addr, out);
}

/* The operand selected by `mux` for a consumer that takes float input or
 * not. Unpack (RG Tables 6-9): with pm=0 the raddr_a value (mux 6)
 * is unpacked as the consumer reads it; with pm=1 r4 (mux 4) is unpacked, as
 * floats always. */
static void select_operand(const gs_qpu *q, uint64_t w, unsigned mux, int float_in, const gs_vec *va,
                           const gs_vec *vb, gs_vec *out) {
  unsigned pm = qpu_get(w, QPU_F_PM), unpack = qpu_get(w, QPU_F_UNPACK);
  switch (mux) {
  case QPU_MUX_A:
    for (int i = 0; i < QPU_LANES; i++)
      out->u[i] = (pm || !unpack) ? va->u[i]
                  : float_in      ? qpu_unpack_float(unpack, va->u[i])
                                  : qpu_unpack_int(unpack, va->u[i]);
    return;
  case QPU_MUX_B:
    *out = *vb;
    return;
  case QPU_MUX_R4:
    for (int i = 0; i < QPU_LANES; i++)
      out->u[i] = (pm && unpack) ? qpu_unpack_float(unpack, q->reg[QREG_R4].u[i]) : q->reg[QREG_R4].u[i];
    return;
  default: /* r0..r3, r5 */
    *out = q->reg[QREG_R0 + mux];
    return;
  }
}

/* ---- Execute ---------------------------------------------------------------- */

/* The source lane of result lane i under a MUL rotation by n
 * (RG §3, vector rotation): across all 16 lanes, or within each quad. */
static int rotated_source(int i, unsigned n, int full) {
  if (full) return (i + QPU_LANES - (int)n) & 15;
  return (i & 12) | ((i + QPU_LANES - (int)n) & 3);
}

/* ---- Pack and write-back ---------------------------------------------------- */

/* Sets o->packed and o->bytes from o->r (RG Tables 6-9). pm=0: the
 * regfile-A pack applies to whichever ALU writes a physical register of
 * file A. pm=1: the colour pack applies to the MUL result wherever it goes;
 * registers keep their other bytes, an I/O register receives the whole
 * packed word. overflow[] is the signed overflow for the 32-bit saturating
 * pack (NULL: none). */
static void apply_pack(uint64_t w, int is_mul, int float_out, const uint32_t *overflow, ref_out *o) {
  unsigned pm = qpu_get(w, QPU_F_PM), pack = qpu_get(w, QPU_F_PACK);
  o->packed = o->r;
  o->bytes = 0xffffffffu;
  if (pack == 0) return;
  if (pm) {
    if (!is_mul) return;
    for (int i = 0; i < QPU_LANES; i++) o->packed.u[i] = qpu_pack_mul(pack, o->r.u[i]);
    if (o->waddr <= QPU_W_ACC3) o->bytes = qpu_mul_pack_bytes(pack);
    return;
  }
  if (o->side != 0 || o->waddr >= 32) return;
  for (int i = 0; i < QPU_LANES; i++)
    o->packed.u[i] = qpu_pack_a(pack, o->r.u[i], float_out, overflow ? overflow[i] : 0);
  o->bytes = qpu_pack_bytes(pack);
}

/* Writes o to its destination in the lanes of o->lanes: a physical register
 * is staged (committed by qpu_retire at the end of the next instruction), an
 * accumulator r0..r3 changes at once (operands are already read), anything
 * else is an I/O write (r5quad/r5rep, SFU, TMU, VPM, ...). */
static int write_out(gs_gpu *g, gs_qpu *q, const ref_out *o) {
  if (!o->active || !o->lanes) return GS_OK;
  if (o->waddr < 32) {
    assert(q->nnext < 2);
    qpu_pending_write *p = &q->next[q->nnext++];
    p->v = o->packed;
    p->bytes = o->bytes;
    p->lanes = o->lanes;
    p->reg = (uint8_t)((o->side ? QREG_RB0 : QREG_RA0) + o->waddr);
    return GS_OK;
  }
  if (o->waddr <= QPU_W_ACC3) {
    gs_vec *acc = &q->reg[QREG_R0 + (o->waddr - QPU_W_ACC0)];
    for (int i = 0; i < QPU_LANES; i++)
      if (o->lanes >> i & 1) acc->u[i] = (acc->u[i] & ~o->bytes) | (o->packed.u[i] & o->bytes);
    return GS_OK;
  }
  return qpu_io_write(g, q, o->side, o->waddr, &o->packed, o->lanes);
}

/* Writes the ADD output, then the MUL output. */
static int write_both(gs_gpu *g, gs_qpu *q, const ref_out *add, const ref_out *mul) {
  int rc = write_out(g, q, add);
  if (rc != GS_OK) return rc;
  return write_out(g, q, mul);
}

/* Sets Z, N and C from the pre-pack result o->r in the lanes of `lanes`;
 * other lanes keep their flags (RG Tables 1-2). */
static void set_flags(gs_qpu *q, const ref_out *o, uint16_t lanes) {
  for (int i = 0; i < QPU_LANES; i++) {
    if (!(lanes >> i & 1)) continue;
    uint16_t bit = (uint16_t)(1u << i);
    q->zf = (uint16_t)(o->r.u[i] == 0 ? q->zf | bit : q->zf & ~bit);
    q->nf = (uint16_t)(o->r.u[i] >> 31 ? q->nf | bit : q->nf & ~bit);
    q->cf = (uint16_t)(o->c[i] ? q->cf | bit : q->cf & ~bit);
  }
}

/* ---- Signals ------------------------------------------------------------------ */

/* Effects of the signal field of an ALU instruction, after write-back and
 * flags: loads into r4 (visible to the next instruction), breakpoint, thread
 * end after two delay slots; thread switches and scoreboard signals are
 * no-ops for user programs (io.c). */
static int do_signal(gs_gpu *g, gs_qpu *q, unsigned sig) {
  int rc;
  switch (sig) {
  case QPU_SIG_NONE:
  case QPU_SIG_SMALL_IMM:
    return GS_OK;
  case QPU_SIG_THREND:
    q->end_delay = 3;
    return GS_OK;
  case QPU_SIG_LDCEND:
    if ((rc = qpu_io_signal(g, q, sig)) != GS_OK) return rc;
    q->end_delay = 3;
    return GS_OK;
  default:
    return qpu_io_signal(g, q, sig);
  }
}

/* ---- The three instruction forms ------------------------------------------- */

/* Initialises o for write-back through waddr on `side` under `cond`. */
static void init_out(ref_out *o, const gs_qpu *q, unsigned waddr, int side, unsigned cond, int active) {
  memset(o->c, 0, sizeof o->c);
  o->waddr = waddr;
  o->side = side;
  o->lanes = cond_lanes(q, cond);
  o->active = active;
}

/* ALU instruction (sig 0..13). */
static int exec_alu(gs_gpu *g, gs_qpu *q, uint64_t w) {
  unsigned sig = qpu_get(w, QPU_F_SIG);
  unsigned op_add = qpu_get(w, QPU_F_OP_ADD), op_mul = qpu_get(w, QPU_F_OP_MUL);
  unsigned raddr_b = qpu_get(w, QPU_F_RADDR_B), ws = qpu_get(w, QPU_F_WS);
  int rc;

  /* Read stage: one read per field (RG Table 14). */
  gs_vec va, vb;
  if ((rc = read_port(g, q, 0, qpu_get(w, QPU_F_RADDR_A), &va)) != GS_OK) return rc;
  if (sig == QPU_SIG_SMALL_IMM) broadcast(&vb, qpu_small_imm_value(raddr_b));
  else if ((rc = read_port(g, q, 1, raddr_b, &vb)) != GS_OK) return rc;

  /* Operands, each unpacked for the op that consumes it. */
  gs_vec add_a, add_b, mul_a, mul_b;
  int add_fin = qpu_add_ops[op_add].float_in, mul_fin = qpu_mul_ops[op_mul].float_in;
  select_operand(q, w, qpu_get(w, QPU_F_ADD_A), add_fin, &va, &vb, &add_a);
  select_operand(q, w, qpu_get(w, QPU_F_ADD_B), add_fin, &va, &vb, &add_b);
  select_operand(q, w, qpu_get(w, QPU_F_MUL_A), mul_fin, &va, &vb, &mul_a);
  select_operand(q, w, qpu_get(w, QPU_F_MUL_B), mul_fin, &va, &vb, &mul_b);

  /* Execute the ADD ALU. */
  ref_out add, mul;
  uint32_t overflow[QPU_LANES];
  init_out(&add, q, qpu_get(w, QPU_F_WADDR_ADD), ws ? 1 : 0, qpu_get(w, QPU_F_COND_ADD), op_add != QPU_A_NOP);
  for (int i = 0; i < QPU_LANES; i++) {
    uint32_t a = add_a.u[i], b = add_b.u[i], r = qpu_add_op(op_add, a, b);
    add.r.u[i] = r;
    add.c[i] = qpu_add_carry(op_add, a, b, r);
    overflow[i] = qpu_add_overflow(op_add, a, b, r);
  }

  /* Execute the MUL ALU, rotated when the small immediate asks for it. */
  init_out(&mul, q, qpu_get(w, QPU_F_WADDR_MUL), ws ? 0 : 1, qpu_get(w, QPU_F_COND_MUL), op_mul != QPU_M_NOP);
  unsigned n = 0;
  int full = 0;
  if (sig == QPU_SIG_SMALL_IMM && raddr_b >= 48) {
    n = raddr_b == 48 ? (q->reg[QREG_R5].u[0] & 15) : raddr_b - 48;
    full = qpu_get(w, QPU_F_MUL_A) <= QPU_MUX_R3 && qpu_get(w, QPU_F_MUL_B) <= QPU_MUX_R3;
  }
  for (int i = 0; i < QPU_LANES; i++) {
    int s = rotated_source(i, n, full);
    mul.r.u[i] = qpu_mul_op(op_mul, mul_a.u[s], mul_b.u[s]);
    mul.c[i] = qpu_mul_carry(op_mul, mul_a.u[s], mul_b.u[s]);
  }

  /* Pack and write back, ADD first. */
  apply_pack(w, 0, qpu_add_ops[op_add].float_out, overflow, &add);
  apply_pack(w, 1, qpu_mul_ops[op_mul].float_out, NULL, &mul);
  if ((rc = write_both(g, q, &add, &mul)) != GS_OK) return rc;

  /* Flags: from the ADD ALU unless its opcode is nop (vc4asm's addendum). */
  if (qpu_get(w, QPU_F_SF)) {
    if (op_add != QPU_A_NOP) set_flags(q, &add, add.lanes);
    else if (op_mul != QPU_M_NOP) set_flags(q, &mul, mul.lanes);
  }
  return do_signal(g, q, sig);
}

/* The value lane i receives from a load immediate (RG §3):
 * the 32-bit immediate, or the 2-bit number {imm[16+i], imm[i]}, signed or
 * unsigned. The semaphore form loads its whole low word. */
static uint32_t ldi_lane_value(unsigned type, uint32_t imm, int i) {
  uint32_t v = ((imm >> (16 + i)) & 1) << 1 | ((imm >> i) & 1);
  if (type == QPU_LDI_PEU) return v;
  if (type == QPU_LDI_PES) return v >= 2 ? (uint32_t)((int32_t)v - 4) : v;
  return imm;
}

/* Load immediate and semaphore (sig 14): both ALU outputs carry the value;
 * conditions, write swap, pack and flags apply as for an ALU instruction
 * whose ADD op is an integer move. */
static int exec_ldi(gs_gpu *g, gs_qpu *q, uint64_t w) {
  unsigned type = qpu_get(w, QPU_F_LDI_TYPE), ws = qpu_get(w, QPU_F_WS);
  uint32_t imm = qpu_get(w, QPU_F_IMM);
  ref_out add, mul;
  init_out(&add, q, qpu_get(w, QPU_F_WADDR_ADD), ws ? 1 : 0, qpu_get(w, QPU_F_COND_ADD), 1);
  init_out(&mul, q, qpu_get(w, QPU_F_WADDR_MUL), ws ? 0 : 1, qpu_get(w, QPU_F_COND_MUL), 1);
  for (int i = 0; i < QPU_LANES; i++) add.r.u[i] = mul.r.u[i] = ldi_lane_value(type, imm, i);
  apply_pack(w, 0, 0, NULL, &add);
  apply_pack(w, 1, 0, NULL, &mul);
  int rc = write_both(g, q, &add, &mul);
  if (rc != GS_OK) return rc;
  if (qpu_get(w, QPU_F_SF)) set_flags(q, &add, add.lanes);
  if (type == QPU_LDI_SEMA) return qpu_io_semaphore(g, q, w);
  return GS_OK;
}

/* Branch (sig 15): when taken, the jump happens after three delay slots and
 * the link pc+32 is written through waddr_add/waddr_mul; an odd raddr_a
 * (bit 45, the ALU form's sf) also sets flags from the link (RG §3, with
 * vc4asm's corrections). A branch not taken writes nothing. */
static int exec_branch(gs_gpu *g, gs_qpu *q, uint64_t w) {
  if (!branch_taken(q, qpu_get(w, QPU_F_COND_BR))) return GS_OK;
  unsigned ra = qpu_get(w, QPU_F_RADDR_A_BR), ws = qpu_get(w, QPU_F_WS);
  uint32_t target = qpu_get(w, QPU_F_IMM);
  if (qpu_get(w, QPU_F_REL)) target += q->pc + 32;
  if (qpu_get(w, QPU_F_REG)) target += q->reg[QREG_RA0 + ra].u[15]; /* element 15: §8.1 */
  q->branch_target = target;
  q->branch_delay = 4;

  ref_out add, mul;
  init_out(&add, q, qpu_get(w, QPU_F_WADDR_ADD), ws ? 1 : 0, 1, 1);
  init_out(&mul, q, qpu_get(w, QPU_F_WADDR_MUL), ws ? 0 : 1, 1, 1);
  broadcast(&add.r, q->pc + 32);
  mul.r = add.r;
  add.packed = mul.packed = add.r;
  add.bytes = mul.bytes = 0xffffffffu;
  int rc = write_both(g, q, &add, &mul);
  if (rc != GS_OK) return rc;
  if (ra & 1) set_flags(q, &add, QPU_ALL_LANES);
  return GS_OK;
}

/* ---- Retire --------------------------------------------------------------------- */

/* End of an instruction: commit the previous instruction's staged writes,
 * count the SFU, branch and thread-end delays down and move the pc. */
static int finish(gs_qpu *q) {
  qpu_retire(q);
  q->instructions++;
  if (q->branch_delay > 0 && --q->branch_delay == 0) q->pc = q->branch_target;
  else q->pc += 8;
  if (q->end_delay > 0 && --q->end_delay == 0) {
    qpu_retire(q); /* the last instruction's regfile writes land too */
    return QPU_STEP_END;
  }
  return QPU_STEP_OK;
}

int qpu_step_ref(gs_gpu *g, gs_qpu *q) {
  uint64_t w = 0;
  q->dirty[0] = q->dirty[1] = ~0ull; /* not tracked here: qpu_copy_state copies all */
  int rc = fetch(g, q, &w);
  if (rc != GS_OK) return rc;
  const char *why = qpu_invalid_reason(w);
  if (why)
    return qpu_fault(g, q, GS_EINVAL, "invalid instruction 0x%08x_%08x: %s", (unsigned)(w >> 32),
                     (unsigned)(w & 0xffffffffu), why);
  if (qpu_io_would_block(g, q, w)) return QPU_STEP_STALL;
  switch (qpu_get(w, QPU_F_SIG)) {
  case QPU_SIG_BRANCH: rc = exec_branch(g, q, w); break;
  case QPU_SIG_LOAD_IMM: rc = exec_ldi(g, q, w); break;
  default: rc = exec_alu(g, q, w); break;
  }
  if (rc != GS_OK) return rc;
  return finish(q);
}
