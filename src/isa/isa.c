/* isa.c — the registry of instruction sets and the program header
 * (src/isa/isa.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "isa/isa.h"
#include "v3d/vpm.h"

extern const gs_isa gs_isa_qpu;  /* isa/qpu/isa_qpu.c */
extern const gs_isa gs_isa_sass; /* isa/sass/isa_sass.c */
extern const gs_isa gs_isa_pica; /* isa/pica/isa_pica.c */
extern const gs_isa gs_isa_agx;  /* isa/agx/isa_agx.c */

static const gs_isa *const registry[] = {&gs_isa_qpu, &gs_isa_sass, &gs_isa_pica, &gs_isa_agx};
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

void gs_program_header_write(uint8_t *p, gs_isa_id isa, uint32_t code_bytes, const gs_sph *sph,
                             const uint32_t sph_words[GS_SPH_WORDS]) {
  gs_put_le32(p, GS_PROGRAM_MAGIC);
  gs_put_le32(p + 4, code_bytes);
  gs_put_le32(p + 8, sph->shader_type);
  gs_put_le32(p + 12, (uint32_t)isa);
  for (int i = 0; i < GS_SPH_WORDS; i++) gs_put_le32(p + 16 + 4 * i, sph_words[i]);
}

int gs_program_header_read(const gs_mem *m, gs_addr code, gs_program_header *h, gs_diag *d) {
  const uint8_t *p = code >= GS_PROGRAM_HEADER ? gs_mem_ptr(m, code - GS_PROGRAM_HEADER, GS_PROGRAM_HEADER) : NULL;
  if (!p || gs_get_le32(p) != GS_PROGRAM_MAGIC) return 0;
  uint32_t id = gs_get_le32(p + 12);
  if (!gs_isa_by_id(id))
    return gs_diag_set(d, GS_EINVAL, "0x%08x: the program header names instruction set %u, which gpusim does not "
                       "know (it knows %s)", code, id, gs_isa_names());
  h->isa = (gs_isa_id)id;
  h->code_bytes = gs_get_le32(p + 4);
  for (int i = 0; i < GS_SPH_WORDS; i++) h->sph_words[i] = gs_get_le32(p + 16 + 4 * i);
  return 1;
}

int gs_program_sph(const gs_mem *m, gs_addr code, gs_sph *out, gs_diag *d) {
  gs_program_header h;
  int rc = gs_program_header_read(m, code, &h, d);
  if (rc <= 0) return rc;
  return (rc = gs_sph_decode(h.sph_words, out, d)) < 0 ? rc : 1;
}

/* ---- gates and exceptions ------------------------------------------------------ */

uint32_t gs_sph_gates(const gs_sph *s) {
  uint32_t g = (s->does_global_store ? GS_GATE_GLOBAL_STORE : 0) | (s->does_load_or_store ? GS_GATE_LOAD_STORE : 0);
  if (s->sph_type != GS_SPH_TYPE_PS) return g | GS_GATE_KILL | GS_GATE_DEPTH | GS_GATE_SAMPLE_MASK | GS_GATE_COLOUR;
  uint32_t target0 = 0;
  for (int c = 0; c < 4; c++) target0 |= s->omap_target[0][c];
  return g | (s->kills_pixels ? GS_GATE_KILL : 0) | (s->omap_depth ? GS_GATE_DEPTH : 0) |
         (s->omap_sample_mask ? GS_GATE_SAMPLE_MASK : 0) | (target0 ? GS_GATE_COLOUR : 0);
}

void gs_isa_report_exception(gs_isa_report *r, const char *fmt, ...) {
  if (!r) return;
  char msg[sizeof r->first];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->exceptions++ == 0 || strcmp(msg, r->first) < 0) memcpy(r->first, msg, sizeof msg);
}

void gs_isa_report_merge(gs_isa_report *into, gs_isa_report *from) {
  if (!from->exceptions) return;
  if (!into->exceptions || strcmp(from->first, into->first) < 0) memcpy(into->first, from->first, sizeof into->first);
  into->exceptions += from->exceptions;
  memset(from, 0, sizeof *from);
}

/* x in 12.4 (x in 1/16 pixel), rounded to nearest and saturated. */
static uint32_t fixed_12_4(float x) {
  if (!(x == x)) return 0;
  float r = x < 0 ? x - 0.5f : x + 0.5f;
  if (r >= 32767.0f) return 0x7fff;
  if (r <= -32768.0f) return 0x8000;
  return (uint32_t)(int32_t)r & 0xffffu;
}

static uint32_t f32_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

void gs_vertex_io_put(const gs_vertex_io *io, unsigned lane, const float pos[4], uint32_t point_size,
                      const uint32_t *vary, unsigned nvary) {
  const float *vp = io->viewport;
  uint32_t *out = io->vpm->words;
  float rw = 1.0f / pos[3];
  uint32_t xs = fixed_12_4(pos[0] * rw * vp[0]), ys = fixed_12_4(pos[1] * rw * vp[1]);
  float zs = pos[2] * rw * vp[2] + vp[3];
  unsigned row = 0, rows = io->out_rows;
#define PUT(v) do { if (row < rows) out[(io->out_row + row) * 16 + lane] = (v); row++; } while (0)
  if (io->stage == GS_STAGE_COORDINATE)
    for (unsigned c = 0; c < 4; c++) PUT(f32_bits(pos[c]));
  PUT(ys << 16 | xs);
  PUT(f32_bits(zs));
  PUT(f32_bits(rw));
  if (io->point_size) PUT(point_size);
  if (io->stage == GS_STAGE_VERTEX)
    for (unsigned k = 0; k < nvary && row < rows; k++) PUT(vary[k]);
#undef PUT
}
