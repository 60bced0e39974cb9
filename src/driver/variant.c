/* variant.c — the cache of fragment-program variants (variant.h). */
#include <stdlib.h>
#include <string.h>
#include "driver/variant.h"
#include "isa/isa.h"

#define CACHE_SOFT_LIMIT 64  /* beyond this, variants unused this frame go */

void drv_variants_init(drv_variants *c, gs_mem *m) {
  memset(c, 0, sizeof *c);
  c->mem = m;
}

static void release(drv_variants *c, drv_variant *v) {
  gs_drv_program_release(c->mem, &v->prog);
  free(v->code);
}

void drv_variants_free(drv_variants *c) {
  for (size_t i = 0; i < c->n; i++) release(c, &c->v[i]);
  free(c->v);
  memset(c, 0, sizeof *c);
}

/* Everything of s (and the thread mode) the variant depends on, with the
 * parts that are off zeroed, so equal keys mean equal code. */
static void make_key(const gs_drv_state *s, bool threaded, unsigned samples, uint32_t k[DRV_VARIANT_KEY]) {
  memset(k, 0, DRV_VARIANT_KEY * sizeof *k);
  const gs_drv_blend *b = &s->blend;
  if (b->enable) {
    k[0] = 1;
    k[1] = b->equation, k[2] = b->src, k[3] = b->dst;
    k[4] = b->alpha_equation, k[5] = b->src_alpha, k[6] = b->dst_alpha;
    k[7] = b->color;
  }
  k[8] = s->color_mask & 0xFu;
  if (s->stencil.enable) k[9] = gs_drv_stencil_words(&s->stencil, &k[10]);
  k[13] = threaded;
  k[14] = samples;
}

/* The program's header, its ISA and its code (*code malloc'ed). */
static int read_program(const gs_mem *m, gs_addr fs_code, uint8_t header[GS_DRV_PROGRAM_HEADER], const gs_isa **isa,
                        uint8_t **code, size_t *size, gs_diag *d) {
  gs_program_header h;
  gs_diag hd;
  int rc = gs_program_header_read(m, fs_code, &h, &hd);
  if (rc < 0) return gs_diag_set(d, GS_EARG, "draw: fragment program %s", hd.msg);
  const uint8_t *p = rc && h.code_bytes ? gs_mem_ptr(m, fs_code, h.code_bytes) : NULL;
  *isa = p ? gs_isa_by_id(h.isa) : NULL;
  if (!*isa || h.code_bytes % (*isa)->code_align)
    return gs_diag_set(d, GS_EARG, "draw: fragment program 0x%08x: blending, colour masks and stencil need a "
                       "program loaded with gs_drv_program_load (its header gives the code's length)", fs_code);
  memcpy(header, gs_mem_ptr(m, fs_code - GS_DRV_PROGRAM_HEADER, GS_DRV_PROGRAM_HEADER), GS_DRV_PROGRAM_HEADER);
  *size = h.code_bytes;
  if (!(*code = malloc(*size))) return gs_diag_set(d, GS_ENOMEM, "driver: host out of memory");
  memcpy(*code, p, *size);
  return GS_OK;
}

/* Drops the variants the current frame does not use once there are many. */
static void trim(drv_variants *c, uint32_t frame) {
  if (c->n < CACHE_SOFT_LIMIT) return;
  size_t kept = 0;
  for (size_t i = 0; i < c->n; i++) {
    if (c->v[i].frame == frame) c->v[kept++] = c->v[i];
    else release(c, &c->v[i]);
  }
  c->n = kept;
}

/* Links v's code for s with its ISA's linker and loads the variant with
 * the original's SPH and ISA. */
static int make_variant(drv_variants *c, const gs_drv_shader *sh, const gs_isa *isa, const gs_drv_state *s,
                        unsigned samples, drv_variant *v, gs_diag *d) {
  gs_addr fs_code = sh->fs_code;
  gs_sph sph;
  gs_diag ld;
  uint8_t *linked;
  size_t size;
  int rc = gs_drv_program_sph(c->mem, fs_code, &sph, d);
  if (rc < 0) return rc;
  gs_drv_fs_link_info info = {sh->fs_threaded, samples, sh->fs_lines};
  if ((rc = isa->link_fragment(v->code, v->size, s, &info, &linked, &size, &ld)) < 0)
    return gs_diag_set(d, rc == GS_ENOMEM ? rc : GS_EARG, "draw: fragment program 0x%08x: %s", fs_code, ld.msg);
  rc = gs_drv_program_load_isa(c->mem, (unsigned)isa->id, linked, size, &sph, &v->prog, d);
  free(linked);
  return rc;
}

int drv_variant_get(drv_variants *c, const gs_drv_shader *sh, const gs_drv_state *s, unsigned samples,
                    uint32_t frame, gs_addr *out, gs_diag *d) {
  gs_addr fs_code = sh->fs_code;
  bool threaded = sh->fs_threaded;
  *out = fs_code;
  if (!gs_drv_fs_needs_variant(s)) return GS_OK;
  drv_variant v;
  memset(&v, 0, sizeof v);
  make_key(s, threaded, samples, v.key);
  const gs_isa *isa = NULL;
  int rc = read_program(c->mem, fs_code, v.header, &isa, &v.code, &v.size, d);
  if (rc < 0) return rc;
  if (!isa->link_fragment) { /* no linker: the state cannot reach the program's outputs */
    free(v.code);
    return gs_diag_set(d, GS_EARG, "draw: fragment program 0x%08x: blending, colour masks and stencil are linked "
                       "into VideoCore IV fragment programs, and gpusim does not link them into %s programs yet "
                       "(draw without them)", fs_code, isa->title);
  }
  for (size_t i = 0; i < c->n; i++) {
    drv_variant *e = &c->v[i];
    if (e->orig == fs_code && e->size == v.size && !memcmp(e->key, v.key, sizeof v.key) &&
        !memcmp(e->header, v.header, sizeof v.header) && !memcmp(e->code, v.code, v.size)) {
      free(v.code);
      e->frame = frame;
      *out = e->prog.code;
      return GS_OK;
    }
  }
  trim(c, frame);
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 8;
    drv_variant *nv = realloc(c->v, cap * sizeof *nv);
    if (!nv) {
      free(v.code);
      return gs_diag_set(d, GS_ENOMEM, "driver: host out of memory");
    }
    c->v = nv;
    c->cap = cap;
  }
  if ((rc = make_variant(c, sh, isa, s, samples, &v, d)) < 0) {
    free(v.code);
    return rc;
  }
  v.orig = fs_code;
  v.frame = frame;
  c->v[c->n++] = v;
  *out = v.prog.code;
  return GS_OK;
}
