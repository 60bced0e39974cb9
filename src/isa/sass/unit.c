/* unit.c — the SASS shader unit in the pipeline (the hooks of src/isa/isa.h
 * for isa_sass.c): a program cache per context, and the abi that puts a
 * Maxwell program where the VideoCore IV pipeline has a QPU program.
 *
 * Vertex and coordinate stages: the VCD's words for a vertex (column `lane`
 * of the VPM input segment, row in_row + k) are the program's inputs, the
 * k-th word going to the k-th component its SPH's IMAP maps (in address
 * order). The program's constant buffer 0 is the draw's uniform stream.
 * After EXIT the abi does what the fixed function after a Maxwell vertex
 * shader does, for the VideoCore IV's shaded-vertex format (RG §7): the
 * position a[0x70..0x7C] (clip space; (0, 0, 0, 1) where not written) is
 * divided by W and scaled by the Clipper XY Scaling and Z Scale/Offset
 * state (gs_vertex_io.viewport): Xs, Ys in 12.4 (rounded to nearest, in
 * 1/16 pixel, relative to the viewport centre), Zs, 1/Wc; a coordinate
 * shader writes Xc Yc Zc Wc first; point size (a[0x6C], 1.0 unwritten) if
 * the record asks; then, for a vertex shader, the varyings: the generic
 * components its OMAP maps, in address order (the rank the pipeline's
 * SPH linkage reads them by).
 *
 * Fragment stage: IPA reads the batch's planes (attr.c); after EXIT the
 * registers the SPH names (sass_ps_out) give render target 0's colour,
 * converted to the tile buffer's format (8 bits per channel: clamp to
 * [0, 1], × 255, rounded to nearest; 64-bit targets: binary16 per
 * channel), the depth (OmapDepth: clamped to [0, 1] × (2^24 - 1), rounded;
 * else the rasterised Z) and the sample mask (OmapSampleMask). The unit
 * tests depth (z_write) for every batch, then writes colour; lanes KIL
 * discarded write nothing. docs/sass.md, "In the pipeline".
 */
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "core/clones.h"
#include "core/half.h"
#include "isa/debug.h"
#include "isa/sass/exec.h"
#include "isa/sass/num.h"
#include "isa/sass/solo.h"
#include "isa/sass/table.h"
#include "isa/sass/unit.h"
#include "isa/progcache.h"
#include "isa/unorm8.h"
#include "v3d/tmu.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

/* ---- the program cache --------------------------------------------------------- */

typedef struct entry {
  gs_prog_entry base; /* address and code (isa/progcache.h) */
  sass_program prog;
  sass_fast *fast;    /* prog prepared for the fast interpreter */
  unsigned nregs;     /* the registers it names (sass_program_nregs) */
  sass_ipa_map map;   /* a pixel program's inputs and outputs, from its SPH */
  sass_ps_out out;
  sass_attr_ctx attr; /* a vertex program's attribute maps, from its SPH */
  uint16_t in_addr[128], out_addr[128]; /* the generic components its IMAP / OMAP map, in address order */
  unsigned nin, nout;
  int pairs;          /* a pixel program whose lanes cannot tell two batches in one warp from one (pairs_ok) */
  int invariant;      /* a pixel program every lane of a call's batches runs alike (invariant) */
  int quiet;          /* a pixel program that reports no exception in a pair of batches (quiet) */
  int colour;         /* a pixel program's render target 0 has registers */
  uint8_t chan[4];    /* and its R, G, B, A: a register, or SASS_PS_NONE (0, 0, 0, 1.0) */
  uint8_t zero[SASS_RZ]; /* a pixel program's registers a lane may read before writing them, its outputs */
  unsigned nzero;        /* included (sass_program_first_reads): what the fast path clears */
} entry;

static void entry_destroy(gs_prog_entry *b) {
  entry *e = (entry *)b;
  if (!e) return;
  sass_fast_free(e->fast);
  sass_program_free(&e->prog);
  free(e);
}

/* Whether pixel program p may run two 16-pixel batches in one warp (lanes
 * 16-31 the second's, as a Maxwell warp shades two 4 x 4 blocks) with
 * every lane's result what it is in a warp of its own: no lane reads its
 * lane number or another system register (S2R, CS2R), no local memory
 * (whose bytes would carry over from the lanes' last batch), no KIL or
 * LDL/STL (an exception for a broken gate is counted once a warp). Every
 * other instruction's lanes are independent (no shuffles or votes). */
