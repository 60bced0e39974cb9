/* test_qpu_shader_io.c — what a shader stage connects the QPU to: varyings
 * (VP from the read, C into r5 at the end of the reading instruction), the
 * fragment payload (x/y coordinates, MS flags, reverse flag, and writes to
 * them), tile-buffer writes and loads. A mock pipeline stands in for the PSE
 * and TLB; every case runs on both interpreters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/qpu.h"
#include "isa/qpu/decode.h"
#include "isa/qpu/qpu.h"
#include "v3d/v3d.h"

typedef struct mock {
  int varyings_read;
  gs_vec tlb[8];        /* last value written to each TLB address 43..47 */
  uint16_t tlb_lanes[8];
  int tlb_writes;
  int loads;
} mock;

/* Varying k: VP = k + lane/16, C = 100 * (k + 1) in every lane. */
static int mock_varying(void *ctx, gs_qpu *q, gs_vec *vp, gs_vec *c) {
  mock *m = ctx;
  (void)q;
  for (int i = 0; i < 16; i++) {
    vp->f[i] = (float)m->varyings_read + (float)i / 16.0f;
    c->f[i] = 100.0f * (float)(m->varyings_read + 1);
  }
  m->varyings_read++;
  return GS_OK;
}

static int mock_tlb_write(void *ctx, gs_qpu *q, unsigned addr, const gs_vec *v, uint16_t lanes) {
  mock *m = ctx;
  (void)q;
  m->tlb[addr - 43] = *v;
  m->tlb_lanes[addr - 43] = lanes;
  m->tlb_writes++;
  return GS_OK;
}

/* A colour load returns 0xAABBCC00 + lane. */
static int mock_tlb_load(void *ctx, gs_qpu *q, unsigned sig, gs_vec *r4) {
  mock *m = ctx;
  (void)q;
  assert_int_equal(sig, 8); /* loadc */
  for (int i = 0; i < 16; i++) r4->u[i] = 0xAABBCC00u + (uint32_t)i;
  m->loads++;
  return GS_OK;
}

static const qpu_shader_io mock_io_template = {NULL, mock_varying, mock_tlb_write, mock_tlb_load, NULL};

/* Runs src as a fragment shader with W = 2.0 in ra15 and payload x = 10 +
 * lane, y = 20 + lane, MS flags 0xF, reverse flag = lane & 1. */
static gs_gpu *run_fragment(int interp, const char *src, mock *m) {
  gs_gpu *g = gs_gpu_new(NULL);
  gs_mem *mem = gs_gpu_mem(g);
  uint64_t *w;
  size_t n;
  gs_diag d;
  gs_addr code, unif;
  if (gs_qpu_asm(src, "fs.s", 0, &w, &n, &d) < 0) fail_msg("%s", d.msg);
  assert_int_equal(gs_mem_alloc(mem, (uint32_t)(8 * n), 8, &code, NULL), GS_OK);
  assert_int_equal(gs_mem_alloc(mem, 16, 4, &unif, NULL), GS_OK);
  gs_mem_write(mem, code, w, (uint32_t)(8 * n), NULL);
  free(w);
  gs_gpu_config_of(g)->interpreter = interp;
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  qpu_reset(q, 0, code, unif, 100000);
  qpu_shader_io io = mock_io_template;
  io.ctx = m;
  q->shader_io = &io;
  for (int i = 0; i < 16; i++) {
    q->reg[QREG_RA0 + 15].f[i] = 2.0f;
    q->payload[QPU_PAYLOAD_X].u[i] = 10u + (uint32_t)i;
    q->payload[QPU_PAYLOAD_Y].u[i] = 20u + (uint32_t)i;
    q->payload[QPU_PAYLOAD_MS].u[i] = 0xF;
    q->payload[QPU_PAYLOAD_REV].u[i] = (uint32_t)i & 1;
  }
  if (qpu_run_to_end(g, q) != GS_OK) fail_msg("%s", gs_gpu_error(g));
  q->shader_io = NULL;
  return g;
}

/* The varying protocol: fmul by W, then add r5, which holds C from the
 * instruction after the read on; the reading instruction itself sees the old r5. */
static void varyings(int interp) {
  mock m = {0};
  gs_gpu *g = run_fragment(interp,
                           "    ldi r5rep, 7\n"          /* old r5 = 7 in every lane */
                           "    mov r2, r5 ; fmul r0, vary, ra15\n" /* r2 = old r5 */
                           "    fadd r1, r0, r5\n"         /* varying 0: VP*2 + 100 */
                           "    fmul r0, vary, ra15\n"
                           "    fadd r3, r0, r5\n"         /* varying 1: VP*2 + 200 */
                           "    thrend\n    nop\n    nop\n",
                           &m);
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  assert_int_equal(m.varyings_read, 2);
  for (int i = 0; i < 16; i++) {
    assert_int_equal(q->reg[QREG_R0 + 2].u[i], 7);
    assert_true(q->reg[QREG_R0 + 1].f[i] == 2.0f * ((float)i / 16.0f) + 100.0f);
    assert_true(q->reg[QREG_R0 + 3].f[i] == 2.0f * (1.0f + (float)i / 16.0f) + 200.0f);
  }
  gs_gpu_free(g);
}

