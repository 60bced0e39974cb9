/* frag.c — the Apple AGX unit's fragment stage (agx_run_fragment, a hook
 * of src/isa/isa.h): a 4 x 4 batch of pixels as one SIMD group, the
 * coefficient registers set up from the SPH's PixelImap, the fragment
 * uniforms (u0-u7 Mesa's: 0 here; the draw's stream from u8), the epilog
 * that takes discard, the sample mask (r3h), depth (r2 or zs_emit) and
 * render target 0's colour (r4-r7) to the tile port. docs/agx-unit.md is
 * the chapter; unit.c has the program cache and the vertex stage.
 */
#include <stdio.h>
#include <string.h>
#include "core/clones.h"
#include "core/half.h"
#include "isa/debug.h"
#include "isa/agx/unit_int.h"
#include "isa/unorm8.h"
#include "isa/uop/uop.h"

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

/* dst[l] = src[l] for the batch's n lanes, 0 for the rest of 16: one
 * loop, inlined into each copy of the epilog, which GCC makes two masked
 * 32-byte loads and stores in the AVX2 one, so that the tile buffer's
 * 32-byte loads of the lanes find them in the store queue (a 32-byte load
 * of two 16-byte stores, as GCC's inline memcpy of 64 bytes makes them,
 * waits for both to reach the cache: a fifth of the batch's time). */
static GS_CLONE_INLINE void lanes16(uint32_t dst[16], const uint32_t *src, unsigned n) {
  if (n >= 16) /* (a full batch, the common case: without the test of each lane) */
    for (unsigned l = 0; l < 16; l++) dst[l] = src[l];
  else
    for (unsigned l = 0; l < 16; l++) dst[l] = l < n ? src[l] : 0;
}

/* The registers the epilog reads for gates (GS_GATE_*), bit N: rN: the
 * colour r4-r7, r2 (depth) with OmapDepth, r3 (r3h) with OmapSampleMask. */
static uint32_t epilog_regs(uint32_t gates) {
  return 0xf0u | (gates & GS_GATE_DEPTH ? 0x4u : 0u) | (gates & GS_GATE_SAMPLE_MASK ? 0x8u : 0u);
}

/* What the epilog does with batch f's results in s and rows (the
 * registers of epilog_regs; Mesa's fragment ABI,
 * docs/agx-unit.md "The epilog"), for each lane: discard (the samples
 * sample_mask/zs_emit killed, with KillsPixels); the sample mask r3h ANDed
 * into the coverage (with OmapSampleMask); depth (with OmapDepth: what
 * zs_emit took if the program's zs_emit writes depth, else r2; without:
 * the rasterised Z); the colour of target 0 from r4-r7; then the tile
 * port's depth/stencil test and colour write. A stencil output (zs_emit
 * with its stencil bit: the SPH cannot declare r3l) is an exception: the
 * VideoCore IV tile buffer's stencil reference is the stencil setup word's,
 * which the driver links into QPU programs only, so no stencil state
 * reaches an AGX program's draw. zs: agx_entry.zs of the program. */
GS_CLONES static void epilog(gs_isa_unit *u, const agx_state *s, const gs_frag_io *f, unsigned zs,
                             const uint32_t *const rows[8]) {
  const gs_tile_port *t = f->tile;
  unsigned n = f->lanes < 16 ? f->lanes : 16;
  uint16_t lanes = f->mask;
  uint32_t cov[16], zw[16], rgba[2][16];
  const uint32_t *z = zw;
  lanes16(cov, f->cov, n);
  uint64_t killed[2];
  memcpy(killed, s->killed, sizeof killed);
  for (unsigned l = 0; (killed[0] | killed[1]) && l < 16; l++) { /* (a discard is rare: lane by lane) */
    uint8_t k = s->killed[l];
    if (k && (lanes >> l & 1)) {
      if (f->gates & GS_GATE_KILL) cov[l] &= k == 0xff ? 0 : ~(uint32_t)k;
      else
        gs_isa_report_exception(f->report, "AGX unit %d, fragment shader 0x%08x, lane %u: a discard "
                                "(sample_mask/zs_emit) without KillsPixels in the SPH: ignored", u->num,
                                f->prog.code, l);
    }
  }
  if (f->gates & GS_GATE_SAMPLE_MASK)
    for (unsigned l = 0; l < 16; l++) cov[l] &= rows[3][l] >> 16; /* r3h */
  uint32_t none = 0; /* the lanes left without a sample */
#if defined(__SSE2__)
  for (unsigned l = 0; l < 16; l += 4) {
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)&cov[l]);
    none |= (uint32_t)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(c, _mm_setzero_si128()))) << l;
  }
