/* tlb.c — the tile buffer: tests, colour access, clears, stores and loads
 * (see tlb.h; choices in docs/tile-buffer.md). */
#include <stddef.h>
#include <string.h>
#include "core/clones.h"
#include "core/half.h"
#include "v3d/pse.h"
#include "v3d/tlb.h"

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define TLB_AVX2 1 /* the tile port's AVX2 code (tlb_port_functions) */
#include <immintrin.h>
#else
#define TLB_AVX2 0
#endif

void tlb_tile_size(int ms, int color64, unsigned *width, unsigned *height) {
  *width = ms ? TLB_SIZE / 2 : TLB_SIZE;
  *height = *width / (color64 ? 2 : 1);
}

void tlb_init(gs_tlb *t, int ms, int color64) {
  memset(t->colour, 0, sizeof t->colour);
  memset(t->zs, 0, sizeof t->zs);
  tlb_init_for_clear(t, ms, color64);
}

void tlb_init_for_clear(gs_tlb *t, int ms, int color64) {
  memset(t, 0, offsetof(gs_tlb, colour));
  t->ms = ms != 0;
  t->color64 = color64 != 0;
  tlb_tile_size(t->ms, t->color64, &t->width, &t->height);
  t->samples = ms ? 4 : 1;
  t->halves = color64 ? 2 : 1;
  t->z_func = TLB_ALWAYS;
}

void tlb_set_clear(gs_tlb *t, uint32_t colour_lo, uint32_t colour_hi, uint32_t z, uint8_t stencil) {
  t->clear_colour[0] = colour_lo;
  t->clear_colour[1] = colour_hi;
  t->clear_zs = (z & 0xffffffu) << 8 | stencil;
}

GS_CLONES void tlb_clear(gs_tlb *t, int colour, int zs) {
  /* planes of 16 words: even ones (RG16F) get the low half, odd ones
   * (BA16F) the high half (the low one again in a 32-bit tile) */
  uint32_t lo = t->clear_colour[0], hi = t->clear_colour[t->halves - 1];
  for (unsigned i = 0; colour && i < TLB_WORDS; i += 32)
    for (unsigned l = 0; l < 16; l++) t->colour[i + l] = lo, t->colour[i + 16 + l] = hi;
  for (unsigned i = 0; zs && i < TLB_WORDS; i++) t->zs[i] = t->clear_zs;
}

void tlb_begin_tile(gs_tlb *t, unsigned tile_x, unsigned tile_y) {
  t->x0 = tile_x * t->width;
  t->y0 = tile_y * t->height;
}

void tlb_set_depth(gs_tlb *t, unsigned func, int write) {
  t->z_func = func & 7;
  t->z_write = write != 0;
}

void tlb_begin_batch(gs_tlb *t) {
  t->stencil_enabled = 0;
  t->n_all = t->n_ms = t->n_load = 0;
}

/* Write-mask codes of the stencil setup word (RG §5). */
static const uint8_t write_mask_codes[4] = {0x01, 0x03, 0x0f, 0xff};

static void set_face(tlb_stencil_face *f, uint32_t w) {
  f->value_mask = (uint8_t)w;
  f->ref = (uint8_t)(w >> 8);
  f->func = (w >> 16) & 7;
  f->op_fail = (w >> 19) & 7;
  f->op_zpass = (w >> 22) & 7;
  f->op_zfail = (w >> 25) & 7;
  f->write_mask = write_mask_codes[(w >> 28) & 3];
}

void tlb_stencil_setup(gs_tlb *t, uint32_t word) {
  unsigned wsel = word >> 30;
  if (wsel == 0) { /* full write masks: back in 15:8, front in 7:0 */
    t->front.write_mask = (uint8_t)word;
    t->back.write_mask = (uint8_t)(word >> 8);
    return;
  }
  if (wsel & 1) set_face(&t->front, word);
  if (wsel & 2) set_face(&t->back, word);
  t->stencil_enabled = 1;
}

static int compare(unsigned func, uint32_t a, uint32_t b) {
  switch (func) {
  case TLB_NEVER: return 0;
  case TLB_LESS: return a < b;
  case TLB_EQUAL: return a == b;
  case TLB_LEQUAL: return a <= b;
  case TLB_GREATER: return a > b;
  case TLB_NOTEQUAL: return a != b;
  case TLB_GEQUAL: return a >= b;
  default: return 1;
  }
}

static uint8_t stencil_op(unsigned op, uint8_t s, uint8_t ref) {
  switch (op) {
  case TLB_OP_ZERO: return 0;
  case TLB_OP_REPLACE: return ref;
  case TLB_OP_INCR_SAT: return s == 255 ? 255 : (uint8_t)(s + 1);
  case TLB_OP_DECR_SAT: return s == 0 ? 0 : (uint8_t)(s - 1);
  case TLB_OP_INVERT: return (uint8_t)~s;
  case TLB_OP_INCR_WRAP: return (uint8_t)(s + 1);
  case TLB_OP_DECR_WRAP: return (uint8_t)(s - 1);
  default: return s; /* keep */
  }
}

/* Index of sample s of pixel (x, y) (absolute) in zs[], or -1 outside the
 * tile; colour word h of that sample is colour[colour_of(t, index, h)]. */
static long sample_index(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s) {
  uint32_t lx = x - t->x0, ly = y - t->y0;
  if (lx >= t->width || ly >= t->height || s >= t->samples) return -1;
  return (long)tlb_zs_at(t, lx, ly, s);
}

/* The colour index of word h of the sample whose zs[] index is i: the
 * same lane of plane (sample·halves + h) instead of plane sample. */
static inline unsigned long colour_of(const gs_tlb *t, unsigned long i, unsigned h) {
  return (i & ~15ul) * t->halves + h * 16u + (i & 15u);
}

/* Stencil and depth test of one sample; updates the buffer; returns whether
 * the sample survives. */
