/* attr.c — ALD, AST, AL2P and IPA semantics and the pixel shader output map
 * (attr.h; the model and its sources: docs/sass-attributes.md).
 *
 * Facts: NVIDIA's ALD description (the BMAP tables, the alignment rule, the
 * Rb and .P rules, the out-of-range zero) and Shader Program Header
 * description (StoreReq, MrtEnable, OmapTarget/Depth/SampleMask); the
 * attribute addresses, IPA modes and output registers as nouveau
 * (nv50_ir_lowering_nvc0.cpp, nvc0_program.c), yuzu and Ryujinx use them.
 */
#include "isa/sass/attr.h"

#include <string.h>
#include "isa/sass/sass.h"
#include "isa/uop/uop.h" /* gs_lane_f, gs_lane_u */

/* ---- buffers ----------------------------------------------------------------- */

static int set_has(const gs_sph_attr_set *s, unsigned k) { return (int)(s->bits[k >> 5] >> (k & 31) & 1u); }
static void set_add(gs_sph_attr_set *s, unsigned k) { s->bits[k >> 5] |= 1u << (k & 31); }

void sass_attr_buf_clear(sass_attr_buf *b, uint32_t fill) {
  for (unsigned k = 0; k < SASS_ATTR_WORDS; k++) b->v[k] = fill;
  memset(&b->written, 0, sizeof b->written);
}

void sass_attr_buf_store(sass_attr_buf *b, unsigned addr, uint32_t value) {
  unsigned k = (addr >> 2) & (SASS_ATTR_WORDS - 1);
  b->v[k] = value;
  set_add(&b->written, k);
}

/* ---- the stage context ---------------------------------------------------------- */

const char *sass_attr_error_text(int rc) {
  switch (rc) {
  case SASS_ATTR_E_VERTEX_RB:
    return "ILLEGAL_INSTR_ENCODING: a vertex shader's ALD/AST has a vertex register Rb other than RZ";
  case SASS_ATTR_E_PATCH:
    return "per-patch (.P) attribute access outside a tessellation shader (stores: outside a TCS)";
  case SASS_ATTR_E_OUTPUT:
    return "ALD.O (output read-back) outside a vertex or tessellation shader";
  case SASS_ATTR_E_PHYS:
    return "indexed ALD/AST without .P (.PHYS: Ra != RZ) needs a zero immediate";
  case SASS_ATTR_E_STAGE:
    return "ALD/AST in a pixel shader (its inputs are read with IPA)";
  default:
    return rc < 0 ? "unknown attribute error" : "no error";
  }
}

/* The words the hardware generates among stage's inputs (nouveau's and
 * NVIDIA's attribute addresses): VertexId and InstanceId for a VS (the
 * vertex fetcher), PrimitiveId for the stages after it, TessCoord for a TES. */
static void hw_words(gs_sph_stage stage, gs_sph_attr_set *hw) {
  memset(hw, 0, sizeof *hw);
  switch (stage) {
  case GS_SPH_VERTEX:
    set_add(hw, GS_SPH_ATTR_INSTANCE_ID / 4);
    set_add(hw, GS_SPH_ATTR_VERTEX_ID / 4);
    break;
  case GS_SPH_TESSELLATION:
    set_add(hw, GS_SPH_ATTR_TESS_COORD / 4);
    set_add(hw, GS_SPH_ATTR_TESS_COORD / 4 + 1);
    set_add(hw, GS_SPH_ATTR_PRIMITIVE_ID / 4);
    break;
  case GS_SPH_TESSELLATION_INIT:
  case GS_SPH_GEOMETRY:
    set_add(hw, GS_SPH_ATTR_PRIMITIVE_ID / 4);
    break;
  default:
    break;
  }
}

