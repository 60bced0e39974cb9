/* exec_ref.c — the AGX reference interpreter (exec.h; docs/agx-run.md). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/fpmode.h"
#include "isa/agx/exec.h"
#include "isa/agx/num.h"
#include "isa/agx/table.h"

void agx_state_init(agx_state *s, unsigned lanes) {
  memset(s, 0, sizeof *s);
  s->present = lanes >= AGX_LANES ? 0xffffffffu : (1u << lanes) - 1;
  s->exec = s->present;
}

uint32_t agx_reg32(const agx_state *s, unsigned lane, unsigned n) {
  return s->r[lane][2 * n] | (uint32_t)s->r[lane][2 * n + 1] << 16;
}
void agx_set_reg32(agx_state *s, unsigned lane, unsigned n, uint32_t v) {
  s->r[lane][2 * n] = (uint16_t)v, s->r[lane][2 * n + 1] = (uint16_t)(v >> 16);
}
void agx_set_unif32(agx_state *s, unsigned n, uint32_t v) {
  s->u[2 * n] = (uint16_t)v, s->u[2 * n + 1] = (uint16_t)(v >> 16);
}

int agx_flat_mem_access(void *ctx, uint64_t addr, void *buf, unsigned n, int write) {
  agx_flat_mem *m = ctx;
  if (addr < m->base || addr - m->base > m->size || m->size - (addr - m->base) < n) return -1;
  uint8_t *p = m->data + (addr - m->base);
  if (write) memcpy(p, buf, n);
  else memcpy(buf, p, n);
  return 0;
}

/* ---- a run ---------------------------------------------------------------------- */

typedef struct run {
  agx_state *s;
  const agx_program *p;
  uint32_t pc; /* the instruction's byte address */
  int err;     /* the first error (GS_E*), 0 none */
  gs_diag *d;
} run;

