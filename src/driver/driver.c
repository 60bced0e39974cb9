/* driver.c — lowering frames into VideoCore IV control lists: the frame
 * lifecycle, the binning list (state records, GL shader records, uniform
 * streams, draw packets) and the rendering list (include/gpusim/driver.h
 * says what a frame becomes; RG Tables 38 and 45 and Linux vc4_render_cl.c
 * the facts).
 *
 * Like Mesa's vc4_emit_state, the driver emits a state record only when its
 * bytes differ from the last one of that kind in the frame, so a frame of
 * many draws with one state carries each record once. Every draw is checked
 * whole before anything is written; a draw that then runs out of memory is
 * undone by restoring the writer and the record cache, so the frame stays
 * as it was.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpusim/driver.h"
#include "driver/arena.h"
#include "driver/variant.h"
#include "core/half.h"
#include "v3d/cl.h"
#include "v3d/tlb.h"

#define BCL_BLOCK 4096u            /* binning-list blocks */
#define BIN_HEADER 16u             /* room for record 112, written at the end */
#define TILE_INITIAL_BLOCK 32u     /* initial tile-list block (code 0) */
#define TILE_POOL_MIN (64u << 10)
#define TILE_POOL_MAX (64u << 20)
#define ARRAY_VERTEX_LIMIT 65536u  /* GFXH-515: 16-bit indices in the binner */

/* The state records the driver tracks, in the order it emits them. */
enum {
  SLOT_CLIP_WINDOW, SLOT_CONFIG, SLOT_POINT_SIZE, SLOT_LINE_WIDTH, SLOT_CLIPPER_XY,
  SLOT_VIEWPORT_OFFSET, SLOT_CLIPPER_Z, SLOT_FLAT_SHADE, SLOT_PRIM_FORMAT, SLOT_COUNT
};
#define SLOT_BYTES 16

/* What a draw may have to undo. */
typedef struct emit_state {
  gs_cl_writer w;
  uint8_t last[SLOT_COUNT][SLOT_BYTES];
  bool have[SLOT_COUNT];
  uint32_t draws;
  uint32_t calls;      /* gs_driver_draw calls that succeeded */
  uint32_t nrec;       /* entries of gs_driver.rec in use */
  uint64_t vertices;
  bool early_z;
  uint32_t n_fs;       /* entries of gs_driver.fs in use */
  uint32_t n_streams;  /* entries of gs_driver.streams in use */
} emit_state;

struct gs_driver {
  gs_mem *mem;
  drv_arena arena;
  bool in_frame;
  gs_drv_target target;
  gs_drv_clear clear;
  gs_addr bin_start;
  emit_state e;
  gs_addr *fs;               /* the frame's fragment programs (variants included) */
  uint32_t cap_fs;
  uint32_t fixed_pool;       /* gs_driver_set_tile_pool; 0: estimate */
  uint32_t learned_pool;     /* the largest pool a frame has needed */
  drv_variants variants;     /* fragment programs linked for blend and stencil */
  uint32_t frame;            /* frames begun, for the variant cache */
  struct {                   /* the frame's shader records, by draw call */
    gs_addr record;
    uint32_t call;
  } *rec;
  uint32_t cap_rec;
  gs_v3d_unif_stream *streams; /* the frame's uniform streams */
  uint32_t cap_streams;
};

gs_driver *gs_driver_new(gs_mem *m) {
  gs_driver *drv = calloc(1, sizeof *drv);
  if (!drv) return NULL;
  drv->mem = m;
  drv_arena_init(&drv->arena, m);
  drv_variants_init(&drv->variants, m);
  return drv;
}

void gs_driver_free(gs_driver *drv) {
  if (!drv) return;
  drv_arena_free(&drv->arena);
  drv_variants_free(&drv->variants);
  free(drv->fs);
  free(drv->rec);
  free(drv->streams);
  free(drv);
}

void gs_drv_state_init(gs_drv_state *s) {
  memset(s, 0, sizeof *s);
  s->depth_func = GS_DRV_LESS;
  s->depth_write = true;
  s->depth_near = 0.0f;
  s->depth_far = 1.0f;
  s->point_size = 1.0f;
  s->line_width = 1.0f;
  s->blend = (gs_drv_blend){false, GS_DRV_BLEND_ADD, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ZERO,
                            GS_DRV_BLEND_ADD, GS_DRV_FACTOR_ONE, GS_DRV_FACTOR_ZERO, 0};
  s->color_mask = 0xF;
  gs_drv_stencil_face f = {GS_DRV_ALWAYS, 0, 0xff, 0xff, GS_DRV_STENCIL_KEEP, GS_DRV_STENCIL_KEEP,
                           GS_DRV_STENCIL_KEEP};
  s->stencil = (gs_drv_stencil){false, f, f};
}

/* ---- the frame ------------------------------------------------------------ */

/* gs_cl_more_fn for the binning list: another block from the arena. */
static int more_block(void *ud, gs_addr *start, uint32_t *size, gs_diag *d) {
  gs_driver *drv = ud;
  *size = BCL_BLOCK;
  return drv_arena_alloc(&drv->arena, BCL_BLOCK, 32, start, d);
}

