/* asm.c — AGX assembly text to instruction bytes: Mesa's disassembler
 * syntax (what disasm.c prints), with applegpu's spellings accepted
 * (fadd32, fmadd16, mov_imm, get_sr, icmpsel/fcmpsel with the condition
 * first, if_icmp r0l, ..., push_exec, jmp_exec_any, wait 0|1, ...).
 * Labels ("name:"), comments ("//", "#"), ";" between statements. The
 * shortest encoding unless the mnemonic has the suffix ".long". Every
 * error names file:line:column. docs/agx.md, "Text". */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/agx/table.h"

#define MAXTOK 16

typedef enum { T_OPND, T_INT, T_FLOAT, T_WORD } tkind;

typedef struct tok {
  tkind k;
  unsigned col;
  agx_opnd o;    /* T_OPND */
  long long i;   /* T_INT */
  double f;      /* T_FLOAT */
  int fneg;      /* T_FLOAT: written with a minus sign */
  uint8_t abs, neg, sx; /* T_INT, T_FLOAT: modifier suffixes */
  char w[48];    /* T_WORD (lower case), also the text of every token */
} tok;

typedef struct ctx {
  const char *file;
  unsigned line;
  gs_diag *d;
  int err;
} ctx;

static int errat(ctx *c, unsigned col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int errat(ctx *c, unsigned col, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!c->err) gs_diag_set(c->d, GS_EASM, "%s:%u:%u: %s", c->file, c->line, col, msg);
  c->err = 1;
  return -1;
}

/* ---- operands ------------------------------------------------------------------- */

/* One element of a register run: r5l r5h r5 dr4 (u likewise). */
static int parse_elem(const char *s, size_t n, char *cls, unsigned *half, unsigned *bits) {
  size_t i = 0;
  int dbl = 0;
  if (i < n && s[i] == 'd') dbl = 1, i++;
  if (i >= n || (s[i] != 'r' && s[i] != 'u')) return 0;
  *cls = s[i++];
  if (i >= n || !isdigit((unsigned char)s[i])) return 0;
  unsigned v = 0;
  while (i < n && isdigit((unsigned char)s[i])) {
    v = v * 10 + (unsigned)(s[i++] - '0');
    if (v > 100000) return 0;
  }
  if (dbl) {
    if (i != n) return 0;
    *half = 2 * v, *bits = 64;
    return 1;
  }
  if (i == n) {
    *half = 2 * v, *bits = 32;
    return 1;
  }
  if (i + 1 == n && (s[i] == 'l' || s[i] == 'h')) {
    *half = 2 * v + (s[i] == 'h'), *bits = 16;
    return 1;
  }
  return 0;
}

/* A register/uniform run with its prefix hint and suffix modifiers;
 * 0 if s is not one, -1 on a malformed one. */
static int parse_regs(ctx *c, const char *s, unsigned col, agx_opnd *o) {
  memset(o, 0, sizeof *o);
  size_t n = strlen(s);
  if (n && (s[0] == '$' || s[0] == '^')) o->hint = s[0] == '$' ? AGX_HINT_CACHE : AGX_HINT_DISCARD, s++, n--;
  /* suffixes */
  const char *dot = strchr(s, '.');
  size_t body = dot ? (size_t)(dot - s) : n;
  unsigned count = 0, bits = 0, half0 = 0;
  char cls0 = 0;
  for (size_t i = 0; i < body;) {
    size_t j = i;
    while (j < body && s[j] != '_') j++;
    char cls;
    unsigned half, b;
    if (!parse_elem(s + i, j - i, &cls, &half, &b)) return 0; /* a word such as u32_to_f */
    if (count == 0) cls0 = cls, half0 = half, bits = b;
    else {
      unsigned step = bits == 16 ? 1 : bits / 16;
      if (cls != cls0 || b != bits || half != half0 + count * step)
        return errat(c, col, "'%s': a run is consecutive registers of one size", s);
    }
    count++;
    i = j + (j < body);
  }
  if (!count) return 0;
  if (count > 4) return errat(c, col, "'%s': at most 4 registers in a run", s);
  if (cls0 == 'r' && half0 + count * (bits == 16 ? 1 : bits / 16) > 256) return errat(c, col, "'%s': past r127", s);
  if (cls0 == 'u' && half0 + count * (bits == 16 ? 1 : bits / 16) > 512) return errat(c, col, "'%s': past u255", s);
  o->kind = cls0 == 'r' ? AGX_K_REG : AGX_K_UNIF, o->index = (uint16_t)half0, o->bits = (uint8_t)bits;
  o->count = (uint8_t)count;
  while (dot) {
    const char *m = dot + 1;
    dot = strchr(m, '.');
    size_t k = dot ? (size_t)(dot - m) : strlen(m);
    if (k == 3 && !strncmp(m, "abs", 3)) o->abs = 1;
    else if (k == 3 && !strncmp(m, "neg", 3)) o->neg = 1;
    else if (k == 2 && !strncmp(m, "sx", 2)) o->sx = 1;
    else if (k == 5 && !strncmp(m, "cache", 5)) o->hint = AGX_HINT_CACHE;
    else if (k == 7 && !strncmp(m, "discard", 7)) o->hint = AGX_HINT_DISCARD;
    else return errat(c, col, "'%s': unknown modifier '.%.*s'", s, (int)k, m);
  }
  if (o->kind == AGX_K_UNIF && o->hint) return errat(c, col, "'%s': a uniform takes no cache hint", s);
  return 1;
}

static int sr_by_name(const char *w) {
  for (unsigned i = 0; i < 256; i++)
    if (agx_sr_name(i) && !strcmp(agx_sr_name(i), w)) return (int)i;
  return -1;
}

