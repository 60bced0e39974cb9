/* prolog.c — the Apple AGX vertex prolog as real AGX code (prolog.h): every
 * instruction is built as a decoded instruction (agx.h) and encoded by the
 * table (agx_encode), so the prolog's bytes are the codec's like any
 * assembled program's. docs/agx-unit.md, "Vertex stage". */
#include <stdlib.h>
#include <string.h>
#include "isa/agx/prolog.h"
#include "isa/agx/table.h"

/* the prolog's scratch registers (32-bit numbers) and the preloaded vertex id */
enum { R_BYTES = 2, R_INDEX = 3, R_EL = 7, R_VID = 5 };

typedef struct em {
  gs_isa_binary *out;
  size_t cap;
  gs_diag *d;
  int err;
  int r3_valid;              /* r3 holds r7 x r3_mul + r3_add for the current slot */
  uint32_t r3_mul, r3_add;
  int pending;               /* loads since the last wait */
} em;

static agx_opnd reg(unsigned half, unsigned bits, unsigned count) {
  agx_opnd o = {0};
  o.kind = AGX_K_REG, o.index = (uint16_t)half, o.bits = (uint8_t)bits, o.count = (uint8_t)count;
  return o;
}
static agx_opnd r32(unsigned n) { return reg(2 * n, 32, 1); }
static agx_opnd unif(unsigned half, unsigned bits) {
  agx_opnd o = {0};
  o.kind = AGX_K_UNIF, o.index = (uint16_t)half, o.bits = (uint8_t)bits, o.count = 1;
  return o;
}
static agx_opnd imm(uint32_t v) {
  agx_opnd o = {0};
  o.kind = AGX_K_IMM, o.value = v, o.count = 1;
  return o;
}

static void emit(em *e, agx_instr *I) {
  if (e->err) return;
  uint8_t b[AGX_MAX_BYTES];
  char why[160];
  if (agx_encode(I, b, why, sizeof why) < 0) {
    e->err = gs_diag_set(e->d, GS_EINVAL, "the AGX vertex prolog's %s does not encode: %s", agx_op_name(I->op), why);
    return;
  }
  if (e->out->size + I->len > e->cap) {
    size_t cap = e->cap ? 2 * e->cap : 256;
    uint8_t *p = realloc(e->out->bytes, cap);
    if (!p) {
      e->err = gs_diag_set(e->d, GS_ENOMEM, "out of memory for an AGX vertex prolog");
      return;
    }
    e->out->bytes = p, e->cap = cap;
  }
  memcpy(e->out->bytes + e->out->size, b, I->len);
  e->out->size += I->len;
}

static void mov_imm(em *e, unsigned r, uint32_t v) {
  agx_instr I = {.op = AGX_LDIMM, .dst = r32(r), .src = {imm(v)}};
  emit(e, &I);
}

static void wait_a(em *e) {
  if (!e->pending) return;
  agx_instr I = {.op = AGX_WAIT, .group = 0};
  emit(e, &I);
  e->pending = 0;
}

/* One load of the slot's array: elements of esize bytes (format fmt) from
 * byte offset off of the element r7 selects, the mask's elements into the
 * run `data`. */
static void load(em *e, const agx_prolog_attr *a, agx_opnd data, unsigned fmt, unsigned esize, uint32_t off,
                 unsigned mask) {
  agx_instr I = {.op = AGX_LOAD, .dst = data, .format = (uint8_t)fmt, .mask = (uint8_t)mask, .index_zext = 1};
  I.src[1] = unif(4 * a->slot, 64); /* du(2 slot) */
  uint32_t mul = a->stride / esize, add = off / esize;
  if (!a->stride) {
    I.src[2] = imm(add); /* every vertex reads element 0 */
  } else if (!add && (mul == 1 || mul == 2 || mul == 4)) {
    I.src[2] = r32(R_EL), I.shift = (uint8_t)(mul == 1 ? 0 : mul == 2 ? 1 : 2); /* folded into lsl */
  } else {
    if (!e->r3_valid || e->r3_mul != mul || e->r3_add != add) {
      agx_opnd m = imm(mul);
      if (mul > 255) mov_imm(e, R_BYTES, mul), m = r32(R_BYTES);
      agx_instr M = {.op = AGX_IMAD, .dst = r32(R_INDEX), .src = {r32(R_EL), m, imm(add)}};
      emit(e, &M);
      e->r3_valid = 1, e->r3_mul = mul, e->r3_add = add;
    }
    I.src[2] = r32(R_INDEX);
  }
  emit(e, &I);
  e->pending = 1;
}

