/* pred.c — what a QPU instruction word reads and writes (pred.h). */
#include "isa/qpu/pred.h"

int qpu_half_writing(uint64_t w, unsigned waddr) {
  for (int h = 0; h < 2; h++)
    if (qpu_half_writes(w, h) && qpu_half_waddr(w, h) == waddr) return h;
  return -1;
}

bool qpu_writes_reg(uint64_t w, unsigned side, unsigned reg) {
  for (int h = 0; h < 2; h++)
    if (qpu_half_writes(w, h) && qpu_half_waddr(w, h) == reg && qpu_half_side(w, h) == side) return true;
  return false;
}

bool qpu_writes_sfu(uint64_t w) {
  for (int h = 0; h < 2; h++)
    if (qpu_half_writes(w, h) && qpu_waddr_is_sfu(qpu_half_waddr(w, h))) return true;
  return false;
}

bool qpu_mul_pack_partial(uint64_t w) {
  unsigned pack = qpu_get(w, QPU_F_PACK);
  return !qpu_is_branch(w) && qpu_get(w, QPU_F_PM) && pack >= 4 && pack <= 7;
}

bool qpu_reads_mutex(uint64_t w) { return qpu_raddr(w, 0) == QPU_R_MUTEX || qpu_raddr(w, 1) == QPU_R_MUTEX; }

unsigned qpu_acc_reads(uint64_t w) {
  if (!qpu_is_alu(w)) return 0;
  static const int muxes[2][2] = {{QPU_F_ADD_A, QPU_F_ADD_B}, {QPU_F_MUL_A, QPU_F_MUL_B}};
  bool used[2] = {qpu_get(w, QPU_F_OP_ADD) != QPU_A_NOP, qpu_get(w, QPU_F_OP_MUL) != QPU_M_NOP};
  unsigned m = 0;
  for (int h = 0; h < 2; h++)
    for (int k = 0; used[h] && k < 2; k++) {
      unsigned mux = qpu_get(w, muxes[h][k]);
      if (mux <= QPU_MUX_R5) m |= 1u << mux;
    }
  if (used[1] && qpu_sig(w) == QPU_SIG_SMALL_IMM && qpu_get(w, QPU_F_RADDR_B) == 48) m |= 1u << 5;
  return m;
}

unsigned qpu_acc_full_writes(uint64_t w) {
  unsigned m = 0;
  for (int h = 0; h < 2 && !qpu_is_branch(w); h++) {
    if (!qpu_half_writes(w, h)) continue;
    unsigned a = qpu_half_waddr(w, h);
    bool whole = qpu_half_cond(w, h) == 1 && !(h == 1 && qpu_mul_pack_partial(w));
    if (qpu_waddr_is_acc(a) && whole) m |= 1u << (a - QPU_W_ACC0);
    if (a == QPU_W_ACC5 && qpu_half_cond(w, h) == 1) m |= 1u << 5;
    if (qpu_waddr_is_sfu(a)) m |= 1u << 4;
  }
  if (qpu_raddr(w, 0) == QPU_R_VARY || qpu_raddr(w, 1) == QPU_R_VARY) m |= 1u << 5;
  if (qpu_signal_loads_r4(w)) m |= 1u << 4;
  return m;
}
