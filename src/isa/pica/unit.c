/* unit.c — the PICA200 shader unit in the pipeline (the hooks of
 * src/isa/isa.h for isa_pica.c): a program cache per context, and the abi
 * that puts a 3DS vertex shader where the VideoCore IV pipeline has a QPU
 * program. docs/pica-unit.md is the chapter; in short:
 *
 * The program is a SHBIN (the code bytes behind the program header); its
 * first vertex-shader executable (DVLE) runs from its main word.
 * Inputs: the VCD's words for a vertex (column `lane` of the VPM input
 * segment, row in_row + k) go to the input registers in the order the
 * program's SPH maps its generic input components: generic attribute g,
 * component c is vg.c; components no word fills are (0, 0, 0, 1). Float
 * uniforms: the DVLE's constant table first, then the draw's uniform stream
 * over c0, c1, ... (words 4k..4k+3 are ck's x y z w), every value loaded
 * in the context's numeric mode (gs_gpu_config.pica_float: float24, whose
 * loads truncate to 16 fraction bits, or binary32).
 * Integer and bool uniforms come from the constant table alone. Every
 * vertex starts with zero temporaries, outputs, a0, aL and flags.
 *
 * Outputs: the DVLE's output table builds the rasteriser's output map
 * (pica_outmap_build). After END the abi does what the PICA200 does in
 * fixed function for the VideoCore IV's shaded-vertex format: the position
 * (semantics 0-3; x, y, z absent read 0, w 1) divided by W and scaled by
 * the draw's viewport (gs_vertex_io_put), then the varyings in the order
 * of pica_outmap.vary; the colour components are |c| saturated at 1, as
 * the hardware does to vertex colours (Citra/azahar's OutputVertex).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/debug.h"
#include "isa/pica/unit.h"
#include "isa/progcache.h"
#include "isa/uop/uop.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

/* ---- the DVLE's tables -------------------------------------------------------------- */

void pica_dvle_apply_consts(const pica_dvle *dv, pica_state *s) {
  for (size_t k = 0; k < dv->nconsts; k++) {
    const pica_const *c = &dv->consts[k];
    if (c->type == 0) s->b = (uint16_t)((s->b & ~(1u << (c->reg & 15))) | ((c->v[0] & 1u) << (c->reg & 15)));
    else if (c->type == 1) for (int j = 0; j < 4; j++) s->i[c->reg & 3][j] = (uint8_t)c->v[j];
    else if (c->reg < 96)
      for (int j = 0; j < 4; j++) s->c[c->reg][j] = pica_num_load(pica_f24_to_f32(c->v[j]), s->mode);
  }
}

static const char *const type_names[10] = {"position", "normalquat", "color", "texcoord0", "texcoord0w",
                                           "texcoord1", "texcoord2", "type 7", "view", "dummy"};

