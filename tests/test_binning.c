/* test_binning.c — binning in parallel (src/v3d/binning.c): a draw's
 * primitives split into parts binned on several threads, the tile lists
 * merged in primitive order. The bytes the binning pass leaves in
 * tile-allocation memory (every tile's list, the overflow blocks, the clip
 * records) must be those of binning on one thread, whatever the thread
 * count: here 2, 3 and 7 against 1, with every draw split
 * (ptb_split_min = 1), over the two frames of `gpusim bench` (1080p: 8
 * full-screen fans; 100,000 small triangles, also with the default split)
 * and frames of random primitives of every mode, indexed and not, clipped
 * against the near plane and the guard band, some with 4x multisampling.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "gpusim/v3d.h"
#include "isa/isa.h"
#include "v3d/cl.h"
#include "v3d/ptb.h"

#define TILE_ALLOC_SIZE (16u << 20)

/* A binning list under construction and what it needs in GPU memory. */
typedef struct frame {
  gs_gpu *g;
  gs_mem *m;
  gs_diag d;
  gs_addr bin, tile_alloc, tsda, fs, unif;
  uint32_t bin_size, tx, ty;
  gs_cl_writer w;
} frame;

static gs_addr alloc(frame *f, uint32_t n, uint32_t align) {
  gs_addr a = 0;
  assert_int_equal(gs_mem_alloc(f->m, n, align, &a, &f->d), GS_OK);
  return a;
}

static void ok(frame *f, int rc) {
  if (rc < 0) fail_msg("%s", f->d.msg[0] ? f->d.msg : gs_gpu_error(f->g));
}

/* Starts a binning list for a width x height frame: 112 (4x multisampled
 * tiles with ms), 6, the configuration bits; a QPU fragment program that
 * binning never runs. */
static void frame_begin(frame *f, uint32_t width, uint32_t height, unsigned ms) {
  memset(f, 0, sizeof *f);
  gs_gpu_config cfg = {0};
  cfg.mem_limit = 64u << 20;
  f->g = gs_gpu_new(&cfg);
  assert_non_null(f->g);
  f->m = gs_gpu_mem(f->g);
  unsigned side = ms ? 32 : 64;
  f->tx = (width + side - 1) / side, f->ty = (height + side - 1) / side;
  f->bin_size = 1u << 20;
  f->bin = alloc(f, f->bin_size, 16);
  f->tile_alloc = alloc(f, TILE_ALLOC_SIZE, 256);
  f->tsda = alloc(f, 48 * f->tx * f->ty, 16);
  f->unif = alloc(f, 16, 16);
  gs_isa_binary code;
  ok(f, gs_isa_by_name("qpu")->assemble("    thrend\n    nop\n    nop\n", "fs.s", 0, &code, &f->d));
  f->fs = alloc(f, (uint32_t)code.size, 8);
  ok(f, gs_mem_write(f->m, f->fs, code.bytes, (uint32_t)code.size, &f->d));
  gs_isa_binary_free(&code);
  gs_cl_writer_init(&f->w, f->m, f->bin, f->bin_size);
  gs_cl_tile_binning_mode_configuration c = {.tile_alloc = f->tile_alloc, .tile_alloc_size = TILE_ALLOC_SIZE,
                                             .tsda = f->tsda, .width_tiles = f->tx, .height_tiles = f->ty,
                                             .ms4x = ms, .auto_init_tsda = 1, .block_size = 0};
  gs_cl_configuration_bits cb = {.enable_forward_facing = 1, .enable_reverse_facing = 1, .depth_func = 1,
                                 .oversample = ms};
  ok(f, gs_cl_emit_tile_binning_mode_configuration(&f->w, &c, &f->d));
  ok(f, gs_cl_put_id(&f->w, GS_CL_START_TILE_BINNING, NULL, &f->d));
  ok(f, gs_cl_emit_configuration_bits(&f->w, &cb, &f->d));
}

