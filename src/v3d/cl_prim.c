/* cl_prim.c — compressed primitive lists (RG Tables
 * 39-43): the codings 0-3 of points, lines/RHTs and triangles with 16- or
 * 24-bit indices, and of triangles and RHTs with XY coordinates; the escape
 * (128), the absolute prefix (129) and the relative branch (130).
 *
 * Each family is one encode and one decode function that read the same
 * bit layout; the layouts are written once, as the shift constants below.
 * The choices no source settles (docs/control-lists.md): the previous
 * primitive is all zeros at the start of a list and carries across relative
 * branches; the first primitive of a list is always coded absolutely
 * (coding 2 or 3) so that nothing depends on that start state; bits 3:2 of
 * index coding 1 are written 0 and ignored; in the split 7-bit X delta
 * "[7:2],[8]" bit 8 is the least significant bit (the only reading that
 * gives RG's range -62..63 with 64 and 65 reserved); a relative branch
 * counts 32-byte units from the 32-byte boundary at or below its code byte;
 * decoded indices and coordinates wrap at their width.
 */
#include <string.h>
#include "v3d/cl.h"

#define ITEM_BUDGET (1u << 24)

/* ---- bits ----------------------------------------------------------------- */

static void put_le(uint8_t *p, uint64_t v, int n) {
  for (int i = 0; i < n; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* Sign-extends the low `bits` bits of v. */
static int32_t sext(uint64_t v, int bits) {
  uint32_t m = (uint32_t)1 << (bits - 1);
  uint32_t x = (uint32_t)(v & ((UINT64_C(1) << bits) - 1));
  return (int32_t)((x ^ m) - m);
}

static int in_range(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v <= hi; }

/* The split 7-bit X delta of the XY codings: bits 7:2 hold its upper six
 * bits, bit 8 its lowest bit. Values -64 and -63 would make the first byte
 * 128..130, so they are reserved. */
static uint64_t split7_put(int32_t v) {
  uint32_t u = (uint32_t)v & 127u;
  return (uint64_t)(u >> 1) << 2 | (uint64_t)(u & 1u) << 8;
}
static int32_t split7_get(uint64_t w) { return sext(((w >> 2) & 63u) << 1 | ((w >> 8) & 1u), 7); }

static int32_t xy_x(uint32_t v) { return sext(v, 16); }
static int32_t xy_y(uint32_t v) { return sext(v >> 16, 16); }
static uint32_t xy_make(int32_t x, int32_t y) { return GS_CL_XY(x, y); }

/* ---- formats -------------------------------------------------------------- */

/* Why f has no coding table, or NULL if it has one. */
static const char *format_problem(const gs_cl_prim_format *f) {
  if (f->data == 0) return "no Primitive List Format (56) precedes the compressed list";
  if (f->data > GS_CL_DATA_XY) return "reserved primitive list data type";
  if (f->type > GS_CL_PRIM_RHTS) return "reserved primitive list type";
  if (f->data == GS_CL_DATA_XY && (f->type == GS_CL_PRIM_POINTS || f->type == GS_CL_PRIM_LINES))
    return "points and lines have no XY coordinate coding";
  return NULL;
}

static int nverts(const gs_cl_prim_format *f) {
  static const int n[4] = {1, 2, 3, 2};
  return n[f->type & 3];
}

static int index_bytes(const gs_cl_prim_format *f) { return f->data == GS_CL_DATA_INDEX24 ? 3 : 2; }

int gs_cl_prim_vertices(const gs_cl_prim_format *f, gs_diag *d) {
  const char *why = format_problem(f);
  if (why) return gs_diag_set(d, GS_EINVAL, "%s (type %u, data %u)", why, f->type, f->data);
  return nverts(f);
}

/* ---- triangles with indices (RG Table 39) --------------------------------
 * 0: [1:0] sharing, [7:2] idx2 - prev idx2            1 byte
 * 1: [1:0]=3, [3:2]=0, [7:4] [11:8] [15:12] deltas vs prev idx0..2   2
 * 2: [3:0]=15, [9:4] idx1-idx0, [15:10] idx2-idx0, idx0 from bit 16  4 [5]
 * 3: 129, idx0, idx1, idx2                            7 [10] */

/* The (idx0, idx1) pair a triangle shares with the previous one, by
 * sharing code: 0 = prev (2,1), 1 = prev (0,2), 2 = prev (1,0). */
static void tri_shared(const gs_cl_prim *prev, int s, uint32_t *a, uint32_t *b) {
  static const int pick[3][2] = {{2, 1}, {0, 2}, {1, 0}};
  *a = prev->v[pick[s][0]];
  *b = prev->v[pick[s][1]];
}

static int tri_index_encode(const gs_cl_prim_format *f, const gs_cl_prim *prev, const gs_cl_prim *p,
                            uint8_t *out, int *coding) {
  int ib = index_bytes(f);
  int64_t v0 = p->v[0], v1 = p->v[1], v2 = p->v[2];
  if (prev) {
    for (int s = 0; s < 3; s++) {
      uint32_t a, b;
      tri_shared(prev, s, &a, &b);
      int64_t dv = v2 - (int64_t)prev->v[2];
      if (a == p->v[0] && b == p->v[1] && in_range(dv, -31, 31)) {
        out[0] = (uint8_t)(((uint32_t)dv & 63u) << 2 | (uint32_t)s);
        *coding = 0;
        return 1;
      }
    }
    int64_t d0 = v0 - prev->v[0], d1 = v1 - prev->v[1], d2 = v2 - prev->v[2];
    if (in_range(d0, -8, 7) && in_range(d1, -8, 7) && in_range(d2, -8, 7)) {
      put_le(out, 3u | ((uint64_t)d0 & 15u) << 4 | ((uint64_t)d1 & 15u) << 8 | ((uint64_t)d2 & 15u) << 12, 2);
      *coding = 1;
      return 2;
    }
  }
  int64_t e1 = v1 - v0, e2 = v2 - v0;
  if (in_range(e1, -32, 31) && in_range(e2, -32, 31)) {
    put_le(out, 15u | ((uint64_t)e1 & 63u) << 4 | ((uint64_t)e2 & 63u) << 10 | (uint64_t)v0 << 16, 2 + ib);
    *coding = 2;
    return 2 + ib;
  }
  out[0] = GS_CL_PRIM_ABSOLUTE;
  for (int i = 0; i < 3; i++) put_le(out + 1 + ib * i, p->v[i], ib);
  *coding = 3;
  return 1 + 3 * ib;
}

/* Size of the triangle-index item whose first byte is b0 (not 128..130). */
static int tri_index_size(const gs_cl_prim_format *f, uint8_t b0, int *coding) {
  int ib = index_bytes(f);
  if (b0 == GS_CL_PRIM_ABSOLUTE) return *coding = 3, 1 + 3 * ib;
  if ((b0 & 3) != 3) return *coding = 0, 1;
  if ((b0 & 12) != 12) return *coding = 1, 2;
  return *coding = 2, 2 + ib;
}

static void tri_index_decode(const gs_cl_prim_format *f, int coding, const uint8_t *b,
                             const gs_cl_prim *prev, gs_cl_prim *p) {
  int ib = index_bytes(f);
  uint32_t mask = ib == 3 ? 0xffffffu : 0xffffu;
  uint64_t w = get_le(b, coding == 3 ? 1 : coding == 2 ? 2 + ib : coding == 1 ? 2 : 1);
  switch (coding) {
  case 0:
    tri_shared(prev, (int)(w & 3), &p->v[0], &p->v[1]);
    p->v[2] = (prev->v[2] + (uint32_t)sext(w >> 2, 6)) & mask;
    break;
  case 1:
    p->v[0] = (prev->v[0] + (uint32_t)sext(w >> 4, 4)) & mask;
    p->v[1] = (prev->v[1] + (uint32_t)sext(w >> 8, 4)) & mask;
    p->v[2] = (prev->v[2] + (uint32_t)sext(w >> 12, 4)) & mask;
    break;
  case 2:
    p->v[0] = (uint32_t)(w >> 16) & mask;
    p->v[1] = (p->v[0] + (uint32_t)sext(w >> 4, 6)) & mask;
    p->v[2] = (p->v[0] + (uint32_t)sext(w >> 10, 6)) & mask;
    break;
  default:
    for (int i = 0; i < 3; i++) p->v[i] = (uint32_t)get_le(b + 1 + ib * i, ib);
  }
}

/* ---- lines and RHTs with indices (RG Table 40) ---------------------------
 * 0: [1:0] 0 = idx0 is prev idx1, 1 = prev idx0; [7:2] idx1 - prev idx1   1
 * 1: [1:0]=3, [3:2]=0, [7:4] idx0 - prev idx0, [11:8] idx1 - prev idx1    2
 * 2: [1:0]=2, [7:2] idx1 - idx0 (-32 reserved: 130), idx0 from bit 8  3 [4]
 * 3: 129, idx0, idx1                                                  5 [7] */

static int line_index_encode(const gs_cl_prim_format *f, const gs_cl_prim *prev, const gs_cl_prim *p,
                             uint8_t *out, int *coding) {
  int ib = index_bytes(f);
  int64_t v0 = p->v[0], v1 = p->v[1];
  if (prev) {
    int64_t dv = v1 - (int64_t)prev->v[1];
    for (int s = 0; s < 2; s++) {
      if (p->v[0] == prev->v[s ? 0 : 1] && in_range(dv, -31, 31)) {
        out[0] = (uint8_t)(((uint32_t)dv & 63u) << 2 | (uint32_t)s);
        *coding = 0;
        return 1;
      }
    }
    int64_t d0 = v0 - prev->v[0];
    if (in_range(d0, -8, 7) && in_range(dv, -8, 7)) {
      put_le(out, 3u | ((uint64_t)d0 & 15u) << 4 | ((uint64_t)dv & 15u) << 8, 2);
      *coding = 1;
      return 2;
    }
  }
  int64_t e = v1 - v0;
  if (in_range(e, -31, 31)) {
    put_le(out, 2u | ((uint64_t)e & 63u) << 2 | (uint64_t)v0 << 8, 1 + ib);
    *coding = 2;
    return 1 + ib;
  }
  out[0] = GS_CL_PRIM_ABSOLUTE;
  put_le(out + 1, p->v[0], ib);
  put_le(out + 1 + ib, p->v[1], ib);
  *coding = 3;
  return 1 + 2 * ib;
}

/* Returns the size, or 0 for a reserved code. */
static int line_index_size(const gs_cl_prim_format *f, uint8_t b0, int *coding) {
  int ib = index_bytes(f);
  if (b0 == GS_CL_PRIM_ABSOLUTE) return *coding = 3, 1 + 2 * ib;
  switch (b0 & 3) {
  case 0:
  case 1: return *coding = 0, 1;
  case 2: return *coding = 2, 1 + ib;
  default: return *coding = 1, (b0 & 12) == 12 ? 0 : 2;
  }
}

static void line_index_decode(const gs_cl_prim_format *f, int coding, const uint8_t *b,
                              const gs_cl_prim *prev, gs_cl_prim *p) {
  int ib = index_bytes(f);
  uint32_t mask = ib == 3 ? 0xffffffu : 0xffffu;
  uint64_t w = get_le(b, coding == 2 ? 1 + ib : coding == 1 ? 2 : 1);
  switch (coding) {
  case 0:
    p->v[0] = prev->v[(w & 1) ? 0 : 1];
    p->v[1] = (prev->v[1] + (uint32_t)sext(w >> 2, 6)) & mask;
    break;
  case 1:
    p->v[0] = (prev->v[0] + (uint32_t)sext(w >> 4, 4)) & mask;
    p->v[1] = (prev->v[1] + (uint32_t)sext(w >> 8, 4)) & mask;
    break;
  case 2:
    p->v[0] = (uint32_t)(w >> 8) & mask;
    p->v[1] = (p->v[0] + (uint32_t)sext(w >> 2, 6)) & mask;
    break;
  default:
    p->v[0] = (uint32_t)get_le(b + 1, ib);
    p->v[1] = (uint32_t)get_le(b + 1 + ib, ib);
  }
}

/* ---- points with indices (RG Table 41) -----------------------------------
 * 0: [1:0] 0 or 1, [7:2] idx - prev idx              1
 * 1: [1:0]=3, [15:2] idx - prev idx                  2
 * 2: [1:0]=2 run length: not implemented in hardware (reserved)
 * 3: 129, idx                                        3 [4] */

static int point_index_encode(const gs_cl_prim_format *f, const gs_cl_prim *prev, const gs_cl_prim *p,
                              uint8_t *out, int *coding) {
  int ib = index_bytes(f);
  if (prev) {
    int64_t dv = (int64_t)p->v[0] - prev->v[0];
    if (in_range(dv, -31, 31)) {
      out[0] = (uint8_t)(((uint32_t)dv & 63u) << 2);
      *coding = 0;
      return 1;
    }
    if (in_range(dv, -8192, 8191)) {
      put_le(out, 3u | ((uint64_t)dv & 0x3fffu) << 2, 2);
      *coding = 1;
      return 2;
    }
  }
  out[0] = GS_CL_PRIM_ABSOLUTE;
  put_le(out + 1, p->v[0], ib);
  *coding = 3;
  return 1 + ib;
}

static int point_index_size(const gs_cl_prim_format *f, uint8_t b0, int *coding) {
  if (b0 == GS_CL_PRIM_ABSOLUTE) return *coding = 3, 1 + index_bytes(f);
  switch (b0 & 3) {
  case 0:
  case 1: return *coding = 0, 1;
  case 3: return *coding = 1, 2;
  default: return *coding = 2, 0;
  }
}

static void point_index_decode(const gs_cl_prim_format *f, int coding, const uint8_t *b,
                               const gs_cl_prim *prev, gs_cl_prim *p) {
  int ib = index_bytes(f);
  uint32_t mask = ib == 3 ? 0xffffffu : 0xffffu;
  if (coding == 3) p->v[0] = (uint32_t)get_le(b + 1, ib);
  else if (coding == 1) p->v[0] = (prev->v[0] + (uint32_t)sext(get_le(b, 2) >> 2, 14)) & mask;
  else p->v[0] = (prev->v[0] + (uint32_t)sext(b[0] >> 2, 6)) & mask;
}

/* ---- triangles with XY coordinates (RG Table 42) -------------------------
 * 0: [1:0] sharing, [7:2]+[8] x2 - prev x2 (-62..63), [15:9] y2 - prev y2   2
 * 1: [1:0]=3, [3:2] sharing, [13:4] x2 - prev x2, [23:14] y2 - prev y2     3
 * 2: [3:0]=15, [10:4] x1-x0, [17:11] y1-y0, [24:18] x2-x0, [31:25] y2-y0,
 *    [47:32] x0, [63:48] y0                                                 8
 * 3: 129, three XY words                                                    13 */

static int tri_xy_encode(const gs_cl_prim *prev, const gs_cl_prim *p, uint8_t *out, int *coding) {
  if (prev) {
    int32_t dx = xy_x(p->v[2]) - xy_x(prev->v[2]), dy = xy_y(p->v[2]) - xy_y(prev->v[2]);
    for (int c = 0; c < 2; c++) {
      for (int s = 0; s < 3; s++) {
        uint32_t a, b;
        tri_shared(prev, s, &a, &b);
        if (a != p->v[0] || b != p->v[1]) continue;
        if (c == 0 && in_range(dx, -62, 63) && in_range(dy, -64, 63)) {
          put_le(out, (uint64_t)s | split7_put(dx) | ((uint64_t)dy & 127u) << 9, 2);
          *coding = 0;
          return 2;
        }
        if (c == 1 && in_range(dx, -512, 511) && in_range(dy, -512, 511)) {
          put_le(out, 3u | (uint64_t)s << 2 | ((uint64_t)dx & 1023u) << 4 | ((uint64_t)dy & 1023u) << 14, 3);
          *coding = 1;
          return 3;
        }
      }
    }
  }
  int32_t x0 = xy_x(p->v[0]), y0 = xy_y(p->v[0]);
  int32_t e[4] = {xy_x(p->v[1]) - x0, xy_y(p->v[1]) - y0, xy_x(p->v[2]) - x0, xy_y(p->v[2]) - y0};
  if (in_range(e[0], -64, 63) && in_range(e[1], -64, 63) && in_range(e[2], -64, 63) && in_range(e[3], -64, 63)) {
    uint64_t w = 15u;
    for (int i = 0; i < 4; i++) w |= ((uint64_t)e[i] & 127u) << (4 + 7 * i);
    w |= (uint64_t)p->v[0] << 32;  /* x0 in 47:32, y0 in 63:48 */
    put_le(out, w, 8);
    *coding = 2;
    return 8;
  }
  out[0] = GS_CL_PRIM_ABSOLUTE;
  for (int i = 0; i < 3; i++) put_le(out + 1 + 4 * i, p->v[i], 4);
  *coding = 3;
  return 13;
}

static int tri_xy_size(uint8_t b0, int *coding) {
  if (b0 == GS_CL_PRIM_ABSOLUTE) return *coding = 3, 13;
  if ((b0 & 3) != 3) return *coding = 0, 2;
  if ((b0 & 12) != 12) return *coding = 1, 3;
  return *coding = 2, 8;
}

static void tri_xy_decode(int coding, const uint8_t *b, const gs_cl_prim *prev, gs_cl_prim *p) {
  uint64_t w;
  switch (coding) {
  case 0:
  case 1:
    w = get_le(b, coding == 0 ? 2 : 3);
    tri_shared(prev, (int)(coding == 0 ? w & 3 : (w >> 2) & 3), &p->v[0], &p->v[1]);
    if (coding == 0)
      p->v[2] = xy_make(xy_x(prev->v[2]) + split7_get(w), xy_y(prev->v[2]) + sext(w >> 9, 7));
    else
      p->v[2] = xy_make(xy_x(prev->v[2]) + sext(w >> 4, 10), xy_y(prev->v[2]) + sext(w >> 14, 10));
    break;
  case 2: {
    w = get_le(b, 8);
    int32_t x0 = sext(w >> 32, 16), y0 = sext(w >> 48, 16);
    p->v[0] = xy_make(x0, y0);
    p->v[1] = xy_make(x0 + sext(w >> 4, 7), y0 + sext(w >> 11, 7));
    p->v[2] = xy_make(x0 + sext(w >> 18, 7), y0 + sext(w >> 25, 7));
    break;
  }
  default:
    for (int i = 0; i < 3; i++) p->v[i] = (uint32_t)get_le(b + 1 + 4 * i, 4);
  }
}

/* ---- RHTs with XY coordinates (RG Table 43) ------------------------------
 * 0: [1:0] 0 = v0 is prev v1, 1 = prev v0; [7:2]+[8] x1 - prev x1,
 *    [15:9] y1 - prev y1                                                   2
 * 1: [1:0]=3, [3:2] 0 or 2 = prev v1, 1 = prev v0 (3 reserved),
 *    [13:4] x1 - prev x1, [23:14] y1 - prev y1                             3
 * 2: [1:0]=2, [7:2]+[8] x1-x0, [15:9] y1-y0, [31:16] x0, [47:32] y0        6
 * 3: 129, two XY words                                                     9 */

static int rht_xy_encode(const gs_cl_prim *prev, const gs_cl_prim *p, uint8_t *out, int *coding) {
  if (prev) {
    int32_t dx = xy_x(p->v[1]) - xy_x(prev->v[1]), dy = xy_y(p->v[1]) - xy_y(prev->v[1]);
    for (int c = 0; c < 2; c++) {
      for (int s = 0; s < 2; s++) {
        if (p->v[0] != prev->v[s ? 0 : 1]) continue;
        if (c == 0 && in_range(dx, -62, 63) && in_range(dy, -64, 63)) {
          put_le(out, (uint64_t)s | split7_put(dx) | ((uint64_t)dy & 127u) << 9, 2);
          *coding = 0;
          return 2;
        }
        if (c == 1 && in_range(dx, -512, 511) && in_range(dy, -512, 511)) {
          put_le(out, 3u | (uint64_t)s << 2 | ((uint64_t)dx & 1023u) << 4 | ((uint64_t)dy & 1023u) << 14, 3);
          *coding = 1;
          return 3;
        }
      }
    }
  }
  int32_t ex = xy_x(p->v[1]) - xy_x(p->v[0]), ey = xy_y(p->v[1]) - xy_y(p->v[0]);
  if (in_range(ex, -62, 63) && in_range(ey, -64, 63)) {
    put_le(out, 2u | split7_put(ex) | ((uint64_t)ey & 127u) << 9 | (uint64_t)p->v[0] << 16, 6);
    *coding = 2;
    return 6;
  }
  out[0] = GS_CL_PRIM_ABSOLUTE;
  put_le(out + 1, p->v[0], 4);
  put_le(out + 5, p->v[1], 4);
  *coding = 3;
  return 9;
}

static int rht_xy_size(uint8_t b0, int *coding) {
  if (b0 == GS_CL_PRIM_ABSOLUTE) return *coding = 3, 9;
  switch (b0 & 3) {
  case 0:
  case 1: return *coding = 0, 2;
  case 2: return *coding = 2, 6;
  default: return *coding = 1, (b0 & 12) == 12 ? 0 : 3;
  }
}

static void rht_xy_decode(int coding, const uint8_t *b, const gs_cl_prim *prev, gs_cl_prim *p) {
  uint64_t w;
  switch (coding) {
  case 0:
    w = get_le(b, 2);
    p->v[0] = prev->v[(w & 1) ? 0 : 1];
    p->v[1] = xy_make(xy_x(prev->v[1]) + split7_get(w), xy_y(prev->v[1]) + sext(w >> 9, 7));
    break;
  case 1:
    w = get_le(b, 3);
    p->v[0] = prev->v[((w >> 2) & 3) == 1 ? 0 : 1];
    p->v[1] = xy_make(xy_x(prev->v[1]) + sext(w >> 4, 10), xy_y(prev->v[1]) + sext(w >> 14, 10));
    break;
  case 2: {
    w = get_le(b, 6);
    int32_t x0 = sext(w >> 16, 16), y0 = sext(w >> 32, 16);
    p->v[0] = xy_make(x0, y0);
    p->v[1] = xy_make(x0 + split7_get(w), y0 + sext(w >> 9, 7));
    break;
  }
  default:
    p->v[0] = (uint32_t)get_le(b + 1, 4);
    p->v[1] = (uint32_t)get_le(b + 5, 4);
  }
}

/* ---- dispatch ------------------------------------------------------------- */

int gs_cl_prim_encode(const gs_cl_prim_format *f, const gs_cl_prim *prev, const gs_cl_prim *p,
                      uint8_t *out, int *coding, gs_diag *d) {
  int rc = gs_cl_prim_vertices(f, d), c = 0, n;
  if (rc < 0) return rc;
  if (f->data != GS_CL_DATA_XY) {
    uint32_t max = f->data == GS_CL_DATA_INDEX24 ? 0xffffffu : 0xffffu;
    for (int i = 0; i < rc; i++)
      if (p->v[i] > max)
        return gs_diag_set(d, GS_EARG, "compressed list: index %u of vertex %d does not fit %s indices",
                           p->v[i], i, f->data == GS_CL_DATA_INDEX24 ? "24-bit" : "16-bit");
  }
  if (f->data == GS_CL_DATA_XY)
    n = f->type == GS_CL_PRIM_TRIANGLES ? tri_xy_encode(prev, p, out, &c) : rht_xy_encode(prev, p, out, &c);
  else if (f->type == GS_CL_PRIM_TRIANGLES) n = tri_index_encode(f, prev, p, out, &c);
  else if (f->type == GS_CL_PRIM_POINTS) n = point_index_encode(f, prev, p, out, &c);
  else n = line_index_encode(f, prev, p, out, &c);
  if (coding) *coding = c;
  return n;
}

/* Size and coding of the item whose first byte is b0 (a primitive: not
 * 128 or 130); 0 for a reserved code. */
static int item_size(const gs_cl_prim_format *f, uint8_t b0, int *coding) {
  if (f->data == GS_CL_DATA_XY)
    return f->type == GS_CL_PRIM_TRIANGLES ? tri_xy_size(b0, coding) : rht_xy_size(b0, coding);
  if (f->type == GS_CL_PRIM_TRIANGLES) return tri_index_size(f, b0, coding);
  if (f->type == GS_CL_PRIM_POINTS) return point_index_size(f, b0, coding);
  return line_index_size(f, b0, coding);
}

static void item_decode(const gs_cl_prim_format *f, int coding, const uint8_t *b, const gs_cl_prim *prev,
                        gs_cl_prim *p) {
  memset(p, 0, sizeof *p);
  if (f->data == GS_CL_DATA_XY) {
    if (f->type == GS_CL_PRIM_TRIANGLES) tri_xy_decode(coding, b, prev, p);
    else rht_xy_decode(coding, b, prev, p);
  } else if (f->type == GS_CL_PRIM_TRIANGLES) {
    tri_index_decode(f, coding, b, prev, p);
  } else if (f->type == GS_CL_PRIM_POINTS) {
    point_index_decode(f, coding, b, prev, p);
  } else {
    line_index_decode(f, coding, b, prev, p);
  }
}

/* Items a list may have: every item takes at least one byte, so a list of
 * more items than the view has readable bytes reads some byte twice, which
 * only a loop of relative branches does. ITEM_BUDGET at most: without it a
 * 60-byte loop in a file took seconds per packet (tests/fuzz/fuzz_dumpcl). */
static uint32_t item_budget(const gs_cl_view *v) {
  uint64_t bytes = (v->bytes ? (uint64_t)v->len : 0) + (v->mem ? (uint64_t)gs_mem_used(v->mem) : 0);
  return bytes < ITEM_BUDGET ? (uint32_t)bytes : ITEM_BUDGET;
}

void gs_cl_prim_reader_init(gs_cl_prim_reader *r, const gs_cl_view *v, const gs_cl_prim_format *f,
                            gs_addr start) {
  memset(r, 0, sizeof *r);
  r->view = v;
  r->fmt = *f;
  r->cur = start;
  r->budget = item_budget(v);
}

/* Reads the relative branch at a (code byte already seen) into *it. */
static int read_branch(gs_cl_prim_reader *r, gs_addr a, gs_cl_prim_item *it, gs_diag *d) {
  const uint8_t *b = gs_cl_view_ptr(r->view, a, 3);
  if (!b)
    return gs_diag_set(d, GS_EFAULT, "0x%08x: relative branch (3 bytes) runs past readable memory", a);
  int32_t off = sext(get_le(b + 1, 2), 16);
  int64_t target = (int64_t)(a & ~31u) + (int64_t)off * 32;
  if (target < 0 || target > (int64_t)UINT32_MAX)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: relative branch by %d x 32 bytes leaves the bus address space",
                       a, off);
  it->kind = GS_CL_ITEM_BRANCH;
  it->size = 3;
  it->target = (gs_addr)target;
  r->cur = (gs_addr)target;
  r->branched = 1;
  return GS_OK;
}

/* The bytes at a when [a, a + GS_CL_PRIM_MAX_BYTES) lies inside one
 * readable run the reader keeps (READ_WINDOW bytes of memory, or the rest
 * of the view's own bytes), where gs_cl_view_ptr would find every item
 * that starts at a in the same place; else NULL, and the caller asks
 * gs_cl_view_ptr for each item, as without the run. */
#define READ_WINDOW 256u
static const uint8_t *window_at(gs_cl_prim_reader *r, gs_addr a) {
  if (r->win && a - r->win_start <= r->win_len - GS_CL_PRIM_MAX_BYTES) return r->win + (a - r->win_start);
  const gs_cl_view *v = r->view;
  r->win = NULL;
  uint32_t len = 0;
  const uint8_t *p = NULL;
  if (v->bytes && a >= v->base && a - v->base < v->len) { /* gs_cl_view_ptr takes the view's bytes first */
    len = v->len - (a - v->base);
    p = v->bytes + (a - v->base);
  } else if (v->mem) { /* up to the view's bytes, if they start inside the run */
    len = v->bytes && v->base > a && v->base - a < READ_WINDOW ? v->base - a : READ_WINDOW;
    p = len >= GS_CL_PRIM_MAX_BYTES ? gs_mem_ptr(v->mem, a, len) : NULL;
  }
  if (!p || len < GS_CL_PRIM_MAX_BYTES) return NULL;
  r->win = p, r->win_start = a, r->win_len = len;
  return p;
}

int gs_cl_prim_read(gs_cl_prim_reader *r, gs_cl_prim_item *it, gs_diag *d) {
  gs_addr a = r->cur;
  memset(it, 0, sizeof *it);
  it->addr = a;
  if (r->done) return gs_diag_set(d, GS_EARG, "0x%08x: compressed list already ended", a);
  const char *why = format_problem(&r->fmt);
  if (why) return gs_diag_set(d, GS_EINVAL, "0x%08x: %s", a, why);
  const uint8_t *win = window_at(r, a), *b = win ? win : gs_cl_view_ptr(r->view, a, 1);
  if (!b) return gs_diag_set(d, GS_EFAULT, "0x%08x: compressed list runs past readable memory", a);
  if (r->budget == 0)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: compressed list longer than %u items (a loop of relative branches?)",
                       a, item_budget(r->view));
  r->budget--;
  if (b[0] == GS_CL_PRIM_ESCAPE) {
    it->kind = GS_CL_ITEM_ESCAPE;
    it->size = 1;
    r->done = 1;
    r->cur = a + 1;
    return GS_OK;
  }
  if (b[0] == GS_CL_PRIM_BRANCH) return read_branch(r, a, it, d);
  int coding = 0, n = item_size(&r->fmt, b[0], &coding);
  if (n == 0)
    return gs_diag_set(d, GS_EINVAL, "0x%08x: reserved compressed-list code 0x%02x (coding %d)", a, b[0], coding);
  if (!win) b = gs_cl_view_ptr(r->view, a, (uint32_t)n);
  if (!b)
    return gs_diag_set(d, GS_EFAULT, "0x%08x: compressed primitive (coding %d, %d bytes) runs past readable memory",
                       a, coding, n);
  static const gs_cl_prim zero;
  item_decode(&r->fmt, coding, b, r->have_prev ? &r->prev : &zero, &it->prim);
  it->kind = GS_CL_ITEM_PRIM;
  it->coding = (uint8_t)coding;
  it->size = (uint8_t)n;
  r->prev = it->prim;
  r->have_prev = 1;
  r->cur = a + (uint32_t)n;
  return GS_OK;
}

