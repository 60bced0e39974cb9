/* disasm.c — SASS code to nvdisasm-style text that asm.c reads back to the
 * same bytes (docs/sass.md, "Text"). Walks the instruction table. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "isa/sass/table.h"

typedef struct out {
  char *p;
  size_t n, size;
  int bad; /* something did not print */
} out;

static void put(out *o, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void put(out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(o->p + o->n, o->n < o->size ? o->size - o->n : 0, fmt, ap);
  va_end(ap);
  if (k > 0) o->n += (size_t)k;
  if (o->n >= o->size) o->n = o->size ? o->size - 1 : 0;
}

static uint32_t fget(const sass_row *r, unsigned ref, uint64_t w) {
  return ref ? sass_field_get(&r->fld[ref - 1], w) : 0;
}

static void put_hex(out *o, int64_t v) {
  if (v < 0) put(o, "-0x%" PRIx64, (uint64_t)-v);
  else put(o, "0x%" PRIx64, (uint64_t)v);
}

/* A float immediate as nvdisasm prints it: up to 20 significant digits;
 * infinities +INF/-INF; NaNs as their bits in hex (which the assembler
 * reads as bits). */
static void put_float(out *o, uint32_t bits) {
  float f;
  memcpy(&f, &bits, 4);
  if (isnan(f)) put(o, "0x%08x", bits);
  else if (isinf(f)) put(o, "%sINF", f < 0 ? "-" : "+");
  else if (f == 0 && (bits >> 31)) put(o, "-0");
  else put(o, "%.20g", (double)f);
}

static void put_reg(out *o, unsigned r) {
  if (r == SASS_RZ) put(o, "RZ");
  else put(o, "R%u", r);
}

static void put_pred(out *o, unsigned p, unsigned neg) {
  put(o, "%s", neg ? "!" : "");
  if (p == SASS_PT) put(o, "PT");
  else put(o, "P%u", p);
}

/* The suffix after a register (".CC", ".H1", ".B2"), from field ref. */
static void put_sfx(out *o, const sass_row *r, unsigned ref, uint64_t w) {
  if (!ref) return;
  const sass_field *f = &r->fld[ref - 1];
  uint32_t v = sass_field_get(f, w);
  const char *s;
  size_t len;
  if (!strchr(f->names, '|')) {
    if (v) put(o, ".%s", f->names);
  } else if (!sass_name(f->names, v, &s, &len)) {
    o->bad = 1;
  } else if (len) {
    put(o, ".%.*s", (int)len, s);
  }
}

static void put_cbuf(out *o, uint64_t w) {
  put(o, "c[0x%x][0x%x]", sass_field_get(&sass_f_cb_bank, w), sass_field_get(&sass_f_cb_word, w) << 2);
}

/* Operand modifiers around the text f() prints: -|x|, ~x. */
static void pre(out *o, const sass_row *r, const sass_opnd *p, uint64_t w, int paren) {
  if (fget(r, p->neg, w)) put(o, "-%s", paren && !fget(r, p->abs, w) ? "(" : "");
  if (fget(r, p->inv, w)) put(o, "~");
  if (fget(r, p->abs, w)) put(o, "|");
}
static void post(out *o, const sass_row *r, const sass_opnd *p, uint64_t w, int paren) {
  if (fget(r, p->abs, w)) put(o, "|");
  else if (paren && fget(r, p->neg, w)) put(o, ")");
  put_sfx(o, r, p->sfx, w);
}

static void put_imm_b(out *o, const sass_row *r, uint64_t w) {
  if (r->form == SASS_FORM_IMM32) {
    uint32_t v = sass_field_get(&sass_f_imm32, w);
    if (r->flags & SASS_R_FIMM) put_float(o, v);
    else if (r->flags & SASS_R_UIMM) put(o, "0x%x", v);
    else put_hex(o, (int32_t)v);
  } else if (r->flags & SASS_R_U16) {
    put(o, "0x%x", sass_field_get(&sass_f_imm16, w));
  } else {
    uint32_t v = sass_field_get(&sass_f_imm20, w);
    if (r->flags & SASS_R_FIMM) put_float(o, v << 12);
    else put_hex(o, sass_sext(v, sass_f_imm20.width + sass_f_imm20.width2));
  }
}

/* Token classes, for leaving out an optional operand the assembler must not
 * confuse with the next one. */
enum { K_REG, K_PRED, K_NUM, K_FLOW, K_OTHER };
static int klass(const sass_row *r, const sass_opnd *p, uint64_t w) {
  switch (p->kind) {
  case SASS_O_R: return K_REG;
  case SASS_O_P: return K_PRED;
  case SASS_O_IMM: return K_NUM;
  case SASS_O_FLOW: return K_FLOW;
  case SASS_O_RI: return fget(r, p->f2, w) ? K_NUM : K_REG;
  default: return K_OTHER;
  }
}

/* Does operand p have its default (an omitted one's) value? */
static int is_default(const sass_row *r, const sass_opnd *p, uint64_t w) {
  switch (p->kind) {
  case SASS_O_R: return (uint8_t)(w >> p->pos) == SASS_RZ;
  case SASS_O_P: return fget(r, p->f, w) == r->fld[p->f - 1].def && !fget(r, p->neg, w);
  case SASS_O_IMM: case SASS_O_SBSET: return fget(r, p->f, w) == 0;
  case SASS_O_FLOW: return fget(r, p->f, w) == 15;
  case SASS_O_RI: return fget(r, p->f2, w) == 1 && fget(r, p->f, w) == 0;
  default: return 0;
  }
}

int sass_disasm_insn(uint64_t w, uint32_t pc, char *buf, size_t size) {
  out o = {buf, 0, size, 0};
  buf[0] = 0;
  sass_insn in;
  gs_diag d = {0};
  if (sass_decode(w, 0, pc, &in, &d) < 0) {
    const char *m = strstr(d.msg, ": ");
    m = m ? strstr(m + 2, ": ") : NULL;
    snprintf(buf, size, "%s", m ? m + 2 : d.msg);
    return -1;
  }
  const sass_row *r = &sass_table[in.entry];
  uint64_t extra = w & ~sass_row_bits(r);
  if (extra) {
    snprintf(buf, size, "%s with bits 0x%016" PRIx64 " outside its fields", r->name, extra);
    return -1;
  }
  /* guard, mnemonic, modifiers */
  if (!(r->flags & SASS_R_NOGUARD) && (in.guard != SASS_PT || in.guard_neg)) {
    put(&o, "@");
    put_pred(&o, in.guard, in.guard_neg);
    put(&o, " ");
  }
  put(&o, "%s", r->name);
  for (unsigned k = 0; k < SASS_MOD_MAX; k++) {
    const sass_field *f = &r->fld[k];
    uint32_t v = f->print ? sass_field_get(f, w) : 0;
    const char *s;
    size_t len;
    if (f->print == SASS_P_FLAG) {
      if (v) put(&o, ".%s", f->names);
    } else if (f->print == SASS_P_ENUM) {
      if (!sass_name(f->names, v, &s, &len)) {
        o.bad = 1;
        continue;
      }
      const char *colon = memchr(s, ':', len);
      if (colon) len = (size_t)(colon - s);
      if (len) put(&o, ".%.*s", (int)len, s);
    }
  }
  /* operands: an optional one at its default is left out when nothing the
   * assembler could take for it follows */
  unsigned nop = 0;
  while (nop < SASS_OPND_MAX && r->opnd[nop].kind) nop++;
  int omit[SASS_OPND_MAX] = {0};
  for (unsigned k = nop; k-- > 0;) {
    const sass_opnd *p = &r->opnd[k];
    if (!(p->flags & SASS_OF_OMIT) || !is_default(r, p, w)) continue;
    omit[k] = k + 1 == nop || omit[k + 1] || klass(r, &r->opnd[k + 1], w) != klass(r, p, w);
  }
  const char *sep = " ";
  for (unsigned k = 0; k < nop; k++) {
    const sass_opnd *p = &r->opnd[k];
    if (omit[k]) continue;
    put(&o, "%s", sep);
    sep = ", ";
    uint8_t reg = (uint8_t)(w >> p->pos);
    const char *s;
    size_t len;
    switch (p->kind) {
    case SASS_O_R:
      pre(&o, r, p, w, 0);
      put_reg(&o, reg);
      post(&o, r, p, w, 0);
      break;
    case SASS_O_P:
      put_pred(&o, fget(r, p->f, w), fget(r, p->neg, w));
      break;
    case SASS_O_B: case SASS_O_C: {
      int is_b = p->kind == SASS_O_B;
      int imm = is_b && (r->form == SASS_FORM_IMM || r->form == SASS_FORM_IMM32);
      pre(&o, r, p, w, imm);
      if (imm) put_imm_b(&o, r, w);
      else if (is_b ? (r->form == SASS_FORM_CBUF || r->form == SASS_FORM_CR) : r->form == SASS_FORM_RC) put_cbuf(&o, w);
      else put_reg(&o, sass_field_get(is_b && r->form != SASS_FORM_RC ? &sass_f_rb : &sass_f_rc, w));
      post(&o, r, p, w, imm);
      break;
    }
    case SASS_O_IMM: {
      const sass_field *f = &r->fld[p->f - 1];
      uint32_t v = sass_field_get(f, w);
      put_hex(&o, (f->flags & SASS_F_SIGNED) ? sass_sext(v, f->width) : (int64_t)v);
      break;
    }
    case SASS_O_NAME:
      if (sass_name(r->fld[p->f - 1].names, fget(r, p->f, w), &s, &len)) put(&o, "%.*s", (int)len, s);
      else o.bad = 1;
      break;
    case SASS_O_SREG: {
      uint32_t v = fget(r, p->f, w);
      const char *n = sass_sr_name(v);
      if (n) put(&o, "%s", n);
      else put(&o, "SR_0x%02x", v);
      break;
    }
    case SASS_O_ATTR: {
      uint32_t off = fget(r, p->f, w);
      put(&o, "a[");
      if (reg != SASS_RZ) {
        put_reg(&o, reg);
        if (off) put(&o, "+0x%x", off);
      } else {
        put(&o, "0x%x", off);
      }
      put(&o, "]");
      break;
    }
    case SASS_O_CX: case SASS_O_LMEM: {
      const sass_field *f = &r->fld[(p->kind == SASS_O_CX ? p->f2 : p->f) - 1];
      int32_t off = sass_sext(sass_field_get(f, w), f->width);
      if (p->kind == SASS_O_CX) put(&o, "c[0x%x]", fget(r, p->f, w));
      put(&o, "[");
      if (reg != SASS_RZ) {
        put_reg(&o, reg);
        if (off) put(&o, "%s0x%x", off < 0 ? "-" : "+", (unsigned)(off < 0 ? -(int64_t)off : off));
      } else {
        put_hex(&o, off);
      }
      put(&o, "]");
      break;
    }
    case SASS_O_TARGET:
      put_hex(&o, (int64_t)pc + 8 + sass_sext(fget(r, p->f, w), r->fld[p->f - 1].width));
      break;
    case SASS_O_FLOW: {
      const char *n = sass_flow_name(fget(r, p->f, w));
      put(&o, "CC.%s", n ? n : "T");
      break;
    }
    case SASS_O_RI:
      if (fget(r, p->f2, w)) put(&o, "0x%x", fget(r, p->f, w));
      else if (fget(r, p->f, w) >> 8) o.bad = 1; /* bits of the number above the register */
      else put_reg(&o, reg);
      break;
    case SASS_O_SBSET: {
      uint32_t v = fget(r, p->f, w);
      const char *c = "{";
      for (unsigned b = 0; b < 6; b++)
        if (v >> b & 1) put(&o, "%s%u", c, b), c = ",";
      put(&o, "}");
      break;
    }
    case SASS_O_TMASK: {
      static const char *const two[] = {"R", "G", "B", "A", "RG", "RA", "GA", "BA"};
      static const char *const four[] = {"RGB", "RGA", "RBA", "GBA", "RGBA"};
      uint32_t v = fget(r, p->f, w);
      if (reg == SASS_RZ) put(&o, "%s", two[v & 7]);
      else if (v < 5) put(&o, "%s", four[v]);
      else o.bad = 1;
      break;
    }
    case SASS_O_TDIM:
      if (sass_name(r->fld[p->f - 1].names, fget(r, p->f, w), &s, &len)) {
        const char *colon = memchr(s, ':', len);
        put(&o, "%.*s", (int)(len - (size_t)(colon - s) - 1), colon + 1);
      } else {
        o.bad = 1;
      }
      break;
    case SASS_O_ZERO:
      put(&o, "0x0");
      break;
    }
  }
  put(&o, " ;");
  if (o.bad) {
    snprintf(buf, size, "%s with a field value that has no name", r->name);
    return -1;
  }
  return 0;
}

int sass_disasm(const uint8_t *code, size_t size, char **text, gs_diag *d) {
  *text = NULL;
  if (size % 32)
    return gs_diag_set(d, GS_EINVAL, "%zu bytes of SASS code is not a whole number of 32-byte groups "
                       "(a control word and three instructions)", size);
  size_t cap = size / 8 * 120 + 1, n = 0;
  char *t = malloc(cap);
  if (!t) return gs_diag_set(d, GS_ENOMEM, "out of memory");
  t[0] = 0;
  for (size_t g = 0; g < size / 32; g++) {
    uint64_t wv[4];
    gs_get_le64s(wv, code + 32 * g, 4);
    if (wv[0] >> 63) {
      free(t);
      return gs_diag_set(d, GS_EINVAL, "0x%04zx: control word 0x%016" PRIx64 " has bit 63 set, which the text "
                         "form cannot carry", 32 * g, wv[0]);
    }
    for (unsigned j = 0; j < 3; j++) {
      uint32_t pc = (uint32_t)(32 * g + 8 + 8 * j);
      char ins[160], sched[32];
      sass_sched_text((uint32_t)(wv[0] >> (SASS_CTRL_BITS * j)) & ((1u << SASS_CTRL_BITS) - 1), sched);
      int k;
      if (sass_disasm_insn(wv[1 + j], pc, ins, sizeof ins) == 0)
        k = snprintf(t + n, cap - n, "/*%04x*/ %-50s /* 0x%016" PRIx64 " %s */\n", pc, ins, wv[1 + j], sched);
      else
        k = snprintf(t + n, cap - n, "/*%04x*/ .inst 0x%016" PRIx64 " ; %*s/* %s %s */\n", pc, wv[1 + j], 19, "",
                     sched, ins);
      if (k < 0 || (size_t)k >= cap - n) { /* grow and redo this line */
        cap = cap * 2 + 512;
        char *nt = realloc(t, cap);
        if (!nt) {
          free(t);
          return gs_diag_set(d, GS_ENOMEM, "out of memory");
        }
        t = nt;
        j--;
        t[n] = 0;
        continue;
      }
      n += (size_t)k;
    }
  }
  *text = t;
  return GS_OK;
}
