/* test_cl.c — control lists (src/v3d/cl.c, cl_prim.c, src/app/dumpcl.c):
 * the table's sanity; pack -> unpack -> pack of every packet and record with
 * each field at its maximum and at walking-one patterns (no field bleeds
 * into another); the typed structs; worked bytes from KROM's control-list
 * demos, ASUR's viewport offset and seed 004's GL shader state record,
 * decoded field by field by hand; compressed primitive lists encoded by
 * hand from RG Tables 39-43, random round trips that must use every coding,
 * relative branches and malformed lists; the dump of a hand-built binning
 * and rendering list against text written by hand; the writer's block
 * chaining; the text parser; `gpusim dump-cl`; docs/control-lists.md; and
 * random bytes that must never crash the decoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "v3d/cl.h"
#include "app/dumpcl.c"  /* gs_dumpcl_main is part of the program, not the library */

/* ---- helpers ---------------------------------------------------------------- */

/* A deterministic PRNG (xorshift64*), so every run tests the same streams. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 32);
}
static uint32_t rnd_below(uint32_t n) { return rnd() % n; }

/* The value that raw field bits stand for: the test's own statement of
 * VALUES in gpusim/cl.h. */
static uint32_t value_for_raw(const gs_cl_field_info *fi, uint32_t raw) {
  switch (fi->kind) {
  case GS_CL_SINT:
  case GS_CL_FIX4:
    if (fi->width < 32 && (raw >> (fi->width - 1)) & 1) raw |= ~0u << fi->width;
    return raw;
  case GS_CL_F187: return raw << 16;
  case GS_CL_ADDR: return raw << fi->lo;
  default: return raw;
  }
}

static uint32_t field_max_raw(const gs_cl_field_info *fi) {
  return fi->width >= 32 ? 0xffffffffu : (1u << fi->width) - 1;
}

static unsigned popcount(uint32_t x) {
  unsigned n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

static unsigned hdr(const gs_cl_format_info *f) { return f->id >= 0 ? 1u : 0u; }

/* Runs gs_cl_dump into a malloc'ed string; *rc gets its result. */
static char *dump_text(const gs_cl_view *v, gs_addr start, gs_addr end, const gs_cl_dump_opts *o, int *rc,
                       gs_diag *d) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_non_null(f);
  *rc = gs_cl_dump(v, start, end, o, f, d);
  fclose(f);
  return buf;
}

static void assert_text(const char *got, const char *want) {
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "--- got:\n%s--- want:\n%s---\n", got, want);
    fail();
  }
}

static void assert_error(int rc, int code, const gs_diag *d, const char *part) {
  assert_int_equal(rc, code);
  if (!strstr(d->msg, part)) {
    fprintf(stderr, "message \"%s\" lacks \"%s\"\n", d->msg, part);
    fail();
  }
}

/* The formatted line of the packet at p (from its bytes). */
static void packet_line(const uint8_t *p, char *line, size_t n) {
  const gs_cl_format_info *f = gs_cl_packet_info(p[0]);
  uint32_t v[GS_CL_MAX_FIELDS];
  assert_non_null(f);
  gs_cl_unpack(f, p, v);
  gs_cl_format(f, v, line, n);
}

/* ---- the table ------------------------------------------------------------ */

/* Every packet of reference §4.2 is there, nothing else is, and each
 * packet's and record's fields lie inside it without sharing a bit. */
static void check_format_sane(const gs_cl_format_info *f) {
  uint8_t used[256] = {0};
  unsigned payload = f->size - hdr(f);
  assert_true(f->nfields <= GS_CL_MAX_FIELDS);
  for (int i = 0; i < f->nfields; i++) {
    const gs_cl_field_info *fi = &f->fields[i];
    unsigned nbytes = (fi->lo + fi->width + 7u) / 8u;
    assert_true(fi->width >= 1 && fi->width <= 32);
    assert_true(fi->byte + nbytes <= payload);
    assert_int_equal(gs_cl_field_index(f, fi->name), i);  /* names unique */
    if (fi->kind == GS_CL_FLAG) assert_int_equal(fi->width, 1);
    if (fi->kind == GS_CL_F32) assert_int_equal(fi->width, 32);
    if (fi->kind == GS_CL_F187) assert_int_equal(fi->width, 16);
    if (fi->kind == GS_CL_ADDR) assert_int_equal(fi->lo + fi->width, 32);
    if (fi->kind == GS_CL_ENUM) assert_true(fi->nvalues >= 2 && fi->nvalues <= (1u << fi->width));
    assert_true(strcmp(fi->name, "flags") != 0);  /* the dump's flags= set */
    for (unsigned b = 0; b < fi->width; b++) {
      unsigned bit = fi->byte * 8u + fi->lo + b;
      assert_true(bit / 8 < payload);
      assert_int_equal(used[bit / 8] & (1u << (bit % 8)), 0);
      used[bit / 8] |= (uint8_t)(1u << (bit % 8));
    }
  }
}

static void test_table(void **state) {
  (void)state;
  static const int ids[] = {0,  1,  4,  5,  6,  7,  8,  16, 17, 18, 24,  25,  26,  27,  28,  29,  32,  33,  41,  42,
                            48, 49, 56, 64, 65, 66, 67, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 106, 112, 113,
                            114, 115};
  size_t n, nrec;
  const gs_cl_format_info *all = gs_cl_packets(&n);
  const gs_cl_format_info *rec = gs_cl_records(&nrec);
  assert_int_equal(n, sizeof ids / sizeof ids[0]);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(all[i].id, ids[i]);
    assert_ptr_equal(gs_cl_packet_info((unsigned)ids[i]), &all[i]);
    assert_ptr_equal(gs_cl_packet_by_name(all[i].name), &all[i]);
    check_format_sane(&all[i]);
  }
  for (unsigned id = 0; id < 300; id++) {
    int listed = 0;
    for (size_t i = 0; i < n; i++) listed |= ids[i] == (int)id;
    assert_true((gs_cl_packet_info(id) != NULL) == listed);
  }
  assert_int_equal(nrec, 6);
  for (size_t i = 0; i < nrec; i++) {
    assert_int_equal(rec[i].id, -1);
    assert_ptr_equal(gs_cl_record_by_name(rec[i].name), &rec[i]);
    check_format_sane(&rec[i]);
  }
  /* Sizes from reference §4.2/§4.5-4.7 and the errata of §8. */
  assert_int_equal(gs_cl_packet_info(106)->size, 9);
  assert_string_equal(gs_cl_packet_info(106)->name, "CLIPPER_Z_SCALE_AND_OFFSET");
  assert_int_equal(gs_cl_packet_info(112)->size, 16);
  assert_int_equal(gs_cl_packet_info(113)->size, 11);
  assert_int_equal(gs_cl_packet_info(114)->size, 14);
  assert_int_equal(gs_cl_packet_info(32)->size, 14);
  assert_int_equal(gs_cl_packet_info(28)->size, 7);
  assert_int_equal(gs_cl_record_by_name("GL_SHADER_RECORD")->size, 36);
  assert_int_equal(gs_cl_record_by_name("NV_SHADER_RECORD")->size, 16);
  assert_int_equal(gs_cl_record_by_name("CLIPPED_VERTEX")->size, 32);
  const gs_cl_format_info *gl = gs_cl_record_by_name("GL_SHADER_RECORD");
  assert_int_equal(gl->fields[gs_cl_field_index(gl, "vs_uniforms")].byte, 20);
  assert_null(gs_cl_packet_by_name("NO_SUCH_PACKET"));
}

/* ---- pack/unpack round trips --------------------------------------------- */

/* values -> bytes -> values -> bytes must reproduce both. */
static void roundtrip(const gs_cl_format_info *f, const uint32_t *values, uint8_t *bytes) {
  uint8_t again[256];
  uint32_t back[GS_CL_MAX_FIELDS];
  gs_diag d;
  int n = gs_cl_pack(f, values, bytes, 256, &d);
  if (n != f->size) fprintf(stderr, "%s: %s\n", f->name, d.msg);
  assert_int_equal(n, f->size);
  if (f->id >= 0) assert_int_equal(bytes[0], f->id);
  gs_cl_unpack(f, bytes, back);
  for (int i = 0; i < f->nfields; i++) {
    if (back[i] != values[i]) fprintf(stderr, "%s.%s: %08x != %08x\n", f->name, f->fields[i].name, back[i], values[i]);
    assert_int_equal(back[i], values[i]);
  }
  assert_int_equal(gs_cl_pack(f, back, again, sizeof again, &d), f->size);
  assert_memory_equal(bytes, again, f->size);
}

/* Each field alone at each single bit and at its maximum: exactly its own
 * bits are set; then all fields at their maximum together. */
static void walk_fields(const gs_cl_format_info *f) {
  uint8_t bytes[256];
  uint32_t v[GS_CL_MAX_FIELDS];
  for (int i = 0; i < f->nfields; i++) {
    const gs_cl_field_info *fi = &f->fields[i];
    for (unsigned b = 0; b <= fi->width; b++) {
      uint32_t raw = b < fi->width ? 1u << b : field_max_raw(fi);
      memset(v, 0, sizeof v);
      v[i] = value_for_raw(fi, raw);
      roundtrip(f, v, bytes);
      unsigned ones = 0;
      for (unsigned k = hdr(f); k < f->size; k++)
        for (unsigned j = 0; j < 8; j++)
          if (bytes[k] >> j & 1) {
            unsigned bit = (k - hdr(f)) * 8 + j - fi->byte * 8u - fi->lo;
            assert_true(bit < fi->width);  /* inside this field */
            assert_true(raw >> bit & 1);
            ones++;
          }
      assert_int_equal(ones, popcount(raw));
    }
  }
  for (int i = 0; i < f->nfields; i++) v[i] = value_for_raw(&f->fields[i], field_max_raw(&f->fields[i]));
  roundtrip(f, v, bytes);
}

static void test_roundtrip_every_field(void **state) {
  (void)state;
  size_t n;
  const gs_cl_format_info *t = gs_cl_packets(&n);
  for (size_t i = 0; i < n; i++) walk_fields(&t[i]);
  t = gs_cl_records(&n);
  for (size_t i = 0; i < n; i++) walk_fields(&t[i]);
}

static void test_pack_errors(void **state) {
  (void)state;
  uint8_t b[32] = {0}, before[32];
  gs_diag d;
  const gs_cl_format_info *tc = gs_cl_packet_by_name("TILE_COORDINATES");
  uint32_t v[2] = {256, 0};
  memcpy(before, b, sizeof b);
  assert_error(gs_cl_pack(tc, v, b, sizeof b, &d), GS_EARG, &d, "TILE_COORDINATES: column=256 does not fit 8 bits");
  assert_memory_equal(b, before, sizeof b);  /* nothing written */
  v[0] = 1;
  assert_error(gs_cl_pack(tc, v, b, 2, &d), GS_EARG, &d, "needs 3 bytes");
  uint32_t gl[3] = {0x00100008, 0, 1};
  assert_error(gs_cl_pack(gs_cl_packet_info(64), gl, b, sizeof b, &d), GS_EARG, &d,
               "record=0x00100008 is not a multiple of 16");
  uint32_t rht[1] = {(uint32_t)-32769};
  assert_error(gs_cl_pack(gs_cl_packet_info(100), rht, b, sizeof b, &d), GS_EARG, &d, "x=-32769 does not fit 16 signed bits");
  rht[0] = (uint32_t)-32768;
  assert_int_equal(gs_cl_pack(gs_cl_packet_info(100), rht, b, sizeof b, &d), 3);
  assert_int_equal(b[1], 0x00);
  assert_int_equal(b[2], 0x80);
  gs_cl_field_value fv[2] = {{"row", 7}, {"column", 9}};
  assert_int_equal(gs_cl_pack_fields(tc, fv, 2, b, sizeof b, &d), 3);
  assert_int_equal(b[0], 115);
  assert_int_equal(b[1], 9);
  assert_int_equal(b[2], 7);
  gs_cl_field_value bad[2] = {{"row", 1}, {"row", 2}};
  assert_error(gs_cl_pack_fields(tc, bad, 2, b, sizeof b, &d), GS_EARG, &d, "given twice");
  bad[1].name = "colum";
  assert_error(gs_cl_pack_fields(tc, bad, 2, b, sizeof b, &d), GS_EARG, &d, "no field called 'colum'");
}

/* The typed structs are the same table seen through C members. */
static void test_typed_structs(void **state) {
  (void)state;
  uint8_t a[32], b[32];
  gs_diag d;
  gs_cl_configuration_bits cb = {.enable_forward_facing = 1, .enable_reverse_facing = 1, .depth_func = 3,
                                 .z_updates = 1, .early_z_updates = 1};
  assert_int_equal(gs_cl_pack_configuration_bits(a, sizeof a, &cb, &d), 4);
  /* bits 0, 1, 12-14 = 3 (le), 15, 17: 0x02b003 */
  static const uint8_t want[4] = {96, 0x03, 0xb0, 0x02};
  assert_memory_equal(a, want, 4);
  assert_int_equal(gs_cl_parse("CONFIGURATION_BITS flags=enable_forward_facing|enable_reverse_facing|z_updates|"
                               "early_z_updates depth_func=le", b, sizeof b, &d), 4);
  assert_memory_equal(a, b, 4);
  gs_cl_clipper_z_scale_and_offset z = {.scale = 0.5f, .offset = 0.25f};
  assert_int_equal(gs_cl_pack_clipper_z_scale_and_offset(a, sizeof a, &z, &d), 9);
  assert_int_equal(a[0], 106);
  assert_int_equal(a[4], 0x3f);  /* 0.5 = 0x3f000000: scale first (reference §8.3) */
  assert_int_equal(a[8], 0x3e);  /* 0.25 = 0x3e800000 */
  uint32_t v[GS_CL_MAX_FIELDS];
  gs_cl_clipper_z_scale_and_offset z2;
  gs_cl_unpack(gs_cl_packet_info(106), a, v);
  gs_cl_unpack_clipper_z_scale_and_offset(v, &z2);
  assert_true(z2.scale == 0.5f && z2.offset == 0.25f);
  gs_cl_viewport_offset vo = {.x = -8, .y = 320 * 16};
  assert_int_equal(gs_cl_pack_viewport_offset(a, sizeof a, &vo, &d), 5);
  assert_int_equal(a[1], 0xf8);
  assert_int_equal(a[2], 0xff);
  assert_int_equal(a[3], 0x00);
  assert_int_equal(a[4], 0x14);
  gs_cl_depth_offset dof = {.factor = 1.0f, .units = -2.5f};  /* 0x3f800000, 0xc0200000 */
  assert_int_equal(gs_cl_pack_depth_offset(a, sizeof a, &dof, &d), 5);
  static const uint8_t want_do[5] = {101, 0x80, 0x3f, 0x20, 0xc0};
  assert_memory_equal(a, want_do, 5);
  gs_cl_nv_shader_record nv = {.clip_header = 1, .vertex_stride = 24, .fs_varyings = 3, .fs_code = 0x1000,
                               .vertex_data = 0x2000};
  assert_int_equal(gs_cl_pack_nv_shader_record(a, sizeof a, &nv, &d), 16);
  static const uint8_t want_nv[16] = {0x08, 24, 0, 3, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0x00, 0x20, 0, 0};
  assert_memory_equal(a, want_nv, 16);
}

