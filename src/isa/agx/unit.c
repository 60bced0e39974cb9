/* unit.c — the Apple AGX (G13) shader unit in the pipeline (the hooks of
 * src/isa/isa.h for isa_agx.c): a program cache per context, the vertex
 * stage here and the fragment stage in frag.c, with the abi
 * of Mesa's Asahi driver (src/asahi/lib/agx_abi.h and the "ABI" section of
 * Mesa's docs/drivers/asahi.rst) that puts an AGX program where the
 * VideoCore IV pipeline has a QPU program. docs/agx-unit.md is the
 * chapter; in short:
 *
 * Vertex and coordinate stages. The driver's vertex prolog is real AGX
 * code (prolog.c, built once per program and attribute-record layout and
 * kept with the program) run in front of the main program as one program,
 * as Mesa's agx_fast_link joins them: it fetches attribute a (the SPH's
 * generic input a), component c into r(8 + 4a + c) from the arrays of the
 * stage's attribute records (gs_vertex_io.attrs: the VCD does not run),
 * the input words in the order of the SPH's IMAP as the VCD would have
 * laid them out, the components the SPH does not map of an attribute it
 * reads filled with (0, 0, 0, 1). The hardware's preloads: r5 = the
 * vertex id (the index of the draw's vertex), r6 = the instance id (0:
 * VideoCore IV control lists draw one instance); every other register 0
 * until the prolog writes it (it leaves r2, r3 and r7 as its scratch).
 * Uniform registers in the layout of agx_abi.h for n = 8 attributes
 * (AGX_VS_ATTRIBS: the most a GL shader record gives; slot i = the
 * record's number in its shader record): du(2i) the base address of
 * record i's array, u(2n + i) its clamp (the largest element index whose
 * bytes lie inside the array's allocation in GPU memory; an index past it
 * reads element 0, as the robust prolog does, and is reported as an
 * exception naming the vertex and the attribute), u(3n) the base vertex,
 * u(3n + 1) the base instance and u(3n + 2)l the draw id (0, 0, 0: a
 * VideoCore IV draw has neither, and the vertex id is already the index);
 * then the draw's uniform stream, word k in u(27 + k) (AGX_VS_UNIFORM_BASE),
 * as far as the 256 uniform registers reach. Errors in the main program
 * name its own byte offsets (pc - the prolog's size), those in the prolog
 * say so.
 *
 * The program runs with agx_run_native (agx_run_fast under the debugger,
 * agx_run_ref under gs_gpu_config.interpreter reference) from byte 0 until stop. Every lane
 * must have ended its varyings with st_var ... last or no_var. UVS words 0
 * to 3 are the clip-space position x y z w (those not stored read 0, w 1),
 * words 4.. the varyings, as many as the SPH's OMAP maps generic output
 * components; the abi then divides by W and applies the viewport
 * (gs_vertex_io_put), which AGX GPUs do in fixed function.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>
#include "isa/debug.h"
#include "isa/agx/prolog.h"
#include "isa/agx/table.h"
#include "isa/agx/unit_int.h"
#include "isa/uop/uop.h"
#include "v3d/v3d.h"
#include "v3d/vcd.h"
#include "v3d/vpm.h"

/* ---- the program cache --------------------------------------------------------- */


/* A vertex program linked behind the prolog of one attribute-record
 * layout: the bytes of both, decoded and compiled as one program. */
typedef struct agx_linked {
  struct agx_linked *next;
  agx_prolog_key key;
  uint32_t reads;       /* the slots whose arrays the prolog loads from */
  uint32_t prolog_size; /* bytes of prolog before the main program */
  gs_isa_binary code;
  agx_instr *insn;
  agx_program prog;
  agx_fast *fast;
} agx_linked;

/* A vertex program's linked variants; workers share them. */
struct agx_linked_set {
  mtx_t lock;
  agx_linked *head;
};

static void linked_free(agx_linked *l) {
  agx_fast_free(l->fast);
  free(l->insn);
  gs_isa_binary_free(&l->code);
  free(l);
}

static void entry_destroy(gs_prog_entry *b) {
  agx_entry *e = (agx_entry *)b;
  if (!e) return;
  if (e->linked) {
    for (agx_linked *l = e->linked->head, *next; l; l = next) next = l->next, linked_free(l);
    mtx_destroy(&e->linked->lock);
    free(e->linked);
  }
  agx_fast_free(e->fast);
  free(e->insn);
  free(e);
}

