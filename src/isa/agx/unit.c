/* unit.c — the Apple AGX (G13) shader unit in the pipeline (the hooks of
 * src/isa/isa.h for isa_agx.c): a program cache per context, and the abi
 * of Mesa's Asahi driver (src/asahi/lib/agx_abi.h and the "ABI" section of
 * Mesa's docs/drivers/asahi.rst) that puts an AGX program where the
 * VideoCore IV pipeline has a QPU program. docs/agx-unit.md is the
 * chapter; in short:
 *
 * Vertex and coordinate stages. The driver's vertex prolog is modelled as
 * C that writes exactly what the prolog code would leave for the main
 * shader: r5 = the vertex id (the index the VCD fetched the vertex with),
 * r6 = the instance id (0: gpusim draws have one instance); attribute a
 * (the SPH's generic input a), component c in r(8 + 4a + c), the VCD's
 * words in the order of the SPH's IMAP, the components the SPH does not
 * map of an attribute it reads filled with (0, 0, 0, 1) as the prolog's
 * fetch fills them; every other register 0. Uniform registers in the
 * layout of agx_abi.h for n = 8 attributes (AGX_VS_ATTRIBS: the most a GL
 * shader record gives; generic inputs 0-7): du(2a) the base address of
 * attribute a and u(2n + a) its clamp (both 0: the VCD, not the prolog,
 * fetched the words, from buffers the unit does not see), u(3n) the base
 * vertex and u(3n + 1) the base instance (0, 0: the vertex id is already
 * the fetch index), u(3n + 2)l the draw id (0); then the draw's uniform
 * stream, word k in u(27 + k) (AGX_VS_UNIFORM_BASE), as far as the 256
 * uniform registers reach.
 *
 * The program runs with agx_run_fast (agx_run_ref under
 * gs_gpu_config.interpreter reference) from byte 0 until stop. Every lane
 * must have ended its varyings with st_var ... last or no_var. UVS words 0
 * to 3 are the clip-space position x y z w (those not stored read 0, w 1),
 * words 4.. the varyings, as many as the SPH's OMAP maps generic output
 * components; the abi then divides by W and applies the viewport
 * (gs_vertex_io_put), which AGX GPUs do in fixed function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/half.h"
#include "isa/agx/exec.h"
#include "isa/agx/table.h"
#include "isa/agx/unit.h"
#include "isa/progcache.h"
#include "isa/uop/uop.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

/* ---- the program cache --------------------------------------------------------- */

typedef struct entry {
  gs_prog_entry base; /* address and code (isa/progcache.h) */
  agx_instr *insn;
  agx_program prog;
  agx_fast *fast;
  gs_sph sph;
  /* a vertex program: the register (32-bit number) of each VCD word, in
   * the order of the SPH's IMAP; the attributes read and which of their
   * components the SPH maps; the varying words the OMAP declares */
  uint8_t in_reg[128];
  unsigned nin, nattr;
  uint8_t attr_mask[AGX_VS_ATTRIBS];
  unsigned nvary;
  unsigned halves; /* the register halves its operands name (r0l at least): what a group must zero */
} entry;

static void entry_destroy(gs_prog_entry *b) {
  entry *e = (entry *)b;
  if (!e) return;
  agx_fast_free(e->fast);
  free(e->insn);
  free(e);
}

/* Decodes the size bytes of code into e->insn: every byte belongs to an
 * instruction of the subset. */
