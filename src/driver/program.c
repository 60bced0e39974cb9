/* program.c — what the driver places in GPU memory for the long run:
 * render-target frame buffers, and programs with the header that carries
 * their SPH (include/gpusim/driver.h, "PROGRAMS AND THEIR SPH"). */
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "gpusim/driver.h"
#include "isa/isa.h"

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

int gs_drv_program_load_isa(gs_mem *m, unsigned isa, const uint8_t *code, size_t size, const gs_sph *sph,
                            gs_drv_program *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  const gs_isa *i = gs_isa_by_id(isa);
  if (!i) return gs_diag_set(d, GS_EARG, "program: instruction set %u is not one gpusim knows (%s)", isa, gs_isa_names());
  if (size == 0) return gs_diag_set(d, GS_EARG, "program: no instructions");
  if (size % i->code_align)
    return gs_diag_set(d, GS_EARG, "program: %zu bytes is not a whole number of %u-byte %s instructions", size,
                       i->code_align, i->title);
  if (size > 0x10000000u - GS_PROGRAM_HEADER) return gs_diag_set(d, GS_EARG, "program: %zu bytes is too large", size);
  uint32_t sph_words[GS_SPH_WORDS];
  int rc = gs_sph_encode(sph, sph_words, d);
  if (rc < 0) return rc;
  gs_addr block;
  if ((rc = gs_mem_alloc(m, GS_PROGRAM_HEADER + (uint32_t)size, 16, &block, d)) < 0) return rc;
  uint8_t *p = gs_mem_ptr(m, block, GS_PROGRAM_HEADER + (uint32_t)size);
  gs_program_header_write(p, i->id, (uint32_t)size, sph, sph_words);
  memcpy(p + GS_PROGRAM_HEADER, code, size);
  out->block = block;
  out->code = block + GS_PROGRAM_HEADER;
  out->ninstr = (uint32_t)(size / 8);
  out->isa = i->id;
  out->size = (uint32_t)size;
  return GS_OK;
}

int gs_drv_program_load(gs_mem *m, const uint64_t *words, size_t n, const gs_sph *sph,
                        gs_drv_program *out, gs_diag *d) {
  if (n > (0x10000000u - GS_PROGRAM_HEADER) / 8) {
    memset(out, 0, sizeof *out);
    return gs_diag_set(d, GS_EARG, "program: %zu instructions is too large", n);
  }
  uint8_t *code = malloc(n ? 8 * n : 1);
  if (!code) return gs_diag_set(d, GS_ENOMEM, "program: host out of memory");
  gs_put_le64s(code, words, n);
  int rc = gs_drv_program_load_isa(m, GS_ISA_NONE, code, 8 * n, sph, out, d);
  free(code);
  return rc;
}

void gs_drv_program_release(gs_mem *m, gs_drv_program *p) {
  if (p->block) gs_mem_release(m, p->block, NULL);
  memset(p, 0, sizeof *p);
}

int gs_drv_program_sph(const gs_mem *m, gs_addr code, gs_sph *out, gs_diag *d) {
  int rc = gs_program_sph(m, code, out, d);
  if (rc == 0) return gs_diag_set(d, GS_EINVAL, "0x%08x: the program has no driver header with an SPH", code);
  return rc < 0 ? rc : GS_OK;
}

_Static_assert(GS_DRV_PROGRAM_MAGIC == GS_PROGRAM_MAGIC && GS_DRV_PROGRAM_HEADER == GS_PROGRAM_HEADER,
               "gpusim/driver.h describes the program header of src/isa/isa.h");
