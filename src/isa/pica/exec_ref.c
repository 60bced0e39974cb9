/* exec_ref.c — the PICA200 reference interpreter (exec.h). */
#include <stdio.h>
#include <string.h>
#include "isa/pica/exec.h"

/* Source operand k of in, after relative addressing, swizzle and negation. */
static void read_src(const pica_state *s, const pica_insn *in, unsigned k, uint32_t out[4]) {
  const pica_src *src = &in->src[k];
  const uint32_t *base;
  static const uint32_t ones[4] = {PICA_ONE, PICA_ONE, PICA_ONE, PICA_ONE};
  unsigned reg = src->reg;
  if (reg < PICA_REG_R) {
    base = s->v[reg];
  } else if (reg < PICA_REG_C) {
    base = s->r[reg - PICA_REG_R];
  } else {
    /* relative addressing applies to uniforms only; an offset outside a
     * signed byte counts as 0; the index wraps at 128; 96 and up read 1.0 */
    int32_t off = src->idx == PICA_IDX_A0X ? s->a0[0] : src->idx == PICA_IDX_A0Y ? s->a0[1]
                : src->idx == PICA_IDX_AL ? s->al : 0;
    if (off < -128 || off > 127) off = 0;
    unsigned idx = (unsigned)((int32_t)(reg - PICA_REG_C) + off) & 0x7fu;
    base = idx < 96 ? s->c[idx] : ones;
  }
  for (unsigned c = 0; c < 4; c++) {
    uint32_t x = base[pica_swz_comp(src->swz, c)];
    out[c] = src->neg ? x ^ 0x80000000u : x;
  }
}

/* Writes the components in the descriptor's mask (bit 3 x .. bit 0 w). */
static void write_dst(pica_state *s, const pica_insn *in, const uint32_t v[4]) {
  unsigned dst = in->dst;
  for (unsigned c = 0; c < 4; c++) {
    if (!(in->mask & (8u >> c))) continue;
    if (dst < PICA_REG_R) {
      s->o[dst][c] = v[c];
      s->written[dst] |= (uint16_t)(1u << c);
    } else {
      s->r[dst - PICA_REG_R][c] = v[c];
    }
  }
}

static void broadcast(uint32_t v[4], uint32_t x) { v[0] = v[1] = v[2] = v[3] = x; }

/* The condition of a format-2 instruction. */
static int cond(const pica_state *s, const pica_insn *in) {
  return pica_cond(in->condop, in->refx, in->refy, s->cmp[0], s->cmp[1]);
}
static int ubool(const pica_state *s, unsigned k) { return (s->b >> (k & 15)) & 1; }

/* Pushes on a ring of depth n: a full ring loses its oldest entry. */
#define PUSH(arr, cnt, depth, val)                                                        \
  do {                                                                                    \
    if ((cnt) == (depth)) {                                                               \
      memmove(&(arr)[0], &(arr)[1], ((depth) - 1) * sizeof (arr)[0]);                     \
      (cnt)--;                                                                            \
    }                                                                                     \
    (arr)[(cnt)++] = (val);                                                               \
  } while (0)

int pica_fault(gs_diag *d, int kind, int lane, const pica_program *p, uint32_t pc, uint64_t budget) {
  char who[32] = "";
  if (lane >= 0) snprintf(who, sizeof who, ", lane %d", lane);
  const pica_insn *in = pc < p->n ? &p->insn[pc] : NULL;
  const char *name = in && pica_op_name(in->op) ? pica_op_name(in->op) : "?";
  switch (kind) {
    case PICA_FAULT_PC:
      return gs_diag_set(d, GS_EFAULT, "PICA200 shader%s: pc 0x%03x is outside the program (%zu words)", who, pc, p->n);
    case PICA_FAULT_BUDGET:
      return gs_diag_set(d, GS_EWATCHDOG, "PICA200 shader%s: ran past its budget of %llu instructions (at 0x%03x: an "
                         "endless loop?)", who, (unsigned long long)budget, pc);
    case PICA_FAULT_BREAK:
      return gs_diag_set(d, GS_EHANG, "PICA200 shader%s: %s at 0x%03x outside a loop (the GPU hangs)", who,
                         in && in->op == PICA_BREAK ? "BREAK" : "BREAKC", pc);
    default:
      return gs_diag_set(d, GS_EINVAL, "PICA200 shader%s: %s at 0x%03x is a geometry-shader instruction, which "
                         "gpusim's vertex stage does not run", who, name, pc);
  }
}

