/* test_cle.c — the control-list executor and the two passes: hand-written
 * binning and rendering lists (written with the control-list writer) draw
 * NV-mode triangles with pre-shaded vertices and GL-mode triangles with
 * coordinate, vertex and fragment shaders in QPU assembly. Expected pixels
 * come from the test's own arithmetic: the exact area of a rectangle, the
 * fill rule of docs/rasterization.md evaluated per pixel, the barycentric
 * formula, which of two depths is nearer. Also: the frame is byte-identical
 * for 1, 2 and 4 threads, and malformed lists and faulting shaders give
 * errors naming the place. 4x multisample frames resolve to the byte
 * average of the covered samples a per-sample oracle finds, MS_FLAGS and
 * the sample order show in full-resolution dumps, 64-bit colour frames
 * store RGBA16F halves worked out by hand. */
#include <fenv.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/driver.h"
#include "gpusim/qpu.h"
#include "gpusim/v3d.h"
#include "isa/isa.h"
#include "v3d/cl.h"
#include "v3d/vpm.h"
#include "v3d/tlb.h"
#include "fill_rule.h"

/* ---- fragment, vertex and coordinate shaders ------------------------------ */

/* Writes one constant colour. */
#define FS_CONSTANT_BODY                                                                                            \
  "    ldi r0, 0xff336699       # the colour word: R 0x99, G 0x66, B 0x33, A 0xff\n"                                   \
  "    mov tlb_colour_all, r0   # to every covered pixel\n"                                                           \
  "    thrend\n"                                                                                                     \
  "    nop\n"                                                                                                        \
  "    nop ; nop ; sbdone\n"
static const char fs_constant[] = FS_CONSTANT_BODY;

/* Adds 1 to the pixel: the frame then counts how often each pixel was shaded. */
static const char fs_count[] =
    "    nop ; nop ; loadc        # r4 = the tile buffer's colour\n"
    "    ldi r1, 1\n"
    "    add tlb_colour_all, r4, r1\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Writes the interpolated varying's float bits as the pixel word. */
static const char fs_varying[] =
    "    fmul r0, vary, ra15      # VP x W; r5 = C from here on\n"
    "    fadd r0, r0, r5          # + C: the varying at this pixel\n"
    "    mov tlb_colour_all, r0\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Depth test with the interpolated Z, then the draw's colour (a uniform). */
static const char fs_depth[] =
    "    mov tlb_z, rb15          # Z test: failing lanes drop out of MS_FLAGS\n"
    "    mov r0, unif             # this draw's colour\n"
    "    mov tlb_colour_all, r0   # written where the test passed\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Reads a varying the primitive does not have: the read would wait forever. */
static const char fs_bad_varying[] =
    "    mov r0, vary\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Attributes per vertex: x, y (pixels), z, v. Clip space is pixel space
 * with W = 1, so Xs = 16 x and 1/Wc = 1. */
static const char cs_pixels[] =
    "    ldi vr_setup, 0x00401a00 # VPM read: 4 rows from Y = 0\n"
    "    ldi vw_setup, 0x00001a00 # VPM write: rows from Y = 0\n"
    "    mov r0, vpm              # x\n"
    "    mov r1, vpm              # y\n"
    "    mov r2, vpm              # z\n"
    "    mov r3, vpm              # v (read: every loaded row is consumed)\n"
    "    fmul r3, r0, 16.0\n"
    "    ftoi ra0.16a, r3         # Xs, 12.4\n"
    "    fmul r3, r1, 16.0\n"
    "    ftoi ra0.16b, r3         # Ys, 12.4\n"
    "    mov vpm, r0              # row 0 Xc\n"
    "    mov vpm, r1              # row 1 Yc\n"
    "    mov vpm, r2              # row 2 Zc\n"
    "    mov vpm, 1.0             # row 3 Wc\n"
    "    mov vpm, ra0             # row 4 Ys | Xs\n"
    "    mov vpm, r2              # row 5 Zs\n"
    "    mov vpm, 1.0             # row 6 1/Wc\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Reads x, y, z, v and writes the three PSE rows (Xs, Ys in pixels, Zs,
 * 1/Wc = 1); what follows writes the varying rows. */
#define VS_PIXELS_POSITION \
    "    ldi vr_setup, 0x00401a00\n" \
    "    ldi vw_setup, 0x00001a00\n" \
    "    mov r0, vpm              # x\n" \
    "    mov r1, vpm              # y\n" \
    "    mov r2, vpm              # z\n" \
    "    mov r3, vpm              # v\n" \
    "    fmul r0, r0, 16.0\n" \
    "    ftoi ra0.16a, r0         # Xs\n" \
    "    fmul r1, r1, 16.0\n" \
    "    ftoi ra0.16b, r1         # Ys\n" \
    "    nop                      # ra0 is readable 2 instructions after its write\n" \
    "    mov vpm, ra0             # row 0 Ys | Xs\n" \
    "    mov vpm, r2              # row 1 Zs\n" \
    "    mov vpm, 1.0             # row 2 1/Wc\n"

static const char vs_pixels[] =
    VS_PIXELS_POSITION
    "    mov vpm, r3              # row 3 the varying\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* A coordinate shader that reads its uniforms (at an address the test
 * leaves unallocated). */
static const char cs_bad_uniform[] =
    "    mov r0, unif\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* ---- building frames --------------------------------------------------------- */

typedef struct frame {
  gs_gpu *g;
  gs_mem *m;
  uint32_t width, height, tx, ty;
  gs_addr fb, tile_alloc, tsda, bin, render, unif;
  gs_addr bin_end, render_end;
  gs_cl_writer w;  /* the binning list */
  gs_diag d;
  /* 4x multisampling and 64-bit colour (records 112/113 bits 0 and 1), the
   * rasteriser oversample code (96 bits 7:6), 113's decimate code, the
   * high half of the clear colour for 64-bit colour, and where each tile
   * dumps its buffer (26) instead of a resolved store (0: no dump). */
  unsigned ms, c64, oversample, decimate;
  uint32_t clear_hi;
  gs_addr dump;
  unsigned dump_general; /* dump with 28's buffer 5 (full dump) instead of 26 */
} frame;

static gs_addr alloc(frame *f, uint32_t n, uint32_t align) {
  gs_addr a;
  assert_int_equal(gs_mem_alloc(f->m, n, align, &a, NULL), GS_OK);
  return a;
}

static gs_addr put_bytes(frame *f, const void *p, uint32_t n, uint32_t align) {
  gs_addr a = alloc(f, n, align);
  assert_int_equal(gs_mem_write(f->m, a, p, n, NULL), GS_OK);
  return a;
}

static gs_addr put_code(frame *f, const char *src) {
  uint64_t *w;
  size_t n;
  if (gs_qpu_asm(src, "shader.s", 0, &w, &n, &f->d) < 0) fail_msg("%s", f->d.msg);
  gs_addr a = put_bytes(f, w, (uint32_t)(8 * n), 8);
  free(w);
  return a;
}

static void check(frame *f, int rc) {
  if (rc < 0) fail_msg("%s", f->d.msg);
}

static void frame_init(frame *f, uint32_t width, uint32_t height) {
  memset(f, 0, sizeof *f);
  gs_gpu_config cfg = {0};
  cfg.mem_limit = 16u << 20;
  f->g = gs_gpu_new(&cfg);
  assert_non_null(f->g);
  f->m = gs_gpu_mem(f->g);
  f->width = width, f->height = height;
  f->tx = (width + 63) / 64, f->ty = (height + 63) / 64;
  f->fb = alloc(f, width * height * 4, 16);
  f->tile_alloc = alloc(f, 256u << 10, 256);
  f->tsda = alloc(f, 48 * f->tx * f->ty, 16);
  f->bin = alloc(f, 8192, 16);
  f->render = alloc(f, 8192, 16);
  f->unif = alloc(f, 64, 16);
}

static void frame_free(frame *f) { gs_gpu_free(f->g); }

/* A frame of 4x multisample and/or 64-bit tiles: the grid of those tile
 * sizes (32x32, 64x32, 32x16), a frame buffer of 8 bytes per pixel with
 * 64-bit colour. MS frames rasterise with 4x oversampling and resolve with
 * decimate 4x unless the test says otherwise. */
static void frame_init_mode(frame *f, uint32_t width, uint32_t height, unsigned ms, unsigned c64) {
  frame_init(f, width, height);
  f->ms = ms, f->c64 = c64;
  f->oversample = ms, f->decimate = ms;
  uint32_t tw = ms ? 32 : 64, th = tw / (c64 ? 2 : 1);
  f->tx = (width + tw - 1) / tw, f->ty = (height + th - 1) / th;
  f->tsda = alloc(f, 48 * f->tx * f->ty, 16);
  if (c64) f->fb = alloc(f, width * height * 8, 16);
}

/* Starts the binning list: 112, 6, the clip window and configuration
 * bits (both faces, depth function `func`, Z writes `zw`, early Z `ez`). */
static void bin_begin(frame *f, unsigned func, unsigned zw, unsigned ez) {
  gs_cl_writer_init(&f->w, f->m, f->bin, 8192);
  gs_cl_tile_binning_mode_configuration c = {.tile_alloc = f->tile_alloc, .tile_alloc_size = 256u << 10,
                                             .tsda = f->tsda, .width_tiles = f->tx, .height_tiles = f->ty,
                                             .ms4x = f->ms, .color64 = f->c64, .auto_init_tsda = 1};
  check(f, gs_cl_emit_tile_binning_mode_configuration(&f->w, &c, &f->d));
  check(f, gs_cl_put_id(&f->w, GS_CL_START_TILE_BINNING, NULL, &f->d));
  gs_cl_clip_window cw = {0, 0, f->width, f->height};
  check(f, gs_cl_emit_clip_window(&f->w, &cw, &f->d));
  gs_cl_configuration_bits cb = {.enable_forward_facing = 1, .enable_reverse_facing = 1, .depth_func = func,
                                 .z_updates = zw, .early_z = ez, .early_z_updates = ez, .oversample = f->oversample};
  check(f, gs_cl_emit_configuration_bits(&f->w, &cb, &f->d));
}

static void bin_finish(frame *f) {
  check(f, gs_cl_put_id(&f->w, GS_CL_INCREMENT_SEMAPHORE, NULL, &f->d));
  check(f, gs_cl_put_id(&f->w, GS_CL_FLUSH, NULL, &f->d));
  f->bin_end = f->w.cur;
}

static void bin_arrays(frame *f, unsigned mode, uint32_t n, uint32_t first) {
  gs_cl_vertex_array_primitives va = {mode, n, first};
  check(f, gs_cl_emit_vertex_array_primitives(&f->w, &va, &f->d));
}

/* An NV shader record (reference §4.6) for vertices of `nvary` varyings. */
static gs_addr nv_record(frame *f, gs_addr fs, gs_addr fs_unif, gs_addr verts, unsigned nvary) {
  gs_cl_nv_shader_record r = {.fs_single_threaded = 1, .vertex_stride = (uint32_t)(12 + 4 * nvary),
                              .fs_varyings = nvary, .fs_code = fs, .fs_uniforms = fs_unif, .vertex_data = verts};
  uint8_t b[16];
  check(f, gs_cl_pack_nv_shader_record(b, sizeof b, &r, &f->d));
  return put_bytes(f, b, sizeof b, 16);
}

static void bin_nv_shader(frame *f, gs_addr rec) {
  gs_cl_nv_shader_state s = {rec};
  check(f, gs_cl_emit_nv_shader_state(&f->w, &s, &f->d));
}

/* Pre-shaded NV vertices: (x, y) in pixels (multiples of 1/16), Zs, 1/Wc = 1. */
typedef struct nv_vertex {
  int16_t xs, ys;
  float zs, inv_wc;
} nv_vertex;

static gs_addr nv_vertices(frame *f, const double (*xy)[2], unsigned n, float z) {
  nv_vertex v[16];
  for (unsigned i = 0; i < n; i++)
    v[i] = (nv_vertex){(int16_t)lround(xy[i][0] * 16), (int16_t)lround(xy[i][1] * 16), z, 1.0f};
  return put_bytes(f, v, (uint32_t)(n * sizeof v[0]), 16);
}

/* The rendering list: clear values, 113, then per tile 115, (the first
 * tile waits on the semaphore), Branch-to-sub-list into the tile's list and
 * a store (the last with end of frame). */
/* The tile's stores: what the frame's dump settings ask for, else 24 (25
 * on the last tile). */
static void default_stores(frame *f, gs_cl_writer *w, uint32_t x, uint32_t y, const void *ctx) {
  (void)ctx;
  int last = x + 1 == f->tx && y + 1 == f->ty;
  gs_addr dump = f->dump + (y * f->tx + x) * 2 * TLB_FULL_BYTES;
  if (f->dump && f->dump_general) {
    gs_cl_store_tile_buffer_general sg = {.buffer = GS_CL_BUFFER_FULL, .address = dump, .last_tile = (uint32_t)last};
    check(f, gs_cl_emit_store_tile_buffer_general(w, &sg, &f->d));
  } else if (f->dump) {
    gs_cl_store_full_resolution_tile_buffer sf = {.address = dump, .last_tile = (uint32_t)last};
    check(f, gs_cl_emit_store_full_resolution_tile_buffer(w, &sf, &f->d));
  } else {
    check(f, gs_cl_put_id(w, last ? GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF
                                  : GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER, NULL, &f->d));
  }
}

/* The rendering list with the stores `stores` writes for each tile. */
static void render_list_with(frame *f, uint32_t clear, uint32_t clear_z,
                             void (*stores)(frame *, gs_cl_writer *, uint32_t, uint32_t, const void *),
                             const void *ctx) {
  gs_cl_writer w;
  gs_cl_writer_init(&w, f->m, f->render, 8192);
  gs_cl_clear_colors cc = {clear, f->c64 ? f->clear_hi : clear, clear_z, 0, 0};
  check(f, gs_cl_emit_clear_colors(&w, &cc, &f->d));
  gs_cl_tile_rendering_mode_configuration rc = {.address = f->fb, .width = f->width, .height = f->height,
                                                .ms4x = f->ms, .color64 = f->c64, .color_format = 1,
                                                .decimate = f->decimate};
  check(f, gs_cl_emit_tile_rendering_mode_configuration(&w, &rc, &f->d));
  for (uint32_t y = 0; y < f->ty; y++)
    for (uint32_t x = 0; x < f->tx; x++) {
      gs_cl_tile_coordinates tc = {x, y};
      check(f, gs_cl_emit_tile_coordinates(&w, &tc, &f->d));
      if (x == 0 && y == 0) check(f, gs_cl_put_id(&w, GS_CL_WAIT_ON_SEMAPHORE, NULL, &f->d));
      gs_cl_branch_to_sub_list br = {f->tile_alloc + (y * f->tx + x) * 32};
      check(f, gs_cl_emit_branch_to_sub_list(&w, &br, &f->d));
      stores(f, &w, x, y, ctx);
    }
  f->render_end = w.cur;
}

static void render_list(frame *f, uint32_t clear, uint32_t clear_z) {
  render_list_with(f, clear, clear_z, default_stores, NULL);
}

static int run(frame *f, unsigned threads) {
  gs_v3d_options o = {0};
  o.threads = threads;
  return gs_v3d_run(f->g, f->bin, f->bin_end, f->render, f->render_end, &o);
}

static void run_ok(frame *f, unsigned threads) {
  if (run(f, threads) < 0) fail_msg("%s", gs_gpu_error(f->g));
}

static uint32_t pixel(frame *f, uint32_t x, uint32_t y) {
  uint32_t v;
  assert_int_equal(gs_mem_read(f->m, f->fb + 4 * (y * f->width + x), &v, 4, NULL), GS_OK);
  return v;
}

/* The fill rule and the 4x sample points: tests/fill_rule.h. */

/* ---- (a) NV mode ------------------------------------------------------------- */

/* Two triangles make the rectangle [10, 90) x [5, 65) over four tiles; a
 * shader that adds 1 to each pixel shows every pixel of it shaded exactly
 * once (the shared diagonal too) and nothing outside: the count is the
 * exact area, 80 x 60. Drawn with an 8-bit index list (32). */
static void test_nv_rectangle_exact_area(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  static const double xy[4][2] = {{10, 5}, {90, 5}, {90, 65}, {10, 65}};
  gs_addr verts = nv_vertices(&f, xy, 4, 0.5f);
  gs_addr rec = nv_record(&f, put_code(&f, fs_count), f.unif, verts, 0);
  static const uint8_t idx[6] = {0, 1, 2, 0, 2, 3};
  gs_addr ia = put_bytes(&f, idx, sizeof idx, 4);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  gs_cl_indexed_primitive_list ip = {.mode = 4, .index_type = 0, .length = 6, .address = ia, .max_index = 3};
  check(&f, gs_cl_emit_indexed_primitive_list(&f.w, &ip, &f.d));
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  gs_v3d_stats st;
  if (gs_v3d_run_stats(f.g, f.bin, f.bin_end, f.render, f.render_end, NULL, &st) < 0)
    fail_msg("%s", gs_gpu_error(f.g));
  unsigned count = 0;
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++) {
      uint32_t want = x >= 10 && x < 90 && y >= 5 && y < 65;
      uint32_t got = pixel(&f, x, y);
      if (got != want) fail_msg("pixel (%u, %u) shaded %u times, want %u", x, y, got, want);
      count += got;
    }
  assert_int_equal(count, 80 * 60);
  assert_int_equal(st.fragments, 80 * 60);
  assert_int_equal(st.tiles, 4);
  assert_int_equal(st.prims_binned, 2);
  assert_int_equal(st.tile_refs, 7); /* (10,5)-(90,5)-(90,65) misses tile (0, 1) */
  assert_int_equal(st.cs_vertices, 4);
  frame_free(&f);
}

/* Triangles with corners off the pixel grid, one clockwise: the covered
 * pixels are exactly those the fill rule selects, their count is close to
 * the area, and each has the shader's colour; the rest keep the clear
 * colour. */
static void test_nv_triangles_fill_rule(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 130, 70);
  static const double xy[6][2] = {{3.25, 2.5}, {120.5, 17.0625}, {40.0, 66.5},    /* counter-clockwise */
                                  {70.5, 60.5}, {126.0, 68.0}, {100.0, 30.5}};  /* clockwise */
  gs_addr verts = nv_vertices(&f, xy, 6, 0.5f);
  gs_addr rec = nv_record(&f, put_code(&f, fs_constant), f.unif, verts, 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 6, 0);
  bin_finish(&f);
  render_list(&f, 0x11223344, 0xFFFFFF);
  run_ok(&f, 2);
  for (int t = 0; t < 2; t++) {
    int32_t x[3], y[3];
    double area = 0;
    for (int k = 0; k < 3; k++) x[k] = (int32_t)lround(xy[3 * t + k][0] * 16), y[k] = (int32_t)lround(xy[3 * t + k][1] * 16);
    area = fabs((double)(x[1] - x[0]) * (y[2] - y[0]) - (double)(x[2] - x[0]) * (y[1] - y[0])) / 512.0;
    unsigned count = 0;
    for (uint32_t py = 0; py < f.height; py++)
      for (uint32_t px = 0; px < f.width; px++) {
        if (!fill_rule_covers(x, y, (int)px, (int)py)) continue;
        count++;
        if (pixel(&f, px, py) != 0xff336699u) fail_msg("triangle %d: pixel (%u, %u) = 0x%08x", t, px, py, pixel(&f, px, py));
      }
    /* A triangle's pixel count differs from its area by less than its perimeter. */
    assert_true(fabs(count - area) < 300.0);
  }
  for (uint32_t py = 0; py < f.height; py++)
    for (uint32_t px = 0; px < f.width; px++) {
      int inside = 0;
      for (int t = 0; t < 2; t++) {
        int32_t x[3], y[3];
        for (int k = 0; k < 3; k++) x[k] = (int32_t)lround(xy[3 * t + k][0] * 16), y[k] = (int32_t)lround(xy[3 * t + k][1] * 16);
        inside |= fill_rule_covers(x, y, (int)px, (int)py);
      }
      if (!inside && pixel(&f, px, py) != 0x11223344u) fail_msg("pixel (%u, %u) outside was drawn", px, py);
    }
  frame_free(&f);
}

