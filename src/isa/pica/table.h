/* table.h — the PICA200 shader instruction table: the only place in gpusim
 * where a bit position of a PICA200 instruction word or operand descriptor
 * is written (table.c). One row per opcode (64), one layout per format.
 *
 * Facts: 3dbrew "GPU/Shader Instruction Set" (instruction formats, opcode
 * table, operand descriptors), GBATEK "3DS GPU Shader Instruction Set -
 * Opcode Summary"; the same layout is what picasso (devkitPro) writes and
 * nihstro's shader_bytecode.h describes. docs/pica.md is the chapter.
 */
#ifndef GS_ISA_PICA_TABLE_H
#define GS_ISA_PICA_TABLE_H

#include <stdint.h>
#include "isa/pica/pica.h"

/* A bit field: lo = lowest bit, width 0 = the format has no such field. */
typedef struct pica_field {
  uint8_t lo, width;
} pica_field;

static inline uint32_t pica_get(uint32_t w, pica_field f) {
  return f.width ? (w >> f.lo) & ((1u << f.width) - 1u) : 0u;
}
static inline uint32_t pica_put(uint32_t w, pica_field f, uint32_t v) {
  uint32_t m = f.width ? ((1u << f.width) - 1u) << f.lo : 0u;
  return (w & ~m) | ((v << f.lo) & m);
}

/* Where each field of a format sits. src[k] is SRC(k+1); idx applies to
 * src[wide-1]. unused: the bits no source gives a meaning (must be 0). */
typedef struct pica_layout {
  const char *name; /* "1", "1i", ... as 3dbrew names them */
  pica_field opcode, dst, idx, desc, src[3];
  pica_field cmpx, cmpy, num, target, condop, refx, refy, uid, vtxid, prim, winding;
  uint8_t nsrc, wide;
  uint32_t unused;
} pica_layout;

extern const pica_layout pica_layouts[PICA_NFMT];

/* One opcode: mnemonic (picasso's spelling, NULL = unknown encoding) and
 * format. */
typedef struct pica_opinfo {
  const char *name;
  uint8_t fmt;
} pica_opinfo;

extern const pica_opinfo pica_ops[64];

/* Operand descriptor fields. */
extern const pica_field pica_od_mask, pica_od_neg[3], pica_od_swz[3];

#endif