static int test_sample(gs_tlb *t, long i, uint32_t z, int back) {
  uint32_t zs = t->zs[i];
  uint8_t s = (uint8_t)zs;
  const tlb_stencil_face *f = back ? &t->back : &t->front;
  int pass = 1;
  uint8_t ns = s;
  if (t->stencil_enabled && !compare(f->func, f->ref & f->value_mask, s & f->value_mask)) {
    ns = stencil_op(f->op_fail, s, f->ref);
    pass = 0;
  } else {
    int zpass = compare(t->z_func, z & 0xffffffu, zs >> 8);
    if (t->stencil_enabled) ns = stencil_op(zpass ? f->op_zpass : f->op_zfail, s, f->ref);
    if (zpass && t->z_write) zs = (z & 0xffffffu) << 8 | (zs & 0xff);
    pass = zpass;
  }
  if (t->stencil_enabled) ns = (uint8_t)((s & ~f->write_mask) | (ns & f->write_mask));
  t->zs[i] = (zs & ~0xffu) | ns;
  return pass;
}

/* The same decisions as test_sample's, without its writes. */
int tlb_test_explain(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s, uint32_t z, int back, uint32_t *zs) {
  long i = sample_index(t, x, y, s);
  if (i < 0) return *zs = 0, TLB_OUTSIDE;
  *zs = t->zs[i];
  const tlb_stencil_face *f = back ? &t->back : &t->front;
  uint8_t st = (uint8_t)*zs;
  if (t->stencil_enabled && !compare(f->func, f->ref & f->value_mask, st & f->value_mask)) return TLB_FAILS_STENCIL;
  return compare(t->z_func, z & 0xffffffu, *zs >> 8) ? TLB_PASSES : TLB_FAILS_DEPTH;
}

/* ---- fragments of one 4×4 block ---------------------------------------
 * The renderer always hands over the 16 pixels of one aligned 4×4 block of
 * the tile, in the lane order of the PSE's batches, which is the order of
 * a block's words in the buffer: for those, a sample's depth or colour is
 * one run of 16 words from the index tlb_batch_of works out once per batch
 * (for its early Z, Z write and colour accesses), the depth function is
 * chosen once per call instead of per sample, and the lane loops have no
 * branches, so they vectorise. The lanes are distinct pixels, so doing the
 * 16 tests before the 16 writes gives what testing and writing lane by lane
 * gives. Anything else — pixels outside the tile, repeated pixels, another
 * order, a stencil test — goes lane by lane through sample_index and
 * test_sample, the plain model. */

#define LANE_TABLE(m) {m(0), m(1), m(2), m(3), m(4), m(5), m(6), m(7), m(8), m(9), m(10), m(11), m(12), m(13), \
                       m(14), m(15)}
static const uint32_t lane_dx[16] = LANE_TABLE(PSE_LANE_DX), lane_dy[16] = LANE_TABLE(PSE_LANE_DY);
_Static_assert(PSE_LANE_DX(6) == 2 && PSE_LANE_DY(6) == 1 && PSE_LANE_DX(9) == 1 && PSE_LANE_DY(9) == 2 &&
               PSE_LANE_DX(15) == 3 && PSE_LANE_DY(15) == 3, "tlb_lane_of is the inverse of PSE_LANE_DX/DY");

GS_CLONES void tlb_batch_of(const gs_tlb *t, const uint32_t *x, const uint32_t *y, tlb_batch *b) {
  uint32_t bx = x[0], by = y[0], stray = (bx | by) & 3u;
  uint32_t lx0 = bx - t->x0, ly0 = by - t->y0;
  b->x = x, b->y = y;
  for (int l = 0; l < 16; l++) stray |= (x[l] - bx - lane_dx[l]) | (y[l] - by - lane_dy[l]);
  /* used only for a block inside the tile, where none of this wraps */
  b->base = tlb_zs_at(t, lx0, ly0, 0);
  /* tiles are whole blocks: an aligned block is all in or all out */
  b->block = stray == 0 && lx0 < t->width && ly0 < t->height;
  b->early = 0;
}

/* pass[l] = compare(func, a[l], b[l]), with func fixed for the loop. */
static GS_CLONE_INLINE void compare_lanes(unsigned func, const uint32_t *a, const uint32_t *b, uint32_t *pass) {
#define COMPARE_LANES(f) for (int l = 0; l < 16; l++) pass[l] = (uint32_t)compare(f, a[l], b[l])
  switch (func) {
  case TLB_NEVER: COMPARE_LANES(TLB_NEVER); break;
  case TLB_LESS: COMPARE_LANES(TLB_LESS); break;
  case TLB_EQUAL: COMPARE_LANES(TLB_EQUAL); break;
  case TLB_LEQUAL: COMPARE_LANES(TLB_LEQUAL); break;
  case TLB_GREATER: COMPARE_LANES(TLB_GREATER); break;
  case TLB_NOTEQUAL: COMPARE_LANES(TLB_NOTEQUAL); break;
  case TLB_GEQUAL: COMPARE_LANES(TLB_GEQUAL); break;
  default: COMPARE_LANES(TLB_ALWAYS); break;
  }
#undef COMPARE_LANES
}

/* Lane l's bit of a lane mask: tested with an AND and a compare, which
 * vectorise on any x86-64, unlike a shift by l. The loops below read every
 * lane and select with masks, so that they have no branches. */
static const uint32_t lane_bit[16] = {1u << 0,  1u << 1,  1u << 2,  1u << 3,  1u << 4,  1u << 5,  1u << 6,  1u << 7,
                                      1u << 8,  1u << 9,  1u << 10, 1u << 11, 1u << 12, 1u << 13, 1u << 14, 1u << 15};

/* All ones where lane l is in `lanes` and its coverage has sample s, else
 * 0 (a mask from a compare AND a mask from a shift: GCC vectorises that,
 * not the AND of two compares). */
