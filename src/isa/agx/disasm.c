/* disasm.c — AGX instructions as Mesa's AGX disassembler prints them
 * (src/asahi/isa in Mesa: the mnemonic left-justified in 8 columns, one
 * space, the operands joined by ", "), and whole listings that asm.c reads
 * back. docs/agx.md, "Text". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/agx/table.h"

typedef struct pbuf {
  char *p;
  size_t n, size;
  int first; /* no operand printed yet */
} pbuf;

static void put(pbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(pbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->p + b->n, b->n < b->size ? b->size - b->n : 0, fmt, ap);
  va_end(ap);
  if (k > 0) b->n += (size_t)k;
  if (b->n >= b->size) b->n = b->size ? b->size - 1 : 0;
}

/* Starts the next operand: ", " after the first. */
static void sep(pbuf *b) {
  if (!b->first) put(b, ", ");
  b->first = 0;
}

static void put_elem(pbuf *b, char c, unsigned half, unsigned bits) {
  if (bits == 64) put(b, "d%c%u", c, half / 2);
  else if (bits == 32) put(b, "%c%u", c, half / 2);
  else put(b, "%c%u%c", c, half / 2, (half & 1) ? 'h' : 'l');
}

static void put_float(pbuf *b, unsigned code) {
  float f = agx_minifloat(code);
  char t[32];
  snprintf(t, sizeof t, "%g", (double)f);
  if (f == 0 && (code & 0x80)) snprintf(t, sizeof t, "-0");
  put(b, "%s", t);
  if (!strpbrk(t, ".e")) put(b, ".0");
}

static void put_opnd(pbuf *b, const agx_opnd *o) {
  sep(b);
  switch (o->kind) {
  case AGX_K_REG:
  case AGX_K_UNIF: {
    char c = o->kind == AGX_K_REG ? 'r' : 'u';
    if (o->hint == AGX_HINT_CACHE) put(b, "$");
    if (o->hint == AGX_HINT_DISCARD) put(b, "^");
    unsigned step = o->bits == 16 ? 1 : o->bits / 16u;
    for (unsigned i = 0; i < o->count; i++) {
      if (i) put(b, "_");
      put_elem(b, c, o->index + i * step, o->bits);
    }
    break;
  }
  case AGX_K_IMM: put(b, "%u", o->value); break;
  case AGX_K_FIMM: put_float(b, o->value); break;
  case AGX_K_CF: put(b, "cf%u", o->index); break;
  case AGX_K_SR: put(b, "%s", agx_sr_name(o->index) ? agx_sr_name(o->index) : "?"); break;
  case AGX_K_TS: put(b, "ts%u", o->index); break;
  case AGX_K_SS: put(b, "ss%u", o->index); break;
  default: put(b, "_"); break;
  }
  if (o->abs) put(b, ".abs");
  if (o->neg) put(b, ".neg");
  if (o->sx) put(b, ".sx");
}

static void word(pbuf *b, const char *w) {
  sep(b);
  put(b, "%s", w);
}

static void num(pbuf *b, long long v) {
  sep(b);
  put(b, "%lld", v);
}

static int is_imm(const agx_opnd *o, uint32_t v) {
  return o->kind == AGX_K_IMM && o->value == v && !o->sx && !o->abs && !o->neg;
}

static int is_fzero(const agx_opnd *o) { return o->kind == AGX_K_FIMM && o->value == 0 && !o->abs && !o->neg; }

/* The mnemonic Mesa prints for I (aliases resolved). */
static const char *mnemonic(const agx_instr *I) {
  switch (I->op) {
  case AGX_BITOP: {
    int unary = is_imm(&I->src[1], 0) && agx_bitop_name(I->tt, 1);
    return agx_bitop_name(I->tt, unary);
  }
  case AGX_IMAD: return is_imm(&I->src[2], 0) && I->shift == 0 ? "imul" : "imadd";
  case AGX_BFI: return is_imm(&I->src[0], 0) && I->mask_width == 0 ? "shl" : "bfi";
  case AGX_BFEIL: return is_imm(&I->src[0], 0) && I->mask_width == 0 ? "shr" : "bfeil";
  case AGX_CONVERT: return agx_convert_name(I->mode);
  case AGX_IF_FCMP:
    if (is_fzero(&I->src[0]) && is_fzero(&I->src[1]) && I->cond == 0 && I->nest == 0) return "update_exec";
    return "if";
  default: return agx_op_name(I->op);
  }
}

