/* test_driver.c — the driver's control lists, decoded with the packet table
 * and checked packet by packet against values worked out by hand: tile
 * counts for the target size, the viewport centre in 12.4, the clipper
 * scaling (×16), the GL shader record with its attribute records, the
 * uniform streams, the rendering list's tiles; state records emitted only
 * when they change; array draws split at 65536 vertices; programs and their
 * SPH header; and the errors of bad draws. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/driver.h"
#include "gpusim/gpu.h"
#include "gpusim/mem.h"
#include "v3d/cl.h"

#define MAX_PACKETS 256

/* The packets of a list from start to end, following Branch (16) as the
 * CLE does (the branches themselves are left out: they only chain blocks). */
typedef struct walked {
  gs_cl_packet p[MAX_PACKETS];
  int n;
} walked;

static void walk(const gs_mem *m, gs_addr start, gs_addr end, walked *out) {
  gs_cl_view v = {m, NULL, 0, 0};
  gs_cl_prim_format fmt = {0, 0};
  gs_diag d;
  out->n = 0;
  for (gs_addr a = start; a != end;) {
    assert_true(out->n < MAX_PACKETS);
    gs_cl_packet *p = &out->p[out->n];
    if (gs_cl_decode(&v, a, &fmt, 0, p, &d) != GS_OK) fail_msg("decode: %s", d.msg);
    if (p->info->id == GS_CL_BRANCH) {
      a = p->values[0];
      continue;
    }
    a = p->next;
    out->n++;
  }
}

/* Field `name` of packet or record f in values. */
static uint32_t field(const gs_cl_format_info *f, const uint32_t *values, const char *name) {
  int i = gs_cl_field_index(f, name);
  if (i < 0) fail_msg("%s has no field %s", f->name, name);
  return values[i];
}
#define PF(pk, name) field((pk)->info, (pk)->values, name)

static void expect_id(const walked *w, int i, int id) {
  if (i >= w->n) fail_msg("packet %d missing (want ID %d)", i, id);
  if (w->p[i].info->id != id) fail_msg("packet %d is %s, want ID %d", i, w->p[i].info->name, id);
}

static float as_float(uint32_t bits) { return gs_cl_float(bits); }

/* A context with a target, a shader (fake code addresses: the driver never
 * reads code) and an interleaved vertex buffer: position f32x4 at 0,
 * colour f32x3 at 16, stride 28. */
typedef struct fixture {
  gs_gpu *g;
  gs_mem *m;
  gs_driver *drv;
  gs_drv_target t;
  gs_drv_shader sh;
  gs_addr vb;
  gs_drv_attr attrs[2];
  gs_drv_uniform vs_unif[4];
  gs_drv_state st;
  gs_drv_draw dr;
} fixture;

static fixture *fixture_new(uint32_t w, uint32_t h, gs_drv_format fmt, bool depth) {
  static fixture fx;
  memset(&fx, 0, sizeof fx);
  fx.g = gs_gpu_new(NULL);
  fx.m = gs_gpu_mem(fx.g);
  fx.drv = gs_driver_new(fx.m);
  assert_non_null(fx.drv);
  fx.t = (gs_drv_target){w, h, fmt, depth, 0, 0, 1};
  assert_int_equal(gs_drv_target_alloc(fx.m, &fx.t, NULL), GS_OK);
  fx.sh = (gs_drv_shader){0x00800000u, 0x00800100u, 0x00800200u, 3, 0, false, 0x1, NULL};
  /* room for every vertex the draws below read: the driver checks that
   * each attribute array holds the draw's largest vertex */
  assert_int_equal(gs_mem_alloc(fx.m, 90000 * 28, 16, &fx.vb, NULL), GS_OK);
  fx.attrs[0] = (gs_drv_attr){fx.vb, 16, 28};
  fx.attrs[1] = (gs_drv_attr){fx.vb + 16, 12, 28};
  fx.vs_unif[0] = (gs_drv_uniform){GS_DRV_U_VIEWPORT_X_SCALE, 0};
  fx.vs_unif[1] = (gs_drv_uniform){GS_DRV_U_VIEWPORT_Y_SCALE, 0};
  fx.vs_unif[2] = (gs_drv_uniform){GS_DRV_U_VIEWPORT_Z_SCALE, 0};
  fx.vs_unif[3] = (gs_drv_uniform){GS_DRV_U_VIEWPORT_Z_OFFSET, 0};
  gs_drv_state_init(&fx.st);
  memset(&fx.dr, 0, sizeof fx.dr);
  fx.dr.mode = GS_DRV_TRIANGLES;
  fx.dr.shader = &fx.sh;
  fx.dr.attrs = fx.attrs;
  fx.dr.nattrs = 2;
  fx.dr.count = 3;
  fx.dr.uniforms[GS_DRV_STAGE_VERTEX] = (gs_drv_uniforms){fx.vs_unif, 4};
  fx.dr.uniforms[GS_DRV_STAGE_COORDINATE] = (gs_drv_uniforms){fx.vs_unif, 4};
  fx.dr.state = &fx.st;
  return &fx;
}

