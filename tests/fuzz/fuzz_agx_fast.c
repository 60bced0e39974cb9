/* fuzz_agx_fast.c — the Apple AGX fast interpreter (agx_run_fast,
 * src/isa/agx/exec_fast.c) against the reference (agx_run_ref) on any
 * bytes: the instructions the table's decoder accepts from the start,
 * until the first it refuses, then stop; run over registers, uniforms,
 * counters, present and active lanes, a declared register count,
 * coefficient planes, a small memory and (mostly) a sampler for smpf
 * drawn from a generator seeded by the input's hash (so every mutation
 * also changes the data). Checks
 * exec.h's rule: the same result, message, state and memory, bit for bit.
 */
#include <stdio.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/agx/exec.h"
#include "isa/agx/table.h"

/* A register value: small numbers, special values or any bits. */
static uint32_t rval(void) {
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                     0x00000001u, 0x00800000u, 0x3f800000u, 0x3c003c00u, 0x00010001u};
  switch (fuzz_rnd() % 4) {
    case 0: return special[fuzz_rnd() % 10];
    case 1: return fuzz_rnd() % 16;
    default: return fuzz_rnd() ^ (fuzz_rnd() << 16);
  }
}

/* Special registers: any value the generator gives, per lane and number. */
static int sr_value(void *ctx, unsigned lane, unsigned sr, uint32_t *v) {
  (void)ctx;
  if (sr == 99) return -1; /* one the caller does not provide */
  *v = (lane * 7 + sr * 13) & 0x3f;
  return 0;
}

/* Texture samples (smpf): any bits, a function of what the request gives
 * a lane; ts63 refused, so that the error path is reached too. */
static int tex_value(void *ctx, const agx_tex_req *q, uint32_t out[][4], gs_diag *d) {
  (void)ctx;
  if (q->ts == 63) return gs_diag_set(d, GS_EINVAL, "ts63 refused");
  for (unsigned l = 0; l < AGX_LANES; l++)
    for (unsigned k = 0; k < 4; k++)
      out[l][k] = (q->x[l] * 0x9e3779b1u) ^ (q->y[l] * 0x85ebca6bu) ^ q->lod[l] ^ (q->ts << 20) ^ (q->ss << 26) ^
                  (l << 8) ^ k ^ (q->lod_mode << 12);
  return 0;
}

enum { MAX_INSNS = 256, MEM_SIZE = 256 };
static agx_instr code[MAX_INSNS + 1];
static agx_state a, b;
static uint8_t mem_a[MEM_SIZE], mem_b[MEM_SIZE];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 12) return 0;
  size_t n = 0, off = 0;
  while (off < size && n < MAX_INSNS) {
    unsigned len = 0;
    char why[128];
    if (agx_decode(data + off, size - off, &code[n], &len, why, sizeof why) <= 0) break;
    off += code[n++].len;
  }
  memset(&code[n], 0, sizeof code[n]);
  code[n].op = AGX_STOP, code[n].len = 2;
  n++;

  fuzz_seed(data, size);
  agx_state_init(&a, 1 + fuzz_rnd() % AGX_LANES);
  for (unsigned l = 0; l < AGX_LANES; l++) {
    for (unsigned r = 0; r < AGX_HALVES / 2; r++) agx_set_reg32(&a, l, r, rval());
    a.r[l][0] = (uint16_t)(fuzz_rnd() % 3 ? 0 : fuzz_rnd() % 4);
  }
  a.exec = 0;
  for (unsigned l = 0; l < AGX_LANES; l++)
    if (((a.present >> l) & 1) && !a.r[l][0]) a.exec |= 1u << l;
  for (unsigned u = 0; u < AGX_UHALVES / 2; u++) agx_set_unif32(&a, u, rval());
  /* memory bases in du0 (and some registers) point into the memory */
  agx_set_unif32(&a, 0, 0x1000), agx_set_unif32(&a, 1, 0);
  if (fuzz_rnd() % 4 == 0) a.nregs = 8 * (1 + fuzz_rnd() % 32);
  for (unsigned c = 0; c < AGX_CFS; c++)
    for (unsigned k = 0; k < 3; k++) a.cf[c][k] = rval();
  for (unsigned k = 0; k < MEM_SIZE; k++) mem_a[k] = (uint8_t)fuzz_rnd();
  memcpy(mem_b, mem_a, sizeof mem_a);
  agx_flat_mem ma = {0x1000, mem_a, MEM_SIZE}, mb = {0x1000, mem_b, MEM_SIZE};
  a.mem = agx_flat_mem_access, a.sr = sr_value;
  a.tex = fuzz_rnd() % 8 ? tex_value : NULL;
  memcpy(&b, &a, sizeof a);
  a.mem_ctx = &ma, b.mem_ctx = &mb;

  agx_program p = {code, n};
  agx_fast *f = NULL;
  gs_diag d1, d2;
  gs_diag_clear(&d1), gs_diag_clear(&d2);
  if (agx_fast_compile(&p, &f, &d2)) fuzz_fail("agx_fast_compile: %s", d2.msg);
  uint64_t budget = 1 + fuzz_rnd() % 2000;
  int r1 = agx_run_ref(&a, &p, 0, budget, &d1);
  int r2 = agx_run_fast(&b, f, 0, budget, &d2);
  agx_fast_free(f);
  b.mem_ctx = &ma;
  if (r1 != r2 || strcmp(d1.msg, d2.msg))
    fuzz_fail("reference %d \"%s\", fast %d \"%s\"", r1, d1.msg, r2, d2.msg);
  if (memcmp(&a, &b, sizeof a)) fuzz_fail("the states differ after \"%s\" (pc %x / %x)", d1.msg, a.pc, b.pc);
  if (memcmp(mem_a, mem_b, sizeof mem_a)) fuzz_fail("the memories differ");
  return 0;
}
