/* table.h — the VideoCore IV QPU instruction table: the single source of
 * truth for every field and code of the 64-bit instruction word. The
 * assembler, disassembler, predecoder and interpreters all
 * derive from these X-macro lists; an encoding is written here once.
 *
 * Facts: RG §3, Tables 1-14 (Broadcom VideoCore IV 3D
 * Architecture Reference Guide, with vc4asm's and py-videocore's
 * hardware-tested corrections; docs/sources.md).
 */
#ifndef GS_QPU_TABLE_H
#define GS_QPU_TABLE_H

#include <stdint.h>

/* ---- Fields: X(id, name, lo bit, width, forms) --------------------------
 * forms: bit 0 ALU, bit 1 load immediate (and semaphore), bit 2 branch.
 * The names are the ones the assembler's {field=value} overrides accept. */
#define QF_ALU 1
#define QF_LDI 2
#define QF_BR 4
#define QPU_FIELDS(X)                                                   \
  X(SIG, "sig", 60, 4, QF_ALU | QF_LDI | QF_BR)                         \
  X(UNPACK, "unpack", 57, 3, QF_ALU)                                    \
  X(LDI_TYPE, "ldi_type", 57, 3, QF_LDI)                                \
  X(BR_UNUSED, "br_unused", 56, 4, QF_BR)                               \
  X(PM, "pm", 56, 1, QF_ALU | QF_LDI)                                   \
  X(PACK, "pack", 52, 4, QF_ALU | QF_LDI)                               \
  X(COND_BR, "cond_br", 52, 4, QF_BR)                                   \
  X(COND_ADD, "cond_add", 49, 3, QF_ALU | QF_LDI)                       \
  X(REL, "rel", 51, 1, QF_BR)                                           \
  X(REG, "reg", 50, 1, QF_BR)                                           \
  X(RADDR_A_BR, "raddr_a_br", 45, 5, QF_BR)                             \
  X(COND_MUL, "cond_mul", 46, 3, QF_ALU | QF_LDI)                       \
  X(SF, "sf", 45, 1, QF_ALU | QF_LDI)                                   \
  X(WS, "ws", 44, 1, QF_ALU | QF_LDI | QF_BR)                           \
  X(WADDR_ADD, "waddr_add", 38, 6, QF_ALU | QF_LDI | QF_BR)             \
  X(WADDR_MUL, "waddr_mul", 32, 6, QF_ALU | QF_LDI | QF_BR)             \
  X(OP_MUL, "op_mul", 29, 3, QF_ALU)                                    \
  X(OP_ADD, "op_add", 24, 5, QF_ALU)                                    \
  X(RADDR_A, "raddr_a", 18, 6, QF_ALU)                                  \
  X(RADDR_B, "raddr_b", 12, 6, QF_ALU)                                  \
  X(ADD_A, "add_a", 9, 3, QF_ALU)                                       \
  X(ADD_B, "add_b", 6, 3, QF_ALU)                                       \
  X(MUL_A, "mul_a", 3, 3, QF_ALU)                                       \
  X(MUL_B, "mul_b", 0, 3, QF_ALU)                                       \
  X(IMM, "imm", 0, 32, QF_LDI | QF_BR)                                  \
  X(SEM_SA, "sem_sa", 4, 1, QF_LDI)                                     \
  X(SEM_NUM, "sem_num", 0, 4, QF_LDI)

enum qpu_field {
#define X(id, name, lo, w, forms) QPU_F_##id,
  QPU_FIELDS(X)
#undef X
  QPU_F_COUNT
};

typedef struct qpu_field_desc {
  const char *name;
  uint8_t lo, width, forms;
} qpu_field_desc;
extern const qpu_field_desc qpu_fields[QPU_F_COUNT];

static inline uint32_t qpu_get(uint64_t w, int f) {
  const qpu_field_desc *d = &qpu_fields[f];
  return (uint32_t)((w >> d->lo) & ((UINT64_C(1) << d->width) - 1));
}
static inline uint64_t qpu_set(uint64_t w, int f, uint32_t v) {
  const qpu_field_desc *d = &qpu_fields[f];
  uint64_t mask = ((UINT64_C(1) << d->width) - 1) << d->lo;
  return (w & ~mask) | (((uint64_t)v << d->lo) & mask);
}

/* ---- Signals (sig field): X(code, mnemonic) ---------------------------- */
#define QPU_SIGNALS(X)  \
  X(0, "bkpt")          \
  X(1, "")              \
  X(2, "thrsw")         \
  X(3, "thrend")        \
  X(4, "sbwait")        \
  X(5, "sbdone")        \
  X(6, "lthrsw")        \
  X(7, "loadcv")        \
  X(8, "loadc")         \
  X(9, "ldcend")        \
  X(10, "ldtmu0")       \
  X(11, "ldtmu1")       \
  X(12, "loadam")       \
  X(13, "small_imm")    \
  X(14, "load_imm")     \
  X(15, "branch")