static void fixture_free(fixture *fx) {
  gs_driver_free(fx->drv);
  gs_drv_target_release(fx->m, &fx->t);
  gs_gpu_free(fx->g);
}

static void one_frame(fixture *fx, gs_drv_frame *f) {
  gs_diag d;
  if (gs_driver_begin_frame(fx->drv, &fx->t, &d) != GS_OK) fail_msg("begin: %s", d.msg);
  gs_driver_set_clear(fx->drv, &(gs_drv_clear){0xff402010u, 1.0f, 0});
  if (gs_driver_draw(fx->drv, &fx->dr, &d) != GS_OK) fail_msg("draw: %s", d.msg);
  if (gs_driver_end_frame(fx->drv, f, &d) != GS_OK) fail_msg("end: %s", d.msg);
}

static uint32_t read_u32(const gs_mem *m, gs_addr a) {
  uint32_t v;
  assert_int_equal(gs_mem_read(m, a, &v, 4, NULL), GS_OK);
  return v;
}

/* A frame of one triangle into 200×100 RGBA8888, no depth: 4×2 tiles. */
static void test_binning_list_of_one_triangle(void **state) {
  (void)state;
  fixture *fx = fixture_new(200, 100, GS_DRV_RGBA8888, false);
  gs_drv_frame f;
  one_frame(fx, &f);
  assert_int_equal(f.tiles_x, 4);  /* ceil(200 / 64) */
  assert_int_equal(f.tiles_y, 2);  /* ceil(100 / 64) */
  assert_int_equal(f.draws, 1);
  walked w;
  walk(fx->m, f.bin_start, f.bin_end, &w);
  assert_int_equal(w.n, 15);
  const gs_cl_packet *p = w.p;

  expect_id(&w, 0, GS_CL_TILE_BINNING_MODE_CONFIGURATION);
  assert_int_equal(p[0].addr, f.bin_start);
  assert_int_equal(PF(&p[0], "tile_alloc"), f.tile_alloc);
  assert_int_equal(PF(&p[0], "tile_alloc_size"), f.tile_alloc_size);
  assert_true(f.tile_alloc_size >= 8 * 32);
  assert_int_equal(PF(&p[0], "tsda"), f.tsda);
  assert_int_equal(f.tsda % 16, 0);
  assert_non_null(gs_mem_ptr(fx->m, f.tsda, 8 * 48));  /* 48 bytes per tile */
  assert_non_null(gs_mem_ptr(fx->m, f.tile_alloc, f.tile_alloc_size));
  assert_int_equal(PF(&p[0], "width_tiles"), 4);
  assert_int_equal(PF(&p[0], "height_tiles"), 2);
  assert_int_equal(PF(&p[0], "auto_init_tsda"), 1);
  assert_int_equal(PF(&p[0], "initial_block_size"), 0);  /* 32 bytes */
  assert_int_equal(PF(&p[0], "block_size"), 2);          /* 128 bytes */
  assert_int_equal(PF(&p[0], "ms4x") | PF(&p[0], "color64") | PF(&p[0], "double_buffer"), 0);

  expect_id(&w, 1, GS_CL_START_TILE_BINNING);
  expect_id(&w, 2, GS_CL_PRIMITIVE_LIST_FORMAT);
  assert_int_equal(PF(&p[2], "prim_type"), GS_CL_PRIM_TRIANGLES);
  assert_int_equal(PF(&p[2], "data_type"), GS_CL_DATA_INDEX16);

  expect_id(&w, 3, GS_CL_CLIP_WINDOW);
  assert_int_equal(PF(&p[3], "left"), 0);
  assert_int_equal(PF(&p[3], "bottom"), 0);
  assert_int_equal(PF(&p[3], "width"), 200);
  assert_int_equal(PF(&p[3], "height"), 100);

  expect_id(&w, 4, GS_CL_CONFIGURATION_BITS);
  assert_int_equal(PF(&p[4], "enable_forward_facing"), 1);
  assert_int_equal(PF(&p[4], "enable_reverse_facing"), 1);
  assert_int_equal(PF(&p[4], "clockwise"), 0);
  assert_int_equal(PF(&p[4], "depth_func"), 7);  /* always: no depth buffer */
  assert_int_equal(PF(&p[4], "z_updates"), 0);
  assert_int_equal(PF(&p[4], "early_z"), 0);

  expect_id(&w, 5, GS_CL_POINT_SIZE);
  assert_true(as_float(PF(&p[5], "size")) == 1.0f);
  expect_id(&w, 6, GS_CL_LINE_WIDTH);
  assert_true(as_float(PF(&p[6], "width")) == 1.0f);

  /* Half the viewport in 1/16 pixel: 100 × 16 and 50 × 16. */
  expect_id(&w, 7, GS_CL_CLIPPER_XY_SCALING);
  assert_true(as_float(PF(&p[7], "half_width")) == 1600.0f);
  assert_true(as_float(PF(&p[7], "half_height")) == 800.0f);
  /* The viewport centre (100, 50) in 12.4. */
  expect_id(&w, 8, GS_CL_VIEWPORT_OFFSET);
  assert_int_equal(PF(&p[8], "x"), 1600);
  assert_int_equal(PF(&p[8], "y"), 800);
  /* Depth range 0..1: Zs = Zc/Wc × 0.5 + 0.5. */
  expect_id(&w, 9, GS_CL_CLIPPER_Z_SCALE_AND_OFFSET);
  assert_true(as_float(PF(&p[9], "scale")) == 0.5f);
  assert_true(as_float(PF(&p[9], "offset")) == 0.5f);
  expect_id(&w, 10, GS_CL_FLAT_SHADE_FLAGS);
  assert_int_equal(PF(&p[10], "flat_varyings"), 0);

  expect_id(&w, 11, GS_CL_GL_SHADER_STATE);
  assert_int_equal(PF(&p[11], "extended"), 0);
  assert_int_equal(PF(&p[11], "attr_arrays"), 2);
  gs_addr rec = PF(&p[11], "record");
  assert_int_equal(rec % 16, 0);

  expect_id(&w, 12, GS_CL_VERTEX_ARRAY_PRIMITIVES);
  assert_int_equal(PF(&p[12], "mode"), 4);
  assert_int_equal(PF(&p[12], "length"), 3);
  assert_int_equal(PF(&p[12], "first_index"), 0);
  expect_id(&w, 13, GS_CL_INCREMENT_SEMAPHORE);
  expect_id(&w, 14, GS_CL_FLUSH);
  assert_int_equal(p[14].next, f.bin_end);

  /* The GL shader record (reference §4.5). */
  gs_cl_view v = {fx->m, NULL, 0, 0};
  uint32_t r[GS_CL_MAX_FIELDS];
  const gs_cl_format_info *rf = gs_cl_record_by_name("GL_SHADER_RECORD");
  assert_int_equal(gs_cl_decode_record(&v, rec, rf, r, NULL), GS_OK);
  assert_int_equal(field(rf, r, "fs_single_threaded"), 1);
  assert_int_equal(field(rf, r, "point_size"), 0);
  assert_int_equal(field(rf, r, "clipping"), 1);
  assert_int_equal(field(rf, r, "fs_varyings"), 3);
  assert_int_equal(field(rf, r, "fs_code"), 0x00800200u);
  assert_int_equal(field(rf, r, "vs_code"), 0x00800000u);
  assert_int_equal(field(rf, r, "cs_code"), 0x00800100u);
  assert_int_equal(field(rf, r, "vs_attr_select"), 0x3);
  assert_int_equal(field(rf, r, "vs_attr_size"), 28);  /* 16 + 12 */
  assert_int_equal(field(rf, r, "cs_attr_select"), 0x1);
  assert_int_equal(field(rf, r, "cs_attr_size"), 16);  /* the position only */
  /* Uniform streams: the viewport values resolved for this draw. */
  gs_addr vu = field(rf, r, "vs_uniforms"), cu = field(rf, r, "cs_uniforms");
  assert_true(as_float(read_u32(fx->m, vu)) == 1600.0f);
  assert_true(as_float(read_u32(fx->m, vu + 4)) == 800.0f);
  assert_true(as_float(read_u32(fx->m, vu + 8)) == 0.5f);
  assert_true(as_float(read_u32(fx->m, vu + 12)) == 0.5f);
  assert_true(as_float(read_u32(fx->m, cu)) == 1600.0f);
  assert_non_null(gs_mem_ptr(fx->m, field(rf, r, "fs_uniforms"), 4));
  /* Attribute records: base, bytes − 1, stride, VPM offsets. */
  const gs_cl_format_info *af = gs_cl_record_by_name("GL_ATTRIBUTE_RECORD");
  assert_int_equal(gs_cl_decode_record(&v, rec + 36, af, r, NULL), GS_OK);
  assert_int_equal(field(af, r, "base"), fx->vb);
  assert_int_equal(field(af, r, "bytes_minus_1"), 15);
  assert_int_equal(field(af, r, "stride"), 28);
  assert_int_equal(field(af, r, "vs_vpm_offset"), 0);
  assert_int_equal(field(af, r, "cs_vpm_offset"), 0);
  assert_int_equal(gs_cl_decode_record(&v, rec + 44, af, r, NULL), GS_OK);
  assert_int_equal(field(af, r, "base"), fx->vb + 16);
  assert_int_equal(field(af, r, "bytes_minus_1"), 11);
  assert_int_equal(field(af, r, "stride"), 28);
  assert_int_equal(field(af, r, "vs_vpm_offset"), 16);
  fixture_free(fx);
}

