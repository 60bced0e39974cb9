/* test_vpm.c — the VPM model (src/v3d/vpm.c): every generic access mode
 * against the layouts of RG Figures 8 and 9 worked out by hand, strides and
 * wrapping, the read queue, the DMA setups of reference/vc4.md §2.3–2.4 and
 * seed 004, 8- and 16-bit DMA in the layout docs/v3d-units.md chooses, and
 * faults that must leave memory and VPM untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

typedef struct fixture {
  gs_gpu *g;
  gs_qpu *q;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  f->g = gs_gpu_new(NULL);
  assert_non_null(f->g);
  f->q = qpu_cluster_of(f->g)->qpu[0];
  qpu_reset(f->q, 0, 0x1000, 0, 1000);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  gs_gpu_free(f->g);
  free(f);
  return 0;
}

static uint32_t *vpm_at(gs_gpu *g, unsigned y, unsigned x) { return &g->vpm.words[y * 16 + x]; }

/* Fills the VPM so that word (y, x) = 0xYYXX0000 | (y*16 + x). */
static uint32_t vpm_pattern(unsigned y, unsigned x) { return (uint32_t)y << 24 | (uint32_t)x << 16 | (y * 16 + x); }
static void fill_vpm(gs_gpu *g) {
  for (unsigned y = 0; y < VPM_ROWS; y++)
    for (unsigned x = 0; x < 16; x++) *vpm_at(g, y, x) = vpm_pattern(y, x);
}

/* Allocates n bytes of GPU memory filled with `fill`. */
static gs_addr alloc_bytes(gs_gpu *g, uint32_t n, uint8_t fill) {
  gs_addr a;
  assert_int_equal(gs_mem_alloc(g->mem, n, 4096, &a, NULL), GS_OK);
  memset(gs_mem_ptr(g->mem, a, n), fill, n);
  return a;
}
static uint32_t *words_at(gs_gpu *g, gs_addr a, uint32_t n) { return gs_mem_ptr(g->mem, a, n * 4); }

static void write_vec(fixture *f, const gs_vec *v) { assert_int_equal(qpu_vpm_write(f->g, f->q, v), GS_OK); }
static gs_vec read_vec(fixture *f) {
  gs_vec v;
  int rc = qpu_vpm_read(f->g, f->q, &v);
  if (rc != GS_OK) fail_msg("vpm_read: %s", gs_gpu_error(f->g));
  return v;
}

/* ---- generic block access ------------------------------------------------ */

/* One generic mode: its setup word (without NUM) and where elements 0..15
 * land, worked out from RG Tables 32/33 and Figures 8/9. */
typedef struct mode_case {
  const char *name;
  uint32_t setup;
  unsigned width;                   /* bytes */
  unsigned row[16], word[16], byte[16];
} mode_case;

#define SEQ16(a, s) {(a), (a) + (s), (a) + 2 * (s), (a) + 3 * (s), (a) + 4 * (s), (a) + 5 * (s), (a) + 6 * (s), \
                     (a) + 7 * (s), (a) + 8 * (s), (a) + 9 * (s), (a) + 10 * (s), (a) + 11 * (s), (a) + 12 * (s),  \
                     (a) + 13 * (s), (a) + 14 * (s), (a) + 15 * (s)}
#define SAME16(a) SEQ16(a, 0)
#define PAIRS(a) {(a), (a), (a) + 1, (a) + 1, (a) + 2, (a) + 2, (a) + 3, (a) + 3, (a) + 4, (a) + 4, (a) + 5, (a) + 5, \
                  (a) + 6, (a) + 6, (a) + 7, (a) + 7}
#define QUADS(a) {(a), (a), (a), (a), (a) + 1, (a) + 1, (a) + 1, (a) + 1, (a) + 2, (a) + 2, (a) + 2, (a) + 2,    \
                  (a) + 3, (a) + 3, (a) + 3, (a) + 3}
#define HALVES {0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2}
#define BYTES {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}

