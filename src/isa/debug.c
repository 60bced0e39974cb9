/* debug.c — the time-travel debugger's recording, conditions and the
 * units' hook (debug.h; docs/debugger.md). */
#include "isa/debug.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "v3d/v3d.h"

/* Steps an invocation may record, and bytes of recording (past either the
 * run goes on unrecorded, and the debugger says so). */
#define MAX_STEPS (1u << 22)
#define MAX_BYTES ((size_t)512 << 20)

const gs_debug_ops *gs_debug_ops_by_name(const char *isa) {
  static const gs_debug_ops *const all[] = {&gs_debug_qpu_ops, &gs_debug_sass_ops, &gs_debug_pica_ops,
                                            &gs_debug_agx_ops};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (strcmp(all[i]->isa, isa) == 0) return all[i];
  return NULL;
}

/* ---- the hook ---- */

int gs_debug_wants_fragment(const gs_gpu *g, const gs_frag_io *b, unsigned nb) {
  gs_debug *d = g->debug;
  unsigned ordinal = d->ordinal++;
  int lane = -1;
  uint32_t lanes = 0;
  if (nb > GS_DEBUG_MAX_LANES / 16) nb = GS_DEBUG_MAX_LANES / 16;
  for (unsigned k = 0; k < nb; k++)
    for (unsigned l = 0; l < 16 && l < b[k].lanes; l++) {
      unsigned at = 16 * k + l;
      if (b[k].mask >> l & 1) lanes |= 1u << at;
      if (d->mode == GS_DEBUG_PIXEL && (b[k].mask >> l & 1) && (int32_t)b[k].x[l] == d->x &&
          (int32_t)b[k].y[l] == d->y)
        lane = (int)at;
    }
  if (d->mode == GS_DEBUG_VERTEX || d->mode == GS_DEBUG_VORDINAL) return 0;
  if (d->mode == GS_DEBUG_SCAN && d->scan_stage != GS_STAGE_FRAGMENT) return 0;
  if (d->mode == GS_DEBUG_PIXEL && lane < 0) return 0;
  if (d->mode == GS_DEBUG_ORDINAL && ordinal != d->target) return 0;
  if (lane < 0) /* the first shaded lane */
    for (unsigned l = 0; l < GS_DEBUG_MAX_LANES && lane < 0; l++)
      if (lanes >> l & 1) lane = (int)l;
  d->cur_lane = lane < 0 ? 0 : lane;
  d->cur_prolog = 0;
  d->cur_stage = GS_STAGE_FRAGMENT;
  d->cur_code = b[0].prog.code, d->cur_uniforms = b[0].prog.uniforms;
  d->cur_lanes = lanes;
  memset(d->cur_x, 0, sizeof d->cur_x), memset(d->cur_y, 0, sizeof d->cur_y);
  memset(d->cur_index, 0, sizeof d->cur_index);
  for (unsigned k = 0; k < nb; k++)
    for (unsigned l = 0; l < 16 && l < b[k].lanes; l++) d->cur_x[16 * k + l] = b[k].x[l], d->cur_y[16 * k + l] = b[k].y[l];
  return 1;
}

int gs_debug_wants_vertex(const gs_gpu *g, const gs_vertex_io *io) {
  gs_debug *d = g->debug;
  if (io->stage != (d->coordinate ? GS_STAGE_COORDINATE : GS_STAGE_VERTEX)) return 0;
  unsigned vordinal = d->vordinal++;
  unsigned n = io->count < GS_DEBUG_MAX_LANES ? io->count : GS_DEBUG_MAX_LANES;
  int lane = -1;
  if (d->mode == GS_DEBUG_VERTEX) {
    if (io->prog.code != d->vs_code || io->prog.uniforms != d->vs_uniforms) return 0;
    for (unsigned l = 0; l < n && lane < 0; l++)
      if ((io->index ? io->index[l] : l) == d->vertex) lane = (int)l;
    if (lane < 0) return 0;
  } else if (!(d->mode == GS_DEBUG_SCAN && d->scan_stage == GS_STAGE_VERTEX) &&
             !(d->mode == GS_DEBUG_VORDINAL && vordinal == d->target)) {
    return 0;
  }
  if (lane < 0) lane = 0;
  d->cur_lane = lane;
  d->cur_prolog = 0;
  d->cur_stage = io->stage;
  d->cur_code = io->prog.code, d->cur_uniforms = io->prog.uniforms;
  d->cur_lanes = n >= 32 ? 0xffffffffu : (1u << n) - 1;
  memset(d->cur_x, 0, sizeof d->cur_x), memset(d->cur_y, 0, sizeof d->cur_y);
  for (unsigned l = 0; l < GS_DEBUG_MAX_LANES; l++) d->cur_index[l] = l < n ? (io->index ? io->index[l] : l) : 0;
  return 1;
}

