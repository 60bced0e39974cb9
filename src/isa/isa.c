/* isa.c — the registry of instruction sets and the program header
 * (src/isa/isa.h). */
#include <stdlib.h>
#include <string.h>
#include "isa/isa.h"

extern const gs_isa gs_isa_qpu; /* isa/qpu/isa_qpu.c */

static const gs_isa *const registry[] = {&gs_isa_qpu};
#define NREGISTRY (sizeof registry / sizeof registry[0])

const gs_isa *gs_isa_at(unsigned n) { return n < NREGISTRY ? registry[n] : NULL; }

const gs_isa *gs_isa_by_name(const char *name) {
  for (unsigned i = 0; i < NREGISTRY; i++)
    if (name && strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

const gs_isa *gs_isa_by_id(unsigned id) {
  if (id == GS_ISA_NONE) id = GS_ISA_QPU;
  for (unsigned i = 0; i < NREGISTRY; i++)
    if ((unsigned)registry[i]->id == id) return registry[i];
  return NULL;
}

const char *gs_isa_names(void) {
  static char names[64];
  if (!names[0]) {
    size_t n = 0;
    for (unsigned i = 0; i < NREGISTRY && n + 8 < sizeof names; i++) {
      size_t k = strlen(registry[i]->name);
      if (i) memcpy(names + n, ", ", 2), n += 2;
      memcpy(names + n, registry[i]->name, k);
      n += k;
    }
    names[n] = 0;
  }
  return names;
}

void gs_isa_binary_free(gs_isa_binary *b) {
  free(b->bytes);
  free(b->lines);
  memset(b, 0, sizeof *b);
}

uint32_t gs_isa_binary_line(const gs_isa_binary *b, uint32_t off) {
  size_t lo = 0, hi = b->nlines; /* the last entry at or before off */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (b->lines[mid].offset <= off) lo = mid + 1;
    else hi = mid;
  }
  return lo ? b->lines[lo - 1].line : 0;
}

/* ---- the program header ---------------------------------------------------- */

static void put_u32(uint8_t *p, uint32_t v) {
  for (int k = 0; k < 4; k++) p[k] = (uint8_t)(v >> (8 * k));
}

static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void gs_program_header_write(uint8_t *p, gs_isa_id isa, uint32_t code_bytes, const gs_sph *sph,
                             const uint32_t sph_words[GS_SPH_WORDS]) {
  put_u32(p, GS_PROGRAM_MAGIC);
  put_u32(p + 4, code_bytes);
  put_u32(p + 8, sph->shader_type);
  put_u32(p + 12, (uint32_t)isa);
  for (int i = 0; i < GS_SPH_WORDS; i++) put_u32(p + 16 + 4 * i, sph_words[i]);
}

int gs_program_header_read(const gs_mem *m, gs_addr code, gs_program_header *h, gs_diag *d) {
  const uint8_t *p = code >= GS_PROGRAM_HEADER ? gs_mem_ptr(m, code - GS_PROGRAM_HEADER, GS_PROGRAM_HEADER) : NULL;
  if (!p || get_u32(p) != GS_PROGRAM_MAGIC) return 0;
  uint32_t id = get_u32(p + 12);
  if (!gs_isa_by_id(id))
    return gs_diag_set(d, GS_EINVAL, "0x%08x: the program header names instruction set %u, which gpusim does not "
                       "know (it knows %s)", code, id, gs_isa_names());
  h->isa = (gs_isa_id)id;
  h->code_bytes = get_u32(p + 4);
  for (int i = 0; i < GS_SPH_WORDS; i++) h->sph_words[i] = get_u32(p + 16 + 4 * i);
  return 1;
}

const gs_isa *gs_isa_of_code(const gs_mem *m, gs_addr code, gs_diag *d) {
  gs_program_header h;
  int rc = gs_program_header_read(m, code, &h, d);
  if (rc < 0) return NULL;
  return gs_isa_by_id(rc ? h.isa : GS_ISA_NONE);
}
