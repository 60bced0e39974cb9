/* vcd.c — attribute fetch into the VPM (see vcd.h). */
#include <string.h>
#include "v3d/v3d.h"
#include "v3d/vcd.h"

int vcd_fetch(gs_gpu *g, gs_vpm *vpm, unsigned row_base, const vcd_attr *attrs, unsigned nattrs, const uint32_t *indices,
              unsigned nverts, gs_diag *d) {
  if (nverts > 16) return gs_diag_set(d, GS_EARG, "VCD batch of %u vertices: at most 16", nverts);
  /* Check every read first, so that a fault leaves the VPM untouched. */
  for (unsigned a = 0; a < nattrs; a++) {
    if (attrs[a].vpm_offset % 4)
      return gs_diag_set(d, GS_EINVAL, "attribute %u: VPM offset %u is not a multiple of 4", attrs[a].index,
                         attrs[a].vpm_offset);
    for (unsigned v = 0; v < nverts; v++) {
      uint64_t at = (uint64_t)attrs[a].address + (uint64_t)indices[v] * attrs[a].stride;
      if (at > 0xffffffffu || !gs_mem_ptr(g->mem, (gs_addr)at, attrs[a].size))
        return gs_diag_set(d, GS_EFAULT,
                           "attribute %u of vertex %u: read of %u bytes at 0x%08llx (array 0x%08x, stride %u) "
                           "is outside allocated GPU memory",
                           attrs[a].index, indices[v], attrs[a].size, (unsigned long long)at, attrs[a].address, attrs[a].stride);
    }
  }
  for (unsigned a = 0; a < nattrs; a++) {
    unsigned words = (attrs[a].size + 3) / 4;
    for (unsigned v = 0; v < nverts; v++) {
      const uint8_t *src = gs_mem_ptr(g->mem, attrs[a].address + indices[v] * attrs[a].stride, attrs[a].size);
      for (unsigned k = 0; k < words; k++) {
        uint32_t w = 0;
        unsigned n = attrs[a].size - 4 * k < 4 ? attrs[a].size - 4 * k : 4;
        memcpy(&w, src + 4 * k, n);
        unsigned row = (row_base + attrs[a].vpm_offset / 4 + k) % VPM_ROWS;
        vpm->words[row * 16 + v] = w;
      }
    }
  }
  return GS_OK;
}