/* ---- conditions ---- */

int gs_debug_reg(const gs_debug_ops *ops, const void *st, const char *name, unsigned lane, uint32_t *v) {
  char buf[32];
  for (unsigned i = 0; i < ops->nregs; i++) {
    int per_lane = ops->reg_name(i, buf, sizeof buf);
    size_t k = 0;
    while (buf[k] && name[k] && tolower((unsigned char)buf[k]) == tolower((unsigned char)name[k])) k++;
    if (buf[k] || name[k]) continue;
    *v = ops->reg_value(st, i, per_lane ? lane : 0);
    return 0;
  }
  return -1;
}

static int cond_value(const gs_debug_cond *c, uint32_t v);

int gs_debug_cond_holds(const gs_debug_ops *ops, const void *st, int lane, const gs_debug_cond *c) {
  unsigned l = (unsigned)(c->lane >= 0 ? c->lane : lane);
  if (c->is_pc) return !ops->ended(st, l) && ops->pc(st, l) == c->pc;
  uint32_t v;
  if (l >= ops->lanes || gs_debug_reg(ops, st, c->reg, l, &v) < 0) return -1;
  return cond_value(c, v);
}

static int cond_value(const gs_debug_cond *c, uint32_t v) {
  double x;
  if (c->type == GS_DEBUG_F32) {
    float f;
    memcpy(&f, &v, 4);
    x = f;
    if (isnan(x)) return c->op == GS_DEBUG_NE;
  } else {
    x = c->type == GS_DEBUG_I32 ? (double)(int32_t)v : (double)v;
  }
  switch (c->op) {
  case GS_DEBUG_LT: return x < c->value;
  case GS_DEBUG_LE: return x <= c->value;
  case GS_DEBUG_GT: return x > c->value;
  case GS_DEBUG_GE: return x >= c->value;
  case GS_DEBUG_EQ: return x == c->value;
  default: return x != c->value;
  }
}

uint64_t gs_debug_hash(const gs_debug_ops *ops, const void *st) {
  uint64_t h = 0xcbf29ce484222325ull;
#define MIX(v)                                          \
  do {                                                  \
    uint32_t m_ = (v);                                  \
    for (int b_ = 0; b_ < 4; b_++) {                    \
      h ^= (m_ >> (8 * b_)) & 0xffu;                    \
      h *= 0x100000001b3ull;                            \
    }                                                   \
  } while (0)
  char buf[32];
  for (unsigned l = 0; l < ops->lanes; l++) {
    MIX(ops->pc(st, l));
    MIX((uint32_t)ops->ended(st, l));
  }
  for (unsigned i = 0; i < ops->nregs; i++) {
    if (ops->reg_name(i, buf, sizeof buf))
      for (unsigned l = 0; l < ops->lanes; l++) MIX(ops->reg_value(st, i, l));
    else
      MIX(ops->reg_value(st, i, 0));
  }
#undef MIX
  return h;
}

/* ---- the recording ---- */

void gs_debug_inv_free(gs_debug_inv *inv) {
  if (!inv) return;
  free(inv->keys);
  free(inv->delta);
  free(inv->delta_at);
  free(inv->lines);
  free(inv->last);
  free(inv);
}