enum {
  QPU_SIG_BKPT = 0, QPU_SIG_NONE = 1, QPU_SIG_THRSW = 2, QPU_SIG_THREND = 3,
  QPU_SIG_SBWAIT = 4, QPU_SIG_SBDONE = 5, QPU_SIG_LTHRSW = 6, QPU_SIG_LOADCV = 7,
  QPU_SIG_LOADC = 8, QPU_SIG_LDCEND = 9, QPU_SIG_LDTMU0 = 10, QPU_SIG_LDTMU1 = 11,
  QPU_SIG_LOADAM = 12, QPU_SIG_SMALL_IMM = 13, QPU_SIG_LOAD_IMM = 14, QPU_SIG_BRANCH = 15
};
extern const char *const qpu_sig_names[16];

/* ---- ADD ALU opcodes: X(code, mnemonic, operands, float_in, float_out) --
 * operands: 0 nop, 1 unary (operand A only), 2 binary. Reserved codes have
 * an empty mnemonic. */
#define QPU_ADD_OPS(X)            \
  X(0, "nop", 0, 0, 0)            \
  X(1, "fadd", 2, 1, 1)           \
  X(2, "fsub", 2, 1, 1)           \
  X(3, "fmin", 2, 1, 1)           \
  X(4, "fmax", 2, 1, 1)           \
  X(5, "fminabs", 2, 1, 1)        \
  X(6, "fmaxabs", 2, 1, 1)        \
  X(7, "ftoi", 1, 1, 0)           \
  X(8, "itof", 1, 0, 1)           \
  X(9, "", 0, 0, 0)               \
  X(10, "", 0, 0, 0)              \
  X(11, "", 0, 0, 0)              \
  X(12, "add", 2, 0, 0)           \
  X(13, "sub", 2, 0, 0)           \
  X(14, "shr", 2, 0, 0)           \
  X(15, "asr", 2, 0, 0)           \
  X(16, "ror", 2, 0, 0)           \
  X(17, "shl", 2, 0, 0)           \
  X(18, "min", 2, 0, 0)           \
  X(19, "max", 2, 0, 0)           \
  X(20, "and", 2, 0, 0)           \
  X(21, "or", 2, 0, 0)            \
  X(22, "xor", 2, 0, 0)           \
  X(23, "not", 1, 0, 0)           \
  X(24, "clz", 1, 0, 0)           \
  X(25, "", 0, 0, 0)              \
  X(26, "", 0, 0, 0)              \
  X(27, "", 0, 0, 0)              \
  X(28, "", 0, 0, 0)              \
  X(29, "", 0, 0, 0)              \
  X(30, "v8adds", 2, 0, 0)        \
  X(31, "v8subs", 2, 0, 0)
enum {
  QPU_A_NOP = 0, QPU_A_FADD, QPU_A_FSUB, QPU_A_FMIN, QPU_A_FMAX, QPU_A_FMINABS,
  QPU_A_FMAXABS, QPU_A_FTOI, QPU_A_ITOF, QPU_A_ADD = 12, QPU_A_SUB, QPU_A_SHR,
  QPU_A_ASR, QPU_A_ROR, QPU_A_SHL, QPU_A_MIN, QPU_A_MAX, QPU_A_AND, QPU_A_OR,
  QPU_A_XOR, QPU_A_NOT, QPU_A_CLZ, QPU_A_V8ADDS = 30, QPU_A_V8SUBS = 31
};

/* ---- MUL ALU opcodes: X(code, mnemonic, float_in, float_out) ----------- */
#define QPU_MUL_OPS(X)       \
  X(0, "nop", 0, 0)          \
  X(1, "fmul", 1, 1)         \
  X(2, "mul24", 0, 0)        \
  X(3, "v8muld", 0, 0)       \
  X(4, "v8min", 0, 0)        \
  X(5, "v8max", 0, 0)        \
  X(6, "v8adds", 0, 0)       \
  X(7, "v8subs", 0, 0)
enum {
  QPU_M_NOP = 0, QPU_M_FMUL, QPU_M_MUL24, QPU_M_V8MULD, QPU_M_V8MIN, QPU_M_V8MAX,
  QPU_M_V8ADDS, QPU_M_V8SUBS
};

typedef struct qpu_op_desc {
  const char *name;
  uint8_t operands, float_in, float_out;
} qpu_op_desc;
extern const qpu_op_desc qpu_add_ops[32];
extern const qpu_op_desc qpu_mul_ops[8];