#define LIVE_LANE(lanes, coverage, s, l) \
  ((0u - (uint32_t)(((lanes) & lane_bit[l]) != 0)) & (0u - ((coverage)[l] >> (s) & 1u)))

/* The depth test (no stencil) of sample s of a block's fragments, whose
 * sample-0 plane starts at zs[base]: clears the coverage bits of the
 * samples that fail; with `write` (and Z writes on), stores the passing
 * Z, keeping the stencil bits. One lane loop after another, none inside a
 * sample loop, so that each stays a loop the compiler vectorises; inlined
 * into each caller's copy (core/clones.h), so that the single-sample Z
 * write of tlb_z_write_early is one function. */
static GS_CLONE_INLINE void depth_sample(gs_tlb *t, int write, uint32_t base, unsigned s, const uint32_t *z,
                                         uint32_t *coverage, uint16_t lanes) {
  uint32_t *zp = t->zs + base + 16u * s;
  uint32_t zin[16], stored[16], old[16], pass[16], bit = 1u << s, lm = lanes;
  memcpy(stored, zp, sizeof stored);
  for (int l = 0; l < 16; l++) old[l] = stored[l] >> 8, zin[l] = z[l] & 0xffffffu;
  compare_lanes(t->z_func, zin, old, pass);
  for (int l = 0; l < 16; l++) {
    uint32_t live = LIVE_LANE(lm, coverage, s, l), ok = live & (0u - pass[l]);
    coverage[l] &= ~(live & ~ok & bit);
    pass[l] = ok;
  }
  if (!write || !t->z_write) return;
  for (int l = 0; l < 16; l++) zp[l] = ((zin[l] << 8 | (stored[l] & 0xffu)) & pass[l]) | (stored[l] & ~pass[l]);
}

/* The early Z test has no writes: t is only read. */
GS_CLONES static void depth_block(gs_tlb *t, int write, uint32_t base, const uint32_t *z, uint32_t *coverage,
                                  uint16_t lanes) {
  for (unsigned s = 0; s < t->samples; s++) depth_sample(t, write, base, s, z, coverage, lanes);
}

void tlb_z_write_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *z, const uint32_t *rev, uint32_t *coverage,
                       uint16_t lanes) {
  const uint32_t *x = b->x, *y = b->y;
  if (!t->stencil_enabled && b->block) {
    depth_block(t, 1, b->base, z, coverage, lanes);
    return;
  }
  for (int l = 0; l < 16; l++) {
    if (!(lanes >> l & 1)) continue;
    for (unsigned s = 0; s < t->samples; s++) {
      long i = sample_index(t, x[l], y[l], s);
      if (i < 0 || !(coverage[l] >> s & 1)) continue;
      if (!test_sample(t, i, z[l], rev[l] & 1)) coverage[l] &= ~(1u << s);
    }
  }
}

void tlb_z_test_batch(const gs_tlb *t, const tlb_batch *b, const uint32_t *z, uint32_t *coverage, uint16_t lanes) {
  const uint32_t *x = b->x, *y = b->y;
  if (b->block) {
    depth_block((gs_tlb *)t, 0, b->base, z, coverage, lanes); /* reads only */
    return;
  }
  for (int l = 0; l < 16; l++) {
    if (!(lanes >> l & 1)) continue;
    for (unsigned s = 0; s < t->samples; s++) {
      long i = sample_index(t, x[l], y[l], s);
      if (i >= 0 && !compare(t->z_func, z[l] & 0xffffffu, t->zs[i] >> 8)) coverage[l] &= ~(1u << s);
    }
  }
}

GS_CLONES void tlb_early_z_batch(const gs_tlb *t, tlb_batch *b, const uint32_t *z, uint32_t *coverage, uint16_t lanes) {
  tlb_z_test_batch(t, b, z, coverage, lanes);
  b->early = b->block;
  b->early_func = t->z_func;
  uint32_t m = lanes;
  for (int l = 0; l < 16; l++) {
    b->early_z[l] = z[l] & 0xffffffu;
    b->early_pass[l] = coverage[l] & (0u - (uint32_t)((m & lane_bit[l]) != 0));
  }
}

/* The Z write of a batch whose every covered sample is known to pass: the
 * Z of each covered sample, stencil bits kept (with Z writes on). */
GS_CLONES static void depth_known(gs_tlb *t, uint32_t base, const uint32_t *z, const uint32_t *coverage, uint16_t lanes) {
  if (!t->z_write) return;
  uint32_t lm = lanes;
  for (unsigned s = 0; s < t->samples; s++) {
    uint32_t *zp = t->zs + base + 16u * s, bit = 1u << s;
    for (int l = 0; l < 16; l++) {
      uint32_t keep = 0u - (uint32_t)(((lm & lane_bit[l]) != 0) & ((coverage[l] & bit) != 0));
      zp[l] = (((z[l] & 0xffffffu) << 8 | (zp[l] & 0xffu)) & keep) | (zp[l] & ~keep);
    }
  }
}

GS_CLONES void tlb_z_write_early(gs_tlb *t, tlb_batch *b, const uint32_t *z, const uint32_t *rev, uint32_t *coverage,
                                 uint16_t lanes) {
  if (!b->early || t->stencil_enabled || b->early_func != t->z_func) {
    b->early = 0;
    if (!t->stencil_enabled && b->block && t->samples == 1) /* tlb_z_write_batch's block case, inlined */
      depth_sample(t, 1, b->base, 0, z, coverage, lanes);
    else
      tlb_z_write_batch(t, b, z, rev, coverage, lanes);
    return;
  }
  b->early = 0;
  /* one pass: whether the write is early Z's, and (one sample) its words */
  uint32_t other = 0, lm = lanes, out[16];
  const uint32_t *zp = t->zs + b->base;
  for (int l = 0; l < 16; l++) {
    uint32_t live = 0u - (uint32_t)((lm & lane_bit[l]) != 0), zin = z[l] & 0xffffffu;
    other |= ((zin ^ b->early_z[l]) | (coverage[l] & ~b->early_pass[l])) & live;
    uint32_t keep = live & (0u - (coverage[l] & 1u));
    out[l] = ((zin << 8 | (zp[l] & 0xffu)) & keep) | (zp[l] & ~keep);
  }
  if (other) tlb_z_write_batch(t, b, z, rev, coverage, lanes);
  else if (t->samples == 1 && t->z_write) memcpy(t->zs + b->base, out, sizeof out);
  else if (t->samples != 1) depth_known(t, b->base, z, coverage, lanes);
}