#else
  for (unsigned l = 0; l < 16; l++) none |= (uint32_t)(cov[l] == 0) << l;
#endif
  lanes &= (uint16_t)~none;
  if ((zs & AGX_ZS_STENCIL) && (s->zs_done & lanes))
    for (unsigned l = 0; l < 16; l++)
      if ((s->zs_done >> l & 1) && (lanes >> l & 1))
        gs_isa_report_exception(f->report, "AGX unit %d, fragment shader 0x%08x, lane %u: a stencil output "
                                "(zs_emit with stencil): gpusim draws AGX fragment programs without stencil "
                                "state (the VideoCore IV's stencil reference is linked into QPU programs): "
                                "ignored", u->num, f->prog.code, l);
  if (f->gates & GS_GATE_DEPTH) {
    for (unsigned l = 0; l < 16; l++) {
      float d = gs_lane_f(zs & AGX_ZS_DEPTH && s->zs_done >> l & 1 ? s->depth[l] : rows[2][l]);
      d = !(d > 0) ? 0 : d > 1 ? 1 : d;
      zw[l] = (uint32_t)(d * 16777215.0 + 0.5);
    }
  } else if (n == 16) {
    z = f->z; /* the rasterised Z as it is */
  } else {
    lanes16(zw, f->z, n);
  }
  /* r4-r7 as rows, a channel's 16 lanes side by side */
  if (f->colour64) {
    for (unsigned l = 0; l < 16; l++) {
      rgba[0][l] = gs_half_bits(gs_lane_f(rows[4][l])) | gs_half_bits(gs_lane_f(rows[5][l])) << 16;
      rgba[1][l] = gs_half_bits(gs_lane_f(rows[6][l])) | gs_half_bits(gs_lane_f(rows[7][l])) << 16;
    }
  } else { /* the tilebuffer's u8norm store */
    const uint32_t *const c[4] = {rows[4], rows[5], rows[6], rows[7]};
    gs_unorm8_rows_best(c, rgba[0]);
  }
  t->begin(t->ctx);
  if (!lanes) return;
  t->z_write(t->ctx, z, cov, lanes);
  if (f->gates & GS_GATE_COLOUR) {
    t->colour_write(t->ctx, 1, rgba[0], cov, lanes);
    if (f->colour64) t->colour_write(t->ctx, 1, rgba[1], cov, lanes);
  }
}

/* Refuses an SPH that maps render targets past 0: Mesa's fragment ABI has
 * target i in r(4(i + 1)).., but gpusim's tile buffer has one colour
 * buffer (render target 0), so their colour would be lost. */
static int check_targets(gs_isa_unit *u, const agx_entry *e, gs_addr code) {
  unsigned i = e->rt_past0;
  if (i)
    return gs_diag_set(u->diag, GS_EINVAL, "AGX unit %d, fragment shader 0x%08x: its SPH maps render target %u "
                       "(OmapTarget[%u], r%u-r%u under the fragment ABI), but the tile buffer has one colour "
                       "buffer, render target 0: declare target 0 only", u->num, code, i, i, 4 * (i + 1),
                       4 * (i + 1) + 3);
  return GS_OK;
}

/* What agx_state_init(s, lanes) would leave, for the state program e can
 * reach (its register halves in every lane; the rest is not read), without
 * clearing the whole 28 KiB state for each 16-pixel batch: registers and
 * pending loads zero, the lanes present and active, the run and the
 * fragment outputs reset. The uniforms are the caller's. */