/* ---- Write conditions (cond_add, cond_mul): X(code, suffix) ------------- */
#define QPU_CONDS(X) \
  X(0, "never")      \
  X(1, "always")     \
  X(2, "zs")         \
  X(3, "zc")         \
  X(4, "ns")         \
  X(5, "nc")         \
  X(6, "cs")         \
  X(7, "cc")
extern const char *const qpu_cond_names[8];

/* ---- Branch conditions: X(code, suffix); "" = reserved, "always" = 15 --- */
#define QPU_BRANCH_CONDS(X) \
  X(0, "allz")              \
  X(1, "allnz")             \
  X(2, "anyz")              \
  X(3, "anynz")             \
  X(4, "alln")              \
  X(5, "allnn")             \
  X(6, "anyn")              \
  X(7, "anynn")             \
  X(8, "allc")              \
  X(9, "allnc")             \
  X(10, "anyc")             \
  X(11, "anync")            \
  X(12, "")                 \
  X(13, "")                 \
  X(14, "")                 \
  X(15, "always")
extern const char *const qpu_branch_cond_names[16];

/* ---- Input muxes ------------------------------------------------------- */
enum { QPU_MUX_R0 = 0, QPU_MUX_R1, QPU_MUX_R2, QPU_MUX_R3, QPU_MUX_R4, QPU_MUX_R5,
       QPU_MUX_A, QPU_MUX_B };

/* ---- Regfile-A pack (pm=0): X(code, suffix) ---------------------------- */
#define QPU_PACKS(X) \
  X(0, "")           \
  X(1, "16a")        \
  X(2, "16b")        \
  X(3, "8888")       \
  X(4, "8a")         \
  X(5, "8b")         \
  X(6, "8c")         \
  X(7, "8d")         \
  X(8, "32s")        \
  X(9, "16as")       \
  X(10, "16bs")      \
  X(11, "8888s")     \
  X(12, "8as")       \
  X(13, "8bs")       \
  X(14, "8cs")       \
  X(15, "8ds")
extern const char *const qpu_pack_names[16];

/* ---- MUL colour pack (pm=1): X(code, suffix); "" with code>0 = reserved  */
#define QPU_MUL_PACKS(X) \
  X(0, "")               \
  X(1, "")               \
  X(2, "")               \
  X(3, "8888")           \
  X(4, "8a")             \
  X(5, "8b")             \
  X(6, "8c")             \
  X(7, "8d")             \
  X(8, "")               \
  X(9, "")               \
  X(10, "")              \
  X(11, "")              \
  X(12, "")              \
  X(13, "")              \
  X(14, "")              \
  X(15, "")
extern const char *const qpu_mul_pack_names[16];

/* ---- Unpack (regfile A when pm=0, r4 when pm=1): X(code, suffix) ------- */
#define QPU_UNPACKS(X) \
  X(0, "")             \
  X(1, "16a")          \
  X(2, "16b")          \
  X(3, "8dr")          \
  X(4, "8a")           \
  X(5, "8b")           \
  X(6, "8c")           \
  X(7, "8d")
extern const char *const qpu_unpack_names[8];

/* ---- Read addresses: X(addr, regfile-A name, regfile-B name) -----------
 * 0..31 are the physical registers (ra<n>/rb<n>); the names here are for
 * 32..63. "" = unmapped (an instruction naming it is invalid). */
#define QPU_RADDRS(X)                 \
  X(32, "unif", "unif")               \
  X(33, "", "")                       \
  X(34, "", "")                       \
  X(35, "vary", "vary")               \
  X(36, "", "")                       \
  X(37, "", "")                       \
  X(38, "elem_num", "qpu_num")        \
  X(39, "-", "-")                     \
  X(40, "", "")                       \
  X(41, "x_coord", "y_coord")         \
  X(42, "ms_mask", "rev_flag")        \
  X(43, "", "")                       \
  X(44, "", "")                       \
  X(45, "", "")                       \
  X(46, "", "")                       \
  X(47, "", "")                       \
  X(48, "vpm", "vpm")                 \
  X(49, "vr_busy", "vw_busy")         \
  X(50, "vr_wait", "vw_wait")         \
  X(51, "mutex", "mutex")             \
  X(52, "", "")                       \
  X(53, "", "")                       \
  X(54, "", "")                       \
  X(55, "", "")                       \
  X(56, "", "")                       \
  X(57, "", "")                       \
  X(58, "", "")                       \
  X(59, "", "")                       \
  X(60, "", "")                       \
  X(61, "", "")                       \
  X(62, "", "")                       \
  X(63, "", "")
