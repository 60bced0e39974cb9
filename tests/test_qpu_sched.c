/* test_qpu_sched.c — the user-program queue: more programs than QPUs,
 * semaphores and the mutex between QPUs, and every way a run can fail
 * (watchdog, deadlock, memory faults, invalid words, waits that can never
 * end), each with a message naming the QPU, pc and address. Every case runs
 * on both interpreters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "gpusim/qpu.h"
#include "v3d/v3d.h"

typedef struct fixture {
  gs_gpu *g;
  gs_addr scratch; /* 4 KB of zeroed memory for results */
} fixture;

static fixture setup(int interp) {
  fixture f;
  f.g = gs_gpu_new(NULL);
  assert_non_null(f.g);
  gs_gpu_config_of(f.g)->interpreter = interp;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(f.g), 4096, 64, &f.scratch, NULL), GS_OK);
  return f;
}

/* Assembles src into newly allocated GPU memory; returns its address. */
static gs_addr load(fixture *f, const char *src) {
  uint64_t *w;
  size_t n;
  gs_diag d;
  gs_addr a;
  if (gs_qpu_asm(src, "test.s", 0, &w, &n, &d) < 0) fail_msg("%s", d.msg);
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(f->g), (uint32_t)(8 * n), 8, &a, NULL), GS_OK);
  gs_mem_write(gs_gpu_mem(f->g), a, w, (uint32_t)(8 * n), NULL);
  free(w);
  return a;
}

static gs_addr uniforms(fixture *f, const uint32_t *u, size_t n) {
  gs_addr a;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(f->g), (uint32_t)(4 * n + 4), 4, &a, NULL), GS_OK);
  gs_mem_write(gs_gpu_mem(f->g), a, u, (uint32_t)(4 * n), NULL);
  return a;
}

/* Asserts that msg contains every fragment. */
static void assert_mentions(const char *msg, const char *const *frags) {
  for (; *frags; frags++)
    if (!strstr(msg, *frags)) fail_msg("message \"%s\" does not mention \"%s\"", msg, *frags);
}

/* Stores unif0 + elem_num to the address in the second uniform. */
static const char store_program[] =
    "    mov r0, unif\n"
    "    add r0, r0, elem_num\n"
    "    ldi vw_setup, 0x1a00\n"
    "    mov vpm, r0\n"
    "    ldi vw_setup, 0x80904000\n"
    "    mov vw_addr, unif\n"
    "    mov -, vw_wait\n"
    "    thrend\n"
    "    nop\n"
    "    nop\n";

static void more_programs_than_qpus(int interp) {
  fixture f = setup(interp);
  gs_addr code = load(&f, store_program);
  enum { N = 30 };
  gs_qpu_program p[N];
  for (uint32_t i = 0; i < N; i++) {
    uint32_t u[2] = {1000 * i, f.scratch + 64 * i};
    p[i].code = code;
    p[i].uniforms = uniforms(&f, u, 2);
  }
  gs_qpu_status st[N];
  if (gs_qpu_run_user(f.g, p, N, st) < 0) fail_msg("%s", gs_gpu_error(f.g));
  for (uint32_t i = 0; i < N; i++) {
    uint32_t out[16];
    assert_true(st[i].ended);
    assert_int_equal(st[i].instructions, 10);
    /* the queue hands programs to QPUs in order, 12 at a time */
    if (i < 12) assert_int_equal(st[i].qpu, i);
    gs_mem_read(gs_gpu_mem(f.g), f.scratch + 64 * i, out, 64, NULL);
    for (uint32_t lane = 0; lane < 16; lane++) assert_int_equal(out[lane], 1000 * i + lane);
  }
  gs_gpu_free(f.g);
}

/* A holds the mutex while it waits on semaphore 1; B waits for the mutex;
 * C releases the semaphore. B must see A's VPM write, made before A let go. */
static void mutex_orders_access(int interp) {
  fixture f = setup(interp);
  gs_addr a = load(&f,
                   "    mov -, mutex\n"
                   "    sacq 1\n"
                   "    ldi vw_setup, 0x1a00\n"
                   "    ldi vpm, 41\n"
                   "    mov mutex_release, 1\n"
                   "    thrend\n    nop\n    nop\n");
  gs_addr b = load(&f,
                   "    mov -, mutex\n"
                   "    ldi vr_setup, 0x00101a00\n"   /* read 1 vector from row 0 */
                   "    nop\n    nop\n    nop\n"
                   "    mov r0, vpm\n"
                   "    add r0, r0, 1\n"
                   "    ldi vw_setup, 0x1a01\n"
                   "    mov vpm, r0\n"
                   "    mov mutex_release, 1\n"
                   "    thrend\n    nop\n    nop\n");
  gs_addr c = load(&f, "    srel 1\n    thrend\n    nop\n    nop\n");
  gs_addr u = uniforms(&f, (uint32_t[]){0}, 1);
  gs_qpu_program p[3] = {{a, u}, {b, u}, {c, u}};
  if (gs_qpu_run_user(f.g, p, 3, NULL) < 0) fail_msg("%s", gs_gpu_error(f.g));
  assert_int_equal(f.g->vpm.words[0 * 16 + 5], 41);
  assert_int_equal(f.g->vpm.words[1 * 16 + 5], 42);
  gs_gpu_free(f.g);
}

static void run_expect(fixture *f, gs_qpu_program *p, size_t n, int code, const char *const *frags) {
  int rc = gs_qpu_run_user(f->g, p, n, NULL);
  if (rc != code) fail_msg("expected %s, got %d: %s", gs_strerror(code), rc, gs_gpu_error(f->g));
  assert_mentions(gs_gpu_error(f->g), frags);
}