/* An NV shader record for n vertices of `words` words each (3, or 7 with
 * the clip header), clipping on with the header; returns the vertex data
 * for the caller to fill, and puts the shader state into the list. */
static uint32_t *nv_shader(frame *f, uint32_t n, unsigned header) {
  unsigned words = header ? 7 : 3;
  gs_addr va = alloc(f, 4 * words * n + 16, 16), rec = alloc(f, 16, 16);
  gs_cl_nv_shader_record r = {.fs_single_threaded = 1, .clipping = header, .clip_header = header,
                              .vertex_stride = 4 * words, .fs_code = f->fs, .fs_uniforms = f->unif,
                              .vertex_data = va};
  uint8_t b[16];
  ok(f, gs_cl_pack_nv_shader_record(b, sizeof b, &r, &f->d));
  ok(f, gs_mem_write(f->m, rec, b, sizeof b, &f->d));
  gs_cl_nv_shader_state ns = {rec};
  ok(f, gs_cl_emit_nv_shader_state(&f->w, &ns, &f->d));
  return gs_mem_ptr(f->m, va, 4 * words * n);
}

static void put_f32(uint32_t *w, float x) { memcpy(w, &x, 4); }

/* A pre-shaded vertex without the clip header: Xs, Ys (12.4), Zs, 1/Wc = 1. */
static void vertex3(uint32_t *v, int32_t xs, int32_t ys, float z) {
  v[0] = (uint32_t)(uint16_t)xs | (uint32_t)(uint16_t)ys << 16;
  put_f32(&v[1], z);
  put_f32(&v[2], 1.0f);
}

/* Ends the list (Flush), runs binning alone on `threads` threads and
 * returns a copy of the whole tile-allocation memory. */
static uint8_t *frame_bin(frame *f, unsigned threads) {
  ok(f, gs_cl_put_id(&f->w, GS_CL_FLUSH, NULL, &f->d));
  uint8_t *ta = gs_mem_ptr(f->m, f->tile_alloc, TILE_ALLOC_SIZE);
  memset(ta, 0xA5, TILE_ALLOC_SIZE); /* what binning does not write differs from zero */
  gs_v3d_options o = {0};
  o.threads = threads;
  ok(f, gs_v3d_run(f->g, f->bin, f->w.cur, 0, 0, &o));
  uint8_t *copy = malloc(TILE_ALLOC_SIZE);
  assert_non_null(copy);
  memcpy(copy, ta, TILE_ALLOC_SIZE);
  return copy;
}

typedef void frame_fn(frame *f, uint32_t seed);

/* `gpusim bench`'s fill frame: 8 full-screen fans of 4 corners. */
static void fill_frame(frame *f, uint32_t seed) {
  (void)seed;
  frame_begin(f, 1920, 1080, 0);
  uint32_t *v = nv_shader(f, 32, 0);
  for (unsigned l = 0; l < 8; l++) {
    float z = 1.0f - (float)(l + 1) / 9.0f;
    vertex3(v + 12 * l, 0, 0, z);
    vertex3(v + 12 * l + 3, 1920 * 16, 0, z);
    vertex3(v + 12 * l + 6, 1920 * 16, 1080 * 16, z);
    vertex3(v + 12 * l + 9, 0, 1080 * 16, z);
    gs_cl_vertex_array_primitives va = {6, 4, 4 * l};
    ok(f, gs_cl_emit_vertex_array_primitives(&f->w, &va, &f->d));
  }
}

/* `gpusim bench`'s triangle frame: 100,000 right triangles with 6-pixel
 * legs at random positions (its LCG), in one draw. */