/* Colour word `half` of sample s of the covered lanes of a block whose
 * sample-0 depth plane is zs[base], if `any`. Inlined into each caller's
 * copy, as depth_sample. */
static GS_CLONE_INLINE void colour_sample(gs_tlb *t, uint32_t base, unsigned s, int any, unsigned half,
                                          const uint32_t *colour, const uint32_t *coverage, uint16_t lanes) {
  uint32_t *cp = t->colour + colour_of(t, base + 16u * s, half);
  uint32_t lm = any ? lanes : 0u;
  for (int l = 0; l < 16; l++) {
    uint32_t m = LIVE_LANE(lm, coverage, s, l);
    cp[l] = (colour[l] & m) | (cp[l] & ~m);
  }
}

GS_CLONES void tlb_colour_write_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *colour,
                                      const uint32_t *coverage, uint16_t lanes, int sample, unsigned half) {
  const uint32_t *x = b->x, *y = b->y;
  if (b->block) {
    unsigned first = sample < 0 ? 0 : (unsigned)sample, end = sample < 0 ? t->samples : (unsigned)sample + 1;
    if (t->samples == 1) /* apart, so that its lane loops are not inside the sample loop */
      colour_sample(t, b->base, 0, first == 0, half, colour, coverage, lanes);
    else
      for (unsigned s = first; s < end && s < t->samples; s++) colour_sample(t, b->base, s, 1, half, colour, coverage, lanes);
    return;
  }
  for (int l = 0; l < 16; l++) {
    if (!(lanes >> l & 1)) continue;
    for (unsigned s = 0; s < t->samples; s++) {
      if ((sample >= 0 && (unsigned)sample != s) || !(coverage[l] >> s & 1)) continue;
      long i = sample_index(t, x[l], y[l], s);
      if (i >= 0) t->colour[colour_of(t, (unsigned long)i, half)] = colour[l];
    }
  }
}

void tlb_colour_load_batch(const gs_tlb *t, const tlb_batch *b, uint32_t *out, uint16_t lanes, unsigned sample,
                           unsigned half) {
  const uint32_t *x = b->x, *y = b->y;
  if (sample < t->samples && b->block) {
    const uint32_t *cp = t->colour + colour_of(t, b->base + 16u * sample, half);
    for (int l = 0; l < 16; l++) out[l] = (lanes >> l & 1) ? cp[l] : 0;
    return;
  }
  for (int l = 0; l < 16; l++) {
    long i = (lanes >> l & 1) ? sample_index(t, x[l], y[l], sample) : -1;
    out[l] = i >= 0 ? t->colour[colour_of(t, (unsigned long)i, half)] : 0;
  }
}

GS_CLONES void tlb_colour_all_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *colour, const uint32_t *coverage,
                                    uint16_t lanes) {
  unsigned k = t->n_all++, half = k & (t->halves - 1); /* k % halves: halves is 1 or 2 */
  if (b->block && t->samples == 1) /* tlb_colour_write_batch's single-sample case, inlined */
    colour_sample(t, b->base, 0, 1, half, colour, coverage, lanes);
  else
    tlb_colour_write_batch(t, b, colour, coverage, lanes, -1, half);
}

void tlb_colour_ms_batch(gs_tlb *t, const tlb_batch *b, const uint32_t *colour, const uint32_t *coverage,
                         uint16_t lanes) {
  unsigned k = t->n_ms++;
  tlb_colour_write_batch(t, b, colour, coverage, lanes, (int)(k / t->halves % t->samples), k % t->halves);
}

void tlb_loadc_batch(gs_tlb *t, const tlb_batch *b, uint32_t *out, uint16_t lanes) {
  unsigned k = t->n_load++;
  tlb_colour_load_batch(t, b, out, lanes, k / t->halves % t->samples, k % t->halves);
}

/* ---- the tile port ------------------------------------------------------------- */

static void port_begin(void *ctx) { tlb_begin_batch(((tlb_port *)ctx)->t); }

static void port_z_write(void *ctx, const uint32_t *z, uint32_t *cov, uint16_t lanes) {
  tlb_port *p = ctx;
  tlb_z_write_early(p->t, p->lanes, z, p->rev, cov, lanes);
}

static void port_colour_write(void *ctx, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes) {
  tlb_port *p = ctx;
  if (all) tlb_colour_all_batch(p->t, p->lanes, rgba, cov, lanes);
  else tlb_colour_ms_batch(p->t, p->lanes, rgba, cov, lanes);
}

static const tlb_port_fns port_c = {port_begin, port_z_write, port_colour_write};

#if TLB_AVX2
#if !defined(__AVX2__)
#pragma GCC push_options
#pragma GCC target("avx2")
#endif
/* The AVX2 port: a single-sample block without a stencil test, the common
 * batch, in explicit vector code, 8 lanes a register; anything else goes
 * to the C functions. Lane l of a block is word l of its plane, so the
 * 16 lanes are two loads, and a lane mask becomes a vector mask with one
 * shift per lane (coverage bit 0 to bit l), an AND with the mask and a
 * compare. */

/* All ones where lane l (of 8, from first) is in lanes and covers sample 0. */
static inline __m256i live8(__m256i lm, const uint32_t *cov, int first) {
  const __m256i pos = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  __m256i at = _mm256_add_epi32(pos, _mm256_set1_epi32(first));
  __m256i bit = _mm256_sllv_epi32(_mm256_set1_epi32(1), at);
  __m256i c = _mm256_sllv_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(cov + first)), at);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_and_si256(lm, c), bit), bit);
}