static int pairs_ok(const sass_program *p) {
  if (p->sph.shader_local_memory_low_size) return 0;
  for (size_t i = 0; i < p->n; i++)
    switch (p->insn[i].op) {
      case SASS_OP_S2R: case SASS_OP_CS2R: case SASS_OP_KIL: case SASS_OP_LDL: case SASS_OP_STL: return 0;
      default: break;
    }
  return 1;
}

/* Whether every lane of pixel program p, in every batch of a call, computes
 * the same as any other: it reads nothing a lane or a batch has of its own
 * (what pairs_ok excludes: S2R, CS2R, local memory, KIL, whose lanes end
 * apart; and IPA, texture, attribute I/O), so each lane starts with its
 * registers 0, predicates and CC clear and the call's constants, and runs
 * the same instructions (no guard or branch can tell lanes apart): the same
 * outputs, steps and errors in every batch that has a lane. */
static int invariant(const sass_program *p) {
  if (!pairs_ok(p)) return 0;
  for (size_t i = 0; i < p->n; i++)
    switch (p->insn[i].op) {
      case SASS_OP_IPA: case SASS_OP_TEX: case SASS_OP_TEXS: case SASS_OP_TLDS: case SASS_OP_TLD: case SASS_OP_ALD:
      case SASS_OP_AST: case SASS_OP_AL2P: case SASS_OP_OUT: case SASS_OP_ISBERD:
        return 0;
      default: break;
    }
  return 1;
}

/* Whether pixel program p, which pairs_ok allows two batches a warp, never
 * reports an exception (gs_isa_report): KIL, LDL and STL, which may, do
 * not pair; IPA reports a generic component its SPH does not map (sass_ipa,
 * attr.c), which one at a fixed address (no .IDX) the map m maps never
 * reads. A pair that fails must leave the report as it was; a quiet
 * program's cannot have changed it. */
static int quiet(const sass_program *p, const sass_ipa_map *m) {
  for (size_t i = 0; i < p->n; i++) {
    const sass_insn *in = &p->insn[i];
    if (in->op != SASS_OP_IPA) continue;
    unsigned addr = sass_mod(in, SASS_M_IPA_ADDR);
    if (sass_mod(in, SASS_M_IPA_IDX) || sass_ipa_unmapped(m, addr)) return 0;
  }
  return 1;
}

/* Decodes the size bytes at code with the SPH of h, and what its stage
 * needs from the SPH. */
static gs_prog_entry *entry_make(const uint8_t *code, uint32_t size, const gs_program_header *h, gs_diag *d) {
  gs_sph sph;
  entry *e = calloc(1, sizeof *e);
  int ok = e != NULL;
  if (!ok) gs_diag_set(d, GS_ENOMEM, "out of memory for a SASS program");
  if (ok && gs_sph_decode(h->sph_words, &sph, d) < 0) ok = 0;
  if (ok && sass_program_init(&e->prog, code, size, &sph, d) < 0) ok = 0;
  if (ok) e->nregs = sass_program_nregs(&e->prog);
  if (ok && sph.sph_type == GS_SPH_TYPE_PS &&
      (sass_ipa_map_init(&e->map, &sph, d) < 0 || sass_ps_out_init(&e->out, &sph, 0, d) < 0))
    ok = 0;
  if (ok && sph.sph_type == GS_SPH_TYPE_VTG && sph.shader_type == GS_SPH_VERTEX) {
    if (sass_attr_ctx_init(&e->attr, GS_SPH_VERTEX, &sph, NULL, NULL, d) < 0) ok = 0;
    for (unsigned a = GS_SPH_ATTR_GENERIC(0); a < GS_SPH_ATTR_GENERIC(32); a += 4) {
      if (gs_sph_imap(&sph, a)) e->in_addr[e->nin++] = (uint16_t)a;
      if (gs_sph_omap(&sph, a)) e->out_addr[e->nout++] = (uint16_t)a;
    }
  }
  if (ok && !(e->fast = sass_prepare_fast(&e->prog, d))) ok = 0;
  if (ok && sph.sph_type == GS_SPH_TYPE_PS) {
    e->pairs = pairs_ok(&e->prog), e->quiet = quiet(&e->prog, &e->map), e->invariant = invariant(&e->prog);
    e->colour = e->out.target_reg[0] != SASS_PS_NONE;
    for (unsigned k = 0; k < 4; k++)
      e->chan[k] = (uint8_t)(e->colour && (e->out.target_mask[0] >> k & 1) ? e->out.target_reg[0] + k : SASS_PS_NONE);
    if (e->out.nregs > e->nregs) e->nregs = e->out.nregs; /* outputs the code does not name read 0 */
    uint32_t after[8] = {0};
    const uint8_t outs[6] = {e->chan[0], e->chan[1], e->chan[2], e->chan[3], e->out.sample_mask_reg, e->out.depth_reg};
    for (unsigned k = 0; k < 6; k++)
      if (outs[k] != SASS_PS_NONE) after[outs[k] / 32] |= 1u << (outs[k] % 32);
    e->nzero = sass_program_first_reads(&e->prog, e->nregs, after, e->zero);
  }
  if (!ok) {
    entry_destroy(e ? &e->base : NULL);
    return NULL;
  }
  return &e->base;
}

