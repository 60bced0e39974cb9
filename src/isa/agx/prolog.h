/* prolog.h — the Apple AGX vertex prolog as real AGX code (prolog.c): what
 * the driver builds, per vertex program and attribute-record layout, to
 * fetch the attributes the main vertex program finds in r(8 + 4a + c), in
 * the manner of Mesa's Asahi driver (src/asahi/lib/agx_nir_lower_vbo.c, the
 * uniform layout of src/asahi/lib/agx_abi.h). The unit (unit.c) runs it
 * in front of the main program as one program. docs/agx-unit.md, "Vertex
 * stage", is the chapter.
 *
 * Uniforms for n attribute slots (32-bit uniform numbers): du(2i) = the
 * base address of slot i's array (64-bit), u(2n + i) = its clamp (the
 * largest element index whose bytes lie in the array's allocation), u(3n)
 * the base vertex, u(3n + 1) the base instance, u(3n + 2)l the draw id.
 *
 * Per slot read: `csel r7, clamp, r5, 0, r5, ult` (robustness as GL has
 * it: an element past the clamp reads element 0), then `load`s of the
 * slot's 32-bit words into the registers the SPH maps, indexed by r7 with
 * the stride folded into the load's lsl when the stride in elements is 1,
 * 2 or 4 and the load starts the element, else by r3 = imadd r7 x (stride
 * in elements) + (offset in elements). Words are read as i32 elements when
 * the array's base and stride are multiples of 4, as pairs of i16 halves
 * when they are even, else as bytes combined with iadd; a word the record
 * covers only in part reads its bytes with i16/i8 elements (zero-extended,
 * as the VideoCore IV's VCD leaves the unused bytes of a last word 0).
 * Then the fills: a component the SPH does not map of an attribute it maps
 * is (0, 0, 0, 1), a word the SPH maps that no record covers is 0 (the
 * VCD's zeroed VPM); `wait a`; the main program follows. Scratch: r2, r3,
 * r7 (of the registers Mesa's ABI leaves the prolog: r0-r3, r7; r0l, the
 * nesting counter, is not touched), which the main program sees as the
 * prolog left them.
 */
#ifndef GS_ISA_AGX_PROLOG_H
#define GS_ISA_AGX_PROLOG_H

#include <stdint.h>
#include "gpusim/diag.h"
#include "isa/isa.h"

enum { AGX_PROLOG_MAX_ATTRS = 8 };

/* One attribute record as the prolog reads it. */
typedef struct agx_prolog_attr {
  uint32_t size;       /* bytes of the attribute */
  uint32_t stride;     /* bytes between elements (0: every vertex reads element 0) */
  uint32_t vpm_offset; /* byte offset of its first word among the input words (a multiple of 4) */
  uint8_t slot;        /* its uniform slot (the record's number in its GL shader record) */
  uint8_t align;       /* 4, 2 or 1: the largest of these dividing both the base address and the stride */
} agx_prolog_attr;

/* What a prolog is built from besides the slot count: the records, and
 * the vertex program's inputs: input word k (k < nin, the words in the
 * order of the SPH's IMAP) goes to 32-bit register in_reg[k], and
 * attr_mask[a] has the components of attribute a the SPH maps. */
typedef struct agx_prolog_key {
  unsigned nattrs;
  agx_prolog_attr attr[AGX_PROLOG_MAX_ATTRS];
} agx_prolog_key;

typedef struct agx_prolog_inputs {
  unsigned nin;
  const uint8_t *in_reg;
  const uint8_t *attr_mask; /* AGX_PROLOG_MAX_ATTRS entries */
} agx_prolog_inputs;

/* The input words of a program whose SPH maps components masks[a] of
 * generic input a (a < AGX_PROLOG_MAX_ATTRS), in IMAP order (a, then c,
 * ascending): word k goes to 32-bit register in_reg[k] = 8 + 4a + c.
 * Returns the count. */
unsigned agx_prolog_words(const uint8_t *masks, uint8_t in_reg[4 * AGX_PROLOG_MAX_ATTRS]);

/* Builds the prolog for n uniform slots (the unit: AGX_VS_ATTRIBS) into
 * out->bytes (out->lines NULL), each instruction encoded by the table
 * (agx_encode). *reads gets the slots whose arrays the prolog loads from
 * (bit i: slot i). 0, or an error naming the record. */
int agx_prolog_build(const agx_prolog_key *k, const agx_prolog_inputs *in, unsigned n, gs_isa_binary *out,
                     uint32_t *reads, gs_diag *d);

/* The 32-bit uniform numbers of the layout for n slots. */
static inline unsigned agx_prolog_base_unif(unsigned i) { return 2 * i; }
static inline unsigned agx_prolog_clamp_unif(unsigned n, unsigned i) { return 2 * n + i; }

/* The clamp of an array with `avail` bytes from its base to the end of its
 * allocation, elements of size bytes every stride bytes: the largest index
 * whose element lies wholly inside, (avail - size) / stride, as Mesa's
 * agx_calculate_vbo_clamp computes it (UINT32_MAX for stride 0: nothing to
 * clamp); -1 when not even element 0 does. */
int64_t agx_prolog_clamp(uint32_t avail, uint32_t size, uint32_t stride);

#endif