/* compare(func, a, b) in each lane, all ones or 0, for 24-bit a and b (so
 * the signed compares order them as unsigned). */
static inline void compare8x2(unsigned func, const __m256i *a, const __m256i *b, __m256i *pass) {
  const __m256i ones = _mm256_set1_epi32(-1);
  for (int h = 0; h < 2; h++) {
    __m256i r;
    switch (func) {
    case TLB_NEVER: r = _mm256_setzero_si256(); break;
    case TLB_LESS: r = _mm256_cmpgt_epi32(b[h], a[h]); break;
    case TLB_EQUAL: r = _mm256_cmpeq_epi32(a[h], b[h]); break;
    case TLB_LEQUAL: r = _mm256_xor_si256(_mm256_cmpgt_epi32(a[h], b[h]), ones); break;
    case TLB_GREATER: r = _mm256_cmpgt_epi32(a[h], b[h]); break;
    case TLB_NOTEQUAL: r = _mm256_xor_si256(_mm256_cmpeq_epi32(a[h], b[h]), ones); break;
    case TLB_GEQUAL: r = _mm256_xor_si256(_mm256_cmpgt_epi32(b[h], a[h]), ones); break;
    default: r = ones; break;
    }
    pass[h] = r;
  }
}

/* depth_sample(t, 1, base, 0, ...) of a single-sample tile: the depth
 * test of the lanes' sample 0, failures cleared from cov, the passing Z
 * stored (with Z writes on) with the stencil bits kept. Inlined into the
 * port's Z write, its one caller, which GCC left calling it. */
static inline __attribute__((always_inline)) void z_block1_avx2(gs_tlb *t, uint32_t base, const uint32_t *z,
                                                                 uint32_t *cov, uint16_t lanes) {
  uint32_t *zp = t->zs + base;
  const __m256i m24 = _mm256_set1_epi32(0xffffff), lm = _mm256_set1_epi32(lanes);
  __m256i zin[2], stored[2], old[2], pass[2], live[2];
  for (int h = 0; h < 2; h++) {
    zin[h] = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)(z + 8 * h)), m24);
    stored[h] = _mm256_loadu_si256((const __m256i *)(void *)(zp + 8 * h));
    old[h] = _mm256_srli_epi32(stored[h], 8);
    live[h] = live8(lm, cov, 8 * h);
  }
  compare8x2(t->z_func, zin, old, pass);
  for (int h = 0; h < 2; h++) { /* a failing live lane loses sample 0 */
    __m256i *cp = (__m256i *)(void *)(cov + 8 * h), c = _mm256_loadu_si256(cp);
    _mm256_storeu_si256(cp, _mm256_andnot_si256(_mm256_srli_epi32(_mm256_andnot_si256(pass[h], live[h]), 31), c));
  }
  if (!t->z_write) return;
  for (int h = 0; h < 2; h++) {
    __m256i nz = _mm256_or_si256(_mm256_slli_epi32(zin[h], 8), _mm256_and_si256(stored[h], _mm256_set1_epi32(0xff)));
    __m256i v = _mm256_blendv_epi8(stored[h], nz, _mm256_and_si256(pass[h], live[h]));
    _mm256_storeu_si256((__m256i *)(void *)(zp + 8 * h), v);
  }
}

/* A single-sample block's Z write is one depth test: tlb_z_write_early's
 * shortcut skips a test whose outcome is known, which this test gives too
 * (the same Z, function and stored words), so the test here is the one
 * either of its paths would make. */
static void port_z_write_avx2(void *ctx, const uint32_t *z, uint32_t *cov, uint16_t lanes) {
  tlb_port *p = ctx;
  gs_tlb *t = p->t;
  tlb_batch *b = p->lanes;
  if (t->samples == 1 && b->block && !t->stencil_enabled) {
    b->early = 0; /* any later Z write of the batch is tested */
    z_block1_avx2(t, b->base, z, cov, lanes);
    return;
  }
  tlb_z_write_early(t, b, z, p->rev, cov, lanes);
}

/* colour_sample(t, base, 0, 1, half, ...) of a single-sample tile: the
 * colour of every live lane covering sample 0. */
static void port_colour_write_avx2(void *ctx, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes) {
  tlb_port *p = ctx;
  gs_tlb *t = p->t;
  const tlb_batch *b = p->lanes;
  if (!all || t->samples != 1 || !b->block) {
    port_colour_write(ctx, all, rgba, cov, lanes);
    return;
  }
  unsigned k = t->n_all++, half = k & (t->halves - 1); /* as tlb_colour_all_batch */
  uint32_t *cp = t->colour + colour_of(t, b->base, half);
  const __m256i lm = _mm256_set1_epi32(lanes);
  for (int h = 0; h < 2; h++)
    _mm256_maskstore_epi32((int *)(void *)(cp + 8 * h), live8(lm, cov, 8 * h),
                           _mm256_loadu_si256((const __m256i *)(const void *)(rgba + 8 * h)));
}

static const tlb_port_fns port_avx2 = {port_begin, port_z_write_avx2, port_colour_write_avx2};

/* The store of a single-sample RGBA8888 tile's whole blocks to a raster
 * frame as it is, the first w4 x h4 pixels (multiples of 4) to base (pitch
 * bytes a row), four rows at a time: a block's 16 words are two registers,
 * the first holding its rows 0 and 1 (lanes 0, 1, 4, 5, then 2, 3, 6, 7:
 * tlb_lane_of), the second rows 2 and 3, each put in row order by one
 * permute of its 64-bit halves and stored as two 16-byte rows. */