static const mode_case mode_cases[] = {
    /* stride 1 (0x1000) in every setup; HORIZ 0x800, LANED 0x400, SIZE <<8 */
    {"h32 Y=5", 0x1a05, 4, SAME16(5), SEQ16(0, 1), SAME16(0)},
    {"h32 Y=63 (RG Fig. 8e)", 0x1a3f, 4, SAME16(63), SEQ16(0, 1), SAME16(0)},
    {"v32 Y=16 X=3", 0x1213, 4, SEQ16(16, 1), SAME16(3), SAME16(0)},
    {"v32 Y=48 X=15", 0x123f, 4, SEQ16(48, 1), SAME16(15), SAME16(0)},
    {"h16 laned Y=2 H=1", 0x1d05, 2, SAME16(2), SEQ16(0, 1), SAME16(2)},
    {"h16 packed Y=3 H=1 (RG Fig. 8d)", 0x1907, 2, SAME16(3), PAIRS(8), HALVES},
    {"h8 laned Y=1 B=1", 0x1c05, 1, SAME16(1), SEQ16(0, 1), SAME16(1)},
    {"h8 packed Y=0 B=2 (RG Fig. 8a)", 0x1802, 1, SAME16(0), QUADS(8), BYTES},
    {"v16 laned Y=0 X=2 H=0 (RG Fig. 9c)", 0x1504, 2, SEQ16(0, 1), SAME16(2), SAME16(0)},
    {"v16 packed Y=0 X=15 H=1 (RG Fig. 9d)", 0x111f, 2, PAIRS(8), SAME16(15), HALVES},
    {"v8 laned Y=0 X=1 B=2 (RG Fig. 9b)", 0x1406, 1, SEQ16(0, 1), SAME16(1), SAME16(2)},
    {"v8 packed Y=0 X=0 B=1 (RG Fig. 9a)", 0x1001, 1, QUADS(4), SAME16(0), BYTES},
    {"v8 packed Y=32 X=7 B=3", 0x109f, 1, QUADS(44), SAME16(7), BYTES},
};

static uint32_t element_value(unsigned width, unsigned e) {
  return width == 4 ? 0xdead0000u + e : width == 2 ? 0xbee0u + e : 0xc0u + e;
}

/* A write in each mode changes exactly the bytes the mode names, and a read
 * with the same setup gives the values back (zero-extended). */
static void test_generic_modes(void **state) {
  fixture *f = *state;
  for (size_t c = 0; c < sizeof mode_cases / sizeof mode_cases[0]; c++) {
    const mode_case *m = &mode_cases[c];
    memset(f->g->vpm.words, 0, sizeof f->g->vpm.words);
    gs_vec v;
    for (unsigned e = 0; e < 16; e++) v.u[e] = element_value(m->width, e) | (m->width < 4 ? 0x5a0000u : 0);
    assert_int_equal(qpu_vpm_write_setup(f->g, f->q, m->setup), GS_OK);
    write_vec(f, &v);
    uint8_t want[VPM_ROWS * 64] = {0};
    for (unsigned e = 0; e < 16; e++)
      for (unsigned k = 0; k < m->width; k++)
        want[(m->row[e] * 16 + m->word[e]) * 4 + m->byte[e] + k] = (uint8_t)(element_value(m->width, e) >> (8 * k));
    for (unsigned i = 0; i < VPM_ROWS * 16; i++) {
      uint32_t w = (uint32_t)want[4 * i] | (uint32_t)want[4 * i + 1] << 8 | (uint32_t)want[4 * i + 2] << 16 |
                   (uint32_t)want[4 * i + 3] << 24;
      if (f->g->vpm.words[i] != w)
        fail_msg("%s: VPM row %u word %u = 0x%08x, want 0x%08x", m->name, i / 16, i % 16, f->g->vpm.words[i], w);
    }
    assert_int_equal(qpu_vpm_read_setup(f->g, f->q, m->setup | 1u << 20), GS_OK);
    gs_vec r = read_vec(f);
    for (unsigned e = 0; e < 16; e++)
      if (r.u[e] != element_value(m->width, e))
        fail_msg("%s: read element %u = 0x%x, want 0x%x", m->name, e, r.u[e], element_value(m->width, e));
  }
}

/* Seed 004's setups: 0x00001a00 (and 0x17BC1AC0, whose unused high bits and
 * ADDR[7:6] are ignored) write horizontally from Y = 0; 0x17BC1AC2 from
 * Y = 2; the read setup 0x1A741AC0 reads NUM = 7 rows from Y = 0 with
 * stride 1 (bits 29:24 and 19:18 unused, ADDR 0xC0 -> Y = ADDR[5:0] = 0). */
static void test_seed004_setups(void **state) {
  fixture *f = *state;
  static const struct {
    uint32_t setup;
    unsigned first_row;
  } writes[] = {{0x00001a00u, 0}, {0x17bc1ac0u, 0}, {0x17bc1ac2u, 2}};
  for (size_t c = 0; c < 3; c++) {
    memset(f->g->vpm.words, 0, sizeof f->g->vpm.words);
    assert_int_equal(qpu_vpm_write_setup(f->g, f->q, writes[c].setup), GS_OK);
    for (unsigned r = 0; r < 3; r++) {
      gs_vec v;
      for (unsigned e = 0; e < 16; e++) v.u[e] = 100 * r + e + 1;
      write_vec(f, &v);
    }
    for (unsigned r = 0; r < 3; r++)
      for (unsigned e = 0; e < 16; e++) assert_int_equal(*vpm_at(f->g, writes[c].first_row + r, e), 100 * r + e + 1);
  }
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x1a741ac0u), GS_OK);
  for (unsigned r = 0; r < 7; r++) {
    gs_vec v = read_vec(f);
    for (unsigned e = 0; e < 16; e++) assert_int_equal(v.u[e], vpm_pattern(r, e));
  }
  gs_vec v;
  assert_int_equal(qpu_vpm_read(f->g, f->q, &v), GS_EHANG);
  assert_non_null(strstr(gs_gpu_error(f->g), "asked for 7 vectors and all were read"));
  assert_non_null(strstr(gs_gpu_error(f->g), "QPU 0 at pc 0x00001000"));
}

