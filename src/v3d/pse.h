/* pse.h — primitive setup (PSE) and rasterisation (the FEP's coverage and
 * interpolation) for points, lines and triangles, as pure functions over
 * plain structs. Facts: RG §7, §11, RG Table 29; every choice no
 * source settles (fill rule, sample point, Z rounding, provoking vertex,
 * line and point rules, how W×VP+C yields each interpolation mode):
 * docs/rasterization.md.
 *
 * The PSE knows neither control lists nor any ISA. Its caller (the renderer)
 * hands it shaded vertices as the VPM holds them and the render state of the
 * records that concern it; it hands back coverage and the per-fragment
 * values a fragment shader starts with.
 *
 * Using it, per primitive and per tile (64×64 pixels, or the smaller tiles
 * of multisampling and 64-bit colour, pse_state.tile_w × tile_h):
 *
 *   pse_prim prim;                                // caller's scratch
 *   if (pse_setup_triangle(&state, &v0, &v1, &v2, &prim) == PSE_DRAW) {
 *     pse_coverage cov;                           // caller's scratch
 *     pse_rasterize_tile(&prim, tile_col, tile_row, &cov);
 *     for (int i = 0; i < cov.count; i++) {
 *       pse_batch batch;                          // one fragment batch
 *       pse_batch_setup(&prim, &cov.block[i], &batch);
 *       ... run the fragment shader on batch (lane mask = batch.mask) ...
 *     }
 *   }
 *
 * Coordinates. Xs, Ys are signed 12.4 fixed point (1/16 pixel) relative to
 * the viewport centre; the Viewport Offset record (103) adds the centre,
 * itself 12.4. y increases with the memory row (row 0 is what the Reference
 * Guide calls the bottom and Mesa the top). Pixel (x, y) covers
 * [x, x+1) × [y, y+1) and is sampled at its centre (x+0.5, y+0.5), or,
 * with 4× multisampling (pse_state.samples = 4), at the four points of
 * pse_sample_x/y (docs/rasterization.md, "4× multisampling"). Z, W and the
 * varyings are always evaluated at the centre: the fragment shader runs
 * once per pixel.
 *
 * Coverage. Integer edge functions E(p) = a·px + b·py + c over the absolute
 * 12.4 sample position p; a sample is covered when E(p) ≥ 0 for every edge.
 * c carries the fill-rule bias: a sample exactly on an edge belongs to the
 * primitive only if the edge is a "left" edge (the interior lies at larger
 * x) or a "low" horizontal edge (the interior lies at larger y), so an edge
 * shared by two primitives draws each of its samples exactly once.
 *
 * Lane order. A 4×4 block is one batch of 16 lanes, in the VideoCore IV's
 * fragment element order: element e = 4·quad + i, where bit 0 of i is the x offset and bit 1
 * the y offset inside a 2×2 quad, and quads 0..3 sit at (0,0), (2,0), (0,2),
 * (2,2) inside the block: x = PSE_LANE_DX(e), y = PSE_LANE_DY(e).
 *
 * The varying FIFO. Each fragment gets, per FIFO entry, VP (per lane) and C
 * (per primitive) such that v = VP × W + C yields the value the entry's
 * interpolation mode asks for (the neutral fragment input of src/isa/isa.h;
 * a VideoCore IV program computes it with its varying register). Points put the two point-sprite coordinates (s, t) first, lines one
 * line coordinate, then come the shader record's varyings in order.
 *
 * Rounding. Setup and interpolation use IEEE double arithmetic and set the
 * host's rounding mode to nearest for their duration (a shader run sets its
 * own mode), so their results do not depend on the caller's mode.
 */
