/* asm.c — nvdisasm-style SASS text to code, walking the instruction table
 * (table.h); docs/sass.md ("Text") has the syntax: labels, comments, the
 * scheduling annotation, .inst, what is refused. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "isa/isa.h"
#include "isa/sass/table.h"

/* ---- statements ----------------------------------------------------------------- */

typedef struct stmt {
  unsigned line, col;   /* where the instruction starts */
  const char *text;     /* in the cleaned source, up to end */
  const char *end;
  const char *bol;      /* its line's start (columns) */
  int has_sched;
  uint32_t sched;
} stmt;

typedef struct label {
  const char *name;
  size_t len;
  uint32_t off;
  unsigned line;
} label;

typedef struct actx {
  const char *file;
  gs_diag *d;
  label *labels;
  size_t nlabels, caplabels;
} actx;

static int err_at(actx *a, unsigned line, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int err_at(actx *a, unsigned line, unsigned col, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gs_diag_set(a->d, GS_EASM, "%s:%u:%u: %s", a->file, line, col, msg);
}

static int ieq(const char *a, size_t n, const char *b) { /* a[0..n) == b, ignoring case */
  if (strlen(b) != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (toupper((unsigned char)a[i]) != toupper((unsigned char)b[i])) return 0;
  return 1;
}

static int iprefix(const char *s, size_t n, const char *pre, size_t k) { /* s starts with pre[0..k) */
  if (k > n) return 0;
  for (size_t i = 0; i < k; i++)
    if (toupper((unsigned char)s[i]) != toupper((unsigned char)pre[i])) return 0;
  return 1;
}

/* ---- the scheduling annotation -------------------------------------------------- */

/* Parses "[B------:R-:W0:Y:S01:U0]" at s: 1 and *c, 0 if s is not one
 * (ordinary comment text), -1 if it starts like one but is malformed. */
static int parse_sched(const char *s, const char *end, uint32_t *c, const char **bad) {
  if (end - s < 8 || s[0] != '[' || s[1] != 'B') return 0;
  for (int k = 0; k < 6; k++)
    if (s[2 + k] != '-' && !(s[2 + k] >= '0' && s[2 + k] <= '5')) return 0;
  if (s[8] != ':') return 0;
  *bad = s;
  const char *want = "[B______:R_:W_:_:S__:U_]";
  if (end - s < (ptrdiff_t)strlen(want)) return -1;
  uint32_t wait = 0;
  for (int k = 0; k < 6; k++) {
    char ch = s[2 + k];
    if (ch != '-' && ch != '0' + k) return -1;
    if (ch != '-') wait |= 1u << k;
  }
  if (memcmp(s + 8, ":R", 2) || memcmp(s + 11, ":W", 2) || s[14] != ':' || memcmp(s + 16, ":S", 2) ||
      memcmp(s + 20, ":U", 2) || s[23] != ']')
    return -1;
  char rd = s[10], wr = s[13], y = s[15];
  if (!(rd == '-' || (rd >= '0' && rd <= '7')) || !(wr == '-' || (wr >= '0' && wr <= '7'))) return -1;
  if (y != 'Y' && y != 'y' && y != '-') return -1;
  if (!isdigit((unsigned char)s[18]) || !isdigit((unsigned char)s[19])) return -1;
  unsigned stall = (unsigned)(s[18] - '0') * 10 + (unsigned)(s[19] - '0');
  if (stall > 15 || !isxdigit((unsigned char)s[22])) return -1;
  unsigned reuse = (unsigned)strtoul((char[]){s[22], 0}, NULL, 16);
  uint64_t v = sass_field_put(&sass_c_wait, 0, wait);
  v = sass_field_put(&sass_c_rd, v, rd == '-' ? 7u : (unsigned)(rd - '0'));
  v = sass_field_put(&sass_c_wr, v, wr == '-' ? 7u : (unsigned)(wr - '0'));
  v = sass_field_put(&sass_c_yield, v, y != '-');
  v = sass_field_put(&sass_c_stall, v, stall);
  *c = (uint32_t)sass_field_put(&sass_c_reuse, v, reuse);
  return 1;
}

/* ---- operands ------------------------------------------------------------------------ */

typedef struct tok {
  const char *s;
  size_t n;
  unsigned col;
} tok;

/* The instruction being built. */
typedef struct build {
  const sass_row *r;
  uint64_t w, written; /* bits written so far */
  uint32_t val[SASS_MOD_MAX];
  uint8_t set[SASS_MOD_MAX];
  const char *split;   /* TEXS/TLDS: the target's suffix part */
  size_t nsplit;
  uint32_t reuse;      /* .reuse bits (17-19) */
  char err[400];
  int score;           /* how far it got, for picking the error to report */
} build;

static int fail(build *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(build *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->err, sizeof b->err, fmt, ap);
  va_end(ap);
  return -1;
}

/* Writes v into bits pos..pos+width-1; a bit written twice must agree. */
static int bits(build *b, unsigned pos, unsigned width, uint64_t v, const char *what) {
  uint64_t m = (width >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << width) - 1)) << pos;
  uint64_t x = (v << pos) & m;
  if ((b->written & m & (b->w ^ x)) != 0) return fail(b, "%s must be the same as the operand that shares its bits", what);
  b->w = (b->w & ~m) | x;
  b->written |= m;
  return 0;
}

/* Writes v into the bits of f (both parts). */
static int fbits(build *b, const sass_field *f, uint32_t v, const char *what) {
  if (bits(b, f->pos, f->width, v & (uint32_t)(((uint64_t)1 << f->width) - 1), what) < 0) return -1;
  return f->width2 ? bits(b, f->pos2, f->width2, v >> f->width, what) : 0;
}

static int setf(build *b, unsigned ref, uint32_t v, const char *what) {
  const sass_field *f = &b->r->fld[ref - 1];
  unsigned w = f->width + f->width2;
  if (w < 32 && v >> w) return fail(b, "%s 0x%x does not fit %s's %u-bit field", what, v, b->r->name, w);
  b->val[ref - 1] = v;
  b->set[ref - 1] = 1;
  return 0;
}