/* The rendering list of the same frame: clear, mode, the clear-applying
 * store, then 8 tiles of 115 + 17 + store (semaphore wait on the first). */
static void test_rendering_list_of_one_triangle(void **state) {
  (void)state;
  fixture *fx = fixture_new(200, 100, GS_DRV_RGBA8888, false);
  gs_drv_frame f;
  one_frame(fx, &f);
  walked w;
  walk(fx->m, f.render_start, f.render_end, &w);
  assert_int_equal(w.n, 4 + 8 * 3 + 1);
  const gs_cl_packet *p = w.p;
  expect_id(&w, 0, GS_CL_CLEAR_COLORS);
  assert_int_equal(PF(&p[0], "color0"), 0xff402010u);
  assert_int_equal(PF(&p[0], "color1"), 0xff402010u);
  assert_int_equal(PF(&p[0], "zs"), 0xffffffu);
  assert_int_equal(PF(&p[0], "stencil"), 0);
  expect_id(&w, 1, GS_CL_TILE_RENDERING_MODE_CONFIGURATION);
  assert_int_equal(PF(&p[1], "address"), fx->t.framebuffer);
  assert_int_equal(PF(&p[1], "width"), 200);
  assert_int_equal(PF(&p[1], "height"), 100);
  assert_int_equal(PF(&p[1], "color_format"), 1);  /* rgba8888 */
  assert_int_equal(PF(&p[1], "memory_format"), 0); /* raster */
  assert_int_equal(PF(&p[1], "decimate"), 0);
  assert_int_equal(PF(&p[1], "ms4x"), 0);
  assert_int_equal(PF(&p[1], "early_z_disable"), 1);
  expect_id(&w, 2, GS_CL_TILE_COORDINATES);
  assert_int_equal(PF(&p[2], "column") | PF(&p[2], "row"), 0);
  expect_id(&w, 3, GS_CL_STORE_TILE_BUFFER_GENERAL);
  assert_int_equal(PF(&p[3], "buffer"), 0);
  assert_int_equal(PF(&p[3], "last_tile"), 0);
  int i = 4;
  for (uint32_t y = 0; y < 2; y++) {
    for (uint32_t x = 0; x < 4; x++) {
      expect_id(&w, i, GS_CL_TILE_COORDINATES);
      assert_int_equal(PF(&p[i], "column"), x);
      assert_int_equal(PF(&p[i], "row"), y);
      i++;
      if (x == 0 && y == 0) expect_id(&w, i++, GS_CL_WAIT_ON_SEMAPHORE);
      expect_id(&w, i, GS_CL_BRANCH_TO_SUB_LIST);
      assert_int_equal(PF(&p[i], "address"), f.tile_alloc + (y * 4 + x) * 32);
      i++;
      expect_id(&w, i++, x == 3 && y == 1 ? GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF
                                           : GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER);
    }
  }
  assert_int_equal(i, w.n);
  assert_int_equal(f.framebuffer, fx->t.framebuffer);
  assert_int_equal(f.stride, 800);
  fixture_free(fx);
}