static const gs_prog_cache_ops cache_ops = {GS_ISA_SASS, "SASS", entry_make, entry_destroy};

void *sass_context_new(gs_gpu *g) {
  (void)g;
  return gs_prog_cache_new(&cache_ops);
}

void sass_context_free(void *ctx) { gs_prog_cache_free(ctx); }

void sass_idle(gs_gpu *g) { gs_prog_cache_idle(gs_isa_context(g, GS_ISA_SASS)); }

struct gs_isa_unit {
  int num;
  gs_vpm *vpm;
  gs_diag *diag;
  int trusted;
  const entry *last; /* the program of the last batch */
  sass_warp warp;
  sass_attr_buf in[SASS_LANES], out[SASS_LANES];
  sass_attr_io lane_attr[SASS_LANES];
  uint8_t *local;
  uint32_t local_cap;
  /* constant buffer 0 of the last fragment run while the code is trusted
   * (within one primitive, when memory cannot change): its stream, its
   * bytes and its size (bind_uniforms) */
  int cb_valid;
  gs_stage_program cb_prog;
  const uint8_t *cb;
  uint32_t cb_size;
};

gs_isa_unit *sass_unit_new(gs_gpu *g, int num, struct gs_vpm *vpm, gs_diag *diag) {
  (void)g;
  size_t size = (sizeof(gs_isa_unit) + 63) / 64 * 64;
  gs_isa_unit *u = aligned_alloc(64, size); /* the warp's registers, for native code */
  if (!u) return NULL;
  memset(u, 0, size);
  u->num = num, u->vpm = vpm, u->diag = diag;
  return u;
}

void sass_unit_free(gs_isa_unit *u) {
  if (!u) return;
  free(u->local);
  free(u);
}

void sass_trust_code(gs_isa_unit *u, int on) {
  u->trusted = on;
  u->cb_valid = 0;
}

gs_fp_env sass_fp_env(const gs_gpu *g, gs_fp_env base) {
  (void)g;
  return sass_num_env(base);
}

/* The prepared program at code: from the unit's last, the cache, or decoded
 * now. Errors (in the unit's diag) name the address. */
static const entry *find(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  gs_prog_cache *c = gs_isa_context(g, GS_ISA_SASS);
  return u->last = (const entry *)gs_prog_cache_find(c, g->mem, code, u->last ? &u->last->base : NULL, u->trusted,
                                                    u->diag);
}

const sass_program *sass_unit_program(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  const entry *e = find(g, u, code);
  return e ? &e->prog : NULL;
}

/* Runs the warp through the context's interpreter (gs_gpu_config.interpreter). */
static int run_warp(const gs_gpu *g, gs_isa_unit *u, const entry *e, const sass_io *io, uint64_t budget,
                    const char *what, const gs_vertex_io *vio) {
  if (g->debug && (vio ? gs_debug_wants_vertex(g, vio) : gs_debug_wants_fragment(g, io->frag[0], 1)))
    return sass_debug_run(g, &u->warp, &e->prog, io, budget, what, u->diag); /* the shader debugger's capture */
  if (g->cfg.interpreter == GS_INTERP_REFERENCE) return sass_run_ref(&u->warp, &e->prog, io, budget, what, u->diag);
  if (g->debug) return sass_run_fast_interp(&u->warp, e->fast, io, budget, what, u->diag); /* never native */
  return sass_run_fast(&u->warp, e->fast, io, budget, what, u->diag);
}

