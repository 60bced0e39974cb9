/* asm.c — the PICA200 assembler: picasso's syntax (directives, structured
 * blocks, aliases, uniforms and constants; docs/pica.md) and the
 * disassembler's plain listing, into a SHBIN (shbin.c writes it).
 *
 * The encoding decisions are picasso's, so that a public shader gives the
 * same bytes: operand descriptors are shared when they agree on every bit
 * the instruction reads (the others are "don't care"), those of mad/madi are
 * moved into slots 0-31; structured blocks store DST/NUM as picasso does and
 * padding NOPs go where picasso puts them; .constf values become float24 by
 * truncation; .fvec/.ivec/.bool allocate upward from c0/i0/b0 across files,
 * .constf/.consti downward from c95/i3 per file. Facts: picasso's Manual.md
 * and assembler (devkitPro), 3dbrew "GPU/Shader Instruction Set" and
 * "SHBIN". Register numbers below are picasso's: 0x00 v (and o), 0x10 r,
 * 0x20 c, 0x80 i, 0x88 b.
 */
#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/isa.h"
#include "isa/pica/table.h"

#define MAXWORDS 4096
#define VSH_WORDS 512 /* vertex shader program memory */
#define MAXDESC 128
#define NAMELEN 64
#define MAXNAMES 1024
#define MAXUNI 0x60
#define MAXCONST 0x60
#define MAXSTACK 32

enum { UT_BOOL, UT_IVEC, UT_FVEC };         /* the SHBIN's constant types */
enum { SE_PROC, SE_FOR, SE_IF, SE_ARRAY }; /* blocks */
enum { R_V = 0x00, R_R = 0x10, R_C = 0x20, R_I = 0x80, R_B = 0x88, R_END = 0x98 };

typedef struct opnd {
  int reg;       /* picasso's number (above); an o register is 0x00-0x0F with kind 'o' */
  char kind;     /* v r c o i b */
  unsigned idx;  /* PICA_IDX_* */
  unsigned neg;  /* negate */
  unsigned swz;  /* selector, component k at bits 7-2k..6-2k */
  const char *at;
  char text[48]; /* as written */
} opnd;

typedef struct alias {
  char name[NAMELEN];
  int reg;
  char kind;
  unsigned neg, swz;
} alias;

typedef struct uni {
  char name[NAMELEN];
  int pos, size, type;
} uni;

typedef struct cst {
  int reg, type; /* picasso's number */
  double f[4];
  int i[4];
} cst;

typedef struct ualloc {
  int start, end, bound, tend;
} ualloc;

typedef struct block {
  int type;
  uint32_t pos, else_pos;
  char name[NAMELEN];
  unsigned line, col;
} block;

typedef struct reloc {
  uint32_t at;
  char name[NAMELEN];
  const char *file;
  unsigned line, col;
} reloc;

typedef struct named {
  char name[NAMELEN];
  uint32_t a, b;
} named;

typedef struct dvle_b {
  const char *file;
  char entry[NAMELEN];
  unsigned entry_line, entry_col, first_word, last_word, has_proc, has_entry;
  int nodvle, gsh, compat, merge;
  uint16_t in_mask, out_mask;
  uint8_t gs_mode, gs_fixed_start, gs_var_num, gs_fixed_num;
  uni unis[MAXUNI];
  int nunis;
  cst consts[MAXCONST];
  int nconsts;
  struct { uint16_t type, reg, mask; } outs[16];
  int nouts;
  uint64_t out_used;
} dvle_b;

typedef struct actx {
  const char *file;
  gs_diag *d;
  unsigned line;
  const char *lstart; /* the current line, for columns */
  size_t llen;
  uint32_t code[MAXWORDS];
  unsigned wline[MAXWORDS];
  uint32_t n;
  uint32_t od[MAXDESC], odmask[MAXDESC], ismad;
  int nod;
  named procs[MAXNAMES];
  int nprocs;
  reloc prel[MAXWORDS], lrel[MAXWORDS];
  int nprel, nlrel;
  named labels[MAXNAMES];
  int nlabels;
  alias aliases[MAXNAMES];
  int naliases;
  uni glob[MAXUNI];
  int nglob;
  ualloc al[2][3]; /* [vertex, geometry space][UT_*] */
  block stack[MAXSTACK];
  int sp;
  int last_was_end;
  cst arr[MAXCONST];
  int narr, arr_size;
  char arr_name[NAMELEN];
  dvle_b *dv;
  size_t ndv;
  dvle_b *cur;
} actx;

static int err_at(actx *a, const char *at, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  unsigned col = 1;
  if (at && a->lstart && at >= a->lstart && at <= a->lstart + a->llen) col = (unsigned)(at - a->lstart + 1);
  return gs_diag_set(a->d, GS_EASM, "%s:%u:%u: %s", a->file, a->line, col, msg);
}

/* ---- text ----------------------------------------------------------------------- */

static char *trim(char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) s[--n] = 0;
  while (isspace((unsigned char)*s)) s++;
  return s;
}

/* s in lower case (keywords are case-insensitive, as in picasso). */
static char *lower(char *s) {
  for (char *p = s; p && *p; p++) *p = (char)tolower((unsigned char)*p);
  return s;
}

/* The next field of *p up to one of delim (consumed), trimmed; NULL at the
 * end. */
static char *field(char **p, const char *delim) {
  if (!*p) return NULL;
  char *s = *p;
  while (isspace((unsigned char)*s)) s++;
  if (!*s) return *p = NULL, NULL;
  size_t k = strcspn(s, delim);
  if (s[k]) s[k] = 0, *p = s + k + 1;
  else *p = NULL;
  return trim(s);
}

static char *word(char **p) { return field(p, " \t"); }

static int ident(const char *s) {
  if (!*s || strlen(s) >= NAMELEN) return 0;
  for (size_t k = 0; s[k]; k++)
    if (!(isalpha((unsigned char)s[k]) || s[k] == '_' || s[k] == '$' || (k && isdigit((unsigned char)s[k])))) return 0;
  return 1;
}

static int regname(const char *s) { return strchr("ovrcibOVRCIB", s[0]) && s[0] && isdigit((unsigned char)s[1]); }

static int comp_of(char c) {
  const char *s = strchr("xyzwrgbastpq", tolower((unsigned char)c));
  return c && s ? (int)((s - "xyzwrgbastpq") % 4) : -1;
}

/* Component letters (1-4) into a selector; a short one repeats its last
 * letter. -1 if not letters. */
static int swizzle(const char *s) {
  unsigned out = 0, n = 0;
  int q = 0;
  for (; s[n]; n++) {
    if (n == 4 || (q = comp_of(s[n])) < 0) return -1;
    out |= (unsigned)q << (6 - 2 * n);
  }
  if (!n) return -1;
  for (unsigned j = n; j < 4; j++) out |= (unsigned)q << (6 - 2 * j);
  return (int)out;
}

/* A destination's write mask from a selector (bit 3 x .. 0 w); -1 if its
 * letters go backwards (picasso only warns: they have no effect). */
static int mask_of(unsigned swz) {
  int m = 0;
  for (unsigned k = 0; k < 4; k++) {
    unsigned c = pica_swz_comp((uint8_t)swz, k);
    if (k && c < pica_swz_comp((uint8_t)swz, k - 1)) return -1;
    m |= 8 >> c;
  }
  return m;
}

static alias *find_alias(actx *a, const char *name) {
  for (int k = 0; k < a->naliases; k++)
    if (!strcmp(a->aliases[k].name, name)) return &a->aliases[k];
  return NULL;
}

static int add_alias(actx *a, const char *at, const char *name, int reg, char kind, unsigned neg, unsigned swz) {
  if (find_alias(a, name)) return err_at(a, at, "'%s' is already defined", name);
  if (a->naliases == MAXNAMES) return err_at(a, at, "more than %d names", MAXNAMES);
  alias *al = &a->aliases[a->naliases++];
  snprintf(al->name, sizeof al->name, "%s", name);
  al->reg = reg, al->kind = kind, al->neg = neg, al->swz = swz;
  return GS_OK;
}

/* The output registers .out may name: o0-o6 in a geometry shader (which
 * has seven outputs), o0-o15 in a vertex shader (picasso's maxOutputReg).
 * Instructions may name o0-o15 in both, as the encoding can (picasso
 * refuses o7+ in a geometry shader's instructions), so that any listing
 * assembles. */
static unsigned max_out(const actx *a) { return a->cur->gsh ? 7 : 16; }

/* [-]name-or-register[[offset]][.letters], picasso's parseReg: name[k],
 * name[a0.x], name[a0.y], name[aL], name[aL+k] (a0, a1, a2, lcnt: older
 * spellings); an alias's swizzle composes with the text's. */