/* BGR565 with depth: the store format, the stride, Z and early Z. */
static void test_bgr565_depth_target(void **state) {
  (void)state;
  fixture *fx = fixture_new(64, 65, GS_DRV_BGR565, true);
  assert_int_equal(fx->t.stride, 128);
  fx->st.depth_test = true;
  fx->st.depth_func = GS_DRV_LEQUAL;
  gs_drv_frame f;
  one_frame(fx, &f);
  assert_int_equal(f.tiles_x, 1);
  assert_int_equal(f.tiles_y, 2);
  walked w;
  walk(fx->m, f.bin_start, f.bin_end, &w);
  expect_id(&w, 4, GS_CL_CONFIGURATION_BITS);
  assert_int_equal(PF(&w.p[4], "depth_func"), 3);
  assert_int_equal(PF(&w.p[4], "z_updates"), 1);
  assert_int_equal(PF(&w.p[4], "early_z"), 1);
  assert_int_equal(PF(&w.p[4], "early_z_updates"), 1);
  walk(fx->m, f.render_start, f.render_end, &w);
  assert_int_equal(PF(&w.p[1], "color_format"), 2);  /* bgr565 without dither */
  assert_int_equal(PF(&w.p[1], "early_z_disable"), 0);
  assert_int_equal(PF(&w.p[1], "early_z_direction"), 0);
  fixture_free(fx);
}

/* A 4-sample RGBA16F target (100x70): 32x16 tiles, so 4 x 5; 112 and 113
 * ask for 4x multisampling and 64-bit colour, 96 for oversample 4x, 113
 * for decimate 4x; the stride is 8 bytes per pixel; the clear colour
 * 0xff402010 widened to halves: R 16/255 = 0.06275 = 2^-4 · 1.00392, so
 * exponent 11 and mantissa round(0.00392 · 1024) = 4: 0x2c04; G 32/255 =
 * 2^-3 · 1.00392: 0x3004; B 64/255: 0x3404; A 1.0: 0x3c00. A target of 2
 * samples is refused. */
