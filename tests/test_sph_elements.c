/* test_sph_elements.c — the SPH as named elements (gs_sph_element_count,
 * gs_sph_element_get, gs_sph_init, gs_sph_element_set, gs_sph_decode_bytes,
 * gs_sph_encode_bytes in gpusim/sph.h), the C side of gpusim.sph.
 *
 * Expected places are worked out by hand from NVIDIA's cla097sph.h
 * (open-gpu-doc, classes/3d): each field's MW(hi:lo) in the SPHV3T1 (VTG)
 * and SPHV3T2 (PS) tables, SPH bit n being bit n % 32 of word n / 32.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/sph.h"

/* Finds the element with this key in s's layout; -1 if there is none. */
static int find(const gs_sph *s, const char *key, gs_sph_element *e) {
  unsigned n = gs_sph_element_count(s->sph_type);
  for (unsigned k = 0; k < n; k++) {
    assert_int_equal(gs_sph_element_get(s, k, e), GS_OK);
    if (strcmp(e->key, key) == 0) return (int)k;
  }
  return -1;
}

/* Every SPH bit belongs to exactly one element of each layout, the
 * elements run in bit order, and no two keys are the same. */
static void test_elements_cover_every_bit(void **state) {
  (void)state;
  for (uint32_t type = 1; type <= 2; type++) {
    gs_sph s;
    gs_sph_element e, f;
    unsigned char owner[640] = {0};
    unsigned n = gs_sph_element_count(type), next = 0;
    assert_int_equal(gs_sph_init(&s, type, NULL), GS_OK);
    assert_int_equal(n, type == 1 ? 458 : 268); /* counted in tests/lua/sph_codec.lua */
    for (unsigned k = 0; k < n; k++) {
      assert_int_equal(gs_sph_element_get(&s, k, &e), GS_OK);
      assert_int_equal(e.bit, next);
      assert_true(e.width >= 1 && e.width <= 30);
      for (unsigned b = e.bit; b < e.bit + e.width; b++) owner[b]++;
      next = e.bit + e.width;
      for (unsigned j = 0; j < k; j++) {
        assert_int_equal(gs_sph_element_get(&s, j, &f), GS_OK);
        if (strcmp(e.key, f.key) == 0) fail_msg("type %u: key %s twice", (unsigned)type, e.key);
      }
    }
    assert_int_equal(next, 640);
    for (unsigned b = 0; b < 640; b++) assert_int_equal(owner[b], 1);
    assert_int_equal(gs_sph_element_get(&s, n, &e), GS_EARG);
  }
  assert_int_equal(gs_sph_element_count(0), 0);
  assert_int_equal(gs_sph_element_count(3), 0);
}

/* Places from cla097sph.h. */
static void test_element_places(void **state) {
  static const struct {
    uint32_t type;
    const char *key;
    unsigned bit, width;
  } cases[] = {
      {1, "SphType", 0, 5},                    /* MW(4:0) */
      {1, "ShaderType", 10, 4},                /* MW(13:10) */
      {2, "Reserved@w0[23:21]", 21, 3},        /* RESERVED_COMMON_A(i) 21+i, i 0-2 */
      {1, "Reserved@w3[31:28]", 124, 4},       /* RESERVED_COMMON_B MW(127:124) */
      {1, "Reserved@w4[23:20]", 148, 4},       /* RESERVED_COMMON_C(i) 148+i */
      {1, "StoreReqEnd", 152, 8},              /* MW(159:152) */
      {1, "ImapTessellationLodLeft", 164, 1},  /* MW(164:164) */
      {1, "ImapPositionW", 191, 1},            /* MW(191:191) */
      {1, "ImapGenericVector[8].X", 224, 1},   /* GENERIC_IMAP_X(i) 192+4i */
      {2, "ImapGenericVector[8].X", 256, 2},   /* T2 GENERIC_IMAP_X(i) (193+8i):(192+8i) */
      {1, "ImapColorBackSpecularAlpha", 335, 1},
      {2, "ImapColorSpecularAlpha", 462, 2},   /* MW(463:462) */
      {1, "ImapClipDistance7", 343, 1},
      {2, "ImapClipDistance7", 471, 1},
      {1, "ImapVertexId", 351, 1},
      {2, "ImapVertexId", 479, 1},
      {2, "ImapFixedFncTexture[9].Q", 558, 2}, /* TEX_IMAP_Q(i) (487+8i):(486+8i) */
      {1, "OmapPositionX", 428, 1},
      {1, "OmapSystemValuesA.Reserved@w12[31:26]+w13[7:0]", 410, 14},
      {1, "OmapFixedFncTexture[0].S", 592, 1},
      {2, "OmapTarget[7].Alpha", 607, 1},      /* OMAP_ALPHA(i) 579+4i */
      {2, "OmapDepth", 609, 1},
      {2, "OmapReserved", 610, 30},            /* RESERVED(i) 610+i */
  };
  (void)state;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    gs_sph s;
    gs_sph_element e;
    gs_sph_init(&s, cases[c].type, NULL);
    if (find(&s, cases[c].key, &e) < 0) fail_msg("type %u has no key %s", (unsigned)cases[c].type, cases[c].key);
    if (e.bit != cases[c].bit || e.width != cases[c].width)
      fail_msg("%s: bit %u width %u, expected %u %u", cases[c].key, e.bit, e.width, cases[c].bit,
               cases[c].width);
  }
}

