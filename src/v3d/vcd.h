/* vcd.h — the vertex cache director's attribute fetch: it DMA-loads the
 * attributes of a batch of up to 16 vertices from the vertex arrays of a
 * GL shader state record into a VPM segment, vertex i in column i, each
 * attribute's bytes packed into consecutive 32-bit rows starting at row
 * (VPM offset / 4) (RG §7, Table 45; the JayStation posts). */
#ifndef GS_V3D_VCD_H
#define GS_V3D_VCD_H

#include <stdint.h>
#include "gpusim/diag.h"
#include "gpusim/mem.h"

struct gs_gpu;
struct gs_vpm;

typedef struct vcd_attr {
  gs_addr address;     /* base address of the array */
  uint32_t size;       /* bytes of the attribute (record field + 1) */
  uint32_t stride;     /* bytes between vertices */
  uint32_t vpm_offset; /* byte offset in the VPM segment (a multiple of 4) */
  uint32_t index;      /* the attribute's number in its shader record, for messages */
} vcd_attr;

/* Loads attributes attrs[0..nattrs) of the vertices indices[0..nverts)
 * (nverts <= 16) from g's memory into the rows of vpm starting at row_base:
 * vertex i, attribute
 * bytes b at row row_base + (vpm_offset + b) / 4, column i, byte b % 4; the
 * unused bytes of an attribute's last word are 0. A read outside allocated
 * memory is GS_EFAULT naming the attribute (its index field), the array,
 * the vertex index and the address, and nothing is written. */
int vcd_fetch(struct gs_gpu *g, struct gs_vpm *vpm, unsigned row_base, const vcd_attr *attrs, unsigned nattrs,
              const uint32_t *indices, unsigned nverts, gs_diag *d);

#endif
