/* bench.c — `gpusim bench`: interpreter throughput.
 *
 * The ALU-bound benchmark runs one user program that is a long dependent
 * chain of fadd/fmul/add on all 16 lanes (every instruction uses both ALUs),
 * once through the fast interpreter and once through the reference
 * interpreter, single-threaded. It reports the median of several runs in QPU
 * instructions per second and lane operations per second (16 lanes × 2 ALU
 * operations per instruction), beside the real VideoCore IV's 750 million
 * instructions per second (12 QPUs × 250 MHz). The same chain in Maxwell
 * SASS (FADD, FMUL, IADD: one operation per instruction) runs on one warp
 * of 32 lanes through the SASS fast and reference interpreters, reported
 * the same way and against the QPU's fast path in lane operations.
 *
 * The pipeline benchmarks render a fill-bound frame (1920×1080, full-screen
 * layers, depth test and write) and a triangle-bound frame (about 100,000
 * small triangles) through control lists, binning and rendering, with one
 * thread and with every core, and report megapixels and megatriangles per
 * second and the time of each pass (medians).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "app/app.h"
#include "bench/bench_peer.h"
#include "core/pool.h"
#include "gpusim/qpu.h"
#include "gpusim/v3d.h"
#include "isa/qpu/table.h"
#include "isa/uop/jit.h"
#include "isa/sass/exec.h"
#include "isa/sass/num.h"
#include "isa/pica/exec.h"
#include "isa/agx/exec.h"
#include "isa/agx/table.h"
#include "isa/sass/solo.h"
#include "isa/sass/table.h"

int gs_bench_main(int argc, char **argv);

#define BODY 1024 /* instructions per loop iteration */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* An ALU word: ADD op (dst waddr_add, muxes a, b) ; MUL op (dst, muxes). */
static uint64_t alu(unsigned sig, unsigned op_add, unsigned wa, unsigned aa, unsigned ab,
                    unsigned op_mul, unsigned wm, unsigned ma, unsigned mb, unsigned raddr_b) {
  uint64_t w = QPU_NOP_WORD;
  w = qpu_set(w, QPU_F_SIG, sig);
  w = qpu_set(w, QPU_F_OP_ADD, op_add);
  w = qpu_set(w, QPU_F_COND_ADD, op_add ? 1 : 0);
  w = qpu_set(w, QPU_F_WADDR_ADD, wa);
  w = qpu_set(w, QPU_F_ADD_A, aa);
  w = qpu_set(w, QPU_F_ADD_B, ab);
  w = qpu_set(w, QPU_F_OP_MUL, op_mul);
  w = qpu_set(w, QPU_F_COND_MUL, op_mul ? 1 : 0);
  w = qpu_set(w, QPU_F_WADDR_MUL, wm);
  w = qpu_set(w, QPU_F_MUL_A, ma);
  w = qpu_set(w, QPU_F_MUL_B, mb);
  w = qpu_set(w, QPU_F_RADDR_B, raddr_b);
  return w;
}

static uint64_t ldi(unsigned waddr, uint32_t value) {
  uint64_t w = QPU_NOP_WORD;
  w = qpu_set(w, QPU_F_SIG, QPU_SIG_LOAD_IMM);
  w = qpu_set(w, QPU_F_LDI_TYPE, QPU_LDI_32);
  w = qpu_set(w, QPU_F_COND_ADD, 1);
  w = qpu_set(w, QPU_F_WADDR_ADD, waddr);
  return qpu_set(w, QPU_F_IMM, value);
}