/* Setting elements by index builds the words worked out by hand, and the
 * byte codec is little-endian. */
static void test_element_set_and_bytes(void **state) {
  gs_sph s, back;
  gs_sph_element e;
  gs_diag d;
  unsigned char b[GS_SPH_BYTES];
  (void)state;
  assert_int_equal(gs_sph_init(&s, GS_SPH_TYPE_PS, &d), GS_OK);
  int k = find(&s, "Version", &e);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_PS, (unsigned)k, 3, &d), GS_OK);
  k = find(&s, "ShaderType", &e);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_PS, (unsigned)k, 5, &d), GS_OK);
  k = find(&s, "OmapTarget[7].Alpha", &e);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_PS, (unsigned)k, 1, &d), GS_OK);
  assert_int_equal(gs_sph_encode_bytes(&s, b, &d), GS_OK);
  /* w0 = 2 | 3 << 5 | 5 << 10 = 0x1462; w18 bit 31 */
  assert_int_equal(b[0], 0x62);
  assert_int_equal(b[1], 0x14);
  assert_int_equal(b[2], 0);
  assert_int_equal(b[4 * 18 + 3], 0x80);
  for (int i = 0; i < GS_SPH_BYTES; i++)
    if (i != 0 && i != 1 && i != 4 * 18 + 3) assert_int_equal(b[i], 0);
  assert_int_equal(gs_sph_decode_bytes(b, &back, &d), GS_OK);
  assert_memory_equal(&back, &s, sizeof s);

  /* errors name the key and place */
  k = find(&s, "Version", &e);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_PS, (unsigned)k, 32, &d), GS_EINVAL);
  assert_string_equal(d.msg, "SPH word 0 bits 9:5, Version: 32 does not fit in 5 bits");
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_PS, (unsigned)k, -1, &d), GS_EINVAL);
  assert_string_equal(d.msg, "SPH word 0 bits 9:5, Version: -1 does not fit in 5 bits");
  k = find(&s, "SphType", &e);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_PS, (unsigned)k, 2, &d), GS_OK);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_PS, (unsigned)k, 1, &d), GS_EINVAL);
  assert_non_null(strstr(d.msg, "SphType: 1, but the header was started as Type 2 (PS)"));

  /* an element of the other layout: only 0 */
  gs_sph vtg;
  gs_sph_init(&vtg, GS_SPH_TYPE_VTG, NULL);
  k = find(&vtg, "OmapPositionX", &e);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_VTG, (unsigned)k, 0, &d), GS_OK);
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_VTG, (unsigned)k, 1, &d), GS_EINVAL);
  assert_string_equal(d.msg, "SPH OmapPositionX: 1, but a Type 2 (PS) header has no such field");
  assert_int_equal(gs_sph_element_set(&s, GS_SPH_TYPE_VTG, 458, 0, &d), GS_EARG);

  /* a field that crosses a word: both places in messages */
  k = find(&vtg, "OmapSystemValuesA.Reserved@w12[31:26]+w13[7:0]", &e);
  assert_int_equal(gs_sph_element_set(&vtg, GS_SPH_TYPE_VTG, (unsigned)k, 1 << 14, &d), GS_EINVAL);
  assert_string_equal(d.msg, "SPH word 12 bits 31:26 and word 13 bits 7:0, "
                             "OmapSystemValuesA.Reserved@w12[31:26]+w13[7:0]: 16384 does not fit in 14 bits");

  /* gs_sph_init refuses a SphType the decoder refuses */
  assert_int_equal(gs_sph_init(&s, 3, &d), GS_EINVAL);
  assert_string_equal(d.msg, "SPH word 0 bits 4:0, SphType: 3 is neither 1 (VTG) nor 2 (PS)");
  assert_int_equal(gs_sph_init(&s, -7, &d), GS_EINVAL);
  assert_string_equal(d.msg, "SPH word 0 bits 4:0, SphType: -7 is neither 1 (VTG) nor 2 (PS)");
  memset(b, 0, sizeof b);
  assert_int_equal(gs_sph_decode_bytes(b, &back, &d), GS_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_elements_cover_every_bit),
      cmocka_unit_test(test_element_places),
      cmocka_unit_test(test_element_set_and_bytes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