/* Splits one operand's text into a token. */
static int parse_tok(ctx *c, const char *s, unsigned col, tok *t) {
  memset(t, 0, sizeof *t);
  t->col = col;
  snprintf(t->w, sizeof t->w, "%s", s);
  for (char *p = t->w; *p; p++) *p = (char)tolower((unsigned char)*p);
  const char *w = t->w;
  int r = parse_regs(c, w, col, &t->o);
  if (r < 0) return -1;
  if (r) {
    t->k = T_OPND;
    return 0;
  }
  unsigned v;
  char tail;
  if ((sscanf(w, "cf%u%c", &v, &tail) == 1 || sscanf(w, "ts%u%c", &v, &tail) == 1 ||
       sscanf(w, "ss%u%c", &v, &tail) == 1) && isdigit((unsigned char)w[2])) {
    if (v > 255) return errat(c, col, "'%s': index out of range", s);
    t->k = T_OPND, t->o.count = 1, t->o.index = (uint16_t)v;
    t->o.kind = w[0] == 'c' ? AGX_K_CF : w[0] == 't' ? AGX_K_TS : AGX_K_SS;
    return 0;
  }
  if (sscanf(w, "sr%u%c", &v, &tail) == 1 && isdigit((unsigned char)w[2])) {
    if (v > 255) return errat(c, col, "'%s': special register out of range", s);
    t->k = T_OPND, t->o.count = 1, t->o.kind = AGX_K_SR, t->o.index = (uint16_t)v;
    return 0;
  }
  if (isdigit((unsigned char)w[0]) || ((w[0] == '-' || w[0] == '+') && isdigit((unsigned char)w[1]))) {
    char *end;
    for (;;) { /* immediates take the source modifiers too: 1.0.neg */
      size_t k = strlen(t->w);
      if (k > 4 && !strcmp(t->w + k - 4, ".abs")) t->abs = 1, t->w[k - 4] = 0;
      else if (k > 4 && !strcmp(t->w + k - 4, ".neg")) t->neg = 1, t->w[k - 4] = 0;
      else if (k > 3 && !strcmp(t->w + k - 3, ".sx")) t->sx = 1, t->w[k - 3] = 0;
      else break;
    }
    errno = 0;
    int neg = w[0] == '-';
    const char *q = w + (w[0] == '-' || w[0] == '+');
    if (q[0] == '0' && q[1] == 'b') {
      unsigned long long x = 0;
      size_t i = 2;
      if (!q[i]) return errat(c, col, "'%s' is not a number", s);
      for (; q[i]; i++) {
        if (q[i] != '0' && q[i] != '1') return errat(c, col, "'%s' is not a number", s);
        x = x * 2 + (unsigned)(q[i] - '0');
        if (x > 0xffffffffull) return errat(c, col, "'%s' is out of range", s);
      }
      t->k = T_INT, t->i = neg ? -(long long)x : (long long)x;
      return 0;
    }
    unsigned long long x = strtoull(q, &end, 0);
    if (!*end && !errno) {
      if (x > 0xffffffffull) return errat(c, col, "'%s' is out of range", s);
      t->k = T_INT, t->i = neg ? -(long long)x : (long long)x;
      return 0;
    }
    double f = strtod(w, &end);
    if (*end || errno) {
      if (isdigit((unsigned char)w[0]) && strspn(w, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(w)) {
        t->k = T_WORD; /* 2d, 1d_array, ... */
        return 0;
      }
      return errat(c, col, "'%s' is not a number", s);
    }
    t->k = T_FLOAT, t->f = f, t->fneg = neg;
    return 0;
  }
  for (const char *p = w; *p; p++)
    if (!(isalnum((unsigned char)*p) || *p == '_' || *p == ' ' || *p == '+' || *p == '-'))
      return errat(c, col, "unexpected '%s'", s);
  t->k = T_WORD;
  return 0;
}

/* ---- statement helpers ------------------------------------------------------------ */

typedef struct stmt {
  ctx *c;
  const char *mn;   /* mnemonic as written (lower case) */
  unsigned mcol;
  tok t[MAXTOK];
  int n, pos;       /* operands, next to take */
} stmt;

static tok *take(stmt *s, const char *what) {
  if (s->pos >= s->n) {
    errat(s->c, s->mcol, "%s: missing %s", s->mn, what);
    return NULL;
  }
  return &s->t[s->pos++];
}

static tok *peek(stmt *s) { return s->pos < s->n ? &s->t[s->pos] : NULL; }

static int peek_word(stmt *s, const char *w) {
  tok *t = peek(s);
  if (t && t->k == T_WORD && !strcmp(t->w, w)) {
    s->pos++;
    return 1;
  }
  return 0;
}

static int done(stmt *s) {
  if (s->pos < s->n) return errat(s->c, s->t[s->pos].col, "%s: unexpected operand '%s'", s->mn, s->t[s->pos].w);
  return 0;
}

/* A 32-bit run of 2 (applegpu's r2_r3, u0_u1) as the 64-bit pair it names. */
static void as_pair(agx_opnd *o) {
  if ((o->kind == AGX_K_REG || o->kind == AGX_K_UNIF) && o->bits == 32 && o->count == 2) o->bits = 64, o->count = 1;
}

static int minifloat_code(double f, int neg) {
  for (unsigned code = 0; code < 256; code++) {
    float v = agx_minifloat(code);
    if ((double)v == f && (v != 0 || (!!(code & 0x80)) == neg)) return (int)code;
  }
  return -1;
}

/* An operand (register, uniform, immediate): float immediates for float
 * sources (minifloats), integers otherwise. */
static int opnd(stmt *s, agx_opnd *o, int fl, const char *what) {
  tok *t = take(s, what);
  if (!t) return -1;
  memset(o, 0, sizeof *o);
  o->count = 1;
  if (t->k == T_OPND) {
    *o = t->o;
    return 0;
  }
  if (t->k == T_INT || t->k == T_FLOAT) {
    o->abs = t->abs, o->neg = t->neg, o->sx = t->sx;
    if (fl) {
      double f = t->k == T_INT ? (double)t->i : t->f;
      int code = minifloat_code(f, t->k == T_FLOAT ? t->fneg : 0);
      if (code < 0) return errat(s->c, t->col, "%s: %s is not an 8-bit float immediate (0.015625 .. 31)", s->mn, t->w);
      o->kind = AGX_K_FIMM, o->value = (uint32_t)code;
      return 0;
    }
    if (t->k == T_FLOAT) return errat(s->c, t->col, "%s: %s needs an integer", s->mn, what);
    if (t->i < -2147483648ll || t->i > 0xffffffffll) return errat(s->c, t->col, "%s: %s out of range", s->mn, t->w);
    o->kind = AGX_K_IMM, o->value = (uint32_t)t->i; /* negative: memory indices */
    return 0;
  }
  /* a special register by name */
  int sr = sr_by_name(t->w);
  if (sr >= 0) {
    o->kind = AGX_K_SR, o->index = (uint16_t)sr;
    return 0;
  }
  return errat(s->c, t->col, "%s: '%s' is not a valid %s", s->mn, t->w, what);
}

static int integer(stmt *s, long long *v, long long lo, long long hi, const char *what) {
  tok *t = take(s, what);
  if (!t) return -1;
  if (t->k != T_INT) return errat(s->c, t->col, "%s: %s must be an integer, not '%s'", s->mn, what, t->w);
  if (t->i < lo || t->i > hi) return errat(s->c, t->col, "%s: %s %lld out of range %lld..%lld", s->mn, what, t->i, lo, hi);
  *v = t->i;
  return 0;
}

static int name_in(stmt *s, const char *(*fn)(unsigned), unsigned n, const char *what, unsigned *out) {
  tok *t = take(s, what);
  if (!t) return -1;
  for (unsigned i = 0; i < n; i++)
    if (fn(i) && !strcmp(fn(i), t->w)) {
      *out = i;
      return 0;
    }
  return errat(s->c, t->col, "%s: '%s' is not a %s", s->mn, t->w, what);
}

static const char *mask_name(unsigned m) { return m < 16 ? agx_mask_names[m] : NULL; }

/* "lsl N" */
static int opt_lsl(stmt *s, uint8_t *shift, unsigned max) {
  tok *t = peek(s);
  unsigned v;
  char tail;
  if (t && t->k == T_WORD && sscanf(t->w, "lsl %u%c", &v, &tail) == 1) {
    if (v > max) return errat(s->c, t->col, "%s: lsl %u (at most %u)", s->mn, v, max);
    *shift = (uint8_t)v;
    s->pos++;
  }
  return 0;
}

/* applegpu's condition spellings */
static int cond_by_name(const char *w, int *fl) {
  static const struct {
    const char *n;
    int v, fl;
  } alias[] = {{"ueq", AGX_IEQ, 0}, {"nueq", AGX_INE, 0}, {"eq", AGX_FEQ, 1}, {"lt", AGX_FLT, 1}, {"gt", AGX_FGT, 1},
               {"ltn", AGX_FLTN, 1}, {"gte", AGX_FGTE, 1}, {"lte", AGX_FLTE, 1}, {"gtn", AGX_FGTN, 1},
               {"neq", AGX_FNEQ, 1}, {"nlt", AGX_FNLT, 1}, {"ngt", AGX_FNGT, 1}, {"nltn", AGX_FNLTN, 1},
               {"ngte", AGX_FNGTE, 1}, {"nlte", AGX_FNLTE, 1}, {"ngtn", AGX_FNGTN, 1}};
  for (unsigned i = 0; i < 16; i++) {
    if (agx_icond_name(i) && !strcmp(agx_icond_name(i), w)) return *fl = 0, (int)i;
    if (agx_fcond_name(i) && !strcmp(agx_fcond_name(i), w)) return *fl = 1, (int)i;
  }
  for (unsigned i = 0; i < sizeof alias / sizeof alias[0]; i++)
    if (!strcmp(alias[i].n, w)) return *fl = alias[i].fl, alias[i].v;
  return -1;
}

static int cond_tok(stmt *s, int *fl, uint8_t *cond) {
  tok *t = take(s, "condition");
  if (!t) return -1;
  int v = t->k == T_WORD ? cond_by_name(t->w, fl) : -1;
  if (v < 0) return errat(s->c, t->col, "%s: '%s' is not a condition", s->mn, t->w);
  *cond = (uint8_t)v;
  return 0;
}

/* ---- one statement --------------------------------------------------------------- */

typedef struct fixup {
  size_t at;          /* byte offset of the jump */
  char label[48];
  unsigned line, col;
} fixup;

/* Fills I from the statement. A jump to a label sets *label. */
static int build(stmt *s, agx_instr *I, char *label, size_t labsize) {
  ctx *c = s->c;
  char mn[48];
  snprintf(mn, sizeof mn, "%s", s->mn);
  memset(I, 0, sizeof *I);
  size_t ml = strlen(mn);
  if (ml > 5 && !strcmp(mn + ml - 5, ".long")) I->long_form = 1, mn[ml -= 5] = 0;
  if (ml > 4 && !strcmp(mn + ml - 4, ".sat")) I->sat = 1, mn[ml -= 4] = 0;
  static const struct {
    const char *a, *m;
  } alias[] = {{"fadd32", "fadd"}, {"fmul32", "fmul"}, {"fmadd32", "ffma"}, {"fadd16", "hadd"}, {"fmul16", "hmul"},
               {"fmadd16", "hfma"}, {"mov_imm", "ldimm"}, {"rsqrt_special", "rsqrts"}, {"srsqrt", "rsqrts"},
               {"sin_pt_1", "sinr"}, {"sin_pt_2", "sinc"}, {"jmp_exec_any", "jmp_any"},
               {"jmp_exec_none", "jmp_none"}, {"threadgroup_barrier", "barrier"}, {"no_varyings", "no_var"},
               {"wait_pix", "pixwait"}, {"signal_pix", "pixrel"}, {"todo.ldcf", "ldcf"}};
  for (unsigned i = 0; i < sizeof alias / sizeof alias[0]; i++)
    if (!strcmp(mn, alias[i].a)) snprintf(mn, sizeof mn, "%s", alias[i].m);

  /* float binary / ternary */
  static const struct {
    const char *m;
    uint8_t op, n;
  } fops[] = {{"fadd", AGX_FADD, 2}, {"fmul", AGX_FMUL, 2}, {"hadd", AGX_HADD, 2}, {"hmul", AGX_HMUL, 2},
              {"ffma", AGX_FFMA, 3}, {"hfma", AGX_HFMA, 3}};
  for (unsigned i = 0; i < 6; i++)
    if (!strcmp(mn, fops[i].m)) {
      I->op = fops[i].op;
      if (opnd(s, &I->dst, 0, "destination")) return -1;
      for (unsigned k = 0; k < fops[i].n; k++)
        if (opnd(s, &I->src[k], 1, "source")) return -1;
      if (peek_word(s, "sat")) I->sat = 1;
      return done(s);
    }
  for (unsigned op = AGX_FLOOR; op <= AGX_RINT; op++)
    if (!strcmp(mn, agx_op_name(op))) {
      I->op = (uint8_t)op;
      if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 1, "source")) return -1;
      if (peek_word(s, "sat")) I->sat = 1;
      return done(s);
    }
  if (!strcmp(mn, "ldimm")) {
    I->op = AGX_LDIMM;
    if (opnd(s, &I->dst, 0, "destination")) return -1;
    long long v;
    if (integer(s, &v, 0, I->dst.bits == 32 ? 0xffffffffll : 0xffff, "immediate")) return -1;
    I->src[0].kind = AGX_K_IMM, I->src[0].value = (uint32_t)v, I->src[0].count = 1;
    tok *t = peek(s);
    if (t && t->k == T_INT && t->i == 0) s->pos++; /* applegpu's kill-helpers flag, 0 */
    return done(s);
  }
  if (!strcmp(mn, "get_sr")) {
    I->op = AGX_GET_SR;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "special register")) return -1;
    if (I->src[0].kind != AGX_K_SR) return errat(c, s->t[1].col, "get_sr: not a special register");
    return done(s);
  }
  if (!strcmp(mn, "mov")) {
    agx_opnd d, a;
    if (opnd(s, &d, 0, "destination") || opnd(s, &a, 0, "source")) return -1;
    if (done(s)) return -1;
    if (a.kind == AGX_K_SR) {
      I->op = AGX_GET_SR, I->dst = d, I->src[0] = a;
    } else if (d.kind == AGX_K_UNIF) {
      I->op = AGX_UNIFORM_STORE, I->dst = d, I->src[0] = a;
    } else {
      I->op = AGX_BITOP, I->tt = 0xa, I->dst = d, I->src[0] = a;
      I->src[1].kind = AGX_K_IMM, I->src[1].count = 1;
    }
    return 0;
  }
  /* bit operations */
  for (unsigned tt = 0; tt < 16; tt++)
    for (int un = 1; un >= 0; un--)
      if (agx_bitop_name(tt, un) && !strcmp(mn, agx_bitop_name(tt, un))) {
        I->op = AGX_BITOP, I->tt = (uint8_t)tt;
        if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "source")) return -1;
        if (un) I->src[1].kind = AGX_K_IMM, I->src[1].count = 1;
        else if (opnd(s, &I->src[1], 0, "source")) return -1;
        return done(s);
      }
  if (!strcmp(mn, "bitop")) { /* applegpu: bitop TTTT (tt0..tt3), D, A, B */
    tok *t = take(s, "truth table");
    if (!t) return -1;
    if (strlen(t->w) != 4 || strspn(t->w, "01") != 4) return errat(c, t->col, "bitop: the table is 4 binary digits");
    I->op = AGX_BITOP;
    for (int k = 0; k < 4; k++) I->tt |= (uint8_t)((t->w[k] - '0') << k);
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "source") || opnd(s, &I->src[1], 0, "source"))
      return -1;
    return done(s);
  }
  if (!strcmp(mn, "iadd") || !strcmp(mn, "isub")) {
    I->op = mn[1] == 'a' ? AGX_IADD : AGX_ISUB;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "source") || opnd(s, &I->src[1], 0, "source"))
      return -1;
    as_pair(&I->dst), as_pair(&I->src[0]), as_pair(&I->src[1]);
    if (opt_lsl(s, &I->shift, 4)) return -1;
    if (peek_word(s, "sat")) I->sat = 1;
    return done(s);
  }
  if (!strcmp(mn, "imadd") || !strcmp(mn, "imsub") || !strcmp(mn, "imul")) {
    I->op = !strcmp(mn, "imsub") ? AGX_IMSUB : AGX_IMAD;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "source") || opnd(s, &I->src[1], 0, "source"))
      return -1;
    as_pair(&I->dst);
    if (mn[2] == 'u') I->src[2].kind = AGX_K_IMM, I->src[2].count = 1;
    else if (opnd(s, &I->src[2], 0, "source")) return -1;
    as_pair(&I->src[2]);
    if (mn[2] != 'u' && opt_lsl(s, &I->shift, 4)) return -1;
    if (peek_word(s, "sat")) I->sat = 1;
    return done(s);
  }
  if (!strcmp(mn, "shl") || !strcmp(mn, "shr")) {
    I->op = mn[2] == 'l' ? AGX_BFI : AGX_BFEIL;
    I->src[0].kind = AGX_K_IMM, I->src[0].count = 1;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[1], 0, "source") || opnd(s, &I->src[2], 0, "shift"))
      return -1;
    return done(s);
  }
  if (!strcmp(mn, "bfi") || !strcmp(mn, "bfeil") || !strcmp(mn, "extr")) {
    I->op = mn[1] == 'f' && mn[2] == 'i' ? AGX_BFI : mn[0] == 'e' ? AGX_EXTR : AGX_BFEIL;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "source") || opnd(s, &I->src[1], 0, "source") ||
        opnd(s, &I->src[2], 0, "shift"))
      return -1;
    long long m = 0;
    if (peek(s) && integer(s, &m, 0, 31, "mask width")) return -1;
    I->mask_width = (uint8_t)m;
    return done(s);
  }
  if (!strcmp(mn, "intl") || !strcmp(mn, "bitrev") || !strcmp(mn, "popcnt") || !strcmp(mn, "ffs")) {
    I->op = mn[0] == 'i' ? AGX_INTL : mn[0] == 'b' ? AGX_BITREV : mn[0] == 'p' ? AGX_POPCNT : AGX_FFS;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "source")) return -1;
    if (I->op == AGX_INTL && opnd(s, &I->src[1], 0, "source")) return -1;
    return done(s);
  }
  int conv_first = !strcmp(mn, "convert"); /* applegpu: convert MODE, D, S, round */
  for (unsigned m = 0; m < 64; m++) {
    const char *cn = agx_convert_name(m);
    if (!cn) continue;
    if (conv_first ? (peek(s) && !strcmp(peek(s)->w, cn)) : !strcmp(mn, cn)) {
      if (conv_first) s->pos++;
      I->op = AGX_CONVERT, I->mode = (uint8_t)m;
      if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "source")) return -1;
      tok *t = take(s, "rounding (rtz or rte)");
      if (!t) return -1;
      if (strcmp(t->w, "rtz") && strcmp(t->w, "rte")) return errat(c, t->col, "%s: rounding is rtz or rte", mn);
      I->round = !strcmp(t->w, "rte");
      return done(s);
    }
  }
  if (conv_first) return errat(c, s->mcol, "convert: unknown mode");
  if (!strcmp(mn, "csel") || !strcmp(mn, "icmpsel") || !strcmp(mn, "fcmpsel")) {
    int fl = 0;
    uint8_t cond = 0;
    if (mn[0] != 'c') { /* applegpu: the condition first */
      if (cond_tok(s, &fl, &cond)) return -1;
      fl = mn[0] == 'f';
      if (!fl && cond_by_name(s->t[0].w, &fl) >= 0 && fl) return errat(c, s->t[0].col, "icmpsel: a float condition");
      fl = mn[0] == 'f';
    } else {
      /* the condition is the last operand */
      if (s->n < 1 || s->t[s->n - 1].k != T_WORD || cond_by_name(s->t[s->n - 1].w, &fl) < 0)
        return errat(c, s->n ? s->t[s->n - 1].col : s->mcol, "csel: the last operand is a condition");
      cond = (uint8_t)cond_by_name(s->t[s->n - 1].w, &fl);
      s->n--;
    }
    I->op = fl ? AGX_FCMPSEL : AGX_ICMPSEL, I->cond = cond;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], fl, "source") || opnd(s, &I->src[1], fl, "source") ||
        opnd(s, &I->src[2], 0, "source") || opnd(s, &I->src[3], 0, "source"))
      return -1;
    return done(s);
  }
  /* control flow */
  int which = !strncmp(mn, "if", 2) ? 0 : !strncmp(mn, "else", 4) ? 1 : !strncmp(mn, "while", 5) ? 2 : -1;
  if (which >= 0 && (!strcmp(mn, "if") || !strcmp(mn, "else") || !strcmp(mn, "while"))) {
    int fl;
    if (s->n < 1 || s->t[s->n - 1].k != T_WORD || cond_by_name(s->t[s->n - 1].w, &fl) < 0)
      return errat(c, s->n ? s->t[s->n - 1].col : s->mcol, "%s: the last operand is a condition", mn);
    I->cond = (uint8_t)cond_by_name(s->t[s->n - 1].w, &fl);
    s->n--;
    I->op = (uint8_t)((fl ? AGX_IF_FCMP : AGX_IF_ICMP) + which);
    if (opnd(s, &I->src[0], fl, "source") || opnd(s, &I->src[1], fl, "source")) return -1;
    long long n;
    if (integer(s, &n, 0, 3, "nesting")) return -1;
    I->nest = (uint8_t)n;
    if (peek_word(s, "cache")) I->cache = 1;
    return done(s);
  }
  if (!strcmp(mn, "if_icmp") || !strcmp(mn, "else_icmp") || !strcmp(mn, "while_icmp") || !strcmp(mn, "if_fcmp") ||
      !strcmp(mn, "else_fcmp") || !strcmp(mn, "while_fcmp")) { /* applegpu: r0l, cond, A, B, n */
    int fl = strstr(mn, "fcmp") != NULL, cfl;
    opnd(s, &I->dst, 0, "r0l");
    if (c->err) return -1;
    if (I->dst.kind != AGX_K_REG || I->dst.index != 0 || I->dst.bits != 16)
      return errat(c, s->t[0].col, "%s: the first operand is r0l", mn);
    I->cache = I->dst.hint == AGX_HINT_CACHE;
    memset(&I->dst, 0, sizeof I->dst);
    if (cond_tok(s, &cfl, &I->cond)) return -1;
    I->op = (uint8_t)((fl ? AGX_IF_FCMP : AGX_IF_ICMP) + (mn[0] == 'i' ? 0 : mn[0] == 'e' ? 1 : 2));
    if (opnd(s, &I->src[0], fl, "source") || opnd(s, &I->src[1], fl, "source")) return -1;
    long long n;
    if (integer(s, &n, 0, 3, "nesting")) return -1;
    I->nest = (uint8_t)n;
    return done(s);
  }
  if (!strcmp(mn, "update_exec") || !strcmp(mn, "push_exec") || !strcmp(mn, "pop_exec")) {
    tok *t = peek(s);
    if (t && t->k == T_OPND) { /* applegpu writes the implicit r0l */
      if (t->o.kind != AGX_K_REG || t->o.index != 0 || t->o.bits != 16 || t->o.count != 1)
        return errat(c, t->col, "%s: the implicit register is r0l", mn);
      I->cache = t->o.hint == AGX_HINT_CACHE;
      s->pos++;
    }
    long long n = 0;
    if (mn[1] != 'p' && integer(s, &n, 0, 3, "nesting")) return -1;
    I->nest = (uint8_t)n;
    if (peek_word(s, "cache")) I->cache = 1;
    I->op = mn[1] == 'o' ? AGX_POP_EXEC : AGX_IF_FCMP;
    if (I->op == AGX_IF_FCMP) {
      I->cond = AGX_FEQ;
      for (int k = 0; k < 2; k++) I->src[k].kind = AGX_K_FIMM, I->src[k].count = 1;
    }
    return done(s);
  }
  if (!strcmp(mn, "jmp_any") || !strcmp(mn, "jmp_none")) {
    I->op = mn[4] == 'a' ? AGX_JMP_ANY : AGX_JMP_NONE;
    tok *t = take(s, "target");
    if (!t) return -1;
    if (t->k == T_INT) {
      if (t->i < -2147483648ll || t->i > 2147483647ll) return errat(c, t->col, "%s: offset out of range", mn);
      I->offset = (int32_t)t->i;
    } else if (t->k == T_WORD && !strncmp(t->w, "pc", 2) && (t->w[2] == '+' || t->w[2] == '-')) {
      const char *q = t->w + 3;
      char *end;
      long long v = strtoll(q, &end, 0);
      if (*end || end == q) snprintf(label, labsize, "%s", q); /* pc+label */
      else I->offset = (int32_t)(t->w[2] == '-' ? -v : v);
      if (*end && t->w[2] == '-') return errat(c, t->col, "%s: pc-label is not a target", mn);
    } else if (t->k == T_WORD) {
      snprintf(label, labsize, "%s", t->w);
    } else {
      return errat(c, t->col, "%s: the target is a byte offset or a label", mn);
    }
    return done(s);
  }
  if (!strcmp(mn, "stop") || !strcmp(mn, "trap") || !strcmp(mn, "barrier") || !strcmp(mn, "no_var")) {
    I->op = mn[0] == 's' ? AGX_STOP : mn[0] == 't' ? AGX_TRAP : mn[0] == 'b' ? AGX_BARRIER : AGX_NO_VAR;
    return done(s);
  }
  if (!strcmp(mn, "wait")) {
    I->op = AGX_WAIT;
    tok *t = take(s, "group");
    if (!t) return -1;
    if (!strcmp(t->w, "a") || !strcmp(t->w, "0")) I->group = 0;
    else if (!strcmp(t->w, "b") || !strcmp(t->w, "1")) I->group = 1;
    else return errat(c, t->col, "wait: the group is a or b");
    return done(s);
  }
  if (!strcmp(mn, "load") || !strcmp(mn, "store")) {
    I->op = mn[0] == 'l' ? AGX_LOAD : AGX_STORE;
    agx_opnd *data = I->op == AGX_LOAD ? &I->dst : &I->src[0];
    if (opnd(s, data, 0, "data registers") || opnd(s, &I->src[1], 0, "base") || opnd(s, &I->src[2], 0, "index"))
      return -1;
    as_pair(&I->src[1]);
    tok *t = peek(s);
    if (I->src[2].kind == AGX_K_IMM && s->t[s->pos - 1].i < 0) I->src[2].value = (uint32_t)(int32_t)s->t[s->pos - 1].i;
    (void)t;
    if (opt_lsl(s, &I->shift, 3)) return -1;
    unsigned f, m;
    if (name_in(s, agx_format_name, 16, "format", &f) || name_in(s, mask_name, 16, "mask", &m)) return -1;
    I->format = (uint8_t)f, I->mask = (uint8_t)m;
    static const char *const coh[4] = {NULL, "coherent1", "coherent2", "coherent"};
    for (int k = 1; k < 4; k++)
      if (peek_word(s, coh[k])) I->coherency = (uint8_t)k;
    tok *g = take(s, "wait group (a or b)");
    if (!g) return -1;
    if (strcmp(g->w, "a") && strcmp(g->w, "b")) return errat(c, g->col, "%s: the wait group is a or b", mn);
    I->group = g->w[0] == 'b';
    return done(s);
  }
  if (!strcmp(mn, "device_load") || !strcmp(mn, "device_store")) { /* applegpu: g, F, mask, R, A, O, signed|unsigned[, lsl s] */
    I->op = mn[7] == 'l' ? AGX_LOAD : AGX_STORE;
    long long g;
    unsigned f, m;
    if (integer(s, &g, 0, 1, "wait group") || name_in(s, agx_format_name, 16, "format", &f) ||
        name_in(s, mask_name, 16, "mask", &m))
      return -1;
    I->group = (uint8_t)g, I->format = (uint8_t)f, I->mask = (uint8_t)m;
    agx_opnd *data = I->op == AGX_LOAD ? &I->dst : &I->src[0];
    if (opnd(s, data, 0, "data registers") || opnd(s, &I->src[1], 0, "base") || opnd(s, &I->src[2], 0, "index"))
      return -1;
    as_pair(&I->src[1]);
    if (s->t[s->pos - 1].k == T_INT && s->t[s->pos - 1].i < 0) I->src[2].value = (uint32_t)(int32_t)s->t[s->pos - 1].i;
    tok *t = take(s, "signed or unsigned");
    if (!t) return -1;
    if (strcmp(t->w, "signed") && strcmp(t->w, "unsigned")) return errat(c, t->col, "%s: signed or unsigned", mn);
    if (I->src[2].kind == AGX_K_REG) I->src[2].sx = t->w[0] == 's';
    if (opt_lsl(s, &I->shift, 3)) return -1;
    tok *z = peek(s);
    if (z && z->k == T_INT && z->i == 0) s->pos++;
    return done(s);
  }
  if (!strcmp(mn, "st_var") || !strcmp(mn, "st_var_final")) {
    I->op = AGX_ST_VAR, I->last = mn[6] == '_';
    if (s->n == 3 && s->t[0].k == T_INT) s->pos++; /* applegpu's leading 1 */
    if (opnd(s, &I->src[0], 0, "value") || opnd(s, &I->src[1], 0, "index")) return -1;
    if (peek_word(s, "last")) I->last = 1;
    return done(s);
  }
  if (!strcmp(mn, "iter") || !strcmp(mn, "iterproj") || !strcmp(mn, "ldcf")) {
    I->op = mn[0] == 'l' ? AGX_LDCF : AGX_ITER;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "coefficient")) return -1;
    tok *t = peek(s);
    if (I->op == AGX_ITER && t && t->k == T_OPND && t->o.kind == AGX_K_CF) {
      I->op = AGX_ITERPROJ, I->src[1] = t->o;
      s->pos++;
    }
    t = peek(s);
    int have_idx = 0;
    if (t && (t->k == T_INT || t->k == T_OPND)) {
      if (opnd(s, &I->src[2], 0, "sample index")) return -1;
      have_idx = 1;
    }
    if (I->op != AGX_LDCF) {
      if (peek_word(s, "fwd")) I->fwd = 1;
      if (peek_word(s, "elide")) I->elide = 1;
      if (peek_word(s, "center")) I->interp = AGX_INTERP_CENTER;
      else if (peek_word(s, "centroid")) I->interp = AGX_INTERP_CENTROID;
      else if (peek_word(s, "sample")) I->interp = AGX_INTERP_SAMPLE;
      if (peek_word(s, "kill")) I->kill = 1;
    } else if (have_idx) {
      I->interp = AGX_INTERP_SAMPLE;
    }
    if (have_idx && I->interp != AGX_INTERP_SAMPLE) return errat(c, s->mcol, "%s: a sample index needs 'sample'", mn);
    if (I->interp == AGX_INTERP_SAMPLE && !have_idx) return errat(c, s->mcol, "%s: 'sample' needs a sample index", mn);
    if (I->interp == AGX_INTERP_SAMPLE && I->src[2].kind == AGX_K_REG) I->interp = AGX_INTERP_SAMPLE_REG;
    return done(s);
  }
  if (!strcmp(mn, "sample_mask") || !strcmp(mn, "zs_emit")) {
    I->op = mn[0] == 's' ? AGX_SAMPLE_MASK : AGX_ZS_EMIT;
    if (opnd(s, &I->src[0], 0, "mask")) return -1;
    if (I->op == AGX_SAMPLE_MASK) {
      if (opnd(s, &I->src[1], 0, "live mask")) return -1;
    } else if (peek(s)) {
      if (opnd(s, &I->src[1], 0, "depth/stencil registers")) return -1;
      agx_opnd *o = &I->src[1];
      if (o->kind == AGX_K_REG && o->bits == 16 && o->count == 2 && !(o->index & 1))
        o->bits = 32, o->count = 1; /* applegpu's r2l_r2h for the depth register */
      tok *z = peek(s);
      if (z && z->k == T_INT && z->i == 0) s->pos++; /* applegpu's third operand, 0 */
      if (o->kind == AGX_K_REG && o->bits == 32 && o->count == 1) I->zs_depth = 1;
      else if (o->kind == AGX_K_REG && o->bits == 16 && o->count == 1) I->zs_stencil = 1;
      else if (o->kind == AGX_K_REG && o->bits == 16 && o->count == 3) I->zs_depth = I->zs_stencil = 1;
    }
    return done(s);
  }
  if (!strcmp(mn, "st_tile") || !strcmp(mn, "ld_tile")) {
    I->op = mn[0] == 's' ? AGX_ST_TILE : AGX_LD_TILE;
    tok *f1 = s->n > 1 ? &s->t[1] : NULL;
    unsigned fmt;
    int apple = f1 && f1->k == T_WORD;
    for (fmt = 0; apple && fmt < 16 && !(agx_format_name(fmt) && !strcmp(agx_format_name(fmt), f1->w)); fmt++) {}
    if (apple && fmt < 16) { /* applegpu: R, F, u0 (bit 35), mask, O (offset), S (samples), C (coordinates) */
      long long u0;
      unsigned m;
      if (opnd(s, I->op == AGX_LD_TILE ? &I->dst : &I->src[0], 0, "data registers") ||
          name_in(s, agx_format_name, 16, "format", &fmt) || integer(s, &u0, 0, 1, "u0") ||
          name_in(s, mask_name, 16, "mask", &m) || opnd(s, &I->src[3], 0, "offset") ||
          opnd(s, &I->src[2], 0, "samples") || opnd(s, &I->src[1], 0, "coordinates"))
        return -1;
      if (I->op == AGX_LD_TILE && !u0) return errat(c, s->mcol, "ld_tile: u0 (bit 35) is 1 in every ld_tile");
      I->explicit_coords = I->op == AGX_ST_TILE && u0;
      I->format = (uint8_t)fmt, I->mask = (uint8_t)m;
      return done(s);
    }
    if (opnd(s, I->op == AGX_LD_TILE ? &I->dst : &I->src[0], 0, "data registers") ||
        opnd(s, &I->src[1], 0, "coordinates") || opnd(s, &I->src[2], 0, "samples") || opnd(s, &I->src[3], 0, "offset"))
      return -1;
    if (I->op == AGX_ST_TILE && peek_word(s, "explicit_coords")) I->explicit_coords = 1;
    unsigned f, m;
    if (name_in(s, agx_format_name, 16, "format", &f) || name_in(s, mask_name, 16, "mask", &m)) return -1;
    I->format = (uint8_t)f, I->mask = (uint8_t)m;
    return done(s);
  }
  if (!strcmp(mn, "uniform_store")) { /* applegpu: 2, i16, mask, 0, R, O (a uniform half): Mesa's mov uN, rM */
    long long unk, b, o;
    unsigned f, m;
    agx_opnd r;
    if (integer(s, &unk, 0, 3, "unk") || name_in(s, agx_format_name, 16, "format", &f) ||
        name_in(s, mask_name, 16, "mask", &m) || integer(s, &b, 0, 7, "b") || opnd(s, &r, 0, "data registers") ||
        integer(s, &o, 0, 511, "uniform half") || done(s))
      return -1;
    if (unk != 2 || f != AGX_FMT_I16 || b != 0)
      return errat(c, s->mcol, "uniform_store: only the form 2, i16, MASK, 0, R, O (Mesa's mov uN, rM) is known");
    unsigned n = (m & 1) + (m >> 1 & 1) + (m >> 2 & 1) + (m >> 3 & 1);
    I->op = AGX_UNIFORM_STORE, I->src[0] = r;
    I->dst.kind = AGX_K_UNIF, I->dst.index = (uint16_t)o, I->dst.bits = 16, I->dst.count = (uint8_t)n;
    return 0;
  }
  if (!strcmp(mn, "pixwait") || !strcmp(mn, "pixrel")) {
    I->op = mn[3] == 'w' ? AGX_PIXWAIT : AGX_PIXREL;
    long long i, j;
    if (integer(s, &i, 0, 1023, "i") || integer(s, &j, 0, 3, "j")) return -1;
    I->src[0].kind = I->src[1].kind = AGX_K_IMM, I->src[0].count = I->src[1].count = 1;
    I->src[0].value = (uint32_t)i, I->src[1].value = (uint32_t)j;
    return done(s);
  }
  if (!strcmp(mn, "smpf")) {
    I->op = AGX_SMPF;
    if (opnd(s, &I->dst, 0, "destination") || opnd(s, &I->src[0], 0, "texture") || opnd(s, &I->src[1], 0, "sampler") ||
        opnd(s, &I->src[2], 0, "coordinates") || opnd(s, &I->src[3], 0, "lod"))
      return -1;
    unsigned dim, m;
    if (name_in(s, agx_dim_name, 16, "dimension", &dim) || name_in(s, mask_name, 16, "mask", &m)) return -1;
    I->dim = (uint8_t)dim, I->mask = (uint8_t)m;
    tok *t = take(s, "lod type");
    if (!t) return -1;
    int reg = I->src[3].kind == AGX_K_REG;
    if (!strcmp(t->w, "auto_lod")) I->lod_mode = 0;
    else if (!strcmp(t->w, "auto_lod_bias")) I->lod_mode = reg ? 5 : 1;
    else if (!strcmp(t->w, "lod_min")) I->lod_mode = reg ? 6 : 2;
    else return errat(c, t->col, "smpf: lod type auto_lod, auto_lod_bias or lod_min");
    tok *g = take(s, "wait group");
    if (!g) return -1;
    if (strcmp(g->w, "a") && strcmp(g->w, "b")) return errat(c, g->col, "smpf: the wait group is a or b");
    I->group = g->w[0] == 'b';
    return done(s);
  }
  return errat(c, s->mcol, "unknown instruction '%s'", s->mn);
}