/* A word of which the record covers nb < 4 bytes (or, for byte-aligned
 * arrays, any word) into 32-bit register r, its missing bytes 0. */
static void partial_word(em *e, const agx_prolog_attr *a, unsigned r, uint32_t off, unsigned nb) {
  if (nb == 1) {
    load(e, a, r32(r), AGX_FMT_I8, 1, off, 1);
    return;
  }
  if (a->align >= 2) { /* nb 2 or 3 */
    load(e, a, nb == 2 ? r32(r) : reg(2 * r, 16, 1), AGX_FMT_I16, 2, off, 1); /* bytes 0-1: rN, or rNl */
    if (nb == 3) load(e, a, reg(2 * r + 1, 16, 1), AGX_FMT_I8, 1, off + 2, 1); /* byte 2: rNh */
    return;
  }
  /* a byte-aligned array: bytes 0 and 2 into rNl, rNh (byte 0 alone into
   * rN), bytes 1 and 3 into r2l, r2h (byte 1 alone into r2); after the
   * wait, rN += r2 << 8 */
  if (nb == 2) load(e, a, r32(r), AGX_FMT_I8, 1, off, 1);
  else load(e, a, reg(2 * r, 16, 2), AGX_FMT_I8, 1, off, 5);
  if (nb == 4) load(e, a, reg(2 * R_BYTES, 16, 2), AGX_FMT_I8, 1, off, 10);
  else load(e, a, r32(R_BYTES), AGX_FMT_I8, 1, off, 2);
  wait_a(e);
  agx_instr S = {.op = AGX_IADD, .dst = r32(R_BYTES), .src = {imm(0), r32(R_BYTES)}, .shift = 4};
  agx_instr A = {.op = AGX_IADD, .dst = r32(r), .src = {r32(r), r32(R_BYTES)}, .shift = 4};
  emit(e, &S);
  emit(e, &A);
}

/* The whole words of slot a that map to registers: word j (bytes 4j..4j+3
 * of the element) into 32-bit register reg[j] (0xff: not this record's).
 * Loads of up to four elements whose registers follow one another: i32
 * words (align 4) or i16 halves (align 2). */
static void whole_words(em *e, const agx_prolog_attr *a, const uint8_t *regs, unsigned nwords) {
  unsigned per = a->align == 4 ? 1 : 2, esize = 4 / per; /* elements a word */
  unsigned nel = nwords * per;
  uint8_t done[2 * 64] = {0};
  for (unsigned m0 = 0; m0 < nel; m0++) {
    if (done[m0] || regs[m0 / per] == 0xff) continue;
    unsigned half0 = 2 * regs[m0 / per] + (per == 2 ? m0 % 2 : 0), step = per == 1 ? 2 : 1;
    unsigned mask = 0, count = 0;
    for (unsigned m = m0; m < m0 + 4 && m < nel; m++) {
      if (done[m] || regs[m / per] == 0xff) continue;
      if (2 * regs[m / per] + (per == 2 ? m % 2 : 0) != half0 + step * count) continue;
      mask |= 1u << (m - m0), count++, done[m] = 1;
    }
    load(e, a, reg(half0, per == 1 ? 32 : 16, count), per == 1 ? AGX_FMT_I32 : AGX_FMT_I16, esize, m0 * esize, mask);
  }
}

unsigned agx_prolog_words(const uint8_t *masks, uint8_t in_reg[4 * AGX_PROLOG_MAX_ATTRS]) {
  unsigned n = 0;
  for (unsigned a = 0; a < AGX_PROLOG_MAX_ATTRS; a++)
    for (unsigned c = 0; c < 4; c++)
      if (masks[a] >> c & 1) in_reg[n++] = (uint8_t)(8 + 4 * a + c);
  return n;
}

int64_t agx_prolog_clamp(uint32_t avail, uint32_t size, uint32_t stride) {
  if (avail < size) return -1;
  return stride ? (int64_t)((avail - size) / stride) : (int64_t)UINT32_MAX;
}