int sass_prepare(gs_gpu *g, gs_isa_unit *u, gs_addr code) { return find(g, u, code) ? GS_OK : u->diag->code; }

/* Constant buffer 0: the uniform stream from p->uniforms to its end (or,
 * without one, up to 64 KiB of what is in memory). */
static void bind_uniforms(gs_gpu *g, const gs_stage_program *p, sass_io *io) {
  uint32_t size = p->unif_end > p->uniforms ? p->unif_end - p->uniforms : 0;
  if (!p->unif_end)
    for (size = 0x10000; size >= 4 && !gs_mem_ptr(g->mem, p->uniforms, size); size /= 2) {
    }
  io->cb[0] = size ? gs_mem_ptr(g->mem, p->uniforms, size) : NULL;
  io->cb_size[0] = io->cb[0] ? size : 0;
}

/* Local memory for 32 lanes of sph's size. */
static int local_of(gs_isa_unit *u, const gs_sph *sph) {
  uint32_t size = sph->shader_local_memory_low_size;
  if (size > (1u << 20))
    return gs_diag_set(u->diag, GS_EINVAL, "the SPH asks for %u bytes of local memory per thread; gpusim gives at most "
                       "1 MiB", size);
  if (size > u->local_cap) {
    uint8_t *p = realloc(u->local, (size_t)size * SASS_LANES);
    if (!p) return gs_diag_set(u->diag, GS_ENOMEM, "out of memory for local memory");
    u->local = p, u->local_cap = size;
  }
  if (size) memset(u->local, 0, (size_t)size * SASS_LANES);
  return GS_OK;
}

int sass_run_vertex(gs_gpu *g, gs_isa_unit *u, const gs_vertex_io *vio) {
  const entry *e = find(g, u, vio->prog.code);
  if (!e) return u->diag->code;
  const sass_program *p = &e->prog;
  const char *what = vio->stage == GS_STAGE_COORDINATE ? "coordinate shader" : "vertex shader";
  if (p->sph.sph_type != GS_SPH_TYPE_VTG || p->sph.shader_type != GS_SPH_VERTEX)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the program's SPH is not a vertex shader's (ShaderType %u) but it "
                       "runs as the %s", vio->prog.code, p->sph.shader_type, what);
  int rc = local_of(u, &p->sph);
  if (rc < 0) return rc;
  const uint32_t *vpm = vio->vpm->words;
  unsigned n = vio->count > SASS_LANES ? SASS_LANES : vio->count;
  for (unsigned l = 0; l < n; l++) {
    sass_attr_buf_clear(&u->in[l], 0);
    sass_attr_buf_clear(&u->out[l], 0);
    for (unsigned k = 0; k < e->nin && k < vio->in_rows; k++)
      sass_attr_buf_store(&u->in[l], e->in_addr[k], vpm[(vio->in_row + k) * 16 + l]);
    u->lane_attr[l] = (sass_attr_io){&u->in[l], 1, &u->out[l], 1, NULL, NULL};
  }
  sass_io io;
  memset(&io, 0, sizeof io);
  io.stage = vio->stage;
  io.gates = vio->gates;
  io.report = vio->report;
  io.attr = &e->attr;
  io.lane_attr = u->lane_attr;
  bind_uniforms(g, &vio->prog, &io);
  gs_fp_env caller = gs_fp_env_get();
  gs_fp_env_set(sass_num_env(caller));
  sass_warp_start(&u->warp, e->nregs, n == 32 ? 0xffffffffu : (1u << n) - 1, 8, u->local, u->local_cap);
  rc = run_warp(g, u, e, &io, g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG, what, vio);
  if (rc < 0) {
    gs_fp_env_set(caller);
    return rc;
  }
  /* the shaded vertices */
  for (unsigned l = 0; l < n; l++) {
    const sass_attr_buf *o = &u->out[l];
    float pos[4];
    for (unsigned c = 0; c < 4; c++) {
      unsigned a = GS_SPH_ATTR_POSITION + 4 * c;
      pos[c] = gs_sph_attr_has(&o->written, a) ? gs_lane_f(o->v[a / 4]) : (c == 3 ? 1.0f : 0.0f);
    }
    uint32_t vary[128];
    for (unsigned k = 0; k < e->nout; k++) vary[k] = o->v[e->out_addr[k] / 4];
    gs_vertex_io_put(vio, l, pos,
                     gs_sph_attr_has(&o->written, GS_SPH_ATTR_POINT_SIZE) ? o->v[GS_SPH_ATTR_POINT_SIZE / 4]
                                                                           : gs_lane_u(1.0f),
                     vary, e->nout);
  }
  gs_fp_env_set(caller);
  return GS_OK;
}

