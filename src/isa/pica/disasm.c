/* disasm.c — PICA200 instructions as picasso-style text (docs/pica.md). */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isa/pica/table.h"

typedef struct out {
  char *p;
  size_t n, len;
} out;

static void put(out *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(o->len < o->n ? o->p + o->len : NULL, o->len < o->n ? o->n - o->len : 0, fmt, ap);
  va_end(ap);
  if (k > 0) o->len += (size_t)k;
}

static const char comp[] = "xyzw";

static void put_src(out *o, const pica_src *s) {
  static const char *const idx[4] = {"", "[a0.x]", "[a0.y]", "[aL]"};
  if (s->neg) put(o, "-");
  if (s->reg < PICA_REG_R) put(o, "v%u", s->reg);
  else if (s->reg < PICA_REG_C) put(o, "r%u", s->reg - PICA_REG_R);
  else put(o, "c%u", s->reg - PICA_REG_C);
  put(o, "%s", idx[s->idx & 3]);
  if (s->swz == 0x1B) return; /* .xyzw */
  unsigned n = 4; /* picasso repeats a short swizzle's last letter */
  while (n > 1 && pica_swz_comp(s->swz, n - 1) == pica_swz_comp(s->swz, n - 2)) n--;
  put(o, ".");
  for (unsigned k = 0; k < n; k++) put(o, "%c", comp[pica_swz_comp(s->swz, k)]);
}

static void put_dst(out *o, const pica_insn *i) {
  if (i->dst < PICA_REG_R) put(o, "o%u", i->dst);
  else put(o, "r%u", i->dst - PICA_REG_R);
  if (i->mask == 0xF) return;
  put(o, ".");
  for (unsigned k = 0; k < 4; k++)
    if (i->mask & (8u >> k)) put(o, "%c", comp[k]);
}

static void put_cond(out *o, const pica_insn *i) {
  const char *x = i->refx ? "cmp.x" : "!cmp.x", *y = i->refy ? "cmp.y" : "!cmp.y";
  switch (i->condop) {
  case PICA_COND_OR: put(o, "%s || %s", x, y); break;
  case PICA_COND_AND: put(o, "%s && %s", x, y); break;
  case PICA_COND_X: put(o, "%s", x); break;
  default: put(o, "%s", y); break;
  }
}

size_t pica_format_insn(const pica_insn *i, char *buf, size_t n) {
  static const char *const cmpop[6] = {"eq", "ne", "lt", "le", "gt", "ge"};
  out o = {buf, n, 0};
  if (n) buf[0] = 0;
  put(&o, "%s", pica_op_name(i->word >> 26));
  switch (i->fmt) {
  case PICA_F0: break;
  case PICA_F1C:
    put(&o, " ");
    put_src(&o, &i->src[0]);
    put(&o, ", %s, %s, ", cmpop[i->cmpx % 6], cmpop[i->cmpy % 6]);
    put_src(&o, &i->src[1]);
    break;
  case PICA_F2:
    if (i->op != PICA_CALL) put(&o, " "), put_cond(&o, i);
    if (i->op == PICA_BREAKC) break;
    put(&o, "%s0x%03x", i->op == PICA_CALL ? " " : ", ", i->target);
    if (i->op != PICA_JMPC) put(&o, ", %u", i->num);
    break;
  case PICA_F3:
    if (i->op == PICA_LOOP) put(&o, " i%u, 0x%03x", i->uid, i->target);
    else if (i->op == PICA_JMPU) put(&o, " %sb%u, 0x%03x", i->num & 1 ? "!" : "", i->uid, i->target);
    else put(&o, " b%u, 0x%03x, %u", i->uid, i->target, i->num);
    break;
  case PICA_F4:
    put(&o, " %u", i->vtxid);
    if (i->prim || i->winding) put(&o, ",%s%s", i->prim ? " prim" : "", i->winding ? " inv" : "");
    break;
  default:
    put(&o, " ");
    if (i->op == PICA_MOVA) put(&o, "a0.%s%s", i->mask & 8 ? "x" : "", i->mask & 4 ? "y" : "");
    else put_dst(&o, i);
    for (unsigned k = 0; k < i->nsrc; k++) put(&o, ", "), put_src(&o, &i->src[k]);
    break;
  }
  return o.len;
}