static void watchdog(int interp) {
  fixture f = setup(interp);
  gs_gpu_config_of(f.g)->watchdog = 10000;
  gs_addr code = load(&f, "loop: brr loop\n    nop\n    nop\n    nop\n");
  gs_qpu_program p = {code, uniforms(&f, (uint32_t[]){0}, 1)};
  char pc[32];
  snprintf(pc, sizeof pc, "pc 0x%08x", code);
  run_expect(&f, &p, 1, GS_EWATCHDOG, (const char *[]){"QPU 0", pc, "watchdog", "10000", NULL});
  gs_gpu_free(f.g);
}

static void deadlocks(int interp) {
  fixture f = setup(interp);
  gs_addr waits = load(&f, "    sacq 3\n    thrend\n    nop\n    nop\n");
  gs_addr holder = load(&f, "    mov -, mutex\n    sacq 1\n    thrend\n    nop\n    nop\n");
  gs_addr wanter = load(&f, "    mov -, mutex\n    thrend\n    nop\n    nop\n");
  gs_addr u = uniforms(&f, (uint32_t[]){0}, 1);
  gs_qpu_program one = {waits, u};
  run_expect(&f, &one, 1, GS_EDEADLOCK, (const char *[]){"deadlock", "QPU 0", "acquire semaphore 3", NULL});
  gs_qpu_program two[2] = {{holder, u}, {wanter, u}};
  run_expect(&f, two, 2, GS_EDEADLOCK,
             (const char *[]){"QPU 0", "semaphore 1", "QPU 1", "mutex (held by QPU 0)", NULL});
  gs_gpu_free(f.g);
}

static void memory_faults(int interp) {
  fixture f = setup(interp);
  gs_addr u = uniforms(&f, (uint32_t[]){0x00000040u, 0}, 2);
  /* VDW store to an address nobody allocated */
  gs_addr store = load(&f, store_program);
  gs_qpu_program p = {store, u};
  run_expect(&f, &p, 1, GS_EFAULT, (const char *[]){"QPU 0", "pc 0x", "0x00000000", NULL});
  /* TMU direct read outside memory */
  gs_addr tmu = load(&f,
                     "    ldi r0, 0x7000000\n"
                     "    mov tmu0_s, r0\n"
                     "    nop ; nop ; ldtmu0\n"
                     "    thrend\n    nop\n    nop\n");
  p.code = tmu;
  run_expect(&f, &p, 1, GS_EFAULT, (const char *[]){"QPU 0", "0x07000000", NULL});
  /* uniforms read past their allocation */
  gs_addr many = load(&f,
                      "    mov r0, unif\n    mov r0, unif\n    mov r0, unif\n    mov r0, unif\n"
                      "    thrend\n    nop\n    nop\n");
  char where[64];
  snprintf(where, sizeof where, "uniform read at 0x%08x", u + 12);
  p.code = many;
  run_expect(&f, &p, 1, GS_EFAULT, (const char *[]){where, "outside allocated GPU memory", NULL});
  /* code that runs off the end of its allocation */
  gs_addr runs_off = load(&f, "    nop\n    nop\n");
  p.code = runs_off;
  snprintf(where, sizeof where, "instruction fetch at 0x%08x", runs_off + 16);
  run_expect(&f, &p, 1, GS_EFAULT, (const char *[]){where, NULL});
  gs_gpu_free(f.g);
}

static void bad_programs(int interp) {
  fixture f = setup(interp);
  gs_addr u = uniforms(&f, (uint32_t[]){0}, 1);
  /* a reserved ADD opcode (9) */
  gs_addr bad = load(&f, "    nop\n    .dword 0x100009e7099e7000\n    thrend\n    nop\n    nop\n");
  gs_qpu_program p = {bad, u};
  char pc[32];
  snprintf(pc, sizeof pc, "pc 0x%08x", bad + 8);
  run_expect(&f, &p, 1, GS_EINVAL, (const char *[]){pc, "invalid instruction", "reserved add opcode", NULL});
  /* ldtmu with no request, and a VPM read with none set up: they would wait forever */
  p.code = load(&f, "    nop ; nop ; ldtmu0\n    thrend\n    nop\n    nop\n");
  run_expect(&f, &p, 1, GS_EHANG, (const char *[]){"QPU 0", "TMU", NULL});
  p.code = load(&f, "    mov r0, vpm\n    thrend\n    nop\n    nop\n");
  run_expect(&f, &p, 1, GS_EHANG, (const char *[]){"QPU 0", "VPM", NULL});
  /* misaligned addresses are argument errors */
  p.code = bad + 4;
  run_expect(&f, &p, 1, GS_EARG, (const char *[]){"not 8-byte aligned", NULL});
  gs_gpu_free(f.g);
}

#define BOTH(name)                                                         \
  static void test_##name##_fast(void **s) { (void)s; name(GS_INTERP_FAST); } \
  static void test_##name##_reference(void **s) { (void)s; name(GS_INTERP_REFERENCE); }
BOTH(more_programs_than_qpus)
BOTH(mutex_orders_access)
BOTH(watchdog)
BOTH(deadlocks)
BOTH(memory_faults)
BOTH(bad_programs)

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_more_programs_than_qpus_fast), cmocka_unit_test(test_more_programs_than_qpus_reference),
      cmocka_unit_test(test_mutex_orders_access_fast),     cmocka_unit_test(test_mutex_orders_access_reference),
      cmocka_unit_test(test_watchdog_fast),                cmocka_unit_test(test_watchdog_reference),
      cmocka_unit_test(test_deadlocks_fast),               cmocka_unit_test(test_deadlocks_reference),
      cmocka_unit_test(test_memory_faults_fast),           cmocka_unit_test(test_memory_faults_reference),
      cmocka_unit_test(test_bad_programs_fast),            cmocka_unit_test(test_bad_programs_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