void gs_debug_inv_state(const gs_debug_inv *inv, unsigned step, void *out) {
  size_t size = inv->ops->size;
  if (step > inv->steps) step = inv->steps;
  unsigned key = step / GS_DEBUG_KEYFRAME;
  memcpy(out, inv->keys + (size_t)key * size, size);
  uint32_t *w = out;
  for (unsigned s = key * GS_DEBUG_KEYFRAME + 1; s <= step; s++)
    for (size_t k = inv->delta_at[s - 1]; k < inv->delta_at[s]; k += 2) w[inv->delta[k]] = inv->delta[k + 1];
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q) return -1;
  *p = q, *cap = n;
  return 0;
}

/* Adds state st as step inv->steps + 1 (or the first state when
 * inv->steps is 0 and nothing is recorded yet: first = 1). -1 when the
 * recording would pass its limits or the host has no memory. */
static int add_state(gs_debug_inv *inv, const void *st, int first, void *ctx) {
  const gs_debug_ops *ops = inv->ops;
  size_t size = ops->size, words = size / 4;
  unsigned s = first ? 0 : inv->steps + 1;
  if (s >= MAX_STEPS) return -1;
  size_t bytes = inv->nkeys * size + inv->ndelta * 4 + (size_t)s * (GS_DEBUG_LINE + sizeof(size_t));
  if (bytes > MAX_BYTES) return -1;
  if (grow((void **)&inv->delta_at, &inv->capsteps, (size_t)s + 1, sizeof(size_t)) < 0) return -1;
  size_t caplines = inv->capsteps;
  char(*lines)[GS_DEBUG_LINE] = realloc(inv->lines, caplines * GS_DEBUG_LINE);
  if (!lines) return -1;
  inv->lines = lines;
  if (s % GS_DEBUG_KEYFRAME == 0) {
    uint8_t *k = realloc(inv->keys, (inv->nkeys + 1) * size);
    if (!k) return -1;
    inv->keys = k;
    memcpy(k + inv->nkeys * size, st, size);
    inv->nkeys++;
    inv->delta_at[s] = inv->ndelta;
  } else {
    const uint32_t *now = st, *was = (const uint32_t *)inv->last;
    for (size_t i = 0; i < words; i++) {
      if (now[i] == was[i]) continue;
      if (grow((void **)&inv->delta, &inv->capdelta, inv->ndelta + 2, 4) < 0) return -1;
      inv->delta[inv->ndelta++] = (uint32_t)i;
      inv->delta[inv->ndelta++] = now[i];
    }
    inv->delta_at[s] = inv->ndelta;
  }
  memcpy(inv->last, st, size);
  if (ops->ended(st, (unsigned)inv->lane)) snprintf(inv->lines[s], GS_DEBUG_LINE, "%s", "");
  else ops->line(st, ctx, (unsigned)inv->lane, inv->lines[s], GS_DEBUG_LINE);
  inv->steps = s;
  return 0;
}

/* gs_debug_cond_holds for scan condition i, with its register's index
 * found once per ISA (a name lookup formats every register's name). */
static int gs_debug_cond_fast(gs_debug *d, const gs_debug_ops *ops, const void *st, unsigned i) {
  const gs_debug_cond *c = &d->conds[i];
  if (c->is_pc) { /* the user's program's pc: past a prolog linked in front of it */
    gs_debug_cond pc = *c;
    pc.pc += d->cur_prolog;
    return gs_debug_cond_holds(ops, st, d->scan_lane, &pc);
  }
  if (d->cache_ops != ops) {
    char buf[32];
    for (unsigned k = 0; k < d->nconds && k < 64; k++) {
      d->cache_idx[k] = -1;
      for (unsigned r = 0; r < ops->nregs && d->cache_idx[k] < 0; r++) {
        int per_lane = ops->reg_name(r, buf, sizeof buf);
        size_t j = 0;
        const char *name = d->conds[k].reg;
        while (buf[j] && name[j] && tolower((unsigned char)buf[j]) == tolower((unsigned char)name[j])) j++;
        if (!buf[j] && !name[j]) d->cache_idx[k] = (int)r, d->cache_lanes[k] = (uint8_t)per_lane;
      }
    }
    d->cache_ops = ops;
  }
  if (d->cache_idx[i] < 0) return -1;
  unsigned l = (unsigned)(c->lane >= 0 ? c->lane : d->scan_lane);
  if (l >= ops->lanes) return -1;
  return cond_value(c, ops->reg_value(st, (unsigned)d->cache_idx[i], d->cache_lanes[i] ? l : 0));
}

