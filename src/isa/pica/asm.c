/* asm.c — the PICA200 assembler for the disassembler's syntax (docs/pica.md):
 * plain instructions, labels and `;` comments into a SHBIN with one vertex
 * executable. Operand descriptors are shared by equal value; those of
 * mad/madi come first, as their 5-bit DESC reaches only 0-31. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "isa/isa.h"
#include "isa/pica/table.h"

#define MAXWORDS 4096
#define MAXDESC 128
#define MAXLABELS 512

typedef struct line_insn {
  uint32_t word, od; /* word without DESC; the descriptor it needs */
  unsigned line, col, is_mad, has_desc;
  char target[64]; /* a label to resolve into DST, "" if none */
} line_insn;

typedef struct actx {
  const char *file;
  gs_diag *d;
  unsigned line, col;
  line_insn *ins;
  size_t n;
  struct { char name[64]; uint32_t addr; } labels[MAXLABELS];
  size_t nlabels;
} actx;

static int err(actx *a, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return gs_diag_set(a->d, GS_EASM, "%s:%u:%u: %s", a->file, a->line, a->col, msg);
}

/* ---- operands ----------------------------------------------------------------- */

typedef struct opnd {
  unsigned reg, rel, neg, swz, mask, kind; /* kind: 'v' 'r' 'c' 'o' */
} opnd;

static int comp_of(char c) {
  const char *s = strchr("xyzwrgbastpq", tolower((unsigned char)c));
  return c && s ? (int)((s - "xyzwrgbastpq") % 4) : -1;
}

/* [-]reg[rel][.letters]; dst: a destination (o/r, letters = mask). */
static int parse_reg(actx *a, const char *s, int dst, opnd *o) {
  memset(o, 0, sizeof *o);
  o->swz = 0x1B, o->mask = 0xF;
  const char *p = s;
  if (*p == '-' && !dst) o->neg = 1, p++;
  o->kind = (unsigned)tolower((unsigned char)*p);
  char *end;
  if (!strchr(dst ? "or" : "vrc", (int)o->kind) || !o->kind || !isdigit((unsigned char)p[1]))
    return err(a, "'%s' is not a %s register", s, dst ? "destination (o0-o15, r0-r15)" : "source (v, r, c)");
  unsigned long k = strtoul(p + 1, &end, 10);
  if (k > (o->kind == 'c' ? 95u : 15u)) return err(a, "'%s': no such register", s);
  o->reg = (unsigned)k + (o->kind == 'r' ? PICA_REG_R : o->kind == 'c' ? PICA_REG_C : 0);
  p = end;
  if (*p == '[' && !dst) {
    static const char *const rel[4] = {"", "[a0.x]", "[a0.y]", "[aL]"};
    for (unsigned r = 1; r < 4; r++)
      if (!strncmp(p, rel[r], strlen(rel[r]))) o->rel = r, p += strlen(rel[r]);
    if (!o->rel) return err(a, "'%s': the offset must be [a0.x], [a0.y] or [aL]", s);
  }
  if (*p == '.') {
    unsigned n = 0, c[4];
    for (p++; *p && n < 5; p++, n++) {
      int v = comp_of(*p);
      if (v < 0 || n == 4) return err(a, "'%s': bad component letters", s);
      c[n] = (unsigned)v;
    }
    if (!n) return err(a, "'%s': no component letters", s);
    if (dst) {
      o->mask = 0;
      for (unsigned i = 0; i < n; i++) {
        if (i && c[i] <= c[i - 1]) return err(a, "'%s': mask letters must be in xyzw order", s);
        o->mask |= 8u >> c[i];
      }
    } else {
      o->swz = 0;
      for (unsigned i = 0; i < 4; i++) o->swz |= c[i < n ? i : n - 1] << (6 - 2 * i);
    }
  }
  if (*p) return err(a, "'%s': unexpected '%s'", s, p);
  return GS_OK;
}

/* A target: a number or a label (resolved later). */
static int parse_target(actx *a, const char *s, line_insn *li, uint32_t *v) {
  char *end;
  *v = 0;
  if (isdigit((unsigned char)*s)) {
    unsigned long t = strtoul(s, &end, 0);
    if (*end || t >= MAXWORDS) return err(a, "'%s' is not a word address (0-4095)", s);
    *v = (uint32_t)t;
    return GS_OK;
  }
  if (!isalpha((unsigned char)*s) && *s != '_') return err(a, "'%s' is not a target", s);
  if (strlen(s) >= sizeof li->target) return err(a, "label '%s' is too long", s);
  strcpy(li->target, s);
  return GS_OK;
}