static int parse_u64(const char *s, size_t n, int64_t *v) {
  char buf[40];
  if (!n || n >= sizeof buf) return 0;
  memcpy(buf, s, n);
  buf[n] = 0;
  const char *p = buf;
  int neg = 0;
  if (*p == '-' || *p == '+') neg = *p++ == '-';
  if (!isdigit((unsigned char)*p)) return 0;
  char *e;
  errno = 0;
  unsigned long long u = strtoull(p, &e, (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ? 16 : 10);
  if (*e || errno || u > (1ull << 62)) return 0;
  *v = neg ? -(int64_t)u : (int64_t)u;
  return 1;
}

static int parse_reg(const char *s, size_t n, unsigned *r) {
  if (ieq(s, n, "RZ")) return *r = SASS_RZ, 1;
  if (n < 2 || n > 4 || toupper((unsigned char)s[0]) != 'R') return 0;
  unsigned v = 0;
  for (size_t i = 1; i < n; i++) {
    if (!isdigit((unsigned char)s[i])) return 0;
    v = v * 10 + (unsigned)(s[i] - '0');
  }
  if (v > 255 || (n > 2 && s[1] == '0')) return 0;
  *r = v;
  return 1;
}

static int parse_pred(const char *s, size_t n, unsigned *p, unsigned *neg) {
  *neg = 0;
  if (n && s[0] == '!') *neg = 1, s++, n--;
  if (ieq(s, n, "PT")) return *p = SASS_PT, 1;
  if (n == 2 && toupper((unsigned char)s[0]) == 'P' && s[1] >= '0' && s[1] <= '7') return *p = (unsigned)(s[1] - '0'), 1;
  return 0;
}

static int parse_float(const char *s, size_t n, uint32_t *bitsv) {
  char buf[64];
  if (!n || n >= sizeof buf) return 0;
  if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { /* the bits */
    int64_t v;
    if (!parse_u64(s, n, &v) || v > 0xFFFFFFFF) return 0;
    *bitsv = (uint32_t)v;
    return 1;
  }
  memcpy(buf, s, n);
  buf[n] = 0;
  const char *digits = buf + (buf[0] == '-' || buf[0] == '+');
  if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) return 0; /* bits are never signed */
  if (!(isdigit((unsigned char)buf[0]) || buf[0] == '-' || buf[0] == '+' || buf[0] == '.' || toupper((unsigned char)buf[0]) == 'I'))
    return 0;
  char *e;
  double d = strtod(buf, &e);
  if (*e) return 0;
  float f = (float)d;
  if (isinf(f) && !isinf(d)) return -1;
  memcpy(bitsv, &f, 4);
  return 1;
}

/* Splits an operand into its modifiers: [-][~][|] core [|] [.sfx...]. */
typedef struct parts {
  int neg, inv, abs, paren;
  const char *core;
  size_t ncore;
  const char *sfx;  /* ".CC.reuse" */
  size_t nsfx;
} parts;

static int split_mods(const tok *t, parts *p) {
  memset(p, 0, sizeof *p);
  const char *s = t->s, *e = t->s + t->n;
  if (s < e && *s == '-' && s + 1 < e && strchr("RrcC(|~", s[1])) p->neg = 1, s++;
  if (s < e && *s == '~') p->inv = 1, s++;
  if (s < e && (*s == '|' || *s == '(')) {
    char close = *s == '|' ? '|' : ')';
    const char *c = memchr(s + 1, close, (size_t)(e - s - 1));
    if (!c) return 0;
    if (close == '|') p->abs = 1;
    else p->paren = 1;
    p->core = s + 1;
    p->ncore = (size_t)(c - s - 1);
    s = c + 1;
    if (s < e && *s != '.') return 0;
    p->sfx = s;
    p->nsfx = (size_t)(e - s);
    return 1;
  }
  p->core = s;
  /* suffixes start at the first '.' followed by a letter (R9.H1, c[0x0][0x4].H1,
   * 0x1f.B1; not 1.5 or 1e-3) */
  const char *dot = s;
  while (dot < e && !(*dot == '.' && dot + 1 < e && isalpha((unsigned char)dot[1]))) dot++;
  p->ncore = (size_t)(dot - s);
  if (dot < e) {
    p->sfx = dot;
    p->nsfx = (size_t)(e - dot);
  }
  return 1;
}

/* Applies the modifiers of parts to operand o (whose reuse bit is reuse). */
static int apply_mods(build *b, const sass_opnd *o, const parts *p, unsigned reuse_bit, const char *what) {
  const sass_row *r = b->r;
  if ((p->neg && !o->neg) || (p->abs && !o->abs) || (p->inv && !o->inv))
    return fail(b, "%s of %s takes no %s", what, r->name, p->neg && !o->neg ? "'-'" : p->abs && !o->abs ? "'|...|'" : "'~'");
  if (o->neg && setf(b, o->neg, (uint32_t)p->neg, "-") < 0) return -1;
  if (o->abs && setf(b, o->abs, (uint32_t)p->abs, "|x|") < 0) return -1;
  if (o->inv && setf(b, o->inv, (uint32_t)p->inv, "~") < 0) return -1;
  const char *s = p->sfx, *e = p->sfx ? p->sfx + p->nsfx : NULL;
  while (s && s < e) {
    const char *n = s + 1, *ne = n;
    while (ne < e && *ne != '.') ne++;
    size_t len = (size_t)(ne - n);
    int ok = 0;
    if (ieq(n, len, "reuse") && reuse_bit) {
      b->reuse |= reuse_bit;
      ok = 1;
    } else if (o->sfx) {
      const sass_field *f = &r->fld[o->sfx - 1];
      if (!strchr(f->names, '|')) {
        if (ieq(n, len, f->names)) ok = setf(b, o->sfx, 1, ".") == 0;
      } else {
        const char *nm;
        size_t nl;
        for (unsigned v = 0; v < (1u << f->width) && !ok; v++)
          if (sass_name(f->names, v, &nm, &nl) && nl && nl == len && iprefix(n, len, nm, nl)) ok = setf(b, o->sfx, v, ".") == 0;
      }
    }
    if (!ok) return fail(b, "%s of %s takes no suffix '.%.*s'", what, r->name, (int)len, n);
    s = ne;
  }
  return 0;
}