/* ---- worked bytes ----------------------------------------------------------- */

/* KROM's NV triangle demo (V3D/ControlList/NV/Indexed_List/Triangle/
 * FillColor): the binning list as its CONTROL_LIST.INC macros expand, with
 * the NV record at 0x00008100 and the index list at 0x00008200 (labels in
 * the demo). Values worked out by hand from the bytes. */
static const uint8_t krom_bin[] = {
    0x70, 0x00, 0x00, 0x40, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x50, 0x00, 0x0a, 0x08, 0x04,
    0x06,
    0x66, 0x00, 0x00, 0x00, 0x00, 0x80, 0x02, 0xe0, 0x01,
    0x60, 0x03, 0x00, 0x02,
    0x67, 0x00, 0x00, 0x00, 0x00,
    0x41, 0x00, 0x81, 0x00, 0x00,
    0x20, 0x04, 0x03, 0x00, 0x00, 0x00, 0x00, 0x82, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x04,
};

static void test_krom_binning_list(void **state) {
  (void)state;
  gs_cl_view v = {NULL, krom_bin, 0x8000, sizeof krom_bin};
  gs_cl_packet p;
  gs_diag d;
  gs_addr a = 0x8000;
  /* 112: tile alloc 0x00400000, 0x2000 bytes, TSDA 0x00500000, 10x8 tiles,
   * flags 0x04 = auto-initialise. */
  assert_int_equal(gs_cl_decode(&v, a, NULL, 0, &p, &d), GS_OK);
  gs_cl_tile_binning_mode_configuration t;
  gs_cl_unpack_tile_binning_mode_configuration(p.values, &t);
  assert_int_equal(t.tile_alloc, 0x00400000);
  assert_int_equal(t.tile_alloc_size, 8192);
  assert_int_equal(t.tsda, 0x00500000);
  assert_int_equal(t.width_tiles, 10);
  assert_int_equal(t.height_tiles, 8);
  assert_int_equal(t.auto_init_tsda, 1);
  assert_int_equal(t.ms4x | t.color64 | t.initial_block_size | t.block_size | t.double_buffer, 0);
  assert_int_equal(p.next, 0x8010);
  assert_int_equal(gs_cl_decode(&v, a = p.next, NULL, 0, &p, &d), GS_OK);
  assert_int_equal(p.info->id, GS_CL_START_TILE_BINNING);
  /* 102: 0, 0, 640 (0x0280), 480 (0x01e0) */
  assert_int_equal(gs_cl_decode(&v, a = p.next, NULL, 0, &p, &d), GS_OK);
  gs_cl_clip_window cw;
  gs_cl_unpack_clip_window(p.values, &cw);
  assert_true(cw.left == 0 && cw.bottom == 0 && cw.width == 640 && cw.height == 480);
  /* 96: byte 0x03 = forward + reverse facing; u16 0x0200 = bit 17 = early-Z
   * updates (KROM's data8/data16 split of the 24 bits). */
  assert_int_equal(gs_cl_decode(&v, a = p.next, NULL, 0, &p, &d), GS_OK);
  gs_cl_configuration_bits cb;
  gs_cl_unpack_configuration_bits(p.values, &cb);
  assert_true(cb.enable_forward_facing && cb.enable_reverse_facing && cb.early_z_updates);
  assert_true(!cb.clockwise && !cb.z_updates && !cb.early_z && cb.depth_func == 0);
  assert_int_equal(gs_cl_decode(&v, a = p.next, NULL, 0, &p, &d), GS_OK);
  assert_int_equal(p.info->id, GS_CL_VIEWPORT_OFFSET);
  assert_int_equal(p.values[0] | p.values[1], 0);
  assert_int_equal(gs_cl_decode(&v, a = p.next, NULL, 0, &p, &d), GS_OK);
  assert_int_equal(p.info->id, GS_CL_NV_SHADER_STATE);
  assert_int_equal(p.values[0], 0x00008100);
  /* 32: mode 4 (triangles) + index type 0 (8-bit), 3 indices at 0x8200, max 2 */
  assert_int_equal(gs_cl_decode(&v, a = p.next, NULL, 0, &p, &d), GS_OK);
  gs_cl_indexed_primitive_list ip;
  gs_cl_unpack_indexed_primitive_list(p.values, &ip);
  assert_true(ip.mode == 4 && ip.index_type == 0 && ip.length == 3 && ip.address == 0x8200 && ip.max_index == 2);
  assert_int_equal(gs_cl_decode(&v, a = p.next, NULL, 0, &p, &d), GS_OK);
  assert_int_equal(p.info->id, GS_CL_FLUSH);
  assert_int_equal(p.next, 0x8000 + sizeof krom_bin);

  int rc;
  char *text = dump_text(&v, 0x8000, 0x8000 + sizeof krom_bin, NULL, &rc, &d);
  assert_int_equal(rc, GS_OK);
  assert_text(text,
              "0x00008000  112 TILE_BINNING_MODE_CONFIGURATION  tile_alloc=0x00400000 tile_alloc_size=8192 "
              "tsda=0x00500000 width_tiles=10 height_tiles=8 flags=auto_init_tsda initial_block_size=32 "
              "block_size=32\n"
              "0x00008010  6 START_TILE_BINNING\n"
              "0x00008011  102 CLIP_WINDOW  left=0 bottom=0 width=640 height=480\n"
              "0x0000801a  96 CONFIGURATION_BITS  flags=enable_forward_facing|enable_reverse_facing|early_z_updates "
              "coverage_read_type=level_4x8 oversample=none coverage_update=nonzero "
              "coverage_read_mode=clear_on_read depth_func=never\n"
              "0x0000801e  103 VIEWPORT_OFFSET  x=0 y=0\n"
              "0x00008023  65 NV_SHADER_STATE  record=0x00008100\n"
              "0x00008100    (NV_SHADER_RECORD: 16 bytes not readable)\n"
              "0x00008028  32 INDEXED_PRIMITIVE_LIST  mode=triangles index_type=8bit length=3 address=0x00008200 "
              "max_index=2\n"
              "0x00008036  4 FLUSH\n");
  free(text);
}

/* KROM's rendering list of the same demo: clear colour 0xFF00FFFF twice,
 * 640x480 RGBA8888 frame buffer, the dummy store that applies the clear,
 * then per tile its coordinates, the branch into its tile list at
 * 0x00400000 + 32 * tile, and a multisample store. */
static const uint8_t krom_render[] = {
    0x72, 0xff, 0xff, 0x00, 0xff, 0xff, 0xff, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x71, 0x00, 0x00, 0x00, 0x00, 0x80, 0x02, 0xe0, 0x01, 0x04, 0x00,
    0x73, 0x00, 0x00,
    0x1c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x73, 0x00, 0x00,
    0x11, 0x00, 0x00, 0x40, 0x00,
    0x18,
    0x73, 0x01, 0x00,
    0x11, 0x20, 0x00, 0x40, 0x00,
    0x18,
};

static void test_krom_render_list(void **state) {
  (void)state;
  gs_cl_view v = {NULL, krom_render, 0x9000, sizeof krom_render};
  gs_cl_packet p;
  gs_diag d;
  assert_int_equal(gs_cl_decode(&v, 0x9000, NULL, 0, &p, &d), GS_OK);
  gs_cl_clear_colors cc;
  gs_cl_unpack_clear_colors(p.values, &cc);
  assert_true(cc.color0 == 0xff00ffff && cc.color1 == 0xff00ffff && cc.zs == 0 && cc.vg_mask == 0 && cc.stencil == 0);
  assert_int_equal(gs_cl_decode(&v, p.next, NULL, 0, &p, &d), GS_OK);
  gs_cl_tile_rendering_mode_configuration tr;
  gs_cl_unpack_tile_rendering_mode_configuration(p.values, &tr);
  assert_true(tr.address == 0 && tr.width == 640 && tr.height == 480);
  assert_int_equal(tr.color_format, 1);  /* 0x0004: bits 3:2 = 1 = rgba8888 */
  assert_true(tr.ms4x == 0 && tr.decimate == 0 && tr.memory_format == 0);
  /* The dump stops at the first branch: the tile lists are not in the view. */
  int rc;
  char *text = dump_text(&v, 0x9000, 0x9000 + sizeof krom_render, NULL, &rc, &d);
  assert_error(rc, GS_EFAULT, &d, "0x00400000: control list is not in readable memory");
  assert_text(text,
              "0x00009000  114 CLEAR_COLORS  color0=0xff00ffff color1=0xff00ffff zs=0x000000 vg_mask=0x00 stencil=0\n"
              "0x0000900e  113 TILE_RENDERING_MODE_CONFIGURATION  address=0x00000000 width=640 height=480 flags=none "
              "color_format=rgba8888 decimate=1x memory_format=raster early_z_direction=lt_le\n"
              "0x00009019  115 TILE_COORDINATES  column=0 row=0\n"
              "0x0000901c  28 STORE_TILE_BUFFER_GENERAL  buffer=none format=raster mode=sample0 pixel_format=rgba8888 "
              "flags=none address=0x00000000\n"
              "0x00009023  115 TILE_COORDINATES  column=0 row=0\n"
              "0x00009026  17 BRANCH_TO_SUB_LIST  address=0x00400000\n");
  free(text);
}

/* Seed 004's GL shader state record and its GL_Shader_State macro
 * (.byte 0x40 / .word address | numarrays), with the labels placed at
 * FRAG_CODE 0x2000, VERT_CODE 0x2100, VERT_UNIFORM_DATA 0x2200, COORD_CODE
 * 0x2300, COORD_UNIFORM_DATA 0x2400, the two vertex streams at 0x2440 and
 * 0x2480 (.align 6) and the record at 0x2500 (.align 4); the packet at
 * 0x2600. */
static void seed004_bytes(uint8_t *m) {
  static const uint8_t rec[52] = {
      0x04, 0x00, 0, 0, 0x00, 0x20, 0, 0, 0, 0, 0, 0,              /* flags 4, FS uniforms, varyings, code */
      0x00, 0x00, 1, 12, 0x00, 0x21, 0, 0, 0x00, 0x22, 0, 0,       /* VS */
      0x00, 0x00, 2, 28, 0x00, 0x23, 0, 0, 0x00, 0x24, 0, 0,       /* CS */
      0x40, 0x24, 0, 0, 11, 12, 0, 0,                              /* stream 0 */
      0x80, 0x24, 0, 0, 27, 28, 0, 0,                              /* stream 1 */
  };
  memset(m, 0, 0x110);
  memcpy(m, rec, sizeof rec);
  m[0x100] = 0x40;  /* GL_Shader_State GL_SHADER_STATE_RECORD, 2 */
  m[0x101] = 0x02;
  m[0x102] = 0x25;
}

static void test_seed004_gl_record(void **state) {
  (void)state;
  uint8_t m[0x110];
  seed004_bytes(m);
  gs_cl_view v = {NULL, m, 0x2500, 0x105};
  gs_cl_packet p;
  gs_diag d;
  assert_int_equal(gs_cl_decode(&v, 0x2600, NULL, 0, &p, &d), GS_OK);
  gs_cl_gl_shader_state st;
  gs_cl_unpack_gl_shader_state(p.values, &st);
  assert_true(st.record == 0x2500 && st.extended == 0 && st.attr_arrays == 2);
  uint32_t vals[GS_CL_MAX_FIELDS];
  gs_cl_gl_shader_record r;
  assert_int_equal(gs_cl_decode_record(&v, 0x2500, gs_cl_record_by_name("GL_SHADER_RECORD"), vals, &d), GS_OK);
  gs_cl_unpack_gl_shader_record(vals, &r);
  assert_true(r.clipping == 1 && r.fs_single_threaded == 0 && r.point_size == 0);
  assert_true(r.fs_uniform_count == 0 && r.fs_varyings == 0 && r.fs_code == 0x2000 && r.fs_uniforms == 0);
  assert_true(r.vs_uniform_count == 0 && r.vs_attr_select == 1 && r.vs_attr_size == 12);
  assert_int_equal(r.vs_code, 0x2100);
  assert_int_equal(r.vs_uniforms, 0x2200);  /* byte 20, not Mesa's XML byte 16 */
  assert_true(r.cs_uniform_count == 0 && r.cs_attr_select == 2 && r.cs_attr_size == 28);
  assert_true(r.cs_code == 0x2300 && r.cs_uniforms == 0x2400);
  gs_cl_gl_attribute_record at;
  assert_int_equal(gs_cl_decode_record(&v, 0x2524, gs_cl_record_by_name("GL_ATTRIBUTE_RECORD"), vals, &d), GS_OK);
  gs_cl_unpack_gl_attribute_record(vals, &at);
  assert_true(at.base == 0x2440 && at.bytes_minus_1 == 11 && at.stride == 12 && at.vs_vpm_offset == 0 &&
              at.cs_vpm_offset == 0);
  assert_int_equal(gs_cl_decode_record(&v, 0x252c, gs_cl_record_by_name("GL_ATTRIBUTE_RECORD"), vals, &d), GS_OK);
  gs_cl_unpack_gl_attribute_record(vals, &at);
  assert_true(at.base == 0x2480 && at.bytes_minus_1 == 27 && at.stride == 28);
  /* The encoder writes the same bytes from the struct. */
  uint8_t again[36];
  assert_int_equal(gs_cl_pack_gl_shader_record(again, sizeof again, &r, &d), 36);
  assert_memory_equal(again, m, 36);

  int rc;
  char *text = dump_text(&v, 0x2600, 0x2605, NULL, &rc, &d);
  assert_int_equal(rc, GS_OK);
  assert_text(text,
              "0x00002600  64 GL_SHADER_STATE  record=0x00002500 flags=none attr_arrays=2\n"
              "0x00002500    GL_SHADER_RECORD  flags=clipping fs_uniform_count=0 fs_varyings=0 fs_code=0x00002000 "
              "fs_uniforms=0x00000000 vs_uniform_count=0 vs_attr_select=0x01 vs_attr_size=12 vs_code=0x00002100 "
              "vs_uniforms=0x00002200 cs_uniform_count=0 cs_attr_select=0x02 cs_attr_size=28 cs_code=0x00002300 "
              "cs_uniforms=0x00002400\n"
              "0x00002524    GL_ATTRIBUTE_RECORD[0]  base=0x00002440 bytes_minus_1=11 stride=12 vs_vpm_offset=0 "
              "cs_vpm_offset=0\n"
              "0x0000252c    GL_ATTRIBUTE_RECORD[1]  base=0x00002480 bytes_minus_1=27 stride=28 vs_vpm_offset=0 "
              "cs_vpm_offset=0\n");
  free(text);
}

