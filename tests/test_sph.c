/* test_sph.c — the SPH codec, validation, linkage and builder.
 *
 * Expected values come from the references, not from the code under test:
 * the NVIDIA-compiled headers of reference/nv-sph-sass.md Appendix A and
 * the nouveau constants of §1.8 (decoded by hand, field by field), bit
 * positions from §1.2-§1.4, attribute addresses from §2.1, defaults from
 * §2.3. The round-trip
 * tests walk the private field table (sph/table.h) to reach every field.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/sph.h"
#include "sph/table.h"

/* ---- the worked headers ----------------------------------------------------- */

/* Appendix A.1: nvidia_headsurface_vertex. */
static const uint32_t nvidia_vs[20] = {
    0x02000461, 0, 0, 0, 0, 0, 0x00000003, 0x0000000b, 0, 0,
    0, 0, 0, 0x0000b000, 0, 0, 0, 0, 0x03330000, 0};

/* Appendix A.2: nvidia_headsurface_fragment. */
static const uint32_t nvidia_ps[20] = {
    0x00001462, 0, 0, 0, 0, 0x80000000, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0x000a0a00, 0, 0, 0x00000007, 0};

/* A.1 decoded by hand (reference table under A.1 and §1.3). */
static void nvidia_vs_fields(gs_sph *s) {
  memset(s, 0, sizeof *s);
  s->sph_type = 1;
  s->version = 3;
  s->shader_type = 1;
  s->isbe_space_sharing = 1;                       /* w0 bit 25 */
  s->imap_generic[0][0] = s->imap_generic[0][1] = 1;  /* w6 = 0x3 */
  s->imap_generic[8][0] = s->imap_generic[8][1] = s->imap_generic[8][3] = 1; /* w7 = 0xB */
  s->omap_position[0] = s->omap_position[1] = s->omap_position[3] = 1;       /* w13 = 0xB000 */
  s->omap_texture[0][0] = s->omap_texture[0][1] = 1;  /* w18 = 0x03330000 */
  s->omap_texture[1][0] = s->omap_texture[1][1] = 1;
  s->omap_texture[2][0] = s->omap_texture[2][1] = 1;
}

/* A.2 decoded by hand (reference table under A.2 and §1.4). */
static void nvidia_ps_fields(gs_sph *s) {
  memset(s, 0, sizeof *s);
  s->sph_type = 2;
  s->version = 3;
  s->shader_type = 5;
  s->imap_position[3] = 1;                          /* w5 = 0x80000000 */
  s->imap_texture[1][0] = s->imap_texture[1][1] = GS_PIXEL_IMAP_PERSPECTIVE; /* w15 */
  s->imap_texture[2][0] = s->imap_texture[2][1] = GS_PIXEL_IMAP_PERSPECTIVE;
  s->omap_target[0][0] = s->omap_target[0][1] = s->omap_target[0][2] = 1;    /* w18 = 7 */
}

static void fail_structs(const char *what, const gs_sph *got, const gs_sph *want) {
  static char a[16384], b[16384];
  gs_sph_dump(got, a, sizeof a);
  gs_sph_dump(want, b, sizeof b);
  fail_msg("%s: got\n%s\nwant\n%s", what, a, b);
}

static void assert_same_sph(const char *what, const gs_sph *got, const gs_sph *want) {
  if (memcmp(got, want, sizeof *got) != 0) fail_structs(what, got, want);
}

static void assert_words(const char *what, const uint32_t *got, const uint32_t *want) {
  int i;
  for (i = 0; i < 20; i++)
    if (got[i] != want[i])
      fail_msg("%s: word %d is 0x%08x, want 0x%08x", what, i, (unsigned)got[i], (unsigned)want[i]);
}

static void assert_msg_has(const gs_diag *d, const char *part) {
  if (!strstr(d->msg, part)) fail_msg("message \"%s\" does not mention \"%s\"", d->msg, part);
}

/* ---- decode ------------------------------------------------------------------- */

static void test_decode_nvidia_vs(void **state) {
  gs_sph s, want;
  gs_diag d;
  (void)state;
  assert_int_equal(gs_sph_decode(nvidia_vs, &s, &d), GS_OK);
  assert_int_equal(s.sph_type, GS_SPH_TYPE_VTG);
  assert_int_equal(s.version, 3);
  assert_int_equal(s.shader_type, GS_SPH_VERTEX);
  assert_int_equal(s.sass_version, 0);
  assert_int_equal(s.isbe_space_sharing, 1);
  assert_int_equal(s.store_req_start, 0);
  assert_int_equal(s.store_req_end, 0);
  assert_int_equal(s.imap_generic[8][3], 1);
  assert_int_equal(s.imap_generic[8][2], 0);
  assert_int_equal(s.omap_position[2], 0);
  assert_int_equal(s.omap_texture[2][1], 1);
  nvidia_vs_fields(&want);
  assert_same_sph("A.1", &s, &want);
  assert_int_equal(gs_sph_validate(&s, &d), GS_OK);
}

static void test_decode_nvidia_ps(void **state) {
  gs_sph s, want;
  gs_diag d;
  (void)state;
  assert_int_equal(gs_sph_decode(nvidia_ps, &s, &d), GS_OK);
  assert_int_equal(s.sph_type, GS_SPH_TYPE_PS);
  assert_int_equal(s.shader_type, GS_SPH_PIXEL);
  assert_int_equal(s.mrt_enable, 0);
  assert_int_equal(s.kills_pixels, 0);
  assert_int_equal(s.imap_position[3], 1);
  assert_int_equal(s.imap_texture[1][0], GS_PIXEL_IMAP_PERSPECTIVE);
  assert_int_equal(s.imap_texture[0][0], GS_PIXEL_IMAP_UNUSED);
  assert_int_equal(s.omap_target[0][3], 0);
  nvidia_ps_fields(&want);
  assert_same_sph("A.2", &s, &want);
  assert_int_equal(gs_sph_validate(&s, &d), GS_OK);
}

