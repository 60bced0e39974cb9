/* link.h — the QPU's fragment-program linker for blend, colour-mask and
 * stencil state: the link_fragment of the QPU's gs_isa (src/isa/isa.h);
 * docs/blending.md describes the code it generates. */
#ifndef GS_QPU_LINK_H
#define GS_QPU_LINK_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"

struct gs_drv_state;
struct gs_drv_fs_link_info;

/* Links the size bytes of QPU code (8-byte little-endian instructions, the
 * low 32 bits first) for state s into a malloc'ed *out of *out_size bytes,
 * as gs_drv_fs_link (gpusim/driver.h) describes: a state that needs no
 * variant gives a copy. info may be NULL (single-threaded, one sample, no
 * lines). GS_EARG for no code, a size that is not a multiple of 8, state
 * codes out of range or 2 or 3 samples; GS_EINVAL, naming the instruction,
 * for code that cannot be linked safely; GS_ENOMEM. */
int qpu_link_fragment(const uint8_t *code, size_t size, const struct gs_drv_state *s,
                      const struct gs_drv_fs_link_info *info, uint8_t **out, size_t *out_size, gs_diag *d);

#endif