/* Decodes the size bytes of code into *insn and *prog: every byte belongs
 * to an instruction of the subset. */
static int decode_program(const uint8_t *code, uint32_t size, agx_instr **insn, agx_program *prog, gs_diag *d) {
  size_t cap = size / 2 + 1, n = 0;
  if (!(*insn = calloc(cap, sizeof **insn))) return gs_diag_set(d, GS_ENOMEM, "out of memory for an AGX program");
  for (uint32_t off = 0; off < size; n++) {
    char why[160];
    unsigned len = 0;
    if (agx_decode(code + off, size - off, &(*insn)[n], &len, why, sizeof why) <= 0)
      return gs_diag_set(d, GS_EINVAL, "the AGX program's instruction at byte 0x%04x does not decode: %s", off, why);
    off += (*insn)[n].len;
  }
  *prog = (agx_program){*insn, n};
  return GS_OK;
}

/* Decodes the program (its SPH in e->sph) into e->insn and compiles it;
 * e->halves, reads_cf, reads_pixel, pends, frag_outs, zs, rt_past0. */
static int decode_all(agx_entry *e, const uint8_t *code, uint32_t size, gs_diag *d) {
  if (decode_program(code, size, &e->insn, &e->prog, d) < 0) return d->code;
  size_t n = e->prog.n;
  e->halves = 2; /* r0: the nesting counter if/else/while/pop_exec use */
  for (size_t k = 0; k < n; k++)
    for (int j = -1; j < 4; j++) {
      const agx_opnd *o = j < 0 ? &e->insn[k].dst : &e->insn[k].src[j];
      unsigned op = e->insn[k].op, runs = op == AGX_LOAD || op == AGX_STORE || op == AGX_ST_TILE ||
                                           op == AGX_LD_TILE || op == AGX_SMPF; /* masked runs: up to 4 */
      unsigned count = o->count ? o->count : 1, per = o->bits == 64 ? 4 : o->bits == 32 ? 2 : 1;
      unsigned end = o->index + (runs && count < 4 ? 4 : count) * per;
      if (o->kind == AGX_K_REG && end > e->halves) e->halves = end;
      if (o->kind == AGX_K_CF) e->reads_cf = 1;
      if (o->kind == AGX_K_SR && (o->index == 80 || o->index == 81)) e->reads_pixel = 1;
    }
  for (size_t k = 0; k < n; k++) { /* the coefficient registers read, when the instruction names them */
    const agx_instr *in = &e->insn[k];
    if ((in->op != AGX_ITER && in->op != AGX_ITERPROJ && in->op != AGX_LDCF) || in->src[0].kind != AGX_K_CF) continue;
    unsigned end = in->src[0].index + (in->op == AGX_LDCF ? 1u : in->dst.count ? in->dst.count : 1u);
    if (end > e->cf_end) e->cf_end = end;
  }
  for (size_t k = 0; k < n; k++) {
    unsigned op = e->insn[k].op;
    if (op == AGX_LOAD || op == AGX_STORE || op == AGX_SMPF) e->pends = 1;
    if (op == AGX_SAMPLE_MASK || op == AGX_ZS_EMIT) e->frag_outs = 1;
    if (op == AGX_ZS_EMIT) /* (Mesa emits at most one zs_emit a shader: the program says what each lane's wrote) */
      e->zs |= (e->insn[k].zs_depth ? AGX_ZS_DEPTH : 0u) | (e->insn[k].zs_stencil ? AGX_ZS_STENCIL : 0u);
  }
  for (unsigned i = 7; i >= 1; i--)
    for (unsigned c = 0; c < 4; c++)
      if (e->sph.omap_target[i][c]) e->rt_past0 = i;
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
      e->attr_mask[g] |= (uint8_t)(1u << c);
    }
  e->nin = agx_prolog_words(e->attr_mask, e->in_reg);
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
  if (ok && e->sph.sph_type == GS_SPH_TYPE_VTG) {
    if (!(e->linked = calloc(1, sizeof *e->linked)) || mtx_init(&e->linked->lock, mtx_plain) != thrd_success) {
      free(e->linked), e->linked = NULL;
      ok = 0, gs_diag_set(d, GS_ENOMEM, "out of memory for an AGX program");
    }
  }
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

