/* cle_bench.c — the two benchmark frames of `gpusim bench` (issue 3, §7),
 * built as control lists and run through the executor: a fill-bound frame
 * (full-screen layers, depth-tested, drawn back to front so every layer is
 * shaded) and a triangle-bound frame (many small triangles). NV mode with
 * pre-shaded vertices keeps the vertex work out of the figures; the
 * fragment shader is the shortest that depth-tests and writes a colour, in
 * the instruction set asked for (its gs_isa.bench_fragment; for the
 * PICA200, which has no fragment programs, the QPU program its texture
 * combiners become).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "isa/isa.h"
#include "v3d/cle.h"

#define BENCH_TILE_ALLOC (48u << 20)

/* A frame's context and its memory, kept for the next frame of the same
 * kind, size and instruction set, so that a run of frames does not make a
 * 256 MB context each time and fault its pages in again (the frame
 * buffer's 8 MB at 1080p, the tile lists) while the frame is timed: the
 * frames of `gpusim bench` and `gpusim bench --peer` come in turns (fill
 * and triangles, each instruction set), so a context is kept for each of
 * the last KEPT kinds, as a peer keeps its own across its frames. The next
 * frame writes everything it reads: its code, record, vertices and lists,
 * the tile lists (binning), every tile of the frame buffer (zeroed first
 * anyway). */
typedef struct bench_ctx {
  gs_gpu *g;
  const gs_isa *isa;
  uint32_t width, height, nverts, ndraws;
  gs_addr fs, unif, va, fb, tile_alloc, tsda, bin, render, rec;
} bench_ctx;

static void ctx_free(bench_ctx *c) {
  if (!c) return;
  gs_gpu_free(c->g);
  free(c);
}

/* The last frames' contexts (whichever thread ran them), one a kind. */
#define KEPT 8
static _Atomic(bench_ctx *) kept[KEPT];
static atomic_uint kept_next; /* the slot the next context replaces when none is free */

/* The kept context of this kind, taken out of its slot, or NULL. */
static bench_ctx *ctx_take(const gs_isa *isa, uint32_t width, uint32_t height, uint32_t nverts, uint32_t ndraws) {
  for (int i = 0; i < KEPT; i++) {
    bench_ctx *c = atomic_exchange(&kept[i], NULL), *none = NULL;
    if (!c) continue;
    if (c->isa == isa && c->width == width && c->height == height && c->nverts == nverts && c->ndraws == ndraws)
      return c;
    if (!atomic_compare_exchange_strong(&kept[i], &none, c)) ctx_free(c); /* another took the slot meanwhile */
  }
  return NULL;
}

/* Keeps c for the next frame of its kind: in a free slot, else in place of
 * the oldest kept. */
static void ctx_keep(bench_ctx *c) {
  for (int i = 0; i < KEPT; i++) {
    bench_ctx *none = NULL;
    if (atomic_compare_exchange_strong(&kept[i], &none, c)) return;
  }
  ctx_free(atomic_exchange(&kept[atomic_fetch_add(&kept_next, 1u) % KEPT], c));
}



typedef struct bench_frame {
  bench_ctx *c;
  gs_gpu *g;
  gs_mem *m;
  gs_diag d;
  uint32_t width, height, tx, ty;
  gs_addr fb, tile_alloc, tsda, bin, render, rec;
  uint32_t bin_size;
  gs_cl_writer w;
} bench_frame;

static int bench_alloc(bench_frame *f, uint32_t n, uint32_t align, gs_addr *out) {
  return gs_mem_alloc(f->m, n, align, out, &f->d);
}

/* Context, frame buffer, tile memory, the shader and an NV record for
 * `nverts` pre-shaded vertices (returned in *verts for the caller to fill). */