int sass_attr_ctx_init(sass_attr_ctx *c, gs_sph_stage stage, const gs_sph *cur, const gs_sph *prev,
                       const gs_sph *next, gs_diag *d) {
  memset(c, 0, sizeof *c);
  c->stage = stage;
  if (stage < GS_SPH_VERTEX || stage > GS_SPH_PIXEL)
    return gs_diag_set(d, GS_EINVAL, "attribute context: stage %d is not a ShaderType (1-5)", (int)stage);
  if (cur->shader_type != (uint32_t)stage)
    return gs_diag_set(d, GS_EINVAL, "attribute context: the SPH's ShaderType is %u, the stage %d",
                       cur->shader_type, (int)stage);
  if (stage == GS_SPH_PIXEL) return GS_OK; /* no ALD/AST: empty maps */
  if (cur->sph_type != GS_SPH_TYPE_VTG)
    return gs_diag_set(d, GS_EINVAL, "attribute context: a stage-%d SPH of SphType %u, not 1 (VTG)", (int)stage,
                       cur->sph_type);
  gs_sph_input_bmap(cur, prev, &c->in_bmap);
  gs_sph_output_bmap(cur, next, &c->out_bmap);
  hw_words(stage, &c->hw);
  for (unsigned k = 0; k < GS_SPH_ATTR_COUNT; k++) {
    if (gs_sph_omap(cur, 4 * k)) set_add(&c->omap, k);
    /* a generated word is present whenever this stage maps it: no stage
     * before writes it (the .I table's row "BMAP 1, not written: HW value") */
    if (set_has(&c->hw, k) && gs_sph_imap(cur, 4 * k)) set_add(&c->in_bmap, k);
  }
  return GS_OK;
}

/* ---- ALD / AST -------------------------------------------------------------------- */

int sass_attr_check(const sass_attr_ctx *c, const sass_attr_op *op, int store) {
  int tess = c->stage == GS_SPH_TESSELLATION_INIT || c->stage == GS_SPH_TESSELLATION;
  if (c->stage == GS_SPH_PIXEL || c->stage < GS_SPH_VERTEX || c->stage > GS_SPH_PIXEL) return SASS_ATTR_E_STAGE;
  if (c->stage == GS_SPH_VERTEX && op->rb != SASS_RZ) return SASS_ATTR_E_VERTEX_RB;
  if (op->flags & SASS_ATTR_P) {
    if (!tess || (store && c->stage != GS_SPH_TESSELLATION_INIT)) return SASS_ATTR_E_PATCH;
  } else if (op->ra != SASS_RZ && op->imm != 0) {
    return SASS_ATTR_E_PHYS; /* vector .PHYS is allowed: the ALD description's own AL2P example uses .64 */
  }
  if (!store && (op->flags & SASS_ATTR_O) && c->stage == GS_SPH_GEOMETRY) return SASS_ATTR_E_OUTPUT;
  return GS_OK;
}

sass_attr_outcome sass_attr_read(const sass_attr_ctx *c, const sass_attr_io *io, int out_buffer, int patch,
                                 uint32_t vertex, uint32_t addr, uint32_t *value) {
  const sass_attr_buf *b;
  unsigned k = addr >> 2;
  *value = 0;
  if (addr > 0x3FFu) return SASS_ATTR_OUT_OF_RANGE;
  if (patch) { /* no IMAP/OMAP, so no defaulting (ALD description) */
    if (!io->patch) return SASS_ATTR_OUT_OF_RANGE;
    *value = io->patch->v[k];
    return set_has(&io->patch->written, k) ? SASS_ATTR_STORED : SASS_ATTR_LEFTOVER;
  }
  if (!out_buffer && addr == GS_SPH_ATTR_PRIMITIVE_ID && io->prim) {
    b = io->prim; /* per-primitive: Rb is ignored */
  } else if (!out_buffer && addr == GS_SPH_ATTR_PRIMITIVE_ID) {
    if (!io->nin) return SASS_ATTR_BAD_VERTEX;
    b = io->in;
  } else {
    unsigned n = out_buffer ? io->nout : io->nin;
    if (vertex >= n) return SASS_ATTR_BAD_VERTEX;
    b = (out_buffer ? io->out : io->in) + vertex;
  }
  if (!set_has(out_buffer ? &c->out_bmap : &c->in_bmap, k)) {
    *value = gs_sph_attr_default(addr);
    return SASS_ATTR_DEFAULT;
  }
  *value = b->v[k];
  if (set_has(&b->written, k)) return SASS_ATTR_STORED;
  return !out_buffer && set_has(&c->hw, k) ? SASS_ATTR_HW : SASS_ATTR_LEFTOVER;
}