void agx_unit_free(gs_isa_unit *u) {
  if (u) agx_frame_free(u->frame);
  free(u);
}

void agx_trust_code(gs_isa_unit *u, int on) {
  u->trusted = on;
  u->unif_valid = 0;
}

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

/* Runs prog (compiled as f) on the group in s through the context's
 * interpreter: native code once the program is hot, except under the
 * debugger (and so for provenance), which has the interpreter. */
static int run_program(const gs_gpu *g, const agx_program *prog, const agx_fast *f, agx_state *s, gs_diag *d) {
  uint64_t budget = g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG;
  if (g->cfg.interpreter == GS_INTERP_REFERENCE) return agx_run_ref(s, prog, 0, budget, d);
  return g->debug ? agx_run_fast(s, f, 0, budget, d) : agx_run_native(s, f, 0, budget, d);
}

/* Runs the group in s through the context's interpreter. */
int agx_run_group(const gs_gpu *g, const agx_entry *e, agx_state *s, gs_diag *d) {
  return run_program(g, &e->prog, e->fast, s, d);
}

int agx_run_group_rows(const gs_gpu *g, const agx_entry *e, agx_state *s, gs_diag *d, uint32_t want, agx_rows rows) {
  int rc = agx_run_group(g, e, s, d);
  if (rc == GS_OK) agx_rows_of(s, want, rows);
  return rc;
}

/* Prefixes the unit's error with the unit, the stage and the program. */
int agx_unit_error(gs_isa_unit *u, int rc, const char *what, gs_addr code, const char *extra) {
  char msg[sizeof u->diag->msg];
  snprintf(msg, sizeof msg, "%s", u->diag->msg);
  return gs_diag_set(u->diag, rc, "AGX unit %d, %s 0x%08x%s: %s", u->num, what, code, extra, msg);
}

/* ---- the vertex stage ---------------------------------------------------------- */

/* 4, 2 or 1: the largest dividing both a and stride. */
static uint8_t alignment(gs_addr a, uint32_t stride) {
  uint32_t x = a | stride;
  return x % 4 == 0 ? 4 : x % 2 == 0 ? 2 : 1;
}

/* The prolog's key for the stage's attribute records. */
static int prolog_key(gs_isa_unit *u, const gs_vertex_io *vio, agx_prolog_key *k) {
  memset(k, 0, sizeof *k);
  if (vio->nattrs > AGX_VS_ATTRIBS)
    return gs_diag_set(u->diag, GS_EINVAL, "%u attribute records: gpusim's AGX vertex ABI has %u", vio->nattrs,
                       AGX_VS_ATTRIBS);
  k->nattrs = vio->nattrs;
  for (unsigned r = 0; r < vio->nattrs; r++) {
    const vcd_attr *a = &vio->attrs[r];
    if (a->index >= AGX_VS_ATTRIBS)
      return gs_diag_set(u->diag, GS_EINVAL, "attribute %u: gpusim's AGX vertex ABI has attributes 0-%u", a->index,
                         AGX_VS_ATTRIBS - 1);
    k->attr[r] =
        (agx_prolog_attr){a->size, a->stride, a->vpm_offset, (uint8_t)a->index, alignment(a->address, a->stride)};
  }
  return GS_OK;
}

/* Builds the prolog for k and links it in front of e's code. */
static agx_linked *link_prolog(const agx_entry *e, const agx_prolog_key *k, gs_diag *d) {
  agx_linked *l = calloc(1, sizeof *l);
  if (!l) {
    gs_diag_set(d, GS_ENOMEM, "out of memory for an AGX vertex prolog");
    return NULL;
  }
  l->key = *k;
  agx_prolog_inputs in = {e->nin, e->in_reg, e->attr_mask};
  int rc = agx_prolog_build(k, &in, AGX_VS_ATTRIBS, &l->code, &l->reads, d);
  uint8_t *all = rc < 0 ? NULL : realloc(l->code.bytes, l->code.size + e->base.size + 1); /* + 1: never 0 */
  if (rc >= 0 && !all) rc = gs_diag_set(d, GS_ENOMEM, "out of memory for an AGX vertex prolog");
  if (rc >= 0) {
    l->code.bytes = all;
    l->prolog_size = (uint32_t)l->code.size;
    memcpy(all + l->code.size, e->base.bytes, e->base.size);
    l->code.size += e->base.size;
    rc = decode_program(l->code.bytes, (uint32_t)l->code.size, &l->insn, &l->prog, d);
  }
  if (rc >= 0) rc = agx_fast_compile(&l->prog, &l->fast, d);
  if (rc < 0) {
    linked_free(l);
    return NULL;
  }
  return l;
}

