/* variant.h — the driver's cache of fragment-program variants: one per
 * (program, blend, colour mask, stencil) in use, linked by the link_fragment
 * of the program's instruction set (src/isa/isa.h: the ISA its header names)
 * and loaded with the original's SPH, as Mesa's vc4 driver keeps a
 * compiled shader per key. Variants live as long as the driver (a frame's
 * lists point to them); when many pile up, those the current frame does not
 * use are released.
 */
#ifndef GS_DRIVER_VARIANT_H
#define GS_DRIVER_VARIANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "gpusim/driver.h"

#define DRV_VARIANT_KEY 15

typedef struct drv_variant {
  gs_addr orig;            /* the program's code address */
  uint8_t *code;           /* its code when linked: a program reloaded at the same address differs */
  size_t size;             /* bytes */
  uint8_t header[GS_DRV_PROGRAM_HEADER]; /* and its header (the SPH the variant copied) */
  uint32_t key[DRV_VARIANT_KEY];
  gs_drv_program prog;     /* the variant */
  uint32_t frame;          /* the last frame that used it */
} drv_variant;

typedef struct drv_variants {
  gs_mem *mem;
  drv_variant *v;
  size_t n, cap;
} drv_variants;

void drv_variants_init(drv_variants *c, gs_mem *m);
/* Releases every variant. */
void drv_variants_free(drv_variants *c);
/* *out = the code address of the variant of sh's fragment program for s
 * and a target of `samples` (the program's own when s needs none), linking and loading it on first
 * use in frame `frame` (sh->fs_lines, if any, name lines in messages). GS_EARG when the program has no driver header (its
 * length is unknown) or does not link, GS_ENOMEM when memory runs out. */
int drv_variant_get(drv_variants *c, const gs_drv_shader *sh, const gs_drv_state *s, unsigned samples,
                    uint32_t frame, gs_addr *out, gs_diag *d);

#endif
