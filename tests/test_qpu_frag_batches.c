/* test_qpu_frag_batches.c — the QPU unit's fragment batches (src/isa/qpu/
 * isa_qpu.c, run_fragment) against a plain model. The unit keeps one QPU
 * for batch after batch and, for a quiet program, restores before each
 * batch only the registers the program may read before writing them
 * (frag_plan, qpu_copy_quiet); the plain model runs every batch on a unit
 * made for it alone, with the reference interpreter. Random straight-line
 * programs read and write accumulators, both register files, the payload,
 * uniforms, varyings, the SFU and the tile buffer under random conditions
 * and flags, then write every register they use to the tile buffer, so a
 * value left over from an earlier batch shows; calls of 1 to 8 batches of
 * two such programs alternate on the same unit, with and without trusted
 * code, and now and then a prepare (a whole restart) between them; the
 * programs write Z (rb15 or another value) and colours, some under
 * conditions, under SPH gates that allow them or not (the fast path hands
 * the allowed ones straight to the port). The interpreter runs a call's
 * batches of a quiet program back to back (qpu_run_batches): some programs
 * are longer than the scheduler's quantum and some calls have a small
 * watchdog, so that batches stop at the budget (or in the watchdog) in the
 * middle of a call, and some calls set up fewer varyings than the program
 * reads, so that a batch in the middle fails. Every
 * port call (values, lanes and coverage), the result, the error message and
 * the exceptions must match batch for batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "core/fpmode.h"
#include "gpusim/gpu.h"
#include "gpusim/qpu.h"
#include "isa/isa.h"
#include "isa/uop/jit.h"
#include "v3d/v3d.h"
#include "v3d/vpm.h"

#define NVARY 128

static uint32_t rnd_state;
static uint32_t rnd(void) {
  rnd_state = rnd_state * 1664525u + 1013904223u;
  return rnd_state >> 8;
}
static uint32_t pick(uint32_t n) { return rnd() % n; }

/* ---- the tile port: a hash of every call ---------------------------------------- */

typedef struct rec {
  uint64_t h;
} rec;
static void mix(rec *r, uint32_t v) {
  r->h ^= v;
  r->h *= 0x100000001b3ull;
}
static void p_begin(void *c) { mix(c, 0xb0b0u); }
static void p_stencil(void *c, uint32_t config) { mix(c, 0x5700u), mix(c, config); }
/* a lane whose Z is odd fails, which narrows the coverage later writes see */
static void p_z(void *c, const uint32_t *z, uint32_t *cov, uint16_t lanes) {
  mix(c, 0x2200u), mix(c, lanes);
  for (int l = 0; l < 16; l++) {
    mix(c, z[l]), mix(c, cov[l]);
    if ((lanes >> l & 1) && (z[l] & 1)) cov[l] = 0;
  }
}
static void p_colour(void *c, int all, const uint32_t *rgba, const uint32_t *cov, uint16_t lanes) {
  mix(c, 0xc0c0u), mix(c, (uint32_t)all), mix(c, lanes);
  for (int l = 0; l < 16; l++) mix(c, rgba[l]), mix(c, cov[l]);
}
static void p_load(void *c, uint32_t *rgba) {
  mix(c, 0x10adu);
  for (int l = 0; l < 16; l++) rgba[l] = 0x01020304u * (uint32_t)(l + 1);
}

/* ---- random programs ---------------------------------------------------------------- */

static const char *const acc[] = {"r0", "r1", "r2", "r3", "r4", "r5"};
static const char *const a_src[] = {"ra0", "ra1", "ra2", "ra3", "ra15", "x_coord", "ms_mask", "unif", "vary", "elem_num"};
static const char *const b_src[] = {"rb0", "rb1", "rb2", "rb3", "rb15", "y_coord", "rev_flag", "unif", "vary", "qpu_num"};
static const char *const add_dst[] = {"r0", "r1", "r2", "r3", "ra0", "ra1", "ra2", "ra3", "rb0", "rb1", "rb2",
                                      "rb3", "ra15", "rb15", "r5quad", "r5rep", "sfu_recip", "tlb_colour_all",
                                      "tlb_z", "-"};