static void store_raster_avx2(const gs_tlb *t, uint8_t *base, uint32_t pitch, uint32_t w4, uint32_t h4) {
  for (uint32_t ly = 0; ly < h4; ly += 4) {
    const uint32_t *c = &t->colour[tlb_colour_at(t, 0, ly, 0, 0)]; /* the next block's is 16 words on */
    uint8_t *row = base + tiling_raster_offset(t->x0, t->y0 + ly, pitch, 4);
    for (uint32_t lx = 0; lx < w4; lx += 4, c += 16) {
      __m256i r01 = _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)(const void *)c), 0xD8);
      __m256i r23 = _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)(const void *)(c + 8)), 0xD8);
      uint8_t *p = row + 4 * lx;
      _mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(r01));
      _mm_storeu_si128((__m128i *)(void *)(p + pitch), _mm256_extracti128_si256(r01, 1));
      _mm_storeu_si128((__m128i *)(void *)(p + 2 * pitch), _mm256_castsi256_si128(r23));
      _mm_storeu_si128((__m128i *)(void *)(p + 3 * pitch), _mm256_extracti128_si256(r23, 1));
    }
  }
}
#if !defined(__AVX2__)
#pragma GCC pop_options
#endif
#endif

int tlb_port_avx2(void) {
#if TLB_AVX2
  return __builtin_cpu_supports("avx2") != 0;
#else
  return 0;
#endif
}

const tlb_port_fns *tlb_port_functions(int vec) {
#if TLB_AVX2
  if (vec && tlb_port_avx2()) return &port_avx2;
#else
  (void)vec;
#endif
  return &port_c;
}

/* The entry points by lane positions: each makes the batch for its call. */

void tlb_z_write(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *z, const uint32_t *rev,
                 uint32_t *coverage, uint16_t lanes) {
  tlb_batch b;
  tlb_batch_of(t, x, y, &b);
  tlb_z_write_batch(t, &b, z, rev, coverage, lanes);
}

void tlb_z_test(const gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *z, uint32_t *coverage,
                uint16_t lanes) {
  tlb_batch b;
  tlb_batch_of(t, x, y, &b);
  tlb_z_test_batch(t, &b, z, coverage, lanes);
}

void tlb_colour_write(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *colour,
                      const uint32_t *coverage, uint16_t lanes, int sample, unsigned half) {
  tlb_batch b;
  tlb_batch_of(t, x, y, &b);
  tlb_colour_write_batch(t, &b, colour, coverage, lanes, sample, half);
}

void tlb_colour_load(const gs_tlb *t, const uint32_t *x, const uint32_t *y, uint32_t *out, uint16_t lanes,
                     unsigned sample, unsigned half) {
  tlb_batch b;
  tlb_batch_of(t, x, y, &b);
  tlb_colour_load_batch(t, &b, out, lanes, sample, half);
}

void tlb_colour_all(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *colour, const uint32_t *coverage,
                    uint16_t lanes) {
  tlb_batch b;
  tlb_batch_of(t, x, y, &b);
  tlb_colour_all_batch(t, &b, colour, coverage, lanes);
}

void tlb_colour_ms(gs_tlb *t, const uint32_t *x, const uint32_t *y, const uint32_t *colour, const uint32_t *coverage,
                   uint16_t lanes) {
  tlb_batch b;
  tlb_batch_of(t, x, y, &b);
  tlb_colour_ms_batch(t, &b, colour, coverage, lanes);
}

void tlb_loadc(gs_tlb *t, const uint32_t *x, const uint32_t *y, uint32_t *out, uint16_t lanes) {
  tlb_batch b;
  tlb_batch_of(t, x, y, &b);
  tlb_loadc_batch(t, &b, out, lanes);
}

/* ---- Stores and loads ------------------------------------------------------ */

unsigned tlb_format_bytes(unsigned format) {
  return format == TLB_RGBA16F ? 8 : format == TLB_RGBA8888 ? 4 : 2;
}

/* TLB word (byte 0 R, 1 G, 2 B, 3 A) to BGR565: R in bits 15:11, G 10:5,
 * B 4:0 (Mesa vc4_formats.c; gpusim does not dither). */
static uint16_t to_565(uint32_t c) {
  return (uint16_t)(((c & 0xf8u) << 8) | ((c >> 5) & 0x7e0u) | ((c >> 19) & 0x1fu));
}

/* BGR565 to a TLB word, channels widened by bit replication, A = 255. */
static uint32_t from_565(uint16_t v) {
  uint32_t r = v >> 11, g = (v >> 5) & 63, b = v & 31;
  r = (r << 3) | (r >> 2);
  g = (g << 2) | (g >> 4);
  b = (b << 3) | (b >> 2);
  return r | g << 8 | b << 16 | 0xff000000u;
}

/* Average of 4 words, per byte, rounding half up. */
static uint32_t average_8888(const uint32_t *s) {
  uint32_t out = 0;
  for (int b = 0; b < 32; b += 8) {
    uint32_t sum = ((s[0] >> b) & 255) + ((s[1] >> b) & 255) + ((s[2] >> b) & 255) + ((s[3] >> b) & 255);
    out |= ((sum + 2) / 4) << b;
  }
  return out;
}

/* Average of 4 words of two halves each, per half: the exact mean (the sum
 * of four halves is exact in double, and so is the division by 4) rounded
 * once to the nearest half, ties to even. */
static uint32_t average_f16x2(const uint32_t *s) {
  uint32_t out = 0;
  for (int b = 0; b < 32; b += 16) {
    double sum = 0.0;
    for (int k = 0; k < 4; k++) sum += gs_half_value((s[k] >> b) & 0xffffu);
    out |= gs_half_bits(sum / 4.0) << b;
  }
  return out;
}

/* A pixel's words in the buffer: word h of sample s of the pixel whose
 * first word is c[0] is c[PIXEL_WORD(t, s, h)] (planes of 16 words). */
#define PIXEL_WORD(t, s, h) (((s) * (t)->halves + (h)) * 16u)