/* STRIDE is added to the whole ADDR field; rows wrap past Y = 63; stride 0
 * means 64 (which brings a horizontal 32-bit address back to its row). */
static void test_generic_stride_and_wrap(void **state) {
  fixture *f = *state;
  static const struct {
    const char *name;
    uint32_t setup;
    unsigned row[3], word[3], byte[3]; /* element 0 of vectors 0, 1, 2 */
  } cases[] = {
      {"h32 Y=62 stride 2 wraps", 0x2a3e, {62, 0, 2}, {0, 0, 0}, {0, 0, 0}},
      {"h32 stride 0 = 64", 0x0a05, {5, 5, 5}, {0, 0, 0}, {0, 0, 0}},
      {"v32 stride 1 steps X", 0x1210, {16, 16, 16}, {0, 1, 2}, {0, 0, 0}},
      {"v32 X=15 stride 1 carries into Y", 0x120f, {0, 16, 16}, {15, 0, 1}, {0, 0, 0}},
      {"v32 stride 16 steps Y by 16", 0x10200, {0, 16, 32}, {0, 0, 0}, {0, 0, 0}},
      {"h8 laned B=3 stride 1 carries into Y", 0x1c03, {0, 1, 1}, {0, 0, 0}, {3, 0, 1}},
      {"h16 packed stride 1 steps H", 0x1900, {0, 0, 1}, {0, 8, 0}, {0, 0, 0}},
      {"v32 Y=48 X=15 stride 1 wraps to Y=0", 0x123f, {48, 0, 0}, {15, 0, 1}, {0, 0, 0}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    memset(f->g->vpm.words, 0, sizeof f->g->vpm.words);
    assert_int_equal(qpu_vpm_write_setup(f->g, f->q, cases[c].setup), GS_OK);
    for (unsigned n = 0; n < 3; n++) {
      gs_vec v;
      for (unsigned e = 0; e < 16; e++) v.u[e] = 0xa0u + n;
      write_vec(f, &v);
      unsigned sh = 8 * cases[c].byte[n];
      uint32_t got = *vpm_at(f->g, cases[c].row[n], cases[c].word[n]) >> sh & 0xff;
      if (got != 0xa0u + n)
        fail_msg("%s: vector %u not at row %u word %u byte %u", cases[c].name, n, cases[c].row[n], cases[c].word[n],
                 cases[c].byte[n]);
    }
  }
  /* NUM 0 means 16 */
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00001a00u), GS_OK);
  for (unsigned r = 0; r < 16; r++) assert_int_equal(read_vec(f).u[3], vpm_pattern(r, 3));
  gs_vec v;
  assert_int_equal(qpu_vpm_read(f->g, f->q, &v), GS_EHANG);
}

/* reference/vc4.md §2.2 (VC4ASM hardware test): a new read setup is taken
 * only while at most one value of earlier setups is outstanding. */
static void test_read_queue(void **state) {
  fixture *f = *state;
  gs_vec v;
  fill_vpm(f->g);
  /* 1 then 3: both accepted; the single value of the first comes first */
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00101a05u), GS_OK); /* 1 row from Y=5 */
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00301a0au), GS_OK); /* 3 rows from Y=10 */
  assert_int_equal(read_vec(f).u[0], vpm_pattern(5, 0));
  for (unsigned r = 10; r < 13; r++) assert_int_equal(read_vec(f).u[0], vpm_pattern(r, 0));
  assert_int_equal(qpu_vpm_read(f->g, f->q, &v), GS_EHANG);
  /* 2 then 2: the second is dropped; the third read starves and says why */
  qpu_reset(f->q, 0, 0x2000, 0, 1000);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00201a05u), GS_OK);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00201a0au), GS_OK);
  assert_int_equal(read_vec(f).u[0], vpm_pattern(5, 0));
  assert_int_equal(read_vec(f).u[0], vpm_pattern(6, 0));
  assert_int_equal(qpu_vpm_read(f->g, f->q, &v), GS_EHANG);
  assert_non_null(strstr(gs_gpu_error(f->g), "0x00201a0a at pc 0x00002000 was dropped"));
  /* 2, read one, then 1: accepted behind the remaining value */
  qpu_reset(f->q, 0, 0x2000, 0, 1000);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00201a05u), GS_OK);
  assert_int_equal(read_vec(f).u[0], vpm_pattern(5, 0));
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00101a20u), GS_OK);
  assert_int_equal(read_vec(f).u[0], vpm_pattern(6, 0));
  assert_int_equal(read_vec(f).u[0], vpm_pattern(32, 0));
  assert_int_equal(qpu_vpm_read(f->g, f->q, &v), GS_EHANG);
  /* nothing set up at all */
  qpu_reset(f->q, 0, 0x2000, 0, 1000);
  assert_int_equal(qpu_vpm_read(f->g, f->q, &v), GS_EHANG);
  assert_non_null(strstr(gs_gpu_error(f->g), "no VPM read setup was written"));
}

