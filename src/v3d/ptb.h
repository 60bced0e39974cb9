/* ptb.h — the primitive tile binner (PTB) of the VideoCore IV binning pass:
 * primitive assembly, face culling, clipping (near/far and guard band) and
 * binning into per-tile primitive lists of 64x64-pixel tiles.
 *
 * The PTB works on plain structs. It knows nothing of control-list bytes
 * (the control-list executor decodes records 96-106 into a ptb_state and
 * records 32/33 into a ptb_draw; the compressed-primitive encoder turns the
 * per-tile lists below into bytes) and nothing of any ISA (the coordinate
 * shader's output arrives as ptb_vertex values). docs/binning.md gives the
 * rules and every choice no source settles; facts come from
 * RG §7-9 and §11.
 *
 * MANUAL
 *
 * 1. Fill a ptb_state (ptb_state_init gives the defaults, then copy in the
 *    current records) and describe the shaded vertices with a ptb_vertices:
 *    the vertex whose original index is i lives at v[i - first].
 * 2. Describe the tile grid (ptb_grid_make from record 112) and give the
 *    binner its storage: ptb_bins_init(&bins, &grid, &buffers). Nothing is
 *    allocated; every array comes from the caller and
 *    a full array is reported (PTB_ERR_*_FULL), never overrun.
 * 3. For each draw call (record 32 or 33) call ptb_bin_draw. Primitives are
 *    assembled in submission order, culled, clipped and appended to every
 *    tile whose pixels they can cover. A failing draw stops at the first
 *    primitive that does not fit; everything before it stays binned, so the
 *    caller can flush the lists (as the hardware does when out of memory)
 *    and call again with the remaining work.
 * 4. Read the lists: for tile (tx, ty), r = bins.tiles[ty * tiles_x + tx].head;
 *    (tiles_x = bins.grid.tiles_x)
 *    while (r != PTB_NONE) { use bins.prims[bins.refs[r].prim]; r =
 *    bins.refs[r].next; } or copy them out with ptb_tile_prims. Primitives
 *    keep their original vertex indices so the render pass can re-fetch and
 *    re-shade their vertices; clipped ones point at a ptb_clip_record with
 *    the exact content of a Clipped Primitive Record (RG Table 44).
 *
 * The building blocks (assembly, culling, clipping, tile coverage) are
 * exported too: the tests check each one, and the PSE can share the
 * coverage rule stated at ptb_cover_polygon.
 */
#ifndef GS_V3D_PTB_H
#define GS_V3D_PTB_H

#include <stdbool.h>
#include <stdint.h>

#define PTB_TILE_SIZE 64      /* largest tile side in pixels (non-MS, 32-bit colour) */
#define PTB_MAX_TILES_X 256   /* record 112 holds the tile counts in a byte */
#define PTB_MAX_TILES_Y 256
#define PTB_NONE UINT32_MAX   /* end of a tile list / no clip record */

/* The guard band: |Xs|, |Ys| <= PTB_GUARD_BAND in 12.4 units (1/16 pixel)
 * around the viewport centre, i.e. 2047 pixels. The 12.4 format reaches
 * 2048 - 1/16 pixels; the one pixel of margin keeps rounded clipped
 * vertices inside it. */
#define PTB_GUARD_BAND (2047 * 16)
/* Clipping keeps Wc >= PTB_CLIP_W_MIN so that 1/Wc always exists. */
#define PTB_CLIP_W_MIN (1.0 / 1048576.0)
/* Planes clipped against: Wc > 0, near, far, and four guard-band planes.
 * Each plane adds at most one vertex to a convex polygon. */
#define PTB_CLIP_PLANES 7
#define PTB_CLIP_MAX_VERTS (3 + PTB_CLIP_PLANES)
/* Point sizes and line widths clamp to this many pixels, as in the PSE
 * (PSE_MAX_SIZE); a size <= 0 or NaN draws nothing (the hardware PTB fails
 * on zero-size points, erratum HW-2726, so drivers never send one). */
#define PTB_MAX_POINT_SIZE 2048.0f

