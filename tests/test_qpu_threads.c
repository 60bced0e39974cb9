/* test_qpu_threads.c — QPU programs on several host threads at once, as the
 * tile renderer will run shaders: each worker has its own QPU, VPM and error
 * message; the program cache is shared. Results must equal the one-thread
 * results, and the reported failure must be the lowest failing job's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/pool.h"
#include "gpusim/qpu.h"
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"

#define NJOBS 64
#define MAXW 8

typedef struct ctx {
  gs_gpu *g;
  gs_addr code, out, unif;
  gs_qpu *qpu[MAXW];
  gs_vpm vpm[MAXW];
  gs_diag diag[MAXW];
} ctx;

/* Job i: stores (unif0 = 1000 i) + elem_num, squared as a float chain, to out + 64 i. */
static int job(void *p, unsigned index, unsigned worker) {
  ctx *c = p;
  gs_qpu *q = c->qpu[worker];
  qpu_reset(q, (int)worker, c->code, c->unif + 8 * index, 1000000);
  q->diag = &c->diag[worker];
  q->vpm.mem = &c->vpm[worker];
  return qpu_run_to_end(c->g, q);
}

static const char program[] =
    "    mov r0, unif\n"
    "    add r0, r0, elem_num\n"
    "    itof r0, r0\n"
    "    fmul r1, r0, r0\n"
    "    ldi vw_setup, 0x1a00\n"
    "    mov vpm, r1\n"
    "    ldi vw_setup, 0x80904000\n"
    "    mov vw_addr, unif\n"
    "    mov -, vw_wait\n"
    "    thrend\n    nop\n    nop\n";

static void setup_ctx(ctx *c, int fault_from) {
  memset(c, 0, sizeof *c);
  c->g = gs_gpu_new(NULL);
  gs_mem *m = gs_gpu_mem(c->g);
  uint64_t *w;
  size_t n;
  gs_diag d;
  if (gs_qpu_asm(program, "t.s", 0, &w, &n, &d) < 0) fail_msg("%s", d.msg);
  assert_int_equal(gs_mem_alloc(m, (uint32_t)(8 * n), 8, &c->code, NULL), GS_OK);
  gs_mem_write(m, c->code, w, (uint32_t)(8 * n), NULL);
  free(w);
  assert_int_equal(gs_mem_alloc(m, 64 * NJOBS, 64, &c->out, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(m, 8 * NJOBS, 4, &c->unif, NULL), GS_OK);
  for (uint32_t i = 0; i < NJOBS; i++) {
    /* jobs >= fault_from with i % 5 == 2 store to an unallocated address */
    uint32_t u[2] = {1000 * i, (int)i >= fault_from && i % 5 == 2 ? 0x40u + i : c->out + 64 * i};
    gs_mem_write(m, c->unif + 8 * i, u, 8, NULL);
  }
  for (int k = 0; k < MAXW; k++) {
    c->qpu[k] = aligned_alloc(64, (sizeof(gs_qpu) + 63) & ~(size_t)63);
    assert_non_null(c->qpu[k]);
  }
}

static void free_ctx(ctx *c) {
  for (int k = 0; k < MAXW; k++) free(c->qpu[k]);
  gs_gpu_free(c->g);
}

static void test_same_results_for_any_thread_count(void **s) {
  (void)s;
  for (unsigned threads = 1; threads <= MAXW; threads *= 2) {
    static ctx c;
    setup_ctx(&c, NJOBS);
    if (gs_parallel_for(threads, NJOBS, job, &c, NULL) != GS_OK) fail_msg("run failed");
    for (uint32_t i = 0; i < NJOBS; i++)
      for (uint32_t lane = 0; lane < 16; lane++) {
        float got;
        gs_mem_read(gs_gpu_mem(c.g), c.out + 64 * i + 4 * lane, &got, 4, NULL);
        /* the product rounds toward zero: at most one unit in the last place (2^-23) below */
        double exact = (double)(1000 * i + lane) * (double)(1000 * i + lane);
        if (!(got <= exact && (double)got >= exact * (1 - 0x1p-23))) fail_msg("%u threads, job %u lane %u: %.1f, want %.1f", threads, i, lane, (double)got, exact);
      }
    free_ctx(&c);
  }
}

static void test_lowest_failing_job_reported(void **s) {
  (void)s;
  for (unsigned threads = 1; threads <= MAXW; threads *= 2) {
    static ctx c;
    setup_ctx(&c, 20); /* the first failing job is 22 */
    unsigned worker;
    assert_int_equal(gs_parallel_for(threads, NJOBS, job, &c, &worker), GS_EFAULT);
    char want[64];
    snprintf(want, sizeof want, "0x%08x", 0x40u + 22);
    if (!strstr(c.diag[worker].msg, want)) fail_msg("%u threads: \"%s\" does not name %s", threads, c.diag[worker].msg, want);
    free_ctx(&c);
  }
}

/* qpu_copy_state leaves the copy byte-identical to its source (a fresh
 * reset state) for the registers the copy marked dirty, whatever else. */
static void test_copy_state(void **s) {
  (void)s;
  size_t size = (sizeof(gs_qpu) + 63) & ~(size_t)63;
  gs_qpu *a = aligned_alloc(64, size), *b = aligned_alloc(64, size);
  assert_non_null(a);
  assert_non_null(b);
  qpu_reset(b, 3, 0x2000, 0x3000, 99);
  for (int k = 0; k < QREG_SMALL_IMM0; k++) {
    b->reg[k].u[k % 16] = 0xdead0000u + (uint32_t)k;
    b->dirty[k / 64] |= 1ull << (k % 64);
  }
  b->zf = 0x1234;
  b->instructions = 77;
  qpu_reset(a, 5, 0x4000, 0x5000, 1000);
  qpu_copy_state(b, a);
  assert_memory_equal(a, b, sizeof(gs_qpu));
  free(a);
  free(b);
}

/* Runs the assembly src alone on a QPU reset for it with interpreter
 * interp, calls check on the QPU after the run, then asserts that one
 * qpu_copy_state from the reset state restores it byte for byte. */
static void run_then_copy_back(int interp, const char *src, void (*check)(const gs_qpu *q)) {
  gs_gpu *g = gs_gpu_new(NULL);
  assert_non_null(g);
  gs_gpu_config_of(g)->interpreter = interp;
  uint64_t *w;
  size_t n;
  gs_diag d;
  if (gs_qpu_asm(src, "t.s", 0, &w, &n, &d) < 0) fail_msg("%s", d.msg);
  gs_addr code;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), (uint32_t)(8 * n), 8, &code, NULL), GS_OK);
  gs_mem_write(gs_gpu_mem(g), code, w, (uint32_t)(8 * n), NULL);
  free(w);
  size_t size = (sizeof(gs_qpu) + 63) & ~(size_t)63;
  gs_qpu *fresh = aligned_alloc(64, size), *q = aligned_alloc(64, size);
  assert_non_null(fresh);
  assert_non_null(q);
  gs_addr unif;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), 16, 16, &unif, NULL), GS_OK);
  uint32_t u[2] = {unif, 0};
  gs_mem_write(gs_gpu_mem(g), unif, u, sizeof u, NULL);
  qpu_reset(fresh, 0, code, unif, 1000000);
  memcpy(q, fresh, sizeof *q);
  if (qpu_run_to_end(g, q) < 0) fail_msg("%s", gs_gpu_error(g));
  check(q);
  qpu_copy_state(q, fresh);
  fresh->hint = q->hint, fresh->hint_gen = q->hint_gen; /* kept by the copy */
  memset(q->tmu[0].fifo, 0, sizeof q->tmu[0].fifo);     /* not read while empty: not copied */
  assert_memory_equal(fresh, q, sizeof(gs_qpu));
  free(fresh);
  free(q);
  gs_gpu_free(g);
}