static int fail(run *x, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int fail(run *x, int code, const char *fmt, ...) {
  if (x->err) return x->err;
  char msg[GS_DIAG_MAX - 64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  x->err = gs_diag_set(x->d, code, "AGX shader: pc 0x%04x: %s", x->pc, msg);
  return x->err;
}

static const char *half_name(unsigned h, char buf[16]) {
  snprintf(buf, 16, "r%u%s", h / 2, h & 1 ? "h" : "l");
  return buf;
}

/* Halves h..h+n-1 of the GPRs: within the declared count; when reading,
 * not waiting for a load. */
static int check(run *x, unsigned h, unsigned n, int read) {
  unsigned lim = x->s->nregs ? x->s->nregs : AGX_HALVES;
  char b[16];
  if (h + n > lim)
    return fail(x, GS_EINVAL, "%s is beyond the declared register count (%u halves, r0-r%u)", half_name(h, b), lim,
                (lim - 1) / 2);
  for (unsigned k = 0; read && k < n; k++)
    if (x->s->pending[h + k])
      return fail(x, GS_EINVAL, "%s is read before the wait for its load (wait %c)", half_name(h + k, b),
                  x->s->pending[h + k] == 1 ? 'a' : 'b');
  return 0;
}

static unsigned popcount(uint32_t v) { return (unsigned)__builtin_popcount(v); }

static uint32_t special(run *x, unsigned lane, unsigned sr) {
  agx_state *s = x->s;
  uint32_t below = s->exec & ((1u << lane) - 1), quad = s->exec & (0xfu << (lane & ~3u));
  uint32_t v = 0;
  switch (sr) {
    case 52: return lane;                           /* thread_index_in_simdgroup */
    case 56: return popcount(quad & below);         /* active_thread_index_in_quadgroup */
    case 57: return popcount(quad);                 /* total_active_threads_in_quadgroup */
    case 58: return popcount(below);                /* active_thread_index_in_simdgroup */
    case 59: return popcount(s->exec);              /* total_active_threads_in_simdgroup */
    case 63: return (s->exec >> lane) & 1;          /* is_active_thread */
    default:
      if (!s->sr || s->sr(s->sr_ctx, lane, sr, &v)) fail(x, GS_EINVAL, "special register sr%u is not provided", sr);
      return v;
  }
}

/* The width of an integer operand. */
static unsigned obits(const agx_opnd *o) {
  return (o->kind == AGX_K_REG || o->kind == AGX_K_UNIF) ? o->bits : 32;
}

/* Integer operand o of lane (halves `bits` wide for REG/UNIF). */
static uint64_t rd(run *x, const agx_opnd *o, unsigned lane) {
  unsigned n = o->bits / 16;
  uint64_t v = 0;
  switch (o->kind) {
    case AGX_K_REG:
      if (check(x, o->index, n, 1)) return 0;
      for (unsigned k = 0; k < n; k++) v |= (uint64_t)x->s->r[lane][o->index + k] << (16 * k);
      return v;
    case AGX_K_UNIF:
      if (o->index + n > AGX_UHALVES) return fail(x, GS_EINVAL, "uniform half %u is beyond u255", o->index + n - 1), 0;
      for (unsigned k = 0; k < n; k++) v |= (uint64_t)x->s->u[o->index + k] << (16 * k);
      return v;
    case AGX_K_IMM: return o->value;
    case AGX_K_SR: return special(x, lane, o->index);
    default: return fail(x, GS_EINVAL, "an operand of kind %u where an integer is read", o->kind), 0;
  }
}

/* Float operand o of lane, flushed (f32) and with its modifiers. */
static double rdf(run *x, const agx_opnd *o, unsigned lane) {
  double v;
  if (o->kind == AGX_K_FIMM) {
    v = agx_minifloat(o->value);
  } else if ((o->kind == AGX_K_REG || o->kind == AGX_K_UNIF) && (o->bits == 16 || o->bits == 32)) {
    uint32_t raw = (uint32_t)rd(x, o, lane);
    v = o->bits == 16 ? agx_f16_in(raw) : agx_f32_in(raw);
  } else {
    fail(x, GS_EINVAL, "an operand of kind %u, %u bits, where a float is read", o->kind, o->bits);
    return 0;
  }
  return agx_fmod(v, o->abs, o->neg);
}

/* Writes v to the destination of lane (element k of a run). */
static void wr_elem(run *x, const agx_opnd *o, unsigned lane, unsigned k, uint64_t v) {
  unsigned n = o->bits / 16, h = o->index + k * n;
  if (o->kind != AGX_K_REG) {
    fail(x, GS_EINVAL, "a destination of kind %u (only registers are written)", o->kind);
    return;
  }
  if (!n || check(x, h, n, 0)) return;
  for (unsigned i = 0; i < n; i++) x->s->r[lane][h + i] = (uint16_t)(v >> (16 * i));
}
static void wr(run *x, const agx_opnd *o, unsigned lane, uint64_t v) { wr_elem(x, o, lane, 0, v); }

/* Lane l is active. */
#define ACTIVE(s, l) (((s)->exec >> (l)) & 1)

static agx_fround fround(const agx_instr *in, int half_op) {
  return half_op ? AGX_R16 : in->dst.bits == 16 ? AGX_R32_16 : AGX_R32;
}

static const uint8_t funop_code[] = {
    AGX_FU_FLOOR, AGX_FU_SRSQRT, AGX_FU_DFDX, AGX_FU_DFDY, AGX_FU_RCP, AGX_FU_RSQRT, AGX_FU_SIN_PT_1,
    AGX_FU_LOG2, AGX_FU_EXP2, AGX_FU_SIN_PT_2, AGX_FU_CEIL, AGX_FU_TRUNC, AGX_FU_RINT};

/* The exec-stack instructions: r0l of every present lane, then the mask. */
static void exec_stack(run *x, const agx_instr *in) {
  agx_state *s = x->s;
  unsigned n = in->nest & 3;
  int fl = in->op == AGX_IF_FCMP || in->op == AGX_ELSE_FCMP || in->op == AGX_WHILE_FCMP;
  int kind = in->op == AGX_POP_EXEC ? 3
           : (in->op == AGX_IF_ICMP || in->op == AGX_IF_FCMP) ? 0
           : (in->op == AGX_ELSE_ICMP || in->op == AGX_ELSE_FCMP) ? 1 : 2;
  if (check(x, 0, 1, 0)) return;
  uint32_t exec = 0;
  for (unsigned l = 0; l < AGX_LANES; l++) {
    if (!((s->present >> l) & 1)) continue;
    unsigned r = s->r[l][0];
    int need = kind == 0 ? r == 0 : kind == 1 ? r == 1 : kind == 2 ? r < n : 0;
    int c = 0;
    if (need) {
      c = fl ? agx_fcmp(in->cond, rdf(x, &in->src[0], l), rdf(x, &in->src[1], l))
             : agx_icmp(in->cond, rd(x, &in->src[0], l), obits(&in->src[0]), rd(x, &in->src[1], l),
                        obits(&in->src[1]));
      if (c < 0) {
        fail(x, GS_EINVAL, "condition code %u is undefined", in->cond);
        return;
      }
      if (x->err) return;
    }
    switch (kind) {
      case 0: r = r ? r + n : c ? 0 : 1; break;
      case 1: r = r == 0 ? n : r == 1 ? (c ? 0 : 1) : r; break;
      case 2: r = r < n ? (c ? 0 : n) : r; break;
      default: r = r > n ? r - n : 0; break;
    }
    s->r[l][0] = (uint16_t)r;
    if (!s->r[l][0]) exec |= 1u << l;
  }
  s->exec = exec;
}

/* The data run, base, index and addresses of a load or store. */
static void memory(run *x, const agx_instr *in) {
  agx_state *s = x->s;
  int load = in->op == AGX_LOAD;
  const agx_opnd *data = load ? &in->dst : &in->src[0];
  unsigned esize = agx_fmt_size(in->format), reg16 = data->bits == 16;
  if (!esize) {
    fail(x, GS_EINVAL, "memory format %u is not modelled", in->format);
    return;
  }
  if (!s->mem) {
    fail(x, GS_EINVAL, "%s with no memory attached", load ? "load" : "store");
    return;
  }
  if (data->kind != AGX_K_REG || (data->bits != 16 && data->bits != 32)) {
    fail(x, GS_EINVAL, "the data of a %s is not a run of 16- or 32-bit registers", load ? "load" : "store");
    return;
  }
  agx_opnd base = in->src[1], index = in->src[2];
  base.bits = 64;
  if (index.kind == AGX_K_REG) index.bits = 32;
  for (unsigned l = 0; l < AGX_LANES && !x->err; l++) {
    if (!ACTIVE(s, l)) continue;
    uint64_t b = rd(x, &base, l), i = rd(x, &index, l);
    i = agx_iext(i, index.kind == AGX_K_REG ? 32 : 16, !in->index_zext);
    b &= ~(uint64_t)(esize - 1);
    unsigned k = 0;
    for (unsigned j = 0; j < 4 && !x->err; j++) {
      if (!((in->mask >> j) & 1)) continue;
      uint64_t addr = b + ((i << in->shift) + j) * esize;
      uint8_t buf[4] = {0, 0, 0, 0};
      if (!load) {
        unsigned h = data->index + k * (reg16 ? 1 : 2);
        if (check(x, h, reg16 ? 1 : 2, 1)) return;
        uint32_t v = s->r[l][h] | (reg16 ? 0 : (uint32_t)s->r[l][h + 1] << 16);
        uint32_t e = agx_fmt_pack(in->format, v, reg16);
        for (unsigned q = 0; q < esize; q++) buf[q] = (uint8_t)(e >> (8 * q));
      }
      if (s->mem(s->mem_ctx, addr, buf, esize, !load)) {
        fail(x, GS_EFAULT, "lane %u: %s of %u bytes at 0x%llx is outside memory", l, load ? "load" : "store", esize,
             (unsigned long long)addr);
        return;
      }
      if (load) {
        uint32_t e = buf[0] | (uint32_t)buf[1] << 8 | (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24;
        wr_elem(x, data, l, k, agx_fmt_unpack(in->format, e, reg16));
      }
      k++;
    }
  }
  if (load && !x->err) {
    unsigned n = popcount(in->mask & 15) * (reg16 ? 1 : 2);
    if (check(x, data->index, n, 0)) return; /* the run, also when no lane was active */
    for (unsigned k = 0; k < n; k++) s->pending[data->index + k] = (uint8_t)(1 + (in->group & 1));
  }
}

/* st_var and no_var in the active lanes. */
static void varying(run *x, const agx_instr *in) {
  agx_state *s = x->s;
  for (unsigned l = 0; l < AGX_LANES && !x->err; l++) {
    if (!ACTIVE(s, l)) continue;
    if ((s->var_done >> l) & 1) {
      fail(x, GS_EINVAL, "lane %u: %s after the lane's last varying store", l, in->op == AGX_NO_VAR ? "no_var" : "st_var");
      return;
    }
    if (in->op == AGX_NO_VAR) {
      s->var_done |= 1u << l;
      continue;
    }
    uint32_t v = (uint32_t)rd(x, &in->src[0], l);
    uint64_t i = rd(x, &in->src[1], l);
    if (x->err) return;
    if (i >= AGX_UVS_WORDS) {
      fail(x, GS_EINVAL, "lane %u: st_var to UVS word %llu (gpusim keeps %u)", l, (unsigned long long)i, AGX_UVS_WORDS);
      return;
    }
    s->uvs[l][i] = v;
    s->uvs_written[l] |= UINT64_C(1) << i;
    if (in->last) s->var_done |= 1u << l;
  }
}

/* The samples of mask m of lane l: killed ones stay killed, the others
 * are tested when in live, else killed; a sample is tested once and
 * never discarded after its test (Mesa's agx_nir_lower_sample_mask.c). */
static void samples(run *x, unsigned l, unsigned m, unsigned live) {
  agx_state *s = x->s;
  for (unsigned i = 0; i < 8 && !x->err; i++) {
    unsigned b = 1u << i;
    if (!(m & b) || (s->killed[l] & b)) continue;
    if (s->tested[l] & b) {
      fail(x, GS_EINVAL, "lane %u: sample %u %s after its depth/stencil test", l, i,
           (live & b) ? "tested again" : "discarded");
      return;
    }
    if (live & b) s->tested[l] |= (uint8_t)b;
    else s->killed[l] |= (uint8_t)b;
  }
}

/* sample_mask and zs_emit in the active lanes. */
static void fragment_out(run *x, const agx_instr *in) {
  agx_state *s = x->s;
  for (unsigned l = 0; l < AGX_LANES && !x->err; l++) {
    if (!ACTIVE(s, l)) continue;
    unsigned m = (unsigned)rd(x, &in->src[0], l) & 0xff;
    if (in->op == AGX_SAMPLE_MASK) {
      unsigned live = (unsigned)rd(x, &in->src[1], l) & 0xff;
      if (!x->err) samples(x, l, m, live);
      continue;
    }
    if ((s->zs_done >> l) & 1) {
      fail(x, GS_EINVAL, "lane %u: a second zs_emit", l);
      return;
    }
    const agx_opnd *o = &in->src[1];
    unsigned h = o->index, n = (in->zs_depth ? 2 : 0) + (in->zs_stencil ? 1 : 0);
    if (o->kind != AGX_K_REG || !n || check(x, h, n, 1)) {
      if (!x->err) fail(x, GS_EINVAL, "zs_emit writes neither depth nor stencil from registers");
      return;
    }
    if (in->zs_depth) s->depth[l] = s->r[l][h] | (uint32_t)s->r[l][h + 1] << 16;
    if (in->zs_stencil) s->stencil[l] = s->r[l][h + (in->zs_depth ? 2 : 0)];
    s->zs_done |= 1u << l;
    samples(x, l, m, 0xff);
  }
}

/* smpf: the coordinates and lod of the active lanes to the tex callback
 * once, then the mask's channels into the destination run, pending until
 * the wait of the instruction's group (exec.h, TEXTURES). */
static void texture(run *x, const agx_instr *in) {
  agx_state *s = x->s;
  const agx_opnd *dst = &in->dst, *co = &in->src[2], *lod = &in->src[3];
  if (!s->tex) {
    fail(x, GS_EINVAL, "smpf with no sampler attached (the unit that runs the program gives one)");
    return;
  }
  if (in->dim != 2) {
    fail(x, GS_EINVAL, "smpf %s: only 2d textures are sampled", agx_dim_name(in->dim) ? agx_dim_name(in->dim) : "?");
    return;
  }
  if (dst->kind != AGX_K_REG || (dst->bits != 16 && dst->bits != 32) || co->kind != AGX_K_REG || co->bits != 32 ||
      in->src[0].kind != AGX_K_TS || in->src[1].kind != AGX_K_SS) {
    fail(x, GS_EINVAL, "smpf takes a 16- or 32-bit destination run, tsN, ssN and 32-bit coordinates");
    return;
  }
  unsigned n = dst->bits / 16, count = popcount(in->mask & 15);
  if (check(x, dst->index, count * n, 0)) return; /* the whole run, whatever the lanes */
  agx_tex_req q;
  memset(&q, 0, sizeof q);
  q.s = s, q.pc = x->pc, q.ts = in->src[0].index, q.ss = in->src[1].index, q.dim = in->dim;
  q.lod_mode = in->lod_mode, q.lanes = s->exec;
  for (unsigned l = 0; l < AGX_LANES && !x->err; l++) {
    if (!ACTIVE(s, l)) continue;
    agx_opnd c1 = *co;
    q.x[l] = (uint32_t)rd(x, &c1, l);
    c1.index = (uint16_t)(c1.index + 2);
    q.y[l] = (uint32_t)rd(x, &c1, l);
    if (in->lod_mode && !x->err) {
      double v = rdf(x, lod, l);
      q.lod[l] = agx_fresult(v, AGX_R32, 0);
    }
  }
  if (x->err) return;
  uint32_t out[AGX_LANES][4];
  gs_diag sub;
  gs_diag_clear(&sub);
  int rc = q.lanes ? s->tex(s->tex_ctx, &q, out, &sub) : 0;
  if (rc < 0) {
    fail(x, rc, "smpf ts%u, ss%u: %s", q.ts, q.ss, sub.msg);
    return;
  }
  unsigned k = 0;
  for (unsigned j = 0; j < 4 && !x->err; j++) {
    if (!((in->mask >> j) & 1)) continue;
    for (unsigned l = 0; l < AGX_LANES && !x->err; l++)
      if (ACTIVE(s, l)) wr_elem(x, dst, l, k, n == 1 ? agx_f32_to_f16(out[l][j]) : out[l][j]);
    k++;
  }
  if (!x->err)
    for (unsigned h = 0; h < k * n; h++) s->pending[dst->index + h] = (uint8_t)(1 + (in->group & 1));
}

/* The plane of cf register c at tile-relative (tx, ty), in double. */
static double plane(const agx_state *s, unsigned c, double tx, double ty) {
  return agx_f32_in(s->cf[c][0]) * tx + agx_f32_in(s->cf[c][1]) * ty + agx_f32_in(s->cf[c][2]);
}

/* iter, iterproj and ldcf in the active lanes. */
static void interpolate(run *x, const agx_instr *in) {
  agx_state *s = x->s;
  const agx_opnd *dst = &in->dst;
  unsigned count = in->op == AGX_LDCF ? 3 : dst->count ? dst->count : 1;
  if (in->op != AGX_LDCF && in->interp != AGX_INTERP_CENTER && in->interp != AGX_INTERP_CENTROID) {
    fail(x, GS_EINVAL, "sample interpolation is not modelled (one sample per pixel)");
    return;
  }
  if (dst->kind != AGX_K_REG || (dst->bits != 16 && dst->bits != 32)) {
    fail(x, GS_EINVAL, "the destination of an iter is not a run of 16- or 32-bit registers");
    return;
  }
  agx_fround r = dst->bits == 16 ? AGX_R32_16 : AGX_R32;
  for (unsigned l = 0; l < AGX_LANES && !x->err; l++) {
    if (!ACTIVE(s, l)) continue;
    uint64_t c = in->src[0].kind == AGX_K_CF ? in->src[0].index : rd(x, &in->src[0], l);
    unsigned w = in->src[1].index;
    if (x->err) return;
    if (c + (in->op == AGX_LDCF ? 1 : count) > AGX_CFS || (in->op == AGX_ITERPROJ && w >= AGX_CFS)) {
      fail(x, GS_EINVAL, "lane %u: cf%llu is beyond cf%u", l, (unsigned long long)c, AGX_CFS - 1);
      return;
    }
    if (in->op == AGX_LDCF) {
      for (unsigned k = 0; k < 3; k++)
        wr_elem(x, dst, l, k, dst->bits == 16 ? agx_f32_to_f16(s->cf[c][k]) : s->cf[c][k]);
      continue;
    }
    uint32_t px = special(x, l, 80), py = special(x, l, 81);
    if (x->err) return;
    double tx = (px & 31) + 0.5, ty = (py & 31) + 0.5;
    double wv = in->op == AGX_ITERPROJ ? plane(s, w, tx, ty) : 1.0;
    for (unsigned k = 0; k < count; k++) wr_elem(x, dst, l, k, agx_fresult(plane(s, (unsigned)c + k, tx, ty) / wv, r, 0));
  }
}

/* The index of the instruction at byte address target, walking from
 * instruction k at address pc; -1 when none starts there. */
static long seek(const agx_program *p, size_t k, uint32_t pc, uint32_t target) {
  while (pc < target && k < p->n) pc += p->insn[k++].len;
  while (pc > target && k > 0) pc -= p->insn[--k].len;
  return pc == target && k < p->n ? (long)k : -1;
}

static uint32_t bitrev32(uint32_t v) {
  uint32_t r = 0;
  for (int i = 0; i < 32; i++) r |= ((v >> i) & 1) << (31 - i);
  return r;
}

/* One ALU instruction over the active lanes. Returns 1 when in is not an
 * ALU instruction. */
static int alu(run *x, const agx_instr *in) {
  agx_state *s = x->s;
  const agx_opnd *a = &in->src[0], *b = &in->src[1], *c = &in->src[2];
  unsigned db = in->dst.bits;
  for (unsigned l = 0; l < AGX_LANES && !x->err; l++) {
    if (!ACTIVE(s, l)) continue;
    uint64_t r;
    switch (in->op) {
      case AGX_FADD: case AGX_HADD:
        r = agx_fadd(rdf(x, a, l), rdf(x, b, l), fround(in, in->op == AGX_HADD), in->sat);
        break;
      case AGX_FMUL: case AGX_HMUL:
        r = agx_fmul(rdf(x, a, l), rdf(x, b, l), fround(in, in->op == AGX_HMUL), in->sat);
        break;
      case AGX_FFMA: case AGX_HFMA: {
        double fa = rdf(x, a, l), fb = rdf(x, b, l);
        r = agx_ffma(fa, fb, rdf(x, c, l), fround(in, in->op == AGX_HFMA), in->sat);
        break;
      }
      case AGX_DFDX: case AGX_DFDY: {
        /* fine derivatives inside the quad (lanes 4q..4q+3 as a 2x2 block,
         * x along bit 0 of the lane, y along bit 1), helpers included */
        unsigned bit = in->op == AGX_DFDX ? 1 : 2;
        double hi = rdf(x, a, l | bit), lo = rdf(x, a, l & ~bit);
        r = agx_fadd(hi, -lo, fround(in, 0), in->sat);
        break;
      }
      case AGX_FLOOR: case AGX_SRSQRT: case AGX_RCP: case AGX_RSQRT: case AGX_SIN_PT_1: case AGX_LOG2:
      case AGX_EXP2: case AGX_SIN_PT_2: case AGX_CEIL: case AGX_TRUNC: case AGX_RINT:
        r = agx_funop(funop_code[in->op - AGX_FLOOR], rdf(x, a, l), fround(in, 0), in->sat);
        break;
      case AGX_LDIMM: case AGX_GET_SR:
        r = rd(x, a, l);
        break;
      case AGX_BITOP:
        r = agx_bitop(in->tt, (uint32_t)rd(x, a, l), (uint32_t)rd(x, b, l));
        break;
      case AGX_IADD: case AGX_ISUB: {
        uint64_t va = agx_iext(rd(x, a, l), obits(a), a->sx), vb = agx_iext(rd(x, b, l), obits(b), b->sx);
        int sat = in->sat && obits(a) <= 32 && obits(b) <= 32; /* sat: sizes up to 32 bits */
        r = agx_iadd(va, vb, in->op == AGX_ISUB, in->shift, db, sat, a->sx || b->sx);
        break;
      }
      case AGX_IMAD: case AGX_IMSUB: {
        uint64_t va = agx_iext(rd(x, a, l), obits(a), a->sx), vb = agx_iext(rd(x, b, l), obits(b), b->sx);
        uint64_t vc = agx_iext(rd(x, c, l), obits(c), c->sx);
        int sat = in->sat && obits(c) <= 32;
        r = agx_imad(va, vb, vc, in->op == AGX_IMSUB, in->shift, db, sat, a->sx || b->sx || c->sx);
        break;
      }
      case AGX_BFI: case AGX_BFEIL: case AGX_EXTR: {
        uint32_t d32 = 0;
        unsigned op = in->op == AGX_BFI ? AGX_SH_BFI : in->op == AGX_BFEIL ? AGX_SH_BFEIL : AGX_SH_EXTR;
        agx_shift_op(op, (uint32_t)rd(x, a, l), (uint32_t)rd(x, b, l), (uint32_t)rd(x, c, l), in->mask_width, &d32);
        r = d32;
        break;
      }
      case AGX_BITREV: r = bitrev32((uint32_t)rd(x, a, l)) >> (db == 16 ? 16 : 0); break;
      case AGX_POPCNT: r = popcount((uint32_t)rd(x, a, l)); break;
      case AGX_FFS: {
        uint32_t v = (uint32_t)rd(x, a, l);
        r = v ? 31u - (unsigned)__builtin_clz(v) : 0xffffffffu;
        break;
      }
      case AGX_CONVERT: {
        uint32_t d32 = 0;
        if (agx_convert(in->mode, in->round, (uint32_t)rd(x, a, l), obits(a) == 16, db == 16, &d32))
          return fail(x, GS_EINVAL, "convert mode %u is undefined", in->mode), 0;
        r = d32;
        break;
      }
      case AGX_ICMPSEL: case AGX_FCMPSEL: {
        int t = in->op == AGX_FCMPSEL ? agx_fcmp(in->cond, rdf(x, a, l), rdf(x, b, l))
                                      : agx_icmp(in->cond, rd(x, a, l), obits(a), rd(x, b, l), obits(b));
        if (t < 0) return fail(x, GS_EINVAL, "condition code %u is undefined", in->cond), 0;
        r = rd(x, t ? c : &in->src[3], l);
        break;
      }
      default:
        return 1;
    }
    if (!x->err) wr(x, &in->dst, l, r);
  }
  return 0;
}


int agx_exec_insn(agx_state *s, const agx_instr *in, uint32_t pc, gs_diag *d) {
  run x = {s, NULL, pc, 0, d};
  switch (in->op) {
    case AGX_IF_ICMP: case AGX_ELSE_ICMP: case AGX_WHILE_ICMP: case AGX_IF_FCMP: case AGX_ELSE_FCMP:
    case AGX_WHILE_FCMP: case AGX_POP_EXEC:
      exec_stack(&x, in);
      break;
    case AGX_WAIT:
      for (unsigned h = 0; h < AGX_HALVES; h++)
        if (s->pending[h] == 1 + (in->group & 1)) s->pending[h] = 0;
      break;
    case AGX_BARRIER: case AGX_PIXWAIT: case AGX_PIXREL:
      break; /* one group in order: nothing to wait for */
    case AGX_LOAD: case AGX_STORE:
      memory(&x, in);
      break;
    case AGX_ST_VAR: case AGX_NO_VAR:
      varying(&x, in);
      break;
    case AGX_ITER: case AGX_ITERPROJ: case AGX_LDCF:
      interpolate(&x, in);
      break;
    case AGX_SAMPLE_MASK: case AGX_ZS_EMIT:
      fragment_out(&x, in);
      break;
    case AGX_SMPF:
      texture(&x, in);
      break;
    default:
      if (alu(&x, in)) return fail(&x, GS_EINVAL, "%s is not run by the reference interpreter", agx_op_name(in->op));
  }
  return x.err;
}

int agx_fault(gs_diag *d, int kind, uint32_t pc, uint64_t arg) {
  run x = {NULL, NULL, pc, 0, d};
  switch (kind) {
    case AGX_FAULT_ENTRY: return fail(&x, GS_EARG, "the entry is not the start of an instruction");
    case AGX_FAULT_END: return fail(&x, GS_EFAULT, "past the end of the program (no stop)");
    case AGX_FAULT_BUDGET:
      return fail(&x, GS_EWATCHDOG, "ran past its budget of %llu instructions (an endless loop?)",
                  (unsigned long long)arg);
    case AGX_FAULT_LENGTH: return fail(&x, GS_EINVAL, "instruction length %llu", (unsigned long long)arg);
    case AGX_FAULT_JUMP:
      return fail(&x, GS_EFAULT, "jump to 0x%04llx, which is not the start of an instruction", (unsigned long long)arg);
    default: return fail(&x, GS_EINVAL, "trap");
  }
}

long agx_seek(const agx_program *p, size_t k, uint32_t pc, uint32_t target) { return seek(p, k, pc, target); }

/* The instruction *kp, at s->pc: 0 it ran (*kp the next), 1 it was stop,
 * or the error. */
static int step_at(agx_state *s, const agx_program *p, long *kp, uint64_t budget, gs_diag *d) {
  long k = *kp;
  {
    uint32_t pc = s->pc;
    if ((size_t)k >= p->n) return agx_fault(d, AGX_FAULT_END, pc, 0);
    if (s->steps >= budget) return agx_fault(d, AGX_FAULT_BUDGET, pc, budget);
    s->steps++;
    const agx_instr *in = &p->insn[k];
    if (in->len < 2 || in->len > AGX_MAX_BYTES || (in->len & 1)) return agx_fault(d, AGX_FAULT_LENGTH, pc, in->len);
    uint32_t npc = pc + in->len;
    long next = k + 1;
    if (in->op == AGX_JMP_ANY || in->op == AGX_JMP_NONE) {
      if ((in->op == AGX_JMP_ANY) == (s->exec != 0)) {
        npc = pc + (uint32_t)in->offset;
        next = seek(p, (size_t)k, pc, npc);
        if (next < 0) return agx_fault(d, AGX_FAULT_JUMP, pc, npc);
      }
    } else if (in->op == AGX_STOP) {
      s->stopped = 1;
      s->pc = npc;
      return 1;
    } else if (in->op == AGX_TRAP) {
      return agx_fault(d, AGX_FAULT_TRAP, pc, 0);
    } else {
      int rc = agx_exec_insn(s, in, pc, d);
      if (rc) return rc < 0 ? rc : -rc;
    }
    s->pc = npc;
    *kp = next;
  }
  return 0;
}

static int run_ref(agx_state *s, const void *prog, uint32_t entry, uint64_t budget, gs_diag *d) {
  const agx_program *p = prog;
  long k = seek(p, 0, 0, entry);
  s->stopped = 0;
  s->pc = entry;
  if (k < 0) return agx_fault(d, AGX_FAULT_ENTRY, entry, 0);
  int rc;
  while ((rc = step_at(s, p, &k, budget, d)) == 0) {}
  return rc < 0 ? rc : GS_OK;
}

int agx_step_ref(agx_state *s, const agx_program *p, uint64_t budget, gs_diag *d) {
  long k = seek(p, 0, 0, s->pc);
  if (k < 0) return agx_fault(d, AGX_FAULT_JUMP, s->pc, s->pc);
  return step_at(s, p, &k, budget, d);
}

int agx_run_nearest(agx_loop_fn run, agx_state *s, const void *prog, uint32_t entry, uint64_t budget, gs_diag *d) {
  int mode = gs_fp_round_get();
  gs_fp_round_set(GS_FP_NEAREST);
  int rc = run(s, prog, entry, budget, d);
  gs_fp_round_set(mode);
  return rc;
}

int agx_run_ref(agx_state *s, const agx_program *p, uint32_t entry, uint64_t budget, gs_diag *d) {
  return agx_run_nearest(run_ref, s, p, entry, budget, d);
}