typedef enum ptb_result {
  PTB_OK = 0,
  PTB_ERR_MODE,        /* primitive mode not 0..6, or index type unknown */
  PTB_ERR_INDEX,       /* an index names a vertex outside the ptb_vertices */
  PTB_ERR_TILES,       /* tile counts 0 or too large, or tile array too small */
  PTB_ERR_PRIMS_FULL,  /* the primitive array is full */
  PTB_ERR_CLIPS_FULL,  /* the clip-record array is full */
  PTB_ERR_REFS_FULL,   /* the tile-reference pool is full */
  PTB_ERR_NOMEM        /* ptb_bench_triangles could not allocate */
} ptb_result;

/* A short name for a result ("ok", "index out of range", ...). */
const char *ptb_result_string(ptb_result r);

/* ---- state --------------------------------------------------------------- */

/* The binner's view of the current state records (RG Table 38). */
typedef struct ptb_state {
  /* Configuration Bits (96): bit 0, bit 1, bit 2. */
  bool enable_forward, enable_reverse, clockwise;
  float point_size;                 /* Point Size (98), pixels */
  float line_width;                 /* Line Width (99), pixels */
  uint16_t clip_left, clip_bottom;  /* Clip Window (102), pixels */
  uint16_t clip_width, clip_height;
  int16_t viewport_x, viewport_y;   /* Viewport Offset (103), 12.4 */
  float z_min, z_max;               /* Z min/max Clipping Planes (104), Zs units */
  float xy_scale_x, xy_scale_y;     /* Clipper XY Scaling (105), 1/16 pixel */
  float z_scale, z_offset;          /* Clipper Z Scale and Offset (106) */
  /* Shader-record flags: bit 2 "enable clipping", bit 1 "point size
   * included in shaded vertex data". */
  bool clip_enable, per_vertex_point_size;
  /* The trace hook (v3d/trace.h) with the draw's shader record, for the
   * GS_TRACE_PRIM events, or NULL (ptb_state_init): one test a primitive. */
  const struct gs_trace *trace;
  uint32_t trace_record;
} ptb_state;

/* Sets the defaults: both faces enabled, counter-clockwise front, point
 * size and line width 1, a clip window covering every tile, viewport
 * offset 0, Z planes [0, 1], Z scale and offset 0.5 (so the Z planes are
 * -Wc <= Zc <= Wc), XY scaling 0 (the driver must set it before clipping
 * is enabled), clipping off, point size from the state. */
void ptb_state_init(ptb_state *st);

/* ---- shaded vertices ------------------------------------------------------- */

/* One vertex as the coordinate shader wrote it (RG §7): clip-space
 * Xc..Wc, screen Xs/Ys in 12.4 relative to the viewport centre, Zs, 1/Wc
 * and the optional point size. */
typedef struct ptb_vertex {
  float xc, yc, zc, wc;
  int16_t xs, ys;
  float zs, inv_wc;
  float point_size;
} ptb_vertex;

/* Decodes the 7 (or 8, with has_point_size) 32-bit rows the coordinate
 * shader writes to the VPM: rows 0-3 Xc, Yc, Zc, Wc; row 4 Ys in bits
 * 31:16 and Xs in bits 15:0; row 5 Zs; row 6 1/Wc; row 7 point size.
 * Without a point-size row, point_size is set to 0. */
void ptb_vertex_unpack(ptb_vertex *v, const uint32_t *rows, bool has_point_size);

/* The shaded vertices of a draw: original index i is v[i - first]. */
typedef struct ptb_vertices {
  const ptb_vertex *v;
  uint32_t first, count;
} ptb_vertices;

/* ---- primitive assembly ------------------------------------------------------ */

/* Primitive modes of records 32 and 33 (RG Table 38). */
typedef enum ptb_mode {
  PTB_POINTS = 0,
  PTB_LINES = 1,
  PTB_LINE_LOOP = 2,
  PTB_LINE_STRIP = 3,
  PTB_TRIANGLES = 4,
  PTB_TRIANGLE_STRIP = 5,
  PTB_TRIANGLE_FAN = 6
} ptb_mode;