static int decode_all(entry *e, const uint8_t *code, uint32_t size, gs_diag *d) {
  size_t cap = size / 2 + 1, n = 0;
  if (!(e->insn = calloc(cap, sizeof *e->insn))) return gs_diag_set(d, GS_ENOMEM, "out of memory for an AGX program");
  for (uint32_t off = 0; off < size; n++) {
    char why[160];
    unsigned len = 0;
    if (agx_decode(code + off, size - off, &e->insn[n], &len, why, sizeof why) <= 0)
      return gs_diag_set(d, GS_EINVAL, "the AGX program's instruction at byte 0x%04x does not decode: %s", off, why);
    off += e->insn[n].len;
  }
  e->prog = (agx_program){e->insn, n};
  e->halves = 2; /* r0: the nesting counter if/else/while/pop_exec use */
  for (size_t k = 0; k < n; k++)
    for (int j = -1; j < 4; j++) {
      const agx_opnd *o = j < 0 ? &e->insn[k].dst : &e->insn[k].src[j];
      unsigned op = e->insn[k].op, runs = op == AGX_LOAD || op == AGX_STORE || op == AGX_ST_TILE ||
                                           op == AGX_LD_TILE || op == AGX_SMPF; /* masked runs: up to 4 */
      unsigned count = o->count ? o->count : 1, per = o->bits == 64 ? 4 : o->bits == 32 ? 2 : 1;
      unsigned end = o->index + (runs && count < 4 ? 4 : count) * per;
      if (o->kind == AGX_K_REG && end > e->halves) e->halves = end;
    }
  if (e->halves > AGX_HALVES) e->halves = AGX_HALVES;
  return agx_fast_compile(&e->prog, &e->fast, d);
}

/* What a vertex program needs from its SPH. */
static int vertex_maps(entry *e, gs_diag *d) {
  const gs_sph *s = &e->sph;
  for (unsigned g = 0; g < 32; g++)
    for (unsigned c = 0; c < 4; c++) {
      unsigned a = GS_SPH_ATTR_GENERIC(g) + 4 * c;
      if (gs_sph_omap(s, a)) e->nvary++;
      if (!gs_sph_imap(s, a)) continue;
      if (g >= AGX_VS_ATTRIBS)
        return gs_diag_set(d, GS_EINVAL, "the SPH maps generic input %u; gpusim's AGX vertex ABI has attributes 0-%u "
                           "(r8-r%u, uniforms laid out for %u: docs/agx-unit.md)", g, AGX_VS_ATTRIBS - 1,
                           8 + 4 * AGX_VS_ATTRIBS - 1, AGX_VS_ATTRIBS);
      e->in_reg[e->nin++] = (uint8_t)(8 + 4 * g + c);
      e->attr_mask[g] |= (uint8_t)(1u << c);
      if (g + 1 > e->nattr) e->nattr = g + 1;
    }
  if (4 + e->nvary > AGX_UVS_WORDS)
    return gs_diag_set(d, GS_EINVAL, "the SPH declares %u varying components; the UVS gpusim keeps has %u words after "
                       "the position", e->nvary, AGX_UVS_WORDS - 4);
  return GS_OK;
}

static gs_prog_entry *entry_make(const uint8_t *code, uint32_t size, const gs_program_header *h, gs_diag *d) {
  entry *e = calloc(1, sizeof *e);
  int ok = e != NULL;
  if (!ok) gs_diag_set(d, GS_ENOMEM, "out of memory for an AGX program");
  if (ok && gs_sph_decode(h->sph_words, &e->sph, d) < 0) ok = 0;
  if (ok && decode_all(e, code, size, d) < 0) ok = 0;
  if (ok && e->sph.sph_type == GS_SPH_TYPE_VTG && vertex_maps(e, d) < 0) ok = 0;
  if (!ok) {
    entry_destroy(e ? &e->base : NULL);
    return NULL;
  }
  return &e->base;
}

static const gs_prog_cache_ops cache_ops = {GS_ISA_AGX, "AGX", entry_make, entry_destroy};

void *agx_context_new(gs_gpu *g) {
  (void)g;
  return gs_prog_cache_new(&cache_ops);
}

void agx_context_free(void *ctx) { gs_prog_cache_free(ctx); }

void agx_idle(gs_gpu *g) { gs_prog_cache_idle(gs_isa_context(g, GS_ISA_AGX)); }

