/* ptb_assemble.c — primitive assembly for the seven primitive modes of the
 * Indexed Primitive List (32) and Vertex Array Primitives (33) records
 * (RG Table 38). Primitive k is computed directly from k, so the
 * binner needs no assembly state and any primitive can be re-derived. The
 * vertex order within a primitive follows GL, which is also the order the
 * compressed triangle codings share vertices in (RG Tables 39-43 coding 0:
 * a strip alternates sharing modes 0 and 1, a fan uses mode 1).
 */
#include <stddef.h>
#include "v3d/ptb.h"

unsigned ptb_mode_vertices(ptb_mode mode) {
  switch (mode) {
  case PTB_POINTS: return 1;
  case PTB_LINES:
  case PTB_LINE_LOOP:
  case PTB_LINE_STRIP: return 2;
  case PTB_TRIANGLES:
  case PTB_TRIANGLE_STRIP:
  case PTB_TRIANGLE_FAN: return 3;
  }
  return 0;
}

uint32_t ptb_prim_count(ptb_mode mode, uint32_t count) {
  switch (mode) {
  case PTB_POINTS: return count;
  case PTB_LINES: return count / 2;
  case PTB_LINE_LOOP: return count >= 2 ? count : 0; /* n-1 segments plus the closing one */
  case PTB_LINE_STRIP: return count >= 2 ? count - 1 : 0;
  case PTB_TRIANGLES: return count / 3;
  case PTB_TRIANGLE_STRIP:
  case PTB_TRIANGLE_FAN: return count >= 3 ? count - 2 : 0;
  }
  return 0;
}

/* The original vertex index at position `pos` of the draw's vertex
 * sequence. Indices are little-endian whatever the host's byte order. */
static uint32_t index_at(const ptb_draw *d, uint32_t pos) {
  switch (d->index_type) {
  case PTB_INDEX_8: return d->indices[pos];
  case PTB_INDEX_16: return (uint32_t)d->indices[2 * (size_t)pos] | (uint32_t)d->indices[2 * (size_t)pos + 1] << 8;
  case PTB_INDEX_NONE: break;
  }
  return d->first + pos;
}

/* The positions in the vertex sequence of primitive k's vertices. */
static unsigned positions(ptb_mode mode, uint32_t count, uint32_t k, uint32_t pos[3]) {
  switch (mode) {
  case PTB_POINTS: pos[0] = k; return 1;
  case PTB_LINES: pos[0] = 2 * k; pos[1] = 2 * k + 1; return 2;
  case PTB_LINE_LOOP: pos[0] = k; pos[1] = k + 1 < count ? k + 1 : 0; return 2;
  case PTB_LINE_STRIP: pos[0] = k; pos[1] = k + 1; return 2;
  case PTB_TRIANGLES: pos[0] = 3 * k; pos[1] = 3 * k + 1; pos[2] = 3 * k + 2; return 3;
  case PTB_TRIANGLE_STRIP:
    /* Odd triangles swap their first two vertices so every triangle keeps
     * the orientation of the first; the newest vertex stays last. */
    pos[0] = (k & 1) ? k + 1 : k;
    pos[1] = (k & 1) ? k : k + 1;
    pos[2] = k + 2;
    return 3;
  case PTB_TRIANGLE_FAN: pos[0] = 0; pos[1] = k + 1; pos[2] = k + 2; return 3;
  }
  return 0;
}

unsigned ptb_assemble(const ptb_draw *d, uint32_t k, uint32_t idx[3]) {
  if (d->index_type != PTB_INDEX_NONE && d->index_type != PTB_INDEX_8 && d->index_type != PTB_INDEX_16)
    return 0;
  if (d->index_type != PTB_INDEX_NONE && d->indices == NULL)
    return 0;
  if (k >= ptb_prim_count(d->mode, d->count))
    return 0;
  uint32_t pos[3];
  unsigned n = positions(d->mode, d->count, k, pos);
  for (unsigned i = 0; i < n; i++)
    idx[i] = index_at(d, pos[i]);
  return n;
}