/* reference §1.8: the words nouveau writes. */
static void test_decode_nouveau(void **state) {
  uint32_t w[20] = {0};
  gs_sph s;
  gs_diag d;
  (void)state;
  w[0] = 0x00020461; /* VS */
  w[4] = 0x000FF000;
  assert_int_equal(gs_sph_decode(w, &s, &d), GS_OK);
  assert_int_equal(s.sph_type, 1);
  assert_int_equal(s.version, 3);
  assert_int_equal(s.shader_type, GS_SPH_VERTEX);
  assert_int_equal(s.sass_version, 1);
  assert_int_equal(s.store_req_start, 0xFF);
  assert_int_equal(s.store_req_end, 0);
  assert_int_equal(s.max_output_vertex_count, 0);
  w[0] = 0x00020861; /* TCS, 4 patch constants, 3 threads per patch */
  w[1] = 0x04000000;
  w[2] = 0x03000000;
  assert_int_equal(gs_sph_decode(w, &s, &d), GS_OK);
  assert_int_equal(s.shader_type, GS_SPH_TESSELLATION_INIT);
  assert_int_equal(s.per_patch_attribute_count, 4);
  assert_int_equal(s.threads_per_input_primitive, 3);
  assert_int_equal(s.shader_local_memory_low_size, 0);
  assert_int_equal(s.shader_local_memory_high_size, 0);
  w[0] = 0x00020C61; /* TES */
  assert_int_equal(gs_sph_decode(w, &s, &d), GS_OK);
  assert_int_equal(s.shader_type, GS_SPH_TESSELLATION);
  memset(w, 0, sizeof w);
  w[0] = 0x00021061 | 0xF0000000; /* GS of points, 2 instances, 4 vertices */
  w[2] = 0x02000000;
  w[3] = 0x01000000;
  w[4] = 4;
  assert_int_equal(gs_sph_decode(w, &s, &d), GS_OK);
  assert_int_equal(s.shader_type, GS_SPH_GEOMETRY);
  assert_int_equal(s.stream_out_mask, 0xF);
  assert_int_equal(s.threads_per_input_primitive, 2);
  assert_int_equal(s.output_topology, GS_SPH_POINTLIST);
  assert_int_equal(s.max_output_vertex_count, 4);
  assert_int_equal(gs_sph_validate(&s, &d), GS_OK);
  w[0] = 0x00021061 | 0x10000000;
  w[3] = 0x07000000;
  assert_int_equal(gs_sph_decode(w, &s, &d), GS_OK);
  assert_int_equal(s.stream_out_mask, 1);
  assert_int_equal(s.output_topology, GS_SPH_TRIANGLESTRIP);
  memset(w, 0, sizeof w);
  w[0] = 0x00021462 + 0x4000 + 0x8000; /* PS with MRT and KIL */
  w[5] = 0x80000000;
  w[19] = 3;
  assert_int_equal(gs_sph_decode(w, &s, &d), GS_OK);
  assert_int_equal(s.sph_type, 2);
  assert_int_equal(s.shader_type, GS_SPH_PIXEL);
  assert_int_equal(s.mrt_enable, 1);
  assert_int_equal(s.kills_pixels, 1);
  assert_int_equal(s.does_global_store, 0);
  assert_int_equal(s.sass_version, 1);
  assert_int_equal(s.omap_sample_mask, 1);
  assert_int_equal(s.omap_depth, 1);
  assert_int_equal(gs_sph_validate(&s, &d), GS_OK);
}

static void test_decode_bad_sph_type(void **state) {
  static const uint32_t types[] = {0, 3, 4, 31};
  uint32_t w[20] = {0};
  gs_sph s;
  gs_diag d;
  size_t i;
  (void)state;
  for (i = 0; i < sizeof types / sizeof types[0]; i++) {
    w[0] = 0x00001460 | types[i];
    assert_int_equal(gs_sph_decode(w, &s, &d), GS_EINVAL);
    assert_msg_has(&d, "word 0 bits 4:0");
    assert_msg_has(&d, "SphType");
  }
}

/* ---- encode ------------------------------------------------------------------- */

static void test_encode_worked(void **state) {
  gs_sph s;
  uint32_t w[20];
  gs_diag d;
  (void)state;
  nvidia_vs_fields(&s);
  assert_int_equal(gs_sph_encode(&s, w, &d), GS_OK);
  assert_words("A.1", w, nvidia_vs);
  nvidia_ps_fields(&s);
  assert_int_equal(gs_sph_encode(&s, w, &d), GS_OK);
  assert_words("A.2", w, nvidia_ps);
}

/* One field set alone lands on the hand-computed bit (reference §1.2-§1.4). */
static void check_one(int ps, void (*set)(gs_sph *), int word, uint32_t mask, const char *what) {
  gs_sph s, back;
  uint32_t w[20], want[20] = {0};
  gs_diag d;
  memset(&s, 0, sizeof s);
  s.sph_type = ps ? 2 : 1;
  set(&s);
  want[0] = ps ? 2 : 1;
  want[word] |= mask;
  if (gs_sph_encode(&s, w, &d) != GS_OK) fail_msg("%s: %s", what, d.msg);
  assert_words(what, w, want);
  assert_int_equal(gs_sph_decode(w, &back, &d), GS_OK);
  assert_same_sph(what, &back, &s);
}