static void payload_and_tlb(int interp) {
  mock m = {0};
  gs_gpu *g = run_fragment(interp,
                           "    mov r0, x_coord ; mov r1, y_coord\n"
                           "    ldi r2, 16\n"
                           "    shl r0, r0, r2\n"
                           "    or r0, r0, r1\n"           /* x << 16 | y */
                           "    mov tlb_z, r0\n"
                           "    mov r2, ms_mask ; mov r3, rev_flag\n"
                           "    mov.setf -, r3\n"           /* Z set in even lanes */
                           "    mov.zs tlb_colour_all, r2\n" /* only even lanes write */
                           "    ldi quad_x, 5\n"
                           "    nop ; nop ; loadc\n"
                           "    mov r1, r4 ; mov r0, x_coord\n" /* r4 is the loaded colour; x is 5 */
                           "    thrend\n    nop\n    nop\n",
                           &m);
  gs_qpu *q = qpu_cluster_of(g)->qpu[0];
  assert_int_equal(m.tlb_writes, 2);
  assert_int_equal(m.loads, 1);
  assert_int_equal(m.tlb_lanes[44 - 43], 0xFFFF);
  assert_int_equal(m.tlb_lanes[46 - 43], 0x5555);
  for (int i = 0; i < 16; i++) {
    assert_int_equal(m.tlb[44 - 43].u[i], ((10u + i) << 16) | (20u + i));
    assert_int_equal(m.tlb[46 - 43].u[i], 0xF);
    assert_int_equal(q->reg[QREG_R0 + 1].u[i], 0xAABBCC00u + i);
    assert_int_equal(q->reg[QREG_R0].u[i], 5);
  }
  gs_gpu_free(g);
}

#define BOTH(name)                                                            \
  static void test_##name##_fast(void **s) { (void)s; name(GS_INTERP_FAST); } \
  static void test_##name##_reference(void **s) { (void)s; name(GS_INTERP_REFERENCE); }
BOTH(varyings)
BOTH(payload_and_tlb)

/* A thread end's two delay slots (RG §3: the two instructions after thrend
 * still run), which the fast interpreter does at once when they are nops
 * and nothing else is pending, run in steps of 1 to 5 instructions: each
 * call stops at its count (pc = code + 8 × count) until the thread ends
 * after the fourth instruction, at code + 32, whatever the step; the
 * end of the thread wins over a stop at that same count. Also with a
 * regfile write pending at the thread end and a delay slot that is not a
 * nop (the whole bookkeeping), whose results must land. */
static void thread_end_steps(const char *src, uint32_t r1, uint32_t ra1) {
  for (uint32_t step = 1; step <= 5; step++) {
    gs_gpu *g = gs_gpu_new(NULL);
    gs_mem *mem = gs_gpu_mem(g);
    uint64_t *w;
    size_t n;
    gs_diag d;
    gs_addr code;
    if (gs_qpu_asm(src, "end.s", 0, &w, &n, &d) < 0) fail_msg("%s", d.msg);
    assert_int_equal(n, 4);
    assert_int_equal(gs_mem_alloc(mem, (uint32_t)(8 * n), 8, &code, NULL), GS_OK);
    gs_mem_write(mem, code, w, (uint32_t)(8 * n), NULL);
    free(w);
    gs_qpu *q = qpu_cluster_of(g)->qpu[0];
    qpu_reset(q, 0, code, 0, 1000);
    uint64_t expect = 0;
    int rc;
    for (;;) {
      rc = qpu_run_fast(g, q, step);
      expect = expect + step < 4 ? expect + step : 4;
      assert_int_equal(q->instructions, expect);
      if (rc != QPU_STEP_OK) break;
      assert_true(expect < 4);
      assert_int_equal(q->pc, code + 8 * expect);
    }
    assert_int_equal(rc, QPU_STEP_END);
    assert_int_equal(q->pc, code + 32);
    assert_int_equal(q->busy, 0);
    for (int i = 0; i < 16; i++) {
      assert_int_equal(q->reg[QREG_R0 + 1].u[i], r1);
      assert_int_equal(q->reg[QREG_RA0 + 1].u[i], ra1);
    }
    gs_gpu_free(g);
  }
}

static void test_thread_end_steps(void **s) {
  (void)s;
  thread_end_steps("    ldi r1, 5\n    thrend\n    nop\n    nop\n", 5, 0);
  thread_end_steps("    ldi ra1, 9\n    thrend\n    nop\n    nop\n", 0, 9);
  thread_end_steps("    ldi r1, 5\n    thrend\n    add r1, r1, r1\n    nop\n", 10, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_thread_end_steps),
      cmocka_unit_test(test_varyings_fast),
      cmocka_unit_test(test_varyings_reference),
      cmocka_unit_test(test_payload_and_tlb_fast),
      cmocka_unit_test(test_payload_and_tlb_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