static int put_cbuf_bits(build *b, unsigned bank, unsigned byte) {
  return fbits(b, &sass_f_cb_bank, bank, "the bank") < 0 || fbits(b, &sass_f_cb_word, byte >> 2, "the offset") < 0 ? -1 : 1;
}

/* c[bank][byte]: 1 parsed, 0 not a cbuf, -1 error. */
static int parse_cbuf(build *b, const char *s, size_t n, unsigned *bank, unsigned *byte) {
  char buf[96];
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < sizeof buf; i++)
    if (!isspace((unsigned char)s[i])) buf[k++] = s[i];
  buf[k] = 0;
  if (k < 2 || toupper((unsigned char)buf[0]) != 'C' || buf[1] != '[') return 0;
  char *close1 = strchr(buf, ']');
  if (!close1 || close1[1] != '[' || buf[k - 1] != ']') return fail(b, "expected c[bank][offset], got '%.*s'", (int)n, s);
  int64_t vb, vo;
  if (!parse_u64(buf + 2, (size_t)(close1 - buf - 2), &vb) || !parse_u64(close1 + 2, (size_t)(buf + k - 1 - close1 - 2), &vo))
    return fail(b, "expected c[bank][offset] with numbers, got '%.*s'", (int)n, s);
  if (vb < 0 || vb > 17) return fail(b, "constant bank %" PRId64 " is not 0-17", vb);
  if (vo < 0 || vo > 0xFFFC || vo % 4) return fail(b, "constant offset %" PRId64 " is not a multiple of 4 in 0-0xfffc", vo);
  *bank = (unsigned)vb;
  *byte = (unsigned)vo;
  return 1;
}

/* [Ra+off] (also [Ra-off], [off], [Ra]) inside s..s+n: 1, 0 (not one), -1. */
static int parse_index(build *b, const char *s, size_t n, unsigned *reg, int64_t *off) {
  char buf[64];
  size_t k = 0;
  for (size_t i = 0; i < n && k + 1 < sizeof buf; i++)
    if (!isspace((unsigned char)s[i])) buf[k++] = s[i];
  buf[k] = 0;
  *reg = SASS_RZ;
  *off = 0;
  char *pm = NULL;
  for (char *q = buf + 1; *q; q++)
    if (*q == '+' || *q == '-') {
      pm = q;
      break;
    }
  const char *num = buf;
  if (parse_reg(buf, pm ? (size_t)(pm - buf) : k, reg)) {
    if (!pm) return 1;
    num = pm[0] == '+' ? pm + 1 : pm;
  }
  if (!parse_u64(num, strlen(num), off)) return fail(b, "expected a register and/or an offset, got '%.*s'", (int)n, s);
  return 1;
}

/* The immediate form's value: 1, 0 (not a number), -1 (bad value). */
static int put_imm(build *b, const parts *p) {
  const sass_row *r = b->r;
  const char *s = p->core;
  size_t n = p->ncore;
  if (r->form == SASS_FORM_IMM32) {
    if (r->flags & SASS_R_FIMM) {
      uint32_t f;
      int k = parse_float(s, n, &f);
      if (k < 0) return fail(b, "'%.*s' is out of range for a 32-bit float", (int)n, s);
      if (!k) return 0;
      return fbits(b, &sass_f_imm32, f, "the immediate") < 0 ? -1 : 1;
    }
    int64_t v;
    if (!parse_u64(s, n, &v)) return 0;
    if (v < -(int64_t)0x80000000 || v > 0xFFFFFFFF) return fail(b, "%.*s does not fit 32 bits", (int)n, s);
    return fbits(b, &sass_f_imm32, (uint32_t)v, "the immediate") < 0 ? -1 : 1;
  }
  if (r->flags & SASS_R_U16) {
    int64_t v;
    if (!parse_u64(s, n, &v)) return 0;
    if (v < 0 || v > 0xFFFF) return fail(b, "%.*s is not a 16-bit unsigned immediate (0-0xffff)", (int)n, s);
    return fbits(b, &sass_f_imm16, (uint32_t)v, "the immediate") < 0 ? -1 : 1;
  }
  uint32_t v20;
  if (r->flags & SASS_R_FIMM) {
    uint32_t f;
    int k = parse_float(s, n, &f);
    if (k < 0) return fail(b, "'%.*s' is out of range for a 32-bit float", (int)n, s);
    if (!k) return 0;
    if (f & 0xFFF)
      return fail(b, "%.*s (0x%08x) needs its low 12 mantissa bits zero in %s's 20-bit immediate; use the 32I form",
                  (int)n, s, f, r->name);
    v20 = f >> 12;
  } else {
    int64_t v;
    if (!parse_u64(s, n, &v)) return 0;
    if (v < -0x80000 || v > 0x7FFFF) return fail(b, "%.*s does not fit %s's 20-bit signed immediate (-0x80000..0x7ffff)", (int)n, s, r->name);
    v20 = (uint32_t)v & 0xFFFFF;
  }
  return fbits(b, &sass_f_imm20, v20, "the immediate") < 0 ? -1 : 1;
}

static const char *kind_text(const sass_row *r, const sass_opnd *o) {
  switch (o->kind) {
  case SASS_O_R: return "a register (R0-R254 or RZ)";
  case SASS_O_P: return "a predicate (P0-P6 or PT, ! to negate)";
  case SASS_O_B:
    switch (r->form) {
    case SASS_FORM_REG: case SASS_FORM_RC: return "a register";
    case SASS_FORM_CBUF: case SASS_FORM_CR: return "a constant c[bank][offset]";
    case SASS_FORM_IMM: case SASS_FORM_IMM32: return r->flags & SASS_R_FIMM ? "a float immediate" : "an integer immediate";
    }
    return "an operand";
  case SASS_O_C: return r->form == SASS_FORM_RC ? "a constant c[bank][offset]" : "a register";
  case SASS_O_IMM: return "a number";
  case SASS_O_NAME: return "a name";
  case SASS_O_SREG: return "a system register (SR_...)";
  case SASS_O_ATTR: return "an attribute a[Ra+offset] or a[offset]";
  case SASS_O_CX: return "a constant c[bank][Ra+offset]";
  case SASS_O_LMEM: return "a local address [Ra+offset]";
  case SASS_O_TARGET: return "a branch target (a label or a code offset)";
  case SASS_O_FLOW: return "a flow test CC.xx";
  case SASS_O_RI: return "a register or a number";
  case SASS_O_SBSET: return "a scoreboard set {0,1,...}";
  case SASS_O_TMASK: return "a component mask (R, RG, RGBA, ...)";
  case SASS_O_TDIM: return "a texture target (1D, 2D, ARRAY_2D, 3D, CUBE)";
  case SASS_O_ZERO: return "0x0";
  }
  return "an operand";
}