static void s_generic_8w(gs_sph *s) { s->imap_generic[8][3] = 1; }
static void s_opos_x(gs_sph *s) { s->omap_position[0] = 1; }
static void s_otex_2t(gs_sph *s) { s->omap_texture[2][1] = 1; }
static void s_ivertex_id(gs_sph *s) { s->imap_vertex_id = 1; }
static void s_icolor_bsa(gs_sph *s) { s->imap_color[3][3] = 1; }
static void s_oclip0(gs_sph *s) { s->omap_clip_distance[0] = 1; }
static void s_oreserved_top(gs_sph *s) { s->omap_reserved = 0x80; }
static void s_ilod_left(gs_sph *s) { s->imap_tess_lod[0] = 1; }
static void s_oprim(gs_sph *s) { s->omap_primitive_id = 1; }
static void s_overtex_id(gs_sph *s) { s->omap_vertex_id = 1; }
static void s_ogen31w(gs_sph *s) { s->omap_generic[31][3] = 1; }
static void s_ps_gen0x(gs_sph *s) { s->imap_generic[0][0] = 2; }
static void s_ps_gen31w(gs_sph *s) { s->imap_generic[31][3] = 3; }
static void s_ps_col_dr(gs_sph *s) { s->imap_color[0][0] = 1; }
static void s_ps_col_sa(gs_sph *s) { s->imap_color[1][3] = 3; }
static void s_ps_clip0(gs_sph *s) { s->imap_clip_distance[0] = 1; }
static void s_ps_vertex_id(gs_sph *s) { s->imap_vertex_id = 1; }
static void s_ps_tex0s(gs_sph *s) { s->imap_texture[0][0] = 2; }
static void s_ps_tex9q(gs_sph *s) { s->imap_texture[9][3] = 3; }
static void s_ps_ireserved(gs_sph *s) { s->imap_reserved = 0x8000; }
static void s_ps_rt7a(gs_sph *s) { s->omap_target[7][3] = 1; }
static void s_ps_smask(gs_sph *s) { s->omap_sample_mask = 1; }
static void s_ps_depth(gs_sph *s) { s->omap_depth = 1; }
static void s_ps_oreserved(gs_sph *s) { s->omap_reserved = 1; }
static void s_crs(gs_sph *s) { s->shader_local_memory_crs_size = 0x800000; }
static void s_sre(gs_sph *s) { s->store_req_end = 0x80; }
static void s_maxv(gs_sph *s) { s->max_output_vertex_count = 0x800; }
static void s_passthrough(gs_sph *s) { s->geometry_passthrough = 1; }
static void s_isbe(gs_sph *s) { s->isbe_space_sharing = 1; }
static void s_res_w0(gs_sph *s) { s->reserved_w0 = 4; }
static void s_res_w3(gs_sph *s) { s->reserved_w3 = 8; }
static void s_res_w4(gs_sph *s) { s->reserved_w4 = 1; }
static void s_sass(gs_sph *s) { s->sass_version = 0xF; }
static void s_fp64(gs_sph *s) { s->does_fp64 = 1; }
static void s_per_patch(gs_sph *s) { s->per_patch_attribute_count = 0x81; }
static void s_high(gs_sph *s) { s->shader_local_memory_high_size = 1; }

static void test_bit_positions(void **state) {
  (void)state;
  /* VTG: SPH bit n = word n/32 bit n%32 (§1.3) */
  check_one(0, s_generic_8w, 7, 0x8, "ImapGenericVector[8].W (bit 227)");
  check_one(0, s_opos_x, 13, 0x1000, "OmapPositionX (bit 428)");
  check_one(0, s_otex_2t, 18, 0x02000000, "OmapFixedFncTexture[2].T (bit 601)");
  check_one(0, s_ivertex_id, 10, 0x80000000, "ImapVertexId (bit 351)");
  check_one(0, s_icolor_bsa, 10, 0x8000, "ImapColorBackSpecularAlpha (bit 335)");
  check_one(0, s_oclip0, 18, 0x1, "OmapClipDistance0 (bit 576)");
  check_one(0, s_oreserved_top, 19, 0x80000000, "OmapReserved bit 639");
  check_one(0, s_ilod_left, 5, 0x10, "ImapTessellationLodLeft (bit 164)");
  check_one(0, s_oprim, 13, 0x100, "OmapPrimitiveId (bit 424)");
  check_one(0, s_overtex_id, 18, 0x8000, "OmapVertexId (bit 591)");
  check_one(0, s_ogen31w, 17, 0x8000, "OmapGenericVector[31].W (bit 559)");
  /* PS (§1.4) */
  check_one(1, s_ps_gen0x, 6, 0x2, "PS ImapGenericVector[0].X (bits 192-193)");
  check_one(1, s_ps_gen31w, 13, 0xC0000000, "PS ImapGenericVector[31].W (bits 446-447)");
  check_one(1, s_ps_col_dr, 14, 0x1, "PS ImapColorDiffuseRed (bits 448-449)");
  check_one(1, s_ps_col_sa, 14, 0xC000, "PS ImapColorSpecularAlpha (bits 462-463)");
  check_one(1, s_ps_clip0, 14, 0x10000, "PS ImapClipDistance0 (bit 464)");
  check_one(1, s_ps_vertex_id, 14, 0x80000000, "PS ImapVertexId (bit 479)");
  check_one(1, s_ps_tex0s, 15, 0x2, "PS ImapFixedFncTexture[0].S (bits 480-481)");
  check_one(1, s_ps_tex9q, 17, 0xC000, "PS ImapFixedFncTexture[9].Q (bits 558-559)");
  check_one(1, s_ps_ireserved, 17, 0x80000000, "PS ImapReserved bit 575");
  check_one(1, s_ps_rt7a, 18, 0x80000000, "PS OmapTarget[7].Alpha (bit 607)");
  check_one(1, s_ps_smask, 19, 0x1, "PS OmapSampleMask (bit 608)");
  check_one(1, s_ps_depth, 19, 0x2, "PS OmapDepth (bit 609)");
  check_one(1, s_ps_oreserved, 19, 0x4, "PS OmapReserved bit 610");
  /* common words (§1.2) */
  check_one(0, s_crs, 3, 0x00800000, "ShaderLocalMemoryCrsSize bit 23");
  check_one(0, s_sre, 4, 0x80000000, "StoreReqEnd bit 31");
  check_one(0, s_maxv, 4, 0x800, "MaxOutputVertexCount bit 11");
  check_one(0, s_passthrough, 0, 0x01000000, "w0 bit 24");
  check_one(1, s_isbe, 0, 0x02000000, "w0 bit 25");
  check_one(0, s_res_w0, 0, 0x00800000, "w0 bit 23");
  check_one(0, s_res_w3, 3, 0x80000000, "w3 bit 31");
  check_one(0, s_res_w4, 4, 0x00100000, "w4 bit 20");
  check_one(0, s_sass, 0, 0x001E0000, "SassVersion bits 20:17");
  check_one(1, s_fp64, 0, 0x08000000, "DoesFp64 bit 27");
  check_one(0, s_per_patch, 1, 0x81000000, "PerPatchAttributeCount bits 31:24");
  check_one(0, s_high, 2, 0x1, "ShaderLocalMemoryHighSize bit 0");
}

/* Every element of every field present in a layout, set to each single bit
 * of its width alone: the words hold exactly one bit besides SphType, no
 * two elements share a bit, all 635 bits outside SphType are reached, and
 * decoding gives back that struct and nothing else. Then every element at
 * its maximum: all 640 bits set. */