static int parse_reg(actx *a, char *s, opnd *o) {
  memset(o, 0, sizeof *o);
  o->swz = 0x1B, o->at = s;
  snprintf(o->text, sizeof o->text, "%s", s);
  char *p = s;
  if (*p == '-') o->neg = 1, p++;
  int off = 0;
  char *br = strchr(p, '['), *rest = p;
  if (br) {
    char *close = strchr(br, ']');
    if (!close) return err_at(a, br, "'%s': missing ']'", o->text);
    *br = 0, *close = 0, rest = close + 1;
    char *in = trim(br + 1), *plus = strchr(in, '+'), *num = in, low[8] = "";
    static const char *const idxn[][3] = {{"a0.x", "a0", ""}, {"a0.y", "a1", ""}, {"al", "a2", "lcnt"}};
    size_t len = plus ? (size_t)(plus - in) : strlen(in);
    while (len && isspace((unsigned char)in[len - 1])) len--;
    for (size_t k = 0; k < len && len < sizeof low; k++) low[k] = (char)tolower((unsigned char)in[k]);
    for (unsigned r = 0; r < 3 && *low; r++)
      for (unsigned k = 0; k < 3; k++)
        if (!strcmp(low, idxn[r][k])) o->idx = r + 1;
    if (plus) num = plus + 1;
    else if (o->idx) num = NULL;
    if (plus && !o->idx) return err_at(a, br, "'%s': the index register is a0.x, a0.y or aL", in);
    if (num) {
      char *e;
      num = trim(num);
      long v = strtol(num, &e, 0);
      if (!isdigit((unsigned char)*num) || *e || v > 95)
        return err_at(a, num, "'%s': the offset is a0.x, a0.y, aL, aL+k or a number 0-95", num);
      off = (int)v;
    }
  }
  char *dot = strchr(rest, '.');
  if (dot) {
    *dot = 0;
    int sw = swizzle(dot + 1);
    if (sw < 0) return err_at(a, dot + 1, "'%s': bad component letters (xyzw, rgba or stpq, at most 4)", dot + 1);
    o->swz = (unsigned)sw;
  }
  if (rest != p && br && *trim(rest)) return err_at(a, rest, "unexpected '%s'", rest);
  if (!br && dot && !*p) return err_at(a, p, "no register before '.'");
  alias *al = find_alias(a, p);
  if (al) {
    o->reg = al->reg + off, o->kind = al->kind, o->neg ^= al->neg;
    unsigned sw = 0;
    for (unsigned j = 0; j < 4; j++) sw |= pica_swz_comp((uint8_t)al->swz, pica_swz_comp((uint8_t)o->swz, j)) << (6 - 2 * j);
    o->swz = sw;
  } else {
    char *e;
    if (!regname(p)) return err_at(a, p, "'%s' is not a register or a name", p);
    long k = strtol(p + 1, &e, 10);
    if (*e) return err_at(a, p, "'%s' is not a register or a name", p);
    o->kind = (char)tolower((unsigned char)p[0]);
    static const char kinds[] = "vrcoib";
    static const int base[] = {R_V, R_R, R_C, R_V, R_I, R_B}, count[] = {16, 16, 96, 16, 4, 16};
    int t = (int)(strchr(kinds, o->kind) - kinds), cnt = count[t];
    if (k >= cnt) return err_at(a, p, "'%s': no such register (%c0-%c%d)", p, o->kind, o->kind, cnt - 1);
    o->reg = base[t] + (int)k + off;
  }
  static const int limit[128] = {['v'] = 0x10, ['o'] = 0x10, ['r'] = 0x20, ['c'] = 0x80, ['i'] = 0x84, ['b'] = 0x98};
  if (o->reg >= limit[(unsigned char)o->kind])
    return err_at(a, s, "'%s': the offset goes past the last register", o->text);
  /* picasso refuses an index on v and r; the hardware ignores it there
   * (3dbrew), and the disassembler shows such words, so it is accepted */
  if (o->idx && !strchr("vrc", o->kind)) return err_at(a, s, "'%s': relative addressing applies to source registers", o->text);
  return GS_OK;
}

/* A source (v, r, c) or, dst, a destination (o, r). */
static int parse_src(actx *a, char *s, opnd *o) {
  int rc = parse_reg(a, s, o);
  if (rc < 0) return rc;
  if (!strchr("vrc", o->kind)) return err_at(a, s, "'%s' is not a source register (v0-v15, r0-r15, c0-c95)", o->text);
  return GS_OK;
}

static int parse_dst(actx *a, char *s, opnd *o, unsigned *mask) {
  int rc = parse_reg(a, s, o);
  if (rc < 0) return rc;
  if (!strchr("or", o->kind) || o->neg || o->idx)
    return err_at(a, s, "'%s' is not a destination register (o0-o15, r0-r15)", o->text);
  int m = mask_of(o->swz);
  if (m < 0) return err_at(a, s, "'%s': mask letters must be in xyzw order", o->text);
  *mask = (unsigned)m;
  return GS_OK;
}

/* Whether o fits a 5-bit source field (which has no index). */
static int narrow(const opnd *o) { return o->kind != 'c' && !o->idx; }

/* ---- operand descriptors (picasso's findOrAddOpdesc) ------------------------------- */

static uint32_t od_make(unsigned mask, const opnd *s1, const opnd *s2, const opnd *s3) {
  const opnd *s[3] = {s1, s2, s3};
  uint32_t od = pica_put(0, pica_od_mask, mask);
  for (unsigned k = 0; k < 3; k++)
    if (s[k]) od = pica_put(pica_put(od, pica_od_swz[k], s[k]->swz), pica_od_neg[k], s[k]->neg);
  return od;
}

/* The bits of a descriptor op reads: dmask (the write mask), each source's
 * negate and selector, less the components the operation ignores. */
static uint32_t od_care(unsigned op, uint32_t od, unsigned nsrc, int dmask) {
  uint32_t care = dmask ? 0xFu : 0;
  for (unsigned k = 0; k < nsrc; k++) care |= 0x1FFu << (4 + 9 * k);
  unsigned unused[3] = {0, 0, 0}; /* components, bit k = component k */
  unsigned wm = od & 0xF;
  switch (op) {
  case PICA_ADD: case PICA_MUL: case PICA_SGE: case PICA_SLT: case PICA_FLR: case PICA_MAX: case PICA_MIN:
  case PICA_MOV: case PICA_MAD:
    for (unsigned i = 0; i < 4; i++)
      if (!(wm & (8u >> i))) unused[0] |= 1u << i;
    unused[1] = unused[2] = unused[0];
    break;
  case PICA_DP3: unused[0] = unused[1] = 8; break;
  case PICA_DPH: unused[0] = 8; break;
  case PICA_EX2: case PICA_LG2: case PICA_RCP: case PICA_RSQ: unused[0] = 14; break;
  case PICA_MOVA:
    if (!(wm & 8)) unused[0] |= 1;
    if (!(wm & 4)) unused[0] |= 2;
    unused[0] |= 12;
    break;
  case PICA_CMP: unused[0] = 12; break;
  default: break;
  }
  for (unsigned k = 0; k < 3; k++)
    for (unsigned i = 0; i < 4; i++)
      if (unused[k] >> i & 1) care &= ~(3u << (pica_od_swz[k].lo + 6 - 2 * i));
  return care;
}

/* The descriptor index for od (bits care), shared when an entry agrees on
 * the bits both read; a mad's moves into 0-31 (swapping with an entry no
 * mad uses, and renumbering the 7-bit DESC fields already written). */
static int find_desc(actx *a, const char *at, uint32_t od, uint32_t care, int mad) {
  int i;
  for (i = 0; i < a->nod; i++) {
    uint32_t both = care & a->odmask[i];
    if ((od & both) == (a->od[i] & both)) {
      a->od[i] = (a->od[i] & ~care) | (od & care);
      a->odmask[i] |= care;
      break;
    }
  }
  if (i == a->nod) {
    if (a->nod == MAXDESC) return err_at(a, at, "more than %d different operand descriptors", MAXDESC);
    a->od[i] = od, a->odmask[i] = care, a->nod++;
  }
  if (!mad) return i;
  if (i >= 32) {
    int w = 0;
    while (w < 32 && (a->ismad >> w & 1)) w++;
    if (w == 32) return err_at(a, at, "more than 32 operand descriptors used by mad/madi (DESC is 5 bits)");
    uint32_t t = a->od[w];
    a->od[w] = a->od[i], a->od[i] = t;
    t = a->odmask[w], a->odmask[w] = a->odmask[i], a->odmask[i] = t;
    for (uint32_t k = 0; k < a->n; k++) {
      unsigned op = a->code[k] >> 26;
      if (op < 0x20 || (op & ~1u) == PICA_CMP) {
        unsigned dsc = a->code[k] & 0x7F;
        dsc = dsc == (unsigned)w ? (unsigned)i : dsc == (unsigned)i ? (unsigned)w : dsc;
        a->code[k] = (a->code[k] & ~0x7Fu) | dsc;
      }
    }
    i = w;
  }
  a->ismad |= 1u << i;
  return i;
}

