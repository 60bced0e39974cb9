/* overlay.h — the inspector's overlays (docs/inspector.md): what the trace
 * hook (v3d/trace.h) says about a frame, drawn over it.
 *
 *   tiles     the tile grid, each tile's primitive count (its tile list's
 *             entries) as a heat map with the number written in the tile
 *   overdraw  fragments per pixel (every fragment rasterised there, early-Z
 *             failures included: the length of `gpusim why`'s list)
 *   trisize   the screen area, in pixels, of the primitive that last wrote
 *             each pixel, on a log scale
 *   isa       the ISA of the fragment program that last wrote each pixel
 *   order     the order the rendering list renders the tiles in (or, when
 *             stepping, the tiles done, the tile being rendered, the rest)
 *
 * gs_overlay_collect runs the last rendered frame's control lists again
 * with a subscriber of every tile (optionally with only the first k draw
 * packets: the later ones are made NOPs for the run), then puts the frame
 * buffer and the lists back as they were. gs_overlay_compose draws an
 * overlay over the frame with its legend.
 */
#ifndef GS_APP_OVERLAY_H
#define GS_APP_OVERLAY_H

#include <stdint.h>
#include <stdio.h>
#include "app/image.h"
#include "gpusim/diag.h"
#include "gpusim/mem.h"

struct lua_State;

typedef enum gs_overlay_kind {
  GS_OVERLAY_NONE = 0,
  GS_OVERLAY_TILES,
  GS_OVERLAY_OVERDRAW,
  GS_OVERLAY_TRISIZE,
  GS_OVERLAY_ISA,
  GS_OVERLAY_ORDER,
  GS_OVERLAY_KINDS
} gs_overlay_kind;

/* "tiles", ... ("none" for GS_OVERLAY_NONE). */
const char *gs_overlay_name(gs_overlay_kind k);
/* The overlay called name, or -1. */
int gs_overlay_by_name(const char *name);
/* Prints the overlays' names, one a line with what each shows. */
void gs_overlay_help(FILE *out);

/* ISAs as the isa overlay tells them apart: index = gs_isa_id (QPU for
 * raw VideoCore IV code), 0 = no program wrote the pixel. */
#define GS_OVERLAY_ISAS 5

typedef struct gs_overlay_draw {
  gs_addr addr;      /* the draw packet in the binning list */
  unsigned id, size; /* its id and bytes */
  gs_addr record;    /* the draw's shader record */
} gs_overlay_draw;

typedef struct gs_overlay_data {
  int width, height;             /* the image */
  unsigned tiles_x, tiles_y;     /* the tile grid */
  unsigned tile_w, tile_h;       /* pixels of a tile */
  /* per tile, index ty * tiles_x + tx (pipeline rows: ty = 0 at the bottom) */
  uint32_t *tile_prims;          /* primitives in its tile list */
  int32_t *tile_rank;            /* its place in the rendering list (0 first), -1 not rendered */
  uint32_t *order;               /* tile indices in rendering order */
  unsigned norder;
  /* per pixel, index y * width + x (pipeline rows: y = 0 at the bottom) */
  uint32_t *overdraw;            /* fragments that reached it */
  float *area;                   /* area of the primitive that last wrote it, 0: none */
  uint8_t *isa;                  /* ISA (gs_isa_id) of the program that last wrote it, 0: none */
  /* per tile, GS_OVERLAY_ISAS counters (index tile * GS_OVERLAY_ISAS + ISA as
   * for isa): the fragment batches handed to each ISA's unit (gpusim report) */
  uint32_t *tile_batches;
  gs_overlay_draw *draws;        /* draw packets of the binning list, in order */
  unsigned ndraws;
  unsigned drawn;                /* draws that ran (ndraws, or k when stepping) */
  int nomem;
} gs_overlay_data;

/* Runs the last frame gpusim.render made (in the Lua state L) again with
 * the trace on and fills *od (zeroed first; free with
 * gs_overlay_data_free). draws >= 0: only the first `draws` draw packets
 * run (the others are NOPs for the run). frame, when not NULL, receives
 * the image that run made, upright (for draws < all: the frame as it stood
 * after those draws). The frame buffer and the lists are put back after.
 * Returns GS_OK or an error with its message in d. */
int gs_overlay_collect(struct lua_State *L, long draws, gs_overlay_data *od, gs_image *frame, gs_diag *d);
void gs_overlay_data_free(gs_overlay_data *od);

/* Makes out (empty on entry) the frame (upright, od's size) enlarged
 * `zoom` times with overlay k blended over it and its legend in a strip
 * below. step_tile >= 0 (order): tiles of rank < step_tile done, that one
 * being rendered, later ones dimmed. Returns GS_OK or GS_ENOMEM. */
int gs_overlay_compose(const gs_overlay_data *od, gs_overlay_kind k, const gs_image *frame, int zoom,
                       long step_tile, gs_image *out, gs_diag *d);

/* --overlay NAME -o OUT: collects and writes overlay k of the last frame
 * to path. GS_OK or an error with its message in d. */
int gs_overlay_write_png(struct lua_State *L, gs_overlay_kind k, const char *path, gs_diag *d);

/* Adds gpusim.overlay(name [, {draws = K}]) to the module table at the
 * top of L's stack (the program's, not the stock module's): the numbers
 * behind an overlay of the last frame, for tests and lessons
 * (docs/inspector.md). */
void gs_overlay_lua_register(struct lua_State *L);

/* ---- the window's inspector (docs/inspector.md, "In the window") ---------- */

struct gs_window;
typedef struct gs_inspector gs_inspector;

/* An inspector for the scene `script` running in L, starting with overlay
 * `overlay` (0: none). NULL when out of memory. */
gs_inspector *gs_inspector_new(struct lua_State *L, int overlay, const char *script);
void gs_inspector_free(gs_inspector *ins);

/* Handles the window's pending input, then shows the frame (upright, the
 * scene's last rendered frame; `serial` changes whenever a new frame was
 * rendered) in win with what the inspector adds. *hold is set when the
 * scene should keep this frame rather than render the next (stepping, a
 * panel open, paused). GS_OK or an error with its message in d. */
int gs_inspector_present(gs_inspector *ins, struct gs_window *win, const gs_image *frame, long serial, int *hold,
                         gs_diag *d);

#endif