static void triangle_frame(frame *f, uint32_t seed) {
  (void)seed;
  const uint32_t n = 100000, width = 1920, height = 1080;
  frame_begin(f, width, height, 0);
  uint32_t *v = nv_shader(f, 3 * n, 0);
  uint32_t s = 12345;
  for (uint32_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    int32_t x = (int32_t)((s >> 8) % ((width - 8) * 16)), y = (int32_t)((s >> 3) % ((height - 8) * 16));
    float z = (float)(s >> 24) / 256.0f;
    vertex3(v + 9 * i, x, y, z);
    vertex3(v + 9 * i + 3, x + 96, y, z);
    vertex3(v + 9 * i + 6, x, y + 96, z);
  }
  gs_cl_vertex_array_primitives va = {4, 3 * n, 0};
  ok(f, gs_cl_emit_vertex_array_primitives(&f->w, &va, &f->d));
}

static uint32_t rnd(uint32_t *s) { /* xorshift32 */
  *s ^= *s << 13;
  *s ^= *s >> 17;
  *s ^= *s << 5;
  return *s;
}

/* Random draws of every mode over one vertex buffer with the clip header:
 * clip-space positions of every size, some behind the eye or past the
 * guard band (clipped into clip records), their screen position as the
 * coordinate shader would give it (Xs = Xc/Wc x 16 x half size, saturated);
 * arrays and 8- and 16-bit index lists; point sizes and line widths; the
 * viewport offset and a clip window; 4x multisampling with odd seeds. */
static void random_frame(frame *f, uint32_t seed) {
  const uint32_t width = 640, height = 480, nv = 3000;
  uint32_t s = seed;
  unsigned ms = seed & 1;
  frame_begin(f, width, height, ms);
  gs_cl_clipper_xy_scaling xy = {16.0f * width / 2, 16.0f * height / 2};
  gs_cl_clipper_z_scale_and_offset zso = {0.5f, 0.5f};
  gs_cl_z_min_max_clipping_planes zmm = {0.0f, 1.0f};
  gs_cl_viewport_offset vo = {(int32_t)(width * 8), (int32_t)(height * 8)};
  gs_cl_clip_window cw = {3, 5, width - 20, height - 9};
  gs_cl_point_size ps = {7.5f};
  gs_cl_line_width lw = {2.25f};
  ok(f, gs_cl_emit_clipper_xy_scaling(&f->w, &xy, &f->d));
  ok(f, gs_cl_emit_clipper_z_scale_and_offset(&f->w, &zso, &f->d));
  ok(f, gs_cl_emit_z_min_max_clipping_planes(&f->w, &zmm, &f->d));
  ok(f, gs_cl_emit_viewport_offset(&f->w, &vo, &f->d));
  ok(f, gs_cl_emit_clip_window(&f->w, &cw, &f->d));
  ok(f, gs_cl_emit_point_size(&f->w, &ps, &f->d));
  ok(f, gs_cl_emit_line_width(&f->w, &lw, &f->d));
  uint32_t *v = nv_shader(f, nv, 1);
  for (uint32_t i = 0; i < nv; i++) {
    float c[4];
    float spread = (rnd(&s) % 8 == 0) ? 6.0f : 1.2f;
    for (int k = 0; k < 3; k++) c[k] = ((float)(rnd(&s) % 20001) / 10000.0f - 1.0f) * spread;
    c[3] = (rnd(&s) % 10 == 0) ? -0.5f : 0.25f + (float)(rnd(&s) % 1000) / 500.0f;
    uint32_t *w = v + 7 * i;
    for (int k = 0; k < 4; k++) put_f32(&w[k], c[k]);
    double xs = (double)c[0] / c[3] * xy.half_width, ys = (double)c[1] / c[3] * xy.half_height;
    xs = xs > 32767 ? 32767 : xs < -32768 ? -32768 : xs;
    ys = ys > 32767 ? 32767 : ys < -32768 ? -32768 : ys;
    w[4] = (uint32_t)(uint16_t)(int32_t)xs | (uint32_t)(uint16_t)(int32_t)ys << 16;
    put_f32(&w[5], c[2] / c[3] * 0.5f + 0.5f);
    put_f32(&w[6], 1.0f / c[3]);
  }
  gs_addr idx = alloc(f, 2 * 4096, 16);
  uint8_t *ib = gs_mem_ptr(f->m, idx, 2 * 4096);
  for (int d = 0; d < 24; d++) {
    unsigned mode = rnd(&s) % 7, kind = rnd(&s) % 3;
    uint32_t count = 1 + rnd(&s) % 2000;
    if (kind == 0) {
      uint32_t first = rnd(&s) % (nv - count + 1 > 0 ? nv - count + 1 : 1);
      if (first + count > nv) count = nv - first;
      gs_cl_vertex_array_primitives va = {mode, count, first};
      ok(f, gs_cl_emit_vertex_array_primitives(&f->w, &va, &f->d));
      continue;
    }
    /* an index list: 8-bit (kind 1, indices < 256) or 16-bit; its own copy */
    uint32_t max = 0, bytes = kind == 1 ? count : 2 * count;
    gs_addr at = alloc(f, bytes, 16);
    uint8_t *p = gs_mem_ptr(f->m, at, bytes);
    for (uint32_t k = 0; k < count; k++) {
      uint32_t i = rnd(&s) % (kind == 1 ? 256 : nv);
      max = i > max ? i : max;
      if (kind == 1) p[k] = (uint8_t)i;
      else p[2 * k] = (uint8_t)i, p[2 * k + 1] = (uint8_t)(i >> 8);
    }
    gs_cl_indexed_primitive_list il = {mode, kind == 1 ? 0u : 1u, count, at, max};
    ok(f, gs_cl_emit_indexed_primitive_list(&f->w, &il, &f->d));
  }
  (void)ib;
}

