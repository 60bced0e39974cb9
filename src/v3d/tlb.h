/* tlb.h — the tile buffer (TLB): the on-chip colour, depth and stencil
 * buffers of one tile — 64×64 pixels, 32×32 pixels × 4 samples in 4×
 * multisample mode, half as high with 64-bit colour (two 32-bit words per
 * sample) — the depth and stencil tests fragment shaders trigger by writing
 * TLB_Z, colour writes and loads, clears, and the stores and loads that move
 * a tile to and from a frame buffer in memory. Facts: RG §5 and Table 38
 * (records 26–29, 113, 114); choices: docs/tile-buffer.md.
 *
 * The unit knows nothing of shader units or control lists: it
 * takes up to 16 fragments at a time as arrays of absolute pixel
 * coordinates with a lane mask, and per-lane 4-bit sample coverage masks
 * (bit s = sample s; non-multisample tiles use bit 0) that the depth and
 * stencil tests clear where fragments fail.
 *
 * Blending is not a unit of the VideoCore IV: a fragment shader that blends
 * loads the tile's colour (loadc), mixes, and writes the result back.
 */
#ifndef GS_V3D_TLB_H
#define GS_V3D_TLB_H

#include <stdint.h>
#include "gpusim/mem.h"
#include "v3d/tiling.h"

#define TLB_SIZE 64            /* pixels per side of a non-multisample tile */
#define TLB_SAMPLES_MAX 4
/* Colour words (and depth-stencil words) of a tile in every mode: 64×64
 * pixels, 32×32 × 4 samples, 64×32 × 2 words, 32×16 × 4 samples × 2
 * words (RG §5): the buffer has one size. */
#define TLB_WORDS (TLB_SIZE * TLB_SIZE)

/* Compare functions, in the GL order the configuration bits and stencil
 * setup use (RG §5, record 96). */
enum { TLB_NEVER = 0, TLB_LESS, TLB_EQUAL, TLB_LEQUAL, TLB_GREATER, TLB_NOTEQUAL, TLB_GEQUAL, TLB_ALWAYS };
/* Stencil operations. */
enum { TLB_OP_ZERO = 0, TLB_OP_KEEP, TLB_OP_REPLACE, TLB_OP_INCR_SAT, TLB_OP_DECR_SAT, TLB_OP_INVERT,
       TLB_OP_INCR_WRAP, TLB_OP_DECR_WRAP };
/* Frame-buffer colour formats (record 113's codes differ: see
 * tlb_format_from_113); TLB_RGBA16F is what a 64-bit colour buffer stores,
 * 8 bytes per pixel. */
enum { TLB_RGBA8888 = 0, TLB_BGR565_DITHER = 1, TLB_BGR565 = 2, TLB_RGBA16F = 3 };
/* Which samples a store writes. */
enum { TLB_SAMPLE0 = 0, TLB_DECIMATE4 = 1 };

typedef struct tlb_stencil_face {
  uint8_t func, ref, value_mask, write_mask;
  uint8_t op_fail, op_zfail, op_zpass;
} tlb_stencil_face;

typedef struct gs_tlb {
  int ms;                  /* 1: 4× multisample (4 samples per pixel) */
  int color64;             /* 1: 64-bit colour, RG16F then BA16F per sample */
  unsigned width, height;  /* pixels of a tile (tlb_tile_size) */
  unsigned samples;        /* 1 or 4 */
  unsigned halves;         /* colour words per sample: 1, or 2 with color64 */
  uint32_t x0, y0;         /* pixel origin of the current tile */
  uint32_t clear_colour[2];/* record 114: low and high 32 bits */
  uint32_t clear_zs;       /* Z24 in bits 31:8, stencil in 7:0 */
  /* The batch's colour-register accesses so far: they pick the sample and
   * half the next one touches (tlb_colour_all, tlb_colour_ms, tlb_loadc). */
  unsigned n_all, n_ms, n_load;
  unsigned z_func;         /* configuration bits 14:12 */
  int z_write;             /* configuration bit 15 */
  int stencil_enabled;     /* set by a stencil setup write, reset per batch */
  tlb_stencil_face front, back;
  /* Block-major: the 4×4-pixel blocks of the tile in raster order, each
   * a run of planes of 16 words, one word per pixel in the PSE's lane
   * order (PSE_LANE_DX/DY), so a fragment batch's depth or colour for
   * one sample is one run of 16 words. A block has a depth-stencil plane
   * per sample and a colour plane per sample and word (RG16F, then BA16F
   * with 64-bit colour): tlb_zs_at and tlb_colour_at give the indices. */
  uint32_t colour[TLB_WORDS];
  uint32_t zs[TLB_WORDS];     /* Z24 << 8 | stencil */
} gs_tlb;