struct gs_isa_unit {
  int num;
  gs_vpm *vpm;
  gs_diag *diag;
  int trusted;
  const entry *last; /* the program of the last batch */
  const entry *fresh; /* the fragment program st was last fully initialised for, or NULL */
  unsigned cf_used;   /* the coefficient registers the last fragment batch set */
  agx_state st;
};

gs_isa_unit *agx_unit_new(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag) {
  (void)g;
  gs_isa_unit *u = calloc(1, sizeof *u);
  if (!u) return NULL;
  u->num = num, u->vpm = vpm, u->diag = diag;
  return u;
}

void agx_unit_free(gs_isa_unit *u) { free(u); }

void agx_trust_code(gs_isa_unit *u, int on) { u->trusted = on; }

/* The interpreters compute in integers (num.c); the host's environment is
 * the C default. */
gs_fp_env agx_fp_env(const gs_gpu *g, gs_fp_env base) {
  (void)g;
  return gs_fp_env_c_default(base);
}

static const entry *find(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  gs_prog_cache *c = gs_isa_context(g, GS_ISA_AGX);
  return u->last = (const entry *)gs_prog_cache_find(c, g->mem, code, u->last ? &u->last->base : NULL, u->trusted,
                                                    u->diag);
}

int agx_prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code) { return find(g, u, code) ? GS_OK : u->diag->code; }

/* Device memory for load/store: the context's GPU memory. */
static int mem_access(void *ctx, uint64_t addr, void *buf, unsigned n, int write) {
  gs_gpu *g = ctx;
  if (addr > 0xffffffffu) return -1;
  uint8_t *p = gs_mem_ptr(g->mem, (gs_addr)addr, n);
  if (!p) return -1;
  if (write) memcpy(p, buf, n);
  else memcpy(buf, p, n);
  return 0;
}

/* The draw's uniform stream from uniform register `first` on: its words up
 * to its end (without one, as many as memory holds) and u255. */
static void load_uniforms(gs_gpu *g, const gs_stage_program *p, agx_state *s, unsigned first) {
  uint32_t room = first < 256 ? 256 - first : 0;
  uint32_t words = p->unif_end > p->uniforms ? (p->unif_end - p->uniforms) / 4 : 0;
  if (!p->unif_end)
    for (words = room; words && !gs_mem_ptr(g->mem, p->uniforms, 4 * words); words /= 2) {
    }
  if (words > room) words = room;
  const uint8_t *w = words ? gs_mem_ptr(g->mem, p->uniforms, 4 * words) : NULL;
  for (uint32_t k = 0; w && k < words; k++) {
    uint32_t x;
    memcpy(&x, w + 4 * k, 4); /* little-endian host, as the rest of gpusim */
    agx_set_unif32(s, first + k, x);
  }
}

/* Runs the group in s through the context's interpreter. */
static int run_group(const gs_gpu *g, const entry *e, agx_state *s, gs_diag *d) {
  uint64_t budget = g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG;
  if (g->cfg.interpreter == GS_INTERP_REFERENCE) return agx_run_ref(s, &e->prog, 0, budget, d);
  return agx_run_fast(s, e->fast, 0, budget, d);
}

/* Prefixes the unit's error with the unit, the stage and the program. */
static int unit_error(gs_isa_unit *u, int rc, const char *what, gs_addr code, const char *extra) {
  char msg[sizeof u->diag->msg];
  snprintf(msg, sizeof msg, "%s", u->diag->msg);
  return gs_diag_set(u->diag, rc, "AGX unit %d, %s 0x%08x%s: %s", u->num, what, code, extra, msg);
}

