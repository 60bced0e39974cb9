/* exec_ref.c — the SASS reference interpreter (exec.h): plain C, one
 * instruction at a time, each over the lanes its guard selects. The fast
 * path will be measured against it bit for bit. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "isa/sass/exec.h"
#include "isa/sass/num.h"
#include "isa/sass/table.h"

/* Everything but the registers. */
static void warp_state(sass_warp *w, uint32_t lanes, uint32_t pc, uint8_t *local, uint32_t local_size) {
  memset(w->p, 0x80, sizeof w->p);
  memset(w->cc, 0, sizeof w->cc);
  w->pc = pc;
  w->lanes = w->active = lanes;
  w->exited = w->killed = 0;
  w->depth = 0;
  w->steps = 0;
  w->local = local;
  w->local_size = local_size;
}

void sass_warp_reset(sass_warp *w, uint32_t lanes, uint32_t pc, uint8_t *local, uint32_t local_size) {
  memset(w->r, 0, sizeof w->r);
  warp_state(w, lanes, pc, local, local_size);
}

unsigned sass_program_nregs(const sass_program *p) {
  unsigned n = 0;
  for (size_t i = 0; i < p->n; i++) {
    const sass_insn *in = &p->insn[i];
    const uint8_t r[4] = {in->rd, in->ra, in->rb, in->rc};
    for (int k = 0; k < 4; k++)
      if (r[k] != SASS_RZ && (unsigned)r[k] + 4 > n) n = (unsigned)r[k] + 4;
  }
  return n < SASS_RZ ? n : SASS_RZ;
}

void sass_warp_start(sass_warp *w, unsigned nregs, uint32_t lanes, uint32_t pc, uint8_t *local,
                     uint32_t local_size) {
  memset(w->r, 0, (size_t)(nregs < SASS_RZ ? nregs : SASS_RZ) * sizeof w->r[0]);
  memset(w->r[SASS_RZ], 0, sizeof w->r[SASS_RZ]);
  warp_state(w, lanes, pc, local, local_size);
}

void sass_warp_start_regs(sass_warp *w, const uint8_t *regs, unsigned n, uint32_t lanes, uint32_t pc, uint8_t *local,
                          uint32_t local_size) {
  for (unsigned k = 0; k < n; k++) memset(w->r[regs[k]], 0, sizeof w->r[0]);
  memset(w->r[SASS_RZ], 0, sizeof w->r[SASS_RZ]);
  warp_state(w, lanes, pc, local, local_size);
}

#define REG_SET(s, r) ((s)[(r) >> 5] |= 1u << ((r) & 31))
#define REG_HAS(s, r) ((s)[(r) >> 5] >> ((r) & 31) & 1u)

unsigned sass_program_first_reads(const sass_program *p, unsigned nregs, const uint32_t after[8], uint8_t *regs) {
  uint32_t written[8] = {0}, reads[8] = {0};
  size_t i;
  for (i = 0; i < p->n; i++) {
    const sass_insn *in = &p->insn[i];
    int every = (in->guard & 7) == SASS_PT && !in->guard_neg; /* every lane runs it */
    int writes = 1;
    switch ((sass_op)in->op) {
      case SASS_OP_NOP: case SASS_OP_DEPBAR: case SASS_OP_MEMBAR: case SASS_OP_BAR:
        continue;
      case SASS_OP_EXIT:
        if (!every || sass_mod(in, SASS_M_EXIT_FLOW) != 15) break;
        /* every lane is done: then the outputs are read */
        for (unsigned k = 0; k < 8; k++) reads[k] |= after[k] & ~written[k];
        goto done;
      case SASS_OP_FSETP: case SASS_OP_ISETP: case SASS_OP_PSETP:
        writes = 0; /* predicates only */
        /* fall through */
      case SASS_OP_MOV: case SASS_OP_MOV32I: case SASS_OP_S2R: case SASS_OP_SEL: case SASS_OP_RRO:
      case SASS_OP_FADD: case SASS_OP_FMUL: case SASS_OP_FFMA: case SASS_OP_FADD32I: case SASS_OP_FMUL32I:
      case SASS_OP_FFMA32I: case SASS_OP_FMNMX: case SASS_OP_FSET: case SASS_OP_FCMP: case SASS_OP_MUFU:
      case SASS_OP_IADD: case SASS_OP_IADD3: case SASS_OP_IADD32I: case SASS_OP_ISCADD: case SASS_OP_ISCADD32I:
      case SASS_OP_IMNMX: case SASS_OP_ISET: case SASS_OP_ICMP: case SASS_OP_LOP: case SASS_OP_LOP32I:
      case SASS_OP_LOP3: case SASS_OP_SHL: case SASS_OP_SHR: case SASS_OP_BFE: case SASS_OP_BFI: case SASS_OP_XMAD:
      case SASS_OP_IMUL: case SASS_OP_IMUL32I: case SASS_OP_FLO: case SASS_OP_POPC: case SASS_OP_PSET:
      case SASS_OP_IPA: {
        /* one register written, none but its operand slots read */
        const uint8_t src[3] = {in->ra, in->rb, in->rc};
        for (unsigned k = 0; k < 3; k++)
          if (src[k] != SASS_RZ && !REG_HAS(written, src[k])) REG_SET(reads, src[k]);
        if (writes && every && in->rd != SASS_RZ) REG_SET(written, in->rd);
        continue;
      }
      default:
        break;
    }
    break; /* control flow, the other I/O, conversions (some of them pairs): anything may be read from here */
  }
  for (unsigned r = 0; r < nregs && r < SASS_RZ; r++)
    if (!REG_HAS(written, r)) REG_SET(reads, r);
done:;
  unsigned n = 0;
  for (unsigned r = 0; r < SASS_RZ; r++)
    if (REG_HAS(reads, r)) regs[n++] = (uint8_t)r;
  return n;
}

