/* table.h — the Apple AGX (G13) instruction table: the only place in gpusim
 * where a bit position of an AGX instruction is written (table.c). Each
 * encoding of the subset is one description that both decodes and encodes
 * (a codec run in either direction), so the decoder and the assembler can
 * never disagree; every bit a description does not read must be zero
 * ("unknown bits set" otherwise). Encodings outside the subset are listed
 * with their length so that a decoder can step over them and name them.
 *
 * Facts: Mesa src/asahi/isa/AGX2.xml (field positions, operand kinds,
 * names), Mesa src/asahi/isa/test/cases.txt (bytes and their text) and
 * Dougall Johnson's applegpu (applegpu.py), which agree on every field
 * used here. docs/agx.md is the chapter.
 */
#ifndef GS_ISA_AGX_TABLE_H
#define GS_ISA_AGX_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "gpusim/diag.h"
#include "isa/agx/agx.h"
#include "isa/isa.h"

/* Decodes the instruction at p (avail bytes there). Returns its length (> 0)
 * and fills *I; 0 with *len_out = the length (0 if even that is unknown, or
 * the bytes run out) and a message in why[] when the encoding is outside
 * the subset, has unknown bits set, or is malformed. */
int agx_decode(const uint8_t *p, size_t avail, agx_instr *I, unsigned *len_out, char *why, size_t whysize);

/* The length of the instruction at p from its opcode and length bit alone,
 * 0 if unknown or past avail. */
unsigned agx_length(const uint8_t *p, size_t avail);

/* Encodes I into out[AGX_MAX_BYTES]: the shortest form unless I->long_form;
 * sets I->len. 0, or -1 with a message in why[]. */
int agx_encode(agx_instr *I, uint8_t *out, char *why, size_t whysize);

/* Mesa's disassembler text of one decoded instruction ("fadd     r0, r1, r2"). */
void agx_print(const agx_instr *I, char *buf, size_t size);

/* The mnemonic Mesa prints for an op (its canonical name). */
const char *agx_op_name(unsigned op);

/* Names (Mesa's) of the enumerations, NULL where a value has none. */
const char *agx_sr_name(unsigned sr);
const char *agx_icond_name(unsigned c);
const char *agx_fcond_name(unsigned c);
const char *agx_format_name(unsigned f);
const char *agx_convert_name(unsigned mode);
const char *agx_bitop_name(unsigned tt, int unary);
const char *agx_dim_name(unsigned d);
const char *agx_lod_name(unsigned t);
extern const char *const agx_mask_names[16];

/* 1: both byte strings decode whole and print the same text, instruction
 * by instruction (they may differ in long forms and hidden index bits). */
int agx_same_text(const uint8_t *a, size_t na, const uint8_t *b, size_t nb);

/* Text tools (asm.c, disasm.c). */
int agx_asm(const char *src, const char *file, gs_isa_binary *out, gs_diag *d);
int agx_disasm(const uint8_t *bytes, size_t size, char **text, gs_diag *d);

#endif
