/* tmu.h — the texture and memory lookup unit's sampler, for any shader
 * unit's texture instructions: texture configurations decoded from their
 * config words, texture lookups (formats, T/LT/raster layouts, mip levels,
 * wrap modes, nearest and bilinear filters) and direct 32-bit memory reads
 * of a set of lanes. Facts: RG §4; the choices no source settles (filter
 * weights, LOD, lanes outside the mask): docs/v3d-units.md.
 *
 * How a shader unit delivers coordinates and config words and collects
 * results (on the VideoCore IV: parameter registers, config uniforms and a
 * result FIFO) is the unit's business. Errors are returned as a negative code with the
 * message in the caller's gs_diag, naming the TMU number the caller gives
 * but not the unit: the caller prefixes that.
 */
#ifndef GS_V3D_TMU_H
#define GS_V3D_TMU_H

#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/mem.h"
#include "v3d/tiling.h"

#define TMU_MAX_LANES 32 /* lanes of one lookup at most */
#define TMU_MAX_LEVELS 16

struct tmu_format;

typedef struct tmu_level {
  uint32_t addr, w, h;
  uint32_t row_width; /* pixels per row for the address functions */
  tiling_layout layout;
} tmu_level;

/* A texture configuration (RG Tables 15-17), decoded. */
typedef struct tmu_texture {
  unsigned type, miplvls, flipy;
  const struct tmu_format *fmt;
  unsigned magfilt, minfilt, wrap_s, wrap_t;
  tmu_level level[TMU_MAX_LEVELS];
} tmu_texture;

/* Decodes the ncfg (2..4) config words cfg (parameters 0, 1 and the
 * optional 2, 3) into *tex. GS_EINVAL for a texture type, mode or filter
 * that is not modelled, naming TMU `unit`. */
int tmu_texture_decode(const uint32_t *cfg, unsigned ncfg, int unit, tmu_texture *tex, gs_diag *d);

/* The lanes of one lookup. */
typedef struct tmu_lanes {
  unsigned n;                 /* lanes 0..n-1, n <= TMU_MAX_LANES */
  uint32_t mask;              /* lanes looked up; the others return 0 and cannot fault */
  const uint32_t *s, *t, *b;  /* float bits per lane: S, T, and the LOD B */
  uint32_t border;            /* RGBA8888 return word of border texels */
} tmu_lanes;

/* Samples tex at each lane of l into out[0..n) (RGBA8888 return words).
 * GS_EFAULT for a texel outside allocated memory, naming its address. */
int tmu_sample(const gs_mem *m, const tmu_texture *tex, int unit, const tmu_lanes *l, uint32_t *out, gs_diag *d);

/* Texel fetch (for texture instructions that address texels by integer,
 * such as Maxwell's TLD): out[i] is the RGBA8888 return word of texel
 * (x[i], y[i]) of mip level level[i] for each lane i in mask, 0 for the
 * others; no wrap and no filter: a texel outside its level, or a level the
 * texture does not have, reads 0 (docs/v3d-units.md). GS_EFAULT for a
 * texel outside allocated memory. */
int tmu_fetch(const gs_mem *m, const tmu_texture *tex, int unit, unsigned n, uint32_t mask, const uint32_t *x,
              const uint32_t *y, const uint32_t *level, uint32_t *out, gs_diag *d);

/* Direct reads: out[i] is the 32-bit word at addr[i] & ~3 for each lane i
 * in mask, 0 for the others (n lanes). GS_EFAULT for a word outside
 * allocated memory, naming the address and the lane. */
int tmu_direct_read(const gs_mem *m, int unit, unsigned n, uint32_t mask, const uint32_t *addr, uint32_t *out,
                    gs_diag *d);

#endif