int sass_flow_test(unsigned t, unsigned cc) {
  int z = !!(cc & SASS_CC_Z), s = !!(cc & SASS_CC_S), c = !!(cc & SASS_CC_C), o = !!(cc & SASS_CC_O);
  switch (t & 31) {
    case 0: return 0;
    case 1: return (s & !z) ^ o;
    case 2: return (!s) & z;
    case 3: return s ^ (z | o);
    case 4: return (!s ^ o) & !z;
    case 5: return !z;
    case 6: return !(s ^ o);
    case 7: return !s | !z;
    case 8: return s & z;
    case 9: return s ^ o;
    case 10: return z;
    case 11: return (s ^ o) | z;
    case 12: return !s ^ (z | o);
    case 13: return s | !z;
    case 14: return ((!s) | z) ^ o;
    case 15: return 1;
    case 16: return !o;
    case 17: return !c;
    case 18: return !s;
    case 19: return z | !c;
    case 20: return c & !z;
    case 21: return s;
    case 22: return c;
    case 23: return o;
    case 30: return s | z;
    case 31: return !s & !z;
    default: return 0; /* 24-29: the CSM tests, refused by the decoder's table */
  }
}

/* ---- lanes, registers, predicates ---------------------------------------- */

#define M(id) sass_mod(in, SASS_M_##id)
#define FOR_LANES(m) for (uint32_t lm_ = (m), l; lm_ && (l = (uint32_t)__builtin_ctz(lm_), 1); lm_ &= lm_ - 1)

static inline void wr(sass_warp *w, unsigned r, unsigned l, uint32_t v) {
  if (r != SASS_RZ) w->r[r][l] = v;
}
static inline unsigned pred(const sass_warp *w, unsigned p, unsigned l) { return (w->p[l] >> (p & 7)) & 1; }
static inline unsigned predn(const sass_warp *w, unsigned p, unsigned neg, unsigned l) { return pred(w, p, l) ^ (neg & 1); }
static inline void pwr(sass_warp *w, unsigned p, unsigned l, unsigned v) {
  if ((p & 7) == SASS_PT) return;
  w->p[l] = (uint8_t)((w->p[l] & ~(1u << p)) | ((v & 1u) << p));
}

/* The lanes of `active` whose guard holds. */
static uint32_t guard_lanes(const sass_warp *w, const sass_insn *in, uint32_t active) {
  if (in->guard == SASS_PT) return in->guard_neg ? 0 : active;
  uint32_t m = 0;
  FOR_LANES(active) if (predn(w, in->guard, in->guard_neg, l)) m |= 1u << l;
  return m;
}
/* The lanes of m whose flow test holds. */
static uint32_t flow_lanes(const sass_warp *w, unsigned test, uint32_t m) {
  if (test == 15) return m;
  uint32_t r = 0;
  FOR_LANES(m) if (sass_flow_test(test, w->cc[l])) r |= 1u << l;
  return r;
}

/* ---- errors ----------------------------------------------------------------- */

