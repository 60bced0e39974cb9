/* fuzz_pica_fast.c — the PICA200 batch interpreter (pica_run_batch,
 * src/isa/pica/exec_fast.c) against the reference (pica_run_ref) on any
 * SHBIN: its program words decoded (a word that does not decode becomes a
 * NOP), run from the first DVLE's main with its constants over uniforms,
 * registers, a0, aL and flags drawn from a generator seeded by the input
 * (so every mutation also changes the data), 1 to 16 lanes, float24 or
 * f32. Checks exec.h's rule: every lane ends as the reference leaves the
 * same state (outputs, written masks, temporaries, a0, aL, cmp, step
 * count) and the error is the lowest failing lane's, the reference's
 * message with the lane named.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "isa/pica/exec.h"

/* A register value: small numbers, special values or any bits. */
static uint32_t rval(void) {
  static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                     0x00000001u, 0x1c800000u, 0x20800000u, 0x5f800000u, 0x3f800000u};
  unsigned k = fuzz_rnd() % 4;
  if (k == 0) return special[fuzz_rnd() % 10];
  if (k == 1) return fuzz_rnd() ^ (fuzz_rnd() << 16);
  float f = (float)((int)(fuzz_rnd() % 2001) - 1000) / 64.0f;
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

static pica_state ref[PICA_LANES];
static pica_batch batch;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 14) return 0;
  pica_shbin sb;
  gs_diag d;
  if (pica_shbin_read(data, size, &sb, &d) < 0) return 0;
  if (!sb.ndvle || !sb.ncode) {
    pica_shbin_free(&sb);
    return 0;
  }
  pica_insn *code = calloc(sb.ncode, sizeof *code);
  if (!code) fuzz_fail("out of memory");
  for (size_t k = 0; k < sb.ncode; k++)
    if (pica_decode(sb.code[k], (uint32_t)k, sb.opdesc, sb.nopdesc, &code[k], &d) < 0) {
      memset(&code[k], 0, sizeof code[k]);
      code[k].op = PICA_NOP;
    }
  pica_program p = {code, sb.ncode};
  const pica_dvle *dv = &sb.dvle[0];

  fuzz_seed(data, size);
  unsigned lanes = 1 + fuzz_rnd() % PICA_LANES;
  pica_state s;
  memset(&s, 0, sizeof s);
  s.mode = fuzz_rnd() & 1 ? PICA_NUM_F32 : PICA_NUM_F24;
  for (int k = 0; k < 96; k++)
    for (int c = 0; c < 4; c++) s.c[k][c] = rval();
  for (int k = 0; k < 4; k++)
    for (int c = 0; c < 4; c++) s.i[k][c] = (uint8_t)(c == 0 ? fuzz_rnd() % 5 : fuzz_rnd());
  s.b = (uint16_t)fuzz_rnd();
  for (size_t k = 0; k < dv->nconsts; k++) {
    const pica_const *c = &dv->consts[k];
    if (c->type == 0 && c->reg < 16) s.b = (uint16_t)((s.b & ~(1u << c->reg)) | ((c->v[0] & 1u) << c->reg));
    if (c->type == 1 && c->reg < 4)
      for (int j = 0; j < 4; j++) s.i[c->reg][j] = (uint8_t)c->v[j];
    if (c->type == 2 && c->reg < 96)
      for (int j = 0; j < 4; j++) s.c[c->reg][j] = pica_f24_to_f32(c->v[j]);
  }
  memset(&batch, 0, sizeof batch);
  for (unsigned l = 0; l < PICA_LANES; l++) {
    ref[l] = s;
    for (int k = 0; k < 16; k++)
      for (int c = 0; c < 4; c++) ref[l].v[k][c] = rval(), ref[l].r[k][c] = rval();
    ref[l].a0[0] = (int32_t)(fuzz_rnd() % 300) - 150, ref[l].a0[1] = (int32_t)(fuzz_rnd() % 300) - 150;
    ref[l].al = (int32_t)(fuzz_rnd() % 300) - 150;
    ref[l].cmp[0] = (int)(fuzz_rnd() & 1), ref[l].cmp[1] = (int)(fuzz_rnd() & 1);
    pica_batch_set(&batch, l, &ref[l]);
  }
  batch.lanes = lanes;

  uint64_t budget = 1 + fuzz_rnd() % 3000;
  int want = 0;
  char want_msg[GS_DIAG_MAX + 64] = "";
  for (unsigned l = 0; l < lanes; l++) {
    gs_diag e;
    int rc = pica_run_ref(&ref[l], &p, dv->main, budget, &e);
    if (rc && !want) {
      want = rc;
      if (strncmp(e.msg, "PICA200 shader: ", 16)) fuzz_fail("a reference message without its prefix: %s", e.msg);
      snprintf(want_msg, sizeof want_msg, "PICA200 shader, lane %u: %s", l, e.msg + 16);
    }
  }
  pica_fast *f = NULL;
  if (pica_fast_compile(&p, &f, &d) < 0) fuzz_fail("pica_fast_compile: %s", d.msg);
  int rc = pica_run_batch(&batch, f, dv->main, budget, &d);
  pica_fast_free(f);
  if (rc != want || (want && strcmp(d.msg, want_msg)))
    fuzz_fail("batch %d \"%s\", reference %d \"%s\"", rc, rc ? d.msg : "", want, want_msg);
  for (unsigned l = 0; l < lanes; l++) {
    pica_state t;
    pica_batch_get(&batch, l, &t);
    if (memcmp(t.o, ref[l].o, sizeof t.o) || memcmp(t.r, ref[l].r, sizeof t.r) ||
        memcmp(t.written, ref[l].written, sizeof t.written))
      fuzz_fail("lane %u: outputs, temporaries or written masks differ from the reference", l);
    if (t.a0[0] != ref[l].a0[0] || t.a0[1] != ref[l].a0[1] || t.al != ref[l].al || !t.cmp[0] != !ref[l].cmp[0] ||
        !t.cmp[1] != !ref[l].cmp[1] || t.steps != ref[l].steps)
      fuzz_fail("lane %u: a0, aL, cmp or the step count differ from the reference", l);
  }
  free(code);
  pica_shbin_free(&sb);
  return 0;
}