/* Loads src as a driver program with the SPH built from decl in front of
 * its code. */
static gs_addr put_code_decl(frame *f, const char *src, const gs_sph_decl *decl) {
  uint64_t *w;
  size_t n;
  if (gs_qpu_asm(src, "shader.s", 0, &w, &n, &f->d) < 0) fail_msg("%s", f->d.msg);
  gs_sph sph;
  gs_drv_program p;
  check(f, gs_sph_build(decl, &sph, &f->d));
  check(f, gs_drv_program_load(f->m, w, n, &sph, &p, &f->d));
  free(w);
  return p.code;
}

/* A fragment program whose SPH maps the one input component at attr with
 * PixelImap mode. */
static gs_addr put_code_sph_at(frame *f, const char *src, unsigned attr, gs_pixel_imap mode) {
  gs_sph_io in = {attr & ~15u, 1u << (attr >> 2 & 3), mode};
  gs_sph_decl decl = {.stage = GS_SPH_PIXEL, .inputs = &in, .n_inputs = 1, .render_targets = 0xF};
  return put_code_decl(f, src, &decl);
}

static gs_addr put_code_sph(frame *f, const char *src, gs_pixel_imap mode) {
  return put_code_sph_at(f, src, GS_SPH_ATTR_GENERIC(0), mode);
}

/* ---- (b) GL mode ---------------------------------------------------------------- */

/* A GL shader record with one attribute array of 4 floats per vertex,
 * loaded for both the coordinate and the vertex shader. */
static gs_addr gl_record(frame *f, gs_addr fs, gs_addr fs_unif, gs_addr cs, gs_addr cs_unif, gs_addr vs, gs_addr attrs,
                         unsigned nvary) {
  uint8_t b[44];
  gs_cl_gl_shader_record r = {.fs_single_threaded = 1, .fs_varyings = nvary, .fs_code = fs, .fs_uniforms = fs_unif,
                              .vs_attr_select = 1, .vs_attr_size = 16, .vs_code = vs, .vs_uniforms = f->unif,
                              .cs_attr_select = 1, .cs_attr_size = 16, .cs_code = cs, .cs_uniforms = cs_unif};
  gs_cl_gl_attribute_record a = {.base = attrs, .bytes_minus_1 = 15, .stride = 16};
  check(f, gs_cl_pack_gl_shader_record(b, 36, &r, &f->d));
  check(f, gs_cl_pack_gl_attribute_record(b + 36, 8, &a, &f->d));
  return put_bytes(f, b, sizeof b, 16);
}

static void bin_gl_shader(frame *f, gs_addr rec) {
  gs_cl_gl_shader_state s = {.record = rec, .extended = 0, .attr_arrays = 1};
  check(f, gs_cl_emit_gl_shader_state(&f->w, &s, &f->d));
}

/* One triangle, its varying v = 0, 1, 0.25 at the corners: chosen pixels
 * hold the barycentric combination at their centres (W = 1, so
 * perspective-correct is linear). */
/* The triangle of the GL-mode varying tests: x, y, z and the varying v of
 * each corner. */
static const float gl_tri[3][4] = {{8.25f, 4.5f, 0.5f, 0.0f}, {92.0f, 10.0625f, 0.5f, 1.0f},
                                   {30.5f, 66.0f, 0.5f, 0.25f}};

/* The screen-linear interpolation of v at (px, py) in gl_tri; *inside
 * says whether the point lies inside it. */
static double gl_tri_v(double px, double py, int *inside) {
  const float(*a)[4] = gl_tri;
  double x0 = a[0][0], y0 = a[0][1], x1 = a[1][0], y1 = a[1][1], x2 = a[2][0], y2 = a[2][1];
  double den = (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0);
  double l1 = ((px - x0) * (y2 - y0) - (x2 - x0) * (py - y0)) / den;
  double l2 = ((x1 - x0) * (py - y0) - (px - x0) * (y1 - y0)) / den;
  *inside = l1 > 0 && l2 > 0 && l1 + l2 < 1;
  return (1 - l1 - l2) * a[0][3] + l1 * a[1][3] + l2 * a[2][3];
}

/* Bins and renders one triangle of GL record rec and runs the frame. */
static void gl_draw_triangle(frame *f, gs_addr rec, unsigned threads) {
  bin_begin(f, 7, 0, 0);
  bin_gl_shader(f, rec);
  bin_arrays(f, 4, 3, 0);
  bin_finish(f);
  render_list(f, 0, 0xFFFFFF);
  run_ok(f, threads);
}

static void test_gl_varying_barycentric(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  gs_addr attrs = put_bytes(&f, gl_tri, sizeof gl_tri, 16);
  gs_addr rec = gl_record(&f, put_code(&f, fs_varying), f.unif, put_code(&f, cs_pixels), f.unif,
                          put_code(&f, vs_pixels), attrs, 1);
  gl_draw_triangle(&f, rec, 4);
  static const int chosen[][2] = {{20, 10}, {50, 20}, {31, 50}, {70, 15}, {40, 40}, {64, 12}, {25, 30}, {60, 30}};
  for (size_t i = 0; i < sizeof chosen / sizeof chosen[0]; i++) {
    int inside;
    double want = gl_tri_v(chosen[i][0] + 0.5, chosen[i][1] + 0.5, &inside);
    assert_true(inside);
    uint32_t bits = pixel(&f, (uint32_t)chosen[i][0], (uint32_t)chosen[i][1]);
    float got;
    memcpy(&got, &bits, 4);
    if (fabs(got - want) > 1e-6) fail_msg("pixel (%d, %d): %.9g, want %.9g", chosen[i][0], chosen[i][1], got, want);
  }
  frame_free(&f);
}

/* The vertex shader of the linkage tests: two varying rows, 0.5 and the
 * attribute's v. */
static const char vs_two_varyings[] =
    VS_PIXELS_POSITION
    "    mov vpm, 0.5             # row 3: varying row 0\n"
    "    mov vpm, r3              # row 4: varying row 1\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* vs_two_varyings, with (vs_header) an SPH that maps outputs generic 0.x
 * and 1.x (rows 0 and 1), or without a header (the rows are positional). */
static gs_addr put_vs_two_varyings(frame *f, int vs_header) {
  if (!vs_header) return put_code(f, vs_two_varyings);
  gs_sph_io in = {GS_SPH_ATTR_GENERIC(0), 0xF, GS_PIXEL_IMAP_UNUSED};
  gs_sph_io out[3] = {{GS_SPH_ATTR_POSITION, 0xF, GS_PIXEL_IMAP_UNUSED},
                      {GS_SPH_ATTR_GENERIC(0), 0x1, GS_PIXEL_IMAP_UNUSED},
                      {GS_SPH_ATTR_GENERIC(1), 0x1, GS_PIXEL_IMAP_UNUSED}};
  gs_sph_decl decl = {.stage = GS_SPH_VERTEX, .inputs = &in, .n_inputs = 1, .outputs = out, .n_outputs = 3};
  return put_code_decl(f, vs_two_varyings, &decl);
}

/* One GL-mode triangle whose vertex program writes varying rows 0.5 and v
 * (v = 0, 1, 0.25 at the corners), with the fragment program reading its one
 * input component at fs_attr. vs_header: the vertex program's SPH maps
 * outputs generic 0.x and 1.x (rows 0 and 1); without it the rows are
 * positional. Returns the value at pixel (50, 20) and checks it is want
 * (want < 0: the barycentric v there). */
static void linkage_case(int vs_header, unsigned fs_attr, double want) {
  frame f;
  frame_init(&f, 100, 70);
  gs_addr attrs = put_bytes(&f, gl_tri, sizeof gl_tri, 16);
  gs_addr vs = put_vs_two_varyings(&f, vs_header);
  gs_addr rec = gl_record(&f, put_code_sph_at(&f, fs_varying, fs_attr, GS_PIXEL_IMAP_PERSPECTIVE), f.unif,
                          put_code(&f, cs_pixels), f.unif, vs, attrs, 2);
  gl_draw_triangle(&f, rec, 2);
  int inside;
  if (want < 0) want = gl_tri_v(50.5, 20.5, &inside);
  uint32_t bits = pixel(&f, 50, 20);
  float got;
  memcpy(&got, &bits, 4);
  if (fabs(got - want) > 1e-6)
    fail_msg("vs header %d, fs input 0x%03x: %.9g, want %.9g", vs_header, fs_attr, got, want);
  frame_free(&f);
}

/* The SPH is the linkage: the fragment program's input component is the
 * vertex program's row for it (the rank among the components its OMAP
 * maps), or its default when the vertex program does not write it (0; 1.0
 * for a fourth component); programs without headers link by position. */
static void test_sph_linkage(void **s) {
  (void)s;
  linkage_case(1, GS_SPH_ATTR_GENERIC(1), -1.0);      /* generic 1.x: row 1, v */
  linkage_case(1, GS_SPH_ATTR_GENERIC(0), 0.5);       /* generic 0.x: row 0 */
  linkage_case(1, GS_SPH_ATTR_GENERIC(2), 0.0);       /* not written: 0 */
  linkage_case(1, GS_SPH_ATTR_GENERIC(1) + 12, 1.0);  /* 1.w not written: 1.0 */
  linkage_case(0, GS_SPH_ATTR_GENERIC(1), 0.5);       /* no vertex header: the first row */
}

/* Each draw's record has its own linkage, though the renderer's workers
 * keep the last one they worked out: gl_tri drawn twice in one frame (the
 * depth test off, so the second draw's value shows) by two GL records, one
 * whose fragment program reads generic 1.x (v) and one whose fragment
 * program reads generic 0.x (0.5), has no header (row 0: 0.5), or reads
 * generic 1.x of a vertex program without a header (row 0: 0.5), in both
 * orders, on 1 and 2 threads; the pixels chosen lie in the three tiles
 * the triangle touches. */
static void test_linkage_per_record(void **s) {
  (void)s;
  static const int order[][2] = {{0, 1}, {1, 0}, {0, 2}, {2, 0}, {0, 3}, {3, 0}};
  static const int chosen[][2] = {{20, 10}, {50, 20}, {70, 15}, {31, 50}, {40, 40}, {60, 30}, {30, 64}};
  for (unsigned threads = 1; threads <= 2; threads++)
    for (size_t c = 0; c < sizeof order / sizeof order[0]; c++) {
      frame f;
      frame_init(&f, 100, 70);
      gs_addr attrs = put_bytes(&f, gl_tri, sizeof gl_tri, 16), cs = put_code(&f, cs_pixels);
      gs_addr fs1 = put_code_sph_at(&f, fs_varying, GS_SPH_ATTR_GENERIC(1), GS_PIXEL_IMAP_PERSPECTIVE);
      gs_addr vs = put_vs_two_varyings(&f, 1);
      const gs_addr fs[4] = {fs1, put_code_sph_at(&f, fs_varying, GS_SPH_ATTR_GENERIC(0), GS_PIXEL_IMAP_PERSPECTIVE),
                             put_code(&f, fs_varying), fs1};
      const gs_addr vss[4] = {vs, vs, vs, put_vs_two_varyings(&f, 0)};
      bin_begin(&f, 7, 0, 0);
      for (int k = 0; k < 2; k++) {
        bin_gl_shader(&f, gl_record(&f, fs[order[c][k]], f.unif, cs, f.unif, vss[order[c][k]], attrs, 2));
        bin_arrays(&f, 4, 3, 0);
      }
      bin_finish(&f);
      render_list(&f, 0, 0xFFFFFF);
      run_ok(&f, threads);
      for (size_t i = 0; i < sizeof chosen / sizeof chosen[0]; i++) {
        int inside;
        double v = gl_tri_v(chosen[i][0] + 0.5, chosen[i][1] + 0.5, &inside), want = order[c][1] == 0 ? v : 0.5;
        assert_true(inside);
        uint32_t bits = pixel(&f, (uint32_t)chosen[i][0], (uint32_t)chosen[i][1]);
        float got;
        memcpy(&got, &bits, 4);
        if (fabs(got - want) > 1e-6)
          fail_msg("%u threads, programs %d then %d: pixel (%d, %d) = %.9g, want %.9g", threads, order[c][0],
                   order[c][1], chosen[i][0], chosen[i][1], got, want);
      }
      frame_free(&f);
    }
}

/* ---- (c) depth ----------------------------------------------------------------- */

/* Two overlapping triangles at Z 0.25 (red) and 0.75 (blue), in both draw
 * orders, with the depth test "less" and Z writes, with and without early
 * Z: where they overlap the nearer one shows; elsewhere each shows its own
 * colour. */
static void depth_case(int near_first, int early_z) {
  frame f;
  frame_init(&f, 100, 70);
  static const double a[3][2] = {{5, 5}, {95, 5}, {5, 65}}, b[3][2] = {{20, 20}, {95, 20}, {95, 65}};
  gs_addr fs = put_code(&f, fs_depth);
  static const uint32_t red = 0xff0000ffu, blue = 0xffff0000u;
  gs_addr u_red = put_bytes(&f, &red, 4, 4), u_blue = put_bytes(&f, &blue, 4, 4);
  gs_addr rec_near = nv_record(&f, fs, u_red, nv_vertices(&f, a, 3, 0.25f), 0);
  gs_addr rec_far = nv_record(&f, fs, u_blue, nv_vertices(&f, b, 3, 0.75f), 0);
  bin_begin(&f, 1 /* lt */, 1, (unsigned)early_z);
  bin_nv_shader(&f, near_first ? rec_near : rec_far);
  bin_arrays(&f, 4, 3, 0);
  bin_nv_shader(&f, near_first ? rec_far : rec_near);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  run_ok(&f, 3);
  int32_t ax[3], ay[3], bx[3], by[3];
  for (int k = 0; k < 3; k++) {
    ax[k] = (int32_t)(a[k][0] * 16), ay[k] = (int32_t)(a[k][1] * 16);
    bx[k] = (int32_t)(b[k][0] * 16), by[k] = (int32_t)(b[k][1] * 16);
  }
  unsigned overlap = 0;
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++) {
      int in_a = fill_rule_covers(ax, ay, (int)x, (int)y), in_b = fill_rule_covers(bx, by, (int)x, (int)y);
      uint32_t want = in_a ? red : in_b ? blue : 0;
      overlap += in_a && in_b;
      if (pixel(&f, x, y) != want)
        fail_msg("near first %d, early Z %d: pixel (%u, %u) = 0x%08x, want 0x%08x", near_first, early_z, x, y,
                 pixel(&f, x, y), want);
    }
  assert_true(overlap > 300); /* about 436 pixels */
  frame_free(&f);
}

static void test_depth_nearer_wins(void **s) {
  (void)s;
  for (int near_first = 0; near_first < 2; near_first++)
    for (int early_z = 0; early_z < 2; early_z++) depth_case(near_first, early_z);
}

/* ---- (c2) the SPH's gates ------------------------------------------------------ */

/* A fragment program that writes a far Z (0xFFFFFF), then the draw's
 * colour, and optionally clears its sample mask first. */
static const char fs_far_z[] =
    "    ldi r0, 0xffffff\n"
    "    mov tlb_z, r0            # a depth output: Z 1.0\n"
    "    mov r1, unif\n"
    "    mov tlb_colour_all, r1\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";
static const char fs_no_samples[] =
    "    mov ms_flags, 0          # the sample mask: no sample\n"
    "    mov r1, unif\n"
    "    mov tlb_colour_all, r1\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* A fragment program that reads its colour from memory with a TMU direct
 * read (only S written: no texture config), the address in its uniform. */
static const char fs_tmu_direct[] =
    "    mov r0, unif             # the colour's address\n"
    "    mov tmu0_s, r0           # a direct read of general memory\n"
    "    nop ; nop ; ldtmu0\n"
    "    mov tlb_colour_all, r4\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* One triangle at Z 0.25, drawn by fragment program src carrying an SPH
 * with the given flags and render targets (header = 0: raw code). Its
 * uniform is red (0xff0000ff), or with `load` the address of a word holding
 * green (0xff00ff00) for fs_tmu_direct. With `depth` the Z buffer is cleared
 * to 0.5 and the test is "less" with Z writes; otherwise it always passes.
 * Returns the pixel at (20, 20) (inside) and the run's stats. */
static uint32_t gate_run(const char *src, int header, unsigned flags, uint32_t targets, int load, int depth,
                         gs_v3d_stats *st) {
  frame f;
  frame_init(&f, 100, 70);
  static const double a[3][2] = {{5, 5}, {95, 5}, {5, 65}};
  gs_addr fs;
  if (header) {
    gs_sph_decl decl = {.stage = GS_SPH_PIXEL, .flags = flags, .render_targets = targets};
    fs = put_code_decl(&f, src, &decl);
  } else {
    fs = put_code(&f, src);
  }
  static const uint32_t red = 0xff0000ffu, green = 0xff00ff00u;
  gs_addr colour = put_bytes(&f, &green, 4, 16);
  gs_addr unif = load ? put_bytes(&f, &colour, 4, 4) : put_bytes(&f, &red, 4, 4);
  gs_addr rec = nv_record(&f, fs, unif, nv_vertices(&f, a, 3, 0.25f), 0);
  bin_begin(&f, depth ? 1 /* lt */ : 7, depth, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, depth ? 0x800000 : 0xFFFFFF);
  gs_v3d_options o = {0};
  o.threads = 2;
  if (gs_v3d_run_stats(f.g, f.bin, f.bin_end, f.render, f.render_end, &o, st) < 0) fail_msg("%s", gs_gpu_error(f.g));
  uint32_t px = pixel(&f, 20, 20);
  frame_free(&f);
  return px;
}

static uint32_t gate_case(const char *src, int header, unsigned flags, uint32_t targets, gs_v3d_stats *st) {
  return gate_run(src, header, flags, targets, 0, 1, st);
}

static uint32_t gate_load_case(int header, unsigned flags, gs_v3d_stats *st) {
  return gate_run(fs_tmu_direct, header, flags, 0xF, 1, 0, st);
}

/* The flags of a fragment program's SPH gate what it may do (NVIDIA's SPH
 * description): a depth output without OmapDepth is replaced by the
 * rasterised Z, a sample mask without OmapSampleMask is ignored, colour to
 * a target OmapTarget does not map is dropped, a load without
 * DoesLoadOrStore reads 0; each such case is counted as
 * an exception with a message naming the shader and the pc. Raw code (no
 * header) may do everything, as on the hardware. */
static void test_sph_gates(void **s) {
  (void)s;
  gs_v3d_stats st;
  /* Z 1.0 written: fails "less" against 0.5 — unless OmapDepth is 0 */
  assert_int_equal(gate_case(fs_far_z, 0, 0, 0, &st), 0);
  assert_int_equal(st.exceptions, 0);
  assert_int_equal(gate_case(fs_far_z, 1, GS_SPH_OMAP_DEPTH, 0xF, &st), 0);
  assert_int_equal(st.exceptions, 0);
  assert_int_equal(gate_case(fs_far_z, 1, 0, 0xF, &st), 0xff0000ffu); /* the rasterised Z 0.25 passes */
  assert_true(st.exceptions > 0);
  if (!strstr(st.exception, "fragment shader at 0x") || !strstr(st.exception, "OmapDepth 0"))
    fail_msg("exception message: %s", st.exception);
  /* no component of target 0: the colour write is dropped */
  assert_int_equal(gate_case(fs_far_z, 1, GS_SPH_OMAP_DEPTH, 0, &st), 0);
  assert_int_equal(gate_case(fs_depth, 1, 0, 0, &st), 0);
  assert_true(st.exceptions > 0 && strstr(st.exception, "OmapTarget[0]"));
  assert_int_equal(gate_case(fs_depth, 1, 0, 0xF, &st), 0xff0000ffu);
  assert_int_equal(st.exceptions, 0); /* fs_depth's Z is the rasterised one */
  /* a sample mask of no sample: nothing written — unless OmapSampleMask is 0 */
  assert_int_equal(gate_case(fs_no_samples, 0, 0, 0, &st), 0);
  assert_int_equal(gate_case(fs_no_samples, 1, GS_SPH_OMAP_SAMPLE_MASK, 0xF, &st), 0);
  assert_int_equal(st.exceptions, 0);
  assert_int_equal(gate_case(fs_no_samples, 1, 0, 0xF, &st), 0xff0000ffu);
  assert_true(st.exceptions > 0 && strstr(st.exception, "OmapSampleMask 0"));
  /* a load from memory (TMU direct read): reads 0 without DoesLoadOrStore */
  assert_int_equal(gate_load_case(0, 0, &st), 0xff00ff00u);
  assert_int_equal(gate_load_case(1, GS_SPH_DOES_LOAD_OR_STORE, &st), 0xff00ff00u);
  assert_int_equal(st.exceptions, 0);
  assert_int_equal(gate_load_case(1, 0, &st), 0);
  assert_true(st.exceptions > 0 && strstr(st.exception, "DoesLoadOrStore 0"));
}