/* ---- textures ---------------------------------------------------------------------
 * A texture handle index names a word of constant buffer 0, the draw's
 * uniform stream: there the VideoCore IV TMU config words of the texture
 * start (parameters 0 and 1, RG Tables 15-16; a scene's uniform list puts
 * them where it lists the texture). The texels, RGBA8888 from the TMU's
 * sampler, come back as four floats (byte / 255). TEXS (2D, 2D.LZ: S in Ra,
 * T in Rb) and TEX (2D without array, LOD or offsets: S, T in Ra, Ra + 1)
 * sample; TLDS (1D.LZ: x in Ra; 2D.LZ: x, y in Ra, Rb; 2D.LL: x, y in Ra,
 * Ra + 1, the level in Rb) and TLD.LZ 2D (x, y in Ra, Ra + 1) fetch the
 * texel at integer coordinates (tmu_fetch: outside the level, 0); the
 * other forms are refused naming the instruction. */

typedef struct tex_ctx {
  gs_gpu *g;
  const sass_io *io;
} tex_ctx;

static int sample(void *ctx, sass_warp *w, const sass_insn *in, uint32_t lanes, gs_diag *d) {
  tex_ctx *tc = ctx;
  const sass_io *io = tc->io;
  uint32_t index, s_reg, t_reg, lod_reg = SASS_RZ, chans;
  uint8_t dst[4];
  int f16 = 0, fetch = 0; /* fetch: integer texel coordinates (TLDS, TLD) */
  if (in->op == SASS_OP_TEXS || in->op == SASS_OP_TLDS) {
    int ld = in->op == SASS_OP_TLDS;
    unsigned target = ld ? sass_mod(in, SASS_M_TLDS_TARGET) : sass_mod(in, SASS_M_TEXS_TARGET);
    unsigned code = ld ? sass_mod(in, SASS_M_TLDS_MASK) : sass_mod(in, SASS_M_TEXS_MASK);
    s_reg = in->ra, t_reg = in->rb;
    if (!ld && target != 1 && target != 2)
      return gs_diag_set(d, GS_EINVAL, "TEXS targets other than 2D and 2D.LZ are not modelled by gpusim");
    if (ld && target == 0) t_reg = SASS_RZ;                                      /* 1D.LZ: x */
    else if (ld && target == 5) t_reg = (uint32_t)(in->ra + 1), lod_reg = in->rb; /* 2D.LL: x, y; lod */
    else if (ld && target != 2)
      return gs_diag_set(d, GS_EINVAL, "TLDS targets other than 1D.LZ, 2D.LZ and 2D.LL are not modelled by gpusim");
    static const uint8_t two[8] = {0x1, 0x2, 0x4, 0x8, 0x3, 0x9, 0xa, 0xc}, four[5] = {0x7, 0xb, 0xd, 0xe, 0xf};
    chans = in->rc == SASS_RZ ? two[code & 7] : code < 5 ? four[code] : 0;
    if (!chans) return gs_diag_set(d, GS_EINVAL, "%s component code %u has no meaning", ld ? "TLDS" : "TEXS", code);
    index = ld ? sass_mod(in, SASS_M_TLDS_INDEX) : sass_mod(in, SASS_M_TEXS_INDEX);
    f16 = ld ? !sass_mod(in, SASS_M_TLDS_F32) : !sass_mod(in, SASS_M_TEXS_F32);
    fetch = ld;
    dst[0] = in->rd, dst[1] = (uint8_t)(in->rd + 1), dst[2] = in->rc, dst[3] = (uint8_t)(in->rc + 1);
  } else if (in->op == SASS_OP_TEX && strcmp(sass_table[in->entry].name, "TEX") == 0 && sass_mod(in, SASS_M_TEX_DIM) == 1 &&
             !sass_mod(in, SASS_M_TEX_LOD) && !sass_mod(in, SASS_M_TEX_AOFFI) && !sass_mod(in, SASS_M_TEX_DC)) {
    chans = sass_mod(in, SASS_M_TEX_WMASK);
    index = sass_mod(in, SASS_M_TEX_INDEX), s_reg = in->ra, t_reg = (uint32_t)(in->ra + 1);
    for (unsigned k = 0, r = in->rd; k < 4; k++) dst[k] = (chans >> k & 1) ? (uint8_t)r++ : SASS_RZ;
  } else if (in->op == SASS_OP_TLD && sass_mod(in, SASS_M_TLD_DIM) == 1 && !sass_mod(in, SASS_M_TLD_LOD) &&
             !sass_mod(in, SASS_M_TLD_AOFFI) && !sass_mod(in, SASS_M_TLD_MS) && !sass_mod(in, SASS_M_TLD_CL)) {
    chans = sass_mod(in, SASS_M_TLD_WMASK);
    index = sass_mod(in, SASS_M_TLD_INDEX), s_reg = in->ra, t_reg = (uint32_t)(in->ra + 1), fetch = 1;
    for (unsigned k = 0, r = in->rd; k < 4; k++) dst[k] = (chans >> k & 1) ? (uint8_t)r++ : SASS_RZ;
  } else {
    return gs_diag_set(d, GS_EINVAL, "this texture instruction's form is not modelled by gpusim (TEXS 2D and 2D.LZ, "
                       "TEX 2D, TLDS 1D.LZ, 2D.LZ and 2D.LL, TLD.LZ 2D are)");
  }
  uint32_t cfg[2];
  for (unsigned k = 0; k < 2; k++) {
    uint32_t byte = 4 * (index + k);
    if (!io->cb[0] || byte + 4 > io->cb_size[0])
      return gs_diag_set(d, GS_EFAULT, "texture handle 0x%x: its config words at c[0x0][0x%x] are past the end of the "
                         "uniform stream (%u bytes)", index, 4 * index, io->cb_size[0]);
    cfg[k] = gs_get_le32(io->cb[0] + byte);
  }
  tmu_texture tex;
  uint32_t texel[SASS_LANES];
  tmu_lanes l = {SASS_LANES, lanes, w->r[s_reg & 255], w->r[t_reg & 255], NULL, 0};
  int rc = tmu_texture_decode(cfg, 2, 0, &tex, d);
  if (rc >= 0)
    rc = fetch ? tmu_fetch(tc->g->mem, &tex, 0, SASS_LANES, lanes, l.s, l.t, lod_reg == SASS_RZ ? NULL : w->r[lod_reg],
                           texel, d)
               : tmu_sample(tc->g->mem, &tex, 0, &l, texel, d);
  if (rc < 0) return rc;
  for (uint32_t m = lanes; m; m &= m - 1) {
    unsigned ln = (unsigned)__builtin_ctz(m), k = 0;
    uint32_t out[4];
    for (unsigned c = 0; c < 4; c++)
      if (chans >> c & 1) {
        float v = (float)((texel[ln] >> (8 * c)) & 0xffu) / 255.0f;
        memcpy(&out[k++], &v, 4);
      }
    if (f16) {
      uint32_t h[4] = {0};
      for (unsigned j = 0; j < k; j++) {
        float v;
        memcpy(&v, &out[j], 4);
        h[j] = gs_half_bits(v);
      }
      if (dst[0] != SASS_RZ) w->r[dst[0]][ln] = h[0] | h[1] << 16;
      if (k > 2 && dst[2] != SASS_RZ) w->r[dst[2]][ln] = h[2] | h[3] << 16;
    } else {
      for (unsigned j = 0; j < k; j++)
        if (dst[j] != SASS_RZ) w->r[dst[j]][ln] = out[j];
    }
  }
  return GS_OK;
}