typedef enum ptb_index_type {
  PTB_INDEX_NONE = 0, /* Vertex Array Primitives (33): indices first, first+1, ... */
  PTB_INDEX_8,        /* Indexed Primitive List (32), 8-bit indices */
  PTB_INDEX_16        /* Indexed Primitive List (32), 16-bit little-endian */
} ptb_index_type;

/* One draw call. */
typedef struct ptb_draw {
  ptb_mode mode;
  ptb_index_type index_type;
  const uint8_t *indices; /* the index list as bytes (ignored for arrays) */
  uint32_t count;         /* number of indices or vertices */
  uint32_t first;         /* first vertex index (arrays only) */
  uint32_t tag;           /* the caller's draw number, copied to each primitive */
} ptb_draw;

/* Vertices per primitive of `mode`: 1, 2 or 3; 0 for an unknown mode. */
unsigned ptb_mode_vertices(ptb_mode mode);

/* Number of whole primitives `count` vertices make in `mode` (incomplete
 * trailing primitives are dropped); 0 for an unknown mode. */
uint32_t ptb_prim_count(ptb_mode mode, uint32_t count);

/* Primitive k (0 <= k < ptb_prim_count) of draw d: stores its original
 * vertex indices in idx[0..n-1] in the order the PTB keeps them and returns
 * n (1, 2 or 3). The last vertex of each primitive (idx[n-1]) is the
 * provoking vertex of GL's last-vertex convention; triangle strips swap the
 * first two vertices of every odd triangle so all keep the strip's winding:
 * (k, k+1, k+2) for even k, (k+1, k, k+2) for odd k; fans are (0, k+1, k+2);
 * a loop closes with (n-1, 0). Returns 0 if k is out of range or the mode
 * or index type is unknown. Does not check indices against any vertices. */
unsigned ptb_assemble(const ptb_draw *d, uint32_t k, uint32_t idx[3]);

/* ---- face culling ---------------------------------------------------------- */

/* Twice the signed area of a triangle in 12.4 units squared,
 * A = (x1-x0)(y2-y0) - (x2-x0)(y1-y0), with y up the frame buffer
 * (RG Table 38, record 96). Exact for any 16-bit-plus-offset coordinates. */
int64_t ptb_area(const int32_t x[3], const int32_t y[3]);

/* True if a triangle of area A (ptb_area) is forward-facing: A > 0 when the
 * clockwise bit is clear, A < 0 when it is set. A = 0 is never forward. */
bool ptb_forward_facing(const ptb_state *st, int64_t area);

/* True if the configuration bits cull a triangle of area A: its face
 * (forward or reverse) is not enabled. Zero-area triangles are always
 * culled: they cover no sample under the fill rule. */
bool ptb_culled(const ptb_state *st, int64_t area);

/* ---- clipping ------------------------------------------------------------- */

/* A clipping plane p: a clip-space point c is inside iff its distance
 * p[0]*Xc + p[1]*Yc + p[2]*Zc + p[3]*Wc + p[4] >= 0 (only the W plane has
 * a constant term). */
typedef struct ptb_planes {
  double p[PTB_CLIP_PLANES][5];
} ptb_planes;

/* Plane indices, in the order the clipper applies them. */
enum {
  PTB_PLANE_W,      /* Wc >= PTB_CLIP_W_MIN */
  PTB_PLANE_NEAR,   /* Zs >= z_min (records 104 and 106) */
  PTB_PLANE_FAR,    /* Zs <= z_max */
  PTB_PLANE_LEFT,   /* Xs >= -PTB_GUARD_BAND (record 105) */
  PTB_PLANE_RIGHT,  /* Xs <= +PTB_GUARD_BAND */
  PTB_PLANE_BOTTOM, /* Ys >= -PTB_GUARD_BAND */
  PTB_PLANE_TOP     /* Ys <= +PTB_GUARD_BAND */
};

/* Derives the planes from the state. With Zs = Zc/Wc*z_scale + z_offset
 * (record 106) and Wc > 0, Zs >= z_min is z_scale*Zc + (z_offset-z_min)*Wc
 * >= 0 and Zs <= z_max is (z_max-z_offset)*Wc - z_scale*Zc >= 0; with
 * Xs = Xc/Wc*xy_scale_x (record 105), |Xs| <= G is G*Wc -+ xy_scale_x*Xc
 * >= 0. */
