/* test_qpu_texture.c — texture lookups through QPU programs: the T write
 * pops config uniform 0, the S write pops config uniform 1 and retires the
 * request, ldtmu0 brings the texel into r4 (reference/vc4.md §5.1–5.2); a
 * direct lookup pops none. Texel values are built so that each lane's
 * expected result can be written down by hand. Both interpreters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/qpu.h"

/* Lane e samples texel (e & 3, e >> 2) of a 4×4 texture at its centre. */
static const char lookup[] =
    "    and r0, elem_num, 3      # x\n"
    "    shr r1, elem_num, 2      # y\n"
    "    itof r0, r0\n"
    "    itof r1, r1\n"
    "    fadd r0, r0, 0.5         # texel centres\n"
    "    fadd r1, r1, 0.5\n"
    "    nop ; fmul r0, r0, 0.25  # s = (x + 0.5) / 4\n"
    "    nop ; fmul r1, r1, 0.25  # t = (y + 0.5) / 4\n"
    "    mov tmu0_t, r1           # pops config 0\n"
    "    mov tmu0_s, r0           # pops config 1 and looks up\n"
    "    ldi r2, 16               # a direct read of the word 16 bytes in\n"
    "    add tmu0_s, r2, unif     # (base address from the third uniform)\n"
    "    nop ; nop ; ldtmu0\n"
    "    mov r0, r4 ; nop ; ldtmu0\n"
    "    mov r1, r4\n"
    "    ldi vw_setup, 0x1a00\n"
    "    mov vpm, r0\n"
    "    mov vpm, r1\n"
    "    ldi vw_setup, 0x81104000 # VDW: 2 rows of 16 words\n"
    "    mov vw_addr, unif\n"
    "    mov -, vw_wait\n"
    "    thrend\n    nop\n    nop\n";

static void lookups(int interp) {
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  uint64_t *w;
  size_t n;
  gs_diag d;
  gs_addr code, tex, unif, out;
  if (gs_qpu_asm(lookup, "tex.s", 0, &w, &n, &d) < 0) fail_msg("%s", d.msg);
  assert_int_equal(gs_mem_alloc(m, (uint32_t)(8 * n), 8, &code, NULL), GS_OK);
  gs_mem_write(m, code, w, (uint32_t)(8 * n), NULL);
  free(w);
  assert_int_equal(gs_mem_alloc(m, 4096, 4096, &tex, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 16, 4, &unif, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 128, 16, &out, NULL), GS_OK);
  uint32_t texels[16];
  for (uint32_t y = 0; y < 4; y++)
    for (uint32_t x = 0; x < 4; x++) texels[y * 4 + x] = 0xff000000u | y << 8 | x; /* raster RGBA, 16-byte rows */
  gs_mem_write(m, tex, texels, sizeof texels, NULL);
  /* config 0: base (bits 31:12), type RGBA32R = 16 -> TYPE[3:0] = 0;
   * config 1: TYPE[4] (bit 31), height 4 (30:20), width 4 (18:8),
   * magfilt nearest (bit 7), minfilt nearest (6:4 = 1), clamp s and t (1) */
  uint32_t u[4] = {tex, 1u << 31 | 4u << 20 | 4u << 8 | 1u << 7 | 1u << 4 | 1u << 2 | 1u, tex, out};
  gs_mem_write(m, unif, u, sizeof u, NULL);
  gs_gpu_config_of(g)->interpreter = interp;
  gs_qpu_program p = {code, unif};
  if (gs_qpu_run_user(g, &p, 1, NULL) < 0) fail_msg("%s", gs_gpu_error(g));
  uint32_t got[32];
  gs_mem_read(m, out, got, sizeof got, NULL);
  for (uint32_t e = 0; e < 16; e++) {
    assert_int_equal(got[e], 0xff000000u | (e >> 2) << 8 | (e & 3));
    assert_int_equal(got[16 + e], texels[4]); /* the word at tex + 16: texel (0, 1) */
  }
  gs_gpu_free(g);
}

static void test_lookups_fast(void **s) { (void)s; lookups(GS_INTERP_FAST); }
static void test_lookups_reference(void **s) { (void)s; lookups(GS_INTERP_REFERENCE); }

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lookups_fast),
      cmocka_unit_test(test_lookups_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