/* The register and address bits each size drops (the ALD description's alignment rule). */
static const uint8_t reg_drop[4] = {0, 1, 3, 3};
static const uint8_t addr_drop[4] = {3, 7, 15, 15};

static uint32_t reg_get(sass_regs regs, unsigned r) { return r == SASS_RZ ? 0 : regs.r[r * regs.stride]; }

/* The operands of op for a lane: first register, first address, vertex. */
static void operands(sass_regs regs, const sass_attr_op *op, unsigned *reg, uint32_t *addr, uint32_t *vertex) {
  unsigned size = op->size & 3u;
  *reg = op->reg & ~(unsigned)reg_drop[size];
  *addr = (reg_get(regs, op->ra) + (uint32_t)op->imm) & ~(uint32_t)addr_drop[size];
  *vertex = reg_get(regs, op->rb);
}

int sass_ald(const sass_attr_ctx *c, const sass_attr_io *io, sass_regs regs, const sass_attr_op *op,
             uint8_t outcome[4]) {
  unsigned reg, n = (op->size & 3u) + 1u;
  uint32_t addr, vertex, value[4];
  uint8_t oc[4];
  int rc = sass_attr_check(c, op, 0), set = 0;
  if (rc < 0) return rc;
  operands(regs, op, &reg, &addr, &vertex);
  for (unsigned i = 0; i < n; i++) /* every read before any write: Rd may overlap Ra, Rb */
    oc[i] = (uint8_t)sass_attr_read(c, io, op->flags & SASS_ATTR_O, op->flags & SASS_ATTR_P, vertex,
                                    addr + 4u * i, &value[i]);
  for (unsigned i = 0; i < n; i++) {
    if (reg + i >= SASS_RZ)
      oc[i] = SASS_ATTR_NO_REG;
    else
      regs.r[(reg + i) * regs.stride] = value[i];
    set |= 1 << oc[i];
    if (outcome) outcome[i] = oc[i];
  }
  return set;
}

int sass_ast(const sass_attr_ctx *c, const sass_attr_io *io, sass_regs regs, const sass_attr_op *op,
             uint8_t outcome[4]) {
  unsigned reg, n = (op->size & 3u) + 1u;
  uint32_t addr, vertex;
  int rc = sass_attr_check(c, op, 1), set = 0;
  if (rc < 0) return rc;
  operands(regs, op, &reg, &addr, &vertex);
  for (unsigned i = 0; i < n; i++) {
    uint32_t a = addr + 4u * i, v = reg_get(regs, reg + i >= SASS_RZ ? SASS_RZ : reg + i);
    sass_attr_buf *b = NULL;
    sass_attr_outcome o;
    if (a > 0x3FFu)
      o = SASS_ATTR_OUT_OF_RANGE;
    else if (op->flags & SASS_ATTR_P)
      o = (b = io->patch) != NULL ? SASS_ATTR_WRITTEN : SASS_ATTR_OUT_OF_RANGE;
    else if (vertex >= io->nout)
      o = SASS_ATTR_BAD_VERTEX;
    else if (!set_has(&c->omap, a >> 2))
      o = SASS_ATTR_DROPPED;
    else
      o = SASS_ATTR_WRITTEN, b = io->out + vertex;
    if (b) sass_attr_buf_store(b, a, v);
    set |= 1 << o;
    if (outcome) outcome[i] = (uint8_t)o;
  }
  return set;
}

/* ---- IPA ------------------------------------------------------------------------------ */

int sass_ipa_map_init(sass_ipa_map *m, const gs_sph *ps, gs_diag *d) {
  uint8_t mode[32];
  uint16_t addr[32];
  unsigned n;
  memset(m->k, 0xFF, sizeof m->k); /* SASS_IPA_NONE */
  int rc = gs_sph_varying_modes(ps, mode, addr, &n, d);
  if (rc < 0) return rc;
  for (unsigned i = 0; i < n; i++) m->k[addr[i] >> 2] = (int8_t)i;
  return GS_OK;
}