/* ---- instructions ----------------------------------------------------------------- */

static int emit(actx *a, const char *at, uint32_t w) {
  if (a->n == MAXWORDS) return err_at(a, at, "more than %d program words", MAXWORDS);
  a->wline[a->n] = a->line;
  a->code[a->n++] = w;
  return GS_OK;
}

static int pad_nop(actx *a) { return emit(a, NULL, (uint32_t)PICA_NOP << 26); }

static int add_reloc(actx *a, reloc *r, int *n, const char *name, const char *at) {
  if (!ident(name)) return err_at(a, at, "'%s' is not a name", name);
  if (*n >= MAXWORDS || a->n == MAXWORDS) return err_at(a, at, "more than %d program words", MAXWORDS);
  reloc *x = &r[(*n)++];
  x->at = a->n, x->file = a->file, x->line = a->line, x->col = (unsigned)(at - a->lstart + 1);
  snprintf(x->name, sizeof x->name, "%s", name);
  return GS_OK;
}

static int parse_num(actx *a, const char *s, long min, long max, long *v) {
  char *e;
  *v = strtol(s, &e, 0);
  if (!*s || *e || (!isdigit((unsigned char)*s) && *s != '-') || *v < min || *v > max)
    return err_at(a, s, "'%s' is not a number %ld-%ld", s, min, max);
  return GS_OK;
}

/* A target: a word address or a name (resolved later). */
static int target(actx *a, const char *s, uint32_t *w, reloc *r, int *n) {
  if (isdigit((unsigned char)*s)) {
    long v;
    int rc = parse_num(a, s, 0, MAXWORDS - 1, &v);
    if (rc < 0) return rc;
    *w = pica_put(*w, pica_layouts[PICA_F2].target, (uint32_t)v);
    return GS_OK;
  }
  return add_reloc(a, r, n, s, s);
}

/* cmp.x, !cmp.y, a && b, a || b (& and | alone too). */
static int parse_cond(actx *a, char *s, uint32_t *w) {
  const pica_layout *L = &pica_layouts[PICA_F2];
  unsigned op = 0, ref[2] = {1, 1}, nf = 0;
  int which[2] = {-1, -1};
  char *second = NULL, *sep = s + strcspn(s, "&|");
  if (*sep) {
    op = *sep == '&' ? PICA_COND_AND : PICA_COND_OR;
    char t = *sep;
    *sep = 0, second = sep + 1;
    if (*second == t) second++;
  }
  for (char *t = s; t; t = second, second = NULL) {
    t = trim(t);
    unsigned neg = 0;
    for (; *t == '!'; t++) neg ^= 1;
    int f = !strcmp(lower(t), "cmp.x") ? 0 : !strcmp(t, "cmp.y") ? 1 : -1;
    if (f < 0) return err_at(a, t, "'%s' is not a condition (cmp.x, !cmp.y, a && b, a || b)", t);
    if (nf && which[0] == f) return err_at(a, t, "'%s': the condition tests cmp.%c twice", t, "xy"[f]);
    which[nf++] = f, ref[f] = !neg;
  }
  if (nf == 1) op = which[0] ? PICA_COND_Y : PICA_COND_X;
  *w = pica_put(pica_put(pica_put(*w, L->condop, op), L->refx, ref[0]), L->refy, ref[1]);
  return GS_OK;
}

static int push(actx *a, const char *at, int type, const char *name) {
  if (a->sp == MAXSTACK) return err_at(a, at, "blocks nested more than %d deep", MAXSTACK);
  block *b = &a->stack[a->sp++];
  memset(b, 0, sizeof *b);
  b->type = type, b->pos = a->n, b->line = a->line, b->col = (unsigned)(at - a->lstart + 1);
  if (name) snprintf(b->name, sizeof b->name, "%s", name);
  return GS_OK;
}

static int inverted_form(unsigned op) {
  return op == PICA_DPH ? PICA_DPHI : op == PICA_DST ? PICA_DSTI : op == PICA_SGE ? PICA_SGEI : op == PICA_SLT ? PICA_SLTI : 0;
}

/* The opcode of a mnemonic; the inverted ones (dphi, ..., madi) give the
 * plain opcode and *inv = 1: both pick their form from the operands (as in
 * picasso), each keeping its own when either would do (picasso takes the
 * plain one then). */
static int find_op(const char *mn, int *inv) {
  *inv = 0;
  for (int k = 0; k < 64; k++)
    if (pica_ops[k].name && !strcmp(pica_ops[k].name, mn) && (*inv = k == PICA_MADI || (k >= PICA_DPHI && k <= PICA_SLTI), 1)) switch (k) {
      case PICA_DPHI: return PICA_DPH;
      case PICA_DSTI: return PICA_DST;
      case PICA_SGEI: return PICA_SGE;
      case PICA_SLTI: return PICA_SLT;
      case PICA_MADI: return PICA_MAD;
      default: return k;
      }
  return -1;
}

