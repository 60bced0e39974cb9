/* table.c — the QPU instruction table expanded into lookup arrays, and the
 * validity rules of an instruction word (see table.h). */
#include <stddef.h>
#include "isa/qpu/table.h"

const qpu_field_desc qpu_fields[QPU_F_COUNT] = {
#define X(id, name, lo, w, forms) [QPU_F_##id] = {name, lo, w, forms},
    QPU_FIELDS(X)
#undef X
};

const char *const qpu_sig_names[16] = {
#define X(code, name) [code] = name,
    QPU_SIGNALS(X)
#undef X
};

const qpu_op_desc qpu_add_ops[32] = {
#define X(code, name, n, fi, fo) [code] = {name, n, fi, fo},
    QPU_ADD_OPS(X)
#undef X
};

const qpu_op_desc qpu_mul_ops[8] = {
#define X(code, name, fi, fo) [code] = {name, (code) ? 2 : 0, fi, fo},
    QPU_MUL_OPS(X)
#undef X
};

const char *const qpu_cond_names[8] = {
#define X(code, name) [code] = name,
    QPU_CONDS(X)
#undef X
};

const char *const qpu_branch_cond_names[16] = {
#define X(code, name) [code] = name,
    QPU_BRANCH_CONDS(X)
#undef X
};

const char *const qpu_pack_names[16] = {
#define X(code, name) [code] = name,
    QPU_PACKS(X)
#undef X
};

const char *const qpu_mul_pack_names[16] = {
#define X(code, name) [code] = name,
    QPU_MUL_PACKS(X)
#undef X
};

const char *const qpu_unpack_names[8] = {
#define X(code, name) [code] = name,
    QPU_UNPACKS(X)
#undef X
};

#define REGS_0_31(p)                                                        \
  p "0", p "1", p "2", p "3", p "4", p "5", p "6", p "7", p "8", p "9",     \
  p "10", p "11", p "12", p "13", p "14", p "15", p "16", p "17", p "18",   \
  p "19", p "20", p "21", p "22", p "23", p "24", p "25", p "26", p "27",   \
  p "28", p "29", p "30", p "31"

const char *const qpu_raddr_names[2][64] = {
    {REGS_0_31("ra"),
#define X(addr, a, b) [addr] = a,
     QPU_RADDRS(X)
#undef X
    },
    {REGS_0_31("rb"),
#define X(addr, a, b) [addr] = b,
     QPU_RADDRS(X)
#undef X
    }};

const char *const qpu_waddr_names[2][64] = {
    {REGS_0_31("ra"),
#define X(addr, a, b) [addr] = a,
     QPU_WADDRS(X)
#undef X
    },
    {REGS_0_31("rb"),
#define X(addr, a, b) [addr] = b,
     QPU_WADDRS(X)
#undef X
    }};

uint32_t qpu_small_imm_value(unsigned code) {
  code &= 63;
  if (code <= 15) return code;
  if (code <= 31) return (uint32_t)((int32_t)code - 32);
  if (code <= 39) return (uint32_t)(127 + (code - 32)) << 23; /* 2^(c-32) */
  if (code <= 47) return (uint32_t)(127 + code - 48) << 23;   /* 2^(c-48) */
  return (uint32_t)((int32_t)code - 64);                      /* rotations read as -16..-1 */
}

/* A read address the instruction performs must be mapped. */
static const char *check_raddr(int file, unsigned addr) {
  if (addr >= 32 && qpu_raddr_names[file][addr][0] == '\0')
    return file ? "unmapped regfile-B read address" : "unmapped regfile-A read address";
  return NULL;
}

const char *qpu_invalid_reason(uint64_t w) {
  unsigned sig = qpu_get(w, QPU_F_SIG);
  if (sig == QPU_SIG_BRANCH) {
    unsigned c = qpu_get(w, QPU_F_COND_BR);
    if (qpu_branch_cond_names[c][0] == '\0') return "reserved branch condition";
    return NULL;
  }
  if (sig == QPU_SIG_LOAD_IMM) {
    unsigned t = qpu_get(w, QPU_F_LDI_TYPE);
    if (t != QPU_LDI_32 && t != QPU_LDI_PES && t != QPU_LDI_PEU && t != QPU_LDI_SEMA)
      return "reserved load-immediate type";
  } else {
    unsigned op = qpu_get(w, QPU_F_OP_ADD);
    if (qpu_add_ops[op].name[0] == '\0') return "reserved add opcode";
    const char *r = check_raddr(0, qpu_get(w, QPU_F_RADDR_A));
    if (r) return r;
    if (sig != QPU_SIG_SMALL_IMM && (r = check_raddr(1, qpu_get(w, QPU_F_RADDR_B))))
      return r;
  }
  if (qpu_get(w, QPU_F_PM) && qpu_mul_pack_names[qpu_get(w, QPU_F_PACK)][0] == '\0' &&
      qpu_get(w, QPU_F_PACK) != 0)
    return "reserved MUL pack mode";
  return NULL;
}