uint32_t sass_ipa(const sass_ipa_map *m, const gs_frag_io *io, unsigned lane, const sass_frag_sys *sys,
                  const sass_ipa_op *op, uint32_t rb) {
  unsigned addr = op->addr;
  double p;
  if (addr > 0x3FFu) return 0;
  switch (addr & ~3u) {
  case GS_SPH_ATTR_PRIMITIVE_ID: return sys ? sys->primitive_id : 0;
  case GS_SPH_ATTR_RT_ARRAY_INDEX: return sys ? sys->layer : 0;
  case SASS_IPA_FRONT_FACING: return io->reverse ? 0 : 0xFFFFFFFFu;
  case GS_SPH_ATTR_POSITION: p = (double)io->x[lane] + 0.5; break;
  case GS_SPH_ATTR_POSITION + 4: p = (double)io->y[lane] + 0.5; break;
  case GS_SPH_ATTR_POSITION + 8: p = (double)io->z[lane] / 16777215.0; break;
  case GS_SPH_ATTR_POSITION + 12: p = 1.0 / (double)io->w[lane]; break; /* Σλ/w */
  default: {
    int k = m->k[addr >> 2];
    if (sass_ipa_unmapped(m, addr))
      /* a generic component the program's SPH does not map: no varying
       * reaches it, so the picture is not what the code asks for */
      gs_isa_report_exception(io->report, "SASS pixel shader 0x%08x: IPA reads a[0x%03x] (generic %u.%c), which "
                              "its SPH's ImapGenericVector does not map (a varying the shader does not declare?): it "
                              "reads its default", io->prog.code, addr, (addr - GS_SPH_ATTR_GENERIC(0)) / 16,
                              "xyzw"[addr / 4 % 4]);
    if (k < 0 || (unsigned)k >= io->nin) return gs_sph_attr_default(addr);
    double plane = io->plane[k][lane], off = io->offset[k], w = io->w[lane];
    switch (io->imap[k]) {
    case GS_PIXEL_IMAP_PERSPECTIVE: p = plane + off / w; break; /* (plane·W + off)/W = Σλ a/w */
    case GS_PIXEL_IMAP_SCREEN_LINEAR:
    case GS_PIXEL_IMAP_CONSTANT: p = plane * w + off; break;
    default: return gs_sph_attr_default(addr);
    }
  }
  }
  float f = (float)p;
  if (op->mode == SASS_IPA_MULTIPLY || (op->mode == SASS_IPA_SC && !op->flat_shade)) f = f * gs_lane_f(rb);
  if (op->sat) f = f > 0.0f ? (f < 1.0f ? f : 1.0f) : 0.0f; /* NaN, -0 and below: +0 */
  return gs_lane_u(f);
}

/* ---- pixel shader outputs ---------------------------------------------------------------- */

int sass_ps_out_init(sass_ps_out *o, const gs_sph *ps, int mrt_state, gs_diag *d) {
  unsigned n = 0, top = 0;
  memset(o, 0, sizeof *o);
  if (ps->sph_type != GS_SPH_TYPE_PS)
    return gs_diag_set(d, GS_EARG, "pixel shader outputs: SPH of SphType %u is not a pixel shader's", ps->sph_type);
  for (unsigned i = 0; i < 8; i++) {
    unsigned mask = 0;
    for (unsigned c = 0; c < 4; c++) mask |= (ps->omap_target[i][c] ? 1u : 0u) << c;
    o->rt_mask[i] = (uint8_t)mask;
    o->rt_reg[i] = (uint8_t)(mask ? 4 * n++ : SASS_PS_NONE);
  }
  o->nrt = (uint8_t)n;
  top = 4 * n;
  o->mrt = (uint8_t)(ps->mrt_enable && mrt_state);
  for (unsigned i = 0; i < 8; i++) {
    unsigned src = o->mrt ? i : 0;
    o->target_reg[i] = o->rt_reg[src];
    o->target_mask[i] = o->rt_mask[src];
  }
  o->sample_mask_reg = (uint8_t)(ps->omap_sample_mask ? 4 * n : SASS_PS_NONE);
  o->depth_reg = (uint8_t)(ps->omap_depth ? 4 * n + 1 : SASS_PS_NONE);
  if (ps->omap_sample_mask) top = 4 * n + 1;
  if (ps->omap_depth) top = 4 * n + 2;
  o->nregs = (uint8_t)top;
  o->kills_pixels = (uint8_t)(ps->kills_pixels != 0);
  return GS_OK;
}