static void check_every_register_written(const gs_qpu *q) {
  assert_int_equal(q->reg[QREG_RB0 + 31].u[5], 5u); /* the program ran */
  assert_int_equal(q->reg[QREG_RA0 + 15].u[0], 16u);
  assert_int_equal(q->tmu[1].written, 2); /* T of TMU1 is open */
}

/* The dirty masks cover everything a program writes: after a run on either
 * interpreter of a program that writes every regfile register through the
 * ADD and the MUL ALU, both files each way (ws), and the accumulators, one
 * qpu_copy_state from the reset state restores it byte for byte. */
static void copy_after_run(int interp) {
  char src[8192];
  size_t len = 0;
  /* registers 0..15 of each file through the ADD ALU, 16..31 through the MUL ALU */
  for (int k = 0; k < 16; k++)
    len += (size_t)snprintf(src + len, sizeof src - len, "    ldi ra%d, %d\n    ldi rb%d, %d\n", k, k + 1, k, k + 100);
  for (int k = 16; k < 32; k++)
    len += (size_t)snprintf(src + len, sizeof src - len, "    mov r%d, elem_num ; mov rb%d, elem_num\n"
                            "    nop ; fmul ra%d, r3, r3\n", k % 4, k, k);
  /* an SFU result, a TMU direct read through the FIFO, and a TMU1 request
   * left open (T written, S never) */
  len += (size_t)snprintf(src + len, sizeof src - len,
                          "    mov sfu_recip, r1\n    mov r0, unif\n    mov tmu0_s, r0\n    nop ; nop ; ldtmu0\n"
                          "    mov tmu1_t, r1\n    thrend\n    nop\n    nop\n");
  run_then_copy_back(interp, src, check_every_register_written);
}

static void test_copy_after_run(void **s) {
  (void)s;
  copy_after_run(GS_INTERP_FAST);
  copy_after_run(GS_INTERP_REFERENCE);
}

static void check_links_written(const gs_qpu *q) {
  assert_int_not_equal(q->reg[QREG_R0 + 2].u[0], 0u); /* the links were written */
  assert_int_not_equal(q->reg[QREG_RB0 + 7].u[0], 0u);
}

/* The same for the other writers: branch links into an accumulator and a
 * regfile register (staged), moves, whose write-back reads their operand's
 * slot, and a load immediate straight into an accumulator. */
static void test_copy_after_links_and_moves(void **s) {
  (void)s;
  static const char src[] = "    brr r2, l1\n    nop\n    nop\n    nop\n"
                            "l1: brr rb7, l2\n    nop\n    nop\n    nop\n"
                            "l2: ldi r1, 7\n    mov ra3, r1\n    nop ; mov r3, elem_num\n"
                            "    thrend\n    nop\n    nop\n";
  run_then_copy_back(GS_INTERP_FAST, src, check_links_written);
  run_then_copy_back(GS_INTERP_REFERENCE, src, check_links_written);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_results_for_any_thread_count),
      cmocka_unit_test(test_lowest_failing_job_reported),
      cmocka_unit_test(test_copy_state),
      cmocka_unit_test(test_copy_after_run),
      cmocka_unit_test(test_copy_after_links_and_moves),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