/* The word a store writes for colour word `half` of the pixel whose
 * first word is c[0]: sample 0's, or the 4 samples' average. */
static inline uint32_t stored_word(const gs_tlb *t, const uint32_t *c, unsigned half, unsigned decimate) {
  if (t->samples != 4 || decimate != TLB_DECIMATE4) return c[PIXEL_WORD(t, 0, half)];
  uint32_t s[4];
  for (unsigned k = 0; k < 4; k++) s[k] = c[PIXEL_WORD(t, k, half)];
  return t->color64 ? average_f16x2(s) : average_8888(s);
}

/* Pixels of the current tile inside frame f: [0, w) × [0, h) tile-local. */
static void tile_extent(const gs_tlb *t, const tlb_frame *f, uint32_t *w, uint32_t *h) {
  *w = t->x0 >= f->width ? 0 : f->width - t->x0 < t->width ? f->width - t->x0 : t->width;
  *h = t->y0 >= f->height ? 0 : f->height - t->y0 < t->height ? f->height - t->y0 : t->height;
}

/* Host pointer to the whole frame, checked once so that a store or load
 * touches nothing when any part would fault. */
static uint8_t *frame_bytes(const gs_mem *m, const tlb_frame *f, unsigned cpp, gs_diag *d) {
  uint32_t size = tiling_size(f->layout, f->width, f->height, cpp);
  uint8_t *p = gs_mem_ptr(m, f->address, size);
  if (!p)
    gs_diag_set(d, GS_EFAULT, "tile buffer access to the %ux%u frame buffer at 0x%08x (%u bytes) is outside allocated GPU memory",
                f->width, f->height, f->address, size);
  return p;
}

typedef enum { MOVE_STORE_COLOUR, MOVE_LOAD_COLOUR, MOVE_STORE_ZS, MOVE_LOAD_ZS } move_kind;

/* Stores the colour of the pixel whose first word is c[0] to p:
 * RGBA16F as its two words (8 bytes: R, G, B, A halves), RGBA8888 as the
 * word, BGR565 converted. */
static inline void store_pixel(const gs_tlb *t, const uint32_t *c, const tlb_frame *f, uint8_t *p) {
  uint32_t v[2];
  for (unsigned h = 0; h < t->halves; h++) v[h] = stored_word(t, c, h, f->decimate);
  if (f->format == TLB_RGBA16F) {
    memcpy(p, v, 8);
  } else if (f->format == TLB_RGBA8888) {
    memcpy(p, v, 4);
  } else {
    uint16_t v16 = to_565(v[0]);
    memcpy(p, &v16, 2);
  }
}

/* Loads the pixel at p into every sample of c. */
static void load_pixel(const gs_tlb *t, uint32_t *c, const tlb_frame *f, const uint8_t *p) {
  uint32_t v[2];
  if (f->format == TLB_RGBA16F) {
    memcpy(v, p, 8);
  } else if (f->format == TLB_RGBA8888) {
    memcpy(v, p, 4);
  } else {
    uint16_t v16;
    memcpy(&v16, p, 2);
    v[0] = from_565(v16);
  }
  for (unsigned s = 0; s < t->samples; s++)
    for (unsigned h = 0; h < t->halves; h++) c[PIXEL_WORD(t, s, h)] = v[h];
}

/* Moves the current tile between the buffer and frame f, one pixel at a time. */
static int move_tile(gs_tlb *t, const gs_mem *m, const tlb_frame *f, move_kind kind, gs_diag *d) {
  int colour = kind == MOVE_STORE_COLOUR || kind == MOVE_LOAD_COLOUR;
  unsigned cpp = colour ? tlb_format_bytes(f->format) : 4;
  if (colour && (f->format == TLB_RGBA16F) != (t->halves == 2))
    return gs_diag_set(d, GS_EINVAL, "a %s tile buffer cannot be %s %s frame buffer", t->color64 ? "64-bit" : "32-bit",
                       kind == MOVE_STORE_COLOUR ? "stored to an" : "loaded from an",
                       f->format == TLB_RGBA16F ? "RGBA16F" : "8-bit or 565");
  uint8_t *base = frame_bytes(m, f, cpp, d);
  if (!base) return GS_EFAULT;
  uint32_t w, h;
  tile_extent(t, f, &w, &h);
  /* the common store: one 32-bit word per pixel, written as it is */
  int as_is = f->format == TLB_RGBA8888 && t->halves == 1 && (t->samples == 1 || f->decimate != TLB_DECIMATE4);
  if (kind == MOVE_STORE_COLOUR && as_is && t->samples == 1 && f->layout == TILING_RASTER) {
    /* ... and in raster order: a block's row is two pairs of neighbouring
     * lanes (tlb_lane_of(0, y), + 1 and + 4, + 5), 16 bytes of the
     * frame's row; with AVX2 the whole blocks four rows at a time, the
     * rest (rows below h4: columns from w4 on) here */
    uint32_t ly = 0, w4 = 0, h4 = 0;
#if TLB_AVX2
    if (tlb_port_avx2()) {
      w4 = w & ~3u, h4 = h & ~3u;
      store_raster_avx2(t, base, f->width * cpp, w4, h4);
      if (w4 == w) ly = h4; /* no columns left in those rows */
    }
#endif
    for (; ly < h; ly++) {
      uint8_t *row = base + tiling_raster_offset(t->x0, t->y0 + ly, f->width * cpp, cpp);
      uint32_t lx = ly < h4 ? w4 : 0;
      const uint32_t *c = &t->colour[tlb_colour_at(t, lx, ly, 0, 0)]; /* the next block's is 16 words on */
      for (; lx + 4 <= w; lx += 4, c += 16) {
        memcpy(row + 4 * lx, c, 8);
        memcpy(row + 4 * lx + 8, c + 4, 8);
      }
      for (; lx < w; lx++) memcpy(row + 4 * lx, &t->colour[tlb_colour_at(t, lx, ly, 0, 0)], 4);
    }
    return GS_OK;
  }
  for (uint32_t ly = 0; ly < h; ly++) {
    for (uint32_t lx = 0; lx < w; lx++) {
      uint8_t *p = base + tiling_offset(f->layout, t->x0 + lx, t->y0 + ly, f->width, cpp);
      uint32_t *c = &t->colour[tlb_colour_at(t, lx, ly, 0, 0)], *zs = &t->zs[tlb_zs_at(t, lx, ly, 0)], v;
      switch (kind) {
      case MOVE_STORE_COLOUR:
        if (as_is) memcpy(p, c, 4);
        else store_pixel(t, c, f, p);
        break;
      case MOVE_LOAD_COLOUR: load_pixel(t, c, f, p); break;
      case MOVE_STORE_ZS: memcpy(p, &zs[0], 4); break;
      case MOVE_LOAD_ZS:
        memcpy(&v, p, 4);
        for (unsigned s = 0; s < t->samples; s++) zs[16u * s] = v;
        break;
      }
    }
  }
  return GS_OK;
}