/* ASUR encodes a viewport centre of 320.0 as 0x1400 (reference §3.1); the
 * brief's example line of a binning configuration (ASUR's 64 KB pool). */
static void test_asur_and_example_lines(void **state) {
  (void)state;
  static const uint8_t vo[5] = {0x67, 0x00, 0x14, 0xf0, 0x00};
  char line[512];
  packet_line(vo, line, sizeof line);
  assert_string_equal(line, "VIEWPORT_OFFSET  x=320 y=15");
  uint8_t b[16];
  gs_diag d;
  assert_int_equal(gs_cl_parse("TILE_BINNING_MODE_CONFIGURATION tile_alloc=0x00200000 tile_alloc_size=65536 "
                               "tsda=0x00210000 width_tiles=10 height_tiles=8 flags=auto_init_tsda",
                               b, sizeof b, &d), 16);
  static const uint8_t want[16] = {0x70, 0, 0, 0x20, 0, 0, 0, 1, 0, 0, 0, 0x21, 0, 10, 8, 0x04};
  assert_memory_equal(b, want, 16);
  packet_line(b, line, sizeof line);
  assert_string_equal(line, "TILE_BINNING_MODE_CONFIGURATION  tile_alloc=0x00200000 tile_alloc_size=65536 "
                            "tsda=0x00210000 width_tiles=10 height_tiles=8 flags=auto_init_tsda "
                            "initial_block_size=32 block_size=32");
}

/* ---- compressed primitive lists: hand-encoded bytes ------------------------- */

typedef struct hand_prim {
  uint32_t v[3];
  int coding;
  int nbytes;
  uint8_t bytes[13];
} hand_prim;

/* Encodes the list with gs_cl_prim_encode, checks each item's bytes and
 * coding against the hand-worked ones, then decodes the bytes back. */
static void check_hand_list(gs_cl_prim_format f, const hand_prim *h, size_t n) {
  uint8_t buf[256];
  size_t len = 0;
  gs_diag d;
  for (size_t i = 0; i < n; i++) {
    gs_cl_prim p = {{h[i].v[0], h[i].v[1], h[i].v[2]}}, prev;
    if (i) prev = (gs_cl_prim){{h[i - 1].v[0], h[i - 1].v[1], h[i - 1].v[2]}};
    uint8_t out[GS_CL_PRIM_MAX_BYTES];
    int coding = -1;
    int k = gs_cl_prim_encode(&f, i ? &prev : NULL, &p, out, &coding, &d);
    if (k != h[i].nbytes || coding != h[i].coding || memcmp(out, h[i].bytes, (size_t)k) != 0) {
      fprintf(stderr, "item %zu: coding %d, %d bytes:", i, coding, k);
      for (int j = 0; j < k; j++) fprintf(stderr, " %02x", out[j]);
      fprintf(stderr, "\n");
      fail();
    }
    memcpy(buf + len, out, (size_t)k);
    len += (size_t)k;
  }
  buf[len++] = GS_CL_PRIM_ESCAPE;
  gs_cl_view v = {NULL, buf, 0x4000, (uint32_t)len};
  gs_cl_prim_reader r;
  gs_cl_prim_item it;
  gs_cl_prim_reader_init(&r, &v, &f, 0x4000);
  int nv = gs_cl_prim_vertices(&f, &d);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(gs_cl_prim_read(&r, &it, &d), GS_OK);
    assert_int_equal(it.kind, GS_CL_ITEM_PRIM);
    assert_int_equal(it.coding, h[i].coding);
    assert_int_equal(it.size, h[i].nbytes);
    for (int j = 0; j < nv; j++) assert_int_equal(it.prim.v[j], h[i].v[j]);
  }
  assert_int_equal(gs_cl_prim_read(&r, &it, &d), GS_OK);
  assert_int_equal(it.kind, GS_CL_ITEM_ESCAPE);
  assert_int_equal(r.cur, 0x4000 + len);
}

/* Encodes n random triangles (16-bit indices, every coding) into out;
 * returns the byte count (without an escape). */
static size_t random_tri_list(uint32_t seed, gs_cl_prim *prims, size_t n, uint8_t *out) {
  gs_cl_prim_format f = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  gs_diag d;
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    seed = seed * 1664525u + 1013904223u;
    uint32_t base = i && (seed >> 30) ? prims[i - 1].v[seed >> 28 & 1] : seed >> 8 & 0xffff;
    for (int k = 0; k < 3; k++) {
      seed = seed * 1664525u + 1013904223u;
      uint32_t spread = (seed >> 29) == 0 ? 60000 : (seed >> 29) < 3 ? 40 : 8;
      prims[i].v[k] = (base + (seed >> 8) % spread) & 0xffff;
    }
    int k = gs_cl_prim_encode(&f, i ? &prims[i - 1] : NULL, &prims[i], out + len, NULL, &d);
    assert_true(k > 0);
    len += (size_t)k;
  }
  return len;
}

/* The reader keeps a run of readable bytes between items; what it reads
 * must be what gs_cl_view_ptr finds item by item: a list ending with the
 * last byte of its memory block, the same list cut short there (the item
 * that runs past the block is the error), and a view whose own bytes start
 * inside the list, over memory that holds something else there (items
 * from the view's start on come from the view's bytes). */
static void test_prim_reader_window(void **state) {
  (void)state;
  gs_cl_prim_format f = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  enum { N = 300 };
  static gs_cl_prim want[N];
  static uint8_t bytes[N * GS_CL_PRIM_MAX_BYTES + 1];
  gs_diag d;
  for (uint32_t round = 0; round < 20; round++) {
    size_t len = random_tri_list(round * 7919u + 1u, want, N, bytes);
    bytes[len++] = GS_CL_PRIM_ESCAPE;
    gs_mem *m = NULL;
    gs_addr a, pad;
    for (int cut = 0; cut < 2; cut++) {
      /* the list in a block of its own, memory of another block (escapes)
         right after it; cut: without its last byte and the escape, so that
         the last item runs 1 byte past its block */
      uint32_t n = (uint32_t)len - (cut ? 2u : 0u), size = (n + 3) & ~3u;
      m = gs_mem_new(1u << 20);
      assert_int_equal(gs_mem_alloc(m, size, 4, &a, NULL), GS_OK);
      assert_int_equal(gs_mem_alloc(m, 4096, 4, &pad, NULL), GS_OK);
      a += size - n; /* the list ends where the block does */
      assert_int_equal(pad, a + n);
      memcpy(gs_mem_ptr(m, a, n), bytes, n);
      memset(gs_mem_ptr(m, pad, 4096), GS_CL_PRIM_ESCAPE, 4096);
      gs_cl_view v = {m, NULL, 0, 0};
      gs_cl_prim_reader r;
      gs_cl_prim_item it;
      gs_cl_prim_reader_init(&r, &v, &f, a);
      size_t i = 0;
      int rc = GS_OK;
      while (rc == GS_OK && !r.done) {
        rc = gs_cl_prim_read(&r, &it, &d);
        if (rc == GS_OK && it.kind == GS_CL_ITEM_PRIM) {
          assert_true(i < N);
          for (int k = 0; k < 3; k++) assert_int_equal(it.prim.v[k], want[i].v[k]);
          i++;
        }
      }
      if (!cut) {
        assert_int_equal(rc, GS_OK);
        assert_int_equal(i, N);
        assert_int_equal(r.cur, a + len);
      } else {
        assert_int_equal(rc, GS_EFAULT);
        assert_int_equal(i, N - 1);
        assert_true(strstr(d.msg, "runs past readable memory") != NULL);
      }
      gs_mem_free(m);
    }
    /* the view's bytes from item 40 on; memory there holds escapes */
    m = gs_mem_new(1u << 20);
    assert_int_equal(gs_mem_alloc(m, (uint32_t)len, 4, &a, NULL), GS_OK);
    size_t at = 0;
    for (size_t i = 0; i < 40; i++) {
      int coding;
      uint8_t tmp[GS_CL_PRIM_MAX_BYTES];
      at += (size_t)gs_cl_prim_encode(&f, i ? &want[i - 1] : NULL, &want[i], tmp, &coding, &d);
    }
    uint8_t *mp = gs_mem_ptr(m, a, (uint32_t)len);
    memcpy(mp, bytes, at);
    memset(mp + at, GS_CL_PRIM_ESCAPE, len - at);
    gs_cl_view v = {m, bytes + at, a + (uint32_t)at, (uint32_t)(len - at)};
    gs_cl_prim_reader r;
    gs_cl_prim_item it;
    gs_cl_prim_reader_init(&r, &v, &f, a);
    size_t i = 0;
    while (!r.done) {
      assert_int_equal(gs_cl_prim_read(&r, &it, &d), GS_OK);
      if (it.kind == GS_CL_ITEM_PRIM) {
        assert_true(i < N);
        for (int k = 0; k < 3; k++) assert_int_equal(it.prim.v[k], want[i].v[k]);
        i++;
      }
    }
    assert_int_equal(i, N);
    gs_mem_free(m);
  }
}

static uint32_t mix32(uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu;
  return x ^ (x >> 16);
}

/* The reader's state as gs_cl_prim_read's loop leaves it, with what it
 * read and how it ended. */
typedef struct read_outcome {
  gs_cl_prim prims[400];
  unsigned n;
  int rc;
  char msg[GS_DIAG_MAX];
  gs_addr cur;
  int done, branched;
  uint32_t budget;
} read_outcome;

static void outcome_end(read_outcome *o, const gs_cl_prim_reader *r, int rc, const gs_diag *d) {
  o->rc = rc;
  snprintf(o->msg, sizeof o->msg, "%s", rc < 0 ? d->msg : "");
  o->cur = r->cur, o->done = r->done, o->branched = r->branched, o->budget = r->budget;
}

static void outcome_check(const read_outcome *got, const read_outcome *want, int prims, unsigned round) {
  if (got->rc != want->rc || strcmp(got->msg, want->msg) || got->cur != want->cur || got->done != want->done ||
      got->branched != want->branched || got->budget != want->budget || (prims && got->n != want->n))
    fail_msg("round %u: rc %d '%s' cur 0x%08x done %d branched %d budget %u n %u; item by item rc %d '%s' cur "
             "0x%08x done %d branched %d budget %u n %u", round, got->rc, got->msg, got->cur, got->done,
             got->branched, got->budget, got->n, want->rc, want->msg, want->cur, want->done, want->branched,
             want->budget, want->n);
  for (unsigned i = 0; prims && i < want->n; i++)
    for (int k = 0; k < 3; k++)
      if (got->prims[i].v[k] != want->prims[i].v[k])
        fail_msg("round %u: primitive %u vertex %d: %u, item by item %u", round, i, k, got->prims[i].v[k],
                 want->prims[i].v[k]);
}

/* gs_cl_prim_read_prims (chunks of 1 to 70) and gs_cl_prim_skip leave the
 * reader as reading item by item does, with the same primitives, error
 * and message: random lists in every format (and a missing one) of
 * encoded primitives, relative branches a few blocks either way (some
 * into other lists, loops, unreadable memory), stray bytes (reserved
 * codes), with or without the escape, ending where their memory ends,
 * read from memory or from a view's own bytes. */
static void test_read_prims_and_skip(void **state) {
  (void)state;
  static const gs_cl_prim_format fmts[7] = {
      {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16}, {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_POINTS, GS_CL_DATA_INDEX16},    {GS_CL_PRIM_LINES, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY},      {GS_CL_PRIM_RHTS, GS_CL_DATA_XY},
      {GS_CL_PRIM_TRIANGLES, 0}};
  static uint8_t bytes[2048];
  static read_outcome want, got;
  gs_diag d;
  uint32_t seed = 99;
  unsigned errors = 0, branches = 0;
  for (unsigned round = 0; round < 3000; round++) {
    gs_cl_prim_format f = fmts[round % 7];
    gs_cl_prim_format enc = round % 7 == 6 ? fmts[0] : f;
    size_t len = 0;
    gs_cl_prim prev = {{0, 0, 0}};
    int have_prev = 0;
    seed = seed * 1664525u + 1013904223u;
    unsigned items = 1 + (seed >> 8) % 300;
    for (unsigned i = 0; i < items && len + 16 < sizeof bytes; i++) {
      seed = seed * 1664525u + 1013904223u;
      unsigned kind = (seed >> 24) % 64;
      if (kind == 0) { /* a relative branch a few 32-byte blocks away */
        int off = (int)((seed >> 8) % 9) - 3;
        bytes[len++] = GS_CL_PRIM_BRANCH, bytes[len++] = (uint8_t)off, bytes[len++] = (uint8_t)((unsigned)off >> 8);
        branches++;
      } else if (kind == 1) {
        bytes[len++] = (uint8_t)(seed >> 8); /* anything */
      } else {
        gs_cl_prim p;
        uint32_t base = have_prev && (seed & 1) ? prev.v[0] : (seed >> 4) & 0xffffff;
        for (int k = 0; k < 3; k++) {
          seed = seed * 1664525u + 1013904223u;
          p.v[k] = (base + (seed >> 8) % ((seed >> 30) ? 40u : 70000u)) & 0xffff;
          if (enc.data == GS_CL_DATA_XY) p.v[k] = seed;
        }
        int k = gs_cl_prim_encode(&enc, have_prev ? &prev : NULL, &p, bytes + len, NULL, &d);
        if (k > 0) len += (size_t)k, prev = p, have_prev = 1;
      }
    }
    if (round % 5) bytes[len++] = GS_CL_PRIM_ESCAPE;
    /* the list ends where its memory block does; the next block holds
       another random list */
    gs_mem *m = gs_mem_new(1u << 20);
    gs_addr a, b;
    uint32_t size = ((uint32_t)len + 31) & ~31u;
    assert_int_equal(gs_mem_alloc(m, size, 32, &a, NULL), GS_OK);
    assert_int_equal(gs_mem_alloc(m, 1024, 32, &b, NULL), GS_OK);
    a += size - (uint32_t)len;
    memcpy(gs_mem_ptr(m, a, (uint32_t)len), bytes, len);
    for (uint32_t i = 0; i < 1024; i++) ((uint8_t *)gs_mem_ptr(m, b, 1024))[i] = (uint8_t)(mix32(i + round) >> 8);
    gs_cl_view v = {m, NULL, 0, 0};
    if (round % 4 == 1) v.bytes = bytes + len / 2, v.base = a + (uint32_t)(len / 2), v.len = (uint32_t)(len - len / 2);
    gs_cl_prim_reader r;
    gs_cl_prim_item it;
    gs_cl_prim_reader_init(&r, &v, &f, a);
    int rc = GS_OK;
    want.n = 0;
    while (rc == GS_OK && !r.done && want.n < 400) {
      rc = gs_cl_prim_read(&r, &it, &d);
      if (rc == GS_OK && it.kind == GS_CL_ITEM_PRIM) want.prims[want.n++] = it.prim;
    }
    if (want.n == 400) { /* a loop of branches: not compared */
      gs_mem_free(m);
      continue;
    }
    outcome_end(&want, &r, rc, &d);
    errors += rc < 0;
    /* in chunks */
    gs_cl_prim_reader_init(&r, &v, &f, a);
    got.n = 0, rc = GS_OK;
    while (rc == GS_OK && !r.done) {
      unsigned cap = 1 + mix32(round * 31 + got.n) % 70, n = 999;
      rc = gs_cl_prim_read_prims(&r, got.prims + got.n, cap, &n, &d);
      assert_true(n <= cap);
      got.n += n;
      if (rc == GS_OK && !r.done) assert_int_equal(n, cap);
    }
    outcome_end(&got, &r, rc, &d);
    outcome_check(&got, &want, 1, round);
    /* skipped */
    gs_cl_prim_reader_init(&r, &v, &f, a);
    got.n = 0;
    rc = gs_cl_prim_skip(&r, &d);
    outcome_end(&got, &r, rc, &d);
    outcome_check(&got, &want, 0, round);
    gs_mem_free(m);
  }
  assert_true(errors > 300 && errors < 2700);
  assert_true(branches > 1000);
}

