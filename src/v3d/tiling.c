/* tiling.c — pixel addresses in the raster, LT and T memory layouts
 * (RG §11, Mesa vc4_tiling.c). */
#include "v3d/tiling.h"

#define UTILE_BYTES 64u
#define SUBTILE_BYTES 1024u
#define TILE_BYTES 4096u
#define TILE_UTILES 8u    /* a T-format tile is 8x8 micro-tiles */
#define SUBTILE_UTILES 4u /* a sub-tile is 4x4 micro-tiles */

void tiling_utile_size(unsigned cpp, unsigned *w, unsigned *h) {
  switch (cpp) {
  case 8: *w = 2; *h = 4; break;
  case 4: *w = 4; *h = 4; break;
  case 2: *w = 8; *h = 4; break;
  default: *w = 8; *h = 8; break; /* 1 byte per pixel */
  }
}

tiling_layout tiling_choose(uint32_t w, uint32_t h, unsigned cpp) {
  unsigned uw, uh;
  tiling_utile_size(cpp, &uw, &uh);
  return (w <= 4 * uw || h <= 4 * uh) ? TILING_LT : TILING_T;
}

static uint32_t div_up(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

/* Offset of pixel (x, y) inside its micro-tile. */
static uint32_t in_utile(uint32_t x, uint32_t y, unsigned uw, unsigned uh, unsigned cpp) {
  return (y % uh) * (uw * cpp) + (x % uw) * cpp;
}

uint32_t tiling_lt_offset(uint32_t x, uint32_t y, uint32_t width, unsigned cpp) {
  unsigned uw, uh;
  tiling_utile_size(cpp, &uw, &uh);
  uint32_t utiles_per_row = div_up(width, uw);
  return (y / uh) * utiles_per_row * UTILE_BYTES + (x / uw) * UTILE_BYTES + in_utile(x, y, uw, uh, cpp);
}

uint32_t tiling_t_offset(uint32_t x, uint32_t y, uint32_t width, unsigned cpp) {
  /* sub-tile index (sy * 2 + sx) -> position in the tile, in KB */
  static const uint8_t even_row[4] = {0, 3, 1, 2}, odd_row[4] = {2, 1, 3, 0};
  unsigned uw, uh;
  tiling_utile_size(cpp, &uw, &uh);
  uint32_t ux = x / uw, uy = y / uh;
  uint32_t tiles_per_row = div_up(width, uw * TILE_UTILES);
  uint32_t tx = ux / TILE_UTILES, ty = uy / TILE_UTILES;
  int odd = ty & 1;
  uint32_t tile = ty * tiles_per_row + (odd ? tiles_per_row - 1 - tx : tx);
  unsigned sub = ((uy % TILE_UTILES) / SUBTILE_UTILES) * 2 + (ux % TILE_UTILES) / SUBTILE_UTILES;
  uint32_t subtile = (odd ? odd_row : even_row)[sub] * SUBTILE_BYTES;
  uint32_t utile = ((uy % SUBTILE_UTILES) * SUBTILE_UTILES + ux % SUBTILE_UTILES) * UTILE_BYTES;
  return tile * TILE_BYTES + subtile + utile + in_utile(x, y, uw, uh, cpp);
}

uint32_t tiling_raster_offset(uint32_t x, uint32_t y, uint32_t pitch, unsigned cpp) { return y * pitch + x * cpp; }

uint32_t tiling_offset(tiling_layout layout, uint32_t x, uint32_t y, uint32_t width, unsigned cpp) {
  switch (layout) {
  case TILING_T: return tiling_t_offset(x, y, width, cpp);
  case TILING_LT: return tiling_lt_offset(x, y, width, cpp);
  default: return tiling_raster_offset(x, y, width * cpp, cpp);
  }
}

uint32_t tiling_size(tiling_layout layout, uint32_t w, uint32_t h, unsigned cpp) {
  unsigned uw, uh;
  tiling_utile_size(cpp, &uw, &uh);
  switch (layout) {
  case TILING_T: {
    uint32_t tw = uw * TILE_UTILES, th = uh * TILE_UTILES;
    return div_up(w, tw) * tw * div_up(h, th) * th * cpp;
  }
  case TILING_LT: return div_up(w, uw) * uw * div_up(h, uh) * uh * cpp;
  default: return w * h * cpp;
  }
}
