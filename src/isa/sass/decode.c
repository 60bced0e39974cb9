/* decode.c — SASS words to sass_insn, walking the instruction table
 * (table.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/bytes.h"
#include "isa/sass/table.h"

/* The value of field reference ref (1 + index) of row r in w. */
static uint32_t ref_get(const sass_row *r, unsigned ref, uint64_t w) {
  return ref ? sass_field_get(&r->fld[ref - 1], w) : 0;
}

static int refuse(gs_diag *d, uint32_t pc, uint64_t w, const char *what) {
  return gs_diag_set(d, GS_EINVAL, "0x%04x: 0x%016llx: %s", pc, (unsigned long long)w, what);
}

/* The constant operand of a cbuf, cr or rc form: 1. */
static int cbuf_of(uint64_t w, sass_insn *o) {
  o->cbank = (uint8_t)sass_field_get(&sass_f_cb_bank, w);
  o->cbyte = (uint16_t)(sass_field_get(&sass_f_cb_word, w) << 2);
  return 1;
}

/* Field combinations whose meaning no source gives: refused, not guessed. */
static const char *unknown_combination(const sass_insn *o) {
  switch (o->op) {
  case SASS_OP_IPA:
    if (!sass_mod(o, SASS_M_IPA_IDX) && o->ra != SASS_RZ) return "IPA without .IDX and Ra other than RZ";
    if (sass_mod(o, SASS_M_IPA_IDX) && sass_mod(o, SASS_M_IPA_ADDR))
      return "IPA.IDX with an address besides Ra (bits 28-37 not 0)";
    break;
  case SASS_OP_IADD32I:
    if (sass_mod(o, SASS_M_IADD_PO) && !sass_mod(o, SASS_M_IADD_NEG_A))
      return "IADD32I with bit 55 but not bit 56 (both together are .PO)";
    break;
  default:
    break;
  }
  return NULL;
}