int agx_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *vio) {
  const entry *e = find(g, u, vio->prog.code);
  if (!e) return u->diag->code;
  const char *what = vio->stage == GS_STAGE_COORDINATE ? "coordinate shader" : "vertex shader";
  if (e->sph.sph_type != GS_SPH_TYPE_VTG || e->sph.shader_type != GS_SPH_VERTEX)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the program's SPH is not a vertex shader's (ShaderType %u) but it "
                       "runs as the %s", vio->prog.code, e->sph.shader_type, what);
  unsigned n = vio->count > 16 ? 16 : vio->count, nin = e->nin < vio->in_rows ? e->nin : vio->in_rows;
  agx_state *s = &u->st;
  agx_state_init(s, n);
  u->fresh = NULL;
  s->mem = mem_access, s->mem_ctx = g;
  /* the prolog's uniforms (agx_abi.h): bases and clamps 0, base vertex,
   * base instance and draw id 0; then the stream */
  load_uniforms(g, &vio->prog, s, AGX_VS_UNIFORM_BASE);
  const uint32_t *vpm = vio->vpm->words;
  for (unsigned l = 0; l < n; l++) {
    agx_set_reg32(s, l, 5, vio->index ? vio->index[l] : l);
    agx_set_reg32(s, l, 6, 0);
    for (unsigned a = 0; a < e->nattr; a++)
      if (e->attr_mask[a]) agx_set_reg32(s, l, 8 + 4 * a + 3, gs_lane_u(1.0f));
    for (unsigned k = 0; k < nin; k++) agx_set_reg32(s, l, e->in_reg[k], vpm[(vio->in_row + k) * 16 + l]);
  }
  int rc = run_group(g, e, s, u->diag);
  if (rc < 0) return unit_error(u, rc, what, vio->prog.code, " (lane k: the batch's vertex k)");
  for (unsigned l = 0; l < n; l++)
    if (!(s->var_done >> l & 1))
      return gs_diag_set(u->diag, GS_EINVAL, "AGX unit %d, %s 0x%08x, lane %u: the stop at pc 0x%04x came "
                         "without a final st_var (its last bit) or no_var, which every vertex shader ends its "
                         "varyings with", u->num, what, vio->prog.code, l, s->pc - 2); /* stop: 2 bytes */
  for (unsigned l = 0; l < n; l++) {
    float pos[4];
    for (unsigned c = 0; c < 4; c++)
      pos[c] = s->uvs_written[l] >> c & 1 ? gs_lane_f(s->uvs[l][c]) : (c == 3 ? 1.0f : 0.0f);
    gs_vertex_io_put(vio, l, pos, gs_lane_u(1.0f), &s->uvs[l][4], e->nvary);
  }
  return GS_OK;
}

/* ---- the fragment stage ------------------------------------------------------------ */

/* The special registers a fragment batch gives: the pixel (80, 81), the
 * facing (62: backfacing), the sample coverage (60, 124). */
static int frag_sr(void *ctx, unsigned lane, unsigned sr, uint32_t *v) {
  const gs_frag_io *f = ctx;
  if (lane >= f->lanes) return 1;
  switch (sr) {
  case 80: *v = f->x[lane]; return 0;
  case 81: *v = f->y[lane]; return 0;
  case 62: *v = f->reverse ? 1 : 0; return 0;
  case 60: case 124: *v = f->cov[lane]; return 0;
  default: return 1;
  }
}

/* The plane <A, B, C> through v[] of the batch's lanes (a linear function
 * of the pixel), C at the top-left corner of lane 0's 32 x 32 tile: A and
 * B from the lanes farthest from lane 0 along its row and column, in
 * double, each rounded once to binary32. */
static void fit(const gs_frag_io *f, const double *v, unsigned ax, unsigned by, uint32_t cf[3]) {
  double a = ax ? (v[ax] - v[0]) / ((double)f->x[ax] - f->x[0]) : 0.0;
  double b = by ? (v[by] - v[0]) / ((double)f->y[by] - f->y[0]) : 0.0;
  double c = v[0] - a * ((f->x[0] & 31) + 0.5) - b * ((f->y[0] & 31) + 0.5);
  cf[0] = gs_lane_u((float)a), cf[1] = gs_lane_u((float)b), cf[2] = gs_lane_u((float)c);
}