static const char *const mul_dst[] = {"r0", "r1", "r2", "r3", "rb0", "rb1", "rb2", "rb3", "ra0", "ra1"};
static const char *const conds[] = {"", "", "", ".ifz", ".ifnz", ".ifn", ".ifnn"};
static const char *const add_ops[] = {"add", "sub", "or", "and", "xor", "fadd", "fmin", "max", "shr", "mov", "itof"};
static const char *const mul_ops[] = {"fmul", "mul24"};

static const char *src_a(void) { return pick(2) ? acc[pick(6)] : a_src[pick(10)]; }
static const char *src_b(void) { return pick(2) ? acc[pick(6)] : b_src[pick(10)]; }

/* A random straight-line fragment program: up to 14 random instructions
 * (or, one in six, 150 to 549: longer than a quantum), then each register
 * it may use goes to the tile buffer, then the end. */
static size_t gen_program(char *s, size_t cap) {
  size_t n = 0;
  unsigned len = pick(6) ? 1 + pick(14) : 150 + pick(400);
  for (unsigned i = 0; i < len; i++) {
    unsigned kind = pick(11);
    const char *c = conds[pick(7)], *sf = pick(4) ? "" : ".setf";
    if (kind == 10) { /* a register read the instruction after its write, which it does not see yet */
      char file = pick(2) ? 'a' : 'b';
      unsigned r = pick(4), a = pick(4);
      n += (size_t)snprintf(s + n, cap - n, "    ldi r%c%u, 0x%08x\n    add r%u, r%c%u, r%u\n", file, r,
                            rnd() * 2654435761u, a, file, r, a);
    } else if (kind < 2) {
      const char *d = add_dst[pick(14)];
      const char *pack = d[0] == 'r' && d[1] == 'a' && pick(3) == 0 ? ".16a" : "";
      n += (size_t)snprintf(s + n, cap - n, "    ldi%s%s %s%s, 0x%08x\n", c, sf, d, pack, rnd() * 2654435761u);
    } else if (kind < 4) {
      n += (size_t)snprintf(s + n, cap - n, "    nop ; %s%s%s %s, %s, %s\n", mul_ops[pick(2)], c, sf,
                            mul_dst[pick(10)], src_a(), src_b());
    } else {
      const char *op = add_ops[pick(11)];
      int unary = !strcmp(op, "mov") || !strcmp(op, "itof");
      n += (size_t)snprintf(s + n, cap - n, "    %s%s%s %s, %s%s%s\n", op, c, sf, add_dst[pick(20)], src_a(),
                            unary ? "" : ", ", unary ? "" : src_b());
    }
  }
  static const char *const out[] = {"r0", "r1", "r2", "r3", "r4", "r5", "ra0", "ra1", "ra2", "ra3", "rb0",
                                    "rb1", "rb2", "rb3"};
  /* a Z write, the fill frame's (rb15, the rasterised Z) or another value,
   * now and then under a condition: straight to the port when the gates
   * let it through (qpu_tlb_port_write), an exception when they do not */
  if (pick(2))
    n += (size_t)snprintf(s + n, cap - n, "    mov%s tlb_z, %s\n", pick(3) ? "" : conds[3 + pick(4)],
                          pick(2) ? "rb15" : out[pick(14)]);
  for (unsigned k = 0; k < 14; k++)
    if (pick(3)) n += (size_t)snprintf(s + n, cap - n, "    mov%s tlb_colour_all, %s\n", pick(5) ? "" : conds[3 + pick(4)], out[k]);
  n += (size_t)snprintf(s + n, cap - n, "    thrend\n    nop\n    nop\n");
  return n;
}

static gs_addr load(gs_gpu *g, const char *src) {
  uint64_t *w;
  size_t n;
  gs_diag d;
  if (gs_qpu_asm(src, "t.s", 0, &w, &n, &d) < 0) fail_msg("%s\n%s", d.msg, src);
  gs_addr code;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), (uint32_t)(8 * n), 8, &code, NULL), GS_OK);
  gs_mem_write(gs_gpu_mem(g), code, w, (uint32_t)(8 * n), NULL);
  free(w);
  return code;
}

