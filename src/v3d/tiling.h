/* tiling.h — where pixel (x, y) of an image lives in memory in the three
 * layouts of VideoCore IV: raster, LT-format (micro-tiles in raster order)
 * and T-format (4 KB tiles of 8x8 micro-tiles in a zig-zag order). The TMU
 * reads textures in these layouts and the tile buffer stores frame buffers
 * in them. Facts: RG §4 and §11; Mesa vc4_resource.c, vc4_tiling.c.
 *
 * y = 0 is the first row in memory (the "bottom" of the image). Pixel sizes
 * are whole bytes (cpp = 1, 2, 4 or 8); offsets are in bytes from the start
 * of the image (of one mip level).
 */
#ifndef GS_V3D_TILING_H
#define GS_V3D_TILING_H

#include <stdint.h>

typedef enum tiling_layout { TILING_RASTER, TILING_LT, TILING_T } tiling_layout;

/* Micro-tile (64 bytes) size in pixels for cpp bytes per pixel:
 * 8 -> 2x4, 4 -> 4x4, 2 -> 8x4, 1 -> 8x8. */
void tiling_utile_size(unsigned cpp, unsigned *w, unsigned *h);

/* The layout the hardware uses for a T-capable image level of w x h pixels:
 * LT if w <= 4 micro-tiles or h <= 4 micro-tiles (the MESA/kernel rule
 * that works on hardware), else T. */
tiling_layout tiling_choose(uint32_t w, uint32_t h, unsigned cpp);

/* Byte offset of pixel (x, y) in an LT-format image `width` pixels wide:
 * micro-tiles in raster order, pixels in raster order inside. */
uint32_t tiling_lt_offset(uint32_t x, uint32_t y, uint32_t width, unsigned cpp);

/* Byte offset of pixel (x, y) in a T-format image `width` pixels wide:
 * 4 KB tiles, left to right on even tile rows and right to left on odd
 * ones; in a tile, four 1 KB sub-tiles in the order BL, TL, TR, BR on even
 * tile rows and TR, BR, BL, TL on odd ones; in a sub-tile 4x4 micro-tiles
 * in raster order. */
uint32_t tiling_t_offset(uint32_t x, uint32_t y, uint32_t width, unsigned cpp);

/* Byte offset of pixel (x, y) in a raster image with rows `pitch` bytes
 * apart. */
uint32_t tiling_raster_offset(uint32_t x, uint32_t y, uint32_t pitch, unsigned cpp);

/* Byte offset of (x, y) in layout `layout` (raster: pitch = width * cpp). */
uint32_t tiling_offset(tiling_layout layout, uint32_t x, uint32_t y, uint32_t width, unsigned cpp);

/* Bytes an image level of w x h pixels occupies in `layout`: T-format pads
 * to whole 4 KB tiles, LT-format to whole micro-tiles, raster not at all. */
uint32_t tiling_size(tiling_layout layout, uint32_t w, uint32_t h, unsigned cpp);

#endif