static void group_reset(agx_state *s, const agx_entry *e, unsigned lanes, int clean) {
  /* whole rows of 16 halves, two 16-byte stores each (the build sends
   * memset to the C library): the halves past e->halves are 0 already,
   * and with clean (gs_isa_unit.r_clean) the others too, in lanes 0-15,
   * which a fragment group's lanes are among; when they are cleared it is
   * in all 16 lanes, so that clean stays true of them */
  unsigned rows = (e->halves + 15) / 16, nl = clean ? 0 : 16;
#if defined(__SSE2__)
  const __m128i zero = _mm_setzero_si128();
  if (rows == 1) /* r0-r7: the common case, without the inner loop */
    for (unsigned l = 0; l < nl; l++) {
      __m128i *r = (__m128i *)(void *)s->r[l];
      _mm_storeu_si128(r, zero), _mm_storeu_si128(r + 1, zero);
    }
  else
    for (unsigned l = 0; l < nl; l++)
      for (unsigned k = 0; k < rows; k++) {
        __m128i *r = (__m128i *)(void *)&s->r[l][16 * k];
        _mm_storeu_si128(r, zero), _mm_storeu_si128(r + 1, zero);
      }
#else
  for (unsigned l = 0; l < nl; l++) memset(s->r[l], 0, 16 * rows * sizeof s->r[l][0]);
#endif
  /* what only some instructions write is 0 unless the program has them
   * (agx_state_init cleared it when the unit took the program) */
  if (e->pends) memset(s->pending, 0, sizeof s->pending);
  s->present = s->exec = lanes >= AGX_LANES ? 0xffffffffu : (1u << lanes) - 1;
  s->pc = 0, s->steps = 0, s->stopped = 0;
  if (e->frag_outs) {
    memset(s->killed, 0, sizeof s->killed), memset(s->tested, 0, sizeof s->tested);
    memset(s->depth, 0, sizeof s->depth), memset(s->stencil, 0, sizeof s->stencil);
  }
  s->zs_done = 0, s->var_done = 0;
}

/* gs_isa.fragment_reads: a program reads W and the varyings only through
 * the coefficient registers (iter, iterproj, ldcf: cf_setup fits them from
 * W, the planes and the offsets), the pixel through them and sr80/sr81
 * (frag_sr); the rasterised Z only the epilog takes, which always has it.
 * Everything under the debugger (which shows the coefficients) or without
 * a program. */
uint32_t agx_fragment_reads(gs_gpu *g, gs_isa_unit *u, gs_addr code) {
  if (g->debug) return GS_FRAG_READS_ALL;
  const agx_entry *e = agx_find(g, u, code);
  if (!e) return GS_FRAG_READS_ALL; /* (the run reports the error) */
  return (e->reads_cf || e->reads_pixel ? GS_FRAG_READS_XY : 0u) |
         (e->reads_cf ? GS_FRAG_READS_W | GS_FRAG_READS_VARYINGS : 0u);
}