/* ---- batches ------------------------------------------------------------------------- */

typedef struct batch {
  uint32_t x[16], y[16], z[16], cov[16];
  float w[16];
  float plane[NVARY][16], offset[NVARY];
  uint8_t imap[NVARY];
  rec port_rec;
  gs_tile_port port;
} batch;

static void fill_batch(batch *b) {
  for (int l = 0; l < 16; l++) {
    b->x[l] = pick(2048), b->y[l] = pick(2048), b->z[l] = pick(1u << 24);
    b->cov[l] = pick(4) ? 1 + pick(15) : 0;
    b->w[l] = (float)(1 + pick(1000)) / 64.0f;
  }
  for (int k = 0; k < NVARY; k++) {
    b->offset[k] = (float)pick(100) - 50.0f;
    b->imap[k] = 0;
    for (int l = 0; l < 16; l++) b->plane[k][l] = (float)pick(1000) / 16.0f - 30.0f;
  }
}

static void make_io(gs_frag_io *io, batch *b, gs_stage_program prog, gs_isa_report *report, uint32_t rev,
                    uint32_t ignores, uint32_t gates, unsigned nin) {
  memset(io, 0, sizeof *io);
  b->port_rec.h = 14695981039346656037ull;
  b->port = (gs_tile_port){&b->port_rec, p_begin, p_stencil, p_z, p_colour, p_load};
  uint16_t mask = 0;
  for (int l = 0; l < 16; l++) mask |= (uint16_t)((b->cov[l] != 0) << l);
  *io = (gs_frag_io){.prog = prog, .gates = gates, .report = report, .lanes = 16, .mask = mask,
                     .reverse = rev, .x = b->x, .y = b->y, .cov = b->cov, .z = b->z, .w = b->w, .nin = nin,
                     .plane = (const float(*)[16])b->plane, .offset = b->offset, .imap = b->imap,
                     .tile = &b->port, .ignores = ignores};
}

typedef struct outcome {
  int rc;
  uint64_t h;
  char msg[GS_DIAG_MAX];
  gs_isa_report report;
} outcome;