static int bench_setup(bench_frame *f, uint32_t width, uint32_t height, uint32_t nverts, uint32_t ndraws,
                       const char *isa_name, uint32_t **verts) {
  memset(f, 0, sizeof *f);
  /* the hardware's own instruction set unless another is named */
  const gs_isa *own = gs_isa_by_id(GS_ISA_NONE), *isa = isa_name ? gs_isa_by_name(isa_name) : own;
  if (!isa || !isa->bench_fragment)
    return gs_diag_set(&f->d, GS_EARG, "v3d bench: no fragment program for instruction set '%s'", isa_name);
  bench_ctx *c = ctx_take(isa, width, height, nverts, ndraws);
  int reuse = c != NULL;
  if (!c) {
    gs_gpu_config cfg = {0};
    cfg.mem_limit = 256u << 20;
    if (!(c = calloc(1, sizeof *c))) return GS_ENOMEM;
    if (!(c->g = gs_gpu_new(&cfg))) return free(c), GS_ENOMEM;
    c->isa = isa, c->width = width, c->height = height, c->nverts = nverts, c->ndraws = ndraws;
  }
  f->c = c, f->g = c->g;
  f->m = gs_gpu_mem(f->g);
  f->width = width, f->height = height;
  f->tx = (width + 63) / 64, f->ty = (height + 63) / 64;
  f->bin_size = 256 + 16 * ndraws;
  gs_isa_binary code;
  gs_addr fs = c->fs, unif = c->unif, va = c->va;
  /* an ISA without fragment programs: the QPU code of its fixed function */
  const gs_isa *code_isa = isa->vertex_only ? own : isa;
  int rc = code_isa->assemble(isa->bench_fragment, "bench_fs.s", 0, &code, &f->d);
  if (rc < 0) return rc;
  if (reuse) { /* the same code, sizes and places */
    f->fb = c->fb, f->tile_alloc = c->tile_alloc, f->tsda = c->tsda, f->bin = c->bin, f->render = c->render;
    f->rec = c->rec;
    if (code_isa != own) fs -= GS_PROGRAM_HEADER;
    memset(gs_mem_ptr(f->m, f->fb, width * height * 4), 0, width * height * 4);
  }
  if (code_isa == own) { /* the hardware's own code, without a header, as in a hand-written list */
    if (!reuse) rc = bench_alloc(f, (uint32_t)code.size, 8, &fs);
  } else { /* a program header (ISA and SPH) in front of the code */
    gs_sph sph;
    uint32_t words[GS_SPH_WORDS];
    uint8_t header[GS_PROGRAM_HEADER];
    gs_sph_decl decl = {.stage = GS_SPH_PIXEL, .render_targets = 0xF};
    rc = gs_sph_build(&decl, &sph, &f->d);
    if (rc >= 0) rc = gs_sph_encode(&sph, words, &f->d);
    if (rc >= 0 && !reuse) rc = bench_alloc(f, GS_PROGRAM_HEADER + (uint32_t)code.size, 32, &fs);
    if (rc >= 0) {
      gs_program_header_write(header, code_isa->id, (uint32_t)code.size, &sph, words);
      rc = gs_mem_write(f->m, fs, header, sizeof header, &f->d);
      fs += GS_PROGRAM_HEADER;
    }
  }
  if (rc >= 0) rc = gs_mem_write(f->m, fs, code.bytes, (uint32_t)code.size, &f->d);
  gs_isa_binary_free(&code);
  if (!reuse) {
    if (rc >= 0) rc = bench_alloc(f, width * height * 4, 16, &f->fb);
    if (rc >= 0) rc = bench_alloc(f, BENCH_TILE_ALLOC, 256, &f->tile_alloc);
    if (rc >= 0) rc = bench_alloc(f, 48 * f->tx * f->ty, 16, &f->tsda);
    if (rc >= 0) rc = bench_alloc(f, f->bin_size, 16, &f->bin);
    if (rc >= 0) rc = bench_alloc(f, 16 * f->tx * f->ty + 64, 16, &f->render);
    if (rc >= 0) rc = bench_alloc(f, 16, 16, &unif);
    if (rc >= 0) rc = bench_alloc(f, 12 * nverts, 16, &va);
    if (rc >= 0) rc = bench_alloc(f, 16, 16, &f->rec);
    if (rc < 0) return rc;
    c->fs = fs, c->unif = unif, c->va = va, c->fb = f->fb, c->tile_alloc = f->tile_alloc, c->tsda = f->tsda;
    c->bin = f->bin, c->render = f->render, c->rec = f->rec;
  }
  gs_cl_nv_shader_record r = {.fs_single_threaded = 1, .vertex_stride = 12, .fs_code = fs, .fs_uniforms = unif,
                              .vertex_data = va};
  uint8_t b[16];
  if ((rc = gs_cl_pack_nv_shader_record(b, sizeof b, &r, &f->d)) < 0) return rc;
  if ((rc = gs_mem_write(f->m, f->rec, b, sizeof b, &f->d)) < 0) return rc;
  *verts = gs_mem_ptr(f->m, va, 12 * nverts);
  return GS_OK;
}

/* One pre-shaded vertex: Xs, Ys (12.4), Zs, 1/Wc = 1. */
static void bench_vertex(uint32_t *v, int32_t xs, int32_t ys, float z) {
  float one = 1.0f;
  v[0] = (uint32_t)(uint16_t)xs | (uint32_t)(uint16_t)ys << 16;
  memcpy(&v[1], &z, 4);
  memcpy(&v[2], &one, 4);
}