static void walk_layout(int layout) {
  uint8_t seen[640] = {0};
  uint32_t type = layout ? 2 : 1, w[20], all[20] = {0};
  gs_sph s, back, max;
  gs_diag d;
  const sph_field *f;
  int n, bit_count = 0;
  memset(&max, 0, sizeof max);
  max.sph_type = type;
  for (f = sph_fields; f < sph_fields + SPH_F_COUNT; f++) {
    const sph_place *p = &f->at[layout];
    unsigned i, b;
    if (f == &sph_fields[SPH_F_SPH_TYPE]) continue;
    for (i = 0; i < p->n; i++) {
      uint32_t maxv = p->width == 32 ? 0xFFFFFFFFu : (1u << p->width) - 1;
      for (b = 0; b < p->width; b++) {
        int word, found = -1;
        memset(&s, 0, sizeof s);
        s.sph_type = type;
        sph_field_set(&s, f, i, 1u << b);
        if (gs_sph_encode(&s, w, &d) != GS_OK) fail_msg("%s[%u] bit %u: %s", f->name, i, b, d.msg);
        w[0] ^= type;
        for (word = 0; word < 20; word++) {
          int k;
          for (k = 0; k < 32; k++)
            if (w[word] >> k & 1) {
              if (found >= 0) fail_msg("%s[%u] bit %u sets two bits", f->name, i, b);
              found = word * 32 + k;
            }
        }
        if (found < 0) fail_msg("%s[%u] bit %u sets nothing", f->name, i, b);
        if (seen[found]++) fail_msg("%s[%u] bit %u reuses SPH bit %d", f->name, i, b, found);
        assert_int_equal(found, p->bit + i * p->width + b);
        w[0] ^= type;
        assert_int_equal(gs_sph_decode(w, &back, &d), GS_OK);
        assert_same_sph(f->name, &back, &s);
        bit_count++;
      }
      /* the maximum alone, then into the all-max struct */
      memset(&s, 0, sizeof s);
      s.sph_type = type;
      sph_field_set(&s, f, i, maxv);
      assert_int_equal(gs_sph_encode(&s, w, &d), GS_OK);
      assert_int_equal(gs_sph_decode(w, &back, &d), GS_OK);
      assert_same_sph(f->name, &back, &s);
      sph_field_set(&max, f, i, maxv);
    }
  }
  assert_int_equal(bit_count, 640 - 5);
  for (n = 5; n < 640; n++)
    if (seen[n] != 1) fail_msg("layout %d: SPH bit %d covered %d times", layout, n, seen[n]);
  assert_int_equal(gs_sph_encode(&max, w, &d), GS_OK);
  for (n = 0; n < 20; n++) all[n] = 0xFFFFFFFFu;
  all[0] = 0xFFFFFFE0u | type;
  assert_words("all fields at maximum", w, all);
  assert_int_equal(gs_sph_decode(w, &back, &d), GS_OK);
  assert_same_sph("all fields at maximum", &back, &max);
}

static void test_walking_ones_vtg(void **state) { (void)state; walk_layout(0); }
static void test_walking_ones_ps(void **state) { (void)state; walk_layout(1); }

/* decode -> encode is the identity on any words with a valid SphType,
 * reserved bits included. */
static void test_random_round_trip(void **state) {
  uint64_t x = 0x9E3779B97F4A7C15u;
  int n, i;
  (void)state;
  for (n = 0; n < 20000; n++) {
    uint32_t w[20], back[20];
    gs_sph s, s2;
    gs_diag d;
    for (i = 0; i < 20; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      w[i] = (uint32_t)(x >> 16);
    }
    w[0] = (w[0] & ~31u) | (n & 1 ? 2u : 1u);
    assert_int_equal(gs_sph_decode(w, &s, &d), GS_OK);
    assert_int_equal(gs_sph_encode(&s, back, &d), GS_OK);
    assert_words("random", back, w);
    assert_int_equal(gs_sph_decode(back, &s2, &d), GS_OK);
    assert_same_sph("random", &s2, &s);
  }
}

static void expect_encode_error(const gs_sph *s, const char *part1, const char *part2) {
  uint32_t w[20];
  gs_diag d;
  int i;
  assert_int_equal(gs_sph_encode(s, w, &d), GS_EINVAL);
  assert_msg_has(&d, part1);
  if (part2) assert_msg_has(&d, part2);
  for (i = 0; i < 20; i++) assert_int_equal(w[i], 0);
  assert_int_equal(gs_sph_validate(s, &d), GS_EINVAL);
  assert_msg_has(&d, part1);
}

static void test_encode_errors(void **state) {
  gs_sph s;
  (void)state;
  nvidia_vs_fields(&s);
  s.sph_type = 0;
  expect_encode_error(&s, "SphType", "word 0 bits 4:0");
  nvidia_vs_fields(&s);
  s.shader_local_memory_low_size = 1u << 24;
  expect_encode_error(&s, "word 1 bits 23:0, ShaderLocalMemoryLowSize", "24 bits");
  nvidia_vs_fields(&s);
  s.version = 32;
  expect_encode_error(&s, "Version", "5 bits");
  nvidia_vs_fields(&s);
  s.imap_generic[1][1] = 2; /* 1 bit in a VTG header */
  expect_encode_error(&s, "word 6 bit 5, ImapGenericVector[1].Y", "1 bit");
  nvidia_ps_fields(&s);
  s.imap_generic[3][2] = 4; /* 2 bits in a PS header */
  expect_encode_error(&s, "word 6 bits 29:28, ImapGenericVector[3].Z", "2 bits");
  nvidia_vs_fields(&s);
  s.omap_target[0][0] = 1; /* PS only */
  expect_encode_error(&s, "OmapTarget[0].Red", "Type 1 (VTG)");
  nvidia_ps_fields(&s);
  s.omap_generic[2][0] = 1; /* VTG only */
  expect_encode_error(&s, "OmapGenericVector[2].X", "Type 2 (PS)");
  nvidia_ps_fields(&s);
  s.imap_color[2][0] = 1; /* back colours: VTG only */
  expect_encode_error(&s, "ImapColorBackDiffuseRed", "Type 2 (PS)");
  nvidia_ps_fields(&s);
  s.omap_reserved = 1u << 30;
  expect_encode_error(&s, "OmapReserved", "30 bits");
}

/* ---- validation ------------------------------------------------------------- */