static void test_prim_hand_triangles(void **state) {
  (void)state;
  /* (0,1,2) first: coding 2: 15 | (1-0)<<4 | (2-0)<<10 | 0<<16 = 0x0000081f.
   * (2,1,3): sharing 0 = prev (2,1), 3-2 = 1: 1<<2 = 0x04.
   * (4,0,1): no sharing fits; deltas 2,-1,-2: 3 | 2<<4 | 0xf<<8 | 0xe<<12 = 0xef23.
   * (100,110,90): 10 and -10 (=54) from idx0: 15 | 10<<4 | 54<<10 | 100<<16 = 0x0064d8af.
   * (1000,2000,3000): 129, 0x03e8, 0x07d0, 0x0bb8. */
  static const hand_prim tri16[] = {
      {{0, 1, 2}, 2, 4, {0x1f, 0x08, 0x00, 0x00}},
      {{2, 1, 3}, 0, 1, {0x04}},
      {{4, 0, 1}, 1, 2, {0x23, 0xef}},
      {{100, 110, 90}, 2, 4, {0xaf, 0xd8, 0x64, 0x00}},
      {{1000, 2000, 3000}, 3, 7, {0x81, 0xe8, 0x03, 0xd0, 0x07, 0xb8, 0x0b}},
      /* (3000,2000,3031): sharing 2 = prev (1,0) = (2000,1000)? no; sharing 1
       * = prev (0,2) = (1000,3000)? no; sharing 0 = prev (2,1) = (3000,2000),
       * 3031-3000 = 31: 31<<2 = 0x7c. */
      {{3000, 2000, 3031}, 0, 1, {0x7c}},
      /* (2000,3000,3000): sharing 2 = prev (1,0) = (2000,3000), 3000-3031 = -31
       * = 33: 33<<2 | 2 = 0x86. */
      {{2000, 3000, 3000}, 0, 1, {0x86}},
  };
  check_hand_list((gs_cl_prim_format){GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16}, tri16, 7);
  /* 24-bit: (0x123456, +1, -1): 15 | 1<<4 | 63<<10 = 0xfc1f, then 24 bits. */
  static const hand_prim tri24[] = {
      {{0x123456, 0x123457, 0x123455}, 2, 5, {0x1f, 0xfc, 0x56, 0x34, 0x12}},
      {{0x000001, 0xabcdef, 0x800000}, 3, 10, {0x81, 0x01, 0x00, 0x00, 0xef, 0xcd, 0xab, 0x00, 0x00, 0x80}},
  };
  check_hand_list((gs_cl_prim_format){GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX24}, tri24, 2);
}

static void test_prim_hand_lines_points(void **state) {
  (void)state;
  /* (5,9): coding 2: 2 | 4<<2 | 5<<8 = 0x0512.
   * (9,12): idx0 = prev idx1 (code 0), 12-9 = 3: 3<<2 = 0x0c.
   * (9,14): idx0 = prev idx0 (code 1), 14-12 = 2: 2<<2 | 1 = 0x09.
   * (15,10): deltas 6 and -4: 3 | 6<<4 | 0xc<<8 = 0x0c63.
   * (300,1000): 129, 0x012c, 0x03e8. */
  static const hand_prim lines[] = {
      {{5, 9}, 2, 3, {0x12, 0x05, 0x00}},
      {{9, 12}, 0, 1, {0x0c}},
      {{9, 14}, 0, 1, {0x09}},
      {{15, 10}, 1, 2, {0x63, 0x0c}},
      {{300, 1000}, 3, 5, {0x81, 0x2c, 0x01, 0xe8, 0x03}},
  };
  check_hand_list((gs_cl_prim_format){GS_CL_PRIM_LINES, GS_CL_DATA_INDEX16}, lines, 5);
  /* RHTs with indices share Table 40; 24-bit coding 2 is 4 bytes. */
  static const hand_prim rhts[] = {
      {{0x10000, 0x0ffe1}, 2, 4, {0x86, 0x00, 0x00, 0x01}},  /* -31 = 33: 2 | 33<<2 = 0x86 */
      {{0x0ffe1, 0x0ffe0}, 0, 1, {0xfc}},                    /* code 0, -1 = 63: 63<<2 */
  };
  check_hand_list((gs_cl_prim_format){GS_CL_PRIM_RHTS, GS_CL_DATA_INDEX24}, rhts, 2);
  /* 7: 129, 0x0007. 10: +3 = 0x0c. 5000: +4990: 3 | 4990<<2 = 0x4dfb.
   * 60000: 129, 0xea60. 59990: -10 = 54: 54<<2 = 0xd8. */
  static const hand_prim points[] = {
      {{7}, 3, 3, {0x81, 0x07, 0x00}},
      {{10}, 0, 1, {0x0c}},
      {{5000}, 1, 2, {0xfb, 0x4d}},
      {{60000}, 3, 3, {0x81, 0x60, 0xea}},
      {{59990}, 0, 1, {0xd8}},
      {{59990 - 8192}, 1, 2, {0x03, 0x80}},  /* -8192: 3 | 0x2000<<2 = 0x8003 */
  };
  check_hand_list((gs_cl_prim_format){GS_CL_PRIM_POINTS, GS_CL_DATA_INDEX16}, points, 6);
}

static void test_prim_hand_xy(void **state) {
  (void)state;
  /* ((0,0),(16,0),(0,16)): coding 2: 15 | 16<<4 | 0<<11 | 0<<18 | 16<<25,
   *   x0 = y0 = 0: 0x2000010f.
   * ((0,16),(16,0),(20,20)): sharing 0; dx 20 = 0b0010100: bits 7:2 = 10,
   *   bit 8 = 0; dy 4 at bit 9: 0x0828.
   * ((20,20),(16,0),(25,-3)): sharing 0; dx 5: bits 7:2 = 2, bit 8 = 1; dy
   *   -23 = 105 at bit 9: 0x08 | 0x100 | 0xd200 = 0xd308.
   * ((25,-3),(16,0),(225,-103)): sharing 0, dx 200, dy -100 = 924:
   *   3 | 200<<4 | 924<<14 = 0xe70c83.
   * ((1000,1000),(-1000,5),(7,-2000)): 129 and three words y<<16 | x. */
  static const hand_prim tri[] = {
      {{GS_CL_XY(0, 0), GS_CL_XY(16, 0), GS_CL_XY(0, 16)}, 2, 8, {0x0f, 0x01, 0x00, 0x20, 0, 0, 0, 0}},
      {{GS_CL_XY(0, 16), GS_CL_XY(16, 0), GS_CL_XY(20, 20)}, 0, 2, {0x28, 0x08}},
      {{GS_CL_XY(20, 20), GS_CL_XY(16, 0), GS_CL_XY(25, -3)}, 0, 2, {0x08, 0xd3}},
      {{GS_CL_XY(25, -3), GS_CL_XY(16, 0), GS_CL_XY(225, -103)}, 1, 3, {0x83, 0x0c, 0xe7}},
      {{GS_CL_XY(1000, 1000), GS_CL_XY(-1000, 5), GS_CL_XY(7, -2000)},
       3,
       13,
       {0x81, 0xe8, 0x03, 0xe8, 0x03, 0x18, 0xfc, 0x05, 0x00, 0x07, 0x00, 0x30, 0xf8}},
  };
  check_hand_list((gs_cl_prim_format){GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY}, tri, 5);
  /* RHTs: ((0,0),(40,8)): coding 2: 2 | (20<<2) | 8<<9 = 0x1052, x0, y0.
   * ((40,8),(41,9)): v0 = prev v1 (code 0), dx 1: bit 8; dy 1 at bit 9: 0x0300.
   * ((40,8),(300,9)): v0 = prev v0, dx 259: coding 1: 3 | 1<<2 | 259<<4 = 0x1037.
   * ((-2000,0),(2000,0)): 129 and two words. */
  static const hand_prim rht[] = {
      {{GS_CL_XY(0, 0), GS_CL_XY(40, 8)}, 2, 6, {0x52, 0x10, 0, 0, 0, 0}},
      {{GS_CL_XY(40, 8), GS_CL_XY(41, 9)}, 0, 2, {0x00, 0x03}},
      {{GS_CL_XY(40, 8), GS_CL_XY(300, 9)}, 1, 3, {0x37, 0x10, 0x00}},
      {{GS_CL_XY(-2000, 0), GS_CL_XY(2000, 0)}, 3, 9, {0x81, 0x30, 0xf8, 0, 0, 0xd0, 0x07, 0, 0}},
  };
  check_hand_list((gs_cl_prim_format){GS_CL_PRIM_RHTS, GS_CL_DATA_XY}, rht, 4);
}

/* A relative branch: offset in 32-byte units from the 32-byte boundary at
 * or below the code byte. */
static void test_prim_relative_branch(void **state) {
  (void)state;
  uint8_t m[0x60];
  memset(m, 0xee, sizeof m);
  /* 0x1000: (0,1,2) coding 2; 0x1004: branch +2 units from 0x1000 -> 0x1040;
   * 0x1040: (2,1,3) coding 0; escape. */
  static const uint8_t a[] = {0x1f, 0x08, 0x00, 0x00, 0x82, 0x02, 0x00};
  memcpy(m, a, sizeof a);
  m[0x40] = 0x04;
  m[0x41] = 0x80;
  /* 0x1050: a backward branch by -1 unit from 0x1040 -> 0x1020, escape there */
  m[0x50] = 0x82;
  m[0x51] = 0xff;
  m[0x52] = 0xff;
  m[0x20] = 0x80;
  gs_cl_view v = {NULL, m, 0x1000, sizeof m};
  gs_cl_prim_format f = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  gs_cl_prim out[4];
  size_t n;
  gs_addr end;
  gs_diag d;
  assert_int_equal(gs_cl_prim_decode(&v, &f, 0x1000, out, 4, &n, &end, &d), GS_OK);
  assert_int_equal(n, 2);
  assert_int_equal(end, 0x1042);
  assert_true(out[1].v[0] == 2 && out[1].v[1] == 1 && out[1].v[2] == 3);
  assert_int_equal(gs_cl_prim_decode(&v, &f, 0x1050, out, 4, &n, &end, &d), GS_OK);
  assert_int_equal(n, 0);
  assert_int_equal(end, 0x1021);
}

/* ---- compressed primitive lists: random round trips --------------------- */

/* The next primitive of a random stream built to reach every coding:
 * mostly strip- and fan-like neighbours, sometimes small jumps, sometimes
 * far ones. */
static gs_cl_prim random_prim(const gs_cl_prim_format *f, const gs_cl_prim *prev, int nv) {
  gs_cl_prim p = {{0, 0, 0}};
  uint32_t max = f->data == GS_CL_DATA_INDEX24 ? 0xffffff : 0xffff;
  uint32_t r = rnd_below(8);
  for (int i = 0; i < nv; i++) {
    if (f->data == GS_CL_DATA_XY) {
      int32_t px = (int16_t)(prev->v[i] & 0xffff), py = (int16_t)(prev->v[i] >> 16);
      int32_t spread = r < 3 ? 60 : r < 5 ? 500 : r < 7 ? 64 : 32768;
      int32_t x = px + (int32_t)rnd_below(2 * (uint32_t)spread + 1) - spread;
      int32_t y = py + (int32_t)rnd_below(2 * (uint32_t)spread + 1) - spread;
      if (r == 7) x = (int32_t)rnd_below(65536) - 32768, y = (int32_t)rnd_below(65536) - 32768;
      p.v[i] = GS_CL_XY(x, y);
    } else {
      int64_t spread = r < 3 ? 7 : r < 5 ? 31 : r < 7 ? 8000 : (int64_t)max;
      int64_t x = (int64_t)prev->v[i] + (int64_t)rnd_below((uint32_t)(2 * spread + 1)) - spread;
      if (x < 0 || x > (int64_t)max) x = rnd_below(max + 1);
      p.v[i] = (uint32_t)x;
    }
  }
  if (rnd_below(2) && nv >= 2) {  /* share vertices with prev as strips and fans do */
    if (nv == 3) {
      static const int pick[3][2] = {{2, 1}, {0, 2}, {1, 0}};
      int s = (int)rnd_below(3);
      p.v[0] = prev->v[pick[s][0]];
      p.v[1] = prev->v[pick[s][1]];
    } else {
      p.v[0] = prev->v[rnd_below(2)];
    }
  }
  return p;
}