void ptb_planes_init(ptb_planes *pl, const ptb_state *st);

/* Bit i set iff the clip-space point (Xc, Yc, Zc, Wc) is outside plane i.
 * NaN distances count as outside. */
unsigned ptb_outcode(const ptb_planes *pl, const double c[4]);

/* A vertex of a clipped polygon: clip-space position, barycentric weights
 * relative to the original primitive's vertices (c = sum b[k] * V_k), and
 * which original vertex it is (0..2), or -1 for a vertex the clipper made. */
typedef struct ptb_clip_point {
  double c[4];
  double b[3];
  int orig;
} ptb_clip_point;

typedef struct ptb_clip_poly {
  unsigned n;
  ptb_clip_point p[PTB_CLIP_MAX_VERTS];
} ptb_clip_poly;

typedef enum ptb_clip_result {
  PTB_CLIP_INSIDE,  /* inside every plane: draw the primitive unchanged */
  PTB_CLIP_OUTSIDE, /* discard: wholly outside a plane, or not finite */
  PTB_CLIP_CLIPPED  /* crossed planes: use the clipped polygon */
} ptb_clip_result;

/* Clips the triangle (or, with nverts = 2, the line) v[0..nverts-1] in
 * homogeneous clip space, Sutherland-Hodgman over the planes in index
 * order. On PTB_CLIP_CLIPPED poly holds the clipped polygon (a segment for
 * lines) in the triangle's winding order; on PTB_CLIP_INSIDE poly holds
 * the original vertices. A primitive with a non-finite Xc..Wc is
 * PTB_CLIP_OUTSIDE. An intersection is always computed from the inside
 * vertex towards the outside one, so an edge shared by two triangles is cut
 * at the same point in both. The clipped polygon may have fewer than three
 * vertices when the triangle only touches a plane (then it is
 * PTB_CLIP_OUTSIDE as well). */
ptb_clip_result ptb_clip(const ptb_planes *pl, const ptb_vertex *const v[], unsigned nverts, ptb_clip_poly *poly);

/* One vertex of a Clipped Primitive Record (RG Table 44):
 * Xs, Ys (12.4, relative to the viewport centre), Zs, 1/Wc and the three
 * varying-interpolation coefficients (the barycentric weights of the
 * original vertices; the third is 0 for lines). */
typedef struct ptb_clip_vertex {
  int16_t xs, ys;
  float zs, inv_wc;
  float coef[3];
} ptb_clip_vertex;

typedef struct ptb_clip_record {
  ptb_clip_vertex v[3];
} ptb_clip_record;

/* The record vertex for polygon point p of a primitive with original
 * vertices v: an original vertex keeps the coordinate shader's Xs, Ys, Zs
 * and 1/Wc; a new one gets the coordinate shader's transform in float:
 * r = 1/Wc, Xs = trunc(Xc*xy_scale_x*r), Ys likewise (saturated to 16
 * bits), Zs = Zc*z_scale*r + z_offset. */
void ptb_clip_vertex_make(ptb_clip_vertex *out, const ptb_state *st, const ptb_vertex *const v[],
                          const ptb_clip_point *p);

/* ---- tile coverage --------------------------------------------------------- */

/* The tile grid of a frame (RG §5): tiles of tile_w x tile_h
 * pixels, tiles_x x tiles_y of them, tile (tx, ty) holding pixels
 * [tx*tile_w, (tx+1)*tile_w) x [ty*tile_h, (ty+1)*tile_h), numbered
 * ty*tiles_x + tx (the order the render list branches to them in). */
typedef struct ptb_grid {
  uint32_t tiles_x, tiles_y;
  uint32_t tile_w, tile_h;
  unsigned samples;  /* sample points per pixel: 1 (the centre) or 4 (pse_sample_x/y) */
} ptb_grid;