static void expect_invalid(const gs_sph *s, const char *part1, const char *part2) {
  gs_diag d;
  uint32_t w[20];
  assert_int_equal(gs_sph_encode(s, w, &d), GS_OK); /* encodable, but breaks a rule */
  assert_int_equal(gs_sph_validate(s, &d), GS_EINVAL);
  assert_msg_has(&d, part1);
  if (part2) assert_msg_has(&d, part2);
}

static void gs_fields(gs_sph *s) {
  memset(s, 0, sizeof *s);
  s->sph_type = 1;
  s->version = 3;
  s->shader_type = GS_SPH_GEOMETRY;
  s->output_topology = GS_SPH_LINESTRIP;
  s->max_output_vertex_count = 1024;
}

static void test_validate(void **state) {
  gs_sph s;
  gs_diag d;
  (void)state;
  gs_fields(&s);
  assert_int_equal(gs_sph_validate(&s, &d), GS_OK);
  nvidia_vs_fields(&s);
  s.version = 4;
  expect_invalid(&s, "word 0 bits 9:5, Version", "4 is not 3");
  nvidia_vs_fields(&s);
  s.shader_type = 0;
  expect_invalid(&s, "word 0 bits 13:10, ShaderType", NULL);
  s.shader_type = 6;
  expect_invalid(&s, "ShaderType", NULL);
  s.shader_type = GS_SPH_PIXEL; /* PIXEL in a VTG header */
  expect_invalid(&s, "ShaderType", "SphType 1 (VTG)");
  nvidia_ps_fields(&s);
  s.shader_type = GS_SPH_VERTEX; /* VERTEX in a PS header */
  expect_invalid(&s, "ShaderType", "SphType 2 (PS)");
  nvidia_ps_fields(&s);
  s.imap_position[3] = 0;
  expect_invalid(&s, "word 5 bit 31, ImapPositionW", NULL);
  gs_fields(&s);
  s.output_topology = 0;
  expect_invalid(&s, "word 3 bits 27:24, OutputTopology", NULL);
  s.output_topology = 2;
  expect_invalid(&s, "OutputTopology", NULL);
  gs_fields(&s);
  s.max_output_vertex_count = 0;
  expect_invalid(&s, "word 4 bits 11:0, MaxOutputVertexCount", NULL);
  s.max_output_vertex_count = 1025;
  expect_invalid(&s, "MaxOutputVertexCount", NULL);
  gs_fields(&s);
  s.shader_local_memory_crs_size = 1000;
  expect_invalid(&s, "word 3 bits 23:0, ShaderLocalMemoryCrsSize", NULL);
  s.shader_local_memory_crs_size = (1u << 20) + 512;
  expect_invalid(&s, "ShaderLocalMemoryCrsSize", NULL);
  s.shader_local_memory_crs_size = 1u << 20;
  assert_int_equal(gs_sph_validate(&s, &d), GS_OK);
  /* SassVersion, the reserved fields and a topology outside a GS are free */
  nvidia_vs_fields(&s);
  s.sass_version = 15;
  s.reserved_w0 = 7;
  s.output_topology = 3;
  s.max_output_vertex_count = 0;
  assert_int_equal(gs_sph_validate(&s, &d), GS_OK);
}

/* ---- dump ------------------------------------------------------------------- */

static void test_dump(void **state) {
  gs_sph s;
  gs_diag d;
  char buf[8192], small[10];
  size_t n, lines = 0;
  const char *p;
  (void)state;
  assert_int_equal(gs_sph_decode(nvidia_ps, &s, &d), GS_OK);
  n = gs_sph_dump(&s, buf, sizeof buf);
  assert_int_equal(n, strlen(buf));
  for (p = buf; *p; p++) lines += *p == '\n';
  /* 24 fields of words 0-4, ImapPositionW, 4 texture components, 3 target components */
  assert_int_equal(lines, 24 + 1 + 4 + 3);
  assert_non_null(strstr(buf, "w0[4:0]    SphType                           2 (PS)\n"));
  assert_non_null(strstr(buf, "w0[13:10]  ShaderType                        5 (PIXEL)\n"));
  assert_non_null(strstr(buf, "w0[14]     MrtEnable                         0\n"));
  assert_non_null(strstr(buf, "w3[27:24]  OutputTopology                    0\n"));
  assert_non_null(strstr(buf, "w5[31]     ImapPositionW                     1\n"));
  assert_non_null(strstr(buf, "w15[9:8]   ImapFixedFncTexture[1].S          2 (Perspective)\n"));
  assert_non_null(strstr(buf, "w15[19:18] ImapFixedFncTexture[2].T          2 (Perspective)\n"));
  assert_non_null(strstr(buf, "w18[2]     OmapTarget[0].Blue                1\n"));
  assert_null(strstr(buf, "ImapGenericVector"));
  s.imap_color[1][0] = GS_PIXEL_IMAP_CONSTANT; /* a PS has no front/back split */
  gs_sph_dump(&s, buf, sizeof buf);
  assert_non_null(strstr(buf, "w14[9:8]   ImapColorSpecularRed              1 (Constant)\n"));
  s.imap_color[1][0] = 0;
  /* truncation keeps snprintf's contract */
  assert_int_equal(gs_sph_dump(&s, small, sizeof small), n);
  assert_int_equal(strlen(small), sizeof small - 1);
  assert_int_equal(memcmp(small, buf, sizeof small - 1), 0);
  assert_int_equal(gs_sph_dump(&s, NULL, 0), n);

  assert_int_equal(gs_sph_decode(nvidia_vs, &s, &d), GS_OK);
  gs_sph_dump(&s, buf, sizeof buf);
  assert_non_null(strstr(buf, "w0[4:0]    SphType                           1 (VTG)\n"));
  assert_non_null(strstr(buf, "w0[25]     IsbeSpaceSharing                  1\n"));
  assert_non_null(strstr(buf, "w4[19:12]  StoreReqStart                     0\n"));
  assert_non_null(strstr(buf, "w7[3]      ImapGenericVector[8].W            1\n"));
  assert_non_null(strstr(buf, "w13[15]    OmapPositionW                     1\n"));
  assert_non_null(strstr(buf, "w18[25]    OmapFixedFncTexture[2].T          1\n"));
  gs_fields(&s);
  s.imap_color[1][2] = 1;
  gs_sph_dump(&s, buf, sizeof buf);
  assert_non_null(strstr(buf, "w3[27:24]  OutputTopology                    6 (LINESTRIP)\n"));
  assert_non_null(strstr(buf, "w10[6]     ImapColorFrontSpecularBlue        1\n"));
}