static void test_setup_errors(void **state) {
  fixture *f = *state;
  gs_vec v = {{0}};
  assert_int_equal(qpu_vpm_write(f->g, f->q, &v), GS_EINVAL);
  assert_non_null(strstr(gs_gpu_error(f->g), "before any VPM write setup"));
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x00001b00u), GS_EINVAL); /* SIZE 3 */
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00101b00u), GS_EINVAL);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x40000000u), GS_EINVAL);
  assert_non_null(strstr(gs_gpu_error(f->g), "0x40000000"));
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x40000000u), GS_EINVAL);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, 0x100000u), GS_EINVAL);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, 0x100000u), GS_EINVAL);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x88104001u), GS_OK); /* MODEW 1 */
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, 0x100000u), GS_EINVAL);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x8810c000u), GS_OK); /* LANED */
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, 0x100000u), GS_EINVAL);
}

/* ---- DMA: worked examples of reference/vc4.md §2.3–2.4 ---------------------- */

/* §2.4 default load: 0x80000000 | 3<<24 | nrows<<16 | 1<<12 | Y<<4 loads
 * nrows x 16 words (pitch 64 B) into rows Y.. */
static void test_dma_load_default(void **state) {
  fixture *f = *state;
  gs_addr a = alloc_bytes(f->g, 4 * 64, 0);
  uint32_t *m = words_at(f->g, a, 64);
  for (unsigned i = 0; i < 64; i++) m[i] = 0x1000 + i;
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x80000000u | 3u << 24 | 4u << 16 | 1u << 12 | 8u << 4), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, a), GS_OK);
  for (unsigned r = 0; r < 4; r++)
    for (unsigned x = 0; x < 16; x++) assert_int_equal(*vpm_at(f->g, 8 + r, x), 0x1000 + r * 16 + x);
  assert_int_equal(*vpm_at(f->g, 12, 0), 0);
  assert_int_equal(*vpm_at(f->g, 7, 15), 0);
}

/* PYVC vertical load then a 64-row horizontal store: memory X[16][64] comes
 * back transposed. */
static void test_dma_load_vertical_store_horizontal(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 16 * 64 * 4, 0), dst = alloc_bytes(f->g, 64 * 16 * 4, 0);
  uint32_t *x_mem = words_at(f->g, src, 16 * 64), *y_mem = words_at(f->g, dst, 64 * 16);
  for (unsigned i = 0; i < 16 * 64; i++) x_mem[i] = i;
  for (unsigned x = 0; x < 16; x++) {
    /* Y=0, X=x, NROWS=4, VPITCH=0 (16), ROWLEN=0 (16), VERT, MPITCH=3 */
    assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x80000000u | 3u << 24 | 4u << 16 | 1u << 11 | x), GS_OK);
    assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src + x * 256), GS_OK);
  }
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x80000000u | 64u << 23 | 16u << 16 | 1u << 14), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  for (unsigned y = 0; y < 64; y++)
    for (unsigned x = 0; x < 16; x++) assert_int_equal(y_mem[y * 16 + x], x * 64 + y);
}

/* §2.4 partial: X=4, Y=4, NROWS=8, ROWLEN=8, MPITCH=2 (32 B) puts an 8x8
 * block at rows 4..11, columns 4..11; the FFT store 0x88104000 (16 rows x
 * 16 words from Y=0) brings the 16x16 square out. */
static void test_dma_partial_block(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 8 * 8 * 4, 0), dst = alloc_bytes(f->g, 16 * 16 * 4, 0xee);
  uint32_t *x_mem = words_at(f->g, src, 64), *y_mem = words_at(f->g, dst, 256);
  for (unsigned i = 0; i < 64; i++) x_mem[i] = i + 1;
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x82881044u), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src), GS_OK);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x88104000u), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  for (unsigned y = 0; y < 16; y++)
    for (unsigned x = 0; x < 16; x++) {
      int inside = y >= 4 && y < 12 && x >= 4 && x < 12;
      assert_int_equal(y_mem[y * 16 + x], inside ? (y - 4) * 8 + (x - 4) + 1 : 0);
    }
}