/* The lane of a 4×4 block's batch that has pixel (x mod 4, y mod 4): the
 * inverse of PSE_LANE_DX/DY, 2×2 quads in raster order, in a quad the
 * pixels (0,0), (1,0), (0,1), (1,1). */
static inline uint32_t tlb_lane_of(uint32_t x, uint32_t y) {
  return (x & 1u) | (y & 1u) << 1 | (x & 2u) << 1 | (y & 2u) << 2;
}
/* Index in zs[] of sample s of tile-local pixel (x, y). */
static inline uint32_t tlb_zs_at(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s) {
  return (((y >> 2) * (t->width >> 2) + (x >> 2)) * t->samples + s) * 16u + tlb_lane_of(x, y);
}
/* Index in colour[] of word h (0, or 1 for BA16F) of sample s of
 * tile-local pixel (x, y). */
static inline uint32_t tlb_colour_at(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s, unsigned h) {
  return ((((y >> 2) * (t->width >> 2) + (x >> 2)) * t->samples + s) * t->halves + h) * 16u + tlb_lane_of(x, y);
}

/* Frame buffer a tile is stored to or loaded from. */
typedef struct tlb_frame {
  gs_addr address;
  uint32_t width, height;  /* pixels */
  unsigned format;         /* TLB_RGBA8888 / TLB_BGR565_DITHER / TLB_BGR565 / TLB_RGBA16F */
  tiling_layout layout;    /* raster, T or LT */
  unsigned decimate;       /* TLB_SAMPLE0 or TLB_DECIMATE4 (multisample tiles) */
} tlb_frame;

/* Pixels of a tile (RG §5): 64×64; 32×32 with 4×
 * multisampling; half as high with 64-bit colour. The PTB's grid and the
 * renderer's tile coordinates use the same sizes. */
void tlb_tile_size(int ms, int color64, unsigned *width, unsigned *height);
/* Sets up an empty tile buffer; ms selects 4× multisample mode, color64
 * 64-bit colour. */
void tlb_init(gs_tlb *t, int ms, int color64);
/* tlb_init without writing the buffers' words (32 KB), for a caller that
 * clears both (tlb_clear(t, 1, 1)) before anything reads them. */
void tlb_init_for_clear(gs_tlb *t, int ms, int color64);
/* The clear values of record 114: the colour's low and high 32 bits (a
 * 32-bit tile uses the low word; a 64-bit one RG16F = lo, BA16F = hi); z
 * is 24-bit. */
void tlb_set_clear(gs_tlb *t, uint32_t colour_lo, uint32_t colour_hi, uint32_t z, uint8_t stencil);
/* Clears the colour and/or depth-stencil buffers to the clear values. */
void tlb_clear(gs_tlb *t, int colour, int zs);
/* Makes tile (tile_x, tile_y) current: its pixel origin. */
void tlb_begin_tile(gs_tlb *t, unsigned tile_x, unsigned tile_y);
/* Depth state from the configuration bits (record 96). */
void tlb_set_depth(gs_tlb *t, unsigned func, int write);
/* A fragment batch starts: stencil is disabled until a setup is written,
 * and the colour registers' sample order starts again. */
