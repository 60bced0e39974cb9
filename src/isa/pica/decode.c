/* decode.c — one PICA200 instruction word and its operand descriptor into a
 * pica_insn (pica.h), through the layouts of table.c. */
#include <string.h>
#include "isa/pica/table.h"

static unsigned canonical_op(unsigned op6) {
  if (op6 >= PICA_MAD) return PICA_MAD;
  if (op6 >= PICA_MADI) return PICA_MADI;
  if (op6 == PICA_CMP + 1) return PICA_CMP;
  return op6;
}

int pica_decode(uint32_t word, uint32_t pc, const uint32_t *opdesc, size_t nopdesc, pica_insn *out, gs_diag *d) {
  unsigned op6 = word >> 26;
  const pica_opinfo *info = &pica_ops[op6];
  memset(out, 0, sizeof *out);
  out->word = word;
  if (!info->name)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: opcode 0x%02x is unknown (no public source documents it)",
                       pc, word, op6);
  const pica_layout *L = &pica_layouts[info->fmt];
  out->op = (uint8_t)canonical_op(op6);
  out->fmt = info->fmt;
  uint32_t unused = L->unused;
  if (out->op == PICA_MOVA) unused |= 0x1Fu << L->dst.lo; /* MOVA writes a0, not DST */
  if (word & unused)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: %s has bits 0x%08x set where format %s has no field",
                       pc, word, info->name, word & unused, L->name);
  out->nsrc = L->nsrc;
  out->wide = L->wide;
  out->dst = (uint8_t)pica_get(word, L->dst);
  out->desc = (uint8_t)pica_get(word, L->desc);
  out->cmpx = (uint8_t)pica_get(word, L->cmpx);
  out->cmpy = (uint8_t)pica_get(word, L->cmpy);
  out->num = (uint8_t)pica_get(word, L->num);
  out->target = (uint16_t)pica_get(word, L->target);
  out->condop = (uint8_t)pica_get(word, L->condop);
  out->refx = (uint8_t)pica_get(word, L->refx);
  out->refy = (uint8_t)pica_get(word, L->refy);
  out->uid = (uint8_t)pica_get(word, L->uid);
  out->vtxid = (uint8_t)pica_get(word, L->vtxid);
  out->prim = (uint8_t)pica_get(word, L->prim);
  out->winding = (uint8_t)pica_get(word, L->winding);
  if (out->op == PICA_CMP && (out->cmpx > PICA_CMP_GE || out->cmpy > PICA_CMP_GE))
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: cmp operator %u is reserved (only 0-5 are documented)",
                       pc, word, out->cmpx > PICA_CMP_GE ? out->cmpx : out->cmpy);
  if (out->op == PICA_LOOP && out->uid > 3)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: for names integer uniform %u (there are i0-i3)", pc,
                       word, out->uid);
  if (out->op == PICA_LOOP && out->num)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: for has NUM 0x%02x (unused, must be 0)", pc, word,
                       out->num);
  if ((out->op == PICA_JMPC || out->op == PICA_BREAKC) && out->num)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: %s has NUM 0x%02x (unused, must be 0)", pc, word,
                       info->name, out->num);
  if (out->op == PICA_JMPU && out->num > 1)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: jmpu has NUM 0x%02x (only bit 0, the inversion, has "
                       "a meaning)", pc, word, out->num);
  if (out->op == PICA_CALL && (out->condop || out->refx || out->refy))
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: call has condition bits 0x%08x (unused, must be 0)", pc,
                       word, word & 0x03C00000u);
  if (out->op == PICA_SETEMIT && out->vtxid > 2)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: setemit vertex %u (the emit buffer has slots 0-2)", pc,
                       word, out->vtxid);
  if (out->op == PICA_BREAKC && out->target)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: breakc has DST 0x%03x (unused, must be 0)", pc, word,
                       out->target);
  if (!L->nsrc) return GS_OK;
  for (unsigned k = 0; k < L->nsrc; k++) out->src[k].reg = (uint8_t)pica_get(word, L->src[k]);
  out->src[L->wide - 1].idx = (uint8_t)pica_get(word, L->idx);
  if (out->desc >= nopdesc)
    return gs_diag_set(d, GS_EINVAL, "pica: word 0x%03x: 0x%08x: operand descriptor %u is past the table (%zu entries)",
                       pc, word, out->desc, nopdesc);
  uint32_t od = opdesc[out->desc];
  out->opdesc = od;
  out->mask = (uint8_t)pica_get(od, pica_od_mask);
  for (unsigned k = 0; k < L->nsrc; k++) {
    out->src[k].neg = (uint8_t)pica_get(od, pica_od_neg[k]);
    out->src[k].swz = (uint8_t)pica_get(od, pica_od_swz[k]);
  }
  return GS_OK;
}
