/* trace.h — the pipeline's trace hook: the events the units emit while a
 * frame runs, for tools that explain a frame (gpusim why, overlays, frame
 * reports, frame diffs). docs/provenance.md is the manual: every event,
 * when it comes, what it carries.
 *
 * One subscriber at a time hangs off the context (gs_gpu.trace, set with
 * gs_v3d_set_trace). With none attached every emit site costs one test of
 * a pointer that is NULL (per packet, per primitive, per 4x4 block); no
 * event is built. With one attached, its filter decides at the emit site:
 * rendering events only for the filter's tile (the tile holding the
 * filter's pixel, when it has one), fragment events only for the filter's
 * pixel, draws only of the filter's shader record. The trace never changes
 * what the pipeline computes: the traced tile port calls the same tile
 * buffer functions, and only reads.
 *
 * Threads. Binning events come from the thread that called gs_v3d_run.
 * Rendering events come from the worker rendering the tile, so with a
 * filter of all tiles callbacks may run at once on several threads, each
 * for a different tile; the events of one tile come in order from one
 * thread. With a tile or pixel filter they come from one thread at a time.
 *
 * Coordinates are the pipeline's: pixel (x, y) with y counted from the
 * frame buffer's first row (what the VideoCore IV reference calls the
 * bottom); an image viewer's row is height - 1 - y.
 */
#ifndef GS_V3D_TRACE_H
#define GS_V3D_TRACE_H

#include <stdint.h>
#include "gpusim/mem.h"

struct ptb_state;
struct ptb_vertex;
struct ptb_window;
struct ptb_grid;
struct gs_isa;

typedef enum gs_trace_kind {
  GS_TRACE_PACKET = 0,   /* a control-list packet executed (either thread) */
  GS_TRACE_DRAW,         /* binning: a draw packet's primitives are about to be binned */
  GS_TRACE_PRIM,         /* binning: what the PTB did with one primitive (outcome) */
  GS_TRACE_TILE_PRIM,    /* rendering: a primitive of a tile list set up in its tile */
  GS_TRACE_BLOCK,        /* rendering: a 4x4 block the primitive covers, after early Z */
  GS_TRACE_SHADE,        /* rendering: a fragment batch handed to its shader unit */
  GS_TRACE_Z_TEST,       /* rendering: the batch's Z write: stencil and depth tests */
  GS_TRACE_COLOUR_LOAD,  /* rendering: the batch read the tile's colour */
  GS_TRACE_COLOUR_WRITE, /* rendering: the batch wrote colour */
  GS_TRACE_FRAGMENT,     /* rendering: one fragment's fate, after its batch ran */
  GS_TRACE_KINDS
} gs_trace_kind;

/* GS_TRACE_PRIM: what the PTB did with a primitive (docs/binning.md). */
typedef enum gs_trace_outcome {
  GS_TRACE_BINNED = 0,   /* appended to the tiles its polygon covers (one event per fan piece) */
  GS_TRACE_CULLED,       /* its face is not enabled (back-face culling) */
  GS_TRACE_ZERO_AREA,    /* zero area (or a zero-length line, a size <= 0): covers no sample */
  GS_TRACE_CLIPPED_AWAY, /* wholly outside a clip plane (or not finite): discarded */
  GS_TRACE_CLIPPED,      /* crossed a plane: its clipped polygon is binned as a fan (BINNED events follow) */
  GS_TRACE_NO_SAMPLE,    /* survived, but covers no sample inside the clip window: in no tile list */
  GS_TRACE_OUTCOMES
} gs_trace_outcome;

/* GS_TRACE_FRAGMENT: a fragment's fate as the tile buffer saw it. */
typedef enum gs_trace_fate {
  GS_FATE_WRITTEN = 0,   /* a colour write reached the pixel (read_tile: after reading its colour) */
  GS_FATE_DEPTH_FAILED,  /* the depth test failed every covered sample (early: before shading) */
  GS_FATE_STENCIL_FAILED,/* the stencil test failed */
  GS_FATE_DISCARDED,     /* the program wrote no colour for it (a kill, a conditional write) */
  GS_FATE_SAMPLE_MASKED, /* its sample mask removed every covered sample before the write */
  GS_FATE_UNSHADED,      /* the batch stopped with an error before the fragment's end */
  GS_TRACE_FATES
} gs_trace_fate;