static void test_prim_random_roundtrip(void **state) {
  (void)state;
  static const gs_cl_prim_format fmts[] = {
      {GS_CL_PRIM_POINTS, GS_CL_DATA_INDEX16},    {GS_CL_PRIM_POINTS, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_LINES, GS_CL_DATA_INDEX16},     {GS_CL_PRIM_LINES, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16}, {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_RHTS, GS_CL_DATA_INDEX16},      {GS_CL_PRIM_RHTS, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY},      {GS_CL_PRIM_RHTS, GS_CL_DATA_XY},
  };
  enum { N = 4000 };
  static gs_cl_prim in[N], out[N];
  static uint8_t buf[N * GS_CL_PRIM_MAX_BYTES + 1];
  gs_diag d;
  for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
    const gs_cl_prim_format *f = &fmts[k];
    int nv = gs_cl_prim_vertices(f, &d), used[4] = {0};
    size_t len = 0;
    gs_cl_prim prev = {{0, 0, 0}};
    for (size_t i = 0; i < N; i++) {
      in[i] = random_prim(f, &prev, nv);
      int coding;
      int n = gs_cl_prim_encode(f, i ? &prev : NULL, &in[i], buf + len, &coding, &d);
      assert_true(n > 0);
      if (i == 0) assert_true(coding >= 2);  /* the first one never depends on prev */
      used[coding]++;
      len += (size_t)n;
      prev = in[i];
    }
    buf[len++] = GS_CL_PRIM_ESCAPE;
    /* Every coding the table defines is chosen (points have no coding 2). */
    for (int c = 0; c < 4; c++) {
      if (f->type == GS_CL_PRIM_POINTS && c == 2) assert_int_equal(used[c], 0);
      else if (used[c] == 0) fprintf(stderr, "format %u/%u never used coding %d\n", f->type, f->data, c), fail();
    }
    gs_cl_view v = {NULL, buf, 0x00200000, (uint32_t)len};
    size_t n;
    gs_addr end;
    assert_int_equal(gs_cl_prim_decode(&v, f, 0x00200000, out, N, &n, &end, &d), GS_OK);
    assert_int_equal(n, N);
    assert_int_equal(end, 0x00200000 + len);
    for (size_t i = 0; i < N; i++)
      for (int j = 0; j < nv; j++) assert_int_equal(out[i].v[j], in[i].v[j]);
  }
}

/* Most compact: no other coding that decodes to the same primitive is
 * shorter. Checked by brute force on small neighbourhoods. */
static void test_prim_most_compact(void **state) {
  (void)state;
  gs_cl_prim_format f = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  gs_cl_prim prev = {{100, 101, 102}};
  gs_diag d;
  for (int a = 90; a <= 110; a++)
    for (int b = 95; b <= 106; b += 11)
      for (int c = 60; c <= 140; c++) {
        gs_cl_prim p = {{(uint32_t)a, (uint32_t)b, (uint32_t)c}};
        uint8_t out[GS_CL_PRIM_MAX_BYTES];
        int coding, n = gs_cl_prim_encode(&f, &prev, &p, out, &coding, &d);
        int share = (a == 102 && b == 101) || (a == 100 && b == 102) || (a == 101 && b == 100);
        int want = share && c - 102 >= -31 && c - 102 <= 31 ? 1
                   : (a - 100 >= -8 && a - 100 <= 7 && b - 101 >= -8 && b - 101 <= 7 && c - 102 >= -8 && c - 102 <= 7)
                       ? 2
                   : (b - a >= -32 && b - a <= 31 && c - a >= -32 && c - a <= 31) ? 4
                                                                                  : 7;
        assert_int_equal(n, want);
      }
}

static void test_prim_errors(void **state) {
  (void)state;
  gs_diag d;
  gs_cl_prim out[8];
  size_t n;
  uint8_t b[8];
  gs_cl_prim_format pts = {GS_CL_PRIM_POINTS, GS_CL_DATA_INDEX16};
  gs_cl_prim_format lines = {GS_CL_PRIM_LINES, GS_CL_DATA_INDEX16};
  gs_cl_prim_format tri = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  gs_cl_prim_format rxy = {GS_CL_PRIM_RHTS, GS_CL_DATA_XY};
  gs_cl_view v = {NULL, b, 0x3000, 0};
  /* points coding 2 (run length) is not implemented in hardware */
  static const uint8_t p2[] = {0x81, 0x05, 0x00, 0x06, 0x80};
  memcpy(b, p2, sizeof p2);
  v.len = sizeof p2;
  assert_error(gs_cl_prim_decode(&v, &pts, 0x3000, out, 8, &n, NULL, &d), GS_EINVAL, &d,
               "0x00003003: reserved compressed-list code 0x06 (coding 2)");
  /* lines coding 1 with bits 3:2 = 3 */
  b[0] = 0x0f;
  b[1] = 0x00;
  b[2] = 0x80;
  v.len = 3;
  assert_error(gs_cl_prim_decode(&v, &lines, 0x3000, out, 8, &n, NULL, &d), GS_EINVAL, &d,
               "0x00003000: reserved compressed-list code 0x0f");
  assert_error(gs_cl_prim_decode(&v, &rxy, 0x3000, out, 8, &n, NULL, &d), GS_EINVAL, &d, "reserved");
  /* truncated: a coding-3 triangle with one byte missing */
  static const uint8_t t3[] = {0x04, 0x81, 0, 0, 1, 0, 2};
  memcpy(b, t3, sizeof t3);
  v.len = sizeof t3;
  assert_error(gs_cl_prim_decode(&v, &tri, 0x3000, out, 8, &n, NULL, &d), GS_EFAULT, &d,
               "0x00003001: compressed primitive (coding 3, 7 bytes) runs past readable memory");
  /* no escape before the end of memory */
  memset(b, 0x04, 3);
  v.len = 3;
  assert_error(gs_cl_prim_decode(&v, &tri, 0x3000, out, 8, &n, NULL, &d), GS_EFAULT, &d,
               "0x00003003: compressed list runs past readable memory");
  /* a branch to itself loops until the budget ends */
  b[0] = 0x82;
  b[1] = b[2] = 0;
  assert_error(gs_cl_prim_decode(&v, &tri, 0x3000, out, 8, &n, NULL, &d), GS_EINVAL, &d, "a loop of relative branches");
  /* a branch below address 0 */
  b[1] = 0x00;
  b[2] = 0x80;
  assert_error(gs_cl_prim_decode(&v, &tri, 0x3000, out, 8, &n, NULL, &d), GS_EINVAL, &d,
               "0x00003000: relative branch by -32768 x 32 bytes leaves the bus address space");
  /* formats with no coding table */
  gs_cl_prim_format none = {GS_CL_PRIM_TRIANGLES, 0}, pxy = {GS_CL_PRIM_POINTS, GS_CL_DATA_XY};
  assert_error(gs_cl_prim_decode(&v, &none, 0x3000, out, 8, &n, NULL, &d), GS_EINVAL, &d,
               "0x00003000: no Primitive List Format (56)");
  assert_error(gs_cl_prim_decode(&v, &pxy, 0x3000, out, 8, &n, NULL, &d), GS_EINVAL, &d, "no XY coordinate coding");
  /* the encoder rejects indices wider than the format */
  gs_cl_prim big = {{0x10000, 0, 0}};
  uint8_t o[GS_CL_PRIM_MAX_BYTES];
  assert_error(gs_cl_prim_encode(&tri, NULL, &big, o, NULL, &d), GS_EARG, &d, "index 65536 of vertex 0 does not fit 16-bit");
  /* more primitives than room */
  static const uint8_t two[] = {0x81, 0, 0, 1, 0, 2, 0, 0x04};
  uint8_t m[9];
  memcpy(m, two, 8);
  m[8] = 0x80;
  gs_cl_view v2 = {NULL, m, 0x3000, 9};
  assert_error(gs_cl_prim_decode(&v2, &tri, 0x3000, out, 1, &n, NULL, &d), GS_EARG, &d, "more than 1 primitives");
}

/* ---- dumps of hand-built lists -------------------------------------------- */

typedef struct mem_fixture {
  gs_mem *mem;
} mem_fixture;

static int mem_setup(void **state) {
  mem_fixture *f = calloc(1, sizeof *f);
  f->mem = gs_mem_new(16u << 20);
  assert_non_null(f->mem);
  *state = f;
  return 0;
}

static int mem_teardown(void **state) {
  mem_fixture *f = *state;
  gs_mem_free(f->mem);
  free(f);
  return 0;
}

static gs_addr alloc_at(gs_mem *m, uint32_t size, uint32_t align, gs_addr want) {
  gs_addr a;
  assert_int_equal(gs_mem_alloc(m, size, align, &a, NULL), GS_OK);
  assert_int_equal(a, want);
  return a;
}