/* ---- linkage ---------------------------------------------------------------- */

static void assert_set(const char *what, const gs_sph_attr_set *set, const unsigned *addrs,
                       size_t n) {
  unsigned a;
  for (a = 0; a < 0x400; a += 4) {
    int want = 0;
    size_t i;
    for (i = 0; i < n; i++) want |= addrs[i] == a;
    if (gs_sph_attr_has(set, a) != want)
      fail_msg("%s: 0x%03x is %s, want %s", what, a, want ? "absent" : "present",
               want ? "present" : "absent");
  }
}

static void test_bmap(void **state) {
  static const unsigned vs_to_ps[] = {0x07C, 0x310, 0x314, 0x320, 0x324};
  static const unsigned vs_inputs[] = {0x080, 0x084, 0x100, 0x104, 0x10C};
  static const unsigned with_store_req[] = {0x07C, 0x300, 0x304, 0x310, 0x314, 0x320, 0x324};
  static const unsigned store_req_only[] = {0x300, 0x304};
  static const unsigned xyz[] = {0x080, 0x084, 0x088};
  gs_sph vs, ps, gs;
  gs_sph_attr_set set;
  gs_diag d;
  (void)state;
  assert_int_equal(gs_sph_decode(nvidia_vs, &vs, &d), GS_OK);
  assert_int_equal(gs_sph_decode(nvidia_ps, &ps, &d), GS_OK);
  /* The PS reads what the VS writes and it maps: position.w, texcoord 1-2 .st */
  gs_sph_input_bmap(&ps, &vs, &set);
  assert_set("PS input", &set, vs_to_ps, 5);
  gs_sph_output_bmap(&vs, &ps, &set);
  assert_set("VS output", &set, vs_to_ps, 5);
  /* vertex fetch supplies every input */
  gs_sph_input_bmap(&vs, NULL, &set);
  assert_set("VS input", &set, vs_inputs, 5);
  /* StoreReq 192..193 (texcoord 0 .st) makes those readable back */
  vs.store_req_start = 0x300 / 4;
  vs.store_req_end = 0x304 / 4;
  gs_sph_output_bmap(&vs, &ps, &set);
  assert_set("VS output with StoreReq", &set, with_store_req, 7);
  gs_sph_output_bmap(&vs, NULL, &set);
  assert_set("VS output, no next stage", &set, store_req_only, 2);
  vs.shader_type = GS_SPH_GEOMETRY; /* a GS ignores StoreReq */
  gs_sph_output_bmap(&vs, &ps, &set);
  assert_set("GS output", &set, vs_to_ps, 5);
  gs_sph_output_bmap(&ps, &vs, &set); /* a PS has no OMAP */
  assert_set("PS output", &set, NULL, 0);
  /* VTG to VTG: generic 0 .xyz written, .xyzw read */
  memset(&vs, 0, sizeof vs);
  vs.sph_type = 1;
  vs.omap_generic[0][0] = vs.omap_generic[0][1] = vs.omap_generic[0][2] = 1;
  gs_fields(&gs);
  gs.imap_generic[0][0] = gs.imap_generic[0][1] = gs.imap_generic[0][2] = gs.imap_generic[0][3] = 1;
  gs_sph_input_bmap(&gs, &vs, &set);
  assert_set("GS input", &set, xyz, 3);
  assert_int_equal(gs_sph_attr_default(0x08C), 0x3F800000u); /* so .w reads 1.0 */
}

static void test_imap_omap_lookup(void **state) {
  gs_sph vs, ps;
  gs_diag d;
  (void)state;
  assert_int_equal(gs_sph_decode(nvidia_vs, &vs, &d), GS_OK);
  assert_int_equal(gs_sph_decode(nvidia_ps, &ps, &d), GS_OK);
  assert_int_equal(gs_sph_imap(&vs, 0x080), 1);
  assert_int_equal(gs_sph_imap(&vs, 0x088), 0);
  assert_int_equal(gs_sph_imap(&vs, 0x10C), 1);
  assert_int_equal(gs_sph_imap(&vs, 0x10D), 1); /* low bits ignored */
  assert_int_equal(gs_sph_omap(&vs, 0x078), 0);
  assert_int_equal(gs_sph_omap(&vs, 0x07C), 1);
  assert_int_equal(gs_sph_omap(&vs, 0x324), 1);
  assert_int_equal(gs_sph_omap(&vs, 0x328), 0);
  assert_int_equal(gs_sph_omap(&vs, 0x400), 0);
  assert_int_equal(gs_sph_imap(&ps, 0x07C), 1);  /* 1-bit field */
  assert_int_equal(gs_sph_imap(&ps, 0x314), GS_PIXEL_IMAP_PERSPECTIVE);
  assert_int_equal(gs_sph_imap(&ps, 0x2A0), 0);  /* back colour: no PS field */
  assert_int_equal(gs_sph_omap(&ps, 0x310), 0);
}

static void test_attr_default(void **state) {
  static const struct { unsigned addr; uint32_t value; } cases[] = {
      {0x070, 0}, {0x078, 0}, {0x07C, 0x3F800000}, /* position.w */
      {0x080, 0}, {0x08C, 0x3F800000}, {0x27C, 0x3F800000}, {0x278, 0},
      {0x28C, 0x3F800000}, {0x2BC, 0x3F800000}, {0x2B8, 0}, /* colours .a */
      {0x30C, 0x3F800000}, {0x39C, 0x3F800000}, {0x398, 0}, /* texcoord .q */
      {0x060, 0}, {0x06C, 0},                    /* PrimitiveId, PointSize */
      {0x2CC, 0}, {0x2DC, 0}, {0x2EC, 0}, {0x2FC, 0}, /* ClipDistance3/7, VertexId */
      {0x3AC, 0}, {0x3FC, 0}, {0x00C, 0}, {0x40C, 0}, {0xFFC, 0},
  };
  size_t i;
  (void)state;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (gs_sph_attr_default(cases[i].addr) != cases[i].value)
      fail_msg("default at 0x%03x is 0x%08x, want 0x%08x", cases[i].addr,
               (unsigned)gs_sph_attr_default(cases[i].addr), (unsigned)cases[i].value);
}