/* ---- (c3) the contract's registry and the QPU's unit ------------------------------ */

/* The registry finds the QPU by name and by header id (0, raw code, is the
 * hardware's own set); its assembler gives the little-endian bytes of
 * gs_qpu_asm's words with a line per instruction, and its disassembler
 * reads them back; a unit prepares code in memory and refuses an address
 * outside it with the fetch error. */
static void test_isa_registry_and_unit(void **s) {
  (void)s;
  const gs_isa *qpu = gs_isa_by_name("qpu");
  assert_non_null(qpu);
  assert_ptr_equal(gs_isa_by_id(GS_ISA_QPU), qpu);
  assert_ptr_equal(gs_isa_by_id(GS_ISA_NONE), qpu);
  assert_null(gs_isa_by_id(9));
  assert_null(gs_isa_by_name("sass9"));
  gs_isa_binary bin;
  gs_diag d;
  assert_int_equal(qpu->assemble("  nop\n\n  thrend\n  nop\n  nop\n", "t.s", 0, &bin, &d), GS_OK);
  uint64_t *w;
  size_t n;
  assert_int_equal(gs_qpu_asm("  nop\n\n  thrend\n  nop\n  nop\n", "t.s", 0, &w, &n, &d), GS_OK);
  assert_int_equal(bin.size, 8 * n);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 8; k++) assert_int_equal(bin.bytes[8 * i + (size_t)k], (uint8_t)(w[i] >> (8 * k)));
  assert_int_equal(gs_isa_binary_line(&bin, 0), 1);
  assert_int_equal(gs_isa_binary_line(&bin, 8), 3); /* line 2 is empty */
  char *text;
  assert_int_equal(qpu->disassemble(bin.bytes, bin.size, 0, &text, &d), GS_OK);
  assert_non_null(strstr(text, "thrend"));
  free(text);
  assert_int_equal(qpu->disassemble(bin.bytes, 12, 0, &text, &d), GS_EINVAL);
  frame f;
  frame_init(&f, 64, 64);
  gs_addr code = put_bytes(&f, bin.bytes, (uint32_t)bin.size, 8);
  gs_vpm vpm;
  gs_diag ud;
  gs_isa_unit *u = qpu->unit_new(f.g, 0, &vpm, &ud);
  assert_non_null(u);
  assert_int_equal(qpu->prepare(f.g, u, code), GS_OK);
  assert_int_equal(qpu->prepare(f.g, u, 0x40), GS_EFAULT);
  if (!strstr(ud.msg, "0x00000040")) fail_msg("%s", ud.msg);
  qpu->unit_free(u);
  frame_free(&f);
  gs_isa_binary_free(&bin);
  free(w);
}

/* gs_isa.fragment_reads of the QPU: the inputs each program reads, by
 * hand from its read addresses (ra15 W, rb15 Z, x_coord/y_coord x and y,
 * vary the varyings), and everything for a program with a branch. */
static void test_fragment_reads(void **s) {
  (void)s;
  const gs_isa *qpu = gs_isa_by_name("qpu");
  static const struct {
    const char *src;
    uint32_t reads;
  } cases[] = {
      {"  mov tlb_z, rb15\n  ldi r0, 0xff336699\n  mov tlb_colour_all, r0\n  thrend\n  nop\n  nop\n", GS_FRAG_READS_Z},
      {"  fmul r0, vary, ra15\n  fadd r0, r0, r5\n  mov tlb_colour_all, r0\n  thrend\n  nop\n  nop\n",
       GS_FRAG_READS_W | GS_FRAG_READS_VARYINGS},
      {"  mov r0, x_coord\n  mov r1, y_coord\n  mov tlb_colour_all, r0\n  thrend\n  nop\n  nop\n", GS_FRAG_READS_XY},
      {"  ldi r0, 1\n  mov tlb_colour_all, r0\n  thrend\n  nop\n  nop\n", 0},
      {"  brr 8\n  nop\n  nop\n  nop\n  mov tlb_colour_all, r0\n  thrend\n  nop\n  nop\n", GS_FRAG_READS_ALL},
  };
  frame f;
  frame_init(&f, 64, 64);
  gs_vpm vpm;
  gs_diag ud, d;
  gs_isa_unit *u = qpu->unit_new(f.g, 0, &vpm, &ud);
  assert_non_null(u);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    gs_isa_binary bin;
    if (qpu->assemble(cases[i].src, "t.s", 0, &bin, &d) < 0) fail_msg("%s", d.msg);
    gs_addr code = put_bytes(&f, bin.bytes, (uint32_t)bin.size, 8);
    assert_int_equal(qpu->fragment_reads(f.g, u, code), cases[i].reads);
    assert_int_equal(qpu->fragment_reads(f.g, u, code), cases[i].reads); /* the kept answer */
    gs_isa_binary_free(&bin);
  }
  assert_int_equal(qpu->fragment_reads(f.g, u, 0x40), GS_FRAG_READS_ALL); /* no program there */
  qpu->unit_free(u);
  frame_free(&f);
}

/* ---- (d) threads ------------------------------------------------------------------ */

/* 60 random triangles with random varyings over 5 x 4 tiles (GL mode):
 * the frame's bytes are the same for 1, 2 and 4 threads. */
static void render_random(uint32_t *out, uint32_t n, unsigned threads, gs_v3d_stats *st) {
  frame f;
  frame_init(&f, 300, 200);
  float attr[180][4];
  uint32_t seed = 12345;
  for (int i = 0; i < 180; i++) {
    for (int k = 0; k < 4; k++) {
      seed = seed * 1664525u + 1013904223u;
      double u = (seed >> 8) / 16777216.0;
      attr[i][k] = k == 0 ? (float)floor(u * 300 * 16) / 16 : k == 1 ? (float)floor(u * 200 * 16) / 16
                           : k == 2 ? 0.5f : (float)u;
    }
  }
  gs_addr attrs = put_bytes(&f, attr, sizeof attr, 16);
  gs_addr rec = gl_record(&f, put_code(&f, fs_varying), f.unif, put_code(&f, cs_pixels), f.unif,
                          put_code(&f, vs_pixels), attrs, 1);
  bin_begin(&f, 7, 0, 0);
  bin_gl_shader(&f, rec);
  bin_arrays(&f, 4, 180, 0);
  bin_finish(&f);
  render_list(&f, 0x55555555u, 0xFFFFFF);
  gs_v3d_options o = {0};
  o.threads = threads;
  if (gs_v3d_run_stats(f.g, f.bin, f.bin_end, f.render, f.render_end, &o, st) < 0) fail_msg("%s", gs_gpu_error(f.g));
  assert_int_equal(gs_mem_read(f.m, f.fb, out, n * 4, NULL), GS_OK);
  frame_free(&f);
}

static void test_threads_identical(void **s) {
  (void)s;
  uint32_t n = 300 * 200;
  uint32_t *one = malloc(n * 4), *other = malloc(n * 4);
  gs_v3d_stats s1, sk;
  render_random(one, n, 1, &s1);
  unsigned differing = 0;
  for (uint32_t i = 0; i < n; i++) differing += one[i] != 0x55555555u;
  assert_true(differing > n / 4);
  /* more threads, fewer, and more again: the kept threads (core/pool.c)
   * serve each frame */
  static const unsigned counts[] = {2, 3, 7, 2, 4};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
    unsigned threads = counts[k];
    render_random(other, n, threads, &sk);
    if (memcmp(one, other, n * 4) != 0) fail_msg("%u threads give another frame", threads);
    assert_int_equal(s1.fragments, sk.fragments);
    assert_int_equal(s1.fs_batches, sk.fs_batches);
    assert_int_equal(s1.vs_vertices, sk.vs_vertices);
    assert_int_equal(s1.prims_drawn, sk.prims_drawn);
    assert_int_equal(s1.prims_binned, sk.prims_binned);
    assert_int_equal(s1.tile_refs, sk.tile_refs);
    assert_int_equal(s1.tiles, sk.tiles);
    assert_int_equal(s1.packets[0], sk.packets[0]);
    assert_int_equal(s1.packets[1], sk.packets[1]);
  }
  free(one);
  free(other);
}

/* ---- (e) errors ----------------------------------------------------------------------- */

/* Runs f and checks the result code and that the message holds each
 * fragment of `want` (separated by '|'). */
static void expect_error(frame *f, unsigned threads, int code, const char *want) {
  int rc = run(f, threads);
  const char *msg = gs_gpu_error(f->g);
  if (getenv("SHOWMSG")) printf("MSG: %s\n", msg); /* SHOWMSG=1 ./test_cle lists the messages */
  if (rc != code) fail_msg("result %d (%s), want %d", rc, msg, code);
  char buf[512];
  snprintf(buf, sizeof buf, "%s", want);
  for (char *tok = strtok(buf, "|"); tok; tok = strtok(NULL, "|"))
    if (!strstr(msg, tok)) fail_msg("\"%s\" does not say \"%s\"", msg, tok);
}

static char *hex(char *buf, gs_addr a) {
  sprintf(buf, "0x%08x", a);
  return buf;
}

/* A minimal NV frame: one triangle over tile (0, 0) with shader fs. */
static void simple_frame(frame *f, const char *fs) {
  static const double xy[3][2] = {{4, 4}, {40, 4}, {4, 40}};
  gs_addr rec = nv_record(f, put_code(f, fs), f->unif, nv_vertices(f, xy, 3, 0.5f), 0);
  bin_begin(f, 7, 0, 0);
  bin_nv_shader(f, rec);
  bin_arrays(f, 4, 3, 0);
}

/* A fragment shader rewritten in memory between two runs is prepared
 * again: the second frame shows the new colour (the QPU program cache
 * compares code with memory, and its per-QPU hints die with each run). */