/* The grid of record 112: tiles_x x tiles_y tiles, 64x64 pixels, 32x32
 * with 4x multisampling (flag bit 0), half as high with 64-bit colour
 * (flag bit 1) (tlb_tile_size); one sample per pixel. A caller whose
 * rasteriser oversamples 4x (Configuration Bits 7:6 = 1, with 4x
 * multisample tiles) sets samples = 4: a pixel then counts as covered
 * when any of its 4 sample points is. */
void ptb_grid_make(ptb_grid *g, uint32_t tiles_x, uint32_t tiles_y, bool multisample, bool color64);

/* Tiles of `tile` pixels needed to cover `pixels` along one axis. */
uint32_t ptb_tiles_for(uint32_t pixels, uint32_t tile);

/* The pixels a primitive may cover: columns x0..x1 and rows y0..y1
 * inclusive (empty when x0 > x1 or y0 > y1). */
typedef struct ptb_window {
  int32_t x0, y0, x1, y1;
} ptb_window;

/* The clip window (record 102) intersected with the grid's pixels. */
void ptb_window_make(ptb_window *w, const ptb_state *st, const ptb_grid *g);

typedef void ptb_tile_visit(void *ctx, uint32_t tile);

/* Visits, once each and in increasing order, every tile of grid g holding
 * at least one pixel of window w whose sample point the convex polygon
 * covers, and returns how many. w must lie within the grid. x[], y[] are n <= 8 vertices
 * in absolute 12.4 units (Xs + viewport offset), counter-clockwise (y up):
 * positive area. visit may be NULL (count only).
 *
 * The coverage rule (the PSE must use the same): pixel (px, py) is sampled
 * at (16px+8, 16py+8), or, when g->samples = 4, at its 4 sample points
 * (pse_sample_x/y), and is covered when any of them is; for each edge from (xi, yi) to (xj, yj),
 * E = (xj-xi)(Y-yi) - (yj-yi)(X-xi) must be > 0, or = 0 on an inclusive
 * edge: one with yj < yi (a left edge) or yj = yi and xj > xi (an edge with
 * the interior at larger y, "top" in memory-row order). Zero-length edges
 * are ignored. This is exact: a tile is visited iff some sample in it is
 * covered. */
uint32_t ptb_cover_polygon(const int32_t *x, const int32_t *y, unsigned n, const ptb_window *w, const ptb_grid *g,
                           ptb_tile_visit *visit, void *ctx);

/* ---- the tile lists ---------------------------------------------------------- */

/* A binned primitive. */
typedef struct ptb_prim {
  uint32_t index[3]; /* original vertex indices (unused slots 0) */
  uint32_t tag;      /* ptb_draw.tag of the draw it came from */
  uint32_t clip;     /* clipped: index of its ptb_clip_record; else PTB_NONE */
  uint8_t nverts;    /* 1 point, 2 line, 3 triangle */
  uint8_t clip_mask; /* bit k: vertex k comes from the clip record */
} ptb_prim;

typedef struct ptb_ref {
  uint32_t prim; /* index into ptb_bins.prims */
  uint32_t next; /* next reference of the same tile, or PTB_NONE */
  uint32_t tile; /* that tile (the references come in primitive order) */
} ptb_ref;

typedef struct ptb_tile {
  uint32_t head, tail; /* first and last reference, PTB_NONE if empty */
  uint32_t count;
} ptb_tile;

/* What happened to the primitives, for traces and teaching. */
typedef struct ptb_stats {
  uint64_t assembled;  /* primitives assembled from draws */
  uint64_t culled;     /* culled by facing; zero-area triangles (or fan
                          pieces), zero-length lines, sizes <= 0 or NaN */
  uint64_t discarded;  /* outside a clip plane, or not finite */
  uint64_t clipped;    /* primitives that crossed a plane and were clipped */
  uint64_t no_tiles;   /* survivors that covered no sample of the window */
  uint64_t binned;     /* primitives stored (a clipped triangle stores its fan) */
  uint64_t tile_refs;  /* tile-list entries written */
} ptb_stats;

