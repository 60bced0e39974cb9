/* link.c — stage linkage from the SPH: IMAP and OMAP entries by attribute
 * address, the input and output buffer maps (BMAP), the default value of an
 * unmapped component and the PixelImap of a fragment input (gpusim/sph.h).
 *
 * Facts: NVIDIA's SPH description (the StoreReq rule), cla097sph.h, and
 * the attribute reads of yuzu and Ryujinx (defaults 0 and 1.0); the input
 * BMAP is gpusim's rule (docs/sph.md).
 */
#include <string.h>
#include "gpusim/sph.h"
#include "sph/table.h"

const sph_field *sph_find_map(int layout, int map, unsigned k, unsigned *elem) {
  const sph_field *f;
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) {
    unsigned n = f->at[layout].n;
    if (f->map == map && n && k >= f->k0 && k < f->k0 + n) {
      *elem = k - f->k0;
      return f;
    }
  }
  return NULL;
}

/* The map entry (IMAP or OMAP) of component k of s; 0 where none. */
static unsigned map_entry(const gs_sph *s, int map, unsigned k) {
  unsigned elem;
  const sph_field *f;
  if (k >= GS_SPH_ATTR_COUNT) return 0;
  f = sph_find_map(sph_layout(s->sph_type), map, k, &elem);
  return f ? sph_field_get(s, f, elem) : 0;
}

unsigned gs_sph_imap(const gs_sph *s, unsigned addr) { return map_entry(s, SPH_MAP_IMAP, addr >> 2); }

unsigned gs_sph_omap(const gs_sph *s, unsigned addr) { return map_entry(s, SPH_MAP_OMAP, addr >> 2); }

static void set_add(gs_sph_attr_set *set, unsigned k) { set->bits[k >> 5] |= 1u << (k & 31); }

void gs_sph_input_bmap(const gs_sph *cur, const gs_sph *prev, gs_sph_attr_set *out) {
  unsigned k;
  memset(out, 0, sizeof *out);
  for (k = 0; k < GS_SPH_ATTR_COUNT; k++)
    if (map_entry(cur, SPH_MAP_IMAP, k) && (!prev || map_entry(prev, SPH_MAP_OMAP, k)))
      set_add(out, k);
}

/* Whether component k lies in cur's StoreReq range, which NVIDIA's SPH
 * description says
 * geometry and pixel shaders ignore. Start > End means no range. */
static int in_store_req(const gs_sph *cur, unsigned k) {
  if (cur->shader_type == GS_SPH_GEOMETRY || cur->shader_type == GS_SPH_PIXEL) return 0;
  return cur->store_req_start <= k && k <= cur->store_req_end;
}

void gs_sph_output_bmap(const gs_sph *cur, const gs_sph *next, gs_sph_attr_set *out) {
  unsigned k;
  memset(out, 0, sizeof *out);
  for (k = 0; k < GS_SPH_ATTR_COUNT; k++)
    if (map_entry(cur, SPH_MAP_OMAP, k) &&
        ((next && map_entry(next, SPH_MAP_IMAP, k)) || in_store_req(cur, k)))
      set_add(out, k);
}

uint32_t gs_sph_attr_default(unsigned addr) {
  /* Only the vec4 slots have a fourth component that defaults to 1.0:
   * position, generics and colours (0x070-0x2BF), texture coordinates
   * (0x300-0x39F). Point size (0x06C), clip distance 3 and 7, VertexId and
   * everything outside the space read 0. */
  int vec4 = (addr >= 0x070 && addr < 0x2C0) || (addr >= 0x300 && addr < 0x3A0);
  return vec4 && (addr & 0xC) == 0xC ? 0x3F800000u : 0;
}

gs_pixel_imap gs_sph_pixel_imap(const gs_sph *s, unsigned addr) {
  unsigned elem, k = addr >> 2;
  const sph_field *f;
  if (s->sph_type != GS_SPH_TYPE_PS || k >= GS_SPH_ATTR_COUNT) return GS_PIXEL_IMAP_UNUSED;
  f = sph_find_map(1, SPH_MAP_IMAP, k, &elem);
  if (!f || f->at[1].width != 2) return GS_PIXEL_IMAP_UNUSED;
  return (gs_pixel_imap)(sph_field_get(s, f, elem) & 3);
}

int gs_sph_varying_modes(const gs_sph *s, uint8_t mode[32], uint16_t addr[32], unsigned *n, gs_diag *d) {
  memset(mode, 0, 32);
  *n = 0;
  if (s->sph_type != GS_SPH_TYPE_PS)
    return gs_diag_set(d, GS_EARG, "SPH of SphType %u is not a pixel shader's", s->sph_type);
  for (unsigned g = 0; g < 32; g++) {
    for (unsigned c = 0; c < 4; c++) {
      gs_pixel_imap m = gs_sph_pixel_imap(s, GS_SPH_ATTR_GENERIC(g) + 4 * c);
      if (m == GS_PIXEL_IMAP_UNUSED) continue;
      if (*n == 32)
        return gs_diag_set(d, GS_EARG, "SPH maps more than 32 fragment input components");
      if (addr) addr[*n] = (uint16_t)(GS_SPH_ATTR_GENERIC(g) + 4 * c);
      mode[(*n)++] = (uint8_t)m;
    }
  }
  return GS_OK;
}