static void test_rewritten_shader(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 64, 64);
  static const double xy[3][2] = {{4, 4}, {40, 4}, {4, 40}};
  gs_addr fs = put_code(&f, fs_constant);
  gs_addr rec = nv_record(&f, fs, f.unif, nv_vertices(&f, xy, 3, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  run_ok(&f, 2);
  assert_int_equal(pixel(&f, 10, 10), 0xff336699u);
  uint64_t *w;
  size_t n;
  if (gs_qpu_asm("    ldi r0, 0xff00ff00\n    mov tlb_colour_all, r0\n    thrend\n    nop\n    nop ; nop ; sbdone\n",
                 "new.s", 0, &w, &n, &f.d) < 0)
    fail_msg("%s", f.d.msg);
  assert_int_equal(gs_mem_write(f.m, fs, w, (uint32_t)(8 * n), NULL), GS_OK);
  free(w);
  run_ok(&f, 2);
  assert_int_equal(pixel(&f, 10, 10), 0xff00ff00u);
  frame_free(&f);
}

/* A fragment shader that copies other code over its own with a VPM DMA
 * load and store: the primitive's first batch runs it, every later batch
 * the new code (colour 0xff00ff00), as each batch finds its program again
 * (the renderer compares the code with memory once per primitive, and
 * again after a batch's DMA store: qpu_trust_code). */
static void test_shader_rewritten_by_itself(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 64, 64);
  static const double xy[3][2] = {{4, 4}, {40, 4}, {4, 40}};
  /* 8 instructions: one 16-word VPM row */
  gs_addr other = put_code(&f, "    ldi r0, 0xff00ff00\n    mov tlb_colour_all, r0\n    thrend\n    nop\n"
                               "    nop ; nop ; sbdone\n    nop\n    nop\n    nop\n");
  gs_addr fs = put_code(&f, "    ldi vr_setup, 0x83011000  # DMA load: 1 row of 16 words to VPM row 0\n"
                            "    mov vr_addr, unif\n"
                            "    mov -, vr_wait\n"
                            "    ldi vw_setup, 0x80904000  # DMA store: VPM row 0, 16 words\n"
                            "    mov vw_addr, unif         # over this program\n"
                            "    mov -, vw_wait\n" FS_CONSTANT_BODY);
  uint32_t unif[2] = {other, fs};
  gs_addr u = put_bytes(&f, unif, sizeof unif, 4);
  gs_addr rec = nv_record(&f, fs, u, nv_vertices(&f, xy, 3, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  run_ok(&f, 1);
  unsigned first = 0, rewritten = 0;
  for (uint32_t y = 0; y < 64; y++)
    for (uint32_t x = 0; x < 64; x++) {
      first += pixel(&f, x, y) == 0xff336699u;
      rewritten += pixel(&f, x, y) == 0xff00ff00u;
    }
  if (first == 0 || first > 16 || rewritten < 100)
    fail_msg("%u pixels of the first program's colour (want 1 to 16: one batch), %u of the new code's", first,
             rewritten);
  frame_free(&f);
}

static void test_bad_binning_lists(void **s) {
  (void)s;
  frame f;
  char a[16], want[192];
  /* an unknown packet */
  frame_init(&f, 100, 70);
  simple_frame(&f, fs_constant);
  gs_addr bad = f.w.cur;
  uint8_t three = 3;
  assert_int_equal(gs_mem_write(f.m, bad, &three, 1, NULL), GS_OK);
  f.w.cur++;
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  snprintf(want, sizeof want, "binning list|%s|unknown control-list packet ID 3", hex(a, bad));
  expect_error(&f, 1, GS_EINVAL, want);
  frame_free(&f);
  /* a draw before 112 */
  frame_init(&f, 100, 70);
  gs_cl_writer_init(&f.w, f.m, f.bin, 8192);
  bin_arrays(&f, 4, 3, 0);
  f.bin_end = f.w.cur;
  f.render_end = f.render;
  snprintf(want, sizeof want, "%s|VERTEX_ARRAY_PRIMITIVES before TILE_BINNING_MODE_CONFIGURATION", hex(a, f.bin));
  expect_error(&f, 1, GS_EINVAL, want);
  frame_free(&f);
  /* no Flush */
  frame_init(&f, 100, 70);
  simple_frame(&f, fs_constant);
  f.bin_end = f.w.cur;
  f.render_end = f.render;
  expect_error(&f, 1, GS_EINVAL, "binning list|without FLUSH");
  frame_free(&f);
  /* a rendering packet in the binning list */
  frame_init(&f, 100, 70);
  simple_frame(&f, fs_constant);
  bad = f.w.cur;
  gs_cl_tile_coordinates tc = {0, 0};
  check(&f, gs_cl_emit_tile_coordinates(&f.w, &tc, &f.d));
  bin_finish(&f);
  snprintf(want, sizeof want, "%s|TILE_COORDINATES (115) is a rendering-list packet", hex(a, bad));
  f.render_end = f.render;
  expect_error(&f, 1, GS_EINVAL, want);
  frame_free(&f);
  /* the end address inside a packet */
  frame_init(&f, 100, 70);
  simple_frame(&f, fs_constant);
  bin_finish(&f);
  f.bin_end -= 3; /* ... 7, 4: the end now falls inside the draw packet before them */
  f.render_end = f.render;
  expect_error(&f, 1, GS_EINVAL, "binning list|runs past the end of the list");
  frame_free(&f);
  /* a coordinate shader that faults: its uniforms are not in memory */
  frame_init(&f, 100, 70);
  static const float attr[3][4] = {{4, 4, 0.5f, 0}, {40, 4, 0.5f, 0}, {4, 40, 0.5f, 0}};
  gs_addr rec = gl_record(&f, put_code(&f, fs_constant), f.unif, put_code(&f, cs_bad_uniform), 0x40,
                          put_code(&f, vs_pixels), put_bytes(&f, attr, sizeof attr, 16), 0);
  bin_begin(&f, 7, 0, 0);
  bin_gl_shader(&f, rec);
  gs_addr draw = f.w.cur;
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  snprintf(want, sizeof want, "%s|VERTEX_ARRAY_PRIMITIVES|coordinate shader|QPU 0 at pc|0x00000040", hex(a, draw));
  expect_error(&f, 1, GS_EFAULT, want);
  frame_free(&f);
  /* NV vertices outside memory */
  frame_init(&f, 100, 70);
  rec = nv_record(&f, put_code(&f, fs_constant), f.unif, 0x80, 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  snprintf(want, sizeof want, "binning list|NV shader record %s: vertex 0: 12 bytes at 0x00000080 (vertex data "
           "0x00000080, stride 12) are outside allocated GPU memory", hex(a, rec));
  expect_error(&f, 1, GS_EFAULT, want);
  frame_free(&f);
}

static void test_bad_rendering_lists(void **s) {
  (void)s;
  frame f;
  char a[16], want[160];
  gs_cl_writer w;
  /* a branch to unallocated memory */
  frame_init(&f, 100, 70);
  gs_cl_writer_init(&w, f.m, f.render, 64);
  gs_cl_branch br = {0x40};
  check(&f, gs_cl_emit_branch(&w, &br, &f.d));
  f.bin_end = f.bin, f.render_end = w.cur;
  expect_error(&f, 1, GS_EFAULT, "rendering list|0x00000040|not in readable memory");
  frame_free(&f);
  /* a loop */
  frame_init(&f, 100, 70);
  gs_cl_writer_init(&w, f.m, f.render, 64);
  br.address = f.render;
  check(&f, gs_cl_emit_branch(&w, &br, &f.d));
  f.bin_end = f.bin, f.render_end = w.cur;
  {
    gs_v3d_options o = {0};
    o.max_packets = 1000;
    assert_int_equal(gs_v3d_run(f.g, f.bin, f.bin_end, f.render, f.render_end, &o), GS_EINVAL);
    snprintf(want, sizeof want, "%s: more than 1000 packets", hex(a, f.render));
    if (!strstr(gs_gpu_error(f.g), want)) fail_msg("%s", gs_gpu_error(f.g));
  }
  frame_free(&f);
  /* sub-lists nested three deep */
  frame_init(&f, 100, 70);
  gs_addr sub1 = alloc(&f, 16, 16), sub2 = alloc(&f, 16, 16), sub3 = alloc(&f, 16, 16);
  gs_cl_branch_to_sub_list call = {sub2};
  gs_cl_writer_init(&w, f.m, sub1, 16);
  check(&f, gs_cl_emit_branch_to_sub_list(&w, &call, &f.d));
  gs_cl_writer_init(&w, f.m, sub2, 16);
  call.address = sub3;
  check(&f, gs_cl_emit_branch_to_sub_list(&w, &call, &f.d));
  gs_cl_writer_init(&w, f.m, f.render, 64);
  call.address = sub1;
  check(&f, gs_cl_emit_branch_to_sub_list(&w, &call, &f.d));
  f.bin_end = f.bin, f.render_end = w.cur;
  snprintf(want, sizeof want, "%s: BRANCH_TO_SUB_LIST nests sub-lists deeper than 2", hex(a, sub2));
  expect_error(&f, 1, GS_EINVAL, want);
  frame_free(&f);
  /* a tile before 113 */
  frame_init(&f, 100, 70);
  gs_cl_writer_init(&w, f.m, f.render, 64);
  gs_cl_tile_coordinates tc = {0, 0};
  check(&f, gs_cl_emit_tile_coordinates(&w, &tc, &f.d));
  f.bin_end = f.bin, f.render_end = w.cur;
  expect_error(&f, 1, GS_EINVAL, "rendering list|TILE_COORDINATES before TILE_RENDERING_MODE_CONFIGURATION");
  frame_free(&f);
  /* the rendering thread waits for a semaphore nobody increments */
  frame_init(&f, 100, 70);
  simple_frame(&f, fs_constant);
  check(&f, gs_cl_put_id(&f.w, GS_CL_FLUSH, NULL, &f.d));
  f.bin_end = f.w.cur;
  render_list(&f, 0, 0xFFFFFF);
  expect_error(&f, 1, GS_EDEADLOCK, "WAIT_ON_SEMAPHORE waits forever");
  frame_free(&f);
}

/* A store whose frame is outside memory fails before any tile is stored:
 * the frame buffer keeps its bytes. */
static void test_bad_store_writes_nothing(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  simple_frame(&f, fs_constant);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  /* replace the last store (25) by a Store General of colour to 0x1000 */
  gs_cl_writer w;
  gs_cl_writer_init(&w, f.m, f.render_end - 1, 16);
  gs_cl_store_tile_buffer_general sg = {.buffer = 1, .address = 0x1000, .last_tile = 1};
  check(&f, gs_cl_emit_store_tile_buffer_general(&w, &sg, &f.d));
  f.render_end = w.cur;
  uint8_t *fb = gs_mem_ptr(f.m, f.fb, 100 * 70 * 4);
  memset(fb, 0xab, 100 * 70 * 4);
  expect_error(&f, 2, GS_EFAULT, "rendering list|STORE_TILE_BUFFER_GENERAL|0x00001000|outside allocated");
  for (uint32_t i = 0; i < 100 * 70 * 4; i++)
    if (fb[i] != 0xab) fail_msg("byte %u of the frame was written", i);
  frame_free(&f);
}

/* A fragment shader that faults names the tile, the shader and the QPU's
 * pc; with one thread, the tiles after the failing one are not stored. */
static void test_faulting_fragment_shader(void **s) {
  (void)s;
  frame f;
  char a[16], want[160];
  frame_init(&f, 100, 70);
  static const double good[3][2] = {{0, 0}, {100, 0}, {0, 70}}, bad[3][2] = {{70, 5}, {90, 5}, {70, 30}};
  gs_addr fs_bad = put_code(&f, fs_bad_varying);
  gs_addr rec_good = nv_record(&f, put_code(&f, fs_constant), f.unif, nv_vertices(&f, good, 3, 0.5f), 0);
  gs_addr rec_bad = nv_record(&f, fs_bad, f.unif, nv_vertices(&f, bad, 3, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec_good);
  bin_arrays(&f, 4, 3, 0);
  bin_nv_shader(&f, rec_bad); /* only in tile (1, 0) */
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0x01010101u, 0xFFFFFF);
  uint8_t *fb = gs_mem_ptr(f.m, f.fb, 100 * 70 * 4);
  memset(fb, 0xab, 100 * 70 * 4);
  snprintf(want, sizeof want, "rendering list|tile (1, 0)|fragment shader at %s|QPU 0 at pc %s|varying read 1", hex(a, fs_bad),
           hex(a + 0, fs_bad));
  expect_error(&f, 1, GS_EHANG, want);
  assert_int_equal(pixel(&f, 10, 10), 0xff336699u); /* tile (0, 0) was stored */
  assert_int_equal(pixel(&f, 10, 65), 0xabababab);  /* tile (0, 1) was not */
  assert_int_equal(pixel(&f, 80, 20), 0xabababab);  /* nor the failing tile */
  frame_free(&f);
}

/* ---- clipping --------------------------------------------------------------------- */

/* Clipping on (GL record flag), clip space = pixels (record 105 scales by
 * 16, 106 makes Zs = Zc): the corner of a triangle behind the near plane
 * Zs = 0 is cut off. The PTB fans the kept quadrilateral into two Clipped
 * Primitives (49) whose records carry the clipped corners; pixels away from
 * the cut are drawn or not as the plane says, with the original triangle's
 * varying (W = 1: barycentric). */
static void test_gl_near_plane_clipping(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  static const float attr[3][4] = {{10, 10, -0.5f, 0.0f}, {90, 10, 0.5f, 1.0f}, {10, 60, 0.5f, 0.5f}};
  gs_addr attrs = put_bytes(&f, attr, sizeof attr, 16);
  uint8_t b[44];
  gs_cl_gl_shader_record r = {.fs_single_threaded = 1, .clipping = 1, .fs_varyings = 1,
                              .fs_code = put_code(&f, fs_varying), .fs_uniforms = f.unif, .vs_attr_select = 1,
                              .vs_attr_size = 16, .vs_code = put_code(&f, vs_pixels), .vs_uniforms = f.unif,
                              .cs_attr_select = 1, .cs_attr_size = 16, .cs_code = put_code(&f, cs_pixels),
                              .cs_uniforms = f.unif};
  gs_cl_gl_attribute_record a = {.base = attrs, .bytes_minus_1 = 15, .stride = 16};
  check(&f, gs_cl_pack_gl_shader_record(b, 36, &r, &f.d));
  check(&f, gs_cl_pack_gl_attribute_record(b + 36, 8, &a, &f.d));
  gs_addr rec = put_bytes(&f, b, sizeof b, 16);
  bin_begin(&f, 7, 0, 0);
  gs_cl_clipper_xy_scaling xy = {16.0f, 16.0f};
  check(&f, gs_cl_emit_clipper_xy_scaling(&f.w, &xy, &f.d));
  gs_cl_clipper_z_scale_and_offset zs = {1.0f, 0.0f};
  check(&f, gs_cl_emit_clipper_z_scale_and_offset(&f.w, &zs, &f.d));
  bin_gl_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0x7f7f7f7fu, 0xFFFFFF);
  gs_v3d_stats st;
  if (gs_v3d_run_stats(f.g, f.bin, f.bin_end, f.render, f.render_end, NULL, &st) < 0) fail_msg("%s", gs_gpu_error(f.g));
  assert_int_equal(st.prims_binned, 2); /* the quadrilateral's fan */
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++) {
      double px = x + 0.5, py = y + 0.5;
      double l1 = (px - 10) / 80, l2 = (py - 10) / 50; /* weights of v1 and v2 */
      double z = -0.5 + l1 + l2, v = l1 * 1.0 + l2 * 0.5;
      int inside = l1 > 0.02 && l2 > 0.02 && l1 + l2 < 0.98;
      uint32_t bits = pixel(&f, x, y);
      float got;
      memcpy(&got, &bits, 4);
      if (inside && z > 0.02) {
        if (fabs(got - v) > 2e-3) fail_msg("pixel (%u, %u): %.6f, want %.6f", x, y, got, v);
      } else if (z < -0.02 || l1 < -0.02 || l2 < -0.02 || l1 + l2 > 1.02) {
        if (bits != 0x7f7f7f7fu) fail_msg("pixel (%u, %u) outside was drawn (z %.3f)", x, y, z);
      }
    }
  frame_free(&f);
}

/* ---- tile lists ------------------------------------------------------------------ */

/* 200 triangles tiling a 40 x 40 square inside tile (0, 0) overflow its
 * 32-byte initial block many times: the lists chain through the pool, and
 * every pixel of the square is still shaded exactly once. With a pool too
 * small for them the binning pass says the memory is full. */
static void chained_lists(uint32_t alloc_size, int expect_ok) {
  frame f;
  frame_init(&f, 100, 70);
  double (*xy)[2] = malloc(600 * sizeof *xy);
  for (int j = 0; j < 10; j++)
    for (int i = 0; i < 10; i++) {
      double x0 = 4 + 4 * i, y0 = 4 + 4 * j, *t = &xy[6 * (10 * j + i)][0];
      double c[6][2] = {{x0, y0}, {x0 + 4, y0}, {x0 + 4, y0 + 4}, {x0, y0}, {x0 + 4, y0 + 4}, {x0, y0 + 4}};
      memcpy(t, c, sizeof c);
    }
  nv_vertex v[600];
  for (int i = 0; i < 600; i++) v[i] = (nv_vertex){(int16_t)(xy[i][0] * 16), (int16_t)(xy[i][1] * 16), 0.5f, 1.0f};
  free(xy);
  gs_addr rec = nv_record(&f, put_code(&f, fs_count), f.unif, put_bytes(&f, v, sizeof v, 16), 0);
  gs_cl_writer_init(&f.w, f.m, f.bin, 8192);
  gs_cl_tile_binning_mode_configuration c = {.tile_alloc = f.tile_alloc, .tile_alloc_size = alloc_size,
                                             .tsda = f.tsda, .width_tiles = f.tx, .height_tiles = f.ty,
                                             .auto_init_tsda = 1};
  check(&f, gs_cl_emit_tile_binning_mode_configuration(&f.w, &c, &f.d));
  check(&f, gs_cl_put_id(&f.w, GS_CL_START_TILE_BINNING, NULL, &f.d));
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 600, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  if (!expect_ok) {
    expect_error(&f, 1, GS_ENOMEM, "binning list|VERTEX_ARRAY_PRIMITIVES|tile allocation memory|is full");
    frame_free(&f);
    return;
  }
  run_ok(&f, 2);
  for (uint32_t y = 0; y < 50; y++)
    for (uint32_t x = 0; x < 50; x++) {
      uint32_t want = x >= 4 && x < 44 && y >= 4 && y < 44;
      if (pixel(&f, x, y) != want) fail_msg("pixel (%u, %u) shaded %u times", x, y, pixel(&f, x, y));
    }
  frame_free(&f);
}

static void test_tile_lists_chain(void **s) {
  (void)s;
  chained_lists(256u << 10, 1);
  chained_lists(512, 0); /* 4 initial blocks, then 384 bytes of pool */
}

/* A rendering list alone, with a tile list written by hand (56, 65, 48 and
 * compressed primitives, Return), Store General of colour and Z/stencil;
 * then a second frame that loads both (29) and draws a farther triangle
 * with the depth test: it shows only where the first one is not. */
/* Two rendering passes over one tile: the near triangle, then the far one
 * depth-tested against it. Between them the tile buffer goes to memory and
 * back: as a colour and a Z frame buffer (28/29), or (full) as a
 * full-resolution dump and reload (26/27). */
static void render_only(int full) {
  frame f;
  frame_init(&f, 64, 64); /* one tile */
  gs_addr zbuf = alloc(&f, 64 * 64 * 4, 16);
  gs_addr dump = alloc(&f, 2 * TLB_FULL_BYTES, 16);
  static const double near_xy[3][2] = {{0, 0}, {64, 0}, {0, 64}}, far_xy[3][2] = {{64, 64}, {0, 64}, {64, 0}};
  gs_addr fs = put_code(&f, fs_depth);
  static const uint32_t red = 0xff0000ffu, blue = 0xffff0000u;
  gs_addr rec_near = nv_record(&f, fs, put_bytes(&f, &red, 4, 4), nv_vertices(&f, near_xy, 3, 0.25f), 0);
  gs_addr rec_far = nv_record(&f, fs, put_bytes(&f, &blue, 4, 4), nv_vertices(&f, far_xy, 3, 0.75f), 0);
  for (int pass = 0; pass < 2; pass++) {
    gs_addr sub = alloc(&f, 64, 32);
    gs_cl_writer w;
    gs_cl_writer_init(&w, f.m, sub, 64);
    gs_cl_primitive_list_format pf = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
    check(&f, gs_cl_emit_primitive_list_format(&w, &pf, &f.d));
    gs_cl_configuration_bits cb = {.enable_forward_facing = 1, .enable_reverse_facing = 1, .depth_func = 1,
                                   .z_updates = 1};
    check(&f, gs_cl_emit_configuration_bits(&w, &cb, &f.d));
    gs_cl_nv_shader_state ns = {pass ? rec_far : rec_near};
    check(&f, gs_cl_emit_nv_shader_state(&w, &ns, &f.d));
    check(&f, gs_cl_put_id(&w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, &f.d));
    gs_cl_prim prim = {{0, 1, 2}};
    check(&f, gs_cl_put_prim(&w, &prim, &f.d));
    check(&f, gs_cl_end_list(&w, &f.d));
    check(&f, gs_cl_put_id(&w, GS_CL_RETURN_FROM_SUB_LIST, NULL, &f.d));
    gs_cl_writer_init(&w, f.m, f.render, 8192);
    gs_cl_tile_rendering_mode_configuration rc = {.address = f.fb, .width = 64, .height = 64, .color_format = 1};
    check(&f, gs_cl_emit_tile_rendering_mode_configuration(&w, &rc, &f.d));
    if (pass && full) {
      gs_cl_reload_full_resolution_tile_buffer lf = {.address = dump};
      check(&f, gs_cl_emit_reload_full_resolution_tile_buffer(&w, &lf, &f.d));
    } else if (pass) {
      gs_cl_load_tile_buffer_general lc = {.buffer = 1, .address = f.fb}, lz = {.buffer = 2, .address = zbuf};
      check(&f, gs_cl_emit_load_tile_buffer_general(&w, &lc, &f.d));
      check(&f, gs_cl_emit_load_tile_buffer_general(&w, &lz, &f.d));
    }
    gs_cl_tile_coordinates tc = {0, 0};
    check(&f, gs_cl_emit_tile_coordinates(&w, &tc, &f.d));
    gs_cl_branch_to_sub_list call = {sub};
    check(&f, gs_cl_emit_branch_to_sub_list(&w, &call, &f.d));
    if (full && !pass) {
      gs_cl_store_full_resolution_tile_buffer sf = {.address = dump, .last_tile = 1};
      check(&f, gs_cl_emit_store_full_resolution_tile_buffer(&w, &sf, &f.d));
    } else {
      gs_cl_store_tile_buffer_general sz = {.buffer = 2, .address = zbuf, .disable_color_clear = 1,
                                            .disable_zs_clear = 1};
      gs_cl_store_tile_buffer_general sc = {.buffer = 1, .address = f.fb, .last_tile = 1};
      check(&f, gs_cl_emit_store_tile_buffer_general(&w, &sz, &f.d));
      check(&f, gs_cl_emit_store_tile_buffer_general(&w, &sc, &f.d));
    }
    f.bin_end = f.bin, f.render_end = w.cur;
    run_ok(&f, 1);
  }
  int32_t nx[3], ny[3], fx[3], fy[3];
  for (int k = 0; k < 3; k++) {
    nx[k] = (int32_t)(near_xy[k][0] * 16), ny[k] = (int32_t)(near_xy[k][1] * 16);
    fx[k] = (int32_t)(far_xy[k][0] * 16), fy[k] = (int32_t)(far_xy[k][1] * 16);
  }
  for (uint32_t y = 0; y < 64; y++)
    for (uint32_t x = 0; x < 64; x++) {
      int in_near = fill_rule_covers(nx, ny, (int)x, (int)y), in_far = fill_rule_covers(fx, fy, (int)x, (int)y);
      uint32_t want = in_near ? red : in_far ? blue : 0;
      if (pixel(&f, x, y) != want) fail_msg("pixel (%u, %u) = 0x%08x, want 0x%08x", x, y, pixel(&f, x, y), want);
      uint32_t z;
      gs_mem_read(f.m, zbuf + 4 * (y * 64 + x), &z, 4, NULL);
      /* Z24 of 0.25 and 0.75, rounded to nearest (docs/rasterization.md): 4194304, 12582911 */
      uint32_t want_z = in_near ? 0x400000u : in_far ? 0xBFFFFFu : 0xFFFFFFu;
      if (z >> 8 != want_z) fail_msg("Z of (%u, %u) = 0x%06x, want 0x%06x", x, y, z >> 8, want_z);
      if (full) { /* the dump of pass 0 holds the near triangle in 2x2 quads (docs/tile-buffer.md) */
        uint32_t off = (y & ~1u) / 2 * 32 * 16 + (x & ~1u) / 2 * 16 + ((y & 1) * 2 + (x & 1)) * 4, c, dz;
        gs_mem_read(f.m, dump + off, &c, 4, NULL);
        gs_mem_read(f.m, dump + TLB_FULL_BYTES + off, &dz, 4, NULL);
        if (c != (in_near ? red : 0) || dz >> 8 != (in_near ? 0x400000u : 0xFFFFFFu))
          fail_msg("dump of (%u, %u): colour 0x%08x Z 0x%06x", x, y, c, dz >> 8);
      }
    }
  frame_free(&f);
}

static void test_render_only_loads_and_stores(void **s) {
  (void)s;
  render_only(0);
}

static void test_full_resolution_dump_and_reload(void **s) {
  (void)s;
  render_only(1);
}

/* Carry-over (reference §3.7): the tile buffer is cleared only by stores.
 * Tile (0, 0) draws a red triangle and stores it with "disable colour
 * clear" when `keep`; tile (1, 0) draws nothing and stores: it shows the
 * triangle again when the buffer carried over, the clear colour when it
 * did not. The same bytes for 1, 2 and 4 threads. */
static void carry_case(int keep, unsigned threads) {
  frame f;
  frame_init(&f, 128, 64); /* two tiles */
  static const double xy[3][2] = {{0, 0}, {64, 0}, {0, 64}};
  static const uint32_t red = 0xff336699u, clear = 0xff202020u; /* fs_constant's colour */
  gs_addr rec = nv_record(&f, put_code(&f, fs_constant), put_bytes(&f, &red, 4, 4), nv_vertices(&f, xy, 3, 0.5f), 0);
  gs_addr sub = alloc(&f, 64, 32), empty = alloc(&f, 16, 32);
  gs_cl_writer w;
  gs_cl_writer_init(&w, f.m, sub, 64);
  gs_cl_primitive_list_format pf = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  check(&f, gs_cl_emit_primitive_list_format(&w, &pf, &f.d));
  gs_cl_configuration_bits cb = {.enable_forward_facing = 1, .enable_reverse_facing = 1, .depth_func = 7};
  check(&f, gs_cl_emit_configuration_bits(&w, &cb, &f.d));
  gs_cl_nv_shader_state ns = {rec};
  check(&f, gs_cl_emit_nv_shader_state(&w, &ns, &f.d));
  check(&f, gs_cl_put_id(&w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, &f.d));
  gs_cl_prim prim = {{0, 1, 2}};
  check(&f, gs_cl_put_prim(&w, &prim, &f.d));
  check(&f, gs_cl_end_list(&w, &f.d));
  check(&f, gs_cl_put_id(&w, GS_CL_RETURN_FROM_SUB_LIST, NULL, &f.d));
  gs_cl_writer_init(&w, f.m, empty, 16);
  check(&f, gs_cl_put_id(&w, GS_CL_RETURN_FROM_SUB_LIST, NULL, &f.d));
  gs_cl_writer_init(&w, f.m, f.render, 8192);
  gs_cl_clear_colors cc = {clear, clear, 0xFFFFFF, 0, 0};
  check(&f, gs_cl_emit_clear_colors(&w, &cc, &f.d));
  gs_cl_tile_rendering_mode_configuration rc = {.address = f.fb, .width = 128, .height = 64, .color_format = 1};
  check(&f, gs_cl_emit_tile_rendering_mode_configuration(&w, &rc, &f.d));
  for (unsigned x = 0; x < 2; x++) {
    gs_cl_tile_coordinates tc = {x, 0};
    check(&f, gs_cl_emit_tile_coordinates(&w, &tc, &f.d));
    gs_cl_branch_to_sub_list call = {x ? empty : sub};
    check(&f, gs_cl_emit_branch_to_sub_list(&w, &call, &f.d));
    gs_cl_store_tile_buffer_general st = {.buffer = 1, .address = f.fb, .format = 0, .pixel_format = 0,
                                          .disable_color_clear = (unsigned)(keep && x == 0), .last_tile = x};
    check(&f, gs_cl_emit_store_tile_buffer_general(&w, &st, &f.d));
  }
  f.bin_end = f.bin, f.render_end = w.cur;
  run_ok(&f, threads);
  int32_t tx[3], ty[3];
  for (int k = 0; k < 3; k++) tx[k] = (int32_t)(xy[k][0] * 16), ty[k] = (int32_t)(xy[k][1] * 16);
  for (uint32_t y = 0; y < 64; y++)
    for (uint32_t x = 0; x < 64; x++) {
      uint32_t want = fill_rule_covers(tx, ty, (int)x, (int)y) ? red : clear;
      if (pixel(&f, x, y) != want) fail_msg("pixel (%u, %u) = 0x%08x, want 0x%08x", x, y, pixel(&f, x, y), want);
      uint32_t want1 = keep ? want : clear;
      if (pixel(&f, 64 + x, y) != want1)
        fail_msg("%s, %u threads: pixel (%u, %u) = 0x%08x, want 0x%08x", keep ? "kept" : "cleared", threads,
                 64 + x, y, pixel(&f, 64 + x, y), want1);
    }
  frame_free(&f);
}

/* Tiles whose Clear Colors differ: a worker's buffer that a store has just
 * cleared is cleared again for the next fresh job only when its values
 * differ (render.c, run_job). Four tiles in a row: the first two with
 * colour A and Z 0x123456, the third with B, the fourth with B and Z
 * 0x654321; each stores its Z (without clearing) and then its colour
 * (clearing both). Every pixel and Z must be its tile's clear values, on 1
 * thread (one worker takes the tiles in turn) and on 2. */
static void test_clear_values_per_tile(void **s) {
  (void)s;
  static const uint32_t colour[4] = {0xff102030u, 0xff102030u, 0xff405060u, 0xff405060u};
  static const uint32_t z[4] = {0x123456u, 0x123456u, 0x123456u, 0x654321u};
  for (unsigned threads = 1; threads <= 2; threads++) {
    frame f;
    frame_init(&f, 256, 64);
    gs_addr zbuf = alloc(&f, 256 * 64 * 4, 16);
    gs_cl_writer w;
    gs_cl_writer_init(&w, f.m, f.render, 8192);
    gs_cl_tile_rendering_mode_configuration rc = {.address = f.fb, .width = 256, .height = 64, .color_format = 1};
    for (unsigned x = 0; x < 4; x++) {
      gs_cl_clear_colors cc = {colour[x], colour[x], z[x], 0, 0};
      check(&f, gs_cl_emit_clear_colors(&w, &cc, &f.d));
      if (x == 0) check(&f, gs_cl_emit_tile_rendering_mode_configuration(&w, &rc, &f.d));
      gs_cl_tile_coordinates tc = {x, 0};
      check(&f, gs_cl_emit_tile_coordinates(&w, &tc, &f.d));
      gs_cl_store_tile_buffer_general sz = {.buffer = 2, .address = zbuf, .disable_color_clear = 1,
                                            .disable_zs_clear = 1};
      gs_cl_store_tile_buffer_general sc = {.buffer = 1, .address = f.fb, .last_tile = x == 3};
      check(&f, gs_cl_emit_store_tile_buffer_general(&w, &sz, &f.d));
      check(&f, gs_cl_emit_store_tile_buffer_general(&w, &sc, &f.d));
    }
    f.bin_end = f.bin, f.render_end = w.cur;
    run_ok(&f, threads);
    for (uint32_t y = 0; y < 64; y++)
      for (uint32_t x = 0; x < 256; x++) {
        uint32_t zs;
        gs_mem_read(f.m, zbuf + 4 * (y * 256 + x), &zs, 4, NULL);
        if (pixel(&f, x, y) != colour[x / 64] || zs >> 8 != z[x / 64])
          fail_msg("%u threads: pixel (%u, %u) = 0x%08x with Z 0x%06x, want 0x%08x and 0x%06x", threads, x, y,
                   pixel(&f, x, y), zs >> 8, colour[x / 64], z[x / 64]);
      }
    frame_free(&f);
  }
}

static void test_tile_buffer_carries_over(void **s) {
  (void)s;
  for (unsigned threads = 1; threads <= 4; threads *= 2) {
    carry_case(1, threads);
    carry_case(0, threads);
  }
}

/* ---- NV varyings, points, lines, strips, interpolation modes ---------------------- */

/* NV vertices with two varyings, given as raw words: x, y in pixels. */
static gs_addr nv_vertices_vary(frame *f, const float (*v)[4], unsigned n, const float *inv_w) {
  uint32_t words[16 * 5];
  for (unsigned i = 0; i < n; i++) {
    uint32_t xy = (uint32_t)(uint16_t)lround(v[i][0] * 16) | (uint32_t)(uint16_t)lround(v[i][1] * 16) << 16;
    float z = 0.5f, w = inv_w ? inv_w[i] : 1.0f;
    words[5 * i] = xy;
    memcpy(&words[5 * i + 1], &z, 4);
    memcpy(&words[5 * i + 2], &w, 4);
    memcpy(&words[5 * i + 3], &v[i][2], 8);
  }
  return put_bytes(f, words, n * 20, 16);
}

/* Varying 1 flat (record 97): the last vertex's value everywhere; varying
 * 0 interpolated. The shader writes varying `which`. */
static const char fs_second_varying[] =
    "    fmul r0, vary, ra15\n"
    "    fadd r0, r0, r5          # varying 0\n"
    "    fmul r1, vary, ra15\n"
    "    fadd r1, r1, r5          # varying 1\n"
    "    mov tlb_colour_all, r1\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

static void test_nv_flat_varying(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  static const float v[3][4] = {{5, 5, 0.0f, 0.125f}, {95, 5, 1.0f, 0.25f}, {5, 65, 0.5f, 0.75f}};
  gs_addr rec = nv_record(&f, put_code(&f, fs_second_varying), f.unif, nv_vertices_vary(&f, v, 3, NULL), 2);
  bin_begin(&f, 7, 0, 0);
  gs_cl_flat_shade_flags fl = {0x2};
  check(&f, gs_cl_emit_flat_shade_flags(&f.w, &fl, &f.d));
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  run_ok(&f, 2);
  unsigned n = 0;
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++) {
      uint32_t bits = pixel(&f, x, y);
      if (!bits) continue;
      float got;
      memcpy(&got, &bits, 4);
      if (got != 0.75f) fail_msg("pixel (%u, %u): %g, want the last vertex's 0.75", x, y, got);
      n++;
    }
  assert_true(n > 2000);
  frame_free(&f);
}