/* The coefficient registers of batch f, as the hardware's coefficient
 * setup loads them for the CF bindings gpusim gives every fragment
 * program: cf0 the fragment W binding (the screen-linear 1/w), cf(1 + k)
 * input component k of the SPH's IMAP, by its PixelImap: perspective the
 * plane of v/w (iterproj v, cf0 gives v), screen-linear the plane of v,
 * constant <0, 0, the provoking vertex's value>. The batch hands the unit
 * each lane's value, v = plane x W + offset (isa.h); the planes are
 * fitted through them. */
static void cf_setup(agx_state *s, const gs_frag_io *f) {
  unsigned ax = 0, by = 0, n = f->lanes > 16 ? 16 : f->lanes;
  for (unsigned l = 1; l < n; l++) {
    if (f->y[l] == f->y[0] && f->x[l] > f->x[0] && (!ax || f->x[l] > f->x[ax])) ax = l;
    if (f->x[l] == f->x[0] && f->y[l] > f->y[0] && (!by || f->y[l] > f->y[by])) by = l;
  }
  double v[16];
  for (unsigned l = 0; l < n; l++) v[l] = 1.0 / (double)f->w[l];
  fit(f, v, ax, by, s->cf[0]);
  for (unsigned k = 0; k < f->nin && k + 1 < AGX_CFS; k++) {
    uint32_t *cf = s->cf[k + 1];
    switch (f->imap[k]) {
    case GS_PIXEL_IMAP_CONSTANT:
      cf[0] = cf[1] = 0, cf[2] = gs_lane_u(f->offset[k]);
      break;
    case GS_PIXEL_IMAP_PERSPECTIVE:
      for (unsigned l = 0; l < n; l++) v[l] = (double)f->plane[k][l] + (double)f->offset[k] / (double)f->w[l];
      fit(f, v, ax, by, cf);
      break;
    case GS_PIXEL_IMAP_SCREEN_LINEAR:
      for (unsigned l = 0; l < n; l++) v[l] = (double)f->plane[k][l] * (double)f->w[l] + (double)f->offset[k];
      fit(f, v, ax, by, cf);
      break;
    default:
      cf[0] = cf[1] = cf[2] = 0;
    }
  }
}

/* v in [0, 1] as 8 bits, rounded to nearest (NaN: 0), as the tilebuffer's
 * u8norm store converts. */
static uint32_t unorm8(uint32_t bits) {
  float v = gs_lane_f(bits);
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return (uint32_t)(v * 255.0f + 0.5f);
}

/* What the epilog does with batch f's results in s: discard (the samples
 * sample_mask/zs_emit killed), depth (r2, or what zs_emit took, with
 * OmapDepth; else the rasterised Z), the colour of target 0 from r4-r7,
 * through the tile port. */
static void epilog(gs_isa_unit *u, const agx_state *s, const gs_frag_io *f) {
  const gs_tile_port *t = f->tile;
  uint16_t lanes = f->mask;
  uint32_t cov[16], z[16], rgba[2][16];
  for (unsigned l = 0; l < 16; l++) {
    cov[l] = l < f->lanes ? f->cov[l] : 0;
    uint8_t k = s->killed[l];
    if (k && (lanes >> l & 1)) {
      if (f->gates & GS_GATE_KILL) cov[l] &= k == 0xff ? 0 : ~(uint32_t)k;
      else
        gs_isa_report_exception(f->report, "AGX unit %d, fragment shader 0x%08x, lane %u: a discard "
                                "(sample_mask/zs_emit) without KillsPixels in the SPH: ignored", u->num,
                                f->prog.code, l);
    }
    if (!cov[l]) lanes &= (uint16_t)~(1u << l);
    if (f->gates & GS_GATE_DEPTH) {
      float d = gs_lane_f(s->zs_done >> l & 1 ? s->depth[l] : agx_reg32(s, l, 2));
      d = !(d > 0) ? 0 : d > 1 ? 1 : d;
      z[l] = (uint32_t)(d * 16777215.0 + 0.5);
    } else {
      z[l] = l < f->lanes ? f->z[l] : 0;
    }
    uint32_t c[4];
    for (unsigned j = 0; j < 4; j++) c[j] = agx_reg32(s, l, 4 + j);
    if (f->colour64) {
      rgba[0][l] = gs_half_bits(gs_lane_f(c[0])) | gs_half_bits(gs_lane_f(c[1])) << 16;
      rgba[1][l] = gs_half_bits(gs_lane_f(c[2])) | gs_half_bits(gs_lane_f(c[3])) << 16;
    } else {
      rgba[0][l] = unorm8(c[0]) | unorm8(c[1]) << 8 | unorm8(c[2]) << 16 | unorm8(c[3]) << 24;
    }
  }
  t->begin(t->ctx);
  if (!lanes) return;
  t->z_write(t->ctx, z, cov, lanes);
  if (f->gates & GS_GATE_COLOUR) {
    t->colour_write(t->ctx, 1, rgba[0], cov, lanes);
    if (f->colour64) t->colour_write(t->ctx, 1, rgba[1], cov, lanes);
  }
}