/* A binning list built with the typed emitters, as the driver will. */
static void test_dump_binning_list(void **state) {
  mem_fixture *fx = *state;
  gs_diag d;
  gs_addr list = alloc_at(fx->mem, 256, 16, 0x00100000);
  gs_addr rec = alloc_at(fx->mem, 256, 16, 0x00100100);
  gs_cl_gl_shader_record r = {.clipping = 1, .fs_code = 0x00104000, .vs_attr_select = 1, .vs_attr_size = 12,
                              .vs_code = 0x00105000, .vs_uniforms = 0x00106000, .cs_attr_select = 2,
                              .cs_attr_size = 28, .cs_code = 0x00107000, .cs_uniforms = 0x00108000};
  gs_cl_gl_attribute_record a0 = {.base = 0x00109000, .bytes_minus_1 = 11, .stride = 12};
  gs_cl_gl_attribute_record a1 = {.base = 0x0010a000, .bytes_minus_1 = 27, .stride = 28, .cs_vpm_offset = 4};
  uint8_t b[40];
  assert_int_equal(gs_cl_pack_gl_shader_record(b, sizeof b, &r, &d), 36);
  assert_int_equal(gs_mem_write(fx->mem, rec, b, 36, &d), GS_OK);
  assert_int_equal(gs_cl_pack_gl_attribute_record(b, sizeof b, &a0, &d), 8);
  assert_int_equal(gs_mem_write(fx->mem, rec + 36, b, 8, &d), GS_OK);
  assert_int_equal(gs_cl_pack_gl_attribute_record(b, sizeof b, &a1, &d), 8);
  assert_int_equal(gs_mem_write(fx->mem, rec + 44, b, 8, &d), GS_OK);

  gs_cl_writer w;
  gs_cl_writer_init(&w, fx->mem, list, 256);
  assert_int_equal(gs_cl_emit_tile_binning_mode_configuration(
                       &w, &(gs_cl_tile_binning_mode_configuration){.tile_alloc = 0x00200000,
                                                                    .tile_alloc_size = 65536, .tsda = 0x00210000,
                                                                    .width_tiles = 2, .height_tiles = 1,
                                                                    .auto_init_tsda = 1, .block_size = 2},
                       &d), GS_OK);
  assert_int_equal(gs_cl_put_id(&w, GS_CL_START_TILE_BINNING, NULL, &d), GS_OK);
  assert_int_equal(gs_cl_emit_primitive_list_format(&w, &(gs_cl_primitive_list_format){.prim_type = 2, .data_type = 1},
                                                    &d), GS_OK);
  assert_int_equal(gs_cl_emit_clip_window(&w, &(gs_cl_clip_window){0, 0, 128, 64}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_configuration_bits(&w, &(gs_cl_configuration_bits){.enable_forward_facing = 1,
                                                      .enable_reverse_facing = 1, .depth_func = 1,
                                                      .z_updates = 1, .early_z = 1}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_viewport_offset(&w, &(gs_cl_viewport_offset){64 * 16, 32 * 16}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_clipper_xy_scaling(&w, &(gs_cl_clipper_xy_scaling){1024.0f, -512.0f}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_clipper_z_scale_and_offset(&w, &(gs_cl_clipper_z_scale_and_offset){0.5f, 0.5f}, &d),
                   GS_OK);
  assert_int_equal(gs_cl_emit_gl_shader_state(&w, &(gs_cl_gl_shader_state){.record = rec, .attr_arrays = 2}, &d),
                   GS_OK);
  assert_int_equal(gs_cl_emit_vertex_array_primitives(&w, &(gs_cl_vertex_array_primitives){4, 3, 0}, &d), GS_OK);
  assert_int_equal(gs_cl_put_id(&w, GS_CL_INCREMENT_SEMAPHORE, NULL, &d), GS_OK);
  assert_int_equal(gs_cl_put_id(&w, GS_CL_FLUSH, NULL, &d), GS_OK);
  assert_int_equal(w.cur, 0x00100048);

  gs_cl_view v = {fx->mem, NULL, 0, 0};
  int rc;
  char *text = dump_text(&v, list, w.cur, NULL, &rc, &d);
  assert_int_equal(rc, GS_OK);
  assert_text(text,
              "0x00100000  112 TILE_BINNING_MODE_CONFIGURATION  tile_alloc=0x00200000 tile_alloc_size=65536 "
              "tsda=0x00210000 width_tiles=2 height_tiles=1 flags=auto_init_tsda initial_block_size=32 "
              "block_size=128\n"
              "0x00100010  6 START_TILE_BINNING\n"
              "0x00100011  56 PRIMITIVE_LIST_FORMAT  prim_type=triangles data_type=index16\n"
              "0x00100013  102 CLIP_WINDOW  left=0 bottom=0 width=128 height=64\n"
              "0x0010001c  96 CONFIGURATION_BITS  flags=enable_forward_facing|enable_reverse_facing|z_updates|early_z "
              "coverage_read_type=level_4x8 oversample=none coverage_update=nonzero "
              "coverage_read_mode=clear_on_read depth_func=lt\n"
              "0x00100020  103 VIEWPORT_OFFSET  x=64 y=32\n"
              "0x00100025  105 CLIPPER_XY_SCALING  half_width=1024 half_height=-512\n"
              "0x0010002e  106 CLIPPER_Z_SCALE_AND_OFFSET  scale=0.5 offset=0.5\n"
              "0x00100037  64 GL_SHADER_STATE  record=0x00100100 flags=none attr_arrays=2\n"
              "0x00100100    GL_SHADER_RECORD  flags=clipping fs_uniform_count=0 fs_varyings=0 fs_code=0x00104000 "
              "fs_uniforms=0x00000000 vs_uniform_count=0 vs_attr_select=0x01 vs_attr_size=12 vs_code=0x00105000 "
              "vs_uniforms=0x00106000 cs_uniform_count=0 cs_attr_select=0x02 cs_attr_size=28 cs_code=0x00107000 "
              "cs_uniforms=0x00108000\n"
              "0x00100124    GL_ATTRIBUTE_RECORD[0]  base=0x00109000 bytes_minus_1=11 stride=12 vs_vpm_offset=0 "
              "cs_vpm_offset=0\n"
              "0x0010012c    GL_ATTRIBUTE_RECORD[1]  base=0x0010a000 bytes_minus_1=27 stride=28 vs_vpm_offset=0 "
              "cs_vpm_offset=4\n"
              "0x0010003c  33 VERTEX_ARRAY_PRIMITIVES  mode=triangles length=3 first_index=0\n"
              "0x00100046  7 INCREMENT_SEMAPHORE\n"
              "0x00100047  4 FLUSH\n");
  free(text);
  /* Without records, and binary-identical to the same list parsed from text. */
  gs_cl_dump_opts o = {.no_records = 1};
  text = dump_text(&v, list, w.cur, &o, &rc, &d);
  assert_null(strstr(text, "GL_SHADER_RECORD"));
  /* every line parses back to the bytes it came from */
  const uint8_t *bytes = gs_mem_ptr(fx->mem, list, 0x48);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    gs_addr a = (gs_addr)strtoul(line, NULL, 16);
    uint8_t again[32];
    int n = gs_cl_parse(line + 12, again, sizeof again, &d);
    assert_true(n > 0);
    assert_memory_equal(again, bytes + (a - list), (size_t)n);
  }
  free(text);
}

/* A rendering list whose tiles branch into tile lists of the kind the PTB
 * writes (docs/control-lists.md): format, shader state, compressed list,
 * Return. */
static void test_dump_rendering_list(void **state) {
  mem_fixture *fx = *state;
  gs_diag d;
  gs_addr list = alloc_at(fx->mem, 256, 16, 0x00100000);
  gs_addr tiles = alloc_at(fx->mem, 64, 32, 0x00100100);
  gs_addr nv = alloc_at(fx->mem, 16, 16, 0x00100140);
  uint8_t b[16];
  gs_cl_nv_shader_record r = {.vertex_stride = 24, .fs_varyings = 3, .fs_code = 0x00104000,
                              .vertex_data = 0x0010b000};
  assert_int_equal(gs_cl_pack_nv_shader_record(b, sizeof b, &r, &d), 16);
  assert_int_equal(gs_mem_write(fx->mem, nv, b, 16, &d), GS_OK);
  /* tile (0,0): two triangles; tile (1,0): empty */
  gs_cl_writer t;
  gs_cl_writer_init(&t, fx->mem, tiles, 32);
  assert_int_equal(gs_cl_emit_primitive_list_format(&t, &(gs_cl_primitive_list_format){2, 1}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_nv_shader_state(&t, &(gs_cl_nv_shader_state){nv}, &d), GS_OK);
  assert_int_equal(gs_cl_put_id(&t, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, &d), GS_OK);
  assert_int_equal(gs_cl_put_prim(&t, &(gs_cl_prim){{0, 1, 2}}, &d), GS_OK);
  assert_int_equal(gs_cl_put_prim(&t, &(gs_cl_prim){{2, 1, 3}}, &d), GS_OK);
  assert_int_equal(gs_cl_put_id(&t, GS_CL_RETURN_FROM_SUB_LIST, NULL, &d), GS_OK);  /* closes the list */
  gs_cl_writer_init(&t, fx->mem, tiles + 32, 32);
  assert_int_equal(gs_cl_put_id(&t, GS_CL_RETURN_FROM_SUB_LIST, NULL, &d), GS_OK);

  gs_cl_writer w;
  gs_cl_writer_init(&w, fx->mem, list, 256);
  assert_int_equal(gs_cl_emit_clear_colors(&w, &(gs_cl_clear_colors){0xff00ffff, 0xff00ffff, 0xffffff, 0, 0}, &d),
                   GS_OK);
  assert_int_equal(gs_cl_emit_tile_rendering_mode_configuration(
                       &w, &(gs_cl_tile_rendering_mode_configuration){.address = 0x00300000, .width = 128,
                                                                      .height = 64, .color_format = 1}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_tile_coordinates(&w, &(gs_cl_tile_coordinates){0, 0}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_store_tile_buffer_general(&w, &(gs_cl_store_tile_buffer_general){0}, &d), GS_OK);
  for (uint32_t x = 0; x < 2; x++) {
    assert_int_equal(gs_cl_emit_tile_coordinates(&w, &(gs_cl_tile_coordinates){x, 0}, &d), GS_OK);
    if (x == 0) assert_int_equal(gs_cl_put_id(&w, GS_CL_WAIT_ON_SEMAPHORE, NULL, &d), GS_OK);
    assert_int_equal(gs_cl_emit_branch_to_sub_list(&w, &(gs_cl_branch_to_sub_list){tiles + 32 * x}, &d), GS_OK);
    assert_int_equal(gs_cl_put_id(&w, x == 1 ? GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF
                                             : GS_CL_STORE_MS_RESOLVED_TILE_COLOR_BUFFER, NULL, &d), GS_OK);
  }
  gs_cl_view v = {fx->mem, NULL, 0, 0};
  int rc;
  char *text = dump_text(&v, list, w.cur, NULL, &rc, &d);
  assert_int_equal(rc, GS_OK);
  assert_text(text,
              "0x00100000  114 CLEAR_COLORS  color0=0xff00ffff color1=0xff00ffff zs=0xffffff vg_mask=0x00 stencil=0\n"
              "0x0010000e  113 TILE_RENDERING_MODE_CONFIGURATION  address=0x00300000 width=128 height=64 flags=none "
              "color_format=rgba8888 decimate=1x memory_format=raster early_z_direction=lt_le\n"
              "0x00100019  115 TILE_COORDINATES  column=0 row=0\n"
              "0x0010001c  28 STORE_TILE_BUFFER_GENERAL  buffer=none format=raster mode=sample0 pixel_format=rgba8888 "
              "flags=none address=0x00000000\n"
              "0x00100023  115 TILE_COORDINATES  column=0 row=0\n"
              "0x00100026  8 WAIT_ON_SEMAPHORE\n"
              "0x00100027  17 BRANCH_TO_SUB_LIST  address=0x00100100\n"
              "0x00100100    56 PRIMITIVE_LIST_FORMAT  prim_type=triangles data_type=index16\n"
              "0x00100102    65 NV_SHADER_STATE  record=0x00100140\n"
              "0x00100140      NV_SHADER_RECORD  flags=none vertex_stride=24 fs_uniform_count=0 fs_varyings=3 "
              "fs_code=0x00104000 fs_uniforms=0x00000000 vertex_data=0x0010b000\n"
              "0x00100107    48 COMPRESSED_PRIMITIVE_LIST\n"
              "0x00100108      triangle  coding=2 indices=0,1,2\n"
              "0x0010010c      triangle  coding=0 indices=2,1,3\n"
              "0x0010010d      escape\n"
              "0x0010010e    18 RETURN_FROM_SUB_LIST\n"
              "0x0010002c  24 STORE_MS_RESOLVED_TILE_COLOR_BUFFER\n"
              "0x0010002d  115 TILE_COORDINATES  column=1 row=0\n"
              "0x00100030  17 BRANCH_TO_SUB_LIST  address=0x00100120\n"
              "0x00100120    18 RETURN_FROM_SUB_LIST\n"
              "0x00100035  25 STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF\n");
  free(text);
}

/* XY primitives, VG inline primitives, a clipped primitive with its record,
 * a Branch, and a list format given in the options. */
static void test_dump_vg_and_clipped(void **state) {
  mem_fixture *fx = *state;
  gs_diag d;
  gs_addr list = alloc_at(fx->mem, 128, 32, 0x00100000);
  gs_addr cont = alloc_at(fx->mem, 64, 32, 0x00100080);
  gs_addr clip = alloc_at(fx->mem, 96, 8, 0x001000c0);
  gs_cl_clipped_vertex cv = {.xs = 16 * 10 + 8, .ys = -16, .zs = 0.25f, .inv_wc = 1.0f, .coeff0 = 1.0f};
  uint8_t b[32];
  assert_int_equal(gs_cl_pack_clipped_vertex(b, sizeof b, &cv, &d), 32);
  assert_int_equal(gs_mem_write(fx->mem, clip + 32, b, 32, &d), GS_OK);
  gs_cl_writer w;
  gs_cl_writer_init(&w, fx->mem, list, 128);
  w.fmt = (gs_cl_prim_format){GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY};  /* in force, but no 56 in this list */
  uint32_t xy[3] = {GS_CL_XY(0, 0), GS_CL_XY(160, 0), GS_CL_XY(0, -16)};
  assert_int_equal(gs_cl_put_vg_inline(&w, 4, 0, xy, 3, &d), GS_OK);
  assert_int_equal(gs_cl_put_id(&w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, &d), GS_OK);
  assert_int_equal(gs_cl_put_prim(&w, &(gs_cl_prim){{GS_CL_XY(0, 0), GS_CL_XY(8, 0), GS_CL_XY(0, 8)}}, &d), GS_OK);
  uint32_t clipped[4] = {clip, 0, 1, 0};
  assert_int_equal(gs_cl_put_id(&w, GS_CL_CLIPPED_PRIMITIVE, clipped, &d), GS_OK);
  assert_int_equal(gs_cl_put_prim(&w, &(gs_cl_prim){{GS_CL_XY(0, 8), GS_CL_XY(8, 0), GS_CL_XY(9, 9)}}, &d), GS_OK);
  assert_int_equal(gs_cl_emit_branch(&w, &(gs_cl_branch){cont}, &d), GS_OK);
  gs_cl_writer_init(&w, fx->mem, cont, 64);
  assert_int_equal(gs_cl_put_id(&w, GS_CL_NOP, NULL, &d), GS_OK);
  gs_cl_view v = {fx->mem, NULL, 0, 0};
  gs_cl_dump_opts o = {.fmt = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY}};
  int rc;
  char *text = dump_text(&v, list, w.cur, &o, &rc, &d);
  assert_int_equal(rc, GS_OK);
  assert_text(text,
              "0x00100000  42 VG_INLINE_PRIMITIVES  type=triangles continuation=0\n"
              "0x00100002    vertex  xy=(0,0)\n"
              "0x00100006    vertex  xy=(10,0)\n"
              "0x0010000a    vertex  xy=(0,-1)\n"
              "0x0010000e    escape\n"
              "0x00100012  48 COMPRESSED_PRIMITIVE_LIST\n"
              "0x00100013    triangle  coding=2 xy=(0,0),(0.5,0),(0,0.5)\n"
              "0x0010001b    escape\n"
              "0x0010001c  49 CLIPPED_PRIMITIVE  record=0x001000c0 flags=clip_v1\n"
              "0x001000e0    CLIPPED_VERTEX[1]  xs=10.5 ys=-1 zs=0.25 inv_wc=1 coeff0=1 coeff1=0 coeff2=0\n"
              "0x00100021    triangle  coding=2 xy=(0,0.5),(0.5,0),(0.5625,0.5625)\n"
              "0x00100029    escape\n"
              "0x0010002a  16 BRANCH  address=0x00100080\n"
              "0x00100080  1 NOP\n");
  free(text);
  /* the same list without a format: the compressed list cannot be read */
  text = dump_text(&v, list, w.cur, NULL, &rc, &d);
  assert_error(rc, GS_EINVAL, &d, "0x00100012: COMPRESSED_PRIMITIVE_LIST without a Primitive List Format (56)");
  free(text);
}

static void test_dump_errors(void **state) {
  mem_fixture *fx = *state;
  gs_diag d;
  int rc;
  char *text;
  gs_addr a = alloc_at(fx->mem, 64, 16, 0x00100000);
  uint8_t *m = gs_mem_ptr(fx->mem, a, 64);
  gs_cl_view v = {fx->mem, NULL, 0, 0};
  /* unknown ID */
  m[0] = 1;
  m[1] = 3;
  text = dump_text(&v, a, a + 2, NULL, &rc, &d);
  assert_error(rc, GS_EINVAL, &d, "0x00100001: unknown control-list packet ID 3 (0x03)");
  assert_text(text, "0x00100000  1 NOP\n");
  free(text);
  /* a packet that runs past the end address */
  m[1] = 115;
  text = dump_text(&v, a, a + 3, NULL, &rc, &d);
  assert_error(rc, GS_EINVAL, &d, "0x00100001: TILE_COORDINATES (3 bytes) runs past the end of the list at 0x00100003");
  free(text);
  /* truncated by the end of memory */
  m[62] = 112;
  text = dump_text(&v, a + 62, a + 100, NULL, &rc, &d);
  assert_error(rc, GS_EFAULT, &d, "0x0010003e: TILE_BINNING_MODE_CONFIGURATION (16 bytes) is truncated");
  free(text);
  /* a branch loop */
  m[0] = 16;
  m[1] = 0x00;
  m[2] = 0x00;
  m[3] = 0x10;
  m[4] = 0x00;
  gs_cl_dump_opts o = {.max_packets = 1000};
  text = dump_text(&v, a, a + 5, &o, &rc, &d);
  assert_error(rc, GS_EINVAL, &d,
               "0x00100000: the list loops: it comes back here every 1 packets, through 16 BRANCH at 0x00100000 "
               "(which continues at 0x00100000), and never reaches the end 0x00100005");
  assert_text(text, "0x00100000  16 BRANCH  address=0x00100000\n");
  free(text);
  /* a list longer than the packet budget: five NOPs, three allowed */
  memset(m + 5, 1, 5);
  o.max_packets = 3;
  text = dump_text(&v, a + 5, a + 10, &o, &rc, &d);
  assert_error(rc, GS_EINVAL, &d, "0x00100008: more than 3 packets without reaching the end 0x0010000a");
  free(text);
  /* sub-lists nested too deeply: a sub-list that calls itself */
  m[0] = 17;
  text = dump_text(&v, a, a + 5, NULL, &rc, &d);
  assert_error(rc, GS_EINVAL, &d, "0x00100000: BRANCH_TO_SUB_LIST nests sub-lists deeper than 2 levels");
  free(text);
  /* a branch into unallocated memory */
  m[3] = 0x20;
  text = dump_text(&v, a, a + 5, NULL, &rc, &d);
  assert_error(rc, GS_EFAULT, &d, "0x00200000: control list is not in readable memory");
  free(text);
  /* a broken compressed list shows its good items, then fails */
  /* points: 129 + index 1 (coding 3), +1, +1 (coding 0: 1<<2), then 0x02:
   * the run-length coding 2 the hardware does not implement */
  static const uint8_t broken[] = {56, 0x10, 48, 0x81, 1, 0, 0x04, 0x04, 0x02, 0x80};
  memcpy(m, broken, sizeof broken);
  text = dump_text(&v, a, a + 16, NULL, &rc, &d);
  assert_error(rc, GS_EINVAL, &d, "0x00100008: reserved compressed-list code 0x02 (coding 2)");
  assert_text(text,
              "0x00100000  56 PRIMITIVE_LIST_FORMAT  prim_type=points data_type=index16\n"
              "0x00100002  48 COMPRESSED_PRIMITIVE_LIST\n"
              "0x00100003    point  coding=3 indices=1\n"
              "0x00100006    point  coding=0 indices=2\n"
              "0x00100007    point  coding=0 indices=3\n");
  free(text);
  /* Return at depth 0 is ignored; Halt stops */
  static const uint8_t ret[] = {18, 1, 0, 3};
  memcpy(m, ret, sizeof ret);
  text = dump_text(&v, a, a + 40, NULL, &rc, &d);
  assert_int_equal(rc, GS_OK);
  assert_text(text, "0x00100000  18 RETURN_FROM_SUB_LIST\n0x00100001  1 NOP\n0x00100002  0 HALT\n");
  free(text);
}

/* ---- the writer's block chaining ----------------------------------------- */

typedef struct pool {
  gs_addr next, end;
  uint32_t block, stride;
  int calls;
} pool;

static int pool_more(void *ud, gs_addr *start, uint32_t *size, gs_diag *d) {
  pool *p = ud;
  if (p->next + p->block > p->end) return gs_diag_set(d, GS_ENOMEM, "tile pool exhausted");
  *start = p->next;
  *size = p->block;
  p->next += p->stride;
  p->calls++;
  return GS_OK;
}

/* Walks a tile list as the CLE would (packets, Branch, compressed lists
 * with relative branches), collecting the primitives and counting both
 * kinds of chaining. */
static size_t collect(const gs_cl_view *v, gs_addr a, gs_cl_prim *out, size_t cap, int *branches, int *rel) {
  gs_cl_prim_format fmt = {0, 0};
  size_t n = 0;
  gs_diag d;
  for (;;) {
    gs_cl_packet p;
    int rc = gs_cl_decode(v, a, &fmt, 0, &p, &d);
    if (rc < 0) fprintf(stderr, "%s\n", d.msg);
    assert_int_equal(rc, GS_OK);
    a = p.next;
    if (p.info->id == GS_CL_RETURN_FROM_SUB_LIST) return n;
    if (p.info->id == GS_CL_PRIMITIVE_LIST_FORMAT) fmt = (gs_cl_prim_format){(uint8_t)p.values[0], (uint8_t)p.values[1]};
    if (p.info->id == GS_CL_BRANCH) a = p.values[0], ++*branches;
    if (p.info->tail != GS_CL_TAIL_PRIMS) continue;
    gs_cl_prim_reader r;
    gs_cl_prim_item it;
    gs_cl_prim_reader_init(&r, v, &fmt, p.tail);
    while (!r.done) {
      assert_int_equal(gs_cl_prim_read(&r, &it, &d), GS_OK);
      if (it.kind == GS_CL_ITEM_BRANCH) ++*rel;
      if (it.kind == GS_CL_ITEM_PRIM) {
        assert_true(n < cap);
        out[n++] = it.prim;
      }
    }
  }
}

static void write_tile_list(gs_cl_writer *w, const gs_cl_prim *in, size_t n, gs_diag *d) {
  assert_int_equal(gs_cl_emit_primitive_list_format(w, &(gs_cl_primitive_list_format){2, 1}, d), GS_OK);
  assert_int_equal(gs_cl_put_id(w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, d), GS_OK);
  for (size_t i = 0; i < n; i++) {
    if (i % 97 == 96) {  /* a state change in the middle closes and reopens the list */
      assert_int_equal(gs_cl_emit_nv_shader_state(w, &(gs_cl_nv_shader_state){0x00100000}, d), GS_OK);
      assert_int_equal(gs_cl_put_id(w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, d), GS_OK);
    }
    assert_int_equal(gs_cl_put_prim(w, &in[i], d), GS_OK);
  }
  assert_int_equal(gs_cl_put_id(w, GS_CL_RETURN_FROM_SUB_LIST, NULL, d), GS_OK);
}

/* One writer's run for test_put_prims: the list opened in format f, then
 * prims[0..n) by gs_cl_put_prim one at a time (chunk 0) or by
 * gs_cl_put_prims in chunks of up to `chunk`; the memory, the writer and
 * the error it leaves. */
typedef struct put_run {
  gs_mem *m;
  gs_cl_writer w;
  pool p;
  int rc;
  char msg[GS_DIAG_MAX];
} put_run;

static void put_run_do(put_run *o, const gs_cl_prim_format *f, gs_addr start, uint32_t size, const pool *p,
                       const gs_cl_prim *prims, size_t n, unsigned chunk, uint32_t readable) {
  gs_diag d;
  gs_addr a;
  o->m = gs_mem_new(16u << 20);
  assert_int_equal(gs_mem_alloc(o->m, readable, 32, &a, NULL), GS_OK);
  gs_cl_writer_init(&o->w, o->m, start, size);
  o->p = *p;
  if (p->block) gs_cl_writer_chain(&o->w, pool_more, &o->p);
  gs_cl_primitive_list_format pf = {f->type, f->data};
  o->rc = gs_cl_emit_primitive_list_format(&o->w, &pf, &d);
  if (o->rc >= 0) o->rc = gs_cl_put_id(&o->w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, &d);
  for (size_t i = 0; i < n && o->rc >= 0;) {
    size_t k = chunk ? 1 + mix32((uint32_t)i * 7 + chunk) % chunk : 1;
    k = k < n - i ? k : n - i;
    o->rc = chunk ? gs_cl_put_prims(&o->w, prims + i, k, &d) : gs_cl_put_prim(&o->w, prims + i, &d);
    i += k;
  }
  snprintf(o->msg, sizeof o->msg, "%s", o->rc < 0 ? d.msg : "");
}

/* gs_cl_put_prims writes what gs_cl_put_prim one primitive at a time
 * writes: the same bytes everywhere in memory, the same writer (position,
 * block, previous primitive), blocks taken and error: random primitives in
 * every format, indices that do not fit, blocks of 32 to 288 bytes chained
 * near (relative branches) or far (escape, Branch, a new list; the pool
 * soon exhausted) or not at all (a full block is the error), and lists
 * that run out of readable memory. */
static void test_put_prims(void **state) {
  (void)state;
  static const gs_cl_prim_format fmts[6] = {
      {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16}, {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_POINTS, GS_CL_DATA_INDEX16},    {GS_CL_PRIM_LINES, GS_CL_DATA_INDEX24},
      {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_XY},      {GS_CL_PRIM_RHTS, GS_CL_DATA_XY}};
  static gs_cl_prim prims[600];
  static put_run one, many;
  unsigned errors = 0, chained = 0;
  uint32_t seed = 7;
  for (unsigned round = 0; round < 400; round++) {
    const gs_cl_prim_format *f = &fmts[round % 6];
    seed = seed * 1664525u + 1013904223u;
    size_t n = 1 + (seed >> 8) % 600;
    for (size_t i = 0; i < n; i++) {
      seed = seed * 1664525u + 1013904223u;
      uint32_t base = i && (seed & 3) ? prims[i - 1].v[(seed >> 2) % 3] : (seed >> 8);
      for (int k = 0; k < 3; k++) {
        seed = seed * 1664525u + 1013904223u;
        prims[i].v[k] = f->data == GS_CL_DATA_XY ? seed : (base + (seed >> 8) % ((seed >> 30) ? 50u : 5000u)) &
                                                             ((seed >> 4) % 500 ? 0xffffu : 0x1ffffffu);
      }
    }
    gs_addr start = 0x100000u + 32u * (mix32(round) % 64);
    uint32_t size = 32 + mix32(round + 1) % 600;
    pool p = {0};
    if (round % 4) {
      p.block = 32 + 32 * (mix32(round + 2) % 9);
      p.next = start + ((size + 31) & ~31u) + 64;
      p.stride = round % 4 == 3 ? (3u << 19) : p.block + 32 * (mix32(round + 3) % 4);
      p.end = 0x100000u + (4u << 20);
    }
    uint32_t readable = round % 10 == 9 ? start - 0x100000u + size / 2 : 4u << 20;
    put_run_do(&one, f, start, size, &p, prims, n, 0, readable);
    put_run_do(&many, f, start, size, &p, prims, n, 1 + round % 70, readable);
    if (one.rc != many.rc || strcmp(one.msg, many.msg))
      fail_msg("round %u: rc %d '%s', one at a time %d '%s'", round, many.rc, many.msg, one.rc, one.msg);
    const gs_cl_writer *a = &one.w, *b = &many.w;
    if (a->cur != b->cur || a->end != b->end || a->in_list != b->in_list || a->have_prev != b->have_prev ||
        memcmp(&a->prev, &b->prev, sizeof a->prev) || one.p.calls != many.p.calls || one.p.next != many.p.next)
      fail_msg("round %u: writer at 0x%08x..0x%08x, %d blocks; one at a time 0x%08x..0x%08x, %d blocks", round,
               b->cur, b->end, many.p.calls, a->cur, a->end, one.p.calls);
    if (memcmp(gs_mem_ptr(one.m, 0x100000u, readable), gs_mem_ptr(many.m, 0x100000u, readable), readable))
      fail_msg("round %u: the memory differs", round);
    errors += one.rc < 0;
    chained += one.p.calls > 0;
    gs_mem_free(one.m);
    gs_mem_free(many.m);
  }
  assert_true(errors > 40 && errors < 360);
  assert_true(chained > 150);
}

static void test_writer_chaining(void **state) {
  mem_fixture *fx = *state;
  gs_diag d;
  enum { N = 600 };
  static gs_cl_prim in[N], out[N];
  gs_cl_prim_format f = {GS_CL_PRIM_TRIANGLES, GS_CL_DATA_INDEX16};
  gs_cl_prim prev = {{0, 0, 0}};
  for (size_t i = 0; i < N; i++) prev = in[i] = random_prim(&f, &prev, 3);
  /* 32-byte blocks next to each other: relative branches and Branches */
  gs_addr base = alloc_at(fx->mem, 1u << 16, 32, 0x00100000);
  pool p = {base + 32, base + (1u << 16), 32, 32, 0};
  gs_cl_writer w;
  gs_cl_writer_init(&w, fx->mem, base, 32);
  gs_cl_writer_chain(&w, pool_more, &p);
  write_tile_list(&w, in, N, &d);
  assert_true(p.calls > 10);
  gs_cl_view v = {fx->mem, NULL, 0, 0};
  int branches = 0, rel = 0;
  assert_int_equal(collect(&v, base, out, N, &branches, &rel), N);
  for (size_t i = 0; i < N; i++) assert_memory_equal(&out[i], &in[i], sizeof in[i]);
  assert_true(branches > 0 && rel > 0);
  /* blocks 1.5 MB apart: out of a relative branch's reach, so the list is
   * ended, a Branch taken and a new list opened */
  gs_addr far = alloc_at(fx->mem, 6u << 20, 32, 0x00110000);
  pool q = {far + (3u << 19), far + (6u << 20), 256, 3u << 19, 0};
  gs_cl_writer_init(&w, fx->mem, far, 32);
  gs_cl_writer_chain(&w, pool_more, &q);
  write_tile_list(&w, in, 30, &d);  /* at least 30 bytes: more than the first block */
  assert_true(q.calls >= 1);
  branches = rel = 0;
  assert_int_equal(collect(&v, far, out, N, &branches, &rel), 30);
  for (size_t i = 0; i < 30; i++) assert_memory_equal(&out[i], &in[i], sizeof in[i]);
  assert_true(branches >= 1);
  assert_int_equal(rel, 0);
  /* without chaining a full block is an error naming the address */
  gs_cl_writer_init(&w, fx->mem, base, 5);
  assert_int_equal(gs_cl_emit_tile_coordinates(&w, &(gs_cl_tile_coordinates){1, 2}, &d), GS_OK);
  assert_error(gs_cl_emit_tile_coordinates(&w, &(gs_cl_tile_coordinates){1, 2}, &d), GS_ENOMEM, &d,
               "0x00100003: control list full: 3 bytes needed, 2 left");
  /* NULL values are zeros: 56 with none gives points without a data type */
  gs_cl_writer_init(&w, fx->mem, base, 64);
  assert_int_equal(gs_cl_put_id(&w, GS_CL_PRIMITIVE_LIST_FORMAT, NULL, &d), GS_OK);
  assert_true(w.fmt.type == 0 && w.fmt.data == 0);
  /* a compressed list needs a format; bad values name the address */
  gs_cl_writer_init(&w, fx->mem, base, 64);
  assert_error(gs_cl_put_id(&w, GS_CL_COMPRESSED_PRIMITIVE_LIST, NULL, &d), GS_EINVAL, &d,
               "0x00100000: no Primitive List Format (56)");
  assert_error(gs_cl_emit_gl_shader_state(&w, &(gs_cl_gl_shader_state){.record = 0x100004}, &d), GS_EARG, &d,
               "0x00100000: GL_SHADER_STATE: record=0x00100004 is not a multiple of 16");
  assert_error(gs_cl_put_prim(&w, &in[0], &d), GS_EARG, &d, "no compressed primitive list is open");
}

/* ---- the text parser ------------------------------------------------------ */

/* format -> parse -> pack reproduces random values of every packet. */
static void test_parse_roundtrip(void **state) {
  (void)state;
  size_t n, nrec;
  const gs_cl_format_info *pk = gs_cl_packets(&n);
  const gs_cl_format_info *rc = gs_cl_records(&nrec);
  gs_diag d;
  for (int round = 0; round < 200; round++) {
    for (size_t i = 0; i < n + nrec; i++) {
      const gs_cl_format_info *f = i < n ? &pk[i] : &rc[i - n];
      uint32_t v[GS_CL_MAX_FIELDS];
      uint8_t a[256], b[256];
      char line[2048];
      for (int k = 0; k < f->nfields; k++) v[k] = value_for_raw(&f->fields[k], rnd() & field_max_raw(&f->fields[k]));
      assert_int_equal(gs_cl_pack(f, v, a, sizeof a, &d), f->size);
      gs_cl_format(f, v, line, sizeof line);
      int got = gs_cl_parse(line, b, sizeof b, &d);
      if (got != f->size) fprintf(stderr, "%s -> %s\n", line, d.msg);
      assert_int_equal(got, f->size);
      assert_memory_equal(a, b, f->size);
    }
  }
  uint8_t b[32];
  assert_error(gs_cl_parse("TILE_COORDINATE column=1", b, sizeof b, &d), GS_EARG, &d,
               "column 1: unknown packet or record 'TILE_COORDINATE'");
  assert_error(gs_cl_parse("TILE_COORDINATES colum=1", b, sizeof b, &d), GS_EARG, &d, "column 18: no such field 'colum'");
  assert_error(gs_cl_parse("TILE_COORDINATES column=x1", b, sizeof b, &d), GS_EARG, &d, "column 25: bad value 'x1'");
  assert_error(gs_cl_parse("TILE_COORDINATES row", b, sizeof b, &d), GS_EARG, &d, "expected field=value");
  assert_error(gs_cl_parse("VIEWPORT_OFFSET x=0.01", b, sizeof b, &d), GS_EARG, &d, "bad value '0.01'");
  assert_error(gs_cl_parse("GL_SHADER_STATE flags=extended|bogus", b, sizeof b, &d), GS_EARG, &d, "no such flag 'bogus'");
  assert_error(gs_cl_parse("PRIMITIVE_LIST_FORMAT prim_type=quads", b, sizeof b, &d), GS_EARG, &d, "bad value 'quads'");
  assert_int_equal(gs_cl_parse("  PRIMITIVE_LIST_FORMAT data_type=3 prim_type=rhts", b, sizeof b, &d), 2);
  assert_int_equal(b[1], 0x33);
  /* A dump's packet line starts with the ID (RG Table 38: Tile Coordinates
   * is 115 = 0x73); it must be the name's, and records have none. */
  assert_int_equal(gs_cl_parse("115 TILE_COORDINATES  column=3 row=2", b, sizeof b, &d), 3);
  assert_int_equal(b[0], 0x73);
  assert_int_equal(b[1], 3);
  assert_int_equal(b[2], 2);
  assert_error(gs_cl_parse("114 TILE_COORDINATES column=3", b, sizeof b, &d), GS_EARG, &d,
               "column 1: packet ID does not match the name, got '114'");
  assert_error(gs_cl_parse("  7x TILE_COORDINATES", b, sizeof b, &d), GS_EARG, &d, "column 3: bad packet ID '7x'");
  assert_error(gs_cl_parse("0x73 TILE_COORDINATES", b, sizeof b, &d), GS_EARG, &d, "column 1: bad packet ID '0x73'");
  assert_error(gs_cl_parse("0115 TILE_COORDINATES", b, sizeof b, &d), GS_EARG, &d, "column 1: bad packet ID '0115'");
  assert_error(gs_cl_parse("0 GL_SHADER_RECORD", b, sizeof b, &d), GS_EARG, &d,
               "column 1: a record has no packet ID, got '0'");
}

/* ---- random bytes never crash the decoder ------------------------------- */

static void test_fuzz(void **state) {
  (void)state;
  uint8_t m[96];
  gs_diag d;
  FILE *devnull = fopen("/dev/null", "w");
  assert_non_null(devnull);
  for (int round = 0; round < 20000; round++) {
    size_t len = 1 + rnd_below(sizeof m);
    for (size_t i = 0; i < len; i++) m[i] = (uint8_t)rnd();
    /* bias towards real IDs so that deep paths are reached */
    if (round & 1) {
      size_t n;
      const gs_cl_format_info *t = gs_cl_packets(&n);
      m[0] = (uint8_t)t[rnd_below((uint32_t)n)].id;
    }
    gs_addr base = 0x00100000 + 32 * rnd_below(4);
    gs_cl_view v = {NULL, m, base, (uint32_t)len};
    gs_cl_dump_opts o = {.fmt = {(uint8_t)rnd_below(5), (uint8_t)rnd_below(5)}, .max_packets = 500};
    int rc = gs_cl_dump(&v, base, base + (uint32_t)rnd_below((uint32_t)len + 8), &o, devnull, &d);
    if (rc < 0) assert_true(strncmp(d.msg, "0x", 2) == 0);  /* every message names the address */
    gs_cl_prim out[64];
    size_t n;
    rc = gs_cl_prim_decode(&v, &o.fmt, base, out, 64, &n, NULL, &d);
    if (rc < 0) assert_true(strncmp(d.msg, "0x", 2) == 0);
  }
  fclose(devnull);
  /* the parser: random text, and dump lines with one character changed */
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz0123456789=|.-+ x\t";
  size_t np;
  const gs_cl_format_info *t = gs_cl_packets(&np);
  for (int round = 0; round < 20000; round++) {
    char text[256];
    uint8_t out[64];
    if (round & 1) {
      const gs_cl_format_info *f = &t[rnd_below((uint32_t)np)];
      uint32_t v[GS_CL_MAX_FIELDS];
      for (int k = 0; k < f->nfields; k++) v[k] = value_for_raw(&f->fields[k], rnd() & field_max_raw(&f->fields[k]));
      size_t len = gs_cl_format(f, v, text, sizeof text);
      if (len >= sizeof text) continue;
      text[rnd_below((uint32_t)len)] = alphabet[rnd_below(sizeof alphabet - 1)];
    } else {
      size_t len = rnd_below(sizeof text);
      for (size_t i = 0; i < len; i++) text[i] = alphabet[rnd_below(sizeof alphabet - 1)];
      text[len] = '\0';
    }
    int rc = gs_cl_parse(text, out, sizeof out, &d);
    assert_true(rc > 0 || rc == GS_EARG);
  }
}

/* ---- docs/control-lists.md lists every packet ---------------------------- */

/* The table row docs/control-lists.md must hold for packet or record f:
 * "| ID | NAME | size | mode | `field` byte[hi:lo] kind, ... |". */
static void doc_row(const gs_cl_format_info *f, char *buf, size_t len) {
  static const char *const kinds[] = {"uint", "hex", "sint", "12.4", "f32", "f1.8.7", "addr", "enum", "flag"};
  static const char *const modes[] = {"-", "B", "R", "B+R"};
  size_t n = 0;
  if (f->id >= 0)
    n += (size_t)snprintf(buf + n, len - n, "| %d | %s | %u%s | %s |", f->id, f->name, f->size,
                          f->tail == GS_CL_TAIL_NONE ? "" : "+", modes[f->mode]);
  else
    n += (size_t)snprintf(buf + n, len - n, "| %s | %u |", f->name, f->size);
  for (int i = 0; i < f->nfields; i++) {
    const gs_cl_field_info *fi = &f->fields[i];
    unsigned hi = fi->lo + fi->width - 1u;
    n += (size_t)snprintf(buf + n, len - n, "%s`%s` %u", i ? ", " : " ", fi->name, fi->byte);
    if (hi == fi->lo) n += (size_t)snprintf(buf + n, len - n, "[%u]", hi);
    else n += (size_t)snprintf(buf + n, len - n, "[%u:%u]", hi, fi->lo);
    n += (size_t)snprintf(buf + n, len - n, " %s", kinds[fi->kind]);
  }
  snprintf(buf + n, len - n, "%s |", f->nfields ? "" : " —");
}

/* The line docs/control-lists.md must hold for each ENUM field:
 * "- NAME `field`: 0 a, 1 b, ..." (reserved codes left out). */
static void doc_enum_line(const gs_cl_format_info *f, const gs_cl_field_info *fi, char *buf, size_t len) {
  size_t n = (size_t)snprintf(buf, len, "- %s `%s`:", f->name, fi->name);
  int first = 1;
  for (unsigned k = 0; k < fi->nvalues; k++) {
    if (!fi->values[k]) continue;
    n += (size_t)snprintf(buf + n, len - n, "%s %u `%s`", first ? "" : ",", k, fi->values[k]);
    first = 0;
  }
}

static void test_doc_lists_every_packet(void **state) {
  (void)state;
  FILE *f = fopen(GS_SOURCE_DIR "/docs/control-lists.md", "rb");
  assert_non_null(f);
  static char doc[1 << 17];
  size_t len = fread(doc, 1, sizeof doc - 1, f);
  fclose(f);
  doc[len] = '\0';
  int print = getenv("GS_CL_PRINT_DOC") != NULL, missing = 0;
  size_t n, nrec;
  const gs_cl_format_info *pk = gs_cl_packets(&n);
  const gs_cl_format_info *rc = gs_cl_records(&nrec);
  for (size_t i = 0; i < n + nrec; i++) {
    char row[2048];
    doc_row(i < n ? &pk[i] : &rc[i - n], row, sizeof row);
    if (print) puts(row);
    if (!strstr(doc, row)) {
      fprintf(stderr, "docs/control-lists.md lacks the row:\n%s\n", row);
      missing++;
    }
  }
  for (size_t i = 0; i < n + nrec; i++) {
    const gs_cl_format_info *f = i < n ? &pk[i] : &rc[i - n];
    for (int k = 0; k < f->nfields; k++) {
      char line[512];
      if (f->fields[k].kind != GS_CL_ENUM) continue;
      doc_enum_line(f, &f->fields[k], line, sizeof line);
      if (print) puts(line);
      if (!strstr(doc, line)) {
        fprintf(stderr, "docs/control-lists.md lacks the line:\n%s\n", line);
        missing++;
      }
    }
  }
  assert_int_equal(missing, 0);
}

/* ---- gpusim dump-cl --------------------------------------------------------- */

/* Writes bytes to a fresh temporary file whose name goes into path. */
static void temp_file(char *path, const uint8_t *bytes, size_t n) {
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  FILE *f = fdopen(fd, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, n, f), n);
  fclose(f);
}

/* Runs the tool; returns its status, the output in *out and errors in *err
 * (static buffers, valid until the next call). */
static int run_dumpcl(int argc, char **argv, char **out, char **err) {
  static char obuf[1 << 14], ebuf[1 << 12];
  FILE *o = tmpfile(), *e = tmpfile();
  assert_true(o && e);
  int rc = dumpcl_run(argc, argv, o, e);
  rewind(o);
  rewind(e);
  obuf[fread(obuf, 1, sizeof obuf - 1, o)] = '\0';
  ebuf[fread(ebuf, 1, sizeof ebuf - 1, e)] = '\0';
  fclose(o);
  fclose(e);
  *out = obuf;
  *err = ebuf;
  return rc;
}

static void test_dumpcl_tool(void **state) {
  (void)state;
  char *out, *err;
  char *help[] = {"dump-cl", "--help", NULL};
  assert_int_equal(run_dumpcl(2, help, &out, &err), 0);
  assert_non_null(strstr(out, "usage: gpusim dump-cl [--base ADDR]"));
  char *none[] = {"dump-cl", NULL};
  assert_int_equal(run_dumpcl(1, none, &out, &err), 2);
  assert_non_null(strstr(err, "gpusim dump-cl: no input file"));
  char *bad[] = {"dump-cl", "--base", "0x1g", "x.bin", NULL};
  assert_int_equal(run_dumpcl(4, bad, &out, &err), 2);
  assert_non_null(strstr(err, "--base '0x1g' is not a bus address"));
  char *badp[] = {"dump-cl", "--prims=quads/index16", "x.bin", NULL};
  assert_int_equal(run_dumpcl(3, badp, &out, &err), 2);
  char *unk[] = {"dump-cl", "--frobnicate", "x.bin", NULL};
  assert_int_equal(run_dumpcl(3, unk, &out, &err), 2);
  char *missing[] = {"dump-cl", "/nonexistent/list.bin", NULL};
  assert_int_equal(run_dumpcl(2, missing, &out, &err), 1);
  assert_non_null(strstr(err, "cannot read /nonexistent/list.bin"));

  /* A rendering list and, after its end, the tile list it branches to. */
  static const uint8_t list[] = {115, 1, 0, 17, 0x0a, 0x10, 0, 0, 25, 0,     /* 0x1000..0x1009 */
                                 56, 0x12, 48, 0x1f, 0x08, 0x00, 0x00, 0x04, 0x80, 18};
  char path[] = "/tmp/test_cl_XXXXXX";
  temp_file(path, list, sizeof list);
  char *ok[] = {"dump-cl", "--base", "0x1000", "--end=0x1009", path, NULL};
  assert_int_equal(run_dumpcl(5, ok, &out, &err), 0);
  assert_string_equal(err, "");
  assert_string_equal(out,
                      "0x00001000  115 TILE_COORDINATES  column=1 row=0\n"
                      "0x00001003  17 BRANCH_TO_SUB_LIST  address=0x0000100a\n"
                      "0x0000100a    56 PRIMITIVE_LIST_FORMAT  prim_type=triangles data_type=index16\n"
                      "0x0000100c    48 COMPRESSED_PRIMITIVE_LIST\n"
                      "0x0000100d      triangle  coding=2 indices=0,1,2\n"
                      "0x00001011      triangle  coding=0 indices=2,1,3\n"
                      "0x00001012      escape\n"
                      "0x00001013    18 RETURN_FROM_SUB_LIST\n"
                      "0x00001008  25 STORE_MS_RESOLVED_TILE_COLOR_BUFFER_AND_EOF\n");
  char *quiet[] = {"dump-cl", "--base", "0x1000", "--end", "0x1009", "--no-prims", path, NULL};
  assert_int_equal(run_dumpcl(7, quiet, &out, &err), 0);
  assert_null(strstr(out, "coding="));
  /* Without --end the list runs on into the tile list's bytes: the Halt
   * (0) after the EOF store stops it. */
  char *all[] = {"dump-cl", "--base", "0x1000", path, NULL};
  assert_int_equal(run_dumpcl(4, all, &out, &err), 0);
  assert_non_null(strstr(out, "0x00001009  0 HALT\n"));
  unlink(path);

  /* A bare tile list needs --prims; a fault names the file and address. */
  static const uint8_t tile[] = {48, 0x1f, 0x08, 0x00, 0x00, 0x80, 18};
  char tpath[] = "/tmp/test_cl_XXXXXX";
  temp_file(tpath, tile, sizeof tile);
  char *noprims[] = {"dump-cl", tpath, NULL};
  assert_int_equal(run_dumpcl(2, noprims, &out, &err), 1);
  assert_non_null(strstr(err, ": 0x00000000: COMPRESSED_PRIMITIVE_LIST without a Primitive List Format (56)"));
  assert_true(strncmp(err, "gpusim dump-cl: /tmp/test_cl_", 29) == 0);
  char *prims[] = {"dump-cl", "--prims", "triangles/index16", tpath, NULL};
  assert_int_equal(run_dumpcl(4, prims, &out, &err), 0);
  assert_string_equal(out,
                      "0x00000000  48 COMPRESSED_PRIMITIVE_LIST\n"
                      "0x00000001    triangle  coding=2 indices=0,1,2\n"
                      "0x00000005    escape\n"
                      "0x00000006  18 RETURN_FROM_SUB_LIST\n");
  unlink(tpath);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_table),
      cmocka_unit_test(test_roundtrip_every_field),
      cmocka_unit_test(test_pack_errors),
      cmocka_unit_test(test_typed_structs),
      cmocka_unit_test(test_krom_binning_list),
      cmocka_unit_test(test_krom_render_list),
      cmocka_unit_test(test_seed004_gl_record),
      cmocka_unit_test(test_asur_and_example_lines),
      cmocka_unit_test(test_prim_hand_triangles),
      cmocka_unit_test(test_prim_hand_lines_points),
      cmocka_unit_test(test_prim_hand_xy),
      cmocka_unit_test(test_prim_relative_branch),
      cmocka_unit_test(test_prim_random_roundtrip),
      cmocka_unit_test(test_prim_most_compact),
      cmocka_unit_test(test_prim_errors),
      cmocka_unit_test_setup_teardown(test_dump_binning_list, mem_setup, mem_teardown),
      cmocka_unit_test_setup_teardown(test_dump_rendering_list, mem_setup, mem_teardown),
      cmocka_unit_test_setup_teardown(test_dump_vg_and_clipped, mem_setup, mem_teardown),
      cmocka_unit_test_setup_teardown(test_dump_errors, mem_setup, mem_teardown),
      cmocka_unit_test_setup_teardown(test_writer_chaining, mem_setup, mem_teardown),
      cmocka_unit_test(test_parse_roundtrip),
      cmocka_unit_test(test_prim_reader_window),
      cmocka_unit_test(test_read_prims_and_skip),
      cmocka_unit_test(test_put_prims),
      cmocka_unit_test(test_fuzz),
      cmocka_unit_test(test_doc_lists_every_packet),
      cmocka_unit_test(test_dumpcl_tool),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