#ifndef GS_V3D_PSE_H
#define GS_V3D_PSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PSE_MAX_VARYINGS 32  /* shader record varyings (Flat Shade Flags width) */
#define PSE_MAX_EXTRA 2      /* point sprite s, t; or the line coordinate */
#define PSE_MAX_FIFO (PSE_MAX_VARYINGS + PSE_MAX_EXTRA)
#define PSE_TILE_SIZE 64     /* largest tile side in pixels (non-MS, 32-bit colour) */
#define PSE_MS_SAMPLES 4     /* samples per pixel with 4× multisampling */
#define PSE_BLOCK_SIZE 4     /* a batch is one 4×4 block */
#define PSE_MAX_BLOCKS ((PSE_TILE_SIZE / PSE_BLOCK_SIZE) * (PSE_TILE_SIZE / PSE_BLOCK_SIZE))
#define PSE_MAX_SIZE 2048.0f /* point sizes and line widths clamp here (pixels) */
#define PSE_Z_MAX 0xFFFFFFu  /* 24-bit Z */

/* Offset of lane e (element number 0..15) inside its 4×4 block. */
#define PSE_LANE_DX(e) (((e) & 1) | (((e) >> 1) & 2))
#define PSE_LANE_DY(e) ((((e) >> 1) & 1) | (((e) >> 2) & 2))

/* Sample s (0..3) of a 4× multisample pixel (x, y) lies at
 * (16x + pse_sample_x[s], 16y + pse_sample_y[s]) in 12.4: the rotated grid
 * (6, 2), (14, 6), (2, 10), (10, 14) sixteenths from the pixel's low
 * corner. The hardware's positions are not documented anywhere;
 * this is the standard 4× pattern of D3D and Vulkan. The order is the
 * sample order of MS_FLAGS bits and of the tile buffer. The PTB bins with
 * the same points. */
extern const uint8_t pse_sample_x[PSE_MS_SAMPLES], pse_sample_y[PSE_MS_SAMPLES];
/* The single sample of a pixel without multisampling: its centre. */
#define PSE_CENTRE 8
/* The sample points of a pixel for `samples` = 4 (pse_sample_x/y) or 1
 * (the centre): their count, with *x and *y pointing at the offsets. */
unsigned pse_sample_points(unsigned samples, const uint8_t **x, const uint8_t **y);
/* The smallest and largest offset, on either axis, of those points: a
 * pixel whose square misses the box [lo, hi] has no sample in it. */
void pse_sample_range(unsigned samples, int *lo, int *hi);

/* Configuration Bits (96), byte 0: the bits the PSE uses. */
enum {
  PSE_CFG_FORWARD = 1u << 0,      /* enable forward-facing primitives */
  PSE_CFG_REVERSE = 1u << 1,      /* enable reverse-facing primitives */
  PSE_CFG_CLOCKWISE = 1u << 2,    /* clockwise primitives are forward */
  PSE_CFG_DEPTH_OFFSET = 1u << 3  /* enable depth offset (triangles) */
};

/* Interpolation of one varying: the SPH PixelImap codes
 * (NVIDIA's SPH description; their meaning: docs/rasterization.md). */
typedef enum pse_interp {
  PSE_INTERP_UNUSED = 0,        /* not set up: the FIFO delivers 0.0 */
  PSE_INTERP_CONSTANT = 1,      /* flat: the provoking vertex's value */
  PSE_INTERP_PERSPECTIVE = 2,   /* perspective-correct */
  PSE_INTERP_SCREEN_LINEAR = 3  /* linear in screen space */
} pse_interp;

/* Why a setup draws nothing (or PSE_DRAW). */
typedef enum pse_result {
  PSE_DRAW = 0,       /* set up; the primitive may still cover no sample */
  PSE_DEGENERATE = 1, /* zero area, zero length, zero or NaN size */
  PSE_CULLED = 2,     /* its face is not enabled (Configuration Bits) */
  PSE_OUTSIDE = 3     /* its bounding box holds no sample centre inside the
                         clip window */
} pse_result;

/* The render state the PSE reads, from the records of RG Table 38
 * (96 configuration bits, 97 flat shade flags, 98 point size, 99 line width,
 * 101 depth offset, 102 clip window, 103 viewport offset) and the shader
 * record (varying count, per-vertex point size). */