/* What follows a warp's run: the outputs of its lanes converted as the
 * file's comment says (rows_of, for the first n lanes at once: 16 for a
 * batch, 32 for a pair), and each batch's lanes base .. base + 15 of them
 * handed to its tile port (frag_out). */
static const uint32_t zero_lanes[SASS_LANES], one_lanes[SASS_LANES] = {
    0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u,
    0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u,
    0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u,
    0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u, 0x3f800000u};

/* RGBA8888 of channels c[0..3] in lanes 0 .. n - 1 (n a multiple of 16):
 * unorm8.h's rows, eight lanes at a time where the CPU has AVX2. */
static void unorm8_lanes(const uint32_t *const c[4], unsigned n, uint32_t *out) {
  for (unsigned l = 0; l < n; l += 16) {
    const uint32_t *const row[4] = {c[0] + l, c[1] + l, c[2] + l, c[3] + l};
    gs_unorm8_rows_best(row, out + l);
  }
}

/* A warp's outputs, ready for its batches' ports: render target 0's colour
 * in the tile buffer's format (rgba[1]: the BA half of a 64-bit target),
 * OmapDepth's Z and OmapSampleMask's register. */
typedef struct frag_rows {
  uint32_t rgba[2][SASS_LANES], z[SASS_LANES];
  const uint32_t *mask; /* the sample mask of each lane, or NULL */
  int colour, depth;    /* rgba, z hold them */
} frag_rows;