/* ---- the source ---------------------------------------------------------------- */

typedef struct lab {
  char name[48];
  uint32_t off;
} lab;

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return 0;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need) n *= 2;
  void *q = realloc(*p, n * elem);
  if (!q) return -1;
  *p = q, *cap = n;
  return 0;
}

int agx_asm(const char *src, const char *file, gs_isa_binary *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  ctx c = {file ? file : "<agx>", 0, d, 0};
  uint8_t *bytes = NULL;
  gs_isa_line *lines = NULL;
  lab *labs = NULL;
  fixup *fix = NULL;
  size_t nbytes = 0, capb = 0, nlines = 0, capl = 0, nlabs = 0, caplab = 0, nfix = 0, capfix = 0;
  const char *p = src;
  unsigned lineno = 0;
  while (*p && !c.err) {
    const char *eol = strchr(p, '\n');
    if (!eol) eol = p + strlen(p);
    lineno++;
    c.line = lineno;
    size_t L = (size_t)(eol - p);
    char *buf = malloc(L + 1);
    if (!buf) goto nomem;
    memcpy(buf, p, L);
    buf[L] = 0;
    /* comments */
    for (size_t i = 0; i < L; i++)
      if (buf[i] == '#' || (buf[i] == '/' && buf[i + 1] == '/')) {
        buf[i] = 0;
        break;
      }
    /* statements separated by ';' */
    char *st = buf;
    while (st && !c.err) {
      char *semi = strchr(st, ';');
      if (semi) *semi = 0;
      char *q = st;
      /* labels */
      for (;;) {
        while (*q == ' ' || *q == '\t' || *q == '\r') q++;
        char *e = q;
        while (isalnum((unsigned char)*e) || *e == '_' || *e == '.') e++;
        if (e > q && *e == ':') {
          if ((size_t)(e - q) >= sizeof labs->name) {
            errat(&c, (unsigned)(q - buf) + 1, "label too long");
            break;
          }
          for (size_t k = 0; k < nlabs; k++)
            if (strlen(labs[k].name) == (size_t)(e - q) && !strncmp(labs[k].name, q, (size_t)(e - q))) {
              errat(&c, (unsigned)(q - buf) + 1, "label '%.*s' defined twice", (int)(e - q), q);
              break;
            }
          if (c.err) break;
          if (grow((void **)&labs, &caplab, nlabs + 1, sizeof *labs)) {
            free(buf);
            goto nomem;
          }
          snprintf(labs[nlabs].name, sizeof labs[nlabs].name, "%.*s", (int)(e - q), q);
          for (char *k = labs[nlabs].name; *k; k++) *k = (char)tolower((unsigned char)*k);
          labs[nlabs++].off = (uint32_t)nbytes;
          q = e + 1;
          continue;
        }
        break;
      }
      while (*q == ' ' || *q == '\t' || *q == '\r') q++;
      if (*q && !c.err) {
        stmt s;
        memset(&s, 0, sizeof s);
        s.c = &c;
        char *e = q;
        while (*e && *e != ' ' && *e != '\t' && *e != '\r') e++;
        char mn[48];
        if ((size_t)(e - q) >= sizeof mn) {
          errat(&c, (unsigned)(q - buf) + 1, "unknown instruction '%.*s'", (int)(e - q), q);
          break;
        }
        snprintf(mn, sizeof mn, "%.*s", (int)(e - q), q);
        for (char *k = mn; *k; k++) *k = (char)tolower((unsigned char)*k);
        s.mn = mn, s.mcol = (unsigned)(q - buf) + 1;
        /* operands */
        char *o = e;
        while (*o == ' ' || *o == '\t' || *o == '\r') o++;
        while (*o && !c.err) {
          char *comma = strchr(o, ',');
          char *end = comma ? comma : o + strlen(o);
          char *a = o, *b = end;
          while (a < b && (*a == ' ' || *a == '\t')) a++;
          while (b > a && (b[-1] == ' ' || b[-1] == '\t' || b[-1] == '\r')) b--;
          unsigned col = (unsigned)(a - buf) + 1;
          /* applegpu appends "(name)" to special registers */
          char *par = memchr(a, '(', (size_t)(b - a));
          if (par) {
            b = par;
            while (b > a && b[-1] == ' ') b--;
          }
          if (a == b) {
            errat(&c, col, "%s: empty operand", mn);
            break;
          }
          if (s.n >= MAXTOK) {
            errat(&c, col, "%s: too many operands", mn);
            break;
          }
          char save = *b;
          *b = 0;
          if ((size_t)(b - a) >= sizeof s.t[0].w) errat(&c, col, "%s: operand too long", mn);
          else parse_tok(&c, a, col, &s.t[s.n++]);
          *b = save;
          if (!comma) break;
          o = comma + 1;
          if (!*o || strspn(o, " \t\r") == strlen(o)) {
            errat(&c, (unsigned)(o - buf) + 1, "%s: missing operand after ','", mn);
            break;
          }
        }
        agx_instr I;
        char label[48] = "";
        if (!c.err && build(&s, &I, label, sizeof label) == 0 && !c.err) {
          uint8_t enc[AGX_MAX_BYTES];
          char why[200];
          if (agx_encode(&I, enc, why, sizeof why)) {
            errat(&c, s.mcol, "%s: %s", mn, why);
          } else if (grow((void **)&bytes, &capb, nbytes + AGX_MAX_BYTES, 1) ||
                     grow((void **)&lines, &capl, nlines + 1, sizeof *lines)) {
            free(buf);
            goto nomem;
          } else {
            if (label[0]) {
              if (grow((void **)&fix, &capfix, nfix + 1, sizeof *fix)) {
                free(buf);
                goto nomem;
              }
              fix[nfix].at = nbytes, fix[nfix].line = lineno, fix[nfix].col = s.mcol;
              snprintf(fix[nfix].label, sizeof fix[nfix].label, "%s", label);
              nfix++;
            }
            lines[nlines].offset = (uint32_t)nbytes, lines[nlines].line = lineno;
            nlines++;
            memcpy(bytes + nbytes, enc, I.len);
            nbytes += I.len;
          }
        }
      }
      st = semi ? semi + 1 : NULL;
    }
    free(buf);
    p = *eol ? eol + 1 : eol;
  }
  for (size_t k = 0; k < nfix && !c.err; k++) {
    size_t j;
    for (j = 0; j < nlabs; j++)
      if (!strcmp(labs[j].name, fix[k].label)) break;
    c.line = fix[k].line;
    if (j == nlabs) {
      errat(&c, fix[k].col, "undefined label '%s'", fix[k].label);
      break;
    }
    uint32_t off = labs[j].off - (uint32_t)fix[k].at;
    for (int b = 0; b < 4; b++) bytes[fix[k].at + 2 + (size_t)b] = (uint8_t)(off >> (8 * b));
  }
  free(labs);
  free(fix);
  if (c.err) {
    free(bytes);
    free(lines);
    return GS_EASM;
  }
  out->bytes = bytes ? bytes : malloc(1);
  out->size = nbytes;
  out->lines = lines;
  out->nlines = nlines;
  if (!out->bytes) goto nomem2;
  return 0;
nomem:
  free(labs);
  free(fix);
nomem2:
  free(bytes);
  free(lines);
  memset(out, 0, sizeof *out);
  return gs_diag_set(d, GS_ENOMEM, "agx: out of memory");
}
