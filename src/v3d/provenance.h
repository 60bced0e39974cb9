/* provenance.h — pixel provenance: a trace subscriber (v3d/trace.h) that
 * collects, for one pixel of a frame, every fragment that reached it with
 * its fate, and every primitive that covers the pixel's position but made
 * no fragment there, with the reason. `gpusim why` and gpusim.why use it
 * (docs/provenance.md says how each reason is decided).
 *
 *   gs_prov p;
 *   gs_prov_init(&p, x, y);              // pipeline coordinates (y up)
 *   gs_trace t = {gs_prov_event, &p};
 *   gs_trace_filter_pixel(&t.filter, x, y);
 *   g->trace = &t; gs_v3d_run(...); g->trace = NULL;
 *   gs_prov_finish(&p);                  // fragments[], missed[]
 *   gs_prov_free(&p);
 *
 * gs_provall is the same for every pixel of a frame from ONE traced run
 * with a filter of everything: it keeps every fragment event compactly,
 * grouped by pixel, and what the binning pass did with each primitive;
 * gs_provall_pixel then gives any pixel's answer as gs_prov would, the
 * missed primitives worked out from the kept primitives (docs/provenance.md,
 * "Every pixel from one run").
 *
 *   gs_provall a;
 *   gs_provall_init(&a, width, height);  // the frame, in pixels
 *   gs_trace t = {gs_provall_event, &a};
 *   gs_trace_filter_all(&t.filter);
 *   g->trace = &t; gs_v3d_run(...); g->trace = NULL;
 *   gs_provall_finish(&a);
 *   gs_provall_pixel(&a, x, y, &p);      // p as after gs_prov_finish
 *   gs_prov_free(&p); gs_provall_free(&a);
 */
#ifndef GS_V3D_PROVENANCE_H
#define GS_V3D_PROVENANCE_H

#include <stdint.h>
#include "v3d/trace.h"

/* Why a primitive that covers the pixel's position made no fragment. */
typedef enum gs_prov_reason {
  GS_MISS_CLIPPED = 0,         /* clipping removed the part over the pixel (or the whole primitive) */
  GS_MISS_CULLED,              /* its face is not enabled */
  GS_MISS_OUTSIDE_CLIP_WINDOW, /* the pixel is outside the clip window */
  GS_MISS_NOT_COVERED,         /* the pixel's sample lies on an edge the fill rule gives to the neighbour */
  GS_MISS_ZERO_AREA,           /* zero area: it covers no sample */
  GS_MISS_REASONS
} gs_prov_reason;

const char *gs_prov_reason_name(gs_prov_reason r);

/* Where a primitive came from in the binning list. */
typedef struct gs_prov_prim {
  int known;                   /* the binning pass described it (else only record is known) */
  gs_addr record;              /* the draw's shader record */
  gs_addr packet;              /* its draw packet (32/33/41/42) */
  unsigned packet_id;
  uint32_t draw;               /* the draw's number in the binning list */
  uint32_t prim;               /* the primitive's index in the draw */
  uint32_t index[3];
  unsigned nverts;
} gs_prov_prim;

typedef struct gs_prov_fragment {
  gs_prov_prim src;
  gs_addr tile_packet;         /* the tile-list packet (48, 49) it came from */
  unsigned tile_packet_id;
  unsigned tile_x, tile_y;
  unsigned clipped;            /* a piece of a clipped primitive (49) */
  const char *isa, *vertex_isa;/* the fragment and vertex programs' ISAs (NULL: none) */
  gs_addr program, uniforms, vertex_program;
  int lane;                    /* the pixel's lane in its batch */
  uint32_t bx, by;             /* the batch's block */
  gs_trace_fate fate;
  unsigned early, read_tile;
  uint32_t output[2];
  unsigned noutput;
  uint32_t loaded, zs_before, z, samples;
  unsigned z_tested;           /* zs_before is the tile buffer's word at its depth test */
  unsigned context;            /* gs_provall_pixel: the index of its fields shared with its primitive's
                                  other fragments in the tile (src ... vertex_program), 0.. nctx */
} gs_prov_fragment;