void tlb_begin_batch(gs_tlb *t);
/* A write to TLB_STENCIL_SETUP (element 0's value). */
void tlb_stencil_setup(gs_tlb *t, uint32_t word);

/* The lanes of a fragment batch, as every TLB access of the batch needs
 * them: tlb_batch_of works them out once, for the tile current at the
 * time, and the *_batch entry points below take them. The entry points by
 * x[], y[] (tlb_z_write, ...) do the same as their *_batch form with
 * tlb_batch_of(t, x, y) made for the one call. */
typedef struct tlb_batch {
  const uint32_t *x, *y; /* the lanes' pixels (absolute), which must outlive the batch */
  int block;             /* the lanes are one aligned 4×4 block of the tile in batch lane order */
  uint32_t base;         /* with block: the index of the block's sample-0 plane in zs[] */
  /* Set by tlb_early_z_batch for tlb_z_write_early: the Z it tested (24
   * bits), the samples that passed, the depth function. */
  int early;
  unsigned early_func;
  uint32_t early_z[16], early_pass[16];
} tlb_batch;
void tlb_batch_of(const gs_tlb *t, const uint32_t *x, const uint32_t *y, tlb_batch *b);
/* The current tile's blocks as tlb_batch_at places a batch in them: a
 * copy, which a loop making many batches of one tile keeps in registers. */
typedef struct tlb_grid {
  uint32_t x0, y0, width, height; /* the tile's pixel origin and size */
  uint32_t blocks_x, plane;       /* blocks a row; words of a block's planes of one kind (16 × samples) */
} tlb_grid;
static inline tlb_grid tlb_grid_of(const gs_tlb *t) {
  return (tlb_grid){t->x0, t->y0, t->width, t->height, t->width >> 2, t->samples * 16u};
}
/* The index in zs[] of the sample-0 plane of the aligned 4×4 block whose
 * first pixel is (x0, y0), in the tile of g: tlb_zs_at(t, x0 - g->x0,
 * y0 - g->y0, 0), whose lane is 0 (tile origins are multiples of 4). */
static inline uint32_t tlb_block_base(const tlb_grid *g, uint32_t x0, uint32_t y0) {
  return (((y0 - g->y0) >> 2) * g->blocks_x + ((x0 - g->x0) >> 2)) * g->plane;
}
/* tlb_batch_block's work but for b->x and b->y, which it leaves: for a
 * caller whose arrays stay the same from batch to batch, with (x0, y0)
 * their first pixel, in the tile of g. The accesses read the arrays only
 * for a batch that is not a block (b->block 0) and for the stencil test
 * (after tlb_stencil_setup): such a caller may fill them only then (the
 * renderer: render.c). */
static inline void tlb_batch_at(const tlb_grid *g, uint32_t x0, uint32_t y0, tlb_batch *b) {
  b->base = tlb_block_base(g, x0, y0); /* used only for a block */
  b->block = (((x0 | y0) & 3u) == 0) & (x0 - g->x0 < g->width) & (y0 - g->y0 < g->height);
  b->early = 0;
}
/* tlb_batch_of for lanes that are known to be the pixels of the 4×4 block
 * at (x[0], y[0]) in batch lane order (x[l] = x[0] + PSE_LANE_DX(l),
 * y[l] = y[0] + PSE_LANE_DY(l)), as the renderer makes them: only whether
 * that block is aligned and in the tile is left to find out. */
static inline void tlb_batch_block(const gs_tlb *t, const uint32_t *x, const uint32_t *y, tlb_batch *b) {
  tlb_grid g = tlb_grid_of(t);
  b->x = x, b->y = y;
  tlb_batch_at(&g, x[0], y[0], b);
}
void tlb_z_write_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *z, const uint32_t *rev, uint32_t *coverage,
                       uint16_t lanes);
