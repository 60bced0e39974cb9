/* disasm.c — PICA200 instructions as picasso-style text (docs/pica.md). */
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