static int parse_num(actx *a, const char *s, unsigned max, unsigned *v) {
  char *end;
  unsigned long t = strtoul(s, &end, 0);
  if (!isdigit((unsigned char)*s) || *end || t > max) return err(a, "'%s' is not a number 0-%u", s, max);
  *v = (unsigned)t;
  return GS_OK;
}

/* cmp.x, !cmp.y, a && b, a || b */
static int parse_cond(actx *a, const char *s, uint32_t *w, const pica_layout *L) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", s);
  char *amp = strstr(buf, "&&"), *bar = strstr(buf, "||"), *second = NULL;
  unsigned op = PICA_COND_X;
  if (amp || bar) *(amp ? amp : bar) = 0, second = (amp ? amp : bar) + 2, op = amp ? PICA_COND_AND : PICA_COND_OR;
  unsigned ref[2] = {1, 1}, seen[2] = {0, 0};
  for (char *t = buf; t; t = second, second = NULL) {
    while (isspace((unsigned char)*t)) t++;
    size_t n = strlen(t);
    while (n && isspace((unsigned char)t[n - 1])) t[--n] = 0;
    int neg = *t == '!';
    if (neg) t++;
    int f = !strcmp(t, "cmp.x") ? 0 : !strcmp(t, "cmp.y") ? 1 : -1;
    if (f < 0 || seen[f]) return err(a, "'%s' is not a condition (cmp.x, !cmp.y, a && b, a || b)", s);
    seen[f] = 1, ref[f] = !neg;
    if (op == PICA_COND_X && f == 1) op = PICA_COND_Y;
    if (op != PICA_COND_X && op != PICA_COND_Y && !second && !(seen[0] && seen[1]))
      return err(a, "'%s': && and || join cmp.x and cmp.y", s);
  }
  *w = pica_put(pica_put(pica_put(*w, L->condop, op), L->refx, ref[0]), L->refy, ref[1]);
  return GS_OK;
}

/* ---- one instruction ---------------------------------------------------------- */

/* The inverted opcode of op (DPH DST SGE SLT) or the plain one of an
 * inverted opcode; 0 if it has none. */
static unsigned flip_form(unsigned op) {
  static const uint8_t pair[4][2] = {{PICA_DPH, PICA_DPHI}, {PICA_DST, PICA_DSTI}, {PICA_SGE, PICA_SGEI},
                                     {PICA_SLT, PICA_SLTI}};
  for (unsigned k = 0; k < 4; k++)
    if (op == pair[k][0] || op == pair[k][1]) return op == pair[k][0] ? pair[k][1] : pair[k][0];
  return 0;
}

static int narrow_ok(const opnd *o) { return o->kind != 'c' && !o->rel; }