static int instruction(actx *a, char *mn, char *args) {
  char *arg[6];
  unsigned n = 0;
  for (char *t; n < 6 && (t = field(&args, ","));) arg[n++] = t;
  if (args) return err_at(a, args, "too many operands");
  for (char *p = mn; *p; p++) *p = (char)tolower((unsigned char)*p);
  int want_inv, op = find_op(mn, &want_inv);
  if (op < 0) return err_at(a, mn, "unknown instruction '%s'", mn);
  if (!a->cur->gsh && a->n >= VSH_WORDS)
    return err_at(a, mn, "more than %d words: a vertex shader's program memory is full", VSH_WORDS);
  a->last_was_end = 0;
  unsigned fmt = pica_ops[op].fmt;
  const pica_layout *L = &pica_layouts[fmt];
  uint32_t w = pica_put(0, L->opcode, (uint32_t)op >> (L->opcode.lo - 26));
  opnd s[3], d;
  unsigned mask = 0xF;
  int rc;
#define NEED(k) \
  if (n != (k)) return err_at(a, mn, "%s takes %u operand(s), not %u", mn, (unsigned)(k), n)
  switch (fmt) {
  case PICA_F0: NEED(0); return emit(a, mn, w);
  case PICA_F1: case PICA_F1I: {
    NEED(3);
    if ((rc = parse_dst(a, arg[0], &d, &mask)) < 0 || (rc = parse_src(a, arg[1], &s[0])) < 0 ||
        (rc = parse_src(a, arg[2], &s[1])) < 0)
      return rc;
    int inv = inverted_form((unsigned)op) && narrow(&s[0]) && (!narrow(&s[1]) || (want_inv && narrow(&s[1])));
    if (!narrow(&s[1]) && !inv)
      return err_at(a, arg[2], "%s: source 2 ('%s') must be v0-v15 or r0-r15 (only one source can be a c register)", mn, arg[2]);
    uint32_t od = od_make(mask, &s[0], &s[1], NULL);
    int desc = find_desc(a, mn, od, od_care((unsigned)op, od, 2, 1), 0);
    if (desc < 0) return desc;
    if (inv) {
      const pica_layout *I = &pica_layouts[PICA_F1I];
      w = pica_put(0, I->opcode, (uint32_t)inverted_form((unsigned)op));
      w = pica_put(pica_put(w, I->src[0], (uint32_t)s[0].reg), I->src[1], (uint32_t)s[1].reg);
      w = pica_put(w, I->idx, s[1].idx);
    } else {
      w = pica_put(pica_put(w, L->src[0], (uint32_t)s[0].reg), L->src[1], (uint32_t)s[1].reg);
      w = pica_put(w, L->idx, s[0].idx);
    }
    return emit(a, mn, pica_put(pica_put(w, L->dst, (uint32_t)d.reg), L->desc, (uint32_t)desc));
  }
  case PICA_F1U: {
    NEED(2);
    if (op == PICA_MOVA) {
      static const char *const names[3][2] = {{"a0.x", "a0"}, {"a0.y", "a1"}, {"a0.xy", "a01"}};
      static const unsigned m[3] = {8, 4, 12};
      mask = 0;
      lower(arg[0]);
      for (unsigned k = 0; k < 3; k++)
        if (!strcmp(arg[0], names[k][0]) || !strcmp(arg[0], names[k][1])) mask = m[k];
      if (!mask) return err_at(a, arg[0], "mova writes a0.x, a0.y or a0.xy, not '%s'", arg[0]);
    } else if ((rc = parse_dst(a, arg[0], &d, &mask)) < 0)
      return rc;
    if ((rc = parse_src(a, arg[1], &s[0])) < 0) return rc;
    uint32_t od = od_make(mask, &s[0], NULL, NULL);
    int desc = find_desc(a, mn, od, od_care((unsigned)op, od, 1, 1), 0);
    if (desc < 0) return desc;
    if (op != PICA_MOVA) w = pica_put(w, L->dst, (uint32_t)d.reg);
    w = pica_put(pica_put(w, L->src[0], (uint32_t)s[0].reg), L->idx, s[0].idx);
    return emit(a, mn, pica_put(w, L->desc, (uint32_t)desc));
  }
  case PICA_F1C: {
    NEED(4);
    static const char *const ops[6] = {"eq", "ne", "lt", "le", "gt", "ge"};
    unsigned c[2] = {6, 6};
    for (unsigned j = 0; j < 2; j++) {
      lower(arg[1 + j]);
      for (unsigned k = 0; k < 6; k++)
        if (!strcmp(arg[1 + j], ops[k])) c[j] = k;
      if (c[j] == 6) return err_at(a, arg[1 + j], "cmp operators are eq ne lt le gt ge, not '%s'", arg[1 + j]);
    }
    if ((rc = parse_src(a, arg[0], &s[0])) < 0 || (rc = parse_src(a, arg[3], &s[1])) < 0) return rc;
    if (!narrow(&s[1])) return err_at(a, arg[3], "cmp: source 2 ('%s') must be v0-v15 or r0-r15", arg[3]);
    uint32_t od = od_make(0, &s[0], &s[1], NULL);
    int desc = find_desc(a, mn, od, od_care(PICA_CMP, od, 2, 0), 0);
    if (desc < 0) return desc;
    w = pica_put(pica_put(w, L->cmpx, c[0]), L->cmpy, c[1]);
    w = pica_put(pica_put(pica_put(w, L->src[0], (uint32_t)s[0].reg), L->src[1], (uint32_t)s[1].reg), L->idx, s[0].idx);
    return emit(a, mn, pica_put(w, L->desc, (uint32_t)desc));
  }
  case PICA_F5: {
    NEED(4);
    if ((rc = parse_dst(a, arg[0], &d, &mask)) < 0) return rc;
    for (unsigned k = 0; k < 3; k++)
      if ((rc = parse_src(a, arg[k + 1], &s[k])) < 0) return rc;
    if (!narrow(&s[0])) return err_at(a, arg[1], "mad: source 1 ('%s') must be v0-v15 or r0-r15", arg[1]);
    int inv = narrow(&s[1]) && (!narrow(&s[2]) || (want_inv && narrow(&s[2])));
    if (!inv && !narrow(&s[2]))
      return err_at(a, arg[3], "mad: only one of sources 2 and 3 can be a c register");
    uint32_t od = od_make(mask, &s[0], &s[1], &s[2]);
    int desc = find_desc(a, mn, od, od_care(PICA_MAD, od, 3, 1), 1);
    if (desc < 0) return desc;
    const pica_layout *M = &pica_layouts[inv ? PICA_F5I : PICA_F5];
    w = pica_put(0, M->opcode, inv ? 6 : 7);
    for (unsigned k = 0; k < 3; k++) w = pica_put(w, M->src[k], (uint32_t)s[k].reg);
    w = pica_put(pica_put(w, M->idx, s[M->wide - 1].idx), M->dst, (uint32_t)d.reg);
    return emit(a, mn, pica_put(w, M->desc, (uint32_t)desc));
  }
  case PICA_F4: {
    if (n < 1 || n > 2) return err_at(a, mn, "setemit takes a vertex 0-2 and the flags prim and inv");
    long v;
    if ((rc = parse_num(a, arg[0], 0, 2, &v)) < 0) return rc;
    w = pica_put(w, L->vtxid, (uint32_t)v);
    for (char *f, *p = n == 2 ? arg[1] : NULL; (f = word(&p));) {
      if (!strcmp(lower(f), "prim") || !strcmp(f, "primitive")) w = pica_put(w, L->prim, 1);
      else if (!strcmp(f, "inv") || !strcmp(f, "invert")) w = pica_put(w, L->winding, 1);
      else return err_at(a, f, "setemit flags are prim and inv, not '%s'", f);
    }
    if (!a->cur->gsh) a->cur->gsh = a->cur->compat = 1;
    return emit(a, mn, w);
  }
  default: break;
  }
  /* flow control: structured forms (picasso) and explicit ones (target, NUM) */
  long v;
  opnd u;
  if (fmt == PICA_F3) {
    if (n < 1) return err_at(a, mn, "%s takes a uniform", mn);
    char *name = arg[0];
    unsigned inv = 0;
    if (*name == '!') {
      if (op != PICA_JMPU) return err_at(a, name, "%s cannot invert its condition (only jmpu can)", mn);
      inv = 1, name++;
    }
    if ((rc = parse_reg(a, name, &u)) < 0) return rc;
    char want = op == PICA_LOOP ? 'i' : 'b';
    if (u.kind != want || u.neg || u.idx)
      return err_at(a, name, "%s takes %s, not '%s'", mn, op == PICA_LOOP ? "i0-i3" : "b0-b15", name);
    w = pica_put(w, L->uid, (uint32_t)(u.reg - (want == 'i' ? R_I : R_B)));
    if (op == PICA_JMPU) {
      NEED(2);
      if ((rc = target(a, arg[1], &w, a->lrel, &a->nlrel)) < 0) return rc;
      return emit(a, mn, pica_put(w, L->num, inv));
    }
    if (op == PICA_LOOP) {
      if (n == 1) return (rc = push(a, mn, SE_FOR, NULL)) < 0 ? rc : emit(a, mn, w);
      NEED(2);
      if ((rc = target(a, arg[1], &w, a->lrel, &a->nlrel)) < 0) return rc;
      return emit(a, mn, w);
    }
    if (op == PICA_IFU && n == 1) return (rc = push(a, mn, SE_IF, NULL)) < 0 ? rc : emit(a, mn, w);
    if (op == PICA_CALLU && n == 2) return (rc = add_reloc(a, a->prel, &a->nprel, arg[1], arg[1])) < 0 ? rc : emit(a, mn, w);
    NEED(3);
  } else { /* F2 */
    unsigned i = 0;
    if (op != PICA_CALL) {
      if (n < 1) return err_at(a, mn, "%s takes a condition", mn);
      if ((rc = parse_cond(a, arg[i++], &w)) < 0) return rc;
    }
    if (op == PICA_BREAKC) {
      NEED(1);
      return emit(a, mn, w);
    }
    if (op == PICA_JMPC) {
      NEED(2);
      if ((rc = target(a, arg[1], &w, a->lrel, &a->nlrel)) < 0) return rc;
      return emit(a, mn, w);
    }
    if (op == PICA_IFC && n == 1) return (rc = push(a, mn, SE_IF, NULL)) < 0 ? rc : emit(a, mn, w);
    if ((op == PICA_CALL && n == 1) || (op == PICA_CALLC && n == 2))
      return (rc = add_reloc(a, a->prel, &a->nprel, arg[i], arg[i])) < 0 ? rc : emit(a, mn, w);
    NEED(i + 2);
  }
  /* explicit: target, NUM */
  if ((rc = target(a, arg[n - 2], &w, a->lrel, &a->nlrel)) < 0) return rc;
  if ((rc = parse_num(a, arg[n - 1], 0, 255, &v)) < 0) return rc;
  return emit(a, mn, pica_put(w, L->num, (uint32_t)v));
#undef NEED
}

/* ---- directives ------------------------------------------------------------------- */

static ualloc *alloc_of(actx *a, int type) { return &a->al[a->cur->gsh && !a->cur->compat][type]; }

static int alloc_global(ualloc *u, int size) {
  if (u->start + size > u->bound) return -1;
  int r = u->start;
  u->start += size;
  return r;
}

static int alloc_local(ualloc *u, int size) {
  int pos = u->end - size;
  if (pos < u->start) return -1;
  if (pos < u->bound) u->bound = pos;
  u->end = pos;
  return pos;
}

static int no_more(actx *a, char *rest) {
  return rest && *trim(rest) ? err_at(a, trim(rest), "unexpected '%s'", trim(rest)) : GS_OK;
}