/* A scan's conditions in st (step `step`): a hit where a pc condition
 * holds, or a register condition holds and did not at the step before
 * (held[cond][lane]). A condition without a lane is tested in every lane
 * the batch shades; the hit names the first lane it fired in. */
static void scan_state(gs_debug *d, const gs_debug_ops *ops, const void *st, unsigned step,
                       uint8_t held[][GS_DEBUG_MAX_LANES]) {
  int hit = -1;
  for (unsigned i = 0; i < d->nconds && i < 64; i++) {
    const gs_debug_cond *c = &d->conds[i];
    for (unsigned l = 0; l < ops->lanes && l < GS_DEBUG_MAX_LANES; l++) {
      if (c->lane >= 0 ? (int)l != c->lane : !(d->cur_lanes >> l & 1)) continue;
      d->scan_lane = (int)l;
      int h = gs_debug_cond_fast(d, ops, st, i) > 0;
      if (h && (c->is_pc || !held[i][l]) && hit < 0) hit = (int)l;
      held[i][l] = (uint8_t)h;
    }
  }
  if (hit < 0) return;
  if (grow((void **)&d->hits, &d->caphits, d->nhits + 1, sizeof *d->hits) < 0) {
    d->nomem = 1;
    return;
  }
  gs_debug_hit *x = &d->hits[d->nhits++];
  x->ordinal = d->scan_stage == GS_STAGE_VERTEX ? d->vordinal - 1 : d->ordinal - 1, x->step = step, x->lane = hit;
  x->x = d->cur_x[hit], x->y = d->cur_y[hit], x->index = d->cur_index[hit];
}

int gs_debug_record(const gs_gpu *g, const gs_debug_ops *ops, void *st, void *ctx, const gs_diag *diag) {
  gs_debug *d = g->debug;
  int rc = 0;
  if (d->mode == GS_DEBUG_SCAN) {
    static _Thread_local uint8_t held[64][GS_DEBUG_MAX_LANES];
    memset(held, 0, sizeof held);
    unsigned step = 0;
    scan_state(d, ops, st, 0, held);
    for (;;) {
      rc = ops->step(st, ctx);
      if (rc < 0 || rc == 2) break;
      scan_state(d, ops, st, ++step, held);
      if (rc == 1) break;
    }
    return rc < 0 ? rc : 0;
  }
  gs_debug_inv *inv = calloc(1, sizeof *inv);
  if (inv) inv->last = malloc(ops->size);
  if (!inv || !inv->last) {
    gs_debug_inv_free(inv);
    inv = NULL;
  }
  if (inv) {
    inv->ops = ops;
    inv->stage = d->cur_stage;
    inv->code = d->cur_code, inv->uniforms = d->cur_uniforms;
    inv->ordinal = d->ordinal ? d->ordinal - 1 : 0;
    inv->vordinal = d->vordinal ? d->vordinal - 1 : 0;
    inv->lane = d->cur_lane;
    inv->prolog = d->cur_prolog;
    inv->lanes = d->cur_lanes;
    memcpy(inv->x, d->cur_x, sizeof inv->x), memcpy(inv->y, d->cur_y, sizeof inv->y);
    memcpy(inv->index, d->cur_index, sizeof inv->index);
    if (add_state(inv, st, 1, ctx) < 0) {
      gs_debug_inv_free(inv);
      inv = NULL;
    }
  }
  int recording = inv != NULL;
  for (;;) {
    rc = ops->step(st, ctx);
    if (rc < 0 || rc == 2) break;
    if (recording && add_state(inv, st, 0, ctx) < 0) recording = 0;
    if (rc == 1) break;
  }
  if (!inv || !recording) {
    d->nomem = 1;
    gs_debug_inv_free(inv);
    return rc < 0 ? rc : 0;
  }
  if (rc < 0) {
    inv->error = rc;
    snprintf(inv->message, sizeof inv->message, "%s", diag ? diag->msg : g->diag.msg);
  }
  gs_debug_inv_free(d->inv);
  d->inv = inv;
  return rc < 0 ? rc : 0;
}