typedef struct gs_prov_missed {
  gs_prov_prim src;
  gs_prov_reason reason;
} gs_prov_missed;

/* The subscriber's state; read fragments and missed after gs_prov_finish. */
typedef struct gs_prov {
  int32_t x, y;
  int tile_known;
  unsigned tile_x, tile_y;
  gs_prov_fragment *fragments;
  unsigned nfragments;
  gs_prov_missed *missed;
  unsigned nmissed;
  int nomem;                   /* the host ran out of memory: the lists are incomplete */
  /* internal */
  struct prov_draw *draws;
  unsigned ndraws, cap_draws;
  gs_prov_prim *entries;       /* the pixel's tile list, in order */
  unsigned nentries, cap_entries;
  struct prov_candidate *cands;
  unsigned ncands, cap_cands;
  unsigned cap_fragments, cap_missed;
  gs_trace_event last_tile_prim;
} gs_prov;

void gs_prov_init(gs_prov *p, int32_t x, int32_t y);
/* The trace callback (gs_trace.fn) with ctx a gs_prov. */
void gs_prov_event(void *ctx, const gs_trace_event *e);
/* Decides the missed primitives once the frame has run. */
void gs_prov_finish(gs_prov *p);
void gs_prov_free(gs_prov *p);

/* ---- every pixel from one run ------------------------------------------------ */

/* One fragment as gs_provall keeps it: what differs from its context. */
typedef struct gs_provall_frag {
  uint32_t pixel;              /* y * width + x (pipeline coordinates) */
  uint32_t context;            /* its gs_provall.ctx (a tile's own index until gs_provall_finish) */
  uint32_t z, zs_before, loaded, samples, output[2];
  uint8_t lane, fate, flags, noutput; /* flags: 1 early, 2 read_tile, 4 z_tested */
} gs_provall_frag;

typedef struct gs_provall {
  uint32_t width, height;      /* the frame (pipeline pixels) */
  int nomem;                   /* the host ran out of memory: the answers are incomplete */
  uint64_t outside;            /* fragment events for pixels outside the frame (not kept) */
  /* after gs_provall_finish: */
  gs_prov_fragment *ctx;       /* the contexts: the fields fragments share, the others zero */
  unsigned nctx;
  gs_provall_frag *frags;      /* every fragment, by pixel, each pixel's in the order the tile buffer saw them */
  uint64_t nfrags;
  uint32_t *start;             /* pixel i's fragments: frags[start[i] .. start[i + 1]) */
  unsigned nrecs;              /* primitives the binning pass described */
  /* internal */
  struct prov_draw *draws;
  unsigned ndraws, cap_draws;
  struct prov_primrec *recs;
  unsigned cap_recs;
  int32_t *poly;               /* the primitives' polygons, x then y */
  size_t npoly, cap_poly;
  struct provall_tile *tiles;  /* per tile of at least 32x16 pixels: its list, contexts, fragments */
  unsigned tiles_x, tiles_y;
  uint32_t *cell_start, *cell_recs; /* per cell of 32x32 pixels: the primitives whose box meets it, in order */
  unsigned cells_x, cells_y;
} gs_provall;

/* 0, or -1 when the host is out of memory. */
int gs_provall_init(gs_provall *a, uint32_t width, uint32_t height);
/* The trace callback (gs_trace.fn) with ctx a gs_provall and a filter of
 * everything; rendering events may come from several threads at once, one
 * per tile. */
void gs_provall_event(void *ctx, const gs_trace_event *e);
/* Groups the fragments by pixel once the frame has run: 0, or -1 (nomem). */
int gs_provall_finish(gs_provall *a);
/* Pixel (x, y)'s answer (pipeline coordinates) into p, as gs_prov_init,
 * the run and gs_prov_finish would give it; each fragment's context names
 * its a->ctx entry. Free p with gs_prov_free. 0, or -1 (p->nomem). */
int gs_provall_pixel(const gs_provall *a, int32_t x, int32_t y, gs_prov *p);
/* The host memory a holds, in bytes. */
size_t gs_provall_bytes(const gs_provall *a);
void gs_provall_free(gs_provall *a);

#endif