/* §2.4 extended pitch: the ID-9 word MPITCHB = 128 (before or after the
 * basic setup with MPITCH = 0) loads the left 16 words of 128-byte rows. */
static void test_dma_load_extended_pitch(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 16 * 128, 0);
  uint32_t *x_mem = words_at(f->g, src, 16 * 32);
  for (unsigned i = 0; i < 16 * 32; i++) x_mem[i] = i;
  for (int order = 0; order < 2; order++) {
    qpu_reset(f->q, 0, 0x1000, 0, 1000);
    memset(f->g->vpm.words, 0, sizeof f->g->vpm.words);
    if (order == 0) assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x90000080u), GS_OK);
    assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x80001000u), GS_OK);
    if (order == 1) assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x90000080u), GS_OK);
    assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src), GS_OK);
    for (unsigned y = 0; y < 16; y++)
      for (unsigned x = 0; x < 16; x++) assert_int_equal(*vpm_at(f->g, y, x), y * 32 + x);
  }
}

/* §2.4 VDW stride: STRIDE = 64 (0xc0000040, FFT's vdw_setup_1(0x40)) with a
 * 16x16 horizontal store leaves 64-byte gaps: memory row pitch 128 B. */
static void test_dma_store_stride(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 16 * 128, 0xee);
  uint32_t *y_mem = words_at(f->g, dst, 16 * 32);
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0xc0000040u), GS_OK); /* stride first */
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x88104000u), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  for (unsigned y = 0; y < 16; y++)
    for (unsigned x = 0; x < 32; x++) assert_int_equal(y_mem[y * 32 + x], x < 16 ? vpm_pattern(y, x) : 0xeeeeeeeeu);
}

/* Seed 004: 0x83904000 = ID 2, UNITS 7, DEPTH 16, HORIZ, VPMBASE (0, 0),
 * 32-bit: 7 rows of 16 words, contiguous in memory. */
static void test_dma_store_seed004(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 8 * 64, 0xee);
  uint32_t *y_mem = words_at(f->g, dst, 8 * 16);
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x83904000u), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  for (unsigned i = 0; i < 8 * 16; i++) assert_int_equal(y_mem[i], i < 7 * 16 ? vpm_pattern(i / 16, i % 16) : 0xeeeeeeeeu);
}

/* PYVC vertical store: UNITS=1, DEPTH=16, HORIZ=0 at (Y=y, X=x) stores
 * column x, rows y..y+15, as 16 consecutive words. */
static void test_dma_store_vertical(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 64, 0);
  uint32_t *y_mem = words_at(f->g, dst, 16);
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x80000000u | 1u << 23 | 16u << 16 | 32u << 7 | 9u << 3), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  for (unsigned i = 0; i < 16; i++) assert_int_equal(y_mem[i], vpm_pattern(32 + i, 9));
}

/* ---- DMA: layouts docs/v3d-units.md chooses, worked out by hand ------------ */

/* VDW, 32-bit vertical, BLOCKMODE 0, UNITS 3, DEPTH 2 from (Y=0, X=15):
 * memory rows come from columns 15, then 16 -> column 0 of the next
 * 16-row block, then column 1 there. */
static void test_dma_store_vertical_column_carry(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 24, 0);
  uint32_t *y_mem = words_at(f->g, dst, 6);
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x80000000u | 3u << 23 | 2u << 16 | 15u << 3), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  const uint32_t want[6] = {vpm_pattern(0, 15), vpm_pattern(1, 15), vpm_pattern(16, 0),
                            vpm_pattern(17, 0), vpm_pattern(16, 1), vpm_pattern(17, 1)};
  for (unsigned i = 0; i < 6; i++) assert_int_equal(y_mem[i], want[i]);
}

/* VDW, horizontal, DEPTH 20 > 16 words: the row continues into the next
 * VPM row (the window read as one array of 64-byte rows). */
static void test_dma_store_long_row(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 80, 0);
  uint32_t *y_mem = words_at(f->g, dst, 20);
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x80000000u | 1u << 23 | 20u << 16 | 1u << 14 | 2u << 7), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  for (unsigned i = 0; i < 20; i++) assert_int_equal(y_mem[i], vpm_pattern(2 + i / 16, i % 16));
}

/* VDW, 16-bit horizontal, MODEW 3 (half-word offset 1), UNITS 2, DEPTH 4,
 * Y=1, X=2: row u takes 4 packed half-words of VPM row 1+u starting at the
 * high half of word 2: hi(2), lo(3), hi(3), lo(4). */