/* e's program behind the prolog of k: found among those linked before, or
 * linked now. */
static const agx_linked *linked_program(const agx_entry *e, const agx_prolog_key *k, gs_diag *d) {
  mtx_lock(&e->linked->lock);
  agx_linked *l = e->linked->head;
  while (l && memcmp(&l->key, k, sizeof *k)) l = l->next;
  if (!l && (l = link_prolog(e, k, d))) l->next = e->linked->head, e->linked->head = l;
  mtx_unlock(&e->linked->lock);
  return l;
}

/* Bytes of GPU memory from a to the end of its allocation (0 outside). A
 * worker remembers the last answer for each attribute slot and checks it
 * with two probes (the range fits, one byte more does not), which is exact
 * whatever was allocated or released since. */
static uint32_t extent(const gs_mem *m, gs_addr a, unsigned slot) {
  static _Thread_local struct {
    const gs_mem *m;
    gs_addr a;
    uint32_t len;
  } last[AGX_VS_ATTRIBS];
  if (last[slot].m == m && last[slot].a == a && last[slot].len && gs_mem_ptr(m, a, last[slot].len) &&
      !gs_mem_ptr(m, a, last[slot].len + 1))
    return last[slot].len;
  if (!gs_mem_ptr(m, a, 1)) return 0;
  uint64_t lo = 1, hi = (1ull << 32) - a + 1; /* lo inside, hi not */
  while (hi - lo > 1) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (gs_mem_ptr(m, a, (uint32_t)mid)) lo = mid;
    else hi = mid;
  }
  last[slot].m = m, last[slot].a = a, last[slot].len = (uint32_t)lo;
  return (uint32_t)lo;
}

/* An interpreter's message "AGX shader: pc 0x...: ..." about the linked
 * program made about the main program's bytes: pc - the prolog's size, or
 * the prolog's own pc; a jump target likewise. */
static void main_pcs(gs_diag *d, uint32_t prolog) {
  static const char head[] = "AGX shader: pc 0x", jump[] = "jump to 0x";
  if (strncmp(d->msg, head, sizeof head - 1)) return;
  char *end, out[sizeof d->msg], at[64];
  unsigned long pc = strtoul(d->msg + sizeof head - 1, &end, 16);
  if (pc >= prolog) snprintf(at, sizeof at, "pc 0x%04lx", pc - prolog);
  else snprintf(at, sizeof at, "in the vertex prolog, its pc 0x%04lx", pc);
  const char *j = strstr(end, jump);
  if (j) {
    char *after;
    unsigned long to = strtoul(j + sizeof jump - 1, &after, 16);
    char t[64];
    if (to >= prolog) snprintf(t, sizeof t, "%s%04lx", jump, to - prolog);
    else snprintf(t, sizeof t, "jump into the vertex prolog (its 0x%04lx)", to);
    snprintf(out, sizeof out, "AGX shader: %s%.*s%s%.*s", at, (int)(j - end), end, t, 400, after);
  } else {
    snprintf(out, sizeof out, "AGX shader: %s%.*s", at, 900, end);
  }
  memcpy(d->msg, out, sizeof out);
}

/* The prolog's uniforms (agx_abi.h, n = AGX_VS_ATTRIBS): each record's base
 * address and clamp; base vertex, base instance, draw id 0. An index past
 * a clamp is reported; an array that holds not even element 0 is an
 * error. */