/* Size-1 points on pixel centres light exactly their pixel (record 98
 * default size 1); a width-1 line from centre (2.5, 40.5) to (12.5, 40.5)
 * lights pixels 2..11 of its row (docs/rasterization.md). */
static void test_points_and_lines(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  static const double pts[4][2] = {{3.5, 3.5}, {70.5, 10.5}, {20.5, 66.5}, {99.5, 69.5}};
  static const double line[2][2] = {{2.5, 40.5}, {12.5, 40.5}};
  gs_addr fs = put_code(&f, fs_count);
  gs_addr rec_p = nv_record(&f, fs, f.unif, nv_vertices(&f, pts, 4, 0.5f), 0);
  gs_addr rec_l = nv_record(&f, fs, f.unif, nv_vertices(&f, line, 2, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec_p);
  bin_arrays(&f, 0, 4, 0);
  bin_nv_shader(&f, rec_l);
  bin_arrays(&f, 1, 2, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  run_ok(&f, 2);
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++) {
      uint32_t want = 0;
      for (int i = 0; i < 4; i++) want += x == (uint32_t)pts[i][0] && y == (uint32_t)pts[i][1];
      want += y == 40 && x >= 2 && x <= 11;
      if (pixel(&f, x, y) != want) fail_msg("pixel (%u, %u) shaded %u times, want %u", x, y, pixel(&f, x, y), want);
    }
  frame_free(&f);
}

/* A triangle strip of 4 vertices (and Flush All State, which writes every
 * state item into every list) makes the same rectangle as two triangles. */
static void test_strip_and_flush_all_state(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  static const double xy[4][2] = {{10, 5}, {90, 5}, {10, 65}, {90, 65}};
  gs_addr rec = nv_record(&f, put_code(&f, fs_count), f.unif, nv_vertices(&f, xy, 4, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 5, 4, 0);
  check(&f, gs_cl_put_id(&f.w, GS_CL_INCREMENT_SEMAPHORE, NULL, &f.d));
  check(&f, gs_cl_put_id(&f.w, GS_CL_FLUSH_ALL_STATE, NULL, &f.d));
  f.bin_end = f.w.cur;
  render_list(&f, 0, 0xFFFFFF);
  run_ok(&f, 2);
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++) {
      uint32_t want = x >= 10 && x < 90 && y >= 5 && y < 65;
      if (pixel(&f, x, y) != want) fail_msg("pixel (%u, %u) shaded %u times", x, y, pixel(&f, x, y));
    }
  frame_free(&f);
}

/* With 1/W = 1 and 1/4 at the ends of a triangle's edges, the varying is
 * perspective-correct by default and screen-linear when the options' SPH
 * modes say so (varying 0: mode 3). */

/* One triangle, varying 0 = 0.25, 1, 0.75 at its corners and 1/W = 1, 0.25,
 * 1, drawn from a hand-written list (no Flat Shade Flags record) with a
 * fragment program whose SPH asks for `mode`, or (mode < 0) raw code
 * without a header, which the hardware interpolates perspective-correct.
 * Each pixel is checked against the mode's formula. */
static void interp_case(int mode) {
  frame f;
  frame_init(&f, 100, 70);
  static const float v[3][4] = {{0, 0, 0.25f, 0}, {96, 0, 1.0f, 0}, {0, 64, 0.75f, 0}};
  static const float inv_w[3] = {1.0f, 0.25f, 1.0f};
  gs_addr fs = mode < 0 ? put_code(&f, fs_varying) : put_code_sph(&f, fs_varying, (gs_pixel_imap)mode);
  gs_addr rec = nv_record(&f, fs, f.unif, nv_vertices_vary(&f, v, 3, inv_w), 2);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  gs_v3d_options o = {0};
  o.threads = 2;
  if (gs_v3d_run(f.g, f.bin, f.bin_end, f.render, f.render_end, &o) < 0) fail_msg("%s", gs_gpu_error(f.g));
  static const int chosen[][2] = {{48, 2}, {20, 20}, {70, 5}, {10, 40}};
  for (size_t i = 0; i < sizeof chosen / sizeof chosen[0]; i++) {
    double l1 = (chosen[i][0] + 0.5) / 96, l2 = (chosen[i][1] + 0.5) / 64, l0 = 1 - l1 - l2;
    double want = mode == GS_PIXEL_IMAP_SCREEN_LINEAR ? 0.25 * l0 + 1.0 * l1 + 0.75 * l2
                  : mode == GS_PIXEL_IMAP_CONSTANT    ? 0.75 /* the provoking (last) vertex */
                                                      : (0.25 * l0 + 0.25 * l1 + 0.75 * l2) / (l0 + l1 / 4 + l2);
    uint32_t bits = pixel(&f, (uint32_t)chosen[i][0], (uint32_t)chosen[i][1]);
    float got;
    memcpy(&got, &bits, 4);
    if (fabs(got - want) > 1e-5)
      fail_msg("mode %d: pixel (%d, %d): %.7f, want %.7f", mode, chosen[i][0], chosen[i][1], got, want);
  }
  frame_free(&f);
}

/* Each PixelImap mode through the SPH in the program header of a
 * hand-written list's fragment program, and raw code without one. */
static void test_interpolation_modes(void **s) {
  (void)s;
  interp_case(-1);
  interp_case(GS_PIXEL_IMAP_PERSPECTIVE);
  interp_case(GS_PIXEL_IMAP_SCREEN_LINEAR);
  interp_case(GS_PIXEL_IMAP_CONSTANT);
}

/* The host floating-point environments of rendering (draw_prim switches
 * between the PSE's round-to-nearest and the QPU's mode once per group of
 * blocks): a perspective varying squared and added to itself, so that the
 * QPU's rounding shows in the low bits, over a triangle of many blocks.
 * The fast and the reference interpreter give the same bytes in either
 * QPU rounding mode, the two modes differ, and the caller's own rounding
 * mode changes nothing and is what it finds after the run. */
static const char fs_rounding[] =
    "    fmul r0, vary, ra15\n"
    "    fadd r0, r0, r5\n"
    "    fmul r1, r0, r0\n"
    "    fadd r1, r1, r0          # v*v + v, rounded twice in the QPU's mode\n"
    "    mov tlb_colour_all, r1\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* The rounding mode float arithmetic uses now: 1/3 rounds up to nearest. */
static int float_mode(void) {
  volatile float one = 1.0f, three = 3.0f;
  float q = one / three;
  uint32_t bits;
  memcpy(&bits, &q, 4);
  return bits == 0x3eaaaaabu ? FE_TONEAREST : FE_TOWARDZERO;
}

static void render_rounding(int interp, int rounding, int caller_mode, uint32_t *out) {
  frame f;
  frame_init(&f, 150, 100);
  static const float v[3][4] = {{1, 1, 0.1f, 0}, {149, 7, 0.9f, 0}, {9, 99, 0.37f, 0}};
  static const float inv_w[3] = {0.7f, 0.3f, 0.11f};
  gs_addr rec = nv_record(&f, put_code(&f, fs_rounding), f.unif, nv_vertices_vary(&f, v, 3, inv_w), 2);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  gs_gpu_config_of(f.g)->interpreter = interp;
  gs_gpu_config_of(f.g)->rounding = rounding;
  fesetround(caller_mode);
  run_ok(&f, 2);
  assert_int_equal(float_mode(), caller_mode);
  fesetround(FE_TONEAREST);
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++) out[y * f.width + x] = pixel(&f, x, y);
  frame_free(&f);
}

static void test_render_fp_environments(void **s) {
  (void)s;
  static uint32_t a[150 * 100], b[150 * 100];
  for (int rounding = 0; rounding < 2; rounding++) {
    int qpu_mode = rounding ? GS_ROUND_NEAREST_EVEN : GS_ROUND_TOWARD_ZERO;
    render_rounding(GS_INTERP_FAST, qpu_mode, FE_TONEAREST, a);
    render_rounding(GS_INTERP_REFERENCE, qpu_mode, FE_TONEAREST, b);
    assert_memory_equal(a, b, sizeof a);
    render_rounding(GS_INTERP_FAST, qpu_mode, FE_TOWARDZERO, b);
    assert_memory_equal(a, b, sizeof a);
  }
  render_rounding(GS_INTERP_FAST, GS_ROUND_TOWARD_ZERO, FE_TONEAREST, a);
  render_rounding(GS_INTERP_FAST, GS_ROUND_NEAREST_EVEN, FE_TONEAREST, b);
  unsigned shaded = 0, differ = 0;
  for (unsigned i = 0; i < 150 * 100; i++) shaded += a[i] != 0, differ += a[i] != b[i];
  if (shaded < 5000) fail_msg("%u pixels shaded", shaded);
  if (differ < shaded / 8) fail_msg("the QPU's rounding mode changed only %u of %u pixels", differ, shaded);
}

/* ---- threads of the CLE ------------------------------------------------------------ */

/* The binning thread may wait for the rendering thread: it starts with a
 * Wait on Semaphore that the rendering list's first packet (7) releases;
 * the rendering list then waits for the binning list's 7 as usual. A Halt
 * ends a list before its end address (the bytes after it are garbage). */
static void test_semaphores_both_ways_and_halt(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 100, 70);
  static const double xy[4][2] = {{10, 5}, {90, 5}, {90, 65}, {10, 65}};
  gs_addr rec = nv_record(&f, put_code(&f, fs_count), f.unif, nv_vertices(&f, xy, 4, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 6, 4, 0); /* a fan */
  bin_finish(&f);
  /* Put a Wait on Semaphore before the binning list and an Increment
   * before the rendering list, and a Halt with garbage after it. */
  uint32_t n = f.bin_end - f.bin;
  uint8_t *b = gs_mem_ptr(f.m, f.bin, n + 1);
  memmove(b + 1, b, n);
  b[0] = GS_CL_WAIT_ON_SEMAPHORE;
  f.bin_end = f.bin + n + 1;
  render_list(&f, 0, 0xFFFFFF);
  uint8_t *r = gs_mem_ptr(f.m, f.render, f.render_end - f.render + 8);
  n = f.render_end - f.render;
  memmove(r + 1, r, n);
  r[0] = GS_CL_INCREMENT_SEMAPHORE;
  r[n + 1] = GS_CL_HALT;
  memset(r + n + 2, 3, 6); /* unknown packets the Halt keeps the thread from */
  f.render_end = f.render + n + 8;
  run_ok(&f, 2);
  for (uint32_t y = 0; y < f.height; y++)
    for (uint32_t x = 0; x < f.width; x++)
      if (pixel(&f, x, y) != (x >= 10 && x < 90 && y >= 5 && y < 65)) fail_msg("pixel (%u, %u)", x, y);
  frame_free(&f);
}

/* ---- benchmarks ------------------------------------------------------------------- */

/* The benchmark frames: back-to-front layers are each shaded in full; a
 * 6-pixel right triangle (area 18) covers 18 pixels give or take its
 * edges. */
static void test_bench_frames(void **s) {
  (void)s;
  gs_v3d_bench_result r;
  gs_diag d;
  uint64_t tri_fragments = 0;
  for (int k = 0; k < 3; k++) { /* the QPU's fragment program, Maxwell's and AGX's: the same frames */
    const char *isa = k == 2 ? "agx" : k ? "sass" : "qpu";
    if (gs_v3d_bench_fill(130, 70, 3, 2, isa, &r, &d) < 0) fail_msg("%s: %s", isa, d.msg);
    assert_int_equal(r.fragments, 130 * 70 * 3);
    assert_int_equal(r.triangles, 6);
    assert_true(r.mpixels_per_second > 0 && r.seconds >= r.render_seconds);
    if (gs_v3d_bench_triangles(200, 100, 100, 2, isa, &r, &d) < 0) fail_msg("%s: %s", isa, d.msg);
    assert_true(r.fragments >= 100 * 12 && r.fragments <= 100 * 24);
    if (k) assert_int_equal(r.fragments, tri_fragments);
    tri_fragments = r.fragments;
  }
  assert_int_equal(gs_v3d_bench_fill(4096, 10, 1, 1, NULL, &r, &d), GS_EARG);
  assert_int_equal(gs_v3d_bench_triangles(100, 100, 0, 1, NULL, &r, &d), GS_EARG);
  assert_int_equal(gs_v3d_bench_fill(10, 10, 1, 1, "mips", &r, &d), GS_EARG);
}

/* ---- robustness ---------------------------------------------------------------------- */

/* Valid binning and rendering lists (GL and NV shader states, a clipped
 * draw) with 1 to 3 random bytes changed: every run ends, with the frame
 * or with an error that names its list; nothing crashes (the sanitizer
 * build checks memory). A small watchdog and packet budget keep runaway
 * shaders and lists short. */