/* Builds the ALU-bound program: `iterations` loops of BODY instructions. */
static size_t build_alu_chain(uint64_t *w, uint32_t iterations) {
  size_t n = 0;
  enum { R0 = 32, R1, R2, R3 };
  w[n++] = ldi(R0, 0x3f800000u); /* r0 = 1.0 */
  w[n++] = ldi(R1, 0x3f800000u); /* r1 = 1.0 */
  w[n++] = ldi(R2, 0x40000000u); /* r2 = 2.0 */
  w[n++] = ldi(R3, iterations);
  size_t loop = n;
  for (int k = 0; k < BODY; k++) {
    switch (k % 3) {
    case 0: /* fadd r0, r0, r1 ; fmul r2, r2, r1 */
      w[n++] = alu(QPU_SIG_NONE, QPU_A_FADD, R0, 0, 1, QPU_M_FMUL, R2, 2, 1, QPU_R_NOP);
      break;
    case 1: /* add r0, r0, 1 ; fmul r2, r2, r1 */
      w[n++] = alu(QPU_SIG_SMALL_IMM, QPU_A_ADD, R0, 0, QPU_MUX_B, QPU_M_FMUL, R2, 2, 1, 1);
      break;
    default: /* fadd r2, r2, r0 ; fmul r0, r0, r1 */
      w[n++] = alu(QPU_SIG_NONE, QPU_A_FADD, R2, 2, 0, QPU_M_FMUL, R0, 0, 1, QPU_R_NOP);
      break;
    }
  }
  /* sub.setf r3, r3, 1 */
  uint64_t dec = alu(QPU_SIG_SMALL_IMM, QPU_A_SUB, R3, 3, QPU_MUX_B, 0, QPU_W_NOP, 0, 0, 1);
  w[n++] = qpu_set(dec, QPU_F_SF, 1);
  /* brr.anynz loop */
  uint64_t br = qpu_set(QPU_NOP_WORD, QPU_F_SIG, QPU_SIG_BRANCH);
  br = qpu_set(br, QPU_F_COND_BR, 3);
  br = qpu_set(br, QPU_F_REL, 1);
  br = qpu_set(br, QPU_F_REG, 0);
  br = qpu_set(br, QPU_F_RADDR_A_BR, 0);
  br = qpu_set(br, QPU_F_WADDR_ADD, QPU_W_NOP);
  br = qpu_set(br, QPU_F_WADDR_MUL, QPU_W_NOP);
  br = qpu_set(br, QPU_F_IMM, (uint32_t)((int64_t)loop * 8 - (int64_t)(n * 8 + 32)));
  w[n++] = br;
  for (int k = 0; k < 3; k++) w[n++] = QPU_NOP_WORD;
  w[n++] = qpu_set(QPU_NOP_WORD, QPU_F_SIG, QPU_SIG_THREND);
  w[n++] = QPU_NOP_WORD;
  w[n++] = QPU_NOP_WORD;
  return n;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Runs the program `runs` times with interpreter `interp`; returns the
 * median seconds, or < 0 on error. */
static double time_runs(gs_gpu *g, int interp, gs_addr code, gs_addr unif, int runs, uint64_t *insns) {
  double t[32];
  gs_gpu_config_of(g)->interpreter = interp;
  gs_gpu_config_of(g)->watchdog = UINT64_C(1) << 40;
  for (int r = 0; r < runs; r++) {
    gs_qpu_program p = {code, unif};
    gs_qpu_status st;
    double t0 = now();
    if (gs_qpu_run_user(g, &p, 1, &st) < 0) {
      fprintf(stderr, "gpusim bench: %s\n", gs_gpu_error(g));
      return -1;
    }
    t[r] = now() - t0;
    *insns = st.instructions;
  }
  qsort(t, (size_t)runs, sizeof t[0], cmp_double);
  return t[runs / 2];
}

/* ---- SASS: the same chain on a 32-lane warp ---------------------------------------- */

/* The SASS ALU-bound program: `iterations` loops of BODY dependent
 * instructions cycling FADD, FMUL and IADD (one operation each, as SASS
 * issues them), a counter, ISETP and a branch back. */
/* The text head, then BODY lines cycling body[0..2], then tail (malloc'ed). */
static char *text_chain(const char *head, const char *const body[3], const char *tail) {
  size_t cap = strlen(head) + strlen(tail) + 1, n = 0;
  for (int k = 0; k < BODY; k++) cap += strlen(body[k % 3]);
  char *t = malloc(cap);
  if (!t) return NULL;
  n += (size_t)snprintf(t + n, cap - n, "%s", head);
  for (int k = 0; k < BODY; k++) n += (size_t)snprintf(t + n, cap - n, "%s", body[k % 3]);
  snprintf(t + n, cap - n, "%s", tail);
  return t;
}

static char *sass_alu_chain(uint32_t iterations) {
  char head[128];
  snprintf(head, sizeof head, "  MOV32I R0, 0x3f800000 ;\n  MOV32I R1, 0x3f800000 ;\n"
           "  MOV32I R2, 0x40000000 ;\n  MOV32I R3, 0x%x ;\ntop:\n", iterations);
  static const char *const body[] = {"  FADD R0, R0, R1 ;\n", "  FMUL R2, R2, R1 ;\n", "  IADD R4, R4, R0 ;\n"};
  return text_chain(head, body, "  IADD32I R3, R3, -0x1 ;\n  ISETP.NE.AND P0, PT, R3, RZ, PT ;\n  @P0 BRA top ;\n  EXIT ;\n");
}

/* Runs the chain of `iterations` loops `runs` times on one warp of 32
 * lanes through the fast (fast != 0) or the reference interpreter;
 * returns the median seconds, or < 0 on error. */
static double sass_time_runs(int fast, uint32_t iterations, int runs, uint64_t *insns) {
  static sass_warp w;
  double t[32], med = -1;
  char *src = sass_alu_chain(iterations);
  gs_isa_binary b = {0};
  sass_program p;
  sass_fast *f = NULL;
  gs_diag d;
  gs_diag_clear(&d);
  memset(&p, 0, sizeof p);
  if (!src || sass_asm(src, "bench.s", &b, &d) < 0 || sass_program_init(&p, b.bytes, b.size, NULL, &d) < 0 ||
      (fast && !(f = sass_prepare_fast(&p, &d)))) {
    fprintf(stderr, "gpusim bench: SASS chain: %s\n", src ? d.msg : "out of memory");
    goto out;
  }
  sass_io io;
  memset(&io, 0, sizeof io);
  io.stage = GS_STAGE_VERTEX;
  io.gates = GS_GATE_ALL;
  gs_fp_env caller = gs_fp_env_get();
  gs_fp_env_set(sass_num_env(caller));
  for (int r = 0; r < runs; r++) {
    sass_warp_reset(&w, 0xffffffffu, 8, NULL, 0);
    double t0 = now();
    int rc = fast ? sass_run_fast(&w, f, &io, UINT64_C(1) << 40, "bench", &d)
                  : sass_run_ref(&w, &p, &io, UINT64_C(1) << 40, "bench", &d);
    t[r] = now() - t0;
    if (rc < 0) {
      fprintf(stderr, "gpusim bench: %s\n", d.msg);
      gs_fp_env_set(caller);
      goto out;
    }
    *insns = w.steps;
  }
  gs_fp_env_set(caller);
  qsort(t, (size_t)runs, sizeof t[0], cmp_double);
  med = t[runs / 2];
out:
  sass_fast_free(f);
  sass_program_free(&p);
  gs_isa_binary_free(&b);
  free(src);
  return med;
}

/* Times an interpreter's chain through its fast and its reference path
 * (time(fast, iterations, runs, &instructions) gives the median seconds)
 * and prints their rows: instructions, millions per second, and millions
 * of `unit` at `lanes` (fast) and `ref_lanes` lanes per instruction.
 * Returns 0 with the instructions per second of each, or -1. */
typedef double (*interp_time_fn)(int fast, uint32_t iterations, int runs, uint64_t *insns);
static int interp_rows(interp_time_fn time, const char *unit, int runs, uint32_t iterations, uint32_t ref_iterations,
                       unsigned lanes, unsigned ref_lanes, double *ipsf, double *ipsr) {
  uint64_t nf = 0, nr = 0;
  printf("  %-10s %12s %14s %16s\n", "path", "instructions", "Minstr/s", unit);
  double tf = time(1, iterations, runs, &nf);
  if (tf < 0) return -1;
  *ipsf = nf / tf;
  printf("  %-10s %12" PRIu64 " %14.1f %16.1f\n", "fast", nf, *ipsf / 1e6, *ipsf * lanes / 1e6);
  double tr = time(0, ref_iterations, runs, &nr);
  if (tr < 0) return -1;
  *ipsr = nr / tr;
  printf("  %-10s %12" PRIu64 " %14.1f %16.1f\n", "reference", nr, *ipsr / 1e6, *ipsr * ref_lanes / 1e6);
  return 0;
}

/* Prints the SASS lines beside the QPU's: its lane operations per second
 * against the QPU fast path's (qpu_lane_ops). */
static int sass_bench(int runs, uint32_t iterations, uint32_t ref_iterations, double qpu_lane_ops) {
  printf("SASS interpreter, ALU-bound chain (fadd/fmul/iadd, 32 lanes, one warp), 1 thread, median of %d\n", runs);
  double ipsf, ipsr;
  if (interp_rows(sass_time_runs, "Mlane-ops/s", runs, iterations, ref_iterations, 32, 32, &ipsf, &ipsr) < 0) return -1;
  printf("  fast / reference: %.1fx; lane operations against the QPU's fast path: %.2fx\n", ipsf / ipsr,
         ipsf * 32 / qpu_lane_ops);
  return 0;
}

/* ---- PICA200: a vertex batch of 16 lanes ----------------------------------------------- */

/* The PICA200 ALU-bound program: LOOP i1 around LOOP i0 around BODY
 * dependent instructions cycling ADD, MUL, MAD and DP4 (float24), passes
 * = (i0.x + 1) x (i1.x + 1). */
static pica_insn *pica_alu_chain(size_t *n) {
  pica_insn *c = calloc(BODY + 4, sizeof *c);
  if (!c) return NULL;
  c[0].op = PICA_LOOP, c[0].uid = 1, c[0].target = BODY + 2;
  c[1].op = PICA_LOOP, c[1].uid = 0, c[1].target = BODY + 1;
  for (int k = 0; k < BODY; k++) {
    pica_insn *i = &c[2 + k];
    static const uint8_t ops[] = {PICA_ADD, PICA_MUL, PICA_MAD, PICA_DP4};
    i->op = ops[k % 4], i->mask = 0xF, i->dst = (uint8_t)(PICA_REG_R + k % 4);
    i->src[0] = (pica_src){(uint8_t)(PICA_REG_R + k % 4), 0, 0, 0x1B};
    i->src[1] = (pica_src){(uint8_t)(PICA_REG_C + k % 4), 0, 0, 0x1B};
    i->src[2] = (pica_src){PICA_REG_R + 2, 0, 0, 0x1B};
    if (k % 4 == 3) i->src[0].reg = PICA_REG_R, i->src[1].reg = PICA_REG_R + 1;
  }
  c[BODY + 2].op = PICA_NOP;
  c[BODY + 3].op = PICA_END;
  *n = BODY + 4;
  return c;
}

/* Runs `passes` passes of the chain `runs` times, as one batch of 16
 * vertices (fast) or one vertex through the reference; returns the median
 * seconds (< 0 on error) and the instructions of one vertex. */
static double pica_time_runs(int fast, uint32_t passes, int runs, uint64_t *insns) {
  static pica_batch b;
  static pica_state s, v;
  double t[32], med = -1;
  size_t n = 0;
  pica_insn *code = pica_alu_chain(&n);
  pica_program p = {code, n};
  pica_fast *f = NULL;
  gs_diag d;
  gs_diag_clear(&d);
  if (!code || (fast && pica_fast_compile(&p, &f, &d) < 0)) {
    fprintf(stderr, "gpusim bench: PICA200 chain: %s\n", code ? d.msg : "out of memory");
    goto out;
  }
  uint32_t outer = (passes + 255) / 256, inner = (passes + outer - 1) / outer;
  memset(&s, 0, sizeof s);
  s.i[0][0] = (uint8_t)(inner - 1), s.i[1][0] = (uint8_t)(outer - 1);
  static const float cv[4] = {0.001f, 1.0f, 0.5f, 0.25f};
  for (int k = 0; k < 4; k++)
    for (int c = 0; c < 4; c++) memcpy(&s.c[k][c], &cv[k], 4), memcpy(&s.r[k][c], &cv[3 - k], 4);
  for (int r = 0; r < runs; r++) {
    pica_batch_fill(&b, &s, PICA_LANES);
    v = s;
    double t0 = now();
    int rc = fast ? pica_run_batch(&b, f, 0, UINT64_C(1) << 40, &d) : pica_run_ref(&v, &p, 0, UINT64_C(1) << 40, &d);
    t[r] = now() - t0;
    if (rc < 0) {
      fprintf(stderr, "gpusim bench: %s\n", d.msg);
      goto out;
    }
    *insns = fast ? b.steps[0] : v.steps;
  }
  qsort(t, (size_t)runs, sizeof t[0], cmp_double);
  med = t[runs / 2];
out:
  pica_fast_free(f);
  free(code);
  return med;
}

/* Prints the PICA200 lines: instructions per second of the batch (16
 * vertices each) and of one vertex through the reference, and vertex
 * instructions (lane operations) per second. */
static int pica_bench(int runs, uint32_t passes, uint32_t ref_passes) {
  printf("PICA ALU, PICA200 interpreter, ALU-bound chain (add/mul/mad/dp4 in float24, a batch of 16 vertices), "
         "1 thread, median of %d\n", runs);
  double ipsf, ipsr;
  if (interp_rows(pica_time_runs, "Mvertex-instr/s", runs, passes, ref_passes, PICA_LANES, 1, &ipsf, &ipsr) < 0) return -1;
  printf("  fast / reference, vertex instructions: %.1fx\n", ipsf * PICA_LANES / ipsr);
  return 0;
}

/* ---- Apple AGX: one SIMD group of 32 lanes --------------------------------------------- */

/* The AGX ALU-bound program: a loop of BODY f32 instructions cycling
 * fadd/fmul/ffma (the fast forms), then iadd, while against u0 (the
 * iteration count) and jmp_exec_any, as Mesa's loops are built. */
static char *agx_alu_chain(void) {
  static const char *const body[] = {"  fadd r6, r6, r1\n", "  fmul r2, r2, r1\n", "  ffma r4, r4, r1, r2\n"};
  return text_chain("  ldimm r0l, 0\ntop:\n", body,
                    "  iadd r3, r3, 1\n  while r3, u0, 1, ult\n  jmp_exec_any top\n  pop_exec 1\n  stop\n");
}

/* Runs the chain of `iterations` loops `runs` times on one group of 32
 * lanes through the fast (fast != 0) or the reference interpreter;
 * returns the median seconds, or < 0 on error. */
static double agx_time_runs(int fast, uint32_t iterations, int runs, uint64_t *insns) {
  static agx_state s;
  double t[32], med = -1;
  char *src = agx_alu_chain();
  gs_isa_binary b = {0};
  agx_instr *insn = NULL;
  agx_fast *f = NULL;
  gs_diag d;
  gs_diag_clear(&d);
  size_t n = 0;
  if (!src || agx_asm(src, "bench.s", &b, &d) < 0 || !(insn = calloc(b.size / 2 + 1, sizeof *insn))) {
    fprintf(stderr, "gpusim bench: AGX chain: %s\n", src && b.bytes ? "out of memory" : d.msg);
    goto out;
  }
  for (size_t off = 0; off < b.size; off += insn[n++].len) {
    unsigned len;
    char why[160];
    if (!agx_decode(b.bytes + off, b.size - off, &insn[n], &len, why, sizeof why)) {
      fprintf(stderr, "gpusim bench: AGX chain: byte offset 0x%zx: %s\n", off, why);
      goto out;
    }
  }
  agx_program p = {insn, n};
  if (fast && agx_fast_compile(&p, &f, &d) < 0) {
    fprintf(stderr, "gpusim bench: AGX chain: %s\n", d.msg);
    goto out;
  }
  for (int r = 0; r < runs; r++) {
    agx_state_init(&s, AGX_LANES);
    for (unsigned l = 0; l < AGX_LANES; l++)
      agx_set_reg32(&s, l, 1, 0x3f800000u), agx_set_reg32(&s, l, 2, 0x40000000u); /* 1.0, 2.0 */
    agx_set_unif32(&s, 0, iterations);
    double t0 = now();
    int rc = fast ? agx_run_fast(&s, f, 0, UINT64_C(1) << 40, &d) : agx_run_ref(&s, &p, 0, UINT64_C(1) << 40, &d);
    t[r] = now() - t0;
    if (rc) {
      fprintf(stderr, "gpusim bench: %s\n", d.msg);
      goto out;
    }
    *insns = s.steps;
  }
  qsort(t, (size_t)runs, sizeof t[0], cmp_double);
  med = t[runs / 2];
out:
  agx_fast_free(f);
  free(insn);
  gs_isa_binary_free(&b);
  free(src);
  return med;
}

/* Prints the AGX lines beside the others: group instructions and lane
 * operations per second. */
static int agx_bench(int runs, uint32_t iterations, uint32_t ref_iterations) {
  printf("AGX ALU, Apple AGX interpreter, ALU-bound chain (fadd/fmul/ffma in f32, one SIMD group of 32 lanes), "
         "1 thread, median of %d\n", runs);
  double ipsf, ipsr;
  if (interp_rows(agx_time_runs, "Mlane-ops/s", runs, iterations, ref_iterations, AGX_LANES, AGX_LANES, &ipsf, &ipsr) < 0)
    return -1;
  printf("  fast / reference: %.1fx\n", ipsf / ipsr);
  return 0;
}

static int cmp_result(const void *a, const void *b) {
  double x = ((const gs_v3d_bench_result *)a)->seconds, y = ((const gs_v3d_bench_result *)b)->seconds;
  return (x > y) - (x < y);
}

/* Runs one pipeline benchmark `runs` times and prints the median run. */
static int pipeline_bench(const char *name, const char *isa, int fill, unsigned threads, int runs,
                          uint32_t triangles) {
  gs_v3d_bench_result r[32];
  gs_diag d;
  gs_diag_clear(&d);
  for (int k = 0; k < runs; k++) {
    int rc = fill ? gs_v3d_bench_fill(1920, 1080, 8, threads, isa, &r[k], &d)
                  : gs_v3d_bench_triangles(1920, 1080, triangles, threads, isa, &r[k], &d);
    if (rc < 0) {
      fprintf(stderr, "gpusim bench: %s: %s\n", name, d.msg);
      return -1;
    }
  }
  qsort(r, (size_t)runs, sizeof r[0], cmp_result);
  const gs_v3d_bench_result *m = &r[runs / 2];
  printf("  %-26s %-4s %2u %10.1f %12.3f %10.1f %10.1f\n", name, isa, threads, m->mpixels_per_second,
         m->mtriangles_per_second, m->bin_seconds * 1e3, m->render_seconds * 1e3);
  return 0;
}

static int pipeline_benches(int runs, int quick) {
  unsigned cores = gs_cpu_count();
  uint32_t triangles = quick ? 2000 : 100000;
  printf("\nPipeline (control lists, binning and rendering passes), median of %d\n", runs);
  printf("  %-26s %-4s %2s %10s %12s %10s %10s\n", "frame", "fs", "th", "Mpixels/s", "Mtriangles/s", "bin ms",
         "render ms");
  /* the fragment program's instruction set (the PICA200's: the QPU program of its texture combiners) */
  static const char *const isas[] = {"qpu", "sass", "agx", "pica"};
  for (int pass = 0; pass < 2; pass++) {
    unsigned threads = pass ? cores : 1;
    if (pass && cores == 1) break;
    for (int i = 0; i < 4; i++)
      if (pipeline_bench(quick ? "fill 1080p x8 (quick)" : "fill 1920x1080, 8 layers", isas[i], 1, threads, runs, 0) < 0 ||
          pipeline_bench(quick ? "small triangles (quick)" : "100,000 small triangles", isas[i], 0, threads, runs,
                         triangles) < 0)
        return -1;
  }
  printf("  for scale: Mesa llvmpipe fills about 700 Mpixels/s per core here (JIT, trivial shader)\n");
  return 0;
}

/* One untimed run of the chain at `code` that compiles it to native code
 * on the spot when native code is on (docs/uops.md, "Native code"); as
 * time_runs. */
static double compiling_run(gs_gpu *g, gs_addr code, gs_addr unif, uint64_t *insns) {
  unsigned threshold = gs_jit_threshold();
  int sync = gs_jit_sync();
  if (threshold) gs_jit_policy(1, 1);
  double t = time_runs(g, GS_INTERP_FAST, code, unif, 1, insns);
  if (threshold) gs_jit_policy(threshold, sync);
  return t;
}

/* gpusim bench --peer's figure: one run of the chain through the fast
 * interpreter, or its native code (compiled in the first call's untimed
 * run unless GPUSIM_JIT=off), in one context kept from call to call, in QPU
 * instructions per second (< 0 on an error); end != 0 frees the context. */
static double peer_chain(int end) {
  static gs_gpu *g;
  static gs_addr code, unif;
  uint64_t insns = 0;
  if (end) {
    gs_gpu_free(g);
    g = NULL;
    return 0;
  }
  if (!g) {
    uint64_t *w = malloc((BODY + 32) * sizeof *w);
    size_t n = w ? build_alu_chain(w, 2000) : 0;
    if (!w || !(g = gs_gpu_new(NULL)) || gs_mem_alloc(gs_gpu_mem(g), (uint32_t)(n * 8), 8, &code, NULL) < 0 ||
        gs_mem_write(gs_gpu_mem(g), code, w, (uint32_t)(n * 8), NULL) < 0 ||
        gs_mem_alloc(gs_gpu_mem(g), 64, 4, &unif, NULL) < 0) {
      fprintf(stderr, "gpusim bench: the QPU chain: %s\n", g ? gs_gpu_error(g) : "out of memory");
      free(w);
      return -1;
    }
    if (compiling_run(g, code, unif, &insns) < 0) {
      free(w);
      return -1;
    }
    free(w);
  }
  double t = time_runs(g, GS_INTERP_FAST, code, unif, 1, &insns);
  return t > 0 ? (double)insns / t : -1;
}

static void usage(FILE *f) {
  fprintf(f,
          "usage: gpusim bench [--runs N] [--iterations N] [--quick]\n"
          "  QPU interpreter throughput on an ALU-bound program (dependent fadd/fmul/add\n"
          "  chain on 16 lanes), fast and reference interpreters, single-threaded; the\n"
          "  same for a Maxwell SASS warp (fadd/fmul/iadd chain on 32 lanes); then\n"
          "  the pipeline on a fill-bound and a triangle-bound frame with 1 thread and\n"
          "  with every core, with the fragment program in QPU code, Maxwell SASS, AGX\n"
          "  and the PICA200's texture combiners (the QPU program the driver makes of them);\n"
          "  and a vertex-bound frame (tiny triangles) with the vertex programs in QPU\n"
          "  code, Maxwell SASS and PICA200. The PICA200 and Apple AGX interpreters run\n"
          "  ALU-bound chains of their own too.\n"
          "  Prints the median of N runs (default 5; 3 for the pipeline).\n"
          "usage: gpusim bench --peer PROGRAM [--runs N] [--quick]\n"
          "  The fill and triangle frames and the QPU chain side by side with Mesa's\n"
          "  llvmpipe and softpipe through PROGRAM (gpusim-peer-osmesa; make bench-peer).\n");
}

int gs_bench_main(int argc, char **argv) {
  int runs = 5;
  uint32_t iterations = 2000, ref_iterations = 100;
  if (argc > 1 && !strcmp(argv[1], "--peer")) return gs_bench_peer_main(argc - 1, argv + 1, peer_chain);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--iterations") && i + 1 < argc) iterations = (uint32_t)strtoul(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--quick")) { runs = 1; iterations = 20; ref_iterations = 2; }
    else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) { usage(stdout); return 0; }
    else { usage(stderr); return 2; }
  }
  if (runs < 1 || runs > 31 || iterations == 0) {
    usage(stderr);
    return 2;
  }
  gs_gpu *g = gs_gpu_new(NULL);
  if (!g) {
    fprintf(stderr, "gpusim bench: out of memory\n");
    return 1;
  }
  size_t cap = BODY + 32;
  uint64_t *w = malloc(cap * sizeof *w);
  gs_addr code = 0, unif = 0, code_ref = 0;
  int rc = 1;
  if (!w) goto out;
  size_t n = build_alu_chain(w, iterations);
  if (gs_mem_alloc(gs_gpu_mem(g), (uint32_t)(n * 8), 8, &code, NULL) < 0 ||
      gs_mem_alloc(gs_gpu_mem(g), (uint32_t)(n * 8), 8, &code_ref, NULL) < 0 ||
      gs_mem_alloc(gs_gpu_mem(g), 64, 4, &unif, NULL) < 0)
    goto out;
  gs_mem_write(gs_gpu_mem(g), code, w, (uint32_t)(n * 8), NULL);
  n = build_alu_chain(w, ref_iterations);
  gs_mem_write(gs_gpu_mem(g), code_ref, w, (uint32_t)(n * 8), NULL);

  printf("QPU interpreter, ALU-bound chain (fadd/fmul/add, 16 lanes, both ALUs), 1 thread, median of %d\n", runs);
  uint64_t insns_fast = 0, insns_ref = 0;
  printf("  %-10s %12s %14s %16s\n", "path", "instructions", "Minstr/s", "Mlane-ops/s");
  /* Native code (docs/uops.md, "Native code"; GPUSIM_JIT=off: the
   * interpreter): compiled in an untimed first run, unless --quick */
  int native = gs_jit_threshold() && runs > 1;
  if (native && compiling_run(g, code, unif, &insns_fast) < 0) goto out;
  double tf = time_runs(g, GS_INTERP_FAST, code, unif, runs, &insns_fast);
  if (tf < 0) goto out;
  double ipsf = insns_fast / tf;
  printf("  %-10s %12" PRIu64 " %14.1f %16.1f\n", native ? "native" : "fast", insns_fast, ipsf / 1e6, ipsf * 32 / 1e6);
  double tr = time_runs(g, GS_INTERP_REFERENCE, code_ref, unif, runs, &insns_ref);
  if (tr < 0) goto out;
  double ipsr = insns_ref / tr;
  printf("  %-10s %12" PRIu64 " %14.1f %16.1f\n", "reference", insns_ref, ipsr / 1e6, ipsr * 32 / 1e6);
  printf("  fast / reference: %.1fx; fast / real VideoCore IV (750 Minstr/s, 12 QPUs): %.2fx\n",
         ipsf / ipsr, ipsf / 750e6);
  if (sass_bench(runs, iterations, ref_iterations, ipsf * 32) < 0) goto out;
  /* the reference runs as many passes of its one vertex as the batch of 16: a quarter of the time, not a
   * run so short that the comparison on a loaded machine favours it */
  if (pica_bench(runs, iterations / 8 ? iterations / 8 : 1, iterations / 8 ? iterations / 8 : 1) < 0) goto out;
  if (agx_bench(runs, iterations / 8 ? iterations / 8 : 1, ref_iterations) < 0) goto out;
  if (pipeline_benches(runs < 3 ? runs : 3, runs == 1 && iterations <= 20) < 0) goto out;
  if (gs_bench_vertex_frames(runs < 3 ? runs : 3, runs == 1 && iterations <= 20) < 0) goto out;
  rc = 0;
out:
  free(w);
  gs_gpu_free(g);
  return rc;
}
