/* asm.c — the QPU assembler: the text syntax of docs/qpu.md to 64-bit
 * instruction words.
 *
 * Every mnemonic, register name, suffix and code comes from the instruction
 * table (table.h, the one place an encoding is written); this file holds the grammar and the
 * rules that choose fields the text does not name: the write swap, which
 * read port serves a source, pm. Errors are "file:line:col: error: ..."
 * (GS_EASM). The parser unwinds with longjmp, as Lua's parser does, so each
 * rule reads straight; the jump buffer lives in the per-call assembler.
 *
 * Two passes run the same code: the first only sizes lines and places
 * labels, the second emits words with every label known.
 */
#include <float.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpusim/qpu.h"
#include "isa/qpu/table.h"

#if defined(__GNUC__)
#define ASM_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define ASM_PRINTF(f, a)
#endif

/* Small-immediate code 48 rotates the MUL result by r5, 49..63 by 1..15
 * (table.h, RG Table 5; rotation: RG §3). */
#define ROTATE_BY_R5 48
#define MAX_DEPTH 32  /* expression nesting; keeps hostile input off the stack */
#define SHOWN 40      /* longest token quoted in a message */

typedef struct token {
  const char *at;
  size_t len;
} token;

/* An expression's result. A float literal holds its IEEE single bits;
 * `labels` counts labels added (+1) or subtracted (−1): 1 means "an address",
 * which branches turn into an offset. */
typedef struct value {
  int64_t v;
  int is_float, labels;
  const char *at;
} value;

typedef struct symbol {
  char *name;
  value val;
  int is_label, line;
} symbol;

typedef struct assembler {
  const char *file;
  uint32_t base;
  int pass;  /* 1: place labels; 2: emit */
  gs_diag *d;
  int err;
  jmp_buf fail;
  symbol *syms;
  size_t nsyms, capsyms;
  size_t *index, capindex;  /* open hash of syms: entry k+1 for syms[k], 0 = empty */
  uint32_t *out;  /* emitted 32-bit words (pass 2) */
  size_t nout, capout;
  uint32_t *lines;  /* pass 2: the source line of each instruction's first word */
  size_t caplines;
  size_t nwords;  /* 32-bit words placed so far in this pass */
  const char *line, *p;  /* current line, scan position */
  int lineno, depth;
} assembler;

/* ---- errors ------------------------------------------------------------ */

static _Noreturn void fail_at(assembler *a, const char *at, const char *fmt, ...) ASM_PRINTF(3, 4);