static void test_pixel_imap(void **state) {
  gs_sph vs, ps;
  gs_diag d;
  (void)state;
  assert_int_equal(gs_sph_decode(nvidia_vs, &vs, &d), GS_OK);
  assert_int_equal(gs_sph_decode(nvidia_ps, &ps, &d), GS_OK);
  ps.imap_generic[5][2] = GS_PIXEL_IMAP_SCREEN_LINEAR;
  ps.imap_color[1][0] = GS_PIXEL_IMAP_CONSTANT;
  assert_int_equal(gs_sph_pixel_imap(&ps, 0x310), GS_PIXEL_IMAP_PERSPECTIVE);
  assert_int_equal(gs_sph_pixel_imap(&ps, 0x324), GS_PIXEL_IMAP_PERSPECTIVE);
  assert_int_equal(gs_sph_pixel_imap(&ps, 0x300), GS_PIXEL_IMAP_UNUSED);
  assert_int_equal(gs_sph_pixel_imap(&ps, 0x0D8), GS_PIXEL_IMAP_SCREEN_LINEAR); /* generic5.z */
  assert_int_equal(gs_sph_pixel_imap(&ps, 0x290), GS_PIXEL_IMAP_CONSTANT);      /* specular.r */
  assert_int_equal(gs_sph_pixel_imap(&ps, 0x07C), GS_PIXEL_IMAP_UNUSED);        /* 1-bit */
  assert_int_equal(gs_sph_pixel_imap(&ps, 0x400), GS_PIXEL_IMAP_UNUSED);
  assert_int_equal(gs_sph_pixel_imap(&vs, 0x080), GS_PIXEL_IMAP_UNUSED);        /* not a PS */
}

/* ---- builder ---------------------------------------------------------------- */

static void build_words(const gs_sph_decl *decl, uint32_t w[20]) {
  gs_sph s, back;
  gs_diag d;
  if (gs_sph_build(decl, &s, &d) != GS_OK) fail_msg("build: %s", d.msg);
  assert_int_equal(gs_sph_encode(&s, w, &d), GS_OK);
  assert_int_equal(gs_sph_decode(w, &back, &d), GS_OK);
  assert_same_sph("built", &back, &s);
}