static int encode(actx *a, const char *mn, char **arg, unsigned nargs, line_insn *li) {
  unsigned op = 64;
  for (unsigned k = 0; k < 64; k++)
    if (pica_ops[k].name && !strcmp(pica_ops[k].name, mn)) {
      op = k;
      break;
    }
  if (op == 64) return err(a, "unknown instruction '%s'", mn);
  unsigned fmt = pica_ops[op].fmt;
  static const unsigned want[PICA_NFMT] = {0, 3, 3, 2, 4, 0, 0, 0, 4, 4};
  unsigned need = want[fmt];
  if (op == PICA_CALL) need = 2;
  else if (op == PICA_BREAKC) need = 1;
  else if (op == PICA_JMPC || op == PICA_JMPU || op == PICA_LOOP) need = 2;
  else if (fmt == PICA_F2 || fmt == PICA_F3) need = 3;
  if (fmt == PICA_F4 ? nargs < 1 || nargs > 2 : nargs != need)
    return err(a, "%s takes %u operand(s), not %u", mn, fmt == PICA_F4 ? 1 : need, nargs);
  opnd s[3], dst = {0};
  unsigned od_mask = 0xF;
  int rc;
  if (fmt == PICA_F1 || fmt == PICA_F1I || fmt == PICA_F1U || fmt == PICA_F5 || fmt == PICA_F5I) {
    unsigned ns = nargs - 1;
    if (op == PICA_MOVA) {
      od_mask = !strcmp(arg[0], "a0.x") ? 8 : !strcmp(arg[0], "a0.y") ? 4 : !strcmp(arg[0], "a0.xy") ? 12 : 0;
      if (!od_mask) return err(a, "mova writes a0.x, a0.y or a0.xy, not '%s'", arg[0]);
    } else if ((rc = parse_reg(a, arg[0], 1, &dst)) < 0) return rc;
    else od_mask = dst.mask;
    for (unsigned k = 0; k < ns; k++)
      if ((rc = parse_reg(a, arg[k + 1], 0, &s[k])) < 0) return rc;
    /* picasso's choice of the inverted forms */
    if (flip_form(op) && ((fmt == PICA_F1 && !narrow_ok(&s[1]) && narrow_ok(&s[0])) ||
                          (fmt == PICA_F1I && !narrow_ok(&s[0]) && narrow_ok(&s[1]))))
      op = flip_form(op), fmt = pica_ops[op].fmt;
    if (fmt == PICA_F5 && !narrow_ok(&s[2])) op = PICA_MADI, fmt = PICA_F5I;
    if (fmt == PICA_F5I && narrow_ok(&s[2]) && !narrow_ok(&s[1])) op = PICA_MAD, fmt = PICA_F5;
    const pica_layout *L = &pica_layouts[fmt];
    for (unsigned k = 0; k < ns; k++)
      if (k + 1 != L->wide && !narrow_ok(&s[k]))
        return err(a, "%s: source %u ('%s') must be v0-v15 or r0-r15 without an offset", pica_ops[op].name, k + 1,
                   arg[k + 1]);
    uint32_t w = pica_put(0, L->opcode, op >> (L->opcode.lo - 26));
    if (op != PICA_MOVA) w = pica_put(w, L->dst, dst.reg);
    for (unsigned k = 0; k < ns; k++) w = pica_put(w, L->src[k], s[k].reg);
    w = pica_put(w, L->idx, s[L->wide - 1].rel);
    li->word = w, li->has_desc = 1, li->is_mad = fmt == PICA_F5 || fmt == PICA_F5I;
    uint32_t od = pica_put(0, pica_od_mask, od_mask);
    for (unsigned k = 0; k < 3; k++)
      od = pica_put(pica_put(od, pica_od_swz[k], k < ns ? s[k].swz : 0x1B), pica_od_neg[k], k < ns && s[k].neg);
    li->od = od;
    return GS_OK;
  }
  const pica_layout *L = &pica_layouts[fmt];
  uint32_t w = pica_put(0, L->opcode, op >> (L->opcode.lo - 26)), t = 0;
  unsigned v = 0;
  switch (fmt) {
  case PICA_F0: break;
  case PICA_F1C: {
    static const char *const ops[6] = {"eq", "ne", "lt", "le", "gt", "ge"};
    unsigned cx = 6, cy = 6;
    for (unsigned k = 0; k < 6; k++) {
      if (!strcmp(arg[1], ops[k])) cx = k;
      if (!strcmp(arg[2], ops[k])) cy = k;
    }
    if (cx == 6 || cy == 6) return err(a, "cmp operators are eq ne lt le gt ge, not '%s'", cx == 6 ? arg[1] : arg[2]);
    if ((rc = parse_reg(a, arg[0], 0, &s[0])) < 0 || (rc = parse_reg(a, arg[3], 0, &s[1])) < 0) return rc;
    if (!narrow_ok(&s[1])) return err(a, "cmp: source 2 ('%s') must be v0-v15 or r0-r15 without an offset", arg[3]);
    w = pica_put(pica_put(pica_put(pica_put(w, L->cmpx, cx), L->cmpy, cy), L->src[0], s[0].reg), L->src[1], s[1].reg);
    w = pica_put(w, L->idx, s[0].rel);
    li->has_desc = 1;
    li->od = pica_put(0, pica_od_mask, 0xF);
    for (unsigned k = 0; k < 3; k++)
      li->od = pica_put(pica_put(li->od, pica_od_swz[k], k < 2 ? s[k].swz : 0x1B), pica_od_neg[k], k < 2 && s[k].neg);
    break;
  }
  case PICA_F2: {
    unsigned i = 0;
    if (op != PICA_CALL && (rc = parse_cond(a, arg[i++], &w, L)) < 0) return rc;
    if (op == PICA_BREAKC) break;
    if ((rc = parse_target(a, arg[i++], li, &t)) < 0) return rc;
    w = pica_put(w, L->target, t);
    if (op != PICA_JMPC) {
      if ((rc = parse_num(a, arg[i], 255, &v)) < 0) return rc;
      w = pica_put(w, L->num, v);
    }
    break;
  }
  case PICA_F3: {
    const char *u = arg[0];
    unsigned inv = 0;
    if (op == PICA_JMPU && *u == '!') inv = 1, u++;
    char kind = op == PICA_LOOP ? 'i' : 'b';
    if (*u != kind || parse_num(a, u + 1, op == PICA_LOOP ? 3 : 15, &v) < 0)
      return err(a, "%s takes %s, not '%s'", pica_ops[op].name, op == PICA_LOOP ? "i0-i3" : "b0-b15", arg[0]);
    w = pica_put(w, L->uid, v);
    if ((rc = parse_target(a, arg[1], li, &t)) < 0) return rc;
    w = pica_put(w, L->target, t);
    if (op == PICA_JMPU) w = pica_put(w, L->num, inv);
    else if (op != PICA_LOOP) {
      if ((rc = parse_num(a, arg[2], 255, &v)) < 0) return rc;
      w = pica_put(w, L->num, v);
    }
    break;
  }
  case PICA_F4: {
    if ((rc = parse_num(a, arg[0], 2, &v)) < 0) return rc;
    w = pica_put(w, L->vtxid, v);
    if (nargs == 2) {
      char *p = arg[1], *tok;
      while ((tok = strtok(p, " \t"))) {
        p = NULL;
        if (!strcmp(tok, "prim")) w = pica_put(w, L->prim, 1);
        else if (!strcmp(tok, "inv")) w = pica_put(w, L->winding, 1);
        else return err(a, "setemit flags are prim and inv, not '%s'", tok);
      }
    }
    break;
  }
  default: break;
  }
  li->word = w;
  return GS_OK;
}