enum {
  QPU_R_UNIF = 32, QPU_R_VARY = 35, QPU_R_ELEM_QPU = 38, QPU_R_NOP = 39,
  QPU_R_XY_COORD = 41, QPU_R_MS_REV = 42, QPU_R_VPM = 48, QPU_R_BUSY = 49,
  QPU_R_WAIT = 50, QPU_R_MUTEX = 51
};
extern const char *const qpu_raddr_names[2][64]; /* [0]=A, [1]=B; ra<n>/rb<n> for n<32 */

/* ---- Write addresses: X(addr, A-side name, B-side name) ----------------
 * "A-side" is the regfile-A write port (ADD when ws=0, MUL when ws=1). */
#define QPU_WADDRS(X)                           \
  X(32, "r0", "r0")                             \
  X(33, "r1", "r1")                             \
  X(34, "r2", "r2")                             \
  X(35, "r3", "r3")                             \
  X(36, "tmu_noswap", "tmu_noswap")             \
  X(37, "r5quad", "r5rep")                      \
  X(38, "host_int", "host_int")                 \
  X(39, "-", "-")                               \
  X(40, "unif_addr", "unif_addr_rel")           \
  X(41, "quad_x", "quad_y")                     \
  X(42, "ms_flags", "rev_flag")                 \
  X(43, "tlb_stencil", "tlb_stencil")           \
  X(44, "tlb_z", "tlb_z")                       \
  X(45, "tlb_colour_ms", "tlb_colour_ms")       \
  X(46, "tlb_colour_all", "tlb_colour_all")     \
  X(47, "tlb_alpha_mask", "tlb_alpha_mask")     \
  X(48, "vpm", "vpm")                           \
  X(49, "vr_setup", "vw_setup")                 \
  X(50, "vr_addr", "vw_addr")                   \
  X(51, "mutex_release", "mutex_release")       \
  X(52, "sfu_recip", "sfu_recip")               \
  X(53, "sfu_recipsqrt", "sfu_recipsqrt")       \
  X(54, "sfu_exp", "sfu_exp")                   \
  X(55, "sfu_log", "sfu_log")                   \
  X(56, "tmu0_s", "tmu0_s")                     \
  X(57, "tmu0_t", "tmu0_t")                     \
  X(58, "tmu0_r", "tmu0_r")                     \
  X(59, "tmu0_b", "tmu0_b")                     \
  X(60, "tmu1_s", "tmu1_s")                     \
  X(61, "tmu1_t", "tmu1_t")                     \
  X(62, "tmu1_r", "tmu1_r")                     \
  X(63, "tmu1_b", "tmu1_b")
enum {
  QPU_W_ACC0 = 32, QPU_W_ACC1, QPU_W_ACC2, QPU_W_ACC3, QPU_W_TMU_NOSWAP,
  QPU_W_ACC5, QPU_W_HOST_INT, QPU_W_NOP, QPU_W_UNIFORMS_ADDRESS, QPU_W_QUAD_XY,
  QPU_W_MS_REV, QPU_W_TLB_STENCIL, QPU_W_TLB_Z, QPU_W_TLB_COLOUR_MS,
  QPU_W_TLB_COLOUR_ALL, QPU_W_TLB_ALPHA_MASK, QPU_W_VPM, QPU_W_VPMVCD_SETUP,
  QPU_W_VPM_ADDR, QPU_W_MUTEX_RELEASE, QPU_W_SFU_RECIP, QPU_W_SFU_RECIPSQRT,
  QPU_W_SFU_EXP, QPU_W_SFU_LOG, QPU_W_TMU0_S, QPU_W_TMU0_T, QPU_W_TMU0_R,
  QPU_W_TMU0_B, QPU_W_TMU1_S, QPU_W_TMU1_T, QPU_W_TMU1_R, QPU_W_TMU1_B
};
extern const char *const qpu_waddr_names[2][64]; /* [0]=A side, [1]=B side */

/* ---- Small immediates (raddr_b when sig=13) -----------------------------
 * 0..15 → 0..15; 16..31 → −16..−1; 32..39 → 2^(c−32) as float;
 * 40..47 → 2^(c−48) as float; 48 → MUL rotation by r5 (elem 0, bits 3:0),
 * 49..63 → MUL rotation by 1..15. As a B-mux operand, 48..63 read as −16..−1
 * (RG Table 5, vc4asm's addendum). */
uint32_t qpu_small_imm_value(unsigned code);

/* ---- Load-immediate variants (bits 59:57 when sig=14) ------------------ */
enum { QPU_LDI_32 = 0, QPU_LDI_PES = 1, QPU_LDI_PEU = 3, QPU_LDI_SEMA = 4 };

/* The canonical NOP word (RG §3). */
#define QPU_NOP_WORD UINT64_C(0x100009e7009e7000)

/* Returns NULL if w is a valid instruction word, else why it is not (for
 * example "reserved add opcode 9"). */
const char *qpu_invalid_reason(uint64_t w);

#endif