void agx_print(const agx_instr *I, char *buf, size_t size) {
  pbuf b = {buf, 0, size, 1};
  if (size) buf[0] = 0;
  const char *m = mnemonic(I);
  put(&b, "%-8s ", m ? m : "?");
  size_t bare = b.n;
  switch (I->op) {
  case AGX_FADD: case AGX_FMUL: case AGX_HADD: case AGX_HMUL:
  case AGX_FFMA: case AGX_HFMA:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    if (I->op == AGX_FFMA || I->op == AGX_HFMA) put_opnd(&b, &I->src[2]);
    if (I->sat) word(&b, "sat");
    break;
  case AGX_LDIMM:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    break;
  case AGX_GET_SR:
  case AGX_BITREV: case AGX_POPCNT: case AGX_FFS:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    break;
  case AGX_BITOP:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    if (!(is_imm(&I->src[1], 0) && agx_bitop_name(I->tt, 1))) put_opnd(&b, &I->src[1]);
    break;
  case AGX_INTL:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    break;
  case AGX_IADD: case AGX_ISUB: case AGX_IMAD: case AGX_IMSUB:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    if ((I->op == AGX_IMAD && !(is_imm(&I->src[2], 0) && I->shift == 0)) || I->op == AGX_IMSUB)
      put_opnd(&b, &I->src[2]);
    if (I->shift) {
      sep(&b);
      put(&b, "lsl %u", I->shift);
    }
    if (I->sat) word(&b, "sat");
    break;
  case AGX_BFI: case AGX_BFEIL: case AGX_EXTR:
    put_opnd(&b, &I->dst);
    if (I->op != AGX_EXTR && is_imm(&I->src[0], 0) && I->mask_width == 0) {
      put_opnd(&b, &I->src[1]);
      put_opnd(&b, &I->src[2]);
      break;
    }
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    put_opnd(&b, &I->src[2]);
    num(&b, I->mask_width);
    break;
  case AGX_CONVERT:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    word(&b, I->round ? "rte" : "rtz");
    break;
  case AGX_ICMPSEL: case AGX_FCMPSEL:
    put_opnd(&b, &I->dst);
    for (int k = 0; k < 4; k++) put_opnd(&b, &I->src[k]);
    word(&b, I->op == AGX_FCMPSEL ? agx_fcond_name(I->cond) : agx_icond_name(I->cond));
    break;
  case AGX_IF_ICMP: case AGX_ELSE_ICMP: case AGX_WHILE_ICMP:
  case AGX_IF_FCMP: case AGX_ELSE_FCMP: case AGX_WHILE_FCMP: {
    int fl = I->op >= AGX_IF_FCMP;
    if (!strcmp(m, "update_exec")) {
      if (I->cache) word(&b, "cache");
      break;
    }
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    num(&b, I->nest);
    if (I->cache) word(&b, "cache");
    word(&b, fl ? agx_fcond_name(I->cond) : agx_icond_name(I->cond));
    break;
  }
  case AGX_POP_EXEC:
    num(&b, I->nest);
    if (I->cache) word(&b, "cache");
    break;
  case AGX_JMP_ANY: case AGX_JMP_NONE:
    num(&b, I->offset);
    break;
  case AGX_WAIT:
    word(&b, I->group ? "b" : "a");
    break;
  case AGX_LOAD: case AGX_STORE: {
    static const char *const coh[4] = {NULL, "coherent1", "coherent2", "coherent"};
    put_opnd(&b, I->op == AGX_LOAD ? &I->dst : &I->src[0]);
    put_opnd(&b, &I->src[1]);
    if (I->src[2].kind == AGX_K_IMM) num(&b, I->index_zext ? (long long)I->src[2].value : (long long)(int32_t)I->src[2].value);
    else put_opnd(&b, &I->src[2]);
    if (I->shift) {
      sep(&b);
      put(&b, "lsl %u", I->shift);
    }
    word(&b, agx_format_name(I->format));
    word(&b, agx_mask_names[I->mask & 15]);
    if (I->coherency) word(&b, coh[I->coherency & 3]);
    word(&b, I->group ? "b" : "a");
    break;
  }
  case AGX_UNIFORM_STORE:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    break;
  case AGX_ST_VAR:
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    if (I->last) word(&b, "last");
    break;
  case AGX_ITER: case AGX_ITERPROJ: case AGX_LDCF:
    put_opnd(&b, &I->dst);
    put_opnd(&b, &I->src[0]);
    if (I->op == AGX_ITERPROJ) put_opnd(&b, &I->src[1]);
    if (I->interp == AGX_INTERP_SAMPLE || I->interp == AGX_INTERP_SAMPLE_REG) put_opnd(&b, &I->src[2]);
    if (I->op == AGX_LDCF) break;
    if (I->fwd) word(&b, "fwd");
    if (I->elide) word(&b, "elide");
    if (I->interp == AGX_INTERP_CENTROID) word(&b, "centroid");
    if (I->interp == AGX_INTERP_SAMPLE || I->interp == AGX_INTERP_SAMPLE_REG) word(&b, "sample");
    if (I->kill) word(&b, "kill");
    break;
  case AGX_SAMPLE_MASK:
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    break;
  case AGX_ZS_EMIT:
    put_opnd(&b, &I->src[0]);
    if (I->zs_depth || I->zs_stencil) put_opnd(&b, &I->src[1]);
    break;
  case AGX_ST_TILE: case AGX_LD_TILE:
    put_opnd(&b, I->op == AGX_LD_TILE ? &I->dst : &I->src[0]);
    put_opnd(&b, &I->src[1]);
    put_opnd(&b, &I->src[2]);
    put_opnd(&b, &I->src[3]);
    if (I->explicit_coords) word(&b, "explicit_coords");
    word(&b, agx_format_name(I->format));
    word(&b, agx_mask_names[I->mask & 15]);
    break;
  case AGX_PIXWAIT: case AGX_PIXREL:
    put_opnd(&b, &I->src[0]);
    put_opnd(&b, &I->src[1]);
    break;
  case AGX_SMPF:
    put_opnd(&b, &I->dst);
    for (int k = 0; k < 4; k++) put_opnd(&b, &I->src[k]);
    word(&b, agx_dim_name(I->dim));
    word(&b, agx_mask_names[I->mask & 15]);
    word(&b, agx_lod_name(I->lod_mode));
    word(&b, I->group ? "b" : "a");
    break;
  default: /* the funop group; stop, trap, barrier, no_var */
    if (I->op >= AGX_FLOOR && I->op <= AGX_RINT) {
      put_opnd(&b, &I->dst);
      put_opnd(&b, &I->src[0]);
      if (I->sat) word(&b, "sat");
    }
    break;
  }
  if (b.n == bare) { /* no operands: the bare mnemonic */
    b.n = strlen(m ? m : "?");
    buf[b.n] = 0;
  }
}