static void test_build_vs(void **state) {
  static const gs_sph_io in[] = {{GS_SPH_ATTR_GENERIC(0), 0x3, GS_PIXEL_IMAP_UNUSED},
                                 {GS_SPH_ATTR_GENERIC(8), 0xB, GS_PIXEL_IMAP_UNUSED}};
  static const gs_sph_io out[] = {{GS_SPH_ATTR_POSITION, 0xB, GS_PIXEL_IMAP_UNUSED},
                                  {GS_SPH_ATTR_TEXTURE(0), 0x3, GS_PIXEL_IMAP_UNUSED},
                                  {GS_SPH_ATTR_TEXTURE(1), 0x3, GS_PIXEL_IMAP_UNUSED},
                                  {GS_SPH_ATTR_TEXTURE(2), 0x3, GS_PIXEL_IMAP_UNUSED}};
  /* A.1 without bit 25, with nouveau's "no StoreReq range" w4 */
  static const uint32_t want[20] = {0x00000461, 0, 0, 0, 0x000FF000, 0, 0x3, 0xB, 0, 0,
                                    0, 0, 0, 0xB000, 0, 0, 0, 0, 0x03330000, 0};
  static const uint32_t want_local[20] = {0x04000461, 64, 0, 0, 0x000FF000, 0, 0, 0, 0, 0,
                                          0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  gs_sph_decl decl;
  uint32_t w[20];
  (void)state;
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_VERTEX;
  decl.inputs = in;
  decl.n_inputs = 2;
  decl.outputs = out;
  decl.n_outputs = 4;
  build_words(&decl, w);
  assert_words("VS", w, want);
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_VERTEX;
  decl.local_memory_size = 64; /* brings DoesLoadOrStore (w0 bit 26) */
  build_words(&decl, w);
  assert_words("VS with local memory", w, want_local);
}

static void test_build_ps(void **state) {
  static const gs_sph_io in[] = {{GS_SPH_ATTR_TEXTURE(1), 0x3, GS_PIXEL_IMAP_PERSPECTIVE},
                                 {GS_SPH_ATTR_TEXTURE(2), 0x3, GS_PIXEL_IMAP_PERSPECTIVE}};
  static const gs_sph_io in2[] = {
      {GS_SPH_ATTR_COLOR_FRONT_DIFFUSE, 0xF, GS_PIXEL_IMAP_CONSTANT},
      {GS_SPH_ATTR_GENERIC(1), 0x7, GS_PIXEL_IMAP_SCREEN_LINEAR},
      {GS_SPH_ATTR_POSITION, 0x3, GS_PIXEL_IMAP_UNUSED},
      {GS_SPH_ATTR_GENERIC(1), 0x1, GS_PIXEL_IMAP_SCREEN_LINEAR}}; /* again, same mode */
  /* w0: PS, version 3, PIXEL, MRT, KIL; w5: position x, y, w; w6: generic1
   * .xyz = 3 (bits 200-205); w14: diffuse RGBA = 1 each; w18: RT0 RGBA, RT1
   * RG; w19: sample mask and depth. */
  static const uint32_t want2[20] = {0x0000D462, 0, 0, 0, 0, 0xB0000000, 0x00003F00, 0, 0, 0,
                                     0, 0, 0, 0, 0x55, 0, 0, 0, 0x3F, 0x3};
  gs_sph_decl decl;
  uint32_t w[20];
  (void)state;
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_PIXEL;
  decl.inputs = in;
  decl.n_inputs = 2;
  decl.render_targets = 0x7;
  build_words(&decl, w);
  assert_words("PS (A.2)", w, nvidia_ps);
  decl.inputs = in2;
  decl.n_inputs = 4;
  decl.render_targets = 0x3F;
  decl.flags = GS_SPH_KILLS_PIXELS | GS_SPH_MRT_ENABLE | GS_SPH_OMAP_DEPTH | GS_SPH_OMAP_SAMPLE_MASK;
  build_words(&decl, w);
  assert_words("PS with flat colour", w, want2);
}

static void test_build_gs(void **state) {
  static const gs_sph_io io[] = {{GS_SPH_ATTR_POSITION, 0xF, GS_PIXEL_IMAP_UNUSED},
                                 {GS_SPH_ATTR_GENERIC(0), 0xF, GS_PIXEL_IMAP_UNUSED}};
  static const uint32_t want[20] = {0x10001061, 0, 0x01000000, 0x07000000, 0x3, 0xF0000000, 0xF,
                                    0, 0, 0, 0, 0, 0, 0x000FF000, 0, 0, 0, 0, 0, 0};
  gs_sph_decl decl;
  uint32_t w[20];
  (void)state;
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_GEOMETRY;
  decl.inputs = decl.outputs = io;
  decl.n_inputs = decl.n_outputs = 2;
  decl.output_topology = GS_SPH_TRIANGLESTRIP;
  decl.max_output_vertex_count = 3;
  decl.threads_per_input_primitive = 1;
  decl.stream_out_mask = 1;
  build_words(&decl, w);
  assert_words("GS", w, want);
}

static void expect_build_error(const gs_sph_decl *decl, int code, const char *part1,
                               const char *part2) {
  gs_sph s;
  gs_diag d;
  assert_int_equal(gs_sph_build(decl, &s, &d), code);
  assert_msg_has(&d, part1);
  if (part2) assert_msg_has(&d, part2);
}

static void test_build_errors(void **state) {
  static const gs_sph_io no_mode[] = {{GS_SPH_ATTR_GENERIC(2), 0x1, GS_PIXEL_IMAP_UNUSED}};
  static const gs_sph_io with_mode[] = {{GS_SPH_ATTR_GENERIC(2), 0x1, GS_PIXEL_IMAP_CONSTANT}};
  static const gs_sph_io pos_mode[] = {{GS_SPH_ATTR_POSITION, 0x8, GS_PIXEL_IMAP_PERSPECTIVE}};
  static const gs_sph_io back[] = {{GS_SPH_ATTR_COLOR_BACK_DIFFUSE, 0x1, GS_PIXEL_IMAP_CONSTANT}};
  static const gs_sph_io facing[] = {{0x3FC, 0x1, GS_PIXEL_IMAP_UNUSED}};
  static const gs_sph_io big_mask[] = {{GS_SPH_ATTR_GENERIC(0), 0x10, GS_PIXEL_IMAP_UNUSED}};
  static const gs_sph_io unaligned[] = {{0x082, 0x1, GS_PIXEL_IMAP_UNUSED}};
  static const gs_sph_io beyond[] = {{0x3F8, 0x4, GS_PIXEL_IMAP_UNUSED}};
  static const gs_sph_io twice[] = {{GS_SPH_ATTR_GENERIC(0), 0x1, GS_PIXEL_IMAP_PERSPECTIVE},
                                    {GS_SPH_ATTR_GENERIC(0), 0x3, GS_PIXEL_IMAP_CONSTANT}};
  gs_sph_decl decl;
  (void)state;
  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_PIXEL;
  decl.inputs = no_mode;
  decl.n_inputs = 1;
  expect_build_error(&decl, GS_EARG, "input 0 (0x0a0, ImapGenericVector[2].X)", "needs");
  decl.inputs = pos_mode;
  expect_build_error(&decl, GS_EARG, "ImapPositionW", "takes no interpolation mode");
  decl.inputs = back;
  expect_build_error(&decl, GS_EARG, "no IMAP entry", "0x2a0");
  decl.inputs = twice;
  decl.n_inputs = 2;
  expect_build_error(&decl, GS_EARG, "input 1 (0x080, ImapGenericVector[0].X)", "twice");
  decl.inputs = NULL;
  decl.n_inputs = 0;
  decl.outputs = no_mode;
  decl.n_outputs = 1;
  expect_build_error(&decl, GS_EARG, "attribute outputs", NULL);

  memset(&decl, 0, sizeof decl);
  decl.stage = GS_SPH_VERTEX;
  decl.inputs = with_mode;
  decl.n_inputs = 1;
  expect_build_error(&decl, GS_EARG, "input 0", "takes no interpolation mode");
  decl.inputs = big_mask;
  expect_build_error(&decl, GS_EARG, "mask 0x10", NULL);
  decl.inputs = unaligned;
  expect_build_error(&decl, GS_EARG, "0x082", "multiple of 4");
  decl.inputs = beyond;
  expect_build_error(&decl, GS_EARG, "0x400", "beyond");
  decl.inputs = NULL;
  decl.n_inputs = 0;
  decl.outputs = facing;
  decl.n_outputs = 1;
  expect_build_error(&decl, GS_EARG, "output 0", "no OMAP entry");
  decl.outputs = NULL;
  decl.n_outputs = 0;
  decl.render_targets = 1;
  expect_build_error(&decl, GS_EARG, "render targets", "vertex");
  decl.render_targets = 0;
  decl.flags = GS_SPH_KILLS_PIXELS;
  expect_build_error(&decl, GS_EARG, "KillsPixels", NULL);
  decl.flags = 0;
  decl.local_memory_size = 1u << 24;
  expect_build_error(&decl, GS_EINVAL, "ShaderLocalMemoryLowSize", "24 bits");
  decl.local_memory_size = 0;
  decl.stage = GS_SPH_GEOMETRY; /* no topology, no vertex count */
  expect_build_error(&decl, GS_EINVAL, "OutputTopology", NULL);
  decl.stage = (gs_sph_stage)0;
  expect_build_error(&decl, GS_EARG, "stage 0", NULL);
}


int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_decode_nvidia_vs),
      cmocka_unit_test(test_decode_nvidia_ps),
      cmocka_unit_test(test_decode_nouveau),
      cmocka_unit_test(test_decode_bad_sph_type),
      cmocka_unit_test(test_encode_worked),
      cmocka_unit_test(test_bit_positions),
      cmocka_unit_test(test_walking_ones_vtg),
      cmocka_unit_test(test_walking_ones_ps),
      cmocka_unit_test(test_random_round_trip),
      cmocka_unit_test(test_encode_errors),
      cmocka_unit_test(test_validate),
      cmocka_unit_test(test_dump),
      cmocka_unit_test(test_bmap),
      cmocka_unit_test(test_imap_omap_lookup),
      cmocka_unit_test(test_attr_default),
      cmocka_unit_test(test_pixel_imap),
      cmocka_unit_test(test_build_vs),
      cmocka_unit_test(test_build_ps),
      cmocka_unit_test(test_build_gs),
      cmocka_unit_test(test_build_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
