/* sass.h — NVIDIA Maxwell (SM 5.x) SASS: the decoded instruction every part
 * of src/isa/sass shares (decoder, assembler, disassembler, interpreters).
 *
 * Code in memory is 32-byte groups: a scheduling control word, then three
 * instructions, each a little-endian 64-bit word; instruction byte offsets
 * are therefore 8, 16, 24 (mod 32). The control word holds three 21-bit
 * scheduling fields (bits 0-20, 21-41, 42-62): stall (0-3), yield (4),
 * write barrier (5-7), read barrier (8-10), wait mask (11-16), reuse
 * (17-20). Facts: envytools' gm107 tables, Mesa's nouveau gm107 emitter
 * (src/nouveau/codegen/nv50_ir_emit_gm107.cpp) and NAK's sm50 encoder.
 *
 * The instruction table (table.h/table.c) is the single source of every
 * bit position: the decoder fills sass_insn from it, the assembler and
 * disassembler walk it, and the interpreters read an instruction's own
 * modifier fields through sass_mod() with the SASS_M_* names it defines.
 */
#ifndef GS_ISA_SASS_SASS_H
#define GS_ISA_SASS_SASS_H

#include <stddef.h>
#include <stdint.h>

/* Mnemonics of the graphics subset gpusim runs (one per instruction name,
 * whatever its operand forms). */
#define SASS_OPS(X) \
  X(MOV) X(MOV32I) X(S2R) X(CS2R) X(F2F) X(F2I) X(I2F) X(I2I) X(SEL) X(P2R) X(R2P) \
  X(FADD) X(FMUL) X(FFMA) X(FADD32I) X(FMUL32I) X(FFMA32I) X(FMNMX) X(FSET) X(FSETP) \
  X(FCMP) X(MUFU) X(RRO) \
  X(IADD) X(IADD3) X(IADD32I) X(ISCADD) X(ISCADD32I) X(IMNMX) X(ISETP) X(ISET) X(ICMP) \
  X(LOP) X(LOP32I) X(LOP3) X(SHL) X(SHR) X(BFE) X(BFI) X(XMAD) X(IMUL) X(IMUL32I) \
  X(FLO) X(POPC) \
  X(PSETP) X(PSET) \
  X(ALD) X(AST) X(AL2P) X(IPA) X(OUT) X(ISBERD) \
  X(BRA) X(SSY) X(SYNC) X(PBK) X(BRK) X(EXIT) X(KIL) X(NOP) X(DEPBAR) X(BAR) X(MEMBAR) \
  X(LDC) X(LDL) X(STL) \
  X(TEX) X(TEXS) X(TLDS) X(TLD)

typedef enum sass_op {
#define SASS_OP_ENUM(n) SASS_OP_##n,
  SASS_OPS(SASS_OP_ENUM)
#undef SASS_OP_ENUM
  SASS_OP_COUNT
} sass_op;

/* Where operand B (and, for three-source forms, C) comes from. An
 * interpreter reads B as R[rb] (REG, RC), the constant (CBUF, CR) or imm
 * (IMM, IMM32), and C as the constant (RC) or R[rc] (the others). */
typedef enum sass_form {
  SASS_FORM_NONE = 0, /* no B operand */
  SASS_FORM_REG,      /* B = Rb (bits 20-27); C = Rc (39-46) */
  SASS_FORM_CBUF,     /* B = c[cbank][cbyte]; C = Rc */
  SASS_FORM_IMM,      /* B = imm (the 20-bit form, expanded) ; C = Rc */
  SASS_FORM_IMM32,    /* B = imm (the 32-bit immediate of the ...32I opcodes) */
  SASS_FORM_RC,       /* three-source "rc" form: B = the register in bits 39-46,
                         which the decoder puts in rb; C = c[cbank][cbyte] */
  SASS_FORM_CR        /* three-source "cr" form: B = c[cbank][cbyte], C = Rc */
} sass_form;

enum { SASS_RZ = 255, SASS_PT = 7 };

/* One decoded instruction. */
typedef struct sass_insn {
  uint64_t raw;       /* the instruction word */
  uint32_t ctrl;      /* its 21-bit scheduling field */
  uint32_t imm;       /* FORM_IMM: the 20-bit immediate expanded (integer ops:
                         sign-extended; float ops: the float's bits 31..12);
                         FORM_IMM32: the 32-bit immediate; branches: the
                         target as a code byte offset */
  uint16_t op;        /* sass_op */
  uint16_t entry;     /* index of the table row that decoded it */
  uint16_t cbyte;     /* constant-buffer operand: byte offset */
  uint8_t cbank;      /* constant-buffer operand: bank (0-17) */
  uint8_t form;       /* sass_form */
  uint8_t rd, ra, rb, rc;  /* registers (255 = RZ); rb/rc only when the form uses them */
  uint8_t guard;      /* guard predicate 0-7 (7 = PT) */
  uint8_t guard_neg;  /* 1: @!P */
} sass_insn;

#endif
