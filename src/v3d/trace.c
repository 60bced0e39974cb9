/* trace.c — the trace hook's filters and names (trace.h; the manual is
 * docs/provenance.md). */
#include "v3d/trace.h"

void gs_trace_filter_all(gs_trace_filter *f) {
  f->x = f->y = -1;
  f->tile_x = f->tile_y = -1;
  f->record = 0;
}

void gs_trace_filter_pixel(gs_trace_filter *f, int32_t x, int32_t y) {
  gs_trace_filter_all(f);
  f->x = x, f->y = y;
}

int gs_trace_wants_tile(const gs_trace *t, unsigned tx, unsigned ty, unsigned tile_w, unsigned tile_h) {
  const gs_trace_filter *f = &t->filter;
  if (f->tile_x >= 0 && (unsigned)f->tile_x != tx) return 0;
  if (f->tile_y >= 0 && (unsigned)f->tile_y != ty) return 0;
  if (f->x >= 0 && (unsigned)f->x / tile_w != tx) return 0;
  if (f->y >= 0 && (unsigned)f->y / tile_h != ty) return 0;
  return 1;
}

int gs_trace_lane(const gs_trace *t, const uint32_t *x, const uint32_t *y) {
  if (t->filter.x < 0 || t->filter.y < 0) return -2;
  for (int l = 0; l < 16; l++)
    if (x[l] == (uint32_t)t->filter.x && y[l] == (uint32_t)t->filter.y) return l;
  return -1;
}

const char *gs_trace_kind_name(gs_trace_kind k) {
  static const char *const names[GS_TRACE_KINDS] = {"packet", "draw", "prim", "tile_prim", "block", "shade",
                                                    "z_test", "colour_load", "colour_write", "fragment"};
  return (unsigned)k < GS_TRACE_KINDS ? names[k] : "?";
}

const char *gs_trace_outcome_name(gs_trace_outcome o) {
  static const char *const names[GS_TRACE_OUTCOMES] = {"binned", "culled", "zero_area", "clipped_away", "clipped",
                                                         "no_sample"};
  return (unsigned)o < GS_TRACE_OUTCOMES ? names[o] : "?";
}

const char *gs_trace_fate_name(gs_trace_fate f) {
  static const char *const names[GS_TRACE_FATES] = {"written", "depth_failed", "stencil_failed", "discarded",
                                                    "sample_masked", "unshaded"};
  return (unsigned)f < GS_TRACE_FATES ? names[f] : "?";
}