static void test_dma_store_16bit(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 16, 0);
  uint16_t *h = gs_mem_ptr(f->g->mem, dst, 16);
  for (unsigned y = 0; y < 64; y++)
    for (unsigned x = 0; x < 16; x++) *vpm_at(f->g, y, x) = (y * 16 + x) << 16 | (0x8000 + y * 16 + x);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x80000000u | 2u << 23 | 4u << 16 | 1u << 14 | 1u << 7 | 2u << 3 | 3u),
                   GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  const uint16_t want[8] = {18, 0x8000 + 19, 19, 0x8000 + 20, 34, 0x8000 + 35, 35, 0x8000 + 36};
  for (unsigned i = 0; i < 8; i++) assert_int_equal(h[i], want[i]); /* little-endian host */
}

/* VDW, 8-bit vertical, BLOCKMODE 1, UNITS 2, DEPTH 8 at X=3: 16 bytes packed
 * down column 3, i.e. words (0,3), (1,3), (2,3), (3,3) byte by byte. */
static void test_dma_store_8bit_vertical_blockmode(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 16, 0);
  uint8_t *b = gs_mem_ptr(f->g->mem, dst, 16);
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0xc0010000u), GS_OK);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x80000000u | 2u << 23 | 8u << 16 | 3u << 3 | 4u), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_OK);
  for (unsigned i = 0; i < 16; i++) assert_int_equal(b[i], (uint8_t)(vpm_pattern(i / 4, 3) >> (8 * (i % 4))));
}

/* VCD, 8-bit horizontal: MODEW 5 (byte 1), ROWLEN 6, NROWS 2, VPITCH 4
 * (= one row: 4 byte selects), Y=3, X=1, pitch 64. Row r fills bytes 5..10
 * of VPM row 3+r: word 1 bytes 1..3, word 2 bytes 0..2. */
static void test_dma_load_8bit_horizontal(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 128, 0);
  uint8_t *m = gs_mem_ptr(f->g->mem, src, 128);
  for (unsigned r = 0; r < 2; r++)
    for (unsigned i = 0; i < 6; i++) m[r * 64 + i] = (uint8_t)(0x10 * r + i + 1);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0xd3624031u), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src), GS_OK);
  assert_int_equal(*vpm_at(f->g, 3, 1), 0x03020100u);
  assert_int_equal(*vpm_at(f->g, 3, 2), 0x00060504u);
  assert_int_equal(*vpm_at(f->g, 4, 1), 0x13121100u);
  assert_int_equal(*vpm_at(f->g, 4, 2), 0x00161514u);
  assert_int_equal(*vpm_at(f->g, 3, 0) | *vpm_at(f->g, 3, 3) | *vpm_at(f->g, 5, 1), 0);
}

/* VCD, 8-bit vertical: MODEW 6 (byte 2), ROWLEN 6, NROWS 2, VPITCH 8 (two
 * rows of 4 bytes), Y=4, X=5. Row r starts 4*4 + 2 + 8r bytes down column
 * 5: row 0 fills row 4 bytes 2..3 and row 5; row 1 row 6 bytes 2..3 and
 * row 7. */
static void test_dma_load_8bit_vertical(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 128, 0);
  uint8_t *m = gs_mem_ptr(f->g->mem, src, 128);
  for (unsigned r = 0; r < 2; r++)
    for (unsigned i = 0; i < 6; i++) m[r * 64 + i] = (uint8_t)(0x10 * r + i + 1);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0xe3628845u), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src), GS_OK);
  assert_int_equal(*vpm_at(f->g, 4, 5), 0x02010000u);
  assert_int_equal(*vpm_at(f->g, 5, 5), 0x06050403u);
  assert_int_equal(*vpm_at(f->g, 6, 5), 0x12110000u);
  assert_int_equal(*vpm_at(f->g, 7, 5), 0x16151413u);
  assert_int_equal(*vpm_at(f->g, 8, 5) | *vpm_at(f->g, 5, 4) | *vpm_at(f->g, 5, 6), 0);
}

/* VCD, 16-bit horizontal: MODEW 3 (half 1), ROWLEN 3, NROWS 3, VPITCH 1
 * (one half-word select), Y=0, X=0, pitch 8 (MPITCH 0 -> MPITCHB 8).
 * Row r starts at {Y,H} = 1 + r: row 0 at word 0 high half, row 1 at row 1
 * word 0 low half, row 2 at row 1 word 0 high half (overwriting row 1's
 * later elements in part). */