static void test_multisample_rgba16f_target(void **state) {
  (void)state;
  fixture *fx = fixture_new(100, 70, GS_DRV_RGBA16F, false);
  assert_int_equal(fx->t.stride, 800);
  fx->t.samples = 4;
  gs_drv_frame f;
  one_frame(fx, &f);
  assert_int_equal(f.tiles_x, 4);
  assert_int_equal(f.tiles_y, 5);
  walked w;
  walk(fx->m, f.bin_start, f.bin_end, &w);
  expect_id(&w, 0, GS_CL_TILE_BINNING_MODE_CONFIGURATION);
  assert_int_equal(PF(&w.p[0], "ms4x"), 1);
  assert_int_equal(PF(&w.p[0], "color64"), 1);
  assert_int_equal(PF(&w.p[0], "width_tiles"), 4);
  assert_int_equal(PF(&w.p[0], "height_tiles"), 5);
  int cfg = -1;
  for (int i = 0; i < w.n; i++)
    if (w.p[i].info->id == GS_CL_CONFIGURATION_BITS) cfg = i;
  assert_true(cfg >= 0);
  assert_int_equal(PF(&w.p[cfg], "oversample"), 1);
  walk(fx->m, f.render_start, f.render_end, &w);
  assert_int_equal(w.n, 4 + 20 * 3 + 1);
  assert_int_equal(PF(&w.p[0], "color0"), 0x30042c04u);
  assert_int_equal(PF(&w.p[0], "color1"), 0x3c003404u);
  assert_int_equal(PF(&w.p[1], "ms4x"), 1);
  assert_int_equal(PF(&w.p[1], "color64"), 1);
  assert_int_equal(PF(&w.p[1], "decimate"), 1);
  expect_id(&w, w.n - 2, GS_CL_BRANCH_TO_SUB_LIST);
  assert_int_equal(PF(&w.p[w.n - 2], "address"), f.tile_alloc + (4 * 4 + 3) * 32); /* tile (3, 4) */
  fixture_free(fx);
  gs_gpu *g = gs_gpu_new(NULL);
  gs_drv_target t = {8, 8, GS_DRV_RGBA8888, false, 0, 0, 2};
  gs_diag d;
  assert_int_equal(gs_drv_target_alloc(gs_gpu_mem(g), &t, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "2 samples"));
  gs_gpu_free(g);
}

/* State records are emitted only when they change; a viewport and a
 * scissor make the clip window their intersection; culling and winding. */
static void test_state_changes(void **state) {
  (void)state;
  fixture *fx = fixture_new(320, 240, GS_DRV_RGBA8888, false);
  gs_diag d;
  gs_drv_frame f;
  assert_int_equal(gs_driver_begin_frame(fx->drv, &fx->t, &d), GS_OK);
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_OK);
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_OK);  /* same state */
  fx->st.viewport = (gs_drv_rect){10, 20, 100, 50};
  fx->st.scissor = true;
  fx->st.scissor_rect = (gs_drv_rect){0, 0, 50, 40};
  fx->st.cull = GS_DRV_CULL_BACK;
  fx->st.front_cw = true;
  fx->dr.mode = GS_DRV_LINE_STRIP;
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_OK);
  assert_int_equal(gs_driver_end_frame(fx->drv, &f, &d), GS_OK);
  assert_int_equal(f.draws, 3);
  walked w;
  walk(fx->m, f.bin_start, f.bin_end, &w);
  /* 112 6 56, 8 records, 64 33; 64 33; 102 96 105 103 56 64 33; 7 4 */
  static const int want[] = {112, 6, 56, 102, 96, 98, 99, 105, 103, 106, 97, 64, 33, 64, 33,
                             102, 96, 105, 103, 56, 64, 33, 7, 4};
  assert_int_equal(w.n, (int)(sizeof want / sizeof want[0]));
  for (int i = 0; i < w.n; i++) expect_id(&w, i, want[i]);
  /* clip window: viewport [10,110)×[20,70) ∩ scissor [0,50)×[0,40) */
  assert_int_equal(PF(&w.p[15], "left"), 10);
  assert_int_equal(PF(&w.p[15], "bottom"), 20);
  assert_int_equal(PF(&w.p[15], "width"), 40);
  assert_int_equal(PF(&w.p[15], "height"), 20);
  assert_int_equal(PF(&w.p[16], "enable_forward_facing"), 1);
  assert_int_equal(PF(&w.p[16], "enable_reverse_facing"), 0);
  assert_int_equal(PF(&w.p[16], "clockwise"), 1);
  assert_true(as_float(PF(&w.p[17], "half_width")) == 800.0f);
  assert_true(as_float(PF(&w.p[17], "half_height")) == 400.0f);
  /* centre (60, 45) in 12.4 */
  assert_int_equal(PF(&w.p[18], "x"), 960);
  assert_int_equal(PF(&w.p[18], "y"), 720);
  assert_int_equal(PF(&w.p[19], "prim_type"), GS_CL_PRIM_LINES);
  assert_int_equal(PF(&w.p[21], "mode"), 3);
  /* each draw has its own shader record */
  assert_int_not_equal(PF(&w.p[11], "record"), PF(&w.p[13], "record"));
  fixture_free(fx);
}

/* Indexed draws: 8- and 16-bit indices, the maximum index read from
 * memory, the address of the first index. */