int gs_driver_begin_frame(gs_driver *drv, const gs_drv_target *t, gs_diag *d) {
  drv->in_frame = false;
  if (!t->framebuffer || t->width < 1 || t->width > GS_DRV_MAX_SIDE || t->height < 1 ||
      t->height > GS_DRV_MAX_SIDE)
    return gs_diag_set(d, GS_EARG, "begin_frame: target %ux%u has no frame buffer or a bad size",
                       t->width, t->height);
  drv_arena_reset(&drv->arena);
  memset(&drv->e, 0, sizeof drv->e);
  drv->frame++;
  drv->target = *t;
  drv->clear = (gs_drv_clear){0xff000000u, 1.0f, 0};
  gs_addr start;
  int rc = drv_arena_alloc(&drv->arena, BCL_BLOCK, 32, &start, d);
  if (rc < 0) return rc;
  drv->bin_start = start;
  gs_cl_writer_init(&drv->e.w, drv->mem, start + BIN_HEADER, BCL_BLOCK - BIN_HEADER);
  gs_cl_writer_chain(&drv->e.w, more_block, drv);
  if ((rc = gs_cl_put_id(&drv->e.w, GS_CL_START_TILE_BINNING, NULL, d)) < 0) return rc;
  /* Mesa seeds the tile lists' format right after Start Tile Binning. */
  gs_cl_primitive_list_format fmt = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  uint8_t *slot = drv->e.last[SLOT_PRIM_FORMAT];
  if ((rc = gs_cl_pack_primitive_list_format(slot, SLOT_BYTES, &fmt, d)) < 0) return rc;
  if ((rc = gs_cl_emit_primitive_list_format(&drv->e.w, &fmt, d)) < 0) return rc;
  drv->e.have[SLOT_PRIM_FORMAT] = true;
  drv->in_frame = true;
  return GS_OK;
}

void gs_driver_set_clear(gs_driver *drv, const gs_drv_clear *c) { drv->clear = *c; }

/* ---- checking a draw ------------------------------------------------------ */

static int check_shader(const gs_drv_shader *sh, unsigned nattrs, gs_diag *d) {
  if (!sh) return gs_diag_set(d, GS_EARG, "draw: no shader");
  if (!sh->vs_code || !sh->cs_code || !sh->fs_code)
    return gs_diag_set(d, GS_EARG, "draw: the shader lacks a %s program",
                       !sh->vs_code ? "vertex" : !sh->cs_code ? "coordinate" : "fragment");
  if ((sh->vs_code | sh->cs_code | sh->fs_code) & 7u)
    return gs_diag_set(d, GS_EARG, "draw: program code must be 8-byte aligned");
  if (sh->nvaryings > GS_DRV_MAX_VARYINGS)
    return gs_diag_set(d, GS_EARG, "draw: %u varyings; at most %d", sh->nvaryings, GS_DRV_MAX_VARYINGS);
  for (unsigned i = nattrs; i < 8; i++)
    if (sh->cs_attrs >> i & 1u)
      return gs_diag_set(d, GS_EARG, "draw: the coordinate shader loads attribute %u of %u", i, nattrs);
  return GS_OK;
}

static int check_attrs(const gs_drv_draw *dr, gs_diag *d) {
  if (dr->nattrs < 1 || dr->nattrs > GS_DRV_MAX_ATTRS || !dr->attrs)
    return gs_diag_set(d, GS_EARG, "draw: %u attribute arrays; 1..%d needed", dr->nattrs, GS_DRV_MAX_ATTRS);
  uint32_t total = 0;
  for (unsigned i = 0; i < dr->nattrs; i++) {
    const gs_drv_attr *a = &dr->attrs[i];
    if (a->size < 1 || a->size > 64)
      return gs_diag_set(d, GS_EARG, "draw: attribute %u: size %u bytes; 1..64", i, a->size);
    if (a->stride > 255)
      return gs_diag_set(d, GS_EARG, "draw: attribute %u: stride %u bytes; 0..255", i, a->stride);
    total += (a->size + 3u) & ~3u;
  }
  if (total > 255)
    return gs_diag_set(d, GS_EARG, "draw: attributes take %u bytes of VPM per vertex; at most 255", total);
  return GS_OK;
}

static int check_uniforms(const gs_drv_draw *dr, gs_diag *d) {
  static const char *const stage[3] = {"vertex", "coordinate", "fragment"};
  for (int s = 0; s < 3; s++) {
    const gs_drv_uniforms *u = &dr->uniforms[s];
    if (u->n && !u->u) return gs_diag_set(d, GS_EARG, "draw: %s uniforms: no array", stage[s]);
    if (u->n > (1u << 20)) return gs_diag_set(d, GS_EARG, "draw: %s uniforms: %zu is too many", stage[s], u->n);
    for (size_t i = 0; i < u->n; i++)
      if (u->u[i].kind >= GS_DRV_U_KIND_COUNT)
        return gs_diag_set(d, GS_EARG, "draw: %s uniform %zu: unknown kind %u", stage[s], i, u->u[i].kind);
  }
  return GS_OK;
}

static int check_state(const gs_drv_state *s, gs_diag *d) {
  if ((unsigned)s->depth_func > GS_DRV_ALWAYS)
    return gs_diag_set(d, GS_EARG, "draw: depth function %d; 0..7", (int)s->depth_func);
  if ((unsigned)s->cull > GS_DRV_CULL_BOTH) return gs_diag_set(d, GS_EARG, "draw: cull mode %d", (int)s->cull);
  if (!isfinite(s->depth_near) || !isfinite(s->depth_far))
    return gs_diag_set(d, GS_EARG, "draw: depth range must be finite");
  if (!(s->point_size > 0.0f) || !(s->line_width > 0.0f) || s->point_size > 2048.0f || s->line_width > 2048.0f)
    return gs_diag_set(d, GS_EARG, "draw: point size %g and line width %g must be in (0, 2048]",
                       (double)s->point_size, (double)s->line_width);
  return gs_drv_fs_check_state(s, d);
}

/* The largest index of the draw's index range; GS_EFAULT when the range is
 * not inside one allocation. */