void tlb_z_test_batch(const gs_tlb *t, const tlb_batch *b, const uint32_t *z, uint32_t *coverage, uint16_t lanes);
/* One depth test a batch instead of two. tlb_early_z_batch is
 * tlb_z_test_batch, and b keeps what it decided; tlb_z_write_early is
 * tlb_z_write_batch, except that the batch's first Z write after it skips
 * the test when its outcome is already known: the lanes are a block, no
 * stencil test is on, the depth function is the same, every lane written
 * has the Z early Z tested and covers only samples that passed. The stored
 * depth of those samples has not changed since (only this batch writes
 * them), so each passes again: what the hardware's second test would say.
 * It then only writes the Z (with Z writes on). Anything else, and any
 * later Z write of the batch, takes the full test. */
void tlb_early_z_batch(const gs_tlb *t, tlb_batch *b, const uint32_t *z, uint32_t *coverage, uint16_t lanes);
void tlb_z_write_early(gs_tlb *t, tlb_batch *b, const uint32_t *z, const uint32_t *rev, uint32_t *coverage,
                       uint16_t lanes);
void tlb_colour_write_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *colour, const uint32_t *coverage,
                            uint16_t lanes, int sample, unsigned half);
void tlb_colour_load_batch(const gs_tlb *t, const tlb_batch *b, uint32_t *out, uint16_t lanes, unsigned sample,
                           unsigned half);
void tlb_colour_all_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *colour, const uint32_t *coverage,
                          uint16_t lanes);
void tlb_colour_ms_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *colour, const uint32_t *coverage,
                         uint16_t lanes);
void tlb_loadc_batch(gs_tlb *t, const tlb_batch *b, uint32_t *out, uint16_t lanes);

/* The tile port's accesses (gs_tile_port in src/isa/isa.h) on a batch:
 * a port's ctx is a tlb_port (or a struct whose first member is one). */
typedef struct tlb_port {
  gs_tlb *t;
  tlb_batch *lanes;    /* with early Z's outcome for the first Z write (tlb_z_write_early) */
  const uint32_t *rev; /* the lanes' REV_FLAG (bit 0) */
} tlb_port;
typedef struct tlb_port_fns {
  void (*begin)(void *port);             /* tlb_begin_batch */
  void (*z_write)(void *port, const uint32_t *z, uint32_t *cov, uint16_t lanes); /* tlb_z_write_early */
  /* tlb_colour_all_batch (all = 1) or tlb_colour_ms_batch */
  void (*colour_write)(void *port, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes);
} tlb_port_fns;
/* vec 0: the functions above, in C (vectorised by the compiler). vec 1:
 * the same, except that a single-sample block without a stencil test --
 * the common batch -- takes explicit AVX2 code where the build and the
 * host have it (x86-64 with GCC), which computes the same bits; without
 * AVX2, the functions of vec 0. */
const tlb_port_fns *tlb_port_functions(int vec);
/* Whether tlb_port_functions(1) has the AVX2 code on this host. */
int tlb_port_avx2(void);

/* A write to TLB_Z: stencil then depth test of up to 16 fragments (lanes),
 * updating the buffers and clearing failed samples in coverage[]. rev[i] is
 * 1 for a reverse-facing fragment (selects the back stencil face). */
void tlb_z_write(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *z, const uint32_t *rev,
                 uint32_t *coverage, uint16_t lanes);
/* For the trace (v3d/trace.h), before a Z write: what the tests would say
 * of sample s of pixel (x, y) (absolute) at Z z, reverse-facing with
 * back, changing nothing; *zs the sample's depth-stencil word. */
enum { TLB_PASSES = 0, TLB_FAILS_STENCIL = 1, TLB_FAILS_DEPTH = 2, TLB_OUTSIDE = 3 };
int tlb_test_explain(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s, uint32_t z, int back, uint32_t *zs);
/* The early-Z test: clears samples that would fail the depth test, without
 * writing anything. */
void tlb_z_test(const gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *z, uint32_t *coverage,
                uint16_t lanes);