static void test_indexed_draw(void **state) {
  (void)state;
  fixture *fx = fixture_new(64, 64, GS_DRV_RGBA8888, false);
  gs_addr ib;
  const uint16_t idx16[6] = {0, 1, 2, 2, 7, 1};
  assert_int_equal(gs_mem_alloc(fx->m, sizeof idx16, 4, &ib, NULL), GS_OK);
  assert_int_equal(gs_mem_write(fx->m, ib, idx16, sizeof idx16, NULL), GS_OK);
  fx->dr.indices = ib;
  fx->dr.index_size = 2;
  fx->dr.first = 3;
  fx->dr.count = 3;
  gs_drv_frame f;
  one_frame(fx, &f);
  walked w;
  walk(fx->m, f.bin_start, f.bin_end, &w);
  expect_id(&w, 12, GS_CL_INDEXED_PRIMITIVE_LIST);
  assert_int_equal(PF(&w.p[12], "mode"), 4);
  assert_int_equal(PF(&w.p[12], "index_type"), 1);
  assert_int_equal(PF(&w.p[12], "length"), 3);
  assert_int_equal(PF(&w.p[12], "address"), ib + 6);
  assert_int_equal(PF(&w.p[12], "max_index"), 7);
  /* 8-bit indices running past the allocation are a fault, and the frame
   * is unchanged */
  gs_diag d;
  assert_int_equal(gs_driver_begin_frame(fx->drv, &fx->t, &d), GS_OK);
  fx->dr.index_size = 1;
  fx->dr.first = 10;
  fx->dr.count = 3;
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_EFAULT);
  assert_non_null(strstr(d.msg, "outside allocated GPU memory"));
  fx->dr.first = 0;
  fx->dr.count = 12;
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_OK);
  assert_int_equal(gs_driver_end_frame(fx->drv, &f, &d), GS_OK);
  walk(fx->m, f.bin_start, f.bin_end, &w);
  expect_id(&w, 12, GS_CL_INDEXED_PRIMITIVE_LIST);
  assert_int_equal(PF(&w.p[12], "index_type"), 0);
  assert_int_equal(PF(&w.p[12], "max_index"), 7);  /* the high byte of index 7 */
  fixture_free(fx);
}

/* Arrays past vertex 65535 are rebased, or split for independent
 * primitives; a strip that long is an error. */
static void test_large_arrays(void **state) {
  (void)state;
  fixture *fx = fixture_new(64, 64, GS_DRV_RGBA8888, false);
  gs_diag d;
  gs_drv_frame f;
  assert_int_equal(gs_driver_begin_frame(fx->drv, &fx->t, &d), GS_OK);
  fx->dr.first = 70000;
  fx->dr.count = 3;
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_OK);
  fx->dr.first = 0;
  fx->dr.count = 3 * 30000;  /* 90000 vertices: 65535 (21845 triangles) + 24465 */
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_OK);
  fx->dr.mode = GS_DRV_TRIANGLE_STRIP;
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "GFXH-515"));
  assert_int_equal(gs_driver_end_frame(fx->drv, &f, &d), GS_OK);
  assert_int_equal(f.draws, 3);
  walked w;
  walk(fx->m, f.bin_start, f.bin_end, &w);
  gs_cl_view v = {fx->m, NULL, 0, 0};
  const gs_cl_format_info *af = gs_cl_record_by_name("GL_ATTRIBUTE_RECORD");
  uint32_t r[GS_CL_MAX_FIELDS];
  static const uint32_t rebase[3] = {70000, 0, 65535}, first[3] = {0, 0, 0}, len[3] = {3, 65535, 24465};
  for (int k = 0; k < 3; k++) {
    const gs_cl_packet *ss = &w.p[11 + 2 * k], *va = &w.p[12 + 2 * k];
    assert_int_equal(ss->info->id, GS_CL_GL_SHADER_STATE);
    assert_int_equal(va->info->id, GS_CL_VERTEX_ARRAY_PRIMITIVES);
    assert_int_equal(PF(va, "first_index"), first[k]);
    assert_int_equal(PF(va, "length"), len[k]);
    assert_int_equal(gs_cl_decode_record(&v, PF(ss, "record") + 44, af, r, NULL), GS_OK);
    assert_int_equal(field(af, r, "base"), fx->vb + 16 + rebase[k] * 28);
  }
  fixture_free(fx);
}