static int set_reg(build *b, const sass_opnd *o, unsigned reg) {
  return bits(b, o->pos, 8, reg, "this register");
}

/* Parses token t as operand o: 1, 0 (does not look like one), -1 (error). */
static int operand(build *b, actx *a, const sass_opnd *o, const tok *t, uint32_t pc) {
  const sass_row *r = b->r;
  const char *s = t->s;
  size_t n = t->n;
  unsigned reg, p, neg;
  int64_t v;
  /* reuse bits: operand A (the ra slot), B, C */
  const unsigned reuse_of_slot[] = {0, 0, 1u << sass_c_reuse.pos, 2u << sass_c_reuse.pos, 4u << sass_c_reuse.pos};
  switch (o->kind) {
  case SASS_O_R: {
    parts pp;
    if (!split_mods(t, &pp) || !parse_reg(pp.core, pp.ncore, &reg)) return 0;
    if (apply_mods(b, o, &pp, reuse_of_slot[o->slot], "this register") < 0 || set_reg(b, o, reg) < 0) return -1;
    return 1;
  }
  case SASS_O_P:
    if (!parse_pred(s, n, &p, &neg)) return 0;
    if (neg && !o->neg) return fail(b, "this predicate of %s cannot be negated", r->name);
    if (setf(b, o->f, p, "the predicate") < 0 || (o->neg && setf(b, o->neg, neg, "!") < 0)) return -1;
    return 1;
  case SASS_O_B: case SASS_O_C: {
    parts pp;
    if (!split_mods(t, &pp)) return 0;
    int is_b = o->kind == SASS_O_B;
    unsigned form = r->form;
    int k;
    if (is_b && (form == SASS_FORM_IMM || form == SASS_FORM_IMM32)) {
      if (pp.paren && !pp.neg) return 0;
      k = put_imm(b, &pp);
    } else if (is_b ? (form == SASS_FORM_CBUF || form == SASS_FORM_CR) : form == SASS_FORM_RC) {
      unsigned bank = 0, byte = 0;
      k = parse_cbuf(b, pp.core, pp.ncore, &bank, &byte);
      if (k > 0) k = put_cbuf_bits(b, bank, byte);
    } else {
      k = parse_reg(pp.core, pp.ncore, &reg);
      if (k) k = fbits(b, is_b && form != SASS_FORM_RC ? &sass_f_rb : &sass_f_rc, reg, "this register") < 0 ? -1 : 1;
    }
    if (k <= 0) return k;
    return apply_mods(b, o, &pp, reuse_of_slot[is_b ? SASS_SLOT_RB : SASS_SLOT_RC], is_b ? "operand B" : "operand C") < 0
               ? -1
               : 1;
  }
  case SASS_O_IMM: {
    if (!parse_u64(s, n, &v)) return 0;
    const sass_field *f = &r->fld[o->f - 1];
    int64_t lo = (f->flags & SASS_F_SIGNED) ? -((int64_t)1 << (f->width - 1)) : 0;
    int64_t hi = (f->flags & SASS_F_SIGNED) ? ((int64_t)1 << (f->width - 1)) - 1 : ((int64_t)1 << f->width) - 1;
    if (v < lo || v > hi) return fail(b, "%.*s is out of range (%" PRId64 "..%" PRId64 ")", (int)n, s, lo, hi);
    return setf(b, o->f, (uint32_t)v & (uint32_t)(((uint64_t)1 << f->width) - 1), "the number") < 0 ? -1 : 1;
  }
  case SASS_O_NAME: {
    const sass_field *f = &r->fld[o->f - 1];
    const char *nm;
    size_t nl;
    for (unsigned x = 0; x < (1u << (f->width + f->width2)); x++)
      if (sass_name(f->names, x, &nm, &nl) && nl && nl == n && iprefix(s, n, nm, nl))
        return setf(b, o->f, x, "the name") < 0 ? -1 : 1;
    return 0;
  }
  case SASS_O_SREG:
    for (unsigned x = 0; x < 256; x++) {
      const char *nm = sass_sr_name(x);
      if (nm && ieq(s, n, nm)) return setf(b, o->f, x, "the register") < 0 ? -1 : 1;
    }
    if (n > 3 && iprefix(s, n, "SR_", 3) && parse_u64(s + 3, n - 3, &v) && v >= 0 && v < 256)
      return setf(b, o->f, (uint32_t)v, "the register") < 0 ? -1 : 1;
    return 0;
  case SASS_O_ATTR: {
    if (n < 3 || toupper((unsigned char)s[0]) != 'A' || s[1] != '[' || s[n - 1] != ']') return 0;
    if (parse_index(b, s + 2, n - 3, &reg, &v) < 0) return -1;
    const sass_field *f = &r->fld[o->f - 1];
    if (v < 0 || v >= ((int64_t)1 << f->width)) return fail(b, "attribute offset %" PRId64 " is not 0-0x%x", v, (1u << f->width) - 1);
    if (set_reg(b, o, reg) < 0 || setf(b, o->f, (uint32_t)v, "the offset") < 0) return -1;
    return 1;
  }
  case SASS_O_CX: case SASS_O_LMEM: {
    const char *q = s;
    size_t m = n;
    if (o->kind == SASS_O_CX) { /* c[bank] first */
      if (n < 4 || toupper((unsigned char)s[0]) != 'C' || s[1] != '[') return 0;
      const char *c1 = memchr(s, ']', n);
      if (!c1 || !parse_u64(s + 2, (size_t)(c1 - s - 2), &v)) return fail(b, "expected c[bank][Ra+offset], got '%.*s'", (int)n, s);
      if (v < 0 || v > 17) return fail(b, "constant bank %" PRId64 " is not 0-17", v);
      if (setf(b, o->f, (uint32_t)v, "the bank") < 0) return -1;
      q = c1 + 1;
      while (q < s + n && isspace((unsigned char)*q)) q++;
      m = (size_t)(s + n - q);
    }
    if (m < 2 || q[0] != '[' || q[m - 1] != ']') return 0;
    if (parse_index(b, q + 1, m - 2, &reg, &v) < 0) return -1;
    const sass_field *f = &r->fld[(o->kind == SASS_O_CX ? o->f2 : o->f) - 1];
    int64_t lim = (int64_t)1 << (f->width - 1);
    if (v < -lim || v >= lim) return fail(b, "offset %" PRId64 " does not fit %u signed bits", v, f->width);
    if (set_reg(b, o, reg) < 0 ||
        setf(b, o->kind == SASS_O_CX ? o->f2 : o->f, (uint32_t)v & (uint32_t)((1ull << f->width) - 1), "the offset") < 0)
      return -1;
    return 1;
  }
  case SASS_O_TARGET: {
    int64_t target;
    if (!parse_u64(s, n, &target)) {
      size_t i;
      for (i = 0; i < a->nlabels; i++)
        if (a->labels[i].len == n && !memcmp(a->labels[i].name, s, n)) break;
      if (i == a->nlabels) {
        if (n && (isalpha((unsigned char)s[0]) || s[0] == '_' || s[0] == '.'))
          return fail(b, "undefined label '%.*s'", (int)n, s);
        return 0;
      }
      target = a->labels[i].off;
    }
    int64_t off = target - ((int64_t)pc + 8);
    const sass_field *f = &r->fld[o->f - 1];
    int64_t lim = (int64_t)1 << (f->width - 1);
    if (off < -lim || off >= lim) return fail(b, "branch target 0x%" PRIx64 " is out of reach", (uint64_t)target);
    return setf(b, o->f, (uint32_t)off & (uint32_t)((1ull << f->width) - 1), "the target") < 0 ? -1 : 1;
  }
  case SASS_O_FLOW:
    if (n < 4 || !iprefix(s, n, "CC.", 3)) return 0;
    for (unsigned x = 0; x < 32; x++) {
      const char *nm = x == 15 ? "T" : sass_flow_name(x);
      if (nm && ieq(s + 3, n - 3, nm)) return setf(b, o->f, x, "the flow test") < 0 ? -1 : 1;
    }
    return fail(b, "unknown flow test '%.*s'", (int)n, s);
  case SASS_O_RI:
    if (parse_reg(s, n, &reg)) {
      if (setf(b, o->f2, 0, "") < 0 || set_reg(b, o, reg) < 0) return -1;
      b->set[o->f - 1] = 3; /* its bits hold the register */
      return 1;
    }
    if (!parse_u64(s, n, &v)) return 0;
    {
      const sass_field *f = &r->fld[o->f - 1];
      if (v < 0 || v >= ((int64_t)1 << f->width)) return fail(b, "%.*s does not fit %u bits", (int)n, s, f->width);
      if (setf(b, o->f2, 1, "") < 0 || setf(b, o->f, (uint32_t)v, "the number") < 0) return -1;
    }
    return 1;
  case SASS_O_SBSET: {
    if (n < 2 || s[0] != '{' || s[n - 1] != '}') return 0;
    uint32_t m = 0;
    for (size_t i = 1; i + 1 < n; i++) {
      if (isspace((unsigned char)s[i]) || s[i] == ',') continue;
      if (s[i] < '0' || s[i] > '5') return fail(b, "expected scoreboards 0-5 in '%.*s'", (int)n, s);
      m |= 1u << (s[i] - '0');
    }
    return setf(b, o->f, m, "the set") < 0 ? -1 : 1;
  }
  case SASS_O_TMASK: {
    static const char *const two[] = {"R", "G", "B", "A", "RG", "RA", "GA", "BA"};
    static const char *const four[] = {"RGB", "RGA", "RBA", "GBA", "RGBA"};
    int rz = ((b->w >> o->pos) & 0xFF) == SASS_RZ;
    for (unsigned x = 0; x < (rz ? 8u : 5u); x++)
      if (ieq(s, n, rz ? two[x] : four[x])) return setf(b, o->f, x, "the mask") < 0 ? -1 : 1;
    return fail(b, "'%.*s' is not a component mask %s", (int)n, s,
                rz ? "for one destination register (R G B A RG RA GA BA)" : "for two destination registers (RGB RGA RBA GBA RGBA)");
  }
  case SASS_O_TDIM: {
    const sass_field *f = &r->fld[o->f - 1];
    const char *nm;
    size_t nl;
    for (unsigned x = 0; x < (1u << f->width); x++) {
      if (!sass_name(f->names, x, &nm, &nl)) continue;
      const char *colon = memchr(nm, ':', nl);
      size_t ns = (size_t)(colon - nm);
      if (ns == b->nsplit && iprefix(nm, ns, b->split ? b->split : "", ns) && n &&
          nl - ns - 1 == n && iprefix(s, n, colon + 1, n))
        return setf(b, o->f, x, "the target") < 0 ? -1 : 1;
    }
    return fail(b, "%s has no target '%.*s' with modifiers '%.*s'", r->name, (int)n, s, (int)b->nsplit,
                b->split ? b->split : "");
  }
  case SASS_O_ZERO:
    if (!parse_u64(s, n, &v)) return 0;
    if (v) return fail(b, "%s's texture index is 0x0 (the handle is in Rb)", r->name);
    return 1;
  }
  return 0;
}