static void rows_of(const entry *e, const sass_warp *w, unsigned n, int colour64, frag_rows *r) {
  const sass_ps_out *om = &e->out;
  r->colour = e->colour, r->depth = om->depth_reg != SASS_PS_NONE;
  r->mask = om->sample_mask_reg != SASS_PS_NONE ? w->r[om->sample_mask_reg] : NULL;
  if (r->colour) {
    const uint32_t *c[4];
    for (unsigned k = 0; k < 4; k++)
      c[k] = e->chan[k] != SASS_PS_NONE ? w->r[e->chan[k]] : k == 3 ? one_lanes : zero_lanes;
    if (colour64) {
      for (unsigned l = 0; l < n; l++) {
        r->rgba[0][l] = gs_half_bits(gs_lane_f(c[0][l])) | gs_half_bits(gs_lane_f(c[1][l])) << 16;
        r->rgba[1][l] = gs_half_bits(gs_lane_f(c[2][l])) | gs_half_bits(gs_lane_f(c[3][l])) << 16;
      }
    } else {
      unorm8_lanes(c, n, r->rgba[0]);
    }
  }
  if (r->depth)
    for (unsigned l = 0; l < n; l++) {
      float d = gs_lane_f(w->r[om->depth_reg][l]);
      d = !(d > 0) ? 0 : d > 1 ? 1 : d;
      r->z[l] = (uint32_t)(d * 16777215.0 + 0.5);
    }
}

/* Batch f's Z, coverage and colour, lanes base .. base + 15 of r, to its
 * tile port; `lanes` are those it writes (its mask without the lanes KIL
 * discarded). Inlined into each batch loop. */
static GS_CLONE_INLINE void frag_out(const frag_rows *r, unsigned base, const gs_frag_io *f, uint16_t lanes) {
  const gs_tile_port *t = f->tile;
  uint32_t cov[16];
  t->begin(t->ctx);
  if (!lanes) return;
  memcpy(cov, f->cov, sizeof cov);
  if (r->mask)
    for (int l = 0; l < 16; l++) cov[l] &= r->mask[base + l];
  t->z_write(t->ctx, r->depth ? r->z + base : f->z, cov, lanes);
  if (r->colour) {
    t->colour_write(t->ctx, 1, r->rgba[0] + base, cov, lanes);
    if (f->colour64) t->colour_write(t->ctx, 1, r->rgba[1] + base, cov, lanes);
  }
}

/* The lanes of batch f, lanes base .. base + 15 of w, a port writes. */
static inline uint16_t lanes_of(const sass_warp *w, unsigned base, const gs_frag_io *f) {
  return (uint16_t)(f->mask & ~(w->killed >> base));
}

/* Batches b and b + 1 in one warp (entry.pairs): GS_OK with both written,
 * or not GS_OK (nothing written, u's diag and the report as they were) for
 * the caller to run them one at a time, each meeting its own error. The
 * run's error goes to a diag of its own; the report is kept to be put back
 * unless the program is quiet (entry.quiet). */
static int run_pair(gs_isa_unit *u, const entry *e, sass_io *io, const gs_frag_io *f, uint64_t budget) {
  gs_diag diag;
  gs_isa_report saved, *report = f[0].report;
  if (!e->quiet && report) saved = *report;
  io->frag[0] = &f[0], io->frag[1] = &f[1];
  sass_warp_start_regs(&u->warp, e->zero, e->nzero, f[0].mask | (uint32_t)f[1].mask << 16, 8, u->local, u->local_cap);
  int rc = sass_run_fast(&u->warp, e->fast, io, budget, "fragment shader", &diag);
  if (rc < 0) {
    if (!e->quiet && report) *report = saved;
    return rc;
  }
  frag_rows r;
  rows_of(e, &u->warp, 32, (int)f[0].colour64, &r);
  frag_out(&r, 0, &f[0], lanes_of(&u->warp, 0, &f[0]));
  frag_out(&r, 16, &f[1], lanes_of(&u->warp, 16, &f[1]));
  return GS_OK;
}