int tlb_store_colour(const gs_tlb *t, gs_mem *m, const tlb_frame *f, gs_diag *d) {
  return move_tile((gs_tlb *)t, m, f, MOVE_STORE_COLOUR, d);
}
int tlb_load_colour(gs_tlb *t, const gs_mem *m, const tlb_frame *f, gs_diag *d) {
  return move_tile(t, m, f, MOVE_LOAD_COLOUR, d);
}
int tlb_store_zs(const gs_tlb *t, gs_mem *m, const tlb_frame *f, gs_diag *d) {
  return move_tile((gs_tlb *)t, m, f, MOVE_STORE_ZS, d);
}
int tlb_load_zs(gs_tlb *t, const gs_mem *m, const tlb_frame *f, gs_diag *d) {
  return move_tile(t, m, f, MOVE_LOAD_ZS, d);
}

/* ---- Full-resolution dumps --------------------------------------------------- */

/* Quads of 2×2 pixels in raster order of quads; inside a quad the samples one
 * after another, and inside a sample the pixels (0,0), (1,0), (0,1), (1,1),
 * `bytes` each. For the 4× multisample tile of 32-bit colour this is the
 * layout Mesa's vc4_nir_lower_txf_ms.c reads (16 bytes per sample, 64 per quad);
 * the other tiles use the same order (the reference calls that likely for
 * the normal tile, and says nothing of 64-bit colour). */
uint32_t tlb_full_offset(const gs_tlb *t, uint32_t x, uint32_t y, unsigned s, unsigned bytes) {
  uint32_t quad_bytes = 4 * bytes * t->samples;
  return (y / 2) * (t->width / 2) * quad_bytes + (x / 2) * quad_bytes + s * 4 * bytes + ((y & 1) * 2 + (x & 1)) * bytes;
}

/* Moves one buffer of the tile, `per` words per sample (the colour's
 * halves, or 1 for depth-stencil), between tile memory and a dump at p. */
static void move_full(const gs_tlb *t, uint32_t *words, unsigned per, uint8_t *p, int to_memory) {
  for (uint32_t y = 0; y < t->height; y++)
    for (uint32_t x = 0; x < t->width; x++)
      for (unsigned s = 0; s < t->samples; s++)
        for (unsigned h = 0; h < per; h++) {
          /* one word per sample: depth-stencil, or 32-bit colour, whose planes are the same */
          uint32_t *w = &words[per == 1 ? tlb_zs_at(t, x, y, s) : tlb_colour_at(t, x, y, s, h)];
          uint8_t *m = p + tlb_full_offset(t, x, y, s, 4 * per) + 4 * h;
          if (to_memory) memcpy(m, w, 4);
          else memcpy(w, m, 4);
        }
}

/* Host pointers to the dump's colour and depth-stencil parts (NULL for a
 * part not moved); the whole footprint is checked first. */
static int full_parts(const gs_tlb *t, const gs_mem *m, gs_addr addr, int colour, int zs, uint8_t **c, uint8_t **z,
                      gs_diag *d) {
  gs_addr start = colour ? addr : addr + TLB_FULL_BYTES;
  uint32_t len = (colour ? TLB_FULL_BYTES : 0) + (zs ? tlb_full_zs_bytes(t->color64) : 0);
  uint8_t *p = gs_mem_ptr(m, start, len);
  if (!p)
    return gs_diag_set(d, GS_EFAULT, "full-resolution tile dump at 0x%08x (%u bytes) is outside allocated GPU memory",
                       start, len);
  *c = colour ? p : NULL;
  *z = zs ? (colour ? p + TLB_FULL_BYTES : p) : NULL;
  return GS_OK;
}

/* Moves the parts of a full-resolution dump at addr to or from the tile. */
static int dump_full(gs_tlb *t, const gs_mem *m, gs_addr addr, int colour, int zs, int to_memory, gs_diag *d) {
  uint8_t *c = NULL, *z = NULL;
  if (!colour && !zs) return GS_OK;
  int rc = full_parts(t, m, addr, colour, zs, &c, &z, d);
  if (rc < 0) return rc;
  if (c) move_full(t, t->colour, t->halves, c, to_memory);
  if (z) move_full(t, t->zs, 1, z, to_memory);
  return GS_OK;
}

int tlb_store_full(const gs_tlb *t, gs_mem *m, gs_addr addr, int colour, int zs, gs_diag *d) {
  return dump_full((gs_tlb *)t, m, addr, colour, zs, 1, d); /* reads the tile only */
}

int tlb_load_full(gs_tlb *t, const gs_mem *m, gs_addr addr, int colour, int zs, gs_diag *d) {
  return dump_full(t, m, addr, colour, zs, 0, d);
}

unsigned tlb_format_from_113(unsigned code) {
  return code == 1 ? TLB_RGBA8888 : code == 0 ? TLB_BGR565_DITHER : TLB_BGR565;
}