/* Records "file:line:col: error: ..." for the position `at` and unwinds. */
static _Noreturn void fail_at(assembler *a, const char *at, const char *fmt, ...) {
  char what[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  a->err = gs_diag_set(a->d, GS_EASM, "%s:%d:%d: error: %s", a->file, a->lineno,
                       (int)(at - a->line) + 1, what);
  longjmp(a->fail, 1);
}

static _Noreturn void fail_nomem(assembler *a) {
  a->err = gs_diag_set(a->d, GS_ENOMEM, "%s:%d: out of memory", a->file, a->lineno);
  longjmp(a->fail, 1);
}

/* Grows *buf (elements of `size` bytes) to hold at least `need`. */
static void *grow(assembler *a, void *buf, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return buf;
  size_t n = *cap ? *cap * 2 : 64;
  while (n < need) n *= 2;
  void *p = realloc(buf, n * size);
  if (!p) fail_nomem(a);
  *cap = n;
  return p;
}

/* ---- scanning ------------------------------------------------------------ */

static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int hex_digit(int c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* End of the statement: end of line or a comment. */
static int at_end(const char *p) {
  return *p == '\0' || *p == '\n' || *p == '#' || (p[0] == '/' && p[1] == '/');
}
static void skip_space(assembler *a) {
  while (*a->p == ' ' || *a->p == '\t' || *a->p == '\r') a->p++;
}
static int accept(assembler *a, char c) {
  skip_space(a);
  if (*a->p != c) return 0;
  a->p++;
  return 1;
}

/* Fails naming what stands at the scan position. */
static _Noreturn void unexpected(assembler *a, const char *wanted) {
  skip_space(a);
  size_t n = 0;
  if (at_end(a->p)) fail_at(a, a->p, "expected %s before the end of the line", wanted);
  while (n < SHOWN && !at_end(a->p + n) && a->p[n] != ' ' && a->p[n] != '\t') n++;
  fail_at(a, a->p, "expected %s, found '%.*s'", wanted, (int)n, a->p);
}
static void expect(assembler *a, char c, const char *wanted) {
  if (!accept(a, c)) unexpected(a, wanted);
}

/* The end of one ';'-separated component. */
static int component_end(assembler *a) {
  skip_space(a);
  return at_end(a->p) || *a->p == ';' || *a->p == '{';
}

static token read_ident(assembler *a) {
  skip_space(a);
  token t = {a->p, 0};
  if (is_alpha(*a->p))
    while (is_alnum(a->p[t.len])) t.len++;
  a->p += t.len;
  return t;
}

/* The text after a '.', e.g. "16a" or "setf". */
static token read_suffix(assembler *a) {
  token t = {a->p, 0};
  while (is_alnum(a->p[t.len])) t.len++;
  if (!t.len) fail_at(a, a->p - 1, "expected a suffix after '.'");
  a->p += t.len;
  return t;
}

/* "-" as a name (the NOP register or no destination), not a minus sign:
 * a '-' followed by the end of the operand. */
static int nop_name_at(const char *p) {
  if (*p != '-') return 0;
  p++;
  while (*p == ' ' || *p == '\t' || *p == '\r') p++;
  return at_end(p) || *p == ',' || *p == ';' || *p == '{' || *p == '.' || *p == '>';
}

static int token_is(token t, const char *s) {
  return t.len && strncmp(t.at, s, t.len) == 0 && s[t.len] == '\0';
}
static token token_of(const char *s) {
  token t = {s, strlen(s)};
  return t;
}
/* Index of t in names[0..n-1], −1 if absent (empty names never match). */
static int find_name(token t, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (token_is(t, names[i])) return i;
  return -1;
}
static int shown(token t) { return (int)(t.len < SHOWN ? t.len : SHOWN); }
#define TOK(t) shown(t), (t).at /* arguments for "%.*s" */

/* ---- symbols and expressions ---------------------------------------------- */

static int64_t here(const assembler *a) { return (int64_t)a->base + 4 * (int64_t)a->nwords; }

static size_t name_hash(const char *s, size_t n) {
  size_t h = 2166136261u; /* FNV-1a */
  while (n--) h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static symbol *find_symbol(assembler *a, token t) {
  if (!a->capindex) return NULL;
  for (size_t i = name_hash(t.at, t.len) & (a->capindex - 1); a->index[i]; i = (i + 1) & (a->capindex - 1)) {
    symbol *s = &a->syms[a->index[i] - 1];
    if (strlen(s->name) == t.len && memcmp(s->name, t.at, t.len) == 0) return s;
  }
  return NULL;
}

/* Enters syms[k] into the hash, doubling it (and re-entering all) when it
 * would be more than half full. */
static void index_symbol(assembler *a, size_t k) {
  if (2 * (k + 1) > a->capindex) {
    size_t cap = a->capindex ? 2 * a->capindex : 64;
    size_t *index = calloc(cap, sizeof *index);
    if (!index) fail_nomem(a);
    free(a->index);
    a->index = index;
    a->capindex = cap;
    for (size_t j = 0; j < k; j++) index_symbol(a, j);
  }
  const char *name = a->syms[k].name;
  size_t i = name_hash(name, strlen(name)) & (a->capindex - 1);
  while (a->index[i]) i = (i + 1) & (a->capindex - 1);
  a->index[i] = k + 1;
}

/* Defines a label or constant. The second pass re-runs the definitions of
 * the first: they update the entry of the same line instead of clashing. */
static void define_symbol(assembler *a, token t, value v, int is_label) {
  symbol *s = find_symbol(a, t);
  if (s && a->pass == 2 && s->line == a->lineno) {
    s->val = v;
    return;
  }
  if (s) fail_at(a, t.at, "'%.*s' is already defined on line %d", TOK(t), s->line);
  a->syms = grow(a, a->syms, &a->capsyms, a->nsyms + 1, sizeof *a->syms);
  char *name = malloc(t.len + 1);
  if (!name) fail_nomem(a);
  memcpy(name, t.at, t.len);
  name[t.len] = '\0';
  symbol sym = {name, v, is_label, a->lineno};
  a->syms[a->nsyms] = sym;
  index_symbol(a, a->nsyms++);
}

/* A symbol's value. Labels may be used before their line; constants only
 * after their .set. In the first pass an unknown name is 0, as its label may
 * come later. */
static value symbol_value(assembler *a, token t) {
  symbol *s = find_symbol(a, t);
  if (s && (s->is_label || s->line < a->lineno)) return s->val;
  if (a->pass == 1) {
    value zero = {0, 0, 0, t.at};
    return zero;
  }
  fail_at(a, t.at, "undefined symbol '%.*s'", TOK(t));
}

/* Decimal or 0x hex integer, or a float literal (digits with '.' or an
 * exponent) converted to its IEEE single bits. */
static value parse_number(assembler *a) {
  const char *s = a->p, *q = s;
  value x = {0, 0, 0, s};
  uint64_t v = 0;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    int dgt;
    q = s + 2;
    if (hex_digit(*q) < 0) fail_at(a, s, "expected hex digits after '0x'");
    for (; (dgt = hex_digit(*q)) >= 0; q++) {
      if (v >> 60) fail_at(a, s, "number too large for 64 bits");
      v = v * 16 + (uint64_t)dgt;
    }
  } else {
    while (is_digit(*q)) q++;
    if (*q == '.' || *q == 'e' || *q == 'E') {
      char buf[64];
      if (*q == '.')
        for (q++; is_digit(*q); q++) {}
      if (*q == 'e' || *q == 'E') {
        q++;
        if (*q == '+' || *q == '-') q++;
        if (!is_digit(*q)) fail_at(a, s, "malformed exponent in float literal");
        while (is_digit(*q)) q++;
      }
      if ((size_t)(q - s) >= sizeof buf) fail_at(a, s, "float literal too long");
      memcpy(buf, s, (size_t)(q - s));
      buf[q - s] = '\0';
      float f = strtof(buf, NULL);
      uint32_t bits;
      if (f > FLT_MAX) fail_at(a, s, "float literal %s is out of range", buf);
      memcpy(&bits, &f, sizeof bits);
      x.v = bits;
      x.is_float = 1;
    } else {
      for (q = s; is_digit(*q); q++) {
        uint64_t dgt = (uint64_t)(*q - '0');
        if (v > (UINT64_MAX - dgt) / 10) fail_at(a, s, "number too large for 64 bits");
        v = v * 10 + dgt;
      }
    }
  }
  if (is_alnum(*q) || *q == '.') fail_at(a, s, "malformed number");
  a->p = q;
  if (!x.is_float) x.v = (int64_t)v; /* 64-bit patterns above INT64_MAX wrap, for .dword */
  return x;
}

static value parse_expr(assembler *a);

static value parse_unary(assembler *a) {
  skip_space(a);
  const char *at = a->p;
  value x;
  if (++a->depth > MAX_DEPTH) fail_at(a, at, "expression nested too deeply");
  if (accept(a, '-')) {
    x = parse_unary(a);
    if (x.is_float)
      x.v ^= INT64_C(0x80000000); /* flip the IEEE sign bit */
    else
      x.v = (int64_t)(0 - (uint64_t)x.v);
    x.labels = -x.labels;
  } else if (accept(a, '+')) {
    x = parse_unary(a);
  } else if (accept(a, '~')) {
    x = parse_unary(a);
    if (x.is_float || x.labels) fail_at(a, at, "'~' needs a plain integer");
    x.v = ~x.v;
  } else if (accept(a, '(')) {
    x = parse_expr(a);
    expect(a, ')', "')'");
  } else if (is_digit(*a->p)) {
    x = parse_number(a);
  } else if (is_alpha(*a->p)) {
    x = symbol_value(a, read_ident(a));
  } else {
    unexpected(a, "a value");
  }
  a->depth--;
  x.at = at;
  return x;
}

/* x op y for op in + - *; floats take no part, labels only add or subtract. */
static value combine(assembler *a, value x, value y, char op) {
  uint64_t u = (uint64_t)x.v, w = (uint64_t)y.v;
  if (x.is_float || y.is_float) fail_at(a, x.at, "a float literal cannot take part in arithmetic");
  if (op == '*' && (x.labels || y.labels)) fail_at(a, x.at, "a label can only be added or subtracted");
  x.v = (int64_t)(op == '+' ? u + w : op == '-' ? u - w : u * w);
  x.labels += op == '+' ? y.labels : op == '-' ? -y.labels : 0;
  return x;
}

static value parse_term(assembler *a) {
  value x = parse_unary(a);
  while (accept(a, '*')) x = combine(a, x, parse_unary(a), '*');
  return x;
}

/* expr := term {(+|-) term}; term := unary {* unary};
 * unary := -unary | +unary | ~unary | (expr) | number | symbol. */
static value parse_expr(assembler *a) {
  value x = parse_term(a);
  for (;;) {
    skip_space(a);
    char op = *a->p;
    if (op != '+' && op != '-') return x;
    a->p++;
    x = combine(a, x, parse_term(a), op);
  }
}

/* x as a 32-bit word: an integer from −2^31 to 2^32−1 or a float literal. */
static uint32_t word32(assembler *a, value x) {
  if (x.v < INT32_MIN || x.v > (int64_t)UINT32_MAX)
    fail_at(a, x.at, "value %lld does not fit in 32 bits", (long long)x.v);
  return (uint32_t)x.v;
}

static int64_t int_in(assembler *a, value x, int64_t lo, int64_t hi, const char *what) {
  if (x.is_float) fail_at(a, x.at, "%s must be an integer", what);
  if (x.v < lo || x.v > hi)
    fail_at(a, x.at, "%s %lld is out of range %lld..%lld", what, (long long)x.v, (long long)lo,
            (long long)hi);
  return x.v;
}

/* The small-immediate code whose value is x (RG Table 5). */
static unsigned small_imm_code(assembler *a, value x) {
  uint32_t v = word32(a, x);
  for (unsigned code = 0; code < ROTATE_BY_R5; code++)
    if (qpu_small_imm_value(code) == v) return code;
  fail_at(a, x.at, "no small immediate has this value (integers -16..15, powers of two 1/256..128)");
}

/* ---- operands -------------------------------------------------------------- */

enum { SRC_ACC, SRC_READ, SRC_IMM };

typedef struct source {
  const char *at;
  int kind;
  int acc;          /* SRC_ACC: mux of r0..r5 */
  int addr, files;  /* SRC_READ: read address; bit 0 regfile A may serve it, bit 1 B */
  value imm;        /* SRC_IMM */
  int unpack;       /* unpack code, 0 = none */
  int mux;          /* set by allocate_reads */
} source;

typedef struct dest {
  const char *at;
  int addr[2];  /* write address on the regfile-A / regfile-B side, −1 = not there */
  token pack;   /* pack suffix as written, len 0 = none */
} dest;

static int accumulator_mux(token t) {
  if (t.len == 2 && t.at[0] == 'r' && t.at[1] >= '0' && t.at[1] <= '5')
    return QPU_MUX_R0 + (t.at[1] - '0');
  return -1;
}

/* A source: r0..r5, a read-address name of either file (qpu_raddr_names),
 * or an expression for a small immediate; then an optional unpack. */
static source parse_source(assembler *a) {
  source s;
  memset(&s, 0, sizeof s);
  skip_space(a);
  s.at = a->p;
  token t = {a->p, 0};
  if (nop_name_at(a->p))
    t.len = 1, a->p++;
  else
    t = read_ident(a);
  if ((s.acc = t.len ? accumulator_mux(t) : -1) >= 0) {
    s.kind = SRC_ACC;
  } else {
    for (int file = 0; file < 2; file++) {
      int addr = find_name(t, qpu_raddr_names[file], 64);
      if (addr >= 0) s.addr = addr, s.files |= 1 << file;
    }
    if (!s.files) {
      if (t.len && a->pass == 2 && !find_symbol(a, t))
        fail_at(a, t.at, "unknown register or undefined symbol '%.*s'", TOK(t));
      a->p = s.at;
      s.kind = SRC_IMM;
      s.imm = parse_expr(a);
      return s;
    }
    s.kind = SRC_READ;
  }
  if (*a->p == '.') {
    a->p++;
    token u = read_suffix(a);
    if ((s.unpack = find_name(u, qpu_unpack_names, 8)) <= 0)
      fail_at(a, u.at - 1, "unknown unpack '.%.*s'", TOK(u));
    if (s.kind == SRC_ACC ? s.acc != QPU_MUX_R4 : !(s.files & 1))
      fail_at(a, u.at - 1, "an unpack needs r4 or a value read through regfile A");
    s.files &= 1; /* unpacking happens on the regfile-A read */
  }
  return s;
}

static dest no_dest(void) {
  dest d = {NULL, {QPU_W_NOP, QPU_W_NOP}, {NULL, 0}};
  return d;
}

/* A destination name (qpu_waddr_names of either side) and optional pack. */
static dest parse_dest(assembler *a) {
  dest d = no_dest();
  skip_space(a);
  d.at = a->p;
  token t = {a->p, 0};
  if (*a->p == '-')
    t.len = 1, a->p++;
  else
    t = read_ident(a);
  if (!t.len) unexpected(a, "a destination register");
  d.addr[0] = find_name(t, qpu_waddr_names[0], 64);
  d.addr[1] = find_name(t, qpu_waddr_names[1], 64);
  if (d.addr[0] < 0 && d.addr[1] < 0)
    fail_at(a, t.at, "unknown destination register '%.*s'", TOK(t));
  if (*a->p == '.') {
    a->p++;
    d.pack = read_suffix(a);
  }
  return d;
}

/* ---- mnemonics and suffixes ------------------------------------------------ */

enum { SUF_COND = 1, SUF_SETF = 2, SUF_PE = 4, SUF_BRANCH = 8 };

/* vc4asm spellings accepted for the table's suffixes. */
static const char *const suffix_aliases[][2] = {
    {"ifz", "zs"}, {"ifnz", "zc"}, {"ifn", "ns"}, {"ifnn", "nc"},
    {"ifc", "cs"}, {"ifnc", "cc"}, {"sf", "setf"}};

/* Reads ".suffix" items after mnemonic m: those of the kinds in `allowed`. */
static void parse_suffixes(assembler *a, token m, int allowed, int *cond, int *setf, int *ldi_type) {
  while (*a->p == '.') {
    a->p++;
    token s = read_suffix(a), c = s;
    int code;
    for (size_t i = 0; i < sizeof suffix_aliases / sizeof suffix_aliases[0]; i++)
      if (token_is(s, suffix_aliases[i][0])) c = token_of(suffix_aliases[i][1]);
    if ((allowed & SUF_COND) && (code = find_name(c, qpu_cond_names, 8)) >= 0)
      *cond = code;
    else if ((allowed & SUF_BRANCH) && (code = find_name(c, qpu_branch_cond_names, 16)) >= 0)
      *cond = code;
    else if ((allowed & SUF_SETF) && token_is(c, "setf"))
      *setf = 1;
    else if ((allowed & SUF_PE) && (token_is(c, "pes") || token_is(c, "peu")))
      *ldi_type = token_is(c, "pes") ? QPU_LDI_PES : QPU_LDI_PEU;
    else
      fail_at(a, s.at - 1, "unknown suffix '.%.*s' for '%.*s'", TOK(s), TOK(m));
  }
}

static int add_op_code(token t) {
  for (int i = 0; i < 32; i++)
    if (token_is(t, qpu_add_ops[i].name)) return i;
  return -1;
}
static int mul_op_code(token t) {
  for (int i = 0; i < 8; i++)
    if (token_is(t, qpu_mul_ops[i].name)) return i;
  return -1;
}
static int is_alu_mnemonic(token t) {
  return token_is(t, "mov") || add_op_code(t) >= 0 || mul_op_code(t) >= 0;
}
/* fmul, mul24, v8muld, v8min, v8max: written alone they are the MUL part. */
static int mul_only(token t) { return mul_op_code(t) > 0 && add_op_code(t) < 0; }

/* Signals 0..12 that may accompany ALU operations (RG Table 4). */
static int signal_code(token t) {
  for (int code = 0; code < QPU_SIG_SMALL_IMM; code++)
    if (code != QPU_SIG_NONE && token_is(t, qpu_sig_names[code])) return code;
  return -1;
}

static int is_standalone(token t) {
  return token_is(t, "ldi") || token_is(t, "sacq") || token_is(t, "srel") || token_is(t, "bra") ||
         token_is(t, "brr");
}

/* ---- ALU instructions -------------------------------------------------------- */

typedef struct alu_op {
  token name;  /* len 0: absent, i.e. nop */
  int cond, setf;  /* cond −1: default */
  dest dst;
  source src[2];
  int nsrc;
  int rotate;  /* MUL rotation's small-immediate code, −1 none */
  const char *rotate_at;
} alu_op;

static void empty_op(alu_op *op) {
  memset(op, 0, sizeof *op);
  op->cond = op->rotate = -1;
  op->dst = no_dest();
}

/* One ALU component: mnemonic[.cond][.setf] dst[.pack], src[, src] [>> n]. */
static void parse_op(assembler *a, alu_op *op, token name) {
  empty_op(op);
  op->name = name;
  parse_suffixes(a, name, SUF_COND | SUF_SETF, &op->cond, &op->setf, NULL);
  if (token_is(name, "nop")) {
    if (!component_end(a)) unexpected(a, "';' or the end of the line ('nop' takes no operands)");
    return;
  }
  op->dst = parse_dest(a);
  expect(a, ',', "',' after the destination");
  op->src[op->nsrc++] = parse_source(a);
  if (accept(a, ',')) op->src[op->nsrc++] = parse_source(a);
  skip_space(a);
  if (a->p[0] == '>' && a->p[1] == '>') {
    op->rotate_at = a->p;
    a->p += 2;
    skip_space(a);
    if (a->p[0] == 'r' && a->p[1] == '5' && !is_alnum(a->p[2])) {
      a->p += 2;
      op->rotate = ROTATE_BY_R5;
    } else {
      op->rotate = ROTATE_BY_R5 + (int)int_in(a, parse_expr(a), 1, 15, "rotation");
    }
  }
  if (!component_end(a))
    unexpected(a, op->nsrc == 1 && op->rotate < 0 ? "',', ';' or the end of the line" : "';' or the end of the line");
}

/* The opcode of op on the ADD or MUL ALU ("mov" is or / v8min with both
 * operands the same source); checks the number of sources. */
static unsigned alu_opcode(assembler *a, const alu_op *op, int is_mul) {
  int code, min, max = 2;
  if (!op->name.len || token_is(op->name, "nop")) return 0;
  if (token_is(op->name, "mov")) {
    code = is_mul ? QPU_M_V8MIN : QPU_A_OR;
    min = max = 1;
  } else {
    code = is_mul ? mul_op_code(op->name) : add_op_code(op->name);
    if (code < 0)
      fail_at(a, op->name.at, "'%.*s' is not a%s ALU operation", TOK(op->name),
              is_mul ? " MUL" : "n ADD");
    min = is_mul ? 2 : qpu_add_ops[code].operands;
  }
  if (op->nsrc < min || op->nsrc > max)
    fail_at(a, op->name.at, "'%.*s' takes %s", TOK(op->name),
            min == max ? (min == 1 ? "one source" : "two sources") : "one or two sources");
  if (op->rotate >= 0 && !is_mul) fail_at(a, op->rotate_at, "only the MUL ALU result can be rotated");
  return (unsigned)code;
}

/* The write swap that routes each destination to a side where its name
 * exists: ws=0 sends ADD to the regfile-A side and MUL to the B side, ws=1
 * the reverse (RG §3, Table 14). */
static unsigned choose_ws(assembler *a, const dest *add, const dest *mul) {
  for (unsigned ws = 0; ws < 2; ws++)
    if (add->addr[ws] >= 0 && mul->addr[!ws] >= 0) return ws;
  fail_at(a, mul->at, "ADD and MUL destinations both need the regfile-%c write side",
          add->addr[0] >= 0 ? 'A' : 'B');
}

/* The pack written on one destination, as (pm, code): a regfile-A pack when
 * that ALU writes ra0..ra31 through the regfile-A side; otherwise, on the
 * MUL only, the colour pack (RG Tables 6-9). −1: no pack. */
static int resolve_pack(assembler *a, const dest *add, const dest *mul, unsigned ws, unsigned *pack) {
  int is_mul = add->pack.len == 0;
  const dest *d = is_mul ? mul : add;
  if (!d->pack.len) return -1;
  if (add->pack.len && mul->pack.len)
    fail_at(a, mul->pack.at - 1, "only one destination can carry a pack");
  unsigned side = is_mul ? !ws : ws;
  int regfile_a = side == 0 && d->addr[0] < 32;
  if (!is_mul && !regfile_a)
    fail_at(a, d->pack.at - 1, "an ADD pack needs a regfile-A destination (ra0..ra31)");
  int code = find_name(d->pack, regfile_a ? qpu_pack_names : qpu_mul_pack_names, 16);
  if (code <= 0)
    fail_at(a, d->pack.at - 1, "'.%.*s' is not a %s", TOK(d->pack),
            regfile_a ? "regfile-A pack" : "MUL colour pack (.8888 .8a .8b .8c .8d)");
  *pack = (unsigned)code;
  return !regfile_a;
}

typedef struct read_ports {
  int a, b;   /* raddr_a / raddr_b, −1 = unused */
  int b_imm;  /* raddr_b holds a small-immediate code (sig 13) */
} read_ports;

/* Puts read address addr on port `file` (0 = A, 1 = B); an identical read
 * shares the port. */
static void claim_port(assembler *a, read_ports *r, int file, int addr, const char *at) {
  int *port = file ? &r->b : &r->a;
  if (file && r->b_imm) fail_at(a, at, "raddr_b already holds a small immediate or rotation");
  if (*port >= 0 && *port != addr)
    fail_at(a, at, "regfile %c is already read for another operand (one raddr_%c per instruction)",
            "AB"[file], "ab"[file]);
  *port = addr;
}

static void claim_small_imm(assembler *a, read_ports *r, value x) {
  if (r->b_imm) {
    if (qpu_small_imm_value((unsigned)r->b) != word32(a, x))
      fail_at(a, x.at, "this value must equal the small immediate or rotation raddr_b already holds, "
              "which reads as %d (one per instruction)", (int)(int32_t)qpu_small_imm_value((unsigned)r->b));
    return;
  }
  if (r->b >= 0) fail_at(a, x.at, "a small immediate needs raddr_b, which already reads a register");
  r->b = (int)small_imm_code(a, x);
  r->b_imm = 1;
}

/* Gives every source its mux: accumulators directly, reads and small
 * immediates through raddr_a / raddr_b (RG §3, Table 14).
 * Sources bound to one file go first, so that names both files provide
 * (unif, vary, vpm, mutex, -) take whichever port is left; identical reads
 * share a port. */
static void allocate_reads(assembler *a, source **srcs, int n, read_ports *r) {
  for (int i = 0; i < n; i++) {
    source *s = srcs[i];
    if (s->kind == SRC_ACC) s->mux = s->acc;
    if (s->kind == SRC_IMM) claim_small_imm(a, r, s->imm), s->mux = QPU_MUX_B;
    if (s->kind == SRC_READ && s->files != 3) {
      claim_port(a, r, s->files == 2, s->addr, s->at);
      s->mux = s->files == 2 ? QPU_MUX_B : QPU_MUX_A;
    }
  }
  for (int i = 0; i < n; i++) {
    source *s = srcs[i];
    if (s->kind != SRC_READ || s->files != 3) continue;
    if (r->a == s->addr || (r->a < 0 && !(r->b == s->addr && !r->b_imm)))
      r->a = s->addr, s->mux = QPU_MUX_A;
    else if (r->b < 0 || (r->b == s->addr && !r->b_imm))
      r->b = s->addr, s->mux = QPU_MUX_B;
    else
      fail_at(a, s->at, "no read port left for this source (one raddr_a and one raddr_b per instruction)");
  }
}

/* The instruction's one unpack: on r4 it needs pm=1, on a regfile-A read
 * pm=0 (RG Tables 6-9). −1: no unpack. */
static int resolve_unpack(assembler *a, source **srcs, int n, unsigned *unpack) {
  int pm = -1;
  for (int i = 0; i < n; i++) {
    const source *s = srcs[i];
    if (!s->unpack) continue;
    int want = s->kind == SRC_ACC;
    if (pm >= 0 && (pm != want || *unpack != (unsigned)s->unpack))
      fail_at(a, s->at, "conflicting unpack modes in one instruction");
    pm = want;
    *unpack = (unsigned)s->unpack;
  }
  return pm;
}

static unsigned cond_of(const alu_op *op, unsigned opcode) {
  return op->cond >= 0 ? (unsigned)op->cond : opcode ? 1u : 0u;
}
static unsigned mux_of(const alu_op *op, int i) {
  return op->nsrc ? (unsigned)op->src[i < op->nsrc ? i : 0].mux : 0;
}

/* Encodes ADD op, MUL op and signal (−1 = none) into an ALU word. */
static uint64_t encode_alu(assembler *a, alu_op *add, alu_op *mul, int sig, const char *sig_at) {
  unsigned op_add = alu_opcode(a, add, 0), op_mul = alu_opcode(a, mul, 1);
  unsigned ws = choose_ws(a, &add->dst, &mul->dst), pack = 0, unpack = 0;
  int pm_pack = resolve_pack(a, &add->dst, &mul->dst, ws, &pack);
  source *srcs[4];
  int n = 0;
  for (int i = 0; i < add->nsrc; i++) srcs[n++] = &add->src[i];
  for (int i = 0; i < mul->nsrc; i++) srcs[n++] = &mul->src[i];
  read_ports r = {-1, -1, 0};
  if (mul->rotate >= 0) r.b = mul->rotate, r.b_imm = 1;
  allocate_reads(a, srcs, n, &r);
  int pm_unpack = resolve_unpack(a, srcs, n, &unpack);
  if (pm_pack >= 0 && pm_unpack >= 0 && pm_pack != pm_unpack)
    fail_at(a, add->name.len ? add->name.at : mul->name.at,
            "the pack needs pm=%d but the unpack needs pm=%d", pm_pack, pm_unpack);
  if (r.b_imm && sig >= 0)
    fail_at(a, sig_at, "a small immediate or rotation cannot be combined with a signal");
  if (mul->setf && op_add != QPU_A_NOP)
    fail_at(a, mul->name.at, "'.setf' belongs on the ADD op: flags come from it unless it is nop");
  uint64_t w = 0;
  w = qpu_set(w, QPU_F_SIG, r.b_imm ? QPU_SIG_SMALL_IMM : sig >= 0 ? (unsigned)sig : QPU_SIG_NONE);
  w = qpu_set(w, QPU_F_UNPACK, unpack);
  w = qpu_set(w, QPU_F_PM, pm_pack > 0 || pm_unpack > 0);
  w = qpu_set(w, QPU_F_PACK, pack);
  w = qpu_set(w, QPU_F_COND_ADD, cond_of(add, op_add));
  w = qpu_set(w, QPU_F_COND_MUL, cond_of(mul, op_mul));
  w = qpu_set(w, QPU_F_SF, (unsigned)(add->setf | mul->setf));
  w = qpu_set(w, QPU_F_WS, ws);
  w = qpu_set(w, QPU_F_WADDR_ADD, (unsigned)add->dst.addr[ws]);
  w = qpu_set(w, QPU_F_WADDR_MUL, (unsigned)mul->dst.addr[!ws]);
  w = qpu_set(w, QPU_F_OP_MUL, op_mul);
  w = qpu_set(w, QPU_F_OP_ADD, op_add);
  w = qpu_set(w, QPU_F_RADDR_A, r.a >= 0 ? (unsigned)r.a : QPU_R_NOP);
  w = qpu_set(w, QPU_F_RADDR_B, r.b >= 0 ? (unsigned)r.b : QPU_R_NOP);
  w = qpu_set(w, QPU_F_ADD_A, mux_of(add, 0));
  w = qpu_set(w, QPU_F_ADD_B, mux_of(add, 1));
  w = qpu_set(w, QPU_F_MUL_A, mux_of(mul, 0));
  w = qpu_set(w, QPU_F_MUL_B, mux_of(mul, 1));
  return w;
}

/* <add op> ; <mul op> ; <signal>, in any order of ops and signal; a lone
 * MUL-only op is the MUL part. */
static uint64_t parse_alu(assembler *a, token name) {
  alu_op ops[2], add, mul;
  int nops = 0, sig = -1;
  const char *sig_at = NULL;
  for (;;) {
    int code = signal_code(name);
    if (code >= 0) {
      if (sig >= 0) fail_at(a, name.at, "only one signal per instruction");
      sig = code;
      sig_at = name.at;
      if (!component_end(a)) unexpected(a, "';' or the end of the line after the signal");
    } else if (is_alu_mnemonic(name)) {
      if (nops == 2) fail_at(a, name.at, "more than two ALU operations (ADD ; MUL)");
      parse_op(a, &ops[nops++], name);
    } else if (is_standalone(name)) {
      fail_at(a, name.at, "'%.*s' cannot be combined with other operations", TOK(name));
    } else {
      fail_at(a, name.at, "unknown instruction '%.*s'", TOK(name));
    }
    if (!accept(a, ';')) break;
    name = read_ident(a);
    if (!name.len) unexpected(a, "an operation or a signal after ';'");
  }
  empty_op(&add);
  empty_op(&mul);
  if (nops == 2)
    add = ops[0], mul = ops[1];
  else if (nops == 1 && mul_only(ops[0].name))
    mul = ops[0];
  else if (nops == 1)
    add = ops[0];
  return encode_alu(a, &add, &mul, sig, sig_at);
}

/* ---- load immediate, semaphore, branch --------------------------------------- */

/* "[v0, ..., v15]": element i's 2-bit value goes to imm bit i (low bit)
 * and bit 16+i (high bit) (RG §3). */
static uint32_t per_element_imm(assembler *a, int type) {
  int64_t lo = type == QPU_LDI_PES ? -2 : 0;
  uint32_t imm = 0;
  expect(a, '[', "'[' and 16 per-element values");
  for (unsigned i = 0; i < 16; i++) {
    if (i) expect(a, ',', "',' between the 16 per-element values");
    unsigned v = (unsigned)int_in(a, parse_expr(a), lo, lo + 3, "per-element value") & 3u;
    imm |= (v & 1u) << i | (v >> 1) << (16 + i);
  }
  expect(a, ']', "']' after 16 per-element values");
  return imm;
}

/* ldi[.cond][.setf][.pes|.peu] dst[.pack], value [; ldi[.cond] dst2[.pack]] */
static uint64_t parse_ldi(assembler *a, token name) {
  alu_op first, second;
  int type = QPU_LDI_32, has_second = 0;
  empty_op(&first);
  empty_op(&second);
  parse_suffixes(a, name, SUF_COND | SUF_SETF | SUF_PE, &first.cond, &first.setf, &type);
  first.dst = parse_dest(a);
  expect(a, ',', "',' after the destination");
  uint32_t imm = type == QPU_LDI_32 ? word32(a, parse_expr(a)) : per_element_imm(a, type);
  if (accept(a, ';')) {
    token t = read_ident(a);
    if (!token_is(t, "ldi")) fail_at(a, t.at, "only 'ldi <destination>' can follow a load immediate");
    parse_suffixes(a, t, SUF_COND, &second.cond, NULL, NULL);
    second.dst = parse_dest(a);
    has_second = 1;
  }
  unsigned ws = choose_ws(a, &first.dst, &second.dst), pack = 0;
  int pm = resolve_pack(a, &first.dst, &second.dst, ws, &pack);
  uint64_t w = qpu_set(0, QPU_F_SIG, QPU_SIG_LOAD_IMM);
  w = qpu_set(w, QPU_F_LDI_TYPE, (unsigned)type);
  w = qpu_set(w, QPU_F_PM, pm > 0);
  w = qpu_set(w, QPU_F_PACK, pack);
  w = qpu_set(w, QPU_F_COND_ADD, first.cond >= 0 ? (unsigned)first.cond : 1u);
  w = qpu_set(w, QPU_F_COND_MUL, second.cond >= 0 ? (unsigned)second.cond : (unsigned)has_second);
  w = qpu_set(w, QPU_F_SF, (unsigned)first.setf);
  w = qpu_set(w, QPU_F_WS, ws);
  w = qpu_set(w, QPU_F_WADDR_ADD, (unsigned)first.dst.addr[ws]);
  w = qpu_set(w, QPU_F_WADDR_MUL, (unsigned)second.dst.addr[!ws]);
  return qpu_set(w, QPU_F_IMM, imm);
}

/* sacq n / srel n: the semaphore form of sig 14, sa = 1 to acquire
 * (RG §3). */
static uint64_t parse_semaphore(assembler *a, int acquire) {
  unsigned num = (unsigned)int_in(a, parse_expr(a), 0, 15, "semaphore number");
  uint64_t w = qpu_set(0, QPU_F_SIG, QPU_SIG_LOAD_IMM);
  w = qpu_set(w, QPU_F_LDI_TYPE, QPU_LDI_SEMA);
  w = qpu_set(w, QPU_F_WADDR_ADD, QPU_W_NOP);
  w = qpu_set(w, QPU_F_WADDR_MUL, QPU_W_NOP);
  w = qpu_set(w, QPU_F_SEM_SA, (unsigned)acquire);
  return qpu_set(w, QPU_F_SEM_NUM, num);
}

/* Operands up to the overrides or the end of the line: commas + 1. */
static int count_operands(const char *p) {
  int n = 0, seen = 0;
  for (; !at_end(p) && *p != '{'; p++) {
    if (*p == ',') n++;
    if (*p != ' ' && *p != '\t' && *p != '\r') seen = 1;
  }
  return seen ? n + 1 : 0;
}

/* A branch immediate: a label becomes an absolute address (bra) or an
 * offset from the branch address + 32 (brr, RG §3); a plain
 * number is the raw immediate. */
static uint32_t branch_imm(assembler *a, value x, int rel) {
  uint32_t imm;
  if (x.is_float) fail_at(a, x.at, "a branch target must be an integer or a label");
  if (x.labels == 1)
    imm = (uint32_t)(uint64_t)(rel ? x.v - (here(a) + 32) : x.v);
  else if (x.labels == 0)
    imm = word32(a, x);
  else
    fail_at(a, x.at, "a branch target is one label plus or minus constants");
  if (imm & 7) fail_at(a, x.at, "branch target offset 0x%x is not a multiple of 8 bytes", imm);
  return imm;
}

/* bra|brr[.cond] [link,] target | [link,] raN | link, raN, offset */
static uint64_t parse_branch(assembler *a, token name) {
  int rel = token_is(name, "brr"), cond = find_name(token_of("always"), qpu_branch_cond_names, 16);
  int reg = -1;
  uint32_t imm = 0;
  dest link = no_dest();
  parse_suffixes(a, name, SUF_BRANCH, &cond, NULL, NULL);
  int n = count_operands(a->p);
  if (n < 1 || n > 3) fail_at(a, a->p, "a branch takes '[link,] target' or 'link, raN, offset'");
  if (n >= 2) {
    link = parse_dest(a);
    if (link.pack.len) fail_at(a, link.pack.at - 1, "a branch link takes no pack");
    expect(a, ',', "',' after the link register");
  }
  const char *at = a->p;
  token t = read_ident(a);
  if ((reg = find_name(t, qpu_raddr_names[0], 32)) < 0) {
    if (n == 3) fail_at(a, t.at, "expected a regfile-A register (ra0..ra31) as the branch base");
    a->p = at;
    imm = branch_imm(a, parse_expr(a), rel);
  } else if (n == 3) {
    expect(a, ',', "',' after the register");
    imm = branch_imm(a, parse_expr(a), rel);
  }
  uint64_t w = qpu_set(0, QPU_F_SIG, QPU_SIG_BRANCH);
  w = qpu_set(w, QPU_F_COND_BR, (unsigned)cond);
  w = qpu_set(w, QPU_F_REL, (unsigned)rel);
  w = qpu_set(w, QPU_F_REG, reg >= 0);
  w = qpu_set(w, QPU_F_RADDR_A_BR, reg >= 0 ? (unsigned)reg : 0u);
  w = qpu_set(w, QPU_F_WS, link.addr[0] < 0);
  w = qpu_set(w, QPU_F_WADDR_ADD, (unsigned)link.addr[link.addr[0] < 0]);
  w = qpu_set(w, QPU_F_WADDR_MUL, QPU_W_NOP);
  return qpu_set(w, QPU_F_IMM, imm);
}

/* ---- overrides, directives, lines ------------------------------------------- */

static int form_of(unsigned sig) {
  return sig == QPU_SIG_BRANCH ? QF_BR : sig == QPU_SIG_LOAD_IMM ? QF_LDI : QF_ALU;
}

/* "{field=value, ...}": raw fields by their table names, applied last;
 * they may not change the instruction's form. */
static uint64_t apply_overrides(assembler *a, uint64_t w) {
  int form = form_of(qpu_get(w, QPU_F_SIG));
  if (!accept(a, '{')) return w;
  do {
    token t = read_ident(a);
    int f = -1;
    for (int i = 0; i < QPU_F_COUNT && f < 0; i++)
      if ((qpu_fields[i].forms & form) && token_is(t, qpu_fields[i].name)) f = i;
    if (f < 0) {
      if (!t.len) unexpected(a, "a field name");
      fail_at(a, t.at, "'%.*s' is not a field of this kind of instruction", TOK(t));
    }
    expect(a, '=', "'=' after the field name");
    value v = parse_expr(a);
    int64_t max = (int64_t)((UINT64_C(1) << qpu_fields[f].width) - 1);
    w = qpu_set(w, f, (uint32_t)int_in(a, v, 0, max, "field value"));
    if (form_of(qpu_get(w, QPU_F_SIG)) != form)
      fail_at(a, v.at, "this sig would change the kind of instruction");
  } while (accept(a, ','));
  expect(a, '}', "',' or '}' to close the field overrides");
  return w;
}

static void emit32(assembler *a, uint32_t v) {
  if (a->pass == 2) {
    a->out = grow(a, a->out, &a->capout, a->nout + 1, sizeof *a->out);
    if (!(a->nout & 1)) {
      a->lines = grow(a, a->lines, &a->caplines, a->nout / 2 + 1, sizeof *a->lines);
      a->lines[a->nout / 2] = (uint32_t)a->lineno;
    }
    a->out[a->nout++] = v;
  }
  a->nwords++;
}

static void check_aligned(assembler *a, const char *at, const char *what) {
  if (a->nwords & 1)
    fail_at(a, at, "%s after an odd number of 32-bit words (instructions are 8-byte aligned)", what);
}

static void emit64(assembler *a, uint64_t w, const char *at) {
  check_aligned(a, at, "instruction");
  emit32(a, (uint32_t)w);
  emit32(a, (uint32_t)(w >> 32));
}

/* .set NAME, value | .word v, ... | .dword v, ... */
static void parse_directive(assembler *a) {
  const char *at = a->p++;
  token d = read_suffix(a);
  if (token_is(d, "set")) {
    token name = read_ident(a);
    if (!name.len) unexpected(a, "a constant name");
    expect(a, ',', "',' after the constant name");
    value v = parse_expr(a);
    if (v.labels != 0 && v.labels != 1) fail_at(a, v.at, "a constant is at most one label plus constants");
    define_symbol(a, name, v, 0);
  } else if (token_is(d, "word")) {
    do emit32(a, word32(a, parse_expr(a)));
    while (accept(a, ','));
  } else if (token_is(d, "dword")) {
    do {
      value v = parse_expr(a);
      if (v.is_float) fail_at(a, v.at, ".dword takes integers");
      emit64(a, (uint64_t)v.v, v.at);
    } while (accept(a, ','));
  } else {
    fail_at(a, at, "unknown directive '.%.*s' (expected .set, .word or .dword)", TOK(d));
  }
}

/* [label:]... [statement] [{overrides}] [comment] */
static void assemble_line(assembler *a) {
  a->depth = 0;
  for (;;) {
    const char *save = a->p;
    token t = read_ident(a);
    if (t.len && accept(a, ':')) {
      check_aligned(a, t.at, "label");
      value v = {here(a), 0, 1, t.at};
      define_symbol(a, t, v, 1);
      continue;
    }
    a->p = save;
    break;
  }
  skip_space(a);
  if (at_end(a->p)) return;
  if (*a->p == '.') {
    parse_directive(a);
  } else {
    const char *start = a->p;
    token name = read_ident(a);
    if (!name.len) unexpected(a, "an instruction, a label or a directive");
    uint64_t w;
    if (token_is(name, "ldi"))
      w = parse_ldi(a, name);
    else if (token_is(name, "sacq") || token_is(name, "srel"))
      w = parse_semaphore(a, token_is(name, "sacq"));
    else if (token_is(name, "bra") || token_is(name, "brr"))
      w = parse_branch(a, name);
    else
      w = parse_alu(a, name);
    w = apply_overrides(a, w);
    const char *why = qpu_invalid_reason(w);
    if (why) fail_at(a, start, "invalid instruction: %s", why);
    emit64(a, w, start);
  }
  skip_space(a);
  if (!at_end(a->p)) unexpected(a, "the end of the line");
}

/* One pass over src; returns GS_OK or the error code (diag already set). */
static int run_pass(assembler *a, const char *src, int pass) {
  if (setjmp(a->fail)) return a->err;
  a->pass = pass;
  a->nwords = 0;
  a->lineno = 0;
  for (const char *line = src;;) {
    a->lineno++;
    a->line = a->p = line;
    assemble_line(a);
    const char *nl = strchr(line, '\n');
    if (!nl) break;
    line = nl + 1;
  }
  a->p = a->line;
  if (a->nwords & 1) fail_at(a, a->p, "the program ends after an odd number of 32-bit words");
  return GS_OK;
}

static void release(assembler *a) {
  for (size_t i = 0; i < a->nsyms; i++) free(a->syms[i].name);
  free(a->syms);
  free(a->index);
  free(a->out);
  free(a->lines);
}

static void init(assembler *a, const char *file, uint32_t base, gs_diag *d) {
  memset(a, 0, sizeof *a);
  a->file = file ? file : "<input>";
  a->base = base;
  a->d = d;
}

int gs_qpu_asm(const char *src, const char *filename, uint32_t base, uint64_t **words, size_t *n,
               gs_diag *d) {
  return gs_qpu_asm_lines(src, filename, base, words, n, NULL, d);
}

int gs_qpu_asm_lines(const char *src, const char *filename, uint32_t base, uint64_t **words, size_t *n,
                     uint32_t **lines, gs_diag *d) {
  assembler a;
  if (!src || !words || !n) return gs_diag_set(d, GS_EARG, "gs_qpu_asm: NULL argument");
  *words = NULL;
  *n = 0;
  if (lines) *lines = NULL;
  init(&a, filename, base, d);
  int rc = run_pass(&a, src, 1);
  if (rc == GS_OK) rc = run_pass(&a, src, 2);
  if (rc == GS_OK) {
    size_t count = a.nout / 2;
    *words = malloc((count ? count : 1) * sizeof **words);
    if (!*words) rc = gs_diag_set(d, GS_ENOMEM, "%s: out of memory", a.file);
    for (size_t i = 0; *words && i < count; i++)
      (*words)[i] = a.out[2 * i] | (uint64_t)a.out[2 * i + 1] << 32;
    if (*words) *n = count;
    if (*words && lines) { /* hand over the line table */
      *lines = a.lines ? a.lines : malloc(sizeof **lines);
      a.lines = NULL;
      if (!*lines) {
        free(*words);
        *words = NULL;
        *n = 0;
        rc = gs_diag_set(d, GS_ENOMEM, "%s: out of memory", a.file);
      }
    }
  }
  release(&a);
  return rc;
}

int gs_qpu_asm_word(const char *line, uint32_t addr, uint64_t *w, gs_diag *d) {
  assembler a;
  if (!line || !w) return gs_diag_set(d, GS_EARG, "gs_qpu_asm_word: NULL argument");
  init(&a, "<line>", addr, d);
  int rc = run_pass(&a, line, 2);
  if (rc == GS_OK && a.nout != 2)
    rc = gs_diag_set(d, GS_EASM, "<line>:1:1: error: expected exactly one instruction");
  if (rc == GS_OK) *w = a.out[0] | (uint64_t)a.out[1] << 32;
  release(&a);
  return rc;
}