/* Bad draws name what is wrong and leave the frame untouched. */
static void test_errors(void **state) {
  (void)state;
  fixture *fx = fixture_new(64, 64, GS_DRV_RGBA8888, false);
  gs_diag d;
  assert_int_equal(gs_driver_draw(fx->drv, &fx->dr, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "no frame"));
  assert_int_equal(gs_driver_begin_frame(fx->drv, &fx->t, &d), GS_OK);
  gs_drv_draw bad = fx->dr;
  bad.nattrs = 0;
  assert_int_equal(gs_driver_draw(fx->drv, &bad, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "attribute arrays"));
  bad = fx->dr;
  bad.mode = 7;
  assert_int_equal(gs_driver_draw(fx->drv, &bad, &d), GS_EARG);
  gs_drv_attr big[2] = {{fx->vb, 65, 28}, {fx->vb, 4, 4}};
  bad = fx->dr;
  bad.attrs = big;
  assert_int_equal(gs_driver_draw(fx->drv, &bad, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "attribute 0: size 65"));
  gs_drv_shader sh = fx->sh;
  sh.cs_attrs = 0x4;
  bad = fx->dr;
  bad.shader = &sh;
  assert_int_equal(gs_driver_draw(fx->drv, &bad, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "attribute 2 of 2"));
  sh = fx->sh;
  sh.nvaryings = 33;
  assert_int_equal(gs_driver_draw(fx->drv, &bad, &d), GS_EARG);
  bad = fx->dr;
  bad.indices = fx->vb;
  bad.index_size = 4;
  assert_int_equal(gs_driver_draw(fx->drv, &bad, &d), GS_EARG);
  assert_non_null(strstr(d.msg, "32-bit"));
  gs_drv_frame f;
  assert_int_equal(gs_driver_end_frame(fx->drv, &f, &d), GS_OK);
  assert_int_equal(f.draws, 0);
  walked w;
  walk(fx->m, f.bin_start, f.bin_end, &w);
  assert_int_equal(w.n, 5);  /* 112 6 56 7 4 */
  assert_int_equal(gs_driver_end_frame(fx->drv, &f, &d), GS_EARG);
  gs_drv_target t = {4096, 10, GS_DRV_RGBA8888, false, 0, 0, 1};
  assert_int_equal(gs_drv_target_alloc(fx->m, &t, &d), GS_EARG);
  fixture_free(fx);
}

/* Frames reuse the arena: GPU memory does not grow frame after frame. */
static void test_frames_reuse_memory(void **state) {
  (void)state;
  fixture *fx = fixture_new(300, 200, GS_DRV_RGBA8888, false);
  gs_drv_frame f;
  one_frame(fx, &f);
  size_t used = gs_mem_used(fx->m);
  for (int i = 0; i < 20; i++) one_frame(fx, &f);
  assert_int_equal(gs_mem_used(fx->m), used);
  fixture_free(fx);
}

/* Growing tile memory: a doubled pool, record 112 and the rendering list
 * rewritten for it, and later frames start at least that big; a fixed
 * pool. */
static void test_grow_tile_memory(void **state) {
  (void)state;
  fixture *fx = fixture_new(200, 100, GS_DRV_RGBA8888, false);
  gs_diag d;
  gs_drv_frame f, g;
  gs_driver_set_tile_pool(fx->drv, 5000);  /* rounded up to 8192 */
  one_frame(fx, &f);
  assert_int_equal(f.tile_alloc_size, 4096 + 8192);  /* 8 tiles x 32 rounded to 4 KB, then the pool */
  g = f;
  assert_int_equal(gs_driver_grow_tile_memory(fx->drv, &g, &d), GS_OK);
  assert_int_equal(g.tile_alloc_size, 4096 + 16384);
  assert_int_not_equal(g.tile_alloc, f.tile_alloc);
  assert_int_equal(g.bin_start, f.bin_start);
  assert_int_equal(g.bin_end, f.bin_end);
  assert_int_equal(g.tsda, f.tsda);
  assert_non_null(gs_mem_ptr(fx->m, g.tile_alloc, g.tile_alloc_size));
  walked w;
  walk(fx->m, g.bin_start, g.bin_end, &w);
  assert_int_equal(PF(&w.p[0], "tile_alloc"), g.tile_alloc);
  assert_int_equal(PF(&w.p[0], "tile_alloc_size"), g.tile_alloc_size);
  walk(fx->m, g.render_start, g.render_end, &w);
  assert_int_equal(w.n, 4 + 8 * 3 + 1);
  assert_int_equal(PF(&w.p[6], "address"), g.tile_alloc);            /* tile (0, 0) */
  assert_int_equal(PF(&w.p[w.n - 2], "address"), g.tile_alloc + 7 * 32); /* tile (3, 1) */
  /* the driver is not fooled by another frame's description */
  gs_drv_frame other = g;
  other.bin_start += 16;
  assert_int_equal(gs_driver_grow_tile_memory(fx->drv, &other, &d), GS_EARG);
  /* the next frame, with the estimate again, keeps the learned pool */
  gs_driver_set_tile_pool(fx->drv, 0);
  one_frame(fx, &f);
  assert_true(f.tile_alloc_size >= 4096 + 64 * 1024);  /* the estimate's minimum */
  for (int i = 0; i < 4; i++) assert_int_equal(gs_driver_grow_tile_memory(fx->drv, &f, &d), GS_OK);
  uint32_t learned = f.tile_alloc_size;
  one_frame(fx, &f);
  assert_int_equal(f.tile_alloc_size, learned);
  /* growth stops at GS_DRV_MAX_TILE_POOL */
  gs_driver_set_tile_pool(fx->drv, GS_DRV_MAX_TILE_POOL);
  one_frame(fx, &f);
  assert_int_equal(gs_driver_grow_tile_memory(fx->drv, &f, &d), GS_ENOMEM);
  assert_non_null(strstr(d.msg, "128 MB"));
  fixture_free(fx);
}