int pica_outmap_build(const pica_dvle *dv, pica_outmap *m, gs_diag *d) {
  /* first semantic and component count of output types 0-8 (7 has none) */
  static const uint8_t base[9] = {0x00, 0x04, 0x08, 0x0C, 0x10, 0x0E, 0x16, 0, 0x12};
  static const uint8_t count[9] = {4, 4, 4, 2, 1, 2, 2, 0, 3};
  static const uint8_t order[PICA_MAX_VARYINGS] = {0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x10, 0x0E, 0x0F,
                                                   0x16, 0x17, 0x04, 0x05, 0x06, 0x07, 0x12, 0x13, 0x14};
  memset(m, 0, sizeof *m);
  memset(m->src, 0xff, sizeof m->src);
  uint16_t regs = 0;
  for (size_t i = 0; i < dv->noutputs; i++) {
    const pica_output *o = &dv->outputs[i];
    if (o->type == 9) continue; /* dummy: data for a geometry shader, no semantic */
    if (o->type > 8 || o->type == 7)
      return gs_diag_set(d, GS_EINVAL, "output table entry %zu: type %u is not an output semantic (0-6, 8, 9)", i,
                         o->type);
    if (o->reg > 15) return gs_diag_set(d, GS_EINVAL, "output table entry %zu: register o%u (o0-o15)", i, o->reg);
    unsigned k = 0;
    for (unsigned c = 0; c < 4 && k < count[o->type]; c++) { /* components past the type's carry none */
      if (!(o->mask >> c & 1)) continue;
      unsigned sem = base[o->type] + k++;
      if (m->src[sem] != 0xff)
        return gs_diag_set(d, GS_EINVAL, "output table entry %zu (%s in o%u): component %u of %s is already "
                           "o%u.%c's", i, type_names[o->type], o->reg, k - 1, type_names[o->type],
                           m->src[sem] >> 2, "xyzw"[m->src[sem] & 3]);
      m->src[sem] = (uint8_t)(o->reg * 4 + c);
      regs |= (uint16_t)(1u << o->reg);
    }
  }
  unsigned nregs = 0;
  for (unsigned r = 0; r < 16; r++) nregs += regs >> r & 1;
  if (nregs > 7)
    return gs_diag_set(d, GS_EINVAL, "the output table gives semantics to %u registers; the rasteriser takes 7 "
                       "(GPUREG_SH_OUTMAP_O0-O6)", nregs);
  if (m->src[0] == 0xff && m->src[1] == 0xff && m->src[2] == 0xff && m->src[3] == 0xff)
    return gs_diag_set(d, GS_EINVAL, "the output table has no position (.out NAME position)");
  for (unsigned k = 0; k < PICA_MAX_VARYINGS; k++)
    if (m->src[order[k]] != 0xff) m->vary[m->nvary++] = order[k];
  return GS_OK;
}

/* ---- the program cache ------------------------------------------------------------- */

typedef struct entry {
  gs_prog_entry base;   /* address and code (isa/progcache.h) */
  pica_shbin shbin;
  int have_shbin;
  pica_insn *insn;      /* the program's words, decoded */
  pica_program prog;
  pica_fast *fast;      /* prog prepared for pica_run_batch */
  const pica_dvle *dv;  /* the executable that runs: the first vertex shader's */
  unsigned dvle;        /* its index */
  pica_outmap map;
  pica_state init[2];   /* the DVLE's constants, by numeric mode (PICA_NUM_F24, _F32) */
  uint8_t in_reg[64];   /* VPM word k -> input register x 4 + component */
  unsigned nin;
  unsigned sph_vary;    /* the generic output components the SPH declares */
} entry;

static void entry_destroy(gs_prog_entry *b) {
  entry *e = (entry *)b;
  if (!e) return;
  pica_fast_free(e->fast);
  if (e->have_shbin) pica_shbin_free(&e->shbin);
  free(e->insn);
  free(e);
}

/* Reads, decodes and checks the SHBIN (size bytes at code) into e, with
 * SPH sph. */