static void test_fuzzed_lists(void **s) {
  (void)s;
  frame f;
  frame_init(&f, 130, 70);
  gs_gpu_config_of(f.g)->watchdog = 20000;
  static const float attr[3][4] = {{10, 10, -0.5f, 0.0f}, {120, 10, 0.5f, 1.0f}, {10, 60, 0.5f, 0.5f}};
  gs_addr glrec = gl_record(&f, put_code(&f, fs_varying), f.unif, put_code(&f, cs_pixels), f.unif,
                            put_code(&f, vs_pixels), put_bytes(&f, attr, sizeof attr, 16), 1);
  static const double xy[4][2] = {{10, 5}, {90, 5}, {90, 65}, {10, 65}};
  gs_addr nvrec = nv_record(&f, put_code(&f, fs_count), f.unif, nv_vertices(&f, xy, 4, 0.5f), 0);
  bin_begin(&f, 3, 1, 1);
  gs_cl_clipper_xy_scaling sc = {16.0f, 16.0f};
  check(&f, gs_cl_emit_clipper_xy_scaling(&f.w, &sc, &f.d));
  bin_gl_shader(&f, glrec);
  bin_arrays(&f, 4, 3, 0);
  bin_nv_shader(&f, nvrec);
  bin_arrays(&f, 5, 4, 0);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  uint32_t nb = f.bin_end - f.bin, nr = f.render_end - f.render;
  uint8_t *bin = gs_mem_ptr(f.m, f.bin, nb), *ren = gs_mem_ptr(f.m, f.render, nr);
  uint8_t *bin0 = malloc(nb), *ren0 = malloc(nr);
  memcpy(bin0, bin, nb);
  memcpy(ren0, ren, nr);
  uint32_t seed = 99;
  unsigned failures = 0;
  for (int it = 0; it < 300; it++) {
    memcpy(bin, bin0, nb);
    memcpy(ren, ren0, nr);
    seed = seed * 1664525u + 1013904223u;
    int changes = 1 + (int)(seed >> 30) % 3;
    for (int c = 0; c < changes; c++) {
      seed = seed * 1664525u + 1013904223u;
      uint32_t at = (seed >> 8) % (nb + nr);
      seed = seed * 1664525u + 1013904223u;
      uint8_t v = (uint8_t)(seed >> 24);
      if (at < nb) bin[at] = v;
      else ren[at - nb] = v;
    }
    gs_v3d_options o = {0};
    o.threads = 1 + (unsigned)(it % 3);
    o.max_packets = 100000;
    int rc = gs_v3d_run(f.g, f.bin, f.bin_end, f.render, f.render_end, &o);
    if (rc < 0) {
      const char *msg = gs_gpu_error(f.g);
      failures++;
      if (getenv("SHOWMSG")) printf("MSG: fuzz: %s\n", msg);
      if (strncmp(msg, "binning list: ", 14) != 0 && strncmp(msg, "rendering list: ", 16) != 0 &&
          strncmp(msg, "both control-list threads", 25) != 0)
        fail_msg("run %d: message without its list: \"%s\"", it, msg);
    }
  }
  if (getenv("SHOWMSG")) printf("MSG: %u of 300 fuzzed runs failed\n", failures);
  assert_true(failures > 30 && failures < 300);
  /* Now the tile lists the binning pass wrote, changed, rendered alone (the
   * rendering list's Wait on Semaphore, after 114, 113 and 115, made a Nop). */
  memcpy(bin, bin0, nb);
  memcpy(ren, ren0, nr);
  run_ok(&f, 1);
  assert_int_equal(ren[14 + 11 + 3], GS_CL_WAIT_ON_SEMAPHORE);
  ren[14 + 11 + 3] = GS_CL_NOP;
  uint32_t nt = 2048;
  uint8_t *tiles = gs_mem_ptr(f.m, f.tile_alloc, nt), *tiles0 = malloc(nt);
  memcpy(tiles0, tiles, nt);
  failures = 0;
  for (int it = 0; it < 300; it++) {
    memcpy(tiles, tiles0, nt);
    for (int c = 0; c < 2; c++) {
      seed = seed * 1664525u + 1013904223u;
      uint32_t at = (seed >> 8) % 400; /* the six initial blocks and the start of the pool */
      if (at >= 6 * 32) at += 256 - 6 * 32;
      seed = seed * 1664525u + 1013904223u;
      tiles[at] = (uint8_t)(seed >> 24);
    }
    gs_v3d_options o = {0};
    o.threads = 1 + (unsigned)(it % 3);
    o.max_packets = 100000;
    if (gs_v3d_run(f.g, f.bin, f.bin, f.render, f.render_end, &o) < 0) {
      const char *msg = gs_gpu_error(f.g);
      failures++;
      if (getenv("SHOWMSG")) printf("MSG: tile fuzz: %s\n", msg);
      if (strncmp(msg, "rendering list: ", 16) != 0) fail_msg("run %d: message without its list: \"%s\"", it, msg);
    }
  }
  if (getenv("SHOWMSG")) printf("MSG: %u of 300 fuzzed tile-list runs failed\n", failures);
  assert_true(failures > 30 && failures < 300);
  free(tiles0);
  free(bin0);
  free(ren0);
  frame_free(&f);
}

/* ---- (f) 4x multisampling and 64-bit colour ----------------------------------- */

/* The triangle A (10.5, 5.375), B (60, 5.375), C (10.5, 50): its left edge
 * x = 10.5 takes samples 1 and 3 of column 10, its bottom edge y = 5.375
 * samples 1, 2, 3 of row 5 (docs/rasterization.md; test_pse.c works the
 * sets out). */
static const double ms_tri[3][2] = {{10.5, 5.375}, {60, 5.375}, {10.5, 50}};

static void ms_tri_fixed(int32_t x[3], int32_t y[3]) {
  for (int k = 0; k < 3; k++) x[k] = (int32_t)lround(ms_tri[k][0] * 16), y[k] = (int32_t)lround(ms_tri[k][1] * 16);
}

/* Per byte, the average of n samples of `in` and 4 - n of `out`, halves
 * up: (sum + 2) / 4 (docs/tile-buffer.md). */
static uint32_t blend4(uint32_t in, uint32_t out, unsigned n) {
  uint32_t r = 0;
  for (int b = 0; b < 32; b += 8) {
    uint32_t sum = n * ((in >> b) & 255) + (4 - n) * ((out >> b) & 255);
    r |= ((sum + 2) / 4) << b;
  }
  return r;
}

/* Renders the triangle with fs_constant on a 64x40 frame of 32x32 tiles
 * (2 x 2) into out[] with `threads` threads. */