/* The caller's storage. */
typedef struct ptb_buffers {
  ptb_tile *tiles;
  uint32_t tile_cap;   /* >= grid tiles_x * tiles_y */
  ptb_prim *prims;
  uint32_t prim_cap;
  ptb_clip_record *clips;
  uint32_t clip_cap;
  ptb_ref *refs;
  uint32_t ref_cap;
} ptb_buffers;

typedef struct ptb_bins {
  ptb_grid grid;
  ptb_tile *tiles;
  ptb_prim *prims;
  uint32_t prim_cap, prim_count;
  ptb_clip_record *clips;
  uint32_t clip_cap, clip_count;
  ptb_ref *refs;
  uint32_t ref_cap, ref_count;
  ptb_stats stats;
} ptb_bins;

/* Sets up empty lists for the tiles of grid g in the caller's buffers.
 * PTB_ERR_TILES if a count is 0 or above PTB_MAX_TILES_X/Y, a tile side is
 * 0 or above PTB_TILE_SIZE, or the tile array is too small. */
ptb_result ptb_bins_init(ptb_bins *b, const ptb_grid *g, const ptb_buffers *buf);

/* Empties every list and the counters, keeping the storage. */
void ptb_bins_clear(ptb_bins *b);

/* Copies up to cap primitive numbers of tile (tx, ty) in list order into
 * out and returns the list length (which may exceed cap). */
uint32_t ptb_tile_prims(const ptb_bins *b, uint32_t tx, uint32_t ty, uint32_t *out, uint32_t cap);

/* Appends primitive *prim (and, if rec is not NULL, its clip record, whose
 * number goes into the stored primitive's `clip`) to every tile the convex
 * counter-clockwise polygon x[], y[] (absolute 12.4) covers in window w,
 * per ptb_cover_polygon. A primitive that covers no sample is not stored
 * (*tiles = 0). Nothing is stored unless everything fits: otherwise
 * PTB_ERR_PRIMS_FULL, PTB_ERR_CLIPS_FULL or PTB_ERR_REFS_FULL. *tiles, if
 * not NULL, receives the number of tiles appended to. */
ptb_result ptb_bins_add(ptb_bins *b, const ptb_prim *prim, const ptb_clip_record *rec, const int32_t *x,
                        const int32_t *y, unsigned n, const ptb_window *w, uint32_t *tiles);

/* Assembles, culls, clips and bins every primitive of draw d, appending
 * each survivor to the lists of the tiles it covers, in submission order.
 * Errors: PTB_ERR_MODE (bad mode or index type), PTB_ERR_INDEX (an index
 * outside vs), PTB_ERR_*_FULL (storage exhausted). On error the primitive
 * that failed and those after it are not binned; `*done`, if not NULL,
 * receives the number of assembled primitives fully handled. */
ptb_result ptb_bin_draw(ptb_bins *b, const ptb_state *st, const ptb_vertices *vs, const ptb_draw *d,
                        uint32_t *done);

/* ptb_bin_draw for the draw's primitives k0..k1-1 only (k1 past the last
 * means up to it): `*done` receives k0 plus the number fully handled. Each
 * primitive is binned on its own, so binning the parts [0, k1), [k1, k2), ...
 * into separate bins and reading the lists part after part gives each
 * tile the primitives of binning the whole draw into one, in the same
 * order (the control-list executor bins a large draw so, in parallel). */
ptb_result ptb_bin_range(ptb_bins *b, const ptb_state *st, const ptb_vertices *vs, const ptb_draw *d, uint32_t k0,
                         uint32_t k1, uint32_t *done);

/* The executor splits a draw into parts only from this many primitives on
 * (each part at least this many; default 4096), as starting threads costs
 * more than binning a few primitives. Tests set it to 1 to split every draw. */
extern uint32_t ptb_split_min;

/* ---- benchmark ------------------------------------------------------------- */

/* Bins n random small triangles (up to 32 pixels across, in a 1920x1080
 * frame, clipping on) drawn from a fixed seed, and stores the throughput in
 * triangles per second; stats, if not NULL, receives the counters. Returns
 * PTB_OK, or PTB_ERR_NOMEM. */
ptb_result ptb_bench_triangles(uint32_t n, uint32_t seed, double *tris_per_second, ptb_stats *stats);

#endif