static int entry_init(entry *e, const uint8_t *code, uint32_t size, const gs_sph *sph, gs_diag *d) {
  int rc = pica_shbin_read(code, size, &e->shbin, d);
  if (rc < 0) return rc;
  e->have_shbin = 1;
  const pica_shbin *s = &e->shbin;
  for (size_t k = 0; k < s->ndvle && !e->dv; k++)
    if (s->dvle[k].type == 0) e->dv = &s->dvle[k], e->dvle = (unsigned)k;
  if (!e->dv)
    return gs_diag_set(d, GS_EINVAL, "the SHBIN has no vertex shader executable (of %zu DVLEs, none of type 0); "
                       "gpusim's PICA200 unit runs vertex shaders", s->ndvle);
  if (!(e->insn = calloc(s->ncode ? s->ncode : 1, sizeof *e->insn)))
    return gs_diag_set(d, GS_ENOMEM, "out of memory for a PICA200 program");
  for (size_t k = 0; k < s->ncode; k++)
    if ((rc = pica_decode(s->code[k], (uint32_t)k, s->opdesc, s->nopdesc, &e->insn[k], d)) < 0) return rc;
  e->prog = (pica_program){e->insn, s->ncode};
  if ((rc = pica_fast_compile(&e->prog, &e->fast, d)) < 0) return rc;
  if ((rc = pica_outmap_build(e->dv, &e->map, d)) < 0) return rc;
  for (int m = 0; m < 2; m++) {
    e->init[m].mode = m ? PICA_NUM_F32 : PICA_NUM_F24;
    pica_dvle_apply_consts(e->dv, &e->init[m]);
  }
  if (sph->sph_type != GS_SPH_TYPE_VTG || sph->shader_type != GS_SPH_VERTEX)
    return gs_diag_set(d, GS_EINVAL, "the program's SPH is not a vertex shader's (ShaderType %u)", sph->shader_type);
  for (unsigned a = GS_SPH_ATTR_GENERIC(0); a < GS_SPH_ATTR_GENERIC(32); a += 4) {
    unsigned g = (a - GS_SPH_ATTR_GENERIC(0)) / 16;
    if (gs_sph_imap(sph, a)) {
      if (g >= 16)
        return gs_diag_set(d, GS_EINVAL, "the SPH maps generic input %u; the PICA200 has input registers v0-v15", g);
      e->in_reg[e->nin++] = (uint8_t)(a - GS_SPH_ATTR_GENERIC(0)) / 4;
    }
    if (gs_sph_omap(sph, a)) e->sph_vary++;
  }
  return GS_OK;
}

static gs_prog_entry *entry_make(const uint8_t *code, uint32_t size, const gs_program_header *h, gs_diag *d) {
  entry *e = calloc(1, sizeof *e);
  gs_sph sph;
  if (!e) {
    gs_diag_set(d, GS_ENOMEM, "out of memory for a PICA200 program");
    return NULL;
  }
  if (gs_sph_decode(h->sph_words, &sph, d) < 0 || entry_init(e, code, size, &sph, d) < 0) {
    entry_destroy(&e->base);
    return NULL;
  }
  return &e->base;
}

static const gs_prog_cache_ops cache_ops = {GS_ISA_PICA, "PICA200", entry_make, entry_destroy};

void *pica_context_new(gs_gpu *g) {
  (void)g;
  return gs_prog_cache_new(&cache_ops);
}

void pica_context_free(void *ctx) { gs_prog_cache_free(ctx); }

void pica_idle(gs_gpu *g) { gs_prog_cache_idle(gs_isa_context(g, GS_ISA_PICA)); }

struct gs_isa_unit {
  int num;
  gs_vpm *vpm;
  gs_diag *diag;
  int trusted;
  const entry *last; /* the program of the last batch */
  pica_state st;     /* the batch's starting state; the vertex the reference runs */
  pica_state carry;  /* gs_gpu_config.pica_state persist: what the last batch left (r, o, a0, aL, cmp) */
  pica_batch batch;  /* the vertices the fast path runs */
};

gs_isa_unit *pica_unit_new(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag) {
  (void)g;
  gs_isa_unit *u = calloc(1, sizeof *u);
  if (!u) return NULL;
  u->num = num, u->vpm = vpm, u->diag = diag;
  return u;
}

void pica_unit_free(gs_isa_unit *u) { free(u); }

void pica_trust_code(gs_isa_unit *u, int on) { u->trusted = on; }

/* The C default environment num.h expects: round to nearest, no flushing. */
gs_fp_env pica_fp_env(const gs_gpu *g, gs_fp_env base) {
  (void)g;
  return gs_fp_env_c_default(base);
}

/* The prepared program at code (errors in the unit's diag name the
 * address). */
static const entry *find(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  gs_prog_cache *c = gs_isa_context(g, GS_ISA_PICA);
  return u->last = (const entry *)gs_prog_cache_find(c, g->mem, code, u->last ? &u->last->base : NULL, u->trusted,
                                                    u->diag);
}