static int max_index(const gs_driver *drv, const gs_drv_draw *dr, uint32_t *out, gs_diag *d) {
  uint64_t start = (uint64_t)dr->indices + (uint64_t)dr->first * dr->index_size;
  uint64_t len = (uint64_t)dr->count * dr->index_size;
  const uint8_t *p = start + len <= 0xFFFFFFFFu ? gs_mem_ptr(drv->mem, (gs_addr)start, (uint32_t)len) : NULL;
  if (!p)
    return gs_diag_set(d, GS_EFAULT, "draw: indices %u..%u at 0x%08llx lie outside allocated GPU memory",
                       dr->first, dr->first + dr->count - 1, (unsigned long long)start);
  uint32_t m = 0;
  for (uint32_t i = 0; i < dr->count; i++) {
    uint32_t v = dr->index_size == 1 ? p[i] : (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;
    if (v > m) m = v;
  }
  *out = m;
  return GS_OK;
}

/* Bytes from a to the end of the allocation holding it; 0 when none does. */
static uint32_t bytes_from(const gs_mem *m, gs_addr a) {
  if (!gs_mem_ptr(m, a, 1)) return 0;
  uint32_t lo = 1, hi = ~a; /* gs_mem_ptr(a, lo) holds; the answer is in [lo, hi] */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo + 1) / 2;
    if (gs_mem_ptr(m, a, mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/* Every attribute array must hold vertex `last`, the largest the draw
 * reads, inside the allocation its base lies in: as the Linux vc4
 * validator checks each attribute's buffer against the draw's max_index
 * (drivers/gpu/drm/vc4/vc4_validate.c). Otherwise the VCD would read
 * whatever follows the array (another buffer, a shader's code) as vertices. */
static int check_attr_reach(const gs_driver *drv, const gs_drv_draw *dr, uint32_t last, gs_diag *d) {
  for (unsigned i = 0; i < dr->nattrs; i++) {
    const gs_drv_attr *a = &dr->attrs[i];
    uint64_t end = (uint64_t)last * a->stride + a->size; /* bytes from the base */
    if (end <= 0xFFFFFFFFu - a->base && gs_mem_ptr(drv->mem, a->base, (uint32_t)end)) continue;
    char which[64];
    if (dr->indices)
      snprintf(which, sizeof which, "index %u (the largest of the draw's)", last);
    else
      snprintf(which, sizeof which, "vertex %u (first %u + count %u - 1)", last, dr->first, dr->count);
    uint32_t room = bytes_from(drv->mem, a->base);
    if (room < a->size)
      return gs_diag_set(d, GS_EFAULT, "draw: %s: attribute %u's array at 0x%08x has no vertex in allocated GPU "
                         "memory (%u bytes of its %u-byte attribute)", which, i, a->base, room, a->size);
    uint32_t fit = a->stride ? (room - a->size) / a->stride + 1 : 0xFFFFFFFFu;
    return gs_diag_set(d, GS_EFAULT, "draw: %s reaches past the end of attribute %u's array: vertex %u needs bytes "
                       "%llu..%llu from 0x%08x (stride %u), and its allocation holds %u bytes from there: vertices "
                       "0..%u", which, i, last, (unsigned long long)(end - a->size), (unsigned long long)end - 1,
                       a->base, a->stride, room, fit - 1);
  }
  return GS_OK;
}

static int check_draw(const gs_driver *drv, const gs_drv_draw *dr, const gs_drv_state *st, gs_diag *d) {
  int rc;
  if (!drv->in_frame) return gs_diag_set(d, GS_EARG, "draw: no frame has begun");
  if ((unsigned)dr->mode > GS_DRV_TRIANGLE_FAN) return gs_diag_set(d, GS_EARG, "draw: mode %d; 0..6", (int)dr->mode);
  if ((rc = check_attrs(dr, d)) < 0) return rc;
  if ((rc = check_shader(dr->shader, dr->nattrs, d)) < 0) return rc;
  if ((rc = check_uniforms(dr, d)) < 0) return rc;
  if ((rc = check_state(st, d)) < 0) return rc;
  if (gs_drv_fs_blends(st) && drv->target.format == GS_DRV_RGBA16F)
    return gs_diag_set(d, GS_EARG, "draw: blending and colour masks need a target of 8-bit colour (the blend "
                       "code works on 32-bit words of four bytes), not RGBA16F");
  if (dr->indices && dr->index_size != 1 && dr->index_size != 2)
    return gs_diag_set(d, GS_EARG, "draw: index size %u bytes; 1 or 2 (the hardware has no 32-bit indices)",
                       dr->index_size);
  if ((uint64_t)dr->first + dr->count > 0xFFFFFFFFu)
    return gs_diag_set(d, GS_EARG, "draw: first %u + count %u overflows", dr->first, dr->count);
  return GS_OK;
}

/* ---- state records -------------------------------------------------------- */

/* The viewport rectangle: the state's, or the whole target. */
static gs_drv_rect viewport_of(const gs_driver *drv, const gs_drv_state *s) {
  if (s->viewport.width && s->viewport.height) return s->viewport;
  return (gs_drv_rect){0, 0, drv->target.width, drv->target.height};
}

/* Intersects r with [x0, x1) × [y0, y1) in place (64-bit, no overflow). */
static void clip_to(int64_t *x0, int64_t *y0, int64_t *x1, int64_t *y1, const gs_drv_rect *r) {
  if (r->x > *x0) *x0 = r->x;
  if (r->y > *y0) *y0 = r->y;
  if ((int64_t)r->x + r->width < *x1) *x1 = (int64_t)r->x + r->width;
  if ((int64_t)r->y + r->height < *y1) *y1 = (int64_t)r->y + r->height;
}

/* Clip window (102): target ∩ viewport ∩ scissor, as Mesa always does (the
 * hardware does not clip to the viewport, only to the guard band). */
static gs_cl_clip_window clip_window(const gs_driver *drv, const gs_drv_state *s) {
  int64_t x0 = 0, y0 = 0, x1 = drv->target.width, y1 = drv->target.height;
  gs_drv_rect vp = viewport_of(drv, s);
  clip_to(&x0, &y0, &x1, &y1, &vp);
  if (s->scissor) clip_to(&x0, &y0, &x1, &y1, &s->scissor_rect);
  if (x1 <= x0 || y1 <= y0) return (gs_cl_clip_window){0, 0, 0, 0};
  return (gs_cl_clip_window){(uint32_t)x0, (uint32_t)y0, (uint32_t)(x1 - x0), (uint32_t)(y1 - y0)};
}

static bool depth_on(const gs_driver *drv, const gs_drv_state *s) { return drv->target.depth && s->depth_test; }

/* Early Z only for < and <=, as Mesa: the direction lives in record 113,
 * one per frame. Not with stencil: early Z would drop fragments whose
 * failing depth test must still update the stencil (the z-fail op). */
static bool early_z_of(const gs_driver *drv, const gs_drv_state *s) {
  return depth_on(drv, s) && !s->stencil.enable &&
         (s->depth_func == GS_DRV_LESS || s->depth_func == GS_DRV_LEQUAL);
}

static gs_cl_configuration_bits config_bits(const gs_driver *drv, const gs_drv_state *s) {
  gs_cl_configuration_bits c;
  memset(&c, 0, sizeof c);
  c.enable_forward_facing = s->cull != GS_DRV_CULL_FRONT && s->cull != GS_DRV_CULL_BOTH;
  c.enable_reverse_facing = s->cull != GS_DRV_CULL_BACK && s->cull != GS_DRV_CULL_BOTH;
  c.clockwise = s->front_cw;
  bool depth = depth_on(drv, s);
  c.depth_func = depth ? (uint32_t)s->depth_func : GS_DRV_ALWAYS;
  c.z_updates = depth && s->depth_write;
  c.early_z = early_z_of(drv, s);
  c.early_z_updates = c.early_z && s->depth_write;
  c.oversample = drv->target.samples == 4; /* 4x: coverage per sample */
  return c;
}

/* Emits the record in bytes (ID first) unless the last one of its slot had
 * the same bytes. */
static int put_state(emit_state *e, int slot, const uint8_t *bytes, gs_diag *d) {
  const gs_cl_format_info *f = gs_cl_packet_info(bytes[0]);
  if (e->have[slot] && memcmp(e->last[slot], bytes, f->size) == 0) return GS_OK;
  uint32_t v[GS_CL_MAX_FIELDS];
  gs_cl_unpack(f, bytes, v);
  int rc = gs_cl_put(&e->w, f, v, d);
  if (rc < 0) return rc;
  memcpy(e->last[slot], bytes, f->size);
  e->have[slot] = true;
  return GS_OK;
}

static uint32_t float_bits(float f) { return gs_cl_f32(f); }

/* The primitive class of Primitive List Format (56) for a mode. */
static uint32_t prim_class(gs_drv_mode m) {
  if (m == GS_DRV_POINTS) return GS_CL_PRIM_POINTS;
  if (m <= GS_DRV_LINE_STRIP) return GS_CL_PRIM_LINES;
  return GS_CL_PRIM_TRIANGLES;
}

/* Packs every state record of a draw into b[slot] (checked: GS_EARG when
 * the viewport centre leaves the 12.4 range). */
static int pack_state(const gs_driver *drv, const gs_drv_draw *dr, const gs_drv_state *s,
                      uint8_t b[SLOT_COUNT][SLOT_BYTES], gs_diag *d) {
  gs_drv_rect vp = viewport_of(drv, s);
  int64_t cx = 8 * (2 * (int64_t)vp.x + vp.width), cy = 8 * (2 * (int64_t)vp.y + vp.height);
  if (cx < INT16_MIN || cx > INT16_MAX || cy < INT16_MIN || cy > INT16_MAX)
    return gs_diag_set(d, GS_EARG, "draw: viewport centre (%g, %g) is outside the 12.4 range of record 103",
                       (double)cx / 16, (double)cy / 16);
  gs_cl_clip_window cw = clip_window(drv, s);
  gs_cl_configuration_bits cb = config_bits(drv, s);
  gs_cl_point_size ps = {s->point_size};
  gs_cl_line_width lw = {s->line_width};
  gs_cl_clipper_xy_scaling xy = {(float)vp.width * 8.0f, (float)vp.height * 8.0f};
  gs_cl_viewport_offset vo = {(int32_t)cx, (int32_t)cy};
  gs_cl_clipper_z_scale_and_offset z = {(s->depth_far - s->depth_near) * 0.5f,
                                        (s->depth_far + s->depth_near) * 0.5f};
  gs_cl_flat_shade_flags fl = {dr->shader->flat_varyings};
  gs_cl_primitive_list_format pf = {prim_class(dr->mode), GS_CL_DATA_INDEX16};
  int rc = 0;
  if (rc >= 0) rc = gs_cl_pack_clip_window(b[SLOT_CLIP_WINDOW], SLOT_BYTES, &cw, d);
  if (rc >= 0) rc = gs_cl_pack_configuration_bits(b[SLOT_CONFIG], SLOT_BYTES, &cb, d);
  if (rc >= 0) rc = gs_cl_pack_point_size(b[SLOT_POINT_SIZE], SLOT_BYTES, &ps, d);
  if (rc >= 0) rc = gs_cl_pack_line_width(b[SLOT_LINE_WIDTH], SLOT_BYTES, &lw, d);
  if (rc >= 0) rc = gs_cl_pack_clipper_xy_scaling(b[SLOT_CLIPPER_XY], SLOT_BYTES, &xy, d);
  if (rc >= 0) rc = gs_cl_pack_viewport_offset(b[SLOT_VIEWPORT_OFFSET], SLOT_BYTES, &vo, d);
  if (rc >= 0) rc = gs_cl_pack_clipper_z_scale_and_offset(b[SLOT_CLIPPER_Z], SLOT_BYTES, &z, d);
  if (rc >= 0) rc = gs_cl_pack_flat_shade_flags(b[SLOT_FLAT_SHADE], SLOT_BYTES, &fl, d);
  if (rc >= 0) rc = gs_cl_pack_primitive_list_format(b[SLOT_PRIM_FORMAT], SLOT_BYTES, &pf, d);
  return rc < 0 ? rc : GS_OK;
}

/* ---- uniform streams and shader records ----------------------------------- */

/* The word a uniform becomes for this draw. */
static uint32_t uniform_word(const gs_driver *drv, const gs_drv_state *s, const gs_drv_uniform *u) {
  gs_drv_rect vp = viewport_of(drv, s);
  switch (u->kind) {
  case GS_DRV_U_VIEWPORT_X_SCALE: return float_bits((float)vp.width * 8.0f);
  case GS_DRV_U_VIEWPORT_Y_SCALE: return float_bits((float)vp.height * 8.0f);
  case GS_DRV_U_VIEWPORT_Z_SCALE: return float_bits((s->depth_far - s->depth_near) * 0.5f);
  case GS_DRV_U_VIEWPORT_Z_OFFSET: return float_bits((s->depth_far + s->depth_near) * 0.5f);
  default: return u->value;
  }
}

/* Makes room for entry n of the host array *arr of *cap entries of `size`
 * bytes (doubling it, from 64). GS_ENOMEM when the host is out of memory. */
static int reserve_entry(void **arr, uint32_t *cap, uint32_t n, size_t size, gs_diag *d) {
  if (n < *cap) return GS_OK;
  uint32_t ncap = *cap ? 2 * *cap : 64;
  void *p = realloc(*arr, ncap * size);
  if (!p) return gs_diag_set(d, GS_ENOMEM, "draw: host out of memory");
  *arr = p;
  *cap = ncap;
  return GS_OK;
}

/* Writes a uniform stream into the arena and lists it with its length
 * (gs_drv_frame.unif_streams); *out its address. An empty stream still
 * gets a word, so every record holds a valid address. */
static int put_uniforms(gs_driver *drv, const gs_drv_state *s, const gs_drv_uniforms *u, gs_addr *out,
                        gs_diag *d) {
  int rc = reserve_entry((void **)&drv->streams, &drv->cap_streams, drv->e.n_streams, sizeof *drv->streams, d);
  if (rc < 0) return rc;
  rc = drv_arena_alloc(&drv->arena, (uint32_t)(u->n ? u->n * 4 : 4), 16, out, d);
  if (rc < 0) return rc;
  drv->streams[drv->e.n_streams++] = (gs_v3d_unif_stream){*out, (uint32_t)u->n};
  uint8_t *p = gs_mem_ptr(drv->mem, *out, (uint32_t)(u->n * 4));
  for (size_t i = 0; i < u->n; i++) {
    uint32_t w = uniform_word(drv, s, &u->u[i]);
    for (int k = 0; k < 4; k++) p[4 * i + (size_t)k] = (uint8_t)(w >> (8 * k));
  }
  return GS_OK;
}

/* Writes the GL shader record and its attribute records (RG Table 45)
 * with attribute bases moved to vertex `rebase`; *out its address. */
static int put_shader_record(gs_driver *drv, const gs_drv_draw *dr, const gs_addr unif[3], uint32_t rebase,
                             gs_addr *out, gs_diag *d) {
  const gs_drv_shader *sh = dr->shader;
  uint8_t cs_mask = sh->cs_attrs ? sh->cs_attrs : (uint8_t)((1u << dr->nattrs) - 1u);
  uint8_t rec[GS_CL_GL_ATTR_OFFSET + 8 * GS_DRV_MAX_ATTRS];
  uint32_t size = GS_CL_GL_ATTR_OFFSET + 8 * dr->nattrs;
  uint32_t vs_off = 0, cs_off = 0;
  int rc;
  for (unsigned i = 0; i < dr->nattrs; i++) {
    const gs_drv_attr *a = &dr->attrs[i];
    bool cs = cs_mask >> i & 1u;
    gs_cl_gl_attribute_record ar = {a->base + rebase * a->stride, a->size - 1, a->stride, vs_off,
                                    cs ? cs_off : 0};
    if ((rc = gs_cl_pack_gl_attribute_record(rec + GS_CL_GL_ATTR_OFFSET + 8 * i, 8, &ar, d)) < 0) return rc;
    vs_off += (a->size + 3u) & ~3u;
    if (cs) cs_off += (a->size + 3u) & ~3u;
  }
  gs_cl_gl_shader_record r;
  memset(&r, 0, sizeof r);
  r.fs_single_threaded = !sh->fs_threaded;
  r.clipping = 1; /* as Mesa: let the PTB clip at near/far and the guard band */
  r.fs_varyings = sh->nvaryings;
  r.fs_code = sh->fs_code;
  r.fs_uniforms = unif[GS_DRV_STAGE_FRAGMENT];
  r.vs_attr_select = (1u << dr->nattrs) - 1u;
  r.vs_attr_size = vs_off;
  r.vs_code = sh->vs_code;
  r.vs_uniforms = unif[GS_DRV_STAGE_VERTEX];
  r.cs_attr_select = cs_mask;
  r.cs_attr_size = cs_off;
  r.cs_code = sh->cs_code;
  r.cs_uniforms = unif[GS_DRV_STAGE_COORDINATE];
  if ((rc = gs_cl_pack_gl_shader_record(rec, sizeof rec, &r, d)) < 0) return rc;
  if ((rc = drv_arena_alloc(&drv->arena, size, 16, out, d)) < 0) return rc;
  return gs_mem_write(drv->mem, *out, rec, size, d);
}

/* ---- draws ---------------------------------------------------------------- */

/* Remembers that shader record rec belongs to the draw call being lowered
 * (gs_driver_draw_of_record). */
static int note_record(gs_driver *drv, gs_addr rec, gs_diag *d) {
  int rc = reserve_entry((void **)&drv->rec, &drv->cap_rec, drv->e.nrec, sizeof *drv->rec, d);
  if (rc < 0) return rc;
  drv->rec[drv->e.nrec].record = rec;
  drv->rec[drv->e.nrec++].call = drv->e.calls + 1;
  return GS_OK;
}

uint32_t gs_driver_draw_of_record(const gs_driver *drv, gs_addr record) {
  for (uint32_t i = 0; record && i < drv->e.nrec; i++)
    if (drv->rec[i].record == record) return drv->rec[i].call;
  return 0;
}

/* Emits one draw packet with its shader state: arrays of count vertices from
 * `first` with attributes rebased to vertex `rebase`, or (indices) count
 * indices from `first`. */
static int emit_draw(gs_driver *drv, const gs_drv_draw *dr, const gs_addr unif[3],
                     uint32_t rebase, uint32_t first, uint32_t count, uint32_t maxi, gs_diag *d) {
  gs_addr rec;
  int rc = put_shader_record(drv, dr, unif, rebase, &rec, d);
  if (rc < 0) return rc;
  if ((rc = note_record(drv, rec, d)) < 0) return rc;
  gs_cl_gl_shader_state ss = {rec, 0, dr->nattrs & 7u};
  if ((rc = gs_cl_emit_gl_shader_state(&drv->e.w, &ss, d)) < 0) return rc;
  if (dr->indices) {
    gs_cl_indexed_primitive_list ip = {dr->mode, dr->index_size == 2, count,
                                       dr->indices + first * dr->index_size, maxi};
    rc = gs_cl_emit_indexed_primitive_list(&drv->e.w, &ip, d);
  } else {
    gs_cl_vertex_array_primitives va = {dr->mode, count, first};
    rc = gs_cl_emit_vertex_array_primitives(&drv->e.w, &va, d);
  }
  if (rc < 0) return rc;
  drv->e.draws++;
  drv->e.vertices += count;
  return GS_OK;
}

unsigned gs_drv_mode_vertices(gs_drv_mode m) {
  if ((unsigned)m > GS_DRV_TRIANGLE_FAN) return 0;
  return m == GS_DRV_POINTS ? 1 : m <= GS_DRV_LINE_STRIP ? 2 : 3;
}

uint32_t gs_drv_primitives(gs_drv_mode m, uint32_t count) {
  unsigned least = gs_drv_mode_vertices(m);
  if (!least || count < least) return 0;
  switch (m) {
  case GS_DRV_POINTS: return count;
  case GS_DRV_LINES: return count / 2;
  case GS_DRV_LINE_LOOP: return count;
  case GS_DRV_LINE_STRIP: return count - 1;
  case GS_DRV_TRIANGLES: return count / 3;
  default: return count - 2; /* strip, fan */
  }
}

/* Vertices per primitive of an independent-primitive mode, 0 for strips,
 * fans and loops (which cannot be cut into pieces). */
static uint32_t independent_vertices(gs_drv_mode m) {
  return m == GS_DRV_POINTS ? 1 : m == GS_DRV_LINES ? 2 : m == GS_DRV_TRIANGLES ? 3 : 0;
}

/* Emits an array draw, rebasing and splitting it so that no vertex number
 * the binner sees reaches 65536 (GFXH-515, as Mesa's vc4_draw.c). */
static int emit_arrays(gs_driver *drv, const gs_drv_draw *dr, const gs_addr unif[3], gs_diag *d) {
  if ((uint64_t)dr->first + dr->count <= ARRAY_VERTEX_LIMIT)
    return emit_draw(drv, dr, unif, 0, dr->first, dr->count, 0, d);
  if (dr->count <= ARRAY_VERTEX_LIMIT) return emit_draw(drv, dr, unif, dr->first, 0, dr->count, 0, d);
  uint32_t per = independent_vertices(dr->mode);
  if (!per)
    return gs_diag_set(d, GS_EARG, "draw: %u vertices in one strip, fan or loop; at most %u (GFXH-515)",
                       dr->count, ARRAY_VERTEX_LIMIT);
  uint32_t chunk = ARRAY_VERTEX_LIMIT / per * per, left = dr->count / per * per;
  for (uint32_t at = dr->first; left > 0;) {
    uint32_t n = left < chunk ? left : chunk;
    int rc = emit_draw(drv, dr, unif, at, 0, n, 0, d);
    if (rc < 0) return rc;
    at += n;
    left -= n;
  }
  return GS_OK;
}

/* Lists the draw's fragment program in the frame (gs_drv_frame.fs_programs)
 * the first time the frame uses it. One with a header must have a pixel
 * shader's SPH that the varying FIFO can follow: the pipeline reads each
 * varying's interpolation from it (gs_sph_varying_modes). */
static int note_fs_program(gs_driver *drv, gs_addr fs_code, gs_diag *d) {
  for (unsigned i = 0; i < drv->e.n_fs; i++)
    if (drv->fs[i] == fs_code) return GS_OK;
  gs_sph sph;
  if (gs_drv_program_sph(drv->mem, fs_code, &sph, NULL) == GS_OK) {
    uint8_t mode[32];
    unsigned n;
    gs_diag sd;
    if (gs_sph_varying_modes(&sph, mode, NULL, &n, &sd) < 0)
      return gs_diag_set(d, GS_EARG, "draw: fragment shader 0x%08x: %s", fs_code, sd.msg);
  }
  int rc = reserve_entry((void **)&drv->fs, &drv->cap_fs, drv->e.n_fs, sizeof *drv->fs, d);
  if (rc < 0) return rc;
  drv->fs[drv->e.n_fs++] = fs_code;
  return GS_OK;
}

/* Lowers a checked draw with the fragment-program variant its blend,
 * colour-mask and stencil state needs; fails on memory, a program that does
 * not link, or a fragment shader whose SPH is not a pixel shader's (the
 * caller then undoes the draw). */
static int lower_draw(gs_driver *drv, const gs_drv_draw *draw, const gs_drv_state *s,
                      uint8_t b[SLOT_COUNT][SLOT_BYTES], uint32_t maxi, gs_diag *d) {
  /* The fragment program the state needs: the draw's, or its variant. */
  gs_drv_shader sh = *draw->shader;
  gs_drv_draw linked = *draw;
  const gs_drv_draw *dr = &linked;
  linked.shader = &sh;
  unsigned samples = drv->target.samples == 4 ? 4 : 1;
  int rc = drv_variant_get(&drv->variants, draw->shader, s, samples, drv->frame, &sh.fs_code, d);
  if (rc < 0) return rc;
  if ((rc = note_fs_program(drv, sh.fs_code, d)) < 0) return rc;
  for (int slot = 0; slot < SLOT_COUNT; slot++)
    if ((rc = put_state(&drv->e, slot, b[slot], d)) < 0) return rc;
  gs_addr unif[3];
  for (int st = 0; st < 3; st++)
    if ((rc = put_uniforms(drv, s, &dr->uniforms[st], &unif[st], d)) < 0) return rc;
  if (early_z_of(drv, s)) drv->e.early_z = true;
  if (dr->indices) return emit_draw(drv, dr, unif, 0, dr->first, dr->count, maxi, d);
  return emit_arrays(drv, dr, unif, d);
}

int gs_driver_draw(gs_driver *drv, const gs_drv_draw *dr, gs_diag *d) {
  gs_drv_state defaults;
  gs_drv_state_init(&defaults);
  const gs_drv_state *s = dr->state ? dr->state : &defaults;
  int rc = check_draw(drv, dr, s, d);
  if (rc < 0) return rc;
  if (dr->count == 0) return drv->e.calls++, GS_OK;
  uint32_t maxi = 0;
  if (dr->indices && (rc = max_index(drv, dr, &maxi, d)) < 0) return rc;
  if ((rc = check_attr_reach(drv, dr, dr->indices ? maxi : dr->first + dr->count - 1, d)) < 0) return rc;
  uint8_t b[SLOT_COUNT][SLOT_BYTES];
  if ((rc = pack_state(drv, dr, s, b, d)) < 0) return rc;
  emit_state saved = drv->e;
  if ((rc = lower_draw(drv, dr, s, b, maxi, d)) < 0) drv->e = saved;
  else drv->e.calls++;
  return rc;
}

/* ---- the end of a frame: tile memory and the rendering list --------------- */

/* Bytes of the initial tile-list blocks, rounded up to 4 KB. */
static uint32_t tile_initial_size(uint32_t tiles) { return (tiles * TILE_INITIAL_BLOCK + 4095u) & ~4095u; }

/* Bytes of tile allocation memory for the frame: the initial blocks, then
 * a pool that grows with the state records and primitives the tiles may
 * receive (docs/scenes.md), at least what an earlier frame needed; or the
 * pool fixed by gs_driver_set_tile_pool. */
static uint32_t tile_alloc_size(const gs_driver *drv, uint32_t tiles) {
  uint64_t pool = TILE_POOL_MIN + (uint64_t)tiles * drv->e.draws * 64u + drv->e.vertices * 16u;
  if (pool > TILE_POOL_MAX) pool = TILE_POOL_MAX;
  if (pool < drv->learned_pool) pool = drv->learned_pool;
  if (drv->fixed_pool) pool = drv->fixed_pool;
  return tile_initial_size(tiles) + (uint32_t)pool;
}

void gs_driver_set_tile_pool(gs_driver *drv, uint32_t bytes) {
  if (bytes > GS_DRV_MAX_TILE_POOL) bytes = GS_DRV_MAX_TILE_POOL;
  drv->fixed_pool = bytes ? (bytes + 4095u) & ~4095u : 0;
}

/* Writes record 112 into the 16 bytes kept at the start of the binning list. */
static int put_binning_config(gs_driver *drv, gs_drv_frame *f, gs_diag *d) {
  gs_cl_tile_binning_mode_configuration c;
  memset(&c, 0, sizeof c);
  c.tile_alloc = f->tile_alloc;
  c.tile_alloc_size = f->tile_alloc_size;
  c.tsda = f->tsda;
  c.width_tiles = f->tiles_x;
  c.height_tiles = f->tiles_y;
  c.ms4x = drv->target.samples == 4;
  c.color64 = drv->target.format == GS_DRV_RGBA16F;
  c.auto_init_tsda = 1;
  c.initial_block_size = 0; /* 32 bytes: the rendering list branches to base + 32 × tile */
  c.block_size = 2;         /* 128 bytes, as the kernel forces */
  uint8_t b[BIN_HEADER];
  int rc = gs_cl_pack_tile_binning_mode_configuration(b, sizeof b, &c, d);
  if (rc < 0) return rc;
  return gs_mem_write(drv->mem, drv->bin_start, b, (uint32_t)rc, d);
}

/* The 24-bit Z of a clear depth (clamped to 0..1, rounded to nearest). */
static uint32_t clear_z(float depth) {
  if (!(depth > 0.0f)) return 0;
  if (depth >= 1.0f) return 0xFFFFFFu;
  return (uint32_t)lrint((double)depth * 16777215.0);
}

/* The 64-bit clear colour of an RGBA16F target from the RGBA8888 one:
 * each byte / 255 to the nearest half. */
static void clear_halves(uint32_t rgba, uint32_t *lo, uint32_t *hi) {
  uint32_t h[4];
  for (int c = 0; c < 4; c++) h[c] = gs_half_bits((rgba >> (8 * c) & 255) / 255.0);
  *lo = h[0] | h[1] << 16;
  *hi = h[2] | h[3] << 16;
}

static int put_render_header(gs_driver *drv, gs_cl_writer *w, gs_diag *d) {
  const gs_drv_target *t = &drv->target;
  gs_cl_clear_colors cc = {drv->clear.color, drv->clear.color, clear_z(drv->clear.depth), 0,
                           drv->clear.stencil};
  if (t->format == GS_DRV_RGBA16F) clear_halves(drv->clear.color, &cc.color0, &cc.color1);
  gs_cl_tile_rendering_mode_configuration rm;
  memset(&rm, 0, sizeof rm);
  rm.address = t->framebuffer;
  rm.width = t->width;
  rm.height = t->height;
  rm.color_format = t->format == GS_DRV_BGR565 ? 2u : 1u; /* bgr565 (no dither), rgba8888 */
  rm.ms4x = t->samples == 4;
  rm.color64 = t->format == GS_DRV_RGBA16F;
  rm.decimate = t->samples == 4; /* 4x: the average of the samples */
  rm.early_z_disable = !drv->e.early_z;
  gs_cl_tile_coordinates tc = {0, 0};
  gs_cl_store_tile_buffer_general none;
  memset(&none, 0, sizeof none); /* buffer none: only clears the tile buffer */
  int rc = gs_cl_emit_clear_colors(w, &cc, d);
  if (rc >= 0) rc = gs_cl_emit_tile_rendering_mode_configuration(w, &rm, d);
  if (rc >= 0) rc = gs_cl_emit_tile_coordinates(w, &tc, d);
  if (rc >= 0) rc = gs_cl_emit_store_tile_buffer_general(w, &none, d);
  return rc < 0 ? rc : GS_OK;
}

static int put_render_list(gs_driver *drv, gs_drv_frame *f, gs_diag *d) {
  uint32_t tiles = f->tiles_x * f->tiles_y;
  uint32_t size = 14 + 11 + 3 + 7 + 1 + tiles * (3 + 5 + 1);
  gs_addr start;
  int rc = drv_arena_alloc(&drv->arena, size, 32, &start, d);
  if (rc < 0) return rc;
  gs_cl_writer w;
  gs_cl_writer_init(&w, drv->mem, start, size);
  if ((rc = put_render_header(drv, &w, d)) < 0) return rc;
  for (uint32_t y = 0; y < f->tiles_y; y++) {
    for (uint32_t x = 0; x < f->tiles_x; x++) {
      bool first = x == 0 && y == 0, last = x + 1 == f->tiles_x && y + 1 == f->tiles_y;
      gs_cl_tile_coordinates tc = {x, y};
      gs_cl_branch_to_sub_list br = {f->tile_alloc + (y * f->tiles_x + x) * TILE_INITIAL_BLOCK};
      if ((rc = gs_cl_emit_tile_coordinates(&w, &tc, d)) < 0) return rc;
      if (first && (rc = gs_cl_put_id(&w, GS_CL_WAIT_ON_SEMAPHORE, NULL, d)) < 0) return rc;
      if ((rc = gs_cl_emit_branch_to_sub_list(&w, &br, d)) < 0) return rc;
      unsigned store = last ? GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF
                            : GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER;
      if ((rc = gs_cl_put_id(&w, store, NULL, d)) < 0) return rc;
    }
  }
  f->render_start = start;
  f->render_end = w.cur;
  return GS_OK;
}

static int stream_cmp(const void *a, const void *b) {
  gs_addr x = ((const gs_v3d_unif_stream *)a)->addr, y = ((const gs_v3d_unif_stream *)b)->addr;
  return x < y ? -1 : x > y;
}

int gs_driver_end_frame(gs_driver *drv, gs_drv_frame *f, gs_diag *d) {
  if (!drv->in_frame) return gs_diag_set(d, GS_EARG, "end_frame: no frame has begun");
  memset(f, 0, sizeof *f);
  const gs_drv_target *t = &drv->target;
  f->framebuffer = t->framebuffer;
  f->width = t->width;
  f->height = t->height;
  f->stride = t->stride;
  f->format = t->format;
  unsigned tw, th;
  tlb_tile_size(t->samples == 4, t->format == GS_DRV_RGBA16F, &tw, &th);
  f->tiles_x = (t->width + tw - 1) / tw;
  f->tiles_y = (t->height + th - 1) / th;
  f->draws = drv->e.draws;
  if (drv->e.n_streams) /* none in a frame without draws, and qsort(NULL, 0) is undefined */
    qsort(drv->streams, drv->e.n_streams, sizeof *drv->streams, stream_cmp);
  f->unif_streams = drv->streams;
  f->fs_programs = drv->fs;
  f->n_fs_programs = drv->e.n_fs;
  f->n_unif_streams = drv->e.n_streams;
  uint32_t tiles = f->tiles_x * f->tiles_y;
  int rc = gs_cl_put_id(&drv->e.w, GS_CL_INCREMENT_SEMAPHORE, NULL, d);
  if (rc >= 0) rc = gs_cl_put_id(&drv->e.w, GS_CL_FLUSH, NULL, d);
  if (rc < 0) return rc;
  f->bin_start = drv->bin_start;
  f->bin_end = drv->e.w.cur;
  f->tile_alloc_size = tile_alloc_size(drv, tiles);
  if ((rc = drv_arena_alloc(&drv->arena, f->tile_alloc_size, 4096, &f->tile_alloc, d)) < 0) return rc;
  if ((rc = drv_arena_alloc(&drv->arena, tiles * 48u, 16, &f->tsda, d)) < 0) return rc;
  if ((rc = put_binning_config(drv, f, d)) < 0) return rc;
  if ((rc = put_render_list(drv, f, d)) < 0) return rc;
  drv->in_frame = false;
  return GS_OK;
}

int gs_driver_grow_tile_memory(gs_driver *drv, gs_drv_frame *f, gs_diag *d) {
  if (drv->in_frame || f->bin_start != drv->bin_start || f->render_start == 0)
    return gs_diag_set(d, GS_EARG, "grow_tile_memory: not the frame the driver ended last");
  uint32_t initial = tile_initial_size(f->tiles_x * f->tiles_y);
  uint64_t pool = 2 * (uint64_t)(f->tile_alloc_size - initial);
  if (pool > GS_DRV_MAX_TILE_POOL)
    return gs_diag_set(d, GS_ENOMEM, "tile allocation memory: the frame needs more than %u MB",
                       GS_DRV_MAX_TILE_POOL >> 20);
  gs_drv_frame g = *f;
  g.tile_alloc_size = initial + (uint32_t)pool;
  int rc = drv_arena_alloc(&drv->arena, g.tile_alloc_size, 4096, &g.tile_alloc, d);
  if (rc < 0) return rc;
  if ((rc = put_render_list(drv, &g, d)) < 0) return rc; /* fresh memory: f stays valid on failure */
  if ((rc = put_binning_config(drv, &g, d)) < 0) return rc;
  *f = g;
  if (pool > drv->learned_pool) drv->learned_pool = (uint32_t)pool;
  return GS_OK;
}