/* 112, 6, depth test "less" with Z writes, the NV shader state. */
static int bench_bin_begin(bench_frame *f) {
  gs_cl_writer_init(&f->w, f->m, f->bin, f->bin_size);
  gs_cl_tile_binning_mode_configuration c = {.tile_alloc = f->tile_alloc, .tile_alloc_size = BENCH_TILE_ALLOC,
                                             .tsda = f->tsda, .width_tiles = f->tx, .height_tiles = f->ty,
                                             .auto_init_tsda = 1, .block_size = 3};
  gs_cl_configuration_bits cb = {.enable_forward_facing = 1, .enable_reverse_facing = 1, .depth_func = 1,
                                 .z_updates = 1};
  gs_cl_nv_shader_state ns = {f->rec};
  int rc = gs_cl_emit_tile_binning_mode_configuration(&f->w, &c, &f->d);
  if (rc >= 0) rc = gs_cl_put_id(&f->w, GS_CL_START_TILE_BINNING, NULL, &f->d);
  if (rc >= 0) rc = gs_cl_emit_configuration_bits(&f->w, &cb, &f->d);
  if (rc >= 0) rc = gs_cl_emit_nv_shader_state(&f->w, &ns, &f->d);
  return rc;
}

/* Ends the binning list, writes the rendering list (clear, 113, every tile)
 * and runs both. */
static int bench_run(bench_frame *f, unsigned threads, gs_v3d_stats *st) {
  int rc = gs_cl_put_id(&f->w, GS_CL_INCREMENT_SEMAPHORE, NULL, &f->d);
  if (rc >= 0) rc = gs_cl_put_id(&f->w, GS_CL_FLUSH, NULL, &f->d);
  gs_cl_writer w;
  gs_cl_writer_init(&w, f->m, f->render, 16 * f->tx * f->ty + 64);
  gs_cl_clear_colors cc = {0, 0, 0xFFFFFF, 0, 0};
  gs_cl_tile_rendering_mode_configuration mc = {.address = f->fb, .width = f->width, .height = f->height,
                                                .color_format = 1};
  if (rc >= 0) rc = gs_cl_emit_clear_colors(&w, &cc, &f->d);
  if (rc >= 0) rc = gs_cl_emit_tile_rendering_mode_configuration(&w, &mc, &f->d);
  for (uint32_t y = 0; y < f->ty && rc >= 0; y++)
    for (uint32_t x = 0; x < f->tx && rc >= 0; x++) {
      gs_cl_tile_coordinates tc = {x, y};
      gs_cl_branch_to_sub_list br = {f->tile_alloc + (y * f->tx + x) * 32};
      rc = gs_cl_emit_tile_coordinates(&w, &tc, &f->d);
      if (rc >= 0 && x == 0 && y == 0) rc = gs_cl_put_id(&w, GS_CL_WAIT_ON_SEMAPHORE, NULL, &f->d);
      if (rc >= 0) rc = gs_cl_emit_branch_to_sub_list(&w, &br, &f->d);
      if (rc >= 0) rc = gs_cl_put_id(&w, GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER, NULL, &f->d);
    }
  if (rc < 0) return rc;
  gs_v3d_options o = {0};
  o.threads = threads;
  rc = gs_v3d_run_stats(f->g, f->bin, f->w.cur, f->render, w.cur, &o, st);
  if (rc < 0) gs_diag_set(&f->d, rc, "%s", gs_gpu_error(f->g));
  return rc;
}

static void bench_result(const gs_v3d_stats *st, uint64_t triangles, gs_v3d_bench_result *r) {
  memset(r, 0, sizeof *r);
  r->bin_seconds = st->bin_seconds;
  r->render_seconds = st->render_seconds;
  r->seconds = st->bin_seconds + st->render_seconds;
  r->fragments = st->fragments;
  r->triangles = triangles;
  if (r->seconds > 0) {
    r->mpixels_per_second = (double)st->fragments / r->seconds / 1e6;
    r->mtriangles_per_second = (double)triangles / r->seconds / 1e6;
  }
}

/* Ends a benchmark: the message of a failure goes to *d; the context is
 * kept for the next frame, or freed after a failure. */