int pica_disasm(const uint32_t *code, size_t ncode, const uint32_t *opdesc, size_t nopdesc, char **text,
                gs_diag *d) {
  *text = NULL;
  size_t cap = 192 * ncode + 1, len = 0; /* a line is at most 127 + 32 + 17 bytes */
  char *t = malloc(cap);
  if (!t) return gs_diag_set(d, GS_ENOMEM, "pica: out of memory disassembling %zu words", ncode);
  t[0] = 0;
  for (size_t pc = 0; pc < ncode; pc++) {
    pica_insn i;
    int rc = pica_decode(code[pc], (uint32_t)pc, opdesc, nopdesc, &i, d);
    if (rc == GS_OK && i.nsrc && (i.op == PICA_MOVA ? !(i.mask & 0xC) : i.op != PICA_CMP && !i.mask))
      rc = gs_diag_set(d, GS_EINVAL, "pica: word 0x%03zx: 0x%08x: operand descriptor %u (0x%08x) writes no component",
                       pc, code[pc], i.desc, i.opdesc);
    if (rc < 0) {
      free(t);
      return rc;
    }
    char line[128];
    size_t k = pica_format_insn(&i, line, sizeof line);
    len += (size_t)snprintf(t + len, cap - len, "    %s%*s ; %03zx: %08x\n", line, k < 32 ? (int)(32 - k) : 0, "",
                            pc, code[pc]);
  }
  *text = t;
  return GS_OK;
}

/* ---- a whole SHBIN as assembler text ------------------------------------------------ */

static const char *const out_types[10] = {"position", "normalquat", "color", "texcoord0", "texcoord0w",
                                          "texcoord1", "texcoord2", "?", "view", "dummy"};

/* The shortest decimal that picasso's conversion (pica_f24_picasso) turns
 * back into the float24 word w. picasso reads a float24 exponent e as
 * 2^(e-63) whatever e is, so every word but NaN-like ones has a value. */
static void f24_text(uint32_t w, char *buf, size_t n) {
  uint32_t sign = w >> 23 & 1, e = w >> 16 & 0x7F, m = w & 0xFFFF;
  if (!e && !m) {
    snprintf(buf, n, sign ? "-0" : "0");
    return;
  }
  if (e == 0x7F && !m) {
    snprintf(buf, n, sign ? "-inf" : "inf");
    return;
  }
  double v = ldexp(1.0 + m / 65536.0, (int)e - 63) * (sign ? -1 : 1);
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, n, "%.*g", digits, v);
    if (pica_f24_picasso(strtod(buf, NULL)) == (w & 0xFFFFFF)) return;
  }
}

/* Whether s can be a name in the text (the table's '.' back to '$'); a
 * uniform's cannot start with _ (picasso leaves those out of the table). */
static int text_name(const char *s, char *buf, size_t n, int uniform) {
  size_t k = 0;
  if (!*s || (uniform && *s == '_') || strlen(s) >= n || strlen(s) >= 64) return 0;
  for (; s[k]; k++) {
    char c = s[k] == '.' ? '$' : s[k];
    if (!(isalpha((unsigned char)c) || c == '_' || c == '$' || (k && isdigit((unsigned char)c)))) return 0;
    buf[k] = c;
  }
  buf[k] = 0;
  if (strchr("ovrcibOVRCIB", buf[0]) && isdigit((unsigned char)buf[1])) return 0;
  return 1;
}

/* A name from the file in a comment: printable ASCII, others as \xNN (a
 * newline would end the comment). */