/* One event. Which fields mean something depends on kind (docs/provenance.md). */
typedef struct gs_trace_event {
  gs_trace_kind kind;
  unsigned list;            /* PACKET: 0 binning, 1 rendering */
  gs_addr addr;             /* PACKET, DRAW: the packet; TILE_PRIM and later: the tile-list packet (48/49) or draw */
  unsigned packet;          /* its id (gs_cl_packet_info(packet)->name) */
  gs_addr record;           /* DRAW, PRIM, TILE_PRIM and later: the shader record of the draw */
  uint32_t draw;            /* DRAW, PRIM: the draw's number in the binning list (0, 1, ...) */
  uint32_t prim;            /* PRIM: the primitive's index in its draw; TILE_PRIM and later: its ordinal in the tile */
  uint32_t index[3];        /* PRIM, TILE_PRIM: its vertex indices */
  unsigned nverts;          /* 1 point, 2 line, 3 triangle */
  unsigned tile_x, tile_y;  /* rendering events */
  /* PRIM */
  gs_trace_outcome outcome;
  unsigned piece;           /* BINNED: 1 for a piece of a clipped primitive's fan */
  const struct ptb_state *ptb;          /* the binner's state */
  const struct ptb_vertex *const *v;    /* the shaded vertices (clip space and screen) */
  const int32_t *px, *py;   /* BINNED, NO_SAMPLE, CULLED, ZERO_AREA: the polygon (absolute 12.4; CULLED in vertex order) */
  unsigned npoly;
  const struct ptb_window *window;      /* PRIM: the pixels the PTB bins (the clip window) */
  const struct ptb_grid *grid;          /* PRIM: the tile grid */
  /* TILE_PRIM: the primitive's setup (pse_result: 0 drawn) and programs;
   * SHADE: the batch's program */
  int setup;
  unsigned clipped;         /* TILE_PRIM: from a Clipped Primitive (49) */
  const struct gs_isa *fs_isa, *vs_isa;
  gs_addr fs_code, fs_uniforms, vs_code;
  /* BLOCK, SHADE, Z_TEST, COLOUR_*, FRAGMENT: the batch */
  uint32_t bx, by;          /* the block's lowest pixel */
  uint16_t mask;            /* BLOCK: rasterised lanes; SHADE: lanes shaded; Z_TEST, COLOUR_*: the access's lanes */
  uint16_t early_z_mask;    /* BLOCK: lanes left after early Z (= mask without early Z) */
  int lane;                 /* the filter pixel's lane in the batch, -1 if not in it */
  const uint32_t *x, *y;    /* the lanes' pixels */
  const uint32_t *cov;      /* SHADE: the lanes' sample coverage; Z_TEST: after the test; COLOUR_WRITE: at the write */
  const uint32_t *cov_before; /* Z_TEST: before the test */
  const uint32_t *z;        /* Z_TEST: the Z written */
  const uint8_t *failed;    /* Z_TEST: per lane, bit s: sample s failed stencil (bits 3:0) or depth (7:4) */
  const uint32_t *stored_zs;/* Z_TEST: per lane, the filter pixel's sample 0 depth-stencil word before */
  const uint32_t *rgba;     /* COLOUR_LOAD, COLOUR_WRITE: the values (the target's format) */
  unsigned all;             /* COLOUR_WRITE: 1 every covered sample, 0 the next sample */
  /* FRAGMENT (for the filter pixel's lane) */
  gs_trace_fate fate;
  unsigned read_tile;       /* it read the tile's colour before its write (blending, a colour mask) */
  unsigned early;           /* DEPTH_FAILED by early Z */
  uint32_t output[2];       /* WRITTEN: the last colour word(s) written (two with 64-bit colour) */
  unsigned noutput;
  uint32_t loaded;          /* read_tile: the first colour word read */
  uint32_t zs_before;       /* z_tested: the pixel's sample 0 depth-stencil word before the test */
  unsigned z_tested;        /* a Z write (or early Z) tested the fragment */
  uint32_t frag_z;          /* the fragment's 24-bit Z */
  unsigned samples;         /* samples covered at the start (bit s) */
} gs_trace_event;

/* Which events a subscriber wants. -1 (or 0 for record) means any. */
typedef struct gs_trace_filter {
  int32_t x, y;             /* one pixel (pipeline coordinates); sets the tile too */
  int32_t tile_x, tile_y;   /* one tile */
  gs_addr record;           /* one draw: its shader record */
} gs_trace_filter;

typedef void gs_trace_fn(void *ctx, const gs_trace_event *e);

/* A subscriber: fn(ctx, event) for every event its filter lets through. */
typedef struct gs_trace {
  gs_trace_fn *fn;
  void *ctx;
  gs_trace_filter filter;
} gs_trace;

/* A filter that passes everything. */
void gs_trace_filter_all(gs_trace_filter *f);
/* A filter for pixel (x, y) only (and so only for the tile that holds it). */
void gs_trace_filter_pixel(gs_trace_filter *f, int32_t x, int32_t y);

/* Whether t wants the rendering events of tile (tx, ty) of tiles
 * tile_w x tile_h pixels. */
int gs_trace_wants_tile(const gs_trace *t, unsigned tx, unsigned ty, unsigned tile_w, unsigned tile_h);
/* Whether t wants the events of the draw with shader record `record`. */
static inline int gs_trace_wants_record(const gs_trace *t, gs_addr record) {
  return t->filter.record == 0 || t->filter.record == record;
}
/* The lane of t's pixel among x[0..16), y[0..16), or -1; with no pixel in
 * the filter, -2 (every lane). */
int gs_trace_lane(const gs_trace *t, const uint32_t *x, const uint32_t *y);

static inline void gs_trace_emit(const gs_trace *t, const gs_trace_event *e) { t->fn(t->ctx, e); }

/* Names, for tools and messages: "packet", "draw", ...; "binned", "culled",
 * ...; "written", "depth_failed", ... */
const char *gs_trace_kind_name(gs_trace_kind k);
const char *gs_trace_outcome_name(gs_trace_outcome o);
const char *gs_trace_fate_name(gs_trace_fate f);

#endif