int agx_prolog_build(const agx_prolog_key *k, const agx_prolog_inputs *in, unsigned n, gs_isa_binary *out,
                     uint32_t *reads, gs_diag *d) {
  em e = {out, 0, d, 0, 0, 0, 0, 0};
  memset(out, 0, sizeof *out);
  *reads = 0;
  /* the record each input word comes from: the last that covers it, as
   * the VCD writes the records in order */
  int8_t owner[128];
  unsigned nin = in->nin < 128 ? in->nin : 128;
  memset(owner, -1, sizeof owner);
  if (k->nattrs > AGX_PROLOG_MAX_ATTRS)
    return gs_diag_set(d, GS_EINVAL, "%u attribute records: the AGX vertex prolog reads at most %u", k->nattrs,
                       AGX_PROLOG_MAX_ATTRS);
  for (unsigned r = 0; r < k->nattrs; r++) {
    const agx_prolog_attr *a = &k->attr[r];
    if (a->vpm_offset % 4)
      return gs_diag_set(d, GS_EINVAL, "attribute %u: VPM offset %u is not a multiple of 4", a->slot, a->vpm_offset);
    if (a->slot >= n)
      return gs_diag_set(d, GS_EINVAL, "attribute %u: the AGX vertex prolog's uniforms are laid out for %u", a->slot,
                         n);
    if (a->size > 256 || (a->align != 1 && a->align != 2 && a->align != 4))
      return gs_diag_set(d, GS_EINVAL, "attribute %u: %u bytes aligned to %u is not an attribute record's", a->slot,
                         a->size, a->align);
    for (uint32_t w = 0; w < (a->size + 3) / 4; w++)
      if (a->vpm_offset / 4 + w < nin) owner[a->vpm_offset / 4 + w] = (int8_t)r;
  }
  for (unsigned r = 0; r < k->nattrs && !e.err; r++) {
    const agx_prolog_attr *a = &k->attr[r];
    unsigned nwords = (a->size + 3) / 4, any = 0;
    uint8_t regs[64];
    for (unsigned j = 0; j < nwords; j++) {
      unsigned w = a->vpm_offset / 4 + j;
      regs[j] = w < nin && owner[w] == (int)r ? in->in_reg[w] : 0xff;
      any |= regs[j] != 0xff;
    }
    if (!any) continue;
    *reads |= 1u << a->slot;
    if (a->stride) { /* el = clamp < vertex id ? 0 : vertex id */
      agx_instr C = {.op = AGX_ICMPSEL, .dst = r32(R_EL), .cond = AGX_ULT};
      C.src[0] = unif(2 * agx_prolog_clamp_unif(n, a->slot), 32);
      C.src[1] = r32(R_VID), C.src[2] = imm(0), C.src[3] = r32(R_VID);
      emit(&e, &C);
    }
    e.r3_valid = 0;
    uint8_t whole[64];
    for (unsigned j = 0; j < nwords; j++) {
      unsigned nb = a->size - 4 * j < 4 ? a->size - 4 * j : 4;
      whole[j] = nb == 4 && a->align >= 2 ? regs[j] : 0xff;
    }
    whole_words(&e, a, whole, nwords);
    for (unsigned j = 0; j < nwords; j++) {
      unsigned nb = a->size - 4 * j < 4 ? a->size - 4 * j : 4;
      if (regs[j] != 0xff && whole[j] == 0xff) partial_word(&e, a, regs[j], 4 * j, nb);
    }
  }
  /* the fills: a word no record covers reads 0; an attribute's unmapped
   * components (0, 0, 0, 1) */
  for (unsigned w = 0; w < nin; w++)
    if (owner[w] < 0) mov_imm(&e, in->in_reg[w], 0);
  for (unsigned at = 0; at < AGX_PROLOG_MAX_ATTRS; at++)
    for (unsigned c = 0; c < 4 && in->attr_mask[at]; c++)
      if (!(in->attr_mask[at] >> c & 1)) mov_imm(&e, 8 + 4 * at + c, c == 3 ? 0x3f800000u : 0);
  wait_a(&e);
  if (e.err) {
    free(out->bytes);
    memset(out, 0, sizeof *out);
    return e.err;
  }
  return GS_OK;
}