/* The modifiers after the row's name: any order; each taken by the first
 * field (in printing order) that knows it. */
static int modifiers(build *b, const char *s, size_t n) {
  const sass_row *r = b->r;
  const char *e = s + n;
  while (s < e) {
    if (*s != '.') return fail(b, "expected '.' before a modifier of %s", r->name);
    const char *m = s + 1;
    size_t rest = (size_t)(e - m);
    int best_k = -1;
    unsigned best_v = 0;
    size_t best_len = 0;
    for (unsigned k = 0; k < SASS_MOD_MAX && best_k < 0; k++) {
      const sass_field *f = &r->fld[k];
      if (b->set[k] || (f->print != SASS_P_FLAG && f->print != SASS_P_ENUM)) continue;
      if (f->print == SASS_P_FLAG) {
        size_t nl = strlen(f->names);
        if (iprefix(m, rest, f->names, nl) && (nl == rest || m[nl] == '.')) best_k = (int)k, best_v = 1, best_len = nl;
        continue;
      }
      for (unsigned v = 0; v < (1u << (f->width + f->width2)); v++) {
        const char *nm;
        size_t nl;
        if (!sass_name(f->names, v, &nm, &nl)) continue;
        const char *colon = memchr(nm, ':', nl);
        if (colon) nl = (size_t)(colon - nm);
        if (nl && nl > best_len && iprefix(m, rest, nm, nl) && (nl == rest || m[nl] == '.'))
          best_k = (int)k, best_v = v, best_len = nl;
      }
    }
    if (best_k < 0) {
      size_t len = strcspn(m, ".");
      if (len > rest) len = rest;
      return fail(b, "%s takes no modifier '.%.*s'", r->name, (int)len, m);
    }
    const sass_field *f = &r->fld[best_k];
    if (f->names && strchr(f->names, ':')) { /* resolved with the dimension operand */
      b->split = m;
      b->nsplit = best_len;
      b->set[best_k] = 2;
    } else {
      b->val[best_k] = best_v;
      b->set[best_k] = 1;
    }
    s = m + best_len;
  }
  return 0;
}