static void put_name(out *o, const char *s) {
  for (; *s; s++)
    if (*s >= 0x20 && *s < 0x7F && *s != '\\') put(o, "%c", *s);
    else put(o, "\\x%02x", (unsigned char)*s);
}

static void mask_text(out *o, unsigned mask) {
  put(o, ".");
  for (unsigned k = 0; k < 4; k++)
    if (mask >> k & 1) put(o, "%c", comp[k]);
}

/* DVLE e as comment lines (a second DVLE: one text makes one). */
static void dvle_comments(out *o, const pica_dvle *e, size_t k) {
  char v[4][32];
  put(o, "; dvle %zu (not reassembled: one text makes one DVLE): %s shader, main 0x%03x, end 0x%03x, inputs "
      "0x%04x, outputs 0x%04x\n", k, e->type ? "geometry" : "vertex", e->main, e->end, e->in_mask, e->out_mask);
  for (size_t i = 0; i < e->nlabels; i++) {
    put(o, ";   label "), put_name(o, e->labels[i].name);
    put(o, " 0x%03x\n", e->labels[i].addr);
  }
  for (size_t i = 0; i < e->noutputs; i++) {
    put(o, ";   .out - %s o%u", out_types[e->outputs[i].type % 10], e->outputs[i].reg);
    mask_text(o, e->outputs[i].mask);
    put(o, "\n");
  }
  for (size_t i = 0; i < e->nconsts; i++) {
    const pica_const *c = &e->consts[i];
    for (int j = 0; j < 4; j++) f24_text(c->v[j], v[j], sizeof v[j]);
    if (c->type == 0) put(o, ";   .setb b%u %s\n", c->reg, c->v[0] ? "true" : "false");
    else if (c->type == 1) put(o, ";   .seti i%u(%u, %u, %u, %u)\n", c->reg, c->v[0], c->v[1], c->v[2], c->v[3]);
    else put(o, ";   .setf c%u(%s, %s, %s, %s)\n", c->reg, v[0], v[1], v[2], v[3]);
  }
  for (size_t i = 0; i < e->nuniforms; i++) {
    put(o, ";   uniform "), put_name(o, e->uniforms[i].name);
    put(o, " 0x%02x-0x%02x\n", e->uniforms[i].first, e->uniforms[i].last);
  }
}

/* The uniform table of e as .in/.fvec/.ivec/.bool lines that allocate the
 * same registers (hidden _gapN names fill the holes: picasso leaves names
 * starting with _ out of the table). */
static void uniform_lines(out *o, const pica_dvle *e, int gsh_space, unsigned first) {
  static const char *const dir[3] = {".fvec", ".ivec", ".bool"};
  static const unsigned base[3] = {0x10, 0x70, 0x78}, top[3] = {0x70, 0x74, 0x88};
  unsigned next[3] = {0x10, 0x70, 0x78}, gaps = 0;
  if (gsh_space) next[0] = 0x10 + first; /* .gsh MODE cF: floats from cF; b15 is the hardware's */
  unsigned btop = gsh_space ? 0x87 : 0x88;
  int prev = -1, prev_in = 0; /* the last register declared; inputs may share one (.in a v0, .in b v0) */
  for (size_t i = 0; i < e->nuniforms; i++) {
    const pica_uniform *u = &e->uniforms[i];
    char name[64];
    int t = u->first < 0x10 ? -1 : u->first < 0x70 ? 0 : u->first < 0x74 ? 1 : u->first >= 0x78 ? 2 : 3;
    unsigned size = (unsigned)(u->last - u->first + 1);
    int ok = text_name(u->name, name, sizeof name, 1) && t != 3 && (int)u->first > prev - (t < 0 && prev_in) &&
             (t < 0 ? size == 1 : u->first >= next[t] && u->last < (t == 2 ? btop : top[t]));
    for (size_t j = 0; ok && j < i; j++) ok = strcmp(u->name, e->uniforms[j].name) != 0;
    if (!ok) {
      put(o, "; uniform "), put_name(o, u->name);
      put(o, " 0x%02x-0x%02x cannot be declared again in this order\n", u->first, u->last);
      continue;
    }
    prev = u->last, prev_in = t < 0;
    if (t < 0) {
      put(o, ".in %s v%u\n", name, u->first);
      continue;
    }
    if (u->first > next[t]) put(o, "%s _gap%u[%u]\n", dir[t], gaps++, u->first - next[t]);
    put(o, "%s %s", dir[t], name);
    if (size > 1) put(o, "[%u]", size);
    put(o, "  ; %c%u\n", "cib"[t], u->first - base[t]);
    next[t] = u->last + 1u;
  }
}

