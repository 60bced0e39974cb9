/* variant.c — the cache of fragment-program variants (variant.h). */
#include <stdlib.h>
#include <string.h>
#include "driver/variant.h"

#define CACHE_SOFT_LIMIT 64  /* beyond this, variants unused this frame go */

void drv_variants_init(drv_variants *c, gs_mem *m) {
  memset(c, 0, sizeof *c);
  c->mem = m;
}

static void release(drv_variants *c, drv_variant *v) {
  gs_drv_program_release(c->mem, &v->prog);
  free(v->words);
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

/* The program's header and code as words (*words malloc'ed). */
static int read_program(const gs_mem *m, gs_addr code, uint8_t header[GS_DRV_PROGRAM_HEADER], uint64_t **words,
                        size_t *n, gs_diag *d) {
  const uint8_t *h = code >= GS_DRV_PROGRAM_HEADER
                         ? gs_mem_ptr(m, code - GS_DRV_PROGRAM_HEADER, GS_DRV_PROGRAM_HEADER)
                         : NULL;
  uint32_t magic = h ? (uint32_t)h[0] | (uint32_t)h[1] << 8 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 24 : 0;
  uint32_t bytes = h ? (uint32_t)h[4] | (uint32_t)h[5] << 8 | (uint32_t)h[6] << 16 | (uint32_t)h[7] << 24 : 0;
  const uint8_t *p = magic == GS_DRV_PROGRAM_MAGIC && bytes && bytes % 8 == 0 ? gs_mem_ptr(m, code, bytes) : NULL;
  if (!p)
    return gs_diag_set(d, GS_EARG, "draw: fragment program 0x%08x: blending, colour masks and stencil need a "
                       "program loaded with gs_drv_program_load (its header gives the code's length)", code);
  memcpy(header, h, GS_DRV_PROGRAM_HEADER);
  *n = bytes / 8;
  if (!(*words = malloc(*n * sizeof **words))) return gs_diag_set(d, GS_ENOMEM, "driver: host out of memory");
  for (size_t i = 0; i < *n; i++) {
    uint64_t w = 0;
    for (int k = 7; k >= 0; k--) w = w << 8 | p[8 * i + (size_t)k];
    (*words)[i] = w;
  }
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

/* Links and loads the variant of words for s, with the original's SPH. */
static int make_variant(drv_variants *c, const gs_drv_shader *sh, const uint64_t *words, size_t n,
                        const gs_drv_state *s, unsigned samples, drv_variant *v, gs_diag *d) {
  gs_addr fs_code = sh->fs_code;
  gs_sph sph;
  gs_diag ld;
  uint64_t *linked;
  size_t nl;
  int rc = gs_drv_program_sph(c->mem, fs_code, &sph, d);
  if (rc < 0) return rc;
  gs_drv_fs_link_info info = {sh->fs_threaded, samples, sh->fs_lines};
  if ((rc = gs_drv_fs_link(words, n, s, &info, &linked, &nl, &ld)) < 0)
    return gs_diag_set(d, rc == GS_ENOMEM ? rc : GS_EARG, "draw: fragment program 0x%08x: %s", fs_code, ld.msg);
  rc = gs_drv_program_load(c->mem, linked, nl, &sph, &v->prog, d);
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
  int rc = read_program(c->mem, fs_code, v.header, &v.words, &v.n, d);
  if (rc < 0) return rc;
  for (size_t i = 0; i < c->n; i++) {
    drv_variant *e = &c->v[i];
    if (e->orig == fs_code && e->n == v.n && !memcmp(e->key, v.key, sizeof v.key) &&
        !memcmp(e->header, v.header, sizeof v.header) && !memcmp(e->words, v.words, v.n * sizeof *v.words)) {
      free(v.words);
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
      free(v.words);
      return gs_diag_set(d, GS_ENOMEM, "driver: host out of memory");
    }
    c->v = nv;
    c->cap = cap;
  }
  if ((rc = make_variant(c, sh, v.words, v.n, s, samples, &v, d)) < 0) {
    free(v.words);
    return rc;
  }
  v.orig = fs_code;
  v.frame = frame;
  c->v[c->n++] = v;
  *out = v.prog.code;
  return GS_OK;
}