/* A program carries its SPH in the 96 bytes before its code. */
static void test_program_header(void **state) {
  (void)state;
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_sph_io in = {GS_SPH_ATTR_GENERIC(0), 0x7, GS_PIXEL_IMAP_SCREEN_LINEAR};
  gs_sph_decl decl;
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_PIXEL;
  decl.inputs = &in;
  decl.n_inputs = 1;
  decl.render_targets = 0xF;
  gs_sph sph;
  gs_diag d;
  if (gs_sph_build(&decl, &sph, &d) != GS_OK) fail_msg("sph: %s", d.msg);
  const uint64_t code[2] = {UINT64_C(0x300009e7009e7000), UINT64_C(0x100009e7009e7000)};
  gs_drv_program p;
  assert_int_equal(gs_drv_program_load(m, code, 2, &sph, &p, &d), GS_OK);
  assert_int_equal(p.code, p.block + 96);
  assert_int_equal(p.code % 16, 0);
  assert_int_equal(p.ninstr, 2);
  uint64_t back[2];
  assert_int_equal(gs_mem_read(m, p.code, back, 16, NULL), GS_OK);
  assert_memory_equal(back, code, 16);  /* little-endian host: same bytes */
  assert_int_equal(read_u32(m, p.block), GS_DRV_PROGRAM_MAGIC);
  assert_int_equal(read_u32(m, p.block + 4), 16);
  assert_int_equal(read_u32(m, p.block + 8), GS_SPH_PIXEL);
  gs_sph got;
  assert_int_equal(gs_drv_program_sph(m, p.code, &got, &d), GS_OK);
  assert_int_equal(got.sph_type, GS_SPH_TYPE_PS);
  assert_int_equal(gs_sph_pixel_imap(&got, GS_SPH_ATTR_GENERIC(0) + 4), GS_PIXEL_IMAP_SCREEN_LINEAR);
  assert_int_equal(gs_sph_pixel_imap(&got, GS_SPH_ATTR_GENERIC(0) + 12), GS_PIXEL_IMAP_UNUSED);
  /* a frame lists the modes of its fragment shaders from their SPH */
  gs_driver *drv = gs_driver_new(m);
  gs_drv_target t = {64, 64, GS_DRV_RGBA8888, false, 0, 0, 1};
  assert_int_equal(gs_drv_target_alloc(m, &t, NULL), GS_OK);
  gs_drv_shader sh = {p.code, p.code, p.code, 3, 0, false, 0, NULL};
  gs_drv_attr a = {t.framebuffer, 4, 4};
  gs_drv_draw dr;
  memset(&dr, 0, sizeof dr);
  dr.mode = GS_DRV_POINTS;
  dr.shader = &sh;
  dr.attrs = &a;
  dr.nattrs = 1;
  dr.count = 1;
  gs_drv_frame f;
  assert_int_equal(gs_driver_begin_frame(drv, &t, &d), GS_OK);
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  assert_int_equal(gs_driver_draw(drv, &dr, &d), GS_OK);
  assert_int_equal(gs_driver_end_frame(drv, &f, &d), GS_OK);
  assert_int_equal(f.n_fs_programs, 1);
  assert_int_equal(f.fs_programs[0], p.code);
  static const uint8_t want[32] = {3, 3, 3};
  uint8_t mode[32];
  unsigned nmodes;
  gs_sph fs_sph;
  assert_int_equal(gs_drv_program_sph(m, f.fs_programs[0], &fs_sph, &d), GS_OK);
  assert_int_equal(gs_sph_varying_modes(&fs_sph, mode, NULL, &nmodes, &d), GS_OK);
  assert_int_equal(nmodes, 3);
  assert_memory_equal(mode, want, 32);
  gs_driver_free(drv);
  /* code without the header */
  gs_addr raw;
  assert_int_equal(gs_mem_alloc(m, 256, 16, &raw, NULL), GS_OK);
  assert_int_equal(gs_drv_program_sph(m, raw + 128, &got, &d), GS_EINVAL);
  assert_int_equal(gs_drv_program_sph(m, raw, &got, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "no driver header"));
  gs_drv_program_release(m, &p);
  assert_int_equal(p.block, 0);
  gs_gpu_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_binning_list_of_one_triangle),
      cmocka_unit_test(test_rendering_list_of_one_triangle),
      cmocka_unit_test(test_bgr565_depth_target),
      cmocka_unit_test(test_multisample_rgba16f_target),
      cmocka_unit_test(test_state_changes),
      cmocka_unit_test(test_indexed_draw),
      cmocka_unit_test(test_large_arrays),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_frames_reuse_memory),
      cmocka_unit_test(test_grow_tile_memory),
      cmocka_unit_test(test_program_header),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
