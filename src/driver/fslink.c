/* fslink.c — the driver's side of linking a fragment program for blend,
 * colour-mask and stencil state (gpusim/driver.h, docs/blending.md): which
 * states need a variant of the program, their checks, the stencil setup
 * words, and gs_drv_fs_link, which hands the code to its instruction set's
 * linker (the link_fragment of src/isa/isa.h). The code a linker generates
 * is the instruction set's business: the VideoCore IV, which has no blend
 * unit, blends in its fragment programs.
 */
#include <stdlib.h>
#include <string.h>
#include "gpusim/driver.h"
#include "core/bytes.h"
#include "isa/isa.h"

/* ---- the state ------------------------------------------------------------------- */

static int check_stencil_face(const gs_drv_stencil_face *f, const char *face, gs_diag *d) {
  if (f->func > GS_DRV_ALWAYS) return gs_diag_set(d, GS_EARG, "draw: %s stencil function %u; 0..7", face, f->func);
  if (f->fail > 7 || f->zfail > 7 || f->zpass > 7)
    return gs_diag_set(d, GS_EARG, "draw: %s stencil operations %u, %u, %u; 0..7", face, f->fail, f->zfail, f->zpass);
  return GS_OK;
}

int gs_drv_fs_check_state(const gs_drv_state *s, gs_diag *d) {
  const gs_drv_blend *b = &s->blend;
  if ((unsigned)b->equation > GS_DRV_BLEND_MAX || (unsigned)b->alpha_equation > GS_DRV_BLEND_MAX)
    return gs_diag_set(d, GS_EARG, "draw: blend equations %d, %d; 0..4", (int)b->equation, (int)b->alpha_equation);
  gs_drv_blend_factor f[4] = {b->src, b->dst, b->src_alpha, b->dst_alpha};
  for (int i = 0; i < 4; i++)
    if ((unsigned)f[i] >= GS_DRV_FACTOR_COUNT)
      return gs_diag_set(d, GS_EARG, "draw: blend factor %d; 0..%d", (int)f[i], GS_DRV_FACTOR_COUNT - 1);
  if (s->color_mask > 0xF) return gs_diag_set(d, GS_EARG, "draw: colour mask 0x%x; 4 bits", s->color_mask);
  int rc = check_stencil_face(&s->stencil.front, "front", d);
  return rc < 0 ? rc : check_stencil_face(&s->stencil.back, "back", d);
}

static bool is_replace(gs_drv_blend_equation e, gs_drv_blend_factor src, gs_drv_blend_factor dst) {
  return (e == GS_DRV_BLEND_ADD || e == GS_DRV_BLEND_SUBTRACT) && src == GS_DRV_FACTOR_ONE &&
         dst == GS_DRV_FACTOR_ZERO;
}

bool gs_drv_fs_blend_on(const gs_drv_state *s) {
  const gs_drv_blend *b = &s->blend;
  return b->enable && !(is_replace(b->equation, b->src, b->dst) &&
                        is_replace(b->alpha_equation, b->src_alpha, b->dst_alpha));
}

bool gs_drv_fs_blends(const gs_drv_state *s) { return gs_drv_fs_blend_on(s) || (s->color_mask & 0xF) != 0xF; }

bool gs_drv_fs_needs_variant(const gs_drv_state *s) { return gs_drv_fs_blends(s) || s->stencil.enable; }

/* ---- stencil ----------------------------------------------------------------------- */

static unsigned write_mask_code(uint8_t m) {
  return m == 0x01 ? 0 : m == 0x03 ? 1 : m == 0x0f ? 2 : m == 0xff ? 3 : 4;
}

static uint32_t face_word(const gs_drv_stencil_face *f, uint32_t wsel) {
  unsigned code = write_mask_code(f->write_mask);
  return wsel << 30 | (code < 4 ? code : 0) << 28 | (uint32_t)(f->zfail & 7) << 25 |
         (uint32_t)(f->zpass & 7) << 22 | (uint32_t)(f->fail & 7) << 19 | (uint32_t)(f->func & 7) << 16 |
         (uint32_t)f->ref << 8 | f->mask;
}

unsigned gs_drv_stencil_words(const gs_drv_stencil *s, uint32_t w[3]) {
  unsigned n = 0;
  if (memcmp(&s->front, &s->back, sizeof s->front) == 0) {
    w[n++] = face_word(&s->front, 3);
  } else {
    w[n++] = face_word(&s->front, 1);
    w[n++] = face_word(&s->back, 2);
  }
  if (write_mask_code(s->front.write_mask) > 3 || write_mask_code(s->back.write_mask) > 3)
    w[n++] = (uint32_t)s->back.write_mask << 8 | s->front.write_mask;
  return n;
}

/* ---- linking ----------------------------------------------------------------------- */

int gs_drv_fs_link(const uint64_t *words, size_t n, const gs_drv_state *s, const gs_drv_fs_link_info *info,
                   uint64_t **out, size_t *nout, gs_diag *d) {
  *out = NULL;
  *nout = 0;
  if (!words || n == 0) return gs_diag_set(d, GS_EARG, "fragment program link: no instructions");
  const gs_isa *isa = gs_isa_by_id(GS_ISA_NONE); /* raw words: the VideoCore IV's own code */
  if (!isa || !isa->link_fragment)
    return gs_diag_set(d, GS_EINVAL, "fragment program link: the instruction set of raw code has no linker");
  if (n > SIZE_MAX / 8) return gs_diag_set(d, GS_ENOMEM, "fragment program link: host out of memory");
  uint8_t *code = malloc(8 * n), *linked = NULL;
  size_t size = 0;
  if (!code) return gs_diag_set(d, GS_ENOMEM, "fragment program link: host out of memory");
  gs_put_le64s(code, words, n);
  int rc = isa->link_fragment(code, 8 * n, s, info, &linked, &size, d);
  free(code);
  if (rc < 0) return rc;
  *nout = size / 8;
  if (!(*out = malloc(*nout ? *nout * sizeof **out : 1))) {
    free(linked);
    *nout = 0;
    return gs_diag_set(d, GS_ENOMEM, "fragment program link: host out of memory");
  }
  gs_get_le64s(*out, linked, *nout);
  free(linked);
  return GS_OK;
}