/* Bins frame `make` on 1 thread, then on 2, 3 and 7 threads with every
 * draw split (and, with splits = 2, with the default split too: the bench
 * frame of 100,000 triangles is split then), and compares the bytes. Returns
 * how many bytes of tile-allocation memory binning wrote. */
static size_t same_bytes(frame_fn *make, uint32_t seed, int splits) {
  static const unsigned threads[] = {2, 3, 7};
  uint32_t saved = ptb_split_min;
  frame f;
  make(&f, seed);
  uint8_t *want = frame_bin(&f, 1);
  gs_gpu_free(f.g);
  size_t written = 0;
  for (size_t i = 0; i < TILE_ALLOC_SIZE; i++) written += want[i] != 0xA5;
  for (int split = 0; split < splits; split++)
    for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
      ptb_split_min = split ? saved : 1;
      make(&f, seed);
      uint8_t *got = frame_bin(&f, threads[t]);
      gs_gpu_free(f.g);
      ptb_split_min = saved;
      for (size_t i = 0; i < TILE_ALLOC_SIZE; i++)
        if (got[i] != want[i])
          fail_msg("seed %u, %u threads, split %s: tile allocation byte 0x%zx is 0x%02x, on 1 thread 0x%02x", seed,
                   threads[t], split ? "default" : "every draw", i, got[i], want[i]);
      free(got);
    }
  free(want);
  return written;
}

static void test_bench_fill_lists_any_threads(void **state) {
  (void)state;
  assert_true(same_bytes(fill_frame, 0, 2) > 510 * 4); /* every tile's list */
}

static void test_bench_triangle_lists_any_threads(void **state) {
  (void)state;
  assert_true(same_bytes(triangle_frame, 0, 2) > 100000 * 3); /* at least a compressed triangle each */
}

static void test_random_lists_any_threads(void **state) {
  (void)state;
  for (uint32_t seed = 1; seed <= 4; seed++) assert_true(same_bytes(random_frame, 0x9E3779B9u * seed, 1) > 10000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_bench_fill_lists_any_threads),
      cmocka_unit_test(test_bench_triangle_lists_any_threads),
      cmocka_unit_test(test_random_lists_any_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