int pica_prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code) { return find(g, u, code) ? GS_OK : u->diag->code; }

/* The float uniforms: the constants, then the stream's words over c0.. (up
 * to its end, or without one as much of c0-c95 as memory holds). */
static void load_uniforms(gs_gpu *g, const gs_stage_program *p, pica_state *s) {
  uint32_t words = p->unif_end > p->uniforms ? (p->unif_end - p->uniforms) / 4 : 0;
  if (!p->unif_end)
    for (words = 96 * 4; words && !gs_mem_ptr(g->mem, p->uniforms, 4 * words); words /= 2) {
    }
  if (words > 96 * 4) words = 96 * 4;
  const uint8_t *w = words ? gs_mem_ptr(g->mem, p->uniforms, 4 * words) : NULL;
  for (uint32_t k = 0; w && k < words; k++) {
    uint32_t x;
    memcpy(&x, w + 4 * k, 4); /* little-endian host, as the rest of gpusim */
    s->c[k / 4][k % 4] = pica_num_load(x, s->mode);
  }
}

/* Colour components reach the rasteriser as |c| saturated at 1 (a NaN as 1,
 * as fmin(|NaN|, 1) in Citra). */
static float colour_fixup(float c) {
  c = fabsf(c);
  return c <= 1.0f ? c : 1.0f;
}

/* The output component `src` (o-register x 4 + component) of lane l. */
static uint32_t out_of(const gs_isa_unit *u, int batch, unsigned l, unsigned src) {
  return batch ? u->batch.o[src >> 2][src & 3][l] : u->st.o[src >> 2][src & 3];
}

/* Lane l's shaded vertex from its outputs (the reference's state or the
 * batch's lane). */
static void put_vertex(const gs_isa_unit *u, const entry *e, const gs_vertex_io *vio, int batch, unsigned l) {
  float pos[4];
  for (unsigned c = 0; c < 4; c++) {
    unsigned src = e->map.src[c];
    pos[c] = src != 0xff ? gs_lane_f(out_of(u, batch, l, src)) : (c == 3 ? 1.0f : 0.0f);
  }
  uint32_t vary[PICA_MAX_VARYINGS];
  for (unsigned k = 0; k < e->map.nvary; k++) {
    unsigned sem = e->map.vary[k];
    uint32_t x = out_of(u, batch, l, e->map.src[sem]);
    vary[k] = sem >= 8 && sem < 12 ? gs_lane_u(colour_fixup(gs_lane_f(x))) : x;
  }
  gs_vertex_io_put(vio, l, pos, gs_lane_u(1.0f), vary, e->map.nvary);
}

/* The state that carries from one batch to the next with pica_state
 * persist: temporaries, outputs, a0, aL and the flags. */
static void carry(pica_state *to, const pica_state *from) {
  memcpy(to->r, from->r, sizeof to->r);
  memcpy(to->o, from->o, sizeof to->o);
  to->a0[0] = from->a0[0], to->a0[1] = from->a0[1], to->al = from->al;
  to->cmp[0] = from->cmp[0], to->cmp[1] = from->cmp[1];
}