typedef struct pse_state {
  uint32_t config;              /* Configuration Bits, PSE_CFG_* */
  int16_t vp_x, vp_y;           /* viewport centre, 12.4 */
  uint16_t clip_left, clip_bottom, clip_width, clip_height; /* pixels */
  float point_size;             /* pixels, when not per vertex */
  float line_width;             /* pixels */
  uint16_t depth_offset_factor; /* float 1-8-7: the upper half of a float32 */
  uint16_t depth_offset_units;  /* in units of the 24-bit Z */
  bool per_vertex_point_size;   /* shaded vertices carry a point size row */
  bool provoking_first;         /* flat shading takes the first vertex, else the last */
  uint8_t nvary;                /* varyings per vertex, 0..PSE_MAX_VARYINGS */
  uint8_t interp[PSE_MAX_VARYINGS]; /* pse_interp per varying */
  /* Linkage: varying i is shaded-vertex row src[i], or, when src[i] < 0
   * (the previous stage does not write it), the constant dflt[i] (raw float
   * bits). pse_state_init makes src[i] = i. */
  int8_t src[PSE_MAX_VARYINGS];
  uint32_t dflt[PSE_MAX_VARYINGS];
  uint8_t samples;              /* coverage samples per pixel: 1 (centre) or 4 */
  uint8_t tile_w, tile_h;       /* tile size in pixels: 64×64, 32×32, 64×32, 32×16 */
} pse_state;

/* A state with every face enabled, counter-clockwise forward, no depth
 * offset, a clip window of width × height pixels at (0, 0), viewport offset
 * (0, 0), point size and line width 1, provoking vertex last, no varyings,
 * one sample per pixel, 64×64 tiles. */
void pse_state_init(pse_state *st, uint16_t width, uint16_t height);

/* Sets interp[i] from the Flat Shade Flags record (97) for i < nvary: bit i
 * set gives PSE_INTERP_CONSTANT, clear gives PSE_INTERP_PERSPECTIVE (what
 * the hardware offers; an SPH may ask for ScreenLinear instead). */
void pse_state_set_flat_flags(pse_state *st, uint32_t flags);

/* One shaded vertex as the VPM holds it for the PSE (RG §7). */
typedef struct pse_vertex {
  int16_t xs, ys;   /* 12.4, relative to the viewport centre */
  float zs;         /* Z, nominally in [0, 1] */
  float inv_wc;     /* 1/Wc, positive for a primitive the PTB kept */
  float point_size; /* pixels; read only if pse_state.per_vertex_point_size */
  float vary[PSE_MAX_VARYINGS];
} pse_vertex;

/* Reads one shaded vertex whose word k is at col[k × stride] (a VPM column:
 * stride 16): row 0 = Ys[31:16] | Xs[15:0], row 1 = Zs, row 2 = 1/Wc,
 * [row 3 = point size], then nvary varyings. */
void pse_vertex_unpack(const uint32_t *col, size_t stride, bool has_point_size,
                       int nvary, pse_vertex *v);

/* An edge: E(px, py) = a·px + b·py + c over absolute 12.4 sample positions;
 * covered iff E ≥ 0 (the fill-rule bias is in c). |a|, |b| < 2^17. */
typedef struct pse_edge {
  int64_t c;
  int32_t a, b;
} pse_edge;

/* A weight plane: (u·px + v·py + w) / den of the primitive. */
typedef struct pse_plane {
  int64_t u, v, w;
} pse_plane;

/* How a FIFO entry makes VP from the weights λ1, λ2 of a sample. */
enum {
  PSE_VP_ZERO = 0,         /* VP = ±0 with C's sign: v = C exactly */
  PSE_VP_PLANE = 1,        /* VP = λ1·q1 + λ2·q2 (the hardware's plane) */
  PSE_VP_PLANE_OVER_W = 2  /* VP = (λ1·q1 + λ2·q2) / W (screen-linear) */
};

/* One varying FIFO entry: how VP and C are made. */
typedef struct pse_fifo_entry {
  uint8_t kind;  /* PSE_VP_* */
  float c;       /* C: the offset, per primitive */
  double q1, q2; /* VP numerator = λ1·q1 + λ2·q2 */
} pse_fifo_entry;

