/* unit.c — the Apple AGX (G13) shader unit in the pipeline (the hooks of
 * src/isa/isa.h for isa_agx.c): a program cache per context, the vertex
 * stage here and the fragment stage in frag.c, with the abi
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
#include "isa/agx/table.h"
#include "isa/agx/unit_int.h"
#include "isa/uop/uop.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

/* ---- the program cache --------------------------------------------------------- */


static void entry_destroy(gs_prog_entry *b) {
  agx_entry *e = (agx_entry *)b;
  if (!e) return;
  agx_fast_free(e->fast);
  free(e->insn);
  free(e);
}

/* Decodes the size bytes of code into e->insn: every byte belongs to an
 * instruction of the subset. */
static int decode_all(agx_entry *e, const uint8_t *code, uint32_t size, gs_diag *d) {
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
static int vertex_maps(agx_entry *e, gs_diag *d) {
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
  agx_entry *e = calloc(1, sizeof *e);
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

const agx_entry *agx_find(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  gs_prog_cache *c = gs_isa_context(g, GS_ISA_AGX);
  return u->last = (const agx_entry *)gs_prog_cache_find(c, g->mem, code, u->last ? &u->last->base : NULL, u->trusted,
                                                    u->diag);
}

int agx_prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code) { return agx_find(g, u, code) ? GS_OK : u->diag->code; }

/* Device memory for load/store: the context's GPU memory. */
int agx_unit_mem(void *ctx, uint64_t addr, void *buf, unsigned n, int write) {
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
void agx_load_uniforms(gs_gpu *g, const gs_stage_program *p, agx_state *s, unsigned first) {
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
int agx_run_group(const gs_gpu *g, const agx_entry *e, agx_state *s, gs_diag *d) {
  uint64_t budget = g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG;
  if (g->cfg.interpreter == GS_INTERP_REFERENCE) return agx_run_ref(s, &e->prog, 0, budget, d);
  return agx_run_fast(s, e->fast, 0, budget, d);
}

/* Prefixes the unit's error with the unit, the stage and the program. */
int agx_unit_error(gs_isa_unit *u, int rc, const char *what, gs_addr code, const char *extra) {
  char msg[sizeof u->diag->msg];
  snprintf(msg, sizeof msg, "%s", u->diag->msg);
  return gs_diag_set(u->diag, rc, "AGX unit %d, %s 0x%08x%s: %s", u->num, what, code, extra, msg);
}

int agx_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *vio) {
  const agx_entry *e = agx_find(g, u, vio->prog.code);
  if (!e) return u->diag->code;
  const char *what = vio->stage == GS_STAGE_COORDINATE ? "coordinate shader" : "vertex shader";
  if (e->sph.sph_type != GS_SPH_TYPE_VTG || e->sph.shader_type != GS_SPH_VERTEX)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the program's SPH is not a vertex shader's (ShaderType %u) but it "
                       "runs as the %s", vio->prog.code, e->sph.shader_type, what);
  unsigned n = vio->count > 16 ? 16 : vio->count, nin = e->nin < vio->in_rows ? e->nin : vio->in_rows;
  agx_state *s = &u->st;
  agx_state_init(s, n);
  u->fresh = NULL;
  s->mem = agx_unit_mem, s->mem_ctx = g;
  /* the prolog's uniforms (agx_abi.h): bases and clamps 0, base vertex,
   * base instance and draw id 0; then the stream */
  agx_load_uniforms(g, &vio->prog, s, AGX_VS_UNIFORM_BASE);
  const uint32_t *vpm = vio->vpm->words;
  for (unsigned l = 0; l < n; l++) {
    agx_set_reg32(s, l, 5, vio->index ? vio->index[l] : l);
    agx_set_reg32(s, l, 6, 0);
    for (unsigned a = 0; a < e->nattr; a++)
      if (e->attr_mask[a]) agx_set_reg32(s, l, 8 + 4 * a + 3, gs_lane_u(1.0f));
    for (unsigned k = 0; k < nin; k++) agx_set_reg32(s, l, e->in_reg[k], vpm[(vio->in_row + k) * 16 + l]);
  }
  int rc = agx_run_group(g, e, s, u->diag);
  if (rc < 0) return agx_unit_error(u, rc, what, vio->prog.code, " (lane k: the batch's vertex k)");
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

