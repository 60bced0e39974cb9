/* test_multi_qpu.c — a program of our own in QPU assembly, run on 8 QPUs at
 * once: tests/qpu/sum_squares.s sums the squares of 512 integers with VCD
 * DMA loads under the mutex, VPM reads and writes, semaphores between the
 * QPUs, a rotation-based lane reduction and a VDW DMA store. The result, and
 * each QPU's partial sums left in the VPM, are checked against plain C, on
 * both interpreters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/qpu.h"
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"

#define NQPU 8
#define ROWS_PER_QPU 4

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
    free(s);
    s = NULL;
  }
  if (s) s[n] = '\0';
  fclose(f);
  return s;
}

static void sum_squares(int interp, uint32_t seed) {
  char *src = read_file(GS_SOURCE_DIR "/tests/qpu/sum_squares.s");
  assert_non_null(src);
  uint64_t *words;
  size_t n;
  gs_diag d;
  if (gs_qpu_asm(src, "sum_squares.s", 0, &words, &n, &d) < 0) fail_msg("%s", d.msg);
  free(src);

  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(g);
  gs_gpu_config_of(g)->interpreter = interp;
  gs_addr code, data, result, unif;
  assert_int_equal(gs_mem_alloc(m, (uint32_t)(8 * n), 8, &code, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, NQPU * ROWS_PER_QPU * 64, 64, &data, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 64, 16, &result, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, NQPU * 12, 4, &unif, NULL), GS_OK);
  gs_mem_write(m, code, words, (uint32_t)(8 * n), NULL);
  free(words);

  /* Input and the plain-C answer. */
  uint32_t in[NQPU * ROWS_PER_QPU * 16], partial[NQPU][16] = {{0}}, total = 0;
  for (int k = 0; k < NQPU * ROWS_PER_QPU * 16; k++) {
    seed = seed * 1103515245u + 12345u;
    in[k] = (seed >> 8) & 0xffff;
    partial[k / (ROWS_PER_QPU * 16)][k % 16] += in[k] * in[k];
    total += in[k] * in[k];
  }
  gs_mem_write(m, data, in, sizeof in, NULL);

  gs_qpu_program progs[NQPU];
  for (uint32_t i = 0; i < NQPU; i++) {
    uint32_t u[3] = {i, data + i * ROWS_PER_QPU * 64, result};
    gs_mem_write(m, unif + 12 * i, u, sizeof u, NULL);
    progs[i].code = code;
    progs[i].uniforms = unif + 12 * i;
  }
  gs_qpu_status st[NQPU];
  if (gs_qpu_run_user(g, progs, NQPU, st) != GS_OK) fail_msg("run: %s", gs_gpu_error(g));
  for (int i = 0; i < NQPU; i++) {
    assert_true(st[i].ended);
    assert_int_equal(st[i].qpu, i);
  }
  uint32_t out[16];
  gs_mem_read(m, result, out, sizeof out, NULL);
  for (int lane = 0; lane < 16; lane++) assert_int_equal(out[lane], total);
  for (int i = 0; i < NQPU; i++)
    for (int lane = 0; lane < 16; lane++)
      assert_int_equal(g->vpm.words[(32 + i) * 16 + lane], partial[i][lane]);
  gs_gpu_free(g);
}

static void test_sum_squares_fast(void **s) {
  (void)s;
  for (uint32_t seed = 1; seed <= 5; seed++) sum_squares(GS_INTERP_FAST, seed);
}

static void test_sum_squares_reference(void **s) {
  (void)s;
  sum_squares(GS_INTERP_REFERENCE, 7);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sum_squares_fast),
      cmocka_unit_test(test_sum_squares_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