static int fail(gs_diag *d, int code, const char *name, uint32_t pc, const sass_insn *in, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static int fail(gs_diag *d, int code, const char *name, uint32_t pc, const sass_insn *in, const char *fmt, ...) {
  char why[512], text[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  if (sass_disasm_insn(in->raw, pc, text, sizeof text) < 0)
    snprintf(text, sizeof text, "0x%016llx", (unsigned long long)in->raw);
  return gs_diag_set(d, code, "%s, pc 0x%04x (%s): %s", name ? name : "SASS program", pc, text, why);
}

/* ---- operands ---------------------------------------------------------------- */

/* The instruction's operands that do not depend on the lane: the constant
 * of a constant-buffer form. */
typedef struct opnds {
  uint32_t cv;
} opnds;

static inline uint32_t op_b(const sass_warp *w, const sass_insn *in, const opnds *o, unsigned l) {
  switch (in->form) {
    case SASS_FORM_REG: case SASS_FORM_RC: return w->r[in->rb][l];
    case SASS_FORM_CBUF: case SASS_FORM_CR: return o->cv;
    default: return in->imm;
  }
}
static inline uint32_t op_c(const sass_warp *w, const sass_insn *in, const opnds *o, unsigned l) {
  return in->form == SASS_FORM_RC ? o->cv : w->r[in->rc][l];
}

/* The interpreter's own system registers (exec.h). */
static uint32_t sysreg_default(const sass_warp *w, unsigned sr, unsigned l) {
  switch (sr) {
    case 0x00: return l;                               /* SR_LANEID */
    case 0x12: return SASS_ONE;                        /* SR_Y_DIRECTION: +1.0 */
    case 0x13: return 0;                               /* SR_THREAD_KILL: no helper lanes */
    case 0x1d: return 0x00ff0000u;                     /* SR_INVOCATION_INFO outside tessellation */
    case 0x38: return 1u << l;                         /* SR_EQMASK */
    case 0x39: return (1u << l) - 1;                   /* SR_LTMASK */
    case 0x3a: return (2u << l) - 1;                   /* SR_LEMASK (l = 31: all) */
    case 0x3b: return ~((2u << l) - 1);                /* SR_GTMASK */
    case 0x3c: return ~((1u << l) - 1);                /* SR_GEMASK */
    case 0x50: return (uint32_t)w->steps;              /* SR_CLOCKLO: instructions run */
    case 0x51: return (uint32_t)(w->steps >> 32);      /* SR_CLOCKHI */
    default: return 0;                                 /* unknown registers read 0 */
  }
}

/* The integer flags of IADD-like instructions. */
static unsigned iflags(unsigned neg_a, unsigned neg_b, unsigned x) {
  return (neg_a ? SASS_INEG_A : 0) | (neg_b ? SASS_INEG_B : 0) | (x ? SASS_IX : 0);
}
static unsigned fzflags(unsigned fmz, unsigned sat) {
  return (fmz == 1 ? SASS_FTZ : fmz == 2 ? SASS_FMZ : 0) | (sat ? SASS_SAT : 0);
}

/* ---- the convergence stack ---------------------------------------------------- */

static int push(sass_warp *w, unsigned kind, uint32_t pc, uint32_t mask) {
  if (w->depth == SASS_STACK) return -1;
  w->stack[w->depth++] = (sass_entry){(uint8_t)kind, pc, mask};
  return 0;
}

/* The topmost entry of kind, or -1. */
static int find(const sass_warp *w, unsigned kind) {
  for (int i = (int)w->depth - 1; i >= 0; i--)
    if (w->stack[i].kind == kind) return i;
  return -1;
}

/* No lane is active: the stack's entries give the next lanes. 0: w->active
 * and w->pc set, or nothing left to run (active 0). */
static void pop(sass_warp *w) {
  while (!w->active && w->depth) {
    sass_entry *e = &w->stack[--w->depth];
    w->active = e->mask & ~w->exited;
    w->pc = e->pc;
  }
}

/* A branch target: one that is a control word's means the instruction after it. */
static inline uint32_t target_of(uint32_t t) { return (t & 31) == 0 ? t + 8 : t; }

static inline uint32_t next_pc(uint32_t pc) { return ((pc + 8) & 31) == 0 ? pc + 16 : pc + 8; }

/* ---- one instruction ------------------------------------------------------------ */

/* Runs instruction in at w->pc over lanes m (guard already applied; the
 * flow test is the instruction's own business). Sets *jump when it changed
 * pc or the active lanes itself. */
static int step(sass_warp *w, const sass_program *p, const sass_io *io, const sass_insn *in, uint32_t m,
                int *jump, const char *name, gs_diag *d) {
  opnds o = {0};
  uint32_t pc = w->pc;
  unsigned rd = in->rd;
  if (in->form == SASS_FORM_CBUF || in->form == SASS_FORM_CR || in->form == SASS_FORM_RC)
    if (m && sass_cbuf_read(io, in->cbank, in->cbyte, &o.cv) < 0)
      return fail(d, GS_EFAULT, name, pc, in, "c[0x%x][0x%x] is past the end of constant buffer %u (%u bytes bound)",
                  in->cbank, in->cbyte, in->cbank, in->cbank < SASS_CBANKS && io->cb[in->cbank] ? io->cb_size[in->cbank] : 0);
  switch ((sass_op)in->op) {
    /* ---- moves and conversions ---- */
    case SASS_OP_MOV: case SASS_OP_MOV32I:
      FOR_LANES(m) wr(w, rd, l, op_b(w, in, &o, l));
      break;
    case SASS_OP_S2R: {
      unsigned sr = M(S2R_SR);
      FOR_LANES(m) {
        uint32_t v;
        if (!io->sysreg || !io->sysreg(io->ctx, sr, l, &v)) v = sysreg_default(w, sr, l);
        wr(w, rd, l, v);
      }
      break;
    }
    case SASS_OP_CS2R: {
      unsigned sr = M(CS2R_SR);
      FOR_LANES(m) wr(w, rd, l, sysreg_default(w, sr, l));
      break;
    }
    case SASS_OP_F2F: case SASS_OP_F2I: case SASS_OP_I2F: case SASS_OP_I2I: {
      unsigned src, dst, op = in->op;
      switch (op) {
        case SASS_OP_F2F: src = M(F2F_SRC), dst = M(F2F_DST); break;
        case SASS_OP_F2I: src = M(F2I_SRC), dst = M(F2I_DST) & 3; break;
        case SASS_OP_I2F: src = M(I2F_SRC) & 3, dst = M(I2F_DST); break;
        default: src = M(I2I_SRC) & 3, dst = M(I2I_DST) & 3; break;
      }
      if (!sass_cvt_supported(op, src, dst))
        return fail(d, GS_EINVAL, name, pc, in, "this conversion's formats (64-bit) are not modelled by gpusim");
      FOR_LANES(m) {
        uint32_t b = op_b(w, in, &o, l), r;
        switch (op) {
          case SASS_OP_F2F: {
            unsigned rnd = M(F2F_RND);
            unsigned fl = (M(F2F_FTZ) ? SASS_FTZ : 0) | (M(F2F_SAT) ? SASS_SAT : 0) | (M(F2F_ABS_B) ? SASS_ABS : 0) |
                          (M(F2F_NEG_B) ? SASS_NEG : 0) | (M(F2F_H1) ? SASS_H1 : 0) | (rnd >= 4 ? SASS_INT : 0);
            r = sass_f2f(b, src, dst, rnd & 3, fl);
            break;
          }
          case SASS_OP_F2I: {
            unsigned fl = (M(F2I_FTZ) ? SASS_FTZ : 0) | (M(F2I_ABS_B) ? SASS_ABS : 0) | (M(F2I_NEG_B) ? SASS_NEG : 0) |
                          (M(F2I_H1) ? SASS_H1 : 0);
            r = sass_f2i(b, src, dst, (M(F2I_DST) >> 2) & 1, M(F2I_RND), fl);
            break;
          }
          case SASS_OP_I2F:
            r = sass_i2f(b, src, (M(I2F_SRC) >> 2) & 1, M(I2F_BSEL), dst, M(I2F_RND),
                         (M(I2F_ABS_B) ? SASS_ABS : 0) | (M(I2F_NEG_B) ? SASS_NEG : 0));
            break;
          default:
            r = sass_i2i(b, src, (M(I2I_SRC) >> 2) & 1, M(I2I_BSEL), dst, (M(I2I_DST) >> 2) & 1,
                         (M(I2I_ABS_B) ? SASS_ABS : 0) | (M(I2I_NEG_B) ? SASS_NEG : 0) | (M(I2I_SAT) ? SASS_SAT : 0));
            break;
        }
        wr(w, rd, l, r);
        unsigned cc = op == SASS_OP_F2F ? M(F2F_CC) : op == SASS_OP_F2I ? M(F2I_CC) : op == SASS_OP_I2F ? M(I2F_CC) : M(I2I_CC);
        if (cc) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    }
    case SASS_OP_SEL:
      FOR_LANES(m) wr(w, rd, l, predn(w, M(SEL_PC), M(SEL_PC_NEG), l) ? w->r[in->ra][l] : op_b(w, in, &o, l));
      break;
    case SASS_OP_P2R: {
      unsigned sh = 8 * M(P2R_BSEL), cc = M(P2R_SRC);
      FOR_LANES(m) {
        uint32_t mask = (op_b(w, in, &o, l) & 0xffu) << sh;
        uint32_t bits = (uint32_t)(cc ? w->cc[l] : (w->p[l] & 0x7fu)) << sh;
        wr(w, rd, l, (w->r[in->ra][l] & ~mask) | (bits & mask));
      }
      break;
    }
    case SASS_OP_R2P: {
      unsigned sh = 8 * M(R2P_BSEL), cc = M(R2P_SRC);
      FOR_LANES(m) {
        uint32_t mask = op_b(w, in, &o, l) & 0xffu, bits = (w->r[in->ra][l] >> sh) & 0xffu;
        if (cc) w->cc[l] = (uint8_t)((w->cc[l] & ~mask & 15u) | (bits & mask & 15u));
        else w->p[l] = (uint8_t)((w->p[l] & ~(mask & 0x7fu)) | (bits & mask & 0x7fu) | 0x80u);
      }
      break;
    }

    /* ---- float ---- */
    case SASS_OP_FADD: case SASS_OP_FADD32I: {
      unsigned fl = (M(FADD_FTZ) ? SASS_FTZ : 0) | (M(FADD_SAT) ? SASS_SAT : 0), rnd = M(FADD_RND);
      FOR_LANES(m) {
        uint32_t a = sass_fmods(w->r[in->ra][l], M(FADD_ABS_A), M(FADD_NEG_A));
        uint32_t b = sass_fmods(op_b(w, in, &o, l), M(FADD_ABS_B), M(FADD_NEG_B));
        uint32_t r = sass_fadd(a, b, rnd, fl);
        wr(w, rd, l, r);
        if (M(FADD_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    }
    case SASS_OP_FMUL: case SASS_OP_FMUL32I: {
      unsigned fl = fzflags(M(FMUL_FMZ), M(FMUL_SAT)), rnd = M(FMUL_RND), sc = M(FMUL_SCALE);
      FOR_LANES(m) {
        uint32_t a = w->r[in->ra][l], b = op_b(w, in, &o, l);
        if (M(FMUL_NEG)) a = sass_fneg(a);
        uint32_t r = sass_fmul(a, b, rnd, fl, sc);
        wr(w, rd, l, r);
        if (M(FMUL_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    }
    case SASS_OP_FFMA: case SASS_OP_FFMA32I: {
      unsigned fl = fzflags(M(FFMA_FMZ), M(FFMA_SAT)), rnd = M(FFMA_RND);
      FOR_LANES(m) {
        uint32_t a = w->r[in->ra][l], b = op_b(w, in, &o, l), c = op_c(w, in, &o, l);
        if (M(FFMA_NEG_AB)) a = sass_fneg(a);
        if (M(FFMA_NEG_C)) c = sass_fneg(c);
        uint32_t r = sass_ffma(a, b, c, rnd, fl);
        wr(w, rd, l, r);
        if (M(FFMA_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    }
    case SASS_OP_FMNMX:
      FOR_LANES(m) {
        uint32_t a = sass_fmods(w->r[in->ra][l], M(FMNMX_ABS_A), M(FMNMX_NEG_A));
        uint32_t b = sass_fmods(op_b(w, in, &o, l), M(FMNMX_ABS_B), M(FMNMX_NEG_B));
        uint32_t r = sass_fmnmx(a, b, predn(w, M(FMNMX_PC), M(FMNMX_PC_NEG), l), M(FMNMX_FTZ));
        wr(w, rd, l, r);
        if (M(FMNMX_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_FSET:
      FOR_LANES(m) {
        uint32_t a = sass_fmods(w->r[in->ra][l], M(FSET_ABS_A), M(FSET_NEG_A));
        uint32_t b = sass_fmods(op_b(w, in, &o, l), M(FSET_ABS_B), M(FSET_NEG_B));
        unsigned t = sass_bop(M(FSET_BOP), sass_fcmp(M(FSET_CMP), a, b, M(FSET_FTZ)),
                              predn(w, M(FSET_PC), M(FSET_PC_NEG), l));
        uint32_t r = sass_fset(t, M(FSET_BF));
        wr(w, rd, l, r);
        if (M(FSET_CC)) w->cc[l] = (uint8_t)sass_fset_cc(r, M(FSET_BF));
      }
      break;
    case SASS_OP_FSETP:
      FOR_LANES(m) {
        uint32_t a = sass_fmods(w->r[in->ra][l], M(FSETP_ABS_A), M(FSETP_NEG_A));
        uint32_t b = sass_fmods(op_b(w, in, &o, l), M(FSETP_ABS_B), M(FSETP_NEG_B));
        unsigned r = sass_setp(M(FSETP_BOP), sass_fcmp(M(FSETP_CMP), a, b, M(FSETP_FTZ)),
                               predn(w, M(FSETP_PC), M(FSETP_PC_NEG), l));
        pwr(w, M(FSETP_PD), l, r & 1);
        pwr(w, M(FSETP_PD2), l, r >> 1);
      }
      break;
    case SASS_OP_FCMP:
      FOR_LANES(m) wr(w, rd, l, sass_fcmp_sel(M(FCMP_CMP), w->r[in->ra][l], op_b(w, in, &o, l), op_c(w, in, &o, l),
                                              M(FCMP_FTZ)));
      break;
    case SASS_OP_MUFU:
      FOR_LANES(m) {
        uint32_t r = sass_mufu(M(MUFU_OP), sass_fmods(w->r[in->ra][l], M(MUFU_ABS_A), M(MUFU_NEG_A)));
        wr(w, rd, l, M(MUFU_SAT) ? sass_fsat(r) : r);
      }
      break;
    case SASS_OP_RRO:
      FOR_LANES(m) wr(w, rd, l, sass_rro(sass_fmods(op_b(w, in, &o, l), M(RRO_ABS_B), M(RRO_NEG_B))));
      break;

    /* ---- integer ---- */
    case SASS_OP_IADD: case SASS_OP_IADD32I: {
      unsigned fl = iflags(M(IADD_NEG_A) || M(IADD_PO), M(IADD_NEG_B) || M(IADD_PO), M(IADD_X)) |
                    (M(IADD_SAT) ? SASS_ISAT : 0);
      FOR_LANES(m) {
        unsigned cc;
        uint32_t r = sass_iadd(w->r[in->ra][l], op_b(w, in, &o, l), fl, w->cc[l], &cc);
        wr(w, rd, l, r);
        if (M(IADD_CC)) w->cc[l] = (uint8_t)cc;
      }
      break;
    }
    case SASS_OP_IADD3: {
      unsigned fl = iflags(M(IADD3_NEG_A), M(IADD3_NEG_B), M(IADD3_X)) | (M(IADD3_NEG_C) ? SASS_INEG_C : 0);
      FOR_LANES(m) {
        unsigned cc;
        uint32_t a = sass_half(w->r[in->ra][l], M(IADD3_HALF_A)), b = sass_half(op_b(w, in, &o, l), M(IADD3_HALF_B));
        uint32_t c = sass_half(op_c(w, in, &o, l), M(IADD3_HALF_C));
        uint32_t r = sass_iadd3(a, b, c, fl, M(IADD3_MODE), w->cc[l], &cc);
        wr(w, rd, l, r);
        if (M(IADD3_CC)) w->cc[l] = (uint8_t)cc;
      }
      break;
    }
    case SASS_OP_ISCADD: case SASS_OP_ISCADD32I: {
      unsigned fl = iflags(M(ISCADD_NEG_A), M(ISCADD_NEG_B), 0);
      FOR_LANES(m) {
        unsigned cc;
        uint32_t r = sass_iscadd(w->r[in->ra][l], op_b(w, in, &o, l), M(ISCADD_SHIFT), fl, &cc);
        wr(w, rd, l, r);
        if (M(ISCADD_CC)) w->cc[l] = (uint8_t)cc;
      }
      break;
    }
    case SASS_OP_IMUL: case SASS_OP_IMUL32I:
      FOR_LANES(m) {
        uint32_t r = sass_imul(w->r[in->ra][l], op_b(w, in, &o, l), M(IMUL_SIGNED_A), M(IMUL_SIGNED_B), M(IMUL_HI));
        wr(w, rd, l, r);
        if (M(IMUL_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_IMNMX:
      if (M(IMNMX_XMODE)) return fail(d, GS_EINVAL, name, pc, in, "IMNMX's extended modes are not modelled by gpusim");
      FOR_LANES(m) {
        uint32_t r = sass_imnmx(w->r[in->ra][l], op_b(w, in, &o, l), M(IMNMX_SIGNED),
                                predn(w, M(IMNMX_PC), M(IMNMX_PC_NEG), l));
        wr(w, rd, l, r);
        if (M(IMNMX_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_ISETP: case SASS_OP_ISET: {
      int p = in->op == SASS_OP_ISETP;
      unsigned cmp = p ? M(ISETP_CMP) : M(ISET_CMP), sg = p ? M(ISETP_SIGNED) : M(ISET_SIGNED);
      unsigned x = p ? M(ISETP_X) : M(ISET_X), bop = p ? M(ISETP_BOP) : M(ISET_BOP);
      FOR_LANES(m) {
        uint32_t a = w->r[in->ra][l], b = op_b(w, in, &o, l);
        unsigned t = x ? sass_icmp_x(cmp, a, b, sg, w->cc[l]) : sass_icmp(cmp, a, b, sg);
        if (p) {
          unsigned r = sass_setp(bop, t, predn(w, M(ISETP_PC), M(ISETP_PC_NEG), l));
          pwr(w, M(ISETP_PD), l, r & 1);
          pwr(w, M(ISETP_PD2), l, r >> 1);
        } else {
          uint32_t r = sass_fset(sass_bop(bop, t, predn(w, M(ISET_PC), M(ISET_PC_NEG), l)), M(ISET_BF));
          wr(w, rd, l, r);
          if (M(ISET_CC)) w->cc[l] = (uint8_t)sass_fset_cc(r, M(ISET_BF));
        }
      }
      break;
    }
    case SASS_OP_ICMP:
      FOR_LANES(m) wr(w, rd, l, sass_icmp(M(ICMP_CMP), op_c(w, in, &o, l), 0, M(ICMP_SIGNED)) ? w->r[in->ra][l]
                                                                                              : op_b(w, in, &o, l));
      break;
    case SASS_OP_LOP: case SASS_OP_LOP32I: case SASS_OP_LOP3: {
      int three = in->op == SASS_OP_LOP3;
      unsigned x = three ? M(LOP3_X) : M(LOP_X);
      if (x) return fail(d, GS_EINVAL, name, pc, in, ".X of a logic operation is not modelled by gpusim");
      unsigned pop = three ? M(LOP3_PRED_OP) : M(LOP_PRED_OP), pd = three ? M(LOP3_PD) : M(LOP_PD);
      unsigned cc = three ? M(LOP3_CC) : M(LOP_CC);
      if (!pop) pd = SASS_PT;
      FOR_LANES(m) {
        uint32_t a = w->r[in->ra][l], b = op_b(w, in, &o, l);
        uint32_t r = three ? sass_lop3(a, b, op_c(w, in, &o, l), M(LOP3_LUT))
                           : sass_lop(a, b, M(LOP_OP), M(LOP_INV_A), M(LOP_INV_B));
        wr(w, rd, l, r);
        pwr(w, pd, l, sass_lop_pred(pop, r));
        if (cc) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    }
    case SASS_OP_SHL:
      if (M(SHL_X)) return fail(d, GS_EINVAL, name, pc, in, "SHL.X is not modelled by gpusim");
      FOR_LANES(m) {
        uint32_t r = sass_shl(w->r[in->ra][l], op_b(w, in, &o, l), M(SHL_W));
        wr(w, rd, l, r);
        if (M(SHL_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_SHR:
      if (M(SHR_XMODE)) return fail(d, GS_EINVAL, name, pc, in, "SHR.X is not modelled by gpusim");
      FOR_LANES(m) {
        uint32_t r = sass_shr(w->r[in->ra][l], op_b(w, in, &o, l), M(SHR_SIGNED), M(SHR_W), M(SHR_BREV));
        wr(w, rd, l, r);
        if (M(SHR_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_BFE:
      FOR_LANES(m) {
        uint32_t r = sass_bfe(w->r[in->ra][l], op_b(w, in, &o, l), M(BFE_SIGNED), M(BFE_BREV));
        wr(w, rd, l, r);
        if (M(BFE_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_BFI:
      FOR_LANES(m) {
        uint32_t r = sass_bfi(w->r[in->ra][l], op_b(w, in, &o, l), op_c(w, in, &o, l));
        wr(w, rd, l, r);
        if (M(BFI_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_XMAD: {
      unsigned s = M(XMAD_SIGNS);
      unsigned fl = ((s & 1) ? SASS_XA_SIGNED : 0) | ((s & 2) ? SASS_XB_SIGNED : 0) | (M(XMAD_H1_A) ? SASS_XA_H1 : 0) |
                    (M(XMAD_H1_B) ? SASS_XB_H1 : 0) | (M(XMAD_PSL) ? SASS_XPSL : 0) | (M(XMAD_MRG) ? SASS_XMRG : 0) |
                    (M(XMAD_X) ? SASS_IX : 0);
      FOR_LANES(m) {
        unsigned cc;
        uint32_t r = sass_xmad(w->r[in->ra][l], op_b(w, in, &o, l), op_c(w, in, &o, l), fl, M(XMAD_MODE), w->cc[l], &cc);
        wr(w, rd, l, r);
        if (M(XMAD_CC)) w->cc[l] = (uint8_t)cc;
      }
      break;
    }
    case SASS_OP_FLO:
      FOR_LANES(m) {
        uint32_t r = sass_flo(op_b(w, in, &o, l), M(FLO_SIGNED), M(FLO_INV_B), M(FLO_SH));
        wr(w, rd, l, r);
        if (M(FLO_CC)) w->cc[l] = (uint8_t)sass_flags_zs(r);
      }
      break;
    case SASS_OP_POPC:
      FOR_LANES(m) wr(w, rd, l, sass_popc(op_b(w, in, &o, l), M(POPC_INV_B)));
      break;

    /* ---- predicates ---- */
    case SASS_OP_PSETP:
      FOR_LANES(m) {
        unsigned r = sass_psetp(M(PSETP_BOP1), M(PSETP_BOP2), predn(w, M(PSETP_PA), M(PSETP_PA_NEG), l),
                                predn(w, M(PSETP_PB), M(PSETP_PB_NEG), l), predn(w, M(PSETP_PC), M(PSETP_PC_NEG), l));
        pwr(w, M(PSETP_PD), l, r & 1);
        pwr(w, M(PSETP_PD2), l, r >> 1);
      }
      break;
    case SASS_OP_PSET:
      FOR_LANES(m) {
        unsigned t = sass_bop(M(PSET_BOP2),
                              sass_bop(M(PSET_BOP1), predn(w, M(PSET_PA), M(PSET_PA_NEG), l),
                                       predn(w, M(PSET_PB), M(PSET_PB_NEG), l)),
                              predn(w, M(PSET_PC), M(PSET_PC_NEG), l));
        uint32_t r = sass_fset(t, M(PSET_BF));
        wr(w, rd, l, r);
        if (M(PSET_CC)) w->cc[l] = (uint8_t)sass_fset_cc(r, M(PSET_BF));
      }
      break;

    /* ---- attributes ---- */
    case SASS_OP_ALD: case SASS_OP_AST: {
      int store = in->op == SASS_OP_AST;
      if (!io->attr || !io->lane_attr)
        return fail(d, GS_EINVAL, name, pc, in, "%s in a stage without attribute buffers (a pixel shader reads its "
                    "inputs with IPA)", store ? "AST" : "ALD");
      sass_attr_op op = {store ? in->rd : in->rd, in->ra, in->rb,
                         (uint8_t)(store ? M(AST_SIZE) : M(ALD_SIZE)),
                         (uint8_t)((!store && M(ALD_O) ? SASS_ATTR_O : 0) | ((store ? M(AST_P) : M(ALD_P)) ? SASS_ATTR_P : 0)),
                         0};
      uint32_t addr = store ? M(AST_ADDR) : M(ALD_ADDR);
      /* the immediate is signed (11 bits) only in the patch form with Ra */
      op.imm = (op.flags & SASS_ATTR_P) && in->ra != SASS_RZ && (addr & 0x400) ? (int32_t)addr - 0x800 : (int32_t)(addr & 0x3ff);
      int rc = sass_attr_check(io->attr, &op, store);
      if (rc < 0) return fail(d, GS_EINVAL, name, pc, in, "%s", sass_attr_error_text(rc));
      FOR_LANES(m) {
        sass_regs regs = {&w->r[0][l], SASS_LANES};
        rc = store ? sass_ast(io->attr, &io->lane_attr[l], regs, &op, NULL)
                   : sass_ald(io->attr, &io->lane_attr[l], regs, &op, NULL);
        if (rc < 0) return fail(d, GS_EINVAL, name, pc, in, "%s", sass_attr_error_text(rc));
      }
      break;
    }
    case SASS_OP_AL2P: {
      uint32_t a = M(AL2P_ADDR);
      int32_t imm = (a & 0x400) ? (int32_t)a - 0x800 : (int32_t)a;
      FOR_LANES(m) {
        wr(w, rd, l, sass_al2p(w->r[in->ra][l], imm));
        pwr(w, M(AL2P_PD), l, 1);
      }
      break;
    }
    case SASS_OP_IPA: {
      if (!io->ipa) return fail(d, GS_EINVAL, name, pc, in, "IPA outside a pixel shader");
      if (M(IPA_SAMPLE)) return fail(d, GS_EINVAL, name, pc, in, "IPA's CENTROID and OFFSET sample modes are not modelled by gpusim");
      sass_ipa_op op = {(uint16_t)M(IPA_ADDR), (uint8_t)M(IPA_MODE), (uint8_t)M(IPA_SAT), io->flat_shade};
      FOR_LANES(m) {
        sass_ipa_op lo = op;
        if (M(IPA_IDX)) {
          uint32_t a = w->r[in->ra][l] + op.addr;
          lo.addr = a > 0xffffu ? 0xffffu : (uint16_t)a;
        }
        const gs_frag_io *f = io->frag[l / 16];
        uint32_t v = f ? sass_ipa(io->ipa, f, l % 16, &io->sys, &lo, w->r[in->rb][l]) : 0;
        wr(w, rd, l, v);
      }
      break;
    }
    case SASS_OP_OUT: case SASS_OP_ISBERD:
      return fail(d, GS_EINVAL, name, pc, in, "geometry-shader instructions do not run in gpusim's pipeline "
                  "(vertex and pixel shaders only)");

    /* ---- control ---- */
    case SASS_OP_NOP: case SASS_OP_DEPBAR: case SASS_OP_MEMBAR: case SASS_OP_BAR:
      break;
    case SASS_OP_BRA: {
      uint32_t t = flow_lanes(w, M(BRA_FLOW), m);
      *jump = 1;
      if (t == w->active) {
        w->pc = target_of(in->imm);
      } else if (!t) {
        w->pc = next_pc(pc);
      } else {
        if (push(w, SASS_ENTRY_DIV, next_pc(pc), w->active & ~t) < 0)
          return fail(d, GS_EINVAL, name, pc, in, "the convergence stack overflows (%d entries)", SASS_STACK);
        w->active = t;
        w->pc = target_of(in->imm);
      }
      break;
    }
    case SASS_OP_SSY: case SASS_OP_PBK:
      if (push(w, in->op == SASS_OP_SSY ? SASS_ENTRY_SSY : SASS_ENTRY_PBK, target_of(in->imm), w->active) < 0)
        return fail(d, GS_EINVAL, name, pc, in, "the convergence stack overflows (%d entries)", SASS_STACK);
      break;
    case SASS_OP_SYNC: case SASS_OP_BRK: {
      int sync = in->op == SASS_OP_SYNC;
      uint32_t t = flow_lanes(w, sync ? M(SYNC_FLOW) : M(BRK_FLOW), m);
      if (!t) break;
      int e = find(w, sync ? SASS_ENTRY_SSY : SASS_ENTRY_PBK);
      if (e < 0)
        return fail(d, GS_EINVAL, name, pc, in, "%s without a %s target on the convergence stack", sync ? "SYNC" : "BRK",
                    sync ? "SSY" : "PBK");
      for (unsigned i = (unsigned)e + 1; i < w->depth; i++) w->stack[i].mask &= ~t;
      w->active &= ~t;
      *jump = 1;
      w->pc = next_pc(pc);
      break;
    }
    case SASS_OP_EXIT: case SASS_OP_KIL: {
      int kil = in->op == SASS_OP_KIL;
      uint32_t t = flow_lanes(w, kil ? M(KIL_FLOW) : M(EXIT_FLOW), m);
      if (!t) break;
      if (kil && !(io->gates & GS_GATE_KILL)) {
        if (io->report)
          gs_isa_report_exception(io->report, "%s, pc 0x%04x: KIL in a program whose SPH has KillsPixels 0 (no-op)",
                                  name ? name : "SASS program", pc);
        break;
      }
      if (kil) w->killed |= t;
      w->exited |= t;
      w->active &= ~t;
      *jump = 1;
      w->pc = next_pc(pc);
      break;
    }

    /* ---- constant buffers and local memory ---- */
    case SASS_OP_LDC: {
      unsigned size = M(LDC_SIZE), n = size <= 4 ? 1 : size == 5 ? 2 : 4;
      if (M(LDC_MODE)) return fail(d, GS_EINVAL, name, pc, in, "LDC's .IL/.IS/.ISL modes are not modelled by gpusim");
      int32_t off = (int16_t)in->cbyte;
      FOR_LANES(m) {
        uint32_t at = w->r[in->ra][l] + (uint32_t)off, v[4];
        uint32_t al = size <= 4 ? at & ~3u : at & ~(4 * n - 1);
        for (unsigned k = 0; k < n; k++)
          if (sass_cbuf_read(io, in->cbank, al + 4 * k, &v[k]) < 0)
            return fail(d, GS_EFAULT, name, pc, in, "lane %u reads c[0x%x][0x%x], past the end of constant buffer %u "
                        "(%u bytes bound)", l, in->cbank, at, in->cbank, io->cb[in->cbank] ? io->cb_size[in->cbank] : 0);
        if (size < 4) {
          unsigned sh = 8 * (at & (size < 2 ? 3u : 2u));
          uint32_t x = v[0] >> sh;
          v[0] = size == 0 ? x & 0xffu : size == 1 ? (uint32_t)(int8_t)x : size == 2 ? x & 0xffffu : (uint32_t)(int16_t)x;
        }
        for (unsigned k = 0; k < n && rd + k < SASS_RZ; k++) wr(w, rd + k, l, v[k]);
      }
      break;
    }
    case SASS_OP_LDL: case SASS_OP_STL: {
      int st = in->op == SASS_OP_STL;
      unsigned size = st ? M(STL_SIZE) : M(LDL_SIZE), n = size <= 4 ? 1 : size == 5 ? 2 : 4;
      unsigned bytes = size <= 1 ? 1 : size <= 3 ? 2 : 4 * n;
      uint32_t raw = st ? M(STL_OFFSET) : M(LDL_OFFSET);
      int32_t off = (raw & 0x800000u) ? (int32_t)raw - 0x1000000 : (int32_t)raw;
      if (!(io->gates & GS_GATE_LOAD_STORE)) {
        if (io->report)
          gs_isa_report_exception(io->report, "%s, pc 0x%04x: %s in a program whose SPH has DoesLoadOrStore 0 (%s)",
                                  name ? name : "SASS program", pc, st ? "STL" : "LDL", st ? "dropped" : "reads 0");
        if (!st) FOR_LANES(m) for (unsigned k = 0; k < n && rd + k < SASS_RZ; k++) wr(w, rd + k, l, 0);
        break;
      }
      FOR_LANES(m) {
        uint32_t at = w->r[in->ra][l] + (uint32_t)off;
        if (at % bytes) return fail(d, GS_EFAULT, name, pc, in, "lane %u: l[0x%x] is not aligned to %u bytes", l, at, bytes);
        if (at >= w->local_size || w->local_size - at < bytes)
          return fail(d, GS_EFAULT, name, pc, in, "lane %u: l[0x%x] is outside the program's %u bytes of local memory "
                      "(SPH ShaderLocalMemoryLowSize)", l, at, w->local_size);
        uint8_t *q = w->local + (size_t)l * w->local_size + at;
        if (st) {
          for (unsigned k = 0; k < bytes; k++) q[k] = (uint8_t)(w->r[(rd + k / 4) & 255][l] >> (8 * (k % 4)));
        } else if (size < 4) {
          uint32_t x = size <= 1 ? q[0] : (uint32_t)q[0] | (uint32_t)q[1] << 8;
          wr(w, rd, l, size == 0 ? x : size == 1 ? (uint32_t)(int8_t)x : size == 2 ? x : (uint32_t)(int16_t)x);
        } else {
          for (unsigned k = 0; k < n && rd + k < SASS_RZ; k++)
            wr(w, rd + k, l, (uint32_t)q[4 * k] | (uint32_t)q[4 * k + 1] << 8 | (uint32_t)q[4 * k + 2] << 16 |
                                 (uint32_t)q[4 * k + 3] << 24);
        }
      }
      break;
    }

    /* ---- textures ---- */
    case SASS_OP_TEX: case SASS_OP_TEXS: case SASS_OP_TLDS: case SASS_OP_TLD: {
      if (!io->tex) return fail(d, GS_EINVAL, name, pc, in, "no textures are bound for this program");
      int rc = m ? io->tex(io->ctx, w, in, m, d) : 0;
      if (rc < 0) return fail(d, rc, name, pc, in, "%s", d ? d->msg : "texture error");
      break;
    }
    default:
      return fail(d, GS_EINVAL, name, pc, in, "%s is not run by gpusim", sass_op_name(in->op));
  }
  (void)p;
  return 0;
}

int sass_step_ref(sass_warp *w, const sass_program *p, const sass_io *io, uint64_t budget, const char *name,
                  gs_diag *d) {
  if (!w->active) pop(w);
  if (!w->active) return 1;
  size_t k = sass_index(p, w->pc);
  if (k == (size_t)-1)
    return gs_diag_set(d, GS_EFAULT, "%s: pc 0x%04x is %s (the code is 0x%x bytes)", name ? name : "SASS program",
                       w->pc, w->pc >= p->size ? "past the end of the program" : "not an instruction slot", p->size);
  if (w->steps >= budget)
    return gs_diag_set(d, GS_EWATCHDOG, "%s: ran past its budget of %llu instructions (at pc 0x%04x: an endless "
                       "loop?)", name ? name : "SASS program", (unsigned long long)budget, w->pc);
  const sass_insn *in = &p->insn[k];
  w->steps++;
  int jump = 0;
  uint32_t m = guard_lanes(w, in, w->active);
  int rc = step(w, p, io, in, m, &jump, name, d);
  if (rc < 0) return rc;
  if (!jump) w->pc = next_pc(w->pc);
  return 0;
}

int sass_run_ref(sass_warp *w, const sass_program *p, const sass_io *io, uint64_t budget, const char *name,
                 gs_diag *d) {
  int rc;
  while ((rc = sass_step_ref(w, p, io, budget, name, d)) == 0) {}
  return rc < 0 ? rc : 0;
}