/* What agx_state_init(s, lanes) would leave, for the state program e can
 * reach (its register halves in every lane; the rest is not read), without
 * clearing the whole 28 KiB state for each 16-pixel batch: registers and
 * pending loads zero, the lanes present and active, the run and the
 * fragment outputs reset. The uniforms are the caller's. */
static void group_reset(agx_state *s, const entry *e, unsigned lanes) {
  for (unsigned l = 0; l < lanes; l++) memset(s->r[l], 0, e->halves * sizeof s->r[l][0]);
  memset(s->pending, 0, sizeof s->pending);
  s->present = s->exec = lanes >= AGX_LANES ? 0xffffffffu : (1u << lanes) - 1;
  s->pc = 0, s->steps = 0, s->stopped = 0;
  memset(s->killed, 0, sizeof s->killed), memset(s->tested, 0, sizeof s->tested);
  memset(s->depth, 0, sizeof s->depth), memset(s->stencil, 0, sizeof s->stencil);
  s->zs_done = 0, s->var_done = 0;
}

int agx_run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *fio, unsigned n, unsigned *ran) {
  *ran = 0;
  const entry *e = find(g, u, fio[0].prog.code);
  if (!e) return u->diag->code;
  if (e->sph.sph_type != GS_SPH_TYPE_PS)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the program's SPH is not a pixel shader's but it runs as the "
                       "fragment shader", fio[0].prog.code);
  agx_state *s = &u->st;
  if (u->fresh != e) { /* a new program: everything zero once (then group_reset) */
    agx_state_init(s, 16);
    u->fresh = e, u->cf_used = 0;
  }
  memset(s->u, 0, sizeof s->u);
  load_uniforms(g, &fio[0].prog, s, AGX_FS_UNIFORM_BASE);
  s->mem = mem_access, s->mem_ctx = g;
  s->sr = frag_sr;
  for (unsigned b = 0; b < n; b++) {
    const gs_frag_io *f = &fio[b];
    /* one batch a group: the 16 lanes of its 4 x 4 block, all of them
     * running (the uncovered ones as helpers: their quads' derivatives) */
    group_reset(s, e, f->lanes > 16 ? 16 : f->lanes);
    s->sr_ctx = (void *)f;
    unsigned ncf = f->nin + 1 < AGX_CFS ? f->nin + 1 : AGX_CFS;
    if (u->cf_used > ncf) memset(s->cf[ncf], 0, (u->cf_used - ncf) * sizeof s->cf[0]);
    u->cf_used = ncf;
    cf_setup(s, f);
    int rc = run_group(g, e, s, u->diag);
    if (rc < 0) {
      char extra[64];
      snprintf(extra, sizeof extra, ", block (%u, %u) (lane k: its pixel k)", f->x[0], f->y[0]);
      *ran = b;
      return unit_error(u, rc, "fragment shader", f->prog.code, extra);
    }
    epilog(u, s, f);
  }
  *ran = n;
  return GS_OK;
}
