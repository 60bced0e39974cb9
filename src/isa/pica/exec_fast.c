/* exec_fast.c — the PICA200 batch interpreter (exec.h): up to 16 vertices
 * of one program as lanes. */
#include <stdlib.h>
#include <string.h>
#include "isa/pica/exec.h"

void pica_batch_get(const pica_batch *b, unsigned lane, pica_state *s) {
  memset(s, 0, sizeof *s);
  s->mode = b->mode;
  for (unsigned k = 0; k < 16; k++) {
    for (unsigned c = 0; c < 4; c++) {
      s->v[k][c] = b->v[k][c][lane];
      s->r[k][c] = b->r[k][c][lane];
      s->o[k][c] = b->o[k][c][lane];
    }
    s->written[k] = b->written[k][lane];
  }
  memcpy(s->c, b->c, sizeof s->c);
  memcpy(s->i, b->i, sizeof s->i);
  s->b = b->b;
  s->a0[0] = b->a0[0][lane], s->a0[1] = b->a0[1][lane];
  s->al = b->al[lane];
  s->cmp[0] = b->cmp[0][lane], s->cmp[1] = b->cmp[1][lane];
  s->steps = b->steps[lane];
}

void pica_batch_set(pica_batch *b, unsigned lane, const pica_state *s) {
  b->mode = s->mode;
  for (unsigned k = 0; k < 16; k++) {
    for (unsigned c = 0; c < 4; c++) {
      b->v[k][c][lane] = s->v[k][c];
      b->r[k][c][lane] = s->r[k][c];
      b->o[k][c][lane] = s->o[k][c];
    }
    b->written[k][lane] = s->written[k];
  }
  memcpy(b->c, s->c, sizeof b->c);
  memcpy(b->i, s->i, sizeof b->i);
  b->b = s->b;
  b->a0[0][lane] = s->a0[0], b->a0[1][lane] = s->a0[1];
  b->al[lane] = s->al;
  b->cmp[0][lane] = (uint8_t)(s->cmp[0] != 0), b->cmp[1][lane] = (uint8_t)(s->cmp[1] != 0);
  b->steps[lane] = s->steps;
}

void pica_batch_fill(pica_batch *b, const pica_state *s, unsigned lanes) {
  for (unsigned k = 0; k < PICA_LANES; k++) pica_batch_set(b, k, s);
  b->lanes = lanes;
}

struct pica_fast {
  pica_program p;
};

int pica_fast_compile(const pica_program *p, pica_fast **out, gs_diag *d) {
  pica_fast *f = calloc(1, sizeof *f);
  if (!f) return gs_diag_set(d, GS_ENOMEM, "PICA200 batch interpreter: out of memory");
  f->p = *p;
  *out = f;
  return GS_OK;
}

void pica_fast_free(pica_fast *f) { free(f); }

int pica_run_batch(pica_batch *b, const pica_fast *f, uint32_t entry, uint64_t budget, gs_diag *d) {
  if (b->lanes < 1 || b->lanes > PICA_LANES)
    return gs_diag_set(d, GS_EARG, "PICA200 batch: %u lanes (1 to %d)", b->lanes, PICA_LANES);
  int rc = GS_OK;
  for (unsigned k = 0; k < b->lanes; k++) {
    pica_state s;
    gs_diag e = {0};
    pica_batch_get(b, k, &s);
    int r = pica_run_ref(&s, &f->p, entry, budget, &e);
    pica_batch_set(b, k, &s);
    if (r && !rc) {
      /* the reference's message with the lane named */
      const char *tail = strncmp(e.msg, "PICA200 shader: ", 16) ? e.msg : e.msg + 16;
      rc = gs_diag_set(d, r, "PICA200 shader, lane %u: %s", k, tail);
    }
  }
  return rc;
}