/* A set-up primitive: everything the rasteriser and the interpolation need,
 * independent of the tile. Built by pse_setup_*, read-only afterwards (tiles
 * in parallel may share it). */
typedef struct pse_prim {
  uint8_t kind;    /* 1 point, 2 line, 3 triangle (vertex count) */
  uint8_t nedges;  /* 3 or 4 */
  uint8_t reverse; /* REV_FLAG: 1 for a reverse-facing triangle */
  uint8_t nfifo;   /* varying FIFO entries (extras + varyings) */
  uint8_t samples; /* pse_state.samples */
  uint8_t tile_w, tile_h; /* pse_state's tile size */
  pse_edge edge[4];
  int32_t x0, y0, x1, y1;  /* pixels that may be covered: [x0,x1) × [y0,y1),
                              those with a sample in the bounding box, ∩ clip
                              window */
  uint8_t rect_clipped;    /* the clip window (or the 16-bit range) made that
                              rectangle smaller than the bounding box's */
  pse_plane lambda[2];     /* barycentric weights λ1, λ2 (numerators) */
  double den;              /* their common denominator */
  double z0, dz1, dz2;     /* Z × (2^24−1) at vertex 0 (+ depth offset), deltas */
  double iw0, diw1, diw2;  /* 1/W at vertex 0, deltas to vertices 1 and 2 */
  pse_fifo_entry fifo[PSE_MAX_FIFO];
  uint8_t imap[PSE_MAX_FIFO]; /* each entry's pse_interp (the extras: screen-linear) */
  /* Per-block shortcuts, made by the setup. The weights' numerators at the
   * 16 lane centres are lane 0's plus an integer step per lane (below
   * 2^24 in magnitude, exact in double): step1/step2[e] for λ1, λ2. A plane
   * whose deltas are both zero is flat: λ·0 is ±0 for the finite weights,
   * so every lane gets the value at vertex 0 (z_flat: Z, w_flat: W, set
   * in zc, wc); a block then needs the weights only for VP. */
  double step1[16], step2[16];
  uint8_t z_flat, w_flat;
  uint32_t zc;                /* Z of every lane when z_flat */
  float wc;                   /* W of every lane when w_flat */
  uint64_t vp_planes;         /* bit k: FIFO entry k's VP needs the weights */
} pse_prim;

/* Sets up a triangle (vertices in primitive order). Culls by face per the
 * Configuration Bits: A = (x1−x0)(y2−y0) − (x2−x0)(y1−y0) > 0 is forward
 * unless PSE_CFG_CLOCKWISE, which makes A < 0 forward. Returns PSE_DRAW or
 * why not; *p is valid only for PSE_DRAW. */
pse_result pse_setup_triangle(const pse_state *st, const pse_vertex *v0,
                              const pse_vertex *v1, const pse_vertex *v2,
                              pse_prim *p);
/* Sets up a line of the state's width from v0 to v1 (a parallelogram, see
 * docs/rasterization.md). Lines are never culled by face. */
pse_result pse_setup_line(const pse_state *st, const pse_vertex *v0,
                          const pse_vertex *v1, pse_prim *p);
/* Sets up a point: a square of the point size centred on the vertex. */
pse_result pse_setup_point(const pse_state *st, const pse_vertex *v, pse_prim *p);

/* A 4×4 block with coverage: (x, y) its lowest pixel (absolute, multiples of
 * 4), mask the covered lanes in lane order (a lane is covered when
 * any of its samples is). With 4 samples, bit 4·e + s of `samples` says
 * whether sample s of lane e is covered (0 with one sample). */
typedef struct pse_block {
  uint16_t x, y;
  uint16_t mask;
  uint64_t samples;
} pse_block;

/* The blocks of one primitive in one tile, in order: 16×16 blocks by rows
 * (increasing y, then x), the 4×4 blocks of each by rows. */