/* The items from r->cur on up to cap primitives (out NULL: to the escape,
 * not decoding them): a primitive inside the reader's window under a valid
 * format here, as gs_cl_prim_read would read it (the window holds its
 * bytes; the budget counts it), anything else through gs_cl_prim_read. */
static int read_run(gs_cl_prim_reader *r, gs_cl_prim *out, unsigned cap, unsigned *n, gs_diag *d) {
  static const gs_cl_prim zero;
  unsigned k = 0;
  int valid = format_problem(&r->fmt) == NULL;
  *n = 0;
  while (!r->done && (!out || k < cap)) {
    const uint8_t *b = valid && r->budget ? window_at(r, r->cur) : NULL;
    int coding = 0, size = b && b[0] != GS_CL_PRIM_ESCAPE && b[0] != GS_CL_PRIM_BRANCH
                               ? item_size(&r->fmt, b[0], &coding) : 0;
    if (!size) {
      gs_cl_prim_item it;
      int rc = gs_cl_prim_read(r, &it, d);
      if (rc < 0) return rc;
      if (it.kind == GS_CL_ITEM_PRIM && out) out[k] = it.prim, *n = ++k;
      continue;
    }
    r->budget--;
    if (out) {
      item_decode(&r->fmt, coding, b, r->have_prev ? &r->prev : &zero, &out[k]);
      r->prev = out[k];
      *n = ++k;
    }
    r->have_prev = 1;
    r->cur += (uint32_t)size;
  }
  return GS_OK;
}

int gs_cl_prim_read_prims(gs_cl_prim_reader *r, gs_cl_prim *out, unsigned cap, unsigned *n, gs_diag *d) {
  return read_run(r, out, cap, n, d);
}

int gs_cl_prim_skip(gs_cl_prim_reader *r, gs_diag *d) {
  unsigned n;
  return read_run(r, NULL, 0, &n, d);
}

int gs_cl_prim_decode(const gs_cl_view *v, const gs_cl_prim_format *f, gs_addr start, gs_cl_prim *out,
                      size_t cap, size_t *n, gs_addr *end, gs_diag *d) {
  gs_cl_prim_reader r;
  gs_cl_prim_item it;
  gs_cl_prim_reader_init(&r, v, f, start);
  *n = 0;
  while (!r.done) {
    int rc = gs_cl_prim_read(&r, &it, d);
    if (rc < 0) return rc;
    if (it.kind != GS_CL_ITEM_PRIM) continue;
    if (*n == cap)
      return gs_diag_set(d, GS_EARG, "0x%08x: compressed list holds more than %zu primitives", it.addr, cap);
    out[(*n)++] = it.prim;
  }
  if (end) *end = r.cur;
  return GS_OK;
}