static void test_batches_match_plain_model(void **s) {
  (void)s;
  const gs_isa *isa = gs_isa_by_name("qpu");
  assert_non_null(isa);
  gs_gpu *g = gs_gpu_new(NULL);
  assert_non_null(g);
  gs_vpm vpm, vpm_plain;
  memset(&vpm, 0, sizeof vpm), memset(&vpm_plain, 0, sizeof vpm_plain);
  gs_diag d, d_plain;
  gs_isa_unit *u = isa->unit_new(g, 0, &vpm, &d);
  assert_non_null(u);
  gs_addr unif;
  uint32_t words[64];
  for (int k = 0; k < 64; k++) words[k] = 0x3f800000u + 0x10000u * (uint32_t)k;
  assert_int_equal(gs_mem_alloc(gs_gpu_mem(g), sizeof words, 4, &unif, NULL), GS_OK);
  gs_mem_write(gs_gpu_mem(g), unif, words, sizeof words, NULL);
  static batch bt[8];
  gs_frag_io io[8], one;
  static char src[2][65536];
  unsigned compared = 0, failed = 0;
  rnd_state = 12345;
  gs_jit_policy(0, 0); /* no native code: the interpreter runs the quiet programs' batches back to back */
  for (int trial = 0; trial < 300; trial++) {
    gs_stage_program prog[2];
    for (int k = 0; k < 2; k++) {
      gen_program(src[k], sizeof src[k]);
      prog[k] = (gs_stage_program){load(g, src[k]), unif + 4 * pick(8), unif + sizeof words};
    }
    for (int call = 0; call < 6; call++) {
      int k = (int)pick(2);
      unsigned n = 1 + pick(8);
      uint32_t rev = pick(2);
      int trust = (int)pick(2);
      /* the program's SPH: everything, or no OmapDepth, or no colour target */
      static const uint32_t gate_sets[] = {GS_GATE_ALL, GS_GATE_ALL, GS_GATE_ALL & ~GS_GATE_DEPTH,
                                           GS_GATE_ALL & ~GS_GATE_COLOUR};
      uint32_t gates = gate_sets[pick(4)];
      /* the watchdog: the default, or one a long program may reach, or
       * not reach but past a quantum; the varyings: all, or a few */
      static const uint64_t dogs[] = {0, 0, 0, 0, 100, 300, 520, 700};
      gs_gpu_config_of(g)->watchdog = dogs[pick(8)];
      unsigned nin = pick(5) ? NVARY : pick(4);
      if (pick(8) == 0) assert_int_equal(isa->prepare(g, u, prog[!k].code), GS_OK); /* a whole restart */
      outcome fast[8], plain[8];
      for (unsigned b = 0; b < n; b++) fill_batch(&bt[b]);
      /* the unit, as the renderer runs it */
      gs_gpu_config_of(g)->interpreter = GS_INTERP_FAST;
      gs_isa_report report = {0};
      isa->trust_code(u, trust);
      uint32_t ign = GS_FRAG_READS_ALL & ~isa->fragment_reads(g, u, prog[k].code);
      for (unsigned b = 0; b < n; b++) make_io(&io[b], &bt[b], prog[k], &report, rev, ign, gates, nin);
      unsigned ran = 99;
      memset(&d, 0, sizeof d);
      gs_fp_env caller = gs_fp_env_get(); /* the unit's environment, as draw_prim sets it */
      gs_fp_env_set(isa->fp_env(g, caller));
      int rc = isa->run_fragment(g, u, io, n, &ran);
      gs_fp_env_set(caller);
      isa->trust_code(u, 0);
      for (unsigned b = 0; b < n; b++) {
        fast[b].rc = b < ran ? GS_OK : b == ran ? rc : 1;
        fast[b].h = bt[b].port_rec.h;
        snprintf(fast[b].msg, sizeof fast[b].msg, "%s", b == ran ? d.msg : "");
        fast[b].report = report; /* compared as a whole below */
      }
      /* the plain model: a new unit for each batch, the reference interpreter */
      gs_gpu_config_of(g)->interpreter = GS_INTERP_REFERENCE;
      gs_isa_report report_plain = {0};
      unsigned ran_plain = n;
      for (unsigned b = 0; b < n; b++) {
        gs_isa_unit *p = isa->unit_new(g, 0, &vpm_plain, &d_plain);
        assert_non_null(p);
        make_io(&one, &bt[b], prog[k], &report_plain, rev, 0, gates, nin);
        memset(&d_plain, 0, sizeof d_plain);
        unsigned r1 = 99;
        gs_fp_env caller = gs_fp_env_get();
        gs_fp_env_set(isa->fp_env(g, caller));
        plain[b].rc = isa->run_fragment(g, p, &one, 1, &r1);
        gs_fp_env_set(caller);
        plain[b].h = bt[b].port_rec.h;
        snprintf(plain[b].msg, sizeof plain[b].msg, "%s", plain[b].rc < 0 ? d_plain.msg : "");
        isa->unit_free(p);
        if (plain[b].rc < 0) {
          ran_plain = b;
          break;
        }
      }
      compared++;
      int bad = ran != ran_plain || report.exceptions != report_plain.exceptions ||
                strcmp(report.first, report_plain.first) != 0;
      for (unsigned b = 0; b <= ran && b < n && !bad; b++)
        bad = fast[b].rc != plain[b].rc || fast[b].h != plain[b].h || strcmp(fast[b].msg, plain[b].msg) != 0;
      if (bad && failed++ < 3)
        print_message("trial %d call %d (program %d, %u batches, trust %d): ran %u/%u, rc %d/%d, \"%s\" / \"%s\"\n%s",
                      trial, call, k, n, trust, ran, ran_plain, rc, ran_plain < n ? plain[ran_plain].rc : 0,
                      ran < n ? fast[ran].msg : "", ran_plain < n ? plain[ran_plain].msg : "", src[k]);
    }
  }
  assert_int_equal(failed, 0);
  assert_true(compared > 1000);
  isa->unit_free(u);
  gs_gpu_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_batches_match_plain_model),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