static int pad_block_end(actx *a, const block *b) {
  if (b->type != SE_ARRAY && a->last_was_end) {
    a->last_was_end = 0;
    return pad_nop(a);
  }
  if (b->type == SE_ARRAY || !a->n) return GS_OK;
  unsigned last = a->code[a->n - 1] >> 26;
  if (last == PICA_JMPC || last == PICA_JMPU || last == PICA_CALL || last == PICA_CALLC || last == PICA_CALLU ||
      (b->type == SE_FOR && (last == PICA_BREAK || last == PICA_BREAKC)) ||
      a->n - b->pos < (b->type == SE_PROC ? 1u : 2u))
    return pad_nop(a);
  return GS_OK;
}

/* name(x, y, z, w) or name x y z w parts: the four values after '('. */
static int four_values(actx *a, char *s, char **v) {
  char *open = strchr(s, '('), *close = open ? strrchr(open, ')') : NULL;
  if (!open || !close) return err_at(a, s, "'%s': expected (x, y, z, w)", s);
  if (*trim(close + 1)) return err_at(a, close + 1, "unexpected '%s'", trim(close + 1));
  *close = 0;
  char *p = open + 1;
  for (int k = 0; k < 4; k++)
    if (!(v[k] = field(&p, ","))) return err_at(a, open, "four values are needed in ( )");
  if (p && *trim(p)) return err_at(a, p, "more than four values");
  *open = 0;
  return GS_OK;
}

/* picasso reads a value with atof: its longest prefix that is a number
 * (so `1.0/128.0` is 1.0); gpusim does too, for the same bytes, but refuses
 * a value that does not start with one. */
static int float_value(actx *a, const char *s, double *v) {
  char *e;
  *v = strtod(s, &e);
  if (e == s) return err_at(a, s, "'%s' is not a number", s);
  return GS_OK;
}

static int fill_const(actx *a, cst *c, int type, char **v) {
  for (int k = 0; k < 4; k++) {
    long x;
    int rc = type == UT_FVEC ? float_value(a, v[k], &c->f[k]) : parse_num(a, v[k], -128, 255, &x);
    if (rc < 0) return rc;
    if (type == UT_IVEC) c->i[k] = (int)(x & 0xFF);
  }
  c->type = type;
  return GS_OK;
}

static int add_const(actx *a, const char *at, const cst *c) {
  if (a->cur->nconsts == MAXCONST) return err_at(a, at, "more than %d constants", MAXCONST);
  a->cur->consts[a->cur->nconsts++] = *c;
  return GS_OK;
}

static int bool_value(actx *a, char *s, int *v) {
  lower(s);
  static const char *const t[] = {"true", "on", "1"}, *const f[] = {"false", "off", "0"};
  for (int k = 0; k < 3; k++) {
    if (!strcmp(s, t[k])) return *v = 1, GS_OK;
    if (!strcmp(s, f[k])) return *v = 0, GS_OK;
  }
  return err_at(a, s, "'%s' is not a bool (true, false, on, off, 1, 0)", s);
}

static int out_type(const char *s) {
  static const char *const n[][2] = {{"position", "pos"}, {"normalquat", "nquat"}, {"color", "clr"},
                                     {"texcoord0", "tcoord0"}, {"texcoord0w", "tcoord0w"},
                                     {"texcoord1", "tcoord1"}, {"texcoord2", "tcoord2"}, {"", ""},
                                     {"view", "view"}, {"dummy", "dummy"}};
  for (int k = 0; k < 10; k++)
    if (k != 7 && (!strcmp(s, n[k][0]) || !strcmp(s, n[k][1]))) return k;
  return -1;
}