int agx_run_fragment(gs_gpu *g, gs_isa_unit *u, const gs_frag_io *fio, unsigned n, unsigned *ran) {
  *ran = 0;
  const agx_entry *e = agx_find(g, u, fio[0].prog.code);
  if (!e) return u->diag->code;
  if (e->sph.sph_type != GS_SPH_TYPE_PS)
    return gs_diag_set(u->diag, GS_EINVAL, "0x%08x: the program's SPH is not a pixel shader's but it runs as the "
                       "fragment shader", fio[0].prog.code);
  if (check_targets(u, e, fio[0].prog.code) < 0) return u->diag->code;
  unsigned zs = e->zs;
  agx_state *s = &u->st;
  if (u->fresh != e) { /* a new program: everything zero once (then group_reset) */
    agx_state_init(s, 16);
    u->fresh = e, u->cf_used = 0, u->unif_valid = 0, u->r_clean = 1;
  }
  const gs_stage_program *prog = &fio[0].prog;
  if (!u->unif_valid || u->unif_prog.uniforms != prog->uniforms || u->unif_prog.unif_end != prog->unif_end) {
    memset(s->u, 0, sizeof s->u);
    agx_load_uniforms(g, prog, s, AGX_FS_UNIFORM_BASE);
    u->unif_valid = u->trusted, u->unif_prog = *prog;
  }
  s->mem = agx_unit_mem, s->mem_ctx = g;
  s->sr = frag_sr;
  agx_tex_attach(s, &u->tex, g, &fio[0].prog); /* smpf: the textures of the draw's uniform stream (tex.c) */
  /* the interpreter a call's groups run in, found once: group_reset
   * leaves no half pending (those the program may load into it clears;
   * no other instruction sets one), so agx_run_rows' checks are the same
   * for every group (-1: the reference, the debugger: agx_run_group_rows) */
  int fast = g->cfg.interpreter != GS_INTERP_REFERENCE && !g->debug ? agx_rows_fast(s, e->fast) : -1;
  if (fast > 0) { /* its runs in the unit's file (agx_run_frame), set up once for the call */
    if (!u->frame && !(u->frame = agx_frame_new()))
      return gs_diag_set(u->diag, GS_ENOMEM, "AGX unit %d: out of memory for the fragment shader's registers", u->num);
    agx_frame_begin(u->frame, s, e->fast);
  }
  uint64_t budget = g->cfg.watchdog ? g->cfg.watchdog : GS_DEFAULT_WATCHDOG;
  for (unsigned b = 0; b < n; b++) {
    const gs_frag_io *f = &fio[b];
    /* one batch a group: the 16 lanes of its 4 x 4 block, all of them
     * running (the uncovered ones as helpers: their quads' derivatives) */
    group_reset(s, e, f->lanes > 16 ? 16 : f->lanes, u->r_clean);
    u->r_clean = 0;
    s->sr_ctx = (void *)f;
    unsigned ncf = f->nin + 1 < AGX_CFS ? f->nin + 1 : AGX_CFS;
    if (e->cf_end > ncf) /* no varying reaches those: the picture is not what the code asks for */
      gs_isa_report_exception(f->report, "AGX unit %d, fragment shader 0x%08x: an iter or ldcf reads cf%u (varying "
                              "component %u), but the primitive sets up %u varying components (a varying the shader "
                              "does not declare?): it reads 0", u->num, f->prog.code, e->cf_end - 1, e->cf_end - 2,
                              f->nin);
    if (e->reads_cf || g->debug) { /* (the debugger shows them) */
      if (u->cf_used > ncf) memset(s->cf[ncf], 0, (u->cf_used - ncf) * sizeof s->cf[0]);
      u->cf_used = ncf;
      cf_setup(s, f);
    }
    agx_rows buf;
    const uint32_t *bufs[8];
    const uint32_t *const *rows = bufs;
    uint32_t want = epilog_regs(f->gates);
    int rc;
    if (fast > 0) { /* (never under the debugger: fast is -1 there) */
      rc = agx_run_frame(s, u->frame, budget, u->diag, want, &rows, &u->r_clean);
    } else {
      for (unsigned k = 0; k < 8; k++) bufs[k] = buf[k];
      if (g->debug && gs_debug_wants_fragment(g, f, 1)) { /* the shader debugger */
        rc = agx_debug_run(g, s, &e->prog, 0, u->diag);
        if (rc >= 0) agx_rows_of(s, want, buf);
      } else if (fast == 0) {
        rc = agx_run_rows_clean(s, e->fast, fast, budget, u->diag, want, buf);
      } else {
        rc = agx_run_group_rows(g, e, s, u->diag, want, buf);
      }
    }
    if (rc < 0) {
      char extra[64] = ""; /* the pixel, when the batch has it (the pipeline's message names the block anyway) */
      if (!(f->ignores & GS_FRAG_READS_XY))
        snprintf(extra, sizeof extra, ", block (%u, %u) (lane k: its pixel k)", f->x[0], f->y[0]);
      *ran = b;
      return agx_unit_error(u, rc, "fragment shader", f->prog.code, extra);
    }
    epilog(u, s, f, zs, rows);
  }
  *ran = n;
  return GS_OK;
}