static void test_dma_load_16bit_vpitch(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 24, 0);
  uint16_t *m = gs_mem_ptr(f->g->mem, src, 24);
  for (unsigned r = 0; r < 3; r++)
    for (unsigned i = 0; i < 3; i++) m[r * 4 + i] = (uint16_t)(0x100 * (r + 1) + i);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x90000008u), GS_OK);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0xb0331000u), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src), GS_OK);
  /* row 0: halves 1,2,3 of VPM row 0 = 0x100, 0x101, 0x102 */
  assert_int_equal(*vpm_at(f->g, 0, 0), 0x01000000u);
  assert_int_equal(*vpm_at(f->g, 0, 1), 0x01020101u);
  /* row 1: halves 0,1,2 of VPM row 1 = 0x200, 0x201, 0x202; row 2: halves
   * 1,2,3 = 0x300, 0x301, 0x302 */
  assert_int_equal(*vpm_at(f->g, 1, 0), 0x03000200u);
  assert_int_equal(*vpm_at(f->g, 1, 1), 0x03020301u);
}

/* Row addresses wrap inside the 64-row window of a user program. */
static void test_dma_load_wraps_window(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 4 * 64, 0);
  uint32_t *m = words_at(f->g, src, 64);
  for (unsigned i = 0; i < 64; i++) m[i] = i + 1;
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x80000000u | 3u << 24 | 4u << 16 | 1u << 12 | 62u << 4), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src), GS_OK);
  static const unsigned rows[4] = {62, 63, 0, 1};
  for (unsigned r = 0; r < 4; r++) assert_int_equal(*vpm_at(f->g, rows[r], 7), r * 16 + 7 + 1);
  assert_int_equal(*vpm_at(f->g, 64, 7), 0);
}

/* ---- DMA faults ------------------------------------------------------------ */

static void test_dma_store_fault_leaves_memory(void **state) {
  fixture *f = *state;
  gs_addr dst = alloc_bytes(f->g, 1000, 0x5a); /* a 16x16 store needs 1024 */
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x88104000u), GS_OK);
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, dst), GS_EFAULT);
  char want[64];
  snprintf(want, sizeof want, "VDW store to 0x%08x", dst + 1000);
  if (!strstr(gs_gpu_error(f->g), want)) fail_msg("message \"%s\" lacks \"%s\"", gs_gpu_error(f->g), want);
  assert_non_null(strstr(gs_gpu_error(f->g), "outside allocated GPU memory"));
  const uint8_t *b = gs_mem_ptr(f->g->mem, dst, 1000);
  for (unsigned i = 0; i < 1000; i++) assert_int_equal(b[i], 0x5a);
  /* an address with no allocation at all */
  assert_int_equal(qpu_vpm_dma_store(f->g, f->q, 0x10), GS_EFAULT);
  assert_non_null(strstr(gs_gpu_error(f->g), "VDW store to 0x00000010"));
}

static void test_dma_load_fault_leaves_vpm(void **state) {
  fixture *f = *state;
  gs_addr src = alloc_bytes(f->g, 100, 0x11); /* 2 rows x 16 words need 128 */
  fill_vpm(f->g);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x80000000u | 3u << 24 | 2u << 16 | 1u << 12), GS_OK);
  assert_int_equal(qpu_vpm_dma_load(f->g, f->q, src), GS_EFAULT);
  char want[64];
  snprintf(want, sizeof want, "VCD load from 0x%08x", src + 100);
  if (!strstr(gs_gpu_error(f->g), want)) fail_msg("message \"%s\" lacks \"%s\"", gs_gpu_error(f->g), want);
  for (unsigned y = 0; y < VPM_ROWS; y++)
    for (unsigned x = 0; x < 16; x++) assert_int_equal(*vpm_at(f->g, y, x), vpm_pattern(y, x));
}

/* A shader's input and output segments: reads from the main window, writes
 * to the write window, both addressed from Y = 0 (reference/vc4.md §2.1). */
static void test_shader_segments(void **state) {
  fixture *f = *state;
  fill_vpm(f->g);
  qpu_vpm_set_window(f->q, 100, 8);
  qpu_vpm_set_write_window(f->q, 140, 8);
  assert_int_equal(qpu_vpm_read_setup(f->g, f->q, 0x00101a02), GS_OK); /* 1 vector, row 2 */
  gs_vec v = read_vec(f);
  for (unsigned x = 0; x < 16; x++) assert_int_equal(v.u[x], vpm_pattern(102, x));
  /* row 9 of an 8-row output segment: an error, nothing written (the chip
   * would overwrite the next segment) */
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x00001a09), GS_OK);
  for (unsigned x = 0; x < 16; x++) v.u[x] = 0xabc00000u + x;
  assert_int_equal(qpu_vpm_write(f->g, f->q, &v), GS_EFAULT);
  assert_non_null(strstr(gs_gpu_error(f->g), "VPM write to row 9 of the program's output segment, which has 8 rows"));
  for (unsigned y = 0; y < VPM_ROWS; y++)
    for (unsigned x = 0; x < 16; x++) assert_int_equal(*vpm_at(f->g, y, x), vpm_pattern(y, x));
  /* a vertical write down rows 0-15 reaches past row 7 too */
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x00001200), GS_OK); /* 32-bit, vertical */
  assert_int_equal(qpu_vpm_write(f->g, f->q, &v), GS_EFAULT);
  assert_non_null(strstr(gs_gpu_error(f->g), "VPM write to row 8 of"));
  assert_int_equal(qpu_vpm_write_setup(f->g, f->q, 0x00001a01), GS_OK); /* row 1: inside */
  write_vec(f, &v);
  for (unsigned x = 0; x < 16; x++) {
    assert_int_equal(*vpm_at(f->g, 141, x), 0xabc00000u + x);
    assert_int_equal(*vpm_at(f->g, 101, x), vpm_pattern(101, x)); /* input untouched */
  }
  qpu_vpm_set_write_window(f->q, 0, 0); /* writes follow the main window again */
  write_vec(f, &v);
  for (unsigned x = 0; x < 16; x++) assert_int_equal(*vpm_at(f->g, 100 + 2, x), 0xabc00000u + x);
}