/* Colour word `half` (0, or 1 for BA16F with 64-bit colour) of every
 * covered sample (sample < 0), or of sample `sample` if covered. */
void tlb_colour_write(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *colour,
                      const uint32_t *coverage, uint16_t lanes, int sample, unsigned half);
/* Colour word `half` of sample `sample`. */
void tlb_colour_load(const gs_tlb *t, const uint32_t *x, const uint32_t *y, uint32_t *out, uint16_t lanes,
                     unsigned sample, unsigned half);

/* The fragment shader's colour registers (RG §5), in the
 * fixed order docs/tile-buffer.md gives: a write to TLB_COLOUR_ALL writes
 * every covered sample, the k-th of a batch word k mod halves (RG16F, then
 * BA16F with 64-bit colour); the k-th write to TLB_COLOUR_MS and the k-th
 * colour load (loadc) touch sample (k / halves) mod samples, word
 * k mod halves. Outside multisampling and 64-bit colour every access is
 * sample 0's only word. */
void tlb_colour_all(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *colour, const uint32_t *coverage,
                    uint16_t lanes);
void tlb_colour_ms(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *colour, const uint32_t *coverage,
                   uint16_t lanes);
void tlb_loadc(gs_tlb *t, const uint32_t *x, const uint32_t *y, uint32_t *out, uint16_t lanes);

/* Stores the current tile's colour (resolved per f->decimate: sample 0,
 * or the average of the 4 samples; docs/tile-buffer.md) to frame f, in
 * f->format (TLB_RGBA16F, and only it, for a 64-bit colour buffer),
 * clipped to its size; GS_EFAULT naming the address if the tile's footprint
 * leaves allocated memory (nothing is written then). */
int tlb_store_colour(const gs_tlb *t, gs_mem *m, const tlb_frame *f, gs_diag *d);
/* Loads the current tile's colour from frame f (all samples get the pixel). */
int tlb_load_colour(gs_tlb *t, const gs_mem *m, const tlb_frame *f, gs_diag *d);
/* Stores / loads depth-stencil as 32-bit Z24 << 8 | stencil words in f's
 * layout (f->format is ignored). */
int tlb_store_zs(const gs_tlb *t, gs_mem *m, const tlb_frame *f, gs_diag *d);
int tlb_load_zs(gs_tlb *t, const gs_mem *m, const tlb_frame *f, gs_diag *d);

/* Full-resolution dumps (records 26 and 27): the tile buffer as it is, every
 * sample, TLB_FULL_BYTES of colour at addr and the depth-stencil words
 * right after it (TLB_FULL_BYTES, half that with 64-bit colour), each in
 * 2×2-pixel quads (layout in tlb_full_offset; docs/tile-buffer.md). The
 * address is the tile's own: it is not offset by the tile coordinates. A
 * footprint outside allocated memory is GS_EFAULT naming the address, with
 * nothing moved. */
#define TLB_FULL_BYTES 16384u
/* Bytes of a dump's depth-stencil part: one word per sample. */
static inline uint32_t tlb_full_zs_bytes(int color64) { return color64 ? TLB_FULL_BYTES / 2 : TLB_FULL_BYTES; }
/* Byte offset of sample s of tile-local pixel (x, y) inside one dumped
 * buffer whose entries are `bytes` per sample (colour: 4 × halves;
 * depth-stencil: 4). */
uint32_t tlb_full_offset(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s, unsigned bytes);
int tlb_store_full(const gs_tlb *t, gs_mem *m, gs_addr addr, int colour, int zs, gs_diag *d);
int tlb_load_full(gs_tlb *t, const gs_mem *m, gs_addr addr, int colour, int zs, gs_diag *d);

/* Bytes per pixel of a frame-buffer format TLB_*: 2, 4 or 8. */
unsigned tlb_format_bytes(unsigned format);
/* Record 113 codes 0 BGR565 dithered, 1 RGBA8888, 2 BGR565 -> TLB_*. */
unsigned tlb_format_from_113(unsigned code);

#endif