/* ---- listings ------------------------------------------------------------------ */

int agx_disasm(const uint8_t *bytes, size_t size, char **text, gs_diag *d) {
  size_t cap = 256 + size * 24, n = 0;
  char *out = malloc(cap);
  if (!out) return gs_diag_set(d, GS_ENOMEM, "out of memory");
  out[0] = 0;
  for (size_t off = 0; off < size;) {
    agx_instr I;
    unsigned len;
    char why[160], line[200], hex[2 * AGX_MAX_BYTES + 1];
    if (!agx_decode(bytes + off, size - off, &I, &len, why, sizeof why)) {
      free(out);
      return gs_diag_set(d, GS_EINVAL, "agx: byte offset 0x%zx: %s", off, why);
    }
    agx_print(&I, line, sizeof line);
    for (unsigned i = 0; i < len; i++) snprintf(hex + 2 * i, 3, "%02x", bytes[off + i]);
    char row[320];
    int k = snprintf(row, sizeof row, "    %-44s // %04zx: %s\n", line, off, hex);
    if (k < 0) k = 0;
    if (n + (size_t)k + 1 > cap) {
      cap = (n + (size_t)k + 1) * 2;
      char *q = realloc(out, cap);
      if (!q) {
        free(out);
        return gs_diag_set(d, GS_ENOMEM, "out of memory");
      }
      out = q;
    }
    memcpy(out + n, row, (size_t)k + 1);
    n += (size_t)k;
    off += len;
  }
  *text = out;
  return 0;
}

int agx_same_text(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  size_t i = 0, j = 0;
  while (i < na && j < nb) {
    agx_instr I, J;
    unsigned li, lj;
    char why[8], ta[200], tb[200];
    if (!agx_decode(a + i, na - i, &I, &li, why, sizeof why) || !agx_decode(b + j, nb - j, &J, &lj, why, sizeof why))
      return 0;
    agx_print(&I, ta, sizeof ta);
    agx_print(&J, tb, sizeof tb);
    if (strcmp(ta, tb)) return 0;
    i += li, j += lj;
  }
  return i == na && j == nb;
}