/* The VPM without a QPU, as another instruction set's abi uses it: a port
 * (the setup state) over a VPM of its own, generic writes and reads and a
 * VDW store by setup word, and errors in the caller's diag without any
 * unit's prefix. Positions worked out by hand from RG Tables 32 and 34. */
static void test_neutral_port(void **state) {
  fixture *f = *state;
  gs_vpm *vpm = calloc(1, sizeof *vpm);
  assert_non_null(vpm);
  gs_vpm_port p = {0};
  gs_diag d = {0};
  gs_addr dst = alloc_bytes(f->g, 64, 0xee);
  assert_int_equal(vpm_dma_store(f->g->mem, vpm, &p, dst, &d), GS_EINVAL);
  char want[128];
  snprintf(want, sizeof want, "VDW DMA store to 0x%08x started before any DMA store setup", dst);
  assert_string_equal(d.msg, want);
  /* window rows 100..107; horizontal 32-bit write at Y = 9 wraps to row 1 of
   * the window: VPM row 101 */
  vpm_port_set_window(&p, 100, 8);
  assert_int_equal(vpm_generic_check(0x00001b00u, "write", &d), GS_EINVAL); /* SIZE 3 */
  assert_string_equal(d.msg, "VPM write setup 0x00001b00 has SIZE 3, which is reserved");
  assert_int_equal(vpm_generic_check(0x00001a09u, "write", &d), GS_OK);
  vpm_generic_write_start(&p, 0x00001a09u);
  uint32_t in[VPM_VECTOR], out[VPM_VECTOR];
  for (unsigned x = 0; x < VPM_VECTOR; x++) in[x] = 0x5e000000u + x;
  vpm_block_write(vpm, &p, in);
  for (unsigned x = 0; x < 16; x++) assert_int_equal(vpm->words[101 * 16 + x], 0x5e000000u + x);
  assert_int_equal(p.wr_addr, 10); /* STRIDE 1 */
  /* read it back: NUM 1 from Y = 1 */
  vpm_generic_read_start(&p, 0x00101a01u);
  assert_int_equal(p.rd_left, 1);
  vpm_block_read(vpm, &p, out);
  assert_int_equal(p.rd_left, 0);
  assert_memory_equal(out, in, sizeof in);
  /* VDW store of 1 row of 16 words from Y = 1, horizontal, 32-bit */
  p.vdw_setup = 0x80000000u | 1u << 23 | 16u << 16 | 1u << 14 | 1u << 7;
  p.vdw_valid = 1;
  assert_int_equal(vpm_dma_store(f->g->mem, vpm, &p, dst, &d), GS_OK);
  assert_memory_equal(words_at(f->g, dst, 16), in, sizeof in);
  /* outside memory: the first bad address, no unit named */
  assert_int_equal(vpm_dma_store(f->g->mem, vpm, &p, dst + 32, &d), GS_EFAULT);
  snprintf(want, sizeof want,
           "VDW store to 0x%08x (memory row 0 of 1, element 8) is outside allocated GPU memory", dst + 64);
  assert_string_equal(d.msg, want);
  free(vpm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_generic_modes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_seed004_setups, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generic_stride_and_wrap, setup, teardown),
      cmocka_unit_test_setup_teardown(test_read_queue, setup, teardown),
      cmocka_unit_test_setup_teardown(test_setup_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_default, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_vertical_store_horizontal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_partial_block, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_extended_pitch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_stride, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_seed004, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_vertical, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_vertical_column_carry, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_long_row, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_16bit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_8bit_vertical_blockmode, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_8bit_horizontal, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_8bit_vertical, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_16bit_vpitch, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_wraps_window, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_store_fault_leaves_memory, setup, teardown),
      cmocka_unit_test_setup_teardown(test_dma_load_fault_leaves_vpm, setup, teardown),
      cmocka_unit_test_setup_teardown(test_shader_segments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_neutral_port, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
