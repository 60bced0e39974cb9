/* pred.h — what a QPU instruction word reads and writes.
 *
 * One set of questions about an instruction word, answered from the fields
 * of the instruction table (table.h) and nowhere else: which form it has,
 * what each of its two halves (the ADD and the MUL ALU, or the two write
 * ports of a load immediate or a branch link) writes and on which side,
 * which read addresses and accumulators it reads, what its signal does.
 * The predecoder (decode.c), the I/O units (io.c) and the fragment-program
 * linker (link.c) all ask these, in the way Mesa's
 * src/broadcom/qpu/qpu_instr.c serves its later V3D generations.
 *
 * Facts: Broadcom's VideoCore IV 3D Architecture Reference Guide (RG) §3:
 * the instruction encodings (Figure 4), the write swap (ws), the signals
 * (Table 2), the register-address map (Table 14); branches write their link
 * through both write addresses.
 *
 * "Half" h is 0 for the ADD ALU (waddr_add, cond_add) and 1 for the MUL ALU
 * (waddr_mul, cond_mul); a load immediate and a branch write through the
 * same two fields. Accumulator masks have bit k for rk (r0..r5).
 */
#ifndef GS_QPU_PRED_H
#define GS_QPU_PRED_H

#include <stdbool.h>
#include <stdint.h>
#include "isa/qpu/table.h"

/* ---- the instruction's form and signal ----------------------------------- */

static inline unsigned qpu_sig(uint64_t w) { return qpu_get(w, QPU_F_SIG); }
static inline bool qpu_is_branch(uint64_t w) { return qpu_sig(w) == QPU_SIG_BRANCH; }
/* A load immediate, the semaphore form included. */
static inline bool qpu_is_ldi(uint64_t w) { return qpu_sig(w) == QPU_SIG_LOAD_IMM; }
/* The ALU form: signals 0..12 and the small-immediate form 13. */
static inline bool qpu_is_alu(uint64_t w) { return qpu_sig(w) < QPU_SIG_LOAD_IMM; }
static inline bool qpu_is_semaphore(uint64_t w) {
  return qpu_is_ldi(w) && qpu_get(w, QPU_F_LDI_TYPE) == QPU_LDI_SEMA;
}

/* The signal w gives (RG Table 2): its sig field in the ALU form, and
 * QPU_SIG_NONE for the small-immediate form, a load immediate or a branch,
 * which signal nothing. */
static inline unsigned qpu_signal(uint64_t w) {
  unsigned sig = qpu_sig(w);
  return sig < QPU_SIG_SMALL_IMM ? sig : QPU_SIG_NONE;
}
/* thrend, or ldcend (load the tile colour and end): the program ends after
 * two delay slots. */
static inline bool qpu_ends_thread(uint64_t w) {
  unsigned sig = qpu_signal(w);
  return sig == QPU_SIG_THREND || sig == QPU_SIG_LDCEND;
}
/* thrsw or lthrsw: the thread may switch after two delay slots. */
static inline bool qpu_switches_thread(uint64_t w) {
  unsigned sig = qpu_signal(w);
  return sig == QPU_SIG_THRSW || sig == QPU_SIG_LTHRSW;
}
/* loadc or ldcend: w loads the tile buffer's colour into r4. */
static inline bool qpu_loads_tile_colour(uint64_t w) {
  unsigned sig = qpu_signal(w);
  return sig == QPU_SIG_LOADC || sig == QPU_SIG_LDCEND;
}
/* A signal that loads r4: the tile colour, coverage or alpha-mask loads and
 * ldtmu0/ldtmu1. */
static inline bool qpu_signal_loads_r4(uint64_t w) {
  unsigned sig = qpu_signal(w);
  return sig == QPU_SIG_LOADCV || sig == QPU_SIG_LOADC || sig == QPU_SIG_LDCEND || sig == QPU_SIG_LDTMU0 ||
         sig == QPU_SIG_LDTMU1 || sig == QPU_SIG_LOADAM;
}

/* ---- classes of write addresses (RG Table 14) -------------------------------- */

/* r0..r3, which a write changes at once. */
static inline bool qpu_waddr_is_acc(unsigned a) { return a >= QPU_W_ACC0 && a <= QPU_W_ACC3; }
/* tlb_stencil, tlb_z, tlb_colour_ms, tlb_colour_all, tlb_alpha_mask. */
static inline bool qpu_waddr_is_tlb(unsigned a) { return a >= QPU_W_TLB_STENCIL && a <= QPU_W_TLB_ALPHA_MASK; }
/* sfu_recip, sfu_recipsqrt, sfu_exp, sfu_log: the result reaches r4 later. */
static inline bool qpu_waddr_is_sfu(unsigned a) { return a >= QPU_W_SFU_RECIP && a <= QPU_W_SFU_LOG; }
/* tmu0_s .. tmu1_b. */
static inline bool qpu_waddr_is_tmu(unsigned a) { return a >= QPU_W_TMU0_S && a <= QPU_W_TMU1_B; }

