/* program.c — what the driver places in GPU memory for the long run:
 * render-target frame buffers, and programs with the header that carries
 * their SPH (include/gpusim/driver.h, "PROGRAMS AND THEIR SPH"). */
#include <string.h>
#include "gpusim/driver.h"

unsigned gs_drv_format_bytes(gs_drv_format f) { return f == GS_DRV_BGR565 ? 2u : f == GS_DRV_RGBA16F ? 8u : 4u; }

int gs_drv_target_alloc(gs_mem *m, gs_drv_target *t, gs_diag *d) {
  if (t->width < 1 || t->width > GS_DRV_MAX_SIDE || t->height < 1 || t->height > GS_DRV_MAX_SIDE)
    return gs_diag_set(d, GS_EARG, "render target: size %ux%u: each side must be 1..%d", t->width,
                       t->height, GS_DRV_MAX_SIDE);
  if (t->format != GS_DRV_RGBA8888 && t->format != GS_DRV_BGR565 && t->format != GS_DRV_RGBA16F)
    return gs_diag_set(d, GS_EARG, "render target: unknown colour format %d", (int)t->format);
  if (t->samples > 1 && t->samples != 4)
    return gs_diag_set(d, GS_EARG, "render target: %u samples: the VideoCore IV has 1 or 4", t->samples);
  uint32_t stride = t->width * gs_drv_format_bytes(t->format);
  gs_addr a;
  int rc = gs_mem_alloc(m, stride * t->height, 4096, &a, d);
  if (rc < 0) return rc;
  t->framebuffer = a;
  t->stride = stride;
  return GS_OK;
}

void gs_drv_target_release(gs_mem *m, gs_drv_target *t) {
  if (t->framebuffer) gs_mem_release(m, t->framebuffer, NULL);
  t->framebuffer = 0;
}

static void put_u32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int gs_drv_program_load(gs_mem *m, const uint64_t *words, size_t n, const gs_sph *sph,
                        gs_drv_program *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  if (n == 0) return gs_diag_set(d, GS_EARG, "program: no instructions");
  if (n > (0x10000000u - GS_DRV_PROGRAM_HEADER) / 8)
    return gs_diag_set(d, GS_EARG, "program: %zu instructions is too large", n);
  uint32_t sph_words[GS_SPH_WORDS];
  int rc = gs_sph_encode(sph, sph_words, d);
  if (rc < 0) return rc;
  uint32_t bytes = (uint32_t)n * 8;
  gs_addr block;
  if ((rc = gs_mem_alloc(m, GS_DRV_PROGRAM_HEADER + bytes, 16, &block, d)) < 0) return rc;
  uint8_t *p = gs_mem_ptr(m, block, GS_DRV_PROGRAM_HEADER + bytes);
  put_u32(p, GS_DRV_PROGRAM_MAGIC);
  put_u32(p + 4, bytes);
  put_u32(p + 8, sph->shader_type);
  put_u32(p + 12, 0);
  for (int i = 0; i < GS_SPH_WORDS; i++) put_u32(p + 16 + 4 * i, sph_words[i]);
  uint8_t *code = p + GS_DRV_PROGRAM_HEADER;
  for (size_t i = 0; i < n; i++) /* little-endian, low 32 bits first */
    for (int k = 0; k < 8; k++) code[8 * i + (size_t)k] = (uint8_t)(words[i] >> (8 * k));
  out->block = block;
  out->code = block + GS_DRV_PROGRAM_HEADER;
  out->ninstr = (uint32_t)n;
  return GS_OK;
}

void gs_drv_program_release(gs_mem *m, gs_drv_program *p) {
  if (p->block) gs_mem_release(m, p->block, NULL);
  memset(p, 0, sizeof *p);
}

int gs_drv_program_sph(const gs_mem *m, gs_addr code, gs_sph *out, gs_diag *d) {
  const uint8_t *h = code >= GS_DRV_PROGRAM_HEADER
                         ? gs_mem_ptr(m, code - GS_DRV_PROGRAM_HEADER, GS_DRV_PROGRAM_HEADER + 8)
                         : NULL;
  if (!h || get_u32(h) != GS_DRV_PROGRAM_MAGIC)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: the program has no driver header with an SPH", code);
  uint32_t w[GS_SPH_WORDS];
  for (int i = 0; i < GS_SPH_WORDS; i++) w[i] = get_u32(h + 16 + 4 * i);
  return gs_sph_decode(w, out, d);
}

int gs_drv_sph_varyings(const gs_sph *s, uint8_t mode[32], unsigned *n, gs_diag *d) {
  memset(mode, 0, 32);
  *n = 0;
  if (s->sph_type != GS_SPH_TYPE_PS)
    return gs_diag_set(d, GS_EARG, "SPH of SphType %u is not a pixel shader's", s->sph_type);
  for (unsigned g = 0; g < 32; g++) {
    for (unsigned c = 0; c < 4; c++) {
      gs_pixel_imap m = gs_sph_pixel_imap(s, GS_SPH_ATTR_GENERIC(g) + 4 * c);
      if (m == GS_PIXEL_IMAP_UNUSED) continue;
      if (*n == GS_DRV_MAX_VARYINGS)
        return gs_diag_set(d, GS_EARG, "SPH maps more than %d fragment input components", GS_DRV_MAX_VARYINGS);
      mode[(*n)++] = (uint8_t)m;
    }
  }
  return GS_OK;
}