/* ---- the program and its SHBIN -------------------------------------------------- */

static int add_desc(uint32_t *table, size_t *n, uint32_t od) {
  for (size_t k = 0; k < *n; k++)
    if (table[k] == od) return (int)k;
  if (*n == MAXDESC) return -1;
  table[*n] = od;
  return (int)(*n)++;
}

int pica_asm(const char *src, const char *file, gs_isa_binary *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  actx *a = calloc(1, sizeof *a);
  line_insn *ins = calloc(MAXWORDS, sizeof *ins);
  char *text = malloc(strlen(src) + 1);
  int rc = GS_OK;
  if (!a || !ins || !text) {
    rc = gs_diag_set(d, GS_ENOMEM, "%s: out of memory", file);
    goto done;
  }
  strcpy(text, src);
  a->file = file ? file : "<input>", a->d = d, a->ins = ins;
  char *next = text;
  for (unsigned line = 1; next && rc == GS_OK; line++) {
    char *l = next, *nl = strchr(l, '\n');
    next = nl ? nl + 1 : NULL;
    if (nl) *nl = 0;
    char *c = strchr(l, ';');
    if (c) *c = 0;
    a->line = line, a->col = 1;
    const char *start = l;
    while (isspace((unsigned char)*l)) l++;
    char *colon = strchr(l, ':');
    if (colon) { /* label: */
      *colon = 0;
      size_t n = strlen(l);
      int ident = n && (isalpha((unsigned char)l[0]) || l[0] == '_');
      for (size_t k = 0; k < n; k++) ident &= isalnum((unsigned char)l[k]) || l[k] == '_';
      if (!ident || n >= sizeof a->labels[0].name || a->nlabels == MAXLABELS) {
        rc = err(a, "bad label '%s'", l);
        break;
      }
      for (size_t k = 0; k < a->nlabels; k++)
        if (!strcmp(a->labels[k].name, l)) rc = err(a, "label '%s' defined twice", l);
      strcpy(a->labels[a->nlabels].name, l);
      a->labels[a->nlabels++].addr = (uint32_t)a->n;
      for (l = colon + 1; isspace((unsigned char)*l);) l++;
    }
    size_t n = strlen(l);
    while (n && isspace((unsigned char)l[n - 1])) l[--n] = 0;
    if (!n || rc < 0) continue;
    a->col = (unsigned)(l - start + 1);
    char *mn = l, *args = l + strcspn(l, " \t");
    if (*args) *args++ = 0;
    for (char *p = mn; *p; p++) *p = (char)tolower((unsigned char)*p);
    char *arg[8];
    unsigned nargs = 0;
    while (*args && nargs < 8) {
      while (isspace((unsigned char)*args)) args++;
      char *e = args + strcspn(args, ","), *f = e;
      int more = *e == ',';
      while (f > args && isspace((unsigned char)f[-1])) f--;
      *f = 0;
      if (f == args) {
        rc = err(a, "empty operand");
        break;
      }
      arg[nargs++] = args;
      args = more ? e + 1 : e + strlen(e);
      if (more && !*args) rc = err(a, "empty operand");
    }
    if (rc < 0) break;
    if (a->n == MAXWORDS) {
      rc = err(a, "more than %d instructions", MAXWORDS);
      break;
    }
    line_insn *li = &ins[a->n];
    li->line = line, li->col = a->col;
    if ((rc = encode(a, mn, arg, nargs, li)) == GS_OK) a->n++;
  }
  if (rc == GS_OK && !a->n) a->line = 1, rc = err(a, "no instructions");
  if (rc < 0) goto done;
  uint32_t od[MAXDESC];
  size_t nod = 0;
  for (int mad = 1; mad >= 0 && rc == GS_OK; mad--) /* mad/madi descriptors first: DESC 0-31 */
    for (size_t k = 0; k < a->n && rc == GS_OK; k++) {
      line_insn *li = &ins[k];
      if (!li->has_desc || (int)li->is_mad != mad) continue;
      int idx = add_desc(od, &nod, li->od);
      a->line = li->line, a->col = li->col;
      if (idx < 0 || (mad && idx >= 32))
        rc = err(a, "more than %d different operand descriptors", idx < 0 ? MAXDESC : 32);
      else li->word = pica_put(li->word, pica_layouts[pica_ops[li->word >> 26].fmt].desc, (uint32_t)idx);
    }
  for (size_t k = 0; k < a->n && rc == GS_OK; k++) {
    line_insn *li = &ins[k];
    if (!li->target[0]) continue;
    size_t j = 0;
    while (j < a->nlabels && strcmp(a->labels[j].name, li->target)) j++;
    a->line = li->line, a->col = li->col;
    if (j == a->nlabels) rc = err(a, "undefined label '%s'", li->target);
    else li->word = pica_put(li->word, pica_layouts[pica_ops[li->word >> 26].fmt].target, a->labels[j].addr);
  }
  if (rc < 0) goto done;
  /* DVLB (12 bytes) | DVLP header 0x28, words, descriptors (8 bytes) | DVLE header 0x40 */
  size_t p = 12, code = p + 0x28, ods = code + 4 * a->n, e = ods + 8 * nod, size = e + 0x40;
  uint8_t *f = calloc(1, size);
  out->lines = calloc(a->n + 1, sizeof *out->lines);
  if (!f || !out->lines) {
    free(f);
    rc = gs_diag_set(d, GS_ENOMEM, "%s: out of memory", a->file);
    goto done;
  }
  memcpy(f, "DVLB", 4), gs_put_le32(f + 4, 1), gs_put_le32(f + 8, (uint32_t)e);
  memcpy(f + p, "DVLP", 4);
  gs_put_le32(f + p + 0x08, 0x28), gs_put_le32(f + p + 0x0C, (uint32_t)a->n);
  gs_put_le32(f + p + 0x10, (uint32_t)(ods - p)), gs_put_le32(f + p + 0x14, (uint32_t)nod);
  gs_put_le32(f + p + 0x20, (uint32_t)(e - p));
  for (size_t k = 0; k < a->n; k++) {
    gs_put_le32(f + code + 4 * k, ins[k].word);
    out->lines[k].offset = (uint32_t)(code + 4 * k), out->lines[k].line = ins[k].line;
  }
  for (size_t k = 0; k < nod; k++) gs_put_le32(f + ods + 8 * k, od[k]);
  memcpy(f + e, "DVLE", 4), gs_put_le32(f + e + 4, 0x1002);
  gs_put_le32(f + e + 0x0C, (uint32_t)a->n);
  for (unsigned t = 0x18; t <= 0x38; t += 8) gs_put_le32(f + e + t, 0x40);
  out->bytes = f, out->size = size, out->nlines = a->n;
done:
  free(text);
  free(ins);
  free(a);
  return rc;
}
