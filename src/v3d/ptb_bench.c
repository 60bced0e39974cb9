/* ptb_bench.c — binner throughput for `gpusim bench`: many small random
 * triangles through ptb_bin_draw, the way a mesh-heavy scene feeds the PTB.
 * Only this file allocates; the binner itself never does.
 */
#include <stdlib.h>
#include <time.h>
#include "v3d/ptb.h"

#define BENCH_WIDTH 1920
#define BENCH_HEIGHT 1080
#define BENCH_BATCH 65536u /* triangles per draw; the lists are cleared between draws */

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* xorshift32: a small deterministic generator (never returns 0). */
static uint32_t next_random(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13, x ^= x >> 17, x ^= x << 5;
  return *s = x;
}

/* A random vertex within 16 pixels of the centre (cx, cy), in a frame whose
 * viewport is the whole render target: clip space with W = 1, and the 12.4
 * screen coordinates a coordinate shader would write. */
static void random_vertex(ptb_vertex *v, uint32_t *seed, int32_t cx, int32_t cy) {
  int32_t x = cx + (int32_t)(next_random(seed) % 512) - 256; /* 12.4: +-16 px */
  int32_t y = cy + (int32_t)(next_random(seed) % 512) - 256;
  v->xs = (int16_t)(x - BENCH_WIDTH * 8), v->ys = (int16_t)(y - BENCH_HEIGHT * 8);
  v->xc = (float)v->xs / (BENCH_WIDTH * 8.0f), v->yc = (float)v->ys / (BENCH_HEIGHT * 8.0f);
  v->zc = 0.5f, v->wc = 1.0f, v->zs = 0.75f, v->inv_wc = 1.0f, v->point_size = 1.0f;
}

ptb_result ptb_bench_triangles(uint32_t n, uint32_t seed, double *tris_per_second, ptb_stats *stats) {
  ptb_grid grid;
  ptb_grid_make(&grid, ptb_tiles_for(BENCH_WIDTH, PTB_TILE_SIZE), ptb_tiles_for(BENCH_HEIGHT, PTB_TILE_SIZE), false, false);
  uint32_t tx = grid.tiles_x, ty = grid.tiles_y;
  uint32_t batch = n < BENCH_BATCH ? n : BENCH_BATCH;
  ptb_vertex *verts = malloc(sizeof *verts * 3 * (size_t)(batch ? batch : 1));
  ptb_buffers buf = {
      .tiles = malloc(sizeof(ptb_tile) * tx * ty), .tile_cap = tx * ty,
      .prims = malloc(sizeof(ptb_prim) * (size_t)(batch ? batch : 1)), .prim_cap = batch,
      .clips = malloc(sizeof(ptb_clip_record) * 64), .clip_cap = 64,
      .refs = malloc(sizeof(ptb_ref) * 4 * (size_t)(batch ? batch : 1)), .ref_cap = 4 * batch,
  };
  ptb_result r = PTB_ERR_NOMEM;
  ptb_bins bins;
  ptb_stats total = {0};
  double elapsed = 0;
  if (!verts || !buf.tiles || !buf.prims || !buf.clips || !buf.refs)
    goto done;
  if ((r = ptb_bins_init(&bins, &grid, &buf)) != PTB_OK)
    goto done;
  ptb_state st;
  ptb_state_init(&st);
  st.clip_left = st.clip_bottom = 0, st.clip_width = BENCH_WIDTH, st.clip_height = BENCH_HEIGHT;
  st.viewport_x = BENCH_WIDTH * 8, st.viewport_y = BENCH_HEIGHT * 8;
  st.xy_scale_x = BENCH_WIDTH * 8.0f, st.xy_scale_y = BENCH_HEIGHT * 8.0f;
  st.clip_enable = true;
  uint32_t s = seed ? seed : 1;
  for (uint32_t left = n; left > 0;) {
    uint32_t m = left < batch ? left : batch;
    for (uint32_t i = 0; i < m; i++) {
      int32_t cx = (int32_t)(next_random(&s) % (BENCH_WIDTH * 16)), cy = (int32_t)(next_random(&s) % (BENCH_HEIGHT * 16));
      for (int k = 0; k < 3; k++)
        random_vertex(&verts[3 * i + k], &s, cx, cy);
    }
    ptb_vertices vs = {verts, 0, 3 * m};
    ptb_draw d = {.mode = PTB_TRIANGLES, .index_type = PTB_INDEX_NONE, .count = 3 * m};
    ptb_bins_clear(&bins);
    double t0 = seconds_now();
    r = ptb_bin_draw(&bins, &st, &vs, &d, NULL);
    elapsed += seconds_now() - t0;
    if (r != PTB_OK)
      goto done;
    total.assembled += bins.stats.assembled, total.culled += bins.stats.culled;
    total.discarded += bins.stats.discarded, total.clipped += bins.stats.clipped;
    total.no_tiles += bins.stats.no_tiles, total.binned += bins.stats.binned;
    total.tile_refs += bins.stats.tile_refs;
    left -= m;
  }
  *tris_per_second = elapsed > 0 ? (double)n / elapsed : 0;
  if (stats)
    *stats = total;
done:
  free(verts), free(buf.tiles), free(buf.prims), free(buf.clips), free(buf.refs);
  return r;
}