/* ---- what each half writes ------------------------------------------------------ */

static inline unsigned qpu_half_waddr(uint64_t w, int h) {
  return qpu_get(w, h ? QPU_F_WADDR_MUL : QPU_F_WADDR_ADD);
}
/* The write port half h uses: 0 the regfile-A side, 1 the B side. The ADD
 * half writes through A and the MUL half through B unless ws swaps them;
 * the side also picks the name of an I/O address (vr_setup/vw_setup, ...). */
static inline unsigned qpu_half_side(uint64_t w, int h) { return (unsigned)(h != 0) ^ qpu_get(w, QPU_F_WS); }
/* Half h's write condition (QPU_CONDS); a branch's link is written
 * unconditionally (1) when the branch is taken. */
static inline unsigned qpu_half_cond(uint64_t w, int h) {
  if (qpu_is_branch(w)) return 1;
  return qpu_get(w, h ? QPU_F_COND_MUL : QPU_F_COND_ADD);
}
/* Whether half h of w may write its destination: an ALU half whose opcode
 * is not nop, either half of a load immediate, a branch's link (when the
 * branch is taken); never under condition 0 (never) or to the nop
 * address 39. */
static inline bool qpu_half_writes(uint64_t w, int h) {
  if (qpu_half_waddr(w, h) == QPU_W_NOP || qpu_half_cond(w, h) == 0) return false;
  if (!qpu_is_alu(w)) return true;
  return h ? qpu_get(w, QPU_F_OP_MUL) != QPU_M_NOP : qpu_get(w, QPU_F_OP_ADD) != QPU_A_NOP;
}
/* The half of w that writes waddr (0 ADD, 1 MUL; ADD first), or -1. */
int qpu_half_writing(uint64_t w, unsigned waddr);
/* Whether w writes physical register reg (0..31) of file side (0 A, 1 B). */
bool qpu_writes_reg(uint64_t w, unsigned side, unsigned reg);
/* Whether w writes one of the SFU's registers. */
bool qpu_writes_sfu(uint64_t w);
/* Whether the MUL half's colour pack (pm = 1) writes only one byte of its
 * destination (.8a-.8d), so that an accumulator keeps its other bytes. */
bool qpu_mul_pack_partial(uint64_t w);

/* ---- what w reads ------------------------------------------------------------------- */

/* The address w's regfile-`file` read port (0 A, 1 B) reads in the read
 * stage — whether or not an ALU input selects it, an I/O address there
 * performs its read (RG Table 14) — or QPU_R_NOP when it reads nothing:
 * raddr_a and raddr_b in the ALU form (raddr_b holds a small immediate in
 * the small-immediate form), a register branch's raddr_a (a regfile-A
 * register), nothing for a load immediate. */
static inline unsigned qpu_raddr(uint64_t w, int file) {
  if (qpu_is_branch(w)) return !file && qpu_get(w, QPU_F_REG) ? qpu_get(w, QPU_F_RADDR_A_BR) : QPU_R_NOP;
  if (!qpu_is_alu(w)) return QPU_R_NOP;
  if (!file) return qpu_get(w, QPU_F_RADDR_A);
  return qpu_sig(w) == QPU_SIG_SMALL_IMM ? QPU_R_NOP : qpu_get(w, QPU_F_RADDR_B);
}
/* A read address that is an I/O register (not a physical register, not nop). */
static inline bool qpu_raddr_is_io(unsigned a) { return a >= 32 && a != QPU_R_NOP; }
/* Whether w reads the mutex (which acquires it, or stalls). */
bool qpu_reads_mutex(uint64_t w);
/* Accumulators (bits 0..5: r0..r5) w reads: the input muxes of the ALU
 * halves whose opcode is not nop, and r5 for a MUL rotation by r5 (the
 * small immediate 48). */
unsigned qpu_acc_reads(uint64_t w);

/* Accumulators (bits 0..5) w overwrites whole in every lane: an
 * unconditional write to r0..r3 that no partial colour pack narrows, or to
 * r5 (r5quad, r5rep) from an ALU or a load immediate; r5 for a varying
 * read (its C coefficient); r4 when an SFU write or a signal refills it. A
 * branch's link is not counted: it writes only when the branch is taken. */
unsigned qpu_acc_full_writes(uint64_t w);

#endif