typedef struct pse_coverage {
  int count;
  pse_block block[PSE_MAX_BLOCKS];
} pse_coverage;

/* Rasterises p inside tile (col, row) — pixels [w·col, w·col+w) ×
 * [h·row, h·row+h) for p's tile size w × h — intersected with the clip
 * window, testing p's samples. Fills cov with the blocks that have
 * coverage and returns their count. col, row < 1024. */
int pse_rasterize_tile(const pse_prim *p, int tile_col, int tile_row, pse_coverage *cov);

/* The fragment shader's inputs for one block: a batch of 16 lanes. */
typedef struct pse_batch {
  uint16_t mask;           /* covered lanes (the lane mask / MS_FLAGS) */
  uint8_t reverse;         /* REV_FLAG: a reverse-facing primitive */
  uint8_t nfifo;           /* varying FIFO entries */
  uint16_t x[16], y[16];   /* pixel coordinates */
  uint32_t z[16];          /* 24-bit Z */
  float w[16];             /* W = 1 / (interpolated 1/w) */
  float c[PSE_MAX_FIFO];   /* C per FIFO entry: the offset */
  float vp[PSE_MAX_FIFO][16]; /* VP per FIFO entry and lane */
} pse_batch;

/* Fills *out for block b of p. Every lane gets values, covered or not (the
 * uncovered lanes of a quad are shaded too: derivatives need them). */
void pse_batch_setup(const pse_prim *p, const pse_block *b, pse_batch *out);

/* Only the 24-bit Z of the 16 lanes of block b (for early Z). */
void pse_block_depth(const pse_prim *p, const pse_block *b, uint32_t z[16]);

/* The same two for a caller that has set the host's rounding to nearest
 * itself (core/fpmode.h), around many blocks: they do not read or set the
 * mode, which costs more than a block's arithmetic. Same results. */
void pse_batch_setup_nearest(const pse_prim *p, const pse_block *b, pse_batch *out);
void pse_block_depth_nearest(const pse_prim *p, const pse_block *b, uint32_t z[16]);
/* A flat primitive's Z (z_flat): every lane's z[] is zc, and 1; else 0
 * and z[] untouched. pse_block_depth_nearest's first case, for a caller
 * that would rather not call it for that. */
static inline int pse_depth_flat(const pse_prim *p, uint32_t z[16]) {
  if (!p->z_flat) return 0;
  uint32_t zc = p->zc; /* a copy: z could alias it */
  for (int e = 0; e < 16; e++) z[e] = zc;
  return 1;
}

/* A block's weights λ1, λ2 at its 16 lane centres, kept between the early-Z
 * depth and the batch of the same block so that they are computed once
 * (valid: they are there). */
typedef struct pse_weights {
  double l1[16], l2[16];
  int valid;
} pse_weights;

/* pse_block_depth_nearest that leaves in *wt the weights it computed (none
 * for a flat Z: wt->valid = 0). */
void pse_block_depth_keep(const pse_prim *p, const pse_block *b, pse_weights *wt, uint32_t z[16]);
/* pse_batch_setup_nearest for the block pse_block_depth_keep gave wt and z
 * (z: its Z, copied to out->z). Same results. */
void pse_batch_setup_kept(const pse_prim *p, const pse_block *b, pse_weights *wt, const uint32_t z[16],
                          pse_batch *out);

/* Micro-benchmark (for `gpusim bench`): sets up and rasterises ntris
 * random small triangles (edges up to ~12 pixels, four perspective
 * varyings) inside one tile, then again with pse_batch_setup on every
 * block. Deterministic for a seed. */
typedef struct pse_bench_result {
  double setup_raster_per_s;  /* triangles/s: setup + coverage */
  double with_batches_per_s;  /* triangles/s: setup + coverage + batches */
  uint64_t fragments;         /* covered samples in one pass */
  uint64_t blocks;            /* 4×4 blocks in one pass */
} pse_bench_result;
void pse_bench(int ntris, uint32_t seed, pse_bench_result *r);

#endif