int pica_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *vio) {
  const entry *e = find(g, u, vio->prog.code);
  if (!e) return u->diag->code;
  const char *what = vio->stage == GS_STAGE_COORDINATE ? "coordinate shader" : "vertex shader";
  if (vio->stage == GS_STAGE_VERTEX && e->sph_vary != e->map.nvary)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the PICA200 program's output map gives %u varying component(s) "
                       "but its SPH (the shader's varyings) declares %u (docs/pica-unit.md, \"Outputs\")",
                       vio->prog.code, e->map.nvary, e->sph_vary);
  /* every vertex starts from this state: the constants, the uniforms, zero
   * temporaries, outputs, a0, aL and flags (or, with pica_state persist, the
   * last batch's), inputs (0, 0, 0, 1) */
  pica_state *s = &u->st;
  *s = e->init[g->cfg.pica_float == GS_PICA_F32];
  int persist = g->cfg.pica_state == GS_PICA_STATE_PERSIST;
  if (persist) carry(s, &u->carry);
  load_uniforms(g, &vio->prog, s);
  for (unsigned r = 0; r < 16; r++) s->v[r][3] = PICA_ONE;
  const uint32_t *vpm = vio->vpm->words;
  uint64_t budget = g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG;
  unsigned n = vio->count > PICA_LANES ? PICA_LANES : vio->count, in = e->nin < vio->in_rows ? e->nin : vio->in_rows;
  int dbg = g->debug && gs_debug_wants_vertex(g, vio); /* the shader debugger's capture: lanes side by side */
  int batch = g->cfg.interpreter != GS_INTERP_REFERENCE && !dbg, rc = GS_OK;
  gs_fp_env caller = gs_fp_env_get();
  gs_fp_env_set(pica_fp_env(g, caller));
  if (batch) {
    pica_batch *b = &u->batch;
    pica_batch_fill(b, s, n);
    for (unsigned k = 0; k < in; k++)
      for (unsigned l = 0; l < n; l++)
        b->v[e->in_reg[k] >> 2][e->in_reg[k] & 3][l] = pica_num_load(vpm[(vio->in_row + k) * 16 + l], s->mode);
    rc = pica_run_batch(b, e->fast, e->dv->main, budget, u->diag);
    for (unsigned l = 0; l < n && rc >= 0; l++) put_vertex(u, e, vio, 1, l);
    if (persist && rc >= 0) {
      pica_state last;
      pica_batch_get(b, n - 1, &last);
      carry(&u->carry, &last);
    }
  } else {
    pica_state start = *s;
    for (unsigned l = 0; l < n && rc >= 0; l++) {
      *s = start;
      for (unsigned k = 0; k < in; k++)
        s->v[e->in_reg[k] >> 2][e->in_reg[k] & 3] = pica_num_load(vpm[(vio->in_row + k) * 16 + l], s->mode);
      if (dbg) {
        pica_debug_lanes()[l] = *s;
        continue;
      }
      if ((rc = pica_run_ref(s, &e->prog, e->dv->main, budget, u->diag)) < 0) {
        char msg[sizeof u->diag->msg];
        snprintf(msg, sizeof msg, "%s", u->diag->msg);
        const char *what_failed = strncmp(msg, "PICA200 shader: ", 16) ? msg : msg + 16;
        gs_diag_set(u->diag, rc, "PICA200 shader, lane %u: %s", l, what_failed); /* as pica_run_batch names it */
      } else {
        put_vertex(u, e, vio, 0, l);
      }
    }
    if (dbg) rc = pica_debug_run(g, pica_debug_lanes(), n, &e->prog, e->dv->main, budget, u->diag);
    for (unsigned l = 0; dbg && l < n && rc >= 0; l++) {
      *s = pica_debug_lanes()[l];
      put_vertex(u, e, vio, 0, l);
    }
    if (persist && rc >= 0) carry(&u->carry, s); /* the last vertex's */
  }
  gs_fp_env_set(caller);
  if (rc < 0) {
    char msg[sizeof u->diag->msg];
    snprintf(msg, sizeof msg, "%s", u->diag->msg);
    return gs_diag_set(u->diag, rc, "PICA200 unit %d, %s 0x%08x (DVLE %u, main at word 0x%03x), a batch of %u "
                       "vertices (lane k: the batch's vertex k): %s", u->num, what, vio->prog.code, e->dvle,
                       e->dv->main, n, msg);
  }
  return GS_OK;
}

int pica_run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *io, unsigned n, unsigned *ran) {
  (void)g, (void)n;
  *ran = 0;
  return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: a PICA200 program cannot be the fragment shader: the PICA200's "
                     "fragment stage is fixed function (texture combiners), with no programs; pair a PICA200 "
                     "vertex shader with a QPU or SASS fragment shader (the driver turns combiners into QPU code)",
                     io[0].prog.code);
}