static void render_ms_triangle(uint32_t *out, unsigned threads, unsigned decimate, unsigned oversample) {
  frame f;
  frame_init_mode(&f, 64, 40, 1, 0);
  f.decimate = decimate, f.oversample = oversample;
  gs_addr rec = nv_record(&f, put_code(&f, fs_constant), f.unif, nv_vertices(&f, ms_tri, 3, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0x11223344u, 0xFFFFFF);
  gs_v3d_stats st;
  gs_v3d_options o = {0};
  o.threads = threads;
  if (gs_v3d_run_stats(f.g, f.bin, f.bin_end, f.render, f.render_end, &o, &st) < 0) fail_msg("%s", gs_gpu_error(f.g));
  assert_int_equal(st.tiles, 4);
  /* the hypotenuse crosses x = 32 at y = 5.375 + 28·44.625/49.5 = 30.6: not tile (1, 1) */
  assert_int_equal(st.tile_refs, 3);
  assert_int_equal(gs_mem_read(f.m, f.fb, out, 64 * 40 * 4, NULL), GS_OK);
  frame_free(&f);
}

/* A full 4x multisample render resolved with decimate 4x: every pixel is
 * the byte average of its covered samples (the shader's colour) and the
 * others (the clear colour). By hand: (10, 10) has 2 of 4 samples, R
 * (0x99·2 + 0x44·2 + 2) / 4 = 0x6f, G (0x66·2 + 0x33·2 + 2) / 4 = 0x4d, B
 * (0x33·2 + 0x22·2 + 2) / 4 = 0x2b, A (0xff·2 + 0x11·2 + 2) / 4 = 0x88;
 * (20, 5) has 3 of 4: 0x84, 0x59, 0x2f, 0xc4. The frame is the same bytes
 * for 1, 2 and 4 threads. With decimate 1x the store takes sample 0. */
static void test_ms_render_resolves_coverage(void **s) {
  (void)s;
  static uint32_t px[3][64 * 40];
  render_ms_triangle(px[0], 1, 1, 1);
  render_ms_triangle(px[1], 2, 1, 1);
  render_ms_triangle(px[2], 4, 1, 1);
  assert_memory_equal(px[0], px[1], sizeof px[0]);
  assert_memory_equal(px[0], px[2], sizeof px[0]);
  assert_int_equal(px[0][10 * 64 + 10], 0x882b4d6fu);
  assert_int_equal(px[0][5 * 64 + 20], 0xc42f5984u);
  assert_int_equal(px[0][20 * 64 + 20], 0xff336699u);
  assert_int_equal(px[0][10 * 64 + 9], 0x11223344u);
  int32_t x[3], y[3];
  ms_tri_fixed(x, y);
  unsigned partial = 0;
  for (int py = 0; py < 40; py++)
    for (int qx = 0; qx < 64; qx++) {
      unsigned m = fill_rule_ms_mask(x, y, qx, py), n = (m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1);
      uint32_t want = blend4(0xff336699u, 0x11223344u, n);
      partial += n > 0 && n < 4;
      if (px[0][py * 64 + qx] != want)
        fail_msg("pixel (%d, %d): 0x%08x, want 0x%08x (%u samples)", qx, py, px[0][py * 64 + qx], want, n);
    }
  assert_true(partial > 60);
  render_ms_triangle(px[1], 2, 0, 1); /* decimate 1x: sample 0 */
  for (int py = 0; py < 40; py++)
    for (int qx = 0; qx < 64; qx++) {
      uint32_t want = (fill_rule_ms_mask(x, y, qx, py) & 1) ? 0xff336699u : 0x11223344u;
      if (px[1][py * 64 + qx] != want) fail_msg("sample 0 of (%d, %d): 0x%08x, want 0x%08x", qx, py, px[1][py * 64 + qx], want);
    }
  /* oversample off on 4x tiles: the centre decides, a covered pixel gets
   * all 4 samples, so the average is the colour itself */
  render_ms_triangle(px[1], 2, 1, 0);
  for (int py = 0; py < 40; py++)
    for (int qx = 0; qx < 64; qx++) {
      uint32_t want = fill_rule_covers(x, y, qx, py) ? 0xff336699u : 0x11223344u;
      if (px[1][py * 64 + qx] != want) fail_msg("centre of (%d, %d): 0x%08x, want 0x%08x", qx, py, px[1][py * 64 + qx], want);
    }
}

/* Writes MS_FLAGS (ra42) as the colour of every covered sample. */
static const char fs_ms_flags[] =
    "    mov r0, ms_mask\n"
    "    mov tlb_colour_all, r0\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Writes 0x10 + k to the k-th TLB_COLOUR_MS write, k = 0..3. */
static const char fs_ms_order[] =
    "    ldi r0, 0x10\n"
    "    ldi r1, 1\n"
    "    mov tlb_colour_ms, r0\n"
    "    add r0, r0, r1\n"
    "    mov tlb_colour_ms, r0\n"
    "    add r0, r0, r1\n"
    "    mov tlb_colour_ms, r0\n"
    "    add r0, r0, r1\n"
    "    mov tlb_colour_ms, r0\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Depth test with rb15, then MS_FLAGS after it (2 instructions later) as
 * the colour: the samples that passed. */
static const char fs_z_then_flags[] =
    "    mov tlb_z, rb15\n"
    "    nop\n"
    "    nop\n"
    "    mov r0, ms_mask\n"
    "    mov tlb_colour_all, r0\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* Sample s of pixel (x, y) in the dumps (26) of a 4x multisample frame of
 * 32x32 tiles: the tile's dump, then the 2x2-quad offset of reference/
 * vc4.md §3.7. */
static uint32_t dumped(frame *f, int x, int y, int smp, int zs) {
  uint32_t tile = (uint32_t)(y / 32) * f->tx + (uint32_t)(x / 32), lx = (uint32_t)x % 32, ly = (uint32_t)y % 32, v;
  uint32_t off = (ly & ~1u) * 32 * 4 * 4 + (lx & ~1u) * 2 * 4 * 4 + ((ly & 1) * 8 | (lx & 1) * 4) + (uint32_t)smp * 16;
  assert_int_equal(gs_mem_read(f->m, f->dump + tile * 2 * TLB_FULL_BYTES + (zs ? TLB_FULL_BYTES : 0) + off, &v, 4, NULL),
                   GS_OK);
  return v;
}

/* MS_FLAGS in the payload (the 4-bit mask of the covered samples), the
 * fixed order of TLB_COLOUR_MS writes, and the depth test per sample with
 * MS_FLAGS updated by TLB_Z, all read back from full-resolution dumps: a
 * covered sample holds what the shader wrote, the others the clear colour.
 * Depth: a near square [0, 20.25) x [0, 40) (Z 0.25) first, then the
 * triangle (Z 0.5) with the test "less": where the square covers a sample
 * the triangle fails there, so its MS_FLAGS lose that bit; Z is the pixel
 * centre's for all samples (docs/rasterization.md). The same with early Z,
 * which drops the failing samples before the shader runs. */
static void test_ms_flags_order_and_depth(void **s) {
  (void)s;
  int32_t x[3], y[3];
  ms_tri_fixed(x, y);
  static const double sq[6][2] = {{0, 0}, {20.25, 0}, {20.25, 40}, {0, 0}, {20.25, 40}, {0, 40}};
  for (int run = 0; run < 4; run++) {
    int which = run < 3 ? run : 2, early_z = run == 3; /* the depth case again with early Z */
    frame f;
    frame_init_mode(&f, 64, 40, 1, 0);
    f.dump = alloc(&f, 4 * 2 * TLB_FULL_BYTES, 16);
    gs_addr tri = nv_vertices(&f, ms_tri, 3, 0.5f);
    const char *fs = which == 0 ? fs_ms_flags : which == 1 ? fs_ms_order : fs_z_then_flags;
    gs_addr rec = nv_record(&f, put_code(&f, fs), f.unif, tri, 0);
    bin_begin(&f, which == 2 ? 1 : 7, which == 2, (unsigned)early_z);
    if (which == 2) {
      static const uint32_t white = 0xffffffffu;
      bin_nv_shader(&f, nv_record(&f, put_code(&f, fs_depth), put_bytes(&f, &white, 4, 4), nv_vertices(&f, sq, 6, 0.25f), 0));
      bin_arrays(&f, 4, 6, 0);
    }
    bin_nv_shader(&f, rec);
    bin_arrays(&f, 4, 3, 0);
    bin_finish(&f);
    render_list(&f, 0xeeeeeeeeu, 0xFFFFFF);
    run_ok(&f, 2);
    for (int py = 0; py < 40; py++)
      for (int qx = 0; qx < 64; qx++) {
        unsigned m = fill_rule_ms_mask(x, y, qx, py);
        /* the square's samples: X < 20.25·16 = 324 (its right edge is exclusive) */
        unsigned sqm = 0;
        for (int smp = 0; smp < 4; smp++) sqm |= (unsigned)(16 * qx + (int)((0xA2E6u >> (4 * smp)) & 15) < 324) << smp;
        unsigned pass = which == 2 ? m & ~sqm : m;
        for (int smp = 0; smp < 4; smp++) {
          uint32_t want = !(pass >> smp & 1) ? (which == 2 && (sqm >> smp & 1) ? 0xffffffffu : 0xeeeeeeeeu)
                          : which == 0 ? m : which == 1 ? 0x10u + (uint32_t)smp : pass;
          uint32_t got = dumped(&f, qx, py, smp, 0);
          if (got != want)
            fail_msg("case %d (early Z %d): sample %d of (%d, %d) = 0x%08x, want 0x%08x", which, early_z, smp, qx, py,
                     got, want);
        }
        if (which == 2 && m && !(m & ~sqm) && (m & sqm) != 0) /* all its samples behind the square */
          assert_int_equal(dumped(&f, qx, py, 3, 1) >> 8, 0x400000u);
      }
    frame_free(&f);
  }
}

/* 64-bit colour (64x32 tiles, 100x70: 2 x 3 tiles): 114's 64 bits clear
 * (R 0.25, G 0.5 | B 0.75, A 1.0); the shader writes RG then BA with two
 * TLB_COLOUR_ALL writes (R 1.0, G 2.0 | B -1.0, A 0.5); the store writes
 * 8 bytes per pixel, RGBA16F. With 4x multisampling too (32x16 tiles,
 * 4 x 5) and decimate 4x, a pixel with 2 of 4 samples averages the halves:
 * R (1 + 0.25) / 2 = 0.625 = 0x3900, G 1.25 = 0x3d00, B -0.125 = 0xb000,
 * A 0.75 = 0x3a00. */
static const char fs_colour64[] =
    "    ldi r0, 0x40003c00       # RG16F: R 1.0, G 2.0\n"
    "    ldi r1, 0x3800bc00       # BA16F: B -1.0, A 0.5\n"
    "    mov tlb_colour_all, r0\n"
    "    mov tlb_colour_all, r1\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

static void test_colour64_render(void **s) {
  (void)s;
  int32_t x[3], y[3];
  ms_tri_fixed(x, y);
  for (unsigned ms = 0; ms < 2; ms++) {
    frame f;
    frame_init_mode(&f, 100, 70, ms, 1);
    assert_int_equal(f.tx, ms ? 4 : 2);
    assert_int_equal(f.ty, ms ? 5 : 3);
    f.clear_hi = 0x3c003a00u;
    gs_addr rec = nv_record(&f, put_code(&f, fs_colour64), f.unif, nv_vertices(&f, ms_tri, 3, 0.5f), 0);
    bin_begin(&f, 7, 0, 0);
    bin_nv_shader(&f, rec);
    bin_arrays(&f, 4, 3, 0);
    bin_finish(&f);
    render_list(&f, 0x38003400u, 0xFFFFFF);
    run_ok(&f, 2);
    static const uint16_t in[4] = {0x3c00, 0x4000, 0xbc00, 0x3800}, out[4] = {0x3400, 0x3800, 0x3a00, 0x3c00};
    static const uint16_t half2[4] = {0x3900, 0x3d00, 0xb000, 0x3a00};
    for (int py = 0; py < 70; py++)
      for (int qx = 0; qx < 100; qx++) {
        uint16_t got[4];
        assert_int_equal(gs_mem_read(f.m, f.fb + ((uint32_t)py * 100 + (uint32_t)qx) * 8, got, 8, NULL), GS_OK);
        unsigned m = ms ? fill_rule_ms_mask(x, y, qx, py) : (unsigned)fill_rule_covers(x, y, qx, py) * 15u;
        const uint16_t *want = m == 15 ? in : m == 0 ? out : NULL;
        if (m == 0xA || m == 0x5 || m == 0x3 || m == 0xC || m == 0x6 || m == 0x9) want = half2;
        if (!want) continue; /* 1 or 3 samples: test_tlb.c checks that rounding */
        for (int c = 0; c < 4; c++)
          if (got[c] != want[c]) fail_msg("ms %u, pixel (%d, %d) channel %d: 0x%04x, want 0x%04x", ms, qx, py, c, got[c], want[c]);
      }
    frame_free(&f);
  }
}

/* A 4x frame dumped per tile (every sample, test above) with 26, or with
 * 28's full dump (buffer 5) when `general`; *dump receives the dumps. Then
 * a rendering list alone reloads each tile's dump with 27 (29's full
 * reload) and stores it resolved (24/25) into *out. `disable` sets 28's
 * disable-dump bits (1 colour, 2 Z/stencil) and 29's disable-load bits
 * (4 colour, 8 Z/stencil); the dump starts as bytes 0xAB. The reloading
 * list has no Clear Colors (114): its clear colour is 0. */
#define MS_DUMP_BYTES (4 * 2 * TLB_FULL_BYTES)
static void ms_dump_reload(int general, unsigned disable, uint8_t *dump, uint32_t *out) {
  frame f;
  frame_init_mode(&f, 64, 40, 1, 0);
  f.dump = alloc(&f, MS_DUMP_BYTES, 16);
  f.dump_general = (unsigned)general;
  memset(dump, 0xAB, MS_DUMP_BYTES);
  assert_int_equal(gs_mem_write(f.m, f.dump, dump, MS_DUMP_BYTES, NULL), GS_OK);
  gs_addr rec = nv_record(&f, put_code(&f, fs_constant), f.unif, nv_vertices(&f, ms_tri, 3, 0.5f), 0);
  bin_begin(&f, 7, 0, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  render_list(&f, 0x11223344u, 0xFFFFFF);
  if (general && (disable & 3)) { /* set 28's disable bits in every store */
    for (gs_addr a = f.render; a < f.render_end; a++) {
      uint8_t id;
      gs_mem_read(f.m, a, &id, 1, NULL);
      if (id != GS_CL_STORE_TILE_BUFFER_GENERAL) continue;
      uint8_t word;
      gs_mem_read(f.m, a + 3, &word, 1, NULL);
      word = (uint8_t)(word | (disable & 3));
      gs_mem_write(f.m, a + 3, &word, 1, NULL);
      a += 6;
    }
  }
  run_ok(&f, 2);
  assert_int_equal(gs_mem_read(f.m, f.dump, dump, MS_DUMP_BYTES, NULL), GS_OK);
  gs_cl_writer w;
  gs_cl_writer_init(&w, f.m, f.render, 8192);
  gs_cl_tile_rendering_mode_configuration rc = {.address = f.fb, .width = 64, .height = 40, .ms4x = 1,
                                                .color_format = 1, .decimate = 1};
  check(&f, gs_cl_emit_tile_rendering_mode_configuration(&w, &rc, &f.d));
  for (uint32_t y = 0; y < f.ty; y++)
    for (uint32_t x = 0; x < f.tx; x++) {
      gs_addr a = f.dump + (y * f.tx + x) * 2 * TLB_FULL_BYTES;
      if (general) {
        gs_cl_load_tile_buffer_general lg = {.buffer = GS_CL_BUFFER_FULL, .address = a,
                                             .disable_color_load = disable >> 2 & 1,
                                             .disable_zs_load = disable >> 3 & 1};
        check(&f, gs_cl_emit_load_tile_buffer_general(&w, &lg, &f.d));
      } else {
        gs_cl_reload_full_resolution_tile_buffer lf = {.address = a};
        check(&f, gs_cl_emit_reload_full_resolution_tile_buffer(&w, &lf, &f.d));
      }
      gs_cl_tile_coordinates tc = {x, y};
      check(&f, gs_cl_emit_tile_coordinates(&w, &tc, &f.d));
      int last = x + 1 == f.tx && y + 1 == f.ty;
      check(&f, gs_cl_put_id(&w, last ? GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF
                                      : GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER, NULL, &f.d));
    }
  f.bin_end = f.bin, f.render_end = w.cur;
  run_ok(&f, 2);
  assert_int_equal(gs_mem_read(f.m, f.fb, out, 64 * 40 * 4, NULL), GS_OK);
  frame_free(&f);
}

/* 26 then 27 by a rendering list alone: the same bytes as resolving in
 * the first pass. */
static void test_ms_dump_and_reload(void **s) {
  (void)s;
  static uint32_t want[64 * 40], got[64 * 40];
  static uint8_t dump[MS_DUMP_BYTES];
  render_ms_triangle(want, 1, 1, 1);
  ms_dump_reload(0, 0, dump, got);
  assert_memory_equal(got, want, sizeof got);
}

/* Store / Load Tile Buffer General (28/29) with buffer 5 (full dump and
 * reload) write and read 26/27's bytes at the packet's own address; 28's
 * disable bits leave their part of the dump as it was, 29's leave their
 * buffer cleared (the resolved store then shows the clear colour). */
static void test_general_full_dump_and_reload(void **s) {
  (void)s;
  static uint32_t want[64 * 40], got[64 * 40];
  static uint8_t dump26[MS_DUMP_BYTES], dump28[MS_DUMP_BYTES];
  render_ms_triangle(want, 1, 1, 1);
  ms_dump_reload(0, 0, dump26, got);
  ms_dump_reload(1, 0, dump28, got);
  assert_memory_equal(dump28, dump26, MS_DUMP_BYTES);
  assert_memory_equal(got, want, sizeof got);
  /* 28 without Z/stencil: colour as 26's, the Z/stencil part untouched */
  ms_dump_reload(1, 2, dump28, got);
  for (uint32_t t = 0; t < 4; t++) {
    const uint8_t *a = dump28 + t * 2 * TLB_FULL_BYTES, *b = dump26 + t * 2 * TLB_FULL_BYTES;
    assert_memory_equal(a, b, TLB_FULL_BYTES);
    for (uint32_t k = 0; k < TLB_FULL_BYTES; k++)
      if (a[TLB_FULL_BYTES + k] != 0xAB) fail_msg("tile %u: Z/stencil byte %u dumped though disabled", t, k);
  }
  /* 28 without colour, 29 without colour: every pixel the reloading list's
   * clear colour (0: it has no 114) */
  ms_dump_reload(1, 1 | 4, dump28, got);
  for (uint32_t t = 0; t < 4; t++)
    for (uint32_t k = 0; k < TLB_FULL_BYTES; k++)
      if (dump28[t * 2 * TLB_FULL_BYTES + k] != 0xAB) fail_msg("tile %u: colour byte %u dumped though disabled", t, k);
  for (uint32_t k = 0; k < 64 * 40; k++)
    if (got[k] != 0) fail_msg("pixel %u = 0x%08x: colour reloaded though disabled", k, got[k]);
}

/* The rendering list of an MS frame with Store General (28) stores per
 * tile: colour with mode `mode_a` to fb, colour with `mode_b` to fb2,
 * Z/stencil to zbuf (nothing cleared before the last). */
typedef struct general_stores {
  unsigned mode_a, mode_b;
  gs_addr fb2, zbuf;
} general_stores;

static void ms_general_tile_stores(frame *f, gs_cl_writer *w, uint32_t x, uint32_t y, const void *ctx) {
  const general_stores *g = ctx;
  gs_cl_store_tile_buffer_general a = {.buffer = 1, .mode = g->mode_a, .address = f->fb, .disable_color_clear = 1,
                                       .disable_zs_clear = 1};
  gs_cl_store_tile_buffer_general b = {.buffer = 1, .mode = g->mode_b, .address = g->fb2, .disable_color_clear = 1,
                                       .disable_zs_clear = 1};
  gs_cl_store_tile_buffer_general z = {.buffer = 2, .address = g->zbuf, .last_tile = x + 1 == f->tx && y + 1 == f->ty};
  check(f, gs_cl_emit_store_tile_buffer_general(w, &a, &f->d));
  check(f, gs_cl_emit_store_tile_buffer_general(w, &b, &f->d));
  check(f, gs_cl_emit_store_tile_buffer_general(w, &z, &f->d));
}

static void ms_general_stores(frame *f, unsigned mode_a, unsigned mode_b, gs_addr fb2, gs_addr zbuf) {
  general_stores g = {mode_a, mode_b, fb2, zbuf};
  render_list_with(f, 0x11223344u, 0xFFFFFF, ms_general_tile_stores, &g);
}

/* Store General on an MS tile: mode 1 (decimate 4x) gives the averages,
 * mode 0 sample 0, and the Z/stencil store sample 0's word: Z 0.5 =
 * 0x800000 where the triangle covers sample 0 (Z at the pixel centre
 * for every sample), the clear Z elsewhere. Mode 2 (16x) is refused. */
static void test_ms_store_general(void **s) {
  (void)s;
  int32_t x[3], y[3];
  ms_tri_fixed(x, y);
  frame f;
  frame_init_mode(&f, 64, 40, 1, 0);
  gs_addr fb2 = alloc(&f, 64 * 40 * 4, 16), zbuf = alloc(&f, 64 * 40 * 4, 16);
  gs_addr rec = nv_record(&f, put_code(&f, fs_depth), put_bytes(&f, (uint32_t[]){0xff336699u}, 4, 4),
                          nv_vertices(&f, ms_tri, 3, 0.5f), 0);
  bin_begin(&f, 7, 1, 0);
  bin_nv_shader(&f, rec);
  bin_arrays(&f, 4, 3, 0);
  bin_finish(&f);
  ms_general_stores(&f, 1, 0, fb2, zbuf);
  run_ok(&f, 2);
  for (int py = 0; py < 40; py++)
    for (int qx = 0; qx < 64; qx++) {
      unsigned m = fill_rule_ms_mask(x, y, qx, py), n = (m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1);
      uint32_t at = 4 * ((uint32_t)py * 64 + (uint32_t)qx), a, b, z;
      gs_mem_read(f.m, f.fb + at, &a, 4, NULL);
      gs_mem_read(f.m, fb2 + at, &b, 4, NULL);
      gs_mem_read(f.m, zbuf + at, &z, 4, NULL);
      assert_int_equal(a, blend4(0xff336699u, 0x11223344u, n));
      assert_int_equal(b, (m & 1) ? 0xff336699u : 0x11223344u);
      assert_int_equal(z >> 8, (m & 1) ? 0x800000u : 0xFFFFFFu);
    }
  ms_general_stores(&f, 2, 0, fb2, zbuf);
  expect_error(&f, 1, GS_EINVAL, "rendering list|STORE_TILE_BUFFER_GENERAL|mode 2 (decimate 16x)|coverage mode only");
  frame_free(&f);
}

/* Multisampling and 64-bit colour errors name their packet: the frame
 * buffer's size counts 8 bytes per pixel; 4x oversampling on normal tiles,
 * 113's decimate 16x and 28's decimate 16x are refused. */
static void test_ms_and_colour64_errors(void **s) {
  (void)s;
  char want[160], a[16];
  frame f;
  /* a 64-bit frame buffer allocated at 4 bytes per pixel */
  frame_init_mode(&f, 100, 70, 0, 1);
  f.fb = alloc(&f, 100 * 70 * 4, 16);
  simple_frame(&f, fs_colour64);
  bin_finish(&f);
  render_list(&f, 0, 0xFFFFFF);
  snprintf(want, sizeof want, "STORE_MS_RESOLVED_TILE_COLOR_BUFFER|%s|56000 bytes|outside allocated", hex(a, f.fb));
  expect_error(&f, 1, GS_EFAULT, want);
  frame_free(&f);
  /* mode settings the executor refuses, each naming its packet */
  static const struct {
    unsigned ms, oversample, decimate;
    const char *want;
  } bad[] = {
      {0, 1, 0, "binning list|VERTEX_ARRAY_PRIMITIVES|rasteriser oversample 4x without 4x multisample"},
      {1, 2, 0, "oversample 16x|coverage mode"},
      {1, 0, 2, "rendering list|TILE_RENDERING_MODE_CONFIGURATION|decimate 2 (decimate 16x)|coverage mode only"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    frame_init_mode(&f, 64, 64, bad[i].ms, 0);
    f.oversample = bad[i].oversample, f.decimate = bad[i].decimate;
    simple_frame(&f, fs_constant);
    bin_finish(&f);
    render_list(&f, 0, 0xFFFFFF);
    expect_error(&f, 1, GS_EINVAL, bad[i].want);
    frame_free(&f);
  }
}

/* ---- (g) OpenVG: VG shader state, XY primitives ---------------------------------- */

/* A VG shader record (reference §4.7) for fragment shader fs. */
static gs_addr vg_record(frame *f, gs_addr fs, gs_addr fs_unif, unsigned nvary) {
  gs_cl_vg_shader_record r = {.fs_single_threaded = 1, .fs_varyings = nvary, .fs_code = fs, .fs_uniforms = fs_unif};
  uint8_t b[12];
  check(f, gs_cl_pack_vg_shader_record(b, sizeof b, &r, &f->d));
  return put_bytes(f, b, sizeof b, 16);
}

static void bin_vg_shader(frame *f, gs_addr rec) {
  gs_cl_vg_shader_state st = {rec};
  check(f, gs_cl_emit_vg_shader_state(&f->w, &st, &f->d));
}

/* The XY word of (x, y) pixels: 12.4, Xs in bits 15:0, Ys in 31:16. */
static uint32_t vg_xy(double x, double y) { return GS_CL_XY(lround(x * 16), lround(y * 16)); }

enum { VG_ARRAY, VG_INLINE, VG_INLINE_PADDED };

/* A VG draw of type 4 (triangles) or 6 (fan) over the vertices xy[0..n)
 * (pixels): a 41 array, or 42 inline words (padded: a padding word before
 * every odd vertex). */
static void vg_draw(frame *f, unsigned type, const double (*xy)[2], unsigned n, int how) {
  uint32_t w[64];
  unsigned m = 0;
  for (unsigned i = 0; i < n; i++) {
    if (how == VG_INLINE_PADDED && i % 2) w[m++] = GS_CL_VG_PADDING;
    w[m++] = vg_xy(xy[i][0], xy[i][1]);
  }
  if (how != VG_ARRAY) {
    check(f, gs_cl_put_vg_inline(&f->w, type, 0, w, m, &f->d));
    return;
  }
  gs_cl_vg_coordinate_array_primitives va = {type, 0, type == 4 ? n / 3 : n - 2, put_bytes(f, w, 4 * n, 4)};
  check(f, gs_cl_emit_vg_coordinate_array_primitives(&f->w, &va, &f->d));
}

/* Two triangles (the second clockwise), then a fan of five around a centre,
 * its rim points close enough for the relative XY codings (reference §4.4):
 * over the six 64x64 tiles of a 150x100 frame. */
static const double vg_tris[6][2] = {{3.25, 2.5}, {120.5, 17.0625}, {40.0, 66.5},
                                     {70.5, 90.5}, {146.0, 98.0}, {100.0, 30.5}};
static const double vg_fan[7][2] = {{80.25, 50.5}, {110, 22.125}, {130.5, 40},     {135, 65.75},
                                    {110.5, 80},   {85, 97.5},    {60.25, 80.0625}};
#define VG_PRIMS 7

/* Triangle k of the scene in submission order, as 12.4 corners in the
 * order the draw assembles them (fans: centre, k+1, k+2). */
static void vg_triangle(unsigned k, int32_t x[3], int32_t y[3]) {
  for (unsigned i = 0; i < 3; i++) {
    const double *v = k < 2 ? vg_tris[3 * k + i] : vg_fan[i == 0 ? 0 : k - 2 + i];
    x[i] = (int32_t)lround(v[0] * 16), y[i] = (int32_t)lround(v[1] * 16);
  }
}

/* Does triangle k cover a pixel centre of tile t of f's frame? */
static int vg_in_tile(const frame *f, unsigned k, uint32_t t) {
  int32_t x[3], y[3];
  vg_triangle(k, x, y);
  uint32_t x0 = t % f->tx * 64, y0 = t / f->tx * 64;
  for (uint32_t py = y0; py < y0 + 64 && py < f->height; py++)
    for (uint32_t px = x0; px < x0 + 64 && px < f->width; px++)
      if (fill_rule_covers(x, y, (int)px, (int)py)) return 1;
  return 0;
}

/* Walks tile t's list as the rendering pass would: it must select a VG
 * shader state and PRIMITIVE_LIST_FORMAT triangles/xy32 before its
 * compressed lists, whose primitives (XY words) go to out[]; *relative
 * counts those encoded relative to the one before (codings 0 and 1). */
static unsigned vg_tile_list(frame *f, uint32_t t, gs_cl_prim *out, unsigned cap, unsigned *relative) {
  gs_cl_view v = {f->m, NULL, 0, 0};
  gs_cl_prim_format fmt = {0, 0};
  gs_addr a = f->tile_alloc + 32 * t;
  unsigned n = 0, shader = 0;
  for (;;) {
    gs_cl_packet p;
    check(f, gs_cl_decode(&v, a, &fmt, 0, &p, &f->d));
    a = p.next;
    switch (p.info->id) {
    case GS_CL_RETURN_FROM_SUB_LIST: return n;
    case GS_CL_BRANCH: a = p.values[0]; break;
    case GS_CL_PRIMITIVE_LIST_FORMAT: fmt = (gs_cl_prim_format){(uint8_t)p.values[0], (uint8_t)p.values[1]}; break;
    case GS_CL_VG_SHADER_STATE:
    case GS_CL_VG_INLINE_SHADER_RECORD: shader = 1; break;
    case GS_CL_COMPRESSED_PRIMITIVE_LIST: {
      assert_true(shader);
      assert_int_equal(fmt.type, GS_CL_PRIM_TRIANGLES);
      assert_int_equal(fmt.data, GS_CL_DATA_XY);
      gs_cl_prim_reader r;
      gs_cl_prim_reader_init(&r, &v, &fmt, p.tail);
      while (!r.done) {
        gs_cl_prim_item it;
        check(f, gs_cl_prim_read(&r, &it, &f->d));
        if (it.kind != GS_CL_ITEM_PRIM) continue;
        assert_true(n < cap);
        out[n++] = it.prim;
        *relative += it.coding < 2;
      }
      break;
    }
    default: break;
    }
  }
}

/* The scene's two draws (41 arrays or 42 inline words) with shader fs,
 * faces as configured, rendered with `threads` threads; *st the counts. */
static void vg_scene(frame *f, int how, unsigned faces, unsigned threads, gs_v3d_stats *st) {
  frame_init(f, 150, 100);
  gs_addr rec = vg_record(f, put_code(f, fs_count), f->unif, 0);
  bin_begin(f, 7, 0, 0);
  gs_cl_configuration_bits cb = {.enable_forward_facing = faces & 1, .enable_reverse_facing = faces >> 1 & 1,
                                 .depth_func = 7};
  check(f, gs_cl_emit_configuration_bits(&f->w, &cb, &f->d));
  bin_vg_shader(f, rec);
  vg_draw(f, 4, vg_tris, 6, how);
  vg_draw(f, 6, vg_fan, 7, how);
  bin_finish(f);
  render_list(f, 0, 0xFFFFFF);
  gs_v3d_options o = {0};
  o.threads = threads;
  if (gs_v3d_run_stats(f->g, f->bin, f->bin_end, f->render, f->render_end, &o, st) < 0)
    fail_msg("%s", gs_gpu_error(f->g));
}

/* VG triangles and a fan, from a 41 array and from 42 inline words (with
 * and without padding), over six tiles: every pixel is shaded as often as
 * the fill rule covers it (the fan's shared edges once), with 1 and 3
 * threads alike; every tile's list holds exactly the triangles that cover
 * one of its pixels, as XY words in submission order, under VG shader
 * state and format triangles/xy32, the fan's mostly in relative codings.
 * With only forward faces enabled the clockwise triangle is culled. */
static void test_vg_triangles_and_fan(void **s) {
  (void)s;
  for (int how = VG_ARRAY; how <= VG_INLINE_PADDED; how++)
    for (unsigned faces = 3; faces; faces >>= 1) { /* both faces, then forward only */
      frame f, g;
      gs_v3d_stats st;
      vg_scene(&f, how, faces, 1, &st);
      vg_scene(&g, how, faces, 3, NULL);
      unsigned culled = faces == 1; /* triangle 1 is clockwise: reverse-facing */
      assert_int_equal(st.prims_binned, VG_PRIMS - culled);
      assert_int_equal(st.cs_vertices, 13);
      for (uint32_t py = 0; py < f.height; py++)
        for (uint32_t px = 0; px < f.width; px++) {
          uint32_t want = 0;
          for (unsigned k = 0; k < VG_PRIMS; k++) {
            int32_t x[3], y[3];
            vg_triangle(k, x, y);
            want += !(culled && k == 1) && fill_rule_covers(x, y, (int)px, (int)py);
          }
          if (pixel(&f, px, py) != want)
            fail_msg("%d/%u: pixel (%u, %u) shaded %u times, want %u", how, faces, px, py, pixel(&f, px, py), want);
          if (pixel(&g, px, py) != want) fail_msg("3 threads: pixel (%u, %u) differs", px, py);
        }
      unsigned relative = 0;
      for (uint32_t t = 0; t < f.tx * f.ty; t++) {
        gs_cl_prim got[VG_PRIMS];
        unsigned n = vg_tile_list(&f, t, got, VG_PRIMS, &relative), m = 0;
        for (unsigned k = 0; k < VG_PRIMS; k++) {
          if ((culled && k == 1) || !vg_in_tile(&f, k, t)) continue;
          if (m >= n) fail_msg("tile %u: triangle %u missing", t, k);
          int32_t x[3], y[3];
          vg_triangle(k, x, y);
          for (unsigned i = 0; i < 3; i++)
            if (got[m].v[i] != GS_CL_XY(x[i], y[i]))
              fail_msg("tile %u, primitive %u, vertex %u: 0x%08x, want 0x%08x", t, m, i, got[m].v[i],
                       GS_CL_XY(x[i], y[i]));
          m++;
        }
        assert_int_equal(n, m);
      }
      assert_true(relative >= 3);
      frame_free(&f);
      frame_free(&g);
    }
}

/* Z24 of the VG Zs 0.5 plus a uniform, and the W payload, as colours. */
static const char fs_vg_z[] =
    "    mov r0, unif\n"
    "    add tlb_colour_all, r0, rb15  # the uniform + Z (24-bit)\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";
static const char fs_vg_w[] =
    "    mov tlb_colour_all, ra15      # W as float bits\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

/* The text gs_cl_dump gives of tile t's list. */
static void dump_tile(frame *f, uint32_t t, char *buf, size_t cap) {
  gs_cl_view v = {f->m, NULL, 0, 0};
  FILE *out = tmpfile();
  assert_non_null(out);
  gs_cl_dump_opts o = {0};
  o.max_depth = 4;
  gs_addr a = f->tile_alloc + 32 * t;
  /* a tile list ends with Return: dump it as a sub-list called from a Branch-to-sub-list */
  uint8_t call[5] = {GS_CL_BRANCH_TO_SUB_LIST, (uint8_t)a, (uint8_t)(a >> 8), (uint8_t)(a >> 16), (uint8_t)(a >> 24)};
  gs_addr c = put_bytes(f, call, 5, 4);
  check(f, gs_cl_dump(&v, c, c + 5, &o, out, &f->d));
  rewind(out);
  size_t n = fread(buf, 1, cap - 1, out);
  buf[n] = '\0';
  fclose(out);
}

/* The VG Inline Shader Record (67) selects the fragment shader and its
 * uniforms in the list itself, and the PTB copies it into the tile lists.
 * A VG fragment shader gets Z = 0.5 (0x800000 in 24 bits) and W = 1.0 in
 * its payload (reference §4.7) over exactly the fill rule's pixels; 1 and
 * 2 threads give the same bytes. */
static void test_vg_inline_shader_record(void **s) {
  (void)s;
  static const double left[3][2] = {{5.5, 4.25}, {60.0625, 10}, {20, 58.5}};
  static const double right[3][2] = {{50.5, 60}, {120.25, 3.75}, {110, 62}};
  uint32_t first[128 * 64];
  for (unsigned threads = 1; threads <= 2; threads++) {
    frame f;
    frame_init(&f, 128, 64);
    static const uint32_t plus = 0x01000000u;
    gs_cl_vg_inline_shader_record z = {put_code(&f, fs_vg_z), 1, put_bytes(&f, &plus, 4, 4)};
    gs_cl_vg_inline_shader_record w = {put_code(&f, fs_vg_w), 0, f.unif};
    bin_begin(&f, 7, 0, 0);
    check(&f, gs_cl_emit_vg_inline_shader_record(&f.w, &z, &f.d));
    vg_draw(&f, 4, left, 3, VG_ARRAY);
    check(&f, gs_cl_emit_vg_inline_shader_record(&f.w, &w, &f.d));
    vg_draw(&f, 4, right, 3, VG_INLINE);
    bin_finish(&f);
    render_list(&f, 0x11223344u, 0xFFFFFF);
    run_ok(&f, threads);
    int32_t lx[3], ly[3], rx[3], ry[3];
    for (int k = 0; k < 3; k++) {
      lx[k] = (int32_t)lround(left[k][0] * 16), ly[k] = (int32_t)lround(left[k][1] * 16);
      rx[k] = (int32_t)lround(right[k][0] * 16), ry[k] = (int32_t)lround(right[k][1] * 16);
    }
    for (uint32_t py = 0; py < 64; py++)
      for (uint32_t px = 0; px < 128; px++) {
        uint32_t want = fill_rule_covers(rx, ry, (int)px, (int)py)   ? 0x3f800000u
                        : fill_rule_covers(lx, ly, (int)px, (int)py) ? 0x01800000u
                                                                     : 0x11223344u;
        uint32_t got = pixel(&f, px, py);
        if (got != want) fail_msg("pixel (%u, %u) = 0x%08x, want 0x%08x", px, py, got, want);
        if (threads == 1) first[py * 128 + px] = got;
        else assert_int_equal(got, first[py * 128 + px]);
      }
    char text[4096];
    dump_tile(&f, 1, text, sizeof text);
    if (!strstr(text, "VG_INLINE_SHADER_RECORD  fs_code=") || !strstr(text, "threading=dual") ||
        !strstr(text, "data_type=xy32") || !strstr(text, "triangle  coding=3 xy=(50.5,60),(120.25,3.75),(110,62)"))
      fail_msg("tile 1's list:\n%s", text);
    frame_free(&f);
  }
}

/* What the reference does not document enough to model is refused, each
 * error naming the packet's address and why. */
static void test_vg_refusals(void **s) {
  (void)s;
  static const double tri[3][2] = {{4, 4}, {40, 4}, {4, 40}};
  char want[256], a[16], b[16];
  frame f;
  /* 41 and 42 types and bits */
  static const struct {
    unsigned id, type, continuation;
    const char *why;
  } bad[] = {
      {41, 1, 0, "VG_COORDINATE_ARRAY_PRIMITIVES: type 1 (RHTs) is not modelled|does not document which pixels"},
      {42, 3, 0, "VG_INLINE_PRIMITIVES: type 3 (RHT strip) is not modelled|does not document which pixels"},
      {41, 2, 0, "type 2 is reserved"},
      {42, 4, 2, "VG_INLINE_PRIMITIVES: continuation bits 0x2: the reference does not document"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    frame_init(&f, 64, 64);
    bin_begin(&f, 7, 0, 0);
    bin_vg_shader(&f, vg_record(&f, put_code(&f, fs_constant), f.unif, 0));
    gs_addr at = f.w.cur;
    uint32_t xy[3] = {vg_xy(4, 4), vg_xy(40, 4), vg_xy(4, 40)};
    if (bad[i].id == 42) {
      check(&f, gs_cl_put_vg_inline(&f.w, bad[i].type, bad[i].continuation, xy, 3, &f.d));
    } else {
      gs_cl_vg_coordinate_array_primitives va = {bad[i].type, bad[i].continuation, 1, put_bytes(&f, xy, 12, 4)};
      check(&f, gs_cl_emit_vg_coordinate_array_primitives(&f.w, &va, &f.d));
    }
    bin_finish(&f);
    render_list(&f, 0, 0xFFFFFF);
    snprintf(want, sizeof want, "binning list|%s|%s", hex(a, at), bad[i].why);
    expect_error(&f, 1, GS_EINVAL, want);
    frame_free(&f);
  }
  /* a VG record with varyings; 67's reserved threading code */
  for (int k = 0; k < 2; k++) {
    frame_init(&f, 64, 64);
    bin_begin(&f, 7, 0, 0);
    gs_addr rec = vg_record(&f, put_code(&f, fs_constant), f.unif, 2);
    gs_cl_vg_inline_shader_record vi = {put_code(&f, fs_constant), 2, f.unif};
    if (k) check(&f, gs_cl_emit_vg_inline_shader_record(&f.w, &vi, &f.d));
    else bin_vg_shader(&f, rec);
    gs_addr at = f.w.cur;
    vg_draw(&f, 4, tri, 3, VG_ARRAY);
    bin_finish(&f);
    render_list(&f, 0, 0xFFFFFF);
    if (k) snprintf(want, sizeof want, "%s|VG_INLINE_SHADER_RECORD: threading code 2 is reserved", hex(a, at));
    else snprintf(want, sizeof want, "%s|VG_SHADER_RECORD at %s declares 2 fragment-shader varyings|does not document",
                  hex(a, at), hex(b, rec));
    expect_error(&f, 1, GS_EINVAL, want);
    frame_free(&f);
  }
  /* VG primitives under an NV shader state, an NV draw under a VG one */
  for (int k = 0; k < 2; k++) {
    frame_init(&f, 64, 64);
    bin_begin(&f, 7, 0, 0);
    if (k) bin_vg_shader(&f, vg_record(&f, put_code(&f, fs_constant), f.unif, 0));
    else bin_nv_shader(&f, nv_record(&f, put_code(&f, fs_constant), f.unif, nv_vertices(&f, tri, 3, 0.5f), 0));
    gs_addr at = f.w.cur;
    if (k) bin_arrays(&f, 4, 3, 0);
    else vg_draw(&f, 4, tri, 3, VG_ARRAY);
    bin_finish(&f);
    render_list(&f, 0, 0xFFFFFF);
    snprintf(want, sizeof want, "%s|%s", hex(a, at), k ? "VERTEX_ARRAY_PRIMITIVES under VG_SHADER_STATE"
                                                     : "VG_COORDINATE_ARRAY_PRIMITIVES under NV_SHADER_STATE");
    expect_error(&f, 1, GS_EINVAL, want);
    frame_free(&f);
  }
  /* 113's VG mask buffer and coverage mode, 28's VG mask buffer */
  for (int k = 0; k < 3; k++) {
    frame_init(&f, 64, 64);
    simple_frame(&f, fs_constant);
    bin_finish(&f);
    render_list(&f, 0, 0xFFFFFF);
    gs_addr at = f.render + 14; /* 113 after the 14-byte 114 */
    uint8_t flags = k == 0 ? 1 : 2; /* flag bits 8 and 9: bits 0 and 1 of 113's byte 10 */
    if (k < 2) assert_int_equal(gs_mem_write(f.m, at + 10, &flags, 1, NULL), GS_OK);
    if (k == 2) { /* the first store (after 115, 8 and 17) becomes 28 with buffer 4 */
      at = f.render + 14 + 11 + 3 + 1 + 5;
      gs_cl_store_tile_buffer_general sg = {.buffer = 4, .address = f.fb};
      uint8_t bytes[7];
      check(&f, gs_cl_pack_store_tile_buffer_general(bytes, sizeof bytes, &sg, &f.d));
      assert_int_equal(gs_mem_write(f.m, at, bytes, 7, NULL), GS_OK);
      f.render_end = at + 7;
    }
    static const char *const why[3] = {
        "TILE_RENDERING_MODE_CONFIGURATION: the VG mask buffer (flag bit 8) is not modelled|does not document",
        "TILE_RENDERING_MODE_CONFIGURATION: coverage mode (flag bit 9) is not modelled|not the sample points",
        "STORE_TILE_BUFFER_GENERAL: buffer 4 (VG mask) is not modelled|does not document"};
    snprintf(want, sizeof want, "rendering list|%s|%s", hex(a, at), why[k]);
    expect_error(&f, 1, GS_EINVAL, want);
    frame_free(&f);
  }
}

/* A rendering list alone draws VG primitives inside a tile: a hand-written
 * XY compressed list (48 after 56 triangles/xy32), 42 inline words and a
 * 41 array, under 66; fs_count shows each pixel as often as the fill rule
 * covers it. The same XY list under an NV shader state (nv 1), or as RHTs
 * (nv 2), is refused, naming the list. */
static void vg_render_only(int nv) {
  static const double t[3][3][2] = {{{2.5, 3}, {50, 6.25}, {9, 60}},
                                    {{60, 62}, {10.0625, 40}, {63, 2}},
                                    {{30, 30}, {40, 30}, {30, 40}}};
  frame f;
  frame_init(&f, 64, 64);
  gs_addr fs = put_code(&f, fs_count);
  gs_cl_writer w;
  gs_cl_writer_init(&w, f.m, f.render, 8192);
  gs_cl_tile_rendering_mode_configuration rc = {.address = f.fb, .width = 64, .height = 64, .color_format = 1};
  check(&f, gs_cl_emit_tile_rendering_mode_configuration(&w, &rc, &f.d));
  gs_cl_tile_coordinates tc = {0, 0};
  check(&f, gs_cl_emit_tile_coordinates(&w, &tc, &f.d));
  gs_cl_primitive_list_format pf = {nv == 2 ? GS_CL_PRIM_RHTS : GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY};
  check(&f, gs_cl_emit_primitive_list_format(&w, &pf, &f.d));
  if (nv == 1) {
    gs_cl_nv_shader_state st = {nv_record(&f, fs, f.unif, nv_vertices(&f, t[0], 3, 0.5f), 0)};
    check(&f, gs_cl_emit_nv_shader_state(&w, &st, &f.d));
  } else {
    gs_cl_vg_shader_state st = {vg_record(&f, fs, f.unif, 0)};
    check(&f, gs_cl_emit_vg_shader_state(&w, &st, &f.d));
  }
  gs_addr list = w.cur;
  check(&f, gs_cl_put_id(&w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, &f.d));
  gs_cl_prim prim = {{vg_xy(t[0][0][0], t[0][0][1]), vg_xy(t[0][1][0], t[0][1][1]), vg_xy(t[0][2][0], t[0][2][1])}};
  check(&f, gs_cl_put_prim(&w, &prim, &f.d)); /* an RHT list takes the first two */
  check(&f, gs_cl_end_list(&w, &f.d));
  uint32_t xy[3];
  for (int k = 0; k < 3; k++) xy[k] = vg_xy(t[1][k][0], t[1][k][1]);
  check(&f, gs_cl_put_vg_inline(&w, 4, 0, xy, 3, &f.d));
  for (int k = 0; k < 3; k++) xy[k] = vg_xy(t[2][k][0], t[2][k][1]);
  gs_cl_vg_coordinate_array_primitives va = {4, 0, 1, put_bytes(&f, xy, 12, 4)};
  check(&f, gs_cl_emit_vg_coordinate_array_primitives(&w, &va, &f.d));
  check(&f, gs_cl_put_id(&w, GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF, NULL, &f.d));
  f.bin_end = f.bin, f.render_end = w.cur;
  if (nv) {
    char want[200], a[16];
    snprintf(want, sizeof want, "tile (0, 0)|%s|COMPRESSED_PRIMITIVE_LIST: %s", hex(a, list),
             nv == 1 ? "a list of XY coordinates under NV_SHADER_STATE"
                     : "a list of RHTs (PRIMITIVE_LIST_FORMAT type 3) is not modelled|does not document");
    expect_error(&f, 1, GS_EINVAL, want);
    frame_free(&f);
    return;
  }
  run_ok(&f, 1);
  for (uint32_t py = 0; py < 64; py++)
    for (uint32_t px = 0; px < 64; px++) {
      uint32_t want = 0;
      for (int k = 0; k < 3; k++) {
        int32_t x[3], y[3];
        for (int i = 0; i < 3; i++) x[i] = (int32_t)lround(t[k][i][0] * 16), y[i] = (int32_t)lround(t[k][i][1] * 16);
        want += (uint32_t)fill_rule_covers(x, y, (int)px, (int)py);
      }
      if (pixel(&f, px, py) != want) fail_msg("pixel (%u, %u) shaded %u times, want %u", px, py, pixel(&f, px, py), want);
    }
  frame_free(&f);
}

static void test_vg_render_only(void **s) {
  (void)s;
  vg_render_only(0);
  vg_render_only(1);
  vg_render_only(2);
}

/* A VG triangle strip (type 5) from a 41 array and from 42 inline words,
 * under a clip window smaller than the frame that the PTB and the PSE both
 * apply: each pixel inside the window is shaded as often as the fill rule
 * covers it by the strip's triangles (once: they share edges), the rest
 * not at all. */
static void test_vg_strip_clip_window(void **s) {
  (void)s;
  static const double strip[6][2] = {{5, 10.5}, {20.25, 55}, {45, 4}, {70.5, 60}, {95, 8.125}, {125, 50}};
  for (int how = VG_ARRAY; how <= VG_INLINE; how++) {
    frame f;
    frame_init(&f, 128, 64);
    gs_addr rec = vg_record(&f, put_code(&f, fs_count), f.unif, 0);
    bin_begin(&f, 7, 0, 0);
    gs_cl_clip_window cw = {12, 6, 90, 40}; /* pixels [12, 102) x [6, 46) */
    check(&f, gs_cl_emit_clip_window(&f.w, &cw, &f.d));
    bin_vg_shader(&f, rec);
    vg_draw(&f, 5, strip, 6, how);
    bin_finish(&f);
    render_list(&f, 0, 0xFFFFFF);
    run_ok(&f, 2);
    for (uint32_t py = 0; py < 64; py++)
      for (uint32_t px = 0; px < 128; px++) {
        uint32_t want = 0;
        for (int k = 0; k < 4 && px >= 12 && px < 102 && py >= 6 && py < 46; k++) {
          int32_t x[3], y[3];
          for (int i = 0; i < 3; i++)
            x[i] = (int32_t)lround(strip[k + i][0] * 16), y[i] = (int32_t)lround(strip[k + i][1] * 16);
          want += (uint32_t)fill_rule_covers(x, y, (int)px, (int)py);
        }
        if (pixel(&f, px, py) != want)
          fail_msg("%d: pixel (%u, %u) shaded %u times, want %u", how, px, py, pixel(&f, px, py), want);
      }
    frame_free(&f);
  }
}

/* The VG mask and coverage from a fragment shader: loadam, loadcv and a
 * write to the alpha-mask register fail naming the tile, the list and the
 * shader's pc. */
static void test_vg_mask_shader_refusals(void **s) {
  (void)s;
  static const char *const fs[3] = {
      "    nop ; nop ; loadam\n    mov tlb_colour_all, r4\n    thrend\n    nop\n    nop\n",
      "    nop ; nop ; loadcv\n    mov tlb_colour_all, r4\n    thrend\n    nop\n    nop\n",
      "    mov tlb_alpha_mask, 1.0\n    thrend\n    nop\n    nop\n"};
  static const char *const why[3] = {"loadam: coverage and alpha-mask loads (signals 7 and 12) are not modelled",
                                     "loadcv: coverage and alpha-mask loads", "VG alpha mask (register 47)"};
  static const double tri[3][2] = {{4, 4}, {40, 4}, {4, 40}};
  for (int k = 0; k < 3; k++) {
    frame f;
    frame_init(&f, 64, 64);
    bin_begin(&f, 7, 0, 0);
    bin_vg_shader(&f, vg_record(&f, put_code(&f, fs[k]), f.unif, 0));
    vg_draw(&f, 4, tri, 3, VG_ARRAY);
    bin_finish(&f);
    render_list(&f, 0, 0xFFFFFF);
    char want[256];
    snprintf(want, sizeof want, "rendering list|tile (0, 0)|fragment shader at|QPU 0 at pc 0x|%s", why[k]);
    expect_error(&f, 1, GS_EINVAL, want);
    frame_free(&f);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_nv_rectangle_exact_area),
      cmocka_unit_test(test_nv_triangles_fill_rule),
      cmocka_unit_test(test_gl_varying_barycentric),
      cmocka_unit_test(test_sph_linkage),
      cmocka_unit_test(test_linkage_per_record),
      cmocka_unit_test(test_sph_gates),
      cmocka_unit_test(test_isa_registry_and_unit),
      cmocka_unit_test(test_fragment_reads),
      cmocka_unit_test(test_depth_nearer_wins),
      cmocka_unit_test(test_threads_identical),
      cmocka_unit_test(test_gl_near_plane_clipping),
      cmocka_unit_test(test_tile_lists_chain),
      cmocka_unit_test(test_render_only_loads_and_stores),
      cmocka_unit_test(test_full_resolution_dump_and_reload),
      cmocka_unit_test(test_tile_buffer_carries_over),
      cmocka_unit_test(test_clear_values_per_tile),
      cmocka_unit_test(test_rewritten_shader),
      cmocka_unit_test(test_shader_rewritten_by_itself),
      cmocka_unit_test(test_nv_flat_varying),
      cmocka_unit_test(test_points_and_lines),
      cmocka_unit_test(test_strip_and_flush_all_state),
      cmocka_unit_test(test_interpolation_modes),
      cmocka_unit_test(test_render_fp_environments),
      cmocka_unit_test(test_semaphores_both_ways_and_halt),
      cmocka_unit_test(test_bench_frames),
      cmocka_unit_test(test_bad_binning_lists),
      cmocka_unit_test(test_bad_rendering_lists),
      cmocka_unit_test(test_bad_store_writes_nothing),
      cmocka_unit_test(test_faulting_fragment_shader),
      cmocka_unit_test(test_fuzzed_lists),
      cmocka_unit_test(test_ms_render_resolves_coverage),
      cmocka_unit_test(test_ms_flags_order_and_depth),
      cmocka_unit_test(test_colour64_render),
      cmocka_unit_test(test_ms_store_general),
      cmocka_unit_test(test_ms_dump_and_reload),
      cmocka_unit_test(test_general_full_dump_and_reload),
      cmocka_unit_test(test_ms_and_colour64_errors),
      cmocka_unit_test(test_vg_triangles_and_fan),
      cmocka_unit_test(test_vg_inline_shader_record),
      cmocka_unit_test(test_vg_refusals),
      cmocka_unit_test(test_vg_render_only),
      cmocka_unit_test(test_vg_strip_clip_window),
      cmocka_unit_test(test_vg_mask_shader_refusals),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
