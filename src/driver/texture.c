/* texture.c — textures for the TMU: texels tiled into the T or LT layout
 * the hardware picks for the level's size (the same rule and addressing
 * the TMU model reads with, src/v3d/tiling.h), and the config parameters
 * a shader's uniform stream carries (RG Tables 15-17, §11; Mesa vc4_tiling.c). */
#include <string.h>
#include "gpusim/driver.h"
#include "v3d/tiling.h"

#define TEXEL_BYTES 4u
#define TYPE_RGBA8888 0u

int gs_drv_texture_alloc(gs_mem *m, gs_drv_texture *t, const uint8_t *rgba, gs_diag *d) {
  t->base = 0;
  if (t->width < 1 || t->width > GS_DRV_MAX_TEXTURE || t->height < 1 || t->height > GS_DRV_MAX_TEXTURE)
    return gs_diag_set(d, GS_EARG, "texture: size %ux%u: each side must be 1..%d", t->width, t->height,
                       GS_DRV_MAX_TEXTURE);
  if ((unsigned)t->filter > GS_DRV_NEAREST || (unsigned)t->wrap_s > GS_DRV_MIRROR ||
      (unsigned)t->wrap_t > GS_DRV_MIRROR)
    return gs_diag_set(d, GS_EARG, "texture: unknown filter or wrap mode");
  tiling_layout layout = tiling_choose(t->width, t->height, TEXEL_BYTES);
  uint32_t bytes = tiling_size(layout, t->width, t->height, TEXEL_BYTES);
  gs_addr base;
  int rc = gs_mem_alloc(m, bytes, 4096, &base, d); /* BASE is in 4 KB units */
  if (rc < 0) return rc;
  uint8_t *p = gs_mem_ptr(m, base, bytes);
  for (uint32_t y = 0; y < t->height; y++)
    for (uint32_t x = 0; x < t->width; x++)
      memcpy(p + tiling_offset(layout, x, y, t->width, TEXEL_BYTES),
             rgba + ((size_t)y * t->width + x) * TEXEL_BYTES, TEXEL_BYTES);
  t->base = base;
  t->bytes = bytes;
  t->lt = layout == TILING_LT;
  return GS_OK;
}

void gs_drv_texture_release(gs_mem *m, gs_drv_texture *t) {
  if (t->base) gs_mem_release(m, t->base, NULL);
  t->base = 0;
}

void gs_drv_texture_config(const gs_drv_texture *t, uint32_t p[2]) {
  uint32_t filter = (uint32_t)t->filter; /* 0 linear, 1 nearest: MAGFILT, and MINFILT at LOD 0 */
  p[0] = (t->base & ~0xFFFu) | TYPE_RGBA8888 << 4 | 0u /* one mip level */;
  p[1] = (t->height & 2047u) << 20 | (t->width & 2047u) << 8 | filter << 7 | filter << 4 |
         (uint32_t)t->wrap_t << 2 | (uint32_t)t->wrap_s;
}