/* The n batches of a call of an invariant program (entry.invariant): one
 * run of a full warp gives every lane's outputs, which each batch hands to
 * its port from lanes 0-15 (a batch without lanes would have run no
 * instruction: it writes nothing either way). GS_OK, or not GS_OK (nothing
 * written, u's diag as it was) for the caller to run the batches as usual,
 * each meeting the error. */
static int run_invariant(gs_isa_unit *u, const entry *e, sass_io *io, const gs_frag_io *fio, unsigned n,
                         uint64_t budget) {
  gs_diag diag;
  io->frag[0] = &fio[0], io->frag[1] = &fio[1];
  sass_warp_start_regs(&u->warp, e->zero, e->nzero, 0xffffffffu, 8, u->local, u->local_cap);
  int rc = sass_run_fast(&u->warp, e->fast, io, budget, "fragment shader", &diag);
  if (rc < 0) return rc;
  frag_rows r;
  int conv = -1; /* the format r holds */
  for (unsigned b = 0; b < n; b++) {
    if (conv != (int)fio[b].colour64) conv = (int)fio[b].colour64, rows_of(e, &u->warp, 16, conv, &r);
    frag_out(&r, 0, &fio[b], fio[b].mask); /* (no lane is killed) */
  }
  return GS_OK;
}

int sass_run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *fio, unsigned n, unsigned *ran) {
  *ran = 0;
  const entry *e = find(g, u, fio[0].prog.code);
  if (!e) return u->diag->code;
  const sass_program *p = &e->prog;
  if (p->sph.sph_type != GS_SPH_TYPE_PS)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the program's SPH is not a pixel shader's but it runs as the "
                       "fragment shader", fio[0].prog.code);
  int rc = local_of(u, &p->sph);
  if (rc < 0) return rc;
  sass_io io;
  memset(&io, 0, sizeof io);
  io.stage = GS_STAGE_FRAGMENT;
  io.gates = fio[0].gates;
  io.report = fio[0].report;
  io.ipa = &e->map;
  io.flat_shade = 0;
  const gs_stage_program *prog = &fio[0].prog;
  if (u->trusted && u->cb_valid && u->cb_prog.uniforms == prog->uniforms && u->cb_prog.unif_end == prog->unif_end) {
    io.cb[0] = u->cb, io.cb_size[0] = u->cb_size;
  } else { /* (probing memory for a stream without an end takes a dozen look-ups) */
    bind_uniforms(g, prog, &io);
    u->cb_valid = u->trusted, u->cb_prog = *prog, u->cb = io.cb[0], u->cb_size = io.cb_size[0];
  }
  tex_ctx tc = {g, &io};
  io.ctx = &tc, io.tex = sample;
  uint64_t budget = g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG;
  /* on the fast interpreter, outside the debugger: two batches a warp, and
   * only the registers a lane may read before writing them cleared */
  int fast = !g->debug && g->cfg.interpreter != GS_INTERP_REFERENCE, pairs = e->pairs && fast;
  if (fast && e->invariant && n > 1 && run_invariant(u, e, &io, fio, n, budget) >= 0) {
    *ran = n;
    return GS_OK;
  }
  for (unsigned b = 0; b < n;) {
    if (pairs && b + 1 < n && run_pair(u, e, &io, &fio[b], budget) >= 0) {
      b += 2;
      continue;
    }
    const gs_frag_io *f = &fio[b];
    io.frag[0] = f;
    io.frag[1] = NULL;
    if (fast)
      sass_warp_start_regs(&u->warp, e->zero, e->nzero, f->mask, 8, u->local, u->local_cap);
    else
      sass_warp_start(&u->warp, e->nregs, f->mask, 8, u->local, u->local_cap);
    if ((rc = run_warp(g, u, e, &io, budget, "fragment shader", NULL)) < 0) {
      *ran = b;
      return rc;
    }
    frag_rows r;
    rows_of(e, &u->warp, 16, (int)f->colour64, &r);
    frag_out(&r, 0, f, lanes_of(&u->warp, 0, f));
    b++;
  }
  *ran = n;
  return GS_OK;
}