int pica_step_ref(pica_state *s, const pica_program *p, uint64_t budget, gs_diag *d) {
  pica_num_mode m = s->mode;
  {
    uint32_t pc = s->pc;
    if (pc >= p->n) return pica_fault(d, PICA_FAULT_PC, -1, p, pc, budget);
    if (s->steps >= budget) return pica_fault(d, PICA_FAULT_BUDGET, -1, p, pc, budget);
    s->steps++;
    const pica_insn *in = &p->insn[pc];
    uint32_t a[4], b[4], c[4], r[4];
    uint32_t next = pc + 1; /* where a jump, call or false IF goes */
    int brk = 0;
    switch (in->op) {
      case PICA_ADD: case PICA_MUL: case PICA_MAX: case PICA_MIN: case PICA_SGE: case PICA_SGEI:
      case PICA_SLT: case PICA_SLTI:
        read_src(s, in, 0, a), read_src(s, in, 1, b);
        for (unsigned k = 0; k < 4; k++)
          r[k] = in->op == PICA_ADD ? pica_add(a[k], b[k], m) : in->op == PICA_MUL ? pica_mul(a[k], b[k], m)
               : in->op == PICA_MAX ? pica_max(a[k], b[k]) : in->op == PICA_MIN ? pica_min(a[k], b[k])
               : (in->op == PICA_SGE || in->op == PICA_SGEI) ? pica_sge(a[k], b[k]) : pica_slt(a[k], b[k]);
        write_dst(s, in, r);
        break;
      case PICA_DP3: case PICA_DP4: case PICA_DPH: case PICA_DPHI:
        read_src(s, in, 0, a), read_src(s, in, 1, b);
        broadcast(r, in->op == PICA_DP3 ? pica_dp3(a, b, m) : in->op == PICA_DP4 ? pica_dp4(a, b, m) : pica_dph(a, b, m));
        write_dst(s, in, r);
        break;
      case PICA_DST: case PICA_DSTI:
        read_src(s, in, 0, a), read_src(s, in, 1, b);
        pica_dst(a, b, r, m);
        write_dst(s, in, r);
        break;
      case PICA_EX2: case PICA_LG2: case PICA_RCP: case PICA_RSQ:
        read_src(s, in, 0, a);
        broadcast(r, in->op == PICA_EX2 ? pica_ex2(a[0], m) : in->op == PICA_LG2 ? pica_lg2(a[0], m)
                     : in->op == PICA_RCP ? pica_rcp(a[0], m) : pica_rsq(a[0], m));
        write_dst(s, in, r);
        break;
      case PICA_LITP:
        read_src(s, in, 0, a);
        pica_litp(a, r, s->cmp);
        write_dst(s, in, r);
        break;
      case PICA_FLR: case PICA_MOV:
        read_src(s, in, 0, a);
        for (unsigned k = 0; k < 4; k++) r[k] = in->op == PICA_FLR ? pica_flr(a[k], m) : a[k];
        write_dst(s, in, r);
        break;
      case PICA_MOVA:
        read_src(s, in, 0, a);
        if (in->mask & 8) s->a0[0] = pica_mova(a[0]);
        if (in->mask & 4) s->a0[1] = pica_mova(a[1]);
        break;
      case PICA_CMP:
        read_src(s, in, 0, a), read_src(s, in, 1, b);
        s->cmp[0] = pica_cmp(a[0], b[0], in->cmpx);
        s->cmp[1] = pica_cmp(a[1], b[1], in->cmpy);
        break;
      case PICA_MAD: case PICA_MADI:
        read_src(s, in, 0, a), read_src(s, in, 1, b), read_src(s, in, 2, c);
        for (unsigned k = 0; k < 4; k++) r[k] = pica_mad(a[k], b[k], c[k], m);
        write_dst(s, in, r);
        break;
      case PICA_NOP:
        break;
      case PICA_END:
        return 1;
      case PICA_BREAKC:
        if (!cond(s, in)) break;
        /* fall through */
      case PICA_BREAK:
        if (!s->nloop) return pica_fault(d, PICA_FAULT_BREAK, -1, p, pc, budget);
        brk = 1;
        break;
      case PICA_CALL: case PICA_CALLC: case PICA_CALLU:
        if (in->op == PICA_CALL || (in->op == PICA_CALLC ? cond(s, in) : ubool(s, in->uid))) {
          PUSH(s->call, s->ncall, PICA_CALL_DEPTH, ((pica_call){(uint32_t)in->target + in->num, pc + 1}));
          next = in->target;
        }
        break;
      case PICA_IFU: case PICA_IFC:
        if (in->op == PICA_IFC ? cond(s, in) : ubool(s, in->uid))
          PUSH(s->ifs, s->nif, PICA_IF_DEPTH, ((pica_if){in->target, (uint32_t)in->target + in->num}));
        else
          next = in->target;
        break;
      case PICA_LOOP: {
        const uint8_t *iu = s->i[in->uid & 3];
        PUSH(s->loop, s->nloop, PICA_LOOP_DEPTH,
             ((pica_loop){pc + 1, (uint32_t)in->target + 1, iu[0], (int8_t)iu[2], s->al}));
        s->al = iu[1];
        break;
      }
      case PICA_JMPC:
        if (cond(s, in)) next = in->target;
        break;
      case PICA_JMPU:
        if (ubool(s, in->uid) == !(in->num & 1)) next = in->target;
        break;
      case PICA_SETEMIT:
        if (!s->emit) return pica_fault(d, PICA_FAULT_GSH, -1, p, pc, budget);
        s->emit_vtx = in->vtxid, s->emit_prim = in->prim, s->emit_winding = in->winding;
        break;
      case PICA_EMIT: {
        if (!s->emit) return pica_fault(d, PICA_FAULT_GSH, -1, p, pc, budget);
        int rc = s->emit(s->emit_ctx, s, d);
        if (rc < 0) return rc;
        uint32_t t[16][4];
        uint16_t w[16];
        memcpy(t, s->o, sizeof t), memcpy(s->o, s->o_other, sizeof t), memcpy(s->o_other, t, sizeof t);
        memcpy(w, s->written, sizeof w), memcpy(s->written, s->written_other, sizeof w);
        memcpy(s->written_other, w, sizeof w);
        break;
      }
      default:
        return pica_fault(d, PICA_FAULT_GSH, -1, p, pc, budget);
    }
    /* the stacks, after the instruction (exec.h) */
    uint32_t final = next;
    uint32_t cur = pc + 1;
    for (unsigned pops = 0; s->ncall && s->call[s->ncall - 1].end == cur && pops < 4;) {
      uint32_t ret = s->call[--s->ncall].ret;
      if (++pops < 4) final = ret; /* the fourth pop's pc update is lost */
      cur = ret;
    }
    if (s->nif && s->ifs[s->nif - 1].els == pc + 1) final = s->ifs[--s->nif].end;
    if (s->nloop && (brk || s->loop[s->nloop - 1].end == pc + 1)) {
      pica_loop *l = &s->loop[s->nloop - 1];
      s->al += l->inc;
      if (!brk && l->count-- != 0) {
        final = l->entry;
      } else {
        final = l->end;
        s->nloop--;
        if (s->nloop) s->al = l->saved_al;
      }
    }
    s->pc = final;
  }
  return 0;
}

int pica_run_ref(pica_state *s, const pica_program *p, uint32_t entry, uint64_t budget, gs_diag *d) {
  s->ncall = s->nif = s->nloop = 0;
  s->pc = entry;
  int rc;
  while ((rc = pica_step_ref(s, p, budget, d)) == 0) {}
  return rc < 0 ? rc : GS_OK;
}