int pica_disasm_shbin(const pica_shbin *s, char **text, gs_diag *d) {
  *text = NULL;
  char *prog;
  int rc = pica_disasm(s->code, s->ncode, s->opdesc, s->nopdesc, &prog, d);
  if (rc < 0) return rc;
  size_t cap = strlen(prog) + 4096 + s->size * 32;
  out o = {malloc(cap), cap, 0};
  if (!o.p) {
    free(prog);
    return gs_diag_set(d, GS_ENOMEM, "pica: out of memory");
  }
  o.p[0] = 0;
  const pica_dvle *e = &s->dvle[0];
  char v[4][32];
  put(&o, "; DVLB: %zu executable(s), %zu program words, %zu operand descriptors\n", s->ndvle, s->ncode, s->nopdesc);
  int gsh_space = 0;
  unsigned first = 95;
  for (size_t i = 0; i < e->nuniforms; i++)
    if (e->uniforms[i].first >= 0x10 && e->uniforms[i].first < 0x70 && e->uniforms[i].first - 0x10u < first)
      first = e->uniforms[i].first - 0x10u;
  if (e->type == 1 && e->gs_mode == 2 && first <= e->gs_fixed_start) first = e->gs_fixed_start + 1u;
  int gs_bytes = e->gs_mode || e->gs_fixed_start || e->gs_variable_num || e->gs_fixed_num;
  if (e->type == 1 && (e->merge_outmaps || gs_bytes) && first <= 95 && e->gs_mode <= 2) {
    static const char *const mode[3] = {"point", "variable", "fixed"};
    gsh_space = 1; /* uniforms in the geometry shader's own space, from cF */
    put(&o, ".gsh %s c%u", mode[e->gs_mode], first);
    if (e->gs_mode == 1) put(&o, " %u", e->gs_variable_num);
    if (e->gs_mode == 2) put(&o, " c%u %u", e->gs_fixed_start, e->gs_fixed_num);
    put(&o, "\n");
  } else if (e->type == 1 && gs_bytes) {
    put(&o, "; geometry shader mode %u (c%u, %u, %u) cannot be written with .gsh\n", e->gs_mode, e->gs_fixed_start,
        e->gs_variable_num, e->gs_fixed_num);
  }
  uniform_lines(&o, e, gsh_space, first);
  for (size_t i = 0; i < e->nconsts; i++) {
    const pica_const *c = &e->consts[i];
    if (c->type == 0) {
      if (c->v[0] > 1) put(&o, "; the next constant's word is %u; picasso writes 1\n", c->v[0]);
      put(&o, ".setb b%u %s\n", c->reg, c->v[0] ? "true" : "false");
    } else if (c->type == 1) {
      put(&o, ".seti i%u(%u, %u, %u, %u)\n", c->reg, c->v[0], c->v[1], c->v[2], c->v[3]);
    } else {
      for (int j = 0; j < 4; j++) f24_text(c->v[j], v[j], sizeof v[j]);
      put(&o, ".setf c%u(%s, %s, %s, %s)\n", c->reg, v[0], v[1], v[2], v[3]);
      for (int j = 0; j < 4; j++)
        if (c->v[j] >> 24 || pica_f24_picasso(strtod(v[j], NULL)) != c->v[j])
          put(&o, "; component %d's word 0x%08x cannot be written\n", j, c->v[j]);
    }
  }
  uint64_t used = 0;
  uint16_t outs = 0;
  int merge = 0;
  for (size_t i = 0; i < e->noutputs; i++) {
    const pica_output *p = &e->outputs[i];
    unsigned maxo = gsh_space ? 7 : 16;
    if (!p->mask || p->reg >= maxo || (p->reg >= 7 && p->type != 9) || (used >> (4 * p->reg) & p->mask)) {
      put(&o, "; output %s o%u mask 0x%x cannot be declared\n", out_types[p->type % 10], p->reg, p->mask);
      continue;
    }
    used |= (uint64_t)p->mask << (4 * p->reg), outs |= (uint16_t)(1u << p->reg);
    merge |= p->type == 9 && gsh_space;
    put(&o, ".out - %s o%u", out_types[p->type], p->reg);
    mask_text(&o, p->mask);
    put(&o, "\n");
  }
  if (e->type == 1 && !gsh_space) /* picasso's older form, after the outputs it would limit to o0-o6 */
    put(&o, ".gsh\n");
  if (outs != e->out_mask) put(&o, "; the DVLE's output mask 0x%04x is not its outputs' (0x%04x)\n", e->out_mask, outs);
  uint16_t ins = 0;
  for (size_t i = 0; i < e->nuniforms; i++)
    if (e->uniforms[i].first < 0x10) ins |= (uint16_t)(1u << e->uniforms[i].first);
  if (ins != e->in_mask) put(&o, "; the DVLE's input mask 0x%04x is not its .in registers' (0x%04x)\n", e->in_mask, ins);
  if (merge != e->merge_outmaps) put(&o, "; the DVLE's merge flag %u cannot be given back\n", e->merge_outmaps);
  int setemit = 0;
  for (size_t k = 0; k < s->ncode; k++) setemit |= s->code[k] >> 26 == PICA_SETEMIT;
  if (!e->type && setemit) put(&o, "; the program has setemit, which makes this text's DVLE a geometry shader\n");
  if (!e->type && s->ncode > 512) put(&o, "; a vertex shader's program memory holds 512 words, not %zu\n", s->ncode);
  /* the entry: a procedure around main..end when the DVLE names it or
   * starts elsewhere than word 0 (a text without .proc runs all its words) */
  const char *name = NULL;
  for (size_t i = 0; i < e->nlabels && !name; i++)
    if (e->labels[i].addr == e->main && text_name(e->labels[i].name, v[0], sizeof v[0], 0)) name = e->labels[i].name;
  int proc = name || e->main != 0 || e->end != s->ncode;
  if (proc && e->end > e->main) {
    unsigned last = s->code[e->end - 1] >> 26;
    if (last == PICA_JMPC || last == PICA_JMPU || last == PICA_CALL || last == PICA_CALLC || last == PICA_CALLU) {
      put(&o, "; main ends with a jump or call, after which .end would add a NOP: no .proc\n");
      proc = 0;
    }
  } else if (proc) {
    put(&o, "; main 0x%03x and end 0x%03x make no procedure\n", e->main, e->end);
    proc = 0;
  }
  if (!name) name = "main";
  if (proc && strcmp(name, "main")) put(&o, ".entry %s\n", name);
  for (size_t k = 1; k < s->ndvle; k++) dvle_comments(&o, &s->dvle[k], k);
  const char *p = prog;
  for (size_t pc = 0; pc <= s->ncode; pc++) {
    if (proc && pc == e->end) put(&o, ".end\n");
    if (proc && pc == e->main) put(&o, ".proc %s\n", name);
    if (pc == s->ncode) break;
    const char *nl = strchr(p, '\n');
    put(&o, "%.*s\n", (int)(nl - p), p);
    p = nl + 1;
  }
  free(prog);
  if (o.len >= o.n) {
    free(o.p);
    return gs_diag_set(d, GS_ENOMEM, "pica: listing longer than %zu bytes", o.n);
  }
  *text = o.p;
  return GS_OK;
}