static int prolog_uniforms(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *vio, const agx_linked *l, agx_state *s,
                           const char *what, unsigned lanes) {
  enum { N = AGX_VS_ATTRIBS };
  for (unsigned r = 0; r < vio->nattrs; r++) {
    const vcd_attr *a = &vio->attrs[r];
    agx_set_unif32(s, agx_prolog_base_unif(a->index), a->address);
    agx_set_unif32(s, agx_prolog_base_unif(a->index) + 1, 0);
    if (!(l->reads >> a->index & 1)) continue;
    uint32_t avail = extent(g->mem, a->address, a->index);
    int64_t clamp = agx_prolog_clamp(avail, a->size, a->stride);
    if (clamp < 0)
      return gs_diag_set(u->diag, GS_EFAULT, "AGX unit %d, %s 0x%08x: attribute %u: its array at 0x%08x holds "
                         "no whole element (%u bytes, %u bytes of allocated GPU memory from there): nothing for the "
                         "vertex prolog to read", u->num, what, vio->prog.code, a->index, a->address, a->size, avail);
    agx_set_unif32(s, agx_prolog_clamp_unif(N, a->index), (uint32_t)clamp);
    for (unsigned v = 0; v < lanes && a->stride; v++) {
      uint32_t id = vio->index ? vio->index[v] : v;
      if (id > clamp)
        gs_isa_report_exception(vio->report, "AGX unit %d, %s 0x%08x, lane %u: vertex index %u is past the end of "
                                "attribute %u's array (0x%08x, %u bytes every %u, %u bytes allocated: elements "
                                "0-%u): the robust vertex prolog read element 0", u->num, what, vio->prog.code, v,
                                id, a->index, a->address, a->size, a->stride, avail, (unsigned)clamp);
    }
  }
  agx_set_unif32(s, 3 * N, 0);     /* base vertex */
  agx_set_unif32(s, 3 * N + 1, 0); /* base instance */
  agx_set_unif32(s, 3 * N + 2, 0); /* draw id (the low half) */
  return GS_OK;
}

int agx_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *vio) {
  const agx_entry *e = agx_find(g, u, vio->prog.code);
  if (!e) return u->diag->code;
  const char *what = vio->stage == GS_STAGE_COORDINATE ? "coordinate shader" : "vertex shader";
  if (e->sph.sph_type != GS_SPH_TYPE_VTG || e->sph.shader_type != GS_SPH_VERTEX)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the program's SPH is not a vertex shader's (ShaderType %u) but it "
                       "runs as the %s", vio->prog.code, e->sph.shader_type, what);
  unsigned n = vio->count > 16 ? 16 : vio->count;
  agx_prolog_key key;
  const agx_linked *l = NULL;
  if (prolog_key(u, vio, &key) < 0 || !(l = linked_program(e, &key, u->diag)))
    return agx_unit_error(u, u->diag->code, what, vio->prog.code, " (its vertex prolog)");
  agx_state *s = &u->st;
  agx_state_init(s, n);
  u->fresh = NULL, u->unif_valid = 0;
  s->mem = agx_unit_mem, s->mem_ctx = g;
  int rc = prolog_uniforms(g, u, vio, l, s, what, n);
  if (rc < 0) return rc;
  agx_load_uniforms(g, &vio->prog, s, AGX_VS_UNIFORM_BASE);
  for (unsigned k = 0; k < n; k++) {
    agx_set_reg32(s, k, 5, vio->index ? vio->index[k] : k); /* the hardware's preloads */
    agx_set_reg32(s, k, 6, 0);
  }
  rc = g->debug && gs_debug_wants_vertex(g, vio) ? agx_debug_run(g, s, &l->prog, l->prolog_size, u->diag) /* the shader debugger */
                                                 : run_program(g, &l->prog, l->fast, s, u->diag);
  if (rc < 0) {
    main_pcs(u->diag, l->prolog_size);
    return agx_unit_error(u, rc, what, vio->prog.code, " (lane k: the batch's vertex k)");
  }
  for (unsigned k = 0; k < n; k++)
    if (!(s->var_done >> k & 1))
      return gs_diag_set(u->diag, GS_EINVAL, "AGX unit %d, %s 0x%08x, lane %u: the stop at pc 0x%04x came "
                         "without a final st_var (its last bit) or no_var, which every vertex shader ends its "
                         "varyings with", u->num, what, vio->prog.code, k,
                         s->pc - 2 - l->prolog_size); /* stop: 2 bytes, pcs of the main program */
  for (unsigned k = 0; k < n; k++) {
    float pos[4];
    for (unsigned c = 0; c < 4; c++)
      pos[c] = s->uvs_written[k] >> c & 1 ? gs_lane_f(s->uvs[k][c]) : (c == 3 ? 1.0f : 0.0f);
    gs_vertex_io_put(vio, k, pos, gs_lane_u(1.0f), &s->uvs[k][4], e->nvary);
  }
  return GS_OK;
}