/* Encodes statement tokens as row r; 0 and b->w, or -1 and b->err. */
static int encode_row(actx *a, build *b, const sass_row *r, const char *sfx, size_t nsfx, const tok *t, size_t nt,
                      unsigned guard, unsigned gneg, uint32_t pc) {
  memset(b, 0, sizeof *b);
  b->r = r;
  b->w = (uint64_t)r->key << SASS_KEY_POS;
  b->written = (uint64_t)r->mask << SASS_KEY_POS;
  if (modifiers(b, sfx, nsfx) < 0) return -1;
  b->score = 2;
  if (r->flags & SASS_R_NOGUARD) {
    if (guard != SASS_PT || gneg) return fail(b, "%s takes no guard predicate", r->name);
  } else if (fbits(b, &sass_f_guard, guard, "the guard") < 0 || fbits(b, &sass_f_guard_neg, gneg, "the guard") < 0) {
    return -1;
  }
  size_t ti = 0;
  for (unsigned k = 0; k < SASS_OPND_MAX && r->opnd[k].kind; k++) {
    const sass_opnd *o = &r->opnd[k];
    int got = ti < nt ? operand(b, a, o, &t[ti], pc) : 0;
    if (got < 0) {
      b->score += 1;
      snprintf(b->err + strlen(b->err), sizeof b->err - strlen(b->err), "@%u", t[ti].col);
      return -1;
    }
    if (got > 0) {
      ti++;
      b->score += 2;
      continue;
    }
    if (!(o->flags & SASS_OF_OPT)) {
      if (ti < nt)
        fail(b, "expected %s as operand %zu of %s, got '%.*s'@%u", kind_text(r, o), ti + 1, r->name, (int)t[ti].n,
             t[ti].s, t[ti].col);
      else
        fail(b, "expected %s as operand %zu of %s", kind_text(r, o), ti + 1, r->name);
      return -1;
    }
    if (o->kind == SASS_O_R && bits(b, o->pos, 8, SASS_RZ, "this register") < 0) return -1;
  }
  if (ti < nt) return fail(b, "%s takes %zu operands; '%.*s' is one too many@%u", r->name, ti, (int)t[ti].n, t[ti].s, t[ti].col);
  /* fields: the given values, else their defaults */
  for (unsigned k = 0; k < SASS_MOD_MAX; k++) {
    const sass_field *f = &r->fld[k];
    if (!f->print || b->set[k] == 3) continue;
    uint32_t v = b->val[k];
    if (b->set[k] == 2) return fail(b, "%s's modifiers need a target operand", r->name);
    if (!b->set[k]) {
      v = f->def;
      const char *nm;
      size_t nl;
      if (f->print == SASS_P_ENUM)
        for (unsigned x = 0; x < (1u << (f->width + f->width2)); x++)
          if (sass_name(f->names, x, &nm, &nl) && (nl == 0 || (nm[0] == ':'))) {
            if (!nl) v = x;
            break;
          }
      if (f->print == SASS_P_FLAG) v = 0;
    }
    if (bits(b, f->pos, f->width, v & ((1u << f->width) - 1), "a field") < 0) return -1;
    if (f->width2 && bits(b, f->pos2, f->width2, v >> f->width, "a field") < 0) return -1;
  }
  return 0;
}

/* ---- statements to words ------------------------------------------------------ */

static int split_tokens(const char *s, const char *e, const char *bol, tok *t, size_t max, size_t *nt) {
  size_t n = 0;
  while (s < e) {
    while (s < e && isspace((unsigned char)*s)) s++;
    if (s >= e) break;
    const char *st = s;
    int depth = 0;
    while (s < e && (depth > 0 || *s != ',')) {
      if (*s == '[' || *s == '{' || *s == '(') depth++;
      else if (*s == ']' || *s == '}' || *s == ')') depth--;
      s++;
    }
    const char *en = s;
    while (en > st && isspace((unsigned char)en[-1])) en--;
    if (n == max) return -1;
    t[n++] = (tok){st, (size_t)(en - st), (unsigned)(st - bol) + 1};
    if (s < e) {
      s++; /* the comma */
      const char *q = s;
      while (q < e && isspace((unsigned char)*q)) q++;
      if (q >= e) return -2; /* a trailing comma */
    }
  }
  *nt = n;
  return 0;
}