static int bench_finish(bench_frame *f, int rc, uint8_t *image, gs_diag *d) {
  if (rc >= 0 && image) memcpy(image, gs_mem_ptr(f->m, f->fb, f->width * f->height * 4), f->width * f->height * 4);
  if (rc < 0 && d) gs_diag_set(d, rc, "%s", f->d.msg);
  if (rc < 0) ctx_free(f->c);
  else ctx_keep(f->c);
  return rc;
}

int gs_v3d_bench_fill(uint32_t width, uint32_t height, unsigned layers, unsigned threads, const char *isa,
                      gs_v3d_bench_result *r, gs_diag *d) {
  return gs_v3d_bench_fill_image(width, height, layers, threads, isa, r, NULL, d);
}

int gs_v3d_bench_fill_image(uint32_t width, uint32_t height, unsigned layers, unsigned threads, const char *isa,
                            gs_v3d_bench_result *r, uint8_t *image, gs_diag *d) {
  if (width == 0 || height == 0 || width > 2048 || height > 2048 || layers == 0 || layers > 1000)
    return gs_diag_set(d, GS_EARG, "v3d bench: %ux%u with %u layers (1..2048 pixels a side, 1..1000 layers)", width,
                       height, layers);
  bench_frame f;
  uint32_t *v = NULL;
  int rc = bench_setup(&f, width, height, 4 * layers, layers, isa, &v);
  if (rc >= 0) rc = bench_bin_begin(&f);
  /* Layer l is a fan of 4 corners at Z = 1 - (l + 1) / (layers + 1): each
   * nearer than the ones drawn before it. Corners at +-(size/2) around a
   * viewport-free centre: absolute 12.4 positions. */
  for (unsigned l = 0; l < layers && rc >= 0; l++) {
    float z = 1.0f - (float)(l + 1) / (float)(layers + 1);
    int32_t X = (int32_t)width * 16, Y = (int32_t)height * 16;
    if (X > 32767) X = 32767;
    if (Y > 32767) Y = 32767;
    bench_vertex(v + 12 * l, 0, 0, z);
    bench_vertex(v + 12 * l + 3, X, 0, z);
    bench_vertex(v + 12 * l + 6, X, Y, z);
    bench_vertex(v + 12 * l + 9, 0, Y, z);
    gs_cl_vertex_array_primitives va = {6, 4, 4 * l};
    rc = gs_cl_emit_vertex_array_primitives(&f.w, &va, &f.d);
  }
  gs_v3d_stats st;
  if (rc >= 0) rc = bench_run(&f, threads, &st);
  if (rc >= 0) bench_result(&st, 2ull * layers, r);
  return bench_finish(&f, rc, image, d);
}

int gs_v3d_bench_triangles(uint32_t width, uint32_t height, uint32_t n, unsigned threads, const char *isa,
                           gs_v3d_bench_result *r, gs_diag *d) {
  return gs_v3d_bench_triangles_image(width, height, n, threads, isa, r, NULL, d);
}

int gs_v3d_bench_triangles_image(uint32_t width, uint32_t height, uint32_t n, unsigned threads, const char *isa,
                                 gs_v3d_bench_result *r, uint8_t *image, gs_diag *d) {
  if (width < 16 || height < 16 || width > 2048 || height > 2048 || n == 0 || n > (1u << 20))
    return gs_diag_set(d, GS_EARG, "v3d bench: %ux%u with %u triangles (16..2048 pixels a side, 1..1M triangles)",
                       width, height, n);
  bench_frame f;
  uint32_t *v = NULL;
  int rc = bench_setup(&f, width, height, 3 * n, 1, isa, &v);
  if (rc >= 0) rc = bench_bin_begin(&f);
  /* Right triangles with 6-pixel legs at random positions (a fixed LCG). */
  uint32_t seed = 12345;
  for (uint32_t i = 0; i < n && rc >= 0; i++) {
    seed = seed * 1664525u + 1013904223u;
    int32_t x = (int32_t)((seed >> 8) % ((width - 8) * 16)), y = (int32_t)((seed >> 3) % ((height - 8) * 16));
    float z = (float)(seed >> 24) / 256.0f;
    bench_vertex(v + 9 * i, x, y, z);
    bench_vertex(v + 9 * i + 3, x + 96, y, z);
    bench_vertex(v + 9 * i + 6, x, y + 96, z);
  }
  gs_cl_vertex_array_primitives va = {4, 3 * n, 0};
  if (rc >= 0) rc = gs_cl_emit_vertex_array_primitives(&f.w, &va, &f.d);
  gs_v3d_stats st;
  if (rc >= 0) rc = bench_run(&f, threads, &st);
  if (rc >= 0) bench_result(&st, n, r);
  return bench_finish(&f, rc, image, d);
}