int sass_decode(uint64_t w, uint32_t ctrl, uint32_t pc, sass_insn *o, gs_diag *d) {
  memset(o, 0, sizeof *o);
  o->raw = w;
  o->ctrl = ctrl & ((1u << SASS_CTRL_BITS) - 1);
  o->rd = o->ra = o->rb = o->rc = SASS_RZ;
  o->guard = SASS_PT;
  int ri = sass_row_of(w);
  if (ri < 0) {
    const char *name = sass_unsupported_name(w);
    if (name)
      return gs_diag_set(d, GS_EINVAL, "0x%04x: 0x%016llx: %s is not supported by gpusim", pc,
                         (unsigned long long)w, name);
    return gs_diag_set(d, GS_EINVAL, "0x%04x: 0x%016llx: unknown opcode (bits 48-63 0x%04x)", pc,
                       (unsigned long long)w, (unsigned)(w >> SASS_KEY_POS));
  }
  const sass_row *r = &sass_table[ri];
  o->entry = (uint16_t)ri;
  o->op = r->op;
  o->form = r->form;
  if (!(r->flags & SASS_R_NOGUARD)) {
    o->guard = (uint8_t)sass_field_get(&sass_f_guard, w);
    o->guard_neg = (uint8_t)sass_field_get(&sass_f_guard_neg, w);
  }
  for (unsigned k = 0; k < SASS_MOD_MAX; k++) {
    const sass_field *f = &r->fld[k];
    uint32_t v = f->print ? sass_field_get(f, w) : 0;
    if (f->print == SASS_P_MUST && v != f->def)
      return gs_diag_set(d, GS_EINVAL, "0x%04x: 0x%016llx: %s with bits %u-%u = %u is not supported by gpusim "
                         "(only %u)", pc, (unsigned long long)w, r->name, f->pos, f->pos + f->width - 1, v, f->def);
    /* a value the table marks "?": no source gives it a meaning */
    const char *s;
    size_t len;
    if (f->print && f->print != SASS_P_MUST && f->names && strchr(f->names, '|') && !sass_name(f->names, v, &s, &len))
      return gs_diag_set(d, GS_EINVAL, "0x%04x: 0x%016llx: %s with bits %u-%u = %u (a value with no known meaning) "
                         "is not supported by gpusim", pc, (unsigned long long)w, r->name, f->pos,
                         f->pos + f->width - 1, v);
  }
  int cbuf = 0;
  for (unsigned k = 0; k < SASS_OPND_MAX && r->opnd[k].kind; k++) {
    const sass_opnd *p = &r->opnd[k];
    uint8_t reg = (uint8_t)(w >> p->pos);
    uint8_t *slot = p->slot == SASS_SLOT_RD ? &o->rd : p->slot == SASS_SLOT_RA ? &o->ra
                  : p->slot == SASS_SLOT_RB ? &o->rb : p->slot == SASS_SLOT_RC ? &o->rc : NULL;
    switch (p->kind) {
    case SASS_O_R: case SASS_O_ATTR: case SASS_O_LMEM:
      if (slot) *slot = reg;
      break;
    case SASS_O_RI:
      if (!ref_get(r, p->f2, w) && slot) *slot = reg;
      break;
    case SASS_O_CX:
      if (slot) *slot = reg;
      o->cbank = (uint8_t)ref_get(r, p->f, w);
      o->cbyte = (uint16_t)ref_get(r, p->f2, w);
      cbuf = 1;
      break;
    case SASS_O_TARGET:
      o->imm = pc + 8 + (uint32_t)sass_sext(ref_get(r, p->f, w), r->fld[p->f - 1].width);
      break;
    case SASS_O_B:
      switch (r->form) {
      case SASS_FORM_REG: o->rb = (uint8_t)sass_field_get(&sass_f_rb, w); break;
      case SASS_FORM_RC: o->rb = (uint8_t)sass_field_get(&sass_f_rc, w); break;
      case SASS_FORM_CBUF: case SASS_FORM_CR: cbuf = cbuf_of(w, o); break;
      case SASS_FORM_IMM: {
        uint32_t v = sass_field_get(&sass_f_imm20, w);
        if (r->flags & SASS_R_U16) o->imm = sass_field_get(&sass_f_imm16, w);
        else if (r->flags & SASS_R_FIMM) o->imm = v << 12; /* the float's bits 31..12 */
        else o->imm = (uint32_t)sass_sext(v, sass_f_imm20.width + sass_f_imm20.width2);
        break;
      }
      case SASS_FORM_IMM32: o->imm = sass_field_get(&sass_f_imm32, w); break;
      }
      break;
    case SASS_O_C:
      if (r->form == SASS_FORM_RC) cbuf = cbuf_of(w, o);
      else o->rc = (uint8_t)sass_field_get(&sass_f_rc, w);
      break;
    }
  }
  if (cbuf && o->cbank > 17) {
    char what[96];
    snprintf(what, sizeof what, "%s reads constant bank %u (Maxwell has banks 0-17)", r->name, o->cbank);
    return refuse(d, pc, w, what);
  }
  const char *why = unknown_combination(o);
  if (why) return gs_diag_set(d, GS_EINVAL, "0x%04x: 0x%016llx: %s is not supported by gpusim", pc,
                              (unsigned long long)w, why);
  return GS_OK;
}

int sass_decode_program(const uint8_t *code, size_t size, sass_insn **out, size_t *n, gs_diag *d) {
  *out = NULL;
  *n = 0;
  if (size % 32)
    return gs_diag_set(d, GS_EINVAL, "%zu bytes of SASS code is not a whole number of 32-byte groups "
                       "(a control word and three instructions)", size);
  size_t count = size / 32 * 3;
  sass_insn *v = malloc(count ? count * sizeof *v : 1);
  if (!v) return gs_diag_set(d, GS_ENOMEM, "out of memory");
  for (size_t g = 0; g < size / 32; g++) {
    uint64_t words[4];
    gs_get_le64s(words, code + 32 * g, 4);
    for (unsigned j = 0; j < 3; j++) {
      uint32_t pc = (uint32_t)(32 * g + 8 + 8 * j);
      int rc = sass_decode(words[1 + j], (uint32_t)(words[0] >> (SASS_CTRL_BITS * j)), pc, &v[3 * g + j], d);
      if (rc < 0) {
        free(v);
        return rc;
      }
    }
  }
  *out = v;
  *n = count;
  return GS_OK;
}