static int encode_stmt(actx *a, const stmt *st, uint32_t pc, uint64_t *w, uint32_t *ctrl) {
  const char *s = st->text, *e = st->end;
  unsigned guard = SASS_PT, gneg = 0;
  if (*s == '@') {
    const char *g = s + 1;
    while (s < e && !isspace((unsigned char)*s)) s++;
    if (!parse_pred(g, (size_t)(s - g), &guard, &gneg))
      return err_at(a, st->line, st->col, "expected a guard predicate (@P0-@P6, @PT, @!P0...), got '%.*s'", (int)(s - st->text),
                    st->text);
    while (s < e && isspace((unsigned char)*s)) s++;
  }
  const char *mn = s;
  while (s < e && !isspace((unsigned char)*s)) s++;
  size_t nmn = (size_t)(s - mn);
  unsigned mcol = (unsigned)(mn - st->bol) + 1;
  if (ieq(mn, nmn, ".inst")) {
    tok t[2];
    size_t nt;
    char buf[24];
    if (split_tokens(s, e, st->bol, t, 2, &nt) < 0 || nt != 1 || t[0].n < 3 || t[0].n > 18 || t[0].s[0] != '0' ||
        toupper((unsigned char)t[0].s[1]) != 'X')
      return err_at(a, st->line, mcol, "expected .inst 0x<64-bit word in hex>");
    memcpy(buf, t[0].s, t[0].n);
    buf[t[0].n] = 0;
    char *endp;
    unsigned long long u = strtoull(buf, &endp, 16);
    if (*endp) return err_at(a, st->line, t[0].col, "expected a hex word, got '%s'", buf);
    *w = u;
    int ri = sass_row_of(u);
    *ctrl = st->has_sched ? st->sched : sass_sched_default(ri >= 0 ? &sass_table[ri] : NULL);
    return GS_OK;
  }
  tok t[SASS_OPND_MAX + 2];
  size_t nt;
  int sp = split_tokens(s, e, st->bol, t, SASS_OPND_MAX + 1, &nt);
  if (sp == -1) return err_at(a, st->line, mcol, "too many operands");
  if (sp == -2) return err_at(a, st->line, (unsigned)(e - st->bol) + 1, "expected an operand after ','");
  build best, cur;
  int have = 0, found = 0;
  for (unsigned i = 0; i < sass_table_len; i++) {
    const sass_row *r = &sass_table[i];
    size_t nl = strlen(r->name);
    if (!iprefix(mn, nmn, r->name, nl) || (nl < nmn && mn[nl] != '.')) continue;
    /* a longer row name ("TEX.B") is tried through its own row */
    found = 1;
    if (encode_row(a, &cur, r, mn + nl, nmn - nl, t, nt, guard, gneg, pc) == 0) {
      sass_insn in;
      gs_diag dd;
      if (sass_decode(cur.w, 0, pc, &in, &dd) < 0) { /* a combination the decoder refuses */
        const char *why = strstr(dd.msg, ": ");
        why = why ? strstr(why + 2, ": ") : NULL;
        return err_at(a, st->line, mcol, "%s", why ? why + 2 : dd.msg);
      }
      *w = cur.w;
      *ctrl = st->has_sched ? st->sched : (sass_sched_default(r) | cur.reuse);
      return GS_OK;
    }
    if (!have || cur.score > best.score) best = cur, have = 1;
  }
  if (!found) {
    char name[32];
    size_t k = strcspn(mn, ". \t");
    if (k > nmn) k = nmn;
    snprintf(name, sizeof name, "%.*s", (int)(k < 31 ? k : 31), mn);
    for (char *c = name; *c; c++) *c = (char)toupper((unsigned char)*c);
    static const char *const known[] = {"CAL", "RET", "PCNT", "CONT", "JCAL", "JMP", "BRX", "JMX", "PRET", "PEXIT",
                                        "LONGJMP", "PLONGJMP", "TLD4", "TLD4S", "TXQ", "TMML", "TXD", "LDS", "STS",
                                        "LDG", "STG", "LD", "ST", "ATOM", "ATOMS", "RED", "SHFL", "VOTE", "DADD",
                                        "DMUL", "DFMA", "DSETP", "DSET", "DMNMX", "IMAD", "SHF", "PRMT", "LEA",
                                        "CSETP", "CSET", "VMNMX", "VADD", "HADD2", "HMUL2", "HFMA2", "FCHK", "CCTL",
                                        "SULD", "SUST", "PIXLD"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
      if (!strcmp(name, known[i])) return err_at(a, st->line, mcol, "%s is not supported by gpusim", name);
    return err_at(a, st->line, mcol, "unknown instruction '%.*s' (expected a Maxwell mnemonic gpusim runs)", (int)nmn, mn);
  }
  /* the message may end in "@col" */
  char *at = strrchr(best.err, '@');
  unsigned col = mcol;
  if (at && isdigit((unsigned char)at[1])) {
    col = (unsigned)strtoul(at + 1, NULL, 10);
    *at = 0;
  }
  return err_at(a, st->line, col, "%s", best.err);
}

/* ---- the source ------------------------------------------------------------------ */

static int add_label(actx *a, const char *name, size_t len, uint32_t off, unsigned line, unsigned col) {
  for (size_t i = 0; i < a->nlabels; i++)
    if (a->labels[i].len == len && !memcmp(a->labels[i].name, name, len))
      return err_at(a, line, col, "label '%.*s' is already defined on line %u", (int)len, name, a->labels[i].line);
  if (a->nlabels == a->caplabels) {
    size_t c = a->caplabels ? 2 * a->caplabels : 16;
    label *l = realloc(a->labels, c * sizeof *l);
    if (!l) return gs_diag_set(a->d, GS_ENOMEM, "out of memory");
    a->labels = l;
    a->caplabels = c;
  }
  a->labels[a->nlabels++] = (label){name, len, off, line};
  return GS_OK;
}

static uint32_t insn_offset(size_t k) { return (uint32_t)(32 * (k / 3) + 8 + 8 * (k % 3)); }

int sass_asm(const char *src, const char *file, gs_isa_binary *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  actx a = {file ? file : "<input>", d, NULL, 0, 0};
  size_t len = strlen(src);
  char *clean = malloc(len + 1);
  /* per line: a scheduling annotation */
  size_t nlines = 1;
  for (size_t i = 0; i < len; i++) nlines += src[i] == '\n';
  uint32_t *sched = calloc(nlines + 1, sizeof *sched);
  uint8_t *has = calloc(nlines + 1, 1);
  stmt *st = malloc((nlines + 1) * sizeof *st);
  int rc = GS_OK;
  size_t nst = 0;
  uint64_t *words = NULL;
  uint32_t *ctrls = NULL;
  if (!clean || !sched || !has || !st) {
    rc = gs_diag_set(d, GS_ENOMEM, "out of memory");
    goto done;
  }
  /* comments become spaces; annotations are noted on their line */
  {
    unsigned line = 1;
    size_t bol = 0;
    for (size_t i = 0; i < len;) {
      char c = src[i];
      if (c == '\n') {
        clean[i++] = '\n';
        line++;
        bol = i;
        continue;
      }
      int lc = c == '#' || (c == '/' && src[i + 1] == '/');
      int bc = c == '/' && src[i + 1] == '*';
      if (!lc && !bc) {
        clean[i] = c;
        i++;
        continue;
      }
      unsigned cline = line;
      size_t st0 = i, en;
      if (lc) {
        en = i;
        while (en < len && src[en] != '\n') en++;
      } else {
        const char *close = strstr(src + i + 2, "*/");
        if (!close) {
          rc = err_at(&a, line, (unsigned)(i - bol) + 1, "comment '/*' is not closed");
          goto done;
        }
        en = (size_t)(close - src) + 2;
      }
      for (size_t k = st0; k < en; k++) {
        uint32_t cv;
        const char *bad = NULL;
        int ps = src[k] == '[' ? parse_sched(src + k, src + en, &cv, &bad) : 0;
        if (ps < 0) {
          rc = err_at(&a, cline, (unsigned)(k - bol) + 1,
                      "malformed scheduling annotation (expected [B------:R-:W-:-:S00:U0], see docs/sass.md)");
          goto done;
        }
        if (ps > 0) {
          if (has[cline]) {
            rc = err_at(&a, cline, (unsigned)(k - bol) + 1, "a second scheduling annotation on one line");
            goto done;
          }
          has[cline] = 1;
          sched[cline] = cv;
        }
      }
      for (; i < en; i++) {
        clean[i] = src[i] == '\n' ? '\n' : ' ';
        if (src[i] == '\n') line++, bol = i + 1;
      }
    }
    clean[len] = 0;
  }
  /* statements and labels */
  {
    unsigned line = 1;
    for (const char *p = clean; *p; line++) {
      const char *eol = strchr(p, '\n');
      if (!eol) eol = p + strlen(p);
      const char *s = p;
      for (;;) {
        while (s < eol && (isspace((unsigned char)*s) || *s == '{' || *s == '}')) s++;
        if (s >= eol) break;
        /* a label? */
        const char *q = s;
        while (q < eol && (isalnum((unsigned char)*q) || *q == '_' || *q == '.' || *q == '$')) q++;
        if (q > s && q < eol && *q == ':' && !isdigit((unsigned char)*s)) {
          if ((rc = add_label(&a, s, (size_t)(q - s), insn_offset(nst), line, (unsigned)(s - p) + 1)) < 0) goto done;
          s = q + 1;
          continue;
        }
        const char *semi = memchr(s, ';', (size_t)(eol - s));
        const char *end = semi ? semi : eol;
        /* a closing '}' of a dual-issue pair (not of a {0,1} operand) */
        int depth = 0;
        for (const char *c = s; c < end; c++) depth += (*c == '{') - (*c == '}');
        while (end > s && (isspace((unsigned char)end[-1]) || (end[-1] == '}' && depth < 0)))
          depth += *--end == '}';
        st[nst++] = (stmt){line, (unsigned)(s - p) + 1, s, end, p, has[line], sched[line]};
        if (semi) {
          const char *r = semi + 1;
          while (r < eol && (isspace((unsigned char)*r) || *r == '{' || *r == '}')) r++;
          if (r < eol) {
            rc = err_at(&a, line, (unsigned)(r - p) + 1, "expected the end of the line after ';'");
            goto done;
          }
        }
        break;
      }
      p = *eol ? eol + 1 : eol;
    }
  }
  {
    size_t ngroups = (nst + 2) / 3, n = ngroups * 3;
    words = malloc((n ? n : 1) * sizeof *words);
    ctrls = malloc((n ? n : 1) * sizeof *ctrls);
    out->lines = malloc((nst ? nst : 1) * sizeof *out->lines);
    out->bytes = malloc(ngroups ? ngroups * 32 : 1);
    if (!words || !ctrls || !out->lines || !out->bytes) {
      rc = gs_diag_set(d, GS_ENOMEM, "out of memory");
      goto done;
    }
    for (size_t k = 0; k < n; k++) {
      if (k < nst) {
        if ((rc = encode_stmt(&a, &st[k], insn_offset(k), &words[k], &ctrls[k])) < 0) goto done;
        out->lines[k] = (gs_isa_line){insn_offset(k), st[k].line};
      } else {
        words[k] = SASS_NOP_WORD;
        ctrls[k] = SASS_NOP_CTRL;
      }
    }
    for (size_t g = 0; g < ngroups; g++) {
      uint64_t v[4] = {(uint64_t)ctrls[3 * g] | (uint64_t)ctrls[3 * g + 1] << SASS_CTRL_BITS |
                           (uint64_t)ctrls[3 * g + 2] << 2 * SASS_CTRL_BITS,
                       words[3 * g], words[3 * g + 1], words[3 * g + 2]};
      gs_put_le64s(out->bytes + 32 * g, v, 4);
    }
    out->size = ngroups * 32;
    out->nlines = nst;
  }
done:
  if (rc < 0) gs_isa_binary_free(out);
  free(words);
  free(ctrls);
  free(clean);
  free(sched);
  free(has);
  free(st);
  free(a.labels);
  return rc;
}