static int directive(actx *a, char *dir, char *rest) {
  dvle_b *e = a->cur;
  int rc;
  char *t, *t2;
  opnd o;
  for (char *p = dir; *p; p++) *p = (char)tolower((unsigned char)*p);
  if (!strcmp(dir, ".proc")) {
    if (!(t = word(&rest)) || !ident(t)) return err_at(a, t ? t : dir, ".proc takes a name");
    if ((rc = no_more(a, rest)) < 0) return rc;
    for (int k = 0; k < a->nprocs; k++)
      if (!strcmp(a->procs[k].name, t)) return err_at(a, t, "procedure '%s' is defined twice", t);
    for (int k = 0; k < a->sp; k++)
      if (a->stack[k].type == SE_PROC && !strcmp(a->stack[k].name, t))
        return err_at(a, t, "procedure '%s' is defined twice", t);
    e->has_proc = 1;
    return push(a, t, SE_PROC, t);
  }
  if (!strcmp(dir, ".else")) {
    if ((rc = no_more(a, rest)) < 0) return rc;
    block *b = a->sp ? &a->stack[a->sp - 1] : NULL;
    if (!b || b->type != SE_IF) return err_at(a, dir, ".else outside an ifc/ifu block");
    if (b->else_pos) return err_at(a, dir, "a second .else in one block");
    unsigned last = a->code[a->n - 1] >> 26;
    if (a->last_was_end || last == PICA_JMPC || last == PICA_JMPU || last == PICA_CALL || last == PICA_CALLC ||
        last == PICA_CALLU || a->n - b->pos < 2)
      if ((rc = pad_nop(a)) < 0) return rc;
    a->last_was_end = 0;
    b->else_pos = a->n;
    a->code[b->pos] = pica_put(a->code[b->pos], pica_layouts[PICA_F2].target, a->n);
    return GS_OK;
  }
  if (!strcmp(dir, ".end")) {
    if ((rc = no_more(a, rest)) < 0) return rc;
    if (!a->sp) return err_at(a, dir, ".end outside a block");
    block b = a->stack[--a->sp];
    if ((rc = pad_block_end(a, &b)) < 0) return rc;
    uint32_t at = a->n;
    switch (b.type) {
    case SE_PROC:
      if (a->nprocs == MAXNAMES) return err_at(a, dir, "more than %d procedures", MAXNAMES);
      snprintf(a->procs[a->nprocs].name, NAMELEN, "%s", b.name);
      a->procs[a->nprocs].a = b.pos, a->procs[a->nprocs++].b = at - b.pos;
      break;
    case SE_FOR:
      a->code[b.pos] = pica_put(a->code[b.pos], pica_layouts[PICA_F3].target, at - 1);
      a->last_was_end = 1;
      break;
    case SE_IF:
      if (!b.else_pos) a->code[b.pos] = pica_put(a->code[b.pos], pica_layouts[PICA_F2].target, at);
      else if (at - b.else_pos > 255)
        return err_at(a, dir, "the .else block is %u words long (NUM reaches 255)", at - b.else_pos);
      else a->code[b.pos] = (a->code[b.pos] & ~0x3FFu) | (at - b.else_pos);
      a->last_was_end = 1;
      break;
    default: { /* SE_ARRAY */
      int size = a->narr;
      if (a->arr_size >= 0)
        for (; size < a->arr_size; size++) memset(&a->arr[size], 0, sizeof a->arr[size]), a->arr[size].type = UT_FVEC;
      if (!size) return err_at(a, dir, "the array '%s' has no elements", a->arr_name);
      int pos = alloc_local(alloc_of(a, UT_FVEC), size);
      if (pos < 0) return err_at(a, dir, "no room for the constant array '%s' (%d registers)", a->arr_name, size);
      if (e->nconsts + size > MAXCONST) return err_at(a, dir, "more than %d constants", MAXCONST);
      for (int k = 0; k < size; k++) a->arr[k].reg = pos + k, e->consts[e->nconsts++] = a->arr[k];
      if ((rc = add_alias(a, dir, a->arr_name, pos, 'c', 0, 0x1B)) < 0) return rc;
      a->narr = 0, a->arr_size = -1;
      break;
    }
    }
    return GS_OK;
  }
  if (!strcmp(dir, ".alias")) {
    if (!(t = word(&rest)) || !(t2 = word(&rest))) return err_at(a, dir, ".alias takes a name and a register");
    if ((rc = no_more(a, rest)) < 0) return rc;
    if (!ident(t) || regname(t)) return err_at(a, t, "'%s' cannot be an alias name", t);
    if ((rc = parse_reg(a, t2, &o)) < 0) return rc;
    if (o.idx) return err_at(a, t2, "an alias cannot hold an index register");
    return add_alias(a, t, t, o.reg, o.kind, o.neg, o.swz);
  }
  if (!strcmp(dir, ".fvec") || !strcmp(dir, ".ivec") || !strcmp(dir, ".bool")) {
    int type = dir[1] == 'f' ? UT_FVEC : dir[1] == 'i' ? UT_IVEC : UT_BOOL, shared = !(e->gsh && !e->compat);
    ualloc *u = alloc_of(a, type);
    if (!rest || !*trim(rest)) return err_at(a, dir, "%s takes names", dir);
    while ((t = field(&rest, ","))) {
      int size = 1;
      char *br = strchr(t, '[');
      if (br) {
        char *close = strchr(br, ']');
        long v;
        if (!close || *trim(close + 1)) return err_at(a, br, "'%s': expected name[size]", t);
        *close = 0, *br = 0;
        if ((rc = parse_num(a, trim(br + 1), 1, 96, &v)) < 0) return rc;
        size = (int)v;
        t = trim(t);
      }
      if (!ident(t) || regname(t)) return err_at(a, t, "'%s' cannot be a uniform name", t);
      if (find_alias(a, t)) return err_at(a, t, "'%s' is already defined", t);
      int pos = -1;
      for (int k = 0; shared && k < a->nglob; k++)
        if (!strcmp(a->glob[k].name, t)) {
          if (a->glob[k].type != type || a->glob[k].size != size)
            return err_at(a, t, "'%s' was declared with another type or size in an earlier file", t);
          pos = a->glob[k].pos;
        }
      if (pos < 0) {
        if (a->nglob == MAXUNI) return err_at(a, t, "more than %d uniforms", MAXUNI);
        if ((pos = alloc_global(u, size)) < 0) return err_at(a, t, "no room for the uniform '%s' (%d registers)", t, size);
        if (shared) {
          uni *g = &a->glob[a->nglob++];
          snprintf(g->name, NAMELEN, "%s", t);
          g->pos = pos, g->size = size, g->type = type;
        }
      }
      if (*t != '_') {
        if (e->nunis == MAXUNI) return err_at(a, t, "more than %d uniforms", MAXUNI);
        uni *x = &e->unis[e->nunis++];
        snprintf(x->name, NAMELEN, "%s", t);
        x->pos = pos, x->size = size, x->type = type;
      }
      if ((rc = add_alias(a, t, t, pos, "bic"[type], 0, 0x1B)) < 0) return rc;
    }
    return GS_OK;
  }
  if (!strcmp(dir, ".constf") || !strcmp(dir, ".consti") || !strcmp(dir, ".constb")) {
    int type = dir[6] == 'f' ? UT_FVEC : dir[6] == 'i' ? UT_IVEC : UT_BOOL;
    cst c = {0};
    char *v[4];
    t = trim(rest ? rest : (char *)"");
    if (type == UT_BOOL) {
      char *open = strchr(t, '('), *close = open ? strchr(open, ')') : NULL;
      if (!open || !close || *trim(close + 1)) return err_at(a, t, ".constb takes name(value)");
      *open = 0, *close = 0;
      c.type = UT_BOOL;
      if ((rc = bool_value(a, trim(open + 1), &c.i[0])) < 0) return rc;
    } else if ((rc = four_values(a, t, v)) < 0 || (rc = fill_const(a, &c, type, v)) < 0)
      return rc;
    t = trim(t);
    if (!ident(t) || regname(t)) return err_at(a, t, "'%s' cannot be a constant name", t);
    if (find_alias(a, t)) return err_at(a, t, "'%s' is already defined", t);
    if ((c.reg = alloc_local(alloc_of(a, type), 1)) < 0) return err_at(a, t, "no room for the constant '%s'", t);
    if ((rc = add_const(a, t, &c)) < 0) return rc;
    return add_alias(a, t, t, c.reg, "bic"[type], 0, 0x1B);
  }
  if (!strcmp(dir, ".constfa")) {
    t = trim(rest ? rest : (char *)"");
    if (a->sp && a->stack[a->sp - 1].type == SE_ARRAY) {
      char *v[4];
      cst c = {0};
      if (*t != '(') return err_at(a, t, ".constfa inside an array takes (x, y, z, w)");
      if (a->arr_size >= 0 ? a->narr >= a->arr_size : a->narr == MAXCONST)
        return err_at(a, t, "more elements than the array's size");
      if ((rc = four_values(a, t, v)) < 0 || (rc = fill_const(a, &c, UT_FVEC, v)) < 0) return rc;
      a->arr[a->narr++] = c;
      return GS_OK;
    }
    char *br = strchr(t, '['), *close = br ? strchr(br, ']') : NULL;
    if (!br || !close || *trim(close + 1)) return err_at(a, t, ".constfa takes name[] or name[size]");
    *br = 0, *close = 0;
    a->arr_size = -1;
    if (*trim(br + 1)) {
      long v;
      if ((rc = parse_num(a, trim(br + 1), 1, 96, &v)) < 0) return rc;
      a->arr_size = (int)v;
    }
    t = trim(t);
    if (!ident(t) || regname(t)) return err_at(a, t, "'%s' cannot be an array name", t);
    snprintf(a->arr_name, NAMELEN, "%s", t);
    a->narr = 0;
    return push(a, t, SE_ARRAY, t);
  }
  if (!strcmp(dir, ".setf") || !strcmp(dir, ".seti")) {
    int type = dir[4] == 'f' ? UT_FVEC : UT_IVEC;
    char *v[4];
    cst c = {0};
    t = trim(rest ? rest : (char *)"");
    if ((rc = four_values(a, t, v)) < 0 || (rc = fill_const(a, &c, type, v)) < 0) return rc;
    if ((rc = parse_reg(a, trim(t), &o)) < 0) return rc;
    if (o.kind != (type == UT_FVEC ? 'c' : 'i') || o.neg || o.idx || o.swz != 0x1B)
      return err_at(a, t, "%s takes %s, not '%s'", dir, type == UT_FVEC ? "c0-c95" : "i0-i3", t);
    c.reg = o.reg;
    return add_const(a, t, &c);
  }
  if (!strcmp(dir, ".setb")) {
    cst c = {0};
    t = trim(rest ? rest : (char *)"");
    char *open = strchr(t, '('), *val;
    if (open) { /* .setb b0(true) as well as picasso's .setb b0 true */
      char *close = strchr(open, ')');
      if (!close || *trim(close + 1)) return err_at(a, open, "expected (value)");
      *open = 0, *close = 0, val = trim(open + 1), t = trim(t);
    } else {
      if (!(t = word(&rest)) || !(val = word(&rest))) return err_at(a, dir, ".setb takes a register and a value");
      if ((rc = no_more(a, rest)) < 0) return rc;
    }
    if ((rc = parse_reg(a, t, &o)) < 0) return rc;
    if (o.kind != 'b' || o.neg || o.idx || o.swz != 0x1B) return err_at(a, t, ".setb takes b0-b15, not '%s'", t);
    c.type = UT_BOOL, c.reg = o.reg;
    if ((rc = bool_value(a, val, &c.i[0])) < 0) return rc;
    return add_const(a, t, &c);
  }
  if (!strcmp(dir, ".in")) {
    if (!(t = word(&rest))) return err_at(a, dir, ".in takes a name and, optionally, a register");
    t2 = word(&rest);
    if ((rc = no_more(a, rest)) < 0) return rc;
    if (!ident(t) || regname(t)) return err_at(a, t, "'%s' cannot be an input name", t);
    if (find_alias(a, t)) return err_at(a, t, "'%s' is already defined", t);
    int reg = -1;
    if (t2) {
      if ((rc = parse_reg(a, t2, &o)) < 0) return rc;
      if (o.kind != 'v' || o.neg || o.idx) return err_at(a, t2, ".in takes v0-v15, not '%s'", t2);
      reg = o.reg;
    } else
      for (int k = 15; k >= 0; k--)
        if (!(e->in_mask >> k & 1)) reg = k;
    if (reg < 0) return err_at(a, t, "no input register is left");
    if (e->nunis == MAXUNI) return err_at(a, t, "more than %d uniforms", MAXUNI);
    e->in_mask |= (uint16_t)(1u << reg);
    uni *x = &e->unis[e->nunis++];
    snprintf(x->name, NAMELEN, "%s", t);
    x->pos = reg, x->size = 1, x->type = UT_FVEC;
    return add_alias(a, t, t, reg, 'v', 0, 0x1B);
  }
  if (!strcmp(dir, ".out")) {
    if (!(t = word(&rest)) || !(t2 = word(&rest))) return err_at(a, dir, ".out takes a name (or -), a type and a register");
    char *r = word(&rest);
    if ((rc = no_more(a, rest)) < 0) return rc;
    int named = strcmp(t, "-") != 0;
    if (named && (!ident(t) || regname(t))) return err_at(a, t, "'%s' cannot be an output name", t);
    int reg = -1;
    unsigned sw = 0x1B;
    if (r) {
      if ((rc = parse_reg(a, r, &o)) < 0) return rc;
      if (o.kind != 'o' || o.neg || o.idx || o.reg >= (int)max_out(a))
        return err_at(a, r, ".out takes o0-o%u%s, not '%s'", max_out(a) - 1, a->cur->gsh ? " in a geometry shader" : "", r);
      reg = o.reg, sw = o.swz;
    } else {
      char *dot = strchr(t2, '.');
      if (dot) {
        int s = swizzle(dot + 1);
        if (s < 0) return err_at(a, dot + 1, "'%s': bad component letters", dot + 1);
        *dot = 0, sw = (unsigned)s;
      }
    }
    int type = out_type(lower(t2));
    if (type < 0)
      return err_at(a, t2, "'%s' is not an output type (position, normalquat, color, texcoord0, texcoord0w, "
                    "texcoord1, texcoord2, view, dummy)", t2);
    unsigned mask = 0; /* bit 0 x .. bit 3 w */
    for (unsigned k = 0; k < 4; k++) mask |= 1u << pica_swz_comp((uint8_t)sw, k);
    if (reg < 0)
      for (int k = (int)max_out(a) - 1; k >= 0; k--)
        if (!(e->out_mask >> k & 1)) reg = k;
    if (reg < 0 || e->nouts == 16) return err_at(a, dir, "no output register is left");
    if (r && (e->out_used >> (4 * reg) & mask)) return err_at(a, r, "o%d: these components are already an output", reg);
    if (reg >= 7 && type != 9) return err_at(a, r ? r : t2, "o%d can only be a dummy output (o0-o6 carry semantics)", reg);
    if (named && (rc = add_alias(a, t, t, reg, 'o', 0, 0x1B)) < 0) return rc;
    e->outs[e->nouts].type = (uint16_t)type, e->outs[e->nouts].reg = (uint16_t)reg;
    e->outs[e->nouts++].mask = (uint16_t)mask;
    e->out_mask |= (uint16_t)(1u << reg);
    e->out_used |= (uint64_t)mask << (4 * reg);
    if (type == 9 && e->gsh && !e->compat) e->merge = 1;
    return GS_OK;
  }
  if (!strcmp(dir, ".entry")) {
    if (!(t = word(&rest)) || !ident(t)) return err_at(a, t ? t : dir, ".entry takes a procedure name");
    if ((rc = no_more(a, rest)) < 0) return rc;
    snprintf(e->entry, NAMELEN, "%s", t);
    e->has_entry = 1, e->entry_line = a->line, e->entry_col = (unsigned)(t - a->lstart + 1);
    return GS_OK;
  }
  if (!strcmp(dir, ".nodvle")) {
    if ((rc = no_more(a, rest)) < 0) return rc;
    e->nodvle = 1;
    return GS_OK;
  }
  if (!strcmp(dir, ".gsh")) {
    if (!(t = word(&rest))) {
      e->gsh = e->compat = 1;
      return GS_OK;
    }
    if (e->gsh) return err_at(a, dir, ".gsh is given twice");
    if (e->nconsts || e->nunis || e->out_mask)
      return err_at(a, dir, ".gsh must come before any constant, uniform or output");
    int mode = !strcmp(lower(t), "point") ? 0 : !strcmp(t, "variable") || !strcmp(t, "subdivision") ? 1
             : !strcmp(t, "fixed") || !strcmp(t, "particle") ? 2 : -1;
    if (mode < 0) return err_at(a, t, "'%s' is not a geometry shader mode (point, variable, fixed)", t);
    e->gsh = 1, e->gs_mode = (uint8_t)mode;
    if (!(t2 = word(&rest))) return err_at(a, dir, ".gsh %s takes the first free c register", t);
    if ((rc = parse_reg(a, t2, &o)) < 0) return rc;
    if (o.kind != 'c' || o.neg || o.idx) return err_at(a, t2, "'%s' is not a c register", t2);
    int first = o.reg;
    long v;
    a->al[1][UT_FVEC] = (ualloc){first, 0x80, 0x80, 0x80};
    a->al[1][UT_IVEC] = (ualloc){R_I, 0x84, 0x84, 0x84};
    a->al[1][UT_BOOL] = (ualloc){R_B, 0x97, 0x97, 0x97}; /* b15: set by the hardware after each invocation */
    if (mode == 1) {
      if (!(t = word(&rest))) return err_at(a, dir, ".gsh variable takes a vertex count");
      if ((rc = parse_num(a, t, 0, 255, &v)) < 0) return rc;
      e->gs_var_num = (uint8_t)v;
    } else if (mode == 2) {
      if (!(t = word(&rest)) || !(t2 = word(&rest))) return err_at(a, dir, ".gsh fixed takes cN, the array start, and a count");
      if ((rc = parse_reg(a, t, &o)) < 0) return rc;
      if (o.kind != 'c' || o.neg || o.idx) return err_at(a, t, "'%s' is not a c register", t);
      if (o.reg >= first) return err_at(a, t, "'%s' overlaps the uniforms from the first free register on", t);
      if ((rc = parse_num(a, t2, 0, 255, &v)) < 0) return rc;
      e->gs_fixed_start = (uint8_t)(o.reg - R_C), e->gs_fixed_num = (uint8_t)v;
    }
    return no_more(a, rest);
  }
  return err_at(a, dir, "unknown directive '%s'", dir);
}

/* ---- files and the product ------------------------------------------------------------ */

static named *find_named(named *t, int n, const char *name) {
  for (int k = 0; k < n; k++)
    if (!strcmp(t[k].name, name)) return &t[k];
  return NULL;
}

static int asm_file(actx *a, const char *src, const char *file, char **keep) {
  a->file = file ? file : "<input>";
  for (int t = 0; t < 3; t++) a->al[0][t].end = a->al[0][t].tend;
  a->nlabels = a->nlrel = a->naliases = 0;
  dvle_b *e = a->cur = &a->dv[a->ndv++];
  memset(e, 0, sizeof *e);
  e->file = a->file, e->first_word = a->n;
  snprintf(e->entry, NAMELEN, "main");
  char *text = *keep = malloc(strlen(src) + 1);
  if (!text) return gs_diag_set(a->d, GS_ENOMEM, "%s: out of memory", a->file);
  strcpy(text, src);
  int rc = GS_OK;
  char *next = text;
  for (a->line = 1; next && rc == GS_OK; a->line++) {
    char *l = next, *nl = strchr(l, '\n');
    next = nl ? nl + 1 : NULL;
    if (nl) *nl = 0;
    char *c = strchr(l, ';');
    if (c) *c = 0;
    a->lstart = l, a->llen = strlen(l);
    char *colon;
    l = trim(l);
    while ((colon = strchr(l, ':'))) { /* label: */
      *colon = 0;
      char *name = trim(l);
      if (!ident(name)) return err_at(a, name, "'%s' is not a label name", name);
      if (find_named(a->labels, a->nlabels, name)) return err_at(a, name, "label '%s' is defined twice", name);
      if (a->nlabels == MAXNAMES) return err_at(a, name, "more than %d labels", MAXNAMES);
      snprintf(a->labels[a->nlabels].name, NAMELEN, "%s", name);
      a->labels[a->nlabels++].a = a->n;
      l = trim(colon + 1);
    }
    if (!*l) continue;
    if (*l == '#') { /* a C preprocessor's line marker: # LINE ["FILE"] */
      char *e, *q;
      long n = strtol(l + 1, &e, 10);
      if (e == l + 1 || n < 1) return err_at(a, l, "a line marker is # LINE [\"FILE\"]");
      a->line = (unsigned)n - 1;
      e = trim(e);
      if (*e == '"' && (q = strchr(e + 1, '"'))) *q = 0, a->file = e + 1;
      continue;
    }
    char *rest = l;
    char *cmd = word(&rest);
    rc = *cmd == '.' ? directive(a, cmd, rest) : instruction(a, cmd, rest ? rest : (char *)"");
  }
  a->line--;
  if (rc < 0) return rc;
  a->lstart = NULL;
  if (a->sp) {
    block *b = &a->stack[a->sp - 1];
    static const char *const what[4] = {".proc", "for", "if", ".constfa"};
    return gs_diag_set(a->d, GS_EASM, "%s:%u:%u: this %s block has no .end", a->file, b->line, b->col, what[b->type]);
  }
  for (int k = 0; k < a->nlrel; k++) {
    reloc *r = &a->lrel[k];
    named *l = find_named(a->labels, a->nlabels, r->name);
    if (!l) return gs_diag_set(a->d, GS_EASM, "%s:%u:%u: undefined label '%s'", r->file, r->line, r->col, r->name);
    a->code[r->at] = pica_put(a->code[r->at], pica_layouts[PICA_F2].target, l->a);
  }
  e->last_word = a->n;
  return GS_OK;
}

/* f32 to float24 by truncating the mantissa (picasso's f32tof24): exponent
 * rebiased from 127 to 63, underflow to signed zero, overflow to infinity. */
uint32_t pica_f24_picasso(double v) {
  float f = fabs(v) > FLT_MAX && !isnan(v) ? (float)(v < 0 ? -INFINITY : INFINITY) : (float)v;
  uint32_t i;
  memcpy(&i, &f, 4);
  uint32_t sign = i >> 31, mant = (i & 0x7FFFFF) >> 7;
  int exp = (int)((i >> 23) & 0xFF) - 127 + 63;
  if (exp < 0) return sign << 23;
  if (exp > 0x7F) return sign << 23 | 0x7Fu << 16;
  return sign << 23 | (uint32_t)exp << 16 | mant;
}

/* Uniforms by register, equal ones in the order declared (.in may name a
 * register twice), as picasso's sort leaves them. */
static void sort_unis(uni *u, int n) {
  for (int k = 1; k < n; k++) {
    uni t = u[k];
    int j = k;
    for (; j > 0 && u[j - 1].pos > t.pos; j--) u[j] = u[j - 1];
    u[j] = t;
  }
}

int pica_asm_files(const pica_asm_src *src, size_t nsrc, unsigned flags, gs_isa_binary *out, gs_diag *d) {
  memset(out, 0, sizeof *out);
  actx *a = calloc(1, sizeof *a);
  char **keep = calloc(nsrc + 1, sizeof *keep);
  pica_shbin s = {0};
  int rc = GS_OK;
  if (!a || !keep || !(a->dv = calloc(nsrc + 1, sizeof *a->dv)) || !(s.dvle = calloc(nsrc + 1, sizeof *s.dvle))) {
    rc = gs_diag_set(d, GS_ENOMEM, "pica: out of memory");
    goto done;
  }
  a->d = d, a->arr_size = -1;
  for (int x = 0; x < 2; x++) {
    a->al[x][UT_FVEC] = (ualloc){R_C, 0x80, 0x80, 0x80};
    a->al[x][UT_IVEC] = (ualloc){R_I, 0x84, 0x84, 0x84};
    a->al[x][UT_BOOL] = (ualloc){R_B, R_END, R_END, R_END};
  }
  for (size_t f = 0; f < nsrc && rc == GS_OK; f++) rc = asm_file(a, src[f].text, src[f].file, &keep[f]);
  if (rc < 0) goto done;
  a->lstart = NULL;
  if (!a->n) {
    rc = gs_diag_set(d, GS_EASM, "%s:1:1: no instructions", a->file);
    goto done;
  }
  for (int k = 0; k < a->nprel; k++) { /* call*: DST = the procedure's start, NUM = its length */
    reloc *r = &a->prel[k];
    named *p = find_named(a->procs, a->nprocs, r->name);
    if (!p) {
      rc = gs_diag_set(d, GS_EASM, "%s:%u:%u: undefined procedure '%s'", r->file, r->line, r->col, r->name);
      goto done;
    }
    if (p->b > 255) {
      rc = gs_diag_set(d, GS_EASM, "%s:%u:%u: procedure '%s' is %u words long (a call reaches 255)", r->file, r->line,
                       r->col, r->name, p->b);
      goto done;
    }
    a->code[r->at] = (a->code[r->at] & ~0x3FFFFFu) | p->b | p->a << 10;
  }
  s.code = a->code, s.ncode = a->n, s.opdesc = a->od, s.nopdesc = (size_t)a->nod;
  for (size_t f = 0; f < a->ndv; f++) {
    dvle_b *e = &a->dv[f];
    if (e->nodvle) continue;
    pica_dvle *o = &s.dvle[s.ndvle++];
    if (!e->has_proc && !e->has_entry) { /* plain text: its words */
      if (e->first_word == e->last_word) {
        rc = gs_diag_set(d, GS_EASM, "%s:1:1: no instructions", e->file);
        goto done;
      }
      o->main = e->first_word, o->end = e->last_word;
    } else {
      named *p = find_named(a->procs, a->nprocs, e->entry);
      if (!p) {
        rc = gs_diag_set(d, GS_EASM, "%s:%u:%u: no procedure '%s' for the entry point%s", e->file,
                         e->has_entry ? e->entry_line : 1, e->has_entry ? e->entry_col : 1, e->entry,
                         e->has_entry ? "" : " (.proc main, or .entry NAME)");
        goto done;
      }
      o->main = p->a, o->end = p->a + p->b;
      if (!(flags & PICA_ASM_NO_LABELS)) {
        if (!(o->labels = calloc(1, sizeof *o->labels))) {
          rc = gs_diag_set(d, GS_ENOMEM, "pica: out of memory");
          goto done;
        }
        o->labels[0].name = e->entry, o->labels[0].addr = p->a, o->labels[0].size = p->b, o->nlabels = 1;
      }
    }
    o->type = e->gsh, o->merge_outmaps = (uint8_t)e->merge, o->in_mask = e->in_mask, o->out_mask = e->out_mask;
    o->gs_mode = e->gs_mode, o->gs_fixed_start = e->gs_fixed_start, o->gs_variable_num = e->gs_var_num;
    o->gs_fixed_num = e->gs_fixed_num;
    o->consts = calloc((size_t)e->nconsts + 1, sizeof *o->consts);
    o->outputs = calloc((size_t)e->nouts + 1, sizeof *o->outputs);
    o->uniforms = calloc((size_t)e->nunis + 1, sizeof *o->uniforms);
    if (!o->consts || !o->outputs || !o->uniforms) {
      rc = gs_diag_set(d, GS_ENOMEM, "pica: out of memory");
      goto done;
    }
    for (int k = 0; k < e->nconsts; k++) {
      const cst *c = &e->consts[k];
      pica_const *p = &o->consts[o->nconsts++];
      p->type = (uint8_t)c->type;
      p->reg = (uint8_t)(c->reg - (c->type == UT_FVEC ? R_C : c->type == UT_IVEC ? R_I : R_B));
      for (int j = 0; j < 4; j++) p->v[j] = c->type == UT_FVEC ? pica_f24_picasso(c->f[j]) : (uint32_t)c->i[j];
      if (c->type == UT_BOOL) p->v[1] = p->v[2] = p->v[3] = 0;
    }
    for (int k = 0; k < e->nouts; k++)
      o->outputs[o->noutputs].type = e->outs[k].type, o->outputs[o->noutputs].reg = e->outs[k].reg,
      o->outputs[o->noutputs++].mask = e->outs[k].mask;
    sort_unis(e->unis, e->nunis);
    for (int k = 0; k < e->nunis; k++) {
      uni *u = &e->unis[k];
      for (char *p = u->name; *p; p++)
        if (*p == '$') *p = '.';
      int pos = u->pos >= R_C ? u->pos - 0x10 : u->pos;
      o->uniforms[o->nuniforms].name = u->name, o->uniforms[o->nuniforms].first = (uint16_t)pos;
      o->uniforms[o->nuniforms++].last = (uint16_t)(pos + u->size - 1);
    }
  }
  if (!s.ndvle) {
    rc = gs_diag_set(d, GS_EASM, "%s:1:1: no DVLE: every file has .nodvle", a->file);
    goto done;
  }
  if ((rc = pica_shbin_write(&s, &out->bytes, &out->size, d)) < 0) goto done;
  if (!(out->lines = calloc(a->n, sizeof *out->lines))) {
    gs_isa_binary_free(out);
    rc = gs_diag_set(d, GS_ENOMEM, "pica: out of memory");
    goto done;
  }
  for (uint32_t k = 0; k < a->n; k++) out->lines[k].offset = (uint32_t)(8 + 4 * s.ndvle + 0x28 + 4 * k), out->lines[k].line = a->wline[k];
  out->nlines = a->n;
done:
  for (size_t k = 0; s.dvle && k < s.ndvle; k++) {
    free(s.dvle[k].consts);
    free(s.dvle[k].outputs);
    free(s.dvle[k].uniforms);
    free(s.dvle[k].labels);
  }
  free(s.dvle);
  for (size_t k = 0; keep && k < nsrc; k++) free(keep[k]);
  free(keep);
  if (a) free(a->dv);
  free(a);
  return rc;
}

int pica_asm(const char *src, const char *file, gs_isa_binary *out, gs_diag *d) {
  pica_asm_src s = {src, file};
  return pica_asm_files(&s, 1, 0, out, d);
}
